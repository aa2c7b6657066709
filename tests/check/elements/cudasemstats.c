/* gst-cudasync: the stats of cudasemsignal and cudasemwait
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Tests:
 * test_stats_at_eos: a pipeline run to EOS notifies each element's stats
 *     once, carrying the final counters (what gst-launch-1.0 -v prints)
 * test_stats_documented: what each element reports, before and after a
 *     run, has exactly the fields its stats description documents
 */
#include "common.h"
#include "statscheck.h"

#define N_BUFFERS 20

/* no semaphore anywhere: cudasemsignal synchronises on the CPU */
#define PIPELINE "videotestsrc num-buffers=" G_STRINGIFY (N_BUFFERS) " ! " \
    "video/x-raw,format=NV12,width=64,height=48 ! cudaupload ! " \
    "cudasemsignal name=sig ! cudasemwait name=wait ! fakesink"

static GstElement *
run_watched (StatsWatch * w)
{
  GstElement *p = gst_parse_launch (PIPELINE, NULL);
  gchar *err;

  fail_unless (p != NULL);
  cs_set_cuda_context (p, cs_ctx);
  stats_watch_init (w, p);
  err = cs_play_to_end (p);
  fail_unless (err == NULL, "%s", err);
  return p;
}

GST_START_TEST (test_stats_at_eos)
{
  StatsWatch w;
  GstElement *p = run_watched (&w);
  const GstStructure *s;

  s = stats_watch_only (&w, "sig");
  fail_unless_equals_uint64 (stats_field (s, "buffers"), N_BUFFERS);
  fail_unless_equals_uint64 (stats_field (s, "cpu-syncs"), N_BUFFERS);
  fail_unless_equals_uint64 (stats_field (s, "signals"), 0);
  s = stats_watch_only (&w, "wait");
  fail_unless_equals_uint64 (stats_field (s, "buffers"), N_BUFFERS);
  fail_unless_equals_uint64 (stats_field (s, "waits"), 0);
  /* the other elements have no stats */
  fail_unless_equals_int (g_hash_table_size (w.notes), 2);

  stats_watch_clear (&w);
  gst_object_unref (p);
}

GST_END_TEST;

static void
check_documented (GstElement * p, const gchar * name)
{
  GstElement *e = gst_bin_get_by_name (GST_BIN (p), name);
  GstElement *fresh =
      gst_element_factory_create (gst_element_get_factory (e), NULL);
  GstStructure *s = NULL;

  /* after the run (read, not notified: it shows without the notification) */
  g_object_get (e, "stats", &s, NULL);
  stats_assert_documented (e, s);
  gst_structure_free (s);
  /* an element that has not run yet: what gst-inspect-1.0 shows */
  g_object_get (fresh, "stats", &s, NULL);
  stats_assert_documented (fresh, s);
  gst_structure_free (s);
  gst_object_unref (fresh);
  gst_object_unref (e);
}

GST_START_TEST (test_stats_documented)
{
  StatsWatch w;
  GstElement *p = run_watched (&w);

  check_documented (p, "sig");
  check_documented (p, "wait");
  stats_watch_clear (&w);
  gst_object_unref (p);
}

GST_END_TEST;

static Suite *
cudasemstats_suite (void)
{
  Suite *s = suite_create ("cudasemstats");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_checked_fixture (tc, cs_setup, cs_teardown);
  tcase_add_test (tc, test_stats_at_eos);
  tcase_add_test (tc, test_stats_documented);
  return s;
}

GST_CHECK_MAIN (cudasemstats);

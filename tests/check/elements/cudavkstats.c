/* gst-cudasync: the stats of cudatovulkan and vulkantocuda
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Helpers and what the simulator runs in place of a GPU: bridgecommon.h.
 *
 * Tests:
 * test_stats_at_eos: a pipeline through both elements run to EOS notifies
 *     each one's stats once, carrying the final counters (what
 *     gst-launch-1.0 -v prints)
 * test_stats_documented: what each element reports, before and after a
 *     run, has exactly the fields its stats description documents
 */
#include "bridgecommon.h"
#include "statscheck.h"

#define N_BUFFERS 10

#define PIPELINE "videotestsrc num-buffers=" G_STRINGIFY (N_BUFFERS) " ! " \
    "video/x-raw,format=RGBA,width=64,height=48 ! cudaupload ! " \
    "cudatovulkan name=c2v ! vulkantocuda name=v2c ! cudadownload ! fakesink"

static GstElement *
run_watched (StatsWatch * w)
{
  GstElement *p = cs_vk_parse_launch (PIPELINE, NULL);
  gchar *err;

  fail_unless (p != NULL);
  stats_watch_init (w, p);
  err = cs_play_to_end (p);
  fail_unless (err == NULL, "%s", err);
  return p;
}

GST_START_TEST (test_stats_at_eos)
{
  const gchar *names[] = { "c2v", "v2c" };
  StatsWatch w;
  GstElement *p = run_watched (&w);
  guint i;

  for (i = 0; i < G_N_ELEMENTS (names); i++) {
    const GstStructure *s = stats_watch_only (&w, names[i]);

    fail_unless_equals_uint64 (stats_field (s, "buffers"), N_BUFFERS);
    /* lavapipe exports no semaphores: the CPU fallback, at least once a
     * frame */
    if (cs_is_sim) {
      fail_unless (stats_field (s, "cpu-syncs") >= N_BUFFERS);
      fail_unless_equals_string (gst_structure_get_string (s,
              "semaphore-type"), "none");
    }
  }
  /* the other elements have no stats */
  fail_unless_equals_int (g_hash_table_size (w.notes), 2);
  stats_watch_clear (&w);
  gst_object_unref (p);
}

GST_END_TEST;

static void
check_documented (GstElement * p, const gchar * name)
{
  GstElement *e = bc_by_name (p, name);
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
}

GST_START_TEST (test_stats_documented)
{
  StatsWatch w;
  GstElement *p = run_watched (&w);

  check_documented (p, "c2v");
  check_documented (p, "v2c");
  stats_watch_clear (&w);
  gst_object_unref (p);
}

GST_END_TEST;

static Suite *
cudavkstats_suite (void)
{
  Suite *s = suite_create ("cudavkstats");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_checked_fixture (tc, cs_vk_setup, cs_vk_teardown);
  tcase_add_test (tc, test_stats_at_eos);
  tcase_add_test (tc, test_stats_documented);
  return s;
}

int
main (int argc, char **argv)
{
  gst_check_init (&argc, &argv);
  return cs_vk_run_suite (cudavkstats_suite (), "cudavkstats", __FILE__);
}

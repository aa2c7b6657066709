/* gst-cudasync: the stats of cudasyncipcsink and cudasyncipcsrc
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Both elements in this process, their semaphores from the test backend
 * (new-semaphore).
 *
 * Tests:
 * test_stats_at_eos: a sink pipeline run to EOS, and the source that
 *     received its frames, notify each element's stats once, carrying the
 *     final counters (what gst-launch-1.0 -v prints)
 * test_stats_documented: what each element reports, before and after a
 *     run, has exactly the fields its stats description documents
 */
#include "ipccommon.h"
#include "statscheck.h"
#include <unistd.h>

#define N_FRAMES 10

typedef struct
{
  GstElement *sp, *ap;          /* the sink's pipeline, the source's */
  GstElement *sink, *src;
  StatsWatch w;
  gchar *path;
} Run;

static void
wait_eos (GstElement * pipeline)
{
  GstBus *bus = gst_element_get_bus (pipeline);
  GstMessage *msg = gst_bus_timed_pop_filtered (bus, 60 * GST_SECOND,
      GST_MESSAGE_EOS | GST_MESSAGE_ERROR);

  fail_unless (msg != NULL, "no EOS within a minute");
  fail_unless (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_EOS, "%"
      GST_PTR_FORMAT, msg);
  gst_message_unref (msg);
  gst_object_unref (bus);
}

/* N_FRAMES frames from the sink to the source, both to EOS, then NULL */
static void
run_pair (Run * r)
{
  r->path = g_strdup_printf ("%s/cudaipcstats-%d.sock", g_get_tmp_dir (),
      getpid ());
  r->sp = ipc_pipeline ("videotestsrc num-buffers=" G_STRINGIFY (N_FRAMES)
      " ! video/x-raw,format=" FORMAT ",width=64,height=48,framerate=30/1 ! "
      "cudaupload ! cudasyncipcsink name=sink sync=false socket-path=%s",
      r->path, "sink");
  r->ap = ipc_pipeline ("cudasyncipcsrc name=src socket-path=%s ! "
      "fakesink sync=false", r->path, "src");
  r->sink = gst_bin_get_by_name (GST_BIN (r->sp), "sink");
  r->src = gst_bin_get_by_name (GST_BIN (r->ap), "src");
  stats_watch_init (&r->w, r->sp);
  stats_watch_add (&r->w, r->ap);

  /* the source connects before the first frame: it gets them all */
  fail_unless (gst_element_set_state (r->sp, GST_STATE_PAUSED) !=
      GST_STATE_CHANGE_FAILURE);
  fail_unless (gst_element_set_state (r->ap, GST_STATE_PLAYING) !=
      GST_STATE_CHANGE_FAILURE);
  fail_unless_equals_uint64 (ipc_wait_stat (r->sink, "sessions", 1), 1);
  gst_element_set_state (r->sp, GST_STATE_PLAYING);
  wait_eos (r->sp);
  /* the sink's EOS travels to the source, which pushes one */
  wait_eos (r->ap);
  gst_element_set_state (r->ap, GST_STATE_NULL);
  gst_element_set_state (r->sp, GST_STATE_NULL);
}

static void
run_clear (Run * r)
{
  stats_watch_clear (&r->w);
  gst_object_unref (r->sink);
  gst_object_unref (r->src);
  gst_object_unref (r->sp);
  gst_object_unref (r->ap);
  g_free (r->path);
}

GST_START_TEST (test_stats_at_eos)
{
  const GstStructure *s;
  Run r;

  run_pair (&r);
  s = stats_watch_only (&r.w, "sink");
  fail_unless_equals_uint64 (stats_field (s, "buffers"), N_FRAMES);
  fail_unless_equals_uint64 (stats_field (s, "frames-sent"), N_FRAMES);
  fail_unless_equals_uint64 (stats_field (s, "sessions"), 1);
  s = stats_watch_only (&r.w, "src");
  fail_unless_equals_uint64 (stats_field (s, "frames"), N_FRAMES);
  fail_unless_equals_uint64 (stats_field (s, "connections"), 1);
  /* the other elements have no stats */
  fail_unless_equals_int (g_hash_table_size (r.w.notes), 2);
  run_clear (&r);
}

GST_END_TEST;

/* The other engineers' fields are compared as a set, both ways: a field
 * the structure gained without a description fails, and so does one
 * described that the structure lacks */
static void
check_documented (GstElement * e)
{
  GstElement *fresh =
      gst_element_factory_create (gst_element_get_factory (e), NULL);
  GstStructure *s = NULL, *before = NULL;

  /* after the stop: the last run's (read, not notified: it shows without
   * the notification) */
  g_object_get (e, "stats", &s, NULL);
  stats_assert_documented (e, s);
  /* an element that has not run yet: what gst-inspect-1.0 shows */
  g_object_get (fresh, "stats", &before, NULL);
  stats_assert_documented (fresh, before);
  fail_unless_equals_int (gst_structure_n_fields (before),
      gst_structure_n_fields (s));
  gst_structure_free (before);
  gst_structure_free (s);
  gst_object_unref (fresh);
}

GST_START_TEST (test_stats_documented)
{
  Run r;

  run_pair (&r);
  check_documented (r.sink);
  check_documented (r.src);
  run_clear (&r);
}

GST_END_TEST;

static Suite *
cudaipcstats_suite (void)
{
  Suite *s = suite_create ("cudaipcstats");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_checked_fixture (tc, cs_setup, cs_teardown);
  tcase_add_test (tc, test_stats_at_eos);
  tcase_add_test (tc, test_stats_documented);
  return s;
}

IPC_CHECK_MAIN (cudaipcstats);

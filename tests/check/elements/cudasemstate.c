/* gst-cudasync: cudasemsignal / cudasemwait across state changes: repeated
 * starts and stops, a stop whose context push fails, the semaphore
 * property changed while running
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The elements' other tests: elements/cudasemsignal (its header lists
 * them).
 *
 * Tests:
 * test_state_cycles: repeated NULL-PLAYING cycles: the pipeline's context
 *     reused, no stream leaked
 * test_stop_without_context: (simulator) stop destroys the stream even when
 *     the context push fails
 * test_semaphore_set_while_running: a semaphore change in PAUSED/PLAYING is
 *     refused with a warning
 */
#include "common.h"
#include <string.h>

/* ---- state changes ---- */

/* stop() destroys the element's stream even when making the context
 * current fails (the simulator's live count is checked at teardown) */
GST_START_TEST (test_stop_without_context)
{
  GstElement *sig = gst_element_factory_make ("cudasemsignal", NULL);
  gint streams;
  CsFixture f;

  if (!cs_is_sim) {
    GST_INFO ("needs the simulator's fault injection: skipped");
    gst_object_unref (sig);
    return;
  }
  g_object_set (sig, "fallback", 0, NULL);
  streams = cs_sim.live_objects ("stream");
  cs_fixture_start (&f, sig, "NV12", 64, 48);
  gst_harness_play (f.h);
  fail_unless_equals_int (cs_sim.live_objects ("stream"), streams + 1);
  cs_sim.inject_failure ("cuCtxPushCurrent_v2", 1, CUDA_ERROR_UNKNOWN);
  fail_unless_equals_int (gst_element_set_state (sig, GST_STATE_NULL),
      GST_STATE_CHANGE_SUCCESS);
  cs_sim.clear_failures ();
  fail_unless_equals_int (cs_sim.live_objects ("stream"), streams);
  cs_fixture_stop (&f);
  gst_object_unref (sig);
}

GST_END_TEST;

GST_START_TEST (test_state_cycles)
{
  TestSem *ts;
  GstCudaSemaphore *sem = cs_new_semaphore (NULL, TRUE, &ts);
  GstElement *pipeline, *sig, *wait;
  GstBus *bus;
  gint i, streams = cs_sim_live ("stream");
  guint created = 0;
  GError *err = NULL;

  pipeline = gst_parse_launch ("videotestsrc num-buffers=1 ! "
      "video/x-raw,format=NV12,width=64,height=48 ! cudaupload ! "
      "cudasemsignal name=sig ! cudasemwait name=wait ! fakesink", &err);
  fail_unless (pipeline != NULL);
  bus = gst_element_get_bus (pipeline);
  gst_bus_set_sync_handler (bus, cs_share_context, NULL, NULL);
  sig = gst_bin_get_by_name (GST_BIN (pipeline), "sig");
  wait = gst_bin_get_by_name (GST_BIN (pipeline), "wait");
  g_object_set (wait, "semaphore", sem, NULL);
  if (cs_is_sim)
    created = cs_sim.call_count ("cuCtxCreate_v2");

  for (i = 0; i < 1000; i++) {
    GstMessage *msg;
    fail_if (gst_element_set_state (pipeline, GST_STATE_PLAYING) ==
        GST_STATE_CHANGE_FAILURE);
    msg = gst_bus_timed_pop_filtered (bus, 10 * GST_SECOND,
        GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
    fail_unless (msg && GST_MESSAGE_TYPE (msg) == GST_MESSAGE_EOS,
        "cycle %d did not reach EOS", i);
    gst_message_unref (msg);
    fail_unless_equals_int (gst_element_set_state (pipeline, GST_STATE_NULL),
        GST_STATE_CHANGE_SUCCESS);
    if (cs_is_sim && i % 100 == 99) {
      cs_sim.drain ();
      fail_unless_equals_int (cs_sim_live ("stream"), streams);
    }
  }
  /* every element took the pipeline's context, none made its own (a
   * context per start is slow on a real GPU, and holds device memory) */
  if (cs_is_sim)
    fail_unless_equals_int (cs_sim.call_count ("cuCtxCreate_v2"), created);
  fail_unless_equals_uint64 (cs_stat (sig, "signals"), 1000);
  fail_unless_equals_uint64 (cs_stat (sig, "last-value"), 1000);
  fail_unless_equals_uint64 (cs_stat (wait, "waits"), 1000);
  fail_unless (test_sem_host_wait (ts, 1000, 10 * GST_SECOND));

  gst_bus_set_sync_handler (bus, NULL, NULL, NULL);
  gst_object_unref (bus);
  gst_object_unref (sig);
  gst_object_unref (wait);
  gst_object_unref (pipeline);
  gst_object_unref (sem);
  test_sem_free (ts);
}

GST_END_TEST;

/* The plugin's g_warning()s (log domain GStreamer-CudaSync) */
static void
count_warning (const gchar * domain, GLogLevelFlags level,
    const gchar * message, gpointer user_data)
{
  GPtrArray *warnings = user_data;

  g_ptr_array_add (warnings, g_strdup (message));
}

/* The semaphore property can change up to READY only: in PAUSED or PLAYING
 * a change is refused with a warning and the old value stays (it used to
 * be stored, returned by "get" and never used). After the element stopped
 * the change applies. */
static void
check_semaphore_refused_while_running (const gchar * factory)
{
  TestSem *ts;
  GstCudaSemaphore *sem = cs_new_semaphore (NULL, TRUE, &ts), *got = NULL;
  GstElement *e = cs_make_element (factory, NULL);
  gboolean signaller = g_str_equal (factory, "cudasemsignal");
  GPtrArray *warnings = g_ptr_array_new_with_free_func (g_free);
  guint handler;
  CsFixture f;
  gint i;

  handler = g_log_set_handler ("GStreamer-CudaSync", G_LOG_LEVEL_WARNING,
      count_warning, warnings);
  cs_fixture_start (&f, e, "NV12", 64, 48);
  fail_unless_equals_int (gst_harness_push (f.h, cs_new_buffer (f.pool, 0)),
      GST_FLOW_OK);
  g_object_set (e, "semaphore", sem, NULL);
  fail_unless_equals_int (warnings->len, 1);
  fail_unless (strstr (g_ptr_array_index (warnings, 0), "NULL or READY"),
      "%s", (gchar *) g_ptr_array_index (warnings, 0));
  g_object_get (e, "semaphore", &got, NULL);
  fail_unless (got == NULL, "%s: semaphore set while PLAYING", factory);
  for (i = 1; i < 4; i++)
    fail_unless_equals_int (gst_harness_push (f.h, cs_new_buffer (f.pool, i)),
        GST_FLOW_OK);
  if (signaller) {
    /* what "get" says is what runs: no semaphore, the fallback */
    fail_unless_equals_uint64 (cs_stat (e, "signals"), 0);
    fail_unless_equals_uint64 (cs_stat (e, "cpu-syncs"), 4);
  }
  cs_fixture_stop (&f);

  /* stopped: the change applies */
  g_object_set (e, "semaphore", sem, NULL);
  g_object_get (e, "semaphore", &got, NULL);
  fail_unless (got == sem);
  fail_unless_equals_int (warnings->len, 1);
  gst_object_unref (got);
  if (signaller) {
    cs_fixture_start (&f, e, "NV12", 64, 48);
    for (i = 0; i < 3; i++)
      fail_unless_equals_int (gst_harness_push (f.h, cs_new_buffer (f.pool,
                  i)), GST_FLOW_OK);
    fail_unless_equals_uint64 (cs_stat (e, "signals"), 3);
    fail_unless_equals_uint64 (cs_stat (e, "cpu-syncs"), 4);
    fail_unless (test_sem_host_wait (ts, 3, 10 * GST_SECOND));
    cs_fixture_stop (&f);
  }
  g_log_remove_handler ("GStreamer-CudaSync", handler);
  g_ptr_array_unref (warnings);
  gst_object_unref (e);
  gst_object_unref (sem);
  test_sem_free (ts);
}

GST_START_TEST (test_semaphore_set_while_running)
{
  check_semaphore_refused_while_running ("cudasemsignal");
  check_semaphore_refused_while_running ("cudasemwait");
}

GST_END_TEST;

static Suite *
cudasemstate_suite (void)
{
  Suite *s = suite_create ("cudasemstate");
  TCase *tc;

  tc = tcase_create ("general");
  suite_add_tcase (s, tc);
  tcase_add_checked_fixture (tc, cs_setup, cs_teardown);
  tcase_add_test (tc, test_state_cycles);
  tcase_add_test (tc, test_stop_without_context);
  tcase_add_test (tc, test_semaphore_set_while_running);
  return s;
}

GST_CHECK_MAIN (cudasemstate);

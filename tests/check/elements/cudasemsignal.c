/* gst-cudasync: cudasemsignal / cudasemwait: the values they signal and
 * where the semaphore comes from (their property, downstream's ALLOCATION
 * answer, an upstream acquire point)
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The elements' other tests, one topic each: elements/cudasemorder (the
 * consumer ordered after the producer on the GPU, the CPU fallback, binary
 * semaphores), elements/cudasemfailure (bad input, driver failures, two
 * devices, loading), elements/cudasemstate (state and property changes).
 *
 * Tests:
 * test_pipeline_passthrough_bytes: cudasemsignal ! cudasemwait is
 *     byte-exact; a signal and a GPU wait per buffer, no CPU sync
 * test_monotonic_values: acquire values grow by one per buffer across a
 *     flush and a renegotiation
 * test_incoming_points_replaced: an incoming acquire point is waited on the
 *     GPU and replaced; its release point travels on
 * test_semaphore_from_downstream: a semaphore offered in the ALLOCATION
 *     query wins over the property
 * test_two_signallers: two cudasemsignal in a row: the first signals its own
 *     semaphore, the second downstream's
 * test_handle_type_mismatch: a semaphore type downstream cannot wait on: a
 *     negotiation error, no signal
 * test_two_pipelines_share_semaphore: two pipelines on one timeline: every
 *     value used once, in order
 */
#include "common.h"
#include <string.h>

static guint64
acquire_value (GstBuffer * buf, GstCudaSemaphore * expect_sem)
{
  guint64 v = 0;

  cs_last_acquire (buf, expect_sem, &v);
  return v;
}

/* ---- byte-exact passthrough through a real pipeline ---- */

static GPtrArray *
run_frames (const gchar * desc, GstCudaSemaphore * sem, guint64 * signals,
    guint64 * waits, guint64 * syncs)
{
  GPtrArray *frames =
      g_ptr_array_new_with_free_func ((GDestroyNotify) g_bytes_unref);
  GError *err = NULL;
  GstElement *pipeline = gst_parse_launch (desc, &err), *sink, *e;
  GstBus *bus;

  fail_unless (pipeline != NULL, "%s", err ? err->message : "");
  bus = gst_element_get_bus (pipeline);
  gst_bus_set_sync_handler (bus, cs_share_context, NULL, NULL);
  gst_object_unref (bus);
  sink = gst_bin_get_by_name (GST_BIN (pipeline), "out");
  g_object_set (sink, "emit-signals", TRUE, "sync", FALSE, NULL);
  g_signal_connect (sink, "new-sample", G_CALLBACK (cs_collect_sample), frames);
  if ((e = gst_bin_get_by_name (GST_BIN (pipeline), "wait"))) {
    if (sem)
      g_object_set (e, "semaphore", sem, NULL);
    cs_run_pipeline (pipeline);
    *waits = cs_stat (e, "waits");
    gst_object_unref (e);
    e = gst_bin_get_by_name (GST_BIN (pipeline), "sig");
    *signals = cs_stat (e, "signals");
    *syncs = cs_stat (e, "cpu-syncs");
    gst_object_unref (e);
  } else {
    cs_run_pipeline (pipeline);
  }
  gst_object_unref (sink);
  gst_object_unref (pipeline);
  return frames;
}

static void
check_passthrough (const gchar * format, gint w, gint h, guint n)
{
  TestSem *ts;
  GstCudaSemaphore *sem = cs_new_semaphore (NULL, TRUE, &ts);
  gchar *src = g_strdup_printf ("videotestsrc num-buffers=%u pattern=ball ! "
      "video/x-raw,format=%s,width=%d,height=%d,framerate=30/1", n, format, w,
      h);
  gchar *ref_desc = g_strdup_printf ("%s ! appsink name=out", src);
  gchar *desc = g_strdup_printf ("%s ! cudaupload ! cudasemsignal name=sig ! "
      "cudasemwait name=wait ! cudadownload ! video/x-raw ! appsink name=out",
      src);
  guint64 signals = 0, waits = 0, syncs = 99;
  GPtrArray *ref, *got;
  guint i;

  ref = run_frames (ref_desc, NULL, NULL, NULL, NULL);
  got = run_frames (desc, sem, &signals, &waits, &syncs);
  fail_unless_equals_int (ref->len, n);
  fail_unless_equals_int (got->len, n);
  for (i = 0; i < n; i++)
    fail_unless (g_bytes_equal (g_ptr_array_index (ref, i),
            g_ptr_array_index (got, i)), "%s %dx%d frame %u differs", format,
        w, h, i);
  fail_unless_equals_uint64 (signals, n);
  fail_unless_equals_uint64 (waits, n);
  fail_unless_equals_uint64 (syncs, 0);
  fail_unless_equals_uint64 (gst_cuda_semaphore_get_last_value (sem), n);
  fail_unless (test_sem_host_wait (ts, n, 10 * GST_SECOND));

  g_ptr_array_unref (ref);
  g_ptr_array_unref (got);
  g_free (src);
  g_free (desc);
  g_free (ref_desc);
  gst_object_unref (sem);
  test_sem_free (ts);
}

GST_START_TEST (test_pipeline_passthrough_bytes)
{
  check_passthrough ("NV12", 320, 241, 12);
  check_passthrough ("RGBA", 63, 17, 5);
  check_passthrough ("I420", 1280, 720, 3);
}

GST_END_TEST;

/* Two signallers in a row: the second consumes downstream's semaphore
 * offer, so the first signals its own semaphore (its property) and the
 * second waits for that on the GPU before signalling downstream's. */
GST_START_TEST (test_two_signallers)
{
  const guint n = 6;
  TestSem *ts1, *ts2;
  GstCudaSemaphore *sem1 = cs_new_semaphore (NULL, TRUE, &ts1);
  GstCudaSemaphore *sem2 = cs_new_semaphore (NULL, TRUE, &ts2);
  GstElement *pipeline, *s1, *s2, *wait;
  GError *err = NULL;
  GstBus *bus;
  GstMessage *msg;

  pipeline = gst_parse_launch ("videotestsrc num-buffers=6 ! "
      "video/x-raw,format=NV12,width=64,height=48 ! cudaupload ! "
      "cudasemsignal name=s1 ! cudasemsignal name=s2 ! cudasemwait name=wait "
      "! cudadownload ! fakesink", &err);
  fail_unless (pipeline != NULL, "%s", err ? err->message : "?");
  s1 = gst_bin_get_by_name (GST_BIN (pipeline), "s1");
  s2 = gst_bin_get_by_name (GST_BIN (pipeline), "s2");
  wait = gst_bin_get_by_name (GST_BIN (pipeline), "wait");
  g_object_set (s1, "semaphore", sem1, "fallback", 1, NULL);
  g_object_set (s2, "fallback", 1, NULL);
  g_object_set (wait, "semaphore", sem2, NULL);
  bus = gst_element_get_bus (pipeline);
  gst_bus_set_sync_handler (bus, cs_share_context, NULL, NULL);
  gst_element_set_state (pipeline, GST_STATE_PLAYING);
  msg = gst_bus_timed_pop_filtered (bus, 30 * GST_SECOND,
      GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  fail_unless (msg && GST_MESSAGE_TYPE (msg) == GST_MESSAGE_EOS,
      "no EOS: %" GST_PTR_FORMAT, msg);
  gst_message_unref (msg);

  /* each semaphore signalled once a buffer, by one element */
  fail_unless_equals_uint64 (gst_cuda_semaphore_get_last_value (sem1), n);
  fail_unless_equals_uint64 (gst_cuda_semaphore_get_last_value (sem2), n);
  fail_unless_equals_uint64 (cs_stat (s1, "signals"), n);
  fail_unless_equals_uint64 (cs_stat (s2, "signals"), n);
  fail_unless_equals_uint64 (cs_stat (s2, "waits"), n);
  fail_unless_equals_uint64 (cs_stat (s1, "cpu-syncs"), 0);
  fail_unless_equals_uint64 (cs_stat (s2, "cpu-syncs"), 0);
  fail_unless_equals_uint64 (cs_stat (wait, "waits"), n);
  fail_unless (test_sem_host_wait (ts1, n, 10 * GST_SECOND));
  fail_unless (test_sem_host_wait (ts2, n, 10 * GST_SECOND));

  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (bus);
  gst_object_unref (s1);
  gst_object_unref (s2);
  gst_object_unref (wait);
  gst_object_unref (pipeline);
  gst_object_unref (sem1);
  gst_object_unref (sem2);
  test_sem_free (ts1);
  test_sem_free (ts2);
}

GST_END_TEST;

/* ---- timeline values: many buffers, flush, renegotiation ---- */

GST_START_TEST (test_monotonic_values)
{
  TestSem *ts;
  GstCudaSemaphore *sem = cs_new_semaphore (NULL, TRUE, &ts);
  GstElement *sig = cs_make_element ("cudasemsignal", "semaphore", sem, NULL);
  CsFixture f;
  guint64 expect = 0;
  gint i, round;

  cs_fixture_start (&f, sig, "NV12", 64, 48);
  for (round = 0; round < 3; round++) {
    for (i = 0; i < 100; i++) {
      GstBuffer *in = cs_new_buffer (f.pool, i), *out;
      fail_unless_equals_int (gst_harness_push (f.h, in), GST_FLOW_OK);
      out = gst_harness_pull (f.h);
      fail_unless_equals_uint64 (acquire_value (out, sem), ++expect);
      gst_buffer_unref (out);
    }
    if (round == 0) {
      /* flush-seek: the timeline continues */
      fail_unless (gst_harness_push_event (f.h, gst_event_new_flush_start ()));
      fail_unless (gst_harness_push_event (f.h,
              gst_event_new_flush_stop (TRUE)));
      gst_harness_set_src_caps (f.h, gst_caps_ref (f.caps));
    } else if (round == 1) {
      cs_fixture_renegotiate (&f, "RGBA", 31, 7);
    }
  }
  fail_unless_equals_uint64 (cs_stat (sig, "last-value"), 300);
  fail_unless_equals_uint64 (cs_stat (sig, "signals"), 300);
  fail_unless_equals_uint64 (cs_stat (sig, "buffers"), 300);
  fail_unless (test_sem_host_wait (ts, 300, 10 * GST_SECOND));
  fail_unless_equals_uint64 (test_sem_get_value (ts), 300);
  cs_fixture_stop (&f);
  gst_object_unref (sig);
  gst_object_unref (sem);
  test_sem_free (ts);
}

GST_END_TEST;

/* An incoming acquire point is waited for on the GPU and replaced by the
 * element's own, which is ordered after it. */
GST_START_TEST (test_incoming_points_replaced)
{
  TestSem *ts, *up_ts;
  GstCudaSemaphore *sem = cs_new_semaphore (NULL, TRUE, &ts);
  GstCudaSemaphore *up = cs_new_semaphore (NULL, TRUE, &up_ts);
  GstElement *sig = cs_make_element ("cudasemsignal", "semaphore", sem, NULL);
  GstCudaSyncMeta *meta;
  GstBuffer *in, *out;
  CsFixture f;

  cs_fixture_start (&f, sig, "NV12", 64, 48);
  in = cs_new_buffer (f.pool, 1);
  meta = gst_buffer_add_cuda_sync_meta (in);
  gst_cuda_sync_meta_add_acquire (meta, up, 1);
  gst_cuda_sync_meta_set_release (meta, up, 2);
  fail_unless_equals_int (gst_harness_push (f.h, in), GST_FLOW_OK);
  out = gst_harness_pull (f.h);
  meta = gst_buffer_get_cuda_sync_meta (out);
  fail_unless_equals_int (gst_cuda_sync_meta_get_n_acquire (meta), 1);
  fail_unless_equals_uint64 (acquire_value (out, sem), 1);
  /* the release point travels on */
  fail_unless (gst_cuda_sync_meta_get_release (meta, NULL) == up);
  fail_unless_equals_uint64 (cs_stat (sig, "waits"), 1);
  /* our signal runs only after the upstream point is reached */
  fail_unless (test_sem_host_signal (up_ts, 1));
  fail_unless (test_sem_host_wait (ts, 1, 10 * GST_SECOND));
  gst_buffer_unref (out);
  /* the release point is signalled when the buffer goes away */
  fail_unless (test_sem_host_wait (up_ts, 2, 10 * GST_SECOND));
  cs_fixture_stop (&f);
  gst_object_unref (sig);
  gst_object_unref (sem);
  gst_object_unref (up);
  test_sem_free (ts);
  test_sem_free (up_ts);
}

GST_END_TEST;

/* ---- where the semaphore comes from ---- */

GST_START_TEST (test_semaphore_from_downstream)
{
  TestSem *ts1, *ts2;
  GstCudaSemaphore *prop = cs_new_semaphore (NULL, TRUE, &ts1);
  GstCudaSemaphore *offered = cs_new_semaphore (NULL, TRUE, &ts2);
  GstElement *sig = cs_make_element ("cudasemsignal", "semaphore", prop, NULL);
  GstBuffer *out;
  CsFixture f;

  cs_fixture_start (&f, sig, "NV12", 64, 48);
  cs_harness_offer (f.h, GST_CUDA_SEMAPHORE_HANDLE_TYPE_FLAGS_ALL, offered);
  fail_unless_equals_int (gst_harness_push (f.h, cs_new_buffer (f.pool, 1)),
      GST_FLOW_OK);
  out = gst_harness_pull (f.h);
  /* downstream's semaphore wins over the property */
  fail_unless_equals_uint64 (acquire_value (out, offered), 1);
  gst_buffer_unref (out);
  fail_unless (test_sem_host_wait (ts2, 1, 10 * GST_SECOND));
  fail_unless_equals_uint64 (gst_cuda_semaphore_get_last_value (prop), 0);
  cs_fixture_stop (&f);
  gst_object_unref (sig);
  gst_object_unref (prop);
  gst_object_unref (offered);
  test_sem_free (ts1);
  test_sem_free (ts2);
}

GST_END_TEST;

GST_START_TEST (test_handle_type_mismatch)
{
  TestSem *ts;
  GstCudaSemaphore *sem = cs_new_semaphore (NULL, TRUE, &ts);
  GstElement *sig = cs_make_element ("cudasemsignal", "semaphore", sem, NULL);
  CsFixture f;
  gchar *msg;
  GQuark domain;
  gint code;

  cs_fixture_start (&f, sig, "NV12", 64, 48);
  cs_harness_offer (f.h, GST_CUDA_SEMAPHORE_HANDLE_TYPE_FLAG_NVSCISYNC, NULL);
  fail_unless_equals_int (gst_harness_push (f.h, cs_new_buffer (f.pool, 1)),
      GST_FLOW_NOT_NEGOTIATED);
  msg = cs_pop_error (f.bus, &domain, &code);
  fail_unless (msg != NULL);
  fail_unless (domain == GST_CORE_ERROR && code == GST_CORE_ERROR_NEGOTIATION);
  fail_unless (strstr (msg, "timeline-fd") && strstr (msg, "nvscisync"), "%s",
      msg);
  g_free (msg);
  fail_unless_equals_uint64 (cs_stat (sig, "signals"), 0);
  cs_fixture_stop (&f);
  gst_object_unref (sig);
  gst_object_unref (sem);
  test_sem_free (ts);
}

GST_END_TEST;

/* ---- two pipelines, one semaphore ---- */

typedef struct
{
  CsFixture f;
  GstCudaSemaphore *sem;
  guint64 values[200];
} Runner;

static gpointer
run_pushes (gpointer data)
{
  Runner *r = data;
  gint i;

  for (i = 0; i < 200; i++) {
    GstBuffer *out;
    fail_unless_equals_int (gst_harness_push (r->f.h, cs_new_buffer (r->f.pool,
                i)), GST_FLOW_OK);
    out = gst_harness_pull (r->f.h);
    r->values[i] = acquire_value (out, r->sem);
    gst_buffer_unref (out);
  }
  return NULL;
}

GST_START_TEST (test_two_pipelines_share_semaphore)
{
  TestSem *ts;
  GstCudaSemaphore *sem = cs_new_semaphore (NULL, TRUE, &ts);
  Runner r[2];
  GThread *t[2];
  gboolean seen[401] = { FALSE, };
  gint i, k;

  if (cs_is_sim)
    cs_sim.set_delay_us ("cuSignalExternalSemaphoresAsync", 300);
  for (k = 0; k < 2; k++) {
    GstElement *sig = cs_make_element ("cudasemsignal", "semaphore", sem, NULL);
    r[k].sem = sem;
    cs_fixture_start (&r[k].f, sig, "NV12", 64, 48);
    gst_object_unref (sig);
  }
  for (k = 0; k < 2; k++)
    t[k] = g_thread_new ("pusher", run_pushes, &r[k]);
  for (k = 0; k < 2; k++)
    g_thread_join (t[k]);

  for (k = 0; k < 2; k++) {
    for (i = 0; i < 200; i++) {
      guint64 v = r[k].values[i];
      fail_unless (v >= 1 && v <= 400);
      fail_if (seen[v], "value %" G_GUINT64_FORMAT " used twice", v);
      seen[v] = TRUE;
      if (i > 0)
        fail_unless (v > r[k].values[i - 1]);
    }
  }
  fail_unless (test_sem_host_wait (ts, 400, 30 * GST_SECOND));
  fail_unless_equals_uint64 (test_sem_get_value (ts), 400);
  for (k = 0; k < 2; k++)
    cs_fixture_stop (&r[k].f);
  /* the simulator checked at execution that the value never went back */
  if (cs_is_sim) {
    cs_sim.drain ();
    fail_unless_equals_int (cs_sim.violation_count (), 0);
  }
  gst_object_unref (sem);
  test_sem_free (ts);
}

GST_END_TEST;

static Suite *
cudasemsignal_suite (void)
{
  Suite *s = suite_create ("cudasemsignal");
  TCase *tc;

  tc = tcase_create ("general");
  suite_add_tcase (s, tc);
  tcase_add_checked_fixture (tc, cs_setup, cs_teardown);
  tcase_add_test (tc, test_pipeline_passthrough_bytes);
  tcase_add_test (tc, test_monotonic_values);
  tcase_add_test (tc, test_incoming_points_replaced);
  tcase_add_test (tc, test_semaphore_from_downstream);
  tcase_add_test (tc, test_two_signallers);
  tcase_add_test (tc, test_handle_type_mismatch);
  tcase_add_test (tc, test_two_pipelines_share_semaphore);
  return s;
}

GST_CHECK_MAIN (cudasemsignal);

/* gst-cudasync: cudasemsignal / cudasemwait: the consumer's work ordered
 * after the producer's, on the GPU through the semaphore (no CPU
 * synchronisation in the streaming thread) or, without a semaphore, by
 * cudasemsignal's CPU fallback; binary semaphores, which allow one signal
 * in flight
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The elements' other tests: elements/cudasemsignal (its header lists
 * them).
 *
 * Tests:
 * test_zero_cpu_syncs_with_semaphore: 50 buffers with a semaphore: no
 *     CPU-synchronising call in the streaming thread
 * test_fallback_sync_counts: no semaphore: fallback=sync synchronises once a
 *     buffer and attaches no meta
 * test_fallback_error: no semaphore with fallback=error: an element error,
 *     no CPU sync
 * test_wait_orders_consumer_after_producer: cudasemwait pushes at once and
 *     the consumer's copy runs after the producer's
 * test_slow_stream_signal_then_wait: (simulator) a signal running 200 ms
 *     late: pushed at once, downloaded after it
 * test_binary_through_wait: a binary semaphore through cudasemwait: a signal
 *     and a GPU wait per buffer
 * test_binary_held_buffer_falls_back: a binary semaphore whose buffer is
 *     still held: CPU sync, then signals resume
 * test_buffer_without_meta_unchanged: cudasemwait passes a buffer without
 *     meta unchanged, no wait
 */
#include "common.h"
#include <string.h>

/* "cudasemsignal ! cudasemwait" as one bin with ghost pads */
static GstElement *
make_signal_wait_bin (GstCudaSemaphore * wait_sem, GstElement ** sig,
    GstElement ** wait)
{
  GError *err = NULL;
  GstElement *bin = gst_parse_bin_from_description
      ("cudasemsignal name=sig ! cudasemwait name=wait", TRUE, &err);

  fail_unless (bin != NULL, "%s", err ? err->message : "");
  *sig = gst_bin_get_by_name (GST_BIN (bin), "sig");
  *wait = gst_bin_get_by_name (GST_BIN (bin), "wait");
  if (wait_sem)
    g_object_set (*wait, "semaphore", wait_sem, NULL);
  return bin;
}

/* ---- CPU synchronisation: none with a semaphore, one a buffer without ---- */

GST_START_TEST (test_zero_cpu_syncs_with_semaphore)
{
  TestSem *ts;
  GstCudaSemaphore *sem = cs_new_semaphore (NULL, TRUE, &ts);
  GstElement *sig = cs_make_element ("cudasemsignal", "semaphore", sem, NULL);
  CsFixture f;
  GstBuffer *in[50];
  gint i, before;

  cs_fixture_start (&f, sig, "NV12", 64, 48);
  for (i = 0; i < 50; i++)
    in[i] = cs_new_buffer (f.pool, i);
  before = cs_sim_thread_syncs ();
  for (i = 0; i < 50; i++)
    fail_unless_equals_int (gst_harness_push (f.h, in[i]), GST_FLOW_OK);
  /* the streaming thread (this one) made no CPU-synchronising call */
  fail_unless_equals_int (cs_sim_thread_syncs () - before, 0);
  fail_unless_equals_uint64 (cs_stat (sig, "cpu-syncs"), 0);
  fail_unless_equals_uint64 (cs_stat (sig, "signals"), 50);
  fail_unless_equals_int (gst_harness_buffers_in_queue (f.h), 50);
  fail_unless (test_sem_host_wait (ts, 50, 10 * GST_SECOND));
  cs_fixture_stop (&f);
  gst_object_unref (sig);
  gst_object_unref (sem);
  test_sem_free (ts);
}

GST_END_TEST;

GST_START_TEST (test_fallback_sync_counts)
{
  GstElement *sig = cs_make_element ("cudasemsignal", NULL);
  CsFixture f;
  GstBuffer *in[20], *out;
  gint i, before;

  cs_fixture_start (&f, sig, "RGBA", 64, 48);
  for (i = 0; i < 20; i++)
    in[i] = cs_new_buffer (f.pool, i);
  before = cs_sim_thread_syncs ();
  for (i = 0; i < 20; i++)
    fail_unless_equals_int (gst_harness_push (f.h, in[i]), GST_FLOW_OK);
  if (cs_is_sim)
    fail_unless_equals_int (cs_sim_thread_syncs () - before, 20);
  fail_unless_equals_uint64 (cs_stat (sig, "cpu-syncs"), 20);
  fail_unless_equals_uint64 (cs_stat (sig, "signals"), 0);
  out = gst_harness_pull (f.h);
  fail_unless (gst_buffer_get_cuda_sync_meta (out) == NULL);
  gst_buffer_unref (out);
  cs_fixture_stop (&f);
  gst_object_unref (sig);
}

GST_END_TEST;

GST_START_TEST (test_fallback_error)
{
  GstElement *sig = cs_make_element ("cudasemsignal", NULL);
  CsFixture f;
  gchar *msg;

  gst_util_set_object_arg (G_OBJECT (sig), "fallback", "error");
  cs_fixture_start (&f, sig, "RGBA", 64, 48);
  fail_unless_equals_int (gst_harness_push (f.h, cs_new_buffer (f.pool, 1)),
      GST_FLOW_ERROR);
  msg = cs_pop_error (f.bus, NULL, NULL);
  fail_unless (msg && strstr (msg, "fallback=error"), "%s", msg);
  g_free (msg);
  fail_unless_equals_uint64 (cs_stat (sig, "cpu-syncs"), 0);
  cs_fixture_stop (&f);
  gst_object_unref (sig);
}

GST_END_TEST;

/* ---- ordering: the consumer's GPU work runs after the signal ---- */

/* The producer's stream waits on the GPU for a gate that the test opens
 * from the host later, then writes the frame and signals the acquire point.
 * (The producer makes no CUDA call once the consumer blocks: on the NVIDIA
 * driver a thread blocked in a synchronous copy on the legacy default stream
 * also blocks CUDA calls of other threads in that context; seen on driver
 * 580. An external producer would be Vulkan.) */
static gpointer
open_gate (gpointer data)
{
  g_usleep (100 * 1000);
  fail_unless (test_sem_host_signal ((TestSem *) data, 1));
  return NULL;
}

GST_START_TEST (test_wait_orders_consumer_after_producer)
{
  TestSem *ts, *gate_ts;
  GstCudaSemaphore *sem = cs_new_semaphore (NULL, TRUE, &ts);
  GstCudaSemaphore *gate = cs_new_semaphore (NULL, TRUE, &gate_ts);
  GstElement *wait = cs_make_element ("cudasemwait", NULL);
  CsFixture f;
  GstBuffer *in, *out, *src_buf;
  GstVideoMeta *vmeta;
  GstMapInfo smap, dmap;
  GBytes *got, *expect;
  GThread *thread;
  GError *err = NULL;
  CUstream ps = NULL;
  gint before;
  guint p;

  cs_fixture_start (&f, wait, "RGBA", 64, 48);
  in = cs_new_buffer (f.pool, 0x10);
  src_buf = cs_new_buffer (f.pool, 0x40);
  gst_cuda_sync_meta_add_acquire (gst_buffer_add_cuda_sync_meta (in), sem, 1);

  /* the producer's GPU work: gate, copy 0x40 frame over the 0x10 one, signal */
  vmeta = gst_buffer_get_video_meta (in);
  fail_unless (gst_buffer_map (src_buf, &smap, GST_MAP_READ | GST_MAP_CUDA));
  fail_unless (gst_buffer_map (in, &dmap, GST_MAP_READ | GST_MAP_CUDA));
  fail_unless (gst_cuda_context_push (cs_ctx));
  fail_unless_equals_int (CuStreamCreate (&ps, CU_STREAM_NON_BLOCKING),
      CUDA_SUCCESS);
  fail_unless (gst_cuda_semaphore_wait (gate, ps, 1, &err));
  for (p = 0; p < GST_VIDEO_INFO_N_PLANES (&f.info); p++) {
    CUDA_MEMCPY2D cp;
    memset (&cp, 0, sizeof (cp));
    cp.srcMemoryType = CU_MEMORYTYPE_DEVICE;
    cp.srcDevice = (CUdeviceptr) smap.data + vmeta->offset[p];
    cp.srcPitch = vmeta->stride[p];
    cp.dstMemoryType = CU_MEMORYTYPE_DEVICE;
    cp.dstDevice = (CUdeviceptr) dmap.data + vmeta->offset[p];
    cp.dstPitch = vmeta->stride[p];
    cp.WidthInBytes = GST_VIDEO_INFO_COMP_WIDTH (&f.info, p) *
        GST_VIDEO_INFO_COMP_PSTRIDE (&f.info, p);
    cp.Height = GST_VIDEO_INFO_COMP_HEIGHT (&f.info, p);
    fail_unless_equals_int (CuMemcpy2DAsync (&cp, ps), CUDA_SUCCESS);
  }
  fail_unless (gst_cuda_semaphore_signal_value (sem, ps, 1, &err));
  gst_cuda_context_pop (NULL);
  gst_buffer_unmap (in, &dmap);
  gst_buffer_unmap (src_buf, &smap);

  before = cs_sim_thread_syncs ();
  fail_unless_equals_int (gst_harness_push (f.h, in), GST_FLOW_OK);
  out = gst_harness_pull (f.h);
  /* the buffer came out before the producer's data was ready: no CPU wait */
  fail_unless_equals_uint64 (test_sem_get_value (ts), 0);
  if (cs_is_sim)
    fail_unless_equals_int (cs_sim_thread_syncs () - before, 0);
  fail_unless_equals_uint64 (cs_stat (wait, "waits"), 1);
  fail_unless_equals_uint64 (cs_stat (wait, "cpu-syncs"), 0);

  thread = g_thread_new ("gate", open_gate, gate_ts);
  /* mapping copies on the legacy default stream: ordered after the wait,
   * so we see the producer's data, never the stale 0x10 pattern */
  got = cs_buffer_bytes (out, &f.info);
  expect = cs_pattern_bytes (&f.info, 0x40);
  fail_unless (g_bytes_equal (got, expect),
      "consumer read before the acquire point");
  fail_unless_equals_uint64 (test_sem_get_value (ts), 1);
  g_thread_join (thread);

  fail_unless (gst_cuda_context_push (cs_ctx));
  CuStreamSynchronize (ps);
  CuStreamDestroy (ps);
  gst_cuda_context_pop (NULL);
  g_bytes_unref (got);
  g_bytes_unref (expect);
  gst_buffer_unref (out);
  gst_buffer_unref (src_buf);
  cs_fixture_stop (&f);
  gst_object_unref (wait);
  gst_object_unref (sem);
  gst_object_unref (gate);
  test_sem_free (ts);
  test_sem_free (gate_ts);
}

GST_END_TEST;

/* A slow simulated stream: cudasemsignal's signal executes 200 ms late; the
 * buffer is pushed at once and the consumer's copy still runs after it. */
GST_START_TEST (test_slow_stream_signal_then_wait)
{
  TestSem *ts;
  GstCudaSemaphore *sem;
  GstElement *bin, *sig, *wait;
  CsFixture f;
  GstBuffer *in, *out;
  GBytes *got, *expect;
  gint before;

  if (!cs_is_sim) {
    GST_INFO ("needs simulated stream delays: skipped");
    return;
  }
  sem = cs_new_semaphore (NULL, TRUE, &ts);
  bin = make_signal_wait_bin (sem, &sig, &wait);
  cs_fixture_start (&f, bin, "NV12", 64, 48);
  in = cs_new_buffer (f.pool, 0x21);
  cs_sim.set_delay_us ("cuSignalExternalSemaphoresAsync", 200000);
  before = cs_sim_thread_syncs ();
  fail_unless_equals_int (gst_harness_push (f.h, in), GST_FLOW_OK);
  out = gst_harness_pull (f.h);
  fail_unless_equals_int (cs_sim_thread_syncs () - before, 0);
  /* pushed while the signal is still queued on the GPU */
  fail_unless_equals_uint64 (test_sem_get_value (ts), 0);
  got = cs_buffer_bytes (out, &f.info);
  /* the download ran after the signal executed */
  fail_unless_equals_uint64 (test_sem_get_value (ts), 1);
  expect = cs_pattern_bytes (&f.info, 0x21);
  fail_unless (g_bytes_equal (got, expect));
  fail_unless_equals_uint64 (cs_stat (sig, "signals"), 1);
  fail_unless_equals_uint64 (cs_stat (wait, "waits"), 1);
  g_bytes_unref (got);
  g_bytes_unref (expect);
  gst_buffer_unref (out);
  cs_fixture_stop (&f);
  gst_object_unref (sig);
  gst_object_unref (wait);
  gst_object_unref (bin);
  gst_object_unref (sem);
  test_sem_free (ts);
}

GST_END_TEST;

/* ---- binary semaphores ---- */

GST_START_TEST (test_binary_through_wait)
{
  TestSem *ts;
  GstCudaSemaphore *sem = cs_new_semaphore (NULL, FALSE, &ts);
  GstElement *sig, *wait, *bin = make_signal_wait_bin (sem, &sig, &wait);
  CsFixture f;
  gint i;

  cs_fixture_start (&f, bin, "NV12", 64, 48);
  for (i = 0; i < 50; i++) {
    GstBuffer *out;
    fail_unless_equals_int (gst_harness_push (f.h, cs_new_buffer (f.pool, i)),
        GST_FLOW_OK);
    out = gst_harness_pull (f.h);
    gst_buffer_unref (out);
  }
  fail_unless_equals_uint64 (cs_stat (sig, "signals"), 50);
  fail_unless_equals_uint64 (cs_stat (sig, "cpu-syncs"), 0);
  fail_unless_equals_uint64 (cs_stat (wait, "waits"), 50);
  cs_fixture_stop (&f);
  gst_object_unref (sig);
  gst_object_unref (wait);
  gst_object_unref (bin);
  gst_object_unref (sem);
  test_sem_free (ts);
}

GST_END_TEST;

GST_START_TEST (test_binary_held_buffer_falls_back)
{
  TestSem *ts;
  GstCudaSemaphore *sem = cs_new_semaphore (NULL, FALSE, &ts);
  GstElement *sig = cs_make_element ("cudasemsignal", "semaphore", sem, NULL);
  CsFixture f;
  GstBuffer *b1, *b2, *b3;

  cs_fixture_start (&f, sig, "NV12", 64, 48);
  fail_unless_equals_int (gst_harness_push (f.h, cs_new_buffer (f.pool, 1)),
      GST_FLOW_OK);
  /* the consumer holds buffer 1 without waiting: no second signal */
  fail_unless_equals_int (gst_harness_push (f.h, cs_new_buffer (f.pool, 2)),
      GST_FLOW_OK);
  fail_unless_equals_uint64 (cs_stat (sig, "signals"), 1);
  fail_unless_equals_uint64 (cs_stat (sig, "cpu-syncs"), 1);
  b1 = gst_harness_pull (f.h);
  b2 = gst_harness_pull (f.h);
  fail_unless (gst_buffer_get_cuda_sync_meta (b1) != NULL);
  fail_unless (gst_buffer_get_cuda_sync_meta (b2) == NULL);
  /* releasing buffer 1 consumes its signal on the GPU: signalling resumes */
  gst_buffer_unref (b1);
  gst_buffer_unref (b2);
  fail_unless_equals_int (gst_harness_push (f.h, cs_new_buffer (f.pool, 3)),
      GST_FLOW_OK);
  fail_unless_equals_uint64 (cs_stat (sig, "signals"), 2);
  b3 = gst_harness_pull (f.h);
  fail_unless (gst_buffer_get_cuda_sync_meta (b3) != NULL);
  gst_buffer_unref (b3);
  cs_fixture_stop (&f);
  gst_object_unref (sig);
  gst_object_unref (sem);
  test_sem_free (ts);
}

GST_END_TEST;

GST_START_TEST (test_buffer_without_meta_unchanged)
{
  GstElement *wait = cs_make_element ("cudasemwait", NULL);
  CsFixture f;
  GstBuffer *in, *out;

  cs_fixture_start (&f, wait, "NV12", 64, 48);
  in = cs_new_buffer (f.pool, 5);
  fail_unless_equals_int (gst_harness_push (f.h, gst_buffer_ref (in)),
      GST_FLOW_OK);
  out = gst_harness_pull (f.h);
  fail_unless (out == in);
  fail_unless_equals_uint64 (cs_stat (wait, "buffers"), 1);
  fail_unless_equals_uint64 (cs_stat (wait, "waits"), 0);
  gst_buffer_unref (out);
  gst_buffer_unref (in);
  cs_fixture_stop (&f);
  gst_object_unref (wait);
}

GST_END_TEST;

static Suite *
cudasemorder_suite (void)
{
  Suite *s = suite_create ("cudasemorder");
  TCase *tc;

  tc = tcase_create ("general");
  suite_add_tcase (s, tc);
  tcase_add_checked_fixture (tc, cs_setup, cs_teardown);
  tcase_add_test (tc, test_zero_cpu_syncs_with_semaphore);
  tcase_add_test (tc, test_fallback_sync_counts);
  tcase_add_test (tc, test_fallback_error);
  tcase_add_test (tc, test_wait_orders_consumer_after_producer);
  tcase_add_test (tc, test_slow_stream_signal_then_wait);
  tcase_add_test (tc, test_binary_through_wait);
  tcase_add_test (tc, test_binary_held_buffer_falls_back);
  tcase_add_test (tc, test_buffer_without_meta_unchanged);
  return s;
}

GST_CHECK_MAIN (cudasemorder);

/* gst-cudasync
 * Copyright (C) 2026 gst-cudasync developers
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The library's GstCudaSemaphore on the GPU: timeline values, binary
 * semaphores, and destruction while signals or waits are pending, which
 * must neither block the caller nor destroy the driver object early. On
 * the simulated driver or a GPU.
 *
 * The library's other tests: libs/cudasync (its header lists them).
 *
 * Tests:
 * test_timeline_values: signal values 1, 2, ... reach the exporter's side
 * test_timeline_cross_stream_order: values increase in GPU order across a
 *     slow and a fast stream
 * test_binary_one_signal_in_flight: a second binary signal before the wait
 *     is refused
 * test_destroy_deferred: dropping a semaphore with a pending wait returns
 *     at once; destruction follows the wait
 * test_destroy_deferred_signal: the same for a queued timeline signal,
 *     which still happens
 * test_destroy_when_last_value_wait_fails: destruction still waits when
 *     its wait cannot be set up
 * test_destroy_after_unrecorded_wait: an enqueued but unrecorded wait is
 *     still waited for
 */
#include "common.h"
#include <string.h>

GST_START_TEST (test_timeline_values)
{
  TestSem *ts;
  GstCudaSemaphore *sem = cs_new_semaphore (NULL, TRUE, &ts);
  CUstream s = cs_new_stream (CU_STREAM_DEFAULT);
  GError *err = NULL;
  guint64 v = 0, i;

  fail_unless (gst_cuda_semaphore_is_timeline (sem));
  for (i = 1; i <= 5; i++) {
    fail_unless (gst_cuda_semaphore_signal (sem, s, &v, &err));
    fail_unless_equals_uint64 (v, i);
  }
  fail_unless_equals_uint64 (gst_cuda_semaphore_get_last_value (sem), 5);
  fail_unless (test_sem_host_wait (ts, 5, 10 * GST_SECOND));

  /* explicit values must increase */
  fail_if (gst_cuda_semaphore_signal_value (sem, s, 5, &err));
  fail_unless (g_error_matches (err, GST_CUDA_SYNC_ERROR,
          GST_CUDA_SYNC_ERROR_PROTOCOL));
  g_clear_error (&err);
  fail_unless (gst_cuda_semaphore_signal_value (sem, s, 9, &err));

  /* advance_to never goes back, and the next value is above it */
  gst_cuda_semaphore_advance_to (sem, 3);
  fail_unless_equals_uint64 (gst_cuda_semaphore_get_last_value (sem), 9);
  gst_cuda_semaphore_advance_to (sem, 20);
  fail_unless (gst_cuda_semaphore_signal (sem, s, &v, &err));
  fail_unless_equals_uint64 (v, 21);
  fail_unless (test_sem_host_wait (ts, 21, 10 * GST_SECOND));
  fail_unless_equals_uint64 (test_sem_get_value (ts), 21);

  cs_free_stream (s);
  gst_object_unref (sem);
  test_sem_free (ts);
}

GST_END_TEST;

/* Signals alternate between a slow and a fast stream: the value must still
 * increase in GPU execution order (the simulator flags any regression). */
GST_START_TEST (test_timeline_cross_stream_order)
{
  TestSem *ts;
  GstCudaSemaphore *sem = cs_new_semaphore (NULL, TRUE, &ts);
  CUstream slow = cs_new_stream (CU_STREAM_NON_BLOCKING);
  CUstream fast = cs_new_stream (CU_STREAM_NON_BLOCKING);
  GstBufferPool *pool;
  GstCaps *caps = cs_caps ("RGBA", 64, 64);
  GstBuffer *buf;
  GstMapInfo map;
  CUDA_MEMCPY2D cp;
  GError *err = NULL;
  guint64 v;
  gint i;

  pool = cs_new_pool (caps);
  buf = cs_new_buffer (pool, 1);
  fail_unless (gst_buffer_map (buf, &map, GST_MAP_READ | GST_MAP_CUDA));

  if (cs_is_sim)
    cs_sim.set_delay_us ("cuMemcpy2DAsync_v2", 20000);

  for (i = 0; i < 10; i++) {
    CUstream st = (i % 2) ? fast : slow;
    /* some work before the signal on the slow stream */
    memset (&cp, 0, sizeof (cp));
    cp.srcMemoryType = CU_MEMORYTYPE_DEVICE;
    cp.srcDevice = (CUdeviceptr) map.data;
    cp.srcPitch = 256;
    cp.dstMemoryType = CU_MEMORYTYPE_DEVICE;
    cp.dstDevice = (CUdeviceptr) map.data;
    cp.dstPitch = 256;
    cp.WidthInBytes = 256;
    cp.Height = 1;
    if (st == slow) {
      fail_unless (gst_cuda_context_push (cs_ctx));
      fail_unless_equals_int (CuMemcpy2DAsync (&cp, st), CUDA_SUCCESS);
      gst_cuda_context_pop (NULL);
    }
    fail_unless (gst_cuda_semaphore_signal (sem, st, &v, &err));
    fail_unless_equals_uint64 (v, i + 1);
  }
  fail_unless (test_sem_host_wait (ts, 10, 30 * GST_SECOND));
  fail_unless_equals_uint64 (test_sem_get_value (ts), 10);
  if (cs_is_sim)
    fail_unless_equals_int (cs_sim.violation_count (), 0);

  gst_buffer_unmap (buf, &map);
  gst_buffer_unref (buf);
  gst_buffer_pool_set_active (pool, FALSE);
  gst_object_unref (pool);
  gst_caps_unref (caps);
  cs_free_stream (slow);
  cs_free_stream (fast);
  gst_object_unref (sem);
  test_sem_free (ts);
}

GST_END_TEST;

GST_START_TEST (test_binary_one_signal_in_flight)
{
  TestSem *ts;
  GstCudaSemaphore *sem = cs_new_semaphore (NULL, FALSE, &ts);
  CUstream s = cs_new_stream (CU_STREAM_DEFAULT);
  GError *err = NULL;
  guint64 v = 99;

  fail_if (gst_cuda_semaphore_is_timeline (sem));
  fail_unless (gst_cuda_semaphore_signal (sem, s, &v, &err));
  fail_unless_equals_uint64 (v, 0);
  /* a second signal before a wait is refused, nothing is enqueued */
  fail_if (gst_cuda_semaphore_signal (sem, s, &v, &err));
  fail_unless (g_error_matches (err, GST_CUDA_SYNC_ERROR,
          GST_CUDA_SYNC_ERROR_PROTOCOL), "%s", err->message);
  g_clear_error (&err);
  /* once waited, it may be signalled again */
  fail_unless (gst_cuda_semaphore_wait (sem, s, 0, &err));
  fail_unless (gst_cuda_semaphore_signal (sem, s, NULL, &err));
  fail_unless (gst_cuda_semaphore_wait (sem, s, 0, &err));
  cs_free_stream (s);
  gst_object_unref (sem);
  test_sem_free (ts);
}

GST_END_TEST;

/* Dropping the last reference with a GPU wait still pending returns at once;
 * the driver object is destroyed only after the wait completed. */
GST_START_TEST (test_destroy_deferred)
{
  TestSem *ts;
  GstCudaSemaphore *sem = cs_new_semaphore (NULL, TRUE, &ts);
  CUstream s = cs_new_stream (CU_STREAM_NON_BLOCKING);
  GError *err = NULL;

  fail_unless (gst_cuda_semaphore_wait (sem, s, 1, &err));
  gst_object_unref (sem);       /* must not block: the wait is pending */
  if (cs_is_sim)
    fail_unless_equals_int (cs_sim.violation_count (), 0);
  fail_unless (test_sem_host_signal (ts, 1));
  gst_cuda_sync_wait_idle ();
  cs_free_stream (s);
  test_sem_free (ts);
}

GST_END_TEST;

/* The same for a timeline signal still queued behind a gated wait: timeline
 * signals record no event, destruction waits for the semaphore to reach the
 * last value instead. The signal still happens, after the unref. */
GST_START_TEST (test_destroy_deferred_signal)
{
  TestSem *ts, *tg;
  GstCudaSemaphore *sem = cs_new_semaphore (NULL, TRUE, &ts);
  GstCudaSemaphore *gate = cs_new_semaphore (NULL, TRUE, &tg);
  CUstream s = cs_new_stream (CU_STREAM_NON_BLOCKING);
  GError *err = NULL;
  guint64 v = 0;

  fail_unless (gst_cuda_semaphore_wait (gate, s, 1, &err));
  fail_unless (gst_cuda_semaphore_signal (sem, s, &v, &err));
  fail_unless (gst_cuda_semaphore_signal (sem, s, &v, &err));
  fail_unless_equals_uint64 (v, 2);
  gst_object_unref (sem);       /* must not block: the signals are pending */
  if (cs_is_sim)
    fail_unless_equals_int (cs_sim.violation_count (), 0);
  fail_unless_equals_uint64 (test_sem_get_value (ts), 0);
  fail_unless (test_sem_host_signal (tg, 1));
  fail_unless (test_sem_host_wait (ts, 2, 30 * GST_SECOND));
  gst_cuda_sync_wait_idle ();
  if (cs_is_sim)
    fail_unless_equals_int (cs_sim.violation_count (), 0);
  cs_free_stream (s);
  gst_object_unref (gate);
  test_sem_free (tg);
  test_sem_free (ts);
}

GST_END_TEST;

/* Destruction waits for the pending signals even when the wait for the
 * last value cannot be set up (an injected cuEventCreate failure): the
 * library's worker synchronises the context instead. The simulator reports
 * a semaphore destroyed with pending work as a violation. */
GST_START_TEST (test_destroy_when_last_value_wait_fails)
{
  TestSem *ts;
  GstCudaSemaphore *sem;
  CUstream s;
  GError *err = NULL;
  guint64 v = 0;

  if (!cs_is_sim) {
    GST_INFO ("needs the simulator's fault injection: skipped");
    return;
  }
  sem = cs_new_semaphore (NULL, TRUE, &ts);
  s = cs_new_stream (CU_STREAM_NON_BLOCKING);
  cs_sim.set_delay_us ("cuSignalExternalSemaphoresAsync", 200000);
  fail_unless (gst_cuda_semaphore_signal (sem, s, &v, &err));
  fail_unless (gst_cuda_semaphore_signal (sem, s, &v, &err));
  cs_sim.inject_failure ("cuEventCreate", 1, CUDA_ERROR_OUT_OF_MEMORY);
  gst_object_unref (sem);       /* must not block either */
  fail_unless (test_sem_get_value (ts) < 2, "the signals were not delayed");
  gst_cuda_sync_wait_idle ();
  fail_unless_equals_int (cs_sim.violation_count (), 0);
  fail_unless_equals_uint64 (test_sem_get_value (ts), 2);
  cs_free_stream (s);
  test_sem_free (ts);
}

GST_END_TEST;

/* A wait that was enqueued but could not be recorded (an injected
 * cuEventRecord failure, reported to the caller) is still waited for by
 * destruction. */
GST_START_TEST (test_destroy_after_unrecorded_wait)
{
  TestSem *ts;
  GstCudaSemaphore *sem;
  CUstream s;
  GError *err = NULL;

  if (!cs_is_sim) {
    GST_INFO ("needs the simulator's fault injection: skipped");
    return;
  }
  sem = cs_new_semaphore (NULL, TRUE, &ts);
  s = cs_new_stream (CU_STREAM_NON_BLOCKING);
  cs_sim.inject_failure ("cuEventRecord", 1, CUDA_ERROR_OUT_OF_MEMORY);
  /* pending until the exporter signals 1 */
  fail_if (gst_cuda_semaphore_wait (sem, s, 1, &err));
  fail_unless (g_error_matches (err, GST_CUDA_SYNC_ERROR,
          GST_CUDA_SYNC_ERROR_DRIVER), "%s", err ? err->message : "?");
  fail_unless (strstr (err->message, "cuEventRecord") != NULL, "%s",
      err->message);
  g_clear_error (&err);
  gst_object_unref (sem);
  /* time for a destruction that did not wait to happen (a violation) */
  g_usleep (200 * 1000);
  fail_unless_equals_int (cs_sim.violation_count (), 0);
  fail_unless (test_sem_host_signal (ts, 1));
  gst_cuda_sync_wait_idle ();
  fail_unless_equals_int (cs_sim.violation_count (), 0);
  cs_free_stream (s);
  test_sem_free (ts);
}

GST_END_TEST;

static Suite *
cudasyncsignal_suite (void)
{
  Suite *s = suite_create ("cudasyncsignal");
  TCase *tc;

  tc = tcase_create ("general");
  suite_add_tcase (s, tc);
  tcase_add_checked_fixture (tc, cs_setup, cs_teardown);
  tcase_add_test (tc, test_timeline_values);
  tcase_add_test (tc, test_timeline_cross_stream_order);
  tcase_add_test (tc, test_binary_one_signal_in_flight);
  tcase_add_test (tc, test_destroy_deferred);
  tcase_add_test (tc, test_destroy_deferred_signal);
  tcase_add_test (tc, test_destroy_when_last_value_wait_fails);
  tcase_add_test (tc, test_destroy_after_unrecorded_wait);
  return s;
}

GST_CHECK_MAIN (cudasyncsignal);

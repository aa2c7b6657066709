/* gst-cudasync
 * Copyright (C) 2026 gst-cudasync developers
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The library's GstCudaSyncMeta (acquire and release points on a buffer)
 * and its ALLOCATION query entry. On the simulated driver or a GPU.
 *
 * The library's other tests: libs/cudasync (its header lists them).
 *
 * Tests:
 * test_meta_points: points are added and read back; a full copy keeps
 *     them, a region copy drops them
 * test_meta_binary_exactly_one_wait: a binary acquire point is waited on
 *     once, however many copies wait
 * test_meta_release_point: release points signal their values in order
 * test_meta_wait_cpu: the CPU wait times out, then returns once signalled
 * test_allocation_query: the query carries handle types and the semaphore
 */
#include "common.h"

static GstBuffer *
meta_buffer (void)
{
  return gst_buffer_new_allocate (NULL, 16, NULL);
}

GST_START_TEST (test_meta_points)
{
  TestSem *ts;
  GstCudaSemaphore *sem = cs_new_semaphore (NULL, TRUE, &ts);
  GstBuffer *buf = meta_buffer (), *copy, *region;
  GstCudaSyncMeta *meta;
  guint64 v = 0;

  fail_unless (gst_buffer_get_cuda_sync_meta (buf) == NULL);
  meta = gst_buffer_add_cuda_sync_meta (buf);
  gst_cuda_sync_meta_add_acquire (meta, sem, 3);
  gst_cuda_sync_meta_add_acquire (meta, sem, 4);
  fail_unless_equals_int (gst_cuda_sync_meta_get_n_acquire (meta), 2);
  fail_unless (gst_cuda_sync_meta_get_acquire (meta, 1, &v) == sem);
  fail_unless_equals_uint64 (v, 4);
  fail_unless (gst_cuda_sync_meta_get_acquire (meta, 2, NULL) == NULL);
  fail_unless (gst_cuda_sync_meta_get_release (meta, NULL) == NULL);

  /* a full copy keeps the points, a region copy drops them */
  copy = gst_buffer_copy (buf);
  meta = gst_buffer_get_cuda_sync_meta (copy);
  fail_unless (meta != NULL);
  fail_unless_equals_int (gst_cuda_sync_meta_get_n_acquire (meta), 2);
  region = gst_buffer_copy_region (buf, GST_BUFFER_COPY_ALL, 0, 8);
  fail_unless (gst_buffer_get_cuda_sync_meta (region) == NULL);

  gst_buffer_unref (region);
  gst_buffer_unref (copy);
  gst_buffer_unref (buf);
  gst_object_unref (sem);
  test_sem_free (ts);
}

GST_END_TEST;

/* A binary acquire point is waited on the semaphore exactly once, however
 * many copies of the buffer are waited for, and a point nobody waited for is
 * consumed on the GPU when the buffer goes away. */
GST_START_TEST (test_meta_binary_exactly_one_wait)
{
  TestSem *ts;
  GstCudaSemaphore *sem = cs_new_semaphore (NULL, FALSE, &ts);
  CUstream s1 = cs_new_stream (CU_STREAM_NON_BLOCKING);
  CUstream s2 = cs_new_stream (CU_STREAM_NON_BLOCKING);
  GstBuffer *buf = meta_buffer (), *copy;
  GstCudaSyncMeta *meta = gst_buffer_add_cuda_sync_meta (buf);
  GError *err = NULL;
  guint waits0 =
      cs_is_sim ? cs_sim.call_count ("cuWaitExternalSemaphoresAsync") : 0;

  /* an external producer signalled it */
  fail_unless (test_sem_host_signal (ts, 1));
  gst_cuda_sync_meta_add_acquire (meta, sem, 0);
  copy = gst_buffer_copy (buf);
  fail_unless (gst_cuda_sync_meta_wait_gpu (meta, s1, &err));
  fail_unless (gst_cuda_sync_meta_wait_gpu (gst_buffer_get_cuda_sync_meta
          (copy), s2, &err));
  fail_unless (gst_cuda_sync_meta_wait_gpu (meta, s2, &err));
  gst_buffer_unref (copy);
  gst_buffer_unref (buf);
  if (cs_is_sim) {
    cs_sim.drain ();
    fail_unless_equals_int (cs_sim.call_count ("cuWaitExternalSemaphoresAsync")
        - waits0, 1);
    /* consumed: the binary semaphore is unsignalled again */
    fail_unless_equals_uint64 (test_sem_get_value (ts), 0);
  }

  /* signalled by us, never waited: freeing the buffer consumes it, so the
   * next signal is legal */
  fail_unless (gst_cuda_semaphore_signal (sem, s1, NULL, &err));
  buf = meta_buffer ();
  gst_cuda_sync_meta_add_acquire (gst_buffer_add_cuda_sync_meta (buf), sem, 0);
  gst_buffer_unref (buf);
  fail_unless (gst_cuda_semaphore_signal (sem, s1, NULL, &err), "%s",
      err ? err->message : "");
  fail_unless (gst_cuda_semaphore_wait (sem, s1, 0, &err));
  if (cs_is_sim) {
    cs_sim.drain ();
    fail_unless_equals_int (cs_sim.violation_count (), 0);
    fail_unless_equals_uint64 (test_sem_get_value (ts), 0);
  }

  cs_free_stream (s1);
  cs_free_stream (s2);
  gst_object_unref (sem);
  test_sem_free (ts);
}

GST_END_TEST;

GST_START_TEST (test_meta_release_point)
{
  TestSem *ts;
  GstCudaSemaphore *sem = cs_new_semaphore (NULL, TRUE, &ts);
  CUstream s = cs_new_stream (CU_STREAM_DEFAULT);
  GstBuffer *buf = meta_buffer (), *copy;
  GstCudaSyncMeta *meta = gst_buffer_add_cuda_sync_meta (buf);
  GError *err = NULL;
  guint64 v = 0;

  gst_cuda_sync_meta_set_release (meta, sem, 7);
  fail_unless (gst_cuda_sync_meta_get_release (meta, &v) == sem);
  fail_unless_equals_uint64 (v, 7);
  copy = gst_buffer_copy (buf);

  /* explicit release by a consumer, once for all copies */
  fail_unless (gst_cuda_sync_meta_signal_release (gst_buffer_get_cuda_sync_meta
          (copy), s, &err));
  fail_unless (gst_cuda_sync_meta_signal_release (meta, s, &err));
  fail_unless (test_sem_host_wait (ts, 7, 10 * GST_SECOND));
  gst_buffer_unref (copy);
  gst_buffer_unref (buf);
  fail_unless_equals_uint64 (gst_cuda_semaphore_get_last_value (sem), 7);

  /* nobody signals: the last copy going away does */
  buf = meta_buffer ();
  gst_cuda_sync_meta_set_release (gst_buffer_add_cuda_sync_meta (buf), sem, 8);
  copy = gst_buffer_copy (buf);
  gst_buffer_unref (buf);
  fail_unless_equals_uint64 (gst_cuda_semaphore_get_last_value (sem), 7);
  gst_buffer_unref (copy);
  fail_unless_equals_uint64 (gst_cuda_semaphore_get_last_value (sem), 8);
  fail_unless (test_sem_host_wait (ts, 8, 10 * GST_SECOND));
  fail_unless_equals_uint64 (test_sem_get_value (ts), 8);

  cs_free_stream (s);
  gst_object_unref (sem);
  test_sem_free (ts);
}

GST_END_TEST;

GST_START_TEST (test_meta_wait_cpu)
{
  TestSem *ts;
  GstCudaSemaphore *sem = cs_new_semaphore (NULL, TRUE, &ts);
  GstBuffer *buf = meta_buffer ();
  GstCudaSyncMeta *meta = gst_buffer_add_cuda_sync_meta (buf);
  GError *err = NULL;

  gst_cuda_sync_meta_add_acquire (meta, sem, 2);
  fail_unless (test_sem_host_signal (ts, 1));
  fail_if (gst_cuda_sync_meta_wait_cpu (meta, 50 * GST_MSECOND, &err));
  fail_unless (g_error_matches (err, GST_CUDA_SYNC_ERROR,
          GST_CUDA_SYNC_ERROR_TIMEOUT), "%s", err->message);
  g_clear_error (&err);
  fail_unless (test_sem_host_signal (ts, 2));
  fail_unless (gst_cuda_sync_meta_wait_cpu (meta, GST_CLOCK_TIME_NONE, &err));
  gst_buffer_unref (buf);
  gst_object_unref (sem);
  test_sem_free (ts);
}

GST_END_TEST;

GST_START_TEST (test_allocation_query)
{
  TestSem *ts;
  GstCudaSemaphore *sem = cs_new_semaphore (NULL, TRUE, &ts), *got = NULL;
  GstCaps *caps = cs_caps ("NV12", 64, 48);
  GstQuery *q = gst_query_new_allocation (caps, FALSE);
  GstCudaSemaphoreHandleTypeFlags types = 0;

  fail_if (gst_query_parse_cuda_sync_meta (q, &types, &got));
  gst_query_add_cuda_sync_meta (q,
      GST_CUDA_SEMAPHORE_HANDLE_TYPE_FLAG_TIMELINE_FD |
      GST_CUDA_SEMAPHORE_HANDLE_TYPE_FLAG_NVSCISYNC, sem);
  fail_unless (gst_query_parse_cuda_sync_meta (q, &types, &got));
  fail_unless_equals_int (types, GST_CUDA_SEMAPHORE_HANDLE_TYPE_FLAG_TIMELINE_FD
      | GST_CUDA_SEMAPHORE_HANDLE_TYPE_FLAG_NVSCISYNC);
  fail_unless (got == sem);
  gst_object_unref (got);
  gst_query_unref (q);

  q = gst_query_new_allocation (caps, FALSE);
  gst_query_add_cuda_sync_meta (q,
      GST_CUDA_SEMAPHORE_HANDLE_TYPE_FLAG_OPAQUE_FD, NULL);
  fail_unless (gst_query_parse_cuda_sync_meta (q, &types, &got));
  fail_unless (got == NULL);
  fail_unless_equals_int (types, GST_CUDA_SEMAPHORE_HANDLE_TYPE_FLAG_OPAQUE_FD);
  gst_query_unref (q);

  gst_caps_unref (caps);
  gst_object_unref (sem);
  test_sem_free (ts);
}

GST_END_TEST;

static Suite *
cudasyncmeta_suite (void)
{
  Suite *s = suite_create ("cudasyncmeta");
  TCase *tc;

  tc = tcase_create ("general");
  suite_add_tcase (s, tc);
  tcase_add_checked_fixture (tc, cs_setup, cs_teardown);
  tcase_add_test (tc, test_meta_points);
  tcase_add_test (tc, test_meta_binary_exactly_one_wait);
  tcase_add_test (tc, test_meta_release_point);
  tcase_add_test (tc, test_meta_wait_cpu);
  tcase_add_test (tc, test_allocation_query);
  return s;
}

GST_CHECK_MAIN (cudasyncmeta);

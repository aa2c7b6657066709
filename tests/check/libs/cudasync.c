/* gst-cudasync
 * Copyright (C) 2026 gst-cudasync developers
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The library: GstCudaSemaphore, GstCudaSyncMeta, the ALLOCATION query
 * and the releaser, on the simulated driver or a GPU.
 *
 * Tests:
 * test_import_bad_handles: -1, a closed fd, an fd that is no semaphore
 *     and a type an fd cannot carry are refused (INVALID_HANDLE); the fd
 *     stays the caller's
 * test_import_wrong_type: an fd of one handle type imported as another is
 *     refused
 * test_fd_identity: a regular file is one semaphore however opened; files
 *     on a shared inode (eventfds) are one only when dup()ed
 * test_import_same_semaphore_twice: a second fd of a live semaphore gives
 *     the same object; other type or context refused
 * test_import_two_semaphores: two semaphores give two objects, each
 *     signalled on its own
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
 * test_meta_points: points are added and read back; a full copy keeps
 *     them, a region copy drops them
 * test_meta_binary_exactly_one_wait: a binary acquire point is waited on
 *     once, however many copies wait
 * test_meta_release_point: release points signal their values in order
 * test_meta_wait_cpu: the CPU wait times out, then returns once signalled
 * test_allocation_query: the query carries handle types and the semaphore
 * test_wrong_context: a semaphore of another context is refused with an
 *     error, not used
 * test_releaser_order: nothing given back before its event; then all, in
 *     push order
 * test_releaser_failed_wait: a failed wait is reported, the next one runs
 * test_releaser_push_after: the releaser records its own events: nothing
 *     given back before the stream's work, then all in order; a completed
 *     event is used again (simulator: no cuEventCreate for later pushes);
 *     a failed record queues nothing
 * test_wait_idle_stops_releaser: gst_cuda_sync_wait_idle() waits for the
 *     deferred destruction and stops its thread
 */
/* memfd_create() */
#define _GNU_SOURCE
#include "common.h"
#include "gstcudasemaphore-fd.h"
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>
#include <string.h>
#include <linux/kcmp.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>

GST_START_TEST (test_import_bad_handles)
{
  GError *err = NULL;
  TestSem *ts;
  gint fd;

  /* not an fd */
  fail_if (gst_cuda_semaphore_import_fd (cs_ctx,
          GST_CUDA_SEMAPHORE_HANDLE_TYPE_TIMELINE_FD, -1, &err));
  fail_unless (g_error_matches (err, GST_CUDA_SYNC_ERROR,
          GST_CUDA_SYNC_ERROR_INVALID_HANDLE));
  g_clear_error (&err);

  /* a closed fd */
  ts = test_sem_new (TRUE, 0);
  fd = test_sem_export_fd (ts);
  close (fd);
  fail_if (gst_cuda_semaphore_import_fd (cs_ctx,
          GST_CUDA_SEMAPHORE_HANDLE_TYPE_TIMELINE_FD, fd, &err));
  fail_unless (g_error_matches (err, GST_CUDA_SYNC_ERROR,
          GST_CUDA_SYNC_ERROR_INVALID_HANDLE), "%s", err->message);
  g_clear_error (&err);

  /* an fd that is not a semaphore: rejected, and it stays ours to close */
  fd = test_sem_foreign_fd ();
  fail_if (gst_cuda_semaphore_import_fd (cs_ctx,
          GST_CUDA_SEMAPHORE_HANDLE_TYPE_TIMELINE_FD, fd, &err));
  fail_unless (err != NULL);
  GST_INFO ("foreign fd: %s", err->message);
  fail_unless (err->domain == GST_CUDA_SYNC_ERROR);
  fail_unless (err->code == GST_CUDA_SYNC_ERROR_INVALID_HANDLE ||
      err->code == GST_CUDA_SYNC_ERROR_NOT_SUPPORTED, "%s", err->message);
  fail_unless (strstr (err->message, "cuImportExternalSemaphore") != NULL);
  g_clear_error (&err);
  /* The documented rule; checked on the simulator. (Seen on driver 580
   * with external *memory*: the fd was closed although the import failed.) */
  if (fcntl (fd, F_GETFD) != -1)
    close (fd);
  else
    fail_if (cs_is_sim, "fd closed after a failed import");

  /* a handle type an fd cannot carry */
  fd = test_sem_export_fd (ts);
  fail_if (gst_cuda_semaphore_import_fd (cs_ctx,
          GST_CUDA_SEMAPHORE_HANDLE_TYPE_NVSCISYNC, fd, &err));
  fail_unless (g_error_matches (err, GST_CUDA_SYNC_ERROR,
          GST_CUDA_SYNC_ERROR_INVALID_HANDLE));
  g_clear_error (&err);
  close (fd);
  test_sem_free (ts);
}

GST_END_TEST;

GST_START_TEST (test_import_wrong_type)
{
  GError *err = NULL;
  TestSem *ts = test_sem_new (FALSE, 0);
  GstCudaSemaphore *sem;
  gint fd = test_sem_export_fd (ts);

  /* a binary semaphore declared as a timeline one */
  sem = gst_cuda_semaphore_import_fd (cs_ctx,
      GST_CUDA_SEMAPHORE_HANDLE_TYPE_TIMELINE_FD, fd, &err);
  if (sem) {
    /* the real driver may accept it: that is the driver's call; record it */
    GST_WARNING ("driver accepted a binary semaphore fd as a timeline one");
    fail_if (cs_is_sim, "the simulator must refuse a type mismatch");
    gst_object_unref (sem);
  } else {
    fail_unless (g_error_matches (err, GST_CUDA_SYNC_ERROR,
            GST_CUDA_SYNC_ERROR_INVALID_HANDLE), "%s", err->message);
    g_clear_error (&err);
    close (fd);
  }
  test_sem_free (ts);
}

GST_END_TEST;

/* kcmp(KCMP_FILE), which tells dup()ed fds of a device or anonymous inode
 * apart from other files on the same inode, may be refused (seccomp) */
static gboolean
kcmp_works (void)
{
  gint a = eventfd (0, EFD_CLOEXEC), b = dup (a);
  pid_t pid = getpid ();
  gboolean ok = syscall (SYS_kcmp, pid, pid, KCMP_FILE, a, b) == 0;

  close (a);
  close (b);
  return ok;
}

/* The identity gst_cuda_semaphore_import_fd() compares, on files of both
 * kinds: memfds (regular: the inode is the object) and eventfds (every one
 * on the same anonymous inode, as the NVIDIA driver's opaque fds are all
 * files of /dev/nvidiactl: only a dup() is the same) */
static gboolean
fd_same (gint kept_fd, gint fd)
{
  GstCudaFdId kept, id;
  gboolean same;

  fail_unless (_gst_cuda_fd_id_init (&kept, kept_fd));
  _gst_cuda_fd_id_keep (&kept, kept_fd);
  fail_unless (_gst_cuda_fd_id_init (&id, fd));
  same = _gst_cuda_fd_id_same (&kept, &id, fd);
  _gst_cuda_fd_id_clear (&kept);
  _gst_cuda_fd_id_clear (&id);
  return same;
}

GST_START_TEST (test_fd_identity)
{
  gint m1 = memfd_create ("a", MFD_CLOEXEC), m2 = memfd_create ("b",
      MFD_CLOEXEC), m1_dup = dup (m1), m1_open, e1 = eventfd (0, EFD_CLOEXEC),
      e2 = eventfd (0, EFD_CLOEXEC), e1_dup = dup (e1);
  gchar *path = g_strdup_printf ("/proc/self/fd/%d", m1);
  GstCudaFdId id;

  /* a regular file is one object, however it was opened */
  m1_open = open (path, O_RDWR | O_CLOEXEC);
  fail_unless (m1_open >= 0);
  fail_unless (fd_same (m1, m1_dup));
  fail_unless (fd_same (m1, m1_open));
  fail_if (fd_same (m1, m2));
  /* files on one shared inode: never taken for one another */
  fail_if (fd_same (e1, e2), "two eventfds taken for one file");
  if (kcmp_works ())
    fail_unless (fd_same (e1, e1_dup));
  else
    g_print ("SKIP: test_fd_identity: kcmp() is not permitted here, a dup() "
        "of an anonymous-inode fd is not recognised\n");
  fail_if (fd_same (e1, m1));
  fail_if (_gst_cuda_fd_id_init (&id, -1));

  close (m1);
  close (m2);
  close (m1_dup);
  close (m1_open);
  close (e1);
  close (e2);
  close (e1_dup);
  g_free (path);
}

GST_END_TEST;

/* Two fds of one semaphore (dup()) give one object: a second object would
 * signal value 1 again (the simulator's "non-increasing value"; on a GPU
 * the order breaks silently). Imports of another type or into another
 * context are refused and leave the fd to the caller. Once the object is
 * gone, the semaphore can be imported again. */
GST_START_TEST (test_import_same_semaphore_twice)
{
  GstCudaContext *other = gst_cuda_context_new (0);
  TestSem *ts = test_sem_new (TRUE, 0);
  gint fd = test_sem_export_fd (ts), fd_again = dup (fd), fd_binary = dup (fd),
      fd_other = dup (fd), fd_later = dup (fd);
  GstCudaSemaphore *sem, *again;
  struct stat st;
  GError *err = NULL;
  guint64 v = 0;

  fail_unless (fstat (fd, &st) == 0);
  if (!S_ISREG (st.st_mode) && !kcmp_works ()) {
    g_print ("SKIP: test_import_same_semaphore_twice: the semaphore fd is "
        "not a regular file and kcmp() is not permitted here\n");
    close (fd);
    close (fd_again);
    close (fd_binary);
    close (fd_other);
    close (fd_later);
    gst_object_unref (other);
    test_sem_free (ts);
    return;
  }
  sem = gst_cuda_semaphore_import_fd (cs_ctx,
      GST_CUDA_SEMAPHORE_HANDLE_TYPE_TIMELINE_FD, fd, &err);
  fail_unless (sem != NULL, "%s", err ? err->message : "");
  again = gst_cuda_semaphore_import_fd (cs_ctx,
      GST_CUDA_SEMAPHORE_HANDLE_TYPE_TIMELINE_FD, fd_again, &err);
  fail_unless (again != NULL, "%s", err ? err->message : "");
  fail_unless (again == sem, "a second import of one semaphore made a "
      "second GstCudaSemaphore");
  /* success: the fd is no longer the caller's (the library closed it) */
  fail_unless (fcntl (fd_again, F_GETFD) == -1 && errno == EBADF);
  /* one object, one timeline: the values go on */
  fail_unless (gst_cuda_semaphore_signal (sem, NULL, &v, &err));
  fail_unless_equals_uint64 (v, 1);
  fail_unless (gst_cuda_semaphore_signal (again, NULL, &v, &err));
  fail_unless_equals_uint64 (v, 2);
  fail_unless (test_sem_host_wait (ts, 2, 10 * GST_SECOND));

  /* the same semaphore as a binary one, or in another context: refused */
  fail_if (gst_cuda_semaphore_import_fd (cs_ctx,
          GST_CUDA_SEMAPHORE_HANDLE_TYPE_OPAQUE_FD, fd_binary, &err));
  fail_unless (g_error_matches (err, GST_CUDA_SYNC_ERROR,
          GST_CUDA_SYNC_ERROR_INVALID_HANDLE), "%s", err->message);
  fail_unless (strstr (err->message, "already imported") != NULL, "%s",
      err->message);
  g_clear_error (&err);
  fail_unless (fcntl (fd_binary, F_GETFD) != -1, "refused fd was closed");
  close (fd_binary);
  fail_if (gst_cuda_semaphore_import_fd (other,
          GST_CUDA_SEMAPHORE_HANDLE_TYPE_TIMELINE_FD, fd_other, &err));
  fail_unless (g_error_matches (err, GST_CUDA_SYNC_ERROR,
          GST_CUDA_SYNC_ERROR_WRONG_DEVICE), "%s", err->message);
  fail_unless (strstr (err->message, "already imported") != NULL, "%s",
      err->message);
  g_clear_error (&err);
  fail_unless (fcntl (fd_other, F_GETFD) != -1, "refused fd was closed");
  close (fd_other);

  gst_object_unref (again);
  gst_object_unref (sem);
  gst_cuda_sync_wait_idle ();

  /* the object is gone: a new import is a new object, which knows nothing
   * of the values signalled before (advance_to()) */
  sem = gst_cuda_semaphore_import_fd (cs_ctx,
      GST_CUDA_SEMAPHORE_HANDLE_TYPE_TIMELINE_FD, fd_later, &err);
  fail_unless (sem != NULL, "%s", err ? err->message : "");
  fail_unless_equals_uint64 (gst_cuda_semaphore_get_last_value (sem), 0);
  gst_cuda_semaphore_advance_to (sem, 2);
  fail_unless (gst_cuda_semaphore_signal (sem, NULL, &v, &err));
  fail_unless_equals_uint64 (v, 3);
  fail_unless (test_sem_host_wait (ts, 3, 10 * GST_SECOND));
  gst_object_unref (sem);
  gst_cuda_sync_wait_idle ();
  gst_object_unref (other);
  test_sem_free (ts);
}

GST_END_TEST;

/* Two semaphores are never taken for one: each has its own object */
GST_START_TEST (test_import_two_semaphores)
{
  TestSem *ts1, *ts2;
  GstCudaSemaphore *a = cs_new_semaphore (NULL, TRUE, &ts1);
  GstCudaSemaphore *b = cs_new_semaphore (NULL, TRUE, &ts2);
  guint64 v = 0;

  fail_unless (a != b);
  fail_unless (gst_cuda_semaphore_signal (a, NULL, &v, NULL));
  fail_unless (gst_cuda_semaphore_signal (b, NULL, &v, NULL));
  fail_unless_equals_uint64 (v, 1);
  fail_unless (test_sem_host_wait (ts1, 1, 10 * GST_SECOND));
  fail_unless (test_sem_host_wait (ts2, 1, 10 * GST_SECOND));
  gst_object_unref (a);
  gst_object_unref (b);
  test_sem_free (ts1);
  test_sem_free (ts2);
}

GST_END_TEST;

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

GST_START_TEST (test_wrong_context)
{
  GstCudaContext *other = gst_cuda_context_new (0);
  TestSem *ts;
  GstCudaSemaphore *sem = cs_new_semaphore (other, TRUE, &ts);
  GError *err = NULL;

  fail_unless (gst_cuda_semaphore_check_context (sem, other, &err));
  fail_if (gst_cuda_semaphore_check_context (sem, cs_ctx, &err));
  fail_unless (g_error_matches (err, GST_CUDA_SYNC_ERROR,
          GST_CUDA_SYNC_ERROR_WRONG_DEVICE));
  fail_unless (strstr (err->message, "another") != NULL, "%s", err->message);
  g_clear_error (&err);
  gst_object_unref (sem);
  gst_cuda_sync_wait_idle ();
  gst_object_unref (other);
  test_sem_free (ts);
}

GST_END_TEST;

/* ---- GstCudaSyncReleaser ---- */

typedef struct
{
  GMutex lock;
  GArray *order;                /* indices, in the order given back */
  guint n_failed;
  GThread *caller;
  gboolean on_caller;
} ReleaseLog;

typedef struct
{
  ReleaseLog *log;
  guint index;
} ReleaseEntry;

static gpointer
release_entry (ReleaseLog * log, guint index)
{
  ReleaseEntry *e = g_new (ReleaseEntry, 1);

  e->log = log;
  e->index = index;
  return e;
}

static void
log_release (gpointer data, const GError * error)
{
  ReleaseEntry *e = data;

  g_mutex_lock (&e->log->lock);
  g_array_append_val (e->log->order, e->index);
  if (error)
    e->log->n_failed++;
  if (g_thread_self () == e->log->caller)
    e->log->on_caller = TRUE;
  g_mutex_unlock (&e->log->lock);
  g_free (e);
}

static void
release_log_init (ReleaseLog * log)
{
  g_mutex_init (&log->lock);
  log->order = g_array_new (FALSE, FALSE, sizeof (guint));
  log->n_failed = 0;
  log->caller = g_thread_self ();
  log->on_caller = FALSE;
}

static guint
release_log_len (ReleaseLog * log)
{
  guint n;

  g_mutex_lock (&log->lock);
  n = log->order->len;
  g_mutex_unlock (&log->lock);
  return n;
}

/* events recorded on @s, each pushed with entry @first + i */
static void
push_recorded (GstCudaSyncReleaser * r, CUstream s, ReleaseLog * log,
    guint first, guint n)
{
  GError *err = NULL;
  guint i;

  for (i = 0; i < n; i++) {
    GstCudaSyncEvent *ev = gst_cuda_sync_event_new (cs_ctx, TRUE, &err);

    fail_unless (ev != NULL, "%s", err ? err->message : "?");
    fail_unless (gst_cuda_sync_event_record (ev, s, &err), "%s",
        err ? err->message : "?");
    gst_cuda_sync_releaser_push (r, ev, log_release, release_entry (log,
            first + i));
    gst_cuda_sync_event_unref (ev);
  }
}

/* After the releaser is freed: @n entries given back in push order, none on
 * the pushing thread, @n_failed of them with an error; frees the rest */
static void
finish_release_test (ReleaseLog * log, guint n, guint n_failed,
    GstCudaSemaphore * sem, CUstream s, TestSem * ts)
{
  guint i;

  fail_unless_equals_int (log->order->len, n);
  for (i = 0; i < n; i++)
    fail_unless_equals_int (g_array_index (log->order, guint, i), i);
  fail_unless_equals_int (log->n_failed, n_failed);
  fail_if (log->on_caller, "a release ran on the pushing thread");
  g_array_unref (log->order);
  g_mutex_clear (&log->lock);
  gst_object_unref (sem);
  gst_cuda_sync_wait_idle ();
  cs_free_stream (s);
  test_sem_free (ts);
}

/* Nothing is given back while the GPU work before its event is pending;
 * then everything, in push order, on the releaser's thread; free() waits
 * for it all. */
GST_START_TEST (test_releaser_order)
{
  TestSem *ts;
  GstCudaSemaphore *sem = cs_new_semaphore (NULL, TRUE, &ts);
  CUstream s = cs_new_stream (CU_STREAM_NON_BLOCKING);
  GstCudaSyncReleaser *r = gst_cuda_sync_releaser_new ("test-release");
  GError *err = NULL;
  ReleaseLog log;

  release_log_init (&log);
  /* the stream's work waits for the host */
  fail_unless (gst_cuda_semaphore_wait (sem, s, 1, &err));
  push_recorded (r, s, &log, 0, 3);
  gst_cuda_sync_releaser_push (r, NULL, log_release, release_entry (&log, 3));
  g_usleep (100 * 1000);
  fail_unless_equals_int (release_log_len (&log), 0);

  fail_unless (test_sem_host_signal (ts, 1));
  gst_cuda_sync_releaser_free (r);
  finish_release_test (&log, 4, 0, sem, s, ts);
}

GST_END_TEST;

/* A wait that fails is reported to the function (never taken as done), and
 * the releaser goes on with the next (simulated driver: injected failure) */
GST_START_TEST (test_releaser_failed_wait)
{
  CUstream s;
  GstCudaSyncReleaser *r;
  ReleaseLog log;

  if (!cs_is_sim) {
    GST_INFO ("needs the simulated driver's fault injection");
    return;
  }
  s = cs_new_stream (CU_STREAM_NON_BLOCKING);
  r = gst_cuda_sync_releaser_new ("test-release");
  release_log_init (&log);
  cs_sim.inject_failure ("cuEventSynchronize", 1, CUDA_ERROR_UNKNOWN);
  push_recorded (r, s, &log, 0, 2);
  gst_cuda_sync_releaser_free (r);
  fail_unless_equals_int (log.order->len, 2);
  fail_unless_equals_int (g_array_index (log.order, guint, 0), 0);
  fail_unless_equals_int (g_array_index (log.order, guint, 1), 1);
  fail_unless_equals_int (log.n_failed, 1);
  g_array_unref (log.order);
  g_mutex_clear (&log.lock);
  cs_free_stream (s);
}

GST_END_TEST;

static void
push_after (GstCudaSyncReleaser * r, CUstream s, ReleaseLog * log,
    guint first, guint n)
{
  GError *err = NULL;
  guint i;

  for (i = 0; i < n; i++)
    fail_unless (gst_cuda_sync_releaser_push_after (r, cs_ctx, s,
            log_release, release_entry (log, first + i), &err), "%s",
        err ? err->message : "?");
}

static void
wait_log_len (ReleaseLog * log, guint n)
{
  gint64 until = g_get_monotonic_time () + 10 * G_USEC_PER_SEC;

  while (release_log_len (log) < n && g_get_monotonic_time () < until)
    g_usleep (1000);
  fail_unless_equals_int (release_log_len (log), n);
}

/* @n push_after()s (entries @first...) while @s waits for @sem to reach
 * @value: none given back before the host signals it, all of them after;
 * the cuEventCreate calls they made (simulator; 0 elsewhere) */
static guint
blocked_batch (GstCudaSyncReleaser * r, CUstream s, GstCudaSemaphore * sem,
    TestSem * ts, ReleaseLog * log, guint64 value, guint first, guint n)
{
  GError *err = NULL;
  guint created;

  fail_unless (gst_cuda_semaphore_wait (sem, s, value, &err), "%s",
      err ? err->message : "?");
  /* (the wait may make an event of its own: counted from here) */
  created = cs_is_sim ? cs_sim.call_count ("cuEventCreate") : 0;
  push_after (r, s, log, first, n);
  if (cs_is_sim)
    created = cs_sim.call_count ("cuEventCreate") - created;
  g_usleep (100 * 1000);
  fail_unless_equals_int (release_log_len (log), first);
  fail_unless (test_sem_host_signal (ts, value));
  wait_log_len (log, first + n);
  return cs_is_sim ? created : 0;
}

/* Events of the releaser's own: the stream's order holds as with the
 * caller's events; three in flight need three events, and once they have
 * completed the next three pushes make none (simulator: counted). */
GST_START_TEST (test_releaser_push_after)
{
  TestSem *ts;
  GstCudaSemaphore *sem = cs_new_semaphore (NULL, TRUE, &ts);
  CUstream s = cs_new_stream (CU_STREAM_NON_BLOCKING);
  GstCudaSyncReleaser *r = gst_cuda_sync_releaser_new ("test-release");
  GError *err = NULL;
  guint created;
  ReleaseLog log;

  release_log_init (&log);
  /* three in flight: three events made */
  created = blocked_batch (r, s, sem, ts, &log, 1, 0, 3);
  if (cs_is_sim)
    fail_unless_equals_int (created, 3);
  /* the same three again, reused, in the same order */
  created = blocked_batch (r, s, sem, ts, &log, 2, 3, 3);
  if (cs_is_sim) {
    ReleaseEntry *e;

    fail_unless_equals_int (created, 0);
    /* an event whose wait failed is not used again: one more is made */
    cs_sim.inject_failure ("cuEventSynchronize", 1, CUDA_ERROR_UNKNOWN);
    push_after (r, s, &log, 6, 1);
    wait_log_len (&log, 7);
    fail_unless_equals_int (log.n_failed, 1);
    fail_unless_equals_int (blocked_batch (r, s, sem, ts, &log, 3, 7, 3), 1);
    /* a record that fails: FALSE, an error, nothing queued */
    e = release_entry (&log, 99);
    cs_sim.inject_failure ("cuEventRecord", 1, CUDA_ERROR_UNKNOWN);
    fail_if (gst_cuda_sync_releaser_push_after (r, cs_ctx, s, log_release,
            e, &err));
    fail_unless (err != NULL);
    g_clear_error (&err);
    g_free (e);
  }
  gst_cuda_sync_releaser_free (r);
  finish_release_test (&log, cs_is_sim ? 10 : 6, cs_is_sim ? 1 : 0, sem, s, ts);
}

GST_END_TEST;

/* the threads of this process (Linux) */
static guint
count_threads (void)
{
  GDir *dir = g_dir_open ("/proc/self/task", 0, NULL);
  guint n = 0;

  fail_unless (dir != NULL);
  while (g_dir_read_name (dir))
    n++;
  g_dir_close (dir);
  return n;
}

/* A semaphore released with GPU work pending is destroyed on the library's
 * releaser thread; gst_cuda_sync_wait_idle() waits for it and stops that
 * thread (the process has one thread more in between, and no more after).
 * Simulated driver only: a real driver starts threads of its own. */
GST_START_TEST (test_wait_idle_stops_releaser)
{
  TestSem *ts;
  GstCudaSemaphore *sem;
  CUstream s;
  GError *err = NULL;
  gint64 until;
  guint before;

  if (!cs_is_sim) {
    GST_INFO ("counts the process's threads: simulated driver only");
    return;
  }
  sem = cs_new_semaphore (NULL, TRUE, &ts);
  s = cs_new_stream (CU_STREAM_NON_BLOCKING);
  gst_cuda_sync_wait_idle ();
  fail_unless (gst_cuda_semaphore_wait (sem, s, 1, &err));
  before = count_threads ();
  gst_object_unref (sem);
  fail_unless_equals_int (count_threads (), before + 1);
  fail_unless (test_sem_host_signal (ts, 1));
  gst_cuda_sync_wait_idle ();
  /* a joined thread may still be listed for a moment */
  until = g_get_monotonic_time () + G_USEC_PER_SEC;
  while (count_threads () != before && g_get_monotonic_time () < until)
    g_usleep (1000);
  fail_unless_equals_int (count_threads (), before);
  fail_unless_equals_int (cs_sim_live ("extsem"), 0);
  cs_free_stream (s);
  test_sem_free (ts);
}

GST_END_TEST;

static Suite *
cudasync_suite (void)
{
  Suite *s = suite_create ("cudasync");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_checked_fixture (tc, cs_setup, cs_teardown);
  tcase_add_test (tc, test_import_bad_handles);
  tcase_add_test (tc, test_import_wrong_type);
  tcase_add_test (tc, test_fd_identity);
  tcase_add_test (tc, test_import_same_semaphore_twice);
  tcase_add_test (tc, test_import_two_semaphores);
  tcase_add_test (tc, test_timeline_values);
  tcase_add_test (tc, test_timeline_cross_stream_order);
  tcase_add_test (tc, test_binary_one_signal_in_flight);
  tcase_add_test (tc, test_destroy_deferred);
  tcase_add_test (tc, test_destroy_deferred_signal);
  tcase_add_test (tc, test_destroy_when_last_value_wait_fails);
  tcase_add_test (tc, test_destroy_after_unrecorded_wait);
  tcase_add_test (tc, test_meta_points);
  tcase_add_test (tc, test_meta_binary_exactly_one_wait);
  tcase_add_test (tc, test_meta_release_point);
  tcase_add_test (tc, test_meta_wait_cpu);
  tcase_add_test (tc, test_allocation_query);
  tcase_add_test (tc, test_wrong_context);
  tcase_add_test (tc, test_releaser_order);
  tcase_add_test (tc, test_releaser_failed_wait);
  tcase_add_test (tc, test_releaser_push_after);
  tcase_add_test (tc, test_wait_idle_stops_releaser);
  return s;
}

GST_CHECK_MAIN (cudasync);

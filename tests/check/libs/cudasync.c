/* gst-cudasync
 * Copyright (C) 2026 gst-cudasync developers
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The library's GstCudaSemaphore import, on the simulated driver or a GPU:
 * bad handles, which fds are one semaphore (gstcudasemaphore-fd.c,
 * compiled into this test to test it on its own), contexts.
 *
 * The library's other tests, one topic each: libs/cudasyncsignal
 * (signalling and waiting, destruction with GPU work pending),
 * libs/cudasyncmeta (GstCudaSyncMeta, the ALLOCATION query),
 * libs/cudasyncreleaser (GstCudaSyncReleaser, the library's thread).
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
 * test_wrong_context: a semaphore of another context is refused with an
 *     error, not used
 * test_rescue: gst_cuda_semaphore_rescue() refuses a binary semaphore and
 *     a value not above the last; signals past it, and later signals go on
 *     above
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

/* gst_cuda_semaphore_rescue(): a timeline semaphore imported from an fd,
 * to a value above its last; the object's own signals go on above it */
GST_START_TEST (test_rescue)
{
  TestSem *ts = NULL, *bts = NULL;
  GstCudaSemaphore *sem = cs_new_semaphore (NULL, TRUE, &ts);
  GstCudaSemaphore *bin = cs_new_semaphore (NULL, FALSE, &bts);
  CUstream stream = cs_new_stream (CU_STREAM_NON_BLOCKING);
  GError *err = NULL;

  fail_if (gst_cuda_semaphore_rescue (bin, 1, &err));
  fail_unless (g_error_matches (err, GST_CUDA_SYNC_ERROR,
          GST_CUDA_SYNC_ERROR_NOT_SUPPORTED));
  g_clear_error (&err);

  fail_unless (gst_cuda_context_push (cs_ctx));
  fail_unless (gst_cuda_semaphore_signal_value (sem, stream, 5, NULL));
  /* (its own signals run first: they would come after the rescue's) */
  fail_unless_equals_int (CuStreamSynchronize (stream), CUDA_SUCCESS);
  gst_cuda_context_pop (NULL);
  fail_if (gst_cuda_semaphore_rescue (sem, 5, &err));
  fail_unless (g_error_matches (err, GST_CUDA_SYNC_ERROR,
          GST_CUDA_SYNC_ERROR_PROTOCOL));
  g_clear_error (&err);
  /* it returns once the signal ran */
  fail_unless (gst_cuda_semaphore_rescue (sem, 100, &err), "%s",
      err ? err->message : "");
  fail_unless (test_sem_get_value (ts) >= 100);
  fail_unless (gst_cuda_context_push (cs_ctx));
  fail_if (gst_cuda_semaphore_signal_value (sem, stream, 100, NULL));
  fail_unless (gst_cuda_semaphore_signal_value (sem, stream, 101, NULL));
  fail_unless_equals_int (CuStreamSynchronize (stream), CUDA_SUCCESS);
  gst_cuda_context_pop (NULL);
  fail_unless_equals_uint64 (test_sem_get_value (ts), 101);

  cs_free_stream (stream);
  gst_object_unref (bin);
  gst_object_unref (sem);
  test_sem_free (bts);
  test_sem_free (ts);
}

GST_END_TEST;

static Suite *
cudasync_suite (void)
{
  Suite *s = suite_create ("cudasync");
  TCase *tc;

  tc = tcase_create ("general");
  suite_add_tcase (s, tc);
  tcase_add_checked_fixture (tc, cs_setup, cs_teardown);
  tcase_add_test (tc, test_import_bad_handles);
  tcase_add_test (tc, test_import_wrong_type);
  tcase_add_test (tc, test_fd_identity);
  tcase_add_test (tc, test_import_same_semaphore_twice);
  tcase_add_test (tc, test_import_two_semaphores);
  tcase_add_test (tc, test_wrong_context);
  tcase_add_test (tc, test_rescue);
  return s;
}

GST_CHECK_MAIN (cudasync);

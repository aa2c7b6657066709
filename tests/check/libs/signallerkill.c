/* gst-cudasync
 * Copyright (C) 2026 gst-cudasync developers
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * What the driver does with the GPU signals a killed process had
 * enqueued, and what the IPC elements' rescue relies on: a timeline
 * value signalled from another stream releases a GPU wait whose
 * signaller died.
 *
 * Tests:
 * test_signaller_killed: a child process enqueues, on one stream, a
 *     signal of "early" = 1, a wait for "gate" = 1 and a signal of "sem"
 *     = 1. Once early is reached, this process enqueues a wait for sem = 1
 *     on a stream of its own, kills the child (SIGKILL) and opens the gate
 *     from the host. The test prints whether the dead process's pending
 *     signal still ran (the driver's choice, asserted nowhere), then
 *     rescues sem past it (gst_cuda_semaphore_rescue(), as the IPC
 *     elements do: from a CUDA context of the library's own, which the
 *     waiting stream cannot hold up, also where every stream of this
 *     context shares one hardware queue, CUDASIM_CONNECTIONS=1): the wait
 *     must end within a second.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "../common.h"
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#define RESCUE_VALUE (G_GUINT64_CONSTANT (1) << 32)

typedef CUresult (*StreamQueryFunc) (CUstream stream);

/* ---- the child: the signaller ---- */

static GstCudaSemaphore *
child_import (GstCudaContext * ctx, const gchar * fd)
{
  GError *err = NULL;
  GstCudaSemaphore *s = gst_cuda_semaphore_import_fd (ctx,
      GST_CUDA_SEMAPHORE_HANDLE_TYPE_TIMELINE_FD, atoi (fd), &err);

  if (!s) {
    g_printerr ("child: import: %s\n", err->message);
    exit (3);
  }
  return s;
}

/* argv: --signaller EARLY_FD GATE_FD SEM_FD; prints "ready" once the
 * three operations are enqueued, then waits to be killed */
static int
child_main (char **argv)
{
  GstCudaContext *ctx;
  GstCudaSemaphore *early, *gate, *sem;
  CUstream stream = NULL;
  GError *err = NULL;
  gboolean ok;

  prctl (PR_SET_PDEATHSIG, SIGKILL);
  gst_init (NULL, NULL);
  if (!gst_cuda_load_library () || !(ctx = gst_cuda_context_new (0)))
    return 2;
  early = child_import (ctx, argv[2]);
  gate = child_import (ctx, argv[3]);
  sem = child_import (ctx, argv[4]);
  if (!gst_cuda_context_push (ctx) || CuStreamCreate (&stream,
          CU_STREAM_NON_BLOCKING) != CUDA_SUCCESS)
    return 4;
  ok = gst_cuda_semaphore_signal_value (early, stream, 1, &err) &&
      gst_cuda_semaphore_wait (gate, stream, 1, &err) &&
      gst_cuda_semaphore_signal_value (sem, stream, 1, &err);
  gst_cuda_context_pop (NULL);
  if (!ok) {
    g_printerr ("child: %s\n", err->message);
    return 5;
  }
  g_print ("ready\n");
  fflush (stdout);
  g_usleep (60 * G_USEC_PER_SEC);
  return 1;
}

/* ---- the test ---- */

/* an fd of @ts that a child inherits */
static gint
inheritable_fd (TestSem * ts)
{
  gint fd = test_sem_export_fd (ts);

  fail_unless (fd >= 0);
  fail_unless (fcntl (fd, F_SETFD, 0) == 0);
  return fd;
}

static GPid
spawn_signaller (TestSem * early, TestSem * gate, TestSem * sem, gint * out)
{
  gchar *exe = g_file_read_link ("/proc/self/exe", NULL);
  gint fds[3] = { inheritable_fd (early), inheritable_fd (gate),
    inheritable_fd (sem)
  };
  gchar *a[3], *argv[6];
  GError *err = NULL;
  GPid pid;
  guint i;

  argv[0] = exe;
  argv[1] = (gchar *) "--signaller";
  for (i = 0; i < 3; i++)
    argv[2 + i] = a[i] = g_strdup_printf ("%d", fds[i]);
  argv[5] = NULL;
  fail_unless (g_spawn_async_with_pipes (NULL, argv, NULL,
          G_SPAWN_DO_NOT_REAP_CHILD | G_SPAWN_LEAVE_DESCRIPTORS_OPEN, NULL,
          NULL, &pid, NULL, out, NULL, &err), "%s", err ? err->message : "");
  for (i = 0; i < 3; i++) {
    close (fds[i]);
    g_free (a[i]);
  }
  g_free (exe);
  return pid;
}

/* the child's "ready" line on @fd, within 30 s */
static gboolean
read_ready (gint fd)
{
  GString *got = g_string_new (NULL);
  gint64 end = g_get_monotonic_time () + 30 * G_USEC_PER_SEC;
  gboolean ready = FALSE;

  while (!ready && g_get_monotonic_time () < end) {
    struct pollfd pfd = { fd, POLLIN, 0 };
    gchar buf[64];
    gssize k;

    if (poll (&pfd, 1, 100) <= 0)
      continue;
    if ((k = read (fd, buf, sizeof (buf))) <= 0)
      break;
    g_string_append_len (got, buf, k);
    ready = strstr (got->str, "ready\n") != NULL;
  }
  g_string_free (got, TRUE);
  return ready;
}

static gboolean
value_within (TestSem * ts, guint64 value, guint ms)
{
  gint64 end = g_get_monotonic_time () + ms * 1000;

  while (test_sem_get_value (ts) < value && g_get_monotonic_time () < end)
    g_usleep (1000);
  return test_sem_get_value (ts) >= value;
}

/* microseconds until @stream ran all it holds, or -1 after @ms */
static gint64
stream_done_within (CUstream stream, guint ms)
{
  StreamQueryFunc query = cs_driver_symbol ("cuStreamQuery");
  gint64 start = g_get_monotonic_time (), end = start + ms * 1000;
  CUresult r;

  for (;;) {
    fail_unless (gst_cuda_context_push (cs_ctx));
    r = query (stream);
    gst_cuda_context_pop (NULL);
    if (r != CUDA_ERROR_NOT_READY) {
      fail_unless_equals_int (r, CUDA_SUCCESS);
      return g_get_monotonic_time () - start;
    }
    if (g_get_monotonic_time () >= end)
      return -1;
    g_usleep (1000);
  }
}

/* a GPU wait for @value of @s on @stream */
static void
enqueue_wait (GstCudaSemaphore * s, CUstream stream, guint64 value)
{
  GError *err = NULL;
  gboolean ok;

  fail_unless (gst_cuda_context_push (cs_ctx));
  ok = gst_cuda_semaphore_wait (s, stream, value, &err);
  gst_cuda_context_pop (NULL);
  fail_unless (ok, "%s", err ? err->message : "");
}

GST_START_TEST (test_signaller_killed)
{
  TestSem *early = test_sem_new (TRUE, 0), *gate = test_sem_new (TRUE, 0);
  TestSem *sem_ts = NULL;
  GstCudaSemaphore *sem = cs_new_semaphore (NULL, TRUE, &sem_ts);
  CUstream waiter = cs_new_stream (CU_STREAM_NON_BLOCKING);
  GError *err = NULL;
  gint out_fd, status;
  gint64 released;
  gboolean ran;
  GPid pid;

  fail_unless (early && gate && sem);
  pid = spawn_signaller (early, gate, sem_ts, &out_fd);
  fail_unless (read_ready (out_fd), "the signaller did not start");
  /* the child's stream runs: its first signal reached us */
  fail_unless (value_within (early, 1, 5000));
  enqueue_wait (sem, waiter, 1);
  fail_unless_equals_uint64 (test_sem_get_value (sem_ts), 0);
  fail_unless_equals_int64 (stream_done_within (waiter, 100), -1);

  fail_unless (kill (pid, SIGKILL) == 0);
  fail_unless (waitpid (pid, &status, 0) == pid && WIFSIGNALED (status));
  g_spawn_close_pid (pid);
  close (out_fd);
  fail_unless (test_sem_host_signal (gate, 1));
  ran = value_within (sem_ts, 1, 1000);
  g_print ("a killed process's signal enqueued behind a wait that opened "
      "after its death: %s within 1 s (%s)\n", ran ? "ran" : "did not run",
      test_sem_backend_name ());
  /* the stream first: the value can only grow after it */
  fail_unless (stream_done_within (waiter, 0) == -1 ||
      test_sem_get_value (sem_ts) >= 1, "the wait ended without its value");

  /* the rescue: past any value the dead process could have signalled */
  fail_unless (gst_cuda_semaphore_rescue (sem, RESCUE_VALUE, &err), "%s",
      err ? err->message : "");
  released = stream_done_within (waiter, 1000);
  fail_unless (released >= 0, "the waiting stream stayed stuck");
  fail_unless (test_sem_get_value (sem_ts) >= RESCUE_VALUE);
  g_print ("the rescue signal released the waiting stream in %"
      G_GINT64_FORMAT " us\n", released);

  cs_free_stream (waiter);
  gst_object_unref (sem);
  test_sem_free (sem_ts);
  test_sem_free (gate);
  test_sem_free (early);
}

GST_END_TEST;

static Suite *
signallerkill_suite (void)
{
  Suite *s = suite_create ("signallerkill");
  TCase *tc = tcase_create ("general");

  /* the rescues must end waits that hold up every stream of the context */
  tcase_add_checked_fixture (tc, cs_setup_one_queue, cs_teardown);
  tcase_add_test (tc, test_signaller_killed);
  suite_add_tcase (s, tc);
  return s;
}

int
main (int argc, char **argv)
{
  if (argc == 5 && g_str_equal (argv[1], "--signaller"))
    return child_main (argv);
  gst_check_init (&argc, &argv);
  return gst_check_run_suite (signallerkill_suite (), "signallerkill",
      __FILE__);
}

/* gst-cudasync
 * Copyright (C) 2026 gst-cudasync developers
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The library's GstCudaSyncReleaser, which gives things back once the GPU
 * work before them has run, and gst_cuda_sync_wait_idle(), which stops
 * the library's own releaser thread. On the simulated driver or a GPU.
 *
 * The library's other tests: libs/cudasync (its header lists them).
 *
 * Tests:
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
#include "common.h"

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
cudasyncreleaser_suite (void)
{
  Suite *s = suite_create ("cudasyncreleaser");
  TCase *tc;

  tc = tcase_create ("general");
  suite_add_tcase (s, tc);
  tcase_add_checked_fixture (tc, cs_setup, cs_teardown);
  tcase_add_test (tc, test_releaser_order);
  tcase_add_test (tc, test_releaser_failed_wait);
  tcase_add_test (tc, test_releaser_push_after);
  tcase_add_test (tc, test_wait_idle_stops_releaser);
  return s;
}

GST_CHECK_MAIN (cudasyncreleaser);

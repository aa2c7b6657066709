/* gst-cudasync
 * Copyright (C) 2026 gst-cudasync developers
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The library's deferred destruction: driver objects that GPU work may
 * still use are destroyed once the events recorded after that work have
 * completed, on a worker thread of the library, so that no streaming
 * thread ever waits for the GPU. Below events, the releaser and the
 * semaphores, which all hand their driver objects over to it; it calls
 * the loader alone.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstcudasync-private.h"

GST_DEBUG_CATEGORY_STATIC (gst_cuda_sync_deferred_debug);
#define GST_CAT_DEFAULT gst_cuda_sync_deferred_debug

/* func NULL: stops the worker */
typedef struct
{
  GstCudaContext *context;
  GArray *events;
  gboolean sync_context;
  GstCudaSyncDeferredFunc func;
  gpointer data;
} DeferredJob;

typedef struct
{
  GThread *thread;
  GAsyncQueue *jobs;            /* DeferredJob */
} Worker;

/* deferred_lock guards deferred_worker and deferred_draining; it is never
 * held while a worker is stopped (gst_cuda_sync_wait_idle() stops one it
 * has taken out from under it), nor while a job runs */
static GMutex deferred_lock;
static GCond deferred_cond;
static Worker *deferred_worker = NULL;
static gboolean deferred_draining = FALSE;

static void
init_debug (void)
{
  static gsize once = 0;

  if (g_once_init_enter (&once)) {
    GST_DEBUG_CATEGORY_INIT (gst_cuda_sync_deferred_debug, "cudasyncdeferred",
        0, "gst-cudasync deferred destruction");
    g_once_init_leave (&once, 1);
  }
}

/* context pushed: waits for @ev by polling it, sleeping in between (50 us
 * at first, up to 4 ms): the worker neither spins a core nor needs the
 * event made with blocking sync, which the events recorded with every
 * frame (a semaphore's stream events) are not */
static CUresult
poll_event (const GstCudaSyncVTable * vt, CUevent ev)
{
  gulong sleep_us = 50;
  CUresult r;

  while ((r = vt->cuEventQuery (ev)) == CUDA_ERROR_NOT_READY) {
    g_usleep (sleep_us);
    sleep_us = MIN (sleep_us * 2, 4000);
  }
  return r;
}

/* context pushed: whether the GPU work the job waits for is known to be
 * complete */
static gboolean
deferred_wait (DeferredJob * job)
{
  const GstCudaSyncVTable *vt = _gst_cuda_sync_vtable ();
  gboolean sync_context = job->sync_context;
  CUresult r;
  guint i;

  for (i = 0; i < job->events->len; i++) {
    CUevent ev = g_array_index (job->events, CUevent, i);

    r = poll_event (vt, ev);
    if (r != CUDA_SUCCESS) {
      GST_WARNING ("cuEventQuery: %s: synchronising the context instead",
          _gst_cuda_sync_result_name (r));
      sync_context = TRUE;
    }
    vt->cuEventDestroy (ev);
  }
  if (!sync_context)
    return TRUE;
  r = vt->cuCtxSynchronize ();
  if (r != CUDA_SUCCESS) {
    GST_WARNING ("cuCtxSynchronize: %s", _gst_cuda_sync_result_name (r));
    return FALSE;
  }
  return TRUE;
}

/* The worker makes the job's context current; a failure is tried again
 * (the driver can fail one call and do the next), and only a context that
 * cannot be made current at all leaks the job's objects: destroying them
 * without it is not safe. */
static gboolean
push_retrying (GstCudaContext * context)
{
  guint i;

  for (i = 0; i < 4; i++) {
    if (i > 0)
      g_usleep (1000 << (2 * i));
    if (gst_cuda_context_push (context))
      return TRUE;
  }
  return FALSE;
}

/* on the worker: the job's own events are waited for here */
static void
deferred_run (DeferredJob * job)
{
  if (!push_retrying (job->context)) {
    GST_ERROR_OBJECT (job->context, "cannot push CUDA context; leaking");
  } else {
    if (deferred_wait (job))
      job->func (job->context, job->data);
    else
      GST_ERROR_OBJECT (job->context, "cannot know whether the GPU work is "
          "done: leaking what it uses instead of destroying it");
    gst_cuda_context_pop (NULL);
  }
  g_array_unref (job->events);
  gst_object_unref (job->context);
  g_free (job);
}

static gpointer
worker_thread (gpointer data)
{
  Worker *w = data;
  DeferredJob *job;

  while ((job = g_async_queue_pop (w->jobs)) && job->func)
    deferred_run (job);
  g_free (job);
  return NULL;
}

static Worker *
worker_new (void)
{
  Worker *w = g_new0 (Worker, 1);

  w->jobs = g_async_queue_new ();
  w->thread = g_thread_new ("cudasync-release", worker_thread, w);
  return w;
}

/* runs every job queued, then stops the thread */
static void
worker_free (Worker * w)
{
  g_async_queue_push (w->jobs, g_new0 (DeferredJob, 1));
  g_thread_join (w->thread);
  g_async_queue_unref (w->jobs);
  g_free (w);
}

void
_gst_cuda_sync_defer (GstCudaContext * context, GArray * events,
    gboolean sync_context, GstCudaSyncDeferredFunc func, gpointer data)
{
  DeferredJob *job;

  init_debug ();
  if ((!events || events->len == 0) && !sync_context) {
    /* nothing to wait for: now, on the caller's thread; if the context
     * cannot be made current here, the worker tries again */
    /* @func may drop the caller's last reference to @context */
    gst_object_ref (context);
    if (gst_cuda_context_push (context)) {
      func (context, data);
      gst_cuda_context_pop (NULL);
      gst_object_unref (context);
      if (events)
        g_array_unref (events);
      return;
    }
    gst_object_unref (context);
    GST_WARNING_OBJECT (context, "cannot push the CUDA context: destruction "
        "left to the releaser thread");
  }

  job = g_new0 (DeferredJob, 1);
  job->context = gst_object_ref (context);
  job->events = events ? events : g_array_new (FALSE, FALSE, sizeof (CUevent));
  job->sync_context = sync_context;
  job->func = func;
  job->data = data;

  g_mutex_lock (&deferred_lock);
  if (!deferred_worker)
    deferred_worker = worker_new ();
  g_async_queue_push (deferred_worker->jobs, job);
  g_mutex_unlock (&deferred_lock);
}

/**
 * gst_cuda_sync_wait_idle:
 *
 * Blocks until every deferred destruction the library has queued (semaphores
 * whose GPU work was still pending when they were released) has completed,
 * and stops the library's worker thread; a later deferred destruction
 * starts a new one.
 *
 * Applications call it once before they exit (after setting their pipelines
 * to NULL, like gst_deinit()): the destruction runs on that thread, and
 * exit() would otherwise tear the process and the driver down under it. The
 * library does not do it itself at unload: there is no gst_deinit() hook for
 * libraries, and waiting for GPU work from a destructor at exit can hang once
 * the driver has been torn down. Also useful in leak checks. Do not call it
 * from a streaming thread.
 *
 * Since: 0.1
 */
void
gst_cuda_sync_wait_idle (void)
{
  Worker *w;

  /* One caller drains at a time; the others wait for it. A destruction
   * queued meanwhile (by another thread, or by a destruction that drops
   * the last reference to another semaphore) goes to a new worker, which
   * is drained next: until none is left. */
  g_mutex_lock (&deferred_lock);
  for (;;) {
    while (deferred_draining)
      g_cond_wait (&deferred_cond, &deferred_lock);
    w = deferred_worker;
    if (!w)
      break;
    deferred_worker = NULL;
    deferred_draining = TRUE;
    g_mutex_unlock (&deferred_lock);
    worker_free (w);
    g_mutex_lock (&deferred_lock);
    deferred_draining = FALSE;
    g_cond_broadcast (&deferred_cond);
  }
  g_mutex_unlock (&deferred_lock);
}

/* gst-cudasync
 * Copyright (C) 2026 gst-cudasync developers
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
/**
 * GstCudaSyncReleaser: (skip)
 *
 * Gives things back once the GPU is done with them, without blocking the
 * thread that hands them over.
 *
 * A releaser has one thread of its own. gst_cuda_sync_releaser_push()
 * queues a #GstCudaSyncReleaseFunc behind an event recorded after the GPU
 * work that still uses something (an input buffer, a driver object); the
 * thread waits for the events in push order, sleeping when they were made
 * with `blocking_sync`, and calls each function once its event has
 * completed. gst_cuda_sync_releaser_free() waits for every queued function
 * and stops the thread: that is the releaser's shutdown, for example in an
 * element's `stop` once the stream's work has been enqueued.
 *
 * One releaser per user (an element instance) keeps a pipeline whose GPU
 * work is slow or stuck from delaying another's. The library uses one of
 * its own for the deferred destruction of semaphores
 * (gst_cuda_sync_wait_idle() drains it and stops its thread).
 *
 * Not introspectable: a helper for elements written in C.
 *
 * Since: 0.2
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstcudasync-private.h"

GST_DEBUG_CATEGORY_STATIC (gst_cuda_sync_releaser_debug);
#define GST_CAT_DEFAULT gst_cuda_sync_releaser_debug

typedef struct
{
  GstCudaSyncEvent *event;      /* nullable */
  GstCudaSyncReleaseFunc func;
  gpointer data;
} Job;

struct _GstCudaSyncReleaser
{
  GThread *thread;
  GAsyncQueue *jobs;            /* Job; one with func NULL stops the thread */
};

static void
init_debug (void)
{
  static gsize once = 0;

  if (g_once_init_enter (&once)) {
    GST_DEBUG_CATEGORY_INIT (gst_cuda_sync_releaser_debug, "cudasyncreleaser",
        0, "gst-cudasync deferred releases");
    g_once_init_leave (&once, 1);
  }
}

static gpointer
releaser_thread (gpointer data)
{
  GstCudaSyncReleaser *r = data;
  Job *job;

  while ((job = g_async_queue_pop (r->jobs)) && job->func) {
    GError *err = NULL;

    if (job->event && !gst_cuda_sync_event_wait_cpu (job->event, &err))
      GST_WARNING ("cannot tell whether the GPU work is done: %s",
          err->message);
    job->func (job->data, err);
    g_clear_error (&err);
    g_clear_pointer (&job->event, gst_cuda_sync_event_unref);
    g_free (job);
  }
  g_free (job);
  return NULL;
}

/**
 * gst_cuda_sync_releaser_new: (skip)
 * @name: the name of the releaser's thread (for debuggers; at most 15
 *   characters are shown)
 *
 * Creates a releaser and starts its thread.
 *
 * Returns: (transfer full): a new #GstCudaSyncReleaser, to free with
 *   gst_cuda_sync_releaser_free()
 *
 * Since: 0.2
 */
GstCudaSyncReleaser *
gst_cuda_sync_releaser_new (const gchar * name)
{
  GstCudaSyncReleaser *r = g_new0 (GstCudaSyncReleaser, 1);

  init_debug ();
  r->jobs = g_async_queue_new ();
  r->thread = g_thread_new (name ? name : "cudasync-release",
      releaser_thread, r);
  return r;
}

/**
 * gst_cuda_sync_releaser_push: (skip)
 * @releaser: a #GstCudaSyncReleaser
 * @event: (nullable): an event recorded after the GPU work that uses what
 *   @func gives back (the releaser takes a reference); %NULL: nothing to
 *   wait for but the functions pushed before
 * @func: called on the releaser's thread once @event has completed (or
 *   with an error once waiting for it has failed), after the functions
 *   pushed before it
 * @data: passed to @func
 *
 * Queues @func behind @event. Never blocks on the GPU.
 *
 * Since: 0.2
 */
void
gst_cuda_sync_releaser_push (GstCudaSyncReleaser * releaser,
    GstCudaSyncEvent * event, GstCudaSyncReleaseFunc func, gpointer data)
{
  Job *job;

  g_return_if_fail (releaser != NULL);
  g_return_if_fail (func != NULL);

  job = g_new (Job, 1);
  job->event = event ? gst_cuda_sync_event_ref (event) : NULL;
  job->func = func;
  job->data = data;
  g_async_queue_push (releaser->jobs, job);
}

/**
 * gst_cuda_sync_releaser_free: (skip)
 * @releaser: a #GstCudaSyncReleaser
 *
 * Waits until every function pushed has been called, stops the releaser's
 * thread and frees it. Must not be called from a #GstCudaSyncReleaseFunc
 * of the same releaser.
 *
 * Since: 0.2
 */
void
gst_cuda_sync_releaser_free (GstCudaSyncReleaser * releaser)
{
  g_return_if_fail (releaser != NULL);
  g_return_if_fail (g_thread_self () != releaser->thread);

  g_async_queue_push (releaser->jobs, g_new0 (Job, 1));
  g_thread_join (releaser->thread);
  g_async_queue_unref (releaser->jobs);
  g_free (releaser);
}

/* ---- the library's deferred destruction ---- */

/* Destruction of driver objects that GPU work may still use, once the
 * events recorded after that work have completed: on the library's own
 * releaser, so that no streaming thread ever waits for the GPU. Its lock
 * is never held while waiting (gst_cuda_sync_wait_idle() frees a releaser
 * it has taken out from under it). */

typedef struct
{
  GstCudaContext *context;
  GArray *events;
  gboolean sync_context;
  GstCudaSyncDeferredFunc func;
  gpointer data;
} DeferredJob;

/* deferred_lock guards deferred_releaser and deferred_draining; it is
 * never held while a releaser is freed */
static GMutex deferred_lock;
static GCond deferred_cond;
static GstCudaSyncReleaser *deferred_releaser = NULL;
static gboolean deferred_draining = FALSE;

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

    r = vt->cuEventSynchronize (ev);
    if (r != CUDA_SUCCESS) {
      GST_WARNING ("cuEventSynchronize: %s: synchronising the context "
          "instead", _gst_cuda_sync_result_name (r));
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

/* a GstCudaSyncReleaseFunc: the job's own events are waited for here */
static void
deferred_run (gpointer data, const GError * unused)
{
  DeferredJob *job = data;

  if (!gst_cuda_context_push (job->context)) {
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

void
_gst_cuda_sync_defer (GstCudaContext * context, GArray * events,
    gboolean sync_context, GstCudaSyncDeferredFunc func, gpointer data)
{
  DeferredJob *job;

  init_debug ();
  if ((!events || events->len == 0) && !sync_context) {
    /* nothing to wait for: now, on the caller's thread; if the context
     * cannot be made current here, the releaser tries again */
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
  if (!deferred_releaser)
    deferred_releaser = gst_cuda_sync_releaser_new ("cudasync-release");
  gst_cuda_sync_releaser_push (deferred_releaser, NULL, deferred_run, job);
  g_mutex_unlock (&deferred_lock);
}

/**
 * gst_cuda_sync_wait_idle:
 *
 * Blocks until every deferred destruction the library has queued (semaphores
 * whose GPU work was still pending when they were released) has completed,
 * and stops the library's releaser thread; a later deferred destruction
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
  GstCudaSyncReleaser *r;

  /* One caller drains at a time; the others wait for it. A destruction
   * queued meanwhile (by another thread, or by a destruction that drops
   * the last reference to another semaphore) goes to a new releaser, which
   * is drained next: until none is left. */
  g_mutex_lock (&deferred_lock);
  for (;;) {
    while (deferred_draining)
      g_cond_wait (&deferred_cond, &deferred_lock);
    r = deferred_releaser;
    if (!r)
      break;
    deferred_releaser = NULL;
    deferred_draining = TRUE;
    g_mutex_unlock (&deferred_lock);
    gst_cuda_sync_releaser_free (r);
    g_mutex_lock (&deferred_lock);
    deferred_draining = FALSE;
    g_cond_broadcast (&deferred_cond);
  }
  g_mutex_unlock (&deferred_lock);
}

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
 * with `blocking_sync` (make them so: otherwise, under the driver's default
 * scheduling, the thread spins on a CPU core for as long as the GPU work
 * runs), and calls each function once its event has
 * completed. gst_cuda_sync_releaser_free() waits for every queued function
 * and stops the thread: that is the releaser's shutdown, for example in an
 * element's `stop` once the stream's work has been enqueued.
 *
 * gst_cuda_sync_releaser_push_after() records the event itself, on a
 * stream, and reuses its events once they have completed: a push per
 * frame then creates no driver object once the first few frames are in
 * flight.
 *
 * One releaser per user (an element instance) keeps a pipeline whose GPU
 * work is slow or stuck from delaying another's.
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
  gboolean reuse;               /* the event is the releaser's own */
} Job;

/* free_events are events of push_after() that have completed, all of
 * events_context (set by the first push_after(); events of another
 * context are not kept). The async queues have their own locks; nothing
 * else is shared with the thread. */
struct _GstCudaSyncReleaser
{
  GThread *thread;
  GAsyncQueue *jobs;            /* Job; one with func NULL stops the thread */
  GAsyncQueue *free_events;     /* GstCudaSyncEvent */
  GstCudaContext *events_context;
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
    /* completed: free again before the function runs (an event that
     * could not be waited for is not used again) */
    if (job->reuse && !err)
      g_async_queue_push (r->free_events, g_steal_pointer (&job->event));
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
  r->free_events = g_async_queue_new_full ((GDestroyNotify)
      gst_cuda_sync_event_unref);
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
  job->reuse = FALSE;
  g_async_queue_push (releaser->jobs, job);
}

/* a completed event of the releaser's own in @context, or a new one
 * (*reuse: whether it may go back to the free events) */
static GstCudaSyncEvent *
take_event (GstCudaSyncReleaser * releaser, GstCudaContext * context,
    gboolean * reuse, GError ** error)
{
  GstCudaSyncEvent *ev = NULL;

  if (!releaser->events_context)
    releaser->events_context = gst_object_ref (context);
  *reuse = releaser->events_context == context;
  if (*reuse)
    ev = g_async_queue_try_pop (releaser->free_events);
  /* blocking sync: the thread sleeps in its wait */
  return ev ? ev : gst_cuda_sync_event_new (context, TRUE, error);
}

/**
 * gst_cuda_sync_releaser_push_after: (skip)
 * @releaser: a #GstCudaSyncReleaser
 * @context: the #GstCudaContext of @stream
 * @stream: the stream whose work so far uses what @func gives back
 * @func: called on the releaser's thread once that work has completed (or
 *   with an error once waiting for it has failed), after the functions
 *   pushed before it
 * @data: passed to @func
 * @error: return location for a #GError, or %NULL
 *
 * Records an event on @stream and queues @func behind it, as
 * gst_cuda_sync_releaser_push() does with an event of the caller's. The
 * event is one of the releaser's own, made with blocking sync and used
 * again once it has completed (events of the context of the first call
 * only). Never blocks on the GPU. Not thread-safe: call it from one
 * thread at a time.
 *
 * Returns: %TRUE when @func is queued; %FALSE with @error set when no
 *   event could be made or recorded (@func is then not called)
 *
 * Since: 0.2
 */
gboolean
gst_cuda_sync_releaser_push_after (GstCudaSyncReleaser * releaser,
    GstCudaContext * context, CUstream stream, GstCudaSyncReleaseFunc func,
    gpointer data, GError ** error)
{
  GstCudaSyncEvent *ev;
  gboolean reuse;
  Job *job;

  g_return_val_if_fail (releaser != NULL, FALSE);
  g_return_val_if_fail (GST_IS_CUDA_CONTEXT (context), FALSE);
  g_return_val_if_fail (func != NULL, FALSE);

  ev = take_event (releaser, context, &reuse, error);
  if (!ev)
    return FALSE;
  if (!gst_cuda_sync_event_record (ev, stream, error)) {
    gst_cuda_sync_event_unref (ev);
    return FALSE;
  }
  job = g_new (Job, 1);
  job->event = ev;
  job->func = func;
  job->data = data;
  job->reuse = reuse;
  g_async_queue_push (releaser->jobs, job);
  return TRUE;
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
  g_async_queue_unref (releaser->free_events);
  gst_clear_object (&releaser->events_context);
  g_free (releaser);
}

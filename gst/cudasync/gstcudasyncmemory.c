/* gst-cudasync
 * Copyright (C) 2026 gst-cudasync developers
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * CUDA memory and its stream: ordering work after the work pending on a
 * #GstCudaMemory (docs/reference/memory-streams.md).
 *
 * Since GStreamer 1.24 a #GstCudaMemory carries the #GstCudaStream its
 * producer wrote it on, and upstream CUDA elements push memory whose work
 * is still pending there (the memory then has the
 * `GST_CUDA_MEMORY_TRANSFER_NEED_SYNC` flag). A consumer must order its own
 * reads after that work. gst_cuda_sync_memory_wait_pending() does it on the
 * GPU, with an event recorded on the memory's stream and waited for by the
 * consumer's stream: no thread waits, unlike gst_cuda_memory_sync().
 *
 * On GStreamer 1.22 CUDA memory has no stream, and upstream elements
 * synchronise before pushing: these functions then do nothing.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstcudasync-private.h"
#include "gstcudasync-compat-private.h"
#include <gst/cuda/gstcudamemory.h>

/**
 * gst_cuda_sync_memory_get_stream:
 * @mem: a #GstMemory
 *
 * Gets the CUDA stream the work pending on @mem runs on.
 *
 * Returns: (transfer none) (nullable): the handle of the #GstCudaStream that
 * @mem carries (GStreamer 1.24 or newer), or %NULL when @mem is not CUDA
 * memory, has no stream (its work is on the legacy default stream and
 * complete) or the library was built for GStreamer 1.22.
 *
 * Since: 0.2
 */
CUstream
gst_cuda_sync_memory_get_stream (GstMemory * mem)
{
  g_return_val_if_fail (mem != NULL, NULL);

  return _gst_cuda_sync_compat_memory_get_stream (mem);
}

/* One event per memory, kept as the library's data on it and destroyed
 * with it (the allocator frees that data with the memory's context
 * current). Only streams wait for it, never a CPU thread: no blocking
 * sync. A record and the wait that follows it run under the lock: an
 * event's state is taken by the wait, and another thread's record in
 * between would put the other stream's work in its place. */
static GMutex event_lock;

static void
destroy_event (gpointer data)
{
  GST_CUDA_SYNC_CALL (cuEventDestroy) ((CUevent) data);
}

/* @waiter waits, on the GPU, for the work enqueued on @recorded so far,
 * through @mem's event (context pushed) */
static gboolean
order_streams (GstMemory * mem, CUstream recorded, CUstream waiter,
    GError ** error)
{
  gboolean ok = TRUE;
  CUevent ev;
  CUresult r;

  g_mutex_lock (&event_lock);
  ev = _gst_cuda_sync_compat_memory_get_data (mem);
  if (!ev) {
    r = GST_CUDA_SYNC_CALL (cuEventCreate) (&ev, CU_EVENT_DISABLE_TIMING);
    if (_gst_cuda_sync_result (r, "cuEventCreate", error))
      _gst_cuda_sync_compat_memory_set_data (mem, ev, destroy_event);
    else
      ok = FALSE;
  }
  if (ok) {
    r = GST_CUDA_SYNC_CALL (cuEventRecord) (ev, recorded);
    ok = _gst_cuda_sync_result (r, "cuEventRecord", error);
  }
  if (ok) {
    r = GST_CUDA_SYNC_CALL (cuStreamWaitEvent) (waiter, ev, 0);
    ok = _gst_cuda_sync_result (r, "cuStreamWaitEvent", error);
  }
  g_mutex_unlock (&event_lock);
  return ok;
}

static gboolean
push_memory_context (GstMemory * mem, GError ** error)
{
  if (!gst_cuda_sync_init (error))
    return FALSE;
  if (!gst_cuda_context_push (GST_CUDA_MEMORY_CAST (mem)->context)) {
    g_set_error (error, GST_CUDA_SYNC_ERROR, GST_CUDA_SYNC_ERROR_DRIVER,
        "Could not make the memory's CUDA context current");
    return FALSE;
  }
  return TRUE;
}

/**
 * gst_cuda_sync_memory_wait_pending:
 * @mem: a #GstMemory
 * @stream: (nullable): the stream that will read or write @mem (%NULL: the
 *   legacy default stream), in @mem's CUDA context
 * @error: return location for a #GError, or %NULL
 *
 * Orders the work enqueued on @stream from now on after the work still
 * pending on @mem's own stream, on the GPU (`cuEventRecord` on the memory's
 * stream, `cuStreamWaitEvent` on @stream). The calling thread never waits.
 * Does nothing when @mem has no pending work (no
 * `GST_CUDA_MEMORY_TRANSFER_NEED_SYNC`), no stream, or @stream is its
 * stream, and on GStreamer 1.22. The flag is left as it is: other readers
 * may still need it.
 *
 * Returns: %TRUE on success, %FALSE with @error set if a driver call failed
 *
 * Since: 0.2
 */
gboolean
gst_cuda_sync_memory_wait_pending (GstMemory * mem, CUstream stream,
    GError ** error)
{
  CUstream mem_stream;
  gboolean ok;

  g_return_val_if_fail (mem != NULL, FALSE);

  mem_stream = gst_cuda_sync_memory_get_stream (mem);
  if (!mem_stream || mem_stream == stream ||
      !_gst_cuda_sync_compat_memory_needs_sync (mem))
    return TRUE;
  if (!push_memory_context (mem, error))
    return FALSE;
  ok = order_streams (mem, mem_stream, stream, error);
  gst_cuda_context_pop (NULL);
  return ok;
}

/**
 * gst_cuda_sync_memory_order_reuse:
 * @mem: a #GstMemory
 * @stream: (nullable): the stream that reads @mem (%NULL: the legacy
 *   default stream), in @mem's CUDA context
 * @ordered: (out): whether @mem's stream now waits for @stream
 * @error: return location for a #GError, or %NULL
 *
 * Lets a consumer give @mem back to its pool before its reads on @stream
 * have run. Since GStreamer 1.24 the pool's next writer writes @mem on the
 * memory's own stream; this orders the work enqueued on that stream from
 * now on after the work enqueued on @stream so far, on the GPU
 * (`cuEventRecord` on @stream, `cuStreamWaitEvent` on the memory's stream),
 * and marks @mem pending (gst_cuda_sync_memory_mark_pending()). The calling
 * thread never waits.
 *
 * When @mem has no stream (GStreamer 1.22, memory of another kind, or
 * memory without one) *@ordered is %FALSE and nothing is done: the caller
 * must keep @mem until its reads have completed. *@ordered is also %TRUE
 * when @stream is the memory's own stream.
 *
 * Returns: %TRUE on success, %FALSE with @error set if a driver call failed
 *
 * Since: 0.2
 */
gboolean
gst_cuda_sync_memory_order_reuse (GstMemory * mem, CUstream stream,
    gboolean * ordered, GError ** error)
{
  CUstream mem_stream;
  gboolean ok;

  g_return_val_if_fail (mem != NULL, FALSE);
  g_return_val_if_fail (ordered != NULL, FALSE);

  *ordered = FALSE;
  mem_stream = gst_cuda_sync_memory_get_stream (mem);
  if (!mem_stream)
    return TRUE;
  if (mem_stream != stream) {
    if (!push_memory_context (mem, error))
      return FALSE;
    ok = order_streams (mem, stream, mem_stream, error);
    gst_cuda_context_pop (NULL);
    if (!ok)
      return FALSE;
  }
  _gst_cuda_sync_compat_memory_set_needs_sync (mem);
  *ordered = TRUE;
  return TRUE;
}

/**
 * gst_cuda_sync_memory_mark_pending:
 * @mem: a #GstMemory
 *
 * Tells later readers that work on @mem's own stream is pending (sets
 * `GST_CUDA_MEMORY_TRANSFER_NEED_SYNC`), after a writer or a GPU wait was
 * enqueued on that stream without going through a CUDA map of @mem. Upstream
 * consumers then order themselves after it (or synchronise before a CPU
 * map). Does nothing for memory without a stream and on GStreamer 1.22.
 *
 * Since: 0.2
 */
void
gst_cuda_sync_memory_mark_pending (GstMemory * mem)
{
  g_return_if_fail (mem != NULL);

  if (gst_cuda_sync_memory_get_stream (mem))
    _gst_cuda_sync_compat_memory_set_needs_sync (mem);
}

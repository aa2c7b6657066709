/* gst-cudasync
 * Copyright (C) 2026 gst-cudasync developers
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * GstCudaSemaphore: the debug category, and the events that track the last
 * operation enqueued on each stream a semaphore is used on (what
 * destruction waits for, and what signals on another stream are ordered
 * after). The lowest of the semaphore's files.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstcudasemaphore-private.h"

GST_DEBUG_CATEGORY (gst_cuda_semaphore_debug);

void
_gst_cuda_semaphore_init_debug (void)
{
  static gsize once = 0;

  if (g_once_init_enter (&once)) {
    GST_DEBUG_CATEGORY_INIT (gst_cuda_semaphore_debug, "cudasemaphore", 0,
        "GstCudaSemaphore");
    g_once_init_leave (&once, 1);
  }
}

StreamEvent *
_gst_cuda_semaphore_find_stream_event (GstCudaSemaphore * self, CUstream stream)
{
  guint i;

  for (i = 0; i < self->stream_events->len; i++) {
    StreamEvent *se = &g_array_index (self->stream_events, StreamEvent, i);
    if (se->stream == stream)
      return se;
  }
  return NULL;
}

gboolean
_gst_cuda_semaphore_record_op (GstCudaSemaphore * self, CUstream stream,
    GError ** error)
{
  StreamEvent *se = _gst_cuda_semaphore_find_stream_event (self, stream);
  CUresult r;

  if (!se) {
    StreamEvent n = { stream, NULL };
    /* recorded with every operation, waited for only by deferred
     * destruction, which polls it: no blocking sync */
    r = GST_CUDA_SYNC_CALL (cuEventCreate) (&n.event, CU_EVENT_DISABLE_TIMING);
    if (!_gst_cuda_sync_result (r, "cuEventCreate", error))
      return FALSE;
    g_array_append_val (self->stream_events, n);
    se = &g_array_index (self->stream_events, StreamEvent,
        self->stream_events->len - 1);
  }
  r = GST_CUDA_SYNC_CALL (cuEventRecord) (se->event, stream);
  return _gst_cuda_sync_result (r, "cuEventRecord", error);
}

gboolean
_gst_cuda_semaphore_order_after (GstCudaSemaphore * self, CUstream stream,
    CUstream other, GError ** error)
{
  StreamEvent *prev;
  CUresult r;

  if (other == stream)
    return TRUE;
  prev = _gst_cuda_semaphore_find_stream_event (self, other);
  if (!prev)
    return TRUE;
  r = GST_CUDA_SYNC_CALL (cuStreamWaitEvent) (stream, prev->event, 0);
  return _gst_cuda_sync_result (r, "cuStreamWaitEvent", error);
}

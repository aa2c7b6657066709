/* gst-cudasync
 * Copyright (C) 2026 gst-cudasync developers
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * GstCudaSemaphore: timeline semaphores (a Vulkan timeline semaphore's
 * fd). Signals reserve increasing values, are ordered after the previous
 * signal with a wait for its value, and record no event: destruction waits
 * for the last value instead.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstcudasemaphore-private.h"
#include <string.h>

#define GST_CAT_DEFAULT gst_cuda_semaphore_debug

/* Enqueues on @stream a wait for the last value this object signalled;
 * call with the context pushed */
static CUresult
wait_last_signalled (GstCudaSemaphore * self, CUstream stream)
{
  CUDA_EXTERNAL_SEMAPHORE_WAIT_PARAMS wp;

  memset (&wp, 0, sizeof (wp));
  wp.params.fence.value = self->last_signalled;
  return GST_CUDA_SYNC_CALL (cuWaitExternalSemaphoresAsync) (&self->handle,
      &wp, 1, stream);
}

static gboolean
timeline_reserve_signal (GstCudaSemaphore * self, guint64 * value,
    GError ** error)
{
  *value = self->last_value + 1;
  return TRUE;
}

/* The value must progress in enqueue order on the GPU too: a signal on
 * another stream than the previous one waits for the previous value
 * (recorded like any wait), so that signals need no event of their own */
static gboolean
timeline_order_signal (GstCudaSemaphore * self, CUstream stream,
    GError ** error)
{
  CUresult r;

  if (!self->has_signalled || self->last_signal_stream == stream)
    return TRUE;
  r = wait_last_signalled (self, stream);
  if (!_gst_cuda_sync_result (r, "cuWaitExternalSemaphoresAsync", error))
    return FALSE;
  if (!_gst_cuda_semaphore_record_op (self, stream, error)) {
    self->untracked_ops = TRUE;
    return FALSE;
  }
  return TRUE;
}

static void
timeline_fill_signal (CUDA_EXTERNAL_SEMAPHORE_SIGNAL_PARAMS * params,
    guint64 value, GstCudaSemaphoreFence storage)
{
  params->params.fence.value = value;
}

static void
timeline_fill_wait (CUDA_EXTERNAL_SEMAPHORE_WAIT_PARAMS * params,
    guint64 value, const guint8 * fence, GstCudaSemaphoreFence storage)
{
  params->params.fence.value = value;
}

static void
timeline_signalled (GstCudaSemaphore * self, guint64 value,
    const GstCudaSemaphoreFence storage, guint8 * fence)
{
  self->last_value = self->last_signalled = value;
}

/* An event that completes once the semaphore has reached the last value
 * this object signalled (a wait on a private stream), so that destruction
 * waits for every signal. NULL if it could not be set up. */
static CUevent
wait_last_value (GstCudaSemaphore * self)
{
  CUstream stream = NULL;
  CUevent ev = NULL;
  CUresult r;

  if (!gst_cuda_context_push (self->context)) {
    GST_WARNING_OBJECT (self, "cannot push the CUDA context to wait for the "
        "last value: the context will be synchronised instead");
    return NULL;
  }
  r = GST_CUDA_SYNC_CALL (cuStreamCreate) (&stream, CU_STREAM_NON_BLOCKING);
  if (r == CUDA_SUCCESS)
    r = wait_last_signalled (self, stream);
  if (r == CUDA_SUCCESS)
    r = GST_CUDA_SYNC_CALL (cuEventCreate) (&ev, CU_EVENT_DISABLE_TIMING |
        CU_EVENT_BLOCKING_SYNC);
  if (r == CUDA_SUCCESS)
    r = GST_CUDA_SYNC_CALL (cuEventRecord) (ev, stream);
  if (r != CUDA_SUCCESS) {
    GST_WARNING_OBJECT (self, "cannot wait for the last value (%s): the "
        "context will be synchronised instead", _gst_cuda_sync_result_name (r));
    if (ev)
      GST_CUDA_SYNC_CALL (cuEventDestroy) (ev);
    ev = NULL;
  }
  /* released by the driver once its work is done */
  if (stream)
    GST_CUDA_SYNC_CALL (cuStreamDestroy) (stream);
  gst_cuda_context_pop (NULL);
  return ev;
}

/* signals record no event: wait for the last value */
static gboolean
timeline_pending_work (GstCudaSemaphore * self, GArray * events)
{
  CUevent ev;

  if (!self->has_signalled)
    return TRUE;
  ev = wait_last_value (self);
  if (!ev)
    return FALSE;
  g_array_append_val (events, ev);
  return TRUE;
}

const GstCudaSemaphoreTypeOps _gst_cuda_semaphore_timeline_ops = {
  .type = GST_CUDA_SEMAPHORE_HANDLE_TYPE_TIMELINE_FD,
  .enum_name = "GST_CUDA_SEMAPHORE_HANDLE_TYPE_TIMELINE_FD",
  .flag_name = "GST_CUDA_SEMAPHORE_HANDLE_TYPE_FLAG_TIMELINE_FD",
  .nick = "timeline-fd",
  .name = "timeline fd",
  .cu_type = CU_EXTERNAL_SEMAPHORE_HANDLE_TYPE_TIMELINE_SEMAPHORE_FD,
  .from_fd = TRUE,
  .timeline = TRUE,
  /* an event record per signal was a third of the library's cost per
   * signal */
  .signal_records_event = FALSE,
  .reserve_signal = timeline_reserve_signal,
  .order_signal = timeline_order_signal,
  .fill_signal = timeline_fill_signal,
  .fill_wait = timeline_fill_wait,
  .signalled = timeline_signalled,
  .pending_work = timeline_pending_work,
};

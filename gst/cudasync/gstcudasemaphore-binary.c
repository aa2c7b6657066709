/* gst-cudasync
 * Copyright (C) 2026 gst-cudasync developers
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * GstCudaSemaphore: binary semaphores (an opaque fd). One wait consumes one
 * signal: a signal waits for the wait that consumed the previous one, and
 * the object refuses a second signal before the first was waited for.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstcudasemaphore-private.h"

static gboolean
binary_reserve_signal (GstCudaSemaphore * self, guint64 * value,
    GError ** error)
{
  if (self->binary_pending) {
    g_set_error (error, GST_CUDA_SYNC_ERROR, GST_CUDA_SYNC_ERROR_PROTOCOL,
        "Binary semaphore signalled again before its previous signal was "
        "waited for (a binary semaphore allows one signal in flight; use a "
        "timeline semaphore for more)");
    return FALSE;
  }
  *value = 0;
  return TRUE;
}

/* after the previous signal when it was enqueued on another stream, and
 * after the wait that consumed it (one wait per signal, in GPU order
 * too) */
static gboolean
binary_order_signal (GstCudaSemaphore * self, CUstream stream, GError ** error)
{
  if (self->has_signalled && !_gst_cuda_semaphore_order_after (self, stream,
          self->last_signal_stream, error))
    return FALSE;
  if (self->has_waited && !_gst_cuda_semaphore_order_after (self, stream,
          self->last_wait_stream, error))
    return FALSE;
  return TRUE;
}

static void
binary_fill_signal (CUDA_EXTERNAL_SEMAPHORE_SIGNAL_PARAMS * params,
    guint64 value, GstCudaSemaphoreFence storage)
{
  params->params.fence.value = value;
}

static void
binary_fill_wait (CUDA_EXTERNAL_SEMAPHORE_WAIT_PARAMS * params,
    guint64 value, const guint8 * fence, GstCudaSemaphoreFence storage)
{
  params->params.fence.value = value;
}

static void
binary_signalled (GstCudaSemaphore * self, guint64 value,
    const GstCudaSemaphoreFence storage, guint8 * fence)
{
  self->binary_pending = TRUE;
}

static void
binary_waited (GstCudaSemaphore * self)
{
  self->binary_pending = FALSE;
}

const GstCudaSemaphoreTypeOps _gst_cuda_semaphore_binary_ops = {
  .type = GST_CUDA_SEMAPHORE_HANDLE_TYPE_OPAQUE_FD,
  .enum_name = "GST_CUDA_SEMAPHORE_HANDLE_TYPE_OPAQUE_FD",
  .flag_name = "GST_CUDA_SEMAPHORE_HANDLE_TYPE_FLAG_OPAQUE_FD",
  .nick = "opaque-fd",
  .name = "binary opaque fd",
  .cu_type = CU_EXTERNAL_SEMAPHORE_HANDLE_TYPE_OPAQUE_FD,
  .from_fd = TRUE,
  .one_wait_per_signal = TRUE,
  .signal_records_event = TRUE,
  .reserve_signal = binary_reserve_signal,
  .order_signal = binary_order_signal,
  .fill_signal = binary_fill_signal,
  .fill_wait = binary_fill_wait,
  .signalled = binary_signalled,
  .waited = binary_waited,
};

/* gst-cudasync
 * Copyright (C) 2026 gst-cudasync developers
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * GstCudaSemaphore: NvSciSync semaphores (an NvSciSyncObj). Signals write
 * an NvSciSyncFence and waits read one; consecutive signals on different
 * streams are ordered with an event, so that deterministic fence values
 * (+1 per signal) are reached in order; the skip-nvscibuf-memsync setting
 * becomes the driver's flags.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstcudasemaphore-private.h"
#include <string.h>

static gboolean
nvsci_order_signal (GstCudaSemaphore * self, CUstream stream, GError ** error)
{
  if (!self->has_signalled)
    return TRUE;
  return _gst_cuda_semaphore_order_after (self, stream,
      self->last_signal_stream, error);
}

/* flags of a signal or wait */
static guint
nvsci_op_flags (GstCudaSemaphore * self, OpKind kind, GstCudaSyncFlags flags)
{
  if (!(flags & GST_CUDA_SYNC_FLAG_SKIP_NVSCIBUF_MEMSYNC) &&
      !self->skip_nvscibuf_memsync)
    return 0;
  return kind == OP_SIGNAL ?
      CUDA_EXTERNAL_SEMAPHORE_SIGNAL_SKIP_NVSCIBUF_MEMSYNC :
      CUDA_EXTERNAL_SEMAPHORE_WAIT_SKIP_NVSCIBUF_MEMSYNC;
}

/* the driver writes the fence here, during the call */
static void
nvsci_fill_signal (CUDA_EXTERNAL_SEMAPHORE_SIGNAL_PARAMS * params,
    guint64 value, GstCudaSemaphoreFence storage)
{
  params->params.nvSciSync.fence = storage;
}

/* the driver reads the fence during the call */
static void
nvsci_fill_wait (CUDA_EXTERNAL_SEMAPHORE_WAIT_PARAMS * params,
    guint64 value, const guint8 * fence, GstCudaSemaphoreFence storage)
{
  memcpy (storage, fence, GST_CUDA_NVSCI_FENCE_SIZE);
  params->params.nvSciSync.fence = storage;
}

/* the driver answers CUDA_ERROR_NOT_SUPPORTED when the NvSciSyncObj lacks
 * the permission */
static void
nvsci_op_failed (CUresult r, OpKind kind, GError ** error)
{
  const gchar *call = kind == OP_SIGNAL ? "cuSignalExternalSemaphoresAsync" :
      "cuWaitExternalSemaphoresAsync";
  GError *err = NULL;

  _gst_cuda_sync_result (r, call, &err);
  if (r == CUDA_ERROR_NOT_SUPPORTED) {
    g_set_error (error, GST_CUDA_SYNC_ERROR, GST_CUDA_SYNC_ERROR_NOT_SUPPORTED,
        "%s: the NvSciSync object has no %s permission for this CUDA device "
        "(allocate it from an attribute list filled by "
        "cuDeviceGetNvSciSyncAttributes with %s)", err->message,
        kind == OP_SIGNAL ? "signal" : "wait", kind == OP_SIGNAL ?
        "CUDA_NVSCISYNC_ATTR_SIGNAL" : "CUDA_NVSCISYNC_ATTR_WAIT");
    g_error_free (err);
  } else {
    g_propagate_error (error, err);
  }
}

/* the value counts the signals enqueued */
static void
nvsci_signalled (GstCudaSemaphore * self, guint64 value,
    const GstCudaSemaphoreFence storage, guint8 * fence)
{
  self->last_value++;
  memcpy (fence, storage, GST_CUDA_NVSCI_FENCE_SIZE);
}

const GstCudaSemaphoreTypeOps _gst_cuda_semaphore_nvsci_ops = {
  .type = GST_CUDA_SEMAPHORE_HANDLE_TYPE_NVSCISYNC,
  .enum_name = "GST_CUDA_SEMAPHORE_HANDLE_TYPE_NVSCISYNC",
  .flag_name = "GST_CUDA_SEMAPHORE_HANDLE_TYPE_FLAG_NVSCISYNC",
  .nick = "nvscisync",
  .name = "NvSciSync",
  .cu_type = CU_EXTERNAL_SEMAPHORE_HANDLE_TYPE_NVSCISYNC,
  .fences = TRUE,
  .signal_records_event = TRUE,
  .order_signal = nvsci_order_signal,
  .op_flags = nvsci_op_flags,
  .fill_signal = nvsci_fill_signal,
  .fill_wait = nvsci_fill_wait,
  .op_failed = nvsci_op_failed,
  .signalled = nvsci_signalled,
};

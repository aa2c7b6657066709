/* gst-cudasync
 * Copyright (C) 2026 gst-cudasync developers
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * GstCudaSemaphore: signals and waits of NvSciSync fences, the API of the
 * semaphores whose handle type signals and waits through fences.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstcudasemaphore-private.h"

static gboolean
fence_is_cleared (const guint8 * fence)
{
  guint i;

  for (i = 0; i < GST_CUDA_NVSCI_FENCE_SIZE; i++) {
    if (fence[i])
      return FALSE;
  }
  return TRUE;
}

/**
 * gst_cuda_semaphore_signal_nvsci_full:
 * @sem: an NvSciSync #GstCudaSemaphore
 * @stream: (type gpointer): the CUDA stream (%NULL: legacy default stream)
 * @fence: (array fixed-size=48): storage for an `NvSciSyncFence`, cleared
 * @flags: #GstCudaSyncFlags
 * @error: return location for a #GError
 *
 * gst_cuda_semaphore_signal_nvsci() with @flags.
 *
 * Returns: %TRUE if the signal was enqueued
 *
 * Since: 0.2
 */
gboolean
gst_cuda_semaphore_signal_nvsci_full (GstCudaSemaphore * sem,
    CUstream stream, guint8 * fence, GstCudaSyncFlags flags, GError ** error)
{
  gboolean ret;

  g_return_val_if_fail (GST_IS_CUDA_SEMAPHORE (sem), FALSE);
  g_return_val_if_fail (fence != NULL, FALSE);

  if (!_gst_cuda_semaphore_check_fences (sem, TRUE, error))
    return FALSE;
  if (!fence_is_cleared (fence)) {
    g_set_error (error, GST_CUDA_SYNC_ERROR, GST_CUDA_SYNC_ERROR_PROTOCOL,
        "The fence storage passed to the NvSciSync signal holds a fence: the "
        "driver would overwrite it and leak the reference it holds (clear it "
        "with NvSciSyncFenceClear() or zero it first)");
    return FALSE;
  }

  g_mutex_lock (&sem->op_lock);
  ret = _gst_cuda_semaphore_enqueue_locked (sem, OP_SIGNAL, stream, 0, fence,
      flags, error);
  g_mutex_unlock (&sem->op_lock);
  return ret;
}

/**
 * gst_cuda_semaphore_wait_nvsci_full:
 * @sem: an NvSciSync #GstCudaSemaphore
 * @stream: (type gpointer): the CUDA stream (%NULL: legacy default stream)
 * @fence: (array fixed-size=48): an `NvSciSyncFence`
 * @flags: #GstCudaSyncFlags
 * @error: return location for a #GError
 *
 * gst_cuda_semaphore_wait_nvsci() with @flags.
 *
 * Returns: %TRUE if the wait was enqueued
 *
 * Since: 0.2
 */
gboolean
gst_cuda_semaphore_wait_nvsci_full (GstCudaSemaphore * sem, CUstream stream,
    const guint8 * fence, GstCudaSyncFlags flags, GError ** error)
{
  gboolean ret;

  g_return_val_if_fail (GST_IS_CUDA_SEMAPHORE (sem), FALSE);
  g_return_val_if_fail (fence != NULL, FALSE);

  if (!_gst_cuda_semaphore_check_fences (sem, TRUE, error))
    return FALSE;

  g_mutex_lock (&sem->op_lock);
  ret = _gst_cuda_semaphore_enqueue_locked (sem, OP_WAIT, stream, 0,
      (guint8 *) fence, flags, error);
  g_mutex_unlock (&sem->op_lock);
  return ret;
}

/**
 * gst_cuda_semaphore_signal_nvsci:
 * @sem: an NvSciSync #GstCudaSemaphore
 * @stream: (type gpointer): the CUDA stream (%NULL: legacy default stream)
 * @fence: (array fixed-size=48): storage for an `NvSciSyncFence`, cleared
 *   (all zero: `NvSciSyncFenceInitializer`, or after `NvSciSyncFenceClear()`)
 * @error: return location for a #GError
 *
 * Enqueues an NvSciSync signal on @stream, after all work already enqueued
 * there. The driver writes into @fence, during this call, the fence that
 * expires when the signal executes; the caller owns that fence and must
 * release it with `NvSciSyncFenceClear()` (or hand it to a #GstCudaSyncMeta
 * with gst_cuda_sync_meta_add_acquire_nvsci_fence(), which then owns it).
 * Since the driver overwrites @fence, storage that still holds a fence is
 * refused (%GST_CUDA_SYNC_ERROR_PROTOCOL) rather than leaking the reference
 * the old fence holds.
 *
 * Signals of one semaphore execute in enqueue order, also across streams
 * (a signal on another stream than the previous one is ordered after it
 * with an event), as deterministic fences require: the n-th signal's fence
 * has value n, and must not be reached before the (n-1)-th.
 *
 * An NvSciSync object allocated without CUDA signal permission fails with
 * %GST_CUDA_SYNC_ERROR_NOT_SUPPORTED (the driver's
 * `CUDA_ERROR_NOT_SUPPORTED`), and @fence stays cleared. With
 * #GstCudaSemaphore:skip-nvscibuf-memsync the signal passes
 * `CUDA_EXTERNAL_SEMAPHORE_SIGNAL_SKIP_NVSCIBUF_MEMSYNC`.
 *
 * Returns: %TRUE if the signal was enqueued
 *
 * Since: 0.1
 */
gboolean
gst_cuda_semaphore_signal_nvsci (GstCudaSemaphore * sem, CUstream stream,
    guint8 fence[GST_CUDA_NVSCI_FENCE_SIZE], GError ** error)
{
  g_return_val_if_fail (GST_IS_CUDA_SEMAPHORE (sem), FALSE);
  g_return_val_if_fail (fence != NULL, FALSE);

  return gst_cuda_semaphore_signal_nvsci_full (sem, stream, fence,
      GST_CUDA_SYNC_FLAG_NONE, error);
}

/**
 * gst_cuda_semaphore_wait_nvsci:
 * @sem: an NvSciSync #GstCudaSemaphore
 * @stream: (type gpointer): the CUDA stream that must wait
 * @fence: (array fixed-size=48): the `NvSciSyncFence` to wait for (read
 *   during the call; a cleared fence has expired and waits for nothing)
 * @error: return location for a #GError
 *
 * Enqueues a GPU-side wait for an NvSciSync fence. An NvSciSync object
 * allocated without CUDA wait permission fails with
 * %GST_CUDA_SYNC_ERROR_NOT_SUPPORTED. With
 * #GstCudaSemaphore:skip-nvscibuf-memsync the wait passes
 * `CUDA_EXTERNAL_SEMAPHORE_WAIT_SKIP_NVSCIBUF_MEMSYNC`.
 *
 * Returns: %TRUE if the wait was enqueued
 *
 * Since: 0.1
 */
gboolean
gst_cuda_semaphore_wait_nvsci (GstCudaSemaphore * sem, CUstream stream,
    const guint8 fence[GST_CUDA_NVSCI_FENCE_SIZE], GError ** error)
{
  g_return_val_if_fail (GST_IS_CUDA_SEMAPHORE (sem), FALSE);
  g_return_val_if_fail (fence != NULL, FALSE);

  return gst_cuda_semaphore_wait_nvsci_full (sem, stream, fence,
      GST_CUDA_SYNC_FLAG_NONE, error);
}

/* gst-cudasync
 * Copyright (C) 2026 gst-cudasync developers
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * GstCudaSemaphore: NvSciSync signals and waits (fences), and the
 * skip-nvscibuf-memsync setting.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstcudasemaphore-private.h"
#include <string.h>

#define GST_CAT_DEFAULT gst_cuda_semaphore_debug

/* A signal or wait on an NvSciSync semaphore failed: the driver answers
 * CUDA_ERROR_NOT_SUPPORTED when the NvSciSyncObj lacks the permission */
void
_gst_cuda_semaphore_nvsci_op_failed (CUresult r, OpKind kind, GError ** error)
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

/* flags of a signal or wait: only NvSciSync semaphores take any */
static guint
op_flags_locked (GstCudaSemaphore * self, OpKind kind, gboolean skip_memsync)
{
  if (self->type != GST_CUDA_SEMAPHORE_HANDLE_TYPE_NVSCISYNC)
    return 0;
  if (!skip_memsync && !self->skip_nvscibuf_memsync)
    return 0;
  return kind == OP_SIGNAL ?
      CUDA_EXTERNAL_SEMAPHORE_SIGNAL_SKIP_NVSCIBUF_MEMSYNC :
      CUDA_EXTERNAL_SEMAPHORE_WAIT_SKIP_NVSCIBUF_MEMSYNC;
}

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
  gboolean skip_memsync = (flags & GST_CUDA_SYNC_FLAG_SKIP_NVSCIBUF_MEMSYNC);
  gboolean ret;

  g_return_val_if_fail (GST_IS_CUDA_SEMAPHORE (sem), FALSE);
  g_return_val_if_fail (fence != NULL, FALSE);

  if (!_gst_cuda_semaphore_check_nvsci (sem, TRUE, error))
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
      op_flags_locked (sem, OP_SIGNAL, skip_memsync), error);
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
  gboolean skip_memsync = (flags & GST_CUDA_SYNC_FLAG_SKIP_NVSCIBUF_MEMSYNC);
  gboolean ret;

  g_return_val_if_fail (GST_IS_CUDA_SEMAPHORE (sem), FALSE);
  g_return_val_if_fail (fence != NULL, FALSE);

  if (!_gst_cuda_semaphore_check_nvsci (sem, TRUE, error))
    return FALSE;

  g_mutex_lock (&sem->op_lock);
  ret = _gst_cuda_semaphore_enqueue_locked (sem, OP_WAIT, stream, 0,
      (guint8 *) fence, op_flags_locked (sem, OP_WAIT, skip_memsync), error);
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
      GST_CUDA_SYNC_FLAG_NONE,
      error);
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
      GST_CUDA_SYNC_FLAG_NONE,
      error);
}

/**
 * gst_cuda_semaphore_set_skip_nvscibuf_memsync:
 * @sem: a #GstCudaSemaphore
 * @skip: whether to skip NvSciBuf memory synchronisation
 *
 * For NvSciSync semaphores: when @skip is %TRUE, every later signal passes
 * `CUDA_EXTERNAL_SEMAPHORE_SIGNAL_SKIP_NVSCIBUF_MEMSYNC` and every later
 * wait `CUDA_EXTERNAL_SEMAPHORE_WAIT_SKIP_NVSCIBUF_MEMSYNC`: the driver then
 * does not make NvSciBuf memory imported into CUDA coherent with the other
 * importers at the signal or wait. Use it only when the semaphore orders
 * work without NvSciBuf data being shared through it (a control
 * dependency); with shared NvSciBuf data the result is undefined (cuda.h).
 * Data in #GstCudaMemory is not NvSciBuf memory.
 *
 * Other handle types take no flags; for them this setting is stored but has
 * no effect.
 *
 * Since: 0.1
 */
void
gst_cuda_semaphore_set_skip_nvscibuf_memsync (GstCudaSemaphore * sem,
    gboolean skip)
{
  gboolean changed;

  g_return_if_fail (GST_IS_CUDA_SEMAPHORE (sem));

  g_mutex_lock (&sem->op_lock);
  changed = sem->skip_nvscibuf_memsync != ! !skip;
  sem->skip_nvscibuf_memsync = ! !skip;
  g_mutex_unlock (&sem->op_lock);
  if (changed)
    g_object_notify (G_OBJECT (sem), "skip-nvscibuf-memsync");
}

/**
 * gst_cuda_semaphore_get_skip_nvscibuf_memsync:
 * @sem: a #GstCudaSemaphore
 *
 * Gets the #GstCudaSemaphore:skip-nvscibuf-memsync property.
 *
 * Returns: the value set with gst_cuda_semaphore_set_skip_nvscibuf_memsync()
 *
 * Since: 0.1
 */
gboolean
gst_cuda_semaphore_get_skip_nvscibuf_memsync (GstCudaSemaphore * sem)
{
  gboolean skip;

  g_return_val_if_fail (GST_IS_CUDA_SEMAPHORE (sem), FALSE);

  g_mutex_lock (&sem->op_lock);
  skip = sem->skip_nvscibuf_memsync;
  g_mutex_unlock (&sem->op_lock);
  return skip;
}

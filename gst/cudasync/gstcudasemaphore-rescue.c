/* gst-cudasync
 * Copyright (C) 2026 gst-cudasync developers
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * gst_cuda_semaphore_rescue(): a signal from outside the semaphore's
 * context. A context's streams reach the GPU through a few hardware
 * queues, each run in enqueue order; a rescue enqueued on any stream of
 * the context that waits may sit behind the very wait it is meant to end.
 * Another context has queues of its own: the library keeps one per
 * device, created at the first rescue and kept for the process's life.
 * Locks: rescue_lock, then the registry lock; a semaphore's op_lock
 * alone (never with rescue_lock).
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstcudasemaphore-private.h"
#include <unistd.h>

static GMutex rescue_lock;
/* device id -> GstCudaContext, owned */
static GHashTable *rescue_contexts;

static GstCudaContext *
rescue_context (guint device, GError ** error)
{
  GstCudaContext *ctx;

  g_mutex_lock (&rescue_lock);
  if (!rescue_contexts)
    rescue_contexts = g_hash_table_new (NULL, NULL);
  ctx = g_hash_table_lookup (rescue_contexts, GUINT_TO_POINTER (device));
  if (!ctx) {
    ctx = gst_cuda_context_new (device);
    if (ctx)
      g_hash_table_insert (rescue_contexts, GUINT_TO_POINTER (device), ctx);
  }
  if (ctx)
    gst_object_ref (ctx);
  g_mutex_unlock (&rescue_lock);
  if (!ctx)
    g_set_error (error, GST_CUDA_SYNC_ERROR, GST_CUDA_SYNC_ERROR_DRIVER,
        "Could not create a CUDA context on device %u for a rescue", device);
  return ctx;
}

/* enqueues @sem's signal of @value on a new stream of its context and
 * waits for it */
static gboolean
signal_and_wait (GstCudaSemaphore * sem, guint64 value, GError ** error)
{
  CUstream stream = NULL;
  CUresult r;
  gboolean ret;

  if (!gst_cuda_context_push (sem->context)) {
    g_set_error (error, GST_CUDA_SYNC_ERROR, GST_CUDA_SYNC_ERROR_DRIVER,
        "Could not make the CUDA context current");
    return FALSE;
  }
  r = GST_CUDA_SYNC_CALL (cuStreamCreate) (&stream, CU_STREAM_NON_BLOCKING);
  ret = _gst_cuda_sync_result (r, "cuStreamCreate", error) &&
      gst_cuda_semaphore_signal_value (sem, stream, value, error);
  if (ret) {
    r = GST_CUDA_SYNC_CALL (cuStreamSynchronize) (stream);
    ret = _gst_cuda_sync_result (r, "cuStreamSynchronize", error);
  }
  if (stream)
    GST_CUDA_SYNC_CALL (cuStreamDestroy) (stream);
  gst_cuda_context_pop (NULL);
  return ret;
}

gboolean
gst_cuda_semaphore_rescue (GstCudaSemaphore * sem, guint64 value,
    GError ** error)
{
  GstCudaSemaphore *other;
  GstCudaContext *ctx;
  guint device = 0;
  gboolean ret;
  gint fd;

  g_return_val_if_fail (GST_IS_CUDA_SEMAPHORE (sem), FALSE);

  if (!gst_cuda_semaphore_is_timeline (sem) ||
      (fd = _gst_cuda_semaphore_registry_dup_fd (sem)) < 0) {
    g_set_error (error, GST_CUDA_SYNC_ERROR, GST_CUDA_SYNC_ERROR_NOT_SUPPORTED,
        "Only a timeline semaphore imported from an fd can be rescued");
    return FALSE;
  }
  g_mutex_lock (&sem->op_lock);
  ret = _gst_cuda_semaphore_check_next_locked (sem, value, error);
  g_mutex_unlock (&sem->op_lock);
  if (!ret) {
    close (fd);
    return FALSE;
  }
  g_object_get (sem->context, "cuda-device-id", &device, NULL);
  ctx = rescue_context (device, error);
  other = ctx ? _gst_cuda_semaphore_import_unregistered (ctx, sem->ops, fd,
      error) : NULL;
  if (!other)
    close (fd);
  ret = other && signal_and_wait (other, value, error);
  if (ret)
    gst_cuda_semaphore_advance_to (sem, value);
  gst_clear_object (&other);
  gst_clear_object (&ctx);
  return ret;
}

/* gst-cudasync
 * Copyright (C) 2026 gst-cudasync developers
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * GstCudaSyncMeta: the acquire and release points of a GPU buffer.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstcudasemaphore-private.h"
#include <string.h>

GST_DEBUG_CATEGORY_STATIC (gst_cuda_sync_meta_debug);
#define GST_CAT_DEFAULT gst_cuda_sync_meta_debug

/* A point shared by every copy of a meta. */
typedef struct
{
  gint refcount;
  GstCudaSemaphore *sem;
  guint64 value;
  gboolean has_fence;
  /* an NvSciSyncFence (uint64_t payload[6]): 8-byte aligned, so that hooks
   * may use it as an NvSciSyncFence */
  guint64 fence_storage[GST_CUDA_NVSCI_FENCE_SIZE / 8];

  GMutex lock;
  /* acquire, binary: the one wait has been enqueued (or done externally) */
  gboolean consumed;
  /* acquire, binary: recorded after that wait, so further waiters (copies)
   * order after it instead of waiting on the semaphore a second time */
  CUevent waited_event;
  /* release: signalled */
  gboolean is_release;
  gboolean released;
} SyncPoint;

G_LOCK_DEFINE_STATIC (fence_clear);
static GstCudaSyncNvSciFenceClearFunc fence_clear_func = NULL;
static gpointer fence_clear_data = NULL;

/**
 * gst_cuda_sync_set_nvsci_fence_clear_func:
 * @func: (scope forever) (nullable): the hook, or %NULL
 * @user_data: data for @func
 *
 * Installs the hook that releases `NvSciSyncFence`s stored in metas (see
 * #GstCudaSyncNvSciFenceClearFunc), process-wide. An application that uses
 * NvSciSync semaphores installs it before the first fence is stored, for
 * example with gst_cuda_nvsci_fence_clear() when the library was built with
 * libnvscisync, or with its own function calling `NvSciSyncFenceClear()`.
 * The hook is called once for each fence, when the last copy of the meta
 * holding it is freed, from whichever thread frees it. Without a hook,
 * fences are only zeroed, which leaks the reference each one holds to its
 * NvSciSync object (a warning is logged once).
 *
 * Since: 0.1
 */
void
gst_cuda_sync_set_nvsci_fence_clear_func (GstCudaSyncNvSciFenceClearFunc func,
    gpointer user_data)
{
  G_LOCK (fence_clear);
  fence_clear_func = func;
  fence_clear_data = user_data;
  G_UNLOCK (fence_clear);
}

/* Releases a fence the meta owned: exactly once per fence (the point holding
 * it is shared by every copy of the meta and freed once). */
static void
clear_fence (guint8 * fence)
{
  GstCudaSyncNvSciFenceClearFunc func;
  gpointer data;
  static gsize warned = 0;

  G_LOCK (fence_clear);
  func = fence_clear_func;
  data = fence_clear_data;
  G_UNLOCK (fence_clear);

  if (func) {
    func (fence, data);
  } else if (g_once_init_enter (&warned)) {
    GST_WARNING ("NvSciSync fence released without a clear hook "
        "(gst_cuda_sync_set_nvsci_fence_clear_func): the reference it holds "
        "leaks");
    g_once_init_leave (&warned, 1);
  }
  memset (fence, 0, GST_CUDA_NVSCI_FENCE_SIZE);
}

static SyncPoint *
point_new (GstCudaSemaphore * sem, guint64 value, const guint8 * fence)
{
  SyncPoint *p = g_new0 (SyncPoint, 1);

  p->refcount = 1;
  p->sem = gst_object_ref (sem);
  p->value = value;
  if (fence) {
    p->has_fence = TRUE;
    memcpy (p->fence_storage, fence, GST_CUDA_NVSCI_FENCE_SIZE);
  }
  g_mutex_init (&p->lock);
  return p;
}

static SyncPoint *
point_ref (SyncPoint * p)
{
  g_atomic_int_inc (&p->refcount);
  return p;
}

static void
point_unref (gpointer data)
{
  SyncPoint *p = data;
  GError *err = NULL;

  if (!g_atomic_int_dec_and_test (&p->refcount))
    return;

  if (p->is_release && !p->released) {
    /* Nobody signalled the release point: the last reader is gone. Signal on
     * the legacy default stream, which runs after all work already enqueued
     * on the context's blocking streams (the readers'). */
    if (!gst_cuda_semaphore_signal_value (p->sem, NULL, p->value, &err)) {
      GST_WARNING ("could not signal release point: %s", err->message);
      g_clear_error (&err);
    }
  } else if (!p->is_release && !p->consumed &&
      _gst_cuda_semaphore_one_wait_per_signal (p->sem)) {
    /* Exactly one wait per binary signal: consume it on the GPU. */
    GST_DEBUG ("consuming unwaited binary acquire point");
    if (!gst_cuda_semaphore_wait (p->sem, NULL, 0, &err)) {
      GST_WARNING ("could not consume binary acquire point: %s", err->message);
      g_clear_error (&err);
    }
  }

  if (p->waited_event) {
    /* destroying a pending event is allowed: released when it completes */
    if (gst_cuda_context_push (gst_cuda_semaphore_get_context (p->sem))) {
      GST_CUDA_SYNC_CALL (cuEventDestroy) (p->waited_event);
      gst_cuda_context_pop (NULL);
    }
  }

  /* after the waits that read it were enqueued: the driver reads a fence
   * during the wait call */
  if (p->has_fence)
    clear_fence ((guint8 *) p->fence_storage);

  gst_object_unref (p->sem);
  g_mutex_clear (&p->lock);
  g_free (p);
}

static gboolean
gst_cuda_sync_meta_init (GstMeta * meta, gpointer params, GstBuffer * buffer)
{
  GstCudaSyncMeta *smeta = (GstCudaSyncMeta *) meta;

  smeta->acquire = g_ptr_array_new_with_free_func (point_unref);
  smeta->release = NULL;
  return TRUE;
}

static void
gst_cuda_sync_meta_free (GstMeta * meta, GstBuffer * buffer)
{
  GstCudaSyncMeta *smeta = (GstCudaSyncMeta *) meta;

  g_ptr_array_unref (smeta->acquire);
  if (smeta->release)
    point_unref (smeta->release);
  smeta->acquire = NULL;
  smeta->release = NULL;
}

static gboolean
gst_cuda_sync_meta_transform (GstBuffer * dest, GstMeta * meta,
    GstBuffer * buffer, GQuark type, gpointer data)
{
  GstCudaSyncMeta *smeta = (GstCudaSyncMeta *) meta;
  GstCudaSyncMeta *dmeta;
  guint i;

  if (!GST_META_TRANSFORM_IS_COPY (type))
    return FALSE;

  /* Only a copy of the whole data keeps the synchronisation points valid,
   * as with GstGLSyncMeta. */
  if (((GstMetaTransformCopy *) data)->region)
    return TRUE;

  dmeta = gst_buffer_get_cuda_sync_meta (dest);
  if (!dmeta)
    dmeta = gst_buffer_add_cuda_sync_meta (dest);
  if (!dmeta)
    return FALSE;

  for (i = 0; i < smeta->acquire->len; i++)
    g_ptr_array_add (dmeta->acquire,
        point_ref (g_ptr_array_index (smeta->acquire, i)));
  if (smeta->release && !dmeta->release)
    dmeta->release = point_ref (smeta->release);

  return TRUE;
}

/**
 * gst_cuda_sync_meta_api_get_type:
 *
 * Registers the #GstCudaSyncMeta API once.
 *
 * Returns: the #GType of the #GstCudaSyncMeta API (tagged `memory`)
 *
 * Since: 0.1
 */
GType
gst_cuda_sync_meta_api_get_type (void)
{
  static GType type = 0;
  static const gchar *tags[] = { GST_META_TAG_MEMORY_STR, NULL };

  if (g_once_init_enter (&type)) {
    GType t = gst_meta_api_type_register ("GstCudaSyncMetaAPI", tags);
    g_once_init_leave (&type, t);
  }
  return type;
}

/**
 * gst_cuda_sync_meta_get_info:
 *
 * Registers the #GstCudaSyncMeta implementation once.
 *
 * Returns: (transfer none): the #GstMetaInfo of #GstCudaSyncMeta
 *
 * Since: 0.1
 */
const GstMetaInfo *
gst_cuda_sync_meta_get_info (void)
{
  static const GstMetaInfo *info = NULL;

  if (g_once_init_enter ((GstMetaInfo **) & info)) {
    const GstMetaInfo *mi = gst_meta_register (GST_CUDA_SYNC_META_API_TYPE,
        "GstCudaSyncMeta", sizeof (GstCudaSyncMeta),
        gst_cuda_sync_meta_init, gst_cuda_sync_meta_free,
        gst_cuda_sync_meta_transform);
    GST_DEBUG_CATEGORY_INIT (gst_cuda_sync_meta_debug, "cudasyncmeta", 0,
        "GstCudaSyncMeta");
    g_once_init_leave ((GstMetaInfo **) & info, (GstMetaInfo *) mi);
  }
  return info;
}

/**
 * gst_buffer_add_cuda_sync_meta:
 * @buffer: a #GstBuffer
 *
 * Adds an empty #GstCudaSyncMeta to @buffer.
 *
 * Returns: (transfer none): the new meta
 *
 * Since: 0.1
 */
GstCudaSyncMeta *
gst_buffer_add_cuda_sync_meta (GstBuffer * buffer)
{
  g_return_val_if_fail (GST_IS_BUFFER (buffer), NULL);
  return (GstCudaSyncMeta *) gst_buffer_add_meta (buffer,
      GST_CUDA_SYNC_META_INFO, NULL);
}

/**
 * gst_cuda_sync_meta_add_acquire:
 * @meta: a #GstCudaSyncMeta
 * @sem: a timeline or binary #GstCudaSemaphore
 * @value: the timeline value at which the data is ready (ignored for binary)
 *
 * Adds an acquire point: the data is ready once @sem reaches @value (or, for
 * a binary semaphore, once it is signalled; the signal must be consumed by
 * exactly one wait, which the meta guarantees).
 *
 * Since: 0.1
 */
void
gst_cuda_sync_meta_add_acquire (GstCudaSyncMeta * meta, GstCudaSemaphore * sem,
    guint64 value)
{
  g_return_if_fail (meta != NULL);
  g_return_if_fail (GST_IS_CUDA_SEMAPHORE (sem));
  g_return_if_fail (!_gst_cuda_semaphore_has_fences (sem));

  g_ptr_array_add (meta->acquire, point_new (sem, value, NULL));
}

/**
 * gst_cuda_sync_meta_add_acquire_nvsci_fence:
 * @meta: a #GstCudaSyncMeta
 * @sem: an NvSciSync #GstCudaSemaphore
 * @fence: (array fixed-size=48): the `NvSciSyncFence` that expires when the
 *   data is ready, for example the one gst_cuda_semaphore_signal_nvsci()
 *   wrote
 *
 * Adds an NvSciSync acquire point. The meta takes over @fence, and the
 * reference it holds: the 48 bytes are copied, the caller must not clear
 * its copy afterwards (to keep a fence of its own, `NvSciSyncFenceDup()`
 * it first). The fence is shared by all copies of the meta and cleared
 * exactly once, through the hook set with
 * gst_cuda_sync_set_nvsci_fence_clear_func(), when the last copy is freed.
 *
 * Since: 0.1
 */
void
gst_cuda_sync_meta_add_acquire_nvsci_fence (GstCudaSyncMeta * meta,
    GstCudaSemaphore * sem, const guint8 fence[GST_CUDA_NVSCI_FENCE_SIZE])
{
  g_return_if_fail (meta != NULL);
  g_return_if_fail (GST_IS_CUDA_SEMAPHORE (sem));
  g_return_if_fail (fence != NULL);
  g_return_if_fail (_gst_cuda_semaphore_has_fences (sem));

  g_ptr_array_add (meta->acquire, point_new (sem, 0, fence));
}

/**
 * gst_cuda_sync_meta_get_n_acquire:
 * @meta: a #GstCudaSyncMeta
 *
 * Counts the acquire points of @meta, timeline, binary and NvSciSync alike.
 *
 * Returns: the number of acquire points
 *
 * Since: 0.1
 */
guint
gst_cuda_sync_meta_get_n_acquire (GstCudaSyncMeta * meta)
{
  g_return_val_if_fail (meta != NULL, 0);
  return meta->acquire->len;
}

/**
 * gst_cuda_sync_meta_clear_acquire:
 * @meta: a #GstCudaSyncMeta
 *
 * Drops every acquire point. For a producer that ordered new work after
 * them on the GPU (it waited for them on its stream, then signalled a new
 * point): its own acquire point implies the old ones, so consumers need not
 * wait for them again. A binary point that nobody waited for is still
 * consumed on the GPU when its last copy goes away. The release point stays.
 *
 * Since: 0.1
 */
void
gst_cuda_sync_meta_clear_acquire (GstCudaSyncMeta * meta)
{
  g_return_if_fail (meta != NULL);
  g_ptr_array_set_size (meta->acquire, 0);
}

/**
 * gst_cuda_sync_meta_get_acquire:
 * @meta: a #GstCudaSyncMeta
 * @idx: index of the acquire point
 * @value: (out) (optional): its timeline value
 *
 * Gets acquire point @idx, for consumers that wait themselves (then
 * gst_cuda_sync_meta_mark_acquired()).
 *
 * Returns: (transfer none) (nullable): the semaphore of acquire point @idx
 *
 * Since: 0.1
 */
GstCudaSemaphore *
gst_cuda_sync_meta_get_acquire (GstCudaSyncMeta * meta, guint idx,
    guint64 * value)
{
  SyncPoint *p;

  g_return_val_if_fail (meta != NULL, NULL);
  if (idx >= meta->acquire->len)
    return NULL;
  p = g_ptr_array_index (meta->acquire, idx);
  if (value)
    *value = p->value;
  return p->sem;
}

/**
 * gst_cuda_sync_meta_get_acquire_nvsci_fence:
 * @meta: a #GstCudaSyncMeta
 * @idx: index of the acquire point
 * @fence: (out caller-allocates) (array fixed-size=48): the fence
 *
 * Copies the fence of an NvSciSync acquire point, for a consumer that waits
 * outside CUDA (`NvSciSyncFenceWait()`, or an NvSciSync-capable engine).
 * The copy is borrowed: it is valid while the buffer (the meta) is alive,
 * and must not be cleared; `NvSciSyncFenceDup()` it to keep it longer.
 *
 * Returns: %TRUE if acquire point @idx is an NvSciSync fence
 *
 * Since: 0.1
 */
gboolean
gst_cuda_sync_meta_get_acquire_nvsci_fence (GstCudaSyncMeta * meta, guint idx,
    guint8 fence[GST_CUDA_NVSCI_FENCE_SIZE])
{
  SyncPoint *p;

  g_return_val_if_fail (meta != NULL, FALSE);
  if (idx >= meta->acquire->len)
    return FALSE;
  p = g_ptr_array_index (meta->acquire, idx);
  if (!p->has_fence)
    return FALSE;
  memcpy (fence, p->fence_storage, GST_CUDA_NVSCI_FENCE_SIZE);
  return TRUE;
}

/**
 * gst_cuda_sync_meta_set_release:
 * @meta: a #GstCudaSyncMeta
 * @sem: a timeline or binary #GstCudaSemaphore
 * @value: the timeline value to signal when the data is no longer read
 *
 * Sets the release point. It is signalled once: by the consumer with
 * gst_cuda_sync_meta_signal_release() after its reading work, or else on
 * the GPU when the last copy of the meta is freed.
 *
 * Since: 0.1
 */
void
gst_cuda_sync_meta_set_release (GstCudaSyncMeta * meta, GstCudaSemaphore * sem,
    guint64 value)
{
  SyncPoint *p;

  g_return_if_fail (meta != NULL);
  g_return_if_fail (GST_IS_CUDA_SEMAPHORE (sem));
  g_return_if_fail (!_gst_cuda_semaphore_has_fences (sem));

  p = point_new (sem, value, NULL);
  p->is_release = TRUE;
  if (meta->release)
    point_unref (meta->release);
  meta->release = p;
}

/**
 * gst_cuda_sync_meta_get_release:
 * @meta: a #GstCudaSyncMeta
 * @value: (out) (optional): the value to signal
 *
 * Gets the release point of @meta, if it has one.
 *
 * Returns: (transfer none) (nullable): the release semaphore
 *
 * Since: 0.1
 */
GstCudaSemaphore *
gst_cuda_sync_meta_get_release (GstCudaSyncMeta * meta, guint64 * value)
{
  SyncPoint *p;

  g_return_val_if_fail (meta != NULL, NULL);
  p = meta->release;
  if (!p)
    return NULL;
  if (value)
    *value = p->value;
  return p->sem;
}

static gboolean
point_wait_gpu (SyncPoint * p, CUstream stream, gboolean skip_memsync,
    GError ** error)
{
  gboolean ret = TRUE;
  CUresult r;

  if (p->has_fence)
    return gst_cuda_semaphore_wait_nvsci_full (p->sem, stream,
        (const guint8 *) p->fence_storage, skip_memsync ?
        GST_CUDA_SYNC_FLAG_SKIP_NVSCIBUF_MEMSYNC : GST_CUDA_SYNC_FLAG_NONE,
        error);
  if (!_gst_cuda_semaphore_one_wait_per_signal (p->sem))
    return gst_cuda_semaphore_wait (p->sem, stream, p->value, error);

  /* binary: one wait on the semaphore, later waiters order after it */
  g_mutex_lock (&p->lock);
  if (!p->consumed) {
    ret = gst_cuda_semaphore_wait (p->sem, stream, 0, error);
    if (ret) {
      p->consumed = TRUE;
      if (gst_cuda_context_push (gst_cuda_semaphore_get_context (p->sem))) {
        r = GST_CUDA_SYNC_CALL (cuEventCreate) (&p->waited_event,
            CU_EVENT_DISABLE_TIMING);
        if (r == CUDA_SUCCESS)
          r = GST_CUDA_SYNC_CALL (cuEventRecord) (p->waited_event, stream);
        gst_cuda_context_pop (NULL);
        if (r != CUDA_SUCCESS) {
          /* the wait is enqueued; only copies lose their ordering */
          GST_WARNING ("cannot record binary wait: %s",
              _gst_cuda_sync_result_name (r));
        }
      }
    }
  } else if (p->waited_event) {
    if (gst_cuda_context_push (gst_cuda_semaphore_get_context (p->sem))) {
      r = GST_CUDA_SYNC_CALL (cuStreamWaitEvent) (stream, p->waited_event, 0);
      gst_cuda_context_pop (NULL);
      ret = _gst_cuda_sync_result (r, "cuStreamWaitEvent", error);
    }
  }
  g_mutex_unlock (&p->lock);
  return ret;
}

/**
 * gst_cuda_sync_meta_wait_gpu:
 * @meta: a #GstCudaSyncMeta
 * @stream: (type gpointer): a CUDA stream of the semaphores' context
 *   (%NULL: the legacy default stream, after which every later work of the
 *   context's blocking streams is ordered)
 * @error: return location for a #GError
 *
 * Makes @stream wait on the GPU for every acquire point. Returns as soon as
 * the waits are enqueued.
 *
 * Returns: %TRUE if all waits were enqueued
 *
 * Since: 0.1
 */
gboolean
gst_cuda_sync_meta_wait_gpu (GstCudaSyncMeta * meta, CUstream stream,
    GError ** error)
{
  g_return_val_if_fail (meta != NULL, FALSE);

  return gst_cuda_sync_meta_wait_gpu_full (meta, stream,
      GST_CUDA_SYNC_FLAG_NONE, error);
}

/**
 * gst_cuda_sync_meta_wait_gpu_checked:
 * @meta: a #GstCudaSyncMeta
 * @context: the #GstCudaContext of @stream: every acquire point must be on
 *   a semaphore imported there
 * @stream: (type gpointer): the CUDA stream that must wait (%NULL: legacy
 *   default stream)
 * @flags: #GstCudaSyncFlags for the NvSciSync waits
 * @n_waits: (out) (optional): the number of acquire points waited for
 * @error: return location for a #GError
 *
 * What a consumer does with an incoming buffer's meta: checks that every
 * acquire point's semaphore belongs to @context
 * (%GST_CUDA_SYNC_ERROR_WRONG_DEVICE otherwise, before any wait is
 * enqueued), then enqueues the waits (gst_cuda_sync_meta_wait_gpu_full()).
 *
 * Returns: %TRUE if every wait was enqueued
 *
 * Since: 0.2
 */
gboolean
gst_cuda_sync_meta_wait_gpu_checked (GstCudaSyncMeta * meta,
    GstCudaContext * context, CUstream stream, GstCudaSyncFlags flags,
    guint * n_waits, GError ** error)
{
  guint i;

  g_return_val_if_fail (meta != NULL, FALSE);
  g_return_val_if_fail (GST_IS_CUDA_CONTEXT (context), FALSE);

  if (n_waits)
    *n_waits = 0;
  for (i = 0; i < meta->acquire->len; i++) {
    SyncPoint *p = g_ptr_array_index (meta->acquire, i);

    if (!gst_cuda_semaphore_check_context (p->sem, context, error))
      return FALSE;
  }
  if (!gst_cuda_sync_meta_wait_gpu_full (meta, stream, flags, error))
    return FALSE;
  if (n_waits)
    *n_waits = meta->acquire->len;
  return TRUE;
}

/**
 * gst_cuda_sync_meta_wait_gpu_full:
 * @meta: a #GstCudaSyncMeta
 * @stream: (type gpointer): the CUDA stream that must wait (%NULL: legacy
 *   default stream)
 * @flags: #GstCudaSyncFlags for the NvSciSync waits
 * @error: return location for a #GError
 *
 * gst_cuda_sync_meta_wait_gpu() with @flags.
 *
 * Returns: %TRUE if every wait was enqueued
 *
 * Since: 0.2
 */
gboolean
gst_cuda_sync_meta_wait_gpu_full (GstCudaSyncMeta * meta, CUstream stream,
    GstCudaSyncFlags flags, GError ** error)
{
  gboolean skip_memsync = (flags & GST_CUDA_SYNC_FLAG_SKIP_NVSCIBUF_MEMSYNC);
  guint i;

  g_return_val_if_fail (meta != NULL, FALSE);

  for (i = 0; i < meta->acquire->len; i++) {
    if (!point_wait_gpu (g_ptr_array_index (meta->acquire, i), stream,
            skip_memsync, error))
      return FALSE;
  }
  return TRUE;
}

/**
 * gst_cuda_sync_meta_wait_cpu:
 * @meta: a #GstCudaSyncMeta
 * @timeout: how long to wait, or %GST_CLOCK_TIME_NONE
 * @error: return location for a #GError
 *
 * Blocks the calling thread until every acquire point is reached: the last
 * resort for consumers that cannot wait on the GPU. The wait goes through
 * CUDA (a stream wait and an event), never through a host wait of another
 * API.
 *
 * Returns: %TRUE when all points were reached, %FALSE on error or timeout
 *   (%GST_CUDA_SYNC_ERROR_TIMEOUT)
 *
 * Since: 0.1
 */
gboolean
gst_cuda_sync_meta_wait_cpu (GstCudaSyncMeta * meta, GstClockTime timeout,
    GError ** error)
{
  gint64 deadline = 0;
  guint i;

  g_return_val_if_fail (meta != NULL, FALSE);

  if (GST_CLOCK_TIME_IS_VALID (timeout))
    deadline = g_get_monotonic_time () + timeout / 1000;

  for (i = 0; i < meta->acquire->len; i++) {
    SyncPoint *p = g_ptr_array_index (meta->acquire, i);
    GstCudaContext *ctx = gst_cuda_semaphore_get_context (p->sem);
    CUevent ev = NULL;
    CUresult r;
    gboolean ok;

    if (!point_wait_gpu (p, NULL, FALSE, error))
      return FALSE;

    if (!gst_cuda_context_push (ctx)) {
      g_set_error (error, GST_CUDA_SYNC_ERROR, GST_CUDA_SYNC_ERROR_DRIVER,
          "Could not make the CUDA context current");
      return FALSE;
    }
    r = GST_CUDA_SYNC_CALL (cuEventCreate) (&ev, CU_EVENT_DISABLE_TIMING |
        CU_EVENT_BLOCKING_SYNC);
    ok = _gst_cuda_sync_result (r, "cuEventCreate", error);
    if (ok) {
      r = GST_CUDA_SYNC_CALL (cuEventRecord) (ev, NULL);
      ok = _gst_cuda_sync_result (r, "cuEventRecord", error);
    }
    if (ok && !deadline) {
      r = GST_CUDA_SYNC_CALL (cuEventSynchronize) (ev);
      ok = _gst_cuda_sync_result (r, "cuEventSynchronize", error);
    } else if (ok) {
      while ((r =
              GST_CUDA_SYNC_CALL (cuEventQuery) (ev)) == CUDA_ERROR_NOT_READY) {
        if (g_get_monotonic_time () >= deadline) {
          g_set_error (error, GST_CUDA_SYNC_ERROR, GST_CUDA_SYNC_ERROR_TIMEOUT,
              "Timed out waiting for acquire point %u", i);
          ok = FALSE;
          break;
        }
        g_usleep (50);
      }
      if (ok)
        ok = _gst_cuda_sync_result (r, "cuEventQuery", error);
    }
    if (ev)
      GST_CUDA_SYNC_CALL (cuEventDestroy) (ev);
    gst_cuda_context_pop (NULL);
    if (!ok)
      return FALSE;
  }
  return TRUE;
}

/**
 * gst_cuda_sync_meta_mark_acquired:
 * @meta: a #GstCudaSyncMeta
 *
 * Tells the meta that the consumer waited for the acquire points itself (for
 * example in a Vulkan queue submission), so that binary semaphore signals
 * are not consumed a second time.
 *
 * Since: 0.1
 */
void
gst_cuda_sync_meta_mark_acquired (GstCudaSyncMeta * meta)
{
  guint i;

  g_return_if_fail (meta != NULL);

  for (i = 0; i < meta->acquire->len; i++) {
    SyncPoint *p = g_ptr_array_index (meta->acquire, i);

    g_mutex_lock (&p->lock);
    if (!p->consumed && _gst_cuda_semaphore_one_wait_per_signal (p->sem)) {
      p->consumed = TRUE;
      gst_cuda_semaphore_mark_waited (p->sem);
    }
    g_mutex_unlock (&p->lock);
  }
}

/**
 * gst_cuda_sync_meta_signal_release:
 * @meta: a #GstCudaSyncMeta
 * @stream: (type gpointer): the stream on which the reading work was
 *   enqueued (%NULL: legacy default stream)
 * @error: return location for a #GError
 *
 * Enqueues the release signal on @stream, after the consumer's reading work.
 * The release point is signalled at most once for all copies of the meta; a
 * second call does nothing and returns %TRUE. Without a release point this
 * does nothing.
 *
 * Returns: %TRUE unless enqueuing the signal failed
 *
 * Since: 0.1
 */
gboolean
gst_cuda_sync_meta_signal_release (GstCudaSyncMeta * meta, CUstream stream,
    GError ** error)
{
  SyncPoint *p;
  gboolean ret = TRUE;

  g_return_val_if_fail (meta != NULL, FALSE);

  p = meta->release;
  if (!p)
    return TRUE;

  g_mutex_lock (&p->lock);
  if (!p->released) {
    ret = gst_cuda_semaphore_signal_value (p->sem, stream, p->value, error);
    if (ret)
      p->released = TRUE;
  }
  g_mutex_unlock (&p->lock);
  return ret;
}

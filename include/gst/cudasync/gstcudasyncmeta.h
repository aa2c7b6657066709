/* gst-cudasync
 * Copyright (C) 2026 gst-cudasync developers
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <gst/cudasync/cudasync-prelude.h>
#include <gst/cudasync/gstcudasemaphore.h>

G_BEGIN_DECLS

/**
 * GST_CUDA_SYNC_META_API_TYPE:
 *
 * The #GType of the #GstCudaSyncMeta API, for gst_buffer_get_meta().
 *
 * Since: 0.1
 */
#define GST_CUDA_SYNC_META_API_TYPE (gst_cuda_sync_meta_api_get_type ())
/**
 * GST_CUDA_SYNC_META_INFO:
 *
 * The #GstMetaInfo of #GstCudaSyncMeta.
 *
 * Since: 0.1
 */
#define GST_CUDA_SYNC_META_INFO (gst_cuda_sync_meta_get_info ())

/**
 * GST_CAPS_FEATURE_META_GST_CUDA_SYNC_META:
 *
 * Caps feature name of the meta (informational; the meta is negotiated
 * through the ALLOCATION query, not through caps).
 *
 * Since: 0.1
 */
#define GST_CAPS_FEATURE_META_GST_CUDA_SYNC_META "meta:GstCudaSyncMeta"

typedef struct _GstCudaSyncMeta GstCudaSyncMeta;

/**
 * GstCudaSyncMeta:
 * @meta: the parent #GstMeta
 *
 * Synchronisation points of a buffer whose data is produced or consumed
 * asynchronously on a GPU:
 *
 * - acquire points: "the data is ready once semaphore S reaches value V"
 *   (timeline), "once S is signalled" (binary), or "once this NvSciSync fence
 *   expires". A consumer waits for all of them before reading, preferably on
 *   the GPU with gst_cuda_sync_meta_wait_gpu().
 * - an optional release point: "signal S' (with V') once you no longer read
 *   the data", with which the producer knows when it may reuse the memory.
 *
 * The points are shared, reference-counted objects: copies of the meta (for
 * example when a buffer is made writable) refer to the same points, so a
 * binary semaphore is still waited exactly once and the release point is
 * signalled once, when the last copy is gone. A meta whose buffer is freed
 * without anyone having waited consumes its binary acquire points and signals
 * its release point on the GPU (enqueued, never waited on the CPU).
 *
 * The project's docs/design.md describes the contract between producers
 * and consumers.
 *
 * Since: 0.1
 */
struct _GstCudaSyncMeta
{
  GstMeta meta;

  /*< private >*/
  GPtrArray *acquire;
  gpointer release;
  gpointer _gst_reserved[GST_PADDING];
};

GST_CUDA_SYNC_API
GType               gst_cuda_sync_meta_api_get_type (void);

GST_CUDA_SYNC_API
const GstMetaInfo * gst_cuda_sync_meta_get_info     (void);

GST_CUDA_SYNC_API
GstCudaSyncMeta *   gst_buffer_add_cuda_sync_meta   (GstBuffer * buffer);

/**
 * gst_buffer_get_cuda_sync_meta:
 * @b: a #GstBuffer
 *
 * Gets the #GstCudaSyncMeta of a buffer.
 *
 * Returns: (nullable) (transfer none): the #GstCudaSyncMeta of @b
 *
 * Since: 0.1
 */
#define gst_buffer_get_cuda_sync_meta(b) \
  ((GstCudaSyncMeta *) gst_buffer_get_meta ((b), GST_CUDA_SYNC_META_API_TYPE))

GST_CUDA_SYNC_API
void                gst_cuda_sync_meta_add_acquire  (GstCudaSyncMeta * meta,
                                                     GstCudaSemaphore * sem,
                                                     guint64 value);

GST_CUDA_SYNC_API
void                gst_cuda_sync_meta_add_acquire_nvsci_fence (GstCudaSyncMeta * meta,
                                                     GstCudaSemaphore * sem,
                                                     const guint8 fence[GST_CUDA_NVSCI_FENCE_SIZE]);

GST_CUDA_SYNC_API
guint               gst_cuda_sync_meta_get_n_acquire (GstCudaSyncMeta * meta);

GST_CUDA_SYNC_API
void                gst_cuda_sync_meta_clear_acquire (GstCudaSyncMeta * meta);

GST_CUDA_SYNC_API
GstCudaSemaphore *  gst_cuda_sync_meta_get_acquire  (GstCudaSyncMeta * meta,
                                                     guint idx,
                                                     guint64 * value);

GST_CUDA_SYNC_API
gboolean            gst_cuda_sync_meta_get_acquire_nvsci_fence (GstCudaSyncMeta * meta,
                                                     guint idx,
                                                     guint8 fence[GST_CUDA_NVSCI_FENCE_SIZE]);

GST_CUDA_SYNC_API
void                gst_cuda_sync_meta_set_release  (GstCudaSyncMeta * meta,
                                                     GstCudaSemaphore * sem,
                                                     guint64 value);

GST_CUDA_SYNC_API
GstCudaSemaphore *  gst_cuda_sync_meta_get_release  (GstCudaSyncMeta * meta,
                                                     guint64 * value);

GST_CUDA_SYNC_API
gboolean            gst_cuda_sync_meta_wait_gpu     (GstCudaSyncMeta * meta,
                                                     CUstream stream,
                                                     GError ** error);

GST_CUDA_SYNC_API
gboolean            gst_cuda_sync_meta_wait_gpu_full (GstCudaSyncMeta * meta,
                                                     CUstream stream,
                                                     GstCudaSyncFlags flags,
                                                     GError ** error);

GST_CUDA_SYNC_API
gboolean            gst_cuda_sync_meta_wait_gpu_checked (GstCudaSyncMeta * meta,
                                                     GstCudaContext * context,
                                                     CUstream stream,
                                                     GstCudaSyncFlags flags,
                                                     guint * n_waits,
                                                     GError ** error);

GST_CUDA_SYNC_API
gboolean            gst_cuda_sync_meta_wait_cpu     (GstCudaSyncMeta * meta,
                                                     GstClockTime timeout,
                                                     GError ** error);

GST_CUDA_SYNC_API
void                gst_cuda_sync_meta_mark_acquired (GstCudaSyncMeta * meta);

GST_CUDA_SYNC_API
gboolean            gst_cuda_sync_meta_signal_release (GstCudaSyncMeta * meta,
                                                     CUstream stream,
                                                     GError ** error);

/**
 * GstCudaSyncNvSciFenceClearFunc:
 * @fence: the fence bytes to clear (`NvSciSyncFenceClear()`), 8-byte
 *   aligned: usable as an `NvSciSyncFence *`
 * @user_data: the data passed to gst_cuda_sync_set_nvsci_fence_clear_func()
 *
 * Releases the reference an `NvSciSyncFence` holds. The library itself does
 * not link libnvscisync; an application that uses NvSciSync semaphores
 * provides this hook (gst_cuda_nvsci_fence_clear() when the library was
 * built with NvSciSync support), which is called exactly once for each
 * fence a #GstCudaSyncMeta owned, when the last copy of the meta is freed.
 * The library zeroes the bytes afterwards.
 *
 * Since: 0.1
 */
typedef void (*GstCudaSyncNvSciFenceClearFunc) (guint8 * fence, gpointer user_data);

GST_CUDA_SYNC_API
void                gst_cuda_sync_set_nvsci_fence_clear_func (GstCudaSyncNvSciFenceClearFunc func,
                                                     gpointer user_data);

/* ALLOCATION query helpers */

GST_CUDA_SYNC_API
void                gst_query_add_cuda_sync_meta    (GstQuery * query,
                                                     GstCudaSemaphoreHandleTypeFlags handle_types,
                                                     GstCudaSemaphore * semaphore);

GST_CUDA_SYNC_API
gboolean            gst_query_parse_cuda_sync_meta  (GstQuery * query,
                                                     GstCudaSemaphoreHandleTypeFlags * handle_types,
                                                     GstCudaSemaphore ** semaphore);

G_END_DECLS

/* gst-cudasync
 * Copyright (C) 2026 gst-cudasync developers
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <gst/cudasync/cudasync-prelude.h>
#include <gst/cudasync/gstcudasyncerror.h>
#include <gst/cuda/gstcudacontext.h>
#include <cuda.h>

G_BEGIN_DECLS

/**
 * GstCudaSemaphoreHandleType:
 * @GST_CUDA_SEMAPHORE_HANDLE_TYPE_TIMELINE_FD: a Vulkan timeline semaphore
 *   exported as an opaque fd (`CU_EXTERNAL_SEMAPHORE_HANDLE_TYPE_TIMELINE_SEMAPHORE_FD`)
 * @GST_CUDA_SEMAPHORE_HANDLE_TYPE_OPAQUE_FD: a binary semaphore exported as
 *   an opaque fd (`CU_EXTERNAL_SEMAPHORE_HANDLE_TYPE_OPAQUE_FD`)
 * @GST_CUDA_SEMAPHORE_HANDLE_TYPE_NVSCISYNC: an NvSciSync object
 *   (`CU_EXTERNAL_SEMAPHORE_HANDLE_TYPE_NVSCISYNC`)
 *
 * The kind of external semaphore a #GstCudaSemaphore wraps.
 *
 * Since: 0.1
 */
typedef enum
{
  GST_CUDA_SEMAPHORE_HANDLE_TYPE_TIMELINE_FD = 1,
  GST_CUDA_SEMAPHORE_HANDLE_TYPE_OPAQUE_FD = 2,
  GST_CUDA_SEMAPHORE_HANDLE_TYPE_NVSCISYNC = 3,
} GstCudaSemaphoreHandleType;

/**
 * GstCudaSemaphoreHandleTypeFlags:
 * @GST_CUDA_SEMAPHORE_HANDLE_TYPE_FLAG_NONE: none
 * @GST_CUDA_SEMAPHORE_HANDLE_TYPE_FLAG_TIMELINE_FD: timeline fd
 * @GST_CUDA_SEMAPHORE_HANDLE_TYPE_FLAG_OPAQUE_FD: binary opaque fd
 * @GST_CUDA_SEMAPHORE_HANDLE_TYPE_FLAG_NVSCISYNC: NvSciSync
 *
 * Sets of handle types, used in the ALLOCATION query to say which
 * semaphores a consumer can wait on.
 *
 * Since: 0.1
 */
typedef enum /*< flags >*/
{
  GST_CUDA_SEMAPHORE_HANDLE_TYPE_FLAG_NONE = 0,
  GST_CUDA_SEMAPHORE_HANDLE_TYPE_FLAG_TIMELINE_FD = (1 << 0),
  GST_CUDA_SEMAPHORE_HANDLE_TYPE_FLAG_OPAQUE_FD = (1 << 1),
  GST_CUDA_SEMAPHORE_HANDLE_TYPE_FLAG_NVSCISYNC = (1 << 2),
} GstCudaSemaphoreHandleTypeFlags;

/**
 * GstCudaSyncFlags:
 * @GST_CUDA_SYNC_FLAG_NONE: none
 * @GST_CUDA_SYNC_FLAG_SKIP_NVSCIBUF_MEMSYNC: NvSciSync semaphores only:
 *   signal or wait with `CUDA_EXTERNAL_SEMAPHORE_SIGNAL_SKIP_NVSCIBUF_MEMSYNC`
 *   / `CUDA_EXTERNAL_SEMAPHORE_WAIT_SKIP_NVSCIBUF_MEMSYNC`, i.e. without
 *   making NvSciBuf memory imported into CUDA coherent (in addition to the
 *   semaphore's own #GstCudaSemaphore:skip-nvscibuf-memsync); ignored for
 *   the other types
 *
 * Options of the `_full` variants of the signal and wait functions.
 *
 * Since: 0.2
 */
typedef enum /*< flags >*/
{
  GST_CUDA_SYNC_FLAG_NONE = 0,
  GST_CUDA_SYNC_FLAG_SKIP_NVSCIBUF_MEMSYNC = (1 << 0),
} GstCudaSyncFlags;

GST_CUDA_SYNC_API
GType gst_cuda_sync_flags_get_type (void);
#define GST_TYPE_CUDA_SYNC_FLAGS (gst_cuda_sync_flags_get_type ())

/**
 * GST_CUDA_SEMAPHORE_HANDLE_TYPE_FLAGS_ALL:
 *
 * Every handle type.
 *
 * Since: 0.1
 */
#define GST_CUDA_SEMAPHORE_HANDLE_TYPE_FLAGS_ALL \
  ((GstCudaSemaphoreHandleTypeFlags) 0x7)

/**
 * gst_cuda_semaphore_handle_type_to_flag:
 * @t: a #GstCudaSemaphoreHandleType
 *
 * Converts a handle type to its bit in a set of handle types.
 *
 * Returns: the #GstCudaSemaphoreHandleTypeFlags bit for @t.
 *
 * Since: 0.1
 */
#define gst_cuda_semaphore_handle_type_to_flag(t) \
  ((GstCudaSemaphoreHandleTypeFlags) (1 << ((t) - 1)))

/**
 * GST_TYPE_CUDA_SEMAPHORE_HANDLE_TYPE:
 *
 * The #GType of #GstCudaSemaphoreHandleType.
 *
 * Since: 0.1
 */
#define GST_TYPE_CUDA_SEMAPHORE_HANDLE_TYPE (gst_cuda_semaphore_handle_type_get_type ())
GST_CUDA_SYNC_API
GType gst_cuda_semaphore_handle_type_get_type (void);

/**
 * GST_TYPE_CUDA_SEMAPHORE_HANDLE_TYPE_FLAGS:
 *
 * The #GType of #GstCudaSemaphoreHandleTypeFlags.
 *
 * Since: 0.1
 */
#define GST_TYPE_CUDA_SEMAPHORE_HANDLE_TYPE_FLAGS (gst_cuda_semaphore_handle_type_flags_get_type ())
GST_CUDA_SYNC_API
GType gst_cuda_semaphore_handle_type_flags_get_type (void);

/**
 * GST_TYPE_CUDA_SEMAPHORE:
 *
 * The #GType of #GstCudaSemaphore.
 *
 * Since: 0.1
 */
#define GST_TYPE_CUDA_SEMAPHORE (gst_cuda_semaphore_get_type ())
GST_CUDA_SYNC_API
G_DECLARE_FINAL_TYPE (GstCudaSemaphore, gst_cuda_semaphore, GST, CUDA_SEMAPHORE, GstObject)

/**
 * GST_CUDA_NVSCI_FENCE_SIZE:
 *
 * Size in bytes of an `NvSciSyncFence` (opaque to this library).
 *
 * Since: 0.1
 */
#define GST_CUDA_NVSCI_FENCE_SIZE 48

GST_CUDA_SYNC_API
GstCudaSemaphore * gst_cuda_semaphore_import_fd          (GstCudaContext * context,
                                                          GstCudaSemaphoreHandleType type,
                                                          gint fd,
                                                          GError ** error);

GST_CUDA_SYNC_API
GstCudaSemaphore * gst_cuda_semaphore_import_nvscisync   (GstCudaContext * context,
                                                          gpointer nvscisync_obj,
                                                          GError ** error);

GST_CUDA_SYNC_API
GstCudaSemaphoreHandleType gst_cuda_semaphore_get_handle_type (GstCudaSemaphore * sem);

GST_CUDA_SYNC_API
GstCudaContext *   gst_cuda_semaphore_get_context        (GstCudaSemaphore * sem);

GST_CUDA_SYNC_API
gboolean           gst_cuda_semaphore_check_context      (GstCudaSemaphore * sem,
                                                          GstCudaContext * context,
                                                          GError ** error);

GST_CUDA_SYNC_API
gboolean           gst_cuda_semaphore_is_timeline        (GstCudaSemaphore * sem);

GST_CUDA_SYNC_API
guint64            gst_cuda_semaphore_get_last_value     (GstCudaSemaphore * sem);

GST_CUDA_SYNC_API
void               gst_cuda_semaphore_advance_to         (GstCudaSemaphore * sem,
                                                          guint64 value);

GST_CUDA_SYNC_API
gboolean           gst_cuda_semaphore_signal             (GstCudaSemaphore * sem,
                                                          CUstream stream,
                                                          guint64 * value,
                                                          GError ** error);

GST_CUDA_SYNC_API
gboolean           gst_cuda_semaphore_signal_value       (GstCudaSemaphore * sem,
                                                          CUstream stream,
                                                          guint64 value,
                                                          GError ** error);

GST_CUDA_SYNC_API
gboolean           gst_cuda_semaphore_wait               (GstCudaSemaphore * sem,
                                                          CUstream stream,
                                                          guint64 value,
                                                          GError ** error);

GST_CUDA_SYNC_API
gboolean           gst_cuda_semaphore_signal_nvsci       (GstCudaSemaphore * sem,
                                                          CUstream stream,
                                                          guint8 fence[GST_CUDA_NVSCI_FENCE_SIZE],
                                                          GError ** error);

GST_CUDA_SYNC_API
gboolean           gst_cuda_semaphore_wait_nvsci         (GstCudaSemaphore * sem,
                                                          CUstream stream,
                                                          const guint8 fence[GST_CUDA_NVSCI_FENCE_SIZE],
                                                          GError ** error);

GST_CUDA_SYNC_API
gboolean           gst_cuda_semaphore_signal_nvsci_full  (GstCudaSemaphore * sem,
                                                          CUstream stream,
                                                          guint8 * fence,
                                                          GstCudaSyncFlags flags,
                                                          GError ** error);
GST_CUDA_SYNC_API
gboolean           gst_cuda_semaphore_wait_nvsci_full    (GstCudaSemaphore * sem,
                                                          CUstream stream,
                                                          const guint8 * fence,
                                                          GstCudaSyncFlags flags,
                                                          GError ** error);
GST_CUDA_SYNC_API
void               gst_cuda_semaphore_mark_waited        (GstCudaSemaphore * sem);

GST_CUDA_SYNC_API
void               gst_cuda_semaphore_set_skip_nvscibuf_memsync (GstCudaSemaphore * sem,
                                                          gboolean skip);

GST_CUDA_SYNC_API
gboolean           gst_cuda_semaphore_get_skip_nvscibuf_memsync (GstCudaSemaphore * sem);

G_END_DECLS

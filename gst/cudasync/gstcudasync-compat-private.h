/* gst-cudasync
 * Copyright (C) 2026 gst-cudasync developers
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The library's GStreamer version shim (gstcudasync-compat.c): every
 * function whose body depends on the GStreamer version the library is
 * built against, with the same declaration on every version. The rest of
 * the library has no version test. The lowest unit of the library: it
 * calls libgstcuda only.
 */
#pragma once

#include "gstcudasync-private.h"

G_BEGIN_DECLS

/* Points @vt's entries at libgstcuda's wrappers where libgstcuda exports
 * them (1.26+); leaves @vt as it is otherwise */
G_GNUC_INTERNAL
void     _gst_cuda_sync_compat_use_loader_wrappers (GstCudaSyncVTable * vt);

/* The CUDA stream @mem carries: NULL when @mem is not CUDA memory, has
 * none, or CUDA memory has no stream (1.22) */
G_GNUC_INTERNAL
CUstream _gst_cuda_sync_compat_memory_get_stream (GstMemory * mem);

/* Whether @mem has GST_CUDA_MEMORY_TRANSFER_NEED_SYNC (never on 1.22) */
G_GNUC_INTERNAL
gboolean _gst_cuda_sync_compat_memory_needs_sync (GstMemory * mem);

/* Sets GST_CUDA_MEMORY_TRANSFER_NEED_SYNC on @mem (nothing on 1.22) */
G_GNUC_INTERNAL
void     _gst_cuda_sync_compat_memory_set_needs_sync (GstMemory * mem);

/* The library's data on a CUDA memory with a stream, kept with the memory
 * and freed with @notify (the memory's context current) when it is */
G_GNUC_INTERNAL
gpointer _gst_cuda_sync_compat_memory_get_data (GstMemory * mem);

G_GNUC_INTERNAL
void     _gst_cuda_sync_compat_memory_set_data (GstMemory * mem,
    gpointer data, GDestroyNotify notify);

/* A GstCudaMemory, without a stream, around @ptr laid out as @info;
 * @notify (@user_data) when it is freed. NULL on 1.22, which cannot wrap
 * device memory. */
G_GNUC_INTERNAL
GstMemory * _gst_cuda_sync_compat_memory_wrap (GstCudaContext * context,
    const GstVideoInfo * info, CUdeviceptr ptr, gpointer user_data,
    GDestroyNotify notify);

G_GNUC_INTERNAL
gboolean    _gst_cuda_sync_compat_can_wrap (void);

G_END_DECLS

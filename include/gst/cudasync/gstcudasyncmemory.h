/* gst-cudasync
 * Copyright (C) 2026 gst-cudasync developers
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <gst/cudasync/cudasync-prelude.h>
#include <gst/cudasync/gstcudasyncerror.h>
#include <cuda.h>

G_BEGIN_DECLS

GST_CUDA_SYNC_API
CUstream gst_cuda_sync_memory_get_stream    (GstMemory * mem);

GST_CUDA_SYNC_API
gboolean gst_cuda_sync_memory_wait_pending  (GstMemory * mem,
                                             CUstream stream,
                                             GError ** error);

GST_CUDA_SYNC_API
void     gst_cuda_sync_memory_mark_pending  (GstMemory * mem);

GST_CUDA_SYNC_API
gboolean gst_cuda_sync_memory_order_reuse   (GstMemory * mem,
                                             CUstream stream,
                                             gboolean * ordered,
                                             GError ** error);

G_END_DECLS

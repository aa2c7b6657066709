/* gst-cudasync
 * Copyright (C) 2026 gst-cudasync developers
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The max-buffers bound and flushing flag of the pools the bridge
 * elements propose upstream (gstcudavkupstreampool.c,
 * gstcudavkvulkanpool.c), whose buffers are handed out without
 * GstBufferPool's own queue. Not installed.
 *
 * Locks: @lock guards every field; nothing else is taken under it.
 */
#pragma once

#include <gst/gst.h>

G_BEGIN_DECLS

typedef struct
{
  GMutex lock;
  GCond cond;
  guint max_buffers;            /* 0: no limit */
  guint outstanding;
  gboolean flushing;
} GstCudaVkPoolBound;

void          gst_cuda_vk_pool_bound_init     (GstCudaVkPoolBound * b);
void          gst_cuda_vk_pool_bound_clear    (GstCudaVkPoolBound * b);
/* the config's max-buffers (0: none) */
void          gst_cuda_vk_pool_bound_set_max  (GstCudaVkPoolBound * b,
                                               guint max_buffers);
/* Counts a buffer out, waiting while max-buffers are: GST_FLOW_EOS with
 * GST_BUFFER_POOL_ACQUIRE_FLAG_DONTWAIT, GST_FLOW_FLUSHING while
 * flushing */
GstFlowReturn gst_cuda_vk_pool_bound_take     (GstCudaVkPoolBound * b,
                                               GstBufferPoolAcquireParams * params);
/* a buffer came back (or was never handed out) */
void          gst_cuda_vk_pool_bound_give     (GstCudaVkPoolBound * b);
gboolean      gst_cuda_vk_pool_bound_flushing (GstCudaVkPoolBound * b);
/* the pool's flush_start (wakes a take waiting on the bound; not one
 * waiting inside the frame pool, which its element flushes) and
 * flush_stop */
void          gst_cuda_vk_pool_bound_set_flushing (GstCudaVkPoolBound * b,
                                               gboolean flushing);

G_END_DECLS

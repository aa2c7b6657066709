/* gst-cudasync
 * Copyright (C) 2026 gst-cudasync developers
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * GStreamer 1.22: the pools the bridge elements propose upstream on 1.24+
 * (gstcudavkupstreampool.c, gstcudavkvulkanpool.c) wrap Vulkan memory as
 * CUDA memory, which 1.22 cannot, and their files are not built. Built
 * instead of them (meson.build): their calls, as each header documents
 * them on 1.22.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstcudavkupstreampool.h"
#include "gstcudavkvulkanpool.h"

/* gstcudavkupstreampool.c is not built: upstream never writes in place */
gboolean
gst_cuda_vk_upstream_pool_supported (const GstVideoInfo * info,
    const GstCudaVkMemoryKind * kind)
{
  return FALSE;
}

GstBufferPool *
gst_cuda_vk_upstream_pool_new (GstCudaVkInterop * interop,
    GstBufferPool * frames)
{
  return NULL;
}

GstBuffer *
gst_cuda_vk_upstream_pool_get_frame (GstMemory * mem, GstBufferPool * frames)
{
  return NULL;
}

/* gstcudavkvulkanpool.c is not built: vulkantocuda proposes no pool */
gboolean
gst_cuda_vk_vulkan_pool_supported (GstVulkanDevice * device,
    const GstVideoInfo * info, gboolean one_allocation, GError ** error)
{
  g_set_error (error, GST_CUDA_SYNC_ERROR, GST_CUDA_SYNC_ERROR_NOT_SUPPORTED,
      "GStreamer 1.22 cannot wrap memory as CUDA memory");
  return FALSE;
}

/* no pool: upstream's order of the caps stays */
GstCaps *
gst_cuda_vk_vulkan_pool_caps_first (GstVulkanDevice * device,
    gboolean one_allocation, GstCaps * caps)
{
  return caps;
}

GstBufferPool *
gst_cuda_vk_vulkan_pool_new (GstCudaVkInterop * interop,
    GstBufferPool * frames, const GstCudaVkMemoryKind * kind)
{
  return NULL;
}

GstBuffer *
gst_cuda_vk_vulkan_pool_get_frame (GstBuffer * buf, GstBufferPool * frames)
{
  return NULL;
}

GstMemory *
gst_cuda_vk_vulkan_pool_wrap (GstBufferPool * pool, GstBuffer * frame,
    GstBuffer * inbuf)
{
  return NULL;
}

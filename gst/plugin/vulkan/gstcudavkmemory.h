/* gst-cudasync
 * Copyright (C) 2026 gst-cudasync developers
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Exportable Vulkan memory imported into CUDA, allocated with what
 * GstCudaVkAllocParams holds (the interop keeps one for its device and
 * CUDA context). Part of the bridge elements (cudatovulkan,
 * vulkantocuda); not installed.
 */
#pragma once

#include <gst/gst.h>
#include <gst/video/video.h>
#include <gst/vulkan/vulkan.h>
#include <gst/cuda/gstcudacontext.h>
#include <gst/cudasync/gstcudasync-internal.h>
#include "gstcudavkdevice.h"

G_BEGIN_DECLS

/* What allocating exportable memory imported into CUDA needs: the CUDA
 * context and the Vulkan device (references their owner keeps),
 * vkGetMemoryFdKHR, and the namer of the objects made */
typedef struct
{
  GstCudaContext *cuda;
  GstVulkanDevice *device;
  PFN_vkGetMemoryFdKHR get_memory_fd;
  const GstCudaVkNamer *namer;
} GstCudaVkAllocParams;

/* One plane of exportable Vulkan memory mapped into CUDA. */
typedef struct
{
  VkImage image;                /* VK_NULL_HANDLE for buffers */
  VkBuffer buffer;              /* VK_NULL_HANDLE for images */
  VkDeviceMemory memory;
  VkDeviceSize alloc_size;
  GstCudaSyncExternalMemory *ext_mem;
  CUdeviceptr cuda_ptr;         /* start of the plane (offset applied) */
  gsize offset;                 /* in the memory */
  gsize pitch;                  /* bytes per row */
  gsize size;
  VkFormat format;
  guint width, height;
  /* a multi-planar image: where each video plane lies in the memory
   * (vkGetImageSubresourceLayout() of its plane aspect) */
  gsize sub_offset[GST_VIDEO_MAX_PLANES];
  gsize sub_pitch[GST_VIDEO_MAX_PLANES];
} GstCudaVkPlane;

/* The usage of the frames' images (gstcudavkframepool.c) */
#define GST_CUDA_VK_IMAGE_USAGE (VK_IMAGE_USAGE_SAMPLED_BIT | \
    VK_IMAGE_USAGE_TRANSFER_SRC_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT)

/* Whether @device makes the linear, exportable images of @usage (one per
 * plane) that frames of @info need: FALSE with @error (NOT_SUPPORTED) that
 * names the size and the limit (maxImageDimension2D, or the format's
 * maxExtent where it is less) when one is larger */
gboolean gst_cuda_vk_check_image_size    (GstVulkanDevice * device,
                                          const GstVideoInfo * info,
                                          VkImageUsageFlags usage,
                                          GError ** error);
/* Whether @device makes the linear images of @usage, exportable as opaque
 * fds, that frames of @info need (one per plane), at their size; else
 * @error (NOT_SUPPORTED) says why */
gboolean gst_cuda_vk_image_exportable    (GstVulkanDevice * device,
                                          const GstVideoInfo * info,
                                          VkImageUsageFlags usage,
                                          GError ** error);
gboolean gst_cuda_vk_plane_alloc_image   (const GstCudaVkAllocParams * alloc,
                                          GstCudaVkPlane * plane,
                                          VkFormat format, guint width, guint height,
                                          VkImageUsageFlags usage, GError ** error);
/* One linear multi-planar image for a whole frame of @info (NV12, I420:
 * gst_cuda_vk_multiplanar_format()), its planes laid out in @plane's
 * sub_offset/sub_pitch; @plane->cuda_ptr is the start of the memory */
gboolean gst_cuda_vk_plane_alloc_multiplanar (const GstCudaVkAllocParams * alloc,
                                          GstCudaVkPlane * plane,
                                          const GstVideoInfo * info,
                                          VkImageUsageFlags usage, GError ** error);
gboolean gst_cuda_vk_plane_alloc_buffer  (const GstCudaVkAllocParams * alloc,
                                          GstCudaVkPlane * plane,
                                          gsize size, VkBufferUsageFlags usage,
                                          GError ** error);
void     gst_cuda_vk_plane_free          (GstCudaContext * cuda, GstVulkanDevice * device,
                                          GstCudaVkPlane * plane);

/* Enqueues a 2D copy (one plane, the given pitches) on @stream (context
 * pushed) */
gboolean gst_cuda_vk_copy_2d             (CUstream stream, CUdeviceptr dst,
                                          gsize dst_pitch, CUdeviceptr src,
                                          gsize src_pitch, gsize width_bytes,
                                          gsize height, GError ** error);

/* The VkFormat of plane @plane of frames of @info as the bridge lays them
 * out (one image per plane); 1.24+'s table has none for I420's chroma
 * planes */
VkFormat gst_cuda_vk_plane_format        (const GstVideoInfo * info,
                                          guint plane);

gboolean gst_cuda_vk_format_supported    (GstVideoFormat format);

/* The multi-planar VkFormat that holds a whole frame of @info in one image
 * (NV12: G8_B8R8_2PLANE_420, I420: G8_B8_R8_3PLANE_420), else
 * VK_FORMAT_UNDEFINED */
VkFormat gst_cuda_vk_multiplanar_format  (const GstVideoInfo * info);
/* Whether @device makes linear, exportable multi-planar images of @usage
 * for frames of @info; else @error says why (NOT_SUPPORTED) */
gboolean gst_cuda_vk_multiplanar_supported (GstVulkanDevice * device,
                                          const GstVideoInfo * info,
                                          VkImageUsageFlags usage,
                                          GError ** error);

#define GST_CUDA_VK_FORMATS "{ RGBA, BGRA, RGBx, BGRx, NV12, I420 }"

G_END_DECLS

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
#include "gstcudavkplanes.h"

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

/* One exportable allocation that the images of a frame's planes are all
 * bound to, imported into CUDA once (gst_cuda_vk_planes_alloc_one_memory());
 * reference-counted by those planes, freed with the last of them */
typedef struct _GstCudaVkSharedMemory GstCudaVkSharedMemory;

/* One plane of exportable Vulkan memory mapped into CUDA. */
typedef struct
{
  VkImage image;                /* VK_NULL_HANDLE for buffers */
  VkBuffer buffer;              /* VK_NULL_HANDLE for images */
  VkDeviceMemory memory;        /* the plane's own, or @shared's */
  VkDeviceSize alloc_size;
  /* the allocation the image shares with the frame's other planes (a
   * reference); NULL: memory is the plane's own */
  GstCudaVkSharedMemory *shared;
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
/* The linear images of a frame of @info (NV12, I420: one per plane, as
 * gst_cuda_vk_plane_alloc_image() makes them) in @planes (@info's number of
 * planes), all bound to one exportable allocation that CUDA imports once:
 * each @planes[i].cuda_ptr is the allocation's CUDA base pointer plus
 * @planes[i].offset, the image's binding (its alignment respected) plus
 * its vkGetImageSubresourceLayout() offset; @planes[i].pitch its row
 * pitch. On failure @planes hold nothing. */
gboolean gst_cuda_vk_planes_alloc_one_memory (const GstCudaVkAllocParams * alloc,
                                          const GstVideoInfo * info,
                                          VkImageUsageFlags usage,
                                          GstCudaVkPlane * planes,
                                          GError ** error);
/* Whether the device binds those images to one exportable allocation: no
 * format exportable only as a dedicated allocation, no image that
 * requires one, a memory type every image can use; else @error
 * (NOT_SUPPORTED) says why. Asks the device (images made and destroyed),
 * allocates nothing. */
gboolean gst_cuda_vk_one_memory_supported (const GstCudaVkAllocParams * alloc,
                                          const GstVideoInfo * info,
                                          VkImageUsageFlags usage,
                                          GError ** error);
gboolean gst_cuda_vk_plane_alloc_buffer  (const GstCudaVkAllocParams * alloc,
                                          GstCudaVkPlane * plane,
                                          gsize size, VkBufferUsageFlags usage,
                                          GError ** error);
void     gst_cuda_vk_plane_free          (GstCudaContext * cuda, GstVulkanDevice * device,
                                          GstCudaVkPlane * plane);

/* Whether @device makes linear, exportable multi-planar images of @usage
 * for frames of @info; else @error says why (NOT_SUPPORTED) */
gboolean gst_cuda_vk_multiplanar_supported (GstVulkanDevice * device,
                                          const GstVideoInfo * info,
                                          VkImageUsageFlags usage,
                                          GError ** error);

#define GST_CUDA_VK_FORMATS "{ RGBA, BGRA, RGBx, BGRx, NV12, I420 }"

G_END_DECLS

/* gst-cudasync
 * Copyright (C) 2026 gst-cudasync developers
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * vulkantocuda's input: the checks that a Vulkan frame is what the caps
 * promise, and where each of its planes is, found once per frame. Part of
 * the bridge elements; not installed.
 */
#pragma once

#include <gst/gst.h>
#include <gst/video/video.h>
#include <gst/vulkan/vulkan.h>

G_BEGIN_DECLS

/* One input frame, parsed once: what each recording function needs */
typedef struct
{
  GstBuffer *buf;               /* transfer none */
  const GstVideoInfo *info;
  gboolean buffers;             /* memory:VulkanBuffer, else VulkanImage */
  /* memory:VulkanImage with one multi-planar image for all planes (the
   * Vulkan video decoders of 1.24+) */
  gboolean multiplanar;
  guint n_memories;
  /* per memory: its barrier state */
  GstVulkanBarrierMemoryInfo *barriers[GST_VIDEO_MAX_PLANES];
  /* per plane, memory:VulkanBuffer: the buffer, the plane's offset in it
   * (the memory's own offset included) and its stride */
  GstVulkanBufferMemory *buffer[GST_VIDEO_MAX_PLANES];
  gsize offset[GST_VIDEO_MAX_PLANES];
  gsize stride[GST_VIDEO_MAX_PLANES];
  /* per plane, memory:VulkanImage: the image holding it, and the aspect
   * that selects it */
  GstVulkanImageMemory *image[GST_VIDEO_MAX_PLANES];
  VkImageAspectFlags aspect[GST_VIDEO_MAX_PLANES];
} GstCudaVkInputFrame;

/* Checks that @inbuf holds Vulkan buffers (@buffers) or images of @device
 * as large as @info says, and fills @frame (which refers to @info and
 * @inbuf, transfer none). When not, @error says why, for the element to
 * post (GST_CUDA_SYNC_ELEMENT_ERROR_FROM()). */
gboolean gst_cuda_vk_input_frame_parse    (GstCudaVkInputFrame * frame,
                                           GstVulkanDevice * device,
                                           const GstVideoInfo * info,
                                           gboolean buffers,
                                           GstBuffer * inbuf,
                                           GError ** error);

G_END_DECLS

/* gst-cudasync
 * Copyright (C) 2026 gst-cudasync developers
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * vulkantocuda's input: where each plane of a Vulkan frame is, and the
 * checks that a frame is what the caps promise. Part of the bridge
 * elements; not installed.
 */
#pragma once

#include <gst/gst.h>
#include <gst/video/video.h>
#include <gst/vulkan/vulkan.h>

G_BEGIN_DECLS

/* memory:VulkanBuffer: plane @i's offset in memory @i and its stride */
void     gst_cuda_vk_input_buffer_layout  (const GstVideoInfo * info,
                                           GstBuffer * inbuf, guint i,
                                           gsize * offset, gsize * stride);

/* memory:VulkanImage (@buffers FALSE) with one multi-planar image for all
 * planes (the Vulkan video decoders of 1.24+) */
gboolean gst_cuda_vk_input_is_multiplanar (const GstVideoInfo * info,
                                           gboolean buffers,
                                           GstBuffer * inbuf);

/* memory:VulkanImage: the image holding plane @i, and the aspect that
 * selects it */
GstVulkanImageMemory *
         gst_cuda_vk_input_plane_image    (const GstVideoInfo * info,
                                           GstBuffer * inbuf, guint i,
                                           VkImageAspectFlags * aspect);

/* Whether @inbuf holds Vulkan buffers (@buffers) or images of @device that
 * are as large as @info says; when not, @error says why, for the element
 * to post (GST_CUDA_SYNC_ELEMENT_ERROR_FROM()) */
gboolean gst_cuda_vk_input_check          (GstVulkanDevice * device,
                                           const GstVideoInfo * info,
                                           gboolean buffers,
                                           GstBuffer * inbuf,
                                           GError ** error);

G_END_DECLS

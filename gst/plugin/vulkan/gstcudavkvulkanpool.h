/* gst-cudasync
 * Copyright (C) 2026 gst-cudasync developers
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The pool vulkantocuda proposes upstream on GStreamer 1.24+ (see the .c
 * file). Not installed.
 */
#pragma once

#include "gstcudavkinterop.h"
#include "gstcudavkmemorykind.h"
#include <gst/video/video.h>

G_BEGIN_DECLS

/* The usage of the images of the pool's frames: what upstream Vulkan
 * elements write them with (transfers, vulkanupload; a render pass,
 * vulkancolorconvert) besides what the bridge needs */
#define GST_CUDA_VK_LEND_IMAGE_USAGE (GST_CUDA_VK_IMAGE_USAGE | \
    VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT)

/* Whether upstream can write frames of @info in place for vulkantocuda
 * on @device: one-plane formats, and with @one_allocation NV12 and I420
 * (a GstCudaMemory is one allocation: their planes' images then share
 * one), of linear, exportable images of GST_CUDA_VK_LEND_IMAGE_USAGE;
 * never on 1.22. FALSE with @error (NOT_SUPPORTED) saying why. */
gboolean        gst_cuda_vk_vulkan_pool_supported (GstVulkanDevice * device,
                                                   const GstVideoInfo * info,
                                                   gboolean one_allocation,
                                                   GError ** error);

/* @caps (transfer full), an answer to a CAPS query on vulkantocuda's sink
 * pad, with what upstream can write in place put first: its structures of
 * memory:VulkanImage narrowed to the formats the pool takes on @device
 * (gst_cuda_vk_vulkan_pool_supported() with @one_allocation), the
 * device's image size limit and, before 1.28, the widths of NV12 and I420
 * that vulkanupload writes right (multiples of 4 and 8: no row padding),
 * then @caps as they were (transfer full). GstBaseTransform keeps the
 * order of upstream's filter, and vulkanupload's puts memory:VulkanBuffer
 * first, while upstream fixates to the first structure of the answer.
 * @caps as they are when @device is NULL, and on 1.22. */
GstCaps *       gst_cuda_vk_vulkan_pool_caps_first (GstVulkanDevice * device,
                                                    gboolean one_allocation,
                                                    GstCaps * caps);

/* A GstVulkanImageBufferPool whose every buffer is a frame of @frames (a
 * pool of gst_cuda_vk_frame_pool_new() of frames of @kind in one
 * allocation each (one-plane, or the one_allocation kind), with
 * GST_CUDA_VK_LEND_IMAGE_USAGE, active), taken over from CUDA by
 * @interop when it is handed out (gst_cuda_vk_interop_lend()). NULL on
 * 1.22. */
GstBufferPool * gst_cuda_vk_vulkan_pool_new       (GstCudaVkInterop * interop,
                                                   GstBufferPool * frames,
                                                   const GstCudaVkMemoryKind * kind);

/* The frame of @frames that @buf is (transfer full), or NULL when @buf is
 * not a buffer of a pool of gst_cuda_vk_vulkan_pool_new() for @frames */
GstBuffer *     gst_cuda_vk_vulkan_pool_get_frame (GstBuffer * buf,
                                                   GstBufferPool * frames);

/* A GstCudaMemory of the interop's context and stream that wraps @frame
 * (a frame of @pool, a pool of gst_cuda_vk_vulkan_pool_new()) at its
 * layout. It holds @inbuf (a reference), the buffer upstream wrote the
 * frame as, until it is freed; then it records an event behind CUDA's
 * readers (on the legacy default stream), and the frame pool hands the
 * frame out again only once that event has completed. NULL on failure. */
GstMemory *     gst_cuda_vk_vulkan_pool_wrap      (GstBufferPool * pool,
                                                   GstBuffer * frame,
                                                   GstBuffer * inbuf);

G_END_DECLS

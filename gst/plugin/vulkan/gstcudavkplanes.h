/* gst-cudasync
 * Copyright (C) 2026 gst-cudasync developers
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The planes of the bridge elements' frames: the VkFormat each video
 * format's planes get, and the CUDA copy of one plane. Below the
 * exportable memory (gstcudavkmemory.h), which includes it. Not installed.
 */
#pragma once

#include <gst/gst.h>
#include <gst/video/video.h>
#include <gst/vulkan/vulkan.h>
#include <gst/cuda/gstcudacontext.h>

G_BEGIN_DECLS

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

G_END_DECLS

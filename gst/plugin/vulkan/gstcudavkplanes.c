/* gst-cudasync
 * Copyright (C) 2026 gst-cudasync developers
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The planes of the bridge's frames (see gstcudavkplanes.h).
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstcudavkplanes.h"
#include "gstcudavkcompat.h"
#include <gst/cuda/cuda-gst.h>
#include <string.h>

gboolean
gst_cuda_vk_copy_2d (CUstream stream, CUdeviceptr dst, gsize dst_pitch,
    CUdeviceptr src, gsize src_pitch, gsize width_bytes, gsize height,
    GError ** error)
{
  CUDA_MEMCPY2D p;
  CUresult r;

  memset (&p, 0, sizeof (p));
  p.srcMemoryType = CU_MEMORYTYPE_DEVICE;
  p.srcDevice = src;
  p.srcPitch = src_pitch;
  p.dstMemoryType = CU_MEMORYTYPE_DEVICE;
  p.dstDevice = dst;
  p.dstPitch = dst_pitch;
  p.WidthInBytes = width_bytes;
  p.Height = height;
  r = CuMemcpy2DAsync (&p, stream);
  return gst_cuda_sync_check_result (r, "cuMemcpy2DAsync", error);
}

VkFormat
gst_cuda_vk_plane_format (const GstVideoInfo * info, guint plane)
{
  switch (GST_VIDEO_INFO_FORMAT (info)) {
    case GST_VIDEO_FORMAT_RGBA:
    case GST_VIDEO_FORMAT_RGBx:
      return gst_cuda_vk_compat_rgb_image_format (VK_FORMAT_R8G8B8A8_UNORM,
          info);
    case GST_VIDEO_FORMAT_BGRA:
    case GST_VIDEO_FORMAT_BGRx:
      return gst_cuda_vk_compat_rgb_image_format (VK_FORMAT_B8G8R8A8_UNORM,
          info);
    case GST_VIDEO_FORMAT_NV12:
      return plane == 0 ? VK_FORMAT_R8_UNORM : VK_FORMAT_R8G8_UNORM;
    case GST_VIDEO_FORMAT_I420:
      return VK_FORMAT_R8_UNORM;
    default:
      return VK_FORMAT_UNDEFINED;
  }
}

VkFormat
gst_cuda_vk_multiplanar_format (const GstVideoInfo * info)
{
  switch (GST_VIDEO_INFO_FORMAT (info)) {
    case GST_VIDEO_FORMAT_NV12:
      return VK_FORMAT_G8_B8R8_2PLANE_420_UNORM;
    case GST_VIDEO_FORMAT_I420:
      /* planes 1 and 2 are B (Cb, U) and R (Cr, V): I420's order */
      return VK_FORMAT_G8_B8_R8_3PLANE_420_UNORM;
    default:
      return VK_FORMAT_UNDEFINED;
  }
}

gboolean
gst_cuda_vk_format_supported (GstVideoFormat format)
{
  switch (format) {
    case GST_VIDEO_FORMAT_RGBA:
    case GST_VIDEO_FORMAT_BGRA:
    case GST_VIDEO_FORMAT_RGBx:
    case GST_VIDEO_FORMAT_BGRx:
    case GST_VIDEO_FORMAT_NV12:
    case GST_VIDEO_FORMAT_I420:
      return TRUE;
    default:
      return FALSE;
  }
}

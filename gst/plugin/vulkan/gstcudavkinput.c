/* gst-cudasync
 * Copyright (C) 2026 gst-cudasync developers
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * vulkantocuda's input: see gstcudavkinput.h.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstcudavkinput.h"
#include "gstcudasyncelementerror.h"
#include <string.h>

GST_DEBUG_CATEGORY_EXTERN (gst_cuda_vk_debug);
#define GST_CAT_DEFAULT gst_cuda_vk_debug

/* memory:VulkanBuffer input: plane @i is in memory @i (as vulkanupload
 * and cudatovulkan make them); its offset in that memory and its stride
 * come from the video meta, else from the caps */
static void
buffer_layout (const GstVideoInfo * info, GstBuffer * inbuf,
    guint i, gsize * offset, gsize * stride)
{
  GstVideoMeta *meta = gst_buffer_get_video_meta (inbuf);
  gsize before = 0;
  guint j;

  if (meta && meta->n_planes == GST_VIDEO_INFO_N_PLANES (info)) {
    for (j = 0; j < i; j++)
      before += gst_buffer_peek_memory (inbuf, j)->size;
    *offset = meta->offset[i] >= before ? meta->offset[i] - before : 0;
    *stride = meta->stride[i];
  } else {
    *offset = 0;
    *stride = GST_VIDEO_INFO_PLANE_STRIDE (info, i);
  }
}

static gboolean
check_buffers (GstVulkanDevice * device, const GstVideoInfo * info,
    GstBuffer * inbuf, GError ** error)
{
  guint i, n = GST_VIDEO_INFO_N_PLANES (info);

  for (i = 0; i < n; i++) {
    GstMemory *mem = gst_buffer_peek_memory (inbuf, i);
    gint comp[GST_VIDEO_MAX_COMPONENTS];
    gsize offset, stride, rb, rows;

    if (!gst_is_vulkan_buffer_memory (mem)) {
      GST_CUDA_SYNC_SET_ERROR (error, STREAM, FORMAT,
          ("Buffer memory is not a Vulkan buffer (allocator %s); caps promise "
              "memory:VulkanBuffer", mem->allocator ?
              mem->allocator->mem_type : "none"), (NULL));
      return FALSE;
    }
    if (((GstVulkanBufferMemory *) mem)->device != device) {
      GST_CUDA_SYNC_SET_ERROR (error, STREAM, FORMAT,
          ("Vulkan buffer of another Vulkan device than the element's"),
          (NULL));
      return FALSE;
    }
    gst_video_format_info_component (info->finfo, i, comp);
    rb = (gsize) GST_VIDEO_INFO_COMP_WIDTH (info, comp[0]) *
        GST_VIDEO_INFO_COMP_PSTRIDE (info, comp[0]);
    rows = GST_VIDEO_INFO_COMP_HEIGHT (info, comp[0]);
    buffer_layout (info, inbuf, i, &offset, &stride);
    if (stride < rb || mem->size < offset + stride * (rows - 1) + rb) {
      GST_CUDA_SYNC_SET_ERROR (error, STREAM, FORMAT,
          ("Vulkan buffer %u (%" G_GSIZE_FORMAT " bytes, stride %"
              G_GSIZE_FORMAT ") is smaller than the caps say", i, mem->size,
              stride), (NULL));
      return FALSE;
    }
  }
  return TRUE;
}

/* memory:VulkanImage input: one image per plane (vulkanupload,
 * cudatovulkan), or one multi-planar image for all planes (the Vulkan
 * video decoders of 1.24+) */
static gboolean
is_multiplanar (const GstVideoInfo * info, gboolean buffers, GstBuffer * inbuf)
{
  return !buffers && gst_buffer_n_memory (inbuf) == 1 &&
      GST_VIDEO_INFO_N_PLANES (info) > 1;
}

/* the image holding plane @i and the aspect that selects it */
static GstVulkanImageMemory *
plane_image (const GstVideoInfo * info, GstBuffer * inbuf,
    guint i, VkImageAspectFlags * aspect)
{
  static const VkImageAspectFlags planes[] = { VK_IMAGE_ASPECT_PLANE_0_BIT,
    VK_IMAGE_ASPECT_PLANE_1_BIT, VK_IMAGE_ASPECT_PLANE_2_BIT
  };

  if (is_multiplanar (info, FALSE, inbuf)) {
    *aspect = planes[MIN (i, 2)];
    return (GstVulkanImageMemory *) gst_buffer_peek_memory (inbuf, 0);
  }
  *aspect = VK_IMAGE_ASPECT_COLOR_BIT;
  return (GstVulkanImageMemory *) gst_buffer_peek_memory (inbuf, i);
}

static gboolean
multiplanar_format_matches (GstVideoFormat format, VkFormat vk)
{
  return (format == GST_VIDEO_FORMAT_NV12 &&
      vk == VK_FORMAT_G8_B8R8_2PLANE_420_UNORM) ||
      (format == GST_VIDEO_FORMAT_I420 &&
      vk == VK_FORMAT_G8_B8_R8_3PLANE_420_UNORM);
}

static gboolean
check_image (GstVulkanDevice * device, const GstVideoInfo * info,
    GstMemory * mem, guint i, gboolean multiplanar, GError ** error)
{
  GstVulkanImageMemory *img;
  gint comp[GST_VIDEO_MAX_COMPONENTS];
  guint w, h;

  if (!gst_is_vulkan_image_memory (mem)) {
    GST_CUDA_SYNC_SET_ERROR (error, STREAM, FORMAT,
        ("Buffer memory is not a Vulkan image (allocator %s); caps promise "
            "memory:VulkanImage", mem->allocator ?
            mem->allocator->mem_type : "none"), (NULL));
    return FALSE;
  }
  img = (GstVulkanImageMemory *) mem;
  if (img->device != device) {
    GST_CUDA_SYNC_SET_ERROR (error, STREAM, FORMAT,
        ("Vulkan image of another Vulkan device than the element's"), (NULL));
    return FALSE;
  }
  if (multiplanar && !multiplanar_format_matches (GST_VIDEO_INFO_FORMAT (info),
          img->create_info.format)) {
    GST_CUDA_SYNC_SET_ERROR (error, STREAM, FORMAT,
        ("One Vulkan image for a %s frame, but its format (VkFormat %d) is "
            "not the multi-planar format of %s",
            gst_video_format_to_string (GST_VIDEO_INFO_FORMAT (info)),
            img->create_info.format,
            gst_video_format_to_string (GST_VIDEO_INFO_FORMAT (info))), (NULL));
    return FALSE;
  }
  gst_video_format_info_component (info->finfo, i, comp);
  w = multiplanar ? GST_VIDEO_INFO_WIDTH (info) :
      GST_VIDEO_INFO_COMP_WIDTH (info, comp[0]);
  h = multiplanar ? GST_VIDEO_INFO_HEIGHT (info) :
      GST_VIDEO_INFO_COMP_HEIGHT (info, comp[0]);
  if (gst_vulkan_image_memory_get_width (img) < w ||
      gst_vulkan_image_memory_get_height (img) < h) {
    GST_CUDA_SYNC_SET_ERROR (error, STREAM, FORMAT,
        ("Vulkan image %u is smaller (%ux%u) than the caps say (%ux%u)", i,
            gst_vulkan_image_memory_get_width (img),
            gst_vulkan_image_memory_get_height (img), w, h), (NULL));
    return FALSE;
  }
  return TRUE;
}

static gboolean
check_frame (GstVulkanDevice * device, const GstVideoInfo * info,
    gboolean buffers, GstBuffer * inbuf, GError ** error)
{
  guint i, n = GST_VIDEO_INFO_N_PLANES (info);
  gboolean multiplanar = is_multiplanar (info, buffers, inbuf);

  if (gst_buffer_n_memory (inbuf) != n && !multiplanar) {
    GST_CUDA_SYNC_SET_ERROR (error, STREAM, FORMAT,
        ("Expected %u Vulkan %s (one per plane%s), got %u memories", n,
            buffers ? "buffers" : "images", buffers ? "" :
            ", or one multi-planar image", gst_buffer_n_memory (inbuf)),
        (NULL));
    return FALSE;
  }
  if (buffers)
    return check_buffers (device, info, inbuf, error);
  for (i = 0; i < gst_buffer_n_memory (inbuf); i++) {
    if (!check_image (device, info, gst_buffer_peek_memory (inbuf, i), i,
            multiplanar, error))
      return FALSE;
  }
  return TRUE;
}

gboolean
gst_cuda_vk_input_frame_parse (GstCudaVkInputFrame * frame,
    GstVulkanDevice * device, const GstVideoInfo * info, gboolean buffers,
    GstBuffer * inbuf, GError ** error)
{
  guint i;

  if (!check_frame (device, info, buffers, inbuf, error))
    return FALSE;
  memset (frame, 0, sizeof (*frame));
  frame->buf = inbuf;
  frame->info = info;
  frame->buffers = buffers;
  frame->multiplanar = is_multiplanar (info, buffers, inbuf);
  frame->n_memories = gst_buffer_n_memory (inbuf);
  for (i = 0; i < frame->n_memories; i++) {
    GstMemory *mem = gst_buffer_peek_memory (inbuf, i);

    frame->barriers[i] = buffers ?
        &((GstVulkanBufferMemory *) mem)->barrier.parent :
        &((GstVulkanImageMemory *) mem)->barrier.parent;
  }
  for (i = 0; i < GST_VIDEO_INFO_N_PLANES (info); i++) {
    if (buffers) {
      frame->buffer[i] = (GstVulkanBufferMemory *)
          gst_buffer_peek_memory (inbuf, i);
      buffer_layout (info, inbuf, i, &frame->offset[i], &frame->stride[i]);
      frame->offset[i] += GST_MEMORY_CAST (frame->buffer[i])->offset;
    } else {
      frame->image[i] = plane_image (info, inbuf, i, &frame->aspect[i]);
    }
  }
  return TRUE;
}

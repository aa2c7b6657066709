/* gst-cudasync
 * Copyright (C) 2026 gst-cudasync developers
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The kinds of Vulkan memory of the bridge elements (see
 * gstcudavkmemorykind.h).
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstcudavkmemorykind.h"
#include <string.h>

/* memory:VulkanBuffer output: what downstream may do with the buffers */
#define BUFFER_USAGE (VK_BUFFER_USAGE_TRANSFER_SRC_BIT | \
    VK_BUFFER_USAGE_TRANSFER_DST_BIT | VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | \
    VK_BUFFER_USAGE_UNIFORM_TEXEL_BUFFER_BIT | \
    VK_BUFFER_USAGE_STORAGE_TEXEL_BUFFER_BIT)

void
gst_cuda_vk_barriers_record (const GstCudaVkBarriers * barriers,
    GstVulkanCommandBuffer * cmd, VkPipelineStageFlags src_stages,
    VkPipelineStageFlags dst_stages)
{
  vkCmdPipelineBarrier (cmd->cmd, src_stages, dst_stages, 0, 0, NULL,
      barriers->n_buffers, barriers->buffers, barriers->n_images,
      barriers->images);
}

/* ---- memory:VulkanImage: one linear image per plane ---- */

static gboolean
image_alloc_plane (const GstCudaVkAllocParams * alloc,
    const GstVideoInfo * info,
    guint i, VkImageUsageFlags usage, GstCudaVkPlane * plane, GError ** error)
{
  return gst_cuda_vk_plane_alloc_image (alloc, plane,
      gst_cuda_vk_plane_format (info, i),
      GST_VIDEO_INFO_COMP_WIDTH (info, i), GST_VIDEO_INFO_COMP_HEIGHT (info,
          i), usage, error);
}

/* the image as it was created (a plane's, or a whole multi-planar
 * frame's, whose size is even: gst_cuda_vk_plane_alloc_multiplanar()) */
static GstMemory *
image_wrap_plane (GstVulkanDevice * device, const GstVideoInfo * info,
    guint i, VkImageUsageFlags usage, GstCudaVkPlane * plane, gpointer holder,
    GDestroyNotify notify)
{
  return gst_vulkan_image_memory_wrapped (device, plane->image,
      plane->format, plane->width, plane->height, VK_IMAGE_TILING_LINEAR,
      usage, holder, notify);
}

/* A frame's image is GENERAL while CUDA has it (the frame pool's initial
 * transition left it so, and each give-back does) */
static void
image_take_over (GstMemory * gmem, GstVulkanQueue * queue,
    GstCudaVkBarriers * barriers, GstCudaVkSubmitSync * sync)
{
  GstVulkanImageMemory *mem = (GstVulkanImageMemory *) gmem;
  VkImageMemoryBarrier *ib = &barriers->images[barriers->n_images++];

  *ib = (VkImageMemoryBarrier) {
    .sType = VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER,.srcAccessMask =
        0,.dstAccessMask =
        VK_ACCESS_MEMORY_READ_BIT | VK_ACCESS_MEMORY_WRITE_BIT,.oldLayout =
        VK_IMAGE_LAYOUT_GENERAL,.newLayout =
        VK_IMAGE_LAYOUT_GENERAL,.srcQueueFamilyIndex =
        VK_QUEUE_FAMILY_EXTERNAL,.dstQueueFamilyIndex = queue->family,.image =
        mem->image,.subresourceRange = {
      .aspectMask = VK_IMAGE_ASPECT_COLOR_BIT,.levelCount = 1,.layerCount = 1,
  },};
  mem->barrier.parent.type = GST_VULKAN_BARRIER_TYPE_IMAGE;
  mem->barrier.parent.pipeline_stages = VK_PIPELINE_STAGE_ALL_COMMANDS_BIT;
  mem->barrier.parent.access_flags = VK_ACCESS_MEMORY_WRITE_BIT;
  /* No queue, as upstream's own images carry after their last operation:
   * GstVulkanOperation (1.24+) names the memory's queue as a barrier's
   * source family and the consumer's new queue (none for vulkandownload,
   * vulkancolorconvert ...) as its destination, so a queue here made
   * their barriers half an ownership transfer, which skips the layout
   * transition (seen under the validation layer with 1.26.2:
   * VUID-vkCmdCopyImageToBuffer-srcImageLayout-00189 in vulkandownload).
   * The frame is the queue family's of the element's queue either way. */
  gst_cuda_vk_barrier_set_queue (&mem->barrier.parent, NULL);
  mem->barrier.image_layout = VK_IMAGE_LAYOUT_GENERAL;
  mem->barrier.subresource_range = ib->subresourceRange;
  /* 1.24+: GstVulkanOperation users (vulkandownload ...) order themselves
   * after this submission by the image's timeline */
  gst_cuda_vk_sync_add_memory (sync, &mem->barrier.parent);
}

static VkPipelineStageFlags
image_give_back (GstMemory * gmem, GstVulkanQueue * queue,
    GstCudaVkBarriers * barriers, GstCudaVkSubmitSync * sync)
{
  GstVulkanImageMemory *mem = (GstVulkanImageMemory *) gmem;
  VkPipelineStageFlags stages;
  VkAccessFlags access;

  gst_cuda_vk_barrier_src_masks (&mem->barrier.parent, queue, &stages, &access);
  barriers->images[barriers->n_images++] = (VkImageMemoryBarrier) {
    .sType = VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER,.srcAccessMask =
        access,.dstAccessMask = 0,.oldLayout =
        mem->barrier.image_layout,.newLayout =
        VK_IMAGE_LAYOUT_GENERAL,.srcQueueFamilyIndex =
        queue->family,.dstQueueFamilyIndex = VK_QUEUE_FAMILY_EXTERNAL,.image =
        mem->image,.subresourceRange = {
      .aspectMask = VK_IMAGE_ASPECT_COLOR_BIT,.levelCount = 1,.layerCount = 1,
  },};
  mem->barrier.image_layout = VK_IMAGE_LAYOUT_GENERAL;
  mem->barrier.parent.pipeline_stages = VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT;
  mem->barrier.parent.access_flags = 0;
  /* 1.24 to 1.28: after the work of GstVulkanOperation users, on whatever
   * queue (the images' timelines) */
  gst_cuda_vk_sync_add_memory (sync, &mem->barrier.parent);
  return stages;
}

static gboolean
image_parse_input (GstCudaVkInputFrame * frame, GstVulkanDevice * device,
    const GstVideoInfo * info, GstBuffer * inbuf, GError ** error)
{
  return gst_cuda_vk_input_frame_parse (frame, device, info, FALSE, inbuf,
      error);
}

static void
image_record_read (const GstCudaVkInputFrame * in, guint i,
    GstVulkanQueue * queue, guint32 family, VkAccessFlags access,
    GstCudaVkBarriers * barriers)
{
  GstVulkanImageMemory *im =
      (GstVulkanImageMemory *) gst_buffer_peek_memory (in->buf, i);

  barriers->images[barriers->n_images++] = (VkImageMemoryBarrier) {
    .sType = VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER,.srcAccessMask =
        access,.dstAccessMask = VK_ACCESS_TRANSFER_READ_BIT,.oldLayout =
        im->barrier.image_layout,.newLayout =
        VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL,.srcQueueFamilyIndex =
        family,.dstQueueFamilyIndex =
        family ==
        VK_QUEUE_FAMILY_IGNORED ? VK_QUEUE_FAMILY_IGNORED : queue->
        family,.image = im->image,
        /* every plane of a multi-planar image (disjoint or not) */
        .subresourceRange = {
      .aspectMask = in->multiplanar ? (VK_IMAGE_ASPECT_PLANE_0_BIT |
          VK_IMAGE_ASPECT_PLANE_1_BIT | (GST_VIDEO_INFO_N_PLANES
              (in->info) > 2 ? VK_IMAGE_ASPECT_PLANE_2_BIT : 0)) :
          VK_IMAGE_ASPECT_COLOR_BIT,
      .levelCount = 1,.layerCount = 1,
  },};
}

static void
image_read_done (GstMemory * mem)
{
  ((GstVulkanImageMemory *) mem)->barrier.image_layout =
      VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL;
}

/* vkCmdCopyImageToBuffer per plane */
static void
image_record_copy (const GstCudaVkInputFrame * in, VkBuffer dst,
    const gsize * offsets, const gsize * pitches, GstVulkanCommandBuffer * cmd)
{
  const GstVideoInfo *info = in->info;
  guint i, n = GST_VIDEO_INFO_N_PLANES (info);

  for (i = 0; i < n; i++) {
    VkBufferImageCopy region = { 0, };
    gint comp[GST_VIDEO_MAX_COMPONENTS];

    gst_video_format_info_component (info->finfo, i, comp);
    region.bufferOffset = offsets[i];
    /* in texels of the plane */
    region.bufferRowLength = pitches[i] /
        GST_VIDEO_INFO_COMP_PSTRIDE (info, comp[0]);
    region.bufferImageHeight = 0;
    region.imageSubresource.aspectMask = in->aspect[i];
    region.imageSubresource.layerCount = 1;
    region.imageExtent.width = GST_VIDEO_INFO_COMP_WIDTH (info, comp[0]);
    region.imageExtent.height = GST_VIDEO_INFO_COMP_HEIGHT (info, comp[0]);
    region.imageExtent.depth = 1;
    vkCmdCopyImageToBuffer (cmd->cmd, in->image[i]->image,
        VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, dst, 1, &region);
  }
}

static const GstCudaVkMemoryKind image_kind = {
  .caps_feature = GST_CAPS_FEATURE_MEMORY_VULKAN_IMAGE,
  .size_limited = TRUE,
  .needs_layout = TRUE,
  .barrier_timeline = TRUE,
  /* upstream's image pools add one too: vulkandownload after 1.28 finds
   * plane i's memory from its offsets (the caps' offsets fall inside
   * memory 0) */
  .video_meta = TRUE,
  .alloc_plane = image_alloc_plane,
  .wrap_plane = image_wrap_plane,
  .take_over = image_take_over,
  .give_back = image_give_back,
  .parse_input = image_parse_input,
  .record_read = image_record_read,
  .read_done = image_read_done,
  .record_copy = image_record_copy,
};

/* ---- memory:VulkanImage, multi-planar: one linear image per frame ---- */

static gboolean
multiplanar_alloc_plane (const GstCudaVkAllocParams * alloc,
    const GstVideoInfo * info,
    guint i, VkImageUsageFlags usage, GstCudaVkPlane * plane, GError ** error)
{
  g_return_val_if_fail (i == 0, FALSE);
  return gst_cuda_vk_plane_alloc_multiplanar (alloc, plane, info, usage, error);
}

/* Everything but the allocation as for one image per plane: the image is
 * not disjoint, so its barriers name the colour aspect, which covers every
 * plane (VUID-VkImageMemoryBarrier-image-01671), and inputs are parsed by
 * their number of memories (gstcudavkinput.c), as vulkanh264dec's are */
static const GstCudaVkMemoryKind multiplanar_kind = {
  .caps_feature = GST_CAPS_FEATURE_MEMORY_VULKAN_IMAGE,
  .size_limited = TRUE,
  .needs_layout = TRUE,
  .barrier_timeline = TRUE,
  .video_meta = TRUE,
  .multiplanar = TRUE,
  .alloc_plane = multiplanar_alloc_plane,
  .wrap_plane = image_wrap_plane,
  .take_over = image_take_over,
  .give_back = image_give_back,
  .parse_input = image_parse_input,
  .record_read = image_record_read,
  .read_done = image_read_done,
  .record_copy = image_record_copy,
};

/* ---- memory:VulkanImage, one allocation: one linear image per plane,
 * all bound to one exportable allocation ---- */

/* Downstream sees what one image per plane gives it (one memory a plane,
 * each with its own barrier by the colour aspect): only the allocation
 * differs, which CUDA imports once, so that a GstCudaMemory (one base
 * pointer, plane offsets) can describe the frame and upstream write it in
 * place (gstcudavkupstreampool.c). alloc_plane: a frame whose planes could
 * not share one allocation (gstcudavkframepool.c) */
static const GstCudaVkMemoryKind one_allocation_kind = {
  .caps_feature = GST_CAPS_FEATURE_MEMORY_VULKAN_IMAGE,
  .size_limited = TRUE,
  .needs_layout = TRUE,
  .barrier_timeline = TRUE,
  .video_meta = TRUE,
  .one_allocation = TRUE,
  .alloc_plane = image_alloc_plane,
  .alloc_frame = gst_cuda_vk_planes_alloc_one_memory,
  .wrap_plane = image_wrap_plane,
  .take_over = image_take_over,
  .give_back = image_give_back,
  .parse_input = image_parse_input,
  .record_read = image_record_read,
  .read_done = image_read_done,
  .record_copy = image_record_copy,
};

/* ---- memory:VulkanBuffer: one buffer per plane, GstVideoInfo's layout */

static gboolean
buffer_alloc_plane (const GstCudaVkAllocParams * alloc,
    const GstVideoInfo * info,
    guint i, VkImageUsageFlags usage, GstCudaVkPlane * plane, GError ** error)
{
  gint comp[GST_VIDEO_MAX_COMPONENTS];
  gsize stride = GST_VIDEO_INFO_PLANE_STRIDE (info, i);

  gst_video_format_info_component (info->finfo, i, comp);
  if (!gst_cuda_vk_plane_alloc_buffer (alloc, plane, stride *
          GST_VIDEO_INFO_COMP_HEIGHT (info, comp[0]), BUFFER_USAGE, error))
    return FALSE;
  plane->pitch = stride;
  return TRUE;
}

static GstMemory *
buffer_wrap_plane (GstVulkanDevice * device, const GstVideoInfo * info,
    guint i, VkImageUsageFlags usage, GstCudaVkPlane * plane, gpointer holder,
    GDestroyNotify notify)
{
  return gst_vulkan_buffer_memory_wrapped (device, plane->buffer,
      BUFFER_USAGE, holder, notify);
}

static void
buffer_take_over (GstMemory * gmem, GstVulkanQueue * queue,
    GstCudaVkBarriers * barriers, GstCudaVkSubmitSync * sync)
{
  GstVulkanBufferMemory *mem = (GstVulkanBufferMemory *) gmem;

  barriers->buffers[barriers->n_buffers++] = (VkBufferMemoryBarrier) {
  .sType = VK_STRUCTURE_TYPE_BUFFER_MEMORY_BARRIER,.srcAccessMask =
        0,.dstAccessMask =
        VK_ACCESS_MEMORY_READ_BIT |
        VK_ACCESS_MEMORY_WRITE_BIT,.srcQueueFamilyIndex =
        VK_QUEUE_FAMILY_EXTERNAL,.dstQueueFamilyIndex =
        queue->family,.buffer = mem->buffer,.offset = 0,.size = VK_WHOLE_SIZE,};
  mem->barrier.parent.type = GST_VULKAN_BARRIER_TYPE_BUFFER;
  mem->barrier.parent.pipeline_stages = VK_PIPELINE_STAGE_ALL_COMMANDS_BIT;
  mem->barrier.parent.access_flags = VK_ACCESS_MEMORY_WRITE_BIT;
  /* no queue: see image_take_over() */
  gst_cuda_vk_barrier_set_queue (&mem->barrier.parent, NULL);
  mem->barrier.offset = 0;
  mem->barrier.size = VK_WHOLE_SIZE;
}

static VkPipelineStageFlags
buffer_give_back (GstMemory * gmem, GstVulkanQueue * queue,
    GstCudaVkBarriers * barriers, GstCudaVkSubmitSync * sync)
{
  GstVulkanBufferMemory *mem = (GstVulkanBufferMemory *) gmem;
  VkPipelineStageFlags stages;
  VkAccessFlags access;

  gst_cuda_vk_barrier_src_masks (&mem->barrier.parent, queue, &stages, &access);
  barriers->buffers[barriers->n_buffers++] = (VkBufferMemoryBarrier) {
  .sType = VK_STRUCTURE_TYPE_BUFFER_MEMORY_BARRIER,.srcAccessMask =
        access,.dstAccessMask = 0,.srcQueueFamilyIndex =
        queue->family,.dstQueueFamilyIndex =
        VK_QUEUE_FAMILY_EXTERNAL,.buffer = mem->buffer,.offset = 0,.size =
        VK_WHOLE_SIZE,};
  mem->barrier.parent.pipeline_stages = VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT;
  mem->barrier.parent.access_flags = 0;
  return stages;
}

static gboolean
buffer_parse_input (GstCudaVkInputFrame * frame, GstVulkanDevice * device,
    const GstVideoInfo * info, GstBuffer * inbuf, GError ** error)
{
  return gst_cuda_vk_input_frame_parse (frame, device, info, TRUE, inbuf,
      error);
}

static void
buffer_record_read (const GstCudaVkInputFrame * in, guint i,
    GstVulkanQueue * queue, guint32 family, VkAccessFlags access,
    GstCudaVkBarriers * barriers)
{
  GstVulkanBufferMemory *bm =
      (GstVulkanBufferMemory *) gst_buffer_peek_memory (in->buf, i);

  barriers->buffers[barriers->n_buffers++] = (VkBufferMemoryBarrier) {
  .sType = VK_STRUCTURE_TYPE_BUFFER_MEMORY_BARRIER,.srcAccessMask =
        access,.dstAccessMask =
        VK_ACCESS_TRANSFER_READ_BIT,.srcQueueFamilyIndex =
        family,.dstQueueFamilyIndex =
        family ==
        VK_QUEUE_FAMILY_IGNORED ? VK_QUEUE_FAMILY_IGNORED : queue->
        family,.buffer = bm->buffer,.offset = 0,.size = VK_WHOLE_SIZE,};
}

static void
buffer_read_done (GstMemory * mem)
{
}

/* vkCmdCopyBuffer per plane (per row when the strides differ) */
static void
buffer_record_copy (const GstCudaVkInputFrame * in, VkBuffer dst,
    const gsize * offsets, const gsize * pitches, GstVulkanCommandBuffer * cmd)
{
  const GstVideoInfo *info = in->info;
  guint i, n = GST_VIDEO_INFO_N_PLANES (info);

  for (i = 0; i < n; i++) {
    VkBuffer src = in->buffer[i]->buffer;
    gsize offset = in->offset[i], stride = in->stride[i], rb, rows, r;
    gint comp[GST_VIDEO_MAX_COMPONENTS];
    VkBufferCopy one, *rr;

    gst_video_format_info_component (info->finfo, i, comp);
    rb = (gsize) GST_VIDEO_INFO_COMP_WIDTH (info, comp[0]) *
        GST_VIDEO_INFO_COMP_PSTRIDE (info, comp[0]);
    rows = GST_VIDEO_INFO_COMP_HEIGHT (info, comp[0]);
    if (stride == pitches[i]) {
      /* same layout: one copy of the plane */
      one.srcOffset = offset;
      one.dstOffset = offsets[i];
      one.size = stride * (rows - 1) + rb;
      vkCmdCopyBuffer (cmd->cmd, src, dst, 1, &one);
      continue;
    }
    rr = g_new (VkBufferCopy, rows);
    for (r = 0; r < rows; r++) {
      rr[r].srcOffset = offset + r * stride;
      rr[r].dstOffset = offsets[i] + r * pitches[i];
      rr[r].size = rb;
    }
    vkCmdCopyBuffer (cmd->cmd, src, dst, rows, rr);
    g_free (rr);
  }
}

static const GstCudaVkMemoryKind buffer_kind = {
  .caps_feature = GST_CAPS_FEATURE_MEMORY_VULKAN_BUFFER,
  .size_limited = FALSE,
  .needs_layout = FALSE,
  .barrier_timeline = FALSE,
  .video_meta = TRUE,
  .alloc_plane = buffer_alloc_plane,
  .wrap_plane = buffer_wrap_plane,
  .take_over = buffer_take_over,
  .give_back = buffer_give_back,
  .parse_input = buffer_parse_input,
  .record_read = buffer_record_read,
  .read_done = buffer_read_done,
  .record_copy = buffer_record_copy,
};

/* ---- the table ---- */

const GstCudaVkMemoryKind *const
    gst_cuda_vk_memory_kinds[GST_CUDA_VK_N_MEMORY_KINDS] = {
  &image_kind, &buffer_kind, &multiplanar_kind, &one_allocation_kind,
};

/* a variant of its caps feature's kind, not a caps entry of its own */
#define IS_VARIANT(kind) ((kind)->multiplanar || (kind)->one_allocation)

guint
gst_cuda_vk_memory_kind_n_mems (const GstCudaVkMemoryKind * kind,
    const GstVideoInfo * info)
{
  return kind->multiplanar ? 1 : GST_VIDEO_INFO_N_PLANES (info);
}

const GstCudaVkMemoryKind *
gst_cuda_vk_memory_kind_variant (const GstCudaVkMemoryKind * kind,
    const GstVideoInfo * info, gboolean multiplanar)
{
  guint i;

  if (multiplanar && gst_cuda_vk_multiplanar_format (info) ==
      VK_FORMAT_UNDEFINED)
    return NULL;
  for (i = 0; i < GST_CUDA_VK_N_MEMORY_KINDS; i++) {
    const GstCudaVkMemoryKind *k = gst_cuda_vk_memory_kinds[i];

    if (!strcmp (k->caps_feature, kind->caps_feature) &&
        k->multiplanar == multiplanar && !k->one_allocation)
      return k;
  }
  return NULL;
}

const GstCudaVkMemoryKind *
gst_cuda_vk_memory_kind_one_allocation (const GstCudaVkMemoryKind * kind,
    const GstVideoInfo * info)
{
  guint i;

  /* the formats whose planes are images of their own */
  if (gst_cuda_vk_multiplanar_format (info) == VK_FORMAT_UNDEFINED)
    return NULL;
  for (i = 0; i < GST_CUDA_VK_N_MEMORY_KINDS; i++) {
    const GstCudaVkMemoryKind *k = gst_cuda_vk_memory_kinds[i];

    if (!strcmp (k->caps_feature, kind->caps_feature) && k->one_allocation)
      return k;
  }
  return NULL;
}

const GstCudaVkMemoryKind *
gst_cuda_vk_memory_kind_from_caps (GstCaps * caps)
{
  GstCapsFeatures *features = gst_caps_get_features (caps, 0);
  guint i;

  for (i = 0; i < GST_CUDA_VK_N_MEMORY_KINDS; i++) {
    if (!IS_VARIANT (gst_cuda_vk_memory_kinds[i]) &&
        gst_caps_features_contains (features,
            gst_cuda_vk_memory_kinds[i]->caps_feature))
      return gst_cuda_vk_memory_kinds[i];
  }
  return NULL;
}

GstCaps *
gst_cuda_vk_caps_set_features (GstCaps * caps, const gchar * feature)
{
  GstCaps *ret = gst_caps_copy (caps);
  guint i;

  for (i = 0; i < gst_caps_get_size (ret); i++)
    gst_caps_set_features (ret, i, gst_caps_features_new (feature, NULL));
  return ret;
}

GstCaps *
gst_cuda_vk_memory_kinds_template_caps (void)
{
  GstCaps *raw = gst_caps_from_string ("video/x-raw, format = (string) "
      GST_CUDA_VK_FORMATS ", width = " GST_VIDEO_SIZE_RANGE ", height = "
      GST_VIDEO_SIZE_RANGE ", framerate = " GST_VIDEO_FPS_RANGE);
  GstCaps *ret = gst_caps_new_empty ();
  guint i;

  for (i = 0; i < GST_CUDA_VK_N_MEMORY_KINDS; i++) {
    if (!IS_VARIANT (gst_cuda_vk_memory_kinds[i]))
      ret = gst_caps_merge (ret, gst_cuda_vk_caps_set_features (raw,
              gst_cuda_vk_memory_kinds[i]->caps_feature));
  }
  gst_caps_unref (raw);
  return ret;
}

/* Whether @s's @field (a size) can be @max or less; a range is narrowed to
 * what can */
static gboolean
fit_dimension (GstStructure * s, const gchar * field, gint max)
{
  const GValue *v = gst_structure_get_value (s, field);
  gint lo, hi;

  if (v && G_VALUE_HOLDS_INT (v))
    return g_value_get_int (v) <= max;
  if (!v || !GST_VALUE_HOLDS_INT_RANGE (v))
    return TRUE;
  lo = gst_value_get_int_range_min (v);
  hi = gst_value_get_int_range_max (v);
  if (lo > max)
    return FALSE;
  if (hi > max && lo == max)
    gst_structure_set (s, field, G_TYPE_INT, max, NULL);
  else if (hi > max)
    gst_structure_set (s, field, GST_TYPE_INT_RANGE, lo, max, NULL);
  return TRUE;
}

/* Sizes entirely above the size-limited kinds' limit come with the other
 * kinds first (they have no such limit), then with the limited ones last:
 * a downstream that takes those only still negotiates them, and set_caps
 * refuses them with an error that names the limit (instead of a
 * not-negotiated that names nothing). */
GstCaps *
gst_cuda_vk_memory_kinds_caps (GstCaps * caps, guint max_image)
{
  GstCaps *fit = gst_caps_new_empty (), *over = gst_caps_new_empty ();
  GstCaps *ret = gst_caps_new_empty ();
  guint i;

  for (i = 0; i < gst_caps_get_size (caps); i++) {
    GstStructure *s = gst_structure_copy (gst_caps_get_structure (caps, i));

    if (max_image == 0 || (fit_dimension (s, "width", max_image) &&
            fit_dimension (s, "height", max_image))) {
      gst_caps_append_structure (fit, s);
    } else {
      gst_structure_free (s);
      gst_caps_append_structure (over,
          gst_structure_copy (gst_caps_get_structure (caps, i)));
    }
  }
  for (i = 0; i < GST_CUDA_VK_N_MEMORY_KINDS; i++) {
    const GstCudaVkMemoryKind *kind = gst_cuda_vk_memory_kinds[i];

    if (IS_VARIANT (kind))
      continue;
    ret =
        gst_caps_merge (ret,
        gst_cuda_vk_caps_set_features (kind->size_limited ? fit : caps,
            kind->caps_feature));
  }
  for (i = 0; i < GST_CUDA_VK_N_MEMORY_KINDS; i++) {
    const GstCudaVkMemoryKind *kind = gst_cuda_vk_memory_kinds[i];

    if (kind->size_limited && !IS_VARIANT (kind))
      ret =
          gst_caps_merge (ret, gst_cuda_vk_caps_set_features (over,
              kind->caps_feature));
  }
  gst_caps_unref (fit);
  gst_caps_unref (over);
  return ret;
}

/* gst-cudasync
 * Copyright (C) 2026 gst-cudasync developers
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The kinds of Vulkan memory the bridge elements output or take as input
 * (memory:VulkanImage, memory:VulkanBuffer), as a table: what differs
 * between them is here, and the caps, the pad templates, the frame pool and
 * the take-over come from the table. Not installed.
 */
#pragma once

#include <gst/gst.h>
#include <gst/video/video.h>
#include <gst/vulkan/vulkan.h>
#include "gstcudavkmemory.h"
#include "gstcudavksubmit.h"
#include "gstcudavkinput.h"

G_BEGIN_DECLS

/* The barriers of one vkCmdPipelineBarrier */
typedef struct
{
  guint n_images;
  VkImageMemoryBarrier images[GST_VIDEO_MAX_PLANES];
  guint n_buffers;
  VkBufferMemoryBarrier buffers[GST_VIDEO_MAX_PLANES + 1];
} GstCudaVkBarriers;

/* Records @barriers into @cmd, from @src_stages to @dst_stages */
void     gst_cuda_vk_barriers_record     (const GstCudaVkBarriers * barriers,
                                          GstVulkanCommandBuffer * cmd,
                                          VkPipelineStageFlags src_stages,
                                          VkPipelineStageFlags dst_stages);

/**
 * GstCudaVkMemoryKind:
 * @caps_feature: the caps feature of the kind
 * @size_limited: whether the device's image size limits apply
 *   (maxImageDimension2D)
 * @needs_layout: a new frame's memory needs a layout transition before
 *   CUDA writes into it
 * @barrier_timeline: on the timeline path the memory carries a timeline
 *   semaphore of its own in its barrier state (1.24 to 1.28)
 * @video_meta: frames carry a video meta with the planes' offsets
 * @multiplanar: a frame is one memory, a multi-planar image that holds
 *   every plane; otherwise one memory per plane. Such a kind is a variant
 *   of the kind of its caps feature (gst_cuda_vk_memory_kind_variant()),
 *   not a caps entry of its own.
 * @one_allocation: one memory per plane, their images all bound to one
 *   exportable allocation that CUDA imports once (@alloc_frame); a variant
 *   of its caps feature's kind too (gst_cuda_vk_memory_kind_one_allocation())
 * @alloc_plane: allocates memory @i of a frame of @info, exportable, with
 *   @alloc; images with @usage (buffers have their own)
 * @alloc_frame: (nullable) allocates every plane of a frame at once into
 *   @planes; where it fails, the frame pool allocates them one by one
 *   with @alloc_plane
 * @wrap_plane: wraps @plane (memory @i of a frame of @info, allocated with
 *   @usage) into a GstMemory of the kind; @notify (@holder) frees the plane
 *   with the memory
 * @take_over: records the barrier that takes @mem over from CUDA (the
 *   external queue family) on @queue, and sets what later Vulkan users
 *   order after; adds its timeline (if any) to @sync
 * @give_back: records the barrier that gives @mem back to CUDA after its
 *   last use on @queue; returns the stages to wait for
 * @parse_input: checks an input frame of the kind and parses it
 *   (gst_cuda_vk_input_frame_parse())
 * @record_read: records the barrier that makes memory @i of @in readable
 *   by a transfer on @queue, from @family (VK_QUEUE_FAMILY_IGNORED: no
 *   ownership transfer) and @access
 * @read_done: sets what later users of @mem order after the read
 * @record_copy: records the copy of every plane of @in into @dst, plane
 *   @i at @offsets[@i] with @pitches[@i] bytes per row
 *
 * One entry per kind, in the order the caps prefer them
 * (gst_cuda_vk_memory_kinds).
 */
typedef struct
{
  const gchar *caps_feature;
  gboolean size_limited;
  gboolean needs_layout;
  gboolean barrier_timeline;
  gboolean video_meta;
  gboolean multiplanar;
  gboolean one_allocation;

  gboolean (*alloc_plane) (const GstCudaVkAllocParams * alloc,
      const GstVideoInfo * info, guint i, VkImageUsageFlags usage,
      GstCudaVkPlane * plane, GError ** error);
  gboolean (*alloc_frame) (const GstCudaVkAllocParams * alloc,
      const GstVideoInfo * info, VkImageUsageFlags usage,
      GstCudaVkPlane * planes, GError ** error);
  GstMemory * (*wrap_plane) (GstVulkanDevice * device,
      const GstVideoInfo * info, guint i, VkImageUsageFlags usage,
      GstCudaVkPlane * plane, gpointer holder, GDestroyNotify notify);
  void (*take_over) (GstMemory * mem, GstVulkanQueue * queue,
      GstCudaVkBarriers * barriers, GstCudaVkSubmitSync * sync);
  VkPipelineStageFlags (*give_back) (GstMemory * mem, GstVulkanQueue * queue,
      GstCudaVkBarriers * barriers, GstCudaVkSubmitSync * sync);

  gboolean (*parse_input) (GstCudaVkInputFrame * frame,
      GstVulkanDevice * device, const GstVideoInfo * info, GstBuffer * inbuf,
      GError ** error);
  void (*record_read) (const GstCudaVkInputFrame * in, guint i,
      GstVulkanQueue * queue, guint32 family, VkAccessFlags access,
      GstCudaVkBarriers * barriers);
  void (*read_done) (GstMemory * mem);
  void (*record_copy) (const GstCudaVkInputFrame * in, VkBuffer dst,
      const gsize * offsets, const gsize * pitches,
      GstVulkanCommandBuffer * cmd);
} GstCudaVkMemoryKind;

#define GST_CUDA_VK_N_MEMORY_KINDS 4
/* images first: what the caps prefer; variants (multiplanar,
 * one_allocation) after the kinds of their caps feature */
extern const GstCudaVkMemoryKind *const
    gst_cuda_vk_memory_kinds[GST_CUDA_VK_N_MEMORY_KINDS];

/* How many memories a frame of @info of @kind has */
guint gst_cuda_vk_memory_kind_n_mems (const GstCudaVkMemoryKind * kind,
    const GstVideoInfo * info);

/* The variant of @kind (same caps feature) that is @multiplanar, for
 * frames of @info; NULL when there is none for @info's format */
const GstCudaVkMemoryKind * gst_cuda_vk_memory_kind_variant
    (const GstCudaVkMemoryKind * kind, const GstVideoInfo * info,
    gboolean multiplanar);

/* The variant of @kind (same caps feature) whose planes' images share one
 * allocation, for frames of @info; NULL when there is none for @info's
 * format (NV12 and I420 images only) */
const GstCudaVkMemoryKind * gst_cuda_vk_memory_kind_one_allocation
    (const GstCudaVkMemoryKind * kind, const GstVideoInfo * info);

/* The kind of @caps' first structure; NULL when it is none of them */
const GstCudaVkMemoryKind * gst_cuda_vk_memory_kind_from_caps (GstCaps * caps);

/* Every kind's caps, in order, with the formats the bridge supports: the
 * Vulkan side's pad template caps (transfer full) */
GstCaps * gst_cuda_vk_memory_kinds_template_caps (void);
/* A copy of @caps with @feature as the only caps feature of every
 * structure (transfer full) */
GstCaps * gst_cuda_vk_caps_set_features  (GstCaps * caps, const gchar * feature);

/* The Vulkan side of transform_caps: @caps with each kind's feature, in
 * order; with the device's image limit @max_image (0: not known yet) the
 * sizes of the size-limited kinds are narrowed to it, and sizes entirely
 * above it come last (see the .c file) */
GstCaps * gst_cuda_vk_memory_kinds_caps  (GstCaps * caps, guint max_image);

G_END_DECLS

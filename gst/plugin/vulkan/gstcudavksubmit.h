/* gst-cudasync
 * Copyright (C) 2026 gst-cudasync developers
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The waits, signals and barrier state of the bridge elements' queue
 * submissions (gstcudavkinterop.h submits). Part of the bridge elements
 * (cudatovulkan, vulkantocuda); not installed.
 */
#pragma once

#include <gst/gst.h>
#include <gst/video/video.h>
#include <gst/vulkan/vulkan.h>
#include <gst/cuda/gstcudacontext.h>
#include <gst/cudasync/gstcudasync-internal.h>

G_BEGIN_DECLS

/* What one submission waits on and signals. Binary semaphores have value
 * 0. On GStreamer 1.24+ a Vulkan memory may carry a timeline semaphore
 * (GstVulkanBarrierMemoryInfo.semaphore) that GstVulkanOperation users wait
 * on: gst_cuda_vk_sync_add_memory() makes the submission take part in it
 * as they do (wait for the current value, signal the next one, and advance
 * the memory's value once submitted). */
#define GST_CUDA_VK_MAX_SYNC (2 * GST_VIDEO_MAX_PLANES + 2)
typedef struct
{
  guint n_waits;
  VkSemaphore waits[GST_CUDA_VK_MAX_SYNC];
  guint64 wait_values[GST_CUDA_VK_MAX_SYNC];
  guint n_signals;
  VkSemaphore signals[GST_CUDA_VK_MAX_SYNC];
  guint64 signal_values[GST_CUDA_VK_MAX_SYNC];
  guint n_barriers;
  GstVulkanBarrierMemoryInfo *barriers[GST_VIDEO_MAX_PLANES];
  /* a relay's binary semaphores (gstcudavkrelay.h) among the waits and
   * signals: references, dropped once the submission completed */
  guint n_handles;
  GstVulkanHandle *handles[2];
} GstCudaVkSubmitSync;

void     gst_cuda_vk_sync_add_wait       (GstCudaVkSubmitSync * sync, VkSemaphore sem,
                                          guint64 value);
void     gst_cuda_vk_sync_add_signal     (GstCudaVkSubmitSync * sync, VkSemaphore sem,
                                          guint64 value);
/* A wait on (@wait) or a signal of a relay's binary semaphore @handle
 * (transfer full; NULL: nothing) */
void     gst_cuda_vk_sync_add_handle     (GstCudaVkSubmitSync * sync,
                                          GstVulkanHandle * handle,
                                          gboolean wait);
/* Drops the references of @sync that no submission took */
void     gst_cuda_vk_sync_clear          (GstCudaVkSubmitSync * sync);
/* no-op on 1.22, for memory without a timeline semaphore, and where
 * GstVulkanBarrierMemoryInfo has no semaphore fields (upstream after 1.28:
 * see meson.build) */
void     gst_cuda_vk_sync_add_memory     (GstCudaVkSubmitSync * sync,
                                          GstVulkanBarrierMemoryInfo * barrier);

/* For a submission of one's own: @sync's waits and signals in @si, their
 * timeline values (if any) in @tl, chained to @si; @wait_stages has room
 * for GST_CUDA_VK_MAX_SYNC. After a successful vkQueueSubmit,
 * gst_cuda_vk_sync_submitted() advances the memories' timeline values. */
void     gst_cuda_vk_sync_fill           (VkSubmitInfo * si,
                                          VkTimelineSemaphoreSubmitInfo * tl,
                                          VkPipelineStageFlags * wait_stages,
                                          const GstCudaVkSubmitSync * sync);
void     gst_cuda_vk_sync_submitted      (const GstCudaVkSubmitSync * sync);

/* Sets the queue a memory was last used on: an owned reference on
 * GStreamer 1.24+ (the memory unrefs it when freed), a plain pointer
 * before. */
void     gst_cuda_vk_barrier_set_queue   (GstVulkanBarrierMemoryInfo * barrier,
                                          GstVulkanQueue * queue);

/* The source masks of a barrier recorded with vkCmdPipelineBarrier on
 * @queue after @barrier's last use: synchronization1 stages and accesses
 * valid on @queue's family. Returns the queue family to name as the
 * barrier's source: the one of the last use when that is another family
 * (the barrier is then a queue family acquire), else
 * VK_QUEUE_FAMILY_IGNORED. */
guint32  gst_cuda_vk_barrier_src_masks   (GstVulkanBarrierMemoryInfo * barrier,
                                          GstVulkanQueue * queue,
                                          VkPipelineStageFlags * stages,
                                          VkAccessFlags * access);

G_END_DECLS

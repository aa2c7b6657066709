/* gst-cudasync
 * Copyright (C) 2026 gst-cudasync developers
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Submission synchronisation: waits and signals (binary and, on 1.24 to
 * 1.28, the memories' timeline semaphores), barrier state.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstcudavksubmit.h"
#include "gstcudavkcompat.h"

GST_DEBUG_CATEGORY_EXTERN (gst_cuda_vk_debug);
#define GST_CAT_DEFAULT gst_cuda_vk_debug

void
gst_cuda_vk_sync_add_wait (GstCudaVkSubmitSync * sync, VkSemaphore sem,
    guint64 value)
{
  g_return_if_fail (sync->n_waits < GST_CUDA_VK_MAX_SYNC);
  sync->waits[sync->n_waits] = sem;
  sync->wait_values[sync->n_waits++] = value;
}

void
gst_cuda_vk_sync_add_signal (GstCudaVkSubmitSync * sync, VkSemaphore sem,
    guint64 value)
{
  g_return_if_fail (sync->n_signals < GST_CUDA_VK_MAX_SYNC);
  sync->signals[sync->n_signals] = sem;
  sync->signal_values[sync->n_signals++] = value;
}

void
gst_cuda_vk_sync_add_handle (GstCudaVkSubmitSync * sync,
    GstVulkanHandle * handle, gboolean wait)
{
  VkSemaphore sem;

  if (!handle)
    return;
  if (sync->n_handles == G_N_ELEMENTS (sync->handles) ||
      (wait ? sync->n_waits : sync->n_signals) == GST_CUDA_VK_MAX_SYNC) {
    g_critical ("no room for another relay semaphore in a submission");
    gst_mini_object_unref (GST_MINI_OBJECT_CAST (handle));
    return;
  }
  sync->handles[sync->n_handles++] = handle;
  sem = (VkSemaphore) handle->handle;
  /* binary: no value */
  if (wait)
    gst_cuda_vk_sync_add_wait (sync, sem, 0);
  else
    gst_cuda_vk_sync_add_signal (sync, sem, 0);
}

void
gst_cuda_vk_sync_clear (GstCudaVkSubmitSync * sync)
{
  for (guint i = 0; i < sync->n_handles; i++)
    gst_mini_object_unref (GST_MINI_OBJECT_CAST (sync->handles[i]));
  sync->n_handles = 0;
}

void
gst_cuda_vk_sync_add_memory (GstCudaVkSubmitSync * sync,
    GstVulkanBarrierMemoryInfo * barrier)
{
  guint64 value;
  VkSemaphore sem = gst_cuda_vk_compat_barrier_timeline (barrier, &value);

  if (sem == VK_NULL_HANDLE)
    return;
  g_return_if_fail (sync->n_barriers < GST_VIDEO_MAX_PLANES);
  gst_cuda_vk_sync_add_wait (sync, sem, value);
  gst_cuda_vk_sync_add_signal (sync, sem, value + 1);
  sync->barriers[sync->n_barriers++] = barrier;
}

void
gst_cuda_vk_sync_submitted (const GstCudaVkSubmitSync * sync)
{
  /* the next user waits for the value this submission signals */
  for (guint i = 0; i < sync->n_barriers; i++)
    gst_cuda_vk_compat_barrier_advance (sync->barriers[i]);
}

void
gst_cuda_vk_barrier_set_queue (GstVulkanBarrierMemoryInfo * barrier,
    GstVulkanQueue * queue)
{
  gst_cuda_vk_compat_barrier_set_queue (barrier, queue);
}

/* The core synchronization1 bits: VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT to
 * VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, VK_ACCESS_INDIRECT_COMMAND_READ_BIT
 * to VK_ACCESS_MEMORY_WRITE_BIT. synchronization2's flags have the same
 * values there; its others (64 bits wide, video decode and encode among
 * them even below bit 32) mean nothing to vkCmdPipelineBarrier. */
#define SYNC1_STAGES ((guint64) 0x1ffff)
#define SYNC1_ACCESS ((guint64) 0x1ffff)

/* GStreamer 1.24+ keeps synchronization2 flags in the barrier state, as
 * GstVulkanOperation records them (vkCmdPipelineBarrier2); 1.22 keeps
 * synchronization1 flags. A last use on another queue family (a video
 * decode queue) makes the barrier a queue family acquire: its source masks
 * are then ignored, and what orders it after that use is the semaphore the
 * submission waits on; the stages of that family may not even exist on
 * this one. ALL_COMMANDS with no access is valid on every queue. */
guint32
gst_cuda_vk_barrier_src_masks (GstVulkanBarrierMemoryInfo * barrier,
    GstVulkanQueue * queue, VkPipelineStageFlags * stages,
    VkAccessFlags * access)
{
  guint64 st = barrier->pipeline_stages, ac = barrier->access_flags;

  if (barrier->queue && barrier->queue->family != queue->family) {
    *stages = VK_PIPELINE_STAGE_ALL_COMMANDS_BIT;
    *access = 0;
    return barrier->queue->family;
  }
  *stages = (st & ~SYNC1_STAGES) ? VK_PIPELINE_STAGE_ALL_COMMANDS_BIT :
      (VkPipelineStageFlags) st;
  *access = (VkAccessFlags) (ac & SYNC1_ACCESS);
  if (ac & ~SYNC1_ACCESS)
    *access |= VK_ACCESS_MEMORY_READ_BIT | VK_ACCESS_MEMORY_WRITE_BIT;
  return VK_QUEUE_FAMILY_IGNORED;
}

void
gst_cuda_vk_sync_fill (VkSubmitInfo * si, VkTimelineSemaphoreSubmitInfo * tl,
    VkPipelineStageFlags * wait_stages, const GstCudaVkSubmitSync * sync)
{
  gboolean timeline = FALSE;
  guint i;

  for (i = 0; i < sync->n_waits; i++) {
    wait_stages[i] = VK_PIPELINE_STAGE_ALL_COMMANDS_BIT;
    timeline |= sync->wait_values[i] != 0;
  }
  for (i = 0; i < sync->n_signals; i++)
    timeline |= sync->signal_values[i] != 0;

  si->waitSemaphoreCount = sync->n_waits;
  si->pWaitSemaphores = sync->waits;
  si->pWaitDstStageMask = wait_stages;
  si->signalSemaphoreCount = sync->n_signals;
  si->pSignalSemaphores = sync->signals;
  if (timeline) {
    /* values of binary semaphores are ignored */
    tl->sType = VK_STRUCTURE_TYPE_TIMELINE_SEMAPHORE_SUBMIT_INFO;
    tl->waitSemaphoreValueCount = sync->n_waits;
    tl->pWaitSemaphoreValues = sync->wait_values;
    tl->signalSemaphoreValueCount = sync->n_signals;
    tl->pSignalSemaphoreValues = sync->signal_values;
    si->pNext = tl;
  }
}

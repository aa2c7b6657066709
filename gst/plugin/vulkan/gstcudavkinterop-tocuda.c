/* gst-cudasync
 * Copyright (C) 2026 gst-cudasync developers
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * GstCudaVkInterop's hand-over from Vulkan to CUDA (vulkantocuda): a
 * Vulkan copy of the input frame into a staging slot, CUDA's wait for it,
 * and CUDA's copy of the slot into the output memory (unless the output
 * is the slot).
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstcudavkinterop-private.h"
#include "gstcudavkstaging.h"
#include "gstcudasyncelementerror.h"
#include <gst/cuda/gstcudamemory.h>

GST_DEBUG_CATEGORY_EXTERN (gst_cuda_vk_debug);
#define GST_CAT_DEFAULT gst_cuda_vk_debug

/* Barriers that make the input readable by the transfer and, on 1.24+,
 * the waits on (and next signals of) the input's timeline semaphores */
static void
record_input_barriers (GstCudaVkInterop * self,
    const GstCudaVkMemoryKind * kind, const GstCudaVkInputFrame * in,
    GstCudaVkStaging * s, GstVulkanCommandBuffer * cmd,
    GstCudaVkSubmitSync * sync)
{
  /* the input's, then (buffers) the staging acquire */
  GstCudaVkBarriers barriers = { 0, };
  VkPipelineStageFlags src_stages = 0;
  guint i;

  for (i = 0; i < in->n_memories; i++) {
    VkPipelineStageFlags stages;
    VkAccessFlags access;
    /* acquired from the family of its last use when that is another one
     * (a video decode queue), as GstVulkanOperation does */
    guint32 family = gst_cuda_vk_barrier_src_masks (in->barriers[i],
        self->queue, &stages, &access);

    kind->record_read (in, i, self->queue, family, access, &barriers);
    src_stages |= stages;
    gst_cuda_vk_sync_add_memory (sync, in->barriers[i]);
  }
  /* a reused staging buffer comes back from CUDA (its copy out of it is
   * done: slot_state()): acquire it before writing it again */
  if (s->released) {
    barriers.buffers[barriers.n_buffers++] = (VkBufferMemoryBarrier) {
    .sType = VK_STRUCTURE_TYPE_BUFFER_MEMORY_BARRIER,.srcAccessMask =
          0,.dstAccessMask =
          VK_ACCESS_TRANSFER_WRITE_BIT,.srcQueueFamilyIndex =
          VK_QUEUE_FAMILY_EXTERNAL,.dstQueueFamilyIndex =
          self->queue->family,.buffer = s->staging.buffer,.offset =
          0,.size = VK_WHOLE_SIZE,};
  }
  if (!src_stages)
    src_stages = VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT;
  gst_cuda_vk_barriers_record (&barriers, cmd, src_stages,
      VK_PIPELINE_STAGE_TRANSFER_BIT);
}

/* what later users of the input order after */
static void
update_input_barriers (const GstCudaVkMemoryKind * kind,
    const GstCudaVkInputFrame * in)
{
  guint i;

  for (i = 0; i < in->n_memories; i++) {
    GstVulkanBarrierMemoryInfo *barrier = in->barriers[i];

    barrier->pipeline_stages = VK_PIPELINE_STAGE_TRANSFER_BIT;
    barrier->access_flags = VK_ACCESS_TRANSFER_READ_BIT;
    /* No queue, as after upstream's vulkandownload: GstVulkanOperation
     * (1.24 to 1.28) overwrites the memory's queue without dropping the
     * reference it holds, so the element's queue left on a decoder's
     * image leaked when the decoder used the image again, and with it the
     * queue's GstVulkanDevice and GstVulkanInstance (seen with the leaks
     * tracer on the H200 with 1.26.2, vulkanh264dec ! vulkantocuda). */
    gst_cuda_vk_barrier_set_queue (barrier, NULL);
    kind->read_done (gst_buffer_peek_memory (in->buf, i));
  }
}

/* The Vulkan half: copy @in into the staging buffer of @s and hand it to
 * CUDA, signalling @sem (the GPU path; NULL: the fallback) */
static gboolean
submit_vulkan_copy (GstCudaVkInterop * self, const GstCudaVkMemoryKind * kind,
    const GstCudaVkInputFrame * in, GstCudaVkStaging * s,
    GstCudaVkSemaphore * sem, GError ** error)
{
  GstCudaVkSubmitSync sync = { 0, };
  GstVulkanCommandBuffer *cmd;
  VkBufferMemoryBarrier release = { 0, };
  GstVulkanHandle *before, *after = NULL;
  gboolean ok;

  /* upstream main: after the writes of GstVulkanOperation users (the
   * first operation), and their next users after this copy (the second) */
  if (!gst_cuda_vk_relay_before (self->relay, in->buf, &before, error))
    return FALSE;
  gst_cuda_vk_sync_add_handle (&sync, before, TRUE);
  if (!gst_cuda_vk_relay_prepare_after (self->relay, in->buf, &after, error)
      || !(cmd = gst_cuda_vk_interop_begin (self, error))) {
    gst_cuda_vk_sync_clear (&sync);
    gst_clear_vulkan_handle (&after);
    return FALSE;
  }
  if (after)
    gst_cuda_vk_sync_add_handle (&sync, gst_vulkan_handle_ref (after), FALSE);
  record_input_barriers (self, kind, in, s, cmd, &sync);
  kind->record_copy (in, s->staging.buffer, s->offset, s->pitch, cmd);

  /* hand the staging buffer to CUDA */
  release.sType = VK_STRUCTURE_TYPE_BUFFER_MEMORY_BARRIER;
  release.srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT;
  release.dstAccessMask = 0;
  release.srcQueueFamilyIndex = self->queue->family;
  release.dstQueueFamilyIndex = VK_QUEUE_FAMILY_EXTERNAL;
  release.buffer = s->staging.buffer;
  release.offset = 0;
  release.size = VK_WHOLE_SIZE;
  vkCmdPipelineBarrier (cmd->cmd, VK_PIPELINE_STAGE_TRANSFER_BIT,
      VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, 0, 0, NULL, 1, &release, 0, NULL);

  /* a timeline's next value, committed once submitted */
  if (sem)
    gst_cuda_vk_sync_add_signal (&sync, sem->vk_sem,
        gst_cuda_vk_semaphore_next_value (sem));
  s->fence = gst_cuda_vk_interop_submit (self, cmd, &sync,
      GST_MINI_OBJECT_CAST (in->buf), error);
  gst_cuda_vk_sync_clear (&sync);
  if (!s->fence) {
    gst_clear_vulkan_handle (&after);
    return FALSE;
  }
  gst_cuda_vk_interop_count (self, GST_CUDA_VK_COUNTER_GPU_COPIES, 1);
  if (sem)
    gst_cuda_vk_semaphore_vk_signalled (sem);
  /* a binary semaphore now signalled: should CUDA's wait not follow
   * (wait_vulkan_copy()), the slot gets a new one before its reuse */
  s->sem_unwaited = sem && !sem->timeline;
  s->released = TRUE;
  /* upstream main: the timelines advance before the barrier state says
   * what this copy did, so that a user that reads that state also waits
   * for the copy */
  ok = gst_cuda_vk_relay_after (self->relay, in->buf, after, error);
  gst_clear_vulkan_handle (&after);
  update_input_barriers (kind, in);
  return ok;
}

/* CUDA waits for the Vulkan copy into @s: on the GPU for @sem's signal,
 * or (fallback, no @sem) on the CPU for the copy's fence */
static gboolean
wait_vulkan_copy (GstCudaVkInterop * self, GstCudaVkStaging * s,
    GstCudaVkSemaphore * sem, GError ** error)
{
  GError *err = NULL;
  VkResult res;

  if (sem) {
    /* the value this copy signalled (a binary semaphore's is 0). Binary:
     * cleared once the event behind the wait is recorded, as the slot (and
     * this semaphore) is reused only after that event completed; a
     * timeline wait consumes nothing, so an error before it leaves nothing
     * to repair */
    s->sem_unwaited = !sem->timeline;
    gst_cuda_vk_interop_count (self, GST_CUDA_VK_COUNTER_SIGNALS, 1);
    if (!gst_cuda_semaphore_wait (sem->sem, self->stream, sem->vk_value, &err)) {
      gst_cuda_sync_wrap_error (error, err, "CUDA operation failed");
      return FALSE;
    }
    gst_cuda_vk_interop_count (self, GST_CUDA_VK_COUNTER_WAITS, 1);
    return TRUE;
  }
  /* no exportable semaphore: wait for the Vulkan copy on the CPU */
  res = vkWaitForFences (self->device->device, 1,
      &GST_VULKAN_FENCE_FENCE (s->fence), VK_TRUE, G_MAXUINT64);
  gst_cuda_vk_interop_count (self, GST_CUDA_VK_COUNTER_CPU_SYNCS, 1);
  if (gst_vulkan_error_to_g_error (res, &err, "vkWaitForFences") < 0) {
    gst_cuda_sync_wrap_error (error, err, "Could not copy the Vulkan frame "
        "for CUDA");
    return FALSE;
  }
  return TRUE;
}

/* The CUDA half, context pushed: copy the staging buffer into @omem (laid
 * out as @info) on the stream and record the slot's event behind it. */
static gboolean
enqueue_cuda_copy (GstCudaVkInterop * self, const GstVideoInfo * info,
    GstCudaVkStaging * s, GstMemory * omem, GError ** error)
{
  GstCudaMemory *cmem = GST_CUDA_MEMORY_CAST (omem);
  CUstream stream = self->stream;
  GstMapInfo map;
  guint i;

  if (!gst_memory_map (omem, &map, GST_MAP_WRITE | GST_MAP_CUDA)) {
    g_set_error (error, GST_CUDA_SYNC_ERROR, GST_CUDA_SYNC_ERROR_FAILED,
        "Could not map the output CUDA memory");
    return FALSE;
  }
  for (i = 0; i < GST_VIDEO_INFO_N_PLANES (info); i++) {
    gint comp[GST_VIDEO_MAX_COMPONENTS];
    gsize wbytes, h;

    gst_video_format_info_component (info->finfo, i, comp);
    wbytes = (gsize) GST_VIDEO_INFO_COMP_WIDTH (info, comp[0]) *
        GST_VIDEO_INFO_COMP_PSTRIDE (info, comp[0]);
    h = GST_VIDEO_INFO_COMP_HEIGHT (info, comp[0]);
    if (!gst_cuda_vk_copy_2d (stream, (CUdeviceptr) map.data +
            GST_VIDEO_INFO_PLANE_OFFSET (&cmem->info, i),
            GST_VIDEO_INFO_PLANE_STRIDE (&cmem->info, i),
            s->staging.cuda_ptr + s->offset[i], s->pitch[i], wbytes, h,
            error)) {
      gst_memory_unmap (omem, &map);
      return FALSE;
    }
  }
  gst_memory_unmap (omem, &map);
  gst_cuda_vk_interop_count (self, GST_CUDA_VK_COUNTER_COPIES, 1);
  gst_cuda_vk_interop_count (self, GST_CUDA_VK_COUNTER_GPU_COPIES, 1);

  if (!s->event && !(s->event = gst_cuda_sync_event_new (self->cuda, TRUE,
              error)))
    return FALSE;
  if (!gst_cuda_sync_event_record (s->event, stream, error))
    return FALSE;
  s->event_pending = TRUE;
  s->sem_unwaited = FALSE;
  /* 1.24+: the memory carries the interop's stream (the pool's), and its
   * consumers order themselves after it. Otherwise (1.22) the consumers
   * work on blocking streams of their own or the legacy default stream:
   * make the legacy stream wait for the copy on the GPU, and every later
   * work of blocking streams is ordered after it. No CPU wait either way. */
  if (gst_cuda_sync_memory_get_stream (omem) != stream) {
    if (!gst_cuda_sync_event_wait_gpu (s->event, CU_STREAM_LEGACY, error))
      return FALSE;
  }
  return TRUE;
}

gboolean
gst_cuda_vk_interop_download (GstCudaVkInterop * self,
    const GstCudaVkMemoryKind * kind, const GstCudaVkInputFrame * in,
    GstCudaVkStaging * s, GstMemory * omem, GError ** error)
{
  GstCudaVkSemaphore *sem;
  GError *err = NULL;
  gboolean ok;

  sem = gst_cuda_vk_interop_semaphore_for_slot (self, &s->sem);
  if (!submit_vulkan_copy (self, kind, in, s, sem, &err)) {
    gst_cuda_sync_wrap_error (error, err, "Could not copy the Vulkan frame "
        "for CUDA");
    return FALSE;
  }
  if (!wait_vulkan_copy (self, s, sem, error))
    return FALSE;

  if (s->wrap) {
    /* the output is the slot: no CUDA copy. Its release event comes after
     * the wait (see gstcudavkstaging.h), so that is what reuses the slot
     * and its binary semaphore. Consumers order themselves after the wait
     * on the memory's stream. */
    s->sem_unwaited = FALSE;
    if (sem)
      gst_cuda_vk_compat_memory_set_pending (omem, TRUE);
    return TRUE;
  }
  if (!gst_cuda_context_push (self->cuda)) {
    GST_CUDA_SYNC_SET_ERROR (error, RESOURCE, FAILED,
        ("Could not make the CUDA context current"), (NULL));
    return FALSE;
  }
  ok = enqueue_cuda_copy (self, in->info, s, omem, &err);
  gst_cuda_context_pop (NULL);
  if (!ok)
    gst_cuda_sync_wrap_error (error, err, "CUDA operation failed");
  return ok;
}

gboolean
gst_cuda_vk_interop_download_lent (GstCudaVkInterop * self,
    const GstCudaVkMemoryKind * kind, GstBuffer * frame, GstCudaVkFrame * f,
    GstMemory * omem, GError ** error)
{
  GstCudaVkSemaphore *sem = self->timeline;
  GstVulkanFence *fence;
  GError *err = NULL;

  g_return_val_if_fail (sem || !self->gpu_sync, FALSE);
  /* a frame already given back (the same buffer pushed again) is waited
   * for again; its frame goes back to upstream when the last output
   * around it is freed */
  if (f->used) {
    /* upstream's writes (its Vulkan work, submitted), then the images back
     * to CUDA and the timeline's next value */
    fence = gst_cuda_vk_interop_give_back (self, kind, frame, f->n_mems, sem,
        &err);
    if (!fence) {
      gst_cuda_sync_wrap_error (error, err, "Could not hand a Vulkan frame "
          "over to CUDA");
      return FALSE;
    }
    f->used = FALSE;
    f->lent_value = sem ? sem->vk_value : 0;
    gst_cuda_vk_interop_count (self, GST_CUDA_VK_COUNTER_IN_PLACE, 1);
    /* no exportable semaphore: wait for the give-back on the CPU */
    if (!sem)
      return gst_cuda_vk_interop_wait_fence (self, fence, "Could not hand a "
          "Vulkan frame over to CUDA", error);
    /* kept with the frame: its pool checks it before the frame is used
     * again or freed, so that Vulkan sees the submission complete */
    if (f->fence)
      gst_vulkan_fence_unref (f->fence);
    f->fence = fence;
    gst_cuda_vk_interop_count (self, GST_CUDA_VK_COUNTER_SIGNALS, 1);
  } else {
    gst_cuda_vk_interop_count (self, GST_CUDA_VK_COUNTER_IN_PLACE, 1);
    if (!sem)
      return TRUE;
  }
  if (!gst_cuda_semaphore_wait (sem->sem, self->stream, f->lent_value, &err)) {
    gst_cuda_sync_wrap_error (error, err, "CUDA operation failed");
    return FALSE;
  }
  gst_cuda_vk_interop_count (self, GST_CUDA_VK_COUNTER_WAITS, 1);
  /* consumers order themselves after the wait on the memory's stream */
  gst_cuda_vk_compat_memory_set_pending (omem, TRUE);
  return TRUE;
}

/* gst-cudasync
 * Copyright (C) 2026 gst-cudasync developers
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * GstCudaVkInterop's hand-overs from CUDA to Vulkan (cudatovulkan): the
 * take-over of a CUDA frame into a frame of Vulkan memory, and the
 * give-back of that frame to CUDA once downstream is done with it.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstcudavkinterop-private.h"
#include "gstcudasyncelementerror.h"
#include <gst/cuda/gstcudamemory.h>

GST_DEBUG_CATEGORY_EXTERN (gst_cuda_vk_debug);
#define GST_CAT_DEFAULT gst_cuda_vk_debug

/* Where a frame's CUDA work goes. On GStreamer 1.24+, the input memory's
 * own stream when it carries one and the input is then held until the copy
 * has run (no release point; the held input's event is what the flush
 * waits for): the producer's work is ordered before the copy with no
 * event, and a pipeline keeps one CUDA stream instead of two. That
 * matters: the GPU has CUDA_DEVICE_MAX_CONNECTIONS hardware queues (8 by
 * default) for all streams, and streams that share one are serialised,
 * each semaphore wait holding up the others (several pipelines with two
 * streams each: docs/benchmarks.md, scenario 6). Otherwise the interop's
 * stream, ordered after the
 * memory's pending work by an event. */
static CUstream
work_stream (GstCudaVkInterop * self, GstCudaMemory * cmem, gboolean gpu,
    GstCudaSyncMeta * meta)
{
  CUstream mem_stream = gst_cuda_sync_memory_get_stream (GST_MEMORY_CAST
      (cmem));

  if (mem_stream && !(gpu && meta && gst_cuda_sync_meta_get_release (meta,
              NULL)))
    return mem_stream;
  return self->stream;
}

/* The incoming buffer's acquire points (an upstream cudasemsignal's),
 * waited for on @stream, on the GPU */
static gboolean
wait_acquire_points (GstCudaVkInterop * self, GstCudaSyncMeta * meta,
    CUstream stream, GError ** error)
{
  guint n_waits = 0;

  if (!gst_cuda_sync_meta_wait_gpu_checked (meta, self->cuda, stream,
          GST_CUDA_SYNC_FLAG_NONE, &n_waits, error))
    return FALSE;
  gst_cuda_vk_interop_count (self, GST_CUDA_VK_COUNTER_WAITS, n_waits);
  return TRUE;
}

/* The CUDA half: copies @cmem (laid out as @info) into @f's planes on
 * @stream, after the producer's pending work */
static gboolean
copy_into_frame (GstCudaVkInterop * self, GstCudaMemory * cmem,
    const GstVideoInfo * info, GstCudaVkFrame * f, CUstream stream,
    GError ** error)
{
  gboolean ok = TRUE;
  GstMapInfo map;
  guint i;

  /* 1.24+: the producer's work on the memory's own stream may be pending */
  if (!gst_cuda_sync_memory_wait_pending (GST_MEMORY_CAST (cmem), stream,
          error))
    return FALSE;
  if (!gst_memory_map (GST_MEMORY_CAST (cmem), &map,
          GST_MAP_READ | GST_MAP_CUDA)) {
    g_set_error (error, GST_CUDA_SYNC_ERROR, GST_CUDA_SYNC_ERROR_FAILED,
        "Could not map the input CUDA memory");
    return FALSE;
  }
  if (!gst_cuda_context_push (self->cuda)) {
    gst_memory_unmap (GST_MEMORY_CAST (cmem), &map);
    g_set_error (error, GST_CUDA_SYNC_ERROR, GST_CUDA_SYNC_ERROR_DRIVER,
        "Could not make the CUDA context current");
    return FALSE;
  }
  for (i = 0; i < GST_VIDEO_INFO_N_PLANES (info) && ok; i++) {
    gint comp[GST_VIDEO_MAX_COMPONENTS];
    gsize wbytes, h;

    gst_video_format_info_component (info->finfo, i, comp);
    wbytes = (gsize) GST_VIDEO_INFO_COMP_WIDTH (info, comp[0]) *
        GST_VIDEO_INFO_COMP_PSTRIDE (info, comp[0]);
    h = GST_VIDEO_INFO_COMP_HEIGHT (info, comp[0]);
    ok = gst_cuda_vk_copy_2d (stream, f->plane_ptr[i], f->plane_pitch[i],
        (CUdeviceptr) map.data + GST_VIDEO_INFO_PLANE_OFFSET (&cmem->info, i),
        GST_VIDEO_INFO_PLANE_STRIDE (&cmem->info, i), wbytes, h, error);
  }
  gst_cuda_context_pop (NULL);
  gst_memory_unmap (GST_MEMORY_CAST (cmem), &map);
  if (ok) {
    gst_cuda_vk_interop_count (self, GST_CUDA_VK_COUNTER_COPIES, 1);
    gst_cuda_vk_interop_count (self, GST_CUDA_VK_COUNTER_GPU_COPIES, 1);
  }
  return ok;
}

/* 1.24+: the producer's writes into @mem are complete, or ordered before
 * everything that will touch the memory again: clears
 * GST_CUDA_MEMORY_TRANSFER_NEED_SYNC, as upstream's gst_cuda_buffer_copy()
 * does once it has ordered its reading after them. Otherwise the memory's
 * free synchronises its whole stream on the CPU (cuStreamSynchronize in
 * gst_cuda_allocator_free()), waiting for the work of later frames too:
 * seen on the H200 as a CPU stall a frame with frames written in place. */
static void
writes_done (GstMemory * mem)
{
  gst_cuda_vk_compat_memory_set_pending (mem, FALSE);
}

/* The CUDA side of a frame: acquire points, the copy (unless upstream
 * wrote the frame in place), then either a signal of @sem (GPU path: the
 * timeline, or the frame's binary semaphore; *@value is the value
 * signalled; a copied input held until the copy has run) or, when @sem is
 * NULL, a CPU wait for the copy or upstream's writing (fallback) */
static gboolean
cuda_side (GstCudaVkInterop * self, GstBuffer * inbuf,
    const GstVideoInfo * info, GstCudaVkFrame * f, gboolean in_place,
    GstCudaVkSemaphore * sem, guint64 * value, GError ** error)
{
  GstCudaMemory *cmem = GST_CUDA_MEMORY_CAST (gst_buffer_peek_memory (inbuf,
          0));
  GstCudaSyncMeta *meta = gst_buffer_get_cuda_sync_meta (inbuf);
  CUstream stream = work_stream (self, cmem, sem != NULL, meta);

  if (meta && !wait_acquire_points (self, meta, stream, error))
    return FALSE;
  if (in_place) {
    /* the output frame is the input's memory: the frame pool keeps it
     * from upstream until Vulkan is done with it, nothing to hold */
    if (!gst_cuda_sync_memory_wait_pending (GST_MEMORY_CAST (cmem), stream,
            error))
      return FALSE;
    gst_cuda_vk_interop_count (self, GST_CUDA_VK_COUNTER_IN_PLACE, 1);
  } else if (!copy_into_frame (self, cmem, info, f, stream, error)) {
    return FALSE;
  }
  if (!sem) {
    /* Vulkan cannot wait on the GPU: make the copy complete first (a host
     * wait through Vulkan on a CUDA-signalled semaphore would be slower) */
    if (!gst_cuda_vk_interop_cpu_sync (self, stream, error))
      return FALSE;
    if (in_place)
      writes_done (GST_MEMORY_CAST (cmem));
    return TRUE;
  }
  /* Before the signal (a failure here leaves the frame's semaphore
   * unsignalled, so the frame stays reusable): the copy out of the input
   * runs later on the GPU, while upstream 1.22 CUDA elements write the
   * next frame into a recycled buffer as soon as it is back in their
   * pool, with nothing ordering that write after the copy. An input with
   * a release point is given back at once: the release point is signalled
   * after the copy. */
  if (!in_place && !(meta && gst_cuda_sync_meta_get_release (meta, NULL)) &&
      !gst_cuda_vk_interop_hold (self, inbuf, stream, error))
    return FALSE;
  /* the timeline's next value; or the frame's own binary semaphore, which
   * the pool handed out only once the Vulkan wait on its previous signal
   * had completed */
  if (!gst_cuda_vk_semaphore_signal (sem, stream, value, error))
    return FALSE;
  gst_cuda_vk_interop_count (self, GST_CUDA_VK_COUNTER_SIGNALS, 1);
  /* in place: the signal is on the memory's own stream, after upstream's
   * writes, and the frame pool hands the memory out again only after the
   * Vulkan work that waited for it; nobody else reads it (a tee passes no
   * pool on) */
  if (in_place)
    writes_done (GST_MEMORY_CAST (cmem));
  return TRUE;
}

/* The Vulkan half: a submission that waits for CUDA's signal of @value on
 * @sem (GPU path; NULL: the fallback) and takes @outbuf's memories (of
 * @kind) over from CUDA. @lend: on any thread, in the give-back command
 * pool (gst_cuda_vk_interop_lend()); its fence in *@lend_fence. */
static gboolean
submit_take_over (GstCudaVkInterop * self, const GstCudaVkMemoryKind * kind,
    GstBuffer * outbuf, GstCudaVkFrame * f, GstCudaVkSemaphore * sem,
    guint64 value, gboolean lend, GstVulkanFence ** lend_fence, GError ** error)
{
  GstCudaVkBarriers barriers = { 0, };
  GstCudaVkSubmitSync sync = { 0, };
  GstVulkanCommandBuffer *cmd;
  GstVulkanFence *fence;
  GstVulkanHandle *relayed = NULL;
  gboolean ok;
  guint i;

  /* upstream main: the images' timelines advance after this submission */
  if (!gst_cuda_vk_relay_prepare_after (self->relay, outbuf, &relayed, error))
    return FALSE;
  if (lend) {
    g_mutex_lock (&self->give_back_cmd_lock);
    cmd = gst_cuda_vk_interop_begin_in (self, self->give_back_cmd_pool,
        "lend commands", error);
  } else {
    cmd = gst_cuda_vk_interop_begin (self, error);
  }
  if (!cmd) {
    if (lend)
      g_mutex_unlock (&self->give_back_cmd_lock);
    gst_clear_vulkan_handle (&relayed);
    return FALSE;
  }
  if (relayed)
    gst_cuda_vk_sync_add_handle (&sync, gst_vulkan_handle_ref (relayed), FALSE);
  for (i = 0; i < f->n_mems; i++)
    kind->take_over (gst_buffer_peek_memory (outbuf, i), self->queue,
        &barriers, &sync);
  /* source stage = the semaphore wait's stage (ALL_COMMANDS): that makes
   * the wait, this barrier and every later command on the queue one
   * dependency chain, so downstream's own submissions read the frame only
   * after CUDA's copy. With TOP_OF_PIPE here the chain is broken: seen on
   * the H200 as a vulkandownload branch reading a frame early, with several
   * branches submitting to one queue. */
  gst_cuda_vk_barriers_record (&barriers, cmd,
      VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT);
  if (sem)
    gst_cuda_vk_sync_add_wait (&sync, sem->vk_sem, value);
  if (lend) {
    /* nothing kept: freeing the give-back list must not give frames back
     * (interop-private.h) */
    fence = gst_cuda_vk_interop_submit_to (self, cmd, &sync, NULL, TRUE, error);
    g_mutex_unlock (&self->give_back_cmd_lock);
  } else {
    fence = gst_cuda_vk_interop_submit (self, cmd, &sync,
        GST_MINI_OBJECT_CAST (outbuf), error);
  }
  gst_cuda_vk_sync_clear (&sync);
  if (!fence) {
    gst_clear_vulkan_handle (&relayed);
    return FALSE;
  }
  if (sem)
    gst_cuda_vk_semaphore_wait_submitted (sem, fence);
  if (lend_fence)
    *lend_fence = fence;
  else
    gst_vulkan_fence_unref (fence);
  f->used = TRUE;
  ok = gst_cuda_vk_relay_after (self->relay, outbuf, relayed, error);
  gst_clear_vulkan_handle (&relayed);
  return ok;
}

gboolean
gst_cuda_vk_interop_take_over (GstCudaVkInterop * self, GstBuffer * inbuf,
    const GstVideoInfo * info, GstBuffer * outbuf, GstCudaVkFrame * frame,
    const GstCudaVkMemoryKind * kind, gboolean in_place, GError ** error)
{
  GstCudaVkSemaphore *sem;
  GError *err = NULL;
  guint64 value = 0;

  sem = gst_cuda_vk_interop_semaphore_for_slot (self, &frame->sem);
  if (!cuda_side (self, inbuf, info, frame, in_place, sem, &value, &err)) {
    gst_cuda_sync_wrap_error (error, err, "Could not copy the CUDA frame "
        "into shareable Vulkan memory");
    return FALSE;
  }
  if (!submit_take_over (self, kind, outbuf, frame, sem, value, FALSE, NULL,
          &err)) {
    gst_cuda_sync_wrap_error (error, err, "Could not hand the frame over to "
        "Vulkan");
    return FALSE;
  }
  return TRUE;
}

gboolean
gst_cuda_vk_interop_lend (GstCudaVkInterop * self,
    const GstCudaVkMemoryKind * kind, GstBuffer * buf, GstCudaVkFrame * frame,
    GError ** error)
{
  GstVulkanFence *fence = NULL;
  GError *err = NULL;

  if (!submit_take_over (self, kind, buf, frame, NULL, 0, TRUE, &fence, &err)) {
    gst_cuda_sync_wrap_error (error, err, "Could not take a frame over "
        "from CUDA for upstream");
    return FALSE;
  }
  /* the timeline path: upstream's GstVulkanOperation waits for the
   * take-over on the GPU, by the images' timelines (1.24 to 1.28) or the
   * relay (main). Otherwise nothing orders upstream's submissions after
   * it but a CPU wait. */
  if (self->timeline) {
    gst_vulkan_fence_unref (fence);
    return TRUE;
  }
  return gst_cuda_vk_interop_wait_fence (self, fence, "Could not take a "
      "frame over from CUDA for upstream", error);
}

GstVulkanFence *
gst_cuda_vk_interop_give_back (GstCudaVkInterop * self,
    const GstCudaVkMemoryKind * kind, GstBuffer * buf, guint n_mems,
    GstCudaVkSemaphore * sem, GError ** error)
{
  GstCudaVkBarriers barriers = { 0, };
  GstCudaVkSubmitSync sync = { 0, };
  VkPipelineStageFlags src_stages = 0;
  GstVulkanCommandBuffer *cmd;
  GstVulkanFence *fence;
  GstVulkanHandle *relayed;
  guint i;

  /* upstream main: after the work of GstVulkanOperation users */
  if (!gst_cuda_vk_relay_before (self->relay, buf, &relayed, error))
    return NULL;
  gst_cuda_vk_sync_add_handle (&sync, relayed, TRUE);
  for (i = 0; i < n_mems; i++) {
    /* 1.24 to 1.28: after the work of GstVulkanOperation users, on
     * whatever queue (the images' timelines, gstcudavkframepool.c) */
    src_stages |= kind->give_back (gst_buffer_peek_memory (buf, i),
        self->queue, &barriers, &sync);
  }
  /* images and VkBuffers alike go back to the external queue family, with
   * a fence that tells when downstream's work on them is done */
  if (!src_stages)
    src_stages = VK_PIPELINE_STAGE_ALL_COMMANDS_BIT;
  g_mutex_lock (&self->give_back_cmd_lock);
  cmd = gst_cuda_vk_interop_begin_in (self, self->give_back_cmd_pool,
      "release commands", error);
  if (!cmd) {
    g_mutex_unlock (&self->give_back_cmd_lock);
    gst_cuda_vk_sync_clear (&sync);
    return NULL;
  }
  gst_cuda_vk_barriers_record (&barriers, cmd, src_stages,
      VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT);
  /* a timeline's next value, committed once submitted */
  if (sem)
    gst_cuda_vk_sync_add_signal (&sync, sem->vk_sem,
        gst_cuda_vk_semaphore_next_value (sem));
  /* the fence also covers all earlier work on the queue: downstream's */
  fence = gst_cuda_vk_interop_submit_to (self, cmd, &sync, NULL, TRUE, error);
  g_mutex_unlock (&self->give_back_cmd_lock);
  gst_cuda_vk_sync_clear (&sync);
  if (fence && sem)
    gst_cuda_vk_semaphore_vk_signalled (sem);
  return fence;
}

/* gst-cudasync
 * Copyright (C) 2026 gst-cudasync developers
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * GstCudaVkInterop: the stream, command buffers, queue submissions and CPU
 * waits of the bridge elements, with no knowledge of them (see the
 * header).
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstcudavkinterop-private.h"
#include <gst/cuda/cuda-gst.h>

GST_DEBUG_CATEGORY_EXTERN (gst_cuda_vk_debug);
#define GST_CAT_DEFAULT gst_cuda_vk_debug

#define EXT_SEM_FD VK_KHR_EXTERNAL_SEMAPHORE_FD_EXTENSION_NAME

G_DEFINE_TYPE (GstCudaVkInterop, gst_cuda_vk_interop, GST_TYPE_OBJECT);

static void
gst_cuda_vk_interop_finalize (GObject * object)
{
  GstCudaVkInterop *self = GST_CUDA_VK_INTEROP (object);

  gst_cuda_vk_interop_stop (self);
  gst_clear_object (&self->trash);
  g_clear_pointer (&self->fences, gst_cuda_vk_fence_pool_free);
  gst_clear_object (&self->cmd_pool);
  gst_clear_object (&self->queue);
  gst_clear_object (&self->device);
  gst_clear_object (&self->cuda);
  g_mutex_clear (&self->trash_lock);
  G_OBJECT_CLASS (gst_cuda_vk_interop_parent_class)->finalize (object);
}

static void
gst_cuda_vk_interop_class_init (GstCudaVkInteropClass * klass)
{
  G_OBJECT_CLASS (klass)->finalize = gst_cuda_vk_interop_finalize;
}

static void
gst_cuda_vk_interop_init (GstCudaVkInterop * self)
{
  g_mutex_init (&self->trash_lock);
}

GstCudaVkInterop *
gst_cuda_vk_interop_new (GstCudaContext * cuda, GstCudaStream * cuda_stream,
    CUstream stream, GstVulkanQueue * queue, const GstCudaVkNamer * namer,
    GstCudaVkCountFunc count, gpointer user_data, GError ** error)
{
  GstCudaVkInterop *self;
  GstVulkanCommandPool *cmd_pool;

  g_return_val_if_fail (GST_IS_CUDA_CONTEXT (cuda), NULL);
  g_return_val_if_fail (GST_IS_VULKAN_QUEUE (queue), NULL);

  cmd_pool = gst_vulkan_queue_create_command_pool (queue, error);
  if (!cmd_pool)
    return NULL;
  self = g_object_new (GST_TYPE_CUDA_VK_INTEROP, NULL);
  gst_object_ref_sink (self);
  self->cuda = gst_object_ref (cuda);
  self->stream = stream;
  self->cuda_stream = gst_cuda_vk_compat_stream_ref (cuda_stream);
  self->count = count;
  self->count_data = user_data;
  self->queue = gst_object_ref (queue);
  self->device = gst_object_ref (queue->device);
  self->cmd_pool = cmd_pool;
  if (namer)
    self->namer = *namer;
  /* the device's set-up made sure it has it */
  self->get_memory_fd = gst_vulkan_device_get_proc_address (self->device,
      "vkGetMemoryFdKHR");
  if (gst_vulkan_device_is_extension_enabled (self->device, EXT_SEM_FD))
    self->get_semaphore_fd = gst_vulkan_device_get_proc_address
        (self->device, "vkGetSemaphoreFdKHR");
  self->trash = gst_vulkan_trash_fence_list_new ();
  self->fences = gst_cuda_vk_fence_pool_new (self->device);
  return self;
}

/* every submission made so far has completed, and what it used is
 * released */
static void
wait_submissions (GstCudaVkInterop * self)
{
  g_mutex_lock (&self->trash_lock);
  if (self->trash)
    gst_vulkan_trash_list_wait (self->trash, G_MAXUINT64);
  g_mutex_unlock (&self->trash_lock);
}

void
gst_cuda_vk_interop_stop (GstCudaVkInterop * self)
{
  wait_submissions (self);
  /* the semaphores and the pooled memory may still be used by enqueued
   * work: let it finish. A stream belongs to its context: it can be
   * synchronised without the context current, if pushing it fails. */
  if (self->stream) {
    gboolean pushed = gst_cuda_context_push (self->cuda);

    CuStreamSynchronize (self->stream);
    if (pushed)
      gst_cuda_context_pop (NULL);
    else
      GST_WARNING_OBJECT (self, "could not make the CUDA context current to "
          "wait for the stream");
  }
  self->stream = NULL;
  gst_cuda_vk_compat_stream_unref (&self->cuda_stream);
  self->gpu_sync = FALSE;
  /* after the fences and the stream: nothing uses them any more */
  g_clear_pointer (&self->timeline, gst_cuda_vk_semaphore_free);
  gst_clear_object (&self->offer_sem);
  if (self->offer_vk_sem && self->device->device)
    vkDestroySemaphore (self->device->device, self->offer_vk_sem, NULL);
  self->offer_vk_sem = VK_NULL_HANDLE;
}

GstCudaContext *
gst_cuda_vk_interop_get_context (GstCudaVkInterop * self)
{
  return self->cuda;
}

CUstream
gst_cuda_vk_interop_get_stream (GstCudaVkInterop * self)
{
  return self->stream;
}

GstCudaStream *
gst_cuda_vk_interop_get_cuda_stream (GstCudaVkInterop * self)
{
  return self->cuda_stream;
}

GstVulkanQueue *
gst_cuda_vk_interop_get_queue (GstCudaVkInterop * self)
{
  return self->queue;
}

GstVulkanCommandPool *
gst_cuda_vk_interop_get_command_pool (GstCudaVkInterop * self)
{
  return self->cmd_pool;
}

const GstCudaVkNamer *
gst_cuda_vk_interop_get_namer (GstCudaVkInterop * self)
{
  return &self->namer;
}

GstCudaVkSemaphore *
gst_cuda_vk_interop_get_timeline (GstCudaVkInterop * self)
{
  return self->timeline;
}

GstCudaSemaphore *
gst_cuda_vk_interop_get_offer_semaphore (GstCudaVkInterop * self)
{
  return self->offer_sem;
}

gboolean
gst_cuda_vk_interop_cpu_sync (GstCudaVkInterop * self, CUstream stream,
    GError ** error)
{
  CUresult r;

  if (!gst_cuda_context_push (self->cuda)) {
    g_set_error (error, GST_CUDA_SYNC_ERROR, GST_CUDA_SYNC_ERROR_FAILED,
        "Could not make the CUDA context current");
    return FALSE;
  }
  r = CuStreamSynchronize (stream);
  gst_cuda_context_pop (NULL);
  gst_cuda_vk_interop_count (self, GST_CUDA_VK_COUNTER_CPU_SYNCS, 1);
  return gst_cuda_sync_check_result (r, "cuStreamSynchronize", error);
}

GstVulkanCommandBuffer *
gst_cuda_vk_interop_begin (GstCudaVkInterop * self, GError ** error)
{
  VkCommandBufferBeginInfo bi = { 0, };
  GstVulkanCommandBuffer *cmd;
  VkResult res;

  cmd = gst_vulkan_command_pool_create (self->cmd_pool, error);
  if (!cmd)
    return NULL;
  gst_cuda_vk_namer_name (&self->namer, VK_OBJECT_TYPE_COMMAND_BUFFER,
      (guint64) (guintptr) cmd->cmd, "commands");
  bi.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO;
  bi.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
  gst_vulkan_command_buffer_lock (cmd);
  res = vkBeginCommandBuffer (cmd->cmd, &bi);
  if (gst_vulkan_error_to_g_error (res, error, "vkBeginCommandBuffer") < 0) {
    gst_vulkan_command_buffer_unlock (cmd);
    gst_vulkan_command_buffer_unref (cmd);
    return NULL;
  }
  return cmd;
}

/* @cmd and @keep are released once @fence signals */
static void
trash_add (GstCudaVkInterop * self, GstVulkanFence * fence,
    GstVulkanCommandBuffer * cmd, GstMiniObject * keep)
{
  GstVulkanTrashList *trash;

  g_mutex_lock (&self->trash_lock);
  trash = self->trash;
  gst_vulkan_trash_list_add (trash, gst_vulkan_trash_list_acquire (trash,
          fence, gst_vulkan_trash_mini_object_unref,
          GST_MINI_OBJECT_CAST (cmd)));
  if (keep)
    gst_vulkan_trash_list_add (trash, gst_vulkan_trash_list_acquire (trash,
            fence, gst_vulkan_trash_mini_object_unref,
            gst_mini_object_ref (keep)));
  gst_vulkan_trash_list_gc (trash);
  g_mutex_unlock (&self->trash_lock);
}

GstVulkanFence *
gst_cuda_vk_interop_submit (GstCudaVkInterop * self,
    GstVulkanCommandBuffer * cmd, const GstCudaVkSubmitSync * sync,
    GstMiniObject * keep, GError ** error)
{
  VkPipelineStageFlags wait_stages[GST_CUDA_VK_MAX_SYNC];
  VkTimelineSemaphoreSubmitInfo tl = { 0, };
  VkSubmitInfo si = { 0, };
  GstVulkanFence *fence;
  VkResult res;

  res = vkEndCommandBuffer (cmd->cmd);
  gst_vulkan_command_buffer_unlock (cmd);
  if (gst_vulkan_error_to_g_error (res, error, "vkEndCommandBuffer") < 0) {
    gst_vulkan_command_buffer_unref (cmd);
    return NULL;
  }

  fence = gst_cuda_vk_fence_pool_get (self->fences, error);
  if (!fence) {
    gst_vulkan_command_buffer_unref (cmd);
    return NULL;
  }

  si.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO;
  si.commandBufferCount = 1;
  si.pCommandBuffers = &cmd->cmd;
  if (sync)
    gst_cuda_vk_sync_fill (&si, &tl, wait_stages, sync);

  gst_vulkan_queue_submit_lock (self->queue);
  res = vkQueueSubmit (self->queue->queue, 1, &si,
      GST_VULKAN_FENCE_FENCE (fence));
  gst_vulkan_queue_submit_unlock (self->queue);
  if (gst_vulkan_error_to_g_error (res, error, "vkQueueSubmit") < 0) {
    gst_vulkan_command_buffer_unref (cmd);
    gst_cuda_vk_fence_pool_discard (self->fences, fence);
    gst_vulkan_fence_unref (fence);
    return NULL;
  }
  if (sync)
    gst_cuda_vk_sync_submitted (sync);
  trash_add (self, fence, cmd, keep);
  return fence;
}

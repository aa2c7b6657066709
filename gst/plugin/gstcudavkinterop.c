/* gst-cudasync
 * Copyright (C) 2026 gst-cudasync developers
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * GstCudaVkInterop: command buffers and queue submissions of the bridge
 * elements, with no knowledge of them (see the header).
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstcudavkinterop.h"

GST_DEBUG_CATEGORY_EXTERN (gst_cuda_vk_debug);
#define GST_CAT_DEFAULT gst_cuda_vk_debug

struct _GstCudaVkInterop
{
  GstObject parent;

  GstVulkanQueue *queue;
  GstVulkanCommandPool *cmd_pool;
  GstCudaVkNamer namer;
  GstCudaVkFencePool *fences;
  /* trash_lock guards trash: cudatovulkan's frame pool submits from
   * upstream's thread too when it allocates for the upstream pool. Freeing
   * what the list held may release frames to their pool (the pool's lock,
   * a queue's submit lock), never the other way round. */
  GMutex trash_lock;
  GstVulkanTrashList *trash;
};

G_DEFINE_TYPE (GstCudaVkInterop, gst_cuda_vk_interop, GST_TYPE_OBJECT);

static void
gst_cuda_vk_interop_finalize (GObject * object)
{
  GstCudaVkInterop *self = GST_CUDA_VK_INTEROP (object);

  gst_cuda_vk_interop_wait_idle (self);
  gst_clear_object (&self->trash);
  g_clear_pointer (&self->fences, gst_cuda_vk_fence_pool_free);
  gst_clear_object (&self->cmd_pool);
  gst_clear_object (&self->queue);
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
gst_cuda_vk_interop_new (GstVulkanQueue * queue, const GstCudaVkNamer * namer,
    GError ** error)
{
  GstCudaVkInterop *self;
  GstVulkanCommandPool *cmd_pool;

  g_return_val_if_fail (GST_IS_VULKAN_QUEUE (queue), NULL);

  cmd_pool = gst_vulkan_queue_create_command_pool (queue, error);
  if (!cmd_pool)
    return NULL;
  self = g_object_new (GST_TYPE_CUDA_VK_INTEROP, NULL);
  gst_object_ref_sink (self);
  self->queue = gst_object_ref (queue);
  self->cmd_pool = cmd_pool;
  if (namer)
    self->namer = *namer;
  self->trash = gst_vulkan_trash_fence_list_new ();
  self->fences = gst_cuda_vk_fence_pool_new (queue->device);
  return self;
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

void
gst_cuda_vk_interop_wait_idle (GstCudaVkInterop * self)
{
  g_mutex_lock (&self->trash_lock);
  if (self->trash)
    gst_vulkan_trash_list_wait (self->trash, G_MAXUINT64);
  g_mutex_unlock (&self->trash_lock);
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

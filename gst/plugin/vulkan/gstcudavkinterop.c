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
#include "gstcudasyncelementerror.h"
#include <gst/cuda/cuda-gst.h>
#include <gst/cuda/gstcudamemory.h>
#include <string.h>

GST_DEBUG_CATEGORY_EXTERN (gst_cuda_vk_debug);
#define GST_CAT_DEFAULT gst_cuda_vk_debug

#define EXT_SEM_FD VK_KHR_EXTERNAL_SEMAPHORE_FD_EXTENSION_NAME

G_DEFINE_TYPE (GstCudaVkInterop, gst_cuda_vk_interop, GST_TYPE_OBJECT);

static void
gst_cuda_vk_interop_finalize (GObject * object)
{
  GstCudaVkInterop *self = GST_CUDA_VK_INTEROP (object);

  gst_cuda_vk_interop_stop (self);
  gst_cuda_vk_interop_wait_given_back (self);
  g_clear_pointer (&self->relay, gst_cuda_vk_relay_free);
  gst_clear_object (&self->trash);
  gst_clear_object (&self->give_back_trash);
  g_ptr_array_unref (self->unreleased);
  g_clear_pointer (&self->fences, gst_cuda_vk_fence_pool_free);
  gst_clear_object (&self->cmd_pool);
  gst_clear_object (&self->give_back_cmd_pool);
  gst_clear_object (&self->queue);
  gst_clear_object (&self->device);
  gst_clear_object (&self->cuda);
  g_mutex_clear (&self->trash_lock);
  g_mutex_clear (&self->give_back_lock);
  g_mutex_clear (&self->give_back_cmd_lock);
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
  g_mutex_init (&self->give_back_lock);
  g_mutex_init (&self->give_back_cmd_lock);
  self->unreleased = g_ptr_array_new_with_free_func ((GDestroyNotify)
      gst_buffer_unref);
}

GstCudaVkInterop *
gst_cuda_vk_interop_new (GstCudaContext * cuda, GstCudaStream * cuda_stream,
    CUstream stream, GstVulkanQueue * queue, const GstCudaVkNamer * namer,
    const GstCudaVkInteropFuncs * funcs, gpointer user_data, GError ** error)
{
  GstCudaVkInterop *self;
  GstVulkanCommandPool *cmd_pool, *give_back_cmd_pool;
  GstCudaVkRelay *relay;
  GError *err = NULL;

  g_return_val_if_fail (GST_IS_CUDA_CONTEXT (cuda), NULL);
  g_return_val_if_fail (GST_IS_VULKAN_QUEUE (queue), NULL);

  relay = gst_cuda_vk_relay_new (queue, &err);
  if (err) {
    g_propagate_error (error, err);
    return NULL;
  }
  cmd_pool = gst_vulkan_queue_create_command_pool (queue, error);
  give_back_cmd_pool = cmd_pool ?
      gst_vulkan_queue_create_command_pool (queue, error) : NULL;
  if (!give_back_cmd_pool) {
    gst_clear_object (&cmd_pool);
    gst_cuda_vk_relay_free (relay);
    return NULL;
  }
  self = g_object_new (GST_TYPE_CUDA_VK_INTEROP, NULL);
  gst_object_ref_sink (self);
  self->cuda = gst_object_ref (cuda);
  self->stream = stream;
  self->cuda_stream = gst_cuda_vk_compat_stream_ref (cuda_stream);
  if (funcs)
    self->funcs = *funcs;
  self->user_data = user_data;
  self->queue = gst_object_ref (queue);
  self->device = gst_object_ref (queue->device);
  self->cmd_pool = cmd_pool;
  self->give_back_cmd_pool = give_back_cmd_pool;
  self->relay = relay;
  if (namer)
    self->namer = *namer;
  self->alloc.cuda = self->cuda;
  self->alloc.device = self->device;
  self->alloc.namer = &self->namer;
  /* the device's set-up made sure it has it */
  self->alloc.get_memory_fd = gst_vulkan_device_get_proc_address
      (self->device, "vkGetMemoryFdKHR");
  if (gst_vulkan_device_is_extension_enabled (self->device, EXT_SEM_FD))
    self->get_semaphore_fd = gst_vulkan_device_get_proc_address
        (self->device, "vkGetSemaphoreFdKHR");
  self->trash = gst_vulkan_trash_fence_list_new ();
  self->give_back_trash = gst_vulkan_trash_fence_list_new ();
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

/* ---- what is held until CUDA's work on it has run ---- */

typedef struct
{
  GstCudaVkInterop *self;
  GstBuffer *buf;
} Held;

/* 1.24+: the producer's writes into @buf's memories are complete, or
 * ordered before everything that will touch them again: clears
 * GST_CUDA_MEMORY_TRANSFER_NEED_SYNC, as upstream's gst_cuda_buffer_copy()
 * does once it has ordered its reading after them. Otherwise the memory's
 * free synchronises its whole stream on the CPU (cuStreamSynchronize in
 * gst_cuda_allocator_free()), waiting for the work of later frames too. */
static void
writes_done (GstBuffer * buf)
{
  guint i;

  for (i = 0; i < gst_buffer_n_memory (buf); i++)
    if (gst_is_cuda_memory (gst_buffer_peek_memory (buf, i)))
      gst_cuda_vk_compat_memory_set_pending (gst_buffer_peek_memory (buf, i),
          FALSE);
}

/* A GstCudaSyncReleaseFunc, on the releaser's thread once the work
 * recorded before the held buffer's event has run (the events are
 * blocking-sync, so the thread sleeps), in order. One releaser per
 * interop, so a pipeline whose GPU work is slow or stuck never delays
 * another's buffers. */
static void
release_held (gpointer data, const GError * error)
{
  Held *h = data;
  GstCudaVkInterop *self = h->self;

  if (!error) {
    writes_done (h->buf);
    gst_buffer_unref (h->buf);
  } else {
    GError *err = NULL;

    /* the copy out of it may still run: upstream must not reuse it. Kept
     * until flush, which runs after the stream's work. */
    GST_CUDA_SYNC_SET_ERROR (&err, RESOURCE, FAILED,
        ("Could not tell whether the GPU copy out of an input frame has "
            "completed"), ("%s", error->message));
    if (self->funcs.error)
      self->funcs.error (self->user_data, err);
    else
      g_error_free (err);
    g_ptr_array_add (self->unreleased, h->buf);
  }
  g_free (h);
}

gboolean
gst_cuda_vk_interop_hold (GstCudaVkInterop * self, GstBuffer * buf,
    CUstream stream, GError ** error)
{
  Held *h;

  if (!self->releaser)
    self->releaser = gst_cuda_sync_releaser_new ("cudavk-release");
  h = g_new (Held, 1);
  h->self = self;
  h->buf = gst_buffer_ref (buf);
  /* the releaser's own events, reused once completed */
  if (!gst_cuda_sync_releaser_push_after (self->releaser, self->cuda, stream,
          release_held, h, error)) {
    gst_buffer_unref (h->buf);
    g_free (h);
    return FALSE;
  }
  return TRUE;
}

/* Gives back everything held once its event has completed: the releaser
 * stops after calling every function pushed */
static void
release_all_held (GstCudaVkInterop * self)
{
  g_clear_pointer (&self->releaser, gst_cuda_sync_releaser_free);
}

/* After the stream's work: drops what could not be tracked, and the
 * events */
static void
drop_unreleased (GstCudaVkInterop * self)
{
  g_ptr_array_set_size (self->unreleased, 0);
}

void
gst_cuda_vk_interop_flush (GstCudaVkInterop * self)
{
  /* first what is held: its events come after every copy, also those on
   * an input's own stream, which the stream below does not cover */
  release_all_held (self);
  if (self->stream)
    gst_cuda_vk_interop_cpu_sync (self, self->stream, NULL);
  drop_unreleased (self);
}

void
gst_cuda_vk_interop_stop (GstCudaVkInterop * self)
{
  release_all_held (self);
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
  /* vulkantocuda's give-backs of frames upstream wrote signal the
   * timeline too */
  if (self->timeline)
    gst_cuda_vk_interop_wait_given_back (self);
  /* after the fences and the stream: nothing uses them any more */
  g_clear_pointer (&self->timeline, gst_cuda_vk_semaphore_free);
  gst_clear_object (&self->offer_sem);
  if (self->offer_vk_sem && self->device->device)
    vkDestroySemaphore (self->device->device, self->offer_vk_sem, NULL);
  self->offer_vk_sem = VK_NULL_HANDLE;
  drop_unreleased (self);
  /* a frame pool may keep the interop beyond its maker: it tells it
   * nothing more */
  memset (&self->funcs, 0, sizeof (self->funcs));
  self->user_data = NULL;
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

const GstCudaVkNamer *
gst_cuda_vk_interop_get_namer (GstCudaVkInterop * self)
{
  return &self->namer;
}

const GstCudaVkAllocParams *
gst_cuda_vk_interop_get_alloc_params (GstCudaVkInterop * self)
{
  return &self->alloc;
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
  return gst_cuda_vk_interop_begin_named (self, "commands", error);
}

GstVulkanCommandBuffer *
gst_cuda_vk_interop_begin_named (GstCudaVkInterop * self, const gchar * what,
    GError ** error)
{
  return gst_cuda_vk_interop_begin_in (self, self->cmd_pool, what, error);
}

GstVulkanCommandBuffer *
gst_cuda_vk_interop_begin_in (GstCudaVkInterop * self,
    GstVulkanCommandPool * pool, const gchar * what, GError ** error)
{
  VkCommandBufferBeginInfo bi = { 0, };
  GstVulkanCommandBuffer *cmd;
  VkResult res;

  cmd = gst_vulkan_command_pool_create (pool, error);
  if (!cmd)
    return NULL;
  gst_cuda_vk_namer_name (&self->namer, VK_OBJECT_TYPE_COMMAND_BUFFER,
      (guint64) (guintptr) cmd->cmd, what);
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

/* A command buffer the interop named, whose work is done */
typedef struct
{
  GstCudaVkNamer namer;
  GstVulkanCommandBuffer *cmd;
} NamedCommands;

/* Drops the name before the command buffer goes back to its pool: the
 * validation layer keeps the names of freed command buffers, and a
 * handle that upstream's pool gets next would carry ours in its
 * messages */
static void
named_commands_done (GstVulkanDevice * device, gpointer data)
{
  NamedCommands *nc = data;

  gst_cuda_vk_namer_name (&nc->namer, VK_OBJECT_TYPE_COMMAND_BUFFER,
      (guint64) (guintptr) nc->cmd->cmd, NULL);
  gst_vulkan_command_buffer_unref (nc->cmd);
  g_free (nc);
}

/* @cmd, @keep and @sync's relay semaphores are released once @fence
 * signals */
static void
trash_add (GstCudaVkInterop * self, GstVulkanFence * fence,
    GstVulkanCommandBuffer * cmd, GstMiniObject * keep,
    GstCudaVkSubmitSync * sync, gboolean give_back)
{
  GMutex *lock = give_back ? &self->give_back_lock : &self->trash_lock;
  GstVulkanTrashList *trash;
  guint i;

  g_mutex_lock (lock);
  trash = give_back ? self->give_back_trash : self->trash;
  if (self->namer.fn) {
    NamedCommands *nc = g_new (NamedCommands, 1);

    nc->namer = self->namer;
    nc->cmd = cmd;
    gst_vulkan_trash_list_add (trash, gst_vulkan_trash_list_acquire (trash,
            fence, named_commands_done, nc));
  } else {
    gst_vulkan_trash_list_add (trash, gst_vulkan_trash_list_acquire (trash,
            fence, gst_vulkan_trash_mini_object_unref,
            GST_MINI_OBJECT_CAST (cmd)));
  }
  if (keep)
    gst_vulkan_trash_list_add (trash, gst_vulkan_trash_list_acquire (trash,
            fence, gst_vulkan_trash_mini_object_unref,
            gst_mini_object_ref (keep)));
  for (i = 0; sync && i < sync->n_handles; i++)
    gst_vulkan_trash_list_add (trash, gst_vulkan_trash_list_acquire (trash,
            fence, gst_vulkan_trash_mini_object_unref,
            GST_MINI_OBJECT_CAST (sync->handles[i])));
  if (sync)
    sync->n_handles = 0;
  gst_vulkan_trash_list_gc (trash);
  g_mutex_unlock (lock);
}

void
gst_cuda_vk_interop_wait_given_back (GstCudaVkInterop * self)
{
  g_mutex_lock (&self->give_back_cmd_lock);
  g_mutex_lock (&self->give_back_lock);
  gst_vulkan_trash_list_wait (self->give_back_trash, G_MAXUINT64);
  g_mutex_unlock (&self->give_back_lock);
  g_mutex_unlock (&self->give_back_cmd_lock);
}

GstVulkanFence *
gst_cuda_vk_interop_submit (GstCudaVkInterop * self,
    GstVulkanCommandBuffer * cmd, GstCudaVkSubmitSync * sync,
    GstMiniObject * keep, GError ** error)
{
  return gst_cuda_vk_interop_submit_to (self, cmd, sync, keep, FALSE, error);
}

GstVulkanFence *
gst_cuda_vk_interop_submit_to (GstCudaVkInterop * self,
    GstVulkanCommandBuffer * cmd, GstCudaVkSubmitSync * sync,
    GstMiniObject * keep, gboolean give_back, GError ** error)
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
  trash_add (self, fence, cmd, keep, sync, give_back);
  return fence;
}

gboolean
gst_cuda_vk_interop_wait_fence (GstCudaVkInterop * self,
    GstVulkanFence * fence, const gchar * what, GError ** error)
{
  GError *err = NULL;
  VkResult res;

  res = vkWaitForFences (self->device->device, 1,
      &GST_VULKAN_FENCE_FENCE (fence), VK_TRUE, G_MAXUINT64);
  gst_vulkan_fence_unref (fence);
  gst_cuda_vk_interop_count (self, GST_CUDA_VK_COUNTER_CPU_SYNCS, 1);
  if (gst_vulkan_error_to_g_error (res, &err, "vkWaitForFences") < 0) {
    gst_cuda_sync_wrap_error (error, err, what);
    return FALSE;
  }
  return TRUE;
}

/* gst-cudasync
 * Copyright (C) 2026 gst-cudasync developers
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * GstCudaVkInterop's state, for its own parts (gstcudavkinterop.c and the
 * files its header names). Everything else uses gstcudavkinterop.h. Not
 * installed.
 */
#pragma once

#include "gstcudavkinterop.h"
#include "gstcudavkrelay.h"

G_BEGIN_DECLS

struct _GstCudaVkInterop
{
  GstObject parent;

  GstCudaContext *cuda;
  /* the stream the hand-overs' CUDA work is on, and its GstCudaStream
   * (a reference, 1.24+; else NULL): set on the CUDA pools the element
   * proposes and uses, so that the memory it hands out and the memory
   * written for it carry that stream. NULL after stop. */
  CUstream stream;
  GstCudaStream *cuda_stream;
  GstCudaVkInteropFuncs funcs;
  gpointer user_data;

  GstVulkanDevice *device;
  GstVulkanQueue *queue;
  GstVulkanCommandPool *cmd_pool;
  GstCudaVkNamer namer;
  /* for the exportable memory of its frames and staging slots: @cuda,
   * @device and @namer, with vkGetMemoryFdKHR */
  GstCudaVkAllocParams alloc;
  PFN_vkGetSemaphoreFdKHR get_semaphore_fd;
  GstCudaVkFencePool *fences;
  /* trash_lock guards trash: cudatovulkan's frame pool submits from
   * upstream's thread too when it allocates for the upstream pool. Freeing
   * what the list held may release frames to their pool (the pool's lock,
   * a queue's submit lock), never the other way round. */
  GMutex trash_lock;
  GstVulkanTrashList *trash;
  /* the give-back submissions (command buffers only): a list of their own,
   * since freeing the hand-overs' list may give frames back */
  GMutex give_back_lock;
  GstVulkanTrashList *give_back_trash;
  /* Give-backs run on whichever thread drops a frame, and record into a
   * command pool of their own: GstVulkanCommandPool (1.22 to 1.28) clears
   * a released command buffer's pool pointer after it made the buffer
   * available again, so a buffer made on another thread at that moment
   * loses its pool. give_back_cmd_lock (taken before give_back_lock)
   * serialises making their command buffers with freeing them. */
  GMutex give_back_cmd_lock;
  GstVulkanCommandPool *give_back_cmd_pool;
  /* upstream main: the submissions' part in the images' timelines
   * (gstcudavkrelay.h); NULL on 1.22 to 1.28. Its lock is taken alone or
   * under (never around) the trash lock. */
  GstCudaVkRelay *relay;

  /* What is held until the CUDA work enqueued before it has run
   * (gst_cuda_vk_interop_hold()): the releaser's thread gives it back, in
   * order. The streaming thread makes the releaser and holds; flush and
   * stop (after streaming) free it. @unreleased: what could not be
   * tracked, kept until then (the releaser's thread adds to it). */
  GstCudaSyncReleaser *releaser;
  GPtrArray *unreleased;

  /* set by setup_sync, until stop. GPU path: Vulkan exports semaphores
   * (opaque fd) that CUDA imports. FALSE when Vulkan cannot export
   * semaphores or CUDA cannot import them: then the CPU fallback applies. */
  gboolean gpu_sync;
  /* GPU path on 1.24+ (the device's timeline semaphores, where wanted):
   * the one timeline semaphore. NULL: one binary semaphore per pooled
   * frame / staging slot (gst_cuda_vk_interop_semaphore_for_slot()) */
  GstCudaVkSemaphore *timeline;
  /* for an upstream cudasemsignal (cudatovulkan only): CUDA-only use */
  VkSemaphore offer_vk_sem;
  GstCudaSemaphore *offer_sem;
};

/* tells the maker's count function, if any */
static inline void
gst_cuda_vk_interop_count (GstCudaVkInterop * self, GstCudaVkCounter c,
    guint64 add)
{
  if (self->funcs.count)
    self->funcs.count (self->user_data, c, add);
}

/* Holds @buf (a reference; CUDA memory) until the CUDA work enqueued on
 * @stream so far has run, then clears its memories' pending writes
 * (GST_CUDA_MEMORY_TRANSFER_NEED_SYNC: the producer's writes are complete
 * too) and gives it back; never blocks */
gboolean gst_cuda_vk_interop_hold (GstCudaVkInterop * self, GstBuffer * buf,
    CUstream stream, GError ** error);

/* The CPU fallback's wait for @fence (taken), counted in cpu-syncs; on
 * failure @error says @what, with the Vulkan error as its cause */
gboolean gst_cuda_vk_interop_wait_fence (GstCudaVkInterop * self,
    GstVulkanFence * fence, const gchar * what, GError ** error);

/* gst_cuda_vk_interop_begin() with the command buffer named @what */
GstVulkanCommandBuffer *gst_cuda_vk_interop_begin_named (GstCudaVkInterop *
    self, const gchar * what, GError ** error);
/* the same, from @pool (the interop's give-back pool) */
GstVulkanCommandBuffer *gst_cuda_vk_interop_begin_in (GstCudaVkInterop * self,
    GstVulkanCommandPool * pool, const gchar * what, GError ** error);
/* gst_cuda_vk_interop_submit() into the list of give-back submissions
 * (@give_back) or of hand-overs */
GstVulkanFence *gst_cuda_vk_interop_submit_to (GstCudaVkInterop * self,
    GstVulkanCommandBuffer * cmd, GstCudaVkSubmitSync * sync,
    GstMiniObject * keep, gboolean give_back, GError ** error);

G_END_DECLS

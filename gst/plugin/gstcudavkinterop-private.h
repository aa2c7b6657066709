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
  GstCudaVkCountFunc count;
  gpointer count_data;

  GstVulkanDevice *device;
  GstVulkanQueue *queue;
  GstVulkanCommandPool *cmd_pool;
  GstCudaVkNamer namer;
  PFN_vkGetMemoryFdKHR get_memory_fd;
  PFN_vkGetSemaphoreFdKHR get_semaphore_fd;
  GstCudaVkFencePool *fences;
  /* trash_lock guards trash: cudatovulkan's frame pool submits from
   * upstream's thread too when it allocates for the upstream pool. Freeing
   * what the list held may release frames to their pool (the pool's lock,
   * a queue's submit lock), never the other way round. */
  GMutex trash_lock;
  GstVulkanTrashList *trash;

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
  if (self->count)
    self->count (self->count_data, c, add);
}

G_END_DECLS

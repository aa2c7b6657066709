/* gst-cudasync
 * Copyright (C) 2026 gst-cudasync developers
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Scenario 3's raw reference (d, d_stall, d_split): its slots and
 * context.
 */
#pragma once

#include "frames.h"

#ifdef HAVE_CUDA_VULKAN
#include <gst/vulkan/vulkan.h>

G_BEGIN_DECLS

#define D_MAX_PLANES 2

typedef struct
{
  CUdeviceptr src;              /* the CUDA frame (own allocation) */
  struct
  {
    VkImage image;
    VkDeviceMemory memory;
    CUexternalMemory ext;
    CUdeviceptr ptr;            /* the image's texels in CUDA */
    VkDeviceSize offset, pitch, alloc;
    gsize wbytes, rows, host_off;
  } p[D_MAX_PLANES];
  VkBuffer host;                /* the consumer's host-visible copy */
  VkDeviceMemory host_mem;
  guint8 *host_map;
  VkSemaphore vk_sem;
  CUexternalSemaphore cu_sem;
  VkFence fence;
  VkCommandBuffer cmd;
  VkCommandBuffer cmd_take;     /* d_split: the acquire barrier alone */
  EvPair *pair;
  guint frame;
  gdouble t0;
} DSlot;

typedef struct
{
  Run *run;
  GstVulkanDevice *device;
  GstVulkanQueue *queue;
  VkDevice dev;
  guint family;
  VkCommandPool cpool;
  VkFence drain_fence;          /* d_drain () */
  gboolean submitted;           /* a vkQueueSubmit succeeded (set under
                                 * the queue's submit lock) */
  PFN_vkGetMemoryFdKHR get_mem_fd;
  PFN_vkGetSemaphoreFdKHR get_sem_fd;
  DSlot *slots;
  guint n_slots;
  GAsyncQueue *done;            /* submitted slots, in order; d: stop */
  GAsyncQueue *free_slots;
  guint n_planes;
  gboolean verify_kernel;
  gchar *bad;                   /* first byte mismatch */
  /* d_stall: the consumer submits and waits, one frame at a time;
   * d_split: and the producer submits the semaphore wait before */
  gboolean stall, split, gpu;
} DCtx;

/* scenario-3-raw-setup.c */
/* "d: @what failed: VK_ERROR_... (n)" */
gchar *  d_vk_error           (const gchar * what, VkResult res);
/* the bench's Vulkan device, its queue, the entry points, the command
 * pool */
gboolean d_open               (DCtx * d, Bench * b, gchar ** error);
/* every slot's CUDA frame, images, host buffer, semaphore, fence and
 * command buffers */
gboolean d_slots_setup        (DCtx * d, gchar ** error);
/* every slot's command buffers, recorded once (after the images' layout
 * change) */
gboolean d_record_all         (DCtx * d, gchar ** error);
/* waits for this instance's work, then frees what it set up */
void     d_teardown           (DCtx * d);

G_END_DECLS
#endif

/* gst-cudasync
 * Copyright (C) 2026 gst-cudasync developers
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The Vulkan queue object every bridge element of the process submits to,
 * and the recycler of the fences of those submissions (see the .c file).
 * Neither knows an element. Not installed.
 */
#pragma once

#include <gst/gst.h>
#include <gst/vulkan/vulkan.h>

G_BEGIN_DECLS

/* Fences recycled by their user instead of 1.22's device fence cache (see
 * the .c file); thread-safe. _get() returns an unsignalled fence (transfer
 * full). */
typedef struct _GstCudaVkFencePool GstCudaVkFencePool;
GstCudaVkFencePool *gst_cuda_vk_fence_pool_new (GstVulkanDevice * device);
void gst_cuda_vk_fence_pool_free (GstCudaVkFencePool * pool);
GstVulkanFence *gst_cuda_vk_fence_pool_get (GstCudaVkFencePool * pool,
    GError ** error);
void gst_cuda_vk_fence_pool_discard (GstCudaVkFencePool * pool,
    GstVulkanFence * fence);

/* The GstVulkanQueue object every bridge element uses for @device (one per
 * process and device, so that they share its submit lock; see the .c file).
 * @candidate (nullable): the queue a neighbour answered, adopted when there
 * is none yet. Transfer full; NULL when the device has no graphics or
 * compute queue. */
GstVulkanQueue *gst_cuda_vk_shared_queue (GstVulkanDevice * device,
    GstVulkanQueue * candidate);

/* Waits on the CPU until every submission to @queue so far has completed
 * (vkQueueWaitIdle under its submit lock, which the queue's users share
 * through gst_cuda_vk_shared_queue()) */
void gst_cuda_vk_queue_wait_idle (GstVulkanQueue * queue);

G_END_DECLS

/* gst-cudasync
 * Copyright (C) 2026 gst-cudasync developers
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The Vulkan device shared with CUDA, its queue object and fences. Part of the bridge elements
 * (cudatovulkan, vulkantocuda); not installed.
 */
#pragma once

#include <gst/gst.h>
#include <gst/video/video.h>
#include <gst/vulkan/vulkan.h>
#include <gst/cuda/gstcudacontext.h>
#include <gst/cudasync/cudasync.h>

G_BEGIN_DECLS

typedef struct _GstCudaVkBridge GstCudaVkBridge;

/* Finds (or takes from the pipeline) the Vulkan device whose deviceUUID is
 * @cuda_uuid and enables the external memory/semaphore extensions on it;
 * otherwise @error says why (naming both UUIDs), for the element to post
 * (GST_CUDA_SYNC_ELEMENT_ERROR_FROM()) */
gboolean gst_cuda_vk_device_setup        (GstCudaVkBridge * b,
                                          const guint8 * cuda_uuid,
                                          GError ** error);

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
G_END_DECLS

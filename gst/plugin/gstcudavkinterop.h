/* gst-cudasync
 * Copyright (C) 2026 gst-cudasync developers
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * GstCudaVkInterop: what CUDA/Vulkan hand-overs submit with, made from the
 * Vulkan queue the element found; it knows no element. It owns the
 * command pool, the fences of its submissions and the trash list that
 * releases what they used once their fence signals. Errors are GErrors
 * for the element to post. Not installed.
 *
 * Locking: submissions lock the trash lock, then (while it is held, when
 * freeing the list's entries releases frames) a frame pool's lock or a
 * queue's submit lock; never the other way round. The queue's submit lock
 * is taken alone around vkQueueSubmit.
 */
#pragma once

#include <gst/gst.h>
#include <gst/vulkan/vulkan.h>
#include "gstcudavkbridge.h"

G_BEGIN_DECLS

#define GST_TYPE_CUDA_VK_INTEROP (gst_cuda_vk_interop_get_type ())
G_DECLARE_FINAL_TYPE (GstCudaVkInterop, gst_cuda_vk_interop, GST,
    CUDA_VK_INTEROP, GstObject);

/* Makes the command pool on @queue; @namer (nullable) names the command
 * buffers. Transfer full; NULL and @error on failure. */
GstCudaVkInterop *gst_cuda_vk_interop_new (GstVulkanQueue * queue,
    const GstCudaVkNamer * namer, GError ** error);

/* transfer none */
GstVulkanQueue *gst_cuda_vk_interop_get_queue (GstCudaVkInterop * self);
GstVulkanCommandPool *gst_cuda_vk_interop_get_command_pool (GstCudaVkInterop
    * self);

/* A command buffer from the pool, begun for one submission and locked
 * until gst_cuda_vk_interop_submit() */
GstVulkanCommandBuffer *gst_cuda_vk_interop_begin (GstCudaVkInterop * self,
    GError ** error);

/* Submits @cmd (begun by gst_cuda_vk_interop_begin()) on the queue with
 * @sync (nullable); returns the fence (transfer full). @cmd and @keep
 * (nullable) are released once the fence signals. Thread-safe. */
GstVulkanFence *gst_cuda_vk_interop_submit (GstCudaVkInterop * self,
    GstVulkanCommandBuffer * cmd, const GstCudaVkSubmitSync * sync,
    GstMiniObject * keep, GError ** error);

/* Waits for every submission and releases what they used */
void gst_cuda_vk_interop_wait_idle (GstCudaVkInterop * self);

G_END_DECLS

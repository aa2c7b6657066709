/* gst-cudasync
 * Copyright (C) 2026 gst-cudasync developers
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * GstCudaVkRelay, for upstream main (below). The interop makes one and
 * calls it around its submissions. Not installed.
 */
#pragma once

#include <gst/gst.h>
#include <gst/vulkan/vulkan.h>

G_BEGIN_DECLS

/* Upstream main (future 1.30): the images' timeline semaphores, which
 * GstVulkanOperation users wait on and signal, are reached only through
 * an operation (gst_vulkan_operation_add_dependency_frame()), which takes
 * binary semaphores of one's own. A relay runs such an operation next to
 * one of the bridge's submissions, joined to it by a new binary semaphore
 * on the same queue, so that the submission takes part in the images'
 * timelines as upstream's elements do. 1.22 to 1.28 relay nothing: the
 * submission waits and signals the timelines of the barrier states itself
 * (1.24 to 1.28) or there are none (1.22). */
typedef struct _GstCudaVkRelay GstCudaVkRelay;
/* A relay on @queue; NULL where there is nothing to relay (no error set)
 * or on failure (@error set) */
GstCudaVkRelay * gst_cuda_vk_relay_new   (GstVulkanQueue * queue,
                                          GError ** error);
/* Waits for the relay's operations to complete; NULL allowed */
void     gst_cuda_vk_relay_free          (GstCudaVkRelay * relay);
/* Before a submission that uses @frame: an operation waits for the last
 * values of @frame's image timelines, signals the next ones, and signals
 * *@wait, a new binary semaphore that the submission must wait on (the
 * caller owns the reference until the submission completed). *@wait is
 * NULL where nothing is relayed (no relay, or @frame has memories that
 * are not Vulkan images). */
gboolean gst_cuda_vk_relay_before        (GstCudaVkRelay * relay,
                                          GstBuffer * frame,
                                          GstVulkanHandle ** wait,
                                          GError ** error);
/* For a submission after which @frame's image timelines advance: a new
 * binary semaphore in *@signal (NULL where nothing is relayed) that it
 * must signal; after the submission, gst_cuda_vk_relay_after() */
gboolean gst_cuda_vk_relay_prepare_after (GstCudaVkRelay * relay,
                                          GstBuffer * frame,
                                          GstVulkanHandle ** signal,
                                          GError ** error);
/* After the submission that signals @signalled (NULL: does nothing): an
 * operation waits on it and signals the next values of @frame's image
 * timelines, which their next users wait for */
gboolean gst_cuda_vk_relay_after         (GstCudaVkRelay * relay,
                                          GstBuffer * frame,
                                          GstVulkanHandle * signalled,
                                          GError ** error);

G_END_DECLS

/* gst-cudasync
 * Copyright (C) 2026 gst-cudasync developers
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * vkutil: Vulkan helpers shared by the tests, the demo and the bench: the
 * Vulkan device that goes with CUDA device 0, what it can export, the queue
 * an element answers with, and draining a pipeline's queues.
 */
#pragma once

#include <gst/gst.h>
#include <gst/vulkan/vulkan.h>

G_BEGIN_DECLS

/* The deviceUUID as 32 lower-case hex digits (free with g_free()). */
gchar *  vk_util_hex_uuid        (const guint8 uuid[VK_UUID_SIZE]);

/* The index of the first physical device of @instance that has
 * VK_KHR_external_memory_fd and whose deviceUUID is @want (32 hex digits;
 * any such device when NULL), or -1. On success @name receives its name,
 * *@uuid_out its UUID (g_free()) and *@sem_fd, when not NULL, whether it
 * also has VK_KHR_external_semaphore_fd. */
gint     vk_util_find_device     (GstVulkanInstance * instance,
                                  const gchar * want,
                                  gchar name[VK_MAX_PHYSICAL_DEVICE_NAME_SIZE],
                                  gchar ** uuid_out,
                                  gboolean * sem_fd);

/* CUDA device 0's UUID (32 hex digits, g_free()), read through the
 * libcuda.so.1 that dlopen() finds (after cuInit), or NULL. */
gchar *  vk_util_cuda_uuid       (void);

/* The physical device of @instance that goes with CUDA device 0: the one
 * with VK_KHR_external_memory_fd and CUDA device 0's UUID. The simulated
 * CUDA driver (@sim) has no Vulkan twin: there the first device with
 * VK_KHR_external_memory_fd (Mesa lavapipe) plays it, and the simulated
 * device 0 is given its UUID (CUDASIM_DEVICE_UUID, unless already set),
 * as the tests do. Returns its index, with @name, *@uuid_out and *@sem_fd
 * as vk_util_find_device() gives them, or -1 and *@why (g_free()). */
gint     vk_util_find_cuda_device (GstVulkanInstance * instance,
                                  gboolean sim,
                                  gchar name[VK_MAX_PHYSICAL_DEVICE_NAME_SIZE],
                                  gchar ** uuid_out,
                                  gboolean * sem_fd,
                                  gchar ** why);

/* Whether @device can export binary semaphores as OPAQUE_FD (the bridge
 * elements' GPU path and the bench's raw reference need it). */
gboolean vk_util_can_export_semaphores (GstVulkanPhysicalDevice * device);

/* The Vulkan queue (unref it) that @pad answers a queue context query
 * with, or NULL. */
GstVulkanQueue * vk_util_pad_queue (GstPad * pad);

/* The deviceUUID (32 hex digits, g_free()) of the first Vulkan device
 * that has VK_KHR_external_memory_fd, from an instance of its own, or NULL:
 * the device the simulated CUDA device pretends to be
 * (CUDASIM_DEVICE_UUID) */
gchar *  vk_util_interop_uuid    (void);

/* Waits until @queue is idle: vkQueueWaitIdle() under its submit lock.
 * Returns whether the wait succeeded (a failure, a lost device, is also
 * reported with g_warning()). */
gboolean vk_util_queue_wait_idle (GstVulkanQueue * queue);

/* Waits until the Vulkan queues that @pipeline's elements answer a queue
 * context query with are idle, and returns how many queues it waited for
 * (an element that submits to a queue it does not answer with, a video
 * decoder's decode queue for example, is not covered). Call it once the
 * pipeline has processed its last frame (after EOS, or once the
 * application has seen every frame) and before setting it to NULL: it
 * takes each queue's submit lock, but elements that submit to the same
 * VkQueue through another GstVulkanQueue object are not excluded. A failed
 * wait (a lost device) is reported with g_warning().
 *
 * Why: GStreamer 1.24+ gives each Vulkan image memory a timeline semaphore
 * that it destroys as soon as the memory is freed, which happens at
 * teardown right after the last fence wait. Mesa's lavapipe (seen with
 * 22.3.6 and 25.0.7, not with 26.1.6) may still be signalling that
 * semaphore on its queue thread after the fence has signalled, and then
 * writes freed memory: a crash or a hang later in the process. The
 * Vulkan spec allows the destruction; waiting for the queue to be idle
 * first avoids the race (docs/known-issues.md). A no-op before
 * GStreamer 1.24, whose image memories have no semaphore. */
guint    vk_util_drain_pipeline  (GstElement * pipeline);

G_END_DECLS

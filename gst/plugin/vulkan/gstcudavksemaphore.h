/* gst-cudasync
 * Copyright (C) 2026 gst-cudasync developers
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Semaphores shared between Vulkan and CUDA, made by the interop
 * (gstcudavkinterop.h) on its device and CUDA context. Part of the bridge
 * elements (cudatovulkan, vulkantocuda); not installed.
 */
#pragma once

#include <gst/gst.h>
#include <gst/video/video.h>
#include <gst/vulkan/vulkan.h>
#include <gst/cuda/gstcudacontext.h>
#include <gst/cudasync/gstcudasync-internal.h>

G_BEGIN_DECLS

/* A semaphore created by Vulkan (exportable as an opaque fd) and imported
 * into the interop's CUDA context, of one of two kinds.
 *
 * Timeline (GStreamer 1.24+, @timeline): one per interop, so per element
 * and direction, imported as CU_EXTERNAL_SEMAPHORE_HANDLE_TYPE_TIMELINE_SEMAPHORE_FD.
 * A timeline semaphore keeps every value it reached, so a signal can never
 * be lost however far one side runs ahead of the other: one object serves
 * every slot, and slots are reused only for the memory's sake (fences,
 * events). Values strictly increase. cudatovulkan: CUDA signals, through
 * gst_cuda_semaphore_signal(), which reserves last + 1 under the library's
 * lock, and the Vulkan take-over waits for that value. vulkantocuda: the
 * Vulkan copy signals gst_cuda_vk_semaphore_next_value(), @vk_value is
 * advanced (gst_cuda_vk_semaphore_vk_signalled()) only once the submission
 * succeeded, and CUDA waits for @vk_value; the element's submissions go to
 * one queue in streaming order, so they execute in value order.
 *
 * Binary (1.22, or the "timeline" property off): one per pooled frame
 * (cudatovulkan) or staging slot (vulkantocuda). A binary semaphore holds
 * one signal: signalling it again before the wait that consumes the
 * previous signal has *executed* on the GPU loses a signal (and the waiter
 * for it may hang). Enqueue order is not enough: CUDA may run frame N+1's
 * signal before the Vulkan queue has run frame N's wait. So a slot is
 * reused only when the GPU work that consumed its previous signal is known
 * to be complete (its fence signalled, its CUDA event completed), which
 * never blocks the streaming thread. When CUDA signals and Vulkan waits
 * (cudatovulkan), gst_cuda_vk_semaphore_signal() goes through
 * gst_cuda_semaphore_signal(), which refuses a second signal before a wait
 * was recorded; the Vulkan wait is recorded
 * (gst_cuda_semaphore_mark_waited()) only by
 * gst_cuda_vk_semaphore_waited(), once the fence of the submission that
 * waited has signalled, i.e. in GPU execution order, not at submission.
 *
 * Freed after the interop's Vulkan submissions and CUDA stream are idle
 * (gst_cuda_vk_interop_stop()), or with its slot. The interop makes them
 * (gst_cuda_vk_interop_setup_sync(),
 * gst_cuda_vk_interop_semaphore_for_slot()) and counts them in the
 * "semaphores" statistic. */
typedef struct _GstCudaVkSemaphore
{
  VkSemaphore vk_sem;
  GstCudaSemaphore *sem;
  GstVulkanDevice *device;
  gboolean timeline;
  guint64 vk_value;             /* timeline: last value Vulkan was given to
                                 * signal (vulkantocuda); binary: 0 */
  gboolean signalled;           /* binary: by CUDA, wait not known executed */
  GstVulkanFence *wait_fence;   /* binary: the Vulkan submission waiting */
} GstCudaVkSemaphore;

/* CUDA signals @s on @stream; *@value (nullable) is the value signalled
 * (0 for a binary semaphore) */
gboolean gst_cuda_vk_semaphore_signal    (GstCudaVkSemaphore * s, CUstream stream,
                                          guint64 * value, GError ** error);
/* a Vulkan submission waiting for CUDA's signal was made with @fence (a
 * binary semaphore's signal counts as consumed once it has signalled) */
void     gst_cuda_vk_semaphore_wait_submitted (GstCudaVkSemaphore * s,
                                          GstVulkanFence * fence);
/* the value a Vulkan submission signals (0: binary), and its commit once
 * the submission succeeded */
guint64  gst_cuda_vk_semaphore_next_value (GstCudaVkSemaphore * s);
void     gst_cuda_vk_semaphore_vk_signalled (GstCudaVkSemaphore * s);
/* TRUE when @s may be signalled again (records the Vulkan wait with the
 * library then); never blocks */
gboolean gst_cuda_vk_semaphore_waited    (GstCudaVkSemaphore * s);
/* waits for a pending Vulkan wait on @s, if any (shutdown only) */
void     gst_cuda_vk_semaphore_free      (GstCudaVkSemaphore * s);
G_END_DECLS

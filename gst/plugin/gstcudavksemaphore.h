/* gst-cudasync
 * Copyright (C) 2026 gst-cudasync developers
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Semaphores shared between Vulkan and CUDA. Part of the bridge elements
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

/* Creates a semaphore exportable as an opaque fd (binary, or timeline with
 * value 0) and imports it into the bridge's CUDA context; both NULL when
 * Vulkan cannot export it or CUDA cannot import it (the reason is logged) */
void     gst_cuda_vk_export_semaphore    (GstCudaVkBridge * b, gboolean timeline,
                                          VkSemaphore * vk_sem,
                                          GstCudaSemaphore ** sem);
/* TRUE when the bridge's Vulkan device has timeline semaphores enabled
 * (never on GStreamer 1.22) */
gboolean gst_cuda_vk_timeline_supported  (GstCudaVkBridge * b);

/* GStreamer 1.24+: one timeline semaphore per element (and so per
 * direction), exported by Vulkan as an opaque fd and imported into CUDA
 * as CU_EXTERNAL_SEMAPHORE_HANDLE_TYPE_TIMELINE_SEMAPHORE_FD. A timeline
 * semaphore keeps every value it reached, so a signal can never be lost
 * however far one side runs ahead of the other: one object replaces the
 * binary semaphores of every slot, and slots are reused only for the
 * memory's sake (fences, events), no longer for the semaphore's.
 *
 * Values strictly increase. cudatovulkan: CUDA signals, through
 * gst_cuda_semaphore_signal(), which reserves last + 1 under the library's
 * lock, and the Vulkan take-over waits for that value. vulkantocuda:
 * the Vulkan copy signals @vk_value + 1, @vk_value is advanced only once
 * the submission succeeded, and CUDA waits for it; the element's
 * submissions go to one queue in streaming order, so they execute in
 * value order. Freed after the element's Vulkan submissions and CUDA
 * stream are idle (stop). */
typedef struct _GstCudaVkTimeline
{
  VkSemaphore vk_sem;
  GstCudaSemaphore *sem;
  GstVulkanDevice *device;
  guint64 vk_value;             /* vulkantocuda: last value submitted */
} GstCudaVkTimeline;

/* NULL (the reason logged) when Vulkan cannot export one or CUDA cannot
 * import it; counted in the "semaphores" statistic */
GstCudaVkTimeline * gst_cuda_vk_timeline_new (GstCudaVkBridge * b);
void     gst_cuda_vk_timeline_free       (GstCudaVkTimeline * t);

/* A binary semaphore created by Vulkan (exportable as an opaque fd) and
 * imported into the bridge's CUDA context.
 *
 * A binary semaphore holds one signal: signalling it again before the wait
 * that consumes the previous signal has *executed* on the GPU loses a signal
 * (and the waiter for it may hang). Enqueue order is not enough: CUDA may
 * run frame N+1's signal before the Vulkan queue has run frame N's wait. So
 * each pooled frame (cudatovulkan) or staging slot (vulkantocuda) owns its
 * semaphore, and a slot is reused only when the GPU work that consumed its
 * previous signal is known to be complete (its fence signalled, its CUDA
 * event completed), which never blocks the streaming thread.
 *
 * CUDA signals, Vulkan waits (cudatovulkan): gst_cuda_vk_semaphore_signal()
 * goes through gst_cuda_semaphore_signal(), which refuses a second signal
 * before a wait was recorded; the Vulkan wait is recorded
 * (gst_cuda_semaphore_mark_waited()) only by
 * gst_cuda_vk_semaphore_waited(), once the fence of the submission that
 * waited has signalled, i.e. in GPU execution order, not at submission. */
typedef struct
{
  VkSemaphore vk_sem;
  GstCudaSemaphore *sem;
  GstVulkanDevice *device;
  gboolean signalled;           /* by CUDA, wait not known executed yet */
  GstVulkanFence *wait_fence;   /* the Vulkan submission that waits on it */
} GstCudaVkSemaphore;

/* NULL in the CPU fallback (or when creating one failed); counted in the
 * "semaphores" statistic */
GstCudaVkSemaphore * gst_cuda_vk_semaphore_new (GstCudaVkBridge * b);
/* *@sem, created on first use; FALSE (and a warning) when it cannot be:
 * then that slot takes the CPU fallback */
gboolean gst_cuda_vk_semaphore_ensure    (GstCudaVkBridge * b, GstCudaVkSemaphore ** sem);
gboolean gst_cuda_vk_semaphore_signal    (GstCudaVkSemaphore * s, CUstream stream,
                                          GError ** error);
void     gst_cuda_vk_semaphore_wait_submitted (GstCudaVkSemaphore * s,
                                          GstVulkanFence * fence);
/* TRUE when @s may be signalled again (records the Vulkan wait with the
 * library then); never blocks */
gboolean gst_cuda_vk_semaphore_waited    (GstCudaVkSemaphore * s);
/* waits for a pending Vulkan wait on @s, if any (shutdown only) */
void     gst_cuda_vk_semaphore_free      (GstCudaVkSemaphore * s);
G_END_DECLS

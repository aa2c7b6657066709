/* gst-cudasync
 * Copyright (C) 2026 gst-cudasync developers
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * GstCudaVkInterop: what the CUDA/Vulkan hand-overs run on, modelled on
 * upstream's GstCudaD3D12Interop. Made from a CUDA context and its stream,
 * a Vulkan queue (and its device) and a namer, it knows no element: it
 * holds the stream (a reference to its GstCudaStream on 1.24+; on 1.22
 * its maker keeps the stream until after gst_cuda_vk_interop_stop()),
 * and owns the command pool, the fences of its submissions, the trash
 * list that releases what they used once their fence signals, and the
 * semaphores shared with CUDA (the timeline one, or binary ones per slot,
 * and the one offered upstream) with the CPU-wait fallback. Its calls
 * return GErrors for the element to post; what it counts goes to its
 * maker's count function. Its parts: gstcudavksemaphore.c (semaphores).
 * Not installed.
 *
 * Locking: submissions take the trash lock, then (while it is held, when
 * freeing the list's entries releases frames) a frame pool's lock or a
 * queue's submit lock; never the other way round. The queue's submit lock
 * is taken alone around vkQueueSubmit.
 */
#pragma once

#include <gst/gst.h>
#include <gst/vulkan/vulkan.h>
#include <gst/cuda/gstcudacontext.h>
#include "gstcudavkcompat.h"
#include "gstcudavkdevice.h"
#include "gstcudavkqueue.h"
#include "gstcudavksubmit.h"
#include "gstcudavksemaphore.h"

G_BEGIN_DECLS

/* What the interop and the bridge elements count: the stats structure's
 * counter fields, in this order (gst_cuda_vk_counter_fields) */
typedef enum
{
  GST_CUDA_VK_COUNTER_BUFFERS,
  GST_CUDA_VK_COUNTER_SIGNALS,
  GST_CUDA_VK_COUNTER_WAITS,
  GST_CUDA_VK_COUNTER_CPU_SYNCS,
  GST_CUDA_VK_COUNTER_COPIES,
  GST_CUDA_VK_COUNTER_SEMAPHORES,
  GST_CUDA_VK_COUNTER_GPU_COPIES,
  GST_CUDA_VK_COUNTER_IN_PLACE,
  GST_CUDA_VK_N_COUNTERS,
} GstCudaVkCounter;

/* Told how many objects or operations of kind @c the interop made */
typedef void (*GstCudaVkCountFunc) (gpointer user_data, GstCudaVkCounter c,
    guint64 add);

#define GST_TYPE_CUDA_VK_INTEROP (gst_cuda_vk_interop_get_type ())
G_DECLARE_FINAL_TYPE (GstCudaVkInterop, gst_cuda_vk_interop, GST,
    CUDA_VK_INTEROP, GstObject);

/* Makes the command pool on @queue. @stream is a blocking stream of
 * @cuda, @cuda_stream (nullable, 1.24+) its GstCudaStream, of which the
 * interop takes a reference. @namer (nullable) names the Vulkan objects
 * the interop makes; @count (nullable) is told what it counts. Transfer
 * full; NULL and @error on failure. */
GstCudaVkInterop *gst_cuda_vk_interop_new (GstCudaContext * cuda,
    GstCudaStream * cuda_stream, CUstream stream, GstVulkanQueue * queue,
    const GstCudaVkNamer * namer, GstCudaVkCountFunc count,
    gpointer user_data, GError ** error);

/* Chooses the synchronisation (gstcudavksemaphore.c): one timeline
 * semaphore (where @want_timeline and the device has them), else binary
 * semaphores made per slot later, else (Vulkan cannot export semaphores,
 * CUDA cannot import them) the CPU fallback. @offer_semaphore: also the
 * semaphore an upstream cudasemsignal is offered. Returns "timeline",
 * "binary" or "none". */
const gchar *gst_cuda_vk_interop_setup_sync (GstCudaVkInterop * self,
    gboolean want_timeline, gboolean offer_semaphore);

/* Waits for every submission and for the stream's work, then drops the
 * stream and the semaphores: nothing the interop enqueued runs any more.
 * What gives frames back to CUDA later (their pool) may still submit.
 * Not from the streaming thread. */
void gst_cuda_vk_interop_stop (GstCudaVkInterop * self);

/* transfer none */
GstCudaContext *gst_cuda_vk_interop_get_context (GstCudaVkInterop * self);
/* the stream the interop's CUDA work is on; NULL after stop */
CUstream gst_cuda_vk_interop_get_stream (GstCudaVkInterop * self);
/* its GstCudaStream on 1.24+ (transfer none), NULL on 1.22 and after
 * stop */
GstCudaStream *gst_cuda_vk_interop_get_cuda_stream (GstCudaVkInterop *
    self);
/* transfer none */
GstVulkanQueue *gst_cuda_vk_interop_get_queue (GstCudaVkInterop * self);
GstVulkanCommandPool *gst_cuda_vk_interop_get_command_pool (GstCudaVkInterop
    * self);
/* names Vulkan objects as the interop does */
const GstCudaVkNamer *gst_cuda_vk_interop_get_namer (GstCudaVkInterop *
    self);
/* the timeline semaphore; NULL without one (transfer none) */
GstCudaVkSemaphore *gst_cuda_vk_interop_get_timeline (GstCudaVkInterop *
    self);
/* what an upstream cudasemsignal is offered; NULL without one (transfer
 * none) */
GstCudaSemaphore *gst_cuda_vk_interop_get_offer_semaphore (GstCudaVkInterop
    * self);
/* The semaphore a slot's frame synchronises with (gstcudavksemaphore.c):
 * the timeline semaphore if there is one, else the slot's own binary one
 * in *@slot_sem, created on first use. NULL on the CPU fallback, and (with
 * a warning) when it cannot be created: that slot then takes the CPU
 * fallback. */
GstCudaVkSemaphore *gst_cuda_vk_interop_semaphore_for_slot
    (GstCudaVkInterop * self, GstCudaVkSemaphore ** slot_sem);

/* Blocks until @stream (the interop's, or the one a frame's CUDA work went
 * to) is idle; counted in cpu-syncs */
gboolean gst_cuda_vk_interop_cpu_sync (GstCudaVkInterop * self,
    CUstream stream, GError ** error);

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

G_END_DECLS

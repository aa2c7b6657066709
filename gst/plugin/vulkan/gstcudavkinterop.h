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
 * and the one offered upstream) with the CPU-wait fallback, and what it
 * holds until CUDA's work on it has run (cudatovulkan's copied inputs).
 * The hand-overs are its calls: the take-over of a CUDA frame into a
 * Vulkan frame (cudatovulkan), the give-back of a frame to CUDA (its pool)
 * and the copy of a Vulkan frame into CUDA memory (vulkantocuda). They
 * return GErrors for the element to post (GST_CUDA_SYNC_ELEMENT_ERROR_FROM());
 * what it counts goes to its maker's functions. Its parts, which read its
 * state through gstcudavkinterop-private.h: gstcudavksemaphore.c
 * (semaphores), gstcudavkstaging.c (staging slots),
 * gstcudavkinterop-tovulkan.c (take-over, give-back),
 * gstcudavkinterop-tocuda.c (download). It is above the memory kinds
 * (gstcudavkmemorykind.h), whose entries the hand-overs call, and the
 * exportable memory (gstcudavkmemory.h), which it allocates with its
 * GstCudaVkAllocParams. Not installed.
 *
 * Locking: hand-over submissions take the trash lock, then (while it is
 * held, when freeing the list's entries releases frames) a frame pool's
 * lock and the give-back lock, or a queue's submit lock; never the other
 * way round. The give-back lock guards the list of give-back submissions
 * (command buffers only) and is taken under a frame pool's lock, or alone.
 * The queue's submit lock is taken alone around vkQueueSubmit.
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
#include "gstcudavkmemorykind.h"

G_BEGIN_DECLS

/* What the interop and the bridge elements count: the stats structure's
 * counter fields, in this order (GstCudaVkBaseTransform's counter names) */
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
  GST_CUDA_VK_COUNTER_BOUND_WAITS,
  GST_CUDA_VK_N_COUNTERS,
} GstCudaVkCounter;

/**
 * GstCudaVkInteropFuncs:
 * @count: told how many objects or operations of kind @counter (a
 *   #GstCudaVkCounter) the interop made
 * @error: an error found on a thread of the interop's own (@error is
 *   taken, for GST_CUDA_SYNC_ELEMENT_ERROR_FROM())
 *
 * What the interop tells its maker, with the maker's user data; each may
 * be NULL.
 */
typedef struct
{
  void (*count) (gpointer user_data, guint counter, guint64 add);
  void (*error) (gpointer user_data, GError * error);
} GstCudaVkInteropFuncs;

/* One plane of a frame of cudatovulkan's pool: the memory and what frees
 * it */
typedef struct
{
  GstCudaVkPlane plane;
  GstCudaContext *cuda;
  GstVulkanDevice *device;
} GstCudaVkFramePlane;

/* A frame of cudatovulkan's pool (gstcudavkframepool.h), what the
 * take-over fills and the give-back returns */
typedef struct
{
  /* the frame's memories: one per plane, or one multi-planar image */
  GstCudaVkFramePlane *planes[GST_VIDEO_MAX_PLANES];
  guint n_mems;
  /* where CUDA writes video plane i: its start and bytes per row */
  CUdeviceptr plane_ptr[GST_VIDEO_MAX_PLANES];
  gsize plane_pitch[GST_VIDEO_MAX_PLANES];
  gboolean used;                /* taken over since its last give-back */
  GstVulkanFence *fence;        /* downstream's work on it done */
  /* vulkantocuda's pool for upstream: CUDA's readers of the frame are
   * done once this event, recorded when the last of them let it go, has
   * completed (read_pending); created on first use */
  GstCudaSyncEvent *read_event;
  gboolean read_pending;
  /* and the timeline value its last give-back to CUDA signalled (0: the
   * CPU fallback's) */
  guint64 lent_value;
  /* GPU path: CUDA signals it after the copy into this frame, the
   * take-over submission waits on it; created on first use */
  GstCudaVkSemaphore *sem;
} GstCudaVkFrame;

#define GST_TYPE_CUDA_VK_INTEROP (gst_cuda_vk_interop_get_type ())
G_DECLARE_FINAL_TYPE (GstCudaVkInterop, gst_cuda_vk_interop, GST,
    CUDA_VK_INTEROP, GstObject);

/* Makes the command pool on @queue. @stream is a blocking stream of
 * @cuda, @cuda_stream (nullable, 1.24+) its GstCudaStream, of which the
 * interop takes a reference. @namer (nullable) names the Vulkan objects
 * the interop makes; @funcs (nullable, copied) are told what it counts and
 * the errors of its own threads, with @user_data. Transfer full; NULL and
 * @error on failure. */
GstCudaVkInterop *gst_cuda_vk_interop_new (GstCudaContext * cuda,
    GstCudaStream * cuda_stream, CUstream stream, GstVulkanQueue * queue,
    const GstCudaVkNamer * namer, const GstCudaVkInteropFuncs * funcs,
    gpointer user_data, GError ** error);

/* Chooses the synchronisation (gstcudavksemaphore.c): one timeline
 * semaphore (where @want_timeline and the device has them), else binary
 * semaphores made per slot later, else (Vulkan cannot export semaphores,
 * CUDA cannot import them) the CPU fallback. @offer_semaphore: also the
 * semaphore an upstream cudasemsignal is offered. Returns "timeline",
 * "binary" or "none". */
const gchar *gst_cuda_vk_interop_setup_sync (GstCudaVkInterop * self,
    gboolean want_timeline, gboolean offer_semaphore);

/* The end of streaming (the thread that stops the element): gives back
 * what the interop holds once CUDA's work on it has run, waits on the CPU
 * for the stream (counted in cpu-syncs), then drops what could not be
 * tracked (its CUDA work has run, or failed for good) */
void gst_cuda_vk_interop_flush (GstCudaVkInterop * self);

/* Waits for every submission and for the stream's work, then drops the
 * stream and the semaphores: nothing the interop enqueued runs any more,
 * and it calls its maker's functions no more. Frames may still be given
 * back to CUDA later (by their pool). Not from the streaming thread. */
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
/* names Vulkan objects as the interop does */
const GstCudaVkNamer *gst_cuda_vk_interop_get_namer (GstCudaVkInterop *
    self);
/* what allocates exportable memory on its device and context, for as
 * long as the interop lives */
const GstCudaVkAllocParams *gst_cuda_vk_interop_get_alloc_params
    (GstCudaVkInterop * self);
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

/* cudatovulkan's hand-over of @inbuf, one CUDA memory of the interop's
 * context at least as large as @info says (checked by the element), into
 * @outbuf, a buffer of @frame (memory of @kind): the incoming acquire
 * points waited for on the GPU; the copy into the frame after the
 * producer's pending work, unless @in_place (@outbuf's memory is the
 * input's: upstream wrote it); then a signal of the frame's semaphore
 * (GPU path: a copied input is held until the copy out of it has run) or
 * a CPU wait (fallback); then the Vulkan submission that waits for that
 * signal and takes @outbuf's memories over from CUDA (@outbuf is kept
 * until it completes). On the streaming thread. */
gboolean gst_cuda_vk_interop_take_over (GstCudaVkInterop * self,
    GstBuffer * inbuf, const GstVideoInfo * info, GstBuffer * outbuf,
    GstCudaVkFrame * frame, const GstCudaVkMemoryKind * kind,
    gboolean in_place, GError ** error);

/* Downstream is done with @buf (its Vulkan work is submitted): a
 * submission that gives the first @n_mems memories of @buf, of @kind,
 * back to CUDA once that work completes, and then signals the next value
 * of @sem (nullable: a timeline semaphore) for CUDA to wait on. Returns
 * its fence (transfer full), which also covers the earlier work on the
 * queue; NULL and @error on failure (the queue may still read the
 * memories). Any thread; also after stop. */
GstVulkanFence *gst_cuda_vk_interop_give_back (GstCudaVkInterop * self,
    const GstCudaVkMemoryKind * kind, GstBuffer * buf, guint n_mems,
    GstCudaVkSemaphore * sem, GError ** error);

/* vulkantocuda's pool proposed upstream (gstcudavkvulkanpool.c): takes
 * the memories of @buf, a frame of @kind that CUDA has (a new one, or one
 * given back), over on the queue, for upstream Vulkan elements to write.
 * On the timeline path they order themselves after it on the GPU;
 * otherwise it is waited for on the CPU (counted in cpu-syncs). Any
 * thread. */
gboolean gst_cuda_vk_interop_lend (GstCudaVkInterop * self,
    const GstCudaVkMemoryKind * kind, GstBuffer * buf, GstCudaVkFrame * frame,
    GError ** error);
/* Waits until every give-back submission has completed */
void gst_cuda_vk_interop_wait_given_back (GstCudaVkInterop * self);

/* vulkantocuda's staging slots (gstcudavkstaging.h) */
typedef struct _GstCudaVkStaging GstCudaVkStaging;

/* vulkantocuda's hand-over of @in (an input frame of @kind, parsed) into
 * @omem, one CUDA memory of the interop's context of the frame's size:
 * a Vulkan submission that copies @in into the staging slot @s (a slot
 * both sides are done with) and hands it to CUDA, signalling the slot's
 * semaphore (GPU path); CUDA's wait for that signal on the stream (or, on
 * the CPU fallback, a CPU wait for the copy); then, unless @omem wraps @s
 * (@s in wrap mode), CUDA's copy of @s into @omem on the stream. @in's
 * buffer is kept until the Vulkan copy completes. On the streaming
 * thread. */
gboolean gst_cuda_vk_interop_download (GstCudaVkInterop * self,
    const GstCudaVkMemoryKind * kind, const GstCudaVkInputFrame * in,
    GstCudaVkStaging * s, GstMemory * omem, GError ** error);

/* vulkantocuda's hand-over of @frame, a frame of @kind that upstream wrote
 * in place (a buffer of the pool gst_cuda_vk_vulkan_pool_new() proposed,
 * lent by gst_cuda_vk_interop_lend()), as @omem, a CUDA memory that wraps
 * it: the give-back of its memories to CUDA after upstream's writes, then
 * CUDA's wait for it on the interop's stream on the GPU (the timeline
 * path), or on the CPU (fallback). Not for binary semaphores. On the
 * streaming thread. */
gboolean gst_cuda_vk_interop_download_lent (GstCudaVkInterop * self,
    const GstCudaVkMemoryKind * kind, GstBuffer * frame, GstCudaVkFrame * f,
    GstMemory * omem, GError ** error);

/* A command buffer from the pool, begun for one submission and locked
 * until gst_cuda_vk_interop_submit() */
GstVulkanCommandBuffer *gst_cuda_vk_interop_begin (GstCudaVkInterop * self,
    GError ** error);

/* Submits @cmd (begun by gst_cuda_vk_interop_begin()) on the queue with
 * @sync (nullable); returns the fence (transfer full). @cmd, @keep
 * (nullable) and @sync's relay semaphores are released once the fence
 * signals (a failed submission leaves those in @sync:
 * gst_cuda_vk_sync_clear()). Thread-safe. */
GstVulkanFence *gst_cuda_vk_interop_submit (GstCudaVkInterop * self,
    GstVulkanCommandBuffer * cmd, GstCudaVkSubmitSync * sync,
    GstMiniObject * keep, GError ** error);

G_END_DECLS

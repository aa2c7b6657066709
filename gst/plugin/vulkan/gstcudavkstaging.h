/* gst-cudasync
 * Copyright (C) 2026 gst-cudasync developers
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * vulkantocuda's staging slots: exportable VkBuffers imported into CUDA,
 * which a Vulkan copy fills and CUDA reads, allocated by the interop
 * (gstcudavkinterop.h): a part of it. Part of the bridge elements; not
 * installed.
 */
#pragma once

#include <gst/gst.h>
#include <gst/video/video.h>
#include <gst/vulkan/vulkan.h>
#include <gst/cudasync/gstcudasync-internal.h>
#include "gstcudavkinterop.h"
#include "gstcudavkmemory.h"

G_BEGIN_DECLS

/* What a streaming thread waits on while downstream holds every wrapped
 * slot: a wrapped memory's free signals it, and so does a flush. Shared by
 * an element and its slots (atomic refcount), since a slot can outlive the
 * element. Locks: @lock is the innermost lock; vulkantocuda takes it under
 * its object lock (set_flushing), the thread freeing a wrapped memory and
 * the waiting streaming thread with no other lock held. */
typedef struct
{
  gint refcount;
  GMutex lock;
  GCond cond;
  gboolean flushing;            /* lock */
} GstCudaVkStagingWaiter;

/* One staging buffer and what still uses it.
 *
 * Copy mode (GStreamer 1.22, and layouts that cannot be wrapped): CUDA
 * copies the slot into the output memory; the slot is free again once the
 * Vulkan copy's fence has signalled and the CUDA event recorded after the
 * copy out of it has completed.
 *
 * Wrap mode (1.24+, gst_cuda_vk_staging_wrappable()): the output buffer is
 * a GstCudaMemory that wraps the slot itself (gst_cuda_vk_staging_wrap()),
 * so a frame costs one GPU copy instead of two. The slot is then also in
 * use until that memory is freed; at that point an event is recorded on
 * the legacy default stream, which completes after every read downstream
 * enqueued on the context's blocking streams (upstream CUDA elements'
 * GstCudaStreams) before it let the memory go, and the slot is free again
 * once that event has completed. A wrapped memory holds a reference on the
 * slot, so a slot can outlive the element's stop (a sink holding its last
 * buffer): the last reference frees it, with its own CUDA context and
 * Vulkan device references.
 *
 * Threads: the streaming thread owns every field but @in_use (atomic),
 * which the thread freeing a wrapped memory clears after recording the
 * event, then signals the waiter; the streaming thread reads @event only
 * when @in_use is 0. */
struct _GstCudaVkStaging
{
  gint refcount;                /* atomic: the element's, a wrapped memory's */
  GstCudaContext *cuda;
  GstVulkanDevice *device;
  GstCudaVkStagingWaiter *waiter;
  GstCudaVkPlane staging;
  gsize offset[GST_VIDEO_MAX_PLANES];
  gsize pitch[GST_VIDEO_MAX_PLANES];
  gboolean wrap;
  GstVideoInfo winfo;           /* wrap mode: the slot as a GstCudaMemory */
  gint in_use;                  /* atomic: a wrapped memory is alive */
  gboolean broken;              /* wrap mode: release event not recorded */
  GstVulkanFence *fence;        /* Vulkan copy into it */
  GstCudaSyncEvent *event;      /* after the CUDA copy out of it, or (wrap
                                 * mode) after downstream's reads */
  gboolean event_pending;
  gboolean released;            /* given to VK_QUEUE_FAMILY_EXTERNAL */
  /* binary semaphores (1.22): Vulkan signals it after the copy into the
   * slot, CUDA waits on it; created on first use */
  GstCudaVkSemaphore *sem;
  /* signalled by a submission whose CUDA wait + event were not all
   * enqueued (an error path): replaced before the slot is used again */
  gboolean sem_unwaited;
};

typedef enum
{
  GST_CUDA_VK_STAGING_BUSY,
  GST_CUDA_VK_STAGING_READY,
  GST_CUDA_VK_STAGING_ERROR,
} GstCudaVkStagingState;

/* Whether memory of @info can be handed out as a wrapped slot: GStreamer
 * 1.24+ (gst_cuda_allocator_alloc_wrapped()), and every plane's row fits
 * in plane 0's (the CUDA allocator maps wrapped memory to the CPU as rows
 * of plane 0's width at plane 0's pitch, and every plane gets that
 * pitch) */
gboolean gst_cuda_vk_staging_wrappable   (const GstVideoInfo * info);
GstCudaVkStagingWaiter * gst_cuda_vk_staging_waiter_new (void);
void     gst_cuda_vk_staging_waiter_unref (GstCudaVkStagingWaiter * w);
/* Wakes gst_cuda_vk_staging_wait_returned() (TRUE) until set FALSE */
void     gst_cuda_vk_staging_waiter_set_flushing (GstCudaVkStagingWaiter * w,
                                          gboolean flushing);
/* Waits until one of @slots is no longer held by a wrapped memory and
 * not broken: TRUE, or FALSE when flushing */
gboolean gst_cuda_vk_staging_wait_returned (GstCudaVkStagingWaiter * w,
                                          GPtrArray * slots);

/* A slot of @info; @waiter (a reference is taken) is signalled when a
 * wrapped memory of it is freed */
GstCudaVkStaging * gst_cuda_vk_staging_new (GstCudaVkInterop * interop,
                                          const GstVideoInfo * info,
                                          gboolean wrap,
                                          GstCudaVkStagingWaiter * waiter,
                                          GError ** error);
void     gst_cuda_vk_staging_unref       (GstCudaVkStaging * s);
/* Never blocks, except when a failed event query falls back to a CPU wait
 * (counted in cpu-syncs) */
GstCudaVkStagingState gst_cuda_vk_staging_state (GstCudaVkInterop * interop,
                                          GstCudaVkStaging * s, GError ** error);
/* Waits on the CPU for @s (counted in cpu-syncs and bound-waits): the
 * limit of slots in flight. FALSE when a wrapped memory of @s is still
 * alive. */
gboolean gst_cuda_vk_staging_wait        (GstCudaVkInterop * interop,
                                          GstCudaVkStaging * s, GError ** error);
/* A set of slots (vulkantocuda's, a GPtrArray of them) */
/* Unrefs every slot of @slots (nullable) and empties it; at shutdown, the
 * stream synchronised: waiting in the last unref is fine */
void     gst_cuda_vk_staging_clear       (GPtrArray * slots);
/* Frees the slots of @slots whose GPU work is done, without blocking (the
 * retired slots of earlier caps) */
void     gst_cuda_vk_staging_gc          (GstCudaVkInterop * interop,
                                          GPtrArray * slots);
/* At the limit of slots in flight: the first slot of @slots from *@next
 * on that no wrapped memory holds, waited for on the CPU
 * (gst_cuda_vk_staging_wait()); *@next then follows it. NULL when
 * downstream holds every one, or with @error set when the wait failed. */
GstCudaVkStaging * gst_cuda_vk_staging_wait_oldest (GstCudaVkInterop * interop,
                                          GPtrArray * slots, guint * next,
                                          GError ** error);
/* Whether every slot of @slots is broken: none can be used again */
gboolean gst_cuda_vk_staging_all_broken  (GPtrArray * slots);
/* Before @s is used again: drops the old fence, replaces an unwaited
 * binary semaphore */
void     gst_cuda_vk_staging_reuse       (GstCudaVkStaging * s);
/* A slot of @slots both sides are done with (never blocking, except at
 * @limit slots: gst_cuda_vk_staging_wait_oldest()), from *@next on, round
 * robin; or a new one of @info, added. At the limit, with every slot held
 * by a wrapped memory downstream, waits for one to come back
 * (back-pressure), until a flush: GST_FLOW_FLUSHING. The slot is ready
 * for reuse (gst_cuda_vk_staging_reuse()). */
GstFlowReturn gst_cuda_vk_staging_get    (GstCudaVkInterop * interop,
                                          GPtrArray * slots, guint * next,
                                          guint limit,
                                          const GstVideoInfo * info,
                                          gboolean wrap,
                                          GstCudaVkStagingWaiter * waiter,
                                          GstCudaVkStaging ** out,
                                          GError ** error);
/* Wrap mode: a GstCudaMemory (transfer full) of @s's layout that carries
 * the interop's stream; @s is in use until it is freed */
GstMemory * gst_cuda_vk_staging_wrap     (GstCudaVkInterop * interop,
                                          GstCudaVkStaging * s);

G_END_DECLS

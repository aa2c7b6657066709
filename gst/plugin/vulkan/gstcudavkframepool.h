/* gst-cudasync
 * Copyright (C) 2026 gst-cudasync developers
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * cudatovulkan's output pool (see the .c file). Not installed.
 */
#pragma once

#include "gstcudavkinterop.h"
#include "gstcudavkmemorykind.h"

G_BEGIN_DECLS

/* The frame of a buffer of the pool */
GstCudaVkFrame * gst_cuda_vk_frame_get     (GstBuffer * buf);

/* A new buffer with @frame's memories (a buffer of the pool, transfer
 * none), whose frame is @frame's, and which keeps @frame out of its pool
 * until it is freed: the output for a frame upstream wrote in place, which
 * the upstream pool's memory holds too (gstcudavkupstreampool.c) */
GstBuffer *      gst_cuda_vk_frame_share    (GstBuffer * frame);

/* Whether every plane of @f lies in one allocation that CUDA imported
 * once: one memory, or images bound to one shared allocation */
gboolean         gst_cuda_vk_frame_one_allocation (const GstCudaVkFrame * f);

/* @f as one GstCudaMemory of @info's frames: in @layout, @info with each
 * plane at its offset from plane 0 and its own pitch, and the size to the
 * end of the plane that ends last. FALSE when no GstCudaMemory describes
 * it (several allocations, a plane before plane 0). */
gboolean         gst_cuda_vk_frame_cuda_layout (const GstCudaVkFrame * f,
                                                const GstVideoInfo * info,
                                                GstVideoInfo * layout);

/* How many frames a pool has at most, unless downstream asks otherwise */
#define GST_CUDA_VK_DEFAULT_MAX_FRAMES 32

/* Called when the pool cannot allocate a frame, on the thread that
 * acquires (the element's, or upstream's through the upstream pool), with
 * what the element error should say (GST_CUDA_SYNC_SET_ERROR(), taken) */
typedef void (*GstCudaVkPoolErrorFunc) (GError * error, gpointer user_data);

/* A pool of frames of @info, of memory of @kind, allocated by @interop (a
 * reference is taken), with at most GST_CUDA_VK_DEFAULT_MAX_FRAMES frames:
 * acquire waits while all of them are out, until one comes back or the
 * pool flushes. Reports allocation failures to @on_error (nullable) with
 * @user_data. */
GstBufferPool *  gst_cuda_vk_frame_pool_new (GstCudaVkInterop * interop,
                                             GstVideoInfo * info,
                                             const GstCudaVkMemoryKind * kind,
                                             GstCudaVkPoolErrorFunc on_error,
                                             gpointer user_data);

/* The usage of the images of frames allocated from now on (default
 * GST_CUDA_VK_IMAGE_USAGE); before the pool is activated */
void             gst_cuda_vk_frame_pool_set_image_usage (GstBufferPool * pool,
                                                         VkImageUsageFlags usage);

/* Replaces the pool's error function (set before anyone else acquires
 * from it) */
void             gst_cuda_vk_frame_pool_set_error_func (GstBufferPool * pool,
                                                        GstCudaVkPoolErrorFunc on_error,
                                                        gpointer user_data);

/* Changes how many frames the pool has at most (> 0) */
void             gst_cuda_vk_frame_pool_set_max (GstBufferPool * pool,
                                                 guint max_frames);

G_END_DECLS

/* gst-cudasync
 * Copyright (C) 2026 gst-cudasync developers
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The pool cudatovulkan proposes upstream on GStreamer 1.24+ (see the .c
 * file). Not installed.
 */
#pragma once

#include "gstcudavkinterop.h"
#include "gstcudavkmemorykind.h"
#include <gst/video/video.h>

G_BEGIN_DECLS

/* Whether frames of @info, of memory of @kind, can be written in place by
 * upstream: frames that are one allocation (one plane, a multi-planar
 * image, or one image per plane all bound to one allocation: the
 * one_allocation kind), since a GstCudaMemory is one base pointer with
 * plane offsets, while one image per plane is otherwise one Vulkan
 * allocation per plane; never on 1.22 */
gboolean        gst_cuda_vk_upstream_pool_supported (const GstVideoInfo * info,
                                                     const GstCudaVkMemoryKind * kind);

/* A GstCudaBufferPool whose every buffer is a frame of @frames (a pool of
 * gst_cuda_vk_frame_pool_new(), active) wrapped in one GstCudaMemory of
 * @interop's context, with its stream. NULL when @frames cannot hand out a
 * frame, when a frame's planes do not fit one GstCudaMemory (memories of
 * allocations of their own, or a multi-planar image's planes of different
 * pitches), and always on 1.22 (no
 * GST_CUDA_SYNC_HAVE_MEMORY_STREAM). */
GstBufferPool * gst_cuda_vk_upstream_pool_new   (GstCudaVkInterop * interop,
                                                 GstBufferPool * frames);

/* The frame of @frames that @mem wraps (transfer full), or NULL when @mem is
 * not memory of a pool of gst_cuda_vk_upstream_pool_new() for @frames */
GstBuffer *     gst_cuda_vk_upstream_pool_get_frame (GstMemory * mem,
                                                     GstBufferPool * frames);

G_END_DECLS

/* gst-cudasync
 * Copyright (C) 2026 gst-cudasync developers
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The bridge elements' version shims: small calls that hide what differs
 * between the GStreamer versions the project builds against, declared
 * alike on every one. Where a capability of gstcudasync-compat.h is
 * missing, a call returns FALSE or NULL or does nothing, as documented.
 * Besides this file only gstcudavkrelay.c tests a capability (the relay
 * exists on upstream main only). The pools proposed upstream, 1.24+
 * throughout, are built only there; gstcudavkpools-1.22.c stands in for
 * them on 1.22. Not installed.
 */
#pragma once

#include <gst/gst.h>
#include <gst/video/video.h>
#include <gst/vulkan/vulkan.h>
#include <gst/cuda/gstcudacontext.h>
#include <gst/cudasync/gstcudasync-internal.h>

G_BEGIN_DECLS

/* 1.24+: a GstCudaStream; an opaque type never instantiated on 1.22 */
typedef struct _GstCudaStream GstCudaStream;

/* A blocking stream (ordered with the legacy default stream, on which
 * upstream 1.22 CUDA elements copy) in *@stream. On 1.24+ also its owner,
 * a GstCudaStream (blocking too), in *@owner so that it can be set on CUDA
 * pools; *@owner is NULL on 1.22. Call without @cuda current. */
gboolean gst_cuda_vk_compat_stream_new   (GstCudaContext * cuda,
                                          GstCudaStream ** owner,
                                          CUstream * stream, GError ** error);
/* Waits for *@stream's work and releases it (on 1.24+ drops *@owner:
 * memory still carrying it keeps it alive). FALSE when @cuda could not be
 * made current (the stream is released all the same). */
gboolean gst_cuda_vk_compat_stream_free  (GstCudaContext * cuda,
                                          GstCudaStream ** owner,
                                          CUstream * stream);
/* A reference to @stream (nullable: NULL), and its release (clears
 * *@stream); only NULL on 1.22 */
GstCudaStream * gst_cuda_vk_compat_stream_ref (GstCudaStream * stream);
void     gst_cuda_vk_compat_stream_unref (GstCudaStream ** stream);
/* Sets @stream on a CUDA buffer pool's @config; does nothing on 1.22 */
void     gst_cuda_vk_compat_pool_config_set_stream (GstStructure * config,
                                          GstCudaStream * stream);
/* GST_CUDA_MEMORY_TRANSFER_NEED_SYNC on @mem: set (@pending) or cleared;
 * does nothing on 1.22 */
void     gst_cuda_vk_compat_memory_set_pending (GstMemory * mem,
                                          gboolean pending);
/* The format of the images of RGB frames of @info whose bytes are laid out
 * as @unorm (R8G8B8A8_UNORM or B8G8R8A8_UNORM) that upstream Vulkan
 * elements read and write right: its *_SRGB twin on 1.24 for sRGB (or
 * unknown) transfer, as 1.24's Vulkan library chooses; else @unorm */
VkFormat gst_cuda_vk_compat_rgb_image_format (VkFormat unorm,
                                          const GstVideoInfo * info);
/* Whether gst_cuda_vk_compat_alloc_wrapped() can wrap memory (1.24+) */
gboolean gst_cuda_vk_compat_can_wrap     (void);
/* CUDA memory of @info around @ptr, on @stream; @notify(@user_data) once
 * it is freed. NULL on 1.22. */
GstMemory * gst_cuda_vk_compat_alloc_wrapped (GstCudaContext * cuda,
                                          GstCudaStream * stream,
                                          const GstVideoInfo * info,
                                          CUdeviceptr ptr, gpointer user_data,
                                          GDestroyNotify notify);

/* Whether @device has timeline semaphores enabled: 1.24+ enables every
 * feature of the physical device, 1.22 none (FALSE) */
gboolean gst_cuda_vk_compat_timeline_enabled (GstVulkanDevice * device,
                                          GstVulkanInstance * instance);
/* A memory type for @req with @props (0: any) */
gboolean gst_cuda_vk_compat_find_memory_type (GstVulkanDevice * device,
                                          const VkMemoryRequirements * req,
                                          VkMemoryPropertyFlags props,
                                          guint32 * idx);

/* The timeline semaphore of a memory's barrier state and its current
 * value; VK_NULL_HANDLE where it has none and where the barrier state has
 * no semaphore fields */
VkSemaphore gst_cuda_vk_compat_barrier_timeline
    (GstVulkanBarrierMemoryInfo * barrier, guint64 * value);
/* Gives @barrier a new timeline semaphore at value 0 (the memory destroys
 * it when freed); TRUE without one where the barrier state has no
 * semaphore fields */
gboolean gst_cuda_vk_compat_barrier_add_timeline
    (GstVulkanBarrierMemoryInfo * barrier, GstVulkanDevice * device,
    GError ** error);
/* Advances @barrier's timeline value after a submission signalled it */
void     gst_cuda_vk_compat_barrier_advance
    (GstVulkanBarrierMemoryInfo * barrier);
/* Sets the queue @barrier was last used on (a reference on 1.24+) */
void     gst_cuda_vk_compat_barrier_set_queue
    (GstVulkanBarrierMemoryInfo * barrier, GstVulkanQueue * queue);

/* Whether the vulkanupload of the loaded vulkan plugin (1.22 to 1.26)
 * copies system-memory frames into images as if their rows were packed
 * (bufferRowLength = the plane's width, not its stride); 1.28 takes the
 * row length from the stride. Asked of the registry, once. */
gboolean gst_cuda_vk_compat_upload_packs_rows (void);

G_END_DECLS

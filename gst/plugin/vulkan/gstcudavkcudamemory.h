/* gst-cudasync
 * Copyright (C) 2026 gst-cudasync developers
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Vulkan memory over an allocation of CUDA's own (cuMemCreate), for the
 * images of a frame's planes bound to one allocation. Below the exportable
 * memory (gstcudavkmemory.c), which uses it. Not installed.
 */
#pragma once

#include <gst/gst.h>
#include <gst/vulkan/vulkan.h>
#include <gst/cuda/gstcudacontext.h>
#include <gst/cudasync/gstcudasync-internal.h>

G_BEGIN_DECLS

/* Whether frames whose planes' images share one allocation are made on
 * @device: not where its driver is NVIDIA's (FALSE with @error set), where
 * such frames were read wrong or stalled the pipeline, on Vulkan's
 * allocation and on CUDA's alike, unless the test hook asks for them */
gboolean         gst_cuda_vk_one_allocation_usable (GstVulkanDevice * device,
                                                    GError ** error);

/* Whether frames of one allocation on @device must use CUDA's: its driver
 * is NVIDIA's, where Vulkan's own reads wrong (or the test hook says so) */
gboolean         gst_cuda_vk_cuda_memory_needed (GstVulkanDevice * device);

/* TRUE where frames of one allocation can be made on @device: another
 * driver's, or one import of CUDA's memory (@req, @type_idx) succeeded
 * there once; FALSE with @error set where one failed */
gboolean         gst_cuda_vk_cuda_memory_probe  (GstCudaContext * cuda,
                                                 GstVulkanDevice * device,
                                                 const VkMemoryRequirements * req,
                                                 guint32 type_idx,
                                                 GError ** error);

/* Allocates at least @req->size bytes in @cuda, exports them as an opaque
 * fd and imports that into @device as memory type @type_idx, in *@memory.
 * Returns: (transfer full) (nullable): CUDA's allocation, to free with
 * gst_cuda_sync_vmm_free() after vkFreeMemory() of *@memory; NULL with
 * @error set when any step fails (after the first failed import,
 * gst_cuda_vk_cuda_memory_probe() says FALSE for @device) */
GstCudaSyncVmm * gst_cuda_vk_cuda_memory_import (GstCudaContext * cuda,
                                                 GstVulkanDevice * device,
                                                 const VkMemoryRequirements * req,
                                                 guint32 type_idx,
                                                 VkDeviceMemory * memory,
                                                 GError ** error);

G_END_DECLS

/* gst-cudasync
 * Copyright (C) 2026 gst-cudasync developers
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The GStreamer versions the project builds against, as capabilities:
 * the only place that tests GST_CHECK_VERSION. Every macro is defined,
 * to 0 or 1: test them with #if. Not installed.
 */
#pragma once

#include <gst/gst.h>

/* library capabilities */

/* 1.24+: a GstCudaMemory carries the GstCudaStream its producer wrote it
 * on, and may be pushed with work still pending there
 * (GST_CUDA_MEMORY_TRANSFER_NEED_SYNC); per-memory user tokens */
#define GST_CUDA_SYNC_HAVE_MEMORY_STREAM GST_CHECK_VERSION (1, 24, 0)

/* 1.26+: libgstcuda loads and exports wrappers (CuImportExternalSemaphore,
 * CuEventCreate, ...) of the driver entry points the library needs */
#define GST_CUDA_SYNC_HAVE_GST_CUDA_LOADER_WRAPPERS GST_CHECK_VERSION (1, 26, 0)

/* gst_cuda_allocator_alloc_wrapped(): CUDA memory around a device pointer
 * the caller owns */
#define GST_CUDA_SYNC_HAVE_WRAPPED_CUDA_ALLOC GST_CHECK_VERSION (1, 24, 0)

/* end of library capabilities */

/* plugin capabilities */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

/* (GST_CUDA_SYNC_HAVE_MEMORY_STREAM above: CUDA pools also take a stream
 * in their config) */
/* GstVulkanDevice enables the physical device's features (timeline
 * semaphores among them); gst_vulkan_memory_find_memory_type_index_with_
 * requirements(); GstVulkanBarrierMemoryInfo holds a reference on its
 * queue and synchronization2 flags */
#define GST_CUDA_SYNC_HAVE_VK_DEVICE_FEATURES GST_CHECK_VERSION (1, 24, 0)
#define GST_CUDA_SYNC_HAVE_VK_MEMORY_REQUIREMENTS GST_CHECK_VERSION (1, 24, 0)
#define GST_CUDA_SYNC_HAVE_VK_BARRIER_QUEUE_REF GST_CHECK_VERSION (1, 24, 0)
/* gst_vulkan_physical_device_check_api_version(): the Vulkan version both
 * the device and the instance support (1.24 has the instance's check
 * only) */
#define GST_CUDA_SYNC_HAVE_VK_DEVICE_API_VERSION GST_CHECK_VERSION (1, 26, 0)
/* 1.24 only: the Vulkan library gives RGB frames of sRGB (or unknown)
 * transfer *_SRGB images, and vulkancolorconvert samples and writes them as
 * such (1.22 and 1.26+: *_UNORM, the bytes as they are) */
#define GST_CUDA_SYNC_HAVE_VK_SRGB_RGB_IMAGES \
  (GST_CHECK_VERSION (1, 24, 0) && !GST_CHECK_VERSION (1, 26, 0))
/* GstVulkanBarrierMemoryInfo.semaphore/.semaphore_value: the per-memory
 * timeline semaphore of 1.24 to 1.28 (detected by meson; upstream main
 * replaced them with a private object) */
#ifdef HAVE_VK_BARRIER_SEMAPHORE
#define GST_CUDA_SYNC_HAVE_VK_BARRIER_TIMELINE 1
#else
#define GST_CUDA_SYNC_HAVE_VK_BARRIER_TIMELINE 0
#endif
/* Upstream main (future 1.30): the images' timeline semaphores are
 * reached only through GstVulkanOperation (add_dependency_frame), which
 * takes binary semaphores of one's own (add_wait/signal_semaphore): the
 * bridge relays its submissions through such an operation (detected by
 * meson) */
#ifdef HAVE_VK_OPERATION_SEMAPHORES
#define GST_CUDA_SYNC_HAVE_VK_OPERATION_TIMELINES 1
#else
#define GST_CUDA_SYNC_HAVE_VK_OPERATION_TIMELINES 0
#endif
/* end of plugin capabilities */

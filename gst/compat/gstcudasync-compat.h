/* gst-cudasync
 * Copyright (C) 2026 gst-cudasync developers
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The GStreamer versions the project builds against, as capabilities:
 * the only place that tests GST_CHECK_VERSION. Not installed.
 */
#pragma once

#include <gst/gst.h>

/* library capabilities */
/* end of library capabilities */

/* plugin capabilities */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

/* GstCudaMemory carries a GstCudaStream and may be pushed with work still
 * pending on it (GST_CUDA_MEMORY_TRANSFER_NEED_SYNC); CUDA pools take a
 * stream in their config */
#ifndef GST_CUDA_SYNC_HAVE_MEMORY_STREAM
#define GST_CUDA_SYNC_HAVE_MEMORY_STREAM GST_CHECK_VERSION (1, 24, 0)
#endif
/* gst_cuda_allocator_alloc_wrapped(): CUDA memory around a device pointer
 * the caller owns */
#define GST_CUDA_SYNC_HAVE_WRAPPED_CUDA_ALLOC GST_CHECK_VERSION (1, 24, 0)
/* GstVulkanOperation: recording with the memories' barrier state, and
 * waiting on what upstream Vulkan elements submitted */
#define GST_CUDA_SYNC_HAVE_VK_OPERATION GST_CHECK_VERSION (1, 24, 0)
/* GstVulkanDevice enables the physical device's features (timeline
 * semaphores among them); gst_vulkan_memory_find_memory_type_index_with_
 * requirements(); GstVulkanBarrierMemoryInfo holds a reference on its
 * queue and synchronization2 flags */
#define GST_CUDA_SYNC_HAVE_VK_DEVICE_FEATURES GST_CHECK_VERSION (1, 24, 0)
#define GST_CUDA_SYNC_HAVE_VK_MEMORY_REQUIREMENTS GST_CHECK_VERSION (1, 24, 0)
#define GST_CUDA_SYNC_HAVE_VK_BARRIER_QUEUE_REF GST_CHECK_VERSION (1, 24, 0)
/* GstVulkanBarrierMemoryInfo.semaphore/.semaphore_value: the per-memory
 * timeline semaphore of 1.24 to 1.28 (detected by meson; upstream main
 * replaced them with a private object) */
#ifdef HAVE_VK_BARRIER_SEMAPHORE
#define GST_CUDA_SYNC_HAVE_VK_BARRIER_TIMELINE 1
#else
#define GST_CUDA_SYNC_HAVE_VK_BARRIER_TIMELINE 0
#endif
/* end of plugin capabilities */

/* gst-cudasync
 * Copyright (C) 2026 gst-cudasync developers
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The Vulkan device shared with CUDA. Part of the bridge elements
 * (cudatovulkan, vulkantocuda); not installed.
 */
#pragma once

#include <gst/gst.h>
#include <gst/video/video.h>
#include <gst/vulkan/vulkan.h>
#include <gst/cuda/gstcudacontext.h>
#include <gst/cudasync/gstcudasync-internal.h>

G_BEGIN_DECLS

typedef struct _GstCudaVkBridge GstCudaVkBridge;

/* Names Vulkan objects "gst-cudasync <element> <what>" when the instance
 * has VK_EXT_debug_utils enabled (a validation run: validation messages
 * then say which objects are the project's); else does nothing. Copied by
 * value into what outlives the streaming thread (the interop, the frame
 * pool). */
typedef struct
{
  PFN_vkSetDebugUtilsObjectNameEXT fn;
  VkDevice device;
  gchar prefix[64];
} GstCudaVkNamer;

/* @what NULL: removes the name */
void     gst_cuda_vk_namer_name          (const GstCudaVkNamer * namer,
                                          VkObjectType type, guint64 handle,
                                          const gchar * what);

/* Finds (or takes from the pipeline) the Vulkan device whose deviceUUID is
 * @cuda_uuid and enables the external memory/semaphore extensions on it;
 * otherwise @error says why (naming both UUIDs), for the element to post
 * (GST_CUDA_SYNC_ELEMENT_ERROR_FROM()) */
gboolean gst_cuda_vk_device_setup        (GstCudaVkBridge * b,
                                          const guint8 * cuda_uuid,
                                          GError ** error);

G_END_DECLS

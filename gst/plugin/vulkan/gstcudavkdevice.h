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

/* The Vulkan device shared with CUDA, whose deviceUUID is @cuda_uuid, open
 * with the external memory/semaphore extensions (transfer full).
 * @pipeline_device (nullable): the pipeline's device, which must be that
 * one and have the extensions, or still be closed. Without one, a new
 * device of @instance's physical device with that UUID, which @element
 * shares with the pipeline (HAVE_CONTEXT). @element also logs, and names
 * the Vulkan objects of *@namer. NULL and @error (naming both UUIDs where
 * they differ) for the element to post (GST_CUDA_SYNC_ELEMENT_ERROR_FROM())
 * otherwise. */
GstVulkanDevice * gst_cuda_vk_device_setup (GstElement * element,
                                          GstVulkanInstance * instance,
                                          GstVulkanDevice * pipeline_device,
                                          const guint8 * cuda_uuid,
                                          GstCudaVkNamer * namer,
                                          GError ** error);

G_END_DECLS

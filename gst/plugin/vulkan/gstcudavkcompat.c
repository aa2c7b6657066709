/* gst-cudasync
 * Copyright (C) 2026 gst-cudasync developers
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The bridge elements' version shims (see gstcudavkcompat.h).
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstcudasync-compat.h"
#include "gstcudavkcompat.h"
#include <stdio.h>
#include <gst/cuda/gstcudamemory.h>
#include <gst/cuda/gstcudabufferpool.h>
#include <gst/cuda/cuda-gst.h>
#if GST_CUDA_SYNC_HAVE_MEMORY_STREAM
#include <gst/cuda/gstcudastream.h>
#endif

gboolean
gst_cuda_vk_compat_stream_new (GstCudaContext * cuda, GstCudaStream ** owner,
    CUstream * stream, GError ** error)
{
#if GST_CUDA_SYNC_HAVE_MEMORY_STREAM
  *owner = gst_cuda_stream_new (cuda);
  if (!*owner) {
    g_set_error (error, GST_CUDA_SYNC_ERROR, GST_CUDA_SYNC_ERROR_DRIVER,
        "gst_cuda_stream_new() failed (cuStreamCreate)");
    return FALSE;
  }
  *stream = gst_cuda_stream_get_handle (*owner);
  return TRUE;
#else
  CUresult r;

  *owner = NULL;
  if (!gst_cuda_context_push (cuda)) {
    g_set_error (error, GST_CUDA_SYNC_ERROR, GST_CUDA_SYNC_ERROR_DRIVER,
        "Could not make the CUDA context current");
    return FALSE;
  }
  r = CuStreamCreate (stream, CU_STREAM_DEFAULT);
  gst_cuda_context_pop (NULL);
  if (!gst_cuda_sync_check_result (r, "cuStreamCreate", error)) {
    *stream = NULL;
    return FALSE;
  }
  return TRUE;
#endif
}

gboolean
gst_cuda_vk_compat_stream_free (GstCudaContext * cuda, GstCudaStream ** owner,
    CUstream * stream)
{
  /* a stream belongs to its context: it can be synchronised and destroyed
   * without the context current, if pushing it fails */
  gboolean pushed = gst_cuda_context_push (cuda);

  CuStreamSynchronize (*stream);
#if !GST_CUDA_SYNC_HAVE_MEMORY_STREAM
  CuStreamDestroy (*stream);
#endif
  if (pushed)
    gst_cuda_context_pop (NULL);
#if GST_CUDA_SYNC_HAVE_MEMORY_STREAM
  gst_clear_cuda_stream (owner);
#endif
  *stream = NULL;
  return pushed;
}

GstCudaStream *
gst_cuda_vk_compat_stream_ref (GstCudaStream * stream)
{
#if GST_CUDA_SYNC_HAVE_MEMORY_STREAM
  return stream ? gst_cuda_stream_ref (stream) : NULL;
#else
  g_return_val_if_fail (stream == NULL, NULL);
  return NULL;
#endif
}

void
gst_cuda_vk_compat_stream_unref (GstCudaStream ** stream)
{
#if GST_CUDA_SYNC_HAVE_MEMORY_STREAM
  gst_clear_cuda_stream (stream);
#else
  *stream = NULL;
#endif
}

void
gst_cuda_vk_compat_pool_config_set_stream (GstStructure * config,
    GstCudaStream * stream)
{
#if GST_CUDA_SYNC_HAVE_MEMORY_STREAM
  gst_buffer_pool_config_set_cuda_stream (config, stream);
#endif
}

void
gst_cuda_vk_compat_memory_set_pending (GstMemory * mem, gboolean pending)
{
#if GST_CUDA_SYNC_HAVE_MEMORY_STREAM
  if (pending)
    GST_MINI_OBJECT_FLAG_SET (mem, GST_CUDA_MEMORY_TRANSFER_NEED_SYNC);
  else
    GST_MEMORY_FLAG_UNSET (mem, GST_CUDA_MEMORY_TRANSFER_NEED_SYNC);
#endif
}

VkFormat
gst_cuda_vk_compat_rgb_image_format (VkFormat unorm, const GstVideoInfo * info)
{
#if GST_CUDA_SYNC_HAVE_VK_SRGB_RGB_IMAGES
  GstVideoTransferFunction transfer =
      GST_VIDEO_INFO_COLORIMETRY (info).transfer;

  if (transfer == GST_VIDEO_TRANSFER_SRGB
      || transfer == GST_VIDEO_TRANSFER_UNKNOWN) {
    if (unorm == VK_FORMAT_R8G8B8A8_UNORM)
      return VK_FORMAT_R8G8B8A8_SRGB;
    if (unorm == VK_FORMAT_B8G8R8A8_UNORM)
      return VK_FORMAT_B8G8R8A8_SRGB;
  }
#endif
  return unorm;
}

gboolean
gst_cuda_vk_compat_can_wrap (void)
{
  return GST_CUDA_SYNC_HAVE_WRAPPED_CUDA_ALLOC;
}

GstMemory *
gst_cuda_vk_compat_alloc_wrapped (GstCudaContext * cuda,
    GstCudaStream * stream, const GstVideoInfo * info, CUdeviceptr ptr,
    gpointer user_data, GDestroyNotify notify)
{
#if GST_CUDA_SYNC_HAVE_WRAPPED_CUDA_ALLOC
  return gst_cuda_allocator_alloc_wrapped (NULL, cuda, stream, info, ptr,
      user_data, notify);
#else
  g_return_val_if_reached (NULL);
#endif
}

#if GST_CUDA_SYNC_HAVE_VK_DEVICE_FEATURES
/* whether @device and @instance support Vulkan @major.@minor */
static gboolean
device_api_version_at_least (GstVulkanDevice * device,
    GstVulkanInstance * instance, guint major, guint minor)
{
#if GST_CUDA_SYNC_HAVE_VK_DEVICE_API_VERSION
  return gst_vulkan_physical_device_check_api_version (device->physical_device,
      major, minor, 0);
#else
  /* what 1.26's gst_vulkan_physical_device_check_api_version() checks */
  return VK_MAKE_VERSION (major, minor, 0) <=
      device->physical_device->properties.apiVersion &&
      gst_vulkan_instance_check_version (instance, major, minor, 0);
#endif
}
#endif

gboolean
gst_cuda_vk_compat_timeline_enabled (GstVulkanDevice * device,
    GstVulkanInstance * instance)
{
#if GST_CUDA_SYNC_HAVE_VK_DEVICE_FEATURES
  VkPhysicalDeviceTimelineSemaphoreFeatures tl = {
    .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_TIMELINE_SEMAPHORE_FEATURES,
  };
  VkPhysicalDeviceFeatures2 features = {
    .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2,.pNext = &tl,
  };
  PFN_vkGetPhysicalDeviceFeatures2 get_features;

  if (!device_api_version_at_least (device, instance, 1, 2)
      && !gst_vulkan_device_is_extension_enabled (device,
          VK_KHR_TIMELINE_SEMAPHORE_EXTENSION_NAME))
    return FALSE;
  get_features = gst_vulkan_instance_get_proc_address (instance,
      "vkGetPhysicalDeviceFeatures2");
  if (!get_features)
    get_features = gst_vulkan_instance_get_proc_address (instance,
        "vkGetPhysicalDeviceFeatures2KHR");
  if (!get_features)
    return FALSE;
  get_features (device->physical_device->device, &features);
  return tl.timelineSemaphore;
#else
  return FALSE;
#endif
}

gboolean
gst_cuda_vk_compat_find_memory_type (GstVulkanDevice * device,
    const VkMemoryRequirements * req, VkMemoryPropertyFlags props,
    guint32 * idx)
{
#if GST_CUDA_SYNC_HAVE_VK_MEMORY_REQUIREMENTS
  /* 1.24 declares @req without const; it only reads it */
  return gst_vulkan_memory_find_memory_type_index_with_requirements (device,
      (VkMemoryRequirements *) req, props, idx);
#else
  return gst_vulkan_memory_find_memory_type_index_with_type_properties
      (device, req->memoryTypeBits, props, idx);
#endif
}

VkSemaphore
gst_cuda_vk_compat_barrier_timeline (GstVulkanBarrierMemoryInfo * barrier,
    guint64 * value)
{
#if GST_CUDA_SYNC_HAVE_VK_BARRIER_TIMELINE
  *value = barrier->semaphore_value;
  return barrier->semaphore;
#else
  *value = 0;
  return VK_NULL_HANDLE;
#endif
}

gboolean
gst_cuda_vk_compat_barrier_add_timeline (GstVulkanBarrierMemoryInfo * barrier,
    GstVulkanDevice * device, GError ** error)
{
#if GST_CUDA_SYNC_HAVE_VK_BARRIER_TIMELINE
  VkSemaphoreTypeCreateInfo type_info = {
    .sType = VK_STRUCTURE_TYPE_SEMAPHORE_TYPE_CREATE_INFO,
    .semaphoreType = VK_SEMAPHORE_TYPE_TIMELINE,.initialValue = 0,
  };
  VkSemaphoreCreateInfo ci = {
    .sType = VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO,.pNext = &type_info,
  };
  VkResult res;

  res = vkCreateSemaphore (device->device, &ci, NULL, &barrier->semaphore);
  if (gst_vulkan_error_to_g_error (res, error, "vkCreateSemaphore") < 0) {
    barrier->semaphore = VK_NULL_HANDLE;
    return FALSE;
  }
  barrier->semaphore_value = 0;
#endif
  return TRUE;
}

void
gst_cuda_vk_compat_barrier_advance (GstVulkanBarrierMemoryInfo * barrier)
{
#if GST_CUDA_SYNC_HAVE_VK_BARRIER_TIMELINE
  barrier->semaphore_value++;
#endif
}

void
gst_cuda_vk_compat_barrier_set_queue (GstVulkanBarrierMemoryInfo * barrier,
    GstVulkanQueue * queue)
{
#if GST_CUDA_SYNC_HAVE_VK_BARRIER_QUEUE_REF
  gst_object_replace ((GstObject **) & barrier->queue, GST_OBJECT (queue));
#else
  barrier->queue = queue;
#endif
}

static gpointer
upload_packs_rows_once (gpointer data)
{
  GstPlugin *plugin = gst_registry_find_plugin (gst_registry_get (), "vulkan");
  guint major = 0, minor = 0;

  /* no vulkan plugin: nothing uploads, and the answer matters to nobody */
  if (!plugin)
    return GINT_TO_POINTER (FALSE);
  if (sscanf (gst_plugin_get_version (plugin), "%u.%u", &major, &minor) != 2)
    major = 0;
  gst_object_unref (plugin);
  return GINT_TO_POINTER (major == 1 && minor <= 26);
}

gboolean
gst_cuda_vk_compat_upload_packs_rows (void)
{
  static GOnce once = G_ONCE_INIT;

  return GPOINTER_TO_INT (g_once (&once, upload_packs_rows_once, NULL));
}

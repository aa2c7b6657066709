/* gst-cudasync
 * Copyright (C) 2026 gst-cudasync developers
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The bridge elements' version-dependent calls (see gstcudavkcompat.h).
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstcudasync-compat.h"
#include "gstcudavkcompat.h"
#include "gstcudavkupstreampool.h"
#include "gstcudavkvulkanpool.h"
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

#if !GST_CUDA_SYNC_HAVE_MEMORY_STREAM
/* gstcudavkupstreampool.c is not built: upstream never writes in place */
gboolean
gst_cuda_vk_upstream_pool_supported (const GstVideoInfo * info,
    const GstCudaVkMemoryKind * kind)
{
  return FALSE;
}

GstBufferPool *
gst_cuda_vk_upstream_pool_new (GstCudaVkInterop * interop,
    GstBufferPool * frames)
{
  return NULL;
}

GstBuffer *
gst_cuda_vk_upstream_pool_get_frame (GstMemory * mem, GstBufferPool * frames)
{
  return NULL;
}

/* gstcudavkvulkanpool.c is not built: vulkantocuda proposes no pool */
gboolean
gst_cuda_vk_vulkan_pool_supported (GstVulkanDevice * device,
    const GstVideoInfo * info, GError ** error)
{
  g_set_error (error, GST_CUDA_SYNC_ERROR, GST_CUDA_SYNC_ERROR_NOT_SUPPORTED,
      "GStreamer 1.22 cannot wrap memory as CUDA memory");
  return FALSE;
}

GstBufferPool *
gst_cuda_vk_vulkan_pool_new (GstCudaVkInterop * interop,
    GstBufferPool * frames, const GstCudaVkMemoryKind * kind)
{
  return NULL;
}

GstBuffer *
gst_cuda_vk_vulkan_pool_get_frame (GstBuffer * buf, GstBufferPool * frames)
{
  return NULL;
}

GstMemory *
gst_cuda_vk_vulkan_pool_wrap (GstBufferPool * pool, GstBuffer * frame,
    GstBuffer * inbuf)
{
  return NULL;
}
#endif

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

#if GST_CUDA_SYNC_HAVE_VK_OPERATION_TIMELINES
/* an operation that gst_vulkan_operation_end() refuses with
 * VK_ERROR_OUT_OF_DATE_KHR (another user of a frame committed first) is
 * recorded again, as upstream's elements do; this many times at most */
#define RELAY_TRIES 8

struct _GstCudaVkRelay
{
  /* serialises the operation: give-backs run on whichever thread drops a
   * frame. Taken alone or under the interop's trash lock (a give-back from
   * its list's collection); under it only upstream's locks (the
   * operation's, the barrier state's, the images', the queue's submit
   * lock). A reset (after a conflict) waits on the CPU for the relay's
   * earlier operations, which depend on submitted work only. */
  GMutex lock;
  GstVulkanDevice *device;
  GstVulkanCommandPool *pool;
  GstVulkanOperation *op;
};

/* Whether every memory of @frame is a Vulkan image: each has a timeline
 * where the device has timeline semaphores, which the operation checks */
static gboolean
frame_has_timelines (GstBuffer * frame)
{
  guint i, n = gst_buffer_n_memory (frame);

  for (i = 0; i < n; i++) {
    if (!gst_is_vulkan_image_memory (gst_buffer_peek_memory (frame, i)))
      return FALSE;
  }
  return n > 0;
}

static GstVulkanHandle *
binary_semaphore_new (GstVulkanDevice * device, GError ** error)
{
  VkSemaphoreCreateInfo ci = {.sType = VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO,
  };
  VkSemaphore sem;
  VkResult res;

  res = vkCreateSemaphore (device->device, &ci, NULL, &sem);
  if (gst_vulkan_error_to_g_error (res, error, "vkCreateSemaphore") < 0)
    return NULL;
  return gst_vulkan_handle_new_wrapped (device,
      GST_VULKAN_HANDLE_TYPE_SEMAPHORE, (GstVulkanHandleTypedef) sem,
      gst_vulkan_handle_free_semaphore, NULL);
}

/* One operation on @frame's timelines that waits on @wait or signals
 * @signal (one of them). Every failure resets the operation (upstream's
 * end() leaves it begun when it could not make a fence or end the command
 * buffer), so that the next one starts clean. A conflict with another
 * user of the frame (its timeline moved between reading and committing,
 * seen by add_dependency_frame() or end()) is tried again. */
static gboolean
relay_run (GstCudaVkRelay * relay, GstBuffer * frame, GstVulkanHandle * wait,
    GstVulkanHandle * signal, GError ** error)
{
  guint tries;

  g_mutex_lock (&relay->lock);
  for (tries = 0; tries < RELAY_TRIES; tries++) {
    GError *err = NULL;

    /* upstream's begin() may set its error twice: none asked */
    if (!gst_vulkan_operation_begin (relay->op, NULL)) {
      g_set_error (error, GST_VULKAN_ERROR, VK_ERROR_INITIALIZATION_FAILED,
          "Could not begin a Vulkan operation on the frame's timelines");
      break;
    }
    if (!gst_vulkan_operation_add_dependency_frame (relay->op, frame,
            VK_PIPELINE_STAGE_ALL_COMMANDS_BIT,
            VK_PIPELINE_STAGE_ALL_COMMANDS_BIT)) {
      gst_vulkan_operation_reset (relay->op);
      GST_DEBUG ("frame %p: its timeline moved while added, again", frame);
      continue;
    }
    /* the operation owns what it is given until its fence signals */
    if (wait)
      gst_vulkan_operation_add_wait_semaphore (relay->op,
          gst_vulkan_handle_ref (wait), VK_PIPELINE_STAGE_ALL_COMMANDS_BIT);
    if (signal)
      gst_vulkan_operation_add_signal_semaphore (relay->op,
          gst_vulkan_handle_ref (signal), VK_PIPELINE_STAGE_ALL_COMMANDS_BIT);
    if (gst_vulkan_operation_end (relay->op, &err)) {
      g_mutex_unlock (&relay->lock);
      return TRUE;
    }
    gst_vulkan_operation_reset (relay->op);
    if (!g_error_matches (err, GST_VULKAN_ERROR, VK_ERROR_OUT_OF_DATE_KHR)) {
      g_propagate_error (error, err);
      break;
    }
    GST_DEBUG ("frame %p: another user committed first, again", frame);
    g_clear_error (&err);
  }
  if (tries == RELAY_TRIES)
    g_set_error (error, GST_VULKAN_ERROR, VK_ERROR_OUT_OF_DATE_KHR,
        "The frame's timeline semaphores changed %d times in a row while "
        "an operation on them was submitted", RELAY_TRIES);
  g_mutex_unlock (&relay->lock);
  return FALSE;
}
#endif

GstCudaVkRelay *
gst_cuda_vk_relay_new (GstVulkanQueue * queue, GError ** error)
{
#if GST_CUDA_SYNC_HAVE_VK_OPERATION_TIMELINES
  GstCudaVkRelay *relay;
  GstVulkanCommandPool *pool;

  pool = gst_vulkan_queue_create_command_pool (queue, error);
  if (!pool)
    return NULL;
  relay = g_new0 (GstCudaVkRelay, 1);
  g_mutex_init (&relay->lock);
  relay->device = gst_object_ref (queue->device);
  relay->pool = pool;
  relay->op = gst_vulkan_operation_new (pool);
  /* Upstream's operation handles the images' timelines and one's own
   * semaphores together only with timeline semaphores and
   * synchronization2; elsewhere images have no timelines to relay (or its
   * submission would go wrong), and the bridge keeps queue order */
  if (!gst_cuda_vk_compat_timeline_enabled (queue->device,
          queue->device->instance) || !gst_vulkan_operation_use_sync2
      (relay->op)) {
    GST_INFO_OBJECT (queue, "no timeline semaphores or no synchronization2: "
        "nothing to relay; the bridge is ordered by submission order");
    gst_cuda_vk_relay_free (relay);
    return NULL;
  }
  return relay;
#else
  return NULL;
#endif
}

void
gst_cuda_vk_relay_free (GstCudaVkRelay * relay)
{
#if GST_CUDA_SYNC_HAVE_VK_OPERATION_TIMELINES
  if (!relay)
    return;
  /* waits for the operations' fences and frees what they used */
  gst_vulkan_operation_reset (relay->op);
  gst_object_unref (relay->op);
  gst_object_unref (relay->pool);
  gst_object_unref (relay->device);
  g_mutex_clear (&relay->lock);
  g_free (relay);
#endif
}

gboolean
gst_cuda_vk_relay_prepare_after (GstCudaVkRelay * relay, GstBuffer * frame,
    GstVulkanHandle ** signal, GError ** error)
{
  *signal = NULL;
#if GST_CUDA_SYNC_HAVE_VK_OPERATION_TIMELINES
  if (!relay || !frame_has_timelines (frame))
    return TRUE;
  *signal = binary_semaphore_new (relay->device, error);
  return *signal != NULL;
#else
  return TRUE;
#endif
}

gboolean
gst_cuda_vk_relay_before (GstCudaVkRelay * relay, GstBuffer * frame,
    GstVulkanHandle ** wait, GError ** error)
{
  /* the same semaphore, made the same way: the operation signals it */
  if (!gst_cuda_vk_relay_prepare_after (relay, frame, wait, error))
    return FALSE;
#if GST_CUDA_SYNC_HAVE_VK_OPERATION_TIMELINES
  if (*wait && !relay_run (relay, frame, NULL, *wait, error)) {
    gst_clear_vulkan_handle (wait);
    return FALSE;
  }
#endif
  return TRUE;
}

gboolean
gst_cuda_vk_relay_after (GstCudaVkRelay * relay, GstBuffer * frame,
    GstVulkanHandle * signalled, GError ** error)
{
#if GST_CUDA_SYNC_HAVE_VK_OPERATION_TIMELINES
  if (relay && signalled)
    return relay_run (relay, frame, signalled, NULL, error);
#endif
  return TRUE;
}

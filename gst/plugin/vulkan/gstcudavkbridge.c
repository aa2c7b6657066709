/* gst-cudasync
 * Copyright (C) 2026 gst-cudasync developers
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The state both bridge elements share: the Vulkan contexts, the timeline
 * property, state changes, caps and start/stop.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstcudavkbridge.h"
#include "gstcudasyncelementerror.h"
#include "gstcudasyncbasetransform.h"
#include "gstcudavkmemorykind.h"
#include <gst/cuda/cuda-gst.h>
#include <gst/cuda/gstcudautils.h>
#include <gst/cuda/gstcudamemory.h>

GST_DEBUG_CATEGORY_EXTERN (gst_cuda_vk_debug);
#define GST_CAT_DEFAULT gst_cuda_vk_debug

const gchar *const gst_cuda_vk_counter_fields[GST_CUDA_VK_N_COUNTERS] = {
  "buffers", "signals", "waits", "cpu-syncs", "copies", "semaphores",
  "gpu-copies", "in-place", "bound-waits"
};

void
gst_cuda_vk_bridge_init (GstCudaVkBridge * b, GstElement * element)
{
  static gsize once = 0;

  if (g_once_init_enter (&once)) {
    GST_DEBUG_CATEGORY_INIT (gst_cuda_vk_debug, "cudavulkan", 0,
        "CUDA/Vulkan interop helpers");
    g_once_init_leave (&once, 1);
  }
  memset (b, 0, sizeof (*b));
  b->element = element;
  b->use_timeline = TRUE;
  b->sem_type = "none";
  g_mutex_init (&b->lock);
}

void
gst_cuda_vk_bridge_clear (GstCudaVkBridge * b)
{
  gst_cuda_vk_bridge_stop (b);
  gst_clear_object (&b->cuda);
  gst_clear_object (&b->instance);
  gst_clear_object (&b->device);
  gst_clear_object (&b->queue);
  g_mutex_clear (&b->lock);
}

void
gst_cuda_vk_bridge_add_stats (GstCudaVkBridge * b, GstStructure * s)
{
  g_mutex_lock (&b->lock);
  gst_structure_set (s, "semaphore-type", G_TYPE_STRING, b->sem_type, NULL);
  g_mutex_unlock (&b->lock);
}

void
gst_cuda_vk_bridge_set_context (GstCudaVkBridge * b, GstContext * context)
{
  const gchar *type = gst_context_get_context_type (context);

  gst_vulkan_handle_set_context (b->element, context, NULL, &b->instance);
  if (g_strcmp0 (type, GST_VULKAN_DEVICE_CONTEXT_TYPE_STR) == 0) {
    GstVulkanDevice *dev = NULL;
    if (gst_context_get_vulkan_device (context, &dev) && dev) {
      GstVulkanDevice *old;

      GST_OBJECT_LOCK (b->element);
      old = b->device;
      b->device = dev;
      GST_OBJECT_UNLOCK (b->element);
      gst_clear_object (&old);
    }
  }
}

gboolean
gst_cuda_vk_bridge_query (GstCudaVkBridge * b, GstQuery * query)
{
  GstVulkanDevice *device;
  GstVulkanQueue *queue;
  gboolean ret;

  if (GST_QUERY_TYPE (query) != GST_QUERY_CONTEXT)
    return FALSE;
  /* queries come from other threads; stop clears these under the lock */
  GST_OBJECT_LOCK (b->element);
  device = b->device ? gst_object_ref (b->device) : NULL;
  queue = b->queue ? gst_object_ref (b->queue) : NULL;
  GST_OBJECT_UNLOCK (b->element);

  ret = gst_vulkan_handle_context_query (b->element, query, NULL,
      b->instance, device);
  if (!ret && !queue && device && device->device)
    /* not set up yet: answer with the queue we will use, so that a vulkan
     * element next to us picks the same one */
    queue = gst_cuda_vk_shared_queue (device, NULL);
  if (!ret)
    ret = gst_vulkan_queue_handle_context_query (b->element, query, queue);
  gst_clear_object (&queue);
  gst_clear_object (&device);
  return ret;
}

void
gst_cuda_vk_bridge_install_properties (GObjectClass * klass)
{
  gst_cuda_sync_base_transform_class_install_properties (klass,
      "CUDA device to use when the pipeline shares no context (-1: any)");
  /**
   * GstCudaVkBaseTransform:timeline:
   *
   * On GStreamer 1.24 and newer, where the Vulkan device has timeline
   * semaphores enabled, synchronise through one timeline semaphore shared
   * with CUDA; otherwise, or when %FALSE, through one binary semaphore per
   * frame slot. The `semaphore-type` field of `stats` says which one the
   * last start chose.
   */
  g_object_class_install_property (klass, GST_CUDA_VK_PROP_TIMELINE,
      g_param_spec_boolean ("timeline", "Timeline semaphore",
          "Synchronise through one timeline semaphore where the Vulkan "
          "device has timeline semaphores enabled (GStreamer 1.24 and "
          "newer); otherwise, or when FALSE, one binary semaphore per frame "
          "slot", TRUE, G_PARAM_READWRITE | GST_PARAM_MUTABLE_READY |
          G_PARAM_STATIC_STRINGS));
}

gboolean
gst_cuda_vk_bridge_set_property (GstCudaVkBridge * b, guint prop_id,
    const GValue * value)
{
  if (prop_id != GST_CUDA_VK_PROP_TIMELINE)
    return FALSE;
  g_mutex_lock (&b->lock);
  b->use_timeline = g_value_get_boolean (value);
  g_mutex_unlock (&b->lock);
  return TRUE;
}

gboolean
gst_cuda_vk_bridge_get_property (GstCudaVkBridge * b, guint prop_id,
    GValue * value)
{
  if (prop_id != GST_CUDA_VK_PROP_TIMELINE)
    return FALSE;
  g_mutex_lock (&b->lock);
  g_value_set_boolean (value, b->use_timeline);
  g_mutex_unlock (&b->lock);
  return TRUE;
}

/* The devices are set up in NULL->READY, before neighbours (which change
 * state READY->PAUSED only after every element reached READY) look for a
 * Vulkan device: they then share the one with the interop extensions. */
GstStateChangeReturn
gst_cuda_vk_bridge_change_state (GstCudaVkBridge * b,
    GstElementClass * parent_class, GstStateChange transition,
    gboolean offer_semaphore)
{
  GstStateChangeReturn ret;

  if (transition == GST_STATE_CHANGE_NULL_TO_READY &&
      !gst_cuda_vk_bridge_start (b, offer_semaphore)) {
    gst_cuda_vk_bridge_stop (b);
    return GST_STATE_CHANGE_FAILURE;
  }
  ret = parent_class->change_state (b->element, transition);
  if (transition == GST_STATE_CHANGE_READY_TO_NULL ||
      (transition == GST_STATE_CHANGE_NULL_TO_READY &&
          ret == GST_STATE_CHANGE_FAILURE))
    gst_cuda_vk_bridge_stop (b);
  return ret;
}

GstCaps *
gst_cuda_vk_transform_caps (GstCaps * caps, GstCaps * filter,
    gboolean to_vulkan, guint max_image)
{
  GstCaps *tmp, *ret;

  if (to_vulkan) {
    tmp = gst_cuda_vk_memory_kinds_caps (caps, max_image);
  } else {
    tmp = gst_cuda_vk_caps_set_features (caps,
        GST_CAPS_FEATURE_MEMORY_CUDA_MEMORY);
  }

  if (filter) {
    ret = gst_caps_intersect_full (filter, tmp, GST_CAPS_INTERSECT_FIRST);
    gst_caps_unref (tmp);
  } else {
    ret = tmp;
  }
  return ret;
}

gboolean
gst_cuda_vk_parse_caps (GstElement * element, GstCaps * incaps,
    GstCaps * outcaps, GstVideoInfo * in_info, GstVideoInfo * out_info)
{
  if (!gst_video_info_from_caps (in_info, incaps) ||
      !gst_video_info_from_caps (out_info, outcaps)) {
    GST_ELEMENT_ERROR (element, CORE, NEGOTIATION, ("Invalid caps"),
        ("in %" GST_PTR_FORMAT ", out %" GST_PTR_FORMAT, incaps, outcaps));
    return FALSE;
  }
  if (!gst_cuda_vk_format_supported (GST_VIDEO_INFO_FORMAT (in_info))) {
    GST_ELEMENT_ERROR (element, STREAM, FORMAT, ("Unsupported format %s",
            gst_video_format_to_string (GST_VIDEO_INFO_FORMAT (in_info))),
        (NULL));
    return FALSE;
  }
  return TRUE;
}

void
gst_cuda_vk_clear_pool (GstBufferPool ** pool)
{
  if (*pool) {
    gst_buffer_pool_set_active (*pool, FALSE);
    gst_clear_object (pool);
  }
}

guint
gst_cuda_vk_allocation_bound (GstQuery * query, guint default_max)
{
  guint min = 0, max = 0, bound = default_max;

  if (gst_query_get_n_allocation_pools (query) > 0)
    gst_query_parse_nth_allocation_pool (query, 0, NULL, NULL, &min, &max);
  if (max > 0)
    bound = max;
  /* downstream holds @min buffers: one more to fill meanwhile */
  return MAX (bound, min + 1);
}

GstFlowReturn
gst_cuda_vk_acquire_output (GstElement * element, GstBufferPool * pool,
    GstBuffer * inbuf, GstBuffer ** outbuf)
{
  GstFlowReturn ret;

  if (!pool) {
    GST_ELEMENT_ERROR (element, CORE, NEGOTIATION, ("Not negotiated"), (NULL));
    return GST_FLOW_NOT_NEGOTIATED;
  }
  ret = gst_buffer_pool_acquire_buffer (pool, outbuf, NULL);
  if (ret != GST_FLOW_OK)
    return ret;
  gst_buffer_copy_into (*outbuf, inbuf, GST_BUFFER_COPY_FLAGS |
      GST_BUFFER_COPY_TIMESTAMPS, 0, -1);
  return GST_FLOW_OK;
}

/* an error of the interop's own threads: the element's error */
static void
error_cb (gpointer user_data, GError * error)
{
  GST_CUDA_SYNC_ELEMENT_ERROR_FROM (user_data, error);
}

/* what the interop counts goes to the element's counters
 * (GstCudaSyncBaseTransform's) */
static const GstCudaVkInteropFuncs interop_funcs = {
  gst_cuda_sync_base_transform_count_func, error_cb
};

/* The interop and its synchronisation (gst_cuda_vk_interop_setup_sync()):
 * the "timeline" property allows the timeline semaphore */
static gboolean
make_interop (GstCudaVkBridge * b, gboolean offer_semaphore, GError ** error)
{
  GstCudaSyncBaseTransform *base = GST_CUDA_SYNC_BASE_TRANSFORM (b->element);
  const gchar *sem_type;
  gboolean want_timeline;

  b->interop = gst_cuda_vk_interop_new (b->cuda,
      gst_cuda_sync_base_transform_get_cuda_stream (base),
      gst_cuda_sync_base_transform_get_stream (base), b->queue, &b->namer,
      &interop_funcs, base, error);
  if (!b->interop)
    return FALSE;

  g_mutex_lock (&b->lock);
  want_timeline = b->use_timeline;
  g_mutex_unlock (&b->lock);
  sem_type = gst_cuda_vk_interop_setup_sync (b->interop, want_timeline,
      offer_semaphore);
  g_mutex_lock (&b->lock);
  b->sem_type = sem_type;
  g_mutex_unlock (&b->lock);
  return TRUE;
}

gboolean
gst_cuda_vk_bridge_start (GstCudaVkBridge * b, gboolean offer_semaphore)
{
  GstElement *self = b->element;
  GError *err = NULL;
  guint8 uuid[16];
  GstCudaSyncBaseTransform *base = GST_CUDA_SYNC_BASE_TRANSFORM (self);
  guint cuda_dev = 0;

  /* the driver, the context and the element's stream (on 1.24+ a
   * GstCudaStream, see gst_cuda_vk_compat_stream_new()) */
  if (!gst_cuda_sync_base_transform_open (base))
    return FALSE;
  gst_object_replace ((GstObject **) & b->cuda,
      GST_OBJECT (gst_cuda_sync_base_transform_get_context (base)));
  g_object_get (b->cuda, "cuda-device-id", &cuda_dev, NULL);

  if (!gst_cuda_sync_context_get_uuid (b->cuda, uuid, &err)) {
    GST_CUDA_SYNC_ELEMENT_ERROR (b->element, err,
        "Could not read the CUDA device's " "UUID");
    return FALSE;
  }

  if (!gst_cuda_vk_device_setup (b, uuid, &err)) {
    GST_CUDA_SYNC_ELEMENT_ERROR_FROM (self, err);
    return FALSE;
  }

  {
    GstVulkanQueue *neighbour = NULL, *queue, *old;

    gst_vulkan_queue_run_context_query (self, &neighbour);
    queue = gst_cuda_vk_shared_queue (b->device, neighbour);
    gst_clear_object (&neighbour);
    GST_OBJECT_LOCK (self);
    old = b->queue;
    b->queue = queue;
    GST_OBJECT_UNLOCK (self);
    gst_clear_object (&old);
  }
  if (!b->queue) {
    GST_ELEMENT_ERROR (self, RESOURCE, NOT_FOUND,
        ("The Vulkan device has no graphics or compute queue"), (NULL));
    return FALSE;
  }
  if (!make_interop (b, offer_semaphore, &err)) {
    GST_CUDA_SYNC_ELEMENT_ERROR (b->element, err,
        "Could not create a Vulkan command pool");
    return FALSE;
  }
  GST_INFO_OBJECT (self, "CUDA device %u, Vulkan device %s, queue family %u, "
      "semaphores: %s", cuda_dev,
      b->device->physical_device->properties.deviceName, b->queue->family,
      b->sem_type);
  return TRUE;
}

void
gst_cuda_vk_bridge_stop (GstCudaVkBridge * b)
{
  /* the interop waits for its submissions and the stream's work (stop is
   * not the streaming thread) and drops its semaphores; then the base class
   * frees the stream. The context stays the element's. */
  if (b->interop)
    gst_cuda_vk_interop_stop (b->interop);
  gst_clear_object (&b->interop);
  gst_cuda_sync_base_transform_close (GST_CUDA_SYNC_BASE_TRANSFORM
      (b->element), FALSE);
  {
    GstVulkanQueue *queue;
    GstVulkanDevice *device;

    GST_OBJECT_LOCK (b->element);
    queue = b->queue;
    device = b->device;
    b->queue = NULL;
    b->device = NULL;
    GST_OBJECT_UNLOCK (b->element);
    gst_clear_object (&queue);
    gst_clear_object (&device);
  }
}

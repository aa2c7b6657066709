/* gst-cudasync
 * Copyright (C) 2026 gst-cudasync developers
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The base of the bridge elements (see the header): its state is the
 * element's, and what knows no element (the device's set-up, the
 * interop, the memory kinds) gets it as arguments.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstcudavkbasetransform.h"
#include "gstcudasyncelementerror.h"
#include <gst/cuda/cuda-gst.h>
#include <gst/cuda/gstcudautils.h>
#include <gst/cuda/gstcudamemory.h>

GST_DEBUG_CATEGORY_STATIC (gst_cuda_vk_base_transform_debug);
#define GST_CAT_DEFAULT gst_cuda_vk_base_transform_debug
/* the category of the parts that know no element (gstcudavkdevice.c) */
GST_DEBUG_CATEGORY_EXTERN (gst_cuda_vk_debug);

typedef struct
{
  /* guards use_timeline and sem_type: the property, and stats read from
   * any thread */
  GMutex lock;
  gboolean use_timeline;        /* property "timeline" */
  const gchar *sem_type;        /* "timeline", "binary" or "none" */

  /* the Vulkan contexts: set_context() may set them before NULL->READY,
   * which finds the missing ones; READY->NULL drops device and queue.
   * @device and @queue are swapped under the object lock, since context
   * queries from other threads ref them. */
  GstVulkanInstance *instance;
  GstVulkanDevice *device;
  GstVulkanQueue *queue;
  /* what the hand-overs run on, from NULL->READY to READY->NULL: made from
   * the CUDA context and stream (GstCudaSyncBaseTransform's) and @queue; it
   * owns the semaphores, the command pool, fences and trash list */
  GstCudaVkInterop *interop;

  GstVideoInfo in_info;
  GstVideoInfo out_info;
  GstBufferPool *pool;          /* the output's */
  gint failed;                  /* atomic: posted an element error since
                                 * start (see post_message) */
} GstCudaVkBaseTransformPrivate;

G_DEFINE_ABSTRACT_TYPE_WITH_PRIVATE (GstCudaVkBaseTransform,
    gst_cuda_vk_base_transform, GST_TYPE_CUDA_SYNC_BASE_TRANSFORM);

#define PRIV(self) ((GstCudaVkBaseTransformPrivate *) \
    gst_cuda_vk_base_transform_get_instance_private \
    (GST_CUDA_VK_BASE_TRANSFORM (self)))
#define parent_class gst_cuda_vk_base_transform_parent_class

enum
{
  PROP_TIMELINE = GST_CUDA_SYNC_BASE_TRANSFORM_PROP_LAST,
};

/* the stats structure's counter fields, by GstCudaVkCounter */
static const gchar *const counter_fields[GST_CUDA_VK_N_COUNTERS] = {
  "buffers", "signals", "waits", "cpu-syncs", "copies", "semaphores",
  "gpu-copies", "in-place", "bound-waits"
};

static void
gst_cuda_vk_base_transform_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  GstCudaVkBaseTransformPrivate *priv = PRIV (object);

  if (prop_id != PROP_TIMELINE) {
    G_OBJECT_CLASS (parent_class)->set_property (object, prop_id, value, pspec);
    return;
  }
  g_mutex_lock (&priv->lock);
  priv->use_timeline = g_value_get_boolean (value);
  g_mutex_unlock (&priv->lock);
}

static void
gst_cuda_vk_base_transform_get_property (GObject * object, guint prop_id,
    GValue * value, GParamSpec * pspec)
{
  GstCudaVkBaseTransformPrivate *priv = PRIV (object);

  if (prop_id != PROP_TIMELINE) {
    G_OBJECT_CLASS (parent_class)->get_property (object, prop_id, value, pspec);
    return;
  }
  g_mutex_lock (&priv->lock);
  g_value_set_boolean (value, priv->use_timeline);
  g_mutex_unlock (&priv->lock);
}

/* semaphore-type, after the counters */
static void
gst_cuda_vk_base_transform_add_stats (GstCudaSyncBaseTransform * base,
    GstStructure * stats)
{
  GstCudaVkBaseTransformPrivate *priv = PRIV (base);

  g_mutex_lock (&priv->lock);
  gst_structure_set (stats, "semaphore-type", G_TYPE_STRING, priv->sem_type,
      NULL);
  g_mutex_unlock (&priv->lock);
}

/* The pipeline's Vulkan instance and device (the CUDA context is the
 * parent class's) */
static void
gst_cuda_vk_base_transform_set_context (GstElement * element,
    GstContext * context)
{
  GstCudaVkBaseTransformPrivate *priv = PRIV (element);
  const gchar *type = gst_context_get_context_type (context);

  gst_vulkan_handle_set_context (element, context, NULL, &priv->instance);
  if (g_strcmp0 (type, GST_VULKAN_DEVICE_CONTEXT_TYPE_STR) == 0) {
    GstVulkanDevice *dev = NULL;
    if (gst_context_get_vulkan_device (context, &dev) && dev) {
      GstVulkanDevice *old;

      GST_OBJECT_LOCK (element);
      old = priv->device;
      priv->device = dev;
      GST_OBJECT_UNLOCK (element);
      gst_clear_object (&old);
    }
  }
  GST_ELEMENT_CLASS (parent_class)->set_context (element, context);
}

/* The Vulkan instance, device and queue; the CUDA context is the parent
 * class's */
static gboolean
gst_cuda_vk_base_transform_query (GstBaseTransform * trans,
    GstPadDirection direction, GstQuery * query)
{
  GstCudaVkBaseTransformPrivate *priv = PRIV (trans);
  GstVulkanDevice *device;
  GstVulkanQueue *queue;
  gboolean ret;

  if (GST_QUERY_TYPE (query) != GST_QUERY_CONTEXT)
    goto parent;
  /* queries come from other threads; stop clears these under the lock */
  GST_OBJECT_LOCK (trans);
  device = priv->device ? gst_object_ref (priv->device) : NULL;
  queue = priv->queue ? gst_object_ref (priv->queue) : NULL;
  GST_OBJECT_UNLOCK (trans);

  ret = gst_vulkan_handle_context_query (GST_ELEMENT (trans), query, NULL,
      priv->instance, device);
  if (!ret && !queue && device && device->device)
    /* not set up yet: answer with the queue we will use, so that a vulkan
     * element next to us picks the same one */
    queue = gst_cuda_vk_shared_queue (device, NULL);
  if (!ret)
    ret = gst_vulkan_queue_handle_context_query (GST_ELEMENT (trans), query,
        queue);
  gst_clear_object (&queue);
  gst_clear_object (&device);
  if (ret)
    return TRUE;
parent:
  return GST_BASE_TRANSFORM_CLASS (parent_class)->query (trans, direction,
      query);
}

/* ---- the devices, from NULL->READY to READY->NULL ---- */

/* The pipeline's Vulkan device, if it has one (transfer full): one given to
 * set_context() earlier, a neighbour's answer to a context query, or the
 * answer to NEED_CONTEXT (the application's, or the bin's with the device
 * another bridge element of the pipeline shared), which comes through
 * set_context() */
static GstVulkanDevice *
pipeline_device (GstCudaVkBaseTransform * self)
{
  GstCudaVkBaseTransformPrivate *priv = PRIV (self);
  GstVulkanDevice *device;

  GST_OBJECT_LOCK (self);
  device = priv->device ? gst_object_ref (priv->device) : NULL;
  GST_OBJECT_UNLOCK (self);
  if (!device)
    gst_vulkan_device_run_context_query (GST_ELEMENT (self), &device);
  if (!device) {
    gst_vulkan_global_context_query (GST_ELEMENT (self),
        GST_VULKAN_DEVICE_CONTEXT_TYPE_STR);
    GST_OBJECT_LOCK (self);
    device = priv->device ? gst_object_ref (priv->device) : NULL;
    GST_OBJECT_UNLOCK (self);
  }
  return device;
}

/* The Vulkan instance, the device of the CUDA context @cuda (the
 * pipeline's, or one shared with it) with the names of its objects in
 * *@namer, and the queue; FALSE once it has posted an element error */
static gboolean
open_vulkan (GstCudaVkBaseTransform * self, GstCudaContext * cuda,
    GstCudaVkNamer * namer)
{
  GstCudaVkBaseTransformPrivate *priv = PRIV (self);
  GstVulkanDevice *found, *device, *old_device;
  GstVulkanQueue *neighbour = NULL, *queue, *old_queue;
  GError *err = NULL;
  guint8 uuid[16];

  if (!gst_cuda_sync_context_get_uuid (cuda, uuid, &err)) {
    GST_CUDA_SYNC_ELEMENT_ERROR (self, err,
        "Could not read the CUDA device's " "UUID");
    return FALSE;
  }
  if (!gst_vulkan_ensure_element_data (GST_ELEMENT (self), NULL,
          &priv->instance)) {
    GST_CUDA_SYNC_SET_ERROR (&err, RESOURCE, NOT_FOUND,
        ("No Vulkan instance available"), ("gst_vulkan_ensure_element_data "
            "failed"));
    GST_CUDA_SYNC_ELEMENT_ERROR_FROM (self, err);
    return FALSE;
  }
  found = pipeline_device (self);
  device = gst_cuda_vk_device_setup (GST_ELEMENT (self), priv->instance,
      found, uuid, namer, &err);
  gst_clear_object (&found);
  if (!device) {
    GST_CUDA_SYNC_ELEMENT_ERROR_FROM (self, err);
    return FALSE;
  }

  GST_OBJECT_LOCK (self);
  old_device = priv->device;
  priv->device = device;
  GST_OBJECT_UNLOCK (self);
  gst_clear_object (&old_device);

  gst_vulkan_queue_run_context_query (GST_ELEMENT (self), &neighbour);
  queue = gst_cuda_vk_shared_queue (device, neighbour);
  gst_clear_object (&neighbour);
  GST_OBJECT_LOCK (self);
  old_queue = priv->queue;
  priv->queue = queue;
  GST_OBJECT_UNLOCK (self);
  gst_clear_object (&old_queue);
  if (!queue) {
    GST_ELEMENT_ERROR (self, RESOURCE, NOT_FOUND,
        ("The Vulkan device has no graphics or compute queue"), (NULL));
    return FALSE;
  }
  return TRUE;
}

/* an error of the interop's own threads: the element's error */
static void
error_cb (gpointer user_data, GError * error)
{
  GST_CUDA_SYNC_ELEMENT_ERROR_FROM (user_data, error);
}

void
gst_cuda_vk_base_transform_pool_error (GError * error, gpointer self)
{
  GST_CUDA_SYNC_ELEMENT_ERROR_FROM (self, error);
}

/* what the interop counts goes to the element's counters
 * (GstCudaSyncBaseTransform's) */
static const GstCudaVkInteropFuncs interop_funcs = {
  gst_cuda_sync_base_transform_count_func, error_cb
};

/* The interop and its synchronisation (gst_cuda_vk_interop_setup_sync()):
 * the "timeline" property allows the timeline semaphore */
static gboolean
make_interop (GstCudaVkBaseTransform * self, GstCudaContext * cuda,
    const GstCudaVkNamer * namer, GError ** error)
{
  GstCudaVkBaseTransformClass *klass =
      GST_CUDA_VK_BASE_TRANSFORM_GET_CLASS (self);
  GstCudaSyncBaseTransform *base = GST_CUDA_SYNC_BASE_TRANSFORM (self);
  GstCudaVkBaseTransformPrivate *priv = PRIV (self);
  const gchar *sem_type;
  gboolean want_timeline;

  priv->interop = gst_cuda_vk_interop_new (cuda,
      gst_cuda_sync_base_transform_get_cuda_stream (base),
      gst_cuda_sync_base_transform_get_stream (base), priv->queue, namer,
      &interop_funcs, base, error);
  if (!priv->interop)
    return FALSE;

  g_mutex_lock (&priv->lock);
  want_timeline = priv->use_timeline;
  g_mutex_unlock (&priv->lock);
  sem_type = gst_cuda_vk_interop_setup_sync (priv->interop, want_timeline,
      klass->to_vulkan);
  g_mutex_lock (&priv->lock);
  priv->sem_type = sem_type;
  g_mutex_unlock (&priv->lock);
  return TRUE;
}

/* NULL->READY: the CUDA side (the parent class's: the driver, the context
 * and the element's stream, on 1.24+ a GstCudaStream, see
 * gst_cuda_vk_compat_stream_new()), the Vulkan devices and the interop;
 * FALSE once it has posted an element error */
static gboolean
open_devices (GstCudaVkBaseTransform * self)
{
  GstCudaSyncBaseTransform *base = GST_CUDA_SYNC_BASE_TRANSFORM (self);
  GstCudaVkBaseTransformPrivate *priv = PRIV (self);
  GstCudaContext *cuda;
  GstCudaVkNamer namer;
  GError *err = NULL;
  guint cuda_dev = 0;

  if (!gst_cuda_sync_base_transform_open (base))
    return FALSE;
  cuda = gst_cuda_sync_base_transform_get_context (base);
  g_object_get (cuda, "cuda-device-id", &cuda_dev, NULL);
  if (!open_vulkan (self, cuda, &namer))
    return FALSE;
  if (!make_interop (self, cuda, &namer, &err)) {
    GST_CUDA_SYNC_ELEMENT_ERROR (self, err,
        "Could not create a Vulkan command pool");
    return FALSE;
  }
  GST_INFO_OBJECT (self, "CUDA device %u, Vulkan device %s, queue family %u, "
      "semaphores: %s", cuda_dev,
      priv->device->physical_device->properties.deviceName,
      priv->queue->family, gst_cuda_vk_base_transform_get_semaphore_type
      (self));
  return TRUE;
}

/* READY->NULL, or a failed NULL->READY */
static void
close_devices (GstCudaVkBaseTransform * self)
{
  GstCudaVkBaseTransformPrivate *priv = PRIV (self);
  GstVulkanQueue *queue;
  GstVulkanDevice *device;

  /* the interop waits for its submissions and the stream's work (this is
   * not the streaming thread) and drops its semaphores; then the parent
   * class frees the stream. The context stays the element's. */
  if (priv->interop)
    gst_cuda_vk_interop_stop (priv->interop);
  gst_clear_object (&priv->interop);
  gst_cuda_sync_base_transform_close (GST_CUDA_SYNC_BASE_TRANSFORM (self),
      FALSE);
  GST_OBJECT_LOCK (self);
  queue = priv->queue;
  device = priv->device;
  priv->queue = NULL;
  priv->device = NULL;
  GST_OBJECT_UNLOCK (self);
  gst_clear_object (&queue);
  gst_clear_object (&device);
}

static void
gst_cuda_vk_base_transform_finalize (GObject * object)
{
  GstCudaVkBaseTransform *self = GST_CUDA_VK_BASE_TRANSFORM (object);
  GstCudaVkBaseTransformPrivate *priv = PRIV (self);

  gst_cuda_vk_clear_pool (&priv->pool);
  close_devices (self);
  gst_clear_object (&priv->instance);
  g_mutex_clear (&priv->lock);
  G_OBJECT_CLASS (parent_class)->finalize (object);
}

/* Wakes (or lets wait again) a streaming thread that waits for downstream
 * to give an output back: in the output pool's acquire, or in the
 * subclass's own wait. GstBaseTransform does neither on a flush or before
 * deactivating its pads, which wait for the streaming thread. */
static void
set_flushing (GstCudaVkBaseTransform * self, gboolean flushing)
{
  GstCudaVkBaseTransformClass *klass =
      GST_CUDA_VK_BASE_TRANSFORM_GET_CLASS (self);
  GstBufferPool *pool = gst_cuda_vk_base_transform_get_pool (self);

  GST_DEBUG_OBJECT (self, "flushing: %d", flushing);
  if (pool) {
    if (gst_buffer_pool_is_active (pool))
      gst_buffer_pool_set_flushing (pool, flushing);
    gst_object_unref (pool);
  }
  if (klass->set_flushing)
    klass->set_flushing (self, flushing);
}

static gboolean
gst_cuda_vk_base_transform_sink_event (GstBaseTransform * trans,
    GstEvent * event)
{
  if (GST_EVENT_TYPE (event) == GST_EVENT_FLUSH_START)
    set_flushing (GST_CUDA_VK_BASE_TRANSFORM (trans), TRUE);
  else if (GST_EVENT_TYPE (event) == GST_EVENT_FLUSH_STOP)
    set_flushing (GST_CUDA_VK_BASE_TRANSFORM (trans), FALSE);
  return GST_BASE_TRANSFORM_CLASS (parent_class)->sink_event (trans, event);
}

/* The devices are set up in NULL->READY, before neighbours (which change
 * state READY->PAUSED only after every element reached READY) look for a
 * Vulkan device: they then share the one with the interop extensions. */
static GstStateChangeReturn
gst_cuda_vk_base_transform_change_state (GstElement * element,
    GstStateChange transition)
{
  GstCudaVkBaseTransform *self = GST_CUDA_VK_BASE_TRANSFORM (element);
  GstStateChangeReturn ret;

  /* deactivating the pads waits for the streaming thread */
  if (transition == GST_STATE_CHANGE_PAUSED_TO_READY)
    set_flushing (self, TRUE);
  if (transition == GST_STATE_CHANGE_NULL_TO_READY && !open_devices (self)) {
    close_devices (self);
    return GST_STATE_CHANGE_FAILURE;
  }
  ret = GST_ELEMENT_CLASS (parent_class)->change_state (element, transition);
  if (transition == GST_STATE_CHANGE_READY_TO_NULL ||
      (transition == GST_STATE_CHANGE_NULL_TO_READY &&
          ret == GST_STATE_CHANGE_FAILURE))
    close_devices (self);
  return ret;
}

/* An element error of the element (whichever thread posts it) ends its
 * stream until the next start: negotiation fails and every input buffer is
 * refused with GST_FLOW_ERROR. GstBaseTransform retries a failed
 * set_caps/decide_allocation on the next caps, ALLOCATION query or buffer;
 * a transient failure (a driver call) would succeed then, and the element
 * would stream on after its ERROR message: a frame delivered after the
 * error, and no flow error upstream, which is what ends the pipeline's
 * data flow (an application that missed the first ERROR, as gst-launch-1.0
 * does when it comes before its main loop runs, waited for ever on a
 * pipeline whose state change the error had failed). */
static gboolean
gst_cuda_vk_base_transform_post_message (GstElement * element,
    GstMessage * message)
{
  if (GST_MESSAGE_TYPE (message) == GST_MESSAGE_ERROR &&
      GST_MESSAGE_SRC (message) == GST_OBJECT_CAST (element))
    g_atomic_int_set (&PRIV (element)->failed, TRUE);
  return GST_ELEMENT_CLASS (parent_class)->post_message (element, message);
}

gboolean
gst_cuda_vk_base_transform_has_failed (GstCudaVkBaseTransform * self)
{
  return g_atomic_int_get (&PRIV (self)->failed);
}

static GstFlowReturn
gst_cuda_vk_base_transform_submit_input_buffer (GstBaseTransform * trans,
    gboolean is_discont, GstBuffer * input)
{
  if (gst_cuda_vk_base_transform_has_failed (GST_CUDA_VK_BASE_TRANSFORM
          (trans))) {
    GST_DEBUG_OBJECT (trans, "refusing a buffer after the element's error");
    gst_buffer_unref (input);
    return GST_FLOW_ERROR;
  }
  return GST_BASE_TRANSFORM_CLASS (parent_class)->submit_input_buffer (trans,
      is_discont, input);
}

static gboolean
gst_cuda_vk_base_transform_start (GstBaseTransform * trans)
{
  g_atomic_int_set (&PRIV (trans)->failed, FALSE);
  /* the devices are set up in NULL->READY (change_state) */
  return PRIV (trans)->device != NULL;
}

static gboolean
gst_cuda_vk_base_transform_stop (GstBaseTransform * trans)
{
  GstCudaVkBaseTransformPrivate *priv = PRIV (trans);

  /* stop is not a streaming thread: let the enqueued GPU work finish
   * before what it uses goes away (and give back what the interop holds) */
  if (priv->interop)
    gst_cuda_vk_interop_flush (priv->interop);
  gst_cuda_vk_base_transform_set_pool (GST_CUDA_VK_BASE_TRANSFORM (trans),
      NULL);
  return TRUE;
}

/* The stream_free of the parent class: the element's stream is freed in
 * READY->NULL, after the element's GPU work, which may still use the
 * semaphores and the pooled memory: wait for it */
static void
stream_free (GstCudaContext * context, GstCudaStream ** owner,
    CUstream * stream)
{
  if (!gst_cuda_vk_compat_stream_free (context, owner, stream))
    GST_WARNING ("could not make the CUDA context current to release the "
        "stream");
}

/* The same video caps with the other side's memory features. The Vulkan
 * side: images preferred, then buffers; images no larger than the device
 * makes them (maxImageDimension2D) where the device is known, and larger
 * ones last. */
static GstCaps *
gst_cuda_vk_base_transform_transform_caps (GstBaseTransform * trans,
    GstPadDirection direction, GstCaps * caps, GstCaps * filter)
{
  GstCudaVkBaseTransformClass *klass =
      GST_CUDA_VK_BASE_TRANSFORM_GET_CLASS (trans);
  /* caps of the sink pad give the src pad's, and the other way round */
  gboolean to_vulkan_side = klass->to_vulkan ? direction == GST_PAD_SINK :
      direction == GST_PAD_SRC;
  GstVulkanDevice *device;
  guint max_image = 0;
  GstCaps *tmp, *ret;

  /* the device is set up from READY on; stop and set_context replace it
   * under the lock, and drop the old one after */
  GST_OBJECT_LOCK (trans);
  device = PRIV (trans)->device;
  if (device)
    max_image = device->physical_device->properties.limits.maxImageDimension2D;
  GST_OBJECT_UNLOCK (trans);

  if (to_vulkan_side) {
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

/* Both caps parsed, the format checked (element error otherwise) */
static gboolean
parse_caps (GstCudaVkBaseTransform * self, GstCaps * incaps, GstCaps * outcaps)
{
  GstCudaVkBaseTransformPrivate *priv = PRIV (self);

  if (!gst_video_info_from_caps (&priv->in_info, incaps) ||
      !gst_video_info_from_caps (&priv->out_info, outcaps)) {
    GST_ELEMENT_ERROR (self, CORE, NEGOTIATION, ("Invalid caps"),
        ("in %" GST_PTR_FORMAT ", out %" GST_PTR_FORMAT, incaps, outcaps));
    return FALSE;
  }
  if (!gst_cuda_vk_format_supported (GST_VIDEO_INFO_FORMAT (&priv->in_info))) {
    GST_ELEMENT_ERROR (self, STREAM, FORMAT, ("Unsupported format %s",
            gst_video_format_to_string (GST_VIDEO_INFO_FORMAT
                (&priv->in_info))), (NULL));
    return FALSE;
  }
  return TRUE;
}

/* cudatovulkan's images: no larger than the device makes them (at the
 * allocation, vkCreateImage would be given an extent beyond its limits) */
static gboolean
check_output_size (GstCudaVkBaseTransform * self, GstCaps * outcaps)
{
  GstCudaVkBaseTransformPrivate *priv = PRIV (self);
  GstVulkanDevice *device = priv->device;
  GError *err = NULL;

  if (!gst_caps_features_contains (gst_caps_get_features (outcaps, 0),
          GST_CAPS_FEATURE_MEMORY_VULKAN_IMAGE) ||
      gst_cuda_vk_check_image_size (device, &priv->out_info,
          GST_CUDA_VK_IMAGE_USAGE, &err))
    return TRUE;
  GST_ELEMENT_ERROR (self, CORE, NEGOTIATION, ("%s", err->message),
      ("Vulkan device \"%s\", output caps %" GST_PTR_FORMAT "; frames of "
          "this size can go as video/x-raw(memory:VulkanBuffer), which "
          "downstream does not accept here, or be scaled down upstream",
          device->physical_device->properties.deviceName, outcaps));
  g_error_free (err);
  return FALSE;
}

static gboolean
gst_cuda_vk_base_transform_set_caps (GstBaseTransform * trans,
    GstCaps * incaps, GstCaps * outcaps)
{
  GstCudaVkBaseTransform *self = GST_CUDA_VK_BASE_TRANSFORM (trans);
  GstCudaVkBaseTransformClass *klass =
      GST_CUDA_VK_BASE_TRANSFORM_GET_CLASS (trans);

  if (gst_cuda_vk_base_transform_has_failed (self)) {
    GST_DEBUG_OBJECT (self, "not negotiating after the element's error");
    return FALSE;
  }
  if (!parse_caps (self, incaps, outcaps))
    return FALSE;
  if (klass->to_vulkan && !check_output_size (self, outcaps))
    return FALSE;
  return klass->set_info ? klass->set_info (self, incaps, outcaps) : TRUE;
}

/* A buffer from the output pool with @inbuf's flags and timestamps */
static GstFlowReturn
gst_cuda_vk_base_transform_prepare_output_buffer (GstBaseTransform * trans,
    GstBuffer * inbuf, GstBuffer ** outbuf)
{
  GstBufferPool *pool = PRIV (trans)->pool;
  GstFlowReturn ret;

  if (!pool) {
    GST_ELEMENT_ERROR (trans, CORE, NEGOTIATION, ("Not negotiated"), (NULL));
    return GST_FLOW_NOT_NEGOTIATED;
  }
  ret = gst_buffer_pool_acquire_buffer (pool, outbuf, NULL);
  if (ret != GST_FLOW_OK)
    return ret;
  gst_buffer_copy_into (*outbuf, inbuf, GST_BUFFER_COPY_FLAGS |
      GST_BUFFER_COPY_TIMESTAMPS, 0, -1);
  return GST_FLOW_OK;
}

static void
gst_cuda_vk_base_transform_class_init (GstCudaVkBaseTransformClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstBaseTransformClass *trans_class = GST_BASE_TRANSFORM_CLASS (klass);
  GstCudaSyncBaseTransformClass *base_class =
      GST_CUDA_SYNC_BASE_TRANSFORM_CLASS (klass);

  gobject_class->finalize = gst_cuda_vk_base_transform_finalize;
  gobject_class->set_property = gst_cuda_vk_base_transform_set_property;
  gobject_class->get_property = gst_cuda_vk_base_transform_get_property;
  gst_cuda_sync_base_transform_class_install_properties (gobject_class,
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
  g_object_class_install_property (gobject_class, PROP_TIMELINE,
      g_param_spec_boolean ("timeline", "Timeline semaphore",
          "Synchronise through one timeline semaphore where the Vulkan "
          "device has timeline semaphores enabled (GStreamer 1.24 and "
          "newer); otherwise, or when FALSE, one binary semaphore per frame "
          "slot", TRUE, G_PARAM_READWRITE | GST_PARAM_MUTABLE_READY |
          G_PARAM_STATIC_STRINGS));
  base_class->counter_names = counter_fields;
  base_class->n_counters = GST_CUDA_VK_N_COUNTERS;
  base_class->add_stats = gst_cuda_vk_base_transform_add_stats;
  base_class->stream_new = gst_cuda_vk_compat_stream_new;
  base_class->stream_free = stream_free;

  element_class->set_context =
      GST_DEBUG_FUNCPTR (gst_cuda_vk_base_transform_set_context);
  element_class->change_state =
      GST_DEBUG_FUNCPTR (gst_cuda_vk_base_transform_change_state);
  element_class->post_message =
      GST_DEBUG_FUNCPTR (gst_cuda_vk_base_transform_post_message);

  trans_class->passthrough_on_same_caps = FALSE;
  trans_class->start = GST_DEBUG_FUNCPTR (gst_cuda_vk_base_transform_start);
  trans_class->stop = GST_DEBUG_FUNCPTR (gst_cuda_vk_base_transform_stop);
  trans_class->transform_caps =
      GST_DEBUG_FUNCPTR (gst_cuda_vk_base_transform_transform_caps);
  trans_class->set_caps =
      GST_DEBUG_FUNCPTR (gst_cuda_vk_base_transform_set_caps);
  trans_class->query = GST_DEBUG_FUNCPTR (gst_cuda_vk_base_transform_query);
  trans_class->sink_event =
      GST_DEBUG_FUNCPTR (gst_cuda_vk_base_transform_sink_event);
  trans_class->prepare_output_buffer =
      GST_DEBUG_FUNCPTR (gst_cuda_vk_base_transform_prepare_output_buffer);
  trans_class->submit_input_buffer =
      GST_DEBUG_FUNCPTR (gst_cuda_vk_base_transform_submit_input_buffer);

  GST_DEBUG_CATEGORY_INIT (gst_cuda_vk_base_transform_debug,
      "cudavkbasetransform", 0, "CUDA<->Vulkan bridge base class");
  GST_DEBUG_CATEGORY_INIT (gst_cuda_vk_debug, "cudavulkan", 0,
      "CUDA/Vulkan interop helpers");
  gst_type_mark_as_plugin_api (GST_TYPE_CUDA_VK_BASE_TRANSFORM, 0);
}

static void
gst_cuda_vk_base_transform_init (GstCudaVkBaseTransform * self)
{
  GstCudaVkBaseTransformPrivate *priv = PRIV (self);

  g_mutex_init (&priv->lock);
  priv->use_timeline = TRUE;
  priv->sem_type = "none";
}

GstCudaVkInterop *
gst_cuda_vk_base_transform_get_interop (GstCudaVkBaseTransform * self)
{
  return PRIV (self)->interop;
}

GstVulkanDevice *
gst_cuda_vk_base_transform_get_device (GstCudaVkBaseTransform * self)
{
  return PRIV (self)->device;
}

const gchar *
gst_cuda_vk_base_transform_get_semaphore_type (GstCudaVkBaseTransform * self)
{
  GstCudaVkBaseTransformPrivate *priv = PRIV (self);
  const gchar *sem_type;

  g_mutex_lock (&priv->lock);
  sem_type = priv->sem_type;
  g_mutex_unlock (&priv->lock);
  return sem_type;
}

GstVideoInfo *
gst_cuda_vk_base_transform_get_in_info (GstCudaVkBaseTransform * self)
{
  return &PRIV (self)->in_info;
}

GstVideoInfo *
gst_cuda_vk_base_transform_get_out_info (GstCudaVkBaseTransform * self)
{
  return &PRIV (self)->out_info;
}

/* priv->pool: replaced under the object lock, read on the streaming
 * thread (prepare_output_buffer()) or with the lock */
GstBufferPool *
gst_cuda_vk_base_transform_get_pool (GstCudaVkBaseTransform * self)
{
  GstBufferPool *pool;

  GST_OBJECT_LOCK (self);
  pool = PRIV (self)->pool ? gst_object_ref (PRIV (self)->pool) : NULL;
  GST_OBJECT_UNLOCK (self);
  return pool;
}

void
gst_cuda_vk_base_transform_set_pool (GstCudaVkBaseTransform * self,
    GstBufferPool * pool)
{
  GstCudaVkBaseTransformPrivate *priv = PRIV (self);
  GstBufferPool *old;

  GST_OBJECT_LOCK (self);
  old = priv->pool;
  priv->pool = pool;
  GST_OBJECT_UNLOCK (self);
  gst_cuda_vk_clear_pool (&old);
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

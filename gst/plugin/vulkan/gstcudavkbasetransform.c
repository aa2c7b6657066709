/* gst-cudasync
 * Copyright (C) 2026 gst-cudasync developers
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstcudavkbasetransform.h"

GST_DEBUG_CATEGORY_STATIC (gst_cuda_vk_base_transform_debug);
#define GST_CAT_DEFAULT gst_cuda_vk_base_transform_debug

typedef struct
{
  GstCudaVkBridge bridge;
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

static void
gst_cuda_vk_base_transform_finalize (GObject * object)
{
  GstCudaVkBaseTransformPrivate *priv = PRIV (object);

  gst_cuda_vk_clear_pool (&priv->pool);
  gst_cuda_vk_bridge_clear (&priv->bridge);
  G_OBJECT_CLASS (parent_class)->finalize (object);
}

static void
gst_cuda_vk_base_transform_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  if (!gst_cuda_vk_bridge_set_property (&PRIV (object)->bridge, prop_id, value))
    G_OBJECT_CLASS (parent_class)->set_property (object, prop_id, value, pspec);
}

static void
gst_cuda_vk_base_transform_get_property (GObject * object, guint prop_id,
    GValue * value, GParamSpec * pspec)
{
  if (!gst_cuda_vk_bridge_get_property (&PRIV (object)->bridge, prop_id, value))
    G_OBJECT_CLASS (parent_class)->get_property (object, prop_id, value, pspec);
}

static void
gst_cuda_vk_base_transform_add_stats (GstCudaSyncBaseTransform * base,
    GstStructure * stats)
{
  gst_cuda_vk_bridge_add_stats (&PRIV (base)->bridge, stats);
}

static void
gst_cuda_vk_base_transform_set_context (GstElement * element,
    GstContext * context)
{
  gst_cuda_vk_bridge_set_context (&PRIV (element)->bridge, context);
  GST_ELEMENT_CLASS (parent_class)->set_context (element, context);
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

static GstStateChangeReturn
gst_cuda_vk_base_transform_change_state (GstElement * element,
    GstStateChange transition)
{
  GstCudaVkBaseTransformClass *klass =
      GST_CUDA_VK_BASE_TRANSFORM_GET_CLASS (element);

  /* deactivating the pads waits for the streaming thread */
  if (transition == GST_STATE_CHANGE_PAUSED_TO_READY)
    set_flushing (GST_CUDA_VK_BASE_TRANSFORM (element), TRUE);
  return gst_cuda_vk_bridge_change_state (&PRIV (element)->bridge,
      GST_ELEMENT_CLASS (parent_class), transition, klass->to_vulkan);
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
  return PRIV (trans)->bridge.device != NULL;
}

static gboolean
gst_cuda_vk_base_transform_stop (GstBaseTransform * trans)
{
  GstCudaVkBaseTransformPrivate *priv = PRIV (trans);

  /* stop is not a streaming thread: let the enqueued GPU work finish
   * before what it uses goes away (and give back what the interop holds) */
  if (priv->bridge.interop)
    gst_cuda_vk_interop_flush (priv->bridge.interop);
  gst_cuda_vk_base_transform_set_pool (GST_CUDA_VK_BASE_TRANSFORM (trans),
      NULL);
  return TRUE;
}

/* The stream_free of the base class: the bridge's stream is freed in
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

  /* the device is set up from READY on; stop and set_context replace it
   * under the lock, and drop the old one after */
  GST_OBJECT_LOCK (trans);
  device = PRIV (trans)->bridge.device;
  if (device)
    max_image = device->physical_device->properties.limits.maxImageDimension2D;
  GST_OBJECT_UNLOCK (trans);
  return gst_cuda_vk_transform_caps (caps, filter, to_vulkan_side, max_image);
}

/* cudatovulkan's images: no larger than the device makes them (at the
 * allocation, vkCreateImage would be given an extent beyond its limits) */
static gboolean
check_output_size (GstCudaVkBaseTransform * self, GstCaps * outcaps)
{
  GstCudaVkBaseTransformPrivate *priv = PRIV (self);
  GstVulkanDevice *device = priv->bridge.device;
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
  GstCudaVkBaseTransformPrivate *priv = PRIV (self);

  if (gst_cuda_vk_base_transform_has_failed (self)) {
    GST_DEBUG_OBJECT (self, "not negotiating after the element's error");
    return FALSE;
  }
  if (!gst_cuda_vk_parse_caps (GST_ELEMENT (self), incaps, outcaps,
          &priv->in_info, &priv->out_info))
    return FALSE;
  if (klass->to_vulkan && !check_output_size (self, outcaps))
    return FALSE;
  return klass->set_info ? klass->set_info (self, incaps, outcaps) : TRUE;
}

static gboolean
gst_cuda_vk_base_transform_query (GstBaseTransform * trans,
    GstPadDirection direction, GstQuery * query)
{
  if (gst_cuda_vk_bridge_query (&PRIV (trans)->bridge, query))
    return TRUE;
  return GST_BASE_TRANSFORM_CLASS (parent_class)->query (trans, direction,
      query);
}

static GstFlowReturn
gst_cuda_vk_base_transform_prepare_output_buffer (GstBaseTransform * trans,
    GstBuffer * inbuf, GstBuffer ** outbuf)
{
  return gst_cuda_vk_acquire_output (GST_ELEMENT (trans), PRIV (trans)->pool,
      inbuf, outbuf);
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
  gst_cuda_vk_bridge_install_properties (gobject_class);
  base_class->counter_names = gst_cuda_vk_counter_fields;
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
  gst_type_mark_as_plugin_api (GST_TYPE_CUDA_VK_BASE_TRANSFORM, 0);
}

static void
gst_cuda_vk_base_transform_init (GstCudaVkBaseTransform * self)
{
  gst_cuda_vk_bridge_init (&PRIV (self)->bridge, GST_ELEMENT (self));
}

GstCudaVkBridge *
gst_cuda_vk_base_transform_get_bridge (GstCudaVkBaseTransform * self)
{
  return &PRIV (self)->bridge;
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

/* gst-cudasync
 * Copyright (C) 2026 gst-cudasync developers
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The bench's GStreamer helpers: see pipeline.h.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "pipeline.h"

#include <string.h>

#include <gst/cuda/gstcudautils.h>
#include <gst/cuda/gstcudamemory.h>
#include <gst/cuda/gstcudabufferpool.h>

#ifdef HAVE_CUDA_VULKAN
#include <gst/vulkan/vulkan.h>
#include "vkutil.h"
#endif

#include "bench-cuda.h"

static const gchar *const vk_ctx_type[2] = { "gst.vulkan.instance",
  "gst.vulkan.device"
};

#define OWN_CONTEXTS "bench-vulkan-contexts"

/* the Vulkan contexts of @obj's top-level bin, when it has its own
 * (pipeline_set_vulkan_contexts ()) */
static GstContext **
own_contexts (GstObject * obj)
{
  GstObject *top = gst_object_ref (obj), *parent;
  GstContext **ret;

  while ((parent = gst_object_get_parent (top))) {
    gst_object_unref (top);
    top = parent;
  }
  ret = g_object_get_data (G_OBJECT (top), OWN_CONTEXTS);
  gst_object_unref (top);
  return ret;
}

/* context @i (instance, device) for @obj: its pipeline's own, else the
 * bench's; a new reference or NULL */
static GstContext *
context_for (Bench * b, GstObject * obj, guint i)
{
  GstContext **own = own_contexts (obj);
  GstContext *c = NULL;

  if (own)
    return own[i] ? gst_context_ref (own[i]) : NULL;
  g_mutex_lock (&b->vk_lock);
  if (b->vk_ctx[i])
    c = gst_context_ref (b->vk_ctx[i]);
  g_mutex_unlock (&b->vk_lock);
  return c;
}

static void
contexts_free (gpointer data)
{
  GstContext **ctx = data;

  guint i;

  for (i = 0; i < 2; i++)
    if (ctx[i])
      gst_context_unref (ctx[i]);
  g_free (ctx);
}

void
pipeline_set_vulkan_contexts (GstElement * pipeline,
    GstContext * const *contexts)
{
  GstContext **ctx = g_new0 (GstContext *, 2);
  guint i;

  for (i = 0; i < 2; i++)
    ctx[i] = contexts[i] ? gst_context_ref (contexts[i]) : NULL;
  g_object_set_data_full (G_OBJECT (pipeline), OWN_CONTEXTS, ctx,
      contexts_free);
}

static GstBusSyncReply
bus_sync_handler (GstBus * bus, GstMessage * msg, gpointer user_data)
{
  Bench *b = user_data;
  const gchar *type = NULL;
  guint i;

  if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_NEED_CONTEXT &&
      gst_message_parse_context_type (msg, &type) &&
      g_strcmp0 (type, GST_CUDA_CONTEXT_TYPE) == 0) {
    GstContext *c = gst_context_new_cuda_context (b->ctx);

    gst_element_set_context (GST_ELEMENT (GST_MESSAGE_SRC (msg)), c);
    gst_context_unref (c);
  } else if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_NEED_CONTEXT &&
      gst_message_parse_context_type (msg, &type)) {
    for (i = 0; i < 2; i++) {
      if (g_strcmp0 (type, vk_ctx_type[i]) == 0) {
        GstContext *c = context_for (b, GST_MESSAGE_SRC (msg), i);

        if (c) {
          gst_element_set_context (GST_ELEMENT (GST_MESSAGE_SRC (msg)), c);
          gst_context_unref (c);
        }
      }
    }
  } else if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_HAVE_CONTEXT) {
    GstContext *c = NULL;

    gst_message_parse_have_context (msg, &c);
    type = c ? gst_context_get_context_type (c) : NULL;
    /* a pipeline with contexts of its own keeps them to itself */
    if (own_contexts (GST_MESSAGE_SRC (msg)))
      type = NULL;
    for (i = 0; type && i < 2; i++) {
      if (g_strcmp0 (type, vk_ctx_type[i]) == 0) {
        g_mutex_lock (&b->vk_lock);
        if (!b->vk_ctx[i])
          b->vk_ctx[i] = gst_context_ref (c);
        g_mutex_unlock (&b->vk_lock);
      }
    }
    if (c)
      gst_context_unref (c);
  }
  return GST_BUS_PASS;
}

/* the first error message on the pipeline's bus, if any */
gchar *
bus_error (GstElement * pipeline)
{
  GstBus *bus = gst_element_get_bus (pipeline);
  GstMessage *msg;
  gchar *ret = NULL;

  while (!ret && (msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR))) {
    GError *err = NULL;
    gchar *dbg = NULL;

    gst_message_parse_error (msg, &err, &dbg);
    ret = g_strdup_printf ("%s: %s%s%s", GST_OBJECT_NAME (GST_MESSAGE_SRC
            (msg)), err->message, dbg ? " (" : "", dbg ? dbg : "");
    if (dbg) {
      gchar *t = g_strconcat (ret, ")", NULL);
      g_free (ret);
      ret = t;
    }
    g_error_free (err);
    g_free (dbg);
    gst_message_unref (msg);
  }
  gst_object_unref (bus);
  return ret;
}

GstElement *
pipeline_new (Bench * b)
{
  GstElement *pipeline = gst_pipeline_new (NULL);
  GstBus *bus = gst_element_get_bus (pipeline);

  gst_bus_set_sync_handler (bus, bus_sync_handler, b, NULL);
  gst_object_unref (bus);
  return pipeline;
}

void
give_vulkan_contexts (Bench * b, GstElement ** elements, guint n)
{
  guint i, k;

  for (i = 0; i < n; i++) {
    for (k = 0; k < 2; k++) {
      GstContext *c = context_for (b, GST_OBJECT (elements[i]), k);

      if (c) {
        gst_element_set_context (elements[i], c);
        gst_context_unref (c);
      }
    }
  }
}

static GstStaticPadTemplate any_src = GST_STATIC_PAD_TEMPLATE ("src",
    GST_PAD_SRC, GST_PAD_ALWAYS, GST_STATIC_CAPS_ANY);
static GstStaticPadTemplate any_sink = GST_STATIC_PAD_TEMPLATE ("sink",
    GST_PAD_SINK, GST_PAD_ALWAYS, GST_STATIC_CAPS_ANY);

GstCaps *
cuda_caps (const gchar * format, gint width, gint height)
{
  GstCaps *caps = gst_caps_new_simple ("video/x-raw", "format", G_TYPE_STRING,
      format, "width", G_TYPE_INT, width, "height", G_TYPE_INT, height,
      "framerate", GST_TYPE_FRACTION, 60, 1, NULL);

  gst_caps_set_features (caps, 0,
      gst_caps_features_new (GST_CAPS_FEATURE_MEMORY_CUDA_MEMORY, NULL));
  return caps;
}

static GstBufferPool *
pool_new (Bench * b, GstCaps * caps, guint n_buffers, gpointer stream,
    gchar ** error)
{
  GstBufferPool *pool = gst_cuda_buffer_pool_new (b->ctx);
  GstStructure *config = gst_buffer_pool_get_config (pool);
  GstVideoInfo info;

  if (!gst_video_info_from_caps (&info, caps)) {
    *error = g_strdup ("invalid caps");
    gst_structure_free (config);
    gst_object_unref (pool);
    return NULL;
  }
  gst_buffer_pool_config_set_params (config, caps, info.size, n_buffers,
      n_buffers);
  gst_buffer_pool_config_add_option (config, GST_BUFFER_POOL_OPTION_VIDEO_META);
#if GST_CHECK_VERSION(1, 24, 0)
  if (stream)
    gst_buffer_pool_config_set_cuda_stream (config, stream);
#endif
  if (!gst_buffer_pool_set_config (pool, config) ||
      !gst_buffer_pool_set_active (pool, TRUE)) {
    *error = g_strdup_printf ("could not set up a GstCudaBufferPool of %u "
        "buffers of %" G_GSIZE_FORMAT " bytes", n_buffers, info.size);
    gst_object_unref (pool);
    return NULL;
  }
  return pool;
}

GstBufferPool *
new_pool (Bench * b, GstCaps * caps, guint n_buffers, gchar ** error)
{
  return pool_new (b, caps, n_buffers, NULL, error);
}

#if GST_CHECK_VERSION(1, 24, 0)
GstBufferPool *
new_pool_with_stream (Bench * b, GstCaps * caps, guint n_buffers,
    GstCudaStream * stream, gchar ** error)
{
  return pool_new (b, caps, n_buffers, stream, error);
}
#endif

/* stream-start, caps and segment on a linked, active source pad */
gboolean
push_initial_events (GstPad * src, GstCaps * caps, gchar ** error)
{
  GstSegment segment;

  gst_segment_init (&segment, GST_FORMAT_TIME);
  if (!gst_pad_push_event (src, gst_event_new_stream_start ("cudasync-bench"))
      || !gst_pad_push_event (src, gst_event_new_caps (caps)) ||
      !gst_pad_push_event (src, gst_event_new_segment (&segment))) {
    *error = g_strdup ("the initial events (stream-start, caps, segment) "
        "were refused");
    return FALSE;
  }
  return TRUE;
}

GstPad *
any_pad_new (GstPadDirection direction)
{
  return direction == GST_PAD_SRC ?
      gst_pad_new_from_static_template (&any_src, "src") :
      gst_pad_new_from_static_template (&any_sink, "sink");
}

void
pool_free (GstBufferPool * pool)
{
  if (!pool)
    return;
  gst_buffer_pool_set_active (pool, FALSE);
  gst_object_unref (pool);
}

GstElement *
make (GstElement * bin, const gchar * factory, const gchar * name,
    gchar ** error)
{
  GstElement *e = gst_element_factory_make (factory, name);

  if (!e) {
    if (!*error)
      *error = g_strdup_printf ("element %s not found", factory);
    return NULL;
  }
  gst_bin_add (GST_BIN (bin), e);
  return e;
}

GstElement *
make_capsfilter (GstElement * bin, const gchar * feature, gchar ** error)
{
  GstElement *e = make (bin, "capsfilter", NULL, error);
  GstCaps *caps;

  if (!e)
    return NULL;
  caps = gst_caps_new_empty_simple ("video/x-raw");
  gst_caps_set_features (caps, 0, gst_caps_features_new (feature, NULL));
  g_object_set (e, "caps", caps, NULL);
  gst_caps_unref (caps);
  return e;
}

gchar *
missing_elements (const gchar * const *names, guint n)
{
  GString *missing = g_string_new (NULL);
  guint i;

  for (i = 0; i < n; i++) {
    GstElementFactory *f = gst_element_factory_find (names[i]);

    if (f)
      gst_object_unref (f);
    else
      g_string_append_printf (missing, " %s", names[i]);
  }
  if (missing->len == 0) {
    g_string_free (missing, TRUE);
    return NULL;
  }
  return g_string_free (missing, FALSE);
}

#ifdef HAVE_CUDA_VULKAN
/* GstVulkanInstance::create-device: upstream vulkan elements that find no
 * device in the pipeline (vulkanupload in modes b) get ours. 1.26 added the
 * index of the physical device asked for. */
#if GST_CHECK_VERSION(1, 26, 0)
static GstVulkanDevice *
on_create_device (GstVulkanInstance * instance, guint device_index,
    gpointer device)
{
  return gst_object_ref (device);
}
#else
static GstVulkanDevice *
on_create_device (GstVulkanInstance * instance, gpointer device)
{
  return gst_object_ref (device);
}
#endif

/* Opens physical device @index of @instance with the bridge's extensions
 * (*sem: with VK_KHR_external_semaphore_fd). NULL, and *why, when it
 * cannot. */
static GstVulkanDevice *
open_device (GstVulkanInstance * instance, guint index, const gchar * name,
    gboolean * sem, gchar ** why)
{
  GstVulkanDevice *dev = gst_vulkan_device_new_with_index (instance, index);
  GError *err = NULL;

  if (!dev || !gst_vulkan_device_enable_extension (dev,
          "VK_KHR_external_memory_fd")) {
    *why = g_strdup_printf ("could not enable VK_KHR_external_memory_fd "
        "on %s", name);
    gst_clear_object (&dev);
    return NULL;
  }
  *sem = gst_vulkan_device_enable_extension (dev,
      "VK_KHR_external_semaphore_fd");
  if (!gst_vulkan_device_open (dev, &err)) {
    *why = g_strdup_printf ("could not open the Vulkan device %s: %s", name,
        err ? err->message : "?");
    g_clear_error (&err);
    gst_object_unref (dev);
    return NULL;
  }
  return dev;
}

static void
contexts_new (GstVulkanInstance * instance, GstVulkanDevice * dev,
    GstContext ** ctx)
{
  ctx[0] = gst_context_new (GST_VULKAN_INSTANCE_CONTEXT_TYPE_STR, TRUE);
  gst_context_set_vulkan_instance (ctx[0], instance);
  ctx[1] = gst_context_new (GST_VULKAN_DEVICE_CONTEXT_TYPE_STR, TRUE);
  gst_context_set_vulkan_device (ctx[1], dev);
}

/* Opens physical device @index of @instance and keeps it and the instance
 * in b->vk_ctx. Returns the description, or NULL with *why. */
static gchar *
open_shared_device (Bench * b, GstVulkanInstance * instance, guint index,
    const gchar * name, const gchar * uuid, gchar ** why)
{
  gboolean sem = FALSE;
  GstVulkanDevice *dev = open_device (instance, index, name, &sem, why);
  gchar *ret;
  guint k;

  if (!dev)
    return NULL;
  g_mutex_lock (&b->vk_lock);
  for (k = 0; k < 2; k++)
    if (b->vk_ctx[k])
      gst_context_unref (b->vk_ctx[k]);
  contexts_new (instance, dev, b->vk_ctx);
  g_mutex_unlock (&b->vk_lock);
  /* the context keeps the device alive, hence the instance */
  g_signal_connect_data (instance, "create-device",
      G_CALLBACK (on_create_device), gst_object_ref (dev),
      (GClosureNotify) (void (*)(void)) gst_object_unref, 0);
  ret = g_strdup_printf ("%s (deviceUUID %s%s; %s "
      "VK_KHR_external_semaphore_fd), opened by the bench and "
      "shared with every element", name, uuid,
      b->is_sim ? ", given to the simulated CUDA device 0" :
      " = CUDA device 0's", sem ? "with" : "without");
  gst_object_unref (dev);
  return ret;
}

/* Opens the Vulkan device of CUDA device 0 (the one with its UUID), with
 * the extensions the bridge elements need, and keeps it (and its instance)
 * in b->vk_ctx: the bus handler gives it to every element of every pipeline
 * (GstContext), as an application does, so that the upstream vulkan
 * elements of modes b use the same device as the bridge, never another one
 * the instance lists first (e.g. lavapipe next to the NVIDIA driver), and
 * no pipeline creates a device. On the simulated driver, the first device
 * with VK_KHR_external_memory_fd (lavapipe) plays it, and the simulated
 * device 0 is given its UUID (CUDASIM_DEVICE_UUID), as the tests and the
 * demo do. Returns a description; NULL when there is none (*why says why). */
static gchar *
vulkan_device (Bench * b, gchar ** why)
{
  GstVulkanInstance *instance = gst_vulkan_instance_new ();
  gchar name[VK_MAX_PHYSICAL_DEVICE_NAME_SIZE] = "";
  gchar *uuid = NULL, *ret = NULL;
  gint index;

  if (!gst_vulkan_instance_open (instance, NULL)) {
    *why = g_strdup ("no Vulkan instance could be opened");
    gst_object_unref (instance);
    return NULL;
  }
  index = vk_util_find_cuda_device (instance, b->is_sim, name, &uuid, NULL,
      why);
  if (index >= 0)
    ret = open_shared_device (b, instance, index, name, uuid, why);
  gst_object_unref (instance);
  g_free (uuid);
  return ret;
}
#endif

#ifdef HAVE_CUDA_VULKAN
/* a GstVulkanDeviceForEachQueueFunc: the first graphics or compute queue
 * (the one the bridge elements pick) */
static gboolean
pick_queue (GstVulkanDevice * device, GstVulkanQueue * queue, gpointer data)
{
  GstVulkanQueue **out = data;
  VkQueueFlags flags =
      device->physical_device->queue_family_props[queue->family].queueFlags;

  if (flags & (VK_QUEUE_GRAPHICS_BIT | VK_QUEUE_COMPUTE_BIT)) {
    *out = gst_object_ref (queue);
    return FALSE;
  }
  return TRUE;
}

/* the queue a bridge element answers a queue context query with, given the
 * bench's device: the one object every bridge element of the process
 * submits through (kept weakly on the device; the caller's reference keeps
 * it) */
static GstVulkanQueue *
bridge_queue (Bench * b)
{
  GstElement *el = gst_element_factory_make ("cudatovulkan", NULL);
  GstVulkanQueue *queue = NULL;
  GstContext *ctx[2] = { NULL, NULL };
  GstPad *pad;
  guint i;

  if (!el)
    return NULL;
  g_mutex_lock (&b->vk_lock);
  for (i = 0; i < 2; i++)
    ctx[i] = b->vk_ctx[i] ? gst_context_ref (b->vk_ctx[i]) : NULL;
  g_mutex_unlock (&b->vk_lock);
  for (i = 0; i < 2; i++) {
    if (ctx[i]) {
      gst_element_set_context (el, ctx[i]);
      gst_context_unref (ctx[i]);
    }
  }
  pad = gst_element_get_static_pad (el, "src");
  if (pad)
    queue = vk_util_pad_queue (pad);
  gst_clear_object (&pad);
  gst_object_unref (el);
  return queue;
}
#endif

struct _GstVulkanDevice *
bench_vulkan_device (Bench * b)
{
#ifdef HAVE_CUDA_VULKAN
  GstVulkanDevice *device = NULL;

  g_mutex_lock (&b->vk_lock);
  if (b->vk_ctx[1])
    gst_context_get_vulkan_device (b->vk_ctx[1], &device);
  g_mutex_unlock (&b->vk_lock);
  return device;
#else
  return NULL;
#endif
}

gboolean
bench_vulkan_contexts_new (Bench * b, GstContext ** ctx, gchar ** why)
{
#ifdef HAVE_CUDA_VULKAN
  GstVulkanDevice *shared = bench_vulkan_device (b), *dev = NULL;
  gboolean sem = FALSE;

  if (shared)
    dev = open_device (shared->instance,
        shared->physical_device->device_index,
        shared->physical_device->properties.deviceName, &sem, why);
  else
    *why = g_strdup ("no Vulkan device");
  if (dev)
    contexts_new (shared->instance, dev, ctx);
  gst_clear_object (&shared);
  gst_clear_object (&dev);
  return ctx[1] != NULL;
#else
  *why = g_strdup ("built without Vulkan");
  return FALSE;
#endif
}

struct _GstVulkanQueue *
bench_vulkan_queue (Bench * b)
{
#ifdef HAVE_CUDA_VULKAN
  GstVulkanQueue *queue;

  g_mutex_lock (&b->raw_queue_lock);
  if (!b->raw_queue) {
    b->raw_queue = bridge_queue (b);
    if (!b->raw_queue) {
      GstVulkanDevice *device = bench_vulkan_device (b);

      if (device) {
        g_printerr ("bench: no bridge element answered with its Vulkan "
            "queue: the raw modes use a queue object of their own\n");
        gst_vulkan_device_foreach_queue (device, pick_queue, &b->raw_queue);
        gst_object_unref (device);
      }
    }
  }
  queue = b->raw_queue ? gst_object_ref (b->raw_queue) : NULL;
  g_mutex_unlock (&b->raw_queue_lock);
  return queue;
#else
  return NULL;
#endif
}

gboolean
bench_vulkan_decodes_video (Bench * b)
{
#ifdef HAVE_CUDA_VULKAN
  /* VK_QUEUE_VIDEO_DECODE_BIT_KHR, which older Vulkan headers lack */
  const VkQueueFlags decode = 0x20;
  GstVulkanDevice *device = bench_vulkan_device (b);
  gboolean found = FALSE;
  guint i;

  if (!device)
    return FALSE;
  for (i = 0; i < device->physical_device->n_queue_families; i++)
    found |= (device->physical_device->queue_family_props[i].queueFlags &
        decode) != 0;
  gst_object_unref (device);
  return found;
#else
  return FALSE;
#endif
}

gboolean
ensure_vulkan_device (Bench * b, gchar ** why)
{
#ifdef HAVE_CUDA_VULKAN
  GstVulkanQueue *queue;
  gchar *dev;

  if (b->r.vulkan)
    return TRUE;
  dev = vulkan_device (b, why);
  if (!dev)
    return FALSE;
  set_str (b, &b->r.vulkan, dev);
  g_free (dev);
  /* the queue object every bridge element and raw instance shares from
   * now on (kept in b->raw_queue) */
  queue = bench_vulkan_queue (b);
  gst_clear_object (&queue);
  return TRUE;
#else
  *why = g_strdup ("built without Vulkan (gstreamer-vulkan-1.0 or vulkan "
      "not found)");
  return FALSE;
#endif
}

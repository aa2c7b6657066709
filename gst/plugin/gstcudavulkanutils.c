/* gst-cudasync
 * Copyright (C) 2026 gst-cudasync developers
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstcudavulkanutils.h"
#include <gst/cuda/cuda-gst.h>
#include <gst/cuda/gstcudautils.h>
#include <gst/cuda/gstcudamemory.h>
#include <unistd.h>
#include <string.h>

GST_DEBUG_CATEGORY_STATIC (gst_cuda_vk_debug);
#define GST_CAT_DEFAULT gst_cuda_vk_debug

#define EXT_MEM_FD "VK_KHR_external_memory_fd"
#define EXT_SEM_FD "VK_KHR_external_semaphore_fd"

static const gchar *counter_field[GST_CUDA_VK_N_COUNTERS] = {
  "buffers", "signals", "waits", "cpu-syncs", "copies", "semaphores"
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
  b->device_id = -1;
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
gst_cuda_vk_bridge_count (GstCudaVkBridge * b, GstCudaVkCounter c, guint64 add)
{
  g_mutex_lock (&b->lock);
  b->counters[c] += add;
  g_mutex_unlock (&b->lock);
}

GstStructure *
gst_cuda_vk_bridge_stats (GstCudaVkBridge * b)
{
  GstStructure *s = gst_structure_new_empty ("stats");
  guint i;

  g_mutex_lock (&b->lock);
  for (i = 0; i < GST_CUDA_VK_N_COUNTERS; i++)
    gst_structure_set (s, counter_field[i], G_TYPE_UINT64, b->counters[i],
        NULL);
  g_mutex_unlock (&b->lock);
  return s;
}

gint
gst_cuda_vk_bridge_get_device_id (GstCudaVkBridge * b)
{
  gint id;
  g_mutex_lock (&b->lock);
  id = b->device_id;
  g_mutex_unlock (&b->lock);
  return id;
}

void
gst_cuda_vk_bridge_set_device_id (GstCudaVkBridge * b, gint id)
{
  g_mutex_lock (&b->lock);
  b->device_id = id;
  g_mutex_unlock (&b->lock);
}

gboolean
gst_cuda_vk_bridge_has_gpu_sync (GstCudaVkBridge * b)
{
  return b->gpu_sync;
}

void
gst_cuda_vk_bridge_set_context (GstCudaVkBridge * b, GstContext * context)
{
  const gchar *type = gst_context_get_context_type (context);

  gst_cuda_handle_set_context (b->element, context,
      gst_cuda_vk_bridge_get_device_id (b), &b->cuda);
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
  if (gst_cuda_handle_context_query (b->element, query, b->cuda))
    return TRUE;
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
gst_cuda_vk_bridge_post_error (GstCudaVkBridge * b, GError * error,
    const gchar * what)
{
  GstElement *self = b->element;

  if (error && error->domain == GST_CUDA_SYNC_ERROR &&
      error->code == GST_CUDA_SYNC_ERROR_NO_DRIVER) {
    GST_ELEMENT_ERROR (self, RESOURCE, NOT_FOUND, ("%s: %s", what,
            error->message), (NULL));
  } else {
    GST_ELEMENT_ERROR (self, RESOURCE, FAILED, ("%s: %s", what,
            error ? error->message : "unknown error"), (NULL));
  }
  g_clear_error (&error);
}

void
gst_cuda_vk_bridge_install_properties (GObjectClass * klass)
{
  g_object_class_install_property (klass, GST_CUDA_VK_PROP_DEVICE_ID,
      g_param_spec_int ("cuda-device-id", "CUDA device id",
          "CUDA device to use when the pipeline shares no context (-1: any)",
          -1, G_MAXINT, -1, G_PARAM_READWRITE | GST_PARAM_MUTABLE_READY |
          G_PARAM_STATIC_STRINGS));
  g_object_class_install_property (klass, GST_CUDA_VK_PROP_STATS,
      g_param_spec_boxed ("stats", "Statistics",
          "Counters since the element was created: buffers, signals, waits, "
          "cpu-syncs, copies, semaphores", GST_TYPE_STRUCTURE,
          G_PARAM_READABLE | G_PARAM_STATIC_STRINGS));
}

void
gst_cuda_vk_bridge_set_property (GstCudaVkBridge * b, GObject * object,
    guint prop_id, const GValue * value, GParamSpec * pspec)
{
  switch (prop_id) {
    case GST_CUDA_VK_PROP_DEVICE_ID:
      gst_cuda_vk_bridge_set_device_id (b, g_value_get_int (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
}

void
gst_cuda_vk_bridge_get_property (GstCudaVkBridge * b, GObject * object,
    guint prop_id, GValue * value, GParamSpec * pspec)
{
  switch (prop_id) {
    case GST_CUDA_VK_PROP_DEVICE_ID:
      g_value_set_int (value, gst_cuda_vk_bridge_get_device_id (b));
      break;
    case GST_CUDA_VK_PROP_STATS:
      g_value_take_boxed (value, gst_cuda_vk_bridge_stats (b));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
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

static GstCaps *
set_features (GstCaps * caps, const gchar * feature)
{
  GstCaps *ret = gst_caps_copy (caps);
  guint i;

  for (i = 0; i < gst_caps_get_size (ret); i++)
    gst_caps_set_features (ret, i, gst_caps_features_new (feature, NULL));
  return ret;
}

GstCaps *
gst_cuda_vk_transform_caps (GstCaps * caps, GstCaps * filter,
    gboolean to_vulkan)
{
  GstCaps *tmp, *ret;

  if (to_vulkan) {
    /* images preferred; buffers when the Vulkan side asks for them */
    tmp = set_features (caps, GST_CAPS_FEATURE_MEMORY_VULKAN_IMAGE);
    tmp = gst_caps_merge (tmp, set_features (caps,
            GST_CAPS_FEATURE_MEMORY_VULKAN_BUFFER));
  } else {
    tmp = set_features (caps, GST_CAPS_FEATURE_MEMORY_CUDA_MEMORY);
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

static gchar *
uuid_to_string (const guint8 * u)
{
  return g_strdup_printf ("%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-"
      "%02x%02x%02x%02x%02x%02x", u[0], u[1], u[2], u[3], u[4], u[5], u[6],
      u[7], u[8], u[9], u[10], u[11], u[12], u[13], u[14], u[15]);
}

static gboolean
vk_device_uuid (GstVulkanInstance * instance, GstVulkanPhysicalDevice * pd,
    guint8 uuid[VK_UUID_SIZE])
{
  PFN_vkGetPhysicalDeviceProperties2 get_props2;
  VkPhysicalDeviceIDProperties id = { 0, };
  VkPhysicalDeviceProperties2 p2 = { 0, };

  get_props2 = gst_vulkan_instance_get_proc_address (instance,
      "vkGetPhysicalDeviceProperties2");
  if (!get_props2)
    get_props2 = gst_vulkan_instance_get_proc_address (instance,
        "vkGetPhysicalDeviceProperties2KHR");
  if (!get_props2)
    return FALSE;
  id.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_ID_PROPERTIES;
  p2.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2;
  p2.pNext = &id;
  get_props2 (pd->device, &p2);
  memcpy (uuid, id.deviceUUID, VK_UUID_SIZE);
  return TRUE;
}

static gboolean
pd_has_extension (GstVulkanPhysicalDevice * pd, const gchar * name)
{
  return gst_vulkan_physical_device_get_extension_info (pd, name, NULL);
}

/* The Vulkan device of the CUDA device: same UUID. (Tests on the simulated
 * driver give it the Vulkan device's UUID with CUDASIM_DEVICE_UUID.) */
static gboolean
check_uuid (GstCudaVkBridge * b, GstVulkanPhysicalDevice * pd,
    const guint8 * cuda_uuid)
{
  guint8 vk_uuid[VK_UUID_SIZE];

  if (!vk_device_uuid (b->instance, pd, vk_uuid))
    return FALSE;
  return memcmp (vk_uuid, cuda_uuid, VK_UUID_SIZE) == 0;
}

static gboolean
setup_vulkan_device (GstCudaVkBridge * b, const guint8 * cuda_uuid)
{
  GstElement *self = b->element;
  gchar *cuda_str = uuid_to_string (cuda_uuid);
  GError *err = NULL;
  gboolean created = FALSE;
  guint i;

  if (!gst_vulkan_ensure_element_data (self, NULL, &b->instance)) {
    GST_ELEMENT_ERROR (self, RESOURCE, NOT_FOUND,
        ("No Vulkan instance available"), ("gst_vulkan_ensure_element_data "
            "failed"));
    goto fail;
  }

  if (!b->device)
    gst_vulkan_device_run_context_query (self, &b->device);
  if (!b->device) {
    /* NEED_CONTEXT: the application, or the bin with the device another
     * bridge element of the pipeline shared (below), answers through
     * set_context() */
    gst_vulkan_global_context_query (self, GST_VULKAN_DEVICE_CONTEXT_TYPE_STR);
  }

  if (b->device) {
    /* The pipeline's device: it must be the CUDA device and have (or still
     * be able to get) the external memory extensions. */
    gboolean opened;
    GstVulkanPhysicalDevice *pd = b->device->physical_device;

    if (!check_uuid (b, pd, cuda_uuid)) {
      guint8 u[VK_UUID_SIZE] = { 0, };
      gchar *vs;
      vk_device_uuid (b->instance, pd, u);
      vs = uuid_to_string (u);
      GST_ELEMENT_ERROR (self, RESOURCE, SETTINGS,
          ("The pipeline's Vulkan device (%s, UUID %s) is not the CUDA "
              "device (UUID %s)", pd->properties.deviceName, vs, cuda_str),
          ("memory cannot be shared between different devices"));
      g_free (vs);
      goto fail;
    }
    opened = b->device->device != VK_NULL_HANDLE;
    if (opened) {
      if (!gst_vulkan_device_is_extension_enabled (b->device, EXT_MEM_FD)) {
        GST_ELEMENT_ERROR (self, RESOURCE, SETTINGS,
            ("The pipeline's Vulkan device was opened without %s: memory "
                "cannot be shared with CUDA", EXT_MEM_FD),
            ("let this element create the device, or enable %s and %s "
                "before gst_vulkan_device_open()", EXT_MEM_FD, EXT_SEM_FD));
        goto fail;
      }
      if (pd_has_extension (pd, EXT_SEM_FD) &&
          !gst_vulkan_device_is_extension_enabled (b->device, EXT_SEM_FD)) {
        GST_ELEMENT_ERROR (self, RESOURCE, SETTINGS,
            ("The pipeline's Vulkan device was opened without %s",
                EXT_SEM_FD), ("enable %s and %s before "
                "gst_vulkan_device_open()", EXT_MEM_FD, EXT_SEM_FD));
        goto fail;
      }
    }
  } else {
    GstVulkanPhysicalDevice *found = NULL;
    guint n = b->instance->n_physical_devices;

    for (i = 0; i < n && !found; i++) {
      GstVulkanDevice *dev = gst_vulkan_device_new_with_index (b->instance, i);
      if (dev && check_uuid (b, dev->physical_device, cuda_uuid)) {
        found = dev->physical_device;
        b->device = dev;
        created = TRUE;
      } else {
        gst_clear_object (&dev);
      }
    }
    if (!b->device) {
      GST_ELEMENT_ERROR (self, RESOURCE, NOT_FOUND,
          ("No Vulkan device has the UUID of the CUDA device (%s)", cuda_str),
          ("%u Vulkan physical devices checked", n));
      goto fail;
    }
  }

  if (b->device->device == VK_NULL_HANDLE) {
    if (!gst_vulkan_device_enable_extension (b->device, EXT_MEM_FD)) {
      GST_ELEMENT_ERROR (self, RESOURCE, SETTINGS,
          ("The Vulkan device %s does not support %s: memory cannot be "
              "shared with CUDA",
              b->device->physical_device->properties.deviceName, EXT_MEM_FD),
          (NULL));
      goto fail;
    }
    if (!gst_vulkan_device_enable_extension (b->device, EXT_SEM_FD))
      GST_INFO_OBJECT (self, "%s not available: CPU fallback", EXT_SEM_FD);
    if (!gst_vulkan_device_open (b->device, &err)) {
      GST_ELEMENT_ERROR (self, RESOURCE, FAILED,
          ("Could not open the Vulkan device: %s", err->message), (NULL));
      g_clear_error (&err);
      goto fail;
    }
  }

  if (created) {
    /* share it with the rest of the pipeline, as upstream elements share
     * the instance: the bin answers later elements' NEED_CONTEXT with it,
     * so every bridge element of the pipeline (and the vulkan elements that
     * ask them) use one device, and one queue object */
    GstContext *context = gst_context_new (GST_VULKAN_DEVICE_CONTEXT_TYPE_STR,
        TRUE);

    gst_context_set_vulkan_device (context, b->device);
    gst_element_post_message (self, gst_message_new_have_context
        (GST_OBJECT (self), context));
  }

  b->get_memory_fd = gst_vulkan_device_get_proc_address (b->device,
      "vkGetMemoryFdKHR");
  if (gst_vulkan_device_is_extension_enabled (b->device, EXT_SEM_FD))
    b->get_semaphore_fd = gst_vulkan_device_get_proc_address (b->device,
        "vkGetSemaphoreFdKHR");
  if (!b->get_memory_fd) {
    GST_ELEMENT_ERROR (self, RESOURCE, FAILED,
        ("The Vulkan device lacks vkGetMemoryFdKHR"), (NULL));
    goto fail;
  }

  g_free (cuda_str);
  return TRUE;

fail:
  g_free (cuda_str);
  return FALSE;
}

static gboolean
pick_queue (GstVulkanDevice * device, GstVulkanQueue * queue, gpointer data)
{
  GstVulkanQueue **out = data;
  guint flags =
      device->physical_device->queue_family_props[queue->family].queueFlags;

  if ((flags & VK_QUEUE_GRAPHICS_BIT) || (flags & VK_QUEUE_COMPUTE_BIT)) {
    *out = gst_object_ref (queue);
    return FALSE;
  }
  return TRUE;
}

/* GStreamer 1.22's device fence cache (gst_vulkan_device_create_fence())
 * clears a released fence's device and cache pointers after putting it
 * back in the cache, where another thread may already have taken it: that
 * thread's fence then has no device (seen on the H200 with 8 pipelines on
 * one device: "gst_vulkan_trash_init: assertion 'GST_IS_VULKAN_DEVICE
 * (fence->device)' failed", then a crash). A fresh fence per submission
 * (vkCreateFence/vkDestroyFence) avoids it but cost ~2 ms of CPU per frame
 * on the NVIDIA driver (measured). So each user keeps its own recycler: a
 * fence is reused once it has signalled and nobody else holds it. */
struct _GstCudaVkFencePool
{
  GMutex lock;
  GstVulkanDevice *device;
  GPtrArray *fences;            /* one reference each */
};

GstCudaVkFencePool *
gst_cuda_vk_fence_pool_new (GstVulkanDevice * device)
{
  GstCudaVkFencePool *p = g_new0 (GstCudaVkFencePool, 1);

  g_mutex_init (&p->lock);
  p->device = gst_object_ref (device);
  p->fences = g_ptr_array_new_with_free_func ((GDestroyNotify)
      gst_vulkan_fence_unref);
  return p;
}

void
gst_cuda_vk_fence_pool_free (GstCudaVkFencePool * p)
{
  if (!p)
    return;
  g_ptr_array_unref (p->fences);
  gst_object_unref (p->device);
  g_mutex_clear (&p->lock);
  g_free (p);
}

/* @fence was not submitted (vkQueueSubmit failed): it would never signal,
 * so it leaves the recycler */
void
gst_cuda_vk_fence_pool_discard (GstCudaVkFencePool * p, GstVulkanFence * fence)
{
  g_mutex_lock (&p->lock);
  g_ptr_array_remove_fast (p->fences, fence);
  g_mutex_unlock (&p->lock);
}

GstVulkanFence *
gst_cuda_vk_fence_pool_get (GstCudaVkFencePool * p, GError ** error)
{
  GstVulkanFence *fence = NULL;
  guint i;

  g_mutex_lock (&p->lock);
  for (i = 0; i < p->fences->len; i++) {
    GstVulkanFence *f = g_ptr_array_index (p->fences, i);

    /* only the pool holds it (trash lists and frames let go of it) and its
     * submission is complete: unsignal it and hand it out again */
    if (GST_MINI_OBJECT_REFCOUNT_VALUE (f) == 1 &&
        gst_vulkan_fence_is_signaled (f)) {
      gst_vulkan_fence_reset (f);
      fence = gst_vulkan_fence_ref (f);
      break;
    }
  }
  if (!fence) {
    fence = gst_vulkan_fence_new (p->device, error);
    if (fence)
      g_ptr_array_add (p->fences, gst_vulkan_fence_ref (fence));
  }
  g_mutex_unlock (&p->lock);
  return fence;
}

/* GStreamer 1.22's gst_vulkan_device_get_queue() and _foreach_queue() make a
 * new GstVulkanQueue object, with its own submit lock, on every call, while
 * vkQueueSubmit() needs the VkQueue itself externally synchronised. Two
 * elements holding two such objects for one VkQueue submit at the same time:
 * undefined behaviour, seen on the H200 as VK_ERROR_DEVICE_LOST with several
 * pipelines on one device, and as a hang with cudatovulkan and vulkantocuda
 * in one pipeline. So every bridge element of the process uses one object
 * per device (kept, weakly, on the device), answers queue context queries
 * with it as soon as it knows the device, and adopts the object a
 * neighbour already uses when it is the first. */
static GMutex shared_queue_lock;

static void
free_weak_ref (gpointer data)
{
  g_weak_ref_clear (data);
  g_free (data);
}

GstVulkanQueue *
gst_cuda_vk_shared_queue (GstVulkanDevice * device, GstVulkanQueue * candidate)
{
  static GQuark quark;
  GstVulkanQueue *queue;
  GWeakRef *ref;

  g_return_val_if_fail (GST_IS_VULKAN_DEVICE (device), NULL);
  if (!quark)
    quark = g_quark_from_static_string ("gst-cudasync-shared-queue");
  if (candidate && candidate->device != device)
    candidate = NULL;

  g_mutex_lock (&shared_queue_lock);
  ref = g_object_get_qdata (G_OBJECT (device), quark);
  if (!ref) {
    ref = g_new0 (GWeakRef, 1);
    g_weak_ref_init (ref, NULL);
    g_object_set_qdata_full (G_OBJECT (device), quark, ref, free_weak_ref);
  }
  queue = g_weak_ref_get (ref);
  if (!queue && candidate)
    queue = gst_object_ref (candidate);
  if (!queue)
    gst_vulkan_device_foreach_queue (device, pick_queue, &queue);
  if (queue)
    g_weak_ref_set (ref, queue);
  g_mutex_unlock (&shared_queue_lock);

  if (queue && candidate && candidate != queue && candidate->queue ==
      queue->queue)
    GST_WARNING_OBJECT (queue, "a neighbour submits to this VkQueue through "
        "another GstVulkanQueue (another submit lock): its submissions and "
        "ours are not serialised");
  return queue;
}

/* Creates a binary semaphore exportable as an opaque fd and imports it into
 * the bridge's CUDA context. Leaves both NULL (and says why in the debug
 * log) when Vulkan cannot export it or CUDA cannot import it. */
static void
setup_semaphore (GstCudaVkBridge * b, VkSemaphore * vk_sem,
    GstCudaSemaphore ** sem)
{
  PFN_vkGetPhysicalDeviceExternalSemaphoreProperties get_props;
  VkPhysicalDeviceExternalSemaphoreInfo info = { 0, };
  VkExternalSemaphoreProperties props = { 0, };
  VkExportSemaphoreCreateInfo export_info = { 0, };
  VkSemaphoreCreateInfo ci = { 0, };
  VkSemaphoreGetFdInfoKHR fd_info = { 0, };
  GError *err = NULL;
  VkResult res;
  int fd = -1;

  *vk_sem = VK_NULL_HANDLE;
  *sem = NULL;
  if (!b->get_semaphore_fd)
    return;

  get_props = gst_vulkan_instance_get_proc_address (b->instance,
      "vkGetPhysicalDeviceExternalSemaphoreProperties");
  if (!get_props)
    get_props = gst_vulkan_instance_get_proc_address (b->instance,
        "vkGetPhysicalDeviceExternalSemaphorePropertiesKHR");
  if (!get_props)
    return;

  /* Binary semaphore: the 1.22 GstVulkanDevice enables no device features,
   * so timeline semaphores (feature timelineSemaphore) cannot be created on
   * a device it opened. A binary semaphore carries one signal at a time:
   * the elements use one per pooled frame / staging slot (see
   * gst_cuda_vk_semaphore_new()). */
  info.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_EXTERNAL_SEMAPHORE_INFO;
  info.handleType = VK_EXTERNAL_SEMAPHORE_HANDLE_TYPE_OPAQUE_FD_BIT;
  props.sType = VK_STRUCTURE_TYPE_EXTERNAL_SEMAPHORE_PROPERTIES;
  get_props (b->device->physical_device->device, &info, &props);
  if (!(props.externalSemaphoreFeatures &
          VK_EXTERNAL_SEMAPHORE_FEATURE_EXPORTABLE_BIT)) {
    GST_INFO_OBJECT (b->element, "Vulkan cannot export opaque-fd semaphores: "
        "CPU fallback");
    return;
  }

  export_info.sType = VK_STRUCTURE_TYPE_EXPORT_SEMAPHORE_CREATE_INFO;
  export_info.handleTypes = VK_EXTERNAL_SEMAPHORE_HANDLE_TYPE_OPAQUE_FD_BIT;
  ci.sType = VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO;
  ci.pNext = &export_info;
  res = vkCreateSemaphore (b->device->device, &ci, NULL, vk_sem);
  if (res != VK_SUCCESS) {
    GST_WARNING_OBJECT (b->element, "vkCreateSemaphore failed: %d", res);
    *vk_sem = VK_NULL_HANDLE;
    return;
  }
  fd_info.sType = VK_STRUCTURE_TYPE_SEMAPHORE_GET_FD_INFO_KHR;
  fd_info.semaphore = *vk_sem;
  fd_info.handleType = VK_EXTERNAL_SEMAPHORE_HANDLE_TYPE_OPAQUE_FD_BIT;
  res = b->get_semaphore_fd (b->device->device, &fd_info, &fd);
  if (res != VK_SUCCESS || fd < 0) {
    GST_INFO_OBJECT (b->element, "vkGetSemaphoreFdKHR failed (%d): CPU "
        "fallback", res);
    goto fail;
  }
  *sem = gst_cuda_semaphore_import_fd (b->cuda,
      GST_CUDA_SEMAPHORE_HANDLE_TYPE_OPAQUE_FD, fd, &err);
  if (!*sem) {
    GST_WARNING_OBJECT (b->element, "Could not import the Vulkan semaphore "
        "into CUDA (%s): CPU fallback", err->message);
    g_clear_error (&err);
    close (fd);
    goto fail;
  }
  return;

fail:
  vkDestroySemaphore (b->device->device, *vk_sem, NULL);
  *vk_sem = VK_NULL_HANDLE;
}

GstCudaVkSemaphore *
gst_cuda_vk_semaphore_new (GstCudaVkBridge * b)
{
  GstCudaVkSemaphore *s;
  VkSemaphore vk_sem;
  GstCudaSemaphore *sem;

  if (!b->gpu_sync)
    return NULL;
  setup_semaphore (b, &vk_sem, &sem);
  if (!sem)
    return NULL;
  s = g_new0 (GstCudaVkSemaphore, 1);
  s->vk_sem = vk_sem;
  s->sem = sem;
  s->device = gst_object_ref (b->device);
  gst_cuda_vk_bridge_count (b, GST_CUDA_VK_COUNTER_SEMAPHORES, 1);
  return s;
}

gboolean
gst_cuda_vk_semaphore_signal (GstCudaVkSemaphore * s, CUstream stream,
    GError ** error)
{
  /* a wait recorded by gst_cuda_vk_semaphore_waited() lets the library
   * accept the signal; otherwise it refuses it (GST_CUDA_SYNC_ERROR_PROTOCOL):
   * this object's previous signal may not have been consumed yet */
  if (!gst_cuda_semaphore_signal (s->sem, stream, NULL, error))
    return FALSE;
  s->signalled = TRUE;
  return TRUE;
}

void
gst_cuda_vk_semaphore_wait_submitted (GstCudaVkSemaphore * s,
    GstVulkanFence * fence)
{
  g_return_if_fail (s->signalled);
  if (s->wait_fence)
    gst_vulkan_fence_unref (s->wait_fence);
  s->wait_fence = gst_vulkan_fence_ref (fence);
}

gboolean
gst_cuda_vk_semaphore_waited (GstCudaVkSemaphore * s)
{
  if (!s->signalled)
    return TRUE;
  if (!s->wait_fence || !gst_vulkan_fence_is_signaled (s->wait_fence))
    return FALSE;
  /* the submission that waited has completed: its wait executed, the
   * semaphore is unsignalled on the GPU and may be signalled again */
  gst_cuda_semaphore_mark_waited (s->sem);
  gst_vulkan_fence_unref (s->wait_fence);
  s->wait_fence = NULL;
  s->signalled = FALSE;
  return TRUE;
}

void
gst_cuda_vk_semaphore_free (GstCudaVkSemaphore * s)
{
  if (!s)
    return;
  if (s->wait_fence) {
    /* the Vulkan wait must be done before the semaphore is destroyed */
    if (!gst_vulkan_fence_is_signaled (s->wait_fence))
      vkWaitForFences (s->device->device, 1,
          &GST_VULKAN_FENCE_FENCE (s->wait_fence), VK_TRUE, G_MAXUINT64);
    gst_vulkan_fence_unref (s->wait_fence);
  }
  /* the library destroys the CUDA handle once CUDA's operations on it are
   * done, from its worker thread */
  gst_clear_object (&s->sem);
  if (s->vk_sem && s->device->device)
    vkDestroySemaphore (s->device->device, s->vk_sem, NULL);
  gst_clear_object (&s->device);
  g_free (s);
}

/* A blocking stream: ordered with the legacy default stream, on which
 * upstream 1.22 CUDA elements copy. On 1.24+ a GstCudaStream (blocking
 * too), so that it can be set on CUDA pools. */
static gboolean
create_stream (GstCudaVkBridge * b, GError ** error)
{
#if GST_CHECK_VERSION(1, 24, 0)
  b->cuda_stream = gst_cuda_stream_new (b->cuda);
  if (!b->cuda_stream) {
    g_set_error (error, GST_CUDA_SYNC_ERROR, GST_CUDA_SYNC_ERROR_DRIVER,
        "gst_cuda_stream_new() failed (cuStreamCreate)");
    return FALSE;
  }
  b->stream = gst_cuda_stream_get_handle (b->cuda_stream);
  return TRUE;
#else
  CUresult r;

  if (!gst_cuda_context_push (b->cuda)) {
    g_set_error (error, GST_CUDA_SYNC_ERROR, GST_CUDA_SYNC_ERROR_DRIVER,
        "Could not make the CUDA context current");
    return FALSE;
  }
  r = CuStreamCreate (&b->stream, CU_STREAM_DEFAULT);
  gst_cuda_context_pop (NULL);
  if (!gst_cuda_sync_check_result (r, "cuStreamCreate", error)) {
    b->stream = NULL;
    return FALSE;
  }
  return TRUE;
#endif
}

gboolean
gst_cuda_vk_bridge_start (GstCudaVkBridge * b, gboolean offer_semaphore)
{
  GstElement *self = b->element;
  GError *err = NULL;
  guint8 uuid[16];
  gint dev_id = gst_cuda_vk_bridge_get_device_id (b);
  guint cuda_dev = 0;

  if (!gst_cuda_sync_init (&err)) {
    gst_cuda_vk_bridge_post_error (b, err, "Cannot use the CUDA driver");
    return FALSE;
  }
  if (!gst_cuda_ensure_element_context (self, dev_id, &b->cuda)) {
    GST_ELEMENT_ERROR (self, RESOURCE, NOT_FOUND, ("No CUDA device available"),
        ("gst_cuda_ensure_element_context failed for device id %d", dev_id));
    return FALSE;
  }
  g_object_get (b->cuda, "cuda-device-id", &cuda_dev, NULL);

  if (!gst_cuda_sync_context_get_uuid (b->cuda, uuid, &err)) {
    gst_cuda_vk_bridge_post_error (b, err, "Could not read the CUDA device's "
        "UUID");
    return FALSE;
  }
  if (!create_stream (b, &err)) {
    gst_cuda_vk_bridge_post_error (b, err, "Could not create a CUDA stream");
    return FALSE;
  }

  if (!setup_vulkan_device (b, uuid))
    return FALSE;

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
  b->cmd_pool = gst_vulkan_queue_create_command_pool (b->queue, &err);
  if (!b->cmd_pool) {
    gst_cuda_vk_bridge_post_error (b, err,
        "Could not create a Vulkan command pool");
    return FALSE;
  }
  b->trash = gst_vulkan_trash_fence_list_new ();
  b->fences = gst_cuda_vk_fence_pool_new (b->device);

  /* probe: can Vulkan export a semaphore that CUDA imports? The frames'
   * and staging slots' own semaphores are made the same way later. */
  {
    VkSemaphore probe_vk;
    GstCudaSemaphore *probe;

    setup_semaphore (b, &probe_vk, &probe);
    b->gpu_sync = probe != NULL;
    if (probe) {
      gst_object_unref (probe);
      vkDestroySemaphore (b->device->device, probe_vk, NULL);
    }
  }
  if (offer_semaphore && b->gpu_sync)
    setup_semaphore (b, &b->offer_vk_sem, &b->offer_sem);

  GST_INFO_OBJECT (self, "CUDA device %u, Vulkan device %s, queue family %u, "
      "%s", cuda_dev, b->device->physical_device->properties.deviceName,
      b->queue->family, b->gpu_sync ? "GPU semaphore sync (one binary "
      "semaphore per frame slot)" :
      "CPU fallback (Vulkan cannot export semaphores)");
  return TRUE;
}

void
gst_cuda_vk_bridge_stop (GstCudaVkBridge * b)
{
  if (b->trash) {
    gst_vulkan_trash_list_wait (b->trash, G_MAXUINT64);
    gst_clear_object (&b->trash);
  }
  gst_cuda_vk_fence_pool_free (b->fences);
  b->fences = NULL;
  if (b->stream && b->cuda && gst_cuda_context_push (b->cuda)) {
    /* the semaphores and the pooled memory may still be used by enqueued
     * work: let it finish (stop is not the streaming thread) */
    CuStreamSynchronize (b->stream);
#if !GST_CHECK_VERSION(1, 24, 0)
    CuStreamDestroy (b->stream);
#endif
    gst_cuda_context_pop (NULL);
  }
#if GST_CHECK_VERSION(1, 24, 0)
  /* memory still carrying it keeps it alive */
  gst_clear_cuda_stream (&b->cuda_stream);
#endif
  b->stream = NULL;
  b->gpu_sync = FALSE;
  gst_clear_object (&b->offer_sem);
  if (b->device && b->device->device && b->offer_vk_sem)
    vkDestroySemaphore (b->device->device, b->offer_vk_sem, NULL);
  b->offer_vk_sem = VK_NULL_HANDLE;
  gst_clear_object (&b->cmd_pool);
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
  b->get_memory_fd = NULL;
  b->get_semaphore_fd = NULL;
}

/* A memory type for @req, device-local if there is one. 1.24 replaced the
 * lookup by type bits with one by requirements (which also checks the heap
 * size). */
static gboolean
find_memory_type (GstCudaVkBridge * b, const VkMemoryRequirements * req,
    guint32 * idx)
{
#if GST_CHECK_VERSION(1, 24, 0)
  if (gst_vulkan_memory_find_memory_type_index_with_requirements (b->device,
          req, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, idx))
    return TRUE;
  return gst_vulkan_memory_find_memory_type_index_with_requirements (b->device,
      req, 0, idx);
#else
  if (gst_vulkan_memory_find_memory_type_index_with_type_properties (b->device,
          req->memoryTypeBits, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, idx))
    return TRUE;
  return gst_vulkan_memory_find_memory_type_index_with_type_properties
      (b->device, req->memoryTypeBits, 0, idx);
#endif
}

/* The memory requirements of @plane's image or buffer; logs whether the
 * driver requires or prefers a dedicated allocation for it. */
static void
get_requirements (GstCudaVkBridge * b, GstCudaVkPlane * plane,
    VkMemoryRequirements * req)
{
  PFN_vkGetImageMemoryRequirements2 get_img2 = NULL;
  PFN_vkGetBufferMemoryRequirements2 get_buf2 = NULL;
  VkMemoryDedicatedRequirements ded = { 0, };
  VkMemoryRequirements2 req2 = { 0, };

  if (plane->image) {
    get_img2 = gst_vulkan_device_get_proc_address (b->device,
        "vkGetImageMemoryRequirements2");
    if (!get_img2)
      get_img2 = gst_vulkan_device_get_proc_address (b->device,
          "vkGetImageMemoryRequirements2KHR");
  } else {
    get_buf2 = gst_vulkan_device_get_proc_address (b->device,
        "vkGetBufferMemoryRequirements2");
    if (!get_buf2)
      get_buf2 = gst_vulkan_device_get_proc_address (b->device,
          "vkGetBufferMemoryRequirements2KHR");
  }

  ded.sType = VK_STRUCTURE_TYPE_MEMORY_DEDICATED_REQUIREMENTS;
  req2.sType = VK_STRUCTURE_TYPE_MEMORY_REQUIREMENTS_2;
  req2.pNext = &ded;
  if (get_img2) {
    VkImageMemoryRequirementsInfo2 info = { 0, };
    info.sType = VK_STRUCTURE_TYPE_IMAGE_MEMORY_REQUIREMENTS_INFO_2;
    info.image = plane->image;
    get_img2 (b->device->device, &info, &req2);
    *req = req2.memoryRequirements;
  } else if (get_buf2) {
    VkBufferMemoryRequirementsInfo2 info = { 0, };
    info.sType = VK_STRUCTURE_TYPE_BUFFER_MEMORY_REQUIREMENTS_INFO_2;
    info.buffer = plane->buffer;
    get_buf2 (b->device->device, &info, &req2);
    *req = req2.memoryRequirements;
  } else if (plane->image) {
    vkGetImageMemoryRequirements (b->device->device, plane->image, req);
  } else {
    vkGetBufferMemoryRequirements (b->device->device, plane->buffer, req);
  }
  GST_DEBUG_OBJECT (b->element, "%s: size %" G_GUINT64_FORMAT ", alignment %"
      G_GUINT64_FORMAT ", memory types 0x%x, dedicated allocation: requires %d"
      ", prefers %d", plane->image ? "image" : "buffer", (guint64) req->size,
      (guint64) req->alignment, req->memoryTypeBits,
      ded.requiresDedicatedAllocation, ded.prefersDedicatedAllocation);
}

/* Allocates exportable memory for the image or buffer of @plane, exports it
 * and maps it into CUDA.
 *
 * Every exported allocation is dedicated (VkMemoryDedicatedAllocateInfo) and
 * imported with CUDA_EXTERNAL_MEMORY_DEDICATED (CUDA must be told that the
 * memory is a dedicated resource), whatever the driver reports: on the NVIDIA
 * driver (580, H200) exportable linear images report neither
 * requiresDedicatedAllocation nor prefersDedicatedAllocation nor
 * VK_EXTERNAL_MEMORY_FEATURE_DEDICATED_ONLY_BIT, yet with plain allocations
 * the bytes CUDA wrote through cuExternalMemoryGetMappedBuffer were not the
 * image's texels as Vulkan read them (every frame wrong from byte 0); with
 * dedicated allocations they are. Each plane and staging buffer owns its
 * memory anyway, so this costs nothing. The size given to CUDA is the
 * allocation's (VkMemoryRequirements.size), not the plane's. */
static gboolean
alloc_and_import (GstCudaVkBridge * b, GstCudaVkPlane * plane,
    GError ** error)
{
  VkMemoryRequirements req_storage, *req = &req_storage;
  VkExportMemoryAllocateInfo export_info = { 0, };
  VkMemoryDedicatedAllocateInfo dedicated_info = { 0, };
  VkMemoryAllocateInfo ai = { 0, };
  VkMemoryGetFdInfoKHR fd_info = { 0, };
  guint32 type_idx;
  VkResult res;
  int fd = -1;

  get_requirements (b, plane, req);
  if (!find_memory_type (b, req, &type_idx)) {
    g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_NO_SPACE_LEFT,
        "No Vulkan memory type for exportable memory (bits 0x%x)",
        req->memoryTypeBits);
    return FALSE;
  }
  export_info.sType = VK_STRUCTURE_TYPE_EXPORT_MEMORY_ALLOCATE_INFO;
  export_info.handleTypes = VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT;
  dedicated_info.sType = VK_STRUCTURE_TYPE_MEMORY_DEDICATED_ALLOCATE_INFO;
  dedicated_info.image = plane->image;
  dedicated_info.buffer = plane->buffer;
  export_info.pNext = &dedicated_info;
  ai.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO;
  ai.pNext = &export_info;
  ai.allocationSize = req->size;
  ai.memoryTypeIndex = type_idx;
  res = vkAllocateMemory (b->device->device, &ai, NULL, &plane->memory);
  if (res != VK_SUCCESS) {
    plane->memory = VK_NULL_HANDLE;
    g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_NO_SPACE_LEFT,
        "vkAllocateMemory of %" G_GUINT64_FORMAT " exportable bytes failed: "
        "%d", (guint64) req->size, res);
    return FALSE;
  }
  plane->alloc_size = req->size;
  GST_DEBUG_OBJECT (b->element, "allocated %" G_GUINT64_FORMAT " bytes of "
      "memory type %u (flags 0x%x), dedicated", (guint64) req->size, type_idx,
      b->device->physical_device->memory_properties.memoryTypes[type_idx].
      propertyFlags);
  if (plane->image)
    res = vkBindImageMemory (b->device->device, plane->image, plane->memory, 0);
  else
    res = vkBindBufferMemory (b->device->device, plane->buffer, plane->memory,
        0);
  if (res != VK_SUCCESS) {
    g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_FAILED,
        "vkBind*Memory failed: %d", res);
    return FALSE;
  }

  fd_info.sType = VK_STRUCTURE_TYPE_MEMORY_GET_FD_INFO_KHR;
  fd_info.memory = plane->memory;
  fd_info.handleType = VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT;
  res = b->get_memory_fd (b->device->device, &fd_info, &fd);
  if (res != VK_SUCCESS || fd < 0) {
    g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_FAILED,
        "vkGetMemoryFdKHR failed: %d: the memory cannot be shared with CUDA",
        res);
    return FALSE;
  }

  /* dedicated on every driver: see docs/design.md */
  plane->ext_mem = gst_cuda_sync_external_memory_import_fd (b->cuda, fd,
      req->size, TRUE, error);
  if (!plane->ext_mem) {
    /* on failure the fd stays ours */
    close (fd);
    return FALSE;
  }
  plane->cuda_ptr = gst_cuda_sync_external_memory_get_pointer (plane->ext_mem);
  return TRUE;
}

gboolean
gst_cuda_vk_plane_alloc_image (GstCudaVkBridge * b, GstCudaVkPlane * plane,
    VkFormat format, guint width, guint height, VkImageUsageFlags usage,
    GError ** error)
{
  VkPhysicalDeviceExternalImageFormatInfo ext_fmt = { 0, };
  VkPhysicalDeviceImageFormatInfo2 fmt_info = { 0, };
  VkExternalImageFormatProperties ext_props = { 0, };
  VkImageFormatProperties2 props = { 0, };
  VkExternalMemoryImageCreateInfo ext_ci = { 0, };
  VkImageCreateInfo ci = { 0, };
  VkImageSubresource sub = { VK_IMAGE_ASPECT_COLOR_BIT, 0, 0 };
  VkSubresourceLayout layout;
  PFN_vkGetPhysicalDeviceImageFormatProperties2 get_fmt_props;
  VkResult res;

  memset (plane, 0, sizeof (*plane));
  plane->format = format;
  plane->width = width;
  plane->height = height;

  get_fmt_props = gst_vulkan_instance_get_proc_address (b->instance,
      "vkGetPhysicalDeviceImageFormatProperties2");
  if (get_fmt_props) {
    ext_fmt.sType =
        VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_EXTERNAL_IMAGE_FORMAT_INFO;
    ext_fmt.handleType = VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT;
    fmt_info.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_IMAGE_FORMAT_INFO_2;
    fmt_info.pNext = &ext_fmt;
    fmt_info.format = format;
    fmt_info.type = VK_IMAGE_TYPE_2D;
    fmt_info.tiling = VK_IMAGE_TILING_LINEAR;
    fmt_info.usage = usage;
    ext_props.sType = VK_STRUCTURE_TYPE_EXTERNAL_IMAGE_FORMAT_PROPERTIES;
    props.sType = VK_STRUCTURE_TYPE_IMAGE_FORMAT_PROPERTIES_2;
    props.pNext = &ext_props;
    res = get_fmt_props (b->device->physical_device->device, &fmt_info, &props);
    if (res != VK_SUCCESS || !(ext_props.externalMemoryProperties.
            externalMemoryFeatures & VK_EXTERNAL_MEMORY_FEATURE_EXPORTABLE_BIT)) {
      g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_SETTINGS,
          "Vulkan cannot export linear %ux%u images of format %d as opaque "
          "fds (%d): memory cannot be shared with CUDA", width, height,
          format, res);
      return FALSE;
    }
  }

  ext_ci.sType = VK_STRUCTURE_TYPE_EXTERNAL_MEMORY_IMAGE_CREATE_INFO;
  ext_ci.handleTypes = VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT;
  ci.sType = VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO;
  ci.pNext = &ext_ci;
  ci.imageType = VK_IMAGE_TYPE_2D;
  ci.format = format;
  ci.extent.width = width;
  ci.extent.height = height;
  ci.extent.depth = 1;
  ci.mipLevels = 1;
  ci.arrayLayers = 1;
  ci.samples = VK_SAMPLE_COUNT_1_BIT;
  ci.tiling = VK_IMAGE_TILING_LINEAR;
  ci.usage = usage;
  ci.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
  /* external memory: must start UNDEFINED (VUID-VkImageCreateInfo-pNext-01443);
   * the user moves it to GENERAL before CUDA writes into it */
  ci.initialLayout = VK_IMAGE_LAYOUT_UNDEFINED;
  res = vkCreateImage (b->device->device, &ci, NULL, &plane->image);
  if (res != VK_SUCCESS) {
    plane->image = VK_NULL_HANDLE;
    g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_NO_SPACE_LEFT,
        "vkCreateImage (%ux%u, format %d, linear, exportable) failed: %d",
        width, height, format, res);
    return FALSE;
  }
  /* linear image: CUDA writes the rows where this layout says they are */
  vkGetImageSubresourceLayout (b->device->device, plane->image, &sub, &layout);
  plane->offset = layout.offset;
  plane->pitch = layout.rowPitch;
  plane->size = layout.size;
  GST_DEBUG_OBJECT (b->element, "linear %ux%u image of format %d: offset %"
      G_GUINT64_FORMAT ", row pitch %" G_GUINT64_FORMAT ", size %"
      G_GUINT64_FORMAT ", external memory features 0x%x", width, height,
      format, (guint64) layout.offset, (guint64) layout.rowPitch,
      (guint64) layout.size,
      ext_props.externalMemoryProperties.externalMemoryFeatures);

  if (!alloc_and_import (b, plane, error)) {
    gst_cuda_vk_plane_free (b->cuda, b->device, plane);
    return FALSE;
  }
  plane->cuda_ptr += plane->offset;
  return TRUE;
}

gboolean
gst_cuda_vk_plane_alloc_buffer (GstCudaVkBridge * b, GstCudaVkPlane * plane,
    gsize size, VkBufferUsageFlags usage, GError ** error)
{
  VkExternalMemoryBufferCreateInfo ext_ci = { 0, };
  VkBufferCreateInfo ci = { 0, };
  VkResult res;

  memset (plane, 0, sizeof (*plane));
  ext_ci.sType = VK_STRUCTURE_TYPE_EXTERNAL_MEMORY_BUFFER_CREATE_INFO;
  ext_ci.handleTypes = VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT;
  ci.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO;
  ci.pNext = &ext_ci;
  ci.size = size;
  ci.usage = usage;
  ci.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
  res = vkCreateBuffer (b->device->device, &ci, NULL, &plane->buffer);
  if (res != VK_SUCCESS) {
    plane->buffer = VK_NULL_HANDLE;
    g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_NO_SPACE_LEFT,
        "vkCreateBuffer (%" G_GSIZE_FORMAT " bytes, exportable) failed: %d",
        size, res);
    return FALSE;
  }
  plane->size = size;
  if (!alloc_and_import (b, plane, error)) {
    gst_cuda_vk_plane_free (b->cuda, b->device, plane);
    return FALSE;
  }
  return TRUE;
}

/* The caller made sure no GPU work uses the plane any more. */
void
gst_cuda_vk_plane_free (GstCudaContext * cuda, GstVulkanDevice * device,
    GstCudaVkPlane * plane)
{
  if (plane->ext_mem)
    gst_cuda_sync_external_memory_free (plane->ext_mem);
  plane->ext_mem = NULL;
  plane->cuda_ptr = 0;
  if (device && device->device) {
    if (plane->image)
      vkDestroyImage (device->device, plane->image, NULL);
    if (plane->buffer)
      vkDestroyBuffer (device->device, plane->buffer, NULL);
    if (plane->memory)
      vkFreeMemory (device->device, plane->memory, NULL);
  }
  memset (plane, 0, sizeof (*plane));
}

gboolean
gst_cuda_vk_copy_2d (GstCudaVkBridge * b, CUdeviceptr dst, gsize dst_pitch,
    CUdeviceptr src, gsize src_pitch, gsize width_bytes, gsize height,
    GError ** error)
{
  CUDA_MEMCPY2D p;
  CUresult r;

  memset (&p, 0, sizeof (p));
  p.srcMemoryType = CU_MEMORYTYPE_DEVICE;
  p.srcDevice = src;
  p.srcPitch = src_pitch;
  p.dstMemoryType = CU_MEMORYTYPE_DEVICE;
  p.dstDevice = dst;
  p.dstPitch = dst_pitch;
  p.WidthInBytes = width_bytes;
  p.Height = height;
  r = CuMemcpy2DAsync (&p, b->stream);
  return gst_cuda_sync_check_result (r, "cuMemcpy2DAsync", error);
}

gboolean
gst_cuda_vk_bridge_cpu_sync (GstCudaVkBridge * b, GError ** error)
{
  CUresult r;

  if (!gst_cuda_context_push (b->cuda)) {
    g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_FAILED,
        "Could not make the CUDA context current");
    return FALSE;
  }
  r = CuStreamSynchronize (b->stream);
  gst_cuda_context_pop (NULL);
  gst_cuda_vk_bridge_count (b, GST_CUDA_VK_COUNTER_CPU_SYNCS, 1);
  return gst_cuda_sync_check_result (r, "cuStreamSynchronize", error);
}

GstVulkanCommandBuffer *
gst_cuda_vk_bridge_begin (GstCudaVkBridge * b, GError ** error)
{
  VkCommandBufferBeginInfo bi = { 0, };
  GstVulkanCommandBuffer *cmd;
  VkResult res;

  cmd = gst_vulkan_command_pool_create (b->cmd_pool, error);
  if (!cmd)
    return NULL;
  bi.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO;
  bi.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
  gst_vulkan_command_buffer_lock (cmd);
  res = vkBeginCommandBuffer (cmd->cmd, &bi);
  if (gst_vulkan_error_to_g_error (res, error, "vkBeginCommandBuffer") < 0) {
    gst_vulkan_command_buffer_unlock (cmd);
    gst_vulkan_command_buffer_unref (cmd);
    return NULL;
  }
  return cmd;
}

void
gst_cuda_vk_sync_add_wait (GstCudaVkSubmitSync * sync, VkSemaphore sem,
    guint64 value)
{
  g_return_if_fail (sync->n_waits < GST_CUDA_VK_MAX_SYNC);
  sync->waits[sync->n_waits] = sem;
  sync->wait_values[sync->n_waits++] = value;
}

void
gst_cuda_vk_sync_add_signal (GstCudaVkSubmitSync * sync, VkSemaphore sem,
    guint64 value)
{
  g_return_if_fail (sync->n_signals < GST_CUDA_VK_MAX_SYNC);
  sync->signals[sync->n_signals] = sem;
  sync->signal_values[sync->n_signals++] = value;
}

void
gst_cuda_vk_sync_add_memory (GstCudaVkSubmitSync * sync,
    GstVulkanBarrierMemoryInfo * barrier)
{
#ifdef HAVE_VK_BARRIER_SEMAPHORE
  if (barrier->semaphore == VK_NULL_HANDLE)
    return;
  g_return_if_fail (sync->n_barriers < GST_VIDEO_MAX_PLANES);
  gst_cuda_vk_sync_add_wait (sync, barrier->semaphore,
      barrier->semaphore_value);
  gst_cuda_vk_sync_add_signal (sync, barrier->semaphore,
      barrier->semaphore_value + 1);
  sync->barriers[sync->n_barriers++] = barrier;
#endif
}

void
gst_cuda_vk_barrier_set_queue (GstVulkanBarrierMemoryInfo * barrier,
    GstVulkanQueue * queue)
{
#if GST_CHECK_VERSION(1, 24, 0)
  gst_object_replace ((GstObject **) & barrier->queue, GST_OBJECT (queue));
#else
  barrier->queue = queue;
#endif
}

VkFormat
gst_cuda_vk_plane_format (GstVideoFormat format, guint plane)
{
  switch (format) {
    case GST_VIDEO_FORMAT_RGBA:
    case GST_VIDEO_FORMAT_RGBx:
      return VK_FORMAT_R8G8B8A8_UNORM;
    case GST_VIDEO_FORMAT_BGRA:
    case GST_VIDEO_FORMAT_BGRx:
      return VK_FORMAT_B8G8R8A8_UNORM;
    case GST_VIDEO_FORMAT_NV12:
      return plane == 0 ? VK_FORMAT_R8_UNORM : VK_FORMAT_R8G8_UNORM;
    case GST_VIDEO_FORMAT_I420:
      return VK_FORMAT_R8_UNORM;
    default:
      return VK_FORMAT_UNDEFINED;
  }
}

/* The submission's waits and signals; timeline values (if any) go in
 * @tl, chained to @si. */
static void
fill_submit_sync (VkSubmitInfo * si, VkTimelineSemaphoreSubmitInfo * tl,
    VkPipelineStageFlags * wait_stages, const GstCudaVkSubmitSync * sync)
{
  gboolean timeline = FALSE;
  guint i;

  for (i = 0; i < sync->n_waits; i++) {
    wait_stages[i] = VK_PIPELINE_STAGE_ALL_COMMANDS_BIT;
    timeline |= sync->wait_values[i] != 0;
  }
  for (i = 0; i < sync->n_signals; i++)
    timeline |= sync->signal_values[i] != 0;

  si->waitSemaphoreCount = sync->n_waits;
  si->pWaitSemaphores = sync->waits;
  si->pWaitDstStageMask = wait_stages;
  si->signalSemaphoreCount = sync->n_signals;
  si->pSignalSemaphores = sync->signals;
  if (timeline) {
    /* values of binary semaphores are ignored */
    tl->sType = VK_STRUCTURE_TYPE_TIMELINE_SEMAPHORE_SUBMIT_INFO;
    tl->waitSemaphoreValueCount = sync->n_waits;
    tl->pWaitSemaphoreValues = sync->wait_values;
    tl->signalSemaphoreValueCount = sync->n_signals;
    tl->pSignalSemaphoreValues = sync->signal_values;
    si->pNext = tl;
  }
}

GstVulkanFence *
gst_cuda_vk_bridge_submit (GstCudaVkBridge * b, GstVulkanCommandBuffer * cmd,
    const GstCudaVkSubmitSync * sync, GstMiniObject * keep, GError ** error)
{
  VkPipelineStageFlags wait_stages[GST_CUDA_VK_MAX_SYNC];
  VkTimelineSemaphoreSubmitInfo tl = { 0, };
  VkSubmitInfo si = { 0, };
  GstVulkanFence *fence;
  VkResult res;

  res = vkEndCommandBuffer (cmd->cmd);
  gst_vulkan_command_buffer_unlock (cmd);
  if (gst_vulkan_error_to_g_error (res, error, "vkEndCommandBuffer") < 0) {
    gst_vulkan_command_buffer_unref (cmd);
    return NULL;
  }

  fence = gst_cuda_vk_fence_pool_get (b->fences, error);
  if (!fence) {
    gst_vulkan_command_buffer_unref (cmd);
    return NULL;
  }

  si.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO;
  si.commandBufferCount = 1;
  si.pCommandBuffers = &cmd->cmd;
  if (sync)
    fill_submit_sync (&si, &tl, wait_stages, sync);

  gst_vulkan_queue_submit_lock (b->queue);
  res = vkQueueSubmit (b->queue->queue, 1, &si, GST_VULKAN_FENCE_FENCE (fence));
  gst_vulkan_queue_submit_unlock (b->queue);
  if (gst_vulkan_error_to_g_error (res, error, "vkQueueSubmit") < 0) {
    gst_vulkan_command_buffer_unref (cmd);
    gst_cuda_vk_fence_pool_discard (b->fences, fence);
    gst_vulkan_fence_unref (fence);
    return NULL;
  }
#ifdef HAVE_VK_BARRIER_SEMAPHORE
  /* the next user waits for the value this submission signals */
  for (guint i = 0; sync && i < sync->n_barriers; i++)
    sync->barriers[i]->semaphore_value++;
#endif

  gst_vulkan_trash_list_add (b->trash,
      gst_vulkan_trash_list_acquire (b->trash, fence,
          gst_vulkan_trash_mini_object_unref, GST_MINI_OBJECT_CAST (cmd)));
  if (keep)
    gst_vulkan_trash_list_add (b->trash,
        gst_vulkan_trash_list_acquire (b->trash, fence,
            gst_vulkan_trash_mini_object_unref, gst_mini_object_ref (keep)));
  gst_vulkan_trash_list_gc (b->trash);
  return fence;
}

gboolean
gst_cuda_vk_format_supported (GstVideoFormat format)
{
  switch (format) {
    case GST_VIDEO_FORMAT_RGBA:
    case GST_VIDEO_FORMAT_BGRA:
    case GST_VIDEO_FORMAT_RGBx:
    case GST_VIDEO_FORMAT_BGRx:
    case GST_VIDEO_FORMAT_NV12:
    case GST_VIDEO_FORMAT_I420:
      return TRUE;
    default:
      return FALSE;
  }
}

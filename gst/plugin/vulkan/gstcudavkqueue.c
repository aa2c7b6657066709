/* gst-cudasync
 * Copyright (C) 2026 gst-cudasync developers
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The Vulkan queue object every bridge element of the process submits to,
 * and the recycler of the fences of those submissions.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstcudavkqueue.h"

GST_DEBUG_CATEGORY_EXTERN (gst_cuda_vk_debug);
#define GST_CAT_DEFAULT gst_cuda_vk_debug

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
 * (vkCreateFence/vkDestroyFence) avoids it but costs the NVIDIA driver
 * much CPU time per frame. So each user keeps its own recycler: a
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

void
gst_cuda_vk_queue_wait_idle (GstVulkanQueue * queue)
{
  VkResult res;

  gst_vulkan_queue_submit_lock (queue);
  res = vkQueueWaitIdle (queue->queue);
  gst_vulkan_queue_submit_unlock (queue);
  if (res != VK_SUCCESS)
    GST_WARNING_OBJECT (queue, "vkQueueWaitIdle: %d", res);
}

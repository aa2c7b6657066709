/* gst-cudasync
 * Copyright (C) 2026 gst-cudasync developers
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * vkutil: Vulkan helpers shared by the tests, the demo and the bench.
 */
#include "vkutil.h"

#include <dlfcn.h>
#include <cuda.h>

typedef CUresult (*VkUtilCuInitFunc) (unsigned int flags);
typedef CUresult (*VkUtilCuDeviceGetUuidFunc) (CUuuid * uuid, CUdevice dev);

gchar *
vk_util_hex_uuid (const guint8 uuid[VK_UUID_SIZE])
{
  GString *s = g_string_sized_new (2 * VK_UUID_SIZE);
  guint i;

  for (i = 0; i < VK_UUID_SIZE; i++)
    g_string_append_printf (s, "%02x", uuid[i]);
  return g_string_free (s, FALSE);
}

gint
vk_util_find_device (GstVulkanInstance * instance, const gchar * want,
    gchar name[VK_MAX_PHYSICAL_DEVICE_NAME_SIZE], gchar ** uuid_out,
    gboolean * sem_fd)
{
  PFN_vkGetPhysicalDeviceProperties2 get_props2 =
      gst_vulkan_instance_get_proc_address (instance,
      "vkGetPhysicalDeviceProperties2");
  guint i;

  for (i = 0; get_props2 && i < instance->n_physical_devices; i++) {
    GstVulkanPhysicalDevice *pd = gst_vulkan_physical_device_new (instance, i);
    VkPhysicalDeviceIDProperties id = { 0, };
    VkPhysicalDeviceProperties2 p2 = { 0, };
    gboolean sem;
    gchar *uuid;

    if (!pd)
      continue;
    if (!gst_vulkan_physical_device_get_extension_info (pd,
            "VK_KHR_external_memory_fd", NULL)) {
      gst_object_unref (pd);
      continue;
    }
    sem = gst_vulkan_physical_device_get_extension_info (pd,
        "VK_KHR_external_semaphore_fd", NULL);
    id.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_ID_PROPERTIES;
    p2.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2;
    p2.pNext = &id;
    get_props2 (pd->device, &p2);
    gst_object_unref (pd);
    uuid = vk_util_hex_uuid (id.deviceUUID);
    if (!want || g_str_equal (uuid, want)) {
      g_strlcpy (name, p2.properties.deviceName,
          VK_MAX_PHYSICAL_DEVICE_NAME_SIZE);
      *uuid_out = uuid;
      if (sem_fd)
        *sem_fd = sem;
      return (gint) i;
    }
    g_free (uuid);
  }
  return -1;
}

gchar *
vk_util_cuda_uuid (void)
{
  void *lib = dlopen ("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  VkUtilCuInitFunc cu_init;
  VkUtilCuDeviceGetUuidFunc get_uuid;
  CUuuid uuid;
  gchar *ret = NULL;

  if (!lib)
    return NULL;
  cu_init = (VkUtilCuInitFunc) dlsym (lib, "cuInit");
  get_uuid = (VkUtilCuDeviceGetUuidFunc) dlsym (lib, "cuDeviceGetUuid_v2");
  if (!get_uuid)
    get_uuid = (VkUtilCuDeviceGetUuidFunc) dlsym (lib, "cuDeviceGetUuid");
  if (cu_init && get_uuid && cu_init (0) == CUDA_SUCCESS &&
      get_uuid (&uuid, 0) == CUDA_SUCCESS)
    ret = vk_util_hex_uuid ((const guint8 *) uuid.bytes);
  /* the driver stays loaded (it is, for whoever asks about its device) */
  return ret;
}

gint
vk_util_find_cuda_device (GstVulkanInstance * instance, gboolean sim,
    gchar name[VK_MAX_PHYSICAL_DEVICE_NAME_SIZE], gchar ** uuid_out,
    gboolean * sem_fd, gchar ** why)
{
  gchar *want = NULL;
  gint index;

  if (!sim && !(want = vk_util_cuda_uuid ())) {
    *why = g_strdup ("CUDA device 0's UUID could not be read");
    return -1;
  }
  index = vk_util_find_device (instance, want, name, uuid_out, sem_fd);
  if (index < 0) {
    *why = g_strdup_printf ("no Vulkan device with VK_KHR_external_memory_fd"
        "%s%s", want ? " and CUDA device 0's UUID " : "", want ? want : "");
  } else if (sim && !g_getenv ("CUDASIM_DEVICE_UUID")) {
    g_setenv ("CUDASIM_DEVICE_UUID", *uuid_out, TRUE);
  }
  g_free (want);
  return index;
}

gboolean
vk_util_can_export_semaphores (GstVulkanPhysicalDevice * device)
{
  PFN_vkGetPhysicalDeviceExternalSemaphoreProperties get_props =
      gst_vulkan_instance_get_proc_address (device->instance,
      "vkGetPhysicalDeviceExternalSemaphoreProperties");
  VkPhysicalDeviceExternalSemaphoreInfo info = { 0, };
  VkExternalSemaphoreProperties props = { 0, };

  if (!get_props)
    return FALSE;
  info.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_EXTERNAL_SEMAPHORE_INFO;
  info.handleType = VK_EXTERNAL_SEMAPHORE_HANDLE_TYPE_OPAQUE_FD_BIT;
  props.sType = VK_STRUCTURE_TYPE_EXTERNAL_SEMAPHORE_PROPERTIES;
  get_props (device->device, &info, &props);
  return (props.externalSemaphoreFeatures &
      VK_EXTERNAL_SEMAPHORE_FEATURE_EXPORTABLE_BIT) != 0;
}

GstVulkanQueue *
vk_util_pad_queue (GstPad * pad)
{
  GstQuery *q = gst_query_new_context (GST_VULKAN_QUEUE_CONTEXT_TYPE_STR);
  GstVulkanQueue *queue = NULL;
  GstContext *ctx = NULL;

  if (gst_pad_query (pad, q)) {
    gst_query_parse_context (q, &ctx);
    if (ctx)
      gst_context_get_vulkan_queue (ctx, &queue);
  }
  gst_query_unref (q);
  return queue;
}

#if GST_CHECK_VERSION(1, 24, 0)
/* a GstElementForeachPadFunc: adds the queue that @pad's element answers
 * a queue context query with */
static gboolean
collect_queue (GstElement * element, GstPad * pad, gpointer data)
{
  GPtrArray *queues = data;
  GstVulkanQueue *queue = vk_util_pad_queue (pad);

  if (queue) {
    if (!g_ptr_array_find (queues, queue, NULL))
      g_ptr_array_add (queues, gst_object_ref (queue));
    gst_object_unref (queue);
  }
  return TRUE;
}

static void
collect_element (const GValue * v, gpointer queues)
{
  gst_element_foreach_pad (g_value_get_object (v), collect_queue, queues);
}
#endif

gboolean
vk_util_queue_wait_idle (GstVulkanQueue * queue)
{
  VkResult res;

  g_return_val_if_fail (GST_IS_VULKAN_QUEUE (queue), FALSE);
  gst_vulkan_queue_submit_lock (queue);
  res = vkQueueWaitIdle (queue->queue);
  gst_vulkan_queue_submit_unlock (queue);
  if (res != VK_SUCCESS)
    g_warning ("vkQueueWaitIdle (queue family %u) failed: VkResult %d",
        queue->family, (gint) res);
  return res == VK_SUCCESS;
}

guint
vk_util_drain_pipeline (GstElement * pipeline)
{
  guint n = 0;
#if GST_CHECK_VERSION(1, 24, 0)
  GPtrArray *queues = g_ptr_array_new_with_free_func (gst_object_unref);
  GstIterator *it;
  guint i;

  g_return_val_if_fail (GST_IS_BIN (pipeline), 0);
  it = gst_bin_iterate_recurse (GST_BIN (pipeline));
  while (gst_iterator_foreach (it, collect_element, queues) ==
      GST_ITERATOR_RESYNC)
    gst_iterator_resync (it);
  gst_iterator_free (it);
  for (i = 0; i < queues->len; i++)
    vk_util_queue_wait_idle (g_ptr_array_index (queues, i));
  n = queues->len;
  g_ptr_array_unref (queues);
#endif
  return n;
}

gchar *
vk_util_interop_uuid (void)
{
  GstVulkanInstance *instance = gst_vulkan_instance_new ();
  gchar name[VK_MAX_PHYSICAL_DEVICE_NAME_SIZE];
  gchar *uuid = NULL;

  if (gst_vulkan_instance_open (instance, NULL))
    vk_util_find_device (instance, NULL, name, &uuid, NULL);
  gst_object_unref (instance);
  return uuid;
}

/* gst-cudasync
 * Copyright (C) 2026 gst-cudasync developers
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The Vulkan device shared with CUDA: UUID match, the external
 * memory/semaphore extensions, the debug names of the objects.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstcudavkdevice.h"
#include "gstcudasyncelementerror.h"
#include <gst/cuda/cuda-gst.h>
#include <string.h>

/* the bridge's parts' category, set up by GstCudaVkBaseTransform's
 * class_init */
GST_DEBUG_CATEGORY (gst_cuda_vk_debug);
#define GST_CAT_DEFAULT gst_cuda_vk_debug

#define EXT_MEM_FD "VK_KHR_external_memory_fd"
#define EXT_SEM_FD "VK_KHR_external_semaphore_fd"

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
check_uuid (GstVulkanInstance * instance, GstVulkanPhysicalDevice * pd,
    const guint8 * cuda_uuid)
{
  guint8 vk_uuid[VK_UUID_SIZE];

  if (!vk_device_uuid (instance, pd, vk_uuid))
    return FALSE;
  return memcmp (vk_uuid, cuda_uuid, VK_UUID_SIZE) == 0;
}

/* The pipeline's @device: it must be the CUDA device and have (or still be
 * able to get) the external memory extensions */
static gboolean
check_pipeline_device (GstVulkanInstance * instance, GstVulkanDevice * device,
    const guint8 * cuda_uuid, const gchar * cuda_str, GError ** error)
{
  gboolean opened;
  GstVulkanPhysicalDevice *pd = device->physical_device;

  if (!check_uuid (instance, pd, cuda_uuid)) {
    guint8 u[VK_UUID_SIZE] = { 0, };
    gchar *vs;

    vk_device_uuid (instance, pd, u);
    vs = uuid_to_string (u);
    GST_CUDA_SYNC_SET_ERROR (error, RESOURCE, SETTINGS,
        ("The pipeline's Vulkan device (%s, UUID %s) is not the CUDA "
            "device (UUID %s)", pd->properties.deviceName, vs, cuda_str),
        ("memory cannot be shared between different devices"));
    g_free (vs);
    return FALSE;
  }
  opened = device->device != VK_NULL_HANDLE;
  if (opened) {
    if (!gst_vulkan_device_is_extension_enabled (device, EXT_MEM_FD)) {
      GST_CUDA_SYNC_SET_ERROR (error, RESOURCE, SETTINGS,
          ("The pipeline's Vulkan device was opened without %s: memory "
              "cannot be shared with CUDA", EXT_MEM_FD),
          ("let this element create the device, or enable %s and %s "
              "before gst_vulkan_device_open()", EXT_MEM_FD, EXT_SEM_FD));
      return FALSE;
    }
    if (pd_has_extension (pd, EXT_SEM_FD) &&
        !gst_vulkan_device_is_extension_enabled (device, EXT_SEM_FD)) {
      GST_CUDA_SYNC_SET_ERROR (error, RESOURCE, SETTINGS,
          ("The pipeline's Vulkan device was opened without %s",
              EXT_SEM_FD), ("enable %s and %s before "
              "gst_vulkan_device_open()", EXT_MEM_FD, EXT_SEM_FD));
      return FALSE;
    }
  }
  return TRUE;
}

/* No device in the pipeline: a new GstVulkanDevice of the physical device
 * of @instance with the CUDA device's UUID (transfer full) */
static GstVulkanDevice *
find_device (GstVulkanInstance * instance, const guint8 * cuda_uuid,
    const gchar * cuda_str, GError ** error)
{
  GstVulkanDevice *found = NULL;
  guint i, n = instance->n_physical_devices;
  GString *seen = g_string_new (NULL);

  for (i = 0; i < n && !found; i++) {
    GstVulkanDevice *dev = gst_vulkan_device_new_with_index (instance, i);
    guint8 u[VK_UUID_SIZE];

    if (dev && check_uuid (instance, dev->physical_device, cuda_uuid)) {
      found = dev;
    } else {
      if (dev && vk_device_uuid (instance, dev->physical_device, u)) {
        gchar *vs = uuid_to_string (u);
        g_string_append_printf (seen, "%s%s (%s)", seen->len ? ", " : "",
            vs, dev->physical_device->properties.deviceName);
        g_free (vs);
      }
      gst_clear_object (&dev);
    }
  }
  if (!found) {
    GST_CUDA_SYNC_SET_ERROR (error, RESOURCE, NOT_FOUND,
        ("No Vulkan device has the UUID of the CUDA device (%s); the "
            "Vulkan devices have %s", cuda_str, seen->len ? seen->str :
            "no readable UUID"), ("%u Vulkan physical devices checked", n));
  }
  g_string_free (seen, TRUE);
  return found;
}

/* Opens @device with the interop extensions, unless already open */
static gboolean
open_device (GstElement * element, GstVulkanDevice * device, GError ** error)
{
  GError *err = NULL;

  if (device->device == VK_NULL_HANDLE) {
    if (!gst_vulkan_device_enable_extension (device, EXT_MEM_FD)) {
      GST_CUDA_SYNC_SET_ERROR (error, RESOURCE, SETTINGS,
          ("The Vulkan device %s does not support %s: memory cannot be "
              "shared with CUDA",
              device->physical_device->properties.deviceName, EXT_MEM_FD),
          (NULL));
      return FALSE;
    }
    if (!gst_vulkan_device_enable_extension (device, EXT_SEM_FD))
      GST_INFO_OBJECT (element, "%s not available: CPU fallback", EXT_SEM_FD);
    if (!gst_vulkan_device_open (device, &err)) {
      GST_CUDA_SYNC_SET_ERROR (error, RESOURCE, FAILED,
          ("Could not open the Vulkan device"), ("%s", err->message));
      g_clear_error (&err);
      return FALSE;
    }
  }
  return TRUE;
}

/* The debug names of @element's objects, and whether @device shares
 * memory with CUDA (the interop looks the functions up itself) */
static gboolean
get_functions (GstElement * element, GstVulkanDevice * device,
    GstCudaVkNamer * namer, GError ** error)
{
  memset (namer, 0, sizeof (*namer));
  if (gst_vulkan_instance_is_extension_enabled (device->instance,
          VK_EXT_DEBUG_UTILS_EXTENSION_NAME)) {
    namer->fn = gst_vulkan_instance_get_proc_address (device->instance,
        "vkSetDebugUtilsObjectNameEXT");
    namer->device = device->device;
    g_snprintf (namer->prefix, sizeof (namer->prefix), "gst-cudasync %s",
        GST_OBJECT_NAME (element));
  }
  if (!gst_vulkan_device_get_proc_address (device, "vkGetMemoryFdKHR")) {
    GST_CUDA_SYNC_SET_ERROR (error, RESOURCE, FAILED,
        ("The Vulkan device lacks vkGetMemoryFdKHR"), (NULL));
    return FALSE;
  }
  return TRUE;
}

/* Shares @device, which @element made, with the rest of the pipeline, as
 * upstream elements share the instance: the bin answers later elements'
 * NEED_CONTEXT with it, so every bridge element of the pipeline (and the
 * vulkan elements that ask them) use one device, and one queue object */
static void
share_device (GstElement * element, GstVulkanDevice * device)
{
  GstContext *context = gst_context_new (GST_VULKAN_DEVICE_CONTEXT_TYPE_STR,
      TRUE);

  gst_context_set_vulkan_device (context, device);
  gst_element_post_message (element, gst_message_new_have_context
      (GST_OBJECT (element), context));
}

GstVulkanDevice *
gst_cuda_vk_device_setup (GstElement * element, GstVulkanInstance * instance,
    GstVulkanDevice * pipeline_device, const guint8 * cuda_uuid,
    GstCudaVkNamer * namer, GError ** error)
{
  gchar *cuda_str = uuid_to_string (cuda_uuid);
  GstVulkanDevice *device = NULL;

  if (pipeline_device) {
    if (check_pipeline_device (instance, pipeline_device, cuda_uuid,
            cuda_str, error))
      device = gst_object_ref (pipeline_device);
  } else {
    device = find_device (instance, cuda_uuid, cuda_str, error);
  }
  if (!device || !open_device (element, device, error))
    goto fail;
  if (!pipeline_device)
    share_device (element, device);
  if (!get_functions (element, device, namer, error))
    goto fail;

  /* which devices were matched: both UUIDs (they are equal) */
  {
    guint8 vu[VK_UUID_SIZE];
    gchar *vs = vk_device_uuid (instance, device->physical_device, vu)
        ? uuid_to_string (vu) : g_strdup ("?");

    GST_INFO_OBJECT (element, "CUDA device UUID %s, Vulkan device %s UUID %s",
        cuda_str, device->physical_device->properties.deviceName, vs);
    g_free (vs);
  }
  g_free (cuda_str);
  return device;

fail:
  gst_clear_object (&device);
  g_free (cuda_str);
  return NULL;
}

void
gst_cuda_vk_namer_name (const GstCudaVkNamer * namer, VkObjectType type,
    guint64 handle, const gchar * what)
{
  VkDebugUtilsObjectNameInfoEXT info = { 0, };
  gchar *name;

  if (!namer->fn || !handle)
    return;
  /* NULL: no name (removes the one set before) */
  name = what ? g_strdup_printf ("%s %s", namer->prefix, what) : NULL;
  info.sType = VK_STRUCTURE_TYPE_DEBUG_UTILS_OBJECT_NAME_INFO_EXT;
  info.objectType = type;
  info.objectHandle = handle;
  info.pObjectName = name;
  namer->fn (namer->device, &info);
  g_free (name);
}

/* gst-cudasync test helpers for the CUDA<->Vulkan bridge tests
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "common.h"
#include "vkcommon.h"
#include "vkutil.h"

#include <string.h>

#define OUR_PREFIX "gst-cudasync "

/* the validating instance of this (forked) test process and what its
 * messenger saw: lock guards the lists, which the driver's threads fill */
static GstVulkanInstance *vk_instance;
static VkDebugUtilsMessengerEXT vk_messenger;
static GMutex msg_lock;
static GPtrArray *ours, *others;

int
cs_vk_run_suite (Suite * suite, const gchar * name, const gchar * file)
{
  if (g_strcmp0 (g_getenv ("CUDASYNC_TEST_DRIVER"), "sim") == 0) {
    gchar *uuid = vk_util_interop_uuid ();

    if (!uuid) {
      g_print ("no Vulkan device with VK_KHR_external_memory_fd: skipping\n");
      return 77;
    }
    if (!g_getenv ("CUDASIM_DEVICE_UUID"))
      g_setenv ("CUDASIM_DEVICE_UUID", uuid, TRUE);
    g_free (uuid);
  }
  return gst_check_run_suite (suite, name, file);
}

static gboolean
validating (void)
{
  return g_strcmp0 (g_getenv ("CUDASYNC_TEST_VK_VALIDATION"), "1") == 0;
}

static VKAPI_ATTR VkBool32 VKAPI_CALL
on_message (VkDebugUtilsMessageSeverityFlagBitsEXT severity,
    VkDebugUtilsMessageTypeFlagsEXT type,
    const VkDebugUtilsMessengerCallbackDataEXT * data, void *user_data)
{
  gboolean project = FALSE;
  guint i;

  for (i = 0; i < data->objectCount; i++)
    project |= data->pObjects[i].pObjectName &&
        g_str_has_prefix (data->pObjects[i].pObjectName, OUR_PREFIX);
  /* a message may name one of ours only in its text, e.g. an image
   * destroyed while in use, whose objects are the device alone */
  project |= data->pMessage && strstr (data->pMessage, "[" OUR_PREFIX);
  g_printerr ("validation (%s): [%s]", project ? "the project's objects" :
      "other objects", data->pMessageIdName ? data->pMessageIdName : "");
  for (i = 0; i < data->objectCount; i++)
    g_printerr (" %s %" G_GINT64_MODIFIER "x%s%s",
        i ? "," : " objects:", (guint64) data->pObjects[i].objectHandle,
        data->pObjects[i].pObjectName ? " " : "",
        data->pObjects[i].pObjectName ? data->pObjects[i].pObjectName : "");
  g_printerr ("\n  %s\n", data->pMessage);
  g_mutex_lock (&msg_lock);
  g_ptr_array_add (project ? ours : others, g_strdup (data->pMessage));
  g_mutex_unlock (&msg_lock);
  return VK_FALSE;
}

/* an instance with VK_EXT_debug_utils and the messenger, once per test
 * process; the validation layer must be there */
static void
open_validating_instance (void)
{
  VkDebugUtilsMessengerCreateInfoEXT ci = { 0, };
  PFN_vkCreateDebugUtilsMessengerEXT create;
  GError *err = NULL;

  /* GStreamer's own callback (vulkandebug at ERROR) raises a critical for
   * every validation error, upstream's too, which aborts a test */
  gst_debug_set_threshold_for_name ("vulkandebug", GST_LEVEL_NONE);
  vk_instance = gst_vulkan_instance_new ();
  fail_unless (gst_vulkan_instance_fill_info (vk_instance, &err), "%s",
      err ? err->message : "?");
  fail_unless (gst_vulkan_instance_get_layer_info (vk_instance,
          "VK_LAYER_KHRONOS_validation", NULL, NULL, NULL),
      "CUDASYNC_TEST_VK_VALIDATION=1 but the Khronos validation layer is "
      "not installed");
  fail_unless (gst_vulkan_instance_enable_extension (vk_instance,
          VK_EXT_DEBUG_UTILS_EXTENSION_NAME));
  fail_unless (gst_vulkan_instance_open (vk_instance, &err), "%s",
      err ? err->message : "?");
  create = gst_vulkan_instance_get_proc_address (vk_instance,
      "vkCreateDebugUtilsMessengerEXT");
  fail_unless (create != NULL);
  ci.sType = VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT;
  ci.messageSeverity = VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT;
  ci.messageType = VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT |
      VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT;
  ci.pfnUserCallback = on_message;
  fail_unless_equals_int (create (vk_instance->instance, &ci, NULL,
          &vk_messenger), VK_SUCCESS);
  ours = g_ptr_array_new_with_free_func (g_free);
  others = g_ptr_array_new_with_free_func (g_free);
}

static void
share_instance (GstElement * element)
{
  GstContext *ctx;

  if (!vk_instance)
    return;
  ctx = gst_context_new (GST_VULKAN_INSTANCE_CONTEXT_TYPE_STR, TRUE);
  gst_context_set_vulkan_instance (ctx, vk_instance);
  gst_element_set_context (element, ctx);
  gst_context_unref (ctx);
}

GstElement *
cs_vk_parse_launch (const gchar * desc, GError ** error)
{
  GstElement *pipeline = gst_parse_launch (desc, error);

  if (pipeline)
    share_instance (pipeline);
  return pipeline;
}

guint
cs_vk_other_errors (void)
{
  guint n;

  if (!vk_instance)
    return 0;
  g_mutex_lock (&msg_lock);
  n = others->len;
  g_mutex_unlock (&msg_lock);
  return n;
}

void
cs_vk_setup (void)
{
  cs_setup ();
  if (validating ()) {
    open_validating_instance ();
    cs_pipeline_hook = share_instance;
  }
}

void
cs_vk_setup_two_devices (void)
{
  cs_setup_two_devices ();
  if (validating ()) {
    open_validating_instance ();
    cs_pipeline_hook = share_instance;
  }
}

void
cs_vk_teardown (void)
{
  cs_pipeline_hook = NULL;
  if (vk_instance) {
    PFN_vkDestroyDebugUtilsMessengerEXT destroy =
        gst_vulkan_instance_get_proc_address (vk_instance,
        "vkDestroyDebugUtilsMessengerEXT");

    g_mutex_lock (&msg_lock);
    if (others->len)
      g_print ("validation: %u errors on other objects than the project's "
          "(upstream's)\n", others->len);
    fail_unless (ours->len == 0, "%u validation errors on the project's "
        "Vulkan objects, the first: %s", ours->len,
        ours->len ? (gchar *) g_ptr_array_index (ours, 0) : "");
    g_mutex_unlock (&msg_lock);
    destroy (vk_instance->instance, vk_messenger, NULL);
    gst_clear_object (&vk_instance);
    g_clear_pointer (&ours, g_ptr_array_unref);
    g_clear_pointer (&others, g_ptr_array_unref);
  }
  cs_teardown ();
}

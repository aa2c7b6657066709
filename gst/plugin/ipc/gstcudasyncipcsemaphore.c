/* gst-cudasync
 * Copyright (C) 2026 gst-cudasync developers
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * One Vulkan instance and device per process, opened on first use for the
 * UUID asked for and kept (a later UUID replaces it); the lock guards them
 * and is taken alone. Each semaphore is destroyed right after its export:
 * the fd holds the payload.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstcudasyncipcsemaphore.h"
#include "gstcudasyncelementerror.h"
#include <gst/cudasync/gstcudasync-internal.h>
#include <gst/cuda/cuda-gst.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#ifdef HAVE_VULKAN
#include <vulkan/vulkan.h>

static GMutex vk_lock;
static struct
{
  guint8 uuid[16];
  gboolean tried;
  gchar *reason;                /* why there is no device, or NULL */
  VkInstance instance;
  VkDevice device;
  PFN_vkGetSemaphoreFdKHR get_fd;
} vk;

static void
vk_close (void)
{
  if (vk.device)
    vkDestroyDevice (vk.device, NULL);
  if (vk.instance)
    vkDestroyInstance (vk.instance, NULL);
  vk.device = VK_NULL_HANDLE;
  vk.instance = VK_NULL_HANDLE;
  g_clear_pointer (&vk.reason, g_free);
  vk.tried = FALSE;
}

/* whether @phys exports timeline semaphores as OPAQUE_FD: NULL, or why not */
static gchar *
vk_check (VkPhysicalDevice phys, const VkPhysicalDeviceProperties * p)
{
  VkPhysicalDeviceTimelineSemaphoreFeatures tl = {
    .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_TIMELINE_SEMAPHORE_FEATURES,
  };
  VkPhysicalDeviceFeatures2 features = {
    .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2,.pNext = &tl,
  };
  VkSemaphoreTypeCreateInfo type = {
    .sType = VK_STRUCTURE_TYPE_SEMAPHORE_TYPE_CREATE_INFO,
    .semaphoreType = VK_SEMAPHORE_TYPE_TIMELINE,
  };
  VkPhysicalDeviceExternalSemaphoreInfo info = {
    .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_EXTERNAL_SEMAPHORE_INFO,
    .pNext = &type,
    .handleType = VK_EXTERNAL_SEMAPHORE_HANDLE_TYPE_OPAQUE_FD_BIT,
  };
  VkExternalSemaphoreProperties props = {
    .sType = VK_STRUCTURE_TYPE_EXTERNAL_SEMAPHORE_PROPERTIES,
  };

  if (p->apiVersion < VK_API_VERSION_1_2)
    return g_strdup_printf ("Vulkan device \"%s\" supports only Vulkan "
        "%u.%u (1.2 needed)", p->deviceName,
        VK_API_VERSION_MAJOR (p->apiVersion),
        VK_API_VERSION_MINOR (p->apiVersion));
  vkGetPhysicalDeviceFeatures2 (phys, &features);
  vkGetPhysicalDeviceExternalSemaphoreProperties (phys, &info, &props);
  if (!tl.timelineSemaphore || !(props.externalSemaphoreFeatures &
          VK_EXTERNAL_SEMAPHORE_FEATURE_EXPORTABLE_BIT))
    return g_strdup_printf ("Vulkan device \"%s\" cannot export timeline "
        "semaphores as OPAQUE_FD", p->deviceName);
  return NULL;
}

/* the physical device of vk.uuid, or NULL with vk.reason */
static VkPhysicalDevice
vk_pick (void)
{
  VkPhysicalDevice *phys, found = VK_NULL_HANDLE;
  uint32_t n = 0, i;

  if (vkEnumeratePhysicalDevices (vk.instance, &n, NULL) != VK_SUCCESS ||
      n == 0) {
    vk.reason = g_strdup ("no Vulkan physical device");
    return VK_NULL_HANDLE;
  }
  phys = g_new0 (VkPhysicalDevice, n);
  if (vkEnumeratePhysicalDevices (vk.instance, &n, phys) < 0)
    n = 0;
  for (i = 0; i < n && !found && !vk.reason; i++) {
    VkPhysicalDeviceIDProperties id = {
      .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_ID_PROPERTIES,
    };
    VkPhysicalDeviceProperties2 props = {
      .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2,.pNext = &id,
    };
    vkGetPhysicalDeviceProperties2 (phys[i], &props);
    if (memcmp (id.deviceUUID, vk.uuid, 16) != 0)
      continue;
    vk.reason = vk_check (phys[i], &props.properties);
    if (!vk.reason)
      found = phys[i];
  }
  g_free (phys);
  if (!found && !vk.reason)
    vk.reason = g_strdup ("no Vulkan device has the CUDA device's UUID");
  return found;
}

/* vk.instance and vk.device for vk.uuid (lock held); FALSE with vk.reason */
static gboolean
vk_open (void)
{
  const char *ext = VK_KHR_EXTERNAL_SEMAPHORE_FD_EXTENSION_NAME;
  VkApplicationInfo app = {
    .sType = VK_STRUCTURE_TYPE_APPLICATION_INFO,
    .pApplicationName = "gst-cudasync IPC",.apiVersion = VK_API_VERSION_1_2,
  };
  VkInstanceCreateInfo ici = {
    .sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO,.pApplicationInfo = &app,
  };
  VkPhysicalDeviceTimelineSemaphoreFeatures tl = {
    .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_TIMELINE_SEMAPHORE_FEATURES,
    .timelineSemaphore = VK_TRUE,
  };
  float prio = 1.0f;
  VkDeviceQueueCreateInfo qci = {
    .sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO,
    .queueCount = 1,.pQueuePriorities = &prio,
  };
  VkDeviceCreateInfo dci = {
    .sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO,.pNext = &tl,
    .queueCreateInfoCount = 1,.pQueueCreateInfos = &qci,
    .enabledExtensionCount = 1,.ppEnabledExtensionNames = &ext,
  };
  VkPhysicalDevice phys;
  VkResult r;

  vk.tried = TRUE;
  if ((r = vkCreateInstance (&ici, NULL, &vk.instance)) != VK_SUCCESS) {
    vk.instance = VK_NULL_HANDLE;
    vk.reason = g_strdup_printf ("vkCreateInstance: VkResult %d", r);
    return FALSE;
  }
  phys = vk_pick ();
  if (!phys)
    return FALSE;
  if ((r = vkCreateDevice (phys, &dci, NULL, &vk.device)) != VK_SUCCESS) {
    vk.device = VK_NULL_HANDLE;
    vk.reason = g_strdup_printf ("vkCreateDevice: VkResult %d", r);
    return FALSE;
  }
  vk.get_fd = (PFN_vkGetSemaphoreFdKHR) vkGetDeviceProcAddr (vk.device,
      "vkGetSemaphoreFdKHR");
  if (!vk.get_fd)
    vk.reason = g_strdup ("no vkGetSemaphoreFdKHR");
  return vk.get_fd != NULL;
}

/* two fds of one new semaphore (lock held) */
static gint
vk_export (gint * second)
{
  VkExportSemaphoreCreateInfo export = {
    .sType = VK_STRUCTURE_TYPE_EXPORT_SEMAPHORE_CREATE_INFO,
    .handleTypes = VK_EXTERNAL_SEMAPHORE_HANDLE_TYPE_OPAQUE_FD_BIT,
  };
  VkSemaphoreTypeCreateInfo type = {
    .sType = VK_STRUCTURE_TYPE_SEMAPHORE_TYPE_CREATE_INFO,.pNext = &export,
    .semaphoreType = VK_SEMAPHORE_TYPE_TIMELINE,
  };
  VkSemaphoreCreateInfo sci = {
    .sType = VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO,.pNext = &type,
  };
  VkSemaphoreGetFdInfoKHR get = {
    .sType = VK_STRUCTURE_TYPE_SEMAPHORE_GET_FD_INFO_KHR,
    .handleType = VK_EXTERNAL_SEMAPHORE_HANDLE_TYPE_OPAQUE_FD_BIT,
  };
  VkSemaphore sem;
  int fd = -1;

  if (vkCreateSemaphore (vk.device, &sci, NULL, &sem) != VK_SUCCESS)
    return -1;
  get.semaphore = sem;
  if (vk.get_fd (vk.device, &get, &fd) != VK_SUCCESS)
    fd = -1;
  else if (vk.get_fd (vk.device, &get, second) != VK_SUCCESS) {
    close (fd);
    fd = -1;
  }
  /* the fd keeps the payload */
  vkDestroySemaphore (vk.device, sem, NULL);
  return fd;
}
#endif /* HAVE_VULKAN */

gint
gst_cuda_sync_ipc_semaphore_new_fd (const guint8 uuid[16], gint * second,
    GError ** error)
{
#ifdef HAVE_VULKAN
  gint fd = -1;
  gchar *reason = NULL;

  g_mutex_lock (&vk_lock);
  if (vk.tried && memcmp (vk.uuid, uuid, 16) != 0)
    vk_close ();
  if (!vk.tried) {
    memcpy (vk.uuid, uuid, 16);
    vk_open ();
  }
  if (vk.reason)
    reason = g_strdup (vk.reason);
  else if ((fd = vk_export (second)) < 0)
    reason = g_strdup ("vkCreateSemaphore or vkGetSemaphoreFdKHR failed");
  g_mutex_unlock (&vk_lock);
  if (fd >= 0)
    return fd;
  GST_CUDA_SYNC_SET_ERROR (error, RESOURCE, FAILED, ("Could not create an "
          "exportable timeline semaphore: Vulkan cannot make one for this "
          "CUDA device, and no new-semaphore handler supplied one."),
      ("%s", reason));
  g_free (reason);
  return -1;
#else
  GST_CUDA_SYNC_SET_ERROR (error, RESOURCE, FAILED, ("Could not create an "
          "exportable timeline semaphore: the plugin was built without "
          "Vulkan, and no new-semaphore handler supplied one."),
      ("libvulkan was not found at build time"));
  return -1;
#endif
}

GstCudaSemaphore *
gst_cuda_sync_ipc_semaphore_new (GstCudaContext * context,
    GstCudaSyncIpcSemaphoreFunc func, gpointer user_data, gint * send_fd,
    GError ** error)
{
  GstCudaSemaphore *sem;
  guint8 uuid[16];
  gint fd;

  *send_fd = -1;
  if (func)
    fd = func (user_data, error);
  else if (gst_cuda_sync_context_get_uuid (context, uuid, error))
    fd = gst_cuda_sync_ipc_semaphore_new_fd (uuid, send_fd, error);
  else
    fd = -1;
  if (fd < 0) {
    if (error && !*error)
      GST_CUDA_SYNC_SET_ERROR (error, RESOURCE, FAILED, ("The new-semaphore "
              "handler did not supply a semaphore."), ("it returned %d", fd));
    return NULL;
  }
  /* the import takes @fd; the peer gets another fd of the semaphore (from
   * a handler: of the same open file) */
  if (*send_fd < 0)
    *send_fd = fcntl (fd, F_DUPFD_CLOEXEC, 0);
  if (*send_fd < 0) {
    GST_CUDA_SYNC_SET_ERROR (error, RESOURCE, FAILED, ("Could not duplicate "
            "a semaphore's fd."), ("%s", g_strerror (errno)));
    close (fd);
    return NULL;
  }
  sem = gst_cuda_semaphore_import_fd (context,
      GST_CUDA_SEMAPHORE_HANDLE_TYPE_TIMELINE_FD, fd, error);
  if (!sem) {
    close (fd);
    close (*send_fd);
    *send_fd = -1;
  }
  return sem;
}

gboolean
gst_cuda_sync_ipc_semaphore_check (GstCudaContext * context, GError ** error)
{
  guint8 uuid[16];
  gint fd, second = -1;

  if (!gst_cuda_sync_context_get_uuid (context, uuid, error))
    return FALSE;
  fd = gst_cuda_sync_ipc_semaphore_new_fd (uuid, &second, error);
  if (fd < 0)
    return FALSE;
  close (fd);
  close (second);
  return TRUE;
}

gboolean
gst_cuda_sync_ipc_streams_new (GstCudaContext * context, CUstream * stream,
    CUstream * rescue, GError ** error)
{
  CUresult r;

  *stream = *rescue = NULL;
  if (!gst_cuda_context_push (context)) {
    g_set_error (error, GST_CUDA_SYNC_ERROR, GST_CUDA_SYNC_ERROR_DRIVER,
        "Could not make the CUDA context current");
    return FALSE;
  }
  r = CuStreamCreate (stream, CU_STREAM_DEFAULT);
  if (r == CUDA_SUCCESS)
    r = CuStreamCreate (rescue, CU_STREAM_NON_BLOCKING);
  if (r != CUDA_SUCCESS && *stream) {
    CuStreamDestroy (*stream);
    *stream = NULL;
  }
  gst_cuda_context_pop (NULL);
  return gst_cuda_sync_check_result (r, "cuStreamCreate", error);
}

/* a stream belongs to its context: it is destroyed even when making the
 * context current fails */
void
gst_cuda_sync_ipc_streams_free (GstCudaContext * context, CUstream stream,
    CUstream rescue)
{
  gboolean pushed;

  if (!stream && !rescue)
    return;
  pushed = gst_cuda_context_push (context);
  if (stream)
    CuStreamDestroy (stream);
  if (rescue)
    CuStreamDestroy (rescue);
  if (pushed)
    gst_cuda_context_pop (NULL);
}

GST_DEBUG_CATEGORY_STATIC (gst_cuda_sync_ipc_rescue_debug);

gboolean
gst_cuda_sync_ipc_rescue_signal (GstCudaContext * context,
    GstCudaSemaphore * sem, CUstream fallback, guint64 value, GError ** error)
{
  GError *err = NULL;
  gboolean ret;

  if (gst_cuda_semaphore_rescue (sem, value, &err))
    return TRUE;
  GST_DEBUG_CATEGORY_INIT (gst_cuda_sync_ipc_rescue_debug, "cudasyncipcrescue",
      0, "the IPC elements' rescues");
  GST_CAT_WARNING (gst_cuda_sync_ipc_rescue_debug, "rescue from a context of "
      "its own: %s; signalling on a stream of ours", err->message);
  g_clear_error (&err);
  if (!gst_cuda_context_push (context)) {
    g_set_error (error, GST_CUDA_SYNC_ERROR, GST_CUDA_SYNC_ERROR_DRIVER,
        "Could not make the CUDA context current");
    return FALSE;
  }
  ret = gst_cuda_semaphore_signal_value (sem, fallback, value, error);
  gst_cuda_context_pop (NULL);
  return ret;
}

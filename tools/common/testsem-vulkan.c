/* gst-cudasync
 * Copyright (C) 2026 gst-cudasync developers
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * testsem: the Vulkan backend (see testsem.h): the Vulkan device whose
 * deviceUUID is CUDA device 0's (testsem.c reads that UUID) and semaphores
 * on it, exportable as OPAQUE_FD. Built only with Vulkan.
 */
#include "testsem-private.h"

#include <string.h>

#include <vulkan/vulkan.h>

typedef struct
{
  gchar *name;
  VkInstance instance;
  VkPhysicalDevice phys;
  VkDevice device;
  VkQueue queue;
  GMutex queue_lock;            /* vkQueueSubmit needs the queue externally synchronised */
  gboolean binary_exportable;
  PFN_vkGetSemaphoreFdKHR get_semaphore_fd;
  PFN_vkSignalSemaphore signal_semaphore;
  PFN_vkWaitSemaphores wait_semaphores;
  PFN_vkGetSemaphoreCounterValue get_counter_value;
} VkBackend;

static VkBackend vk;

#define TIMEOUT_1S (G_GUINT64_CONSTANT (1000000000))

/* ------------------------------------------------------------------ */
/* Vulkan set-up                                                       */
/* ------------------------------------------------------------------ */

static gboolean
vk_has_device_extension (VkPhysicalDevice phys, const char *name)
{
  uint32_t n = 0, i;
  VkExtensionProperties *props;
  gboolean found = FALSE;

  if (vkEnumerateDeviceExtensionProperties (phys, NULL, &n, NULL) != VK_SUCCESS)
    return FALSE;
  props = g_new0 (VkExtensionProperties, n ? n : 1);
  if (vkEnumerateDeviceExtensionProperties (phys, NULL, &n,
          props) == VK_SUCCESS) {
    for (i = 0; i < n && !found; i++)
      found = strcmp (props[i].extensionName, name) == 0;
  }
  g_free (props);
  return found;
}

static gboolean
vk_can_export (VkPhysicalDevice phys, gboolean timeline)
{
  VkSemaphoreTypeCreateInfo type_info = {
    .sType = VK_STRUCTURE_TYPE_SEMAPHORE_TYPE_CREATE_INFO,
    .semaphoreType = VK_SEMAPHORE_TYPE_TIMELINE,
  };
  VkPhysicalDeviceExternalSemaphoreInfo info = {
    .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_EXTERNAL_SEMAPHORE_INFO,
    .pNext = timeline ? &type_info : NULL,
    .handleType = VK_EXTERNAL_SEMAPHORE_HANDLE_TYPE_OPAQUE_FD_BIT,
  };
  VkExternalSemaphoreProperties props = {
    .sType = VK_STRUCTURE_TYPE_EXTERNAL_SEMAPHORE_PROPERTIES,
  };

  vkGetPhysicalDeviceExternalSemaphoreProperties (phys, &info, &props);
  return (props.externalSemaphoreFeatures &
      VK_EXTERNAL_SEMAPHORE_FEATURE_EXPORTABLE_BIT) != 0 &&
      (props.exportFromImportedHandleTypes | props.compatibleHandleTypes) &
      VK_EXTERNAL_SEMAPHORE_HANDLE_TYPE_OPAQUE_FD_BIT;
}

static gchar *
uuid_to_string (const guint8 * u)
{
  return g_strdup_printf ("%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-"
      "%02x%02x%02x%02x%02x%02x", u[0], u[1], u[2], u[3], u[4], u[5], u[6],
      u[7], u[8], u[9], u[10], u[11], u[12], u[13], u[14], u[15]);
}

/* vk.instance, for Vulkan 1.2; NULL, or the reason it could not */
static gchar *
vk_create_instance (void)
{
  VkApplicationInfo app = {
    .sType = VK_STRUCTURE_TYPE_APPLICATION_INFO,
    .pApplicationName = "gst-cudasync testsem",
    .apiVersion = VK_API_VERSION_1_2,
  };
  VkInstanceCreateInfo ici = {
    .sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO,
    .pApplicationInfo = &app,
  };
  uint32_t loader_version = VK_API_VERSION_1_0;
  VkResult r;

  if (vkEnumerateInstanceVersion (&loader_version) != VK_SUCCESS ||
      loader_version < VK_API_VERSION_1_2)
    return g_strdup_printf ("the Vulkan loader supports only Vulkan %u.%u "
        "(1.2 needed)", VK_API_VERSION_MAJOR (loader_version),
        VK_API_VERSION_MINOR (loader_version));
  r = vkCreateInstance (&ici, NULL, &vk.instance);
  if (r != VK_SUCCESS) {
    vk.instance = VK_NULL_HANDLE;
    return g_strdup_printf ("vkCreateInstance failed (VkResult %d)", r);
  }
  return NULL;
}

/* Whether CUDA device 0's Vulkan twin @phys (properties @p) has what the
 * helper needs: NULL, or what it lacks */
static gchar *
vk_check_device (VkPhysicalDevice phys, const VkPhysicalDeviceProperties * p)
{
  VkPhysicalDeviceTimelineSemaphoreFeatures tl_features = {
    .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_TIMELINE_SEMAPHORE_FEATURES,
  };
  VkPhysicalDeviceFeatures2 features = {
    .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2,
    .pNext = &tl_features,
  };

  if (p->apiVersion < VK_API_VERSION_1_2)
    return g_strdup_printf ("Vulkan device \"%s\" supports only Vulkan "
        "%u.%u (1.2 needed)", p->deviceName,
        VK_API_VERSION_MAJOR (p->apiVersion),
        VK_API_VERSION_MINOR (p->apiVersion));
  vkGetPhysicalDeviceFeatures2 (phys, &features);
  if (!tl_features.timelineSemaphore)
    return g_strdup_printf ("Vulkan device \"%s\" has no timeline "
        "semaphores", p->deviceName);
  if (!vk_has_device_extension (phys,
          VK_KHR_EXTERNAL_SEMAPHORE_FD_EXTENSION_NAME))
    return g_strdup_printf ("Vulkan device \"%s\" lacks %s", p->deviceName,
        VK_KHR_EXTERNAL_SEMAPHORE_FD_EXTENSION_NAME);
  if (!vk_can_export (phys, TRUE))
    return g_strdup_printf ("Vulkan device \"%s\" cannot export timeline "
        "semaphores as OPAQUE_FD", p->deviceName);
  return NULL;
}

/* vk.phys: the physical device whose deviceUUID is @cuda_uuid; NULL, or
 * the reason there is none */
static gchar *
vk_pick_device (const guint8 cuda_uuid[16])
{
  uint32_t n_phys = 0, i;
  VkPhysicalDevice *phys;
  GString *seen;
  gchar *reason = NULL, *want;
  VkResult r;

  r = vkEnumeratePhysicalDevices (vk.instance, &n_phys, NULL);
  if (r != VK_SUCCESS || n_phys == 0)
    return g_strdup_printf ("no Vulkan physical device (VkResult %d)", r);
  phys = g_new0 (VkPhysicalDevice, n_phys);
  r = vkEnumeratePhysicalDevices (vk.instance, &n_phys, phys);
  if (r != VK_SUCCESS && r != VK_INCOMPLETE) {
    g_free (phys);
    return g_strdup_printf ("vkEnumeratePhysicalDevices failed "
        "(VkResult %d)", r);
  }
  seen = g_string_new (NULL);
  for (i = 0; i < n_phys && !vk.phys && !reason; i++) {
    VkPhysicalDeviceIDProperties id_props = {
      .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_ID_PROPERTIES,
    };
    VkPhysicalDeviceProperties2 props = {
      .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2,
      .pNext = &id_props,
    };
    gchar *uuid;

    vkGetPhysicalDeviceProperties2 (phys[i], &props);
    uuid = uuid_to_string (id_props.deviceUUID);
    g_string_append_printf (seen, "%s\"%s\" (%s)", seen->len ? ", " : "",
        props.properties.deviceName, uuid);
    g_free (uuid);
    if (memcmp (id_props.deviceUUID, cuda_uuid, 16) != 0)
      continue;
    /* this is CUDA device 0 */
    reason = vk_check_device (phys[i], &props.properties);
    if (reason)
      break;
    vk.phys = phys[i];
    vk.binary_exportable = vk_can_export (phys[i], FALSE);
    vk.name = g_strdup_printf ("Vulkan (%s)", props.properties.deviceName);
  }
  if (!vk.phys && !reason) {
    want = uuid_to_string (cuda_uuid);
    reason = g_strdup_printf ("no Vulkan device has CUDA device 0's UUID %s "
        "(Vulkan devices: %s)", want, seen->str);
    g_free (want);
  }
  g_string_free (seen, TRUE);
  g_free (phys);
  return reason;
}

/* vk.device and its queue and entry points, on vk.phys; NULL, or the
 * reason it could not */
static gchar *
vk_open_device (void)
{
  const char *exts[2];
  uint32_t n_exts = 0;
  float prio = 1.0f;
  VkDeviceQueueCreateInfo qci = {
    .sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO,
    .queueFamilyIndex = 0,
    .queueCount = 1,
    .pQueuePriorities = &prio,
  };
  VkPhysicalDeviceTimelineSemaphoreFeatures tl_enable = {
    .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_TIMELINE_SEMAPHORE_FEATURES,
    .timelineSemaphore = VK_TRUE,
  };
  VkDeviceCreateInfo dci = {
    .sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO,
    .pNext = &tl_enable,
    .queueCreateInfoCount = 1,
    .pQueueCreateInfos = &qci,
  };
  VkResult r;

  exts[n_exts++] = VK_KHR_EXTERNAL_SEMAPHORE_FD_EXTENSION_NAME;
  if (vk_has_device_extension (vk.phys,
          VK_KHR_EXTERNAL_MEMORY_FD_EXTENSION_NAME))
    exts[n_exts++] = VK_KHR_EXTERNAL_MEMORY_FD_EXTENSION_NAME;
  dci.enabledExtensionCount = n_exts;
  dci.ppEnabledExtensionNames = exts;

  r = vkCreateDevice (vk.phys, &dci, NULL, &vk.device);
  if (r != VK_SUCCESS) {
    vk.device = VK_NULL_HANDLE;
    return g_strdup_printf ("vkCreateDevice on %s failed (VkResult %d)",
        vk.name, r);
  }
  vkGetDeviceQueue (vk.device, 0, 0, &vk.queue);
  g_mutex_init (&vk.queue_lock);

  vk.get_semaphore_fd = (PFN_vkGetSemaphoreFdKHR)
      vkGetDeviceProcAddr (vk.device, "vkGetSemaphoreFdKHR");
  vk.signal_semaphore = (PFN_vkSignalSemaphore)
      vkGetDeviceProcAddr (vk.device, "vkSignalSemaphore");
  vk.wait_semaphores = (PFN_vkWaitSemaphores)
      vkGetDeviceProcAddr (vk.device, "vkWaitSemaphores");
  vk.get_counter_value = (PFN_vkGetSemaphoreCounterValue)
      vkGetDeviceProcAddr (vk.device, "vkGetSemaphoreCounterValue");
  if (!vk.get_semaphore_fd || !vk.signal_semaphore || !vk.wait_semaphores
      || !vk.get_counter_value)
    return g_strdup_printf ("%s lacks a semaphore entry point", vk.name);
  return NULL;
}

/* Opens the Vulkan device matching @cuda_uuid. Returns NULL on success, or
 * the reason it could not; *name: "Vulkan (<device name>)", owned here, or
 * NULL. */
gchar *
testsem_vk_setup (const guint8 cuda_uuid[16], const gchar ** name)
{
  gchar *reason;

  reason = vk_create_instance ();
  if (!reason)
    reason = vk_pick_device (cuda_uuid);
  if (!reason)
    reason = vk_open_device ();
  if (reason) {
    if (vk.device)
      vkDestroyDevice (vk.device, NULL);
    if (vk.instance)
      vkDestroyInstance (vk.instance, NULL);
    vk.device = VK_NULL_HANDLE;
    vk.instance = VK_NULL_HANDLE;
    vk.phys = VK_NULL_HANDLE;
    g_clear_pointer (&vk.name, g_free);
  }
  *name = vk.name;
  return reason;
}

/* ------------------------------------------------------------------ */
/* semaphores                                                          */
/* ------------------------------------------------------------------ */

/* s->lock held. Waits for the semaphore's last submission to finish. */
static gboolean
vk_sem_idle (TestSem * s, guint64 timeout_ns)
{
  VkResult r;

  if (s->pending == PENDING_NONE)
    return TRUE;
  r = vkWaitForFences (vk.device, 1, &s->fence, VK_TRUE, timeout_ns);
  if (r != VK_SUCCESS)
    return FALSE;
  vkResetFences (vk.device, 1, &s->fence);
  s->pending = PENDING_NONE;
  return TRUE;
}

/* s->lock held. */
static gboolean
vk_submit (TestSem * s, gboolean wait)
{
  VkPipelineStageFlags stage = VK_PIPELINE_STAGE_ALL_COMMANDS_BIT;
  VkSubmitInfo si = {
    .sType = VK_STRUCTURE_TYPE_SUBMIT_INFO,
  };
  VkResult r;

  if (wait) {
    si.waitSemaphoreCount = 1;
    si.pWaitSemaphores = &s->sem;
    si.pWaitDstStageMask = &stage;
  } else {
    si.signalSemaphoreCount = 1;
    si.pSignalSemaphores = &s->sem;
  }

  g_mutex_lock (&vk.queue_lock);
  r = vkQueueSubmit (vk.queue, 1, &si, s->fence);
  g_mutex_unlock (&vk.queue_lock);
  if (r != VK_SUCCESS) {
    g_warning ("testsem: vkQueueSubmit (%s a binary semaphore) failed "
        "(VkResult %d)", wait ? "waiting on" : "signalling", r);
    return FALSE;
  }
  s->pending = wait ? PENDING_WAIT : PENDING_SIGNAL;
  return TRUE;
}

gboolean
testsem_vk_sem_new (TestSem * s, guint64 initial_value)
{
  VkExportSemaphoreCreateInfo export_info = {
    .sType = VK_STRUCTURE_TYPE_EXPORT_SEMAPHORE_CREATE_INFO,
    .handleTypes = VK_EXTERNAL_SEMAPHORE_HANDLE_TYPE_OPAQUE_FD_BIT,
  };
  VkSemaphoreTypeCreateInfo type_info = {
    .sType = VK_STRUCTURE_TYPE_SEMAPHORE_TYPE_CREATE_INFO,
    .pNext = &export_info,
    .semaphoreType = VK_SEMAPHORE_TYPE_TIMELINE,
    .initialValue = initial_value,
  };
  VkSemaphoreCreateInfo sci = {
    .sType = VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO,
    .pNext =
        s->timeline ? (const void *) &type_info : (const void *) &export_info,
  };
  VkFenceCreateInfo fci = {
    .sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO,
  };
  VkResult r;

  if (!s->timeline && !vk.binary_exportable) {
    g_warning ("testsem: %s cannot export binary semaphores as OPAQUE_FD",
        vk.name);
    return FALSE;
  }

  r = vkCreateSemaphore (vk.device, &sci, NULL, &s->sem);
  if (r != VK_SUCCESS) {
    g_warning ("testsem: vkCreateSemaphore (%s, exportable as OPAQUE_FD) "
        "failed (VkResult %d)", s->timeline ? "timeline" : "binary", r);
    s->sem = VK_NULL_HANDLE;
    return FALSE;
  }
  g_mutex_init (&s->lock);
  s->pending = PENDING_NONE;
  if (!s->timeline) {
    r = vkCreateFence (vk.device, &fci, NULL, &s->fence);
    if (r != VK_SUCCESS) {
      g_warning ("testsem: vkCreateFence failed (VkResult %d)", r);
      vkDestroySemaphore (vk.device, s->sem, NULL);
      g_mutex_clear (&s->lock);
      return FALSE;
    }
    if (initial_value != 0) {
      gboolean ok;

      g_mutex_lock (&s->lock);
      ok = vk_submit (s, FALSE);
      g_mutex_unlock (&s->lock);
      if (!ok) {
        vkDestroyFence (vk.device, s->fence, NULL);
        vkDestroySemaphore (vk.device, s->sem, NULL);
        g_mutex_clear (&s->lock);
        return FALSE;
      }
    }
  }
  return TRUE;
}

int
testsem_vk_export_fd (TestSem * s)
{
  VkSemaphoreGetFdInfoKHR info = {
    .sType = VK_STRUCTURE_TYPE_SEMAPHORE_GET_FD_INFO_KHR,
    .semaphore = s->sem,
    .handleType = VK_EXTERNAL_SEMAPHORE_HANDLE_TYPE_OPAQUE_FD_BIT,
  };
  int fd = -1;
  VkResult r = vk.get_semaphore_fd (vk.device, &info, &fd);

  if (r != VK_SUCCESS) {
    g_warning ("testsem: vkGetSemaphoreFdKHR (OPAQUE_FD) failed "
        "(VkResult %d)", r);
    fd = -1;
  }
  return fd;
}

gboolean
testsem_vk_host_signal (TestSem * s, guint64 value)
{
  gboolean ok;

  if (s->timeline) {
    VkSemaphoreSignalInfo info = {
      .sType = VK_STRUCTURE_TYPE_SEMAPHORE_SIGNAL_INFO,
      .semaphore = s->sem,
      .value = value,
    };
    guint64 cur = 0;
    VkResult r;

    /* a smaller value is invalid usage in Vulkan: refuse it, as the
     * simulator does */
    if (vk.get_counter_value (vk.device, s->sem, &cur) == VK_SUCCESS &&
        value <= cur) {
      g_warning ("testsem: timeline signal %" G_GUINT64_FORMAT " is not "
          "greater than the current value %" G_GUINT64_FORMAT, value, cur);
      return FALSE;
    }
    r = vk.signal_semaphore (vk.device, &info);
    if (r != VK_SUCCESS) {
      g_warning ("testsem: vkSignalSemaphore (%" G_GUINT64_FORMAT ") failed "
          "(VkResult %d)", value, r);
      return FALSE;
    }
    return TRUE;
  }

  g_mutex_lock (&s->lock);
  if (s->pending == PENDING_WAIT && !vk_sem_idle (s, 0)) {
    g_mutex_unlock (&s->lock);
    g_warning ("testsem: a host wait on this binary semaphore is still "
        "pending; signalling it now would be a wait-before-signal");
    return FALSE;
  }
  ok = vk_sem_idle (s, TIMEOUT_1S) && vk_submit (s, FALSE);
  g_mutex_unlock (&s->lock);
  return ok;
}

/* timeline semaphores only */
guint64
testsem_vk_get_value (TestSem * s)
{
  guint64 v = 0;
  VkResult r = vk.get_counter_value (vk.device, s->sem, &v);

  if (r != VK_SUCCESS)
    g_warning ("testsem: vkGetSemaphoreCounterValue failed (VkResult %d)", r);
  return v;
}

gboolean
testsem_vk_host_wait (TestSem * s, guint64 value, guint64 timeout_ns)
{
  gboolean ok;

  if (s->timeline) {
    VkSemaphoreWaitInfo info = {
      .sType = VK_STRUCTURE_TYPE_SEMAPHORE_WAIT_INFO,
      .semaphoreCount = 1,
      .pSemaphores = &s->sem,
      .pValues = &value,
    };
    VkResult r = vk.wait_semaphores (vk.device, &info, timeout_ns);

    if (r == VK_SUCCESS)
      return TRUE;
    if (r != VK_TIMEOUT)
      g_warning ("testsem: vkWaitSemaphores failed (VkResult %d)", r);
    return FALSE;
  }

  /* binary: a queue submission that waits on it (consuming the signal),
   * with a fence to wait for on the host. After a timeout the submission
   * stays pending, and the next host wait waits for the same fence. */
  g_mutex_lock (&s->lock);
  if (s->pending != PENDING_WAIT) {
    if (!vk_sem_idle (s, TIMEOUT_1S) || !vk_submit (s, TRUE)) {
      g_mutex_unlock (&s->lock);
      return FALSE;
    }
  }
  ok = vk_sem_idle (s, timeout_ns);
  g_mutex_unlock (&s->lock);
  return ok;
}

/* FALSE, with a warning, when a pending submission still uses the
 * semaphore: it cannot be destroyed and is leaked */
gboolean
testsem_vk_sem_free (TestSem * s)
{
  gboolean idle;

  g_mutex_lock (&s->lock);
  idle = vk_sem_idle (s, TIMEOUT_1S);
  g_mutex_unlock (&s->lock);
  if (!idle) {
    /* destroying a semaphore a pending submission uses is not allowed */
    g_warning ("testsem: a queue submission on a binary semaphore is still "
        "pending (a host wait whose signal never came); leaking it");
    return FALSE;
  }
  if (s->fence)
    vkDestroyFence (vk.device, s->fence, NULL);
  vkDestroySemaphore (vk.device, s->sem, NULL);
  g_mutex_clear (&s->lock);
  return TRUE;
}

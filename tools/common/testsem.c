/* gst-cudasync
 * Copyright (C) 2026 gst-cudasync developers
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * testsem: see testsem.h.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#include "testsem.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include <cuda.h>

#ifdef TESTSEM_HAVE_VULKAN
#include <vulkan/vulkan.h>
#endif

/* ---- the simulator's exporter API (see tests/cudasim/cudasim.h) ---- */

typedef int (*SimSemCreate) (int type, guint64 initial_value);
typedef int (*SimSemExportFd) (int id);
typedef int (*SimSemHostSignal) (int id, guint64 value);
typedef guint64 (*SimSemGetValue) (int id);
typedef int (*SimSemHostWait) (int id, guint64 value, guint64 timeout_ns);
typedef void (*SimSemUnref) (int id);

/* ---- CUDA driver entry points used to find the GPU ---- */

typedef CUresult (*TsCuInitFunc) (unsigned int flags);
typedef CUresult (*TsCuDeviceGetCountFunc) (int *count);
typedef CUresult (*TsCuDeviceGetFunc) (CUdevice * dev, int ordinal);
typedef CUresult (*TsCuDeviceGetUuidFunc) (CUuuid * uuid, CUdevice dev);

typedef struct
{
  TestSemBackend backend;
  gchar *name;

  /* SIM */
  SimSemCreate sim_create;
  SimSemExportFd sim_export_fd;
  SimSemHostSignal sim_signal;
  SimSemGetValue sim_get_value;
  SimSemHostWait sim_wait;
  SimSemUnref sim_unref;

#ifdef TESTSEM_HAVE_VULKAN
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
#endif
} Backend;

static Backend be;

typedef enum
{
  PENDING_NONE,
  PENDING_SIGNAL,
  PENDING_WAIT,
} PendingKind;

struct _TestSem
{
  TestSemBackend backend;
  gboolean timeline;

  int sim_id;

#ifdef TESTSEM_HAVE_VULKAN
  VkSemaphore sem;
  /* binary semaphores: the last queue submission that used the semaphore */
  GMutex lock;
  VkFence fence;
  PendingKind pending;
#endif
};

#define TIMEOUT_1S (G_GUINT64_CONSTANT (1000000000))

/* ------------------------------------------------------------------ */
/* Vulkan set-up                                                       */
/* ------------------------------------------------------------------ */

#ifdef TESTSEM_HAVE_VULKAN

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

/* be.instance, for Vulkan 1.2; NULL, or the reason it could not */
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
  r = vkCreateInstance (&ici, NULL, &be.instance);
  if (r != VK_SUCCESS) {
    be.instance = VK_NULL_HANDLE;
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

/* be.phys: the physical device whose deviceUUID is @cuda_uuid; NULL, or
 * the reason there is none */
static gchar *
vk_pick_device (const guint8 cuda_uuid[16])
{
  uint32_t n_phys = 0, i;
  VkPhysicalDevice *phys;
  GString *seen;
  gchar *reason = NULL, *want;
  VkResult r;

  r = vkEnumeratePhysicalDevices (be.instance, &n_phys, NULL);
  if (r != VK_SUCCESS || n_phys == 0)
    return g_strdup_printf ("no Vulkan physical device (VkResult %d)", r);
  phys = g_new0 (VkPhysicalDevice, n_phys);
  r = vkEnumeratePhysicalDevices (be.instance, &n_phys, phys);
  if (r != VK_SUCCESS && r != VK_INCOMPLETE) {
    g_free (phys);
    return g_strdup_printf ("vkEnumeratePhysicalDevices failed "
        "(VkResult %d)", r);
  }
  seen = g_string_new (NULL);
  for (i = 0; i < n_phys && !be.phys && !reason; i++) {
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
    be.phys = phys[i];
    be.binary_exportable = vk_can_export (phys[i], FALSE);
    be.name = g_strdup_printf ("Vulkan (%s)", props.properties.deviceName);
  }
  if (!be.phys && !reason) {
    want = uuid_to_string (cuda_uuid);
    reason = g_strdup_printf ("no Vulkan device has CUDA device 0's UUID %s "
        "(Vulkan devices: %s)", want, seen->str);
    g_free (want);
  }
  g_string_free (seen, TRUE);
  g_free (phys);
  return reason;
}

/* be.device and its queue and entry points, on be.phys; NULL, or the
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
  if (vk_has_device_extension (be.phys,
          VK_KHR_EXTERNAL_MEMORY_FD_EXTENSION_NAME))
    exts[n_exts++] = VK_KHR_EXTERNAL_MEMORY_FD_EXTENSION_NAME;
  dci.enabledExtensionCount = n_exts;
  dci.ppEnabledExtensionNames = exts;

  r = vkCreateDevice (be.phys, &dci, NULL, &be.device);
  if (r != VK_SUCCESS) {
    be.device = VK_NULL_HANDLE;
    return g_strdup_printf ("vkCreateDevice on %s failed (VkResult %d)",
        be.name, r);
  }
  vkGetDeviceQueue (be.device, 0, 0, &be.queue);
  g_mutex_init (&be.queue_lock);

  be.get_semaphore_fd = (PFN_vkGetSemaphoreFdKHR)
      vkGetDeviceProcAddr (be.device, "vkGetSemaphoreFdKHR");
  be.signal_semaphore = (PFN_vkSignalSemaphore)
      vkGetDeviceProcAddr (be.device, "vkSignalSemaphore");
  be.wait_semaphores = (PFN_vkWaitSemaphores)
      vkGetDeviceProcAddr (be.device, "vkWaitSemaphores");
  be.get_counter_value = (PFN_vkGetSemaphoreCounterValue)
      vkGetDeviceProcAddr (be.device, "vkGetSemaphoreCounterValue");
  if (!be.get_semaphore_fd || !be.signal_semaphore || !be.wait_semaphores
      || !be.get_counter_value)
    return g_strdup_printf ("%s lacks a semaphore entry point", be.name);
  return NULL;
}

/* Opens the Vulkan device matching @cuda_uuid. Returns NULL on success, or
 * the reason it could not. */
static gchar *
vk_setup (const guint8 cuda_uuid[16])
{
  gchar *reason;

  reason = vk_create_instance ();
  if (!reason)
    reason = vk_pick_device (cuda_uuid);
  if (!reason)
    reason = vk_open_device ();
  if (reason) {
    if (be.device)
      vkDestroyDevice (be.device, NULL);
    if (be.instance)
      vkDestroyInstance (be.instance, NULL);
    be.device = VK_NULL_HANDLE;
    be.instance = VK_NULL_HANDLE;
    be.phys = VK_NULL_HANDLE;
    g_clear_pointer (&be.name, g_free);
  }
  return reason;
}

#endif /* TESTSEM_HAVE_VULKAN */

/* ------------------------------------------------------------------ */
/* backend choice                                                      */
/* ------------------------------------------------------------------ */

/* Returns NULL when a backend was chosen, else the reason. */
static gchar *
choose_backend (void)
{
  void *lib;

  /* The same library GStreamer's CUDA loader opens (by soname), so the
   * simulator's objects are shared with the pipeline. Never closed. */
  lib = dlopen ("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!lib)
    return g_strdup_printf ("libcuda.so.1 could not be loaded (%s)",
        dlerror ());

  be.sim_create = (SimSemCreate) dlsym (lib, "cudasim_sem_create");
  if (be.sim_create) {
    be.sim_export_fd = (SimSemExportFd) dlsym (lib, "cudasim_sem_export_fd");
    be.sim_signal = (SimSemHostSignal) dlsym (lib, "cudasim_sem_host_signal");
    be.sim_get_value = (SimSemGetValue) dlsym (lib, "cudasim_sem_get_value");
    be.sim_wait = (SimSemHostWait) dlsym (lib, "cudasim_sem_host_wait");
    be.sim_unref = (SimSemUnref) dlsym (lib, "cudasim_sem_unref");
    if (!be.sim_export_fd || !be.sim_signal || !be.sim_get_value ||
        !be.sim_wait || !be.sim_unref)
      return g_strdup ("the simulated CUDA driver lacks part of the "
          "cudasim_sem_* API");
    be.backend = TEST_SEM_BACKEND_SIM;
    be.name = g_strdup ("simulated CUDA driver");
    return NULL;
  }

#ifdef TESTSEM_HAVE_VULKAN
  {
    TsCuInitFunc cu_init = (TsCuInitFunc) dlsym (lib, "cuInit");
    TsCuDeviceGetCountFunc cu_count = (TsCuDeviceGetCountFunc) dlsym (lib,
        "cuDeviceGetCount");
    TsCuDeviceGetFunc cu_get = (TsCuDeviceGetFunc) dlsym (lib, "cuDeviceGet");
    TsCuDeviceGetUuidFunc cu_uuid = (TsCuDeviceGetUuidFunc) dlsym (lib,
        "cuDeviceGetUuid_v2");
    CUuuid uuid;
    CUdevice dev;
    CUresult r;
    int count = 0;
    gchar *reason;

    if (!cu_uuid)
      cu_uuid = (TsCuDeviceGetUuidFunc) dlsym (lib, "cuDeviceGetUuid");
    if (!cu_init || !cu_count || !cu_get || !cu_uuid)
      return g_strdup ("libcuda.so.1 lacks cuInit, cuDeviceGetCount, "
          "cuDeviceGet or cuDeviceGetUuid");
    if ((r = cu_init (0)) != CUDA_SUCCESS)
      return g_strdup_printf ("cuInit failed (CUresult %d)", (int) r);
    if ((r = cu_count (&count)) != CUDA_SUCCESS || count < 1)
      return g_strdup_printf ("no CUDA device (cuDeviceGetCount: CUresult "
          "%d, %d devices)", (int) r, count);
    if ((r = cu_get (&dev, 0)) != CUDA_SUCCESS)
      return g_strdup_printf ("cuDeviceGet(0) failed (CUresult %d)", (int) r);
    memset (&uuid, 0, sizeof (uuid));
    if ((r = cu_uuid (&uuid, dev)) != CUDA_SUCCESS)
      return g_strdup_printf ("cuDeviceGetUuid failed (CUresult %d)", (int) r);

    reason = vk_setup ((const guint8 *) uuid.bytes);
    if (reason)
      return reason;
    be.backend = TEST_SEM_BACKEND_VULKAN;
    return NULL;
  }
#else
  return g_strdup ("the CUDA driver is not the simulator, and this build "
      "has no Vulkan support (libvulkan-dev was not found)");
#endif
}

TestSemBackend
test_sem_backend (void)
{
  static gsize done = 0;

  if (g_once_init_enter (&done)) {
    gchar *reason = choose_backend ();

    if (reason) {
      be.backend = TEST_SEM_BACKEND_NONE;
      g_free (be.name);
      be.name = g_strdup_printf ("none: %s", reason);
      g_free (reason);
    }
    g_once_init_leave (&done, 1);
  }
  return be.backend;
}

const char *
test_sem_backend_name (void)
{
  test_sem_backend ();
  return be.name;
}

/* ------------------------------------------------------------------ */
/* semaphores                                                          */
/* ------------------------------------------------------------------ */

#ifdef TESTSEM_HAVE_VULKAN

/* s->lock held. Waits for the semaphore's last submission to finish. */
static gboolean
vk_sem_idle (TestSem * s, guint64 timeout_ns)
{
  VkResult r;

  if (s->pending == PENDING_NONE)
    return TRUE;
  r = vkWaitForFences (be.device, 1, &s->fence, VK_TRUE, timeout_ns);
  if (r != VK_SUCCESS)
    return FALSE;
  vkResetFences (be.device, 1, &s->fence);
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

  g_mutex_lock (&be.queue_lock);
  r = vkQueueSubmit (be.queue, 1, &si, s->fence);
  g_mutex_unlock (&be.queue_lock);
  if (r != VK_SUCCESS) {
    g_warning ("testsem: vkQueueSubmit (%s a binary semaphore) failed "
        "(VkResult %d)", wait ? "waiting on" : "signalling", r);
    return FALSE;
  }
  s->pending = wait ? PENDING_WAIT : PENDING_SIGNAL;
  return TRUE;
}

static gboolean
vk_sem_new (TestSem * s, guint64 initial_value)
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

  if (!s->timeline && !be.binary_exportable) {
    g_warning ("testsem: %s cannot export binary semaphores as OPAQUE_FD",
        be.name);
    return FALSE;
  }

  r = vkCreateSemaphore (be.device, &sci, NULL, &s->sem);
  if (r != VK_SUCCESS) {
    g_warning ("testsem: vkCreateSemaphore (%s, exportable as OPAQUE_FD) "
        "failed (VkResult %d)", s->timeline ? "timeline" : "binary", r);
    s->sem = VK_NULL_HANDLE;
    return FALSE;
  }
  g_mutex_init (&s->lock);
  s->pending = PENDING_NONE;
  if (!s->timeline) {
    r = vkCreateFence (be.device, &fci, NULL, &s->fence);
    if (r != VK_SUCCESS) {
      g_warning ("testsem: vkCreateFence failed (VkResult %d)", r);
      vkDestroySemaphore (be.device, s->sem, NULL);
      g_mutex_clear (&s->lock);
      return FALSE;
    }
    if (initial_value != 0) {
      gboolean ok;

      g_mutex_lock (&s->lock);
      ok = vk_submit (s, FALSE);
      g_mutex_unlock (&s->lock);
      if (!ok) {
        vkDestroyFence (be.device, s->fence, NULL);
        vkDestroySemaphore (be.device, s->sem, NULL);
        g_mutex_clear (&s->lock);
        return FALSE;
      }
    }
  }
  return TRUE;
}

#endif /* TESTSEM_HAVE_VULKAN */

TestSem *
test_sem_new (gboolean timeline, guint64 initial_value)
{
  TestSem *s;

  switch (test_sem_backend ()) {
    case TEST_SEM_BACKEND_SIM:
      s = g_new0 (TestSem, 1);
      s->backend = TEST_SEM_BACKEND_SIM;
      s->timeline = !!timeline;
      s->sim_id = be.sim_create (timeline ? 1 : 0, initial_value);
      if (s->sim_id < 0) {
        g_warning ("testsem: cudasim_sem_create (%s, %" G_GUINT64_FORMAT
            ") failed", timeline ? "timeline" : "binary", initial_value);
        g_free (s);
        return NULL;
      }
      return s;
#ifdef TESTSEM_HAVE_VULKAN
    case TEST_SEM_BACKEND_VULKAN:
      s = g_new0 (TestSem, 1);
      s->backend = TEST_SEM_BACKEND_VULKAN;
      s->timeline = !!timeline;
      if (!vk_sem_new (s, initial_value)) {
        g_free (s);
        return NULL;
      }
      return s;
#endif
    default:
      g_warning ("testsem: cannot create a semaphore: %s", be.name);
      return NULL;
  }
}

gboolean
test_sem_is_timeline (TestSem * s)
{
  g_return_val_if_fail (s != NULL, FALSE);
  return s->timeline;
}

int
test_sem_export_fd (TestSem * s)
{
  int fd = -1;

  g_return_val_if_fail (s != NULL, -1);

  if (s->backend == TEST_SEM_BACKEND_SIM) {
    fd = be.sim_export_fd (s->sim_id);
    if (fd < 0)
      g_warning ("testsem: cudasim_sem_export_fd (%d) failed", s->sim_id);
  }
#ifdef TESTSEM_HAVE_VULKAN
  else if (s->backend == TEST_SEM_BACKEND_VULKAN) {
    VkSemaphoreGetFdInfoKHR info = {
      .sType = VK_STRUCTURE_TYPE_SEMAPHORE_GET_FD_INFO_KHR,
      .semaphore = s->sem,
      .handleType = VK_EXTERNAL_SEMAPHORE_HANDLE_TYPE_OPAQUE_FD_BIT,
    };
    VkResult r = be.get_semaphore_fd (be.device, &info, &fd);

    if (r != VK_SUCCESS) {
      g_warning ("testsem: vkGetSemaphoreFdKHR (OPAQUE_FD) failed "
          "(VkResult %d)", r);
      fd = -1;
    }
  }
#endif
  return fd;
}

gboolean
test_sem_host_signal (TestSem * s, guint64 value)
{
  g_return_val_if_fail (s != NULL, FALSE);

  if (s->backend == TEST_SEM_BACKEND_SIM)
    return be.sim_signal (s->sim_id, value) == 0;

#ifdef TESTSEM_HAVE_VULKAN
  if (s->backend == TEST_SEM_BACKEND_VULKAN) {
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
      if (be.get_counter_value (be.device, s->sem, &cur) == VK_SUCCESS &&
          value <= cur) {
        g_warning ("testsem: timeline signal %" G_GUINT64_FORMAT " is not "
            "greater than the current value %" G_GUINT64_FORMAT, value, cur);
        return FALSE;
      }
      r = be.signal_semaphore (be.device, &info);
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
#endif
  return FALSE;
}

guint64
test_sem_get_value (TestSem * s)
{
  g_return_val_if_fail (s != NULL, 0);

  if (s->backend == TEST_SEM_BACKEND_SIM)
    return be.sim_get_value (s->sim_id);

#ifdef TESTSEM_HAVE_VULKAN
  if (s->backend == TEST_SEM_BACKEND_VULKAN && s->timeline) {
    guint64 v = 0;
    VkResult r = be.get_counter_value (be.device, s->sem, &v);

    if (r != VK_SUCCESS)
      g_warning ("testsem: vkGetSemaphoreCounterValue failed (VkResult %d)", r);
    return v;
  }
#endif
  return 0;
}

gboolean
test_sem_host_wait (TestSem * s, guint64 value, guint64 timeout_ns)
{
  g_return_val_if_fail (s != NULL, FALSE);

  if (s->backend == TEST_SEM_BACKEND_SIM)
    return be.sim_wait (s->sim_id, value, timeout_ns) == 0;

#ifdef TESTSEM_HAVE_VULKAN
  if (s->backend == TEST_SEM_BACKEND_VULKAN) {
    gboolean ok;

    if (s->timeline) {
      VkSemaphoreWaitInfo info = {
        .sType = VK_STRUCTURE_TYPE_SEMAPHORE_WAIT_INFO,
        .semaphoreCount = 1,
        .pSemaphores = &s->sem,
        .pValues = &value,
      };
      VkResult r = be.wait_semaphores (be.device, &info, timeout_ns);

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
#endif
  return FALSE;
}

void
test_sem_free (TestSem * s)
{
  if (!s)
    return;

  if (s->backend == TEST_SEM_BACKEND_SIM)
    be.sim_unref (s->sim_id);
#ifdef TESTSEM_HAVE_VULKAN
  else if (s->backend == TEST_SEM_BACKEND_VULKAN) {
    gboolean idle;

    g_mutex_lock (&s->lock);
    idle = vk_sem_idle (s, TIMEOUT_1S);
    g_mutex_unlock (&s->lock);
    if (!idle) {
      /* destroying a semaphore a pending submission uses is not allowed */
      g_warning ("testsem: a queue submission on a binary semaphore is still "
          "pending (a host wait whose signal never came); leaking it");
      return;
    }
    if (s->fence)
      vkDestroyFence (be.device, s->fence, NULL);
    vkDestroySemaphore (be.device, s->sem, NULL);
    g_mutex_clear (&s->lock);
  }
#endif
  g_free (s);
}

int
test_sem_foreign_fd (void)
{
  int fd = open ("/dev/null", O_RDWR | O_CLOEXEC);

  if (fd < 0)
    g_warning ("testsem: cannot open /dev/null: %s", g_strerror (errno));
  return fd;
}

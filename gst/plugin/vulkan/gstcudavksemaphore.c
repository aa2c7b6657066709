/* gst-cudasync
 * Copyright (C) 2026 gst-cudasync developers
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Semaphores exported by Vulkan and imported into CUDA: one timeline
 * semaphore per interop (GStreamer 1.24+), else one binary semaphore per
 * pooled frame or staging slot; the interop's choice between them and the
 * CPU fallback. A part of GstCudaVkInterop (gstcudavkinterop.h).
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstcudavkinterop-private.h"
#include <gst/cuda/cuda-gst.h>
#include <unistd.h>

GST_DEBUG_CATEGORY_EXTERN (gst_cuda_vk_debug);
#define GST_CAT_DEFAULT gst_cuda_vk_debug

/* Whether the Vulkan device has timeline semaphores enabled. Since 1.24
 * GstVulkanDevice enables every feature the physical device has, among
 * them timelineSemaphore (Vulkan 1.2, or VK_KHR_timeline_semaphore); the
 * 1.22 one enables none. */
static gboolean
timeline_supported (GstCudaVkInterop * self)
{
  return gst_cuda_vk_compat_timeline_enabled (self->device,
      self->device->instance);
}

/* Whether Vulkan can export a semaphore of @type as an opaque fd */
static gboolean
can_export (GstCudaVkInterop * self, VkSemaphoreType type)
{
  PFN_vkGetPhysicalDeviceExternalSemaphoreProperties get_props;
  VkSemaphoreTypeCreateInfo type_info = {
    .sType = VK_STRUCTURE_TYPE_SEMAPHORE_TYPE_CREATE_INFO,
    .semaphoreType = type,
  };
  VkPhysicalDeviceExternalSemaphoreInfo info = {
    .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_EXTERNAL_SEMAPHORE_INFO,
    .pNext = type == VK_SEMAPHORE_TYPE_TIMELINE ? &type_info : NULL,
    .handleType = VK_EXTERNAL_SEMAPHORE_HANDLE_TYPE_OPAQUE_FD_BIT,
  };
  VkExternalSemaphoreProperties props = {
    .sType = VK_STRUCTURE_TYPE_EXTERNAL_SEMAPHORE_PROPERTIES,
  };

  get_props = gst_vulkan_instance_get_proc_address (self->device->instance,
      "vkGetPhysicalDeviceExternalSemaphoreProperties");
  if (!get_props)
    get_props = gst_vulkan_instance_get_proc_address (self->device->instance,
        "vkGetPhysicalDeviceExternalSemaphorePropertiesKHR");
  if (!get_props)
    return FALSE;
  get_props (self->device->physical_device->device, &info, &props);
  return (props.externalSemaphoreFeatures &
      VK_EXTERNAL_SEMAPHORE_FEATURE_EXPORTABLE_BIT) != 0;
}

/* Creates a semaphore exportable as an opaque fd (a timeline one, value 0,
 * when @timeline) and imports it into the interop's CUDA context. Leaves
 * both NULL (and says why in the debug log) when Vulkan cannot export it
 * or CUDA cannot import it. */
static void
export_semaphore (GstCudaVkInterop * self, gboolean timeline,
    VkSemaphore * vk_sem, GstCudaSemaphore ** sem)
{
  VkSemaphoreTypeCreateInfo type_info = {
    .sType = VK_STRUCTURE_TYPE_SEMAPHORE_TYPE_CREATE_INFO,
    .semaphoreType = VK_SEMAPHORE_TYPE_TIMELINE,.initialValue = 0,
  };
  VkExportSemaphoreCreateInfo export_info = {
    .sType = VK_STRUCTURE_TYPE_EXPORT_SEMAPHORE_CREATE_INFO,
    .pNext = timeline ? &type_info : NULL,
    .handleTypes = VK_EXTERNAL_SEMAPHORE_HANDLE_TYPE_OPAQUE_FD_BIT,
  };
  VkSemaphoreCreateInfo ci = {
    .sType = VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO,.pNext = &export_info,
  };
  VkSemaphoreGetFdInfoKHR fd_info = {
    .sType = VK_STRUCTURE_TYPE_SEMAPHORE_GET_FD_INFO_KHR,
    .handleType = VK_EXTERNAL_SEMAPHORE_HANDLE_TYPE_OPAQUE_FD_BIT,
  };
  const gchar *what = timeline ? "timeline" : "binary";
  GError *err = NULL;
  VkResult res;
  int fd = -1;

  *vk_sem = VK_NULL_HANDLE;
  *sem = NULL;
  if (!self->get_semaphore_fd)
    return;
  /* binary: 1.22's GstVulkanDevice enables no device features, so no
   * timeline semaphores on a device it opened (see gstcudavksemaphore.h) */
  if (!can_export (self, timeline ? VK_SEMAPHORE_TYPE_TIMELINE :
          VK_SEMAPHORE_TYPE_BINARY)) {
    GST_INFO_OBJECT (self, "Vulkan cannot export %s opaque-fd "
        "semaphores", what);
    return;
  }

  res = vkCreateSemaphore (self->device->device, &ci, NULL, vk_sem);
  if (res == VK_SUCCESS)
    gst_cuda_vk_namer_name (&self->namer, VK_OBJECT_TYPE_SEMAPHORE,
        (guint64) * vk_sem, "exported semaphore");
  if (res != VK_SUCCESS) {
    GST_WARNING_OBJECT (self, "vkCreateSemaphore (%s) failed: %d", what, res);
    *vk_sem = VK_NULL_HANDLE;
    return;
  }
  fd_info.semaphore = *vk_sem;
  res = self->get_semaphore_fd (self->device->device, &fd_info, &fd);
  if (res != VK_SUCCESS || fd < 0) {
    GST_INFO_OBJECT (self, "vkGetSemaphoreFdKHR (%s) failed: %d", what, res);
    goto fail;
  }
  *sem = gst_cuda_semaphore_import_fd (self->cuda, timeline ?
      GST_CUDA_SEMAPHORE_HANDLE_TYPE_TIMELINE_FD :
      GST_CUDA_SEMAPHORE_HANDLE_TYPE_OPAQUE_FD, fd, &err);
  if (!*sem) {
    /* on failure the fd is still ours */
    GST_WARNING_OBJECT (self, "Could not import the Vulkan %s "
        "semaphore into CUDA: %s", what, err->message);
    g_clear_error (&err);
    close (fd);
    goto fail;
  }
  return;

fail:
  vkDestroySemaphore (self->device->device, *vk_sem, NULL);
  *vk_sem = VK_NULL_HANDLE;
}

static GstCudaVkSemaphore *
semaphore_new (GstCudaVkInterop * self, gboolean timeline)
{
  GstCudaVkSemaphore *s;
  VkSemaphore vk_sem;
  GstCudaSemaphore *sem;

  export_semaphore (self, timeline, &vk_sem, &sem);
  if (!sem)
    return NULL;
  s = g_new0 (GstCudaVkSemaphore, 1);
  s->vk_sem = vk_sem;
  s->sem = sem;
  s->device = gst_object_ref (self->device);
  s->timeline = timeline;
  gst_cuda_vk_interop_count (self, GST_CUDA_VK_COUNTER_SEMAPHORES, 1);
  return s;
}

const gchar *
gst_cuda_vk_interop_setup_sync (GstCudaVkInterop * self,
    gboolean want_timeline, gboolean offer_semaphore)
{
  VkSemaphore probe_vk;
  GstCudaSemaphore *probe;

  /* Upstream main: the relay's operations (gstcudavkrelay.h) are joined
   * to the submissions by binary semaphores, and a binary semaphore's
   * signal must not depend on a wait whose signal Vulkan cannot see
   * (VUID-vkQueueSubmit2-semaphore-03873): a take-over waiting for CUDA's
   * signal of a timeline value is such a wait, an external binary
   * semaphore's is not. So CUDA and Vulkan use binary semaphores there. */
  if (want_timeline && !self->relay && timeline_supported (self))
    self->timeline = semaphore_new (self, TRUE);
  if (self->timeline) {
    self->gpu_sync = TRUE;
  } else {
    /* probe: the frames' and staging slots' own semaphores are made the
     * same way later */
    export_semaphore (self, FALSE, &probe_vk, &probe);
    self->gpu_sync = probe != NULL;
    if (probe) {
      gst_object_unref (probe);
      vkDestroySemaphore (self->device->device, probe_vk, NULL);
    }
  }
  /* CUDA-only use (an upstream cudasemsignal signals it, the element waits
   * on its stream): binary, like every semaphore cudasemsignal is offered */
  if (offer_semaphore && self->gpu_sync)
    export_semaphore (self, FALSE, &self->offer_vk_sem, &self->offer_sem);
  return self->timeline ? "timeline" : self->gpu_sync ? "binary" : "none";
}

GstCudaVkSemaphore *
gst_cuda_vk_interop_semaphore_for_slot (GstCudaVkInterop * self,
    GstCudaVkSemaphore ** slot_sem)
{
  if (!self->gpu_sync)
    return NULL;
  if (self->timeline)
    return self->timeline;
  if (!*slot_sem)
    *slot_sem = semaphore_new (self, FALSE);
  if (!*slot_sem)
    GST_WARNING_OBJECT (self, "could not create a semaphore for a new "
        "frame slot: CPU synchronisation for it");
  return *slot_sem;
}

gboolean
gst_cuda_vk_semaphore_signal (GstCudaVkSemaphore * s, CUstream stream,
    guint64 * value, GError ** error)
{
  /* binary: a wait recorded by gst_cuda_vk_semaphore_waited() lets the
   * library accept the signal; otherwise it refuses it
   * (GST_CUDA_SYNC_ERROR_PROTOCOL): this object's previous signal may not
   * have been consumed yet. Timeline: the library reserves last + 1. */
  if (!gst_cuda_semaphore_signal (s->sem, stream, value, error))
    return FALSE;
  s->signalled = !s->timeline;
  return TRUE;
}

void
gst_cuda_vk_semaphore_wait_submitted (GstCudaVkSemaphore * s,
    GstVulkanFence * fence)
{
  /* a timeline semaphore is never consumed */
  if (s->timeline)
    return;
  g_return_if_fail (s->signalled);
  if (s->wait_fence)
    gst_vulkan_fence_unref (s->wait_fence);
  s->wait_fence = gst_vulkan_fence_ref (fence);
}

guint64
gst_cuda_vk_semaphore_next_value (GstCudaVkSemaphore * s)
{
  return s->timeline ? s->vk_value + 1 : 0;
}

void
gst_cuda_vk_semaphore_vk_signalled (GstCudaVkSemaphore * s)
{
  if (s->timeline)
    s->vk_value++;
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

/* gst-cudasync
 * Copyright (C) 2026 gst-cudasync developers
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Binary semaphores exported by Vulkan and imported into CUDA, one per pooled frame or staging slot.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstcudavkbridge.h"
#include <gst/cuda/cuda-gst.h>
#include <unistd.h>

GST_DEBUG_CATEGORY_EXTERN (gst_cuda_vk_debug);
#define GST_CAT_DEFAULT gst_cuda_vk_debug


/* Creates a binary semaphore exportable as an opaque fd and imports it into
 * the bridge's CUDA context. Leaves both NULL (and says why in the debug
 * log) when Vulkan cannot export it or CUDA cannot import it. */
void
gst_cuda_vk_export_semaphore (GstCudaVkBridge * b, VkSemaphore * vk_sem,
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
  gst_cuda_vk_export_semaphore (b, &vk_sem, &sem);
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

gboolean
gst_cuda_vk_semaphore_ensure (GstCudaVkBridge * b, GstCudaVkSemaphore ** sem)
{
  if (!*sem && !(*sem = gst_cuda_vk_semaphore_new (b))) {
    GST_WARNING_OBJECT (b->element, "could not create a semaphore for a new "
        "frame slot: CPU synchronisation for it");
    return FALSE;
  }
  return TRUE;
}

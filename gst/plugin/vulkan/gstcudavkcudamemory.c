/* gst-cudasync
 * Copyright (C) 2026 gst-cudasync developers
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Vulkan memory over an allocation of CUDA's own. Why: the images of a
 * frame's planes bound to one plain allocation of the NVIDIA Vulkan driver,
 * imported into CUDA, read wrong in Vulkan after CUDA wrote data with runs
 * of equal bytes (docs/known-issues.md), the pattern of storage that one
 * side compresses and the other reads raw. CUDA's own allocation is made
 * without compression (CUmemAllocationProp.allocFlags left 0), and Vulkan
 * imports its opaque fd: only where both come from NVIDIA's driver, as the
 * Vulkan specification requires of an opaque fd (another driver, such as
 * Mesa's with the simulated CUDA driver, is never handed one). Some
 * frames still read wrong there, and some pipelines stall: the elements
 * take frames of one allocation with NVIDIA's driver only through the
 * test hook (gst_cuda_vk_one_allocation_usable()).
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstcudavkcudamemory.h"
#include <unistd.h>

GST_DEBUG_CATEGORY_EXTERN (gst_cuda_vk_debug);
#define GST_CAT_DEFAULT gst_cuda_vk_debug

#define NVIDIA_VENDOR_ID 0x10de

/* what a device's qdata says of CUDA's memory there */
enum
{
  IMPORT_UNTRIED,
  IMPORT_PROBED,
  IMPORT_FAILED,
};

static GQuark
state_quark (void)
{
  static GQuark quark;

  if (!quark)
    quark = g_quark_from_static_string ("gst-cudasync-cuda-memory-import");
  return quark;
}

static gint
import_state (GstVulkanDevice * device)
{
  return GPOINTER_TO_INT (g_object_get_qdata (G_OBJECT (device),
          state_quark ()));
}

static void
set_import_state (GstVulkanDevice * device, gint state)
{
  g_object_set_qdata (G_OBJECT (device), state_quark (),
      GINT_TO_POINTER (state));
}

static gboolean
is_nvidia (GstVulkanDevice * device)
{
  return device->physical_device->properties.vendorID == NVIDIA_VENDOR_ID;
}

/* GST_CUDASYNC_CUDA_MEMORY=1 takes CUDA's memory with any Vulkan driver,
 * NVIDIA's included: a test hook, so that the suite on the simulated CUDA
 * driver reaches this path too, and so that it can be run on a GPU
 * (docs/testing.md) */
static gboolean
hook_set (void)
{
  return !g_strcmp0 (g_getenv ("GST_CUDASYNC_CUDA_MEMORY"), "1");
}

gboolean
gst_cuda_vk_one_allocation_usable (GstVulkanDevice * device, GError ** error)
{
  if (!is_nvidia (device) || hook_set ())
    return TRUE;
  g_set_error (error, GST_CUDA_SYNC_ERROR, GST_CUDA_SYNC_ERROR_NOT_SUPPORTED,
      "The NVIDIA Vulkan driver reads frames whose planes share one "
      "allocation wrong, or stalls on them (docs/known-issues.md)");
  return FALSE;
}

gboolean
gst_cuda_vk_cuda_memory_needed (GstVulkanDevice * device)
{
  return is_nvidia (device) || hook_set ();
}

/* the first failure on @device: said once, and not tried again there */
static void
import_failed (GstVulkanDevice * device, const gchar * what, GError * error)
{
  if (import_state (device) == IMPORT_FAILED)
    return;
  set_import_state (device, IMPORT_FAILED);
  GST_WARNING_OBJECT (device, "%s: %s; NV12 and I420 frames get one "
      "allocation per plane on this device from now on", what, error->message);
}

/* CUDA's allocation of at least @want bytes (its size in *@size) and
 * its fd; NULL with @error set */
static GstCudaSyncVmm *
cuda_allocation (GstCudaContext * cuda, gsize want, gsize * size, gint * fd,
    GError ** error)
{
  GstCudaSyncVmm *vmm;

  *size = gst_cuda_sync_vmm_round_size (cuda, want, error);
  vmm = *size ? gst_cuda_sync_vmm_new (cuda, *size, error) : NULL;
  if (!vmm)
    return NULL;
  *fd = gst_cuda_sync_vmm_export_fd (vmm, error);
  if (*fd < 0) {
    gst_cuda_sync_vmm_free (vmm);
    return NULL;
  }
  return vmm;
}

GstCudaSyncVmm *
gst_cuda_vk_cuda_memory_import (GstCudaContext * cuda,
    GstVulkanDevice * device, const VkMemoryRequirements * req,
    guint32 type_idx, VkDeviceMemory * memory, GError ** error)
{
  VkImportMemoryFdInfoKHR import_info = { 0, };
  VkMemoryAllocateInfo ai = { 0, };
  GstCudaSyncVmm *vmm;
  GError *err = NULL;
  VkResult res;
  gsize size = 0;
  gint fd = -1;

  *memory = VK_NULL_HANDLE;
  vmm = cuda_allocation (cuda, req->size, &size, &fd, &err);
  if (!vmm) {
    import_failed (device, "CUDA could not allocate and export a frame", err);
    g_propagate_error (error, err);
    return NULL;
  }
  import_info.sType = VK_STRUCTURE_TYPE_IMPORT_MEMORY_FD_INFO_KHR;
  import_info.handleType = VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT;
  import_info.fd = fd;
  ai.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO;
  ai.pNext = &import_info;
  /* an imported opaque fd: the size its exporter made */
  ai.allocationSize = size;
  ai.memoryTypeIndex = type_idx;
  res = vkAllocateMemory (device->device, &ai, NULL, memory);
  if (res != VK_SUCCESS) {
    /* the fd is Vulkan's only once imported */
    close (fd);
    *memory = VK_NULL_HANDLE;
    g_set_error (&err, GST_CUDA_SYNC_ERROR, GST_CUDA_SYNC_ERROR_NOT_SUPPORTED,
        "vkAllocateMemory importing %" G_GSIZE_FORMAT " bytes of CUDA's "
        "(memory type %u) failed: %d", size, type_idx, res);
    import_failed (device, "Vulkan could not import CUDA's memory", err);
    g_propagate_error (error, err);
    gst_cuda_sync_vmm_free (vmm);
    return NULL;
  }
  GST_DEBUG_OBJECT (device, "imported %" G_GSIZE_FORMAT " bytes of CUDA's "
      "(%" G_GUINT64_FORMAT " wanted) as memory type %u", size,
      (guint64) req->size, type_idx);
  return vmm;
}

/* Once per device, before frames of one allocation are chosen: one
 * allocation imported and freed. Where Vulkan's own allocation serves
 * (another driver), nothing to probe. */
gboolean
gst_cuda_vk_cuda_memory_probe (GstCudaContext * cuda, GstVulkanDevice * device,
    const VkMemoryRequirements * req, guint32 type_idx, GError ** error)
{
  VkDeviceMemory memory;
  GstCudaSyncVmm *vmm;

  if (!gst_cuda_vk_cuda_memory_needed (device) ||
      import_state (device) == IMPORT_PROBED)
    return TRUE;
  if (import_state (device) == IMPORT_FAILED) {
    g_set_error (error, GST_CUDA_SYNC_ERROR, GST_CUDA_SYNC_ERROR_NOT_SUPPORTED,
        "Vulkan could not import CUDA's memory on this device before");
    return FALSE;
  }
  vmm = gst_cuda_vk_cuda_memory_import (cuda, device, req, type_idx, &memory,
      error);
  if (!vmm)
    return FALSE;
  vkFreeMemory (device->device, memory, NULL);
  gst_cuda_sync_vmm_free (vmm);
  set_import_state (device, IMPORT_PROBED);
  return TRUE;
}

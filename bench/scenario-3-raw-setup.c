/* gst-cudasync
 * Copyright (C) 2026 gst-cudasync developers
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Scenario 3's raw reference: its Vulkan and CUDA objects (per slot:
 * frame, images imported into CUDA, host buffer, semaphore, fence,
 * command buffers).
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "scenario-3-raw.h"

#ifdef HAVE_CUDA_VULKAN
#include <string.h>
#include <unistd.h>

#include "vkutil.h"

/* the name of the results the raw program can get */
static const gchar *
d_vk_name (VkResult res)
{
  switch (res) {
    case VK_SUCCESS:
      return "VK_SUCCESS";
    case VK_TIMEOUT:
      return "VK_TIMEOUT";
    case VK_ERROR_OUT_OF_HOST_MEMORY:
      return "VK_ERROR_OUT_OF_HOST_MEMORY";
    case VK_ERROR_OUT_OF_DEVICE_MEMORY:
      return "VK_ERROR_OUT_OF_DEVICE_MEMORY";
    case VK_ERROR_INITIALIZATION_FAILED:
      return "VK_ERROR_INITIALIZATION_FAILED";
    case VK_ERROR_DEVICE_LOST:
      return "VK_ERROR_DEVICE_LOST";
    case VK_ERROR_TOO_MANY_OBJECTS:
      return "VK_ERROR_TOO_MANY_OBJECTS";
    case VK_ERROR_INVALID_EXTERNAL_HANDLE:
      return "VK_ERROR_INVALID_EXTERNAL_HANDLE";
    default:
      return "VkResult";
  }
}

/* "d: @what failed: VK_ERROR_... (n)" */
gchar *
d_vk_error (const gchar * what, VkResult res)
{
  return g_strdup_printf ("d: %s failed: %s (%d)", what, d_vk_name (res),
      (gint) res);
}

/* FALSE and *error (d_vk_error ()) unless @res is VK_SUCCESS */
static gboolean
d_vk (VkResult res, const gchar * what, gchar ** error)
{
  if (res == VK_SUCCESS)
    return TRUE;
  *error = d_vk_error (what, res);
  return FALSE;
}

/* FALSE and *error unless @r is CUDA_SUCCESS */
static gboolean
d_cu (CUresult r, const gchar * what, gchar ** error)
{
  if (r == CUDA_SUCCESS)
    return TRUE;
  *error = cu_error (what, r);
  return FALSE;
}

/* a memory type of @bits with the properties @want (GStreamer's lookup
 * changed its name and arguments in 1.24) */
static gboolean
d_memory_type (GstVulkanDevice * device, guint32 bits,
    VkMemoryPropertyFlags want, guint32 * idx)
{
  const VkPhysicalDeviceMemoryProperties *mp =
      &device->physical_device->memory_properties;
  guint32 i;

  for (i = 0; i < mp->memoryTypeCount; i++) {
    if ((bits & (1u << i)) && (mp->memoryTypes[i].propertyFlags & want) == want) {
      *idx = i;
      return TRUE;
    }
  }
  return FALSE;
}

/* --- set-up --- */

/* the bench's Vulkan device, a queue, the entry points, the command pool */
gboolean
d_open (DCtx * d, Bench * b, gchar ** error)
{
  d->device = bench_vulkan_device (b);
  if (!d->device || d->n_planes > D_MAX_PLANES) {
    *error = g_strdup (d->device ? "d: more than 2 planes" :
        "d: no Vulkan device");
    return FALSE;
  }
  d->dev = d->device->device;
  /* the bridge elements' queue object: one submit lock for every user of
   * the VkQueue (the other instances, pipelines) */
  d->queue = bench_vulkan_queue (b);
  if (d->queue && d->queue->device != d->device)
    gst_clear_object (&d->queue);
  if (d->queue)
    d->family = d->queue->family;
  d->get_mem_fd = (PFN_vkGetMemoryFdKHR) vkGetDeviceProcAddr (d->dev,
      "vkGetMemoryFdKHR");
  d->get_sem_fd = (PFN_vkGetSemaphoreFdKHR) vkGetDeviceProcAddr (d->dev,
      "vkGetSemaphoreFdKHR");
  if (!d->queue || !d->get_mem_fd) {
    *error = g_strdup_printf ("d: %s", d->queue ? "no vkGetMemoryFdKHR" :
        "no Vulkan queue");
    return FALSE;
  }
  d->gpu = d->get_sem_fd &&
      vk_util_can_export_semaphores (d->device->physical_device);
  {
    VkCommandPoolCreateInfo ci = { VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
      NULL, VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT, d->family
    };
    VkFenceCreateInfo fi = { VK_STRUCTURE_TYPE_FENCE_CREATE_INFO, NULL, 0 };

    return d_vk (vkCreateCommandPool (d->dev, &ci, NULL, &d->cpool),
        "vkCreateCommandPool", error) &&
        d_vk (vkCreateFence (d->dev, &fi, NULL, &d->drain_fence),
        "vkCreateFence", error);
  }
}

/* plane @p's linear image, in the format cudatovulkan gives that plane */
static gboolean
d_plane_image (DCtx * d, DSlot * sl, guint p, guint w, guint h, gchar ** error)
{
  VkExternalMemoryImageCreateInfo ext = {
    VK_STRUCTURE_TYPE_EXTERNAL_MEMORY_IMAGE_CREATE_INFO, NULL,
    VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT
  };
  VkImageCreateInfo ci = { 0, };
  VkImageSubresource sub = { VK_IMAGE_ASPECT_COLOR_BIT, 0, 0 };
  VkSubresourceLayout layout;

  ci.sType = VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO;
  ci.pNext = &ext;
  ci.imageType = VK_IMAGE_TYPE_2D;
  ci.format = d->n_planes == 1 ? VK_FORMAT_R8G8B8A8_UNORM : p == 0 ?
      VK_FORMAT_R8_UNORM : VK_FORMAT_R8G8_UNORM;
  ci.extent.width = w;
  ci.extent.height = h;
  ci.extent.depth = 1;
  ci.mipLevels = 1;
  ci.arrayLayers = 1;
  ci.samples = VK_SAMPLE_COUNT_1_BIT;
  ci.tiling = VK_IMAGE_TILING_LINEAR;
  ci.usage = VK_IMAGE_USAGE_TRANSFER_SRC_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT;
  ci.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
  ci.initialLayout = VK_IMAGE_LAYOUT_UNDEFINED; /* external memory */
  if (!d_vk (vkCreateImage (d->dev, &ci, NULL, &sl->p[p].image),
          "vkCreateImage (linear, exportable)", error))
    return FALSE;
  vkGetImageSubresourceLayout (d->dev, sl->p[p].image, &sub, &layout);
  sl->p[p].offset = layout.offset;
  sl->p[p].pitch = layout.rowPitch;
  return TRUE;
}

/* the image's dedicated, exportable memory, imported into CUDA */
static gboolean
d_plane_memory (DCtx * d, DSlot * sl, guint p, gchar ** error)
{
  VkMemoryRequirements req;
  VkMemoryDedicatedAllocateInfo ded = {
    VK_STRUCTURE_TYPE_MEMORY_DEDICATED_ALLOCATE_INFO, NULL, 0, 0
  };
  VkExportMemoryAllocateInfo exp = {
    VK_STRUCTURE_TYPE_EXPORT_MEMORY_ALLOCATE_INFO, &ded,
    VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT
  };
  VkMemoryAllocateInfo ai = { VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO,
    &exp, 0, 0
  };
  VkMemoryGetFdInfoKHR fdi = { VK_STRUCTURE_TYPE_MEMORY_GET_FD_INFO_KHR,
    NULL, 0, VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT
  };
  CUDA_EXTERNAL_MEMORY_HANDLE_DESC hd;
  CUDA_EXTERNAL_MEMORY_BUFFER_DESC bd;
  int fd = -1;

  vkGetImageMemoryRequirements (d->dev, sl->p[p].image, &req);
  /* dedicated, as the elements (required on the NVIDIA driver) */
  ded.image = sl->p[p].image;
  ai.allocationSize = req.size;
  if (!d_memory_type (d->device, req.memoryTypeBits,
          VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, &ai.memoryTypeIndex) &&
      !d_memory_type (d->device, req.memoryTypeBits, 0, &ai.memoryTypeIndex)) {
    *error = g_strdup ("d: no memory type for the image");
    return FALSE;
  }
  if (!d_vk (vkAllocateMemory (d->dev, &ai, NULL, &sl->p[p].memory),
          "vkAllocateMemory (dedicated, exportable)", error))
    return FALSE;
  sl->p[p].alloc = req.size;
  if (!d_vk (vkBindImageMemory (d->dev, sl->p[p].image, sl->p[p].memory, 0),
          "vkBindImageMemory", error))
    return FALSE;
  fdi.memory = sl->p[p].memory;
  if (!d_vk (d->get_mem_fd (d->dev, &fdi, &fd), "vkGetMemoryFdKHR", error))
    return FALSE;
  memset (&hd, 0, sizeof (hd));
  hd.type = CU_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD;
  hd.handle.fd = fd;
  hd.size = req.size;
  hd.flags = CUDA_EXTERNAL_MEMORY_DEDICATED;
  if (!d_cu (drv.cuImportExternalMemory (&sl->p[p].ext, &hd),
          "cuImportExternalMemory", error)) {
    close (fd);
    return FALSE;
  }
  memset (&bd, 0, sizeof (bd));
  bd.size = req.size;
  return d_cu (drv.cuExternalMemoryGetMappedBuffer (&sl->p[p].ptr,
          sl->p[p].ext, &bd), "cuExternalMemoryGetMappedBuffer", error);
}

/* the consumer's host-visible buffer */
static gboolean
d_host_buffer (DCtx * d, DSlot * sl, VkDeviceSize host_size, gchar ** error)
{
  VkBufferCreateInfo bi = { VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO, NULL, 0,
    host_size, VK_BUFFER_USAGE_TRANSFER_DST_BIT,
    VK_SHARING_MODE_EXCLUSIVE, 0, NULL
  };
  VkMemoryRequirements req;
  VkMemoryAllocateInfo ai = { VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO,
    NULL, 0, 0
  };

  if (!d_vk (vkCreateBuffer (d->dev, &bi, NULL, &sl->host),
          "vkCreateBuffer (host-visible)", error))
    return FALSE;
  vkGetBufferMemoryRequirements (d->dev, sl->host, &req);
  ai.allocationSize = req.size;
  if (!d_memory_type (d->device, req.memoryTypeBits,
          VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT |
          VK_MEMORY_PROPERTY_HOST_COHERENT_BIT |
          VK_MEMORY_PROPERTY_HOST_CACHED_BIT, &ai.memoryTypeIndex) &&
      !d_memory_type (d->device, req.memoryTypeBits,
          VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT |
          VK_MEMORY_PROPERTY_HOST_COHERENT_BIT, &ai.memoryTypeIndex)) {
    *error = g_strdup ("d: no host-visible coherent memory type");
    return FALSE;
  }
  return d_vk (vkAllocateMemory (d->dev, &ai, NULL, &sl->host_mem),
      "vkAllocateMemory (host-visible)", error) &&
      d_vk (vkBindBufferMemory (d->dev, sl->host, sl->host_mem, 0),
      "vkBindBufferMemory", error) &&
      d_vk (vkMapMemory (d->dev, sl->host_mem, 0, VK_WHOLE_SIZE, 0,
          (void **) &sl->host_map), "vkMapMemory", error);
}

/* the slot's binary semaphore, exported to CUDA */
static gboolean
d_semaphore (DCtx * d, DSlot * sl, gchar ** error)
{
  VkExportSemaphoreCreateInfo es = {
    VK_STRUCTURE_TYPE_EXPORT_SEMAPHORE_CREATE_INFO, NULL,
    VK_EXTERNAL_SEMAPHORE_HANDLE_TYPE_OPAQUE_FD_BIT
  };
  VkSemaphoreCreateInfo sci = { VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO,
    &es, 0
  };
  VkSemaphoreGetFdInfoKHR sfd = {
    VK_STRUCTURE_TYPE_SEMAPHORE_GET_FD_INFO_KHR, NULL, 0,
    VK_EXTERNAL_SEMAPHORE_HANDLE_TYPE_OPAQUE_FD_BIT
  };
  CUDA_EXTERNAL_SEMAPHORE_HANDLE_DESC sd;
  int fd = -1;

  if (!d_vk (vkCreateSemaphore (d->dev, &sci, NULL, &sl->vk_sem),
          "vkCreateSemaphore (exportable)", error))
    return FALSE;
  sfd.semaphore = sl->vk_sem;
  if (!d_vk (d->get_sem_fd (d->dev, &sfd, &fd), "vkGetSemaphoreFdKHR", error))
    return FALSE;
  memset (&sd, 0, sizeof (sd));
  sd.type = CU_EXTERNAL_SEMAPHORE_HANDLE_TYPE_OPAQUE_FD;
  sd.handle.fd = fd;
  if (!d_cu (drv.cuImportExternalSemaphore (&sl->cu_sem, &sd),
          "cuImportExternalSemaphore", error)) {
    close (fd);
    return FALSE;
  }
  return TRUE;
}

/* one slot: the CUDA frame, the images, the host buffer, the semaphore, a
 * fence and a command buffer; call with the context pushed */
static gboolean
d_slot_setup (DCtx * d, DSlot * sl, gchar ** error)
{
  const GstVideoInfo *info = &d->run->spec.info;
  VkDeviceSize host_size = 0;
  VkFenceCreateInfo fi = { VK_STRUCTURE_TYPE_FENCE_CREATE_INFO, NULL, 0 };
  VkCommandBufferAllocateInfo cai = {
    VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO, NULL, d->cpool,
    VK_COMMAND_BUFFER_LEVEL_PRIMARY, 1
  };
  guint p;

  if (d->split && !d_vk (vkAllocateCommandBuffers (d->dev, &cai,
              &sl->cmd_take), "vkAllocateCommandBuffers", error))
    return FALSE;
  if (!d_cu (CuMemAlloc (&sl->src, GST_VIDEO_INFO_SIZE (info)),
          "cuMemAlloc", error))
    return FALSE;
  for (p = 0; p < d->n_planes; p++) {
    gint comp[GST_VIDEO_MAX_COMPONENTS];
    guint w, h;

    gst_video_format_info_component (info->finfo, p, comp);
    w = GST_VIDEO_INFO_COMP_WIDTH (info, comp[0]);
    h = GST_VIDEO_INFO_COMP_HEIGHT (info, comp[0]);
    sl->p[p].wbytes = (gsize) w *GST_VIDEO_INFO_COMP_PSTRIDE (info, comp[0]);
    sl->p[p].rows = h;
    sl->p[p].host_off = host_size;
    host_size += sl->p[p].wbytes * h;
    if (!d_plane_image (d, sl, p, w, h, error) ||
        !d_plane_memory (d, sl, p, error))
      return FALSE;
  }
  if (!d_host_buffer (d, sl, host_size, error))
    return FALSE;
  if (d->gpu && !d_semaphore (d, sl, error))
    return FALSE;
  if (!d_vk (vkCreateFence (d->dev, &fi, NULL, &sl->fence), "vkCreateFence",
          error) || !d_vk (vkAllocateCommandBuffers (d->dev, &cai, &sl->cmd),
          "vkAllocateCommandBuffers", error))
    return FALSE;
  /* bounded: a pair a failed run did not give back must not hang here */
  sl->pair = g_async_queue_timeout_pop (d->run->free_pairs, RUN_WAIT_US);
  if (!sl->pair) {
    *error = g_strdup ("d: no free event pair for 10 s");
    return FALSE;
  }
  return TRUE;
}

gboolean
d_slots_setup (DCtx * d, gchar ** error)
{
  gboolean ok = TRUE;
  guint i;

  if (!gst_cuda_context_push (d->run->b->ctx)) {
    *error = g_strdup ("d: could not push the CUDA context");
    return FALSE;
  }
  for (i = 0; ok && i < d->n_slots; i++)
    ok = d_slot_setup (d, &d->slots[i], error);
  if (ok)
    drv.cuCtxSynchronize ();
  gst_cuda_context_pop (NULL);
  return ok;
}

/* the slot's image barriers (one per plane): @old_layout -> GENERAL, queue
 * family @src -> @dst */
static void
d_image_barriers (DCtx * d, DSlot * sl, VkImageMemoryBarrier * ib,
    VkImageLayout old_layout, guint32 src, guint32 dst, VkAccessFlags access)
{
  guint p;

  for (p = 0; p < d->n_planes; p++) {
    memset (&ib[p], 0, sizeof (ib[p]));
    ib[p].sType = VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER;
    ib[p].dstAccessMask = access;
    ib[p].oldLayout = old_layout;
    ib[p].newLayout = VK_IMAGE_LAYOUT_GENERAL;
    ib[p].srcQueueFamilyIndex = src;
    ib[p].dstQueueFamilyIndex = dst;
    ib[p].image = sl->p[p].image;
    ib[p].subresourceRange.aspectMask = VK_IMAGE_ASPECT_COLOR_BIT;
    ib[p].subresourceRange.levelCount = 1;
    ib[p].subresourceRange.layerCount = 1;
  }
}

/* Records the slot's command buffer. @layout: the first one, that takes
 * every image from UNDEFINED to GENERAL and gives it to
 * VK_QUEUE_FAMILY_EXTERNAL before CUDA first writes it (submitted and
 * waited for outside the measurement; as cudatovulkan's frame pool);
 * else the per-frame one: acquire the images from the external (CUDA)
 * queue family, copy them into the host-visible buffer, release them to
 * the external family again (CUDA rewrites them once the slot's fence has
 * signalled), make the copy visible to the host. A queue family transfer
 * from EXTERNAL needs the matching release: without it CUDA wrote images
 * that Vulkan still owned. */
static gboolean
d_record (DCtx * d, DSlot * sl, gboolean layout, gchar ** error)
{
  VkCommandBufferBeginInfo bi = {
    VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO, NULL, 0, NULL
  };
  VkImageMemoryBarrier ib[D_MAX_PLANES];
  VkBufferMemoryBarrier hb = { VK_STRUCTURE_TYPE_BUFFER_MEMORY_BARRIER,
    NULL, VK_ACCESS_TRANSFER_WRITE_BIT, VK_ACCESS_HOST_READ_BIT,
    VK_QUEUE_FAMILY_IGNORED, VK_QUEUE_FAMILY_IGNORED, sl->host, 0,
    VK_WHOLE_SIZE
  };
  /* d_split: the per-frame acquire barrier is cmd_take's, recorded with
   * the source stage of cudatovulkan's take-over */
  gboolean take = d->split && !layout;
  VkCommandBuffer acq = take ? sl->cmd_take : sl->cmd;
  /* the stage the semaphore wait of the acquire's submission blocks
   * (d_submit (), d_submit_take ()): the acquire's first scope must
   * include it, so that it is ordered after CUDA's signal (TOP_OF_PIPE did
   * not chain to the wait) */
  VkPipelineStageFlags wait_stage = take ? VK_PIPELINE_STAGE_ALL_COMMANDS_BIT :
      VK_PIPELINE_STAGE_TRANSFER_BIT;
  guint p;

  if (!d_vk (vkBeginCommandBuffer (sl->cmd, &bi), "vkBeginCommandBuffer",
          error))
    return FALSE;
  if (layout) {
    d_image_barriers (d, sl, ib, VK_IMAGE_LAYOUT_UNDEFINED, d->family,
        VK_QUEUE_FAMILY_EXTERNAL, 0);
    vkCmdPipelineBarrier (sl->cmd, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT,
        VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, 0, 0, NULL, 0, NULL,
        d->n_planes, ib);
    return d_vk (vkEndCommandBuffer (sl->cmd), "vkEndCommandBuffer", error);
  }
  if (take && !d_vk (vkBeginCommandBuffer (acq, &bi), "vkBeginCommandBuffer",
          error))
    return FALSE;
  d_image_barriers (d, sl, ib, VK_IMAGE_LAYOUT_GENERAL,
      VK_QUEUE_FAMILY_EXTERNAL, d->family, VK_ACCESS_TRANSFER_READ_BIT);
  vkCmdPipelineBarrier (acq, wait_stage, take ?
      VK_PIPELINE_STAGE_ALL_COMMANDS_BIT : VK_PIPELINE_STAGE_TRANSFER_BIT, 0,
      0, NULL, 0, NULL, d->n_planes, ib);
  if (take && !d_vk (vkEndCommandBuffer (acq), "vkEndCommandBuffer", error))
    return FALSE;
  for (p = 0; p < d->n_planes; p++) {
    VkBufferImageCopy rg = { 0, };

    rg.bufferOffset = sl->p[p].host_off;
    rg.imageSubresource.aspectMask = VK_IMAGE_ASPECT_COLOR_BIT;
    rg.imageSubresource.layerCount = 1;
    rg.imageExtent.width = sl->p[p].wbytes / (d->n_planes == 1 ? 4 :
        p == 0 ? 1 : 2);
    rg.imageExtent.height = sl->p[p].rows;
    rg.imageExtent.depth = 1;
    vkCmdCopyImageToBuffer (sl->cmd, sl->p[p].image,
        VK_IMAGE_LAYOUT_GENERAL, sl->host, 1, &rg);
  }
  /* back to CUDA after the copy's reads (no layout change; the release's
   * destination scope is ignored) */
  d_image_barriers (d, sl, ib, VK_IMAGE_LAYOUT_GENERAL, d->family,
      VK_QUEUE_FAMILY_EXTERNAL, 0);
  vkCmdPipelineBarrier (sl->cmd, VK_PIPELINE_STAGE_TRANSFER_BIT,
      VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, 0, 0, NULL, 0, NULL, d->n_planes,
      ib);
  vkCmdPipelineBarrier (sl->cmd, VK_PIPELINE_STAGE_TRANSFER_BIT,
      VK_PIPELINE_STAGE_HOST_BIT, 0, 0, NULL, 1, &hb, 0, NULL);
  return d_vk (vkEndCommandBuffer (sl->cmd), "vkEndCommandBuffer", error);
}

/* the layout transition, submitted and waited for */
static gboolean
d_layout (DCtx * d, DSlot * sl, gchar ** error)
{
  VkSubmitInfo si = { VK_STRUCTURE_TYPE_SUBMIT_INFO, NULL, 0, NULL,
    NULL, 1, &sl->cmd, 0, NULL
  };
  VkResult res;

  gst_vulkan_queue_submit_lock (d->queue);
  res = vkQueueSubmit (d->queue->queue, 1, &si, sl->fence);
  gst_vulkan_queue_submit_unlock (d->queue);
  if (!d_vk (res, "vkQueueSubmit (layout)", error))
    return FALSE;
  d->submitted = TRUE;
  if (!d_vk (vkWaitForFences (d->dev, 1, &sl->fence, VK_TRUE,
              (guint64) RUN_WAIT_US * 1000), "vkWaitForFences (layout)", error))
    return FALSE;
  vkResetFences (d->dev, 1, &sl->fence);
  vkResetCommandBuffer (sl->cmd, 0);
  return TRUE;
}

gboolean
d_record_all (DCtx * d, gchar ** error)
{
  guint i;

  for (i = 0; i < d->n_slots; i++)
    if (!d_record (d, &d->slots[i], TRUE, error) ||
        !d_layout (d, &d->slots[i], error))
      return FALSE;
  for (i = 0; i < d->n_slots; i++)
    if (!d_record (d, &d->slots[i], FALSE, error))
      return FALSE;
  return TRUE;
}

/* the slot's CUDA objects (call with the context pushed) */
static void
d_slot_free_cuda (DSlot * sl)
{
  guint p;

  if (sl->cu_sem)
    drv.cuDestroyExternalSemaphore (sl->cu_sem);
  for (p = 0; p < D_MAX_PLANES; p++) {
    if (sl->p[p].ptr)
      CuMemFree (sl->p[p].ptr);
    if (sl->p[p].ext)
      drv.cuDestroyExternalMemory (sl->p[p].ext);
  }
  if (sl->src)
    CuMemFree (sl->src);
}

static void
d_slot_free_vulkan (VkDevice dev, DSlot * sl)
{
  guint p;

  for (p = 0; p < D_MAX_PLANES; p++) {
    if (sl->p[p].image)
      vkDestroyImage (dev, sl->p[p].image, NULL);
    if (sl->p[p].memory)
      vkFreeMemory (dev, sl->p[p].memory, NULL);
  }
  if (sl->host)
    vkDestroyBuffer (dev, sl->host, NULL);
  if (sl->host_mem)
    vkFreeMemory (dev, sl->host_mem, NULL);
  if (sl->vk_sem)
    vkDestroySemaphore (dev, sl->vk_sem, NULL);
  if (sl->fence)
    vkDestroyFence (dev, sl->fence, NULL);
}

/* Waits until the queue has finished everything this instance submitted
 * (and what others submitted before): an empty submission with a fence of
 * its own, under the queue's submit lock, then a bounded wait for that
 * fence. Not vkDeviceWaitIdle () (nor vkQueueWaitIdle () without the
 * lock): those need every queue of the device externally synchronised,
 * and in scenario 6 the other instances (and, in general, pipelines) keep
 * calling vkQueueSubmit () on the same VkQueue meanwhile. TRUE when the
 * instance's Vulkan objects may be destroyed: the fence signalled, nothing
 * was submitted, or the device is lost (VK_ERROR_DEVICE_LOST counts as
 * completion when deciding whether objects are in use). FALSE: some
 * submission may still be pending (e.g. waiting on a semaphore that CUDA
 * never signals): its objects must not be destroyed. */
static gboolean
d_drain (DCtx * d)
{
  VkResult res;

  if (!d->submitted)
    return TRUE;
  gst_vulkan_queue_submit_lock (d->queue);
  res = vkQueueSubmit (d->queue->queue, 0, NULL, d->drain_fence);
  gst_vulkan_queue_submit_unlock (d->queue);
  if (res == VK_SUCCESS)
    res = vkWaitForFences (d->dev, 1, &d->drain_fence, VK_TRUE,
        (guint64) RUN_WAIT_US * 1000);
  if (res == VK_SUCCESS || res == VK_ERROR_DEVICE_LOST)
    return TRUE;
  g_printerr ("bench: d: the Vulkan queue did not finish this instance's "
      "work (VkResult %d): its Vulkan and CUDA objects are left alive\n",
      (gint) res);
  return FALSE;
}

void
d_teardown (DCtx * d)
{
  Run *run = d->run;
  gboolean pushed = gst_cuda_context_push (run->b->ctx);
  gboolean cuda_idle = FALSE, vk_idle;
  guint i;

  /* this instance's CUDA work (the other instances' is theirs) */
  if (pushed)
    cuda_idle = CuStreamSynchronize (run->spec.stream) == CUDA_SUCCESS;
  vk_idle = d_drain (d);
  for (i = 0; i < d->n_slots; i++) {
    DSlot *sl = &d->slots[i];

    /* a slot's semaphore and images are shared by both sides: freed only
     * once neither can still be using them */
    if (cuda_idle && vk_idle) {
      d_slot_free_cuda (sl);
      d_slot_free_vulkan (d->dev, sl);
    }
    if (sl->pair)
      g_async_queue_push (run->free_pairs, sl->pair);
  }
  if (pushed)
    gst_cuda_context_pop (NULL);
  if (vk_idle && d->cpool)
    vkDestroyCommandPool (d->dev, d->cpool, NULL);
  if (vk_idle && d->drain_fence)
    vkDestroyFence (d->dev, d->drain_fence, NULL);
  g_free (d->slots);
  g_async_queue_unref (d->done);
  g_async_queue_unref (d->free_slots);
  g_free (d->bad);
  gst_clear_object (&d->queue);
  gst_clear_object (&d->device);
}
#endif

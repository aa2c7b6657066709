/* gst-cudasync
 * Copyright (C) 2026 gst-cudasync developers
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Scenario 3 modes d and d_stall: the raw-API limit, no GStreamer. The
 * producer thread writes the frame (same kernel, own CUDA allocation),
 * copies it into exportable linear Vulkan images imported into CUDA,
 * signals the slot's binary semaphore exported by Vulkan and submits a
 * pre-recorded command buffer that waits on it and copies the images into
 * a host-visible buffer; a consumer thread waits for the slot's fence,
 * checks a few words of the frame and frees the slot. d_stall: the
 * consumer submits and waits, one frame at a time (vulkandownload's shape).
 * d_split: d_stall whose semaphore wait is a submission of its own, made
 * by the producer right after the CUDA work (cudatovulkan's take-over: the
 * acquire barrier), the copy coming later from the consumer (the bridge's
 * shape, without GStreamer).
 * Everything is set up before and torn down after the measured frames.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "frames.h"

#include <string.h>
#include <unistd.h>

#ifdef HAVE_CUDA_VULKAN
#include <gst/vulkan/vulkan.h>
#include "vkutil.h"

#define D_MAX_PLANES 2

typedef struct
{
  CUdeviceptr src;              /* the CUDA frame (own allocation) */
  struct
  {
    VkImage image;
    VkDeviceMemory memory;
    CUexternalMemory ext;
    CUdeviceptr ptr;            /* the image's texels in CUDA */
    VkDeviceSize offset, pitch, alloc;
    gsize wbytes, rows, host_off;
  } p[D_MAX_PLANES];
  VkBuffer host;                /* the consumer's host-visible copy */
  VkDeviceMemory host_mem;
  guint8 *host_map;
  VkSemaphore vk_sem;
  CUexternalSemaphore cu_sem;
  VkFence fence;
  VkCommandBuffer cmd;
  VkCommandBuffer cmd_take;     /* d_split: the acquire barrier alone */
  EvPair *pair;
  guint frame;
  gdouble t0;
} DSlot;

typedef struct
{
  Run *run;
  GstVulkanDevice *device;
  GstVulkanQueue *queue;
  VkDevice dev;
  guint family;
  VkCommandPool cpool;
  VkFence drain_fence;          /* d_drain () */
  gboolean submitted;           /* a vkQueueSubmit succeeded (set under
                                 * the queue's submit lock) */
  PFN_vkGetMemoryFdKHR get_mem_fd;
  PFN_vkGetSemaphoreFdKHR get_sem_fd;
  DSlot *slots;
  guint n_slots;
  GAsyncQueue *done;            /* submitted slots, in order; d: stop */
  GAsyncQueue *free_slots;
  guint n_planes;
  gboolean verify_kernel;
  gchar *bad;                   /* first byte mismatch */
  /* d_stall: the consumer submits and waits, one frame at a time;
   * d_split: and the producer submits the semaphore wait before */
  gboolean stall, split, gpu;
} DCtx;

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
static gchar *
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

static gboolean
d_cu (CUresult r, const gchar * what, gchar ** error)
{
  if (r == CUDA_SUCCESS)
    return TRUE;
  *error = cu_error (what, r);
  return FALSE;
}

static gboolean
d_memory_type (GstVulkanDevice * device, guint32 bits, VkMemoryPropertyFlags
    want, guint32 * idx)
{
  const VkPhysicalDeviceMemoryProperties *mp =
      &device->physical_device->memory_properties;
  guint32 i;

  for (i = 0; i < mp->memoryTypeCount; i++)
    if ((bits & (1u << i)) && (mp->memoryTypes[i].propertyFlags & want) ==
        want) {
      *idx = i;
      return TRUE;
    }
  return FALSE;
}

/* What the consumer found in word (x, y) of plane p of the frame: the
 * kernel's pattern (bench/spin.cu) or the memset value */
static gboolean
d_check_frame (DCtx * d, DSlot * sl)
{
  guint32 seed = sl->frame * 2654435761u;
  guint p, k;

  for (p = 0; p < d->n_planes; p++) {
    guint xs[3] = { 0, (guint) sl->p[p].wbytes / 8, (guint) sl->p[p].wbytes /
      4 - 1 }, ys[3] = { 0, (guint) sl->p[p].rows / 2,
      (guint) sl->p[p].rows - 1 };

    for (k = 0; k < 3; k++) {
      guint32 got, want = d->verify_kernel ?
          (seed + p) ^ (ys[k] * 0x9e3779b9u + xs[k]) : seed + p;

      memcpy (&got, sl->host_map + sl->p[p].host_off + ys[k] *
          sl->p[p].wbytes + xs[k] * 4, 4);
      if (got != want) {
        if (!d->bad)
          d->bad = g_strdup_printf ("frame %u plane %u word (%u, %u): "
              "Vulkan read 0x%08x, CUDA wrote 0x%08x", sl->frame, p, xs[k],
              ys[k], got, want);
        return FALSE;
      }
    }
  }
  return TRUE;
}

/* Submits @cmd, waiting at @stage for the slot's semaphore when @wait (and
 * the GPU path), with @fence (nullable) */
static VkResult
d_submit_cmd (DCtx * d, DSlot * sl, VkCommandBuffer * cmd, gboolean wait,
    VkPipelineStageFlags stage, VkFence fence)
{
  VkSubmitInfo si = { VK_STRUCTURE_TYPE_SUBMIT_INFO, NULL, 0, NULL, NULL,
    1, cmd, 0, NULL
  };
  VkResult res;

  if (wait && d->gpu) {
    si.waitSemaphoreCount = 1;
    si.pWaitSemaphores = &sl->vk_sem;
    si.pWaitDstStageMask = &stage;
  }
  gst_vulkan_queue_submit_lock (d->queue);
  res = vkQueueSubmit (d->queue->queue, 1, &si, fence);
  /* under the lock: the producer and the consumer both submit */
  if (res == VK_SUCCESS)
    d->submitted = TRUE;
  gst_vulkan_queue_submit_unlock (d->queue);
  return res;
}

/* The slot's pre-recorded copy, with its fence; it waits for the slot's
 * semaphore itself except in d_split, whose take-over waited */
static VkResult
d_submit (DCtx * d, DSlot * sl)
{
  return d_submit_cmd (d, sl, &sl->cmd, !d->split,
      VK_PIPELINE_STAGE_TRANSFER_BIT, sl->fence);
}

/* d_split, on the producer thread: the wait for CUDA's signal and the
 * acquire barrier, as cudatovulkan's take-over (no fence: the copy's
 * fence, later on the same queue, covers it) */
static VkResult
d_submit_take (DCtx * d, DSlot * sl)
{
  return d_submit_cmd (d, sl, &sl->cmd_take, TRUE,
      VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, VK_NULL_HANDLE);
}

/* the consumer's measurements of a completed slot */
static void
d_consumed (DCtx * d, DSlot * sl)
{
  Run *run = d->run;
  CUresult r = CUDA_ERROR_INVALID_CONTEXT;
  gfloat kms = 0;

  d_check_frame (d, sl);
  if (gst_cuda_context_push (run->b->ctx)) {
    r = drv.cuEventSynchronize (sl->pair->ek);
    if (r == CUDA_SUCCESS)
      r = drv.cuEventElapsedTime (&kms, sl->pair->e0, sl->pair->ek);
    gst_cuda_context_pop (NULL);
  }
  if (r != CUDA_SUCCESS)
    run_error (run, cu_error ("d: cuEventElapsedTime", r));
  else if (sl->frame >= run->warmup) {
    series_add (run->lat_us, sl->t0 * 1e6);
    series_add (run->kern_us, kms * 1000.0);
  }
  /* the measured window, as s2_recycler() */
  run_window (run, sl->frame);
}

/* the consumer thread: waits for each slot's fence, then frees the slot */
static gpointer
d_consumer (gpointer data)
{
  DCtx *d = data;
  Run *run = d->run;

  for (;;) {
    DSlot *sl = g_async_queue_timeout_pop (d->done, RUN_WAIT_US);
    VkResult res;

    if (!sl) {
      run_error (run, g_strdup ("d: no frame submitted for 10 s"));
      break;
    }
    if (sl == (DSlot *) d)
      break;
    /* d_stall: the consumer submits (vulkandownload's shape) */
    if (d->stall && (res = d_submit (d, sl)) != VK_SUCCESS) {
      run_error (run, d_vk_error ("vkQueueSubmit", res));
      break;
    }
    res = vkWaitForFences (d->dev, 1, &sl->fence, VK_TRUE,
        (guint64) RUN_WAIT_US * 1000);
    sl->t0 = mono_s () - sl->t0;      /* latency */
    if (res != VK_SUCCESS) {
      run_error (run, d_vk_error ("vkWaitForFences", res));
      break;
    }
    vkResetFences (d->dev, 1, &sl->fence);
    d_consumed (d, sl);
    g_async_queue_push (d->free_slots, sl);
    bench_progress (&run->b->wd);
  }
  return NULL;
}

/* ------------------------------------------------------------------ */
/* set-up                                                               */
/* ------------------------------------------------------------------ */

/* the bench's Vulkan device, a queue, the entry points, the command pool */
static gboolean
d_open (DCtx * d, Bench * b, gchar ** error)
{
  g_mutex_lock (&b->vk_lock);
  if (b->vk_ctx[1])
    gst_context_get_vulkan_device (b->vk_ctx[1], &d->device);
  g_mutex_unlock (&b->vk_lock);
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
d_plane_image (DCtx * d, DSlot * sl, guint p, guint w, guint h,
    gchar ** error)
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
  ci.initialLayout = VK_IMAGE_LAYOUT_UNDEFINED;       /* external memory */
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
    sl->p[p].wbytes = (gsize) w * GST_VIDEO_INFO_COMP_PSTRIDE (info, comp[0]);
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

static gboolean
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
              (guint64) RUN_WAIT_US * 1000), "vkWaitForFences (layout)",
          error))
    return FALSE;
  vkResetFences (d->dev, 1, &sl->fence);
  vkResetCommandBuffer (sl->cmd, 0);
  return TRUE;
}

static gboolean
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

/* ------------------------------------------------------------------ */
/* the frames                                                           */
/* ------------------------------------------------------------------ */

/* the frame's CUDA work: write, copy into the images, signal (or the CPU
 * fallback); call with the context pushed. *what: the failed call. */
static CUresult
d_enqueue (DCtx * d, DSlot * sl, guint n, const gchar ** what)
{
  Run *run = d->run;
  CUstream pstream = run->spec.stream;
  CUresult r;
  guint p;

  *what = "cuEventRecord";
  r = drv.cuEventRecord (sl->pair->e0, pstream);
  if (r == CUDA_SUCCESS) {
    *what = run->spec.writer == WRITER_KERNEL ? "cuLaunchKernel" :
        "cuMemsetD32Async";
    r = frame_write (run->b, &run->spec, NULL, (guint8 *) (guintptr) sl->src,
        n);
  }
  if (r == CUDA_SUCCESS) {
    *what = "cuEventRecord";
    r = drv.cuEventRecord (sl->pair->ek, pstream);
  }
  for (p = 0; r == CUDA_SUCCESS && p < d->n_planes; p++) {
    CUDA_MEMCPY2D c;

    memset (&c, 0, sizeof (c));
    c.srcMemoryType = CU_MEMORYTYPE_DEVICE;
    c.srcDevice = sl->src + GST_VIDEO_INFO_PLANE_OFFSET (&run->spec.info, p);
    c.srcPitch = GST_VIDEO_INFO_PLANE_STRIDE (&run->spec.info, p);
    c.dstMemoryType = CU_MEMORYTYPE_DEVICE;
    c.dstDevice = sl->p[p].ptr + sl->p[p].offset;
    c.dstPitch = sl->p[p].pitch;
    c.WidthInBytes = sl->p[p].wbytes;
    c.Height = sl->p[p].rows;
    *what = "cuMemcpy2DAsync";
    r = CuMemcpy2DAsync (&c, pstream);
  }
  if (r == CUDA_SUCCESS && d->gpu) {
    CUDA_EXTERNAL_SEMAPHORE_SIGNAL_PARAMS sp;

    memset (&sp, 0, sizeof (sp));
    *what = "cuSignalExternalSemaphoresAsync";
    r = drv.cuSignalExternalSemaphoresAsync (&sl->cu_sem, &sp, 1, pstream);
  } else if (r == CUDA_SUCCESS) {
    *what = "cuStreamSynchronize (CPU fallback)";
    r = CuStreamSynchronize (pstream);
  }
  return r;
}

/* one frame on this (the producer) thread; FALSE: stop (run error set) */
static gboolean
d_produce (DCtx * d, guint n)
{
  Run *run = d->run;
  DSlot *sl = g_async_queue_timeout_pop (d->free_slots, RUN_WAIT_US);
  const gchar *what = NULL;
  VkResult res;
  CUresult r;

  if (!sl) {
    run_error (run, g_strdup ("d: no slot was released for 10 s"));
    return FALSE;
  }
  sl->frame = n;
  sl->t0 = mono_s ();
  if (!gst_cuda_context_push (run->b->ctx)) {
    run_error (run, g_strdup ("d: could not push the CUDA context"));
    return FALSE;
  }
  r = d_enqueue (d, sl, n, &what);
  gst_cuda_context_pop (NULL);
  if (r != CUDA_SUCCESS) {
    run_error (run, cu_error (what, r));
    return FALSE;
  }
  /* d_stall: the consumer submits (vulkandownload's shape); d_split: the
   * producer submits the semaphore wait first */
  if (d->split && (res = d_submit_take (d, sl)) != VK_SUCCESS) {
    run_error (run, d_vk_error ("vkQueueSubmit (take)", res));
    return FALSE;
  }
  if (!d->stall && (res = d_submit (d, sl)) != VK_SUCCESS) {
    run_error (run, d_vk_error ("vkQueueSubmit", res));
    return FALSE;
  }
  g_async_queue_push (d->done, sl);
  return TRUE;
}

/* the measured frames: this (the producer) thread is the critical one */
static void
d_frames (DCtx * d)
{
  Run *run = d->run;
  Bench *b = run->b;
  GThread *consumer;
  gdouble tcpu0 = 0;
  guint syncs0 = 0, n;

  for (n = 0; n < d->n_slots; n++)
    g_async_queue_push (d->free_slots, &d->slots[n]);
  bench_progress (&b->wd);
  consumer = g_thread_new ("bench-d-consumer", d_consumer, d);
  for (n = 0; n < run->total && !run_failed (run); n++) {
    if (bench_stopped (b)) {
      /* another instance failed: its device is ours */
      run_error (run, g_strdup ("d: " BENCH_STOPPED));
      break;
    }
    if (n == run->warmup) {
      /* window opened by the consumer at the last warm-up frame */
      tcpu0 = thread_cpu_s ();
      if (b->sim_thread_cpu_syncs)
        syncs0 = b->sim_thread_cpu_syncs ();
    }
    if (!d_produce (d, n))
      break;
    bench_progress (&b->wd);
  }
  run->prod_cpu = thread_cpu_s () - tcpu0;
  if (b->sim_thread_cpu_syncs)
    run->sim_syncs = b->sim_thread_cpu_syncs () - syncs0;
  g_async_queue_push (d->done, d);      /* stop */
  g_thread_join (consumer);
}

static gboolean
d_results (DCtx * d, ModeResult * m, gchar ** error)
{
  Run *run = d->run;

  if (run->error) {
    *error = g_strdup (run->error);
    return FALSE;
  }
  if (d->bad) {
    *error = g_strdup_printf ("d: the frame Vulkan copied is not what CUDA "
        "wrote: %s", d->bad);
    return FALSE;
  }
  if (run->lat_us->len != run->total - run->warmup) {
    *error = g_strdup_printf ("d: %u of %u frames measured",
        run->lat_us->len, run->total - run->warmup);
    return FALSE;
  }
  g_mutex_lock (&run->b->lock);
  run_record (run, m);
  g_free (m->path);
  m->path = g_strdup (d->gpu ? "GPU (binary semaphores)" :
      "CPU fallback (Vulkan cannot export semaphores: cuStreamSynchronize "
      "before vkQueueSubmit; not the raw limit)");
  g_mutex_unlock (&run->b->lock);
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

static void
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

/* One repetition of mode d or d_stall. */
static gboolean
s3d_run_once (Bench * b, S2Config * cfg, gint mode, const RunInputs * in,
    gchar ** error)
{
  GstCaps *caps = cuda_caps (cfg->format, cfg->width, cfg->height);
  gboolean ok;
  DCtx d;
  Run run;

  run_init (&run, b, cfg, mode, in->writer, in->pstream, in->free_pairs);
  gst_video_info_from_caps (&run.spec.info, caps);
  gst_caps_unref (caps);
  memset (&d, 0, sizeof (d));
  d.run = &run;
  d.n_slots = (guint) b->opt.in_flight;
  d.slots = g_new0 (DSlot, d.n_slots);
  d.done = g_async_queue_new ();
  d.free_slots = g_async_queue_new ();
  d.n_planes = GST_VIDEO_INFO_N_PLANES (&run.spec.info);
  d.verify_kernel = in->writer == WRITER_KERNEL;
  d.stall = mode == MODE_CV_D2 || mode == MODE_CV_D3;
  d.split = mode == MODE_CV_D3;

  ok = d_open (&d, b, error) && d_slots_setup (&d, error) &&
      d_record_all (&d, error);
  /* scenario 6: start with the other instances (a failed one arrives too) */
  if (cfg->gate)
    gate_arrive (cfg->gate, ok);
  if (ok) {
    d_frames (&d);
    ok = d_results (&d, &cfg->m[mode], error);
  }
  d_teardown (&d);
  run_clear (&run);
  /* the reference every ratio is measured against failed: the GPU or the
   * Vulkan device is in doubt (VK_ERROR_DEVICE_LOST, a CUDA error), so
   * nothing later that needs them runs */
  if (!ok && !(*error && g_str_has_suffix (*error, BENCH_STOPPED))) {
    gchar *why = g_strdup_printf ("raw mode %s (%dx%d %s, %g ms of GPU "
        "work) failed: %s", bench_mode_key (b, mode), cfg->width,
        cfg->height, cfg->format, cfg->gpu_us / 1000.0, *error ? *error : "?");

    bench_abort (b, why);
    g_free (why);
  }
  return ok;
}
#else
static gboolean
s3d_run_once (Bench * b, S2Config * cfg, gint mode, const RunInputs * in,
    gchar ** error)
{
  *error = g_strdup ("built without Vulkan");
  return FALSE;
}
#endif

/* the modes (of scenario 3, and run several at once by scenario 6) */

const BenchMode bench_mode_cv_d = {
  .key = "d",
  .desc = "raw-API limit, no GStreamer: the producer thread writes the frame "
      "(same kernel, own CUDA allocation), cuMemcpy2DAsync into exportable "
      "linear Vulkan images (dedicated allocations imported into CUDA) on the "
      "same stream, cuSignalExternalSemaphoresAsync of the slot's binary "
      "semaphore exported by Vulkan, vkQueueSubmit of a pre-recorded command "
      "buffer that waits on it and copies the images into a host-visible "
      "buffer (what vulkandownload does); a consumer thread waits for the "
      "slot's VkFence, checks a few words of the frame and frees the slot "
      "(slots = frames in flight, as a). Without exportable semaphores: "
      "cuStreamSynchronize before the submission (CPU fallback, not the limit)",
  .flags = MODE_F_WALL,
  .run_once = s3d_run_once,
};

const BenchMode bench_mode_cv_d2 = {
  .key = "d_stall",
  .desc = "raw-API limit with the consumer of a: as d, but the consumer thread "
      "submits each frame's copy (waiting on the semaphore) and waits for its "
      "fence before taking the next frame, one at a time, as GStreamer 1.22's "
      "vulkandownload does on its queue thread (\"XXX: STALL!\"): the limit "
      "of a's pipeline shape, without GStreamer and the bridge",
  .flags = MODE_F_WALL,
  .run_once = s3d_run_once,
};

const BenchMode bench_mode_cv_d3 = {
  .key = "d_split",
  .desc = "d_stall with the semaphore wait in a submission of its own, made by "
      "the producer thread right after the CUDA work (the acquire barrier, as "
      "cudatovulkan's take-over does), the copy submitted later by the "
      "consumer: the bridge's submission shape, without GStreamer",
  .flags = MODE_F_WALL,
  .run_once = s3d_run_once,
};

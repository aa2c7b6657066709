/* gst-cudasync
 * Copyright (C) 2026 gst-cudasync developers
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Exportable Vulkan memory (images and buffers, dedicated allocations, and
 * the planes' images of a frame bound to one allocation) imported into CUDA.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstcudavkmemory.h"
#include "gstcudavkcompat.h"
#include "gstcudavkcudamemory.h"
#include <unistd.h>
#include <string.h>

GST_DEBUG_CATEGORY_EXTERN (gst_cuda_vk_debug);
#define GST_CAT_DEFAULT gst_cuda_vk_debug

/* A memory type for @req, device-local if there is one. 1.24 replaced the
 * lookup by type bits with one by requirements (which also checks the heap
 * size). */
static gboolean
find_memory_type (const GstCudaVkAllocParams * alloc,
    const VkMemoryRequirements * req, guint32 * idx)
{
  if (gst_cuda_vk_compat_find_memory_type (alloc->device, req,
          VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, idx))
    return TRUE;
  return gst_cuda_vk_compat_find_memory_type (alloc->device, req, 0, idx);
}

struct _GstCudaVkSharedMemory
{
  gint refcount;
  GstVulkanDevice *device;
  VkDeviceMemory memory;
  GstCudaSyncExternalMemory *ext_mem;   /* Vulkan's memory in CUDA, or */
  GstCudaSyncVmm *vmm;          /* CUDA's, imported by Vulkan */
};

static GstCudaVkSharedMemory *
shared_memory_ref (GstCudaVkSharedMemory * shared)
{
  g_atomic_int_inc (&shared->refcount);
  return shared;
}

/* The last image bound to it is gone (its GPU work completed): CUDA's
 * mapping first, then the Vulkan memory, as for a plane's own */
static void
shared_memory_unref (GstCudaVkSharedMemory * shared)
{
  if (!g_atomic_int_dec_and_test (&shared->refcount))
    return;
  if (shared->ext_mem)
    gst_cuda_sync_external_memory_free (shared->ext_mem);
  if (shared->memory)
    vkFreeMemory (shared->device->device, shared->memory, NULL);
  if (shared->vmm)
    gst_cuda_sync_vmm_free (shared->vmm);
  gst_object_unref (shared->device);
  g_free (shared);
}

/* The memory requirements of @plane's image or buffer; logs whether the
 * driver requires or prefers a dedicated allocation for it, and says in
 * @requires_dedicated (nullable) whether it requires one. */
static void
get_requirements (const GstCudaVkAllocParams * alloc, GstCudaVkPlane * plane,
    VkMemoryRequirements * req, gboolean * requires_dedicated)
{
  PFN_vkGetImageMemoryRequirements2 get_img2 = NULL;
  PFN_vkGetBufferMemoryRequirements2 get_buf2 = NULL;
  VkMemoryDedicatedRequirements ded = { 0, };
  VkMemoryRequirements2 req2 = { 0, };

  if (plane->image) {
    get_img2 = gst_vulkan_device_get_proc_address (alloc->device,
        "vkGetImageMemoryRequirements2");
    if (!get_img2)
      get_img2 = gst_vulkan_device_get_proc_address (alloc->device,
          "vkGetImageMemoryRequirements2KHR");
  } else {
    get_buf2 = gst_vulkan_device_get_proc_address (alloc->device,
        "vkGetBufferMemoryRequirements2");
    if (!get_buf2)
      get_buf2 = gst_vulkan_device_get_proc_address (alloc->device,
          "vkGetBufferMemoryRequirements2KHR");
  }

  ded.sType = VK_STRUCTURE_TYPE_MEMORY_DEDICATED_REQUIREMENTS;
  req2.sType = VK_STRUCTURE_TYPE_MEMORY_REQUIREMENTS_2;
  req2.pNext = &ded;
  if (get_img2) {
    VkImageMemoryRequirementsInfo2 info = { 0, };
    info.sType = VK_STRUCTURE_TYPE_IMAGE_MEMORY_REQUIREMENTS_INFO_2;
    info.image = plane->image;
    get_img2 (alloc->device->device, &info, &req2);
    *req = req2.memoryRequirements;
  } else if (get_buf2) {
    VkBufferMemoryRequirementsInfo2 info = { 0, };
    info.sType = VK_STRUCTURE_TYPE_BUFFER_MEMORY_REQUIREMENTS_INFO_2;
    info.buffer = plane->buffer;
    get_buf2 (alloc->device->device, &info, &req2);
    *req = req2.memoryRequirements;
  } else if (plane->image) {
    vkGetImageMemoryRequirements (alloc->device->device, plane->image, req);
  } else {
    vkGetBufferMemoryRequirements (alloc->device->device, plane->buffer, req);
  }
  GST_DEBUG_OBJECT (alloc->device, "%s: size %" G_GUINT64_FORMAT ", alignment %"
      G_GUINT64_FORMAT ", memory types 0x%x, dedicated allocation: requires %d"
      ", prefers %d", plane->image ? "image" : "buffer", (guint64) req->size,
      (guint64) req->alignment, req->memoryTypeBits,
      ded.requiresDedicatedAllocation, ded.prefersDedicatedAllocation);
  if (requires_dedicated)
    *requires_dedicated = ded.requiresDedicatedAllocation;
}

/* Allocates @req->size exportable bytes of a memory type of @req into
 * *@memory, dedicated to @image or @buffer when one is given */
static gboolean
allocate_exportable (const GstCudaVkAllocParams * alloc,
    const VkMemoryRequirements * req, VkImage image, VkBuffer buffer,
    VkDeviceMemory * memory, GError ** error)
{
  VkExportMemoryAllocateInfo export_info = { 0, };
  VkMemoryDedicatedAllocateInfo dedicated_info = { 0, };
  VkMemoryAllocateInfo ai = { 0, };
  guint32 type_idx;
  VkResult res;

  if (!find_memory_type (alloc, req, &type_idx)) {
    g_set_error (error, GST_CUDA_SYNC_ERROR, GST_CUDA_SYNC_ERROR_FAILED,
        "No Vulkan memory type for exportable memory (bits 0x%x)",
        req->memoryTypeBits);
    return FALSE;
  }
  export_info.sType = VK_STRUCTURE_TYPE_EXPORT_MEMORY_ALLOCATE_INFO;
  export_info.handleTypes = VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT;
  if (image || buffer) {
    dedicated_info.sType = VK_STRUCTURE_TYPE_MEMORY_DEDICATED_ALLOCATE_INFO;
    dedicated_info.image = image;
    dedicated_info.buffer = buffer;
    export_info.pNext = &dedicated_info;
  }
  ai.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO;
  ai.pNext = &export_info;
  ai.allocationSize = req->size;
  ai.memoryTypeIndex = type_idx;
  res = vkAllocateMemory (alloc->device->device, &ai, NULL, memory);
  if (res != VK_SUCCESS) {
    *memory = VK_NULL_HANDLE;
    g_set_error (error, GST_CUDA_SYNC_ERROR, GST_CUDA_SYNC_ERROR_FAILED,
        "vkAllocateMemory of %" G_GUINT64_FORMAT " exportable bytes failed: "
        "%d", (guint64) req->size, res);
    return FALSE;
  }
  GST_DEBUG_OBJECT (alloc->device, "allocated %" G_GUINT64_FORMAT " bytes of "
      "memory type %u (flags 0x%x), %s", (guint64) req->size, type_idx,
      alloc->device->physical_device->memory_properties.memoryTypes[type_idx].
      propertyFlags, export_info.pNext ? "dedicated" : "shared by images");
  return TRUE;
}

/* Exports @memory (@size bytes) as an opaque fd and imports it into CUDA
 * (@dedicated: CUDA_EXTERNAL_MEMORY_DEDICATED, as it was allocated) */
static GstCudaSyncExternalMemory *
export_to_cuda (const GstCudaVkAllocParams * alloc, VkDeviceMemory memory,
    VkDeviceSize size, gboolean dedicated, GError ** error)
{
  VkMemoryGetFdInfoKHR fd_info = { 0, };
  GstCudaSyncExternalMemory *ext_mem;
  VkResult res;
  int fd = -1;

  fd_info.sType = VK_STRUCTURE_TYPE_MEMORY_GET_FD_INFO_KHR;
  fd_info.memory = memory;
  fd_info.handleType = VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT;
  res = alloc->get_memory_fd (alloc->device->device, &fd_info, &fd);
  if (res != VK_SUCCESS || fd < 0) {
    g_set_error (error, GST_CUDA_SYNC_ERROR, GST_CUDA_SYNC_ERROR_FAILED,
        "vkGetMemoryFdKHR failed: %d: the memory cannot be shared with CUDA",
        res);
    return NULL;
  }
  ext_mem = gst_cuda_sync_external_memory_import_fd (alloc->cuda, fd, size,
      dedicated, error);
  /* on failure the fd stays ours */
  if (!ext_mem)
    close (fd);
  return ext_mem;
}

/* Allocates exportable memory for the image or buffer of @plane, exports it
 * and maps it into CUDA.
 *
 * Every exported allocation is dedicated (VkMemoryDedicatedAllocateInfo) and
 * imported with CUDA_EXTERNAL_MEMORY_DEDICATED, whatever the driver reports:
 * the NVIDIA driver asks for no dedicated allocation, yet CUDA's writes into
 * a plain one read wrong in Vulkan (docs/known-issues.md). The size given
 * to CUDA is the allocation's (VkMemoryRequirements.size), not the plane's.
 * gst_cuda_vk_planes_alloc_one_memory()'s planes share one allocation,
 * which cannot be dedicated: CUDA's own there (gstcudavkcudamemory.c). */
static gboolean
alloc_and_import (const GstCudaVkAllocParams * alloc, GstCudaVkPlane * plane,
    GError ** error)
{
  VkMemoryRequirements req;
  VkResult res;

  get_requirements (alloc, plane, &req, NULL);
  if (!allocate_exportable (alloc, &req, plane->image, plane->buffer,
          &plane->memory, error))
    return FALSE;
  plane->alloc_size = req.size;
  res = plane->image ? vkBindImageMemory (alloc->device->device, plane->image,
      plane->memory, 0) : vkBindBufferMemory (alloc->device->device,
      plane->buffer, plane->memory, 0);
  if (res != VK_SUCCESS) {
    g_set_error (error, GST_CUDA_SYNC_ERROR, GST_CUDA_SYNC_ERROR_FAILED,
        "vkBind*Memory failed: %d", res);
    return FALSE;
  }
  plane->ext_mem = export_to_cuda (alloc, plane->memory, req.size, TRUE, error);
  if (!plane->ext_mem)
    return FALSE;
  plane->cuda_ptr = gst_cuda_sync_external_memory_get_pointer (plane->ext_mem);
  return TRUE;
}

/* What @device says of linear @format images of @usage exported as
 * opaque fds: VK_SUCCESS with their limits in @limits and their external
 * memory features (VK_EXTERNAL_MEMORY_FEATURE_EXPORTABLE_BIT ...) in
 * @features (0 on failure); VK_ERROR_EXTENSION_NOT_PRESENT without
 * vkGetPhysicalDeviceImageFormatProperties2 (nothing to ask) */
static VkResult
export_format_props (GstVulkanDevice * device, VkFormat format,
    VkImageUsageFlags usage, VkImageFormatProperties * limits,
    VkExternalMemoryFeatureFlags * features)
{
  PFN_vkGetPhysicalDeviceImageFormatProperties2 get_fmt_props =
      gst_vulkan_instance_get_proc_address (device->instance,
      "vkGetPhysicalDeviceImageFormatProperties2");
  VkPhysicalDeviceExternalImageFormatInfo ext_fmt = { 0, };
  VkPhysicalDeviceImageFormatInfo2 fmt_info = { 0, };
  VkExternalImageFormatProperties ext_props = { 0, };
  VkImageFormatProperties2 props = { 0, };
  VkResult res;

  *features = 0;
  if (!get_fmt_props)
    return VK_ERROR_EXTENSION_NOT_PRESENT;
  ext_fmt.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_EXTERNAL_IMAGE_FORMAT_INFO;
  ext_fmt.handleType = VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT;
  fmt_info.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_IMAGE_FORMAT_INFO_2;
  fmt_info.pNext = &ext_fmt;
  fmt_info.format = format;
  fmt_info.type = VK_IMAGE_TYPE_2D;
  fmt_info.tiling = VK_IMAGE_TILING_LINEAR;
  fmt_info.usage = usage;
  ext_props.sType = VK_STRUCTURE_TYPE_EXTERNAL_IMAGE_FORMAT_PROPERTIES;
  props.sType = VK_STRUCTURE_TYPE_IMAGE_FORMAT_PROPERTIES_2;
  props.pNext = &ext_props;
  res = get_fmt_props (device->physical_device->device, &fmt_info, &props);
  *limits = props.imageFormatProperties;
  if (res == VK_SUCCESS)
    *features = ext_props.externalMemoryProperties.externalMemoryFeatures;
  return res;
}

/* The largest linear, exportable @format image of @usage @device makes:
 * maxImageDimension2D, less where the format's maxExtent is less (then
 * *@format_limited) */
static void
image_max_extent (GstVulkanDevice * device, VkFormat format,
    VkImageUsageFlags usage, guint * max_w, guint * max_h,
    gboolean * format_limited)
{
  guint dim = device->physical_device->properties.limits.maxImageDimension2D;
  VkImageFormatProperties limits;
  VkExternalMemoryFeatureFlags features;

  *max_w = *max_h = dim;
  *format_limited = FALSE;
  /* not supported at all: gst_cuda_vk_plane_alloc_image() says so */
  if (export_format_props (device, format, usage, &limits,
          &features) != VK_SUCCESS)
    return;
  if (limits.maxExtent.width < dim || limits.maxExtent.height < dim)
    *format_limited = TRUE;
  *max_w = MIN (dim, limits.maxExtent.width);
  *max_h = MIN (dim, limits.maxExtent.height);
}

/* Whether @device makes a @format image of @width x @height; else @error
 * names the limit. @what: what the image is for (the message's start). */
static gboolean
check_image_extent (GstVulkanDevice * device, VkFormat format, guint width,
    guint height, VkImageUsageFlags usage, const gchar * what, GError ** error)
{
  guint max_w, max_h;
  gboolean format_limited;

  image_max_extent (device, format, usage, &max_w, &max_h, &format_limited);
  if (width <= max_w && height <= max_h)
    return TRUE;
  if (format_limited)
    g_set_error (error, GST_CUDA_SYNC_ERROR, GST_CUDA_SYNC_ERROR_NOT_SUPPORTED,
        "%s larger than the Vulkan device's linear images of format %d can "
        "be (maxExtent %ux%u)", what, format, max_w, max_h);
  else
    g_set_error (error, GST_CUDA_SYNC_ERROR, GST_CUDA_SYNC_ERROR_NOT_SUPPORTED,
        "%s larger than the Vulkan device's images can be "
        "(maxImageDimension2D %u)", what,
        device->physical_device->properties.limits.maxImageDimension2D);
  return FALSE;
}

gboolean
gst_cuda_vk_check_image_size (GstVulkanDevice * device,
    const GstVideoInfo * info, VkImageUsageFlags usage, GError ** error)
{
  guint i;

  for (i = 0; i < GST_VIDEO_INFO_N_PLANES (info); i++) {
    guint w = GST_VIDEO_INFO_COMP_WIDTH (info, i);
    guint h = GST_VIDEO_INFO_COMP_HEIGHT (info, i);
    gchar *what = g_strdup_printf ("%ux%u frames are", GST_VIDEO_INFO_WIDTH
        (info), GST_VIDEO_INFO_HEIGHT (info));
    gboolean ok = check_image_extent (device,
        gst_cuda_vk_plane_format (info, i), w, h,
        usage, what, error);

    g_free (what);
    if (!ok)
      return FALSE;
  }
  return TRUE;
}

gboolean
gst_cuda_vk_image_exportable (GstVulkanDevice * device,
    const GstVideoInfo * info, VkImageUsageFlags usage, GError ** error)
{
  VkImageFormatProperties limits;
  VkExternalMemoryFeatureFlags features;
  guint i;

  for (i = 0; i < GST_VIDEO_INFO_N_PLANES (info); i++) {
    VkFormat format = gst_cuda_vk_plane_format (info, i);
    VkResult res = export_format_props (device, format, usage, &limits,
        &features);

    if (res != VK_SUCCESS || !(features &
            VK_EXTERNAL_MEMORY_FEATURE_EXPORTABLE_BIT)) {
      g_set_error (error, GST_CUDA_SYNC_ERROR,
          GST_CUDA_SYNC_ERROR_NOT_SUPPORTED, "Vulkan makes no exportable "
          "linear images of format %d with usage 0x%x (%d)", format, usage,
          res);
      return FALSE;
    }
  }
  return gst_cuda_vk_check_image_size (device, info, usage, error);
}

/* Creates @plane's linear, exportable image of @format (@width x
 * @height) after checking that the device makes it */
static gboolean
create_image (const GstCudaVkAllocParams * alloc, GstCudaVkPlane * plane,
    VkFormat format, guint width, guint height, VkImageUsageFlags usage,
    GError ** error)
{
  VkExternalMemoryImageCreateInfo ext_ci = { 0, };
  VkImageCreateInfo ci = { 0, };
  VkImageFormatProperties limits;
  VkExternalMemoryFeatureFlags features;
  VkResult res;

  memset (plane, 0, sizeof (*plane));
  plane->format = format;
  plane->width = width;
  plane->height = height;

  /* never an image beyond the device's limits (the caps were checked:
   * gst_cuda_vk_check_image_size()) */
  {
    gchar *what = g_strdup_printf ("A %ux%u image is", width, height);
    gboolean ok =
        check_image_extent (alloc->device, format, width, height, usage,
        what, error);

    g_free (what);
    if (!ok)
      return FALSE;
  }

  res = export_format_props (alloc->device, format, usage, &limits, &features);
  if (res != VK_ERROR_EXTENSION_NOT_PRESENT &&
      !(features & VK_EXTERNAL_MEMORY_FEATURE_EXPORTABLE_BIT)) {
    g_set_error (error, GST_CUDA_SYNC_ERROR, GST_CUDA_SYNC_ERROR_NOT_SUPPORTED,
        "Vulkan cannot export linear %ux%u images of format %d as opaque "
        "fds (%d): memory cannot be shared with CUDA", width, height,
        format, res);
    return FALSE;
  }

  ext_ci.sType = VK_STRUCTURE_TYPE_EXTERNAL_MEMORY_IMAGE_CREATE_INFO;
  ext_ci.handleTypes = VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT;
  ci.sType = VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO;
  ci.pNext = &ext_ci;
  ci.imageType = VK_IMAGE_TYPE_2D;
  ci.format = format;
  ci.extent.width = width;
  ci.extent.height = height;
  ci.extent.depth = 1;
  ci.mipLevels = 1;
  ci.arrayLayers = 1;
  ci.samples = VK_SAMPLE_COUNT_1_BIT;
  ci.tiling = VK_IMAGE_TILING_LINEAR;
  ci.usage = usage;
  ci.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
  /* external memory: must start UNDEFINED (VUID-VkImageCreateInfo-pNext-01443);
   * the user moves it to GENERAL before CUDA writes into it */
  ci.initialLayout = VK_IMAGE_LAYOUT_UNDEFINED;
  res = vkCreateImage (alloc->device->device, &ci, NULL, &plane->image);
  if (res != VK_SUCCESS) {
    plane->image = VK_NULL_HANDLE;
    g_set_error (error, GST_CUDA_SYNC_ERROR, GST_CUDA_SYNC_ERROR_FAILED,
        "vkCreateImage (%ux%u, format %d, linear, exportable) failed: %d",
        width, height, format, res);
    return FALSE;
  }
  gst_cuda_vk_namer_name (alloc->namer, VK_OBJECT_TYPE_IMAGE,
      (guint64) plane->image, "image");
  GST_DEBUG_OBJECT (alloc->device,
      "linear %ux%u image of format %d, external memory features 0x%x",
      width, height, format, features);
  return TRUE;
}

/* The layout of @aspect of @plane's linear image */
static void
image_layout (const GstCudaVkAllocParams * alloc, GstCudaVkPlane * plane,
    VkImageAspectFlags aspect, VkSubresourceLayout * layout)
{
  VkImageSubresource sub = { aspect, 0, 0 };

  vkGetImageSubresourceLayout (alloc->device->device, plane->image, &sub,
      layout);
  GST_DEBUG_OBJECT (alloc->device,
      "image aspect 0x%x: offset %" G_GUINT64_FORMAT ", row pitch %"
      G_GUINT64_FORMAT ", size %" G_GUINT64_FORMAT, aspect,
      (guint64) layout->offset, (guint64) layout->rowPitch,
      (guint64) layout->size);
}

gboolean
gst_cuda_vk_plane_alloc_image (const GstCudaVkAllocParams * alloc,
    GstCudaVkPlane * plane, VkFormat format, guint width, guint height,
    VkImageUsageFlags usage, GError ** error)
{
  VkSubresourceLayout layout;

  if (!create_image (alloc, plane, format, width, height, usage, error))
    return FALSE;
  /* linear image: CUDA writes the rows where this layout says they are */
  image_layout (alloc, plane, VK_IMAGE_ASPECT_COLOR_BIT, &layout);
  plane->offset = layout.offset;
  plane->pitch = layout.rowPitch;
  plane->size = layout.size;
  if (!alloc_and_import (alloc, plane, error)) {
    gst_cuda_vk_plane_free (alloc->cuda, alloc->device, plane);
    return FALSE;
  }
  plane->cuda_ptr += plane->offset;
  return TRUE;
}

gboolean
gst_cuda_vk_plane_alloc_multiplanar (const GstCudaVkAllocParams * alloc,
    GstCudaVkPlane * plane, const GstVideoInfo * info,
    VkImageUsageFlags usage, GError ** error)
{
  static const VkImageAspectFlags aspects[] = { VK_IMAGE_ASPECT_PLANE_0_BIT,
    VK_IMAGE_ASPECT_PLANE_1_BIT, VK_IMAGE_ASPECT_PLANE_2_BIT
  };
  VkFormat format = gst_cuda_vk_multiplanar_format (info);
  guint i, n = GST_VIDEO_INFO_N_PLANES (info);

  g_return_val_if_fail (format != VK_FORMAT_UNDEFINED, FALSE);
  /* 4:2:0 images have an even width and height
   * (VUID-VkImageCreateInfo-format-04712, -04713): an odd frame is the
   * top left of the next even size, whose chroma planes have the frame's
   * rows and columns (GStreamer rounds a 4:2:0 plane's size up) */
  if (!create_image (alloc, plane, format,
          GST_ROUND_UP_2 (GST_VIDEO_INFO_WIDTH (info)),
          GST_ROUND_UP_2 (GST_VIDEO_INFO_HEIGHT (info)), usage, error))
    return FALSE;
  if (!alloc_and_import (alloc, plane, error)) {
    gst_cuda_vk_plane_free (alloc->cuda, alloc->device, plane);
    return FALSE;
  }
  /* every plane where the driver put it in the one allocation; asked once
   * the memory is bound: Mesa lavapipe (25.0) adds a plane's offset in
   * the image only at binding, and reports 0 for every plane before */
  for (i = 0; i < n; i++) {
    VkSubresourceLayout layout;

    image_layout (alloc, plane, aspects[i], &layout);
    plane->sub_offset[i] = layout.offset;
    plane->sub_pitch[i] = layout.rowPitch;
    plane->size = MAX (plane->size, layout.offset + layout.size);
  }
  plane->pitch = plane->sub_pitch[0];
  if (plane->size > plane->alloc_size) {
    g_set_error (error, GST_CUDA_SYNC_ERROR, GST_CUDA_SYNC_ERROR_FAILED,
        "The planes of a multi-planar image end at byte %" G_GSIZE_FORMAT
        ", past its memory (%" G_GUINT64_FORMAT " bytes)", plane->size,
        (guint64) plane->alloc_size);
    gst_cuda_vk_plane_free (alloc->cuda, alloc->device, plane);
    return FALSE;
  }
  return TRUE;
}

/* Creates the linear image of every plane of @info in @planes and lays
 * them out in one allocation: image i at @bind[i] (its alignment
 * respected), the whole in @all (size, the largest alignment, the memory
 * types every image can use). NOT_SUPPORTED where that cannot be one
 * exportable allocation; @planes then hold what was created. */
static gboolean
plan_one_memory (const GstCudaVkAllocParams * alloc, const GstVideoInfo * info,
    VkImageUsageFlags usage, GstCudaVkPlane * planes, VkDeviceSize * bind,
    VkMemoryRequirements * all, GError ** error)
{
  guint i, n = GST_VIDEO_INFO_N_PLANES (info);

  memset (planes, 0, n * sizeof (GstCudaVkPlane));
  memset (all, 0, sizeof (*all));
  all->memoryTypeBits = G_MAXUINT32;
  for (i = 0; i < n; i++) {
    VkFormat format = gst_cuda_vk_plane_format (info, i);
    VkExternalMemoryFeatureFlags features;
    VkImageFormatProperties limits;
    VkMemoryRequirements req;
    gboolean dedicated;

    if (!create_image (alloc, &planes[i], format,
            GST_VIDEO_INFO_COMP_WIDTH (info, i),
            GST_VIDEO_INFO_COMP_HEIGHT (info, i), usage, error))
      return FALSE;
    get_requirements (alloc, &planes[i], &req, &dedicated);
    export_format_props (alloc->device, format, usage, &limits, &features);
    if (dedicated || (features & VK_EXTERNAL_MEMORY_FEATURE_DEDICATED_ONLY_BIT)) {
      g_set_error (error, GST_CUDA_SYNC_ERROR,
          GST_CUDA_SYNC_ERROR_NOT_SUPPORTED, "exportable linear images of "
          "format %d need a dedicated allocation", format);
      return FALSE;
    }
    /* alignment: a power of two (VkMemoryRequirements) */
    bind[i] = (all->size + req.alignment - 1) & ~(req.alignment - 1);
    all->size = bind[i] + req.size;
    all->alignment = MAX (all->alignment, req.alignment);
    all->memoryTypeBits &= req.memoryTypeBits;
  }
  if (!all->memoryTypeBits) {
    g_set_error (error, GST_CUDA_SYNC_ERROR, GST_CUDA_SYNC_ERROR_NOT_SUPPORTED,
        "the images of the %u planes have no memory type in common", n);
    return FALSE;
  }
  return TRUE;
}

static void
free_planes (const GstCudaVkAllocParams * alloc, GstCudaVkPlane * planes,
    guint n)
{
  guint i;

  for (i = 0; i < n; i++)
    gst_cuda_vk_plane_free (alloc->cuda, alloc->device, &planes[i]);
}

gboolean
gst_cuda_vk_one_memory_supported (const GstCudaVkAllocParams * alloc,
    const GstVideoInfo * info, VkImageUsageFlags usage, GError ** error)
{
  GstCudaVkPlane planes[GST_VIDEO_MAX_PLANES];
  VkDeviceSize bind[GST_VIDEO_MAX_PLANES];
  VkMemoryRequirements all;
  guint32 type_idx = 0;
  gboolean ok;

  ok = plan_one_memory (alloc, info, usage, planes, bind, &all, error);
  if (ok && !find_memory_type (alloc, &all, &type_idx)) {
    g_set_error (error, GST_CUDA_SYNC_ERROR, GST_CUDA_SYNC_ERROR_NOT_SUPPORTED,
        "no memory type of %" G_GUINT64_FORMAT " bytes for every plane's "
        "image (bits 0x%x)", (guint64) all.size, all.memoryTypeBits);
    ok = FALSE;
  }
  /* where CUDA's memory is the only one read right: that it imports */
  ok = ok && gst_cuda_vk_cuda_memory_probe (alloc->cuda, alloc->device, &all,
      type_idx, error);
  free_planes (alloc, planes, GST_VIDEO_INFO_N_PLANES (info));
  return ok;
}

/* Binds @planes' images at @bind in @shared's memory, imported into CUDA
 * as @all->size bytes, and sets where each plane lies there */
static gboolean
bind_one_memory (const GstCudaVkAllocParams * alloc, GstCudaVkPlane * planes,
    guint n, const VkDeviceSize * bind, const VkMemoryRequirements * all,
    GstCudaVkSharedMemory * shared, GError ** error)
{
  CUdeviceptr base;
  guint i;

  for (i = 0; i < n; i++) {
    VkResult res = vkBindImageMemory (alloc->device->device, planes[i].image,
        shared->memory, bind[i]);

    if (res != VK_SUCCESS) {
      g_set_error (error, GST_CUDA_SYNC_ERROR, GST_CUDA_SYNC_ERROR_FAILED,
          "vkBindImageMemory of plane %u at %" G_GUINT64_FORMAT " failed: %d",
          i, (guint64) bind[i], res);
      return FALSE;
    }
  }
  if (shared->vmm) {
    base = gst_cuda_sync_vmm_get_pointer (shared->vmm);
  } else {
    /* not dedicated: several images (see alloc_and_import()) */
    shared->ext_mem = export_to_cuda (alloc, shared->memory, all->size, FALSE,
        error);
    if (!shared->ext_mem)
      return FALSE;
    base = gst_cuda_sync_external_memory_get_pointer (shared->ext_mem);
  }
  for (i = 0; i < n; i++) {
    VkSubresourceLayout layout;

    /* asked once bound, as for a multi-planar image (Mesa lavapipe sets
     * some offsets at binding); relative to the image's binding */
    image_layout (alloc, &planes[i], VK_IMAGE_ASPECT_COLOR_BIT, &layout);
    planes[i].offset = bind[i] + layout.offset;
    planes[i].pitch = layout.rowPitch;
    planes[i].size = layout.size;
    planes[i].alloc_size = all->size;
    if (planes[i].offset + planes[i].size > all->size) {
      g_set_error (error, GST_CUDA_SYNC_ERROR, GST_CUDA_SYNC_ERROR_FAILED,
          "plane %u ends at byte %" G_GSIZE_FORMAT ", past its memory (%"
          G_GUINT64_FORMAT " bytes)", i, planes[i].offset + planes[i].size,
          (guint64) all->size);
      return FALSE;
    }
    planes[i].cuda_ptr = base + planes[i].offset;
  }
  return TRUE;
}

/* The allocation the planes' images share: CUDA's, imported by Vulkan,
 * where that works (gstcudavkcudamemory.c says why), else Vulkan's, which
 * bind_one_memory() imports into CUDA */
static gboolean
allocate_shared (const GstCudaVkAllocParams * alloc,
    const VkMemoryRequirements * all, GstCudaVkSharedMemory * shared,
    GError ** error)
{
  guint32 type_idx;

  /* never Vulkan's allocation where that reads wrong (the caller checked
   * gst_cuda_vk_one_memory_supported(), which has the memory type) */
  if (!gst_cuda_vk_cuda_memory_needed (alloc->device))
    return allocate_exportable (alloc, all, VK_NULL_HANDLE, VK_NULL_HANDLE,
        &shared->memory, error);
  if (!find_memory_type (alloc, all, &type_idx)) {
    g_set_error (error, GST_CUDA_SYNC_ERROR, GST_CUDA_SYNC_ERROR_FAILED,
        "no memory type for every plane's image");
    return FALSE;
  }
  shared->vmm = gst_cuda_vk_cuda_memory_import (alloc->cuda, alloc->device,
      all, type_idx, &shared->memory, error);
  return shared->vmm != NULL;
}

gboolean
gst_cuda_vk_planes_alloc_one_memory (const GstCudaVkAllocParams * alloc,
    const GstVideoInfo * info, VkImageUsageFlags usage, GstCudaVkPlane * planes,
    GError ** error)
{
  guint i, n = GST_VIDEO_INFO_N_PLANES (info);
  VkDeviceSize bind[GST_VIDEO_MAX_PLANES];
  GstCudaVkSharedMemory *shared;
  VkMemoryRequirements all;

  if (!plan_one_memory (alloc, info, usage, planes, bind, &all, error)) {
    free_planes (alloc, planes, n);
    return FALSE;
  }
  shared = g_new0 (GstCudaVkSharedMemory, 1);
  shared->refcount = 1;
  shared->device = gst_object_ref (alloc->device);
  if (!allocate_shared (alloc, &all, shared, error) ||
      !bind_one_memory (alloc, planes, n, bind, &all, shared, error)) {
    /* the images first: nothing may be bound to freed memory */
    free_planes (alloc, planes, n);
    shared_memory_unref (shared);
    return FALSE;
  }
  for (i = 0; i < n; i++) {
    planes[i].memory = shared->memory;
    planes[i].shared = shared_memory_ref (shared);
  }
  shared_memory_unref (shared);
  return TRUE;
}

gboolean
gst_cuda_vk_plane_alloc_buffer (const GstCudaVkAllocParams * alloc,
    GstCudaVkPlane * plane, gsize size, VkBufferUsageFlags usage,
    GError ** error)
{
  VkExternalMemoryBufferCreateInfo ext_ci = { 0, };
  VkBufferCreateInfo ci = { 0, };
  VkResult res;

  memset (plane, 0, sizeof (*plane));
  ext_ci.sType = VK_STRUCTURE_TYPE_EXTERNAL_MEMORY_BUFFER_CREATE_INFO;
  ext_ci.handleTypes = VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT;
  ci.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO;
  ci.pNext = &ext_ci;
  ci.size = size;
  ci.usage = usage;
  ci.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
  res = vkCreateBuffer (alloc->device->device, &ci, NULL, &plane->buffer);
  if (res == VK_SUCCESS)
    gst_cuda_vk_namer_name (alloc->namer, VK_OBJECT_TYPE_BUFFER,
        (guint64) plane->buffer, "buffer");
  if (res != VK_SUCCESS) {
    plane->buffer = VK_NULL_HANDLE;
    g_set_error (error, GST_CUDA_SYNC_ERROR, GST_CUDA_SYNC_ERROR_FAILED,
        "vkCreateBuffer (%" G_GSIZE_FORMAT " bytes, exportable) failed: %d",
        size, res);
    return FALSE;
  }
  plane->size = size;
  if (!alloc_and_import (alloc, plane, error)) {
    gst_cuda_vk_plane_free (alloc->cuda, alloc->device, plane);
    return FALSE;
  }
  return TRUE;
}

/* The caller made sure no GPU work uses the plane any more. */
void
gst_cuda_vk_plane_free (GstCudaContext * cuda, GstVulkanDevice * device,
    GstCudaVkPlane * plane)
{
  if (plane->ext_mem)
    gst_cuda_sync_external_memory_free (plane->ext_mem);
  plane->ext_mem = NULL;
  plane->cuda_ptr = 0;
  if (device && device->device) {
    if (plane->image)
      vkDestroyImage (device->device, plane->image, NULL);
    if (plane->buffer)
      vkDestroyBuffer (device->device, plane->buffer, NULL);
    if (plane->memory && !plane->shared)
      vkFreeMemory (device->device, plane->memory, NULL);
  }
  /* a shared allocation goes with the last image bound to it */
  if (plane->shared)
    shared_memory_unref (plane->shared);
  memset (plane, 0, sizeof (*plane));
}

gboolean
gst_cuda_vk_multiplanar_supported (GstVulkanDevice * device,
    const GstVideoInfo * info, VkImageUsageFlags usage, GError ** error)
{
  VkFormat format = gst_cuda_vk_multiplanar_format (info);
  VkImageFormatProperties limits;
  VkExternalMemoryFeatureFlags features = 0;
  VkResult res = VK_ERROR_FORMAT_NOT_SUPPORTED;

  if (format != VK_FORMAT_UNDEFINED)
    res = export_format_props (device, format, usage, &limits, &features);
  if (res == VK_SUCCESS
      && (features & VK_EXTERNAL_MEMORY_FEATURE_EXPORTABLE_BIT))
    return TRUE;
  g_set_error (error, GST_CUDA_SYNC_ERROR, GST_CUDA_SYNC_ERROR_NOT_SUPPORTED,
      "The Vulkan device makes no linear, exportable multi-planar images for "
      "%s frames (format %d: %d, external memory features 0x%x)",
      gst_video_format_to_string (GST_VIDEO_INFO_FORMAT (info)), format, res,
      features);
  return FALSE;
}

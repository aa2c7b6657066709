/* gst-cudasync
 * Copyright (C) 2026 gst-cudasync developers
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * cudasync-ipc-consume --vulkan: the sink's frames read with Vulkan alone,
 * in a process that makes no CUDA call. The Vulkan device is the one
 * whose deviceUUID is the sink's (HELLO). The shared memory (the sink's
 * VMM allocations, exported as POSIX fds) is imported as OPAQUE_FD memory
 * bound to a VkBuffer; the sink's acquire semaphore is imported as a
 * timeline semaphore (OPAQUE_FD), and ours is a timeline semaphore
 * exported as OPAQUE_FD. Each frame is one submission: it waits on the
 * GPU for the acquire value, takes the buffer from the external queue
 * family, copies the frame into a host-visible buffer, gives the buffer
 * back to the external queue family, and signals the release value. The
 * host waits for the submission's fence only, to hash the bytes; it never
 * waits on a semaphore that CUDA signals.
 */
#include "cudasync-ipc-consume.h"
#include <string.h>
#include <unistd.h>
#include <vulkan/vulkan.h>

#define FD_TYPE VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT

static struct
{
  VkInstance instance;
  VkPhysicalDevice phys;
  VkDevice device;
  VkQueue queue;
  guint32 family;
  VkCommandPool cmd_pool;
  VkCommandBuffer cmd;
  VkFence fence;
  VkSemaphore acquire, release;
  /* the fd exported from @release, open while it lives */
  gint release_fd;
  PFN_vkImportSemaphoreFdKHR ImportSemaphoreFd;
  PFN_vkGetSemaphoreFdKHR GetSemaphoreFd;
  struct
  {
    VkBuffer buf;
    VkDeviceMemory mem;
  } frames[CONSUME_MAX_IDS];
  VkBuffer host_buf;
  VkDeviceMemory host_mem;
  gsize host_size;
  void *host_ptr;
  gboolean host_coherent;
} vk;

#define VK_CHECK(call, what) do { if ((call) != VK_SUCCESS) \
    return consume_fail (what); } while (0)

/* the physical device whose deviceUUID is @uuid, and a queue family that
 * copies */
static gboolean
find_device (const guint8 uuid[16])
{
  VkPhysicalDevice devs[16];
  guint32 n = G_N_ELEMENTS (devs), i, j;

  if (vkEnumeratePhysicalDevices (vk.instance, &n, devs) < 0)
    return FALSE;
  for (i = 0; i < n; i++) {
    VkPhysicalDeviceIDProperties id = {
      .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_ID_PROPERTIES
    };
    VkPhysicalDeviceProperties2 props = {
      .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2,.pNext = &id
    };
    VkQueueFamilyProperties fam[16];
    guint32 n_fam = G_N_ELEMENTS (fam);

    VkPhysicalDeviceVulkan12Features f12 = {
      .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES
    };
    VkPhysicalDeviceFeatures2 features = {
      .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2,.pNext = &f12
    };

    vkGetPhysicalDeviceProperties2 (devs[i], &props);
    if (memcmp (id.deviceUUID, uuid, VK_UUID_SIZE) != 0 ||
        props.properties.apiVersion < VK_API_VERSION_1_2)
      continue;
    vkGetPhysicalDeviceFeatures2 (devs[i], &features);
    if (!f12.timelineSemaphore)
      continue;
    vkGetPhysicalDeviceQueueFamilyProperties (devs[i], &n_fam, fam);
    for (j = 0; j < n_fam; j++) {
      if (fam[j].queueFlags & (VK_QUEUE_GRAPHICS_BIT | VK_QUEUE_COMPUTE_BIT |
              VK_QUEUE_TRANSFER_BIT)) {
        vk.phys = devs[i];
        vk.family = j;
        return TRUE;
      }
    }
  }
  return FALSE;
}

static gboolean
make_device (void)
{
  static const char *exts[] = { VK_KHR_EXTERNAL_MEMORY_FD_EXTENSION_NAME,
    VK_KHR_EXTERNAL_SEMAPHORE_FD_EXTENSION_NAME
  };
  VkPhysicalDeviceVulkan12Features f12 = {
    .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES,
    .timelineSemaphore = VK_TRUE
  };
  float prio = 1.0f;
  VkDeviceQueueCreateInfo q = {
    .sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO,
    .queueFamilyIndex = vk.family,.queueCount = 1,.pQueuePriorities = &prio
  };
  VkDeviceCreateInfo d = {
    .sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO,.pNext = &f12,
    .queueCreateInfoCount = 1,.pQueueCreateInfos = &q,
    .enabledExtensionCount = G_N_ELEMENTS (exts),.ppEnabledExtensionNames = exts
  };
  VkCommandPoolCreateInfo pool = {
    .sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
    .flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT,
    .queueFamilyIndex = vk.family
  };
  VkCommandBufferAllocateInfo cb = {
    .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
    .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,.commandBufferCount = 1
  };
  VkFenceCreateInfo fence = {.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO };

  VK_CHECK (vkCreateDevice (vk.phys, &d, NULL, &vk.device),
      "vkCreateDevice (external memory and semaphore fds, timelines)");
  vkGetDeviceQueue (vk.device, vk.family, 0, &vk.queue);
  vk.ImportSemaphoreFd = (PFN_vkImportSemaphoreFdKHR)
      vkGetDeviceProcAddr (vk.device, "vkImportSemaphoreFdKHR");
  vk.GetSemaphoreFd = (PFN_vkGetSemaphoreFdKHR)
      vkGetDeviceProcAddr (vk.device, "vkGetSemaphoreFdKHR");
  if (!vk.ImportSemaphoreFd || !vk.GetSemaphoreFd)
    return consume_fail ("no VK_KHR_external_semaphore_fd");
  VK_CHECK (vkCreateCommandPool (vk.device, &pool, NULL, &vk.cmd_pool),
      "vkCreateCommandPool");
  cb.commandPool = vk.cmd_pool;
  VK_CHECK (vkAllocateCommandBuffers (vk.device, &cb, &vk.cmd),
      "vkAllocateCommandBuffers");
  VK_CHECK (vkCreateFence (vk.device, &fence, NULL, &vk.fence),
      "vkCreateFence");
  return TRUE;
}

static gboolean
vulkan_open (const guint8 uuid[16], guint8 ours[16])
{
  VkApplicationInfo app = {
    .sType = VK_STRUCTURE_TYPE_APPLICATION_INFO,
    .pApplicationName = "cudasync-ipc-consume",.apiVersion = VK_API_VERSION_1_2
  };
  VkInstanceCreateInfo ci = {
    .sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO,.pApplicationInfo = &app
  };

  vk.release_fd = -1;
  VK_CHECK (vkCreateInstance (&ci, NULL, &vk.instance), "vkCreateInstance");
  if (!find_device (uuid))
    return consume_fail ("no Vulkan 1.2 device with timeline semaphores has "
        "the sink's CUDA device UUID");
  memcpy (ours, uuid, 16);
  return make_device ();
}

static VkSemaphore
timeline (gboolean exportable)
{
  VkExportSemaphoreCreateInfo exp = {
    .sType = VK_STRUCTURE_TYPE_EXPORT_SEMAPHORE_CREATE_INFO,
    .handleTypes = VK_EXTERNAL_SEMAPHORE_HANDLE_TYPE_OPAQUE_FD_BIT
  };
  VkSemaphoreTypeCreateInfo type = {
    .sType = VK_STRUCTURE_TYPE_SEMAPHORE_TYPE_CREATE_INFO,
    .pNext = exportable ? &exp : NULL,
    .semaphoreType = VK_SEMAPHORE_TYPE_TIMELINE,.initialValue = 0
  };
  VkSemaphoreCreateInfo ci = {
    .sType = VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO,.pNext = &type
  };
  VkSemaphore s = VK_NULL_HANDLE;

  if (vkCreateSemaphore (vk.device, &ci, NULL, &s) != VK_SUCCESS)
    return VK_NULL_HANDLE;
  return s;
}

static gint
vulkan_release_fd (void)
{
  VkSemaphoreGetFdInfoKHR info = {
    .sType = VK_STRUCTURE_TYPE_SEMAPHORE_GET_FD_INFO_KHR,
    .handleType = VK_EXTERNAL_SEMAPHORE_HANDLE_TYPE_OPAQUE_FD_BIT
  };
  gint fd = -1;

  if (!vk.release && !(vk.release = timeline (TRUE)))
    return -1;
  /* The exported fd stays open while the semaphore lives, and the caller
   * gets a duplicate. The validation layer remembers the numbers of the
   * fds Vulkan exported: if this one were closed, a memory fd received
   * later could take its number, and its import would be checked as
   * Vulkan's own export (VUID-VkMemoryAllocateInfo-allocationSize-01742) */
  if (vk.release_fd < 0) {
    info.semaphore = vk.release;
    if (vk.GetSemaphoreFd (vk.device, &info, &fd) != VK_SUCCESS)
      return -1;
    vk.release_fd = fd;
  }
  return dup (vk.release_fd);
}

/* a permanent import: Vulkan owns @fd once it succeeded */
static gboolean
vulkan_import_acquire (gint fd)
{
  VkImportSemaphoreFdInfoKHR info = {
    .sType = VK_STRUCTURE_TYPE_IMPORT_SEMAPHORE_FD_INFO_KHR,
    .handleType = VK_EXTERNAL_SEMAPHORE_HANDLE_TYPE_OPAQUE_FD_BIT,.fd = fd
  };

  if (!(vk.acquire = timeline (FALSE)))
    return consume_fail ("vkCreateSemaphore (timeline)");
  info.semaphore = vk.acquire;
  VK_CHECK (vk.ImportSemaphoreFd (vk.device, &info), "vkImportSemaphoreFdKHR");
  return TRUE;
}

static gboolean
memory_coherent (guint32 type)
{
  VkPhysicalDeviceMemoryProperties mp;

  vkGetPhysicalDeviceMemoryProperties (vk.phys, &mp);
  return (mp.memoryTypes[type].propertyFlags &
      VK_MEMORY_PROPERTY_HOST_COHERENT_BIT) != 0;
}

/* a memory type of @bits with @props, or -1 */
static gint
memory_type (guint32 bits, VkMemoryPropertyFlags props)
{
  VkPhysicalDeviceMemoryProperties mp;
  guint32 i;

  vkGetPhysicalDeviceMemoryProperties (vk.phys, &mp);
  for (i = 0; i < mp.memoryTypeCount; i++)
    if ((bits & (1u << i)) &&
        (mp.memoryTypes[i].propertyFlags & props) == props)
      return i;
  return -1;
}

/* a buffer of @size for @usage; its memory imported from *@fd (>= 0; -1
 * once Vulkan owns it) or allocated host-visible (cached where there is
 * such memory) */
static gboolean
make_buffer (gsize size, VkBufferUsageFlags usage, gint * fdp, VkBuffer * buf,
    VkDeviceMemory * mem)
{
  const gint fd = *fdp;
  VkExternalMemoryBufferCreateInfo ext = {
    .sType = VK_STRUCTURE_TYPE_EXTERNAL_MEMORY_BUFFER_CREATE_INFO,
    .handleTypes = FD_TYPE
  };
  VkBufferCreateInfo bi = {
    .sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO,
    .pNext = fd >= 0 ? &ext : NULL,.size = size,.usage = usage,
    .sharingMode = VK_SHARING_MODE_EXCLUSIVE
  };
  VkImportMemoryFdInfoKHR imp = {
    .sType = VK_STRUCTURE_TYPE_IMPORT_MEMORY_FD_INFO_KHR,
    .handleType = FD_TYPE,.fd = fd
  };
  VkMemoryAllocateInfo ai = {
    .sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO,
    .pNext = fd >= 0 ? &imp : NULL
  };
  VkMemoryRequirements req;
  gint type;

  VK_CHECK (vkCreateBuffer (vk.device, &bi, NULL, buf), "vkCreateBuffer");
  vkGetBufferMemoryRequirements (vk.device, *buf, &req);
  if (fd >= 0) {
    type = memory_type (req.memoryTypeBits,
        VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT);
  } else {
    type = memory_type (req.memoryTypeBits,
        VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT |
        VK_MEMORY_PROPERTY_HOST_CACHED_BIT);
    if (type < 0)
      type = memory_type (req.memoryTypeBits,
          VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT |
          VK_MEMORY_PROPERTY_HOST_COHERENT_BIT);
    vk.host_coherent = type >= 0 && memory_coherent (type);
  }
  if (type < 0 || (fd >= 0 && req.size > size))
    return consume_fail ("no memory type for the buffer, or the memory is "
        "too small");
  ai.memoryTypeIndex = type;
  /* an import takes the exporter's size */
  ai.allocationSize = fd >= 0 ? size : req.size;
  VK_CHECK (vkAllocateMemory (vk.device, &ai, NULL, mem),
      fd >= 0 ? "vkAllocateMemory (import of the sink's memory fd)" :
      "vkAllocateMemory");
  *fdp = -1;
  VK_CHECK (vkBindBufferMemory (vk.device, *buf, *mem, 0),
      "vkBindBufferMemory");
  return TRUE;
}

static gboolean
vulkan_import_buffer (guint slot, gint * fd, guint64 size)
{
  return make_buffer (size, VK_BUFFER_USAGE_TRANSFER_SRC_BIT, fd,
      &vk.frames[slot].buf, &vk.frames[slot].mem);
}

static void
vulkan_drop_buffers (void)
{
  guint i;

  if (vk.device)
    vkQueueWaitIdle (vk.queue);
  for (i = 0; i < CONSUME_MAX_IDS; i++) {
    if (vk.frames[i].buf)
      vkDestroyBuffer (vk.device, vk.frames[i].buf, NULL);
    if (vk.frames[i].mem)
      vkFreeMemory (vk.device, vk.frames[i].mem, NULL);
    vk.frames[i].buf = VK_NULL_HANDLE;
    vk.frames[i].mem = VK_NULL_HANDLE;
  }
}

static gboolean
host_buffer (gsize size)
{
  gint no_fd = -1;

  if (vk.host_size >= size)
    return TRUE;
  if (vk.host_buf)
    vkDestroyBuffer (vk.device, vk.host_buf, NULL);
  if (vk.host_mem)
    vkFreeMemory (vk.device, vk.host_mem, NULL);
  vk.host_buf = VK_NULL_HANDLE;
  vk.host_mem = VK_NULL_HANDLE;
  vk.host_size = 0;
  if (!make_buffer (size, VK_BUFFER_USAGE_TRANSFER_DST_BIT, &no_fd,
          &vk.host_buf, &vk.host_mem))
    return FALSE;
  VK_CHECK (vkMapMemory (vk.device, vk.host_mem, 0, VK_WHOLE_SIZE, 0,
          &vk.host_ptr), "vkMapMemory");
  vk.host_size = size;
  return TRUE;
}

/* the frame's buffer from (@acquire) or back to the external queue
 * family, around the copy */
static void
ownership (VkBuffer buf, gsize size, gboolean acquire)
{
  VkBufferMemoryBarrier b = {
    .sType = VK_STRUCTURE_TYPE_BUFFER_MEMORY_BARRIER,
    .srcAccessMask = 0,
    .dstAccessMask = acquire ? VK_ACCESS_TRANSFER_READ_BIT : 0,
    .srcQueueFamilyIndex = acquire ? VK_QUEUE_FAMILY_EXTERNAL : vk.family,
    .dstQueueFamilyIndex = acquire ? vk.family : VK_QUEUE_FAMILY_EXTERNAL,
    .buffer = buf,.offset = 0,.size = size
  };

  vkCmdPipelineBarrier (vk.cmd, acquire ? VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT :
      VK_PIPELINE_STAGE_TRANSFER_BIT, acquire ?
      VK_PIPELINE_STAGE_TRANSFER_BIT : VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT,
      0, 0, NULL, 1, &b, 0, NULL);
}

static gboolean
record (guint slot, gsize size)
{
  VkCommandBufferBeginInfo begin = {
    .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
    .flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT
  };
  VkBufferCopy region = {.srcOffset = 0,.dstOffset = 0,.size = size };
  VkBufferMemoryBarrier to_host = {
    .sType = VK_STRUCTURE_TYPE_BUFFER_MEMORY_BARRIER,
    .srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT,
    .dstAccessMask = VK_ACCESS_HOST_READ_BIT,
    .srcQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
    .dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
    .buffer = vk.host_buf,.offset = 0,.size = size
  };

  VK_CHECK (vkResetCommandBuffer (vk.cmd, 0), "vkResetCommandBuffer");
  VK_CHECK (vkBeginCommandBuffer (vk.cmd, &begin), "vkBeginCommandBuffer");
  ownership (vk.frames[slot].buf, size, TRUE);
  vkCmdCopyBuffer (vk.cmd, vk.frames[slot].buf, vk.host_buf, 1, &region);
  ownership (vk.frames[slot].buf, size, FALSE);
  vkCmdPipelineBarrier (vk.cmd, VK_PIPELINE_STAGE_TRANSFER_BIT,
      VK_PIPELINE_STAGE_HOST_BIT, 0, 0, NULL, 1, &to_host, 0, NULL);
  VK_CHECK (vkEndCommandBuffer (vk.cmd), "vkEndCommandBuffer");
  return TRUE;
}

static gboolean
vulkan_read (guint slot, guint64 acquire, guint64 release, gsize size,
    guint8 * dst)
{
  VkTimelineSemaphoreSubmitInfo values = {
    .sType = VK_STRUCTURE_TYPE_TIMELINE_SEMAPHORE_SUBMIT_INFO,
    .waitSemaphoreValueCount = 1,.pWaitSemaphoreValues = &acquire,
    .signalSemaphoreValueCount = 1,.pSignalSemaphoreValues = &release
  };
  /* the queue family acquire waits only for ALL_COMMANDS */
  VkPipelineStageFlags stage = VK_PIPELINE_STAGE_ALL_COMMANDS_BIT;
  VkSubmitInfo si = {
    .sType = VK_STRUCTURE_TYPE_SUBMIT_INFO,.pNext = &values,
    .waitSemaphoreCount = 1,.pWaitSemaphores = &vk.acquire,
    .pWaitDstStageMask = &stage,.commandBufferCount = 1,
    .pCommandBuffers = &vk.cmd,.signalSemaphoreCount = 1,
    .pSignalSemaphores = &vk.release
  };

  if (!host_buffer (size) || !record (slot, size))
    return FALSE;
  VK_CHECK (vkResetFences (vk.device, 1, &vk.fence), "vkResetFences");
  VK_CHECK (vkQueueSubmit (vk.queue, 1, &si, vk.fence), "vkQueueSubmit");
  /* our own submission's fence: the copy is done (the release value is
   * signalled with it); a sink that died before its signal does not keep
   * us forever */
  VK_CHECK (vkWaitForFences (vk.device, 1, &vk.fence, VK_TRUE,
          5 * G_GUINT64_CONSTANT (1000000000)),
      "the frame did not come within 5 s (vkWaitForFences)");
  if (!vk.host_coherent) {
    VkMappedMemoryRange range = {
      .sType = VK_STRUCTURE_TYPE_MAPPED_MEMORY_RANGE,.memory = vk.host_mem,
      .offset = 0,.size = VK_WHOLE_SIZE
    };
    VK_CHECK (vkInvalidateMappedMemoryRanges (vk.device, 1, &range),
        "vkInvalidateMappedMemoryRanges");
  }
  memcpy (dst, vk.host_ptr, size);
  return TRUE;
}

static void
vulkan_close (void)
{
  if (!vk.device)
    return;
  vulkan_drop_buffers ();
  if (vk.host_buf)
    vkDestroyBuffer (vk.device, vk.host_buf, NULL);
  if (vk.host_mem)
    vkFreeMemory (vk.device, vk.host_mem, NULL);
  if (vk.acquire)
    vkDestroySemaphore (vk.device, vk.acquire, NULL);
  if (vk.release)
    vkDestroySemaphore (vk.device, vk.release, NULL);
  if (vk.release_fd >= 0)
    close (vk.release_fd);
  vkDestroyFence (vk.device, vk.fence, NULL);
  vkDestroyCommandPool (vk.device, vk.cmd_pool, NULL);
  vkDestroyDevice (vk.device, NULL);
  vkDestroyInstance (vk.instance, NULL);
  memset (&vk, 0, sizeof (vk));
  vk.release_fd = -1;
}

const ConsumeBackend consume_vulkan = {
  "Vulkan", vulkan_open, vulkan_release_fd, vulkan_import_acquire,
  vulkan_import_buffer, vulkan_drop_buffers, vulkan_read, vulkan_close
};

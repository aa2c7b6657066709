/* gst-cudasync
 * Copyright (C) 2026 gst-cudasync developers
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Shared by cudatovulkan and vulkantocuda: CUDA context + Vulkan device
 * set-up (GstContext sharing, UUID match, external memory/semaphore
 * extensions), exportable Vulkan memory imported into CUDA, the bridging
 * semaphore and the stats counters. Not an element.
 */
#pragma once

#include <gst/gst.h>
#include <gst/video/video.h>
#include <gst/vulkan/vulkan.h>
#include <gst/cuda/gstcudacontext.h>
#include <gst/cudasync/cudasync.h>

G_BEGIN_DECLS

typedef enum
{
  GST_CUDA_VK_COUNTER_BUFFERS,
  GST_CUDA_VK_COUNTER_SIGNALS,
  GST_CUDA_VK_COUNTER_WAITS,
  GST_CUDA_VK_COUNTER_CPU_SYNCS,
  GST_CUDA_VK_COUNTER_COPIES,
  GST_CUDA_VK_N_COUNTERS,
} GstCudaVkCounter;

typedef struct
{
  GstElement *element;

  GMutex lock;                  /* counters, device_id */
  gint device_id;
  guint64 counters[GST_CUDA_VK_N_COUNTERS];

  /* set between start and stop (contexts may come earlier) */
  GstCudaContext *cuda;
  CUstream stream;
  GstVulkanInstance *instance;
  GstVulkanDevice *device;
  GstVulkanQueue *queue;
  GstVulkanCommandPool *cmd_pool;
  GstVulkanTrashList *trash;

  PFN_vkGetMemoryFdKHR get_memory_fd;
  PFN_vkGetSemaphoreFdKHR get_semaphore_fd;

  /* GPU path: binary semaphore created by Vulkan, exported as an opaque fd
   * and imported into CUDA. NULL when Vulkan cannot export semaphores:
   * then the CPU fallback applies. */
  VkSemaphore vk_sem;
  GstCudaSemaphore *sem;
  /* for an upstream cudasemsignal (cudatovulkan only): CUDA-only use */
  VkSemaphore offer_vk_sem;
  GstCudaSemaphore *offer_sem;
} GstCudaVkBridge;

/* One plane of exportable Vulkan memory mapped into CUDA. */
typedef struct
{
  VkImage image;                /* VK_NULL_HANDLE for buffers */
  VkBuffer buffer;              /* VK_NULL_HANDLE for images */
  VkDeviceMemory memory;
  VkDeviceSize alloc_size;
  CUexternalMemory ext_mem;
  CUdeviceptr cuda_ptr;         /* start of the plane (offset applied) */
  gsize offset;                 /* in the memory */
  gsize pitch;                  /* bytes per row */
  gsize size;
  VkFormat format;
  guint width, height;
} GstCudaVkPlane;

void     gst_cuda_vk_bridge_init         (GstCudaVkBridge * b, GstElement * element);
void     gst_cuda_vk_bridge_clear        (GstCudaVkBridge * b);
void     gst_cuda_vk_bridge_set_context  (GstCudaVkBridge * b, GstContext * context);
gboolean gst_cuda_vk_bridge_query        (GstCudaVkBridge * b, GstQuery * query);
gboolean gst_cuda_vk_bridge_start        (GstCudaVkBridge * b, gboolean offer_semaphore);
void     gst_cuda_vk_bridge_stop         (GstCudaVkBridge * b);

void     gst_cuda_vk_bridge_count        (GstCudaVkBridge * b, GstCudaVkCounter c, guint64 add);
GstStructure * gst_cuda_vk_bridge_stats  (GstCudaVkBridge * b);
gint     gst_cuda_vk_bridge_get_device_id (GstCudaVkBridge * b);
void     gst_cuda_vk_bridge_set_device_id (GstCudaVkBridge * b, gint id);

gboolean gst_cuda_vk_bridge_has_gpu_sync (GstCudaVkBridge * b);

gboolean gst_cuda_vk_plane_alloc_image   (GstCudaVkBridge * b, GstCudaVkPlane * plane,
                                          VkFormat format, guint width, guint height,
                                          VkImageUsageFlags usage, GError ** error);
gboolean gst_cuda_vk_plane_alloc_buffer  (GstCudaVkBridge * b, GstCudaVkPlane * plane,
                                          gsize size, VkBufferUsageFlags usage,
                                          GError ** error);
void     gst_cuda_vk_plane_free          (GstCudaContext * cuda, GstVulkanDevice * device,
                                          GstCudaVkPlane * plane);

/* Enqueues a copy of @n_planes planes on the bridge's stream; 2D copies with
 * the given pitches. */
gboolean gst_cuda_vk_copy_2d             (GstCudaVkBridge * b, CUdeviceptr dst,
                                          gsize dst_pitch, CUdeviceptr src,
                                          gsize src_pitch, gsize width_bytes,
                                          gsize height, GError ** error);

/* Blocks until the stream is idle (counted in cpu-syncs). */
gboolean gst_cuda_vk_bridge_cpu_sync     (GstCudaVkBridge * b, GError ** error);

/* Submits @cmd (ended) on the queue, optionally waiting/signalling the
 * bridge's semaphore; returns the fence (transfer full). @cmd and @keep
 * (nullable) are released once the fence signals. */
GstVulkanFence * gst_cuda_vk_bridge_submit (GstCudaVkBridge * b,
                                          GstVulkanCommandBuffer * cmd,
                                          gboolean wait_sem, gboolean signal_sem,
                                          GstMiniObject * keep, GError ** error);

GstVulkanCommandBuffer * gst_cuda_vk_bridge_begin (GstCudaVkBridge * b, GError ** error);

void     gst_cuda_vk_bridge_post_error   (GstCudaVkBridge * b, GError * error,
                                          const gchar * what);

gboolean gst_cuda_vk_format_supported    (GstVideoFormat format);

#define GST_CUDA_VK_FORMATS "{ RGBA, BGRA, RGBx, BGRx, NV12, I420 }"

G_END_DECLS

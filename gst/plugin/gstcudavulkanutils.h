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
#if GST_CHECK_VERSION(1, 24, 0)
#include <gst/cuda/gstcudastream.h>
#endif
#include <gst/cudasync/cudasync.h>

G_BEGIN_DECLS

typedef enum
{
  GST_CUDA_VK_COUNTER_BUFFERS,
  GST_CUDA_VK_COUNTER_SIGNALS,
  GST_CUDA_VK_COUNTER_WAITS,
  GST_CUDA_VK_COUNTER_CPU_SYNCS,
  GST_CUDA_VK_COUNTER_COPIES,
  GST_CUDA_VK_COUNTER_SEMAPHORES,
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
#if GST_CHECK_VERSION(1, 24, 0)
  /* owns @stream; set on the CUDA pools the element proposes and uses, so
   * that the memory it hands out and the memory written for it carry the
   * stream its work is on */
  GstCudaStream *cuda_stream;
#endif
  GstVulkanInstance *instance;
  GstVulkanDevice *device;
  GstVulkanQueue *queue;
  GstVulkanCommandPool *cmd_pool;
  GstVulkanTrashList *trash;
  struct _GstCudaVkFencePool *fences;

  PFN_vkGetMemoryFdKHR get_memory_fd;
  PFN_vkGetSemaphoreFdKHR get_semaphore_fd;

  /* GPU path: Vulkan exports binary semaphores (opaque fd) that CUDA
   * imports, one per pooled frame / staging slot
   * (gst_cuda_vk_semaphore_new()). FALSE when Vulkan cannot export
   * semaphores or CUDA cannot import them: then the CPU fallback applies. */
  gboolean gpu_sync;
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
  GstCudaSyncExternalMemory *ext_mem;
  CUdeviceptr cuda_ptr;         /* start of the plane (offset applied) */
  gsize offset;                 /* in the memory */
  gsize pitch;                  /* bytes per row */
  gsize size;
  VkFormat format;
  guint width, height;
} GstCudaVkPlane;

/* The properties both elements have, with these ids */
enum
{
  GST_CUDA_VK_PROP_DEVICE_ID = 1,
  GST_CUDA_VK_PROP_STATS,
};

void     gst_cuda_vk_bridge_install_properties (GObjectClass * klass);
void     gst_cuda_vk_bridge_set_property (GstCudaVkBridge * b, GObject * object,
                                          guint prop_id, const GValue * value,
                                          GParamSpec * pspec);
void     gst_cuda_vk_bridge_get_property (GstCudaVkBridge * b, GObject * object,
                                          guint prop_id, GValue * value,
                                          GParamSpec * pspec);

/* The element's change_state: sets the devices up in NULL->READY (before
 * neighbours look for a Vulkan device) around @parent_class's */
GstStateChangeReturn gst_cuda_vk_bridge_change_state (GstCudaVkBridge * b,
                                          GstElementClass * parent_class,
                                          GstStateChange transition,
                                          gboolean offer_semaphore);

/* transform_caps: the same video caps with the other side's memory
 * features; @to_vulkan: the result is the Vulkan side (images preferred,
 * then buffers), else the CUDA side */
GstCaps * gst_cuda_vk_transform_caps     (GstCaps * caps, GstCaps * filter,
                                          gboolean to_vulkan);
/* set_caps: parses both caps, checks the format (element error otherwise) */
gboolean gst_cuda_vk_parse_caps          (GstElement * element, GstCaps * incaps,
                                          GstCaps * outcaps, GstVideoInfo * in_info,
                                          GstVideoInfo * out_info);
/* deactivates and drops *@pool, if any */
void     gst_cuda_vk_clear_pool          (GstBufferPool ** pool);
/* prepare_output_buffer: a buffer from @pool with @inbuf's flags and
 * timestamps */
GstFlowReturn gst_cuda_vk_acquire_output (GstElement * element, GstBufferPool * pool,
                                          GstBuffer * inbuf, GstBuffer ** outbuf);

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

/* A binary semaphore created by Vulkan (exportable as an opaque fd) and
 * imported into the bridge's CUDA context.
 *
 * A binary semaphore holds one signal: signalling it again before the wait
 * that consumes the previous signal has *executed* on the GPU loses a signal
 * (and the waiter for it may hang). Enqueue order is not enough: CUDA may
 * run frame N+1's signal before the Vulkan queue has run frame N's wait. So
 * each pooled frame (cudatovulkan) or staging slot (vulkantocuda) owns its
 * semaphore, and a slot is reused only when the GPU work that consumed its
 * previous signal is known to be complete (its fence signalled, its CUDA
 * event completed), which never blocks the streaming thread.
 *
 * CUDA signals, Vulkan waits (cudatovulkan): gst_cuda_vk_semaphore_signal()
 * goes through gst_cuda_semaphore_signal(), which refuses a second signal
 * before a wait was recorded; the Vulkan wait is recorded
 * (gst_cuda_semaphore_mark_waited()) only by
 * gst_cuda_vk_semaphore_waited(), once the fence of the submission that
 * waited has signalled, i.e. in GPU execution order, not at submission. */
typedef struct
{
  VkSemaphore vk_sem;
  GstCudaSemaphore *sem;
  GstVulkanDevice *device;
  gboolean signalled;           /* by CUDA, wait not known executed yet */
  GstVulkanFence *wait_fence;   /* the Vulkan submission that waits on it */
} GstCudaVkSemaphore;

/* NULL in the CPU fallback (or when creating one failed); counted in the
 * "semaphores" statistic */
GstCudaVkSemaphore * gst_cuda_vk_semaphore_new (GstCudaVkBridge * b);
gboolean gst_cuda_vk_semaphore_signal    (GstCudaVkSemaphore * s, CUstream stream,
                                          GError ** error);
void     gst_cuda_vk_semaphore_wait_submitted (GstCudaVkSemaphore * s,
                                          GstVulkanFence * fence);
/* TRUE when @s may be signalled again (records the Vulkan wait with the
 * library then); never blocks */
gboolean gst_cuda_vk_semaphore_waited    (GstCudaVkSemaphore * s);
/* waits for a pending Vulkan wait on @s, if any (shutdown only) */
void     gst_cuda_vk_semaphore_free      (GstCudaVkSemaphore * s);

/* Blocks until the stream is idle (counted in cpu-syncs). */
gboolean gst_cuda_vk_bridge_cpu_sync     (GstCudaVkBridge * b, GError ** error);

/* Fences recycled by their user instead of 1.22's device fence cache (see
 * the .c file); thread-safe. _get() returns an unsignalled fence (transfer
 * full). */
typedef struct _GstCudaVkFencePool GstCudaVkFencePool;
GstCudaVkFencePool *gst_cuda_vk_fence_pool_new (GstVulkanDevice * device);
void gst_cuda_vk_fence_pool_free (GstCudaVkFencePool * pool);
GstVulkanFence *gst_cuda_vk_fence_pool_get (GstCudaVkFencePool * pool,
    GError ** error);
void gst_cuda_vk_fence_pool_discard (GstCudaVkFencePool * pool,
    GstVulkanFence * fence);

/* The GstVulkanQueue object every bridge element uses for @device (one per
 * process and device, so that they share its submit lock; see the .c file).
 * @candidate (nullable): the queue a neighbour answered, adopted when there
 * is none yet. Transfer full; NULL when the device has no graphics or
 * compute queue. */
GstVulkanQueue *gst_cuda_vk_shared_queue (GstVulkanDevice * device,
    GstVulkanQueue * candidate);

/* What one submission waits on and signals. Binary semaphores have value
 * 0. On GStreamer 1.24+ a Vulkan memory may carry a timeline semaphore
 * (GstVulkanBarrierMemoryInfo.semaphore) that GstVulkanOperation users wait
 * on: gst_cuda_vk_sync_add_memory() makes the submission take part in it
 * as they do (wait for the current value, signal the next one, and advance
 * the memory's value once submitted). */
#define GST_CUDA_VK_MAX_SYNC (2 * GST_VIDEO_MAX_PLANES + 2)
typedef struct
{
  guint n_waits;
  VkSemaphore waits[GST_CUDA_VK_MAX_SYNC];
  guint64 wait_values[GST_CUDA_VK_MAX_SYNC];
  guint n_signals;
  VkSemaphore signals[GST_CUDA_VK_MAX_SYNC];
  guint64 signal_values[GST_CUDA_VK_MAX_SYNC];
  guint n_barriers;
  GstVulkanBarrierMemoryInfo *barriers[GST_VIDEO_MAX_PLANES];
} GstCudaVkSubmitSync;

void     gst_cuda_vk_sync_add_wait       (GstCudaVkSubmitSync * sync, VkSemaphore sem,
                                          guint64 value);
void     gst_cuda_vk_sync_add_signal     (GstCudaVkSubmitSync * sync, VkSemaphore sem,
                                          guint64 value);
/* no-op on 1.22, for memory without a timeline semaphore, and where
 * GstVulkanBarrierMemoryInfo has no semaphore fields (upstream after 1.28:
 * see meson.build) */
void     gst_cuda_vk_sync_add_memory     (GstCudaVkSubmitSync * sync,
                                          GstVulkanBarrierMemoryInfo * barrier);

/* Submits @cmd (ended) on the queue with @sync (nullable); returns the
 * fence (transfer full). @cmd and @keep (nullable) are released once the
 * fence signals. */
GstVulkanFence * gst_cuda_vk_bridge_submit (GstCudaVkBridge * b,
                                          GstVulkanCommandBuffer * cmd,
                                          const GstCudaVkSubmitSync * sync,
                                          GstMiniObject * keep, GError ** error);

/* Sets the queue a memory was last used on: an owned reference on
 * GStreamer 1.24+ (the memory unrefs it when freed), a plain pointer
 * before. */
void     gst_cuda_vk_barrier_set_queue   (GstVulkanBarrierMemoryInfo * barrier,
                                          GstVulkanQueue * queue);

/* The VkFormat of plane @plane of @format as the bridge lays it out (one
 * image per plane); 1.24+'s table has none for I420's chroma planes */
VkFormat gst_cuda_vk_plane_format        (GstVideoFormat format, guint plane);

GstVulkanCommandBuffer * gst_cuda_vk_bridge_begin (GstCudaVkBridge * b, GError ** error);

void     gst_cuda_vk_bridge_post_error   (GstCudaVkBridge * b, GError * error,
                                          const gchar * what);

gboolean gst_cuda_vk_format_supported    (GstVideoFormat format);

#define GST_CUDA_VK_FORMATS "{ RGBA, BGRA, RGBx, BGRx, NV12, I420 }"

G_END_DECLS

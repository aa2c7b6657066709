/* gst-cudasync
 * Copyright (C) 2026 gst-cudasync developers
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The state cudatovulkan and vulkantocuda share: the CUDA context and
 * stream, the Vulkan device and queue, properties, statistics, state
 * changes, caps and start/stop. Its parts: gstcudavkdevice.h (device,
 * queue, fences), gstcudavkmemory.h (exportable memory), gstcudavksemaphore.h
 * (semaphores), gstcudavkstaging.h (vulkantocuda's staging slots),
 * gstcudavksubmit.h (submissions). Not installed.
 */
#pragma once

#include <gst/gst.h>
#include <gst/video/video.h>
#include <gst/vulkan/vulkan.h>
#include <gst/cuda/gstcudacontext.h>
#if GST_CHECK_VERSION(1, 24, 0)
#include <gst/cuda/gstcudastream.h>
#endif
#include <gst/cudasync/gstcudasync-internal.h>

G_BEGIN_DECLS

typedef enum
{
  GST_CUDA_VK_COUNTER_BUFFERS,
  GST_CUDA_VK_COUNTER_SIGNALS,
  GST_CUDA_VK_COUNTER_WAITS,
  GST_CUDA_VK_COUNTER_CPU_SYNCS,
  GST_CUDA_VK_COUNTER_COPIES,
  GST_CUDA_VK_COUNTER_SEMAPHORES,
  GST_CUDA_VK_COUNTER_GPU_COPIES,
  GST_CUDA_VK_COUNTER_IN_PLACE,
  GST_CUDA_VK_N_COUNTERS,
} GstCudaVkCounter;

typedef struct _GstCudaVkBridge GstCudaVkBridge;

/* Names Vulkan objects "gst-cudasync <element> <what>" when the instance
 * has VK_EXT_debug_utils enabled (a validation run: validation messages
 * then say which objects are the project's); else does nothing. Copied by
 * value into what outlives the streaming thread (the frame pool). */
typedef struct
{
  PFN_vkSetDebugUtilsObjectNameEXT fn;
  VkDevice device;
  gchar prefix[64];
} GstCudaVkNamer;

void     gst_cuda_vk_namer_name          (const GstCudaVkNamer * namer,
                                          VkObjectType type, guint64 handle,
                                          const gchar * what);

struct _GstCudaVkBridge
{
  GstElement *element;

  GMutex lock;                  /* counters, device_id, timeline, sem_type */
  gint device_id;
  gboolean use_timeline;        /* property "timeline" */
  const gchar *sem_type;        /* "timeline", "binary" or "none" */
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
  /* trash_lock guards trash: cudatovulkan's frame pool submits from
   * upstream's thread too when it allocates for the upstream pool. Freeing
   * what the list held may release frames to their pool (the pool's lock,
   * a queue's submit lock), never the other way round. */
  GMutex trash_lock;
  GstVulkanTrashList *trash;
  struct _GstCudaVkFencePool *fences;

  PFN_vkGetMemoryFdKHR get_memory_fd;
  PFN_vkGetSemaphoreFdKHR get_semaphore_fd;
  GstCudaVkNamer namer;

  /* GPU path: Vulkan exports semaphores (opaque fd) that CUDA imports.
   * FALSE when Vulkan cannot export semaphores or CUDA cannot import them:
   * then the CPU fallback applies. */
  gboolean gpu_sync;
  /* GPU path on 1.24+ (property "timeline", the device's timeline
   * semaphores): the element's one timeline semaphore. NULL: one binary
   * semaphore per pooled frame / staging slot
   * (gst_cuda_vk_semaphore_for_slot()) */
  struct _GstCudaVkSemaphore *timeline;
  /* for an upstream cudasemsignal (cudatovulkan only): CUDA-only use */
  VkSemaphore offer_vk_sem;
  GstCudaSemaphore *offer_sem;
};

/* The properties both elements have, with these ids */
enum
{
  GST_CUDA_VK_PROP_DEVICE_ID = 1,
  GST_CUDA_VK_PROP_STATS,
  GST_CUDA_VK_PROP_TIMELINE,
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
 * then buffers; images no larger than @max_image, the device's
 * maxImageDimension2D, where it is known (not 0), and larger ones last),
 * else the CUDA side */
GstCaps * gst_cuda_vk_transform_caps     (GstCaps * caps, GstCaps * filter,
                                          gboolean to_vulkan, guint max_image);
/* set_caps: parses both caps, checks the format (element error otherwise) */
gboolean gst_cuda_vk_parse_caps          (GstElement * element, GstCaps * incaps,
                                          GstCaps * outcaps, GstVideoInfo * in_info,
                                          GstVideoInfo * out_info);
/* deactivates and drops *@pool, if any */
void     gst_cuda_vk_clear_pool          (GstBufferPool ** pool);
/* decide_allocation: how many output buffers the element has at most.
 * Downstream's max-buffers (the first pool of @query) when it gives one,
 * else @default_max; in any case more than downstream's min-buffers. */
guint    gst_cuda_vk_allocation_bound    (GstQuery * query, guint default_max);
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




G_END_DECLS

#include "gstcudavkdevice.h"
#include "gstcudavkmemory.h"
#include "gstcudavksemaphore.h"
#include "gstcudavksubmit.h"

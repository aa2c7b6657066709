/* gst-cudasync
 * Copyright (C) 2026 gst-cudasync developers
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The element state cudatovulkan and vulkantocuda share: the Vulkan
 * contexts (instance, device, queue) found in the pipeline, the `timeline`
 * property, state changes, caps and start/stop (the CUDA context and
 * stream, `cuda-device-id` and `stats` are GstCudaSyncBaseTransform's).
 * What the hand-overs run on is a GstCudaVkInterop (gstcudavkinterop.h),
 * made in start, that knows no element. Other parts: gstcudavkdevice.h
 * (device), gstcudavkqueue.h (shared queue, fences), gstcudavkmemory.h
 * (exportable memory), gstcudavkmemorykind.h (images and buffers),
 * gstcudavkstaging.h (vulkantocuda's staging slots), gstcudavksubmit.h
 * (submission synchronisation), gstcudavkcompat.h (version-dependent
 * calls). Not installed.
 */
#pragma once

#include <gst/gst.h>
#include <gst/video/video.h>
#include <gst/vulkan/vulkan.h>
#include <gst/cuda/gstcudacontext.h>
#include <gst/cudasync/gstcudasync-internal.h>
#include "gstcudavkcompat.h"
#include "gstcudasyncbasetransform.h"
#include "gstcudavkinterop.h"
#include "gstcudavkmemory.h"

G_BEGIN_DECLS

typedef struct _GstCudaVkBridge GstCudaVkBridge;

struct _GstCudaVkBridge
{
  GstElement *element;

  GMutex lock;                  /* timeline, sem_type */
  gboolean use_timeline;        /* property "timeline" */
  const gchar *sem_type;        /* "timeline", "binary" or "none" */

  /* set between start and stop (contexts may come earlier). @cuda: the
   * element's context (GstCudaSyncBaseTransform's) as of the last start.
   * @device and @queue are swapped under the element's object lock. */
  GstCudaContext *cuda;
  GstVulkanInstance *instance;
  GstVulkanDevice *device;
  GstVulkanQueue *queue;
  /* what the hand-overs run on: made in start from the element's CUDA
   * context and stream (GstCudaSyncBaseTransform's) and @queue; it owns
   * the semaphores, the command pool, fences and trash list */
  GstCudaVkInterop *interop;

  GstCudaVkNamer namer;
};

/* The property both elements add to GstCudaSyncBaseTransform's, with
 * this id */
enum
{
  GST_CUDA_VK_PROP_TIMELINE = 100,
};

/* the stats structure's counter fields, by GstCudaVkCounter */
extern const gchar *const gst_cuda_vk_counter_fields[GST_CUDA_VK_N_COUNTERS];

void     gst_cuda_vk_bridge_install_properties (GObjectClass * klass);
/* FALSE: not a property of the bridge */
gboolean gst_cuda_vk_bridge_set_property (GstCudaVkBridge * b, guint prop_id,
                                          const GValue * value);
gboolean gst_cuda_vk_bridge_get_property (GstCudaVkBridge * b, guint prop_id,
                                          GValue * value);

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

/* adds @add to the element's counter @c (GstCudaSyncBaseTransform's) */
static inline void
gst_cuda_vk_bridge_count (GstCudaVkBridge * b, GstCudaVkCounter c,
    guint64 add)
{
  gst_cuda_sync_base_transform_count (GST_CUDA_SYNC_BASE_TRANSFORM
      (b->element), c, add);
}

/* adds semaphore-type to the stats structure */
void     gst_cuda_vk_bridge_add_stats    (GstCudaVkBridge * b,
                                          GstStructure * s);

G_END_DECLS

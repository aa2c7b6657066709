/* gst-cudasync
 * Copyright (C) 2026 gst-cudasync developers
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
/**
 * SECTION:element-vulkantocuda
 * @title: vulkantocuda
 *
 * Hands Vulkan video frames (one image per plane, as upstream vulkan
 * elements produce) to CUDA without going through system memory. A Vulkan
 * submission copies the images into a staging buffer whose memory was
 * allocated exportable (`VK_KHR_external_memory_fd`) and imported into CUDA,
 * and signals a semaphore exported to CUDA; the element's CUDA stream
 * waits for it on the GPU and copies the frame into a #GstCudaMemory with one
 * `cuMemcpy2DAsync` per plane. Staging buffers are pooled and reused once
 * both sides are done with them (checked without blocking). On GStreamer
 * 1.24 and newer, where the Vulkan device has timeline semaphores, the
 * semaphore is one timeline semaphore for the element, signalled with
 * increasing values (the `timeline` property turns it off). Otherwise
 * (1.22) each staging buffer has its own binary semaphore: Vulkan signals
 * it again only when the buffer is reused, after the CUDA event recorded
 * behind the wait (and the copy) has completed, so the Vulkan queue can
 * never signal a semaphore whose previous signal CUDA has not consumed
 * yet. The `semaphore-type` field of `stats` says which one ran.
 *
 * The CUDA stream is a blocking stream: upstream 1.22 CUDA elements, which
 * copy on the legacy default stream, see the data complete without any CPU
 * synchronisation. On GStreamer 1.24+ the output memory carries the
 * element's stream and is left `GST_CUDA_MEMORY_TRANSFER_NEED_SYNC`, as
 * upstream producers do. Input images may be one per plane (vulkanupload,
 * cudatovulkan) or one multi-planar image (the Vulkan video decoders);
 * on 1.24 to 1.28 the copy waits for the input image's timeline semaphore,
 * so frames decoded on another queue are read only once decoded. Where
 * Vulkan cannot export semaphores (for example lavapipe), the element waits
 * for the Vulkan copy on the CPU before the CUDA copy and counts it in the
 * `cpu-syncs` statistic.
 *
 * The Vulkan device must be the CUDA device (same UUID).
 *
 * ## Example launch lines
 * |[
 * gst-launch-1.0 videotestsrc ! vulkanupload ! vulkancolorconvert ! video/x-raw(memory:VulkanImage),format=RGBA ! vulkantocuda ! cudadownload ! autovideosink
 * ]|
 * |[
 * gst-launch-1.0 videotestsrc ! cudaupload ! cudatovulkan ! vulkantocuda ! cudadownload ! autovideosink
 * ]| A round trip through Vulkan.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstvulkantocuda.h"
#include "gstcudavkbasetransform.h"
#include "gstcudavkinput.h"
#include "gstcudavkmemorykind.h"
#include "gstcudavkstaging.h"
#include "gstcudasyncelementerror.h"
#include <gst/cuda/gstcudamemory.h>
#include <gst/cuda/gstcudabufferpool.h>
#include <gst/video/video.h>

GST_DEBUG_CATEGORY_STATIC (gst_vulkan_to_cuda_debug);

#define BRIDGE(self) gst_cuda_vk_base_transform_get_bridge \
    (GST_CUDA_VK_BASE_TRANSFORM (self))
#define IN_INFO(self) gst_cuda_vk_base_transform_get_in_info \
    (GST_CUDA_VK_BASE_TRANSFORM (self))
#define OUT_INFO(self) gst_cuda_vk_base_transform_get_out_info \
    (GST_CUDA_VK_BASE_TRANSFORM (self))
#define GST_CAT_DEFAULT gst_vulkan_to_cuda_debug

/* copy mode: staging buffers in flight, beyond which the oldest is
 * waited for on the CPU */
#define MAX_SLOTS 16
/* output buffers downstream may hold, unless it asks otherwise in the
 * ALLOCATION query: wrapped staging buffers (wrap mode) or CUDA copies */
#define DEFAULT_MAX_OUTPUTS 64

typedef GstCudaVkStaging Slot;

struct _GstVulkanToCuda
{
  GstCudaVkBaseTransform parent;

  const GstCudaVkMemoryKind *in_kind;   /* negotiated */
  /* 1.24+: the output buffer wraps the staging slot (one GPU copy per
   * frame instead of two); else CUDA copies the slot into a pooled buffer */
  gboolean wrap;
  Slot *cur;                    /* wrap mode: the slot of the output buffer
                                 * prepare_output_buffer made */
  GPtrArray *slots;
  guint next_slot;
  guint max_outputs;            /* wrap mode: slots at most */
  GstCudaVkStagingWaiter *waiter;       /* wrap mode: a slot came back */
  /* slots of earlier caps, freed once both sides are done with them */
  GPtrArray *retired;
};

static GstStaticPadTemplate src_template = GST_STATIC_PAD_TEMPLATE ("src",
    GST_PAD_SRC, GST_PAD_ALWAYS,
    GST_STATIC_CAPS (GST_VIDEO_CAPS_MAKE_WITH_FEATURES
        (GST_CAPS_FEATURE_MEMORY_CUDA_MEMORY, GST_CUDA_VK_FORMATS)));

#define gst_vulkan_to_cuda_parent_class parent_class
G_DEFINE_TYPE (GstVulkanToCuda, gst_vulkan_to_cuda,
    GST_TYPE_CUDA_VK_BASE_TRANSFORM);
GST_ELEMENT_REGISTER_DEFINE (vulkantocuda, "vulkantocuda", GST_RANK_NONE,
    GST_TYPE_VULKAN_TO_CUDA);

/* shutdown: the stream was synchronised, waiting here is fine */
static void
free_slots (GstVulkanToCuda * self)
{
  guint i;

  if (self->slots) {
    for (i = 0; i < self->slots->len; i++)
      gst_cuda_vk_staging_unref (g_ptr_array_index (self->slots, i));
    g_ptr_array_set_size (self->slots, 0);
  }
  if (self->retired) {
    for (i = 0; i < self->retired->len; i++)
      gst_cuda_vk_staging_unref (g_ptr_array_index (self->retired, i));
    g_ptr_array_set_size (self->retired, 0);
  }
  self->next_slot = 0;
}

/* frees the retired slots whose GPU work is done, without blocking */
static void
gc_retired (GstVulkanToCuda * self)
{
  guint i = 0;

  while (self->retired && i < self->retired->len) {
    Slot *s = g_ptr_array_index (self->retired, i);
    GError *err = NULL;
    GstCudaVkStagingState st =
        gst_cuda_vk_staging_state (BRIDGE (self)->interop, s,
        &err);

    if (st == GST_CUDA_VK_STAGING_ERROR) {
      /* cannot tell: keep it, stop() waits for the stream */
      GST_WARNING_OBJECT (self, "retired staging buffer: %s", err->message);
      g_clear_error (&err);
      i++;
    } else if (st == GST_CUDA_VK_STAGING_READY) {
      g_ptr_array_remove_index_fast (self->retired, i);
      gst_cuda_vk_staging_unref (s);
    } else {
      i++;
    }
  }
}

static gboolean
gst_vulkan_to_cuda_start (GstBaseTransform * trans)
{
  GstVulkanToCuda *self = GST_VULKAN_TO_CUDA (trans);

  self->slots = g_ptr_array_new ();
  self->retired = g_ptr_array_new ();
  GST_OBJECT_LOCK (self);
  self->waiter = gst_cuda_vk_staging_waiter_new ();
  GST_OBJECT_UNLOCK (self);
  self->max_outputs = DEFAULT_MAX_OUTPUTS;
  return GST_BASE_TRANSFORM_CLASS (parent_class)->start (trans);
}

static gboolean
gst_vulkan_to_cuda_stop (GstBaseTransform * trans)
{
  GstVulkanToCuda *self = GST_VULKAN_TO_CUDA (trans);
  /* the base class first lets the stream's work finish */
  gboolean ret = GST_BASE_TRANSFORM_CLASS (parent_class)->stop (trans);

  if (BRIDGE (self)->device)
    free_slots (self);
  g_clear_pointer (&self->slots, g_ptr_array_unref);
  g_clear_pointer (&self->retired, g_ptr_array_unref);
  GST_OBJECT_LOCK (self);
  g_clear_pointer (&self->waiter, gst_cuda_vk_staging_waiter_unref);
  GST_OBJECT_UNLOCK (self);
  return ret;
}

/* wakes a streaming thread waiting for downstream to free an output */
static void
gst_vulkan_to_cuda_set_flushing (GstCudaVkBaseTransform * base,
    gboolean flushing)
{
  GstVulkanToCuda *self = GST_VULKAN_TO_CUDA (base);

  /* the object lock: stop() frees the waiter */
  GST_OBJECT_LOCK (self);
  if (self->waiter)
    gst_cuda_vk_staging_waiter_set_flushing (self->waiter, flushing);
  GST_OBJECT_UNLOCK (self);
}

static gboolean
gst_vulkan_to_cuda_set_info (GstCudaVkBaseTransform * base, GstCaps * incaps,
    GstCaps * outcaps)
{
  GstVulkanToCuda *self = GST_VULKAN_TO_CUDA (base);

  self->in_kind = gst_cuda_vk_memory_kind_from_caps (incaps);
  g_return_val_if_fail (self->in_kind, FALSE);
  self->wrap = gst_cuda_vk_staging_wrappable (OUT_INFO (self));
  GST_DEBUG_OBJECT (self, "output: %s", self->wrap ? "the staging buffers, "
      "wrapped (one GPU copy per frame)" : "a CUDA copy of the staging "
      "buffers (two GPU copies per frame)");
  /* staging slots of the old size may still be in use by GPU work: retire
   * them and free each once its fence and event have completed (checked
   * without blocking in later transforms; stop() waits for the rest) */
  if (self->slots && self->retired) {
    guint i;
    for (i = 0; i < self->slots->len; i++)
      g_ptr_array_add (self->retired, g_ptr_array_index (self->slots, i));
    g_ptr_array_set_size (self->slots, 0);
    self->next_slot = 0;
  }
  return TRUE;
}

static gboolean
gst_vulkan_to_cuda_decide_allocation (GstBaseTransform * trans,
    GstQuery * query)
{
  GstVulkanToCuda *self = GST_VULKAN_TO_CUDA (trans);
  GstBufferPool *pool;
  GstStructure *config;
  GstCaps *caps;
  guint max;

  gst_query_parse_allocation (query, &caps, NULL);
  if (!caps)
    return FALSE;
  /* after its error (a failed pool set-up, or any other): no new pool, the
   * driver call that failed is not tried again */
  if (gst_cuda_vk_base_transform_has_failed (GST_CUDA_VK_BASE_TRANSFORM (self)))
    return FALSE;

  gst_cuda_vk_base_transform_set_pool (GST_CUDA_VK_BASE_TRANSFORM (self), NULL);
  max = gst_cuda_vk_allocation_bound (query, DEFAULT_MAX_OUTPUTS);
  GST_DEBUG_OBJECT (self, "at most %u output buffers", max);
  /* wrap mode: the output buffers are the staging slots */
  if (self->wrap) {
    self->max_outputs = max;
    return TRUE;
  }
  pool = gst_cuda_buffer_pool_new (BRIDGE (self)->cuda);
  config = gst_buffer_pool_get_config (pool);
  gst_buffer_pool_config_set_params (config, caps,
      GST_VIDEO_INFO_SIZE (OUT_INFO (self)), 0, max);
  gst_buffer_pool_config_add_option (config, GST_BUFFER_POOL_OPTION_VIDEO_META);
  /* the output memory carries the stream the copy into it runs on */
  gst_cuda_vk_compat_pool_config_set_stream (config,
      gst_cuda_vk_interop_get_cuda_stream (BRIDGE (self)->interop));
  if (!gst_buffer_pool_set_config (pool, config) ||
      !gst_buffer_pool_set_active (pool, TRUE)) {
    GST_ELEMENT_ERROR (self, RESOURCE, NO_SPACE_LEFT,
        ("Could not set up the CUDA buffer pool"), (NULL));
    gst_object_unref (pool);
    return FALSE;
  }
  gst_cuda_vk_base_transform_set_pool (GST_CUDA_VK_BASE_TRANSFORM (self), pool);
  return TRUE;
}

/* At the limit of slots: one whose wrapped memory is gone, waited for on
 * the CPU (its GPU work: the copy into it, downstream's reads), starting
 * with the oldest; NULL when downstream holds every one */
static Slot *
wait_returned_slot (GstVulkanToCuda * self, GError ** error)
{
  guint i, n = self->slots->len;

  for (i = 0; i < n; i++) {
    guint k = (self->next_slot + i) % n;
    Slot *s = g_ptr_array_index (self->slots, k);

    if (g_atomic_int_get (&s->in_use) || s->broken)
      continue;
    GST_LOG_OBJECT (self, "%u staging buffers in flight: waiting", n);
    if (!gst_cuda_vk_staging_wait (BRIDGE (self)->interop, s, error))
      return NULL;
    self->next_slot = (k + 1) % n;
    return s;
  }
  return NULL;
}

static gboolean
all_broken (GPtrArray * slots)
{
  guint i;

  for (i = 0; i < slots->len; i++)
    if (!((Slot *) g_ptr_array_index (slots, i))->broken)
      return FALSE;
  return TRUE;
}

/* A staging slot both sides are done with (never blocking, except at the
 * limit of slots), or a new one. At the limit in wrap mode, with every
 * slot held downstream, waits for downstream to free one (back-pressure),
 * until a flush: GST_FLOW_FLUSHING. */
static GstFlowReturn
get_slot (GstVulkanToCuda * self, Slot ** out, GError ** error)
{
  GstCudaVkBridge *b = BRIDGE (self);
  guint limit = self->wrap ? self->max_outputs : MAX_SLOTS;
  Slot *s;

  for (;;) {
    guint i, n = self->slots->len;

    /* round robin: the oldest first */
    for (i = 0; i < n; i++) {
      GstCudaVkStagingState st;

      s = g_ptr_array_index (self->slots, (self->next_slot + i) % n);
      st = gst_cuda_vk_staging_state (b->interop, s, error);
      if (st == GST_CUDA_VK_STAGING_ERROR)
        return GST_FLOW_ERROR;
      if (st == GST_CUDA_VK_STAGING_READY) {
        self->next_slot = (self->next_slot + i + 1) % n;
        goto found;
      }
    }
    if (n < limit)
      break;
    if ((s = wait_returned_slot (self, error)))
      goto found;
    if (*error)
      return GST_FLOW_ERROR;
    if (all_broken (self->slots)) {
      g_set_error (error, GST_CUDA_SYNC_ERROR, GST_CUDA_SYNC_ERROR_FAILED,
          "none of the %u staging buffers can be used again: their readers "
          "could not be tracked", n);
      return GST_FLOW_ERROR;
    }
    GST_DEBUG_OBJECT (self, "downstream holds all %u output buffers: "
        "waiting for one", n);
    if (!gst_cuda_vk_staging_wait_returned (self->waiter, self->slots))
      return GST_FLOW_FLUSHING;
  }

  s = gst_cuda_vk_staging_new (b->interop, IN_INFO (self), self->wrap,
      self->waiter, error);
  if (!s)
    return GST_FLOW_ERROR;
  g_ptr_array_add (self->slots, s);

found:
  gst_cuda_vk_staging_reuse (s);
  *out = s;
  return GST_FLOW_OK;
}

/* get_slot() for a frame, with the element error when there is none */
static GstFlowReturn
acquire_slot (GstVulkanToCuda * self, Slot ** s)
{
  GError *err = NULL;
  GstFlowReturn ret;

  gc_retired (self);
  ret = get_slot (self, s, &err);
  if (ret == GST_FLOW_ERROR) {
    GST_ELEMENT_ERROR (self, RESOURCE, NO_SPACE_LEFT,
        ("Could not get a shareable staging buffer whose previous copies "
            "are known complete"), ("%s", err ? err->message : "none"));
    g_clear_error (&err);
  }
  return ret;
}

/* Wrap mode: the output buffer is a GstCudaMemory of the slot the frame
 * is copied into, with a GstVideoMeta of its layout */
static GstFlowReturn
gst_vulkan_to_cuda_prepare_output_buffer (GstBaseTransform * trans,
    GstBuffer * inbuf, GstBuffer ** outbuf)
{
  GstVulkanToCuda *self = GST_VULKAN_TO_CUDA (trans);
  GstVideoInfo *info = OUT_INFO (self);
  GstFlowReturn ret;
  GstMemory *mem;
  Slot *s;

  if (!self->wrap)
    return GST_BASE_TRANSFORM_CLASS (parent_class)->prepare_output_buffer
        (trans, inbuf, outbuf);
  if ((ret = acquire_slot (self, &s)) != GST_FLOW_OK)
    return ret;
  if (!(mem = gst_cuda_vk_staging_wrap (BRIDGE (self)->interop, s))) {
    GST_ELEMENT_ERROR (self, RESOURCE, FAILED,
        ("Could not wrap a staging buffer into CUDA memory"),
        ("gst_cuda_allocator_alloc_wrapped() failed"));
    return GST_FLOW_ERROR;
  }
  *outbuf = gst_buffer_new ();
  gst_buffer_append_memory (*outbuf, mem);
  gst_buffer_add_video_meta_full (*outbuf, GST_VIDEO_FRAME_FLAG_NONE,
      GST_VIDEO_INFO_FORMAT (info), GST_VIDEO_INFO_WIDTH (info),
      GST_VIDEO_INFO_HEIGHT (info), GST_VIDEO_INFO_N_PLANES (info),
      s->winfo.offset, s->winfo.stride);
  gst_buffer_copy_into (*outbuf, inbuf, GST_BUFFER_COPY_FLAGS |
      GST_BUFFER_COPY_TIMESTAMPS, 0, -1);
  self->cur = s;
  return GST_FLOW_OK;
}

/* The frame goes to CUDA through the interop (its download), by the
 * staging slot the output wraps or one of its own */
static GstFlowReturn
gst_vulkan_to_cuda_transform (GstBaseTransform * trans, GstBuffer * inbuf,
    GstBuffer * outbuf)
{
  GstVulkanToCuda *self = GST_VULKAN_TO_CUDA (trans);
  GstCudaVkBridge *b = BRIDGE (self);
  GstCudaVkInputFrame in;
  GstMemory *omem;
  GError *err = NULL;
  GstFlowReturn ret;
  Slot *s = NULL;

  if (!self->in_kind->parse_input (&in, b->device, IN_INFO (self), inbuf, &err)) {
    GST_CUDA_SYNC_ELEMENT_ERROR_FROM (self, err);
    return GST_FLOW_ERROR;
  }
  gst_cuda_vk_bridge_count (b, GST_CUDA_VK_COUNTER_BUFFERS, 1);

  omem = gst_buffer_peek_memory (outbuf, 0);
  if (gst_buffer_n_memory (outbuf) != 1 || !gst_is_cuda_memory (omem)) {
    GST_ELEMENT_ERROR (self, RESOURCE, FAILED,
        ("Output buffer is not one CUDA memory"), (NULL));
    return GST_FLOW_ERROR;
  }

  /* wrap mode: the slot the output buffer wraps */
  if (self->wrap)
    s = g_steal_pointer (&self->cur);
  else if ((ret = acquire_slot (self, &s)) != GST_FLOW_OK)
    return ret;
  if (!s)
    return GST_FLOW_ERROR;

  if (!gst_cuda_vk_interop_download (b->interop, self->in_kind, &in, s,
          omem, &err)) {
    GST_CUDA_SYNC_ELEMENT_ERROR_FROM (self, err);
    return GST_FLOW_ERROR;
  }
  return GST_FLOW_OK;
}

static void
gst_vulkan_to_cuda_class_init (GstVulkanToCudaClass * klass)
{
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstBaseTransformClass *trans_class = GST_BASE_TRANSFORM_CLASS (klass);
  GstCudaVkBaseTransformClass *base_class =
      GST_CUDA_VK_BASE_TRANSFORM_CLASS (klass);
  GstCaps *caps;

  gst_element_class_set_static_metadata (element_class,
      "Vulkan to CUDA", "Filter/Video/Hardware",
      "Copies Vulkan frames into CUDA memory through shareable memory, "
      "synchronised on the GPU with an external semaphore",
      "gst-cudasync developers");
  caps = gst_cuda_vk_memory_kinds_template_caps ();
  gst_element_class_add_pad_template (element_class,
      gst_pad_template_new ("sink", GST_PAD_SINK, GST_PAD_ALWAYS, caps));
  gst_caps_unref (caps);
  gst_element_class_add_static_pad_template (element_class, &src_template);

  trans_class->start = GST_DEBUG_FUNCPTR (gst_vulkan_to_cuda_start);
  trans_class->stop = GST_DEBUG_FUNCPTR (gst_vulkan_to_cuda_stop);
  trans_class->decide_allocation =
      GST_DEBUG_FUNCPTR (gst_vulkan_to_cuda_decide_allocation);
  trans_class->prepare_output_buffer =
      GST_DEBUG_FUNCPTR (gst_vulkan_to_cuda_prepare_output_buffer);
  trans_class->transform = GST_DEBUG_FUNCPTR (gst_vulkan_to_cuda_transform);

  base_class->to_vulkan = FALSE;
  base_class->set_info = GST_DEBUG_FUNCPTR (gst_vulkan_to_cuda_set_info);
  base_class->set_flushing =
      GST_DEBUG_FUNCPTR (gst_vulkan_to_cuda_set_flushing);

  GST_DEBUG_CATEGORY_INIT (gst_vulkan_to_cuda_debug, "vulkantocuda", 0,
      "vulkantocuda");
}

static void
gst_vulkan_to_cuda_init (GstVulkanToCuda * self)
{
}

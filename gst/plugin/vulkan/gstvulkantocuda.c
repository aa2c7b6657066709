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
 * Frames written in place (GStreamer 1.24+, #GstVulkanToCuda:in-place): for
 * one-plane formats of `memory:VulkanImage` (and NV12 and I420 with
 * #GstVulkanToCuda:one-allocation: one image per plane, all bound to one
 * allocation) the element proposes upstream a Vulkan image pool whose
 * linear images were allocated exportable and imported into CUDA once.
 * Upstream elements that take it (vulkanupload, vulkancolorconvert) write
 * their frames there; the element then gives the
 * frame back to CUDA after upstream's writes (a queue family release that
 * signals the timeline semaphore CUDA waits for), and outputs a
 * #GstCudaMemory around it: no copy at all (the `in-place` counter of
 * `stats`). The frame goes back to upstream once CUDA's readers are done
 * with it: an event recorded on the legacy default stream when the output
 * memory is freed, which covers readers on blocking streams (upstream's
 * CUDA elements), checked without blocking unless every frame is out. Frames
 * from elsewhere are copied as above. The element asks upstream for such
 * images first (its answer to the CAPS query), so that vulkanupload, which
 * would output `memory:VulkanBuffer`, writes them in place without a caps
 * filter.
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
 * |[
 * gst-launch-1.0 videotestsrc ! video/x-raw,format=NV12 ! vulkanupload ! vulkancolorconvert ! video/x-raw(memory:VulkanImage),format=RGBA ! vulkantocuda ! cudadownload ! autovideosink
 * ]| On GStreamer 1.24+ vulkancolorconvert renders into images CUDA reads
 * in place.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstvulkantocuda.h"
#include "gstcudavkbasetransform.h"
#include "gstcudavkinput.h"
#include "gstcudavkmemorykind.h"
#include "gstcudavkstaging.h"
#include "gstcudavkframepool.h"
#include "gstcudavkvulkanpool.h"
#include "gstcudavkcudamemory.h"
#include "gstcudasyncelementerror.h"
#include <gst/cuda/gstcudamemory.h>
#include <gst/cuda/gstcudabufferpool.h>
#include <gst/video/video.h>

GST_DEBUG_CATEGORY_STATIC (gst_vulkan_to_cuda_debug);

#define INTEROP(self) gst_cuda_vk_base_transform_get_interop \
    (GST_CUDA_VK_BASE_TRANSFORM (self))
#define DEVICE(self) gst_cuda_vk_base_transform_get_device \
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
#define DEFAULT_IN_PLACE TRUE
#define DEFAULT_ONE_ALLOCATION FALSE

enum
{
  PROP_0,
  PROP_IN_PLACE = 100,
  PROP_ONE_ALLOCATION,
};

/* the stats fields (GstCudaVkBaseTransform's), described */
static const GstCudaSyncStatsField stats_fields[] = {
  {"buffers", "frames handled"},
  {"signals", "semaphore signals by the Vulkan queue after a frame's copy or "
        "give-back to CUDA"},
  {"waits", "GPU waits by CUDA for those signals, one per frame"},
  {"cpu-syncs", "CPU waits of the fallback where Vulkan exports no "
        "semaphores (one per copied frame, two per frame read in place), "
        "and bound-waits"},
  {"copies", "frames CUDA copied out of a staging buffer (GStreamer 1.22, "
        "or layouts the 1.24+ output cannot wrap)"},
  {"semaphores", "semaphores created: one timeline semaphore, or one binary "
        "semaphore per staging buffer"},
  {"gpu-copies", "GPU copy passes over a frame, Vulkan's and CUDA's"},
  {"in-place", "frames upstream wrote into the pool the element proposed, "
        "read by CUDA where they are"},
  {"bound-waits", "CPU waits for the oldest staging buffer, every one being "
        "in use (counted in cpu-syncs too)"},
  {"semaphore-type", "a string, how the last start synchronises: timeline, "
        "binary, or none (the CPU fallback)"},
  {NULL, NULL}
};

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

  gboolean in_place;            /* properties, object lock */
  gboolean one_allocation;
  /* 1.24+, frames of one allocation: the frames of the pool proposed upstream
   * (streaming thread; replaced at renegotiation, while upstream may
   * still hold buffers of the old ones) */
  GstBufferPool *lend_frames;
  GstBufferPool *lend_pool;
  gboolean proposed;            /* lend_pool went upstream */
  GstBuffer *cur_lent;          /* the frame prepare_output_buffer wrapped */
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

/* the field of boolean property @prop_id; NULL for the base's */
static gboolean *
bool_prop (GstVulkanToCuda * self, guint prop_id)
{
  if (prop_id == PROP_IN_PLACE)
    return &self->in_place;
  if (prop_id == PROP_ONE_ALLOCATION)
    return &self->one_allocation;
  return NULL;
}

static void
gst_vulkan_to_cuda_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  GstVulkanToCuda *self = GST_VULKAN_TO_CUDA (object);
  gboolean *b = bool_prop (self, prop_id);

  if (b) {
    GST_OBJECT_LOCK (self);
    *b = g_value_get_boolean (value);
    GST_OBJECT_UNLOCK (self);
    return;
  }
  G_OBJECT_CLASS (parent_class)->set_property (object, prop_id, value, pspec);
}

static void
gst_vulkan_to_cuda_get_property (GObject * object, guint prop_id,
    GValue * value, GParamSpec * pspec)
{
  GstVulkanToCuda *self = GST_VULKAN_TO_CUDA (object);
  gboolean *b = bool_prop (self, prop_id);

  if (b) {
    GST_OBJECT_LOCK (self);
    g_value_set_boolean (value, *b);
    GST_OBJECT_UNLOCK (self);
    return;
  }
  G_OBJECT_CLASS (parent_class)->get_property (object, prop_id, value, pspec);
}

/* Lets go of the pool proposed upstream: buffers of it still out keep it,
 * and their frames are freed when they come back */
static void
clear_lend (GstVulkanToCuda * self)
{
  GstBufferPool *frames;

  GST_OBJECT_LOCK (self);
  frames = g_steal_pointer (&self->lend_frames);
  GST_OBJECT_UNLOCK (self);
  gst_cuda_vk_clear_pool (&frames);
  gst_clear_object (&self->lend_pool);
  gst_clear_buffer (&self->cur_lent);
}

/* 1.24+, property in-place, image frames of one plane (or, with property
 * one-allocation, NV12 and I420 frames whose planes' images share one
 * allocation), and the GPU path with a timeline semaphore (or the CPU
 * fallback): a pool of frames that CUDA reads where they are, for upstream
 * to write (gstcudavkvulkanpool.c). Otherwise none, and every frame is
 * copied. */
static void
setup_lend (GstVulkanToCuda * self)
{
  GstCudaVkInterop *interop = INTEROP (self);
  const gchar *sem_type = gst_cuda_vk_base_transform_get_semaphore_type
      (GST_CUDA_VK_BASE_TRANSFORM (self));
  const GstCudaVkMemoryKind *kind = self->in_kind;
  GstBufferPool *frames, *pool;
  gboolean enabled, one;
  GError *err = NULL;

  GST_OBJECT_LOCK (self);
  enabled = self->in_place;
  one = self->one_allocation;
  GST_OBJECT_UNLOCK (self);
  if (!enabled || !interop || g_strcmp0 (sem_type, "binary") == 0 ||
      !g_str_equal (self->in_kind->caps_feature,
          GST_CAPS_FEATURE_MEMORY_VULKAN_IMAGE)) {
    GST_DEBUG_OBJECT (self, "no pool for upstream (in-place %d, %s "
        "semaphores, %s)", enabled, sem_type, self->in_kind->caps_feature);
    return;
  }
  if (one && GST_VIDEO_INFO_N_PLANES (IN_INFO (self)) > 1 &&
      !gst_cuda_vk_one_allocation_usable (DEVICE (self), &err)) {
    GST_WARNING_OBJECT (self, "one-allocation not used: %s", err->message);
    g_clear_error (&err);
    one = FALSE;
  }
  if (!gst_cuda_vk_vulkan_pool_supported (DEVICE (self), IN_INFO (self), one,
          &err)) {
    GST_INFO_OBJECT (self, "no pool for upstream: %s", err->message);
    g_clear_error (&err);
    return;
  }
  if (GST_VIDEO_INFO_N_PLANES (IN_INFO (self)) > 1)
    kind = gst_cuda_vk_memory_kind_one_allocation (kind, IN_INFO (self));
  /* no element error while probing: a failure here means copying */
  frames = gst_cuda_vk_frame_pool_new (interop, IN_INFO (self), kind, NULL,
      NULL);
  gst_cuda_vk_frame_pool_set_image_usage (frames, GST_CUDA_VK_LEND_IMAGE_USAGE);
  if (!gst_buffer_pool_set_active (frames, TRUE) ||
      !(pool = gst_cuda_vk_vulkan_pool_new (interop, frames, kind))) {
    GST_INFO_OBJECT (self, "no frame for an upstream pool: copying");
    gst_cuda_vk_clear_pool (&frames);
    return;
  }
  gst_cuda_vk_frame_pool_set_error_func (frames,
      gst_cuda_vk_base_transform_pool_error, self);
  GST_OBJECT_LOCK (self);
  self->lend_frames = frames;
  GST_OBJECT_UNLOCK (self);
  self->lend_pool = pool;
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
  gboolean ret;

  /* upstream takes no more frames from the pool it was proposed (those it
   * has go back to the frame pool, which frees them), before the interop
   * stops */
  clear_lend (self);
  /* the base class then lets the stream's work finish */
  ret = GST_BASE_TRANSFORM_CLASS (parent_class)->stop (trans);
  /* Upstream's Vulkan work on the inputs is over before upstream can free
   * them: vulkanupload frees its images and staging buffers when it is
   * finalized before it waits for its copies into them, and an input
   * refused unread (after the element's error) was never waited for. The
   * queue is upstream's too (the bridge answers its context query). */
  if (INTEROP (self))
    gst_cuda_vk_queue_wait_idle (gst_cuda_vk_interop_get_queue (INTEROP
            (self)));
  if (DEVICE (self)) {
    gst_cuda_vk_staging_clear (self->slots);
    gst_cuda_vk_staging_clear (self->retired);
    self->next_slot = 0;
  }
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
  GstBufferPool *frames = NULL;

  /* the object lock: stop() frees the waiter */
  GST_OBJECT_LOCK (self);
  if (self->waiter)
    gst_cuda_vk_staging_waiter_set_flushing (self->waiter, flushing);
  if (self->lend_frames)
    frames = gst_object_ref (self->lend_frames);
  GST_OBJECT_UNLOCK (self);
  /* wakes upstream waiting in the proposed pool for a frame */
  if (frames) {
    gst_buffer_pool_set_flushing (frames, flushing);
    gst_object_unref (frames);
  }
}

static gboolean
gst_vulkan_to_cuda_set_info (GstCudaVkBaseTransform * base, GstCaps * incaps,
    GstCaps * outcaps)
{
  GstVulkanToCuda *self = GST_VULKAN_TO_CUDA (base);

  self->in_kind = gst_cuda_vk_memory_kind_from_caps (incaps);
  g_return_val_if_fail (self->in_kind, FALSE);
  /* frames of the old caps upstream still holds are copied (a frame of
   * another frame pool is no frame of the current one) */
  clear_lend (self);
  setup_lend (self);
  if (self->proposed) {
    self->proposed = FALSE;
    gst_base_transform_reconfigure_sink (GST_BASE_TRANSFORM (self));
  }
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
  /* frames read in place are outputs downstream holds too */
  if (self->lend_frames)
    gst_cuda_vk_frame_pool_set_max (self->lend_frames, max);
  /* wrap mode: the output buffers are the staging slots */
  if (self->wrap) {
    self->max_outputs = max;
    return TRUE;
  }
  pool = gst_cuda_buffer_pool_new (gst_cuda_vk_interop_get_context (INTEROP
          (self)));
  config = gst_buffer_pool_get_config (pool);
  gst_buffer_pool_config_set_params (config, caps,
      GST_VIDEO_INFO_SIZE (OUT_INFO (self)), 0, max);
  gst_buffer_pool_config_add_option (config, GST_BUFFER_POOL_OPTION_VIDEO_META);
  /* the output memory carries the stream the copy into it runs on */
  gst_cuda_vk_compat_pool_config_set_stream (config,
      gst_cuda_vk_interop_get_cuda_stream (INTEROP (self)));
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

/* The sink's CAPS query: upstream fixates its output to the first caps of
 * the answer, and GstBaseTransform orders the answer like upstream's filter
 * (vulkanupload's puts memory:VulkanBuffer first). Where setup_lend() will
 * propose a pool, what upstream can write into it comes first, so that
 * upstream writes the frames in place by default. */
static gboolean
gst_vulkan_to_cuda_query (GstBaseTransform * trans, GstPadDirection direction,
    GstQuery * query)
{
  GstVulkanToCuda *self = GST_VULKAN_TO_CUDA (trans);
  GstVulkanDevice *device = NULL;
  gboolean one;
  GstCaps *caps;

  if (!GST_BASE_TRANSFORM_CLASS (parent_class)->query (trans, direction, query))
    return FALSE;
  if (direction != GST_PAD_SINK || GST_QUERY_TYPE (query) != GST_QUERY_CAPS)
    return TRUE;
  /* the device: from READY on, dropped under the object lock */
  GST_OBJECT_LOCK (self);
  if (self->in_place && DEVICE (self))
    device = gst_object_ref (DEVICE (self));
  one = self->one_allocation;
  GST_OBJECT_UNLOCK (self);
  one = one && device && gst_cuda_vk_one_allocation_usable (device, NULL);
  if (!device || g_strcmp0 (gst_cuda_vk_base_transform_get_semaphore_type
          (GST_CUDA_VK_BASE_TRANSFORM (self)), "binary") == 0) {
    gst_clear_object (&device);
    return TRUE;
  }
  gst_query_parse_caps_result (query, &caps);
  if (caps) {
    caps = gst_cuda_vk_vulkan_pool_caps_first (device, one,
        gst_caps_ref (caps));
    GST_DEBUG_OBJECT (self, "caps answered: %" GST_PTR_FORMAT, caps);
    gst_query_set_caps_result (query, caps);
    gst_caps_unref (caps);
  }
  gst_object_unref (device);
  return TRUE;
}

/* The pool of frames CUDA reads in place, for upstream to write
 * (setup_lend()), when there is one and upstream has none yet */
static gboolean
gst_vulkan_to_cuda_propose_allocation (GstBaseTransform * trans,
    GstQuery * decide_query, GstQuery * query)
{
  GstVulkanToCuda *self = GST_VULKAN_TO_CUDA (trans);
  GstStructure *config;
  GstVideoInfo info;
  GstCaps *caps;

  gst_query_add_allocation_meta (query, GST_VIDEO_META_API_TYPE, NULL);
  gst_query_parse_allocation (query, &caps, NULL);
  if (!self->lend_pool || !caps || gst_query_get_n_allocation_pools (query)
      > 0 || !gst_video_info_from_caps (&info, caps))
    return TRUE;
  config = gst_buffer_pool_get_config (self->lend_pool);
  gst_buffer_pool_config_set_params (config, caps, info.size, 0, 0);
  if (!gst_buffer_pool_set_config (self->lend_pool, config)) {
    GST_INFO_OBJECT (self, "the pool for upstream refused caps %"
        GST_PTR_FORMAT, caps);
    return TRUE;
  }
  gst_query_add_allocation_pool (query, self->lend_pool, info.size, 0, 0);
  self->proposed = TRUE;
  GST_DEBUG_OBJECT (self, "proposed a pool of frames CUDA reads in place");
  return TRUE;
}

/* The output buffer of @mem, a CUDA memory that wraps Vulkan memory at
 * its own layout (a staging slot, or a frame upstream wrote), for @inbuf:
 * a video meta of that layout, @inbuf's flags and timestamps */
static GstBuffer *
wrapped_output (GstVulkanToCuda * self, GstMemory * mem, GstBuffer * inbuf)
{
  GstVideoInfo *info = OUT_INFO (self);
  GstVideoInfo *layout = &GST_CUDA_MEMORY_CAST (mem)->info;
  GstBuffer *outbuf = gst_buffer_new ();

  gst_buffer_append_memory (outbuf, mem);
  gst_buffer_add_video_meta_full (outbuf, GST_VIDEO_FRAME_FLAG_NONE,
      GST_VIDEO_INFO_FORMAT (info), GST_VIDEO_INFO_WIDTH (info),
      GST_VIDEO_INFO_HEIGHT (info), GST_VIDEO_INFO_N_PLANES (info),
      layout->offset, layout->stride);
  gst_buffer_copy_into (outbuf, inbuf, GST_BUFFER_COPY_FLAGS |
      GST_BUFFER_COPY_TIMESTAMPS, 0, -1);
  return outbuf;
}

/* The output for @inbuf when upstream wrote it in place (a buffer of the
 * pool propose_allocation() offered, for the current frames): a CUDA
 * memory around the frame, in *@outbuf; FALSE otherwise */
static gboolean
lent_output (GstVulkanToCuda * self, GstBuffer * inbuf, GstBuffer ** outbuf)
{
  GstBuffer *frame;
  GstMemory *mem;

  if (!self->lend_frames || !(frame = gst_cuda_vk_vulkan_pool_get_frame
          (inbuf, self->lend_frames)))
    return FALSE;
  mem = gst_cuda_vk_vulkan_pool_wrap (self->lend_pool, frame, inbuf);
  if (!mem) {
    GST_WARNING_OBJECT (self, "could not wrap a frame: copying it");
    gst_buffer_unref (frame);
    return FALSE;
  }
  *outbuf = wrapped_output (self, mem, inbuf);
  self->cur_lent = frame;
  return TRUE;
}

/* A staging slot for a frame (gst_cuda_vk_staging_get()), with the element
 * error when there is none */
static GstFlowReturn
acquire_slot (GstVulkanToCuda * self, Slot ** s)
{
  GError *err = NULL;
  GstFlowReturn ret;

  if (self->retired)
    gst_cuda_vk_staging_gc (INTEROP (self), self->retired);
  ret = gst_cuda_vk_staging_get (INTEROP (self), self->slots,
      &self->next_slot, self->wrap ? self->max_outputs : MAX_SLOTS,
      IN_INFO (self), self->wrap, self->waiter, s, &err);
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
  GstFlowReturn ret;
  GstMemory *mem;
  Slot *s;

  if (lent_output (self, inbuf, outbuf))
    return GST_FLOW_OK;
  if (!self->wrap)
    return GST_BASE_TRANSFORM_CLASS (parent_class)->prepare_output_buffer
        (trans, inbuf, outbuf);
  if ((ret = acquire_slot (self, &s)) != GST_FLOW_OK)
    return ret;
  if (!(mem = gst_cuda_vk_staging_wrap (INTEROP (self), s))) {
    GST_ELEMENT_ERROR (self, RESOURCE, FAILED,
        ("Could not wrap a staging buffer into CUDA memory"),
        ("gst_cuda_allocator_alloc_wrapped() failed"));
    return GST_FLOW_ERROR;
  }
  *outbuf = wrapped_output (self, mem, inbuf);
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
  GstCudaSyncBaseTransform *base = GST_CUDA_SYNC_BASE_TRANSFORM (self);
  GstCudaVkInterop *interop = INTEROP (self);
  GstCudaVkInputFrame in;
  GstMemory *omem;
  GError *err = NULL;
  GstFlowReturn ret;
  Slot *s = NULL;

  if (self->cur_lent) {
    /* written in place by upstream: CUDA reads the frame where it is */
    GstBuffer *frame = g_steal_pointer (&self->cur_lent);
    gboolean ok;

    gst_cuda_sync_base_transform_count (base, GST_CUDA_VK_COUNTER_BUFFERS, 1);
    ok = gst_cuda_vk_interop_download_lent (interop, self->in_kind, frame,
        gst_cuda_vk_frame_get (frame), gst_buffer_peek_memory (outbuf, 0),
        &err);
    gst_buffer_unref (frame);
    if (!ok) {
      GST_CUDA_SYNC_ELEMENT_ERROR_FROM (self, err);
      return GST_FLOW_ERROR;
    }
    return GST_FLOW_OK;
  }
  if (!self->in_kind->parse_input (&in, DEVICE (self), IN_INFO (self), inbuf,
          &err)) {
    GST_CUDA_SYNC_ELEMENT_ERROR_FROM (self, err);
    return GST_FLOW_ERROR;
  }
  gst_cuda_sync_base_transform_count (base, GST_CUDA_VK_COUNTER_BUFFERS, 1);

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

  if (!gst_cuda_vk_interop_download (interop, self->in_kind, &in, s,
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
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstCaps *caps;

  gobject_class->set_property = gst_vulkan_to_cuda_set_property;
  gobject_class->get_property = gst_vulkan_to_cuda_get_property;

  /**
   * GstVulkanToCuda:in-place:
   *
   * On GStreamer 1.24 and newer, for one-plane formats (RGBA, BGRA, RGBx,
   * BGRx) of `memory:VulkanImage`, propose upstream a Vulkan image pool
   * whose images were allocated exportable and imported into CUDA:
   * upstream Vulkan elements that use it (vulkanupload,
   * vulkancolorconvert and the other filters that take an image pool from
   * the ALLOCATION query) write their frames where CUDA reads them, and
   * the element copies nothing (the `in-place` counter of `stats`). Not
   * with binary semaphores (#GstCudaVkBaseTransform:timeline off), and not
   * where the Vulkan device makes no such images (linear, exportable, with
   * colour attachment usage). Frames from elsewhere are copied as always.
   * Where on, the element answers upstream's CAPS query with the images
   * the pool takes first, so that upstream that also outputs buffers
   * (vulkanupload) writes into the pool by default.
   */
  g_object_class_install_property (gobject_class, PROP_IN_PLACE,
      g_param_spec_boolean ("in-place", "In place",
          "Propose upstream a pool of images CUDA reads where they are, so "
          "that upstream writes the frames in place (GStreamer 1.24+, "
          "one-plane formats, NV12 and I420 with one-allocation); otherwise "
          "every frame is copied", DEFAULT_IN_PLACE, G_PARAM_READWRITE |
          GST_PARAM_MUTABLE_READY | G_PARAM_STATIC_STRINGS));
  /**
   * GstVulkanToCuda:one-allocation:
   *
   * With #GstVulkanToCuda:in-place, NV12 and I420 frames are lent to
   * upstream too, as one image per plane (what vulkanupload and
   * vulkancolorconvert write) all bound to one exportable allocation that
   * CUDA imports once. Not with the NVIDIA Vulkan driver, as
   * cudatovulkan's (docs/known-issues.md): frames are copied there. Off
   * by default.
   */
  g_object_class_install_property (gobject_class, PROP_ONE_ALLOCATION,
      g_param_spec_boolean ("one-allocation", "One allocation",
          "With in-place, lend NV12 and I420 frames too, their planes' "
          "images bound to one allocation (GStreamer 1.24+)",
          DEFAULT_ONE_ALLOCATION, G_PARAM_READWRITE |
          GST_PARAM_MUTABLE_READY | G_PARAM_STATIC_STRINGS));
  /**
   * GstVulkanToCuda:stats:
   *
   * Counters since the element was created, and `semaphore-type`: the
   * property's description lists them. Notified when EOS leaves the
   * element (`gst-launch-1.0 -v` prints the final counters).
   */
  gst_cuda_sync_base_transform_class_install_stats (gobject_class,
      stats_fields);

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
  trans_class->propose_allocation =
      GST_DEBUG_FUNCPTR (gst_vulkan_to_cuda_propose_allocation);
  trans_class->query = GST_DEBUG_FUNCPTR (gst_vulkan_to_cuda_query);
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
  self->in_place = DEFAULT_IN_PLACE;
  self->one_allocation = DEFAULT_ONE_ALLOCATION;
}

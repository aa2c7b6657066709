/* gst-cudasync
 * Copyright (C) 2026 gst-cudasync developers
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
/**
 * SECTION:element-cudatovulkan
 * @title: cudatovulkan
 *
 * Hands CUDA video frames to Vulkan elements without going through system
 * memory. Each output frame is a set of linear Vulkan images (one per plane,
 * as upstream vulkan elements expect) whose memory was allocated exportable
 * (`VK_KHR_external_memory_fd`) and imported into CUDA; every input frame is
 * copied into one of them with one `cuMemcpy2DAsync` per plane on the
 * element's CUDA stream. The images are pooled: in steady state nothing is
 * allocated, and an image is written again only after the Vulkan work of
 * downstream reading it has finished (checked without blocking).
 *
 * Synchronisation: CUDA signals a semaphore exported by Vulkan
 * (`VK_KHR_external_semaphore_fd`) after the copy, and a Vulkan submission
 * that takes ownership of the images (queue family acquire from
 * `VK_QUEUE_FAMILY_EXTERNAL`, layout transition) waits on it on the GPU. The
 * images' barrier state is set so that later Vulkan elements on the queue
 * order after that submission. On GStreamer 1.24 and newer, where the
 * Vulkan device has timeline semaphores, that is one timeline semaphore
 * for the element, signalled with increasing values (the `timeline`
 * property turns it off). Otherwise (1.22) every pooled frame has its own
 * binary semaphore, signalled again only when the frame is reused, i.e.
 * after the fence of the Vulkan work that waited on it has signalled: CUDA
 * can never signal a semaphore whose previous signal the Vulkan queue has
 * not consumed yet, however far CUDA runs ahead of the queue. The
 * `semaphore-type` field of `stats` says which one ran. Where Vulkan cannot export
 * semaphores (for example lavapipe), the CUDA stream is synchronised on the
 * CPU before the Vulkan submission and counted in the `cpu-syncs`
 * statistic.
 *
 * Downstream may ask for `memory:VulkanBuffer` instead: one exportable
 * VkBuffer per plane, GstVideoInfo strides, with a #GstVideoMeta; the rest
 * (semaphores, fallback, statistics) is the same.
 *
 * Acquire points of an incoming #GstCudaSyncMeta are waited on the GPU; an
 * upstream cudasemsignal is offered the element's own semaphore through the
 * ALLOCATION query.
 *
 * Input buffers: the copy out of an input frame runs later on the GPU, while
 * upstream 1.22 CUDA elements (cudaupload, the NVDEC decoders) write the
 * next frame into a recycled pool buffer on their own CUDA stream as soon as
 * it is back in their pool, with nothing ordering that write after this
 * element's copy. So on the GPU path an input without a release point is
 * kept (a reference) until the copy out of it has completed, and given back
 * then by a thread of the element's own, never waited for on the streaming
 * thread. An input with a release point is given back at once: the release
 * point is signalled on the legacy default stream, after the copy.
 *
 * The Vulkan device must be the CUDA device (same UUID; there is no way
 * around this check: tests on the simulated CUDA driver give it the Vulkan
 * device's UUID with `CUDASIM_DEVICE_UUID`). Instance and device
 * are shared through #GstContext like upstream vulkan elements do; a device
 * created by this element has the external memory and semaphore extensions
 * enabled.
 *
 * From GStreamer 1.24 to 1.28, give an output frame to one Vulkan element
 * at a time: two Vulkan elements that read one image at once on two threads
 * (the branches of a `tee`) race on the image's barrier state and timeline
 * in upstream's #GstVulkanOperation, which the validation layer reports.
 * Newer GStreamer detects that and records the operation again.
 *
 * ## Example launch lines
 * |[
 * gst-launch-1.0 videotestsrc ! cudaupload ! cudatovulkan ! vulkansink
 * ]|
 * |[
 * gst-launch-1.0 videotestsrc ! video/x-raw,format=NV12 ! cudaupload ! cudatovulkan ! vulkancolorconvert ! video/x-raw(memory:VulkanImage),format=RGBA ! vulkandownload ! videoconvert ! autovideosink
 * ]|
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstcudatovulkan.h"
#include "gstcudavkbasetransform.h"
#include "gstcudasyncelementerror.h"
#include "gstcudavkframepool.h"
#include "gstcudavkupstreampool.h"
#include "gstcudavkcudamemory.h"
#include <gst/cuda/gstcudamemory.h>
#include <gst/cuda/gstcudabufferpool.h>
#include <gst/video/video.h>

GST_DEBUG_CATEGORY_STATIC (gst_cuda_to_vulkan_debug);

#define INTEROP(self) gst_cuda_vk_base_transform_get_interop \
    (GST_CUDA_VK_BASE_TRANSFORM (self))
#define IN_INFO(self) gst_cuda_vk_base_transform_get_in_info \
    (GST_CUDA_VK_BASE_TRANSFORM (self))
#define OUT_INFO(self) gst_cuda_vk_base_transform_get_out_info \
    (GST_CUDA_VK_BASE_TRANSFORM (self))
#define GST_CAT_DEFAULT gst_cuda_to_vulkan_debug

/* ---- element ---- */

struct _GstCudaToVulkan
{
  GstCudaVkBaseTransform parent;

  const GstCudaVkMemoryKind *out_kind;  /* negotiated */
  gboolean in_place;            /* properties (object lock) */
  gboolean multi_planar;
  gboolean one_allocation;
  /* streaming thread: an upstream pool was proposed; the buffer being
   * transformed was written in place (prepare_output_buffer()) */
  gboolean proposed;
  gboolean written_in_place;
};

/* after the base classes' (GstCudaVkBaseTransform's) */
enum
{
  PROP_IN_PLACE = 100,
  PROP_MULTI_PLANAR,
  PROP_ONE_ALLOCATION,
};
#define DEFAULT_IN_PLACE TRUE
#define DEFAULT_MULTI_PLANAR FALSE
#define DEFAULT_ONE_ALLOCATION FALSE

/* the boolean property @prop_id (object lock) */
static gboolean *
bool_property (GstCudaToVulkan * self, guint prop_id)
{
  switch (prop_id) {
    case PROP_IN_PLACE:
      return &self->in_place;
    case PROP_MULTI_PLANAR:
      return &self->multi_planar;
    case PROP_ONE_ALLOCATION:
      return &self->one_allocation;
    default:
      return NULL;
  }
}

static GstStaticPadTemplate sink_template = GST_STATIC_PAD_TEMPLATE ("sink",
    GST_PAD_SINK, GST_PAD_ALWAYS,
    GST_STATIC_CAPS (GST_VIDEO_CAPS_MAKE_WITH_FEATURES
        (GST_CAPS_FEATURE_MEMORY_CUDA_MEMORY, GST_CUDA_VK_FORMATS)));

/* the stats structure's fields (GstCudaVkBaseTransform's) and what they
 * count here, for the property's description */
static const GstCudaSyncStatsField stats_fields[] = {
  {"buffers", "frames handled"},
  {"signals", "semaphore signals by CUDA after writing a frame"},
  {"waits", "GPU waits by CUDA for the acquire points of an incoming "
        "GstCudaSyncMeta (from cudasemsignal, for example)"},
  {"cpu-syncs", "CPU waits of the fallback where Vulkan exports no "
        "semaphores: one per frame, before its Vulkan submission"},
  {"copies", "frames CUDA copied into the output (copies + in-place = "
        "buffers)"},
  {"semaphores", "semaphores created: one timeline semaphore, or one binary "
        "semaphore per pooled frame"},
  {"gpu-copies", "GPU copy passes over a frame"},
  {"in-place", "frames upstream wrote straight into the output's memory "
        "(GStreamer 1.24+), not copied"},
  {"bound-waits", "always 0 here (vulkantocuda's waits for a free staging "
        "buffer)"},
  {"semaphore-type", "a string, how the last start synchronises: timeline, "
        "binary, or none (the CPU fallback)"},
  {NULL, NULL}
};

#define gst_cuda_to_vulkan_parent_class parent_class
G_DEFINE_TYPE (GstCudaToVulkan, gst_cuda_to_vulkan,
    GST_TYPE_CUDA_VK_BASE_TRANSFORM);
GST_ELEMENT_REGISTER_DEFINE (cudatovulkan, "cudatovulkan", GST_RANK_NONE,
    GST_TYPE_CUDA_TO_VULKAN);

static void
gst_cuda_to_vulkan_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  GstCudaToVulkan *self = GST_CUDA_TO_VULKAN (object);
  gboolean *b = bool_property (self, prop_id);

  if (b) {
    GST_OBJECT_LOCK (self);
    *b = g_value_get_boolean (value);
    GST_OBJECT_UNLOCK (self);
    return;
  }
  G_OBJECT_CLASS (parent_class)->set_property (object, prop_id, value, pspec);
}

static void
gst_cuda_to_vulkan_get_property (GObject * object, guint prop_id,
    GValue * value, GParamSpec * pspec)
{
  GstCudaToVulkan *self = GST_CUDA_TO_VULKAN (object);
  gboolean *b = bool_property (self, prop_id);

  if (b) {
    GST_OBJECT_LOCK (self);
    g_value_set_boolean (value, *b);
    GST_OBJECT_UNLOCK (self);
    return;
  }
  G_OBJECT_CLASS (parent_class)->get_property (object, prop_id, value, pspec);
}

/* NV12 and I420 images, with properties in-place and one-allocation, where
 * upstream can write such frames (1.24+): the variant of @kind whose
 * planes' images share one allocation, where the device binds them so;
 * otherwise @kind (one dedicated allocation per plane, every frame
 * copied) */
static const GstCudaVkMemoryKind *
one_allocation_kind (GstCudaToVulkan * self, const GstCudaVkMemoryKind * kind)
{
  const GstCudaVkMemoryKind *one;
  const GstVideoInfo *info = OUT_INFO (self);
  const GstCudaVkAllocParams *alloc;
  GError *err = NULL;
  gboolean in_place;

  GST_OBJECT_LOCK (self);
  in_place = self->in_place && self->one_allocation;
  GST_OBJECT_UNLOCK (self);
  one = gst_cuda_vk_memory_kind_one_allocation (kind, info);
  if (!in_place || !one || !gst_cuda_vk_upstream_pool_supported (info, one))
    return kind;
  alloc = gst_cuda_vk_interop_get_alloc_params (INTEROP (self));
  if (!gst_cuda_vk_one_allocation_usable (alloc->device, &err)) {
    GST_WARNING_OBJECT (self, "one-allocation not used, one allocation per "
        "plane: %s", err->message);
    g_clear_error (&err);
    return kind;
  }
  if (!gst_cuda_vk_one_memory_supported (alloc, info, GST_CUDA_VK_IMAGE_USAGE,
          &err)) {
    GST_INFO_OBJECT (self, "one allocation per plane: %s", err->message);
    g_clear_error (&err);
    return kind;
  }
  GST_DEBUG_OBJECT (self, "one image per plane, one allocation per frame");
  return one;
}

/* The kind of memory of the output frames: @caps' kind, or with property
 * multi-planar its variant of one multi-planar image per frame, where
 * upstream can write those in place and the device makes them; otherwise
 * one_allocation_kind()'s */
static const GstCudaVkMemoryKind *
output_kind (GstCudaToVulkan * self, GstCaps * caps)
{
  const GstCudaVkMemoryKind *kind = gst_cuda_vk_memory_kind_from_caps (caps);
  const GstCudaVkMemoryKind *mp;
  const GstVideoInfo *info = OUT_INFO (self);
  GError *err = NULL;
  gboolean want;

  GST_OBJECT_LOCK (self);
  want = self->multi_planar;
  GST_OBJECT_UNLOCK (self);
  if (!kind)
    return NULL;
  if (!want)
    return one_allocation_kind (self, kind);
  mp = gst_cuda_vk_memory_kind_variant (kind, info, TRUE);
  if (!mp || !gst_cuda_vk_upstream_pool_supported (info, mp)) {
    GST_INFO_OBJECT (self, "%s frames in %s: one memory per plane",
        gst_video_format_to_string (GST_VIDEO_INFO_FORMAT (info)),
        kind->caps_feature);
    return one_allocation_kind (self, kind);
  }
  if (!gst_cuda_vk_multiplanar_supported (gst_cuda_vk_base_transform_get_device
          (GST_CUDA_VK_BASE_TRANSFORM (self)), info,
          GST_CUDA_VK_IMAGE_USAGE, &err)) {
    GST_INFO_OBJECT (self, "one image per plane: %s", err->message);
    g_clear_error (&err);
    return one_allocation_kind (self, kind);
  }
  GST_DEBUG_OBJECT (self, "one multi-planar image per frame");
  return mp;
}

static gboolean
gst_cuda_to_vulkan_set_info (GstCudaVkBaseTransform * base, GstCaps * incaps,
    GstCaps * outcaps)
{
  GstCudaToVulkan *self = GST_CUDA_TO_VULKAN (base);
  GstBufferPool *pool;

  self->out_kind = output_kind (self, outcaps);
  g_return_val_if_fail (self->out_kind, FALSE);
  /* frames of the old caps in flight downstream keep the old pool alive
   * and are freed when they come back */
  pool = gst_cuda_vk_frame_pool_new (INTEROP (self), OUT_INFO (self),
      self->out_kind, gst_cuda_vk_base_transform_pool_error, self);
  if (!gst_buffer_pool_set_active (pool, TRUE)) {
    GST_ELEMENT_ERROR (self, RESOURCE, SETTINGS,
        ("Could not activate the Vulkan memory pool"), (NULL));
    gst_object_unref (pool);
    gst_cuda_vk_base_transform_set_pool (base, NULL);
    return FALSE;
  }
  gst_cuda_vk_base_transform_set_pool (base, pool);
  /* a pool proposed upstream hands out frames of the old pool no more
   * (plain CUDA memory, copied): have upstream ask for a new one */
  if (self->proposed) {
    self->proposed = FALSE;
    gst_base_transform_reconfigure_sink (GST_BASE_TRANSFORM (self));
  }
  return TRUE;
}

/* Configures @pool (transfer full) for @caps with the element's stream and
 * adds it to @query at the size it settled on (a CUDA pool may round the
 * pitch up; the pool of the output's frames has their pitch). FALSE when
 * it refuses the configuration. */
static gboolean
offer_pool (GstCudaToVulkan * self, GstQuery * query, GstBufferPool * pool,
    GstCaps * caps, const GstVideoInfo * info)
{
  GstStructure *config = gst_buffer_pool_get_config (pool);
  guint size;

  gst_buffer_pool_config_set_params (config, caps, info->size, 0, 0);
  gst_buffer_pool_config_add_option (config, GST_BUFFER_POOL_OPTION_VIDEO_META);
  gst_cuda_vk_compat_pool_config_set_stream (config,
      gst_cuda_vk_interop_get_cuda_stream (INTEROP (self)));
  if (!gst_buffer_pool_set_config (pool, config)) {
    GST_INFO_OBJECT (self, "%" GST_PTR_FORMAT " refused caps %"
        GST_PTR_FORMAT, pool, caps);
    gst_object_unref (pool);
    return FALSE;
  }
  config = gst_buffer_pool_get_config (pool);
  gst_buffer_pool_config_get_params (config, NULL, &size, NULL, NULL);
  gst_structure_free (config);
  gst_query_add_allocation_pool (query, pool, size, 0, 0);
  gst_object_unref (pool);
  return TRUE;
}

/* Frames of one memory (one-plane formats, or one multi-planar image),
 * property in-place: a pool whose memory is the output frames' own, so
 * that upstream writes in place (gstcudavkupstreampool.c); NULL when that
 * does not apply */
static GstBufferPool *
in_place_pool (GstCudaToVulkan * self, const GstVideoInfo * info)
{
  GstBufferPool *frames, *pool;
  gboolean enabled;

  GST_OBJECT_LOCK (self);
  enabled = self->in_place;
  GST_OBJECT_UNLOCK (self);
  if (!enabled || !self->out_kind ||
      !gst_cuda_vk_upstream_pool_supported (info, self->out_kind))
    return NULL;
  frames = gst_cuda_vk_base_transform_get_pool (GST_CUDA_VK_BASE_TRANSFORM
      (self));
  if (!frames)
    return NULL;
  pool = gst_cuda_vk_upstream_pool_new (INTEROP (self), frames);
  gst_object_unref (frames);
  if (!pool)
    GST_INFO_OBJECT (self, "no frame for an upstream pool: copying");
  return pool;
}

/* A CUDA pool whose memory carries the element's stream: upstream elements
 * that adopt a proposed stream (nvh264dec, cudaconvertscale) then write on
 * the stream the element's work on their frames runs on, with no event
 * between the two. Others write on their own stream, and the copy orders
 * itself after it (gst_cuda_sync_memory_wait_pending()). For one-plane
 * formats that pool hands out the output's own frames (in_place_pool());
 * otherwise, or when it refuses the caps, a GstCudaBufferPool. */
static void
propose_pool (GstCudaToVulkan * self, GstQuery * query)
{
  GstCudaVkInterop *interop = INTEROP (self);
  GstBufferPool *pool;
  GstVideoInfo info;
  GstCaps *caps;

  gst_query_parse_allocation (query, &caps, NULL);
  if (!caps || !interop || !gst_cuda_vk_interop_get_cuda_stream (interop) ||
      gst_query_get_n_allocation_pools (query) > 0 ||
      !gst_video_info_from_caps (&info, caps))
    return;

  pool = in_place_pool (self, &info);
  if (pool && offer_pool (self, query, pool, caps, &info)) {
    self->proposed = TRUE;
    GST_DEBUG_OBJECT (self, "proposed a pool of the output's frames");
    return;
  }
  if (!offer_pool (self, query, gst_cuda_buffer_pool_new
          (gst_cuda_vk_interop_get_context (interop)), caps, &info))
    GST_WARNING_OBJECT (self, "the CUDA pool refused its configuration");
}

static gboolean
gst_cuda_to_vulkan_propose_allocation (GstBaseTransform * trans,
    GstQuery * decide_query, GstQuery * query)
{
  GstCudaToVulkan *self = GST_CUDA_TO_VULKAN (trans);

  propose_pool (self, query);
  gst_query_add_allocation_meta (query, GST_VIDEO_META_API_TYPE, NULL);
  /* an upstream cudasemsignal signals this, we wait on the GPU */
  if (INTEROP (self) &&
      gst_cuda_vk_interop_get_offer_semaphore (INTEROP (self)))
    gst_query_add_cuda_sync_meta (query,
        GST_CUDA_SEMAPHORE_HANDLE_TYPE_FLAG_OPAQUE_FD,
        gst_cuda_vk_interop_get_offer_semaphore (INTEROP (self)));
  return TRUE;
}

/* Output frames come from the element's own pool of shareable images
 * (set_info()), as many as downstream allows */
static gboolean
gst_cuda_to_vulkan_decide_allocation (GstBaseTransform * trans,
    GstQuery * query)
{
  GstBufferPool *pool =
      gst_cuda_vk_base_transform_get_pool (GST_CUDA_VK_BASE_TRANSFORM (trans));

  if (pool) {
    gst_cuda_vk_frame_pool_set_max (pool, gst_cuda_vk_allocation_bound (query,
            GST_CUDA_VK_DEFAULT_MAX_FRAMES));
    gst_object_unref (pool);
  }
  return TRUE;
}

/* @inbuf is one CUDA memory of @cuda, at least as large as @info (the
 * negotiated input) says; otherwise an element error */
static gboolean
check_input (GstCudaToVulkan * self, GstCudaContext * cuda,
    const GstVideoInfo * info, GstBuffer * inbuf)
{
  GstCudaMemory *cmem;
  GstMemory *mem;

  if (gst_buffer_n_memory (inbuf) != 1) {
    GST_ELEMENT_ERROR (self, STREAM, FORMAT,
        ("Expected one CUDA memory per buffer, got %u",
            gst_buffer_n_memory (inbuf)), (NULL));
    return FALSE;
  }
  mem = gst_buffer_peek_memory (inbuf, 0);
  if (!gst_cuda_sync_element_check_memory (GST_ELEMENT (self), mem, cuda))
    return FALSE;
  cmem = GST_CUDA_MEMORY_CAST (mem);
  if (GST_VIDEO_INFO_FORMAT (&cmem->info) != GST_VIDEO_INFO_FORMAT (info) ||
      GST_VIDEO_INFO_WIDTH (&cmem->info) < GST_VIDEO_INFO_WIDTH (info) ||
      GST_VIDEO_INFO_HEIGHT (&cmem->info) < GST_VIDEO_INFO_HEIGHT (info)) {
    GST_ELEMENT_ERROR (self, STREAM, FORMAT,
        ("CUDA memory layout (%s %dx%d) does not match the caps",
            gst_video_format_to_string (GST_VIDEO_INFO_FORMAT (&cmem->info)),
            GST_VIDEO_INFO_WIDTH (&cmem->info),
            GST_VIDEO_INFO_HEIGHT (&cmem->info)), (NULL));
    return FALSE;
  }
  return TRUE;
}

/* The output frame that @inbuf is, when upstream wrote it in place (a
 * buffer of the pool in_place_pool() made, for the current
 * output pool) and nothing asks for it to be copied: a release point
 * would be signalled when the input goes, before Vulkan has read it. */
static GstBuffer *
in_place_output (GstCudaToVulkan * self, GstBuffer * inbuf)
{
  GstCudaSyncMeta *meta = gst_buffer_get_cuda_sync_meta (inbuf);
  GstBufferPool *frames;
  GstBuffer *frame, *outbuf;

  if (gst_buffer_n_memory (inbuf) != 1 ||
      (meta && gst_cuda_sync_meta_get_release (meta, NULL)))
    return NULL;
  frames = gst_cuda_vk_base_transform_get_pool (GST_CUDA_VK_BASE_TRANSFORM
      (self));
  if (!frames)
    return NULL;
  frame = gst_cuda_vk_upstream_pool_get_frame (gst_buffer_peek_memory (inbuf,
          0), frames);
  gst_object_unref (frames);
  if (!frame)
    return NULL;
  outbuf = gst_cuda_vk_frame_share (frame);
  gst_buffer_unref (frame);
  return outbuf;
}

static GstFlowReturn
gst_cuda_to_vulkan_prepare_output_buffer (GstBaseTransform * trans,
    GstBuffer * inbuf, GstBuffer ** outbuf)
{
  GstCudaToVulkan *self = GST_CUDA_TO_VULKAN (trans);

  self->written_in_place = FALSE;
  *outbuf = in_place_output (self, inbuf);
  if (*outbuf) {
    self->written_in_place = TRUE;
    gst_buffer_copy_into (*outbuf, inbuf, GST_BUFFER_COPY_FLAGS |
        GST_BUFFER_COPY_TIMESTAMPS, 0, -1);
    return GST_FLOW_OK;
  }
  return GST_BASE_TRANSFORM_CLASS (parent_class)->prepare_output_buffer
      (trans, inbuf, outbuf);
}

/* The frame goes to Vulkan through the interop (its take-over) */
static GstFlowReturn
gst_cuda_to_vulkan_transform (GstBaseTransform * trans, GstBuffer * inbuf,
    GstBuffer * outbuf)
{
  GstCudaToVulkan *self = GST_CUDA_TO_VULKAN (trans);
  GstCudaVkInterop *interop = INTEROP (self);
  const GstVideoInfo *info = IN_INFO (self);
  GError *err = NULL;

  if (!check_input (self, gst_cuda_vk_interop_get_context (interop), info,
          inbuf))
    return GST_FLOW_ERROR;
  gst_cuda_sync_base_transform_count (GST_CUDA_SYNC_BASE_TRANSFORM (self),
      GST_CUDA_VK_COUNTER_BUFFERS, 1);

  if (!gst_cuda_vk_interop_take_over (interop, inbuf, info, outbuf,
          gst_cuda_vk_frame_get (outbuf), self->out_kind,
          self->written_in_place, &err)) {
    GST_CUDA_SYNC_ELEMENT_ERROR_FROM (self, err);
    return GST_FLOW_ERROR;
  }
  return GST_FLOW_OK;
}

static void
gst_cuda_to_vulkan_class_init (GstCudaToVulkanClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstBaseTransformClass *trans_class = GST_BASE_TRANSFORM_CLASS (klass);
  GstCudaVkBaseTransformClass *base_class =
      GST_CUDA_VK_BASE_TRANSFORM_CLASS (klass);
  GstCaps *caps;

  gobject_class->set_property = gst_cuda_to_vulkan_set_property;
  gobject_class->get_property = gst_cuda_to_vulkan_get_property;

  /**
   * GstCudaToVulkan:in-place:
   *
   * On GStreamer 1.24 and newer, propose upstream a CUDA pool whose
   * memory is the output frames' own Vulkan memory: upstream CUDA elements
   * that use it (cudaupload, cudaconvertscale, nvh264dec and the other
   * NVDEC decoders) write the frames in place, and the element copies
   * nothing (the `in-place` counter of `stats`): one-plane formats, and
   * NV12 and I420 images with #GstCudaToVulkan:one-allocation or
   * #GstCudaToVulkan:multi-planar. Frames from elsewhere are copied as
   * always.
   */
  g_object_class_install_property (gobject_class, PROP_IN_PLACE,
      g_param_spec_boolean ("in-place", "In place",
          "Propose upstream a pool of the output's frames, so that upstream "
          "writes them in place (GStreamer 1.24+); otherwise every frame is "
          "copied", DEFAULT_IN_PLACE,
          G_PARAM_READWRITE | GST_PARAM_MUTABLE_READY |
          G_PARAM_STATIC_STRINGS));
  /**
   * GstCudaToVulkan:multi-planar:
   *
   * On GStreamer 1.24 and newer, output each NV12 or I420 frame of
   * `memory:VulkanImage` as one linear multi-planar image
   * (`VK_FORMAT_G8_B8R8_2PLANE_420_UNORM`,
   * `VK_FORMAT_G8_B8_R8_3PLANE_420_UNORM`) in one allocation, as
   * vulkanh264dec outputs its frames, instead of one image per plane.
   * Upstream CUDA elements write those frames in place
   * (#GstCudaToVulkan:in-place) where their planes have one row pitch.
   * Downstream must read multi-planar images: vulkandownload and
   * vulkantocuda do, and so can applications; from 1.24 to upstream main
   * (1.29), vulkancolorconvert and the other elements that sample their
   * input (one view per memory) do not. Without the property, or where the
   * Vulkan device makes no such images, or on 1.22, frames have one image
   * per plane (see #GstCudaToVulkan:one-allocation).
   */
  g_object_class_install_property (gobject_class, PROP_MULTI_PLANAR,
      g_param_spec_boolean ("multi-planar", "Multi-planar",
          "Output NV12 and I420 frames as one multi-planar image each "
          "(GStreamer 1.24+) instead of one image per plane; downstream must "
          "read multi-planar images", DEFAULT_MULTI_PLANAR,
          G_PARAM_READWRITE | GST_PARAM_MUTABLE_READY |
          G_PARAM_STATIC_STRINGS));
  /**
   * GstCudaToVulkan:one-allocation:
   *
   * On GStreamer 1.24 and newer, with #GstCudaToVulkan:in-place, bind the
   * images of an NV12 or I420 frame's planes (one image per plane, which
   * vulkancolorconvert and the other elements that sample their input
   * read) to one exportable allocation that CUDA imports once, so that
   * upstream CUDA elements write those frames in place too. Where the
   * Vulkan device does not bind them so, and with the NVIDIA Vulkan driver,
   * which read such frames wrong or stalled on them (a warning says so,
   * docs/known-issues.md), each plane has an allocation of its own and
   * frames are copied. Off by default.
   */
  g_object_class_install_property (gobject_class, PROP_ONE_ALLOCATION,
      g_param_spec_boolean ("one-allocation", "One allocation",
          "Bind the planes' images of an NV12 or I420 frame to one "
          "allocation, so that upstream writes them in place (GStreamer "
          "1.24+, with in-place)", DEFAULT_ONE_ALLOCATION,
          G_PARAM_READWRITE | GST_PARAM_MUTABLE_READY |
          G_PARAM_STATIC_STRINGS));
  /**
   * GstCudaToVulkan:stats:
   *
   * The element's counters since it was created, one guint64 field each,
   * and `semaphore-type`: the property's description lists them and what
   * each counts. Notified when EOS leaves the element, so that
   * `gst-launch-1.0 -v` prints the final counters.
   */
  gst_cuda_sync_base_transform_class_install_stats (gobject_class,
      stats_fields);

  gst_element_class_set_static_metadata (element_class,
      "CUDA to Vulkan", "Filter/Video/Hardware",
      "Copies CUDA frames into shareable Vulkan images, synchronised on the "
      "GPU with an external semaphore", "gst-cudasync developers");
  gst_element_class_add_static_pad_template (element_class, &sink_template);
  caps = gst_cuda_vk_memory_kinds_template_caps ();
  gst_element_class_add_pad_template (element_class,
      gst_pad_template_new ("src", GST_PAD_SRC, GST_PAD_ALWAYS, caps));
  gst_caps_unref (caps);

  trans_class->propose_allocation =
      GST_DEBUG_FUNCPTR (gst_cuda_to_vulkan_propose_allocation);
  trans_class->decide_allocation =
      GST_DEBUG_FUNCPTR (gst_cuda_to_vulkan_decide_allocation);
  trans_class->transform = GST_DEBUG_FUNCPTR (gst_cuda_to_vulkan_transform);
  trans_class->prepare_output_buffer =
      GST_DEBUG_FUNCPTR (gst_cuda_to_vulkan_prepare_output_buffer);

  base_class->to_vulkan = TRUE;
  base_class->set_info = GST_DEBUG_FUNCPTR (gst_cuda_to_vulkan_set_info);

  GST_DEBUG_CATEGORY_INIT (gst_cuda_to_vulkan_debug, "cudatovulkan", 0,
      "cudatovulkan");
}

static void
gst_cuda_to_vulkan_init (GstCudaToVulkan * self)
{
  self->in_place = DEFAULT_IN_PLACE;
  self->multi_planar = DEFAULT_MULTI_PLANAR;
  self->one_allocation = DEFAULT_ONE_ALLOCATION;
}

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
#include <gst/cuda/gstcudamemory.h>
#include <gst/cuda/gstcudabufferpool.h>
#include <gst/video/video.h>

GST_DEBUG_CATEGORY_STATIC (gst_cuda_to_vulkan_debug);

#define BRIDGE(self) gst_cuda_vk_base_transform_get_bridge \
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
  gboolean in_place;            /* property (object lock) */
  /* streaming thread: an upstream pool was proposed; the buffer being
   * transformed was written in place (prepare_output_buffer()) */
  gboolean proposed;
  gboolean written_in_place;

  /* inputs kept until the copy out of them ran (hold_input()): this
   * element's own releaser gives them back, in order */
  GstCudaSyncReleaser *releaser;
  GAsyncQueue *free_events;     /* GstCudaSyncEvent, for reuse */
  /* inputs whose copy could not be known complete (releaser thread only,
   * then stop) */
  GPtrArray *unreleased;
};

typedef struct
{
  GstCudaToVulkan *self;
  GstCudaSyncEvent *event;
  GstBuffer *buf;
} HeldInput;

static void releaser_stop (GstCudaToVulkan * self);

/* after the base class's (gstcudavkbridge.h) */
enum
{
  PROP_IN_PLACE = 100,
};
#define DEFAULT_IN_PLACE TRUE

static GstStaticPadTemplate sink_template = GST_STATIC_PAD_TEMPLATE ("sink",
    GST_PAD_SINK, GST_PAD_ALWAYS,
    GST_STATIC_CAPS (GST_VIDEO_CAPS_MAKE_WITH_FEATURES
        (GST_CAPS_FEATURE_MEMORY_CUDA_MEMORY, GST_CUDA_VK_FORMATS)));

#define gst_cuda_to_vulkan_parent_class parent_class
G_DEFINE_TYPE (GstCudaToVulkan, gst_cuda_to_vulkan,
    GST_TYPE_CUDA_VK_BASE_TRANSFORM);
GST_ELEMENT_REGISTER_DEFINE (cudatovulkan, "cudatovulkan", GST_RANK_NONE,
    GST_TYPE_CUDA_TO_VULKAN);

static void
gst_cuda_to_vulkan_finalize (GObject * object)
{
  GstCudaToVulkan *self = GST_CUDA_TO_VULKAN (object);

  releaser_stop (self);
  g_ptr_array_unref (self->unreleased);
  G_OBJECT_CLASS (parent_class)->finalize (object);
}

static void
gst_cuda_to_vulkan_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  GstCudaToVulkan *self = GST_CUDA_TO_VULKAN (object);

  if (prop_id == PROP_IN_PLACE) {
    GST_OBJECT_LOCK (self);
    self->in_place = g_value_get_boolean (value);
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

  if (prop_id == PROP_IN_PLACE) {
    GST_OBJECT_LOCK (self);
    g_value_set_boolean (value, self->in_place);
    GST_OBJECT_UNLOCK (self);
    return;
  }
  G_OBJECT_CLASS (parent_class)->get_property (object, prop_id, value, pspec);
}

static gboolean
gst_cuda_to_vulkan_stop (GstBaseTransform * trans)
{
  GstCudaToVulkan *self = GST_CUDA_TO_VULKAN (trans);
  gboolean ret;

  /* first the held inputs: their events come after every copy made on an
   * input's own stream (work_stream()), which the base class does not
   * know; then the base class lets the element's stream finish and drops
   * the frames */
  g_clear_pointer (&self->releaser, gst_cuda_sync_releaser_free);
  ret = GST_BASE_TRANSFORM_CLASS (parent_class)->stop (trans);
  releaser_stop (self);
  return ret;
}

/* The frame pool could not allocate a frame (on the streaming thread, or
 * upstream's through the pool proposed to it) */
static void
frame_pool_error (GError * error, gpointer user_data)
{
  GST_CUDA_SYNC_ELEMENT_ERROR_FROM (user_data, error);
}

static gboolean
gst_cuda_to_vulkan_set_info (GstCudaVkBaseTransform * base, GstCaps * incaps,
    GstCaps * outcaps)
{
  GstCudaToVulkan *self = GST_CUDA_TO_VULKAN (base);
  GstBufferPool *pool;

  self->out_kind = gst_cuda_vk_memory_kind_from_caps (outcaps);
  g_return_val_if_fail (self->out_kind, FALSE);
  /* frames of the old caps in flight downstream keep the old pool alive
   * and are freed when they come back */
  pool = gst_cuda_vk_frame_pool_new (BRIDGE (self)->interop, OUT_INFO (self),
      self->out_kind, frame_pool_error, self);
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
      gst_cuda_vk_interop_get_cuda_stream (BRIDGE (self)->interop));
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

/* One-plane formats, property in-place: a pool whose memory is the output
 * frames' own, so that upstream writes in place (gstcudavkupstreampool.c);
 * NULL when that does not apply */
static GstBufferPool *
in_place_pool (GstCudaToVulkan * self, const GstVideoInfo * info)
{
  GstBufferPool *frames, *pool;
  gboolean enabled;

  GST_OBJECT_LOCK (self);
  enabled = self->in_place;
  GST_OBJECT_UNLOCK (self);
  if (!enabled || !gst_cuda_vk_upstream_pool_supported (info))
    return NULL;
  frames = gst_cuda_vk_base_transform_get_pool (GST_CUDA_VK_BASE_TRANSFORM
      (self));
  if (!frames)
    return NULL;
  pool = gst_cuda_vk_upstream_pool_new (BRIDGE (self)->interop, frames);
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
  GstCudaVkBridge *b = BRIDGE (self);
  GstBufferPool *pool;
  GstVideoInfo info;
  GstCaps *caps;

  gst_query_parse_allocation (query, &caps, NULL);
  if (!caps || !b->interop || !gst_cuda_vk_interop_get_cuda_stream
      (b->interop) ||
      gst_query_get_n_allocation_pools (query) > 0 ||
      !gst_video_info_from_caps (&info, caps))
    return;

  pool = in_place_pool (self, &info);
  if (pool && offer_pool (self, query, pool, caps, &info)) {
    self->proposed = TRUE;
    GST_DEBUG_OBJECT (self, "proposed a pool of the output's frames");
    return;
  }
  if (!offer_pool (self, query, gst_cuda_buffer_pool_new (b->cuda), caps,
          &info))
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
  if (BRIDGE (self)->interop &&
      gst_cuda_vk_interop_get_offer_semaphore (BRIDGE (self)->interop))
    gst_query_add_cuda_sync_meta (query,
        GST_CUDA_SEMAPHORE_HANDLE_TYPE_FLAG_OPAQUE_FD,
        gst_cuda_vk_interop_get_offer_semaphore (BRIDGE (self)->interop));
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

static gboolean
check_input (GstCudaToVulkan * self, GstBuffer * inbuf, GstCudaMemory ** cmem)
{
  GstMemory *mem;

  if (gst_buffer_n_memory (inbuf) != 1) {
    GST_ELEMENT_ERROR (self, STREAM, FORMAT,
        ("Expected one CUDA memory per buffer, got %u",
            gst_buffer_n_memory (inbuf)), (NULL));
    return FALSE;
  }
  mem = gst_buffer_peek_memory (inbuf, 0);
  if (!gst_cuda_sync_element_check_memory (GST_ELEMENT (self), mem,
          BRIDGE (self)->cuda))
    return FALSE;
  *cmem = GST_CUDA_MEMORY_CAST (mem);
  if (GST_VIDEO_INFO_FORMAT (&(*cmem)->info) !=
      GST_VIDEO_INFO_FORMAT (IN_INFO (self)) ||
      GST_VIDEO_INFO_WIDTH (&(*cmem)->info) < GST_VIDEO_INFO_WIDTH
      (IN_INFO (self)) || GST_VIDEO_INFO_HEIGHT (&(*cmem)->info) <
      GST_VIDEO_INFO_HEIGHT (IN_INFO (self))) {
    GST_ELEMENT_ERROR (self, STREAM, FORMAT,
        ("CUDA memory layout (%s %dx%d) does not match the caps",
            gst_video_format_to_string (GST_VIDEO_INFO_FORMAT
                (&(*cmem)->info)), GST_VIDEO_INFO_WIDTH (&(*cmem)->info),
            GST_VIDEO_INFO_HEIGHT (&(*cmem)->info)), (NULL));
    return FALSE;
  }
  return TRUE;
}

/* 1.24+: the producer's writes into @mem are complete, or ordered before
 * everything that will touch the memory again: clears
 * GST_CUDA_MEMORY_TRANSFER_NEED_SYNC, as upstream's gst_cuda_buffer_copy()
 * does once it has ordered its reading after them. Otherwise the memory's
 * free synchronises its whole stream on the CPU (cuStreamSynchronize in
 * gst_cuda_allocator_free()), waiting for the work of later frames too:
 * seen on the H200 as a CPU stall a frame with frames written in place. */
static void
writes_done (GstMemory * mem)
{
  gst_cuda_vk_compat_memory_set_pending (mem, FALSE);
}

/* A GstCudaSyncReleaseFunc, on the element's releaser thread once the
 * copy out of the held input has run (the events are blocking-sync, so the
 * thread sleeps), in order. One releaser per element, so a pipeline whose
 * GPU work is slow or stuck never delays another's buffers. */
static void
release_input (gpointer data, const GError * error)
{
  HeldInput *h = data;
  GstCudaToVulkan *self = h->self;

  if (!error) {
    /* the producer's writes are complete (the copy after them is) */
    writes_done (gst_buffer_peek_memory (h->buf, 0));
    gst_buffer_unref (h->buf);
  } else {
    /* the copy out of it may still run: upstream must not reuse it.
     * Kept until stop(), which runs after the stream's work. */
    GST_ELEMENT_ERROR (self, RESOURCE, FAILED,
        ("Could not tell whether the GPU copy out of an input frame has "
            "completed"), ("%s", error->message));
    g_ptr_array_add (self->unreleased, h->buf);
  }
  g_async_queue_push (self->free_events, h->event);
  g_free (h);
}

/* Stops the releaser once every held input has been given back (the copies
 * complete: stop runs after the stream's work) and frees its events. */
static void
releaser_stop (GstCudaToVulkan * self)
{
  g_clear_pointer (&self->releaser, gst_cuda_sync_releaser_free);
  /* the stream was synchronised before (stop()), or failed for good */
  g_ptr_array_set_size (self->unreleased, 0);
  g_clear_pointer (&self->free_events, g_async_queue_unref);
}

/* Where a frame's CUDA work goes. On GStreamer 1.24+, the input memory's
 * own stream when it carries one and the input is then held until the copy
 * has run (no release point; the held input's event is what stop() waits
 * for): the producer's work is ordered before the copy with no event, and
 * a pipeline keeps one CUDA stream instead of two. That matters: the GPU
 * has CUDA_DEVICE_MAX_CONNECTIONS hardware queues (8 by default) for all
 * streams, and streams that share one are serialised, each semaphore wait
 * holding up the others (seen on the H200 with 8 pipelines: 4.0x one
 * pipeline's frames/s with two streams each, see docs/benchmarks.md).
 * Otherwise the element's own stream, ordered after the memory's pending
 * work by an event. */
static CUstream
work_stream (GstCudaToVulkan * self, GstCudaMemory * cmem, gboolean gpu,
    GstCudaSyncMeta * meta)
{
  CUstream mem_stream = gst_cuda_sync_memory_get_stream (GST_MEMORY_CAST
      (cmem));

  if (mem_stream && !(gpu && meta && gst_cuda_sync_meta_get_release (meta,
              NULL)))
    return mem_stream;
  return gst_cuda_vk_interop_get_stream (BRIDGE (self)->interop);
}

/* GPU path, copy out of @inbuf enqueued on @stream: keep @inbuf until
 * that copy has completed (see the class documentation). */
static gboolean
hold_input (GstCudaToVulkan * self, GstBuffer * inbuf, GstCudaSyncMeta * meta,
    CUstream stream, GError ** error)
{
  GstCudaVkBridge *b = BRIDGE (self);
  GstCudaSyncEvent *ev;
  HeldInput *h;

  if (meta && gst_cuda_sync_meta_get_release (meta, NULL))
    return TRUE;
  if (!self->releaser) {
    self->free_events = g_async_queue_new_full ((GDestroyNotify)
        gst_cuda_sync_event_unref);
    self->releaser = gst_cuda_sync_releaser_new ("cudatovulkan-release");
  }
  ev = g_async_queue_try_pop (self->free_events);
  /* blocking-sync: the releaser sleeps instead of spinning */
  if (!ev && !(ev = gst_cuda_sync_event_new (b->cuda, TRUE, error)))
    return FALSE;
  if (!gst_cuda_sync_event_record (ev, stream, error)) {
    gst_cuda_sync_event_unref (ev);
    return FALSE;
  }
  h = g_new (HeldInput, 1);
  h->self = self;
  h->event = ev;
  h->buf = gst_buffer_ref (inbuf);
  gst_cuda_sync_releaser_push (self->releaser, ev, release_input, h);
  return TRUE;
}

/* The incoming buffer's acquire points (an upstream cudasemsignal's),
 * waited for on @stream, on the GPU */
static gboolean
wait_acquire_points (GstCudaToVulkan * self, GstCudaSyncMeta * meta,
    CUstream stream, GError ** error)
{
  GstCudaVkBridge *b = BRIDGE (self);
  guint n_waits = 0;

  if (!gst_cuda_sync_meta_wait_gpu_checked (meta, b->cuda, stream,
          GST_CUDA_SYNC_FLAG_NONE, &n_waits, error))
    return FALSE;
  gst_cuda_vk_bridge_count (b, GST_CUDA_VK_COUNTER_WAITS, n_waits);
  return TRUE;
}

/* The CUDA half: copies @cmem into @f's planes on @stream, after the
 * producer's pending work */
static gboolean
copy_into_frame (GstCudaToVulkan * self, GstCudaMemory * cmem,
    GstCudaVkFrame * f, CUstream stream, GError ** error)
{
  GstCudaVkBridge *b = BRIDGE (self);
  GstVideoInfo *info = IN_INFO (self);
  gboolean ok = TRUE;
  GstMapInfo map;
  guint i;

  /* 1.24+: the producer's work on the memory's own stream may be pending */
  if (!gst_cuda_sync_memory_wait_pending (GST_MEMORY_CAST (cmem), stream,
          error))
    return FALSE;
  if (!gst_memory_map (GST_MEMORY_CAST (cmem), &map,
          GST_MAP_READ | GST_MAP_CUDA)) {
    g_set_error (error, GST_CUDA_SYNC_ERROR, GST_CUDA_SYNC_ERROR_FAILED,
        "Could not map the input CUDA memory");
    return FALSE;
  }
  if (!gst_cuda_context_push (b->cuda)) {
    gst_memory_unmap (GST_MEMORY_CAST (cmem), &map);
    g_set_error (error, GST_CUDA_SYNC_ERROR, GST_CUDA_SYNC_ERROR_DRIVER,
        "Could not make the CUDA context current");
    return FALSE;
  }
  for (i = 0; i < f->n_planes && ok; i++) {
    GstCudaVkPlane *p = &f->planes[i]->plane;
    gint comp[GST_VIDEO_MAX_COMPONENTS];
    gsize wbytes, h;

    gst_video_format_info_component (info->finfo, i, comp);
    wbytes = (gsize) GST_VIDEO_INFO_COMP_WIDTH (info, comp[0]) *
        GST_VIDEO_INFO_COMP_PSTRIDE (info, comp[0]);
    h = GST_VIDEO_INFO_COMP_HEIGHT (info, comp[0]);
    ok = gst_cuda_vk_copy_2d (stream, p->cuda_ptr, p->pitch,
        (CUdeviceptr) map.data + GST_VIDEO_INFO_PLANE_OFFSET (&cmem->info, i),
        GST_VIDEO_INFO_PLANE_STRIDE (&cmem->info, i), wbytes, h, error);
  }
  gst_cuda_context_pop (NULL);
  gst_memory_unmap (GST_MEMORY_CAST (cmem), &map);
  if (ok) {
    gst_cuda_vk_bridge_count (b, GST_CUDA_VK_COUNTER_COPIES, 1);
    gst_cuda_vk_bridge_count (b, GST_CUDA_VK_COUNTER_GPU_COPIES, 1);
  }
  return ok;
}

/* The Vulkan half: a submission that waits for CUDA's signal of @value on
 * @sem (GPU path; NULL: the fallback) and takes @outbuf's memories over
 * from CUDA */
static gboolean
submit_take_over (GstCudaToVulkan * self, GstBuffer * outbuf,
    GstCudaVkFrame * f, GstCudaVkSemaphore * sem, guint64 value,
    GError ** error)
{
  GstCudaVkBridge *b = BRIDGE (self);
  GstCudaVkBarriers barriers = { 0, };
  GstCudaVkSubmitSync sync = { 0, };
  GstVulkanCommandBuffer *cmd;
  GstVulkanFence *fence;
  guint i;

  cmd = gst_cuda_vk_interop_begin (b->interop, error);
  if (!cmd)
    return FALSE;
  for (i = 0; i < f->n_planes; i++)
    self->out_kind->take_over (gst_buffer_peek_memory (outbuf, i), b->queue,
        &barriers, &sync);
  /* source stage = the semaphore wait's stage (ALL_COMMANDS): that makes
   * the wait, this barrier and every later command on the queue one
   * dependency chain, so downstream's own submissions read the frame only
   * after CUDA's copy. With TOP_OF_PIPE here the chain is broken: seen on
   * the H200 as a vulkandownload branch reading a frame early, with several
   * branches submitting to one queue. */
  gst_cuda_vk_barriers_record (&barriers, cmd,
      VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT);
  if (sem)
    gst_cuda_vk_sync_add_wait (&sync, sem->vk_sem, value);
  fence = gst_cuda_vk_interop_submit (b->interop, cmd, &sync,
      GST_MINI_OBJECT_CAST (outbuf), error);
  if (!fence)
    return FALSE;
  if (sem)
    gst_cuda_vk_semaphore_wait_submitted (sem, fence);
  gst_vulkan_fence_unref (fence);
  f->used = TRUE;
  return TRUE;
}

/* The CUDA side of a frame: acquire points, the copy (unless upstream
 * wrote the frame in place), then either a signal of @sem (GPU path: the
 * element's timeline, or the frame's binary semaphore; *@value is the
 * value signalled; a copied input held until the copy has run) or, when
 * @sem is NULL, a CPU wait for the copy or upstream's writing (fallback) */
static gboolean
cuda_side (GstCudaToVulkan * self, GstBuffer * inbuf, GstCudaMemory * cmem,
    GstCudaVkFrame * f, GstCudaVkSemaphore * sem, guint64 * value,
    GError ** error)
{
  GstCudaVkBridge *b = BRIDGE (self);
  GstCudaSyncMeta *meta = gst_buffer_get_cuda_sync_meta (inbuf);
  CUstream stream = work_stream (self, cmem, sem != NULL, meta);
  gboolean in_place = self->written_in_place;

  if (meta && !wait_acquire_points (self, meta, stream, error))
    return FALSE;
  if (in_place) {
    /* the output frame is the input's memory: the frame pool keeps it
     * from upstream until Vulkan is done with it, nothing to hold */
    if (!gst_cuda_sync_memory_wait_pending (GST_MEMORY_CAST (cmem), stream,
            error))
      return FALSE;
    gst_cuda_vk_bridge_count (b, GST_CUDA_VK_COUNTER_IN_PLACE, 1);
  } else if (!copy_into_frame (self, cmem, f, stream, error)) {
    return FALSE;
  }
  if (!sem) {
    /* Vulkan cannot wait on the GPU: make the copy complete first (a host
     * wait through Vulkan on a CUDA-signalled semaphore would be slower) */
    if (!gst_cuda_vk_interop_cpu_sync (b->interop, stream, error))
      return FALSE;
    if (in_place)
      writes_done (GST_MEMORY_CAST (cmem));
    return TRUE;
  }
  /* before the signal: a failure here leaves the frame's semaphore
   * unsignalled, so the frame stays reusable */
  if (!in_place && !hold_input (self, inbuf, meta, stream, error))
    return FALSE;
  /* the timeline's next value; or the frame's own binary semaphore, which
   * the pool handed out only once the Vulkan wait on its previous signal
   * had completed */
  if (!gst_cuda_vk_semaphore_signal (sem, stream, value, error))
    return FALSE;
  gst_cuda_vk_bridge_count (b, GST_CUDA_VK_COUNTER_SIGNALS, 1);
  /* in place: the signal is on the memory's own stream, after upstream's
   * writes, and the frame pool hands the memory out again only after the
   * Vulkan work that waited for it; nobody else reads it (a tee passes no
   * pool on) */
  if (in_place)
    writes_done (GST_MEMORY_CAST (cmem));
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

static GstFlowReturn
gst_cuda_to_vulkan_transform (GstBaseTransform * trans, GstBuffer * inbuf,
    GstBuffer * outbuf)
{
  GstCudaToVulkan *self = GST_CUDA_TO_VULKAN (trans);
  GstCudaVkBridge *b = BRIDGE (self);
  GstCudaVkFrame *f = gst_cuda_vk_frame_get (outbuf);
  GstCudaVkSemaphore *sem = NULL;
  GstCudaMemory *cmem;
  GError *err = NULL;
  guint64 value = 0;

  if (!check_input (self, inbuf, &cmem))
    return GST_FLOW_ERROR;
  gst_cuda_vk_bridge_count (b, GST_CUDA_VK_COUNTER_BUFFERS, 1);

  sem = gst_cuda_vk_interop_semaphore_for_slot (b->interop, &f->sem);

  if (!cuda_side (self, inbuf, cmem, f, sem, &value, &err)) {
    GST_CUDA_SYNC_ELEMENT_ERROR (self, err, "Could not copy the CUDA frame "
        "into shareable Vulkan memory");
    return GST_FLOW_ERROR;
  }
  if (!submit_take_over (self, outbuf, f, sem, value, &err)) {
    GST_ELEMENT_ERROR (self, RESOURCE, FAILED,
        ("Could not hand the frame over to Vulkan"), ("%s",
            err ? err->message : "unknown error"));
    g_clear_error (&err);
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

  gobject_class->finalize = gst_cuda_to_vulkan_finalize;
  gobject_class->set_property = gst_cuda_to_vulkan_set_property;
  gobject_class->get_property = gst_cuda_to_vulkan_get_property;

  /**
   * GstCudaToVulkan:in-place:
   *
   * On GStreamer 1.24 and newer, for one-plane formats (RGBA, BGRA, RGBx,
   * BGRx), propose upstream a CUDA pool whose memory is the output frames'
   * own Vulkan memory: upstream CUDA elements that use it (cudaupload,
   * cudaconvertscale) write the frames in place, and the element copies
   * nothing (the `in-place` counter of `stats`). Frames from elsewhere are
   * copied as always. Two-plane formats (NV12, I420) are always copied.
   */
  g_object_class_install_property (gobject_class, PROP_IN_PLACE,
      g_param_spec_boolean ("in-place", "In place",
          "Propose upstream a pool of the output's frames, so that upstream "
          "writes them in place (GStreamer 1.24+, one-plane formats); "
          "otherwise every frame is copied", DEFAULT_IN_PLACE,
          G_PARAM_READWRITE | GST_PARAM_MUTABLE_READY |
          G_PARAM_STATIC_STRINGS));

  gst_element_class_set_static_metadata (element_class,
      "CUDA to Vulkan", "Filter/Video/Hardware",
      "Copies CUDA frames into shareable Vulkan images, synchronised on the "
      "GPU with an external semaphore", "gst-cudasync developers");
  gst_element_class_add_static_pad_template (element_class, &sink_template);
  caps = gst_cuda_vk_memory_kinds_template_caps ();
  gst_element_class_add_pad_template (element_class,
      gst_pad_template_new ("src", GST_PAD_SRC, GST_PAD_ALWAYS, caps));
  gst_caps_unref (caps);

  trans_class->stop = GST_DEBUG_FUNCPTR (gst_cuda_to_vulkan_stop);
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
  self->unreleased = g_ptr_array_new_with_free_func ((GDestroyNotify)
      gst_buffer_unref);
}

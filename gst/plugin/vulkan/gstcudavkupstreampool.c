/* gst-cudasync
 * Copyright (C) 2026 gst-cudasync developers
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The pool cudatovulkan proposes upstream on GStreamer 1.24+, so that
 * upstream CUDA elements (cudaupload, cudaconvertscale, the NVDEC decoders)
 * write their frames straight into the Vulkan memory cudatovulkan outputs:
 * no copy on the CUDA side.
 *
 * A GstCudaBufferPool subclass, because upstream's CUDA elements drop any
 * proposed pool that is not one (and any of another CUDA context). Each
 * buffer it hands out is one frame of cudatovulkan's own output pool (a
 * "frame", gst_cuda_vk_frame_pool_new()), acquired from that pool, with its
 * memory wrapped in one GstCudaMemory (gst_cuda_allocator_alloc_wrapped(),
 * 1.24+) at the frame's layout. The memory keeps the frame out of the frame
 * pool until it is freed; cudatovulkan's output for that input keeps it out
 * until downstream is done with it (gst_cuda_vk_frame_share()). The frame
 * goes back only when both are gone, and is handed out again only once the
 * Vulkan work on it has completed (the frame pool's fences): upstream
 * never writes into a frame that Vulkan may still read.
 *
 * Only frames that are one allocation imported into CUDA once: one-plane
 * formats, frames of one multi-planar image (NV12, I420) whose planes have
 * one pitch, and frames of one image per plane all bound to one
 * allocation (the one_allocation memory kind, NV12 and I420), at any
 * pitches. A GstCudaMemory is one base pointer with plane offsets, while
 * one image per plane is otherwise one dedicated Vulkan allocation per
 * plane (see gstcudavkmemory.c), imported into CUDA at an address of its
 * own. Plane pitches: upstream's writers (cudaupload, cudaconvertscale,
 * the NVDEC decoders) write each plane at the video meta's stride of its
 * own, but upstream's CPU map of wrapped memory (a writer's fallback)
 * copies rows of plane 0's width at plane 0's pitch only. The
 * multi-planar form keeps to one pitch, as it always did; the default
 * form takes any, because the images' pitches are the driver's (Mesa
 * lavapipe gives I420's chroma planes a narrower one) and I420 would
 * otherwise be copied.
 *
 * When the frame pool is no longer active (cudatovulkan renegotiated or
 * stopped while upstream still uses this pool) the pool hands out ordinary
 * CUDA memory, which cudatovulkan copies as it does any other input.
 *
 * The config's max-buffers is honoured: acquire waits while that many of
 * its buffers are out (or returns GST_FLOW_EOS with DONTWAIT).
 *
 * Locks: the bound's lock (gstcudavkpoolbound.h) guards the count of
 * buffers out and the flushing flag; it is never held while acquiring from
 * the frame pool, whose lock is taken inside its acquire.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstcudavkupstreampool.h"
#include "gstcudavkframepool.h"
#include "gstcudavkpoolbound.h"

gboolean
gst_cuda_vk_upstream_pool_supported (const GstVideoInfo * info,
    const GstCudaVkMemoryKind * kind)
{
  return gst_cuda_vk_memory_kind_n_mems (kind, info) == 1 ||
      kind->one_allocation;
}

#include <gst/cuda/gstcudabufferpool.h>
#include <gst/cuda/gstcudamemory.h>
#include <gst/cuda/gstcudastream.h>

GST_DEBUG_CATEGORY_STATIC (gst_cuda_vk_upstream_pool_debug);
#define GST_CAT_DEFAULT gst_cuda_vk_upstream_pool_debug

/* Declared by hand: G_DECLARE_FINAL_TYPE needs an autoptr cleanup for the
 * parent type, which GstCudaBufferPool does not define (1.24 to 1.28) */
#define GST_TYPE_CUDA_VK_UPSTREAM_POOL (gst_cuda_vk_upstream_pool_get_type ())
#define GST_CUDA_VK_UPSTREAM_POOL(obj) (G_TYPE_CHECK_INSTANCE_CAST ((obj), \
    GST_TYPE_CUDA_VK_UPSTREAM_POOL, GstCudaVkUpstreamPool))
typedef struct _GstCudaVkUpstreamPool GstCudaVkUpstreamPool;
typedef struct
{
  GstCudaBufferPoolClass parent_class;
} GstCudaVkUpstreamPoolClass;
static GType gst_cuda_vk_upstream_pool_get_type (void);

struct _GstCudaVkUpstreamPool
{
  GstCudaBufferPool parent;

  GstBufferPool *frames;        /* cudatovulkan's output pool */
  GstCudaStream *own_stream;    /* the element's */
  GstCudaStream *stream;        /* the config's, else own_stream */
  GstVideoInfo info;            /* the frames' video info */
  GstVideoInfo winfo;           /* and their layout in the memory */

  GstCudaVkPoolBound bound;
};

G_DEFINE_TYPE (GstCudaVkUpstreamPool, gst_cuda_vk_upstream_pool,
    GST_TYPE_CUDA_BUFFER_POOL);

/* on a wrapped GstCudaMemory: the frame it is (transfer none: the memory's
 * destroy notify holds the reference) */
static GQuark frame_quark;

/* GstCudaBufferPool's own set_config() would allocate pitched CUDA memory
 * for the caps and set its size: this pool hands out the frames' memory
 * instead, so it checks the caps against the frames, sets their size and
 * chains up to GstBufferPool's. */
static gboolean
pool_set_config (GstBufferPool * bpool, GstStructure * config)
{
  GstCudaVkUpstreamPool *self = GST_CUDA_VK_UPSTREAM_POOL (bpool);
  GstBufferPoolClass *base_class = g_type_class_peek (GST_TYPE_BUFFER_POOL);
  GstCudaStream *stream;
  GstCaps *caps = NULL;
  guint size, min, max;
  GstVideoInfo info;

  if (!gst_buffer_pool_config_get_params (config, &caps, &size, &min, &max)
      || !caps || !gst_video_info_from_caps (&info, caps)) {
    GST_WARNING_OBJECT (self, "invalid config %" GST_PTR_FORMAT, config);
    return FALSE;
  }
  if (GST_VIDEO_INFO_FORMAT (&info) != GST_VIDEO_INFO_FORMAT (&self->info) ||
      GST_VIDEO_INFO_WIDTH (&info) != GST_VIDEO_INFO_WIDTH (&self->info) ||
      GST_VIDEO_INFO_HEIGHT (&info) != GST_VIDEO_INFO_HEIGHT (&self->info)) {
    GST_WARNING_OBJECT (self, "caps %" GST_PTR_FORMAT " are not the frames'",
        caps);
    return FALSE;
  }
  stream = gst_buffer_pool_config_get_cuda_stream (config);
  gst_clear_cuda_stream (&self->stream);
  self->stream = stream ? stream : gst_cuda_stream_ref (self->own_stream);
  gst_buffer_pool_config_set_params (config, caps,
      GST_VIDEO_INFO_SIZE (&self->winfo), min, max);
  gst_cuda_vk_pool_bound_set_max (&self->bound, max);
  return base_class->set_config (bpool, config);
}

/* the frames come from the frame pool: nothing to allocate in advance
 * (GstCudaBufferPool's start() would activate an allocator this pool does
 * not have) */
static gboolean
pool_start (GstBufferPool * bpool)
{
  return TRUE;
}

/* Whether @f is laid out as the pool's memory says (frame_layout()) */
static gboolean
frame_matches (GstCudaVkUpstreamPool * self, const GstCudaVkFrame * f)
{
  guint i;

  /* (a frame whose planes could not share one allocation has one per
   * plane) */
  if (!gst_cuda_vk_frame_one_allocation (f))
    return FALSE;
  for (i = 0; i < GST_VIDEO_INFO_N_PLANES (&self->winfo); i++) {
    if (f->plane_ptr[i] - f->plane_ptr[0] !=
        GST_VIDEO_INFO_PLANE_OFFSET (&self->winfo, i) ||
        f->plane_pitch[i] != (gsize) GST_VIDEO_INFO_PLANE_STRIDE (&self->winfo,
            i))
      return FALSE;
  }
  return TRUE;
}

/* @frame (transfer full) wrapped in a GstCudaMemory at its layout */
static GstMemory *
wrap_frame (GstCudaVkUpstreamPool * self, GstBuffer * frame)
{
  GstCudaVkFrame *f = gst_cuda_vk_frame_get (frame);
  GstMemory *mem;

  mem = gst_cuda_allocator_alloc_wrapped (NULL,
      GST_CUDA_BUFFER_POOL_CAST (self)->context, self->stream, &self->winfo,
      f->plane_ptr[0], frame, (GDestroyNotify) gst_buffer_unref);
  if (!mem) {
    GST_ERROR_OBJECT (self, "gst_cuda_allocator_alloc_wrapped() failed");
    gst_buffer_unref (frame);
    return NULL;
  }
  gst_mini_object_set_qdata (GST_MINI_OBJECT_CAST (mem), frame_quark, frame,
      NULL);
  return mem;
}

static GstFlowReturn
pool_acquire_buffer (GstBufferPool * bpool, GstBuffer ** buffer,
    GstBufferPoolAcquireParams * params)
{
  GstCudaVkUpstreamPool *self = GST_CUDA_VK_UPSTREAM_POOL (bpool);
  GstCudaMemory *cmem;
  GstBuffer *frame = NULL;
  GstMemory *mem;
  GstFlowReturn ret;

  ret = gst_cuda_vk_pool_bound_take (&self->bound, params);
  if (ret != GST_FLOW_OK)
    return ret;
  /* waits while all the frames are out (the frame pool's bound) */
  ret = gst_buffer_pool_acquire_buffer (self->frames, &frame, params);
  if (ret == GST_FLOW_OK && !frame_matches (self, gst_cuda_vk_frame_get
          (frame))) {
    /* its planes could not share one allocation: copied into, as any
     * input from elsewhere */
    GST_DEBUG_OBJECT (self, "frame of one allocation per plane: plain CUDA "
        "memory");
    gst_buffer_unref (frame);
    mem = gst_cuda_allocator_alloc (NULL,
        GST_CUDA_BUFFER_POOL_CAST (self)->context, self->stream, &self->info);
  } else if (ret == GST_FLOW_OK) {
    mem = wrap_frame (self, frame);
  } else if (ret == GST_FLOW_FLUSHING
      && gst_cuda_vk_pool_bound_flushing (&self->bound)) {
    /* upstream flushes this pool (a flushing seek, a stop) */
    gst_cuda_vk_pool_bound_give (&self->bound);
    return ret;
  } else if (ret == GST_FLOW_FLUSHING) {
    /* the element flushes, or let go of, the frame pool (a seek or a stop
     * that reached it first, renegotiation) while upstream still uses
     * this pool: ordinary memory, which it copies or drops. Upstream
     * elements that allocate with gst_video_decoder_allocate_output_buffer()
     * (nvh264dec) take any failure there for an error. */
    GST_DEBUG_OBJECT (self, "frame pool inactive or flushing: plain CUDA "
        "memory");
    mem = gst_cuda_allocator_alloc (NULL,
        GST_CUDA_BUFFER_POOL_CAST (self)->context, self->stream, &self->info);
  } else {
    gst_cuda_vk_pool_bound_give (&self->bound);
    return ret;
  }
  if (!mem) {
    gst_cuda_vk_pool_bound_give (&self->bound);
    return GST_FLOW_ERROR;
  }

  cmem = GST_CUDA_MEMORY_CAST (mem);
  *buffer = gst_buffer_new ();
  gst_buffer_append_memory (*buffer, mem);
  gst_buffer_add_video_meta_full (*buffer, GST_VIDEO_FRAME_FLAG_NONE,
      GST_VIDEO_INFO_FORMAT (&cmem->info), GST_VIDEO_INFO_WIDTH (&cmem->info),
      GST_VIDEO_INFO_HEIGHT (&cmem->info), GST_VIDEO_INFO_N_PLANES
      (&cmem->info), cmem->info.offset, cmem->info.stride);
  return GST_FLOW_OK;
}

/* Buffers are not kept: freeing one frees its memory, which gives its
 * frame back to the frame pool (unless cudatovulkan's output still holds
 * it) */
static void
pool_release_buffer (GstBufferPool * bpool, GstBuffer * buffer)
{
  gst_buffer_unref (buffer);
  gst_cuda_vk_pool_bound_give (&GST_CUDA_VK_UPSTREAM_POOL (bpool)->bound);
}

static void
pool_flush_start (GstBufferPool * bpool)
{
  GstCudaVkUpstreamPool *self = GST_CUDA_VK_UPSTREAM_POOL (bpool);

  gst_cuda_vk_pool_bound_set_flushing (&self->bound, TRUE);
}

static void
pool_flush_stop (GstBufferPool * bpool)
{
  GstCudaVkUpstreamPool *self = GST_CUDA_VK_UPSTREAM_POOL (bpool);

  gst_cuda_vk_pool_bound_set_flushing (&self->bound, FALSE);
}

static void
pool_finalize (GObject * object)
{
  GstCudaVkUpstreamPool *self = GST_CUDA_VK_UPSTREAM_POOL (object);

  gst_clear_object (&self->frames);
  gst_clear_cuda_stream (&self->stream);
  gst_clear_cuda_stream (&self->own_stream);
  gst_cuda_vk_pool_bound_clear (&self->bound);
  G_OBJECT_CLASS (gst_cuda_vk_upstream_pool_parent_class)->finalize (object);
}

static void
gst_cuda_vk_upstream_pool_class_init (GstCudaVkUpstreamPoolClass * klass)
{
  GstBufferPoolClass *pool_class = GST_BUFFER_POOL_CLASS (klass);

  G_OBJECT_CLASS (klass)->finalize = pool_finalize;
  pool_class->set_config = pool_set_config;
  pool_class->start = pool_start;
  pool_class->acquire_buffer = pool_acquire_buffer;
  pool_class->release_buffer = pool_release_buffer;
  pool_class->flush_start = pool_flush_start;
  pool_class->flush_stop = pool_flush_stop;
  frame_quark = g_quark_from_static_string ("GstCudaVkUpstreamFrame");
  GST_DEBUG_CATEGORY_INIT (gst_cuda_vk_upstream_pool_debug,
      "cudavkupstreampool", 0, "the pool cudatovulkan proposes upstream");
}

static void
gst_cuda_vk_upstream_pool_init (GstCudaVkUpstreamPool * self)
{
  gst_cuda_vk_pool_bound_init (&self->bound);
}

/* The layout upstream writes at, relative to plane 0's start: the
 * frame's; FALSE when a GstCudaMemory cannot describe it */
static gboolean
frame_layout (GstCudaVkUpstreamPool * self)
{
  GstCudaVkFrame *f;
  GstBuffer *frame = NULL;
  guint i, n = GST_VIDEO_INFO_N_PLANES (&self->info);
  gboolean ok;

  if (gst_buffer_pool_acquire_buffer (self->frames, &frame, NULL) !=
      GST_FLOW_OK)
    return FALSE;
  f = gst_cuda_vk_frame_get (frame);
  ok = gst_cuda_vk_frame_cuda_layout (f, &self->info, &self->winfo);
  if (!ok)
    GST_INFO_OBJECT (self, "frames of %u allocations, or a plane before "
        "plane 0: not one GstCudaMemory", f->n_mems);
  for (i = 0; ok && i < n; i++) {
    /* one multi-planar image: one pitch (see the top of the file) */
    if (f->n_mems == 1 && f->plane_pitch[i] != f->plane_pitch[0]) {
      GST_INFO_OBJECT (self, "plane %u pitch %" G_GSIZE_FORMAT " (plane 0: %"
          G_GSIZE_FORMAT "): not one GstCudaMemory", i, f->plane_pitch[i],
          f->plane_pitch[0]);
      ok = FALSE;
    }
  }
  gst_buffer_unref (frame);
  return ok;
}

GstBufferPool *
gst_cuda_vk_upstream_pool_new (GstCudaVkInterop * interop,
    GstBufferPool * frames)
{
  GstCudaStream *stream = gst_cuda_vk_interop_get_cuda_stream (interop);
  GstCudaVkUpstreamPool *self;
  GstStructure *config;
  GstCaps *caps = NULL;

  g_return_val_if_fail (stream != NULL, NULL);

  config = gst_buffer_pool_get_config (frames);
  gst_buffer_pool_config_get_params (config, &caps, NULL, NULL, NULL);
  self = g_object_new (GST_TYPE_CUDA_VK_UPSTREAM_POOL, NULL);
  gst_object_ref_sink (self);
  GST_CUDA_BUFFER_POOL_CAST (self)->context =
      gst_object_ref (gst_cuda_vk_interop_get_context (interop));
  self->frames = gst_object_ref (frames);
  self->own_stream = gst_cuda_stream_ref (stream);
  if (!caps || !gst_video_info_from_caps (&self->info, caps) ||
      !frame_layout (self)) {
    gst_structure_free (config);
    gst_object_unref (self);
    return NULL;
  }
  gst_structure_free (config);
  return GST_BUFFER_POOL_CAST (self);
}

GstBuffer *
gst_cuda_vk_upstream_pool_get_frame (GstMemory * mem, GstBufferPool * frames)
{
  GstBuffer *frame;

  if (!frame_quark)
    return NULL;
  frame = gst_mini_object_get_qdata (GST_MINI_OBJECT_CAST (mem), frame_quark);
  /* a frame of an older frame pool (renegotiation) is copied */
  if (!frame || frame->pool != frames)
    return NULL;
  return gst_buffer_ref (frame);
}

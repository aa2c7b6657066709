/* gst-cudasync
 * Copyright (C) 2026 gst-cudasync developers
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
/**
 * SECTION:element-cudasemwait
 * @title: cudasemwait
 *
 * The consumer side of #GstCudaSyncMeta for CUDA. For each buffer that
 * carries acquire points (from a Vulkan or NvSci producer, or an upstream
 * cudasemsignal) cudasemwait enqueues `cuWaitExternalSemaphoresAsync` on the
 * legacy default stream of the CUDA context. Every operation enqueued later
 * on the context's blocking streams — what upstream GStreamer 1.22 CUDA
 * elements (cudadownload, nvenc, ...) and #GstCudaMemory mapping use — then
 * runs only after the semaphores are reached, on the GPU: the streaming
 * thread does not wait. On GStreamer 1.24+, when the buffer's memory carries
 * a #GstCudaStream, the waits go on that stream instead and the memory is
 * marked `GST_CUDA_MEMORY_TRANSFER_NEED_SYNC`, so that upstream consumers
 * order themselves after them. Buffers without the meta pass unchanged.
 *
 * The release point of the meta, if any, is signalled when the buffer is
 * released by the last element holding it, again on the legacy default
 * stream, i.e. after the downstream CUDA work that read it.
 *
 * cudasemwait answers the ALLOCATION query: it advertises that it can wait
 * on every semaphore type CUDA imports, and offers the semaphore set in its
 * #GstCudaSemWait:semaphore property to upstream producers (cudasemsignal).
 *
 * NvSciSync acquire points (fences) are waited for like the others, with
 * `cuWaitExternalSemaphoresAsync` reading the fence from the meta; the
 * `skip-nvscibuf-memsync` property adds
 * `CUDA_EXTERNAL_SEMAPHORE_WAIT_SKIP_NVSCIBUF_MEMSYNC` to those waits. An
 * NvSciSync object without CUDA wait permission is an error naming
 * `CUDA_ERROR_NOT_SUPPORTED`.
 *
 * ## Example launch line
 * |[
 * gst-launch-1.0 videotestsrc ! cudaupload ! cudasemsignal ! cudasemwait ! cudadownload ! autovideosink
 * ]|
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstcudasemwait.h"
#include <gst/cuda/gstcudamemory.h>
#include <gst/video/video.h>
#include "gstcudasyncelementerror.h"

GST_DEBUG_CATEGORY_STATIC (gst_cuda_sem_wait_debug);
#define GST_CAT_DEFAULT gst_cuda_sem_wait_debug

#define GST_TYPE_CUDA_SEM_WAIT_MODE (gst_cuda_sem_wait_mode_get_type ())
static GType gst_cuda_sem_wait_mode_get_type (void);
G_DEFINE_ENUM_TYPE (GstCudaSemWaitMode, gst_cuda_sem_wait_mode,
    G_DEFINE_ENUM_VALUE (GST_CUDA_SEM_WAIT_MODE_GPU, "gpu"),
    G_DEFINE_ENUM_VALUE (GST_CUDA_SEM_WAIT_MODE_CPU, "cpu"));

#define DEFAULT_WAIT_MODE GST_CUDA_SEM_WAIT_MODE_GPU

enum
{
  PROP_0,
  PROP_WAIT_MODE,
};

struct _GstCudaSemWait
{
  GstCudaSemBase parent;

  GstCudaSemWaitMode wait_mode;
};

static GstStaticPadTemplate sink_template = GST_STATIC_PAD_TEMPLATE ("sink",
    GST_PAD_SINK, GST_PAD_ALWAYS,
    GST_STATIC_CAPS (GST_VIDEO_CAPS_MAKE_WITH_FEATURES
        (GST_CAPS_FEATURE_MEMORY_CUDA_MEMORY, GST_VIDEO_FORMATS_ALL)));

static GstStaticPadTemplate src_template = GST_STATIC_PAD_TEMPLATE ("src",
    GST_PAD_SRC, GST_PAD_ALWAYS,
    GST_STATIC_CAPS (GST_VIDEO_CAPS_MAKE_WITH_FEATURES
        (GST_CAPS_FEATURE_MEMORY_CUDA_MEMORY, GST_VIDEO_FORMATS_ALL)));

/* the stats structure's fields, by GstCudaSyncCounter (no signals) */
static const gchar *const counter_names[GST_CUDA_SYNC_N_COUNTERS] = {
  [GST_CUDA_SEM_COUNTER_BUFFERS] = "buffers",
  [GST_CUDA_SEM_COUNTER_WAITS] = "waits",
  [GST_CUDA_SEM_COUNTER_CPU_SYNCS] = "cpu-syncs",
};

/* what they count, for the property's description */
static const GstCudaSyncStatsField stats_fields[] = {
  {"buffers", "buffers handled"},
  {"waits", "GPU waits enqueued for the incoming buffers' acquire points"},
  {"cpu-syncs", "CPU waits for those acquire points (wait-mode=cpu)"},
  {NULL, NULL}
};

#define gst_cuda_sem_wait_parent_class parent_class
G_DEFINE_TYPE (GstCudaSemWait, gst_cuda_sem_wait, GST_TYPE_CUDA_SEM_BASE);
GST_ELEMENT_REGISTER_DEFINE (cudasemwait, "cudasemwait", GST_RANK_NONE,
    GST_TYPE_CUDA_SEM_WAIT);

static void gst_cuda_sem_wait_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec);
static void gst_cuda_sem_wait_get_property (GObject * object, guint prop_id,
    GValue * value, GParamSpec * pspec);
static gboolean gst_cuda_sem_wait_propose_allocation (GstBaseTransform *
    trans, GstQuery * decide_query, GstQuery * query);
static GstFlowReturn gst_cuda_sem_wait_transform_ip (GstBaseTransform *
    trans, GstBuffer * buf);

static void
gst_cuda_sem_wait_class_init (GstCudaSemWaitClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstBaseTransformClass *trans_class = GST_BASE_TRANSFORM_CLASS (klass);
  GstCudaSyncBaseTransformClass *base_class =
      GST_CUDA_SYNC_BASE_TRANSFORM_CLASS (klass);

  gobject_class->set_property = gst_cuda_sem_wait_set_property;
  gobject_class->get_property = gst_cuda_sem_wait_get_property;

  /**
   * GstCudaSemWait:wait-mode:
   *
   * `gpu` (the default) enqueues the waits for a buffer's acquire points on
   * the CUDA stream and pushes the buffer at once; `cpu` also blocks until
   * they are reached, for consumers that read the memory outside CUDA
   * stream ordering (counted in the `cpu-syncs` field of `stats`).
   */
  g_object_class_install_property (gobject_class, PROP_WAIT_MODE,
      g_param_spec_enum ("wait-mode", "Wait mode",
          "gpu: enqueue the waits and return; cpu: also block until the "
          "acquire points are reached, for consumers that read the memory "
          "outside CUDA stream ordering", GST_TYPE_CUDA_SEM_WAIT_MODE,
          DEFAULT_WAIT_MODE, G_PARAM_READWRITE | GST_PARAM_MUTABLE_PLAYING |
          G_PARAM_STATIC_STRINGS));
  /**
   * GstCudaSemWait:stats:
   *
   * The element's counters since it was created, one guint64 field each:
   * the property's description lists them and what each counts. Notified
   * when EOS leaves the element, so that `gst-launch-1.0 -v` prints the
   * final counters.
   */
  gst_cuda_sync_base_transform_class_install_stats (gobject_class,
      stats_fields);

  gst_element_class_set_static_metadata (element_class,
      "CUDA semaphore wait", "Filter/Video/Hardware",
      "Makes CUDA wait on the GPU for the acquire points of incoming buffers",
      "gst-cudasync developers");
  gst_element_class_add_static_pad_template (element_class, &sink_template);
  gst_element_class_add_static_pad_template (element_class, &src_template);

  trans_class->passthrough_on_same_caps = TRUE;
  trans_class->transform_ip_on_passthrough = TRUE;
  trans_class->propose_allocation =
      GST_DEBUG_FUNCPTR (gst_cuda_sem_wait_propose_allocation);
  trans_class->transform_ip =
      GST_DEBUG_FUNCPTR (gst_cuda_sem_wait_transform_ip);

  base_class->counter_names = counter_names;
  base_class->n_counters = GST_CUDA_SYNC_N_COUNTERS;

  GST_DEBUG_CATEGORY_INIT (gst_cuda_sem_wait_debug, "cudasemwait", 0,
      "cudasemwait");
  gst_type_mark_as_plugin_api (GST_TYPE_CUDA_SEM_WAIT_MODE, 0);
}

static void
gst_cuda_sem_wait_init (GstCudaSemWait * self)
{
  self->wait_mode = DEFAULT_WAIT_MODE;
  gst_base_transform_set_passthrough (GST_BASE_TRANSFORM (self), TRUE);
}

static void
gst_cuda_sem_wait_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  GstCudaSemWait *self = GST_CUDA_SEM_WAIT (object);

  switch (prop_id) {
    case PROP_WAIT_MODE:
      GST_OBJECT_LOCK (self);
      self->wait_mode = g_value_get_enum (value);
      GST_OBJECT_UNLOCK (self);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
}

static void
gst_cuda_sem_wait_get_property (GObject * object, guint prop_id,
    GValue * value, GParamSpec * pspec)
{
  GstCudaSemWait *self = GST_CUDA_SEM_WAIT (object);

  switch (prop_id) {
    case PROP_WAIT_MODE:
      GST_OBJECT_LOCK (self);
      g_value_set_enum (value, self->wait_mode);
      GST_OBJECT_UNLOCK (self);
      break;
    default:
      /* `stats`: installed here, read by the base class */
      G_OBJECT_CLASS (parent_class)->get_property (object, prop_id, value,
          pspec);
      break;
  }
}

static gboolean
gst_cuda_sem_wait_propose_allocation (GstBaseTransform * trans,
    GstQuery * decide_query, GstQuery * query)
{
  GstCudaSemBase *base = GST_CUDA_SEM_BASE (trans);
  GstCudaSemaphore *sem;
  guint idx;

  /* pools and other metas: whatever downstream answers */
  if (!GST_BASE_TRANSFORM_CLASS (parent_class)->propose_allocation (trans,
          decide_query, query))
    GST_DEBUG_OBJECT (trans, "downstream did not answer the query");

  /* We are the consumer of the sync meta: replace downstream's answer. */
  while (gst_query_find_allocation_meta (query, GST_CUDA_SYNC_META_API_TYPE,
          &idx))
    gst_query_remove_nth_allocation_meta (query, idx);

  sem = gst_cuda_sem_base_dup_semaphore (base);
  gst_query_add_cuda_sync_meta (query, GST_CUDA_SEMAPHORE_HANDLE_TYPE_FLAGS_ALL,
      sem);
  gst_clear_object (&sem);
  return TRUE;
}

/* Where to wait for @buf's acquire points. 1.24+ memory carries the stream
 * its consumers order themselves after (and synchronise before a CPU map):
 * when every memory of @buf has the same one, wait there and mark the
 * memory pending. Otherwise the legacy default stream (NULL): every later
 * work on the context's blocking streams (what 1.22 elements and
 * GstCudaStream use) is ordered after it. */
static CUstream
wait_stream (GstBuffer * buf)
{
  CUstream stream = gst_cuda_sync_memory_get_stream (gst_buffer_peek_memory
      (buf, 0));
  guint i, n = gst_buffer_n_memory (buf);

  for (i = 1; i < n && stream; i++) {
    if (gst_cuda_sync_memory_get_stream (gst_buffer_peek_memory (buf,
                i)) != stream)
      stream = NULL;
  }
  return stream;
}

static GstFlowReturn
gst_cuda_sem_wait_transform_ip (GstBaseTransform * trans, GstBuffer * buf)
{
  GstCudaSemWait *self = GST_CUDA_SEM_WAIT (trans);
  GstCudaSemBase *base = GST_CUDA_SEM_BASE (self);
  GstCudaSyncMeta *meta;
  GstCudaSemWaitMode mode;
  CUstream stream;
  GError *err = NULL;
  guint i, n;

  if (!gst_cuda_sem_base_check_input (base, buf))
    return GST_FLOW_ERROR;
  gst_cuda_sem_base_count (base, GST_CUDA_SEM_COUNTER_BUFFERS, 1);

  meta = gst_buffer_get_cuda_sync_meta (buf);
  if (!meta || (n = gst_cuda_sync_meta_get_n_acquire (meta)) == 0)
    return GST_FLOW_OK;

  stream = wait_stream (buf);
  if (!gst_cuda_sem_base_wait_acquire (base, meta, stream))
    return GST_FLOW_ERROR;
  for (i = 0; stream && i < gst_buffer_n_memory (buf); i++)
    gst_cuda_sync_memory_mark_pending (gst_buffer_peek_memory (buf, i));

  GST_OBJECT_LOCK (self);
  mode = self->wait_mode;
  GST_OBJECT_UNLOCK (self);

  if (mode == GST_CUDA_SEM_WAIT_MODE_CPU) {
    gboolean ok = gst_cuda_sync_meta_wait_cpu (meta, GST_CLOCK_TIME_NONE, &err);

    gst_cuda_sem_base_count (base, GST_CUDA_SEM_COUNTER_CPU_SYNCS, 1);
    if (!ok) {
      GST_CUDA_SYNC_ELEMENT_ERROR (base, err,
          "Waiting for the acquire points failed");
      return GST_FLOW_ERROR;
    }
  }

  GST_LOG_OBJECT (self, "enqueued %u waits on stream %p for %" GST_PTR_FORMAT,
      n, stream, buf);
  return GST_FLOW_OK;
}

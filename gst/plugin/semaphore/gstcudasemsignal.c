/* gst-cudasync
 * Copyright (C) 2026 gst-cudasync developers
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
/**
 * SECTION:element-cudasemsignal
 * @title: cudasemsignal
 *
 * Hands CUDA buffers to a consumer that waits on the GPU. For each buffer
 * cudasemsignal enqueues `cuSignalExternalSemaphoresAsync` ordered after the
 * work that produced the buffer: on GStreamer 1.24+ on the stream the
 * buffer's memory carries, where the producer's work may still be pending
 * (`GST_CUDA_MEMORY_TRANSFER_NEED_SYNC`); on 1.22, whose CUDA elements
 * complete their work before pushing, on its own stream. Acquire points
 * already on the buffer are waited for on the GPU first. It attaches a
 * #GstCudaSyncMeta whose acquire point is the signalled value. The buffer
 * data is passed through untouched, and the streaming thread never calls a
 * CPU-synchronising CUDA function while a semaphore is available.
 *
 * The semaphore comes from, in this order: the downstream consumer through
 * the ALLOCATION query (gst_query_add_cuda_sync_meta()); the #GstCudaSemSignal:semaphore
 * property; otherwise there is none and #GstCudaSemSignal:fallback decides:
 * `sync` synchronises the stream on the CPU before pushing (and counts it in
 * `cpu-syncs`), `error` fails.
 *
 * A timeline semaphore is signalled with strictly increasing values, across
 * flushes, seeks, renegotiation and pipelines sharing the semaphore. A binary
 * semaphore allows one signal in flight: if the previous buffer's signal has
 * not been waited for yet, the fallback applies to that buffer.
 *
 * An NvSciSync semaphore (Jetson/DRIVE) is set and negotiated the same way.
 * Each signal writes a fresh `NvSciSyncFence`, which becomes the buffer's
 * acquire point (gst_cuda_sync_meta_get_acquire_nvsci_fence()); the meta
 * clears it through the hook set with
 * gst_cuda_sync_set_nvsci_fence_clear_func() when the buffer is gone. Signals
 * are serialised, so deterministic fences count 1, 2, 3... per buffer
 * (`last-value` shows the count). An NvSciSync object without CUDA signal
 * permission is an error naming `CUDA_ERROR_NOT_SUPPORTED`. The
 * `skip-nvscibuf-memsync` property adds
 * `CUDA_EXTERNAL_SEMAPHORE_SIGNAL_SKIP_NVSCIBUF_MEMSYNC` to the signals.
 *
 * ## Example launch lines
 * |[
 * gst-launch-1.0 videotestsrc ! cudaupload ! cudasemsignal ! cudasemwait ! cudadownload ! autovideosink
 * ]| The semaphore is offered by cudasemwait when the application set its
 * `semaphore` property.
 * |[
 * gst-launch-1.0 videotestsrc num-buffers=100 ! cudaupload ! cudasemsignal fallback=sync ! fakesink
 * ]| Without any semaphore: synchronises on the CPU per buffer, as upstream
 * elements do (see the `stats` property).
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstcudasemsignal.h"
#include <gst/cuda/gstcudamemory.h>
#include <gst/video/video.h>
#include "gstcudasyncelementerror.h"

GST_DEBUG_CATEGORY_STATIC (gst_cuda_sem_signal_debug);
#define GST_CAT_DEFAULT gst_cuda_sem_signal_debug

#define GST_TYPE_CUDA_SEM_SIGNAL_FALLBACK (gst_cuda_sem_signal_fallback_get_type ())
static GType gst_cuda_sem_signal_fallback_get_type (void);
G_DEFINE_ENUM_TYPE (GstCudaSemSignalFallback, gst_cuda_sem_signal_fallback,
    G_DEFINE_ENUM_VALUE (GST_CUDA_SEM_SIGNAL_FALLBACK_SYNC, "sync"),
    G_DEFINE_ENUM_VALUE (GST_CUDA_SEM_SIGNAL_FALLBACK_ERROR, "error"));

#define DEFAULT_FALLBACK GST_CUDA_SEM_SIGNAL_FALLBACK_SYNC

enum
{
  PROP_0,
  PROP_FALLBACK,
};

struct _GstCudaSemSignal
{
  GstCudaSemBase parent;

  GstCudaSemSignalFallback fallback;

  /* streaming thread only */
  gboolean negotiated;
  GstCudaSemaphore *active;     /* semaphore in use (downstream's or property) */
  gboolean from_downstream;
};

static GstStaticPadTemplate sink_template = GST_STATIC_PAD_TEMPLATE ("sink",
    GST_PAD_SINK, GST_PAD_ALWAYS,
    GST_STATIC_CAPS (GST_VIDEO_CAPS_MAKE_WITH_FEATURES
        (GST_CAPS_FEATURE_MEMORY_CUDA_MEMORY, GST_VIDEO_FORMATS_ALL)));

static GstStaticPadTemplate src_template = GST_STATIC_PAD_TEMPLATE ("src",
    GST_PAD_SRC, GST_PAD_ALWAYS,
    GST_STATIC_CAPS (GST_VIDEO_CAPS_MAKE_WITH_FEATURES
        (GST_CAPS_FEATURE_MEMORY_CUDA_MEMORY, GST_VIDEO_FORMATS_ALL)));

/* the stats structure's fields, by GstCudaSyncCounter */
static const gchar *const counter_names[GST_CUDA_SYNC_N_COUNTERS] = {
  "buffers", "signals", "waits", "cpu-syncs", "last-value"
};

/* what they count, for the property's description */
static const GstCudaSyncStatsField stats_fields[] = {
  {"buffers", "buffers handled"},
  {"signals", "semaphore signals enqueued on the GPU, one per buffer while "
        "there is a semaphore"},
  {"waits", "GPU waits for acquire points that the incoming buffers carried"},
  {"cpu-syncs", "CPU synchronisations of the fallback (no semaphore, or a "
        "binary one whose previous signal was not waited for yet)"},
  {"last-value", "the value of the last signal (NvSciSync: the number of "
        "fences written)"},
  {NULL, NULL}
};

#define gst_cuda_sem_signal_parent_class parent_class
G_DEFINE_TYPE (GstCudaSemSignal, gst_cuda_sem_signal, GST_TYPE_CUDA_SEM_BASE);
GST_ELEMENT_REGISTER_DEFINE (cudasemsignal, "cudasemsignal", GST_RANK_NONE,
    GST_TYPE_CUDA_SEM_SIGNAL);

static void gst_cuda_sem_signal_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec);
static void gst_cuda_sem_signal_get_property (GObject * object, guint prop_id,
    GValue * value, GParamSpec * pspec);
static gboolean gst_cuda_sem_signal_stop (GstBaseTransform * trans);
static gboolean gst_cuda_sem_signal_set_caps (GstBaseTransform * trans,
    GstCaps * incaps, GstCaps * outcaps);
static gboolean gst_cuda_sem_signal_propose_allocation (GstBaseTransform *
    trans, GstQuery * decide_query, GstQuery * query);
static GstFlowReturn gst_cuda_sem_signal_transform_ip (GstBaseTransform *
    trans, GstBuffer * buf);

static void
gst_cuda_sem_signal_class_init (GstCudaSemSignalClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstBaseTransformClass *trans_class = GST_BASE_TRANSFORM_CLASS (klass);
  GstCudaSyncBaseTransformClass *base_class =
      GST_CUDA_SYNC_BASE_TRANSFORM_CLASS (klass);

  gobject_class->set_property = gst_cuda_sem_signal_set_property;
  gobject_class->get_property = gst_cuda_sem_signal_get_property;

  /**
   * GstCudaSemSignal:fallback:
   *
   * What the element does with a buffer when it has no semaphore to signal
   * (none set, none offered downstream): `sync` (the default) synchronises
   * the CUDA stream on the CPU before pushing (counted in the `cpu-syncs`
   * field of `stats`); `error` posts an element error instead.
   */
  g_object_class_install_property (gobject_class, PROP_FALLBACK,
      g_param_spec_enum ("fallback", "Fallback",
          "What to do when there is no semaphore to signal: synchronise the "
          "CUDA stream on the CPU before pushing, or fail",
          GST_TYPE_CUDA_SEM_SIGNAL_FALLBACK, DEFAULT_FALLBACK,
          G_PARAM_READWRITE | GST_PARAM_MUTABLE_READY |
          G_PARAM_STATIC_STRINGS));
  /**
   * GstCudaSemSignal:stats:
   *
   * The element's counters since it was created, one guint64 field each:
   * the property's description lists them and what each counts. Notified
   * when EOS leaves the element, so that `gst-launch-1.0 -v` prints the
   * final counters: `cpu-syncs` equal to `buffers` and `signals` 0 say
   * that every buffer took the CPU fallback.
   */
  gst_cuda_sync_base_transform_class_install_stats (gobject_class,
      stats_fields);

  gst_element_class_set_static_metadata (element_class,
      "CUDA semaphore signal", "Filter/Video/Hardware",
      "Signals an external semaphore on the GPU when a CUDA buffer is ready "
      "and attaches the acquire point to the buffer",
      "gst-cudasync developers");
  gst_element_class_add_static_pad_template (element_class, &sink_template);
  gst_element_class_add_static_pad_template (element_class, &src_template);

  trans_class->passthrough_on_same_caps = FALSE;
  trans_class->transform_ip_on_passthrough = FALSE;
  trans_class->stop = GST_DEBUG_FUNCPTR (gst_cuda_sem_signal_stop);
  trans_class->set_caps = GST_DEBUG_FUNCPTR (gst_cuda_sem_signal_set_caps);
  trans_class->propose_allocation =
      GST_DEBUG_FUNCPTR (gst_cuda_sem_signal_propose_allocation);
  trans_class->transform_ip =
      GST_DEBUG_FUNCPTR (gst_cuda_sem_signal_transform_ip);

  base_class->counter_names = counter_names;
  base_class->n_counters = GST_CUDA_SYNC_N_COUNTERS;

  GST_DEBUG_CATEGORY_INIT (gst_cuda_sem_signal_debug, "cudasemsignal", 0,
      "cudasemsignal");
  gst_type_mark_as_plugin_api (GST_TYPE_CUDA_SEM_SIGNAL_FALLBACK, 0);
}

static void
gst_cuda_sem_signal_init (GstCudaSemSignal * self)
{
  self->fallback = DEFAULT_FALLBACK;
  gst_base_transform_set_in_place (GST_BASE_TRANSFORM (self), TRUE);
  gst_base_transform_set_passthrough (GST_BASE_TRANSFORM (self), FALSE);
}

static void
gst_cuda_sem_signal_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  GstCudaSemSignal *self = GST_CUDA_SEM_SIGNAL (object);

  switch (prop_id) {
    case PROP_FALLBACK:
      GST_OBJECT_LOCK (self);
      self->fallback = g_value_get_enum (value);
      GST_OBJECT_UNLOCK (self);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
}

static void
gst_cuda_sem_signal_get_property (GObject * object, guint prop_id,
    GValue * value, GParamSpec * pspec)
{
  GstCudaSemSignal *self = GST_CUDA_SEM_SIGNAL (object);

  switch (prop_id) {
    case PROP_FALLBACK:
      GST_OBJECT_LOCK (self);
      g_value_set_enum (value, self->fallback);
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
gst_cuda_sem_signal_stop (GstBaseTransform * trans)
{
  GstCudaSemSignal *self = GST_CUDA_SEM_SIGNAL (trans);

  gst_clear_object (&self->active);
  self->negotiated = FALSE;
  self->from_downstream = FALSE;

  return GST_BASE_TRANSFORM_CLASS (parent_class)->stop (trans);
}

static gboolean
gst_cuda_sem_signal_set_caps (GstBaseTransform * trans, GstCaps * incaps,
    GstCaps * outcaps)
{
  GstCudaSemSignal *self = GST_CUDA_SEM_SIGNAL (trans);

  /* ask downstream again on the next buffer: it may offer another semaphore
   * for the new caps. The timeline of each semaphore object continues. */
  self->negotiated = FALSE;
  return TRUE;
}

static gboolean
gst_cuda_sem_signal_propose_allocation (GstBaseTransform * trans,
    GstQuery * decide_query, GstQuery * query)
{
  guint idx;

  /* In place: buffers come from upstream's pool; what downstream needs
   * (pools, video meta) is answered by downstream. */
  if (!gst_pad_peer_query (GST_BASE_TRANSFORM_SRC_PAD (trans), query))
    GST_DEBUG_OBJECT (trans, "downstream did not answer the query");

  /* Downstream's sync-meta offer is for this element, which signals its
   * semaphore: consume it, so that an upstream signaller does not signal
   * the same semaphore. Upstream's acquire points are waited for here, on
   * the GPU, whatever their type; no semaphore of ours to offer. */
  while (gst_query_find_allocation_meta (query, GST_CUDA_SYNC_META_API_TYPE,
          &idx))
    gst_query_remove_nth_allocation_meta (query, idx);
  gst_query_add_cuda_sync_meta (query, GST_CUDA_SEMAPHORE_HANDLE_TYPE_FLAGS_ALL,
      NULL);
  return TRUE;
}

static gchar *
handle_types_to_string (GstCudaSemaphoreHandleTypeFlags types)
{
  GFlagsClass *klass =
      g_type_class_ref (GST_TYPE_CUDA_SEMAPHORE_HANDLE_TYPE_FLAGS);
  GString *str = g_string_new (NULL);
  guint i;

  for (i = 0; i < klass->n_values; i++) {
    GFlagsValue *v = &klass->values[i];
    if (v->value && (types & v->value) == v->value)
      g_string_append_printf (str, "%s%s", str->len ? ", " : "", v->value_nick);
  }
  g_type_class_unref (klass);
  if (!str->len)
    g_string_append (str, "none");
  return g_string_free (str, FALSE);
}

/* Picks the semaphore: downstream's offer, then the property. */
static gboolean
negotiate_semaphore (GstCudaSemSignal * self)
{
  GstCudaSemBase *base = GST_CUDA_SEM_BASE (self);
  GstPad *srcpad = GST_BASE_TRANSFORM_SRC_PAD (self);
  GstCaps *caps = gst_pad_get_current_caps (srcpad);
  GstCudaSemaphoreHandleTypeFlags types =
      GST_CUDA_SEMAPHORE_HANDLE_TYPE_FLAG_NONE;
  GstCudaSemaphore *offered = NULL, *sem;
  gboolean understood = FALSE;
  GstQuery *query;

  gst_clear_object (&self->active);
  self->from_downstream = FALSE;

  if (caps) {
    query = gst_query_new_allocation (caps, FALSE);
    if (gst_pad_peer_query (srcpad, query))
      understood = gst_query_parse_cuda_sync_meta (query, &types, &offered);
    gst_query_unref (query);
    gst_caps_unref (caps);
  }

  if (offered) {
    sem = offered;
    self->from_downstream = TRUE;
  } else {
    sem = gst_cuda_sem_base_dup_semaphore (base);
  }

  if (sem) {
    GstCudaSemaphoreHandleType t = gst_cuda_semaphore_get_handle_type (sem);

    if (understood && !(types & gst_cuda_semaphore_handle_type_to_flag (t))) {
      gchar *have = handle_types_to_string (types);
      GST_ELEMENT_ERROR (self, CORE, NEGOTIATION,
          ("Downstream cannot wait on a %s semaphore (it accepts: %s)",
              g_enum_get_value (g_type_class_peek
                  (GST_TYPE_CUDA_SEMAPHORE_HANDLE_TYPE), t)->value_nick, have),
          (NULL));
      g_free (have);
      gst_object_unref (sem);
      return FALSE;
    }
    if (!gst_cuda_sem_base_check_semaphore (base, sem,
            self->from_downstream ? "Semaphore offered by downstream" :
            "Semaphore property")) {
      gst_object_unref (sem);
      return FALSE;
    }
    self->active = sem;
    GST_INFO_OBJECT (self, "signalling %s semaphore %" GST_PTR_FORMAT,
        self->from_downstream ? "downstream's" : "the application's", sem);
  } else {
    GST_INFO_OBJECT (self, "no semaphore: fallback applies");
  }

  self->negotiated = TRUE;
  return TRUE;
}

static GstFlowReturn
apply_fallback (GstCudaSemSignal * self, CUstream stream, const gchar * why)
{
  GstCudaSemBase *base = GST_CUDA_SEM_BASE (self);
  GstCudaSemSignalFallback fallback;

  GST_OBJECT_LOCK (self);
  fallback = self->fallback;
  GST_OBJECT_UNLOCK (self);

  if (fallback == GST_CUDA_SEM_SIGNAL_FALLBACK_ERROR) {
    GST_ELEMENT_ERROR (self, RESOURCE, SETTINGS, ("%s, and fallback=error",
            why), (NULL));
    return GST_FLOW_ERROR;
  }

  GST_LOG_OBJECT (self, "%s: synchronising on the CPU", why);
  return gst_cuda_sem_base_cpu_sync (base, stream) ? GST_FLOW_OK :
      GST_FLOW_ERROR;
}

/* NvSciSync: the signal writes a fence, which the meta takes over */
static GstFlowReturn
signal_nvsci (GstCudaSemSignal * self, GstBuffer * buf, GstCudaSyncMeta * meta,
    CUstream stream)
{
  GstCudaSemBase *base = GST_CUDA_SEM_BASE (self);
  guint8 fence[GST_CUDA_NVSCI_FENCE_SIZE] = { 0, };
  GError *err = NULL;
  guint64 count;

  if (!gst_cuda_semaphore_signal_nvsci_full (self->active, stream, fence,
          gst_cuda_sem_base_get_flags (base), &err)) {
    GST_CUDA_SYNC_ELEMENT_ERROR (base, err,
        "Could not enqueue the NvSciSync signal");
    return GST_FLOW_ERROR;
  }

  if (!meta)
    meta = gst_buffer_add_cuda_sync_meta (buf);
  /* our signal is ordered after the incoming points: it replaces them */
  gst_cuda_sync_meta_clear_acquire (meta);
  /* the meta owns the fence from now on and clears it once */
  gst_cuda_sync_meta_add_acquire_nvsci_fence (meta, self->active, fence);

  count = gst_cuda_semaphore_get_last_value (self->active);
  gst_cuda_sem_base_count_signal (base, count);
  GST_LOG_OBJECT (self, "NvSciSync signal %" G_GUINT64_FORMAT " enqueued for %"
      GST_PTR_FORMAT, count, buf);
  return GST_FLOW_OK;
}

static GstFlowReturn
gst_cuda_sem_signal_transform_ip (GstBaseTransform * trans, GstBuffer * buf)
{
  GstCudaSemSignal *self = GST_CUDA_SEM_SIGNAL (trans);
  GstCudaSemBase *base = GST_CUDA_SEM_BASE (self);
  CUstream stream;
  GstCudaSyncMeta *meta;
  GError *err = NULL;
  guint64 value = 0;

  if (!self->negotiated || gst_pad_check_reconfigure
      (GST_BASE_TRANSFORM_SRC_PAD (trans))) {
    if (!negotiate_semaphore (self))
      return GST_FLOW_NOT_NEGOTIATED;
  }

  if (!gst_cuda_sem_base_check_input (base, buf))
    return GST_FLOW_ERROR;

  gst_cuda_sem_base_count (base, GST_CUDA_SEM_COUNTER_BUFFERS, 1);

  /* 1.24+: the memory's own stream, where the producer's work is */
  if (!gst_cuda_sem_base_input_stream (base, buf, &stream, &err)) {
    GST_CUDA_SYNC_ELEMENT_ERROR (base, err,
        "Could not order the signal after the producer's CUDA stream");
    return GST_FLOW_ERROR;
  }

  /* The producer may itself have left work pending behind acquire points:
   * order our signal after them, on the GPU. */
  meta = gst_buffer_get_cuda_sync_meta (buf);
  if (meta && gst_cuda_sync_meta_get_n_acquire (meta) > 0 &&
      !gst_cuda_sem_base_wait_acquire (base, meta, stream))
    return GST_FLOW_ERROR;

  if (!self->active)
    return apply_fallback (self, stream,
        "No semaphore: downstream offered none and "
        "the semaphore property is not set");

  if (gst_cuda_semaphore_get_handle_type (self->active) ==
      GST_CUDA_SEMAPHORE_HANDLE_TYPE_NVSCISYNC)
    return signal_nvsci (self, buf, meta, stream);

  if (!gst_cuda_semaphore_signal (self->active, stream, &value, &err)) {
    if (g_error_matches (err, GST_CUDA_SYNC_ERROR,
            GST_CUDA_SYNC_ERROR_PROTOCOL)) {
      /* binary semaphore still signalled for the previous buffer */
      GST_DEBUG_OBJECT (self, "%s", err->message);
      g_clear_error (&err);
      return apply_fallback (self, stream,
          "The binary semaphore's previous signal "
          "has not been waited for yet");
    }
    GST_CUDA_SYNC_ELEMENT_ERROR (base, err,
        "Could not enqueue the semaphore signal");
    return GST_FLOW_ERROR;
  }

  if (!meta)
    meta = gst_buffer_add_cuda_sync_meta (buf);
  /* our signal is ordered after the incoming points: it replaces them */
  gst_cuda_sync_meta_clear_acquire (meta);
  gst_cuda_sync_meta_add_acquire (meta, self->active, value);

  gst_cuda_sem_base_count_signal (base, value);
  GST_LOG_OBJECT (self, "signal %" G_GUINT64_FORMAT " enqueued for %"
      GST_PTR_FORMAT, value, buf);
  return GST_FLOW_OK;
}

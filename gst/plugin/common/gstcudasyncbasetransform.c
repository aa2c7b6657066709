/* gst-cudasync
 * Copyright (C) 2026 gst-cudasync developers
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstcudasyncbasetransform.h"
#include "gstcudasyncelementerror.h"
#include "gstcudasyncstats.h"
#include <gst/cuda/gstcudautils.h>
#include <gst/cuda/cuda-gst.h>

GST_DEBUG_CATEGORY_STATIC (gst_cuda_sync_base_transform_debug);
#define GST_CAT_DEFAULT gst_cuda_sync_base_transform_debug

#define DEFAULT_DEVICE_ID -1

/* priv->lock guards the device id, the counters and the context pointer
 * (set by set_context() from any thread). It is held only briefly, never
 * while calling out of the element (queries, messages, the driver), and
 * never taken with a subclass's lock held nor the other way round: it is
 * the innermost lock of every element of the plugin. The stream is set
 * and cleared by the thread that starts and stops the element (_open(),
 * _close()) and read unlocked by the streaming thread in between. */
typedef struct
{
  GMutex lock;
  gint device_id;
  GstCudaContext *context;
  guint64 counters[GST_CUDA_SYNC_MAX_COUNTERS];
  CUstream stream;
  GstCudaStream *cuda_stream;   /* owns @stream where stream_new made one */
} GstCudaSyncBaseTransformPrivate;

G_DEFINE_ABSTRACT_TYPE_WITH_PRIVATE (GstCudaSyncBaseTransform,
    gst_cuda_sync_base_transform, GST_TYPE_BASE_TRANSFORM);

#define PRIV(self) ((GstCudaSyncBaseTransformPrivate *) \
    gst_cuda_sync_base_transform_get_instance_private \
    (GST_CUDA_SYNC_BASE_TRANSFORM (self)))
#define parent_class gst_cuda_sync_base_transform_parent_class

static void
gst_cuda_sync_base_transform_finalize (GObject * object)
{
  GstCudaSyncBaseTransformPrivate *priv = PRIV (object);

  gst_clear_object (&priv->context);
  g_mutex_clear (&priv->lock);
  G_OBJECT_CLASS (parent_class)->finalize (object);
}

static GstStructure *
make_stats (GstCudaSyncBaseTransform * self)
{
  GstCudaSyncBaseTransformPrivate *priv = PRIV (self);
  GstCudaSyncBaseTransformClass *klass =
      GST_CUDA_SYNC_BASE_TRANSFORM_GET_CLASS (self);
  GstStructure *s = gst_structure_new_empty ("stats");
  guint i;

  g_mutex_lock (&priv->lock);
  for (i = 0; i < klass->n_counters; i++) {
    if (klass->counter_names[i])
      gst_structure_set (s, klass->counter_names[i], G_TYPE_UINT64,
          priv->counters[i], NULL);
  }
  g_mutex_unlock (&priv->lock);
  if (klass->add_stats)
    klass->add_stats (self, s);
  return s;
}

static void
gst_cuda_sync_base_transform_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  GstCudaSyncBaseTransformPrivate *priv = PRIV (object);

  switch (prop_id) {
    case GST_CUDA_SYNC_BASE_TRANSFORM_PROP_DEVICE_ID:
      g_mutex_lock (&priv->lock);
      priv->device_id = g_value_get_int (value);
      g_mutex_unlock (&priv->lock);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
}

static void
gst_cuda_sync_base_transform_get_property (GObject * object, guint prop_id,
    GValue * value, GParamSpec * pspec)
{
  GstCudaSyncBaseTransform *self = GST_CUDA_SYNC_BASE_TRANSFORM (object);

  switch (prop_id) {
    case GST_CUDA_SYNC_BASE_TRANSFORM_PROP_DEVICE_ID:
      g_value_set_int (value, gst_cuda_sync_base_transform_get_device_id
          (self));
      break;
    case GST_CUDA_SYNC_BASE_TRANSFORM_PROP_STATS:
      g_value_take_boxed (value, make_stats (self));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
}

static void
gst_cuda_sync_base_transform_set_context (GstElement * element,
    GstContext * context)
{
  GstCudaSyncBaseTransformPrivate *priv = PRIV (element);

  g_mutex_lock (&priv->lock);
  gst_cuda_handle_set_context (element, context, priv->device_id,
      &priv->context);
  g_mutex_unlock (&priv->lock);

  GST_ELEMENT_CLASS (parent_class)->set_context (element, context);
}

static gboolean
gst_cuda_sync_base_transform_query (GstBaseTransform * trans,
    GstPadDirection direction, GstQuery * query)
{
  GstCudaSyncBaseTransformPrivate *priv = PRIV (trans);

  if (GST_QUERY_TYPE (query) == GST_QUERY_CONTEXT) {
    GstCudaContext *ctx;
    gboolean handled;

    g_mutex_lock (&priv->lock);
    ctx = priv->context ? gst_object_ref (priv->context) : NULL;
    g_mutex_unlock (&priv->lock);
    handled = gst_cuda_handle_context_query (GST_ELEMENT (trans), query, ctx);
    gst_clear_object (&ctx);
    if (handled)
      return TRUE;
  }
  return GST_BASE_TRANSFORM_CLASS (parent_class)->query (trans, direction,
      query);
}

/* The default open_context: the pipeline's context, or a new one for
 * cuda-device-id */
static gboolean
open_context_default (GstCudaSyncBaseTransform * self)
{
  if (gst_cuda_sync_base_transform_ensure_context (self))
    return TRUE;
  GST_ELEMENT_ERROR (self, RESOURCE, NOT_FOUND, ("No CUDA device available"),
      ("gst_cuda_ensure_element_context failed for device id %d",
          gst_cuda_sync_base_transform_get_device_id (self)));
  return FALSE;
}

/* The default stream_new: a blocking stream, ordered after the legacy
 * default stream, where GstCudaMemory copies and the legacy stream's
 * waits run */
static gboolean
stream_new_default (GstCudaContext * context, GstCudaStream ** owner,
    CUstream * stream, GError ** error)
{
  CUresult r;

  *owner = NULL;
  if (!gst_cuda_context_push (context)) {
    g_set_error (error, GST_CUDA_SYNC_ERROR, GST_CUDA_SYNC_ERROR_DRIVER,
        "Could not make the CUDA context current");
    return FALSE;
  }
  r = CuStreamCreate (stream, CU_STREAM_DEFAULT);
  gst_cuda_context_pop (NULL);
  if (!gst_cuda_sync_check_result (r, "cuStreamCreate", error)) {
    *stream = NULL;
    return FALSE;
  }
  return TRUE;
}

/* The default stream_free: does not block (pending work completes, then
 * the stream goes away). A stream belongs to its context: it can be
 * destroyed without the context current, if pushing it fails. */
static void
stream_free_default (GstCudaContext * context, GstCudaStream ** owner,
    CUstream * stream)
{
  gboolean pushed = gst_cuda_context_push (context);
  CUresult r;

  if (!pushed)
    GST_WARNING ("could not make the CUDA context current to destroy the "
        "stream");
  r = CuStreamDestroy (*stream);
  if (r != CUDA_SUCCESS)
    GST_WARNING ("cuStreamDestroy: %s", gst_cuda_sync_result_name (r));
  if (pushed)
    gst_cuda_context_pop (NULL);
  *stream = NULL;
}

static gboolean
gst_cuda_sync_base_transform_start (GstBaseTransform * trans)
{
  return gst_cuda_sync_base_transform_open (GST_CUDA_SYNC_BASE_TRANSFORM
      (trans));
}

static gboolean
gst_cuda_sync_base_transform_stop (GstBaseTransform * trans)
{
  gst_cuda_sync_base_transform_close (GST_CUDA_SYNC_BASE_TRANSFORM (trans),
      TRUE);
  return TRUE;
}

static void
gst_cuda_sync_base_transform_class_init (GstCudaSyncBaseTransformClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstBaseTransformClass *trans_class = GST_BASE_TRANSFORM_CLASS (klass);

  gobject_class->finalize = gst_cuda_sync_base_transform_finalize;
  gobject_class->set_property = gst_cuda_sync_base_transform_set_property;
  gobject_class->get_property = gst_cuda_sync_base_transform_get_property;

  element_class->set_context =
      GST_DEBUG_FUNCPTR (gst_cuda_sync_base_transform_set_context);
  trans_class->query = GST_DEBUG_FUNCPTR (gst_cuda_sync_base_transform_query);
  trans_class->start = GST_DEBUG_FUNCPTR (gst_cuda_sync_base_transform_start);
  trans_class->stop = GST_DEBUG_FUNCPTR (gst_cuda_sync_base_transform_stop);
  klass->open_context = open_context_default;
  klass->stream_new = stream_new_default;
  klass->stream_free = stream_free_default;

  GST_DEBUG_CATEGORY_INIT (gst_cuda_sync_base_transform_debug,
      "cudasyncbasetransform", 0, "cudasync elements' base class");
  gst_type_mark_as_plugin_api (GST_TYPE_CUDA_SYNC_BASE_TRANSFORM, 0);
}

static void
gst_cuda_sync_base_transform_init (GstCudaSyncBaseTransform * self)
{
  GstCudaSyncBaseTransformPrivate *priv = PRIV (self);

  g_mutex_init (&priv->lock);
  priv->device_id = DEFAULT_DEVICE_ID;
  gst_cuda_sync_stats_notify_at_eos (GST_ELEMENT (self),
      GST_BASE_TRANSFORM_SRC_PAD (self));
}

void
gst_cuda_sync_base_transform_class_install_properties (GObjectClass * klass,
    const gchar * device_id_blurb)
{
  /**
   * GstCudaSyncBaseTransform:cuda-device-id:
   *
   * The CUDA device the element uses when the pipeline shares no CUDA
   * context (and, for cudasemsignal and cudasemwait, the `semaphore`
   * property gives none); -1: any device.
   */
  g_object_class_install_property (klass,
      GST_CUDA_SYNC_BASE_TRANSFORM_PROP_DEVICE_ID,
      g_param_spec_int ("cuda-device-id", "CUDA device id", device_id_blurb,
          -1, G_MAXINT, DEFAULT_DEVICE_ID, G_PARAM_READWRITE |
          GST_PARAM_MUTABLE_READY | G_PARAM_STATIC_STRINGS));
}

void
gst_cuda_sync_base_transform_class_install_stats (GObjectClass * klass,
    const GstCudaSyncStatsField * fields)
{
  g_object_class_install_property (klass,
      GST_CUDA_SYNC_BASE_TRANSFORM_PROP_STATS,
      gst_cuda_sync_stats_param_spec ("Counters since the element was "
          "created", fields));
}

gint
gst_cuda_sync_base_transform_get_device_id (GstCudaSyncBaseTransform * self)
{
  GstCudaSyncBaseTransformPrivate *priv = PRIV (self);
  gint id;

  g_mutex_lock (&priv->lock);
  id = priv->device_id;
  g_mutex_unlock (&priv->lock);
  return id;
}

void
gst_cuda_sync_base_transform_count (GstCudaSyncBaseTransform * self,
    guint counter, guint64 add)
{
  GstCudaSyncBaseTransformPrivate *priv = PRIV (self);

  g_return_if_fail (counter < GST_CUDA_SYNC_MAX_COUNTERS);
  g_mutex_lock (&priv->lock);
  priv->counters[counter] += add;
  g_mutex_unlock (&priv->lock);
}

void
gst_cuda_sync_base_transform_count_func (gpointer self, guint counter,
    guint64 add)
{
  gst_cuda_sync_base_transform_count (GST_CUDA_SYNC_BASE_TRANSFORM (self),
      counter, add);
}

void
gst_cuda_sync_base_transform_count_and_set (GstCudaSyncBaseTransform * self,
    guint counter, guint64 add, guint set_counter, guint64 value)
{
  GstCudaSyncBaseTransformPrivate *priv = PRIV (self);

  g_return_if_fail (counter < GST_CUDA_SYNC_MAX_COUNTERS);
  g_return_if_fail (set_counter < GST_CUDA_SYNC_MAX_COUNTERS);
  g_mutex_lock (&priv->lock);
  priv->counters[counter] += add;
  priv->counters[set_counter] = value;
  g_mutex_unlock (&priv->lock);
}

GstCudaContext *
gst_cuda_sync_base_transform_get_context (GstCudaSyncBaseTransform * self)
{
  return PRIV (self)->context;
}

/* The pipeline's context, or a new one for the device. The GstContext
 * query and NEED_CONTEXT message it sends reach this element's own
 * set_context(), which sets priv->context, and
 * gst_cuda_ensure_element_context() must see that very field: it runs on
 * this thread without priv->lock (which set_context() takes), and only
 * this thread clears the field (_drop_context()). */
gboolean
gst_cuda_sync_base_transform_ensure_context (GstCudaSyncBaseTransform * self)
{
  return gst_cuda_ensure_element_context (GST_ELEMENT (self),
      gst_cuda_sync_base_transform_get_device_id (self), &PRIV (self)->context);
}

GstCudaContext *
gst_cuda_sync_base_transform_adopt_context (GstCudaSyncBaseTransform * self,
    GstCudaContext * context)
{
  GstCudaSyncBaseTransformPrivate *priv = PRIV (self);

  g_mutex_lock (&priv->lock);
  if (!priv->context)
    priv->context = gst_object_ref (context);
  g_mutex_unlock (&priv->lock);
  return priv->context;
}

void
gst_cuda_sync_base_transform_drop_context (GstCudaSyncBaseTransform * self)
{
  GstCudaSyncBaseTransformPrivate *priv = PRIV (self);

  g_mutex_lock (&priv->lock);
  gst_clear_object (&priv->context);
  g_mutex_unlock (&priv->lock);
}

gboolean
gst_cuda_sync_base_transform_open (GstCudaSyncBaseTransform * self)
{
  GstCudaSyncBaseTransformPrivate *priv = PRIV (self);
  GstCudaSyncBaseTransformClass *klass =
      GST_CUDA_SYNC_BASE_TRANSFORM_GET_CLASS (self);
  GError *err = NULL;

  if (!gst_cuda_sync_init (&err)) {
    GST_CUDA_SYNC_ELEMENT_ERROR (self, err, "Cannot use the CUDA driver");
    return FALSE;
  }
  if (!klass->open_context (self))
    return FALSE;
  if (priv->stream)
    return TRUE;
  if (!klass->stream_new (priv->context, &priv->cuda_stream, &priv->stream,
          &err)) {
    GST_CUDA_SYNC_ELEMENT_ERROR (self, err, "Could not create a CUDA stream");
    return FALSE;
  }
  return TRUE;
}

void
gst_cuda_sync_base_transform_close (GstCudaSyncBaseTransform * self,
    gboolean drop_context)
{
  GstCudaSyncBaseTransformPrivate *priv = PRIV (self);
  GstCudaSyncBaseTransformClass *klass =
      GST_CUDA_SYNC_BASE_TRANSFORM_GET_CLASS (self);

  if (priv->stream && priv->context)
    klass->stream_free (priv->context, &priv->cuda_stream, &priv->stream);
  priv->stream = NULL;
  priv->cuda_stream = NULL;
  if (drop_context)
    gst_cuda_sync_base_transform_drop_context (self);
}

CUstream
gst_cuda_sync_base_transform_get_stream (GstCudaSyncBaseTransform * self)
{
  return PRIV (self)->stream;
}

GstCudaStream *
gst_cuda_sync_base_transform_get_cuda_stream (GstCudaSyncBaseTransform * self)
{
  return PRIV (self)->cuda_stream;
}

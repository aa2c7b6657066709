/* gst-cudasync
 * Copyright (C) 2026 gst-cudasync developers
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstcudasembase.h"
#include "gstcudasyncelementerror.h"
#include <gst/cuda/cuda-gst.h>
#include <gst/cuda/gstcudautils.h>
#include <gst/cuda/gstcudamemory.h>

GST_DEBUG_CATEGORY_STATIC (gst_cuda_sem_base_debug);
#define GST_CAT_DEFAULT gst_cuda_sem_base_debug

enum
{
  PROP_SEMAPHORE = GST_CUDA_SYNC_BASE_TRANSFORM_PROP_LAST,
  PROP_SKIP_NVSCIBUF_MEMSYNC,
};

/* priv->lock guards the properties; it is held only briefly, never while
 * calling out of the element (queries, messages, the driver) nor into the
 * base class (whose lock it therefore never nests). The subclasses'
 * GST_OBJECT_LOCK guards their own properties; the two are never nested.
 * @start_sem is start()'s alone. */
typedef struct
{
  GMutex lock;
  GstCudaSemaphore *semaphore;  /* property */
  /* between start() and stop(): the semaphore property is in use (the
   * element's CUDA context comes from it, the ALLOCATION query offers it)
   * and cannot change */
  gboolean started;
  gboolean skip_nvscibuf_memsync;
  /* start(): the semaphore it read, for open_context() */
  GstCudaSemaphore *start_sem;
} GstCudaSemBasePrivate;

G_DEFINE_ABSTRACT_TYPE_WITH_PRIVATE (GstCudaSemBase,
    gst_cuda_sem_base, GST_TYPE_CUDA_SYNC_BASE_TRANSFORM);

#define PRIV(self) ((GstCudaSemBasePrivate *) \
    gst_cuda_sem_base_get_instance_private (GST_CUDA_SEM_BASE (self)))

#define BASE(self) GST_CUDA_SYNC_BASE_TRANSFORM (self)
#define CONTEXT(self) gst_cuda_sync_base_transform_get_context (BASE (self))
#define parent_class gst_cuda_sem_base_parent_class

static void gst_cuda_sem_base_finalize (GObject * object);
static void gst_cuda_sem_base_set_property (GObject * object,
    guint prop_id, const GValue * value, GParamSpec * pspec);
static void gst_cuda_sem_base_get_property (GObject * object,
    guint prop_id, GValue * value, GParamSpec * pspec);
static gboolean gst_cuda_sem_base_start (GstBaseTransform * trans);
static gboolean gst_cuda_sem_base_stop (GstBaseTransform * trans);
static gboolean gst_cuda_sem_base_open_context (GstCudaSyncBaseTransform
    * base);

static void
gst_cuda_sem_base_class_init (GstCudaSemBaseClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstBaseTransformClass *trans_class = GST_BASE_TRANSFORM_CLASS (klass);
  GstCudaSyncBaseTransformClass *base_class =
      GST_CUDA_SYNC_BASE_TRANSFORM_CLASS (klass);

  gobject_class->finalize = gst_cuda_sem_base_finalize;
  gobject_class->set_property = gst_cuda_sem_base_set_property;
  gobject_class->get_property = gst_cuda_sem_base_get_property;

  gst_cuda_sync_base_transform_class_install_properties (gobject_class,
      "CUDA device to use when no context is shared by the pipeline or "
      "given by the semaphore (-1: any)");
  /**
   * GstCudaSemBase:semaphore:
   *
   * An external semaphore (#GstCudaSemaphore) the application imported:
   * cudasemsignal signals it, cudasemwait offers it upstream. Its CUDA
   * context becomes the element's. It can change in the NULL and READY
   * states only; in PAUSED and PLAYING a change is refused with a warning
   * and the semaphore in use stays.
   */
  g_object_class_install_property (gobject_class, PROP_SEMAPHORE,
      g_param_spec_object ("semaphore", "Semaphore",
          "External semaphore (GstCudaSemaphore) set by the application; its "
          "CUDA context becomes the element's. Can be set in NULL and READY "
          "only: in PAUSED and PLAYING a change is refused with a warning",
          GST_TYPE_CUDA_SEMAPHORE,
          G_PARAM_READWRITE | GST_PARAM_MUTABLE_READY |
          G_PARAM_STATIC_STRINGS));
  /**
   * GstCudaSemBase:skip-nvscibuf-memsync:
   *
   * For NvSciSync semaphores only: signal and wait with
   * `CUDA_EXTERNAL_SEMAPHORE_{SIGNAL,WAIT}_SKIP_NVSCIBUF_MEMSYNC`, without
   * making NvSciBuf memory imported into CUDA coherent. Only for when no
   * NvSciBuf data is shared through the semaphore; also in effect when the
   * semaphore's own `skip-nvscibuf-memsync` is set.
   */
  g_object_class_install_property (gobject_class, PROP_SKIP_NVSCIBUF_MEMSYNC,
      g_param_spec_boolean ("skip-nvscibuf-memsync", "Skip NvSciBuf memsync",
          "NvSciSync semaphores only: signal/wait with CUDA_EXTERNAL_SEMAPHORE_"
          "{SIGNAL,WAIT}_SKIP_NVSCIBUF_MEMSYNC, i.e. without making NvSciBuf "
          "memory imported into CUDA coherent (only when no NvSciBuf data is "
          "shared through the semaphore; also on when the semaphore's own "
          "skip-nvscibuf-memsync is set)", FALSE,
          G_PARAM_READWRITE | GST_PARAM_MUTABLE_PLAYING |
          G_PARAM_STATIC_STRINGS));

  trans_class->start = GST_DEBUG_FUNCPTR (gst_cuda_sem_base_start);
  trans_class->stop = GST_DEBUG_FUNCPTR (gst_cuda_sem_base_stop);
  base_class->open_context = GST_DEBUG_FUNCPTR (gst_cuda_sem_base_open_context);

  GST_DEBUG_CATEGORY_INIT (gst_cuda_sem_base_debug,
      "cudasembase", 0, "semaphore elements' base");

  gst_type_mark_as_plugin_api (GST_TYPE_CUDA_SEM_BASE, 0);
}

static void
gst_cuda_sem_base_init (GstCudaSemBase * self)
{
  GstCudaSemBasePrivate *priv = PRIV (self);

  g_mutex_init (&priv->lock);
}

static void
gst_cuda_sem_base_finalize (GObject * object)
{
  GstCudaSemBasePrivate *priv = PRIV (object);

  gst_clear_object (&priv->semaphore);
  g_mutex_clear (&priv->lock);

  G_OBJECT_CLASS (parent_class)->finalize (object);
}

/* The property: refused while the element runs, whose CUDA context and
 * negotiation with its neighbours come from the semaphore of its start */
static void
set_semaphore (GstCudaSemBase * self, GstCudaSemaphore * sem)
{
  GstCudaSemBasePrivate *priv = PRIV (self);
  GstCudaSemaphore *old;

  g_mutex_lock (&priv->lock);
  if (priv->started) {
    g_mutex_unlock (&priv->lock);
    g_warning ("%s: the semaphore property cannot change in PAUSED or "
        "PLAYING (the element's CUDA context and what it negotiated with "
        "its neighbours come from it): set it in NULL or READY; the "
        "semaphore in use stays", GST_OBJECT_NAME (self));
    return;
  }
  old = priv->semaphore;
  priv->semaphore = sem ? gst_object_ref (sem) : NULL;
  g_mutex_unlock (&priv->lock);
  gst_clear_object (&old);
}

static void
gst_cuda_sem_base_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  GstCudaSemBasePrivate *priv = PRIV (object);

  switch (prop_id) {
    case PROP_SKIP_NVSCIBUF_MEMSYNC:
      g_mutex_lock (&priv->lock);
      priv->skip_nvscibuf_memsync = g_value_get_boolean (value);
      g_mutex_unlock (&priv->lock);
      break;
    case PROP_SEMAPHORE:
      set_semaphore (GST_CUDA_SEM_BASE (object), g_value_get_object (value));
      break;
    default:
      G_OBJECT_CLASS (parent_class)->set_property
          (object, prop_id, value, pspec);
      break;
  }
}

static void
gst_cuda_sem_base_get_property (GObject * object, guint prop_id,
    GValue * value, GParamSpec * pspec)
{
  GstCudaSemBasePrivate *priv = PRIV (object);

  switch (prop_id) {
    case PROP_SEMAPHORE:
      g_mutex_lock (&priv->lock);
      g_value_set_object (value, priv->semaphore);
      g_mutex_unlock (&priv->lock);
      break;
    case PROP_SKIP_NVSCIBUF_MEMSYNC:
      g_value_set_boolean (value,
          gst_cuda_sem_base_get_skip_nvscibuf_memsync
          (GST_CUDA_SEM_BASE (object)));
      break;
    default:
      G_OBJECT_CLASS (parent_class)->get_property
          (object, prop_id, value, pspec);
      break;
  }
}

/* The context the element starts with: the semaphore property's (the
 * value start() read), else the base class's choice */
static gboolean
gst_cuda_sem_base_open_context (GstCudaSyncBaseTransform * base)
{
  GstCudaSemBase *self = GST_CUDA_SEM_BASE (base);
  GstCudaSemBasePrivate *priv = PRIV (self);
  GstCudaSemaphore *sem = g_steal_pointer (&priv->start_sem);
  GstCudaContext *sem_ctx;
  GError *err = NULL;
  guint sem_dev = 0;
  gint want_dev;

  if (!sem)
    return GST_CUDA_SYNC_BASE_TRANSFORM_CLASS (parent_class)->open_context
        (base);

  sem_ctx = gst_cuda_semaphore_get_context (sem);
  want_dev = gst_cuda_sync_base_transform_get_device_id (base);
  g_object_get (sem_ctx, "cuda-device-id", &sem_dev, NULL);
  /* a semaphore is valid in one context only: it cannot serve another
   * device the element was told to use */
  if (want_dev >= 0 && (guint) want_dev != sem_dev) {
    gst_object_unref (sem);
    GST_ELEMENT_ERROR (self, RESOURCE, SETTINGS,
        ("The semaphore was imported into CUDA device %u, but "
            "cuda-device-id is %d", sem_dev, want_dev),
        ("a semaphore is valid only in the context it was imported into; "
            "leave cuda-device-id at -1 or import it on device %d", want_dev));
    return FALSE;
  }

  /* The semaphore is only valid in the context it was imported into, so
   * that context is the element's (and is offered to its neighbours). */
  if (CONTEXT (self) && CONTEXT (self) != sem_ctx) {
    gboolean ok = gst_cuda_semaphore_check_context (sem, CONTEXT (self),
        &err);
    g_assert (!ok);
    gst_object_unref (sem);
    GST_CUDA_SYNC_ELEMENT_ERROR (self, err,
        "The semaphore property does not match the pipeline's CUDA context");
    return FALSE;
  }
  gst_cuda_sync_base_transform_adopt_context (base, sem_ctx);
  gst_object_unref (sem);
  return TRUE;
}

/* The base class opens the CUDA side (driver, context, stream) */
static gboolean
gst_cuda_sem_base_start (GstBaseTransform * trans)
{
  GstCudaSemBasePrivate *priv = PRIV (trans);
  gboolean ok;

  /* the semaphore read here is the element's until stop() */
  g_mutex_lock (&priv->lock);
  priv->started = TRUE;
  priv->start_sem = priv->semaphore ? gst_object_ref (priv->semaphore) : NULL;
  g_mutex_unlock (&priv->lock);

  ok = GST_BASE_TRANSFORM_CLASS (parent_class)->start (trans);
  gst_clear_object (&priv->start_sem);
  /* GstBaseTransform calls no stop() after a failed start() (the stream
   * is made last: a failed start made none) */
  if (!ok) {
    g_mutex_lock (&priv->lock);
    priv->started = FALSE;
    g_mutex_unlock (&priv->lock);
  }
  return ok;
}

static gboolean
gst_cuda_sem_base_stop (GstBaseTransform * trans)
{
  GstCudaSemBasePrivate *priv = PRIV (trans);
  gboolean ret = GST_BASE_TRANSFORM_CLASS (parent_class)->stop (trans);

  g_mutex_lock (&priv->lock);
  priv->started = FALSE;
  g_mutex_unlock (&priv->lock);
  return ret;
}

GstCudaContext *
gst_cuda_sem_base_get_context (GstCudaSemBase * self)
{
  return CONTEXT (self);
}

GstCudaSemaphore *
gst_cuda_sem_base_dup_semaphore (GstCudaSemBase * self)
{
  GstCudaSemBasePrivate *priv = PRIV (self);
  GstCudaSemaphore *sem;

  g_mutex_lock (&priv->lock);
  sem = priv->semaphore ? gst_object_ref (priv->semaphore) : NULL;
  g_mutex_unlock (&priv->lock);
  return sem;
}

gboolean
gst_cuda_sem_base_get_skip_nvscibuf_memsync (GstCudaSemBase * self)
{
  GstCudaSemBasePrivate *priv = PRIV (self);
  gboolean skip;

  g_mutex_lock (&priv->lock);
  skip = priv->skip_nvscibuf_memsync;
  g_mutex_unlock (&priv->lock);
  return skip;
}

/* the flags of the element's NvSciSync signals and waits */
GstCudaSyncFlags
gst_cuda_sem_base_get_flags (GstCudaSemBase * self)
{
  return gst_cuda_sem_base_get_skip_nvscibuf_memsync (self) ?
      GST_CUDA_SYNC_FLAG_SKIP_NVSCIBUF_MEMSYNC : GST_CUDA_SYNC_FLAG_NONE;
}

void
gst_cuda_sem_base_count (GstCudaSemBase * self,
    GstCudaSyncCounter counter, guint64 add)
{
  gst_cuda_sync_base_transform_count (BASE (self), counter, add);
}

void
gst_cuda_sem_base_count_signal (GstCudaSemBase * self, guint64 value)
{
  gst_cuda_sync_base_transform_count_and_set (BASE (self),
      GST_CUDA_SEM_COUNTER_SIGNALS, 1, GST_CUDA_SEM_COUNTER_LAST_VALUE, value);
}

gboolean
gst_cuda_sem_base_check_input (GstCudaSemBase * self, GstBuffer * buffer)
{
  guint i, n = gst_buffer_n_memory (buffer);

  if (n == 0) {
    GST_ELEMENT_ERROR (self, STREAM, FORMAT, ("Empty buffer"),
        ("buffer %" GST_PTR_FORMAT " has no memory", buffer));
    return FALSE;
  }
  for (i = 0; i < n; i++) {
    if (!gst_cuda_sync_element_check_memory (GST_ELEMENT (self),
            gst_buffer_peek_memory (buffer, i), CONTEXT (self)))
      return FALSE;
  }
  return TRUE;
}

gboolean
gst_cuda_sem_base_check_semaphore (GstCudaSemBase * self,
    GstCudaSemaphore * sem, const gchar * what)
{
  GError *err = NULL;

  if (gst_cuda_semaphore_check_context (sem, CONTEXT (self), &err))
    return TRUE;
  GST_CUDA_SYNC_ELEMENT_ERROR (self, err, what);
  return FALSE;
}

/* The stream to work on for @buffer (checked with _check_input()): on
 * GStreamer 1.24+ the stream its first memory carries, so that the work
 * covers exactly the producer's, with no hop between streams; otherwise
 * (1.22, or memory without a stream) the element's own blocking stream.
 * The work still pending on the streams of the other memories is ordered
 * before it on the GPU. FALSE with @error set when a driver call failed. */
gboolean
gst_cuda_sem_base_input_stream (GstCudaSemBase * self,
    GstBuffer * buffer, CUstream * stream, GError ** error)
{
  CUstream s = gst_cuda_sync_memory_get_stream (gst_buffer_peek_memory
      (buffer, 0));
  guint i, n = gst_buffer_n_memory (buffer);

  if (!s)
    s = gst_cuda_sync_base_transform_get_stream (BASE (self));
  for (i = 0; i < n; i++) {
    if (!gst_cuda_sync_memory_wait_pending (gst_buffer_peek_memory (buffer,
                i), s, error))
      return FALSE;
  }
  *stream = s;
  return TRUE;
}

/* Waits on @stream, on the GPU, for @meta's acquire points (each on a
 * semaphore of the element's context) and counts them; element error
 * otherwise */
gboolean
gst_cuda_sem_base_wait_acquire (GstCudaSemBase * self,
    GstCudaSyncMeta * meta, CUstream stream)
{
  GError *err = NULL;
  guint n = 0;

  if (!gst_cuda_sync_meta_wait_gpu_checked (meta, CONTEXT (self),
          stream, gst_cuda_sem_base_get_flags (self), &n, &err)) {
    GST_CUDA_SYNC_ELEMENT_ERROR (self, err,
        "Could not wait for the incoming buffer's acquire points");
    return FALSE;
  }
  gst_cuda_sem_base_count (self, GST_CUDA_SEM_COUNTER_WAITS, n);
  return TRUE;
}

/* Blocks on @stream (where the buffer's work is): counted in cpu-syncs. */
gboolean
gst_cuda_sem_base_cpu_sync (GstCudaSemBase * self, CUstream stream)
{
  GError *err = NULL;
  CUresult r;

  if (!gst_cuda_context_push (CONTEXT (self))) {
    GST_ELEMENT_ERROR (self, RESOURCE, FAILED,
        ("Could not make the CUDA context current"), (NULL));
    return FALSE;
  }
  r = CuStreamSynchronize (stream);
  gst_cuda_context_pop (NULL);
  gst_cuda_sem_base_count (self, GST_CUDA_SEM_COUNTER_CPU_SYNCS, 1);
  if (!gst_cuda_sync_check_result (r, "cuStreamSynchronize", &err)) {
    GST_CUDA_SYNC_ELEMENT_ERROR (self, err,
        "CUDA stream synchronisation failed");
    return FALSE;
  }
  return TRUE;
}

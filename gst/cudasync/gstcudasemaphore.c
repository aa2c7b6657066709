/* gst-cudasync
 * Copyright (C) 2026 gst-cudasync developers
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
/**
 * GstCudaSemaphore:
 *
 * An external semaphore shared between CUDA and another API.
 *
 * A #GstCudaSemaphore wraps a `CUexternalSemaphore` imported into a
 * #GstCudaContext from a Vulkan timeline semaphore fd, a binary (opaque) fd,
 * or an NvSciSync object, and enqueues signal and wait operations on CUDA
 * streams. It enforces the driver's rules:
 *
 * - after a successful fd import the driver owns the fd; on failure the fd
 *   stays the caller's to close;
 * - a semaphore imported from fds has one object at a time: importing
 *   another fd of it (a dup()) while that object is alive returns it
 *   (gst_cuda_semaphore_import_fd()), so that its values keep increasing;
 * - timeline values strictly increase: gst_cuda_semaphore_signal() reserves
 *   the next value under a lock and, when consecutive signals are enqueued on
 *   different streams, orders the new signal after the previous one on the
 *   GPU (a wait for the previous value), so that concurrent signallers
 *   never make the value go backwards;
 * - a binary semaphore may not be signalled again by this object before its
 *   previous signal has been waited for;
 * - an NvSciSync signal writes an `NvSciSyncFence` (at the call, into
 *   storage that must be cleared: the driver overwrites it) and consecutive
 *   signals on different streams are ordered like timeline signals, so that
 *   deterministic fence values (+1 per signal) are reached in order; an
 *   NvSciSync object allocated without signal (wait) permission for CUDA
 *   fails the signal (wait) with %GST_CUDA_SYNC_ERROR_NOT_SUPPORTED;
 * - the driver object is destroyed only after every operation enqueued on
 *   it has completed, by the library's releaser thread, never by blocking the
 *   thread that drops the last reference.
 *
 * Since: 0.1
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstcudasemaphore-private.h"
#include <fcntl.h>
#include <errno.h>
#include <string.h>

GST_DEBUG_CATEGORY (gst_cuda_semaphore_debug);
#define GST_CAT_DEFAULT gst_cuda_semaphore_debug

G_DEFINE_ENUM_TYPE (GstCudaSemaphoreHandleType, gst_cuda_semaphore_handle_type,
    G_DEFINE_ENUM_VALUE (GST_CUDA_SEMAPHORE_HANDLE_TYPE_TIMELINE_FD,
        "timeline-fd"),
    G_DEFINE_ENUM_VALUE (GST_CUDA_SEMAPHORE_HANDLE_TYPE_OPAQUE_FD, "opaque-fd"),
    G_DEFINE_ENUM_VALUE (GST_CUDA_SEMAPHORE_HANDLE_TYPE_NVSCISYNC,
        "nvscisync"));

G_DEFINE_FLAGS_TYPE (GstCudaSyncFlags, gst_cuda_sync_flags,
    G_DEFINE_ENUM_VALUE (GST_CUDA_SYNC_FLAG_NONE, "none"),
    G_DEFINE_ENUM_VALUE (GST_CUDA_SYNC_FLAG_SKIP_NVSCIBUF_MEMSYNC,
        "skip-nvscibuf-memsync"));

G_DEFINE_FLAGS_TYPE (GstCudaSemaphoreHandleTypeFlags,
    gst_cuda_semaphore_handle_type_flags,
    G_DEFINE_ENUM_VALUE (GST_CUDA_SEMAPHORE_HANDLE_TYPE_FLAG_NONE, "none"),
    G_DEFINE_ENUM_VALUE (GST_CUDA_SEMAPHORE_HANDLE_TYPE_FLAG_TIMELINE_FD,
        "timeline-fd"),
    G_DEFINE_ENUM_VALUE (GST_CUDA_SEMAPHORE_HANDLE_TYPE_FLAG_OPAQUE_FD,
        "opaque-fd"),
    G_DEFINE_ENUM_VALUE (GST_CUDA_SEMAPHORE_HANDLE_TYPE_FLAG_NVSCISYNC,
        "nvscisync"));

enum
{
  PROP_0,
  PROP_HANDLE_TYPE,
  PROP_LAST_VALUE,
  PROP_CONTEXT,
  PROP_SKIP_NVSCIBUF_MEMSYNC,
};

G_DEFINE_TYPE (GstCudaSemaphore, gst_cuda_semaphore, GST_TYPE_OBJECT);

static void gst_cuda_semaphore_finalize (GObject * object);
static void gst_cuda_semaphore_get_property (GObject * object, guint prop_id,
    GValue * value, GParamSpec * pspec);
static void gst_cuda_semaphore_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec);

static void
gst_cuda_semaphore_class_init (GstCudaSemaphoreClass * klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  _gst_cuda_semaphore_init_debug ();
  object_class->finalize = gst_cuda_semaphore_finalize;
  object_class->get_property = gst_cuda_semaphore_get_property;
  object_class->set_property = gst_cuda_semaphore_set_property;

  /**
   * GstCudaSemaphore:handle-type:
   *
   * The kind of external semaphore, as gst_cuda_semaphore_get_handle_type().
   *
   * Since: 0.1
   */
  g_object_class_install_property (object_class, PROP_HANDLE_TYPE,
      g_param_spec_enum ("handle-type", "Handle type",
          "The kind of external semaphore",
          GST_TYPE_CUDA_SEMAPHORE_HANDLE_TYPE,
          GST_CUDA_SEMAPHORE_HANDLE_TYPE_TIMELINE_FD,
          G_PARAM_READABLE | G_PARAM_STATIC_STRINGS));
  /**
   * GstCudaSemaphore:last-value:
   *
   * The value of the last signal enqueued, as
   * gst_cuda_semaphore_get_last_value().
   *
   * Since: 0.1
   */
  g_object_class_install_property (object_class, PROP_LAST_VALUE,
      g_param_spec_uint64 ("last-value", "Last value",
          "Last timeline value enqueued for signalling (0: none)",
          0, G_MAXUINT64, 0, G_PARAM_READABLE | G_PARAM_STATIC_STRINGS));
  /**
   * GstCudaSemaphore:context:
   *
   * The CUDA context the semaphore was imported into, as
   * gst_cuda_semaphore_get_context().
   *
   * Since: 0.1
   */
  g_object_class_install_property (object_class, PROP_CONTEXT,
      g_param_spec_object ("context", "CUDA context",
          "The CUDA context the semaphore was imported into",
          GST_TYPE_CUDA_CONTEXT, G_PARAM_READABLE | G_PARAM_STATIC_STRINGS));

  /**
   * GstCudaSemaphore:skip-nvscibuf-memsync:
   *
   * NvSciSync semaphores only: signal with
   * `CUDA_EXTERNAL_SEMAPHORE_SIGNAL_SKIP_NVSCIBUF_MEMSYNC` and wait with
   * `CUDA_EXTERNAL_SEMAPHORE_WAIT_SKIP_NVSCIBUF_MEMSYNC`. See
   * gst_cuda_semaphore_set_skip_nvscibuf_memsync().
   *
   * Since: 0.1
   */
  g_object_class_install_property (object_class, PROP_SKIP_NVSCIBUF_MEMSYNC,
      g_param_spec_boolean ("skip-nvscibuf-memsync", "Skip NvSciBuf memsync",
          "NvSciSync semaphores only: skip the memory synchronisation of "
          "NvSciBuf memory imported into CUDA when signalling and waiting "
          "(only when no NvSciBuf data is shared through this semaphore)",
          FALSE, G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS));
}

void
_gst_cuda_semaphore_init_debug (void)
{
  static gsize once = 0;

  if (g_once_init_enter (&once)) {
    GST_DEBUG_CATEGORY_INIT (gst_cuda_semaphore_debug, "cudasemaphore", 0,
        "GstCudaSemaphore");
    g_once_init_leave (&once, 1);
  }
}

static void
gst_cuda_semaphore_init (GstCudaSemaphore * self)
{
  g_mutex_init (&self->op_lock);
  self->stream_events = g_array_new (FALSE, FALSE, sizeof (StreamEvent));
}

static void
gst_cuda_semaphore_get_property (GObject * object, guint prop_id,
    GValue * value, GParamSpec * pspec)
{
  GstCudaSemaphore *self = GST_CUDA_SEMAPHORE (object);

  switch (prop_id) {
    case PROP_HANDLE_TYPE:
      g_value_set_enum (value, self->type);
      break;
    case PROP_LAST_VALUE:
      g_value_set_uint64 (value, gst_cuda_semaphore_get_last_value (self));
      break;
    case PROP_CONTEXT:
      g_value_set_object (value, self->context);
      break;
    case PROP_SKIP_NVSCIBUF_MEMSYNC:
      g_value_set_boolean (value,
          gst_cuda_semaphore_get_skip_nvscibuf_memsync (self));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
}

static void
gst_cuda_semaphore_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  GstCudaSemaphore *self = GST_CUDA_SEMAPHORE (object);

  switch (prop_id) {
    case PROP_SKIP_NVSCIBUF_MEMSYNC:
      gst_cuda_semaphore_set_skip_nvscibuf_memsync (self,
          g_value_get_boolean (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
}

static void
destroy_handle (GstCudaContext * context, gpointer data)
{
  CUexternalSemaphore handle = data;
  CUresult r = GST_CUDA_SYNC_CALL (cuDestroyExternalSemaphore) (handle);

  if (r != CUDA_SUCCESS)
    GST_WARNING ("cuDestroyExternalSemaphore: %s",
        _gst_cuda_sync_result_name (r));
}

/* Enqueues on @stream a wait for the last value this object signalled
 * (timeline); call with the context pushed */
static CUresult
wait_last_signalled (GstCudaSemaphore * self, CUstream stream)
{
  CUDA_EXTERNAL_SEMAPHORE_WAIT_PARAMS wp;

  memset (&wp, 0, sizeof (wp));
  wp.params.fence.value = self->last_signalled;
  return GST_CUDA_SYNC_CALL (cuWaitExternalSemaphoresAsync) (&self->handle,
      &wp, 1, stream);
}

/* Timeline signals record no event: an event that completes once the
 * semaphore has reached the last value this object signalled (a wait on a
 * private stream), so that destruction waits for every signal. NULL if it
 * could not be set up (then destruction synchronises the context). */
static CUevent
wait_last_value (GstCudaSemaphore * self)
{
  CUstream stream = NULL;
  CUevent ev = NULL;
  CUresult r;

  if (!gst_cuda_context_push (self->context)) {
    GST_WARNING_OBJECT (self, "cannot push the CUDA context to wait for the "
        "last value: the context will be synchronised instead");
    return NULL;
  }
  r = GST_CUDA_SYNC_CALL (cuStreamCreate) (&stream, CU_STREAM_NON_BLOCKING);
  if (r == CUDA_SUCCESS)
    r = wait_last_signalled (self, stream);
  if (r == CUDA_SUCCESS)
    r = GST_CUDA_SYNC_CALL (cuEventCreate) (&ev, CU_EVENT_DISABLE_TIMING);
  if (r == CUDA_SUCCESS)
    r = GST_CUDA_SYNC_CALL (cuEventRecord) (ev, stream);
  if (r != CUDA_SUCCESS) {
    GST_WARNING_OBJECT (self, "cannot wait for the last value (%s): the "
        "context will be synchronised instead",
        _gst_cuda_sync_result_name (r));
    if (ev)
      GST_CUDA_SYNC_CALL (cuEventDestroy) (ev);
    ev = NULL;
  }
  /* released by the driver once its work is done */
  if (stream)
    GST_CUDA_SYNC_CALL (cuStreamDestroy) (stream);
  gst_cuda_context_pop (NULL);
  return ev;
}

static void
gst_cuda_semaphore_finalize (GObject * object)
{
  GstCudaSemaphore *self = GST_CUDA_SEMAPHORE (object);

  /* first: the semaphore may be imported again (a new object) from now on */
  if (self->type != GST_CUDA_SEMAPHORE_HANDLE_TYPE_NVSCISYNC)
    _gst_cuda_semaphore_forget_fd (self);

  if (self->handle) {
    GArray *events = g_array_new (FALSE, FALSE, sizeof (CUevent));
    guint i;
    gboolean sync_context = self->untracked_ops;

    for (i = 0; i < self->stream_events->len; i++) {
      StreamEvent *se = &g_array_index (self->stream_events, StreamEvent, i);
      g_array_append_val (events, se->event);
    }
    if (self->type == GST_CUDA_SEMAPHORE_HANDLE_TYPE_TIMELINE_FD &&
        self->has_signalled) {
      CUevent ev = wait_last_value (self);

      if (ev)
        g_array_append_val (events, ev);
      else
        sync_context = TRUE;
    }
    /* destroyed once everything enqueued on it has run, on the library's
     * releaser thread: where no event covers it, after synchronising the
     * context there (never on the caller's thread, which may stream), and
     * never if even that fails */
    _gst_cuda_sync_defer (self->context, events, sync_context, destroy_handle,
        self->handle);
  }

  g_array_unref (self->stream_events);
  g_mutex_clear (&self->op_lock);
  gst_clear_object (&self->context);

  G_OBJECT_CLASS (gst_cuda_semaphore_parent_class)->finalize (object);
}

/**
 * gst_cuda_semaphore_get_handle_type:
 * @sem: a #GstCudaSemaphore
 *
 * Gets the kind of external semaphore @sem wraps.
 *
 * Returns: the handle type @sem was imported from
 *
 * Since: 0.1
 */
GstCudaSemaphoreHandleType
gst_cuda_semaphore_get_handle_type (GstCudaSemaphore * sem)
{
  g_return_val_if_fail (GST_IS_CUDA_SEMAPHORE (sem), 0);
  return sem->type;
}

/**
 * gst_cuda_semaphore_get_context:
 * @sem: a #GstCudaSemaphore
 *
 * Gets the CUDA context @sem was imported into, the only one it is valid in.
 *
 * Returns: (transfer none): the #GstCudaContext @sem belongs to
 *
 * Since: 0.1
 */
GstCudaContext *
gst_cuda_semaphore_get_context (GstCudaSemaphore * sem)
{
  g_return_val_if_fail (GST_IS_CUDA_SEMAPHORE (sem), NULL);
  return sem->context;
}

/**
 * gst_cuda_semaphore_is_timeline:
 * @sem: a #GstCudaSemaphore
 *
 * Tells a timeline semaphore from a binary or NvSciSync one.
 *
 * Returns: %TRUE when @sem carries a 64-bit timeline value
 *
 * Since: 0.1
 */
gboolean
gst_cuda_semaphore_is_timeline (GstCudaSemaphore * sem)
{
  g_return_val_if_fail (GST_IS_CUDA_SEMAPHORE (sem), FALSE);
  return sem->type == GST_CUDA_SEMAPHORE_HANDLE_TYPE_TIMELINE_FD;
}

/**
 * gst_cuda_semaphore_get_last_value:
 * @sem: a #GstCudaSemaphore
 *
 * Gets the value of the last signal this object enqueued.
 *
 * Returns: the last timeline value this object enqueued for signalling (or
 * the value set with gst_cuda_semaphore_advance_to()); 0 if none. For an
 * NvSciSync semaphore: the number of signals enqueued through this object,
 * which is the value of the last fence when the NvSciSync object has
 * deterministic fences and is signalled only through this object.
 *
 * Since: 0.1
 */
guint64
gst_cuda_semaphore_get_last_value (GstCudaSemaphore * sem)
{
  guint64 v;

  g_return_val_if_fail (GST_IS_CUDA_SEMAPHORE (sem), 0);
  g_mutex_lock (&sem->op_lock);
  v = sem->last_value;
  g_mutex_unlock (&sem->op_lock);
  return v;
}

/**
 * gst_cuda_semaphore_advance_to:
 * @sem: a #GstCudaSemaphore
 * @value: a timeline value already reached or reserved elsewhere
 *
 * Tells @sem that the timeline has been signalled up to @value by another
 * party (for example a semaphore created by Vulkan with a non-zero initial
 * value), so the next value gst_cuda_semaphore_signal() uses is above it.
 * Never moves the value backwards.
 *
 * Since: 0.1
 */
void
gst_cuda_semaphore_advance_to (GstCudaSemaphore * sem, guint64 value)
{
  g_return_if_fail (GST_IS_CUDA_SEMAPHORE (sem));
  g_mutex_lock (&sem->op_lock);
  if (value > sem->last_value)
    sem->last_value = value;
  g_mutex_unlock (&sem->op_lock);
}

/* call with op_lock and the context pushed */
static StreamEvent *
find_stream_event (GstCudaSemaphore * self, CUstream stream)
{
  guint i;

  for (i = 0; i < self->stream_events->len; i++) {
    StreamEvent *se = &g_array_index (self->stream_events, StreamEvent, i);
    if (se->stream == stream)
      return se;
  }
  return NULL;
}

/* call with op_lock and the context pushed */
static gboolean
record_op (GstCudaSemaphore * self, CUstream stream, GError ** error)
{
  StreamEvent *se = find_stream_event (self, stream);
  CUresult r;

  if (!se) {
    StreamEvent n = { stream, NULL };
    r = GST_CUDA_SYNC_CALL (cuEventCreate) (&n.event, CU_EVENT_DISABLE_TIMING);
    if (!_gst_cuda_sync_result (r, "cuEventCreate", error))
      return FALSE;
    g_array_append_val (self->stream_events, n);
    se = &g_array_index (self->stream_events, StreamEvent,
        self->stream_events->len - 1);
  }
  r = GST_CUDA_SYNC_CALL (cuEventRecord) (se->event, stream);
  return _gst_cuda_sync_result (r, "cuEventRecord", error);
}

/* Enqueues one signal or wait. Call with op_lock held. */
gboolean
_gst_cuda_semaphore_enqueue_locked (GstCudaSemaphore * self, OpKind kind,
    CUstream stream, guint64 value, guint8 * fence, guint flags,
    GError ** error)
{
  CUresult r;
  gboolean ret = FALSE;
  /* NvSciSyncFence (uint64_t payload[6]) storage with the alignment the
   * driver expects, whatever the caller's bytes have */
  guint64 nvsci_fence[GST_CUDA_NVSCI_FENCE_SIZE / 8] = { 0, };

  if (!gst_cuda_context_push (self->context)) {
    g_set_error (error, GST_CUDA_SYNC_ERROR, GST_CUDA_SYNC_ERROR_DRIVER,
        "Could not make the CUDA context current");
    return FALSE;
  }

  if (kind == OP_SIGNAL) {
    CUDA_EXTERNAL_SEMAPHORE_SIGNAL_PARAMS params;

    /* Order this signal after the previous one when it was enqueued on
     * another stream: the value (timeline) or the fence count (NvSci) must
     * progress in enqueue order on the GPU too. A timeline semaphore does it
     * with itself (wait for the previous value; recorded below like any
     * wait), so that its signals need no event of their own; the others
     * wait for the event recorded after the previous signal. */
    if (self->has_signalled && self->last_signal_stream != stream &&
        self->type == GST_CUDA_SEMAPHORE_HANDLE_TYPE_TIMELINE_FD) {
      r = wait_last_signalled (self, stream);
      if (!_gst_cuda_sync_result (r, "cuWaitExternalSemaphoresAsync", error))
        goto out;
      if (!record_op (self, stream, error)) {
        self->untracked_ops = TRUE;
        goto out;
      }
    } else if (self->has_signalled && self->last_signal_stream != stream) {
      StreamEvent *prev = find_stream_event (self, self->last_signal_stream);
      if (prev) {
        r = GST_CUDA_SYNC_CALL (cuStreamWaitEvent) (stream, prev->event, 0);
        if (!_gst_cuda_sync_result (r, "cuStreamWaitEvent", error))
          goto out;
      }
    }
    /* A binary signal must also run after the wait that consumed the
     * previous one (one wait per signal, in GPU order too). */
    if (self->type == GST_CUDA_SEMAPHORE_HANDLE_TYPE_OPAQUE_FD &&
        self->has_waited && self->last_wait_stream != stream) {
      StreamEvent *prev = find_stream_event (self, self->last_wait_stream);
      if (prev) {
        r = GST_CUDA_SYNC_CALL (cuStreamWaitEvent) (stream, prev->event, 0);
        if (!_gst_cuda_sync_result (r, "cuStreamWaitEvent", error))
          goto out;
      }
    }

    memset (&params, 0, sizeof (params));
    if (self->type == GST_CUDA_SEMAPHORE_HANDLE_TYPE_NVSCISYNC)
      params.params.nvSciSync.fence = nvsci_fence;      /* written here */
    else
      params.params.fence.value = value;
    params.flags = flags;
    r = GST_CUDA_SYNC_CALL (cuSignalExternalSemaphoresAsync) (&self->handle,
        &params, 1, stream);
    if (r != CUDA_SUCCESS &&
        self->type == GST_CUDA_SEMAPHORE_HANDLE_TYPE_NVSCISYNC) {
      _gst_cuda_semaphore_nvsci_op_failed (r, kind, error);
      goto out;
    }
    if (!_gst_cuda_sync_result (r, "cuSignalExternalSemaphoresAsync", error))
      goto out;

    self->has_signalled = TRUE;
    self->last_signal_stream = stream;
    if (self->type == GST_CUDA_SEMAPHORE_HANDLE_TYPE_TIMELINE_FD)
      self->last_value = self->last_signalled = value;
    else if (self->type == GST_CUDA_SEMAPHORE_HANDLE_TYPE_OPAQUE_FD)
      self->binary_pending = TRUE;
    else {
      self->last_value++;       /* NvSciSync: signals enqueued */
      memcpy (fence, nvsci_fence, GST_CUDA_NVSCI_FENCE_SIZE);
    }
  } else {
    CUDA_EXTERNAL_SEMAPHORE_WAIT_PARAMS params;

    memset (&params, 0, sizeof (params));
    if (self->type == GST_CUDA_SEMAPHORE_HANDLE_TYPE_NVSCISYNC) {
      /* the driver reads the fence during the call */
      memcpy (nvsci_fence, fence, GST_CUDA_NVSCI_FENCE_SIZE);
      params.params.nvSciSync.fence = nvsci_fence;
    } else {
      params.params.fence.value = value;
    }
    params.flags = flags;
    r = GST_CUDA_SYNC_CALL (cuWaitExternalSemaphoresAsync) (&self->handle,
        &params, 1, stream);
    if (r != CUDA_SUCCESS &&
        self->type == GST_CUDA_SEMAPHORE_HANDLE_TYPE_NVSCISYNC) {
      _gst_cuda_semaphore_nvsci_op_failed (r, kind, error);
      goto out;
    }
    if (!_gst_cuda_sync_result (r, "cuWaitExternalSemaphoresAsync", error))
      goto out;
    if (self->type == GST_CUDA_SEMAPHORE_HANDLE_TYPE_OPAQUE_FD)
      self->binary_pending = FALSE;
    self->has_waited = TRUE;
    self->last_wait_stream = stream;
  }

  /* The operation is enqueued; remember it so that destruction waits for
   * it. Failing to record is reported, and destruction then synchronises
   * the context instead of waiting for events.
   * Timeline signals are not recorded (an event record per signal was a
   * third of the library's cost per signal): destruction waits for the
   * last value instead (gst_cuda_semaphore_finalize()). */
  if (kind == OP_SIGNAL &&
      self->type == GST_CUDA_SEMAPHORE_HANDLE_TYPE_TIMELINE_FD)
    ret = TRUE;
  else if (!(ret = record_op (self, stream, error)))
    self->untracked_ops = TRUE;

out:
  gst_cuda_context_pop (NULL);
  return ret;
}

static gboolean
enqueue (GstCudaSemaphore * self, OpKind kind, CUstream stream, guint64 value,
    guint8 * fence, GError ** error)
{
  gboolean ret;

  g_mutex_lock (&self->op_lock);
  ret = _gst_cuda_semaphore_enqueue_locked (self, kind, stream, value, fence,
      0, error);
  g_mutex_unlock (&self->op_lock);
  return ret;
}

/* NvSciSync semaphores go through fences, the others through values */
gboolean
_gst_cuda_semaphore_check_nvsci (GstCudaSemaphore * sem, gboolean want_nvsci,
    GError ** error)
{
  gboolean is_nvsci = sem->type == GST_CUDA_SEMAPHORE_HANDLE_TYPE_NVSCISYNC;

  if (is_nvsci == want_nvsci)
    return TRUE;
  g_set_error (error, GST_CUDA_SYNC_ERROR, GST_CUDA_SYNC_ERROR_PROTOCOL, "%s",
      is_nvsci ? "NvSciSync semaphores signal and wait through fences: use "
      "gst_cuda_semaphore_signal_nvsci()/wait_nvsci()" :
      "Not an NvSciSync semaphore");
  return FALSE;
}

/**
 * gst_cuda_semaphore_signal:
 * @sem: a #GstCudaSemaphore (timeline or binary)
 * @stream: (type gpointer): the CUDA stream to enqueue the signal on (%NULL:
 *   the legacy default stream) in @sem's context
 * @value: (out) (optional): the timeline value that will be signalled
 *   (0 for a binary semaphore)
 * @error: return location for a #GError
 *
 * Enqueues a signal on @stream, after all work already enqueued there. For a
 * timeline semaphore the next value (last value + 1) is reserved and used;
 * for a binary semaphore it is an error to signal again before the previous
 * signal has been waited for (%GST_CUDA_SYNC_ERROR_PROTOCOL). Never blocks
 * on the GPU.
 *
 * Returns: %TRUE if the signal was enqueued
 *
 * Since: 0.1
 */
gboolean
gst_cuda_semaphore_signal (GstCudaSemaphore * sem, CUstream stream,
    guint64 * value, GError ** error)
{
  gboolean ret;
  guint64 v = 0;

  g_return_val_if_fail (GST_IS_CUDA_SEMAPHORE (sem), FALSE);

  if (!_gst_cuda_semaphore_check_nvsci (sem, FALSE, error))
    return FALSE;

  g_mutex_lock (&sem->op_lock);
  if (sem->type == GST_CUDA_SEMAPHORE_HANDLE_TYPE_OPAQUE_FD &&
      sem->binary_pending) {
    g_mutex_unlock (&sem->op_lock);
    g_set_error (error, GST_CUDA_SYNC_ERROR, GST_CUDA_SYNC_ERROR_PROTOCOL,
        "Binary semaphore signalled again before its previous signal was "
        "waited for (a binary semaphore allows one signal in flight; use a "
        "timeline semaphore for more)");
    return FALSE;
  }
  if (sem->type == GST_CUDA_SEMAPHORE_HANDLE_TYPE_TIMELINE_FD)
    v = sem->last_value + 1;
  ret = _gst_cuda_semaphore_enqueue_locked (sem, OP_SIGNAL, stream, v, NULL, 0,
      error);
  g_mutex_unlock (&sem->op_lock);

  if (ret && value)
    *value = v;
  return ret;
}

/**
 * gst_cuda_semaphore_signal_value:
 * @sem: a timeline #GstCudaSemaphore
 * @stream: (type gpointer): the CUDA stream (%NULL: legacy default stream)
 * @value: the value to signal; must be greater than the last one
 * @error: return location for a #GError
 *
 * Enqueues a signal of an explicit timeline value, for example a release
 * point chosen by a producer. A value not above the last value this object
 * signalled is refused with %GST_CUDA_SYNC_ERROR_PROTOCOL.
 *
 * Returns: %TRUE if the signal was enqueued
 *
 * Since: 0.1
 */
gboolean
gst_cuda_semaphore_signal_value (GstCudaSemaphore * sem, CUstream stream,
    guint64 value, GError ** error)
{
  gboolean ret;

  g_return_val_if_fail (GST_IS_CUDA_SEMAPHORE (sem), FALSE);

  if (sem->type != GST_CUDA_SEMAPHORE_HANDLE_TYPE_TIMELINE_FD)
    return gst_cuda_semaphore_signal (sem, stream, NULL, error);

  g_mutex_lock (&sem->op_lock);
  if (value <= sem->last_value) {
    guint64 last = sem->last_value;
    g_mutex_unlock (&sem->op_lock);
    g_set_error (error, GST_CUDA_SYNC_ERROR, GST_CUDA_SYNC_ERROR_PROTOCOL,
        "Timeline value %" G_GUINT64_FORMAT " is not greater than the last "
        "value %" G_GUINT64_FORMAT, value, last);
    return FALSE;
  }
  ret = _gst_cuda_semaphore_enqueue_locked (sem, OP_SIGNAL, stream, value,
      NULL, 0, error);
  g_mutex_unlock (&sem->op_lock);
  return ret;
}

/**
 * gst_cuda_semaphore_wait:
 * @sem: a #GstCudaSemaphore (timeline or binary)
 * @stream: (type gpointer): the CUDA stream that must wait (%NULL: legacy
 *   default stream)
 * @value: the timeline value to wait for (ignored for binary semaphores)
 * @error: return location for a #GError
 *
 * Enqueues a GPU-side wait: work enqueued on @stream after this call runs
 * only once the semaphore reaches @value (timeline) or is signalled (binary,
 * which the wait then resets). The calling thread does not wait.
 *
 * Returns: %TRUE if the wait was enqueued
 *
 * Since: 0.1
 */
gboolean
gst_cuda_semaphore_wait (GstCudaSemaphore * sem, CUstream stream,
    guint64 value, GError ** error)
{
  g_return_val_if_fail (GST_IS_CUDA_SEMAPHORE (sem), FALSE);

  if (!_gst_cuda_semaphore_check_nvsci (sem, FALSE, error))
    return FALSE;
  return enqueue (sem, OP_WAIT, stream, value, NULL, error);
}

/**
 * gst_cuda_semaphore_check_context:
 * @sem: a #GstCudaSemaphore
 * @context: the #GstCudaContext an element works in
 * @error: return location for a #GError
 *
 * Checks that @sem can be used with streams of @context: it must have been
 * imported into that very context (an imported semaphore is valid only in
 * the context it was imported into).
 *
 * Returns: %TRUE if usable, else %FALSE with %GST_CUDA_SYNC_ERROR_WRONG_DEVICE
 *
 * Since: 0.1
 */
gboolean
gst_cuda_semaphore_check_context (GstCudaSemaphore * sem,
    GstCudaContext * context, GError ** error)
{
  guint sem_dev = 0, dev = 0;

  g_return_val_if_fail (GST_IS_CUDA_SEMAPHORE (sem), FALSE);
  g_return_val_if_fail (GST_IS_CUDA_CONTEXT (context), FALSE);

  if (sem->context == context)
    return TRUE;

  g_object_get (sem->context, "cuda-device-id", &sem_dev, NULL);
  g_object_get (context, "cuda-device-id", &dev, NULL);
  g_set_error (error, GST_CUDA_SYNC_ERROR, GST_CUDA_SYNC_ERROR_WRONG_DEVICE,
      "The semaphore was imported into a CUDA context of device %u, but it is "
      "used with %s CUDA context (device %u); import it into the context the "
      "pipeline shares", sem_dev, sem_dev == dev ? "another" : "a different "
      "device's", dev);
  return FALSE;
}

/**
 * gst_cuda_semaphore_mark_waited:
 * @sem: a binary #GstCudaSemaphore
 *
 * Records that the pending signal of @sem was consumed by a wait that ran
 * outside CUDA (a Vulkan queue submission that waited on it, once its
 * fence has signalled), so that @sem may be signalled again: a binary
 * semaphore takes one wait per signal (gst_cuda_semaphore_signal()).
 * Call it only once that wait is known to have executed.
 *
 * Since: 0.2
 */
void
gst_cuda_semaphore_mark_waited (GstCudaSemaphore * sem)
{
  g_return_if_fail (GST_IS_CUDA_SEMAPHORE (sem));

  g_mutex_lock (&sem->op_lock);
  sem->binary_pending = FALSE;
  g_mutex_unlock (&sem->op_lock);
}

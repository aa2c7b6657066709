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

#define GST_CAT_DEFAULT gst_cuda_semaphore_debug

/* every handle type: the enum, the flags and the dispatch come from here */
static const GstCudaSemaphoreTypeOps *const type_ops[] = {
  &_gst_cuda_semaphore_timeline_ops,
  &_gst_cuda_semaphore_binary_ops,
  &_gst_cuda_semaphore_nvsci_ops,
};

/* the public flags: one bit per type, 1 << (type - 1), all of them in
 * GST_CUDA_SEMAPHORE_HANDLE_TYPE_FLAGS_ALL */
G_STATIC_ASSERT (GST_CUDA_SEMAPHORE_HANDLE_TYPE_FLAGS_ALL ==
    (1 << G_N_ELEMENTS (type_ops)) - 1);

const GstCudaSemaphoreTypeOps *
_gst_cuda_semaphore_get_type_ops (GstCudaSemaphoreHandleType type)
{
  guint i;

  for (i = 0; i < G_N_ELEMENTS (type_ops); i++) {
    if (type_ops[i]->type == type)
      return type_ops[i];
  }
  return NULL;
}

GstCudaSemaphoreHandleTypeFlags
_gst_cuda_semaphore_all_type_flags (void)
{
  guint i, flags = 0;

  for (i = 0; i < G_N_ELEMENTS (type_ops); i++)
    flags |= gst_cuda_semaphore_handle_type_to_flag (type_ops[i]->type);
  return (GstCudaSemaphoreHandleTypeFlags) flags;
}

GType
gst_cuda_semaphore_handle_type_get_type (void)
{
  static gsize id = 0;
  static GEnumValue values[G_N_ELEMENTS (type_ops) + 1];

  if (g_once_init_enter (&id)) {
    GType t;
    guint i;

    for (i = 0; i < G_N_ELEMENTS (type_ops); i++) {
      values[i].value = type_ops[i]->type;
      values[i].value_name = type_ops[i]->enum_name;
      values[i].value_nick = type_ops[i]->nick;
    }
    t = g_enum_register_static ("GstCudaSemaphoreHandleType", values);
    g_once_init_leave (&id, t);
  }
  return id;
}

GType
gst_cuda_semaphore_handle_type_flags_get_type (void)
{
  static gsize id = 0;
  static GFlagsValue values[G_N_ELEMENTS (type_ops) + 2] = {
    {GST_CUDA_SEMAPHORE_HANDLE_TYPE_FLAG_NONE,
        "GST_CUDA_SEMAPHORE_HANDLE_TYPE_FLAG_NONE", "none"},
  };

  if (g_once_init_enter (&id)) {
    GType t;
    guint i;

    for (i = 0; i < G_N_ELEMENTS (type_ops); i++) {
      values[i + 1].value =
          gst_cuda_semaphore_handle_type_to_flag (type_ops[i]->type);
      values[i + 1].value_name = type_ops[i]->flag_name;
      values[i + 1].value_nick = type_ops[i]->nick;
    }
    t = g_flags_register_static ("GstCudaSemaphoreHandleTypeFlags", values);
    g_once_init_leave (&id, t);
  }
  return id;
}

G_DEFINE_FLAGS_TYPE (GstCudaSyncFlags, gst_cuda_sync_flags,
    G_DEFINE_ENUM_VALUE (GST_CUDA_SYNC_FLAG_NONE, "none"),
    G_DEFINE_ENUM_VALUE (GST_CUDA_SYNC_FLAG_SKIP_NVSCIBUF_MEMSYNC,
        "skip-nvscibuf-memsync"));

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
          GST_TYPE_CUDA_SEMAPHORE_HANDLE_TYPE, type_ops[0]->type,
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

static void
gst_cuda_semaphore_finalize (GObject * object)
{
  GstCudaSemaphore *self = GST_CUDA_SEMAPHORE (object);

  /* first: the semaphore may be imported again (a new object) from now on;
   * no ops: an object that was never imported */
  if (self->ops && self->ops->from_fd)
    _gst_cuda_semaphore_registry_remove (self);

  if (self->handle) {
    GArray *events = g_array_new (FALSE, FALSE, sizeof (CUevent));
    guint i;
    gboolean sync_context = self->untracked_ops;

    for (i = 0; i < self->stream_events->len; i++) {
      StreamEvent *se = &g_array_index (self->stream_events, StreamEvent, i);
      g_array_append_val (events, se->event);
    }
    if (self->ops->pending_work && !self->ops->pending_work (self, events))
      sync_context = TRUE;
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

GstCudaSemaphore *
_gst_cuda_semaphore_new (GstCudaContext * context,
    const GstCudaSemaphoreTypeOps * ops, CUexternalSemaphore handle)
{
  GstCudaSemaphore *self = g_object_new (GST_TYPE_CUDA_SEMAPHORE, NULL);

  gst_object_ref_sink (self);
  self->context = gst_object_ref (context);
  self->type = ops->type;
  self->ops = ops;
  self->handle = handle;
  return self;
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
  return sem->ops && sem->ops->timeline;
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

/* Enqueues a signal of @value (or writing @fence); call with op_lock and
 * the context pushed */
static gboolean
enqueue_signal (GstCudaSemaphore * self, CUstream stream, guint64 value,
    guint8 * fence, GstCudaSyncFlags flags, GError ** error)
{
  const GstCudaSemaphoreTypeOps *ops = self->ops;
  CUDA_EXTERNAL_SEMAPHORE_SIGNAL_PARAMS params;
  GstCudaSemaphoreFence storage = { 0, };
  CUresult r;

  /* after what must run before it: the previous signal when it was
   * enqueued on another stream (the value or the fence count must progress
   * in enqueue order on the GPU too), ... */
  if (ops->order_signal && !ops->order_signal (self, stream, error))
    return FALSE;

  memset (&params, 0, sizeof (params));
  ops->fill_signal (&params, value, storage);
  params.flags = ops->op_flags ? ops->op_flags (self, OP_SIGNAL, flags) : 0;
  r = GST_CUDA_SYNC_CALL (cuSignalExternalSemaphoresAsync) (&self->handle,
      &params, 1, stream);
  if (r != CUDA_SUCCESS && ops->op_failed) {
    ops->op_failed (r, OP_SIGNAL, error);
    return FALSE;
  }
  if (!_gst_cuda_sync_result (r, "cuSignalExternalSemaphoresAsync", error))
    return FALSE;

  self->has_signalled = TRUE;
  self->last_signal_stream = stream;
  if (ops->signalled)
    ops->signalled (self, value, storage, fence);
  return TRUE;
}

/* Enqueues a wait for @value (or @fence); call with op_lock and the
 * context pushed */
static gboolean
enqueue_wait (GstCudaSemaphore * self, CUstream stream, guint64 value,
    const guint8 * fence, GstCudaSyncFlags flags, GError ** error)
{
  const GstCudaSemaphoreTypeOps *ops = self->ops;
  CUDA_EXTERNAL_SEMAPHORE_WAIT_PARAMS params;
  GstCudaSemaphoreFence storage = { 0, };
  CUresult r;

  memset (&params, 0, sizeof (params));
  ops->fill_wait (&params, value, fence, storage);
  params.flags = ops->op_flags ? ops->op_flags (self, OP_WAIT, flags) : 0;
  r = GST_CUDA_SYNC_CALL (cuWaitExternalSemaphoresAsync) (&self->handle,
      &params, 1, stream);
  if (r != CUDA_SUCCESS && ops->op_failed) {
    ops->op_failed (r, OP_WAIT, error);
    return FALSE;
  }
  if (!_gst_cuda_sync_result (r, "cuWaitExternalSemaphoresAsync", error))
    return FALSE;

  if (ops->waited)
    ops->waited (self);
  self->has_waited = TRUE;
  self->last_wait_stream = stream;
  return TRUE;
}

gboolean
_gst_cuda_semaphore_enqueue_locked (GstCudaSemaphore * self, OpKind kind,
    CUstream stream, guint64 value, guint8 * fence, GstCudaSyncFlags flags,
    GError ** error)
{
  gboolean ret;

  if (!gst_cuda_context_push (self->context)) {
    g_set_error (error, GST_CUDA_SYNC_ERROR, GST_CUDA_SYNC_ERROR_DRIVER,
        "Could not make the CUDA context current");
    return FALSE;
  }

  if (kind == OP_SIGNAL)
    ret = enqueue_signal (self, stream, value, fence, flags, error);
  else
    ret = enqueue_wait (self, stream, value, fence, flags, error);

  /* The operation is enqueued; remember it so that destruction waits for
   * it. Failing to record is reported, and destruction then synchronises
   * the context instead of waiting for events. Signals of the types whose
   * signals record no event are covered by their pending_work. */
  if (ret && (kind == OP_WAIT || self->ops->signal_records_event) &&
      !(ret = _gst_cuda_semaphore_record_op (self, stream, error)))
    self->untracked_ops = TRUE;

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
      GST_CUDA_SYNC_FLAG_NONE, error);
  g_mutex_unlock (&self->op_lock);
  return ret;
}

/* NvSciSync semaphores go through fences, the others through values */
gboolean
_gst_cuda_semaphore_check_fences (GstCudaSemaphore * sem,
    gboolean want_fences, GError ** error)
{
  gboolean fences;

  if (!sem->ops) {
    g_set_error (error, GST_CUDA_SYNC_ERROR, GST_CUDA_SYNC_ERROR_PROTOCOL,
        "The semaphore was not imported");
    return FALSE;
  }
  fences = sem->ops->fences;
  if (fences == want_fences)
    return TRUE;
  g_set_error (error, GST_CUDA_SYNC_ERROR, GST_CUDA_SYNC_ERROR_PROTOCOL, "%s",
      fences ? "NvSciSync semaphores signal and wait through fences: use "
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

  if (!_gst_cuda_semaphore_check_fences (sem, FALSE, error))
    return FALSE;

  g_mutex_lock (&sem->op_lock);
  ret = sem->ops->reserve_signal (sem, &v, error) &&
      _gst_cuda_semaphore_enqueue_locked (sem, OP_SIGNAL, stream, v, NULL,
      GST_CUDA_SYNC_FLAG_NONE, error);
  g_mutex_unlock (&sem->op_lock);

  if (ret && value)
    *value = v;
  return ret;
}

gboolean
_gst_cuda_semaphore_check_next_locked (GstCudaSemaphore * sem, guint64 value,
    GError ** error)
{
  if (value > sem->last_value)
    return TRUE;
  g_set_error (error, GST_CUDA_SYNC_ERROR, GST_CUDA_SYNC_ERROR_PROTOCOL,
      "Timeline value %" G_GUINT64_FORMAT " is not greater than the last "
      "value %" G_GUINT64_FORMAT, value, sem->last_value);
  return FALSE;
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

  if (!gst_cuda_semaphore_is_timeline (sem))
    return gst_cuda_semaphore_signal (sem, stream, NULL, error);

  g_mutex_lock (&sem->op_lock);
  if (!_gst_cuda_semaphore_check_next_locked (sem, value, error)) {
    g_mutex_unlock (&sem->op_lock);
    return FALSE;
  }
  ret = _gst_cuda_semaphore_enqueue_locked (sem, OP_SIGNAL, stream, value,
      NULL, GST_CUDA_SYNC_FLAG_NONE, error);
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

  if (!_gst_cuda_semaphore_check_fences (sem, FALSE, error))
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

/**
 * gst_cuda_semaphore_set_skip_nvscibuf_memsync:
 * @sem: a #GstCudaSemaphore
 * @skip: whether to skip NvSciBuf memory synchronisation
 *
 * For NvSciSync semaphores: when @skip is %TRUE, every later signal passes
 * `CUDA_EXTERNAL_SEMAPHORE_SIGNAL_SKIP_NVSCIBUF_MEMSYNC` and every later
 * wait `CUDA_EXTERNAL_SEMAPHORE_WAIT_SKIP_NVSCIBUF_MEMSYNC`: the driver then
 * does not make NvSciBuf memory imported into CUDA coherent with the other
 * importers at the signal or wait. Use it only when the semaphore orders
 * work without NvSciBuf data being shared through it (a control
 * dependency); with shared NvSciBuf data the result is undefined (cuda.h).
 * Data in #GstCudaMemory is not NvSciBuf memory.
 *
 * Other handle types take no flags; for them this setting is stored but has
 * no effect.
 *
 * Since: 0.1
 */
void
gst_cuda_semaphore_set_skip_nvscibuf_memsync (GstCudaSemaphore * sem,
    gboolean skip)
{
  gboolean changed;

  g_return_if_fail (GST_IS_CUDA_SEMAPHORE (sem));

  g_mutex_lock (&sem->op_lock);
  changed = sem->skip_nvscibuf_memsync != !!skip;
  sem->skip_nvscibuf_memsync = !!skip;
  g_mutex_unlock (&sem->op_lock);
  if (changed)
    g_object_notify (G_OBJECT (sem), "skip-nvscibuf-memsync");
}

/**
 * gst_cuda_semaphore_get_skip_nvscibuf_memsync:
 * @sem: a #GstCudaSemaphore
 *
 * Gets the #GstCudaSemaphore:skip-nvscibuf-memsync property.
 *
 * Returns: the value set with gst_cuda_semaphore_set_skip_nvscibuf_memsync()
 *
 * Since: 0.1
 */
gboolean
gst_cuda_semaphore_get_skip_nvscibuf_memsync (GstCudaSemaphore * sem)
{
  gboolean skip;

  g_return_val_if_fail (GST_IS_CUDA_SEMAPHORE (sem), FALSE);

  g_mutex_lock (&sem->op_lock);
  skip = sem->skip_nvscibuf_memsync;
  g_mutex_unlock (&sem->op_lock);
  return skip;
}

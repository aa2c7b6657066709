/* gst-cudasync
 * Copyright (C) 2026 gst-cudasync developers
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * cudasyncipcsink's shareable frames ("slots"): their allocation, reuse
 * and retirement, and their loan to upstream (the pool the sink proposes,
 * gstcudasyncipcsinkpool.c), which then writes a frame in place. Locks:
 * gstcudasyncipcserver-private.h; a slot's reference count is atomic.
 *
 * A frame is reused only once its sources' release values have been
 * reached. As soon as a frame is free (no source holds it, upstream does
 * not have it), a stream of its own ("settle") waits for those values on
 * the GPU, and the releaser's thread, asleep in a blocking-sync event wait,
 * marks the frame settled when they are (a releaser of its own: nothing
 * else queues behind a settle). The pool lends only settled
 * frames: a producer's stream never waits for a source, since a producer
 * that waits on the CPU for its own stream (cudaupload does) would
 * otherwise wait for a frozen source, where GStreamer's flushing cannot
 * reach it, and a state change to READY would wait for that producer
 * forever. The sink's own copies may take a frame still settling, as
 * long as upstream never wrote a frame of the pool (a lend orders the
 * producer's stream after the sink's): the sink's stream then waits on
 * the GPU for the release values that frame's settles wait for (its CPU
 * never waits for a release; the settle stream as a whole would also hold
 * the copy behind every frame freed later), and the stop rescues those
 * sources before it waits for the sink's stream.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstcudasyncipcserver-private.h"
#include "gstcudasyncelementerror.h"

/* a category of its own: the server's is the session unit's, which calls
 * into this one */
GST_DEBUG_CATEGORY_STATIC (gst_cuda_sync_ipc_slots_debug);
#define GST_CAT_DEFAULT gst_cuda_sync_ipc_slots_debug

typedef GstCudaSyncIpcSlot Slot;
typedef GstCudaSyncIpcReleasePoint ReleasePoint;

static GQuark slot_quark;

static void
points_clear (GArray * points)
{
  guint i;

  for (i = 0; i < points->len; i++)
    gst_object_unref (g_array_index (points, ReleasePoint, i).sem);
  g_array_set_size (points, 0);
}

Slot *
gst_cuda_sync_ipc_slot_ref (Slot * slot)
{
  g_atomic_int_inc (&slot->refcount);
  return slot;
}

/* any thread: the last reference goes with the server's retirement (after
 * its stream ran past the slot's last use), or with the last memory a
 * pool wrapped around it */
void
gst_cuda_sync_ipc_slot_unref (Slot * slot)
{
  if (!g_atomic_int_dec_and_test (&slot->refcount))
    return;
  points_clear (slot->points);
  g_array_free (slot->points, TRUE);
  points_clear (slot->settle_points);
  g_array_free (slot->settle_points, TRUE);
  gst_cuda_sync_vmm_free (slot->vmm);
  g_free (slot);
}

static void
slot_release (gpointer slot, const GError * error)
{
  gst_cuda_sync_ipc_slot_unref (slot);
}

/* A slot of an older epoch that no source holds goes once the sink's
 * stream ran past its last use (the sources' release points do not
 * matter: each source maps the memory with a handle of its own, and the
 * sink never writes into it again); lock held */
static void
slot_retire (GstCudaSyncIpcServer * self, Slot * slot)
{
  GError *err = NULL;

  if (!gst_cuda_sync_releaser_push_after (self->releaser, self->context,
          self->stream, slot_release, slot, &err)) {
    GST_WARNING ("no event for a retired frame (%s): waiting for the stream",
        err->message);
    g_clear_error (&err);
    if (gst_cuda_context_push (self->context)) {
      CuStreamSynchronize (self->stream);
      gst_cuda_context_pop (NULL);
    }
    self->cpu_syncs++;
    gst_cuda_sync_ipc_slot_unref (slot);
  }
}

static gboolean
slot_free_now (const Slot * slot)
{
  return slot->n_holders == 0 && !slot->out && slot->settling == 0 &&
      slot->points->len == 0;
}

gboolean
gst_cuda_sync_ipc_slots_init (GstCudaSyncIpcServer * self, GError ** error)
{
  CUresult r;

  GST_DEBUG_CATEGORY_INIT (gst_cuda_sync_ipc_slots_debug, "cudasyncipcslots", 0,
      "cudasyncipcsink's shareable frames");

  if (!gst_cuda_context_push (self->context)) {
    g_set_error (error, GST_CUDA_SYNC_ERROR, GST_CUDA_SYNC_ERROR_DRIVER,
        "Could not make the CUDA context current");
    return FALSE;
  }
  r = CuStreamCreate (&self->settle, CU_STREAM_NON_BLOCKING);
  gst_cuda_context_pop (NULL);
  return gst_cuda_sync_check_result (r, "cuStreamCreate", error);
}

void
gst_cuda_sync_ipc_slots_clear (GstCudaSyncIpcServer * self)
{
  gboolean pushed;

  g_clear_pointer (&self->lend_event, gst_cuda_sync_event_unref);
  if (!self->settle)
    return;
  pushed = gst_cuda_context_push (self->context);
  CuStreamDestroy (self->settle);
  self->settle = NULL;
  if (pushed)
    gst_cuda_context_pop (NULL);
}

/* the releaser's thread: the settle stream ran past the slot's waits */
static void
slot_settled (gpointer data, const GError * error)
{
  Slot *slot = data;
  GstCudaSyncIpcServer *self = (GstCudaSyncIpcServer *) slot->owner;

  g_mutex_lock (&self->lock);
  if (--slot->settling == 0)
    points_clear (slot->settle_points);
  g_cond_broadcast (&self->cond);
  g_mutex_unlock (&self->lock);
  gst_cuda_sync_ipc_slot_unref (slot);
}

/* @p joins the values the running settles of a slot wait for. Release
 * semaphores are timelines: one wait per semaphore, for its highest value,
 * covers them all, so a source that gives a frame back again and again
 * with values it does not reach adds nothing to the copy's waits. */
static void
settle_point_add (GArray * points, const ReleasePoint * p)
{
  guint i;

  for (i = 0; i < points->len; i++) {
    ReleasePoint *q = &g_array_index (points, ReleasePoint, i);

    if (q->sem == p->sem) {
      q->value = MAX (q->value, p->value);
      return;
    }
  }
  g_array_append_val (points, *p);
  gst_object_ref (p->sem);
}

/* A slot that just became free waits on the settle stream for its
 * sources' release values, and is settled once they are reached (lock
 * held). A slot freed again before its last settle was seen settles again
 * (settling counts them): the copy path may take it meanwhile, ordered on
 * the GPU. Without the releaser (stopped) or an event, the stream is
 * waited for on the CPU, counted in cpu-syncs. */
void
gst_cuda_sync_ipc_slot_settle (GstCudaSyncIpcServer * self, Slot * slot)
{
  GError *err = NULL;
  gboolean ok;
  guint i;

  if (slot->n_holders > 0 || slot->out || slot->points->len == 0)
    return;
  if (!gst_cuda_context_push (self->context)) {
    GST_WARNING ("settle: could not push the CUDA context");
    return;
  }
  for (i = 0; i < slot->points->len; i++)
    settle_point_add (slot->settle_points,
        &g_array_index (slot->points, ReleasePoint, i));
  ok = gst_cuda_sync_ipc_slot_wait_released (self, slot, self->settle, &err);
  self->settle_waits++;
  if (ok && self->settler) {
    gst_cuda_sync_ipc_slot_ref (slot);
    if (gst_cuda_sync_releaser_push_after (self->settler, self->context,
            self->settle, slot_settled, slot, &err)) {
      slot->settling++;
      gst_cuda_context_pop (NULL);
      return;
    }
    /* (slot_settled() will not be called) */
    gst_cuda_sync_ipc_slot_unref (slot);
  }
  if (err)
    GST_WARNING ("settle: %s; waiting for the stream", err->message);
  g_clear_error (&err);
  CuStreamSynchronize (self->settle);
  self->cpu_syncs++;
  if (slot->settling == 0)
    points_clear (slot->settle_points);
  gst_cuda_context_pop (NULL);
}

/* A frame the copy path may write: free, settled or with one settle
 * running (the sink's stream then waits on the GPU for what it waits for,
 * gst_cuda_sync_ipc_slot_order_copy(): the copy never waits on the CPU for
 * a release). Not one whose values were not reached twice in a row: each
 * such copy puts on the sink's stream a wait that may never end, and a
 * stream held up takes only so many operations before the next enqueue
 * blocks, under the server's lock, where neither hold-timeout nor the stop
 * could rescue anyone. Bounded so, the sink runs out of free frames
 * instead, and waits or drops (on-full) until the source is rescued. */
static gboolean
slot_copyable (const Slot * slot)
{
  return slot->n_holders == 0 && !slot->out && slot->points->len == 0 &&
      slot->settling <= 1;
}

/* A new slot while this epoch has fewer than max-buffers, else the free
 * one (@copy: or still settling) written longest ago, or NULL (lock held;
 * settles the free ones, retires slots of older epochs once nothing holds
 * them). The oldest release is the one most likely reached, where the
 * frame released last would make each write wait for the source's read
 * of the previous frame (one frame at a time between the two processes'
 * GPU work). */
Slot *
gst_cuda_sync_ipc_slots_get (GstCudaSyncIpcServer * self, gboolean copy,
    GError ** error)
{
  guint i, n_epoch = 0;
  Slot *slot, *oldest = NULL;

  for (i = 0; i < self->slots->len;) {
    slot = g_ptr_array_index (self->slots, i);
    gst_cuda_sync_ipc_slot_settle (self, slot);
    if (slot->epoch != self->epoch && slot_free_now (slot)) {
      slot_retire (self, g_ptr_array_steal_index_fast (self->slots, i));
      continue;
    }
    if (slot->epoch == self->epoch) {
      n_epoch++;
      if ((copy ? slot_copyable (slot) : slot_free_now (slot)) && (!oldest ||
              slot->last_use < oldest->last_use))
        oldest = slot;
    }
    i++;
  }
  if (n_epoch >= self->config.max_buffers) {
    /* every frame held: the server's thread now looks at how long */
    if (!oldest && !self->starved) {
      self->starved = TRUE;
      gst_cuda_sync_ipc_server_wake_thread (self);
    }
    self->starved = oldest == NULL;
    return oldest;
  }
  self->starved = FALSE;
  slot = g_new0 (Slot, 1);
  slot->refcount = 1;
  slot->owner = self;
  slot->points = g_array_new (FALSE, FALSE, sizeof (ReleasePoint));
  slot->settle_points = g_array_new (FALSE, FALSE, sizeof (ReleasePoint));
  slot->epoch = self->epoch;
  slot->id = self->next_id++;
  slot->layout = self->info;
  slot->vmm = gst_cuda_sync_vmm_new (self->context,
      gst_cuda_sync_vmm_round_size (self->context, self->info.size, NULL),
      error);
  if (!slot->vmm) {
    g_array_free (slot->points, TRUE);
    g_array_free (slot->settle_points, TRUE);
    g_free (slot);
    return GINT_TO_POINTER (-1);
  }
  g_ptr_array_add (self->slots, slot);
  return slot;
}

/* @stream waits on the GPU for the release values of @slot's sources;
 * they are forgotten (lock held, context pushed) */
gboolean
gst_cuda_sync_ipc_slot_wait_released (GstCudaSyncIpcServer * self, Slot * slot,
    CUstream stream, GError ** error)
{
  gboolean ok = TRUE;
  guint i;

  for (i = 0; i < slot->points->len && ok; i++) {
    ReleasePoint *p = &g_array_index (slot->points, ReleasePoint, i);
    ok = gst_cuda_semaphore_wait (p->sem, stream, p->value, error);
    self->waits++;
  }
  for (i = 0; i < slot->points->len; i++)
    gst_object_unref (g_array_index (slot->points, ReleasePoint, i).sem);
  g_array_set_size (slot->points, 0);
  return ok;
}

/* the work enqueued on @to from now on after that enqueued on @from so
 * far, on the GPU, through *@event (made at first use; lock held, context
 * pushed) */
static gboolean
order_after (GstCudaSyncIpcServer * self, GstCudaSyncEvent ** event,
    CUstream from, CUstream to, GError ** error)
{
  if (!*event && !(*event = gst_cuda_sync_event_new (self->context, FALSE,
              error)))
    return FALSE;
  return gst_cuda_sync_event_record (*event, from, error) &&
      gst_cuda_sync_event_wait_gpu (*event, to, error);
}

/* lock held, context pushed: the copy into @slot after the release
 * values its settles wait for, where they have not been seen reached (the
 * same values again: not counted in waits) */
gboolean
gst_cuda_sync_ipc_slot_order_copy (GstCudaSyncIpcServer * self, Slot * slot,
    GError ** error)
{
  guint i;

  for (i = 0; slot->settling > 0 && i < slot->settle_points->len; i++) {
    ReleasePoint *p = &g_array_index (slot->settle_points, ReleasePoint, i);
    if (!gst_cuda_semaphore_wait (p->sem, self->stream, p->value, error))
      return FALSE;
  }
  return TRUE;
}

GstFlowReturn
gst_cuda_sync_ipc_server_lend (GstCudaSyncIpcServer * self, CUstream stream,
    gboolean wait, const gint * cancel, Slot ** slot, GError ** error)
{
  GstFlowReturn ret = GST_FLOW_OK;
  guint gen;

  *slot = NULL;
  g_mutex_lock (&self->lock);
  gen = self->flush_gen;
  while (!*slot) {
    /* (a flush that starts and stops while this waits counts) */
    if (self->stopping || self->flushing || !self->lending ||
        self->flush_gen != gen || g_atomic_int_get (cancel)) {
      ret = GST_FLOW_FLUSHING;
      break;
    }
    if (!self->caps) {
      ret = GST_FLOW_NOT_NEGOTIATED;
      break;
    }
    *slot = gst_cuda_sync_ipc_slots_get (self, FALSE, error);
    if (*slot == GINT_TO_POINTER (-1)) {
      *slot = NULL;
      ret = GST_FLOW_ERROR;
      break;
    }
    if (*slot)
      break;
    if (!wait || self->config.drop_when_full) {
      ret = GST_FLOW_EOS;
      break;
    }
    g_cond_wait (&self->cond, &self->lock);
  }
  if (*slot && !gst_cuda_context_push (self->context)) {
    GST_CUDA_SYNC_SET_ERROR (error, LIBRARY, FAILED, ("Could not make the "
            "CUDA context current."), ("gst_cuda_context_push"));
    *slot = NULL;
    ret = GST_FLOW_ERROR;
  } else if (*slot) {
    /* the sink's own work on the (settled) slot before upstream's */
    if (order_after (self, &self->lend_event, self->stream, stream, error)) {
      (*slot)->out = TRUE;
      (*slot)->last_use = self->buffers;
      self->lent++;
    } else {
      *slot = NULL;
      ret = GST_FLOW_ERROR;
    }
    gst_cuda_context_pop (NULL);
  }
  g_mutex_unlock (&self->lock);
  return ret;
}

void
gst_cuda_sync_ipc_server_give_back (GstCudaSyncIpcServer * self, Slot * slot)
{
  g_mutex_lock (&self->lock);
  slot->out = FALSE;
  gst_cuda_sync_ipc_slot_settle (self, slot);
  g_cond_broadcast (&self->cond);
  g_mutex_unlock (&self->lock);
}

void
gst_cuda_sync_ipc_server_set_lending (GstCudaSyncIpcServer * self,
    gboolean lending)
{
  g_mutex_lock (&self->lock);
  GST_DEBUG ("lending %s", lending ? "on" : "off: the stop's grace for "
      "pending release values starts");
  self->lending = lending;
  self->left_paused = lending ? 0 : g_get_monotonic_time ();
  self->flush_gen++;
  g_cond_broadcast (&self->cond);
  g_mutex_unlock (&self->lock);
  gst_cuda_sync_ipc_server_wake_thread (self);
}

void
gst_cuda_sync_ipc_server_wake_lenders (GstCudaSyncIpcServer * self)
{
  g_mutex_lock (&self->lock);
  g_cond_broadcast (&self->cond);
  g_mutex_unlock (&self->lock);
}

CUdeviceptr
gst_cuda_sync_ipc_slot_get_pointer (Slot * slot, GstVideoInfo * layout)
{
  *layout = slot->layout;
  return gst_cuda_sync_vmm_get_pointer (slot->vmm);
}

void
gst_cuda_sync_ipc_slot_attach (GstMemory * mem, Slot * slot)
{
  if (!slot_quark)
    slot_quark = g_quark_from_static_string ("GstCudaSyncIpcSlot");
  gst_mini_object_set_qdata (GST_MINI_OBJECT_CAST (mem), slot_quark, slot,
      NULL);
}

/* the slot @buf's one memory is, lent by @self and written for the
 * current caps; NULL for any other input (lock held) */
Slot *
gst_cuda_sync_ipc_slot_in_place (GstCudaSyncIpcServer * self, GstBuffer * buf)
{
  Slot *slot;

  if (!slot_quark || gst_buffer_n_memory (buf) != 1)
    return NULL;
  slot = gst_mini_object_get_qdata (GST_MINI_OBJECT_CAST
      (gst_buffer_peek_memory (buf, 0)), slot_quark);
  if (!slot || slot->owner != self || slot->epoch != self->epoch ||
      !slot->out || slot->n_holders > 0)
    return NULL;
  return slot;
}

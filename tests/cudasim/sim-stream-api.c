/* cudasim: stream and event entry points.
 *
 * cuStream*, cuLaunchHostFunc and cuEvent* on top of the queues of
 * sim-stream.c: an event records a (stream, sequence number) pair, which
 * cuStreamWaitEvent turns into a dependency.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "cudasim-internal.h"

#include <stdlib.h>

/* ------------------------------------------------------------------ */
/* streams                                                             */
/* ------------------------------------------------------------------ */

static CUresult
sim_stream_create (CUstream * phStream, unsigned int Flags)
{
  SimCtx *c;
  SimStream *s;

  if (!phStream || (Flags & ~(unsigned) CU_STREAM_NON_BLOCKING))
    return CUDA_ERROR_INVALID_VALUE;
  pthread_mutex_lock (&g_sim.lock);
  c = sim_current_ctx_locked ();
  if (!c) {
    pthread_mutex_unlock (&g_sim.lock);
    return CUDA_ERROR_INVALID_CONTEXT;
  }
  s = sim_stream_new_locked (c, Flags, 0);
  *phStream = sim_handle_from_id (s->id, KIND_STREAM);
  pthread_mutex_unlock (&g_sim.lock);
  return CUDA_SUCCESS;
}

SIM_EXPORT CUresult
cuStreamCreate (CUstream * phStream, unsigned int Flags)
{
  SIM_ENTER (cuStreamCreate);
  return sim_stream_create (phStream, Flags);
}

SIM_EXPORT CUresult
cuStreamCreateWithPriority (CUstream * phStream, unsigned int flags,
    int priority)
{
  SIM_ENTER (cuStreamCreateWithPriority);
  return sim_stream_create (phStream, flags);
}

static CUresult
sim_stream_destroy (CUstream hStream, const char *what)
{
  void *obj;
  CUresult r;

  if (hStream == NULL || hStream == CU_STREAM_LEGACY ||
      hStream == CU_STREAM_PER_THREAD)
    return CUDA_ERROR_INVALID_HANDLE;
  pthread_mutex_lock (&g_sim.lock);
  r = sim_resolve_locked (hStream, KIND_STREAM, what, &obj);
  if (r == CUDA_SUCCESS)
    sim_stream_destroy_locked (obj);
  pthread_mutex_unlock (&g_sim.lock);
  return r;
}

SIM_EXPORT CUresult
cuStreamDestroy_v2 (CUstream hStream)
{
  SIM_ENTER (cuStreamDestroy_v2);
  return sim_stream_destroy (hStream, "cuStreamDestroy_v2");
}

SIM_EXPORT CUresult
cuStreamDestroy (CUstream hStream)
{
  SIM_ENTER (cuStreamDestroy_v2);
  return sim_stream_destroy (hStream, "cuStreamDestroy");
}

SIM_EXPORT CUresult
cuStreamSynchronize (CUstream hStream)
{
  SimStream *s;
  CUresult r;
  uint64_t target;

  SIM_ENTER (cuStreamSynchronize);
  pthread_mutex_lock (&g_sim.lock);
  r = sim_resolve_stream_locked (hStream, "cuStreamSynchronize", &s);
  if (r == CUDA_SUCCESS) {
    sim_count_cpu_sync ();
    if (s->is_null) {
      /* the legacy stream also waits for the blocking streams' work: a
       * marker on it carries exactly those dependencies */
      target = sim_enqueue_locked (s, sim_op_new (OP_NOP, EP_INTERNAL));
    } else {
      target = s->enq_seq;
    }
    sim_wait_seq_locked (s, target, "cuStreamSynchronize");
  }
  pthread_mutex_unlock (&g_sim.lock);
  return r;
}

SIM_EXPORT CUresult
cuStreamQuery (CUstream hStream)
{
  SimStream *s;
  CUresult r;

  SIM_ENTER (cuStreamQuery);
  pthread_mutex_lock (&g_sim.lock);
  r = sim_resolve_stream_locked (hStream, "cuStreamQuery", &s);
  if (r == CUDA_SUCCESS && s->done_seq < s->enq_seq)
    r = CUDA_ERROR_NOT_READY;
  pthread_mutex_unlock (&g_sim.lock);
  return r;
}

SIM_EXPORT CUresult
cuStreamWaitEvent (CUstream hStream, CUevent hEvent, unsigned int Flags)
{
  SimStream *s;
  SimEvent *ev;
  void *obj;
  CUresult r;

  SIM_ENTER (cuStreamWaitEvent);
  pthread_mutex_lock (&g_sim.lock);
  r = sim_resolve_stream_locked (hStream, "cuStreamWaitEvent", &s);
  if (r == CUDA_SUCCESS)
    r = sim_resolve_locked (hEvent, KIND_EVENT, "cuStreamWaitEvent", &obj);
  if (r == CUDA_SUCCESS) {
    ev = obj;
    if (ev->rec_stream) {
      SimOp *op = sim_op_new (OP_NOP, EP_cuStreamWaitEvent);
      sim_op_add_dep_locked (op, ev->rec_stream, ev->rec_seq);
      sim_enqueue_locked (s, op);
    }
  }
  pthread_mutex_unlock (&g_sim.lock);
  return r;
}

SIM_EXPORT CUresult
cuStreamGetCtx (CUstream hStream, CUcontext * pctx)
{
  SimStream *s;
  CUresult r;

  SIM_ENTER (cuStreamGetCtx);
  if (!pctx)
    return CUDA_ERROR_INVALID_VALUE;
  pthread_mutex_lock (&g_sim.lock);
  r = sim_resolve_stream_locked (hStream, "cuStreamGetCtx", &s);
  if (r == CUDA_SUCCESS)
    *pctx = sim_handle_from_id (s->ctx->id, KIND_CONTEXT);
  pthread_mutex_unlock (&g_sim.lock);
  return r;
}

SIM_EXPORT CUresult
cuStreamGetFlags (CUstream hStream, unsigned int *flags)
{
  SimStream *s;
  CUresult r;

  SIM_ENTER (cuStreamGetFlags);
  if (!flags)
    return CUDA_ERROR_INVALID_VALUE;
  pthread_mutex_lock (&g_sim.lock);
  r = sim_resolve_stream_locked (hStream, "cuStreamGetFlags", &s);
  if (r == CUDA_SUCCESS)
    *flags = s->flags;
  pthread_mutex_unlock (&g_sim.lock);
  return r;
}

SIM_EXPORT CUresult
cuLaunchHostFunc (CUstream hStream, CUhostFn fn, void *userData)
{
  SimOp *op;
  CUresult r;

  SIM_ENTER (cuLaunchHostFunc);
  if (!fn)
    return CUDA_ERROR_INVALID_VALUE;
  op = sim_op_new (OP_HOST_FUNC, EP_cuLaunchHostFunc);
  op->global_delay = 1;
  op->u.host.fn = fn;
  op->u.host.data = userData;
  pthread_mutex_lock (&g_sim.lock);
  r = sim_submit_locked (op, hStream, SIM_SUBMIT_ASYNC, "cuLaunchHostFunc");
  pthread_mutex_unlock (&g_sim.lock);
  return r;
}

/* ------------------------------------------------------------------ */
/* events                                                              */
/* ------------------------------------------------------------------ */

SIM_EXPORT CUresult
cuEventCreate (CUevent * phEvent, unsigned int Flags)
{
  SimCtx *c;
  SimEvent *ev;

  SIM_ENTER (cuEventCreate);
  if (!phEvent)
    return CUDA_ERROR_INVALID_VALUE;
  if (Flags & ~(unsigned) (CU_EVENT_BLOCKING_SYNC | CU_EVENT_DISABLE_TIMING |
          CU_EVENT_INTERPROCESS))
    return CUDA_ERROR_INVALID_VALUE;
  if ((Flags & CU_EVENT_INTERPROCESS) && !(Flags & CU_EVENT_DISABLE_TIMING))
    return CUDA_ERROR_INVALID_VALUE;
  pthread_mutex_lock (&g_sim.lock);
  c = sim_current_ctx_locked ();
  if (!c) {
    pthread_mutex_unlock (&g_sim.lock);
    return CUDA_ERROR_INVALID_CONTEXT;
  }
  ev = calloc (1, sizeof (SimEvent));
  if (!ev) {
    pthread_mutex_unlock (&g_sim.lock);
    return CUDA_ERROR_OUT_OF_MEMORY;
  }
  ev->refcount = 1;
  ev->ctx = c;
  c->refcount++;
  ev->flags = Flags;
  ev->id = sim_register_locked (ev, KIND_EVENT);
  g_sim.live[LIVE_EVENT]++;
  *phEvent = sim_handle_from_id (ev->id, KIND_EVENT);
  pthread_mutex_unlock (&g_sim.lock);
  return CUDA_SUCCESS;
}

static CUresult
sim_event_record (CUevent hEvent, CUstream hStream, const char *what,
    SimEntry entry)
{
  SimStream *s;
  SimEvent *ev;
  SimOp *op;
  void *obj;
  CUresult r;

  pthread_mutex_lock (&g_sim.lock);
  /* a full stream blocks the record before the event changes, so that the
   * event's last record stays whole meanwhile; the handles are resolved
   * again after that wait */
  if (sim_resolve_stream_locked (hStream, what, &s) == CUDA_SUCCESS) {
    sim_stream_ref_locked (s);
    sim_wait_room_locked (s);
    sim_stream_unref_locked (s);
  }
  r = sim_resolve_locked (hEvent, KIND_EVENT, what, &obj);
  if (r == CUDA_SUCCESS)
    r = sim_resolve_stream_locked (hStream, what, &s);
  if (r != CUDA_SUCCESS) {
    pthread_mutex_unlock (&g_sim.lock);
    return r;
  }
  ev = obj;
  if (s->ctx != ev->ctx) {
    pthread_mutex_unlock (&g_sim.lock);
    return CUDA_ERROR_INVALID_HANDLE;
  }
  op = sim_op_new (OP_EVENT_RECORD, entry);
  ev->gen++;
  ev->time_valid = 0;
  ev->refcount++;
  op->u.record.event = ev;
  op->u.record.gen = ev->gen;
  if (ev->rec_stream)
    sim_stream_unref_locked (ev->rec_stream);
  sim_stream_ref_locked (s);
  ev->rec_stream = s;
  ev->rec_seq = sim_enqueue_locked (s, op);
  pthread_mutex_unlock (&g_sim.lock);
  return CUDA_SUCCESS;
}

SIM_EXPORT CUresult
cuEventRecord (CUevent hEvent, CUstream hStream)
{
  SIM_ENTER (cuEventRecord);
  return sim_event_record (hEvent, hStream, "cuEventRecord", EP_cuEventRecord);
}

SIM_EXPORT CUresult
cuEventRecordWithFlags (CUevent hEvent, CUstream hStream, unsigned int flags)
{
  SIM_ENTER (cuEventRecordWithFlags);
  return sim_event_record (hEvent, hStream, "cuEventRecordWithFlags",
      EP_cuEventRecordWithFlags);
}

SIM_EXPORT CUresult
cuEventQuery (CUevent hEvent)
{
  SimEvent *ev;
  void *obj;
  CUresult r;

  SIM_ENTER (cuEventQuery);
  pthread_mutex_lock (&g_sim.lock);
  r = sim_resolve_locked (hEvent, KIND_EVENT, "cuEventQuery", &obj);
  if (r == CUDA_SUCCESS) {
    ev = obj;
    if (ev->rec_stream && ev->rec_stream->done_seq < ev->rec_seq)
      r = CUDA_ERROR_NOT_READY;
  }
  pthread_mutex_unlock (&g_sim.lock);
  return r;
}

SIM_EXPORT CUresult
cuEventSynchronize (CUevent hEvent)
{
  SimEvent *ev;
  void *obj;
  CUresult r;

  SIM_ENTER (cuEventSynchronize);
  pthread_mutex_lock (&g_sim.lock);
  r = sim_resolve_locked (hEvent, KIND_EVENT, "cuEventSynchronize", &obj);
  if (r == CUDA_SUCCESS) {
    ev = obj;
    sim_count_cpu_sync ();
    if (ev->rec_stream && ev->rec_stream->done_seq < ev->rec_seq &&
        !(ev->flags & CU_EVENT_BLOCKING_SYNC))
      sim_count_spin_wait ();
    if (ev->rec_stream)
      sim_wait_seq_locked (ev->rec_stream, ev->rec_seq, "cuEventSynchronize");
  }
  pthread_mutex_unlock (&g_sim.lock);
  return r;
}

static CUresult
sim_event_destroy (CUevent hEvent, const char *what)
{
  SimEvent *ev;
  void *obj;
  CUresult r;

  pthread_mutex_lock (&g_sim.lock);
  r = sim_resolve_locked (hEvent, KIND_EVENT, what, &obj);
  if (r == CUDA_SUCCESS) {
    ev = obj;
    ev->destroyed = 1;
    sim_unregister_locked (ev->id);
    g_sim.live[LIVE_EVENT]--;
    sim_event_unref_locked (ev);
  }
  pthread_mutex_unlock (&g_sim.lock);
  return r;
}

SIM_EXPORT CUresult
cuEventDestroy_v2 (CUevent hEvent)
{
  SIM_ENTER (cuEventDestroy_v2);
  return sim_event_destroy (hEvent, "cuEventDestroy_v2");
}

SIM_EXPORT CUresult
cuEventDestroy (CUevent hEvent)
{
  SIM_ENTER (cuEventDestroy_v2);
  return sim_event_destroy (hEvent, "cuEventDestroy");
}

static CUresult
sim_event_elapsed (float *ms, CUevent hStart, CUevent hEnd, const char *what)
{
  SimEvent *a, *b;
  void *obj;
  CUresult r;

  if (!ms)
    return CUDA_ERROR_INVALID_VALUE;
  pthread_mutex_lock (&g_sim.lock);
  r = sim_resolve_locked (hStart, KIND_EVENT, what, &obj);
  if (r != CUDA_SUCCESS)
    goto out;
  a = obj;
  r = sim_resolve_locked (hEnd, KIND_EVENT, what, &obj);
  if (r != CUDA_SUCCESS)
    goto out;
  b = obj;
  if ((a->flags | b->flags) & CU_EVENT_DISABLE_TIMING) {
    r = CUDA_ERROR_INVALID_HANDLE;
    goto out;
  }
  if (!a->rec_stream || !b->rec_stream) {
    r = CUDA_ERROR_INVALID_HANDLE;
    goto out;
  }
  if (a->rec_stream->done_seq < a->rec_seq ||
      b->rec_stream->done_seq < b->rec_seq || !a->time_valid ||
      !b->time_valid) {
    r = CUDA_ERROR_NOT_READY;
    goto out;
  }
  *ms = (float) ((double) (b->time_ns - a->time_ns) / 1e6);
out:
  pthread_mutex_unlock (&g_sim.lock);
  return r;
}

SIM_EXPORT CUresult
cuEventElapsedTime_v2 (float *pMilliseconds, CUevent hStart, CUevent hEnd)
{
  SIM_ENTER (cuEventElapsedTime_v2);
  return sim_event_elapsed (pMilliseconds, hStart, hEnd,
      "cuEventElapsedTime_v2");
}

SIM_EXPORT CUresult
cuEventElapsedTime (float *pMilliseconds, CUevent hStart, CUevent hEnd)
{
  SIM_ENTER (cuEventElapsedTime_v2);
  return sim_event_elapsed (pMilliseconds, hStart, hEnd, "cuEventElapsedTime");
}

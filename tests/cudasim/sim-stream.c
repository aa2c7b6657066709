/* cudasim: operations and stream threads.
 *
 * Each stream is an in-order queue of operations run by its own thread;
 * every operation carries dependencies on (stream, sequence number) pairs
 * (legacy default stream semantics, events).  Memory that queued work may
 * still touch is released once that work ran (deferred release).  Waits on
 * the progress condition report every busy stream when nothing moves.
 * Semaphore operations execute through sim-semobj.c.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "cudasim-internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ------------------------------------------------------------------ */
/* time, waiting                                                       */
/* ------------------------------------------------------------------ */

static void
sim_sleep_us (unsigned us)
{
  struct timespec ts;
  int64_t t;

  if (!us)
    return;
  t = sim_now_ns () + (int64_t) us *1000;
  ts.tv_sec = t / 1000000000LL;
  ts.tv_nsec = t % 1000000000LL;
  while (clock_nanosleep (CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR);
}

static void sim_dump_state_locked (const char *what);

#define SIM_STALL_REPORT_S 10

/* One wait on the progress condition.  A waiter that sees no progress at
 * all for SIM_STALL_REPORT_S seconds prints the state of every stream (and
 * keeps waiting): a stuck test then says what it is stuck on. */
void
sim_wait_progress_locked (const char *what)
{
  struct timespec ts;
  int64_t t = sim_now_ns () + (int64_t) SIM_STALL_REPORT_S * 1000000000LL;
  uint64_t before = g_sim.progress_counter;
  int r;

  ts.tv_sec = t / 1000000000LL;
  ts.tv_nsec = t % 1000000000LL;
  r = pthread_cond_timedwait (&g_sim.progress, &g_sim.lock, &ts);
  if (r == ETIMEDOUT && what && before == g_sim.progress_counter)
    sim_dump_state_locked (what);
}

/* ------------------------------------------------------------------ */
/* operations, streams, threads                                        */
/* ------------------------------------------------------------------ */

SimOp *
sim_op_new (SimOpType type, SimEntry entry)
{
  SimOp *op = calloc (1, sizeof (SimOp));

  if (!op) {
    fprintf (stderr, "cudasim: out of memory\n");
    abort ();
  }
  op->type = type;
  op->entry = entry;
  return op;
}

static void
deplist_add_locked (SimDepList * l, SimStream * s, uint64_t seq)
{
  int i;

  for (i = 0; i < l->n; i++) {
    if (l->deps[i].stream == s) {
      if (l->deps[i].seq < seq)
        l->deps[i].seq = seq;
      return;
    }
  }
  if (l->n == l->cap) {
    l->cap = l->cap ? l->cap * 2 : 4;
    l->deps = realloc (l->deps, l->cap * sizeof (SimDep));
    if (!l->deps) {
      fprintf (stderr, "cudasim: out of memory\n");
      abort ();
    }
  }
  sim_stream_ref_locked (s);
  l->deps[l->n].stream = s;
  l->deps[l->n].seq = seq;
  l->n++;
}

static int
deplist_done_locked (const SimDepList * l)
{
  int i;

  for (i = 0; i < l->n; i++) {
    if (l->deps[i].stream->done_seq < l->deps[i].seq)
      return 0;
  }
  return 1;
}

static void
deplist_clear_locked (SimDepList * l)
{
  int i;

  for (i = 0; i < l->n; i++)
    sim_stream_unref_locked (l->deps[i].stream);
  free (l->deps);
  l->deps = NULL;
  l->n = l->cap = 0;
}

void
sim_op_add_dep_locked (SimOp * op, SimStream * s, uint64_t seq)
{
  deplist_add_locked (&op->deps, s, seq);
}

static void
sim_op_free_locked (SimOp * op)
{
  int i;

  deplist_clear_locked (&op->deps);
  switch (op->type) {
    case OP_SEM_SIGNAL:
    case OP_SEM_WAIT:
      for (i = 0; i < op->u.sem.n; i++) {
        op->u.sem.sems[i]->pending--;
        sim_extsem_unref_locked (op->u.sem.sems[i]);
      }
      free (op->u.sem.sems);
      free (op->u.sem.values);
      break;
    case OP_EVENT_RECORD:
      sim_event_unref_locked (op->u.record.event);
      break;
    default:
      break;
  }
  free (op);
}

/* deferred release of memory: runs once every operation queued before the
 * release request has completed */
typedef struct SimDeferred
{
  struct SimDeferred *next;
  void (*fn) (void *, size_t);
  void *ptr;
  size_t size;
  SimDepList deps;
} SimDeferred;

static SimDeferred *g_deferred;

void
sim_defer_release_locked (void (*fn) (void *, size_t), void *ptr, size_t size)
{
  SimDeferred *d;
  SimStream *s;

  d = calloc (1, sizeof (SimDeferred));
  if (!d) {
    fprintf (stderr, "cudasim: out of memory\n");
    abort ();
  }
  for (s = g_sim.all_streams; s; s = s->all_next) {
    if (s->enq_seq > s->done_seq)
      deplist_add_locked (&d->deps, s, s->enq_seq);
  }
  if (d->deps.n == 0) {
    fn (ptr, size);
    free (d);
    return;
  }
  d->fn = fn;
  d->ptr = ptr;
  d->size = size;
  d->next = g_deferred;
  g_deferred = d;
}

static void
sim_process_deferred_locked (void)
{
  SimDeferred **p = &g_deferred;

  while (*p) {
    SimDeferred *d = *p;
    if (deplist_done_locked (&d->deps)) {
      *p = d->next;
      d->fn (d->ptr, d->size);
      deplist_clear_locked (&d->deps);
      free (d);
    } else {
      p = &d->next;
    }
  }
}

static unsigned
sim_op_delay_locked (const SimOp * op)
{
  return sim_entry_delay_locked (op->entry, op->global_delay);
}

static void
sim_memset_row (uint8_t * dst, uint32_t value, size_t elem_size, size_t count)
{
  size_t i;

  if (elem_size == 1) {
    memset (dst, (int) (value & 0xff), count);
  } else if (elem_size == 2) {
    uint16_t v = (uint16_t) value;
    for (i = 0; i < count; i++)
      memcpy (dst + i * 2, &v, 2);
  } else {
    for (i = 0; i < count; i++)
      memcpy (dst + i * 4, &value, 4);
  }
}

static void
sim_op_execute_unlocked (SimOp * op)
{
  size_t i;

  switch (op->type) {
    case OP_COPY2D:
      for (i = 0; i < op->u.copy.height; i++) {
        memmove (op->u.copy.dst + i * op->u.copy.dpitch,
            op->u.copy.src + i * op->u.copy.spitch, op->u.copy.width);
      }
      break;
    case OP_MEMSET:
      for (i = 0; i < op->u.memset.height; i++)
        sim_memset_row (op->u.memset.dst + i * op->u.memset.pitch,
            op->u.memset.value, op->u.memset.elem_size, op->u.memset.count);
      break;
    case OP_HOST_FUNC:
      sim_tls_in_host_fn = 1;
      op->u.host.fn (op->u.host.data);
      sim_tls_in_host_fn = 0;
      break;
    default:
      break;
  }
}

static void *
sim_stream_thread (void *data)
{
  SimStream *s = data;

  /* tests count live stream threads by this name */
  pthread_setname_np (pthread_self (), "cudasim-strm");
  pthread_mutex_lock (&g_sim.lock);
  for (;;) {
    SimOp *op;
    unsigned delay;

    s->state = "idle";
    while (!s->head && !s->destroyed)
      pthread_cond_wait (&g_sim.progress, &g_sim.lock);
    if (!s->head)
      break;                    /* destroyed and drained */

    op = s->head;
    s->state = "waiting for dependencies";
    while (!deplist_done_locked (&op->deps))
      pthread_cond_wait (&g_sim.progress, &g_sim.lock);

    delay = sim_op_delay_locked (op);
    if (delay) {
      s->state = "executing (simulated delay)";
      pthread_mutex_unlock (&g_sim.lock);
      sim_sleep_us (delay);
      pthread_mutex_lock (&g_sim.lock);
    }

    switch (op->type) {
      case OP_SEM_WAIT:
        s->state = "waiting on an external semaphore";
        while (!sim_sem_wait_step_locked (op))
          sim_sem_wait_block_locked (op);
        break;
      case OP_SEM_SIGNAL:
        sim_sem_signal_exec_locked (op);
        break;
      case OP_EVENT_RECORD:{
        SimEvent *ev = op->u.record.event;
        if (ev->gen == op->u.record.gen) {
          ev->time_ns = sim_now_ns ();
          ev->time_valid = 1;
        }
        break;
      }
      case OP_COPY2D:
      case OP_MEMSET:
      case OP_HOST_FUNC:
        s->state = "executing";
        pthread_mutex_unlock (&g_sim.lock);
        sim_op_execute_unlocked (op);
        pthread_mutex_lock (&g_sim.lock);
        break;
      default:
        break;
    }

    s->head = op->next;
    if (!s->head)
      s->tail = NULL;
    s->done_seq = op->seq;
    sim_op_free_locked (op);
    sim_process_deferred_locked ();
    sim_broadcast_locked ();
  }

  s->state = "exited";
  s->thread_exited = 1;
  sim_broadcast_locked ();
  sim_stream_unref_locked (s);  /* the thread's reference */
  pthread_mutex_unlock (&g_sim.lock);
  return NULL;
}

SimStream *
sim_stream_new_locked (SimCtx * ctx, unsigned flags, int is_null)
{
  SimStream *s = calloc (1, sizeof (SimStream));

  if (!s) {
    fprintf (stderr, "cudasim: out of memory\n");
    abort ();
  }
  s->refcount = 1;
  s->ctx = ctx;
  ctx->refcount++;
  s->flags = flags;
  s->is_null = is_null;
  s->state = "idle (no thread)";
  if (!is_null) {
    s->id = sim_register_locked (s, KIND_STREAM);
    g_sim.live[LIVE_STREAM]++;
    s->connection = ctx->streams_created++;
  }
  s->ctx_next = ctx->streams;
  ctx->streams = s;
  s->all_next = g_sim.all_streams;
  if (g_sim.all_streams)
    g_sim.all_streams->all_prev = s;
  g_sim.all_streams = s;
  return s;
}

void
sim_stream_ref_locked (SimStream * s)
{
  s->refcount++;
}

void
sim_stream_unref_locked (SimStream * s)
{
  SimStream **p;
  SimCtx *c;

  if (--s->refcount > 0)
    return;

  c = s->ctx;
  for (p = &c->streams; *p; p = &(*p)->ctx_next) {
    if (*p == s) {
      *p = s->ctx_next;
      break;
    }
  }
  if (c->null_stream == s)
    c->null_stream = NULL;
  if (s->all_prev)
    s->all_prev->all_next = s->all_next;
  else
    g_sim.all_streams = s->all_next;
  if (s->all_next)
    s->all_next->all_prev = s->all_prev;
  sim_ctx_unref_locked (c);
  free (s);
}

/* Drops the API (or owning context's) reference: the thread, if any, drains
 * the queue and exits. */
void
sim_stream_destroy_locked (SimStream * s)
{
  s->destroyed = 1;
  if (!s->is_null) {
    sim_unregister_locked (s->id);
    g_sim.live[LIVE_STREAM]--;
  }
  sim_broadcast_locked ();
  sim_stream_unref_locked (s);
}

CUresult
sim_resolve_stream_locked (CUstream h, const char *what, SimStream ** out)
{
  void *obj;
  CUresult r;

  if (h == NULL || h == CU_STREAM_LEGACY) {
    SimCtx *c = sim_current_ctx_locked ();
    if (!c || !c->null_stream)
      return CUDA_ERROR_INVALID_CONTEXT;
    *out = c->null_stream;
    return CUDA_SUCCESS;
  }
  if (h == CU_STREAM_PER_THREAD)
    return CUDA_ERROR_NOT_SUPPORTED;

  r = sim_resolve_locked (h, KIND_STREAM, what, &obj);
  if (r != CUDA_SUCCESS)
    return r;
  *out = obj;
  return CUDA_SUCCESS;
}

/* CUDASIM_CONNECTIONS=N: the driver feeds a context's streams to the GPU
 * through N hardware queues (CUDA_DEVICE_MAX_CONNECTIONS, 8 by default),
 * handed out in turn as streams are created, and a queue runs its work in
 * the order it was enqueued: work enqueued on a stream runs after the work
 * already enqueued on every other stream of its queue, which a stream
 * blocked on a semaphore wait holds up. 0 (unset): every stream on its
 * own queue. */
static void
sim_connection_order_locked (SimStream * s, SimOp * op)
{
  SimStream *t;
  int n = g_sim.connections;

  if (n <= 0 || s->is_null)
    return;
  for (t = s->ctx->streams; t; t = t->ctx_next) {
    if (t != s && !t->is_null && t->connection % n == s->connection % n &&
        t->enq_seq > t->done_seq)
      deplist_add_locked (&op->deps, t, t->enq_seq);
  }
}

/* CUDASIM_STREAM_DEPTH=N: the driver takes only so much work ahead of a
 * stream; an enqueue past that blocks the calling thread until the stream
 * ran some, as on the GPU, where a stream held up by a wait that is never
 * satisfied makes it block for good (the stall is reported after
 * SIM_STALL_REPORT_S, with what waits). Counted per stream. */
void
sim_wait_room_locked (SimStream * s)
{
  if (g_sim.stream_depth <= 0 || s->is_null)
    return;
  /* the caller holds a reference to @s (the lock is let go meanwhile) */
  while (!s->destroyed &&
      s->enq_seq - s->done_seq >= (uint64_t) g_sim.stream_depth)
    sim_wait_progress_locked ("an enqueue on a stream whose queue is full "
        "(CUDASIM_STREAM_DEPTH)");
}

uint64_t
sim_enqueue_locked (SimStream * s, SimOp * op)
{
  SimCtx *c = s->ctx;
  uint64_t seq;

  sim_stream_ref_locked (s);
  sim_wait_room_locked (s);

  /* legacy default stream semantics */
  if (s->is_null) {
    SimStream *t;
    for (t = c->streams; t; t = t->ctx_next) {
      if (t != s && !(t->flags & CU_STREAM_NON_BLOCKING) &&
          t->enq_seq > t->done_seq)
        deplist_add_locked (&op->deps, t, t->enq_seq);
    }
  } else if (!(s->flags & CU_STREAM_NON_BLOCKING) && c->null_stream) {
    SimStream *n = c->null_stream;
    if (n->enq_seq > n->done_seq)
      deplist_add_locked (&op->deps, n, n->enq_seq);
  }

  sim_connection_order_locked (s, op);
  op->seq = ++s->enq_seq;
  op->next = NULL;
  if (s->tail)
    s->tail->next = op;
  else
    s->head = op;
  s->tail = op;

  if (!s->thread_started) {
    pthread_t thread;
    pthread_attr_t attr;
    int r;

    pthread_attr_init (&attr);
    pthread_attr_setdetachstate (&attr, PTHREAD_CREATE_DETACHED);
    s->refcount++;              /* the thread's reference */
    r = pthread_create (&thread, &attr, sim_stream_thread, s);
    pthread_attr_destroy (&attr);
    if (r != 0) {
      fprintf (stderr, "cudasim: cannot create a stream thread: %s\n",
          strerror (r));
      abort ();
    }
    s->thread_started = 1;
  }

  seq = op->seq;
  sim_broadcast_locked ();
  sim_stream_unref_locked (s);
  return seq;
}

void
sim_wait_seq_locked (SimStream * s, uint64_t seq, const char *what)
{
  sim_stream_ref_locked (s);
  while (s->done_seq < seq)
    sim_wait_progress_locked (what);
  sim_stream_unref_locked (s);
}

void
sim_event_unref_locked (SimEvent * ev)
{
  if (--ev->refcount > 0)
    return;
  if (ev->rec_stream)
    sim_stream_unref_locked (ev->rec_stream);
  sim_ctx_unref_locked (ev->ctx);
  free (ev);
}

static void
sim_dump_state_locked (const char *what)
{
  SimStream *s;

  fprintf (stderr, "cudasim: %s has been waiting for %d s without progress; "
      "streams:\n", what, SIM_STALL_REPORT_S);
  for (s = g_sim.all_streams; s; s = s->all_next) {
    if (s->enq_seq == s->done_seq)
      continue;
    if (s->is_null)
      fprintf (stderr, "cudasim:   null stream of context %p",
          sim_handle_from_id (s->ctx->id, KIND_CONTEXT));
    else
      fprintf (stderr, "cudasim:   stream %p%s",
          sim_handle_from_id (s->id, KIND_STREAM),
          s->destroyed ? " (destroyed)" : "");
    fprintf (stderr, ": %llu queued, head %s from %s, %s\n",
        (unsigned long long) (s->enq_seq - s->done_seq),
        s->head ? (s->head->type == OP_SEM_WAIT ? "semaphore wait" :
            s->head->type == OP_SEM_SIGNAL ? "semaphore signal" :
            s->head->type == OP_COPY2D ? "copy" :
            s->head->type == OP_MEMSET ? "memset" :
            s->head->type == OP_HOST_FUNC ? "host function" :
            s->head->type == OP_EVENT_RECORD ? "event record" : "marker") :
        "-", s->head ? sim_entry_name (s->head->entry) : "-", s->state);
  }
}

/* Enqueues @op on @stream (async) or on the current context's null stream
 * followed by a wait (sync).  Takes ownership of @op. */
CUresult
sim_submit_locked (SimOp * op, CUstream stream, SimSubmit mode,
    const char *what)
{
  SimStream *s;
  CUresult r;
  uint64_t seq;

  if (mode == SIM_SUBMIT_SYNC)
    r = sim_resolve_stream_locked (NULL, what, &s);
  else
    r = sim_resolve_stream_locked (stream, what, &s);
  if (r != CUDA_SUCCESS) {
    free (op);
    return r;
  }
  seq = sim_enqueue_locked (s, op);
  if (mode == SIM_SUBMIT_SYNC) {
    sim_count_cpu_sync ();
    sim_wait_seq_locked (s, seq, what);
  }
  return CUDA_SUCCESS;
}

/* test API: waits until every queue is empty, then runs the releases that
 * were waiting for them */
SIM_EXPORT void
cudasim_drain (void)
{
  pthread_mutex_lock (&g_sim.lock);
  for (;;) {
    SimStream *s;
    int busy = 0;
    for (s = g_sim.all_streams; s; s = s->all_next) {
      if (s->enq_seq != s->done_seq) {
        busy = 1;
        break;
      }
    }
    if (!busy)
      break;
    sim_wait_progress_locked ("cudasim_drain");
  }
  sim_process_deferred_locked ();
  pthread_mutex_unlock (&g_sim.lock);
}

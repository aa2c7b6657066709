/* cudasim: core of the simulated CUDA driver.
 *
 * Handle registry, contexts, stream queues and their threads, dependency
 * tracking (legacy default stream, events), deferred memory release,
 * accounting, fault injection, violations and environment parsing.
 *
 * Locking: one global mutex (g_sim.lock) protects all simulator state, and
 * one condition variable (g_sim.progress) is broadcast on every change that
 * somebody may be waiting for (an operation completed, a semaphore changed,
 * work was queued, a handle was destroyed).  Stream threads only drop the
 * lock while they sleep (simulated GPU time) or run memory copies / host
 * functions.  The violation state has its own mutex, always taken after
 * g_sim.lock when both are needed.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "cudasim-internal.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

SimGlobal g_sim = {
  .lock = PTHREAD_MUTEX_INITIALIZER,
  .device_count = 1,
};

/* ------------------------------------------------------------------ */
/* entry points: names, call counts, fault injection, delays           */
/* ------------------------------------------------------------------ */

typedef struct
{
  const char *name;
  const char *alias;
  int needs_init;
  unsigned calls;
  unsigned fail_nth;            /* 0: not armed */
  unsigned fail_count;
  CUresult fail_result;
  unsigned delay_us;
} SimEntryState;

static SimEntryState g_entries[EP_COUNT] = {
#define SIM_EP_INIT_(sym, alias_, init) { .name = #sym, .alias = alias_, .needs_init = init },
  SIM_ENTRY_POINTS (SIM_EP_INIT_)
#undef SIM_EP_INIT_
  {.name = "(internal)"},
};

static unsigned g_global_delay_us;

static __thread int tls_in_host_fn;

const char *
sim_entry_name (SimEntry entry)
{
  if (entry < 0 || entry >= EP_COUNT)
    return "?";
  return g_entries[entry].name;
}

int
sim_entry_lookup (const char *name)
{
  int i;

  if (!name)
    return -1;
  for (i = 0; i < EP_INTERNAL; i++) {
    if (strcmp (g_entries[i].name, name) == 0 ||
        (g_entries[i].alias && strcmp (g_entries[i].alias, name) == 0))
      return i;
  }
  return -1;
}

int
sim_enter (SimEntry entry, CUresult * ret)
{
  SimEntryState *st = &g_entries[entry];
  int fail = 0;
  int initialized;
  CUresult fail_result = CUDA_SUCCESS;

  pthread_mutex_lock (&g_sim.lock);
  st->calls++;
  if (st->fail_nth) {
    st->fail_count++;
    if (st->fail_count == st->fail_nth) {
      fail = 1;
      fail_result = st->fail_result;
      st->fail_nth = 0;
      st->fail_count = 0;
    }
  }
  initialized = g_sim.initialized;
  pthread_mutex_unlock (&g_sim.lock);

  if (tls_in_host_fn && entry != EP_cuGetErrorName &&
      entry != EP_cuGetErrorString) {
    sim_violation ("%s called from a host function (cuLaunchHostFunc "
        "callbacks must not make CUDA calls)", st->name);
    *ret = CUDA_ERROR_NOT_PERMITTED;
    return 1;
  }

  if (fail) {
    if (getenv ("CUDASIM_VERBOSE"))
      fprintf (stderr, "cudasim: injected failure: %s -> %s\n", st->name,
          sim_result_name (fail_result));
    *ret = fail_result;
    return 1;
  }

  if (st->needs_init && !initialized) {
    *ret = CUDA_ERROR_NOT_INITIALIZED;
    return 1;
  }

  return 0;
}

/* ------------------------------------------------------------------ */
/* violations                                                          */
/* ------------------------------------------------------------------ */

static pthread_mutex_t g_viol_lock = PTHREAD_MUTEX_INITIALIZER;
static int g_viol_record;
static unsigned g_viol_count;
static char g_viol_last[1024];
static int g_viol_have_last;

void
sim_violation (const char *fmt, ...)
{
  char msg[1024];
  va_list ap;
  int record;

  va_start (ap, fmt);
  vsnprintf (msg, sizeof (msg), fmt, ap);
  va_end (ap);

  pthread_mutex_lock (&g_viol_lock);
  record = g_viol_record;
  if (record) {
    g_viol_count++;
    memcpy (g_viol_last, msg, sizeof (msg));
    g_viol_have_last = 1;
  }
  pthread_mutex_unlock (&g_viol_lock);

  if (!record) {
    fprintf (stderr, "cudasim: VIOLATION: %s\n", msg);
    fflush (stderr);
    abort ();
  }

  if (getenv ("CUDASIM_VERBOSE"))
    fprintf (stderr, "cudasim: VIOLATION (recorded): %s\n", msg);
}

/* ------------------------------------------------------------------ */
/* CPU sync accounting                                                 */
/* ------------------------------------------------------------------ */

static unsigned g_syncs_total;
static unsigned g_reset_gen;

typedef struct
{
  unsigned gen;
  unsigned count;
} SimThreadSyncs;

static __thread SimThreadSyncs tls_syncs;

void
sim_count_cpu_sync (void)
{
  unsigned gen = __atomic_load_n (&g_reset_gen, __ATOMIC_ACQUIRE);

  if (tls_syncs.gen != gen) {
    tls_syncs.gen = gen;
    tls_syncs.count = 0;
  }
  tls_syncs.count++;
  __atomic_add_fetch (&g_syncs_total, 1, __ATOMIC_RELAXED);
}

static unsigned g_spin_waits;

void
sim_count_spin_wait (void)
{
  __atomic_add_fetch (&g_spin_waits, 1, __ATOMIC_RELAXED);
}

/* ------------------------------------------------------------------ */
/* time, waiting                                                       */
/* ------------------------------------------------------------------ */

int64_t
sim_now_ns (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_MONOTONIC, &ts);
  return (int64_t) ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

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

void
sim_broadcast_locked (void)
{
  g_sim.progress_counter++;
  pthread_cond_broadcast (&g_sim.progress);
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
/* handle registry                                                     */
/* ------------------------------------------------------------------ */

#define SIM_HANDLE_TAG   0x5100000000000000ULL
#define SIM_HANDLE_MASK  0xff00000000000000ULL
#define SIM_ID_MASK      ((1ULL << 44) - 1)

uint64_t
sim_register_locked (void *obj, SimKind kind)
{
  uint64_t id;

  if (g_sim.n_ids == 0)
    g_sim.n_ids = 1;            /* id 0 is never used */
  if (g_sim.n_ids >= g_sim.cap_ids) {
    uint64_t cap = g_sim.cap_ids ? g_sim.cap_ids * 2 : 1024;
    g_sim.objs = realloc (g_sim.objs, cap * sizeof (void *));
    g_sim.obj_kind = realloc (g_sim.obj_kind, cap);
    if (!g_sim.objs || !g_sim.obj_kind) {
      fprintf (stderr, "cudasim: out of memory\n");
      abort ();
    }
    g_sim.cap_ids = cap;
  }
  id = g_sim.n_ids++;
  g_sim.objs[id] = obj;
  g_sim.obj_kind[id] = (unsigned char) kind;
  return id;
}

void
sim_unregister_locked (uint64_t id)
{
  if (id > 0 && id < g_sim.n_ids)
    g_sim.objs[id] = NULL;
}

void *
sim_handle_from_id (uint64_t id, SimKind kind)
{
  return (void *) (uintptr_t) (SIM_HANDLE_TAG | ((uint64_t) kind << 48) |
      ((id & SIM_ID_MASK) << 4));
}

int
sim_lookup_locked (const void *handle, SimKind kind, void **out)
{
  uint64_t h = (uint64_t) (uintptr_t) handle;
  uint64_t id;

  if ((h & SIM_HANDLE_MASK) != SIM_HANDLE_TAG ||
      ((h >> 48) & 0xff) != (uint64_t) kind || (h & 0xf) != 0)
    return 1;
  id = (h >> 4) & SIM_ID_MASK;
  if (id == 0 || id >= g_sim.n_ids || g_sim.obj_kind[id] != kind)
    return 1;
  if (!g_sim.objs[id])
    return 2;
  *out = g_sim.objs[id];
  return 0;
}

static const char *
sim_kind_name (SimKind kind)
{
  switch (kind) {
    case KIND_CONTEXT:
      return "context";
    case KIND_STREAM:
      return "stream";
    case KIND_EVENT:
      return "event";
    case KIND_EXTSEM:
      return "external semaphore";
    case KIND_EXTMEM:
      return "external memory";
    case KIND_MEMHANDLE:
      return "memory allocation";
    case KIND_MEMPOOL:
      return "memory pool";
    default:
      return "object";
  }
}

CUresult
sim_resolve_locked (const void *handle, SimKind kind, const char *what,
    void **out)
{
  int r = sim_lookup_locked (handle, kind, out);

  if (r == 2) {
    sim_violation ("%s: use after destroy of %s handle %p", what,
        sim_kind_name (kind), handle);
    return CUDA_ERROR_INVALID_HANDLE;
  }
  if (r != 0)
    return CUDA_ERROR_INVALID_HANDLE;
  return CUDA_SUCCESS;
}

/* ------------------------------------------------------------------ */
/* contexts                                                            */
/* ------------------------------------------------------------------ */

#define SIM_CTX_STACK_MAX 128
static __thread uint64_t tls_ctx_stack[SIM_CTX_STACK_MAX];
static __thread int tls_ctx_depth;

SimCtx *
sim_ctx_new_locked (int device, int primary)
{
  SimCtx *c = calloc (1, sizeof (SimCtx));

  if (!c)
    return NULL;
  c->refcount = 1;
  c->device = device;
  c->is_primary = primary;
  c->id = sim_register_locked (c, KIND_CONTEXT);
  c->null_stream = sim_stream_new_locked (c, 0, 1);
  /* the defaults of the H200 / CUDA 13 driver */
  c->limits[CU_LIMIT_STACK_SIZE] = 1024;
  c->limits[CU_LIMIT_PRINTF_FIFO_SIZE] = 1 << 20;
  c->limits[CU_LIMIT_MALLOC_HEAP_SIZE] = 8 << 20;
  c->limits[CU_LIMIT_DEV_RUNTIME_SYNC_DEPTH] = 2;
  c->limits[CU_LIMIT_DEV_RUNTIME_PENDING_LAUNCH_COUNT] = 2048;
  c->limits[CU_LIMIT_MAX_L2_FETCH_GRANULARITY] = 32;
  if (!primary)
    g_sim.live[LIVE_CONTEXT]++;
  return c;
}

void
sim_ctx_unref_locked (SimCtx * c)
{
  if (--c->refcount > 0)
    return;
  free (c->peers);
  free (c);
}

/* the current context of the calling thread (NULL when none, or when the
 * one on top of the stack was destroyed) */
SimCtx *
sim_current_ctx_locked (void)
{
  void *obj;

  if (tls_ctx_depth == 0)
    return NULL;
  if (sim_lookup_locked (sim_handle_from_id (tls_ctx_stack[tls_ctx_depth - 1],
              KIND_CONTEXT), KIND_CONTEXT, &obj) != 0)
    return NULL;
  return obj;
}

static int
ctx_stack_push (uint64_t id)
{
  if (tls_ctx_depth >= SIM_CTX_STACK_MAX)
    return -1;
  tls_ctx_stack[tls_ctx_depth++] = id;
  return 0;
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
  unsigned us = g_entries[op->entry].delay_us;

  if (op->global_delay)
    us += g_global_delay_us;
  return us;
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
      tls_in_host_fn = 1;
      op->u.host.fn (op->u.host.data);
      tls_in_host_fn = 0;
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

uint64_t
sim_enqueue_locked (SimStream * s, SimOp * op)
{
  SimCtx *c = s->ctx;

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

  sim_broadcast_locked ();
  return op->seq;
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

/* ------------------------------------------------------------------ */
/* allocation table (sorted by base address)                           */
/* ------------------------------------------------------------------ */

typedef struct
{
  uintptr_t base;
  size_t size;
  SimAllocKind kind;
  void *owner;
} SimAlloc;

static SimAlloc *g_allocs;
static size_t g_n_allocs, g_cap_allocs;

/* index of the last allocation with base <= p, or -1 */
static long
alloc_find (uintptr_t p)
{
  long lo = 0, hi = (long) g_n_allocs - 1, best = -1;

  while (lo <= hi) {
    long mid = (lo + hi) / 2;
    if (g_allocs[mid].base <= p) {
      best = mid;
      lo = mid + 1;
    } else {
      hi = mid - 1;
    }
  }
  return best;
}

void
sim_alloc_add_locked (void *base, size_t size, SimAllocKind kind, void *owner)
{
  long i = alloc_find ((uintptr_t) base) + 1;

  if (g_n_allocs == g_cap_allocs) {
    g_cap_allocs = g_cap_allocs ? g_cap_allocs * 2 : 256;
    g_allocs = realloc (g_allocs, g_cap_allocs * sizeof (SimAlloc));
    if (!g_allocs) {
      fprintf (stderr, "cudasim: out of memory\n");
      abort ();
    }
  }
  memmove (&g_allocs[i + 1], &g_allocs[i],
      (g_n_allocs - (size_t) i) * sizeof (SimAlloc));
  g_allocs[i].base = (uintptr_t) base;
  g_allocs[i].size = size;
  g_allocs[i].kind = kind;
  g_allocs[i].owner = owner;
  g_n_allocs++;
  if (kind != ALLOC_VMM)
    g_sim.live[kind == ALLOC_HOST ? LIVE_HOSTALLOC : LIVE_ALLOC]++;
}

int
sim_alloc_remove_locked (void *base, SimAllocKind * kind, size_t *size,
    void **owner)
{
  long i = alloc_find ((uintptr_t) base);

  if (i < 0 || g_allocs[i].base != (uintptr_t) base)
    return 0;
  if (kind)
    *kind = g_allocs[i].kind;
  if (size)
    *size = g_allocs[i].size;
  if (owner)
    *owner = g_allocs[i].owner;
  if (g_allocs[i].kind != ALLOC_VMM)
    g_sim.live[g_allocs[i].kind == ALLOC_HOST ? LIVE_HOSTALLOC : LIVE_ALLOC]--;
  memmove (&g_allocs[i], &g_allocs[i + 1],
      (g_n_allocs - (size_t) i - 1) * sizeof (SimAlloc));
  g_n_allocs--;
  return 1;
}

int
sim_alloc_contains_locked (const void *p, size_t len, void **base, size_t *size)
{
  uintptr_t a = (uintptr_t) p;
  long i = alloc_find (a);

  if (i < 0)
    return 0;
  if (a - g_allocs[i].base > g_allocs[i].size ||
      len > g_allocs[i].size - (a - g_allocs[i].base))
    return 0;
  if (len == 0 && a == g_allocs[i].base + g_allocs[i].size)
    return 0;
  if (base)
    *base = (void *) g_allocs[i].base;
  if (size)
    *size = g_allocs[i].size;
  return 1;
}

size_t
sim_alloc_total_device_locked (void)
{
  size_t i, total = 0;

  for (i = 0; i < g_n_allocs; i++) {
    if (g_allocs[i].kind == ALLOC_DEVICE || g_allocs[i].kind == ALLOC_VMM)
      total += g_allocs[i].size;
  }
  return total;
}

/* ------------------------------------------------------------------ */
/* contexts: entry points that need the thread-local stack             */
/* ------------------------------------------------------------------ */

static CUresult
sim_ctx_create (CUcontext * pctx, unsigned int flags, CUdevice dev)
{
  SimCtx *c;

  if (!pctx)
    return CUDA_ERROR_INVALID_VALUE;
  pthread_mutex_lock (&g_sim.lock);
  if (dev < 0 || dev >= g_sim.device_count) {
    pthread_mutex_unlock (&g_sim.lock);
    return CUDA_ERROR_INVALID_DEVICE;
  }
  if (tls_ctx_depth >= SIM_CTX_STACK_MAX) {
    pthread_mutex_unlock (&g_sim.lock);
    return CUDA_ERROR_OUT_OF_MEMORY;
  }
  c = sim_ctx_new_locked (dev, 0);
  ctx_stack_push (c->id);
  *pctx = sim_handle_from_id (c->id, KIND_CONTEXT);
  pthread_mutex_unlock (&g_sim.lock);
  return CUDA_SUCCESS;
}

SIM_EXPORT CUresult
cuCtxCreate_v2 (CUcontext * pctx, unsigned int flags, CUdevice dev)
{
  SIM_ENTER (cuCtxCreate_v2);
  return sim_ctx_create (pctx, flags, dev);
}

SIM_EXPORT CUresult
cuCtxCreate (CUcontext * pctx, unsigned int flags, CUdevice dev)
{
  SIM_ENTER (cuCtxCreate_v2);
  return sim_ctx_create (pctx, flags, dev);
}

SIM_EXPORT CUresult
cuCtxCreate_v4 (CUcontext * pctx, CUctxCreateParams * params,
    unsigned int flags, CUdevice dev)
{
  SIM_ENTER (cuCtxCreate_v4);
  if (params && (params->execAffinityParams || params->cigParams))
    return CUDA_ERROR_NOT_SUPPORTED;
  return sim_ctx_create (pctx, flags, dev);
}

static CUresult
sim_ctx_destroy (CUcontext ctx)
{
  SimCtx *c;
  void *obj;

  pthread_mutex_lock (&g_sim.lock);
  if (sim_lookup_locked (ctx, KIND_CONTEXT, &obj) != 0) {
    pthread_mutex_unlock (&g_sim.lock);
    return CUDA_ERROR_INVALID_CONTEXT;
  }
  c = obj;
  if (c->is_primary) {
    pthread_mutex_unlock (&g_sim.lock);
    return CUDA_ERROR_INVALID_CONTEXT;
  }
  if (tls_ctx_depth > 0 && tls_ctx_stack[tls_ctx_depth - 1] == c->id)
    tls_ctx_depth--;
  c->destroyed = 1;
  sim_unregister_locked (c->id);
  g_sim.live[LIVE_CONTEXT]--;
  if (c->null_stream)
    sim_stream_destroy_locked (c->null_stream);
  sim_ctx_unref_locked (c);
  pthread_mutex_unlock (&g_sim.lock);
  return CUDA_SUCCESS;
}

SIM_EXPORT CUresult
cuCtxDestroy_v2 (CUcontext ctx)
{
  SIM_ENTER (cuCtxDestroy_v2);
  return sim_ctx_destroy (ctx);
}

SIM_EXPORT CUresult
cuCtxDestroy (CUcontext ctx)
{
  SIM_ENTER (cuCtxDestroy_v2);
  return sim_ctx_destroy (ctx);
}

static CUresult
sim_ctx_push (CUcontext ctx)
{
  void *obj;
  CUresult r = CUDA_SUCCESS;

  pthread_mutex_lock (&g_sim.lock);
  if (sim_lookup_locked (ctx, KIND_CONTEXT, &obj) != 0)
    r = CUDA_ERROR_INVALID_CONTEXT;
  else if (ctx_stack_push (((SimCtx *) obj)->id) != 0)
    r = CUDA_ERROR_INVALID_VALUE;
  pthread_mutex_unlock (&g_sim.lock);
  return r;
}

SIM_EXPORT CUresult
cuCtxPushCurrent_v2 (CUcontext ctx)
{
  SIM_ENTER (cuCtxPushCurrent_v2);
  return sim_ctx_push (ctx);
}

SIM_EXPORT CUresult
cuCtxPushCurrent (CUcontext ctx)
{
  SIM_ENTER (cuCtxPushCurrent_v2);
  return sim_ctx_push (ctx);
}

static CUresult
sim_ctx_pop (CUcontext * pctx)
{
  uint64_t id;

  if (tls_ctx_depth == 0)
    return CUDA_ERROR_INVALID_CONTEXT;
  id = tls_ctx_stack[--tls_ctx_depth];
  if (pctx)
    *pctx = sim_handle_from_id (id, KIND_CONTEXT);
  return CUDA_SUCCESS;
}

SIM_EXPORT CUresult
cuCtxPopCurrent_v2 (CUcontext * pctx)
{
  SIM_ENTER (cuCtxPopCurrent_v2);
  return sim_ctx_pop (pctx);
}

SIM_EXPORT CUresult
cuCtxPopCurrent (CUcontext * pctx)
{
  SIM_ENTER (cuCtxPopCurrent_v2);
  return sim_ctx_pop (pctx);
}

SIM_EXPORT CUresult
cuCtxSetCurrent (CUcontext ctx)
{
  void *obj;

  SIM_ENTER (cuCtxSetCurrent);
  if (ctx == NULL) {
    if (tls_ctx_depth > 0)
      tls_ctx_depth--;
    return CUDA_SUCCESS;
  }
  pthread_mutex_lock (&g_sim.lock);
  if (sim_lookup_locked (ctx, KIND_CONTEXT, &obj) != 0) {
    pthread_mutex_unlock (&g_sim.lock);
    return CUDA_ERROR_INVALID_CONTEXT;
  }
  if (tls_ctx_depth > 0)
    tls_ctx_stack[tls_ctx_depth - 1] = ((SimCtx *) obj)->id;
  else
    ctx_stack_push (((SimCtx *) obj)->id);
  pthread_mutex_unlock (&g_sim.lock);
  return CUDA_SUCCESS;
}

SIM_EXPORT CUresult
cuCtxGetCurrent (CUcontext * pctx)
{
  SIM_ENTER (cuCtxGetCurrent);
  if (!pctx)
    return CUDA_ERROR_INVALID_VALUE;
  if (tls_ctx_depth == 0)
    *pctx = NULL;
  else
    *pctx = sim_handle_from_id (tls_ctx_stack[tls_ctx_depth - 1], KIND_CONTEXT);
  return CUDA_SUCCESS;
}

SIM_EXPORT CUresult
cuCtxGetDevice (CUdevice * device)
{
  SimCtx *c;

  SIM_ENTER (cuCtxGetDevice);
  if (!device)
    return CUDA_ERROR_INVALID_VALUE;
  pthread_mutex_lock (&g_sim.lock);
  c = sim_current_ctx_locked ();
  if (c)
    *device = c->device;
  pthread_mutex_unlock (&g_sim.lock);
  return c ? CUDA_SUCCESS : CUDA_ERROR_INVALID_CONTEXT;
}

SIM_EXPORT CUresult
cuCtxSynchronize (void)
{
  SimCtx *c;
  SimStream *s;
  SimStream **list = NULL;
  uint64_t *targets = NULL;
  int n = 0, i;

  SIM_ENTER (cuCtxSynchronize);
  pthread_mutex_lock (&g_sim.lock);
  c = sim_current_ctx_locked ();
  if (!c) {
    pthread_mutex_unlock (&g_sim.lock);
    return CUDA_ERROR_INVALID_CONTEXT;
  }
  sim_count_cpu_sync ();
  for (s = c->streams; s; s = s->ctx_next)
    n++;
  list = calloc (n ? n : 1, sizeof (SimStream *));
  targets = calloc (n ? n : 1, sizeof (uint64_t));
  if (!list || !targets) {
    fprintf (stderr, "cudasim: out of memory\n");
    abort ();
  }
  n = 0;
  for (s = c->streams; s; s = s->ctx_next) {
    sim_stream_ref_locked (s);
    list[n] = s;
    targets[n] = s->enq_seq;
    n++;
  }
  for (i = 0; i < n; i++) {
    sim_wait_seq_locked (list[i], targets[i], "cuCtxSynchronize");
    sim_stream_unref_locked (list[i]);
  }
  pthread_mutex_unlock (&g_sim.lock);
  free (list);
  free (targets);
  return CUDA_SUCCESS;
}

SIM_EXPORT CUresult
cuDevicePrimaryCtxRetain (CUcontext * pctx, CUdevice dev)
{
  SimCtx *c;

  SIM_ENTER (cuDevicePrimaryCtxRetain);
  if (!pctx)
    return CUDA_ERROR_INVALID_VALUE;
  pthread_mutex_lock (&g_sim.lock);
  if (dev < 0 || dev >= g_sim.device_count) {
    pthread_mutex_unlock (&g_sim.lock);
    return CUDA_ERROR_INVALID_DEVICE;
  }
  c = g_sim.primary[dev];
  if (!c) {
    c = sim_ctx_new_locked (dev, 1);
    g_sim.primary[dev] = c;
  }
  if (c->primary_retain++ == 0)
    g_sim.live[LIVE_CONTEXT]++;
  *pctx = sim_handle_from_id (c->id, KIND_CONTEXT);
  pthread_mutex_unlock (&g_sim.lock);
  return CUDA_SUCCESS;
}

static CUresult
sim_primary_release (CUdevice dev)
{
  SimCtx *c;
  CUresult r = CUDA_SUCCESS;

  pthread_mutex_lock (&g_sim.lock);
  if (dev < 0 || dev >= g_sim.device_count) {
    r = CUDA_ERROR_INVALID_DEVICE;
  } else {
    c = g_sim.primary[dev];
    if (!c || c->primary_retain == 0)
      r = CUDA_ERROR_INVALID_CONTEXT;
    else if (--c->primary_retain == 0)
      g_sim.live[LIVE_CONTEXT]--;
  }
  pthread_mutex_unlock (&g_sim.lock);
  return r;
}

SIM_EXPORT CUresult
cuDevicePrimaryCtxRelease_v2 (CUdevice dev)
{
  SIM_ENTER (cuDevicePrimaryCtxRelease_v2);
  return sim_primary_release (dev);
}

SIM_EXPORT CUresult
cuDevicePrimaryCtxRelease (CUdevice dev)
{
  SIM_ENTER (cuDevicePrimaryCtxRelease_v2);
  return sim_primary_release (dev);
}

/* Limits: per context, the current context's.  Values are kept as set
 * (the real driver may round some of them). SHMEM_SIZE / CIG_* belong to
 * CIG contexts, which are not simulated. */
static int
sim_limit_supported (CUlimit limit)
{
  return (int) limit >= 0 && limit <= CU_LIMIT_PERSISTING_L2_CACHE_SIZE;
}

SIM_EXPORT CUresult
cuCtxGetLimit (size_t *pvalue, CUlimit limit)
{
  SimCtx *c;

  SIM_ENTER (cuCtxGetLimit);
  if (!pvalue || (int) limit < 0 || limit >= CU_LIMIT_MAX)
    return CUDA_ERROR_INVALID_VALUE;
  if (!sim_limit_supported (limit))
    return CUDA_ERROR_UNSUPPORTED_LIMIT;
  pthread_mutex_lock (&g_sim.lock);
  c = sim_current_ctx_locked ();
  if (c)
    *pvalue = c->limits[limit];
  pthread_mutex_unlock (&g_sim.lock);
  return c ? CUDA_SUCCESS : CUDA_ERROR_INVALID_CONTEXT;
}

SIM_EXPORT CUresult
cuCtxSetLimit (CUlimit limit, size_t value)
{
  SimCtx *c;

  SIM_ENTER (cuCtxSetLimit);
  if ((int) limit < 0 || limit >= CU_LIMIT_MAX)
    return CUDA_ERROR_INVALID_VALUE;
  if (!sim_limit_supported (limit))
    return CUDA_ERROR_UNSUPPORTED_LIMIT;
  if (limit == CU_LIMIT_MAX_L2_FETCH_GRANULARITY && value > 128)
    return CUDA_ERROR_INVALID_VALUE;
  pthread_mutex_lock (&g_sim.lock);
  c = sim_current_ctx_locked ();
  if (c)
    c->limits[limit] = value;
  pthread_mutex_unlock (&g_sim.lock);
  return c ? CUDA_SUCCESS : CUDA_ERROR_INVALID_CONTEXT;
}

/* ------------------------------------------------------------------ */
/* environment                                                         */
/* ------------------------------------------------------------------ */

static void
sim_parse_env (void)
{
  const char *v;

  v = getenv ("CUDASIM_DEVICE_COUNT");
  if (v && *v) {
    long n = strtol (v, NULL, 10);
    if (n < 0 || n > 64)
      fprintf (stderr, "cudasim: ignoring CUDASIM_DEVICE_COUNT=%s\n", v);
    else
      g_sim.device_count = (int) n;
  }

  v = getenv ("CUDASIM_VIOLATIONS");
  if (v && *v) {
    if (strcasecmp (v, "record") == 0)
      g_viol_record = 1;
    else if (strcasecmp (v, "abort") == 0)
      g_viol_record = 0;
    else
      fprintf (stderr, "cudasim: ignoring CUDASIM_VIOLATIONS=%s "
          "(abort|record)\n", v);
  }

  v = getenv ("CUDASIM_DELAY_US");
  if (v && *v)
    g_global_delay_us = (unsigned) strtoul (v, NULL, 10);

  v = getenv ("CUDASIM_DELAY");
  if (v && *v) {
    char *copy = strdup (v), *save = NULL, *tok;
    for (tok = strtok_r (copy, ",", &save); tok;
        tok = strtok_r (NULL, ",", &save)) {
      char *colon = strchr (tok, ':');
      int e;
      if (!colon) {
        fprintf (stderr, "cudasim: CUDASIM_DELAY: bad item '%s' "
            "(entry:us)\n", tok);
        continue;
      }
      *colon = '\0';
      e = sim_entry_lookup (tok);
      if (e < 0) {
        fprintf (stderr, "cudasim: CUDASIM_DELAY: unknown entry point "
            "'%s'\n", tok);
        continue;
      }
      g_entries[e].delay_us = (unsigned) strtoul (colon + 1, NULL, 10);
    }
    free (copy);
  }

  v = getenv ("CUDASIM_FAIL");
  if (v && *v) {
    char *copy = strdup (v), *save = NULL, *tok;
    for (tok = strtok_r (copy, ",", &save); tok;
        tok = strtok_r (NULL, ",", &save)) {
      char *nth = strchr (tok, ':'), *res;
      CUresult result = CUDA_ERROR_UNKNOWN;
      int e;
      if (!nth) {
        fprintf (stderr, "cudasim: CUDASIM_FAIL: bad item '%s' "
            "(entry:n[:CUDA_ERROR_x])\n", tok);
        continue;
      }
      *nth++ = '\0';
      res = strchr (nth, ':');
      if (res) {
        *res++ = '\0';
        if (!sim_result_from_string (res, &result)) {
          fprintf (stderr, "cudasim: CUDASIM_FAIL: unknown result '%s'\n", res);
          continue;
        }
      }
      e = sim_entry_lookup (tok);
      if (e < 0) {
        fprintf (stderr, "cudasim: CUDASIM_FAIL: unknown entry point "
            "'%s'\n", tok);
        continue;
      }
      g_entries[e].fail_nth = (unsigned) strtoul (nth, NULL, 10);
      g_entries[e].fail_count = 0;
      g_entries[e].fail_result = result;
    }
    free (copy);
  }
}

__attribute__((constructor))
     static void sim_init (void)
{
  pthread_condattr_t attr;

  pthread_condattr_init (&attr);
  pthread_condattr_setclock (&attr, CLOCK_MONOTONIC);
  pthread_cond_init (&g_sim.progress, &attr);
  pthread_condattr_destroy (&attr);

  sim_parse_env ();
  g_sim.primary = calloc (g_sim.device_count ? g_sim.device_count : 1,
      sizeof (SimCtx *));
}

/* CUDASIM_STATS=1: print call counts and live objects at exit (handy with
 * gst-launch-1.0) */
__attribute__((destructor))
     static void sim_fini (void)
{
  int i;

  if (!getenv ("CUDASIM_STATS"))
    return;
  pthread_mutex_lock (&g_sim.lock);
  fprintf (stderr, "cudasim: calls:");
  for (i = 0; i < EP_INTERNAL; i++) {
    if (g_entries[i].calls)
      fprintf (stderr, " %s=%u", g_entries[i].name, g_entries[i].calls);
  }
  fprintf (stderr, "\ncudasim: cpu syncs=%u violations=%u live: context=%d "
      "stream=%d event=%d extsem=%d extmem=%d alloc=%d hostalloc=%d "
      "memhandle=%d varange=%d mempool=%d\n",
      g_syncs_total, g_viol_count, g_sim.live[LIVE_CONTEXT],
      g_sim.live[LIVE_STREAM], g_sim.live[LIVE_EVENT], g_sim.live[LIVE_EXTSEM],
      g_sim.live[LIVE_EXTMEM], g_sim.live[LIVE_ALLOC],
      g_sim.live[LIVE_HOSTALLOC], g_sim.live[LIVE_MEMHANDLE],
      g_sim.live[LIVE_VARANGE], g_sim.live[LIVE_MEMPOOL]);
  pthread_mutex_unlock (&g_sim.lock);
}

/* ------------------------------------------------------------------ */
/* test API: control and accounting                                    */
/* ------------------------------------------------------------------ */

SIM_EXPORT void
cudasim_set_delay_us (const char *entry_point, unsigned us)
{
  int e;

  pthread_mutex_lock (&g_sim.lock);
  if (!entry_point) {
    g_global_delay_us = us;
  } else if ((e = sim_entry_lookup (entry_point)) >= 0) {
    g_entries[e].delay_us = us;
  } else {
    fprintf (stderr, "cudasim: cudasim_set_delay_us: unknown entry point "
        "'%s'\n", entry_point);
  }
  pthread_mutex_unlock (&g_sim.lock);
}

SIM_EXPORT void
cudasim_inject_failure (const char *entry_point, unsigned nth, CUresult result)
{
  int e = sim_entry_lookup (entry_point);

  if (e < 0) {
    fprintf (stderr, "cudasim: cudasim_inject_failure: unknown entry point "
        "'%s'\n", entry_point ? entry_point : "(null)");
    return;
  }
  pthread_mutex_lock (&g_sim.lock);
  g_entries[e].fail_nth = nth;
  g_entries[e].fail_count = 0;
  g_entries[e].fail_result = result;
  pthread_mutex_unlock (&g_sim.lock);
}

SIM_EXPORT void
cudasim_clear_failures (void)
{
  int i;

  pthread_mutex_lock (&g_sim.lock);
  for (i = 0; i < EP_COUNT; i++) {
    g_entries[i].fail_nth = 0;
    g_entries[i].fail_count = 0;
  }
  pthread_mutex_unlock (&g_sim.lock);
}

SIM_EXPORT unsigned
cudasim_thread_cpu_syncs (void)
{
  unsigned gen = __atomic_load_n (&g_reset_gen, __ATOMIC_ACQUIRE);

  if (tls_syncs.gen != gen)
    return 0;
  return tls_syncs.count;
}

SIM_EXPORT unsigned
cudasim_total_cpu_syncs (void)
{
  return __atomic_load_n (&g_syncs_total, __ATOMIC_RELAXED);
}

SIM_EXPORT unsigned
cudasim_spin_waits (void)
{
  return __atomic_load_n (&g_spin_waits, __ATOMIC_RELAXED);
}

SIM_EXPORT unsigned
cudasim_call_count (const char *entry_point)
{
  int e = sim_entry_lookup (entry_point);
  unsigned n;

  if (e < 0)
    return 0;
  pthread_mutex_lock (&g_sim.lock);
  n = g_entries[e].calls;
  pthread_mutex_unlock (&g_sim.lock);
  return n;
}

SIM_EXPORT void
cudasim_reset_counters (void)
{
  int i;

  pthread_mutex_lock (&g_sim.lock);
  for (i = 0; i < EP_COUNT; i++)
    g_entries[i].calls = 0;
  __atomic_store_n (&g_syncs_total, 0, __ATOMIC_RELAXED);
  __atomic_store_n (&g_spin_waits, 0, __ATOMIC_RELAXED);
  __atomic_add_fetch (&g_reset_gen, 1, __ATOMIC_RELEASE);
  pthread_mutex_unlock (&g_sim.lock);

  pthread_mutex_lock (&g_viol_lock);
  g_viol_count = 0;
  g_viol_have_last = 0;
  pthread_mutex_unlock (&g_viol_lock);
}

SIM_EXPORT void
cudasim_set_violation_mode (int record)
{
  pthread_mutex_lock (&g_viol_lock);
  g_viol_record = record ? 1 : 0;
  pthread_mutex_unlock (&g_viol_lock);
}

SIM_EXPORT unsigned
cudasim_violation_count (void)
{
  unsigned n;

  pthread_mutex_lock (&g_viol_lock);
  n = g_viol_count;
  pthread_mutex_unlock (&g_viol_lock);
  return n;
}

SIM_EXPORT const char *
cudasim_last_violation (void)
{
  static __thread char copy[1024];
  int have;

  pthread_mutex_lock (&g_viol_lock);
  have = g_viol_have_last;
  if (have)
    memcpy (copy, g_viol_last, sizeof (copy));
  pthread_mutex_unlock (&g_viol_lock);
  return have ? copy : NULL;
}

SIM_EXPORT int
cudasim_live_objects (const char *kind)
{
  static const char *const names[LIVE_COUNT] = {
    "context", "stream", "event", "extsem", "extmem", "alloc", "hostalloc",
    "memhandle", "varange", "mempool"
  };
  int i, n = -1;

  if (!kind)
    return -1;
  pthread_mutex_lock (&g_sim.lock);
  for (i = 0; i < LIVE_COUNT; i++) {
    if (strcmp (names[i], kind) == 0) {
      n = g_sim.live[i];
      break;
    }
  }
  pthread_mutex_unlock (&g_sim.lock);
  return n;
}

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

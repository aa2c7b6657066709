/* cudasim: core of the simulated CUDA driver.
 *
 * The entry-point table (names, call counts, fault injection, delays),
 * violations, CPU sync accounting, time, environment parsing, and the test
 * API's control and accounting functions.  The other files build on this:
 * sim-registry.c (handles, the current context, allocations), sim-stream.c
 * (operations, stream threads, deferred release), then the entry points by
 * topic (README.md lists them).
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

/* set while a stream thread runs a cuLaunchHostFunc callback
 * (sim-stream.c): a CUDA call from there is a violation */
__thread int sim_tls_in_host_fn;

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

  if (sim_tls_in_host_fn && entry != EP_cuGetErrorName &&
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

/* how long a stream thread sleeps before executing an operation of
 * @entry: the entry point's delay, plus the global delay for work */
unsigned
sim_entry_delay_locked (SimEntry entry, int global_delay)
{
  unsigned us = g_entries[entry].delay_us;

  if (global_delay)
    us += g_global_delay_us;
  return us;
}

/* the simulator's own bookkeeping cannot fail gracefully */
void
sim_oom (void)
{
  fprintf (stderr, "cudasim: out of memory\n");
  abort ();
}

int
sim_device_ok (int dev)
{
  return dev >= 0 && dev < g_sim.device_count;
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
/* time, progress                                                      */
/* ------------------------------------------------------------------ */

int64_t
sim_now_ns (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_MONOTONIC, &ts);
  return (int64_t) ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

void
sim_broadcast_locked (void)
{
  g_sim.progress_counter++;
  pthread_cond_broadcast (&g_sim.progress);
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

  v = getenv ("CUDASIM_CONNECTIONS");
  if (v && *v)
    g_sim.connections = atoi (v);

  v = getenv ("CUDASIM_STREAM_DEPTH");
  g_sim.stream_depth = v && *v ? atoi (v) : SIM_STREAM_DEPTH;

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

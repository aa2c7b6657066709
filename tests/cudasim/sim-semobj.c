/* cudasim: external semaphore objects.
 *
 * The exporter-side semaphore objects behind every external semaphore
 * handle: values, signals and waits (binary, timeline, NvSciSync), host
 * waits, the payload of an exported fd and its import (in this process or
 * another), and the stream-thread side of queued signals and waits.  The
 * test-only exporter API is in sim-semexport.c, NvSciSync fences in
 * sim-nvsci.c, the CUDA entry points in sim-extsem.c.
 *
 * Semaphore fds are memfds created at the first cudasim_sem_export_fd().
 * Each starts with a header (magic, per-export nonce, semaphore id) and the
 * export is recorded together with the st_dev/st_ino of the memfd; an fd is
 * accepted by cuImportExternalSemaphore() only when header, record and inode
 * agree, so foreign fds (/dev/null, pipes, other memfds) are rejected.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "cudasim-internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* ------------------------------------------------------------------ */
/* semaphore objects                                                   */
/* ------------------------------------------------------------------ */

static SimSemObject **g_sems;   /* indexed by id */
static int g_n_sems = 1, g_cap_sems;

typedef struct SimSemExport
{
  struct SimSemExport *next;
  uint64_t nonce;
  dev_t dev;
  ino_t ino;
  int sem_id;
} SimSemExport;

static SimSemExport *g_exports;
static uint64_t g_export_serial;

#define SIM_SEMFD_MAGIC "cudasim-semfd-1"
#define SIM_SEMFD_SIZE 4096
#define SIM_SEMFD_VALUE_OFFSET 64

typedef struct
{
  char magic[16];
  uint64_t nonce;
  int32_t sem_id;
  int32_t type;
  int32_t pid;                  /* the exporting process */
} SimSemFdHeader;

SimSemObject *
sim_sem_get_locked (int id)
{
  if (id <= 0 || id >= g_n_sems)
    return NULL;
  return g_sems[id];
}

void
sim_sem_object_unref_locked (SimSemObject * sem)
{
  SimSemExport **p;

  if (--sem->refcount > 0)
    return;
  p = &g_exports;
  while (*p) {
    if ((*p)->sem_id == sem->id) {
      SimSemExport *e = *p;
      *p = e->next;
      free (e);
    } else {
      p = &(*p)->next;
    }
  }
  g_sems[sem->id] = NULL;
  if (sem->shared)
    munmap ((char *) sem->shared - SIM_SEMFD_VALUE_OFFSET, SIM_SEMFD_SIZE);
  if (sem->shared_fd > 0)
    close (sem->shared_fd);
  free (sem);
}

/* The value of a semaphore whose fd was exported (or imported from another
 * process) lives in its memfd, shared with every process that maps it;
 * the value of an NvSciSync object or of a semaphore never exported lives
 * in the object. Accesses are atomic: another process changes shared
 * values without this process's lock. */
uint64_t
sim_sem_value (const SimSemObject * sem)
{
  if (sem->shared)
    return __atomic_load_n (sem->shared, __ATOMIC_ACQUIRE);
  return sem->value;
}

static void
sem_set_value (SimSemObject * sem, uint64_t value)
{
  if (sem->shared)
    __atomic_store_n (sem->shared, value, __ATOMIC_RELEASE);
  else
    sem->value = value;
}

/* Binary wait: consumes a signal; 1 when there was one. */
static int
sem_consume (SimSemObject * sem)
{
  uint64_t one = 1;

  if (sem->shared)
    return __atomic_compare_exchange_n (sem->shared, &one, 0, 0,
        __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE);
  if (!sem->value)
    return 0;
  sem->value = 0;
  return 1;
}

/* Applies a signal; returns 0, or -1 after reporting a violation. */
int
sim_sem_signal_locked (SimSemObject * sem, uint64_t value, const char *who)
{
  switch (sem->type) {
    case CUDASIM_SEM_TIMELINE:{
      uint64_t cur = sim_sem_value (sem);
      if (value <= cur) {
        sim_violation ("%s: timeline semaphore %d signalled with "
            "non-increasing value %llu (current value %llu)", who, sem->id,
            (unsigned long long) value, (unsigned long long) cur);
        return -1;
      }
      sem_set_value (sem, value);
      break;
    }
    case CUDASIM_SEM_BINARY:
      if (sim_sem_value (sem)) {
        sim_violation ("%s: binary semaphore %d signalled twice without a "
            "wait", who, sem->id);
        return -1;
      }
      sem_set_value (sem, 1);
      break;
    case CUDASIM_SEM_NVSCI:
      /* deterministic fences: each signal advances the count by exactly
       * one, so signals must execute in the order their fences were
       * handed out (cuda.h: one stream, or streams ordered explicitly) */
      if (value != sem->value + 1) {
        sim_violation ("%s: NvSciSync object %d: deterministic fence value "
            "%llu executed while the count is %llu (signals of one object "
            "executed out of order: serialise them on one stream or order "
            "the streams)", who, sem->id, (unsigned long long) value,
            (unsigned long long) sem->value);
        if (value > sem->value)
          sem->value = value;
        sim_broadcast_locked ();
        return -1;
      }
      sem->value = value;
      break;
  }
  sim_broadcast_locked ();
  return 0;
}

/* One wait attempt; returns 1 when satisfied (binary: consumed). */
static int
sem_try_wait_locked (SimSemObject * sem, uint64_t value)
{
  switch (sem->type) {
    case CUDASIM_SEM_TIMELINE:
    case CUDASIM_SEM_NVSCI:
      return sim_sem_value (sem) >= value;
    case CUDASIM_SEM_BINARY:
      if (!sem_consume (sem))
        return 0;
      sim_broadcast_locked ();
      return 1;
  }
  return 0;
}

/* Gives @sem the next id; -1 when out of memory. */
int
sim_sem_register_locked (SimSemObject * sem)
{
  if (g_n_sems >= g_cap_sems) {
    int cap = g_cap_sems ? g_cap_sems * 2 : 64;
    SimSemObject **n = realloc (g_sems, (size_t) cap * sizeof (*n));
    if (!n)
      return -1;
    g_sems = n;
    g_cap_sems = cap;
  }
  sem->id = g_n_sems++;
  g_sems[sem->id] = sem;
  return sem->id;
}

/* The semaphore's payload: one memfd per semaphore (header, then the value
 * at SIM_SEMFD_VALUE_OFFSET), made at the first export and mapped shared,
 * so that every process holding an fd of it sees one value. Each export is
 * a new open file of that memfd (as each vkGetSemaphoreFdKHR is). */
int
sim_sem_make_payload_locked (SimSemObject * sem)
{
  SimSemFdHeader hdr;
  SimSemExport *rec;
  struct stat st;
  void *map;
  int fd;

  fd = memfd_create ("cudasim-semaphore", MFD_CLOEXEC);
  if (fd < 0)
    return -1;
  rec = calloc (1, sizeof (SimSemExport));
  if (!rec || ftruncate (fd, SIM_SEMFD_SIZE) != 0 || fstat (fd, &st) != 0)
    goto failed;
  memset (&hdr, 0, sizeof (hdr));
  memcpy (hdr.magic, SIM_SEMFD_MAGIC, sizeof (SIM_SEMFD_MAGIC));
  hdr.nonce = (++g_export_serial << 20) ^ ((uint64_t) getpid () << 1) ^
      (uint64_t) sim_now_ns ();
  hdr.sem_id = sem->id;
  hdr.type = sem->type;
  hdr.pid = getpid ();
  if (pwrite (fd, &hdr, sizeof (hdr), 0) != (ssize_t) sizeof (hdr))
    goto failed;
  map = mmap (NULL, SIM_SEMFD_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (map == MAP_FAILED)
    goto failed;
  sem->shared = (uint64_t *) ((char *) map + SIM_SEMFD_VALUE_OFFSET);
  __atomic_store_n (sem->shared, sem->value, __ATOMIC_RELEASE);
  sem->shared_fd = fd;
  rec->nonce = hdr.nonce;
  rec->dev = st.st_dev;
  rec->ino = st.st_ino;
  rec->sem_id = sem->id;
  rec->next = g_exports;
  g_exports = rec;
  return 0;

failed:
  free (rec);
  close (fd);
  return -1;
}

/* Host-side waits (cudasim_sem_host_wait, cudasim_nvsci_fence_wait): the
 * absolute deadline for @timeout_ns (0: none, UINT64_MAX waits for ever). */
int64_t
sim_sem_host_wait_deadline (uint64_t timeout_ns)
{
  if (timeout_ns != UINT64_MAX && timeout_ns < (uint64_t) INT64_MAX / 2)
    return sim_now_ns () + (int64_t) timeout_ns;
  return 0;
}

/* Blocks (g_sim.lock held, released while waiting) until @sem satisfies
 * @value or @deadline passes. Returns 0 when satisfied, -1 on timeout. */
int
sim_sem_host_wait_locked (SimSemObject * sem, uint64_t value, int64_t deadline)
{
  int r = -1;

  sem->refcount++;
  for (;;) {
    if (sem_try_wait_locked (sem, value)) {
      r = 0;
      break;
    }
    if (deadline && sim_now_ns () >= deadline)
      break;
    if (deadline || sem->shared) {
      struct timespec ts;
      int64_t t = deadline;
      /* another process changes a shared value without waking us: poll */
      if (sem->shared && (!t || t > sim_now_ns () + SIM_SHARED_POLL_NS))
        t = sim_now_ns () + SIM_SHARED_POLL_NS;
      ts.tv_sec = t / 1000000000LL;
      ts.tv_nsec = t % 1000000000LL;
      pthread_cond_timedwait (&g_sim.progress, &g_sim.lock, &ts);
    } else {
      pthread_cond_wait (&g_sim.progress, &g_sim.lock);
    }
  }
  sim_sem_object_unref_locked (sem);
  return r;
}

/* the NvSciSyncObj handle is the object's address; accept only live
 * NvSciSync objects */
SimSemObject *
sim_sem_nvsci_obj_locked (const void *obj)
{
  int i;

  if (!obj)
    return NULL;
  for (i = 1; i < g_n_sems; i++) {
    if (g_sems[i] && (const void *) g_sems[i] == obj &&
        g_sems[i]->type == CUDASIM_SEM_NVSCI)
      return g_sems[i];
  }
  return NULL;
}

/* ------------------------------------------------------------------ */
/* import of an exported fd                                            */
/* ------------------------------------------------------------------ */

/* An object for the semaphore of another process whose payload @fd is:
 * its value is the shared one; it lives while this process imports it
 * (refcount 0 until cuImportExternalSemaphore takes a reference). */
static SimSemExport *
sem_import_remote_locked (int fd, const SimSemFdHeader * hdr,
    const struct stat *st)
{
  SimSemObject *sem;
  SimSemExport *rec;
  void *map;

  if (hdr->type != CUDASIM_SEM_BINARY && hdr->type != CUDASIM_SEM_TIMELINE)
    return NULL;
  sem = calloc (1, sizeof (SimSemObject));
  rec = calloc (1, sizeof (SimSemExport));
  map = mmap (NULL, SIM_SEMFD_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (!sem || !rec || map == MAP_FAILED || sim_sem_register_locked (sem) < 0) {
    free (sem);
    free (rec);
    if (map != MAP_FAILED)
      munmap (map, SIM_SEMFD_SIZE);
    return NULL;
  }
  sem->type = hdr->type;
  sem->shared = (uint64_t *) ((char *) map + SIM_SEMFD_VALUE_OFFSET);
  sem->shared_fd = -1;
  rec->nonce = hdr->nonce;
  rec->dev = st->st_dev;
  rec->ino = st->st_ino;
  rec->sem_id = sem->id;
  rec->next = g_exports;
  g_exports = rec;
  return rec;
}

/* Resolves an fd exported by cudasim_sem_export_fd(), in this process or
 * another (does not take a reference and does not close it). */
CUresult
sim_sem_import_fd_locked (const CUDA_EXTERNAL_SEMAPHORE_HANDLE_DESC * desc,
    CudasimSemType expected, SimSemObject ** out)
{
  SimSemFdHeader hdr;
  SimSemExport *rec;
  SimSemObject *sem;
  struct stat st;
  int fd = desc->handle.fd;

  if (fd < 0)
    return CUDA_ERROR_INVALID_VALUE;    /* what the real driver says */
  if (fstat (fd, &st) != 0)
    return CUDA_ERROR_INVALID_HANDLE;
  if (!S_ISREG (st.st_mode) || st.st_size < (off_t) sizeof (hdr))
    return CUDA_ERROR_INVALID_HANDLE;
  if (pread (fd, &hdr, sizeof (hdr), 0) != (ssize_t) sizeof (hdr) ||
      memcmp (hdr.magic, SIM_SEMFD_MAGIC, sizeof (SIM_SEMFD_MAGIC)) != 0)
    return CUDA_ERROR_INVALID_HANDLE;
  for (rec = g_exports; rec; rec = rec->next) {
    if (rec->nonce == hdr.nonce && rec->dev == st.st_dev &&
        rec->ino == st.st_ino)
      break;
  }
  /* another process's semaphore (not one of ours that is gone): this
   * process gets an object of its own on the shared payload */
  if (!rec && hdr.pid != getpid () && st.st_size >= SIM_SEMFD_SIZE)
    rec = sem_import_remote_locked (fd, &hdr, &st);
  if (!rec)
    return CUDA_ERROR_INVALID_HANDLE;
  sem = sim_sem_get_locked (rec->sem_id);
  if (!sem)
    return CUDA_ERROR_INVALID_HANDLE;
  if (sem->type != expected) {
    if (!sem->refcount) {       /* a remote object nobody imported */
      sem->refcount = 1;
      sim_sem_object_unref_locked (sem);
    }
    return CUDA_ERROR_INVALID_VALUE;
  }
  *out = sem;
  return CUDA_SUCCESS;
}

/* ------------------------------------------------------------------ */
/* external semaphore handles, queued signals and waits                */
/* ------------------------------------------------------------------ */

void
sim_extsem_unref_locked (SimExtSem * es)
{
  if (--es->refcount > 0)
    return;
  sim_sem_object_unref_locked (es->sem);
  sim_ctx_unref_locked (es->ctx);
  free (es);
}

/* stream thread: executes a queued signal */
void
sim_sem_signal_exec_locked (SimOp * op)
{
  int i;

  for (i = 0; i < op->u.sem.n; i++) {
    sim_sem_signal_locked (op->u.sem.sems[i]->sem, op->u.sem.values[i],
        "cuSignalExternalSemaphoresAsync (executing)");
  }
}

/* stream thread: blocks until a queued wait may have made progress; a wait
 * on a semaphore shared with another process polls, since that process's
 * signals do not wake this one */
void
sim_sem_wait_block_locked (SimOp * op)
{
  struct timespec ts;
  int64_t t;
  int i, shared = 0;

  for (i = op->u.sem.progress; i < op->u.sem.n; i++)
    shared |= op->u.sem.sems[i]->sem->shared != NULL;
  if (!shared) {
    pthread_cond_wait (&g_sim.progress, &g_sim.lock);
    return;
  }
  t = sim_now_ns () + SIM_SHARED_POLL_NS;
  ts.tv_sec = t / 1000000000LL;
  ts.tv_nsec = t % 1000000000LL;
  pthread_cond_timedwait (&g_sim.progress, &g_sim.lock, &ts);
}

/* stream thread: makes progress on a queued wait; 1 when complete */
int
sim_sem_wait_step_locked (SimOp * op)
{
  while (op->u.sem.progress < op->u.sem.n) {
    SimExtSem *es = op->u.sem.sems[op->u.sem.progress];
    /* destroyed while this wait was pending (reported as a violation):
     * give up instead of blocking the queue for ever */
    if (es->destroyed ||
        sem_try_wait_locked (es->sem, op->u.sem.values[op->u.sem.progress]))
      op->u.sem.progress++;
    else
      return 0;
  }
  return 1;
}

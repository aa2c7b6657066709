/* cudasim: external semaphores and external memory, plus the test-only
 * exporter API (the "Vulkan side": cudasim_sem_*, cudasim_mem_create).
 *
 * Semaphore fds are memfds created by cudasim_sem_export_fd().  Each starts
 * with a header (magic, per-export nonce, semaphore id) and the export is
 * recorded together with the st_dev/st_ino of the memfd; an fd is accepted
 * by cuImportExternalSemaphore() only when header, record and inode agree,
 * so foreign fds (/dev/null, pipes, other memfds) are rejected.
 *
 * Handle types are dispatched through g_sem_handle_types[]: each entry has
 * its own import function; the signal/wait semantics are those of the
 * semaphore object it resolves to.
 *
 * NvSciSync: cudasim_nvsci_obj_create() makes a fake NvSciSyncObj (a
 * semaphore object of type CUDASIM_SEM_NVSCI, the pointer being the
 * handle) with or without signal/wait permission.  A signal writes an
 * NvSciSyncFence at call time (48 bytes: magic, object id, deterministic
 * value = previous + 1, serial) and the object's count is set to that value
 * when the signal executes, which must happen in value order; a wait reads
 * the fence at call time and blocks its stream until the count reaches the
 * value.  Uncleared fences hold a reference to their object and are tracked
 * by serial, so leaks, double clears and waits on cleared fences show up.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "cudasim-internal.h"

#include <errno.h>
#include <stdio.h>
#include <fcntl.h>
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

static SimSemObject *
sem_get_locked (int id)
{
  if (id <= 0 || id >= g_n_sems)
    return NULL;
  return g_sems[id];
}

static void
sem_object_unref_locked (SimSemObject * sem)
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
static uint64_t
sem_value (const SimSemObject * sem)
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
static int
sem_signal_locked (SimSemObject * sem, uint64_t value, const char *who)
{
  switch (sem->type) {
    case CUDASIM_SEM_TIMELINE:{
      uint64_t cur = sem_value (sem);
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
      if (sem_value (sem)) {
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
      return sem_value (sem) >= value;
    case CUDASIM_SEM_BINARY:
      if (!sem_consume (sem))
        return 0;
      sim_broadcast_locked ();
      return 1;
  }
  return 0;
}

/* ------------------------------------------------------------------ */
/* exporter API                                                        */
/* ------------------------------------------------------------------ */

/* Gives @sem the next id; -1 when out of memory. */
static int
sem_register_locked (SimSemObject * sem)
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

SIM_EXPORT int
cudasim_sem_create (CudasimSemType type, uint64_t initial_value)
{
  SimSemObject *sem;
  int id;

  if (type != CUDASIM_SEM_BINARY && type != CUDASIM_SEM_TIMELINE)
    return -1;
  sem = calloc (1, sizeof (SimSemObject));
  if (!sem)
    return -1;
  pthread_mutex_lock (&g_sim.lock);
  id = sem_register_locked (sem);
  if (id < 0) {
    pthread_mutex_unlock (&g_sim.lock);
    free (sem);
    return -1;
  }
  sem->refcount = 1;
  sem->exporter_ref = 1;
  sem->type = type;
  sem->value = type == CUDASIM_SEM_BINARY ? (initial_value != 0) :
      initial_value;
  g_sems[id] = sem;
  pthread_mutex_unlock (&g_sim.lock);
  return id;
}

/* The semaphore's payload: one memfd per semaphore (header, then the value
 * at SIM_SEMFD_VALUE_OFFSET), made at the first export and mapped shared,
 * so that every process holding an fd of it sees one value. Each export is
 * a new open file of that memfd (as each vkGetSemaphoreFdKHR is). */
static int
sem_make_payload_locked (SimSemObject * sem)
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

SIM_EXPORT int
cudasim_sem_export_fd (int id)
{
  SimSemObject *sem;
  char path[64];
  int fd = -1;

  pthread_mutex_lock (&g_sim.lock);
  sem = sem_get_locked (id);
  if (sem && sem->exporter_ref && (sem->shared
          || sem_make_payload_locked (sem) == 0)) {
    snprintf (path, sizeof (path), "/proc/self/fd/%d", sem->shared_fd);
    fd = open (path, O_RDWR | O_CLOEXEC);
  }
  pthread_mutex_unlock (&g_sim.lock);
  return fd;
}

SIM_EXPORT int
cudasim_sem_host_signal (int id, uint64_t value)
{
  SimSemObject *sem;
  int r = -1;

  pthread_mutex_lock (&g_sim.lock);
  sem = sem_get_locked (id);
  if (sem)
    r = sem_signal_locked (sem, value, "cudasim_sem_host_signal");
  pthread_mutex_unlock (&g_sim.lock);
  return r;
}

SIM_EXPORT uint64_t
cudasim_sem_get_value (int id)
{
  SimSemObject *sem;
  uint64_t v = 0;

  pthread_mutex_lock (&g_sim.lock);
  sem = sem_get_locked (id);
  if (sem)
    v = sem_value (sem);
  pthread_mutex_unlock (&g_sim.lock);
  return v;
}

/* Host-side waits (cudasim_sem_host_wait, cudasim_nvsci_fence_wait): the
 * absolute deadline for @timeout_ns (0: none, UINT64_MAX waits for ever). */
static int64_t
host_wait_deadline (uint64_t timeout_ns)
{
  if (timeout_ns != UINT64_MAX && timeout_ns < (uint64_t) INT64_MAX / 2)
    return sim_now_ns () + (int64_t) timeout_ns;
  return 0;
}

/* Blocks (g_sim.lock held, released while waiting) until @sem satisfies
 * @value or @deadline passes. Returns 0 when satisfied, -1 on timeout. */
static int
host_wait_locked (SimSemObject * sem, uint64_t value, int64_t deadline)
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
  sem_object_unref_locked (sem);
  return r;
}

SIM_EXPORT int
cudasim_sem_host_wait (int id, uint64_t value, uint64_t timeout_ns)
{
  SimSemObject *sem;
  int64_t deadline;
  int r = -1;

  deadline = host_wait_deadline (timeout_ns);

  pthread_mutex_lock (&g_sim.lock);
  sem = sem_get_locked (id);
  if (sem)
    r = host_wait_locked (sem, value, deadline);
  pthread_mutex_unlock (&g_sim.lock);
  return r;
}

SIM_EXPORT void
cudasim_sem_unref (int id)
{
  SimSemObject *sem;

  pthread_mutex_lock (&g_sim.lock);
  sem = sem_get_locked (id);
  if (sem && sem->exporter_ref) {
    sem->exporter_ref = 0;
    sem_object_unref_locked (sem);
  }
  pthread_mutex_unlock (&g_sim.lock);
}

SIM_EXPORT int
cudasim_mem_create (size_t size)
{
  int fd = memfd_create ("cudasim-memory", MFD_CLOEXEC);

  if (fd < 0)
    return -1;
  if (ftruncate (fd, (off_t) size) != 0) {
    close (fd);
    return -1;
  }
  return fd;
}

/* ------------------------------------------------------------------ */
/* NvSciSync: fake objects and fences                                  */
/* ------------------------------------------------------------------ */

#define SIM_NVSCI_FENCE_MAGIC 0x63736d6e76736369ULL     /* "icsvnmsc" */

/* the 48 bytes of an NvSciSyncFence as the simulator fills them */
typedef struct
{
  uint64_t magic;
  uint64_t sem_id;
  uint64_t value;               /* deterministic value: n-th signal */
  uint64_t serial;              /* unique per fence written */
  uint64_t reserved[2];
} SimNvSciFence;

_Static_assert (sizeof (SimNvSciFence) == CUDASIM_NVSCI_FENCE_SIZE,
    "NvSciSyncFence is 48 bytes");

/* uncleared fences; each holds a reference to its object */
typedef struct
{
  uint64_t serial;
  SimSemObject *sem;
} SimLiveFence;

static SimLiveFence *g_live_fences;
static int g_n_live_fences, g_cap_live_fences;
static uint64_t g_fence_serial;

static int
fence_is_cleared (const void *fence)
{
  static const uint8_t zero[CUDASIM_NVSCI_FENCE_SIZE];
  return memcmp (fence, zero, sizeof (zero)) == 0;
}

static int
live_fence_find_locked (uint64_t serial)
{
  int i;

  for (i = 0; i < g_n_live_fences; i++) {
    if (g_live_fences[i].serial == serial)
      return i;
  }
  return -1;
}

/* a live fence's object, or NULL */
static SimSemObject *
fence_object_locked (const SimNvSciFence * f)
{
  int i;

  if (f->magic != SIM_NVSCI_FENCE_MAGIC)
    return NULL;
  i = live_fence_find_locked (f->serial);
  return i < 0 ? NULL : g_live_fences[i].sem;
}

/* the NvSciSyncObj handle is the object's address; accept only live
 * NvSciSync objects */
static SimSemObject *
nvsci_obj_locked (const void *obj)
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

/* Writes a new fence for the next deterministic value of @sem. */
static void
nvsci_write_fence_locked (SimSemObject * sem, void *fence, const char *what)
{
  SimNvSciFence f;

  memcpy (&f, fence, sizeof (f));
  if (!fence_is_cleared (&f) && f.magic == SIM_NVSCI_FENCE_MAGIC &&
      live_fence_find_locked (f.serial) >= 0)
    sim_violation ("%s: the fence storage holds an uncleared fence (value "
        "%llu of NvSciSync object %llu); the signal overwrites it and the "
        "reference it holds leaks (clear or zero the storage first)", what,
        (unsigned long long) f.value, (unsigned long long) f.sem_id);

  if (g_n_live_fences >= g_cap_live_fences) {
    int cap = g_cap_live_fences ? g_cap_live_fences * 2 : 64;
    SimLiveFence *n = realloc (g_live_fences, (size_t) cap * sizeof (*n));
    if (!n) {
      fprintf (stderr, "cudasim: out of memory\n");
      abort ();
    }
    g_live_fences = n;
    g_cap_live_fences = cap;
  }

  memset (&f, 0, sizeof (f));
  f.magic = SIM_NVSCI_FENCE_MAGIC;
  f.sem_id = (uint64_t) sem->id;
  f.value = ++sem->nvsci_issued;
  f.serial = ++g_fence_serial;
  g_live_fences[g_n_live_fences].serial = f.serial;
  g_live_fences[g_n_live_fences].sem = sem;
  g_n_live_fences++;
  sem->refcount++;
  memcpy (fence, &f, sizeof (f));
}

SIM_EXPORT void *
cudasim_nvsci_obj_create (int signal_permission, int wait_permission)
{
  SimSemObject *sem;
  int id = cudasim_sem_create (CUDASIM_SEM_TIMELINE, 0);

  if (id < 0)
    return NULL;
  pthread_mutex_lock (&g_sim.lock);
  sem = sem_get_locked (id);
  sem->type = CUDASIM_SEM_NVSCI;
  sem->nvsci_signal_perm = signal_permission != 0;
  sem->nvsci_wait_perm = wait_permission != 0;
  pthread_mutex_unlock (&g_sim.lock);
  return sem;
}

SIM_EXPORT void
cudasim_nvsci_obj_free (void *obj)
{
  SimSemObject *sem;

  pthread_mutex_lock (&g_sim.lock);
  sem = nvsci_obj_locked (obj);
  if (sem && sem->exporter_ref) {
    sem->exporter_ref = 0;
    sem_object_unref_locked (sem);
  } else {
    sim_violation ("cudasim_nvsci_obj_free: %p is not a live NvSciSync "
        "object (freed twice?)", obj);
  }
  pthread_mutex_unlock (&g_sim.lock);
}

SIM_EXPORT uint64_t
cudasim_nvsci_obj_get_value (const void *obj)
{
  SimSemObject *sem;
  uint64_t v = 0;

  pthread_mutex_lock (&g_sim.lock);
  sem = nvsci_obj_locked (obj);
  if (sem)
    v = sem->value;
  pthread_mutex_unlock (&g_sim.lock);
  return v;
}

SIM_EXPORT unsigned
cudasim_nvsci_obj_flags (const void *obj)
{
  SimSemObject *sem;
  unsigned v = 0;

  pthread_mutex_lock (&g_sim.lock);
  sem = nvsci_obj_locked (obj);
  if (sem)
    v = sem->nvsci_flags;
  pthread_mutex_unlock (&g_sim.lock);
  return v;
}

SIM_EXPORT uint64_t
cudasim_nvsci_fence_value (const void *fence)
{
  SimNvSciFence f;

  if (!fence)
    return 0;
  memcpy (&f, fence, sizeof (f));
  return f.magic == SIM_NVSCI_FENCE_MAGIC ? f.value : 0;
}

SIM_EXPORT int
cudasim_nvsci_fence_clear (void *fence)
{
  SimNvSciFence f;
  int i, r = 0;

  if (!fence || fence_is_cleared (fence))
    return 0;
  memcpy (&f, fence, sizeof (f));
  pthread_mutex_lock (&g_sim.lock);
  i = f.magic == SIM_NVSCI_FENCE_MAGIC ? live_fence_find_locked (f.serial) : -1;
  if (i >= 0) {
    SimSemObject *sem = g_live_fences[i].sem;
    g_live_fences[i] = g_live_fences[--g_n_live_fences];
    sem_object_unref_locked (sem);
  } else if (f.magic == SIM_NVSCI_FENCE_MAGIC) {
    sim_violation ("NvSciSyncFenceClear: fence %llu (value %llu of "
        "NvSciSync object %llu) was already cleared: a copy of a fence was "
        "cleared twice (its reference would be dropped twice)",
        (unsigned long long) f.serial, (unsigned long long) f.value,
        (unsigned long long) f.sem_id);
    r = -1;
  } else {
    sim_violation ("NvSciSyncFenceClear: the 48 bytes are neither a cleared "
        "fence nor a fence written by a signal");
    r = -1;
  }
  pthread_mutex_unlock (&g_sim.lock);
  memset (fence, 0, CUDASIM_NVSCI_FENCE_SIZE);
  return r;
}

SIM_EXPORT int
cudasim_nvsci_fence_wait (const void *fence, uint64_t timeout_ns)
{
  SimSemObject *sem;
  SimNvSciFence f;
  int64_t deadline;
  int r = -1;

  if (!fence)
    return -1;
  if (fence_is_cleared (fence))
    return 0;
  memcpy (&f, fence, sizeof (f));
  deadline = host_wait_deadline (timeout_ns);

  pthread_mutex_lock (&g_sim.lock);
  sem = fence_object_locked (&f);
  if (sem)
    r = host_wait_locked (sem, f.value, deadline);
  pthread_mutex_unlock (&g_sim.lock);
  return r;
}

SIM_EXPORT int
cudasim_nvsci_live_fences (void)
{
  int n;

  pthread_mutex_lock (&g_sim.lock);
  n = g_n_live_fences;
  pthread_mutex_unlock (&g_sim.lock);
  return n;
}

/* ------------------------------------------------------------------ */
/* import: handle types                                                */
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
  if (!sem || !rec || map == MAP_FAILED || sem_register_locked (sem) < 0) {
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
static CUresult
sem_import_fd_locked (const CUDA_EXTERNAL_SEMAPHORE_HANDLE_DESC * desc,
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
  sem = sem_get_locked (rec->sem_id);
  if (!sem)
    return CUDA_ERROR_INVALID_HANDLE;
  if (sem->type != expected) {
    if (!sem->refcount) {       /* a remote object nobody imported */
      sem->refcount = 1;
      sem_object_unref_locked (sem);
    }
    return CUDA_ERROR_INVALID_VALUE;
  }
  *out = sem;
  return CUDA_SUCCESS;
}

/* Resolves a fake NvSciSyncObj made by cudasim_nvsci_obj_create(). */
static CUresult
sem_import_nvsci_locked (const CUDA_EXTERNAL_SEMAPHORE_HANDLE_DESC * desc,
    CudasimSemType expected, SimSemObject ** out)
{
  SimSemObject *sem;

  if (!desc->handle.nvSciSyncObj)
    return CUDA_ERROR_INVALID_VALUE;    /* what the real driver says */
  sem = nvsci_obj_locked (desc->handle.nvSciSyncObj);
  /* unknown pointer, or an object the application already freed */
  if (!sem || !sem->exporter_ref)
    return CUDA_ERROR_INVALID_HANDLE;
  *out = sem;
  return CUDA_SUCCESS;
}

typedef struct
{
  CUexternalSemaphoreHandleType type;
  CudasimSemType sem_type;
  int owns_fd;                  /* a successful import closes desc->handle.fd */
    CUresult (*import) (const CUDA_EXTERNAL_SEMAPHORE_HANDLE_DESC * desc,
      CudasimSemType expected, SimSemObject ** out);
} SimSemHandleType;

static const SimSemHandleType g_sem_handle_types[] = {
  {CU_EXTERNAL_SEMAPHORE_HANDLE_TYPE_OPAQUE_FD, CUDASIM_SEM_BINARY, 1,
      sem_import_fd_locked},
  {CU_EXTERNAL_SEMAPHORE_HANDLE_TYPE_TIMELINE_SEMAPHORE_FD,
      CUDASIM_SEM_TIMELINE, 1, sem_import_fd_locked},
  {CU_EXTERNAL_SEMAPHORE_HANDLE_TYPE_NVSCISYNC, CUDASIM_SEM_NVSCI, 0,
      sem_import_nvsci_locked},
};

SIM_EXPORT CUresult
cuImportExternalSemaphore (CUexternalSemaphore * extSem_out,
    const CUDA_EXTERNAL_SEMAPHORE_HANDLE_DESC * semHandleDesc)
{
  const SimSemHandleType *ht = NULL;
  SimSemObject *sem = NULL;
  SimExtSem *es;
  SimCtx *c;
  CUresult r;
  size_t i;

  SIM_ENTER (cuImportExternalSemaphore);
  if (!extSem_out || !semHandleDesc)
    return CUDA_ERROR_INVALID_VALUE;
  for (i = 0; i < sizeof (g_sem_handle_types) / sizeof (g_sem_handle_types[0]);
      i++) {
    if (g_sem_handle_types[i].type == semHandleDesc->type)
      ht = &g_sem_handle_types[i];
  }
  if (!ht)
    return CUDA_ERROR_NOT_SUPPORTED;

  pthread_mutex_lock (&g_sim.lock);
  c = sim_current_ctx_locked ();
  if (!c) {
    pthread_mutex_unlock (&g_sim.lock);
    return CUDA_ERROR_INVALID_CONTEXT;
  }
  r = ht->import (semHandleDesc, ht->sem_type, &sem);
  if (r != CUDA_SUCCESS) {
    pthread_mutex_unlock (&g_sim.lock);
    return r;
  }
  es = calloc (1, sizeof (SimExtSem));
  if (!es) {
    pthread_mutex_unlock (&g_sim.lock);
    return CUDA_ERROR_OUT_OF_MEMORY;
  }
  es->refcount = 1;
  es->ctx = c;
  c->refcount++;
  es->sem = sem;
  sem->refcount++;
  es->handle_type = semHandleDesc->type;
  es->id = sim_register_locked (es, KIND_EXTSEM);
  g_sim.live[LIVE_EXTSEM]++;
  *extSem_out = sim_handle_from_id (es->id, KIND_EXTSEM);
  pthread_mutex_unlock (&g_sim.lock);

  /* the driver owns the fd after a successful import */
  if (ht->owns_fd)
    close (semHandleDesc->handle.fd);
  return CUDA_SUCCESS;
}

void
sim_extsem_unref_locked (SimExtSem * es)
{
  if (--es->refcount > 0)
    return;
  sem_object_unref_locked (es->sem);
  sim_ctx_unref_locked (es->ctx);
  free (es);
}

/* Checks one signal or wait of @es at call time and returns the value the
 * operation carries (timeline value; NvSciSync: the fence's deterministic
 * value, for signals assigned later). Nothing is changed. */
static CUresult
sem_check_param_locked (SimOpType type, const char *what, SimExtSem * es,
    const CUDA_EXTERNAL_SEMAPHORE_SIGNAL_PARAMS * sp,
    const CUDA_EXTERNAL_SEMAPHORE_WAIT_PARAMS * wp, uint64_t * value)
{
  SimSemObject *sem = es->sem;
  unsigned flags = type == OP_SEM_SIGNAL ? sp->flags : wp->flags;

  *value = 0;
  if (sem->type != CUDASIM_SEM_NVSCI) {
    /* cuda.h: for every other type, flags must be zero */
    if (flags)
      return CUDA_ERROR_INVALID_VALUE;
    *value = type == OP_SEM_SIGNAL ? sp->params.fence.value :
        wp->params.fence.value;
    /* a timeline signal that is not above the current value can never
     * become valid (values only grow): report it at call time */
    if (type == OP_SEM_SIGNAL && sem->type == CUDASIM_SEM_TIMELINE &&
        *value <= sem_value (sem)) {
      sim_violation ("%s: timeline semaphore %d signalled with "
          "non-increasing value %llu (current value %llu)", what, sem->id,
          (unsigned long long) *value, (unsigned long long) sem_value (sem));
      return CUDA_ERROR_INVALID_VALUE;
    }
    return CUDA_SUCCESS;
  }

  if (type == OP_SEM_SIGNAL) {
    if (flags & ~(unsigned)
        CUDA_EXTERNAL_SEMAPHORE_SIGNAL_SKIP_NVSCIBUF_MEMSYNC)
      return CUDA_ERROR_INVALID_VALUE;
    /* cuda.h: an NvSciSyncObj whose attribute list was not made with
     * CUDA_NVSCISYNC_ATTR_SIGNAL cannot be signalled */
    if (!sem->nvsci_signal_perm)
      return CUDA_ERROR_NOT_SUPPORTED;
    if (!sp->params.nvSciSync.fence)
      return CUDA_ERROR_INVALID_VALUE;
  } else {
    const void *fence = wp->params.nvSciSync.fence;
    SimNvSciFence f;

    if (flags & ~(unsigned) CUDA_EXTERNAL_SEMAPHORE_WAIT_SKIP_NVSCIBUF_MEMSYNC)
      return CUDA_ERROR_INVALID_VALUE;
    if (!sem->nvsci_wait_perm)
      return CUDA_ERROR_NOT_SUPPORTED;
    if (!fence)
      return CUDA_ERROR_INVALID_VALUE;
    if (fence_is_cleared (fence))
      return CUDA_SUCCESS;      /* a cleared fence has expired: no wait */
    memcpy (&f, fence, sizeof (f));
    if (f.magic != SIM_NVSCI_FENCE_MAGIC || f.sem_id != (uint64_t) sem->id)
      return CUDA_ERROR_INVALID_VALUE;
    if (live_fence_find_locked (f.serial) < 0) {
      sim_violation ("%s: waiting on a copy of fence %llu (value %llu of "
          "NvSciSync object %d), which was already cleared", what,
          (unsigned long long) f.serial, (unsigned long long) f.value, sem->id);
      return CUDA_ERROR_INVALID_VALUE;
    }
    *value = f.value;
  }
  return CUDA_SUCCESS;
}

/* Builds a signal or wait operation; on error nothing is queued (and no
 * NvSciSync fence is written). */
static CUresult
sem_submit (SimOpType type, SimEntry entry, const char *what,
    const CUexternalSemaphore * extSemArray,
    const CUDA_EXTERNAL_SEMAPHORE_SIGNAL_PARAMS * sp,
    const CUDA_EXTERNAL_SEMAPHORE_WAIT_PARAMS * wp, unsigned int n,
    CUstream stream)
{
  SimExtSem **sems;
  uint64_t *values;
  SimStream *s;
  SimOp *op;
  CUresult r;
  unsigned int i;

  sems = calloc (n, sizeof (SimExtSem *));
  values = calloc (n, sizeof (uint64_t));
  if (!sems || !values) {
    free (sems);
    free (values);
    return CUDA_ERROR_OUT_OF_MEMORY;
  }

  pthread_mutex_lock (&g_sim.lock);
  r = sim_resolve_stream_locked (stream, what, &s);
  for (i = 0; r == CUDA_SUCCESS && i < n; i++) {
    void *obj;
    r = sim_resolve_locked (extSemArray[i], KIND_EXTSEM, what, &obj);
    if (r == CUDA_SUCCESS)
      sems[i] = obj;
  }
  for (i = 0; r == CUDA_SUCCESS && i < n; i++)
    r = sem_check_param_locked (type, what, sems[i], sp ? &sp[i] : NULL,
        wp ? &wp[i] : NULL, &values[i]);
  if (r != CUDA_SUCCESS) {
    pthread_mutex_unlock (&g_sim.lock);
    free (sems);
    free (values);
    return r;
  }

  /* accepted: NvSciSync signals write their fences now, at call time
   * (cuda.h: the API sets params.nvSciSync.fence) */
  for (i = 0; i < n; i++) {
    SimSemObject *sem = sems[i]->sem;
    if (sem->type != CUDASIM_SEM_NVSCI)
      continue;
    if (type == OP_SEM_SIGNAL) {
      nvsci_write_fence_locked (sem, sp[i].params.nvSciSync.fence, what);
      values[i] = sem->nvsci_issued;
      sem->nvsci_flags |= sp[i].flags;
    } else {
      sem->nvsci_flags |= wp[i].flags;
    }
  }

  op = sim_op_new (type, entry);
  op->global_delay = 1;
  op->u.sem.sems = sems;
  op->u.sem.values = values;
  op->u.sem.n = (int) n;
  for (i = 0; i < n; i++) {
    sems[i]->refcount++;
    sems[i]->pending++;
  }
  sim_enqueue_locked (s, op);
  pthread_mutex_unlock (&g_sim.lock);
  return CUDA_SUCCESS;
}

SIM_EXPORT CUresult
cuSignalExternalSemaphoresAsync (const CUexternalSemaphore * extSemArray,
    const CUDA_EXTERNAL_SEMAPHORE_SIGNAL_PARAMS * paramsArray,
    unsigned int numExtSems, CUstream stream)
{
  SIM_ENTER (cuSignalExternalSemaphoresAsync);
  if (numExtSems == 0)
    return CUDA_SUCCESS;
  if (!extSemArray || !paramsArray)
    return CUDA_ERROR_INVALID_VALUE;
  return sem_submit (OP_SEM_SIGNAL, EP_cuSignalExternalSemaphoresAsync,
      "cuSignalExternalSemaphoresAsync", extSemArray, paramsArray, NULL,
      numExtSems, stream);
}

SIM_EXPORT CUresult
cuWaitExternalSemaphoresAsync (const CUexternalSemaphore * extSemArray,
    const CUDA_EXTERNAL_SEMAPHORE_WAIT_PARAMS * paramsArray,
    unsigned int numExtSems, CUstream stream)
{
  SIM_ENTER (cuWaitExternalSemaphoresAsync);
  if (numExtSems == 0)
    return CUDA_SUCCESS;
  if (!extSemArray || !paramsArray)
    return CUDA_ERROR_INVALID_VALUE;
  return sem_submit (OP_SEM_WAIT, EP_cuWaitExternalSemaphoresAsync,
      "cuWaitExternalSemaphoresAsync", extSemArray, NULL, paramsArray,
      numExtSems, stream);
}

/* stream thread: executes a queued signal */
void
sim_sem_signal_exec_locked (SimOp * op)
{
  int i;

  for (i = 0; i < op->u.sem.n; i++) {
    sem_signal_locked (op->u.sem.sems[i]->sem, op->u.sem.values[i],
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

SIM_EXPORT CUresult
cuDestroyExternalSemaphore (CUexternalSemaphore extSem)
{
  SimExtSem *es;
  void *obj;
  CUresult r;

  SIM_ENTER (cuDestroyExternalSemaphore);
  pthread_mutex_lock (&g_sim.lock);
  r = sim_resolve_locked (extSem, KIND_EXTSEM, "cuDestroyExternalSemaphore",
      &obj);
  if (r == CUDA_SUCCESS) {
    es = obj;
    if (es->pending > 0)
      sim_violation ("cuDestroyExternalSemaphore: external semaphore %p "
          "(semaphore %d) destroyed with %d pending operations", extSem,
          es->sem->id, es->pending);
    es->destroyed = 1;
    sim_unregister_locked (es->id);
    g_sim.live[LIVE_EXTSEM]--;
    sim_broadcast_locked ();
    sim_extsem_unref_locked (es);
  }
  pthread_mutex_unlock (&g_sim.lock);
  return r;
}

/* ------------------------------------------------------------------ */
/* external memory                                                     */
/* ------------------------------------------------------------------ */

void
sim_munmap_release (void *ptr, size_t size)
{
  munmap (ptr, size);
}

void
sim_extmem_unref_locked (SimExtMem * em)
{
  if (--em->refcount > 0)
    return;
  close (em->fd);
  free (em);
}

/* Mesa's llvmpipe/lavapipe exports VkDeviceMemory (OPAQUE_FD) as a memfd
 * named "llvmpipe memory fd" that does NOT start with the allocation:
 * os_malloc_aligned_fd() (src/util/os_memory_fd.c, Mesa 22.3) writes
 *
 *   struct { uint64_t size;        file size
 *            uint64_t offset;      of the data: the page size, 0x1000
 *            uint8_t driver_id[16]; }
 *
 * at offset 0 and places the data at `offset` (file size = allocationSize +
 * offset + 40). Measured with lavapipe 22.3.6 for allocation sizes 1 B to
 * 3 MiB: always 0x1000. A real driver's opaque fd maps the allocation from
 * its first byte, and so do plain memfds (cudasim_mem_create()); only a
 * memfd with llvmpipe's name is looked at, and its header must be
 * consistent, else the fd is refused (CUDA_ERROR_INVALID_HANDLE) rather
 * than silently mapping the wrong bytes. */
#define LLVMPIPE_MEMFD_NAME "/memfd:llvmpipe memory fd"
#define LLVMPIPE_HEADER_MIN 32

static CUresult
sim_extmem_data_offset (int fd, const struct stat *st, size_t size,
    size_t *offset)
{
  char path[64], link[256];
  uint64_t hdr[2];
  ssize_t n;

  *offset = 0;
  snprintf (path, sizeof (path), "/proc/self/fd/%d", fd);
  n = readlink (path, link, sizeof (link) - 1);
  if (n <= 0)
    return CUDA_SUCCESS;
  link[n] = '\0';
  if (strncmp (link, LLVMPIPE_MEMFD_NAME, strlen (LLVMPIPE_MEMFD_NAME)) != 0)
    return CUDA_SUCCESS;

  if (pread (fd, hdr, sizeof (hdr), 0) != (ssize_t) sizeof (hdr))
    return CUDA_ERROR_INVALID_HANDLE;
  if (hdr[0] != (uint64_t) st->st_size || hdr[1] < LLVMPIPE_HEADER_MIN ||
      hdr[1] >= hdr[0]) {
    if (getenv ("CUDASIM_VERBOSE"))
      fprintf (stderr, "cudasim: cuImportExternalMemory: llvmpipe memfd with "
          "an unexpected header (size %llu, offset %llu, file size %llu)\n",
          (unsigned long long) hdr[0], (unsigned long long) hdr[1],
          (unsigned long long) st->st_size);
    return CUDA_ERROR_INVALID_HANDLE;
  }
  if (hdr[0] - hdr[1] < size)
    return CUDA_ERROR_INVALID_VALUE;
  *offset = (size_t) hdr[1];
  return CUDA_SUCCESS;
}

SIM_EXPORT CUresult
cuImportExternalMemory (CUexternalMemory * extMem_out,
    const CUDA_EXTERNAL_MEMORY_HANDLE_DESC * memHandleDesc)
{
  SimExtMem *em;
  struct stat st;
  void *probe;
  size_t data_offset, page = (size_t) sysconf (_SC_PAGESIZE), probe_start;
  size_t probe_len;
  CUresult r;
  int fd;

  SIM_ENTER (cuImportExternalMemory);
  if (!extMem_out || !memHandleDesc)
    return CUDA_ERROR_INVALID_VALUE;
  if (memHandleDesc->type != CU_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD)
    return CUDA_ERROR_NOT_SUPPORTED;
  if (memHandleDesc->size == 0)
    return CUDA_ERROR_INVALID_VALUE;
  fd = memHandleDesc->handle.fd;
  if (fd < 0)
    return CUDA_ERROR_INVALID_VALUE;
  if (fstat (fd, &st) != 0)
    return CUDA_ERROR_INVALID_HANDLE;
  r = sim_extmem_data_offset (fd, &st, (size_t) memHandleDesc->size,
      &data_offset);
  if (r != CUDA_SUCCESS)
    return r;
  if (S_ISREG (st.st_mode) && ((unsigned long long) st.st_size < data_offset
          || (unsigned long long) st.st_size - data_offset <
          memHandleDesc->size))
    return CUDA_ERROR_INVALID_VALUE;

  pthread_mutex_lock (&g_sim.lock);
  if (!sim_current_ctx_locked ()) {
    pthread_mutex_unlock (&g_sim.lock);
    return CUDA_ERROR_INVALID_CONTEXT;
  }
  pthread_mutex_unlock (&g_sim.lock);

  /* make sure the fd can be mapped at all */
  probe_start = data_offset / page * page;
  probe_len = data_offset - probe_start + (size_t) memHandleDesc->size;
  probe = mmap (NULL, probe_len, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
      (off_t) probe_start);
  if (probe == MAP_FAILED)
    return CUDA_ERROR_INVALID_HANDLE;
  munmap (probe, probe_len);

  em = calloc (1, sizeof (SimExtMem));
  if (!em)
    return CUDA_ERROR_OUT_OF_MEMORY;
  em->refcount = 1;
  /* the driver owns the fd from now on: keep a private duplicate for the
   * buffer mappings and close the caller's number, as the real driver
   * consumes it (closing it again in the application is a bug) */
  em->fd = fcntl (fd, F_DUPFD_CLOEXEC, 0);
  if (em->fd < 0) {
    free (em);
    return CUDA_ERROR_OPERATING_SYSTEM;
  }
  close (fd);
  em->size = (size_t) memHandleDesc->size;
  em->data_offset = data_offset;
  pthread_mutex_lock (&g_sim.lock);
  em->id = sim_register_locked (em, KIND_EXTMEM);
  g_sim.live[LIVE_EXTMEM]++;
  *extMem_out = sim_handle_from_id (em->id, KIND_EXTMEM);
  pthread_mutex_unlock (&g_sim.lock);
  return CUDA_SUCCESS;
}

SIM_EXPORT CUresult
cuExternalMemoryGetMappedBuffer (CUdeviceptr * devPtr, CUexternalMemory extMem,
    const CUDA_EXTERNAL_MEMORY_BUFFER_DESC * bufferDesc)
{
  SimMappedBuffer *mb;
  SimExtMem *em;
  void *obj, *map;
  size_t page = (size_t) sysconf (_SC_PAGESIZE);
  size_t start, len;
  CUresult r;

  SIM_ENTER (cuExternalMemoryGetMappedBuffer);
  if (!devPtr || !bufferDesc || bufferDesc->size == 0 || bufferDesc->flags)
    return CUDA_ERROR_INVALID_VALUE;

  pthread_mutex_lock (&g_sim.lock);
  r = sim_resolve_locked (extMem, KIND_EXTMEM,
      "cuExternalMemoryGetMappedBuffer", &obj);
  if (r != CUDA_SUCCESS) {
    pthread_mutex_unlock (&g_sim.lock);
    return r;
  }
  em = obj;
  if (bufferDesc->offset > em->size ||
      bufferDesc->size > em->size - bufferDesc->offset) {
    pthread_mutex_unlock (&g_sim.lock);
    return CUDA_ERROR_INVALID_VALUE;
  }
  /* offsets are relative to the allocation, which starts at
   * em->data_offset in the fd */
  start = (em->data_offset + (size_t) bufferDesc->offset) / page * page;
  len = em->data_offset + (size_t) bufferDesc->offset - start +
      (size_t) bufferDesc->size;
  map = mmap (NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, em->fd,
      (off_t) start);
  if (map == MAP_FAILED) {
    pthread_mutex_unlock (&g_sim.lock);
    return CUDA_ERROR_OPERATING_SYSTEM;
  }
  mb = calloc (1, sizeof (SimMappedBuffer));
  if (!mb) {
    munmap (map, len);
    pthread_mutex_unlock (&g_sim.lock);
    return CUDA_ERROR_OUT_OF_MEMORY;
  }
  mb->map_base = map;
  mb->map_len = len;
  mb->em = em;
  em->refcount++;
  *devPtr = (CUdeviceptr) (uintptr_t) ((uint8_t *) map +
      (em->data_offset + (size_t) bufferDesc->offset - start));
  sim_alloc_add_locked ((void *) (uintptr_t) * devPtr,
      (size_t) bufferDesc->size, ALLOC_MAPPED, mb);
  pthread_mutex_unlock (&g_sim.lock);
  return CUDA_SUCCESS;
}

SIM_EXPORT CUresult
cuExternalMemoryGetMappedMipmappedArray (CUmipmappedArray * mipmap,
    CUexternalMemory extMem,
    const CUDA_EXTERNAL_MEMORY_MIPMAPPED_ARRAY_DESC * mipmapDesc)
{
  SIM_ENTER (cuExternalMemoryGetMappedMipmappedArray);
  return CUDA_ERROR_NOT_SUPPORTED;
}

SIM_EXPORT CUresult
cuDestroyExternalMemory (CUexternalMemory extMem)
{
  SimExtMem *em;
  void *obj;
  CUresult r;

  SIM_ENTER (cuDestroyExternalMemory);
  pthread_mutex_lock (&g_sim.lock);
  r = sim_resolve_locked (extMem, KIND_EXTMEM, "cuDestroyExternalMemory", &obj);
  if (r == CUDA_SUCCESS) {
    em = obj;
    em->destroyed = 1;
    sim_unregister_locked (em->id);
    g_sim.live[LIVE_EXTMEM]--;
    sim_extmem_unref_locked (em);
  }
  pthread_mutex_unlock (&g_sim.lock);
  return r;
}

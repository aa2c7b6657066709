/* cudasim: NvSciSync fake objects and fences.
 *
 * cudasim_nvsci_obj_create() makes a fake NvSciSyncObj (a semaphore object
 * of type CUDASIM_SEM_NVSCI, the pointer being the handle) with or without
 * signal/wait permission.  A signal writes an NvSciSyncFence at call time
 * (48 bytes: magic, object id, deterministic value = previous + 1, serial)
 * and the object's count is set to that value when the signal executes,
 * which must happen in value order; a wait reads the fence at call time and
 * blocks its stream until the count reaches the value.  Uncleared fences
 * hold a reference to their object and are tracked by serial, so leaks,
 * double clears and waits on cleared fences show up.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "cudasim-internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------ */
/* NvSciSync: fake objects and fences                                  */
/* ------------------------------------------------------------------ */

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

int
sim_nvsci_fence_is_cleared (const void *fence)
{
  static const uint8_t zero[CUDASIM_NVSCI_FENCE_SIZE];
  return memcmp (fence, zero, sizeof (zero)) == 0;
}

int
sim_nvsci_live_fence_find_locked (uint64_t serial)
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
  i = sim_nvsci_live_fence_find_locked (f->serial);
  return i < 0 ? NULL : g_live_fences[i].sem;
}

/* Writes a new fence for the next deterministic value of @sem. */
void
sim_nvsci_write_fence_locked (SimSemObject * sem, void *fence, const char *what)
{
  SimNvSciFence f;

  memcpy (&f, fence, sizeof (f));
  if (!sim_nvsci_fence_is_cleared (&f) && f.magic == SIM_NVSCI_FENCE_MAGIC &&
      sim_nvsci_live_fence_find_locked (f.serial) >= 0)
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
  sem = sim_sem_get_locked (id);
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
  sem = sim_sem_nvsci_obj_locked (obj);
  if (sem && sem->exporter_ref) {
    sem->exporter_ref = 0;
    sim_sem_object_unref_locked (sem);
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
  sem = sim_sem_nvsci_obj_locked (obj);
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
  sem = sim_sem_nvsci_obj_locked (obj);
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

  if (!fence || sim_nvsci_fence_is_cleared (fence))
    return 0;
  memcpy (&f, fence, sizeof (f));
  pthread_mutex_lock (&g_sim.lock);
  i = f.magic ==
      SIM_NVSCI_FENCE_MAGIC ? sim_nvsci_live_fence_find_locked (f.serial) : -1;
  if (i >= 0) {
    SimSemObject *sem = g_live_fences[i].sem;
    g_live_fences[i] = g_live_fences[--g_n_live_fences];
    sim_sem_object_unref_locked (sem);
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
  if (sim_nvsci_fence_is_cleared (fence))
    return 0;
  memcpy (&f, fence, sizeof (f));
  deadline = sim_sem_host_wait_deadline (timeout_ns);

  pthread_mutex_lock (&g_sim.lock);
  sem = fence_object_locked (&f);
  if (sem)
    r = sim_sem_host_wait_locked (sem, f.value, deadline);
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

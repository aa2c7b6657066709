/* cudasim: virtual memory management: reservations and mappings.
 *
 * A reserved range is a PROT_NONE anonymous mapping; cuMemMap maps a
 * physical allocation's memfd (sim-vmm.c) over part of it (MAP_FIXED, still
 * PROT_NONE); cuMemSetAccess makes it readable/writable and enters it in the
 * allocation table (only then do copies accept it).  What cuMemUnmap and
 * cuMemAddressFree release is released once the work queued before them
 * ran, like every other release.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "cudasim-internal.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

/* ------------------------------------------------------------------ */
/* reservations and mappings                                           */
/* ------------------------------------------------------------------ */

typedef struct SimMapping
{
  struct SimMapping *next;
  uintptr_t addr;
  size_t size;
  SimPhys *phys;
  unsigned char access[SIM_MAX_DEVICES];        /* CUmemAccess_flags */
  int registered;               /* in the allocation table (ALLOC_VMM) */
} SimMapping;

typedef struct SimVa
{
  struct SimVa *next;
  uintptr_t base;
  size_t size;
  int refs;                     /* the reservation + deferred unmaps */
  SimMapping *maps;
} SimVa;

static SimVa *g_vas;            /* live reservations */

static void
sim_va_unref_locked (SimVa * va)
{
  if (--va->refs > 0)
    return;
  munmap ((void *) va->base, va->size);
  free (va);
}

/* the reservation holding [p, p+len), or NULL */
static SimVa *
sim_va_find_locked (uintptr_t p, size_t len)
{
  SimVa *va;

  for (va = g_vas; va; va = va->next) {
    if (p >= va->base && p - va->base < va->size &&
        len <= va->size - (p - va->base))
      return va;
  }
  return NULL;
}

/* the mapping holding address p, or NULL */
static SimMapping *
sim_mapping_find_locked (uintptr_t p)
{
  SimVa *va = sim_va_find_locked (p, 1);
  SimMapping *m;

  for (m = va ? va->maps : NULL; m; m = m->next) {
    if (p >= m->addr && p - m->addr < m->size)
      return m;
  }
  return NULL;
}

SIM_EXPORT CUresult
cuMemAddressReserve (CUdeviceptr * ptr, size_t size, size_t alignment,
    CUdeviceptr addr, unsigned long long flags)
{
  uintptr_t raw, base;
  size_t len;
  void *p;
  SimVa *va;

  SIM_ENTER (cuMemAddressReserve);
  if (!ptr || size == 0 || flags != 0 || size % SIM_VMM_GRANULARITY ||
      (alignment & (alignment - 1)))
    return CUDA_ERROR_INVALID_VALUE;
  if (alignment < SIM_VMM_GRANULARITY)
    alignment = SIM_VMM_GRANULARITY;
  /* addr is a hint the simulator does not follow */
  len = size + alignment;
  p = mmap (NULL, len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
      -1, 0);
  if (p == MAP_FAILED)
    return CUDA_ERROR_OUT_OF_MEMORY;
  raw = (uintptr_t) p;
  base = (raw + alignment - 1) & ~(uintptr_t) (alignment - 1);
  if (base > raw)
    munmap (p, base - raw);
  if (raw + len > base + size)
    munmap ((void *) (base + size), raw + len - (base + size));
  va = calloc (1, sizeof (SimVa));
  if (!va)
    sim_oom ();
  va->base = base;
  va->size = size;
  va->refs = 1;
  pthread_mutex_lock (&g_sim.lock);
  va->next = g_vas;
  g_vas = va;
  g_sim.live[LIVE_VARANGE]++;
  pthread_mutex_unlock (&g_sim.lock);
  *ptr = (CUdeviceptr) base;
  return CUDA_SUCCESS;
}

SIM_EXPORT CUresult
cuMemAddressFree (CUdeviceptr ptr, size_t size)
{
  SimVa **pp, *va = NULL;
  CUresult r = CUDA_ERROR_INVALID_VALUE;

  SIM_ENTER (cuMemAddressFree);
  pthread_mutex_lock (&g_sim.lock);
  for (pp = &g_vas; *pp; pp = &(*pp)->next) {
    if ((*pp)->base == (uintptr_t) ptr && (*pp)->size == size) {
      va = *pp;
      break;
    }
  }
  /* the whole reservation, with nothing mapped in it any more */
  if (va && !va->maps) {
    *pp = va->next;
    g_sim.live[LIVE_VARANGE]--;
    sim_va_unref_locked (va);
    r = CUDA_SUCCESS;
  }
  pthread_mutex_unlock (&g_sim.lock);
  return r;
}

SIM_EXPORT CUresult
cuMemMap (CUdeviceptr ptr, size_t size, size_t offset,
    CUmemGenericAllocationHandle handle, unsigned long long flags)
{
  SimVa *va;
  SimMapping *m;
  SimPhys *p;
  CUresult r;

  SIM_ENTER (cuMemMap);
  if (flags != 0 || size == 0 || (ptr | size | offset) % SIM_VMM_GRANULARITY)
    return CUDA_ERROR_INVALID_VALUE;
  pthread_mutex_lock (&g_sim.lock);
  r = sim_phys_resolve_locked (handle, "cuMemMap", &p);
  if (r != CUDA_SUCCESS)
    goto out;
  va = sim_va_find_locked ((uintptr_t) ptr, size);
  if (!va || offset > p->size || size > p->size - offset) {
    r = CUDA_ERROR_INVALID_VALUE;
    goto out;
  }
  for (m = va->maps; m; m = m->next) {
    if ((uintptr_t) ptr < m->addr + m->size && m->addr < ptr + size) {
      r = CUDA_ERROR_INVALID_VALUE;     /* already mapped */
      goto out;
    }
  }
  if (mmap ((void *) (uintptr_t) ptr, size, PROT_NONE, MAP_SHARED | MAP_FIXED,
          p->fd, (off_t) offset) == MAP_FAILED) {
    r = CUDA_ERROR_OUT_OF_MEMORY;
    goto out;
  }
  m = calloc (1, sizeof (SimMapping));
  if (!m)
    sim_oom ();
  m->addr = (uintptr_t) ptr;
  m->size = size;
  m->phys = p;
  p->mappings++;
  m->next = va->maps;
  va->maps = m;
out:
  pthread_mutex_unlock (&g_sim.lock);
  return r;
}

/* deferred part of cuMemUnmap, once the work queued before the unmap ran:
 * the mapping's hold on the physical allocation and on the reservation
 * ends.  The pages stay mapped (host side) until the range is mapped again
 * or the reservation goes, so late work never faults; new work cannot use
 * the range (it left the allocation table at the call). */
typedef struct
{
  SimVa *va;                    /* reference */
  SimPhys *phys;                /* one of its mappings */
} SimUnmapJob;

static void
sim_unmap_job_run (void *data, size_t unused)
{
  SimUnmapJob *job = data;

  job->phys->mappings--;
  sim_phys_maybe_free_locked (job->phys);
  sim_va_unref_locked (job->va);
  free (job);
}

/* collects the mappings that exactly tile [ptr, ptr+size) (cuMemUnmap and
 * cuMemSetAccess work on whole mappings); returns how many, 0 if the range
 * is not tiled by mappings */
static int
sim_mappings_tiling_locked (SimVa * va, uintptr_t ptr, size_t size,
    SimMapping ** out, int max)
{
  uintptr_t at = ptr;
  int n = 0;

  while (at < ptr + size) {
    SimMapping *m;
    for (m = va->maps; m && m->addr != at; m = m->next);
    if (!m || m->size > ptr + size - at || n == max)
      return 0;
    out[n++] = m;
    at += m->size;
  }
  return n;
}

#define SIM_MAX_TILES 256

SIM_EXPORT CUresult
cuMemUnmap (CUdeviceptr ptr, size_t size)
{
  SimMapping *tiles[SIM_MAX_TILES], **pm;
  SimVa *va;
  int n, i;
  CUresult r = CUDA_SUCCESS;

  SIM_ENTER (cuMemUnmap);
  pthread_mutex_lock (&g_sim.lock);
  va = size ? sim_va_find_locked ((uintptr_t) ptr, size) : NULL;
  n = va ? sim_mappings_tiling_locked (va, ptr, size, tiles, SIM_MAX_TILES) : 0;
  if (n == 0) {
    r = CUDA_ERROR_INVALID_VALUE;
    goto out;
  }
  for (i = 0; i < n; i++) {
    SimMapping *m = tiles[i];
    SimUnmapJob *job = calloc (1, sizeof (SimUnmapJob));
    if (!job)
      sim_oom ();
    if (m->registered)
      sim_alloc_remove_locked ((void *) m->addr, NULL, NULL, NULL);
    for (pm = &va->maps; *pm != m; pm = &(*pm)->next);
    *pm = m->next;
    job->va = va;
    va->refs++;
    job->phys = m->phys;
    free (m);
    sim_defer_release_locked (sim_unmap_job_run, job, 0);
  }
out:
  pthread_mutex_unlock (&g_sim.lock);
  return r;
}

static CUresult
sim_check_access_desc (const CUmemAccessDesc * d)
{
  if (d->location.type != CU_MEM_LOCATION_TYPE_DEVICE)
    return CUDA_ERROR_INVALID_VALUE;
  if (!sim_device_ok (d->location.id))
    return CUDA_ERROR_INVALID_DEVICE;
  if (d->flags != CU_MEM_ACCESS_FLAGS_PROT_NONE &&
      d->flags != CU_MEM_ACCESS_FLAGS_PROT_READ &&
      d->flags != CU_MEM_ACCESS_FLAGS_PROT_READWRITE)
    return CUDA_ERROR_INVALID_VALUE;
  return CUDA_SUCCESS;
}

/* Access for any device makes the mapping readable and writable and enters
 * it in the allocation table; revoking every device's access takes it out
 * again (the host protection stays: queued work may still use it).  Read
 * only access is recorded but writes are not refused. */
SIM_EXPORT CUresult
cuMemSetAccess (CUdeviceptr ptr, size_t size, const CUmemAccessDesc * desc,
    size_t count)
{
  SimMapping *tiles[SIM_MAX_TILES];
  SimVa *va;
  size_t k;
  int n = 0, i, d, any;
  CUresult r = CUDA_SUCCESS;

  SIM_ENTER (cuMemSetAccess);
  if (!desc || count == 0)
    return CUDA_ERROR_INVALID_VALUE;
  for (k = 0; k < count && r == CUDA_SUCCESS; k++)
    r = sim_check_access_desc (&desc[k]);
  if (r != CUDA_SUCCESS)
    return r;
  pthread_mutex_lock (&g_sim.lock);
  va = size ? sim_va_find_locked ((uintptr_t) ptr, size) : NULL;
  if (va)
    n = sim_mappings_tiling_locked (va, ptr, size, tiles, SIM_MAX_TILES);
  if (n == 0)
    r = CUDA_ERROR_INVALID_VALUE;       /* not fully mapped */
  for (i = 0; i < n; i++) {
    SimMapping *m = tiles[i];
    for (k = 0; k < count; k++)
      m->access[desc[k].location.id] = (unsigned char) desc[k].flags;
    for (d = 0, any = 0; d < SIM_MAX_DEVICES; d++)
      any |= m->access[d] != CU_MEM_ACCESS_FLAGS_PROT_NONE;
    if (any && !m->registered) {
      mprotect ((void *) m->addr, m->size, PROT_READ | PROT_WRITE);
      sim_alloc_add_locked ((void *) m->addr, m->size, ALLOC_VMM, m);
      m->registered = 1;
    } else if (!any && m->registered) {
      sim_alloc_remove_locked ((void *) m->addr, NULL, NULL, NULL);
      m->registered = 0;
    }
  }
  pthread_mutex_unlock (&g_sim.lock);
  return r;
}

SIM_EXPORT CUresult
cuMemGetAccess (unsigned long long *flags, const CUmemLocation * location,
    CUdeviceptr ptr)
{
  SimMapping *m;

  SIM_ENTER (cuMemGetAccess);
  if (!flags || !location || location->type != CU_MEM_LOCATION_TYPE_DEVICE)
    return CUDA_ERROR_INVALID_VALUE;
  if (!sim_device_ok (location->id))
    return CUDA_ERROR_INVALID_DEVICE;
  pthread_mutex_lock (&g_sim.lock);
  m = sim_mapping_find_locked ((uintptr_t) ptr);
  if (m)
    *flags = m->access[location->id];
  pthread_mutex_unlock (&g_sim.lock);
  return m ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

/* returns the handle the memory was mapped with, with one more reference */
SIM_EXPORT CUresult
cuMemRetainAllocationHandle (CUmemGenericAllocationHandle * handle, void *addr)
{
  SimMapping *m;

  SIM_ENTER (cuMemRetainAllocationHandle);
  if (!handle)
    return CUDA_ERROR_INVALID_VALUE;
  pthread_mutex_lock (&g_sim.lock);
  m = sim_mapping_find_locked ((uintptr_t) addr);
  if (m) {
    m->phys->refs++;
    *handle = sim_phys_handle (m->phys);
  }
  pthread_mutex_unlock (&g_sim.lock);
  return m ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

/* cudasim: virtual memory management (cuMemCreate / cuMemAddressReserve /
 * cuMemMap ...), stream-ordered allocation (memory pools, cuMemAllocAsync,
 * cuMemFreeAsync) and legacy CUDA IPC handles.
 *
 * Virtual memory model: a physical allocation is a memfd named
 * "cudasim-vmm-dev<N>" (N: its device), so a POSIX fd export is a dup() of
 * it and works across processes; a reserved range is a PROT_NONE anonymous
 * mapping; cuMemMap maps the memfd over part of it (MAP_FIXED, still
 * PROT_NONE); cuMemSetAccess makes it readable/writable and enters it in the
 * allocation table (only then do copies accept it).  What cuMemUnmap and
 * cuMemAddressFree release is released once the work queued before them
 * ran, like every other release.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "cudasim-internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define SIM_VMM_GRANULARITY ((size_t) 2 << 20)  /* H200: minimum = recommended */
#define SIM_MEMFD_PREFIX "cudasim-vmm-dev"
#define SIM_MAX_DEVICES 64
#define SIM_ASYNC_ALIGN 512
#define SIM_UNINIT_BYTE 0xcd

static void
sim_oom (void)
{
  fprintf (stderr, "cudasim: out of memory\n");
  abort ();
}

static int
sim_device_ok (int dev)
{
  return dev >= 0 && dev < g_sim.device_count;
}

/* ------------------------------------------------------------------ */
/* physical allocations                                                */
/* ------------------------------------------------------------------ */

typedef struct
{
  uint64_t id;
  int refs;                     /* create/import/retain minus release */
  int mappings;                 /* cuMemMap mappings not yet torn down */
  int fd;                       /* the memfd */
  size_t size;
  CUmemAllocationProp prop;
} SimPhys;

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

static CUmemGenericAllocationHandle
sim_phys_handle (const SimPhys * p)
{
  return (CUmemGenericAllocationHandle) (uintptr_t)
      sim_handle_from_id (p->id, KIND_MEMHANDLE);
}

/* frees the physical memory once no handle and no mapping refer to it */
static void
sim_phys_maybe_free_locked (SimPhys * p)
{
  if (p->refs > 0 || p->mappings > 0)
    return;
  close (p->fd);
  sim_unregister_locked (p->id);
  g_sim.live[LIVE_MEMHANDLE]--;
  free (p);
}

/* a handle is usable while it holds references; after its last
 * cuMemRelease it is destroyed (mappings may keep the memory) */
static CUresult
sim_phys_resolve_locked (CUmemGenericAllocationHandle h, const char *what,
    SimPhys ** out)
{
  void *obj;
  CUresult r = sim_resolve_locked ((void *) (uintptr_t) h, KIND_MEMHANDLE,
      what, &obj);

  if (r != CUDA_SUCCESS)
    return r;
  if (((SimPhys *) obj)->refs <= 0) {
    sim_violation ("%s: use of allocation handle 0x%llx after its last "
        "cuMemRelease", what, (unsigned long long) h);
    return CUDA_ERROR_INVALID_HANDLE;
  }
  *out = obj;
  return CUDA_SUCCESS;
}

static SimPhys *
sim_phys_new_locked (int fd, size_t size, const CUmemAllocationProp * prop)
{
  SimPhys *p = calloc (1, sizeof (SimPhys));

  if (!p)
    sim_oom ();
  p->refs = 1;
  p->fd = fd;
  p->size = size;
  p->prop = *prop;
  p->id = sim_register_locked (p, KIND_MEMHANDLE);
  g_sim.live[LIVE_MEMHANDLE]++;
  return p;
}

/* a CUmemAllocationProp the simulator can honour: pinned device memory */
static CUresult
sim_check_prop (const CUmemAllocationProp * prop)
{
  if (!prop || prop->type != CU_MEM_ALLOCATION_TYPE_PINNED ||
      prop->location.type != CU_MEM_LOCATION_TYPE_DEVICE)
    return CUDA_ERROR_INVALID_VALUE;
  if (!sim_device_ok (prop->location.id))
    return CUDA_ERROR_INVALID_DEVICE;
  if (prop->requestedHandleTypes & ~CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR)
    return CUDA_ERROR_NOT_SUPPORTED;    /* win32, KMT, fabric */
  return CUDA_SUCCESS;
}

SIM_EXPORT CUresult
cuMemGetAllocationGranularity (size_t *granularity,
    const CUmemAllocationProp * prop, CUmemAllocationGranularity_flags option)
{
  CUresult r;

  SIM_ENTER (cuMemGetAllocationGranularity);
  if (!granularity || (option != CU_MEM_ALLOC_GRANULARITY_MINIMUM &&
          option != CU_MEM_ALLOC_GRANULARITY_RECOMMENDED))
    return CUDA_ERROR_INVALID_VALUE;
  r = sim_check_prop (prop);
  if (r == CUDA_SUCCESS)
    *granularity = SIM_VMM_GRANULARITY;
  return r;
}

static int
sim_memfd_new (size_t size, int device)
{
  char name[64];
  void *p;
  int fd;

  snprintf (name, sizeof (name), SIM_MEMFD_PREFIX "%d", device);
  fd = memfd_create (name, MFD_CLOEXEC);
  if (fd < 0)
    return -1;
  if (ftruncate (fd, (off_t) size) != 0) {
    close (fd);
    return -1;
  }
  /* fresh device memory is not zeroed */
  p = mmap (NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (p == MAP_FAILED) {
    close (fd);
    return -1;
  }
  memset (p, SIM_UNINIT_BYTE, size);
  munmap (p, size);
  return fd;
}

SIM_EXPORT CUresult
cuMemCreate (CUmemGenericAllocationHandle * handle, size_t size,
    const CUmemAllocationProp * prop, unsigned long long flags)
{
  SimPhys *p;
  CUresult r;
  int fd;

  SIM_ENTER (cuMemCreate);
  if (!handle || flags != 0 || size == 0 || size % SIM_VMM_GRANULARITY)
    return CUDA_ERROR_INVALID_VALUE;
  r = sim_check_prop (prop);
  if (r != CUDA_SUCCESS)
    return r;
  fd = sim_memfd_new (size, prop->location.id);
  if (fd < 0)
    return CUDA_ERROR_OUT_OF_MEMORY;
  pthread_mutex_lock (&g_sim.lock);
  p = sim_phys_new_locked (fd, size, prop);
  *handle = sim_phys_handle (p);
  pthread_mutex_unlock (&g_sim.lock);
  return CUDA_SUCCESS;
}

SIM_EXPORT CUresult
cuMemRelease (CUmemGenericAllocationHandle handle)
{
  SimPhys *p;
  CUresult r;

  SIM_ENTER (cuMemRelease);
  pthread_mutex_lock (&g_sim.lock);
  r = sim_phys_resolve_locked (handle, "cuMemRelease", &p);
  if (r == CUDA_SUCCESS) {
    p->refs--;
    sim_phys_maybe_free_locked (p);
  }
  pthread_mutex_unlock (&g_sim.lock);
  return r;
}

SIM_EXPORT CUresult
cuMemGetAllocationPropertiesFromHandle (CUmemAllocationProp * prop,
    CUmemGenericAllocationHandle handle)
{
  SimPhys *p;
  CUresult r;

  SIM_ENTER (cuMemGetAllocationPropertiesFromHandle);
  if (!prop)
    return CUDA_ERROR_INVALID_VALUE;
  pthread_mutex_lock (&g_sim.lock);
  r = sim_phys_resolve_locked (handle,
      "cuMemGetAllocationPropertiesFromHandle", &p);
  if (r == CUDA_SUCCESS)
    *prop = p->prop;
  pthread_mutex_unlock (&g_sim.lock);
  return r;
}

SIM_EXPORT CUresult
cuMemExportToShareableHandle (void *shareableHandle,
    CUmemGenericAllocationHandle handle, CUmemAllocationHandleType handleType,
    unsigned long long flags)
{
  SimPhys *p;
  CUresult r;
  int fd;

  SIM_ENTER (cuMemExportToShareableHandle);
  if (!shareableHandle || flags != 0)
    return CUDA_ERROR_INVALID_VALUE;
  if (handleType != CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR)
    return CUDA_ERROR_NOT_SUPPORTED;
  pthread_mutex_lock (&g_sim.lock);
  r = sim_phys_resolve_locked (handle, "cuMemExportToShareableHandle", &p);
  if (r == CUDA_SUCCESS &&
      !(p->
          prop.requestedHandleTypes & CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR))
    r = CUDA_ERROR_INVALID_VALUE;       /* not requested at cuMemCreate */
  if (r == CUDA_SUCCESS) {
    fd = fcntl (p->fd, F_DUPFD_CLOEXEC, 0);
    if (fd < 0)
      r = CUDA_ERROR_OPERATING_SYSTEM;
    else
      *(int *) shareableHandle = fd;
  }
  pthread_mutex_unlock (&g_sim.lock);
  return r;
}

/* device of a memfd exported by a simulator (this process or another), or
 * -1 when fd is something else */
static int
sim_memfd_device (int fd)
{
  char path[64], target[256];
  const char *prefix = "/memfd:" SIM_MEMFD_PREFIX;
  ssize_t n;
  char *end;
  long dev;

  snprintf (path, sizeof (path), "/proc/self/fd/%d", fd);
  n = readlink (path, target, sizeof (target) - 1);
  if (n <= 0)
    return -1;
  target[n] = '\0';
  if (strncmp (target, prefix, strlen (prefix)) != 0)
    return -1;
  dev = strtol (target + strlen (prefix), &end, 10);
  if (end == target + strlen (prefix) || (*end && *end != ' '))
    return -1;
  return (int) dev;
}

/* The caller keeps its fd (the simulator works on a duplicate). */
SIM_EXPORT CUresult
cuMemImportFromShareableHandle (CUmemGenericAllocationHandle * handle,
    void *osHandle, CUmemAllocationHandleType shHandleType)
{
  CUmemAllocationProp prop;
  struct stat st;
  SimPhys *p;
  int fd = (int) (intptr_t) osHandle, dev, dup_fd;

  SIM_ENTER (cuMemImportFromShareableHandle);
  if (!handle)
    return CUDA_ERROR_INVALID_VALUE;
  if (shHandleType != CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR)
    return CUDA_ERROR_NOT_SUPPORTED;
  if (fd < 0)
    return CUDA_ERROR_INVALID_VALUE;
  dev = sim_memfd_device (fd);
  if (dev < 0 || fstat (fd, &st) != 0 || st.st_size <= 0 ||
      (size_t) st.st_size % SIM_VMM_GRANULARITY)
    return CUDA_ERROR_INVALID_HANDLE;
  if (!sim_device_ok (dev))
    return CUDA_ERROR_INVALID_DEVICE;
  dup_fd = fcntl (fd, F_DUPFD_CLOEXEC, 0);
  if (dup_fd < 0)
    return CUDA_ERROR_OPERATING_SYSTEM;
  memset (&prop, 0, sizeof (prop));
  prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
  prop.requestedHandleTypes = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
  prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
  prop.location.id = dev;
  pthread_mutex_lock (&g_sim.lock);
  p = sim_phys_new_locked (dup_fd, (size_t) st.st_size, &prop);
  *handle = sim_phys_handle (p);
  pthread_mutex_unlock (&g_sim.lock);
  return CUDA_SUCCESS;
}

/* ------------------------------------------------------------------ */
/* reservations and mappings                                           */
/* ------------------------------------------------------------------ */

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

/* ------------------------------------------------------------------ */
/* memory pools, stream-ordered allocation                             */
/* ------------------------------------------------------------------ */

typedef struct
{
  uint64_t id;
  int is_default;               /* a device's default pool (never destroyed) */
  int destroyed;                /* handle gone; outstanding allocations
                                 * keep the pool until they are freed */
  int outstanding;
  CUmemPoolProps props;
  int reuse[3];                 /* FOLLOW_EVENT_DEPENDENCIES, OPPORTUNISTIC,
                                 * INTERNAL_DEPENDENCIES */
  cuuint64_t threshold, used, used_high, reserved, reserved_high;
} SimPool;

static SimPool *g_default_pools[SIM_MAX_DEVICES];

static SimPool *
sim_pool_new_locked (const CUmemPoolProps * props, int is_default)
{
  SimPool *p = calloc (1, sizeof (SimPool));

  if (!p)
    sim_oom ();
  p->props = *props;
  p->is_default = is_default;
  p->reuse[0] = p->reuse[1] = p->reuse[2] = 1;
  p->id = sim_register_locked (p, KIND_MEMPOOL);
  if (!is_default)
    g_sim.live[LIVE_MEMPOOL]++;
  return p;
}

static SimPool *
sim_default_pool_locked (int device)
{
  CUmemPoolProps props;

  if (!g_default_pools[device]) {
    memset (&props, 0, sizeof (props));
    props.allocType = CU_MEM_ALLOCATION_TYPE_PINNED;
    props.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    props.location.id = device;
    g_default_pools[device] = sim_pool_new_locked (&props, 1);
  }
  return g_default_pools[device];
}

void
sim_pool_alloc_freed_locked (void *pool, size_t size)
{
  SimPool *p = pool;

  p->used -= size;
  p->reserved -= size;          /* freed memory is not kept for reuse */
  p->outstanding--;
  if (p->destroyed && p->outstanding == 0)
    free (p);
}

SIM_EXPORT CUresult
cuMemPoolCreate (CUmemoryPool * pool, const CUmemPoolProps * poolProps)
{
  SimPool *p;

  SIM_ENTER (cuMemPoolCreate);
  if (!pool || !poolProps ||
      poolProps->allocType != CU_MEM_ALLOCATION_TYPE_PINNED ||
      poolProps->location.type != CU_MEM_LOCATION_TYPE_DEVICE)
    return CUDA_ERROR_INVALID_VALUE;
  if (!sim_device_ok (poolProps->location.id))
    return CUDA_ERROR_INVALID_DEVICE;
  if (poolProps->handleTypes != CU_MEM_HANDLE_TYPE_NONE)
    return CUDA_ERROR_NOT_SUPPORTED;    /* MEMPOOL_SUPPORTED_HANDLE_TYPES 0 */
  pthread_mutex_lock (&g_sim.lock);
  p = sim_pool_new_locked (poolProps, 0);
  *pool = sim_handle_from_id (p->id, KIND_MEMPOOL);
  pthread_mutex_unlock (&g_sim.lock);
  return CUDA_SUCCESS;
}

SIM_EXPORT CUresult
cuMemPoolDestroy (CUmemoryPool pool)
{
  void *obj;
  SimPool *p;
  CUresult r;

  SIM_ENTER (cuMemPoolDestroy);
  pthread_mutex_lock (&g_sim.lock);
  r = sim_resolve_locked (pool, KIND_MEMPOOL, "cuMemPoolDestroy", &obj);
  if (r == CUDA_SUCCESS && ((SimPool *) obj)->is_default)
    r = CUDA_ERROR_INVALID_VALUE;
  if (r == CUDA_SUCCESS) {
    p = obj;
    p->destroyed = 1;
    sim_unregister_locked (p->id);
    g_sim.live[LIVE_MEMPOOL]--;
    if (p->outstanding == 0)
      free (p);
  }
  pthread_mutex_unlock (&g_sim.lock);
  return r;
}

static CUresult
sim_pool_set_attr_locked (SimPool * p, CUmemPool_attribute attr, void *value)
{
  switch (attr) {
    case CU_MEMPOOL_ATTR_REUSE_FOLLOW_EVENT_DEPENDENCIES:
    case CU_MEMPOOL_ATTR_REUSE_ALLOW_OPPORTUNISTIC:
    case CU_MEMPOOL_ATTR_REUSE_ALLOW_INTERNAL_DEPENDENCIES:
      p->reuse[attr - CU_MEMPOOL_ATTR_REUSE_FOLLOW_EVENT_DEPENDENCIES] =
          *(int *) value != 0;
      return CUDA_SUCCESS;
    case CU_MEMPOOL_ATTR_RELEASE_THRESHOLD:
      p->threshold = *(cuuint64_t *) value;
      return CUDA_SUCCESS;
    case CU_MEMPOOL_ATTR_RESERVED_MEM_HIGH:
    case CU_MEMPOOL_ATTR_USED_MEM_HIGH:
      /* only a reset (to the current value) is allowed */
      if (*(cuuint64_t *) value != 0)
        return CUDA_ERROR_INVALID_VALUE;
      if (attr == CU_MEMPOOL_ATTR_USED_MEM_HIGH)
        p->used_high = p->used;
      else
        p->reserved_high = p->reserved;
      return CUDA_SUCCESS;
    default:
      return CUDA_ERROR_INVALID_VALUE;  /* *_CURRENT are read only */
  }
}

static CUresult
sim_pool_get_attr_locked (SimPool * p, CUmemPool_attribute attr, void *value)
{
  switch (attr) {
    case CU_MEMPOOL_ATTR_REUSE_FOLLOW_EVENT_DEPENDENCIES:
    case CU_MEMPOOL_ATTR_REUSE_ALLOW_OPPORTUNISTIC:
    case CU_MEMPOOL_ATTR_REUSE_ALLOW_INTERNAL_DEPENDENCIES:
      *(int *) value =
          p->reuse[attr - CU_MEMPOOL_ATTR_REUSE_FOLLOW_EVENT_DEPENDENCIES];
      return CUDA_SUCCESS;
    case CU_MEMPOOL_ATTR_RELEASE_THRESHOLD:
      *(cuuint64_t *) value = p->threshold;
      return CUDA_SUCCESS;
    case CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT:
      *(cuuint64_t *) value = p->reserved;
      return CUDA_SUCCESS;
    case CU_MEMPOOL_ATTR_RESERVED_MEM_HIGH:
      *(cuuint64_t *) value = p->reserved_high;
      return CUDA_SUCCESS;
    case CU_MEMPOOL_ATTR_USED_MEM_CURRENT:
      *(cuuint64_t *) value = p->used;
      return CUDA_SUCCESS;
    case CU_MEMPOOL_ATTR_USED_MEM_HIGH:
      *(cuuint64_t *) value = p->used_high;
      return CUDA_SUCCESS;
    default:
      return CUDA_ERROR_INVALID_VALUE;
  }
}

static CUresult
sim_pool_attr (CUmemoryPool pool, CUmemPool_attribute attr, void *value,
    int set, const char *what)
{
  void *obj;
  CUresult r;

  if (!value)
    return CUDA_ERROR_INVALID_VALUE;
  pthread_mutex_lock (&g_sim.lock);
  r = sim_resolve_locked (pool, KIND_MEMPOOL, what, &obj);
  if (r == CUDA_SUCCESS)
    r = set ? sim_pool_set_attr_locked (obj, attr, value) :
        sim_pool_get_attr_locked (obj, attr, value);
  pthread_mutex_unlock (&g_sim.lock);
  return r;
}

SIM_EXPORT CUresult
cuMemPoolSetAttribute (CUmemoryPool pool, CUmemPool_attribute attr, void *value)
{
  SIM_ENTER (cuMemPoolSetAttribute);
  return sim_pool_attr (pool, attr, value, 1, "cuMemPoolSetAttribute");
}

SIM_EXPORT CUresult
cuMemPoolGetAttribute (CUmemoryPool pool, CUmemPool_attribute attr, void *value)
{
  SIM_ENTER (cuMemPoolGetAttribute);
  return sim_pool_attr (pool, attr, value, 0, "cuMemPoolGetAttribute");
}

/* The memory exists from the call on (so work queued later on any stream
 * can use it); a marker on the stream carries the entry point's delay. The
 * memory is fresh (0xcd), never a reuse of a freed block. */
static CUresult
sim_alloc_async (CUdeviceptr * dptr, size_t size, CUmemoryPool pool,
    CUstream hStream, SimEntry entry)
{
  SimStream *s;
  SimPool *p;
  void *obj, *mem = NULL;
  CUresult r;

  if (!dptr || size == 0)
    return CUDA_ERROR_INVALID_VALUE;
  pthread_mutex_lock (&g_sim.lock);
  r = sim_resolve_stream_locked (hStream, sim_entry_name (entry), &s);
  if (r == CUDA_SUCCESS && pool) {
    r = sim_resolve_locked (pool, KIND_MEMPOOL, sim_entry_name (entry), &obj);
    p = obj;
  } else if (r == CUDA_SUCCESS) {
    p = sim_default_pool_locked (s->ctx->device);
  }
  if (r == CUDA_SUCCESS && posix_memalign (&mem, SIM_ASYNC_ALIGN, size) != 0)
    r = CUDA_ERROR_OUT_OF_MEMORY;
  if (r == CUDA_SUCCESS) {
    memset (mem, SIM_UNINIT_BYTE, size);
    sim_alloc_add_locked (mem, size, ALLOC_DEVICE, p);
    p->outstanding++;
    p->used += size;
    p->reserved += size;
    if (p->used > p->used_high)
      p->used_high = p->used;
    if (p->reserved > p->reserved_high)
      p->reserved_high = p->reserved;
    sim_enqueue_locked (s, sim_op_new (OP_NOP, entry));
    *dptr = (CUdeviceptr) (uintptr_t) mem;
  }
  pthread_mutex_unlock (&g_sim.lock);
  return r;
}

SIM_EXPORT CUresult
cuMemAllocAsync (CUdeviceptr * dptr, size_t bytesize, CUstream hStream)
{
  SIM_ENTER (cuMemAllocAsync);
  return sim_alloc_async (dptr, bytesize, NULL, hStream, EP_cuMemAllocAsync);
}

SIM_EXPORT CUresult
cuMemAllocFromPoolAsync (CUdeviceptr * dptr, size_t bytesize,
    CUmemoryPool pool, CUstream hStream)
{
  SIM_ENTER (cuMemAllocFromPoolAsync);
  if (!pool)
    return CUDA_ERROR_INVALID_VALUE;
  return sim_alloc_async (dptr, bytesize, pool, hStream,
      EP_cuMemAllocFromPoolAsync);
}

static void
sim_async_free_release (void *ptr, size_t size)
{
  free (ptr);
}

/* Stream-ordered free: the pointer is invalid for new work from the call
 * on; the memory is released once the free's marker on the stream and all
 * work queued before the call (on any stream) ran.  cuMemAlloc memory may
 * be freed this way too. */
SIM_EXPORT CUresult
cuMemFreeAsync (CUdeviceptr dptr, CUstream hStream)
{
  SimAllocKind kind;
  SimStream *s;
  void *owner;
  size_t size;
  CUresult r;

  SIM_ENTER (cuMemFreeAsync);
  if (dptr == 0)
    return CUDA_SUCCESS;
  pthread_mutex_lock (&g_sim.lock);
  r = sim_resolve_stream_locked (hStream, "cuMemFreeAsync", &s);
  if (r != CUDA_SUCCESS)
    goto out;
  if (!sim_alloc_remove_locked ((void *) (uintptr_t) dptr, &kind, &size,
          &owner)) {
    r = CUDA_ERROR_INVALID_VALUE;
    goto out;
  }
  if (kind != ALLOC_DEVICE) {
    sim_alloc_add_locked ((void *) (uintptr_t) dptr, size, kind, owner);
    r = CUDA_ERROR_INVALID_VALUE;
    goto out;
  }
  if (owner)
    sim_pool_alloc_freed_locked (owner, size);
  sim_enqueue_locked (s, sim_op_new (OP_NOP, EP_cuMemFreeAsync));
  sim_defer_release_locked (sim_async_free_release, (void *) (uintptr_t) dptr,
      size);
out:
  pthread_mutex_unlock (&g_sim.lock);
  return r;
}

/* ------------------------------------------------------------------ */
/* legacy IPC handles                                                  */
/* ------------------------------------------------------------------ */

/* Simulated device memory and events are private to a process, so handles
 * can be made but not opened: a handle of this process gives
 * CUDA_ERROR_INVALID_CONTEXT (CUDA does not open its own process's
 * handles), another process's CUDA_ERROR_NOT_SUPPORTED, anything else
 * CUDA_ERROR_INVALID_VALUE. */
typedef struct
{
  char magic[8];
  uint32_t kind;                /* 1 memory, 2 event */
  int32_t pid;
  uint64_t what;                /* device address or event id */
  uint64_t size;
} SimIpcHandle;

#define SIM_IPC_MAGIC "cudasimI"

static void
sim_ipc_fill (char *reserved, size_t len, uint32_t kind, uint64_t what,
    uint64_t size)
{
  SimIpcHandle h;

  memset (&h, 0, sizeof (h));
  memcpy (h.magic, SIM_IPC_MAGIC, sizeof (h.magic));
  h.kind = kind;
  h.pid = (int32_t) getpid ();
  h.what = what;
  h.size = size;
  memset (reserved, 0, len);
  memcpy (reserved, &h, sizeof (h));
}

static CUresult
sim_ipc_open (const char *reserved, uint32_t kind)
{
  SimIpcHandle h;

  memcpy (&h, reserved, sizeof (h));
  if (memcmp (h.magic, SIM_IPC_MAGIC, sizeof (h.magic)) != 0 || h.kind != kind)
    return CUDA_ERROR_INVALID_VALUE;
  if (h.pid == (int32_t) getpid ())
    return CUDA_ERROR_INVALID_CONTEXT;
  return CUDA_ERROR_NOT_SUPPORTED;
}

SIM_EXPORT CUresult
cuIpcGetMemHandle (CUipcMemHandle * pHandle, CUdeviceptr dptr)
{
  SimAllocKind kind;
  void *owner;
  size_t size;
  int found;

  SIM_ENTER (cuIpcGetMemHandle);
  if (!pHandle)
    return CUDA_ERROR_INVALID_VALUE;
  pthread_mutex_lock (&g_sim.lock);
  found = sim_alloc_remove_locked ((void *) (uintptr_t) dptr, &kind, &size,
      &owner);
  if (found)
    sim_alloc_add_locked ((void *) (uintptr_t) dptr, size, kind, owner);
  pthread_mutex_unlock (&g_sim.lock);
  if (!found || kind != ALLOC_DEVICE || owner)
    return CUDA_ERROR_INVALID_VALUE;    /* cuMemAlloc memory only */
  sim_ipc_fill (pHandle->reserved, sizeof (pHandle->reserved), 1, dptr, size);
  return CUDA_SUCCESS;
}

SIM_EXPORT CUresult
cuIpcOpenMemHandle_v2 (CUdeviceptr * pdptr, CUipcMemHandle handle,
    unsigned int Flags)
{
  SIM_ENTER (cuIpcOpenMemHandle_v2);
  if (!pdptr || (Flags & ~(unsigned) CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS))
    return CUDA_ERROR_INVALID_VALUE;
  return sim_ipc_open (handle.reserved, 1);
}

/* the pre-_v2 name of the same entry point */
SIM_EXPORT CUresult
cuIpcOpenMemHandle (CUdeviceptr * pdptr, CUipcMemHandle handle,
    unsigned int Flags)
{
  return cuIpcOpenMemHandle_v2 (pdptr, handle, Flags);
}

SIM_EXPORT CUresult
cuIpcCloseMemHandle (CUdeviceptr dptr)
{
  SIM_ENTER (cuIpcCloseMemHandle);
  return CUDA_ERROR_INVALID_VALUE;      /* nothing can have been opened */
}

SIM_EXPORT CUresult
cuIpcGetEventHandle (CUipcEventHandle * pHandle, CUevent event)
{
  SimEvent *ev;
  void *obj;
  CUresult r;
  uint64_t id = 0;

  SIM_ENTER (cuIpcGetEventHandle);
  if (!pHandle)
    return CUDA_ERROR_INVALID_VALUE;
  pthread_mutex_lock (&g_sim.lock);
  r = sim_resolve_locked (event, KIND_EVENT, "cuIpcGetEventHandle", &obj);
  if (r == CUDA_SUCCESS) {
    ev = obj;
    id = ev->id;
    if (!(ev->flags & CU_EVENT_INTERPROCESS))
      r = CUDA_ERROR_INVALID_VALUE;
  }
  pthread_mutex_unlock (&g_sim.lock);
  if (r == CUDA_SUCCESS)
    sim_ipc_fill (pHandle->reserved, sizeof (pHandle->reserved), 2, id, 0);
  return r;
}

SIM_EXPORT CUresult
cuIpcOpenEventHandle (CUevent * phEvent, CUipcEventHandle handle)
{
  SIM_ENTER (cuIpcOpenEventHandle);
  if (!phEvent)
    return CUDA_ERROR_INVALID_VALUE;
  return sim_ipc_open (handle.reserved, 2);
}

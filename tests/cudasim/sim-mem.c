/* cudasim: device and host memory, memory pools and stream-ordered
 * allocation.
 *
 * cuMemAlloc and friends allocate from the heap (fresh memory is filled with
 * 0xcd, not zeroed) and enter the allocation table (sim-registry.c).  A
 * stream-ordered allocation is a device allocation whose owner is its pool;
 * every free is a deferred release (sim-stream.c), so work queued before it
 * never touches freed memory.  Virtual memory is in sim-vmm.c and
 * sim-vmm-map.c, external memory in sim-extmem.c.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "cudasim-internal.h"

#include <stdlib.h>
#include <string.h>

#define SIM_PITCH_ALIGN 512
#define SIM_ALLOC_ALIGN 256
#define SIM_ASYNC_ALIGN 512

/* ------------------------------------------------------------------ */
/* memory pools                                                        */
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

static void
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

/* ------------------------------------------------------------------ */
/* device and host memory                                              */
/* ------------------------------------------------------------------ */

static void
sim_free_release (void *ptr, size_t size)
{
  free (ptr);
}

static CUresult
sim_alloc_device (CUdeviceptr * dptr, size_t size)
{
  void *p = NULL;
  SimCtx *c;

  pthread_mutex_lock (&g_sim.lock);
  c = sim_current_ctx_locked ();
  pthread_mutex_unlock (&g_sim.lock);
  if (!c)
    return CUDA_ERROR_INVALID_CONTEXT;
  if (posix_memalign (&p, SIM_ALLOC_ALIGN, size) != 0)
    return CUDA_ERROR_OUT_OF_MEMORY;
  memset (p, SIM_UNINIT_BYTE, size);
  pthread_mutex_lock (&g_sim.lock);
  sim_alloc_add_locked (p, size, ALLOC_DEVICE, NULL);
  pthread_mutex_unlock (&g_sim.lock);
  *dptr = (CUdeviceptr) (uintptr_t) p;
  return CUDA_SUCCESS;
}

SIM_EXPORT CUresult
cuMemAlloc_v2 (CUdeviceptr * dptr, size_t bytesize)
{
  SIM_ENTER (cuMemAlloc_v2);
  if (!dptr || bytesize == 0)
    return CUDA_ERROR_INVALID_VALUE;
  return sim_alloc_device (dptr, bytesize);
}

SIM_EXPORT CUresult
cuMemAllocPitch_v2 (CUdeviceptr * dptr, size_t *pPitch, size_t WidthInBytes,
    size_t Height, unsigned int ElementSizeBytes)
{
  size_t pitch;
  CUresult r;

  SIM_ENTER (cuMemAllocPitch_v2);
  if (!dptr || !pPitch || WidthInBytes == 0 || Height == 0)
    return CUDA_ERROR_INVALID_VALUE;
  if (ElementSizeBytes != 4 && ElementSizeBytes != 8 && ElementSizeBytes != 16)
    return CUDA_ERROR_INVALID_VALUE;
  pitch = (WidthInBytes + SIM_PITCH_ALIGN - 1) / SIM_PITCH_ALIGN *
      SIM_PITCH_ALIGN;
  r = sim_alloc_device (dptr, pitch * Height);
  if (r == CUDA_SUCCESS)
    *pPitch = pitch;
  return r;
}

SIM_EXPORT CUresult
cuMemFree_v2 (CUdeviceptr dptr)
{
  SimAllocKind kind;
  void *owner;
  size_t size;

  SIM_ENTER (cuMemFree_v2);
  if (dptr == 0)
    return CUDA_SUCCESS;
  pthread_mutex_lock (&g_sim.lock);
  if (!sim_alloc_remove_locked ((void *) (uintptr_t) dptr, &kind, &size,
          &owner)) {
    pthread_mutex_unlock (&g_sim.lock);
    return CUDA_ERROR_INVALID_VALUE;
  }
  if (kind == ALLOC_HOST || kind == ALLOC_VMM) {
    /* not ours to free: put it back */
    sim_alloc_add_locked ((void *) (uintptr_t) dptr, size, kind, owner);
    pthread_mutex_unlock (&g_sim.lock);
    return CUDA_ERROR_INVALID_VALUE;
  }
  if (kind == ALLOC_DEVICE) {
    /* a stream-ordered allocation may be freed with cuMemFree too */
    if (owner)
      sim_pool_alloc_freed_locked (owner, size);
    sim_defer_release_locked (sim_free_release, (void *) (uintptr_t) dptr,
        size);
  } else {
    /* a mapped external memory buffer: owner describes the mapping */
    SimMappedBuffer *mb = owner;
    sim_defer_release_locked (sim_munmap_release, mb->map_base, mb->map_len);
    sim_extmem_unref_locked (mb->em);
    free (mb);
  }
  pthread_mutex_unlock (&g_sim.lock);
  return CUDA_SUCCESS;
}

SIM_EXPORT CUresult
cuMemAllocHost_v2 (void **pp, size_t bytesize)
{
  void *p = NULL;
  SimCtx *c;

  SIM_ENTER (cuMemAllocHost_v2);
  if (!pp || bytesize == 0)
    return CUDA_ERROR_INVALID_VALUE;
  pthread_mutex_lock (&g_sim.lock);
  c = sim_current_ctx_locked ();
  pthread_mutex_unlock (&g_sim.lock);
  if (!c)
    return CUDA_ERROR_INVALID_CONTEXT;
  if (posix_memalign (&p, 4096, bytesize) != 0)
    return CUDA_ERROR_OUT_OF_MEMORY;
  pthread_mutex_lock (&g_sim.lock);
  sim_alloc_add_locked (p, bytesize, ALLOC_HOST, NULL);
  pthread_mutex_unlock (&g_sim.lock);
  *pp = p;
  return CUDA_SUCCESS;
}

SIM_EXPORT CUresult
cuMemFreeHost (void *p)
{
  SimAllocKind kind;
  size_t size;
  void *owner;

  SIM_ENTER (cuMemFreeHost);
  if (!p)
    return CUDA_SUCCESS;
  pthread_mutex_lock (&g_sim.lock);
  if (!sim_alloc_remove_locked (p, &kind, &size, &owner)) {
    pthread_mutex_unlock (&g_sim.lock);
    return CUDA_ERROR_INVALID_VALUE;
  }
  if (kind != ALLOC_HOST) {
    sim_alloc_add_locked (p, size, kind, owner);
    pthread_mutex_unlock (&g_sim.lock);
    return CUDA_ERROR_INVALID_VALUE;
  }
  sim_defer_release_locked (sim_free_release, p, size);
  pthread_mutex_unlock (&g_sim.lock);
  return CUDA_SUCCESS;
}

SIM_EXPORT CUresult
cuMemGetInfo_v2 (size_t *free_bytes, size_t *total)
{
  size_t used;

  SIM_ENTER (cuMemGetInfo_v2);
  pthread_mutex_lock (&g_sim.lock);
  if (!sim_current_ctx_locked ()) {
    pthread_mutex_unlock (&g_sim.lock);
    return CUDA_ERROR_INVALID_CONTEXT;
  }
  used = sim_alloc_total_device_locked ();
  pthread_mutex_unlock (&g_sim.lock);
  if (used > SIM_TOTAL_MEM)
    used = SIM_TOTAL_MEM;
  if (free_bytes)
    *free_bytes = SIM_TOTAL_MEM - used;
  if (total)
    *total = SIM_TOTAL_MEM;
  return CUDA_SUCCESS;
}

SIM_EXPORT CUresult
cuMemGetAddressRange_v2 (CUdeviceptr * pbase, size_t *psize, CUdeviceptr dptr)
{
  void *base;
  size_t size;
  int found;

  SIM_ENTER (cuMemGetAddressRange_v2);
  pthread_mutex_lock (&g_sim.lock);
  found = sim_alloc_contains_locked ((void *) (uintptr_t) dptr, 1, &base,
      &size);
  pthread_mutex_unlock (&g_sim.lock);
  if (!found)
    return CUDA_ERROR_NOT_FOUND;
  if (pbase)
    *pbase = (CUdeviceptr) (uintptr_t) base;
  if (psize)
    *psize = size;
  return CUDA_SUCCESS;
}

/* ------------------------------------------------------------------ */
/* stream-ordered allocation                                           */
/* ------------------------------------------------------------------ */

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

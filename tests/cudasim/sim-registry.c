/* cudasim: object registries.
 *
 * The handle registry (ids are never reused, so a handle of a destroyed
 * object is always recognised), the calling thread's context stack (which
 * context is current) and the allocation table (which device ranges copies
 * and memsets accept).  Entry points are elsewhere: contexts in sim-ctx.c,
 * memory in sim-mem.c, sim-vmm*.c and sim-extmem.c.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "cudasim-internal.h"

#include <stdlib.h>
#include <string.h>

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
/* the calling thread's context stack                                  */
/* ------------------------------------------------------------------ */

__thread uint64_t sim_tls_ctx_stack[SIM_CTX_STACK_MAX];
__thread int sim_tls_ctx_depth;

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
  uint64_t id;
  void *obj;

  if (sim_tls_ctx_depth == 0)
    return NULL;
  id = sim_tls_ctx_stack[sim_tls_ctx_depth - 1];
  if (sim_lookup_locked (sim_handle_from_id (id, KIND_CONTEXT), KIND_CONTEXT,
          &obj) != 0)
    return NULL;
  return obj;
}

int
sim_ctx_stack_push (uint64_t id)
{
  if (sim_tls_ctx_depth >= SIM_CTX_STACK_MAX)
    return -1;
  sim_tls_ctx_stack[sim_tls_ctx_depth++] = id;
  return 0;
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

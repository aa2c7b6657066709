/* cudasim: contexts.
 *
 * The cuCtx* entry points, which work on the calling thread's context stack
 * (sim-registry.c), primary contexts, limits and peer access.  A context
 * owns its legacy default (NULL) stream.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "cudasim-internal.h"

#include <stdlib.h>

/* ------------------------------------------------------------------ */
/* contexts                                                            */
/* ------------------------------------------------------------------ */

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
  if (sim_tls_ctx_depth >= SIM_CTX_STACK_MAX) {
    pthread_mutex_unlock (&g_sim.lock);
    return CUDA_ERROR_OUT_OF_MEMORY;
  }
  c = sim_ctx_new_locked (dev, 0);
  sim_ctx_stack_push (c->id);
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
  if (sim_tls_ctx_depth > 0
      && sim_tls_ctx_stack[sim_tls_ctx_depth - 1] == c->id)
    sim_tls_ctx_depth--;
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
  else if (sim_ctx_stack_push (((SimCtx *) obj)->id) != 0)
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

  if (sim_tls_ctx_depth == 0)
    return CUDA_ERROR_INVALID_CONTEXT;
  id = sim_tls_ctx_stack[--sim_tls_ctx_depth];
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
    if (sim_tls_ctx_depth > 0)
      sim_tls_ctx_depth--;
    return CUDA_SUCCESS;
  }
  pthread_mutex_lock (&g_sim.lock);
  if (sim_lookup_locked (ctx, KIND_CONTEXT, &obj) != 0) {
    pthread_mutex_unlock (&g_sim.lock);
    return CUDA_ERROR_INVALID_CONTEXT;
  }
  if (sim_tls_ctx_depth > 0)
    sim_tls_ctx_stack[sim_tls_ctx_depth - 1] = ((SimCtx *) obj)->id;
  else
    sim_ctx_stack_push (((SimCtx *) obj)->id);
  pthread_mutex_unlock (&g_sim.lock);
  return CUDA_SUCCESS;
}

SIM_EXPORT CUresult
cuCtxGetCurrent (CUcontext * pctx)
{
  SIM_ENTER (cuCtxGetCurrent);
  if (!pctx)
    return CUDA_ERROR_INVALID_VALUE;
  if (sim_tls_ctx_depth == 0)
    *pctx = NULL;
  else
    *pctx =
        sim_handle_from_id (sim_tls_ctx_stack[sim_tls_ctx_depth - 1],
        KIND_CONTEXT);
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
/* peer access                                                         */
/* ------------------------------------------------------------------ */

SIM_EXPORT CUresult
cuCtxEnablePeerAccess (CUcontext peerContext, unsigned int Flags)
{
  SimCtx *c, *peer;
  void *obj;
  int i;
  CUresult r = CUDA_SUCCESS;

  SIM_ENTER (cuCtxEnablePeerAccess);
  if (Flags != 0)
    return CUDA_ERROR_INVALID_VALUE;
  pthread_mutex_lock (&g_sim.lock);
  c = sim_current_ctx_locked ();
  if (!c || sim_lookup_locked (peerContext, KIND_CONTEXT, &obj) != 0) {
    r = CUDA_ERROR_INVALID_CONTEXT;
    goto out;
  }
  peer = obj;
  if (peer->device == c->device) {
    r = CUDA_ERROR_PEER_ACCESS_UNSUPPORTED;     /* as the real driver says */
    goto out;
  }
  for (i = 0; i < c->n_peers; i++) {
    if (c->peers[i] == peer->id) {
      r = CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED;
      goto out;
    }
  }
  if (c->n_peers == c->cap_peers) {
    c->cap_peers = c->cap_peers ? c->cap_peers * 2 : 4;
    c->peers = realloc (c->peers, c->cap_peers * sizeof (uint64_t));
    if (!c->peers) {
      fprintf (stderr, "cudasim: out of memory\n");
      abort ();
    }
  }
  c->peers[c->n_peers++] = peer->id;
out:
  pthread_mutex_unlock (&g_sim.lock);
  return r;
}

SIM_EXPORT CUresult
cuCtxDisablePeerAccess (CUcontext peerContext)
{
  SimCtx *c;
  uint64_t h = (uint64_t) (uintptr_t) peerContext;
  int i;
  CUresult r = CUDA_ERROR_PEER_ACCESS_NOT_ENABLED;

  SIM_ENTER (cuCtxDisablePeerAccess);
  pthread_mutex_lock (&g_sim.lock);
  c = sim_current_ctx_locked ();
  if (!c) {
    r = CUDA_ERROR_INVALID_CONTEXT;
  } else {
    for (i = 0; i < c->n_peers; i++) {
      if ((uint64_t) (uintptr_t) sim_handle_from_id (c->peers[i],
              KIND_CONTEXT) == h) {
        c->peers[i] = c->peers[--c->n_peers];
        r = CUDA_SUCCESS;
        break;
      }
    }
  }
  pthread_mutex_unlock (&g_sim.lock);
  return r;
}

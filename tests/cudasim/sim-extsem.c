/* cudasim: external semaphore entry points.
 *
 * cuImportExternalSemaphore, cuSignal/WaitExternalSemaphoresAsync and
 * cuDestroyExternalSemaphore.  Handle types are dispatched through
 * g_sem_handle_types[]: each entry has its own import function; the
 * signal/wait semantics are those of the semaphore object it resolves to
 * (sim-semobj.c; NvSciSync fences: sim-nvsci.c).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "cudasim-internal.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ------------------------------------------------------------------ */
/* import: handle types                                                */
/* ------------------------------------------------------------------ */

/* Resolves a fake NvSciSyncObj made by cudasim_nvsci_obj_create(). */
static CUresult
sem_import_nvsci_locked (const CUDA_EXTERNAL_SEMAPHORE_HANDLE_DESC * desc,
    CudasimSemType expected, SimSemObject ** out)
{
  SimSemObject *sem;

  if (!desc->handle.nvSciSyncObj)
    return CUDA_ERROR_INVALID_VALUE;    /* what the real driver says */
  sem = sim_sem_nvsci_obj_locked (desc->handle.nvSciSyncObj);
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
      sim_sem_import_fd_locked},
  {CU_EXTERNAL_SEMAPHORE_HANDLE_TYPE_TIMELINE_SEMAPHORE_FD,
      CUDASIM_SEM_TIMELINE, 1, sim_sem_import_fd_locked},
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
        *value <= sim_sem_value (sem)) {
      sim_violation ("%s: timeline semaphore %d signalled with "
          "non-increasing value %llu (current value %llu)", what, sem->id,
          (unsigned long long) *value,
          (unsigned long long) sim_sem_value (sem));
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
    if (sim_nvsci_fence_is_cleared (fence))
      return CUDA_SUCCESS;      /* a cleared fence has expired: no wait */
    memcpy (&f, fence, sizeof (f));
    if (f.magic != SIM_NVSCI_FENCE_MAGIC || f.sem_id != (uint64_t) sem->id)
      return CUDA_ERROR_INVALID_VALUE;
    if (sim_nvsci_live_fence_find_locked (f.serial) < 0) {
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
      sim_nvsci_write_fence_locked (sem, sp[i].params.nvSciSync.fence, what);
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

/* cudasim: legacy CUDA IPC handles.
 *
 * cuIpcGet/OpenEventHandle and cuIpcGet/Open/CloseMemHandle: handles can be
 * made, not opened (see below).  cudaipcsink/src use virtual memory with
 * POSIX fds instead (sim-vmm.c).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "cudasim-internal.h"

#include <string.h>
#include <unistd.h>

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

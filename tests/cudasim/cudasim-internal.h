/* cudasim: internal declarations shared by the simulator sources.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef CUDASIM_INTERNAL_H
#define CUDASIM_INTERNAL_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#include <pthread.h>
#include <stdint.h>
#include <stddef.h>
#include <stdio.h>

/* everything declared by cuda.h and cudasim.h is exported */
#pragma GCC visibility push(default)
#include "cudasim.h"
#pragma GCC visibility pop

/* cuda.h maps several plain names onto versioned symbols with macros
 * (cuCtxCreate -> cuCtxCreate_v4, cuEventDestroy -> cuEventDestroy_v2, ...).
 * We define every symbol under its exact exported name, so drop the macros. */
#undef cuDeviceTotalMem
#undef cuCtxCreate
#undef cuMemGetInfo
#undef cuMemAlloc
#undef cuMemAllocPitch
#undef cuMemFree
#undef cuMemGetAddressRange
#undef cuMemAllocHost
#undef cuMemcpyHtoD
#undef cuMemcpyDtoH
#undef cuMemcpyDtoD
#undef cuMemcpy2D
#undef cuMemcpyHtoDAsync
#undef cuMemcpyDtoHAsync
#undef cuMemcpyDtoDAsync
#undef cuMemcpy2DAsync
#undef cuMemsetD8
#undef cuMemsetD32
#undef cuGraphicsResourceGetMappedPointer
#undef cuGraphicsResourceSetMapFlags
#undef cuCtxDestroy
#undef cuCtxPopCurrent
#undef cuCtxPushCurrent
#undef cuStreamDestroy
#undef cuEventDestroy
#undef cuEventElapsedTime
#undef cuDevicePrimaryCtxRelease
#undef cuDeviceGetUuid
#undef cuMemcpy
#undef cuMemcpyAsync
#undef cuMemsetD8Async
#undef cuMemsetD32Async
#undef cuStreamGetFlags
#undef cuStreamGetCtx
#undef cuStreamWaitEvent
#undef cuStreamQuery
#undef cuStreamSynchronize
#undef cuEventRecord
#undef cuEventRecordWithFlags
#undef cuLaunchKernel
#undef cuLaunchHostFunc
#undef cuGraphicsMapResources
#undef cuGraphicsUnmapResources
#undef cuSignalExternalSemaphoresAsync
#undef cuWaitExternalSemaphoresAsync
#undef cuMemsetD2D8
#undef cuMemsetD2D16
#undef cuMemsetD2D32
#undef cuMemsetD2D8Async
#undef cuMemsetD2D16Async
#undef cuMemsetD2D32Async
#undef cuIpcOpenMemHandle
#undef cuMemAllocAsync
#undef cuMemAllocFromPoolAsync
#undef cuMemFreeAsync

#define SIM_EXPORT __attribute__((visibility ("default")))
#define SIM_HIDDEN __attribute__((visibility ("hidden")))

/* Prototypes for exported names that cuda.h (as included) does not declare
 * under that name. */
SIM_EXPORT CUresult cuCtxCreate (CUcontext * pctx, unsigned int flags, CUdevice dev);
SIM_EXPORT CUresult cuCtxCreate_v2 (CUcontext * pctx, unsigned int flags, CUdevice dev);
SIM_EXPORT CUresult cuCtxDestroy (CUcontext ctx);
SIM_EXPORT CUresult cuCtxPopCurrent (CUcontext * pctx);
SIM_EXPORT CUresult cuCtxPushCurrent (CUcontext ctx);
SIM_EXPORT CUresult cuStreamDestroy (CUstream hStream);
SIM_EXPORT CUresult cuEventDestroy (CUevent hEvent);
SIM_EXPORT CUresult cuEventElapsedTime (float *pMilliseconds, CUevent hStart, CUevent hEnd);
SIM_EXPORT CUresult cuDevicePrimaryCtxRelease (CUdevice dev);
SIM_EXPORT CUresult cuDeviceGetUuid (CUuuid * uuid, CUdevice dev);
SIM_EXPORT CUresult cuGraphicsGLRegisterImage (CUgraphicsResource * pCudaResource,
    unsigned int image, unsigned int target, unsigned int Flags);
SIM_EXPORT CUresult cuGraphicsGLRegisterBuffer (CUgraphicsResource * pCudaResource,
    unsigned int buffer, unsigned int Flags);
SIM_EXPORT CUresult cuGLGetDevices_v2 (unsigned int *pCudaDeviceCount,
    CUdevice * pCudaDevices, unsigned int cudaDeviceCount, int deviceList);
SIM_EXPORT CUresult cuMemsetD2D8 (CUdeviceptr dstDevice, size_t dstPitch,
    unsigned char uc, size_t Width, size_t Height);
SIM_EXPORT CUresult cuMemsetD2D16 (CUdeviceptr dstDevice, size_t dstPitch,
    unsigned short us, size_t Width, size_t Height);
SIM_EXPORT CUresult cuMemsetD2D32 (CUdeviceptr dstDevice, size_t dstPitch,
    unsigned int ui, size_t Width, size_t Height);
SIM_EXPORT CUresult cuIpcOpenMemHandle (CUdeviceptr * pdptr,
    CUipcMemHandle handle, unsigned int Flags);
/* cudaEGL.h (not included): EGLImageKHR and CUeglFrame as opaque pointers */
SIM_EXPORT CUresult cuGraphicsEGLRegisterImage (CUgraphicsResource * pCudaResource,
    void *image, unsigned int flags);
SIM_EXPORT CUresult cuGraphicsResourceGetMappedEglFrame (void *eglFrame,
    CUgraphicsResource resource, unsigned int index, unsigned int mipLevel);

/* ------------------------------------------------------------------ */
/* Entry points: X (canonical symbol, alias or NULL, needs cuInit)     */
/* ------------------------------------------------------------------ */
#define SIM_ENTRY_POINTS(X) \
  X (cuInit, NULL, 0) \
  X (cuDriverGetVersion, NULL, 0) \
  X (cuGetErrorName, NULL, 0) \
  X (cuGetErrorString, NULL, 0) \
  X (cuDeviceGet, NULL, 1) \
  X (cuDeviceGetCount, NULL, 1) \
  X (cuDeviceGetName, NULL, 1) \
  X (cuDeviceGetAttribute, NULL, 1) \
  X (cuDeviceCanAccessPeer, NULL, 1) \
  X (cuDeviceGetUuid_v2, "cuDeviceGetUuid", 1) \
  X (cuDeviceTotalMem_v2, NULL, 1) \
  X (cuDeviceGetNvSciSyncAttributes, NULL, 1) \
  X (cuDevicePrimaryCtxRetain, NULL, 1) \
  X (cuDevicePrimaryCtxRelease_v2, "cuDevicePrimaryCtxRelease", 1) \
  X (cuCtxCreate_v2, "cuCtxCreate", 1) \
  X (cuCtxCreate_v4, NULL, 1) \
  X (cuCtxDestroy_v2, "cuCtxDestroy", 1) \
  X (cuCtxPushCurrent_v2, "cuCtxPushCurrent", 1) \
  X (cuCtxPopCurrent_v2, "cuCtxPopCurrent", 1) \
  X (cuCtxSetCurrent, NULL, 1) \
  X (cuCtxGetCurrent, NULL, 1) \
  X (cuCtxGetDevice, NULL, 1) \
  X (cuCtxSynchronize, NULL, 1) \
  X (cuCtxGetLimit, NULL, 1) \
  X (cuCtxSetLimit, NULL, 1) \
  X (cuCtxEnablePeerAccess, NULL, 1) \
  X (cuCtxDisablePeerAccess, NULL, 1) \
  X (cuMemAlloc_v2, NULL, 1) \
  X (cuMemAllocPitch_v2, NULL, 1) \
  X (cuMemFree_v2, NULL, 1) \
  X (cuMemAllocHost_v2, NULL, 1) \
  X (cuMemFreeHost, NULL, 1) \
  X (cuMemGetInfo_v2, NULL, 1) \
  X (cuMemGetAddressRange_v2, NULL, 1) \
  X (cuMemcpy2D_v2, NULL, 1) \
  X (cuMemcpy2DAsync_v2, NULL, 1) \
  X (cuMemcpyHtoD_v2, NULL, 1) \
  X (cuMemcpyDtoH_v2, NULL, 1) \
  X (cuMemcpyDtoD_v2, NULL, 1) \
  X (cuMemcpyHtoDAsync_v2, NULL, 1) \
  X (cuMemcpyDtoHAsync_v2, NULL, 1) \
  X (cuMemcpyDtoDAsync_v2, NULL, 1) \
  X (cuMemcpy, NULL, 1) \
  X (cuMemcpyAsync, NULL, 1) \
  X (cuMemsetD8_v2, NULL, 1) \
  X (cuMemsetD32_v2, NULL, 1) \
  X (cuMemsetD8Async, NULL, 1) \
  X (cuMemsetD32Async, NULL, 1) \
  X (cuMemsetD2D8_v2, "cuMemsetD2D8", 1) \
  X (cuMemsetD2D16_v2, "cuMemsetD2D16", 1) \
  X (cuMemsetD2D32_v2, "cuMemsetD2D32", 1) \
  X (cuMemsetD2D8Async, NULL, 1) \
  X (cuMemsetD2D16Async, NULL, 1) \
  X (cuMemsetD2D32Async, NULL, 1) \
  X (cuMemAddressReserve, NULL, 1) \
  X (cuMemAddressFree, NULL, 1) \
  X (cuMemCreate, NULL, 1) \
  X (cuMemRelease, NULL, 1) \
  X (cuMemMap, NULL, 1) \
  X (cuMemUnmap, NULL, 1) \
  X (cuMemSetAccess, NULL, 1) \
  X (cuMemGetAccess, NULL, 1) \
  X (cuMemGetAllocationGranularity, NULL, 1) \
  X (cuMemGetAllocationPropertiesFromHandle, NULL, 1) \
  X (cuMemRetainAllocationHandle, NULL, 1) \
  X (cuMemExportToShareableHandle, NULL, 1) \
  X (cuMemImportFromShareableHandle, NULL, 1) \
  X (cuMemPoolCreate, NULL, 1) \
  X (cuMemPoolDestroy, NULL, 1) \
  X (cuMemPoolSetAttribute, NULL, 1) \
  X (cuMemPoolGetAttribute, NULL, 1) \
  X (cuMemAllocAsync, NULL, 1) \
  X (cuMemAllocFromPoolAsync, NULL, 1) \
  X (cuMemFreeAsync, NULL, 1) \
  X (cuIpcGetEventHandle, NULL, 1) \
  X (cuIpcOpenEventHandle, NULL, 1) \
  X (cuIpcGetMemHandle, NULL, 1) \
  X (cuIpcOpenMemHandle_v2, "cuIpcOpenMemHandle", 1) \
  X (cuIpcCloseMemHandle, NULL, 1) \
  X (cuStreamCreate, NULL, 1) \
  X (cuStreamCreateWithPriority, NULL, 1) \
  X (cuStreamDestroy_v2, "cuStreamDestroy", 1) \
  X (cuStreamSynchronize, NULL, 1) \
  X (cuStreamQuery, NULL, 1) \
  X (cuStreamWaitEvent, NULL, 1) \
  X (cuStreamGetCtx, NULL, 1) \
  X (cuStreamGetFlags, NULL, 1) \
  X (cuLaunchHostFunc, NULL, 1) \
  X (cuEventCreate, NULL, 1) \
  X (cuEventRecord, NULL, 1) \
  X (cuEventRecordWithFlags, NULL, 1) \
  X (cuEventQuery, NULL, 1) \
  X (cuEventSynchronize, NULL, 1) \
  X (cuEventDestroy_v2, "cuEventDestroy", 1) \
  X (cuEventElapsedTime_v2, "cuEventElapsedTime", 1) \
  X (cuImportExternalSemaphore, NULL, 1) \
  X (cuSignalExternalSemaphoresAsync, NULL, 1) \
  X (cuWaitExternalSemaphoresAsync, NULL, 1) \
  X (cuDestroyExternalSemaphore, NULL, 1) \
  X (cuImportExternalMemory, NULL, 1) \
  X (cuExternalMemoryGetMappedBuffer, NULL, 1) \
  X (cuExternalMemoryGetMappedMipmappedArray, NULL, 1) \
  X (cuDestroyExternalMemory, NULL, 1) \
  X (cuGraphicsMapResources, NULL, 1) \
  X (cuGraphicsUnmapResources, NULL, 1) \
  X (cuGraphicsResourceSetMapFlags_v2, NULL, 1) \
  X (cuGraphicsSubResourceGetMappedArray, NULL, 1) \
  X (cuGraphicsResourceGetMappedPointer_v2, NULL, 1) \
  X (cuGraphicsUnregisterResource, NULL, 1) \
  X (cuGraphicsGLRegisterImage, NULL, 1) \
  X (cuGraphicsGLRegisterBuffer, NULL, 1) \
  X (cuGLGetDevices_v2, NULL, 1) \
  X (cuGraphicsEGLRegisterImage, NULL, 1) \
  X (cuGraphicsResourceGetMappedEglFrame, NULL, 1) \
  X (cuModuleLoadData, NULL, 1) \
  X (cuModuleUnload, NULL, 1) \
  X (cuModuleGetFunction, NULL, 1) \
  X (cuTexObjectCreate, NULL, 1) \
  X (cuTexObjectDestroy, NULL, 1) \
  X (cuLaunchKernel, NULL, 1)

typedef enum
{
#define SIM_EP_ENUM_(sym, alias, init) EP_##sym,
  SIM_ENTRY_POINTS (SIM_EP_ENUM_)
#undef SIM_EP_ENUM_
  EP_INTERNAL,                  /* operations the simulator enqueues itself */
  EP_COUNT
} SimEntry;

/* Every exported CUDA entry point starts with SIM_ENTER (canonical_name):
 * counts the call, applies fault injection, checks cuInit and host-function
 * reentrancy. */
#define SIM_ENTER(sym) \
  do { \
    CUresult sim_enter_ret_; \
    if (sim_enter (EP_##sym, &sim_enter_ret_)) \
      return sim_enter_ret_; \
  } while (0)

/* ------------------------------------------------------------------ */
/* Objects                                                             */
/* ------------------------------------------------------------------ */

typedef enum
{
  KIND_CONTEXT = 1,
  KIND_STREAM,
  KIND_EVENT,
  KIND_EXTSEM,
  KIND_EXTMEM,
  KIND_MEMHANDLE,               /* cuMemCreate physical allocation */
  KIND_MEMPOOL,
  KIND_COUNT
} SimKind;

typedef enum
{
  LIVE_CONTEXT,
  LIVE_STREAM,
  LIVE_EVENT,
  LIVE_EXTSEM,
  LIVE_EXTMEM,
  LIVE_ALLOC,
  LIVE_HOSTALLOC,
  LIVE_MEMHANDLE,               /* physical allocations (cuMemCreate/import) */
  LIVE_VARANGE,                 /* cuMemAddressReserve ranges */
  LIVE_MEMPOOL,                 /* memory pools not destroyed */
  LIVE_COUNT
} SimLiveKind;

/* CUDASIM_STREAM_DEPTH unset: operations a stream takes ahead of the GPU */
#define SIM_STREAM_DEPTH 1024

typedef struct SimStream SimStream;
typedef struct SimCtx SimCtx;
typedef struct SimEvent SimEvent;
typedef struct SimExtSem SimExtSem;
typedef struct SimSemObject SimSemObject;
typedef struct SimExtMem SimExtMem;
typedef struct SimOp SimOp;

typedef struct
{
  SimStream *stream;            /* holds a reference */
  uint64_t seq;
} SimDep;

typedef struct
{
  SimDep *deps;
  int n, cap;
} SimDepList;

struct SimCtx
{
  uint64_t id;
  int refcount;
  int device;
  int is_primary;
  int primary_retain;           /* primary contexts only */
  int destroyed;
  SimStream *null_stream;       /* the legacy default stream */
  SimStream *streams;           /* every stream of this context (list) */
  int streams_created;          /* hardware queues are handed out in turn */
  uint64_t *peers;              /* ids of contexts peer access is enabled to */
  int n_peers, cap_peers;
  size_t limits[CU_LIMIT_MAX];  /* cuCtxGetLimit / cuCtxSetLimit */
};

typedef enum
{
  OP_NOP,                       /* marker: stream-wait-event, sync marker */
  OP_COPY2D,
  OP_MEMSET,
  OP_SEM_SIGNAL,
  OP_SEM_WAIT,
  OP_EVENT_RECORD,
  OP_HOST_FUNC
} SimOpType;

struct SimOp
{
  SimOp *next;
  SimOpType type;
  SimEntry entry;
  int global_delay;             /* the global delay applies to this op */
  uint64_t seq;
  SimDepList deps;
  union
  {
    struct
    {
      uint8_t *dst;
      const uint8_t *src;
      size_t dpitch, spitch, width, height;
    } copy;
    struct
    {
      uint8_t *dst;
      uint32_t value;
      size_t elem_size, count;  /* count: elements per row */
      size_t pitch, height;     /* 1D: height 1 */
    } memset;
    struct
    {
      SimExtSem **sems;         /* references */
      uint64_t *values;
      int n;
      int progress;             /* waits: how many are satisfied */
    } sem;
    struct
    {
      SimEvent *event;          /* reference */
      uint64_t gen;
    } record;
    struct
    {
      CUhostFn fn;
      void *data;
    } host;
  } u;
};

struct SimStream
{
  uint64_t id;
  int refcount;
  SimCtx *ctx;                  /* reference */
  unsigned flags;
  int is_null;
  int destroyed;                /* API handle gone; thread drains and exits */
  SimOp *head, *tail;
  uint64_t enq_seq, done_seq;
  int thread_started, thread_exited;
  const char *state;            /* what the thread does, for diagnostics */
  int connection;               /* hardware queue (CUDASIM_CONNECTIONS) */
  SimStream *ctx_next;          /* SimCtx.streams */
  SimStream *all_next, *all_prev;       /* global list */
};

struct SimEvent
{
  uint64_t id;
  int refcount;
  SimCtx *ctx;                  /* reference */
  unsigned flags;
  int destroyed;
  SimStream *rec_stream;        /* reference, NULL when never recorded */
  uint64_t rec_seq;
  uint64_t gen;
  int64_t time_ns;
  int time_valid;
};

/* the exporter-side semaphore payload */
struct SimSemObject
{
  int id;
  int refcount;                 /* exporter reference + imported handles */
  int exporter_ref;
  CudasimSemType type;
  uint64_t value;               /* timeline value; binary: 0/1; NvSciSync:
                                 * the deterministic count reached */
  /* the value shared with other processes once the semaphore was exported
   * or imported from another process (see sim-semobj.c), else NULL */
  uint64_t *shared;
  int shared_fd;                /* the exporter's payload memfd, else -1/0 */
  /* NvSciSync objects (CUDASIM_SEM_NVSCI) only */
  int nvsci_signal_perm;        /* CUDA_NVSCISYNC_ATTR_SIGNAL was requested */
  int nvsci_wait_perm;          /* CUDA_NVSCISYNC_ATTR_WAIT was requested */
  uint64_t nvsci_issued;        /* fence values handed out by signals */
  unsigned nvsci_flags;         /* OR of the flags of accepted signals/waits */
};

struct SimExtSem
{
  uint64_t id;
  int refcount;
  SimCtx *ctx;                  /* reference */
  SimSemObject *sem;            /* reference */
  CUexternalSemaphoreHandleType handle_type;
  int destroyed;
  int pending;                  /* queued operations referencing it */
};

struct SimExtMem
{
  uint64_t id;
  int refcount;                 /* API handle + mapped buffers */
  int destroyed;
  int fd;                       /* owned since the successful import */
  size_t size;
  size_t data_offset;           /* where the allocation starts in the fd:
                                 * 0, or past Mesa llvmpipe's header */
};

/* owner of an ALLOC_MAPPED allocation: each mapped buffer is its own mmap()
 * of the external memory fd, so every mapping has a distinct address */
typedef struct
{
  void *map_base;
  size_t map_len;
  SimExtMem *em;                /* reference */
} SimMappedBuffer;

/* ------------------------------------------------------------------ */
/* Global state (sim-core.c); g_sim.lock protects everything below.    */
/* ------------------------------------------------------------------ */
typedef struct
{
  pthread_mutex_t lock;
  pthread_cond_t progress;      /* broadcast on every state change */
  uint64_t progress_counter;

  int initialized;              /* cuInit called */
  int device_count;

  /* handle registry: ids are never reused, so a handle of a destroyed
   * object stays recognisable for ever (the graveyard) */
  void **objs;
  unsigned char *obj_kind;
  uint64_t n_ids, cap_ids;

  SimStream *all_streams;
  SimCtx **primary;             /* per device */
  int connections;              /* CUDASIM_CONNECTIONS (0: unlimited) */
  int stream_depth;             /* CUDASIM_STREAM_DEPTH (0: unlimited) */

  int live[LIVE_COUNT];
} SimGlobal;

SIM_HIDDEN extern SimGlobal g_sim;

/* device properties shared by several files */
#define SIM_MAX_DEVICES 64
#define SIM_TOTAL_MEM ((size_t) 8 << 30)
#define SIM_UNINIT_BYTE 0xcd    /* fresh device memory is not zeroed */
#define SIM_VMM_GRANULARITY ((size_t) 2 << 20)  /* H200: minimum = recommended */

/* core helpers (sim-core.c) */
SIM_HIDDEN int sim_enter (SimEntry entry, CUresult * ret);
SIM_HIDDEN const char *sim_entry_name (SimEntry entry);
SIM_HIDDEN int sim_entry_lookup (const char *name);
/* the delay before an operation of @entry executes (with g_sim.lock) */
SIM_HIDDEN unsigned sim_entry_delay_locked (SimEntry entry, int global_delay);
/* set on a stream thread while it runs a host function */
SIM_HIDDEN extern __thread int sim_tls_in_host_fn;
SIM_HIDDEN void sim_violation (const char *fmt, ...)
    __attribute__((format (printf, 1, 2)));
SIM_HIDDEN void sim_count_cpu_sync (void);
SIM_HIDDEN void sim_count_spin_wait (void);
SIM_HIDDEN int64_t sim_now_ns (void);
SIM_HIDDEN void sim_broadcast_locked (void);
SIM_HIDDEN void sim_oom (void);
SIM_HIDDEN int sim_device_ok (int dev);

/* handle registry (sim-registry.c) */
SIM_HIDDEN uint64_t sim_register_locked (void *obj, SimKind kind);
SIM_HIDDEN void sim_unregister_locked (uint64_t id);
SIM_HIDDEN void *sim_handle_from_id (uint64_t id, SimKind kind);
/* Resolves a handle: 0 ok (*out set), 1 unknown handle, 2 destroyed */
SIM_HIDDEN int sim_lookup_locked (const void *handle, SimKind kind, void **out);
/* lookup + use-after-destroy violation; returns CUDA_SUCCESS or
 * CUDA_ERROR_INVALID_HANDLE */
SIM_HIDDEN CUresult sim_resolve_locked (const void *handle, SimKind kind,
    const char *what, void **out);

/* the calling thread's context stack (sim-registry.c; the cuCtx* entry
 * points in sim-ctx.c work on it) */
#define SIM_CTX_STACK_MAX 128
SIM_HIDDEN extern __thread uint64_t sim_tls_ctx_stack[SIM_CTX_STACK_MAX];
SIM_HIDDEN extern __thread int sim_tls_ctx_depth;
/* -1 when the stack is full */
SIM_HIDDEN int sim_ctx_stack_push (uint64_t id);
SIM_HIDDEN SimCtx *sim_current_ctx_locked (void);
SIM_HIDDEN void sim_ctx_unref_locked (SimCtx * ctx);
/* contexts (sim-ctx.c) */
SIM_HIDDEN SimCtx *sim_ctx_new_locked (int device, int primary);

/* streams and ops (sim-stream.c) */
SIM_HIDDEN void sim_wait_progress_locked (const char *what);
/* blocks while @s has CUDASIM_STREAM_DEPTH operations pending (the lock is
 * let go meanwhile: the caller holds a reference to @s); an enqueue right
 * after it, with the lock still held, does not block */
SIM_HIDDEN void sim_wait_room_locked (SimStream * s);
SIM_HIDDEN SimStream *sim_stream_new_locked (SimCtx * ctx, unsigned flags, int is_null);
SIM_HIDDEN void sim_stream_ref_locked (SimStream * s);
SIM_HIDDEN void sim_stream_unref_locked (SimStream * s);
SIM_HIDDEN void sim_stream_destroy_locked (SimStream * s);
/* NULL / CU_STREAM_LEGACY -> current context's null stream */
SIM_HIDDEN CUresult sim_resolve_stream_locked (CUstream h, const char *what,
    SimStream ** out);
SIM_HIDDEN SimOp *sim_op_new (SimOpType type, SimEntry entry);
SIM_HIDDEN void sim_op_add_dep_locked (SimOp * op, SimStream * s, uint64_t seq);
SIM_HIDDEN uint64_t sim_enqueue_locked (SimStream * s, SimOp * op);
SIM_HIDDEN void sim_wait_seq_locked (SimStream * s, uint64_t seq, const char *what);
SIM_HIDDEN void sim_event_unref_locked (SimEvent * ev);

typedef enum
{
  SIM_SUBMIT_ASYNC,
  SIM_SUBMIT_SYNC               /* through the null stream, then wait */
} SimSubmit;

SIM_HIDDEN CUresult sim_submit_locked (SimOp * op, CUstream stream,
    SimSubmit mode, const char *what);

/* deferred release of memory that queued operations may still touch
 * (sim-stream.c) */
SIM_HIDDEN void sim_defer_release_locked (void (*fn) (void *, size_t), void *ptr,
    size_t size);

/* allocation table (sim-registry.c) */
typedef enum
{
  ALLOC_DEVICE,
  ALLOC_MAPPED,                 /* cuExternalMemoryGetMappedBuffer */
  ALLOC_HOST,                   /* cuMemAllocHost */
  ALLOC_VMM                     /* a cuMemMap mapping with access set
                                 * (counted as memhandle/varange, not alloc) */
} SimAllocKind;

SIM_HIDDEN void sim_alloc_add_locked (void *base, size_t size, SimAllocKind kind,
    void *owner);
/* finds the allocation starting exactly at base; removes it when found */
SIM_HIDDEN int sim_alloc_remove_locked (void *base, SimAllocKind * kind,
    size_t * size, void **owner);
/* is [p, p+len) inside one allocation (of any kind)? */
SIM_HIDDEN int sim_alloc_contains_locked (const void *p, size_t len,
    void **base, size_t * size);
SIM_HIDDEN size_t sim_alloc_total_device_locked (void);

/* semaphore objects (sim-semobj.c) */
SIM_HIDDEN SimSemObject *sim_sem_get_locked (int id);
/* Gives @sem the next id; -1 when out of memory. */
SIM_HIDDEN int sim_sem_register_locked (SimSemObject * sem);
SIM_HIDDEN void sim_sem_object_unref_locked (SimSemObject * sem);
SIM_HIDDEN uint64_t sim_sem_value (const SimSemObject * sem);
/* Applies a signal; returns 0, or -1 after reporting a violation. */
SIM_HIDDEN int sim_sem_signal_locked (SimSemObject * sem, uint64_t value,
    const char *who);
SIM_HIDDEN int sim_sem_make_payload_locked (SimSemObject * sem);
SIM_HIDDEN int64_t sim_sem_host_wait_deadline (uint64_t timeout_ns);
SIM_HIDDEN int sim_sem_host_wait_locked (SimSemObject * sem, uint64_t value,
    int64_t deadline);
SIM_HIDDEN SimSemObject *sim_sem_nvsci_obj_locked (const void *obj);
SIM_HIDDEN CUresult sim_sem_import_fd_locked
    (const CUDA_EXTERNAL_SEMAPHORE_HANDLE_DESC * desc, CudasimSemType expected,
    SimSemObject ** out);
/* the stream thread's side of queued signals and waits */
SIM_HIDDEN int sim_sem_wait_step_locked (SimOp * op);
SIM_HIDDEN void sim_sem_wait_block_locked (SimOp * op);
/* how often a wait on a semaphore shared with another process looks at it */
#define SIM_SHARED_POLL_NS 200000LL
SIM_HIDDEN void sim_sem_signal_exec_locked (SimOp * op);
SIM_HIDDEN void sim_extsem_unref_locked (SimExtSem * es);

/* NvSciSync fences (sim-nvsci.c) */
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

SIM_HIDDEN int sim_nvsci_fence_is_cleared (const void *fence);
/* index of the live (uncleared) fence @serial, or -1 */
SIM_HIDDEN int sim_nvsci_live_fence_find_locked (uint64_t serial);
/* Writes a new fence for the next deterministic value of @sem. */
SIM_HIDDEN void sim_nvsci_write_fence_locked (SimSemObject * sem, void *fence,
    const char *what);

/* external memory (sim-extmem.c) */
SIM_HIDDEN void sim_extmem_unref_locked (SimExtMem * em);
SIM_HIDDEN void sim_munmap_release (void *ptr, size_t size);

/* physical allocations of virtual memory (sim-vmm.c; mapped in
 * sim-vmm-map.c) */
typedef struct
{
  uint64_t id;
  int refs;                     /* create/import/retain minus release */
  int mappings;                 /* cuMemMap mappings not yet torn down */
  int fd;                       /* the memfd */
  size_t size;
  CUmemAllocationProp prop;
} SimPhys;

SIM_HIDDEN CUmemGenericAllocationHandle sim_phys_handle (const SimPhys * p);
/* frees the physical memory once no handle and no mapping refer to it */
SIM_HIDDEN void sim_phys_maybe_free_locked (SimPhys * p);
SIM_HIDDEN CUresult sim_phys_resolve_locked (CUmemGenericAllocationHandle h,
    const char *what, SimPhys ** out);

/* error names (sim-errnames.c) */
SIM_HIDDEN const char *sim_result_name (CUresult r);
SIM_HIDDEN int sim_result_from_string (const char *s, CUresult * out);
SIM_HIDDEN int sim_result_lookup (CUresult r, const char **name,
    const char **text);

#endif /* CUDASIM_INTERNAL_H */

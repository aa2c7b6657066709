/* cudasim: test-only simulated CUDA driver (libcuda.so.1)
 *
 * This header describes the test API that the simulator exports from
 * libcuda.so.1 in addition to the CUDA driver entry points.  A real NVIDIA
 * driver does not export any cudasim_* symbol, so a test finds out which
 * driver it runs on by looking the symbols up (see cudasim_lookup() below).
 *
 * Tests do not link against libcuda: run them with
 * LD_LIBRARY_PATH=<builddir>/tests/cudasim and let GStreamer (or dlopen) load
 * the simulator, then resolve the API with cudasim_lookup().
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef CUDASIM_H
#define CUDASIM_H

#include <stddef.h>
#include <stdint.h>
#include <dlfcn.h>
#include <cuda.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum
{
  CUDASIM_SEM_BINARY = 0,
  CUDASIM_SEM_TIMELINE = 1,
  /* NvSciSync objects: made by cudasim_nvsci_obj_create() only */
  CUDASIM_SEM_NVSCI = 2
} CudasimSemType;

/* ---- exporter side of external semaphores (think Vulkan) ---- */

/* Creates a semaphore object; returns its id (> 0) or -1.  The caller owns
 * one reference, dropped with cudasim_sem_unref().  A binary semaphore starts
 * signalled when initial_value != 0. */
int cudasim_sem_create (CudasimSemType type, uint64_t initial_value);

/* Returns a new fd referencing the semaphore (import it with
 * CU_EXTERNAL_SEMAPHORE_HANDLE_TYPE_OPAQUE_FD for binary, ..._TIMELINE_SEMAPHORE_FD
 * for timeline semaphores), or -1.  The fd stays importable while the
 * semaphore object is alive; a successful cuImportExternalSemaphore() takes
 * ownership of the fd and closes it. */
int cudasim_sem_export_fd (int id);

/* Host-side signal (vkSignalSemaphore).  Timeline: sets the value, which must
 * be strictly greater than the current one.  Binary: sets the signalled state
 * (value ignored); signalling an already-signalled binary semaphore is a
 * violation.  Returns 0, or -1 on violation (record mode) or bad id. */
int cudasim_sem_host_signal (int id, uint64_t value);

/* Timeline: the current value.  Binary: 1 when signalled, 0 when not. */
uint64_t cudasim_sem_get_value (int id);

/* Host-side wait.  Timeline: until value >= @value.  Binary: until signalled,
 * then consumes (resets) the signal like a queue wait.  UINT64_MAX timeout
 * means forever.  Returns 0 when satisfied, -1 on timeout or bad id. */
int cudasim_sem_host_wait (int id, uint64_t value, uint64_t timeout_ns);

/* Drops the caller's reference; imported CUexternalSemaphore handles keep the
 * object alive on their own. */
void cudasim_sem_unref (int id);

/* Returns a memfd of @size bytes usable with cuImportExternalMemory()
 * (CU_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD), or -1. */
int cudasim_mem_create (size_t size);

/* ---- NvSciSync (think libnvscisync on Jetson/DRIVE) ---- */

/* Size of an NvSciSyncFence (uint64_t payload[6]). */
#define CUDASIM_NVSCI_FENCE_SIZE 48

/* Creates a fake NvSciSyncObj, to be imported with
 * CU_EXTERNAL_SEMAPHORE_HANDLE_TYPE_NVSCISYNC (desc.handle.nvSciSyncObj).
 * @signal_permission / @wait_permission say whether the attribute list it
 * was allocated from had CUDA_NVSCISYNC_ATTR_SIGNAL / _WAIT set: without
 * them cuSignalExternalSemaphoresAsync / cuWaitExternalSemaphoresAsync
 * return CUDA_ERROR_NOT_SUPPORTED.  Fences are deterministic: the n-th
 * signal enqueued writes a fence of value n.  Returns NULL on failure. */
void *cudasim_nvsci_obj_create (int signal_permission, int wait_permission);

/* NvSciSyncObjFree(): drops the creator's reference.  Imported handles and
 * uncleared fences keep the object alive (as in NvSciSync); a freed object
 * can no longer be imported. */
void cudasim_nvsci_obj_free (void *obj);

/* The deterministic count the object has reached (signals executed), or 0
 * for an unknown object. */
uint64_t cudasim_nvsci_obj_get_value (const void *obj);

/* OR of the flags (CUDA_EXTERNAL_SEMAPHORE_SIGNAL_SKIP_NVSCIBUF_MEMSYNC,
 * CUDA_EXTERNAL_SEMAPHORE_WAIT_SKIP_NVSCIBUF_MEMSYNC) of every signal and
 * wait accepted on the object since it was created. */
unsigned cudasim_nvsci_obj_flags (const void *obj);

/* The deterministic value a fence written by a signal stands for; 0 for a
 * cleared (all-zero) fence or bytes that are not a simulator fence. */
uint64_t cudasim_nvsci_fence_value (const void *fence);

/* NvSciSyncFenceClear(): releases the reference an uncleared fence holds
 * and zeroes the 48 bytes.  Clearing a cleared fence does nothing.
 * Clearing a byte copy of a fence that was already cleared (a double clear:
 * a reference dropped twice in NvSciSync) is a violation.  Returns 0, or -1
 * on violation (record mode). */
int cudasim_nvsci_fence_clear (void *fence);

/* NvSciSyncFenceWait() on the CPU: until the fence's object reaches the
 * fence value.  A cleared fence is expired.  UINT64_MAX timeout means
 * forever.  Returns 0 when expired, -1 on timeout or invalid fence. */
int cudasim_nvsci_fence_wait (const void *fence, uint64_t timeout_ns);

/* Fences written by signals and not cleared yet (each holds a reference to
 * its object, i.e. a leak if nobody clears it). */
int cudasim_nvsci_live_fences (void);

/* ---- behaviour control ---- */

/* Delay (microseconds) slept by the stream thread before it executes an
 * operation.  @entry_point NULL sets the global delay, applied to every work
 * operation (copies, memsets, semaphore signal/wait, host functions).  A
 * named entry point (e.g. "cuSignalExternalSemaphoresAsync",
 * "cuMemcpy2DAsync_v2", "cuEventRecord") adds its own delay to the
 * operations it enqueues.  The two add up.  0 clears. */
void cudasim_set_delay_us (const char *entry_point, unsigned us);

/* The @nth call (1-based, counted from now) of @entry_point returns @result
 * without doing anything.  One pending injection per entry point; nth 0
 * disarms. */
void cudasim_inject_failure (const char *entry_point, unsigned nth,
    CUresult result);
void cudasim_clear_failures (void);

/* ---- accounting ---- */

/* CPU-synchronising calls (cuStreamSynchronize, cuEventSynchronize,
 * cuCtxSynchronize, cuMemcpy2D_v2, cuMemcpyHtoD_v2, cuMemcpyDtoH_v2,
 * cuMemcpyDtoD_v2, cuMemcpy, cuMemsetD8_v2, cuMemsetD32_v2) made by the
 * calling thread / by all threads since the last cudasim_reset_counters(). */
unsigned cudasim_thread_cpu_syncs (void);
unsigned cudasim_total_cpu_syncs (void);

/* cuEventSynchronize calls, by all threads since the last
 * cudasim_reset_counters(), that waited for pending work on an event made
 * without CU_EVENT_BLOCKING_SYNC: on a GPU, under the default scheduling
 * (CU_CTX_SCHED_AUTO with fewer contexts than CPU cores), such a wait
 * spins, a CPU core busy for as long as the GPU work runs. */
unsigned cudasim_spin_waits (void);

/* Calls of an entry point (aliases such as cuEventDestroy and
 * cuEventDestroy_v2 share one counter), including failed ones. */
unsigned cudasim_call_count (const char *entry_point);

/* Resets call counts, CPU-sync counts (every thread's) and the violation
 * count / last message.  Live objects, delays and failures are unaffected. */
void cudasim_reset_counters (void);

/* ---- violations (misuse a real GPU would not report) ---- */

/* 0: print "cudasim: VIOLATION: ..." and abort() (default, or
 * CUDASIM_VIOLATIONS=abort); 1: count and remember the last message. */
void cudasim_set_violation_mode (int record);
unsigned cudasim_violation_count (void);
/* Last message or NULL; the string stays valid until the next call of this
 * function from the same thread. */
const char *cudasim_last_violation (void);

/* Number of live objects of a kind: "context", "stream", "event", "extsem",
 * "extmem", "alloc" (device allocations, stream-ordered ones included, and
 * mapped external-memory buffers), "hostalloc" (cuMemAllocHost),
 * "memhandle" (cuMemCreate / imported physical allocations), "varange"
 * (cuMemAddressReserve ranges), "mempool" (cuMemPoolCreate pools not
 * destroyed).  -1 for an unknown kind. */
int cudasim_live_objects (const char *kind);

/* Blocks until every stream queue is idle.  Not counted as a CPU sync. */
void cudasim_drain (void);

/* ---- function pointer types and a lookup helper ---- */

typedef int (*CudasimSemCreateFunc) (CudasimSemType type, uint64_t initial_value);
typedef int (*CudasimSemExportFdFunc) (int id);
typedef int (*CudasimSemHostSignalFunc) (int id, uint64_t value);
typedef uint64_t (*CudasimSemGetValueFunc) (int id);
typedef int (*CudasimSemHostWaitFunc) (int id, uint64_t value, uint64_t timeout_ns);
typedef void (*CudasimSemUnrefFunc) (int id);
typedef int (*CudasimMemCreateFunc) (size_t size);
typedef void (*CudasimSetDelayUsFunc) (const char *entry_point, unsigned us);
typedef void (*CudasimInjectFailureFunc) (const char *entry_point, unsigned nth,
    CUresult result);
typedef void (*CudasimClearFailuresFunc) (void);
typedef unsigned (*CudasimThreadCpuSyncsFunc) (void);
typedef unsigned (*CudasimTotalCpuSyncsFunc) (void);
typedef unsigned (*CudasimSpinWaitsFunc) (void);
typedef unsigned (*CudasimCallCountFunc) (const char *entry_point);
typedef void (*CudasimResetCountersFunc) (void);
typedef void (*CudasimSetViolationModeFunc) (int record);
typedef unsigned (*CudasimViolationCountFunc) (void);
typedef const char *(*CudasimLastViolationFunc) (void);
typedef int (*CudasimLiveObjectsFunc) (const char *kind);
typedef void (*CudasimDrainFunc) (void);
typedef void *(*CudasimNvsciObjCreateFunc) (int signal_permission, int wait_permission);
typedef void (*CudasimNvsciObjFreeFunc) (void *obj);
typedef uint64_t (*CudasimNvsciObjGetValueFunc) (const void *obj);
typedef unsigned (*CudasimNvsciObjFlagsFunc) (const void *obj);
typedef uint64_t (*CudasimNvsciFenceValueFunc) (const void *fence);
typedef int (*CudasimNvsciFenceClearFunc) (void *fence);
typedef int (*CudasimNvsciFenceWaitFunc) (const void *fence, uint64_t timeout_ns);
typedef int (*CudasimNvsciLiveFencesFunc) (void);

typedef struct
{
  CudasimSemCreateFunc sem_create;
  CudasimSemExportFdFunc sem_export_fd;
  CudasimSemHostSignalFunc sem_host_signal;
  CudasimSemGetValueFunc sem_get_value;
  CudasimSemHostWaitFunc sem_host_wait;
  CudasimSemUnrefFunc sem_unref;
  CudasimMemCreateFunc mem_create;
  CudasimSetDelayUsFunc set_delay_us;
  CudasimInjectFailureFunc inject_failure;
  CudasimClearFailuresFunc clear_failures;
  CudasimThreadCpuSyncsFunc thread_cpu_syncs;
  CudasimTotalCpuSyncsFunc total_cpu_syncs;
  CudasimSpinWaitsFunc spin_waits;
  CudasimCallCountFunc call_count;
  CudasimResetCountersFunc reset_counters;
  CudasimSetViolationModeFunc set_violation_mode;
  CudasimViolationCountFunc violation_count;
  CudasimLastViolationFunc last_violation;
  CudasimLiveObjectsFunc live_objects;
  CudasimDrainFunc drain;
  CudasimNvsciObjCreateFunc nvsci_obj_create;
  CudasimNvsciObjFreeFunc nvsci_obj_free;
  CudasimNvsciObjGetValueFunc nvsci_obj_get_value;
  CudasimNvsciObjFlagsFunc nvsci_obj_flags;
  CudasimNvsciFenceValueFunc nvsci_fence_value;
  CudasimNvsciFenceClearFunc nvsci_fence_clear;
  CudasimNvsciFenceWaitFunc nvsci_fence_wait;
  CudasimNvsciLiveFencesFunc nvsci_live_fences;
} CudasimApi;

/* Fills @api from the libcuda.so.1 loaded in the process (loading it from the
 * library search path if needed).  Returns 1 when the simulator is in use and
 * every symbol was found, 0 otherwise (real driver, or no libcuda at all);
 * @api is zeroed then. */
static inline int
cudasim_lookup (CudasimApi * api)
{
  void *lib;
  int ok = 1;

  {
    size_t i;
    for (i = 0; i < sizeof (*api); i++)
      ((unsigned char *) api)[i] = 0;
  }

  lib = dlopen ("libcuda.so.1", RTLD_LAZY | RTLD_NOLOAD);
  if (!lib)
    lib = dlopen ("libcuda.so.1", RTLD_LAZY);
  if (!lib)
    return 0;

#define CUDASIM_LOOKUP_(field, sym, type) \
  do { \
    api->field = (type) dlsym (lib, sym); \
    if (!api->field) ok = 0; \
  } while (0)

  CUDASIM_LOOKUP_ (sem_create, "cudasim_sem_create", CudasimSemCreateFunc);
  CUDASIM_LOOKUP_ (sem_export_fd, "cudasim_sem_export_fd", CudasimSemExportFdFunc);
  CUDASIM_LOOKUP_ (sem_host_signal, "cudasim_sem_host_signal", CudasimSemHostSignalFunc);
  CUDASIM_LOOKUP_ (sem_get_value, "cudasim_sem_get_value", CudasimSemGetValueFunc);
  CUDASIM_LOOKUP_ (sem_host_wait, "cudasim_sem_host_wait", CudasimSemHostWaitFunc);
  CUDASIM_LOOKUP_ (sem_unref, "cudasim_sem_unref", CudasimSemUnrefFunc);
  CUDASIM_LOOKUP_ (mem_create, "cudasim_mem_create", CudasimMemCreateFunc);
  CUDASIM_LOOKUP_ (set_delay_us, "cudasim_set_delay_us", CudasimSetDelayUsFunc);
  CUDASIM_LOOKUP_ (inject_failure, "cudasim_inject_failure", CudasimInjectFailureFunc);
  CUDASIM_LOOKUP_ (clear_failures, "cudasim_clear_failures", CudasimClearFailuresFunc);
  CUDASIM_LOOKUP_ (thread_cpu_syncs, "cudasim_thread_cpu_syncs", CudasimThreadCpuSyncsFunc);
  CUDASIM_LOOKUP_ (total_cpu_syncs, "cudasim_total_cpu_syncs", CudasimTotalCpuSyncsFunc);
  CUDASIM_LOOKUP_ (spin_waits, "cudasim_spin_waits", CudasimSpinWaitsFunc);
  CUDASIM_LOOKUP_ (call_count, "cudasim_call_count", CudasimCallCountFunc);
  CUDASIM_LOOKUP_ (reset_counters, "cudasim_reset_counters", CudasimResetCountersFunc);
  CUDASIM_LOOKUP_ (set_violation_mode, "cudasim_set_violation_mode", CudasimSetViolationModeFunc);
  CUDASIM_LOOKUP_ (violation_count, "cudasim_violation_count", CudasimViolationCountFunc);
  CUDASIM_LOOKUP_ (last_violation, "cudasim_last_violation", CudasimLastViolationFunc);
  CUDASIM_LOOKUP_ (live_objects, "cudasim_live_objects", CudasimLiveObjectsFunc);
  CUDASIM_LOOKUP_ (drain, "cudasim_drain", CudasimDrainFunc);
  CUDASIM_LOOKUP_ (nvsci_obj_create, "cudasim_nvsci_obj_create", CudasimNvsciObjCreateFunc);
  CUDASIM_LOOKUP_ (nvsci_obj_free, "cudasim_nvsci_obj_free", CudasimNvsciObjFreeFunc);
  CUDASIM_LOOKUP_ (nvsci_obj_get_value, "cudasim_nvsci_obj_get_value", CudasimNvsciObjGetValueFunc);
  CUDASIM_LOOKUP_ (nvsci_obj_flags, "cudasim_nvsci_obj_flags", CudasimNvsciObjFlagsFunc);
  CUDASIM_LOOKUP_ (nvsci_fence_value, "cudasim_nvsci_fence_value", CudasimNvsciFenceValueFunc);
  CUDASIM_LOOKUP_ (nvsci_fence_clear, "cudasim_nvsci_fence_clear", CudasimNvsciFenceClearFunc);
  CUDASIM_LOOKUP_ (nvsci_fence_wait, "cudasim_nvsci_fence_wait", CudasimNvsciFenceWaitFunc);
  CUDASIM_LOOKUP_ (nvsci_live_fences, "cudasim_nvsci_live_fences", CudasimNvsciLiveFencesFunc);
#undef CUDASIM_LOOKUP_

  if (!ok) {
    size_t i;
    for (i = 0; i < sizeof (*api); i++)
      ((unsigned char *) api)[i] = 0;
  }
  /* the library stays loaded (the simulator is built with -z nodelete and
   * the process normally keeps libcuda loaded anyway) */
  return ok;
}

#ifdef __cplusplus
}
#endif
#endif /* CUDASIM_H */

/* cudasim self-test: what its files share.
 *
 * One program: test-cudasim.c has main() and the order of the tests, the
 * other test cases are grouped by topic in test-cudasim-*.c, and
 * test-cudasim-common.c holds the state and helpers they share.  The tests
 * run one after the other in one process and share the context ctx.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef TEST_CUDASIM_H
#define TEST_CUDASIM_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#include <stdint.h>
#include <stdio.h>

#include "cudasim.h"

typedef CUresult (*CtxCreateV2Func) (CUcontext *, unsigned int, CUdevice);

#define CU_FUNCS(X) \
  X (cuInit) X (cuGetErrorName) X (cuGetErrorString) X (cuDriverGetVersion) \
  X (cuDeviceGet) X (cuDeviceGetCount) X (cuDeviceGetAttribute) \
  X (cuDeviceGetUuid_v2) X (cuDeviceGetName) \
  X (cuCtxDestroy_v2) X (cuCtxPushCurrent_v2) X (cuCtxPopCurrent_v2) \
  X (cuCtxGetCurrent) X (cuCtxSetCurrent) X (cuCtxSynchronize) \
  X (cuDevicePrimaryCtxRetain) X (cuDevicePrimaryCtxRelease_v2) \
  X (cuMemAlloc_v2) X (cuMemAllocPitch_v2) X (cuMemFree_v2) \
  X (cuMemAllocHost_v2) X (cuMemFreeHost) X (cuMemcpy2D_v2) \
  X (cuMemcpy2DAsync_v2) X (cuMemcpyHtoD_v2) X (cuMemcpyDtoH_v2) \
  X (cuMemcpyHtoDAsync_v2) X (cuMemcpyDtoHAsync_v2) X (cuMemsetD8Async) \
  X (cuMemsetD8_v2) X (cuStreamCreate) X (cuStreamDestroy_v2) \
  X (cuStreamSynchronize) X (cuStreamQuery) X (cuStreamWaitEvent) \
  X (cuLaunchHostFunc) X (cuEventCreate) X (cuEventRecord) X (cuEventQuery) \
  X (cuEventSynchronize) X (cuEventDestroy_v2) X (cuEventElapsedTime_v2) \
  X (cuImportExternalSemaphore) X (cuSignalExternalSemaphoresAsync) \
  X (cuWaitExternalSemaphoresAsync) X (cuDestroyExternalSemaphore) \
  X (cuImportExternalMemory) X (cuExternalMemoryGetMappedBuffer) \
  X (cuDestroyExternalMemory) X (cuDeviceGetNvSciSyncAttributes) \
  X (cuCtxGetLimit) X (cuCtxSetLimit) X (cuMemcpyDtoD_v2) X (cuMemcpyDtoDAsync_v2) \
  X (cuMemsetD2D8_v2) X (cuMemsetD2D8Async) X (cuMemsetD2D16Async) \
  X (cuMemsetD2D32Async) X (cuMemsetD2D16_v2) \
  X (cuMemGetAllocationGranularity) X (cuMemCreate) X (cuMemRelease) \
  X (cuMemAddressReserve) X (cuMemAddressFree) X (cuMemMap) X (cuMemUnmap) \
  X (cuMemSetAccess) X (cuMemGetAccess) X (cuMemRetainAllocationHandle) \
  X (cuMemGetAllocationPropertiesFromHandle) \
  X (cuMemExportToShareableHandle) X (cuMemImportFromShareableHandle) \
  X (cuMemPoolCreate) X (cuMemPoolDestroy) X (cuMemPoolSetAttribute) \
  X (cuMemPoolGetAttribute) X (cuMemAllocAsync) X (cuMemAllocFromPoolAsync) \
  X (cuMemFreeAsync) X (cuIpcGetEventHandle) X (cuIpcOpenEventHandle) \
  X (cuIpcGetMemHandle) X (cuIpcOpenMemHandle_v2) X (cuIpcCloseMemHandle)

/* the driver's entry points, resolved with dlsym() */
typedef struct
{
#define DECL_(name) __typeof__ (&name) name;
  CU_FUNCS (DECL_)
#undef DECL_
  CtxCreateV2Func cuCtxCreate_v2;
} CuFuncs;

extern CuFuncs cu;
extern CudasimApi sim;
/* the context the tests run in (made current by test_contexts()) */
extern CUcontext ctx;
/* this program, run again in the child processes of test-cudasim-process.c */
extern const char *self_path;

extern int failures;
extern int checks;

#define CHECK(cond, ...) \
  do { \
    checks++; \
    if (cond) { \
      printf ("  ok   "); \
    } else { \
      printf ("  FAIL "); \
      failures++; \
    } \
    printf (__VA_ARGS__); \
    printf ("  [%s:%d]\n", __FILE__, __LINE__); \
    fflush (stdout); \
  } while (0)

#define CU_OK(call) \
  do { \
    CUresult r_ = (call); \
    if (r_ != CUDA_SUCCESS) { \
      printf ("  FAIL %s returned %d  [%s:%d]\n", #call, (int) r_, \
          __FILE__, __LINE__); \
      failures++; \
    } \
  } while (0)

#define SECTION(name) printf ("\n== %s\n", name)

/* helpers (test-cudasim-common.c) */
double now_ms (void);
void sleep_ms (int ms);
int fd_is_open (int fd);
CUexternalSemaphore import_sem (int id, CUexternalSemaphoreHandleType type,
    CUresult * res);
CUresult extsem_signal (CUexternalSemaphore es, uint64_t v, CUstream s);
CUresult extsem_wait (CUexternalSemaphore es, uint64_t v, CUstream s);

/* test-cudasim.c */
void test_load (void);
void test_init (void);
void test_contexts (void);
void test_limits (void);

/* test-cudasim-streams.c: streams, events, copies, memsets, accounting */
void test_async_copy (void);
void test_nonblocking_caller (void);
void test_legacy_stream (void);
void test_events (void);
void test_host_func (void);
void test_cpu_syncs (void);
void test_spin_waits (void);
void test_memset2d (void);
void test_blocking_streams (void);
void test_stream_depth (void);

/* test-cudasim-sem.c: external semaphores, violations, faults, threads */
void test_semaphores (void);
void test_import_errors (void);
void test_violations (void);
void test_fault_injection (void);
void test_concurrency (void);

/* test-cudasim-nvsci.c */
void test_nvsci (void);

/* test-cudasim-mem.c: external memory, virtual memory, pools, IPC */
void test_extmem (void);
void test_extmem_llvmpipe (void);
void test_vmm (void);
void test_stream_ordered (void);
void test_ipc (void);

/* test-cudasim-process.c: environment variables and a second process */
void test_env (void);
void test_cross_process (void);
int child_env (void);
int child_abort (void);
int child_shared_sem (void);

#endif /* TEST_CUDASIM_H */

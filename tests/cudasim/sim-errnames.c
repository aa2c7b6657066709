/* cudasim: CUresult names and descriptions.
 *
 * The table behind cuGetErrorName/cuGetErrorString (sim-device.c), the
 * messages about injected failures and CUDASIM_FAIL's result names.  It
 * calls nothing else of the simulator.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "cudasim-internal.h"

#include <stdlib.h>
#include <strings.h>

#define SIM_RESULTS(X) \
  X (CUDA_SUCCESS, "no error") \
  X (CUDA_ERROR_INVALID_VALUE, "invalid argument") \
  X (CUDA_ERROR_OUT_OF_MEMORY, "out of memory") \
  X (CUDA_ERROR_NOT_INITIALIZED, "initialization error (cuInit not called)") \
  X (CUDA_ERROR_DEINITIALIZED, "driver shutting down") \
  X (CUDA_ERROR_PROFILER_DISABLED, "profiler disabled") \
  X (CUDA_ERROR_PROFILER_NOT_INITIALIZED, "profiler not initialized") \
  X (CUDA_ERROR_PROFILER_ALREADY_STARTED, "profiler already started") \
  X (CUDA_ERROR_PROFILER_ALREADY_STOPPED, "profiler already stopped") \
  X (CUDA_ERROR_STUB_LIBRARY, "stub library loaded instead of the driver") \
  X (CUDA_ERROR_CALL_REQUIRES_NEWER_DRIVER, "call requires a newer driver") \
  X (CUDA_ERROR_DEVICE_UNAVAILABLE, "device unavailable") \
  X (CUDA_ERROR_NO_DEVICE, "no CUDA-capable device") \
  X (CUDA_ERROR_INVALID_DEVICE, "invalid device ordinal") \
  X (CUDA_ERROR_DEVICE_NOT_LICENSED, "device not licensed") \
  X (CUDA_ERROR_INVALID_IMAGE, "invalid kernel image") \
  X (CUDA_ERROR_INVALID_CONTEXT, "invalid device context") \
  X (CUDA_ERROR_CONTEXT_ALREADY_CURRENT, "context already current") \
  X (CUDA_ERROR_MAP_FAILED, "mapping failed") \
  X (CUDA_ERROR_UNMAP_FAILED, "unmapping failed") \
  X (CUDA_ERROR_ARRAY_IS_MAPPED, "array is mapped") \
  X (CUDA_ERROR_ALREADY_MAPPED, "resource already mapped") \
  X (CUDA_ERROR_NO_BINARY_FOR_GPU, "no kernel image for the device") \
  X (CUDA_ERROR_ALREADY_ACQUIRED, "resource already acquired") \
  X (CUDA_ERROR_NOT_MAPPED, "resource not mapped") \
  X (CUDA_ERROR_NOT_MAPPED_AS_ARRAY, "resource not mapped as array") \
  X (CUDA_ERROR_NOT_MAPPED_AS_POINTER, "resource not mapped as pointer") \
  X (CUDA_ERROR_ECC_UNCORRECTABLE, "uncorrectable ECC error") \
  X (CUDA_ERROR_UNSUPPORTED_LIMIT, "limit not supported") \
  X (CUDA_ERROR_CONTEXT_ALREADY_IN_USE, "context already in use") \
  X (CUDA_ERROR_PEER_ACCESS_UNSUPPORTED, "peer access unsupported") \
  X (CUDA_ERROR_INVALID_PTX, "invalid PTX") \
  X (CUDA_ERROR_INVALID_GRAPHICS_CONTEXT, "invalid graphics context") \
  X (CUDA_ERROR_NVLINK_UNCORRECTABLE, "uncorrectable NVLink error") \
  X (CUDA_ERROR_JIT_COMPILER_NOT_FOUND, "PTX JIT compiler not found") \
  X (CUDA_ERROR_UNSUPPORTED_PTX_VERSION, "unsupported PTX version") \
  X (CUDA_ERROR_JIT_COMPILATION_DISABLED, "JIT compilation disabled") \
  X (CUDA_ERROR_UNSUPPORTED_EXEC_AFFINITY, "exec affinity not supported") \
  X (CUDA_ERROR_UNSUPPORTED_DEVSIDE_SYNC, "device-side sync not supported") \
  X (CUDA_ERROR_INVALID_SOURCE, "invalid source") \
  X (CUDA_ERROR_FILE_NOT_FOUND, "file not found") \
  X (CUDA_ERROR_SHARED_OBJECT_SYMBOL_NOT_FOUND, "shared object symbol not found") \
  X (CUDA_ERROR_SHARED_OBJECT_INIT_FAILED, "shared object initialization failed") \
  X (CUDA_ERROR_OPERATING_SYSTEM, "OS call failed") \
  X (CUDA_ERROR_INVALID_HANDLE, "invalid resource handle") \
  X (CUDA_ERROR_ILLEGAL_STATE, "illegal state") \
  X (CUDA_ERROR_LOSSY_QUERY, "lossy query") \
  X (CUDA_ERROR_NOT_FOUND, "named symbol not found") \
  X (CUDA_ERROR_NOT_READY, "device not ready") \
  X (CUDA_ERROR_ILLEGAL_ADDRESS, "illegal memory access") \
  X (CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES, "too many resources requested for launch") \
  X (CUDA_ERROR_LAUNCH_TIMEOUT, "launch timed out") \
  X (CUDA_ERROR_LAUNCH_INCOMPATIBLE_TEXTURING, "incompatible texturing mode") \
  X (CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED, "peer access already enabled") \
  X (CUDA_ERROR_PEER_ACCESS_NOT_ENABLED, "peer access not enabled") \
  X (CUDA_ERROR_PRIMARY_CONTEXT_ACTIVE, "primary context active") \
  X (CUDA_ERROR_CONTEXT_IS_DESTROYED, "context is destroyed") \
  X (CUDA_ERROR_ASSERT, "device-side assert triggered") \
  X (CUDA_ERROR_TOO_MANY_PEERS, "too many peers") \
  X (CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED, "host memory already registered") \
  X (CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED, "host memory not registered") \
  X (CUDA_ERROR_HARDWARE_STACK_ERROR, "hardware stack error") \
  X (CUDA_ERROR_ILLEGAL_INSTRUCTION, "illegal instruction") \
  X (CUDA_ERROR_MISALIGNED_ADDRESS, "misaligned address") \
  X (CUDA_ERROR_INVALID_ADDRESS_SPACE, "invalid address space") \
  X (CUDA_ERROR_INVALID_PC, "invalid program counter") \
  X (CUDA_ERROR_LAUNCH_FAILED, "unspecified launch failure") \
  X (CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE, "cooperative launch too large") \
  X (CUDA_ERROR_NOT_PERMITTED, "operation not permitted") \
  X (CUDA_ERROR_NOT_SUPPORTED, "operation not supported") \
  X (CUDA_ERROR_SYSTEM_NOT_READY, "system not ready") \
  X (CUDA_ERROR_SYSTEM_DRIVER_MISMATCH, "system driver mismatch") \
  X (CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE, "forward compatibility not supported on device") \
  X (CUDA_ERROR_MPS_CONNECTION_FAILED, "MPS connection failed") \
  X (CUDA_ERROR_MPS_RPC_FAILURE, "MPS RPC failure") \
  X (CUDA_ERROR_MPS_SERVER_NOT_READY, "MPS server not ready") \
  X (CUDA_ERROR_MPS_MAX_CLIENTS_REACHED, "MPS client limit reached") \
  X (CUDA_ERROR_MPS_MAX_CONNECTIONS_REACHED, "MPS connection limit reached") \
  X (CUDA_ERROR_MPS_CLIENT_TERMINATED, "MPS client terminated") \
  X (CUDA_ERROR_CDP_NOT_SUPPORTED, "CDP not supported") \
  X (CUDA_ERROR_CDP_VERSION_MISMATCH, "CDP version mismatch") \
  X (CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED, "operation not permitted while capturing") \
  X (CUDA_ERROR_STREAM_CAPTURE_INVALIDATED, "stream capture invalidated") \
  X (CUDA_ERROR_STREAM_CAPTURE_MERGE, "stream capture merge not permitted") \
  X (CUDA_ERROR_STREAM_CAPTURE_UNMATCHED, "stream capture unmatched") \
  X (CUDA_ERROR_STREAM_CAPTURE_UNJOINED, "stream capture unjoined") \
  X (CUDA_ERROR_STREAM_CAPTURE_ISOLATION, "stream capture isolation violated") \
  X (CUDA_ERROR_STREAM_CAPTURE_IMPLICIT, "implicit dependency on a capturing stream") \
  X (CUDA_ERROR_CAPTURED_EVENT, "operation not permitted on a captured event") \
  X (CUDA_ERROR_STREAM_CAPTURE_WRONG_THREAD, "stream capture ended in the wrong thread") \
  X (CUDA_ERROR_TIMEOUT, "wait timed out") \
  X (CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE, "graph update not permitted") \
  X (CUDA_ERROR_EXTERNAL_DEVICE, "external device error") \
  X (CUDA_ERROR_INVALID_CLUSTER_SIZE, "invalid cluster size") \
  X (CUDA_ERROR_FUNCTION_NOT_LOADED, "function not loaded") \
  X (CUDA_ERROR_INVALID_RESOURCE_TYPE, "invalid resource type") \
  X (CUDA_ERROR_INVALID_RESOURCE_CONFIGURATION, "invalid resource configuration") \
  X (CUDA_ERROR_UNKNOWN, "unknown error")

static const struct
{
  CUresult code;
  const char *name;
  const char *text;
} g_results[] = {
#define SIM_RESULT_ENTRY_(code_, text_) { code_, #code_, text_ },
  SIM_RESULTS (SIM_RESULT_ENTRY_)
#undef SIM_RESULT_ENTRY_
};

#define N_RESULTS (sizeof (g_results) / sizeof (g_results[0]))

const char *
sim_result_name (CUresult r)
{
  size_t i;

  for (i = 0; i < N_RESULTS; i++) {
    if (g_results[i].code == r)
      return g_results[i].name;
  }
  return "CUDA_ERROR_(unknown code)";
}

int
sim_result_from_string (const char *s, CUresult * out)
{
  size_t i;
  char *end;
  long v;

  for (i = 0; i < N_RESULTS; i++) {
    if (strcasecmp (g_results[i].name, s) == 0 ||
        (strncasecmp (s, "CUDA_ERROR_", 11) != 0 &&
            strncasecmp (g_results[i].name, "CUDA_ERROR_", 11) == 0 &&
            strcasecmp (g_results[i].name + 11, s) == 0)) {
      *out = g_results[i].code;
      return 1;
    }
  }
  v = strtol (s, &end, 0);
  if (*s && !*end && v >= 0) {
    *out = (CUresult) v;
    return 1;
  }
  return 0;
}

/* @r's name and description (either pointer may be NULL); 1 when @r is a
 * known code, else 0 and nothing is written */
int
sim_result_lookup (CUresult r, const char **name, const char **text)
{
  size_t i;

  for (i = 0; i < N_RESULTS; i++) {
    if (g_results[i].code == r) {
      if (name)
        *name = g_results[i].name;
      if (text)
        *text = g_results[i].text;
      return 1;
    }
  }
  return 0;
}

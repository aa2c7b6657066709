/* cudasim: CUDA driver entry points (devices, memory, copies, streams,
 * events, unsupported graphics/module APIs, error names).
 *
 * Contexts live in sim-core.c (they need the thread-local context stack),
 * external semaphores / memory in sim-extsem.c.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "cudasim-internal.h"

#include <ctype.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define SIM_TOTAL_MEM ((size_t) 8 << 30)
#define SIM_PITCH_ALIGN 512
#define SIM_ALLOC_ALIGN 256
#define SIM_UNINIT_BYTE 0xcd    /* fresh device memory is not zeroed */

/* ------------------------------------------------------------------ */
/* error names                                                         */
/* ------------------------------------------------------------------ */

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

SIM_EXPORT CUresult
cuGetErrorName (CUresult error, const char **pStr)
{
  size_t i;

  SIM_ENTER (cuGetErrorName);
  if (!pStr)
    return CUDA_ERROR_INVALID_VALUE;
  for (i = 0; i < N_RESULTS; i++) {
    if (g_results[i].code == error) {
      *pStr = g_results[i].name;
      return CUDA_SUCCESS;
    }
  }
  *pStr = NULL;
  return CUDA_ERROR_INVALID_VALUE;
}

SIM_EXPORT CUresult
cuGetErrorString (CUresult error, const char **pStr)
{
  size_t i;

  SIM_ENTER (cuGetErrorString);
  if (!pStr)
    return CUDA_ERROR_INVALID_VALUE;
  for (i = 0; i < N_RESULTS; i++) {
    if (g_results[i].code == error) {
      *pStr = g_results[i].text;
      return CUDA_SUCCESS;
    }
  }
  *pStr = NULL;
  return CUDA_ERROR_INVALID_VALUE;
}

/* ------------------------------------------------------------------ */
/* init, devices                                                       */
/* ------------------------------------------------------------------ */

SIM_EXPORT CUresult
cuInit (unsigned int flags)
{
  CUresult r = CUDA_SUCCESS;

  SIM_ENTER (cuInit);
  if (flags != 0)
    return CUDA_ERROR_INVALID_VALUE;
  pthread_mutex_lock (&g_sim.lock);
  if (g_sim.device_count == 0)
    r = CUDA_ERROR_NO_DEVICE;
  else
    g_sim.initialized = 1;
  pthread_mutex_unlock (&g_sim.lock);
  return r;
}

SIM_EXPORT CUresult
cuDriverGetVersion (int *driverVersion)
{
  SIM_ENTER (cuDriverGetVersion);
  if (!driverVersion)
    return CUDA_ERROR_INVALID_VALUE;
  *driverVersion = CUDA_VERSION;
  return CUDA_SUCCESS;
}

static int
sim_valid_device (CUdevice dev)
{
  return dev >= 0 && dev < g_sim.device_count;
}

SIM_EXPORT CUresult
cuDeviceGet (CUdevice * device, int ordinal)
{
  SIM_ENTER (cuDeviceGet);
  if (!device)
    return CUDA_ERROR_INVALID_VALUE;
  if (!sim_valid_device (ordinal))
    return CUDA_ERROR_INVALID_DEVICE;
  *device = ordinal;
  return CUDA_SUCCESS;
}

SIM_EXPORT CUresult
cuDeviceGetCount (int *count)
{
  SIM_ENTER (cuDeviceGetCount);
  if (!count)
    return CUDA_ERROR_INVALID_VALUE;
  *count = g_sim.device_count;
  return CUDA_SUCCESS;
}

SIM_EXPORT CUresult
cuDeviceGetName (char *name, int len, CUdevice dev)
{
  SIM_ENTER (cuDeviceGetName);
  if (!name || len <= 0)
    return CUDA_ERROR_INVALID_VALUE;
  if (!sim_valid_device (dev))
    return CUDA_ERROR_INVALID_DEVICE;
  snprintf (name, (size_t) len, "cudasim simulated GPU %d", dev);
  return CUDA_SUCCESS;
}

static int
sim_device_attribute (CUdevice_attribute attrib, CUdevice dev)
{
  switch (attrib) {
    case CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK:
      return 1024;
    case CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X:
    case CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y:
      return 1024;
    case CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z:
      return 64;
    case CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X:
      return 2147483647;
    case CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y:
    case CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z:
      return 65535;
    case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK:
      return 49152;
    case CU_DEVICE_ATTRIBUTE_TOTAL_CONSTANT_MEMORY:
      return 65536;
    case CU_DEVICE_ATTRIBUTE_WARP_SIZE:
      return 32;
    case CU_DEVICE_ATTRIBUTE_MAX_PITCH:
      return 2147483647;
    case CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK:
      return 65536;
    case CU_DEVICE_ATTRIBUTE_CLOCK_RATE:
      return 1500000;
    case CU_DEVICE_ATTRIBUTE_TEXTURE_ALIGNMENT:
      return 512;
    case CU_DEVICE_ATTRIBUTE_TEXTURE_PITCH_ALIGNMENT:
      return 32;
    case CU_DEVICE_ATTRIBUTE_GPU_OVERLAP:
      return 1;
    case CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT:
      return 16;
    case CU_DEVICE_ATTRIBUTE_KERNEL_EXEC_TIMEOUT:
      return 0;
    case CU_DEVICE_ATTRIBUTE_INTEGRATED:
      return 0;
    case CU_DEVICE_ATTRIBUTE_CAN_MAP_HOST_MEMORY:
      return 1;
    case CU_DEVICE_ATTRIBUTE_COMPUTE_MODE:
      return CU_COMPUTEMODE_DEFAULT;
    case CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE1D_WIDTH:
      return 131072;
    case CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_WIDTH:
    case CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_HEIGHT:
      return 65536;
    case CU_DEVICE_ATTRIBUTE_CONCURRENT_KERNELS:
      return 1;
    case CU_DEVICE_ATTRIBUTE_ECC_ENABLED:
      return 0;
    case CU_DEVICE_ATTRIBUTE_PCI_BUS_ID:
      return 1 + dev;
    case CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID:
    case CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID:
      return 0;
    case CU_DEVICE_ATTRIBUTE_TCC_DRIVER:
      return 0;
    case CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE:
      return 7000000;
    case CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH:
      return 256;
    case CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE:
      return 4 << 20;
    case CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR:
      return 1536;
    case CU_DEVICE_ATTRIBUTE_ASYNC_ENGINE_COUNT:
      return 2;
    case CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING:
      return 1;
    case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR:
      return 8;
    case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR:
      return 6;
    case CU_DEVICE_ATTRIBUTE_STREAM_PRIORITIES_SUPPORTED:
      return 1;
    case CU_DEVICE_ATTRIBUTE_MANAGED_MEMORY:
      return 0;
    case CU_DEVICE_ATTRIBUTE_MULTI_GPU_BOARD:
      return 0;
    case CU_DEVICE_ATTRIBUTE_HOST_NATIVE_ATOMIC_SUPPORTED:
      return 0;
    case CU_DEVICE_ATTRIBUTE_PAGEABLE_MEMORY_ACCESS:
      return 0;
    case CU_DEVICE_ATTRIBUTE_CAN_USE_HOST_POINTER_FOR_REGISTERED_MEM:
      return 1;
    case CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR_SUPPORTED:
      return 1;
    case CU_DEVICE_ATTRIBUTE_TIMELINE_SEMAPHORE_INTEROP_SUPPORTED:
      return 1;
    case CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED:
      return 1;                 /* sim-mem.c: memfd-backed, POSIX fd export */
    case CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED:
      return 1;                 /* sim-mem.c: stream-ordered allocation */
    case CU_DEVICE_ATTRIBUTE_MEMPOOL_SUPPORTED_HANDLE_TYPES:
      return 0;                 /* no exportable pools */
    case CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_WIN32_HANDLE_SUPPORTED:
    case CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_WIN32_KMT_HANDLE_SUPPORTED:
    case CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_FABRIC_SUPPORTED:
    case CU_DEVICE_ATTRIBUTE_GENERIC_COMPRESSION_SUPPORTED:
    case CU_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_WITH_CUDA_VMM_SUPPORTED:
      return 0;
    case CU_DEVICE_ATTRIBUTE_IPC_EVENT_SUPPORTED:
      return 0;                 /* legacy IPC: same process only, see sim-mem.c */
    default:
      return 0;
  }
}

SIM_EXPORT CUresult
cuDeviceGetAttribute (int *pi, CUdevice_attribute attrib, CUdevice dev)
{
  SIM_ENTER (cuDeviceGetAttribute);
  if (!pi || (int) attrib <= 0 || attrib >= CU_DEVICE_ATTRIBUTE_MAX)
    return CUDA_ERROR_INVALID_VALUE;
  if (!sim_valid_device (dev))
    return CUDA_ERROR_INVALID_DEVICE;
  *pi = sim_device_attribute (attrib, dev);
  return CUDA_SUCCESS;
}

SIM_EXPORT CUresult
cuDeviceCanAccessPeer (int *canAccessPeer, CUdevice dev, CUdevice peerDev)
{
  SIM_ENTER (cuDeviceCanAccessPeer);
  if (!canAccessPeer)
    return CUDA_ERROR_INVALID_VALUE;
  if (!sim_valid_device (dev) || !sim_valid_device (peerDev))
    return CUDA_ERROR_INVALID_DEVICE;
  *canAccessPeer = dev != peerDev;
  return CUDA_SUCCESS;
}

static CUresult
sim_device_uuid (CUuuid * uuid, CUdevice dev)
{
  static const char prefix[12] = { 'c', 'u', 'd', 'a', 's', 'i', 'm', '-',
    'g', 'p', 'u', '-'
  };

  const char *env;

  if (!uuid)
    return CUDA_ERROR_INVALID_VALUE;
  if (!sim_valid_device (dev))
    return CUDA_ERROR_INVALID_DEVICE;
  /* CUDASIM_DEVICE_UUID=<32 hex digits>: device 0 pretends to be that
   * device (tests set it to a Vulkan device's deviceUUID, e.g. lavapipe's,
   * so that CUDA<->Vulkan interop finds "the same" device). Read at call
   * time, so a test may set it after the library was loaded. */
  env = dev == 0 ? getenv ("CUDASIM_DEVICE_UUID") : NULL;
  if (env && *env) {
    unsigned char b[16];
    int i, ok = strlen (env) == 32;

    for (i = 0; ok && i < 16; i++) {
      char hex[3] = { env[2 * i], env[2 * i + 1], 0 };
      char *end;
      if (!isxdigit ((unsigned char) hex[0]) ||
          !isxdigit ((unsigned char) hex[1]))
        ok = 0;
      else
        b[i] = (unsigned char) strtoul (hex, &end, 16);
    }
    if (ok) {
      memcpy (uuid->bytes, b, sizeof (b));
      return CUDA_SUCCESS;
    }
    fprintf (stderr, "cudasim: ignoring CUDASIM_DEVICE_UUID=%s (32 hex "
        "digits expected)\n", env);
  }
  memcpy (uuid->bytes, prefix, sizeof (prefix));
  uuid->bytes[12] = (char) ((dev >> 24) & 0xff);
  uuid->bytes[13] = (char) ((dev >> 16) & 0xff);
  uuid->bytes[14] = (char) ((dev >> 8) & 0xff);
  uuid->bytes[15] = (char) (dev & 0xff);
  return CUDA_SUCCESS;
}

SIM_EXPORT CUresult
cuDeviceGetUuid_v2 (CUuuid * uuid, CUdevice dev)
{
  SIM_ENTER (cuDeviceGetUuid_v2);
  return sim_device_uuid (uuid, dev);
}

SIM_EXPORT CUresult
cuDeviceGetUuid (CUuuid * uuid, CUdevice dev)
{
  SIM_ENTER (cuDeviceGetUuid_v2);
  return sim_device_uuid (uuid, dev);
}

SIM_EXPORT CUresult
cuDeviceTotalMem_v2 (size_t *bytes, CUdevice dev)
{
  SIM_ENTER (cuDeviceTotalMem_v2);
  if (!bytes)
    return CUDA_ERROR_INVALID_VALUE;
  if (!sim_valid_device (dev))
    return CUDA_ERROR_INVALID_DEVICE;
  *bytes = SIM_TOTAL_MEM;
  return CUDA_SUCCESS;
}

/* NvSciSyncAttrKeyValuePair (nvscisync.h): { enum key; const void *value;
 * size_t len; } */
typedef struct
{
  int key;
  const void *value;
  size_t len;
} SimSciPair;

typedef int (*SimSciAttrsFunc) (void *list, SimSciPair * pairs, size_t n);

#define SIM_SCI_KEY_REQUIRED_PERM 2     /* NvSciSyncAttrKey_RequiredPerm */
#define SIM_SCI_PERM_WAIT 1ull  /* NvSciSyncAccessPerm_WaitOnly */
#define SIM_SCI_PERM_SIGNAL 2ull        /* NvSciSyncAccessPerm_SignalOnly */

/* The real driver fills the list through libnvscisync. The simulator does
 * the same with the public NvSciSyncAttrListGetAttrs/SetAttrs when a
 * libnvscisync is loaded in the process (in the tests: the stub of
 * tests/nvsci-fixture), and sets RequiredPerm only (not PrimitiveInfo or
 * GpuId); without one, NvSciSync attributes are NOT_SUPPORTED. */
SIM_EXPORT CUresult
cuDeviceGetNvSciSyncAttributes (void *nvSciSyncAttrList, CUdevice dev,
    int flags)
{
  SimSciAttrsFunc get, set;
  SimSciPair pair;
  uint64_t perm = 0;

  SIM_ENTER (cuDeviceGetNvSciSyncAttributes);
  get = (SimSciAttrsFunc) dlsym (RTLD_DEFAULT, "NvSciSyncAttrListGetAttrs");
  set = (SimSciAttrsFunc) dlsym (RTLD_DEFAULT, "NvSciSyncAttrListSetAttrs");
  if (!get || !set)
    return CUDA_ERROR_NOT_SUPPORTED;
  if (!nvSciSyncAttrList)
    return CUDA_ERROR_INVALID_HANDLE;
  if (!sim_valid_device (dev))
    return CUDA_ERROR_INVALID_DEVICE;
  if (flags & CUDA_NVSCISYNC_ATTR_SIGNAL)
    perm |= SIM_SCI_PERM_SIGNAL;
  if (flags & CUDA_NVSCISYNC_ATTR_WAIT)
    perm |= SIM_SCI_PERM_WAIT;
  if (!perm
      || (flags & ~(CUDA_NVSCISYNC_ATTR_SIGNAL | CUDA_NVSCISYNC_ATTR_WAIT)))
    return CUDA_ERROR_INVALID_VALUE;

  memset (&pair, 0, sizeof (pair));
  pair.key = SIM_SCI_KEY_REQUIRED_PERM;
  if (get (nvSciSyncAttrList, &pair, 1) != 0)
    return CUDA_ERROR_INVALID_HANDLE;
  if (pair.value && pair.len)
    return CUDA_ERROR_INVALID_VALUE;    /* RequiredPerm already set */
  pair.value = &perm;
  pair.len = sizeof (perm);
  if (set (nvSciSyncAttrList, &pair, 1) != 0)
    return CUDA_ERROR_INVALID_HANDLE;
  return CUDA_SUCCESS;
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

/* ------------------------------------------------------------------ */
/* memory                                                              */
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
/* copies and memsets                                                  */
/* ------------------------------------------------------------------ */

typedef enum
{
  SIM_SUBMIT_ASYNC,
  SIM_SUBMIT_SYNC               /* through the null stream, then wait */
} SimSubmit;

/* Enqueues @op on @stream (async) or on the current context's null stream
 * followed by a wait (sync).  Takes ownership of @op. */
static CUresult
sim_submit_locked (SimOp * op, CUstream stream, SimSubmit mode,
    const char *what)
{
  SimStream *s;
  CUresult r;
  uint64_t seq;

  if (mode == SIM_SUBMIT_SYNC)
    r = sim_resolve_stream_locked (NULL, what, &s);
  else
    r = sim_resolve_stream_locked (stream, what, &s);
  if (r != CUDA_SUCCESS) {
    free (op);
    return r;
  }
  seq = sim_enqueue_locked (s, op);
  if (mode == SIM_SUBMIT_SYNC) {
    sim_count_cpu_sync ();
    sim_wait_seq_locked (s, seq, what);
  }
  return CUDA_SUCCESS;
}

/* resolves one side of a 2D copy: returns the first byte, or NULL on error */
static CUresult
sim_copy_side_locked (CUmemorytype type, const void *host, CUdeviceptr dev,
    size_t x, size_t y, size_t pitch, size_t width, size_t height,
    uint8_t ** out)
{
  uint8_t *base;
  size_t span;

  switch (type) {
    case CU_MEMORYTYPE_HOST:
      base = (uint8_t *) host;
      break;
    case CU_MEMORYTYPE_DEVICE:
    case CU_MEMORYTYPE_UNIFIED:
      base = (uint8_t *) (uintptr_t) dev;
      break;
    case CU_MEMORYTYPE_ARRAY:
      return CUDA_ERROR_NOT_SUPPORTED;
    default:
      return CUDA_ERROR_INVALID_VALUE;
  }
  if (!base)
    return CUDA_ERROR_INVALID_VALUE;
  if (height > 1 && pitch < width)
    return CUDA_ERROR_INVALID_VALUE;
  base += y * pitch + x;
  span = (height - 1) * pitch + width;
  /* device pointers must lie in one allocation; a unified pointer is
   * checked the same way when it starts inside a known allocation (else it
   * is host memory, which cannot be checked) */
  if (type == CU_MEMORYTYPE_DEVICE &&
      !sim_alloc_contains_locked (base, span, NULL, NULL))
    return CUDA_ERROR_INVALID_VALUE;
  if (type == CU_MEMORYTYPE_UNIFIED &&
      sim_alloc_contains_locked (base, 1, NULL, NULL) &&
      !sim_alloc_contains_locked (base, span, NULL, NULL))
    return CUDA_ERROR_INVALID_VALUE;
  *out = base;
  return CUDA_SUCCESS;
}

static CUresult
sim_copy2d (const CUDA_MEMCPY2D * p, CUstream stream, SimSubmit mode,
    SimEntry entry)
{
  uint8_t *src = NULL, *dst = NULL;
  SimOp *op;
  CUresult r;

  if (!p)
    return CUDA_ERROR_INVALID_VALUE;

  pthread_mutex_lock (&g_sim.lock);
  if (p->WidthInBytes == 0 || p->Height == 0) {
    op = sim_op_new (OP_NOP, entry);
  } else {
    r = sim_copy_side_locked (p->srcMemoryType, p->srcHost, p->srcDevice,
        p->srcXInBytes, p->srcY, p->srcPitch, p->WidthInBytes, p->Height, &src);
    if (r == CUDA_SUCCESS)
      r = sim_copy_side_locked (p->dstMemoryType, p->dstHost, p->dstDevice,
          p->dstXInBytes, p->dstY, p->dstPitch, p->WidthInBytes, p->Height,
          &dst);
    if (r != CUDA_SUCCESS) {
      pthread_mutex_unlock (&g_sim.lock);
      return r;
    }
    op = sim_op_new (OP_COPY2D, entry);
    op->global_delay = 1;
    op->u.copy.src = src;
    op->u.copy.dst = dst;
    op->u.copy.spitch = p->srcPitch;
    op->u.copy.dpitch = p->dstPitch;
    op->u.copy.width = p->WidthInBytes;
    op->u.copy.height = p->Height;
  }
  r = sim_submit_locked (op, stream, mode, sim_entry_name (entry));
  pthread_mutex_unlock (&g_sim.lock);
  return r;
}

static CUresult
sim_copy1d (CUmemorytype dst_type, void *dst, CUmemorytype src_type,
    const void *src, size_t n, CUstream stream, SimSubmit mode, SimEntry entry)
{
  CUDA_MEMCPY2D p;

  memset (&p, 0, sizeof (p));
  p.srcMemoryType = src_type;
  if (src_type == CU_MEMORYTYPE_HOST)
    p.srcHost = src;
  else
    p.srcDevice = (CUdeviceptr) (uintptr_t) src;
  p.srcPitch = n;
  p.dstMemoryType = dst_type;
  if (dst_type == CU_MEMORYTYPE_HOST)
    p.dstHost = dst;
  else
    p.dstDevice = (CUdeviceptr) (uintptr_t) dst;
  p.dstPitch = n;
  p.WidthInBytes = n;
  p.Height = 1;
  return sim_copy2d (&p, stream, mode, entry);
}

SIM_EXPORT CUresult
cuMemcpy2D_v2 (const CUDA_MEMCPY2D * pCopy)
{
  SIM_ENTER (cuMemcpy2D_v2);
  return sim_copy2d (pCopy, NULL, SIM_SUBMIT_SYNC, EP_cuMemcpy2D_v2);
}

SIM_EXPORT CUresult
cuMemcpy2DAsync_v2 (const CUDA_MEMCPY2D * pCopy, CUstream hStream)
{
  SIM_ENTER (cuMemcpy2DAsync_v2);
  return sim_copy2d (pCopy, hStream, SIM_SUBMIT_ASYNC, EP_cuMemcpy2DAsync_v2);
}

SIM_EXPORT CUresult
cuMemcpyHtoD_v2 (CUdeviceptr dstDevice, const void *srcHost, size_t ByteCount)
{
  SIM_ENTER (cuMemcpyHtoD_v2);
  return sim_copy1d (CU_MEMORYTYPE_DEVICE, (void *) (uintptr_t) dstDevice,
      CU_MEMORYTYPE_HOST, srcHost, ByteCount, NULL, SIM_SUBMIT_SYNC,
      EP_cuMemcpyHtoD_v2);
}

SIM_EXPORT CUresult
cuMemcpyDtoH_v2 (void *dstHost, CUdeviceptr srcDevice, size_t ByteCount)
{
  SIM_ENTER (cuMemcpyDtoH_v2);
  return sim_copy1d (CU_MEMORYTYPE_HOST, dstHost, CU_MEMORYTYPE_DEVICE,
      (void *) (uintptr_t) srcDevice, ByteCount, NULL, SIM_SUBMIT_SYNC,
      EP_cuMemcpyDtoH_v2);
}

SIM_EXPORT CUresult
cuMemcpyDtoD_v2 (CUdeviceptr dstDevice, CUdeviceptr srcDevice, size_t ByteCount)
{
  SIM_ENTER (cuMemcpyDtoD_v2);
  return sim_copy1d (CU_MEMORYTYPE_DEVICE, (void *) (uintptr_t) dstDevice,
      CU_MEMORYTYPE_DEVICE, (void *) (uintptr_t) srcDevice, ByteCount, NULL,
      SIM_SUBMIT_SYNC, EP_cuMemcpyDtoD_v2);
}

SIM_EXPORT CUresult
cuMemcpyHtoDAsync_v2 (CUdeviceptr dstDevice, const void *srcHost,
    size_t ByteCount, CUstream hStream)
{
  SIM_ENTER (cuMemcpyHtoDAsync_v2);
  return sim_copy1d (CU_MEMORYTYPE_DEVICE, (void *) (uintptr_t) dstDevice,
      CU_MEMORYTYPE_HOST, srcHost, ByteCount, hStream, SIM_SUBMIT_ASYNC,
      EP_cuMemcpyHtoDAsync_v2);
}

SIM_EXPORT CUresult
cuMemcpyDtoHAsync_v2 (void *dstHost, CUdeviceptr srcDevice, size_t ByteCount,
    CUstream hStream)
{
  SIM_ENTER (cuMemcpyDtoHAsync_v2);
  return sim_copy1d (CU_MEMORYTYPE_HOST, dstHost, CU_MEMORYTYPE_DEVICE,
      (void *) (uintptr_t) srcDevice, ByteCount, hStream, SIM_SUBMIT_ASYNC,
      EP_cuMemcpyDtoHAsync_v2);
}

SIM_EXPORT CUresult
cuMemcpyDtoDAsync_v2 (CUdeviceptr dstDevice, CUdeviceptr srcDevice,
    size_t ByteCount, CUstream hStream)
{
  SIM_ENTER (cuMemcpyDtoDAsync_v2);
  return sim_copy1d (CU_MEMORYTYPE_DEVICE, (void *) (uintptr_t) dstDevice,
      CU_MEMORYTYPE_DEVICE, (void *) (uintptr_t) srcDevice, ByteCount,
      hStream, SIM_SUBMIT_ASYNC, EP_cuMemcpyDtoDAsync_v2);
}

SIM_EXPORT CUresult
cuMemcpy (CUdeviceptr dst, CUdeviceptr src, size_t ByteCount)
{
  SIM_ENTER (cuMemcpy);
  return sim_copy1d (CU_MEMORYTYPE_UNIFIED, (void *) (uintptr_t) dst,
      CU_MEMORYTYPE_UNIFIED, (void *) (uintptr_t) src, ByteCount, NULL,
      SIM_SUBMIT_SYNC, EP_cuMemcpy);
}

SIM_EXPORT CUresult
cuMemcpyAsync (CUdeviceptr dst, CUdeviceptr src, size_t ByteCount,
    CUstream hStream)
{
  SIM_ENTER (cuMemcpyAsync);
  return sim_copy1d (CU_MEMORYTYPE_UNIFIED, (void *) (uintptr_t) dst,
      CU_MEMORYTYPE_UNIFIED, (void *) (uintptr_t) src, ByteCount, hStream,
      SIM_SUBMIT_ASYNC, EP_cuMemcpyAsync);
}

/* 1D (height 1) and 2D memsets: width elements of elem_size bytes per row,
 * rows pitch bytes apart, all inside one allocation */
static CUresult
sim_memset (CUdeviceptr dst, size_t pitch, uint32_t value, size_t elem_size,
    size_t width, size_t height, CUstream stream, SimSubmit mode,
    SimEntry entry)
{
  SimOp *op;
  CUresult r;
  int empty = width == 0 || height == 0;

  if (dst == 0 || dst % elem_size != 0)
    return CUDA_ERROR_INVALID_VALUE;
  if (height > 1 && pitch < width * elem_size)
    return CUDA_ERROR_INVALID_VALUE;
  pthread_mutex_lock (&g_sim.lock);
  if (!empty && !sim_alloc_contains_locked ((void *) (uintptr_t) dst,
          (height - 1) * pitch + width * elem_size, NULL, NULL)) {
    pthread_mutex_unlock (&g_sim.lock);
    return CUDA_ERROR_INVALID_VALUE;
  }
  op = sim_op_new (empty ? OP_NOP : OP_MEMSET, entry);
  op->global_delay = !empty;
  op->u.memset.dst = (uint8_t *) (uintptr_t) dst;
  op->u.memset.value = value;
  op->u.memset.elem_size = elem_size;
  op->u.memset.count = width;
  op->u.memset.pitch = pitch;
  op->u.memset.height = height;
  r = sim_submit_locked (op, stream, mode, sim_entry_name (entry));
  pthread_mutex_unlock (&g_sim.lock);
  return r;
}

SIM_EXPORT CUresult
cuMemsetD8_v2 (CUdeviceptr dstDevice, unsigned char uc, size_t N)
{
  SIM_ENTER (cuMemsetD8_v2);
  return sim_memset (dstDevice, N, uc, 1, N, 1, NULL, SIM_SUBMIT_SYNC,
      EP_cuMemsetD8_v2);
}

SIM_EXPORT CUresult
cuMemsetD32_v2 (CUdeviceptr dstDevice, unsigned int ui, size_t N)
{
  SIM_ENTER (cuMemsetD32_v2);
  return sim_memset (dstDevice, N * 4, ui, 4, N, 1, NULL, SIM_SUBMIT_SYNC,
      EP_cuMemsetD32_v2);
}

SIM_EXPORT CUresult
cuMemsetD8Async (CUdeviceptr dstDevice, unsigned char uc, size_t N,
    CUstream hStream)
{
  SIM_ENTER (cuMemsetD8Async);
  return sim_memset (dstDevice, N, uc, 1, N, 1, hStream, SIM_SUBMIT_ASYNC,
      EP_cuMemsetD8Async);
}

SIM_EXPORT CUresult
cuMemsetD32Async (CUdeviceptr dstDevice, unsigned int ui, size_t N,
    CUstream hStream)
{
  SIM_ENTER (cuMemsetD32Async);
  return sim_memset (dstDevice, N * 4, ui, 4, N, 1, hStream, SIM_SUBMIT_ASYNC,
      EP_cuMemsetD32Async);
}

/* 2D memsets: Width is in elements; the synchronous ones go through the
 * NULL stream and wait, like cuMemsetD8_v2 */
#define SIM_MEMSET2D(bits, ctype, elem) \
SIM_EXPORT CUresult \
cuMemsetD2D##bits##_v2 (CUdeviceptr dstDevice, size_t dstPitch, ctype v, \
    size_t Width, size_t Height) \
{ \
  SIM_ENTER (cuMemsetD2D##bits##_v2); \
  return sim_memset (dstDevice, dstPitch, v, elem, Width, Height, NULL, \
      SIM_SUBMIT_SYNC, EP_cuMemsetD2D##bits##_v2); \
} \
SIM_EXPORT CUresult \
cuMemsetD2D##bits (CUdeviceptr dstDevice, size_t dstPitch, ctype v, \
    size_t Width, size_t Height) \
{ \
  SIM_ENTER (cuMemsetD2D##bits##_v2); \
  return sim_memset (dstDevice, dstPitch, v, elem, Width, Height, NULL, \
      SIM_SUBMIT_SYNC, EP_cuMemsetD2D##bits##_v2); \
} \
SIM_EXPORT CUresult \
cuMemsetD2D##bits##Async (CUdeviceptr dstDevice, size_t dstPitch, ctype v, \
    size_t Width, size_t Height, CUstream hStream) \
{ \
  SIM_ENTER (cuMemsetD2D##bits##Async); \
  return sim_memset (dstDevice, dstPitch, v, elem, Width, Height, hStream, \
      SIM_SUBMIT_ASYNC, EP_cuMemsetD2D##bits##Async); \
}

SIM_MEMSET2D (8, unsigned char, 1)
SIM_MEMSET2D (16, unsigned short, 2)
SIM_MEMSET2D (32, unsigned int, 4)
#undef SIM_MEMSET2D
/* ------------------------------------------------------------------ */
/* streams                                                             */
/* ------------------------------------------------------------------ */
     static CUresult sim_stream_create (CUstream * phStream, unsigned int Flags)
{
  SimCtx *c;
  SimStream *s;

  if (!phStream || (Flags & ~(unsigned) CU_STREAM_NON_BLOCKING))
    return CUDA_ERROR_INVALID_VALUE;
  pthread_mutex_lock (&g_sim.lock);
  c = sim_current_ctx_locked ();
  if (!c) {
    pthread_mutex_unlock (&g_sim.lock);
    return CUDA_ERROR_INVALID_CONTEXT;
  }
  s = sim_stream_new_locked (c, Flags, 0);
  *phStream = sim_handle_from_id (s->id, KIND_STREAM);
  pthread_mutex_unlock (&g_sim.lock);
  return CUDA_SUCCESS;
}

SIM_EXPORT CUresult
cuStreamCreate (CUstream * phStream, unsigned int Flags)
{
  SIM_ENTER (cuStreamCreate);
  return sim_stream_create (phStream, Flags);
}

SIM_EXPORT CUresult
cuStreamCreateWithPriority (CUstream * phStream, unsigned int flags,
    int priority)
{
  SIM_ENTER (cuStreamCreateWithPriority);
  return sim_stream_create (phStream, flags);
}

static CUresult
sim_stream_destroy (CUstream hStream, const char *what)
{
  void *obj;
  CUresult r;

  if (hStream == NULL || hStream == CU_STREAM_LEGACY ||
      hStream == CU_STREAM_PER_THREAD)
    return CUDA_ERROR_INVALID_HANDLE;
  pthread_mutex_lock (&g_sim.lock);
  r = sim_resolve_locked (hStream, KIND_STREAM, what, &obj);
  if (r == CUDA_SUCCESS)
    sim_stream_destroy_locked (obj);
  pthread_mutex_unlock (&g_sim.lock);
  return r;
}

SIM_EXPORT CUresult
cuStreamDestroy_v2 (CUstream hStream)
{
  SIM_ENTER (cuStreamDestroy_v2);
  return sim_stream_destroy (hStream, "cuStreamDestroy_v2");
}

SIM_EXPORT CUresult
cuStreamDestroy (CUstream hStream)
{
  SIM_ENTER (cuStreamDestroy_v2);
  return sim_stream_destroy (hStream, "cuStreamDestroy");
}

SIM_EXPORT CUresult
cuStreamSynchronize (CUstream hStream)
{
  SimStream *s;
  CUresult r;
  uint64_t target;

  SIM_ENTER (cuStreamSynchronize);
  pthread_mutex_lock (&g_sim.lock);
  r = sim_resolve_stream_locked (hStream, "cuStreamSynchronize", &s);
  if (r == CUDA_SUCCESS) {
    sim_count_cpu_sync ();
    if (s->is_null) {
      /* the legacy stream also waits for the blocking streams' work: a
       * marker on it carries exactly those dependencies */
      target = sim_enqueue_locked (s, sim_op_new (OP_NOP, EP_INTERNAL));
    } else {
      target = s->enq_seq;
    }
    sim_wait_seq_locked (s, target, "cuStreamSynchronize");
  }
  pthread_mutex_unlock (&g_sim.lock);
  return r;
}

SIM_EXPORT CUresult
cuStreamQuery (CUstream hStream)
{
  SimStream *s;
  CUresult r;

  SIM_ENTER (cuStreamQuery);
  pthread_mutex_lock (&g_sim.lock);
  r = sim_resolve_stream_locked (hStream, "cuStreamQuery", &s);
  if (r == CUDA_SUCCESS && s->done_seq < s->enq_seq)
    r = CUDA_ERROR_NOT_READY;
  pthread_mutex_unlock (&g_sim.lock);
  return r;
}

SIM_EXPORT CUresult
cuStreamWaitEvent (CUstream hStream, CUevent hEvent, unsigned int Flags)
{
  SimStream *s;
  SimEvent *ev;
  void *obj;
  CUresult r;

  SIM_ENTER (cuStreamWaitEvent);
  pthread_mutex_lock (&g_sim.lock);
  r = sim_resolve_stream_locked (hStream, "cuStreamWaitEvent", &s);
  if (r == CUDA_SUCCESS)
    r = sim_resolve_locked (hEvent, KIND_EVENT, "cuStreamWaitEvent", &obj);
  if (r == CUDA_SUCCESS) {
    ev = obj;
    if (ev->rec_stream) {
      SimOp *op = sim_op_new (OP_NOP, EP_cuStreamWaitEvent);
      sim_op_add_dep_locked (op, ev->rec_stream, ev->rec_seq);
      sim_enqueue_locked (s, op);
    }
  }
  pthread_mutex_unlock (&g_sim.lock);
  return r;
}

SIM_EXPORT CUresult
cuStreamGetCtx (CUstream hStream, CUcontext * pctx)
{
  SimStream *s;
  CUresult r;

  SIM_ENTER (cuStreamGetCtx);
  if (!pctx)
    return CUDA_ERROR_INVALID_VALUE;
  pthread_mutex_lock (&g_sim.lock);
  r = sim_resolve_stream_locked (hStream, "cuStreamGetCtx", &s);
  if (r == CUDA_SUCCESS)
    *pctx = sim_handle_from_id (s->ctx->id, KIND_CONTEXT);
  pthread_mutex_unlock (&g_sim.lock);
  return r;
}

SIM_EXPORT CUresult
cuStreamGetFlags (CUstream hStream, unsigned int *flags)
{
  SimStream *s;
  CUresult r;

  SIM_ENTER (cuStreamGetFlags);
  if (!flags)
    return CUDA_ERROR_INVALID_VALUE;
  pthread_mutex_lock (&g_sim.lock);
  r = sim_resolve_stream_locked (hStream, "cuStreamGetFlags", &s);
  if (r == CUDA_SUCCESS)
    *flags = s->flags;
  pthread_mutex_unlock (&g_sim.lock);
  return r;
}

SIM_EXPORT CUresult
cuLaunchHostFunc (CUstream hStream, CUhostFn fn, void *userData)
{
  SimOp *op;
  CUresult r;

  SIM_ENTER (cuLaunchHostFunc);
  if (!fn)
    return CUDA_ERROR_INVALID_VALUE;
  op = sim_op_new (OP_HOST_FUNC, EP_cuLaunchHostFunc);
  op->global_delay = 1;
  op->u.host.fn = fn;
  op->u.host.data = userData;
  pthread_mutex_lock (&g_sim.lock);
  r = sim_submit_locked (op, hStream, SIM_SUBMIT_ASYNC, "cuLaunchHostFunc");
  pthread_mutex_unlock (&g_sim.lock);
  return r;
}

/* ------------------------------------------------------------------ */
/* events                                                              */
/* ------------------------------------------------------------------ */

SIM_EXPORT CUresult
cuEventCreate (CUevent * phEvent, unsigned int Flags)
{
  SimCtx *c;
  SimEvent *ev;

  SIM_ENTER (cuEventCreate);
  if (!phEvent)
    return CUDA_ERROR_INVALID_VALUE;
  if (Flags & ~(unsigned) (CU_EVENT_BLOCKING_SYNC | CU_EVENT_DISABLE_TIMING |
          CU_EVENT_INTERPROCESS))
    return CUDA_ERROR_INVALID_VALUE;
  if ((Flags & CU_EVENT_INTERPROCESS) && !(Flags & CU_EVENT_DISABLE_TIMING))
    return CUDA_ERROR_INVALID_VALUE;
  pthread_mutex_lock (&g_sim.lock);
  c = sim_current_ctx_locked ();
  if (!c) {
    pthread_mutex_unlock (&g_sim.lock);
    return CUDA_ERROR_INVALID_CONTEXT;
  }
  ev = calloc (1, sizeof (SimEvent));
  if (!ev) {
    pthread_mutex_unlock (&g_sim.lock);
    return CUDA_ERROR_OUT_OF_MEMORY;
  }
  ev->refcount = 1;
  ev->ctx = c;
  c->refcount++;
  ev->flags = Flags;
  ev->id = sim_register_locked (ev, KIND_EVENT);
  g_sim.live[LIVE_EVENT]++;
  *phEvent = sim_handle_from_id (ev->id, KIND_EVENT);
  pthread_mutex_unlock (&g_sim.lock);
  return CUDA_SUCCESS;
}

static CUresult
sim_event_record (CUevent hEvent, CUstream hStream, const char *what,
    SimEntry entry)
{
  SimStream *s;
  SimEvent *ev;
  SimOp *op;
  void *obj;
  CUresult r;

  pthread_mutex_lock (&g_sim.lock);
  r = sim_resolve_locked (hEvent, KIND_EVENT, what, &obj);
  if (r == CUDA_SUCCESS)
    r = sim_resolve_stream_locked (hStream, what, &s);
  if (r != CUDA_SUCCESS) {
    pthread_mutex_unlock (&g_sim.lock);
    return r;
  }
  ev = obj;
  if (s->ctx != ev->ctx) {
    pthread_mutex_unlock (&g_sim.lock);
    return CUDA_ERROR_INVALID_HANDLE;
  }
  op = sim_op_new (OP_EVENT_RECORD, entry);
  ev->gen++;
  ev->time_valid = 0;
  ev->refcount++;
  op->u.record.event = ev;
  op->u.record.gen = ev->gen;
  if (ev->rec_stream)
    sim_stream_unref_locked (ev->rec_stream);
  sim_stream_ref_locked (s);
  ev->rec_stream = s;
  ev->rec_seq = sim_enqueue_locked (s, op);
  pthread_mutex_unlock (&g_sim.lock);
  return CUDA_SUCCESS;
}

SIM_EXPORT CUresult
cuEventRecord (CUevent hEvent, CUstream hStream)
{
  SIM_ENTER (cuEventRecord);
  return sim_event_record (hEvent, hStream, "cuEventRecord", EP_cuEventRecord);
}

SIM_EXPORT CUresult
cuEventRecordWithFlags (CUevent hEvent, CUstream hStream, unsigned int flags)
{
  SIM_ENTER (cuEventRecordWithFlags);
  return sim_event_record (hEvent, hStream, "cuEventRecordWithFlags",
      EP_cuEventRecordWithFlags);
}

SIM_EXPORT CUresult
cuEventQuery (CUevent hEvent)
{
  SimEvent *ev;
  void *obj;
  CUresult r;

  SIM_ENTER (cuEventQuery);
  pthread_mutex_lock (&g_sim.lock);
  r = sim_resolve_locked (hEvent, KIND_EVENT, "cuEventQuery", &obj);
  if (r == CUDA_SUCCESS) {
    ev = obj;
    if (ev->rec_stream && ev->rec_stream->done_seq < ev->rec_seq)
      r = CUDA_ERROR_NOT_READY;
  }
  pthread_mutex_unlock (&g_sim.lock);
  return r;
}

SIM_EXPORT CUresult
cuEventSynchronize (CUevent hEvent)
{
  SimEvent *ev;
  void *obj;
  CUresult r;

  SIM_ENTER (cuEventSynchronize);
  pthread_mutex_lock (&g_sim.lock);
  r = sim_resolve_locked (hEvent, KIND_EVENT, "cuEventSynchronize", &obj);
  if (r == CUDA_SUCCESS) {
    ev = obj;
    sim_count_cpu_sync ();
    if (ev->rec_stream && ev->rec_stream->done_seq < ev->rec_seq &&
        !(ev->flags & CU_EVENT_BLOCKING_SYNC))
      sim_count_spin_wait ();
    if (ev->rec_stream)
      sim_wait_seq_locked (ev->rec_stream, ev->rec_seq, "cuEventSynchronize");
  }
  pthread_mutex_unlock (&g_sim.lock);
  return r;
}

static CUresult
sim_event_destroy (CUevent hEvent, const char *what)
{
  SimEvent *ev;
  void *obj;
  CUresult r;

  pthread_mutex_lock (&g_sim.lock);
  r = sim_resolve_locked (hEvent, KIND_EVENT, what, &obj);
  if (r == CUDA_SUCCESS) {
    ev = obj;
    ev->destroyed = 1;
    sim_unregister_locked (ev->id);
    g_sim.live[LIVE_EVENT]--;
    sim_event_unref_locked (ev);
  }
  pthread_mutex_unlock (&g_sim.lock);
  return r;
}

SIM_EXPORT CUresult
cuEventDestroy_v2 (CUevent hEvent)
{
  SIM_ENTER (cuEventDestroy_v2);
  return sim_event_destroy (hEvent, "cuEventDestroy_v2");
}

SIM_EXPORT CUresult
cuEventDestroy (CUevent hEvent)
{
  SIM_ENTER (cuEventDestroy_v2);
  return sim_event_destroy (hEvent, "cuEventDestroy");
}

static CUresult
sim_event_elapsed (float *ms, CUevent hStart, CUevent hEnd, const char *what)
{
  SimEvent *a, *b;
  void *obj;
  CUresult r;

  if (!ms)
    return CUDA_ERROR_INVALID_VALUE;
  pthread_mutex_lock (&g_sim.lock);
  r = sim_resolve_locked (hStart, KIND_EVENT, what, &obj);
  if (r != CUDA_SUCCESS)
    goto out;
  a = obj;
  r = sim_resolve_locked (hEnd, KIND_EVENT, what, &obj);
  if (r != CUDA_SUCCESS)
    goto out;
  b = obj;
  if ((a->flags | b->flags) & CU_EVENT_DISABLE_TIMING) {
    r = CUDA_ERROR_INVALID_HANDLE;
    goto out;
  }
  if (!a->rec_stream || !b->rec_stream) {
    r = CUDA_ERROR_INVALID_HANDLE;
    goto out;
  }
  if (a->rec_stream->done_seq < a->rec_seq ||
      b->rec_stream->done_seq < b->rec_seq || !a->time_valid ||
      !b->time_valid) {
    r = CUDA_ERROR_NOT_READY;
    goto out;
  }
  *ms = (float) ((double) (b->time_ns - a->time_ns) / 1e6);
out:
  pthread_mutex_unlock (&g_sim.lock);
  return r;
}

SIM_EXPORT CUresult
cuEventElapsedTime_v2 (float *pMilliseconds, CUevent hStart, CUevent hEnd)
{
  SIM_ENTER (cuEventElapsedTime_v2);
  return sim_event_elapsed (pMilliseconds, hStart, hEnd,
      "cuEventElapsedTime_v2");
}

SIM_EXPORT CUresult
cuEventElapsedTime (float *pMilliseconds, CUevent hStart, CUevent hEnd)
{
  SIM_ENTER (cuEventElapsedTime_v2);
  return sim_event_elapsed (pMilliseconds, hStart, hEnd, "cuEventElapsedTime");
}

/* ------------------------------------------------------------------ */
/* not simulated: graphics interop, modules, textures, kernels         */
/* ------------------------------------------------------------------ */

SIM_EXPORT CUresult
cuGraphicsMapResources (unsigned int count, CUgraphicsResource * resources,
    CUstream hStream)
{
  SIM_ENTER (cuGraphicsMapResources);
  return CUDA_ERROR_NOT_SUPPORTED;
}

SIM_EXPORT CUresult
cuGraphicsUnmapResources (unsigned int count, CUgraphicsResource * resources,
    CUstream hStream)
{
  SIM_ENTER (cuGraphicsUnmapResources);
  return CUDA_ERROR_NOT_SUPPORTED;
}

SIM_EXPORT CUresult
cuGraphicsResourceSetMapFlags_v2 (CUgraphicsResource resource,
    unsigned int flags)
{
  SIM_ENTER (cuGraphicsResourceSetMapFlags_v2);
  return CUDA_ERROR_NOT_SUPPORTED;
}

SIM_EXPORT CUresult
cuGraphicsSubResourceGetMappedArray (CUarray * pArray,
    CUgraphicsResource resource, unsigned int arrayIndex, unsigned int mipLevel)
{
  SIM_ENTER (cuGraphicsSubResourceGetMappedArray);
  return CUDA_ERROR_NOT_SUPPORTED;
}

SIM_EXPORT CUresult
cuGraphicsResourceGetMappedPointer_v2 (CUdeviceptr * pDevPtr, size_t *pSize,
    CUgraphicsResource resource)
{
  SIM_ENTER (cuGraphicsResourceGetMappedPointer_v2);
  return CUDA_ERROR_NOT_SUPPORTED;
}

SIM_EXPORT CUresult
cuGraphicsUnregisterResource (CUgraphicsResource resource)
{
  SIM_ENTER (cuGraphicsUnregisterResource);
  return CUDA_ERROR_NOT_SUPPORTED;
}

SIM_EXPORT CUresult
cuGraphicsGLRegisterImage (CUgraphicsResource * pCudaResource,
    unsigned int image, unsigned int target, unsigned int Flags)
{
  SIM_ENTER (cuGraphicsGLRegisterImage);
  return CUDA_ERROR_NOT_SUPPORTED;
}

SIM_EXPORT CUresult
cuGraphicsGLRegisterBuffer (CUgraphicsResource * pCudaResource,
    unsigned int buffer, unsigned int Flags)
{
  SIM_ENTER (cuGraphicsGLRegisterBuffer);
  return CUDA_ERROR_NOT_SUPPORTED;
}

SIM_EXPORT CUresult
cuGLGetDevices_v2 (unsigned int *pCudaDeviceCount, CUdevice * pCudaDevices,
    unsigned int cudaDeviceCount, int deviceList)
{
  SIM_ENTER (cuGLGetDevices_v2);
  return CUDA_ERROR_NOT_SUPPORTED;
}

SIM_EXPORT CUresult
cuGraphicsEGLRegisterImage (CUgraphicsResource * pCudaResource, void *image,
    unsigned int flags)
{
  SIM_ENTER (cuGraphicsEGLRegisterImage);
  return CUDA_ERROR_NOT_SUPPORTED;
}

SIM_EXPORT CUresult
cuGraphicsResourceGetMappedEglFrame (void *eglFrame,
    CUgraphicsResource resource, unsigned int index, unsigned int mipLevel)
{
  SIM_ENTER (cuGraphicsResourceGetMappedEglFrame);
  return CUDA_ERROR_NOT_SUPPORTED;
}

SIM_EXPORT CUresult
cuModuleLoadData (CUmodule * module, const void *image)
{
  SIM_ENTER (cuModuleLoadData);
  return CUDA_ERROR_NOT_SUPPORTED;
}

SIM_EXPORT CUresult
cuModuleUnload (CUmodule hmod)
{
  SIM_ENTER (cuModuleUnload);
  return CUDA_ERROR_NOT_SUPPORTED;
}

SIM_EXPORT CUresult
cuModuleGetFunction (CUfunction * hfunc, CUmodule hmod, const char *name)
{
  SIM_ENTER (cuModuleGetFunction);
  return CUDA_ERROR_NOT_SUPPORTED;
}

SIM_EXPORT CUresult
cuTexObjectCreate (CUtexObject * pTexObject,
    const CUDA_RESOURCE_DESC * pResDesc, const CUDA_TEXTURE_DESC * pTexDesc,
    const CUDA_RESOURCE_VIEW_DESC * pResViewDesc)
{
  SIM_ENTER (cuTexObjectCreate);
  return CUDA_ERROR_NOT_SUPPORTED;
}

SIM_EXPORT CUresult
cuTexObjectDestroy (CUtexObject texObject)
{
  SIM_ENTER (cuTexObjectDestroy);
  return CUDA_ERROR_NOT_SUPPORTED;
}

SIM_EXPORT CUresult
cuLaunchKernel (CUfunction f, unsigned int gridDimX, unsigned int gridDimY,
    unsigned int gridDimZ, unsigned int blockDimX, unsigned int blockDimY,
    unsigned int blockDimZ, unsigned int sharedMemBytes, CUstream hStream,
    void **kernelParams, void **extra)
{
  SIM_ENTER (cuLaunchKernel);
  return CUDA_ERROR_NOT_SUPPORTED;
}

/* cudasim: initialisation, devices and error strings.
 *
 * cuInit, the device queries (attributes, UUIDs, NvSciSync attributes) and
 * cuGetErrorName/cuGetErrorString (the table is in sim-errnames.c).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "cudasim-internal.h"

#include <ctype.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------ */
/* error names                                                         */
/* ------------------------------------------------------------------ */

SIM_EXPORT CUresult
cuGetErrorName (CUresult error, const char **pStr)
{
  SIM_ENTER (cuGetErrorName);
  if (!pStr)
    return CUDA_ERROR_INVALID_VALUE;
  if (sim_result_lookup (error, pStr, NULL))
    return CUDA_SUCCESS;
  *pStr = NULL;
  return CUDA_ERROR_INVALID_VALUE;
}

SIM_EXPORT CUresult
cuGetErrorString (CUresult error, const char **pStr)
{
  SIM_ENTER (cuGetErrorString);
  if (!pStr)
    return CUDA_ERROR_INVALID_VALUE;
  if (sim_result_lookup (error, NULL, pStr))
    return CUDA_SUCCESS;
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
      return 1;                 /* sim-vmm.c: memfd-backed, POSIX fd export */
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
      return 0;                 /* legacy IPC: same process only, see sim-ipc.c */
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

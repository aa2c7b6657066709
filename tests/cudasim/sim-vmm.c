/* cudasim: virtual memory management: physical allocations.
 *
 * A physical allocation (cuMemCreate) is a memfd named "cudasim-vmm-dev<N>"
 * (N: its device) filled with 0xcd, so a POSIX fd export is a dup() of it
 * and works across processes, and an import recognises the simulator's
 * memfds by name.  It lives while handles (create, import, retain) or
 * mappings refer to it.  Reservations and mappings are in sim-vmm-map.c.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "cudasim-internal.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define SIM_MEMFD_PREFIX "cudasim-vmm-dev"

/* ------------------------------------------------------------------ */
/* physical allocations                                                */
/* ------------------------------------------------------------------ */

CUmemGenericAllocationHandle
sim_phys_handle (const SimPhys * p)
{
  return (CUmemGenericAllocationHandle) (uintptr_t)
      sim_handle_from_id (p->id, KIND_MEMHANDLE);
}

/* frees the physical memory once no handle and no mapping refer to it */
void
sim_phys_maybe_free_locked (SimPhys * p)
{
  if (p->refs > 0 || p->mappings > 0)
    return;
  close (p->fd);
  sim_unregister_locked (p->id);
  g_sim.live[LIVE_MEMHANDLE]--;
  free (p);
}

/* a handle is usable while it holds references; after its last
 * cuMemRelease it is destroyed (mappings may keep the memory) */
CUresult
sim_phys_resolve_locked (CUmemGenericAllocationHandle h, const char *what,
    SimPhys ** out)
{
  void *obj;
  CUresult r = sim_resolve_locked ((void *) (uintptr_t) h, KIND_MEMHANDLE,
      what, &obj);

  if (r != CUDA_SUCCESS)
    return r;
  if (((SimPhys *) obj)->refs <= 0) {
    sim_violation ("%s: use of allocation handle 0x%llx after its last "
        "cuMemRelease", what, (unsigned long long) h);
    return CUDA_ERROR_INVALID_HANDLE;
  }
  *out = obj;
  return CUDA_SUCCESS;
}

static SimPhys *
sim_phys_new_locked (int fd, size_t size, const CUmemAllocationProp * prop)
{
  SimPhys *p = calloc (1, sizeof (SimPhys));

  if (!p)
    sim_oom ();
  p->refs = 1;
  p->fd = fd;
  p->size = size;
  p->prop = *prop;
  p->id = sim_register_locked (p, KIND_MEMHANDLE);
  g_sim.live[LIVE_MEMHANDLE]++;
  return p;
}

/* a CUmemAllocationProp the simulator can honour: pinned device memory */
static CUresult
sim_check_prop (const CUmemAllocationProp * prop)
{
  if (!prop || prop->type != CU_MEM_ALLOCATION_TYPE_PINNED ||
      prop->location.type != CU_MEM_LOCATION_TYPE_DEVICE)
    return CUDA_ERROR_INVALID_VALUE;
  if (!sim_device_ok (prop->location.id))
    return CUDA_ERROR_INVALID_DEVICE;
  if (prop->requestedHandleTypes & ~CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR)
    return CUDA_ERROR_NOT_SUPPORTED;    /* win32, KMT, fabric */
  return CUDA_SUCCESS;
}

SIM_EXPORT CUresult
cuMemGetAllocationGranularity (size_t *granularity,
    const CUmemAllocationProp * prop, CUmemAllocationGranularity_flags option)
{
  CUresult r;

  SIM_ENTER (cuMemGetAllocationGranularity);
  if (!granularity || (option != CU_MEM_ALLOC_GRANULARITY_MINIMUM &&
          option != CU_MEM_ALLOC_GRANULARITY_RECOMMENDED))
    return CUDA_ERROR_INVALID_VALUE;
  r = sim_check_prop (prop);
  if (r == CUDA_SUCCESS)
    *granularity = SIM_VMM_GRANULARITY;
  return r;
}

static int
sim_memfd_new (size_t size, int device)
{
  char name[64];
  void *p;
  int fd;

  snprintf (name, sizeof (name), SIM_MEMFD_PREFIX "%d", device);
  fd = memfd_create (name, MFD_CLOEXEC);
  if (fd < 0)
    return -1;
  if (ftruncate (fd, (off_t) size) != 0) {
    close (fd);
    return -1;
  }
  /* fresh device memory is not zeroed */
  p = mmap (NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (p == MAP_FAILED) {
    close (fd);
    return -1;
  }
  memset (p, SIM_UNINIT_BYTE, size);
  munmap (p, size);
  return fd;
}

SIM_EXPORT CUresult
cuMemCreate (CUmemGenericAllocationHandle * handle, size_t size,
    const CUmemAllocationProp * prop, unsigned long long flags)
{
  SimPhys *p;
  CUresult r;
  int fd;

  SIM_ENTER (cuMemCreate);
  if (!handle || flags != 0 || size == 0 || size % SIM_VMM_GRANULARITY)
    return CUDA_ERROR_INVALID_VALUE;
  r = sim_check_prop (prop);
  if (r != CUDA_SUCCESS)
    return r;
  fd = sim_memfd_new (size, prop->location.id);
  if (fd < 0)
    return CUDA_ERROR_OUT_OF_MEMORY;
  pthread_mutex_lock (&g_sim.lock);
  p = sim_phys_new_locked (fd, size, prop);
  *handle = sim_phys_handle (p);
  pthread_mutex_unlock (&g_sim.lock);
  return CUDA_SUCCESS;
}

SIM_EXPORT CUresult
cuMemRelease (CUmemGenericAllocationHandle handle)
{
  SimPhys *p;
  CUresult r;

  SIM_ENTER (cuMemRelease);
  pthread_mutex_lock (&g_sim.lock);
  r = sim_phys_resolve_locked (handle, "cuMemRelease", &p);
  if (r == CUDA_SUCCESS) {
    p->refs--;
    sim_phys_maybe_free_locked (p);
  }
  pthread_mutex_unlock (&g_sim.lock);
  return r;
}

SIM_EXPORT CUresult
cuMemGetAllocationPropertiesFromHandle (CUmemAllocationProp * prop,
    CUmemGenericAllocationHandle handle)
{
  SimPhys *p;
  CUresult r;

  SIM_ENTER (cuMemGetAllocationPropertiesFromHandle);
  if (!prop)
    return CUDA_ERROR_INVALID_VALUE;
  pthread_mutex_lock (&g_sim.lock);
  r = sim_phys_resolve_locked (handle,
      "cuMemGetAllocationPropertiesFromHandle", &p);
  if (r == CUDA_SUCCESS)
    *prop = p->prop;
  pthread_mutex_unlock (&g_sim.lock);
  return r;
}

SIM_EXPORT CUresult
cuMemExportToShareableHandle (void *shareableHandle,
    CUmemGenericAllocationHandle handle, CUmemAllocationHandleType handleType,
    unsigned long long flags)
{
  SimPhys *p;
  CUresult r;
  int fd;

  SIM_ENTER (cuMemExportToShareableHandle);
  if (!shareableHandle || flags != 0)
    return CUDA_ERROR_INVALID_VALUE;
  if (handleType != CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR)
    return CUDA_ERROR_NOT_SUPPORTED;
  pthread_mutex_lock (&g_sim.lock);
  r = sim_phys_resolve_locked (handle, "cuMemExportToShareableHandle", &p);
  if (r == CUDA_SUCCESS &&
      !(p->
          prop.requestedHandleTypes & CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR))
    r = CUDA_ERROR_INVALID_VALUE;       /* not requested at cuMemCreate */
  if (r == CUDA_SUCCESS) {
    fd = fcntl (p->fd, F_DUPFD_CLOEXEC, 0);
    if (fd < 0)
      r = CUDA_ERROR_OPERATING_SYSTEM;
    else
      *(int *) shareableHandle = fd;
  }
  pthread_mutex_unlock (&g_sim.lock);
  return r;
}

/* device of a memfd exported by a simulator (this process or another), or
 * -1 when fd is something else */
static int
sim_memfd_device (int fd)
{
  char path[64], target[256];
  const char *prefix = "/memfd:" SIM_MEMFD_PREFIX;
  ssize_t n;
  char *end;
  long dev;

  snprintf (path, sizeof (path), "/proc/self/fd/%d", fd);
  n = readlink (path, target, sizeof (target) - 1);
  if (n <= 0)
    return -1;
  target[n] = '\0';
  if (strncmp (target, prefix, strlen (prefix)) != 0)
    return -1;
  dev = strtol (target + strlen (prefix), &end, 10);
  if (end == target + strlen (prefix) || (*end && *end != ' '))
    return -1;
  return (int) dev;
}

/* The caller keeps its fd (the simulator works on a duplicate). */
SIM_EXPORT CUresult
cuMemImportFromShareableHandle (CUmemGenericAllocationHandle * handle,
    void *osHandle, CUmemAllocationHandleType shHandleType)
{
  CUmemAllocationProp prop;
  struct stat st;
  SimPhys *p;
  int fd = (int) (intptr_t) osHandle, dev, dup_fd;

  SIM_ENTER (cuMemImportFromShareableHandle);
  if (!handle)
    return CUDA_ERROR_INVALID_VALUE;
  if (shHandleType != CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR)
    return CUDA_ERROR_NOT_SUPPORTED;
  if (fd < 0)
    return CUDA_ERROR_INVALID_VALUE;
  dev = sim_memfd_device (fd);
  if (dev < 0 || fstat (fd, &st) != 0 || st.st_size <= 0 ||
      (size_t) st.st_size % SIM_VMM_GRANULARITY)
    return CUDA_ERROR_INVALID_HANDLE;
  if (!sim_device_ok (dev))
    return CUDA_ERROR_INVALID_DEVICE;
  dup_fd = fcntl (fd, F_DUPFD_CLOEXEC, 0);
  if (dup_fd < 0)
    return CUDA_ERROR_OPERATING_SYSTEM;
  memset (&prop, 0, sizeof (prop));
  prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
  prop.requestedHandleTypes = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
  prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
  prop.location.id = dev;
  pthread_mutex_lock (&g_sim.lock);
  p = sim_phys_new_locked (dup_fd, (size_t) st.st_size, &prop);
  *handle = sim_phys_handle (p);
  pthread_mutex_unlock (&g_sim.lock);
  return CUDA_SUCCESS;
}

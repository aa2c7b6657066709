/* cudasim: external memory.
 *
 * cuImportExternalMemory takes an mmap-able fd (OPAQUE_FD: a plain memfd,
 * or Mesa llvmpipe's exported memory, see below); each mapped buffer is its
 * own mmap() of it and an "alloc" in the allocation table until cuMemFree
 * (sim-mem.c), before or after cuDestroyExternalMemory.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "cudasim-internal.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

void
sim_munmap_release (void *ptr, size_t size)
{
  munmap (ptr, size);
}

void
sim_extmem_unref_locked (SimExtMem * em)
{
  if (--em->refcount > 0)
    return;
  close (em->fd);
  free (em);
}

/* Mesa's llvmpipe/lavapipe exports VkDeviceMemory (OPAQUE_FD) as a memfd
 * named "llvmpipe memory fd" that does NOT start with the allocation:
 * os_malloc_aligned_fd() (src/util/os_memory_fd.c, Mesa 22.3) writes
 *
 *   struct { uint64_t size;        file size
 *            uint64_t offset;      of the data: the page size, 0x1000
 *            uint8_t driver_id[16]; }
 *
 * at offset 0 and places the data at `offset` (file size = allocationSize +
 * offset + 40). Measured with lavapipe 22.3.6 for allocation sizes 1 B to
 * 3 MiB: always 0x1000. A real driver's opaque fd maps the allocation from
 * its first byte, and so do plain memfds (cudasim_mem_create()); only a
 * memfd with llvmpipe's name is looked at, and its header must be
 * consistent, else the fd is refused (CUDA_ERROR_INVALID_HANDLE) rather
 * than silently mapping the wrong bytes. */
#define LLVMPIPE_MEMFD_NAME "/memfd:llvmpipe memory fd"
#define LLVMPIPE_HEADER_MIN 32

static CUresult
sim_extmem_data_offset (int fd, const struct stat *st, size_t size,
    size_t *offset)
{
  char path[64], link[256];
  uint64_t hdr[2];
  ssize_t n;

  *offset = 0;
  snprintf (path, sizeof (path), "/proc/self/fd/%d", fd);
  n = readlink (path, link, sizeof (link) - 1);
  if (n <= 0)
    return CUDA_SUCCESS;
  link[n] = '\0';
  if (strncmp (link, LLVMPIPE_MEMFD_NAME, strlen (LLVMPIPE_MEMFD_NAME)) != 0)
    return CUDA_SUCCESS;

  if (pread (fd, hdr, sizeof (hdr), 0) != (ssize_t) sizeof (hdr))
    return CUDA_ERROR_INVALID_HANDLE;
  if (hdr[0] != (uint64_t) st->st_size || hdr[1] < LLVMPIPE_HEADER_MIN ||
      hdr[1] >= hdr[0]) {
    if (getenv ("CUDASIM_VERBOSE"))
      fprintf (stderr, "cudasim: cuImportExternalMemory: llvmpipe memfd with "
          "an unexpected header (size %llu, offset %llu, file size %llu)\n",
          (unsigned long long) hdr[0], (unsigned long long) hdr[1],
          (unsigned long long) st->st_size);
    return CUDA_ERROR_INVALID_HANDLE;
  }
  if (hdr[0] - hdr[1] < size)
    return CUDA_ERROR_INVALID_VALUE;
  *offset = (size_t) hdr[1];
  return CUDA_SUCCESS;
}

SIM_EXPORT CUresult
cuImportExternalMemory (CUexternalMemory * extMem_out,
    const CUDA_EXTERNAL_MEMORY_HANDLE_DESC * memHandleDesc)
{
  SimExtMem *em;
  struct stat st;
  void *probe;
  size_t data_offset, page = (size_t) sysconf (_SC_PAGESIZE), probe_start;
  size_t probe_len;
  CUresult r;
  int fd;

  SIM_ENTER (cuImportExternalMemory);
  if (!extMem_out || !memHandleDesc)
    return CUDA_ERROR_INVALID_VALUE;
  if (memHandleDesc->type != CU_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD)
    return CUDA_ERROR_NOT_SUPPORTED;
  if (memHandleDesc->size == 0)
    return CUDA_ERROR_INVALID_VALUE;
  fd = memHandleDesc->handle.fd;
  if (fd < 0)
    return CUDA_ERROR_INVALID_VALUE;
  if (fstat (fd, &st) != 0)
    return CUDA_ERROR_INVALID_HANDLE;
  r = sim_extmem_data_offset (fd, &st, (size_t) memHandleDesc->size,
      &data_offset);
  if (r != CUDA_SUCCESS)
    return r;
  if (S_ISREG (st.st_mode) && ((unsigned long long) st.st_size < data_offset
          || (unsigned long long) st.st_size - data_offset <
          memHandleDesc->size))
    return CUDA_ERROR_INVALID_VALUE;

  pthread_mutex_lock (&g_sim.lock);
  if (!sim_current_ctx_locked ()) {
    pthread_mutex_unlock (&g_sim.lock);
    return CUDA_ERROR_INVALID_CONTEXT;
  }
  pthread_mutex_unlock (&g_sim.lock);

  /* make sure the fd can be mapped at all */
  probe_start = data_offset / page * page;
  probe_len = data_offset - probe_start + (size_t) memHandleDesc->size;
  probe = mmap (NULL, probe_len, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
      (off_t) probe_start);
  if (probe == MAP_FAILED)
    return CUDA_ERROR_INVALID_HANDLE;
  munmap (probe, probe_len);

  em = calloc (1, sizeof (SimExtMem));
  if (!em)
    return CUDA_ERROR_OUT_OF_MEMORY;
  em->refcount = 1;
  /* the driver owns the fd from now on: keep a private duplicate for the
   * buffer mappings and close the caller's number, as the real driver
   * consumes it (closing it again in the application is a bug) */
  em->fd = fcntl (fd, F_DUPFD_CLOEXEC, 0);
  if (em->fd < 0) {
    free (em);
    return CUDA_ERROR_OPERATING_SYSTEM;
  }
  close (fd);
  em->size = (size_t) memHandleDesc->size;
  em->data_offset = data_offset;
  pthread_mutex_lock (&g_sim.lock);
  em->id = sim_register_locked (em, KIND_EXTMEM);
  g_sim.live[LIVE_EXTMEM]++;
  *extMem_out = sim_handle_from_id (em->id, KIND_EXTMEM);
  pthread_mutex_unlock (&g_sim.lock);
  return CUDA_SUCCESS;
}

SIM_EXPORT CUresult
cuExternalMemoryGetMappedBuffer (CUdeviceptr * devPtr, CUexternalMemory extMem,
    const CUDA_EXTERNAL_MEMORY_BUFFER_DESC * bufferDesc)
{
  SimMappedBuffer *mb;
  SimExtMem *em;
  void *obj, *map;
  size_t page = (size_t) sysconf (_SC_PAGESIZE);
  size_t start, len;
  CUresult r;

  SIM_ENTER (cuExternalMemoryGetMappedBuffer);
  if (!devPtr || !bufferDesc || bufferDesc->size == 0 || bufferDesc->flags)
    return CUDA_ERROR_INVALID_VALUE;

  pthread_mutex_lock (&g_sim.lock);
  r = sim_resolve_locked (extMem, KIND_EXTMEM,
      "cuExternalMemoryGetMappedBuffer", &obj);
  if (r != CUDA_SUCCESS) {
    pthread_mutex_unlock (&g_sim.lock);
    return r;
  }
  em = obj;
  if (bufferDesc->offset > em->size ||
      bufferDesc->size > em->size - bufferDesc->offset) {
    pthread_mutex_unlock (&g_sim.lock);
    return CUDA_ERROR_INVALID_VALUE;
  }
  /* offsets are relative to the allocation, which starts at
   * em->data_offset in the fd */
  start = (em->data_offset + (size_t) bufferDesc->offset) / page * page;
  len = em->data_offset + (size_t) bufferDesc->offset - start +
      (size_t) bufferDesc->size;
  map = mmap (NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, em->fd,
      (off_t) start);
  if (map == MAP_FAILED) {
    pthread_mutex_unlock (&g_sim.lock);
    return CUDA_ERROR_OPERATING_SYSTEM;
  }
  mb = calloc (1, sizeof (SimMappedBuffer));
  if (!mb) {
    munmap (map, len);
    pthread_mutex_unlock (&g_sim.lock);
    return CUDA_ERROR_OUT_OF_MEMORY;
  }
  mb->map_base = map;
  mb->map_len = len;
  mb->em = em;
  em->refcount++;
  *devPtr = (CUdeviceptr) (uintptr_t) ((uint8_t *) map +
      (em->data_offset + (size_t) bufferDesc->offset - start));
  sim_alloc_add_locked ((void *) (uintptr_t) * devPtr,
      (size_t) bufferDesc->size, ALLOC_MAPPED, mb);
  pthread_mutex_unlock (&g_sim.lock);
  return CUDA_SUCCESS;
}

SIM_EXPORT CUresult
cuExternalMemoryGetMappedMipmappedArray (CUmipmappedArray * mipmap,
    CUexternalMemory extMem,
    const CUDA_EXTERNAL_MEMORY_MIPMAPPED_ARRAY_DESC * mipmapDesc)
{
  SIM_ENTER (cuExternalMemoryGetMappedMipmappedArray);
  return CUDA_ERROR_NOT_SUPPORTED;
}

SIM_EXPORT CUresult
cuDestroyExternalMemory (CUexternalMemory extMem)
{
  SimExtMem *em;
  void *obj;
  CUresult r;

  SIM_ENTER (cuDestroyExternalMemory);
  pthread_mutex_lock (&g_sim.lock);
  r = sim_resolve_locked (extMem, KIND_EXTMEM, "cuDestroyExternalMemory", &obj);
  if (r == CUDA_SUCCESS) {
    em = obj;
    em->destroyed = 1;
    sim_unregister_locked (em->id);
    g_sim.live[LIVE_EXTMEM]--;
    sim_extmem_unref_locked (em);
  }
  pthread_mutex_unlock (&g_sim.lock);
  return r;
}

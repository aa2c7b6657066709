/* cudasim self-test: external memory (plain and lavapipe memfds), virtual
 * memory management, stream-ordered allocation and memory pools, legacy
 * IPC handles.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "test-cudasim.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

void
test_extmem (void)
{
  CUDA_EXTERNAL_MEMORY_HANDLE_DESC desc;
  CUDA_EXTERNAL_MEMORY_BUFFER_DESC buf;
  CUexternalMemory em;
  CUdeviceptr p1, p2;
  size_t size = 1 << 20;
  unsigned char pattern[256], back[256];
  unsigned char *view;
  int fd, fd2, i;

  SECTION ("external memory");
  fd = sim.mem_create (size);
  fd2 = dup (fd);
  memset (&desc, 0, sizeof (desc));
  desc.type = CU_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD;
  desc.handle.fd = fd;
  desc.size = size;
  CU_OK (cu.cuImportExternalMemory (&em, &desc));
  CHECK (!fd_is_open (fd), "import took ownership of the fd");
  memset (&buf, 0, sizeof (buf));
  buf.offset = 4096 + 100;
  buf.size = 64 * 1024;
  CU_OK (cu.cuExternalMemoryGetMappedBuffer (&p1, em, &buf));
  CU_OK (cu.cuExternalMemoryGetMappedBuffer (&p2, em, &buf));
  CHECK (p1 != p2, "each mapping has its own address");
  for (i = 0; i < 256; i++)
    pattern[i] = (unsigned char) (255 - i);
  CU_OK (cu.cuMemcpyHtoD_v2 (p1, pattern, sizeof (pattern)));
  CU_OK (cu.cuMemcpyDtoH_v2 (back, p2, sizeof (back)));
  CHECK (memcmp (pattern, back, sizeof (back)) == 0,
      "both mappings see the same memory");
  view = mmap (NULL, size, PROT_READ, MAP_SHARED, fd2, 0);
  CHECK (view != MAP_FAILED && memcmp (view + 4096 + 100, pattern,
          sizeof (pattern)) == 0, "the exporter sees the bytes");
  if (view != MAP_FAILED)
    munmap (view, size);
  close (fd2);
  buf.offset = size - 10;
  buf.size = 64;
  {
    CUdeviceptr p3 = 0;
    CHECK (cu.cuExternalMemoryGetMappedBuffer (&p3, em, &buf) ==
        CUDA_ERROR_INVALID_VALUE, "mapping beyond the end -> INVALID_VALUE");
  }
  CHECK (sim.live_objects ("extmem") == 1 && sim.live_objects ("alloc") == 2,
      "live: 1 extmem, 2 mapped buffers");
  /* buffers may be freed after the external memory object is destroyed */
  CU_OK (cu.cuMemFree_v2 (p1));
  CU_OK (cu.cuDestroyExternalMemory (em));
  CU_OK (cu.cuMemFree_v2 (p2));
  CHECK (sim.live_objects ("extmem") == 0 && sim.live_objects ("alloc") == 0,
      "mapped buffers and the external memory released");
  {
    int before = (int) sim.violation_count ();
    CHECK (cu.cuDestroyExternalMemory (em) == CUDA_ERROR_INVALID_HANDLE &&
        (int) sim.violation_count () == before + 1,
        "external memory use after destroy");
  }
}

/* A memfd laid out like Mesa llvmpipe's exported VkDeviceMemory: header
 * {u64 file size, u64 data offset, 16 id bytes}, data at @data_offset. */
static int
make_llvmpipe_memfd (size_t size, uint64_t data_offset, uint64_t hdr_size)
{
  int fd = memfd_create ("llvmpipe memory fd", MFD_CLOEXEC);
  uint64_t hdr[4] = { 0, data_offset, 0x1122334455667788ull, 0 };
  size_t file_size = size + (size_t) data_offset + 40;

  if (fd < 0 || ftruncate (fd, (off_t) file_size) != 0)
    return -1;
  hdr[0] = hdr_size ? hdr_size : file_size;
  if (pwrite (fd, hdr, sizeof (hdr), 0) != (ssize_t) sizeof (hdr))
    return -1;
  return fd;
}

void
test_extmem_llvmpipe (void)
{
  CUDA_EXTERNAL_MEMORY_HANDLE_DESC desc;
  CUDA_EXTERNAL_MEMORY_BUFFER_DESC buf;
  CUexternalMemory em;
  CUdeviceptr p;
  size_t size = 77777;
  unsigned char data[300], back[300];
  int fd, i;

  SECTION ("external memory: lavapipe memfd layout");
  fd = make_llvmpipe_memfd (size, 4096, 0);
  CHECK (fd >= 0, "fake llvmpipe memfd");
  for (i = 0; i < (int) sizeof (data); i++)
    data[i] = (unsigned char) (i * 7 + 3);
  /* the "Vulkan side" writes the allocation's bytes 100.. */
  CHECK (pwrite (fd, data, sizeof (data), 4096 + 100) == (ssize_t) sizeof
      (data), "pwrite");
  memset (&desc, 0, sizeof (desc));
  desc.type = CU_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD;
  desc.handle.fd = fd;
  desc.size = size;
  CU_OK (cu.cuImportExternalMemory (&em, &desc));
  memset (&buf, 0, sizeof (buf));
  buf.offset = 100;
  buf.size = size - 100;
  CU_OK (cu.cuExternalMemoryGetMappedBuffer (&p, em, &buf));
  CU_OK (cu.cuMemcpyDtoH_v2 (back, p, sizeof (back)));
  CHECK (memcmp (data, back, sizeof (back)) == 0,
      "allocation offset 100 is file offset 0x1000 + 100");
  buf.offset = 0;
  buf.size = size + 1;
  {
    CUdeviceptr p2 = 0;
    CHECK (cu.cuExternalMemoryGetMappedBuffer (&p2, em, &buf) ==
        CUDA_ERROR_INVALID_VALUE, "the header does not count as memory");
  }
  CU_OK (cu.cuMemFree_v2 (p));
  CU_OK (cu.cuDestroyExternalMemory (em));

  /* inconsistent header: refused, fd stays the caller's */
  fd = make_llvmpipe_memfd (size, 4096, 12345);
  desc.handle.fd = fd;
  CHECK (cu.cuImportExternalMemory (&em, &desc) == CUDA_ERROR_INVALID_HANDLE,
      "llvmpipe memfd with a bad header -> INVALID_HANDLE");
  CHECK (fd_is_open (fd), "failed import leaves the fd open");
  close (fd);
  /* requested size larger than the data after the header */
  fd = make_llvmpipe_memfd (size, 4096, 0);
  desc.handle.fd = fd;
  desc.size = size + 41;
  CHECK (cu.cuImportExternalMemory (&em, &desc) == CUDA_ERROR_INVALID_VALUE,
      "size beyond the llvmpipe data -> INVALID_VALUE");
  close (fd);
}

static CUresult
vmm_map (CUmemGenericAllocationHandle hnd, size_t size, CUdeviceptr * out)
{
  CUmemAccessDesc acc;
  CUresult r;

  memset (&acc, 0, sizeof (acc));
  acc.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
  acc.location.id = 0;
  acc.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
  r = cu.cuMemAddressReserve (out, size, 0, 0, 0);
  if (r == CUDA_SUCCESS)
    r = cu.cuMemMap (*out, size, 0, hnd, 0);
  if (r == CUDA_SUCCESS)
    r = cu.cuMemSetAccess (*out, size, &acc, 1);
  return r;
}

static void
vmm_errors (CUmemGenericAllocationHandle hnd, size_t g)
{
  CUmemGenericAllocationHandle h2;
  CUmemAllocationProp prop;
  CUdeviceptr va;
  int fd = -1, devnull;
  unsigned before;

  memset (&prop, 0, sizeof (prop));
  prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
  prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
  CHECK (cu.cuMemCreate (&h2, g + 1, &prop, 0) == CUDA_ERROR_INVALID_VALUE,
      "size not a multiple of the granularity -> INVALID_VALUE");
  prop.requestedHandleTypes = CU_MEM_HANDLE_TYPE_WIN32;
  CHECK (cu.cuMemCreate (&h2, g, &prop, 0) == CUDA_ERROR_NOT_SUPPORTED,
      "win32 handle type -> NOT_SUPPORTED");
  prop.requestedHandleTypes = CU_MEM_HANDLE_TYPE_NONE;
  CU_OK (cu.cuMemCreate (&h2, g, &prop, 0));
  CHECK (cu.cuMemExportToShareableHandle (&fd, h2,
          CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0) ==
      CUDA_ERROR_INVALID_VALUE, "export of a non-exportable allocation -> "
      "INVALID_VALUE");
  CU_OK (cu.cuMemRelease (h2));
  before = sim.violation_count ();
  CHECK (cu.cuMemRelease (h2) == CUDA_ERROR_INVALID_HANDLE &&
      sim.violation_count () == before + 1, "cuMemRelease after the last "
      "release: violation + INVALID_HANDLE (%s)", sim.last_violation ()?
      sim.last_violation () : "-");
  devnull = open ("/dev/null", O_RDONLY);
  CHECK (cu.cuMemImportFromShareableHandle (&h2,
          (void *) (intptr_t) devnull,
          CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR) ==
      CUDA_ERROR_INVALID_HANDLE, "import of a foreign fd -> INVALID_HANDLE");
  close (devnull);
  CU_OK (cu.cuMemAddressReserve (&va, 2 * g, 0, 0, 0));
  CHECK (va % g == 0, "reservation aligned to the granularity");
  CU_OK (cu.cuMemMap (va + g, g, 0, hnd, 0));
  CHECK (cu.cuMemMap (va + g, g, 0, hnd, 0) == CUDA_ERROR_INVALID_VALUE,
      "mapping over a mapping -> INVALID_VALUE");
  CHECK (cu.cuMemsetD8_v2 (va + g, 0, 16) == CUDA_ERROR_INVALID_VALUE,
      "memset before cuMemSetAccess -> INVALID_VALUE");
  CHECK (cu.cuMemAddressFree (va, 2 * g) == CUDA_ERROR_INVALID_VALUE,
      "cuMemAddressFree with a mapping left -> INVALID_VALUE");
  CHECK (cu.cuMemUnmap (va, 2 * g) == CUDA_ERROR_INVALID_VALUE,
      "cuMemUnmap of a partly unmapped range -> INVALID_VALUE");
  CU_OK (cu.cuMemUnmap (va + g, g));
  CU_OK (cu.cuMemAddressFree (va, 2 * g));
}

void
test_vmm (void)
{
  CUmemGenericAllocationHandle hnd, h2, h3;
  CUmemAllocationProp prop, got;
  CUmemLocation loc;
  CUdeviceptr va, va2;
  unsigned long long flags = 0;
  size_t g = 0, i;
  unsigned char *h;
  int fd = -1, v = 0, ok = 1;

  SECTION ("virtual memory management");
  CU_OK (cu.cuDeviceGetAttribute (&v,
          CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED, 0));
  CHECK (v == 1, "VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED = 1");
  memset (&prop, 0, sizeof (prop));
  prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
  prop.requestedHandleTypes = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
  prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
  prop.location.id = 0;
  CU_OK (cu.cuMemGetAllocationGranularity (&g, &prop,
          CU_MEM_ALLOC_GRANULARITY_MINIMUM));
  CHECK (g == 2 << 20, "granularity 2 MiB (got %zu)", g);
  CU_OK (cu.cuMemCreate (&hnd, g, &prop, 0));
  CU_OK (cu.cuMemGetAllocationPropertiesFromHandle (&got, hnd));
  CHECK (got.requestedHandleTypes == CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR
      && got.location.id == 0, "allocation properties read back");
  CHECK (sim.live_objects ("memhandle") == 1, "one live allocation handle");
  CU_OK (vmm_map (hnd, g, &va));
  CHECK (sim.live_objects ("varange") == 1, "one live reservation");
  loc.type = CU_MEM_LOCATION_TYPE_DEVICE;
  loc.id = 0;
  CU_OK (cu.cuMemGetAccess (&flags, &loc, va + 100));
  CHECK (flags == CU_MEM_ACCESS_FLAGS_PROT_READWRITE, "cuMemGetAccess: RW");
  h = malloc (g);
  CU_OK (cu.cuMemcpyDtoH_v2 (h, va, g));
  for (i = 0; i < g; i++)
    ok &= h[i] == 0xcd;
  CHECK (ok, "fresh physical memory reads 0xcd");
  for (i = 0; i < g; i++)
    h[i] = (unsigned char) (i * 31 + 7);
  CU_OK (cu.cuMemcpyHtoD_v2 (va, h, g));
  CU_OK (cu.cuMemRetainAllocationHandle (&h2, (void *) (uintptr_t) (va + 5)));
  CHECK (h2 == hnd, "cuMemRetainAllocationHandle returns the mapped handle");
  CU_OK (cu.cuMemRelease (h2));

  /* POSIX fd export / import: another view of the same memory */
  CU_OK (cu.cuMemExportToShareableHandle (&fd, hnd,
          CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0));
  CU_OK (cu.cuMemImportFromShareableHandle (&h3, (void *) (intptr_t) fd,
          CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR));
  CHECK (fd_is_open (fd) && h3 != hnd, "import leaves the fd to the caller, "
      "new handle");
  close (fd);
  CU_OK (vmm_map (h3, g, &va2));
  CU_OK (cu.cuMemRelease (h3)); /* the mapping keeps the memory */
  memset (h, 0, g);
  CU_OK (cu.cuMemcpyDtoH_v2 (h, va2, g));
  for (i = 0, ok = 1; i < g; i++)
    ok &= h[i] == (unsigned char) (i * 31 + 7);
  CHECK (ok, "bytes written through one mapping read through the imported "
      "one");
  CHECK (cu.cuMemFree_v2 (va) == CUDA_ERROR_INVALID_VALUE,
      "cuMemFree of mapped virtual memory -> INVALID_VALUE");
  vmm_errors (hnd, g);
  CU_OK (cu.cuMemUnmap (va2, g));
  CU_OK (cu.cuMemAddressFree (va2, g));
  CU_OK (cu.cuMemUnmap (va, g));
  CU_OK (cu.cuMemAddressFree (va, g));
  CU_OK (cu.cuMemRelease (hnd));
  sim.drain ();
  CHECK (sim.live_objects ("memhandle") == 0 &&
      sim.live_objects ("varange") == 0, "handles and reservations gone "
      "(memhandle %d varange %d)", sim.live_objects ("memhandle"),
      sim.live_objects ("varange"));
  sim.inject_failure ("cuMemCreate", 1, CUDA_ERROR_OUT_OF_MEMORY);
  CHECK (cu.cuMemCreate (&hnd, g, &prop, 0) == CUDA_ERROR_OUT_OF_MEMORY,
      "CUDASIM_FAIL applies to cuMemCreate");
  free (h);
}

static cuuint64_t
pool_attr (CUmemoryPool pool, CUmemPool_attribute attr)
{
  cuuint64_t v = 12345;

  CU_OK (cu.cuMemPoolGetAttribute (pool, attr, &v));
  return v;
}

static void
pool_checks (CUstream s)
{
  CUmemPoolProps props;
  CUmemoryPool pool;
  CUdeviceptr d;
  cuuint64_t v;
  unsigned before;
  int reuse = 0;

  memset (&props, 0, sizeof (props));
  props.allocType = CU_MEM_ALLOCATION_TYPE_PINNED;
  props.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
  props.location.id = 0;
  props.handleTypes = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
  CHECK (cu.cuMemPoolCreate (&pool, &props) == CUDA_ERROR_NOT_SUPPORTED,
      "exportable pool -> NOT_SUPPORTED (MEMPOOL_SUPPORTED_HANDLE_TYPES 0)");
  props.handleTypes = CU_MEM_HANDLE_TYPE_NONE;
  CU_OK (cu.cuMemPoolCreate (&pool, &props));
  CHECK (sim.live_objects ("mempool") == 1, "one live pool");
  CU_OK (cu.cuMemPoolGetAttribute (pool,
          CU_MEMPOOL_ATTR_REUSE_ALLOW_OPPORTUNISTIC, &reuse));
  CHECK (reuse == 1 && pool_attr (pool, CU_MEMPOOL_ATTR_RELEASE_THRESHOLD)
      == 0, "defaults: reuse allowed, release threshold 0");
  v = 1 << 20;
  CU_OK (cu.cuMemPoolSetAttribute (pool, CU_MEMPOOL_ATTR_RELEASE_THRESHOLD,
          &v));
  CHECK (pool_attr (pool, CU_MEMPOOL_ATTR_RELEASE_THRESHOLD) == 1 << 20,
      "release threshold read back");
  CU_OK (cu.cuMemAllocFromPoolAsync (&d, 3000, pool, s));
  CHECK (pool_attr (pool, CU_MEMPOOL_ATTR_USED_MEM_CURRENT) == 3000 &&
      pool_attr (pool, CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT) == 3000,
      "used / reserved 3000 bytes");
  CU_OK (cu.cuMemFreeAsync (d, s));
  CHECK (pool_attr (pool, CU_MEMPOOL_ATTR_USED_MEM_CURRENT) == 0 &&
      pool_attr (pool, CU_MEMPOOL_ATTR_USED_MEM_HIGH) == 3000,
      "after the free: used 0, high mark 3000");
  v = 0;
  CU_OK (cu.cuMemPoolSetAttribute (pool, CU_MEMPOOL_ATTR_USED_MEM_HIGH, &v));
  CHECK (pool_attr (pool, CU_MEMPOOL_ATTR_USED_MEM_HIGH) == 0,
      "high mark reset");
  CHECK (cu.cuMemPoolSetAttribute (pool, CU_MEMPOOL_ATTR_USED_MEM_CURRENT,
          &v) == CUDA_ERROR_INVALID_VALUE, "USED_MEM_CURRENT is read only");
  /* destroying a pool with an allocation outstanding is allowed */
  CU_OK (cu.cuMemAllocFromPoolAsync (&d, 64, pool, s));
  CU_OK (cu.cuMemPoolDestroy (pool));
  CHECK (sim.live_objects ("mempool") == 0, "pool handle destroyed");
  CU_OK (cu.cuMemsetD8Async (d, 1, 64, s));
  CU_OK (cu.cuMemFreeAsync (d, s));
  before = sim.violation_count ();
  CHECK (cu.cuMemAllocFromPoolAsync (&d, 64, pool, s) ==
      CUDA_ERROR_INVALID_HANDLE && sim.violation_count () == before + 1,
      "allocation from a destroyed pool: violation + INVALID_HANDLE");
  CU_OK (cu.cuStreamSynchronize (s));
}

void
test_stream_ordered (void)
{
  CUstream s, other;
  CUdeviceptr d;
  unsigned char *h, *back;
  size_t n = 1 << 16, i;
  int v = 0, ok = 1, live;
  double t0, t;

  SECTION ("stream-ordered allocation and memory pools");
  CU_OK (cu.cuDeviceGetAttribute (&v,
          CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED, 0));
  CHECK (v == 1, "MEMORY_POOLS_SUPPORTED = 1");
  CU_OK (cu.cuStreamCreate (&s, CU_STREAM_NON_BLOCKING));
  CU_OK (cu.cuStreamCreate (&other, CU_STREAM_NON_BLOCKING));
  h = malloc (n);
  back = calloc (1, n);
  for (i = 0; i < n; i++)
    h[i] = (unsigned char) (i ^ (i >> 8));
  live = sim.live_objects ("alloc");
  sim.set_delay_us ("cuMemAllocAsync", 200000);
  t0 = now_ms ();
  CU_OK (cu.cuMemAllocAsync (&d, n, s));
  t = now_ms () - t0;
  CHECK (t < 100 && cu.cuStreamQuery (s) == CUDA_ERROR_NOT_READY &&
      sim.live_objects ("alloc") == live + 1, "cuMemAllocAsync returns at "
      "once (%.1f ms), its delay is on the stream, counts as an alloc", t);
  sim.set_delay_us ("cuMemAllocAsync", 0);
  CU_OK (cu.cuMemcpyDtoHAsync_v2 (back, d, n, s));
  CU_OK (cu.cuStreamSynchronize (s));
  for (i = 0; i < n; i++)
    ok &= back[i] == 0xcd;
  CHECK (ok, "a fresh stream-ordered allocation reads 0xcd");
  CU_OK (cu.cuMemcpyHtoDAsync_v2 (d, h, n, s));
  /* a delayed read queued before the free still sees the memory */
  memset (back, 0, n);
  sim.set_delay_us ("cuMemcpyDtoHAsync_v2", 200000);
  CU_OK (cu.cuMemcpyDtoHAsync_v2 (back, d, n, s));
  CU_OK (cu.cuMemFreeAsync (d, s));
  CHECK (sim.live_objects ("alloc") == live, "freed for the API at once");
  CHECK (cu.cuMemsetD8Async (d, 0, 1, other) == CUDA_ERROR_INVALID_VALUE,
      "new work on the freed pointer -> INVALID_VALUE");
  CU_OK (cu.cuStreamSynchronize (s));
  sim.set_delay_us ("cuMemcpyDtoHAsync_v2", 0);
  CHECK (memcmp (back, h, n) == 0, "the read queued before cuMemFreeAsync "
      "got the bytes");
  CHECK (cu.cuMemFreeAsync (d, s) == CUDA_ERROR_INVALID_VALUE,
      "double cuMemFreeAsync -> INVALID_VALUE");
  /* cuMemFree on stream-ordered memory, cuMemFreeAsync on cuMemAlloc's */
  CU_OK (cu.cuMemAllocAsync (&d, 100, s));
  CU_OK (cu.cuMemFree_v2 (d));
  CU_OK (cu.cuMemAlloc_v2 (&d, 100));
  CU_OK (cu.cuMemFreeAsync (d, s));
  pool_checks (s);
  sim.inject_failure ("cuMemAllocAsync", 1, CUDA_ERROR_OUT_OF_MEMORY);
  CHECK (cu.cuMemAllocAsync (&d, 100, s) == CUDA_ERROR_OUT_OF_MEMORY,
      "CUDASIM_FAIL applies to cuMemAllocAsync");
  CU_OK (cu.cuStreamDestroy_v2 (s));
  CU_OK (cu.cuStreamDestroy_v2 (other));
  sim.drain ();
  CHECK (sim.live_objects ("alloc") == live, "no allocation left");
  free (h);
  free (back);
}

void
test_ipc (void)
{
  CUipcEventHandle eh;
  CUipcMemHandle mh;
  CUevent ev, ev2;
  CUdeviceptr d, d2;
  int pid;

  SECTION ("legacy IPC handles (same process: made, not opened)");
  CU_OK (cu.cuEventCreate (&ev, CU_EVENT_DISABLE_TIMING));
  CHECK (cu.cuIpcGetEventHandle (&eh, ev) == CUDA_ERROR_INVALID_VALUE,
      "event without CU_EVENT_INTERPROCESS -> INVALID_VALUE");
  CU_OK (cu.cuEventDestroy_v2 (ev));
  CU_OK (cu.cuEventCreate (&ev, CU_EVENT_DISABLE_TIMING |
          CU_EVENT_INTERPROCESS));
  CU_OK (cu.cuIpcGetEventHandle (&eh, ev));
  CHECK (cu.cuIpcOpenEventHandle (&ev2, eh) == CUDA_ERROR_INVALID_CONTEXT,
      "opening this process's event handle -> INVALID_CONTEXT");
  memcpy (&pid, eh.reserved + 12, sizeof (pid));
  pid ^= 0x40000000;            /* as if made by another process */
  memcpy (eh.reserved + 12, &pid, sizeof (pid));
  CHECK (cu.cuIpcOpenEventHandle (&ev2, eh) == CUDA_ERROR_NOT_SUPPORTED,
      "another process's handle -> NOT_SUPPORTED");
  memset (&eh, 0, sizeof (eh));
  CHECK (cu.cuIpcOpenEventHandle (&ev2, eh) == CUDA_ERROR_INVALID_VALUE,
      "garbage handle -> INVALID_VALUE");
  CU_OK (cu.cuEventDestroy_v2 (ev));
  CU_OK (cu.cuMemAlloc_v2 (&d, 4096));
  CHECK (cu.cuIpcGetMemHandle (&mh, d + 16) == CUDA_ERROR_INVALID_VALUE,
      "memory handle of an inner pointer -> INVALID_VALUE");
  CU_OK (cu.cuIpcGetMemHandle (&mh, d));
  CHECK (cu.cuIpcOpenMemHandle_v2 (&d2, mh,
          CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS) == CUDA_ERROR_INVALID_CONTEXT,
      "opening this process's memory handle -> INVALID_CONTEXT");
  CHECK (cu.cuIpcCloseMemHandle (d) == CUDA_ERROR_INVALID_VALUE,
      "closing memory that was not opened -> INVALID_VALUE");
  CU_OK (cu.cuMemFree_v2 (d));
}

/* cudasim self-test: plain C, loads libcuda.so.1 from the library search
 * path (run with LD_LIBRARY_PATH=<builddir>/tests/cudasim) and checks the
 * simulator's semantics.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cudasim.h"

/* ------------------------------------------------------------------ */

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

static struct
{
#define DECL_(name) __typeof__ (&name) name;
  CU_FUNCS (DECL_)
#undef DECL_
  CtxCreateV2Func cuCtxCreate_v2;
} cu;

static CudasimApi sim;

/* ------------------------------------------------------------------ */

static int failures;
static int checks;

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

static double
now_ms (void)
{
  struct timespec ts;
  clock_gettime (CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static void
sleep_ms (int ms)
{
  struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
  while (nanosleep (&ts, &ts) == -1 && errno == EINTR);
}

/* number of live simulator stream threads (named "cudasim-strm") */
static int
count_stream_threads (void)
{
  DIR *d = opendir ("/proc/self/task");
  struct dirent *e;
  int n = 0;

  if (!d)
    return -1;
  while ((e = readdir (d))) {
    char path[300], comm[64] = "";
    FILE *f;
    if (e->d_name[0] == '.')
      continue;
    snprintf (path, sizeof (path), "/proc/self/task/%s/comm", e->d_name);
    f = fopen (path, "r");
    if (!f)
      continue;
    if (fgets (comm, sizeof (comm), f)
        && strncmp (comm, "cudasim-strm", 12) == 0)
      n++;
    fclose (f);
  }
  closedir (d);
  return n;
}

static int
fd_is_open (int fd)
{
  return fcntl (fd, F_GETFD) != -1;
}

static CUcontext ctx;

static CUexternalSemaphore
import_sem (int id, CUexternalSemaphoreHandleType type, CUresult * res)
{
  CUDA_EXTERNAL_SEMAPHORE_HANDLE_DESC desc;
  CUexternalSemaphore es = NULL;
  int fd = sim.sem_export_fd (id);

  memset (&desc, 0, sizeof (desc));
  desc.type = type;
  desc.handle.fd = fd;
  *res = cu.cuImportExternalSemaphore (&es, &desc);
  if (*res != CUDA_SUCCESS)
    close (fd);
  return es;
}

static CUresult
sem_signal (CUexternalSemaphore es, uint64_t v, CUstream s)
{
  CUDA_EXTERNAL_SEMAPHORE_SIGNAL_PARAMS p;

  memset (&p, 0, sizeof (p));
  p.params.fence.value = v;
  return cu.cuSignalExternalSemaphoresAsync (&es, &p, 1, s);
}

static CUresult
sem_wait (CUexternalSemaphore es, uint64_t v, CUstream s)
{
  CUDA_EXTERNAL_SEMAPHORE_WAIT_PARAMS p;

  memset (&p, 0, sizeof (p));
  p.params.fence.value = v;
  return cu.cuWaitExternalSemaphoresAsync (&es, &p, 1, s);
}

/* ------------------------------------------------------------------ */

static void
test_load (void)
{
  void *lib;

  SECTION ("loading libcuda.so.1");
  lib = dlopen ("libcuda.so.1", RTLD_NOW);
  if (!lib) {
    printf ("  FAIL cannot load libcuda.so.1: %s\n", dlerror ());
    exit (1);
  }
#define LOAD_(name) \
  cu.name = (__typeof__ (cu.name)) dlsym (lib, #name); \
  if (!cu.name) { printf ("  FAIL missing symbol %s\n", #name); exit (1); }
  CU_FUNCS (LOAD_)
#undef LOAD_
      cu.cuCtxCreate_v2 = (CtxCreateV2Func) dlsym (lib, "cuCtxCreate_v2");
  CHECK (cu.cuCtxCreate_v2 != NULL, "cuCtxCreate_v2 exported");
  CHECK (dlsym (lib, "cuCtxCreate") && dlsym (lib, "cuEventDestroy") &&
      dlsym (lib, "cuStreamDestroy") && dlsym (lib, "cuGLGetDevices_v2"),
      "plain/legacy names exported");
  {
    /* the exact names libgstcuda 1.24-1.28 resolve with LOAD_SYMBOL that
     * the list above does not cover (gst's stub cuda.h: no _v2 for these) */
    static const char *const gst_names[] = { "cuCtxSynchronize",
      "cuMemcpyDtoH_v2", "cuMemcpyDtoDAsync_v2", "cuMemcpyHtoD_v2",
      "cuMemsetD2D16_v2", "cuMemsetD2D32_v2", "cuIpcOpenMemHandle",
      "cuGraphicsEGLRegisterImage", "cuGraphicsResourceGetMappedEglFrame",
      "cuDeviceGetUuid", "cuGLGetDevices_v2", NULL
    };
    int i, all = 1;
    for (i = 0; gst_names[i]; i++) {
      if (!dlsym (lib, gst_names[i])) {
        printf ("  missing %s\n", gst_names[i]);
        all = 0;
      }
    }
    CHECK (all, "names libgstcuda 1.24-1.28 load are exported");
  }
  CHECK (cudasim_lookup (&sim), "cudasim_lookup finds the test API "
      "(this is the simulator)");
  if (!sim.sem_create)
    exit (1);
}

static void
test_init (void)
{
  int count = -1, v = 0;
  CUdevice dev = -1;
  const char *name = NULL;
  CUuuid uuid;

  SECTION ("initialisation, devices, error names");
  CHECK (cu.cuDeviceGetCount (&count) == CUDA_ERROR_NOT_INITIALIZED,
      "calls before cuInit fail with CUDA_ERROR_NOT_INITIALIZED");
  CU_OK (cu.cuInit (0));
  CU_OK (cu.cuDeviceGetCount (&count));
  CHECK (count == 1, "one device by default (got %d)", count);
  CU_OK (cu.cuDeviceGet (&dev, 0));
  CU_OK (cu.cuDeviceGetAttribute (&v, CU_DEVICE_ATTRIBUTE_TEXTURE_ALIGNMENT,
          dev));
  CHECK (v > 0, "texture alignment reported (%d)", v);
  CU_OK (cu.cuDeviceGetUuid_v2 (&uuid, dev));
  {
    CUuuid u2, u3;
    setenv ("CUDASIM_DEVICE_UUID", "6d65736132322e332e36000000000000", 1);
    CU_OK (cu.cuDeviceGetUuid_v2 (&u2, dev));
    setenv ("CUDASIM_DEVICE_UUID", "not-hex", 1);
    CU_OK (cu.cuDeviceGetUuid_v2 (&u3, dev));
    unsetenv ("CUDASIM_DEVICE_UUID");
    CHECK (memcmp (u2.bytes, "mesa22.3.6\0\0\0\0\0\0", 16) == 0,
        "CUDASIM_DEVICE_UUID sets device 0's UUID");
    CHECK (memcmp (&u3, &uuid, sizeof (uuid)) == 0,
        "a malformed CUDASIM_DEVICE_UUID is ignored");
  }
  CU_OK (cu.cuDriverGetVersion (&v));
  CHECK (v >= 11000, "driver version %d", v);

  CU_OK (cu.cuGetErrorName (CUDA_ERROR_INVALID_VALUE, &name));
  CHECK (name && strcmp (name, "CUDA_ERROR_INVALID_VALUE") == 0,
      "cuGetErrorName(INVALID_VALUE) = %s", name ? name : "(null)");
  {
    static const struct
    {
      CUresult r;
      const char *n;
    } names[] = {
      {CUDA_ERROR_INVALID_HANDLE, "CUDA_ERROR_INVALID_HANDLE"},
      {CUDA_ERROR_NOT_READY, "CUDA_ERROR_NOT_READY"},
      {CUDA_ERROR_NOT_SUPPORTED, "CUDA_ERROR_NOT_SUPPORTED"},
      {CUDA_ERROR_LAUNCH_FAILED, "CUDA_ERROR_LAUNCH_FAILED"},
      {CUDA_ERROR_OUT_OF_MEMORY, "CUDA_ERROR_OUT_OF_MEMORY"},
      {CUDA_ERROR_ILLEGAL_STATE, "CUDA_ERROR_ILLEGAL_STATE"},
      {CUDA_ERROR_INVALID_CONTEXT, "CUDA_ERROR_INVALID_CONTEXT"},
      {CUDA_ERROR_NOT_INITIALIZED, "CUDA_ERROR_NOT_INITIALIZED"},
      {CUDA_ERROR_OPERATING_SYSTEM, "CUDA_ERROR_OPERATING_SYSTEM"},
      {CUDA_ERROR_UNKNOWN, "CUDA_ERROR_UNKNOWN"},
      {CUDA_ERROR_FILE_NOT_FOUND, "CUDA_ERROR_FILE_NOT_FOUND"},
      {CUDA_SUCCESS, "CUDA_SUCCESS"},
    };
    size_t i;
    int ok = 1;
    for (i = 0; i < sizeof (names) / sizeof (names[0]); i++) {
      const char *s = NULL, *d = NULL;
      if (cu.cuGetErrorName (names[i].r, &s) != CUDA_SUCCESS || !s ||
          strcmp (s, names[i].n) != 0 ||
          cu.cuGetErrorString (names[i].r, &d) != CUDA_SUCCESS || !d) {
        printf ("       wrong name for %d: %s\n", (int) names[i].r,
            s ? s : "(null)");
        ok = 0;
      }
    }
    CHECK (ok, "error names/strings for the common CUresult codes");
  }
  CHECK (cu.cuGetErrorName ((CUresult) 12345, &name) ==
      CUDA_ERROR_INVALID_VALUE, "unknown code -> CUDA_ERROR_INVALID_VALUE");
}

static void
test_contexts (void)
{
  CUcontext cur = NULL, popped = NULL, c2 = NULL, prim = NULL;
  CUstream s = NULL;

  SECTION ("contexts");
  CHECK (cu.cuStreamCreate (&s, 0) == CUDA_ERROR_INVALID_CONTEXT,
      "no current context -> CUDA_ERROR_INVALID_CONTEXT");
  CU_OK (cu.cuCtxCreate_v2 (&ctx, 0, 0));
  CU_OK (cu.cuCtxGetCurrent (&cur));
  CHECK (cur == ctx, "cuCtxCreate makes the context current");
  CU_OK (cu.cuCtxCreate_v2 (&c2, 0, 0));
  CU_OK (cu.cuCtxPopCurrent_v2 (&popped));
  CHECK (popped == c2, "pop returns the top context");
  CU_OK (cu.cuCtxGetCurrent (&cur));
  CHECK (cur == ctx, "stack: the previous context is current again");
  CU_OK (cu.cuCtxDestroy_v2 (c2));
  CHECK (cu.cuCtxPushCurrent_v2 (c2) == CUDA_ERROR_INVALID_CONTEXT,
      "pushing a destroyed context fails");
  CU_OK (cu.cuDevicePrimaryCtxRetain (&prim, 0));
  CHECK (sim.live_objects ("context") == 2, "live contexts: 2 (got %d)",
      sim.live_objects ("context"));
  CU_OK (cu.cuDevicePrimaryCtxRelease_v2 (0));
  CHECK (sim.live_objects ("context") == 1, "primary context released");
  CU_OK (cu.cuCtxSetCurrent (ctx));
}

static void
test_async_copy (void)
{
  CUstream s;
  CUdeviceptr d, d2;
  size_t n = 1 << 20, i;
  unsigned char *a = malloc (n), *b = malloc (n), *c = malloc (n);
  int ok = 1;

  SECTION ("async memcpy ordering and bytes");
  for (i = 0; i < n; i++)
    a[i] = (unsigned char) (i * 7 + 3);
  memset (b, 0, n);
  memset (c, 0, n);
  CU_OK (cu.cuStreamCreate (&s, CU_STREAM_NON_BLOCKING));
  CU_OK (cu.cuMemAlloc_v2 (&d, n));
  CU_OK (cu.cuMemAlloc_v2 (&d2, n));
  sim.set_delay_us (NULL, 5000);
  CU_OK (cu.cuMemcpyHtoDAsync_v2 (d, a, n, s));
  CU_OK (cu.cuMemcpyDtoHAsync_v2 (b, d, n, s));
  CU_OK (cu.cuMemsetD8Async (d, 0x5a, n, s));
  CU_OK (cu.cuMemcpyDtoHAsync_v2 (c, d, n, s));
  CHECK (cu.cuStreamQuery (s) == CUDA_ERROR_NOT_READY,
      "cuStreamQuery: NOT_READY while work is queued");
  CU_OK (cu.cuStreamSynchronize (s));
  sim.set_delay_us (NULL, 0);
  CHECK (cu.cuStreamQuery (s) == CUDA_SUCCESS, "cuStreamQuery: idle");
  CHECK (memcmp (a, b, n) == 0, "HtoD then DtoH round-trips the bytes");
  for (i = 0; i < n; i++)
    ok &= c[i] == 0x5a;
  CHECK (ok, "memset after the copy is seen by the next copy (in order)");

  /* 2D copy with pitch, like GStreamer does */
  {
    CUdeviceptr p;
    size_t pitch = 0, w = 321, h = 17;
    unsigned char *src = malloc (w * h), *dst = calloc (1, w * h);
    CUDA_MEMCPY2D c2d;
    for (i = 0; i < w * h; i++)
      src[i] = (unsigned char) (i * 13);
    CU_OK (cu.cuMemAllocPitch_v2 (&p, &pitch, w, h, 16));
    CHECK (pitch >= w && pitch % 512 == 0, "pitch %zu >= width, aligned",
        pitch);
    memset (&c2d, 0, sizeof (c2d));
    c2d.srcMemoryType = CU_MEMORYTYPE_HOST;
    c2d.srcHost = src;
    c2d.srcPitch = w;
    c2d.dstMemoryType = CU_MEMORYTYPE_DEVICE;
    c2d.dstDevice = p;
    c2d.dstPitch = pitch;
    c2d.WidthInBytes = w;
    c2d.Height = h;
    CU_OK (cu.cuMemcpy2D_v2 (&c2d));
    memset (&c2d, 0, sizeof (c2d));
    c2d.srcMemoryType = CU_MEMORYTYPE_UNIFIED;
    c2d.srcDevice = p;
    c2d.srcPitch = pitch;
    c2d.dstMemoryType = CU_MEMORYTYPE_HOST;
    c2d.dstHost = dst;
    c2d.dstPitch = w;
    c2d.WidthInBytes = w;
    c2d.Height = h;
    CU_OK (cu.cuMemcpy2DAsync_v2 (&c2d, s));
    CU_OK (cu.cuStreamSynchronize (s));
    CHECK (memcmp (src, dst, w * h) == 0, "pitched 2D copies round-trip");
    c2d.Height = h + 1;
    CHECK (cu.cuMemcpy2DAsync_v2 (&c2d, s) == CUDA_ERROR_INVALID_VALUE,
        "copy beyond the allocation -> CUDA_ERROR_INVALID_VALUE");
    c2d.Height = h;
    c2d.srcMemoryType = CU_MEMORYTYPE_ARRAY;
    CHECK (cu.cuMemcpy2DAsync_v2 (&c2d, s) == CUDA_ERROR_NOT_SUPPORTED,
        "array copies -> CUDA_ERROR_NOT_SUPPORTED");
    CU_OK (cu.cuMemFree_v2 (p));
    free (src);
    free (dst);
  }
  {
    void *hp = NULL;
    CU_OK (cu.cuMemAllocHost_v2 (&hp, 4096));
    CHECK (sim.live_objects ("hostalloc") == 1, "pinned host allocation");
    CU_OK (cu.cuMemFreeHost (hp));
  }

  CU_OK (cu.cuMemFree_v2 (d));
  CU_OK (cu.cuMemFree_v2 (d2));
  CHECK (cu.cuMemFree_v2 (d) == CUDA_ERROR_INVALID_VALUE,
      "double cuMemFree -> CUDA_ERROR_INVALID_VALUE");
  CU_OK (cu.cuStreamDestroy_v2 (s));
  free (a);
  free (b);
  free (c);
}

static void
test_nonblocking_caller (void)
{
  CUstream s;
  CUdeviceptr d;
  unsigned char h[64];
  double t0, t_enq, t_sync;

  SECTION ("a delayed stream does not block the caller");
  CU_OK (cu.cuStreamCreate (&s, 0));
  CU_OK (cu.cuMemAlloc_v2 (&d, sizeof (h)));
  memset (h, 1, sizeof (h));
  sim.set_delay_us ("cuMemcpyHtoDAsync_v2", 300000);
  t0 = now_ms ();
  CU_OK (cu.cuMemcpyHtoDAsync_v2 (d, h, sizeof (h), s));
  t_enq = now_ms () - t0;
  CHECK (t_enq < 100, "enqueue returned after %.1f ms (delay 300 ms)", t_enq);
  CHECK (cu.cuStreamQuery (s) == CUDA_ERROR_NOT_READY, "still running");
  CU_OK (cu.cuStreamSynchronize (s));
  t_sync = now_ms () - t0;
  CHECK (t_sync >= 290, "cuStreamSynchronize waited for the delay "
      "(%.1f ms)", t_sync);
  sim.set_delay_us ("cuMemcpyHtoDAsync_v2", 0);
  CU_OK (cu.cuMemFree_v2 (d));
  CU_OK (cu.cuStreamDestroy_v2 (s));
}

static void
test_legacy_stream (void)
{
  CUstream blocking, nonblocking;
  CUdeviceptr d1, d2;
  unsigned char v1 = 0, v2 = 0;
  double t0, t;

  SECTION ("legacy default stream semantics");
  CU_OK (cu.cuStreamCreate (&blocking, CU_STREAM_DEFAULT));
  CU_OK (cu.cuStreamCreate (&nonblocking, CU_STREAM_NON_BLOCKING));
  CU_OK (cu.cuMemAlloc_v2 (&d1, 1));
  CU_OK (cu.cuMemAlloc_v2 (&d2, 1));
  CU_OK (cu.cuMemsetD8_v2 (d1, 0, 1));
  CU_OK (cu.cuMemsetD8_v2 (d2, 0, 1));

  sim.set_delay_us ("cuMemsetD8Async", 300000);

  /* null stream waits for earlier work on blocking streams */
  CU_OK (cu.cuMemsetD8Async (d1, 1, 1, blocking));
  t0 = now_ms ();
  CU_OK (cu.cuMemcpyDtoH_v2 (&v1, d1, 1));
  t = now_ms () - t0;
  CHECK (v1 == 1 && t >= 250, "NULL-stream copy waited for the delayed "
      "blocking-stream memset (value %d after %.0f ms)", v1, t);

  /* ... but not for non-blocking streams */
  CU_OK (cu.cuMemsetD8Async (d2, 2, 1, nonblocking));
  t0 = now_ms ();
  CU_OK (cu.cuMemcpyDtoH_v2 (&v2, d2, 1));
  t = now_ms () - t0;
  CHECK (v2 == 0 && t < 150, "NULL-stream copy did not wait for the "
      "non-blocking stream (value %d after %.0f ms)", v2, t);
  CU_OK (cu.cuStreamSynchronize (nonblocking));

  /* blocking streams wait for earlier work on the null stream */
  CU_OK (cu.cuMemsetD8Async (d1, 3, 1, NULL));
  CU_OK (cu.cuMemcpyDtoHAsync_v2 (&v1, d1, 1, blocking));
  CU_OK (cu.cuMemcpyDtoHAsync_v2 (&v2, d1, 1, nonblocking));
  CU_OK (cu.cuStreamSynchronize (nonblocking));
  CHECK (v2 == 1, "non-blocking stream did not wait for the NULL stream "
      "(saw %d)", v2);
  CU_OK (cu.cuStreamSynchronize (blocking));
  CHECK (v1 == 3, "blocking stream waited for the delayed NULL-stream "
      "memset (saw %d)", v1);

  /* cuStreamSynchronize(NULL) covers blocking-stream work */
  CU_OK (cu.cuMemsetD8Async (d1, 4, 1, blocking));
  CU_OK (cu.cuStreamSynchronize (NULL));
  CU_OK (cu.cuMemcpyDtoH_v2 (&v1, d1, 1));
  CHECK (v1 == 4, "cuStreamSynchronize(NULL) waited for a blocking stream");

  sim.set_delay_us ("cuMemsetD8Async", 0);
  CU_OK (cu.cuMemFree_v2 (d1));
  CU_OK (cu.cuMemFree_v2 (d2));
  CU_OK (cu.cuStreamDestroy_v2 (blocking));
  CU_OK (cu.cuStreamDestroy_v2 (nonblocking));
}

static void
test_events (void)
{
  CUstream s1, s2;
  CUevent ev, e0, e1;
  CUdeviceptr d;
  unsigned char v = 0;
  float ms = -1;

  SECTION ("events across streams");
  CU_OK (cu.cuStreamCreate (&s1, CU_STREAM_NON_BLOCKING));
  CU_OK (cu.cuStreamCreate (&s2, CU_STREAM_NON_BLOCKING));
  CU_OK (cu.cuEventCreate (&ev, CU_EVENT_DISABLE_TIMING));
  CU_OK (cu.cuEventCreate (&e0, 0));
  CU_OK (cu.cuEventCreate (&e1, 0));
  CU_OK (cu.cuMemAlloc_v2 (&d, 1));
  CU_OK (cu.cuMemsetD8_v2 (d, 0, 1));
  CHECK (cu.cuEventQuery (ev) == CUDA_SUCCESS,
      "a never-recorded event is complete");

  sim.set_delay_us ("cuMemsetD8Async", 200000);
  CU_OK (cu.cuEventRecord (e0, s1));
  CU_OK (cu.cuMemsetD8Async (d, 7, 1, s1));
  CU_OK (cu.cuEventRecord (ev, s1));
  CU_OK (cu.cuEventRecord (e1, s1));
  CHECK (cu.cuEventQuery (ev) == CUDA_ERROR_NOT_READY,
      "event query: NOT_READY before the work completes");
  CU_OK (cu.cuStreamWaitEvent (s2, ev, 0));
  CU_OK (cu.cuMemcpyDtoHAsync_v2 (&v, d, 1, s2));
  CU_OK (cu.cuStreamSynchronize (s2));
  CHECK (v == 7, "stream 2 waited for the event recorded on stream 1 "
      "(saw %d)", v);
  CU_OK (cu.cuEventSynchronize (e1));
  CHECK (cu.cuEventQuery (ev) == CUDA_SUCCESS, "event complete");
  CU_OK (cu.cuEventElapsedTime_v2 (&ms, e0, e1));
  CHECK (ms >= 150, "elapsed time covers the delayed memset (%.1f ms)", ms);
  CHECK (cu.cuEventElapsedTime_v2 (&ms, e0, ev) == CUDA_ERROR_INVALID_HANDLE,
      "elapsed time with a DISABLE_TIMING event -> INVALID_HANDLE");
  sim.set_delay_us ("cuMemsetD8Async", 0);

  CU_OK (cu.cuEventDestroy_v2 (ev));
  CU_OK (cu.cuEventDestroy_v2 (e0));
  CU_OK (cu.cuEventDestroy_v2 (e1));
  CU_OK (cu.cuMemFree_v2 (d));
  CU_OK (cu.cuStreamDestroy_v2 (s1));
  CU_OK (cu.cuStreamDestroy_v2 (s2));
}

static void
test_semaphores (void)
{
  CUstream sa, sb;
  CUexternalSemaphore es_a, es_b, es_bin;
  CUdeviceptr d;
  unsigned char v = 0;
  int tl, bin;
  CUresult r;
  double t0, t;

  SECTION ("timeline semaphore across two streams");
  CU_OK (cu.cuStreamCreate (&sa, CU_STREAM_NON_BLOCKING));
  CU_OK (cu.cuStreamCreate (&sb, CU_STREAM_NON_BLOCKING));
  CU_OK (cu.cuMemAlloc_v2 (&d, 1));
  CU_OK (cu.cuMemsetD8_v2 (d, 0, 1));
  tl = sim.sem_create (CUDASIM_SEM_TIMELINE, 0);
  CHECK (tl > 0, "timeline semaphore created (id %d)", tl);
  es_a =
      import_sem (tl, CU_EXTERNAL_SEMAPHORE_HANDLE_TYPE_TIMELINE_SEMAPHORE_FD,
      &r);
  CU_OK (r);
  es_b =
      import_sem (tl, CU_EXTERNAL_SEMAPHORE_HANDLE_TYPE_TIMELINE_SEMAPHORE_FD,
      &r);
  CU_OK (r);
  CHECK (sim.live_objects ("extsem") == 2, "two imported handles");

  sim.set_delay_us ("cuMemsetD8Async", 200000);
  t0 = now_ms ();
  CU_OK (sem_wait (es_b, 1, sb));
  CU_OK (cu.cuMemcpyDtoHAsync_v2 (&v, d, 1, sb));
  CU_OK (cu.cuMemsetD8Async (d, 9, 1, sa));
  CU_OK (sem_signal (es_a, 1, sa));
  CU_OK (cu.cuStreamSynchronize (sb));
  t = now_ms () - t0;
  CHECK (v == 9 && t >= 190, "the waiting stream's copy ran after the "
      "signal (saw %d after %.0f ms)", v, t);
  CHECK (sim.sem_get_value (tl) == 1, "timeline value is 1");
  sim.set_delay_us ("cuMemsetD8Async", 0);

  SECTION ("host signal wakes a stream wait; stream signal wakes a host wait");
  CU_OK (sem_wait (es_b, 5, sb));
  CU_OK (cu.cuMemsetD8Async (d, 4, 1, sb));
  sleep_ms (100);
  CHECK (cu.cuStreamQuery (sb) == CUDA_ERROR_NOT_READY,
      "stream blocked on the semaphore wait");
  CHECK (sim.sem_host_signal (tl, 5) == 0, "host signal 5");
  CU_OK (cu.cuStreamSynchronize (sb));
  CHECK (cu.cuStreamQuery (sb) == CUDA_SUCCESS, "stream resumed");
  sim.set_delay_us ("cuSignalExternalSemaphoresAsync", 100000);
  CU_OK (sem_signal (es_a, 7, sa));
  CHECK (sim.sem_host_wait (tl, 7, 50ull * 1000000) == -1,
      "host wait times out while the delayed signal is pending");
  CHECK (sim.sem_host_wait (tl, 7, 5000ull * 1000000) == 0,
      "host wait returns once the stream signalled 7");
  sim.set_delay_us ("cuSignalExternalSemaphoresAsync", 0);

  SECTION ("binary semaphore");
  bin = sim.sem_create (CUDASIM_SEM_BINARY, 0);
  es_bin = import_sem (bin, CU_EXTERNAL_SEMAPHORE_HANDLE_TYPE_OPAQUE_FD, &r);
  CU_OK (r);
  CU_OK (sem_wait (es_bin, 0, sb));
  CU_OK (cu.cuMemsetD8Async (d, 5, 1, sb));
  sleep_ms (50);
  CHECK (cu.cuStreamQuery (sb) == CUDA_ERROR_NOT_READY,
      "stream blocked on the binary wait");
  CHECK (sim.sem_host_signal (bin, 1) == 0, "host signals the binary "
      "semaphore");
  CU_OK (cu.cuStreamSynchronize (sb));
  CHECK (sim.sem_get_value (bin) == 0, "the wait consumed the signal");
  CU_OK (sem_signal (es_bin, 0, sa));
  CHECK (sim.sem_host_wait (bin, 0, 5000ull * 1000000) == 0,
      "host wait consumes a stream signal");
  CHECK (sim.sem_get_value (bin) == 0, "unsignalled again");

  CU_OK (cu.cuDestroyExternalSemaphore (es_a));
  CU_OK (cu.cuDestroyExternalSemaphore (es_b));
  CU_OK (cu.cuDestroyExternalSemaphore (es_bin));
  sim.sem_unref (tl);
  sim.sem_unref (bin);
  CU_OK (cu.cuMemFree_v2 (d));
  CU_OK (cu.cuStreamDestroy_v2 (sa));
  CU_OK (cu.cuStreamDestroy_v2 (sb));
}

static void
test_import_errors (void)
{
  CUDA_EXTERNAL_SEMAPHORE_HANDLE_DESC desc;
  CUexternalSemaphore es = NULL;
  int bin = sim.sem_create (CUDASIM_SEM_BINARY, 0);
  int tl = sim.sem_create (CUDASIM_SEM_TIMELINE, 0);
  int fd, p[2];
  CUresult r;

  SECTION ("semaphore import errors and fd ownership");
  memset (&desc, 0, sizeof (desc));

  desc.type = CU_EXTERNAL_SEMAPHORE_HANDLE_TYPE_OPAQUE_FD;
  desc.handle.fd = fd = open ("/dev/null", O_RDWR);
  r = cu.cuImportExternalSemaphore (&es, &desc);
  CHECK (r == CUDA_ERROR_INVALID_HANDLE && fd_is_open (fd),
      "foreign fd (/dev/null) -> INVALID_HANDLE (%d), fd left open", r);
  close (fd);

  CHECK (pipe (p) == 0, "pipe");
  desc.handle.fd = p[0];
  r = cu.cuImportExternalSemaphore (&es, &desc);
  CHECK (r == CUDA_ERROR_INVALID_HANDLE, "foreign fd (pipe) -> "
      "INVALID_HANDLE (%d)", r);
  close (p[0]);
  close (p[1]);

  desc.handle.fd = fd = sim.mem_create (4096);
  r = cu.cuImportExternalSemaphore (&es, &desc);
  CHECK (r == CUDA_ERROR_INVALID_HANDLE, "foreign memfd -> INVALID_HANDLE "
      "(%d)", r);
  close (fd);

  desc.handle.fd = fd = sim.sem_export_fd (bin);
  close (fd);
  r = cu.cuImportExternalSemaphore (&es, &desc);
  CHECK (r == CUDA_ERROR_INVALID_HANDLE, "closed fd -> INVALID_HANDLE (%d)", r);

  desc.handle.fd = -1;
  r = cu.cuImportExternalSemaphore (&es, &desc);
  CHECK (r == CUDA_ERROR_INVALID_VALUE, "fd -1 -> INVALID_VALUE (%d)", r);

  desc.type = CU_EXTERNAL_SEMAPHORE_HANDLE_TYPE_TIMELINE_SEMAPHORE_FD;
  desc.handle.fd = fd = sim.sem_export_fd (bin);
  r = cu.cuImportExternalSemaphore (&es, &desc);
  CHECK (r == CUDA_ERROR_INVALID_VALUE && fd_is_open (fd),
      "binary fd imported as timeline -> INVALID_VALUE (%d), fd left open", r);
  close (fd);

  desc.type = CU_EXTERNAL_SEMAPHORE_HANDLE_TYPE_OPAQUE_FD;
  desc.handle.fd = fd = sim.sem_export_fd (tl);
  r = cu.cuImportExternalSemaphore (&es, &desc);
  CHECK (r == CUDA_ERROR_INVALID_VALUE, "timeline fd imported as binary -> "
      "INVALID_VALUE (%d)", r);
  close (fd);

  desc.type = CU_EXTERNAL_SEMAPHORE_HANDLE_TYPE_OPAQUE_WIN32;
  r = cu.cuImportExternalSemaphore (&es, &desc);
  CHECK (r == CUDA_ERROR_NOT_SUPPORTED, "win32 handle -> NOT_SUPPORTED");
  desc.type = CU_EXTERNAL_SEMAPHORE_HANDLE_TYPE_NVSCISYNC;
  desc.handle.nvSciSyncObj = NULL;
  r = cu.cuImportExternalSemaphore (&es, &desc);
  CHECK (r == CUDA_ERROR_INVALID_VALUE, "NvSciSync, NULL object -> "
      "INVALID_VALUE (%d)", r);
  desc.handle.nvSciSyncObj = &desc;
  r = cu.cuImportExternalSemaphore (&es, &desc);
  CHECK (r == CUDA_ERROR_INVALID_HANDLE, "NvSciSync, not an NvSciSyncObj "
      "-> INVALID_HANDLE (%d)", r);
  memset (&desc, 0, sizeof (desc));

  desc.type = CU_EXTERNAL_SEMAPHORE_HANDLE_TYPE_TIMELINE_SEMAPHORE_FD;
  desc.handle.fd = fd = sim.sem_export_fd (tl);
  r = cu.cuImportExternalSemaphore (&es, &desc);
  CHECK (r == CUDA_SUCCESS && !fd_is_open (fd),
      "successful import takes ownership of the fd (closed)");
  if (r == CUDA_SUCCESS)
    CU_OK (cu.cuDestroyExternalSemaphore (es));

  sim.sem_unref (bin);
  sim.sem_unref (tl);
}

/* ---- NvSciSync ---- */

static CUexternalSemaphore
import_nvsci (void *obj, CUresult * res)
{
  CUDA_EXTERNAL_SEMAPHORE_HANDLE_DESC desc;
  CUexternalSemaphore es = NULL;

  memset (&desc, 0, sizeof (desc));
  desc.type = CU_EXTERNAL_SEMAPHORE_HANDLE_TYPE_NVSCISYNC;
  desc.handle.nvSciSyncObj = obj;
  *res = cu.cuImportExternalSemaphore (&es, &desc);
  return es;
}

static CUresult
nvsci_signal (CUexternalSemaphore es, void *fence, unsigned flags, CUstream s)
{
  CUDA_EXTERNAL_SEMAPHORE_SIGNAL_PARAMS p;

  memset (&p, 0, sizeof (p));
  p.params.nvSciSync.fence = fence;
  p.flags = flags;
  return cu.cuSignalExternalSemaphoresAsync (&es, &p, 1, s);
}

static CUresult
nvsci_wait (CUexternalSemaphore es, void *fence, unsigned flags, CUstream s)
{
  CUDA_EXTERNAL_SEMAPHORE_WAIT_PARAMS p;

  memset (&p, 0, sizeof (p));
  p.params.nvSciSync.fence = fence;
  p.flags = flags;
  return cu.cuWaitExternalSemaphoresAsync (&es, &p, 1, s);
}

/* what test_nvsci's steps share */
typedef struct
{
  uint8_t f1[CUDASIM_NVSCI_FENCE_SIZE], f2[CUDASIM_NVSCI_FENCE_SIZE];
  uint8_t f3[CUDASIM_NVSCI_FENCE_SIZE], zero[CUDASIM_NVSCI_FENCE_SIZE];
  void *obj, *obj_nosig, *obj_nowait;
  CUexternalSemaphore es, es2, es_nosig, es_nowait, es_tl;
  CUstream sa, sb;
  CUdeviceptr d;
  int live0, tl;
} NvsciFixture;

/* two streams, a 1-byte allocation, an object with two imported handles */
static void
nvsci_setup (NvsciFixture * x)
{
  CUresult r;

  memset (x->zero, 0, sizeof (x->zero));
  x->live0 = sim.nvsci_live_fences ();
  CU_OK (cu.cuStreamCreate (&x->sa, CU_STREAM_NON_BLOCKING));
  CU_OK (cu.cuStreamCreate (&x->sb, CU_STREAM_NON_BLOCKING));
  CU_OK (cu.cuMemAlloc_v2 (&x->d, 1));
  CU_OK (cu.cuMemsetD8_v2 (x->d, 0, 1));
  x->obj = sim.nvsci_obj_create (1, 1);
  CHECK (x->obj != NULL, "NvSciSync object created");
  x->es = import_nvsci (x->obj, &r);
  CU_OK (r);
  x->es2 = import_nvsci (x->obj, &r);
  CU_OK (r);
}

/* signal writes the fence at call time; the count moves at execution */
static void
nvsci_first_signal (NvsciFixture * x)
{
  unsigned char v = 0;
  double t0, t;

  memset (x->f1, 0, sizeof (x->f1));
  memset (x->f2, 0, sizeof (x->f2));
  sim.set_delay_us ("cuMemsetD8Async", 200000);
  CU_OK (cu.cuMemsetD8Async (x->d, 3, 1, x->sa));
  CU_OK (nvsci_signal (x->es, x->f1, 0, x->sa));
  CHECK (memcmp (x->f1, x->zero, sizeof (x->f1)) != 0 &&
      sim.nvsci_fence_value (x->f1) == 1, "first signal wrote fence value 1 "
      "at call time (%llu)",
      (unsigned long long) sim.nvsci_fence_value (x->f1));
  CHECK (sim.nvsci_obj_get_value (x->obj) == 0, "count still 0 while the "
      "signal is queued behind the delayed memset");
  CHECK (sim.nvsci_live_fences () == x->live0 + 1, "one live fence");
  t0 = now_ms ();
  CU_OK (nvsci_wait (x->es2, x->f1, 0, x->sb));
  CU_OK (cu.cuMemcpyDtoHAsync_v2 (&v, x->d, 1, x->sb));
  CU_OK (cu.cuStreamSynchronize (x->sb));
  t = now_ms () - t0;
  CHECK (v == 3 && t >= 150, "a wait on the fence (other handle, other "
      "stream) ran after the signal (saw %d after %.0f ms)", v, t);
  CHECK (sim.nvsci_obj_get_value (x->obj) == 1, "count 1");
  sim.set_delay_us ("cuMemsetD8Async", 0);
}

/* the second value, CPU waits, cleared fences, SKIP_NVSCIBUF_MEMSYNC */
static void
nvsci_second_signal (NvsciFixture * x)
{
  CU_OK (nvsci_signal (x->es, x->f2,
          CUDA_EXTERNAL_SEMAPHORE_SIGNAL_SKIP_NVSCIBUF_MEMSYNC, x->sa));
  CHECK (sim.nvsci_fence_value (x->f2) == 2, "second signal: value 2");
  CHECK (sim.nvsci_fence_wait (x->f2, 5000ull * 1000000) == 0 &&
      sim.nvsci_obj_get_value (x->obj) == 2, "CPU fence wait returns at 2");
  CHECK (sim.nvsci_fence_wait (x->zero, 0) == 0, "a cleared fence has expired");
  CU_OK (nvsci_wait (x->es, x->zero, 0, x->sb));
  CU_OK (nvsci_wait (x->es, x->f2,
          CUDA_EXTERNAL_SEMAPHORE_WAIT_SKIP_NVSCIBUF_MEMSYNC, x->sb));
  CU_OK (cu.cuStreamSynchronize (x->sb));
  CHECK (sim.nvsci_obj_flags (x->obj) ==
      (CUDA_EXTERNAL_SEMAPHORE_SIGNAL_SKIP_NVSCIBUF_MEMSYNC |
          CUDA_EXTERNAL_SEMAPHORE_WAIT_SKIP_NVSCIBUF_MEMSYNC),
      "SKIP_NVSCIBUF_MEMSYNC flags recorded (0x%x)",
      sim.nvsci_obj_flags (x->obj));
}

static void
nvsci_invalid_params (NvsciFixture * x)
{
  CUDA_EXTERNAL_SEMAPHORE_SIGNAL_PARAMS p;
  uint8_t bogus[CUDASIM_NVSCI_FENCE_SIZE];
  CUresult r;

  memset (x->f3, 0, sizeof (x->f3));
  CHECK (nvsci_signal (x->es, x->f3,
          CUDA_EXTERNAL_SEMAPHORE_WAIT_SKIP_NVSCIBUF_MEMSYNC,
          x->sa) == CUDA_ERROR_INVALID_VALUE &&
      memcmp (x->f3, x->zero, 48) == 0,
      "signal with the wait flag -> INVALID_VALUE, fence untouched");
  CHECK (nvsci_wait (x->es, x->f2,
          CUDA_EXTERNAL_SEMAPHORE_SIGNAL_SKIP_NVSCIBUF_MEMSYNC,
          x->sb) == CUDA_ERROR_INVALID_VALUE, "wait with the signal flag -> "
      "INVALID_VALUE");
  CHECK (nvsci_signal (x->es, NULL, 0, x->sa) == CUDA_ERROR_INVALID_VALUE,
      "signal without fence storage -> INVALID_VALUE");
  x->tl = sim.sem_create (CUDASIM_SEM_TIMELINE, 0);
  x->es_tl = import_sem (x->tl,
      CU_EXTERNAL_SEMAPHORE_HANDLE_TYPE_TIMELINE_SEMAPHORE_FD, &r);
  CU_OK (r);
  memset (&p, 0, sizeof (p));
  p.params.fence.value = 1;
  p.flags = CUDA_EXTERNAL_SEMAPHORE_SIGNAL_SKIP_NVSCIBUF_MEMSYNC;
  CHECK (cu.cuSignalExternalSemaphoresAsync (&x->es_tl, &p, 1, x->sa) ==
      CUDA_ERROR_INVALID_VALUE, "flags on a timeline semaphore -> "
      "INVALID_VALUE (must be zero)");
  memset (bogus, 0x5a, sizeof (bogus));
  CHECK (nvsci_wait (x->es, bogus, 0, x->sb) == CUDA_ERROR_INVALID_VALUE,
      "wait on bytes that are no fence -> INVALID_VALUE");
}

static void
nvsci_permissions (NvsciFixture * x)
{
  CUresult r;

  x->obj_nosig = sim.nvsci_obj_create (0, 1);
  x->obj_nowait = sim.nvsci_obj_create (1, 0);
  x->es_nosig = import_nvsci (x->obj_nosig, &r);
  CU_OK (r);
  x->es_nowait = import_nvsci (x->obj_nowait, &r);
  CU_OK (r);
  CHECK (nvsci_signal (x->es_nosig, x->f3, 0, x->sa) ==
      CUDA_ERROR_NOT_SUPPORTED && memcmp (x->f3, x->zero, 48) == 0,
      "signal without signal permission -> NOT_SUPPORTED at the signal, no "
      "fence written");
  CU_OK (nvsci_signal (x->es_nowait, x->f3, 0, x->sa));
  CHECK (nvsci_wait (x->es_nowait, x->f3, 0, x->sb) ==
      CUDA_ERROR_NOT_SUPPORTED, "wait without wait permission -> "
      "NOT_SUPPORTED");
  CHECK (nvsci_wait (x->es, x->f3, 0, x->sb) == CUDA_ERROR_INVALID_VALUE,
      "wait on another object's fence -> INVALID_VALUE");
  CU_OK (cu.cuStreamSynchronize (x->sa));
  CHECK (sim.nvsci_fence_clear (x->f3) == 0 &&
      memcmp (x->f3, x->zero, 48) == 0, "fence cleared and zeroed");
}

/* uncleared storage, copies of cleared fences, double clears */
static void
nvsci_fence_misuse (NvsciFixture * x)
{
  uint8_t copy[CUDASIM_NVSCI_FENCE_SIZE];
  unsigned before;

  before = sim.violation_count ();
  CU_OK (nvsci_signal (x->es, x->f1, 0, x->sa));        /* f1 still holds value 1 */
  CHECK (sim.violation_count () == before + 1 &&
      sim.nvsci_fence_value (x->f1) == 3,
      "signal into uncleared fence storage: violation (leak): %s",
      sim.last_violation ()? sim.last_violation () : "(none)");
  CU_OK (cu.cuStreamSynchronize (x->sa));

  memcpy (copy, x->f2, sizeof (copy));
  CHECK (sim.nvsci_fence_clear (x->f2) == 0, "clear fence 2");
  before = sim.violation_count ();
  CHECK (nvsci_wait (x->es, copy, 0, x->sb) == CUDA_ERROR_INVALID_VALUE &&
      sim.violation_count () == before + 1,
      "wait on a copy of a cleared fence: violation: %s",
      sim.last_violation ()? sim.last_violation () : "(none)");
  before = sim.violation_count ();
  CHECK (sim.nvsci_fence_clear (copy) == -1 &&
      sim.violation_count () == before + 1,
      "clearing the copy again: double clear violation: %s",
      sim.last_violation ()? sim.last_violation () : "(none)");
  CHECK (sim.nvsci_fence_clear (copy) == 0, "clearing a cleared fence: no-op");
}

/* out of order: the slow stream's signal (value 4) executes after the fast
 * stream's (value 5) */
static void
nvsci_out_of_order (NvsciFixture * x)
{
  unsigned before;

  memset (x->f2, 0, sizeof (x->f2));
  memset (x->f3, 0, sizeof (x->f3));
  before = sim.violation_count ();
  sim.set_delay_us ("cuMemsetD8Async", 100000);
  CU_OK (cu.cuMemsetD8Async (x->d, 1, 1, x->sa));
  CU_OK (nvsci_signal (x->es, x->f2, 0, x->sa));
  CU_OK (nvsci_signal (x->es, x->f3, 0, x->sb));
  CU_OK (cu.cuStreamSynchronize (x->sa));
  CU_OK (cu.cuStreamSynchronize (x->sb));
  sim.set_delay_us ("cuMemsetD8Async", 0);
  CHECK (sim.nvsci_fence_value (x->f2) == 4 &&
      sim.nvsci_fence_value (x->f3) == 5 &&
      sim.violation_count () >= before + 1,
      "deterministic signals executed out of order: violation: %s",
      sim.last_violation ()? sim.last_violation () : "(none)");
}

static void
nvsci_attributes (void)
{
  unsigned char v = 0;
  CUresult r;

  r = cu.cuDeviceGetNvSciSyncAttributes (&v, 0, CUDA_NVSCISYNC_ATTR_SIGNAL);
  CHECK (r == CUDA_ERROR_NOT_SUPPORTED, "cuDeviceGetNvSciSyncAttributes "
      "without a libnvscisync in the process -> NOT_SUPPORTED (%d)", r);
}

/* frees the objects (checking what outlives them), and everything else */
static void
nvsci_lifetime (NvsciFixture * x)
{
  CUresult r;

  sim.nvsci_obj_free (x->obj_nosig);
  CHECK (import_nvsci (x->obj_nosig, &r) == NULL &&
      r == CUDA_ERROR_INVALID_HANDLE,
      "a freed object can no longer be imported (%d)", r);
  CU_OK (cu.cuDestroyExternalSemaphore (x->es_nosig));
  sim.nvsci_obj_free (x->obj);
  CHECK (sim.nvsci_fence_wait (x->f3, 5000ull * 1000000) == 0,
      "uncleared fences keep their object alive after NvSciSyncObjFree");
  sim.nvsci_fence_clear (x->f1);
  sim.nvsci_fence_clear (x->f2);
  sim.nvsci_fence_clear (x->f3);
  CHECK (sim.nvsci_live_fences () == x->live0 + 1, "every fence cleared but "
      "the one overwritten above, which leaked (%d live)",
      sim.nvsci_live_fences () - x->live0);
  CU_OK (cu.cuDestroyExternalSemaphore (x->es));
  CU_OK (cu.cuDestroyExternalSemaphore (x->es2));
  CU_OK (cu.cuDestroyExternalSemaphore (x->es_nowait));
  CU_OK (cu.cuDestroyExternalSemaphore (x->es_tl));
  sim.nvsci_obj_free (x->obj_nowait);
  sim.sem_unref (x->tl);
  CU_OK (cu.cuMemFree_v2 (x->d));
  CU_OK (cu.cuStreamDestroy_v2 (x->sa));
  CU_OK (cu.cuStreamDestroy_v2 (x->sb));
}

static void
test_nvsci (void)
{
  NvsciFixture x;

  memset (&x, 0, sizeof (x));
  SECTION ("NvSciSync: fences, deterministic values, permissions");
  nvsci_setup (&x);
  nvsci_first_signal (&x);
  nvsci_second_signal (&x);
  SECTION ("NvSciSync: invalid parameters");
  nvsci_invalid_params (&x);
  SECTION ("NvSciSync: permissions (cuda.h: NOT_SUPPORTED)");
  nvsci_permissions (&x);
  SECTION ("NvSciSync: violations");
  nvsci_fence_misuse (&x);
  nvsci_out_of_order (&x);
  SECTION ("NvSciSync: attributes");
  nvsci_attributes ();
  SECTION ("NvSciSync: lifetime");
  nvsci_lifetime (&x);
}

static void
test_violations (void)
{
  CUstream s, s_dead;
  CUevent ev_dead;
  CUexternalSemaphore es, es_bin;
  unsigned before;
  int tl, bin;
  CUresult r;

  SECTION ("violations (record mode)");
  sim.reset_counters ();
  CU_OK (cu.cuStreamCreate (&s, CU_STREAM_NON_BLOCKING));
  tl = sim.sem_create (CUDASIM_SEM_TIMELINE, 5);
  bin = sim.sem_create (CUDASIM_SEM_BINARY, 0);
  es = import_sem (tl, CU_EXTERNAL_SEMAPHORE_HANDLE_TYPE_TIMELINE_SEMAPHORE_FD,
      &r);
  CU_OK (r);
  es_bin = import_sem (bin, CU_EXTERNAL_SEMAPHORE_HANDLE_TYPE_OPAQUE_FD, &r);
  CU_OK (r);

  before = sim.violation_count ();
  CHECK (sim.sem_host_signal (tl, 3) == -1 &&
      sim.violation_count () == before + 1,
      "host signal with a lower timeline value: %s",
      sim.last_violation ()? sim.last_violation () : "(none)");

  before = sim.violation_count ();
  r = sem_signal (es, 5, s);
  CHECK (r == CUDA_ERROR_INVALID_VALUE && sim.violation_count () == before + 1,
      "non-increasing timeline signal detected at call time (%d): %s", r,
      sim.last_violation ()? sim.last_violation () : "(none)");

  before = sim.violation_count ();
  sim.set_delay_us ("cuSignalExternalSemaphoresAsync", 50000);
  CU_OK (sem_signal (es, 10, s));
  CU_OK (sem_signal (es, 10, s));
  CU_OK (cu.cuStreamSynchronize (s));
  sim.set_delay_us ("cuSignalExternalSemaphoresAsync", 0);
  CHECK (sim.violation_count () == before + 1 && sim.last_violation () &&
      strstr (sim.last_violation (), "non-increasing"),
      "non-increasing timeline signal detected at execution time: %s",
      sim.last_violation ()? sim.last_violation () : "(none)");

  before = sim.violation_count ();
  CU_OK (sem_signal (es_bin, 0, s));
  CU_OK (sem_signal (es_bin, 0, s));
  CU_OK (cu.cuStreamSynchronize (s));
  CHECK (sim.violation_count () == before + 1 && sim.last_violation () &&
      strstr (sim.last_violation (), "binary semaphore") &&
      strstr (sim.last_violation (), "twice"),
      "binary semaphore double signal: %s",
      sim.last_violation ()? sim.last_violation () : "(none)");
  before = sim.violation_count ();
  CHECK (sim.sem_host_signal (bin, 1) == -1 &&
      sim.violation_count () == before + 1, "host double signal");

  before = sim.violation_count ();
  CU_OK (sem_wait (es, 1000, s));
  CU_OK (cu.cuDestroyExternalSemaphore (es));
  CHECK (sim.violation_count () == before + 1 && sim.last_violation () &&
      strstr (sim.last_violation (), "1 pending operations"),
      "destroy with pending operations: %s",
      sim.last_violation ()? sim.last_violation () : "(none)");
  CU_OK (cu.cuStreamSynchronize (s));
  CHECK (1, "the orphaned wait gave up, the stream drained");

  before = sim.violation_count ();
  r = sem_signal (es, 2000, s);
  CHECK (r == CUDA_ERROR_INVALID_HANDLE &&
      sim.violation_count () == before + 1 && sim.last_violation () &&
      strstr (sim.last_violation (), "use after destroy"),
      "external semaphore use after destroy (%d): %s", r,
      sim.last_violation ()? sim.last_violation () : "(none)");

  CU_OK (cu.cuStreamCreate (&s_dead, 0));
  CU_OK (cu.cuStreamDestroy_v2 (s_dead));
  before = sim.violation_count ();
  r = cu.cuStreamQuery (s_dead);
  CHECK (r == CUDA_ERROR_INVALID_HANDLE && sim.violation_count () == before + 1,
      "stream use after destroy (%d): %s", r,
      sim.last_violation ()? sim.last_violation () : "(none)");

  CU_OK (cu.cuEventCreate (&ev_dead, 0));
  CU_OK (cu.cuEventDestroy_v2 (ev_dead));
  before = sim.violation_count ();
  r = cu.cuEventRecord (ev_dead, s);
  CHECK (r == CUDA_ERROR_INVALID_HANDLE && sim.violation_count () == before + 1,
      "event use after destroy (%d): %s", r,
      sim.last_violation ()? sim.last_violation () : "(none)");

  before = sim.violation_count ();
  r = cu.cuStreamQuery ((CUstream) (uintptr_t) 0x1234560);
  CHECK (r == CUDA_ERROR_INVALID_HANDLE && sim.violation_count () == before,
      "garbage stream handle -> INVALID_HANDLE without a violation");

  CU_OK (cu.cuDestroyExternalSemaphore (es_bin));
  CU_OK (cu.cuStreamDestroy_v2 (s));
  sim.sem_unref (tl);
  sim.sem_unref (bin);
}

static int host_fn_order[4];
static int host_fn_n;
static CUresult host_fn_nested = CUDA_SUCCESS;

static void
host_fn (void *data)
{
  host_fn_order[host_fn_n++] = (int) (intptr_t) data;
  if ((intptr_t) data == 2) {
    CUcontext c;
    host_fn_nested = cu.cuCtxGetCurrent (&c);
  }
}

static void
test_host_func (void)
{
  CUstream s;
  unsigned before;

  SECTION ("host functions");
  CU_OK (cu.cuStreamCreate (&s, CU_STREAM_NON_BLOCKING));
  before = sim.violation_count ();
  CU_OK (cu.cuLaunchHostFunc (s, host_fn, (void *) 1));
  CU_OK (cu.cuLaunchHostFunc (s, host_fn, (void *) 2));
  CU_OK (cu.cuLaunchHostFunc (s, host_fn, (void *) 3));
  CU_OK (cu.cuStreamSynchronize (s));
  CHECK (host_fn_n == 3 && host_fn_order[0] == 1 && host_fn_order[1] == 2 &&
      host_fn_order[2] == 3, "host functions run in order");
  CHECK (host_fn_nested == CUDA_ERROR_NOT_PERMITTED &&
      sim.violation_count () == before + 1,
      "a CUDA call from a host function is a violation: %s",
      sim.last_violation ()? sim.last_violation () : "(none)");
  CU_OK (cu.cuStreamDestroy_v2 (s));
}

static void
test_fault_injection (void)
{
  CUdeviceptr p[4];
  CUresult r[4];
  CUstream s;
  CUexternalSemaphore es;
  int tl, i;

  SECTION ("fault injection");
  sim.reset_counters ();
  sim.inject_failure ("cuMemAlloc_v2", 3, CUDA_ERROR_OUT_OF_MEMORY);
  for (i = 0; i < 4; i++) {
    p[i] = 0;
    r[i] = cu.cuMemAlloc_v2 (&p[i], 64);
  }
  CHECK (r[0] == CUDA_SUCCESS && r[1] == CUDA_SUCCESS &&
      r[2] == CUDA_ERROR_OUT_OF_MEMORY && r[3] == CUDA_SUCCESS,
      "exactly the 3rd cuMemAlloc_v2 failed (%d %d %d %d)", r[0], r[1], r[2],
      r[3]);
  CHECK (sim.call_count ("cuMemAlloc_v2") == 4, "call count 4 (got %u)",
      sim.call_count ("cuMemAlloc_v2"));
  CHECK (sim.live_objects ("alloc") == 3, "the failed call allocated nothing");
  for (i = 0; i < 4; i++) {
    if (r[i] == CUDA_SUCCESS)
      CU_OK (cu.cuMemFree_v2 (p[i]));
  }

  CU_OK (cu.cuStreamCreate (&s, CU_STREAM_NON_BLOCKING));
  tl = sim.sem_create (CUDASIM_SEM_TIMELINE, 0);
  es = import_sem (tl, CU_EXTERNAL_SEMAPHORE_HANDLE_TYPE_TIMELINE_SEMAPHORE_FD,
      &r[0]);
  CU_OK (r[0]);
  sim.inject_failure ("cuSignalExternalSemaphoresAsync", 2,
      CUDA_ERROR_LAUNCH_FAILED);
  CU_OK (sem_signal (es, 1, s));
  r[1] = sem_signal (es, 2, s);
  CU_OK (cu.cuStreamSynchronize (s));
  CHECK (r[1] == CUDA_ERROR_LAUNCH_FAILED && sim.sem_get_value (tl) == 1,
      "the injected signal failure returned LAUNCH_FAILED and did nothing");
  CU_OK (sem_signal (es, 2, s));
  CU_OK (cu.cuStreamSynchronize (s));
  CHECK (sim.sem_get_value (tl) == 2, "later calls work again");

  sim.inject_failure ("cuStreamDestroy", 1, CUDA_ERROR_UNKNOWN);
  CHECK (cu.cuStreamDestroy_v2 (s) == CUDA_ERROR_UNKNOWN,
      "aliases share the injection (cuStreamDestroy / _v2)");
  sim.inject_failure ("cuStreamSynchronize", 1, CUDA_ERROR_UNKNOWN);
  sim.clear_failures ();
  CU_OK (cu.cuStreamSynchronize (s));
  CHECK (1, "cudasim_clear_failures disarms");
  CU_OK (cu.cuDestroyExternalSemaphore (es));
  CU_OK (cu.cuStreamDestroy_v2 (s));
  sim.sem_unref (tl);
}

typedef struct
{
  CUcontext ctx;
  unsigned syncs;
} SyncThreadData;

static void *
sync_thread (void *data)
{
  SyncThreadData *t = data;
  CUevent ev;

  cu.cuCtxPushCurrent_v2 (t->ctx);
  cu.cuEventCreate (&ev, 0);
  cu.cuEventRecord (ev, NULL);
  cu.cuCtxSynchronize ();
  cu.cuEventSynchronize (ev);
  cu.cuEventQuery (ev);
  cu.cuEventDestroy_v2 (ev);
  cu.cuCtxPopCurrent_v2 (NULL);
  t->syncs = sim.thread_cpu_syncs ();
  return NULL;
}

static void
test_cpu_syncs (void)
{
  CUstream s;
  CUdeviceptr d;
  unsigned char buf[16] = { 0 };
  pthread_t th;
  SyncThreadData td;

  SECTION ("CPU sync accounting");
  CU_OK (cu.cuStreamCreate (&s, 0));
  CU_OK (cu.cuMemAlloc_v2 (&d, sizeof (buf)));
  sim.reset_counters ();
  CHECK (sim.thread_cpu_syncs () == 0 && sim.total_cpu_syncs () == 0,
      "counters reset");
  CU_OK (cu.cuMemcpyHtoDAsync_v2 (d, buf, sizeof (buf), s));
  CU_OK (cu.cuStreamQuery (s) == CUDA_ERROR_NOT_READY ? CUDA_SUCCESS :
      cu.cuStreamQuery (s));
  CU_OK (cu.cuStreamSynchronize (s));
  CU_OK (cu.cuStreamSynchronize (s));
  CU_OK (cu.cuMemcpyHtoD_v2 (d, buf, sizeof (buf)));
  CU_OK (cu.cuMemcpyDtoH_v2 (buf, d, sizeof (buf)));
  td.ctx = ctx;
  td.syncs = 0;
  pthread_create (&th, NULL, sync_thread, &td);
  pthread_join (th, NULL);
  CHECK (sim.thread_cpu_syncs () == 4, "main thread: 4 syncs (got %u)",
      sim.thread_cpu_syncs ());
  CHECK (td.syncs == 2, "other thread: 2 syncs (got %u)", td.syncs);
  CHECK (sim.total_cpu_syncs () == 6, "total: 6 (got %u)",
      sim.total_cpu_syncs ());
  CU_OK (cu.cuMemFree_v2 (d));
  CU_OK (cu.cuStreamDestroy_v2 (s));
}

/* a wait for pending work on an event made without BLOCKING_SYNC is a
 * spinning wait; one on a blocking-sync event, or on a completed event,
 * is not */
static void
test_spin_waits (void)
{
  CUstream s;
  CUdeviceptr d;
  CUevent spin, sleep;
  unsigned char buf[16] = { 0 };

  SECTION ("spinning waits");
  CU_OK (cu.cuStreamCreate (&s, 0));
  CU_OK (cu.cuMemAlloc_v2 (&d, sizeof (buf)));
  CU_OK (cu.cuEventCreate (&spin, 0));
  CU_OK (cu.cuEventCreate (&sleep, CU_EVENT_BLOCKING_SYNC));
  sim.reset_counters ();
  sim.set_delay_us ("cuMemcpyHtoDAsync_v2", 50000);
  CU_OK (cu.cuMemcpyHtoDAsync_v2 (d, buf, sizeof (buf), s));
  CU_OK (cu.cuEventRecord (sleep, s));
  CU_OK (cu.cuEventRecord (spin, s));
  CU_OK (cu.cuEventSynchronize (sleep));
  CHECK (sim.spin_waits () == 0, "blocking-sync event: no spin (got %u)",
      sim.spin_waits ());
  CU_OK (cu.cuMemcpyHtoDAsync_v2 (d, buf, sizeof (buf), s));
  CU_OK (cu.cuEventRecord (spin, s));
  CU_OK (cu.cuEventSynchronize (spin));
  CHECK (sim.spin_waits () == 1, "pending spinning event: 1 (got %u)",
      sim.spin_waits ());
  CU_OK (cu.cuEventSynchronize (spin));
  CHECK (sim.spin_waits () == 1, "completed event: still 1 (got %u)",
      sim.spin_waits ());
  sim.set_delay_us (NULL, 0);
  CU_OK (cu.cuEventDestroy_v2 (spin));
  CU_OK (cu.cuEventDestroy_v2 (sleep));
  CU_OK (cu.cuMemFree_v2 (d));
  CU_OK (cu.cuStreamDestroy_v2 (s));
}

static void
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

static void
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

/* ------------------------------------------------------------------ */
/* concurrency: several "pipelines" at once                            */
/* ------------------------------------------------------------------ */

#define STRESS_THREADS 8
#define STRESS_ITERS 150

typedef struct
{
  int index;
  int errors;
} StressData;

static void *
stress_thread (void *data)
{
  StressData *t = data;
  CUcontext c;
  CUstream up, down;
  CUevent ev;
  CUexternalSemaphore es_up, es_down;
  CUdeviceptr d;
  CUresult r;
  unsigned char in[4096], out[4096];
  int tl, i, j;

  if (cu.cuCtxCreate_v2 (&c, 0, 0) != CUDA_SUCCESS) {
    t->errors++;
    return NULL;
  }
  tl = sim.sem_create (CUDASIM_SEM_TIMELINE, 0);
  es_up = import_sem (tl,
      CU_EXTERNAL_SEMAPHORE_HANDLE_TYPE_TIMELINE_SEMAPHORE_FD, &r);
  t->errors += r != CUDA_SUCCESS;
  es_down = import_sem (tl,
      CU_EXTERNAL_SEMAPHORE_HANDLE_TYPE_TIMELINE_SEMAPHORE_FD, &r);
  t->errors += r != CUDA_SUCCESS;
  t->errors += cu.cuMemAlloc_v2 (&d, sizeof (in)) != CUDA_SUCCESS;
  t->errors += cu.cuEventCreate (&ev, CU_EVENT_DISABLE_TIMING) != CUDA_SUCCESS;

  for (i = 0; i < STRESS_ITERS; i++) {
    /* fresh streams now and then, like elements restarting */
    if (i % 50 == 0) {
      if (i) {
        cu.cuStreamDestroy_v2 (up);
        cu.cuStreamDestroy_v2 (down);
      }
      t->errors += cu.cuStreamCreate (&up, i % 100 ? CU_STREAM_NON_BLOCKING :
          0) != CUDA_SUCCESS;
      t->errors += cu.cuStreamCreate (&down, 0) != CUDA_SUCCESS;
    }
    for (j = 0; j < (int) sizeof (in); j++)
      in[j] = (unsigned char) (i + j + t->index);
    memset (out, 0, sizeof (out));
    /* upload on one stream, signal; the other waits, downloads, and an
     * event orders the next upload after the download */
    t->errors += cu.cuMemcpyHtoDAsync_v2 (d, in, sizeof (in), up) != 0;
    t->errors += sem_signal (es_up, (uint64_t) i + 1, up) != 0;
    t->errors += sem_wait (es_down, (uint64_t) i + 1, down) != 0;
    t->errors += cu.cuMemcpyDtoHAsync_v2 (out, d, sizeof (out), down) != 0;
    t->errors += cu.cuEventRecord (ev, down) != 0;
    t->errors += cu.cuStreamWaitEvent (up, ev, 0) != 0;
    if (i % 3 == 0)
      t->errors += cu.cuEventSynchronize (ev) != 0;
    else
      t->errors += cu.cuStreamSynchronize (down) != 0;
    if (memcmp (in, out, sizeof (in)) != 0)
      t->errors++;
  }

  cu.cuStreamSynchronize (up);
  cu.cuStreamDestroy_v2 (up);
  cu.cuStreamDestroy_v2 (down);
  cu.cuEventDestroy_v2 (ev);
  cu.cuDestroyExternalSemaphore (es_up);
  cu.cuDestroyExternalSemaphore (es_down);
  sim.sem_unref (tl);
  cu.cuMemFree_v2 (d);
  cu.cuCtxDestroy_v2 (c);
  return NULL;
}

static void
test_concurrency (void)
{
  pthread_t th[STRESS_THREADS];
  StressData td[STRESS_THREADS];
  int i, errors = 0;
  unsigned viol = sim.violation_count ();
  double t0 = now_ms ();

  SECTION ("concurrency: 8 threads, each a context with two streams");
  sim.set_delay_us (NULL, 200);
  for (i = 0; i < STRESS_THREADS; i++) {
    td[i].index = i;
    td[i].errors = 0;
    pthread_create (&th[i], NULL, stress_thread, &td[i]);
  }
  for (i = 0; i < STRESS_THREADS; i++) {
    pthread_join (th[i], NULL);
    errors += td[i].errors;
  }
  sim.set_delay_us (NULL, 0);
  CHECK (errors == 0, "%d x %d semaphore-ordered round trips without "
      "errors or corrupt data (%d errors, %.0f ms)", STRESS_THREADS,
      STRESS_ITERS, errors, now_ms () - t0);
  CHECK (sim.violation_count () == viol, "no violations");
}

/* ------------------------------------------------------------------ */
/* environment variables (checked in child processes)                  */
/* ------------------------------------------------------------------ */

static int
child_env (void)
{
  int n = 0, i, bad = 0;
  CUuuid u[3];
  CUdeviceptr p[3];
  CUresult r[3];
  CUcontext c;
  CUstream s;
  double t0, t;

  if (cu.cuInit (0) != CUDA_SUCCESS || cu.cuDeviceGetCount (&n) != 0 || n != 3) {
    printf ("child: device count %d\n", n);
    return 1;
  }
  for (i = 0; i < 3; i++)
    bad |= cu.cuDeviceGetUuid_v2 (&u[i], i) != CUDA_SUCCESS;
  if (bad || !memcmp (&u[0], &u[1], sizeof (CUuuid)) ||
      !memcmp (&u[1], &u[2], sizeof (CUuuid)) ||
      !memcmp (&u[0], &u[2], sizeof (CUuuid))) {
    printf ("child: UUIDs not distinct\n");
    return 2;
  }
  cu.cuCtxCreate_v2 (&c, 0, 2);
  for (i = 0; i < 3; i++)
    r[i] = cu.cuMemAlloc_v2 (&p[i], 16);
  if (r[0] != CUDA_SUCCESS || r[1] != CUDA_ERROR_OUT_OF_MEMORY ||
      r[2] != CUDA_SUCCESS) {
    printf ("child: CUDASIM_FAIL not applied (%d %d %d)\n", r[0], r[1], r[2]);
    return 3;
  }
  cu.cuStreamCreate (&s, 0);
  t0 = now_ms ();
  cu.cuMemsetD8Async (p[0], 1, 16, s);
  cu.cuStreamSynchronize (s);
  t = now_ms () - t0;
  if (t < 140) {
    printf ("child: CUDASIM_DELAY + CUDASIM_DELAY_US not applied (%.0f ms)\n",
        t);
    return 4;
  }
  if (sim.sem_host_signal (sim.sem_create (CUDASIM_SEM_BINARY, 1), 1) != -1 ||
      sim.violation_count () != 1) {
    printf ("child: CUDASIM_VIOLATIONS=record not applied\n");
    return 5;
  }
  return 0;
}

static int
child_abort (void)
{
  int id = sim.sem_create (CUDASIM_SEM_BINARY, 0);

  sim.sem_host_signal (id, 1);
  sim.sem_host_signal (id, 1);  /* violation: aborts */
  return 0;
}

static const char *self_path = "/proc/self/exe";

static int
run_child (const char *mode, char *const envp_extra[], int *sig,
    char *err, size_t err_len)
{
  int pipefd[2], status = 0;
  pid_t pid;

  if (pipe (pipefd) != 0)
    return -1;
  pid = fork ();
  if (pid == 0) {
    int i;
    dup2 (pipefd[1], 2);
    close (pipefd[0]);
    for (i = 0; envp_extra[i]; i++)
      putenv (envp_extra[i]);
    execl (self_path, self_path, mode, (char *) NULL);
    _exit (127);
  }
  close (pipefd[1]);
  {
    size_t got = 0;
    ssize_t k;
    while (got + 1 < err_len &&
        (k = read (pipefd[0], err + got, err_len - 1 - got)) > 0)
      got += (size_t) k;
    err[got] = '\0';
  }
  close (pipefd[0]);
  waitpid (pid, &status, 0);
  *sig = WIFSIGNALED (status) ? WTERMSIG (status) : 0;
  return WIFEXITED (status) ? WEXITSTATUS (status) : -1;
}

/* --child-shared-sem: fd 3 is a timeline semaphore of the parent and fd 4
 * a VMM allocation (0x5a bytes). The child waits for value 5 on the GPU,
 * then copies the allocation into one of its own, checks it and signals
 * 6. */
static int
child_shared_sem (void)
{
  CUDA_EXTERNAL_SEMAPHORE_HANDLE_DESC desc;
  CUexternalSemaphore es = NULL;
  CUmemGenericAllocationHandle h;
  CUmemAccessDesc access;
  CUdeviceptr va = 0, dst = 0;
  unsigned char bytes[64];
  CUcontext c;
  CUstream s;
  int bad = 0, i;

  if (cu.cuInit (0) || cu.cuCtxCreate_v2 (&c, 0, 0) ||
      cu.cuStreamCreate (&s, 0))
    return 2;
  memset (&desc, 0, sizeof (desc));
  desc.type = CU_EXTERNAL_SEMAPHORE_HANDLE_TYPE_TIMELINE_SEMAPHORE_FD;
  desc.handle.fd = 3;
  if (cu.cuImportExternalSemaphore (&es, &desc))
    return 3;
  if (cu.cuMemImportFromShareableHandle (&h, (void *) (intptr_t) 4,
          CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR) ||
      cu.cuMemAddressReserve (&va, 2 << 20, 0, 0, 0) ||
      cu.cuMemMap (va, 2 << 20, 0, h, 0))
    return 4;
  memset (&access, 0, sizeof (access));
  access.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
  access.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
  if (cu.cuMemSetAccess (va, 2 << 20, &access, 1) ||
      cu.cuMemAlloc_v2 (&dst, sizeof (bytes)))
    return 5;
  /* stream order: the copy runs once the parent reached 5 */
  if (sem_wait (es, 5, s) || cu.cuMemcpyDtoDAsync_v2 (dst, va + 4096,
          sizeof (bytes), s) || sem_signal (es, 6, s) ||
      cu.cuStreamSynchronize (s) || cu.cuMemcpyDtoH_v2 (bytes, dst,
          sizeof (bytes)))
    return 6;
  for (i = 0; i < (int) sizeof (bytes); i++)
    bad |= bytes[i] != 0x5a;
  cu.cuDestroyExternalSemaphore (es);
  cu.cuMemUnmap (va, 2 << 20);
  cu.cuMemAddressFree (va, 2 << 20);
  cu.cuMemRelease (h);
  cu.cuMemFree_v2 (dst);
  cu.cuStreamDestroy_v2 (s);
  return bad ? 7 : 0;
}

/* Semaphores and VMM memory shared with another process: the value lives
 * in the semaphore's memfd, so a GPU wait in the child sees the parent's
 * host signal, and the parent's host wait sees the child's GPU signal. */
static void
test_cross_process (void)
{
  CUmemAllocationProp prop;
  CUmemGenericAllocationHandle h;
  CUmemAccessDesc access;
  CUdeviceptr va = 0;
  int id, fd, mfd = -1, status = 0, waited;
  pid_t pid;

  SECTION ("semaphores and memory shared between two processes");
  id = sim.sem_create (CUDASIM_SEM_TIMELINE, 0);
  fd = sim.sem_export_fd (id);
  memset (&prop, 0, sizeof (prop));
  prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
  prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
  prop.requestedHandleTypes = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
  CU_OK (cu.cuMemCreate (&h, 2 << 20, &prop, 0));
  CU_OK (cu.cuMemExportToShareableHandle (&mfd, h,
          CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0));
  CU_OK (cu.cuMemAddressReserve (&va, 2 << 20, 0, 0, 0));
  CU_OK (cu.cuMemMap (va, 2 << 20, 0, h, 0));
  memset (&access, 0, sizeof (access));
  access.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
  access.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
  CU_OK (cu.cuMemSetAccess (va, 2 << 20, &access, 1));
  pid = fork ();
  if (pid == 0) {
    dup2 (fd, 3);
    dup2 (mfd, 4);
    execl (self_path, self_path, "--child-shared-sem", (char *) NULL);
    _exit (127);
  }
  close (fd);
  close (mfd);
  sleep_ms (50);
  CHECK (sim.sem_get_value (id) == 0 && sim.sem_host_wait (id, 6, 0) != 0,
      "the child waits for 5 (value %llu)",
      (unsigned long long) sim.sem_get_value (id));
  CU_OK (cu.cuMemsetD8_v2 (va, 0x5a, 2 << 20));
  CHECK (sim.sem_host_signal (id, 5) == 0, "host signal 5");
  waited = sim.sem_host_wait (id, 6, 10ull * 1000000000ull);
  CHECK (waited == 0 && sim.sem_get_value (id) == 6, "the child's GPU "
      "signal 6 reached this process (value %llu)",
      (unsigned long long) sim.sem_get_value (id));
  waitpid (pid, &status, 0);
  CHECK (WIFEXITED (status) && WEXITSTATUS (status) == 0, "child read the "
      "shared memory after its GPU wait (status %d)", status);
  CU_OK (cu.cuMemUnmap (va, 2 << 20));
  CU_OK (cu.cuMemAddressFree (va, 2 << 20));
  CU_OK (cu.cuMemRelease (h));
  sim.sem_unref (id);
}

static void
test_limits (void)
{
  size_t v = 0;
  CUcontext popped = NULL;

  SECTION ("context limits (libgstcuda 1.26+)");
  CU_OK (cu.cuCtxGetLimit (&v, CU_LIMIT_STACK_SIZE));
  CHECK (v == 1024, "default stack size 1024 (got %zu)", v);
  CU_OK (cu.cuCtxSetLimit (CU_LIMIT_STACK_SIZE, 4096));
  CU_OK (cu.cuCtxGetLimit (&v, CU_LIMIT_STACK_SIZE));
  CHECK (v == 4096, "cuCtxSetLimit value read back (got %zu)", v);
  CU_OK (cu.cuCtxSetLimit (CU_LIMIT_STACK_SIZE, 1024));
  CU_OK (cu.cuCtxGetLimit (&v, CU_LIMIT_MALLOC_HEAP_SIZE));
  CHECK (v == 8 << 20, "default malloc heap 8 MiB (got %zu)", v);
  CHECK (cu.cuCtxGetLimit (&v, CU_LIMIT_SHMEM_SIZE) ==
      CUDA_ERROR_UNSUPPORTED_LIMIT, "CIG limit -> UNSUPPORTED_LIMIT");
  CHECK (cu.cuCtxSetLimit (CU_LIMIT_MAX, 1) == CUDA_ERROR_INVALID_VALUE &&
      cu.cuCtxGetLimit (NULL, CU_LIMIT_STACK_SIZE) ==
      CUDA_ERROR_INVALID_VALUE, "bad limit / NULL -> INVALID_VALUE");
  CU_OK (cu.cuCtxPopCurrent_v2 (&popped));
  CHECK (cu.cuCtxGetLimit (&v, CU_LIMIT_STACK_SIZE) ==
      CUDA_ERROR_INVALID_CONTEXT, "no current context -> INVALID_CONTEXT");
  CU_OK (cu.cuCtxPushCurrent_v2 (popped));
  sim.inject_failure ("cuCtxGetLimit", 1, CUDA_ERROR_UNKNOWN);
  CHECK (cu.cuCtxGetLimit (&v, CU_LIMIT_STACK_SIZE) == CUDA_ERROR_UNKNOWN,
      "CUDASIM_FAIL applies to cuCtxGetLimit");
}

/* counts the bytes of the pitch x rows buffer that are not what the memsets
 * of test_memset2d() left there */
static int
memset2d_errors (const unsigned char *h, size_t pitch, size_t rows)
{
  size_t r, c;
  int bad = 0;

  for (r = 0; r < rows; r++) {
    for (c = 0; c < pitch; c++) {
      unsigned char want = 0x11;
      if (r >= 1 && r < 4 && c < 100)
        want = 0xab;            /* D2D8Async, rows 1-3, 100 bytes */
      if (r >= 4 && r < 6 && c >= 16 && c < 36)
        want = (c % 2) ? 0x12 : 0x34;   /* D2D16Async 0x1234, 10 elements */
      if (r == 6 && c < 32) {
        static const unsigned char le[4] = { 0xef, 0xbe, 0xad, 0xde };
        want = le[c % 4];       /* D2D32Async 0xdeadbeef, 8 elements */
      }
      if (r == 7 && c >= 500)
        want = 0x77;            /* D2D8_v2, sync, 12 bytes */
      bad += h[r * pitch + c] != want;
    }
  }
  return bad;
}

static void
test_memset2d (void)
{
  CUdeviceptr d, d2;
  CUstream s;
  size_t pitch = 0, rows = 8;
  unsigned char *h;
  unsigned syncs;
  double t0, t;
  int bad;

  SECTION ("2D memsets (libgstcuda 1.26+)");
  CU_OK (cu.cuStreamCreate (&s, CU_STREAM_DEFAULT));
  CU_OK (cu.cuMemAllocPitch_v2 (&d, &pitch, 300, rows, 16));
  h = malloc (pitch * rows);
  CU_OK (cu.cuMemsetD8_v2 (d, 0x11, pitch * rows));
  sim.set_delay_us ("cuMemsetD2D8Async", 200000);
  t0 = now_ms ();
  CU_OK (cu.cuMemsetD2D8Async (d + pitch, pitch, 0xab, 100, 3, s));
  t = now_ms () - t0;
  CHECK (t < 100 && cu.cuStreamQuery (s) == CUDA_ERROR_NOT_READY,
      "cuMemsetD2D8Async returns at once (%.1f ms) and its delay keeps the "
      "stream busy", t);
  CU_OK (cu.cuMemsetD2D16Async (d + 4 * pitch + 16, pitch, 0x1234, 10, 2, s));
  CU_OK (cu.cuMemsetD2D32Async (d + 6 * pitch, pitch, 0xdeadbeef, 8, 1, s));
  syncs = sim.thread_cpu_syncs ();
  /* the NULL stream waits for the blocking stream's memsets */
  CU_OK (cu.cuMemsetD2D8_v2 (d + 7 * pitch + 500, pitch, 0x77, 12, 1));
  t = now_ms () - t0;
  CHECK (t >= 190 && sim.thread_cpu_syncs () == syncs + 1,
      "cuMemsetD2D8_v2 is synchronous through the NULL stream (%.0f ms, "
      "%u CPU sync)", t, sim.thread_cpu_syncs () - syncs);
  sim.set_delay_us ("cuMemsetD2D8Async", 0);
  CU_OK (cu.cuMemcpyDtoH_v2 (h, d, pitch * rows));
  bad = memset2d_errors (h, pitch, rows);
  CHECK (bad == 0, "2D memsets wrote exactly their rectangles (%d wrong "
      "bytes)", bad);
  CHECK (cu.cuMemsetD2D8Async (d, pitch, 1, pitch + 1, 2, s) ==
      CUDA_ERROR_INVALID_VALUE, "pitch < width -> INVALID_VALUE");
  CHECK (cu.cuMemsetD2D8Async (d, pitch, 1, 10, rows + 1, s) ==
      CUDA_ERROR_INVALID_VALUE, "beyond the allocation -> INVALID_VALUE");
  CHECK (cu.cuMemsetD2D16_v2 (d + 1, pitch, 1, 10, 1) ==
      CUDA_ERROR_INVALID_VALUE, "misaligned 16-bit memset -> INVALID_VALUE");
  CU_OK (cu.cuMemAlloc_v2 (&d2, pitch * rows));
  CU_OK (cu.cuMemcpyDtoD_v2 (d2, d, pitch * rows));
  memset (h, 0, pitch * rows);
  CU_OK (cu.cuMemcpyDtoH_v2 (h, d2, pitch * rows));
  CHECK (memset2d_errors (h, pitch, rows) == 0, "cuMemcpyDtoD_v2 copied "
      "the bytes");
  CU_OK (cu.cuMemFree_v2 (d2));
  CU_OK (cu.cuMemFree_v2 (d));
  CU_OK (cu.cuStreamDestroy_v2 (s));
  free (h);
}

/* Two CU_STREAM_DEFAULT streams are not ordered with each other (only each
 * with the legacy NULL stream): a reader on B that does not wait for an
 * event of A sees the bytes from before A's delayed write. */
static void
test_blocking_streams (void)
{
  CUstream a, b;
  CUevent ev;
  CUdeviceptr d, d2;
  unsigned char h[256];
  double t0, t;
  size_t i;
  int stale = 1, fresh = 1;

  SECTION ("two blocking streams are not ordered with each other");
  CU_OK (cu.cuStreamCreate (&a, CU_STREAM_DEFAULT));
  CU_OK (cu.cuStreamCreate (&b, CU_STREAM_DEFAULT));
  CU_OK (cu.cuEventCreate (&ev, CU_EVENT_DISABLE_TIMING));
  CU_OK (cu.cuMemAlloc_v2 (&d, sizeof (h)));
  CU_OK (cu.cuMemAlloc_v2 (&d2, 1));
  CU_OK (cu.cuMemsetD8_v2 (d, 0x11, sizeof (h)));
  sim.set_delay_us ("cuMemsetD2D8Async", 300000);

  CU_OK (cu.cuMemsetD2D8Async (d, 16, 0x22, 16, 16, a));
  t0 = now_ms ();
  CU_OK (cu.cuMemcpyDtoHAsync_v2 (h, d, sizeof (h), b));
  CU_OK (cu.cuStreamSynchronize (b));
  t = now_ms () - t0;
  for (i = 0; i < sizeof (h); i++)
    stale &= h[i] == 0x11;
  CHECK (stale && t < 150, "reader on blocking stream B saw the stale bytes "
      "after %.0f ms (A's write delayed 300 ms)", t);
  CU_OK (cu.cuStreamSynchronize (a));

  /* with an event wait, B is ordered after A */
  CU_OK (cu.cuMemsetD2D8Async (d, 16, 0x33, 16, 16, a));
  CU_OK (cu.cuEventRecord (ev, a));
  CU_OK (cu.cuStreamWaitEvent (b, ev, 0));
  CU_OK (cu.cuMemcpyDtoHAsync_v2 (h, d, sizeof (h), b));
  CU_OK (cu.cuStreamSynchronize (b));
  for (i = 0; i < sizeof (h); i++)
    fresh &= h[i] == 0x33;
  CHECK (fresh, "after cuStreamWaitEvent B sees A's write");

  /* through the legacy stream: A, then NULL-stream work, then B is ordered */
  CU_OK (cu.cuMemsetD2D8Async (d, 16, 0x44, 16, 16, a));
  CU_OK (cu.cuMemsetD8Async (d2, 0, 1, NULL));
  CU_OK (cu.cuMemcpyDtoHAsync_v2 (h, d, sizeof (h), b));
  CU_OK (cu.cuStreamSynchronize (b));
  fresh = 1;
  for (i = 0; i < sizeof (h); i++)
    fresh &= h[i] == 0x44;
  CHECK (fresh, "NULL-stream work between them orders B after A (legacy "
      "stream waits for A, B waits for the legacy stream)");
  sim.set_delay_us ("cuMemsetD2D8Async", 0);
  CU_OK (cu.cuEventDestroy_v2 (ev));
  CU_OK (cu.cuMemFree_v2 (d));
  CU_OK (cu.cuMemFree_v2 (d2));
  CU_OK (cu.cuStreamDestroy_v2 (a));
  CU_OK (cu.cuStreamDestroy_v2 (b));
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

static void
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

static void
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

static void
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

static void
test_env (void)
{
  static char e1[] = "CUDASIM_DEVICE_COUNT=3";
  static char e2[] = "CUDASIM_FAIL=cuMemAlloc_v2:2:CUDA_ERROR_OUT_OF_MEMORY";
  static char e3[] = "CUDASIM_DELAY=cuMemsetD8Async:100000";
  static char e4[] = "CUDASIM_DELAY_US=50000";
  static char e5[] = "CUDASIM_VIOLATIONS=record";
  static char a1[] = "CUDASIM_VIOLATIONS=abort";
  char *env_env[] = { e1, e2, e3, e4, e5, NULL };
  char *env_abort[] = { a1, NULL };
  char err[4096];
  int sig = 0, rc;

  SECTION ("environment variables (child processes)");
  rc = run_child ("--child-env", env_env, &sig, err, sizeof (err));
  CHECK (rc == 0 && sig == 0, "CUDASIM_DEVICE_COUNT / _FAIL / _DELAY / "
      "_DELAY_US / _VIOLATIONS=record honoured (child rc %d)", rc);
  rc = run_child ("--child-abort", env_abort, &sig, err, sizeof (err));
  CHECK (sig == SIGABRT && strstr (err, "cudasim: VIOLATION: ") &&
      strstr (err, "twice"), "abort mode prints the violation and aborts "
      "(signal %d, stderr: %.*s)", sig, (int) strcspn (err, "\n"), err);
}

int
main (int argc, char **argv)
{
  int threads_during, threads_after = -1, i;

  setvbuf (stdout, NULL, _IOLBF, 0);
  if (strchr (argv[0], '/'))
    self_path = argv[0];        /* /proc/self/exe is valgrind under valgrind */

  if (argc > 1) {
    /* child modes for test_env(): quiet loading */
    void *lib = dlopen ("libcuda.so.1", RTLD_NOW);
    if (!lib || !cudasim_lookup (&sim))
      return 100;
#define LOAD_(name) cu.name = (__typeof__ (cu.name)) dlsym (lib, #name);
    CU_FUNCS (LOAD_)
#undef LOAD_
        cu.cuCtxCreate_v2 = (CtxCreateV2Func) dlsym (lib, "cuCtxCreate_v2");
    if (strcmp (argv[1], "--child-env") == 0)
      return child_env ();
    if (strcmp (argv[1], "--child-abort") == 0)
      return child_abort ();
    if (strcmp (argv[1], "--child-shared-sem") == 0)
      return child_shared_sem ();
    return 101;
  }

  test_load ();
  sim.set_violation_mode (1);
  test_init ();
  test_contexts ();
  test_async_copy ();
  test_nonblocking_caller ();
  test_legacy_stream ();
  test_events ();
  test_semaphores ();
  test_import_errors ();
  test_nvsci ();
  test_violations ();
  test_host_func ();
  test_fault_injection ();
  test_cpu_syncs ();
  test_spin_waits ();
  test_extmem ();
  test_extmem_llvmpipe ();
  test_limits ();
  test_memset2d ();
  test_blocking_streams ();
  test_vmm ();
  test_stream_ordered ();
  test_ipc ();
  {
    CUstream s;
    CUdeviceptr d;
    cu.cuStreamCreate (&s, 0);
    cu.cuMemAlloc_v2 (&d, 1);
    cu.cuMemsetD8Async (d, 0, 1, s);    /* starts the stream's thread */
    cu.cuStreamSynchronize (s);
    threads_during = count_stream_threads ();
    cu.cuStreamDestroy_v2 (s);
    cu.cuMemFree_v2 (d);
  }
  test_concurrency ();
  test_env ();
  test_cross_process ();

  SECTION ("teardown: live objects and threads");
  CU_OK (cu.cuCtxDestroy_v2 (ctx));
  sim.drain ();
  CHECK (sim.live_objects ("context") == 0 && sim.live_objects ("stream") == 0
      && sim.live_objects ("event") == 0 && sim.live_objects ("extsem") == 0
      && sim.live_objects ("extmem") == 0 && sim.live_objects ("alloc") == 0
      && sim.live_objects ("hostalloc") == 0,
      "live objects back to zero (ctx %d stream %d event %d extsem %d "
      "extmem %d alloc %d hostalloc %d)", sim.live_objects ("context"),
      sim.live_objects ("stream"), sim.live_objects ("event"),
      sim.live_objects ("extsem"), sim.live_objects ("extmem"),
      sim.live_objects ("alloc"), sim.live_objects ("hostalloc"));
  CHECK (sim.live_objects ("bogus") == -1, "unknown kind -> -1");
  for (i = 0; i < 200; i++) {
    threads_after = count_stream_threads ();
    if (threads_after == 0)
      break;
    sleep_ms (10);
  }
  CHECK (threads_during > 0 && threads_after == 0, "stream threads exited "
      "(%d while streams existed, %d after teardown)", threads_during,
      threads_after);

  printf ("\n%d checks, %d failures\n", checks, failures);
  return failures ? 1 : 0;
}

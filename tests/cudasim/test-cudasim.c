/* cudasim self-test: plain C, loads libcuda.so.1 from the library search
 * path (run with LD_LIBRARY_PATH=<builddir>/tests/cudasim) and checks the
 * simulator's semantics.
 *
 * This file: loading, initialisation, contexts, limits and main(), which
 * runs every test in order, then checks that nothing is left alive (or runs
 * a child mode).  The other tests are in test-cudasim-*.c by topic, the
 * state and helpers they share in test-cudasim-common.c (see
 * test-cudasim.h).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "test-cudasim.h"

#include <dirent.h>
#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

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

/* ------------------------------------------------------------------ */
/* loading, initialisation, contexts, limits                           */
/* ------------------------------------------------------------------ */

void
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

void
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

void
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

void
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
  test_stream_depth ();
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

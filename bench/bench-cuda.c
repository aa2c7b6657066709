/* gst-cudasync
 * Copyright (C) 2026 gst-cudasync developers
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The bench's CUDA helpers: see cuda.h.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "bench-cuda.h"

#include <dlfcn.h>
#include <string.h>
#include <unistd.h>

#include <gst/cuda/gstcudaloader.h>
#include <gst/cuda/gstcudautils.h>

BenchDriver drv;

gboolean
cuda_load_driver (Bench * b, gchar ** error)
{
  void *lib = dlopen ("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  const gchar *missing = NULL;

  if (!lib) {
    *error = g_strdup_printf ("dlopen libcuda.so.1: %s", dlerror ());
    return FALSE;
  }
#define LOAD(name) G_STMT_START { \
    drv.name = dlsym (lib, G_STRINGIFY (name)); \
    if (!drv.name && !missing) missing = G_STRINGIFY (name); \
  } G_STMT_END
  LOAD (cuCtxSynchronize);
  LOAD (cuEventCreate);
  LOAD (cuEventRecord);
  LOAD (cuEventSynchronize);
  LOAD (cuStreamWaitEvent);
  LOAD (cuEventDestroy);
  LOAD (cuImportExternalSemaphore);
  LOAD (cuSignalExternalSemaphoresAsync);
  LOAD (cuWaitExternalSemaphoresAsync);
  LOAD (cuDestroyExternalSemaphore);
  LOAD (cuMemsetD32Async);
  LOAD (cuImportExternalMemory);
  LOAD (cuExternalMemoryGetMappedBuffer);
  LOAD (cuDestroyExternalMemory);
#undef LOAD
  /* cuda.h 13 maps cuEventElapsedTime to _v2; older drivers have only the
   * first one (same prototype) */
  drv.cuEventElapsedTime = dlsym (lib, G_STRINGIFY (cuEventElapsedTime));
  if (!drv.cuEventElapsedTime)
    drv.cuEventElapsedTime = dlsym (lib, "cuEventElapsedTime");
  if (!drv.cuEventElapsedTime && !missing)
    missing = "cuEventElapsedTime";
  drv.cuCtxGetFlags = dlsym (lib, "cuCtxGetFlags");

  if (missing) {
    *error = g_strdup_printf ("the CUDA driver lacks %s", missing);
    return FALSE;
  }
  b->is_sim = dlsym (lib, "cudasim_sem_create") != NULL;
  if (b->is_sim)
    b->sim_thread_cpu_syncs = (SimCountFunc) dlsym (lib,
        "cudasim_thread_cpu_syncs");
  return TRUE;
}

static const gchar *
cu_name (CUresult r)
{
  const char *name = NULL;

  if (CuGetErrorName (r, &name) == CUDA_SUCCESS && name)
    return name;
  return "CUDA_ERROR_?";
}

gchar *
cu_error (const gchar * call, CUresult r)
{
  return g_strdup_printf ("%s failed: %s (%d)", call, cu_name (r), (gint) r);
}

gboolean
ctx_sync (Bench * b, gchar ** error)
{
  CUresult r;

  if (!gst_cuda_context_push (b->ctx)) {
    if (error)
      *error = g_strdup ("could not push the CUDA context");
    return FALSE;
  }
  r = drv.cuCtxSynchronize ();
  gst_cuda_context_pop (NULL);
  if (r != CUDA_SUCCESS) {
    if (error)
      *error = cu_error ("cuCtxSynchronize", r);
    return FALSE;
  }
  return TRUE;
}

const gchar *
sched_name (gint flags)
{
  if (flags < 0)
    return NULL;
  switch (flags & CU_CTX_SCHED_MASK) {
    case CU_CTX_SCHED_AUTO:
      return "auto";
    case CU_CTX_SCHED_SPIN:
      return "spin";
    case CU_CTX_SCHED_YIELD:
      return "yield";
    case CU_CTX_SCHED_BLOCKING_SYNC:
      return "blocking-sync";
  }
  return "?";
}

void
describe_device (Bench * b)
{
  CUdevice dev;
  char name[256] = "";
  gint id = 0, v = 0;
  unsigned int flags = 0;

  g_object_get (b->ctx, "cuda-device-id", &id, NULL);
  b->r.ctx_flags = -1;
  if (!gst_cuda_context_push (b->ctx))
    return;
  if (CuDeviceGet (&dev, id) == CUDA_SUCCESS) {
    CuDeviceGetName (name, sizeof (name) - 1, dev);
    CuDeviceGetAttribute (&b->r.cc_major,
        CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev);
    CuDeviceGetAttribute (&b->r.cc_minor,
        CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev);
    CuDeviceGetAttribute (&b->r.sm_count,
        CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, dev);
  }
  if (CuDriverGetVersion (&v) == CUDA_SUCCESS)
    b->r.driver_version = v;
  if (drv.cuCtxGetFlags && drv.cuCtxGetFlags (&flags) == CUDA_SUCCESS)
    b->r.ctx_flags = (gint) flags;
  gst_cuda_context_pop (NULL);

  b->r.device = g_strdup_printf ("device %d \"%s\"", id, name[0] ? name : "?");
  b->r.driver = b->is_sim ? g_strdup ("SIMULATED CUDA driver (tests/cudasim; "
      "no GPU, no kernels)") : g_strdup_printf ("NVIDIA CUDA driver, API %d.%d",
      v / 1000, (v % 1000) / 10);
}

/* A GstCudaSemaphore on a new timeline semaphore from testsem. */
GstCudaSemaphore *
new_semaphore (Bench * b, TestSem ** ts_out, gchar ** error)
{
  TestSem *ts = test_sem_new (TRUE, 0);
  GstCudaSemaphore *sem;
  GError *err = NULL;
  gint fd;

  if (!ts) {
    *error = g_strdup ("could not create a timeline semaphore (testsem)");
    return NULL;
  }
  fd = test_sem_export_fd (ts);
  if (fd < 0) {
    test_sem_free (ts);
    *error = g_strdup ("could not export the semaphore as an fd");
    return NULL;
  }
  sem = gst_cuda_semaphore_import_fd (b->ctx,
      GST_CUDA_SEMAPHORE_HANDLE_TYPE_TIMELINE_FD, fd, &err);
  if (!sem) {
    *error = g_strdup_printf ("gst_cuda_semaphore_import_fd: %s", err->message);
    g_error_free (err);
    close (fd);
    test_sem_free (ts);
    return NULL;
  }
  *ts_out = ts;
  return sem;
}

/* Exports @ts as an fd and imports it with cuImportExternalSemaphore (a
 * raw timeline handle, no library object); call with ctx pushed. The fd is
 * closed on failure (the driver owns it on success). */
CUresult
import_timeline_raw (TestSem * ts, CUexternalSemaphore * ext)
{
  CUDA_EXTERNAL_SEMAPHORE_HANDLE_DESC desc;
  gint fd = test_sem_export_fd (ts);
  CUresult r;

  if (fd < 0)
    return CUDA_ERROR_INVALID_HANDLE;
  memset (&desc, 0, sizeof (desc));
  desc.type = CU_EXTERNAL_SEMAPHORE_HANDLE_TYPE_TIMELINE_SEMAPHORE_FD;
  desc.handle.fd = fd;
  r = drv.cuImportExternalSemaphore (ext, &desc);
  if (r != CUDA_SUCCESS)
    close (fd);
  return r;
}

CUresult
producer_setup (CUstream * stream, EvPair * pairs, guint n,
    GAsyncQueue * free_pairs)
{
  CUresult r = CuStreamCreate (stream, CU_STREAM_NON_BLOCKING);
  guint i;

  for (i = 0; r == CUDA_SUCCESS && i < n; i++) {
    r = drv.cuEventCreate (&pairs[i].e0, CU_EVENT_DEFAULT);
    if (r == CUDA_SUCCESS)
      r = drv.cuEventCreate (&pairs[i].ek, CU_EVENT_DEFAULT);
    if (r == CUDA_SUCCESS)
      r = drv.cuEventCreate (&pairs[i].e1, CU_EVENT_BLOCKING_SYNC);
    g_async_queue_push (free_pairs, &pairs[i]);
  }
  return r;
}

void
producer_teardown (Bench * b, CUstream stream, EvPair * pairs, guint n)
{
  guint i;

  if (!gst_cuda_context_push (b->ctx))
    return;
  if (stream) {
    CuStreamSynchronize (stream);
    CuStreamDestroy (stream);
  }
  for (i = 0; pairs && i < n; i++) {
    if (pairs[i].e0)
      drv.cuEventDestroy (pairs[i].e0);
    if (pairs[i].ek)
      drv.cuEventDestroy (pairs[i].ek);
    if (pairs[i].e1)
      drv.cuEventDestroy (pairs[i].e1);
  }
  gst_cuda_context_pop (NULL);
}

/* --- the spin kernel --- */

typedef int (*NvrtcCreateProgramFunc) (void **prog, const char *src,
    const char *name, int n_headers, const char *const *headers,
    const char *const *include_names);
typedef int (*NvrtcCompileProgramFunc) (void *prog, int n_opts,
    const char *const *opts);
typedef int (*NvrtcGetSizeFunc) (void *prog, size_t *size);
typedef int (*NvrtcGetDataFunc) (void *prog, char *data);
typedef int (*NvrtcDestroyProgramFunc) (void **prog);

/* Compiles spin.cu with NVRTC for this device: a cubin when NVRTC can make
 * one, else PTX. Returns the image (g_free) or NULL with *why set. */
static gchar *
nvrtc_compile (Bench * b, gchar ** why)
{
  const gchar *cuda_path = g_getenv ("CUDA_PATH");
  gchar *candidates[8];
  void *lib = NULL;
  guint n = 0, i;
  NvrtcCreateProgramFunc create;
  NvrtcCompileProgramFunc compile;
  NvrtcGetSizeFunc log_size, ptx_size, cubin_size;
  NvrtcGetDataFunc get_log, get_ptx, get_cubin;
  NvrtcDestroyProgramFunc destroy;
  gchar *image = NULL;
  gint pass;

  candidates[n++] = g_strdup ("libnvrtc.so.13");
  candidates[n++] = g_strdup ("libnvrtc.so.12");
  candidates[n++] = g_strdup ("libnvrtc.so");
  if (cuda_path)
    candidates[n++] = g_build_filename (cuda_path, "lib64", "libnvrtc.so",
        NULL);
  candidates[n++] = g_strdup ("/usr/local/cuda/lib64/libnvrtc.so");
  for (i = 0; i < n; i++) {
    if (!lib)
      lib = dlopen (candidates[i], RTLD_NOW | RTLD_LOCAL);
    g_free (candidates[i]);
  }
  if (!lib) {
    *why = g_strdup ("NVRTC (libnvrtc.so.13/.12) not found");
    return NULL;
  }
  create = (NvrtcCreateProgramFunc) dlsym (lib, "nvrtcCreateProgram");
  compile = (NvrtcCompileProgramFunc) dlsym (lib, "nvrtcCompileProgram");
  log_size = (NvrtcGetSizeFunc) dlsym (lib, "nvrtcGetProgramLogSize");
  get_log = (NvrtcGetDataFunc) dlsym (lib, "nvrtcGetProgramLog");
  ptx_size = (NvrtcGetSizeFunc) dlsym (lib, "nvrtcGetPTXSize");
  get_ptx = (NvrtcGetDataFunc) dlsym (lib, "nvrtcGetPTX");
  cubin_size = (NvrtcGetSizeFunc) dlsym (lib, "nvrtcGetCUBINSize");
  get_cubin = (NvrtcGetDataFunc) dlsym (lib, "nvrtcGetCUBIN");
  destroy = (NvrtcDestroyProgramFunc) dlsym (lib, "nvrtcDestroyProgram");
  if (!create || !compile || !log_size || !get_log || !ptx_size || !get_ptx
      || !destroy) {
    *why = g_strdup ("NVRTC lacks an entry point");
    return NULL;
  }

  /* pass 0: SASS for this GPU (cubin); pass 1: PTX for it (JIT) */
  for (pass = (cubin_size && get_cubin) ? 0 : 1; !image && pass < 2; pass++) {
    void *prog = NULL;
    gchar *arch = g_strdup_printf ("--gpu-architecture=%s_%d%d",
        pass == 0 ? "sm" : "compute", b->r.cc_major, b->r.cc_minor);
    const char *opts[] = { arch };
    size_t size = 0;
    int res;

    res = create (&prog, bench_kernel_source, "spin.cu", 0, NULL, NULL);
    if (res == 0)
      res = compile (prog, 1, opts);
    if (res != 0) {
      gchar *log = NULL;
      if (prog && log_size (prog, &size) == 0 && size > 1) {
        log = g_malloc0 (size + 1);
        get_log (prog, log);
      }
      g_free (*why);
      *why = g_strdup_printf ("NVRTC %s: error %d%s%s", arch, res,
          log ? ": " : "", log ? log : "");
      g_free (log);
    } else if (pass == 0 && cubin_size (prog, &size) == 0 && size > 0) {
      image = g_malloc0 (size);
      if (get_cubin (prog, image) != 0)
        g_clear_pointer (&image, g_free);
    } else if (pass == 1 && ptx_size (prog, &size) == 0 && size > 0) {
      image = g_malloc0 (size + 1);
      if (get_ptx (prog, image) != 0)
        g_clear_pointer (&image, g_free);
    }
    if (prog)
      destroy (&prog);
    if (image) {
      g_free (*why);
      *why = g_strdup_printf ("NVRTC (%s)", arch);
    }
    g_free (arch);
  }
  return image;
}

/* loads @image into the context (pushed); FALSE and the module unloaded */
static CUresult
kernel_module (Bench * b, const void *image)
{
  CUresult r = CuModuleLoadData (&b->kernel.module, image);

  if (r == CUDA_SUCCESS)
    r = CuModuleGetFunction (&b->kernel.func, b->kernel.module,
        BENCH_KERNEL_NAME);
  if (r != CUDA_SUCCESS && b->kernel.module)
    CuModuleUnload (b->kernel.module);
  if (r != CUDA_SUCCESS)
    b->kernel.module = NULL;
  return r;
}

/* Loads the kernel into the context: the embedded fatbin, else NVRTC (not
 * on the simulator: NVRTC calls into libcuda.so.1 and crashes against the
 * simulated one). *info says which, or why there is none. */
static gboolean
kernel_load (Bench * b, gchar ** info)
{
  GString *why = g_string_new (bench_kernel_build_info);
  CUresult r = CUDA_ERROR_NOT_FOUND;
  gchar *nwhy = NULL, *image = NULL;

  if (!gst_cuda_context_push (b->ctx)) {
    *info = g_strdup ("could not push the CUDA context");
    g_string_free (why, TRUE);
    return FALSE;
  }
  if (bench_kernel_fatbin_size > 0) {
    r = kernel_module (b, bench_kernel_fatbin);
    if (r != CUDA_SUCCESS)
      g_string_append_printf (why, "; the fatbin: %s", cu_name (r));
  }
  if (r != CUDA_SUCCESS && b->is_sim) {
    g_string_append (why, "; NVRTC is not tried on the simulated driver");
  } else if (r != CUDA_SUCCESS && r != CUDA_ERROR_NOT_SUPPORTED) {
    image = nvrtc_compile (b, &nwhy);
    r = image ? kernel_module (b, image) : CUDA_ERROR_NOT_FOUND;
    if (r == CUDA_SUCCESS)
      g_string_printf (why, "%s (no usable fatbin)", nwhy);
    else
      g_string_append_printf (why, "; %s%s%s", nwhy, image ? ": " : "",
          image ? cu_name (r) : "");
    g_free (image);
    g_free (nwhy);
  }
  gst_cuda_context_pop (NULL);
  *info = g_string_free (why, FALSE);
  return r == CUDA_SUCCESS;
}

/* loaded once, later calls get the first answer (*info: a copy of it) */
static gboolean
kernel_load_once (Bench * b, gchar ** info)
{
  if (!b->kernel.tried) {
    b->kernel.ok = kernel_load (b, &b->kernel.info);
    b->kernel.tried = TRUE;
  }
  *info = g_strdup (b->kernel.info);
  return b->kernel.ok;
}

void
kernel_unload (Bench * b)
{
  if (b->kernel.module && gst_cuda_context_push (b->ctx)) {
    CuModuleUnload (b->kernel.module);
    gst_cuda_context_pop (NULL);
  }
  b->kernel.module = NULL;
}

CUresult
frame_write (Bench * b, const FrameSpec * spec, GstBuffer * buf,
    guint8 * data, guint frame)
{
  GstVideoMeta *vmeta = buf ? gst_buffer_get_video_meta (buf) : NULL;
  const GstVideoFormatInfo *finfo = spec->info.finfo;
  unsigned long long plane[2] = { 0, 0 }, pitch[2] = { 0, 0 };
  unsigned int words[2] = { 0, 0 }, rows[2] = { 0, 0 };
  unsigned long long spin_ns = (unsigned long long) spec->gpu_us * 1000;
  unsigned int seed = frame * 2654435761u;
  guint p, n_planes = MIN (GST_VIDEO_INFO_N_PLANES (&spec->info), 2);
  CUresult r = CUDA_SUCCESS;

  for (p = 0; p < n_planes; p++) {
    gint comp[GST_VIDEO_MAX_COMPONENTS];
    gsize offset = vmeta ? vmeta->offset[p] :
        GST_VIDEO_INFO_PLANE_OFFSET (&spec->info, p);
    gint stride = vmeta ? vmeta->stride[p] :
        GST_VIDEO_INFO_PLANE_STRIDE (&spec->info, p);

    gst_video_format_info_component (finfo, p, comp);
    plane[p] = (unsigned long long) (guintptr) data + offset;
    pitch[p] = stride;
    words[p] = GST_VIDEO_INFO_COMP_WIDTH (&spec->info, comp[0]) *
        GST_VIDEO_INFO_COMP_PSTRIDE (&spec->info, comp[0]) / 4;
    rows[p] = GST_VIDEO_INFO_COMP_HEIGHT (&spec->info, comp[0]);
  }

  if (spec->writer == WRITER_KERNEL) {
    void *args[] = { &plane[0], &pitch[0], &words[0], &rows[0],
      &plane[1], &pitch[1], &words[1], &rows[1], &spin_ns, &seed
    };
    return CuLaunchKernel (b->kernel.func, spec->grid, 1, 1, 256, 1, 1, 0,
        spec->stream, args, NULL);
  }

  for (p = 0; r == CUDA_SUCCESS && p < n_planes; p++)
    r = drv.cuMemsetD32Async ((CUdeviceptr) plane[p], seed + p,
        (size_t) pitch[p] * rows[p] / 4, spec->stream);
  return r;
}

gchar *
frame_writer_pick (Bench * b, FrameWriter * writer, gchar ** label,
    gchar ** info)
{
  gchar *why = NULL;

  *writer = b->opt.writer;
  if (*writer != WRITER_MEMSET) {
    if (kernel_load_once (b, info)) {
      *writer = WRITER_KERNEL;
      g_print ("  kernel: %s\n", *info);
    } else if (*writer == WRITER_KERNEL || b->is_sim) {
      why = g_strdup_printf ("%s: the spin kernel is not available (%s). %s",
          b->is_sim ? "SKIPPED on the simulated CUDA driver, which cannot "
          "run kernels" : "SKIPPED", *info, b->is_sim ? "Use "
          "--frame-writer=memset to exercise the harness on it." : "");
    } else {
      /* a real GPU without the kernel: still measure the handoff with
       * memset frames, clearly labelled */
      g_print ("  WARNING: the spin kernel is not available (%s); frames are "
          "written with cuMemsetD32Async and only the 0 ms GPU-work "
          "configurations run\n", *info);
      *writer = WRITER_MEMSET;
    }
  }
  *label = g_strdup (why ? "none" : *writer == WRITER_KERNEL ? "kernel" :
      "memset (cuMemsetD32Async per plane; no GPU busy-wait)");
  return why;
}

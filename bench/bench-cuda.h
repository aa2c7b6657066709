/* gst-cudasync
 * Copyright (C) 2026 gst-cudasync developers
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The bench's CUDA helpers: the driver entry points libgstcuda does not
 * provide (on every supported GStreamer), the spin kernel and the frame
 * writer, events, semaphores, the device description.
 */
#pragma once

#include <gst/video/video.h>
#include <gst/cudasync/cudasync.h>

#include "bench.h"
#include "testsem.h"

G_BEGIN_DECLS

/* bench-kernel.c, which embed-kernel.py generates at build time: nvcc's
 * fatbin of spin.cu (sm_90 SASS + compute_75 PTX; size 0 when the build
 * had no working nvcc), spin.cu itself for NVRTC at run time, and how the
 * fatbin was made or why there is none */
extern const unsigned char bench_kernel_fatbin[];
extern const size_t bench_kernel_fatbin_size;
extern const char bench_kernel_source[];
extern const char bench_kernel_build_info[];

/* the kernel's name in spin.cu */
#define BENCH_KERNEL_NAME "bench_write_frame"

/* The driver entry points the bench calls that libgstcuda's loader does
 * not export in GStreamer 1.22 (the others are called through it: CuStreamCreate,
 * CuMemAlloc, CuLaunchKernel, ...). Resolved once, with dlsym from the
 * libcuda.so.1 libgstcuda loaded, under the names cuda.h maps them to
 * (cuEventDestroy -> cuEventDestroy_v2, ...); read-only afterwards. */
#define BENCH_DECL_FN(name) __typeof__ (name) * name
typedef struct
{
  BENCH_DECL_FN (cuCtxSynchronize);
  BENCH_DECL_FN (cuEventCreate);
  BENCH_DECL_FN (cuEventRecord);
  BENCH_DECL_FN (cuEventSynchronize);
  BENCH_DECL_FN (cuStreamWaitEvent);
  BENCH_DECL_FN (cuEventDestroy);
  BENCH_DECL_FN (cuEventElapsedTime);
  BENCH_DECL_FN (cuImportExternalSemaphore);
  BENCH_DECL_FN (cuSignalExternalSemaphoresAsync);
  BENCH_DECL_FN (cuWaitExternalSemaphoresAsync);
  BENCH_DECL_FN (cuDestroyExternalSemaphore);
  BENCH_DECL_FN (cuMemsetD32Async);
  /* scenario 3 mode d (the raw-API path) */
  BENCH_DECL_FN (cuImportExternalMemory);
  BENCH_DECL_FN (cuExternalMemoryGetMappedBuffer);
  BENCH_DECL_FN (cuDestroyExternalMemory);
  /* optional */
  BENCH_DECL_FN (cuCtxGetFlags);
} BenchDriver;

extern BenchDriver drv;

/* after gst_cuda_load_library (): fills drv, b->is_sim and
 * b->sim_thread_cpu_syncs */
gboolean   cuda_load_driver      (Bench * b, gchar ** error);
gchar *    cu_error              (const gchar * call, CUresult r);
/* cuCtxSynchronize on the bench's context; @error may be NULL */
gboolean   ctx_sync              (Bench * b, gchar ** error);
void       describe_device       (Bench * b);
const gchar * sched_name         (gint flags);

/* A GstCudaSemaphore on a new timeline semaphore from testsem. */
GstCudaSemaphore * new_semaphore (Bench * b, TestSem ** ts_out, gchar ** error);
/* Exports @ts as an fd and imports it with cuImportExternalSemaphore (a raw
 * timeline handle, no library object); call with the context pushed. */
CUresult   import_timeline_raw   (TestSem * ts, CUexternalSemaphore * ext);

typedef struct
{
  CUevent e0;                   /* producer stream, before the frame write */
  CUevent ek;                   /* producer stream, after the frame write */
  CUevent e1;                   /* legacy stream, after cudasemwait */
} EvPair;

/* A non-blocking producer stream and @n event pairs, each pushed to
 * @free_pairs; call with the context pushed. */
CUresult   producer_setup        (CUstream * stream, EvPair * pairs, guint n,
                                  GAsyncQueue * free_pairs);
/* synchronises and destroys what producer_setup made (NULL members skipped) */
void       producer_teardown     (Bench * b, CUstream stream, EvPair * pairs,
                                  guint n);

void       kernel_unload         (Bench * b);
/* the frame writer --frame-writer asks for: the spin kernel, else memset
 * (on a GPU, labelled), else none on the simulator. Returns why the
 * frames cannot be written (the caller skips, or fails with kernel), or
 * NULL; *label: for the JSON, *info: where the kernel came from (new) */
gchar *    frame_writer_pick     (Bench * b, FrameWriter * writer,
                                  gchar ** label, gchar ** info);

/* what one frame write needs */
typedef struct
{
  GstVideoInfo info;
  guint gpu_us;                 /* the kernel's busy-wait */
  FrameWriter writer;           /* KERNEL or MEMSET */
  guint grid;
  CUstream stream;
} FrameSpec;

/* The frame's GPU work on spec->stream (the kernel, or a memset per
 * plane); call with the context pushed. @buf (for its video meta) may be
 * NULL. */
CUresult   frame_write           (Bench * b, const FrameSpec * spec,
                                  GstBuffer * buf, guint8 * data, guint frame);

G_END_DECLS

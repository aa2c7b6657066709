/* gst-cudasync
 * Copyright (C) 2026 gst-cudasync developers
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Scenario 2g: the GPU gap between frames, without GStreamer.
 *
 * Scenario 2 at 5 ms of GPU work loses ~0.7 ms per frame in every variant
 * that queues frames ahead (2d), and the raw-API mode d of scenario 3 loses
 * about as much. 2g runs the spin kernel alone on one non-blocking stream,
 * no element, no pool, no pipeline, and adds one suspect at a time. Per
 * frame: E0, kernel (5 ms spin, one 1920x1080 RGBA frame written), EK, then
 * the variant's operation. The host keeps at most `depth` frames queued
 * (cuEventSynchronize on EK of frame n - depth before launching frame n).
 * gap = E0(n+1) - EK(n) on the GPU, i.e. what the GPU spent between two
 * kernels.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>

#include "bench.h"
#include "bench-cuda.h"

static const struct
{
  const gchar *key, *desc;
  guint depth;
} g_variant[G_N] = {
  {"kernel_q4", "kernel only, 4 frames queued", 4},
  {"kernel_q1", "kernel only, one frame at a time", 1},
  {"event_q4", "kernel + one more cuEventRecord, 4 queued", 4},
  {"signal_q4", "kernel + cuSignalExternalSemaphoresAsync (Vulkan timeline, "
        "imported fd), 4 queued", 4},
  {"signal_q1", "kernel + timeline signal, one frame at a time", 1},
  {"signal_q8", "kernel + timeline signal, 8 queued", 8},
  {"signal_other_stream_q4", "kernel; the signal on a second stream that "
        "waits for EK (cuStreamWaitEvent), 4 queued", 4},
};

#define G_MAX_Q 8
#define G_FRAMES 40

/* the frames' events */
typedef struct
{
  CUevent e0[G_FRAMES], ek[G_FRAMES], ex[G_FRAMES];
} GEvents;

static CUresult
g_events_create (GEvents * ev)
{
  CUresult r = CUDA_SUCCESS;
  guint i;

  memset (ev, 0, sizeof (*ev));
  for (i = 0; i < G_FRAMES && r == CUDA_SUCCESS; i++) {
    r = drv.cuEventCreate (&ev->e0[i], CU_EVENT_DEFAULT);
    if (r == CUDA_SUCCESS)
      r = drv.cuEventCreate (&ev->ek[i], CU_EVENT_DEFAULT);
    if (r == CUDA_SUCCESS)
      r = drv.cuEventCreate (&ev->ex[i], CU_EVENT_DISABLE_TIMING);
  }
  return r;
}

static void
g_events_destroy (GEvents * ev)
{
  guint i;

  for (i = 0; i < G_FRAMES; i++) {
    drv.cuEventDestroy (ev->e0[i]);
    drv.cuEventDestroy (ev->ek[i]);
    drv.cuEventDestroy (ev->ex[i]);
  }
}

/* the variant's operation after frame @n's kernel */
static CUresult
g_after_kernel (gint v, GEvents * ev, guint n, CUstream s1, CUstream s2,
    CUexternalSemaphore ext, guint64 * value)
{
  CUDA_EXTERNAL_SEMAPHORE_SIGNAL_PARAMS p;
  CUstream ss = s1;
  CUresult r = CUDA_SUCCESS;

  if (v == G_EVENT_Q4)
    return drv.cuEventRecord (ev->ex[n], s1);
  if (v == G_KERNEL_Q4 || v == G_KERNEL_Q1)
    return CUDA_SUCCESS;
  memset (&p, 0, sizeof (p));
  p.params.fence.value = ++(*value);
  if (v == G_SIGNAL_SEP_Q4) {
    ss = s2;
    r = drv.cuStreamWaitEvent (s2, ev->ek[n], 0);
  }
  if (r == CUDA_SUCCESS)
    r = drv.cuSignalExternalSemaphoresAsync (&ext, &p, 1, ss);
  return r;
}

/* the mean gap and the fps of frames 4 to the last */
static CUresult
g_measure (S2gResult * G, gint v, GEvents * ev)
{
  CUresult r = CUDA_SUCCESS;
  gdouble gap = 0;
  gfloat span = 0;
  guint n, k = 0;

  for (n = 4; n + 1 < G_FRAMES && r == CUDA_SUCCESS; n++, k++) {
    gfloat ms = 0;

    r = drv.cuEventElapsedTime (&ms, ev->ek[n], ev->e0[n + 1]);
    gap += ms * 1000.0;
  }
  if (r != CUDA_SUCCESS)
    return r;
  /* GPU time from frame 4's start to the last frame's end: the host clock
   * would also count frames queued before frame 4 */
  r = drv.cuEventElapsedTime (&span, ev->e0[4], ev->ek[G_FRAMES - 1]);
  if (r == CUDA_SUCCESS && span > 0)
    series_add (G->fps[v], (G_FRAMES - 4) / (span / 1e3));
  series_add (G->gap_us[v], gap / MAX (k, 1));
  return r;
}

/* one repetition of variant @v; call with the context pushed */
static gboolean
s2g_once (Bench * b, gint v, CUdeviceptr frame, CUstream s1, CUstream s2,
    CUexternalSemaphore ext, guint64 * value, gchar ** error)
{
  S2gResult *G = &b->r.s2g;
  guint depth = g_variant[v].depth, n;
  /* the same kernel launch as scenario 2 */
  FrameSpec spec;
  GEvents ev;
  CUresult r;

  memset (&spec, 0, sizeof (spec));
  spec.gpu_us = G->gpu_us;
  spec.writer = WRITER_KERNEL;
  spec.grid = MAX (b->r.sm_count, 1) * 4;
  spec.stream = s1;
  gst_video_info_set_format (&spec.info, GST_VIDEO_FORMAT_RGBA, 1920, 1080);

  r = g_events_create (&ev);
  if (r != CUDA_SUCCESS) {
    *error = cu_error ("cuEventCreate", r);
    return FALSE;
  }
  for (n = 0; n < G_FRAMES && r == CUDA_SUCCESS; n++) {
    if (n >= depth)
      r = drv.cuEventSynchronize (ev.ek[n - depth]);
    if (r == CUDA_SUCCESS)
      r = drv.cuEventRecord (ev.e0[n], s1);
    if (r == CUDA_SUCCESS)
      r = frame_write (b, &spec, NULL, (guint8 *) (guintptr) frame, n);
    if (r == CUDA_SUCCESS)
      r = drv.cuEventRecord (ev.ek[n], s1);
    if (r == CUDA_SUCCESS)
      r = g_after_kernel (v, &ev, n, s1, s2, ext, value);
  }
  if (r == CUDA_SUCCESS)
    r = CuStreamSynchronize (s1);
  if (r == CUDA_SUCCESS)
    r = CuStreamSynchronize (s2);
  if (r == CUDA_SUCCESS)
    r = g_measure (G, v, &ev);
  g_events_destroy (&ev);
  if (r != CUDA_SUCCESS) {
    *error = cu_error ("scenario 2g", r);
    return FALSE;
  }
  return TRUE;
}

/* the semaphore, streams and frame, the repetitions, the teardown */
static gchar *
s2g_measure (Bench * b, TestSem * ts)
{
  CUexternalSemaphore ext = NULL;
  CUstream s1 = NULL, s2 = NULL;
  CUdeviceptr frame = 0;
  guint64 value = 0;
  gchar *error = NULL;
  gint v, rep;
  CUresult r;

  if (!gst_cuda_context_push (b->ctx))
    return g_strdup ("cannot push the CUDA context");
  r = import_timeline_raw (ts, &ext);
  if (r != CUDA_SUCCESS) {
    gst_cuda_context_pop (NULL);
    return cu_error ("cuImportExternalSemaphore", r);
  }
  r = CuStreamCreate (&s1, CU_STREAM_NON_BLOCKING);
  if (r == CUDA_SUCCESS)
    r = CuStreamCreate (&s2, CU_STREAM_NON_BLOCKING);
  if (r == CUDA_SUCCESS)
    r = CuMemAlloc (&frame, 1920 * 4 * 1080);
  if (r != CUDA_SUCCESS) {
    gst_cuda_context_pop (NULL);
    return cu_error ("cuStreamCreate/cuMemAlloc", r);
  }
  for (rep = 0; rep < b->opt.repetitions && !error; rep++)
    for (v = 0; v < G_N && !error; v++) {
      s2g_once (b, v, frame, s1, s2, ext, &value, &error);
      bench_progress (&b->wd);
    }
  CuStreamSynchronize (s1);
  CuStreamSynchronize (s2);
  CuMemFree (frame);
  CuStreamDestroy (s1);
  CuStreamDestroy (s2);
  drv.cuDestroyExternalSemaphore (ext);
  gst_cuda_context_pop (NULL);
  return error;
}

static gboolean
run_scenario2g (Bench * b)
{
  S2gResult *G = &b->r.s2g;
  TestSem *ts;
  gchar *error = NULL, *info = NULL;
  gint v;

  G->gpu_us = b->opt.quick ? 1000 : 5000;
  G->frames = G_FRAMES - 4;
  for (v = 0; v < G_N; v++) {
    G->fps[v] = series_new ();
    G->gap_us[v] = series_new ();
  }
  g_print ("\nScenario 2g: GPU time between frames on one stream, no "
      "GStreamer (spin kernel %u us, 1920x1080 RGBA, %u frames, %d "
      "repetitions)\n", G->gpu_us, G->frames, b->opt.repetitions);
  if (!kernel_load_once (b, &info)) {
    set_str (b, &G->status, "skipped");
    G->reason = g_strdup_printf ("no kernel: %s", info);
    g_print ("  SKIPPED: %s\n", G->reason);
    g_free (info);
    return TRUE;
  }
  g_free (info);
  ts = test_sem_new (TRUE, 0);
  if (!ts)
    error = g_strdup ("could not create a timeline semaphore (testsem)");
  else
    error = s2g_measure (b, ts);
  if (error) {
    set_str (b, &G->status, "failed");
    G->reason = error;
    g_print ("  FAILED: %s\n", error);
    test_sem_free (ts);
    write_json (b);
    return FALSE;
  }
  test_sem_free (ts);

  set_str (b, &G->status, "ok");
  g_print ("  %-24s %9s %9s  %s\n", "variant", "fps", "gap-us", "what");
  g_print ("  %-24s %9s %9s\n", "", "median", "median");
  for (v = 0; v < G_N; v++)
    g_print ("  %-24s %9.1f %9.1f  %s\n", g_variant[v].key,
        series_median (G->fps[v]), series_median (G->gap_us[v]),
        g_variant[v].desc);
  write_json (b);
  return TRUE;
}

static void
json_s2g (Bench * b, JsonBuilder * jb)
{
  S2gResult *G = &b->r.s2g;
  gint v;

  jb_obj (jb, "scenario2g_gpu_gap");
  jb_str (jb, "status", G->status ? G->status : "not run");
  jb_str (jb, "reason", G->reason);
  jb_str (jb, "what", "spin kernel alone on one non-blocking stream, no "
      "GStreamer; gap_us = GPU time from the end event of frame n to the "
      "start event of frame n+1 (mean over a repetition)");
  jb_int (jb, "gpu_us", G->gpu_us);
  jb_int (jb, "frames", G->frames);
  jb_arr (jb, "variants");
  for (v = 0; v < G_N && G->status; v++) {
    jb_obj (jb, NULL);
    jb_str (jb, "key", g_variant[v].key);
    jb_str (jb, "what", g_variant[v].desc);
    jb_int (jb, "depth", g_variant[v].depth);
    jb_series (jb, "fps", G->fps[v]);
    jb_series (jb, "gap_us", G->gap_us[v]);
    jb_obj_end (jb);
  }
  jb_arr_end (jb);
  jb_obj_end (jb);
}

const BenchScenario bench_scenario_2g = {
  "2g", ONLY_2G, BENCH_RESULT_STATE (s2g), NULL, run_scenario2g, json_s2g
};

/* gst-cudasync
 * Copyright (C) 2026 gst-cudasync developers
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Scenario 6, scaling: 1, 2, 4, 8 pipelines of scenario 3 mode a at once,
 * each with its own producer thread, buffer pool, stream and recycler, all
 * on the bench's Vulkan device, producers started together; and as many
 * instances of scenario 3's raw-API mode d at once (the N-stream raw
 * limit: no GStreamer, each with its own CUDA stream and producer and
 * consumer threads, submitting to the bench device's one queue).
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <math.h>
#include <string.h>

#include "frames.h"

#define S6_MAX 8
#define S6_PAIRS 18

typedef struct
{
  Bench *b;
  S2Config *cfg;
  RunInputs in;
  EvPair pairs[S6_PAIRS];
  TestSem *ts_p;
#if GST_CHECK_VERSION(1, 24, 0)
  /* mode a_memory_stream: the producer writes on @stream, which its
   * pool's memory carries (in_mem: the same inputs with that pool) */
  GstCudaStream *stream;
  RunInputs in_mem;
#endif
  gint mode;                    /* of the configuration running */
  gboolean ok;
  gchar *error;
} S6Job;

static void
json_s6 (Bench * b, JsonBuilder * jb)
{
  S6Result *S = &b->r.s6;
  guint i, j;

  jb_obj (jb, "scenario6_scaling");
  jb_str (jb, "status", S->status);
  jb_str (jb, "reason", S->reason);
  jb_str (jb, "what", "mode a: N pipelines of scenario 3 mode a (producer "
      "acquire point -> cudatovulkan ! queue ! vulkandownload ! fakesink, "
      "1920x1080 RGBA), each with its own producer thread, buffer pool, "
      "stream and recycler, all on the bench's Vulkan device, producers "
      "started together; mode a_memory_stream (GStreamer 1.24+): a with "
      "the producer writing on a GstCudaStream that its pool's memory "
      "carries, which cudatovulkan then works on; mode d: N instances of "
      "scenario 3's raw-API mode d at once (the N-stream raw limit), each "
      "with its own CUDA stream, producer and consumer thread, all "
      "submitting to the bench device's queue; modes d_stall and d_split: "
      "as many instances of those modes");
  jb_str (jb, "aggregate", "aggregate_fps: all pipelines' measured frames / "
      "(last pipeline's end - first pipeline's start); "
      "process_cpu_us_per_frame: process CPU over the same window / those "
      "frames (includes other pipelines' warm-up frames that fall inside "
      "it); min/max_pipeline_fps: each pipeline's own fps");
  jb_int (jb, "repetitions", S->repetitions);
  jb_str (jb, "frame_writer", S->frame_writer);
  jb_arr (jb, "configs");
  for (i = 0; S->configs && i < S->configs->len; i++) {
    S6Config *c = g_ptr_array_index (S->configs, i);
    S6Config *one = NULL;

    S6Config *raw = NULL;

    for (j = 0; j < S->configs->len; j++) {
      S6Config *o = g_ptr_array_index (S->configs, j);
      if (o->n == 1 && o->gpu_us == c->gpu_us && o->mode == c->mode)
        one = o;
      if (o->n == c->n && o->gpu_us == c->gpu_us && o->mode == MODE_CV_D)
        raw = o;
    }
    jb_obj (jb, NULL);
    jb_str (jb, "mode", bench_mode_key (b, c->mode));
    jb_int (jb, "pipelines", c->n);
    jb_int (jb, "width", 1920);
    jb_int (jb, "height", 1080);
    jb_str (jb, "format", "RGBA");
    jb_num (jb, "gpu_work_ms", c->gpu_us / 1000.0);
    jb_str (jb, "status", c->status);
    jb_str (jb, "reason", c->reason);
    jb_int (jb, "frames_per_pipeline_per_repetition", c->pipes ?
        c->pipes[0].m[c->mode].frames : 0);
    jb_series (jb, "aggregate_fps", c->agg_fps);
    jb_series (jb, "process_cpu_us_per_frame", c->proc_cpu_us);
    jb_series (jb, "min_pipeline_fps", c->min_fps);
    jb_series (jb, "max_pipeline_fps", c->max_fps);
    jb_num (jb, "aggregate_fps_over_1_pipeline_median", one ?
        ratio (series_median (c->agg_fps), series_median (one->agg_fps)) : NAN);
    jb_num (jb, "process_cpu_per_frame_over_1_pipeline_median", one ?
        ratio (series_median (c->proc_cpu_us),
            series_median (one->proc_cpu_us)) : NAN);
    if (c->mode == MODE_S6_A || c->mode == MODE_S6_AM)
      jb_num (jb, "aggregate_fps_over_raw_median", raw ?
          ratio (series_median (c->agg_fps), series_median (raw->agg_fps)) :
          NAN);
    jb_str (jb, "bridge_path", c->path);
    jb_bool (jb, "element_stats_as_expected", c->stats_ok);
    jb_str (jb, "element_stats_note", c->stats_note);
    jb_obj_end (jb);
  }
  jb_arr_end (jb);
  jb_obj_end (jb);
}

static gpointer
s6_worker (gpointer data)
{
  S6Job *j = data;
  const RunInputs *in = &j->in;

#if GST_CHECK_VERSION(1, 24, 0)
  if (j->mode == MODE_S6_AM)
    in = &j->in_mem;
#endif
  j->ok = s2_run_once (j->b, j->cfg, j->mode, in, &j->error);
  return NULL;
}

#ifdef HAVE_CUDA_VULKAN
/* a skipped or failed scenario before any configuration */
static void
s6_end (Bench * b, const gchar * status, const gchar * why)
{
  g_print ("  %s\n", why);
  set_str (b, &b->r.s6.status, status);
  set_str (b, &b->r.s6.reason, why);
  write_json (b);
}
#endif

/* the elements, the Vulkan device, the frame writer; FALSE when the
 * scenario ends here (*ret: its result) */
static gboolean
s6_prepare (Bench * b, FrameWriter * writer, gboolean * ret)
{
  S6Result *S = &b->r.s6;
#ifdef HAVE_CUDA_VULKAN
  const gchar *need[] = { "cudatovulkan", "vulkandownload", "queue" };
  gchar *kinfo = NULL, *error = NULL, *why = NULL;
  guint i;

  *ret = TRUE;
  for (i = 0; !why && i < G_N_ELEMENTS (need); i++) {
    gchar *missing = missing_elements (&need[i], 1);

    if (missing)
      why = g_strdup_printf ("SKIPPED: element %s not found", need[i]);
    g_free (missing);
  }
  if (!why && !ensure_vulkan_device (b, &error))
    why = g_strdup_printf ("SKIPPED: %s", error);
  g_free (error);
  if (why) {
    s6_end (b, "skipped", why);
    g_free (why);
    return FALSE;
  }
  g_print ("  Vulkan device: %s\n", b->r.vulkan);

  *writer = b->opt.writer;
  if (*writer != WRITER_MEMSET) {
    if (kernel_load_once (b, &kinfo)) {
      *writer = WRITER_KERNEL;
    } else if (*writer == WRITER_KERNEL || b->is_sim) {
      why = g_strdup_printf ("%s: the spin kernel is not available "
          "(%s). %s", b->is_sim ? "SKIPPED on the simulated CUDA driver, "
          "which cannot run kernels" : "SKIPPED", kinfo, b->is_sim ? "Use "
          "--frame-writer=memset to exercise the harness on it." : "");
      set_str (b, &S->frame_writer, "none");
      s6_end (b, *writer == WRITER_KERNEL ? "failed" : "skipped", why);
      g_free (why);
      g_free (kinfo);
      *ret = *writer != WRITER_KERNEL;
      return FALSE;
    } else {
      *writer = WRITER_MEMSET;
    }
  }
  g_free (kinfo);
  set_str (b, &S->frame_writer, *writer == WRITER_KERNEL ? "kernel" :
      "memset (cuMemsetD32Async per plane; no GPU busy-wait)");
  return TRUE;
#else
  g_print ("  SKIPPED: built without Vulkan\n");
  set_str (b, &S->status, "skipped");
  set_str (b, &S->reason, "built without Vulkan (gstreamer-vulkan-1.0 or "
      "vulkan not found): no cudatovulkan");
  write_json (b);
  *ret = TRUE;
  return FALSE;
#endif
}

/* per pipeline: pool, stream, events, acquire semaphore (made once) */
static gboolean
s6_jobs_setup (Bench * b, S6Job * jobs, FrameWriter writer, gchar ** error)
{
  GstCaps *caps = cuda_caps ("RGBA", 1920, 1080);
  guint n_pairs = MIN ((guint) MAX (b->opt.in_flight, 8) + 2, S6_PAIRS);
  CUresult r;
  guint i;

  for (i = 0; i < S6_MAX && !*error; i++) {
    S6Job *j = &jobs[i];

    j->b = b;
    j->in.writer = writer;
    j->in.pool = new_pool (b, caps, b->opt.in_flight, error);
    if (!j->in.pool)
      break;
    j->in.sem_p = new_semaphore (b, &j->ts_p, error);
    if (!j->in.sem_p)
      break;
    j->in.free_pairs = g_async_queue_new ();
    if (!gst_cuda_context_push (b->ctx)) {
      *error = g_strdup ("could not push the CUDA context");
      break;
    }
    r = producer_setup (&j->in.pstream, j->pairs, n_pairs, j->in.free_pairs);
    gst_cuda_context_pop (NULL);
    if (r != CUDA_SUCCESS)
      *error = cu_error ("cuStreamCreate/cuEventCreate", r);
#if GST_CHECK_VERSION(1, 24, 0)
    if (!*error && !(j->stream = gst_cuda_stream_new (b->ctx)))
      *error = g_strdup ("gst_cuda_stream_new failed");
    if (*error)
      break;
    j->in_mem = j->in;
    j->in_mem.pstream = gst_cuda_stream_get_handle (j->stream);
    j->in_mem.pool = new_pool_with_stream (b, caps, b->opt.in_flight,
        j->stream, error);
#endif
  }
  gst_caps_unref (caps);
  return *error == NULL;
}

static void
s6_jobs_clear (Bench * b, S6Job * jobs)
{
  guint i;

  for (i = 0; i < S6_MAX; i++) {
    S6Job *j = &jobs[i];

    pool_free (j->in.pool);
#if GST_CHECK_VERSION(1, 24, 0)
    pool_free (j->in_mem.pool);
    if (j->stream && gst_cuda_context_push (b->ctx)) {
      CuStreamSynchronize (gst_cuda_stream_get_handle (j->stream));
      gst_cuda_context_pop (NULL);
    }
    gst_clear_cuda_stream (&j->stream);
#endif
    producer_teardown (b, j->in.pstream, j->pairs, S6_PAIRS);
    if (j->in.free_pairs)
      g_async_queue_unref (j->in.free_pairs);
    gst_clear_object (&j->in.sem_p);
    g_free (j->error);
  }
  gst_cuda_sync_wait_idle ();
  for (i = 0; i < S6_MAX; i++)
    test_sem_free (jobs[i].ts_p);
}

static S6Config *
s6_config_new (Bench * b, guint n, guint gpu_us, gint mode)
{
  S6Config *c = g_new0 (S6Config, 1);
  guint i, k;

  c->n = n;
  c->gpu_us = gpu_us;
  c->mode = mode;
  c->status = g_strdup ("not run");
  c->agg_fps = series_new ();
  c->proc_cpu_us = series_new ();
  c->min_fps = series_new ();
  c->max_fps = series_new ();
  c->stats_ok = TRUE;
  c->pipes = g_new0 (S2Config, c->n);
  for (i = 0; i < c->n; i++) {
    S2Config *pc = &c->pipes[i];

    pc->width = 1920;
    pc->height = 1080;
    pc->format = "RGBA";
    pc->gpu_us = c->gpu_us;
    for (k = 0; k < N_ALL_MODES; k++)
      mode_result_init (&pc->m[k]);
    pc->m[mode].frames = s34_frames (b, c->gpu_us, 1920);
    pc->m[mode].warmup = b->opt.quick ? 3 : 8;
    pc->m[mode].stats_name[0] = b->modes[mode]->stats[0];
    pc->m[mode].stats_name[1] = b->modes[mode]->stats[1];
  }
  return c;
}

/* One repetition: the pipelines at once, then the aggregate over their
 * windows. FALSE when a pipeline failed. */
static gboolean
s6_repetition (Bench * b, S6Config * c, S6Job * jobs, StartGate * gate)
{
  GThread *th[S6_MAX];
  gdouble t0 = G_MAXDOUBLE, t1 = 0, cpu0 = 0, cpu1 = 0, fmin = G_MAXDOUBLE,
      fmax = 0;
  gboolean ok = TRUE;
  guint frames = 0, i;

  gate->arrived = 0;
  gate->n = c->n;
  for (i = 0; i < c->n; i++) {
    jobs[i].cfg = &c->pipes[i];
    jobs[i].mode = c->mode;
    c->pipes[i].gate = gate;
    g_clear_pointer (&jobs[i].error, g_free);
    th[i] = g_thread_new ("bench-s6", s6_worker, &jobs[i]);
  }
  for (i = 0; i < c->n; i++)
    g_thread_join (th[i]);
  for (i = 0; i < c->n; i++) {
    ModeResult *m = &c->pipes[i].m[c->mode];
    gdouble f;

    if (!jobs[i].ok) {
      const gchar *err = jobs[i].error ? jobs[i].error : "?";
      gchar *e = g_strdup_printf ("pipeline %u: %s", i, err);
      /* the reason is the first failure that was not a stop */
      gboolean stop = g_str_has_suffix (err, BENCH_STOPPED);

      g_print ("    %u pipelines: FAILED: %s\n", c->n, e);
      if (!c->reason || (!stop && g_str_has_suffix (c->reason, BENCH_STOPPED)))
        set_str (b, &c->reason, e);
      if (!stop) {
        gchar *where = g_strdup_printf ("Scenario 6, mode %s, %u pipelines, "
            "%g ms, pipeline %u", bench_mode_key (b, c->mode), c->n,
            c->gpu_us / 1000.0,
            i);

        bench_check_device_lost (b, where, err);
        g_free (where);
      }
      set_str (b, &m->status, "failed");
      set_str (b, &m->error, err);
      g_free (e);
      ok = FALSE;
      continue;
    }
    if (m->last_t[0] < t0) {
      t0 = m->last_t[0];
      cpu0 = m->last_cpu[0];
    }
    if (m->last_t[1] > t1) {
      t1 = m->last_t[1];
      cpu1 = m->last_cpu[1];
    }
    frames += m->last_frames;
    f = g_array_index (m->fps, gdouble, m->fps->len - 1);
    fmin = MIN (fmin, f);
    fmax = MAX (fmax, f);
    if (!m->stats_ok) {
      c->stats_ok = FALSE;
      set_str (b, &c->stats_note, m->stats_note);
    }
    c->path = m->path;
  }
  if (!ok)
    return FALSE;
  g_mutex_lock (&b->lock);
  series_add (c->agg_fps, t1 > t0 ? frames / (t1 - t0) : NAN);
  series_add (c->proc_cpu_us, frames ? (cpu1 - cpu0) * 1e6 / frames : NAN);
  series_add (c->min_fps, fmin);
  series_add (c->max_fps, fmax);
  g_mutex_unlock (&b->lock);
  return TRUE;
}

/* one configuration (N pipelines, one GPU work); *any_run: it ran */
static gboolean
s6_config_run (Bench * b, S6Config * c, S6Config * one, S6Job * jobs,
    FrameWriter writer, gboolean * any_run)
{
  StartGate gate;
  gboolean cfg_ok = TRUE;
  gint rep;

  if (c->gpu_us > 0 && writer != WRITER_KERNEL) {
    set_str (b, &c->status, "skipped");
    set_str (b, &c->reason, "no spin kernel: frames are written with "
        "cuMemsetD32Async, which cannot busy-wait");
    return TRUE;
  }
  if (bench_time_is_up (&b->wd)) {
    set_str (b, &c->status, "skipped");
    set_str (b, &c->reason, "time limit reached (--time-limit)");
    g_print ("  %4s %9u %4.0f skipped, time limit reached\n",
        bench_mode_key (b, c->mode), c->n, c->gpu_us / 1000.0);
    return TRUE;
  }
  *any_run = TRUE;
  g_mutex_init (&gate.lock);
  g_cond_init (&gate.cond);
  for (rep = 0; rep < b->r.s6.repetitions && cfg_ok; rep++)
    cfg_ok = s6_repetition (b, c, jobs, &gate) && !bench_stopped (b);
  bench_run_idle (&b->wd);
  g_mutex_clear (&gate.lock);
  g_cond_clear (&gate.cond);
  set_str (b, &c->status, cfg_ok ? "ok" : "failed");
  if (cfg_ok) {
    g_print ("  %4s %9u %4.0f %9.0f %9.0f %9.0f %11.1f %9.2f%s%s\n",
        bench_mode_key (b, c->mode), c->n,
        c->gpu_us / 1000.0, series_median (c->agg_fps),
        series_median (c->min_fps), series_median (c->max_fps),
        series_median (c->proc_cpu_us), ratio (series_median (c->agg_fps),
            series_median (one->agg_fps)), c->path ? "  " : "",
        c->path ? c->path : "");
    if (!c->stats_ok)
      g_print ("    WARNING: unexpected element stats: %s\n", c->stats_note);
  }
  write_json (b);
  return cfg_ok;
}

/* the configurations and their table */
static gboolean
s6_run_configs (Bench * b, S6Job * jobs, FrameWriter writer, gboolean * any_run)
{
  static const guint counts[] = { 1, 2, 4, 8 };
  static const guint work_full[] = { 0, 5000 }, work_quick[] = { 0 };
  static const gint modes[] = { MODE_S6_A,
#if GST_CHECK_VERSION(1, 24, 0)
    MODE_S6_AM,
#endif
    MODE_CV_D
  };
  /* diagnosis, full runs only and after the others: on the H200, 8
   * instances of d_stall with 5 ms of GPU work once lost the device
   * (VK_ERROR_DEVICE_LOST), which fails every later configuration */
  static const gint diag_modes[] = { MODE_CV_D2, MODE_CV_D3 };
  S6Result *S = &b->r.s6;
  const guint *work = b->opt.quick ? work_quick : work_full;
  guint n_work = b->opt.quick ? 1 : 2, n_counts = b->opt.quick ? 2 : 4;
  gboolean all_ok = TRUE;
  guint wi, ci, mi;

  g_mutex_lock (&b->lock);
  /* per GPU work: a for 1, 2, 4, 8 pipelines, then d for as many; then
   * the diagnosis modes likewise */
  for (wi = 0; wi < n_work; wi++)
    for (mi = 0; mi < G_N_ELEMENTS (modes); mi++)
      for (ci = 0; ci < n_counts; ci++)
        g_ptr_array_add (S->configs, s6_config_new (b, counts[ci], work[wi],
                modes[mi]));
  for (wi = 0; !b->opt.quick && wi < n_work; wi++)
    for (mi = 0; mi < G_N_ELEMENTS (diag_modes); mi++)
      for (ci = 0; ci < n_counts; ci++)
        g_ptr_array_add (S->configs, s6_config_new (b, counts[ci], work[wi],
                diag_modes[mi]));
  g_mutex_unlock (&b->lock);
  set_str (b, &S->status, "running");

  g_print ("  %4s %9s %4s %9s %9s %9s %11s %9s\n", "mode", "pipelines", "gpu",
      "agg-fps", "min-pipe", "max-pipe", "proc-cpu", "agg-fps/");
  g_print ("  %4s %9s %4s %9s %9s %9s %11s %9s\n", "", "", "ms", "median",
      "fps", "fps", "us/frame", "1 pipe");
  for (ci = 0; ci < S->configs->len; ci++) {
    S6Config *c = g_ptr_array_index (S->configs, ci);
    /* the same mode and GPU work with 1 pipeline */
    S6Config *one = g_ptr_array_index (S->configs, (ci / n_counts) * n_counts);

    if (bench_stopped (b)) {
      gchar *why = bench_skip_reason (b);

      set_str (b, &c->status, "skipped");
      set_str (b, &c->reason, why);
      g_print ("  %4s %9u %4.0f skipped, the run was aborted\n",
          bench_mode_key (b, c->mode), c->n, c->gpu_us / 1000.0);
      g_free (why);
      all_ok = FALSE;
      continue;
    }
    all_ok &= s6_config_run (b, c, one, jobs, writer, any_run);
  }
  if (bench_stopped (b))
    write_json (b);
  return all_ok;
}

static gboolean
run_scenario6 (Bench * b)
{
  S6Result *S = &b->r.s6;
  S6Job jobs[S6_MAX];
  FrameWriter writer = b->opt.writer;
  gchar *error = NULL;
  gboolean all_ok = TRUE, any_run = FALSE, ret = TRUE;

  memset (jobs, 0, sizeof (jobs));
  S->repetitions = MIN (b->opt.repetitions, 3);
  g_print ("\nScenario 6: scaling: 1, 2, 4, 8 pipelines of scenario 3 mode a "
      "at once (1920x1080 RGBA, one producer thread each, shared Vulkan "
      "device; %d frames in flight each, %d repetitions)\n",
      b->opt.in_flight, S->repetitions);
  if (!s6_prepare (b, &writer, &ret))
    return ret;

  if (!s6_jobs_setup (b, jobs, writer, &error)) {
    g_print ("  FAILED: %s\n", error);
    set_str (b, &S->status, "failed");
    set_str (b, &S->reason, error);
    g_free (error);
    all_ok = FALSE;
  } else {
    all_ok = s6_run_configs (b, jobs, writer, &any_run);
    if (bench_stopped (b)) {
      gchar *why = bench_abort_reason (b);

      set_str (b, &S->status, "failed");
      set_str (b, &S->reason, why);
      g_free (why);
    } else {
      set_str (b, &S->status, all_ok ? (any_run ? "ok" : "skipped") : "failed");
      set_str (b, &S->reason, any_run ? NULL : "no configuration ran");
    }
  }
  s6_jobs_clear (b, jobs);
  write_json (b);
  return all_ok;
}

static void
s6_init (Bench * b)
{
  b->r.s6.status = g_strdup ("not run");
  b->r.s6.configs = g_ptr_array_new ();
}

/* the modes (besides scenario 3's raw ones) */

const BenchMode bench_mode_s6_a = {
  .key = "a",
  .desc = "scenario 3 mode a (producer acquire point -> cudatovulkan ! queue ! "
      "vulkandownload ! fakesink), one of N pipelines running at once on the "
      "shared Vulkan device",
  .flags = MODE_F_PENDING | MODE_F_WALL,
  .stats = {"cudatovulkan", NULL},
  .build_chain = s3_build_chain,
  .check_stats = s3_check_stats,
};

const BenchMode bench_mode_s6_am = {
  .key = "a_memory_stream",
  .desc =
      "as a, but the producer writes on a GstCudaStream that its pool sets on "
      "the memory (GStreamer 1.24+, as upstream CUDA producers do): "
      "cudatovulkan then works on that stream, one CUDA stream per pipeline "
      "instead of two",
  .flags = MODE_F_PENDING | MODE_F_WALL,
  .stats = {"cudatovulkan", NULL},
  .build_chain = s3_build_chain,
  .check_stats = s3_check_stats,
};

const BenchScenario bench_scenario_6 = {
  "6", 1 << 6, BENCH_RESULT_STATE (s6), s6_init, run_scenario6, json_s6
};

/* gst-cudasync
 * Copyright (C) 2026 gst-cudasync developers
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Several pipelines of one mode at once (BenchScaling, frames.h), started
 * together: their aggregate, table and JSON object.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <math.h>
#include <string.h>

#include "frames.h"

#define PIPES_MAX 8
#define PIPES_PAIRS 18

/* 1, 2, 4, 8 pipelines (--quick: 1, 2) at 0 and 5 ms (--quick: 0) */
static const guint pipes_counts[] = { 1, 2, 4, 8 };
static const guint pipes_work[] = { 0, 5000 };

typedef struct
{
  Bench *b;
  S2Config *cfg;
  RunInputs in;
  EvPair pairs[PIPES_PAIRS];
  TestSem *ts_p;
#if GST_CHECK_VERSION(1, 24, 0)
  /* MODE_F_POOL_STREAM: the producer writes on @stream, which its pool's
   * memory carries (in_mem: the same inputs with that pool) */
  GstCudaStream *stream;
  RunInputs in_mem;
#endif
  /* MODE_F_OWN_DEVICE: the pipeline's own Vulkan contexts, and the inputs
   * that carry them */
  GstContext *own[2];
  RunInputs in_own;
  gint mode;                    /* of the configuration running */
  gboolean ok;
  gchar *error;
} PipesJob;

void
scaling_json (Bench * b, const BenchScenario * scn, JsonBuilder * jb)
{
  S2Result *S = G_STRUCT_MEMBER_P (&b->r, scn->result);
  const BenchScaling *sc = scn->scaling;
  guint i, j;

  jb_obj (jb, sc->key);
  jb_str (jb, "status", S->status);
  jb_str (jb, "reason", S->reason);
  jb_str (jb, "what", sc->what);
  jb_str (jb, "aggregate", "aggregate_fps: all pipelines' measured frames "
      "over the union of their windows; process CPU over it per frame");
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
      if (o->n == c->n && o->gpu_us == c->gpu_us && o->mode == sc->raw_mode)
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
    if (!b->modes[c->mode]->run_once)
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
pipes_worker (gpointer data)
{
  PipesJob *j = data;
  const RunInputs *in = &j->in;

#if GST_CHECK_VERSION(1, 24, 0)
  if (j->b->modes[j->mode]->flags & MODE_F_POOL_STREAM)
    in = &j->in_mem;
#endif
  if (j->b->modes[j->mode]->flags & MODE_F_OWN_DEVICE) {
    /* opened once, outside the measured frames, kept until the end */
    if (!j->own[1] && !bench_vulkan_contexts_new (j->b, j->own, &j->error)) {
      j->ok = FALSE;
      return NULL;
    }
    j->in_own = *in;
    j->in_own.vk_ctx[0] = j->own[0];
    j->in_own.vk_ctx[1] = j->own[1];
    in = &j->in_own;
  }
  j->ok = s2_run_once (j->b, j->cfg, j->mode, in, &j->error);
  return NULL;
}

/* per pipeline: pool, stream, events, acquire semaphore (made once) */
static gboolean
pipes_jobs_setup (Bench * b, PipesJob * jobs, FrameWriter writer,
    gchar ** error)
{
  GstCaps *caps = cuda_caps ("RGBA", 1920, 1080);
  guint n_pairs = MIN ((guint) MAX (b->opt.in_flight, 8) + 2, PIPES_PAIRS);
  CUresult r;
  guint i;

  for (i = 0; i < PIPES_MAX && !*error; i++) {
    PipesJob *j = &jobs[i];

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
pipes_jobs_clear (Bench * b, PipesJob * jobs)
{
  guint i;

  for (i = 0; i < PIPES_MAX; i++) {
    PipesJob *j = &jobs[i];

    pool_free (j->in.pool);
#if GST_CHECK_VERSION(1, 24, 0)
    pool_free (j->in_mem.pool);
    if (j->stream && gst_cuda_context_push (b->ctx)) {
      CuStreamSynchronize (gst_cuda_stream_get_handle (j->stream));
      gst_cuda_context_pop (NULL);
    }
    gst_clear_cuda_stream (&j->stream);
#endif
    producer_teardown (b, j->in.pstream, j->pairs, PIPES_PAIRS);
    if (j->in.free_pairs)
      g_async_queue_unref (j->in.free_pairs);
    gst_clear_object (&j->in.sem_p);
    g_free (j->error);
  }
  gst_cuda_sync_wait_idle ();
  for (i = 0; i < PIPES_MAX; i++) {
    guint k;

    for (k = 0; k < 2; k++)
      if (jobs[i].own[k])
        gst_context_unref (jobs[i].own[k]);
  }
  for (i = 0; i < PIPES_MAX; i++)
    test_sem_free (jobs[i].ts_p);
}

static S6Config *
pipes_config_new (Bench * b, guint n, guint gpu_us, gint mode)
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
pipes_repetition (Bench * b, const BenchScaling * sc, S6Config * c,
    PipesJob * jobs, StartGate * gate)
{
  GThread *th[PIPES_MAX];
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
    th[i] = g_thread_new ("bench-pipes", pipes_worker, &jobs[i]);
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
        gchar *where = g_strdup_printf ("%s, mode %s, %u pipelines, "
            "%g ms, pipeline %u", sc->name, bench_mode_key (b, c->mode), c->n,
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
pipes_config_run (Bench * b, S2Result * S, const BenchScaling * sc,
    S6Config * c, S6Config * one, PipesJob * jobs, FrameWriter writer,
    gboolean * any_run)
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
    g_print ("  %14s %9u %4.0f skipped, time limit reached\n",
        bench_mode_key (b, c->mode), c->n, c->gpu_us / 1000.0);
    return TRUE;
  }
  *any_run = TRUE;
  g_mutex_init (&gate.lock);
  g_cond_init (&gate.cond);
  for (rep = 0; rep < S->repetitions && cfg_ok; rep++)
    cfg_ok = pipes_repetition (b, sc, c, jobs, &gate) && !bench_stopped (b);
  bench_run_idle (&b->wd);
  g_mutex_clear (&gate.lock);
  g_cond_clear (&gate.cond);
  set_str (b, &c->status, cfg_ok ? "ok" : "failed");
  if (cfg_ok) {
    g_print ("  %14s %9u %4.0f %9.0f %9.0f %9.0f %11.1f %9.2f%s%s\n",
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
pipes_run_configs (Bench * b, S2Result * S, const BenchScaling * sc,
    PipesJob * jobs, FrameWriter writer, gboolean * any_run)
{
  const guint *counts = pipes_counts, *work = pipes_work;
  guint n_work = b->opt.quick ? 1 : 2, n_counts = b->opt.quick ? 2 : 4;
  gboolean all_ok = TRUE;
  guint wi, ci, mi;

  g_mutex_lock (&b->lock);
  /* per GPU work: each mode for 1, 2, 4, 8 pipelines; then the late
   * modes likewise */
  for (wi = 0; wi < n_work; wi++)
    for (mi = 0; mi < sc->n_modes; mi++)
      for (ci = 0; ci < n_counts; ci++)
        g_ptr_array_add (S->configs, pipes_config_new (b, counts[ci], work[wi],
                sc->modes[mi]));
  for (wi = 0; !b->opt.quick && wi < n_work; wi++)
    for (mi = 0; mi < sc->n_late_modes; mi++)
      for (ci = 0; ci < n_counts; ci++)
        g_ptr_array_add (S->configs, pipes_config_new (b, counts[ci], work[wi],
                sc->late_modes[mi]));
  g_mutex_unlock (&b->lock);
  set_str (b, &S->status, "running");

  g_print ("  %14s %9s %4s %9s %9s %9s %11s %9s\n", "mode", "pipelines", "gpu",
      "agg-fps", "min-pipe", "max-pipe", "proc-cpu", "agg-fps/");
  g_print ("  %14s %9s %4s %9s %9s %9s %11s %9s\n", "", "", "ms", "median",
      "fps", "fps", "us/frame", "1 pipe");
  for (ci = 0; ci < S->configs->len; ci++) {
    S6Config *c = g_ptr_array_index (S->configs, ci);
    /* the same mode and GPU work with 1 pipeline */
    S6Config *one = g_ptr_array_index (S->configs, (ci / n_counts) * n_counts);

    if (bench_stopped (b)) {
      gchar *why = bench_skip_reason (b);

      set_str (b, &c->status, "skipped");
      set_str (b, &c->reason, why);
      g_print ("  %14s %9u %4.0f skipped, the run was aborted\n",
          bench_mode_key (b, c->mode), c->n, c->gpu_us / 1000.0);
      g_free (why);
      all_ok = FALSE;
      continue;
    }
    all_ok &= pipes_config_run (b, S, sc, c, one, jobs, writer, any_run);
  }
  if (bench_stopped (b))
    write_json (b);
  return all_ok;
}

gboolean
scaling_run (Bench * b, const BenchScenario * scn)
{
  S2Result *S = G_STRUCT_MEMBER_P (&b->r, scn->result);
  const BenchScaling *sc = scn->scaling;
  PipesJob jobs[PIPES_MAX];
  FrameWriter writer = b->opt.writer;
  gchar *error = NULL;
  gboolean all_ok = TRUE, any_run = FALSE, ret = TRUE;

  memset (jobs, 0, sizeof (jobs));
  S->repetitions = MIN (b->opt.repetitions, 3);
  g_print ("\n%s (%d frames in flight each, %d repetitions)\n", sc->title,
      b->opt.in_flight, S->repetitions);
  if (!section_start (b, S, sc->elements, &writer, &ret))
    return ret;

  if (!pipes_jobs_setup (b, jobs, writer, &error)) {
    g_print ("  FAILED: %s\n", error);
    set_str (b, &S->status, "failed");
    set_str (b, &S->reason, error);
    g_free (error);
    all_ok = FALSE;
  } else {
    all_ok = pipes_run_configs (b, S, sc, jobs, writer, &any_run);
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
  pipes_jobs_clear (b, jobs);
  write_json (b);
  return all_ok;
}

void
scaling_init (Bench * b, const BenchScenario * sc)
{
  S2Result *S = G_STRUCT_MEMBER_P (&b->r, sc->result);

  S->status = g_strdup ("not run");
  S->configs = g_ptr_array_new ();
}

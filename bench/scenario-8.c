/* gst-cudasync
 * Copyright (C) 2026 gst-cudasync developers
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Scenario 8, frames between processes: the configurations, their
 * results and JSON. bench/README.md describes the modes.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <math.h>
#include <string.h>
#include <glib/gstdio.h>

#include "scenario-8.h"
#include "frames.h"
#include "pipeline.h"

#define S8_WHAT "the producer writes each RGBA frame on its own stream " \
  "into the mode's sink; the consumer (another process; p: this one) reads " \
  "each frame on the GPU on its own stream. fps and CPU over the " \
  "consumer's window; latency from before the write to the read's end, " \
  "frames matched by their index"

/* ratios written and printed: {mode, over mode, target fps at 0 ms} */
static const struct
{
  gint m, ref;
  gdouble target;
} s8_ratios[] = {
  {S8_S, S8_U, 2.0}, {S8_S, S8_UM, 2.0}, {S8_S, S8_P, 0.9},
  {S8_SI, S8_U, 2.0}, {S8_SI, S8_UM, 2.0}, {S8_SI, S8_P, 0.9},
  {S8_SP, S8_U, 2.0}, {S8_SP, S8_UM, 2.0}, {S8_SP, S8_P, 0.9},
  {S8_SIP, S8_U, 2.0}, {S8_SIP, S8_UM, 2.0}, {S8_SIP, S8_P, 0.9},
};

static S8Config *
s8_config_new (gint width, gint height, guint gpu_us, guint frames,
    guint warmup)
{
  S8Config *c = g_new0 (S8Config, 1);
  guint k;

  c->width = width;
  c->height = height;
  c->format = "RGBA";
  c->gpu_us = gpu_us;
  c->frames = frames;
  c->warmup = warmup;
  c->status = g_strdup ("not run");
  for (k = 0; k < S8_N_MODES; k++) {
    S8ModeResult *m = &c->m[k];

    m->status = g_strdup ("not run");
    m->fps = series_new ();
    m->prod_cpu_us = series_new ();
    m->cons_cpu_us = series_new ();
    m->total_cpu_us = series_new ();
    m->lat_p50_us = series_new ();
    m->lat_p99_us = series_new ();
    m->dropped = series_new ();
    m->stats_ok = TRUE;
  }
  return c;
}

static gboolean
s8_ran (S8ModeResult * m)
{
  return g_strcmp0 (m->status, "ok") == 0 && m->fps->len > 0;
}

static gdouble
s8_median_ratio (GArray * a, GArray * b)
{
  return ratio (series_median (a), series_median (b));
}

/* --- JSON --- */

static gdouble
stat_per_frame (const GstStructure * st, const gchar * field, const gchar * per)
{
  guint64 v = 0, n = 0;

  if (st && gst_structure_get_uint64 (st, field, &v) &&
      gst_structure_get_uint64 (st, per, &n) && n > 0)
    return (gdouble) v / n;
  return NAN;
}

static gdouble
stat_value (const GstStructure * st, const gchar * field)
{
  guint64 v = 0;

  return st && gst_structure_get_uint64 (st, field, &v) ? (gdouble) v : NAN;
}

/* copies per frame of ours: the sink's (per frame sent) and the source's */
static gdouble
s8_copies (S8ModeResult * m)
{
  return stat_per_frame (m->sink_stats, "copies", "frames-sent") +
      stat_per_frame (m->src_stats, "copies", "frames");
}

static void
json_mode8 (JsonBuilder * jb, gint k, S8ModeResult * m)
{
  jb_obj (jb, s8_modes[k].key);
  jb_str (jb, "status", m->status);
  jb_str (jb, "error", m->error);
  jb_series (jb, "fps", m->fps);
  jb_series (jb, "producer_cpu_us_per_frame", m->prod_cpu_us);
  jb_series (jb, "consumer_cpu_us_per_frame", m->cons_cpu_us);
  jb_series (jb, "total_cpu_us_per_frame", m->total_cpu_us);
  jb_series (jb, "latency_p50_us", m->lat_p50_us);
  jb_series (jb, "latency_p99_us", m->lat_p99_us);
  jb_series (jb, "dropped_frames", m->dropped);
  if (S8_OURS (k)) {
    json_structure (jb, "cudasyncipcsink_stats", m->sink_stats);
    json_structure (jb, "cudasyncipcsrc_stats", m->src_stats);
    jb_num (jb, "copies_per_frame", s8_copies (m));
    jb_num (jb, "sink_cpu_syncs", stat_value (m->sink_stats, "cpu-syncs"));
    jb_num (jb, "src_cpu_syncs", stat_value (m->src_stats, "cpu-syncs"));
  }
  jb_bool (jb, "element_stats_as_expected", m->stats_ok);
  jb_str (jb, "element_stats_note", m->stats_note);
  jb_obj_end (jb);
}

static void
json_ratios8 (JsonBuilder * jb, S8Config * c)
{
  guint i;

  jb_obj (jb, "ratios_median");
  for (i = 0; i < G_N_ELEMENTS (s8_ratios); i++) {
    S8ModeResult *m = &c->m[s8_ratios[i].m], *ref = &c->m[s8_ratios[i].ref];
    gchar *key;

    if (!s8_ran (m) || !s8_ran (ref))
      continue;
    key = g_strdup_printf ("%s/%s", s8_modes[s8_ratios[i].m].key,
        s8_modes[s8_ratios[i].ref].key);
    jb_obj (jb, key);
    jb_num (jb, "fps", s8_median_ratio (m->fps, ref->fps));
    jb_num (jb, "total_cpu_per_frame", s8_median_ratio (m->total_cpu_us,
            ref->total_cpu_us));
    jb_num (jb, "producer_cpu_per_frame", s8_median_ratio (m->prod_cpu_us,
            ref->prod_cpu_us));
    jb_num (jb, "latency_p50", s8_median_ratio (m->lat_p50_us,
            ref->lat_p50_us));
    jb_num (jb, "latency_p99", s8_median_ratio (m->lat_p99_us,
            ref->lat_p99_us));
    if (s8_ratios[i].ref == S8_P || c->gpu_us == 0)
      jb_num (jb, "target_fps", s8_ratios[i].target);
    jb_obj_end (jb);
    g_free (key);
  }
  jb_obj_end (jb);
}

static void
json_config8 (JsonBuilder * jb, S8Config * c)
{
  guint k;

  jb_obj (jb, NULL);
  jb_int (jb, "width", c->width);
  jb_int (jb, "height", c->height);
  jb_str (jb, "format", c->format);
  jb_int (jb, "gpu_us", c->gpu_us);
  jb_int (jb, "frames", c->frames);
  jb_int (jb, "warmup_frames", c->warmup);
  jb_str (jb, "status", c->status);
  jb_str (jb, "reason", c->reason);
  jb_obj (jb, "modes");
  for (k = 0; k < S8_N_MODES; k++)
    json_mode8 (jb, k, &c->m[k]);
  jb_obj_end (jb);
  json_ratios8 (jb, c);
  jb_obj_end (jb);
}

static void
json_s8 (Bench * b, const BenchScenario * sc, JsonBuilder * jb)
{
  S8Result *S = &b->r.s8;
  guint i;

  jb_obj (jb, "scenario8_ipc");
  jb_str (jb, "status", S->status);
  jb_str (jb, "reason", S->reason);
  jb_str (jb, "what", S8_WHAT);
  jb_str (jb, "frame_writer", S->frame_writer);
  jb_int (jb, "repetitions", S->repetitions);
  jb_obj (jb, "semaphore_hop_us");
  jb_num (jb, "same_context", S->hop_same_us);
  jb_num (jb, "other_context", S->hop_other_us);
  jb_str (jb, "error", S->hop_error);
  jb_obj_end (jb);
  jb_obj (jb, "modes");
  for (i = 0; i < S8_N_MODES; i++) {
    jb_obj (jb, s8_modes[i].key);
    jb_str (jb, "description", s8_modes[i].desc);
    jb_str (jb, "skipped", S->mode_skipped ? S->mode_skipped[i] : NULL);
    jb_obj_end (jb);
  }
  jb_obj_end (jb);
  jb_arr (jb, "configs");
  for (i = 0; S->configs && i < S->configs->len; i++)
    json_config8 (jb, g_ptr_array_index (S->configs, i));
  jb_arr_end (jb);
  jb_obj_end (jb);
}

/* --- the table --- */

static void
s8_print_config (S8Config * c)
{
  guint k, i;

  for (k = 0; k < S8_N_MODES; k++) {
    S8ModeResult *m = &c->m[k];
    gchar cp[16] = "";

    if (!s8_ran (m)) {
      if (g_strcmp0 (m->status, "failed") == 0)
        g_print ("  %4d %2u %-9s FAILED: %s\n", c->height, c->gpu_us / 1000,
            s8_modes[k].key, m->error);
      continue;
    }
    if (S8_OURS (k) && !isnan (s8_copies (m)))
      g_snprintf (cp, sizeof (cp), "%.2f", s8_copies (m));
    g_print ("  %4d %2u %-9s %8.0f %8.1f %8.1f %8.1f %8.0f %8.0f %6.0f %6s\n",
        c->height, c->gpu_us / 1000, s8_modes[k].key,
        series_median (m->fps), series_median (m->prod_cpu_us),
        series_median (m->cons_cpu_us), series_median (m->total_cpu_us),
        series_median (m->lat_p50_us), series_median (m->lat_p99_us),
        series_median (m->dropped), cp);
    if (S8_OURS (k))
      g_print ("             cpu-syncs: cudasyncipcsink %.0f, cudasyncipcsrc "
          "%.0f\n", stat_value (m->sink_stats, "cpu-syncs"),
          stat_value (m->src_stats, "cpu-syncs"));
  }
  for (i = 0; i < G_N_ELEMENTS (s8_ratios); i++) {
    S8ModeResult *m = &c->m[s8_ratios[i].m], *ref = &c->m[s8_ratios[i].ref];

    if (s8_ran (m) && s8_ran (ref))
      g_print ("          %9s/%-2s fps %.2f  total-cpu %.2f  lat-p50 %.2f"
          "%s\n", s8_modes[s8_ratios[i].m].key,
          s8_modes[s8_ratios[i].ref].key, s8_median_ratio (m->fps, ref->fps),
          s8_median_ratio (m->total_cpu_us, ref->total_cpu_us),
          s8_median_ratio (m->lat_p50_us, ref->lat_p50_us),
          s8_ratios[i].ref == S8_P ? "  (target fps >= 0.9)" :
          c->gpu_us == 0 ? "  (target fps >= 2)" : "");
  }
}

/* --- running it --- */

/* ours: both elements' counters: no CPU-synchronising call, one GPU wait
 * per frame on the source, one copy per frame in the sink and in the source
 * (s; si on 1.22) or none in the source (si, si_pool: lent); the
 * sink's input kept by a thread (s, si: the producer's memory has no
 * stream) or given back ordered on the GPU (the pool modes) */
static void
s8_check_stats (Bench * b, gint k, S8ModeResult * m, S8Sample * s)
{
  const gboolean lent = s8_modes[k].io_mode && GST_CHECK_VERSION (1, 24, 0);
  GString *note = g_string_new (NULL);
  gboolean ok = TRUE;

  ok &= expect_stat (s->sink_stats, "cpu-syncs", 0, note, "cudasyncipcsink");
  ok &= expect_stat (s->src_stats, "cpu-syncs", 0, note, "cudasyncipcsrc");
  if (s->src_stats) {
    guint64 frames = 0;

    gst_structure_get_uint64 (s->src_stats, "frames", &frames);
    ok &= expect_stat (s->src_stats, "waits", frames, note, "cudasyncipcsrc");
    ok &= expect_stat (s->src_stats, "copies", lent ? 0 : frames, note,
        "cudasyncipcsrc");
    ok &= expect_stat (s->src_stats, "lent", lent ? frames : 0, note,
        "cudasyncipcsrc");
    ok &= expect_stat (s->sink_stats, "frames-sent", frames, note,
        "cudasyncipcsink");
    /* the bench producer's memory: no stream but in the
     * pool modes; those frames are the sink's own, sent without a copy */
    ok &= expect_stat (s->sink_stats, s8_modes[k].memory_stream ?
        "inputs-held" : "inputs-ordered", 0, note, "cudasyncipcsink");
    if (s8_modes[k].sink_pool) {
      guint64 in_place = 0;

      gst_structure_get_uint64 (s->sink_stats, "inputs-in-place", &in_place);
      ok &= expect_stat (s->sink_stats, "copies", 0, note, "cudasyncipcsink");
      if (in_place < frames) {
        g_string_append_printf (note, "%s cudasyncipcsink inputs-in-place "
            "%" G_GUINT64_FORMAT " < %" G_GUINT64_FORMAT " frames",
            note->len ? ";" : "", in_place, frames);
        ok = FALSE;
      }
    }
  }
  g_mutex_lock (&b->lock);
  if (m->sink_stats)
    gst_structure_free (m->sink_stats);
  if (m->src_stats)
    gst_structure_free (m->src_stats);
  m->sink_stats = s->sink_stats;
  m->src_stats = s->src_stats;
  s->sink_stats = s->src_stats = NULL;
  if (!ok) {
    m->stats_ok = FALSE;
    g_free (m->stats_note);
    m->stats_note = g_strdup (note->str);
  }
  g_mutex_unlock (&b->lock);
  if (!ok)
    g_print ("    WARNING: mode %s: unexpected element stats: %s\n",
        s8_modes[k].key, note->str);
  g_string_free (note, TRUE);
}

static void
s8_record (Bench * b, gint k, S8ModeResult * m, S8Sample * s)
{
  g_mutex_lock (&b->lock);
  series_add (m->fps, s->fps);
  series_add (m->prod_cpu_us, s->prod_cpu_us);
  if (!isnan (s->cons_cpu_us))
    series_add (m->cons_cpu_us, s->cons_cpu_us);
  series_add (m->total_cpu_us, s->total_cpu_us);
  series_add (m->lat_p50_us, s->lat_p50_us);
  series_add (m->lat_p99_us, s->lat_p99_us);
  series_add (m->dropped, s->dropped);
  g_mutex_unlock (&b->lock);
  if (S8_OURS (k))
    s8_check_stats (b, k, m, s);
  if (s->sink_stats)
    gst_structure_free (s->sink_stats);
  if (s->src_stats)
    gst_structure_free (s->src_stats);
}

/* one configuration: its modes interleaved, repetition by repetition */
static gboolean
s8_config_run (Bench * b, S8Config * c, FrameWriter writer, const gchar * dir)
{
  S8Result *S = &b->r.s8;
  gboolean ok = TRUE;
  gint rep;
  guint k;

  for (k = 0; k < S8_N_MODES; k++)
    if (S->mode_skipped[k]) {
      set_str (b, &c->m[k].status, "skipped");
      set_str (b, &c->m[k].error, S->mode_skipped[k]);
    }
  set_str (b, &c->status, "running");
  for (rep = 0; rep < S->repetitions && !bench_stopped (b); rep++) {
    for (k = 0; k < S8_N_MODES && !bench_stopped (b); k++) {
      S8Sample s;
      gchar *error = NULL;

      if (S->mode_skipped[k] || !g_strcmp0 (c->m[k].status, "failed"))
        continue;
      if (s8_repetition (b, c, k, writer, dir, &s, &error)) {
        s8_record (b, k, &c->m[k], &s);
      } else {
        set_str (b, &c->m[k].status, "failed");
        set_str (b, &c->m[k].error, error);
        ok = FALSE;
      }
      g_free (error);
      write_json (b);
    }
  }
  for (k = 0; k < S8_N_MODES; k++)
    if (!g_strcmp0 (c->m[k].status, "not run"))
      set_str (b, &c->m[k].status, bench_stopped (b) ? "skipped" : "ok");
  if (bench_stopped (b)) {
    gchar *why = bench_skip_reason (b);

    set_str (b, &c->reason, why);
    g_free (why);
    ok = FALSE;
  }
  set_str (b, &c->status, ok ? "ok" : "failed");
  s8_print_config (c);
  write_json (b);
  return ok;
}

/* which modes can run (the rest get their reason in mode_skipped) */
static void
s8_modes_prepare (Bench * b)
{
  guint k;

  for (k = 0; k < S8_N_MODES; k++) {
    const S8Mode *md = &s8_modes[k];
    const gchar *need[] = { md->sink, md->src };
    gchar *missing = md->sink ? missing_elements (need, 2) : NULL, *why = NULL;

    if (missing)
      why = g_strdup_printf ("element(s)%s not registered%s", missing,
          md->ipc_mode ? " (upstream's IPC elements: GStreamer 1.24+, "
          "nvcodec)" : "");
    else if (md->memory_stream && !GST_CHECK_VERSION (1, 24, 0))
      why = g_strdup ("GStreamer 1.22's CUDA memory carries no stream");
    else if (b->is_sim && g_strcmp0 (md->ipc_mode, "legacy") == 0)
      why = g_strdup ("the simulated CUDA driver cannot open a legacy CUDA "
          "IPC handle (cuIpcOpenMemHandle) of another process: its device "
          "memory is the process's own host memory (tests/cudasim/README.md)");
    set_str (b, &b->r.s8.mode_skipped[k], why);
    if (why)
      g_print ("  mode %s skipped: %s\n", md->key, why);
    g_free (missing);
    g_free (why);
  }
}

static gboolean
s8_run_configs (Bench * b, FrameWriter writer)
{
  static const gint sizes[][2] = { {1920, 1080}, {3840, 2160} };
  static const guint work[] = { 0, 5000 };
  S8Result *S = &b->r.s8;
  guint n_sizes = b->opt.quick ? 1 : 2, n_work = b->opt.quick ? 1 : 2, i, j;
  gchar *dir = g_dir_make_tmp ("gst-cudasync-bench-XXXXXX", NULL);
  gboolean ok = TRUE;

  if (!dir)
    return FALSE;
  g_mutex_lock (&b->lock);
  for (i = 0; i < n_sizes; i++)
    for (j = 0; j < n_work; j++)
      g_ptr_array_add (S->configs, s8_config_new (sizes[i][0], sizes[i][1],
              work[j], s2_frames (b, work[j]), b->opt.quick ? 5 : 10));
  g_mutex_unlock (&b->lock);
  g_print ("  %4s %2s %-3s %8s %8s %8s %8s %8s %8s %6s %6s\n", "size", "ms",
      "mode", "fps", "prod-cpu", "cons-cpu", "tot-cpu", "lat-p50", "lat-p99",
      "drop", "copies");
  g_print ("  %4s %2s %-3s %8s %8s %8s %8s %8s %8s %6s %6s\n", "", "", "", "",
      "us/frame", "us/frame", "us/frame", "us", "us", "frames", "/frame");
  for (i = 0; i < S->configs->len; i++) {
    S8Config *c = g_ptr_array_index (S->configs, i);
    gchar *why = NULL;

    if (bench_stopped (b))
      why = bench_skip_reason (b);
    else if (bench_time_is_up (&b->wd))
      why = g_strdup ("time limit reached (--time-limit)");
    else if (c->gpu_us > 0 && writer != WRITER_KERNEL)
      why = g_strdup ("memset frames have no GPU work (no spin kernel)");
    if (why) {
      g_print ("  %4d %2u skipped: %s\n", c->height, c->gpu_us / 1000, why);
      set_str (b, &c->status, "skipped");
      set_str (b, &c->reason, why);
      g_free (why);
      continue;
    }
    ok &= s8_config_run (b, c, writer, dir);
  }
  g_rmdir (dir);
  g_free (dir);
  return ok;
}

/* what one GPU wait on another stream's signal costs, in one context and
 * between two (each process has its own) */
static void
s8_hop_measure (Bench * b)
{
  S8Result *S = &b->r.s8;
  gdouble same = NAN, other = NAN;
  gchar *error = NULL;

  if (!s8_hop (b, &same, &other, &error))
    g_print ("  semaphore hop FAILED: %s\n", error);
  else
    g_print ("  semaphore hop (GPU wait on another stream's signal, no CPU): "
        "%.1f us in one context, %.1f us between two contexts\n", same, other);
  g_mutex_lock (&b->lock);
  S->hop_same_us = same;
  S->hop_other_us = other;
  g_mutex_unlock (&b->lock);
  set_str (b, &S->hop_error, error);
  g_free (error);
}

static gboolean
run_scenario8 (Bench * b, const BenchScenario * sc)
{
  S8Result *S = &b->r.s8;
  FrameWriter writer;
  gchar *why, *label, *info = NULL;
  gboolean ok;

  S->repetitions = MIN (b->opt.repetitions, 3);
  g_print ("\nScenario 8: frames between processes: cudasyncipcsink -> "
      "cudasyncipcsrc (s), upstream's cudaipcsink -> cudaipcsrc (u legacy, "
      "um mmap), one process (p) (%d repetitions)\n", S->repetitions);
  why = frame_writer_pick (b, &writer, &label, &info);
  set_str (b, &S->frame_writer, label);
  g_free (label);
  g_free (info);
  if (why) {
    g_print ("  %s\n", why);
    set_str (b, &S->status, "skipped");
    set_str (b, &S->reason, why);
    write_json (b);
    g_free (why);
    return TRUE;
  }
  s8_modes_prepare (b);
  s8_hop_measure (b);
  set_str (b, &S->status, "running");
  ok = s8_run_configs (b, writer);
  if (bench_stopped (b)) {
    why = bench_abort_reason (b);
    set_str (b, &S->status, "failed");
    set_str (b, &S->reason, why);
    g_free (why);
  } else {
    set_str (b, &S->status, ok ? "ok" : "failed");
  }
  write_json (b);
  return ok;
}

static void
s8_init (Bench * b, const BenchScenario * sc)
{
  b->r.s8.status = g_strdup ("not run");
  b->r.s8.configs = g_ptr_array_new ();
  b->r.s8.mode_skipped = g_new0 (gchar *, S8_N_MODES + 1);
  b->r.s8.hop_same_us = b->r.s8.hop_other_us = NAN;
}

const BenchScenario bench_scenario_8 = {
  "8", 1 << 8, BENCH_RESULT_STATE (s8), s8_init, run_scenario8, json_s8,
  s8_child_main
};

/* gst-cudasync
 * Copyright (C) 2026 gst-cudasync developers
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Scenario 7, real decodes: N decoder pipelines (nvh264dec or
 * vulkanh264dec) into a Vulkan or CUDA consumer, through the bridge, through
 * upstream's round trip, or with no handoff. Pipelines: scenario-7-pipe.c.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <math.h>
#include <string.h>
#include <glib/gstdio.h>

#include "scenario-7.h"
#include "pipeline.h"

#define S7_WHAT "N pipelines at once, each filesrc ! demuxer ! h264parse ! " \
  "decoder ! handoff ! consumer ! fakesink sync=false, no queue; consumer: " \
  "vulkancolorconvert or cudaconvertscale, NV12 -> RGBA. fps: the frames " \
  "after the warm-up over the window from the first pipeline's last " \
  "warm-up frame to the last frame at the sink; CPU over that window; " \
  "latency: wall clock from the decoder's input (PTS) to the sink"

#define S7_RATIOS "ratios of medians: a/b, c/e (bridge over upstream), " \
  "c/n, e/n (over frames decoded in CUDA), a/n0, c/v0 (over the decoder " \
  "alone), n/n0 (the consumer's cost)"

static S7Config *
s7_config_new (gint width, gint height, guint n, guint frames, guint warmup)
{
  S7Config *c = g_new0 (S7Config, 1);
  guint k;

  c->width = width;
  c->height = height;
  c->n = n;
  c->frames = frames;
  c->warmup = warmup;
  c->status = g_strdup ("not run");
  for (k = 0; k < S7_N_MODES; k++) {
    S7ModeResult *m = &c->m[k];

    m->status = g_strdup ("not run");
    m->fps = series_new ();
    m->proc_cpu_us = series_new ();
    m->lat_p50_us = series_new ();
    m->lat_p99_us = series_new ();
    m->min_fps = series_new ();
    m->max_fps = series_new ();
    m->stats_ok = TRUE;
  }
  return c;
}

/* --- JSON --- */

static void
json_per_frame (JsonBuilder * jb, const gchar * key, const GstStructure * st,
    const gchar * field)
{
  guint64 v = 0, buffers = 0;

  if (gst_structure_get_uint64 (st, field, &v) &&
      gst_structure_get_uint64 (st, "buffers", &buffers) && buffers > 0)
    jb_num (jb, key, (gdouble) v / buffers);
}

static void
json_mode7 (JsonBuilder * jb, const S7Mode * md, S7ModeResult * m)
{
  jb_obj (jb, md->key);
  jb_str (jb, "status", m->status);
  jb_str (jb, "error", m->error);
  jb_series (jb, "fps", m->fps);
  jb_series (jb, "process_cpu_us_per_frame", m->proc_cpu_us);
  jb_series (jb, "latency_p50_us", m->lat_p50_us);
  jb_series (jb, "latency_p99_us", m->lat_p99_us);
  jb_series (jb, "min_pipeline_fps", m->min_fps);
  jb_series (jb, "max_pipeline_fps", m->max_fps);
  if (md->bridge) {
    gchar *k = g_strdup_printf ("%s_stats", md->bridge);

    json_structure (jb, k, m->stats);
    g_free (k);
    jb_str (jb, "bridge_path", m->path);
  }
  if (m->stats) {
    json_per_frame (jb, "copies_per_frame", m->stats, "copies");
    json_per_frame (jb, "gpu_copies_per_frame", m->stats, "gpu-copies");
    json_per_frame (jb, "in_place_per_frame", m->stats, "in-place");
    json_per_frame (jb, "cpu_syncs_per_frame", m->stats, "cpu-syncs");
  }
  jb_bool (jb, "element_stats_as_expected", m->stats_ok);
  jb_str (jb, "element_stats_note", m->stats_note);
  jb_obj_end (jb);
}

static void
json_config7 (JsonBuilder * jb, S7Config * c)
{
  guint k;

  jb_obj (jb, NULL);
  jb_int (jb, "width", c->width);
  jb_int (jb, "height", c->height);
  jb_int (jb, "decoders", c->n);
  jb_int (jb, "frames_per_pipeline", c->frames);
  jb_int (jb, "warmup_frames", c->warmup);
  jb_str (jb, "status", c->status);
  jb_str (jb, "reason", c->reason);
  jb_obj (jb, "modes");
  for (k = 0; k < S7_N_MODES; k++)
    json_mode7 (jb, &s7_modes[k], &c->m[k]);
  jb_obj_end (jb);
  jb_obj (jb, "ratios_median");
  for (k = 0; k < s7_n_ratios; k++) {
    S7ModeResult *m = &c->m[s7_ratios[k][0]], *ref = &c->m[s7_ratios[k][1]];
    gchar *key;

    if (g_strcmp0 (m->status, "ok") != 0 || g_strcmp0 (ref->status, "ok"))
      continue;
    key = g_strdup_printf ("%s/%s", s7_modes[s7_ratios[k][0]].key,
        s7_modes[s7_ratios[k][1]].key);
    jb_obj (jb, key);
    jb_num (jb, "fps", ratio (series_median (m->fps),
            series_median (ref->fps)));
    jb_num (jb, "process_cpu_per_frame", ratio (series_median
            (m->proc_cpu_us), series_median (ref->proc_cpu_us)));
    jb_num (jb, "latency_p50", ratio (series_median (m->lat_p50_us),
            series_median (ref->lat_p50_us)));
    jb_obj_end (jb);
    g_free (key);
  }
  jb_obj_end (jb);
  jb_obj_end (jb);
}

static void
json_s7 (Bench * b, const BenchScenario * sc, JsonBuilder * jb)
{
  S7Result *S = &b->r.s7;
  guint i;

  jb_obj (jb, "scenario7_decode");
  jb_str (jb, "status", S->status);
  jb_str (jb, "reason", S->reason);
  jb_str (jb, "what", S7_WHAT);
  jb_str (jb, "ratios", S7_RATIOS);
  jb_str (jb, "clips", S->clips);
  jb_str (jb, "container", S->container);
  jb_int (jb, "repetitions", S->repetitions);
  jb_obj (jb, "modes");
  for (i = 0; i < S7_N_MODES; i++) {
    jb_obj (jb, s7_modes[i].key);
    jb_str (jb, "description", s7_modes[i].desc);
    jb_str (jb, "skipped", S->mode_skipped ? S->mode_skipped[i] : NULL);
    jb_obj_end (jb);
  }
  jb_obj_end (jb);
  jb_arr (jb, "configs");
  for (i = 0; S->configs && i < S->configs->len; i++)
    json_config7 (jb, g_ptr_array_index (S->configs, i));
  jb_arr_end (jb);
  jb_obj_end (jb);
}

/* --- running it --- */

static void
s7_end (Bench * b, const gchar * status, const gchar * why)
{
  g_print ("  %s\n", why);
  set_str (b, &b->r.s7.status, status);
  set_str (b, &b->r.s7.reason, why);
  write_json (b);
}

#ifdef HAVE_CUDA_VULKAN
/* why nothing can run here, or NULL (without Vulkan, its caller says) */
static gchar *
s7_why_not (Bench * b)
{
  static const gchar *const clip_need[] = { "videotestsrc", "x264enc",
    "h264parse", "filesrc", "filesink", "fakesink"
  };
  gchar *missing;

  if (!gst_registry_check_feature_version (gst_registry_get (),
          "nvh264dec", 1, 0, 0) && !gst_registry_check_feature_version
      (gst_registry_get (), "vulkanh264dec", 1, 0, 0)) {
    return g_strdup_printf ("SKIPPED: no H.264 decoder element is registered "
        "(nvh264dec: NVDEC, through the CUDA driver%s; vulkanh264dec: "
        "GStreamer 1.24+ with a Vulkan video decode queue)",
        b->is_sim ? ", which the simulated driver does not provide" : "");
  }
  missing = missing_elements (clip_need, G_N_ELEMENTS (clip_need));
  if (missing) {
    gchar *why = g_strdup_printf ("SKIPPED: the clips cannot be made: "
        "element(s)%s not found", missing);

    g_free (missing);
    return why;
  }
  return NULL;
}
#endif

/* which modes can run (the rest get their reason in mode_skipped);
 * FALSE when none can */
static gboolean
s7_modes_prepare (Bench * b, const S7Source * src)
{
  S7Result *S = &b->r.s7;
  gchar *vk_error = NULL;
  gboolean vulkan = ensure_vulkan_device (b, &vk_error), any = FALSE;
  guint k;

  if (vulkan)
    g_print ("  Vulkan device: %s\n", b->r.vulkan);
  for (k = 0; k < S7_N_MODES; k++) {
    const S7Mode *md = &s7_modes[k];
    gchar *missing = s7_missing (md, src), *why = NULL;
    gboolean needs_vk = md->vk_decoder || md->handoff ||
        md->consumer == S7_CONSUMER_VULKAN;

    if (missing)
      why = g_strdup_printf ("element(s)%s not found", missing);
    else if (needs_vk && !vulkan)
      why = g_strdup (vk_error);
    else if (md->vk_decoder && !bench_vulkan_decodes_video (b))
      why = g_strdup ("the Vulkan device has no video decode queue");
    set_str (b, &S->mode_skipped[k], why);
    if (why)
      g_print ("  mode %s skipped: %s\n", md->key, why);
    any |= why == NULL;
    g_free (missing);
    g_free (why);
  }
  g_free (vk_error);
  return any;
}

static void
s7_print_config (Bench * b, S7Config * c)
{
  guint k;

  for (k = 0; k < S7_N_MODES; k++) {
    S7ModeResult *m = &c->m[k];
    guint64 copies = 0, buffers = 0;
    gchar cp[16] = "";

    if (g_strcmp0 (m->status, "ok") != 0) {
      if (g_strcmp0 (m->status, "failed") == 0)
        g_print ("  %4d %3u %-3s FAILED: %s\n", c->height, c->n,
            s7_modes[k].key, m->error);
      continue;
    }
    if (m->stats && gst_structure_get_uint64 (m->stats, "copies", &copies)
        && gst_structure_get_uint64 (m->stats, "buffers", &buffers) &&
        buffers > 0)
      g_snprintf (cp, sizeof (cp), "%.2f", (gdouble) copies / buffers);
    g_print ("  %4d %3u %-3s %9.0f %9.0f %9.0f %9.1f %9.1f %9.1f %6s%s%s\n",
        c->height, c->n, s7_modes[k].key, series_median (m->fps),
        series_median (m->min_fps), series_median (m->max_fps),
        series_median (m->proc_cpu_us), series_median (m->lat_p50_us) / 1e3,
        series_median (m->lat_p99_us) / 1e3, cp, m->path ? "  " : "",
        m->path ? m->path : "");
  }
  for (k = 0; k < s7_n_ratios; k++) {
    S7ModeResult *m = &c->m[s7_ratios[k][0]], *ref = &c->m[s7_ratios[k][1]];

    if (g_strcmp0 (m->status, "ok") == 0 && !g_strcmp0 (ref->status, "ok"))
      g_print ("       %2s/%-2s fps %.2f  proc-cpu %.2f\n",
          s7_modes[s7_ratios[k][0]].key, s7_modes[s7_ratios[k][1]].key,
          ratio (series_median (m->fps), series_median (ref->fps)),
          ratio (series_median (m->proc_cpu_us),
              series_median (ref->proc_cpu_us)));
  }
}

/* a mode's repetition failed: the mode fails, the others go on */
static void
s7_mode_failed (Bench * b, S7Config * c, gint k, const gchar * error)
{
  gchar *where;

  set_str (b, &c->m[k].status, "failed");
  set_str (b, &c->m[k].error, error);
  if (g_str_has_suffix (error, BENCH_STOPPED))
    return;
  where = g_strdup_printf ("Scenario 7, mode %s, %dx%d, %u decoders",
      s7_modes[k].key, c->width, c->height, c->n);
  bench_check_device_lost (b, where, error);
  g_free (where);
}

/* Why mode @k is not run in configuration @c (NULL: it runs). Several
 * vulkanh264dec on one Vulkan device can crash the process in the NVIDIA
 * driver (bench/README.md), taking the bench with it. */
static const gchar *
s7_config_skip (Bench * b, const S7Config * c, guint k, const S7Source * src)
{
  if (b->r.s7.mode_skipped[k])
    return b->r.s7.mode_skipped[k];
  if (s7_modes[k].vk_decoder && c->n > 1)
    return "several vulkanh264dec at once crashed in the NVIDIA driver "
        "(H200, driver 580, GStreamer 1.26.2): one decoder only";
  return NULL;
}

/* one configuration: its modes interleaved, repetition by repetition */
static gboolean
s7_config_run (Bench * b, S7Config * c, const S7Source * src)
{
  gboolean ok = TRUE;
  gint rep;
  guint k;

  for (k = 0; k < S7_N_MODES; k++)
    if (s7_config_skip (b, c, k, src)) {
      set_str (b, &c->m[k].status, "skipped");
      set_str (b, &c->m[k].error, s7_config_skip (b, c, k, src));
    }
  set_str (b, &c->status, "running");
  for (rep = 0; rep < b->r.s7.repetitions && !bench_stopped (b); rep++) {
    for (k = 0; k < S7_N_MODES && !bench_stopped (b); k++) {
      gchar *error = NULL;

      if (s7_config_skip (b, c, k, src) ||
          !g_strcmp0 (c->m[k].status, "failed"))
        continue;
      if (!s7_repetition (b, c, k, src, &error)) {
        s7_mode_failed (b, c, k, error);
        ok = FALSE;
      }
      g_free (error);
      write_json (b);
    }
  }
  for (k = 0; k < S7_N_MODES; k++)
    if (!g_strcmp0 (c->m[k].status, "not run"))
      set_str (b, &c->m[k].status, bench_stopped (b) ? "skipped" : "ok");
  if (bench_stopped (b)) {
    gchar *why = bench_skip_reason (b);

    set_str (b, &c->reason, why);
    g_free (why);
    ok = FALSE;
  }
  set_str (b, &c->status, ok ? "ok" : "failed");
  s7_print_config (b, c);
  write_json (b);
  return ok;
}

/* one clip size: its clip, then 1, 2, 4, 8 decoders */
static gboolean
s7_size_run (Bench * b, const gchar * dir, guint first, guint n_configs,
    S7Source * src)
{
  S7Result *S = &b->r.s7;
  S7Config *c0 = g_ptr_array_index (S->configs, first);
  gchar *error = NULL, *clip;
  gboolean ok = TRUE;
  gdouble t = mono_s ();
  guint i;

  clip = s7_make_clip (b, dir, c0->width, c0->height, c0->frames,
      &src->demux, &error);
  if (clip) {
    g_print ("  clip %dx%d, %u frames: %.1f s to encode\n", c0->width,
        c0->height, c0->frames, mono_s () - t);
    set_str (b, &S->container, src->demux ? src->demux : "none (a "
        "byte-stream: no PTS, so no latency)");
  }
  src->clip = clip;
  for (i = first; i < first + n_configs; i++) {
    S7Config *c = g_ptr_array_index (S->configs, i);
    gchar *why = NULL;

    if (!clip)
      why = g_strdup (error);
    else if (bench_stopped (b))
      why = bench_skip_reason (b);
    else if (bench_time_is_up (&b->wd))
      why = g_strdup ("time limit reached (--time-limit)");
    if (why) {
      g_print ("  %4d %3u skipped: %s\n", c->height, c->n, why);
      set_str (b, &c->status, clip ? "skipped" : "failed");
      set_str (b, &c->reason, why);
      ok &= clip != NULL && !bench_stopped (b);
      g_free (why);
      continue;
    }
    ok &= s7_config_run (b, c, src);
  }
  if (clip)
    g_unlink (clip);
  g_free (clip);
  g_free (error);
  src->clip = NULL;
  return ok;
}

static gboolean
s7_run_configs (Bench * b, S7Source * src)
{
  static const guint counts[] = { 1, 2, 4, 8 };
  static const gint sizes[][2] = { {1920, 1080}, {3840, 2160} };
  S7Result *S = &b->r.s7;
  /* --quick: one decoder (more can exhaust GStreamer 1.22's
   * vulkancolorconvert descriptor sets in mode b) */
  guint n_sizes = b->opt.quick ? 1 : 2, n_counts = b->opt.quick ? 1 : 4;
  guint warmup = b->opt.quick ? 5 : 10, si, ci;
  gchar *dir = g_dir_make_tmp ("gst-cudasync-bench-XXXXXX", NULL);
  gboolean ok = TRUE;

  if (!dir) {
    s7_end (b, "failed", "could not make a temporary folder for the clips");
    return FALSE;
  }
  g_mutex_lock (&b->lock);
  for (si = 0; si < n_sizes; si++) {
    /* frames per pipeline: the clip's (--frames: measured frames) */
    guint frames = b->opt.frames > 0 ? b->opt.frames + warmup :
        b->opt.quick ? 60 : sizes[si][0] > 1920 ? 120 : 300;

    for (ci = 0; ci < n_counts; ci++)
      g_ptr_array_add (S->configs, s7_config_new (sizes[si][0], sizes[si][1],
              counts[ci], frames, warmup));
  }
  g_mutex_unlock (&b->lock);
  set_str (b, &S->status, "running");
  g_print ("  %4s %3s %-3s %9s %9s %9s %9s %9s %9s %6s\n", "size", "dec",
      "mode", "fps", "min-pipe", "max-pipe", "proc-cpu", "lat-p50", "lat-p99",
      "copies");
  g_print ("  %4s %3s %-3s %9s %9s %9s %9s %9s %9s %6s\n", "", "", "", "all",
      "fps", "fps", "us/frame", "ms", "ms", "/frame");
  for (si = 0; si < n_sizes; si++)
    ok &= s7_size_run (b, dir, si * n_counts, n_counts, src);
  g_rmdir (dir);
  g_free (dir);
  return ok;
}

static gboolean
run_scenario7 (Bench * b, const BenchScenario * sc)
{
  S7Result *S = &b->r.s7;
  S7Source src = { NULL, NULL };
  gchar *why;
  gboolean ok;

  S->repetitions = MIN (b->opt.repetitions, 3);
  g_print ("\nScenario 7: real decodes: 1, 2, 4, 8 H.264 decoders at once "
      "into Vulkan and CUDA consumers (%d repetitions)\n", S->repetitions);
#ifndef HAVE_CUDA_VULKAN
  why = g_strdup ("SKIPPED: built without Vulkan (gstreamer-vulkan-1.0 or "
      "vulkan not found): no cudatovulkan, vulkantocuda");
#else
  why = s7_why_not (b);
#endif
  if (why) {
    s7_end (b, "skipped", why);
    g_free (why);
    return TRUE;
  }
  if (!s7_modes_prepare (b, &src)) {
    s7_end (b, "skipped", "SKIPPED: no mode can run here (each mode's "
        "reason is in its \"skipped\")");
    return TRUE;
  }
  set_str (b, &S->clips, "x264enc superfast, high profile, 2 B-frames, key "
      "frame every 30 frames, 8 Mbit/s at 1080p, 20 Mbit/s at 4K, "
      "videotestsrc smpte moving");
  ok = s7_run_configs (b, &src);
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
s7_init (Bench * b, const BenchScenario * sc)
{
  b->r.s7.status = g_strdup ("not run");
  b->r.s7.configs = g_ptr_array_new ();
  b->r.s7.mode_skipped = g_new0 (gchar *, S7_N_MODES + 1);
}

const BenchScenario bench_scenario_7 = {
  "7", 1 << 7, BENCH_RESULT_STATE (s7), s7_init, run_scenario7, json_s7
};

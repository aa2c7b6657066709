/* gst-cudasync
 * Copyright (C) 2026 gst-cudasync developers
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The sections that share the frame harness (BenchSection: scenarios 2
 * to 5): configurations, frame writer, repetitions, table and JSON.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>

#include "frames.h"

#include <gst/cuda/gstcudabufferpool.h>

static void
s2_print_header (void)
{
  g_print ("  %-9s %-4s %4s %14s %9s %11s %11s %10s %10s %9s\n", "size",
      "fmt", "gpu", "mode", "fps", "proc-cpu", "prod-cpu", "lat-p50",
      "lat-p99", "write");
  g_print ("  %-9s %-4s %4s %14s %9s %11s %11s %10s %10s %9s\n", "", "", "ms",
      "", "median", "us/frame", "us/frame", "us", "us", "gpu-us");
}

/* at most the modes of a section, and a pool for each */
#define SECTION_MAX_MODES 9

static void
s2_print_ratio (Bench * b, S2Config * c, gint mode, gint ref)
{
  gchar label[40];

  if (g_strcmp0 (c->m[mode].status, "ok") != 0 ||
      g_strcmp0 (c->m[ref].status, "ok") != 0)
    return;
  g_snprintf (label, sizeof (label), "%s/%s", bench_mode_key (b, mode),
      bench_mode_key (b, ref));
  g_print ("  %-9s %-4s %4s %14s %9.2f %11.2f %11.2f %10.2f %10.2f\n", "", "",
      "", label, ratio (series_median (c->m[mode].fps),
          series_median (c->m[ref].fps)),
      ratio (series_median (c->m[mode].proc_cpu_us),
          series_median (c->m[ref].proc_cpu_us)),
      ratio (series_median (c->m[mode].prod_cpu_us),
          series_median (c->m[ref].prod_cpu_us)),
      ratio (series_median (c->m[mode].lat_p50_us),
          series_median (c->m[ref].lat_p50_us)),
      ratio (series_median (c->m[mode].lat_p99_us),
          series_median (c->m[ref].lat_p99_us)));
}

/* ", N GPU copies/frame" for a bridge element's stats, else "" */
static const gchar *
copies_note (ModeResult * m, gchar * buf, gsize len)
{
  guint64 copies, buffers;

  buf[0] = '\0';
  if (m->stats_name[0] && m->sig_stats &&
      gst_structure_get_uint64 (m->sig_stats, "gpu-copies", &copies) &&
      gst_structure_get_uint64 (m->sig_stats, "buffers", &buffers) &&
      buffers > 0)
    g_snprintf (buf, len, ", %.2f GPU copies/frame", (gdouble) copies /
        buffers);
  return buf;
}

static void
s2_print_config (Bench * b, const BenchSection * sec, S2Config * c)
{
  gchar size[32], copies[32];
  guint j;

  g_snprintf (size, sizeof (size), "%dx%d", c->width, c->height);
  for (j = 0; j < c->n_modes; j++) {
    gint k = c->modes[j];
    ModeResult *m = &c->m[k];

    if (g_strcmp0 (m->status, "ok") != 0) {
      g_print ("  %-9s %-4s %4.0f %14s %s: %s\n", size, c->format,
          c->gpu_us / 1000.0, bench_mode_key (b, k), m->status, m->error ?
          m->error : "");
      continue;
    }
    g_print ("  %-9s %-4s %4.0f %14s %9.0f %11.1f %11.1f %10.0f %10.0f %9.0f"
        "%s%s%s\n", size, c->format, c->gpu_us / 1000.0, bench_mode_key (b, k),
        series_median (m->fps), series_median (m->proc_cpu_us),
        series_median (m->prod_cpu_us), series_median (m->lat_p50_us),
        series_median (m->lat_p99_us), series_median (m->kernel_us),
        m->path ? "  " : "", m->path ? m->path : "",
        copies_note (m, copies, sizeof (copies)));
  }
  for (j = 0; j < c->n_modes; j++)
    if (c->modes[j] != c->ref_mode)
      s2_print_ratio (b, c, c->modes[j], c->ref_mode);
  for (j = 0; j < sec->n_extra_ratios; j++)
    s2_print_ratio (b, c, sec->extra_ratios[j][0], sec->extra_ratios[j][1]);
}

/* "Scenario 3" (the title up to its colon) */
static gchar *
sec_name (const S2Result * S)
{
  const gchar *title = S->sec->title;
  const gchar *colon = strchr (title, ':');

  return g_strndup (title, colon ? (gsize) (colon - title) : strlen (title));
}

static void
s2_skip_config (Bench * b, S2Config * c, const gchar * why)
{
  guint j;

  set_str (b, &c->status, "skipped");
  set_str (b, &c->reason, why);
  for (j = 0; j < c->n_modes; j++)
    set_str (b, &c->m[c->modes[j]].status, "skipped");
}

/* a section's end before any configuration ran: status, reason, JSON */
static void
section_skip (Bench * b, S2Result * S, const gchar * status, const gchar * why)
{
  g_print ("  %s\n", why);
  sec_set (b, S, status, why);
  write_json (b);
}

/* the elements @need and the Vulkan device. FALSE when the section is
 * skipped. */
static gboolean
section_vulkan (Bench * b, S2Result * S, const gchar * const *need)
{
#ifdef HAVE_CUDA_VULKAN
  gchar *missing = missing_elements (need, g_strv_length ((gchar **) need));
  gchar *error = NULL, *why;

  if (missing) {
    why = g_strdup_printf ("SKIPPED: elements not found:%s", missing);
    section_skip (b, S, "skipped", why);
    g_free (why);
    g_free (missing);
    return FALSE;
  }
  if (!ensure_vulkan_device (b, &error)) {
    why = g_strdup_printf ("SKIPPED: %s", error);
    section_skip (b, S, "skipped", why);
    g_free (why);
    g_free (error);
    return FALSE;
  }
  g_print ("  Vulkan device: %s\n", b->r.vulkan);
  return TRUE;
#else
  g_print ("  SKIPPED: built without Vulkan (gstreamer-vulkan-1.0 or "
      "vulkan not found): no cudatovulkan/vulkantocuda\n");
  sec_set (b, S, "skipped", "built without Vulkan (gstreamer-vulkan-1.0 or "
      "vulkan not found): no cudatovulkan/vulkantocuda");
  write_json (b);
  return FALSE;
#endif
}

/* The frame writer: the spin kernel, or memset frames. FALSE when the
 * section ends here (*ret: its result). */
static gboolean
section_writer (Bench * b, S2Result * S, FrameWriter * writer, gboolean * ret)
{
  gchar *kinfo = NULL, *label, *why;

  if (S->sec && S->sec->sysframe) {
    *writer = WRITER_MEMSET;    /* unused: frames come from system memory */
    set_str (b, &S->frame_writer, "none (one system-memory frame, pushed "
        "again for every frame)");
    return TRUE;
  }
  why = frame_writer_pick (b, writer, &label, &kinfo);
  g_mutex_lock (&b->lock);
  S->kernel_info = kinfo;
  S->frame_writer = label;
  g_mutex_unlock (&b->lock);
  if (!why)
    return TRUE;
  section_skip (b, S, *writer == WRITER_KERNEL ? "failed" : "skipped", why);
  g_free (why);
  *ret = *writer != WRITER_KERNEL;
  return FALSE;
}

gboolean
section_start (Bench * b, S2Result * S, const gchar * const *need,
    FrameWriter * writer, gboolean * ret)
{
  *ret = TRUE;
  if (need && !section_vulkan (b, S, need))
    return FALSE;
  return section_writer (b, S, writer, ret);
}

guint
s2_frames (Bench * b, guint gpu_us)
{
  if (b->opt.frames > 0)
    return b->opt.frames;
  if (b->opt.quick)
    return gpu_us ? 10 : 20;
  if (gpu_us == 0)
    return 400;
  return CLAMP (400000 / gpu_us, 60, 400);
}

/* fewer frames, for sections where every frame goes through the CPU in
 * the upstream modes */
guint
s34_frames (Bench * b, guint gpu_us, gint width)
{
  if (b->opt.frames > 0)
    return b->opt.frames;
  if (b->opt.quick)
    return 10;
  if (gpu_us == 0)
    return width > 1920 ? 40 : 100;
  return CLAMP (400000 / gpu_us, 60, 400);
}

static S2Config *
config_new (Bench * b, S2Result * S, const gint * size, const gchar * format,
    guint gpu_us)
{
  S2Config *c = g_new0 (S2Config, 1);
  guint j;

  c->width = size[0];
  c->height = size[1];
  c->format = format;
  c->gpu_us = gpu_us;
  c->status = g_strdup ("not run");
  c->modes = S->sec->modes;
  c->n_modes = S->sec->n_modes;
  c->ref_mode = S->sec->ref_mode;
  for (j = 0; j < N_ALL_MODES; j++) {
    ModeResult *m = &c->m[j];

    mode_result_init (m);
    m->in_flight = b->opt.in_flight;
    m->stats_name[0] = b->modes[j]->stats[0];
    m->stats_name[1] = b->modes[j]->stats[1];
  }
  return c;
}

/* the section's configurations: sizes x formats x GPU work */
static void
section_configs (Bench * b, S2Result * S)
{
  static const gint sizes[][2] = { {1920, 1080}, {3840, 2160} };
  static const gchar *formats[] = { "RGBA", "NV12" };
  const BenchSection *sec = S->sec;
  gboolean quick_list = b->opt.quick && sec->quick_work_us;
  const guint *work_us = quick_list ? sec->quick_work_us : sec->work_us;
  guint n_work = quick_list ? sec->n_quick_work : sec->n_work;
  guint n_sizes = b->opt.quick ? 1 : sec->n_sizes;
  guint si, fi, wi;

  g_mutex_lock (&b->lock);
  for (si = 0; si < n_sizes; si++)
    for (fi = 0; fi < sec->n_formats; fi++)
      for (wi = 0; wi < n_work; wi++)
        if (!b->opt.quick || work_us[wi] <= 1000)
          g_ptr_array_add (S->configs, config_new (b, S, sizes[si],
                  formats[fi], work_us[wi]));
  g_mutex_unlock (&b->lock);
}

/* the producer's semaphores, stream and events, shared by the section's
 * runs */
typedef struct
{
  TestSem *ts_c, *ts_p;
  EvPair *pairs;
  guint n_pairs;
  RunInputs in;
} SectionShared;

static gboolean
shared_setup (Bench * b, SectionShared * sh, const BenchSection * sec,
    gchar ** error)
{
  CUresult r;

  sh->n_pairs = sec->sysframe ? (guint) b->opt.in_flight :
      (guint) MAX (b->opt.in_flight, 8) + 2;
  if (!(sh->in.sem_c = new_semaphore (b, &sh->ts_c, error)) ||
      !(sh->in.sem_p = new_semaphore (b, &sh->ts_p, error)))
    return FALSE;
  sh->pairs = g_new0 (EvPair, sh->n_pairs);
  sh->in.free_pairs = g_async_queue_new ();
  if (!gst_cuda_context_push (b->ctx)) {
    *error = g_strdup ("could not push the CUDA context");
    return FALSE;
  }
  r = producer_setup (&sh->in.pstream, sh->pairs, sh->n_pairs,
      sh->in.free_pairs);
  gst_cuda_context_pop (NULL);
  if (r != CUDA_SUCCESS) {
    *error = cu_error ("cuStreamCreate/cuEventCreate", r);
    return FALSE;
  }
  return TRUE;
}

static void
shared_clear (Bench * b, SectionShared * sh)
{
  producer_teardown (b, sh->in.pstream, sh->pairs, sh->n_pairs);
  g_free (sh->pairs);
  if (sh->in.free_pairs)
    g_async_queue_unref (sh->in.free_pairs);
  gst_clear_object (&sh->in.sem_c);
  gst_clear_object (&sh->in.sem_p);
  gst_cuda_sync_wait_idle ();
  test_sem_free (sh->ts_c);
  test_sem_free (sh->ts_p);
}

/* the configuration's pool (pools[0]) and those of the modes with a pool
 * of their own (MODE_F_MEMORY_STREAM: pools[1 + j] for its mode j), or its
 * system-memory frame */
static gboolean
config_sources (Bench * b, S2Config * c, const BenchSection * sec,
    GstBufferPool ** pools, GstBuffer ** sysframe)
{
  gchar *error = NULL;
  GstCaps *caps;
  guint j;

  if (sec->sysframe) {
    *sysframe = sec->sysframe (c);
    return TRUE;
  }
  caps = cuda_caps (c->format, c->width, c->height);
  pools[0] = new_pool (b, caps, b->opt.in_flight, &error);
  for (j = 0; pools[0] && !error && j < c->n_modes; j++) {
#if GST_CHECK_VERSION(1, 24, 0)
    const BenchMode *mode = b->modes[c->modes[j]];

    if (mode->flags & MODE_F_MEMORY_STREAM) {
      /* a stream of its own, which the pool's config keeps */
      GstCudaStream *stream = gst_cuda_stream_new (b->ctx);

      if (!stream)
        error = g_strdup ("gst_cuda_stream_new() failed");
      else
        pools[1 + j] = new_pool_with_stream (b, caps, b->opt.in_flight,
            stream, &error);
      gst_clear_cuda_stream (&stream);
    }
#endif
  }
  gst_caps_unref (caps);
  if (!error)
    return TRUE;
  set_str (b, &c->status, "failed");
  set_str (b, &c->reason, error);
  g_print ("  %dx%d %s: FAILED: %s\n", c->width, c->height, c->format, error);
  g_free (error);
  for (j = 0; j < 1 + SECTION_MAX_MODES; j++)
    g_clear_pointer (&pools[j], pool_free);
  return FALSE;
}

/* The stream the producer writes on for @pool's frames: the one its
 * config sets on the memory (MODE_F_MEMORY_STREAM, 1.24+), else
 * @fallback (the section's producer stream) */
static CUstream
pool_stream (GstBufferPool * pool, CUstream fallback)
{
  CUstream handle = fallback;
#if GST_CHECK_VERSION(1, 24, 0)
  GstStructure *config;
  GstCudaStream *stream;

  if (!pool)
    return fallback;
  config = gst_buffer_pool_get_config (pool);
  stream = gst_buffer_pool_config_get_cuda_stream (config);
  if (stream)
    handle = gst_cuda_stream_get_handle (stream);
  gst_clear_cuda_stream (&stream);
  gst_structure_free (config);
#endif
  return handle;
}

/* the repetitions of every mode of one configuration */
static gboolean
config_run (Bench * b, S2Result * S, S2Config * c, RunInputs * in,
    GstBufferPool ** pools)
{
  CUstream pstream = in->pstream;
  gboolean cfg_ok = TRUE;
  gchar *error = NULL;
  gint rep;
  guint j;

  for (rep = 0; rep < S->repetitions && !bench_stopped (b); rep++) {
    for (j = 0; j < c->n_modes && !bench_stopped (b); j++) {
      gint k = c->modes[j];

      in->pool = pools[1 + j] ? pools[1 + j] : pools[0];
      in->pstream = pool_stream (in->pool, pstream);
      if (g_strcmp0 (c->m[k].status, "failed") == 0)
        continue;
      if (!s2_run_once (b, c, k, in, &error)) {
        gchar *name = sec_name (S);
        gchar *where = g_strdup_printf ("%s, %dx%d %s, %g ms, mode %s",
            name, c->width, c->height, c->format, c->gpu_us / 1000.0,
            bench_mode_key (b, k));

        bench_check_device_lost (b, where, error);
        g_free (where);
        g_free (name);
        g_mutex_lock (&b->lock);
        g_free (c->m[k].status);
        c->m[k].status = g_strdup ("failed");
        g_free (c->m[k].error);
        c->m[k].error = error;
        g_mutex_unlock (&b->lock);
        g_print ("    %s: FAILED: %s\n", bench_mode_key (b, k), error);
        error = NULL;
        cfg_ok = FALSE;
      }
    }
  }
  in->pstream = pstream;
  bench_run_idle (&b->wd);
  for (j = 0; j < c->n_modes; j++) {
    ModeResult *m = &c->m[c->modes[j]];

    if (g_strcmp0 (m->status, "not run") != 0)
      continue;
    if (m->fps->len < (guint) S->repetitions) {
      /* stopped by bench_abort () before its repetitions were done (what
       * it measured stays in the series) */
      gchar *why = bench_abort_reason (b);
      gchar *e = g_strdup_printf ("%u of %d repetitions, then %s",
          m->fps->len, S->repetitions, why);

      set_str (b, &m->status, "skipped");
      set_str (b, &m->error, m->fps->len ? e : why);
      g_free (e);
      g_free (why);
      cfg_ok = FALSE;
    } else {
      set_str (b, &m->status, "ok");
    }
  }
  set_str (b, &c->status, cfg_ok ? "ok" : "failed");
  if (bench_stopped (b)) {
    gchar *why = bench_abort_reason (b);

    set_str (b, &c->reason, why);
    g_free (why);
  }
  return cfg_ok;
}

/* every configuration of the section; *any_run: one ran */
static gboolean
section_run_configs (Bench * b, S2Result * S, RunInputs * in,
    gboolean * any_run)
{
  const BenchSection *sec = S->sec;
  gboolean all_ok = TRUE;
  guint i, j;

  for (i = 0; i < S->configs->len; i++) {
    S2Config *c = g_ptr_array_index (S->configs, i);
    GstBufferPool *pools[1 + SECTION_MAX_MODES] = { NULL, };

    in->sysframe = NULL;
    if (c->gpu_us > 0 && in->writer != WRITER_KERNEL) {
      s2_skip_config (b, c, "no spin kernel: frames are written with "
          "cuMemsetD32Async, which cannot busy-wait");
      continue;
    }
    if (bench_stopped (b)) {
      gchar *why = bench_skip_reason (b);

      s2_skip_config (b, c, why);
      g_print ("  %dx%d %s %.0f ms: skipped, the run was aborted\n",
          c->width, c->height, c->format, c->gpu_us / 1000.0);
      g_free (why);
      continue;
    }
    if (bench_time_is_up (&b->wd)) {
      s2_skip_config (b, c, "time limit reached (--time-limit)");
      g_print ("  %dx%d %s %.0f ms: skipped, time limit reached\n", c->width,
          c->height, c->format, c->gpu_us / 1000.0);
      continue;
    }
    for (j = 0; j < c->n_modes; j++) {
      ModeResult *m = &c->m[c->modes[j]];

      m->frames = sec->few_frames ? s34_frames (b, c->gpu_us, c->width) :
          s2_frames (b, c->gpu_us);
      m->warmup = b->opt.quick ? 3 : 8;
    }
    if (!config_sources (b, c, sec, pools, &in->sysframe)) {
      all_ok = FALSE;
      continue;
    }
    *any_run = TRUE;
    all_ok &= config_run (b, S, c, in, pools);
    for (j = 0; j < 1 + SECTION_MAX_MODES; j++)
      pool_free (pools[j]);
    if (in->sysframe)
      gst_buffer_unref (in->sysframe);
    s2_print_config (b, sec, c);
    write_json (b);
  }
  return all_ok;
}

gboolean
section_run (Bench * b, const BenchScenario * sc)
{
  S2Result *S = G_STRUCT_MEMBER_P (&b->r, sc->result);
  const BenchSection *sec = sc->section;
  const gchar *need[] = { "cudatovulkan", "vulkantocuda", "vulkanupload",
    "vulkandownload", "cudadownload", "cudaupload", "queue", "capsfilter",
    sec->vulkan_element ? sec->vulkan_element : "queue", NULL
  };
  SectionShared sh;
  gchar *error = NULL;
  gboolean all_ok = TRUE, any_run = FALSE, ret = TRUE;
  guint i;

  memset (&sh, 0, sizeof (sh));
  S->repetitions = sec->few_frames ? MIN (b->opt.repetitions, 3) :
      b->opt.repetitions;
  g_print ("\n%s (%d frames in flight, %d repetitions)\n", sec->title,
      b->opt.in_flight, S->repetitions);
  for (i = 0; i < sec->n_modes; i++)
    g_print ("  %s: %s\n", bench_mode_key (b, sec->modes[i]),
        b->modes[sec->modes[i]]->desc);
  if (!section_start (b, S, sec->vulkan ? need : NULL, &sh.in.writer, &ret))
    return ret;

  if (!shared_setup (b, &sh, sec, &error)) {
    sec_set (b, S, "failed", error);
    g_print ("  FAILED: %s\n", error);
    g_free (error);
    all_ok = FALSE;
  } else {
    section_configs (b, S);
    sec_set (b, S, "running", NULL);
    s2_print_header ();
    all_ok = section_run_configs (b, S, &sh.in, &any_run);
    if (bench_stopped (b)) {
      gchar *why = bench_abort_reason (b);

      all_ok = FALSE;
      sec_set (b, S, "failed", why);
      g_free (why);
    } else {
      sec_set (b, S, all_ok ? (any_run ? "ok" : "skipped") : "failed",
          any_run ? NULL : "no configuration ran");
    }
  }
  shared_clear (b, &sh);
  write_json (b);
  return all_ok;
}

void
section_init (Bench * b, const BenchScenario * sc)
{
  S2Result *S = G_STRUCT_MEMBER_P (&b->r, sc->result);
  const BenchSection *sec = sc->section;

  g_assert (sec->n_modes <= SECTION_MAX_MODES);
  S->status = g_strdup ("not run");
  S->configs = g_ptr_array_new ();
  S->sec = sec;
}

/* the section's JSON object: its modes, then per configuration the
 * modes' results and their ratios over the reference mode */
void
section_json (Bench * b, const BenchScenario * sc, JsonBuilder * jb)
{
  S2Result *S = G_STRUCT_MEMBER_P (&b->r, sc->result);
  const BenchSection *sec = sc->section;
  guint i, j;

  jb_obj (jb, sec->key);
  jb_str (jb, "status", S->status);
  jb_str (jb, "reason", S->reason);
  jb_str (jb, "what", sec->title);
  jb_int (jb, "repetitions", S->repetitions);
  jb_str (jb, "frame_writer", S->frame_writer);
  jb_str (jb, "kernel", S->kernel_info);
  jb_obj (jb, "modes");
  for (j = 0; j < sec->n_modes; j++)
    jb_str (jb, bench_mode_key (b, sec->modes[j]),
        b->modes[sec->modes[j]]->desc);
  jb_obj_end (jb);
  jb_str (jb, "latency", sec->latency);
  jb_arr (jb, "configs");
  for (i = 0; S->configs && i < S->configs->len; i++) {
    S2Config *c = g_ptr_array_index (S->configs, i);
    gchar *rk;

    jb_obj (jb, NULL);
    json_config_head (jb, c);
    jb_obj (jb, "modes");
    for (j = 0; j < c->n_modes; j++)
      json_mode (b, jb, bench_mode_key (b, c->modes[j]), &c->m[c->modes[j]]);
    jb_obj_end (jb);
    rk = g_strdup_printf ("ratios_over_%s_median",
        bench_mode_key (b, c->ref_mode));
    jb_obj (jb, rk);
    g_free (rk);
    for (j = 0; j < c->n_modes; j++) {
      if (c->modes[j] == c->ref_mode)
        continue;
      json_ratios (jb, bench_mode_key (b, c->modes[j]), &c->m[c->modes[j]],
          &c->m[c->ref_mode], TRUE);
      jb_obj_end (jb);
    }
    jb_obj_end (jb);
    if (sec->json_config)
      sec->json_config (jb, c);
    jb_obj_end (jb);
  }
  jb_arr_end (jb);
  jb_obj_end (jb);
}

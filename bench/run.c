/* gst-cudasync
 * Copyright (C) 2026 gst-cudasync developers
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The frame harness's runs (frames.h): their state, measured window and
 * measurements, the frames per repetition, the element counters' checks
 * and the start gate of several pipelines at once.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "frames.h"

#include <math.h>
#include <string.h>

/* ------------------------------------------------------------------ */
/* the run                                                              */
/* ------------------------------------------------------------------ */

void
run_init (Run * run, Bench * b, S2Config * cfg, gint mode, FrameWriter writer,
    CUstream pstream, GAsyncQueue * free_pairs)
{
  ModeResult *m = &cfg->m[mode];

  memset (run, 0, sizeof (*run));
  g_mutex_init (&run->lock);
  run->b = b;
  run->cfg = cfg;
  run->mode = mode;
  run->spec.writer = writer;
  run->spec.gpu_us = cfg->gpu_us;
  run->spec.grid = MAX (b->r.sm_count, 1) * 4;
  run->spec.stream = pstream;
  run->free_pairs = free_pairs;
  run->total = m->frames + m->warmup;
  run->warmup = m->warmup;
  run->lat_us = series_new ();
  run->kern_us = series_new ();
}

void
run_clear (Run * run)
{
  g_array_unref (run->lat_us);
  g_array_unref (run->kern_us);
  g_free (run->error);
  g_mutex_clear (&run->lock);
}

void
run_error (Run * run, gchar * error)
{
  g_mutex_lock (&run->lock);
  if (!run->error)
    run->error = error;
  else
    g_free (error);
  g_mutex_unlock (&run->lock);
  /* unblock a producer waiting for a pool buffer */
  if (run->pool)
    gst_buffer_pool_set_flushing (run->pool, TRUE);
}

gboolean
run_failed (Run * run)
{
  gboolean f;

  g_mutex_lock (&run->lock);
  f = run->error != NULL;
  g_mutex_unlock (&run->lock);
  return f;
}

/* the measured window: from the consumer's end of the last warm-up frame to
 * its end of the last frame, so that it holds exactly the measured frames'
 * completions (opening it when the producer starts the first measured frame
 * also counted the warm-up frames still in flight: up to --in-flight - 1
 * frames of GPU work too many) */
void
run_window (Run * run, guint frame)
{
  if (frame + 1 == run->warmup) {
    run->t_start = mono_s ();
    run->cpu_start = process_cpu_s ();
  }
  if (frame == run->total - 1) {
    run->t_end = mono_s ();
    run->cpu_end = process_cpu_s ();
  }
}

void
run_record (Run * run, ModeResult * m)
{
  Bench *b = run->b;
  guint n_meas = run->total - run->warmup;
  gdouble dt = run->t_end - run->t_start;

  series_add (m->fps, dt > 0 ? n_meas / dt : NAN);
  series_add (m->proc_cpu_us, (run->cpu_end - run->cpu_start) * 1e6 / n_meas);
  series_add (m->prod_cpu_us, run->prod_cpu * 1e6 / n_meas);
  series_add (m->lat_p50_us, series_percentile (run->lat_us, 0.50));
  series_add (m->lat_p99_us, series_percentile (run->lat_us, 0.99));
  if (run->kern_us->len)
    series_add (m->kernel_us, series_median (run->kern_us));
  if (b->sim_thread_cpu_syncs)
    series_add (m->sim_syncs, (gdouble) run->sim_syncs / n_meas);
  /* a configuration of several pipelines aggregates their windows */
  m->last_t[0] = run->t_start;
  m->last_t[1] = run->t_end;
  m->last_cpu[0] = run->cpu_start;
  m->last_cpu[1] = run->cpu_end;
  m->last_frames = n_meas;
}

/* ------------------------------------------------------------------ */
/* frames, counters                                                     */
/* ------------------------------------------------------------------ */

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

gboolean
expect_stat (const GstStructure * st, const gchar * field, guint64 want,
    GString * note, const gchar * element)
{
  guint64 v = G_MAXUINT64;

  if (st && gst_structure_get_uint64 (st, field, &v) && v == want)
    return TRUE;
  g_string_append_printf (note, "%s%s %s=%" G_GINT64_FORMAT " (expected %"
      G_GUINT64_FORMAT ")", note->len ? "; " : "", element, field,
      (gint64) v, want);
  return FALSE;
}

gboolean
expect_bridge_stats (const GstStructure * st, const gchar * element,
    guint total, guint waits, GString * note, const gchar ** path)
{
  const gchar *type = st ? gst_structure_get_string (st, "semaphore-type") :
      NULL;
  guint64 sems = 0, lent = 0;
  gboolean ok = TRUE;

  if (st)
    gst_structure_get_uint64 (st, "semaphores", &sems);
  if (g_strcmp0 (type, "timeline") == 0)
    *path = "GPU (timeline semaphore)";
  else if (g_strcmp0 (type, "binary") == 0)
    *path = "GPU (binary semaphores)";
  else
    *path = "CPU fallback (Vulkan cannot export semaphores)";
  ok &= expect_stat (st, "buffers", total, note, element);
  if (g_str_equal (element, "vulkantocuda")) {
    guint64 copies = 0, in_place = 0;

    /* its Vulkan copy into the staging buffer, then (unless the output
     * wraps the staging buffer: GStreamer 1.24+) a CUDA copy out of it;
     * none for a frame upstream wrote into the pool it proposed */
    if (st) {
      gst_structure_get_uint64 (st, "copies", &copies);
      gst_structure_get_uint64 (st, "in-place", &in_place);
    }
    if (copies != 0)
      ok &= expect_stat (st, "copies", total - in_place, note, element);
    ok &= expect_stat (st, "gpu-copies", total - in_place + copies, note,
        element);
    lent = in_place;
  } else {
    guint64 in_place = 0;

    /* cudatovulkan: a copy of every frame not written in place */
    if (st)
      gst_structure_get_uint64 (st, "in-place", &in_place);
    ok &= expect_stat (st, "copies", total - in_place, note, element);
    ok &= expect_stat (st, "gpu-copies", total - in_place, note, element);
  }
  /* the CPU fallback: a wait per frame, and for a frame vulkantocuda lent
   * upstream one more, for its take-over */
  ok &= expect_stat (st, "cpu-syncs", sems > 0 ? 0 : total + lent, note,
      element);
  if (waits != G_MAXUINT)
    ok &= expect_stat (st, "waits", waits, note, element);
  return ok;
}

/* wait until every pipeline of the configuration is ready to start its
 * producer (a pipeline that failed before arrives too, from its exit
 * path) */
void
gate_arrive (StartGate * g, gboolean wait)
{
  gint64 until = g_get_monotonic_time () + 30 * G_USEC_PER_SEC;

  g_mutex_lock (&g->lock);
  g->arrived++;
  g_cond_broadcast (&g->cond);
  while (wait && g->arrived < g->n)
    if (!g_cond_wait_until (&g->cond, &g->lock, until))
      break;
  g_mutex_unlock (&g->lock);
}

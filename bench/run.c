/* gst-cudasync
 * Copyright (C) 2026 gst-cudasync developers
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * One repetition of a mode of the frame harness (frames.h), top-down:
 * s2_run_once () sets the run up (run_init, run_configure), builds and
 * starts its pipeline (build_pipeline, run_start), runs the producer and
 * the recycler threads of frames.c to the last frame (run_frames), keeps
 * the measurements and counters (run_finish) and tears it down. Then the
 * element counters' checks the modes use, and the start gate of several
 * pipelines at once.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "frames.h"

#include <math.h>
#include <string.h>
#ifdef HAVE_CUDA_VULKAN
#include "vkutil.h"
#endif

static void run_configure (Run * run, const RunInputs * in);
static GstCaps *run_caps (S2Config * cfg, gboolean sysframe);
static guint build_pipeline (Run * run, GstElement ** chain, gchar ** error);
static void add_consumer_probe (Run * run, GstElement * sink);
static gboolean run_start (Run * run, GstElement * first, GstCaps * caps,
    gchar ** error);
static gboolean run_frames (Run * run, gchar ** error);
static void run_finish (Run * run, ModeResult * m);
static void run_teardown (Run * run, gboolean ok);

/* ------------------------------------------------------------------ */
/* one repetition                                                       */
/* ------------------------------------------------------------------ */

gboolean
s2_run_once (Bench * b, S2Config * cfg, gint mode, const RunInputs * in,
    gchar ** error)
{
  GstElement *chain[8] = { NULL, };
  gboolean ok = FALSE, arrived = FALSE;
  GstCaps *caps;
  guint n;
  Run run;

  if (b->modes[mode]->run_once)
    return b->modes[mode]->run_once (b, cfg, mode, in, error);

  run_init (&run, b, cfg, mode, in);
  run_configure (&run, in);
  if (in->pool)
    gst_buffer_pool_set_flushing (in->pool, FALSE);
  caps = run_caps (cfg, in->sysframe != NULL);
  gst_video_info_from_caps (&run.spec.info, caps);
  run.pipeline = pipeline_new (b);

  n = build_pipeline (&run, chain, error);
  if (n > 0) {
    add_consumer_probe (&run, chain[n - 1]);
    ok = run_start (&run, chain[0], caps, error);
  }
  if (ok && cfg->gate) {
    gate_arrive (cfg->gate, TRUE);
    arrived = TRUE;
  }
  ok = ok && run_frames (&run, error);
  if (ok)
    run_finish (&run, &cfg->m[mode]);

  if (cfg->gate && !arrived)
    gate_arrive (cfg->gate, FALSE);
  run_teardown (&run, ok);
  gst_caps_unref (caps);
  run_clear (&run);
  return ok;
}

void
run_init (Run * run, Bench * b, S2Config * cfg, gint mode, const RunInputs * in)
{
  ModeResult *m = &cfg->m[mode];

  memset (run, 0, sizeof (*run));
  g_mutex_init (&run->lock);
  run->b = b;
  run->cfg = cfg;
  run->mode = mode;
  run->spec.writer = in->writer;
  run->spec.gpu_us = cfg->gpu_us;
  run->spec.grid = MAX (b->r.sm_count, 1) * 4;
  run->spec.stream = in->pstream;
  run->free_pairs = in->free_pairs;
  run->total = m->frames + m->warmup;
  run->warmup = m->warmup;
  run->lat_us = series_new ();
  run->kern_us = series_new ();
}

/* what each mode does besides its pipeline */
static void
run_configure (Run * run, const RunInputs * in)
{
  BenchModeFlags flags = run->b->modes[run->mode]->flags;

  run->pool = in->sysframe ? NULL : in->pool;
  run->sysframe = in->sysframe;
  run->sem_c = in->sem_c;
  run->sem_p = in->sem_p;
  run->recycle_q = g_async_queue_new ();
  run->producer_sync = (flags & MODE_F_PRODUCER_SYNC) != 0;
  /* MODE_F_MEMORY_STREAM: the memory's stream and its NEED_SYNC order
   * the consumers after the producer, as upstream producers do */
  run->acquire = !run->producer_sync && !in->sysframe &&
      !(flags & MODE_F_MEMORY_STREAM);
  run->need_sync = (flags & MODE_F_MEMORY_STREAM) != 0;
  run->wall = (flags & MODE_F_WALL) != 0;
  if (flags & (MODE_F_PENDING | MODE_F_SINK_EVENT))
    run->pending = g_async_queue_new ();
  run->sink_event = (flags & MODE_F_SINK_EVENT) != 0;
}

static GstCaps *
run_caps (S2Config * cfg, gboolean sysframe)
{
  if (!sysframe)
    return cuda_caps (cfg->format, cfg->width, cfg->height);
  return gst_caps_new_simple ("video/x-raw", "format", G_TYPE_STRING,
      cfg->format, "width", G_TYPE_INT, cfg->width, "height", G_TYPE_INT,
      cfg->height, "framerate", GST_TYPE_FRACTION, 60, 1, NULL);
}

/* The mode's elements, then (MODE_F_PENDING) queue ! vulkandownload (not
 * with MODE_F_SINK_EVENT), then fakesink, linked, with the bench's Vulkan
 * contexts and the consumer probe. Returns the number of elements, 0 on
 * failure. */
static guint
build_pipeline (Run * run, GstElement ** chain, gchar ** error)
{
  GstElement *sink;
  guint n = 0, i;
  gboolean ok = run->b->modes[run->mode]->build_chain (run, chain, &n,
      error);

  if (run->pending) {
    chain[n++] = make (run->pipeline, "queue", NULL, error);
    if (!run->sink_event)
      chain[n++] = make (run->pipeline, "vulkandownload", NULL, error);
  }
  for (i = 0; i < n; i++)
    if (chain[i] && g_str_equal (G_OBJECT_TYPE_NAME (chain[i]), "GstQueue"))
      g_object_set (chain[i], "max-size-bytes", 0, "max-size-time",
          (guint64) 0, NULL);
  sink = chain[n++] = make (run->pipeline, "fakesink", "sink", error);
  for (i = 0; i < n; i++)
    ok &= chain[i] != NULL;
  if (!ok)
    return 0;
  /* the bench's Vulkan instance and device (ensure_vulkan_device ()): the
   * bridge elements take the device context, upstream vulkan elements the
   * instance (whose create-device signal gives them the device) */
  give_vulkan_contexts (run->b, chain, n);
  g_object_set (sink, "sync", FALSE, "async", FALSE, "enable-last-sample",
      FALSE, "silent", TRUE, NULL);
  for (i = 0; i + 1 < n; i++) {
    if (!gst_element_link (chain[i], chain[i + 1])) {
      *error = g_strdup_printf ("could not link %s ! %s",
          GST_OBJECT_NAME (chain[i]), GST_OBJECT_NAME (chain[i + 1]));
      return 0;
    }
  }
  return n;
}

static void
add_consumer_probe (Run * run, GstElement * sink)
{
  GstPad *pad;

  if (run->pending) {
    pad = gst_element_get_static_pad (sink, "sink");
    gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER |
        GST_PAD_PROBE_TYPE_EVENT_DOWNSTREAM, frames_sink_probe, run, NULL);
    gst_object_unref (pad);
  } else {
    add_buffer_probe (run->el.probe_el, "src", frames_consumer_probe, run);
  }
}

/* links the producer's pad to @first, starts the pipeline and sends the
 * initial events */
static gboolean
run_start (Run * run, GstElement * first, GstCaps * caps, gchar ** error)
{
  GstPad *pad;

  run->srcpad = any_pad_new (GST_PAD_SRC);
  pad = gst_element_get_static_pad (first, "sink");
  if (gst_pad_link (run->srcpad, pad) != GST_PAD_LINK_OK) {
    gst_object_unref (pad);
    *error = g_strdup ("could not link the producer pad");
    return FALSE;
  }
  gst_object_unref (pad);
  gst_pad_set_active (run->srcpad, TRUE);

  if (gst_element_set_state (run->pipeline,
          GST_STATE_PLAYING) == GST_STATE_CHANGE_FAILURE) {
    gchar *e = bus_error (run->pipeline);
    *error = g_strdup_printf ("the pipeline did not start: %s",
        e ? e : "no error message");
    g_free (e);
    return FALSE;
  }
  return push_initial_events (run->srcpad, caps, error);
}

/* the producer and the recycler, to the end of the run */
static gboolean
run_frames (Run * run, gchar ** error)
{
  GThread *producer, *recycler;
  guint n_meas;

  bench_progress (&run->b->wd);
  recycler = g_thread_new ("bench-recycler", frames_recycler, run);
  producer = g_thread_new ("bench-producer", frames_producer, run);
  g_thread_join (producer);
  g_thread_join (recycler);

  if (!run->error)
    run->error = bus_error (run->pipeline);
  if (run->error) {
    *error = g_strdup (run->error);
    return FALSE;
  }
  if (!ctx_sync (run->b, error))
    return FALSE;
  n_meas = run->total - run->warmup;
  if (run->lost || run->lat_us->len != n_meas) {
    *error = g_strdup_printf ("%u of %u frames did not reach the consumer "
        "(%u latency samples)", run->lost, run->total, run->lat_us->len);
    return FALSE;
  }
  return TRUE;
}

/* the run's measurements and counters into the mode's results */
static void
run_finish (Run * run, ModeResult * m)
{
  Bench *b = run->b;
  GstStructure *ss = NULL, *ws = NULL;
  GString *note = g_string_new (NULL);
  const gchar *path = NULL;
  const BenchMode *mode = b->modes[run->mode];
  gboolean sok = !mode->check_stats ||
      mode->check_stats (run, &ss, &ws, note, &path);

  g_mutex_lock (&b->lock);
  run_record (run, m);
  if (m->sig_stats)
    gst_structure_free (m->sig_stats);
  if (m->wait_stats)
    gst_structure_free (m->wait_stats);
  m->sig_stats = ss;
  m->wait_stats = ws;
  if (path) {
    g_free (m->path);
    m->path = g_strdup (path);
  }
  if (!sok) {
    m->stats_ok = FALSE;
    g_free (m->stats_note);
    m->stats_note = g_strdup (note->str);
  }
  g_mutex_unlock (&b->lock);
  if (!sok)
    g_print ("    WARNING: mode %s: unexpected element stats: %s\n",
        mode->key, note->str);
  g_string_free (note, TRUE);
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

/* stops the pipeline and gives back the frames a failed run left behind.
 * After a complete run (@ok: every frame reached the consumer, so nothing
 * submits Vulkan work any more) the pipeline's Vulkan queues are drained
 * first: vk_util_drain_pipeline() says why (a Mesa lavapipe race at
 * teardown with GStreamer 1.24+, seen in modes b). */
static void
run_teardown (Run * run, gboolean ok)
{
  RecycleItem *item;

#ifdef HAVE_CUDA_VULKAN
  if (ok)
    vk_util_drain_pipeline (run->pipeline);
#endif
  gst_element_set_state (run->pipeline, GST_STATE_NULL);
  if (run->srcpad) {
    gst_pad_set_active (run->srcpad, FALSE);
    gst_object_unref (run->srcpad);
  }
  gst_object_unref (run->pipeline);
  while (run->pending && (item = g_async_queue_try_pop (run->pending)))
    g_async_queue_push (run->recycle_q, item);
  while ((item = g_async_queue_try_pop (run->recycle_q))) {
    if (item->buf) {
      gst_buffer_unref (item->buf);
      g_async_queue_push (run->free_pairs, item->pair);
    }
    if (item->out)
      gst_buffer_unref (item->out);
    g_free (item);
  }
  if (!ok)
    ctx_sync (run->b, NULL);
  if (run->pending)
    g_async_queue_unref (run->pending);
  g_async_queue_unref (run->recycle_q);
  if (run->proposed) {
    gst_buffer_pool_set_active (run->proposed, FALSE);
    gst_clear_object (&run->proposed);
  }
}

void
run_clear (Run * run)
{
  g_array_unref (run->lat_us);
  g_array_unref (run->kern_us);
  g_free (run->error);
  g_mutex_clear (&run->lock);
}

/* ------------------------------------------------------------------ */
/* frames per repetition, the counters the modes check, the start gate */
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

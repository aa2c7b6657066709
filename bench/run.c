/* gst-cudasync
 * Copyright (C) 2026 gst-cudasync developers
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * One repetition of a mode of the frame harness (frames.h): probes,
 * recycler and producer threads, s2_run_once (); the start gate.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "frames.h"

#include <math.h>
#include <string.h>
#include <gst/cuda/gstcudamemory.h>
#ifdef HAVE_CUDA_VULKAN
#include "vkutil.h"
#endif

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
 * its end of the last frame (exactly the measured frames' completions) */
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

/* the consumer's end on the streaming thread (without MODE_F_PENDING): E1
 * on the legacy default stream, the buffer to the recycler */
static GstPadProbeReturn
frames_consumer_probe (GstPad * pad, GstPadProbeInfo * info, gpointer user_data)
{
  Run *run = user_data;
  GstBuffer *buf = GST_PAD_PROBE_INFO_BUFFER (info);
  RecycleItem *item;
  CUresult r = CUDA_ERROR_INVALID_CONTEXT;

  if (!run->cur_pair)
    return GST_PAD_PROBE_OK;

  if (gst_cuda_context_push (run->b->ctx)) {
    r = drv.cuEventRecord (run->cur_pair->e1, NULL);
    gst_cuda_context_pop (NULL);
  }
  if (r != CUDA_SUCCESS)
    run_error (run, cu_error ("cuEventRecord (consumer)", r));

  item = g_new0 (RecycleItem, 1);
  item->buf = gst_buffer_ref (buf);
  item->pair = run->cur_pair;
  item->frame = run->cur_frame;
  item->e1_recorded = TRUE;
  item->kernel = run->sysframe == NULL;
  item->t0 = run->cur_t0;
  run->cur_pair = NULL;
  g_async_queue_push (run->recycle_q, item);
  return GST_PAD_PROBE_OK;
}

/* MODE_F_PENDING: a frame reached the sink, in order, after the queue */
static GstPadProbeReturn
frames_sink_probe (GstPad * pad, GstPadProbeInfo * info, gpointer user_data)
{
  Run *run = user_data;

  if (info->type & GST_PAD_PROBE_TYPE_BUFFER) {
    RecycleItem *item = g_async_queue_try_pop (run->pending);

    if (!item) {
      run_error (run, g_strdup ("a frame came out of vulkandownload that "
              "the producer did not push"));
      return GST_PAD_PROBE_OK;
    }
    item->t1 = mono_s ();
    if (run->sink_event) {
      /* MODE_F_SINK_EVENT: the CUDA consumer's end event */
      CUresult r = CUDA_ERROR_INVALID_CONTEXT;

      if (gst_cuda_context_push (run->b->ctx)) {
        r = drv.cuEventRecord (item->pair->e1, NULL);
        gst_cuda_context_pop (NULL);
      }
      if (r != CUDA_SUCCESS)
        run_error (run, cu_error ("cuEventRecord (consumer)", r));
      else
        item->e1_recorded = TRUE;
      item->out = gst_buffer_ref (GST_PAD_PROBE_INFO_BUFFER (info));
    }
    g_async_queue_push (run->recycle_q, item);
  } else if (info->type & GST_PAD_PROBE_TYPE_EVENT_DOWNSTREAM &&
      GST_EVENT_TYPE (GST_PAD_PROBE_INFO_EVENT (info)) == GST_EVENT_EOS) {
    g_async_queue_push (run->recycle_q, g_new0 (RecycleItem, 1));
  }
  return GST_PAD_PROBE_OK;
}

GstPadProbeReturn
cpu_sync_probe (GstPad * pad, GstPadProbeInfo * info, gpointer user_data)
{
  Run *run = user_data;
  gchar *error = NULL;

  if (!ctx_sync (run->b, &error))
    run_error (run, error);
  return GST_PAD_PROBE_OK;
}

void
add_buffer_probe (GstElement * element, const gchar * pad_name,
    GstPadProbeCallback func, Run * run)
{
  GstPad *pad = gst_element_get_static_pad (element, pad_name);

  gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER, func, run, NULL);
  gst_object_unref (pad);
}

/* Waits for the item's end (and kernel) events and reads them: *ms the
 * latency (GPU time, or left for the wall clock), *kms the frame write. */
static CUresult
recycler_wait (Run * run, RecycleItem * item, gfloat * ms, gfloat * kms)
{
  CUresult r = CUDA_SUCCESS;

  if (!item->e1_recorded && !item->kernel)
    return CUDA_SUCCESS;
  if (!gst_cuda_context_push (run->b->ctx))
    return CUDA_ERROR_INVALID_CONTEXT;
  if (item->e1_recorded) {
    r = drv.cuEventSynchronize (item->pair->e1);
    if (run->wall)
      item->t1 = mono_s ();
    else if (r == CUDA_SUCCESS)
      r = drv.cuEventElapsedTime (ms, item->pair->e0, item->pair->e1);
  }
  if (item->kernel) {
    if (r == CUDA_SUCCESS)
      r = drv.cuEventSynchronize (item->pair->ek);
    if (r == CUDA_SUCCESS)
      r = drv.cuEventElapsedTime (kms, item->pair->e0, item->pair->ek);
  }
  gst_cuda_context_pop (NULL);
  return r;
}

/* waits for the consumer's end of each frame, reads the latency, then
 * returns the buffer to the pool: the pool bounds the frames in flight */
static gpointer
frames_recycler (gpointer data)
{
  Run *run = data;

  for (;;) {
    RecycleItem *item = run->wall ?
        g_async_queue_timeout_pop (run->recycle_q, RUN_WAIT_US) :
        g_async_queue_pop (run->recycle_q);
    gfloat ms = 0, kms = 0;
    CUresult r;

    if (!item) {
      run_error (run, g_strdup_printf ("no frame came out of the pipeline "
              "for %d s", (gint) (RUN_WAIT_US / G_USEC_PER_SEC)));
      break;
    }
    if (!item->buf) {
      g_free (item);
      break;
    }
    r = recycler_wait (run, item, &ms, &kms);
    if (run->wall)
      ms = (item->t1 - item->t0) * 1e3;
    if (r != CUDA_SUCCESS)
      run_error (run, cu_error ("cuEventSynchronize/cuEventElapsedTime", r));
    else if (item->frame >= run->warmup) {
      series_add (run->lat_us, ms * 1000.0);
      if (item->kernel)
        series_add (run->kern_us, kms * 1000.0);
    }
    run_window (run, item->frame);
    gst_buffer_unref (item->buf);
    if (item->out)
      gst_buffer_unref (item->out);
    g_async_queue_push (run->free_pairs, item->pair);
    g_free (item);
    bench_progress (&run->b->wd);
  }
  return NULL;
}

/* E0, the frame write, EK (and the CPU-synchronised modes' wait) on the
 * producer stream; call with the context pushed. *what: the failed call. */
static CUresult
enqueue_frame (Run * run, EvPair * pair, GstBuffer * buf, guint8 * data,
    guint n, const gchar ** what)
{
  CUresult r;

  *what = "cuEventRecord (producer stream)";
  r = drv.cuEventRecord (pair->e0, run->spec.stream);
  if (r == CUDA_SUCCESS) {
    *what = run->spec.writer == WRITER_KERNEL ? "cuLaunchKernel" :
        "cuMemsetD32Async";
    r = frame_write (run->b, &run->spec, buf, data, n);
  }
  if (r == CUDA_SUCCESS) {
    *what = "cuEventRecord (producer stream)";
    r = drv.cuEventRecord (pair->ek, run->spec.stream);
  }
  if (r == CUDA_SUCCESS && run->producer_sync) {
    *what = "cuStreamSynchronize (producer stream)";
    r = CuStreamSynchronize (run->spec.stream);
  }
  return r;
}

/* a CUDA frame written on the producer stream; *t0: its start, once a
 * pool buffer is free (as the raw reference's once a slot is) */
static GstBuffer *
produce_cuda_frame (Run * run, EvPair * pair, guint n, gdouble * t0)
{
  GstBuffer *buf = NULL;
  GstMapInfo map;
  GError *err = NULL;
  CUresult r;
  guint64 value = 0;
  const gchar *what;

  /* blocks while all pool buffers are in flight */
  if (gst_buffer_pool_acquire_buffer (run->pool, &buf, NULL) != GST_FLOW_OK) {
    run_error (run, g_strdup ("could not acquire a buffer"));
    return NULL;
  }
  *t0 = mono_s ();
  if (!gst_buffer_map (buf, &map, GST_MAP_WRITE | GST_MAP_CUDA)) {
    run_error (run, g_strdup ("could not map the buffer (GST_MAP_CUDA)"));
    gst_buffer_unref (buf);
    return NULL;
  }
  if (!gst_cuda_context_push (run->b->ctx)) {
    run_error (run, g_strdup ("could not push the CUDA context"));
    gst_buffer_unmap (buf, &map);
    gst_buffer_unref (buf);
    return NULL;
  }
  r = enqueue_frame (run, pair, buf, map.data, n, &what);
  gst_cuda_context_pop (NULL);
  if (r == CUDA_SUCCESS && run->acquire &&
      !gst_cuda_semaphore_signal (run->sem_p, run->spec.stream, &value, &err)) {
    run_error (run, g_strdup_printf ("gst_cuda_semaphore_signal "
            "(producer): %s", err->message));
    g_clear_error (&err);
    r = CUDA_ERROR_UNKNOWN;
  } else if (r != CUDA_SUCCESS) {
    gchar *call = g_strdup_printf ("producer: %s", what);
    run_error (run, cu_error (call, r));
    g_free (call);
  }
  gst_buffer_unmap (buf, &map);
  if (r != CUDA_SUCCESS) {
    gst_buffer_unref (buf);
    return NULL;
  }
#if GST_CHECK_VERSION(1, 24, 0)
  if (run->need_sync)
    GST_MINI_OBJECT_FLAG_SET (gst_buffer_peek_memory (buf, 0),
        GST_CUDA_MEMORY_TRANSFER_NEED_SYNC);
#endif
  if (run->acquire)
    gst_cuda_sync_meta_add_acquire (gst_buffer_add_cuda_sync_meta (buf),
        run->sem_p, value);
  return buf;
}

/* the next frame and its event pair (*pair), or NULL (run error set) */
static GstBuffer *
producer_next (Run * run, guint n, EvPair ** pair, gdouble * t0)
{
  GstBuffer *buf;

  if (run->sysframe) {
    /* system-memory frames: the free pairs bound the frames in flight */
    *pair = g_async_queue_timeout_pop (run->free_pairs, RUN_WAIT_US);
    if (!*pair) {
      run_error (run, g_strdup ("no frame was released for 10 s"));
      return NULL;
    }
    *t0 = mono_s ();
    return gst_buffer_ref (run->sysframe);
  }
  *pair = g_async_queue_pop (run->free_pairs);
  buf = produce_cuda_frame (run, *pair, n, t0);
  if (!buf)
    g_async_queue_push (run->free_pairs, *pair);
  return buf;
}

/* hands the frame's pair to whoever ends the frame, then pushes it */
static GstFlowReturn
producer_push (Run * run, GstBuffer * buf, EvPair * pair, guint n, gdouble t0)
{
  GstFlowReturn fr;

  if (run->pending) {
    /* MODE_F_PENDING: the sink probe (another thread) ends the frame */
    RecycleItem *item = g_new0 (RecycleItem, 1);

    item->buf = gst_buffer_ref (buf);
    item->pair = pair;
    item->frame = n;
    item->kernel = TRUE;
    item->t0 = t0;
    g_async_queue_push (run->pending, item);
    run->cur_pair = NULL;
  } else {
    run->cur_pair = pair;
    run->cur_frame = n;
    run->cur_t0 = t0;
  }
  fr = gst_pad_push (run->srcpad, buf);
  if (run->cur_pair) {
    /* the buffer never reached the consumer probe */
    g_async_queue_push (run->free_pairs, run->cur_pair);
    run->cur_pair = NULL;
    run->lost++;
  }
  if (fr != GST_FLOW_OK) {
    gchar *e = bus_error (run->pipeline);
    run_error (run, g_strdup_printf ("gst_pad_push: %s%s%s",
            gst_flow_get_name (fr), e ? ": " : "", e ? e : ""));
    g_free (e);
  }
  return fr;
}

/* MODE_F_IN_PLACE, once frame 0 has negotiated the caps: from now on the
 * producer writes into the pool the bridge element proposes */
static void
adopt_proposed_pool (Run * run)
{
  GstPad *pad = gst_element_get_static_pad (run->el.bridge, "sink");
  GstCaps *caps = gst_pad_get_current_caps (pad);
  GstBufferPool *pool = NULL;
  GstStructure *config;
  GstQuery *query;
  guint size = 0;

  if (caps) {
    query = gst_query_new_allocation (caps, TRUE);
    if (gst_pad_query (pad, query) &&
        gst_query_get_n_allocation_pools (query) > 0)
      gst_query_parse_nth_allocation_pool (query, 0, &pool, &size, NULL, NULL);
    gst_query_unref (query);
  }
  gst_object_unref (pad);
  if (!pool) {
    gst_clear_caps (&caps);
    return;
  }
  /* as many frames in flight as the bench's own pool allows */
  config = gst_buffer_pool_get_config (pool);
  gst_buffer_pool_config_set_params (config, caps, size, 0,
      run->b->opt.in_flight);
  gst_buffer_pool_config_add_option (config, GST_BUFFER_POOL_OPTION_VIDEO_META);
  if (gst_buffer_pool_set_config (pool, config) &&
      gst_buffer_pool_set_active (pool, TRUE)) {
    run->proposed = pool;
    run->pool = pool;
  } else {
    gst_object_unref (pool);
  }
  gst_caps_unref (caps);
}

static gpointer
frames_producer (gpointer data)
{
  Run *run = data;
  Bench *b = run->b;
  guint n;
  guint syncs0 = 0;
  gdouble tcpu0 = 0;
  gboolean eos = FALSE;

  for (n = 0; n < run->total && !run_failed (run); n++) {
    EvPair *pair;
    GstBuffer *buf;
    gdouble t0;

    if (n == run->warmup) {
      tcpu0 = thread_cpu_s ();
      if (b->sim_thread_cpu_syncs)
        syncs0 = b->sim_thread_cpu_syncs ();
    }
    if (bench_stopped (b)) {
      /* a failure elsewhere left the GPU in doubt */
      run_error (run, g_strdup (BENCH_STOPPED));
      break;
    }
    if (n == 1 && (run->b->modes[run->mode]->flags & MODE_F_IN_PLACE))
      adopt_proposed_pool (run);
    buf = producer_next (run, n, &pair, &t0);
    if (!buf)
      break;
    if (producer_push (run, buf, pair, n, t0) != GST_FLOW_OK)
      break;
    bench_progress (&b->wd);
  }
  run->prod_cpu = thread_cpu_s () - tcpu0;
  if (b->sim_thread_cpu_syncs)
    run->sim_syncs = b->sim_thread_cpu_syncs () - syncs0;

  /* stop the recycler (MODE_F_PENDING: the EOS, after the queue) */
  if (run->pending && !run_failed (run))
    eos = gst_pad_push_event (run->srcpad, gst_event_new_eos ());
  if (!eos)
    g_async_queue_push (run->recycle_q, g_new0 (RecycleItem, 1));
  return NULL;
}

static void run_configure (Run * run, const RunInputs * in);
static GstCaps *run_caps (S2Config * cfg, gboolean sysframe);
static guint build_pipeline (Run * run, GstElement ** chain, gchar ** error);
static void add_consumer_probe (Run * run, GstElement * sink);
static gboolean run_start (Run * run, GstElement * first, GstCaps * caps,
    gchar ** error);
static gboolean run_frames (Run * run, gchar ** error);
static void run_finish (Run * run, ModeResult * m);
static void run_teardown (Run * run, gboolean ok);

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
  if (in->vk_ctx[1])
    pipeline_set_vulkan_contexts (run.pipeline, in->vk_ctx);

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

/* the mode's elements, (MODE_F_PENDING) queue ! vulkandownload (not with
 * MODE_F_SINK_EVENT), fakesink, linked; the number of elements, or 0 */
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
  /* the bench's Vulkan instance and device */
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

/* stops the pipeline (after a complete run, its Vulkan queues drained
 * first: vk_util_drain_pipeline () says why) and gives back the frames a
 * failed run left behind */
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

/* waits until every pipeline of the configuration is ready (a failed one
 * arrives from its exit path) */
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

/* gst-cudasync
 * Copyright (C) 2026 gst-cudasync developers
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The frame harness of scenarios 2 to 6 (see frames.h), its threads'
 * side: the producer and the recycler, the consumer probes, and the run
 * state they share (its error and measured window). One repetition, which
 * starts them, is run.c's.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "frames.h"

#include <gst/cuda/gstcudamemory.h>

/* ------------------------------------------------------------------ */
/* the run's state, from any of its threads                            */
/* ------------------------------------------------------------------ */

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

/* ------------------------------------------------------------------ */
/* probes                                                               */
/* ------------------------------------------------------------------ */

/* The consumer end on the streaming thread (without MODE_F_PENDING):
 * records the frame's end event E1 on the legacy default stream (after
 * cudasemwait's waits, or after vulkantocuda's / cudaupload's work), and
 * hands the buffer to the recycler. */
GstPadProbeReturn
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

/* MODE_F_PENDING: a frame reached the sink (after vulkandownload: the
 * Vulkan consumer is done with it), on the thread after the queue. Frames
 * come out in order. */
GstPadProbeReturn
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
      /* MODE_F_SINK_EVENT: the CUDA consumer's end event, after the last
       * element's work (vulkantocuda makes the legacy default stream wait
       * for its copy) */
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

/* ------------------------------------------------------------------ */
/* recycler and producer                                                */
/* ------------------------------------------------------------------ */

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

/* Waits (off the streaming thread) until the consumer's end of each frame,
 * reads the latency, then returns the buffer to the pool: this is what
 * bounds the frames in flight to the pool size. */
gpointer
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

/* a CUDA frame written on the producer stream; *t0: the frame's start,
 * once a pool buffer is free (as the raw reference starts its frames once
 * a slot is free), so that the latency never includes the wait for the
 * previous frames */
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

/* MODE_F_IN_PLACE, once frame 0 has negotiated the caps: the producer
 * writes into the pool the bridge element proposes for them from now on
 * (kept in run->proposed until the teardown) */
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

gpointer
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
      /* the run's window (t_start, cpu_start) opens when the consumer sees
       * the last warm-up frame (recycler): frames still in flight here
       * must not count as measured-window work */
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

  /* stop the recycler after everything pushed so far: with
   * MODE_F_PENDING the EOS reaching the sink does, after the frames still
   * in the queue */
  if (run->pending && !run_failed (run))
    eos = gst_pad_push_event (run->srcpad, gst_event_new_eos ());
  if (!eos)
    g_async_queue_push (run->recycle_q, g_new0 (RecycleItem, 1));
  return NULL;
}

/* gst-cudasync
 * Copyright (C) 2026 gst-cudasync developers
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Scenario 8's consumer (each frame read on the GPU on its own stream, a
 * thread timestamping each read's end) and the other process's main.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <gst/cuda/gstcudamemory.h>

#include "scenario-8.h"
#include "pipeline.h"

const S8Mode s8_modes[S8_N_MODES] = {
  [S8_S] = {"s", "this project: cudasyncipcsink -> cudasyncipcsrc "
        "wait-mode=gpu: GPU waits and copies on both sides, no CPU wait",
      "cudasyncipcsink", "cudasyncipcsrc", NULL, NULL, FALSE},
  [S8_U] = {"u", "upstream: cuStreamSynchronize, cudaipcsink ipc-mode=legacy "
        "(the producer's buffer, no copy) -> cudaipcsrc (a copy, "
        "cuStreamSynchronize); newest frame only",
      "cudaipcsink", "cudaipcsrc", "legacy", NULL, FALSE},
  [S8_UM] = {"um", "upstream: as u with ipc-mode=mmap (a copy and a CPU "
        "wait on each side)", "cudaipcsink", "cudaipcsrc", "mmap", NULL, FALSE},
  [S8_P] = {"p", "one process, no IPC: a fakesink probe consumes the "
        "frames, waiting for their acquire point on its stream", NULL, NULL,
      NULL, NULL, FALSE},
  [S8_SI] = {"si", "as s, with cudasyncipcsrc io-mode=import: the source "
        "pushes the shared memory, no copy (GStreamer 1.22 copies)",
      "cudasyncipcsink", "cudasyncipcsrc", NULL, "import", FALSE},
  [S8_SP] = {"s_pool", "as s, with the producer writing into "
        "cudasyncipcsink's pool (1.24+): the sink sends each frame without a "
        "copy", "cudasyncipcsink", "cudasyncipcsrc", NULL,
      NULL, TRUE, TRUE},
  [S8_SIP] = {"si_pool", "as s_pool, with cudasyncipcsrc io-mode=import: "
        "no copy on either side", "cudasyncipcsink", "cudasyncipcsrc", NULL,
      "import", TRUE, TRUE},
};

#define S8_SLOTS 8
#define S8_WAIT_US (8 * G_USEC_PER_SEC)

typedef struct
{
  guint slot;                   /* G_MAXUINT: stop */
  GstBuffer *buf;
} S8Item;

struct _S8Consumer
{
  Bench *b;
  gboolean acquire_meta;
  FILE *proto;                  /* the child's protocol: "ready" (lock;
                                 * NULL once closed) */
  CUstream stream;
  CUdeviceptr scratch;
  gsize scratch_size;
  guint32 *stamps;              /* pinned, one per slot */
  CUevent ev_in[S8_SLOTS], ev_done[S8_SLOTS];
  GAsyncQueue *free_slots;
  GAsyncQueue *done_q;
  GThread *thread;
  GstVideoInfo info;
  gboolean have_info;

  GMutex lock;
  GCond cond;
  GArray *index;                /* guint: every frame seen, in order */
  GArray *t1;                   /* gdouble */
  GArray *cpu;                  /* gdouble: process CPU when it was seen */
  gchar *error;
};

static void
consumer_error (S8Consumer * c, gchar * error)
{
  g_mutex_lock (&c->lock);
  if (!c->error)
    c->error = error;
  else
    g_free (error);
  g_cond_broadcast (&c->cond);
  g_mutex_unlock (&c->lock);
}

/* the read of one frame on the consumer's stream; context pushed */
static CUresult
enqueue_read (S8Consumer * c, GstBuffer * buf, guint slot, const gchar ** what)
{
  GstVideoFrame frame;
  CUresult r = CUDA_SUCCESS;
  guint i;

  if (c->acquire_meta) {
    GstCudaSyncMeta *meta = gst_buffer_get_cuda_sync_meta (buf);
    GError *err = NULL;

    *what = "gst_cuda_sync_meta_wait_gpu";
    if (meta && !gst_cuda_sync_meta_wait_gpu (meta, c->stream, &err)) {
      g_clear_error (&err);
      return CUDA_ERROR_UNKNOWN;
    }
  } else {
    /* after the source's work on the legacy default stream (cudasyncipcsrc
     * wait-mode=gpu orders it after its copy; cudaipcsrc has synchronised
     * on the CPU already) */
    *what = "cuEventRecord/cuStreamWaitEvent";
    r = drv.cuEventRecord (c->ev_in[slot], NULL);
    if (r == CUDA_SUCCESS)
      r = drv.cuStreamWaitEvent (c->stream, c->ev_in[slot], 0);
  }
  if (r != CUDA_SUCCESS)
    return r;
  *what = "gst_video_frame_map (CUDA)";
  if (!gst_video_frame_map (&frame, &c->info, buf, GST_MAP_READ | GST_MAP_CUDA))
    return CUDA_ERROR_INVALID_VALUE;
  *what = "cuMemcpy2DAsync";
  for (i = 0; r == CUDA_SUCCESS && i < GST_VIDEO_FRAME_N_PLANES (&frame); i++) {
    CUDA_MEMCPY2D p;

    memset (&p, 0, sizeof (p));
    p.srcMemoryType = CU_MEMORYTYPE_DEVICE;
    p.srcDevice = (CUdeviceptr) GST_VIDEO_FRAME_PLANE_DATA (&frame, i);
    p.srcPitch = GST_VIDEO_FRAME_PLANE_STRIDE (&frame, i);
    p.dstMemoryType = CU_MEMORYTYPE_DEVICE;
    p.dstDevice = c->scratch + GST_VIDEO_INFO_PLANE_OFFSET (&c->info, i);
    p.dstPitch = GST_VIDEO_INFO_PLANE_STRIDE (&c->info, i);
    p.WidthInBytes = GST_VIDEO_FRAME_COMP_WIDTH (&frame, i) *
        GST_VIDEO_FRAME_COMP_PSTRIDE (&frame, i);
    p.Height = GST_VIDEO_FRAME_COMP_HEIGHT (&frame, i);
    r = CuMemcpy2DAsync (&p, c->stream);
    if (r == CUDA_SUCCESS && i == 0) {
      /* the frame's index: its first word */
      p.dstMemoryType = CU_MEMORYTYPE_HOST;
      p.dstHost = &c->stamps[slot];
      p.dstPitch = p.WidthInBytes = 4;
      p.Height = 1;
      r = CuMemcpy2DAsync (&p, c->stream);
    }
  }
  gst_video_frame_unmap (&frame);
  if (r == CUDA_SUCCESS) {
    *what = "cuEventRecord (consumer)";
    r = drv.cuEventRecord (c->ev_done[slot], c->stream);
  }
  return r;
}

/* the consumer's scratch frame, once the caps are known */
static gboolean
consumer_prepare (S8Consumer * c, GstPad * pad)
{
  GstCaps *caps = gst_pad_get_current_caps (pad);
  gboolean ok = caps && gst_video_info_from_caps (&c->info, caps);
  CUresult r;

  gst_clear_caps (&caps);
  if (!ok) {
    consumer_error (c, g_strdup ("the consumer got a frame without video "
            "caps"));
    return FALSE;
  }
  c->scratch_size = GST_VIDEO_INFO_SIZE (&c->info);
  if (!gst_cuda_context_push (c->b->ctx))
    return FALSE;
  r = CuMemAlloc (&c->scratch, c->scratch_size);
  gst_cuda_context_pop (NULL);
  if (r != CUDA_SUCCESS) {
    consumer_error (c, cu_error ("cuMemAlloc (consumer scratch)", r));
    return FALSE;
  }
  c->have_info = TRUE;
  return TRUE;
}

static GstPadProbeReturn
consumer_probe (GstPad * pad, GstPadProbeInfo * info, gpointer user_data)
{
  S8Consumer *c = user_data;
  GstBuffer *buf = GST_PAD_PROBE_INFO_BUFFER (info);
  const gchar *what = "gst_cuda_context_push";
  CUresult r = CUDA_ERROR_INVALID_CONTEXT;
  gpointer slot;
  S8Item *item;

  if (!c->have_info && !consumer_prepare (c, pad))
    return GST_PAD_PROBE_OK;
  /* bounds the reads in flight (the GPU is behind: not a per-frame wait) */
  slot = g_async_queue_timeout_pop (c->free_slots, S8_WAIT_US);
  if (!slot) {
    consumer_error (c, g_strdup_printf ("no consumer slot was free for %d s",
            (gint) (S8_WAIT_US / G_USEC_PER_SEC)));
    return GST_PAD_PROBE_OK;
  }
  if (gst_cuda_context_push (c->b->ctx)) {
    r = enqueue_read (c, buf, GPOINTER_TO_UINT (slot) - 1, &what);
    gst_cuda_context_pop (NULL);
  }
  if (r != CUDA_SUCCESS) {
    consumer_error (c, cu_error (what, r));
    g_async_queue_push (c->free_slots, slot);
    return GST_PAD_PROBE_OK;
  }
  item = g_new0 (S8Item, 1);
  item->slot = GPOINTER_TO_UINT (slot) - 1;
  item->buf = gst_buffer_ref (buf);
  g_async_queue_push (c->done_q, item);
  return GST_PAD_PROBE_OK;
}

/* waits for each read's end, in order; the buffer goes back after it */
static gpointer
consumer_thread (gpointer data)
{
  S8Consumer *c = data;

  for (;;) {
    S8Item *item = g_async_queue_pop (c->done_q);
    CUresult r = CUDA_ERROR_INVALID_CONTEXT;
    gdouble t1, cpu;
    guint idx;

    if (item->slot == G_MAXUINT) {
      g_free (item);
      break;
    }
    if (gst_cuda_context_push (c->b->ctx)) {
      r = drv.cuEventSynchronize (c->ev_done[item->slot]);
      gst_cuda_context_pop (NULL);
    }
    t1 = mono_s ();
    cpu = process_cpu_s ();
    idx = S8_INDEX_OF_WORD (c->stamps[item->slot]);
    gst_buffer_unref (item->buf);
    g_async_queue_push (c->free_slots, GUINT_TO_POINTER (item->slot + 1));
    g_free (item);
    if (r != CUDA_SUCCESS) {
      consumer_error (c, cu_error ("cuEventSynchronize (consumer)", r));
      continue;
    }
    g_mutex_lock (&c->lock);
    if (c->index->len == 0 && c->proto) {
      fputs ("ready\n", c->proto);
      fflush (c->proto);
    }
    g_array_append_val (c->index, idx);
    g_array_append_val (c->t1, t1);
    g_array_append_val (c->cpu, cpu);
    g_cond_broadcast (&c->cond);
    g_mutex_unlock (&c->lock);
  }
  return NULL;
}

S8Consumer *
s8_consumer_new (Bench * b, gboolean acquire_meta, FILE * proto, gchar ** error)
{
  S8Consumer *c = g_new0 (S8Consumer, 1);
  CUresult r;
  guint i;

  c->b = b;
  c->acquire_meta = acquire_meta;
  c->proto = proto;
  g_mutex_init (&c->lock);
  g_cond_init (&c->cond);
  c->index = g_array_new (FALSE, FALSE, sizeof (guint));
  c->t1 = series_new ();
  c->cpu = series_new ();
  c->free_slots = g_async_queue_new ();
  c->done_q = g_async_queue_new ();
  if (!gst_cuda_context_push (b->ctx)) {
    *error = g_strdup ("could not push the CUDA context (consumer)");
    s8_consumer_free (c);
    return NULL;
  }
  r = CuStreamCreate (&c->stream, CU_STREAM_NON_BLOCKING);
  if (r == CUDA_SUCCESS)
    r = CuMemAllocHost ((void **) &c->stamps, S8_SLOTS * sizeof (guint32));
  for (i = 0; r == CUDA_SUCCESS && i < S8_SLOTS; i++) {
    r = drv.cuEventCreate (&c->ev_in[i], CU_EVENT_DISABLE_TIMING);
    if (r == CUDA_SUCCESS)
      r = drv.cuEventCreate (&c->ev_done[i], CU_EVENT_BLOCKING_SYNC |
          CU_EVENT_DISABLE_TIMING);
    g_async_queue_push (c->free_slots, GUINT_TO_POINTER (i + 1));
  }
  gst_cuda_context_pop (NULL);
  if (r != CUDA_SUCCESS) {
    *error = cu_error ("consumer set-up (stream, host memory, events)", r);
    s8_consumer_free (c);
    return NULL;
  }
  c->thread = g_thread_new ("bench-s8-consumer", consumer_thread, c);
  return c;
}

void
s8_consumer_attach (S8Consumer * c, GstElement * element,
    const gchar * pad_name)
{
  GstPad *pad = gst_element_get_static_pad (element, pad_name);

  gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER, consumer_probe, c, NULL);
  gst_object_unref (pad);
}

static gboolean
consumer_saw (S8Consumer * c, guint last)
{
  return c->index->len > 0 &&
      g_array_index (c->index, guint, c->index->len - 1) >= last;
}

gboolean
s8_consumer_wait (S8Consumer * c, guint last, gchar ** error)
{
  guint seen = G_MAXUINT;
  gboolean ok;

  g_mutex_lock (&c->lock);
  while (!c->error && !consumer_saw (c, last) && !bench_stopped (c->b)) {
    gint64 deadline = g_get_monotonic_time () + S8_WAIT_US;

    seen = c->index->len;
    while (!c->error && seen == c->index->len && !consumer_saw (c, last) &&
        g_cond_wait_until (&c->cond, &c->lock, deadline));
    if (seen == c->index->len && !c->error && !consumer_saw (c, last)) {
      c->error = g_strdup_printf ("the consumer saw no frame for %d s (%u "
          "seen, waiting for frame %u)", (gint) (S8_WAIT_US / G_USEC_PER_SEC),
          c->index->len, last);
    }
  }
  ok = c->error == NULL && consumer_saw (c, last);
  if (!ok)
    *error = g_strdup (c->error ? c->error : BENCH_STOPPED);
  g_mutex_unlock (&c->lock);
  return ok;
}

/* the last frame seen before @first (-1: none) */
static gint
window_open (S8Consumer * c, guint first)
{
  gint open = -1;
  guint i;

  for (i = 0; i < c->index->len; i++) {
    guint idx = g_array_index (c->index, guint, i);

    if (idx >= first)
      break;
    open = i;
  }
  return open;
}

gboolean
s8_consumer_window (S8Consumer * c, guint first, guint last, S8Window * w,
    gchar ** error)
{
  gdouble cpu_open, cpu_close = 0, t_close = 0;
  gint open;
  guint i;

  memset (w, 0, sizeof (*w));
  w->index = g_array_new (FALSE, FALSE, sizeof (guint));
  w->t1 = series_new ();
  g_mutex_lock (&c->lock);
  /* the window opens at the consumer's end of the last frame before the
   * measured ones, else at the first measured frame seen (which then does
   * not count) */
  open = window_open (c, first);
  if (open < 0 && c->index->len > 0)
    open = 0;
  for (i = open + 1; open >= 0 && i < c->index->len; i++) {
    guint idx = g_array_index (c->index, guint, i);

    if (idx < first || idx > last)
      continue;
    g_array_append_val (w->index, idx);
    t_close = g_array_index (c->t1, gdouble, i);
    g_array_append_val (w->t1, t_close);
    cpu_close = g_array_index (c->cpu, gdouble, i);
  }
  w->frames = w->index->len;
  if (w->frames > 0) {
    w->seconds = t_close - g_array_index (c->t1, gdouble, open);
    cpu_open = g_array_index (c->cpu, gdouble, open);
    w->cpu_s = cpu_close - cpu_open;
  }
  g_mutex_unlock (&c->lock);
  if (w->frames == 0 || w->seconds <= 0) {
    *error = g_strdup_printf ("the consumer saw %u of frames %u..%u",
        w->frames, first, last);
    return FALSE;
  }
  return TRUE;
}

void
s8_window_clear (S8Window * w)
{
  if (w->index)
    g_array_unref (w->index);
  if (w->t1)
    g_array_unref (w->t1);
  memset (w, 0, sizeof (*w));
}

void
s8_consumer_free (S8Consumer * c)
{
  S8Item *item;
  guint i;

  if (c->thread) {
    item = g_new0 (S8Item, 1);
    item->slot = G_MAXUINT;
    g_async_queue_push (c->done_q, item);
    g_thread_join (c->thread);
  }
  while ((item = g_async_queue_try_pop (c->done_q))) {
    gst_buffer_unref (item->buf);
    g_free (item);
  }
  if (gst_cuda_context_push (c->b->ctx)) {
    if (c->stream) {
      CuStreamSynchronize (c->stream);
      CuStreamDestroy (c->stream);
    }
    for (i = 0; i < S8_SLOTS; i++) {
      if (c->ev_in[i])
        drv.cuEventDestroy (c->ev_in[i]);
      if (c->ev_done[i])
        drv.cuEventDestroy (c->ev_done[i]);
    }
    if (c->scratch)
      CuMemFree (c->scratch);
    if (c->stamps)
      CuMemFreeHost (c->stamps);
    gst_cuda_context_pop (NULL);
  }
  g_async_queue_unref (c->free_slots);
  g_async_queue_unref (c->done_q);
  g_array_unref (c->index);
  g_array_unref (c->t1);
  g_array_unref (c->cpu);
  g_free (c->error);
  g_mutex_clear (&c->lock);
  g_cond_clear (&c->cond);
  g_free (c);
}

/* --- the other process --- */

/* new-semaphore of cudasyncipcsrc: an exportable timeline semaphore of
 * testsem (the simulator's, or Vulkan on a GPU), kept alive by the element
 * (the simulator imports an fd only while its exporter-side object lives) */
gint
s8_test_semaphore (GstElement * element, gpointer user_data)
{
  TestSem *ts = test_sem_new (TRUE, 0);

  if (!ts)
    return -1;
  g_object_set_data_full (G_OBJECT (element), "bench-test-sem", ts,
      (GDestroyNotify) test_sem_free);
  return test_sem_export_fd (ts);
}

/* cudasyncipcsrc or cudaipcsrc ! fakesink, with the consumer on the
 * fakesink's pad */
static GstElement *
child_pipeline (Bench * b, const S8Mode * md, const gchar * socket,
    GstElement ** src, gchar ** error)
{
  GstElement *pipeline = pipeline_new (b), *sink;

  *src = make (pipeline, md->src, "src", error);
  sink = make (pipeline, "fakesink", "sink", error);
  if (!*src || !sink) {
    gst_object_unref (pipeline);
    return NULL;
  }
  if (!md->ipc_mode) {
    g_object_set (*src, "socket-path", socket, NULL);
    gst_util_set_object_arg (G_OBJECT (*src), "wait-mode", "gpu");
    if (md->io_mode)
      gst_util_set_object_arg (G_OBJECT (*src), "io-mode", md->io_mode);
    g_signal_connect (*src, "new-semaphore",
        G_CALLBACK (s8_test_semaphore), NULL);
  } else {
    g_object_set (*src, "address", socket, NULL);
  }
  g_object_set (sink, "sync", FALSE, "async", FALSE, "enable-last-sample",
      FALSE, NULL);
  if (!gst_element_link (*src, sink)) {
    *error = g_strdup_printf ("could not link %s ! fakesink", md->src);
    gst_object_unref (pipeline);
    return NULL;
  }
  return pipeline;
}

/* the child's result, one line of JSON (full precision: the times are
 * compared with the producer's) */
static void
child_result (FILE * proto, const gchar * error, S8Window * w,
    GstStructure * stats)
{
  JsonBuilder *jb = json_builder_new ();
  JsonGenerator *gen = json_generator_new ();
  JsonNode *root;
  gchar *text, *st = stats ? gst_structure_to_string (stats) : NULL;
  guint i;

  json_builder_begin_object (jb);
  jb_str (jb, "error", error);
  json_builder_set_member_name (jb, "seconds");
  json_builder_add_double_value (jb, w->seconds);
  json_builder_set_member_name (jb, "cpu_s");
  json_builder_add_double_value (jb, w->cpu_s);
  jb_arr (jb, "index");
  for (i = 0; w->index && i < w->index->len; i++)
    json_builder_add_int_value (jb, g_array_index (w->index, guint, i));
  jb_arr_end (jb);
  jb_arr (jb, "t1");
  for (i = 0; w->t1 && i < w->t1->len; i++)
    json_builder_add_double_value (jb, g_array_index (w->t1, gdouble, i));
  jb_arr_end (jb);
  jb_str (jb, "src_stats", st);
  json_builder_end_object (jb);
  root = json_builder_get_root (jb);
  json_generator_set_root (gen, root);
  text = json_generator_to_data (gen, NULL);
  fprintf (proto, "%s\n", text);
  fflush (proto);
  g_free (text);
  g_free (st);
  json_node_unref (root);
  g_object_unref (gen);
  g_object_unref (jb);
}

/* after "ready": the producer's "end FIRST LAST" on stdin, then until the
 * consumer read frame LAST */
static gboolean
child_measure (S8Consumer * c, FILE * proto, S8Window * w, gchar ** error)
{
  gchar line[128];
  guint first = 0, last = 0;
  gboolean ok;

  if (!fgets (line, sizeof (line), stdin) ||
      sscanf (line, "end %u %u", &first, &last) != 2 || last < first) {
    *error = g_strdup ("the producer's process sent no \"end\"");
    return FALSE;
  }
  ok = s8_consumer_wait (c, last, error);
  fputs ("done\n", proto);
  fflush (proto);
  return ok && s8_consumer_window (c, first, last, w, error);
}

gint
s8_child_main (Bench * b, const gchar * args)
{
  gchar **a = g_strsplit (args, ",", 2);
  const S8Mode *md = NULL;
  GstElement *pipeline = NULL, *src = NULL;
  GstStructure *stats = NULL;
  S8Consumer *c = NULL;
  S8Window w = { 0, };
  gchar *error = NULL, *e;
  FILE *proto;
  gint fd;
  guint k;

  /* stdout is the protocol; anything else printed goes to stderr */
  fd = dup (STDOUT_FILENO);
  proto = fd >= 0 ? fdopen (fd, "w") : NULL;
  if (!proto) {
    g_printerr ("--child=8: no protocol stream (dup/fdopen of stdout): %s\n",
        g_strerror (errno));
    if (fd >= 0)
      close (fd);
    g_strfreev (a);
    return 1;
  }
  dup2 (STDERR_FILENO, STDOUT_FILENO);
  for (k = 0; a[0] && a[1] && k < S8_N_MODES; k++)
    if (s8_modes[k].sink && g_str_equal (a[0], s8_modes[k].key))
      md = &s8_modes[k];
  if (!md)
    error = g_strdup_printf ("--child=8:%s: not MODE,SOCKET", args);
  if (md)
    pipeline = child_pipeline (b, md, a[1], &src, &error);
  if (pipeline)
    c = s8_consumer_new (b, FALSE, proto, &error);
  if (c) {
    GstElement *sink = gst_bin_get_by_name (GST_BIN (pipeline), "sink");

    s8_consumer_attach (c, sink, "sink");
    gst_object_unref (sink);
    if (gst_element_set_state (pipeline, GST_STATE_PLAYING) ==
        GST_STATE_CHANGE_FAILURE) {
      e = bus_error (pipeline);
      error = g_strdup_printf ("%s did not start: %s", md->src,
          e ? e : "no error message");
      g_free (e);
    } else if (child_measure (c, proto, &w, &error) && !md->ipc_mode) {
      g_object_get (src, "stats", &stats, NULL);
    }
    if (!error && (e = bus_error (pipeline)))
      error = e;
  }
  /* the result before the teardown: upstream's cudaipcsrc stops only once
   * its sink answered the request it has pending, which the producer's
   * process (stopped producing) gives when it stops its pipeline */
  child_result (proto, error, &w, stats);
  /* the consumer's thread writes "ready" to it under its lock (checking it
   * is there): no longer once it is closed, while the pipeline still runs */
  if (c) {
    g_mutex_lock (&c->lock);
    c->proto = NULL;
    g_mutex_unlock (&c->lock);
  }
  fclose (proto);
  if (pipeline) {
    gst_element_set_state (pipeline, GST_STATE_NULL);
    gst_object_unref (pipeline);
  }
  if (c)
    s8_consumer_free (c);
  s8_window_clear (&w);
  if (stats)
    gst_structure_free (stats);
  /* the library's deferred destructions, before the process ends */
  gst_cuda_sync_wait_idle ();
  g_strfreev (a);
  g_free (error);
  return 0;
}

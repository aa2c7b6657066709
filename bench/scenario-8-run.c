/* gst-cudasync
 * Copyright (C) 2026 gst-cudasync developers
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * One repetition of scenario 8: the producer, and the other process
 * (--child=8:MODE,SOCKET), which says "ready", then "done" and a line
 * of JSON, and is told "end FIRST LAST" on its stdin.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <sys/wait.h>

#include <glib/gstdio.h>
#include <gst/cuda/gstcudabufferpool.h>
#include <gst/cuda/gstcudamemory.h>

#include "scenario-8.h"
#include "pipeline.h"

#define S8_PRIME_MAX 1000       /* x 20 ms: the other process's start */
#define S8_REAP_S 10            /* its exit after its stdout closed */
#define S8_ANSWER_S 15          /* its "done", its result: each under the
                                 * watchdog's STALL_LIMIT_S */

/* --- the other process --- */

typedef struct
{
  Bench *b;
  GPid pid;
  gint in_fd;                   /* its stdin */
  FILE *out;                    /* its stdout */
  GThread *reader;
  GMutex lock;
  GCond cond;
  gboolean ready, done, ended;
  gdouble cpu_done;             /* this process's CPU at "done" */
  gchar *result;                /* its JSON line */
} S8Child;

enum
{
  S8_READY,
  S8_DONE,
  S8_RESULT
};

static gpointer
child_reader (gpointer data)
{
  S8Child *ch = data;
  gchar *line = NULL;
  size_t size = 0;
  ssize_t len;

  while ((len = getline (&line, &size, ch->out)) > 0) {
    gdouble cpu = process_cpu_s ();

    g_strchomp (line);
    g_mutex_lock (&ch->lock);
    if (g_str_equal (line, "ready")) {
      ch->ready = TRUE;
    } else if (g_str_equal (line, "done")) {
      ch->done = TRUE;
      ch->cpu_done = cpu;
    } else if (line[0] == '{' && !ch->result) {
      ch->result = g_strdup (line);
    }
    g_cond_broadcast (&ch->cond);
    g_mutex_unlock (&ch->lock);
    bench_progress (&ch->b->wd);
  }
  free (line);
  g_mutex_lock (&ch->lock);
  ch->ended = TRUE;
  g_cond_broadcast (&ch->cond);
  g_mutex_unlock (&ch->lock);
  return NULL;
}

/* its exit, S8_REAP_S at most: then it is killed */
static void
child_reap (GPid pid)
{
  gint64 deadline = g_get_monotonic_time () + S8_REAP_S * G_USEC_PER_SEC;
  gint status;
  pid_t r;

  for (;;) {
    r = waitpid (pid, &status, WNOHANG);
    if (r == pid || (r < 0 && errno != EINTR))
      return;
    if (g_get_monotonic_time () >= deadline)
      break;
    g_usleep (10000);
  }
  g_printerr ("scenario 8: the consumer process did not exit in %d s, "
      "killed\n", S8_REAP_S);
  kill (pid, SIGKILL);
  while (waitpid (pid, &status, 0) < 0 && errno == EINTR);
}

/* in the other process, before its exec: it dies with this one (with the
 * thread that started it, which waits for its end) */
static void
child_setup (gpointer user_data)
{
  pid_t parent = GPOINTER_TO_INT (user_data);

  prctl (PR_SET_PDEATHSIG, SIGKILL);
  if (getppid () != parent)
    _exit (127);
}

static gboolean
child_start (Bench * b, S8Child * ch, const S8Mode * md, const gchar * socket,
    gchar ** error)
{
  gchar *exe = g_file_read_link ("/proc/self/exe", NULL);
  gchar *arg = g_strdup_printf ("--child=8:%s,%s", md->key, socket);
  gchar *argv[] = { exe, arg, NULL };
  GError *err = NULL;
  gint out_fd = -1;
  gboolean ok;

  memset (ch, 0, sizeof (*ch));
  ch->b = b;
  ch->in_fd = -1;
  g_mutex_init (&ch->lock);
  g_cond_init (&ch->cond);
  ok = exe && g_spawn_async_with_pipes (NULL, argv, NULL,
      G_SPAWN_DO_NOT_REAP_CHILD, child_setup, GINT_TO_POINTER (getpid ()),
      &ch->pid, &ch->in_fd, &out_fd, NULL, &err);
  if (!ok) {
    *error = g_strdup_printf ("could not start the consumer process: %s",
        err ? err->message : "/proc/self/exe unreadable");
    g_clear_error (&err);
  } else if (!(ch->out = fdopen (out_fd, "r"))) {
    *error = g_strdup_printf ("could not read the consumer process's stdout "
        "(fdopen): %s", g_strerror (errno));
    close (out_fd);
    close (ch->in_fd);
    ch->in_fd = -1;
    kill (ch->pid, SIGKILL);
    child_reap (ch->pid);
    g_spawn_close_pid (ch->pid);
    ch->pid = 0;
    ok = FALSE;
  } else {
    ch->reader = g_thread_new ("bench-s8-child", child_reader, ch);
  }
  g_free (exe);
  g_free (arg);
  return ok;
}

static gboolean
child_ended (S8Child * ch)
{
  gboolean ended;

  g_mutex_lock (&ch->lock);
  ended = ch->ended;
  g_mutex_unlock (&ch->lock);
  return ended;
}

/* until @what (or the process ended, or @timeout_s) */
static gboolean
child_wait (S8Child * ch, gint what, gdouble timeout_s)
{
  gint64 deadline = g_get_monotonic_time () + timeout_s * G_USEC_PER_SEC;
  gboolean got;

  g_mutex_lock (&ch->lock);
  for (;;) {
    got = what == S8_READY ? ch->ready : what == S8_DONE ? ch->done :
        ch->result != NULL;
    if (got || ch->ended || !g_cond_wait_until (&ch->cond, &ch->lock, deadline))
      break;
  }
  got = what == S8_READY ? ch->ready : what == S8_DONE ? ch->done :
      ch->result != NULL;
  g_mutex_unlock (&ch->lock);
  return got;
}

/* "end FIRST LAST" on its stdin; FALSE when it ended or the write failed
 * (SIGPIPE is ignored: main) */
static gboolean
child_tell (S8Child * ch, guint first, guint last, gchar ** error)
{
  gchar *line = g_strdup_printf ("end %u %u\n", first, last);
  gsize len = strlen (line), off = 0;
  gboolean ended = child_ended (ch);

  while (!ended && off < len) {
    ssize_t r = write (ch->in_fd, line + off, len - off);

    if (r < 0 && errno == EINTR)
      continue;
    if (r <= 0) {
      *error = g_strdup_printf ("could not write to the consumer process: %s",
          r < 0 ? g_strerror (errno) : "nothing written");
      g_free (line);
      return FALSE;
    }
    off += r;
  }
  g_free (line);
  if (ended)
    *error = g_strdup ("the consumer process ended before the measured "
        "frames");
  return !ended;
}

/* closes its stdin (it ends when it has not ended), 10 s, then kills it;
 * then its exit, 10 s, then kills it */
static void
child_end (S8Child * ch)
{
  if (!ch->pid)
    return;
  if (ch->in_fd >= 0)
    close (ch->in_fd);
  bench_progress (&ch->b->wd);  /* bounded waits, not a stall */
  g_mutex_lock (&ch->lock);
  if (!ch->ended) {
    gint64 deadline = g_get_monotonic_time () + 10 * G_USEC_PER_SEC;

    while (!ch->ended && g_cond_wait_until (&ch->cond, &ch->lock, deadline));
  }
  if (!ch->ended)
    kill (ch->pid, SIGKILL);
  g_mutex_unlock (&ch->lock);
  g_thread_join (ch->reader);
  fclose (ch->out);
  bench_progress (&ch->b->wd);  /* a bounded wait, not a stall */
  child_reap (ch->pid);
  g_spawn_close_pid (ch->pid);
  g_free (ch->result);
  g_mutex_clear (&ch->lock);
  g_cond_clear (&ch->cond);
}

/* the other process's window (its JSON line) */
static gboolean
child_window (S8Child * ch, S8Window * w, GstStructure ** src_stats,
    gchar ** error)
{
  JsonParser *parser = json_parser_new ();
  JsonObject *o;
  JsonArray *idx, *t1;
  const gchar *e, *st;
  guint i;

  memset (w, 0, sizeof (*w));
  if (!json_parser_load_from_data (parser, ch->result, -1, NULL) ||
      !JSON_NODE_HOLDS_OBJECT (json_parser_get_root (parser))) {
    g_object_unref (parser);
    *error = g_strdup ("the consumer process's result is not JSON");
    return FALSE;
  }
  o = json_node_get_object (json_parser_get_root (parser));
  e = json_object_get_string_member_with_default (o, "error", NULL);
  if (e) {
    *error = g_strdup_printf ("consumer process: %s", e);
    g_object_unref (parser);
    return FALSE;
  }
  if (!json_object_has_member (o, "seconds") ||
      !json_object_has_member (o, "cpu_s") ||
      !json_object_has_member (o, "index") ||
      !json_object_has_member (o, "t1") ||
      !JSON_NODE_HOLDS_ARRAY (json_object_get_member (o, "index")) ||
      !JSON_NODE_HOLDS_ARRAY (json_object_get_member (o, "t1"))) {
    *error = g_strdup ("the consumer process's result lacks seconds, cpu_s, "
        "index or t1");
    g_object_unref (parser);
    return FALSE;
  }
  w->seconds = json_object_get_double_member (o, "seconds");
  w->cpu_s = json_object_get_double_member (o, "cpu_s");
  idx = json_object_get_array_member (o, "index");
  t1 = json_object_get_array_member (o, "t1");
  if (json_array_get_length (idx) == 0 || !(w->seconds > 0) ||
      json_array_get_length (idx) != json_array_get_length (t1)) {
    *error = g_strdup_printf ("the consumer process's window is empty or "
        "inconsistent (%u frames, %u times, %g s)",
        json_array_get_length (idx), json_array_get_length (t1), w->seconds);
    g_object_unref (parser);
    return FALSE;
  }
  w->index = g_array_new (FALSE, FALSE, sizeof (guint));
  w->t1 = series_new ();
  for (i = 0; i < json_array_get_length (idx); i++) {
    guint n = json_array_get_int_element (idx, i);
    gdouble t = json_array_get_double_element (t1, i);

    g_array_append_val (w->index, n);
    g_array_append_val (w->t1, t);
  }
  w->frames = w->index->len;
  st = json_object_get_string_member_with_default (o, "src_stats", NULL);
  *src_stats = st ? gst_structure_from_string (st, NULL) : NULL;
  g_object_unref (parser);
  return TRUE;
}

/* --- the producer --- */

typedef struct
{
  Bench *b;
  const S8Mode *md;
  FrameSpec spec;
  GstBufferPool *pool;
  gpointer mem_stream;          /* GstCudaStream (pool modes): spec.stream's */
  GstCudaSemaphore *sem;        /* the acquire semaphore (s, si, p) */
  TestSem *ts;
  GstPad *srcpad;
  GstElement *pipeline, *sink;
  GArray *t0;                   /* gdouble, by frame index: acquired */
  S8Consumer *cons;             /* p: in this process */
} S8Producer;

/* frame @n: written on the producer's stream, its acquire point attached
 * (s, si, p), the memory marked pending on its own stream (pool modes), or
 * waited for on the CPU (u, um: upstream's convention), pushed */
static gboolean
produce (S8Producer * p, guint n, gchar ** error)
{
  GstBuffer *buf = NULL;
  GstMapInfo map;
  GError *err = NULL;
  guint64 value = 0;
  gdouble t0;
  CUresult r = CUDA_ERROR_INVALID_CONTEXT;
  GstFlowReturn fr;

  if (gst_buffer_pool_acquire_buffer (p->pool, &buf, NULL) != GST_FLOW_OK) {
    *error = g_strdup ("could not acquire a buffer");
    return FALSE;
  }
  t0 = mono_s ();
  g_array_append_val (p->t0, t0);
  if (!gst_buffer_map (buf, &map, GST_MAP_WRITE | GST_MAP_CUDA)) {
    *error = g_strdup ("could not map the buffer (GST_MAP_CUDA)");
    gst_buffer_unref (buf);
    return FALSE;
  }
  if (gst_cuda_context_push (p->b->ctx)) {
    r = frame_write (p->b, &p->spec, buf, map.data, n);
    if (r == CUDA_SUCCESS && !p->sem && !p->mem_stream)
      r = CuStreamSynchronize (p->spec.stream);
    gst_cuda_context_pop (NULL);
  }
  gst_buffer_unmap (buf, &map);
  if (p->mem_stream)
    gst_cuda_sync_memory_mark_pending (gst_buffer_peek_memory (buf, 0));
  if (r != CUDA_SUCCESS) {
    *error = cu_error ("producer: frame write / cuStreamSynchronize", r);
    gst_buffer_unref (buf);
    return FALSE;
  }
  if (p->sem) {
    if (!gst_cuda_semaphore_signal (p->sem, p->spec.stream, &value, &err)) {
      *error = g_strdup_printf ("gst_cuda_semaphore_signal (producer): %s",
          err->message);
      g_clear_error (&err);
      gst_buffer_unref (buf);
      return FALSE;
    }
    gst_cuda_sync_meta_add_acquire (gst_buffer_add_cuda_sync_meta (buf),
        p->sem, value);
  }
  fr = gst_pad_push (p->srcpad, buf);
  if (fr != GST_FLOW_OK) {
    gchar *e = bus_error (p->pipeline);

    *error = g_strdup_printf ("gst_pad_push: %s%s%s", gst_flow_get_name (fr),
        e ? ": " : "", e ? e : "");
    g_free (e);
    return FALSE;
  }
  bench_progress (&p->b->wd);
  return TRUE;
}

#if GST_CHECK_VERSION(1, 24, 0)
/* the pool the sink proposes (sink_pool), its buffers written on the
 * producer's memory stream */
static GstBufferPool *
sink_pool (S8Producer * p, GstCaps * caps, gchar ** error)
{
  GstQuery *q = gst_query_new_allocation (caps, TRUE);
  GstBufferPool *pool = NULL;
  GstStructure *config;
  guint size = 0, min = 0, max = 0;

  if (gst_pad_peer_query (p->srcpad, q) &&
      gst_query_get_n_allocation_pools (q) > 0)
    gst_query_parse_nth_allocation_pool (q, 0, &pool, &size, &min, &max);
  gst_query_unref (q);
  if (!pool) {
    *error = g_strdup ("cudasyncipcsink proposed no pool");
    return NULL;
  }
  config = gst_buffer_pool_get_config (pool);
  gst_buffer_pool_config_set_params (config, caps, size, min, max);
  gst_buffer_pool_config_set_cuda_stream (config, p->mem_stream);
  if (!gst_buffer_pool_set_config (pool, config) ||
      !gst_buffer_pool_set_active (pool, TRUE)) {
    *error = g_strdup ("could not set up the pool cudasyncipcsink proposed");
    gst_object_unref (pool);
    return NULL;
  }
  return pool;
}
#endif

/* the mode's sink (p: a fakesink with the consumer on its pad) */
static GstElement *
producer_sink (S8Producer * p, const gchar * socket, gchar ** error)
{
  const S8Mode *md = p->md;
  GstElement *sink = make (p->pipeline, md->sink ? md->sink : "fakesink",
      "sink", error);

  if (!sink)
    return NULL;
  if (!md->sink) {
    p->cons = s8_consumer_new (p->b, TRUE, NULL, error);
    if (!p->cons)
      return NULL;
    s8_consumer_attach (p->cons, sink, "sink");
    g_object_set (sink, "enable-last-sample", FALSE, NULL);
  } else if (md->ipc_mode) {
    g_object_set (sink, "address", socket, NULL);
    gst_util_set_object_arg (G_OBJECT (sink), "ipc-mode", md->ipc_mode);
  } else {
    g_object_set (sink, "socket-path", socket, NULL);
    g_signal_connect (sink, "new-semaphore", G_CALLBACK (s8_test_semaphore),
        NULL);
  }
  g_object_set (sink, "sync", FALSE, "async", FALSE, NULL);
  return sink;
}

static gboolean
producer_start (S8Producer * p, S8Config * c, gint mode, FrameWriter writer,
    const gchar * socket, gchar ** error)
{
  Bench *b = p->b;
  GstCaps *caps = cuda_caps (c->format, c->width, c->height);
  GstPad *pad;
  gboolean ok = FALSE;
  CUresult r = CUDA_ERROR_INVALID_CONTEXT;

  p->md = &s8_modes[mode];
  p->t0 = series_new ();
  gst_video_info_from_caps (&p->spec.info, caps);
  p->spec.gpu_us = c->gpu_us;
  p->spec.writer = writer;
  p->spec.grid = MAX (b->r.sm_count, 1) * 4;
#if GST_CHECK_VERSION(1, 24, 0)
  if (p->md->memory_stream) {
    /* the stream upstream's 1.24+ producers write their pool's memory on */
    GstCudaStream *stream = gst_cuda_stream_new (b->ctx);

    if (!stream) {
      *error = g_strdup ("gst_cuda_stream_new (producer) failed");
      goto out;
    }
    p->mem_stream = stream;
    p->spec.stream = gst_cuda_stream_get_handle (stream);
    /* (sink_pool: the sink's pool, once the sink has the caps) */
    if (!p->md->sink_pool)
      p->pool = new_pool_with_stream (b, caps, b->opt.in_flight, stream, error);
  }
#endif
  if (!p->mem_stream) {
    if (gst_cuda_context_push (b->ctx)) {
      r = CuStreamCreate (&p->spec.stream, CU_STREAM_NON_BLOCKING);
      gst_cuda_context_pop (NULL);
    }
    if (r != CUDA_SUCCESS) {
      *error = cu_error ("cuStreamCreate (producer)", r);
      goto out;
    }
    p->pool = new_pool (b, caps, b->opt.in_flight, error);
  }
  if (!p->pool && !p->md->sink_pool)
    goto out;
  if (!p->md->ipc_mode && !p->mem_stream &&
      !(p->sem = new_semaphore (b, &p->ts, error)))
    goto out;
  p->pipeline = pipeline_new (b);
  p->sink = producer_sink (p, socket, error);
  if (!p->sink)
    goto out;
  p->srcpad = any_pad_new (GST_PAD_SRC);
  pad = gst_element_get_static_pad (p->sink, "sink");
  ok = gst_pad_link (p->srcpad, pad) == GST_PAD_LINK_OK;
  gst_object_unref (pad);
  gst_pad_set_active (p->srcpad, TRUE);
  if (!ok) {
    *error = g_strdup ("could not link the producer pad");
    goto out;
  }
  ok = gst_element_set_state (p->pipeline, GST_STATE_PLAYING) !=
      GST_STATE_CHANGE_FAILURE;
  if (!ok) {
    gchar *e = bus_error (p->pipeline);

    *error = g_strdup_printf ("%s did not start: %s", p->md->sink ?
        p->md->sink : "fakesink", e ? e : "no error message");
    g_free (e);
    goto out;
  }
  ok = push_initial_events (p->srcpad, caps, error);
#if GST_CHECK_VERSION(1, 24, 0)
  if (ok && p->md->sink_pool)
    ok = (p->pool = sink_pool (p, caps, error)) != NULL;
#endif
out:
  gst_caps_unref (caps);
  return ok;
}

static void
producer_stop (S8Producer * p)
{
  if (p->pipeline) {
    gst_element_set_state (p->pipeline, GST_STATE_NULL);
    gst_object_unref (p->pipeline);
  }
  if (p->srcpad) {
    gst_pad_set_active (p->srcpad, FALSE);
    gst_object_unref (p->srcpad);
  }
  if (p->cons)
    s8_consumer_free (p->cons);
  if (p->pool)
    pool_free (p->pool);
  if (gst_cuda_context_push (p->b->ctx)) {
    if (p->spec.stream) {
      CuStreamSynchronize (p->spec.stream);
      if (!p->mem_stream)
        CuStreamDestroy (p->spec.stream);
    }
    gst_cuda_context_pop (NULL);
  }
#if GST_CHECK_VERSION(1, 24, 0)
  gst_clear_cuda_stream ((GstCudaStream **) & p->mem_stream);
#endif
  if (p->sem)
    gst_object_unref (p->sem);
  if (p->ts)
    test_sem_free (p->ts);
  if (p->t0)
    g_array_unref (p->t0);
}

/* --- one repetition --- */

static gint
cmp_uint (gconstpointer a, gconstpointer b)
{
  guint x = *(const guint *) a, y = *(const guint *) b;

  return x < y ? -1 : x > y;
}

/* the distinct frames of the window (a frame read twice counts once) */
static guint
unique_frames (S8Window * w)
{
  GArray *sorted = g_array_copy (w->index);
  guint i, n = 0;

  g_array_sort (sorted, cmp_uint);
  for (i = 0; i < sorted->len; i++)
    if (i == 0 || g_array_index (sorted, guint, i) !=
        g_array_index (sorted, guint, i - 1))
      n++;
  g_array_unref (sorted);
  return n;
}

#define AT(a, i) g_array_index ((a), gdouble, (i))

/* latencies, fps and CPU per frame from the consumer's window */
static gboolean
s8_sample (S8Producer * p, S8Config * c, S8Window * w, gdouble prod_cpu_s,
    S8Sample * out, gchar ** error)
{
  GArray *lat = series_new ();
  guint i;

  for (i = 0; i < w->frames; i++) {
    guint n = g_array_index (w->index, guint, i);

    if (n >= p->t0->len) {
      *error = g_strdup_printf ("the consumer read frame %u, which was not "
          "produced", n);
      g_array_unref (lat);
      return FALSE;
    }
    series_add (lat, (AT (w->t1, i) - AT (p->t0, n)) * 1e6);
  }
  out->fps = w->frames / w->seconds;
  out->dropped = c->frames - MIN (unique_frames (w), c->frames);
  out->prod_cpu_us = prod_cpu_s * 1e6 / c->frames;
  out->cons_cpu_us = p->md->sink ? w->cpu_s * 1e6 / w->frames : NAN;
  out->total_cpu_us = out->prod_cpu_us + (p->md->sink ? out->cons_cpu_us : 0);
  out->lat_p50_us = series_percentile (lat, 0.5);
  out->lat_p99_us = series_percentile (lat, 0.99);
  g_array_unref (lat);
  return TRUE;
}

/* IPC modes: frames every 20 ms until the other process read one; returns
 * the next frame's index, or 0 (and *error) */
static guint
s8_prime (S8Producer * p, S8Child * ch, gchar ** error)
{
  guint n;

  for (n = 0; n < S8_PRIME_MAX; n++) {
    if (!produce (p, n, error))
      return 0;
    if (child_wait (ch, S8_READY, 0.02))
      return n + 1;
    if (child_ended (ch) || bench_stopped (p->b))
      break;
  }
  *error = g_strdup_printf ("the consumer process read no frame (%s)",
      child_ended (ch) ? "it ended" : bench_stopped (p->b) ? BENCH_STOPPED :
      "for 20 s");
  return 0;
}

/* the measured frames and the consumer's window */
static gboolean
s8_measure (S8Producer * p, S8Child * ch, S8Config * c, guint n,
    S8Sample * out, gchar ** error)
{
  guint first = n + c->warmup, last = first + c->frames - 1;
  gdouble cpu0 = 0, cpu1 = 0;
  S8Window w = { 0, };
  gboolean ok = TRUE;

  for (; ok && n <= last; n++) {
    if (n == first)
      cpu0 = process_cpu_s ();
    ok = !bench_stopped (p->b) && produce (p, n, error);
    if (!ok && !*error)
      *error = g_strdup (BENCH_STOPPED);
  }
  if (ok && ch) {
    ok = child_tell (ch, first, last, error);
    if (ok && !child_wait (ch, S8_DONE, S8_ANSWER_S)) {
      *error = g_strdup_printf ("the consumer process did not read the "
          "measured frames (%s)", child_ended (ch) ? "it ended" :
          "no \"done\" for " G_STRINGIFY (S8_ANSWER_S) " s");
      ok = FALSE;
    }
    if (ok) {
      g_mutex_lock (&ch->lock);
      cpu1 = ch->cpu_done;
      g_mutex_unlock (&ch->lock);
      ok = child_wait (ch, S8_RESULT, S8_ANSWER_S) &&
          child_window (ch, &w, &out->src_stats, error);
    }
    if (!ok && !*error)
      *error = g_strdup ("the consumer process gave no result");
  } else if (ok) {
    ok = s8_consumer_wait (p->cons, last, error);
    cpu1 = process_cpu_s ();
    ok = ok && s8_consumer_window (p->cons, first, last, &w, error);
  }
  if (ok && cpu1 - cpu0 <= 0) {
    *error = g_strdup_printf ("the producer's CPU time over the measured "
        "frames is %g s", cpu1 - cpu0);
    ok = FALSE;
  }
  if (ok && p->md->sink && !p->md->ipc_mode)
    g_object_get (p->sink, "stats", &out->sink_stats, NULL);
  ok = ok && s8_sample (p, c, &w, cpu1 - cpu0, out, error);
  s8_window_clear (&w);
  return ok;
}

gboolean
s8_repetition (Bench * b, S8Config * c, gint mode, FrameWriter writer,
    const gchar * dir, S8Sample * out, gchar ** error)
{
  static guint counter;
  gchar *socket = g_strdup_printf ("%s/s8-%u.sock", dir, counter++);
  S8Producer p = { b, };
  S8Child ch = { 0, };
  gboolean ok;
  guint n = 0;

  memset (out, 0, sizeof (*out));
  ok = producer_start (&p, c, mode, writer, socket, error);
  if (ok && p.md->sink) {
    ok = child_start (b, &ch, p.md, socket, error);
    n = ok ? s8_prime (&p, &ch, error) : 0;
    ok = n > 0;
  }
  ok = ok && s8_measure (&p, p.md->sink ? &ch : NULL, c, n, out, error);
  if (!ok && !*error)
    *error = g_strdup ("failed");
  if (!ok) {
    g_clear_pointer (&out->sink_stats, gst_structure_free);
    g_clear_pointer (&out->src_stats, gst_structure_free);
  }
  /* the producer's pipeline first: upstream's source in the other
   * process stops only once its sink answered */
  producer_stop (&p);
  child_end (&ch);
  bench_run_idle (&b->wd);
  g_unlink (socket);
  g_free (socket);
  return ok;
}

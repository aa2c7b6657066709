/* gst-cudasync
 * Copyright (C) 2026 gst-cudasync developers
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Scenario 1, signal overhead: thread CPU time per call of the bare
 * driver call, the library call, and a push through identity and through
 * cudasemsignal, in batches.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>

#include "bench.h"
#include "bench-cuda.h"
#include "pipeline.h"

static const struct
{
  const gchar *key;
  const gchar *label;
} s1_rows[S1_N_ROWS] = {
  {"bare", "bare cuSignalExternalSemaphoresAsync"},
  {"library", "gst_cuda_semaphore_signal()"},
  {"identity", "gst_pad_push through identity"},
  {"cudasemsignal", "gst_pad_push through cudasemsignal"},
};

typedef struct
{
  GstElement *pipeline;
  GstElement *element;
  GstPad *src;
  GstPad *sink;
} Chain;

static GstFlowReturn
drop_chain (GstPad * pad, GstObject * parent, GstBuffer * buf)
{
  gst_buffer_unref (buf);
  return GST_FLOW_OK;
}

static void
chain_clear (Chain * c)
{
  if (c->pipeline)
    gst_element_set_state (c->pipeline, GST_STATE_NULL);
  if (c->src) {
    gst_pad_set_active (c->src, FALSE);
    gst_object_unref (c->src);
  }
  if (c->sink) {
    gst_pad_set_active (c->sink, FALSE);
    gst_object_unref (c->sink);
  }
  gst_clear_object (&c->pipeline);
  memset (c, 0, sizeof (*c));
}

/* my src pad ! element ! my sink pad (drops), in a pipeline for its bus */
static gboolean
chain_setup (Bench * b, Chain * c, GstElement * element, GstCaps * caps,
    gchar ** error)
{
  GstPad *esink, *esrc;
  gboolean ok;

  memset (c, 0, sizeof (*c));
  c->pipeline = pipeline_new (b);
  c->element = element;
  gst_bin_add (GST_BIN (c->pipeline), element);

  c->src = any_pad_new (GST_PAD_SRC);
  c->sink = any_pad_new (GST_PAD_SINK);
  gst_pad_set_chain_function (c->sink, drop_chain);
  esink = gst_element_get_static_pad (element, "sink");
  esrc = gst_element_get_static_pad (element, "src");
  ok = gst_pad_link (c->src, esink) == GST_PAD_LINK_OK &&
      gst_pad_link (esrc, c->sink) == GST_PAD_LINK_OK;
  gst_object_unref (esink);
  gst_object_unref (esrc);
  if (!ok) {
    *error = g_strdup_printf ("could not link %s", GST_OBJECT_NAME (element));
    return FALSE;
  }
  gst_pad_set_active (c->sink, TRUE);
  gst_pad_set_active (c->src, TRUE);

  if (gst_element_set_state (c->pipeline,
          GST_STATE_PLAYING) == GST_STATE_CHANGE_FAILURE) {
    gchar *e = bus_error (c->pipeline);
    *error = g_strdup_printf ("%s did not start: %s",
        GST_OBJECT_NAME (element), e ? e : "no error message");
    g_free (e);
    return FALSE;
  }
  return push_initial_events (c->src, caps, error);
}

typedef struct
{
  CUexternalSemaphore ext;
  CUstream stream;
  guint64 value;
} Bare;

static void
s1_fail (Bench * b, const gchar * what, gchar * error)
{
  gchar *msg = g_strdup_printf ("%s: %s", what, error ? error : "?");

  g_print ("  FAILED: %s\n", msg);
  g_mutex_lock (&b->lock);
  g_free (b->r.s1.status);
  b->r.s1.status = g_strdup ("failed");
  g_free (b->r.s1.reason);
  b->r.s1.reason = msg;
  g_mutex_unlock (&b->lock);
  g_free (error);
}

/* what the four loops need */
typedef struct
{
  TestSem *ts_elem, *ts_lib, *ts_bare;
  GstCudaSemaphore *sem_elem, *sem_lib;
  Bare bare;
  Chain chains[2];              /* identity, cudasemsignal */
  GstBufferPool *pool;
  GstCaps *caps;
} S1Setup;

/* one batch of row @row's calls (chains: pushes of pool buffers through
 * the element, into a dropping pad); FALSE and *error when one failed */
static gboolean
s1_batch (S1Setup * s, guint row, GstBuffer ** bufs, guint batch,
    gchar ** error)
{
  CUDA_EXTERNAL_SEMAPHORE_SIGNAL_PARAMS params;
  Chain *c = &s->chains[row == S1_CUDASEMSIGNAL];
  GError *err = NULL;
  CUresult r;
  guint i;

  memset (&params, 0, sizeof (params));
  for (i = 0; i < batch; i++) {
    if (row == S1_BARE) {
      params.params.fence.value = ++s->bare.value;
      r = drv.cuSignalExternalSemaphoresAsync (&s->bare.ext, &params, 1,
          s->bare.stream);
      if (r != CUDA_SUCCESS) {
        *error = cu_error ("cuSignalExternalSemaphoresAsync", r);
        return FALSE;
      }
    } else if (row == S1_LIBRARY) {
      if (!gst_cuda_semaphore_signal (s->sem_lib, s->bare.stream, NULL, &err)) {
        *error = g_strdup_printf ("gst_cuda_semaphore_signal: %s",
            err->message);
        g_clear_error (&err);
        return FALSE;
      }
    } else {
      GstFlowReturn fr = gst_pad_push (c->src, bufs[i]);

      bufs[i] = NULL;
      if (fr != GST_FLOW_OK) {
        gchar *e = bus_error (c->pipeline);

        *error = g_strdup_printf ("pushing through %s: %s%s%s",
            GST_OBJECT_NAME (c->element), gst_flow_get_name (fr),
            e ? ": " : "", e ? e : "");
        g_free (e);
        return FALSE;
      }
    }
  }
  return TRUE;
}

/* @n_batches batches of row @row: CPU and wall ns per call, the GPU queue
 * drained between batches outside the timed part */
static gboolean
s1_measure (Bench * b, S1Setup * s, guint row, guint batch, guint n_batches,
    gdouble * cpu_ns, gdouble * wall_ns, gchar ** error)
{
  GstBuffer **bufs = g_new0 (GstBuffer *, batch);
  gboolean chain = row >= S1_IDENTITY, ok = TRUE;
  gdouble cpu = 0, wall = 0;
  guint bi, i;

  for (bi = 0; ok && bi < n_batches; bi++) {
    gdouble t0, w0;

    for (i = 0; chain && ok && i < batch; i++)
      if (gst_buffer_pool_acquire_buffer (s->pool, &bufs[i], NULL) !=
          GST_FLOW_OK) {
        *error = g_strdup ("could not acquire a buffer from the pool");
        ok = FALSE;
      }
    if (!ok || (row == S1_BARE && !gst_cuda_context_push (b->ctx))) {
      if (ok)
        *error = g_strdup ("could not push the CUDA context");
      ok = FALSE;
      break;
    }
    t0 = thread_cpu_s ();
    w0 = mono_s ();
    ok = s1_batch (s, row, bufs, batch, error);
    cpu += thread_cpu_s () - t0;
    wall += mono_s () - w0;
    if (row == S1_BARE)
      gst_cuda_context_pop (NULL);
    bench_progress (&b->wd);
    if (ok)
      ok = ctx_sync (b, error);
  }
  for (i = 0; i < batch; i++)
    if (bufs[i])
      gst_buffer_unref (bufs[i]);
  g_free (bufs);
  *cpu_ns = cpu * 1e9 / ((gdouble) batch * n_batches);
  *wall_ns = wall * 1e9 / ((gdouble) batch * n_batches);
  return ok;
}

/* the bare loop's raw semaphore and stream */
static gboolean
s1_bare_setup (Bench * b, S1Setup * s)
{
  CUresult cr;

  s->ts_bare = test_sem_new (TRUE, 0);
  if (!s->ts_bare) {
    s1_fail (b, "semaphore for the bare loop", g_strdup ("testsem failed"));
    return FALSE;
  }
  if (!gst_cuda_context_push (b->ctx)) {
    s1_fail (b, "bare semaphore", g_strdup ("context push failed"));
    return FALSE;
  }
  cr = import_timeline_raw (s->ts_bare, &s->bare.ext);
  if (cr == CUDA_SUCCESS)
    cr = CuStreamCreate (&s->bare.stream, CU_STREAM_DEFAULT);
  gst_cuda_context_pop (NULL);
  if (cr != CUDA_SUCCESS) {
    s1_fail (b, "bare semaphore", cu_error ("cuImportExternalSemaphore / "
            "cuStreamCreate", cr));
    return FALSE;
  }
  return TRUE;
}

static gboolean
s1_setup (Bench * b, S1Setup * s, guint batch)
{
  gchar *error = NULL;
  GstElement *e;

  if (!(s->sem_elem = new_semaphore (b, &s->ts_elem, &error))) {
    s1_fail (b, "semaphore for cudasemsignal", error);
    return FALSE;
  }
  if (!(s->sem_lib = new_semaphore (b, &s->ts_lib, &error))) {
    s1_fail (b, "semaphore for the library loop", error);
    return FALSE;
  }
  if (!s1_bare_setup (b, s))
    return FALSE;
  s->caps = cuda_caps ("RGBA", 64, 64);
  s->pool = new_pool (b, s->caps, batch, &error);
  if (!s->pool) {
    s1_fail (b, "buffer pool", error);
    return FALSE;
  }
  e = gst_element_factory_make ("identity", NULL);
  g_object_set (e, "silent", TRUE, "signal-handoffs", FALSE, NULL);
  if (!chain_setup (b, &s->chains[0], e, s->caps, &error)) {
    s1_fail (b, "identity", error);
    return FALSE;
  }
  e = gst_element_factory_make ("cudasemsignal", NULL);
  g_object_set (e, "semaphore", s->sem_elem, NULL);
  gst_util_set_object_arg (G_OBJECT (e), "fallback", "error");
  if (!chain_setup (b, &s->chains[1], e, s->caps, &error)) {
    s1_fail (b, "cudasemsignal", error);
    return FALSE;
  }
  return TRUE;
}

static void
s1_teardown (Bench * b, S1Setup * s)
{
  guint i;

  for (i = 0; i < 2; i++)
    chain_clear (&s->chains[i]);
  pool_free (s->pool);
  if (s->caps)
    gst_caps_unref (s->caps);
  if ((s->bare.ext || s->bare.stream) && gst_cuda_context_push (b->ctx)) {
    if (s->bare.stream) {
      CuStreamSynchronize (s->bare.stream);
      CuStreamDestroy (s->bare.stream);
    }
    if (s->bare.ext)
      drv.cuDestroyExternalSemaphore (s->bare.ext);
    gst_cuda_context_pop (NULL);
  }
  gst_clear_object (&s->sem_elem);
  gst_clear_object (&s->sem_lib);
  gst_cuda_sync_wait_idle ();
  test_sem_free (s->ts_elem);
  test_sem_free (s->ts_lib);
  test_sem_free (s->ts_bare);
}

/* the four loops once (@nb batches each), interleaved */
static gboolean
s1_repetition (Bench * b, S1Setup * s, guint batch, guint nb,
    gdouble * cpu, gdouble * wall)
{
  gchar *error = NULL;
  guint i;

  for (i = 0; i < S1_N_ROWS; i++) {
    if (!s1_measure (b, s, i, batch, nb, &cpu[i], &wall[i], &error)) {
      gchar *what = g_strdup_printf ("%s loop", s1_rows[i].key);

      s1_fail (b, what, error);
      g_free (what);
      return FALSE;
    }
  }
  return TRUE;
}

static void
s1_print (S1Result * s1)
{
  GArray **c = s1->cpu_ns;
  guint64 cpu_syncs = 0;
  guint i;

  g_print ("  %-40s %12s %12s\n", "ns per call (thread CPU)", "min", "median");
  for (i = 0; i < S1_N_ROWS; i++)
    g_print ("  %-40s %12.0f %12.0f\n", s1_rows[i].label,
        series_min (c[i]), series_median (c[i]));
  g_print ("  %-40s %12.2f %12.2f\n", "ratio cudasemsignal / bare",
      ratio (series_min (c[S1_CUDASEMSIGNAL]), series_min (c[S1_BARE])),
      ratio (series_median (c[S1_CUDASEMSIGNAL]), series_median (c[S1_BARE])));
  g_print ("  %-40s %12.2f %12.2f   (target: <= 2)\n",
      "ratio (cudasemsignal - identity) / bare",
      ratio (series_min (c[S1_CUDASEMSIGNAL]) - series_min (c[S1_IDENTITY]),
          series_min (c[S1_BARE])),
      ratio (series_median (c[S1_CUDASEMSIGNAL]) -
          series_median (c[S1_IDENTITY]), series_median (c[S1_BARE])));
  if (s1->sig_stats)
    gst_structure_get_uint64 (s1->sig_stats, "cpu-syncs", &cpu_syncs);
  if (cpu_syncs)
    g_print ("  WARNING: cudasemsignal synchronised on the CPU %"
        G_GUINT64_FORMAT " times\n", cpu_syncs);
}

static gboolean
run_scenario1 (Bench * b, const BenchScenario * sc)
{
  S1Result *s1 = &b->r.s1;
  S1Setup s;
  guint batch = S1_BATCH, n_batches, r, i;
  gboolean ok;

  memset (&s, 0, sizeof (s));
  n_batches = b->opt.calls > 0 ? MAX (1, (b->opt.calls + batch - 1) / batch) :
      (b->opt.quick ? 4 : 32);
  g_mutex_lock (&b->lock);
  s1->calls = batch * n_batches;
  s1->batch = batch;
  g_mutex_unlock (&b->lock);

  g_print ("\nScenario 1: signal overhead (CPU time per call on the calling "
      "thread; %u calls x %d repetitions)\n", batch * n_batches,
      b->opt.repetitions);

  ok = s1_setup (b, &s, batch);
  /* warm-up, then R interleaved repetitions */
  for (r = 0; ok && r <= (guint) b->opt.repetitions; r++) {
    guint nb = r == 0 ? MIN (2, n_batches) : n_batches;
    gdouble cpu[S1_N_ROWS], wall[S1_N_ROWS];

    ok = s1_repetition (b, &s, batch, nb, cpu, wall);
    if (!ok || r == 0)
      continue;
    g_mutex_lock (&b->lock);
    for (i = 0; i < S1_N_ROWS; i++) {
      series_add (s1->cpu_ns[i], cpu[i]);
      series_add (s1->wall_ns[i], wall[i]);
    }
    g_mutex_unlock (&b->lock);
  }
  if (ok) {
    GstStructure *st = NULL;

    g_object_get (s.chains[1].element, "stats", &st, NULL);
    g_mutex_lock (&b->lock);
    s1->sig_stats = st;
    g_free (s1->status);
    s1->status = g_strdup ("ok");
    g_mutex_unlock (&b->lock);
    s1_print (s1);
  }
  s1_teardown (b, &s);
  bench_run_idle (&b->wd);
  write_json (b);
  return ok;
}

static void
json_s1 (Bench * b, const BenchScenario * sc, JsonBuilder * jb)
{
  S1Result *s1 = &b->r.s1;
  GArray **c = s1->cpu_ns;
  guint i;

  jb_obj (jb, "scenario1_signal_overhead");
  jb_str (jb, "status", s1->status);
  jb_str (jb, "reason", s1->reason);
  jb_str (jb, "measures", "CPU time per call on the calling thread "
      "(CLOCK_THREAD_CPUTIME_ID), in batches; the GPU drains between "
      "batches outside the timed part");
  jb_int (jb, "calls_per_repetition", s1->calls);
  jb_int (jb, "batch", s1->batch);
  jb_obj (jb, "rows");
  for (i = 0; i < S1_N_ROWS; i++) {
    jb_obj (jb, s1_rows[i].key);
    jb_str (jb, "what", s1_rows[i].label);
    jb_series (jb, "cpu_ns_per_call", s1->cpu_ns[i]);
    jb_series (jb, "wall_ns_per_call", s1->wall_ns[i]);
    jb_obj_end (jb);
  }
  jb_obj_end (jb);
  jb_obj (jb, "ratios");
  jb_num (jb, "cudasemsignal_over_bare_median",
      ratio (series_median (c[S1_CUDASEMSIGNAL]), series_median (c[S1_BARE])));
  jb_num (jb, "cudasemsignal_over_bare_min",
      ratio (series_min (c[S1_CUDASEMSIGNAL]), series_min (c[S1_BARE])));
  jb_num (jb, "cudasemsignal_minus_identity_over_bare_median",
      ratio (series_median (c[S1_CUDASEMSIGNAL]) -
          series_median (c[S1_IDENTITY]), series_median (c[S1_BARE])));
  jb_num (jb, "cudasemsignal_minus_identity_over_bare_min",
      ratio (series_min (c[S1_CUDASEMSIGNAL]) - series_min (c[S1_IDENTITY]),
          series_min (c[S1_BARE])));
  jb_num (jb, "library_over_bare_median",
      ratio (series_median (c[S1_LIBRARY]), series_median (c[S1_BARE])));
  jb_num (jb, "target_cudasemsignal_minus_identity_over_bare", 2.0);
  jb_obj_end (jb);
  json_structure (jb, "cudasemsignal_stats", s1->sig_stats);
  jb_obj_end (jb);
}

static void
s1_init (Bench * b, const BenchScenario * sc)
{
  S1Result *s1 = &b->r.s1;
  guint i;

  s1->status = g_strdup ("not run");
  for (i = 0; i < S1_N_ROWS; i++) {
    s1->cpu_ns[i] = series_new ();
    s1->wall_ns[i] = series_new ();
  }
}

const BenchScenario bench_scenario_1 = {
  "1", 1 << 1, BENCH_RESULT_STATE (s1), s1_init, run_scenario1, json_s1
};

/* gst-cudasync
 * Copyright (C) 2026 gst-cudasync developers
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Scenario 8's semaphore hop: two streams play ping-pong on two timeline
 * semaphores behind a gate the host opens, so the CPU is not in the loop;
 * in one CUDA context and in two.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <math.h>
#include <string.h>

#include "scenario-8.h"

/* round trips per measurement: few enough that the enqueued work never
 * fills a stream's queue while the gate holds it */
#define HOP_ROUND_TRIPS 100
#define HOP_REPETITIONS 5

typedef struct
{
  TestSem *ts;
  CUexternalSemaphore x, y;     /* imported into X's and Y's context */
} HopSem;

typedef struct
{
  GstCudaContext *cx, *cy;
  CUstream sx, sy;
  HopSem a, b, gate;
} Hop;

/* in @ctx: an import of @ts (raw driver calls: the library keeps one
 * import of a semaphore per process, and this needs one per context), or
 * a new non-blocking stream without @ts */
static CUresult
hop_make (GstCudaContext * ctx, TestSem * ts, CUexternalSemaphore * ext,
    CUstream * stream)
{
  CUresult r = CUDA_ERROR_INVALID_CONTEXT;

  if (gst_cuda_context_push (ctx)) {
    r = ts ? import_timeline_raw (ts, ext) : CuStreamCreate (stream,
        CU_STREAM_NON_BLOCKING);
    gst_cuda_context_pop (NULL);
  }
  return r;
}

static gboolean
hop_sem (Hop * h, HopSem * s, gchar ** error)
{
  CUresult r = CUDA_ERROR_INVALID_HANDLE;

  s->ts = test_sem_new (TRUE, 0);
  if (s->ts)
    r = hop_make (h->cx, s->ts, &s->x, NULL);
  if (r == CUDA_SUCCESS)
    r = hop_make (h->cy, s->ts, &s->y, NULL);
  if (r != CUDA_SUCCESS)
    *error = cu_error ("hop: cuImportExternalSemaphore", r);
  return r == CUDA_SUCCESS;
}

static void
hop_sem_clear (Hop * h, HopSem * s)
{
  if (s->x && gst_cuda_context_push (h->cx)) {
    drv.cuDestroyExternalSemaphore (s->x);
    gst_cuda_context_pop (NULL);
  }
  if (s->y && gst_cuda_context_push (h->cy)) {
    drv.cuDestroyExternalSemaphore (s->y);
    gst_cuda_context_pop (NULL);
  }
  if (s->ts)
    test_sem_free (s->ts);
  memset (s, 0, sizeof (*s));
}

static CUresult
hop_op (CUexternalSemaphore ext, CUstream stream, guint64 value,
    gboolean signal)
{
  CUDA_EXTERNAL_SEMAPHORE_SIGNAL_PARAMS sp;
  CUDA_EXTERNAL_SEMAPHORE_WAIT_PARAMS wp;

  if (signal) {
    memset (&sp, 0, sizeof (sp));
    sp.params.fence.value = value;
    return drv.cuSignalExternalSemaphoresAsync (&ext, &sp, 1, stream);
  }
  memset (&wp, 0, sizeof (wp));
  wp.params.fence.value = value;
  return drv.cuWaitExternalSemaphoresAsync (&ext, &wp, 1, stream);
}

/* X's round trip @i, then Y's (each in its own context) */
static CUresult
hop_enqueue (Hop * h, guint64 base, guint i)
{
  CUresult r = CUDA_ERROR_INVALID_CONTEXT;

  if (gst_cuda_context_push (h->cx)) {
    r = i > 1 ? hop_op (h->b.x, h->sx, base + i - 1, FALSE) : CUDA_SUCCESS;
    if (r == CUDA_SUCCESS)
      r = hop_op (h->a.x, h->sx, base + i, TRUE);
    gst_cuda_context_pop (NULL);
  }
  if (r == CUDA_SUCCESS && gst_cuda_context_push (h->cy)) {
    r = hop_op (h->a.y, h->sy, base + i, FALSE);
    if (r == CUDA_SUCCESS)
      r = hop_op (h->b.y, h->sy, base + i, TRUE);
    gst_cuda_context_pop (NULL);
  }
  return r;
}

/* one measurement: the round trips enqueued behind the gate, the gate
 * opened, Y's stream waited for; µs per hop */
static gboolean
hop_once (Hop * h, guint rep, gdouble * us, gchar ** error)
{
  guint64 base = (guint64) rep * HOP_ROUND_TRIPS;
  CUresult r = CUDA_ERROR_INVALID_CONTEXT;
  gdouble t0;
  guint i;

  if (gst_cuda_context_push (h->cx)) {
    r = hop_op (h->gate.x, h->sx, rep + 1, FALSE);
    gst_cuda_context_pop (NULL);
  }
  for (i = 1; r == CUDA_SUCCESS && i <= HOP_ROUND_TRIPS; i++)
    r = hop_enqueue (h, base, i);
  if (r != CUDA_SUCCESS) {
    *error = cu_error ("hop: cuWait/SignalExternalSemaphoresAsync", r);
    /* no enqueued wait may stay stuck: past every value of this round */
    test_sem_host_signal (h->a.ts, base + 2 * HOP_ROUND_TRIPS);
    test_sem_host_signal (h->b.ts, base + 2 * HOP_ROUND_TRIPS);
    test_sem_host_signal (h->gate.ts, rep + 1);
    return FALSE;
  }
  t0 = mono_s ();
  test_sem_host_signal (h->gate.ts, rep + 1);
  r = CUDA_ERROR_INVALID_CONTEXT;
  if (gst_cuda_context_push (h->cy)) {
    r = CuStreamSynchronize (h->sy);
    gst_cuda_context_pop (NULL);
  }
  *us = (mono_s () - t0) * 1e6 / (2 * HOP_ROUND_TRIPS - 1);
  if (r != CUDA_SUCCESS)
    *error = cu_error ("hop: cuStreamSynchronize", r);
  return r == CUDA_SUCCESS;
}

static gboolean
hop_run (Hop * h, gdouble * median_us, gchar ** error)
{
  GArray *us = series_new ();
  gboolean ok;
  guint rep;

  ok = hop_sem (h, &h->a, error) && hop_sem (h, &h->b, error) &&
      hop_sem (h, &h->gate, error);
  if (ok && (hop_make (h->cx, NULL, NULL, &h->sx) != CUDA_SUCCESS ||
          hop_make (h->cy, NULL, NULL, &h->sy) != CUDA_SUCCESS)) {
    *error = g_strdup ("hop: cuStreamCreate failed");
    ok = FALSE;
  }
  for (rep = 0; ok && rep < HOP_REPETITIONS; rep++) {
    gdouble v;

    ok = hop_once (h, rep, &v, error);
    if (ok)
      series_add (us, v);
  }
  *median_us = ok ? series_median (us) : NAN;
  g_array_unref (us);
  return ok;
}

static void
hop_clear (Hop * h)
{
  if (h->sx && gst_cuda_context_push (h->cx)) {
    CuStreamSynchronize (h->sx);
    CuStreamDestroy (h->sx);
    gst_cuda_context_pop (NULL);
  }
  if (h->sy && gst_cuda_context_push (h->cy)) {
    CuStreamSynchronize (h->sy);
    CuStreamDestroy (h->sy);
    gst_cuda_context_pop (NULL);
  }
  hop_sem_clear (h, &h->a);
  hop_sem_clear (h, &h->b);
  hop_sem_clear (h, &h->gate);
  gst_clear_object (&h->cx);
  gst_clear_object (&h->cy);
}

gboolean
s8_hop (Bench * b, gdouble * same_us, gdouble * other_us, gchar ** error)
{
  Hop h;
  gboolean ok;

  memset (&h, 0, sizeof (h));
  h.cx = gst_object_ref (b->ctx);
  h.cy = gst_object_ref (b->ctx);
  ok = hop_run (&h, same_us, error);
  hop_clear (&h);
  if (!ok)
    return FALSE;
  memset (&h, 0, sizeof (h));
  h.cx = gst_object_ref (b->ctx);
  h.cy = gst_cuda_context_new (0);
  if (!h.cy) {
    *error = g_strdup ("hop: gst_cuda_context_new failed");
    gst_clear_object (&h.cx);
    return FALSE;
  }
  ok = hop_run (&h, other_us, error);
  hop_clear (&h);
  return ok;
}

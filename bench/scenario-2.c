/* gst-cudasync
 * Copyright (C) 2026 gst-cudasync developers
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Scenario 2, GPU-produced frames, and its diagnosis (2d): a producer
 * thread writes each frame into a GstCudaBufferPool buffer with a kernel
 * (bench/spin.cu) that also keeps the GPU busy for 0, 1 or 5 ms, then
 * pushes it through `cudasemsignal ! cudasemwait ! fakesink`:
 *   (a) the producer signals its own timeline semaphore on its stream and
 *       attaches that acquire point: no CPU wait anywhere;
 *   (c) the producer calls cuStreamSynchronize before pushing, and
 *       cudasemsignal runs with fallback=sync and no semaphore (what
 *       upstream GStreamer elements do).
 * 2d runs variants of a (without cudasemwait, without cudasemsignal, 1 and
 * 8 frames in flight, a polling recycler). The harness is frames.c; the
 * sections are run by section.c.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "frames.h"

/* a1: the consumer's own non-blocking stream */
static gboolean
consumer_stream (Run * run, gchar ** error)
{
  CUresult r = CUDA_ERROR_INVALID_CONTEXT;

  if (gst_cuda_context_push (run->b->ctx)) {
    r = CuStreamCreate (&run->cstream, CU_STREAM_NON_BLOCKING);
    gst_cuda_context_pop (NULL);
  }
  if (r != CUDA_SUCCESS) {
    *error = cu_error ("cuStreamCreate (consumer)", r);
    return FALSE;
  }
  return TRUE;
}

gboolean
s2_build_chain (Run * run, GstElement ** chain, guint * n, gchar ** error)
{
  RunElements *el = &run->el;
  gint mode = run->mode;

  if (mode != MODE_A2) {
    el->sig = chain[(*n)++] = make (run->pipeline, "cudasemsignal", "sig",
        error);
    if (!el->sig)
      return FALSE;
    gst_util_set_object_arg (G_OBJECT (el->sig), "fallback", "sync");
    el->probe_el = el->sig;
    if (mode == MODE_A1) {
      /* no cudasemwait: cudasemsignal signals its own semaphore, the
       * consumer waits for it on its own stream */
      g_object_set (el->sig, "semaphore", run->sem_c, NULL);
      return consumer_stream (run, error);
    }
  }
  el->wait = chain[(*n)++] = make (run->pipeline, "cudasemwait", "wait",
      error);
  if (!el->wait)
    return FALSE;
  if (mode != MODE_C && mode != MODE_A2)
    g_object_set (el->wait, "semaphore", run->sem_c, NULL);
  el->probe_el = el->wait;
  return TRUE;
}

gboolean
s2_check_stats (Run * run, GstStructure ** ss, GstStructure ** ws,
    GString * note)
{
  gboolean sok = TRUE;
  guint total = run->total;

  if (run->el.sig)
    g_object_get (run->el.sig, "stats", ss, NULL);
  if (run->el.wait)
    g_object_get (run->el.wait, "stats", ws, NULL);
  switch (run->mode) {
    case MODE_A:
    case MODE_A_IF1:
    case MODE_A_IF8:
    case MODE_A4:
    case MODE_A1:
      sok &= expect_stat (*ss, "signals", total, note, "cudasemsignal");
      sok &= expect_stat (*ss, "waits", total, note, "cudasemsignal");
      sok &= expect_stat (*ss, "cpu-syncs", 0, note, "cudasemsignal");
      if (run->mode == MODE_A1)
        break;
      /* one acquire point per buffer: cudasemsignal waited for the
       * producer's and replaced it with its own */
      sok &= expect_stat (*ws, "waits", (guint64) total, note, "cudasemwait");
      sok &= expect_stat (*ws, "cpu-syncs", 0, note, "cudasemwait");
      break;
    case MODE_A2:
      sok &= expect_stat (*ws, "waits", (guint64) total, note, "cudasemwait");
      sok &= expect_stat (*ws, "cpu-syncs", 0, note, "cudasemwait");
      break;
    case MODE_C:
      sok &= expect_stat (*ss, "signals", 0, note, "cudasemsignal");
      sok &= expect_stat (*ss, "cpu-syncs", total, note, "cudasemsignal");
      sok &= expect_stat (*ws, "waits", 0, note, "cudasemwait");
      break;
  }
  return sok;
}

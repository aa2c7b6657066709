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

static gboolean
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
  el->wait = chain[(*n)++] = make (run->pipeline, "cudasemwait", "wait", error);
  if (!el->wait)
    return FALSE;
  if (mode != MODE_C && mode != MODE_A2)
    g_object_set (el->wait, "semaphore", run->sem_c, NULL);
  el->probe_el = el->wait;
  return TRUE;
}

static gboolean
s2_check_stats (Run * run, GstStructure ** ss, GstStructure ** ws,
    GString * note, const gchar ** path)
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

/* the modes */

const BenchMode bench_mode_a = {
  .key = "a",
  .desc = "GPU handoff: producer acquire point, cudasemsignal and cudasemwait "
      "wait and signal on the GPU",
  .stats = {"cudasemsignal", "cudasemwait"},
  .build_chain = s2_build_chain,
  .check_stats = s2_check_stats,
};

const BenchMode bench_mode_c = {
  .key = "c",
  .desc =
      "CPU-synchronised handoff: producer cuStreamSynchronize before pushing, "
      "cudasemsignal fallback=sync without a semaphore",
  .flags = MODE_F_PRODUCER_SYNC,
  .stats = {"cudasemsignal", "cudasemwait"},
  .build_chain = s2_build_chain,
  .check_stats = s2_check_stats,
};

const BenchMode bench_mode_a1 = {
  .key = "a1",
  .desc = "a without cudasemwait: producer acquire point -> cudasemsignal "
      "(semaphore property) ! fakesink; the bench's consumer waits for "
      "cudasemsignal's acquire point on its own NON-BLOCKING stream and "
      "records the end event there: nothing on the legacy default stream",
  .stats = {"cudasemsignal", NULL},
  .build_chain = s2_build_chain,
  .check_stats = s2_check_stats,
};

const BenchMode bench_mode_a2 = {
  .key = "a2",
  .desc = "a without cudasemsignal: producer acquire point -> cudasemwait ! "
      "fakesink; cudasemwait waits for the producer's point on the legacy "
      "default stream, the end event is recorded there (as in a)",
  .stats = {NULL, "cudasemwait"},
  .build_chain = s2_build_chain,
  .check_stats = s2_check_stats,
};

const BenchMode bench_mode_a_if1 = {
  .key = "a3_in_flight_1",
  .desc = "a with 1 frame in flight (pool of 1 buffer)",
  .stats = {"cudasemsignal", "cudasemwait"},
  .pool_size = 1,
  .build_chain = s2_build_chain,
  .check_stats = s2_check_stats,
};

const BenchMode bench_mode_a_if8 = {
  .key = "a3_in_flight_8",
  .desc = "a with 8 frames in flight (pool of 8 buffers)",
  .stats = {"cudasemsignal", "cudasemwait"},
  .pool_size = 8,
  .build_chain = s2_build_chain,
  .check_stats = s2_check_stats,
};

const BenchMode bench_mode_a4 = {
  .key = "a4_poll",
  .desc =
      "a with the recycler polling the end event (cuEventQuery, 20 us sleeps) "
      "instead of blocking in cuEventSynchronize on a blocking-sync event",
  .flags = MODE_F_POLL,
  .stats = {"cudasemsignal", "cudasemwait"},
  .build_chain = s2_build_chain,
  .check_stats = s2_check_stats,
};

/* the sections */

static const gint s2_modes[] = { MODE_A, MODE_C };

static const gint s2d_modes[] = { MODE_A, MODE_C, MODE_A1, MODE_A2,
  MODE_A_IF1, MODE_A_IF8, MODE_A4
};
static const guint s2_work[] = { 0, 1000, 5000 };
static const guint s2d_work[] = { 0, 5000 };

static const BenchSection s2_section = {
  .title = "Scenario 2: GPU-produced frames handed to cudasemsignal ! "
      "cudasemwait ! fakesink",
  .modes = s2_modes,
  .n_modes = G_N_ELEMENTS (s2_modes),
  .ref_mode = MODE_C,
  .n_sizes = 2,
  .n_formats = 2,
  .work_us = s2_work,
  .n_work = G_N_ELEMENTS (s2_work),
};

static const BenchSection s2d_section = {
  .key = "scenario2_diagnosis",
  .title = "Scenario 2d: diagnosis of mode a's throughput (1920x1080 RGBA; "
      "a and c again, and variants of a)",
  .latency = "as scenario 2 (GPU time from the producer's kernel to the end "
      "event); a1 records the end event on its own non-blocking stream",
  .modes = s2d_modes,
  .n_modes = G_N_ELEMENTS (s2d_modes),
  .ref_mode = MODE_C,
  .n_sizes = 1,
  .n_formats = 1,
  .work_us = s2d_work,
  .n_work = G_N_ELEMENTS (s2d_work),
};

static void
json_s2 (Bench * b, JsonBuilder * jb)
{
  S2Result *s2 = &b->r.s2;
  guint i, j;

  jb_obj (jb, "scenario2_gpu_frames");
  jb_str (jb, "status", s2->status);
  jb_str (jb, "reason", s2->reason);
  jb_str (jb, "frame_writer", s2->frame_writer);
  jb_str (jb, "kernel", s2->kernel_info);
  jb_str (jb, "pipeline", "producer thread (pad push) ! cudasemsignal ! "
      "cudasemwait ! fakesink sync=false");
  jb_obj (jb, "modes");
  for (j = 0; j < G_N_ELEMENTS (s2_modes); j++)
    jb_str (jb, bench_mode_key (b, s2_modes[j]), b->modes[s2_modes[j]]->desc);
  jb_obj_end (jb);
  jb_str (jb, "latency", "GPU time from an event recorded on the producer's "
      "stream just before its kernel to an event recorded on the legacy "
      "default stream after cudasemwait");
  jb_arr (jb, "configs");
  for (i = 0; s2->configs && i < s2->configs->len; i++) {
    S2Config *c = g_ptr_array_index (s2->configs, i);
    ModeResult *a = &c->m[MODE_A], *cm = &c->m[MODE_C];

    jb_obj (jb, NULL);
    json_config_head (jb, c);
    jb_obj (jb, "modes");
    for (j = 0; j < G_N_ELEMENTS (s2_modes); j++)
      json_mode (b, jb, bench_mode_key (b, s2_modes[j]), &c->m[s2_modes[j]]);
    jb_obj_end (jb);
    json_ratios (jb, "ratios_a_over_c_median", a, cm, TRUE);
    jb_num (jb, "latency_p99", ratio (series_median (a->lat_p99_us),
            series_median (cm->lat_p99_us)));
    jb_obj_end (jb);
    jb_obj_end (jb);
  }
  jb_arr_end (jb);
  jb_obj_end (jb);
}

static void
s2_init (Bench * b)
{
  section_init (&b->r.s2, &s2_section);
}

static gboolean
s2_run (Bench * b)
{
  return run_gpu_section (b, &b->r.s2);
}

static void
s2d_init (Bench * b)
{
  section_init (&b->r.s2d, &s2d_section);
}

static gboolean
s2d_run (Bench * b)
{
  return run_gpu_section (b, &b->r.s2d);
}

static void
s2d_json (Bench * b, JsonBuilder * jb)
{
  json_section (b, jb, &b->r.s2d);
}

const BenchScenario bench_scenario_2 = {
  "2", 1 << 2, BENCH_RESULT_STATE (s2), s2_init, s2_run, json_s2
};

const BenchScenario bench_scenario_2d = {
  "2d", ONLY_2D, BENCH_RESULT_STATE (s2d), s2d_init, s2d_run, s2d_json
};

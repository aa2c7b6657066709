/* gst-cudasync
 * Copyright (C) 2026 gst-cudasync developers
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Scenario 2, GPU-produced frames through `cudasemsignal ! cudasemwait !
 * fakesink`: acquire points (a) against cuStreamSynchronize (c).
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "frames.h"

static gboolean
s2_build_chain (Run * run, GstElement ** chain, guint * n, gchar ** error)
{
  RunElements *el = &run->el;

  el->sig = chain[(*n)++] = make (run->pipeline, "cudasemsignal", "sig", error);
  el->wait = chain[(*n)++] = make (run->pipeline, "cudasemwait", "wait", error);
  if (!el->sig || !el->wait)
    return FALSE;
  gst_util_set_object_arg (G_OBJECT (el->sig), "fallback", "sync");
  if (run->mode == MODE_A)
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

  g_object_get (run->el.sig, "stats", ss, NULL);
  g_object_get (run->el.wait, "stats", ws, NULL);
  if (run->mode == MODE_A) {
    sok &= expect_stat (*ss, "signals", total, note, "cudasemsignal");
    sok &= expect_stat (*ss, "waits", total, note, "cudasemsignal");
    sok &= expect_stat (*ss, "cpu-syncs", 0, note, "cudasemsignal");
    /* one acquire point per buffer: cudasemsignal waited for the
     * producer's and replaced it with its own */
    sok &= expect_stat (*ws, "waits", (guint64) total, note, "cudasemwait");
    sok &= expect_stat (*ws, "cpu-syncs", 0, note, "cudasemwait");
  } else {
    sok &= expect_stat (*ss, "signals", 0, note, "cudasemsignal");
    sok &= expect_stat (*ss, "cpu-syncs", total, note, "cudasemsignal");
    sok &= expect_stat (*ws, "waits", 0, note, "cudasemwait");
  }
  return sok;
}

/* the modes */

const BenchMode bench_mode_a = {
  .key = "a",
  .desc = "GPU handoff: acquire point, cudasemsignal and cudasemwait on the "
      "GPU",
  .stats = {"cudasemsignal", "cudasemwait"},
  .build_chain = s2_build_chain,
  .check_stats = s2_check_stats,
};

const BenchMode bench_mode_c = {
  .key = "c",
  .desc = "CPU handoff: cuStreamSynchronize before pushing, cudasemsignal "
      "fallback=sync",
  .flags = MODE_F_PRODUCER_SYNC,
  .stats = {"cudasemsignal", "cudasemwait"},
  .build_chain = s2_build_chain,
  .check_stats = s2_check_stats,
};

/* the section */

static const gint s2_modes[] = { MODE_A, MODE_C };

static const guint s2_work[] = { 0, 1000, 5000 };

static const BenchSection s2_section = {
  .key = "scenario2_gpu_frames",
  .latency = "GPU time, from an event before the producer's kernel to one "
      "after cudasemwait",
  .title = "Scenario 2: GPU-produced frames -> cudasemsignal ! cudasemwait ! "
      "fakesink",
  .modes = s2_modes,
  .n_modes = G_N_ELEMENTS (s2_modes),
  .ref_mode = MODE_C,
  .n_sizes = 2,
  .n_formats = 2,
  .work_us = s2_work,
  .n_work = G_N_ELEMENTS (s2_work),
};

const BenchScenario bench_scenario_2 = SECTION_SCENARIO (2, s2, &s2_section);

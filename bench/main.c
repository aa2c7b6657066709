/* gst-cudasync
 * Copyright (C) 2026 gst-cudasync developers
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * gst-cudasync-bench: runs the scenarios of its table in order (or, with
 * --child, one scenario's other process). See bench/README.md.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <signal.h>
#include <stdio.h>
#include <string.h>

#include <gst/cuda/gstcudaloader.h>
#include <gst/cuda/gstcudamemory.h>

#include "bench.h"
#include "bench-cuda.h"
#include "pipeline.h"

/* the table of the scenarios and modes, given to the rest of the bench
 * through Bench: nothing else names a scenario's descriptor */
extern const BenchScenario bench_scenario_1;
extern const BenchScenario bench_scenario_2;
extern const BenchScenario bench_scenario_3;
extern const BenchScenario bench_scenario_4;
extern const BenchScenario bench_scenario_5;
extern const BenchScenario bench_scenario_6;
extern const BenchScenario bench_scenario_7;
extern const BenchScenario bench_scenario_8;

/* scenario-2.c */
extern const BenchMode bench_mode_a, bench_mode_c;
/* scenario-3.c (the CUDA <-> Vulkan scenario), scenario-3-raw.c */
extern const BenchMode bench_mode_cv_a, bench_mode_cv_b,
    bench_mode_cv_ab, bench_mode_cv_ai, bench_mode_cv_as, bench_mode_cv_d,
    bench_mode_cv_d2, bench_mode_cv_d3, bench_mode_vc_a, bench_mode_vc_b,
    bench_mode_s5_a, bench_mode_s5_c, bench_mode_s6_am, bench_mode_s6_ao;

/* in the order they run and appear in the JSON document */
static const BenchScenario *const bench_scenarios[] = {
  &bench_scenario_1,
  &bench_scenario_2,
  &bench_scenario_3,
  &bench_scenario_4,
  &bench_scenario_5,
  &bench_scenario_6,
  &bench_scenario_7,
  &bench_scenario_8,
  NULL
};

/* by their index in the results (ModeResult m[]) */
static const BenchMode *const bench_modes[N_ALL_MODES] = {
  [MODE_A] = &bench_mode_a,
  [MODE_C] = &bench_mode_c,
  [MODE_CV_A] = &bench_mode_cv_a,
  [MODE_CV_B] = &bench_mode_cv_b,
  [MODE_CV_AB] = &bench_mode_cv_ab,
  [MODE_VC_A] = &bench_mode_vc_a,
  [MODE_VC_B] = &bench_mode_vc_b,
  [MODE_CV_D] = &bench_mode_cv_d,
  [MODE_CV_D2] = &bench_mode_cv_d2,
  [MODE_CV_D3] = &bench_mode_cv_d3,
  [MODE_S5_A] = &bench_mode_s5_a,
  [MODE_S5_C] = &bench_mode_s5_c,
  [MODE_S6_AM] = &bench_mode_s6_am,
  [MODE_S6_AO] = &bench_mode_s6_ao,
  [MODE_CV_AI] = &bench_mode_cv_ai,
  [MODE_CV_AS] = &bench_mode_cv_as,
};

static void
fatal (Bench * b, const gchar * what)
{
  g_print ("FAIL: %s\n", what);
  if (b->opt.child)
    return;                     /* a scenario's other process: no JSON */
  g_mutex_lock (&b->lock);
  g_free (b->r.fatal);
  b->r.fatal = g_strdup (what);
  g_mutex_unlock (&b->lock);
  write_json (b);
  g_atomic_int_set (&b->wd.finished, 1);
}

/* the elements, the semaphores, the driver, the context; FALSE after
 * fatal () */
static gboolean
bench_setup (Bench * b)
{
  const gchar *elements[] = { "cudasemsignal", "cudasemwait", "identity",
    "fakesink"
  };
  gchar *error = NULL;
  guint i;

  for (i = 0; i < G_N_ELEMENTS (elements); i++) {
    gchar *missing = missing_elements (&elements[i], 1);

    if (missing) {
      gchar *msg = g_strdup_printf ("element %s not found%s", elements[i],
          i < 2 ? ": point GST_PLUGIN_PATH at <builddir>/gst/plugin "
          "(bench/run.sh does)" : "");
      fatal (b, msg);
      g_free (msg);
      g_free (missing);
      return FALSE;
    }
  }

  /* semaphores the way an application makes them; decides the backend */
  if (test_sem_backend () == TEST_SEM_BACKEND_NONE) {
    gchar *msg = g_strdup_printf ("cannot create external semaphores: %s",
        test_sem_backend_name ());
    fatal (b, msg);
    g_free (msg);
    return FALSE;
  }
  b->r.semaphores = g_strdup (test_sem_backend_name ());

  if (!gst_cuda_load_library ()) {
    fatal (b, "libgstcuda could not load the CUDA driver");
    return FALSE;
  }
  gst_cuda_memory_init_once ();
  if (!cuda_load_driver (b, &error)) {
    fatal (b, error);
    g_free (error);
    return FALSE;
  }
  b->ctx = gst_cuda_context_new (0);
  if (!b->ctx) {
    fatal (b, "gst_cuda_context_new (0) failed");
    return FALSE;
  }
  return TRUE;
}

/* whether to run a scenario --only asks for (@bit); else its status (and
 * reason) says why not: not asked for, or the run was aborted before it */
static gboolean
want (Bench * b, guint bit, const gchar * name, gchar ** status,
    gchar ** reason)
{
  gchar *why;

  if (!bench_options_want (&b->opt, bit)) {
    set_str (b, status, "skipped");
    return FALSE;
  }
  if (!bench_stopped (b))
    return TRUE;
  g_print ("\nScenario %s: skipped, the run was aborted\n", name);
  why = bench_skip_reason (b);
  set_str (b, status, "skipped");
  set_str (b, reason, why);
  g_free (why);
  return FALSE;
}

/* every scenario --only asks for, in the table's order; FALSE when one
 * failed */
static gboolean
run_scenarios (Bench * b)
{
  gboolean ok = TRUE;
  guint i;

  for (i = 0; b->scenarios[i]; i++) {
    const BenchScenario *sc = b->scenarios[i];
    gchar **status = G_STRUCT_MEMBER_P (&b->r, sc->status);
    gchar **reason = G_STRUCT_MEMBER_P (&b->r, sc->reason);

    if (want (b, sc->only_bit, sc->id, status, reason))
      ok &= sc->run (b, sc);
  }
  return ok && !bench_stopped (b);
}

/* --child=ID:ARGS: this program is the other process of scenario ID
 * (BenchScenario.child) */
static gint
run_child (Bench * b)
{
  const gchar *colon = strchr (b->opt.child, ':');
  gsize len = colon ? (gsize) (colon - b->opt.child) : 0;
  gint status;
  guint i;

  for (i = 0; colon && b->scenarios[i]; i++) {
    const BenchScenario *sc = b->scenarios[i];

    if (!sc->child || strlen (sc->id) != len ||
        strncmp (sc->id, b->opt.child, len) != 0)
      continue;
    if (!bench_setup (b))
      return 1;
    status = sc->child (b, colon + 1);
    gst_object_unref (b->ctx);
    return status;
  }
  g_printerr ("--child: no scenario %s\n", b->opt.child);
  return 2;
}

int
main (int argc, char **argv)
{
  Bench bench;
  Bench *b = &bench;
  gboolean ok;
  gint status;

  setvbuf (stdout, NULL, _IOLBF, 0);
  /* a write to a pipe whose reader ended (scenario 8's other process)
   * fails with EPIPE instead of ending the bench without its results */
  signal (SIGPIPE, SIG_IGN);
  memset (b, 0, sizeof (*b));
  b->scenarios = bench_scenarios;
  b->modes = bench_modes;
  b->wd.t_start = g_get_monotonic_time ();
  g_mutex_init (&b->lock);
  g_mutex_init (&b->vk_lock);
  g_mutex_init (&b->raw_queue_lock);
  status = bench_options_parse (&b->opt, &argc, &argv);
  if (status != 0)
    return status;
  if (b->opt.child)
    return run_child (b);
  b->wd.time_limit = b->opt.time_limit;
  b->wd.lock = &b->lock;
  b->wd.write_aborted = write_json_aborted;
  b->wd.user_data = b;
  b->wd.json_path = b->opt.json_path;
  results_init (b);

  g_print ("gst-cudasync bench: results to %s\n", b->opt.json_path);
  write_json (b);
  bench_watchdog_start (&b->wd);
  if (!bench_setup (b))
    return 1;
  describe_device (b);
  g_print ("  CUDA driver : %s\n  device      : %s, compute capability %d.%d,"
      " %d SMs, context scheduling %s\n  semaphores  : %s\n", b->r.driver,
      b->r.device, b->r.cc_major, b->r.cc_minor, b->r.sm_count,
      sched_name (b->r.ctx_flags) ? sched_name (b->r.ctx_flags) : "unknown",
      b->r.semaphores);
  write_json (b);

  ok = run_scenarios (b);
  kernel_unload (b);

  /* after bench_abort () the results are not complete: "aborted" says
   * why */
  g_mutex_lock (&b->lock);
  b->r.complete = !bench_stopped (b);
  g_mutex_unlock (&b->lock);
  write_json (b);
  bench_watchdog_stop (&b->wd);

  if (bench_stopped (b)) {
    g_print ("\nABORTED: %s (results in %s, %.1f s)\n", b->r.aborted,
        b->opt.json_path, bench_elapsed_s (&b->wd));
    status = BENCH_EXIT_ABORTED;
  } else {
    g_print ("\n%s (results in %s, %.1f s)\n", ok ? "DONE" : "DONE WITH "
        "FAILURES", b->opt.json_path, bench_elapsed_s (&b->wd));
    status = ok ? 0 : 1;
  }
  gst_object_unref (b->ctx);
  return status;
}

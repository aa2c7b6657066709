/* gst-cudasync
 * Copyright (C) 2026 gst-cudasync developers
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * gst-cudasync-bench: measures what handing a CUDA frame over with external
 * semaphores costs, against a bare driver call and against the CPU
 * synchronised handoff upstream GStreamer uses. See docs/benchmarks.md.
 *
 * The parts: harness.c (options, timing, series, watchdog, JSON output),
 * results.c (the results and their JSON document), bench-cuda.c (driver entry
 * points, the spin kernel), pipeline.c (pipelines, elements, the Vulkan
 * device), frames.c (the frame harness of scenarios 2 to 6), section.c (the
 * sections that share it) and one file per scenario.
 *
 * Every scenario repeats R times; min and median over the repetitions are
 * reported, and the ratios are computed from the same run. The results go
 * to a table on stdout and to a JSON file, rewritten after each step so that
 * an interrupted run still leaves the finished parts.
 *
 * Needs GST_PLUGIN_PATH pointing at the build's gst/plugin folder;
 * bench/run.sh sets everything up.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <stdio.h>
#include <string.h>

#include <gst/cuda/gstcudaloader.h>
#include <gst/cuda/gstcudamemory.h>

#include "bench.h"
#include "bench-cuda.h"
#include "pipeline.h"

static void
fatal (Bench * b, const gchar * what)
{
  g_print ("FAIL: %s\n", what);
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

/* every scenario --only asks for; FALSE when one failed */
static gboolean
run_scenarios (Bench * b)
{
  const BenchOptions *opt = &b->opt;
  Results *R = &b->r;
  gboolean ok = TRUE;

  if (bench_options_want (opt, 1 << 1))
    ok &= run_scenario1 (b);
  else
    set_str (b, &R->s1.status, "skipped");
  if (bench_options_want (opt, 1 << 2))
    ok &= run_gpu_section (b, &R->s2, SEC_2);
  else
    set_str (b, &R->s2.status, "skipped");
  if (bench_options_want (opt, ONLY_2D))
    ok &= run_gpu_section (b, &R->s2d, SEC_2D);
  else
    set_str (b, &R->s2d.status, "skipped");
  if (bench_options_want (opt, ONLY_2G))
    ok &= run_scenario2g (b);
  else
    set_str (b, &R->s2g.status, "skipped");
  if (bench_options_want (opt, 1 << 3))
    ok &= run_gpu_section (b, &R->s3, SEC_3);
  else
    set_str (b, &R->s3.status, "skipped");
  if (bench_options_want (opt, 1 << 4))
    ok &= run_gpu_section (b, &R->s4, SEC_4);
  else
    set_str (b, &R->s4.status, "skipped");
  if (bench_options_want (opt, 1 << 5))
    ok &= run_gpu_section (b, &R->s5, SEC_5);
  else
    set_str (b, &R->s5.status, "skipped");
  if (bench_options_want (opt, 1 << 6))
    ok &= run_scenario6 (b);
  else
    set_str (b, &R->s6.status, "skipped");
  return ok;
}

int
main (int argc, char **argv)
{
  Bench bench;
  Bench *b = &bench;
  gboolean ok;
  gint status;

  setvbuf (stdout, NULL, _IOLBF, 0);
  memset (b, 0, sizeof (*b));
  b->wd.t_start = g_get_monotonic_time ();
  g_mutex_init (&b->lock);
  g_mutex_init (&b->vk_lock);
  g_mutex_init (&b->raw_queue_lock);
  status = bench_options_parse (&b->opt, &argc, &argv);
  if (status != 0)
    return status;
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

  g_mutex_lock (&b->lock);
  b->r.complete = TRUE;
  g_mutex_unlock (&b->lock);
  write_json (b);
  bench_watchdog_stop (&b->wd);

  g_print ("\n%s (results in %s, %.1f s)\n", ok ? "DONE" : "DONE WITH "
      "FAILURES", b->opt.json_path, bench_elapsed_s (&b->wd));
  gst_object_unref (b->ctx);
  return ok ? 0 : 1;
}

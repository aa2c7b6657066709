/* gst-cudasync
 * Copyright (C) 2026 gst-cudasync developers
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * gst-cudasync-demo's default demo: cudasemsignal ! cudasemwait with a
 * timeline semaphore the application creates and imports.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <gst/gst.h>
#include <gst/cuda/gstcudacontext.h>
#include <gst/cudasync/cudasync.h>

#include "demo-common.h"

/* ---- semaphore pipeline: cudasemsignal ! cudasemwait ---- */

typedef struct
{
  guint64 sig_signals, sig_cpu, sig_last, wait_waits, wait_cpu, sem_value;
  SimCallCount sim_count;
  unsigned sim_signals0, sim_waits0;
} SemCounters;

/* the semaphore, created and exported the way an application does, and
 * imported into the application's context */
static gboolean
sem_setup_semaphore (Demo * d)
{
  GError *err = NULL;
  int fd;

  d->tsem = test_sem_new (TRUE, 0);
  if (!d->tsem) {
    g_print ("FAIL: could not create a timeline semaphore\n");
    return FALSE;
  }
  fd = test_sem_export_fd (d->tsem);
  if (fd < 0) {
    g_print ("FAIL: could not export the semaphore\n");
    return FALSE;
  }
  d->sem = gst_cuda_semaphore_import_fd (d->context,
      GST_CUDA_SEMAPHORE_HANDLE_TYPE_TIMELINE_FD, fd, &err);
  if (!d->sem) {
    g_print ("FAIL: gst_cuda_semaphore_import_fd: %s\n", err->message);
    g_clear_error (&err);
    close (fd);
    return FALSE;
  }
  return TRUE;
}

static gboolean
sem_setup (Demo * d, const DemoOptions * o)
{
  static const gchar *const names[] = { "cudaupload", "cudadownload",
    "cudasemsignal", "cudasemwait"
  };

  g_print ("gst-cudasync demo: %d frames of %dx%d NV12\n", o->frames,
      o->width, o->height);
  if (!find_elements (names, "It comes from gstreamer1.0-plugins-bad "
          "(nvcodec), which registers it only when a CUDA driver loads; use "
          "tools/run-demo.sh (a private GST_REGISTRY per driver).",
          "Point GST_PLUGIN_PATH at <builddir>/gst/plugin (tools/run-demo.sh "
          "does)."))
    return FALSE;
  if (test_sem_backend () == TEST_SEM_BACKEND_NONE) {
    g_print ("FAIL: cannot create an external semaphore: %s\n",
        test_sem_backend_name ());
    return FALSE;
  }
  d->driver = describe_driver ();
  g_print ("  CUDA driver     : %s\n", d->driver);
  g_print ("  semaphores from : %s\n", test_sem_backend_name ());
  if (!demo_new_context (d) || !sem_setup_semaphore (d))
    return FALSE;
  demo_describe_pipelines (d, o, "cudaupload ! cudasemsignal name=sig ! "
      "cudasemwait name=wait ! cudadownload");
  return TRUE;
}

/* the reference, then the CUDA pipeline with the simulator's call counters
 * read before it; -1: the reference failed, else whether the CUDA pipeline
 * ended with EOS */
static int
sem_run (Demo * d, const DemoOptions * o, SemCounters * c)
{
  gboolean ok;

  if (!demo_run_reference (d))
    return -1;
  c->sim_count = sim_call_count_func ();
  if (c->sim_count) {
    c->sim_signals0 = c->sim_count ("cuSignalExternalSemaphoresAsync");
    c->sim_waits0 = c->sim_count ("cuWaitExternalSemaphoresAsync");
  }
  ok = demo_run_cuda (d, o->no_semaphore ? NULL : d->sem, "CUDA");

  c->sig_signals = get_stat (d->run.sig_stats, "signals");
  c->sig_cpu = get_stat (d->run.sig_stats, "cpu-syncs");
  c->sig_last = get_stat (d->run.sig_stats, "last-value");
  c->wait_waits = get_stat (d->run.wait_stats, "waits");
  c->wait_cpu = get_stat (d->run.wait_stats, "cpu-syncs");

  /* the semaphore must have reached the last signalled value */
  if (c->sig_last != G_MAXUINT64 && c->sig_last > 0 &&
      !test_sem_host_wait (d->tsem, c->sig_last,
          10 * G_GUINT64_CONSTANT (1000000000)))
    g_print ("  the semaphore did not reach %" G_GUINT64_FORMAT
        " within 10 s\n", c->sig_last);
  c->sem_value = test_sem_get_value (d->tsem);
  return ok;
}

static void
sem_print (const Demo * d, const SemCounters * c)
{
  demo_print_run (d, "with CUDA");
  g_print ("  cudasemsignal   : signals=%" G_GINT64_FORMAT " cpu-syncs=%"
      G_GINT64_FORMAT " last-value=%" G_GINT64_FORMAT "\n",
      (gint64) c->sig_signals, (gint64) c->sig_cpu, (gint64) c->sig_last);
  g_print ("  cudasemwait     : waits=%" G_GINT64_FORMAT " cpu-syncs=%"
      G_GINT64_FORMAT "\n", (gint64) c->wait_waits, (gint64) c->wait_cpu);
  g_print ("  semaphore value : %" G_GUINT64_FORMAT " (seen by the %s)\n",
      c->sem_value, test_sem_backend () == TEST_SEM_BACKEND_VULKAN ?
      "Vulkan device" : "simulator's exporter side");
  if (c->sim_count)
    g_print ("  driver calls    : cuSignalExternalSemaphoresAsync=%u "
        "cuWaitExternalSemaphoresAsync=%u (counted by the simulator)\n",
        c->sim_count ("cuSignalExternalSemaphoresAsync") - c->sim_signals0,
        c->sim_count ("cuWaitExternalSemaphoresAsync") - c->sim_waits0);
}

/* the checks after the frame checks; TRUE when they pass */
static gboolean
sem_check (const SemCounters * c, gint frames)
{
  gboolean pass = TRUE;

  if (c->sig_signals != (guint64) frames) {
    g_print ("FAIL: cudasemsignal signalled %" G_GINT64_FORMAT " times for %d "
        "frames\n", (gint64) c->sig_signals, frames);
    pass = FALSE;
  }
  if (c->sig_cpu != 0) {
    g_print ("FAIL: cudasemsignal synchronised on the CPU %" G_GINT64_FORMAT
        " times\n", (gint64) c->sig_cpu);
    pass = FALSE;
  }
  if (c->wait_waits != (guint64) frames) {
    g_print ("FAIL: cudasemwait waited %" G_GINT64_FORMAT " times for %d "
        "frames\n", (gint64) c->wait_waits, frames);
    pass = FALSE;
  }
  if (c->sig_last == G_MAXUINT64 || c->sem_value < c->sig_last) {
    g_print ("FAIL: the semaphore is at %" G_GUINT64_FORMAT ", below the last "
        "signalled value\n", c->sem_value);
    pass = FALSE;
  }
  return pass;
}

int
run_semaphore (const DemoOptions * o)
{
  Demo d = { 0, };
  SemCounters c = { 0, };
  gboolean pass;
  int status = 1, ran = -1;

  if (sem_setup (&d, o) && (ran = sem_run (&d, o, &c)) >= 0) {
    sem_print (&d, &c);
    pass = demo_check_frames (&d, o->frames) && ran;
    pass = sem_check (&c, o->frames) && pass;
    g_print ("%s\n", pass ? "PASS" : "FAIL");
    status = pass ? 0 : 1;
  }
  demo_clear (&d);
  return status;
}

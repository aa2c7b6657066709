/* gst-cudasync
 * Copyright (C) 2026 gst-cudasync developers
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * gst-cudasync-demo: runs
 *
 *   videotestsrc ! NV12 ! cudaupload ! cudasemsignal ! cudasemwait ! cudadownload ! appsink
 *
 * with a timeline semaphore created the way an application creates it
 * (Vulkan on a real GPU, the simulator's exporter API otherwise; see
 * tools/common/testsem.h), imported with gst_cuda_semaphore_import_fd() and
 * set on cudasemwait, which offers it to cudasemsignal through the
 * ALLOCATION query. The frames are compared, checksum by checksum, with
 * those of the same videotestsrc without CUDA.
 *
 * Exit status: 0 when every frame is identical, every buffer was signalled
 * on the GPU and cudasemsignal never synchronised on the CPU; 1 otherwise.
 *
 * With --bridge it runs the CUDA<->Vulkan bridge instead:
 *
 *   videotestsrc ! NV12 ! cudaupload ! cudatovulkan ! vulkantocuda ! cudadownload ! appsink
 *
 * every frame going CUDA -> Vulkan image -> CUDA, and compares the frames
 * the same way. It says which Vulkan device the elements share with CUDA
 * and which path ran: the GPU path (CUDA and Vulkan wait for each other on
 * semaphores, no CPU wait: required on a real GPU) or the CPU fallback
 * (Mesa lavapipe, which cannot export semaphores, on the simulated driver:
 * each element waits on the CPU once per frame).
 *
 * Needs GST_PLUGIN_PATH pointing at the build's gst/plugin folder;
 * tools/run-demo.sh sets everything up (and runs both pipelines).
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <gst/gst.h>
#include <gst/cudasync/cudasync.h>

#ifdef HAVE_CUDA_VULKAN
#include "vkutil.h"
#endif

#include "demo-common.h"

/* ---- options ---- */

/* 0, or the exit status (2) after saying what is wrong */
static int
parse_options (int *argc, char ***argv, DemoOptions * o)
{
  GOptionEntry entries[] = {
    {"frames", 'n', 0, G_OPTION_ARG_INT, &o->frames,
        "Number of frames (default 300)", "N"},
    {"width", 'W', 0, G_OPTION_ARG_INT, &o->width,
        "Frame width (default 1280)", "PIXELS"},
    {"height", 'H', 0, G_OPTION_ARG_INT, &o->height,
        "Frame height (default 720)", "PIXELS"},
    {"no-semaphore", 0, 0, G_OPTION_ARG_NONE, &o->no_semaphore,
        "Do not give cudasemwait the semaphore: cudasemsignal then falls back "
          "to CPU synchronisation, and the demo reports FAIL (shows what the "
          "semaphore saves)", NULL},
    {"bridge", 0, 0, G_OPTION_ARG_NONE, &o->bridge,
        "Run cudaupload ! cudatovulkan ! vulkantocuda ! cudadownload instead "
          "(the CUDA<->Vulkan bridge elements)", NULL},
    {"vulkan-uuid", 0, 0, G_OPTION_ARG_NONE, &o->vulkan_uuid,
          "Print the deviceUUID of the first Vulkan device that shares memory "
          "(VK_KHR_external_memory_fd), the value CUDASIM_DEVICE_UUID gives "
          "the simulated CUDA device for the bridge elements, and exit",
        NULL},
    {NULL}
  };
  GOptionContext *octx = g_option_context_new ("- hand CUDA frames over with "
      "external semaphores, and check them");
  GError *err = NULL;
  gboolean parsed;

  g_option_context_add_main_entries (octx, entries, NULL);
  g_option_context_add_group (octx, gst_init_get_option_group ());
  parsed = g_option_context_parse (octx, argc, argv, &err);
  g_option_context_free (octx);
  if (!parsed) {
    g_printerr ("%s\n", err->message);
    g_error_free (err);
    return 2;
  }
  if (o->frames < 1 || o->width < 16 || o->height < 16 || (o->width & 1) ||
      (o->height & 1)) {
    g_printerr ("--frames must be >= 1; --width/--height even and >= 16\n");
    return 2;
  }
  return 0;
}

/* --vulkan-uuid: 0, or 1 when there is no such device */
static int
print_vulkan_uuid (void)
{
#ifdef HAVE_CUDA_VULKAN
  gchar *uuid = vk_util_interop_uuid ();

  if (uuid) {
    g_print ("%s\n", uuid);
    g_free (uuid);
    return 0;
  }
  g_printerr ("no Vulkan device with VK_KHR_external_memory_fd\n");
#else
  g_printerr ("built without the CUDA<->Vulkan bridge\n");
#endif
  return 1;
}

static int
run_demo (int argc, char **argv)
{
  DemoOptions o = { 300, 1280, 720, FALSE, FALSE, FALSE };
  int status = parse_options (&argc, &argv, &o);

  if (status != 0)
    return status;
  if (o.vulkan_uuid)
    return print_vulkan_uuid ();
  if (o.bridge) {
    if (o.no_semaphore)
      g_print ("note: --no-semaphore does not apply to --bridge\n");
    return run_bridge (&o);
  }
  return run_semaphore (&o);
}

int
main (int argc, char **argv)
{
  int status = run_demo (argc, argv);

  /* The library destroys semaphores whose GPU work was still pending on a
   * worker thread: let it finish before exit() tears the process (and the
   * driver) down. Applications do the same before they exit. */
  gst_cuda_sync_wait_idle ();
  return status;
}

/* gst-cudasync
 * Copyright (C) 2026 gst-cudasync developers
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * gst-cudasync-demo --bridge: cudaupload ! cudatovulkan ! vulkantocuda !
 * cudadownload, checked frame by frame and by the elements' counters.
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

#ifdef HAVE_CUDA_VULKAN
#include <gst/vulkan/vulkan.h>
#include "vkutil.h"
#endif

/* ---- --bridge: cudaupload ! cudatovulkan ! vulkantocuda ! cudadownload ---- */

static gboolean
is_simulator (void)
{
  void *lib = dlopen ("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);

  return lib && dlsym (lib, "cudasim_sem_create") != NULL;
}

#ifdef HAVE_CUDA_VULKAN
/* Describes the Vulkan device the bridge elements will share with CUDA
 * device 0: the one with the same deviceUUID. The simulated CUDA device has
 * no Vulkan twin: there the first device with VK_KHR_external_memory_fd
 * (Mesa lavapipe) plays it, and the simulator's device 0 is given its UUID
 * (CUDASIM_DEVICE_UUID, read at each cuDeviceGetUuid), as the tests do.
 * *gpu_sync: whether it can export opaque-fd semaphores (the GPU path). */
static gchar *
describe_vulkan_device (gboolean sim, gboolean * gpu_sync)
{
  GstVulkanInstance *instance = gst_vulkan_instance_new ();
  gchar name[VK_MAX_PHYSICAL_DEVICE_NAME_SIZE] = "";
  gchar *uuid = NULL, *why = NULL, *ret;
  gboolean sem_fd = FALSE;
  gint index;

  *gpu_sync = FALSE;
  if (!gst_vulkan_instance_open (instance, NULL)) {
    gst_object_unref (instance);
    return g_strdup ("(no Vulkan instance: the bridge cannot run)");
  }
  index = vk_util_find_cuda_device (instance, sim, name, &uuid, &sem_fd, &why);
  if (index >= 0) {
    GstVulkanPhysicalDevice *pd = gst_vulkan_physical_device_new (instance,
        index);

    *gpu_sync = sem_fd && pd && vk_util_can_export_semaphores (pd);
    gst_clear_object (&pd);
    ret = g_strdup_printf ("\"%s\" (deviceUUID %s%s), %s opaque-fd "
        "semaphores", name, uuid, sim ?
        ", given to the simulated CUDA device 0" : " = CUDA device 0's",
        *gpu_sync ? "exports" : "cannot export");
  } else {
    ret = g_strdup_printf ("(%s)", why);
  }
  gst_object_unref (instance);
  g_free (uuid);
  g_free (why);
  return ret;
}
#endif

static void
print_bridge_stats (const gchar * label, const GstStructure * s)
{
  const gchar *type = s ? gst_structure_get_string (s, "semaphore-type") : NULL;

  g_print ("  %-15s : buffers=%" G_GINT64_FORMAT " copies=%" G_GINT64_FORMAT
      " gpu-copies=%" G_GINT64_FORMAT " signals=%" G_GINT64_FORMAT " waits=%"
      G_GINT64_FORMAT " cpu-syncs=%" G_GINT64_FORMAT " semaphores=%"
      G_GINT64_FORMAT " (%s)\n", label, (gint64) get_stat (s, "buffers"),
      (gint64) get_stat (s, "copies"), (gint64) get_stat (s, "gpu-copies"),
      (gint64) get_stat (s, "signals"), (gint64) get_stat (s, "waits"),
      (gint64) get_stat (s, "cpu-syncs"), (gint64) get_stat (s, "semaphores"),
      type ? type : "?");
}

/* ---- --bridge ---- */

typedef struct
{
  gboolean sim, expect_gpu, gpu_path, fallback_path;
  /* CPU fallback: waits beyond one per frame and element */
  guint64 extra_cpu_waits;
} BridgePath;

static gboolean
bridge_setup (Demo * d, const DemoOptions * o, BridgePath * bp)
{
  static const gchar *const names[] = { "cudaupload", "cudadownload",
    "cudatovulkan", "vulkantocuda"
  };

  g_print ("gst-cudasync demo (--bridge): %d frames of %dx%d NV12, CUDA -> "
      "Vulkan -> CUDA\n", o->frames, o->width, o->height);
  if (!find_elements (names, "It comes from gstreamer1.0-plugins-bad "
          "(nvcodec), which registers it only when a CUDA driver loads; use "
          "tools/run-demo.sh.", "The plugin has it only when built with "
          "gstreamer-vulkan-1.0 (meson option vulkan); point GST_PLUGIN_PATH "
          "at <builddir>/gst/plugin (tools/run-demo.sh does)."))
    return FALSE;

  d->driver = describe_driver ();
  g_print ("  CUDA driver     : %s\n", d->driver);
#ifdef HAVE_CUDA_VULKAN
  d->vkdev = describe_vulkan_device (bp->sim, &bp->expect_gpu);
#else
  d->vkdev = g_strdup ("(built without Vulkan)");
#endif
  g_print ("  Vulkan device   : %s\n", d->vkdev);
  if (!demo_new_context (d))
    return FALSE;
  demo_describe_pipelines (d, o, "cudaupload ! cudatovulkan name=c2v ! "
      "vulkantocuda name=v2c ! cudadownload");
  return TRUE;
}

/* which path every frame took, from the elements' counters: the GPU path
 * (a semaphore signal and a GPU wait per frame in each direction, no CPU
 * wait), or the CPU fallback (no semaphore; each element waited on the CPU
 * for every frame, and perhaps more: where a driver query fails, the
 * elements wait on the CPU instead, which still orders the frame) */
static void
bridge_classify (const Demo * d, gint frames, BridgePath * bp)
{
  guint64 n = frames;
  guint64 c2v_sig = get_stat (d->run.c2v_stats, "signals");
  guint64 c2v_cpu = get_stat (d->run.c2v_stats, "cpu-syncs");
  guint64 v2c_sig = get_stat (d->run.v2c_stats, "signals");
  guint64 v2c_wait = get_stat (d->run.v2c_stats, "waits");
  guint64 v2c_cpu = get_stat (d->run.v2c_stats, "cpu-syncs");

  bp->gpu_path = c2v_sig == n && c2v_cpu == 0 && v2c_sig == n &&
      v2c_wait == n && v2c_cpu == 0;
  bp->fallback_path = c2v_sig == 0 && v2c_sig == 0 && c2v_cpu >= n &&
      c2v_cpu != G_MAXUINT64 && v2c_cpu >= n && v2c_cpu != G_MAXUINT64;
  bp->extra_cpu_waits = bp->fallback_path ? c2v_cpu + v2c_cpu - 2 * n : 0;
}

static void
bridge_print (const Demo * d, const BridgePath * bp)
{
  demo_print_run (d, "through Vulkan");
  print_bridge_stats ("cudatovulkan", d->run.c2v_stats);
  print_bridge_stats ("vulkantocuda", d->run.v2c_stats);
  if (bp->gpu_path)
    g_print ("  path            : GPU: CUDA signalled a semaphore per frame "
        "that Vulkan waited for, and back; no CPU wait in either element\n");
  else if (bp->fallback_path)
    g_print ("  path            : CPU fallback: the Vulkan device cannot "
        "export semaphores (%s), so each element waited on the CPU once per "
        "frame; the frames still went CUDA -> Vulkan image -> CUDA through "
        "exported memory, at most one copy per element\n",
        bp->sim ? "Mesa lavapipe with the simulated CUDA driver" :
        "unexpected on this GPU");
  if (bp->fallback_path && bp->extra_cpu_waits)
    g_print ("                    and %" G_GUINT64_FORMAT " CPU wait%s "
        "more than one per frame: an element also waits on the CPU where it "
        "cannot tell otherwise that GPU work is done (after a failed "
        "driver query, for example)\n", bp->extra_cpu_waits,
        bp->extra_cpu_waits > 1 ? "s" : "");
  else if (!bp->gpu_path && !bp->fallback_path)
    g_print ("  path            : mixed or incomplete (see the counters)\n");
}

/* the checks after the frame checks; TRUE when they pass */
static gboolean
bridge_check (const Demo * d, gint frames, const BridgePath * bp)
{
  gboolean pass = TRUE;

  guint64 v2c_copies = get_stat (d->run.v2c_stats, "copies");
  guint64 c2v_copies = get_stat (d->run.c2v_stats, "copies");

  /* cudatovulkan copies each frame once, unless cudaupload wrote it in
   * place (GStreamer 1.24+); vulkantocuda copies it once in Vulkan, and
   * once more in CUDA unless its output wraps the staging buffer (1.24+) */
  if (c2v_copies + get_stat (d->run.c2v_stats, "in-place") !=
      (guint64) frames ||
      get_stat (d->run.c2v_stats, "gpu-copies") != c2v_copies ||
      (v2c_copies != 0 && v2c_copies != (guint64) frames) ||
      get_stat (d->run.v2c_stats, "gpu-copies") != frames + v2c_copies) {
    g_print ("FAIL: expected at most one device-to-device copy per frame "
        "in cudatovulkan (none written in place), one or two in "
        "vulkantocuda\n");
    pass = FALSE;
  }
  /* on a real GPU every frame takes the GPU path, with no CPU wait */
  if (!bp->sim && bp->fallback_path) {
    g_print ("FAIL: the CPU fallback ran on a real GPU (%s)\n", d->vkdev);
    pass = FALSE;
  } else if (!bp->gpu_path && !bp->fallback_path) {
    g_print ("FAIL: neither every frame on the GPU path nor every frame on "
        "the CPU fallback\n");
    pass = FALSE;
  } else if (bp->gpu_path != bp->expect_gpu) {
    g_print ("  note: the Vulkan device %s semaphores, but the %s ran\n",
        bp->expect_gpu ? "exports" : "does not export", bp->gpu_path ?
        "GPU path" : "CPU fallback");
  }
  return pass;
}

int
run_bridge (const DemoOptions * o)
{
  Demo d = { 0, };
  BridgePath bp = { 0, };
  gboolean pass;
  int status = 1;

  bp.sim = is_simulator ();
  if (bridge_setup (&d, o, &bp) && demo_run_reference (&d)) {
    pass = demo_run_cuda (&d, NULL, "bridge");
    bridge_classify (&d, o->frames, &bp);
    bridge_print (&d, &bp);
    pass = demo_check_frames (&d, o->frames) && pass;
    pass = bridge_check (&d, o->frames, &bp) && pass;
    g_print ("%s (bridge, %s)\n", pass ? "PASS" : "FAIL", bp.gpu_path ?
        "GPU path" : bp.fallback_path ? "CPU fallback" : "?");
    status = pass ? 0 : 1;
  }
  demo_clear (&d);
  return status;
}

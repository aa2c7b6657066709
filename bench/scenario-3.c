/* gst-cudasync
 * Copyright (C) 2026 gst-cudasync developers
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Scenario 3, CUDA -> Vulkan: GPU-produced CUDA frames consumed by
 * `queue ! vulkandownload ! fakesink`, through cudatovulkan (a), through
 * upstream's cudadownload ! vulkanupload (b), and through cudatovulkan with
 * a CPU wait for its copy (c), and a with binary semaphores (a_binary). Modes d and d_stall (no GStreamer) are
 * scenario-3-raw.c. Scenario 6 runs mode a's pipeline N times at once.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "frames.h"

gboolean
s3_build_chain (Run * run, GstElement ** chain, guint * n, gchar ** error)
{
  if (run->mode == MODE_CV_B) {
    chain[(*n)++] = make (run->pipeline, "cudadownload", NULL, error);
    chain[(*n)++] = make (run->pipeline, "vulkanupload", NULL, error);
    chain[(*n)++] = make_capsfilter (run->pipeline,
        GST_CAPS_FEATURE_MEMORY_VULKAN_IMAGE, error);
    return TRUE;
  }
  run->el.bridge = chain[(*n)++] = make (run->pipeline, "cudatovulkan", "c2v",
      error);
  if (run->el.bridge && run->mode == MODE_CV_AB)
    g_object_set (run->el.bridge, "timeline", FALSE, NULL);
  if (run->el.bridge && run->mode == MODE_CV_C)
    add_buffer_probe (run->el.bridge, "src", s3_cpu_sync_probe, run);
  return TRUE;
}

gboolean
s3_check_stats (Run * run, GstStructure ** ss, GString * note,
    const gchar ** path)
{
  gboolean ok;

  g_object_get (run->el.bridge, "stats", ss, NULL);
  ok = expect_bridge_stats (*ss, "cudatovulkan", run->total,
      run->mode != MODE_CV_C ? run->total : 0, note, path);
  /* a_in_place: every frame but the first (from the bench's pool) written
   * in place where the element proposes its frames (1.24+, one plane) */
  if (run->mode == MODE_CV_AI)
    ok &= expect_stat (*ss, "in-place", GST_CHECK_VERSION (1, 24, 0) &&
        GST_VIDEO_INFO_N_PLANES (&run->spec.info) == 1 ? run->total - 1 : 0,
        note, "cudatovulkan");
  return ok;
}

/* gst-cudasync
 * Copyright (C) 2026 gst-cudasync developers
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Scenario 5, pipelined stages CUDA -> Vulkan -> CUDA:
 * `cudatovulkan ! queue ! vulkancolorconvert ! capsfilter(BGRA) ! queue !
 * vulkantocuda ! queue ! fakesink`, with GPU handoffs (a) or CPU waits
 * after each stage (c).
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "frames.h"

#ifdef HAVE_CUDA_VULKAN
#include "vkutil.h"

/* scenario 5 mode c: the CPU wait for the Vulkan stage, before
 * vulkantocuda: the queue idle. The queue object is the element's (asked
 * with a context query): GStreamer 1.22 gives every
 * gst_vulkan_device_get_queue() caller its own object and submit lock, and
 * vkQueueWaitIdle must not run while an element submits to the queue. */
static GstPadProbeReturn
s5_vk_idle_probe (GstPad * pad, GstPadProbeInfo * info, gpointer user_data)
{
  Run *run = user_data;
  GstElement *v2c = gst_pad_get_parent_element (pad);
  GstPad *src = v2c ? gst_element_get_static_pad (v2c, "src") : NULL;
  GstVulkanQueue *queue = src ? vk_util_pad_queue (src) : NULL;
  VkResult res = VK_SUCCESS;

  gst_clear_object (&src);
  gst_clear_object (&v2c);
  if (!queue) {
    run_error (run, g_strdup ("vulkantocuda answered no Vulkan queue"));
    return GST_PAD_PROBE_OK;
  }
  gst_vulkan_queue_submit_lock (queue);
  res = vkQueueWaitIdle (queue->queue);
  gst_vulkan_queue_submit_unlock (queue);
  gst_object_unref (queue);
  if (res != VK_SUCCESS)
    run_error (run, g_strdup_printf ("vkQueueWaitIdle: %d", res));
  return GST_PAD_PROBE_OK;
}
#endif

static gboolean
s5_build_chain (Run * run, GstElement ** chain, guint * n, gchar ** error)
{
  GstElement *cf;

  /* the Vulkan stage on its own thread between two queues; the last queue
   * is the common tail's */
  run->el.bridge = chain[(*n)++] = make (run->pipeline, "cudatovulkan", "c2v",
      error);
  chain[(*n)++] = make (run->pipeline, "queue", NULL, error);
  /* GStreamer 1.22's vulkanimageidentity takes BGRA only: the Vulkan stage
   * is vulkancolorconvert RGBA -> BGRA (a render pass per frame) */
  chain[(*n)++] = make (run->pipeline, "vulkancolorconvert", NULL, error);
  cf = chain[(*n)++] = make (run->pipeline, "capsfilter", NULL, error);
  if (cf) {
    GstCaps *c2 = gst_caps_new_simple ("video/x-raw", "format",
        G_TYPE_STRING, "BGRA", NULL);

    gst_caps_set_features (c2, 0, gst_caps_features_new
        (GST_CAPS_FEATURE_MEMORY_VULKAN_IMAGE, NULL));
    g_object_set (cf, "caps", c2, NULL);
    gst_caps_unref (c2);
  }
  chain[(*n)++] = make (run->pipeline, "queue", NULL, error);
  run->el.probe_el = chain[(*n)++] = make (run->pipeline, "vulkantocuda",
      "v2c", error);
  if (run->mode == MODE_S5_C && run->el.bridge && run->el.probe_el) {
    add_buffer_probe (run->el.bridge, "src", cpu_sync_probe, run);
#ifdef HAVE_CUDA_VULKAN
    add_buffer_probe (run->el.probe_el, "sink", s5_vk_idle_probe, run);
#endif
  }
  return TRUE;
}

static gboolean
s5_check_stats (Run * run, GstStructure ** ss, GstStructure ** ws,
    GString * note, const gchar ** path)
{
  const gchar *path2 = NULL;
  gboolean sok;

  g_object_get (run->el.bridge, "stats", ss, NULL);
  sok = expect_bridge_stats (*ss, "cudatovulkan", run->total,
      run->mode == MODE_S5_A ? run->total : 0, note, path);
  g_object_get (run->el.probe_el, "stats", ws, NULL);
  sok &= expect_bridge_stats (*ws, "vulkantocuda", run->total, G_MAXUINT,
      note, &path2);
  if (g_strcmp0 (*path, path2) != 0)
    *path = "mixed (cudatovulkan and vulkantocuda took different paths)";
  return sok;
}

/* the modes */

const BenchMode bench_mode_s5_a = {
  .key = "a",
  .desc = "GPU handoffs: producer acquire point -> cudatovulkan ! queue ! "
      "vulkancolorconvert ! capsfilter(BGRA) ! queue ! vulkantocuda ! queue ! "
      "fakesink; the CUDA consumer records an event on the legacy default "
      "stream",
  .flags = MODE_F_SINK_EVENT | MODE_F_WALL,
  .stats = {"cudatovulkan", "vulkantocuda"},
  .build_chain = s5_build_chain,
  .check_stats = s5_check_stats,
};

const BenchMode bench_mode_s5_c = {
  .key = "c",
  .desc =
      "CPU-synchronised handoffs (emulated): producer cuStreamSynchronize, no "
      "acquire point; cuCtxSynchronize on cudatovulkan's src pad (CPU wait "
      "for its copy); vkQueueWaitIdle of the elements' queue on "
      "vulkantocuda's sink pad (CPU wait for the Vulkan stage); the elements "
      "still run their GPU path, whose waits find their semaphores already "
      "signalled",
  .flags = MODE_F_PRODUCER_SYNC | MODE_F_SINK_EVENT | MODE_F_WALL,
  .stats = {"cudatovulkan", "vulkantocuda"},
  .build_chain = s5_build_chain,
  .check_stats = s5_check_stats,
};

/* the section */

static const gint s5_modes[] = { MODE_S5_A, MODE_S5_C };

/* 1 and 5 ms; --quick: 0 (memset frames can run it) and 1 */
static const guint s5_work[] = { 1000, 5000 };
static const guint s5_quick_work[] = { 0, 1000 };

static const BenchSection s5_section = {
  .key = "scenario5_pipelined_stages",
  .title = "Scenario 5: pipelined stages: GPU-produced CUDA frames -> "
      "cudatovulkan ! queue ! vulkancolorconvert ! capsfilter(BGRA) ! queue "
      "! vulkantocuda ! queue ! fakesink (CUDA -> Vulkan -> CUDA), "
      "1920x1080 RGBA",
  .latency = "wall clock, from before the producer's kernel launch to the "
      "recycler seeing the end event the CUDA consumer recorded on the "
      "legacy default stream (after vulkantocuda's copy) complete",
  .modes = s5_modes,
  .n_modes = G_N_ELEMENTS (s5_modes),
  .ref_mode = MODE_S5_C,
  .n_sizes = 1,
  .n_formats = 1,
  .work_us = s5_work,
  .n_work = G_N_ELEMENTS (s5_work),
  .quick_work_us = s5_quick_work,
  .n_quick_work = G_N_ELEMENTS (s5_quick_work),
  .vulkan = TRUE,
  .vulkan_element = "vulkancolorconvert",
  .few_frames = TRUE,
};

static void
s5_init (Bench * b)
{
  section_init (&b->r.s5, &s5_section);
}

static gboolean
s5_run (Bench * b)
{
  return run_gpu_section (b, &b->r.s5);
}

static void
s5_json (Bench * b, JsonBuilder * jb)
{
  json_section (b, jb, &b->r.s5);
}

const BenchScenario bench_scenario_5 = {
  "5", 1 << 5, BENCH_RESULT_STATE (s5), s5_init, s5_run, s5_json
};

/* gst-cudasync
 * Copyright (C) 2026 gst-cudasync developers
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Scenario 4, Vulkan -> CUDA: one system-memory frame, pushed again for
 * every frame, uploaded by vulkanupload and handed to a CUDA consumer
 * through vulkantocuda (a) or upstream's vulkandownload ! cudaupload (b).
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "frames.h"

static gboolean
s4_build_chain (Run * run, GstElement ** chain, guint * n, gchar ** error)
{
  chain[(*n)++] = make (run->pipeline, "vulkanupload", NULL, error);
  chain[(*n)++] = make_capsfilter (run->pipeline,
      GST_CAPS_FEATURE_MEMORY_VULKAN_IMAGE, error);
  if (run->mode == MODE_VC_A) {
    run->el.bridge = chain[(*n)++] = make (run->pipeline, "vulkantocuda",
        "v2c", error);
    run->el.probe_el = run->el.bridge;
    return TRUE;
  }
  chain[(*n)++] = make (run->pipeline, "vulkandownload", NULL, error);
  chain[(*n)++] = make (run->pipeline, "cudaupload", NULL, error);
  run->el.probe_el = chain[(*n)++] = make_capsfilter (run->pipeline,
      GST_CAPS_FEATURE_MEMORY_CUDA_MEMORY, error);
  return TRUE;
}

static gboolean
s4_check_stats (Run * run, GstStructure ** ss, GstStructure ** ws,
    GString * note, const gchar ** path)
{
  g_object_get (run->el.bridge, "stats", ss, NULL);
  return expect_bridge_stats (*ss, "vulkantocuda", run->total, G_MAXUINT,
      note, path);
}

/* scenario 4's source: one system-memory frame, pushed again and again.
 * One GstMemory per plane: GStreamer 1.22's vulkanupload peeks memory i
 * for plane i (a single-memory NV12 buffer makes it warn) */
/* the source: one system-memory frame, pushed again and again */
static GstBuffer *
new_sysframe (S2Config * c)
{
  GstVideoInfo info;
  GstBuffer *buf = gst_buffer_new ();
  guint p, n;

  gst_video_info_set_format (&info, gst_video_format_from_string (c->format),
      c->width, c->height);
  n = GST_VIDEO_INFO_N_PLANES (&info);
  for (p = 0; p < n; p++) {
    gsize end = p + 1 < n ? info.offset[p + 1] : info.size;
    GstMemory *mem = gst_allocator_alloc (NULL, end - info.offset[p], NULL);
    GstMapInfo map;
    gsize i;

    gst_memory_map (mem, &map, GST_MAP_WRITE);
    for (i = 0; i < map.size; i++)
      map.data[i] = (guint8) (i * 131 + (i >> 12) + p);
    gst_memory_unmap (mem, &map);
    gst_buffer_append_memory (buf, mem);
  }
  gst_buffer_add_video_meta_full (buf, GST_VIDEO_FRAME_FLAG_NONE,
      GST_VIDEO_INFO_FORMAT (&info), c->width, c->height, n, info.offset,
      info.stride);
  return buf;
}

/* the modes */

const BenchMode bench_mode_vc_a = {
  .key = "a",
  .desc = "this project: system-memory frame -> vulkanupload ! vulkantocuda ! "
      "fakesink; the consumer records an event on the legacy default stream",
  .flags = MODE_F_WALL,
  .stats = {"vulkantocuda", NULL},
  .build_chain = s4_build_chain,
  .check_stats = s4_check_stats,
};

const BenchMode bench_mode_vc_b = {
  .key = "b",
  .desc =
      "upstream today: system-memory frame -> vulkanupload ! vulkandownload ! "
      "cudaupload ! fakesink; the consumer records an event on the legacy "
      "default stream",
  .flags = MODE_F_WALL,
  .build_chain = s4_build_chain,
};

/* the section */

static const gint s4_modes[] = { MODE_VC_A, MODE_VC_B };
static const guint s4_work[] = { 0 };

static const BenchSection s4_section = {
  .key = "scenario4_vulkan_to_cuda",
  .title = "Scenario 4: Vulkan -> CUDA: Vulkan frames (vulkanupload of one "
      "system-memory frame) handed to a CUDA consumer",
  .latency = "wall clock, from the push of the system-memory frame to the "
      "recycler seeing the end event the consumer recorded on the legacy "
      "default stream complete",
  .modes = s4_modes,
  .n_modes = G_N_ELEMENTS (s4_modes),
  .ref_mode = MODE_VC_B,
  .n_sizes = 2,
  .n_formats = 2,
  .work_us = s4_work,
  .n_work = G_N_ELEMENTS (s4_work),
  .vulkan = TRUE,
  .few_frames = TRUE,
  .sysframe = new_sysframe,
};

static void
s4_init (Bench * b)
{
  section_init (&b->r.s4, &s4_section);
}

static gboolean
s4_run (Bench * b)
{
  return run_gpu_section (b, &b->r.s4);
}

static void
s4_json (Bench * b, JsonBuilder * jb)
{
  json_section (b, jb, &b->r.s4);
}

const BenchScenario bench_scenario_4 = {
  "4", 1 << 4, BENCH_RESULT_STATE (s4), s4_init, s4_run, s4_json
};

/* gst-cudasync
 * Copyright (C) 2026 gst-cudasync developers
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The CUDA <-> Vulkan scenario, parts 3 to 6, each selected by its
 * number: CUDA -> Vulkan, Vulkan -> CUDA, the stages, and many pipelines
 * at once (bench/README.md).
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "frames.h"

#ifdef HAVE_CUDA_VULKAN
#include "vkutil.h"
#endif

/* --- part 3: CUDA -> Vulkan --- */

static gboolean
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
  return TRUE;
}

static gboolean
s3_check_stats (Run * run, GstStructure ** ss, GstStructure ** ws,
    GString * note, const gchar ** path)
{
  gboolean ok;

  g_object_get (run->el.bridge, "stats", ss, NULL);
  /* waits: the producer's acquire points */
  ok = expect_bridge_stats (*ss, "cudatovulkan", run->total,
      run->mode != MODE_CV_AS ? run->total : 0, note, path);
  /* a_in_place: every frame but the first (from the bench's pool) written
   * in place where the element proposes its frames (1.24+, one plane) */
  if (run->mode == MODE_CV_AI)
    ok &= expect_stat (*ss, "in-place", GST_CHECK_VERSION (1, 24, 0) &&
        GST_VIDEO_INFO_N_PLANES (&run->spec.info) == 1 ? run->total - 1 : 0,
        note, "cudatovulkan");
  return ok;
}

/* the modes; the raw reference's (d, d_stall, d_split) are in
 * scenario-3-raw.c */

const BenchMode bench_mode_cv_a = {
  .key = "a",
  .desc = "this project: acquire point -> cudatovulkan ! queue ! "
      "vulkandownload ! fakesink",
  .flags = MODE_F_PENDING | MODE_F_WALL,
  .stats = {"cudatovulkan", NULL},
  .build_chain = s3_build_chain,
  .check_stats = s3_check_stats,
};

const BenchMode bench_mode_cv_b = {
  .key = "b",
  .desc = "upstream: cuStreamSynchronize -> cudadownload ! vulkanupload ! "
      "queue ! vulkandownload ! fakesink",
  .flags = MODE_F_PRODUCER_SYNC | MODE_F_PENDING | MODE_F_WALL,
  .build_chain = s3_build_chain,
};

const BenchMode bench_mode_cv_ab = {
  .key = "a_binary",
  .desc = "a with cudatovulkan timeline=false: a binary semaphore per pooled "
      "frame (as a on GStreamer 1.22)",
  .flags = MODE_F_PENDING | MODE_F_WALL,
  .stats = {"cudatovulkan", NULL},
  .build_chain = s3_build_chain,
  .check_stats = s3_check_stats,
};

const BenchMode bench_mode_cv_ai = {
  .key = "a_in_place",
  .desc = "as a, writing into cudatovulkan's proposed pool: no copy on 1.24+ "
      "with one-plane formats, else as a",
  .flags = MODE_F_PENDING | MODE_F_WALL | MODE_F_IN_PLACE,
  .stats = {"cudatovulkan", NULL},
  .build_chain = s3_build_chain,
  .check_stats = s3_check_stats,
};

const BenchMode bench_mode_cv_as = {
  .key = "a_stream",
  .desc = "as a, handed over as upstream 1.24+ producers do: the memory's "
      "GstCudaStream, NEED_SYNC, no acquire point",
  .flags = MODE_F_PENDING | MODE_F_WALL | MODE_F_MEMORY_STREAM,
  .stats = {"cudatovulkan", NULL},
  .build_chain = s3_build_chain,
  .check_stats = s3_check_stats,
};

/* part 3's section */

static const gint s3_modes[] = { MODE_CV_A, MODE_CV_AB, MODE_CV_AI,
#if GST_CHECK_VERSION(1, 24, 0)
  MODE_CV_AS,
#endif
  MODE_CV_B, MODE_CV_D, MODE_CV_D2, MODE_CV_D3
};

/* the bridge against its binary-semaphore form, in place, and the raw-API
 * limit */
static const gint s3_extra_ratios[][2] = {
  {MODE_CV_A, MODE_CV_AB}, {MODE_CV_AI, MODE_CV_A}, {MODE_CV_AI, MODE_CV_D},
  {MODE_CV_A, MODE_CV_D}, {MODE_CV_A, MODE_CV_D2}, {MODE_CV_A, MODE_CV_D3},
#if GST_CHECK_VERSION(1, 24, 0)
  {MODE_CV_AS, MODE_CV_D},
#endif
};

static const guint s3_work[] = { 0, 5000 };

/* a against the raw-API limit (the target: a >= 0.9 d) */
static void
json_s3_raw_ratios (JsonBuilder * jb, S2Config * c)
{
  ModeResult *a = &c->m[MODE_CV_A], *d = &c->m[MODE_CV_D];

  json_ratios (jb, "ratios_a_over_d_median", a, d, FALSE);
  jb_num (jb, "target_fps", 0.9);
  jb_str (jb, "d_path", d->path);
  jb_obj_end (jb);
  d = &c->m[MODE_CV_D2];
  jb_obj (jb, "ratios_a_over_d_stall_median");
  jb_num (jb, "fps", ratio (series_median (a->fps), series_median (d->fps)));
  jb_num (jb, "process_cpu_per_frame", ratio (series_median
          (a->proc_cpu_us), series_median (d->proc_cpu_us)));
  jb_obj_end (jb);
}

static const BenchSection s3_section = {
  .key = "scenario3_cuda_to_vulkan",
  .title = "Scenario 3: CUDA -> Vulkan: GPU-produced CUDA frames consumed by "
      "vulkandownload",
  .latency = "wall clock, from before the producer's kernel to the frame "
      "leaving vulkandownload",
  .modes = s3_modes,
  .n_modes = G_N_ELEMENTS (s3_modes),
  .ref_mode = MODE_CV_B,
  .extra_ratios = s3_extra_ratios,
  .n_extra_ratios = G_N_ELEMENTS (s3_extra_ratios),
  .n_sizes = 2,
  .n_formats = 2,
  .work_us = s3_work,
  .n_work = G_N_ELEMENTS (s3_work),
  .vulkan = TRUE,
  .few_frames = TRUE,
  .json_config = json_s3_raw_ratios,
};

/* --- part 4: Vulkan -> CUDA --- */

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

/* part 4's source: one system-memory frame, pushed again and again. One
 * GstMemory per plane: GStreamer 1.22's vulkanupload peeks memory i for
 * plane i (a single-memory NV12 buffer makes it warn) */
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

/* part 4's modes */

const BenchMode bench_mode_vc_a = {
  .key = "a",
  .desc = "this project: system-memory frame -> vulkanupload ! vulkantocuda "
      "! fakesink, consumer event on the legacy default stream",
  .flags = MODE_F_WALL,
  .stats = {"vulkantocuda", NULL},
  .build_chain = s4_build_chain,
  .check_stats = s4_check_stats,
};

const BenchMode bench_mode_vc_b = {
  .key = "b",
  .desc = "upstream: system-memory frame -> vulkanupload ! vulkandownload ! "
      "cudaupload ! fakesink, consumer event as a",
  .flags = MODE_F_WALL,
  .build_chain = s4_build_chain,
};

/* part 4's section */

static const gint s4_modes[] = { MODE_VC_A, MODE_VC_B };
static const guint s4_work[] = { 0 };

static const BenchSection s4_section = {
  .key = "scenario4_vulkan_to_cuda",
  .title = "Scenario 4: Vulkan -> CUDA: vulkanupload of one system-memory "
      "frame, handed to a CUDA consumer",
  .latency = "wall clock, from the push to the recycler seeing the "
      "consumer's end event complete",
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

/* --- part 5: pipelined stages CUDA -> Vulkan -> CUDA --- */

#ifdef HAVE_CUDA_VULKAN
/* part 5 mode c: the CPU wait for the Vulkan stage, before
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

/* part 5's modes */

const BenchMode bench_mode_s5_a = {
  .key = "a",
  .desc = "GPU handoffs: acquire point, the GPU paths of cudatovulkan and "
      "vulkantocuda",
  .flags = MODE_F_SINK_EVENT | MODE_F_WALL,
  .stats = {"cudatovulkan", "vulkantocuda"},
  .build_chain = s5_build_chain,
  .check_stats = s5_check_stats,
};

const BenchMode bench_mode_s5_c = {
  .key = "c",
  .desc = "CPU-synchronised handoffs (emulated): cuStreamSynchronize, "
      "cuCtxSynchronize after cudatovulkan, vkQueueWaitIdle before "
      "vulkantocuda",
  .flags = MODE_F_PRODUCER_SYNC | MODE_F_SINK_EVENT | MODE_F_WALL,
  .stats = {"cudatovulkan", "vulkantocuda"},
  .build_chain = s5_build_chain,
  .check_stats = s5_check_stats,
};

/* part 5's section */

static const gint s5_modes[] = { MODE_S5_A, MODE_S5_C };

/* 1 and 5 ms; --quick: 0 (memset frames can run it) and 1 */
static const guint s5_work[] = { 1000, 5000 };
static const guint s5_quick_work[] = { 0, 1000 };

static const BenchSection s5_section = {
  .key = "scenario5_pipelined_stages",
  .title = "Scenario 5: CUDA -> Vulkan -> CUDA: cudatovulkan ! queue ! "
      "vulkancolorconvert ! capsfilter(BGRA) ! queue ! vulkantocuda ! queue "
      "! fakesink, 1920x1080 RGBA",
  .latency = "wall clock, from before the producer's kernel to the recycler "
      "seeing the consumer's end event (after vulkantocuda) complete",
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

/* --- part 6: scaling --- */

/* part 6's modes: part 3's a and raw reference, and a with the pool's
 * stream */

const BenchMode bench_mode_s6_am = {
  .key = "a_memory_stream",
  .desc = "as a, with the producer writing on the GstCudaStream its pool "
      "sets on the memory (1.24+): one CUDA stream per pipeline",
  .flags = MODE_F_PENDING | MODE_F_WALL | MODE_F_POOL_STREAM,
  .stats = {"cudatovulkan", NULL},
  .build_chain = s3_build_chain,
  .check_stats = s3_check_stats,
};

const BenchMode bench_mode_s6_ao = {
  .key = "a_own_device",
  .desc = "as a, with a Vulkan device (and VkQueue) per pipeline, as "
      "separate pipelines have unless the application shares one",
  .flags = MODE_F_PENDING | MODE_F_WALL | MODE_F_OWN_DEVICE,
  .stats = {"cudatovulkan", NULL},
  .build_chain = s3_build_chain,
  .check_stats = s3_check_stats,
};

static const gint s6_modes[] = { MODE_CV_A,
#if GST_CHECK_VERSION(1, 24, 0)
  MODE_S6_AM,
#endif
  MODE_S6_AO, MODE_CV_D
};

/* after the others, full runs only: many instances of these can lose the
 * Vulkan device, which fails every later configuration */
static const gint s6_late_modes[] = { MODE_CV_D2, MODE_CV_D3 };

static const gchar *const s6_elements[] = { "cudatovulkan", "vulkandownload",
  "queue", NULL
};

static const BenchScaling s6_scaling = {
  .key = "scenario6_scaling",
  .name = "Scenario 6",
  .title = "Scenario 6: scaling: 1, 2, 4, 8 pipelines of scenario 3's modes "
      "at once, 1920x1080 RGBA",
  .what = "N pipelines at once, producers started together, each with its "
      "own producer thread, pool, stream and recycler, on one Vulkan device: "
      "a (scenario 3's a); a_memory_stream (1.24+): a with the producer on "
      "its pool memory's GstCudaStream; a_own_device: a with a Vulkan device "
      "per pipeline; d, d_stall, d_split: N instances of scenario 3's raw "
      "modes",
  .elements = s6_elements,
  .modes = s6_modes,
  .n_modes = G_N_ELEMENTS (s6_modes),
  .late_modes = s6_late_modes,
  .n_late_modes = G_N_ELEMENTS (s6_late_modes),
  .raw_mode = MODE_CV_D,
};

/* --- the parts, as main.c runs them --- */

const BenchScenario bench_scenario_3 = SECTION_SCENARIO (3, s3, &s3_section);
const BenchScenario bench_scenario_4 = SECTION_SCENARIO (4, s4, &s4_section);
const BenchScenario bench_scenario_5 = SECTION_SCENARIO (5, s5, &s5_section);
const BenchScenario bench_scenario_6 = SCALING_SCENARIO (6, s6, &s6_scaling);

/* gst-cudasync
 * Copyright (C) 2026 gst-cudasync developers
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Scenario 3, CUDA -> Vulkan: GPU-produced CUDA frames consumed by
 * `queue ! vulkandownload ! fakesink`, through cudatovulkan (a), through
 * upstream's cudadownload ! vulkanupload (b), and through cudatovulkan with
 * a CPU wait for its copy (c), a with binary semaphores (a_binary) and a
 * writing in place (a_in_place). The raw reference, modes d, d_stall and
 * d_split (no GStreamer), is scenario-3-raw.c. Scenario 6 runs mode a's
 * pipeline N times at once.
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
    add_buffer_probe (run->el.bridge, "src", cpu_sync_probe, run);
  return TRUE;
}

gboolean
s3_check_stats (Run * run, GstStructure ** ss, GstStructure ** ws,
    GString * note, const gchar ** path)
{
  gboolean ok;

  g_object_get (run->el.bridge, "stats", ss, NULL);
  /* waits: the producer's acquire points */
  ok = expect_bridge_stats (*ss, "cudatovulkan", run->total,
      run->mode != MODE_CV_C && run->mode != MODE_CV_AS ? run->total : 0,
      note, path);
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
  .desc = "this project: producer acquire point -> cudatovulkan ! queue ! "
      "vulkandownload ! fakesink (no CPU wait before vulkandownload)",
  .flags = MODE_F_PENDING | MODE_F_WALL,
  .stats = {"cudatovulkan", NULL},
  .build_chain = s3_build_chain,
  .check_stats = s3_check_stats,
};

const BenchMode bench_mode_cv_b = {
  .key = "b",
  .desc = "upstream today: producer cuStreamSynchronize -> cudadownload ! "
      "vulkanupload ! queue ! vulkandownload ! fakesink",
  .flags = MODE_F_PRODUCER_SYNC | MODE_F_PENDING | MODE_F_WALL,
  .build_chain = s3_build_chain,
};

const BenchMode bench_mode_cv_c = {
  .key = "c",
  .desc = "bridge CPU-synchronised (emulated; the element has no property for "
      "it): producer cuStreamSynchronize, no acquire point -> cudatovulkan, "
      "whose src pad probe calls cuCtxSynchronize (the CPU wait for the "
      "element's copy that its fallback does before the Vulkan submission) ! "
      "queue ! vulkandownload ! fakesink; cudatovulkan still signals its "
      "semaphore, which the Vulkan side then finds already signalled",
  .flags = MODE_F_PRODUCER_SYNC | MODE_F_PENDING | MODE_F_WALL,
  .stats = {"cudatovulkan", NULL},
  .build_chain = s3_build_chain,
  .check_stats = s3_check_stats,
};

const BenchMode bench_mode_cv_ab = {
  .key = "a_binary",
  .desc = "a with cudatovulkan timeline=false: one binary semaphore per pooled "
      "frame instead of the element's one timeline semaphore (the same as a "
      "on GStreamer 1.22, which has no timeline semaphores)",
  .flags = MODE_F_PENDING | MODE_F_WALL,
  .stats = {"cudatovulkan", NULL},
  .build_chain = s3_build_chain,
  .check_stats = s3_check_stats,
};

const BenchMode bench_mode_cv_ai = {
  .key = "a_in_place",
  .desc =
      "as a, but from its second frame on the producer writes into the pool "
      "that cudatovulkan proposes in the ALLOCATION query: on GStreamer 1.24+ "
      "and one-plane formats its buffers are the element's output frames "
      "(Vulkan memory imported into CUDA), so the element copies nothing "
      "(stats in-place); otherwise an ordinary CUDA pool and one copy a "
      "frame, as a",
  .flags = MODE_F_PENDING | MODE_F_WALL | MODE_F_IN_PLACE,
  .stats = {"cudatovulkan", NULL},
  .build_chain = s3_build_chain,
  .check_stats = s3_check_stats,
};

const BenchMode bench_mode_cv_as = {
  .key = "a_stream",
  .desc =
      "as a, but as upstream CUDA producers of GStreamer 1.24+ hand over "
      "frames (nvh264dec, cudaupload): the producer writes on the "
      "GstCudaStream that its pool sets on the memory and marks the memory "
      "GST_CUDA_MEMORY_TRANSFER_NEED_SYNC, with no acquire point; "
      "cudatovulkan copies on that stream. Like the raw reference d, one "
      "CUDA stream and one semaphore between CUDA and Vulkan per frame",
  .flags = MODE_F_PENDING | MODE_F_WALL | MODE_F_MEMORY_STREAM,
  .stats = {"cudatovulkan", NULL},
  .build_chain = s3_build_chain,
  .check_stats = s3_check_stats,
};

/* the section */

static const gint s3_modes[] = { MODE_CV_A, MODE_CV_AB, MODE_CV_AI,
#if GST_CHECK_VERSION(1, 24, 0)
  MODE_CV_AS,
#endif
  MODE_CV_B, MODE_CV_C, MODE_CV_D, MODE_CV_D2, MODE_CV_D3
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
  .latency = "wall clock, from before the producer's kernel launch to the "
      "frame leaving vulkandownload (Vulkan consumer done, frame in system "
      "memory)",
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

static void
s3_init (Bench * b)
{
  section_init (&b->r.s3, &s3_section);
}

static gboolean
s3_run (Bench * b)
{
  return run_gpu_section (b, &b->r.s3);
}

static void
s3_json (Bench * b, JsonBuilder * jb)
{
  json_section (b, jb, &b->r.s3);
}

const BenchScenario bench_scenario_3 = {
  "3", 1 << 3, BENCH_RESULT_STATE (s3), s3_init, s3_run, s3_json
};

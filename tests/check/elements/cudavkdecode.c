/* gst-cudasync: the bridge elements behind H.264 decoders
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Helpers and what the simulator runs in place of a GPU: bridgecommon.h.
 *
 * Tests:
 * test_nvh264dec: nvh264dec's frames through the bridge, semaphores, a tee,
 *     in place (RGBA, and NV12 as multi-planar images), and copied when
 *     the decoder does not get the proposed pool: cudadownload's bytes
 * test_sw_h264dec: the same checks with openh264dec ! cudaupload (runs on
 *     the simulator)
 * test_vulkanh264dec: vulkanh264dec ! vulkantocuda is nvh264dec's bytes; the
 *     Vulkan device is freed after
 * test_decode_colorconvert_1080p: a 1080p clip through the bridge into
 *     vulkancolorconvert, whose output nothing reads: every frame, no
 *     error (nvh264dec, else openh264dec ! cudaupload)
 * test_decode_colorconvert_four: the same in four branches of one pipeline
 */
#include "bridgecommon.h"
#include "vkutil.h"
#include <string.h>

/* bc_pipeline_hook for check_decode_semaphores(): the semaphore that the
 * pipeline's cudasemwait (named "wait") offers upstream */
static GstCudaSemaphore *semaphore_for_wait;

static void
set_wait_semaphore (GstElement * pipeline)
{
  GstElement *wait = gst_bin_get_by_name (GST_BIN (pipeline), "wait");
  GstBus *bus = gst_element_get_bus (pipeline);

  fail_unless (wait != NULL);
  g_object_set (wait, "semaphore", semaphore_for_wait, NULL);
  gst_object_unref (wait);
  /* every CUDA element on the semaphore's context */
  gst_bus_set_sync_handler (bus, cs_share_context, NULL, NULL);
  gst_object_unref (bus);
}

/* ---- decoded H.264 ---- */

#define CLIP_FRAMES 30
#define CLIP_W 640
#define CLIP_H 360

/* A byte-stream H.264 clip of CLIP_FRAMES frames in a new temporary file */
static gchar *
make_clip (const gchar * profile, gboolean bframes)
{
  return cs_make_h264_clip (CLIP_W, CLIP_H, 30, CLIP_FRAMES, profile, bframes);
}

/* Decoded frames through cudasemsignal ! cudasemwait (a timeline semaphore
 * that cudasemwait offers): the frames cudadownload gives without them, a
 * GPU signal and wait each, no CPU wait. */
static void
check_decode_semaphores (const gchar * src, GPtrArray * want)
{
  gchar *desc = g_strdup_printf ("%s ! cudasemsignal name=sig ! cudasemwait "
      "name=wait ! cudadownload ! video/x-raw ! appsink name=sink sync=false",
      src);
  GstCudaSemaphore *sem;
  GstElement *pipeline;
  GPtrArray *got;
  TestSem *ts;

  sem = cs_new_semaphore (NULL, TRUE, &ts);
  semaphore_for_wait = sem;
  bc_pipeline_hook = set_wait_semaphore;
  got = bc_run_frames (&pipeline, desc);
  bc_pipeline_hook = NULL;
  semaphore_for_wait = NULL;
  fail_unless_equals_uint64 (cs_stat (bc_by_name (pipeline, "sig"), "signals"),
      CLIP_FRAMES);
  fail_unless_equals_uint64 (cs_stat (bc_by_name (pipeline, "sig"),
          "cpu-syncs"), 0);
  fail_unless_equals_uint64 (cs_stat (bc_by_name (pipeline, "wait"), "waits"),
      CLIP_FRAMES);
  fail_unless_equals_uint64 (cs_stat (bc_by_name (pipeline, "wait"),
          "cpu-syncs"), 0);
  bc_stop_pipeline (pipeline);
  bc_assert_same_frames (got, want, "decoder ! cudasemsignal ! cudasemwait");
  g_ptr_array_unref (got);
  gst_object_unref (sem);
  test_sem_free (ts);
  g_free (desc);
}

/* A tee after the decoder: one branch through the bridge (both ways), the
 * other straight to cudadownload; the bridge's frames are the reference's */
static void
check_decode_tee (const gchar * src, GPtrArray * want)
{
  gchar *desc = g_strdup_printf ("%s ! tee name=t t. ! queue ! cudatovulkan "
      "name=c2v ! vulkantocuda name=v2c ! cudadownload ! video/x-raw ! "
      "appsink name=sink sync=false t. ! queue ! cudadownload ! fakesink "
      "sync=false", src);
  GstElement *pipeline;
  GPtrArray *got;

  got = bc_run_frames (&pipeline, desc);
  bc_assert_stats (bc_by_name (pipeline, "c2v"), CLIP_FRAMES);
  bc_assert_stats (bc_by_name (pipeline, "v2c"), CLIP_FRAMES);
  bc_stop_pipeline (pipeline);
  bc_assert_same_frames (got, want,
      "decoder ! tee ! cudatovulkan ! vulkantocuda");
  g_ptr_array_unref (got);
  g_free (desc);
}

/* In the log of every run, failing ones too (call it before asserting):
 * what the decoder wrote in place into @c2v's frames and what it copied */
static void
print_path (GstElement * c2v, const gchar * what)
{
  g_print ("%s: %" G_GUINT64_FORMAT " of %d frames written in place, copies %"
      G_GUINT64_FORMAT "\n", what, cs_stat (c2v, "in-place"), CLIP_FRAMES,
      cs_stat (c2v, "copies"));
}

/* With multi-planar=true the decoder (or cudaupload behind a software
 * one) writes its NV12 frames straight into cudatovulkan's multi-planar
 * images on 1.24+ where the device makes them (the H200, lavapipe from
 * Debian 13; NV12's two planes have one pitch on both): no copy behind
 * the decoder's own. Read back by vulkandownload and, through
 * vulkantocuda, by cudadownload: @want's bytes either way. */
static void
check_decode_multiplanar (const gchar * src, GPtrArray * want)
{
  static const gchar *const readers[] = {
    "vulkandownload ! video/x-raw",
    "vulkantocuda ! cudadownload ! video/x-raw",
  };
  guint i;

  for (i = 0; i < G_N_ELEMENTS (readers); i++) {
    gchar *desc = g_strdup_printf ("%s ! cudatovulkan name=c2v "
        "multi-planar=true ! %s ! appsink name=sink sync=false", src,
        readers[i]);
    GstElement *pipeline, *c2v;
    GstVideoInfo info;
    GPtrArray *got;
    guint64 in_place;

    got = bc_run_frames (&pipeline, desc);
    c2v = bc_by_name (pipeline, "c2v");
    fail_unless (bc_pad_info (c2v, "sink", &info));
    in_place = bc_info_in_place (c2v, &info) ? CLIP_FRAMES : 0;
    print_path (c2v, desc);
    bc_assert_stats_full (c2v, CLIP_FRAMES, CLIP_FRAMES - in_place);
    bc_stop_pipeline (pipeline);
    bc_assert_same_frames (got, want, desc);
    g_ptr_array_unref (got);
    g_free (desc);
  }
}

/* The decoder (or cudaupload behind a software one) does not get the pool
 * cudatovulkan proposes (taken out of the ALLOCATION answer): it decodes
 * into its own buffers, and every frame is copied into the multi-planar
 * frames, none written in place; the bytes are @want's. */
static void
check_decode_pool_refused (const gchar * src, GPtrArray * want)
{
  gchar *desc = g_strdup_printf ("%s ! cudatovulkan name=c2v "
      "multi-planar=true ! vulkandownload ! video/x-raw ! appsink name=sink "
      "sync=false", src);
  gchar *what = g_strdup_printf ("%s, pool refused", desc);
  GstElement *pipeline, *c2v;
  GPtrArray *got;

  got = bc_run_frames_refusing_pools (&pipeline, desc, "c2v", "sink", NULL);
  c2v = bc_by_name (pipeline, "c2v");
  print_path (c2v, what);
  fail_unless_equals_uint64 (cs_stat (c2v, "in-place"), 0);
  bc_assert_stats_full (c2v, CLIP_FRAMES, CLIP_FRAMES);
  bc_stop_pipeline (pipeline);
  bc_assert_same_frames (got, want, what);
  g_ptr_array_unref (got);
  g_free (what);
  g_free (desc);
}

/* @decoder: a description ending in video/x-raw(memory:CUDAMemory) */
static void
check_decode (const gchar * path, const gchar * decoder)
{
  gchar *src = g_strdup_printf ("filesrc location=\"%s\" ! h264parse ! %s",
      path, decoder);
  const gchar *conv;
  gchar *desc, *ref;
  GstElement *pipeline;
  GPtrArray *got, *want;

  /* every decoded frame, through Vulkan, is the frame cudadownload gives */
  desc = g_strdup_printf ("%s ! cudatovulkan name=c2v ! vulkandownload ! "
      "video/x-raw ! appsink name=sink sync=false", src);
  ref = g_strdup_printf ("%s ! cudadownload ! video/x-raw ! "
      "appsink name=sink sync=false", src);
  got = bc_run_frames (&pipeline, desc);
  bc_assert_stats (bc_by_name (pipeline, "c2v"), CLIP_FRAMES);
  bc_stop_pipeline (pipeline);
  want = bc_run_frames (NULL, ref);
  fail_unless_equals_int (want->len, CLIP_FRAMES);
  bc_assert_same_frames (got, want, decoder);
  check_decode_semaphores (src, want);
  check_decode_tee (src, want);
  check_decode_multiplanar (src, want);
  check_decode_pool_refused (src, want);
  g_ptr_array_unref (got);
  g_ptr_array_unref (want);
  g_free (ref);
  g_free (desc);

  /* the whole clip into a Vulkan colour conversion: the bytes of the same
   * conversion of the frames cudadownload ! vulkanupload give */
  conv = "vulkancolorconvert ! video/x-raw(memory:VulkanImage),format=RGBA "
      "! vulkandownload ! video/x-raw ! appsink name=sink sync=false";
  desc = g_strdup_printf ("%s ! cudatovulkan name=c2v ! %s", src, conv);
  ref = g_strdup_printf ("%s ! cudadownload ! vulkanupload ! %s", src, conv);
  got = bc_run_frames (&pipeline, desc);
  bc_assert_stats (bc_by_name (pipeline, "c2v"), CLIP_FRAMES);
  GST_INFO ("%s: c2v signals %" G_GUINT64_FORMAT ", cpu-syncs %"
      G_GUINT64_FORMAT ", semaphores %" G_GUINT64_FORMAT, decoder,
      cs_stat (bc_by_name (pipeline, "c2v"), "signals"),
      cs_stat (bc_by_name (pipeline, "c2v"), "cpu-syncs"),
      cs_stat (bc_by_name (pipeline, "c2v"), "semaphores"));
  bc_stop_pipeline (pipeline);
  want = bc_run_frames (NULL, ref);
  fail_unless_equals_int (want->len, CLIP_FRAMES);
  bc_assert_same_frames (got, want,
      "decoder ! cudatovulkan ! vulkancolorconvert");
  g_ptr_array_unref (got);
  g_ptr_array_unref (want);
  g_free (ref);
  g_free (desc);
  g_free (src);
}

/* nvh264dec's NV12 frames are copied by cudatovulkan (an allocation per
 * plane unless one-allocation, see gstcudavkupstreampool.c); converted to
 * RGBA by cudaconvertscale, which writes into the pool cudatovulkan
 * proposes, they are written in place on 1.24+: no copy behind the
 * decoder's own */
static void
check_decode_in_place (const gchar * path)
{
  gchar *src = g_strdup_printf ("filesrc location=\"%s\" ! h264parse ! "
      "nvh264dec ! cudaconvertscale ! video/x-raw(memory:CUDAMemory),"
      "format=RGBA", path);
  gchar *desc = g_strdup_printf ("%s ! cudatovulkan name=c2v ! vulkandownload "
      "! video/x-raw ! appsink name=sink sync=false", src);
  gchar *ref = g_strdup_printf ("%s ! cudadownload ! video/x-raw ! appsink "
      "name=sink sync=false", src);
  GstElement *pipeline;
  GPtrArray *got, *want;

  got = bc_run_frames (&pipeline, desc);
  fail_unless_equals_uint64 (cs_stat (bc_by_name (pipeline, "c2v"), "in-place"),
      GST_CHECK_VERSION (1, 24, 0) ? CLIP_FRAMES : 0);
  bc_assert_stats (bc_by_name (pipeline, "c2v"), CLIP_FRAMES);
  bc_stop_pipeline (pipeline);
  want = bc_run_frames (NULL, ref);
  fail_unless_equals_int (want->len, CLIP_FRAMES);
  bc_assert_same_frames (got, want,
      "nvh264dec ! cudaconvertscale ! cudatovulkan");
  g_ptr_array_unref (got);
  g_ptr_array_unref (want);
  g_free (ref);
  g_free (desc);
  g_free (src);
}

/* NVDEC: nvh264dec's CUDA frames (high profile with B-frames) */
GST_START_TEST (test_nvh264dec)
{
  static const gchar *const need[] = { "nvh264dec", "x264enc", "h264parse",
    "cudadownload", "vulkandownload", "vulkancolorconvert", "vulkanupload",
    NULL
  };
  static const gchar *const need_convert[] = { "cudaconvertscale", NULL };
  gchar *path;

  if (!cs_have_elements ("test_nvh264dec", need))
    return;
  path = make_clip ("high", TRUE);
  check_decode (path, "nvh264dec ! video/x-raw(memory:CUDAMemory),"
      "format=NV12");
  /* cudaconvertscale registers only where NVRTC works */
  if (cs_have_elements ("test_nvh264dec (cudaconvertscale, in place)",
          need_convert))
    check_decode_in_place (path);
  cs_remove_clip (path);
}

GST_END_TEST;

/* The pipeline users run most, at the size they run it: a 1080p clip
 * decoded into CUDA memory, through cudatovulkan into vulkancolorconvert,
 * whose output goes straight to fakesink (no reader that waits for the
 * GPU on the CPU), in @n_branches branches of one pipeline (one CUDA
 * context, one Vulkan device, one streaming thread each): the clips end
 * without an error, every frame of every branch through its bridge. */
static void
check_decode_colorconvert (const gchar * test, guint n_branches)
{
  static const gchar *const need[] = { "vulkancolorconvert", NULL };
  const gchar *dec = cs_h264_cuda_decoder (test);
  GString *desc;
  GstElement *pipeline;
  gchar *path, *err;
  guint i;

  if (!dec || !cs_have_elements (test, need))
    return;
  path = cs_make_h264_clip (1920, 1080, 30, CLIP_FRAMES, "high", TRUE);
  desc = g_string_new (NULL);
  for (i = 0; i < n_branches; i++)
    g_string_append_printf (desc, "filesrc location=\"%s\" ! h264parse ! "
        "%s ! cudatovulkan name=c2v%u ! vulkancolorconvert ! "
        "video/x-raw(memory:VulkanImage),format=RGBA ! fakesink sync=false ",
        path, dec, i);
  err = cs_run_to_end (desc->str, &pipeline);
  fail_unless (err == NULL, "%s: %s", desc->str, err);
  for (i = 0; i < n_branches; i++) {
    gchar *name = g_strdup_printf ("c2v%u", i);
    GstElement *c2v = bc_by_name (pipeline, name);

    fail_unless_equals_uint64 (cs_stat (c2v, "buffers"), CLIP_FRAMES);
    fail_unless_equals_uint64 (cs_stat (c2v, "copies") + cs_stat (c2v,
            "in-place"), CLIP_FRAMES);
    g_free (name);
  }
  gst_object_unref (pipeline);
  cs_remove_clip (path);
  g_string_free (desc, TRUE);
}

GST_START_TEST (test_decode_colorconvert_1080p)
{
  check_decode_colorconvert ("test_decode_colorconvert_1080p", 1);
}

GST_END_TEST;

/* the same, four decodes at once: how applications run several streams */
GST_START_TEST (test_decode_colorconvert_four)
{
  check_decode_colorconvert ("test_decode_colorconvert_four", 4);
}

GST_END_TEST;

/* Vulkan video decoding (1.24+, where the device has a video-decode
 * queue): vulkanh264dec's frames are one multi-planar image each, decoded
 * on that queue; vulkantocuda orders its copy by the image's timeline
 * semaphore. Conforming decoders are bit-exact: the frames are
 * nvh264dec ! cudadownload's, on baseline, main and high profile clips
 * (the last two with B-frames). */
/* a weak reference to the Vulkan device @e uses */
static void
weak_ref_device (GstElement * e, GWeakRef * ref)
{
  GstQuery *q = gst_query_new_context (GST_VULKAN_DEVICE_CONTEXT_TYPE_STR);
  GstVulkanDevice *device = NULL;
  GstContext *ctx = NULL;

  fail_unless (gst_element_query (e, q), "no Vulkan device context");
  gst_query_parse_context (q, &ctx);
  fail_unless (ctx && gst_context_get_vulkan_device (ctx, &device) && device);
  g_weak_ref_init (ref, device);
  gst_object_unref (device);
  gst_query_unref (q);
}

/* @ref's object is finalized (within a second: the last GPU work's fences
 * may hold it briefly) */
static void
assert_finalized (GWeakRef * ref, const gchar * what)
{
  GObject *obj = NULL;
  guint i;

  for (i = 0; i < 100 && (obj = g_weak_ref_get (ref)); i++) {
    g_object_unref (obj);
    g_usleep (10 * 1000);
  }
  fail_unless (obj == NULL, "%s: the Vulkan device outlives the pipeline",
      what);
  g_weak_ref_clear (ref);
}

GST_START_TEST (test_vulkanh264dec)
{
  static const gchar *const need[] = { "vulkanh264dec", "nvh264dec",
    "x264enc", "h264parse", "cudadownload", NULL
  };
  static const struct
  {
    const gchar *profile;
    gboolean bframes;
  } clips[] = {
    {"constrained-baseline", FALSE}, {"main", TRUE}, {"high", TRUE},
  };
  guint c;

  if (!cs_have_elements ("test_vulkanh264dec", need))
    return;
  for (c = 0; c < G_N_ELEMENTS (clips); c++) {
    gchar *path = make_clip (clips[c].profile, clips[c].bframes);
    gchar *desc = g_strdup_printf ("filesrc location=\"%s\" ! h264parse ! "
        "vulkanh264dec ! video/x-raw(memory:VulkanImage),format=NV12 ! "
        "vulkantocuda name=v2c ! cudadownload ! video/x-raw ! appsink "
        "name=sink sync=false", path);
    gchar *ref = g_strdup_printf ("filesrc location=\"%s\" ! h264parse ! "
        "nvh264dec ! cudadownload ! video/x-raw ! appsink name=sink "
        "sync=false", path);
    gchar *what = g_strdup_printf ("vulkanh264dec ! vulkantocuda, %s",
        clips[c].profile);
    GstElement *pipeline;
    GPtrArray *got, *want;

    GWeakRef device;

    got = bc_run_frames (&pipeline, desc);
    bc_assert_stats (bc_by_name (pipeline, "v2c"), CLIP_FRAMES);
    weak_ref_device (bc_by_name (pipeline, "v2c"), &device);
    bc_stop_pipeline (pipeline);
    /* nothing keeps the Vulkan device once the pipeline is gone (the
     * element's queue left on the decoder's images leaked it) */
    assert_finalized (&device, what);
    want = bc_run_frames (NULL, ref);
    fail_unless_equals_int (want->len, CLIP_FRAMES);
    bc_assert_same_frames (got, want, what);
    GST_INFO ("%s: %u frames identical", what, got->len);
    g_ptr_array_unref (got);
    g_ptr_array_unref (want);
    g_free (what);
    g_free (ref);
    g_free (desc);
    cs_remove_clip (path);
  }
}

GST_END_TEST;

/* The same checks with a software decoder whose frames cudaupload puts in
 * CUDA memory: runs where nvh264dec does not (the simulator) */
GST_START_TEST (test_sw_h264dec)
{
  static const gchar *const need[] = { "openh264dec", "x264enc", "h264parse",
    "videoconvert", "cudaupload", "cudadownload", "vulkandownload",
    "vulkancolorconvert", "vulkanupload", NULL
  };
  gchar *path;

  if (!cs_have_elements ("test_sw_h264dec", need))
    return;
  path = make_clip ("constrained-baseline", FALSE);
  check_decode (path, "openh264dec ! videoconvert ! "
      "video/x-raw,format=NV12 ! cudaupload ! "
      "video/x-raw(memory:CUDAMemory),format=NV12");
  cs_remove_clip (path);
}

GST_END_TEST;

static Suite *
cudavkdecode_suite (void)
{
  Suite *s = suite_create ("cudavkdecode");
  TCase *tc;

  tc = tcase_create ("general");
  suite_add_tcase (s, tc);
  tcase_add_checked_fixture (tc, cs_vk_setup, cs_vk_teardown);
  tcase_add_test (tc, test_nvh264dec);
  tcase_add_test (tc, test_sw_h264dec);
  tcase_add_test (tc, test_vulkanh264dec);
  tcase_add_test (tc, test_decode_colorconvert_1080p);
  tcase_add_test (tc, test_decode_colorconvert_four);
  return s;
}

int
main (int argc, char **argv)
{
  gst_check_init (&argc, &argv);
  return cs_vk_run_suite (cudavkdecode_suite (), "cudavkdecode", __FILE__);
}

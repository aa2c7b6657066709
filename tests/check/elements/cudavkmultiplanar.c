/* gst-cudasync: cudatovulkan's frames of one multi-planar image (property
 * multi-planar): their memories, frames written in place, the bytes
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Helpers and what the simulator runs in place of a GPU: bridgecommon.h.
 * Where the Vulkan device makes linear, exportable multi-planar images
 * (the H200's driver; Mesa lavapipe from Debian 13 on, not Debian 12's)
 * and GStreamer is 1.24 or newer, every NV12 and I420 frame is one image;
 * elsewhere one image per plane, as without the property. The tests assert
 * whichever the device and version give, asking the device themselves.
 *
 * Tests:
 * test_multiplanar_bytes: cudaupload ! cudatovulkan multi-planar=true, read
 *     by vulkandownload (widths of multiples of 4: 1.22 to 1.26's
 *     vulkandownload is wrong for others) or by vulkantocuda (any size, odd
 *     ones included); in place and copied; memories per frame, counters,
 *     byte-exact
 * test_multiplanar_off: without the property NV12 frames keep one image
 *     per plane, written in place with one-allocation, else copied
 * test_multiplanar_held: 20 NV12 frames written in place, all held
 *     downstream at once while upstream goes on writing, stay byte-exact
 * test_multiplanar_renegotiate: NV12 in place, then RGBA in place, then
 *     NV12 again in one stream (caps change midway), byte-exact
 * test_multiplanar_pool_refused: an upstream that does not take the pool
 *     cudatovulkan proposes (the pools are taken out of the ALLOCATION
 *     query's answer): still one image per frame, every frame copied,
 *     byte-exact
 */
#include "config.h"
#include "bridgecommon.h"
#include <string.h>

/* what went out of cudatovulkan: buffers and the memories of each */
typedef struct
{
  gint buffers;
  gint min_mems, max_mems;
  /* the planes of every frame have one stride (its video meta's): what a
   * GstCudaMemory that upstream writes into needs */
  gboolean one_stride;
} MemCount;

static GstPadProbeReturn
count_mems (GstPad * pad, GstPadProbeInfo * info, gpointer data)
{
  MemCount *c = data;
  GstBuffer *buf = GST_PAD_PROBE_INFO_BUFFER (info);
  GstVideoMeta *meta = gst_buffer_get_video_meta (buf);
  gint n = gst_buffer_n_memory (buf);
  guint i;

  fail_unless (meta != NULL, "an output frame without a video meta");
  if (c->buffers == 0)
    c->one_stride = TRUE;
  for (i = 1; i < meta->n_planes; i++)
    c->one_stride &= meta->stride[i] == meta->stride[0];
  c->buffers++;
  c->min_mems = c->buffers == 1 ? n : MIN (c->min_mems, n);
  c->max_mems = MAX (c->max_mems, n);
  return GST_PAD_PROBE_OK;
}

static void
probe_output (GstElement * pipeline, MemCount * c)
{
  GstPad *pad = gst_element_get_static_pad (bc_by_name (pipeline, "c2v"),
      "src");

  memset (c, 0, sizeof (*c));
  gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER, count_mems, c, NULL);
  gst_object_unref (pad);
}

static MemCount *probe_target;

static void
probe_hook (GstElement * pipeline)
{
  probe_output (pipeline, probe_target);
}

/* Runs @desc (with cudatovulkan "c2v" and appsink "sink"), counting
 * cudatovulkan's output memories into @c; its frames (transfer full) */
static GPtrArray *
run_counting (GstElement ** pipeline, const gchar * desc, MemCount * c)
{
  GPtrArray *got;

  probe_target = c;
  bc_pipeline_hook = probe_hook;
  got = bc_run_frames (pipeline, desc);
  bc_pipeline_hook = NULL;
  return got;
}

/* The memories every output frame of @c2v has, from what it negotiated */
static void
assert_memories (GstElement * c2v, const MemCount * c, guint n,
    const gchar * what)
{
  GstVideoInfo info;
  gint want;

  fail_unless (bc_pad_info (c2v, "src", &info));
  want = bc_expect_multiplanar (c2v, &info) ? 1 :
      GST_VIDEO_INFO_N_PLANES (&info);
  fail_unless_equals_int (c->buffers, n);
  fail_unless (c->min_mems == want && c->max_mems == want,
      "%s: %d to %d memories a frame, want %d", what, c->min_mems,
      c->max_mems, want);
}

static const gchar *const download_reader = "vulkandownload ! video/x-raw";
static const gchar *const v2c_reader =
    "vulkantocuda ! cudadownload ! video/x-raw";

/* Every case in place and copied: the memories, the counters, the bytes */
GST_START_TEST (test_multiplanar_bytes)
{
  static const struct
  {
    const gchar *format;
    gint w, h;
    gboolean download;
  } cases[] = {
    {"NV12", 64, 48, TRUE}, {"NV12", 320, 240, TRUE},
    {"NV12", 854, 482, FALSE}, {"NV12", 33, 17, FALSE},
    {"I420", 64, 48, FALSE}, {"I420", 321, 241, FALSE},
  };
  guint i, k;

  for (i = 0; i < G_N_ELEMENTS (cases); i++) {
    for (k = 0; k < 2; k++) {
      gboolean in_place = k == 0;
      gchar *src = bc_src_desc (cases[i].format, cases[i].w, cases[i].h);
      gchar *desc = g_strdup_printf ("%s ! cudaupload ! cudatovulkan "
          "name=c2v multi-planar=true in-place=%d ! %s ! appsink name=sink "
          "sync=false", src, in_place,
          cases[i].download ? download_reader : v2c_reader);
      gchar *what = g_strdup_printf ("%s %dx%d, in-place=%d, read by %s",
          cases[i].format, cases[i].w, cases[i].h, in_place,
          cases[i].download ? "vulkandownload" : "vulkantocuda");
      GstElement *pipeline, *c2v;
      GPtrArray *got, *want;
      GstVideoInfo info;
      MemCount c;
      guint64 written;

      GST_INFO ("%s", what);
      got = run_counting (&pipeline, desc, &c);
      c2v = bc_by_name (pipeline, "c2v");
      assert_memories (c2v, &c, BC_N_BUFFERS, what);
      fail_unless (bc_pad_info (c2v, "sink", &info));
      /* one memory a frame, in place where asked and the planes have one
       * stride (the H200's NV12; lavapipe's NV12, not its I420); where the
       * device makes no multi-planar images, one image per plane, copied
       * (one-allocation is off) */
      written = bc_info_in_place (c2v, &info) && c.one_stride ?
          BC_N_BUFFERS : 0;
      fail_unless_equals_int (written != 0, in_place &&
          bc_expect_multiplanar (c2v, &info) && c.one_stride);
      /* in the log of every run: which path each size took here */
      g_print ("%s: %s (copies %" G_GUINT64_FORMAT " of %d)\n", what,
          written ? "written in place" : "copied",
          cs_stat (c2v, "copies"), BC_N_BUFFERS);
      bc_assert_stats_full (c2v, BC_N_BUFFERS, BC_N_BUFFERS - written);
      bc_stop_pipeline (pipeline);
      want = bc_reference_frames (cases[i].format, cases[i].w, cases[i].h);
      bc_assert_same_frames (got, want, what);
      g_ptr_array_unref (got);
      g_ptr_array_unref (want);
      g_free (what);
      g_free (desc);
      g_free (src);
    }
  }
}

GST_END_TEST;

/* Stops @pipeline; @got (transfer full) must be videotestsrc's NV12
 * 64x48 frames */
static void
stop_and_compare_64x48 (GstElement * pipeline, GPtrArray * got,
    const gchar * what)
{
  GPtrArray *want;

  bc_stop_pipeline (pipeline);
  want = bc_reference_frames ("NV12", 64, 48);
  bc_assert_same_frames (got, want, what);
  g_ptr_array_unref (got);
  g_ptr_array_unref (want);
}

/* The default: one image per plane whatever the device (1.24 to 1.28's
 * vulkancolorconvert reads no other), written in place by cudaupload with
 * one-allocation (1.24+, elements/cudavkonealloc), else every frame
 * copied: bc_assert_stats() asks the element which */
GST_START_TEST (test_multiplanar_off)
{
  gchar *src = bc_src_desc ("NV12", 64, 48);
  gchar *desc = g_strdup_printf ("%s ! cudaupload ! cudatovulkan name=c2v ! "
      "%s ! appsink name=sink sync=false", src, download_reader);
  GstElement *pipeline, *c2v;
  GPtrArray *got;
  gboolean multi_planar = TRUE;
  MemCount c;

  got = run_counting (&pipeline, desc, &c);
  c2v = bc_by_name (pipeline, "c2v");
  g_object_get (c2v, "multi-planar", &multi_planar, NULL);
  fail_if (multi_planar, "multi-planar is on by default");
  fail_unless_equals_int (c.min_mems, 2);
  fail_unless_equals_int (c.max_mems, 2);
  bc_assert_stats (c2v, BC_N_BUFFERS);
  stop_and_compare_64x48 (pipeline, got, "NV12 without multi-planar");
  g_free (desc);
  g_free (src);
}

GST_END_TEST;

#define N_HELD 20
#define HELD_SRC "videotestsrc num-buffers=20 pattern=ball ! " \
    "video/x-raw,format=NV12,width=64,height=48,framerate=30/1"

/* Frames written in place stay with downstream for as long as it holds
 * them: all 20 at once (a queue blocked until cudatovulkan has pushed the
 * last one) while cudaupload goes on writing; a frame handed to cudaupload
 * again while held would show a later frame's bytes. */
GST_START_TEST (test_multiplanar_held)
{
  gchar *desc = g_strdup_printf ("%s ! cudaupload ! cudatovulkan name=c2v "
      "multi-planar=true ! queue name=q max-size-buffers=0 max-size-bytes=0 "
      "max-size-time=0 ! %s ! appsink name=sink sync=false", HELD_SRC,
      download_reader);
  GstElement *pipeline, *c2v;
  GPtrArray *got, *want;
  GstVideoInfo info;

  got = bc_run_held (desc, N_HELD, &pipeline);
  c2v = bc_by_name (pipeline, "c2v");
  fail_unless (bc_pad_info (c2v, "sink", &info));
  /* in place where the device makes the images */
  fail_unless_equals_uint64 (cs_stat (c2v, "in-place"),
      bc_info_in_place (c2v, &info) ? N_HELD : 0);
  bc_assert_stats (c2v, N_HELD);
  bc_stop_pipeline (pipeline);

  want = bc_run_frames (NULL, HELD_SRC " ! appsink name=sink sync=false");
  bc_assert_same_frames (got, want, "NV12 frames written in place, held");
  g_ptr_array_unref (got);
  g_ptr_array_unref (want);
  if (cs_is_sim) {
    cs_sim.drain ();
    fail_unless_equals_int (cs_sim.violation_count (), 0);
  }
  g_free (desc);
}

GST_END_TEST;

static const gchar *const reneg_formats[] = { "NV12", "RGBA", "NV12" };

#define RENEG_PER_FORMAT 4

/* One stream NV12 -> RGBA -> NV12 (videoconvert follows the capsfilter):
 * every frame byte-exact against the same source converted without the
 * project's elements, and frames written in place in both formats. Read
 * by vulkantocuda: 1.22's vulkandownload corrupts buffers when caps change
 * midstream (seen with vulkanupload ! vulkandownload alone). */
GST_START_TEST (test_multiplanar_renegotiate)
{
  const guint total = RENEG_PER_FORMAT * G_N_ELEMENTS (reneg_formats);
  gchar *middle = g_strdup_printf ("cudaupload ! cudatovulkan name=c2v "
      "multi-planar=true ! %s", v2c_reader);
  GstElement *pipeline, *c2v;

  pipeline = bc_run_renegotiating (middle, reneg_formats,
      G_N_ELEMENTS (reneg_formats), RENEG_PER_FORMAT, "NV12 -> RGBA -> NV12");
  c2v = bc_by_name (pipeline, "c2v");
  /* the last caps (NV12) one memory a frame where the device makes them;
   * RGBA always in place on 1.24+ */
  fail_unless (cs_stat (c2v, "buffers") == total);
  if (GST_CHECK_VERSION (1, 24, 0)) {
    GstVideoInfo info;
    guint64 min = RENEG_PER_FORMAT - 1;

    fail_unless (bc_pad_info (c2v, "sink", &info));
    if (bc_expect_multiplanar (c2v, &info))
      min += 2 * (RENEG_PER_FORMAT - 1);
    /* the first frame after each change may come from the old pool,
     * before upstream has the new one */
    fail_unless (cs_stat (c2v, "in-place") >= min, "%" G_GUINT64_FORMAT
        " frames in place, want at least %" G_GUINT64_FORMAT,
        cs_stat (c2v, "in-place"), min);
  }
  bc_stop_pipeline (pipeline);
  g_free (middle);
}

GST_END_TEST;

/* in-place=true, but cudaupload allocates its own buffers: cudatovulkan
 * copies each into its multi-planar frames (one memory each where the
 * device makes them), none written in place */
GST_START_TEST (test_multiplanar_pool_refused)
{
  gchar *src = bc_src_desc ("NV12", 64, 48);
  gchar *desc = g_strdup_printf ("%s ! cudaupload name=up ! cudatovulkan "
      "name=c2v multi-planar=true in-place=true ! %s ! appsink name=sink "
      "sync=false", src, download_reader);
  GstElement *pipeline, *c2v;
  GstVideoInfo info;
  GPtrArray *got;
  MemCount c;

  probe_target = &c;
  got = bc_run_frames_refusing_pools (&pipeline, desc, "up", "src", probe_hook);
  c2v = bc_by_name (pipeline, "c2v");
  fail_unless (bc_pad_info (c2v, "sink", &info));
  /* only where the pool would have been taken does this test tell the
   * refusal apart (test_multiplanar_bytes: in place there) */
  g_print ("NV12 64x48, pool refused: %s\n", bc_info_in_place (c2v, &info) ?
      "would be written in place here" : "copied here anyway (no "
      "multi-planar images or no pool proposed): nothing to tell apart");
  assert_memories (c2v, &c, BC_N_BUFFERS, "NV12, pool refused");
  bc_assert_stats_full (c2v, BC_N_BUFFERS, BC_N_BUFFERS);
  stop_and_compare_64x48 (pipeline, got, "NV12, pool refused");
  g_free (desc);
  g_free (src);
}

GST_END_TEST;

static Suite *
cudavkmultiplanar_suite (void)
{
  Suite *s = suite_create ("cudavkmultiplanar");
  TCase *tc;

  tc = tcase_create ("general");
  suite_add_tcase (s, tc);
  tcase_add_checked_fixture (tc, cs_vk_setup, cs_vk_teardown);
  tcase_add_test (tc, test_multiplanar_bytes);
  tcase_add_test (tc, test_multiplanar_off);
  tcase_add_test (tc, test_multiplanar_held);
  tcase_add_test (tc, test_multiplanar_renegotiate);
  tcase_add_test (tc, test_multiplanar_pool_refused);
  return s;
}

int
main (int argc, char **argv)
{
  gst_check_init (&argc, &argv);
  return cs_vk_run_suite (cudavkmultiplanar_suite (), "cudavkmultiplanar",
      __FILE__);
}

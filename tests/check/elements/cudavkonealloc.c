/* gst-cudasync: cudatovulkan's NV12 and I420 frames of one allocation: one
 * linear image per plane, all bound to one exportable allocation that CUDA
 * imports once, which upstream writes in place (GStreamer 1.24+,
 * property one-allocation; off by default)
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Helpers and what the simulator runs in place of a GPU: bridgecommon.h.
 * On 1.22, and with NVIDIA's Vulkan driver (unless the test hook
 * GST_CUDASYNC_CUDA_MEMORY=1 is set), the frames keep one allocation per
 * plane and are copied; the tests assert whichever applies
 * (bc_expect_one_allocation(), bc_one_allocation_usable()).
 *
 * Tests:
 * test_one_alloc_colorconvert: NV12 (64x48, 66x34, 1280x720) from
 *     cudaupload through cudatovulkan ! vulkancolorconvert to RGBA, read by
 *     vulkandownload: in place (copies 0) on 1.24+, the bytes of
 *     cudadownload ! vulkanupload ! vulkancolorconvert
 * test_one_alloc_bytes: NV12 read by vulkandownload, NV12 and I420 (odd
 *     sizes too) read by vulkantocuda (vulkancolorconvert takes no I420):
 *     one memory per plane, in place on 1.24+, byte-exact against the input
 * test_one_alloc_copied: the same frames when upstream does not take the
 *     pool (copied into the planes at their offsets and pitches),
 *     byte-exact
 * test_one_alloc_multiplanar_toggle: NV12 -> I420 -> NV12 in one stream,
 *     property multi-planar toggled at each caps: one image per plane, one
 *     multi-planar image (where the device makes them), one image per
 *     plane again; byte-exact
 * test_one_alloc_lent_upload: the other way, vulkantocuda one-allocation:
 *     NV12 and I420 from vulkanupload, no caps filter, written in place
 *     (in-place = frames, gpu-copies 0 on 1.24+), byte-exact; odd widths
 *     as buffers up to 1.26 without a caps filter, lent with one
 *     (NV12 33x17, I420 36x18), byte-exact; I420 skipped where no frames
 *     are lent and vulkanupload makes no I420 images itself (up to 1.26)
 * test_one_alloc_lent_colorconvert: NV12 rendered by vulkancolorconvert
 *     into vulkantocuda's frames: the bytes of the copying pipeline
 * test_one_alloc_video_config: vulkantocuda's proposed pool configured
 *     for video decoding (as a Vulkan decoder does) hands out ordinary
 *     images, not its frames
 * test_one_alloc_cuda_memory_fallback: CUDA's own memory taken with
 *     Mesa's driver (test hook): refused by Vulkan, or CUDA's allocation
 *     failing, one allocation per plane, copied, byte-exact (simulator)
 */
#include "config.h"
#include "bridgecommon.h"
#include <string.h>

/* Frames of one allocation: 1.24+, with a driver that gets them
 * (not NVIDIA's, unless the test hook asks for it) */
#define ONE_ALLOCATION \
  (GST_CHECK_VERSION (1, 24, 0) && bc_one_allocation_usable ())

/* Every frame of the current caps written in place on 1.24+ (none copied),
 * each plane one memory */
static void
assert_in_place (GstElement * c2v, guint n)
{
  GstVideoInfo info;
  gboolean one;

  fail_unless (bc_pad_info (c2v, "sink", &info));
  one = bc_expect_one_allocation (c2v, &info);
  fail_unless_equals_int (one, ONE_ALLOCATION);
  fail_unless_equals_uint64 (cs_stat (c2v, "in-place"), one ? n : 0);
  fail_unless_equals_uint64 (cs_stat (c2v, "copies"), one ? 0 : n);
}

GST_START_TEST (test_one_alloc_colorconvert)
{
  static const gint sizes[][2] = { {64, 48}, {66, 34}, {1280, 720} };
  guint s;

  /* under 25 frames a pipeline: 1.26.2's vulkancolorconvert fails after
   * 31 descriptor sets */
  bc_c2v_options = "one-allocation=true";
  for (s = 0; s < G_N_ELEMENTS (sizes); s++)
    bc_check_colorconvert ("NV12", "RGBA", sizes[s][0], sizes[s][1],
        BC_N_BUFFERS, BC_VIA_CUDADOWNLOAD, assert_in_place);
  bc_c2v_options = "";
}

GST_END_TEST;

/* the memories of each frame out of cudatovulkan */
typedef struct
{
  GMutex lock;
  GArray *n_mems;
} MemLog;

static MemLog mem_log;

static GstPadProbeReturn
log_mems (GstPad * pad, GstPadProbeInfo * info, gpointer data)
{
  guint n = gst_buffer_n_memory (GST_PAD_PROBE_INFO_BUFFER (info));

  g_mutex_lock (&mem_log.lock);
  g_array_append_val (mem_log.n_mems, n);
  g_mutex_unlock (&mem_log.lock);
  return GST_PAD_PROBE_OK;
}

static void
log_mems_hook (GstElement * pipeline)
{
  GstPad *pad = gst_element_get_static_pad (bc_by_name (pipeline, "c2v"),
      "src");

  gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER, log_mems, NULL, NULL);
  gst_object_unref (pad);
}

static void
mem_log_reset (void)
{
  if (mem_log.n_mems)
    g_array_unref (mem_log.n_mems);
  mem_log.n_mems = g_array_new (FALSE, FALSE, sizeof (guint));
}

/* every logged frame from @first on had @n memories */
static void
assert_mems (guint first, guint last, guint n, const gchar * what)
{
  guint i;

  fail_unless (mem_log.n_mems->len > last, "%s: %u frames logged", what,
      mem_log.n_mems->len);
  for (i = first; i <= last; i++)
    fail_unless (g_array_index (mem_log.n_mems, guint, i) == n,
        "%s: frame %u has %u memories, want %u", what, i,
        g_array_index (mem_log.n_mems, guint, i), n);
}

static const struct
{
  const gchar *format;
  gint w, h;
  gboolean download;
} byte_cases[] = {
  {"NV12", 64, 48, TRUE}, {"NV12", 320, 240, TRUE}, {"NV12", 1280, 720, TRUE},
  {"NV12", 66, 34, FALSE}, {"NV12", 33, 17, FALSE}, {"I420", 64, 48, FALSE},
  {"I420", 66, 34, FALSE}, {"I420", 1280, 720, FALSE},
};

/* Runs byte case @i, upstream taking cudatovulkan's pool unless @refuse:
 * the memories, the counters, the bytes */
static void
check_bytes (guint i, gboolean refuse)
{
  gchar *src = bc_src_desc (byte_cases[i].format, byte_cases[i].w,
      byte_cases[i].h);
  gchar *desc = g_strdup_printf ("%s ! cudaupload name=up ! cudatovulkan "
      "name=c2v one-allocation=true ! %s ! video/x-raw ! appsink name=sink sync=false",
      src,
      byte_cases[i].download ? "vulkandownload" :
      "vulkantocuda ! cudadownload");
  gchar *what = g_strdup_printf ("%s %dx%d read by %s%s",
      byte_cases[i].format, byte_cases[i].w, byte_cases[i].h,
      byte_cases[i].download ? "vulkandownload" : "vulkantocuda",
      refuse ? ", pool refused" : "");
  GstElement *pipeline, *c2v;
  GPtrArray *got, *want;
  GstVideoInfo info;

  GST_INFO ("%s", what);
  mem_log_reset ();
  if (refuse) {
    got = bc_run_frames_refusing_pools (&pipeline, desc, "up", "src",
        log_mems_hook);
  } else {
    bc_pipeline_hook = log_mems_hook;
    got = bc_run_frames (&pipeline, desc);
    bc_pipeline_hook = NULL;
  }
  c2v = bc_by_name (pipeline, "c2v");
  fail_unless (bc_pad_info (c2v, "src", &info));
  assert_mems (0, BC_N_BUFFERS - 1, GST_VIDEO_INFO_N_PLANES (&info), what);
  if (refuse) {
    bc_assert_stats_full (c2v, BC_N_BUFFERS, BC_N_BUFFERS);
  } else {
    assert_in_place (c2v, BC_N_BUFFERS);
    bc_assert_stats (c2v, BC_N_BUFFERS);
  }
  g_print ("%s: copies %" G_GUINT64_FORMAT " of %d\n", what,
      cs_stat (c2v, "copies"), BC_N_BUFFERS);
  bc_stop_pipeline (pipeline);
  want = bc_reference_frames (byte_cases[i].format, byte_cases[i].w,
      byte_cases[i].h);
  bc_assert_same_frames (got, want, what);
  g_ptr_array_unref (got);
  g_ptr_array_unref (want);
  g_free (what);
  g_free (desc);
  g_free (src);
}

/* vulkandownload for widths of multiples of 4 only: 1.22 to 1.26's is
 * wrong for others (bridgecommon.c) */
GST_START_TEST (test_one_alloc_bytes)
{
  guint i;

  for (i = 0; i < G_N_ELEMENTS (byte_cases); i++)
    check_bytes (i, FALSE);
}

GST_END_TEST;

GST_START_TEST (test_one_alloc_copied)
{
  guint i;

  for (i = 0; i < G_N_ELEMENTS (byte_cases); i++)
    check_bytes (i, TRUE);
}

GST_END_TEST;

/* NV12 320x240 with CUDA's own memory under the planes' images, the
 * path the test hook takes with NVIDIA's driver, taken here with Mesa's:
 * Mesa refuses the simulator's memfds (or, with @fail_alloc, CUDA
 * cannot allocate), so the one probe fails and the frames get one
 * allocation per plane: all copied, byte-exact, CUDA's allocation freed */
static void
check_cuda_memory_fallback (gboolean fail_alloc)
{
  gchar *src = bc_src_desc ("NV12", 320, 240);
  gchar *desc = g_strdup_printf ("%s ! cudaupload ! cudatovulkan name=c2v "
      "one-allocation=true ! vulkandownload ! video/x-raw ! appsink "
      "name=sink sync=false", src);
  guint before = cs_sim.call_count ("cuMemCreate");
  GstElement *pipeline, *c2v;
  GPtrArray *got, *want;

  g_setenv ("GST_CUDASYNC_CUDA_MEMORY", "1", TRUE);
  if (fail_alloc)
    cs_sim.inject_failure ("cuMemCreate", 1, CUDA_ERROR_OUT_OF_MEMORY);
  got = bc_run_frames (&pipeline, desc);
  c2v = bc_by_name (pipeline, "c2v");
  fail_unless_equals_uint64 (cs_stat (c2v, "copies"), BC_N_BUFFERS);
  fail_unless_equals_uint64 (cs_stat (c2v, "in-place"), 0);
  /* the probe only, never again on this device */
  fail_unless_equals_int (cs_sim.call_count ("cuMemCreate") - before, 1);
  bc_stop_pipeline (pipeline);
  fail_unless_equals_int (cs_sim_live ("memhandle"), 0);
  want = bc_reference_frames ("NV12", 320, 240);
  bc_assert_same_frames (got, want, fail_alloc ? "CUDA could not allocate" :
      "Vulkan refused CUDA's memory");
  g_ptr_array_unref (got);
  g_ptr_array_unref (want);
  g_unsetenv ("GST_CUDASYNC_CUDA_MEMORY");
  g_free (desc);
  g_free (src);
}

/* the simulator only (on a GPU the other tests run CUDA's memory with
 * the test hook set around them, and copies without it); 1.24+ (1.22 has
 * no one allocation) */
GST_START_TEST (test_one_alloc_cuda_memory_fallback)
{
  if (!cs_is_sim || !GST_CHECK_VERSION (1, 24, 0))
    return;
  check_cuda_memory_fallback (FALSE);
  check_cuda_memory_fallback (TRUE);
}

GST_END_TEST;

/* multi-planar at the Nth caps event cudatovulkan receives: off, on, off */
static GstPadProbeReturn
toggle_on_caps (GstPad * pad, GstPadProbeInfo * info, gpointer data)
{
  GstEvent *event = GST_PAD_PROBE_INFO_EVENT (info);
  guint *n_caps = data;

  if (GST_EVENT_TYPE (event) == GST_EVENT_CAPS) {
    (*n_caps)++;
    g_object_set (GST_PAD_PARENT (pad), "multi-planar", *n_caps % 2 == 0, NULL);
  }
  return GST_PAD_PROBE_OK;
}

static guint n_caps;

static void
toggle_hook (GstElement * pipeline)
{
  GstPad *pad = gst_element_get_static_pad (bc_by_name (pipeline, "c2v"),
      "sink");

  n_caps = 0;
  gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_EVENT_DOWNSTREAM,
      toggle_on_caps, &n_caps, NULL);
  gst_object_unref (pad);
  log_mems_hook (pipeline);
}

static const gchar *const toggle_formats[] = { "NV12", "I420", "NV12" };

#define TOGGLE_PER_FORMAT 4

/* Renegotiation between the two forms: the frames of each caps have the
 * memories of their form (the first after a change may still be of the
 * old pool's caps: skipped), all of them byte-exact. Read by vulkantocuda,
 * which takes both (1.22's vulkandownload corrupts frames when caps
 * change midstream). */
GST_START_TEST (test_one_alloc_multiplanar_toggle)
{
  GstElement *pipeline, *c2v;
  GstVideoInfo i420;
  guint mp;

  mem_log_reset ();
  bc_pipeline_hook = toggle_hook;
  pipeline = bc_run_renegotiating ("cudaupload ! cudatovulkan name=c2v "
      "one-allocation=true ! vulkantocuda ! cudadownload", toggle_formats,
      G_N_ELEMENTS (toggle_formats), TOGGLE_PER_FORMAT,
      "NV12 -> I420 multi-planar -> NV12");
  bc_pipeline_hook = NULL;
  c2v = bc_by_name (pipeline, "c2v");
  fail_unless_equals_int (n_caps, G_N_ELEMENTS (toggle_formats));
  /* multi-planar is on for the I420 caps: one image where the device
   * makes multi-planar images (1.24+) */
  gst_video_info_set_format (&i420, GST_VIDEO_FORMAT_I420, BC_RENEG_WIDTH,
      BC_RENEG_HEIGHT);
  g_object_set (c2v, "multi-planar", TRUE, NULL);
  mp = bc_expect_multiplanar (c2v, &i420) ? 1 : 3;
  assert_mems (1, TOGGLE_PER_FORMAT - 1, 2, "NV12, one image per plane");
  assert_mems (TOGGLE_PER_FORMAT + 1, 2 * TOGGLE_PER_FORMAT - 1, mp,
      "I420, multi-planar");
  assert_mems (2 * TOGGLE_PER_FORMAT + 1, 3 * TOGGLE_PER_FORMAT - 1, 2,
      "NV12 again, one image per plane");
  fail_unless_equals_uint64 (cs_stat (c2v, "buffers"),
      G_N_ELEMENTS (toggle_formats) * TOGGLE_PER_FORMAT);
  /* both NV12 stretches written in place on 1.24+ (but for the first frame
   * after a change, which may come from the old pool) */
  if (ONE_ALLOCATION)
    fail_unless (cs_stat (c2v, "in-place") >= 2 * (TOGGLE_PER_FORMAT - 1),
        "%" G_GUINT64_FORMAT " frames in place", cs_stat (c2v, "in-place"));
  bc_stop_pipeline (pipeline);
}

GST_END_TEST;

/* NV12 and I420 from vulkanupload into vulkantocuda one-allocation=true,
 * lent on 1.24+. Widths are multiples of 4: vulkanupload up to 1.26 packs
 * other rows wrong (docs/known-issues.md). */
static void
check_lent_upload (const gchar * format, gint w, gint h)
{
  fail_unless_equals_int (bc_check_upload_negotiation (format, w, h,
          "one-allocation=true"), ONE_ALLOCATION);
}

static GstVideoInfo odd_info;

static void
pack_odd_rows (GstElement * pipeline)
{
  bc_upload_packed_rows (pipeline, &odd_info);
}

/* Odd widths: vulkantocuda does not ask for them as images first (NV12
 * 33x17 goes as buffers, bc_check_upload_negotiation()), but lends them
 * where the caps ask for images; vulkanupload given rows it reads right
 * (bc_upload_packed_rows()) then writes the frames where CUDA reads them
 * in place, at the planes' own offsets and pitches: byte-exact */
static void
check_lent_upload_odd (const gchar * format, gint w, gint h)
{
  gchar *src = bc_src_desc (format, w, h);
  gchar *desc = g_strdup_printf ("%s ! vulkanupload name=up ! "
      "video/x-raw(memory:VulkanImage) ! vulkantocuda name=v2c "
      "one-allocation=true ! cudadownload ! video/x-raw ! appsink name=sink "
      "sync=false", src);
  GPtrArray *want = bc_reference_frames (format, w, h), *got;
  GstElement *pipeline = NULL, *v2c;
  GstVideoInfo info;
  gboolean lent;

  fail_unless (gst_video_info_set_format (&odd_info,
          gst_video_format_from_string (format), w, h));
  bc_pipeline_hook = pack_odd_rows;
  got = bc_run_frames (&pipeline, desc);
  bc_pipeline_hook = NULL;
  v2c = bc_by_name (pipeline, "v2c");
  fail_unless (bc_pad_info (v2c, "sink", &info));
  lent = bc_expect_lent (v2c, &info);
  fail_unless_equals_int (lent, ONE_ALLOCATION);
  fail_unless_equals_uint64 (cs_stat (v2c, "in-place"), lent ?
      BC_N_BUFFERS : 0);
  bc_assert_stats (v2c, BC_N_BUFFERS);
  bc_assert_same_frames (got, want, desc);
  bc_stop_pipeline (pipeline);
  g_ptr_array_unref (got);
  g_ptr_array_unref (want);
  g_free (desc);
  g_free (src);
}

/* vulkantocuda lends NV12 and I420 frames as one image per plane over one
 * allocation (property one-allocation): vulkanupload writes them there */
GST_START_TEST (test_one_alloc_lent_upload)
{
  check_lent_upload ("NV12", 64, 48);
  check_lent_upload ("NV12", 320, 242);
  /* up to 1.26 vulkanupload makes I420 images only in vulkantocuda's pool
   * (docs/known-issues.md): where none is proposed, it fails */
  if (ONE_ALLOCATION || bc_vulkan_has_i420 ())
    check_lent_upload ("I420", 64, 48);
  else
    g_print ("SKIP: I420 from vulkanupload, no frames lent: vulkanupload "
        "cannot make I420 images of its own with this GStreamer\n");
  /* widths whose rows vulkanupload up to 1.26 reads packed: not asked
   * for as images first there */
  fail_unless_equals_int (bc_check_upload_negotiation ("NV12", 33, 17,
          "one-allocation=true"), ONE_ALLOCATION &&
      !bc_vulkandownload_packs_rows ());
  check_lent_upload_odd ("NV12", 33, 17);
  if (bc_vulkan_has_i420 ())
    check_lent_upload_odd ("I420", 36, 18);
}

GST_END_TEST;

/* vulkancolorconvert renders NV12 (two images) into vulkantocuda's frames:
 * the bytes of the same pipeline copying them (one-allocation off) */
GST_START_TEST (test_one_alloc_lent_colorconvert)
{
  const gchar *fmt = "%s ! vulkanupload ! vulkancolorconvert ! "
      "video/x-raw(memory:VulkanImage),format=NV12 ! vulkantocuda name=v2c "
      "one-allocation=%s ! cudadownload ! video/x-raw ! appsink name=sink "
      "sync=false";
  gchar *src = bc_src_desc ("RGBA", 64, 48);
  gchar *desc_on = g_strdup_printf (fmt, src, "true");
  gchar *desc_off = g_strdup_printf (fmt, src, "false");
  GstElement *pipeline = NULL, *v2c;
  GPtrArray *want, *got;
  GstVideoInfo info;
  gboolean lent;

  want = bc_run_frames (&pipeline, desc_off);
  v2c = bc_by_name (pipeline, "v2c");
  fail_unless_equals_uint64 (cs_stat (v2c, "in-place"), 0);
  bc_stop_pipeline (pipeline);
  got = bc_run_frames (&pipeline, desc_on);
  v2c = bc_by_name (pipeline, "v2c");
  fail_unless (bc_pad_info (v2c, "sink", &info));
  lent = bc_expect_lent (v2c, &info);
  fail_unless_equals_int (lent, ONE_ALLOCATION);
  fail_unless_equals_uint64 (cs_stat (v2c, "in-place"), lent ?
      BC_N_BUFFERS : 0);
  bc_assert_same_frames (got, want, desc_on);
  bc_stop_pipeline (pipeline);
  g_ptr_array_unref (got);
  g_ptr_array_unref (want);
  g_free (desc_on);
  g_free (desc_off);
  g_free (src);
}

GST_END_TEST;

/* the first pool proposed to vulkantocuda's sink pad (a probe after the
 * ALLOCATION query) */
static GstBufferPool *proposed_pool;

static GstPadProbeReturn
grab_pool (GstPad * pad, GstPadProbeInfo * info, gpointer data)
{
  GstQuery *q = GST_PAD_PROBE_INFO_QUERY (info);

  if (GST_QUERY_TYPE (q) == GST_QUERY_ALLOCATION && !proposed_pool &&
      gst_query_get_n_allocation_pools (q) > 0)
    gst_query_parse_nth_allocation_pool (q, 0, &proposed_pool, NULL, NULL,
        NULL);
  return GST_PAD_PROBE_OK;
}

static void
grab_pool_hook (GstElement * pipeline)
{
  GstElement *v2c = bc_by_name (pipeline, "v2c");
  GstPad *pad = gst_element_get_static_pad (v2c, "sink");

  gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_QUERY_DOWNSTREAM |
      GST_PAD_PROBE_TYPE_PULL, grab_pool, NULL, NULL);
  gst_object_unref (pad);
}

#if GST_CHECK_VERSION(1, 24, 0)
/* @pool (inactive, of 64x48 NV12 frames) configured for video decoding
 * as vulkanh264dec does, at the coded size (64x64, which the frames are
 * not): its buffers are GstVulkanImageBufferPool's ordinary images, one
 * per NV12 plane, of optimal tiling (vulkantocuda's frames are linear) */
static void
assert_plain_for_video (GstBufferPool * pool)
{
  GstCaps *decode = gst_caps_from_string ("video/x-h264");
  GstCaps *coded = gst_caps_from_string ("video/x-raw(memory:VulkanImage),"
      "format=NV12,width=64,height=64");
  GstStructure *config = gst_buffer_pool_get_config (pool);
  GstBuffer *buf = NULL;
  guint i;

  gst_buffer_pool_config_set_params (config, coded, 64 * 64 * 3 / 2, 0, 0);
  gst_vulkan_image_buffer_pool_config_set_decode_caps (config, decode);
  gst_caps_unref (decode);
  gst_caps_unref (coded);
  fail_unless (gst_buffer_pool_set_config (pool, config));
  fail_unless (gst_buffer_pool_set_active (pool, TRUE));
  fail_unless_equals_int (gst_buffer_pool_acquire_buffer (pool, &buf, NULL),
      GST_FLOW_OK);
  fail_unless_equals_int (gst_buffer_n_memory (buf), 2);
  for (i = 0; i < 2; i++) {
    GstMemory *m = gst_buffer_peek_memory (buf, i);

    fail_unless (gst_is_vulkan_image_memory (m));
    fail_unless_equals_int (((GstVulkanImageMemory *) m)->create_info.tiling,
        VK_IMAGE_TILING_OPTIMAL);
    fail_unless_equals_int (((GstVulkanImageMemory *) m)->create_info.
        extent.height, i == 0 ? 64 : 32);
  }
  gst_buffer_unref (buf);
  fail_unless (gst_buffer_pool_set_active (pool, FALSE));
}
#endif

/* A Vulkan video decoder takes any downstream image pool and configures it
 * for its video profile (decode caps): vulkantocuda's pool then hands out
 * upstream's ordinary images, never its linear frames, which no decoder
 * can write. Shown with the decode caps alone, which lavapipe (no video
 * decoding) configures as plain images. */
GST_START_TEST (test_one_alloc_video_config)
{
  gchar *src = bc_src_desc ("NV12", 64, 48);
  gchar *desc = g_strdup_printf ("%s ! vulkanupload ! vulkantocuda name=v2c "
      "one-allocation=true ! cudadownload ! video/x-raw ! appsink name=sink "
      "sync=false", src);
  GstElement *pipeline = NULL;
  GPtrArray *got;

  bc_pipeline_hook = grab_pool_hook;
  got = bc_run_frames (&pipeline, desc);
  bc_pipeline_hook = NULL;
  bc_stop_pipeline (pipeline);
  g_ptr_array_unref (got);
#if GST_CHECK_VERSION(1, 24, 0)
  if (ONE_ALLOCATION) {
    fail_unless (proposed_pool != NULL, "vulkantocuda proposed no pool");
    assert_plain_for_video (proposed_pool);
  }
#endif
  /* 1.22, or NVIDIA's driver: nothing is lent, nothing proposed */
  if (!ONE_ALLOCATION)
    fail_unless (proposed_pool == NULL);
  gst_clear_object (&proposed_pool);
  g_free (desc);
  g_free (src);
}

GST_END_TEST;

static Suite *
cudavkonealloc_suite (void)
{
  Suite *s = suite_create ("cudavkonealloc");
  TCase *tc;

  tc = tcase_create ("general");
  suite_add_tcase (s, tc);
  tcase_add_checked_fixture (tc, cs_vk_setup, cs_vk_teardown);
  tcase_add_test (tc, test_one_alloc_colorconvert);
  tcase_add_test (tc, test_one_alloc_bytes);
  tcase_add_test (tc, test_one_alloc_copied);
  tcase_add_test (tc, test_one_alloc_multiplanar_toggle);
  tcase_add_test (tc, test_one_alloc_lent_upload);
  tcase_add_test (tc, test_one_alloc_lent_colorconvert);
  tcase_add_test (tc, test_one_alloc_video_config);
  tcase_add_test (tc, test_one_alloc_cuda_memory_fallback);
  return s;
}

int
main (int argc, char **argv)
{
  gst_check_init (&argc, &argv);
  g_mutex_init (&mem_log.lock);
  return cs_vk_run_suite (cudavkonealloc_suite (), "cudavkonealloc", __FILE__);
}

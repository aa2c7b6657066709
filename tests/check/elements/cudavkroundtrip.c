/* gst-cudasync: cudatovulkan ! vulkantocuda round trips and format coverage
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Helpers and what the simulator runs in place of a GPU: bridgecommon.h.
 *
 * Tests:
 * test_roundtrip_bytes: every format and size comes back byte-exact; copies,
 *     cpu-syncs, semaphores as expected
 * test_roundtrip_binary: timeline=false on both elements: binary semaphores,
 *     the same bytes
 * test_vulkan_buffer: memory:VulkanBuffer both ways (and vulkanupload's
 *     buffers) is byte-exact
 * test_renegotiation: three caps in one run through both elements: every
 *     frame unchanged, statistics per caps
 * test_roundtrip_late_copies: CUDA copies running late (simulator) or long
 *     runs (GPU) stay byte-exact
 * test_concurrent_branches: four branches on one device and one queue
 *     object: byte-exact and in order
 * test_colorconvert_like_vulkanupload: vulkancolorconvert after cudatovulkan
 *     gives what it gives after vulkanupload; vulkandownload's inputs are
 *     freed only once its queue is idle (bc_hold_inputs())
 */
#include "bridgecommon.h"
#include "vkutil.h"
#include <string.h>

GST_START_TEST (test_roundtrip_bytes)
{
  guint f, s;

  for (f = 0; f < G_N_ELEMENTS (bc_formats); f++) {
    for (s = 0; s < G_N_ELEMENTS (bc_sizes); s++) {
      gint w = bc_sizes[s][0], h = bc_sizes[s][1];
      gchar *src = bc_src_desc (bc_formats[f], w, h);
      gchar *desc = g_strdup_printf ("%s ! cudaupload ! cudatovulkan name=c2v "
          "! vulkantocuda name=v2c ! cudadownload ! video/x-raw ! "
          "appsink name=sink sync=false", src);
      gchar *what =
          g_strdup_printf ("round trip %s %dx%d", bc_formats[f], w, h);
      GstElement *pipeline;
      GPtrArray *got, *want;

      GST_INFO ("%s", what);
      got = bc_run_frames (&pipeline, desc);
      bc_assert_stats (bc_by_name (pipeline, "c2v"), BC_N_BUFFERS);
      bc_assert_stats (bc_by_name (pipeline, "v2c"), BC_N_BUFFERS);
      bc_stop_pipeline (pipeline);
      want = bc_reference_frames (bc_formats[f], w, h);
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

/* The binary path on every version: timeline=false on both elements gives
 * one binary semaphore per slot on a real GPU (1.22's only path), and the
 * same bytes */
GST_START_TEST (test_roundtrip_binary)
{
  gchar *src = bc_src_desc ("NV12", 320, 240);
  gchar *desc = g_strdup_printf ("%s ! cudaupload ! cudatovulkan name=c2v "
      "timeline=false ! vulkantocuda name=v2c timeline=false ! cudadownload "
      "! video/x-raw ! appsink name=sink sync=false", src);
  GstElement *pipeline;
  GPtrArray *got, *want;

  got = bc_run_frames (&pipeline, desc);
  fail_if (bc_expect_timeline (bc_by_name (pipeline, "c2v")));
  bc_assert_stats (bc_by_name (pipeline, "c2v"), BC_N_BUFFERS);
  bc_assert_stats (bc_by_name (pipeline, "v2c"), BC_N_BUFFERS);
  bc_stop_pipeline (pipeline);
  want = bc_reference_frames ("NV12", 320, 240);
  bc_assert_same_frames (got, want, "round trip, binary semaphores");
  g_ptr_array_unref (got);
  g_ptr_array_unref (want);
  g_free (desc);
  g_free (src);
}

GST_END_TEST;

/* memory:VulkanBuffer: cudatovulkan outputs one exportable VkBuffer per
 * plane (GstVideoInfo strides, video meta) when downstream asks for
 * buffers; vulkantocuda takes them (and vulkanupload's) back to CUDA.
 * GStreamer 1.22's vulkandownload takes only images: the check goes
 * through vulkantocuda. */
GST_START_TEST (test_vulkan_buffer)
{
  static const gchar *fmts[] = { "RGBA", "NV12", "I420" };
  guint f, v;

  for (f = 0; f < G_N_ELEMENTS (fmts); f++) {
    for (v = 0; v < 2; v++) {
      gint w = 33, h = 17;
      gchar *src = bc_src_desc (fmts[f], w, h);
      gchar *desc = v == 0 ? g_strdup_printf ("%s ! cudaupload ! "
          "cudatovulkan name=c2v ! video/x-raw(memory:VulkanBuffer) ! "
          "vulkantocuda name=v2c ! cudadownload ! video/x-raw ! "
          "appsink name=sink sync=false", src) :
          g_strdup_printf ("%s ! vulkanupload ! "
          "video/x-raw(memory:VulkanBuffer) ! vulkantocuda name=v2c ! "
          "cudadownload ! video/x-raw ! appsink name=sink sync=false", src);
      gchar *what = g_strdup_printf ("%s VulkanBuffer %s %dx%d", v == 0 ?
          "cudatovulkan ! vulkantocuda" : "vulkanupload ! vulkantocuda",
          fmts[f], w, h);
      GstElement *pipeline;
      GstPad *pad;
      GstCaps *caps;
      GPtrArray *got, *want;

      GST_INFO ("%s", what);
      if (v == 1 && !strcmp (fmts[f], "I420") && !bc_vulkan_has_i420 ()) {
        g_print ("SKIP: %s: this GStreamer's Vulkan library has no format "
            "for I420's chroma planes (1.24 to 1.26): vulkanupload cannot "
            "allocate I420 frames\n", what);
        g_free (what);
        g_free (desc);
        g_free (src);
        continue;
      }
      got = bc_run_frames (&pipeline, desc);
      pad = gst_element_get_static_pad (bc_by_name (pipeline, "v2c"), "sink");
      caps = gst_pad_get_current_caps (pad);
      fail_unless (caps != NULL);
      fail_unless (gst_caps_features_contains (gst_caps_get_features (caps, 0),
              GST_CAPS_FEATURE_MEMORY_VULKAN_BUFFER), "%s: caps %"
          GST_PTR_FORMAT, what, caps);
      gst_caps_unref (caps);
      gst_object_unref (pad);
      if (v == 0)
        bc_assert_stats (bc_by_name (pipeline, "c2v"), BC_N_BUFFERS);
      bc_assert_stats (bc_by_name (pipeline, "v2c"), BC_N_BUFFERS);
      bc_stop_pipeline (pipeline);
      want = bc_reference_frames (fmts[f], w, h);
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

/* Two caps in one run: appsrc switches from RGBA 64x48 to NV12 33x17 and
 * then to I420 321x241; every frame comes back unchanged. */
GST_START_TEST (test_renegotiation)
{
  static const struct
  {
    const gchar *format;
    gint w, h;
  } steps[] = { {"RGBA", 64, 48}, {"NV12", 33, 17}, {"I420", 321, 241} };
  GError *err = NULL;
  GstElement *pipeline = cs_vk_parse_launch ("appsrc name=src format=time ! "
      "cudaupload ! cudatovulkan name=c2v ! vulkantocuda name=v2c ! "
      "cudadownload ! video/x-raw ! appsink name=sink sync=false", &err);
  GstElement *src, *sink;
  GPtrArray *want = g_ptr_array_new_with_free_func ((GDestroyNotify)
      g_bytes_unref);
  GPtrArray *got;
  GstBus *bus;
  GstMessage *msg;
  guint i, k, c, n = 0;

  fail_unless (pipeline != NULL, "%s", err ? err->message : "?");
  src = bc_by_name (pipeline, "src");
  sink = bc_by_name (pipeline, "sink");
  fail_if (gst_element_set_state (pipeline, GST_STATE_PLAYING) ==
      GST_STATE_CHANGE_FAILURE);

  for (i = 0; i < G_N_ELEMENTS (steps); i++) {
    GstVideoInfo info;
    GstCaps *caps = gst_caps_new_simple ("video/x-raw", "format",
        G_TYPE_STRING, steps[i].format, "width", G_TYPE_INT, steps[i].w,
        "height", G_TYPE_INT, steps[i].h, "framerate", GST_TYPE_FRACTION, 30,
        1, NULL);

    fail_unless (gst_video_info_from_caps (&info, caps));
    gst_app_src_set_caps (GST_APP_SRC (src), caps);
    gst_caps_unref (caps);
    for (k = 0; k < BC_N_BUFFERS; k++, n++) {
      GstBuffer *buf = bc_system_frame (&info, (guint8) (n * 13),
          n * (GST_SECOND / 30));
      g_ptr_array_add (want, cs_pattern_bytes (&info, (guint8) (n * 13)));
      fail_unless_equals_int (gst_app_src_push_buffer (GST_APP_SRC (src),
              buf), GST_FLOW_OK);
    }
  }
  gst_app_src_end_of_stream (GST_APP_SRC (src));

  got = bc_pull_all (pipeline, sink);
  bus = gst_element_get_bus (pipeline);
  msg = gst_bus_timed_pop_filtered (bus, 60 * GST_SECOND,
      GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  fail_unless (msg != NULL && GST_MESSAGE_TYPE (msg) == GST_MESSAGE_EOS,
      "renegotiation run did not reach EOS");
  gst_message_unref (msg);
  gst_object_unref (bus);

  bc_assert_same_frames (got, want, "renegotiation");
  /* vulkantocuda wraps its staging buffers for some of the caps only, and
   * cudaupload writes cudatovulkan's frames in place for some */
  for (i = 0, k = 0, c = 0; i < G_N_ELEMENTS (steps); i++) {
    GstVideoInfo info;

    fail_unless (gst_video_info_set_format (&info,
            gst_video_format_from_string (steps[i].format), steps[i].w,
            steps[i].h));
    k += bc_info_wrappable (&info) ? 0 : BC_N_BUFFERS;
    c += bc_info_in_place (bc_by_name (pipeline, "c2v"),
        &info) ? 0 : BC_N_BUFFERS;
  }
  bc_assert_stats_full (bc_by_name (pipeline, "c2v"), n, c);
  bc_assert_stats_full (bc_by_name (pipeline, "v2c"), n, k);
  bc_stop_pipeline (pipeline);
  g_ptr_array_unref (got);
  g_ptr_array_unref (want);
}

GST_END_TEST;

/* The fallback path under reordering: on the simulator every CUDA copy runs
 * 3 ms late (cudatovulkan must not hand Vulkan an image before its copy
 * ran; vulkantocuda must not overwrite a staging buffer whose CUDA copy has
 * not run). On a real GPU: a longer run of larger frames through the GPU
 * path. Both directions, byte-exact. */
GST_START_TEST (test_roundtrip_late_copies)
{
  static const gchar *fmts[] = { "RGBA", "NV12" };
  gint w = cs_is_sim ? 320 : 1920, h = cs_is_sim ? 240 : 1080;
  guint n = cs_is_sim ? 12 : 240, f;

  if (cs_is_sim)
    cs_sim.set_delay_us ("cuMemcpy2DAsync_v2", 3000);
  bc_store_checksums = TRUE;
  for (f = 0; f < G_N_ELEMENTS (fmts); f++) {
    gchar *src = g_strdup_printf ("videotestsrc num-buffers=%u pattern=ball "
        "! video/x-raw,format=%s,width=%d,height=%d,framerate=30/1", n,
        fmts[f], w, h);
    gchar *desc = g_strdup_printf ("%s ! cudaupload ! cudatovulkan name=c2v "
        "! vulkantocuda name=v2c ! cudadownload ! video/x-raw ! "
        "appsink name=sink sync=false", src);
    gchar *ref = g_strdup_printf ("%s ! appsink name=sink sync=false", src);
    GstElement *pipeline;
    GPtrArray *got, *want;

    got = bc_run_frames (&pipeline, desc);
    bc_assert_stats (bc_by_name (pipeline, "c2v"), n);
    bc_assert_stats (bc_by_name (pipeline, "v2c"), n);
    bc_stop_pipeline (pipeline);
    want = bc_run_frames (NULL, ref);
    bc_assert_same_frames (got, want, fmts[f]);
    g_ptr_array_unref (got);
    g_ptr_array_unref (want);
    g_free (ref);
    g_free (desc);
    g_free (src);
  }
  bc_store_checksums = FALSE;
  if (cs_is_sim)
    cs_sim.set_delay_us ("cuMemcpy2DAsync_v2", 0);
}

GST_END_TEST;

/* ---- vulkancolorconvert after cudatovulkan == after vulkanupload ---- */

static const struct
{
  const gchar *in, *out;
} conversions[] = {
  {"NV12", "RGBA"}, {"RGBA", "BGRA"}, {"RGBA", "NV12"}, {"NV12", "BGRx"},
};

GST_START_TEST (test_colorconvert_like_vulkanupload)
{
  static const gint csizes[][2] = { {64, 48}, {320, 240}, {34, 18} };
  guint c, s;

  for (c = 0; c < G_N_ELEMENTS (conversions); c++)
    for (s = 0; s < G_N_ELEMENTS (csizes); s++)
      bc_check_colorconvert (conversions[c].in, conversions[c].out,
          csizes[s][0], csizes[s][1], BC_N_BUFFERS, BC_VIA_VULKANUPLOAD, NULL);

  /* a real GPU: 4K frames keep the Vulkan queue busier than CUDA, which
   * then runs ahead (the case per-frame semaphores are for) */
  if (!cs_is_sim) {
    bc_store_checksums = TRUE;
    bc_check_colorconvert ("NV12", "RGBA", 3840, 2160, 60,
        BC_VIA_VULKANUPLOAD, NULL);
    bc_store_checksums = FALSE;
  }
}

GST_END_TEST;

/* Four branches in one pipeline, each with its own streaming thread, all
 * on the pipeline's one Vulkan device and queue object (asserted), as fast
 * as they go: two
 * cudatovulkan ! queue ! vulkandownload, two cudatovulkan ! queue !
 * vulkantocuda ! queue ! cudadownload. Every branch's frames (a moving ball
 * of its own colour) come back byte-exact and in order; on a real GPU with
 * no CPU wait. (Found on the H200: several bench pipelines sharing one
 * device lost it.) */
#define N_BRANCHES 4
#define N_CONCURRENT 150

typedef struct
{
  GstElement *sink;
  GPtrArray *frames;
} BranchPull;

static gpointer
branch_pull (gpointer data)
{
  BranchPull *bp = data;
  GstSample *sample;

  while ((sample = gst_app_sink_pull_sample (GST_APP_SINK (bp->sink)))) {
    GstVideoInfo info;
    GBytes *bytes;

    if (gst_video_info_from_caps (&info, gst_sample_get_caps (sample))) {
      bytes = cs_buffer_bytes (gst_sample_get_buffer (sample), &info);
      g_ptr_array_add (bp->frames, g_bytes_new_take
          (g_compute_checksum_for_bytes (G_CHECKSUM_SHA1, bytes), 40));
      g_bytes_unref (bytes);
    }
    gst_sample_unref (sample);
  }
  return NULL;
}

static gchar *
ball_src (guint i, guint n)
{
  static const guint32 colours[N_BRANCHES] = { 0xffff0000, 0xff00ff00,
    0xff0000ff, 0xffffff00
  };

  return g_strdup_printf ("videotestsrc num-buffers=%u pattern=ball "
      "foreground-color=%u ! video/x-raw,format=RGBA,width=160,height=120,"
      "framerate=30/1", n, colours[i]);
}

/* The GstVulkanQueue @name answers a queue context query with (a ref). */
static GstVulkanQueue *
element_queue (GstElement * pipeline, const gchar * name)
{
  GstPad *pad = gst_element_get_static_pad (bc_by_name (pipeline, name), "src");
  GstQuery *query = gst_query_new_context (GST_VULKAN_QUEUE_CONTEXT_TYPE_STR);
  GstVulkanQueue *queue = NULL;
  GstContext *context = NULL;

  fail_unless (gst_pad_query (pad, query), "%s answers no queue query", name);
  gst_query_parse_context (query, &context);
  fail_unless (context && gst_context_get_vulkan_queue (context, &queue) &&
      queue, "%s has no queue", name);
  gst_query_unref (query);
  gst_object_unref (pad);
  return queue;
}

GST_START_TEST (test_concurrent_branches)
{
  GString *desc = g_string_new (NULL);
  BranchPull bp[N_BRANCHES];
  GThread *threads[N_BRANCHES];
  GstElement *pipeline;
  GstBus *bus;
  GstMessage *msg;
  guint i, eos = 0;

  for (i = 0; i < N_BRANCHES; i++) {
    gchar *src = ball_src (i, N_CONCURRENT);
    gchar *consumer = i < 2 ? g_strdup_printf ("vulkandownload name=vd%u", i) :
        g_strdup_printf ("vulkantocuda name=v2c%u ! queue ! cudadownload", i);

    g_string_append_printf (desc, "%s ! cudaupload ! cudatovulkan name=c2v%u "
        "! queue ! %s ! video/x-raw ! appsink name=sink%u sync=false  ", src,
        i, consumer, i);
    g_free (consumer);
    g_free (src);
  }
  pipeline = cs_vk_parse_launch (desc->str, NULL);
  fail_unless (pipeline != NULL, "%s", desc->str);
  for (i = 0; i < N_BRANCHES; i++) {
    gchar *name = g_strdup_printf ("sink%u", i);

    bp[i].sink = bc_by_name (pipeline, name);
    bp[i].frames = g_ptr_array_new_with_free_func ((GDestroyNotify)
        g_bytes_unref);
    g_free (name);
  }
  fail_if (gst_element_set_state (pipeline, GST_STATE_PLAYING) ==
      GST_STATE_CHANGE_FAILURE);
  for (i = 0; i < N_BRANCHES; i++)
    threads[i] = g_thread_new ("pull", branch_pull, &bp[i]);

  /* the pipeline posts EOS once every sink has it */
  bus = gst_element_get_bus (pipeline);
  msg = gst_bus_timed_pop_filtered (bus, 120 * GST_SECOND,
      GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  if (msg && GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR) {
    GError *err = NULL;
    gchar *dbg = NULL;

    gst_message_parse_error (msg, &err, &dbg);
    fail ("error from %s: %s (%s)", GST_OBJECT_NAME (msg->src), err->message,
        dbg ? dbg : "");
  }
  fail_unless (msg != NULL, "the %u branches did not reach EOS in 120 s",
      N_BRANCHES);
  eos = 1;
  gst_message_unref (msg);
  gst_object_unref (bus);
  for (i = 0; i < N_BRANCHES; i++)
    g_thread_join (threads[i]);

  /* one device and one queue object (one submit lock) for all of them: the
   * first bridge shares its device with the pipeline, the vulkan elements
   * take the bridges' queue */
  {
    GstVulkanQueue *q0 = element_queue (pipeline, "c2v0");

    for (i = 0; i < N_BRANCHES; i++) {
      const gchar *kinds[2] = { "c2v%u", i < 2 ? "vd%u" : "v2c%u" };
      guint k;

      for (k = 0; k < 2; k++) {
        gchar *name = g_strdup_printf (kinds[k], i);
        GstVulkanQueue *q = element_queue (pipeline, name);

        fail_unless (q == q0, "%s submits through another GstVulkanQueue "
            "(%p, not %p): two submit locks for one VkQueue", name, q, q0);
        gst_object_unref (q);
        g_free (name);
      }
    }
    gst_object_unref (q0);
  }
  for (i = 0; i < N_BRANCHES; i++) {
    gchar *name = g_strdup_printf ("c2v%u", i);

    bc_assert_stats (bc_by_name (pipeline, name), N_CONCURRENT);
    g_free (name);
    if (i >= 2) {
      name = g_strdup_printf ("v2c%u", i);
      bc_assert_stats (bc_by_name (pipeline, name), N_CONCURRENT);
      g_free (name);
    }
  }
  bc_stop_pipeline (pipeline);

  for (i = 0; eos && i < N_BRANCHES; i++) {
    gchar *src = ball_src (i, N_CONCURRENT);
    gchar *ref = g_strdup_printf ("%s ! appsink name=sink sync=false", src);
    gchar *what = g_strdup_printf ("branch %u of %u at once", i, N_BRANCHES);
    GPtrArray *want;

    bc_store_checksums = TRUE;
    want = bc_run_frames (NULL, ref);
    bc_store_checksums = FALSE;
    bc_assert_same_frames (bp[i].frames, want, what);
    g_ptr_array_unref (want);
    g_ptr_array_unref (bp[i].frames);
    g_free (what);
    g_free (ref);
    g_free (src);
  }
  g_string_free (desc, TRUE);
}

GST_END_TEST;

static Suite *
cudavkroundtrip_suite (void)
{
  Suite *s = suite_create ("cudavkroundtrip");
  TCase *tc;

  tc = tcase_create ("general");
  suite_add_tcase (s, tc);
  tcase_add_checked_fixture (tc, cs_vk_setup, cs_vk_teardown);
  tcase_add_test (tc, test_roundtrip_bytes);
  tcase_add_test (tc, test_roundtrip_binary);
  tcase_add_test (tc, test_vulkan_buffer);
  tcase_add_test (tc, test_renegotiation);
  tcase_add_test (tc, test_roundtrip_late_copies);
  tcase_add_test (tc, test_concurrent_branches);
  tcase_add_test (tc, test_colorconvert_like_vulkanupload);
  return s;
}

int
main (int argc, char **argv)
{
  gst_check_init (&argc, &argv);
  return cs_vk_run_suite (cudavkroundtrip_suite (), "cudavkroundtrip",
      __FILE__);
}

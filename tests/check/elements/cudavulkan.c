/* gst-cudasync: cudatovulkan / vulkantocuda element tests
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * On the simulated driver the Vulkan side is Mesa lavapipe: main() gives
 * the simulator's device 0 lavapipe's deviceUUID (CUDASIM_DEVICE_UUID)
 * before anything loads libcuda, so the elements find "the same" device.
 * lavapipe cannot export semaphores: there the CPU fallback runs, one
 * cpu-sync per buffer in each element. On a real GPU the elements must not
 * synchronise on the CPU at all.
 */
#include "common.h"
#include <gst/app/app.h>
#include <gst/vulkan/vulkan.h>
#include <stdio.h>
#include <string.h>

#define N_BUFFERS 3

static const gchar *formats[] = { "RGBA", "BGRA", "RGBx", "NV12", "I420" };
static const gint sizes[][2] = { {64, 48}, {33, 17}, {321, 241} };

static void stop_pipeline (GstElement * pipeline);

static gboolean tight_rows;

/* GStreamer 1.22's vulkandownload copies each plane with bufferRowLength =
 * the plane's width, i.e. rows packed, into one memory per plane, while
 * its buffers' video meta / caps promise GstVideoInfo strides (rounded up
 * to 4): wrong for NV12/I420 widths that are not multiples of 4, even for
 * videotestsrc ! vulkanupload ! vulkandownload. With tight_rows set, read
 * the frame the way 1.22 wrote it: plane p = memory p, rows packed. */
static GBytes *
tight_bytes (GstBuffer * buf, const GstVideoInfo * info)
{
  GByteArray *arr = g_byte_array_new ();
  guint p, n = GST_VIDEO_INFO_N_PLANES (info);

  fail_unless_equals_int (gst_buffer_n_memory (buf), n);
  for (p = 0; p < n; p++) {
    GstMemory *mem = gst_buffer_peek_memory (buf, p);
    gint comp[GST_VIDEO_MAX_COMPONENTS];
    GstMapInfo map;
    gsize rb, rows;

    gst_video_format_info_component (info->finfo, p, comp);
    rb = GST_VIDEO_INFO_COMP_WIDTH (info, comp[0]) *
        GST_VIDEO_INFO_COMP_PSTRIDE (info, comp[0]);
    rows = GST_VIDEO_INFO_COMP_HEIGHT (info, comp[0]);
    fail_unless (gst_memory_map (mem, &map, GST_MAP_READ));
    fail_unless (map.size >= rb * rows);
    g_byte_array_append (arr, map.data, rb * rows);
    gst_memory_unmap (mem, &map);
  }
  return g_byte_array_free_to_bytes (arr);
}

/* The visible bytes of every buffer an appsink received until EOS. */
static GPtrArray *
pull_all (GstElement * pipeline, GstElement * sink)
{
  GPtrArray *frames = g_ptr_array_new_with_free_func ((GDestroyNotify)
      g_bytes_unref);
  GstSample *sample;

  while ((sample = gst_app_sink_pull_sample (GST_APP_SINK (sink)))) {
    GstVideoInfo info;
    GstCaps *caps = gst_sample_get_caps (sample);
    GstBuffer *buf = gst_sample_get_buffer (sample);

    fail_unless (caps && gst_video_info_from_caps (&info, caps));
    fail_unless (gst_caps_features_contains (gst_caps_get_features (caps, 0),
            GST_CAPS_FEATURE_MEMORY_SYSTEM_MEMORY), "appsink caps %"
        GST_PTR_FORMAT, caps);
    g_ptr_array_add (frames, tight_rows ? tight_bytes (buf, &info) :
        cs_buffer_bytes (buf, &info));
    gst_sample_unref (sample);
  }
  return frames;
}

/* Plays @desc (with an appsink named "sink") to EOS; returns the frames.
 * The pipeline stays PAUSED->PLAYING (not stopped) so that statistics can be
 * read before the elements shut down; the caller sets it to NULL. */
static GPtrArray *
run_frames (GstElement ** pipeline_out, const gchar * desc)
{
  GError *err = NULL;
  GstElement *pipeline = gst_parse_launch (desc, &err);
  GstElement *sink;
  GstBus *bus;
  GstMessage *msg;
  GPtrArray *frames;

  fail_unless (pipeline != NULL, "%s: %s", desc, err ? err->message : "?");
  sink = gst_bin_get_by_name (GST_BIN (pipeline), "sink");
  fail_unless (sink != NULL);
  fail_if (gst_element_set_state (pipeline, GST_STATE_PLAYING) ==
      GST_STATE_CHANGE_FAILURE, "%s: could not start", desc);
  frames = pull_all (pipeline, sink);

  bus = gst_element_get_bus (pipeline);
  msg = gst_bus_timed_pop_filtered (bus, 60 * GST_SECOND,
      GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  fail_unless (msg != NULL, "%s: timed out", desc);
  if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR) {
    gchar *dbg = NULL;
    gst_message_parse_error (msg, &err, &dbg);
    fail ("%s: error from %s: %s (%s)", desc, GST_OBJECT_NAME (msg->src),
        err->message, dbg ? dbg : "");
  }
  gst_message_unref (msg);
  gst_object_unref (bus);
  gst_object_unref (sink);

  if (pipeline_out)
    *pipeline_out = pipeline;
  else
    stop_pipeline (pipeline);
  return frames;
}

static void
stop_pipeline (GstElement * pipeline)
{
  fail_unless_equals_int (gst_element_set_state (pipeline, GST_STATE_NULL),
      GST_STATE_CHANGE_SUCCESS);
  gst_object_unref (pipeline);
}

static void
assert_same_frames (GPtrArray * got, GPtrArray * want, const gchar * what)
{
  guint i;

  fail_unless_equals_int (got->len, want->len);
  for (i = 0; i < got->len; i++) {
    GBytes *a = g_ptr_array_index (got, i), *b = g_ptr_array_index (want, i);
    gsize na, nb, j;
    const guint8 *da = g_bytes_get_data (a, &na);
    const guint8 *db = g_bytes_get_data (b, &nb);

    fail_unless_equals_uint64 (na, nb);
    if (memcmp (da, db, na) != 0) {
      for (j = 0; j < na && da[j] == db[j]; j++);
      fail ("%s: frame %u differs at visible byte %" G_GSIZE_FORMAT
          " of %" G_GSIZE_FORMAT " (0x%02x, want 0x%02x)", what, i, j, na,
          da[j], db[j]);
    }
  }
}

static gchar *
src_desc (const gchar * format, gint w, gint h)
{
  return g_strdup_printf ("videotestsrc num-buffers=%d pattern=smpte ! "
      "video/x-raw,format=%s,width=%d,height=%d,framerate=30/1", N_BUFFERS,
      format, w, h);
}

static GPtrArray *
reference_frames_via (const gchar * format, gint w, gint h, const gchar * via)
{
  gchar *src = src_desc (format, w, h);
  gchar *desc = g_strdup_printf ("%s ! %s ! appsink name=sink sync=false", src,
      via);
  GPtrArray *frames = run_frames (NULL, desc);

  g_free (desc);
  g_free (src);
  return frames;
}

static GPtrArray *
reference_frames (const gchar * format, gint w, gint h)
{
  return reference_frames_via (format, w, h, "identity");
}

static GstElement *
by_name (GstElement * pipeline, const gchar * name)
{
  GstElement *e = gst_bin_get_by_name (GST_BIN (pipeline), name);

  fail_unless (e != NULL, "no element %s", name);
  gst_object_unref (e);         /* the pipeline keeps it */
  return e;
}

/* buffers/copies/cpu-syncs of one bridge element after @n buffers */
static void
assert_stats (GstElement * e, guint64 n)
{
  const gchar *name = GST_OBJECT_NAME (e);

  fail_unless (cs_stat (e, "buffers") == n, "%s: buffers %" G_GUINT64_FORMAT
      " != %" G_GUINT64_FORMAT, name, cs_stat (e, "buffers"), n);
  fail_unless (cs_stat (e, "copies") == n, "%s: copies %" G_GUINT64_FORMAT
      " != %" G_GUINT64_FORMAT, name, cs_stat (e, "copies"), n);
  if (cs_is_sim) {
    /* lavapipe exports no semaphores: the CPU fallback, once a buffer */
    fail_unless (cs_stat (e, "cpu-syncs") == n, "%s: cpu-syncs %"
        G_GUINT64_FORMAT " != %" G_GUINT64_FORMAT " (lavapipe fallback)",
        name, cs_stat (e, "cpu-syncs"), n);
    fail_unless_equals_uint64 (cs_stat (e, "signals"), 0);
  } else {
    fail_unless (cs_stat (e, "cpu-syncs") == 0, "%s: %" G_GUINT64_FORMAT
        " CPU syncs on a real GPU", name, cs_stat (e, "cpu-syncs"));
    fail_unless_equals_uint64 (cs_stat (e, "signals"), n);
  }
}

GST_START_TEST (test_roundtrip_bytes)
{
  guint f, s;

  for (f = 0; f < G_N_ELEMENTS (formats); f++) {
    for (s = 0; s < G_N_ELEMENTS (sizes); s++) {
      gint w = sizes[s][0], h = sizes[s][1];
      gchar *src = src_desc (formats[f], w, h);
      gchar *desc = g_strdup_printf ("%s ! cudaupload ! cudatovulkan name=c2v "
          "! vulkantocuda name=v2c ! cudadownload ! video/x-raw ! "
          "appsink name=sink sync=false", src);
      gchar *what = g_strdup_printf ("round trip %s %dx%d", formats[f], w, h);
      GstElement *pipeline;
      GPtrArray *got, *want;

      GST_INFO ("%s", what);
      got = run_frames (&pipeline, desc);
      assert_stats (by_name (pipeline, "c2v"), N_BUFFERS);
      assert_stats (by_name (pipeline, "v2c"), N_BUFFERS);
      stop_pipeline (pipeline);
      want = reference_frames (formats[f], w, h);
      assert_same_frames (got, want, what);

      g_ptr_array_unref (got);
      g_ptr_array_unref (want);
      g_free (what);
      g_free (desc);
      g_free (src);
    }
  }
}

GST_END_TEST;

/* Whether this GStreamer's vulkandownload packs rows (see tight_bytes()):
 * the 1.22 series does. */
static gboolean
vulkandownload_packs_rows (void)
{
  GstPlugin *plugin = gst_registry_find_plugin (gst_registry_get (), "vulkan");
  guint major = 0, minor = 0;

  fail_unless (plugin != NULL);
  sscanf (gst_plugin_get_version (plugin), "%u.%u", &major, &minor);
  gst_object_unref (plugin);
  return major == 1 && minor <= 22;
}

GST_START_TEST (test_to_vulkandownload)
{
  guint f, s;

  for (f = 0; f < G_N_ELEMENTS (formats); f++) {
    for (s = 0; s < G_N_ELEMENTS (sizes); s++) {
      gint w = sizes[s][0], h = sizes[s][1];
      gchar *src = src_desc (formats[f], w, h);
      gchar *desc = g_strdup_printf ("%s ! cudaupload ! cudatovulkan name=c2v "
          "! vulkandownload ! video/x-raw ! appsink name=sink sync=false",
          src);
      gchar *what = g_strdup_printf ("cudatovulkan ! vulkandownload %s %dx%d",
          formats[f], w, h);
      GstElement *pipeline;
      GPtrArray *got, *want;

      GST_INFO ("%s", what);
      /* see tight_bytes(): only where 1.22's layout differs from the
       * caps' (checked below against vulkanupload ! vulkandownload) */
      tight_rows = (w % 4) != 0 && (!strcmp (formats[f], "NV12") ||
          !strcmp (formats[f], "I420")) && vulkandownload_packs_rows ();
      got = run_frames (&pipeline, desc);
      tight_rows = FALSE;
      assert_stats (by_name (pipeline, "c2v"), N_BUFFERS);
      stop_pipeline (pipeline);
      want = reference_frames (formats[f], w, h);
      assert_same_frames (got, want, what);

      g_ptr_array_unref (got);
      g_ptr_array_unref (want);
      g_free (what);
      g_free (desc);
      g_free (src);
    }
  }
}

GST_END_TEST;

/* A system-memory frame holding the pattern seeded with @seed. */
static GstBuffer *
system_frame (const GstVideoInfo * info, guint8 seed, GstClockTime pts)
{
  GstBuffer *buf = gst_buffer_new_allocate (NULL, info->size, NULL);
  GBytes *pattern = cs_pattern_bytes (info, seed);
  const guint8 *src = g_bytes_get_data (pattern, NULL);
  GstVideoFrame frame;
  guint p, y;

  fail_unless (gst_video_frame_map (&frame, (GstVideoInfo *) info, buf,
          GST_MAP_WRITE));
  for (p = 0; p < GST_VIDEO_FRAME_N_PLANES (&frame); p++) {
    guint rb, rows = GST_VIDEO_INFO_COMP_HEIGHT (info, p);
    gint comp[GST_VIDEO_MAX_COMPONENTS];

    gst_video_format_info_component (info->finfo, p, comp);
    rb = GST_VIDEO_INFO_COMP_WIDTH (info, comp[0]) *
        GST_VIDEO_INFO_COMP_PSTRIDE (info, comp[0]);
    for (y = 0; y < rows; y++) {
      memcpy ((guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&frame, p) +
          y * GST_VIDEO_FRAME_PLANE_STRIDE (&frame, p), src, rb);
      src += rb;
    }
  }
  gst_video_frame_unmap (&frame);
  g_bytes_unref (pattern);
  GST_BUFFER_PTS (buf) = pts;
  GST_BUFFER_DURATION (buf) = GST_SECOND / 30;
  return buf;
}

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
  GstElement *pipeline = gst_parse_launch ("appsrc name=src format=time ! "
      "cudaupload ! cudatovulkan name=c2v ! vulkantocuda name=v2c ! "
      "cudadownload ! video/x-raw ! appsink name=sink sync=false", &err);
  GstElement *src, *sink;
  GPtrArray *want = g_ptr_array_new_with_free_func ((GDestroyNotify)
      g_bytes_unref);
  GPtrArray *got;
  GstBus *bus;
  GstMessage *msg;
  guint i, k, n = 0;

  fail_unless (pipeline != NULL, "%s", err ? err->message : "?");
  src = by_name (pipeline, "src");
  sink = by_name (pipeline, "sink");
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
    for (k = 0; k < N_BUFFERS; k++, n++) {
      GstBuffer *buf = system_frame (&info, (guint8) (n * 13),
          n * (GST_SECOND / 30));
      g_ptr_array_add (want, cs_pattern_bytes (&info, (guint8) (n * 13)));
      fail_unless_equals_int (gst_app_src_push_buffer (GST_APP_SRC (src),
              buf), GST_FLOW_OK);
    }
  }
  gst_app_src_end_of_stream (GST_APP_SRC (src));

  got = pull_all (pipeline, sink);
  bus = gst_element_get_bus (pipeline);
  msg = gst_bus_timed_pop_filtered (bus, 60 * GST_SECOND,
      GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  fail_unless (msg != NULL && GST_MESSAGE_TYPE (msg) == GST_MESSAGE_EOS,
      "renegotiation run did not reach EOS");
  gst_message_unref (msg);
  gst_object_unref (bus);

  assert_same_frames (got, want, "renegotiation");
  assert_stats (by_name (pipeline, "c2v"), n);
  assert_stats (by_name (pipeline, "v2c"), n);
  stop_pipeline (pipeline);
  g_ptr_array_unref (got);
  g_ptr_array_unref (want);
}

GST_END_TEST;

/* System memory under CUDA caps: an error message, not a crash. */
GST_START_TEST (test_bad_input)
{
  GError *err = NULL;
  GstElement *pipeline = gst_parse_launch ("appsrc name=src format=time "
      "caps=video/x-raw(memory:CUDAMemory),format=RGBA,width=64,height=48,"
      "framerate=30/1 ! cudatovulkan name=c2v ! fakesink", &err);
  GstElement *src;
  GstVideoInfo info;
  GstBus *bus;
  GstMessage *msg;
  GError *perr = NULL;

  fail_unless (pipeline != NULL, "%s", err ? err->message : "?");
  src = by_name (pipeline, "src");
  bus = gst_element_get_bus (pipeline);
  fail_if (gst_element_set_state (pipeline, GST_STATE_PLAYING) ==
      GST_STATE_CHANGE_FAILURE);
  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_RGBA, 64, 48);
  gst_app_src_push_buffer (GST_APP_SRC (src), system_frame (&info, 1, 0));
  gst_app_src_end_of_stream (GST_APP_SRC (src));

  msg = gst_bus_timed_pop_filtered (bus, 60 * GST_SECOND,
      GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  fail_unless (msg != NULL, "timed out");
  fail_unless_equals_int (GST_MESSAGE_TYPE (msg), GST_MESSAGE_ERROR);
  gst_message_parse_error (msg, &perr, NULL);
  fail_unless (GST_MESSAGE_SRC (msg) == GST_OBJECT (by_name (pipeline,
              "c2v")));
  fail_unless (perr->domain == GST_STREAM_ERROR, "domain %s",
      g_quark_to_string (perr->domain));
  fail_unless (strstr (perr->message, "not CUDA memory") != NULL, "%s",
      perr->message);
  g_error_free (perr);
  gst_message_unref (msg);
  gst_object_unref (bus);
  stop_pipeline (pipeline);
}

GST_END_TEST;

static Suite *
cudavulkan_suite (void)
{
  Suite *s = suite_create ("cudavulkan");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_checked_fixture (tc, cs_setup, cs_teardown);
  tcase_add_test (tc, test_roundtrip_bytes);
  tcase_add_test (tc, test_to_vulkandownload);
  tcase_add_test (tc, test_renegotiation);
  tcase_add_test (tc, test_bad_input);
  return s;
}

/* The deviceUUID of the first Vulkan device with VK_KHR_external_memory_fd
 * as 32 hex digits, or NULL. */
static gchar *
vulkan_interop_uuid (void)
{
  GstVulkanInstance *instance = gst_vulkan_instance_new ();
  PFN_vkGetPhysicalDeviceProperties2 get_props2;
  gchar *ret = NULL;
  guint i;

  if (!gst_vulkan_instance_open (instance, NULL))
    goto out;
  get_props2 = gst_vulkan_instance_get_proc_address (instance,
      "vkGetPhysicalDeviceProperties2");
  for (i = 0; get_props2 && !ret && i < instance->n_physical_devices; i++) {
    GstVulkanPhysicalDevice *pd =
        gst_vulkan_physical_device_new (instance, i);
    VkPhysicalDeviceIDProperties id = { 0, };
    VkPhysicalDeviceProperties2 p2 = { 0, };
    GString *hex;
    guint k;

    if (!pd)
      continue;
    if (gst_vulkan_physical_device_get_extension_info (pd,
            "VK_KHR_external_memory_fd", NULL)) {
      id.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_ID_PROPERTIES;
      p2.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2;
      p2.pNext = &id;
      get_props2 (pd->device, &p2);
      hex = g_string_new (NULL);
      for (k = 0; k < VK_UUID_SIZE; k++)
        g_string_append_printf (hex, "%02x", id.deviceUUID[k]);
      ret = g_string_free (hex, FALSE);
    }
    gst_object_unref (pd);
  }
out:
  gst_object_unref (instance);
  return ret;
}

int
main (int argc, char **argv)
{
  gchar *uuid;

  gst_check_init (&argc, &argv);
  /* Only for the simulated driver, whose device must look like the Vulkan
   * one (lavapipe). Not with a real driver: the NVIDIA Vulkan driver must not
   * be initialised before check forks the tests (vkCreateDevice then fails
   * in the children with VK_ERROR_INITIALIZATION_FAILED, seen on the H200). */
  if (g_strcmp0 (g_getenv ("CUDASYNC_TEST_DRIVER"), "sim") == 0) {
    uuid = vulkan_interop_uuid ();
    if (!uuid) {
      g_print ("no Vulkan device with VK_KHR_external_memory_fd: skipping\n");
      return 77;
    }
    if (!g_getenv ("CUDASIM_DEVICE_UUID"))
      g_setenv ("CUDASIM_DEVICE_UUID", uuid, TRUE);
    g_free (uuid);
  }
  return gst_check_run_suite (cudavulkan_suite (), "cudavulkan", __FILE__);
}

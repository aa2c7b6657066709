/* gst-cudasync: the bridge elements' errors: bad input, size limits, devices
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Helpers and what the simulator runs in place of a GPU: bridgecommon.h.
 *
 * Tests:
 * test_bad_input: system memory under CUDA caps: a STREAM error from
 *     cudatovulkan, no crash
 * test_image_over_limit: frames over maxImageDimension2D: a negotiation
 *     error naming the limit and the size
 * test_buffers_over_image_limit: frames over the image limit go as
 *     memory:VulkanBuffer, byte-exact
 * test_uuid_mismatch: (simulator) a Vulkan device that is not the CUDA
 *     device: an error naming the UUID
 * test_no_cuda_device: (simulator) a driver without devices: an element
 *     error, not an abort
 * test_device1_bridge: cuda-device-id=1: an error naming the UUID
 *     (simulator), the GPU path (two GPUs)
 * test_device0_vulkan_on_device1: device 0's Vulkan device given to an
 *     element on device 1: an error
 */
#include "bridgecommon.h"
#include "vkutil.h"
#include <string.h>

/* System memory under CUDA caps: an error message, not a crash. */
GST_START_TEST (test_bad_input)
{
  GError *err = NULL;
  GstElement *pipeline = cs_vk_parse_launch ("appsrc name=src format=time "
      "caps=video/x-raw(memory:CUDAMemory),format=RGBA,width=64,height=48,"
      "framerate=30/1 ! cudatovulkan name=c2v ! fakesink", &err);
  GstElement *src;
  GstVideoInfo info;
  GstBus *bus;
  GstMessage *msg;
  GError *perr = NULL;

  fail_unless (pipeline != NULL, "%s", err ? err->message : "?");
  src = bc_by_name (pipeline, "src");
  bus = gst_element_get_bus (pipeline);
  fail_if (gst_element_set_state (pipeline, GST_STATE_PLAYING) ==
      GST_STATE_CHANGE_FAILURE);
  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_RGBA, 64, 48);
  gst_app_src_push_buffer (GST_APP_SRC (src), bc_system_frame (&info, 1, 0));
  gst_app_src_end_of_stream (GST_APP_SRC (src));

  msg = gst_bus_timed_pop_filtered (bus, 60 * GST_SECOND,
      GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  fail_unless (msg != NULL, "timed out");
  fail_unless_equals_int (GST_MESSAGE_TYPE (msg), GST_MESSAGE_ERROR);
  gst_message_parse_error (msg, &perr, NULL);
  fail_unless (GST_MESSAGE_SRC (msg) == GST_OBJECT (bc_by_name (pipeline,
              "c2v")));
  fail_unless (perr->domain == GST_STREAM_ERROR, "domain %s",
      g_quark_to_string (perr->domain));
  fail_unless (strstr (perr->message, "not CUDA memory") != NULL, "%s",
      perr->message);
  g_error_free (perr);
  gst_message_unref (msg);
  gst_object_unref (bus);
  /* after an error: no EOS, and no vulkan element to drain */
  bc_stop_pipeline_full (pipeline, FALSE);
}

GST_END_TEST;

/* maxImageDimension2D of the Vulkan device the bridge shares with CUDA
 * device 0 (lavapipe: 16384) */
static guint
image_limit (void)
{
  GstVulkanInstance *instance = gst_vulkan_instance_new ();
  GstVulkanPhysicalDevice *pd;
  gchar name[VK_MAX_PHYSICAL_DEVICE_NAME_SIZE], *hex, *uuid = NULL;
  guint8 cuda_uuid[16];
  guint limit;
  gint idx;

  fail_unless (gst_cuda_sync_context_get_uuid (cs_ctx, cuda_uuid, NULL));
  hex = vk_util_hex_uuid (cuda_uuid);
  fail_unless (gst_vulkan_instance_open (instance, NULL));
  idx = vk_util_find_device (instance, hex, name, &uuid, NULL);
  fail_unless (idx >= 0, "no Vulkan device of CUDA device 0 (%s)", hex);
  pd = gst_vulkan_physical_device_new (instance, idx);
  limit = pd->properties.limits.maxImageDimension2D;
  gst_object_unref (pd);
  gst_object_unref (instance);
  g_free (uuid);
  g_free (hex);
  return limit;
}

/* Frames larger than the device's images can be: cudatovulkan refuses
 * image output with a negotiation error naming the limit and the size (it
 * used to create the images anyway: VUID-VkImageCreateInfo-extent-02252,
 * and the pipeline ran on) */
GST_START_TEST (test_image_over_limit)
{
  static const struct
  {
    const gchar *format;
    gboolean tall;
  } cases[] = { {"RGBA", FALSE}, {"NV12", FALSE}, {"RGBA", TRUE} };
  guint limit = image_limit (), i;

  for (i = 0; i < G_N_ELEMENTS (cases); i++) {
    gint w = cases[i].tall ? 16 : (gint) limit + 1;
    gint h = cases[i].tall ? (gint) limit + 1 : 16;
    gchar *desc = g_strdup_printf ("videotestsrc num-buffers=1 ! "
        "video/x-raw,format=%s,width=%d,height=%d ! cudaupload ! "
        "cudatovulkan name=c2v ! vulkandownload ! fakesink", cases[i].format,
        w, h);
    gchar *size = g_strdup_printf ("%dx%d", w, h);
    gchar *max = g_strdup_printf ("maxImageDimension2D %u", limit);
    GstElement *pipeline = gst_parse_launch (desc, NULL);
    GstBus *bus = gst_element_get_bus (pipeline);
    GstMessage *msg;
    GError *err = NULL;
    gchar *dbg = NULL;

    gst_element_set_state (pipeline, GST_STATE_PLAYING);
    msg = gst_bus_timed_pop_filtered (bus, 60 * GST_SECOND,
        GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
    fail_unless (msg != NULL, "%s: timed out", desc);
    fail_unless (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR,
        "%s: no error", desc);
    gst_message_parse_error (msg, &err, &dbg);
    fail_unless (GST_MESSAGE_SRC (msg) == GST_OBJECT (bc_by_name (pipeline,
                "c2v")), "%s: error from %s: %s", desc,
        GST_OBJECT_NAME (GST_MESSAGE_SRC (msg)), err->message);
    fail_unless (g_error_matches (err, GST_CORE_ERROR,
            GST_CORE_ERROR_NEGOTIATION), "%s: %s", desc, err->message);
    fail_unless (strstr (err->message, size) && strstr (err->message, max),
        "%s: %s", desc, err->message);
    GST_INFO ("%s (%s)", err->message, dbg);
    g_clear_error (&err);
    g_free (dbg);
    gst_message_unref (msg);
    gst_object_unref (bus);
    bc_stop_pipeline_full (pipeline, FALSE);
    g_free (desc);
    g_free (size);
    g_free (max);
  }
}

GST_END_TEST;

/* Frames over the image limit go as memory:VulkanBuffer where downstream
 * takes buffers: cudatovulkan ! vulkantocuda byte for byte, vulkantocuda's
 * staging buffers included */
GST_START_TEST (test_buffers_over_image_limit)
{
  gint w = (gint) image_limit () + 1;
  gchar *src = bc_src_desc ("RGBA", w, 16);
  gchar *desc = g_strdup_printf ("%s ! cudaupload ! cudatovulkan name=c2v ! "
      "vulkantocuda name=v2c ! cudadownload ! video/x-raw ! appsink "
      "name=sink sync=false", src);
  GstElement *pipeline;
  GPtrArray *got = bc_run_frames (&pipeline, desc), *want;
  GstPad *pad =
      gst_element_get_static_pad (bc_by_name (pipeline, "c2v"), "src");
  GstCaps *caps = gst_pad_get_current_caps (pad);
  gchar *str = gst_caps_to_string (caps);

  fail_unless (caps && gst_caps_features_contains (gst_caps_get_features
          (caps, 0), GST_CAPS_FEATURE_MEMORY_VULKAN_BUFFER), "%s", str);
  g_free (str);
  gst_caps_unref (caps);
  gst_object_unref (pad);
  fail_unless_equals_uint64 (cs_stat (bc_by_name (pipeline, "v2c"), "buffers"),
      BC_N_BUFFERS);
  bc_stop_pipeline (pipeline);
  want = bc_reference_frames ("RGBA", w, 16);
  bc_assert_same_frames (got, want, "frames over the image limit as buffers");
  g_ptr_array_unref (got);
  g_ptr_array_unref (want);
  g_free (desc);
  g_free (src);
}

GST_END_TEST;

/* A Vulkan device that is not the CUDA device is refused with a clear error
 * (simulator only: its device UUID is what CUDASIM_DEVICE_UUID says, read at
 * each cuDeviceGetUuid call). */
GST_START_TEST (test_uuid_mismatch)
{
  GError *err = NULL;
  GstElement *pipeline;
  GstStateChangeReturn ret;
  GstBus *bus;
  GstMessage *msg;
  GError *perr = NULL;
  gchar *saved;

  if (!cs_is_sim) {
    GST_INFO ("needs the simulated driver's UUID override: skipped");
    return;
  }
  saved = g_strdup (g_getenv ("CUDASIM_DEVICE_UUID"));
  g_setenv ("CUDASIM_DEVICE_UUID", "0123456789abcdef0123456789abcdef", TRUE);
  pipeline = cs_vk_parse_launch ("videotestsrc num-buffers=1 ! "
      "video/x-raw,format=RGBA,width=64,height=48 ! cudaupload ! "
      "cudatovulkan name=c2v ! vulkandownload ! fakesink", &err);
  fail_unless (pipeline != NULL, "%s", err ? err->message : "?");
  bus = gst_element_get_bus (pipeline);
  ret = gst_element_set_state (pipeline, GST_STATE_PLAYING);
  msg = gst_bus_timed_pop_filtered (bus, 30 * GST_SECOND,
      GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  fail_unless (msg != NULL, "timed out (state change %d)", ret);
  fail_unless_equals_int (GST_MESSAGE_TYPE (msg), GST_MESSAGE_ERROR);
  gst_message_parse_error (msg, &perr, NULL);
  fail_unless (strstr (perr->message, "UUID") != NULL, "%s", perr->message);
  g_error_free (perr);
  gst_message_unref (msg);
  gst_object_unref (bus);
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (pipeline);
  if (saved)
    g_setenv ("CUDASIM_DEVICE_UUID", saved, TRUE);
  else
    g_unsetenv ("CUDASIM_DEVICE_UUID");
  g_free (saved);
}

GST_END_TEST;

/* cuda-device-id=1 on both bridge elements: each opens CUDA device 1 and
 * the Vulkan device with device 1's UUID. On the simulator no Vulkan
 * device has it (lavapipe is given device 0's): an element error naming
 * device 1's UUID and the Vulkan devices'. With a second GPU: the frames
 * go through on the GPU path. */
GST_START_TEST (test_device1_bridge)
{
  static const gchar *const descs[] = {
    "videotestsrc num-buffers=3 ! video/x-raw,format=RGBA,width=64,height=48 "
        "! cudaupload cuda-device-id=1 ! cudatovulkan name=e cuda-device-id=1 "
        "! vulkandownload ! fakesink",
    "videotestsrc num-buffers=3 ! video/x-raw,format=RGBA,width=64,height=48 "
        "! vulkanupload ! vulkantocuda name=e cuda-device-id=1 ! fakesink",
  };
  GstCudaContext *ctx1 = cs_second_device ("test_device1_bridge");
  guint8 uuid[16];
  gchar *want;
  guint i;

  if (!ctx1)
    return;
  fail_unless (gst_cuda_sync_context_get_uuid (ctx1, uuid, NULL));
  want = g_strdup_printf ("%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-"
      "%02x%02x%02x%02x%02x%02x", uuid[0], uuid[1], uuid[2], uuid[3], uuid[4],
      uuid[5], uuid[6], uuid[7], uuid[8], uuid[9], uuid[10], uuid[11],
      uuid[12], uuid[13], uuid[14], uuid[15]);
  for (i = 0; i < G_N_ELEMENTS (descs); i++) {
    GstElement *pipeline;
    gchar *error = cs_run_to_end (descs[i], &pipeline);

    if (cs_is_sim) {
      fail_unless (error != NULL, "%s: no error", descs[i]);
      fail_unless (g_str_has_prefix (error, "e: ") && strstr (error,
              "No Vulkan device has the UUID of the CUDA device") &&
          strstr (error, want), "%s (want UUID %s)", error, want);
    } else {
      /* a second GPU whose Vulkan device the element found */
      fail_unless (error == NULL, "%s", error);
      fail_unless_equals_uint64 (cs_stat (bc_by_name (pipeline, "e"),
              "cpu-syncs"), 0);
    }
    g_free (error);
    gst_object_unref (pipeline);
  }
  g_free (want);
  gst_object_unref (ctx1);
}

GST_END_TEST;

/* The Vulkan device of CUDA device 0 given (GstContext) to a bridge
 * element on CUDA device 1: an element error naming both UUIDs, on the
 * simulator and on two GPUs alike */
GST_START_TEST (test_device0_vulkan_on_device1)
{
  GstCudaContext *ctx1 = cs_second_device ("test_device0_vulkan_on_device1");
  gchar name[VK_MAX_PHYSICAL_DEVICE_NAME_SIZE], *hex0, *vk_uuid = NULL;
  GstVulkanInstance *instance;
  GstVulkanDevice *device;
  GstElement *pipeline, *e;
  GstContext *context;
  guint8 uuid[16];
  gchar *error;
  gint idx;

  if (!ctx1)
    return;
  fail_unless (gst_cuda_sync_context_get_uuid (cs_ctx, uuid, NULL));
  hex0 = vk_util_hex_uuid (uuid);
  instance = gst_vulkan_instance_new ();
  fail_unless (gst_vulkan_instance_open (instance, NULL));
  idx = vk_util_find_device (instance, hex0, name, &vk_uuid, NULL);
  fail_unless (idx >= 0, "no Vulkan device of CUDA device 0 (%s)", hex0);
  device = gst_vulkan_device_new_with_index (instance, idx);

  pipeline = cs_vk_parse_launch ("videotestsrc num-buffers=2 ! "
      "video/x-raw,format=RGBA,width=64,height=48 ! cudaupload "
      "cuda-device-id=1 ! cudatovulkan name=e cuda-device-id=1 ! "
      "fakesink", NULL);
  e = bc_by_name (pipeline, "e");
  context = gst_context_new (GST_VULKAN_INSTANCE_CONTEXT_TYPE_STR, TRUE);
  gst_context_set_vulkan_instance (context, instance);
  gst_element_set_context (e, context);
  gst_context_unref (context);
  context = gst_context_new (GST_VULKAN_DEVICE_CONTEXT_TYPE_STR, TRUE);
  gst_context_set_vulkan_device (context, device);
  gst_element_set_context (e, context);
  gst_context_unref (context);
  error = cs_play_to_end (pipeline);
  fail_unless (error != NULL, "no error");
  fail_unless (g_str_has_prefix (error, "e: ") && strstr (error,
          "is not the CUDA device"), "%s", error);
  GST_INFO ("%s", error);
  g_free (error);
  gst_object_unref (pipeline);
  gst_object_unref (device);
  gst_object_unref (instance);
  g_free (vk_uuid);
  g_free (hex0);
  gst_object_unref (ctx1);
}

GST_END_TEST;

/* A driver without devices: an element error, not an abort */
GST_START_TEST (test_no_cuda_device)
{
  GstElement *pipeline;
  gchar *error;

  if (g_strcmp0 (g_getenv ("CUDASYNC_TEST_DRIVER"), "sim") != 0) {
    g_print ("SKIP: test_no_cuda_device: the simulated driver's "
        "CUDASIM_DEVICE_COUNT only\n");
    return;
  }
  g_setenv ("CUDASIM_DEVICE_COUNT", "0", TRUE);
  error = cs_run_to_end ("videotestsrc num-buffers=3 ! "
      "video/x-raw,format=RGBA,width=64,height=48 ! vulkanupload ! "
      "vulkantocuda name=v2c ! fakesink", &pipeline);
  fail_unless (error != NULL, "no error without a CUDA device");
  fail_unless (g_str_has_prefix (error, "v2c: "), "%s", error);
  fail_unless (strstr (error, "CUDA") != NULL, "%s", error);
  GST_INFO ("%s", error);
  g_free (error);
  gst_object_unref (pipeline);
}

GST_END_TEST;

static Suite *
cudavkfailure_suite (void)
{
  Suite *s = suite_create ("cudavkfailure");
  TCase *tc;

  tc = tcase_create ("general");
  suite_add_tcase (s, tc);
  tcase_add_checked_fixture (tc, cs_vk_setup, cs_vk_teardown);
  tcase_add_test (tc, test_bad_input);
  tcase_add_test (tc, test_image_over_limit);
  tcase_add_test (tc, test_buffers_over_image_limit);
  tcase_add_test (tc, test_uuid_mismatch);
  /* without cs_setup(), which loads libgstcuda's driver entry points */
  tc = tcase_create ("loading");
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_no_cuda_device);
  tc = tcase_create ("devices");
  suite_add_tcase (s, tc);
  tcase_add_checked_fixture (tc, cs_vk_setup_two_devices, cs_vk_teardown);
  tcase_add_test (tc, test_device1_bridge);
  tcase_add_test (tc, test_device0_vulkan_on_device1);
  return s;
}

int
main (int argc, char **argv)
{
  gst_check_init (&argc, &argv);
  return cs_vk_run_suite (cudavkfailure_suite (), "cudavkfailure", __FILE__);
}

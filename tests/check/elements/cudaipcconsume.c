/* gst-cudasync
 * Copyright (C) 2026 gst-cudasync developers
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * tools/cudasync-ipc-consume, the protocol's minimal receiver (a program
 * of its own, no element), against cudasyncipcsink.
 *
 * Tests:
 * test_consumer_tool: reading with the CUDA driver API, it gets all 20
 *     frames byte-exact (hashes of the visible bytes) and says goodbye
 * test_consumer_tool_vulkan: the same reading with Vulkan alone (a GPU
 *     only: skipped on the simulator); with --setup vkvalidation, the
 *     Khronos validation layer (synchronization validation on) reports
 *     nothing in the tool
 */
#include "../ipccommon.h"
#include <gst/app/gstappsink.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* FNV-1a over the visible bytes of every plane, as cudasync-ipc-consume
 * prints it */
static guint64
frame_hash (GstBuffer * buf, const GstVideoInfo * info)
{
  guint64 hash = 0xcbf29ce484222325ull;
  GstVideoFrame f;
  guint p, i;
  gint y;

  fail_unless (gst_video_frame_map (&f, info, buf, GST_MAP_READ));
  for (p = 0; p < GST_VIDEO_FRAME_N_PLANES (&f); p++) {
    guint bytes = GST_VIDEO_FRAME_COMP_WIDTH (&f, p) *
        GST_VIDEO_FRAME_COMP_PSTRIDE (&f, p);
    for (y = 0; y < GST_VIDEO_FRAME_COMP_HEIGHT (&f, p); y++) {
      const guint8 *row = (guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&f, p) +
          y * GST_VIDEO_FRAME_PLANE_STRIDE (&f, p);
      for (i = 0; i < bytes; i++)
        hash = (hash ^ row[i]) * 0x100000001b3ull;
    }
  }
  gst_video_frame_unmap (&f);
  return hash;
}

/* the hash of videotestsrc's (still) frame at W x H */
static guint64
reference_hash (void)
{
  gchar *desc = g_strdup_printf ("videotestsrc " PATTERN " num-buffers=1 ! "
      "video/x-raw,format=" FORMAT ",width=%d,height=%d ! appsink name=out",
      W, H);
  GstElement *p = gst_parse_launch (desc, NULL);
  GstElement *out = gst_bin_get_by_name (GST_BIN (p), "out");
  GstSample *sample;
  GstVideoInfo info;
  guint64 hash;

  gst_element_set_state (p, GST_STATE_PLAYING);
  sample = gst_app_sink_try_pull_sample (GST_APP_SINK (out), 20 * GST_SECOND);
  fail_unless (sample != NULL);
  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_NV12, W, H);
  hash = frame_hash (gst_sample_get_buffer (sample), &info);
  gst_sample_unref (sample);
  gst_element_set_state (p, GST_STATE_NULL);
  gst_object_unref (out);
  gst_object_unref (p);
  g_free (desc);
  return hash;
}

/* the tool, reading with @backend (NULL: CUDA, "--vulkan"), gets all 20
 * frames from the sink: each frame's visible bytes hash to videotestsrc's,
 * the sink gets 20 releases, and the tool leaves with a goodbye */
static void
consume (const gchar * backend)
{
  const guint n = 20;
  const gchar *tool = g_getenv ("CUDASYNC_IPC_CONSUME");
  gchar *path = g_strdup_printf ("%s/cudaipc-ct%d.sock", g_get_tmp_dir (),
      getpid ());
  gchar *desc = g_strdup_printf ("videotestsrc " PATTERN " num-buffers=%u ! "
      "video/x-raw,format=" FORMAT ",width=%d,height=%d,framerate=30/1 ! "
      "cudaupload ! cudasyncipcsink name=sink max-buffers=3 sync=false "
      "socket-path=%s", n, W, H, path);
  GstElement *p = gst_parse_launch (desc, NULL);
  GstElement *sink = gst_bin_get_by_name (GST_BIN (p), "sink");
  gchar *nstr = g_strdup_printf ("%u", n), *line, *out;
  const gchar *argv[] = { tool, backend ? backend : path,
    backend ? path : nstr, backend ? nstr : NULL, NULL
  };
  gchar **lines;
  GError *err = NULL;
  gint out_fd, status;
  guint i, frames = 0;
  GPid pid;

  fail_unless (tool != NULL, "CUDASYNC_IPC_CONSUME is not set");
  ipc_connect_new_semaphore (p, "sink");
  fail_unless (gst_element_set_state (p, GST_STATE_PAUSED) !=
      GST_STATE_CHANGE_FAILURE);
  fail_unless (g_spawn_async_with_pipes (NULL, (gchar **) argv, NULL,
          G_SPAWN_DO_NOT_REAP_CHILD, NULL, NULL, &pid, NULL, &out_fd, NULL,
          &err), "%s", err ? err->message : "");
  fail_unless_equals_uint64 (ipc_wait_stat (sink, "sessions", 1), 1);
  gst_element_set_state (p, GST_STATE_PLAYING);
  out = ipc_read_all (out_fd);
  waitpid (pid, &status, 0);
  g_print ("%s", out);
  fail_unless (WIFEXITED (status) && WEXITSTATUS (status) == 0,
      "the consumer failed: %s", out);
  /* under the validation layer (meson test --setup vkvalidation), which
   * writes its messages to the tool's stdout: none */
  if (g_getenv ("CUDASYNC_TEST_VK_VALIDATION"))
    fail_if (strstr (out, "Validation Error") != NULL ||
        strstr (out, "Validation Warning") != NULL, "%s", out);
  line = g_strdup_printf ("hash %016" G_GINT64_MODIFIER "x", reference_hash ());
  lines = g_strsplit (out, "\n", -1);
  for (i = 0; lines[i]; i++) {
    if (!g_str_has_prefix (lines[i], "frame "))
      continue;
    fail_unless (g_str_has_suffix (lines[i], line), "%s, want %s", lines[i],
        line);
    frames++;
  }
  fail_unless_equals_int (frames, n);
  fail_unless_equals_uint64 (ipc_wait_stat (sink, "releases", n), n);
  fail_unless_equals_uint64 (ipc_sessions_gone (sink), 0);
  gst_element_set_state (p, GST_STATE_NULL);
  g_strfreev (lines);
  g_free (line);
  g_free (out);
  g_free (nstr);
  gst_object_unref (sink);
  gst_object_unref (p);
  g_free (desc);
  g_free (path);
}

GST_START_TEST (test_consumer_tool)
{
  consume (NULL);
}

GST_END_TEST;

/* the same read with Vulkan alone: the sink's memory imported as a
 * VkBuffer, its acquire semaphore and the tool's release semaphore as
 * Vulkan timelines, no CUDA call in the tool (a GPU whose Vulkan device
 * has the CUDA device's UUID) */
GST_START_TEST (test_consumer_tool_vulkan)
{
  if (cs_is_sim) {
    g_print ("SKIP: the simulator's memory and semaphores are not "
        "Vulkan's\n");
    return;
  }
  consume ("--vulkan");
}

GST_END_TEST;

static Suite *
cudaipcconsume_suite (void)
{
  Suite *s = suite_create ("cudaipcconsume");
  TCase *tc = tcase_create ("general");

  tcase_add_checked_fixture (tc, cs_setup, cs_teardown);
  tcase_add_test (tc, test_consumer_tool);
  tcase_add_test (tc, test_consumer_tool_vulkan);
  suite_add_tcase (s, tc);
  return s;
}

IPC_CHECK_MAIN (cudaipcconsume);

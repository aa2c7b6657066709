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
 * test_consumer_tool_decode: H.264 high profile with B-frames at 642x362
 *     and 4K, decoded into the sink (nvh264dec on a GPU, openh264dec !
 *     cudaupload on the simulator): the CUDA reader, and on a GPU the
 *     Vulkan reader, get the decoder's bytes frame by frame
 */
#include "../ipccommon.h"
#include <gst/app/gstappsink.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* FNV-1a over a frame's visible bytes (cs_buffer_bytes()), as
 * cudasync-ipc-consume prints it */
static guint64
bytes_hash (GBytes * bytes)
{
  guint64 hash = 0xcbf29ce484222325ull;
  gsize i, size;
  const guint8 *b = g_bytes_get_data (bytes, &size);

  for (i = 0; i < size; i++)
    hash = (hash ^ b[i]) * 0x100000001b3ull;
  return hash;
}

/* the hashes of the frames of @upstream (CUDA memory) ! cudadownload, in
 * order */
static GArray *
reference_hashes (const gchar * upstream)
{
  gchar *desc = g_strdup_printf ("%s ! cudadownload ! appsink name=out "
      "sync=false emit-signals=true", upstream);
  GError *err = NULL;
  GstElement *p = gst_parse_launch (desc, &err);
  GstElement *out;
  GPtrArray *frames = g_ptr_array_new_with_free_func ((GDestroyNotify)
      g_bytes_unref);
  GArray *hashes = g_array_new (FALSE, FALSE, sizeof (guint64));
  guint i;

  fail_unless (p != NULL, "%s: %s", desc, err ? err->message : "");
  out = gst_bin_get_by_name (GST_BIN (p), "out");
  g_signal_connect (out, "new-sample", G_CALLBACK (cs_collect_sample), frames);
  cs_run_pipeline (p);
  for (i = 0; i < frames->len; i++) {
    guint64 h = bytes_hash (g_ptr_array_index (frames, i));
    g_array_append_val (hashes, h);
  }
  g_ptr_array_unref (frames);
  gst_object_unref (out);
  gst_object_unref (p);
  g_free (desc);
  return hashes;
}

/* the tool's "frame I id N WxH hash X" lines against @want, in order */
static void
check_frames (const gchar * out, GArray * want)
{
  gchar **lines = g_strsplit (out, "\n", -1);
  guint i, frames = 0;

  for (i = 0; lines[i]; i++) {
    gchar *suffix;

    if (!g_str_has_prefix (lines[i], "frame "))
      continue;
    fail_unless (frames < want->len, "more frames than sent: %s", lines[i]);
    suffix = g_strdup_printf (" hash %016" G_GINT64_MODIFIER "x",
        g_array_index (want, guint64, frames));
    fail_unless_equals_uint64 (g_ascii_strtoull (lines[i] + 6, NULL, 10),
        frames);
    fail_unless (g_str_has_suffix (lines[i], suffix), "%s, want%s", lines[i],
        suffix);
    g_free (suffix);
    frames++;
  }
  fail_unless_equals_int (frames, want->len);
  g_strfreev (lines);
}

/* the tool, reading with @backend (NULL: CUDA, "--vulkan"), gets every
 * frame that @upstream (CUDA memory) gives the sink: each frame's visible
 * bytes hash to those of @upstream ! cudadownload, the sink gets a release
 * for each, and the tool leaves with a goodbye */
static void
consume (const gchar * backend, const gchar * upstream)
{
  const gchar *tool = g_getenv ("CUDASYNC_IPC_CONSUME");
  GArray *want = reference_hashes (upstream);
  const guint n = want->len;
  gchar *path = g_strdup_printf ("%s/cudaipc-ct%d.sock", g_get_tmp_dir (),
      getpid ());
  gchar *desc = g_strdup_printf ("%s ! cudasyncipcsink name=sink "
      "max-buffers=3 sync=false socket-path=%s", upstream, path);
  GstElement *p = gst_parse_launch (desc, NULL);
  GstElement *sink = gst_bin_get_by_name (GST_BIN (p), "sink");
  gchar *nstr = g_strdup_printf ("%u", n), *out;
  const gchar *argv[] = { tool, backend ? backend : path,
    backend ? path : nstr, backend ? nstr : NULL, NULL
  };
  GError *err = NULL;
  gint out_fd, status;
  GPid pid;

  fail_unless (tool != NULL, "CUDASYNC_IPC_CONSUME is not set");
  fail_unless (n > 0);
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
  check_frames (out, want);
  fail_unless_equals_uint64 (ipc_wait_stat (sink, "releases", n), n);
  fail_unless_equals_uint64 (ipc_sessions_gone (sink), 0);
  gst_element_set_state (p, GST_STATE_NULL);
  g_array_unref (want);
  g_free (out);
  g_free (nstr);
  gst_object_unref (sink);
  gst_object_unref (p);
  g_free (desc);
  g_free (path);
}

/* 20 frames of videotestsrc */
static void
consume_test_frames (const gchar * backend)
{
  gchar *upstream = g_strdup_printf ("videotestsrc " PATTERN
      " num-buffers=20 ! video/x-raw,format=" FORMAT ",width=%d,height=%d,"
      "framerate=30/1 ! cudaupload", W, H);

  consume (backend, upstream);
  g_free (upstream);
}

/* H.264 high profile with B-frames decoded into CUDA memory, at an odd
 * size and at 4K */
static void
consume_decoded (const gchar * test, const gchar * backend)
{
  static const struct
  {
    gint w, h, fps;
    guint n;
  } clips[] = { {642, 362, 30, 30}, {3840, 2160, 30, 12} };
  const gchar *dec = cs_h264_cuda_decoder (test);
  guint i;

  for (i = 0; dec && i < G_N_ELEMENTS (clips); i++) {
    gchar *clip = cs_make_h264_clip (clips[i].w, clips[i].h, clips[i].fps,
        clips[i].n, "high", TRUE);
    gchar *upstream = g_strdup_printf ("filesrc location=\"%s\" ! h264parse "
        "! %s", clip, dec);

    consume (backend, upstream);
    g_free (upstream);
    cs_remove_clip (clip);
  }
}

GST_START_TEST (test_consumer_tool)
{
  consume_test_frames (NULL);
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
  consume_test_frames ("--vulkan");
}

GST_END_TEST;

/* decoded frames (decoder caps, the decoder writing into the sink's
 * frames on 1.24+), read with CUDA, and on a GPU with Vulkan too */
GST_START_TEST (test_consumer_tool_decode)
{
  consume_decoded ("test_consumer_tool_decode", NULL);
  if (!cs_is_sim)
    consume_decoded ("test_consumer_tool_decode (Vulkan)", "--vulkan");
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
  tcase_add_test (tc, test_consumer_tool_decode);
  suite_add_tcase (s, tc);
  return s;
}

IPC_CHECK_MAIN (cudaipcconsume);

/* gst-cudasync
 * Copyright (C) 2026 gst-cudasync developers
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * cudasyncipcsink and cudasyncipcsrc in two processes: this program runs
 * the sink and starts itself again as the source (--source), which
 * compares every frame byte for byte with videotestsrc and prints its
 * counters; the parent checks both sides' counters.
 */
#include "../common.h"
#include <gst/app/gstappsink.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define W 64
#define H 48
#define FORMAT "NV12"

static gchar *self_exe;

/* new-semaphore handler: an exportable timeline semaphore of the test
 * backend (the simulator's exporter, or Vulkan on a GPU), kept as long as
 * the element (the simulator imports an fd only while its exporter-side
 * object lives) */
static gint
new_semaphore (GstElement * element, gpointer user_data)
{
  GPtrArray *kept = g_object_get_data (G_OBJECT (element), "test-sems");
  TestSem *ts = test_sem_new (TRUE, 0);

  if (!ts)
    return -1;
  if (!kept) {
    kept = g_ptr_array_new_with_free_func ((GDestroyNotify) test_sem_free);
    g_object_set_data_full (G_OBJECT (element), "test-sems", kept,
        (GDestroyNotify) g_ptr_array_unref);
  }
  g_ptr_array_add (kept, ts);
  return test_sem_export_fd (ts);
}

static void
connect_new_semaphore (GstElement * pipeline, const gchar * name)
{
  GstElement *e = gst_bin_get_by_name (GST_BIN (pipeline), name);

  g_signal_connect (e, "new-semaphore", G_CALLBACK (new_semaphore), NULL);
  gst_object_unref (e);
}

/* visible bytes of every plane equal (no check messaging in the child) */
static gboolean
frames_equal (GstBuffer * a, GstBuffer * b, const GstVideoInfo * info)
{
  GstVideoFrame fa, fb;
  gboolean same = TRUE;
  guint i;
  gint y;

  if (!gst_video_frame_map (&fa, info, a, GST_MAP_READ))
    return FALSE;
  if (!gst_video_frame_map (&fb, info, b, GST_MAP_READ)) {
    gst_video_frame_unmap (&fa);
    return FALSE;
  }
  for (i = 0; i < GST_VIDEO_FRAME_N_PLANES (&fa); i++) {
    guint row = GST_VIDEO_FRAME_COMP_WIDTH (&fa, i) *
        GST_VIDEO_FRAME_COMP_PSTRIDE (&fa, i);
    for (y = 0; y < GST_VIDEO_FRAME_COMP_HEIGHT (&fa, i); y++)
      same &= memcmp ((guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&fa, i) +
          y * GST_VIDEO_FRAME_PLANE_STRIDE (&fa, i),
          (guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&fb, i) +
          y * GST_VIDEO_FRAME_PLANE_STRIDE (&fb, i), row) == 0;
  }
  gst_video_frame_unmap (&fa);
  gst_video_frame_unmap (&fb);
  return same;
}

/* the source side: N frames through cudasyncipcsrc ! cudadownload, each
 * compared with the same frame of videotestsrc; exit 0 when all match */
/* CPU syncs the simulator counted on the streaming thread of the pad's
 * element, read when EOS passes (after the last buffer's work) */
static GstPadProbeReturn
count_thread_syncs (GstPad * pad, GstPadProbeInfo * info, gpointer data)
{
  if (GST_EVENT_TYPE (GST_PAD_PROBE_INFO_EVENT (info)) == GST_EVENT_EOS)
    g_atomic_int_set ((gint *) data, cs_sim_thread_syncs ());
  return GST_PAD_PROBE_OK;
}

static void
probe_thread_syncs (GstElement * pipeline, const gchar * name,
    const gchar * pad_name, gint * out)
{
  GstElement *e = gst_bin_get_by_name (GST_BIN (pipeline), name);
  GstPad *pad = gst_element_get_static_pad (e, pad_name);

  *out = -2;
  gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_EVENT_DOWNSTREAM,
      count_thread_syncs, out, NULL);
  gst_object_unref (pad);
  gst_object_unref (e);
}

static int
run_source (const gchar * path, guint n, const gchar * wait_mode)
{
  gchar *desc = g_strdup_printf ("cudasyncipcsrc name=src socket-path=%s "
      "num-buffers=%u wait-mode=%s ! queue ! cudadownload ! "
      "video/x-raw,format=" FORMAT " ! appsink name=out sync=false "
      "max-buffers=1000", path, n, wait_mode);
  gchar *ref_desc = g_strdup_printf ("videotestsrc num-buffers=%u ! "
      "video/x-raw,format=" FORMAT ",width=%d,height=%d,framerate=30/1 ! "
      "appsink name=out sync=false max-buffers=1000", n, W, H);
  GstElement *p = gst_parse_launch (desc, NULL), *ref =
      gst_parse_launch (ref_desc, NULL);
  GstElement *sink = gst_bin_get_by_name (GST_BIN (p), "out"), *rsink =
      gst_bin_get_by_name (GST_BIN (ref), "out"), *src =
      gst_bin_get_by_name (GST_BIN (p), "src");
  GstVideoInfo info;
  GstStructure *st;
  guint i, bad = 0, got = 0;

  gint thread_syncs;

  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_NV12, W, H);
  connect_new_semaphore (p, "src");
  /* the source's thread runs only create() and the push into the queue */
  probe_thread_syncs (p, "src", "src", &thread_syncs);
  gst_element_set_state (p, GST_STATE_PLAYING);
  gst_element_set_state (ref, GST_STATE_PLAYING);
  for (i = 0; i < n; i++) {
    GstSample *a = gst_app_sink_try_pull_sample (GST_APP_SINK (sink),
        20 * GST_SECOND);
    GstSample *b = gst_app_sink_try_pull_sample (GST_APP_SINK (rsink),
        20 * GST_SECOND);
    if (!a || !b)
      break;
    bad += !frames_equal (gst_sample_get_buffer (a),
        gst_sample_get_buffer (b), &info);
    got++;
    gst_sample_unref (a);
    gst_sample_unref (b);
  }
  g_object_get (src, "stats", &st, NULL);
  {
    GstBus *bus = gst_element_get_bus (p);
    gchar *e = cs_pop_error (bus, NULL, NULL);
    if (e)
      g_print ("SOURCE error: %s\n", e);
    g_free (e);
    gst_object_unref (bus);
  }
  /* EOS reaches the probe after the last frame went */
  for (i = 0; i < 100 && g_atomic_int_get (&thread_syncs) == -2; i++)
    g_usleep (10000);
  g_print ("SOURCE frames=%u bad=%u thread-syncs=(guint64)%d %s\n", got, bad,
      g_atomic_int_get (&thread_syncs), gst_structure_to_string (st));
  gst_element_set_state (p, GST_STATE_NULL);
  gst_element_set_state (ref, GST_STATE_NULL);
  return got == n && bad == 0 ? 0 : 1;
}

static GPid
spawn_source (const gchar * path, guint n, const gchar * wait_mode,
    gint * out_fd)
{
  gchar *nstr = g_strdup_printf ("%u", n);
  gchar *argv[] = { self_exe, (gchar *) "--source", (gchar *) path, nstr,
    (gchar *) wait_mode, NULL
  };
  GError *err = NULL;
  GPid pid;

  fail_unless (g_spawn_async_with_pipes (NULL, argv, NULL,
          G_SPAWN_DO_NOT_REAP_CHILD, NULL, NULL, &pid, NULL, out_fd, NULL,
          &err), "%s", err ? err->message : "");
  g_free (nstr);
  return pid;
}

static gchar *
read_all (gint fd)
{
  GString *s = g_string_new (NULL);
  gchar buf[4096];
  gssize k;

  while ((k = read (fd, buf, sizeof (buf))) > 0)
    g_string_append_len (s, buf, k);
  close (fd);
  return g_string_free (s, FALSE);
}

static guint64
wait_stat (GstElement * e, const gchar * field, guint64 want)
{
  guint64 v = 0;
  gint i;

  for (i = 0; i < 1000; i++) {
    if ((v = cs_stat (e, field)) >= want)
      break;
    g_usleep (10000);
  }
  return v;
}

static guint64
field_of (const gchar * out, const gchar * field)
{
  gchar *key = g_strdup_printf ("%s=(guint64)", field);
  const gchar *p = strstr (out, key);
  guint64 v = p ? g_ascii_strtoull (p + strlen (key), NULL, 10) : G_MAXUINT64;

  g_free (key);
  return v;
}

/* N frames from one sink to one source in another process: byte-exact,
 * one signal, GPU wait, copy and release per frame on each side, every
 * frame's memory released back to the sink. cpu-syncs: none on either
 * streaming thread while frames flow (wait-mode=gpu), one per frame in the
 * source with wait-mode=cpu, and the simulator counts the same CPU-
 * synchronising calls on those threads; the sink's stop makes one. */
static void
two_processes (const gchar * wait_mode, guint64 src_syncs)
{
  const guint n = 30;
  gchar *path = g_strdup_printf ("%s/cudaipc-%d.sock", g_get_tmp_dir (),
      getpid ());
  gchar *desc = g_strdup_printf ("videotestsrc num-buffers=%u ! "
      "video/x-raw,format=" FORMAT ",width=%d,height=%d,framerate=30/1 ! "
      "cudaupload ! queue name=q ! cudasyncipcsink name=sink max-buffers=4 "
      "sync=false socket-path=%s", n, W, H, path);
  GstElement *p = gst_parse_launch (desc, NULL);
  GstElement *sink = gst_bin_get_by_name (GST_BIN (p), "sink");
  gint out_fd, status, sink_thread_syncs;
  gchar *out;
  GPid pid;
  struct stat st;

  connect_new_semaphore (p, "sink");
  /* the queue's thread runs only the sink's render() */
  probe_thread_syncs (p, "q", "src", &sink_thread_syncs);
  fail_unless (gst_element_set_state (p, GST_STATE_PAUSED) !=
      GST_STATE_CHANGE_FAILURE);
  fail_unless (stat (path, &st) == 0 && (st.st_mode & 0777) == 0600,
      "socket mode %o", st.st_mode & 0777);
  pid = spawn_source (path, n, wait_mode, &out_fd);
  fail_unless_equals_uint64 (wait_stat (sink, "sessions", 1), 1);
  gst_element_set_state (p, GST_STATE_PLAYING);
  out = read_all (out_fd);
  waitpid (pid, &status, 0);
  g_print ("%s", out);
  fail_unless (WIFEXITED (status) && WEXITSTATUS (status) == 0,
      "source failed: %s", out);
  fail_unless_equals_uint64 (field_of (out, "frames"), n);
  fail_unless_equals_uint64 (field_of (out, "waits"), n);
  fail_unless_equals_uint64 (field_of (out, "signals"), n);
  fail_unless_equals_uint64 (field_of (out, "releases"), n);
  fail_unless_equals_uint64 (field_of (out, "cpu-syncs"), src_syncs);
  if (cs_is_sim)
    fail_unless_equals_uint64 (field_of (out, "thread-syncs"), src_syncs);
  fail_unless_equals_uint64 (cs_stat (sink, "frames-sent"), n);
  fail_unless_equals_uint64 (cs_stat (sink, "signals"), n);
  fail_unless_equals_uint64 (cs_stat (sink, "copies"), n);
  fail_unless_equals_uint64 (wait_stat (sink, "releases", n), n);
  fail_unless_equals_uint64 (cs_stat (sink, "cpu-syncs"), 0);
  if (cs_is_sim)
    fail_unless_equals_int (sink_thread_syncs, 0);
  /* max-buffers bounds the shared memory; the released frames are reused
   * after GPU waits on the source's release values */
  fail_unless (cs_stat (sink, "buffers-allocated") <= 4);
  fail_unless (cs_stat (sink, "waits") >= n - 4);
  gst_element_set_state (p, GST_STATE_NULL);
  /* the stop waited for the sink's stream once, before freeing the memory */
  fail_unless_equals_uint64 (cs_stat (sink, "cpu-syncs"), 1);
  fail_unless_equals_uint64 (cs_stat (sink, "frames-sent"), n);
  fail_if (g_file_test (path, G_FILE_TEST_EXISTS), "socket left behind");
  gst_object_unref (sink);
  gst_object_unref (p);
  g_free (out);
  g_free (desc);
  g_free (path);
}

GST_START_TEST (test_two_processes)
{
  two_processes ("gpu", 0);
}

GST_END_TEST;

GST_START_TEST (test_two_processes_cpu_wait)
{
  two_processes ("cpu", 30);
}

GST_END_TEST;

/* a peer whose uid is not allowed gets nothing: disconnected, counted */
GST_START_TEST (test_refused_uid)
{
  gchar *path = g_strdup_printf ("%s/cudaipc-r%d.sock", g_get_tmp_dir (),
      getpid ());
  gchar *desc = g_strdup_printf ("videotestsrc ! cudaupload ! "
      "cudasyncipcsink name=sink allowed-uids=%u socket-path=%s",
      getuid () + 1, path);
  GstElement *p = gst_parse_launch (desc, NULL);
  GstElement *sink = gst_bin_get_by_name (GST_BIN (p), "sink");
  gchar *src_desc = g_strdup_printf ("cudasyncipcsrc socket-path=%s ! "
      "fakesink", path);
  GstElement *srcp;
  gchar *err;

  connect_new_semaphore (p, "sink");
  fail_unless (gst_element_set_state (p, GST_STATE_PAUSED) !=
      GST_STATE_CHANGE_FAILURE);
  err = cs_run_to_end (src_desc, &srcp);
  gst_object_unref (srcp);
  fail_unless_equals_uint64 (wait_stat (sink, "sessions-refused", 1), 1);
  fail_unless_equals_uint64 (cs_stat (sink, "sessions"), 0);
  /* the source's connection was closed before anything was sent */
  fail_unless (err != NULL, "the refused source did not fail");
  gst_element_set_state (p, GST_STATE_NULL);
  gst_object_unref (sink);
  gst_object_unref (p);
  g_free (err);
  g_free (desc);
  g_free (src_desc);
  g_free (path);
}

GST_END_TEST;

/* without a new-semaphore handler the sink makes its semaphores with
 * Vulkan; where the CUDA device has no Vulkan twin that exports timeline
 * semaphores (the simulator: lavapipe has another UUID and exports none)
 * it fails to start with an element error saying so */
GST_START_TEST (test_no_semaphore_source)
{
  gchar *path = g_strdup_printf ("%s/cudaipc-n%d.sock", g_get_tmp_dir (),
      getpid ());
  gchar *desc = g_strdup_printf ("videotestsrc ! cudaupload ! "
      "cudasyncipcsink name=sink socket-path=%s", path);
  GstElement *p = gst_parse_launch (desc, NULL);
  GstBus *bus = gst_element_get_bus (p);
  gchar *err;

  if (gst_element_set_state (p, GST_STATE_PAUSED) != GST_STATE_CHANGE_FAILURE) {
    g_print ("SKIP: Vulkan exports timeline semaphores for this device\n");
  } else {
    err = cs_pop_error (bus, NULL, NULL);
    fail_unless (err && strstr (err, "exportable timeline semaphore") &&
        strstr (err, "new-semaphore"), "error: %s", err);
    g_free (err);
    fail_if (g_file_test (path, G_FILE_TEST_EXISTS), "socket left behind");
  }
  gst_element_set_state (p, GST_STATE_NULL);
  gst_object_unref (bus);
  gst_object_unref (p);
  g_free (desc);
  g_free (path);
}

GST_END_TEST;

static Suite *
cudaipc_suite (void)
{
  Suite *s = suite_create ("cudaipc");
  TCase *tc = tcase_create ("general");

  tcase_add_checked_fixture (tc, cs_setup, cs_teardown);
  tcase_add_test (tc, test_two_processes);
  tcase_add_test (tc, test_two_processes_cpu_wait);
  tcase_add_test (tc, test_refused_uid);
  tcase_add_test (tc, test_no_semaphore_source);
  suite_add_tcase (s, tc);
  return s;
}

int
main (int argc, char **argv)
{
  self_exe = g_file_read_link ("/proc/self/exe", NULL);
  if (argc == 5 && g_strcmp0 (argv[1], "--source") == 0) {
    gst_init (NULL, NULL);
    gst_cuda_load_library ();
    cs_is_sim = cudasim_lookup (&cs_sim);
    return run_source (argv[2], atoi (argv[3]), argv[4]);
  }
  gst_check_init (&argc, &argv);
  return gst_check_run_suite (cudaipc_suite (), "cudaipc", __FILE__);
}

/* gst-cudasync
 * Copyright (C) 2026 gst-cudasync developers
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * cudasyncipcsink and cudasyncipcsrc in two processes: this program runs
 * the sink and starts itself again as the source (--source), which
 * compares every frame byte for byte with videotestsrc and prints its
 * counters; the parent checks both sides' counters.
 *
 * Tests:
 * test_two_processes: frames byte-exact across the processes, the socket
 *     mode 0600, one signal, wait and release per frame, no CPU wait on
 *     either side until the sink's stop, at most max-buffers frames
 * test_two_processes_cpu_wait: the same with the source's wait-mode=cpu:
 *     one counted CPU wait per frame on the source, none on the sink
 * test_two_processes_import, test_two_processes_import_cpu_wait: the same
 *     with io-mode=import: no copy in the source (1.24+; 1.22 copies), each
 *     frame released once downstream freed it
 * (each of them: the sink keeps its input, whose memory carries no stream,
 *     until its copy ran: inputs-held)
 * test_two_sources: two sources at once, each frame byte-exact in both;
 *     one copy per frame, reused only once both released it
 * test_renegotiation: a caps change mid-stream: new caps once, every frame
 *     byte-exact on both sides, the old frames freed once unheld
 * test_renegotiation_import: the same with io-mode=import
 * test_import_frames_outlive_source: frames held past an import source's
 *     stop keep their bytes (DRAIN: the sink keeps them out of use) and are
 *     released once freed
 * test_refused_uid: a peer whose uid is not allowed gets nothing
 * test_no_semaphore_source: no Vulkan twin that exports timelines and no
 *     new-semaphore handler: the sink fails to start with an element error
 * test_context_push_failures: each cuCtxPushCurrent of a sink and of a
 *     source run fails in turn: the run ends (element error), nothing
 *     hangs or is left behind
 */
#include "../ipccommon.h"
#include <gst/app/gstappsink.h>
#include <gst/app/gstappsrc.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/* N frames from one sink to one source in another process: byte-exact,
 * one signal, GPU wait, copy and release per frame on each side, every
 * frame's memory released back to the sink. cpu-syncs: none on either
 * streaming thread while frames flow (wait-mode=gpu), one per frame in the
 * source with wait-mode=cpu, and the simulator counts the same CPU-
 * synchronising calls on those threads; the sink's stop makes one. */
static void
two_processes (const gchar * props, guint64 src_syncs, gboolean import)
{
  /* 1.22 cannot wrap device memory: the source copies there, and the sink
   * proposes no pool (cudaupload writes its own buffers, which the sink
   * copies); 1.24+: cudaupload writes into the sink's frames */
  const gboolean lent = import && GST_CHECK_VERSION (1, 24, 0);
  const gboolean in_place = GST_CHECK_VERSION (1, 24, 0);
  const guint n = 30;
  gchar *path = g_strdup_printf ("%s/cudaipc-%d.sock", g_get_tmp_dir (),
      getpid ());
  /* caps as decoders give them: with multiview-flags, whose type the
   * source's process has not registered before it parses the caps */
  gchar *desc = g_strdup_printf ("videotestsrc " PATTERN " num-buffers=%u ! "
      "video/x-raw,format=" FORMAT ",width=%d,height=%d,framerate=30/1,"
      "multiview-mode=mono,multiview-flags=(GstVideoMultiviewFlagsSet)"
      "0:ffffffff ! cudaupload ! identity sleep-time=20000 ! queue name=q ! "
      "cudasyncipcsink name=sink max-buffers=4 "
      "sync=false socket-path=%s", n, W, H, path);
  GstElement *p;
  GstElement *sink;
  gint out_fd, sink_thread_syncs;
  gchar *out;
  GPid pid;
  struct stat st;

  /* (this process parses them: the source's does not) */
  g_type_ensure (GST_TYPE_VIDEO_MULTIVIEW_FLAGSET);
  p = gst_parse_launch (desc, NULL);
  sink = gst_bin_get_by_name (GST_BIN (p), "sink");
  ipc_connect_new_semaphore (p, "sink");
  /* the queue's thread runs only the sink's render() */
  ipc_probe_thread_syncs (p, "q", "src", &sink_thread_syncs);
  /* the copies into the shared frames run late: the sink's waits for them
   * (before its input goes back upstream) find them pending */
  if (cs_is_sim)
    cs_sim.set_delay_us ("cuMemcpy2DAsync_v2", 2000);
  fail_unless (gst_element_set_state (p, GST_STATE_PAUSED) !=
      GST_STATE_CHANGE_FAILURE);
  fail_unless (stat (path, &st) == 0 && (st.st_mode & 0777) == 0600,
      "socket mode %o", st.st_mode & 0777);
  pid = ipc_spawn_source (path, n, props, NULL, &out_fd);
  fail_unless_equals_uint64 (ipc_wait_stat (sink, "sessions", 1), 1);
  gst_element_set_state (p, GST_STATE_PLAYING);
  out = ipc_source_result (pid, out_fd);
  fail_unless_equals_uint64 (ipc_field_of (out, "frames"), n);
  fail_unless_equals_uint64 (ipc_field_of (out, "waits"), n);
  fail_unless_equals_uint64 (ipc_field_of (out, "signals"), n);
  fail_unless_equals_uint64 (ipc_field_of (out, "releases"), n);
  fail_unless_equals_uint64 (ipc_field_of (out, "lent"), lent ? n : 0);
  fail_unless_equals_uint64 (ipc_field_of (out, "copies"), lent ? 0 : n);
  fail_unless_equals_uint64 (ipc_field_of (out, "cpu-syncs"), src_syncs);
  if (cs_is_sim)
    fail_unless_equals_uint64 (ipc_field_of (out, "thread-syncs"), src_syncs);
  fail_unless_equals_uint64 (cs_stat (sink, "frames-sent"), n);
  fail_unless_equals_uint64 (cs_stat (sink, "signals"), n);
  fail_unless_equals_uint64 (cs_stat (sink, "copies"), in_place ? 0 : n);
  fail_unless_equals_uint64 (cs_stat (sink, "inputs-in-place"),
      in_place ? n : 0);
  fail_unless_equals_uint64 (cs_stat (sink, "lent"), in_place ? n : 0);
  /* 1.22: cudaupload's output memory carries no stream (it waited for its
   * upload): a thread keeps each input until the sink's copy ran */
  fail_unless_equals_uint64 (cs_stat (sink, "inputs-ordered"), 0);
  fail_unless_equals_uint64 (cs_stat (sink, "inputs-held"), in_place ? 0 : n);
  fail_unless_equals_uint64 (ipc_wait_stat (sink, "releases", n), n);
  fail_unless_equals_uint64 (cs_stat (sink, "cpu-syncs"), 0);
  if (cs_is_sim) {
    fail_unless_equals_int (sink_thread_syncs, 0);
    /* those waits sleep: none spins a CPU core while the GPU works */
    fail_unless_equals_int (cs_sim.spin_waits (), 0);
  }
  /* the source said goodbye (even with the sink's EOS unread) */
  fail_unless_equals_uint64 (ipc_sessions_gone (sink), 0);
  /* max-buffers bounds the shared memory, and the sink cycles through all
   * of it (the frame written longest ago first), so that the release values
   * that a reuse needs are the oldest there are. The frames come 20 ms
   * apart, each released before the next (reusing the frame released last
   * kept to one or two). Each release value is waited for once, on the GPU,
   * as soon as its frame is free (the settle stream). */
  fail_unless_equals_uint64 (cs_stat (sink, "buffers-allocated"), 4);
  fail_unless_equals_uint64 (cs_stat (sink, "waits"), n);
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
  two_processes ("wait-mode=gpu", 0, FALSE);
}

GST_END_TEST;

GST_START_TEST (test_two_processes_cpu_wait)
{
  two_processes ("wait-mode=cpu", 30, FALSE);
}

GST_END_TEST;

/* io-mode=import: the frames pushed are the sink's memory (no copy in the
 * source), each released once cudadownload freed it */
GST_START_TEST (test_two_processes_import)
{
  two_processes ("wait-mode=gpu io-mode=import", 0, TRUE);
}

GST_END_TEST;

GST_START_TEST (test_two_processes_import_cpu_wait)
{
  two_processes ("wait-mode=cpu io-mode=import", 30, TRUE);
}

GST_END_TEST;

/* two sources connected at once get every frame byte-exact, each waits
 * for and releases each frame; each frame is one shareable frame that both
 * read (1.24+: cudaupload wrote it in place; 1.22: the sink copied it),
 * the sink signals each source's semaphore per frame, and reuses frames
 * only once both released them */
GST_START_TEST (test_two_sources)
{
  const guint n = 30;
  gchar *path = g_strdup_printf ("%s/cudaipc-2s%d.sock", g_get_tmp_dir (),
      getpid ());
  gchar *desc = g_strdup_printf ("videotestsrc " PATTERN " num-buffers=%u ! "
      "video/x-raw,format=" FORMAT ",width=%d,height=%d,framerate=30/1 ! "
      "cudaupload ! cudasyncipcsink name=sink max-buffers=3 sync=false "
      "socket-path=%s", n, W, H, path);
  GstElement *p = gst_parse_launch (desc, NULL);
  GstElement *sink = gst_bin_get_by_name (GST_BIN (p), "sink");
  gint out_fd[2];
  gchar *out[2];
  GPid pid[2];
  guint i;

  ipc_connect_new_semaphore (p, "sink");
  fail_unless (gst_element_set_state (p, GST_STATE_PAUSED) !=
      GST_STATE_CHANGE_FAILURE);
  for (i = 0; i < 2; i++)
    pid[i] = ipc_spawn_source (path, n, "wait-mode=gpu", NULL, &out_fd[i]);
  fail_unless_equals_uint64 (ipc_wait_stat (sink, "sessions", 2), 2);
  gst_element_set_state (p, GST_STATE_PLAYING);
  for (i = 0; i < 2; i++) {
    out[i] = ipc_source_result (pid[i], out_fd[i]);
    fail_unless_equals_uint64 (ipc_field_of (out[i], "frames"), n);
    fail_unless_equals_uint64 (ipc_field_of (out[i], "waits"), n);
    fail_unless_equals_uint64 (ipc_field_of (out[i], "releases"), n);
  }
  fail_unless_equals_uint64 (cs_stat (sink, "copies") +
      cs_stat (sink, "inputs-in-place"), n);
  fail_unless_equals_uint64 (cs_stat (sink, "inputs-in-place"),
      GST_CHECK_VERSION (1, 24, 0) ? n : 0);
  fail_unless_equals_uint64 (cs_stat (sink, "frames-sent"), 2 * n);
  fail_unless_equals_uint64 (cs_stat (sink, "signals"), 2 * n);
  fail_unless_equals_uint64 (ipc_wait_stat (sink, "releases", 2 * n), 2 * n);
  fail_unless (cs_stat (sink, "buffers-allocated") <= 3);
  /* a reused frame waits for both sources' release values */
  fail_unless (cs_stat (sink, "waits") >= 2 * (n - 3));
  fail_unless_equals_uint64 (ipc_sessions_gone (sink), 0);
  gst_element_set_state (p, GST_STATE_NULL);
  for (i = 0; i < 2; i++)
    g_free (out[i]);
  gst_object_unref (sink);
  gst_object_unref (p);
  g_free (desc);
  g_free (path);
}

GST_END_TEST;

/* pushes @n frames of videotestsrc at @w x @h into @appsrc */
static void
push_frames (GstElement * appsrc, guint n, gint w, gint h)
{
  gchar *desc = g_strdup_printf ("videotestsrc " PATTERN " num-buffers=%u ! "
      "video/x-raw,format=" FORMAT ",width=%d,height=%d,framerate=30/1 ! "
      "appsink name=out sync=false", n, w, h);
  GstElement *gen = gst_parse_launch (desc, NULL);
  GstElement *out = gst_bin_get_by_name (GST_BIN (gen), "out");
  GstSample *sample;
  guint i;

  gst_element_set_state (gen, GST_STATE_PLAYING);
  for (i = 0; i < n; i++) {
    sample = gst_app_sink_try_pull_sample (GST_APP_SINK (out), 20 * GST_SECOND);
    fail_unless (sample != NULL);
    fail_unless_equals_int (gst_app_src_push_sample (GST_APP_SRC (appsrc),
            sample), GST_FLOW_OK);
    gst_sample_unref (sample);
  }
  gst_element_set_state (gen, GST_STATE_NULL);
  gst_object_unref (out);
  gst_object_unref (gen);
  g_free (desc);
}

/* the caps change mid-stream (W x H, then W2 x H2): the source gets new
 * caps once, and every frame on both sides of the change byte-exact; the
 * frames of the old caps go once nothing holds them. 1.24+: cudaupload
 * writes every frame of both caps into the sink's pool (proposed again
 * for the new caps) */
static void
renegotiation (const gchar * props, gboolean import)
{
  const gboolean lent = import && GST_CHECK_VERSION (1, 24, 0);
  const guint n = 12;
  gchar *path = g_strdup_printf ("%s/cudaipc-rn%d.sock", g_get_tmp_dir (),
      getpid ());
  gchar *desc = g_strdup_printf ("appsrc name=in format=time ! cudaupload ! "
      "cudasyncipcsink name=sink max-buffers=3 sync=false socket-path=%s",
      path);
  GstElement *p = gst_parse_launch (desc, NULL);
  GstElement *sink = gst_bin_get_by_name (GST_BIN (p), "sink");
  GstElement *in = gst_bin_get_by_name (GST_BIN (p), "in");
  gint out_fd;
  gchar *out;
  GPid pid;

  ipc_connect_new_semaphore (p, "sink");
  fail_unless (gst_element_set_state (p, GST_STATE_PLAYING) !=
      GST_STATE_CHANGE_FAILURE);
  pid = ipc_spawn_source (path, 2 * n, props, NULL, &out_fd);
  fail_unless_equals_uint64 (ipc_wait_stat (sink, "sessions", 1), 1);
  push_frames (in, n, W, H);
  push_frames (in, n, W2, H2);
  out = ipc_source_result (pid, out_fd);
  fail_unless_equals_uint64 (ipc_field_of (out, "frames"), 2 * n);
  fail_unless_equals_uint64 (ipc_field_of (out, "caps-changes"), 1);
  fail_unless_equals_uint64 (ipc_field_of (out, "lent"), lent ? 2 * n : 0);
  fail_unless_equals_uint64 (cs_stat (sink, "frames-sent"), 2 * n);
  fail_unless_equals_uint64 (ipc_wait_stat (sink, "releases", 2 * n), 2 * n);
  fail_unless_equals_uint64 (cs_stat (sink, "inputs-in-place"),
      GST_CHECK_VERSION (1, 24, 0) ? 2 * n : 0);
  fail_unless_equals_uint64 (cs_stat (sink, "copies"),
      GST_CHECK_VERSION (1, 24, 0) ? 0 : 2 * n);
  /* at most max-buffers of each caps, the old ones freed at the next
   * frame once released */
  fail_unless (cs_stat (sink, "buffers-allocated") <= 3);
  fail_unless_equals_uint64 (ipc_sessions_gone (sink), 0);
  gst_app_src_end_of_stream (GST_APP_SRC (in));
  gst_element_set_state (p, GST_STATE_NULL);
  g_free (out);
  gst_object_unref (in);
  gst_object_unref (sink);
  gst_object_unref (p);
  g_free (desc);
  g_free (path);
}

GST_START_TEST (test_renegotiation)
{
  renegotiation ("wait-mode=gpu", FALSE);
}

GST_END_TEST;

/* the frames of the old caps lent downstream while the new caps come */
GST_START_TEST (test_renegotiation_import)
{
  renegotiation ("wait-mode=gpu io-mode=import", TRUE);
}

GST_END_TEST;

/* the device bytes of @buf's memory (a synchronous copy: a CPU map
 * would return GStreamer's cached download) */
static GBytes *
device_bytes (GstBuffer * buf)
{
  GstMemory *mem = gst_buffer_peek_memory (buf, 0);
  CUresult (*dtoh) (void *, CUdeviceptr, size_t) =
      cs_driver_symbol ("cuMemcpyDtoH_v2");
  GstMapInfo map;
  guint8 *data = g_malloc (mem->size);

  fail_unless (gst_memory_map (mem, &map, GST_MAP_READ | GST_MAP_CUDA));
  fail_unless (gst_cuda_context_push (cs_ctx));
  fail_unless_equals_int (dtoh (data, (CUdeviceptr) map.data, mem->size),
      CUDA_SUCCESS);
  gst_cuda_context_pop (NULL);
  gst_memory_unmap (mem, &map);
  return g_bytes_new_take (data, mem->size);
}

static guint64
wait_stat_down (GstElement * e, const gchar * field, guint64 want)
{
  guint64 v;
  guint i;

  for (i = 0; i < 500 && (v = cs_stat (e, field)) > want; i++)
    g_usleep (10000);
  return v;
}

/* io-mode=import, both ends in this process: a source stopped while the
 * application holds two of its frames says DRAIN, and the sink keeps those
 * two allocations out of use while another source receives 20 frames
 * through the other two: the held frames keep their bytes. Once freed they
 * are released, and the source says goodbye. */
GST_START_TEST (test_import_frames_outlive_source)
{
  gchar *path = g_strdup_printf ("%s/cudaipc-dr%d.sock", g_get_tmp_dir (),
      getpid ());
  GstElement *sp, *ap, *bp, *sink, *out, *bsrc;
  GstSample *held[2];
  GBytes *before[2];
  guint i;

  if (!GST_CHECK_VERSION (1, 24, 0)) {
    g_print ("SKIP: GStreamer 1.22 cannot wrap device memory: no import\n");
    g_free (path);
    return;
  }
  sp = ipc_pipeline ("videotestsrc pattern=ball is-live=true ! "
      "video/x-raw,format=" FORMAT ",width=64,height=48,framerate=100/1 ! "
      "cudaupload ! cudasyncipcsink name=sink max-buffers=4 sync=false "
      "socket-path=%s", path, "sink");
  ap = ipc_pipeline ("cudasyncipcsrc name=src socket-path=%s io-mode=import "
      "! appsink name=out sync=false max-buffers=2", path, "src");
  bp = ipc_pipeline ("cudasyncipcsrc name=src socket-path=%s ! "
      "fakesink sync=false", path, "src");
  sink = gst_bin_get_by_name (GST_BIN (sp), "sink");
  out = gst_bin_get_by_name (GST_BIN (ap), "out");
  bsrc = gst_bin_get_by_name (GST_BIN (bp), "src");
  fail_unless (gst_element_set_state (sp, GST_STATE_PLAYING) !=
      GST_STATE_CHANGE_FAILURE);
  gst_element_set_state (ap, GST_STATE_PLAYING);
  for (i = 0; i < 2; i++) {
    held[i] = gst_app_sink_try_pull_sample (GST_APP_SINK (out),
        20 * GST_SECOND);
    fail_unless (held[i] != NULL);
    before[i] = device_bytes (gst_sample_get_buffer (held[i]));
  }
  gst_element_set_state (ap, GST_STATE_NULL);
  /* the sink's thread reads DRAIN in its own time */
  fail_unless_equals_uint64 (ipc_wait_stat (sink, "sessions-draining", 1), 1);

  /* the other source gets 20 frames through the two other allocations */
  gst_element_set_state (bp, GST_STATE_PLAYING);
  fail_unless (ipc_wait_stat (bsrc, "frames", 20) >= 20);
  fail_unless (cs_stat (sink, "buffers-allocated") <= 4);
  for (i = 0; i < 2; i++) {
    GBytes *now = device_bytes (gst_sample_get_buffer (held[i]));
    fail_unless (g_bytes_equal (now, before[i]), "held frame %u rewritten", i);
    g_bytes_unref (now);
    g_bytes_unref (before[i]);
  }
  /* freed: released, then goodbye */
  for (i = 0; i < 2; i++)
    gst_sample_unref (held[i]);
  fail_unless_equals_uint64 (wait_stat_down (sink, "sessions-draining", 0), 0);
  fail_unless_equals_uint64 (cs_stat (sink, "sessions-lost"), 0);
  gst_element_set_state (bp, GST_STATE_NULL);
  gst_element_set_state (sp, GST_STATE_NULL);
  gst_object_unref (bsrc);
  gst_object_unref (out);
  gst_object_unref (sink);
  gst_object_unref (bp);
  gst_object_unref (ap);
  gst_object_unref (sp);
  g_free (path);
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

  ipc_connect_new_semaphore (p, "sink");
  fail_unless (gst_element_set_state (p, GST_STATE_PAUSED) !=
      GST_STATE_CHANGE_FAILURE);
  err = cs_run_to_end (src_desc, &srcp);
  gst_object_unref (srcp);
  fail_unless_equals_uint64 (ipc_wait_stat (sink, "sessions-refused", 1), 1);
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

/* one run of @p (its IPC element named @name) with the @nth
 * cuCtxPushCurrent from now failing: it ends within 10 s (EOS, or an
 * element error that does not blame the peer); *@consumed says whether the
 * run made that call; TRUE when an error ended it */
static gboolean
run_with_push_failure (GstElement * p, const gchar * name, guint nth,
    gboolean * consumed)
{
  GstBus *bus = gst_element_get_bus (p);
  guint before = cs_sim.call_count ("cuCtxPushCurrent_v2");
  GstMessage *msg;
  gboolean error;

  ipc_connect_new_semaphore (p, name);
  cs_sim.inject_failure ("cuCtxPushCurrent_v2", nth, CUDA_ERROR_UNKNOWN);
  gst_element_set_state (p, GST_STATE_PLAYING);
  msg = gst_bus_timed_pop_filtered (bus, 10 * GST_SECOND,
      GST_MESSAGE_ERROR | GST_MESSAGE_EOS);
  fail_unless (msg != NULL, "push %u failing: no EOS or error within 10 s",
      nth);
  error = GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR;
  if (error) {
    GError *e = NULL;

    gst_message_parse_error (msg, &e, NULL);
    fail_if (strstr (e->message, "invalid message"), "push %u: %s", nth,
        e->message);
    g_error_free (e);
  }
  gst_message_unref (msg);
  fail_unless (gst_element_set_state (p, GST_STATE_NULL) ==
      GST_STATE_CHANGE_SUCCESS);
  *consumed = cs_sim.call_count ("cuCtxPushCurrent_v2") - before >= nth;
  cs_sim.inject_failure ("cuCtxPushCurrent_v2", 0, CUDA_SUCCESS);
  gst_object_unref (bus);
  gst_object_unref (p);
  return error;
}

/* a sink fed with @bufs (CUDA frames made beforehand, so that only the
 * sink makes the context current), no source connected */
static GstElement *
sink_pipeline (const gchar * path, GstCaps * caps, GstBuffer ** bufs, guint n)
{
  gchar *desc = g_strdup_printf ("appsrc name=in format=time ! "
      "cudasyncipcsink name=sink socket-path=%s", path);
  GstElement *p = gst_parse_launch (desc, NULL);
  GstElement *in = gst_bin_get_by_name (GST_BIN (p), "in");
  GstElement *sink = gst_bin_get_by_name (GST_BIN (p), "sink");
  guint i;

  cs_set_cuda_context (sink, cs_ctx);
  gst_app_src_set_caps (GST_APP_SRC (in), caps);
  for (i = 0; i < n; i++)
    gst_app_src_push_buffer (GST_APP_SRC (in), gst_buffer_ref (bufs[i]));
  gst_app_src_end_of_stream (GST_APP_SRC (in));
  gst_object_unref (in);
  gst_object_unref (sink);
  g_free (desc);
  return p;
}

/* Each cuCtxPushCurrent of a sink run and of a source run (a sink in
 * another process; io-mode copy, then import) fails in turn: every run
 * ends, with an element error where the failure stopped the frames;
 * nothing hangs, no socket is left behind, the teardown finds no stream,
 * event or semaphore left (the library's deferred destruction tries a
 * failed push again), and neither process signals a timeline semaphore
 * below its value (a source rescues the sink's semaphore only when the
 * sink is gone or broke the protocol, not after a failure of its own) */
GST_START_TEST (test_context_push_failures)
{
  gchar *path = g_strdup_printf ("%s/cudaipc-p%d.sock", g_get_tmp_dir (),
      getpid ());
  gchar *src_desc = g_strdup_printf ("cudasyncipcsrc name=src "
      "socket-path=%s num-buffers=5 ! fakesink", path);
  gchar *import_desc = g_strdup_printf ("cudasyncipcsrc name=src "
      "io-mode=import socket-path=%s num-buffers=5 ! fakesink", path);
  GstCaps *caps = cs_caps (FORMAT, W, H);
  GstBufferPool *pool;
  GstBuffer *bufs[5];
  guint i, nth, sink_errors = 0, src_errors = 0;
  gboolean consumed = TRUE;
  GPid pid;

  if (!cs_is_sim) {
    g_print ("SKIP: needs the simulator's fault injection\n");
    goto out;
  }
  pool = cs_new_pool (caps);
  for (i = 0; i < G_N_ELEMENTS (bufs); i++)
    bufs[i] = cs_new_buffer (pool, i);
  for (nth = 1; consumed && nth < 100; nth++) {
    sink_errors += run_with_push_failure (sink_pipeline (path, caps, bufs,
            G_N_ELEMENTS (bufs)), "sink", nth, &consumed);
    fail_if (g_file_test (path, G_FILE_TEST_EXISTS), "socket left behind");
  }
  fail_unless (!consumed, "the sink runs make 100 pushes or more");
  fail_unless (sink_errors > 0);
  for (i = 0; i < G_N_ELEMENTS (bufs); i++)
    gst_buffer_unref (bufs[i]);
  gst_buffer_pool_set_active (pool, FALSE);
  gst_object_unref (pool);

  pid = ipc_spawn_sink (path, NULL);
  for (nth = 1, consumed = TRUE; consumed && nth < 100; nth++)
    src_errors += run_with_push_failure (gst_parse_launch (src_desc, NULL),
        "src", nth, &consumed);
  fail_unless (!consumed, "the source runs make 100 pushes or more");
  fail_unless (src_errors > 0);
  /* the same with the sink's memory lent downstream (1.22: copied) */
  for (nth = 1, consumed = TRUE, src_errors = 0; consumed && nth < 100; nth++)
    src_errors += run_with_push_failure (gst_parse_launch (import_desc, NULL),
        "src", nth, &consumed);
  fail_unless (!consumed, "the import runs make 100 pushes or more");
  fail_unless (src_errors > 0);
  /* the sink served every run: it is still there */
  fail_unless (waitpid (pid, NULL, WNOHANG) == 0, "the sink child ended");
  fail_unless (kill (pid, SIGKILL) == 0 && waitpid (pid, NULL, 0) == pid);
  unlink (path);
out:
  gst_caps_unref (caps);
  g_free (src_desc);
  g_free (import_desc);
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
  tcase_add_test (tc, test_two_processes_import);
  tcase_add_test (tc, test_two_processes_import_cpu_wait);
  tcase_add_test (tc, test_two_sources);
  tcase_add_test (tc, test_renegotiation);
  tcase_add_test (tc, test_renegotiation_import);
  tcase_add_test (tc, test_import_frames_outlive_source);
  tcase_add_test (tc, test_refused_uid);
  tcase_add_test (tc, test_no_semaphore_source);
  tcase_add_test (tc, test_context_push_failures);
  suite_add_tcase (s, tc);
  return s;
}

IPC_CHECK_MAIN (cudaipc);

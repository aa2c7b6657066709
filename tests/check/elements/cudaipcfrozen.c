/* gst-cudasync
 * Copyright (C) 2026 gst-cudasync developers
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * cudasyncipcsrc against a sink that freezes, dies or never greets, while
 * downstream waits for the sink's frames on the CPU: the source never
 * hangs (its watchdog thread rescues the sink's semaphore), acts on
 * peer-lost, and its stop returns. The sink is a fake of this process
 * (IpcFakeSink, ../ipccommon.c); cudaipckill.c has the killed processes.
 *
 * Tests:
 * test_frozen_sink_cpu_wait, test_killed_sink_cpu_wait: a fake sink that
 *     sent a frame it never signals, then froze (its connection open) or
 *     died, while downstream waits for that frame on the CPU (cudadownload,
 *     or wait-mode=cpu): the source rescues the semaphore from a thread of
 *     its own within its time limit (frozen) or a second (killed), posts
 *     the error or EOS of peer-lost, and its stop returns
 * test_stop_frozen_sink_cpu_wait: the same source stopped while the frozen
 *     sink's value is pending, long before the time limit: the stop
 *     returns (a rescue after its one-second grace), nothing posted
 * test_no_hello: a fake sink that accepts and never greets: the element
 *     error "did not send its greeting in time" within the time limit, or
 *     a new connection in reconnect mode
 */
#include "../ipccommon.h"
#include <unistd.h>

static gchar *
sock_path (const gchar * tag)
{
  return g_strdup_printf ("%s/cudaipc-f%s%d.sock", g_get_tmp_dir (), tag,
      getpid ());
}

typedef enum
{
  SINK_FROZEN,
  SINK_KILLED,
  /* frozen, and the source's pipeline stops before the time limit */
  SINK_FROZEN_AT_STOP,
} SinkEnd;

/* The source with @props, its frame waited for on the CPU downstream of
 * it (@downstream), from a fake sink that sends a frame it never signals
 * and then freezes (its connection open) or dies (closed without a word):
 * within the time limit (frozen: 1 s) or the one-second grace after the
 * close (killed; the time limit is longer), plus a margin for a loaded
 * machine, the source's watchdog rescues the sink's semaphore, the
 * streaming thread comes back, and peer-lost's error or EOS is posted.
 * The stop returns, also one that comes while the frozen sink's value is
 * pending and the time limit far (after the stop's grace, with nothing
 * posted and no lost peer), and no simulated stream stays stuck. */
static void
sink_lost_cpu (const gchar * props, const gchar * downstream,
    const gchar * peer_lost, SinkEnd end)
{
  static const gchar *timeouts[] = { "1000000000", "5000000000",
    "60000000000"
  };
  gboolean killed = end == SINK_KILLED;
  gchar *path = sock_path ("w");
  gchar *desc = g_strdup_printf ("cudasyncipcsrc name=src socket-path=%s "
      "peer-lost=%s timeout=%s %s ! %s", path, peer_lost, timeouts[end],
      props, downstream);
  GstElement *p = gst_parse_launch (desc, NULL);
  GstElement *src = gst_bin_get_by_name (GST_BIN (p), "src");
  GstBus *bus = gst_element_get_bus (p);
  IpcFakeSink *fs = ipc_fake_sink_new (path);
  gboolean eos = g_str_equal (peer_lost, "eos");
  GstMessage *msg;
  GError *err = NULL;

  ipc_connect_new_semaphore (p, "src");
  fail_if (gst_element_set_state (p, GST_STATE_PLAYING) ==
      GST_STATE_CHANGE_FAILURE);
  fail_unless (ipc_fake_sink_accept (fs, 10000), "the source did not connect");
  ipc_fake_sink_send_frame (fs);
  fail_unless_equals_uint64 (ipc_wait_stat (src, "waits", 1), 1);
  if (killed)
    ipc_fake_sink_hang_up (fs);
  if (end == SINK_FROZEN_AT_STOP) {
    fail_unless (ipc_stop_within (p, 10000), "the stop did not return");
    msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR | GST_MESSAGE_EOS);
    fail_if (msg != NULL, "posted %s", msg ? GST_MESSAGE_TYPE_NAME (msg) : "");
    fail_unless_equals_uint64 (cs_stat (src, "rescues"), 1);
    fail_unless_equals_uint64 (cs_stat (src, "peers-lost"), 0);
    goto done;
  }
  msg = gst_bus_timed_pop_filtered (bus, 10 * GST_SECOND,
      GST_MESSAGE_ERROR | GST_MESSAGE_EOS);
  fail_unless (msg != NULL, "%s %s, peer-lost=%s: nothing posted", props,
      downstream, peer_lost);
  fail_unless_equals_int (GST_MESSAGE_TYPE (msg), eos ? GST_MESSAGE_EOS :
      GST_MESSAGE_ERROR);
  if (!eos) {
    gst_message_parse_error (msg, &err, NULL);
    fail_unless (GST_MESSAGE_SRC (msg) == GST_OBJECT (src));
    fail_unless (g_error_matches (err, GST_RESOURCE_ERROR,
            GST_RESOURCE_ERROR_READ), "%s", err->message);
    fail_unless (g_str_has_prefix (err->message, killed ? "The sink process "
            "vanished." : "The sink stopped signalling its frames"), "%s",
        err->message);
    g_error_free (err);
  }
  gst_message_unref (msg);
  fail_unless (ipc_stop_within (p, 10000), "the stop did not return");
  fail_unless_equals_uint64 (cs_stat (src, "rescues"), 1);
  fail_unless_equals_uint64 (cs_stat (src, "peers-lost"), 1);
done:
  fail_unless (ipc_drained_within (1000), "a GPU wait is left stuck");
  ipc_fake_sink_free (fs);
  unlink (path);
  gst_object_unref (bus);
  gst_object_unref (src);
  gst_object_unref (p);
  g_free (desc);
  g_free (path);
}

static void
sink_lost_cpu_all (SinkEnd end)
{
  static const gchar *modes[][2] = {
    /* (system memory: cudadownload passes CUDA memory through) */
    {"", "cudadownload ! video/x-raw ! fakesink sync=false"},
    {"wait-mode=cpu", "fakesink sync=false"},
  };
  guint i;

  for (i = 0; i < G_N_ELEMENTS (modes); i++) {
    sink_lost_cpu (modes[i][0], modes[i][1], "error", end);
    if (end != SINK_FROZEN_AT_STOP)
      sink_lost_cpu (modes[i][0], modes[i][1], "eos", end);
  }
}

GST_START_TEST (test_frozen_sink_cpu_wait)
{
  sink_lost_cpu_all (SINK_FROZEN);
}

GST_END_TEST;

GST_START_TEST (test_killed_sink_cpu_wait)
{
  sink_lost_cpu_all (SINK_KILLED);
}

GST_END_TEST;

GST_START_TEST (test_stop_frozen_sink_cpu_wait)
{
  sink_lost_cpu_all (SINK_FROZEN_AT_STOP);
}

GST_END_TEST;

/* a fake sink that accepts and never sends anything: with peer-lost=error
 * the element error within the time limit (plus a margin), with
 * peer-lost=reconnect a new connection and nothing posted */
static void
no_hello (const gchar * peer_lost)
{
  gboolean reconnect = g_str_equal (peer_lost, "reconnect");
  gchar *path = sock_path ("n");
  gchar *desc = g_strdup_printf ("cudasyncipcsrc name=src socket-path=%s "
      "peer-lost=%s timeout=500000000 ! fakesink", path, peer_lost);
  GstElement *p = gst_parse_launch (desc, NULL);
  GstBus *bus = gst_element_get_bus (p);
  IpcFakeSink *fs = ipc_fake_sink_new (path);
  GstMessage *msg;
  GError *err = NULL;
  gchar *dbg = NULL;

  ipc_connect_new_semaphore (p, "src");
  gst_element_set_state (p, GST_STATE_PLAYING);
  fail_unless (ipc_fake_sink_accept (fs, 10000), "the source did not connect");
  if (reconnect) {
    fail_unless (ipc_fake_sink_accept (fs, 10000), "not tried again");
    msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR | GST_MESSAGE_EOS);
    fail_if (msg != NULL, "posted %s", msg ? GST_MESSAGE_TYPE_NAME (msg) : "");
  } else {
    msg = gst_bus_timed_pop_filtered (bus, 10 * GST_SECOND,
        GST_MESSAGE_ERROR | GST_MESSAGE_EOS);
    fail_unless (msg && GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR);
    gst_message_parse_error (msg, &err, &dbg);
    fail_unless (g_error_matches (err, GST_RESOURCE_ERROR,
            GST_RESOURCE_ERROR_OPEN_READ_WRITE), "%s", err->message);
    fail_unless_equals_string (err->message,
        "The sink did not send its greeting in time.");
    fail_unless (dbg && strstr (dbg, "no HELLO within"), "%s", dbg);
    gst_message_unref (msg);
    g_error_free (err);
    g_free (dbg);
  }
  fail_unless (ipc_stop_within (p, 10000), "the stop did not return");
  ipc_fake_sink_free (fs);
  unlink (path);
  gst_object_unref (bus);
  gst_object_unref (p);
  g_free (desc);
  g_free (path);
}

GST_START_TEST (test_no_hello)
{
  no_hello ("error");
  no_hello ("reconnect");
}

GST_END_TEST;

static Suite *
cudaipcfrozen_suite (void)
{
  Suite *s = suite_create ("cudaipcfrozen");
  TCase *tc = tcase_create ("general");

  tcase_set_timeout (tc, 120);
  /* the rescues must end waits that hold up every stream of the context */
  tcase_add_checked_fixture (tc, cs_setup_one_queue, cs_teardown);
  tcase_add_test (tc, test_frozen_sink_cpu_wait);
  tcase_add_test (tc, test_killed_sink_cpu_wait);
  tcase_add_test (tc, test_stop_frozen_sink_cpu_wait);
  tcase_add_test (tc, test_no_hello);
  suite_add_tcase (s, tc);
  return s;
}

IPC_CHECK_MAIN (cudaipcfrozen);

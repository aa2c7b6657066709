/* gst-cudasync
 * Copyright (C) 2026 gst-cudasync developers
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * cudasyncipcsink and cudasyncipcsrc when the other process is SIGKILLed:
 * the survivor notices within a second, signals the dead peer's semaphore
 * so that no GPU wait of its own stays stuck (the simulator's streams all
 * go idle), and goes on as its properties say; nothing leaks over many
 * connect/kill cycles.
 *
 * Tests:
 * test_source_killed_after_handshake, test_source_killed_while_reading:
 *     the sink drops the killed source within a second, rescues its
 *     semaphore once, and serves the next source byte-exact
 * test_source_stops_sink_frozen: a source's stop with a frozen sink ends
 *     within 5 s, rescuing the sink's semaphore after the grace
 * test_sink_killed_error, test_sink_killed_eos, test_sink_killed_reconnect:
 *     the source reacts to its sink's death as peer-lost says, within a
 *     second, with one rescue
 * test_sink_stops_source_killed, test_sink_stops_source_frozen,
 * test_sink_stops_source_alive, test_sink_stops_source_killed_after_bye:
 *     the sink's stop with pending release values of a source that is
 *     killed, frozen, alive or killed after its BYE: the stop ends, lost
 *     and rescued exactly where the source did not say BYE or its values
 *     never ran; the first three again where upstream's CUDA work queues
 *     behind the sink's waits (one hardware queue, on the simulator)
 * test_sink_stops_source_behind: the sink stops after EOS while a frozen
 *     source still has every frame queued: thawed, the source gets every
 *     frame byte-exact and no error, and releases nothing to the closed
 *     connection
 * test_reconnect_unanswered: in peer-lost=reconnect, connections that a
 *     listener closes before any HELLO (a sink dying as the source
 *     connects) are tried again without counting a lost peer or posting
 *     anything, and a sink that comes later is served
 * test_unanswered_error: with peer-lost=error or eos, such a connection
 *     is the element error (RESOURCE, OPEN_READ_WRITE) saying that the sink
 *     closed it before its greeting and may not allow this user, not a lost
 *     peer
 * test_connect_kill_cycles: 100 sources connect and are killed: no fd or
 *     driver object leaks
 */
#include "../ipccommon.h"
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <dirent.h>
#include <unistd.h>

/* the child's semaphore signals run late, so its peer's GPU waits for
 * values the child announced are pending when it dies */
#define SLOW_SIGNALS "cuSignalExternalSemaphoresAsync:100000"

static gchar *
sock_path (const gchar * tag)
{
  return g_strdup_printf ("%s/cudaipc-%s%d.sock", g_get_tmp_dir (), tag,
      getpid ());
}

static void
kill_child (GPid pid)
{
  int status;

  fail_unless (kill (pid, SIGKILL) == 0);
  fail_unless (waitpid (pid, &status, 0) == pid);
  fail_unless (WIFSIGNALED (status));
}

/* the sink of this process, live NV12, semaphores of the test backend;
 * no hold-timeout: the sources here delay their release signals on
 * purpose (up to 3 s), and what is checked is how the sink meets their
 * death, not a slow source (elements/cudaipchostile) */
static GstElement *
start_sink (const gchar * path, guint max_buffers, GstElement ** sink,
    GstState state)
{
  gchar *desc = g_strdup_printf ("videotestsrc " PATTERN " is-live=true ! "
      "video/x-raw,format=" FORMAT ",width=%d,height=%d,framerate=30/1 ! "
      "cudaupload ! cudasyncipcsink name=sink max-buffers=%u hold-timeout=0 "
      "socket-path=%s", W, H, max_buffers, path);
  GstElement *p = gst_parse_launch (desc, NULL);

  ipc_connect_new_semaphore (p, "sink");
  *sink = gst_bin_get_by_name (GST_BIN (p), "sink");
  fail_if (gst_element_set_state (p, state) == GST_STATE_CHANGE_FAILURE);
  g_free (desc);
  return p;
}

static void
stop (GstElement * p, GstElement * e)
{
  GstBus *bus = gst_element_get_bus (p);
  gchar *err = cs_pop_error (bus, NULL, NULL);

  fail_if (err != NULL, "unexpected error: %s", err);
  gst_element_set_state (p, GST_STATE_NULL);
  gst_object_unref (bus);
  gst_object_unref (e);
  gst_object_unref (p);
}

/* a source killed at a given point: the sink drops it within a second,
 * rescues its release semaphore once, every simulated stream goes idle,
 * and a source connecting afterwards gets every frame byte-exact */
static void
source_killed (gboolean while_reading)
{
  gchar *path = sock_path ("k");
  GstElement *sink, *p = start_sink (path, 2, &sink,
      while_reading ? GST_STATE_PLAYING : GST_STATE_PAUSED);
  gint64 t0;
  GPid pid;
  gint out_fd;
  gchar *out;

  pid = ipc_spawn_reader (path, while_reading ? SLOW_SIGNALS : NULL);
  fail_unless_equals_uint64 (ipc_wait_stat (sink, "sessions", 1), 1);
  if (while_reading)
    fail_unless (ipc_wait_stat (sink, "releases", 4) >= 4);
  kill_child (pid);
  t0 = g_get_monotonic_time ();
  fail_unless_equals_uint64 (ipc_wait_stat (sink, "sessions-lost", 1), 1);
  fail_unless (g_get_monotonic_time () - t0 < G_USEC_PER_SEC,
      "the sink took %" G_GINT64_FORMAT " us", g_get_monotonic_time () - t0);
  fail_unless_equals_uint64 (cs_stat (sink, "sessions"), 0);
  fail_unless_equals_uint64 (cs_stat (sink, "rescues"), 1);
  fail_unless (ipc_drained_within (1000), "a GPU wait is left stuck");
  /* the survivor goes on: a late source gets its frames */
  if (!while_reading)
    gst_element_set_state (p, GST_STATE_PLAYING);
  pid = ipc_spawn_source (path, 10, "wait-mode=gpu", NULL, &out_fd);
  out = ipc_source_result (pid, out_fd);
  fail_unless_equals_uint64 (ipc_field_of (out, "frames"), 10);
  stop (p, sink);
  g_free (out);
  g_free (path);
}

GST_START_TEST (test_source_killed_after_handshake)
{
  source_killed (FALSE);
}

GST_END_TEST;

GST_START_TEST (test_source_killed_while_reading)
{
  source_killed (TRUE);
}

GST_END_TEST;

/* cudasyncipcsrc (named src) at a new socket path, with @peer_lost, into
 * a fakesink; its semaphore handler connected */
typedef struct
{
  gchar *path;
  GstElement *p, *src;
  GstBus *bus;
} LostSrc;

static void
lost_src_init (LostSrc * s, const gchar * tag, const gchar * peer_lost)
{
  gchar *desc;

  s->path = sock_path (tag);
  desc = g_strdup_printf ("cudasyncipcsrc name=src socket-path=%s "
      "peer-lost=%s ! queue ! fakesink sync=false", s->path, peer_lost);
  s->p = gst_parse_launch (desc, NULL);
  fail_unless (s->p != NULL, "%s", desc);
  g_free (desc);
  s->src = gst_bin_get_by_name (GST_BIN (s->p), "src");
  s->bus = gst_element_get_bus (s->p);
  ipc_connect_new_semaphore (s->p, "src");
}

/* stops the pipeline, removes the socket path */
static void
lost_src_clear (LostSrc * s)
{
  gst_element_set_state (s->p, GST_STATE_NULL);
  unlink (s->path);
  gst_object_unref (s->bus);
  gst_object_unref (s->src);
  gst_object_unref (s->p);
  g_free (s->path);
}

/* the sink's process killed while the source's GPU waits for values it
 * announced: the source reacts within a second as peer-lost says (error,
 * EOS, or connecting to the next sink and going on), rescues the
 * semaphore once, and no simulated stream stays stuck */
static void
sink_killed (const gchar * peer_lost)
{
  LostSrc ls;
  GstElement *src;
  GstBus *bus;
  GstMessage *msg;
  guint64 lost0, rescues0, conn0;
  gint64 t0;
  GPid pid;

  lost_src_init (&ls, "s", peer_lost);
  src = ls.src;
  bus = ls.bus;
  pid = ipc_spawn_sink (ls.path, SLOW_SIGNALS);
  gst_element_set_state (ls.p, GST_STATE_PLAYING);
  fail_unless (ipc_wait_stat (src, "frames", 4) >= 4);
  /* counted from the kill: on a loaded machine the sink may already have
   * dropped this source as slow (it does not read its socket in time),
   * and in reconnect mode the source came back */
  lost0 = cs_stat (src, "peers-lost");
  rescues0 = cs_stat (src, "rescues");
  conn0 = cs_stat (src, "connections");
  kill_child (pid);
  t0 = g_get_monotonic_time ();
  if (g_str_equal (peer_lost, "reconnect")) {
    fail_unless_equals_uint64 (ipc_wait_stat (src, "peers-lost", lost0 + 1),
        lost0 + 1);
    fail_unless (g_get_monotonic_time () - t0 < G_USEC_PER_SEC);
    msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR | GST_MESSAGE_EOS);
    fail_if (msg != NULL, "reconnect mode posted %s",
        msg ? GST_MESSAGE_TYPE_NAME (msg) : "");
  } else {
    msg = gst_bus_timed_pop_filtered (bus, GST_SECOND,
        GST_MESSAGE_ERROR | GST_MESSAGE_EOS);
    fail_unless (msg != NULL, "no message within a second");
    fail_unless (g_get_monotonic_time () - t0 < G_USEC_PER_SEC);
    fail_unless_equals_int (GST_MESSAGE_TYPE (msg),
        g_str_equal (peer_lost, "error") ? GST_MESSAGE_ERROR : GST_MESSAGE_EOS);
    gst_message_unref (msg);
  }
  fail_unless_equals_uint64 (cs_stat (src, "peers-lost"), lost0 + 1);
  fail_unless_equals_uint64 (cs_stat (src, "rescues"), rescues0 + 1);
  fail_unless (ipc_drained_within (1000), "a GPU wait is left stuck");
  if (g_str_equal (peer_lost, "reconnect")) {
    guint64 before = cs_stat (src, "frames");
    pid = ipc_spawn_sink (ls.path, NULL);
    fail_unless_equals_uint64 (ipc_wait_stat (src, "connections", conn0 + 1),
        conn0 + 1);
    fail_unless (ipc_wait_stat (src, "frames", before + 10) >= before + 10);
    kill_child (pid);
  }
  lost_src_clear (&ls);
}

/* the source stops while its stream waits for the (delayed) signals of
 * a sink frozen with SIGSTOP: after its one-second grace it rescues the
 * sink's semaphore (on the simulator; on a GPU the signals completed), its
 * stop ends within 5 s, and no stream stays stuck */
GST_START_TEST (test_source_stops_sink_frozen)
{
  gchar *path = sock_path ("z");
  gchar *desc = g_strdup_printf ("cudasyncipcsrc name=src socket-path=%s "
      "! queue ! fakesink sync=false", path);
  GPid pid = ipc_spawn_sink (path, SLOW_SIGNALS);
  GstElement *p = gst_parse_launch (desc, NULL);
  GstElement *src = gst_bin_get_by_name (GST_BIN (p), "src");
  gint64 t0;
  int status;

  ipc_connect_new_semaphore (p, "src");
  gst_element_set_state (p, GST_STATE_PLAYING);
  fail_unless (ipc_wait_stat (src, "frames", 4) >= 4);
  fail_unless (kill (pid, SIGSTOP) == 0);
  t0 = g_get_monotonic_time ();
  gst_element_set_state (p, GST_STATE_NULL);
  fail_unless (g_get_monotonic_time () - t0 < 5 * G_USEC_PER_SEC,
      "the stop took %" G_GINT64_FORMAT " us", g_get_monotonic_time () - t0);
  /* only the simulator delays the frozen sink's signals: on a GPU they
   * completed while it was frozen, and nothing waits to be rescued */
  fail_unless_equals_uint64 (cs_stat (src, "rescues"), cs_is_sim ? 1 : 0);
  fail_unless_equals_uint64 (cs_stat (src, "peers-lost"), 0);
  fail_unless (ipc_drained_within (1000), "a GPU wait is left stuck");
  fail_unless (kill (pid, SIGKILL) == 0);
  fail_unless (waitpid (pid, &status, 0) == pid && WIFSIGNALED (status));
  unlink (path);
  gst_object_unref (src);
  gst_object_unref (p);
  g_free (desc);
  g_free (path);
}

GST_END_TEST;

GST_START_TEST (test_sink_killed_error)
{
  sink_killed ("error");
}

GST_END_TEST;

GST_START_TEST (test_sink_killed_eos)
{
  sink_killed ("eos");
}

GST_END_TEST;

GST_START_TEST (test_sink_killed_reconnect)
{
  sink_killed ("reconnect");
}

GST_END_TEST;

typedef enum
{
  PEER_KILLED,
  PEER_FROZEN,
  PEER_ALIVE,
  PEER_KILLED_AFTER_BYE,
} PeerState;

/* the simulator runs the source's release signals this late: past the
 * stop's one-second grace */
#define LATE_SIGNALS "cuSignalExternalSemaphoresAsync:3000000"

static gpointer
kill_later (gpointer data)
{
  g_usleep (300 * 1000);
  kill (GPOINTER_TO_INT (data), SIGKILL);
  return NULL;
}

/* the sink stops while a source's release signals, which its stream
 * waits for, are pending, and that source is killed (and reaped), frozen
 * (SIGSTOP, and seen stopped), alive, or killed 300 ms into the stop,
 * after it answered the sink's BYE with its own but before its (late)
 * signals ran. The stop rescues a killed source's semaphore at once (its
 * connection closed without BYE), a frozen one's and the one killed after
 * BYE once the one-second grace is over, where their signals are still
 * pending, an alive one's never (it answers BYE, and its signals run).
 * The stop ends, its CPU wait for the stream too, and every simulated
 * stream goes idle. */
static void
sink_stops_with_pending (PeerState peer)
{
  static const gchar *tags[] = { "s", "f", "a", "b" };
  gchar *path = sock_path (tags[peer]);
  GstElement *sink, *p = start_sink (path, 2, &sink, GST_STATE_PLAYING);
  GThread *killer = NULL;
  gint64 t0;
  GPid pid;
  int status;
  guint64 rescues;

  pid = ipc_spawn_reader (path, peer == PEER_KILLED_AFTER_BYE ?
      LATE_SIGNALS : SLOW_SIGNALS);
  fail_unless_equals_uint64 (ipc_wait_stat (sink, "sessions", 1), 1);
  /* the slot was reused: the sink's stream waits for the source's
   * delayed release signals */
  fail_unless (ipc_wait_stat (sink, "waits", 4) >= 4);
  if (peer == PEER_FROZEN) {
    /* kill() returns before the child has stopped: until it has, it could
     * still read the sink's BYE and close its connection */
    fail_unless (kill (pid, SIGSTOP) == 0);
    fail_unless (waitpid (pid, &status, WUNTRACED) == pid
        && WIFSTOPPED (status));
  } else if (peer == PEER_KILLED) {
    /* dead, and its connection closed, before the stop */
    fail_unless (kill (pid, SIGKILL) == 0);
    fail_unless (waitpid (pid, &status, 0) == pid && WIFSIGNALED (status));
  } else if (peer == PEER_KILLED_AFTER_BYE) {
    killer = g_thread_new ("killer", kill_later, GINT_TO_POINTER (pid));
  }
  t0 = g_get_monotonic_time ();
  gst_element_set_state (p, GST_STATE_NULL);
  fail_unless (g_get_monotonic_time () - t0 < 5 * G_USEC_PER_SEC,
      "the stop took %" G_GINT64_FORMAT " us", g_get_monotonic_time () - t0);
  if (killer)
    g_thread_join (killer);
  /* Rescues where the source's signals are still pending: on the
   * simulator, which delays them, all but the alive source's. On a GPU a
   * frozen process's queued signals complete, and a killed source's have
   * usually run before the kill, so that nothing is left to rescue. */
  rescues = cs_stat (sink, "rescues");
  if (!cs_is_sim && (peer == PEER_KILLED || peer == PEER_KILLED_AFTER_BYE)) {
    fail_unless (rescues <= 1, "%" G_GUINT64_FORMAT " rescues", rescues);
  } else {
    fail_unless_equals_uint64 (rescues, peer != PEER_ALIVE && cs_is_sim);
  }
  fail_unless_equals_uint64 (cs_stat (sink, "sessions"), 0);
  /* a source that closed without BYE is lost (noticed by the socket
   * thread or the stop); a frozen one is not, nor one that answered the
   * sink's BYE, whatever happened to it after */
  fail_unless_equals_uint64 (cs_stat (sink, "sessions-lost"),
      peer == PEER_KILLED ? 1 : 0);
  fail_unless_equals_uint64 (cs_stat (sink, "cpu-syncs"), 1);
  fail_unless (ipc_drained_within (1000), "a GPU wait is left stuck");
  if (peer == PEER_FROZEN || peer == PEER_ALIVE)
    fail_unless (kill (pid, SIGKILL) == 0);
  if (peer != PEER_KILLED)
    fail_unless (waitpid (pid, &status, 0) == pid && WIFSIGNALED (status));
  stop (p, sink);
  g_free (path);
}

GST_START_TEST (test_sink_stops_source_killed)
{
  sink_stops_with_pending (PEER_KILLED);
}

GST_END_TEST;

GST_START_TEST (test_sink_stops_source_frozen)
{
  sink_stops_with_pending (PEER_FROZEN);
}

GST_END_TEST;

GST_START_TEST (test_sink_stops_source_alive)
{
  sink_stops_with_pending (PEER_ALIVE);
}

GST_END_TEST;

GST_START_TEST (test_sink_stops_source_killed_after_bye)
{
  sink_stops_with_pending (PEER_KILLED_AFTER_BYE);
}

GST_END_TEST;

/* The sink sends N frames and stops at EOS while its source is frozen
 * (SIGSTOP) with every frame still in its socket: the stop does not wait
 * for frames no source released (nothing of its own waits on the GPU), and
 * shuts the connection. The source, thawed, reads on to the BYE: every
 * frame byte-exact, no error, and no release signalled or sent (the
 * sink's end was closed from its first one). */
GST_START_TEST (test_sink_stops_source_behind)
{
  const guint n = 12;
  gchar *path = sock_path ("h");
  gchar *desc = g_strdup_printf ("videotestsrc " PATTERN " num-buffers=%u ! "
      "video/x-raw,format=" FORMAT ",width=%d,height=%d,framerate=30/1 ! "
      "cudaupload ! cudasyncipcsink name=sink max-buffers=%u sync=false "
      "socket-path=%s", n, W, H, n, path);
  GstElement *p = gst_parse_launch (desc, NULL);
  GstElement *sink = gst_bin_get_by_name (GST_BIN (p), "sink");
  GstBus *bus = gst_element_get_bus (p);
  GstMessage *msg;
  gint out_fd, status;
  gchar *out;
  GPid pid;

  ipc_connect_new_semaphore (p, "sink");
  fail_unless (gst_element_set_state (p, GST_STATE_PAUSED) !=
      GST_STATE_CHANGE_FAILURE);
  pid = ipc_spawn_source (path, n, "wait-mode=gpu", NULL, &out_fd);
  fail_unless_equals_uint64 (ipc_wait_stat (sink, "sessions", 1), 1);
  fail_unless (kill (pid, SIGSTOP) == 0);
  fail_unless (waitpid (pid, &status, WUNTRACED) == pid && WIFSTOPPED (status));
  gst_element_set_state (p, GST_STATE_PLAYING);
  msg = gst_bus_timed_pop_filtered (bus, 20 * GST_SECOND,
      GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  fail_unless (msg && GST_MESSAGE_TYPE (msg) == GST_MESSAGE_EOS);
  gst_message_unref (msg);
  gst_element_set_state (p, GST_STATE_NULL);
  fail_unless_equals_uint64 (cs_stat (sink, "frames-sent"), n);
  fail_unless_equals_uint64 (cs_stat (sink, "rescues"), 0);
  fail_unless (kill (pid, SIGCONT) == 0);
  out = ipc_source_result (pid, out_fd);
  fail_unless_equals_uint64 (ipc_field_of (out, "frames"), n);
  fail_unless_equals_uint64 (ipc_field_of (out, "signals"), 0);
  fail_unless_equals_uint64 (ipc_field_of (out, "releases"), 0);
  fail_unless_equals_uint64 (ipc_field_of (out, "rescues"), 0);
  fail_unless (ipc_drained_within (1000), "a GPU wait is left stuck");
  g_free (out);
  gst_object_unref (bus);
  gst_object_unref (sink);
  gst_object_unref (p);
  g_free (desc);
  g_free (path);
}

GST_END_TEST;

/* a listener that closes its first @n connections before any message,
 * then goes */
typedef struct
{
  gint fd;
  guint n;
} Unanswered;

#define UNANSWERED 3

static gpointer
close_unanswered (gpointer data)
{
  Unanswered *u = data;
  guint i;

  for (i = 0; i < u->n; i++) {
    struct pollfd pfd = { u->fd, POLLIN, 0 };
    gint c;

    /* (a source that failed before connecting: the test's checks fail) */
    if (poll (&pfd, 1, 10000) != 1)
      break;
    c = accept (u->fd, NULL, NULL);
    fail_unless (c >= 0);
    close (c);
  }
  close (u->fd);
  return NULL;
}

/* a listener at @path, in a thread, closing @u->n connections */
static GThread *
unanswered_listener (const gchar * path, Unanswered * u)
{
  struct sockaddr_un addr = {.sun_family = AF_UNIX };

  u->fd = socket (AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
  g_strlcpy (addr.sun_path, path, sizeof (addr.sun_path));
  fail_unless (u->fd >= 0 && bind (u->fd, (struct sockaddr *) &addr,
          sizeof (addr)) == 0 && listen (u->fd, 4) == 0);
  return g_thread_new ("listener", close_unanswered, u);
}

GST_START_TEST (test_reconnect_unanswered)
{
  Unanswered u = { -1, UNANSWERED };
  LostSrc ls;
  GstElement *src;
  GstMessage *msg;
  GThread *listener;
  GPid pid;

  lost_src_init (&ls, "u", "reconnect");
  src = ls.src;
  listener = unanswered_listener (ls.path, &u);
  gst_element_set_state (ls.p, GST_STATE_PLAYING);
  g_thread_join (listener);
  unlink (ls.path);
  pid = ipc_spawn_sink (ls.path, NULL);
  fail_unless (ipc_wait_stat (src, "frames", 10) >= 10);
  fail_unless_equals_uint64 (cs_stat (src, "peers-lost"), 0);
  fail_unless_equals_uint64 (cs_stat (src, "rescues"), 0);
  /* (a connection closed before our HELLO went out fails in the
   * handshake and is not counted; one closed after it is) */
  fail_unless (cs_stat (src, "connections") >= 1 &&
      cs_stat (src, "connections") <= UNANSWERED + 1);
  msg = gst_bus_pop_filtered (ls.bus, GST_MESSAGE_ERROR | GST_MESSAGE_EOS |
      GST_MESSAGE_WARNING);
  fail_if (msg != NULL, "posted %s", msg ? GST_MESSAGE_TYPE_NAME (msg) : "");
  kill_child (pid);
  lost_src_clear (&ls);
}

GST_END_TEST;

/* outside reconnect mode the same closed connection is the element error
 * "Could not connect to the sink", with nothing counted as a lost peer */
static void
unanswered_error (const gchar * peer_lost)
{
  Unanswered u = { -1, 1 };
  LostSrc ls;
  GstElement *src;
  GThread *listener;
  GstMessage *msg;
  GError *err = NULL;
  gchar *dbg = NULL;

  lost_src_init (&ls, "e", peer_lost);
  src = ls.src;
  listener = unanswered_listener (ls.path, &u);
  gst_element_set_state (ls.p, GST_STATE_PLAYING);
  g_thread_join (listener);
  msg = gst_bus_timed_pop_filtered (ls.bus, 10 * GST_SECOND,
      GST_MESSAGE_ERROR | GST_MESSAGE_EOS | GST_MESSAGE_WARNING);
  fail_unless (msg && GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR,
      "peer-lost=%s: %s", peer_lost, msg ? GST_MESSAGE_TYPE_NAME (msg) :
      "nothing posted");
  fail_unless (GST_MESSAGE_SRC (msg) == GST_OBJECT (src));
  gst_message_parse_error (msg, &err, &dbg);
  fail_unless (g_error_matches (err, GST_RESOURCE_ERROR,
          GST_RESOURCE_ERROR_OPEN_READ_WRITE), "%s", err->message);
  fail_unless (g_str_has_prefix (err->message, "The sink closed the "
          "connection before its greeting: it may not allow this user"),
      "%s", err->message);
  /* (closed before the sink's HELLO, or while ours went out) */
  fail_unless (dbg && (strstr (dbg, "HELLO") || strstr (dbg, "handshake")),
      "%s", dbg);
  gst_message_unref (msg);
  fail_unless_equals_uint64 (cs_stat (src, "peers-lost"), 0);
  fail_unless_equals_uint64 (cs_stat (src, "frames"), 0);
  /* not tried again */
  fail_unless (cs_stat (src, "connections") <= 1);
  lost_src_clear (&ls);
  g_error_free (err);
  g_free (dbg);
}

GST_START_TEST (test_unanswered_error)
{
  unanswered_error ("error");
  unanswered_error ("eos");
}

GST_END_TEST;

static guint
count_fds (void)
{
  GDir *d = g_dir_open ("/proc/self/fd", 0, NULL);
  guint n = 0;

  while (g_dir_read_name (d))
    n++;
  g_dir_close (d);
  return n;
}

/* the sink's objects: its shareable frames are memhandle + varange (the
 * upstream pool's cuMemAlloc buffers are not counted: how many it keeps
 * depends on how far the live source runs ahead) */
static const gchar *kinds[] = { "extsem", "stream", "event", "memhandle",
  "varange"
};

/* The releaser that keeps the sink's input until its copy ran keeps one
 * completed event for each of its jobs that were ever pending at once,
 * to use again: their number follows how far the live source ran ahead
 * on a loaded machine (1 to 3 here), not the cycles. A leak grows with the
 * cycles. */
#define EVENT_SLACK 4

static gboolean
kind_settled (guint k, const gint * live)
{
  gint n = cs_sim_live (kinds[k]);

  return g_str_equal (kinds[k], "event") ? n >= live[k] &&
      n <= live[k] + EVENT_SLACK : n == live[k];
}

static gboolean
settled (guint fds, const gint * live)
{
  guint k;

  gst_cuda_sync_wait_idle ();
  for (k = 0; cs_is_sim && k < G_N_ELEMENTS (kinds); k++)
    if (!kind_settled (k, live))
      return FALSE;
  return count_fds () == fds;
}

/* 100 sources connect and are killed (some before, some while reading):
 * afterwards the sink has the fds and the simulator the live objects it
 * had after the first one (which made the sink's one shareable frame) */
GST_START_TEST (test_connect_kill_cycles)
{
  const guint cycles =
      g_getenv ("IPC_CYCLES") ? atoi (g_getenv ("IPC_CYCLES")) : 100;
  gchar *path = sock_path ("c");
  GstElement *sink, *p = start_sink (path, 1, &sink, GST_STATE_PLAYING);
  gint live[G_N_ELEMENTS (kinds)];
  guint i, k, fds = 0;

  for (i = 0; i <= cycles; i++) {
    GPid pid = ipc_spawn_reader (path, NULL);
    fail_unless_equals_uint64 (ipc_wait_stat (sink, "sessions-total", i + 1),
        i + 1);
    /* the first one makes the sink's one shareable frame */
    if (i % 2 || i == 0)
      ipc_wait_stat (sink, "frames-sent", cs_stat (sink, "frames-sent") + 1);
    kill_child (pid);
    fail_unless_equals_uint64 (ipc_wait_stat (sink, "sessions-lost", i + 1),
        i + 1);
    fail_unless (ipc_drained_within (1000), "a GPU wait is left stuck");
    gst_cuda_sync_wait_idle ();
    if (i == 0) {
      fds = count_fds ();
      for (k = 0; cs_is_sim && k < G_N_ELEMENTS (kinds); k++)
        live[k] = cs_sim_live (kinds[k]);
    }
  }
  /* the last session's objects go asynchronously: settled within 1 s */
  for (i = 0; i < 100 && !settled (fds, live); i++)
    g_usleep (10000);
  fail_unless_equals_int (count_fds (), fds);
  for (k = 0; cs_is_sim && k < G_N_ELEMENTS (kinds); k++)
    fail_unless (kind_settled (k, live), "%s: %d live, %d before",
        kinds[k], cs_sim_live (kinds[k]), live[k]);
  /* one rescue per source whose semaphore had arrived: at least those
   * killed after a frame */
  fail_unless (cs_stat (sink, "rescues") <= cycles + 1 &&
      cs_stat (sink, "rescues") >= cycles / 2 + 1);
  stop (p, sink);
  g_free (path);
}

GST_END_TEST;

static Suite *
cudaipckill_suite (void)
{
  Suite *s = suite_create ("cudaipckill");
  TCase *tc = tcase_create ("general");

  tcase_add_checked_fixture (tc, cs_setup, cs_teardown);
  tcase_add_test (tc, test_source_killed_after_handshake);
  tcase_add_test (tc, test_source_killed_while_reading);
  tcase_add_test (tc, test_source_stops_sink_frozen);
  tcase_add_test (tc, test_sink_killed_error);
  tcase_add_test (tc, test_sink_killed_eos);
  tcase_add_test (tc, test_sink_killed_reconnect);
  tcase_add_test (tc, test_sink_stops_source_killed);
  tcase_add_test (tc, test_sink_stops_source_frozen);
  tcase_add_test (tc, test_sink_stops_source_alive);
  tcase_add_test (tc, test_sink_stops_source_killed_after_bye);
  tcase_add_test (tc, test_sink_stops_source_behind);
  tcase_add_test (tc, test_reconnect_unanswered);
  tcase_add_test (tc, test_unanswered_error);
  suite_add_tcase (s, tc);
  /* each cycle starts a process that initialises CUDA: about a second on
   * a GPU */
  tc = tcase_create ("cycles");
  tcase_add_checked_fixture (tc, cs_setup, cs_teardown);
  tcase_set_timeout (tc, 400);
  tcase_add_test (tc, test_connect_kill_cycles);
  suite_add_tcase (s, tc);
  /* The sink's streams that wait for the source's values share one
   * hardware queue with cudaupload's (the simulator's worst case of the
   * driver's CUDA_DEVICE_MAX_CONNECTIONS): the upload, and upstream's
   * streaming thread with it, wait too, and the sink rescues the values
   * before its stop proper, which runs after that thread. (A source
   * killed after its BYE is not tried: the sink says BYE only in the stop
   * proper.) */
  tc = tcase_create ("one-queue");
  tcase_add_checked_fixture (tc, cs_setup_one_queue, cs_teardown);
  tcase_add_test (tc, test_sink_stops_source_killed);
  tcase_add_test (tc, test_sink_stops_source_frozen);
  tcase_add_test (tc, test_sink_stops_source_alive);
  suite_add_tcase (s, tc);
  return s;
}

IPC_CHECK_MAIN (cudaipckill);

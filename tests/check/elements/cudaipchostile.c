/* gst-cudasync
 * Copyright (C) 2026 gst-cudasync developers
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * cudasyncipcsink against peers that are allowed to connect but hostile or
 * broken (docs/ipc-protocol.md): this test is such a peer (the fake
 * source of ../ipcfuzz.c), and a real source in a child process checks,
 * byte for byte, that the sink still serves others; the sink's state
 * change to NULL must end (a thread runs it, the test fails when it does
 * not within 20 s).
 *
 * test_bye_unsignalled: RELEASE of a value never signalled, then BYE and
 *   close: the value is rescued once the source is gone.
 * test_release_unsignalled: the same value, by a source that stays
 *   connected: dropped and rescued after hold-timeout.
 * test_release_in_ready: a release signalled late, over a second after
 *   the sink left PAUSED: neither rescued nor dropped.
 * test_release_in_ready_stuck: one never signalled there: rescued a second
 *   after the release, not before.
 * test_bye_in_ready: a source gone after BYE with its value pending, while
 *   the sink sits in READY: rescued a second after it went, before the
 *   BYE grace.
 * test_release_flood (own fixture): a source gives every frame back at
 *   once with a value it never signals: the sink's streams stay short, the
 *   source is dropped after hold-timeout, and the sink serves and stops.
 * test_echoed_acquire: the sink's own acquire semaphore sent back as the
 *   release semaphore is refused.
 * test_echoed_acquire_identity: the identity check behind it tells
 *   distinct files of one inode apart (the NVIDIA driver's opaque fds).
 * test_empty_packets: empty packets that carry fds leave no fd behind.
 * test_connection_flood: connections beyond max-connections are closed at
 *   once, idle ones after handshake-timeout.
 * test_hold_wait, test_hold_drop: a source that never releases is dropped
 *   after hold-timeout, with on-full=wait and on-full=drop.
 * test_hold_not_needed: frames held while the sink has others are no
 *   reason to drop a source.
 */
#define _GNU_SOURCE
#include "../ipcfuzz.h"
#include <fcntl.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/socket.h>
#include <unistd.h>

/* how long the sink's stop may take: its grace, with room for a loaded
 * machine */
#define STOP_LIMIT_S 20

static gchar *
sock_path (const gchar * tag)
{
  return g_strdup_printf ("%s/cudaipc-h%s%d.sock", g_get_tmp_dir (), tag,
      getpid ());
}

/* a live NV12 source (with @src_props) into the sink, with @props */
static GstElement *
sink_pipeline_full (const gchar * path, const gchar * src_props,
    const gchar * props, GstElement ** sink)
{
  gchar *desc = g_strdup_printf ("videotestsrc " PATTERN " is-live=true %s ! "
      "video/x-raw,format=" FORMAT ",width=%d,height=%d,framerate=30/1 ! "
      "cudaupload ! cudasyncipcsink name=sink socket-path=%s %s", src_props,
      W, H, path, props);
  GstElement *p = gst_parse_launch (desc, NULL);

  fail_unless (p != NULL, "%s", desc);
  *sink = gst_bin_get_by_name (GST_BIN (p), "sink");
  ipc_connect_new_semaphore (p, "sink");
  fail_if (gst_element_set_state (p, GST_STATE_PLAYING) ==
      GST_STATE_CHANGE_FAILURE);
  g_free (desc);
  return p;
}

static GstElement *
sink_pipeline (const gchar * path, const gchar * props, GstElement ** sink)
{
  return sink_pipeline_full (path, "", props, sink);
}

static gpointer
to_null (gpointer data)
{
  gst_element_set_state (data, GST_STATE_NULL);
  return NULL;
}

/* the pipeline reaches NULL within STOP_LIMIT_S (the test fails, and the
 * thread is left behind, when it does not) */
static void
stop_in_time (GstElement * p)
{
  GThread *t = g_thread_new ("to-null", to_null, p);
  gint64 end = g_get_monotonic_time () + STOP_LIMIT_S * G_USEC_PER_SEC;
  GstState state = GST_STATE_VOID_PENDING;

  while (g_get_monotonic_time () < end) {
    GST_OBJECT_LOCK (p);
    state = GST_STATE (p);
    GST_OBJECT_UNLOCK (p);
    if (state == GST_STATE_NULL && GST_STATE_PENDING (p) ==
        GST_STATE_VOID_PENDING)
      break;
    g_usleep (20000);
  }
  fail_unless (state == GST_STATE_NULL, "the sink did not stop within %d s",
      STOP_LIMIT_S);
  g_thread_join (t);
}

/* a real source in a child gets @n frames, byte for byte */
static void
real_source_gets_frames (const gchar * path, guint n)
{
  gint out_fd;
  GPid pid = ipc_spawn_source (path, n, "wait-mode=gpu", NULL, &out_fd);
  gchar *out = ipc_source_result (pid, out_fd);

  fail_unless_equals_uint64 (ipc_field_of (out, "frames"), n);
  g_free (out);
}

/* The rescues but those of sources lost: a real source that closes just
 * after its BYE can meet the sink sending it a frame, and is lost (and
 * rescued) then */
static guint64
rescues_not_lost (GstElement * sink)
{
  GstStructure *st;
  guint64 rescues = 0, lost = 0;

  g_object_get (sink, "stats", &st, NULL);
  gst_structure_get_uint64 (st, "rescues", &rescues);
  gst_structure_get_uint64 (st, "sessions-lost", &lost);
  gst_structure_free (st);
  fail_unless (rescues >= lost);
  return rescues - lost;
}

/* a fake source that completed the handshake, and got a frame (its id) */
static gint
fake_source (const gchar * path, TestSem * ts, guint32 * id)
{
  gint sock = fz_connect_to (path);

  fz_source_hello (sock, test_sem_export_fd (ts));
  *id = fz_wait_frame (sock, 5000);
  fail_unless (*id != 0, "no frame for the fake source");
  return sock;
}

/* a sink (with @props) fed by a live source, and a fake source of it that
 * took a frame */
typedef struct
{
  gchar *path;
  GstElement *p, *sink;
  TestSem *ts;
  FzScript *script;
  gint sock;
  guint32 id;                   /* the frame the fake source took */
} Peer;

/* (with @src_props for the live source) */
static void
peer_start_full (Peer * c, const gchar * tag, const gchar * src_props,
    const gchar * props)
{
  c->path = sock_path (tag);
  c->p = sink_pipeline_full (c->path, src_props, props, &c->sink);
  c->ts = test_sem_new (TRUE, 0);
  c->script = g_new0 (FzScript, 1);
  c->sock = fake_source (c->path, c->ts, &c->id);
}

static void
peer_start (Peer * c, const gchar * tag, const gchar * props)
{
  peer_start_full (c, tag, "", props);
}

/* one message of the fake source */
static void
peer_send (Peer * c, guint16 type, const void *body, gsize size)
{
  c->script->n = 0;
  fz_pkt_send (c->sock, fz_script_add (c->script, type, body, size));
}

/* the frame @id given back with @value */
static void
peer_release (Peer * c, guint32 id, guint64 value)
{
  GstCudaSyncIpcRelease rel = { id, 0, value };

  peer_send (c, GST_CUDA_SYNC_IPC_MSG_RELEASE, &rel, sizeof (rel));
}

static void
peer_bye (Peer * c)
{
  GstCudaSyncIpcBye bye = { 0, 0 };

  peer_send (c, GST_CUDA_SYNC_IPC_MSG_BYE, &bye, sizeof (bye));
}

/* the sink closes the fake source's connection */
static void
peer_closed (Peer * c)
{
  fail_unless (fz_until_closed (c->sock, 5000), "the sink kept the "
      "connection");
  close (c->sock);
  c->sock = -1;
}

/* the sink's pipeline is set to READY, then left there for 1.5 s */
static void
peer_ready (Peer * c)
{
  fail_unless_equals_int (gst_element_set_state (c->p, GST_STATE_READY),
      GST_STATE_CHANGE_SUCCESS);
  g_usleep (1500 * 1000);
}

/* after the sink's stop */
static void
peer_end (Peer * c)
{
  if (c->sock >= 0)
    close (c->sock);
  g_free (c->script);
  test_sem_free (c->ts);
  gst_object_unref (c->sink);
  gst_object_unref (c->p);
  g_free (c->path);
}

/* the sink's stat @field at @ms after @since (monotonic, us) */
static guint64
stat_at (GstElement * sink, const gchar * field, gint64 since, guint ms)
{
  gint64 wait = since + ms * 1000 - g_get_monotonic_time ();

  if (wait > 0)
    g_usleep (wait);
  return cs_stat (sink, field);
}

/* the fake source gives its frame back with a value it never signals,
 * says goodbye and closes; the sink counted the release */
static void
release_unsignalled_then_bye (Peer * c)
{
  peer_release (c, c->id, GST_CUDA_SYNC_IPC_MAX_VALUE - 1);
  peer_bye (c);
  peer_closed (c);
  fail_unless_equals_uint64 (ipc_wait_stat (c->sink, "releases", 1), 1);
}

GST_START_TEST (test_bye_unsignalled)
{
  Peer c;

  peer_start (&c, "b", "max-buffers=2");
  release_unsignalled_then_bye (&c);
  real_source_gets_frames (c.path, 10);
  fail_unless_equals_uint64 (rescues_not_lost (c.sink), 1);
  fail_unless_equals_uint64 (cs_stat (c.sink, "sessions-invalid"), 0);
  stop_in_time (c.p);
  fail_unless_equals_uint64 (rescues_not_lost (c.sink), 1);
  peer_end (&c);
}

GST_END_TEST;

/* the same, but the sink stops while the gone source's value is pending:
 * the stop rescues it */
GST_START_TEST (test_bye_unsignalled_stop)
{
  Peer c;

  peer_start (&c, "s", "max-buffers=1");
  release_unsignalled_then_bye (&c);
  stop_in_time (c.p);
  fail_unless_equals_uint64 (cs_stat (c.sink, "rescues"), 1);
  fail_unless (ipc_drained_within (5000), "a GPU wait is left stuck");
  peer_end (&c);
}

GST_END_TEST;

/* The sink left PAUSED more than a second ago (it stays in READY): a
 * connected source gives its frame back with a value it signals 200 ms
 * later. The stop's grace counts from the release too: the source is
 * neither rescued nor dropped. */
GST_START_TEST (test_release_in_ready)
{
  Peer c;

  peer_start (&c, "r", "max-buffers=2");
  peer_ready (&c);
  peer_release (&c, c.id, 1);
  fail_unless_equals_uint64 (ipc_wait_stat (c.sink, "releases", 1), 1);
  g_usleep (200 * 1000);
  fail_unless (test_sem_host_signal (c.ts, 1));
  g_usleep (1500 * 1000);
  fail_unless_equals_uint64 (cs_stat (c.sink, "rescues"), 0);
  fail_unless_equals_uint64 (cs_stat (c.sink, "sessions"), 1);
  /* goodbye: its values ran, nothing to rescue at the stop either */
  peer_bye (&c);
  peer_closed (&c);
  stop_in_time (c.p);
  fail_unless_equals_uint64 (cs_stat (c.sink, "rescues"), 0);
  peer_end (&c);
}

GST_END_TEST;

/* A real source wants frames while the fake source @c holds one: it gets
 * them once hold-timeout has dropped @c (closed by the sink), which is
 * rescued once; then the sink stops in time */
static void
check_dropped_for_hold (Peer * c)
{
  real_source_gets_frames (c->path, 10);
  peer_closed (c);
  fail_unless_equals_uint64 (cs_stat (c->sink, "hold-timeouts"), 1);
  fail_unless_equals_uint64 (rescues_not_lost (c->sink), 1);
  stop_in_time (c->p);
  peer_end (c);
}

/* a value never signalled, by a source that stays connected: it holds
 * the frame until then, and is dropped and rescued after hold-timeout */
GST_START_TEST (test_release_unsignalled)
{
  Peer c;

  peer_start (&c, "u", "max-buffers=2 hold-timeout=2000000000");
  peer_release (&c, c.id, GST_CUDA_SYNC_IPC_MAX_VALUE - 1);
  fail_unless_equals_uint64 (ipc_wait_stat (c.sink, "releases", 1), 1);
  check_dropped_for_hold (&c);
}

GST_END_TEST;

GST_START_TEST (test_echoed_acquire)
{
  gchar *path = sock_path ("e");
  GstElement *sink, *p = sink_pipeline (path, "max-buffers=2", &sink);
  gint sock = fz_connect_to (path), fd;

  /* the sink's acquire semaphore, sent back as the release semaphore */
  fd = fz_recv_fd (sock, GST_CUDA_SYNC_IPC_MSG_SEMAPHORE, 5000);
  fail_unless (fd >= 0, "no acquire semaphore from the sink");
  fz_source_hello (sock, fd);
  fail_unless (fz_until_closed (sock, 5000), "the sink kept the connection");
  close (sock);
  fail_unless_equals_uint64 (ipc_wait_stat (sink, "sessions-invalid", 1), 1);
  fail_unless_equals_uint64 (cs_stat (sink, "rescues"), 0);
  real_source_gets_frames (path, 10);
  stop_in_time (p);
  fail_unless_equals_uint64 (cs_stat (sink, "sessions-invalid"), 1);
  gst_object_unref (sink);
  gst_object_unref (p);
  g_free (path);
}

GST_END_TEST;

/* How the sink knows its own acquire semaphore when it comes back: the
 * same open file, whatever the inode. The NVIDIA driver exports every
 * opaque fd as a file of one device node, so distinct semaphores share an
 * inode; eventfds (one anonymous inode for all) stand for them here, and
 * memfds for the simulator's (regular files). A source's own semaphore is
 * never taken for the sink's. */
GST_START_TEST (test_echoed_acquire_identity)
{
  gint a = eventfd (0, EFD_CLOEXEC), b = eventfd (0, EFD_CLOEXEC);
  gint m = memfd_create ("one", MFD_CLOEXEC), n =
      memfd_create ("two", MFD_CLOEXEC);
  gint a2 = dup (a), m2 = dup (m);
  struct stat sa, sb;

  fail_unless (a >= 0 && b >= 0 && m >= 0 && n >= 0 && a2 >= 0 && m2 >= 0);
  /* what an inode comparison would get wrong */
  fail_unless (fstat (a, &sa) == 0 && fstat (b, &sb) == 0);
  fail_unless (sa.st_ino == sb.st_ino && sa.st_dev == sb.st_dev);
  fail_if (gst_cuda_sync_ipc_same_file (a, b));
  fail_unless (gst_cuda_sync_ipc_same_file (a, a2));
  fail_if (gst_cuda_sync_ipc_same_file (m, n));
  fail_unless (gst_cuda_sync_ipc_same_file (m, m2));
  fail_if (gst_cuda_sync_ipc_same_file (a, m));
  fail_if (gst_cuda_sync_ipc_same_file (a, -1));
  close (a);
  close (a2);
  close (b);
  close (m);
  close (m2);
  close (n);
}

GST_END_TEST;

/* The fds but sockets once the GPU work ran: what the sink received, its
 * semaphores and memory. Its connections' sockets are checked by the
 * peer, which sees its end closed only once the sink closed its own.
 * On the simulator, less one per frame of @sink's: on 1.24+ upstream
 * writes into the pool the sink proposes, whose frames (an fd each there;
 * none on the NVIDIA driver, which keeps no fd of an exported allocation)
 * the sink makes as upstream asks for them, while the pipeline runs. */
static gint
fds_settled (GstElement * sink)
{
  guint64 before, after;
  guint n;

  do {
    before = cs_stat (sink, "buffers-allocated");
    fz_settled_fds ();
    n = fz_count_fds_but_sockets ();
    after = cs_stat (sink, "buffers-allocated");
  } while (before != after);
  return (gint) n - (cs_is_sim ? (gint) after : 0);
}

/* an empty packet with @n_fds copies of @fd, on a connection of its own */
static void
empty_packet (const gchar * path, gint fd, guint n_fds)
{
  gint *fds = g_new (gint, n_fds), sock = fz_connect_to (path);
  guint i;

  for (i = 0; i < n_fds; i++)
    fds[i] = fd;
  fz_send_raw (sock, "", 0, fds, n_fds);
  fail_unless (fz_until_closed (sock, 5000), "the sink kept the connection");
  close (sock);
  g_free (fds);
}

GST_START_TEST (test_empty_packets)
{
  gchar *path = sock_path ("f");
  GstElement *sink, *p = sink_pipeline (path, "", &sink);
  gint fd = open ("/dev/null", O_RDONLY | O_CLOEXEC);
  guint i;
  gint fds;

  /* one first: what the sink keeps of a connection (the last semaphore
   * the test made for it) is there before the count */
  empty_packet (path, fd, 1);
  fail_unless_equals_uint64 (ipc_wait_stat (sink, "sessions-total", 1), 1);
  fds = fds_settled (sink);
  for (i = 0; i < 20; i++) {
    empty_packet (path, fd, 1);
    empty_packet (path, fd, 250);
  }
  fail_unless_equals_uint64 (ipc_wait_stat (sink, "sessions-total", 41), 41);
  fail_unless_equals_uint64 (ipc_wait_stat (sink, "sessions-lost", 41), 41);
  fail_unless_equals_int (fds_settled (sink), fds);
  real_source_gets_frames (path, 5);
  stop_in_time (p);
  close (fd);
  gst_object_unref (sink);
  gst_object_unref (p);
  g_free (path);
}

GST_END_TEST;

GST_START_TEST (test_connection_flood)
{
  const guint max = 4, n = 12;
  gchar *path = sock_path ("c");
  GstElement *sink, *p = sink_pipeline (path, "max-connections=4 "
      "handshake-timeout=2000000000", &sink);
  gint socks[12], warm = fz_connect_to (path);
  guint i;
  gint fds;

  /* one first (what the sink keeps of a connection is there before the
   * count), gone once its semaphore came */
  close (fz_recv_fd (warm, GST_CUDA_SYNC_IPC_MSG_SEMAPHORE, 5000));
  close (warm);
  fail_unless_equals_uint64 (ipc_wait_stat (sink, "sessions-lost", 1), 1);
  fds = fds_settled (sink);
  for (i = 0; i < n; i++)
    socks[i] = fz_connect_to (path);
  /* the ones beyond the limit at once, the others once their handshake
   * time is over: the sink closes every one */
  for (i = 0; i < n; i++)
    fail_unless (fz_until_closed (socks[i], 10000), "connection %u kept", i);
  fail_unless_equals_uint64 (cs_stat (sink, "sessions-over-limit"), n - max);
  fail_unless_equals_uint64 (cs_stat (sink, "handshake-timeouts"), max);
  fail_unless_equals_uint64 (cs_stat (sink, "sessions-total"), max + 1);
  for (i = 0; i < n; i++)
    close (socks[i]);
  fail_unless_equals_int (fds_settled (sink), fds);
  real_source_gets_frames (path, 10);
  fail_unless_equals_uint64 (cs_stat (sink, "handshake-timeouts"), max);
  stop_in_time (p);
  gst_object_unref (sink);
  gst_object_unref (p);
  g_free (path);
}

GST_END_TEST;

/* A fake source takes frames and never releases them, while a real one
 * wants frames too: once hold-timeout is over, the fake one is dropped
 * and rescued, and the real one gets its frames */
static void
hold_case (const gchar * on_full)
{
  gchar *props = g_strdup_printf ("max-buffers=2 hold-timeout=2000000000 "
      "on-full=%s", on_full);
  Peer c;

  peer_start (&c, on_full, props);
  check_dropped_for_hold (&c);
  g_free (props);
}

GST_START_TEST (test_hold_wait)
{
  hold_case ("wait");
}

GST_END_TEST;

GST_START_TEST (test_hold_drop)
{
  hold_case ("drop");
}

GST_END_TEST;

/* A source may keep frames as long as the sink has others: two frames
 * held by a fake source that never releases them, of a sink of four, are
 * not a reason to drop it, however long it keeps them */
GST_START_TEST (test_hold_not_needed)
{
  Peer c;

  peer_start_full (&c, "n", "num-buffers=2",
      "max-buffers=4 hold-timeout=300000000");
  fail_unless_equals_uint64 (ipc_wait_stat (c.sink, "frames-sent", 2), 2);
  /* five times hold-timeout */
  fail_if (fz_until_closed (c.sock, 1500), "the sink dropped the source");
  fail_unless_equals_uint64 (cs_stat (c.sink, "hold-timeouts"), 0);
  fail_unless_equals_uint64 (cs_stat (c.sink, "sessions"), 1);
  close (c.sock);
  c.sock = -1;
  stop_in_time (c.p);
  peer_end (&c);
}

GST_END_TEST;

/* The sink has been in READY for 1.5 s: the fake source gives its frame
 * back with a value it never signals (@bye: then says BYE and closes). The
 * stop's grace counts from the release (from the source's going): rescued
 * a second later, not at once; a gone source would be rescued only after
 * the BYE grace (two seconds) otherwise. hold-timeout is off. */
static void
check_rescued_in_ready (const gchar * tag, gboolean bye)
{
  Peer c;
  gint64 since;

  peer_start (&c, tag, "max-buffers=2 hold-timeout=0");
  peer_ready (&c);
  if (bye) {
    release_unsignalled_then_bye (&c);
  } else {
    peer_release (&c, c.id, GST_CUDA_SYNC_IPC_MAX_VALUE - 1);
    fail_unless_equals_uint64 (ipc_wait_stat (c.sink, "releases", 1), 1);
  }
  since = g_get_monotonic_time ();
  fail_unless_equals_uint64 (stat_at (c.sink, "rescues", since, 400), 0);
  fail_unless_equals_uint64 (stat_at (c.sink, "rescues", since, 1600), 1);
  if (!bye)
    peer_closed (&c);
  stop_in_time (c.p);
  fail_unless_equals_uint64 (cs_stat (c.sink, "rescues"), 1);
  fail_unless (ipc_drained_within (5000), "a GPU wait is left stuck");
  peer_end (&c);
}

GST_START_TEST (test_release_in_ready_stuck)
{
  check_rescued_in_ready ("k", FALSE);
}

GST_END_TEST;

GST_START_TEST (test_bye_in_ready)
{
  check_rescued_in_ready ("y", TRUE);
}

GST_END_TEST;

/* A source that gives every frame back at once with the next value of
 * its semaphore, which it never signals (a hostile one, or one whose GPU
 * hung): each frame it had is reused only after a wait that never ends.
 * The sink must not pile such waits up on its streams (a stream held up
 * takes only so many operations, then the next enqueue blocks the CPU:
 * the fixture makes that number small), but run out of free frames, drop
 * the source after hold-timeout and rescue it, then serve others and
 * stop. */
GST_START_TEST (test_release_flood)
{
  guint32 id;
  guint n = 0;
  Peer c;

  peer_start (&c, "x", "max-buffers=2 hold-timeout=2000000000");
  /* until the sink has no frame for it, or drops it */
  for (id = c.id; id != 0 && n < 300; id = fz_wait_frame (c.sock, 1000))
    peer_release (&c, id, ++n);
  GST_INFO ("the fake source gave %u frames back", n);
  fail_unless (n < 300, "the sink kept sending frames to a source whose "
      "release values never run");
  peer_closed (&c);
  fail_unless_equals_uint64 (cs_stat (c.sink, "hold-timeouts"), 1);
  fail_unless_equals_uint64 (rescues_not_lost (c.sink), 1);
  real_source_gets_frames (c.path, 10);
  stop_in_time (c.p);
  fail_unless (ipc_drained_within (5000), "a GPU wait is left stuck");
  peer_end (&c);
}

GST_END_TEST;

/* every stream its own hardware queue (nothing else holds the sink's
 * streams up), each taking few operations ahead */
static void
setup_short_streams (void)
{
  /* read when libcuda.so.1 loads, in this (forked) process */
  if (g_strcmp0 (g_getenv ("CUDASYNC_TEST_DRIVER"), "sim") == 0) {
    g_setenv ("CUDASIM_CONNECTIONS", "0", FALSE);
    g_setenv ("CUDASIM_STREAM_DEPTH", "256", FALSE);
  }
  cs_setup ();
}

static Suite *
cudaipchostile_suite (void)
{
  Suite *s = suite_create ("cudaipchostile");
  TCase *tc = tcase_create ("general");

  tcase_set_timeout (tc, 120);
  /* the rescues must end waits that hold up every stream of the context */
  tcase_add_checked_fixture (tc, cs_setup_one_queue, cs_teardown);
  tcase_add_test (tc, test_bye_unsignalled);
  tcase_add_test (tc, test_bye_unsignalled_stop);
  tcase_add_test (tc, test_release_unsignalled);
  tcase_add_test (tc, test_release_in_ready);
  tcase_add_test (tc, test_echoed_acquire);
  tcase_add_test (tc, test_echoed_acquire_identity);
  tcase_add_test (tc, test_empty_packets);
  tcase_add_test (tc, test_connection_flood);
  tcase_add_test (tc, test_hold_wait);
  tcase_add_test (tc, test_hold_drop);
  tcase_add_test (tc, test_hold_not_needed);
  tcase_add_test (tc, test_release_in_ready_stuck);
  tcase_add_test (tc, test_bye_in_ready);
  suite_add_tcase (s, tc);

  tc = tcase_create ("flood");
  tcase_set_timeout (tc, 120);
  tcase_add_checked_fixture (tc, setup_short_streams, cs_teardown);
  tcase_add_test (tc, test_release_flood);
  suite_add_tcase (s, tc);
  return s;
}

IPC_CHECK_MAIN (cudaipchostile);

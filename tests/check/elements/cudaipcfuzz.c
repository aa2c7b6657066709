/* gst-cudasync
 * Copyright (C) 2026 gst-cudasync developers
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Fuzzing both IPC elements with the protocol of docs/ipc-protocol.md:
 * this test is a fake source of cudasyncipcsink and a fake sink of
 * cudasyncipcsrc, and sends each a few thousand scripts of valid,
 * mutated and random messages (truncated, oversized, wrong counts, ids,
 * values, fd counts and fd kinds, layouts that do not fit the caps),
 * from a seed printed in the log (IPC_FUZZ_SEED and IPC_FUZZ_CASES
 * replay or resize a run). Every script ends with a message of an
 * unknown type, so that each case ends with the element refusing the
 * peer, unless it ended cleanly (BYE, EOS) before. Checked: no crash, no
 * case longer than 10 s (a watchdog aborts naming the case), the
 * elements' counters account for every case, the process's fd count is
 * what it was before the cases, no simulator violation, and the element
 * still works for a real peer afterwards.
 */
#define _GNU_SOURCE
#include "../ipcfuzz.h"
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

/* One case against the sink: HELLO and SEMAPHORE of a fake source (or
 * random packets), then RELEASEs of a frame it got, or random messages,
 * mutated; or a clean BYE. Returns TRUE for a clean BYE. */
static gboolean
sink_case (const gchar * path, GstCudaSyncVmm * vmm, guint kind)
{
  GstCudaSyncIpcHello hello = { 1, 0, GST_CUDA_SYNC_IPC_ROLE_SOURCE };
  GstCudaSyncIpcSemaphore sm = { GST_CUDA_SYNC_IPC_SEM_RELEASE, 1, 0 };
  GstCudaSyncIpcBye bye = { 0, 0 };
  FzScript *s = g_new0 (FzScript, 1);
  TestSem *ts = test_sem_new (TRUE, 0);
  gint sock = fz_connect_to (path);
  gboolean clean = FALSE;
  guint i;

  if (kind > 0) {
    fz_script_add (s, GST_CUDA_SYNC_IPC_MSG_HELLO, &hello, sizeof (hello));
    fz_pkt_add_fd (fz_script_add (s, GST_CUDA_SYNC_IPC_MSG_SEMAPHORE, &sm,
            sizeof (sm)), test_sem_export_fd (ts));
  }
  if (kind == 1 || kind == 2) {
    GstCudaSyncIpcRelease rel = { 0, 0, 1 };
    for (i = 0; i < s->n; i++)
      fz_pkt_send (sock, &s->pkts[i]);
    s->n = 0;
    rel.id = fz_wait_frame (sock, 2000);
    fail_unless (rel.id != 0, "no frame for a ready source");
    fz_script_add (s, GST_CUDA_SYNC_IPC_MSG_RELEASE, &rel, sizeof (rel));
    if (kind == 2)
      fz_script_mutate (s, vmm);
  } else if (kind == 9) {
    fz_script_add (s, GST_CUDA_SYNC_IPC_MSG_BYE, &bye, sizeof (bye));
    clean = TRUE;
  } else {
    guint n = g_rand_int_range (fz_rng, kind == 0 ? 1 : 0, 4);
    for (i = 0; i < n; i++)
      fz_script_add_random (s);
    if (s->n)
      fz_script_mutate (s, vmm);
  }
  fz_script_end (s);
  for (i = 0; i < s->n; i++)
    fz_pkt_send (sock, &s->pkts[i]);
  fail_unless (fz_until_closed (sock, 5000), "the sink kept the connection");
  close (sock);
  fz_script_clear (s);
  g_free (s);
  if (ts)
    test_sem_free (ts);
  return clean;
}

static void
print_stats (GstElement * e)
{
  GstStructure *st;
  gchar *str;

  g_object_get (e, "stats", &st, NULL);
  str = gst_structure_to_string (st);
  g_print ("fuzz: %s\n", str);
  g_free (str);
  gst_structure_free (st);
}

/* The fds once the sink wrote its one frame again twice: the release
 * points that a source left on the frame (holding that source's imported
 * semaphore, an fd) go when the sink's stream has waited for them, before
 * the next write; counted before that, a case's semaphore may or may not
 * be there yet. */
static guint
settled_sink_fds (GstElement * sink)
{
  guint64 b = cs_stat (sink, "buffers");

  fail_unless (ipc_wait_stat (sink, "buffers", b + 2) >= b + 2);
  return fz_settled_fds ();
}

GST_START_TEST (test_fuzz_sink)
{
  const guint n = fz_cases (3000), seed = fz_seed ();
  gchar *path = g_strdup_printf ("%s/cudaipc-fz%d.sock", g_get_tmp_dir (),
      getpid ());
  gchar *desc = g_strdup_printf ("videotestsrc " PATTERN " is-live=true ! "
      "video/x-raw,format=" FORMAT ",width=%d,height=%d,framerate=100/1 ! "
      "cudaupload ! cudasyncipcsink name=sink max-buffers=1 socket-path=%s",
      W, H, path);
  GstElement *p = gst_parse_launch (desc, NULL);
  GstElement *sink = gst_bin_get_by_name (GST_BIN (p), "sink");
  GstCudaSyncVmm *vmm = gst_cuda_sync_vmm_new (cs_ctx,
      gst_cuda_sync_vmm_round_size (cs_ctx, 4096, NULL), NULL);
  GThread *dog = fz_watchdog_start (seed);
  guint i, byes = 0, fds = 0;
  gint out_fd;
  GPid pid;
  gchar *out;

  g_print ("fuzz: cudasyncipcsink, seed %u, %u cases\n", seed, n);
  fz_rng = g_rand_new_with_seed (seed);
  ipc_connect_new_semaphore (p, "sink");
  fail_if (gst_element_set_state (p, GST_STATE_PLAYING) ==
      GST_STATE_CHANGE_FAILURE);
  for (i = 0; i < n; i++) {
    fz_watchdog_case (i);
    /* the first case makes the sink's one shareable frame */
    byes +=
        sink_case (path, vmm, i == 0 ? 1 : g_rand_int_range (fz_rng, 0, 10));
    if (i == 0)
      fds = settled_sink_fds (sink);
  }
  fz_watchdog_case (-1);
  for (i = 0; i < 200 && cs_stat (sink, "sessions") != 0; i++)
    g_usleep (10000);
  print_stats (sink);
  fail_unless_equals_uint64 (cs_stat (sink, "sessions"), 0);
  fail_unless_equals_uint64 (cs_stat (sink, "sessions-total"), n);
  fail_unless_equals_uint64 (cs_stat (sink, "sessions-invalid"), n - byes);
  fail_unless_equals_uint64 (cs_stat (sink, "sessions-lost"), 0);
  fail_unless_equals_uint64 (cs_stat (sink, "sessions-failed"), 0);
  fail_unless_equals_uint64 (cs_stat (sink, "sessions-refused"), 0);
  fail_unless (byes > n / 20 && byes < n / 5, "%u byes", byes);
  fail_unless_equals_int (settled_sink_fds (sink), fds);
  /* the sink still serves a real source, byte for byte */
  pid = ipc_spawn_source (path, 10, "wait-mode=gpu", NULL, &out_fd);
  out = ipc_source_result (pid, out_fd);
  gst_element_set_state (p, GST_STATE_NULL);
  fz_watchdog_stop_join (dog);
  gst_cuda_sync_vmm_free (vmm);
  g_rand_free (fz_rng);
  gst_object_unref (sink);
  gst_object_unref (p);
  g_free (out);
  g_free (desc);
  g_free (path);
}

GST_END_TEST;

/* a CAPS message of W x H NV12 whose layout is one of: valid, or broken
 * in one way (planes, stride, offset, size, unused plane, caps text) */
static void
script_add_caps (FzScript * s, guint32 epoch, gboolean broken)
{
  const gchar *texts[] = { "video/x-raw(memory:CUDAMemory),format=NV12,"
        "width=64,height=48,framerate=30/1", "video/x-raw,format=NV12",
    "video/x-h264,width=64,height=48", "video/x-raw,format=I420,width=64,"
        "height=48", "not caps at all", "video/x-raw,format=NV12,width=64,"
        "height=48;video/x-raw,format=NV12,width=32,height=48",
  };
  guint8 body[sizeof (GstCudaSyncIpcCaps) + 256];
  GstCudaSyncIpcCaps *c = (GstCudaSyncIpcCaps *) body;
  const gchar *text = texts[0];
  GstVideoInfo info;
  guint what = broken ? g_rand_int_range (fz_rng, 0, 9) : 99, i;
  gsize len;

  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_NV12, W, H);
  memset (body, 0, sizeof (body));
  c->epoch = epoch;
  c->n_planes = 2;
  c->size = GST_VIDEO_INFO_SIZE (&info);
  for (i = 0; i < 2; i++) {
    c->offset[i] = GST_VIDEO_INFO_PLANE_OFFSET (&info, i);
    c->stride[i] = GST_VIDEO_INFO_PLANE_STRIDE (&info, i);
  }
  if (what == 0)
    c->n_planes = g_rand_boolean (fz_rng) ? 1 : g_rand_int_range (fz_rng, 3, 9);
  else if (what == 1)
    c->stride[g_rand_int_range (fz_rng, 0, 2)] =
        g_rand_int_range (fz_rng, 0, W);
  else if (what == 2)
    c->offset[1] = c->size - g_rand_int_range (fz_rng, 0, 64);
  else if (what == 3)
    c->size = g_rand_boolean (fz_rng) ? 0 : c->size - 1;
  else if (what == 4)
    c->offset[g_rand_int_range (fz_rng, 2, 4)] = 1;
  else if (what == 5)
    text = texts[g_rand_int_range (fz_rng, 1, G_N_ELEMENTS (texts))];
  else if (what == 6)
    c->epoch = 0;
  len = strlen (text) + 1;
  memcpy (body + sizeof (*c), text, len);
  c->caps_len = len;
  if (what == 7)                /* caps_len not what follows */
    c->caps_len = g_rand_boolean (fz_rng) ? len + 1 : g_rand_int (fz_rng);
  else if (what == 8)           /* no NUL at the end, or one inside */
    body[sizeof (*c) + (g_rand_boolean (fz_rng) ? len - 1 : len / 2)] =
        g_rand_boolean (fz_rng) ? 'x' : '\0';
  fz_script_add (s, GST_CUDA_SYNC_IPC_MSG_CAPS, body, sizeof (*c) + len);
}

/* One case against the source: a prefix of a fake sink's valid start
 * (HELLO, SEMAPHORE, CAPS, BUFFER, FRAME of a value already signalled),
 * then random messages or broken CAPS, mutated; or the whole start and a
 * clean EOS or BYE. Returns TRUE for a clean end. */
static gboolean
source_script (FzScript * s, TestSem * ts, GstCudaSyncVmm * vmm, guint kind)
{
  GstCudaSyncIpcHello hello = { 1, 0, GST_CUDA_SYNC_IPC_ROLE_SINK };
  GstCudaSyncIpcSemaphore sm = { GST_CUDA_SYNC_IPC_SEM_ACQUIRE, 1, 0 };
  GstCudaSyncIpcBuffer b = { 1, 1, gst_cuda_sync_vmm_get_size (vmm) };
  GstCudaSyncIpcFrame f = { 1, 1, 1, 0, -1, GST_SECOND / 30, -1, -1, 0, 0 };
  GstCudaSyncIpcBye bye = { 0, 0 };
  guint n_valid = kind >= 8 ? 5 : g_rand_int_range (fz_rng, 0, 6), i;

  hello.max_buffers = 4;
  if (n_valid > 0)
    fz_script_add (s, GST_CUDA_SYNC_IPC_MSG_HELLO, &hello, sizeof (hello));
  if (n_valid > 1)
    fz_pkt_add_fd (fz_script_add (s, GST_CUDA_SYNC_IPC_MSG_SEMAPHORE, &sm,
            sizeof (sm)), test_sem_export_fd (ts));
  if (n_valid > 2)
    script_add_caps (s, 1, FALSE);
  if (n_valid > 3)
    fz_pkt_add_fd (fz_script_add (s, GST_CUDA_SYNC_IPC_MSG_BUFFER, &b,
            sizeof (b)), gst_cuda_sync_vmm_export_fd (vmm, NULL));
  if (n_valid > 4)
    fz_script_add (s, GST_CUDA_SYNC_IPC_MSG_FRAME, &f, sizeof (f));
  if (kind >= 8) {
    if (kind == 8)
      fz_script_add (s, GST_CUDA_SYNC_IPC_MSG_EOS, NULL, 0);
    else
      fz_script_add (s, GST_CUDA_SYNC_IPC_MSG_BYE, &bye, sizeof (bye));
    return TRUE;
  }
  if (kind < 3) {
    script_add_caps (s, 2 - (kind == 0), kind > 0);
  } else {
    guint n = g_rand_int_range (fz_rng, 0, 3);
    for (i = 0; i < n; i++)
      fz_script_add_random (s);
  }
  if (kind != 1 && s->n)
    fz_script_mutate (s, vmm);
  return FALSE;
}

/* the element's first message of @types within @ms (0 when none) */
static GstMessageType
bus_wait (GstBus * bus, guint ms)
{
  GstMessage *m = gst_bus_timed_pop_filtered (bus, ms * GST_MSECOND,
      GST_MESSAGE_ERROR | GST_MESSAGE_EOS);
  GstMessageType t = m ? GST_MESSAGE_TYPE (m) : 0;

  gst_clear_message (&m);
  return t;
}

static gboolean
source_case (GstElement * p, GstBus * bus, gint lsock, GstCudaSyncVmm * vmm,
    guint kind, guint * eos)
{
  struct pollfd pfd = { lsock, POLLIN, 0 };
  FzScript *s = g_new0 (FzScript, 1);
  TestSem *ts = test_sem_new (TRUE, 0);
  gboolean clean = source_script (s, ts, vmm, kind);
  GstMessageType t;
  gint sock;
  guint i;

  /* the FRAME's value is there before the source waits for it */
  fail_unless (test_sem_host_signal (ts, 1));
  fail_if (gst_element_set_state (p, GST_STATE_PLAYING) ==
      GST_STATE_CHANGE_FAILURE);
  fail_unless (poll (&pfd, 1, 5000) == 1, "the source did not connect");
  sock = accept4 (lsock, NULL, NULL, SOCK_CLOEXEC);
  fail_unless (sock >= 0);
  fz_script_end (s);
  for (i = 0; i < s->n; i++)
    fz_pkt_send (sock, &s->pkts[i]);
  t = bus_wait (bus, 5000);
  fail_unless (t == GST_MESSAGE_ERROR || t == GST_MESSAGE_EOS,
      "the source neither failed nor ended");
  fail_unless_equals_int (t == GST_MESSAGE_EOS, clean);
  *eos += t == GST_MESSAGE_EOS;
  gst_element_set_state (p, GST_STATE_NULL);
  gst_bus_set_flushing (bus, TRUE);
  gst_bus_set_flushing (bus, FALSE);
  close (sock);
  fz_script_clear (s);
  g_free (s);
  test_sem_free (ts);
  return clean;
}

GST_START_TEST (test_fuzz_source)
{
  const guint n = fz_cases (3000), seed = fz_seed () + 1;
  gchar *path = g_strdup_printf ("%s/cudaipc-fy%d.sock", g_get_tmp_dir (),
      getpid ());
  gchar *desc = g_strdup_printf ("cudasyncipcsrc name=src socket-path=%s "
      "peer-lost=error ! fakesink sync=false", path);
  GstElement *p = gst_parse_launch (desc, NULL);
  GstElement *src = gst_bin_get_by_name (GST_BIN (p), "src");
  GstBus *bus = gst_element_get_bus (p);
  GstCudaSyncVmm *vmm = gst_cuda_sync_vmm_new (cs_ctx,
      gst_cuda_sync_vmm_round_size (cs_ctx, W * H * 3 / 2, NULL), NULL);
  GThread *dog = fz_watchdog_start (seed);
  gint lsock = fz_listen_at (path);
  guint i, clean = 0, eos = 0, fds = 0;
  GPid pid;

  g_print ("fuzz: cudasyncipcsrc, seed %u, %u cases\n", seed, n);
  fail_unless (vmm != NULL);
  fz_rng = g_rand_new_with_seed (seed);
  ipc_connect_new_semaphore (p, "src");
  for (i = 0; i < n; i++) {
    fz_watchdog_case (i);
    /* the first case runs the whole valid start */
    clean += source_case (p, bus, lsock, vmm, i == 0 ? 9 :
        g_rand_int_range (fz_rng, 0, 10), &eos);
    if (i == 0)
      fds = fz_settled_fds ();
  }
  fz_watchdog_case (-1);
  g_print ("fuzz: %u errors, %u clean ends\n", n - eos, eos);
  fail_unless_equals_int (eos, clean);
  fail_unless (clean > n / 10 && clean < n / 3, "%u clean ends", clean);
  fail_unless_equals_int (fz_settled_fds (), fds);
  close (lsock);
  /* the source still takes frames from a real sink */
  pid = ipc_spawn_sink (path, NULL);
  gst_element_set_state (p, GST_STATE_PLAYING);
  fail_unless (ipc_wait_stat (src, "frames", 10) >= 10);
  gst_element_set_state (p, GST_STATE_NULL);
  kill (pid, SIGKILL);
  waitpid (pid, NULL, 0);
  unlink (path);
  fz_watchdog_stop_join (dog);
  gst_cuda_sync_vmm_free (vmm);
  g_rand_free (fz_rng);
  gst_object_unref (bus);
  gst_object_unref (src);
  gst_object_unref (p);
  g_free (desc);
  g_free (path);
}

GST_END_TEST;

static Suite *
cudaipcfuzz_suite (void)
{
  Suite *s = suite_create ("cudaipcfuzz");
  TCase *tc = tcase_create ("general");

  tcase_set_timeout (tc, 280);
  tcase_add_checked_fixture (tc, cs_setup, cs_teardown);
  tcase_add_test (tc, test_fuzz_sink);
  tcase_add_test (tc, test_fuzz_source);
  suite_add_tcase (s, tc);
  return s;
}

IPC_CHECK_MAIN (cudaipcfuzz);

/* gst-cudasync
 * Copyright (C) 2026 gst-cudasync developers
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The IPC tests' other process: a test program starts itself again as a
 * source (--source, or --reader that only reads) or a sink (--sink) of
 * another process; a child never outlives its test.
 */
#include "ipccommon.h"
#include <gst/app/gstappsink.h>
#include <unistd.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <fcntl.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <gst/cudasync/gstcudasyncipcproto.h>

static gchar *self_exe;

/* how long a child may take to come up: on a GPU a process's start (CUDA,
 * Vulkan and the plugins) takes seconds when many run at once */
#define CHILD_WAIT_US (30 * G_USEC_PER_SEC)

static gpointer
drain_thread (gpointer data)
{
  cs_sim.drain ();
  g_atomic_int_set ((gint *) data, 1);
  return NULL;
}

/* new-semaphore handler: an exportable timeline semaphore of the test
 * backend (the simulator's exporter, or Vulkan on a GPU). The simulator
 * imports an fd only while its exporter-side object lives: the element
 * keeps the last one, and the one before it goes (imported by then: each
 * element imports before it asks again, on the same thread). */
static gint
new_semaphore (GstElement * element, gpointer user_data)
{
  TestSem *ts = test_sem_new (TRUE, 0);

  if (!ts)
    return -1;
  g_object_set_data_full (G_OBJECT (element), "test-sem", ts,
      (GDestroyNotify) test_sem_free);
  return test_sem_export_fd (ts);
}

void
ipc_connect_new_semaphore (GstElement * pipeline, const gchar * name)
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
    for (y = 0; y < GST_VIDEO_FRAME_COMP_HEIGHT (&fa, i); y++) {
      const guint8 *ra = (guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&fa, i) +
          y * GST_VIDEO_FRAME_PLANE_STRIDE (&fa, i);
      const guint8 *rb = (guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&fb, i) +
          y * GST_VIDEO_FRAME_PLANE_STRIDE (&fb, i);
      if (memcmp (ra, rb, row) != 0 && same && g_getenv ("IPC_DEBUG"))
        g_printerr ("plane %u row %d: %02x %02x %02x vs %02x %02x %02x\n",
            i, y, ra[0], ra[1], ra[2], rb[0], rb[1], rb[2]);
      same &= memcmp (ra, rb, row) == 0;
    }
  }
  gst_video_frame_unmap (&fa);
  gst_video_frame_unmap (&fb);
  return same;
}

/* CPU syncs the simulator counted on the streaming thread of the pad's
 * element, read when EOS passes (after the last buffer's work) */
static GstPadProbeReturn
count_thread_syncs (GstPad * pad, GstPadProbeInfo * info, gpointer data)
{
  if (GST_EVENT_TYPE (GST_PAD_PROBE_INFO_EVENT (info)) == GST_EVENT_EOS)
    g_atomic_int_set ((gint *) data, cs_sim_thread_syncs ());
  return GST_PAD_PROBE_OK;
}

void
ipc_probe_thread_syncs (GstElement * pipeline, const gchar * name,
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

/* a reference of @n frames of videotestsrc at @w x @h */
static GstElement *
start_reference (guint n, gint w, gint h, GstElement ** sink)
{
  gchar *desc = g_strdup_printf ("videotestsrc " PATTERN " num-buffers=%u ! "
      "video/x-raw,format=" FORMAT ",width=%d,height=%d,framerate=30/1 ! "
      "appsink name=out sync=false max-buffers=1000", n, w, h);
  GstElement *ref = gst_parse_launch (desc, NULL);

  *sink = gst_bin_get_by_name (GST_BIN (ref), "out");
  gst_element_set_state (ref, GST_STATE_PLAYING);
  g_free (desc);
  return ref;
}

/* N frames through cudasyncipcsrc ! cudadownload, each compared with
 * the same frame of videotestsrc of its size: W x H, or W2 x H2 after
 * the sink's caps changed; prints the counters and the caps changes
 * seen; exit 0 when all match */
static int
run_source (const gchar * path, guint n, const gchar * props)
{
  gchar *desc = g_strdup_printf ("cudasyncipcsrc name=src socket-path=%s "
      "num-buffers=%u %s ! queue ! cudadownload ! "
      "video/x-raw,format=" FORMAT " ! appsink name=out sync=false "
      "max-buffers=1000", path, n, props);
  GstElement *p = gst_parse_launch (desc, NULL), *rsink[2], *ref[2];
  GstElement *sink = gst_bin_get_by_name (GST_BIN (p), "out"), *src =
      gst_bin_get_by_name (GST_BIN (p), "src");
  GstStructure *st;
  guint i, bad = 0, got = 0, changes = 0;
  gint thread_syncs, last_w = 0;

  ref[0] = start_reference (n, W, H, &rsink[0]);
  ref[1] = start_reference (n, W2, H2, &rsink[1]);
  ipc_connect_new_semaphore (p, "src");
  /* the source's thread runs only create() and the push into the queue */
  ipc_probe_thread_syncs (p, "src", "src", &thread_syncs);
  gst_element_set_state (p, GST_STATE_PLAYING);
  for (i = 0; i < n; i++) {
    GstSample *a = gst_app_sink_try_pull_sample (GST_APP_SINK (sink),
        20 * GST_SECOND), *b = NULL;
    GstVideoInfo info;
    if (a && gst_video_info_from_caps (&info, gst_sample_get_caps (a)))
      b = gst_app_sink_try_pull_sample (GST_APP_SINK (rsink[info.width !=
                  W]), 20 * GST_SECOND);
    if (!a || !b) {
      g_clear_pointer (&a, gst_sample_unref);
      break;
    }
    changes += last_w && info.width != last_w;
    last_w = info.width;
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
  g_print ("SOURCE frames=%u bad=%u caps-changes=(guint64)%u "
      "thread-syncs=(guint64)%d %s\n", got, bad, changes,
      g_atomic_int_get (&thread_syncs), gst_structure_to_string (st));
  gst_element_set_state (p, GST_STATE_NULL);
  for (i = 0; i < 2; i++) {
    gst_element_set_state (ref[i], GST_STATE_NULL);
    gst_object_unref (rsink[i]);
    gst_object_unref (ref[i]);
  }
  return got == n && bad == 0 ? 0 : 1;
}

/* this program again as a child: @argv after the program name;
 * @delay (nullable) is the child's CUDASIM_DELAY; its stdout in *@out_fd
 * when not NULL */
static GPid
spawn_self (const gchar * const *args, const gchar * delay, gint * out_fd)
{
  GPtrArray *argv = g_ptr_array_new ();
  gchar **envp = g_get_environ ();
  GError *err = NULL;
  GPid pid;

  g_ptr_array_add (argv, self_exe);
  for (; *args; args++)
    g_ptr_array_add (argv, (gpointer) * args);
  g_ptr_array_add (argv, NULL);
  if (delay)
    envp = g_environ_setenv (envp, "CUDASIM_DELAY", delay, TRUE);
  fail_unless (g_spawn_async_with_pipes (NULL, (gchar **) argv->pdata, envp,
          G_SPAWN_DO_NOT_REAP_CHILD, NULL, NULL, &pid, NULL, out_fd, NULL,
          &err), "%s", err ? err->message : "");
  g_ptr_array_unref (argv);
  g_strfreev (envp);
  return pid;
}

GPid
ipc_spawn_source (const gchar * path, guint n, const gchar * props,
    const gchar * delay, gint * out_fd)
{
  gchar *nstr = g_strdup_printf ("%u", n);
  const gchar *args[] = { "--source", path, nstr, props, NULL };
  GPid pid = spawn_self (args, delay, out_fd);

  g_free (nstr);
  return pid;
}

GPid
ipc_spawn_sink (const gchar * path, const gchar * delay)
{
  const gchar *args[] = { "--sink", path, NULL };
  GPid pid = spawn_self (args, delay, NULL);
  gint64 end = g_get_monotonic_time () + CHILD_WAIT_US;

  /* listening once the socket exists */
  while (!g_file_test (path, G_FILE_TEST_EXISTS) &&
      g_get_monotonic_time () < end)
    g_usleep (10000);
  fail_unless (g_file_test (path, G_FILE_TEST_EXISTS), "no sink socket");
  return pid;
}

/* plays @desc (takes it; its IPC element named @name) until the test
 * kills this process (or for 60 s) */
static int
run_until_killed (gchar * desc, const gchar * name)
{
  GstElement *p = gst_parse_launch (desc, NULL);

  g_free (desc);
  if (!p)
    return 2;                   /* the parent's wait for it fails */
  ipc_connect_new_semaphore (p, name);
  gst_element_set_state (p, GST_STATE_PLAYING);
  g_usleep (60 * G_USEC_PER_SEC);
  return 1;
}

/* the sink side, killed by the test: a live NV12 source into the sink */
static int
run_sink (const gchar * path)
{
  return run_until_killed (g_strdup_printf ("videotestsrc " PATTERN
          " is-live=true ! video/x-raw,format=" FORMAT ",width=%d,height=%d,"
          "framerate=30/1 ! cudaupload ! cudasyncipcsink name=sink "
          "max-buffers=2 socket-path=%s", W, H, path), "sink");
}

/* a source that reads frames until it is killed, with nothing after it
 * that needs nvcodec: its start costs no NVDEC probing on a GPU. No
 * timeout: the tests delay its own release signals by seconds on its
 * stream, behind which its watchdog sees the sink's values, so that the
 * sink would count as frozen (what the tests look at is the sink). */
static int
run_reader (const gchar * path)
{
  return run_until_killed (g_strdup_printf ("cudasyncipcsrc name=src "
          "socket-path=%s wait-mode=gpu timeout=0 ! fakesink sync=false",
          path), "src");
}

GPid
ipc_spawn_reader (const gchar * path, const gchar * delay)
{
  const gchar *args[] = { "--reader", path, NULL };

  return spawn_self (args, delay, NULL);
}

gboolean
ipc_child_main (int argc, char **argv, int *ret)
{
  self_exe = g_file_read_link ("/proc/self/exe", NULL);
  if (argc < 3 || !(g_str_has_prefix (argv[1], "--s") ||
          g_str_equal (argv[1], "--reader")))
    return FALSE;
  /* a child never outlives its test */
  prctl (PR_SET_PDEATHSIG, SIGKILL);
  gst_init (NULL, NULL);
  gst_cuda_load_library ();
  cs_is_sim = cudasim_lookup (&cs_sim);
  if (argc == 5 && g_strcmp0 (argv[1], "--source") == 0)
    *ret = run_source (argv[2], atoi (argv[3]), argv[4]);
  else if (argc == 3 && g_strcmp0 (argv[1], "--sink") == 0)
    *ret = run_sink (argv[2]);
  else if (argc == 3 && g_strcmp0 (argv[1], "--reader") == 0)
    *ret = run_reader (argv[2]);
  else
    return FALSE;
  return TRUE;
}

gboolean
ipc_drained_within (guint ms)
{
  gint done = 0;
  GThread *t;
  guint i;

  if (!cs_is_sim)
    return TRUE;
  t = g_thread_new ("drain", drain_thread, &done);
  for (i = 0; i < ms / 10 && !g_atomic_int_get (&done); i++)
    g_usleep (10000);
  if (!g_atomic_int_get (&done))
    return FALSE;               /* a stream stays stuck: the thread too */
  g_thread_join (t);
  return TRUE;
}

gchar *
ipc_read_all (gint fd)
{
  GString *s = g_string_new (NULL);
  gchar buf[4096];
  gssize k;

  while ((k = read (fd, buf, sizeof (buf))) > 0)
    g_string_append_len (s, buf, k);
  close (fd);
  return g_string_free (s, FALSE);
}

guint64
ipc_sessions_gone (GstElement * sink)
{
  guint i;

  for (i = 0; i < 100 && cs_stat (sink, "sessions") != 0; i++)
    g_usleep (10000);
  fail_unless_equals_uint64 (cs_stat (sink, "sessions"), 0);
  return cs_stat (sink, "sessions-lost");
}

gchar *
ipc_source_result (GPid pid, gint out_fd)
{
  gchar *out = ipc_read_all (out_fd);
  gint status;

  waitpid (pid, &status, 0);
  g_print ("%s", out);
  fail_unless (WIFEXITED (status) && WEXITSTATUS (status) == 0,
      "source failed: %s", out);
  return out;
}

guint64
ipc_wait_stat (GstElement * e, const gchar * field, guint64 want)
{
  gint64 end = g_get_monotonic_time () + CHILD_WAIT_US;
  guint64 v;

  while ((v = cs_stat (e, field)) < want && g_get_monotonic_time () < end)
    g_usleep (10000);
  return v;
}

guint64
ipc_field_of (const gchar * out, const gchar * field)
{
  gchar *key = g_strdup_printf ("%s=(guint64)", field);
  const gchar *p = strstr (out, key);
  guint64 v = p ? g_ascii_strtoull (p + strlen (key), NULL, 10) : G_MAXUINT64;

  g_free (key);
  return v;
}

GstElement *
ipc_pipeline (const gchar * fmt, const gchar * path, const gchar * name)
{
  gchar *desc = g_strdup_printf (fmt, path);
  GstElement *p = gst_parse_launch (desc, NULL);

  fail_unless (p != NULL, "%s", desc);
  /* one context: a semaphore is imported once per process */
  cs_set_cuda_context (p, cs_ctx);
  ipc_connect_new_semaphore (p, name);
  g_free (desc);
  return p;
}

IpcFakeSink *
ipc_fake_sink_new (const gchar * path)
{
  IpcFakeSink *fs = g_new0 (IpcFakeSink, 1);
  struct sockaddr_un addr = {.sun_family = AF_UNIX };

  fs->fd = -1;
  fs->listen_fd = socket (AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
  g_strlcpy (addr.sun_path, path, sizeof (addr.sun_path));
  unlink (path);
  fail_unless (fs->listen_fd >= 0 && bind (fs->listen_fd,
          (struct sockaddr *) &addr, sizeof (addr)) == 0 &&
      listen (fs->listen_fd, 4) == 0, "listen: %s", g_strerror (errno));
  return fs;
}

gboolean
ipc_fake_sink_accept (IpcFakeSink * fs, guint ms)
{
  struct pollfd pfd = { fs->listen_fd, POLLIN, 0 };

  if (fs->fd >= 0)
    close (fs->fd);
  fs->fd = -1;
  if (poll (&pfd, 1, ms) != 1)
    return FALSE;
  fs->fd = accept (fs->listen_fd, NULL, NULL);
  /* (the test's children do not inherit it) */
  if (fs->fd >= 0)
    fcntl (fs->fd, F_SETFD, FD_CLOEXEC);
  return fs->fd >= 0;
}

/* one message with its fd (taken, -1: none) */
static void
fake_send (IpcFakeSink * fs, guint16 type, const void *body, gsize size,
    gint fd)
{
  GstCudaSyncIpcHeader hdr = { GST_CUDA_SYNC_IPC_MAGIC, type, fd >= 0, 0, 0 };
  struct iovec iov[2] = { {&hdr, sizeof (hdr)}, {(void *) body, size} };
  struct msghdr mh = {.msg_iov = iov,.msg_iovlen = 2 };
  union
  {
    struct cmsghdr align;
    gchar buf[CMSG_SPACE (sizeof (gint))];
  }
  cbuf;

  hdr.size = sizeof (hdr) + size;
  if (fd >= 0) {
    struct cmsghdr *c;
    memset (&cbuf, 0, sizeof (cbuf));
    mh.msg_control = cbuf.buf;
    mh.msg_controllen = sizeof (cbuf.buf);
    c = CMSG_FIRSTHDR (&mh);
    c->cmsg_level = SOL_SOCKET;
    c->cmsg_type = SCM_RIGHTS;
    c->cmsg_len = CMSG_LEN (sizeof (gint));
    memcpy (CMSG_DATA (c), &fd, sizeof (gint));
  }
  fail_unless (sendmsg (fs->fd, &mh, MSG_NOSIGNAL) == (ssize_t) hdr.size,
      "send: %s", g_strerror (errno));
  if (fd >= 0)
    close (fd);
}

void
ipc_fake_sink_send_frame (IpcFakeSink * fs)
{
  const gchar *text = "video/x-raw(memory:CUDAMemory),format=" FORMAT
      ",width=64,height=48,framerate=30/1";
  GstCudaSyncIpcHello hello = { 1, 0, GST_CUDA_SYNC_IPC_ROLE_SINK };
  GstCudaSyncIpcSemaphore sm = { GST_CUDA_SYNC_IPC_SEM_ACQUIRE, 1, 0 };
  GstCudaSyncIpcFrame f = { 1, 1, 1, 0, -1, GST_SECOND / 30, -1, -1, 0, 0 };
  guint8 body[sizeof (GstCudaSyncIpcCaps) + 128];
  GstCudaSyncIpcCaps *c = (GstCudaSyncIpcCaps *) body;
  GstCudaSyncIpcBuffer b = { 1, 1, 0 };
  GstVideoInfo info;
  guint i;

  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_NV12, W, H);
  fs->sem = test_sem_new (TRUE, 0);
  fs->vmm = gst_cuda_sync_vmm_new (cs_ctx, gst_cuda_sync_vmm_round_size
      (cs_ctx, GST_VIDEO_INFO_SIZE (&info), NULL), NULL);
  fail_unless (fs->sem && fs->vmm);
  b.alloc_size = gst_cuda_sync_vmm_get_size (fs->vmm);
  memset (body, 0, sizeof (body));
  c->epoch = 1;
  c->n_planes = 2;
  c->size = GST_VIDEO_INFO_SIZE (&info);
  for (i = 0; i < 2; i++) {
    c->offset[i] = GST_VIDEO_INFO_PLANE_OFFSET (&info, i);
    c->stride[i] = GST_VIDEO_INFO_PLANE_STRIDE (&info, i);
  }
  c->caps_len = strlen (text) + 1;
  memcpy (body + sizeof (*c), text, c->caps_len);
  hello.max_buffers = 4;
  fake_send (fs, GST_CUDA_SYNC_IPC_MSG_HELLO, &hello, sizeof (hello), -1);
  fake_send (fs, GST_CUDA_SYNC_IPC_MSG_SEMAPHORE, &sm, sizeof (sm),
      test_sem_export_fd (fs->sem));
  fake_send (fs, GST_CUDA_SYNC_IPC_MSG_CAPS, body, sizeof (*c) + c->caps_len,
      -1);
  fake_send (fs, GST_CUDA_SYNC_IPC_MSG_BUFFER, &b, sizeof (b),
      gst_cuda_sync_vmm_export_fd (fs->vmm, NULL));
  fake_send (fs, GST_CUDA_SYNC_IPC_MSG_FRAME, &f, sizeof (f), -1);
}

void
ipc_fake_sink_hang_up (IpcFakeSink * fs)
{
  if (fs->fd >= 0)
    close (fs->fd);
  fs->fd = -1;
}

void
ipc_fake_sink_free (IpcFakeSink * fs)
{
  ipc_fake_sink_hang_up (fs);
  close (fs->listen_fd);
  if (fs->vmm)
    gst_cuda_sync_vmm_free (fs->vmm);
  if (fs->sem)
    test_sem_free (fs->sem);
  g_free (fs);
}

typedef struct
{
  GstElement *e;
  gint done;
} Stopper;

static gpointer
stop_thread (gpointer data)
{
  Stopper *s = data;

  gst_element_set_state (s->e, GST_STATE_NULL);
  g_atomic_int_set (&s->done, 1);
  return NULL;
}

gboolean
ipc_stop_within (GstElement * e, guint ms)
{
  /* leaked when the stop hangs: the blocked thread still uses it */
  Stopper *s = g_new0 (Stopper, 1);
  gint64 end = g_get_monotonic_time () + ms * G_GINT64_CONSTANT (1000);
  GThread *t;

  s->e = e;
  t = g_thread_new ("stopper", stop_thread, s);
  while (!g_atomic_int_get (&s->done) && g_get_monotonic_time () < end)
    g_usleep (10000);
  if (!g_atomic_int_get (&s->done))
    return FALSE;
  g_thread_join (t);
  g_free (s);
  return TRUE;
}

/* gst-cudasync
 * Copyright (C) 2026 gst-cudasync developers
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * cudasyncipcsink and what is at its socket-path: the sink binds only
 * where nothing is or where a stale socket is, leaves anything else alone
 * (and fails to start, saying what is there), and at stop removes only
 * the socket it created. Sources run as children of this program
 * (--source), comparing every frame byte for byte with videotestsrc.
 *
 * Tests:
 * test_regular_file_left_alone: a file at the path keeps its bytes
 * test_symlink_left_alone: a symbolic link and its target stay
 * test_directory_left_alone: a directory is named as such
 * test_live_socket_left_alone: a second sink on a running sink's path fails
 *     and leaves the first one's socket, which still serves
 * test_stale_socket_replaced: a socket nothing listens on is replaced
 * test_stop_removes_own_socket_only: the stop removes the sink's socket,
 *     and leaves what took its place while the sink ran
 * test_socket_mode_decimal: socket-mode=600 from a command line is 0600
 * test_invalid_settings: no path, a path too long for a unix socket, an
 *     invalid socket-mode or allowed-uids entry: clear errors, first
 * test_source_invalid_path: the source's missing or too long path and
 *     invalid allowed-uids entry, in the sink's words
 */
#include "../ipccommon.h"
#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

/* bytes that a file wrongly at the socket path holds */
static const gchar precious[] = "precious data\n\001\002\003\377 and more\n";

static gchar *
test_path (const gchar * tag)
{
  return g_strdup_printf ("%s/cudaipcsocket-%s-%d.sock", g_get_tmp_dir (),
      tag, getpid ());
}

/* a live sink of smpte75 frames (what the child sources compare against)
 * on @path, not started; @props are set on the sink as from a command
 * line; the semaphores come from the tests' handler where @handler */
static GstElement *
sink_pipeline (const gchar * path, const gchar * const *props, gboolean handler)
{
  gchar *desc = g_strdup_printf ("videotestsrc " PATTERN " is-live=true ! "
      "video/x-raw,format=" FORMAT ",width=%d,height=%d,framerate=30/1 ! "
      "cudaupload ! cudasyncipcsink name=sink sync=false", W, H);
  GstElement *p = gst_parse_launch (desc, NULL);
  GstElement *sink;

  fail_unless (p != NULL, "%s", desc);
  sink = gst_bin_get_by_name (GST_BIN (p), "sink");
  if (path)
    g_object_set (sink, "socket-path", path, NULL);
  for (; props && *props; props += 2)
    gst_util_set_object_arg (G_OBJECT (sink), props[0], props[1]);
  gst_object_unref (sink);
  cs_set_cuda_context (p, cs_ctx);
  if (handler)
    ipc_connect_new_semaphore (p, "sink");
  g_free (desc);
  return p;
}

/* @p fails to start with an element error of @domain and @code; its text
 * (message, then details) */
static gchar *
start_error (GstElement * p, GQuark domain, gint code)
{
  GstBus *bus = gst_element_get_bus (p);
  GQuark got_domain = 0;
  gint got_code = -1;
  gchar *err;

  fail_unless_equals_int (gst_element_set_state (p, GST_STATE_PAUSED),
      GST_STATE_CHANGE_FAILURE);
  err = cs_pop_error (bus, &got_domain, &got_code);
  fail_unless (err != NULL, "no error message");
  fail_unless (got_domain == domain && got_code == code,
      "error %s %d: %s", g_quark_to_string (got_domain), got_code, err);
  gst_element_set_state (p, GST_STATE_NULL);
  gst_object_unref (bus);
  return err;
}

static void
assert_contents (const gchar * file, const gchar * want, gsize len)
{
  gchar *data = NULL;
  gsize got = 0;

  fail_unless (g_file_get_contents (file, &data, &got, NULL),
      "%s is gone", file);
  fail_unless (got == len && memcmp (data, want, len) == 0, "%s changed", file);
  g_free (data);
}

/* an element error naming what is at the path and that it stayed */
static void
assert_left_alone (const gchar * err, const gchar * what)
{
  fail_unless (strstr (err, what) && strstr (err, "left it alone"),
      "error: %s", err);
  fail_if (strstr (err, "Address already in use"), "error: %s", err);
}

GST_START_TEST (test_regular_file_left_alone)
{
  gchar *path = test_path ("file");
  GstElement *p;
  gchar *err;

  fail_unless (g_file_set_contents (path, precious, sizeof (precious), NULL));
  p = sink_pipeline (path, NULL, TRUE);
  err = start_error (p, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_OPEN_WRITE);
  assert_left_alone (err, "a regular file");
  fail_unless (strstr (err, path) != NULL, "error: %s", err);
  gst_object_unref (p);
  assert_contents (path, precious, sizeof (precious));
  fail_unless (unlink (path) == 0);
  g_free (err);
  g_free (path);
}

GST_END_TEST;

GST_START_TEST (test_symlink_left_alone)
{
  gchar *path = test_path ("link");
  gchar *target = test_path ("target");
  gchar *link;
  GstElement *p;
  gchar *err;

  fail_unless (g_file_set_contents (target, precious, sizeof (precious), NULL));
  fail_unless (symlink (target, path) == 0);
  p = sink_pipeline (path, NULL, TRUE);
  err = start_error (p, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_OPEN_WRITE);
  assert_left_alone (err, "a symbolic link");
  gst_object_unref (p);
  link = g_file_read_link (path, NULL);
  fail_unless_equals_string (link, target);
  assert_contents (target, precious, sizeof (precious));
  fail_unless (unlink (path) == 0 && unlink (target) == 0);
  g_free (link);
  g_free (err);
  g_free (target);
  g_free (path);
}

GST_END_TEST;

GST_START_TEST (test_directory_left_alone)
{
  gchar *path = test_path ("dir");
  GstElement *p;
  gchar *err;

  fail_unless (mkdir (path, 0700) == 0);
  p = sink_pipeline (path, NULL, TRUE);
  err = start_error (p, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_OPEN_WRITE);
  assert_left_alone (err, "a directory");
  gst_object_unref (p);
  fail_unless (g_file_test (path, G_FILE_TEST_IS_DIR));
  fail_unless (rmdir (path) == 0);
  g_free (err);
  g_free (path);
}

GST_END_TEST;

/* the file at @path, which must be a socket */
static void
socket_id (const gchar * path, struct stat *st)
{
  fail_unless (lstat (path, st) == 0, "%s: %s", path, g_strerror (errno));
  fail_unless (S_ISSOCK (st->st_mode), "%s is no socket", path);
}

/* a child source gets @n frames from the sink at @path, byte-exact */
static void
assert_serves (const gchar * path, guint n)
{
  gint out_fd;
  GPid pid = ipc_spawn_source (path, n, "wait-mode=gpu", NULL, &out_fd);
  gchar *out = ipc_source_result (pid, out_fd);

  fail_unless_equals_uint64 (ipc_field_of (out, "frames"), n);
  g_free (out);
}

GST_START_TEST (test_live_socket_left_alone)
{
  gchar *path = test_path ("live");
  GstElement *first = sink_pipeline (path, NULL, TRUE), *second;
  struct stat before, after;
  gchar *err;

  fail_unless (gst_element_set_state (first, GST_STATE_PLAYING) !=
      GST_STATE_CHANGE_FAILURE);
  socket_id (path, &before);
  second = sink_pipeline (path, NULL, TRUE);
  err = start_error (second, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_OPEN_WRITE);
  assert_left_alone (err, "a socket that a running sink");
  socket_id (path, &after);
  fail_unless (after.st_dev == before.st_dev && after.st_ino == before.st_ino,
      "the first sink's socket was replaced");
  assert_serves (path, 10);
  /* the second's stop and disposal leave the first's socket */
  gst_object_unref (second);
  socket_id (path, &after);
  fail_unless (after.st_dev == before.st_dev && after.st_ino == before.st_ino,
      "the first sink's socket was removed");
  assert_serves (path, 10);
  gst_element_set_state (first, GST_STATE_NULL);
  fail_if (g_file_test (path, G_FILE_TEST_EXISTS), "socket left behind");
  gst_object_unref (first);
  g_free (err);
  g_free (path);
}

GST_END_TEST;

/* a socket whose sink was killed: bound, never listened on again */
GST_START_TEST (test_stale_socket_replaced)
{
  gchar *path = test_path ("stale");
  struct sockaddr_un addr = { AF_UNIX };
  gint fd = socket (AF_UNIX, SOCK_SEQPACKET, 0);
  GstElement *p;
  struct stat stale, now;

  fail_unless (fd >= 0);
  g_strlcpy (addr.sun_path, path, sizeof (addr.sun_path));
  fail_unless (bind (fd, (struct sockaddr *) &addr, sizeof (addr)) == 0);
  close (fd);
  socket_id (path, &stale);
  p = sink_pipeline (path, NULL, TRUE);
  fail_unless (gst_element_set_state (p, GST_STATE_PLAYING) !=
      GST_STATE_CHANGE_FAILURE);
  /* (the new socket may have the stale one's inode number) */
  socket_id (path, &now);
  assert_serves (path, 10);
  gst_element_set_state (p, GST_STATE_NULL);
  fail_if (g_file_test (path, G_FILE_TEST_EXISTS), "socket left behind");
  gst_object_unref (p);
  g_free (path);
}

GST_END_TEST;

GST_START_TEST (test_stop_removes_own_socket_only)
{
  gchar *path = test_path ("stop");
  GstElement *a = sink_pipeline (path, NULL, TRUE), *b;
  struct stat b_id, now;

  /* its own socket: removed */
  fail_unless (gst_element_set_state (a, GST_STATE_PLAYING) !=
      GST_STATE_CHANGE_FAILURE);
  fail_unless (g_file_test (path, G_FILE_TEST_EXISTS));
  gst_element_set_state (a, GST_STATE_NULL);
  fail_if (g_file_test (path, G_FILE_TEST_EXISTS), "socket left behind");

  /* replaced by a file while it ran: the file stays */
  fail_unless (gst_element_set_state (a, GST_STATE_PLAYING) !=
      GST_STATE_CHANGE_FAILURE);
  fail_unless (unlink (path) == 0);
  fail_unless (g_file_set_contents (path, precious, sizeof (precious), NULL));
  gst_element_set_state (a, GST_STATE_NULL);
  assert_contents (path, precious, sizeof (precious));
  fail_unless (unlink (path) == 0);

  /* replaced by another sink's socket: that sink keeps it */
  fail_unless (gst_element_set_state (a, GST_STATE_PLAYING) !=
      GST_STATE_CHANGE_FAILURE);
  fail_unless (unlink (path) == 0);
  b = sink_pipeline (path, NULL, TRUE);
  fail_unless (gst_element_set_state (b, GST_STATE_PLAYING) !=
      GST_STATE_CHANGE_FAILURE);
  socket_id (path, &b_id);
  gst_element_set_state (a, GST_STATE_NULL);
  socket_id (path, &now);
  fail_unless (now.st_ino == b_id.st_ino, "the other sink's socket went");
  assert_serves (path, 5);
  gst_element_set_state (b, GST_STATE_NULL);
  fail_if (g_file_test (path, G_FILE_TEST_EXISTS), "socket left behind");
  gst_object_unref (b);
  gst_object_unref (a);
  g_free (path);
}

GST_END_TEST;

/* the mode on disk and the property's value after @value was set as
 * gst-launch sets it (any GLib warning or critical fails the test) */
static void
check_mode (const gchar * value, guint want)
{
  gchar *path = test_path ("mode");
  const gchar *props[] = { "socket-mode", value, NULL };
  GstElement *p = sink_pipeline (path, props, TRUE);
  GstElement *sink = gst_bin_get_by_name (GST_BIN (p), "sink");
  struct stat st;
  guint mode;

  g_object_get (sink, "socket-mode", &mode, NULL);
  fail_unless (mode == want, "socket-mode=%s: 0%o", value, mode);
  fail_unless (gst_element_set_state (p, GST_STATE_PAUSED) !=
      GST_STATE_CHANGE_FAILURE);
  socket_id (path, &st);
  fail_unless ((st.st_mode & 07777) == want, "socket-mode=%s: on disk 0%o",
      value, st.st_mode & 07777);
  gst_element_set_state (p, GST_STATE_NULL);
  gst_object_unref (sink);
  gst_object_unref (p);
  g_free (path);
}

GST_START_TEST (test_socket_mode_decimal)
{
  check_mode ("600", 0600);
  check_mode ("660", 0660);
  check_mode ("0640", 0640);
}

GST_END_TEST;

/* @props make the start fail, before anything else is looked at (no
 * new-semaphore handler: on the simulator the semaphore check would fail
 * next), with a settings error whose text has @needle */
static void
check_invalid (const gchar * path, const gchar * const *props,
    const gchar * needle)
{
  GstElement *p = sink_pipeline (path, props, FALSE);
  gchar *err = start_error (p, GST_RESOURCE_ERROR,
      GST_RESOURCE_ERROR_SETTINGS);

  fail_unless (strstr (err, needle) != NULL, "error: %s", err);
  if (path)
    fail_if (g_file_test (path, G_FILE_TEST_EXISTS), "%s was created", path);
  gst_object_unref (p);
  g_free (err);
}

GST_START_TEST (test_invalid_settings)
{
  gchar *path = test_path ("settings");
  gchar *long_path = g_strdup_printf ("%s/%0200d.sock", g_get_tmp_dir (), 0);
  const gchar *bad_uids[] = { "allowed-uids", "1000,bob", NULL };
  const gchar *bad_mode[] = { "socket-mode", "680", NULL };

  check_invalid (NULL, NULL, "No socket path was given");
  check_invalid (long_path, NULL, "too long for a unix socket");
  check_invalid (path, bad_uids, "\"bob\" is not a numeric user id");
  check_invalid (path, bad_mode, "Invalid socket-mode 680");
  g_free (long_path);
  g_free (path);
}

GST_END_TEST;

/* the source checks its socket-path and allowed-uids as the sink does,
 * with the same words */
static void
check_source_invalid (const gchar * path, const gchar * uids,
    const gchar * want)
{
  GstElement *p = gst_parse_launch ("cudasyncipcsrc name=src ! fakesink",
      NULL);
  GstElement *src = gst_bin_get_by_name (GST_BIN (p), "src");
  GstBus *bus = gst_element_get_bus (p);
  GstMessage *msg;
  GError *e = NULL;

  g_object_set (src, "socket-path", path, "allowed-uids", uids, NULL);
  gst_object_unref (src);
  cs_set_cuda_context (p, cs_ctx);
  /* a live source: it connects once it runs */
  gst_element_set_state (p, GST_STATE_PLAYING);
  msg = gst_bus_timed_pop_filtered (bus, 10 * GST_SECOND, GST_MESSAGE_ERROR);
  fail_unless (msg != NULL, "no error for socket-path \"%s\"", path);
  gst_message_parse_error (msg, &e, NULL);
  fail_unless (g_error_matches (e, GST_RESOURCE_ERROR,
          GST_RESOURCE_ERROR_SETTINGS) && strstr (e->message, want),
      "error: %s", e->message);
  g_error_free (e);
  gst_message_unref (msg);
  gst_element_set_state (p, GST_STATE_NULL);
  gst_object_unref (bus);
  gst_object_unref (p);
}

GST_START_TEST (test_source_invalid_path)
{
  gchar *long_path = g_strdup_printf ("%s/%0200d.sock", g_get_tmp_dir (), 0);
  gchar *path = test_path ("srcsettings");

  check_source_invalid (NULL, NULL, "No socket path was given");
  check_source_invalid (long_path, NULL, "too long for a unix socket");
  check_source_invalid (path, "1000,bob", "\"bob\" is not a numeric user id");
  g_free (path);
  g_free (long_path);
}

GST_END_TEST;

static Suite *
cudaipcsocket_suite (void)
{
  Suite *s = suite_create ("cudaipcsocket");
  TCase *tc = tcase_create ("general");

  tcase_add_checked_fixture (tc, cs_setup, cs_teardown);
  tcase_add_test (tc, test_regular_file_left_alone);
  tcase_add_test (tc, test_symlink_left_alone);
  tcase_add_test (tc, test_directory_left_alone);
  tcase_add_test (tc, test_live_socket_left_alone);
  tcase_add_test (tc, test_stale_socket_replaced);
  tcase_add_test (tc, test_stop_removes_own_socket_only);
  tcase_add_test (tc, test_socket_mode_decimal);
  tcase_add_test (tc, test_invalid_settings);
  tcase_add_test (tc, test_source_invalid_path);
  suite_add_tcase (s, tc);
  return s;
}

IPC_CHECK_MAIN (cudaipcsocket);

/* gst-cudasync
 * Copyright (C) 2026 gst-cudasync developers
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * cudasyncipcsink's socket path (gstcudasyncipcsocket.h). A path given by
 * mistake (a typo, or the path of a sink that runs) must never cost a file
 * or another sink's socket: as systemd and PipeWire do, only a stale socket
 * is removed before the bind.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstcudasyncipcsocket.h"
#include "gstcudasyncelementerror.h"
#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

GST_DEBUG_CATEGORY_STATIC (gst_cuda_sync_ipc_socket_debug);
#define GST_CAT_DEFAULT gst_cuda_sync_ipc_socket_debug

static void
init_debug (void)
{
  static gsize done = 0;

  if (g_once_init_enter (&done)) {
    GST_DEBUG_CATEGORY_INIT (gst_cuda_sync_ipc_socket_debug,
        "cudasyncipcsocket", 0, "cudasyncipcsink's socket path");
    g_once_init_leave (&done, 1);
  }
}

guint
gst_cuda_sync_ipc_socket_mode_from_value (guint value)
{
  guint mode = 0, shift = 0, v;

  if (value <= 0777)
    return value;
  for (v = value; v > 0; v /= 10, shift += 3) {
    if (v % 10 > 7)
      return value;
    mode |= (v % 10) << shift;
  }
  return mode <= 0777 ? mode : value;
}

gboolean
gst_cuda_sync_ipc_socket_check_path (const gchar * path, GError ** error)
{
  struct sockaddr_un addr;

  if (!path || !*path) {
    GST_CUDA_SYNC_SET_ERROR (error, RESOURCE, SETTINGS, ("No socket path "
            "was given: set socket-path."), ("socket-path is not set"));
    return FALSE;
  }
  if (strlen (path) >= sizeof (addr.sun_path)) {
    GST_CUDA_SYNC_SET_ERROR (error, RESOURCE, SETTINGS, ("The socket path "
            "is too long for a unix socket."), ("socket-path \"%s\": %"
            G_GSIZE_FORMAT " bytes, at most %" G_GSIZE_FORMAT, path,
            strlen (path), sizeof (addr.sun_path) - 1));
    return FALSE;
  }
  return TRUE;
}

gboolean
gst_cuda_sync_ipc_socket_check_settings (const gchar * path, guint mode,
    GError ** error)
{
  if (!gst_cuda_sync_ipc_socket_check_path (path, error))
    return FALSE;
  if (mode > 0777) {
    GST_CUDA_SYNC_SET_ERROR (error, RESOURCE, SETTINGS, ("Invalid "
            "socket-mode %u: give the socket's file mode in octal, such as "
            "0600.", mode), ("socket-mode %u is above 0777 and not an octal "
            "number written without its leading 0", mode));
    return FALSE;
  }
  return TRUE;
}

static const gchar *
describe (const struct stat *st)
{
  if (S_ISREG (st->st_mode))
    return "a regular file";
  if (S_ISDIR (st->st_mode))
    return "a directory";
  if (S_ISLNK (st->st_mode))
    return "a symbolic link";
  if (S_ISFIFO (st->st_mode))
    return "a named pipe";
  if (S_ISCHR (st->st_mode) || S_ISBLK (st->st_mode))
    return "a device node";
  if (S_ISSOCK (st->st_mode))
    return "a socket";
  return "a file of unknown type";
}

static void
id_of (const struct stat *st, GstCudaSyncIpcSocketId * id)
{
  id->dev = st->st_dev;
  id->ino = st->st_ino;
  id->ctime_ns = st->st_ctim.tv_sec * G_GINT64_CONSTANT (1000000000) +
      st->st_ctim.tv_nsec;
}

static gboolean
is_socket (const struct stat *st, const GstCudaSyncIpcSocketId * id)
{
  GstCudaSyncIpcSocketId now;

  id_of (st, &now);
  return S_ISSOCK (st->st_mode) && now.dev == id->dev && now.ino == id->ino &&
      now.ctime_ns == id->ctime_ns;
}

typedef enum
{
  PATH_FREE,
  PATH_STALE,
  PATH_TAKEN,
} PathState;

/* What is at @path. A socket is stale when a connection to it is refused:
 * nothing listens on it any more (a sink that was killed). A live sink
 * sees the probe as a connection that closes at once. *@what describes
 * what was found, *@st is what lstat() gave. */
static PathState
probe_path (const struct sockaddr_un *addr, struct stat *st,
    const gchar ** what, gint * err)
{
  gint fd, r;

  *err = 0;
  if (lstat (addr->sun_path, st) != 0) {
    *err = errno;
    *what = "a path the sink could not inspect";
    return *err == ENOENT ? PATH_FREE : PATH_TAKEN;
  }
  *what = describe (st);
  if (!S_ISSOCK (st->st_mode))
    return PATH_TAKEN;
  fd = socket (AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  if (fd < 0) {
    *err = errno;
    return PATH_TAKEN;
  }
  r = connect (fd, (const struct sockaddr *) addr, sizeof (*addr));
  *err = r == 0 ? 0 : errno;
  close (fd);
  if (*err == ECONNREFUSED)
    return PATH_STALE;
  /* accepted, or a full backlog: someone listens */
  if (r == 0 || *err == EAGAIN)
    *what = "a socket that a running sink or another program listens on";
  return PATH_TAKEN;
}

/* Removes the stale socket just probed, unless the path changed since
 * (another sink that took it meanwhile keeps it) */
static gboolean
remove_stale (const gchar * path, const struct stat *probed, GError ** error)
{
  struct stat st;

  /* gone, or changed: the next bind and probe say what is there */
  if (lstat (path, &st) != 0 || st.st_dev != probed->st_dev ||
      st.st_ino != probed->st_ino)
    return TRUE;
  if (unlink (path) != 0 && errno != ENOENT) {
    GST_CUDA_SYNC_SET_ERROR (error, RESOURCE, OPEN_WRITE, ("Could not remove "
            "the stale socket \"%s\".", path), ("unlink: %s",
            g_strerror (errno)));
    return FALSE;
  }
  GST_INFO ("replacing the stale socket %s", path);
  return TRUE;
}

/* Binds @fd at @addr: where the bind finds the path taken, the stale
 * socket there is removed and the bind tried again; anything else there
 * is an error. */
static gboolean
bind_path (gint fd, const struct sockaddr_un *addr, GError ** error)
{
  const gchar *path = addr->sun_path;
  guint attempt;

  for (attempt = 0;; attempt++) {
    const gchar *what;
    struct stat st;
    PathState state;
    gint err;

    if (bind (fd, (const struct sockaddr *) addr, sizeof (*addr)) == 0)
      return TRUE;
    /* bounded: the path can change between a probe and the next bind
     * while other sinks start on it at the same moment */
    if (errno != EADDRINUSE || attempt == 2) {
      GST_CUDA_SYNC_SET_ERROR (error, RESOURCE, OPEN_WRITE, ("Could not "
              "create the socket \"%s\".", path), ("bind: %s",
              g_strerror (errno)));
      return FALSE;
    }
    state = probe_path (addr, &st, &what, &err);
    if (state == PATH_TAKEN) {
      GST_CUDA_SYNC_SET_ERROR (error, RESOURCE, OPEN_WRITE, ("The socket "
              "path \"%s\" is %s; the sink left it alone.", path, what),
          ("only a stale socket (connect() refused) is replaced%s%s",
              err ? ": " : "", err ? g_strerror (err) : ""));
      return FALSE;
    }
    if (state == PATH_STALE && !remove_stale (path, &st, error))
      return FALSE;
  }
}

gint
gst_cuda_sync_ipc_socket_listen (const gchar * path, guint mode,
    GstCudaSyncIpcSocketId * id, GError ** error)
{
  struct sockaddr_un addr;
  const gchar *what = NULL;
  struct stat st;
  gint fd;

  init_debug ();
  if (!gst_cuda_sync_ipc_socket_check_settings (path, mode, error))
    return -1;
  memset (&addr, 0, sizeof (addr));
  addr.sun_family = AF_UNIX;
  strcpy (addr.sun_path, path);
  fd = socket (AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
  if (fd < 0) {
    GST_CUDA_SYNC_SET_ERROR (error, RESOURCE, OPEN_READ_WRITE, ("Could not "
            "create a unix socket."), ("socket: %s", g_strerror (errno)));
    return -1;
  }
  if (!bind_path (fd, &addr, error)) {
    close (fd);
    return -1;
  }
  /* what a failure removes: the file bind() made; once its mode is set,
   * with its new change time */
  if (lstat (path, &st) != 0) {
    GST_CUDA_SYNC_SET_ERROR (error, RESOURCE, OPEN_READ_WRITE, ("Could not "
            "listen on the socket \"%s\".", path), ("lstat after bind: %s",
            g_strerror (errno)));
    close (fd);
    return -1;
  }
  id_of (&st, id);
  /* listening at once: a second sink that probes the path between the
   * bind and the listen would find it refused, and take it for stale */
  if (listen (fd, 16) != 0)
    what = "listen";
  else if (chmod (path, mode) != 0)
    what = "chmod";
  else if (lstat (path, &st) != 0 || st.st_dev != id->dev ||
      st.st_ino != id->ino)
    what = "lstat after chmod";
  else
    id_of (&st, id);
  if (what) {
    GST_CUDA_SYNC_SET_ERROR (error, RESOURCE, OPEN_READ_WRITE, ("Could not "
            "listen on the socket \"%s\".", path), ("%s: %s", what,
            g_strerror (errno)));
    close (fd);
    gst_cuda_sync_ipc_socket_remove (path, id);
    return -1;
  }
  return fd;
}

void
gst_cuda_sync_ipc_socket_remove (const gchar * path,
    const GstCudaSyncIpcSocketId * id)
{
  struct stat st;

  init_debug ();
  if (lstat (path, &st) != 0) {
    GST_INFO ("%s is gone already", path);
    return;
  }
  if (!is_socket (&st, id)) {
    GST_WARNING ("%s is no longer the sink's socket (now %s): left alone",
        path, describe (&st));
    return;
  }
  if (unlink (path) != 0)
    GST_WARNING ("could not remove %s: %s", path, g_strerror (errno));
}

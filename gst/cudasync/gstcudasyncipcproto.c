/* gst-cudasync
 * Copyright (C) 2026 gst-cudasync developers
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#define _GNU_SOURCE
#include "gstcudasyncipcproto.h"
#include "gstcudasemaphore-fd.h"
#include <errno.h>
#include <poll.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

/* per type: the body's size (fixed part) and the fds it carries */
static const struct
{
  gsize body;
  guint n_fds;
  const gchar *name;
} msg_rules[] = {
  [GST_CUDA_SYNC_IPC_MSG_HELLO] = {sizeof (GstCudaSyncIpcHello), 0, "HELLO"},
  [GST_CUDA_SYNC_IPC_MSG_SEMAPHORE] = {sizeof (GstCudaSyncIpcSemaphore), 1,
      "SEMAPHORE"},
  [GST_CUDA_SYNC_IPC_MSG_CAPS] = {sizeof (GstCudaSyncIpcCaps), 0, "CAPS"},
  [GST_CUDA_SYNC_IPC_MSG_BUFFER] = {sizeof (GstCudaSyncIpcBuffer), 1, "BUFFER"},
  [GST_CUDA_SYNC_IPC_MSG_FRAME] = {sizeof (GstCudaSyncIpcFrame), 0, "FRAME"},
  [GST_CUDA_SYNC_IPC_MSG_RELEASE] =
      {sizeof (GstCudaSyncIpcRelease), 0, "RELEASE"},
  [GST_CUDA_SYNC_IPC_MSG_EOS] = {0, 0, "EOS"},
  [GST_CUDA_SYNC_IPC_MSG_BYE] = {sizeof (GstCudaSyncIpcBye), 0, "BYE"},
  [GST_CUDA_SYNC_IPC_MSG_DRAIN] = {0, 0, "DRAIN"},
};

gboolean
gst_cuda_sync_ipc_send (gint sock, GstCudaSyncIpcMsgType type, const void *body,
    gsize body_size, const void *extra, gsize extra_size, gint fd,
    GError ** error)
{
  GstCudaSyncIpcHeader hdr =
      { GST_CUDA_SYNC_IPC_MAGIC, type, fd >= 0 ? 1 : 0, 0, 0 };
  struct iovec iov[3];
  struct msghdr mh;
  union
  {
    struct cmsghdr align;
    gchar buf[CMSG_SPACE (sizeof (gint))];
  }
  cbuf;
  ssize_t n;

  hdr.size = sizeof (hdr) + body_size + extra_size;
  g_assert (hdr.size <= GST_CUDA_SYNC_IPC_MAX_MESSAGE);
  iov[0].iov_base = &hdr;
  iov[0].iov_len = sizeof (hdr);
  iov[1].iov_base = (void *) body;
  iov[1].iov_len = body_size;
  iov[2].iov_base = (void *) extra;
  iov[2].iov_len = extra_size;
  memset (&mh, 0, sizeof (mh));
  mh.msg_iov = iov;
  mh.msg_iovlen = 3;
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
  /* never blocks: a peer that does not read is dropped (the frames in
   * flight are bounded by the pool, far below the socket's buffer) */
  do {
    n = sendmsg (sock, &mh, MSG_NOSIGNAL | MSG_DONTWAIT);
  } while (n < 0 && errno == EINTR);
  if (n != (ssize_t) hdr.size) {
    GST_CUDA_SYNC_SET_ERROR (error, RESOURCE, WRITE,
        ("Could not send a message to the peer."),
        ("sendmsg (%s): %s", msg_rules[type].name,
            n < 0 ? g_strerror (errno) : "short write"));
    return FALSE;
  }
  return TRUE;
}

gboolean
gst_cuda_sync_ipc_peer_closed (gint sock)
{
  struct pollfd pfd = { sock, POLLRDHUP, 0 };

  return poll (&pfd, 1, 0) > 0 && (pfd.revents & (POLLRDHUP | POLLHUP |
          POLLERR));
}

static void
close_fds (struct msghdr *mh)
{
  struct cmsghdr *c;

  for (c = CMSG_FIRSTHDR (mh); c; c = CMSG_NXTHDR (mh, c)) {
    if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS) {
      gint i, n = (c->cmsg_len - CMSG_LEN (0)) / sizeof (gint), fd;
      for (i = 0; i < n; i++) {
        memcpy (&fd, CMSG_DATA (c) + i * sizeof (gint), sizeof (gint));
        close (fd);
      }
    }
  }
}

/* the one fd of @mh, or -1; FALSE when it carried anything else */
static gboolean
take_fds (struct msghdr *mh, gint * fd_out, guint * n_out)
{
  struct cmsghdr *c;
  guint n_fds = 0;
  gint fd = -1;

  if (mh->msg_flags & MSG_CTRUNC) {
    close_fds (mh);
    return FALSE;
  }
  for (c = CMSG_FIRSTHDR (mh); c; c = CMSG_NXTHDR (mh, c)) {
    if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS) {
      close_fds (mh);
      return FALSE;
    }
    n_fds += (c->cmsg_len - CMSG_LEN (0)) / sizeof (gint);
    if (n_fds == 1)
      memcpy (&fd, CMSG_DATA (c), sizeof (gint));
  }
  if (n_fds > 1) {
    close_fds (mh);
    return FALSE;
  }
  *fd_out = fd;
  *n_out = n_fds;
  return TRUE;
}

static gint
recv_fail (GstCudaSyncIpcMsg * msg, GError ** error, const gchar * what)
{
  gst_cuda_sync_ipc_msg_clear (msg);
  GST_CUDA_SYNC_SET_ERROR (error, STREAM, DECODE,
      ("The peer sent an invalid message."), ("%s", what));
  return -1;
}

gint
gst_cuda_sync_ipc_recv (gint sock, GstCudaSyncIpcMsg * msg, GError ** error)
{
  struct iovec iov[2];
  struct msghdr mh;
  union
  {
    struct cmsghdr align;
    gchar buf[CMSG_SPACE (4 * sizeof (gint))];
  }
  cbuf;
  guint n_fds = 0;
  gsize body;
  ssize_t n;

  msg->fd = -1;
  iov[0].iov_base = &msg->hdr;
  iov[0].iov_len = sizeof (msg->hdr);
  iov[1].iov_base = msg->body;
  iov[1].iov_len = sizeof (msg->body);
  memset (&mh, 0, sizeof (mh));
  mh.msg_iov = iov;
  mh.msg_iovlen = 2;
  mh.msg_control = cbuf.buf;
  mh.msg_controllen = sizeof (cbuf.buf);
  do {
    n = recvmsg (sock, &mh, MSG_CMSG_CLOEXEC);
  } while (n < 0 && errno == EINTR);
  /* A peer that closes with messages of ours unread resets the
   * connection, and the kernel reports that before the messages the peer
   * sent until then (its BYE): the error is cleared by reporting it, so
   * those are read now */
  if (n < 0 && errno == ECONNRESET) {
    mh.msg_controllen = sizeof (cbuf.buf);
    mh.msg_flags = 0;
    n = recvmsg (sock, &mh, MSG_CMSG_CLOEXEC | MSG_DONTWAIT);
    if (n < 0 && (errno == EAGAIN || errno == ECONNRESET))
      return 0;
  }
  /* an empty packet reads as the peer's end (nothing else can be told
   * from it), but the fds that came with it are ours to close */
  if (n == 0) {
    close_fds (&mh);
    return 0;
  }
  if (n < 0) {
    GST_CUDA_SYNC_SET_ERROR (error, RESOURCE, READ,
        ("Could not read from the peer."), ("recvmsg: %s", g_strerror (errno)));
    return -1;
  }
  if (!take_fds (&mh, &msg->fd, &n_fds))
    return recv_fail (msg, error, "more than one fd, or truncated control "
        "data");
  if ((mh.msg_flags & MSG_TRUNC) || n < (ssize_t) sizeof (msg->hdr))
    return recv_fail (msg, error, "truncated or oversized message");
  if (msg->hdr.magic != GST_CUDA_SYNC_IPC_MAGIC || msg->hdr.reserved != 0 ||
      msg->hdr.size != (guint32) n)
    return recv_fail (msg, error, "bad magic, reserved field or size");
  if (msg->hdr.type == 0 || msg->hdr.type >= G_N_ELEMENTS (msg_rules))
    return recv_fail (msg, error, "unknown message type");
  body = n - sizeof (msg->hdr);
  if (msg->hdr.n_fds != n_fds || n_fds != msg_rules[msg->hdr.type].n_fds)
    return recv_fail (msg, error, "wrong number of fds");
  if (msg->hdr.type == GST_CUDA_SYNC_IPC_MSG_CAPS ? body <
      msg_rules[msg->hdr.type].body : body != msg_rules[msg->hdr.type].body)
    return recv_fail (msg, error, "wrong body size");
  return 1;
}

void
gst_cuda_sync_ipc_msg_clear (GstCudaSyncIpcMsg * msg)
{
  if (msg->fd >= 0)
    close (msg->fd);
  msg->fd = -1;
}

gint
gst_cuda_sync_ipc_msg_take_fd (GstCudaSyncIpcMsg * msg)
{
  gint fd = msg->fd;

  msg->fd = -1;
  return fd;
}

gboolean
gst_cuda_sync_ipc_check_hello (const GstCudaSyncIpcMsg * msg,
    GstCudaSyncIpcRole expected_role, GError ** error)
{
  const GstCudaSyncIpcHello *h = (const GstCudaSyncIpcHello *) msg->body;

  if (msg->hdr.type != GST_CUDA_SYNC_IPC_MSG_HELLO) {
    GST_CUDA_SYNC_SET_ERROR (error, STREAM, DECODE,
        ("The peer does not speak the protocol."),
        ("first message of type %u, not HELLO", msg->hdr.type));
    return FALSE;
  }
  if (h->version_major != GST_CUDA_SYNC_IPC_VERSION_MAJOR || h->role !=
      expected_role || h->max_buffers > GST_CUDA_SYNC_IPC_MAX_BUFFERS) {
    GST_CUDA_SYNC_SET_ERROR (error, STREAM, WRONG_TYPE,
        ("The peer speaks another version of the protocol or is not the "
            "expected element."), ("version %u.%u (want %u.x), role %u "
            "(want %u), max-buffers %u", h->version_major, h->version_minor,
            GST_CUDA_SYNC_IPC_VERSION_MAJOR, h->role, expected_role,
            h->max_buffers));
    return FALSE;
  }
  return TRUE;
}

static gboolean
layout_fits (const GstCudaSyncIpcCaps * c, const GstVideoInfo * info)
{
  guint i;

  if (c->n_planes != GST_VIDEO_INFO_N_PLANES (info) || c->size == 0 ||
      c->size > G_GUINT64_CONSTANT (1) << 34)
    return FALSE;
  for (i = 0; i < 4; i++) {
    gint comp[GST_VIDEO_MAX_COMPONENTS];
    guint64 row, rows;

    if (i >= c->n_planes) {
      if (c->offset[i] || c->stride[i])
        return FALSE;
      continue;
    }
    gst_video_format_info_component (info->finfo, i, comp);
    row = (guint64) GST_VIDEO_INFO_COMP_WIDTH (info, comp[0]) *
        GST_VIDEO_INFO_COMP_PSTRIDE (info, comp[0]);
    rows = GST_VIDEO_INFO_COMP_HEIGHT (info, comp[0]);
    if (c->stride[i] < row || c->offset[i] > c->size ||
        rows * c->stride[i] > c->size - c->offset[i])
      return FALSE;
  }
  return TRUE;
}

/* a caps feature name as gst_caps_features_from_string() accepts it
 * (letters, ':', a letter, letters and digits), or "ANY" */
static gboolean
feature_valid (const gchar * f, gsize len)
{
  gsize i = 0;

  while (len > 0 && g_ascii_isspace (*f)) {
    f++;
    len--;
  }
  if (len == 3 && strncmp (f, "ANY", 3) == 0)
    return TRUE;
  while (i < len && g_ascii_isalpha (f[i]))
    i++;
  if (i == 0 || i + 1 >= len || f[i] != ':' || !g_ascii_isalpha (f[i + 1]))
    return FALSE;
  for (i += 2; i < len && g_ascii_isalnum (f[i]); i++);
  return i == len;
}

/* gst_caps_from_string() warns (g_warning, g_return_if_fail) about an
 * invalid structure or feature name: a peer must not be able to make the
 * process warn, so the names and features of every structure in @text
 * are checked first (names as gst_structure_validate_name() wants them,
 * unquoted) */
static gboolean
caps_names_valid (const gchar * p)
{
  for (;;) {
    gboolean quoted = FALSE;

    while (g_ascii_isspace (*p))
      p++;
    if (!g_ascii_isalpha (*p))
      return FALSE;
    while (g_ascii_isalnum (*p) || (*p && strchr ("/-_.:+", *p)))
      p++;
    while (g_ascii_isspace (*p))
      p++;
    if (*p && *p != '(' && *p != ',' && *p != ';')
      return FALSE;
    if (*p == '(') {
      const gchar *end = strchr (p, ')'), *f = p + 1;
      if (!end)
        return FALSE;
      while (f <= end) {
        const gchar *e = memchr (f, ',', end - f);
        if (!e)
          e = end;
        if (!feature_valid (f, e - f))
          return FALSE;
        f = e + 1;
      }
      p = end + 1;
    }
    for (; *p && (quoted || *p != ';'); p++) {
      if (*p == '\\' && p[1])
        p++;
      else if (*p == '"')
        quoted = !quoted;
    }
    if (!*p)
      return TRUE;
    p++;
  }
}

gboolean
gst_cuda_sync_ipc_parse_caps (const GstCudaSyncIpcMsg * msg, GstCaps ** caps,
    GstVideoInfo * layout, GError ** error)
{
  const GstCudaSyncIpcCaps *c = (const GstCudaSyncIpcCaps *) msg->body;
  const gchar *text = (const gchar *) msg->body + sizeof (*c);
  gsize avail = msg->hdr.size - sizeof (msg->hdr) - sizeof (*c);
  GstCaps *parsed = NULL;
  gchar *shown, *escaped;
  guint i;

  /* Decoders' caps carry multiview-flags: gst_caps_from_string() parses
   * that field only once its type is registered, which a process that
   * has not made such caps itself has not done */
  g_type_ensure (GST_TYPE_VIDEO_MULTIVIEW_FLAGSET);
  if (c->caps_len == 0 || c->caps_len > GST_CUDA_SYNC_IPC_MAX_CAPS ||
      c->caps_len != avail || text[c->caps_len - 1] != '\0' ||
      strlen (text) != c->caps_len - 1 || !caps_names_valid (text))
    goto invalid;
  parsed = gst_caps_from_string (text);
  if (!parsed || !gst_caps_is_fixed (parsed) ||
      !gst_video_info_from_caps (layout, parsed) ||
      GST_VIDEO_INFO_FORMAT (layout) == GST_VIDEO_FORMAT_ENCODED ||
      !layout_fits (c, layout))
    goto invalid;
  for (i = 0; i < c->n_planes; i++) {
    layout->offset[i] = c->offset[i];
    layout->stride[i] = c->stride[i];
  }
  layout->size = c->size;
  *caps = parsed;
  return TRUE;

invalid:
  gst_clear_caps (&parsed);
  /* (the peer's text, escaped and cut, for the details) */
  shown = g_strndup (text, MIN (avail, 512));
  escaped = g_strescape (shown, NULL);
  GST_CUDA_SYNC_SET_ERROR (error, STREAM, DECODE,
      ("The peer sent invalid caps or a frame layout that does not fit "
          "them."), ("CAPS message: %u planes, size %" G_GUINT64_FORMAT
          ", offsets %" G_GUINT64_FORMAT " %" G_GUINT64_FORMAT
          ", strides %u %u, caps length %u: \"%s\"", c->n_planes, c->size,
          c->offset[0], c->offset[1], c->stride[0], c->stride[1],
          c->caps_len, escaped));
  g_free (escaped);
  g_free (shown);
  return FALSE;
}

void
gst_cuda_sync_ipc_caps_from_info (GstCudaSyncIpcCaps * c,
    const GstVideoInfo * info, guint32 epoch)
{
  guint i;

  memset (c, 0, sizeof (*c));
  c->epoch = epoch;
  c->n_planes = GST_VIDEO_INFO_N_PLANES (info);
  c->size = GST_VIDEO_INFO_SIZE (info);
  for (i = 0; i < c->n_planes; i++) {
    c->offset[i] = GST_VIDEO_INFO_PLANE_OFFSET (info, i);
    c->stride[i] = GST_VIDEO_INFO_PLANE_STRIDE (info, i);
  }
}

static gboolean
uid_allowed (const gchar * allowed, guint uid)
{
  gchar **list;
  gboolean ok = FALSE;
  guint i;

  if (!allowed || !*allowed)
    return uid == getuid ();
  if (g_strcmp0 (allowed, "*") == 0)
    return TRUE;
  list = g_strsplit (allowed, ",", -1);
  for (i = 0; list[i] && !ok; i++) {
    guint64 v;
    ok = g_ascii_string_to_unsigned (g_strstrip (list[i]), 10, 0, G_MAXUINT32,
        &v, NULL) && v == uid;
  }
  g_strfreev (list);
  return ok;
}

gboolean
gst_cuda_sync_ipc_check_allowed_uids (const gchar * allowed, GError ** error)
{
  gchar **list;
  gboolean ok = TRUE;
  guint i;

  if (!allowed || !*allowed || g_strcmp0 (allowed, "*") == 0)
    return TRUE;
  list = g_strsplit (allowed, ",", -1);
  for (i = 0; list[i] && ok; i++) {
    const gchar *entry = g_strstrip (list[i]);
    ok = g_ascii_string_to_unsigned (entry, 10, 0, G_MAXUINT32, NULL, NULL);
    if (!ok)
      GST_CUDA_SYNC_SET_ERROR (error, RESOURCE, SETTINGS, ("Invalid "
              "allowed-uids: \"%s\" is not a numeric user id.", entry),
          ("allowed-uids \"%s\": comma-separated decimal user ids, empty "
              "for the own user only, or * for any", allowed));
  }
  g_strfreev (list);
  return ok;
}

gboolean
gst_cuda_sync_ipc_check_peer (gint sock, const gchar * allowed_uids,
    guint * uid, gint * pid, GError ** error)
{
  struct ucred cred;
  socklen_t len = sizeof (cred);

  if (getsockopt (sock, SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0) {
    GST_CUDA_SYNC_SET_ERROR (error, RESOURCE, NOT_AUTHORIZED,
        ("Could not read the peer's credentials."),
        ("SO_PEERCRED: %s", g_strerror (errno)));
    return FALSE;
  }
  *uid = cred.uid;
  *pid = cred.pid;
  if (!uid_allowed (allowed_uids, cred.uid)) {
    GST_CUDA_SYNC_SET_ERROR (error, RESOURCE, NOT_AUTHORIZED,
        ("A process of a user that is not allowed connected."),
        ("peer pid %d uid %u, allowed-uids \"%s\" (own uid %u)", cred.pid,
            cred.uid, allowed_uids ? allowed_uids : "", getuid ()));
    return FALSE;
  }
  return TRUE;
}

/* Whether a frame of @l can be one wrapped GstCudaMemory: where
 * GStreamer can wrap device memory (1.24+), and the layout survives its CPU
 * map, which copies size / stride[0] rows of plane 0's row width at plane
 * 0's stride */
gboolean
gst_cuda_sync_ipc_layout_wrappable (const GstVideoInfo * l)
{
  gsize pitch = GST_VIDEO_INFO_PLANE_STRIDE (l, 0);
  gsize row = GST_VIDEO_INFO_COMP_WIDTH (l, 0) * GST_VIDEO_INFO_COMP_PSTRIDE (l,
      0);
  guint c;

  if (!gst_cuda_sync_memory_can_wrap () || pitch == 0 || l->size % pitch)
    return FALSE;
  if (row == pitch)
    return TRUE;
  for (c = 0; c < GST_VIDEO_INFO_N_COMPONENTS (l); c++) {
    guint p = GST_VIDEO_INFO_COMP_PLANE (l, c);
    if ((gsize) GST_VIDEO_INFO_PLANE_STRIDE (l, p) != pitch ||
        GST_VIDEO_INFO_PLANE_OFFSET (l, p) % pitch ||
        (gsize) GST_VIDEO_INFO_COMP_WIDTH (l, c) *
        GST_VIDEO_INFO_COMP_PSTRIDE (l, c) > row)
      return FALSE;
  }
  return TRUE;
}

gboolean
gst_cuda_sync_ipc_same_file (gint kept, gint fd)
{
  GstCudaFdId a, b;

  if (!_gst_cuda_fd_id_init (&a, kept) || !_gst_cuda_fd_id_init (&b, fd))
    return FALSE;
  /* @kept is the duplicate _gst_cuda_fd_id_same() compares (not ours to
   * close) */
  a.dup_fd = a.regular ? -1 : kept;
  return _gst_cuda_fd_id_same (&a, &b, fd);
}

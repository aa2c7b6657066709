/* gst-cudasync
 * Copyright (C) 2026 gst-cudasync developers
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The IPC fuzz test's fake peer (elements/cudaipcfuzz): scripts of
 * protocol messages (docs/ipc-protocol.md) with their fds, their
 * mutations, sending and receiving, a watchdog bounding each case.
 */
#define _GNU_SOURCE
#include "ipcfuzz.h"
#include <fcntl.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#define CASE_LIMIT_S 10
#define DEFAULT_SEED 20260101u

GRand *fz_rng;
static gint fz_current_case = -1;
static gint fz_watchdog_stop;

static gpointer
fz_watchdog (gpointer data)
{
  gint last = -2, same = 0;

  while (!g_atomic_int_get (&fz_watchdog_stop)) {
    gint c = g_atomic_int_get (&fz_current_case);
    same = c == last ? same + 1 : 0;
    last = c;
    if (c >= 0 && same > CASE_LIMIT_S * 10) {
      g_printerr ("fuzz: case %d (seed %u) ran past %d s\n", c,
          GPOINTER_TO_UINT (data), CASE_LIMIT_S);
      abort ();
    }
    g_usleep (100000);
  }
  return NULL;
}

GThread *
fz_watchdog_start (guint seed)
{
  g_atomic_int_set (&fz_watchdog_stop, 0);
  g_atomic_int_set (&fz_current_case, -1);
  return g_thread_new ("watchdog", fz_watchdog, GUINT_TO_POINTER (seed));
}

void
fz_watchdog_case (gint i)
{
  g_atomic_int_set (&fz_current_case, i);
}

void
fz_watchdog_stop_join (GThread * dog)
{
  g_atomic_int_set (&fz_watchdog_stop, 1);
  g_thread_join (dog);
}

guint
fz_seed (void)
{
  const gchar *s = g_getenv ("IPC_FUZZ_SEED");

  return s ? (guint) g_ascii_strtoull (s, NULL, 0) : DEFAULT_SEED;
}

guint
fz_cases (guint dflt)
{
  const gchar *s = g_getenv ("IPC_FUZZ_CASES");

  return s ? (guint) g_ascii_strtoull (s, NULL, 0) : dflt;
}

guint
fz_count_fds (void)
{
  GDir *d = g_dir_open ("/proc/self/fd", 0, NULL);
  guint n = 0;

  const gchar *name;

  while ((name = g_dir_read_name (d))) {
    n++;
    if (g_getenv ("FDDEBUG")) {
      gchar *l = g_strdup_printf ("/proc/self/fd/%s", name);
      gchar *t = g_file_read_link (l, NULL);
      g_print ("  fd %s -> %s\n", name, t);
      g_free (t);
      g_free (l);
    }
  }
  g_dir_close (d);
  return n;
}

guint
fz_count_fds_but_sockets (void)
{
  GDir *d = g_dir_open ("/proc/self/fd", 0, NULL);
  const gchar *name;
  guint n = 0;

  while ((name = g_dir_read_name (d))) {
    gchar *l = g_strdup_printf ("/proc/self/fd/%s", name);
    gchar *t = g_file_read_link (l, NULL);
    n += t && !g_str_has_prefix (t, "socket:");
    g_free (t);
    g_free (l);
  }
  g_dir_close (d);
  return n;
}

/* The library makes a CUDA context of its own at the first rescue and
 * keeps it for the process's life; on the NVIDIA driver it holds fds of its
 * own. A rescue of a semaphore of the test's makes it before any count. */
static void
fz_make_rescue_context (void)
{
  static gboolean made;
  GError *err = NULL;
  TestSem *ts = NULL;
  GstCudaSemaphore *sem;

  if (made)
    return;
  sem = cs_new_semaphore (cs_ctx, TRUE, &ts);
  fail_unless (gst_cuda_semaphore_rescue (sem, 1, &err), "rescue: %s",
      err ? err->message : "?");
  gst_object_unref (sem);
  test_sem_free (ts);
  made = TRUE;
}

/* the fds once every simulated stream is idle (no GPU wait stuck) and
 * the library's deferred releases ran */
guint
fz_settled_fds (void)
{
  fz_make_rescue_context ();
  fail_unless (ipc_drained_within (2000), "a GPU wait is left stuck");
  gst_cuda_sync_wait_idle ();
  return fz_count_fds ();
}

static GstCudaSyncIpcHeader *
fz_hdr_of (FzPacket * p)
{
  return (GstCudaSyncIpcHeader *) p->data;
}

static void *
fz_body_of (FzPacket * p)
{
  return p->data + sizeof (GstCudaSyncIpcHeader);
}

FzPacket *
fz_script_add (FzScript * s, guint16 type, const void *body, gsize size)
{
  FzPacket *p = &s->pkts[s->n++];
  GstCudaSyncIpcHeader h =
      { GST_CUDA_SYNC_IPC_MAGIC, type, 0, sizeof (h) + size, 0 };

  memset (p, 0, sizeof (*p));
  memcpy (p->data, &h, sizeof (h));
  if (size)
    memcpy (fz_body_of (p), body, size);
  p->len = sizeof (h) + size;
  return p;
}

void
fz_pkt_add_fd (FzPacket * p, gint fd)
{
  if (fd < 0 || p->n_fds >= G_N_ELEMENTS (p->fds)) {
    if (fd >= 0)
      close (fd);
    return;
  }
  p->fds[p->n_fds++] = fd;
  fz_hdr_of (p)->n_fds = p->n_fds;
}

void
fz_script_clear (FzScript * s)
{
  guint i, k;

  for (i = 0; i < s->n; i++)
    for (k = 0; k < s->pkts[i].n_fds; k++)
      close (s->pkts[i].fds[k]);
  s->n = 0;
}

/* sends one packet and closes its fds; the peer may have gone already */
void
fz_pkt_send (gint sock, FzPacket * p)
{
  struct iovec iov = { p->data, p->len };
  struct msghdr mh;
  union
  {
    struct cmsghdr align;
    gchar buf[CMSG_SPACE (4 * sizeof (gint))];
  }
  cbuf;
  guint k;

  memset (&mh, 0, sizeof (mh));
  mh.msg_iov = &iov;
  mh.msg_iovlen = 1;
  if (p->n_fds) {
    struct cmsghdr *c;
    memset (&cbuf, 0, sizeof (cbuf));
    mh.msg_control = cbuf.buf;
    mh.msg_controllen = CMSG_SPACE (p->n_fds * sizeof (gint));
    c = CMSG_FIRSTHDR (&mh);
    c->cmsg_level = SOL_SOCKET;
    c->cmsg_type = SCM_RIGHTS;
    c->cmsg_len = CMSG_LEN (p->n_fds * sizeof (gint));
    memcpy (CMSG_DATA (c), p->fds, p->n_fds * sizeof (gint));
  }
  if (sendmsg (sock, &mh, MSG_NOSIGNAL | MSG_DONTWAIT) < 0)
    GST_LOG ("send: %s", g_strerror (errno));
  for (k = 0; k < p->n_fds; k++)
    close (p->fds[k]);
  p->n_fds = 0;
}

void
fz_send_raw (gint sock, const void *data, gsize len, const gint * fds,
    guint n_fds)
{
  struct iovec iov = { (void *) data, len };
  struct msghdr mh;
  gsize space = CMSG_SPACE (n_fds * sizeof (gint));
  gchar *cbuf = g_malloc0 (MAX (space, sizeof (struct cmsghdr)));

  memset (&mh, 0, sizeof (mh));
  mh.msg_iov = &iov;
  mh.msg_iovlen = 1;
  if (n_fds) {
    struct cmsghdr *c;
    mh.msg_control = cbuf;
    mh.msg_controllen = space;
    c = CMSG_FIRSTHDR (&mh);
    c->cmsg_level = SOL_SOCKET;
    c->cmsg_type = SCM_RIGHTS;
    c->cmsg_len = CMSG_LEN (n_fds * sizeof (gint));
    memcpy (CMSG_DATA (c), fds, n_fds * sizeof (gint));
  }
  fail_unless (sendmsg (sock, &mh, MSG_NOSIGNAL) == (ssize_t) len,
      "sendmsg: %s", g_strerror (errno));
  g_free (cbuf);
}

/* one message of the peer into @buf: its type, 0 when the peer closed the
 * connection, -1 when nothing came within @ms; its first fd in *@fd_out
 * (when not NULL), the others closed */
static gint
fz_recv_one_fd (gint sock, guint ms, guint8 * buf, gsize size, gint * fd_out)
{
  struct pollfd pfd = { sock, POLLIN, 0 };
  struct iovec iov = { buf, size };
  struct msghdr mh;
  union
  {
    struct cmsghdr align;
    gchar buf[CMSG_SPACE (8 * sizeof (gint))];
  }
  cbuf;
  struct cmsghdr *c;
  ssize_t n;

  if (poll (&pfd, 1, ms) <= 0)
    return -1;
  memset (&mh, 0, sizeof (mh));
  mh.msg_iov = &iov;
  mh.msg_iovlen = 1;
  mh.msg_control = cbuf.buf;
  mh.msg_controllen = sizeof (cbuf.buf);
  n = recvmsg (sock, &mh, MSG_CMSG_CLOEXEC);
  for (c = CMSG_FIRSTHDR (&mh); n >= 0 && c; c = CMSG_NXTHDR (&mh, c)) {
    gint i, fd, k = (c->cmsg_len - CMSG_LEN (0)) / sizeof (gint);
    for (i = 0; i < k; i++) {
      memcpy (&fd, CMSG_DATA (c) + i * sizeof (gint), sizeof (gint));
      if (fd_out && *fd_out < 0)
        *fd_out = fd;
      else
        close (fd);
    }
  }
  if (n <= 0)
    return 0;
  return n >= (ssize_t) sizeof (GstCudaSyncIpcHeader) ?
      ((GstCudaSyncIpcHeader *) buf)->type : 0xffff;
}

static gint
fz_recv_one (gint sock, guint ms, guint8 * buf, gsize size)
{
  return fz_recv_one_fd (sock, ms, buf, size, NULL);
}

gint
fz_recv_fd (gint sock, guint16 type, guint ms)
{
  guint8 buf[GST_CUDA_SYNC_IPC_MAX_MESSAGE + 64];
  gint t, fd = -1;

  while ((t = fz_recv_one_fd (sock, ms, buf, sizeof (buf), &fd)) > 0) {
    if (t == type)
      return fd;
    if (fd >= 0)
      close (fd);
    fd = -1;
  }
  return -1;
}

void
fz_source_hello (gint sock, gint release_fd)
{
  GstCudaSyncIpcHello hello = { 1, 0, GST_CUDA_SYNC_IPC_ROLE_SOURCE };
  GstCudaSyncIpcSemaphore sm = { GST_CUDA_SYNC_IPC_SEM_RELEASE, 1, 0 };
  FzScript *s = g_new0 (FzScript, 1);
  guint i;

  fz_script_add (s, GST_CUDA_SYNC_IPC_MSG_HELLO, &hello, sizeof (hello));
  fz_pkt_add_fd (fz_script_add (s, GST_CUDA_SYNC_IPC_MSG_SEMAPHORE, &sm,
          sizeof (sm)), release_fd);
  for (i = 0; i < s->n; i++)
    fz_pkt_send (sock, &s->pkts[i]);
  fz_script_clear (s);
  g_free (s);
}

/* reads until the peer closes (TRUE) or @ms pass without a message */
gboolean
fz_until_closed (gint sock, guint ms)
{
  guint8 buf[GST_CUDA_SYNC_IPC_MAX_MESSAGE + 64];
  gint t;

  while ((t = fz_recv_one (sock, ms, buf, sizeof (buf))) > 0);
  return t == 0;
}

/* an fd of a kind the message does not want (or a wanted one of another
 * object): the simulator must refuse it, the element must close it */
static gint
fz_foreign_fd (GstCudaSyncVmm * vmm)
{
  gint fds[2], fd = -1;
  guint8 junk[256];
  TestSem *ts;

  switch (g_rand_int_range (fz_rng, 0, 7)) {
    case 0:
      return open ("/dev/null", O_RDWR | O_CLOEXEC);
    case 1:
      if (pipe2 (fds, O_CLOEXEC) != 0)
        return -1;
      close (fds[1]);
      return fds[0];
    case 2:
      return eventfd (0, EFD_CLOEXEC);
    case 3:
      fd = memfd_create ("fuzz", MFD_CLOEXEC);
      for (guint i = 0; i < sizeof (junk); i++)
        junk[i] = g_rand_int (fz_rng);
      if (fd >= 0 && write (fd, junk, g_rand_int_range (fz_rng, 0, 256)) < 0)
        GST_LOG ("memfd: %s", g_strerror (errno));
      return fd;
    case 4:
      return socket (AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    case 5:                    /* a binary semaphore, gone once exported */
      ts = test_sem_new (FALSE, 0);
      fd = ts ? test_sem_export_fd (ts) : -1;
      if (ts)
        test_sem_free (ts);
      return fd;
    default:                   /* memory where a semaphore is wanted, or
                                 * the other way round */
      return vmm ? gst_cuda_sync_vmm_export_fd (vmm, NULL) :
          open ("/proc/self/exe", O_RDONLY | O_CLOEXEC);
  }
}

static guint64
fz_edge_value (void)
{
  static const guint64 v[] =
      { 0, 1, 2, G_MAXUINT32, GST_CUDA_SYNC_IPC_MAX_VALUE - 1,
    GST_CUDA_SYNC_IPC_MAX_VALUE, G_MAXUINT64 - 1, G_MAXUINT64
  };

  return g_rand_boolean (fz_rng) ? v[g_rand_int_range (fz_rng, 0,
          G_N_ELEMENTS (v))]
      : ((guint64) g_rand_int (fz_rng) << 32) | g_rand_int (fz_rng);
}

/* one mutation of @p (a message of the script, fds included) */
static void
fz_mutate (FzPacket * p, GstCudaSyncVmm * vmm)
{
  GstCudaSyncIpcHeader *h = fz_hdr_of (p);
  gsize body = p->len > sizeof (*h) ? p->len - sizeof (*h) : 0, i, n;

  switch (g_rand_int_range (fz_rng, 0, 9)) {
    case 0:                    /* truncated, the header's size kept or not */
      p->len = g_rand_int_range (fz_rng, 1, p->len > 1 ? p->len : 2);
      if (p->len >= sizeof (*h) && g_rand_boolean (fz_rng))
        h->size = p->len;
      break;
    case 1:                    /* longer, up to oversized */
      if (p->len + 1 >= sizeof (p->data))
        break;
      n = g_rand_int_range (fz_rng, 1, sizeof (p->data) - p->len);
      for (i = 0; i < n; i++)
        p->data[p->len + i] = g_rand_int (fz_rng);
      p->len += n;
      if (g_rand_boolean (fz_rng))
        h->size = p->len;
      break;
    case 2:                    /* bytes flipped anywhere */
      n = g_rand_int_range (fz_rng, 1, 9);
      for (i = 0; i < n; i++)
        p->data[g_rand_int_range (fz_rng, 0, p->len)] ^= 1 << g_rand_int_range
            (fz_rng, 0, 8);
      break;
    case 3:                    /* one header field */
      i = g_rand_int_range (fz_rng, 0, 5);
      if (i == 0)
        h->magic = g_rand_int (fz_rng);
      else if (i == 1)
        h->type = g_rand_int_range (fz_rng, 0, 12);
      else if (i == 2)
        h->n_fds = g_rand_int_range (fz_rng, 0, 4);
      else if (i == 3)
        h->size = g_rand_boolean (fz_rng) ? g_rand_int (fz_rng) : h->size ^ 8;
      else
        h->reserved = g_rand_int (fz_rng) | 1;
      break;
    case 4:                    /* fds: another kind, one more, none */
      i = g_rand_int_range (fz_rng, 0, 3);
      if (i == 0 && p->n_fds) {
        close (p->fds[0]);
        p->fds[0] = fz_foreign_fd (vmm);
        if (p->fds[0] < 0)
          p->fds[0] = open ("/dev/null", O_RDONLY | O_CLOEXEC);
      } else if (i == 1 || !p->n_fds) {
        fz_pkt_add_fd (p, fz_foreign_fd (vmm));
        if (g_rand_boolean (fz_rng))
          h->n_fds = 1;
      } else {
        close (p->fds[--p->n_fds]);
      }
      break;
    case 5:                    /* a 64-bit value at an aligned offset */
      if (body >= 8) {
        guint64 v = fz_edge_value ();
        memcpy (fz_body_of (p) + 8 * g_rand_int_range (fz_rng, 0, body / 8), &v,
            8);
      }
      break;
    case 6:                    /* a 32-bit value at an aligned offset */
      if (body >= 4) {
        guint32 v =
            g_rand_boolean (fz_rng) ? (guint32) g_rand_int_range (fz_rng, 0,
            8) : g_rand_int (fz_rng);
        memcpy (fz_body_of (p) + 4 * g_rand_int_range (fz_rng, 0, body / 4), &v,
            4);
      }
      break;
    default:                   /* all random, header included */
      p->len = g_rand_int_range (fz_rng, 1, 5000);
      for (i = 0; i < p->len; i++)
        p->data[i] = g_rand_int (fz_rng);
      if (g_rand_boolean (fz_rng))
        h->magic = GST_CUDA_SYNC_IPC_MAGIC;
      break;
  }
}

/* the script's end: a message of a type nobody knows, which must make
 * the element refuse the peer if nothing did before */
void
fz_script_end (FzScript * s)
{
  fz_script_add (s, 99, NULL, 0);
}

/* one to three mutations of random messages of @s, and maybe the first
 * message swapped with another */
void
fz_script_mutate (FzScript * s, GstCudaSyncVmm * vmm)
{
  guint k, n = g_rand_int_range (fz_rng, 1, 4);

  for (k = 0; k < n; k++)
    fz_mutate (&s->pkts[g_rand_int_range (fz_rng, 0, s->n)], vmm);
  if (g_rand_int_range (fz_rng, 0, 4) == 0 && s->n > 1) {
    FzPacket tmp = s->pkts[0];  /* two messages swapped */
    guint j = g_rand_int_range (fz_rng, 1, s->n);
    s->pkts[0] = s->pkts[j];
    s->pkts[j] = tmp;
  }
}

/* the fake peers' sockets */
gint
fz_connect_to (const gchar * path)
{
  struct sockaddr_un addr;
  gint fd = socket (AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);

  memset (&addr, 0, sizeof (addr));
  addr.sun_family = AF_UNIX;
  g_strlcpy (addr.sun_path, path, sizeof (addr.sun_path));
  fail_unless (fd >= 0 && connect (fd, (struct sockaddr *) &addr,
          sizeof (addr)) == 0, "connect: %s", g_strerror (errno));
  return fd;
}

gint
fz_listen_at (const gchar * path)
{
  struct sockaddr_un addr;
  gint fd = socket (AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);

  memset (&addr, 0, sizeof (addr));
  addr.sun_family = AF_UNIX;
  g_strlcpy (addr.sun_path, path, sizeof (addr.sun_path));
  unlink (path);
  fail_unless (fd >= 0 && bind (fd, (struct sockaddr *) &addr,
          sizeof (addr)) == 0 && listen (fd, 4) == 0, "listen: %s",
      g_strerror (errno));
  return fd;
}

/* the id of the next FRAME the sink sends, 0 when none comes in @ms */
guint32
fz_wait_frame (gint sock, guint ms)
{
  guint8 buf[GST_CUDA_SYNC_IPC_MAX_MESSAGE + 64];
  gint64 end = g_get_monotonic_time () + ms * 1000;
  gint t;

  while ((t = fz_recv_one (sock, ms, buf, sizeof (buf))) > 0 &&
      g_get_monotonic_time () < end)
    if (t == GST_CUDA_SYNC_IPC_MSG_FRAME)
      return ((GstCudaSyncIpcFrame *) (buf +
              sizeof (GstCudaSyncIpcHeader)))->id;
  return 0;
}

/* a message of a random known type (but the two that end a connection
 * cleanly, EOS and BYE) with a body of the right size and random
 * content */
void
fz_script_add_random (FzScript * s)
{
  static const gsize sizes[] = { 0, sizeof (GstCudaSyncIpcHello),
    sizeof (GstCudaSyncIpcSemaphore), sizeof (GstCudaSyncIpcCaps),
    sizeof (GstCudaSyncIpcBuffer), sizeof (GstCudaSyncIpcFrame),
    sizeof (GstCudaSyncIpcRelease), 0, sizeof (GstCudaSyncIpcBye)
  };
  guint8 body[sizeof (GstCudaSyncIpcFrame)];
  guint type = g_rand_int_range (fz_rng, 1, 7), i;

  for (i = 0; i < sizeof (body); i++)
    body[i] =
        g_rand_int_range (fz_rng, 0, 4) ? 0 : (guint8) g_rand_int (fz_rng);
  fz_script_add (s, type, body, sizes[type]);
}

/* gst-cudasync
 * Copyright (C) 2026 gst-cudasync developers
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * One source connected to cudasyncipcsink's server: the handshake (HELLO,
 * our acquire semaphore, CAPS), the source's messages (its release
 * semaphore, RELEASE, BYE), the frames sent to it, and its end. Called
 * with the server's lock held (gstcudaipcserver-private.h), but for
 * gst_cuda_ipc_session_start().
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstcudaipcserver-private.h"
#include "gstcudaipcsemaphore.h"
#include "gstcudasyncelementerror.h"
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

/* the server's category (initialised by gst_cuda_ipc_server_new()) */
GST_DEBUG_CATEGORY (gst_cuda_ipc_server_debug);
#define GST_CAT_DEFAULT gst_cuda_ipc_server_debug

typedef GstCudaIpcSession Session;
typedef GstCudaIpcSlot Slot;
typedef GstCudaIpcReleasePoint ReleasePoint;

Session *
gst_cuda_ipc_session_new (gint fd)
{
  Session *s = g_new0 (Session, 1);

  s->fd = fd;
  s->sent = g_hash_table_new (NULL, NULL);
  s->held = g_hash_table_new (NULL, NULL);
  return s;
}

void
gst_cuda_ipc_session_free (Session * s)
{
  if (s->fd >= 0)
    close (s->fd);
  gst_clear_object (&s->acquire);
  gst_clear_object (&s->release);
  g_hash_table_unref (s->sent);
  g_hash_table_unref (s->held);
  g_free (s);
}

/* A source that may have died with release signals pending on its GPU
 * (lock held): signal its release semaphore far past the last value it
 * announced, on a stream of ours that nothing else waits behind, so that
 * no wait of ours stays stuck. Once per session; not for a source that
 * said BYE (it has enqueued every signal it will) unless @force: the
 * stop's grace is over and those signals have still not run (the source
 * died or froze after its BYE). */
void
gst_cuda_ipc_session_rescue (GstCudaIpcServer * self, Session * s,
    gboolean force)
{
  GError *err = NULL;

  if ((s->said_bye && !force) || s->rescued || !s->release)
    return;
  s->rescued = TRUE;
  /* a source still alive sees our end closed before it would signal a
   * value below the rescue (it signals none after that) */
  if (s->fd >= 0)
    shutdown (s->fd, SHUT_RDWR);
  if (!gst_cuda_context_push (self->context)) {
    GST_WARNING ("rescue: could not push the CUDA context");
    return;
  }
  if (gst_cuda_semaphore_signal_value (s->release, self->rescue,
          s->release_last + GST_CUDA_IPC_RESCUE_STEP, &err))
    self->rescues++;
  else
    GST_WARNING ("rescue signal failed: %s", err->message);
  gst_cuda_context_pop (NULL);
  g_clear_error (&err);
}

/* the points of @sem go from @points */
static void
forget_points_of (GArray * points, GstCudaSemaphore * sem)
{
  guint j;

  for (j = 0; j < points->len;) {
    ReleasePoint *p = &g_array_index (points, ReleasePoint, j);
    if (p->sem == sem) {
      gst_object_unref (p->sem);
      g_array_remove_index_fast (points, j);
    } else {
      j++;
    }
  }
}

/* the release points of a rescued source go from every slot, settling or
 * not: the rescue signal satisfies them (lock held) */
static void
forget_points (GstCudaIpcServer * self, Session * s)
{
  guint i;

  for (i = 0; i < self->slots->len; i++) {
    Slot *slot = g_ptr_array_index (self->slots, i);
    forget_points_of (slot->points, s->release);
    forget_points_of (slot->settle_points, s->release);
  }
}

/* The session is gone (lock held). A source that vanished without BYE is
 * rescued, and its release points are forgotten; its held frames are free
 * again (nothing of it reads them any more). */
void
gst_cuda_ipc_session_drop (GstCudaIpcServer * self, Session * s, gboolean lost)
{
  GHashTableIter it;
  gpointer value;

  gst_cuda_ipc_session_rescue (self, s, FALSE);
  if (s->rescued)
    forget_points (self, s);
  g_hash_table_iter_init (&it, s->held);
  while (g_hash_table_iter_next (&it, NULL, &value)) {
    ((Slot *) value)->n_holders--;
    gst_cuda_ipc_slot_settle (self, value);
  }
  if (lost)
    self->sessions_lost++;
  GST_INFO ("session of pid %d gone (%s)", s->pid, lost ? "lost" : "bye");
  self->sessions = g_list_remove (self->sessions, s);
  gst_cuda_ipc_session_free (s);
  g_cond_broadcast (&self->cond);
}

gboolean
gst_cuda_ipc_session_send_caps (GstCudaIpcServer * self, Session * s,
    GError ** error)
{
  GstCudaIpcCaps c;
  gchar *text;
  gboolean ok;

  gst_cuda_ipc_caps_from_info (&c, &self->info, self->epoch);
  text = gst_caps_to_string (self->caps);
  c.caps_len = strlen (text) + 1;
  if (c.caps_len > GST_CUDA_IPC_MAX_CAPS) {
    g_free (text);
    GST_CUDA_SYNC_SET_ERROR (error, STREAM, FORMAT, ("The caps are too long "
            "for the protocol."), ("%u bytes", c.caps_len));
    return FALSE;
  }
  ok = gst_cuda_ipc_send (s->fd, GST_CUDA_IPC_MSG_CAPS, &c, sizeof (c), text,
      c.caps_len, -1, error);
  g_free (text);
  if (ok) {
    s->caps_epoch = self->epoch;
    g_hash_table_remove_all (s->sent);
  }
  return ok;
}

/* HELLO and our acquire semaphore to a new source, not yet in the
 * server's list; without the lock, since the semaphore may come from the
 * application's new-semaphore handler */
gboolean
gst_cuda_ipc_session_start (GstCudaIpcServer * self, Session * s,
    GError ** error)
{
  GstCudaIpcHello hello = { GST_CUDA_IPC_VERSION_MAJOR,
    GST_CUDA_IPC_VERSION_MINOR, GST_CUDA_IPC_ROLE_SINK
  };
  GstCudaIpcSemaphore sm = { GST_CUDA_IPC_SEM_ACQUIRE, 1, 0 };
  gint send_fd;
  gboolean ok;

  memcpy (hello.device_uuid, self->uuid, 16);
  hello.max_buffers = self->config.max_buffers;
  if (!gst_cuda_ipc_send (s->fd, GST_CUDA_IPC_MSG_HELLO, &hello,
          sizeof (hello), NULL, 0, -1, error))
    return FALSE;
  s->acquire = gst_cuda_ipc_semaphore_new (self->context,
      self->config.new_semaphore, self->config.user_data, &send_fd, error);
  if (!s->acquire)
    return FALSE;
  ok = gst_cuda_ipc_send (s->fd, GST_CUDA_IPC_MSG_SEMAPHORE, &sm,
      sizeof (sm), NULL, 0, send_fd, error);
  close (send_fd);
  return ok;
}

/* one message of a source (lock held); FALSE drops the session */
gboolean
gst_cuda_ipc_session_handle (GstCudaIpcServer * self, Session * s,
    GstCudaIpcMsg * msg, GError ** error)
{
  switch (msg->hdr.type) {
    case GST_CUDA_IPC_MSG_HELLO:
      if (s->got_hello)
        break;
      s->got_hello = TRUE;
      return gst_cuda_ipc_check_hello (msg, GST_CUDA_IPC_ROLE_SOURCE, error);
    case GST_CUDA_IPC_MSG_SEMAPHORE:{
      const GstCudaIpcSemaphore *sm = (const void *) msg->body;
      gint fd;
      if (!s->got_hello || s->ready || sm->purpose != GST_CUDA_IPC_SEM_RELEASE
          || sm->handle_type != 1
          || sm->initial_value >= GST_CUDA_IPC_MAX_VALUE)
        break;
      fd = gst_cuda_ipc_msg_take_fd (msg);
      s->release = gst_cuda_semaphore_import_fd (self->context,
          GST_CUDA_SEMAPHORE_HANDLE_TYPE_TIMELINE_FD, fd, error);
      if (!s->release) {
        close (fd);
        return FALSE;
      }
      s->release_last = sm->initial_value;
      s->ready = TRUE;
      return TRUE;
    }
    case GST_CUDA_IPC_MSG_RELEASE:{
      const GstCudaIpcRelease *r = (const void *) msg->body;
      Slot *slot = g_hash_table_lookup (s->held, GUINT_TO_POINTER (r->id));
      ReleasePoint p;
      if (!s->ready || !slot || r->release_value <= s->release_last ||
          r->release_value >= GST_CUDA_IPC_MAX_VALUE)
        break;
      s->release_last = r->release_value;
      p.sem = gst_object_ref (s->release);
      p.value = r->release_value;
      g_array_append_val (slot->points, p);
      g_hash_table_remove (s->held, GUINT_TO_POINTER (r->id));
      slot->n_holders--;
      gst_cuda_ipc_slot_settle (self, slot);
      self->releases++;
      g_cond_broadcast (&self->cond);
      return TRUE;
    }
    case GST_CUDA_IPC_MSG_BYE:
      s->said_bye = TRUE;
      return FALSE;
    case GST_CUDA_IPC_MSG_DRAIN:
      /* its stop with frames still held downstream: they stay its own
       * until released, and BYE follows the last RELEASE */
      if (!s->ready || s->draining)
        break;
      s->draining = TRUE;
      return TRUE;
    default:
      break;
  }
  GST_CUDA_SYNC_SET_ERROR (error, STREAM, DECODE, ("A source sent a message "
          "out of place."), ("message type %u, id or value not valid now",
          msg->hdr.type));
  return FALSE;
}

/* acquire signal, BUFFER (first use), CAPS (new epoch) and FRAME to one
 * ready session (lock held) */
gboolean
gst_cuda_ipc_session_send_frame (GstCudaIpcServer * self, Session * s,
    Slot * slot, GstBuffer * buf, GError ** error)
{
  GstCudaIpcFrame f;
  guint64 value;

  if (s->caps_epoch != self->epoch
      && !gst_cuda_ipc_session_send_caps (self, s, error))
    return FALSE;
  if (!g_hash_table_contains (s->sent, GUINT_TO_POINTER (slot->id))) {
    GstCudaIpcBuffer b = { slot->id, slot->epoch,
      gst_cuda_sync_vmm_get_size (slot->vmm)
    };
    gint fd = gst_cuda_sync_vmm_export_fd (slot->vmm, error);
    gboolean ok = fd >= 0 && gst_cuda_ipc_send (s->fd,
        GST_CUDA_IPC_MSG_BUFFER, &b, sizeof (b), NULL, 0, fd, error);
    if (fd >= 0)
      close (fd);
    if (!ok)
      return FALSE;
    g_hash_table_add (s->sent, GUINT_TO_POINTER (slot->id));
  }
  if (!gst_cuda_semaphore_signal (s->acquire, self->stream, &value, error))
    return FALSE;
  self->signals++;
  memset (&f, 0, sizeof (f));
  f.id = slot->id;
  f.epoch = slot->epoch;
  f.acquire_value = value;
  f.pts = GST_BUFFER_PTS (buf);
  f.dts = GST_BUFFER_DTS (buf);
  f.duration = GST_BUFFER_DURATION (buf);
  f.offset = GST_BUFFER_OFFSET (buf);
  f.offset_end = GST_BUFFER_OFFSET_END (buf);
  f.flags = GST_BUFFER_FLAGS (buf) & GST_CUDA_IPC_FRAME_FLAGS;
  if (!gst_cuda_ipc_send (s->fd, GST_CUDA_IPC_MSG_FRAME, &f, sizeof (f),
          NULL, 0, -1, error))
    return FALSE;
  g_hash_table_insert (s->held, GUINT_TO_POINTER (slot->id), slot);
  slot->n_holders++;
  self->frames_sent++;
  return TRUE;
}

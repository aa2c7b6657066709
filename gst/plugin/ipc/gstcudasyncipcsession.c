/* gst-cudasync
 * Copyright (C) 2026 gst-cudasync developers
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * One source connected to cudasyncipcsink's server: the handshake (HELLO,
 * our acquire semaphore, CAPS), the source's messages (its release
 * semaphore, RELEASE, BYE), the frames sent to it, and its end. Called
 * with the server's lock held (gstcudasyncipcserver-private.h), but for
 * gst_cuda_sync_ipc_session_start().
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstcudasyncipcserver-private.h"
#include "gstcudasyncipcsemaphore.h"
#include "gstcudasyncelementerror.h"
#include <fcntl.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

/* the server's category (initialised by gst_cuda_sync_ipc_server_new()) */
GST_DEBUG_CATEGORY (gst_cuda_sync_ipc_server_debug);
#define GST_CAT_DEFAULT gst_cuda_sync_ipc_server_debug

/* how often the socket thread looks whether a gone source's last release
 * value ran, and a connected one's (no fd says so) */
#define GONE_POLL_US (10 * G_TIME_SPAN_MILLISECOND)
#define WATCH_POLL_US (100 * G_TIME_SPAN_MILLISECOND)

typedef GstCudaSyncIpcSession Session;
typedef GstCudaSyncIpcSlot Slot;
typedef GstCudaSyncIpcReleasePoint ReleasePoint;

Session *
gst_cuda_sync_ipc_session_new (gint fd)
{
  Session *s = g_new0 (Session, 1);

  s->fd = fd;
  s->acquire_file = -1;
  s->sent = g_hash_table_new (NULL, NULL);
  s->held = g_hash_table_new (NULL, NULL);
  return s;
}

void
gst_cuda_sync_ipc_session_free (Session * s)
{
  /* (a gone session's stream goes first: watch_clear()) */
  g_assert (s->watch == NULL);
  if (s->fd >= 0)
    close (s->fd);
  if (s->acquire_file >= 0)
    close (s->acquire_file);
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
 * said BYE (it has enqueued every signal it will) unless @force: its last
 * value has not run within the grace after its connection closed, or the
 * stop's grace is over (the source died or froze after its BYE, or never
 * meant to signal). */
void
gst_cuda_sync_ipc_session_rescue (GstCudaSyncIpcServer * self, Session * s,
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
  if (gst_cuda_sync_ipc_rescue_signal (self->context, s->release,
          self->rescue, s->release_last + GST_CUDA_SYNC_IPC_RESCUE_STEP, &err))
    self->rescues++;
  else
    GST_WARNING ("rescue signal failed: %s", err->message);
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
forget_points (GstCudaSyncIpcServer * self, Session * s)
{
  guint i;

  for (i = 0; i < self->slots->len; i++) {
    Slot *slot = g_ptr_array_index (self->slots, i);
    forget_points_of (slot->points, s->release);
    forget_points_of (slot->settle_points, s->release);
  }
}

/* a session's watch stream and event (lock held) */
static void
watch_clear (GstCudaSyncIpcServer * self, Session * s)
{
  g_clear_pointer (&s->watch_event, gst_cuda_sync_event_unref);
  if (s->watch && gst_cuda_context_push (self->context)) {
    CuStreamDestroy (s->watch);
    gst_cuda_context_pop (NULL);
  }
  s->watch = NULL;
  s->watch_since = 0;
}

/* A source is trusted with its own frames, not with the sink: a stream of
 * its own (behind nothing else) waits for its release value @value, and
 * an event recorded after that wait tells when it ran (lock held). FALSE
 * when that cannot be set up. */
static gboolean
watch_value (GstCudaSyncIpcServer * self, Session * s, guint64 value)
{
  GError *err = NULL;
  gboolean ok = TRUE;
  CUresult r;

  if (!gst_cuda_context_push (self->context))
    return FALSE;
  if (!s->watch) {
    r = CuStreamCreate (&s->watch, CU_STREAM_NON_BLOCKING);
    ok = gst_cuda_sync_check_result (r, "cuStreamCreate", &err);
    if (!ok)
      s->watch = NULL;
  }
  if (ok && !s->watch_event)
    ok = (s->watch_event = gst_cuda_sync_event_new (self->context, FALSE,
            &err)) != NULL;
  ok = ok && gst_cuda_semaphore_wait (s->release, s->watch, value, &err) &&
      gst_cuda_sync_event_record (s->watch_event, s->watch, &err);
  gst_cuda_context_pop (NULL);
  if (!ok) {
    GST_WARNING ("cannot watch the release values of pid %d: %s", s->pid,
        err ? err->message : "no CUDA context");
    g_clear_error (&err);
    return FALSE;
  }
  s->watched = value;
  return TRUE;
}

/* Whether a release value that @s announced is not seen run yet (lock
 * held); a watch that ran is set on the last value announced since. */
static gboolean
watch_pending (GstCudaSyncIpcServer * self, Session * s, gint64 now)
{
  if (s->watch_since && gst_cuda_sync_event_query (s->watch_event, NULL) ==
      GST_CUDA_SYNC_EVENT_COMPLETE)
    s->watch_since = 0;
  if (!s->watch_since && s->release_last > s->watched && s->watch_event &&
      watch_value (self, s, s->release_last))
    s->watch_since = now;
  return s->watch_since != 0;
}

gboolean
gst_cuda_sync_ipc_session_values_pending (GstCudaSyncIpcServer * self,
    Session * s)
{
  return watch_pending (self, s, g_get_monotonic_time ());
}

/* a RELEASE came: watched from now on when nothing is (with a hold
 * limit: the value counts as a frame held until it ran) */
static void
watch_release (GstCudaSyncIpcServer * self, Session * s)
{
  if (self->config.hold_timeout && !s->watch_since &&
      watch_value (self, s, s->release_last))
    s->watch_since = g_get_monotonic_time ();
}

/* @s said BYE and closed its connection with release values announced:
 * watched until its last value ran, or rescued once the grace is over
 * (lock held). FALSE when it cannot be watched. */
static gboolean
watch_gone (GstCudaSyncIpcServer * self, Session * s)
{
  if (s->watched < s->release_last && !watch_value (self, s, s->release_last))
    return FALSE;
  s->watch_end = g_get_monotonic_time () + GST_CUDA_SYNC_IPC_BYE_GRACE_US;
  return TRUE;
}

/* The session is gone (lock held). A source that vanished without BYE is
 * rescued, and its release points are forgotten; its held frames are free
 * again (nothing of it reads them any more). One that said BYE after
 * announcing release values is kept, its connection closed, until those
 * values ran or it is rescued (gst_cuda_sync_ipc_sessions_tick()). */
void
gst_cuda_sync_ipc_session_drop (GstCudaSyncIpcServer * self, Session * s,
    gboolean lost)
{
  GHashTableIter it;
  gpointer value;

  gst_cuda_sync_ipc_session_rescue (self, s, FALSE);
  if (s->rescued)
    forget_points (self, s);
  g_hash_table_iter_init (&it, s->held);
  while (g_hash_table_iter_next (&it, NULL, &value)) {
    ((Slot *) value)->n_holders--;
    gst_cuda_sync_ipc_slot_settle (self, value);
  }
  g_hash_table_remove_all (s->held);
  if (lost)
    self->sessions_lost++;
  GST_INFO ("session of pid %d gone (%s)", s->pid, lost ? "lost" :
      s->rescued ? "dropped" : "bye");
  self->sessions = g_list_remove (self->sessions, s);
  g_cond_broadcast (&self->cond);
  if (!s->rescued && s->release && s->release_last > s->release_first &&
      !self->stopping) {
    close (s->fd);
    s->fd = -1;
    if (watch_gone (self, s)) {
      GST_DEBUG ("watching the last release value %" G_GUINT64_FORMAT
          " of pid %d", s->release_last, s->pid);
      self->gone = g_list_append (self->gone, s);
      return;
    }
    gst_cuda_sync_ipc_session_rescue (self, s, TRUE);
    forget_points (self, s);
  }
  watch_clear (self, s);
  gst_cuda_sync_ipc_session_free (s);
}

/* whether a frame of @s, or a release value it announced and has not
 * reached, has been held past hold-timeout; else *@next is the soonest
 * such deadline (lock held). Frames count only while the sink finds no
 * free frame (a paused source may keep its frames as long as the others
 * do not need them); a value announced and not reached always does, since
 * the sink's GPU work on that frame waits for it. */
static gboolean
held_too_long (GstCudaSyncIpcServer * self, Session * s, gint64 now,
    gint64 * next)
{
  gint64 limit = self->config.hold_timeout / 1000, end;
  GHashTableIter it;
  gpointer value;

  if (limit == 0 || !s->ready)
    return FALSE;
  /* a frame sent from now on is held no longer than that */
  end = now + limit;
  if (self->starved) {
    g_hash_table_iter_init (&it, s->held);
    while (g_hash_table_iter_next (&it, NULL, &value))
      end = MIN (end, ((Slot *) value)->sent_at + limit);
  }
  if (watch_pending (self, s, now)) {
    end = MIN (end, s->watch_since + limit);
    /* (no fd says when it ran) */
    *next = MIN (*next, now + WATCH_POLL_US);
  }
  if (end <= now)
    return TRUE;
  *next = MIN (*next, end);
  return FALSE;
}

/* Once the sink left PAUSED: when the stop's grace for what has been
 * pending since @since ends, counted from the later of the two (lock
 * held) */
static gint64
stop_grace_end (GstCudaSyncIpcServer * self, gint64 since)
{
  return MAX (self->left_paused, since) + GST_CUDA_SYNC_IPC_STOP_GRACE_US;
}

/* TRUE once a gone source is done with: its last release value ran, or
 * it was rescued and that rescue had its time to run (lock held) */
static gboolean
gone_done (GstCudaSyncIpcServer * self, Session * s, gint64 now, gboolean stop)
{
  GError *err = NULL;
  GstCudaSyncEventStatus st = gst_cuda_sync_event_query (s->watch_event,
      &err);

  GST_LOG ("gone source of pid %d: its last release value %s", s->pid,
      st == GST_CUDA_SYNC_EVENT_COMPLETE ? "ran" : "is pending");
  if (st == GST_CUDA_SYNC_EVENT_COMPLETE)
    return TRUE;
  if (err)
    GST_WARNING ("gone source of pid %d: %s", s->pid, err->message);
  g_clear_error (&err);
  /* once the sink left PAUSED, the stop's grace too, counted from when
   * the source went: the value may hold up the streaming threads
   * (stuck_at_stop()) */
  if (!s->rescued && (stop || st == GST_CUDA_SYNC_EVENT_ERROR ||
          now >= s->watch_end || (self->left_paused &&
              now >= stop_grace_end (self, s->watch_end -
                  GST_CUDA_SYNC_IPC_BYE_GRACE_US)))) {
    GST_WARNING ("the source of pid %d said BYE, but its last release value "
        "%" G_GUINT64_FORMAT " has not run: rescuing it", s->pid,
        s->release_last);
    gst_cuda_sync_ipc_session_rescue (self, s, TRUE);
    forget_points (self, s);
  }
  return stop || st == GST_CUDA_SYNC_EVENT_ERROR ||
      now >= s->watch_end + GST_CUDA_SYNC_IPC_BYE_GRACE_US;
}

static void
gone_free (GstCudaSyncIpcServer * self, GList * l)
{
  Session *s = l->data;

  self->gone = g_list_delete_link (self->gone, l);
  watch_clear (self, s);
  gst_cuda_sync_ipc_session_free (s);
}

/* The sink left PAUSED: its streaming thread and upstream's may be held
 * up by the GPU waits for @s's release values (upstream's CUDA work can
 * share a hardware queue with the sink's streams that wait), and the stop
 * proper runs only after those threads. Whether a source that did not say
 * BYE has not reached its values within GST_CUDA_SYNC_IPC_STOP_GRACE_US of
 * that, and of their watch (lock held); they are watched from then on. A
 * value released later (the sink stays in READY: a source may still give
 * frames back) gets the whole grace too. */
static gboolean
stuck_at_stop (GstCudaSyncIpcServer * self, Session * s, gint64 now,
    gint64 * next)
{
  gboolean unwatched = !s->watch_since &&
      s->release_last > MAX (s->watched, s->release_first);
  gint64 since = 0, end;

  if (!self->left_paused || !s->ready || s->said_bye)
    return FALSE;
  if (unwatched && watch_value (self, s, s->release_last)) {
    GST_DEBUG ("watching the release value %" G_GUINT64_FORMAT " of pid %d "
        "after the sink left PAUSED", s->release_last, s->pid);
    s->watch_since = now;
    unwatched = FALSE;
  }
  /* a value that cannot be watched: no telling when it runs, pending
   * since the sink left PAUSED */
  if (!unwatched) {
    if (!watch_pending (self, s, now))
      return FALSE;
    since = s->watch_since;
  }
  end = stop_grace_end (self, since);
  if (now >= end)
    return TRUE;
  *next = MIN (*next, unwatched ? end : MIN (end, now + WATCH_POLL_US));
  return FALSE;
}

gint64
gst_cuda_sync_ipc_sessions_tick (GstCudaSyncIpcServer * self, gint64 now)
{
  gint64 next = G_MAXINT64;
  GList *l, *n;

  for (l = self->sessions; l; l = n) {
    Session *s = l->data;
    n = l->next;
    if (s->handshake_end && !s->ready && now >= s->handshake_end) {
      GST_WARNING ("dropping the source of pid %d: no release semaphore "
          "within handshake-timeout", s->pid);
      self->handshake_timeouts++;
      gst_cuda_sync_ipc_session_drop (self, s, FALSE);
    } else if (held_too_long (self, s, now, &next)) {
      GST_WARNING ("dropping the source of pid %d: it held a frame past "
          "hold-timeout", s->pid);
      self->hold_timeouts++;
      gst_cuda_sync_ipc_session_drop (self, s, FALSE);
    } else if (stuck_at_stop (self, s, now, &next)) {
      GST_WARNING ("dropping the source of pid %d: its release values have "
          "not run within %d ms of the sink leaving PAUSED", s->pid,
          (gint) (GST_CUDA_SYNC_IPC_STOP_GRACE_US / 1000));
      gst_cuda_sync_ipc_session_drop (self, s, FALSE);
    } else if (s->handshake_end && !s->ready) {
      next = MIN (next, s->handshake_end);
    }
  }
  for (l = self->gone; l; l = n) {
    n = l->next;
    if (gone_done (self, l->data, now, FALSE))
      gone_free (self, l);
    else
      next = MIN (next, now + GONE_POLL_US);
  }
  return next;
}

gboolean
gst_cuda_sync_ipc_sessions_pending (GstCudaSyncIpcServer * self)
{
  GList *l;

  for (l = self->sessions; l; l = l->next)
    if (gst_cuda_sync_ipc_session_values_pending (self, l->data))
      return TRUE;
  for (l = self->gone; l; l = l->next) {
    Session *s = l->data;
    if (!s->rescued && gst_cuda_sync_event_query (s->watch_event, NULL) !=
        GST_CUDA_SYNC_EVENT_COMPLETE)
      return TRUE;
  }
  return FALSE;
}

void
gst_cuda_sync_ipc_sessions_end_gone (GstCudaSyncIpcServer * self)
{
  while (self->gone) {
    gone_done (self, self->gone->data, g_get_monotonic_time (), TRUE);
    gone_free (self, self->gone);
  }
}

gboolean
gst_cuda_sync_ipc_session_send_caps (GstCudaSyncIpcServer * self, Session * s,
    GError ** error)
{
  GstCudaSyncIpcCaps c;
  gchar *text;
  gboolean ok;

  gst_cuda_sync_ipc_caps_from_info (&c, &self->info, self->epoch);
  text = gst_caps_to_string (self->caps);
  c.caps_len = strlen (text) + 1;
  if (c.caps_len > GST_CUDA_SYNC_IPC_MAX_CAPS) {
    g_free (text);
    GST_CUDA_SYNC_SET_ERROR (error, STREAM, FORMAT, ("The caps are too long "
            "for the protocol."), ("%u bytes", c.caps_len));
    return FALSE;
  }
  ok = gst_cuda_sync_ipc_send (s->fd, GST_CUDA_SYNC_IPC_MSG_CAPS, &c,
      sizeof (c), text, c.caps_len, -1, error);
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
gst_cuda_sync_ipc_session_start (GstCudaSyncIpcServer * self, Session * s,
    GError ** error)
{
  GstCudaSyncIpcHello hello = { GST_CUDA_SYNC_IPC_VERSION_MAJOR,
    GST_CUDA_SYNC_IPC_VERSION_MINOR, GST_CUDA_SYNC_IPC_ROLE_SINK
  };
  GstCudaSyncIpcSemaphore sm = { GST_CUDA_SYNC_IPC_SEM_ACQUIRE, 1, 0 };
  gint send_fd;
  gboolean ok;

  memcpy (hello.device_uuid, self->uuid, 16);
  hello.max_buffers = self->config.max_buffers;
  if (!gst_cuda_sync_ipc_send (s->fd, GST_CUDA_SYNC_IPC_MSG_HELLO, &hello,
          sizeof (hello), NULL, 0, -1, error))
    return FALSE;
  s->acquire = gst_cuda_sync_ipc_semaphore_new (self->context,
      self->config.new_semaphore, self->config.user_data, &send_fd, error);
  if (!s->acquire)
    return FALSE;
  /* known again if the source sends it back as its own: the same open
   * file comes back (the NVIDIA driver's opaque fds all share one inode) */
  s->acquire_file = fcntl (send_fd, F_DUPFD_CLOEXEC, 0);
  ok = gst_cuda_sync_ipc_send (s->fd, GST_CUDA_SYNC_IPC_MSG_SEMAPHORE, &sm,
      sizeof (sm), NULL, 0, send_fd, error);
  close (send_fd);
  return ok;
}

/* whether @fd is the file of the acquire semaphore exported to @s */
static gboolean
is_own_acquire (Session * s, gint fd)
{
  return s->acquire_file >= 0 &&
      gst_cuda_sync_ipc_same_file (s->acquire_file, fd);
}

/* one message of a source (lock held); FALSE drops the session */
gboolean
gst_cuda_sync_ipc_session_handle (GstCudaSyncIpcServer * self, Session * s,
    GstCudaSyncIpcMsg * msg, GError ** error)
{
  switch (msg->hdr.type) {
    case GST_CUDA_SYNC_IPC_MSG_HELLO:
      if (s->got_hello)
        break;
      s->got_hello = TRUE;
      return gst_cuda_sync_ipc_check_hello (msg, GST_CUDA_SYNC_IPC_ROLE_SOURCE,
          error);
    case GST_CUDA_SYNC_IPC_MSG_SEMAPHORE:{
      const GstCudaSyncIpcSemaphore *sm = (const void *) msg->body;
      gint fd;
      if (!s->got_hello || s->ready
          || sm->purpose != GST_CUDA_SYNC_IPC_SEM_RELEASE
          || sm->handle_type != 1
          || sm->initial_value >= GST_CUDA_SYNC_IPC_MAX_VALUE)
        break;
      fd = gst_cuda_sync_ipc_msg_take_fd (msg);
      /* the sink's own semaphore would make the rescue signal the
       * acquire values and the sink wait for itself */
      if (is_own_acquire (s, fd)) {
        close (fd);
        GST_CUDA_SYNC_SET_ERROR (error, STREAM, DECODE, ("A source sent "
                "the sink's own semaphore back as its release semaphore."),
            ("SEMAPHORE message: the acquire semaphore's file"));
        return FALSE;
      }
      s->release = gst_cuda_semaphore_import_fd (self->context,
          GST_CUDA_SEMAPHORE_HANDLE_TYPE_TIMELINE_FD, fd, error);
      if (!s->release) {
        close (fd);
        return FALSE;
      }
      s->release_first = s->release_last = sm->initial_value;
      s->ready = TRUE;
      s->handshake_end = 0;
      return TRUE;
    }
    case GST_CUDA_SYNC_IPC_MSG_RELEASE:{
      const GstCudaSyncIpcRelease *r = (const void *) msg->body;
      Slot *slot = g_hash_table_lookup (s->held, GUINT_TO_POINTER (r->id));
      ReleasePoint p;
      if (!s->ready || !slot || r->release_value <= s->release_last ||
          r->release_value >= GST_CUDA_SYNC_IPC_MAX_VALUE)
        break;
      s->release_last = r->release_value;
      watch_release (self, s);
      p.sem = gst_object_ref (s->release);
      p.value = r->release_value;
      g_array_append_val (slot->points, p);
      g_hash_table_remove (s->held, GUINT_TO_POINTER (r->id));
      slot->n_holders--;
      gst_cuda_sync_ipc_slot_settle (self, slot);
      self->releases++;
      g_cond_broadcast (&self->cond);
      return TRUE;
    }
    case GST_CUDA_SYNC_IPC_MSG_BYE:
      s->said_bye = TRUE;
      return FALSE;
    case GST_CUDA_SYNC_IPC_MSG_DRAIN:
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
gst_cuda_sync_ipc_session_send_frame (GstCudaSyncIpcServer * self, Session * s,
    Slot * slot, GstBuffer * buf, GError ** error)
{
  GstCudaSyncIpcFrame f;
  guint64 value;

  if (s->caps_epoch != self->epoch
      && !gst_cuda_sync_ipc_session_send_caps (self, s, error))
    return FALSE;
  if (!g_hash_table_contains (s->sent, GUINT_TO_POINTER (slot->id))) {
    GstCudaSyncIpcBuffer b = { slot->id, slot->epoch,
      gst_cuda_sync_vmm_get_size (slot->vmm)
    };
    gint fd = gst_cuda_sync_vmm_export_fd (slot->vmm, error);
    gboolean ok = fd >= 0 && gst_cuda_sync_ipc_send (s->fd,
        GST_CUDA_SYNC_IPC_MSG_BUFFER, &b, sizeof (b), NULL, 0, fd, error);
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
  f.flags = GST_BUFFER_FLAGS (buf) & GST_CUDA_SYNC_IPC_FRAME_FLAGS;
  if (!gst_cuda_sync_ipc_send (s->fd, GST_CUDA_SYNC_IPC_MSG_FRAME, &f,
          sizeof (f), NULL, 0, -1, error))
    return FALSE;
  g_hash_table_insert (s->held, GUINT_TO_POINTER (slot->id), slot);
  slot->n_holders++;
  slot->sent_at = g_get_monotonic_time ();
  self->frames_sent++;
  return TRUE;
}

/* gst-cudasync
 * Copyright (C) 2026 gst-cudasync developers
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The listening socket and its thread, the pool of shareable frames and
 * rendering; the sessions are gstcudasyncipcsession.c's. Locks:
 * gstcudasyncipcserver-private.h.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#define _GNU_SOURCE
#include "gstcudasyncipcserver-private.h"
#include "gstcudasyncelementerror.h"
#include <gst/cuda/gstcudamemory.h>
#include <errno.h>
#include <poll.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#define GST_CAT_DEFAULT gst_cuda_sync_ipc_server_debug

typedef GstCudaSyncIpcSession Session;
typedef GstCudaSyncIpcSlot Slot;

static void
accept_one (GstCudaSyncIpcServer * self)
{
  GError *err = NULL;
  gboolean full;
  Session *s;
  gint fd;

  fd = accept4 (self->listen_fd, NULL, NULL, SOCK_CLOEXEC);
  if (fd < 0)
    return;
  /* before anything costs a semaphore (or more fds) */
  g_mutex_lock (&self->lock);
  full = g_list_length (self->sessions) >= self->config.max_connections;
  self->sessions_over_limit += full;
  g_mutex_unlock (&self->lock);
  if (full) {
    GST_WARNING ("refusing a connection: max-connections (%u) reached",
        self->config.max_connections);
    close (fd);
    return;
  }
  s = gst_cuda_sync_ipc_session_new (fd);
  if (!gst_cuda_sync_ipc_check_peer (fd, self->allowed_uids, &s->uid, &s->pid,
          &err)) {
    /* nothing is sent to a peer that is not allowed */
    GST_WARNING ("refused: %s", err->message);
    g_clear_error (&err);
    g_mutex_lock (&self->lock);
    self->sessions_refused++;
    g_mutex_unlock (&self->lock);
    gst_cuda_sync_ipc_session_free (s);
    return;
  }
  if (!gst_cuda_sync_ipc_session_start (self, s, &err)) {
    GST_WARNING ("session start failed: %s", err->message);
    g_clear_error (&err);
    g_mutex_lock (&self->lock);
    self->sessions_failed++;
    g_mutex_unlock (&self->lock);
    gst_cuda_sync_ipc_session_free (s);
    return;
  }
  g_mutex_lock (&self->lock);
  self->sessions_total++;
  if (self->config.handshake_timeout)
    s->handshake_end = g_get_monotonic_time () +
        self->config.handshake_timeout / 1000;
  self->sessions = g_list_append (self->sessions, s);
  if (self->caps && !gst_cuda_sync_ipc_session_send_caps (self, s, &err)) {
    GST_WARNING ("dropping the source of pid %d: %s", s->pid, err->message);
    g_clear_error (&err);
    gst_cuda_sync_ipc_session_drop (self, s, TRUE);
  }
  g_mutex_unlock (&self->lock);
}

static void
session_read (GstCudaSyncIpcServer * self, gint fd)
{
  GstCudaSyncIpcMsg *msg = g_new (GstCudaSyncIpcMsg, 1);
  GError *err = NULL;
  Session *s = NULL;
  GList *l;
  gint r;

  r = gst_cuda_sync_ipc_recv (fd, msg, &err);
  g_mutex_lock (&self->lock);
  for (l = self->sessions; l; l = l->next)
    if (((Session *) l->data)->fd == fd)
      s = l->data;
  if (s && (r <= 0 || !gst_cuda_sync_ipc_session_handle (self, s, msg, &err))) {
    /* a protocol violation: dropped and rescued, but not lost */
    if (err) {
      GST_WARNING ("dropping the source of pid %d: %s", s->pid, err->message);
      self->sessions_invalid++;
    } else {
      GST_INFO ("the source of pid %d closed its connection%s", s->pid,
          s->said_bye ? " after saying bye" : "");
    }
    gst_cuda_sync_ipc_session_drop (self, s, !err && !s->said_bye);
  }
  g_mutex_unlock (&self->lock);
  gst_cuda_sync_ipc_msg_clear (msg);
  g_free (msg);
  g_clear_error (&err);
}

static gpointer
server_thread (gpointer data)
{
  GstCudaSyncIpcServer *self = data;
  struct pollfd *pfd = NULL;

  for (;;) {
    gint64 now, next;
    gint timeout = -1;
    guint n = 2, i;
    GList *l;

    g_mutex_lock (&self->lock);
    /* after the lock: a deadline counted from a time read before a long
     * wait for it would come early */
    now = g_get_monotonic_time ();
    if (self->stopping) {
      g_mutex_unlock (&self->lock);
      break;
    }
    /* the deadlines of the handshakes, the holds and the gone sources */
    next = gst_cuda_sync_ipc_sessions_tick (self, now);
    if (next != G_MAXINT64)
      timeout = CLAMP ((next - now + 999) / 1000, 0, G_MAXINT);
    pfd = g_renew (struct pollfd, pfd, 2 + g_list_length (self->sessions));
    pfd[0].fd = self->listen_fd;
    pfd[1].fd = self->wake_fd;
    for (l = self->sessions; l; l = l->next)
      pfd[n++].fd = ((Session *) l->data)->fd;
    g_mutex_unlock (&self->lock);
    for (i = 0; i < n; i++)
      pfd[i].events = POLLIN;
    if (poll (pfd, n, timeout) < 0 && errno != EINTR)
      break;
    if (pfd[1].revents) {
      guint64 v;
      if (read (self->wake_fd, &v, sizeof (v)) < 0)
        GST_LOG ("wake: %s", g_strerror (errno));
    }
    for (i = 2; i < n; i++)
      if (pfd[i].revents)
        session_read (self, pfd[i].fd);
    if (pfd[0].revents)
      accept_one (self);
  }
  g_free (pfd);
  return NULL;
}

GstCudaSyncIpcServer *
gst_cuda_sync_ipc_server_new (GstCudaContext * context,
    const GstCudaSyncIpcServerConfig * config, GError ** error)
{
  GstCudaSyncIpcServer *self;

  GST_DEBUG_CATEGORY_INIT (gst_cuda_sync_ipc_server_debug, "cudasyncipcserver",
      0, "cudasyncipcsink's server");
  self = g_new0 (GstCudaSyncIpcServer, 1);
  self->refcount = 1;
  self->context = gst_object_ref (context);
  self->config = *config;
  self->path = g_strdup (config->path);
  self->allowed_uids = g_strdup (config->allowed_uids);
  self->config.path = self->path;
  self->config.allowed_uids = self->allowed_uids;
  if (self->config.max_connections == 0)
    self->config.max_connections = G_MAXUINT;
  self->listen_fd = self->wake_fd = -1;
  g_mutex_init (&self->lock);
  g_cond_init (&self->cond);
  self->slots = g_ptr_array_new_with_free_func ((GDestroyNotify)
      gst_cuda_sync_ipc_slot_unref);
  self->next_id = 1;
  if (!gst_cuda_sync_context_get_uuid (context, self->uuid, error))
    goto failed;
  if (!gst_cuda_sync_ipc_streams_new (context, &self->stream, &self->rescue,
          error)
      || !gst_cuda_sync_ipc_slots_init (self, error))
    goto failed;
  self->releaser = gst_cuda_sync_releaser_new ("cudaipcsink");
  self->settler = gst_cuda_sync_releaser_new ("cudaipcsettle");
  self->listen_fd = gst_cuda_sync_ipc_socket_listen (self->path, config->mode,
      &self->socket_id, error);
  self->wake_fd = eventfd (0, EFD_CLOEXEC);
  if (self->listen_fd < 0 || self->wake_fd < 0)
    goto failed;
  self->thread = g_thread_new ("cudaipcsink", server_thread, self);
  return self;

failed:
  gst_cuda_sync_ipc_server_free (self);
  return NULL;
}

static void
wake (GstCudaSyncIpcServer * self)
{
  gst_cuda_sync_ipc_server_wake_thread (self);
}

/* waits on the CPU for @stream: the one CPU-synchronising call of the
 * sink, counted in cpu-syncs */
static void
cpu_sync (GstCudaSyncIpcServer * self, CUstream stream)
{
  GError *err = NULL;
  CUresult r;

  if (!gst_cuda_context_push (self->context))
    return;
  r = CuStreamSynchronize (stream);
  gst_cuda_context_pop (NULL);
  g_mutex_lock (&self->lock);
  self->cpu_syncs++;
  g_mutex_unlock (&self->lock);
  if (!gst_cuda_sync_check_result (r, "cuStreamSynchronize", &err))
    GST_WARNING ("%s", err->message);
  g_clear_error (&err);
}

/* Lock held; @s closed its connection during the stop: reads what it sent
 * before (its last releases and its BYE, with which a source answers the
 * stop's BYE once it has enqueued every release signal). TRUE if it said
 * BYE: it was not lost, and its signals will run. *invalid: it broke the
 * protocol. */
static gboolean
read_last_messages (GstCudaSyncIpcServer * self, Session * s,
    gboolean * invalid)
{
  GstCudaSyncIpcMsg *msg = g_new (GstCudaSyncIpcMsg, 1);
  struct pollfd pfd = { s->fd, POLLIN, 0 };

  *invalid = FALSE;
  while (!s->said_bye && poll (&pfd, 1, 0) > 0 && (pfd.revents & POLLIN)) {
    GError *err = NULL;
    gboolean more = gst_cuda_sync_ipc_recv (s->fd, msg, &err) > 0 &&
        gst_cuda_sync_ipc_session_handle (self, s, msg, &err);

    gst_cuda_sync_ipc_msg_clear (msg);
    if (err) {
      GST_WARNING ("the last messages of pid %d: %s", s->pid, err->message);
      *invalid = TRUE;
    }
    g_clear_error (&err);
    if (!more)
      break;
  }
  g_free (msg);
  return s->said_bye;
}

/* Lock held, during the stop: whether @s closed its connection without
 * BYE, counted as lost; looked at once, when the connection is seen
 * closed. One that broke the protocol in its last messages is counted
 * invalid, not lost, and rescued as when the socket thread drops it. */
static gboolean
lost_at_stop (GstCudaSyncIpcServer * self, Session * s)
{
  gboolean invalid;

  if (s->closed || s->said_bye || !gst_cuda_sync_ipc_peer_closed (s->fd))
    return FALSE;
  s->closed = TRUE;
  if (read_last_messages (self, s, &invalid))
    return FALSE;
  if (invalid) {
    self->sessions_invalid++;
    gst_cuda_sync_ipc_session_rescue (self, s, FALSE);
    return FALSE;
  }
  GST_INFO ("the source of pid %d closed its connection during the stop "
      "without BYE", s->pid);
  self->sessions_lost++;
  return TRUE;
}

/* Says BYE to every source and drops it. Before that, the settle stream's
 * waits for the sources' release values must end: a source killed (or
 * stopped) at this moment never signals them. For up to
 * GST_CUDA_SYNC_IPC_STOP_GRACE_US the sources may signal them themselves;
 * one whose connection closes without BYE is lost and rescued at once
 * (one that answered with BYE has enqueued its signals); once the grace
 * is over every source whose values are still pending is rescued, BYE or
 * not, and so is every source gone after BYE whose last value has not run
 * (gst_cuda_sync_ipc_sessions_end_gone()).
 * The event is recorded again after the waits that the sources' last
 * releases add, and only then: every record is an operation on the
 * stream, and a stream held up by a wait takes only so many before the
 * next enqueue blocks the CPU. */
static void
stop_sessions (GstCudaSyncIpcServer * self)
{
  GstCudaSyncIpcBye bye = { 0, 0 };
  GstCudaSyncEvent *ev = gst_cuda_sync_event_new (self->context, TRUE, NULL);
  GstCudaSyncEventStatus st = GST_CUDA_SYNC_EVENT_ERROR;
  gint64 end = g_get_monotonic_time () + GST_CUDA_SYNC_IPC_STOP_GRACE_US;
  gboolean recorded = FALSE;
  guint64 recorded_after = 0;
  GList *l;

  g_mutex_lock (&self->lock);
  for (l = self->sessions; l; l = l->next)
    gst_cuda_sync_ipc_send (((Session *) l->data)->fd,
        GST_CUDA_SYNC_IPC_MSG_BYE, &bye, sizeof (bye), NULL, 0, -1, NULL);
  for (;;) {
    for (l = self->sessions; l; l = l->next) {
      Session *s = l->data;
      if (lost_at_stop (self, s))
        gst_cuda_sync_ipc_session_rescue (self, s, FALSE);
    }
    if (ev && (!recorded || recorded_after != self->settle_waits)) {
      recorded = gst_cuda_sync_event_record (ev, self->settle, NULL);
      recorded_after = self->settle_waits;
    }
    st = recorded ? gst_cuda_sync_event_query (ev, NULL) :
        GST_CUDA_SYNC_EVENT_ERROR;
    if (g_get_monotonic_time () >= end || ((!self->sessions ||
                st != GST_CUDA_SYNC_EVENT_PENDING) &&
            !gst_cuda_sync_ipc_sessions_pending (self)))
      break;
    g_mutex_unlock (&self->lock);
    g_usleep (1000);
    g_mutex_lock (&self->lock);
  }
  GST_DEBUG ("stop: grace over, %u sessions, settle stream %s",
      g_list_length (self->sessions), st == GST_CUDA_SYNC_EVENT_COMPLETE ?
      "idle" : "busy");
  while (self->sessions) {
    Session *s = self->sessions->data;
    /* a source whose values ran can still have died meanwhile */
    lost_at_stop (self, s);
    if (st != GST_CUDA_SYNC_EVENT_COMPLETE ||
        gst_cuda_sync_ipc_session_values_pending (self, s))
      gst_cuda_sync_ipc_session_rescue (self, s, TRUE);
    s->said_bye = TRUE;         /* its release values are enqueued */
    gst_cuda_sync_ipc_session_drop (self, s, FALSE);
  }
  gst_cuda_sync_ipc_sessions_end_gone (self);
  g_mutex_unlock (&self->lock);
  g_clear_pointer (&ev, gst_cuda_sync_event_unref);
}

void
gst_cuda_sync_ipc_server_stop (GstCudaSyncIpcServer * self)
{
  g_mutex_lock (&self->lock);
  if (self->stopping) {
    g_mutex_unlock (&self->lock);
    return;
  }
  self->stopping = TRUE;
  g_cond_broadcast (&self->cond);
  g_mutex_unlock (&self->lock);
  wake (self);
  if (self->thread)
    g_thread_join (self->thread);
  self->thread = NULL;
  GST_DEBUG ("stop: the socket thread ended");
  if (self->stream)
    stop_sessions (self);
  GST_DEBUG ("stop: the sessions ended");
  /* the copies into the shared memory, the waits before them and the
   * acquire signals have run: the memory can go */
  if (self->stream)
    cpu_sync (self, self->stream);
  GST_DEBUG ("stop: the stream's work ran");
  if (self->releaser)
    gst_cuda_sync_releaser_free (self->releaser);
  self->releaser = NULL;
  if (self->settler)
    gst_cuda_sync_releaser_free (self->settler);
  self->settler = NULL;
  if (self->listen_fd >= 0) {
    close (self->listen_fd);
    gst_cuda_sync_ipc_socket_remove (self->path, &self->socket_id);
  }
  self->listen_fd = -1;
}

void
gst_cuda_sync_ipc_server_free (GstCudaSyncIpcServer * self)
{
  gst_cuda_sync_ipc_server_stop (self);
  gst_cuda_sync_ipc_server_unref (self);
}

GstCudaSyncIpcServer *
gst_cuda_sync_ipc_server_ref (GstCudaSyncIpcServer * self)
{
  g_atomic_int_inc (&self->refcount);
  return self;
}

/* the last reference: the element's, or that of the last frame of its
 * pool (stopped by then) */
void
gst_cuda_sync_ipc_server_unref (GstCudaSyncIpcServer * self)
{
  if (!g_atomic_int_dec_and_test (&self->refcount))
    return;
  gst_cuda_sync_ipc_server_stop (self);
  g_ptr_array_unref (self->slots);
  if (self->wake_fd >= 0)
    close (self->wake_fd);
  gst_cuda_sync_ipc_slots_clear (self);
  gst_cuda_sync_ipc_streams_free (self->context, self->stream, self->rescue);
  gst_clear_caps (&self->caps);
  gst_object_unref (self->context);
  g_mutex_clear (&self->lock);
  g_cond_clear (&self->cond);
  g_free (self->path);
  g_free (self->allowed_uids);
  g_free (self);
}

gboolean
gst_cuda_sync_ipc_server_has_caps (GstCudaSyncIpcServer * self, GstCaps * caps)
{
  gboolean same;

  g_mutex_lock (&self->lock);
  same = self->caps && gst_caps_is_equal (self->caps, caps);
  g_mutex_unlock (&self->lock);
  return same;
}

gboolean
gst_cuda_sync_ipc_server_set_caps (GstCudaSyncIpcServer * self, GstCaps * caps,
    GError ** error)
{
  GstVideoInfo info;

  if (!gst_video_info_from_caps (&info, caps)) {
    GST_CUDA_SYNC_SET_ERROR (error, CORE, NEGOTIATION, ("Invalid video "
            "caps."), ("%" GST_PTR_FORMAT, caps));
    return FALSE;
  }
  g_mutex_lock (&self->lock);
  gst_caps_replace (&self->caps, caps);
  self->info = info;
  self->epoch++;                /* sessions get CAPS before the next frame */
  g_mutex_unlock (&self->lock);
  return TRUE;
}

/* the stream's work from now on after the input's producer (context
 * pushed) */
static gboolean
wait_producer (GstCudaSyncIpcServer * self, GstBuffer * buf, GError ** error)
{
  GstCudaSyncMeta *meta = gst_buffer_get_cuda_sync_meta (buf);
  gboolean ok = TRUE;
  guint i;

  if (meta)
    ok = gst_cuda_sync_meta_wait_gpu (meta, self->stream, error);
  for (i = 0; ok && i < gst_buffer_n_memory (buf); i++)
    ok = gst_cuda_sync_memory_wait_pending (gst_buffer_peek_memory (buf, i),
        self->stream, error);
  return ok;
}

/* stream order: after the sources' reads of the slot, after the input's
 * producer; then the copy (context pushed, lock held) */
static gboolean
copy_in (GstCudaSyncIpcServer * self, Slot * slot, GstBuffer * buf,
    GError ** error)
{
  GstVideoFrame frame;
  CUdeviceptr dst = gst_cuda_sync_vmm_get_pointer (slot->vmm);
  gboolean ok = TRUE;
  guint i;

  if (!gst_cuda_sync_ipc_slot_order_copy (self, slot, error) ||
      !wait_producer (self, buf, error))
    return FALSE;
  if (!gst_video_frame_map (&frame, &self->info, buf,
          GST_MAP_READ | GST_MAP_CUDA)) {
    GST_CUDA_SYNC_SET_ERROR (error, RESOURCE, READ, ("Could not map the "
            "input frame."), ("gst_video_frame_map (CUDA)"));
    return FALSE;
  }
  for (i = 0; ok && i < GST_VIDEO_FRAME_N_PLANES (&frame); i++) {
    CUDA_MEMCPY2D p;
    CUresult r;
    memset (&p, 0, sizeof (p));
    p.srcMemoryType = p.dstMemoryType = CU_MEMORYTYPE_DEVICE;
    p.srcDevice = (CUdeviceptr) GST_VIDEO_FRAME_PLANE_DATA (&frame, i);
    p.srcPitch = GST_VIDEO_FRAME_PLANE_STRIDE (&frame, i);
    p.dstDevice = dst + GST_VIDEO_INFO_PLANE_OFFSET (&self->info, i);
    p.dstPitch = GST_VIDEO_INFO_PLANE_STRIDE (&self->info, i);
    p.WidthInBytes = GST_VIDEO_FRAME_COMP_WIDTH (&frame, i) *
        GST_VIDEO_FRAME_COMP_PSTRIDE (&frame, i);
    p.Height = GST_VIDEO_FRAME_COMP_HEIGHT (&frame, i);
    r = CuMemcpy2DAsync (&p, self->stream);
    ok = gst_cuda_sync_check_result (r, "cuMemcpy2DAsync", error);
  }
  gst_video_frame_unmap (&frame);
  self->copies += ok;
  return ok;
}

/* Upstream pools rewrite their buffers as soon as they are back, and the
 * copy out of the input runs later on the GPU. Memory with a stream (the
 * 1.24+ contract: the pool's next writer writes on it) goes back at once,
 * its stream waiting on the GPU for the copy; other input stays alive until
 * the copy ran (context pushed, lock held) */
static gboolean
hold_input (GstCudaSyncIpcServer * self, GstBuffer * buf, GError ** error)
{
  gboolean ordered = gst_buffer_n_memory (buf) > 0;
  guint i;

  for (i = 0; ordered && i < gst_buffer_n_memory (buf); i++) {
    if (!gst_cuda_sync_memory_order_reuse (gst_buffer_peek_memory (buf, i),
            self->stream, &ordered, error))
      return FALSE;
  }
  if (ordered) {
    self->inputs_ordered++;
    return TRUE;
  }
  self->inputs_held++;
  /* the releaser's own blocking-sync events, reused once completed: its
   * thread sleeps in its wait, and a frame creates no driver object */
  if (!gst_cuda_sync_releaser_push_after (self->releaser, self->context,
          self->stream, (GstCudaSyncReleaseFunc) gst_buffer_unref,
          gst_buffer_ref (buf), error)) {
    gst_buffer_unref (buf);
    return FALSE;
  }
  return TRUE;
}

/* a source frames (and EOS) go to: ready, and not draining */
static gboolean
receives (Session * s)
{
  return s->ready && !s->draining;
}

/* sessions ready for frames (@receiving), or connected and ready */
static guint
n_ready (GstCudaSyncIpcServer * self, gboolean receiving)
{
  GList *l;
  guint n = 0;

  for (l = self->sessions; l; l = l->next) {
    Session *s = l->data;
    n += receiving ? receives (s) : s->ready;
  }
  return n;
}

/* lock held; a slot, NULL (flushing or dropped: *ret says) */
static Slot *
wait_slot (GstCudaSyncIpcServer * self, GstFlowReturn * ret, GError ** error)
{
  for (;;) {
    Slot *slot;
    if (self->flushing || self->stopping) {
      *ret = GST_FLOW_FLUSHING;
      return NULL;
    }
    if (n_ready (self, TRUE) == 0) {
      self->unsent++;
      *ret = GST_FLOW_OK;
      return NULL;
    }
    /* Once upstream writes frames of the pool, a copy waits for no
     * source on the GPU: a lend orders the producer's stream after the
     * sink's, which would then wait for a frozen source too (and a
     * producer that waits on the CPU for its stream, as cudaupload does,
     * would never come back) */
    slot = gst_cuda_sync_ipc_slots_get (self, self->lent == 0, error);
    if (slot == GINT_TO_POINTER (-1)) {
      *ret = GST_FLOW_ERROR;
      return NULL;
    }
    if (slot) {
      slot->last_use = self->buffers;
      return slot;
    }
    if (self->config.drop_when_full) {
      self->dropped++;
      *ret = GST_FLOW_OK;
      return NULL;
    }
    g_cond_wait (&self->cond, &self->lock);
  }
}

/* lock held: the frame @buf goes to (a frame upstream wrote in place, or
 * one to copy it into), or NULL (*ret says why) */
static Slot *
render_slot (GstCudaSyncIpcServer * self, GstBuffer * buf, gboolean * in_place,
    GstFlowReturn * ret, GError ** error)
{
  Slot *slot = gst_cuda_sync_ipc_slot_in_place (self, buf);

  *in_place = slot != NULL;
  if (!slot)
    return wait_slot (self, ret, error);
  if (n_ready (self, TRUE) == 0) {
    self->unsent++;
    *ret = GST_FLOW_OK;
    return NULL;
  }
  slot->last_use = self->buffers;
  return slot;
}

/* A frame of the sink's pool is sent as it is, once the producer's work
 * ran (its sources' releases were waited for when it was lent); other
 * input is copied into a free frame. */
GstFlowReturn
gst_cuda_sync_ipc_server_render (GstCudaSyncIpcServer * self, GstBuffer * buf,
    GError ** error)
{
  GstFlowReturn ret = GST_FLOW_OK;
  gboolean in_place, ok;
  GList *l, *next;
  Slot *slot;

  g_mutex_lock (&self->lock);
  self->buffers++;
  slot = render_slot (self, buf, &in_place, &ret, error);
  if (!slot) {
    g_mutex_unlock (&self->lock);
    return ret;
  }
  if (!gst_cuda_context_push (self->context)) {
    g_mutex_unlock (&self->lock);
    GST_CUDA_SYNC_SET_ERROR (error, LIBRARY, FAILED, ("Could not make the "
            "CUDA context current."), ("gst_cuda_context_push"));
    return GST_FLOW_ERROR;
  }
  if (in_place)
    ok = wait_producer (self, buf, error);
  else
    ok = copy_in (self, slot, buf, error) && hold_input (self, buf, error);
  if (!ok) {
    gst_cuda_context_pop (NULL);
    g_mutex_unlock (&self->lock);
    return GST_FLOW_ERROR;
  }
  self->inputs_in_place += in_place;
  for (l = self->sessions; l; l = next) {
    Session *s = l->data;
    GError *err = NULL;
    next = l->next;
    if (receives (s)
        && !gst_cuda_sync_ipc_session_send_frame (self, s, slot, buf, &err)) {
      GST_WARNING ("dropping the source of pid %d: %s", s->pid, err->message);
      g_clear_error (&err);
      gst_cuda_sync_ipc_session_drop (self, s, TRUE);
    }
  }
  gst_cuda_context_pop (NULL);
  g_mutex_unlock (&self->lock);
  return GST_FLOW_OK;
}

void
gst_cuda_sync_ipc_server_eos (GstCudaSyncIpcServer * self)
{
  GList *l;

  g_mutex_lock (&self->lock);
  for (l = self->sessions; l; l = l->next) {
    Session *s = l->data;
    if (receives (s))
      gst_cuda_sync_ipc_send (s->fd, GST_CUDA_SYNC_IPC_MSG_EOS, NULL, 0, NULL,
          0, -1, NULL);
  }
  g_mutex_unlock (&self->lock);
}

void
gst_cuda_sync_ipc_server_set_flushing (GstCudaSyncIpcServer * self,
    gboolean flushing)
{
  g_mutex_lock (&self->lock);
  self->flushing = flushing;
  self->flush_gen += flushing;
  g_cond_broadcast (&self->cond);
  g_mutex_unlock (&self->lock);
}

GstStructure *
gst_cuda_sync_ipc_server_stats (GstCudaSyncIpcServer * self)
{
  GstStructure *s;

  g_mutex_lock (&self->lock);
  s = gst_structure_new ("application/x-cudasyncipcsink-stats",
      "buffers", G_TYPE_UINT64, self->buffers,
      "frames-sent", G_TYPE_UINT64, self->frames_sent,
      "signals", G_TYPE_UINT64, self->signals,
      "waits", G_TYPE_UINT64, self->waits,
      "copies", G_TYPE_UINT64, self->copies,
      "inputs-held", G_TYPE_UINT64, self->inputs_held,
      "inputs-ordered", G_TYPE_UINT64, self->inputs_ordered,
      "inputs-in-place", G_TYPE_UINT64, self->inputs_in_place,
      "lent", G_TYPE_UINT64, self->lent,
      "releases", G_TYPE_UINT64, self->releases,
      "dropped", G_TYPE_UINT64, self->dropped,
      "unsent", G_TYPE_UINT64, self->unsent,
      "cpu-syncs", G_TYPE_UINT64, self->cpu_syncs,
      "rescues", G_TYPE_UINT64, self->rescues,
      "buffers-allocated", G_TYPE_UINT64, (guint64) self->slots->len,
      "sessions", G_TYPE_UINT64, (guint64) n_ready (self, FALSE),
      "sessions-draining", G_TYPE_UINT64,
      (guint64) (n_ready (self, FALSE) - n_ready (self, TRUE)),
      "sessions-total", G_TYPE_UINT64, self->sessions_total,
      "sessions-refused", G_TYPE_UINT64, self->sessions_refused,
      "sessions-lost", G_TYPE_UINT64, self->sessions_lost,
      "sessions-failed", G_TYPE_UINT64, self->sessions_failed,
      "sessions-invalid", G_TYPE_UINT64, self->sessions_invalid,
      "sessions-over-limit", G_TYPE_UINT64, self->sessions_over_limit,
      "handshake-timeouts", G_TYPE_UINT64, self->handshake_timeouts,
      "hold-timeouts", G_TYPE_UINT64, self->hold_timeouts, NULL);
  g_mutex_unlock (&self->lock);
  return s;
}

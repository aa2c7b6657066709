/* gst-cudasync
 * Copyright (C) 2026 gst-cudasync developers
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * cudasyncipcsrc's connection: the handshake, the sink's messages, the
 * imported frames, the copies out of them and the frames lent downstream.
 * The connection is made in gstcudasyncipcconnect.c; the watchdog and the
 * rescue are gstcudasyncipcwatch.c's. Locks: gstcudasyncipcclient-private.h.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstcudasyncipcclient-private.h"
#include "gstcudasyncelementerror.h"
#include <gst/cuda/gstcudamemory.h>
#include <errno.h>
#include <poll.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

GST_DEBUG_CATEGORY (gst_cuda_sync_ipc_client_debug);
#define GST_CAT_DEFAULT gst_cuda_sync_ipc_client_debug

Import *
gst_cuda_sync_ipc_import_ref (Import * imp)
{
  g_atomic_int_inc (&imp->refcount);
  return imp;
}

void
gst_cuda_sync_ipc_import_unref (Import * imp)
{
  if (g_atomic_int_dec_and_test (&imp->refcount)) {
    gst_cuda_sync_vmm_free (imp->vmm);
    g_free (imp);
  }
}

static void
release_import (gpointer imp, const GError * error)
{
  gst_cuda_sync_ipc_import_unref (imp);
}

/* the table's references go once the work enqueued on @stream so far ran
 * (our copies out of them, or downstream's reads of a lent frame); lock
 * held (the streaming thread and the threads that free lent frames push
 * to the one releaser) */
void
gst_cuda_sync_ipc_client_unref_import_after (GstCudaSyncIpcClient * self,
    Import * imp, CUstream stream)
{
  GError *err = NULL;

  if (!gst_cuda_sync_releaser_push_after (self->releaser, self->context,
          stream, release_import, imp, &err)) {
    /* the driver cannot tell when: better a leak than a use after free */
    GST_WARNING ("keeping an imported frame: %s", err->message);
    g_clear_error (&err);
  }
}

static void
drop_imports (GstCudaSyncIpcClient * self)
{
  GHashTableIter it;
  gpointer value;

  g_mutex_lock (&self->lock);
  g_hash_table_iter_init (&it, self->imports);
  while (g_hash_table_iter_next (&it, NULL, &value)) {
    gst_cuda_sync_ipc_client_unref_import_after (self, value, self->stream);
    g_hash_table_iter_steal (&it);
  }
  g_mutex_unlock (&self->lock);
}

/* The connection closed before the sink's HELLO. A sink closes the
 * connection of a user it does not allow without a word (nothing is sent
 * to a peer that is not allowed), and a sink dying as we connected does
 * too: to be tried again in reconnect mode, as a failed connection. */
void
gst_cuda_sync_ipc_client_set_closed_before_hello (GstCudaSyncIpcClient * self,
    GError ** error, const gchar * cause)
{
  GST_CUDA_SYNC_SET_ERROR (error, RESOURCE, OPEN_READ_WRITE, ("The sink "
          "closed the connection before its greeting: it may not allow this "
          "user (its allowed-uids), or it was stopping."), ("%s: the "
          "connection closed before the sink's HELLO (%s); this process runs "
          "as uid %u", self->path, cause, (guint) getuid ()));
}

/* Before the imports go, the stream's waits for the sink's values must
 * end: they normally do at once, but a sink hung (or killed) at this
 * moment never signals them, and its semaphore is rescued after
 * GST_CUDA_SYNC_IPC_CLIENT_STOP_GRACE_US. A query that fails (the context could not be made
 * current) is tried again: rescuing a live sink's semaphore would put it
 * past the values the sink still signals. */
static void
settle (GstCudaSyncIpcClient * self)
{
  gint64 end = g_get_monotonic_time () + GST_CUDA_SYNC_IPC_CLIENT_STOP_GRACE_US;
  GstCudaSyncEventStatus st = GST_CUDA_SYNC_EVENT_PENDING;

  if (!self->acquire || !self->event || self->rescued ||
      !gst_cuda_sync_event_record (self->event, self->stream, NULL))
    return;
  while (g_get_monotonic_time () < end &&
      (st = gst_cuda_sync_event_query (self->event, NULL)) !=
      GST_CUDA_SYNC_EVENT_COMPLETE)
    g_usleep (1000);
  if (st != GST_CUDA_SYNC_EVENT_COMPLETE)
    gst_cuda_sync_ipc_client_rescue (self);
}

/* the connection is over: no more messages, and no more release signals
 * (release_loan()) */
static void
disconnect (GstCudaSyncIpcClient * self)
{
  g_mutex_lock (&self->lock);
  if (self->fd >= 0)
    close (self->fd);
  self->fd = -1;
  g_mutex_unlock (&self->lock);
}

/* lock held */
void
gst_cuda_sync_ipc_client_say_bye (GstCudaSyncIpcClient * self)
{
  GstCudaSyncIpcBye bye = { 0, 0 };

  gst_cuda_sync_ipc_send (self->fd, GST_CUDA_SYNC_IPC_MSG_BYE, &bye,
      sizeof (bye), NULL, 0, -1, NULL);
  close (self->fd);
  self->fd = -1;
}

void
gst_cuda_sync_ipc_client_close (GstCudaSyncIpcClient * self)
{
  GError *err = NULL;

  /* settle() below takes over (before the imports go) */
  gst_cuda_sync_ipc_client_stop_watchdog (self);
  gst_clear_object (&self->config.pad);
  if (!gst_cuda_sync_ipc_client_retry_releases (self, &err)) {
    /* the frames stay the session's: the sink rescues them at its stop */
    GST_WARNING ("frames not released at the stop: %s", err->message);
    g_clear_error (&err);
  }
  g_mutex_lock (&self->lock);
  if (self->fd >= 0 && self->n_lent > 0 && self->sink_minor >= 1) {
    /* frames are still lent downstream: the sink sends no more, but keeps
     * those until they are released; the last one's return says BYE */
    if (!self->draining)
      self->draining =
          gst_cuda_sync_ipc_send (self->fd, GST_CUDA_SYNC_IPC_MSG_DRAIN, NULL,
          0, NULL, 0, -1, NULL);
  }
  if (self->fd >= 0 && !self->draining) {
    /* (a sink of protocol 1.0 may write into frames still lent) */
    if (self->n_lent > 0)
      GST_WARNING ("%u frames still lent to a sink that cannot keep them",
          self->n_lent);
    gst_cuda_sync_ipc_client_say_bye (self);
  }
  g_mutex_unlock (&self->lock);
  if (self->stream) {
    settle (self);
    drop_imports (self);
  }
}

GstCudaSyncIpcClient *
gst_cuda_sync_ipc_client_ref (GstCudaSyncIpcClient * self)
{
  g_atomic_int_inc (&self->refcount);
  return self;
}

/* the last reference: the element's, or that of the last frame lent */
void
gst_cuda_sync_ipc_client_unref (GstCudaSyncIpcClient * self)
{
  if (!g_atomic_int_dec_and_test (&self->refcount))
    return;
  gst_cuda_sync_ipc_client_close (self);
  g_hash_table_unref (self->imports);
  /* waits for the events: the copies out of the imports and the reads of
   * the frames lent ran */
  gst_cuda_sync_releaser_free (self->releaser);
  gst_clear_object (&self->acquire);
  gst_clear_object (&self->release);
  g_clear_pointer (&self->event, gst_cuda_sync_event_unref);
  g_clear_pointer (&self->watch_event, gst_cuda_sync_event_unref);
  gst_cuda_sync_ipc_streams_free (self->context, self->stream, self->rescue);
  gst_object_unref (self->context);
  if (self->retry_fd >= 0)
    close (self->retry_fd);
  if (self->lost_fd >= 0)
    close (self->lost_fd);
  g_clear_error (&self->lost_error);
  g_free (self->path);
  g_cond_clear (&self->watch_cond);
  g_mutex_clear (&self->lock);
  g_free (self);
}

/* the sink broke the protocol: it is as good as gone */
static gboolean
invalid (GstCudaSyncIpcClient * self, GError ** error, const gchar * what,
    guint type)
{
  self->sink_broke = TRUE;
  GST_CUDA_SYNC_SET_ERROR (error, STREAM, DECODE, ("The sink sent an "
          "invalid message."), ("message type %u: %s", type, what));
  return FALSE;
}

static gboolean
handle_buffer (GstCudaSyncIpcClient * self, GstCudaSyncIpcMsg * msg,
    GError ** error)
{
  const GstCudaSyncIpcBuffer *b = (const void *) msg->body;
  GstCudaSyncVmm *vmm;
  Import *imp;

  if (!self->have_caps || b->epoch != self->epoch || b->id == 0 ||
      g_hash_table_contains (self->imports, GUINT_TO_POINTER (b->id)) ||
      g_hash_table_size (self->imports) >= self->max_buffers ||
      b->alloc_size < self->layout.size ||
      b->alloc_size > G_GUINT64_CONSTANT (1) << 34)
    return invalid (self, error, "unknown epoch, known id, too many buffers or "
        "a size that does not hold the layout", msg->hdr.type);
  vmm = gst_cuda_sync_vmm_import_fd (self->context, msg->fd, b->alloc_size,
      error);
  if (!vmm)
    return FALSE;
  imp = g_new0 (Import, 1);
  imp->refcount = 1;
  imp->vmm = vmm;
  g_hash_table_insert (self->imports, GUINT_TO_POINTER (b->id), imp);
  return TRUE;
}

/* Downstream CUDA elements (blocking streams) read a frame after the
 * work enqueued on our stream so far: the legacy default stream waits for
 * it on the GPU, or, with cpu_wait, the CPU does (context pushed) */
gboolean
gst_cuda_sync_ipc_client_order_downstream (GstCudaSyncIpcClient * self,
    GError ** error)
{
  if (self->config.cpu_wait) {
    /* the one CPU-synchronising call of the source, counted */
    CUresult r = CuStreamSynchronize (self->stream);
    self->counters.cpu_syncs++;
    return gst_cuda_sync_check_result (r, "cuStreamSynchronize", error);
  }
  return gst_cuda_sync_event_record (self->event, self->stream, error) &&
      gst_cuda_sync_event_wait_gpu (self->event, NULL, error);
}

/* stream order: the sink's signal, the copy, our release signal; then
 * the legacy default stream (which the blocking streams of downstream
 * CUDA elements follow) waits for the copy, or, with cpu_wait, the CPU
 * does (context pushed) */
static gboolean
copy_out (GstCudaSyncIpcClient * self, GstCudaSyncVmm * vmm,
    const GstCudaSyncIpcFrame * f, GstBuffer * out, GError ** error)
{
  CUdeviceptr src = gst_cuda_sync_vmm_get_pointer (vmm);
  GstVideoFrame frame;
  gboolean ok;
  guint i;

  ok = gst_cuda_semaphore_wait (self->acquire, self->stream,
      f->acquire_value, error);
  self->counters.waits += ok;
  if (ok)
    gst_cuda_sync_ipc_client_watch (self, f->acquire_value);
  if (ok && !gst_video_frame_map (&frame, &self->layout, out,
          GST_MAP_WRITE | GST_MAP_CUDA)) {
    GST_CUDA_SYNC_SET_ERROR (error, RESOURCE, WRITE, ("Could not map the "
            "output frame."), ("gst_video_frame_map (CUDA)"));
    return FALSE;
  }
  for (i = 0; ok && i < GST_VIDEO_FRAME_N_PLANES (&frame); i++) {
    CUDA_MEMCPY2D p;
    memset (&p, 0, sizeof (p));
    p.srcMemoryType = p.dstMemoryType = CU_MEMORYTYPE_DEVICE;
    p.srcDevice = src + GST_VIDEO_INFO_PLANE_OFFSET (&self->layout, i);
    p.srcPitch = GST_VIDEO_INFO_PLANE_STRIDE (&self->layout, i);
    p.dstDevice = (CUdeviceptr) GST_VIDEO_FRAME_PLANE_DATA (&frame, i);
    p.dstPitch = GST_VIDEO_FRAME_PLANE_STRIDE (&frame, i);
    p.WidthInBytes = GST_VIDEO_FRAME_COMP_WIDTH (&frame, i) *
        GST_VIDEO_FRAME_COMP_PSTRIDE (&frame, i);
    p.Height = GST_VIDEO_FRAME_COMP_HEIGHT (&frame, i);
    ok = gst_cuda_sync_check_result (CuMemcpy2DAsync (&p, self->stream),
        "cuMemcpy2DAsync", error);
  }
  if (ok) {
    gst_video_frame_unmap (&frame);
    self->counters.copies++;
  }
  return ok && gst_cuda_sync_ipc_client_order_downstream (self, error);
}

/* whether the sink closed its end (it stopped, or dropped us, and may have
 * rescued our semaphore): nothing more is signalled or sent (lock held) */
static gboolean
sink_closed (GstCudaSyncIpcClient * self, const GError * err)
{
  if (!self->sink_closed && gst_cuda_sync_ipc_peer_closed (self->fd)) {
    GST_INFO ("the sink closed its end%s%s: nothing more is released",
        err ? ": " : "", err ? err->message : "");
    self->sink_closed = TRUE;
  }
  return self->sink_closed;
}

/* The next value of our release semaphore, signalled on @stream, sent to
 * the sink for frame @id, while the sink's end is open (lock held, context
 * pushed) */
GstCudaSyncIpcReleaseResult
gst_cuda_sync_ipc_client_release (GstCudaSyncIpcClient * self, CUstream stream,
    guint32 id, GError ** error)
{
  GstCudaSyncIpcRelease rel = { id, 0, 0 };
  GError *err = NULL;

  if (self->fd < 0 || sink_closed (self, NULL))
    return GST_CUDA_SYNC_IPC_RELEASE_DONE;
  if (!gst_cuda_semaphore_signal (self->release, stream, &rel.release_value,
          &err)) {
    /* (below a rescue that ran meanwhile) */
    if (sink_closed (self, err)) {
      g_clear_error (&err);
      return GST_CUDA_SYNC_IPC_RELEASE_DONE;
    }
    g_propagate_error (error, err);
    return GST_CUDA_SYNC_IPC_RELEASE_NOT_SIGNALLED;
  }
  self->counters.signals++;
  if (gst_cuda_sync_ipc_send (self->fd, GST_CUDA_SYNC_IPC_MSG_RELEASE, &rel,
          sizeof (rel), NULL, 0, -1, &err)) {
    GST_LOG ("frame %u released at value %" G_GUINT64_FORMAT, id,
        rel.release_value);
    self->counters.releases++;
    return GST_CUDA_SYNC_IPC_RELEASE_DONE;
  }
  if (sink_closed (self, err)) {
    g_clear_error (&err);
    return GST_CUDA_SYNC_IPC_RELEASE_DONE;
  }
  g_propagate_error (error, err);
  return GST_CUDA_SYNC_IPC_RELEASE_NOT_SENT;
}

/* the copy into a buffer of @pool, released to the sink at once */
static GstBuffer *
copy_frame (GstCudaSyncIpcClient * self, Import * imp,
    const GstCudaSyncIpcFrame * f, GstBufferPool * pool, GError ** error)
{
  GstBuffer *out = NULL;
  gboolean ok;

  if (gst_buffer_pool_acquire_buffer (pool, &out, NULL) != GST_FLOW_OK) {
    GST_CUDA_SYNC_SET_ERROR (error, RESOURCE, FAILED, ("Could not get an "
            "output buffer."), ("gst_buffer_pool_acquire_buffer"));
    return NULL;
  }
  ok = copy_out (self, imp->vmm, f, out, error);
  g_mutex_lock (&self->lock);
  ok = ok && gst_cuda_sync_ipc_client_release (self, self->stream, f->id,
      error) == GST_CUDA_SYNC_IPC_RELEASE_DONE;
  g_mutex_unlock (&self->lock);
  if (!ok)
    gst_clear_buffer (&out);
  return out;
}

static gboolean
handle_frame (GstCudaSyncIpcClient * self, GstCudaSyncIpcMsg * msg,
    GstBufferPool * pool, GstBuffer ** buffer, GError ** error)
{
  const GstCudaSyncIpcFrame *f = (const void *) msg->body;
  Import *imp = g_hash_table_lookup (self->imports, GUINT_TO_POINTER (f->id));
  GstBuffer *out;

  if (!imp || !self->acquire || f->epoch != self->epoch ||
      f->acquire_value <= self->acquire_last ||
      f->acquire_value >= GST_CUDA_SYNC_IPC_MAX_VALUE || f->reserved ||
      (f->flags & ~GST_CUDA_SYNC_IPC_FRAME_FLAGS))
    return invalid (self, error,
        "unknown id or epoch, or a value that does not " "grow", msg->hdr.type);
  g_mutex_lock (&self->lock);
  self->acquire_last = f->acquire_value;
  g_mutex_unlock (&self->lock);
  GST_LOG ("frame %u at acquire value %" G_GUINT64_FORMAT "%s", f->id,
      f->acquire_value, self->lend ? ", lent" : "");
  if (!gst_cuda_context_push (self->context)) {
    g_set_error (error, GST_CUDA_SYNC_ERROR, GST_CUDA_SYNC_ERROR_DRIVER,
        "Could not make the CUDA context current");
    return FALSE;
  }
  out = self->lend ? gst_cuda_sync_ipc_client_lend_frame (self, imp, f, error) :
      copy_frame (self, imp, f, pool, error);
  gst_cuda_context_pop (NULL);
  if (!out)
    return FALSE;
  self->counters.frames++;
  GST_BUFFER_PTS (out) = f->pts;
  GST_BUFFER_DTS (out) = f->dts;
  GST_BUFFER_DURATION (out) = f->duration;
  GST_BUFFER_OFFSET (out) = f->offset;
  GST_BUFFER_OFFSET_END (out) = f->offset_end;
  GST_BUFFER_FLAGS (out) |= f->flags;
  *buffer = out;
  return TRUE;
}

/* one message; a result to return, or -1 to go on reading */
static gint
handle (GstCudaSyncIpcClient * self, GstCudaSyncIpcMsg * msg,
    GstBufferPool * pool, GstBuffer ** buffer, GstCaps ** caps, GError ** error)
{
  const GstCudaSyncIpcSemaphore *sm = (const void *) msg->body;
  GstCudaSemaphore *acquire;

  if (!self->got_hello) {
    if (!gst_cuda_sync_ipc_check_hello (msg, GST_CUDA_SYNC_IPC_ROLE_SINK,
            error)) {
      self->sink_broke = TRUE;
      return GST_CUDA_SYNC_IPC_CLIENT_ERROR;
    }
    self->got_hello = TRUE;
    self->max_buffers = ((const GstCudaSyncIpcHello *) msg->body)->max_buffers;
    self->sink_minor = ((const GstCudaSyncIpcHello *) msg->body)->version_minor;
    return -1;
  }
  switch (msg->hdr.type) {
    case GST_CUDA_SYNC_IPC_MSG_SEMAPHORE:
      if (self->acquire || sm->purpose != GST_CUDA_SYNC_IPC_SEM_ACQUIRE ||
          sm->handle_type != 1
          || sm->initial_value >= GST_CUDA_SYNC_IPC_MAX_VALUE)
        break;
      acquire = gst_cuda_semaphore_import_fd (self->context,
          GST_CUDA_SEMAPHORE_HANDLE_TYPE_TIMELINE_FD, msg->fd, error);
      if (!acquire)
        return GST_CUDA_SYNC_IPC_CLIENT_ERROR;
      gst_cuda_sync_ipc_msg_take_fd (msg);
      g_mutex_lock (&self->lock);
      self->acquire = acquire;
      self->acquire_last = self->waited = self->reached = sm->initial_value;
      g_mutex_unlock (&self->lock);
      return -1;
    case GST_CUDA_SYNC_IPC_MSG_CAPS:{
      guint32 epoch = ((const GstCudaSyncIpcCaps *) msg->body)->epoch;
      if ((self->have_caps && epoch <= self->epoch) ||
          !gst_cuda_sync_ipc_parse_caps (msg, caps, &self->layout, error))
        break;
      drop_imports (self);
      self->epoch = epoch;
      self->have_caps = TRUE;
      self->lend = self->config.lend
          && gst_cuda_sync_ipc_layout_wrappable (&self->layout);
      if (self->config.lend && !self->lend)
        GST_INFO ("copying the frames of %" GST_PTR_FORMAT ": GStreamer "
            "cannot wrap device memory, or maps this layout wrongly", *caps);
      return GST_CUDA_SYNC_IPC_CLIENT_CAPS;
    }
    case GST_CUDA_SYNC_IPC_MSG_BUFFER:
      return handle_buffer (self, msg,
          error) ? -1 : GST_CUDA_SYNC_IPC_CLIENT_ERROR;
    case GST_CUDA_SYNC_IPC_MSG_FRAME:
      return handle_frame (self, msg, pool, buffer, error) ?
          GST_CUDA_SYNC_IPC_CLIENT_FRAME : GST_CUDA_SYNC_IPC_CLIENT_ERROR;
    case GST_CUDA_SYNC_IPC_MSG_EOS:
      return GST_CUDA_SYNC_IPC_CLIENT_EOS;
    case GST_CUDA_SYNC_IPC_MSG_BYE:
      return GST_CUDA_SYNC_IPC_CLIENT_BYE;
    default:
      break;
  }
  if (error && !*error)
    invalid (self, error, "message out of place", msg->hdr.type);
  self->sink_broke = TRUE;
  return GST_CUDA_SYNC_IPC_CLIENT_ERROR;
}

/* how long to wait for the sink's messages: until the handshake's time
 * limit before its HELLO (0: over), else without limit (-1) */
static gint
hello_wait_ms (GstCudaSyncIpcClient * self)
{
  gint64 left;

  if (self->got_hello || !self->config.timeout)
    return -1;
  left = self->connected + (gint64) (self->config.timeout / GST_USECOND) -
      g_get_monotonic_time ();
  return left <= 0 ? 0 : (gint) MIN ((left + 999) / 1000, G_MAXINT);
}

/* what the watchdog found (it rescued the sink's semaphore) */
static GstCudaSyncIpcClientResult
watch_result (GstCudaSyncIpcClient * self, GError ** error)
{
  GstCudaSyncIpcClientResult ret;

  g_mutex_lock (&self->lock);
  ret = self->watch_lost;
  if (self->lost_error)
    g_propagate_error (error, g_error_copy (self->lost_error));
  g_mutex_unlock (&self->lock);
  return ret;
}

GstCudaSyncIpcClientResult
gst_cuda_sync_ipc_client_next (GstCudaSyncIpcClient * self,
    GstBufferPool * pool, GstBuffer ** buffer, GstCaps ** caps, GError ** error)
{
  GstCudaSyncIpcMsg *msg = g_new (GstCudaSyncIpcMsg, 1);
  gint ret = -1;

  while (ret < 0) {
    struct pollfd pfd[4] = { {self->fd, POLLIN, 0}, {self->wake_fd, POLLIN, 0},
    {self->retry_fd, POLLIN, 0}, {self->lost_fd, POLLIN, 0}
    };
    gint r, ms = hello_wait_ms (self);

    if (ms == 0) {
      GST_CUDA_SYNC_SET_ERROR (error, RESOURCE, OPEN_READ_WRITE, ("The sink "
              "did not send its greeting in time."), ("%s: no HELLO within %"
              GST_TIME_FORMAT, self->path,
              GST_TIME_ARGS (self->config.timeout)));
      ret = GST_CUDA_SYNC_IPC_CLIENT_UNANSWERED;
      break;
    }
    if (poll (pfd, 4, ms) < 0 && errno != EINTR) {
      ret = GST_CUDA_SYNC_IPC_CLIENT_ERROR;
      GST_CUDA_SYNC_SET_ERROR (error, RESOURCE, READ, ("Could not wait for "
              "the sink's messages."), ("poll: %s", g_strerror (errno)));
      break;
    }
    if (pfd[1].revents) {
      ret = GST_CUDA_SYNC_IPC_CLIENT_FLUSHING;
      break;
    }
    if (pfd[3].revents) {
      ret = watch_result (self, error);
      break;
    }
    if (pfd[2].revents
        && !gst_cuda_sync_ipc_client_retry_releases (self, error)) {
      ret = GST_CUDA_SYNC_IPC_CLIENT_ERROR;
      break;
    }
    if (!pfd[0].revents)
      continue;
    r = gst_cuda_sync_ipc_recv (self->fd, msg, error);
    if (r == 0 && !self->got_hello) {
      gst_cuda_sync_ipc_client_set_closed_before_hello (self, error,
          "no message");
      ret = GST_CUDA_SYNC_IPC_CLIENT_UNANSWERED;
    } else if (r == 0) {
      ret = GST_CUDA_SYNC_IPC_CLIENT_LOST;
    } else if (r < 0) {
      self->sink_broke = TRUE;
      ret = GST_CUDA_SYNC_IPC_CLIENT_ERROR;
    } else {
      ret = handle (self, msg, pool, buffer, caps, error);
      gst_cuda_sync_ipc_msg_clear (msg);
    }
    /* a frame that the watchdog's rescue let through (our CPU wait, with
     * cpu_wait, waited for it) holds what the memory held then; a stop
     * that the rescue ended is no lost peer */
    if (ret == GST_CUDA_SYNC_IPC_CLIENT_FRAME &&
        g_atomic_int_get (&self->watch_lost)) {
      gst_clear_buffer (buffer);
      ret =
          gst_cuda_sync_ipc_client_woken (self) ?
          GST_CUDA_SYNC_IPC_CLIENT_FLUSHING : watch_result (self, error);
    }
  }
  /* A sink that is gone or broke the protocol may never signal the values
   * it announced, and no longer waits for ours: its semaphore is rescued,
   * and ours is signalled no more (the sink may have rescued it past our
   * next values). After a failure of our own the sink is alive: the stop
   * says BYE (or DRAIN) as usual, and rescues only a sink that does not
   * signal within the grace (settle()). */
  if (ret == GST_CUDA_SYNC_IPC_CLIENT_LOST
      || ret == GST_CUDA_SYNC_IPC_CLIENT_FROZEN
      || (ret == GST_CUDA_SYNC_IPC_CLIENT_ERROR && self->sink_broke)) {
    gst_cuda_sync_ipc_client_rescue (self);
    disconnect (self);
  }
  g_free (msg);
  return ret;
}

void
gst_cuda_sync_ipc_client_add_counters (GstCudaSyncIpcClient * self,
    GstCudaSyncIpcClientCounters * sum)
{
  g_mutex_lock (&self->lock);
  sum->frames += self->counters.frames;
  sum->waits += self->counters.waits;
  sum->signals += self->counters.signals;
  sum->copies += self->counters.copies;
  sum->lent += self->counters.lent;
  sum->releases += self->counters.releases;
  sum->rescues += self->counters.rescues;
  sum->cpu_syncs += self->counters.cpu_syncs;
  g_mutex_unlock (&self->lock);
}

/* ---- the frames lent downstream ----
 *
 * In io-mode import: the sink's memory itself, wrapped in a
 * GstCudaMemory. Each is released to the sink (our release semaphore's
 * next value, and RELEASE) when downstream frees it; one whose release
 * fails waits for the streaming thread to try again. */

/* Signals our release semaphore's next value on the legacy default
 * stream, after the reads that downstream CUDA elements (on blocking
 * streams, or that one) have enqueued, and sends it to the sink; the
 * import goes once those reads ran. FALSE when the signal failed (to try
 * again); a failed send is a connection the sink sees fail, and the frame
 * counts as released (lock held, context pushed). */
static gboolean
release_loan (GstCudaSyncIpcClient * self, Loan * loan, GError ** error)
{
  GError *err = NULL;

  switch (gst_cuda_sync_ipc_client_release (self, NULL, loan->id, &err)) {
    case GST_CUDA_SYNC_IPC_RELEASE_NOT_SIGNALLED:
      g_propagate_error (error, err);
      return FALSE;
    case GST_CUDA_SYNC_IPC_RELEASE_NOT_SENT:
      GST_WARNING ("frame %u not released to the sink: %s", loan->id,
          err->message);
      g_clear_error (&err);
      break;
    default:
      break;
  }
  gst_cuda_sync_ipc_client_unref_import_after (self, loan->import, NULL);
  self->n_lent--;
  if (self->draining && self->n_lent == 0 && self->fd >= 0)
    gst_cuda_sync_ipc_client_say_bye (self);
  return TRUE;
}

/* The lent frames whose release failed (a context that could not be made
 * current, a failed signal), released now: FALSE and @error when one
 * fails again (any thread but loan_return()'s caller's lock) */
gboolean
gst_cuda_sync_ipc_client_retry_releases (GstCudaSyncIpcClient * self,
    GError ** error)
{
  GQueue done = G_QUEUE_INIT;
  gboolean ok = TRUE;
  Loan *loan;
  guint64 v;

  if (self->retry_fd >= 0 && read (self->retry_fd, &v, sizeof (v)) < 0 &&
      errno != EAGAIN)
    GST_WARNING ("eventfd read: %s", g_strerror (errno));
  g_mutex_lock (&self->lock);
  if (!g_queue_is_empty (&self->unreleased)) {
    if (!gst_cuda_context_push (self->context)) {
      g_set_error (error, GST_CUDA_SYNC_ERROR, GST_CUDA_SYNC_ERROR_DRIVER,
          "Could not make the CUDA context current");
      ok = FALSE;
    } else {
      while (ok && !g_queue_is_empty (&self->unreleased) &&
          (ok = release_loan (self, g_queue_peek_head (&self->unreleased),
                  error)))
        g_queue_push_tail (&done, g_queue_pop_head (&self->unreleased));
      gst_cuda_context_pop (NULL);
    }
    if (!ok)
      GST_WARNING ("%u lent frames not released",
          g_queue_get_length (&self->unreleased));
  }
  g_mutex_unlock (&self->lock);
  while ((loan = g_queue_pop_head (&done))) {
    gst_cuda_sync_ipc_client_unref (loan->client);
    g_free (loan);
  }
  return ok;
}

/* A frame lent downstream is back (any thread): released (release_loan()),
 * else kept for the streaming thread to try again (retry_releases()):
 * until then the sink does not write into it, and the import stays */
static void
loan_return (gpointer data)
{
  Loan *loan = data;
  GstCudaSyncIpcClient *self = loan->client;
  GError *err = NULL;
  gboolean pushed = gst_cuda_context_push (self->context);
  guint64 one = 1;

  g_mutex_lock (&self->lock);
  if (pushed && release_loan (self, loan, &err)) {
    g_mutex_unlock (&self->lock);
    gst_cuda_context_pop (NULL);
    gst_cuda_sync_ipc_client_unref (self);
    g_free (loan);
    return;
  }
  GST_WARNING ("frame %u not released yet: %s", loan->id, err ? err->message :
      "could not make the CUDA context current");
  g_clear_error (&err);
  g_queue_push_tail (&self->unreleased, loan);
  if (write (self->retry_fd, &one, sizeof (one)) < 0)
    GST_WARNING ("eventfd write: %s", g_strerror (errno));
  g_mutex_unlock (&self->lock);
  if (pushed)
    gst_cuda_context_pop (NULL);
}

/* The frame is the import itself: our stream waits for the sink's value,
 * then the legacy default stream (or the CPU) waits for our stream
 * (context pushed). Released by loan_return() when freed. */
GstBuffer *
gst_cuda_sync_ipc_client_lend_frame (GstCudaSyncIpcClient * self, Import * imp,
    const GstCudaSyncIpcFrame * f, GError ** error)
{
  GstVideoInfo *l = &self->layout;
  GstBuffer *out;
  GstMemory *mem;
  Loan *loan;

  if (!gst_cuda_semaphore_wait (self->acquire, self->stream,
          f->acquire_value, error))
    return NULL;
  self->counters.waits++;
  gst_cuda_sync_ipc_client_watch (self, f->acquire_value);
  if (!gst_cuda_sync_ipc_client_order_downstream (self, error))
    return NULL;
  loan = g_new0 (Loan, 1);
  loan->client = gst_cuda_sync_ipc_client_ref (self);
  loan->import = gst_cuda_sync_ipc_import_ref (imp);
  loan->id = f->id;
  mem = gst_cuda_sync_memory_wrap (self->context, l,
      gst_cuda_sync_vmm_get_pointer (imp->vmm), loan, loan_return);
  if (!mem) {
    /* the table and the element keep theirs: nothing is freed here */
    gst_cuda_sync_ipc_import_unref (loan->import);
    gst_cuda_sync_ipc_client_unref (self);
    g_free (loan);
    GST_CUDA_SYNC_SET_ERROR (error, RESOURCE, FAILED, ("Could not wrap the "
            "sink's memory."), ("gst_cuda_allocator_alloc_wrapped"));
    return NULL;
  }
  g_mutex_lock (&self->lock);
  self->n_lent++;
  self->counters.lent++;
  g_mutex_unlock (&self->lock);
  out = gst_buffer_new ();
  gst_buffer_append_memory (out, mem);
  gst_buffer_add_video_meta_full (out, GST_VIDEO_FRAME_FLAG_NONE,
      GST_VIDEO_INFO_FORMAT (l), GST_VIDEO_INFO_WIDTH (l),
      GST_VIDEO_INFO_HEIGHT (l), GST_VIDEO_INFO_N_PLANES (l), l->offset,
      l->stride);
  return out;
}

/* gst-cudasync
 * Copyright (C) 2026 gst-cudasync developers
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * cudasyncipcsrc's connection: the handshake, the sink's messages, the
 * imported frames and the copies out of them. The frames lent downstream
 * are gstcudaipcloan.c's; locks: gstcudaipcclient-private.h.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstcudaipcclient-private.h"
#include "gstcudasyncelementerror.h"
#include <gst/cuda/gstcudamemory.h>
#include <errno.h>
#include <poll.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

GST_DEBUG_CATEGORY (gst_cuda_ipc_client_debug);
#define GST_CAT_DEFAULT gst_cuda_ipc_client_debug

/* how long the source's stop lets the sink signal the values its stream
 * waits for, before it rescues the sink's semaphore */
#define STOP_GRACE_US G_USEC_PER_SEC

static void rescue (GstCudaIpcClient * self);

Import *
gst_cuda_ipc_import_ref (Import * imp)
{
  g_atomic_int_inc (&imp->refcount);
  return imp;
}

void
gst_cuda_ipc_import_unref (Import * imp)
{
  if (g_atomic_int_dec_and_test (&imp->refcount)) {
    gst_cuda_sync_vmm_free (imp->vmm);
    g_free (imp);
  }
}

static void
release_import (gpointer imp, const GError * error)
{
  gst_cuda_ipc_import_unref (imp);
}

/* the table's references go once the work enqueued on @stream so far ran
 * (our copies out of them, or downstream's reads of a lent frame); lock
 * held (the streaming thread and the threads that free lent frames push
 * to the one releaser) */
void
gst_cuda_ipc_client_unref_import_after (GstCudaIpcClient * self, Import * imp,
    CUstream stream)
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
drop_imports (GstCudaIpcClient * self)
{
  GHashTableIter it;
  gpointer value;

  g_mutex_lock (&self->lock);
  g_hash_table_iter_init (&it, self->imports);
  while (g_hash_table_iter_next (&it, NULL, &value)) {
    gst_cuda_ipc_client_unref_import_after (self, value, self->stream);
    g_hash_table_iter_steal (&it);
  }
  g_mutex_unlock (&self->lock);
}

/* Our release semaphore, exported to the sink; and the HELLO */
static gboolean
client_hello (GstCudaIpcClient * self, GError ** error)
{
  GstCudaIpcHello hello = { GST_CUDA_IPC_VERSION_MAJOR,
    GST_CUDA_IPC_VERSION_MINOR, GST_CUDA_IPC_ROLE_SOURCE
  };
  GstCudaIpcSemaphore sm = { GST_CUDA_IPC_SEM_RELEASE, 1, 0 };
  gint send_fd = -1;
  gboolean ok;

  self->release = gst_cuda_ipc_semaphore_new (self->context,
      self->config.new_semaphore, self->config.user_data, &send_fd, error);
  ok = self->release && gst_cuda_sync_context_get_uuid (self->context,
      hello.device_uuid, error) && gst_cuda_ipc_send (self->fd,
      GST_CUDA_IPC_MSG_HELLO, &hello, sizeof (hello), NULL, 0, -1, error)
      && gst_cuda_ipc_send (self->fd, GST_CUDA_IPC_MSG_SEMAPHORE, &sm,
      sizeof (sm), NULL, 0, send_fd, error);
  if (send_fd >= 0)
    close (send_fd);
  return ok;
}

GstCudaIpcClient *
gst_cuda_ipc_client_connect (GstCudaContext * context,
    const GstCudaIpcClientConfig * config, GError ** error)
{
  const gchar *path = config->path;
  GstCudaIpcClient *self;
  struct sockaddr_un addr;
  guint uid;
  gint pid;

  GST_DEBUG_CATEGORY_INIT (gst_cuda_ipc_client_debug, "cudasyncipcclient", 0,
      "cudasyncipcsrc's connection");
  memset (&addr, 0, sizeof (addr));
  addr.sun_family = AF_UNIX;
  if (!path || strlen (path) >= sizeof (addr.sun_path)) {
    GST_CUDA_SYNC_SET_ERROR (error, RESOURCE, SETTINGS, ("No valid socket "
            "path was given."), ("socket-path \"%s\"", path ? path : ""));
    return NULL;
  }
  strcpy (addr.sun_path, path);
  self = g_new0 (GstCudaIpcClient, 1);
  self->refcount = 1;
  g_mutex_init (&self->lock);
  self->context = gst_object_ref (context);
  self->config = *config;
  self->config.path = NULL;
  self->config.allowed_uids = NULL;
  self->wake_fd = config->wake_fd;
  self->retry_fd = eventfd (0, EFD_CLOEXEC | EFD_NONBLOCK);
  self->imports = g_hash_table_new (NULL, NULL);
  self->releaser = gst_cuda_sync_releaser_new ("cudaipcsrc");
  self->fd = -1;
  if (self->retry_fd < 0) {
    GST_CUDA_SYNC_SET_ERROR (error, RESOURCE, FAILED, ("Could not create "
            "an event fd."), ("eventfd: %s", g_strerror (errno)));
    goto failed;
  }
  self->fd = socket (AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
  if (self->fd < 0 || connect (self->fd, (struct sockaddr *) &addr,
          sizeof (addr)) != 0) {
    GST_CUDA_SYNC_SET_ERROR (error, RESOURCE, OPEN_READ_WRITE, ("Could not "
            "connect to the sink."), ("%s: %s", path, g_strerror (errno)));
    goto failed;
  }
  /* memory and semaphores only for a sink of an allowed user */
  if (!gst_cuda_ipc_check_peer (self->fd, config->allowed_uids, &uid, &pid,
          error))
    goto failed;
  if (!gst_cuda_ipc_streams_new (context, &self->stream, &self->rescue, error))
    goto failed;
  self->event = gst_cuda_sync_event_new (context, TRUE, error);
  if (!self->event)
    goto failed;
  if (!client_hello (self, error)) {
    /* no sink answered: one dying as we connected closed the connection */
    if (error && *error && gst_cuda_ipc_peer_closed (self->fd)) {
      GError *cause = *error;
      *error = NULL;
      GST_CUDA_SYNC_SET_ERROR (error, RESOURCE, OPEN_READ_WRITE, ("Could "
              "not connect to the sink."), ("%s: the connection closed "
              "during the handshake (%s)", path, cause->message));
      g_error_free (cause);
    }
    goto failed;
  }
  return self;

failed:
  gst_cuda_ipc_client_unref (self);
  return NULL;
}

/* Before the imports go, the stream's waits for the sink's values must
 * end: they normally do at once, but a sink hung (or killed) at this
 * moment never signals them, and its semaphore is rescued after
 * STOP_GRACE_US. A query that fails (the context could not be made
 * current) is tried again: rescuing a live sink's semaphore would put it
 * past the values the sink still signals. */
static void
settle (GstCudaIpcClient * self)
{
  gint64 end = g_get_monotonic_time () + STOP_GRACE_US;
  GstCudaSyncEventStatus st = GST_CUDA_SYNC_EVENT_PENDING;

  if (!self->acquire || !self->event || self->rescued ||
      !gst_cuda_sync_event_record (self->event, self->stream, NULL))
    return;
  while (g_get_monotonic_time () < end &&
      (st = gst_cuda_sync_event_query (self->event, NULL)) !=
      GST_CUDA_SYNC_EVENT_COMPLETE)
    g_usleep (1000);
  if (st != GST_CUDA_SYNC_EVENT_COMPLETE)
    rescue (self);
}

/* the connection is over: no more messages, and no more release signals
 * (release_loan()) */
static void
disconnect (GstCudaIpcClient * self)
{
  g_mutex_lock (&self->lock);
  if (self->fd >= 0)
    close (self->fd);
  self->fd = -1;
  g_mutex_unlock (&self->lock);
}

/* lock held */
void
gst_cuda_ipc_client_say_bye (GstCudaIpcClient * self)
{
  GstCudaIpcBye bye = { 0, 0 };

  gst_cuda_ipc_send (self->fd, GST_CUDA_IPC_MSG_BYE, &bye, sizeof (bye),
      NULL, 0, -1, NULL);
  close (self->fd);
  self->fd = -1;
}

void
gst_cuda_ipc_client_close (GstCudaIpcClient * self)
{
  GError *err = NULL;

  if (!gst_cuda_ipc_client_retry_releases (self, &err)) {
    /* the frames stay the session's: the sink rescues them at its stop */
    GST_WARNING ("frames not released at the stop: %s", err->message);
    g_clear_error (&err);
  }
  g_mutex_lock (&self->lock);
  if (self->fd >= 0 && self->n_lent > 0 && self->sink_minor >= 1) {
    /* frames are still lent downstream: the sink sends no more, but keeps
     * those until they are released; the last one's return says BYE */
    if (!self->draining)
      self->draining = gst_cuda_ipc_send (self->fd, GST_CUDA_IPC_MSG_DRAIN,
          NULL, 0, NULL, 0, -1, NULL);
  }
  if (self->fd >= 0 && !self->draining) {
    /* (a sink of protocol 1.0 may write into frames still lent) */
    if (self->n_lent > 0)
      GST_WARNING ("%u frames still lent to a sink that cannot keep them",
          self->n_lent);
    gst_cuda_ipc_client_say_bye (self);
  }
  g_mutex_unlock (&self->lock);
  if (self->stream) {
    settle (self);
    drop_imports (self);
  }
}

GstCudaIpcClient *
gst_cuda_ipc_client_ref (GstCudaIpcClient * self)
{
  g_atomic_int_inc (&self->refcount);
  return self;
}

/* the last reference: the element's, or that of the last frame lent */
void
gst_cuda_ipc_client_unref (GstCudaIpcClient * self)
{
  if (!g_atomic_int_dec_and_test (&self->refcount))
    return;
  gst_cuda_ipc_client_close (self);
  g_hash_table_unref (self->imports);
  /* waits for the events: the copies out of the imports and the reads of
   * the frames lent ran */
  gst_cuda_sync_releaser_free (self->releaser);
  gst_clear_object (&self->acquire);
  gst_clear_object (&self->release);
  g_clear_pointer (&self->event, gst_cuda_sync_event_unref);
  gst_cuda_ipc_streams_free (self->context, self->stream, self->rescue);
  gst_object_unref (self->context);
  if (self->retry_fd >= 0)
    close (self->retry_fd);
  g_mutex_clear (&self->lock);
  g_free (self);
}

/* The sink vanished or broke the protocol: its signals for the values it
 * announced may never come. Signal its semaphore far past them on a stream nothing waits
 * behind, so that our stream's waits end; the frames already pushed may
 * hold what the memory held then. */
static void
rescue (GstCudaIpcClient * self)
{
  GError *err = NULL;

  if (!self->acquire || self->rescued || !gst_cuda_context_push (self->context))
    return;
  self->rescued = TRUE;
  if (gst_cuda_semaphore_signal_value (self->acquire, self->rescue,
          self->acquire_last + GST_CUDA_IPC_RESCUE_STEP, &err))
    self->counters.rescues++;
  else
    GST_WARNING ("rescue signal failed: %s", err->message);
  g_clear_error (&err);
  gst_cuda_context_pop (NULL);
}

/* the sink broke the protocol: it is as good as gone */
static gboolean
invalid (GstCudaIpcClient * self, GError ** error, const gchar * what,
    guint type)
{
  self->sink_broke = TRUE;
  GST_CUDA_SYNC_SET_ERROR (error, STREAM, DECODE, ("The sink sent an "
          "invalid message."), ("message type %u: %s", type, what));
  return FALSE;
}

static gboolean
handle_buffer (GstCudaIpcClient * self, GstCudaIpcMsg * msg, GError ** error)
{
  const GstCudaIpcBuffer *b = (const void *) msg->body;
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
gst_cuda_ipc_client_order_downstream (GstCudaIpcClient * self, GError ** error)
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
copy_out (GstCudaIpcClient * self, GstCudaSyncVmm * vmm,
    const GstCudaIpcFrame * f, GstBuffer * out, GError ** error)
{
  CUdeviceptr src = gst_cuda_sync_vmm_get_pointer (vmm);
  GstVideoFrame frame;
  gboolean ok;
  guint i;

  ok = gst_cuda_semaphore_wait (self->acquire, self->stream,
      f->acquire_value, error);
  self->counters.waits += ok;
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
  return ok && gst_cuda_ipc_client_order_downstream (self, error);
}

/* whether the sink closed its end (it stopped, or dropped us, and may have
 * rescued our semaphore): nothing more is signalled or sent (lock held) */
static gboolean
sink_closed (GstCudaIpcClient * self, const GError * err)
{
  if (!self->sink_closed && gst_cuda_ipc_peer_closed (self->fd)) {
    GST_INFO ("the sink closed its end%s%s: nothing more is released",
        err ? ": " : "", err ? err->message : "");
    self->sink_closed = TRUE;
  }
  return self->sink_closed;
}

/* The next value of our release semaphore, signalled on @stream, sent to
 * the sink for frame @id, while the sink's end is open (lock held, context
 * pushed) */
GstCudaIpcReleaseResult
gst_cuda_ipc_client_release (GstCudaIpcClient * self, CUstream stream,
    guint32 id, GError ** error)
{
  GstCudaIpcRelease rel = { id, 0, 0 };
  GError *err = NULL;

  if (self->fd < 0 || sink_closed (self, NULL))
    return GST_CUDA_IPC_RELEASE_DONE;
  if (!gst_cuda_semaphore_signal (self->release, stream, &rel.release_value,
          &err)) {
    /* (below a rescue that ran meanwhile) */
    if (sink_closed (self, err)) {
      g_clear_error (&err);
      return GST_CUDA_IPC_RELEASE_DONE;
    }
    g_propagate_error (error, err);
    return GST_CUDA_IPC_RELEASE_NOT_SIGNALLED;
  }
  self->counters.signals++;
  if (gst_cuda_ipc_send (self->fd, GST_CUDA_IPC_MSG_RELEASE, &rel,
          sizeof (rel), NULL, 0, -1, &err)) {
    GST_LOG ("frame %u released at value %" G_GUINT64_FORMAT, id,
        rel.release_value);
    self->counters.releases++;
    return GST_CUDA_IPC_RELEASE_DONE;
  }
  if (sink_closed (self, err)) {
    g_clear_error (&err);
    return GST_CUDA_IPC_RELEASE_DONE;
  }
  g_propagate_error (error, err);
  return GST_CUDA_IPC_RELEASE_NOT_SENT;
}

/* the copy into a buffer of @pool, released to the sink at once */
static GstBuffer *
copy_frame (GstCudaIpcClient * self, Import * imp, const GstCudaIpcFrame * f,
    GstBufferPool * pool, GError ** error)
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
  ok = ok && gst_cuda_ipc_client_release (self, self->stream, f->id,
      error) == GST_CUDA_IPC_RELEASE_DONE;
  g_mutex_unlock (&self->lock);
  if (!ok)
    gst_clear_buffer (&out);
  return out;
}

static gboolean
handle_frame (GstCudaIpcClient * self, GstCudaIpcMsg * msg,
    GstBufferPool * pool, GstBuffer ** buffer, GError ** error)
{
  const GstCudaIpcFrame *f = (const void *) msg->body;
  Import *imp = g_hash_table_lookup (self->imports, GUINT_TO_POINTER (f->id));
  GstBuffer *out;

  if (!imp || !self->acquire || f->epoch != self->epoch ||
      f->acquire_value <= self->acquire_last ||
      f->acquire_value >= GST_CUDA_IPC_MAX_VALUE || f->reserved ||
      (f->flags & ~GST_CUDA_IPC_FRAME_FLAGS))
    return invalid (self, error,
        "unknown id or epoch, or a value that does not " "grow", msg->hdr.type);
  self->acquire_last = f->acquire_value;
  GST_LOG ("frame %u at acquire value %" G_GUINT64_FORMAT "%s", f->id,
      f->acquire_value, self->lend ? ", lent" : "");
  if (!gst_cuda_context_push (self->context)) {
    g_set_error (error, GST_CUDA_SYNC_ERROR, GST_CUDA_SYNC_ERROR_DRIVER,
        "Could not make the CUDA context current");
    return FALSE;
  }
  out = self->lend ? gst_cuda_ipc_client_lend_frame (self, imp, f, error) :
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
handle (GstCudaIpcClient * self, GstCudaIpcMsg * msg, GstBufferPool * pool,
    GstBuffer ** buffer, GstCaps ** caps, GError ** error)
{
  const GstCudaIpcSemaphore *sm = (const void *) msg->body;

  if (!self->got_hello) {
    if (!gst_cuda_ipc_check_hello (msg, GST_CUDA_IPC_ROLE_SINK, error)) {
      self->sink_broke = TRUE;
      return GST_CUDA_IPC_CLIENT_ERROR;
    }
    self->got_hello = TRUE;
    self->max_buffers = ((const GstCudaIpcHello *) msg->body)->max_buffers;
    self->sink_minor = ((const GstCudaIpcHello *) msg->body)->version_minor;
    return -1;
  }
  switch (msg->hdr.type) {
    case GST_CUDA_IPC_MSG_SEMAPHORE:
      if (self->acquire || sm->purpose != GST_CUDA_IPC_SEM_ACQUIRE ||
          sm->handle_type != 1 || sm->initial_value >= GST_CUDA_IPC_MAX_VALUE)
        break;
      self->acquire = gst_cuda_semaphore_import_fd (self->context,
          GST_CUDA_SEMAPHORE_HANDLE_TYPE_TIMELINE_FD, msg->fd, error);
      if (!self->acquire)
        return GST_CUDA_IPC_CLIENT_ERROR;
      gst_cuda_ipc_msg_take_fd (msg);
      self->acquire_last = sm->initial_value;
      return -1;
    case GST_CUDA_IPC_MSG_CAPS:{
      guint32 epoch = ((const GstCudaIpcCaps *) msg->body)->epoch;
      if ((self->have_caps && epoch <= self->epoch) ||
          !gst_cuda_ipc_parse_caps (msg, caps, &self->layout, error))
        break;
      drop_imports (self);
      self->epoch = epoch;
      self->have_caps = TRUE;
      self->lend = self->config.lend
          && gst_cuda_ipc_layout_wrappable (&self->layout);
      if (self->config.lend && !self->lend)
        GST_INFO ("copying the frames of %" GST_PTR_FORMAT ": GStreamer "
            "cannot wrap device memory, or maps this layout wrongly", *caps);
      return GST_CUDA_IPC_CLIENT_CAPS;
    }
    case GST_CUDA_IPC_MSG_BUFFER:
      return handle_buffer (self, msg, error) ? -1 : GST_CUDA_IPC_CLIENT_ERROR;
    case GST_CUDA_IPC_MSG_FRAME:
      return handle_frame (self, msg, pool, buffer, error) ?
          GST_CUDA_IPC_CLIENT_FRAME : GST_CUDA_IPC_CLIENT_ERROR;
    case GST_CUDA_IPC_MSG_EOS:
      return GST_CUDA_IPC_CLIENT_EOS;
    case GST_CUDA_IPC_MSG_BYE:
      return GST_CUDA_IPC_CLIENT_BYE;
    default:
      break;
  }
  if (error && !*error)
    invalid (self, error, "message out of place", msg->hdr.type);
  self->sink_broke = TRUE;
  return GST_CUDA_IPC_CLIENT_ERROR;
}

GstCudaIpcClientResult
gst_cuda_ipc_client_next (GstCudaIpcClient * self, GstBufferPool * pool,
    GstBuffer ** buffer, GstCaps ** caps, GError ** error)
{
  GstCudaIpcMsg *msg = g_new (GstCudaIpcMsg, 1);
  gint ret = -1;

  while (ret < 0) {
    struct pollfd pfd[3] = { {self->fd, POLLIN, 0}, {self->wake_fd, POLLIN, 0},
    {self->retry_fd, POLLIN, 0}
    };
    gint r;

    if (poll (pfd, 3, -1) < 0 && errno != EINTR) {
      ret = GST_CUDA_IPC_CLIENT_ERROR;
      GST_CUDA_SYNC_SET_ERROR (error, RESOURCE, READ, ("Could not wait for "
              "the sink's messages."), ("poll: %s", g_strerror (errno)));
      break;
    }
    if (pfd[1].revents) {
      ret = GST_CUDA_IPC_CLIENT_FLUSHING;
      break;
    }
    if (pfd[2].revents && !gst_cuda_ipc_client_retry_releases (self, error)) {
      ret = GST_CUDA_IPC_CLIENT_ERROR;
      break;
    }
    if (!pfd[0].revents)
      continue;
    r = gst_cuda_ipc_recv (self->fd, msg, error);
    if (r == 0 && !self->got_hello) {
      GST_CUDA_SYNC_SET_ERROR (error, RESOURCE, OPEN_READ_WRITE,
          ("Could not connect to the sink."), ("the connection closed "
              "before the sink's HELLO"));
      ret = GST_CUDA_IPC_CLIENT_UNANSWERED;
    } else if (r == 0) {
      ret = GST_CUDA_IPC_CLIENT_LOST;
    } else if (r < 0) {
      self->sink_broke = TRUE;
      ret = GST_CUDA_IPC_CLIENT_ERROR;
    } else {
      ret = handle (self, msg, pool, buffer, caps, error);
      gst_cuda_ipc_msg_clear (msg);
    }
  }
  /* A sink that is gone or broke the protocol may never signal the values
   * it announced, and no longer waits for ours: its semaphore is rescued,
   * and ours is signalled no more (the sink may have rescued it past our
   * next values). After a failure of our own the sink is alive: the stop
   * says BYE (or DRAIN) as usual, and rescues only a sink that does not
   * signal within the grace (settle()). */
  if (ret == GST_CUDA_IPC_CLIENT_LOST ||
      (ret == GST_CUDA_IPC_CLIENT_ERROR && self->sink_broke)) {
    rescue (self);
    disconnect (self);
  }
  g_free (msg);
  return ret;
}

void
gst_cuda_ipc_client_add_counters (GstCudaIpcClient * self,
    GstCudaIpcClientCounters * sum)
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

/* gst-cudasync
 * Copyright (C) 2026 gst-cudasync developers
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Used by one streaming thread at a time: no lock of its own.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstcudaipcclient.h"
#include "gstcudaipcproto.h"
#include "gstcudasyncelementerror.h"
#include <gst/cudasync/gstcudasync-internal.h>
#include <gst/cuda/cuda-gst.h>
#include <gst/cuda/gstcudamemory.h>
#include <gst/video/video.h>
#include <errno.h>
#include <poll.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

GST_DEBUG_CATEGORY_STATIC (gst_cuda_ipc_client_debug);
#define GST_CAT_DEFAULT gst_cuda_ipc_client_debug

/* how long the source's stop lets the sink signal the values its stream
 * waits for, before it rescues the sink's semaphore */
#define STOP_GRACE_US G_USEC_PER_SEC

struct _GstCudaIpcClient
{
  GstCudaContext *context;
  GstCudaIpcClientConfig config;
  gint fd;
  gint wake_fd;
  CUstream stream;
  CUstream rescue;
  GstCudaSyncEvent *event;
  GstCudaSyncReleaser *releaser;
  gboolean got_hello;
  guint max_buffers;
  GstCudaSemaphore *acquire;    /* the sink's */
  guint64 acquire_last;
  gboolean rescued;
  GstCudaSemaphore *release;    /* ours */
  GHashTable *imports;          /* id -> GstCudaSyncVmm */
  guint32 epoch;
  gboolean have_caps;
  GstVideoInfo layout;
  GstCudaIpcClientCounters counters;
};

static void rescue (GstCudaIpcClient * self);

static void
free_vmm (gpointer vmm, const GError * error)
{
  gst_cuda_sync_vmm_free (vmm);
}

/* imports go once the copies out of them ran (event after them) */
static void
drop_imports (GstCudaIpcClient * self)
{
  GHashTableIter it;
  gpointer value;

  g_hash_table_iter_init (&it, self->imports);
  while (g_hash_table_iter_next (&it, NULL, &value)) {
    GstCudaSyncEvent *ev = gst_cuda_sync_event_new (self->context, TRUE,
        NULL);
    if (ev && gst_cuda_sync_event_record (ev, self->stream, NULL))
      gst_cuda_sync_releaser_push (self->releaser, ev, free_vmm, value);
    else
      gst_cuda_sync_vmm_free (value);
    g_clear_pointer (&ev, gst_cuda_sync_event_unref);
    g_hash_table_iter_steal (&it);
  }
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
  self->context = gst_object_ref (context);
  self->config = *config;
  self->config.path = NULL;
  self->config.allowed_uids = NULL;
  self->wake_fd = config->wake_fd;
  self->imports = g_hash_table_new (NULL, NULL);
  self->releaser = gst_cuda_sync_releaser_new ("cudaipcsrc");
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
  if (!self->event || !client_hello (self, error))
    goto failed;
  return self;

failed:
  gst_cuda_ipc_client_free (self);
  return NULL;
}

/* Before the imports go, the stream's waits for the sink's values must
 * end: they normally do at once, but a sink hung (or killed) at this
 * moment never signals them, and its semaphore is rescued after
 * STOP_GRACE_US */
static void
settle (GstCudaIpcClient * self)
{
  gint64 end = g_get_monotonic_time () + STOP_GRACE_US;
  GstCudaSyncEventStatus st;

  if (!self->acquire || !self->event || self->rescued ||
      !gst_cuda_sync_event_record (self->event, self->stream, NULL))
    return;
  while ((st = gst_cuda_sync_event_query (self->event, NULL)) ==
      GST_CUDA_SYNC_EVENT_PENDING && g_get_monotonic_time () < end)
    g_usleep (1000);
  if (st != GST_CUDA_SYNC_EVENT_COMPLETE)
    rescue (self);
}

void
gst_cuda_ipc_client_close (GstCudaIpcClient * self)
{
  GstCudaIpcBye bye = { 0, 0 };

  if (self->fd >= 0) {
    gst_cuda_ipc_send (self->fd, GST_CUDA_IPC_MSG_BYE, &bye, sizeof (bye),
        NULL, 0, -1, NULL);
    close (self->fd);
  }
  self->fd = -1;
  if (self->stream) {
    settle (self);
    drop_imports (self);
  }
}

void
gst_cuda_ipc_client_free (GstCudaIpcClient * self)
{
  gst_cuda_ipc_client_close (self);
  g_hash_table_unref (self->imports);
  /* waits for the events: the copies out of the imports ran */
  gst_cuda_sync_releaser_free (self->releaser);
  gst_clear_object (&self->acquire);
  gst_clear_object (&self->release);
  g_clear_pointer (&self->event, gst_cuda_sync_event_unref);
  gst_cuda_ipc_streams_free (self->context, self->stream, self->rescue);
  gst_object_unref (self->context);
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

static gboolean
invalid (GError ** error, const gchar * what, guint type)
{
  GST_CUDA_SYNC_SET_ERROR (error, STREAM, DECODE, ("The sink sent an "
          "invalid message."), ("message type %u: %s", type, what));
  return FALSE;
}

static gboolean
handle_buffer (GstCudaIpcClient * self, GstCudaIpcMsg * msg, GError ** error)
{
  const GstCudaIpcBuffer *b = (const void *) msg->body;
  GstCudaSyncVmm *vmm;

  if (!self->have_caps || b->epoch != self->epoch || b->id == 0 ||
      g_hash_table_contains (self->imports, GUINT_TO_POINTER (b->id)) ||
      g_hash_table_size (self->imports) >= self->max_buffers ||
      b->alloc_size < self->layout.size ||
      b->alloc_size > G_GUINT64_CONSTANT (1) << 34)
    return invalid (error, "unknown epoch, known id, too many buffers or "
        "a size that does not hold the layout", msg->hdr.type);
  vmm = gst_cuda_sync_vmm_import_fd (self->context, msg->fd, b->alloc_size,
      error);
  if (!vmm)
    return FALSE;
  g_hash_table_insert (self->imports, GUINT_TO_POINTER (b->id), vmm);
  return TRUE;
}

/* stream order: the sink's signal, the copy, our release signal; then
 * the legacy default stream (which the blocking streams of downstream
 * CUDA elements follow) waits for the copy, or, with cpu_wait, the CPU
 * does (context pushed) */
static gboolean
copy_out (GstCudaIpcClient * self, GstCudaSyncVmm * vmm,
    const GstCudaIpcFrame * f, GstBuffer * out, guint64 * release,
    GError ** error)
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
  if (!ok || !gst_cuda_semaphore_signal (self->release, self->stream,
          release, error))
    return FALSE;
  self->counters.signals++;
  if (self->config.cpu_wait) {
    /* the one CPU-synchronising call of the source, counted */
    CUresult r = CuStreamSynchronize (self->stream);
    self->counters.cpu_syncs++;
    return gst_cuda_sync_check_result (r, "cuStreamSynchronize", error);
  }
  return gst_cuda_sync_event_record (self->event, self->stream, error) &&
      gst_cuda_sync_event_wait_gpu (self->event, NULL, error);
}

static gboolean
handle_frame (GstCudaIpcClient * self, GstCudaIpcMsg * msg,
    GstBufferPool * pool, GstBuffer ** buffer, GError ** error)
{
  const GstCudaIpcFrame *f = (const void *) msg->body;
  GstCudaIpcRelease rel = { f->id, 0, 0 };
  GstCudaSyncVmm *vmm = g_hash_table_lookup (self->imports,
      GUINT_TO_POINTER (f->id));
  GstBuffer *out = NULL;
  gboolean ok;

  if (!vmm || !self->acquire || f->epoch != self->epoch ||
      f->acquire_value <= self->acquire_last ||
      f->acquire_value >= GST_CUDA_IPC_MAX_VALUE || f->reserved ||
      (f->flags & ~GST_CUDA_IPC_FRAME_FLAGS))
    return invalid (error, "unknown id or epoch, or a value that does not "
        "grow", msg->hdr.type);
  self->acquire_last = f->acquire_value;
  if (gst_buffer_pool_acquire_buffer (pool, &out, NULL) != GST_FLOW_OK) {
    GST_CUDA_SYNC_SET_ERROR (error, RESOURCE, FAILED, ("Could not get an "
            "output buffer."), ("gst_buffer_pool_acquire_buffer"));
    return FALSE;
  }
  if (!gst_cuda_context_push (self->context)) {
    gst_buffer_unref (out);
    g_set_error (error, GST_CUDA_SYNC_ERROR, GST_CUDA_SYNC_ERROR_DRIVER,
        "Could not make the CUDA context current");
    return FALSE;
  }
  ok = copy_out (self, vmm, f, out, &rel.release_value, error);
  gst_cuda_context_pop (NULL);
  if (!ok || !gst_cuda_ipc_send (self->fd, GST_CUDA_IPC_MSG_RELEASE, &rel,
          sizeof (rel), NULL, 0, -1, error)) {
    gst_buffer_unref (out);
    return FALSE;
  }
  self->counters.releases++;
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
    if (!gst_cuda_ipc_check_hello (msg, GST_CUDA_IPC_ROLE_SINK, error))
      return GST_CUDA_IPC_CLIENT_ERROR;
    self->got_hello = TRUE;
    self->max_buffers = ((const GstCudaIpcHello *) msg->body)->max_buffers;
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
    invalid (error, "message out of place", msg->hdr.type);
  return GST_CUDA_IPC_CLIENT_ERROR;
}

GstCudaIpcClientResult
gst_cuda_ipc_client_next (GstCudaIpcClient * self, GstBufferPool * pool,
    GstBuffer ** buffer, GstCaps ** caps, GError ** error)
{
  GstCudaIpcMsg *msg = g_new (GstCudaIpcMsg, 1);
  gint ret = -1;

  while (ret < 0) {
    struct pollfd pfd[2] = { {self->fd, POLLIN, 0}, {self->wake_fd, POLLIN, 0}
    };
    gint r;

    if (poll (pfd, 2, -1) < 0 && errno != EINTR) {
      ret = GST_CUDA_IPC_CLIENT_ERROR;
      invalid (error, g_strerror (errno), 0);
      break;
    }
    if (pfd[1].revents) {
      ret = GST_CUDA_IPC_CLIENT_FLUSHING;
      break;
    }
    if (!pfd[0].revents)
      continue;
    r = gst_cuda_ipc_recv (self->fd, msg, error);
    if (r == 0) {
      rescue (self);
      ret = GST_CUDA_IPC_CLIENT_LOST;
    } else if (r < 0) {
      ret = GST_CUDA_IPC_CLIENT_ERROR;
    } else {
      ret = handle (self, msg, pool, buffer, caps, error);
      gst_cuda_ipc_msg_clear (msg);
    }
  }
  /* a sink that breaks the protocol is as good as gone: its pending
   * signals are not waited for */
  if (ret == GST_CUDA_IPC_CLIENT_ERROR)
    rescue (self);
  g_free (msg);
  return ret;
}

void
gst_cuda_ipc_client_add_counters (GstCudaIpcClient * self,
    GstCudaIpcClientCounters * sum)
{
  sum->frames += self->counters.frames;
  sum->waits += self->counters.waits;
  sum->signals += self->counters.signals;
  sum->copies += self->counters.copies;
  sum->releases += self->counters.releases;
  sum->rescues += self->counters.rescues;
  sum->cpu_syncs += self->counters.cpu_syncs;
}

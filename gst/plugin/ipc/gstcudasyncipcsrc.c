/* gst-cudasync
 * Copyright (C) 2026 gst-cudasync developers
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
/**
 * SECTION:element-cudasyncipcsrc
 * @title: cudasyncipcsrc
 *
 * Receives CUDA frames from a cudasyncipcsink of another process over the
 * unix socket #GstCudaSyncIpcSrc:socket-path (docs/ipc-protocol.md). The
 * sink's user id must be in #GstCudaSyncIpcSrc:allowed-uids.
 *
 * For each frame the source's CUDA stream waits on the GPU for the sink's
 * semaphore value, copies the frame out of the shared memory into a buffer
 * of its own pool, signals its own release semaphore after the copy and
 * tells the sink that value; the legacy default stream then waits for the
 * copy, so that downstream CUDA elements (blocking streams) read the frame
 * after it. No CPU wait anywhere. With #GstCudaSyncIpcSrc:io-mode `import`
 * the source pushes the shared memory itself, without a copy, and releases
 * it to the sink when downstream frees it. Caps come from the sink (renegotiation
 * included); timestamps and flags travel with each frame.
 *
 * When the sink goes away: on its EOS the source pushes EOS; when the sink
 * stops or is killed the source posts an error, pushes EOS, or connects
 * again (#GstCudaSyncIpcSrc:peer-lost). A sink that vanished without
 * goodbye may leave our GPU waiting for values it will never signal: the
 * source signals that semaphore itself, far past the last value announced,
 * on a stream of its own (`rescues` in #GstCudaSyncIpcSrc:stats). A thread
 * of the source's own watches those values, so that this also happens
 * while downstream waits for them on the CPU (cudadownload, or
 * #GstCudaSyncIpcSrc:wait-mode `cpu`) and the streaming thread with it:
 * when the sink's connection closed and they are not reached within a
 * second, and when none is reached within #GstCudaSyncIpcSrc:timeout (a
 * sink frozen with its connection open, which counts as lost), and a second
 * into a stop or flush that such a wait downstream would hold. A sink that
 * does not greet within that time is a failed connection; one that
 * closes the connection before its greeting may not allow this user.
 *
 * The source's release semaphore, a timeline semaphore made at each
 * connection, comes from the application's handler of the `new-semaphore`
 * signal. Without a handler, the source exports it from the Vulkan device
 * whose UUID is the CUDA device's, and posts an error where that device
 * exports no timeline semaphores (Mesa lavapipe, or a plugin built without
 * libvulkan). `gst-launch-1.0`, which connects no signal, runs the source
 * only on a GPU whose Vulkan driver exports them (the NVIDIA driver).
 *
 * ## Example launch line
 * |[
 * gst-launch-1.0 cudasyncipcsrc socket-path=/run/user/1000/cam.sock ! cudadownload ! autovideosink
 * ]| On an NVIDIA GPU; elsewhere an application connects `new-semaphore`.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstcudasyncipcsrc.h"
#include "gstcudasyncipcclient.h"
#include "gstcudasyncelementerror.h"
#include "gstcudasyncstats.h"
#include <gst/cuda/gstcudabufferpool.h>
#include <gst/cuda/gstcudamemory.h>
#include <gst/cuda/gstcudautils.h>
#include <gst/cudasync/cudasync.h>
#include <gst/video/video.h>
#include <errno.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <unistd.h>

GST_DEBUG_CATEGORY_STATIC (gst_cuda_sync_ipc_src_debug);
#define GST_CAT_DEFAULT gst_cuda_sync_ipc_src_debug

#define GST_TYPE_CUDA_SYNC_IPC_PEER_LOST (gst_cuda_sync_ipc_peer_lost_get_type ())
typedef enum
{
  GST_CUDA_SYNC_IPC_PEER_LOST_ERROR,
  GST_CUDA_SYNC_IPC_PEER_LOST_EOS,
  GST_CUDA_SYNC_IPC_PEER_LOST_RECONNECT,
} GstCudaSyncIpcPeerLost;
static GType gst_cuda_sync_ipc_peer_lost_get_type (void);
G_DEFINE_ENUM_TYPE (GstCudaSyncIpcPeerLost, gst_cuda_sync_ipc_peer_lost,
    G_DEFINE_ENUM_VALUE (GST_CUDA_SYNC_IPC_PEER_LOST_ERROR, "error"),
    G_DEFINE_ENUM_VALUE (GST_CUDA_SYNC_IPC_PEER_LOST_EOS, "eos"),
    G_DEFINE_ENUM_VALUE (GST_CUDA_SYNC_IPC_PEER_LOST_RECONNECT, "reconnect"));

#define GST_TYPE_CUDA_SYNC_IPC_WAIT_MODE (gst_cuda_sync_ipc_wait_mode_get_type ())
typedef enum
{
  GST_CUDA_SYNC_IPC_WAIT_MODE_GPU,
  GST_CUDA_SYNC_IPC_WAIT_MODE_CPU,
} GstCudaSyncIpcWaitMode;
static GType gst_cuda_sync_ipc_wait_mode_get_type (void);
G_DEFINE_ENUM_TYPE (GstCudaSyncIpcWaitMode, gst_cuda_sync_ipc_wait_mode,
    G_DEFINE_ENUM_VALUE (GST_CUDA_SYNC_IPC_WAIT_MODE_GPU, "gpu"),
    G_DEFINE_ENUM_VALUE (GST_CUDA_SYNC_IPC_WAIT_MODE_CPU, "cpu"));

#define GST_TYPE_CUDA_SYNC_IPC_IO_MODE (gst_cuda_sync_ipc_io_mode_get_type ())
typedef enum
{
  GST_CUDA_SYNC_IPC_IO_MODE_COPY,
  GST_CUDA_SYNC_IPC_IO_MODE_IMPORT,
} GstCudaSyncIpcIoMode;
static GType gst_cuda_sync_ipc_io_mode_get_type (void);
G_DEFINE_ENUM_TYPE (GstCudaSyncIpcIoMode, gst_cuda_sync_ipc_io_mode,
    G_DEFINE_ENUM_VALUE (GST_CUDA_SYNC_IPC_IO_MODE_COPY, "copy"),
    G_DEFINE_ENUM_VALUE (GST_CUDA_SYNC_IPC_IO_MODE_IMPORT, "import"));

enum
{
  PROP_0,
  PROP_SOCKET_PATH,
  PROP_ALLOWED_UIDS,
  PROP_PEER_LOST,
  PROP_WAIT_MODE,
  PROP_IO_MODE,
  PROP_CUDA_DEVICE_ID,
  PROP_STATS,
  PROP_TIMEOUT,
};

#define DEFAULT_TIMEOUT (5 * GST_SECOND)

enum
{
  SIGNAL_NEW_SEMAPHORE,
  LAST_SIGNAL,
};
static guint signals[LAST_SIGNAL];

struct _GstCudaSyncIpcSrc
{
  GstPushSrc parent;

  GMutex lock;                  /* properties and counters */
  gchar *socket_path;
  gchar *allowed_uids;
  GstCudaSyncIpcPeerLost peer_lost;
  GstCudaSyncIpcWaitMode wait_mode;
  GstCudaSyncIpcIoMode io_mode;
  gint device_id;
  GstClockTime timeout;
  GstCudaContext *context;
  gint wake_fd;
  GstCudaSyncIpcClient *client; /* the streaming thread's */
  GstCaps *caps;                /* the sink's, NULL before the first */
  GstCudaSyncIpcClientCounters done;    /* of closed connections */
  guint64 connections, lost;
};

static GstStaticPadTemplate src_template = GST_STATIC_PAD_TEMPLATE ("src",
    GST_PAD_SRC, GST_PAD_ALWAYS,
    GST_STATIC_CAPS (GST_VIDEO_CAPS_MAKE_WITH_FEATURES
        (GST_CAPS_FEATURE_MEMORY_CUDA_MEMORY, GST_VIDEO_FORMATS_ALL)));

/* the stats structure's fields (make_stats()), described */
static const GstCudaSyncStatsField stats_fields[] = {
  {"frames", "frames pushed"},
  {"waits", "GPU waits for the sink's semaphore values"},
  {"signals", "signals of the source's release semaphore"},
  {"copies", "frames copied out of the sink's memory"},
  {"lent", "frames pushed as the sink's memory itself (io-mode=import)"},
  {"releases", "release values sent back to the sink"},
  {"rescues", "signals of a vanished sink's semaphore by the source"},
  {"cpu-syncs", "CPU-synchronising CUDA calls: one per frame with "
        "wait-mode=cpu, none otherwise"},
  {"connections", "connections made to a sink"},
  {"peers-lost", "sinks gone without goodbye"},
  {NULL, NULL}
};

#define gst_cuda_sync_ipc_src_parent_class parent_class
G_DEFINE_TYPE (GstCudaSyncIpcSrc, gst_cuda_sync_ipc_src, GST_TYPE_PUSH_SRC);
GST_ELEMENT_REGISTER_DEFINE (cudasyncipcsrc, "cudasyncipcsrc", GST_RANK_NONE,
    GST_TYPE_CUDA_SYNC_IPC_SRC);

static GstStructure *
make_stats (GstCudaSyncIpcSrc * self)
{
  GstCudaSyncIpcClientCounters c = self->done;

  if (self->client)
    gst_cuda_sync_ipc_client_add_counters (self->client, &c);
  return gst_structure_new ("application/x-cudasyncipcsrc-stats",
      "frames", G_TYPE_UINT64, c.frames, "waits", G_TYPE_UINT64, c.waits,
      "signals", G_TYPE_UINT64, c.signals, "copies", G_TYPE_UINT64, c.copies,
      "lent", G_TYPE_UINT64, c.lent,
      "releases", G_TYPE_UINT64, c.releases,
      "rescues", G_TYPE_UINT64, c.rescues,
      "cpu-syncs", G_TYPE_UINT64, c.cpu_syncs,
      "connections", G_TYPE_UINT64, self->connections,
      "peers-lost", G_TYPE_UINT64, self->lost, NULL);
}

static void
gst_cuda_sync_ipc_src_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  GstCudaSyncIpcSrc *self = GST_CUDA_SYNC_IPC_SRC (object);

  g_mutex_lock (&self->lock);
  switch (prop_id) {
    case PROP_SOCKET_PATH:
      g_free (self->socket_path);
      self->socket_path = g_value_dup_string (value);
      break;
    case PROP_ALLOWED_UIDS:
      g_free (self->allowed_uids);
      self->allowed_uids = g_value_dup_string (value);
      break;
    case PROP_PEER_LOST:
      self->peer_lost = g_value_get_enum (value);
      break;
    case PROP_WAIT_MODE:
      self->wait_mode = g_value_get_enum (value);
      break;
    case PROP_IO_MODE:
      self->io_mode = g_value_get_enum (value);
      break;
    case PROP_CUDA_DEVICE_ID:
      self->device_id = g_value_get_int (value);
      break;
    case PROP_TIMEOUT:
      self->timeout = g_value_get_uint64 (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  g_mutex_unlock (&self->lock);
}

static void
gst_cuda_sync_ipc_src_get_property (GObject * object, guint prop_id,
    GValue * value, GParamSpec * pspec)
{
  GstCudaSyncIpcSrc *self = GST_CUDA_SYNC_IPC_SRC (object);

  g_mutex_lock (&self->lock);
  switch (prop_id) {
    case PROP_SOCKET_PATH:
      g_value_set_string (value, self->socket_path);
      break;
    case PROP_ALLOWED_UIDS:
      g_value_set_string (value, self->allowed_uids);
      break;
    case PROP_PEER_LOST:
      g_value_set_enum (value, self->peer_lost);
      break;
    case PROP_WAIT_MODE:
      g_value_set_enum (value, self->wait_mode);
      break;
    case PROP_IO_MODE:
      g_value_set_enum (value, self->io_mode);
      break;
    case PROP_CUDA_DEVICE_ID:
      g_value_set_int (value, self->device_id);
      break;
    case PROP_TIMEOUT:
      g_value_set_uint64 (value, self->timeout);
      break;
    case PROP_STATS:
      g_value_take_boxed (value, make_stats (self));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  g_mutex_unlock (&self->lock);
}

static void
gst_cuda_sync_ipc_src_set_context (GstElement * element, GstContext * ctx)
{
  GstCudaSyncIpcSrc *self = GST_CUDA_SYNC_IPC_SRC (element);

  gst_cuda_handle_set_context (element, ctx, self->device_id, &self->context);
  GST_ELEMENT_CLASS (parent_class)->set_context (element, ctx);
}

static gboolean
gst_cuda_sync_ipc_src_query (GstBaseSrc * src, GstQuery * query)
{
  GstCudaSyncIpcSrc *self = GST_CUDA_SYNC_IPC_SRC (src);

  if (GST_QUERY_TYPE (query) == GST_QUERY_CONTEXT &&
      gst_cuda_handle_context_query (GST_ELEMENT (src), query, self->context))
    return TRUE;
  return GST_BASE_SRC_CLASS (parent_class)->query (src, query);
}

static gboolean
gst_cuda_sync_ipc_src_start (GstBaseSrc * src)
{
  GstCudaSyncIpcSrc *self = GST_CUDA_SYNC_IPC_SRC (src);
  GError *err = NULL;

  if (!gst_cuda_sync_init (&err)) {
    GST_CUDA_SYNC_ELEMENT_ERROR (self, err, "The CUDA driver is not usable.");
    return FALSE;
  }
  if (!gst_cuda_ensure_element_context (GST_ELEMENT (self), self->device_id,
          &self->context)) {
    GST_ELEMENT_ERROR (self, RESOURCE, FAILED,
        ("Could not get a CUDA context."), ("device %d", self->device_id));
    return FALSE;
  }
  self->wake_fd = eventfd (0, EFD_CLOEXEC | EFD_NONBLOCK);
  if (self->wake_fd < 0) {
    GST_ELEMENT_ERROR (self, RESOURCE, FAILED, ("Could not create an "
            "eventfd."), ("%s", g_strerror (errno)));
    return FALSE;
  }
  return TRUE;
}

static void
close_client (GstCudaSyncIpcSrc * self)
{
  GstCudaSyncIpcClient *client = self->client;

  if (!client)
    return;
  /* its stop may rescue the sink's semaphore: counted */
  gst_cuda_sync_ipc_client_close (client);
  g_mutex_lock (&self->lock);
  gst_cuda_sync_ipc_client_add_counters (client, &self->done);
  self->client = NULL;
  g_mutex_unlock (&self->lock);
  gst_cuda_sync_ipc_client_unref (client);
}

static gboolean
gst_cuda_sync_ipc_src_stop (GstBaseSrc * src)
{
  GstCudaSyncIpcSrc *self = GST_CUDA_SYNC_IPC_SRC (src);

  close_client (self);
  if (self->wake_fd >= 0)
    close (self->wake_fd);
  self->wake_fd = -1;
  gst_clear_object (&self->context);
  return TRUE;
}

static gboolean
gst_cuda_sync_ipc_src_unlock (GstBaseSrc * src)
{
  GstCudaSyncIpcSrc *self = GST_CUDA_SYNC_IPC_SRC (src);
  guint64 one = 1;

  if (write (self->wake_fd, &one, sizeof (one)) < 0)
    GST_WARNING_OBJECT (self, "wake: %s", g_strerror (errno));
  return TRUE;
}

static gboolean
gst_cuda_sync_ipc_src_unlock_stop (GstBaseSrc * src)
{
  GstCudaSyncIpcSrc *self = GST_CUDA_SYNC_IPC_SRC (src);
  guint64 v;

  if (read (self->wake_fd, &v, sizeof (v)) < 0)
    GST_LOG_OBJECT (self, "nothing to drain");
  return TRUE;
}

static gboolean
gst_cuda_sync_ipc_src_decide_allocation (GstBaseSrc * src, GstQuery * query)
{
  GstCudaSyncIpcSrc *self = GST_CUDA_SYNC_IPC_SRC (src);
  GstBufferPool *pool = NULL;
  GstStructure *config;
  GstVideoInfo info;
  GstCaps *caps;
  guint size, min = 0, max = 0;

  gst_query_parse_allocation (query, &caps, NULL);
  if (!caps)
    return TRUE;                /* before the sink's caps: nothing yet */
  if (!gst_video_info_from_caps (&info, caps))
    return FALSE;
  size = GST_VIDEO_INFO_SIZE (&info);
  if (gst_query_get_n_allocation_pools (query) > 0)
    gst_query_parse_nth_allocation_pool (query, 0, &pool, &size, &min, &max);
  if (pool && (!GST_IS_CUDA_BUFFER_POOL (pool) ||
          GST_CUDA_BUFFER_POOL (pool)->context != self->context))
    gst_clear_object (&pool);
  if (!pool)
    pool = gst_cuda_buffer_pool_new (self->context);
  config = gst_buffer_pool_get_config (pool);
  gst_buffer_pool_config_add_option (config, GST_BUFFER_POOL_OPTION_VIDEO_META);
  gst_buffer_pool_config_set_params (config, caps, size, min, max);
  if (!gst_buffer_pool_set_config (pool, config)) {
    gst_object_unref (pool);
    GST_ELEMENT_ERROR (self, RESOURCE, SETTINGS, ("Could not configure the "
            "CUDA buffer pool."), ("%" GST_PTR_FORMAT, caps));
    return FALSE;
  }
  if (gst_query_get_n_allocation_pools (query) > 0)
    gst_query_set_nth_allocation_pool (query, 0, pool, size, min, max);
  else
    gst_query_add_allocation_pool (query, pool, size, min, max);
  gst_object_unref (pool);
  return TRUE;
}

/* the sink's caps once known; before them nothing is negotiated */
static GstCaps *
gst_cuda_sync_ipc_src_get_caps (GstBaseSrc * src, GstCaps * filter)
{
  GstCudaSyncIpcSrc *self = GST_CUDA_SYNC_IPC_SRC (src);
  GstCaps *caps;

  GST_OBJECT_LOCK (self);
  caps = self->caps ? gst_caps_ref (self->caps) :
      gst_pad_get_pad_template_caps (GST_BASE_SRC_PAD (src));
  GST_OBJECT_UNLOCK (self);
  if (filter) {
    GstCaps *tmp = gst_caps_intersect_full (filter, caps,
        GST_CAPS_INTERSECT_FIRST);
    gst_caps_unref (caps);
    caps = tmp;
  }
  return caps;
}

static gboolean
gst_cuda_sync_ipc_src_negotiate (GstBaseSrc * src)
{
  GstCudaSyncIpcSrc *self = GST_CUDA_SYNC_IPC_SRC (src);
  gboolean known;

  GST_OBJECT_LOCK (self);
  known = self->caps != NULL;
  GST_OBJECT_UNLOCK (self);
  return known ? GST_BASE_SRC_CLASS (parent_class)->negotiate (src) : TRUE;
}

/* the client's semaphore source when the application handles
 * new-semaphore (streaming thread, no lock held) */
static gint
gst_cuda_sync_ipc_src_new_semaphore (gpointer data, GError ** error)
{
  gint fd = -1;

  g_signal_emit (data, signals[SIGNAL_NEW_SEMAPHORE], 0, &fd);
  return fd;
}

/* connects; in reconnect mode retries every 100 ms until flushing */
static GstFlowReturn
connect_client (GstCudaSyncIpcSrc * self)
{
  GstCudaSyncIpcClientConfig config = { 0, };
  GError *err = NULL;

  config.path = self->socket_path;
  config.allowed_uids = self->allowed_uids;
  config.wake_fd = self->wake_fd;
  config.cpu_wait = self->wait_mode == GST_CUDA_SYNC_IPC_WAIT_MODE_CPU;
  config.lend = self->io_mode == GST_CUDA_SYNC_IPC_IO_MODE_IMPORT;
  config.timeout = self->timeout;
  config.pad = GST_BASE_SRC_PAD (self);
  if (g_signal_has_handler_pending (self, signals[SIGNAL_NEW_SEMAPHORE], 0,
          FALSE)) {
    config.new_semaphore = gst_cuda_sync_ipc_src_new_semaphore;
    config.user_data = self;
  }
  for (;;) {
    struct pollfd pfd = { self->wake_fd, POLLIN, 0 };
    self->client =
        gst_cuda_sync_ipc_client_connect (self->context, &config, &err);
    if (self->client) {
      g_mutex_lock (&self->lock);
      self->connections++;
      g_mutex_unlock (&self->lock);
      return GST_FLOW_OK;
    }
    if (self->peer_lost != GST_CUDA_SYNC_IPC_PEER_LOST_RECONNECT ||
        err->domain != GST_RESOURCE_ERROR ||
        err->code != GST_RESOURCE_ERROR_OPEN_READ_WRITE) {
      GST_CUDA_SYNC_ELEMENT_ERROR_FROM (self, err);
      return GST_FLOW_ERROR;
    }
    g_clear_error (&err);
    if (poll (&pfd, 1, 100) > 0)
      return GST_FLOW_FLUSHING;
  }
}

/* the sink stopped (BYE), or vanished or froze (lost; @err: what the
 * client found, taken) */
static GstFlowReturn
peer_gone (GstCudaSyncIpcSrc * self, gboolean lost, GError * err)
{
  close_client (self);
  if (lost) {
    g_mutex_lock (&self->lock);
    self->lost++;
    g_mutex_unlock (&self->lock);
  }
  switch (self->peer_lost) {
    case GST_CUDA_SYNC_IPC_PEER_LOST_RECONNECT:
      break;
    case GST_CUDA_SYNC_IPC_PEER_LOST_ERROR:
      if (lost && err) {
        GST_CUDA_SYNC_ELEMENT_ERROR_FROM (self, err);
        return GST_FLOW_ERROR;
      } else if (lost) {
        GST_ELEMENT_ERROR (self, RESOURCE, READ, ("The sink process "
                "vanished."), ("connection to %s closed without goodbye",
                self->socket_path));
        return GST_FLOW_ERROR;
      }
      return GST_FLOW_EOS;
    default:
      break;
  }
  if (err)
    GST_WARNING_OBJECT (self, "%s", err->message);
  g_clear_error (&err);
  return self->peer_lost == GST_CUDA_SYNC_IPC_PEER_LOST_RECONNECT ?
      GST_FLOW_OK : GST_FLOW_EOS;
}

static GstFlowReturn
gst_cuda_sync_ipc_src_create (GstPushSrc * psrc, GstBuffer ** out)
{
  GstCudaSyncIpcSrc *self = GST_CUDA_SYNC_IPC_SRC (psrc);
  GstBaseSrc *src = GST_BASE_SRC (psrc);
  GstFlowReturn ret = GST_FLOW_OK;

  while (ret == GST_FLOW_OK) {
    GstCudaSyncIpcClientResult r;
    GstBufferPool *pool;
    GstCaps *caps = NULL;
    GError *err = NULL;

    if (!self->client && (ret = connect_client (self)) != GST_FLOW_OK)
      break;
    pool = gst_base_src_get_buffer_pool (src);
    r = gst_cuda_sync_ipc_client_next (self->client, pool, out, &caps, &err);
    gst_clear_object (&pool);
    switch (r) {
      case GST_CUDA_SYNC_IPC_CLIENT_FRAME:
        return GST_FLOW_OK;
      case GST_CUDA_SYNC_IPC_CLIENT_CAPS:
        GST_OBJECT_LOCK (self);
        gst_caps_take (&self->caps, caps);
        GST_OBJECT_UNLOCK (self);
        if (!gst_base_src_negotiate (src)) {
          GST_ELEMENT_ERROR (self, CORE, NEGOTIATION, ("Downstream does not "
                  "accept the sink's caps."), ("%" GST_PTR_FORMAT, self->caps));
          ret = GST_FLOW_NOT_NEGOTIATED;
        }
        break;
      case GST_CUDA_SYNC_IPC_CLIENT_EOS:
        ret = GST_FLOW_EOS;
        break;
      case GST_CUDA_SYNC_IPC_CLIENT_FLUSHING:
        ret = GST_FLOW_FLUSHING;
        break;
      case GST_CUDA_SYNC_IPC_CLIENT_BYE:
      case GST_CUDA_SYNC_IPC_CLIENT_LOST:
      case GST_CUDA_SYNC_IPC_CLIENT_FROZEN:
        ret = peer_gone (self, r != GST_CUDA_SYNC_IPC_CLIENT_BYE, err);
        break;
      case GST_CUDA_SYNC_IPC_CLIENT_UNANSWERED:
        /* a failed connection, not a lost peer: tried again as one */
        close_client (self);
        if (self->peer_lost == GST_CUDA_SYNC_IPC_PEER_LOST_RECONNECT) {
          GST_INFO_OBJECT (self, "%s", err->message);
          g_clear_error (&err);
          break;
        }
        GST_CUDA_SYNC_ELEMENT_ERROR_FROM (self, err);
        ret = GST_FLOW_ERROR;
        break;
      default:
        GST_CUDA_SYNC_ELEMENT_ERROR_FROM (self, err);
        close_client (self);
        ret = GST_FLOW_ERROR;
        break;
    }
  }
  return ret;
}

static void
gst_cuda_sync_ipc_src_finalize (GObject * object)
{
  GstCudaSyncIpcSrc *self = GST_CUDA_SYNC_IPC_SRC (object);

  g_free (self->socket_path);
  g_free (self->allowed_uids);
  gst_clear_caps (&self->caps);
  g_mutex_clear (&self->lock);
  G_OBJECT_CLASS (parent_class)->finalize (object);
}

static void
gst_cuda_sync_ipc_src_class_init (GstCudaSyncIpcSrcClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstBaseSrcClass *src_class = GST_BASE_SRC_CLASS (klass);
  GstPushSrcClass *push_class = GST_PUSH_SRC_CLASS (klass);
  const GParamFlags rw = G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
      GST_PARAM_MUTABLE_READY;

  gobject_class->set_property = gst_cuda_sync_ipc_src_set_property;
  gobject_class->get_property = gst_cuda_sync_ipc_src_get_property;
  gobject_class->finalize = gst_cuda_sync_ipc_src_finalize;

  /**
   * GstCudaSyncIpcSrc:socket-path:
   *
   * The unix socket of the cudasyncipcsink to connect to.
   */
  g_object_class_install_property (gobject_class, PROP_SOCKET_PATH,
      g_param_spec_string ("socket-path", "Socket path",
          "Path of the sink's unix socket", NULL, rw));
  /**
   * GstCudaSyncIpcSrc:allowed-uids:
   *
   * User ids the sink's process may run as, comma-separated; empty (the
   * default) allows only the source's own user, `*` anybody. Nothing is
   * imported from, or sent to, another sink.
   */
  g_object_class_install_property (gobject_class, PROP_ALLOWED_UIDS,
      g_param_spec_string ("allowed-uids", "Allowed uids",
          "Comma-separated user ids the sink may run as (empty: own uid, "
          "*: any)", NULL, rw));
  /**
   * GstCudaSyncIpcSrc:peer-lost:
   *
   * When the sink stops or vanishes: `error` (an error when it vanished
   * without goodbye, EOS when it stopped), `eos`, or `reconnect` (connect
   * again, every 100 ms, until the sink is back; the caps it sends then
   * are negotiated again).
   */
  g_object_class_install_property (gobject_class, PROP_PEER_LOST,
      g_param_spec_enum ("peer-lost", "Peer lost",
          "What to do when the sink stops or vanishes",
          GST_TYPE_CUDA_SYNC_IPC_PEER_LOST, GST_CUDA_SYNC_IPC_PEER_LOST_ERROR,
          rw));
  /**
   * GstCudaSyncIpcSrc:wait-mode:
   *
   * `gpu` (the default): downstream CUDA elements are ordered after each
   * frame's copy on the GPU (the legacy default stream waits for it).
   * `cpu`: the source waits on the CPU for the copy before pushing, for
   * consumers on non-blocking streams of their own (counted in `cpu-syncs`
   * of #GstCudaSyncIpcSrc:stats).
   */
  g_object_class_install_property (gobject_class, PROP_WAIT_MODE,
      g_param_spec_enum ("wait-mode", "Wait mode",
          "Order downstream after each frame on the GPU, or wait on the CPU",
          GST_TYPE_CUDA_SYNC_IPC_WAIT_MODE, GST_CUDA_SYNC_IPC_WAIT_MODE_GPU,
          rw));
  /**
   * GstCudaSyncIpcSrc:io-mode:
   *
   * `copy` (the default): each frame is copied out of the sink's memory
   * into a buffer of the source's pool and released to the sink at once.
   * `import`: the frame pushed is the sink's memory itself, with no copy,
   * and is released to the sink when downstream frees it: the source's
   * release semaphore is then signalled on the legacy default stream, so
   * downstream must have enqueued its reads of the frame on blocking
   * streams (upstream's CUDA elements) or that stream before it frees the
   * buffer, or have waited for them. The sink reuses the memory only
   * after that; frames held downstream count against its max-buffers, also
   * after the source stopped (it then tells the sink to send no more, and
   * says goodbye once the last frame is back).
   * Counted in `lent` of #GstCudaSyncIpcSrc:stats. GStreamer 1.22 cannot
   * wrap device memory: there, and for layouts that GStreamer's CPU map
   * of such memory would read wrongly, the source copies.
   */
  g_object_class_install_property (gobject_class, PROP_IO_MODE,
      g_param_spec_enum ("io-mode", "I/O mode",
          "Copy each frame out of the sink's memory, or push that memory "
          "itself", GST_TYPE_CUDA_SYNC_IPC_IO_MODE,
          GST_CUDA_SYNC_IPC_IO_MODE_COPY, rw));
  /**
   * GstCudaSyncIpcSrc:cuda-device-id:
   *
   * The CUDA device (-1: any, from the pipeline's context).
   */
  g_object_class_install_property (gobject_class, PROP_CUDA_DEVICE_ID,
      g_param_spec_int ("cuda-device-id", "CUDA device id",
          "CUDA device to use (-1: automatic)", -1, G_MAXINT, -1, rw));
  /**
   * GstCudaSyncIpcSrc:timeout:
   *
   * How long, in nanoseconds, the sink may take to send its greeting once
   * connected, and to signal the value of a frame the source waits for
   * while no earlier one is signalled. Past it the sink counts as lost
   * (#GstCudaSyncIpcSrc:peer-lost): a sink that accepts and never greets
   * is a failed connection (an error, or tried again in reconnect mode);
   * a sink whose values stall (its process frozen or hung) has its
   * semaphore rescued by a thread of the source's own, which ends the
   * waits of downstream elements that wait on the CPU behind them. 0: no
   * limit (a killed sink is still found out, a frozen one no longer).
   */
  g_object_class_install_property (gobject_class, PROP_TIMEOUT,
      g_param_spec_uint64 ("timeout", "Timeout",
          "Time the sink may take to greet, and to signal a frame's value, "
          "before it counts as lost (0: no limit)", 0, G_MAXUINT64,
          DEFAULT_TIMEOUT, rw));
  /**
   * GstCudaSyncIpcSrc:stats:
   *
   * The source's counters since it was created, one guint64 field each:
   * the property's description lists them and what each counts. Notified
   * when the source pushes EOS, so that `gst-launch-1.0 -v` prints the
   * final counters.
   */
  g_object_class_install_property (gobject_class, PROP_STATS,
      gst_cuda_sync_stats_param_spec ("Counters of the source", stats_fields));

  /**
   * GstCudaSyncIpcSrc::new-semaphore:
   * @src: the #GstCudaSyncIpcSrc
   *
   * Emitted, from the streaming thread, each time the source connects: it
   * needs an exportable timeline semaphore to signal its releases on. A
   * handler returns a new fd of a timeline semaphore at value 0 that CUDA
   * imports as `CU_EXTERNAL_SEMAPHORE_HANDLE_TYPE_TIMELINE_SEMAPHORE_FD`
   * (a Vulkan timeline semaphore exported as `OPAQUE_FD`, for example);
   * the source takes the fd, and -1 is an error. Without a handler the
   * source makes them itself with Vulkan, on the Vulkan device whose UUID
   * is the CUDA device's, and posts an error where that device cannot
   * export timeline semaphores.
   *
   * Returns: a new semaphore fd, or -1
   */
  signals[SIGNAL_NEW_SEMAPHORE] = g_signal_new ("new-semaphore",
      G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
      G_TYPE_INT, 0);

  gst_element_class_set_static_metadata (element_class,
      "CUDA IPC source with GPU synchronisation", "Source/Video/Hardware",
      "Receives CUDA frames from a cudasyncipcsink of another process, "
      "synchronised with timeline semaphores that the CUDA device's Vulkan "
      "driver exports, or that the application gives (signal "
      "new-semaphore)", "gst-cudasync developers");
  gst_element_class_add_static_pad_template (element_class, &src_template);
  element_class->set_context =
      GST_DEBUG_FUNCPTR (gst_cuda_sync_ipc_src_set_context);
  src_class->start = GST_DEBUG_FUNCPTR (gst_cuda_sync_ipc_src_start);
  src_class->stop = GST_DEBUG_FUNCPTR (gst_cuda_sync_ipc_src_stop);
  src_class->unlock = GST_DEBUG_FUNCPTR (gst_cuda_sync_ipc_src_unlock);
  src_class->unlock_stop =
      GST_DEBUG_FUNCPTR (gst_cuda_sync_ipc_src_unlock_stop);
  src_class->query = GST_DEBUG_FUNCPTR (gst_cuda_sync_ipc_src_query);
  src_class->get_caps = GST_DEBUG_FUNCPTR (gst_cuda_sync_ipc_src_get_caps);
  src_class->negotiate = GST_DEBUG_FUNCPTR (gst_cuda_sync_ipc_src_negotiate);
  src_class->decide_allocation =
      GST_DEBUG_FUNCPTR (gst_cuda_sync_ipc_src_decide_allocation);
  push_class->create = GST_DEBUG_FUNCPTR (gst_cuda_sync_ipc_src_create);
  gst_type_mark_as_plugin_api (GST_TYPE_CUDA_SYNC_IPC_PEER_LOST, 0);
  gst_type_mark_as_plugin_api (GST_TYPE_CUDA_SYNC_IPC_WAIT_MODE, 0);
  gst_type_mark_as_plugin_api (GST_TYPE_CUDA_SYNC_IPC_IO_MODE, 0);
  GST_DEBUG_CATEGORY_INIT (gst_cuda_sync_ipc_src_debug, "cudasyncipcsrc", 0,
      "cudasyncipcsrc");
}

static void
gst_cuda_sync_ipc_src_init (GstCudaSyncIpcSrc * self)
{
  g_mutex_init (&self->lock);
  self->device_id = -1;
  self->timeout = DEFAULT_TIMEOUT;
  self->wake_fd = -1;
  gst_base_src_set_live (GST_BASE_SRC (self), TRUE);
  gst_base_src_set_format (GST_BASE_SRC (self), GST_FORMAT_TIME);
  gst_cuda_sync_stats_notify_at_eos (GST_ELEMENT (self),
      GST_BASE_SRC_PAD (self));
}

/* gst-cudasync
 * Copyright (C) 2026 gst-cudasync developers
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
/**
 * SECTION:element-cudasyncipcsink
 * @title: cudasyncipcsink
 *
 * Sends CUDA frames to other processes (cudasyncipcsrc, or any program that
 * speaks docs/ipc-protocol.md) over a unix socket, synchronised on the GPU:
 * no CPU wait on either side.
 *
 * The sink listens on #GstCudaSyncIpcSink:socket-path (mode
 * #GstCudaSyncIpcSink:socket-mode) and accepts up to
 * #GstCudaSyncIpcSink:max-connections sources at once, whose
 * user id (`SO_PEERCRED`) must be in #GstCudaSyncIpcSink:allowed-uids;
 * nothing is sent to a refused peer. A source is trusted with its own
 * frames, not with the sink: one that does not complete the handshake
 * (#GstCudaSyncIpcSink:handshake-timeout) or holds a frame too long
 * (#GstCudaSyncIpcSink:hold-timeout) is dropped. It copies each frame, on its CUDA
 * stream, into one of a pool of CUDA virtual-memory allocations exported
 * as fds (`cuMemCreate`, POSIX fd handles; each fd is sent once per
 * connection), signals one timeline semaphore per connection after the
 * copy (exported to that source once) and sends the buffer id, the
 * semaphore value and the timestamps. Each source signals its own release
 * semaphore once it no longer reads the memory and sends that value back;
 * before the sink writes into that memory again its stream waits for
 * every such value on the GPU.
 *
 * On GStreamer 1.24+ the sink proposes its shareable frames upstream, as a
 * CUDA buffer pool: CUDA producers that take it (cudaupload,
 * cudaconvertscale, the NVDEC decoders) write each frame in place, and the
 * sink sends it without a copy (`inputs-in-place` in
 * #GstCudaSyncIpcSink:stats). Such a frame is handed out again only once
 * its sources' release values have been reached; while sources hold every
 * frame the pool waits (on-full=wait) or hands out ordinary CUDA memory
 * (on-full=drop). A pool frame kept by upstream counts against
 * #GstCudaSyncIpcSink:max-buffers; the sink keeps no last sample.
 *
 * Other input is copied. It goes back upstream at once when its memory
 * carries a CUDA stream (GStreamer 1.24+ producers write their pool's
 * buffers on it): that stream waits for the copy on the GPU. Other input
 * is kept until the copy has run.
 *
 * The sink allocates up to #GstCudaSyncIpcSink:max-buffers frames per caps
 * and cycles through them, writing the free frame written longest ago. As
 * soon as a frame is free, a stream of the sink waits on the GPU for its
 * sources' release values; the frame is reused once they are reached (a
 * thread of the sink sleeps in a blocking-sync event wait for that). Neither
 * the sink's own stream nor a producer's ever waits for a source. When sources hold every frame the sink
 * waits for a release, or drops the frame (#GstCudaSyncIpcSink:on-full).
 * A source that disconnects without saying goodbye (killed) is dropped at
 * once: the sink signals that source's release semaphore far past its last
 * announced value on a separate stream, so that no wait of its own stays
 * stuck, and its frames are free.
 *
 * The timeline semaphores, one per source, come from the application's
 * handler of the `new-semaphore` signal. Without a handler connected when
 * the sink starts, the sink exports them from the Vulkan device whose UUID
 * is the CUDA device's, and fails to start where that device exports no
 * timeline semaphores (Mesa lavapipe, or a plugin built without libvulkan).
 * `gst-launch-1.0`, which connects no signal, runs the sink only on a GPU
 * whose Vulkan driver exports them (the NVIDIA driver).
 *
 * ## Example launch line
 * |[
 * gst-launch-1.0 videotestsrc ! cudaupload ! cudasyncipcsink socket-path=/run/user/1000/cam.sock
 * ]| On an NVIDIA GPU; elsewhere an application connects `new-semaphore`.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstcudasyncipcsink.h"
#include "gstcudasyncipcserver.h"
#include "gstcudasyncipcsemaphore.h"
#include "gstcudasyncipcsinkpool.h"
#include "gstcudasyncipcsocket.h"
#include <gst/cudasync/gstcudasyncipcproto.h>
#include "gstcudasyncelementerror.h"
#include "gstcudasyncstats.h"
#include <gst/cuda/gstcudamemory.h>
#include <gst/cuda/gstcudautils.h>
#include <gst/cudasync/cudasync.h>

GST_DEBUG_CATEGORY_STATIC (gst_cuda_sync_ipc_sink_debug);
#define GST_CAT_DEFAULT gst_cuda_sync_ipc_sink_debug

#define DEFAULT_SOCKET_MODE 0600
#define DEFAULT_MAX_BUFFERS 8
#define DEFAULT_MAX_CONNECTIONS 64
#define DEFAULT_HANDSHAKE_TIMEOUT (5 * GST_SECOND)
#define DEFAULT_HOLD_TIMEOUT (3 * GST_SECOND)

#define GST_TYPE_CUDA_SYNC_IPC_ON_FULL (gst_cuda_sync_ipc_on_full_get_type ())
typedef enum
{
  GST_CUDA_SYNC_IPC_ON_FULL_WAIT,
  GST_CUDA_SYNC_IPC_ON_FULL_DROP,
} GstCudaSyncIpcOnFull;
static GType gst_cuda_sync_ipc_on_full_get_type (void);
G_DEFINE_ENUM_TYPE (GstCudaSyncIpcOnFull, gst_cuda_sync_ipc_on_full,
    G_DEFINE_ENUM_VALUE (GST_CUDA_SYNC_IPC_ON_FULL_WAIT, "wait"),
    G_DEFINE_ENUM_VALUE (GST_CUDA_SYNC_IPC_ON_FULL_DROP, "drop"));

enum
{
  PROP_0,
  PROP_SOCKET_PATH,
  PROP_SOCKET_MODE,
  PROP_ALLOWED_UIDS,
  PROP_MAX_BUFFERS,
  PROP_ON_FULL,
  PROP_CUDA_DEVICE_ID,
  PROP_STATS,
  PROP_MAX_CONNECTIONS,
  PROP_HANDSHAKE_TIMEOUT,
  PROP_HOLD_TIMEOUT,
};

enum
{
  SIGNAL_NEW_SEMAPHORE,
  LAST_SIGNAL,
};
static guint signals[LAST_SIGNAL];

struct _GstCudaSyncIpcSink
{
  GstBaseSink parent;

  GMutex lock;                  /* properties, server pointer */
  gchar *socket_path;
  guint socket_mode;
  gchar *allowed_uids;
  guint max_buffers;
  GstCudaSyncIpcOnFull on_full;
  gint device_id;
  guint max_connections;
  GstClockTime handshake_timeout, hold_timeout;
  GstCudaContext *context;
  GstCudaSyncIpcServer *server;
  GstStructure *last_stats;     /* of the last server, after stop */
};

static GstStaticPadTemplate sink_template = GST_STATIC_PAD_TEMPLATE ("sink",
    GST_PAD_SINK, GST_PAD_ALWAYS,
    GST_STATIC_CAPS (GST_VIDEO_CAPS_MAKE_WITH_FEATURES
        (GST_CAPS_FEATURE_MEMORY_CUDA_MEMORY, GST_VIDEO_FORMATS_ALL)));

/* the stats structure's fields (gst_cuda_sync_ipc_server_stats()), described */
static const GstCudaSyncStatsField stats_fields[] = {
  {"buffers", "buffers rendered"},
  {"frames-sent", "frames sent, times the sources each went to"},
  {"signals", "signals of the sources' semaphores, one per frame sent"},
  {"waits", "GPU waits for the sources' release values"},
  {"copies", "frames copied into a shareable allocation"},
  {"inputs-held", "inputs kept until the copy out of them ran"},
  {"inputs-ordered", "inputs given back at once, their stream waiting for "
        "the copy on the GPU (GStreamer 1.24+)"},
  {"inputs-in-place", "frames of the pool the sink proposed, sent without "
        "a copy"},
  {"lent", "frames that pool handed out upstream"},
  {"releases", "release values the sources sent back"},
  {"dropped", "frames dropped (on-full=drop)"},
  {"unsent", "frames rendered while no source was connected"},
  {"cpu-syncs", "CPU-synchronising CUDA calls: none while frames flow, one "
        "when the sink stops"},
  {"rescues", "release semaphores the sink signalled itself, for sources "
        "that vanished or were dropped (see the property's documentation)"},
  {"buffers-allocated", "shareable allocations made"},
  {"sessions", "sources connected now"},
  {"sessions-draining", "of those, stopped sources that still hold frames"},
  {"sessions-total", "sources that connected"},
  {"sessions-refused", "peers refused by the credential check"},
  {"sessions-lost", "sources gone without goodbye"},
  {"sessions-failed", "sources refused for want of a semaphore"},
  {"sessions-invalid", "sources dropped for breaking the protocol"},
  {"sessions-over-limit", "connections closed at once (max-connections)"},
  {"handshake-timeouts", "peers dropped without a release semaphore within "
        "handshake-timeout"},
  {"hold-timeouts", "sources dropped and rescued for holding a frame past "
        "hold-timeout"},
  {NULL, NULL}
};

#define gst_cuda_sync_ipc_sink_parent_class parent_class
G_DEFINE_TYPE (GstCudaSyncIpcSink, gst_cuda_sync_ipc_sink, GST_TYPE_BASE_SINK);
GST_ELEMENT_REGISTER_DEFINE (cudasyncipcsink, "cudasyncipcsink",
    GST_RANK_NONE, GST_TYPE_CUDA_SYNC_IPC_SINK);

static void
gst_cuda_sync_ipc_sink_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  GstCudaSyncIpcSink *self = GST_CUDA_SYNC_IPC_SINK (object);

  g_mutex_lock (&self->lock);
  switch (prop_id) {
    case PROP_SOCKET_PATH:
      g_free (self->socket_path);
      self->socket_path = g_value_dup_string (value);
      break;
    case PROP_SOCKET_MODE:
      self->socket_mode =
          gst_cuda_sync_ipc_socket_mode_from_value (g_value_get_uint (value));
      if (self->socket_mode != g_value_get_uint (value))
        GST_WARNING_OBJECT (self, "socket-mode %u read as the octal mode "
            "0%o; write 0%o", g_value_get_uint (value), self->socket_mode,
            self->socket_mode);
      break;
    case PROP_ALLOWED_UIDS:
      g_free (self->allowed_uids);
      self->allowed_uids = g_value_dup_string (value);
      break;
    case PROP_MAX_BUFFERS:
      self->max_buffers = g_value_get_uint (value);
      break;
    case PROP_ON_FULL:
      self->on_full = g_value_get_enum (value);
      break;
    case PROP_CUDA_DEVICE_ID:
      self->device_id = g_value_get_int (value);
      break;
    case PROP_MAX_CONNECTIONS:
      self->max_connections = g_value_get_uint (value);
      break;
    case PROP_HANDSHAKE_TIMEOUT:
      self->handshake_timeout = g_value_get_uint64 (value);
      break;
    case PROP_HOLD_TIMEOUT:
      self->hold_timeout = g_value_get_uint64 (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  g_mutex_unlock (&self->lock);
}

static void
gst_cuda_sync_ipc_sink_get_property (GObject * object, guint prop_id,
    GValue * value, GParamSpec * pspec)
{
  GstCudaSyncIpcSink *self = GST_CUDA_SYNC_IPC_SINK (object);

  g_mutex_lock (&self->lock);
  switch (prop_id) {
    case PROP_SOCKET_PATH:
      g_value_set_string (value, self->socket_path);
      break;
    case PROP_SOCKET_MODE:
      g_value_set_uint (value, self->socket_mode);
      break;
    case PROP_ALLOWED_UIDS:
      g_value_set_string (value, self->allowed_uids);
      break;
    case PROP_MAX_BUFFERS:
      g_value_set_uint (value, self->max_buffers);
      break;
    case PROP_ON_FULL:
      g_value_set_enum (value, self->on_full);
      break;
    case PROP_CUDA_DEVICE_ID:
      g_value_set_int (value, self->device_id);
      break;
    case PROP_MAX_CONNECTIONS:
      g_value_set_uint (value, self->max_connections);
      break;
    case PROP_HANDSHAKE_TIMEOUT:
      g_value_set_uint64 (value, self->handshake_timeout);
      break;
    case PROP_HOLD_TIMEOUT:
      g_value_set_uint64 (value, self->hold_timeout);
      break;
    case PROP_STATS:
      if (self->server)
        g_value_take_boxed (value,
            gst_cuda_sync_ipc_server_stats (self->server));
      else if (self->last_stats)
        g_value_set_boxed (value, self->last_stats);
      else
        g_value_take_boxed (value, gst_cuda_sync_stats_new_zero
            ("application/x-cudasyncipcsink-stats", stats_fields));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  g_mutex_unlock (&self->lock);
}

static void
gst_cuda_sync_ipc_sink_set_context (GstElement * element, GstContext * ctx)
{
  GstCudaSyncIpcSink *self = GST_CUDA_SYNC_IPC_SINK (element);

  gst_cuda_handle_set_context (element, ctx, self->device_id, &self->context);
  GST_ELEMENT_CLASS (parent_class)->set_context (element, ctx);
}

static gboolean
gst_cuda_sync_ipc_sink_query (GstBaseSink * sink, GstQuery * query)
{
  GstCudaSyncIpcSink *self = GST_CUDA_SYNC_IPC_SINK (sink);

  if (GST_QUERY_TYPE (query) == GST_QUERY_CONTEXT &&
      gst_cuda_handle_context_query (GST_ELEMENT (sink), query, self->context))
    return TRUE;
  return GST_BASE_SINK_CLASS (parent_class)->query (sink, query);
}

/* Frames are lent upstream (the sink's pool) while data flows: a lend
 * waiting for sources to release a frame ends when the sink leaves PAUSED,
 * before upstream's state change waits for its streaming thread */
static GstStateChangeReturn
gst_cuda_sync_ipc_sink_change_state (GstElement * element,
    GstStateChange transition)
{
  GstCudaSyncIpcSink *self = GST_CUDA_SYNC_IPC_SINK (element);
  GstStateChangeReturn ret;

  if (transition == GST_STATE_CHANGE_PAUSED_TO_READY) {
    g_mutex_lock (&self->lock);
    if (self->server)
      gst_cuda_sync_ipc_server_set_lending (self->server, FALSE);
    g_mutex_unlock (&self->lock);
  }
  ret = GST_ELEMENT_CLASS (parent_class)->change_state (element, transition);
  if (transition == GST_STATE_CHANGE_READY_TO_PAUSED &&
      ret != GST_STATE_CHANGE_FAILURE) {
    g_mutex_lock (&self->lock);
    if (self->server)
      gst_cuda_sync_ipc_server_set_lending (self->server, TRUE);
    g_mutex_unlock (&self->lock);
  }
  return ret;
}

/* Upstream gets the sink's shareable frames to write into (1.24+, caps
 * already set: the frames are the current caps'), so that the sink sends
 * them without a copy */
static gboolean
gst_cuda_sync_ipc_sink_propose_allocation (GstBaseSink * sink, GstQuery * query)
{
  GstCudaSyncIpcSink *self = GST_CUDA_SYNC_IPC_SINK (sink);
  GstCudaSyncIpcServer *server = NULL;
  GstBufferPool *pool = NULL;
  GstStructure *config;
  GstVideoInfo info;
  GstCaps *caps;
  guint max;

  gst_query_parse_allocation (query, &caps, NULL);
  gst_query_add_allocation_meta (query, GST_VIDEO_META_API_TYPE, NULL);
  g_mutex_lock (&self->lock);
  if (self->server)
    server = gst_cuda_sync_ipc_server_ref (self->server);
  max = self->max_buffers;
  g_mutex_unlock (&self->lock);
  if (server && caps && gst_video_info_from_caps (&info, caps) &&
      gst_cuda_sync_ipc_server_has_caps (server, caps))
    pool = gst_cuda_sync_ipc_sink_pool_new (server, self->context, caps);
  if (server)
    gst_cuda_sync_ipc_server_unref (server);
  if (!pool) {
    GST_DEBUG_OBJECT (self, "no pool proposed for %" GST_PTR_FORMAT, caps);
    return TRUE;
  }
  config = gst_buffer_pool_get_config (pool);
  gst_buffer_pool_config_set_params (config, caps, GST_VIDEO_INFO_SIZE (&info),
      0, max);
  if (gst_buffer_pool_set_config (pool, config))
    gst_query_add_allocation_pool (query, pool, GST_VIDEO_INFO_SIZE (&info),
        0, max);
  gst_object_unref (pool);
  return TRUE;
}

/* the server's semaphore source when the application handles
 * new-semaphore (server thread, no lock held) */
static gint
gst_cuda_sync_ipc_sink_new_semaphore (gpointer data, GError ** error)
{
  gint fd = -1;

  g_signal_emit (data, signals[SIGNAL_NEW_SEMAPHORE], 0, &fd);
  return fd;
}

static gboolean
gst_cuda_sync_ipc_sink_start (GstBaseSink * sink)
{
  GstCudaSyncIpcSink *self = GST_CUDA_SYNC_IPC_SINK (sink);
  GstCudaSyncIpcServerConfig config;
  GstCudaSyncIpcServer *server;
  GError *err = NULL;
  gboolean ok;

  /* the settings first: they are the user's first mistakes */
  g_mutex_lock (&self->lock);
  ok = gst_cuda_sync_ipc_socket_check_settings (self->socket_path,
      self->socket_mode, &err) &&
      gst_cuda_sync_ipc_check_allowed_uids (self->allowed_uids, &err);
  g_mutex_unlock (&self->lock);
  if (!ok) {
    GST_CUDA_SYNC_ELEMENT_ERROR_FROM (self, err);
    return FALSE;
  }
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
  if (g_signal_has_handler_pending (self, signals[SIGNAL_NEW_SEMAPHORE], 0,
          FALSE)) {
    config.new_semaphore = gst_cuda_sync_ipc_sink_new_semaphore;
    config.user_data = self;
  } else if (!gst_cuda_sync_ipc_semaphore_check (self->context, &err)) {
    GST_CUDA_SYNC_ELEMENT_ERROR_FROM (self, err);
    return FALSE;
  } else {
    config.new_semaphore = NULL;
    config.user_data = NULL;
  }
  g_mutex_lock (&self->lock);
  config.path = self->socket_path;
  config.mode = self->socket_mode;
  config.allowed_uids = self->allowed_uids;
  config.max_buffers = self->max_buffers;
  config.drop_when_full = self->on_full == GST_CUDA_SYNC_IPC_ON_FULL_DROP;
  config.max_connections = self->max_connections;
  config.handshake_timeout = self->handshake_timeout;
  config.hold_timeout = self->hold_timeout;
  server = gst_cuda_sync_ipc_server_new (self->context, &config, &err);
  self->server = server;
  g_mutex_unlock (&self->lock);
  if (!server) {
    GST_CUDA_SYNC_ELEMENT_ERROR_FROM (self, err);
    return FALSE;
  }
  return TRUE;
}

static gboolean
gst_cuda_sync_ipc_sink_stop (GstBaseSink * sink)
{
  GstCudaSyncIpcSink *self = GST_CUDA_SYNC_IPC_SINK (sink);
  GstCudaSyncIpcServer *server;

  g_mutex_lock (&self->lock);
  server = self->server;
  g_mutex_unlock (&self->lock);
  if (server) {
    /* counters stay readable after the stop's own synchronisation */
    gst_cuda_sync_ipc_server_stop (server);
    g_mutex_lock (&self->lock);
    g_clear_pointer (&self->last_stats, gst_structure_free);
    self->last_stats = gst_cuda_sync_ipc_server_stats (server);
    self->server = NULL;
    GST_INFO_OBJECT (self, "stopped: %" GST_PTR_FORMAT, self->last_stats);
    g_mutex_unlock (&self->lock);
    gst_cuda_sync_ipc_server_free (server);
  }
  gst_clear_object (&self->context);
  return TRUE;
}

static gboolean
gst_cuda_sync_ipc_sink_set_caps (GstBaseSink * sink, GstCaps * caps)
{
  GstCudaSyncIpcSink *self = GST_CUDA_SYNC_IPC_SINK (sink);
  GError *err = NULL;

  if (!gst_cuda_sync_ipc_server_set_caps (self->server, caps, &err)) {
    GST_CUDA_SYNC_ELEMENT_ERROR_FROM (self, err);
    return FALSE;
  }
  return TRUE;
}

static GstFlowReturn
gst_cuda_sync_ipc_sink_render (GstBaseSink * sink, GstBuffer * buf)
{
  GstCudaSyncIpcSink *self = GST_CUDA_SYNC_IPC_SINK (sink);
  GError *err = NULL;
  GstFlowReturn ret;
  guint i;

  for (i = 0; i < gst_buffer_n_memory (buf); i++)
    if (!gst_cuda_sync_element_check_memory (GST_ELEMENT (self),
            gst_buffer_peek_memory (buf, i), self->context))
      return GST_FLOW_ERROR;
  ret = gst_cuda_sync_ipc_server_render (self->server, buf, &err);
  if (ret == GST_FLOW_ERROR)
    GST_CUDA_SYNC_ELEMENT_ERROR_FROM (self, err);
  g_clear_error (&err);
  return ret;
}

static gboolean
gst_cuda_sync_ipc_sink_event (GstBaseSink * sink, GstEvent * event)
{
  GstCudaSyncIpcSink *self = GST_CUDA_SYNC_IPC_SINK (sink);

  if (GST_EVENT_TYPE (event) == GST_EVENT_EOS && self->server)
    gst_cuda_sync_ipc_server_eos (self->server);
  return GST_BASE_SINK_CLASS (parent_class)->event (sink, event);
}

static gboolean
gst_cuda_sync_ipc_sink_unlock (GstBaseSink * sink)
{
  GstCudaSyncIpcSink *self = GST_CUDA_SYNC_IPC_SINK (sink);

  if (self->server)
    gst_cuda_sync_ipc_server_set_flushing (self->server, TRUE);
  return TRUE;
}

static gboolean
gst_cuda_sync_ipc_sink_unlock_stop (GstBaseSink * sink)
{
  GstCudaSyncIpcSink *self = GST_CUDA_SYNC_IPC_SINK (sink);

  if (self->server)
    gst_cuda_sync_ipc_server_set_flushing (self->server, FALSE);
  return TRUE;
}

static void
gst_cuda_sync_ipc_sink_finalize (GObject * object)
{
  GstCudaSyncIpcSink *self = GST_CUDA_SYNC_IPC_SINK (object);

  g_free (self->socket_path);
  g_free (self->allowed_uids);
  g_clear_pointer (&self->last_stats, gst_structure_free);
  g_mutex_clear (&self->lock);
  G_OBJECT_CLASS (parent_class)->finalize (object);
}

static void
gst_cuda_sync_ipc_sink_class_init (GstCudaSyncIpcSinkClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstBaseSinkClass *sink_class = GST_BASE_SINK_CLASS (klass);
  const GParamFlags rw = G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
      GST_PARAM_MUTABLE_READY;

  gobject_class->set_property = gst_cuda_sync_ipc_sink_set_property;
  gobject_class->get_property = gst_cuda_sync_ipc_sink_get_property;
  gobject_class->finalize = gst_cuda_sync_ipc_sink_finalize;

  /**
   * GstCudaSyncIpcSink:socket-path:
   *
   * The unix socket the sink listens on (SOCK_SEQPACKET). The sink creates
   * it where nothing is, or replaces a stale socket there (one that nothing
   * listens on any more: a connection to it is refused). Anything else at
   * the path (a file, a directory, a symbolic link, the socket of a sink
   * that runs) is left alone, and the sink fails to start. At stop the
   * sink removes the path only while it is still the socket it created.
   */
  g_object_class_install_property (gobject_class, PROP_SOCKET_PATH,
      g_param_spec_string ("socket-path", "Socket path",
          "Path of the unix socket to listen on; only a stale socket there "
          "is replaced", NULL, rw));
  /**
   * GstCudaSyncIpcSink:socket-mode:
   *
   * File mode of the socket (0600: only the sink's user can connect). The
   * peer's user id is checked as well (#GstCudaSyncIpcSink:allowed-uids).
   *
   * A file mode, 0 to 0777, written in octal (`0600`). A value above 0777
   * whose decimal digits are all octal digits is read as octal, with a
   * warning in the debug log: `socket-mode=600` on a command line is 0600.
   * The range ends at 777, the largest such number; any other value above
   * 0777 (680, say) fails the start.
   */
  g_object_class_install_property (gobject_class, PROP_SOCKET_MODE,
      g_param_spec_uint ("socket-mode", "Socket mode",
          "File mode of the socket, in octal (0600; 600 is read as 0600)",
          0, 777, DEFAULT_SOCKET_MODE, rw));
  /**
   * GstCudaSyncIpcSink:allowed-uids:
   *
   * User ids whose processes may connect, comma-separated; empty (the
   * default) allows only the sink's own user, `*` anybody. An entry that
   * is not a decimal user id fails the start. A refused peer
   * is disconnected before anything is sent to it (`sessions-refused` in
   * #GstCudaSyncIpcSink:stats).
   */
  g_object_class_install_property (gobject_class, PROP_ALLOWED_UIDS,
      g_param_spec_string ("allowed-uids", "Allowed uids",
          "Comma-separated user ids allowed to connect (empty: own uid, "
          "*: any)", NULL, rw));
  /**
   * GstCudaSyncIpcSink:max-buffers:
   *
   * The most shareable allocations per caps: the bound on the memory that
   * sources can hold. The sink allocates them all as frames come, and
   * reuses the free one written longest ago.
   */
  g_object_class_install_property (gobject_class, PROP_MAX_BUFFERS,
      g_param_spec_uint ("max-buffers", "Max buffers",
          "Most shareable frames allocated per caps", 1, 1024,
          DEFAULT_MAX_BUFFERS, rw));
  /**
   * GstCudaSyncIpcSink:on-full:
   *
   * What a frame does when sources hold every allocation: `wait` for a
   * release (the default), or `drop` the frame (`dropped` in
   * #GstCudaSyncIpcSink:stats).
   */
  g_object_class_install_property (gobject_class, PROP_ON_FULL,
      g_param_spec_enum ("on-full", "On full",
          "Wait for a release or drop the frame when sources hold every "
          "buffer", GST_TYPE_CUDA_SYNC_IPC_ON_FULL,
          GST_CUDA_SYNC_IPC_ON_FULL_WAIT, rw));
  /**
   * GstCudaSyncIpcSink:cuda-device-id:
   *
   * The CUDA device (-1: any, from the pipeline's context).
   */
  g_object_class_install_property (gobject_class, PROP_CUDA_DEVICE_ID,
      g_param_spec_int ("cuda-device-id", "CUDA device id",
          "CUDA device to use (-1: automatic)", -1, G_MAXINT, -1, rw));
  /**
   * GstCudaSyncIpcSink:max-connections:
   *
   * The most connections served at once, handshakes included: each costs
   * fds and a semaphore. A connection beyond it is accepted and closed at
   * once, before anything is sent to it (`sessions-over-limit` in
   * #GstCudaSyncIpcSink:stats).
   */
  g_object_class_install_property (gobject_class, PROP_MAX_CONNECTIONS,
      g_param_spec_uint ("max-connections", "Max connections",
          "Most connections served at once (more are closed at once)", 1,
          G_MAXUINT, DEFAULT_MAX_CONNECTIONS, rw));
  /**
   * GstCudaSyncIpcSink:handshake-timeout:
   *
   * How long (in nanoseconds) a peer has, from its connection, to complete
   * the handshake (send its release semaphore); one that has not by then
   * is dropped (`handshake-timeouts` in #GstCudaSyncIpcSink:stats). 0: no
   * limit.
   */
  g_object_class_install_property (gobject_class, PROP_HANDSHAKE_TIMEOUT,
      g_param_spec_uint64 ("handshake-timeout", "Handshake timeout",
          "Nanoseconds a peer has to complete the handshake before it is "
          "dropped (0: no limit)", 0, G_MAXUINT64, DEFAULT_HANDSHAKE_TIMEOUT,
          rw));
  /**
   * GstCudaSyncIpcSink:hold-timeout:
   *
   * How long (in nanoseconds) a source may hold one frame without
   * releasing it while the sink needs it. While sources hold every frame
   * the sink waits or drops frames (#GstCudaSyncIpcSink:on-full) for all
   * of them: a source that then holds a frame longer than this is dropped
   * and its release semaphore rescued, as if it had vanished
   * (`hold-timeouts` in #GstCudaSyncIpcSink:stats). A source may keep
   * frames as long as it likes while the sink has others (a paused
   * pipeline, a last frame kept after EOS). A frame released with a
   * semaphore value that is not reached within this time counts as held
   * whether the sink needs it or not: the sink's GPU work on that frame
   * waits for the value. The default, three seconds, is below
   * cudasyncipcsrc's #GstCudaSyncIpcSrc:timeout, so that the other
   * sources of a sink stalled by one of them do not give up on the sink
   * first. 0: no limit.
   */
  g_object_class_install_property (gobject_class, PROP_HOLD_TIMEOUT,
      g_param_spec_uint64 ("hold-timeout", "Hold timeout",
          "Nanoseconds a source may hold a frame the sink needs (every frame "
          "held), or leave a released frame's value unreached, before it is "
          "dropped and rescued (0: no limit)", 0, G_MAXUINT64,
          DEFAULT_HOLD_TIMEOUT, rw));
  /**
   * GstCudaSyncIpcSink:stats:
   *
   * The sink's counters, one guint64 field each: the property's
   * description lists them and what each counts. `inputs-held` are kept by
   * a thread that sleeps on an event; the one `cpu-syncs` of a stop comes
   * before the sink frees the shared memory. `rescues` counts the release
   * semaphores the sink signalled itself, for sources that vanished, broke
   * the protocol, held a frame past hold-timeout, said goodbye but had not
   * reached their last release value two seconds after their connection
   * closed, or were still connected and had not signalled the values the
   * sink waits for one second after it left PAUSED (a stop). After the
   * sink stopped, the counters of its last run; before it first started,
   * every field at 0.
   * Notified when EOS reaches the sink, so that `gst-launch-1.0 -v` prints
   * the final counters.
   */
  g_object_class_install_property (gobject_class, PROP_STATS,
      gst_cuda_sync_stats_param_spec ("Counters of the sink's current or "
          "last run", stats_fields));

  /**
   * GstCudaSyncIpcSink::new-semaphore:
   * @sink: the #GstCudaSyncIpcSink
   *
   * Emitted, from the sink's socket thread, for each source that connects:
   * the sink needs an exportable timeline semaphore to signal that
   * source's frames on. A handler returns a new fd of a timeline semaphore
   * at value 0 that CUDA imports as
   * `CU_EXTERNAL_SEMAPHORE_HANDLE_TYPE_TIMELINE_SEMAPHORE_FD` (a Vulkan
   * timeline semaphore exported as `OPAQUE_FD`, for example); the sink
   * takes the fd, and -1 refuses that source (`sessions-failed`). Without
   * a handler connected when the sink starts, the sink makes them itself
   * with Vulkan, on the Vulkan device whose UUID is the CUDA device's,
   * and fails to start where that device cannot export timeline
   * semaphores.
   *
   * Returns: a new semaphore fd, or -1
   */
  signals[SIGNAL_NEW_SEMAPHORE] = g_signal_new ("new-semaphore",
      G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
      G_TYPE_INT, 0);

  gst_element_class_set_static_metadata (element_class,
      "CUDA IPC sink with GPU synchronisation", "Sink/Video/Hardware",
      "Sends CUDA frames to other processes, synchronised with timeline "
      "semaphores that the CUDA device's Vulkan driver exports, or that the "
      "application gives (signal new-semaphore)", "gst-cudasync developers");
  gst_element_class_add_static_pad_template (element_class, &sink_template);
  element_class->set_context =
      GST_DEBUG_FUNCPTR (gst_cuda_sync_ipc_sink_set_context);
  element_class->change_state =
      GST_DEBUG_FUNCPTR (gst_cuda_sync_ipc_sink_change_state);
  sink_class->start = GST_DEBUG_FUNCPTR (gst_cuda_sync_ipc_sink_start);
  sink_class->stop = GST_DEBUG_FUNCPTR (gst_cuda_sync_ipc_sink_stop);
  sink_class->set_caps = GST_DEBUG_FUNCPTR (gst_cuda_sync_ipc_sink_set_caps);
  sink_class->render = GST_DEBUG_FUNCPTR (gst_cuda_sync_ipc_sink_render);
  sink_class->event = GST_DEBUG_FUNCPTR (gst_cuda_sync_ipc_sink_event);
  sink_class->query = GST_DEBUG_FUNCPTR (gst_cuda_sync_ipc_sink_query);
  sink_class->propose_allocation =
      GST_DEBUG_FUNCPTR (gst_cuda_sync_ipc_sink_propose_allocation);
  sink_class->unlock = GST_DEBUG_FUNCPTR (gst_cuda_sync_ipc_sink_unlock);
  sink_class->unlock_stop =
      GST_DEBUG_FUNCPTR (gst_cuda_sync_ipc_sink_unlock_stop);
  gst_type_mark_as_plugin_api (GST_TYPE_CUDA_SYNC_IPC_ON_FULL, 0);
  GST_DEBUG_CATEGORY_INIT (gst_cuda_sync_ipc_sink_debug, "cudasyncipcsink", 0,
      "cudasyncipcsink");
}

static void
gst_cuda_sync_ipc_sink_init (GstCudaSyncIpcSink * self)
{
  g_mutex_init (&self->lock);
  self->socket_mode = DEFAULT_SOCKET_MODE;
  self->max_buffers = DEFAULT_MAX_BUFFERS;
  self->device_id = -1;
  self->max_connections = DEFAULT_MAX_CONNECTIONS;
  self->handshake_timeout = DEFAULT_HANDSHAKE_TIMEOUT;
  self->hold_timeout = DEFAULT_HOLD_TIMEOUT;
  /* a last sample would keep a frame of the sink's pool out of use */
  gst_base_sink_set_last_sample_enabled (GST_BASE_SINK (self), FALSE);
  gst_cuda_sync_stats_notify_at_eos (GST_ELEMENT (self),
      GST_BASE_SINK_PAD (self));
}

/* gst-cudasync
 * Copyright (C) 2026 gst-cudasync developers
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The pool cudasyncipcsink proposes upstream (GStreamer 1.24+). A
 * GstCudaBufferPool subclass, because upstream's CUDA elements (cudaupload,
 * cudaconvertscale, the NVDEC decoders) drop any proposed pool that is not
 * one. Each buffer is one of the sink's shareable frames (a "slot" of its
 * server), wrapped once in a GstCudaMemory at the frame's layout and kept
 * with it for the pool's life: buffers are never freed on their way back,
 * because GstCudaMemory's free waits on the CPU for pending work.
 *
 * A buffer is handed out only once its frame is free: no source holds it,
 * and upstream does not have it. Before that the frame's stream (the
 * config's, i.e. the producer's, else the pool's own) waits on the GPU for
 * the sources' release values and for the sink's own work on it
 * (gst_cuda_sync_ipc_server_lend()). While sources hold every frame the pool
 * waits, or, with on-full=drop, hands out ordinary CUDA memory that the
 * sink drops or copies as it does any other input.
 *
 * Locks: the pool's lock guards the table of frames that are back; the
 * server's lock is taken without it (lend, give back), never inside it.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstcudasyncipcsinkpool.h"
#include <gst/cudasync/gstcudasyncipcproto.h>
#include "gstcudasync-compat.h"
#include <gst/cudasync/gstcudasync-internal.h>

#if GST_CUDA_SYNC_HAVE_MEMORY_STREAM && GST_CUDA_SYNC_HAVE_WRAPPED_CUDA_ALLOC

#include <gst/cuda/gstcudabufferpool.h>
#include <gst/cuda/gstcudamemory.h>
#include <gst/cuda/gstcudastream.h>

GST_DEBUG_CATEGORY_STATIC (gst_cuda_sync_ipc_sink_pool_debug);
#define GST_CAT_DEFAULT gst_cuda_sync_ipc_sink_pool_debug

/* Declared by hand: G_DECLARE_FINAL_TYPE needs an autoptr cleanup for the
 * parent type, which GstCudaBufferPool does not define (1.24 to 1.28) */
#define GST_TYPE_CUDA_SYNC_IPC_SINK_POOL (gst_cuda_sync_ipc_sink_pool_get_type ())
#define GST_CUDA_SYNC_IPC_SINK_POOL(obj) (G_TYPE_CHECK_INSTANCE_CAST ((obj), \
    GST_TYPE_CUDA_SYNC_IPC_SINK_POOL, GstCudaSyncIpcSinkPool))
typedef struct _GstCudaSyncIpcSinkPool GstCudaSyncIpcSinkPool;
typedef struct
{
  GstCudaBufferPoolClass parent_class;
} GstCudaSyncIpcSinkPoolClass;
static GType gst_cuda_sync_ipc_sink_pool_get_type (void);

struct _GstCudaSyncIpcSinkPool
{
  GstCudaBufferPool parent;

  GstCudaSyncIpcServer *server;
  GstVideoInfo info;            /* the caps' */
  GstCudaStream *own_stream;
  GstCudaStream *stream;        /* the config's, else own_stream */
  gint flushing;                /* atomic */

  GMutex lock;
  GHashTable *back;             /* slot -> its buffer, back in the pool */
};

G_DEFINE_TYPE (GstCudaSyncIpcSinkPool, gst_cuda_sync_ipc_sink_pool,
    GST_TYPE_CUDA_BUFFER_POOL);

/* on a buffer of the pool: its slot (no reference: its memory has one) */
static GQuark slot_quark;

static gboolean
pool_set_config (GstBufferPool * bpool, GstStructure * config)
{
  GstCudaSyncIpcSinkPool *self = GST_CUDA_SYNC_IPC_SINK_POOL (bpool);
  GstBufferPoolClass *base_class = g_type_class_peek (GST_TYPE_BUFFER_POOL);
  GstCudaStream *stream;
  GstCaps *caps = NULL;
  guint size, min, max;
  GstVideoInfo info;

  if (!gst_buffer_pool_config_get_params (config, &caps, &size, &min, &max)
      || !caps || !gst_video_info_from_caps (&info, caps) ||
      GST_VIDEO_INFO_FORMAT (&info) != GST_VIDEO_INFO_FORMAT (&self->info) ||
      GST_VIDEO_INFO_WIDTH (&info) != GST_VIDEO_INFO_WIDTH (&self->info) ||
      GST_VIDEO_INFO_HEIGHT (&info) != GST_VIDEO_INFO_HEIGHT (&self->info)) {
    GST_WARNING_OBJECT (self, "config %" GST_PTR_FORMAT " is not for the "
        "sink's frames", config);
    return FALSE;
  }
  stream = gst_buffer_pool_config_get_cuda_stream (config);
  gst_clear_cuda_stream (&self->stream);
  self->stream = stream ? stream : gst_cuda_stream_ref (self->own_stream);
  /* the sink's max-buffers bounds the frames, whatever the config says */
  gst_buffer_pool_config_set_params (config, caps,
      GST_VIDEO_INFO_SIZE (&self->info), min, max);
  return base_class->set_config (bpool, config);
}

/* nothing is allocated in advance (GstCudaBufferPool's start() would) */
static gboolean
pool_start (GstBufferPool * bpool)
{
  return TRUE;
}

/* frees the frames that are back (no lock of the server held) */
static gboolean
pool_stop (GstBufferPool * bpool)
{
  GstCudaSyncIpcSinkPool *self = GST_CUDA_SYNC_IPC_SINK_POOL (bpool);
  GHashTable *back;

  g_mutex_lock (&self->lock);
  back = self->back;
  self->back = g_hash_table_new_full (NULL, NULL, NULL,
      (GDestroyNotify) gst_buffer_unref);
  g_mutex_unlock (&self->lock);
  g_hash_table_unref (back);
  return TRUE;
}

static void
slot_unref (gpointer slot)
{
  gst_cuda_sync_ipc_slot_unref (slot);
}

/* the slot's buffer: one GstCudaMemory around its memory */
static GstBuffer *
wrap_slot (GstCudaSyncIpcSinkPool * self, GstCudaSyncIpcSlot * slot)
{
  GstVideoInfo layout;
  CUdeviceptr ptr = gst_cuda_sync_ipc_slot_get_pointer (slot, &layout);
  GstVideoMeta *meta;
  GstMemory *mem;
  GstBuffer *buf;

  mem = gst_cuda_allocator_alloc_wrapped (NULL,
      GST_CUDA_BUFFER_POOL_CAST (self)->context, self->stream, &layout,
      ptr, gst_cuda_sync_ipc_slot_ref (slot), slot_unref);
  if (!mem) {
    gst_cuda_sync_ipc_slot_unref (slot);
    return NULL;
  }
  gst_cuda_sync_ipc_slot_attach (mem, slot);
  buf = gst_buffer_new ();
  gst_buffer_append_memory (buf, mem);
  meta = gst_buffer_add_video_meta_full (buf, GST_VIDEO_FRAME_FLAG_NONE,
      GST_VIDEO_INFO_FORMAT (&layout), GST_VIDEO_INFO_WIDTH (&layout),
      GST_VIDEO_INFO_HEIGHT (&layout), GST_VIDEO_INFO_N_PLANES (&layout),
      layout.offset, layout.stride);
  /* kept when the buffer comes back (GstBufferPool's reset) */
  GST_META_FLAG_SET (meta, GST_META_FLAG_POOLED);
  GST_BUFFER_FLAG_UNSET (buf, GST_BUFFER_FLAG_TAG_MEMORY);
  gst_mini_object_set_qdata (GST_MINI_OBJECT_CAST (buf), slot_quark, slot,
      NULL);
  return buf;
}

/* on-full=drop with every frame held: memory the sink copies or drops */
static GstBuffer *
plain_buffer (GstCudaSyncIpcSinkPool * self)
{
  GstMemory *mem = gst_cuda_allocator_alloc (NULL,
      GST_CUDA_BUFFER_POOL_CAST (self)->context, self->stream, &self->info);
  GstBuffer *buf;

  if (!mem)
    return NULL;
  buf = gst_buffer_new ();
  gst_buffer_append_memory (buf, mem);
  gst_buffer_add_video_meta_full (buf, GST_VIDEO_FRAME_FLAG_NONE,
      GST_VIDEO_INFO_FORMAT (&self->info), GST_VIDEO_INFO_WIDTH (&self->info),
      GST_VIDEO_INFO_HEIGHT (&self->info), GST_VIDEO_INFO_N_PLANES
      (&self->info), self->info.offset, self->info.stride);
  return buf;
}

static GstFlowReturn
pool_acquire_buffer (GstBufferPool * bpool, GstBuffer ** buffer,
    GstBufferPoolAcquireParams * params)
{
  GstCudaSyncIpcSinkPool *self = GST_CUDA_SYNC_IPC_SINK_POOL (bpool);
  gboolean wait = !params ||
      !(params->flags & GST_BUFFER_POOL_ACQUIRE_FLAG_DONTWAIT);
  GstCudaSyncIpcSlot *slot = NULL;
  GError *err = NULL;
  GstFlowReturn ret;

  ret = gst_cuda_sync_ipc_server_lend (self->server,
      gst_cuda_stream_get_handle (self->stream), wait, &self->flushing, &slot,
      &err);
  if (ret == GST_FLOW_EOS && wait) {
    *buffer = plain_buffer (self);
    return *buffer ? GST_FLOW_OK : GST_FLOW_ERROR;
  }
  if (ret != GST_FLOW_OK) {
    if (err)
      GST_WARNING_OBJECT (self, "no frame: %s", err->message);
    g_clear_error (&err);
    return ret;
  }
  g_mutex_lock (&self->lock);
  if (!g_hash_table_steal_extended (self->back, slot, NULL,
          (gpointer *) buffer))
    *buffer = NULL;
  g_mutex_unlock (&self->lock);
  if (!*buffer)
    *buffer = wrap_slot (self, slot);
  if (!*buffer) {
    GST_WARNING_OBJECT (self, "gst_cuda_allocator_alloc_wrapped() failed");
    gst_cuda_sync_ipc_server_give_back (self->server, slot);
    return GST_FLOW_ERROR;
  }
  return GST_FLOW_OK;
}

/* A frame's buffer stays with the pool, unless upstream changed its
 * memory; the frame is free once its sources release it */
static void
pool_release_buffer (GstBufferPool * bpool, GstBuffer * buffer)
{
  GstCudaSyncIpcSinkPool *self = GST_CUDA_SYNC_IPC_SINK_POOL (bpool);
  GstCudaSyncIpcSlot *slot = gst_mini_object_get_qdata (GST_MINI_OBJECT_CAST
      (buffer), slot_quark);

  if (slot && !GST_BUFFER_FLAG_IS_SET (buffer, GST_BUFFER_FLAG_TAG_MEMORY)) {
    g_mutex_lock (&self->lock);
    g_hash_table_insert (self->back, slot, buffer);
    buffer = NULL;
    g_mutex_unlock (&self->lock);
  }
  if (slot)
    gst_cuda_sync_ipc_server_give_back (self->server, slot);
  gst_clear_buffer (&buffer);
}

static void
pool_flush_start (GstBufferPool * bpool)
{
  GstCudaSyncIpcSinkPool *self = GST_CUDA_SYNC_IPC_SINK_POOL (bpool);

  g_atomic_int_set (&self->flushing, 1);
  gst_cuda_sync_ipc_server_wake_lenders (self->server);
}

static void
pool_flush_stop (GstBufferPool * bpool)
{
  g_atomic_int_set (&GST_CUDA_SYNC_IPC_SINK_POOL (bpool)->flushing, 0);
}

static void
pool_finalize (GObject * object)
{
  GstCudaSyncIpcSinkPool *self = GST_CUDA_SYNC_IPC_SINK_POOL (object);

  g_hash_table_unref (self->back);
  g_mutex_clear (&self->lock);
  gst_clear_cuda_stream (&self->stream);
  gst_clear_cuda_stream (&self->own_stream);
  gst_cuda_sync_ipc_server_unref (self->server);
  G_OBJECT_CLASS (gst_cuda_sync_ipc_sink_pool_parent_class)->finalize (object);
}

static void
gst_cuda_sync_ipc_sink_pool_class_init (GstCudaSyncIpcSinkPoolClass * klass)
{
  GstBufferPoolClass *pool_class = GST_BUFFER_POOL_CLASS (klass);

  G_OBJECT_CLASS (klass)->finalize = pool_finalize;
  pool_class->set_config = pool_set_config;
  pool_class->start = pool_start;
  pool_class->stop = pool_stop;
  pool_class->acquire_buffer = pool_acquire_buffer;
  pool_class->release_buffer = pool_release_buffer;
  pool_class->flush_start = pool_flush_start;
  pool_class->flush_stop = pool_flush_stop;
  slot_quark = g_quark_from_static_string ("GstCudaSyncIpcSinkPoolSlot");
  GST_DEBUG_CATEGORY_INIT (gst_cuda_sync_ipc_sink_pool_debug,
      "cudasyncipcsinkpool", 0, "the pool cudasyncipcsink proposes upstream");
}

static void
gst_cuda_sync_ipc_sink_pool_init (GstCudaSyncIpcSinkPool * self)
{
  g_mutex_init (&self->lock);
  self->back = g_hash_table_new_full (NULL, NULL, NULL,
      (GDestroyNotify) gst_buffer_unref);
}

GstBufferPool *
gst_cuda_sync_ipc_sink_pool_new (GstCudaSyncIpcServer * server,
    GstCudaContext * context, GstCaps * caps)
{
  GstCudaSyncIpcSinkPool *self;
  GstVideoInfo info;

  if (!gst_video_info_from_caps (&info, caps) ||
      !gst_cuda_sync_ipc_layout_wrappable (&info))
    return NULL;
  self = g_object_new (GST_TYPE_CUDA_SYNC_IPC_SINK_POOL, NULL);
  gst_object_ref_sink (self);
  GST_CUDA_BUFFER_POOL_CAST (self)->context = gst_object_ref (context);
  self->server = gst_cuda_sync_ipc_server_ref (server);
  self->info = info;
  self->own_stream = gst_cuda_stream_new (context);
  if (!self->own_stream) {
    gst_object_unref (self);
    return NULL;
  }
  return GST_BUFFER_POOL_CAST (self);
}

#else /* GStreamer 1.22 */

GstBufferPool *
gst_cuda_sync_ipc_sink_pool_new (GstCudaSyncIpcServer * server,
    GstCudaContext * context, GstCaps * caps)
{
  return NULL;
}

#endif

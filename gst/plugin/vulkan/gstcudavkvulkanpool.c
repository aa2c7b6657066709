/* gst-cudasync
 * Copyright (C) 2026 gst-cudasync developers
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The pool vulkantocuda proposes upstream on GStreamer 1.24+, so that
 * upstream Vulkan elements (vulkanupload, vulkancolorconvert and the
 * other filters that take an image pool from the ALLOCATION query) write
 * their frames straight into memory CUDA can read: vulkantocuda then
 * copies nothing.
 *
 * A GstVulkanImageBufferPool subclass, because upstream's Vulkan elements
 * drop any proposed pool that is not one. Each buffer it hands out shares
 * the memories of one frame of a frame pool (gst_cuda_vk_frame_pool_new()):
 * linear images allocated exportable and imported into CUDA once, with
 * the usage GST_CUDA_VK_LEND_IMAGE_USAGE. A frame is taken over from CUDA
 * (the external queue family) when it is handed out
 * (gst_cuda_vk_interop_lend()); vulkantocuda gives it back to CUDA after
 * upstream's writes and outputs a GstCudaMemory around it
 * (gst_cuda_vk_vulkan_pool_wrap()), which keeps upstream's buffer, and
 * with it the frame, until it is freed; the frame pool hands the frame out
 * again once CUDA's readers are done. A frame that does not
 * reach vulkantocuda goes back to CUDA through the frame pool's own
 * give-back.
 *
 * A GstCudaMemory is one allocation, and upstream's filters read and
 * write one image per plane (they cannot use one multi-planar image): NV12
 * and I420 frames are lent only as one image per plane, all bound to one
 * allocation that CUDA imported once (the one_allocation memory kind,
 * with vulkantocuda's property one-allocation); otherwise one-plane
 * formats only.
 *
 * A config for video coding (decode or encode caps, or such usage: a
 * Vulkan video decoder upstream, which takes any downstream image pool)
 * makes the pool upstream's ordinary image pool: its images must be
 * made for the decoder's video profile, which the frames are not.
 * vulkantocuda copies those frames as any other.
 *
 * When the frame pool is no longer active (vulkantocuda renegotiated or
 * stopped while upstream still uses this pool) the pool hands out
 * upstream's own kind of image, which vulkantocuda copies as any other;
 * it is freed once the queue is idle (pool_release_buffer()).
 *
 * Locks: the bound's lock (gstcudavkpoolbound.h) guards the count of
 * buffers out and the flushing flag; it is never held while acquiring
 * from the frame pool or submitting.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstcudavkvulkanpool.h"
#include "gstcudavkframepool.h"
#include "gstcudavkpoolbound.h"
#include "gstcudavkinterop-private.h"
#include <gst/cudasync/gstcudasync-internal.h>

GST_DEBUG_CATEGORY_STATIC (gst_cuda_vk_vulkan_pool_debug);
#define GST_CAT_DEFAULT gst_cuda_vk_vulkan_pool_debug

gboolean
gst_cuda_vk_vulkan_pool_supported (GstVulkanDevice * device,
    const GstVideoInfo * info, gboolean one_allocation, GError ** error)
{
  if (!gst_cuda_vk_compat_can_wrap ()) {
    g_set_error (error, GST_CUDA_SYNC_ERROR, GST_CUDA_SYNC_ERROR_NOT_SUPPORTED,
        "GStreamer 1.22 cannot wrap memory as CUDA memory");
    return FALSE;
  }
  if (GST_VIDEO_INFO_N_PLANES (info) != 1 && (!one_allocation ||
          !gst_cuda_vk_memory_kind_one_allocation (gst_cuda_vk_memory_kinds[0],
              info))) {
    g_set_error (error, GST_CUDA_SYNC_ERROR, GST_CUDA_SYNC_ERROR_NOT_SUPPORTED,
        "%s frames are one image per plane, one allocation each",
        gst_video_format_to_string (GST_VIDEO_INFO_FORMAT (info)));
    return FALSE;
  }
  return gst_cuda_vk_image_exportable (device, info,
      GST_CUDA_VK_LEND_IMAGE_USAGE, error);
}

/* Whether frames of @info have rows without padding: GstVideoInfo's
 * stride of every plane is its row of pixels */
static gboolean
rows_packed (const GstVideoInfo * info)
{
  guint i;

  for (i = 0; i < GST_VIDEO_INFO_N_PLANES (info); i++) {
    gint comp[GST_VIDEO_MAX_COMPONENTS];

    gst_video_format_info_component (info->finfo, i, comp);
    if (GST_VIDEO_INFO_PLANE_STRIDE (info, i) !=
        GST_VIDEO_INFO_COMP_WIDTH (info, comp[0]) *
        GST_VIDEO_INFO_COMP_PSTRIDE (info, comp[0]))
      return FALSE;
  }
  return TRUE;
}

/* The widths of @format asked for first are the multiples of this step.
 * Up to 1.26, vulkanupload copies each plane into its image as if the
 * system-memory frame's rows were packed, while they have GstVideoInfo
 * strides, rounded up to 4 (docs/known-issues.md): an NV12 or I420 image
 * of another width would hold shifted rows. There the step is the
 * smallest width whose frames have packed rows (NV12: 4, I420: 8;
 * one-plane formats: 1); any width where vulkanupload takes the row
 * length from the stride. */
static gint
width_step (GstVideoFormat format)
{
  GstVideoInfo info;
  gint step;

  if (!gst_cuda_vk_compat_upload_packs_rows ())
    return 1;
  for (step = 1; step < 64; step *= 2) {
    if (gst_video_info_set_format (&info, format, step, 16) &&
        rows_packed (&info))
      return step;
  }
  return step;
}

/* memory:VulkanImage of the formats the pool takes on @device (a small
 * frame of each asked for; the size is limited apart), at most
 * maxImageDimension2D wide and high, and only of the widths vulkanupload
 * writes right (width_step()): the formats of one step in one structure,
 * then one of each other format; NULL when none */
static GstCaps *
lendable_caps (GstVulkanDevice * device, gboolean one_allocation)
{
  GstCaps *ret =
      gst_caps_from_string ("video/x-raw(" GST_CAPS_FEATURE_MEMORY_VULKAN_IMAGE
      "), format = (string) " GST_CUDA_VK_FORMATS);
  GstStructure *s = gst_caps_get_structure (ret, 0);
  const GValue *all = gst_structure_get_value (s, "format");
  gint max =
      MAX (device->physical_device->properties.limits.maxImageDimension2D, 1);
  GstCaps *stepped = gst_caps_new_empty ();
  GValue formats = G_VALUE_INIT;
  guint i;

  g_value_init (&formats, GST_TYPE_LIST);
  for (i = 0; i < gst_value_list_get_size (all); i++) {
    const GValue *f = gst_value_list_get_value (all, i);
    GstVideoFormat format = gst_video_format_from_string (g_value_get_string
        (f));
    GstVideoInfo info;
    GstStructure *one;
    GValue widths = G_VALUE_INIT;
    gint step;

    gst_video_info_set_format (&info, format, 16, 16);
    if (!gst_cuda_vk_vulkan_pool_supported (device, &info, one_allocation,
            NULL))
      continue;
    step = width_step (format);
    if (step == 1) {
      gst_value_list_append_value (&formats, f);
      continue;
    }
    if (max < step)
      continue;
    one = gst_structure_copy (s);
    gst_structure_set_value (one, "format", f);
    g_value_init (&widths, GST_TYPE_INT_RANGE);
    gst_value_set_int_range_step (&widths, step, max - max % step, step);
    gst_structure_take_value (one, "width", &widths);
    gst_structure_set (one, "height", GST_TYPE_INT_RANGE, 1, max, NULL);
    gst_caps_append_structure_full (stepped, one,
        gst_caps_features_copy (gst_caps_get_features (ret, 0)));
  }
  if (gst_value_list_get_size (&formats) == 0) {
    g_value_unset (&formats);
    gst_caps_unref (ret);
    ret = gst_caps_new_empty ();
  } else {
    gst_structure_take_value (s, "format", &formats);
    gst_structure_set (s, "width", GST_TYPE_INT_RANGE, 1, max,
        "height", GST_TYPE_INT_RANGE, 1, max, NULL);
  }
  gst_caps_append (ret, stepped);
  if (gst_caps_is_empty (ret)) {
    gst_caps_unref (ret);
    return NULL;
  }
  return ret;
}

GstCaps *
gst_cuda_vk_vulkan_pool_caps_first (GstVulkanDevice * device,
    gboolean one_allocation, GstCaps * caps)
{
  GstCaps *lendable = device ? lendable_caps (device, one_allocation) : NULL;
  GstCaps *first;

  if (!lendable)
    return caps;
  first = gst_caps_intersect_full (caps, lendable, GST_CAPS_INTERSECT_FIRST);
  gst_caps_unref (lendable);
  return gst_caps_merge (first, caps);
}

#define GST_TYPE_CUDA_VK_VULKAN_POOL (gst_cuda_vk_vulkan_pool_get_type ())
G_DECLARE_FINAL_TYPE (GstCudaVkVulkanPool, gst_cuda_vk_vulkan_pool, GST,
    CUDA_VK_VULKAN_POOL, GstVulkanImageBufferPool);

struct _GstCudaVkVulkanPool
{
  GstVulkanImageBufferPool parent;

  GstCudaVkInterop *interop;
  GstBufferPool *frames;        /* vulkantocuda's frame pool */
  const GstCudaVkMemoryKind *kind;
  GstVideoInfo info;            /* the frames' */
  GstVideoInfo winfo;           /* and their layout in the memory */

  GstCudaVkPoolBound bound;
  /* set_config() got a video coding config: GstVulkanImageBufferPool's
   * own behaviour throughout */
  gboolean plain;
};

G_DEFINE_TYPE (GstCudaVkVulkanPool, gst_cuda_vk_vulkan_pool,
    GST_TYPE_VULKAN_IMAGE_BUFFER_POOL);

/* marks a buffer handed out (its parent buffer meta holds the frame it
 * shares) */
static GQuark lent_quark;

#define PARENT_CLASS GST_BUFFER_POOL_CLASS (gst_cuda_vk_vulkan_pool_parent_class)

/* VK_IMAGE_USAGE_VIDEO_{DECODE,ENCODE}_{DST,SRC,DPB}_BIT_KHR, which older
 * Vulkan headers lack */
#define VIDEO_CODING_USAGE 0xfc00

/* Whether @config is for video decoding or encoding (a Vulkan video
 * decoder's: gst_vulkan_image_buffer_pool_config_set_decode_caps()) */
static gboolean
config_for_video (GstStructure * config)
{
  VkImageUsageFlags usage = 0;
  VkMemoryPropertyFlags props;
  VkImageLayout layout;
  guint64 access;

  gst_vulkan_image_buffer_pool_config_get_allocation_params (config, &usage,
      &props, &layout, &access);
  return (usage & VIDEO_CODING_USAGE) != 0 ||
      gst_structure_has_field (config, "decode-caps") ||
      gst_structure_has_field (config, "encode-caps");
}

/* GstVulkanImageBufferPool's own set_config() would plan images of its
 * own for the caps: this pool hands out the frames instead, so it checks
 * the caps against them and chains up to GstBufferPool's; but a video
 * coding config gets upstream's images (plain) */
static gboolean
pool_set_config (GstBufferPool * bpool, GstStructure * config)
{
  GstCudaVkVulkanPool *self = GST_CUDA_VK_VULKAN_POOL (bpool);
  GstBufferPoolClass *base_class = g_type_class_peek (GST_TYPE_BUFFER_POOL);
  GstCaps *caps = NULL;
  guint size, min, max;
  GstVideoInfo info;

  self->plain = config_for_video (config);
  if (self->plain) {
    GST_INFO_OBJECT (self, "a video coding config: upstream's own images");
    return PARENT_CLASS->set_config (bpool, config);
  }
  if (!gst_buffer_pool_config_get_params (config, &caps, &size, &min, &max)
      || !caps || !gst_video_info_from_caps (&info, caps)) {
    GST_WARNING_OBJECT (self, "invalid config %" GST_PTR_FORMAT, config);
    return FALSE;
  }
  if (GST_VIDEO_INFO_FORMAT (&info) != GST_VIDEO_INFO_FORMAT (&self->info) ||
      GST_VIDEO_INFO_WIDTH (&info) != GST_VIDEO_INFO_WIDTH (&self->info) ||
      GST_VIDEO_INFO_HEIGHT (&info) != GST_VIDEO_INFO_HEIGHT (&self->info)) {
    GST_WARNING_OBJECT (self, "caps %" GST_PTR_FORMAT " are not the frames'",
        caps);
    return FALSE;
  }
  gst_buffer_pool_config_set_params (config, caps, size, min, max);
  gst_cuda_vk_pool_bound_set_max (&self->bound, max);
  return base_class->set_config (bpool, config);
}

/* the frames come from the frame pool: nothing to allocate in advance */
static gboolean
pool_start (GstBufferPool * bpool)
{
  if (GST_CUDA_VK_VULKAN_POOL (bpool)->plain)
    return PARENT_CLASS->start (bpool);
  return TRUE;
}

static gboolean
pool_stop (GstBufferPool * bpool)
{
  if (GST_CUDA_VK_VULKAN_POOL (bpool)->plain)
    return PARENT_CLASS->stop (bpool);
  return TRUE;
}

/* upstream's own kind of frame, one image per plane, for when the frame
 * pool is gone */
static GstFlowReturn
plain_buffer (GstCudaVkVulkanPool * self, GstBuffer ** buffer)
{
  GstVulkanDevice *device = GST_VULKAN_IMAGE_BUFFER_POOL (self)->device;
  guint i;

  *buffer = gst_buffer_new ();
  for (i = 0; i < GST_VIDEO_INFO_N_PLANES (&self->info); i++) {
    gint comp[GST_VIDEO_MAX_COMPONENTS];
    GstMemory *mem;

    gst_video_format_info_component (self->info.finfo, i, comp);
    mem = gst_vulkan_image_memory_alloc (device,
        gst_cuda_vk_plane_format (&self->info, i),
        GST_VIDEO_INFO_COMP_WIDTH (&self->info, comp[0]),
        GST_VIDEO_INFO_COMP_HEIGHT (&self->info, comp[0]),
        VK_IMAGE_TILING_OPTIMAL, GST_CUDA_VK_LEND_IMAGE_USAGE,
        VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT);
    if (!mem) {
      GST_ERROR_OBJECT (self, "could not allocate a Vulkan image for "
          "upstream");
      gst_clear_buffer (buffer);
      return GST_FLOW_ERROR;
    }
    gst_buffer_append_memory (*buffer, mem);
  }
  return GST_FLOW_OK;
}

/* @frame (transfer full), taken over from CUDA, as a buffer of its own
 * that shares its memories */
static GstFlowReturn
lend_frame (GstCudaVkVulkanPool * self, GstBuffer * frame, GstBuffer ** out)
{
  GstCudaVkFrame *f = gst_cuda_vk_frame_get (frame);
  GError *err = NULL;

  if (!gst_cuda_vk_interop_lend (self->interop, self->kind, frame, f, &err)) {
    GST_ERROR_OBJECT (self, "%s", err->message);
    if (self->interop->funcs.error)
      self->interop->funcs.error (self->interop->user_data, err);
    else
      g_error_free (err);
    gst_buffer_unref (frame);
    return GST_FLOW_ERROR;
  }
  *out = gst_cuda_vk_frame_share (frame);
  gst_mini_object_set_qdata (GST_MINI_OBJECT_CAST (*out), lent_quark,
      GINT_TO_POINTER (TRUE), NULL);
  gst_buffer_unref (frame);
  return GST_FLOW_OK;
}

static GstFlowReturn
pool_acquire_buffer (GstBufferPool * bpool, GstBuffer ** buffer,
    GstBufferPoolAcquireParams * params)
{
  GstCudaVkVulkanPool *self = GST_CUDA_VK_VULKAN_POOL (bpool);
  GstBuffer *frame = NULL;
  GstFlowReturn ret;

  if (self->plain)
    return PARENT_CLASS->acquire_buffer (bpool, buffer, params);
  ret = gst_cuda_vk_pool_bound_take (&self->bound, params);
  if (ret != GST_FLOW_OK)
    return ret;
  /* waits while all the frames are out (the frame pool's bound) */
  ret = gst_buffer_pool_acquire_buffer (self->frames, &frame, params);
  if (ret == GST_FLOW_OK) {
    ret = lend_frame (self, frame, buffer);
  } else if (ret == GST_FLOW_FLUSHING
      && !gst_cuda_vk_pool_bound_flushing (&self->bound)) {
    /* vulkantocuda flushes, or let go of, the frame pool (a seek or a stop
     * that reached it first, renegotiation) while upstream still uses this
     * pool: an ordinary image, which it copies or drops */
    GST_DEBUG_OBJECT (self, "frame pool inactive or flushing: an image of "
        "upstream's kind");
    ret = plain_buffer (self, buffer);
  }
  if (ret != GST_FLOW_OK)
    gst_cuda_vk_pool_bound_give (&self->bound);
  return ret;
}

/* Buffers are not kept: freeing one lets its frame go back to the frame
 * pool (unless vulkantocuda's output still holds it), whose give-back
 * comes after upstream's work on it. An image of upstream's kind
 * (plain_buffer()) is freed at once instead, and upstream may have written
 * it on the GPU without waiting (vulkanupload's copy) and then dropped it
 * (vulkantocuda flushing, at a seek or its stop): the queue upstream shares
 * with the bridge is waited for first, or the copy ran into freed memory
 * (a crash in Mesa lavapipe's queue thread now and then). */
static void
pool_release_buffer (GstBufferPool * bpool, GstBuffer * buffer)
{
  GstCudaVkVulkanPool *self = GST_CUDA_VK_VULKAN_POOL (bpool);

  if (self->plain) {
    PARENT_CLASS->release_buffer (bpool, buffer);
    return;
  }
  if (!gst_mini_object_get_qdata (GST_MINI_OBJECT_CAST (buffer), lent_quark))
    gst_cuda_vk_queue_wait_idle (self->interop->queue);
  gst_buffer_unref (buffer);
  gst_cuda_vk_pool_bound_give (&self->bound);
}

static void
pool_flush_start (GstBufferPool * bpool)
{
  GstCudaVkVulkanPool *self = GST_CUDA_VK_VULKAN_POOL (bpool);

  gst_cuda_vk_pool_bound_set_flushing (&self->bound, TRUE);
}

static void
pool_flush_stop (GstBufferPool * bpool)
{
  GstCudaVkVulkanPool *self = GST_CUDA_VK_VULKAN_POOL (bpool);

  gst_cuda_vk_pool_bound_set_flushing (&self->bound, FALSE);
}

static void
pool_finalize (GObject * object)
{
  GstCudaVkVulkanPool *self = GST_CUDA_VK_VULKAN_POOL (object);

  gst_clear_object (&self->frames);
  gst_clear_object (&self->interop);
  gst_clear_object (&GST_VULKAN_IMAGE_BUFFER_POOL (self)->device);
  gst_cuda_vk_pool_bound_clear (&self->bound);
  G_OBJECT_CLASS (gst_cuda_vk_vulkan_pool_parent_class)->finalize (object);
}

static void
gst_cuda_vk_vulkan_pool_class_init (GstCudaVkVulkanPoolClass * klass)
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
  lent_quark = g_quark_from_static_string ("GstCudaVkLentFrame");
  GST_DEBUG_CATEGORY_INIT (gst_cuda_vk_vulkan_pool_debug,
      "cudavkvulkanpool", 0, "the pool vulkantocuda proposes upstream");
}

static void
gst_cuda_vk_vulkan_pool_init (GstCudaVkVulkanPool * self)
{
  gst_cuda_vk_pool_bound_init (&self->bound);
}

/* The frame's layout as one GstCudaMemory: each plane at its offset from
 * plane 0 and its pitch. Every frame of the pool has the same (one
 * allocation of the same images). */
static gboolean
frame_layout (GstCudaVkVulkanPool * self)
{
  GstBuffer *frame = NULL;
  GstCudaVkFrame *f;
  gboolean ok;

  if (gst_buffer_pool_acquire_buffer (self->frames, &frame, NULL) !=
      GST_FLOW_OK)
    return FALSE;
  f = gst_cuda_vk_frame_get (frame);
  ok = f->n_mems == GST_VIDEO_INFO_N_PLANES (&self->info) &&
      gst_cuda_vk_frame_cuda_layout (f, &self->info, &self->winfo);
  gst_buffer_unref (frame);
  return ok;
}

GstBufferPool *
gst_cuda_vk_vulkan_pool_new (GstCudaVkInterop * interop,
    GstBufferPool * frames, const GstCudaVkMemoryKind * kind)
{
  GstCudaVkVulkanPool *self;
  GstStructure *config;
  GstCaps *caps = NULL;

  g_return_val_if_fail (gst_cuda_vk_compat_can_wrap (), NULL);

  config = gst_buffer_pool_get_config (frames);
  gst_buffer_pool_config_get_params (config, &caps, NULL, NULL, NULL);
  self = g_object_new (GST_TYPE_CUDA_VK_VULKAN_POOL, NULL);
  gst_object_ref_sink (self);
  GST_VULKAN_IMAGE_BUFFER_POOL (self)->device =
      gst_object_ref (interop->device);
  self->interop = gst_object_ref (interop);
  self->frames = gst_object_ref (frames);
  self->kind = kind;
  if (!caps || !gst_video_info_from_caps (&self->info, caps)
      || !frame_layout (self)) {
    gst_structure_free (config);
    gst_object_unref (self);
    return NULL;
  }
  gst_structure_free (config);
  return GST_BUFFER_POOL_CAST (self);
}

typedef struct
{
  GstBufferPool *frames;
  GstBuffer *found;
} FrameSearch;

/* A parent buffer meta of @buf that holds a frame of the search's pool
 * whose memories @buf still has: FALSE (stop) when found */
static gboolean
find_frame (GstBuffer * buf, GstMeta ** meta, gpointer data)
{
  FrameSearch *fs = data;
  GstParentBufferMeta *pm;
  guint i;

  if ((*meta)->info->api != GST_PARENT_BUFFER_META_API_TYPE)
    return TRUE;
  pm = (GstParentBufferMeta *) * meta;
  if (pm->buffer->pool != fs->frames || !gst_cuda_vk_frame_get (pm->buffer)
      || gst_buffer_n_memory (pm->buffer) != gst_buffer_n_memory (buf))
    return TRUE;
  for (i = 0; i < gst_buffer_n_memory (buf); i++)
    if (gst_buffer_peek_memory (buf, i) != gst_buffer_peek_memory (pm->buffer,
            i))
      return TRUE;
  fs->found = pm->buffer;
  return FALSE;
}

GstBuffer *
gst_cuda_vk_vulkan_pool_get_frame (GstBuffer * buf, GstBufferPool * frames)
{
  FrameSearch fs = { frames, NULL };

  if (!lent_quark || !gst_mini_object_get_qdata (GST_MINI_OBJECT_CAST (buf),
          lent_quark))
    return NULL;
  /* the frame whose memories the buffer has, held by its parent buffer
   * meta; a frame of an older frame pool (renegotiation) is copied */
  gst_buffer_foreach_meta (buf, find_frame, &fs);
  return fs.found ? gst_buffer_ref (fs.found) : NULL;
}

/* what a wrapped memory holds: upstream's buffer, and the frame it
 * shares (which that buffer keeps) */
typedef struct
{
  GstBuffer *inbuf;
  GstCudaVkFrame *f;
  GstCudaContext *cuda;
} Lent;

/* The CUDA allocator frees a wrapped memory, with the context current:
 * the readers' work, enqueued on blocking streams before this, completes
 * before an event recorded now on the legacy default stream does. The
 * frame pool hands the frame out again only once that event has
 * completed (frame_ready() in gstcudavkframepool.c, never blocking but at
 * its limit of frames), so upstream never writes it while CUDA reads. */
/* two outputs around one frame (upstream pushed a buffer twice) may be
 * freed at once on two threads */
static GMutex read_event_lock;

static void
lent_memory_freed (gpointer data)
{
  Lent *l = data;
  GstCudaVkFrame *f = l->f;
  GError *err = NULL;
  gboolean recorded;

  g_mutex_lock (&read_event_lock);
  /* blocking sync: the pool's CPU wait at its limit sleeps */
  if (!f->read_event)
    f->read_event = gst_cuda_sync_event_new (l->cuda, TRUE, &err);
  recorded = f->read_event && gst_cuda_sync_event_record (f->read_event,
      CU_STREAM_LEGACY, &err);
  if (recorded)
    f->read_pending = TRUE;
  g_mutex_unlock (&read_event_lock);
  if (!recorded) {
    /* nothing tells when the readers are done: wait for the context */
    GST_WARNING ("could not record an event behind the readers of a frame "
        "(%s): synchronising the CUDA context", err->message);
    g_clear_error (&err);
    if (!gst_cuda_sync_context_synchronize (l->cuda, &err)) {
      GST_ERROR ("%s: a frame is not used again", err->message);
      g_clear_error (&err);
      /* kept from its pool for ever */
      gst_object_unref (l->cuda);
      g_free (l);
      return;
    }
  }
  /* written before the frame goes back to its pool (its lock) */
  gst_buffer_unref (l->inbuf);
  gst_object_unref (l->cuda);
  g_free (l);
}

GstMemory *
gst_cuda_vk_vulkan_pool_wrap (GstBufferPool * pool, GstBuffer * frame,
    GstBuffer * inbuf)
{
  GstCudaVkVulkanPool *self = GST_CUDA_VK_VULKAN_POOL (pool);
  Lent *l = g_new (Lent, 1);
  GstMemory *mem;

  l->inbuf = gst_buffer_ref (inbuf);
  l->f = gst_cuda_vk_frame_get (frame);
  l->cuda = gst_object_ref (self->interop->cuda);
  mem = gst_cuda_vk_compat_alloc_wrapped (self->interop->cuda,
      self->interop->cuda_stream, &self->winfo, l->f->plane_ptr[0], l,
      lent_memory_freed);
  if (!mem) {
    gst_buffer_unref (l->inbuf);
    gst_object_unref (l->cuda);
    g_free (l);
  }
  return mem;
}

/* gst-cudasync
 * Copyright (C) 2026 gst-cudasync developers
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The bridge's frame pool: cudatovulkan's output frames, and the frames
 * of the pool vulkantocuda proposes upstream (gstcudavkvulkanpool.c):
 * exportable linear images (or buffers) imported into CUDA, each with its
 * binary semaphore (1.22) or, on 1.24 to 1.28, each image with a Vulkan
 * timeline semaphore in its barrier state (image_add_timeline()), handed
 * out again only once downstream's GPU work on them has completed.
 *
 * At most max_frames frames exist (gst_cuda_vk_frame_pool_set_max(),
 * default GST_CUDA_VK_DEFAULT_MAX_FRAMES): with all of them out
 * downstream, acquire waits on pool->cond until one comes back or the pool
 * flushes (gst_buffer_pool_set_flushing(), deactivation), as
 * GstBufferPool's own acquire does.
 *
 * The frames are allocated, prepared for CUDA and given back to CUDA by
 * the interop the pool is made from (gstcudavkinterop.h), which the pool
 * keeps.
 *
 * Locks: pool->lock guards the released frames, the frame count and the
 * bound; it is held only briefly and never while waiting for a fence
 * (downstream threads take it to release frames), except in the pool's
 * stop; acquire waits on pool->cond with it. Order: pool->lock, then a
 * frame semaphore's GstCudaSemaphore op_lock (frame_ready() ->
 * gst_cuda_vk_semaphore_waited() -> gst_cuda_semaphore_mark_waited()) or
 * (stop) the interop's give-back lock; nothing takes them the other way
 * round. A Vulkan queue's submit lock is never taken with pool->lock
 * held.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstcudavkframepool.h"
#include "gstcudasyncelementerror.h"
#include <string.h>

GST_DEBUG_CATEGORY_STATIC (gst_cuda_vk_frame_pool_debug);
#define GST_CAT_DEFAULT gst_cuda_vk_frame_pool_debug

/* ---- pool of exportable linear images ---- */

#define GST_TYPE_CUDA_VK_IMAGE_POOL (gst_cuda_vk_image_pool_get_type ())
G_DECLARE_FINAL_TYPE (GstCudaVkImagePool, gst_cuda_vk_image_pool, GST,
    CUDA_VK_IMAGE_POOL, GstBufferPool);

struct _GstCudaVkImagePool
{
  GstBufferPool parent;

  /* what the frames are allocated, prepared and given back with */
  GstCudaVkInterop *interop;
  GstVulkanDevice *device;
  GstVulkanQueue *queue;
  GstVideoInfo info;
  const GstCudaVkMemoryKind *kind;
  VkImageUsageFlags usage;      /* of the images */
  GstCudaVkPoolErrorFunc on_error;
  gpointer on_error_data;

  GMutex lock;
  GCond cond;                   /* a frame came back, or flushing */
  GQueue released;              /* buffers whose fence may be pending */
  guint n_frames;               /* alive, or being allocated */
  guint max_frames;
};

G_DEFINE_TYPE (GstCudaVkImagePool, gst_cuda_vk_image_pool,
    GST_TYPE_BUFFER_POOL);

static GQuark frame_quark;

GstCudaVkFrame *
gst_cuda_vk_frame_get (GstBuffer * buf)
{
  return gst_mini_object_get_qdata (GST_MINI_OBJECT_CAST (buf), frame_quark);
}

gboolean
gst_cuda_vk_frame_one_allocation (const GstCudaVkFrame * f)
{
  guint i;

  for (i = 1; i < f->n_mems; i++) {
    if (!f->planes[0]->plane.shared ||
        f->planes[i]->plane.shared != f->planes[0]->plane.shared)
      return FALSE;
  }
  return TRUE;
}

gboolean
gst_cuda_vk_frame_cuda_layout (const GstCudaVkFrame * f,
    const GstVideoInfo * info, GstVideoInfo * layout)
{
  gint comp[GST_VIDEO_MAX_COMPONENTS];
  guint i;

  if (!gst_cuda_vk_frame_one_allocation (f))
    return FALSE;
  *layout = *info;
  GST_VIDEO_INFO_SIZE (layout) = 0;
  for (i = 0; i < GST_VIDEO_INFO_N_PLANES (info); i++) {
    if (f->plane_ptr[i] < f->plane_ptr[0])
      return FALSE;
    GST_VIDEO_INFO_PLANE_OFFSET (layout, i) = f->plane_ptr[i] - f->plane_ptr[0];
    GST_VIDEO_INFO_PLANE_STRIDE (layout, i) = f->plane_pitch[i];
    gst_video_format_info_component (info->finfo, i, comp);
    /* the end of the plane that ends last, whichever it is */
    GST_VIDEO_INFO_SIZE (layout) = MAX (GST_VIDEO_INFO_SIZE (layout),
        GST_VIDEO_INFO_PLANE_OFFSET (layout, i) + f->plane_pitch[i] *
        GST_VIDEO_INFO_COMP_HEIGHT (info, comp[0]));
  }
  return TRUE;
}

GstBuffer *
gst_cuda_vk_frame_share (GstBuffer * frame)
{
  GstBuffer *buf = gst_buffer_new ();
  GstVideoMeta *vmeta = gst_buffer_get_video_meta (frame);
  guint i;

  for (i = 0; i < gst_buffer_n_memory (frame); i++)
    gst_buffer_append_memory (buf,
        gst_memory_ref (gst_buffer_peek_memory (frame, i)));
  gst_buffer_copy_into (buf, frame, GST_BUFFER_COPY_META, 0, -1);
  /* the frame's video meta (where its planes are), which a copy of the
   * metas alone leaves out (it is tagged "memory") */
  if (vmeta && !gst_buffer_get_video_meta (buf))
    gst_buffer_add_video_meta_full (buf, vmeta->flags, vmeta->format,
        vmeta->width, vmeta->height, vmeta->n_planes, vmeta->offset,
        vmeta->stride);
  /* copied along with the buffer, so a copy sharing the memories keeps
   * the frame out of its pool too */
  gst_buffer_add_parent_buffer_meta (buf, frame);
  gst_mini_object_set_qdata (GST_MINI_OBJECT_CAST (buf), frame_quark,
      gst_cuda_vk_frame_get (frame), NULL);
  return buf;
}

static void
plane_holder_free (gpointer data)
{
  GstCudaVkFramePlane *h = data;

  gst_cuda_vk_plane_free (h->cuda, h->device, &h->plane);
  gst_clear_object (&h->cuda);
  gst_clear_object (&h->device);
  g_free (h);
}

static void
frame_free (gpointer data)
{
  GstCudaVkFrame *f = data;

  if (f->fence)
    gst_vulkan_fence_unref (f->fence);
  gst_cuda_vk_semaphore_free (f->sem);
  if (f->read_event)
    gst_cuda_sync_event_unref (f->read_event);
  g_free (f);
}

/* A new frame's images are UNDEFINED (external memory must be created so):
 * move them to GENERAL and give them to VK_QUEUE_FAMILY_EXTERNAL before CUDA
 * writes into them, as every later release does (a transition from
 * UNDEFINED may discard the contents). Once per allocation, so its CPU wait
 * is not a per-frame synchronisation. */
static gboolean
frame_init_layout (GstCudaVkImagePool * pool, GstCudaVkFrame * f,
    GError ** error)
{
  VkImageMemoryBarrier barriers[GST_VIDEO_MAX_PLANES];
  GstVulkanCommandBuffer *cmd;
  GstVulkanFence *fence;
  VkResult res;
  guint i;

  cmd = gst_cuda_vk_interop_begin (pool->interop, error);
  if (!cmd)
    return FALSE;
  for (i = 0; i < f->n_mems; i++) {
    VkImageMemoryBarrier *ib = &barriers[i];

    memset (ib, 0, sizeof (*ib));
    ib->sType = VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER;
    ib->oldLayout = VK_IMAGE_LAYOUT_UNDEFINED;
    ib->newLayout = VK_IMAGE_LAYOUT_GENERAL;
    ib->srcQueueFamilyIndex = pool->queue->family;
    ib->dstQueueFamilyIndex = VK_QUEUE_FAMILY_EXTERNAL;
    ib->image = f->planes[i]->plane.image;
    /* every plane of a multi-planar image too: it is not disjoint */
    ib->subresourceRange.aspectMask = VK_IMAGE_ASPECT_COLOR_BIT;
    ib->subresourceRange.levelCount = 1;
    ib->subresourceRange.layerCount = 1;
  }
  vkCmdPipelineBarrier (cmd->cmd, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT,
      VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, 0, 0, NULL, 0, NULL, f->n_mems,
      barriers);
  fence = gst_cuda_vk_interop_submit (pool->interop, cmd, NULL, NULL, error);
  if (!fence)
    return FALSE;
  res = vkWaitForFences (pool->device->device, 1,
      &GST_VULKAN_FENCE_FENCE (fence), VK_TRUE, G_MAXUINT64);
  gst_vulkan_fence_unref (fence);
  return gst_vulkan_error_to_g_error (res, error, "vkWaitForFences") >= 0;
}

/* GStreamer 1.24 to 1.28, the element's timeline path: gives a wrapped
 * image a timeline semaphore of its own in its barrier state, as upstream
 * does for the images it allocates (the memory destroys it when freed).
 * The take-over submission, which waits for CUDA's signal, signals its
 * next value; GstVulkanOperation users (vulkandownload, the video
 * encoders, vulkantocuda) wait for that value on the GPU, whatever queue
 * they submit to, and signal the next; the release waits for theirs. A
 * Vulkan-only semaphore: CUDA never sees it. */
static gboolean
image_add_timeline (GstCudaVkImagePool * pool, GstVulkanImageMemory * mem,
    GError ** error)
{
  VkSemaphore sem;
  guint64 value;

  if (!gst_cuda_vk_compat_barrier_add_timeline (&mem->barrier.parent,
          pool->device, error))
    return FALSE;
  sem = gst_cuda_vk_compat_barrier_timeline (&mem->barrier.parent, &value);
  if (sem != VK_NULL_HANDLE)
    gst_cuda_vk_namer_name (gst_cuda_vk_interop_get_namer (pool->interop),
        VK_OBJECT_TYPE_SEMAPHORE, (guint64) sem, "image timeline");
  return TRUE;
}

/* Hands what the element error says (a GST_RESOURCE_ERROR @code, @text,
 * and @cause's message as details; @cause is taken) to the pool's owner;
 * frees what was allocated of the frame */
static GstFlowReturn
alloc_failed (GstCudaVkImagePool * pool, gint code, const gchar * text,
    GError * cause, GstBuffer * buf, GstCudaVkFrame * f)
{
  GError *err = NULL;

  gst_cuda_sync_take_error (&err, GST_RESOURCE_ERROR, code, g_strdup (text),
      cause ? g_strdup (cause->message) : NULL);
  g_clear_error (&cause);
  GST_WARNING_OBJECT (pool, "%s", err->message);
  if (pool->on_error)
    pool->on_error (err, pool->on_error_data);
  else
    g_error_free (err);
  gst_buffer_unref (buf);
  frame_free (f);
  return GST_FLOW_ERROR;
}

/* Where CUDA writes each plane of @f, and, for kinds with one, the video
 * meta of @buf that says where the planes are in its memories */
static void
frame_set_layout (GstCudaVkImagePool * pool, GstCudaVkFrame * f,
    GstBuffer * buf)
{
  const GstVideoInfo *info = &pool->info;
  gsize offset[GST_VIDEO_MAX_PLANES] = { 0, };
  gint stride[GST_VIDEO_MAX_PLANES] = { 0, };
  guint i, n = GST_VIDEO_INFO_N_PLANES (info);
  GstVideoMeta *vmeta;

  for (i = 0; i < n; i++) {
    if (pool->kind->multiplanar) {
      /* one image: the planes at the driver's layout in its memory */
      GstCudaVkPlane *p = &f->planes[0]->plane;

      f->plane_ptr[i] = p->cuda_ptr + p->sub_offset[i];
      f->plane_pitch[i] = p->sub_pitch[i];
      offset[i] = p->sub_offset[i];
      stride[i] = p->sub_pitch[i];
    } else {
      /* plane i is memory i: offsets count the memories before it (their
       * GstMemory sizes, which for an image are its allocation's, not its
       * subresource layout's) */
      f->plane_ptr[i] = f->planes[i]->plane.cuda_ptr;
      f->plane_pitch[i] = f->planes[i]->plane.pitch;
      offset[i] = i ? offset[i - 1] + gst_buffer_peek_memory (buf,
          i - 1)->size : 0;
      stride[i] = GST_VIDEO_INFO_PLANE_STRIDE (info, i);
    }
  }
  if (!pool->kind->video_meta)
    return;
  vmeta = gst_buffer_add_video_meta_full (buf, GST_VIDEO_FRAME_FLAG_NONE,
      GST_VIDEO_INFO_FORMAT (info), GST_VIDEO_INFO_WIDTH (info),
      GST_VIDEO_INFO_HEIGHT (info), n, offset, stride);
  /* survives the pool's reset */
  GST_META_FLAG_SET (vmeta, GST_META_FLAG_POOLED);
  GST_META_FLAG_SET (vmeta, GST_META_FLAG_LOCKED);
}

/* Allocates the @n memories of a frame into @planes: at once where the
 * kind does (its planes' images bound to one allocation), else, or where
 * the device refuses that allocation, one by one (a frame upstream cannot
 * write in place: it is copied into, gstcudavkupstreampool.c) */
static gboolean
alloc_planes (GstCudaVkImagePool * pool, const GstCudaVkAllocParams * alloc,
    GstCudaVkPlane * planes, guint n, GError ** error)
{
  GError *err = NULL;
  guint i;

  if (pool->kind->alloc_frame) {
    if (pool->kind->alloc_frame (alloc, &pool->info, pool->usage, planes, &err))
      return TRUE;
    GST_INFO_OBJECT (pool, "%s: one allocation per plane for this frame",
        err->message);
    g_clear_error (&err);
  }
  for (i = 0; i < n; i++) {
    if (!pool->kind->alloc_plane (alloc, &pool->info, i, pool->usage,
            &planes[i], error)) {
      while (i-- > 0)
        gst_cuda_vk_plane_free (alloc->cuda, alloc->device, &planes[i]);
      return FALSE;
    }
  }
  return TRUE;
}

static GstFlowReturn
pool_alloc_buffer (GstBufferPool * bpool, GstBuffer ** buffer,
    GstBufferPoolAcquireParams * params)
{
  GstCudaVkImagePool *pool = GST_CUDA_VK_IMAGE_POOL (bpool);
  GstCudaVkInterop *interop = pool->interop;
  const GstCudaVkAllocParams *alloc =
      gst_cuda_vk_interop_get_alloc_params (interop);
  GstCudaVkPlane planes[GST_VIDEO_MAX_PLANES];
  GstVideoInfo *info = &pool->info;
  GstBuffer *buf = gst_buffer_new ();
  GstCudaVkFrame *f = g_new0 (GstCudaVkFrame, 1);
  GError *err = NULL;
  guint i;

  f->n_mems = gst_cuda_vk_memory_kind_n_mems (pool->kind, info);
  if (!alloc_planes (pool, alloc, planes, f->n_mems, &err))
    return alloc_failed (pool, GST_RESOURCE_ERROR_NO_SPACE_LEFT,
        "Could not allocate shareable Vulkan memory", err, buf, f);
  for (i = 0; i < f->n_mems; i++) {
    GstCudaVkFramePlane *h = g_new0 (GstCudaVkFramePlane, 1);
    GstMemory *mem;

    h->plane = planes[i];
    h->cuda = gst_object_ref (gst_cuda_vk_interop_get_context (interop));
    h->device = gst_object_ref (pool->device);
    /* each memory frees its own plane: an allocation the planes share
     * goes with the last of them */
    mem = pool->kind->wrap_plane (pool->device, info, i, pool->usage,
        &h->plane, h, plane_holder_free);
    if (!mem) {
      plane_holder_free (h);
      while (++i < f->n_mems)
        gst_cuda_vk_plane_free (alloc->cuda, alloc->device, &planes[i]);
      return alloc_failed (pool, GST_RESOURCE_ERROR_NO_SPACE_LEFT,
          "Could not wrap Vulkan memory", err, buf, f);
    }
    f->planes[i] = h;
    gst_buffer_append_memory (buf, mem);
  }
  for (i = 0; i < f->n_mems; i++) {
    if (pool->kind->barrier_timeline &&
        gst_cuda_vk_interop_get_timeline (interop) &&
        !image_add_timeline (pool, (GstVulkanImageMemory *)
            gst_buffer_peek_memory (buf, i), &err)) {
      return alloc_failed (pool, GST_RESOURCE_ERROR_FAILED,
          "Could not create a timeline semaphore for a Vulkan image", err,
          buf, f);
    }
  }
  frame_set_layout (pool, f, buf);
  if (pool->kind->needs_layout && !frame_init_layout (pool, f, &err)) {
    return alloc_failed (pool, GST_RESOURCE_ERROR_FAILED,
        "Could not prepare new Vulkan images for CUDA", err, buf, f);
  }
  gst_mini_object_set_qdata (GST_MINI_OBJECT_CAST (buf), frame_quark, f,
      frame_free);
  GST_DEBUG_OBJECT (pool, "allocated a frame");
  *buffer = buf;
  return GST_FLOW_OK;
}

/* Downstream's work on the frame and the wait on its semaphore have
 * completed (then the semaphore may be signalled again), and so have
 * CUDA's reads of a frame lent to upstream (a failed query: not ready;
 * frame_wait() waits on the CPU). */
static gboolean
frame_ready (GstBuffer * buf)
{
  GstCudaVkFrame *f = gst_cuda_vk_frame_get (buf);

  if (f->fence && !gst_vulkan_fence_is_signaled (f->fence))
    return FALSE;
  if (f->read_pending) {
    if (gst_cuda_sync_event_query (f->read_event, NULL) !=
        GST_CUDA_SYNC_EVENT_COMPLETE)
      return FALSE;
    f->read_pending = FALSE;
  }
  return !f->sem || gst_cuda_vk_semaphore_waited (f->sem);
}

static void
frame_wait (GstCudaVkImagePool * pool, GstBuffer * buf)
{
  GstCudaVkFrame *f = gst_cuda_vk_frame_get (buf);
  VkResult res = VK_SUCCESS;

  if (f->fence && !gst_vulkan_fence_is_signaled (f->fence))
    res = vkWaitForFences (pool->device->device, 1, &GST_VULKAN_FENCE_FENCE
        (f->fence), VK_TRUE, G_MAXUINT64);
  if (res == VK_SUCCESS && f->sem && f->sem->wait_fence &&
      !gst_vulkan_fence_is_signaled (f->sem->wait_fence))
    res = vkWaitForFences (pool->device->device, 1, &GST_VULKAN_FENCE_FENCE
        (f->sem->wait_fence), VK_TRUE, G_MAXUINT64);
  /* a lost device: nothing will run on it any more; said here, where it
   * shows first when it happens at the end of a stream */
  if (res != VK_SUCCESS)
    GST_WARNING_OBJECT (pool, "waiting for a frame's Vulkan work failed: "
        "%d", res);
  if (f->sem)
    gst_cuda_vk_semaphore_waited (f->sem);
  if (f->read_pending) {
    GError *err = NULL;

    /* no readers' event to tell: the whole context */
    if (!gst_cuda_sync_event_wait_cpu (f->read_event, &err)) {
      GST_WARNING_OBJECT (pool, "%s: synchronising the CUDA context",
          err->message);
      g_clear_error (&err);
      if (!gst_cuda_sync_context_synchronize (gst_cuda_vk_interop_get_context
              (pool->interop), &err)) {
        GST_ERROR_OBJECT (pool, "%s", err->message);
        g_clear_error (&err);
      }
    }
    f->read_pending = FALSE;
  }
}

/* A frame of the pool is freed instead of coming back */
static void
frame_gone (GstCudaVkImagePool * pool)
{
  g_mutex_lock (&pool->lock);
  pool->n_frames--;
  g_cond_signal (&pool->cond);
  g_mutex_unlock (&pool->lock);
}

/* What acquire does next, pool->lock held: take a released frame that is
 * ready, allocate (counted in n_frames now), wait on the CPU for the oldest
 * released frame's GPU work, or wait for a frame to come back */
static GstFlowReturn
pick_frame_locked (GstCudaVkImagePool * pool, GstBufferPoolAcquireParams *
    params, GstBuffer ** buf, gboolean * allocate)
{
  GList *l;

  for (;;) {
    if (GST_BUFFER_POOL_IS_FLUSHING (GST_BUFFER_POOL_CAST (pool)))
      return GST_FLOW_FLUSHING;
    for (l = pool->released.head; l; l = l->next) {
      if (frame_ready (l->data)) {
        *buf = l->data;
        g_queue_delete_link (&pool->released, l);
        return GST_FLOW_OK;
      }
    }
    if (pool->n_frames < pool->max_frames) {
      pool->n_frames++;
      *allocate = TRUE;
      return GST_FLOW_OK;
    }
    if (pool->released.length > 0) {
      /* every frame allocated: wait (below, outside the lock, which
       * downstream's threads need to release frames) for the GPU work on
       * the oldest released one */
      *buf = g_queue_pop_head (&pool->released);
      GST_LOG_OBJECT (pool, "%u frames: waiting for the oldest",
          pool->n_frames);
      return GST_FLOW_OK;
    }
    /* all of them out downstream: back-pressure */
    if (params && (params->flags & GST_BUFFER_POOL_ACQUIRE_FLAG_DONTWAIT))
      return GST_FLOW_EOS;
    GST_DEBUG_OBJECT (pool, "all %u frames are out: waiting for one to come "
        "back", pool->n_frames);
    g_cond_wait (&pool->cond, &pool->lock);
  }
}

static GstFlowReturn
pool_acquire_buffer (GstBufferPool * bpool, GstBuffer ** buffer,
    GstBufferPoolAcquireParams * params)
{
  GstCudaVkImagePool *pool = GST_CUDA_VK_IMAGE_POOL (bpool);
  GstBuffer *buf = NULL;
  gboolean allocate = FALSE;
  GstFlowReturn ret;

  g_mutex_lock (&pool->lock);
  ret = pick_frame_locked (pool, params, &buf, &allocate);
  g_mutex_unlock (&pool->lock);
  if (ret != GST_FLOW_OK)
    return ret;
  if (buf) {
    frame_wait (pool, buf);
    *buffer = buf;
    return GST_FLOW_OK;
  }
  ret = pool_alloc_buffer (bpool, buffer, params);
  if (ret != GST_FLOW_OK)
    frame_gone (pool);
  return ret;
}

/* Downstream is done with @buf (its Vulkan work is submitted): give the
 * images back to the external queue family once that work completes, and
 * remember the fence; reuse happens when it has signalled. */
static void
pool_release_buffer (GstBufferPool * bpool, GstBuffer * buf)
{
  GstCudaVkImagePool *pool = GST_CUDA_VK_IMAGE_POOL (bpool);
  GstCudaVkFrame *f = gst_cuda_vk_frame_get (buf);
  GError *err = NULL;

  if (!f || gst_buffer_n_memory (buf) != f->n_mems) {
    /* not a frame as the pool made it (memories removed downstream) */
    gst_buffer_unref (buf);
    if (f)
      frame_gone (pool);
    return;
  }
  /* only a frame the queue took over since its last give-back: another
   * release of images that the external queue family owns would be an
   * invalid ownership transfer (a frame of the pool proposed upstream
   * comes back without a take-over when it was copied or dropped). The
   * last give-back's fence stays otherwise (vulkantocuda's, for a frame
   * read in place): its completion is seen through Vulkan before the
   * frame is used again or freed, not only through CUDA's wait on the
   * timeline it signals. */
  if (f->used) {
    GstVulkanFence *fence = gst_cuda_vk_interop_give_back (pool->interop,
        pool->kind, buf, f->n_mems, NULL, &err);

    if (!fence)
      goto error;
    if (f->fence)
      gst_vulkan_fence_unref (f->fence);
    f->fence = fence;
    f->used = FALSE;
  }

  g_mutex_lock (&pool->lock);
  g_queue_push_tail (&pool->released, buf);
  g_cond_signal (&pool->cond);
  g_mutex_unlock (&pool->lock);
  return;

error:
  GST_ERROR_OBJECT (pool, "could not release the frame to CUDA: %s; "
      "dropping it", err->message);
  g_clear_error (&err);
  /* the queue may still read the image */
  gst_vulkan_queue_submit_lock (pool->queue);
  vkQueueWaitIdle (pool->queue->queue);
  gst_vulkan_queue_submit_unlock (pool->queue);
  gst_buffer_unref (buf);
  frame_gone (pool);
}

static gboolean
pool_stop (GstBufferPool * bpool)
{
  GstCudaVkImagePool *pool = GST_CUDA_VK_IMAGE_POOL (bpool);
  GstBuffer *buf;

  g_mutex_lock (&pool->lock);
  while ((buf = g_queue_pop_head (&pool->released))) {
    frame_wait (pool, buf);
    pool->n_frames--;
    g_mutex_unlock (&pool->lock);
    gst_buffer_unref (buf);
    g_mutex_lock (&pool->lock);
  }
  gst_cuda_vk_interop_wait_given_back (pool->interop);
  g_mutex_unlock (&pool->lock);

  return GST_BUFFER_POOL_CLASS (gst_cuda_vk_image_pool_parent_class)->stop
      (bpool);
}

/* wakes an acquire waiting for a frame to come back (the flushing flag is
 * set before this is called) */
static void
pool_flush_start (GstBufferPool * bpool)
{
  GstCudaVkImagePool *pool = GST_CUDA_VK_IMAGE_POOL (bpool);

  g_mutex_lock (&pool->lock);
  g_cond_broadcast (&pool->cond);
  g_mutex_unlock (&pool->lock);
}

static void
pool_finalize (GObject * object)
{
  GstCudaVkImagePool *pool = GST_CUDA_VK_IMAGE_POOL (object);

  g_assert (pool->released.length == 0);
  g_cond_clear (&pool->cond);
  gst_clear_object (&pool->queue);
  gst_clear_object (&pool->device);
  gst_clear_object (&pool->interop);
  g_mutex_clear (&pool->lock);
  G_OBJECT_CLASS (gst_cuda_vk_image_pool_parent_class)->finalize (object);
}

static void
gst_cuda_vk_image_pool_class_init (GstCudaVkImagePoolClass * klass)
{
  GstBufferPoolClass *pool_class = GST_BUFFER_POOL_CLASS (klass);

  G_OBJECT_CLASS (klass)->finalize = pool_finalize;
  pool_class->alloc_buffer = pool_alloc_buffer;
  pool_class->acquire_buffer = pool_acquire_buffer;
  pool_class->release_buffer = pool_release_buffer;
  pool_class->stop = pool_stop;
  pool_class->flush_start = pool_flush_start;
  frame_quark = g_quark_from_static_string ("GstCudaVkFrame");
  GST_DEBUG_CATEGORY_INIT (gst_cuda_vk_frame_pool_debug, "cudavkframepool", 0,
      "the bridge's pool of exportable frames");
}

static void
gst_cuda_vk_image_pool_init (GstCudaVkImagePool * pool)
{
  g_mutex_init (&pool->lock);
  g_cond_init (&pool->cond);
  g_queue_init (&pool->released);
  pool->max_frames = GST_CUDA_VK_DEFAULT_MAX_FRAMES;
}

GstBufferPool *
gst_cuda_vk_frame_pool_new (GstCudaVkInterop * interop, GstVideoInfo * info,
    const GstCudaVkMemoryKind * kind, GstCudaVkPoolErrorFunc on_error,
    gpointer user_data)
{
  GstCudaVkImagePool *pool = g_object_new (GST_TYPE_CUDA_VK_IMAGE_POOL, NULL);
  GstStructure *config;
  GstCaps *caps = gst_video_info_to_caps (info);

  gst_object_ref_sink (pool);
  pool->interop = gst_object_ref (interop);
  pool->queue = gst_object_ref (gst_cuda_vk_interop_get_queue (interop));
  pool->device = gst_object_ref (pool->queue->device);
  pool->info = *info;
  pool->kind = kind;
  pool->usage = GST_CUDA_VK_IMAGE_USAGE;
  pool->on_error = on_error;
  pool->on_error_data = user_data;

  config = gst_buffer_pool_get_config (GST_BUFFER_POOL (pool));
  gst_buffer_pool_config_set_params (config, caps, info->size, 0, 0);
  gst_caps_unref (caps);
  gst_buffer_pool_set_config (GST_BUFFER_POOL (pool), config);
  return GST_BUFFER_POOL (pool);
}

void
gst_cuda_vk_frame_pool_set_max (GstBufferPool * bpool, guint max_frames)
{
  GstCudaVkImagePool *pool = GST_CUDA_VK_IMAGE_POOL (bpool);

  g_return_if_fail (max_frames > 0);
  g_mutex_lock (&pool->lock);
  GST_DEBUG_OBJECT (pool, "at most %u frames", max_frames);
  pool->max_frames = max_frames;
  /* a larger bound lets a waiting acquire allocate */
  g_cond_broadcast (&pool->cond);
  g_mutex_unlock (&pool->lock);
}

void
gst_cuda_vk_frame_pool_set_image_usage (GstBufferPool * bpool,
    VkImageUsageFlags usage)
{
  GstCudaVkImagePool *pool = GST_CUDA_VK_IMAGE_POOL (bpool);

  g_return_if_fail (!gst_buffer_pool_is_active (bpool));
  pool->usage = usage;
}

void
gst_cuda_vk_frame_pool_set_error_func (GstBufferPool * bpool,
    GstCudaVkPoolErrorFunc on_error, gpointer user_data)
{
  GstCudaVkImagePool *pool = GST_CUDA_VK_IMAGE_POOL (bpool);

  pool->on_error = on_error;
  pool->on_error_data = user_data;
}

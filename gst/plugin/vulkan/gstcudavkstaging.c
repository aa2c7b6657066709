/* gst-cudasync
 * Copyright (C) 2026 gst-cudasync developers
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * vulkantocuda's staging slots (see gstcudavkstaging.h).
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstcudavkstaging.h"
#include "gstcudavkinterop-private.h"
#include <gst/cuda/gstcudamemory.h>
#include <gst/cuda/cuda-gst.h>

GST_DEBUG_CATEGORY_EXTERN (gst_cuda_vk_debug);
#define GST_CAT_DEFAULT gst_cuda_vk_debug

#define STAGING_ALIGN 256

/* visible bytes of a row of plane @i */
static gsize
row_bytes (const GstVideoInfo * info, guint i)
{
  gint comp[GST_VIDEO_MAX_COMPONENTS];

  gst_video_format_info_component (info->finfo, i, comp);
  return (gsize) GST_VIDEO_INFO_COMP_WIDTH (info, comp[0]) *
      GST_VIDEO_INFO_COMP_PSTRIDE (info, comp[0]);
}

static gsize
plane_rows (const GstVideoInfo * info, guint i)
{
  gint comp[GST_VIDEO_MAX_COMPONENTS];

  gst_video_format_info_component (info->finfo, i, comp);
  return GST_VIDEO_INFO_COMP_HEIGHT (info, comp[0]);
}

gboolean
gst_cuda_vk_staging_wrappable (const GstVideoInfo * info)
{
  guint i;

  if (!gst_cuda_vk_compat_can_wrap ())
    return FALSE;
  for (i = 1; i < GST_VIDEO_INFO_N_PLANES (info); i++)
    if (row_bytes (info, i) > row_bytes (info, 0))
      return FALSE;
  return TRUE;
}

/* The planes' offsets and pitches in the staging buffer, and its size.
 * Wrap mode: one pitch for every plane, a whole number of rows in all
 * (see gst_cuda_vk_staging_wrappable()), and the GstVideoInfo of it. */
static gsize
layout (GstCudaVkStaging * s, const GstVideoInfo * info)
{
  gsize total = 0, pitch0 = GST_ROUND_UP_N (row_bytes (info, 0),
      STAGING_ALIGN);
  guint i;

  for (i = 0; i < GST_VIDEO_INFO_N_PLANES (info); i++) {
    s->offset[i] = total;
    if (s->wrap) {
      s->pitch[i] = pitch0;
      total += pitch0 * plane_rows (info, i);
    } else {
      s->pitch[i] = GST_ROUND_UP_N (row_bytes (info, i), STAGING_ALIGN);
      total += GST_ROUND_UP_N (s->pitch[i] * plane_rows (info, i),
          STAGING_ALIGN);
    }
  }
  if (s->wrap) {
    s->winfo = *info;
    for (i = 0; i < GST_VIDEO_INFO_N_PLANES (info); i++) {
      s->winfo.offset[i] = s->offset[i];
      s->winfo.stride[i] = (gint) s->pitch[i];
    }
    s->winfo.size = total;
  }
  return total;
}

GstCudaVkStagingWaiter *
gst_cuda_vk_staging_waiter_new (void)
{
  GstCudaVkStagingWaiter *w = g_new0 (GstCudaVkStagingWaiter, 1);

  w->refcount = 1;
  g_mutex_init (&w->lock);
  g_cond_init (&w->cond);
  return w;
}

static GstCudaVkStagingWaiter *
waiter_ref (GstCudaVkStagingWaiter * w)
{
  g_atomic_int_inc (&w->refcount);
  return w;
}

void
gst_cuda_vk_staging_waiter_unref (GstCudaVkStagingWaiter * w)
{
  if (!w || !g_atomic_int_dec_and_test (&w->refcount))
    return;
  g_mutex_clear (&w->lock);
  g_cond_clear (&w->cond);
  g_free (w);
}

void
gst_cuda_vk_staging_waiter_set_flushing (GstCudaVkStagingWaiter * w,
    gboolean flushing)
{
  g_mutex_lock (&w->lock);
  w->flushing = flushing;
  g_cond_broadcast (&w->cond);
  g_mutex_unlock (&w->lock);
}

/* in_use is cleared (and broken set before it) before the waiter's lock
 * is taken to signal, and read here with the lock held: no wake-up is
 * lost */
gboolean
gst_cuda_vk_staging_wait_returned (GstCudaVkStagingWaiter * w,
    GPtrArray * slots)
{
  gboolean ret;

  g_mutex_lock (&w->lock);
  for (;;) {
    guint i;

    if (w->flushing) {
      ret = FALSE;
      break;
    }
    for (i = 0; i < slots->len; i++) {
      GstCudaVkStaging *s = g_ptr_array_index (slots, i);

      /* a broken slot never comes back (its readers are unknown) */
      if (!g_atomic_int_get (&s->in_use) && !s->broken)
        break;
    }
    if (i < slots->len) {
      ret = TRUE;
      break;
    }
    g_cond_wait (&w->cond, &w->lock);
  }
  g_mutex_unlock (&w->lock);
  return ret;
}

GstCudaVkStaging *
gst_cuda_vk_staging_new (GstCudaVkInterop * self, const GstVideoInfo * info,
    gboolean wrap, GstCudaVkStagingWaiter * waiter, GError ** error)
{
  GstCudaVkStaging *s = g_new0 (GstCudaVkStaging, 1);
  gsize total;

  s->refcount = 1;
  s->wrap = wrap;
  total = layout (s, info);
  if (!gst_cuda_vk_plane_alloc_buffer (&self->alloc, &s->staging, total,
          VK_BUFFER_USAGE_TRANSFER_DST_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT,
          error)) {
    g_free (s);
    return NULL;
  }
  if (wrap && !(s->event = gst_cuda_sync_event_new (self->cuda, TRUE, error))) {
    gst_cuda_vk_plane_free (self->cuda, self->device, &s->staging);
    g_free (s);
    return NULL;
  }
  s->cuda = gst_object_ref (self->cuda);
  s->device = gst_object_ref (self->device);
  s->waiter = waiter_ref (waiter);
  GST_DEBUG_OBJECT (self, "allocated a staging buffer of %"
      G_GSIZE_FORMAT " bytes%s", total, wrap ? " (output memory)" : "");
  return s;
}

/* the last reference: waits (if needed) for the GPU work on @s */
static void
staging_free (GstCudaVkStaging * s)
{
  GError *err = NULL;

  if (s->fence) {
    vkWaitForFences (s->device->device, 1, &GST_VULKAN_FENCE_FENCE
        (s->fence), VK_TRUE, G_MAXUINT64);
    gst_vulkan_fence_unref (s->fence);
  }
  if (s->event_pending && !gst_cuda_sync_event_wait_cpu (s->event, &err)) {
    GST_WARNING ("staging buffer: %s", err->message);
    g_clear_error (&err);
  }
  g_clear_pointer (&s->event, gst_cuda_sync_event_unref);
  gst_cuda_vk_semaphore_free (s->sem);
  if (s->broken)
    /* downstream's reads could not be tracked: it may still read it */
    GST_WARNING ("leaking a staging buffer whose readers are unknown");
  else
    gst_cuda_vk_plane_free (s->cuda, s->device, &s->staging);
  gst_object_unref (s->cuda);
  gst_object_unref (s->device);
  gst_cuda_vk_staging_waiter_unref (s->waiter);
  g_free (s);
}

void
gst_cuda_vk_staging_unref (GstCudaVkStaging * s)
{
  if (s && g_atomic_int_dec_and_test (&s->refcount))
    staging_free (s);
}

/* A failed event query: wait on the CPU for the event (counted in
 * cpu-syncs). A failed wait is an error, never "done". */
static GstCudaVkStagingState
wait_event (GstCudaVkInterop * self, GstCudaVkStaging * s, GError ** error)
{
  gboolean ok = gst_cuda_sync_event_wait_cpu (s->event, error);

  gst_cuda_vk_interop_count (self, GST_CUDA_VK_COUNTER_CPU_SYNCS, 1);
  if (!ok)
    return GST_CUDA_VK_STAGING_ERROR;
  s->event_pending = FALSE;
  return GST_CUDA_VK_STAGING_READY;
}

GstCudaVkStagingState
gst_cuda_vk_staging_state (GstCudaVkInterop * self, GstCudaVkStaging * s,
    GError ** error)
{
  GError *err = NULL;

  if (g_atomic_int_get (&s->in_use) || s->broken)
    return GST_CUDA_VK_STAGING_BUSY;
  if (s->fence && !gst_vulkan_fence_is_signaled (s->fence))
    return GST_CUDA_VK_STAGING_BUSY;
  if (!s->event_pending)
    return GST_CUDA_VK_STAGING_READY;
  switch (gst_cuda_sync_event_query (s->event, &err)) {
    case GST_CUDA_SYNC_EVENT_PENDING:
      return GST_CUDA_VK_STAGING_BUSY;
    case GST_CUDA_SYNC_EVENT_COMPLETE:
      s->event_pending = FALSE;
      return GST_CUDA_VK_STAGING_READY;
    default:
      break;
  }
  GST_WARNING_OBJECT (self, "%s: waiting for the staging buffer's "
      "readers on the CPU", err->message);
  g_clear_error (&err);
  return wait_event (self, s, error);
}

gboolean
gst_cuda_vk_staging_wait (GstCudaVkInterop * self, GstCudaVkStaging * s,
    GError ** error)
{
  VkResult res;

  if (g_atomic_int_get (&s->in_use) || s->broken)
    return FALSE;
  gst_cuda_vk_interop_count (self, GST_CUDA_VK_COUNTER_BOUND_WAITS, 1);
  if (s->fence) {
    res = vkWaitForFences (s->device->device, 1, &GST_VULKAN_FENCE_FENCE
        (s->fence), VK_TRUE, G_MAXUINT64);
    if (gst_vulkan_error_to_g_error (res, error, "vkWaitForFences") < 0)
      return FALSE;
  }
  if (s->event_pending)
    return wait_event (self, s, error) == GST_CUDA_VK_STAGING_READY;
  gst_cuda_vk_interop_count (self, GST_CUDA_VK_COUNTER_CPU_SYNCS, 1);
  return TRUE;
}

void
gst_cuda_vk_staging_reuse (GstCudaVkStaging * s)
{
  if (s->fence) {
    gst_vulkan_fence_unref (s->fence);
    s->fence = NULL;
  }
  if (s->sem_unwaited) {
    /* its last signal was never waited for: the semaphore stays signalled,
     * so it cannot be signalled again. The Vulkan signal has executed (the
     * fence signalled), nothing of CUDA uses it: replace it. */
    gst_cuda_vk_semaphore_free (s->sem);
    s->sem = NULL;
    s->sem_unwaited = FALSE;
  }
}

/* The CUDA allocator frees a wrapped memory, with the context current: an
 * event on the legacy default stream tells when downstream's reads (on
 * blocking streams, enqueued before) are done. */
static void
wrapped_memory_freed (gpointer data)
{
  GstCudaVkStaging *s = data;
  GError *err = NULL;

  if (gst_cuda_sync_event_record (s->event, CU_STREAM_LEGACY, &err)) {
    s->event_pending = TRUE;
  } else {
    /* no event: wait on the CPU for all work of the context, readers
     * included; when even that fails nothing tells when the last reader is
     * done, and the buffer is never used again */
    GST_WARNING ("could not record an event behind the readers of a staging "
        "buffer (%s): synchronising the CUDA context", err->message);
    g_clear_error (&err);
    if (!gst_cuda_sync_context_synchronize (s->cuda, &err)) {
      GST_ERROR ("%s: a staging buffer is not used again", err->message);
      g_clear_error (&err);
      s->broken = TRUE;
    }
  }
  g_atomic_int_set (&s->in_use, 0);
  g_mutex_lock (&s->waiter->lock);
  g_cond_broadcast (&s->waiter->cond);
  g_mutex_unlock (&s->waiter->lock);
  gst_cuda_vk_staging_unref (s);
}

GstMemory *
gst_cuda_vk_staging_wrap (GstCudaVkInterop * self, GstCudaVkStaging * s)
{
  GstMemory *mem;

  g_return_val_if_fail (s->wrap, NULL);
  g_atomic_int_inc (&s->refcount);
  g_atomic_int_set (&s->in_use, 1);
  mem = gst_cuda_vk_compat_alloc_wrapped (self->cuda, self->cuda_stream,
      &s->winfo, s->staging.cuda_ptr, s, wrapped_memory_freed);
  if (!mem) {
    g_atomic_int_set (&s->in_use, 0);
    gst_cuda_vk_staging_unref (s);
  }
  return mem;
}

void
gst_cuda_vk_staging_clear (GPtrArray * slots)
{
  guint i;

  if (!slots)
    return;
  for (i = 0; i < slots->len; i++)
    gst_cuda_vk_staging_unref (g_ptr_array_index (slots, i));
  g_ptr_array_set_size (slots, 0);
}

void
gst_cuda_vk_staging_gc (GstCudaVkInterop * self, GPtrArray * slots)
{
  guint i = 0;

  while (i < slots->len) {
    GstCudaVkStaging *s = g_ptr_array_index (slots, i);
    GError *err = NULL;
    GstCudaVkStagingState st = gst_cuda_vk_staging_state (self, s, &err);

    if (st == GST_CUDA_VK_STAGING_ERROR) {
      /* cannot tell: keep it, the element's stop waits for the stream */
      GST_WARNING_OBJECT (self, "retired staging buffer: %s", err->message);
      g_clear_error (&err);
      i++;
    } else if (st == GST_CUDA_VK_STAGING_READY) {
      g_ptr_array_remove_index_fast (slots, i);
      gst_cuda_vk_staging_unref (s);
    } else {
      i++;
    }
  }
}

/* the oldest first: its GPU work (the copy into it, downstream's reads)
 * is the likeliest to be done */
GstCudaVkStaging *
gst_cuda_vk_staging_wait_oldest (GstCudaVkInterop * self, GPtrArray * slots,
    guint * next, GError ** error)
{
  guint i, n = slots->len;

  for (i = 0; i < n; i++) {
    guint k = (*next + i) % n;
    GstCudaVkStaging *s = g_ptr_array_index (slots, k);

    if (g_atomic_int_get (&s->in_use) || s->broken)
      continue;
    if (!gst_cuda_vk_staging_wait (self, s, error))
      return NULL;
    *next = (k + 1) % n;
    return s;
  }
  return NULL;
}

gboolean
gst_cuda_vk_staging_all_broken (GPtrArray * slots)
{
  guint i;

  for (i = 0; i < slots->len; i++)
    if (!((GstCudaVkStaging *) g_ptr_array_index (slots, i))->broken)
      return FALSE;
  return TRUE;
}

GstFlowReturn
gst_cuda_vk_staging_get (GstCudaVkInterop * interop, GPtrArray * slots,
    guint * next, guint limit, const GstVideoInfo * info, gboolean wrap,
    GstCudaVkStagingWaiter * waiter, GstCudaVkStaging ** out, GError ** error)
{
  GstCudaVkStaging *s;

  for (;;) {
    guint i, n = slots->len;

    /* round robin: the oldest first */
    for (i = 0; i < n; i++) {
      GstCudaVkStagingState st;

      s = g_ptr_array_index (slots, (*next + i) % n);
      st = gst_cuda_vk_staging_state (interop, s, error);
      if (st == GST_CUDA_VK_STAGING_ERROR)
        return GST_FLOW_ERROR;
      if (st == GST_CUDA_VK_STAGING_READY) {
        *next = (*next + i + 1) % n;
        goto found;
      }
    }
    if (n < limit)
      break;
    GST_LOG ("%u staging buffers in flight: at the limit", n);
    if ((s = gst_cuda_vk_staging_wait_oldest (interop, slots, next, error)))
      goto found;
    if (*error)
      return GST_FLOW_ERROR;
    if (gst_cuda_vk_staging_all_broken (slots)) {
      g_set_error (error, GST_CUDA_SYNC_ERROR, GST_CUDA_SYNC_ERROR_FAILED,
          "none of the %u staging buffers can be used again: their readers "
          "could not be tracked", n);
      return GST_FLOW_ERROR;
    }
    GST_DEBUG ("downstream holds all %u output buffers: waiting for one", n);
    if (!gst_cuda_vk_staging_wait_returned (waiter, slots))
      return GST_FLOW_FLUSHING;
  }

  s = gst_cuda_vk_staging_new (interop, info, wrap, waiter, error);
  if (!s)
    return GST_FLOW_ERROR;
  g_ptr_array_add (slots, s);

found:
  gst_cuda_vk_staging_reuse (s);
  *out = s;
  return GST_FLOW_OK;
}

/* gst-cudasync
 * Copyright (C) 2026 gst-cudasync developers
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstcudavkpoolbound.h"

void
gst_cuda_vk_pool_bound_init (GstCudaVkPoolBound * b)
{
  g_mutex_init (&b->lock);
  g_cond_init (&b->cond);
  b->max_buffers = 0;
  b->outstanding = 0;
  b->flushing = FALSE;
}

void
gst_cuda_vk_pool_bound_clear (GstCudaVkPoolBound * b)
{
  g_mutex_clear (&b->lock);
  g_cond_clear (&b->cond);
}

void
gst_cuda_vk_pool_bound_set_max (GstCudaVkPoolBound * b, guint max_buffers)
{
  g_mutex_lock (&b->lock);
  b->max_buffers = max_buffers;
  /* a larger bound lets a waiting take go on */
  g_cond_broadcast (&b->cond);
  g_mutex_unlock (&b->lock);
}

GstFlowReturn
gst_cuda_vk_pool_bound_take (GstCudaVkPoolBound * b,
    GstBufferPoolAcquireParams * params)
{
  GstFlowReturn ret = GST_FLOW_OK;

  g_mutex_lock (&b->lock);
  while (b->max_buffers && b->outstanding >= b->max_buffers && !b->flushing) {
    if (params && (params->flags & GST_BUFFER_POOL_ACQUIRE_FLAG_DONTWAIT)) {
      ret = GST_FLOW_EOS;
      break;
    }
    g_cond_wait (&b->cond, &b->lock);
  }
  if (b->flushing)
    ret = GST_FLOW_FLUSHING;
  if (ret == GST_FLOW_OK)
    b->outstanding++;
  g_mutex_unlock (&b->lock);
  return ret;
}

void
gst_cuda_vk_pool_bound_give (GstCudaVkPoolBound * b)
{
  g_mutex_lock (&b->lock);
  b->outstanding--;
  g_cond_signal (&b->cond);
  g_mutex_unlock (&b->lock);
}

gboolean
gst_cuda_vk_pool_bound_flushing (GstCudaVkPoolBound * b)
{
  gboolean ret;

  g_mutex_lock (&b->lock);
  ret = b->flushing;
  g_mutex_unlock (&b->lock);
  return ret;
}

void
gst_cuda_vk_pool_bound_set_flushing (GstCudaVkPoolBound * b, gboolean flushing)
{
  g_mutex_lock (&b->lock);
  b->flushing = flushing;
  if (flushing)
    g_cond_broadcast (&b->cond);
  g_mutex_unlock (&b->lock);
}

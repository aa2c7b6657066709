/* gst-cudasync
 * Copyright (C) 2026 gst-cudasync developers
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <gst/gst.h>
#include <gst/base/gstbasetransform.h>
#include <gst/video/video.h>
#include <gst/vulkan/vulkan.h>
#include "gstcudasyncbasetransform.h"
#include "gstcudavkinterop.h"

G_BEGIN_DECLS

#define GST_TYPE_CUDA_VK_BASE_TRANSFORM (gst_cuda_vk_base_transform_get_type ())
G_DECLARE_DERIVABLE_TYPE (GstCudaVkBaseTransform, gst_cuda_vk_base_transform,
    GST, CUDA_VK_BASE_TRANSFORM, GstCudaSyncBaseTransform)

/**
 * GstCudaVkBaseTransformClass:
 * @to_vulkan: the element's output is the Vulkan side (cudatovulkan), else
 *   the CUDA side (vulkantocuda); also: it offers upstream a semaphore
 * @set_info: called by set_caps once in_info and out_info are parsed
 * @set_flushing: wake (TRUE) a streaming thread waiting for downstream to
 *   give an output back, until called with FALSE: on FLUSH_START and
 *   FLUSH_STOP, and before PAUSED->READY (the output pool is set flushing
 *   by the base class)
 *
 * The abstract base of cudatovulkan and vulkantocuda, on
 * #GstCudaSyncBaseTransform (`cuda-device-id`, `stats`, the CUDA context
 * and stream, which it opens in NULL->READY with the devices and closes in
 * READY->NULL): the `timeline` property, the Vulkan contexts (instance,
 * device and queue, shared through GstContext), the devices' set-up, the
 * GstCudaVkInterop the hand-overs run on (made in NULL->READY, flushed in
 * stop, stopped in READY->NULL), caps, the output pool and errors. Not
 * registered as an element.
 */
struct _GstCudaVkBaseTransformClass
{
  GstCudaSyncBaseTransformClass parent_class;

  gboolean to_vulkan;

  gboolean (*set_info) (GstCudaVkBaseTransform * self, GstCaps * incaps,
      GstCaps * outcaps);
  void (*set_flushing) (GstCudaVkBaseTransform * self, gboolean flushing);
};

/* What the subclasses use. The interop and the device (transfer none) are
 * set up in NULL->READY and dropped in READY->NULL by the thread that
 * changes the state, and used by the streaming thread in between (outside,
 * the interop is NULL, and the device NULL or the pipeline's, not set up
 * yet). */
GstCudaVkInterop * gst_cuda_vk_base_transform_get_interop (GstCudaVkBaseTransform * self);
GstVulkanDevice * gst_cuda_vk_base_transform_get_device (GstCudaVkBaseTransform * self);
/* How the last start synchronises: "timeline", "binary" or "none" (the
 * CPU fallback) */
const gchar * gst_cuda_vk_base_transform_get_semaphore_type (GstCudaVkBaseTransform * self);
/* the negotiated video infos */
GstVideoInfo * gst_cuda_vk_base_transform_get_in_info (GstCudaVkBaseTransform * self);
GstVideoInfo * gst_cuda_vk_base_transform_get_out_info (GstCudaVkBaseTransform * self);
/* the output pool (transfer full), or NULL before caps */
GstBufferPool * gst_cuda_vk_base_transform_get_pool (GstCudaVkBaseTransform * self);
/* TRUE once the element posted an element error, until its next start:
 * it negotiates no more and refuses every input buffer (GST_FLOW_ERROR) */
gboolean gst_cuda_vk_base_transform_has_failed (GstCudaVkBaseTransform * self);
/* replaces the output pool (transfer full, nullable); the old one is
 * deactivated */
void     gst_cuda_vk_base_transform_set_pool (GstCudaVkBaseTransform * self,
                                              GstBufferPool * pool);
/* A frame pool's error function (gstcudavkframepool.h) for the element
 * @self: it could not allocate a frame (on the streaming thread, or
 * upstream's through a pool proposed to it), the element's error */
void     gst_cuda_vk_base_transform_pool_error (GError * error,
                                                gpointer self);

/* deactivates and drops *@pool, if any */
void     gst_cuda_vk_clear_pool          (GstBufferPool ** pool);
/* decide_allocation: how many output buffers the element has at most.
 * Downstream's max-buffers (the first pool of @query) when it gives one,
 * else @default_max; in any case more than downstream's min-buffers. */
guint    gst_cuda_vk_allocation_bound    (GstQuery * query, guint default_max);

G_END_DECLS

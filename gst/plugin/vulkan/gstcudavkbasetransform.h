/* gst-cudasync
 * Copyright (C) 2026 gst-cudasync developers
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <gst/gst.h>
#include <gst/base/gstbasetransform.h>
#include "gstcudavkbridge.h"
#include "gstcudasyncbasetransform.h"

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
 * READY->NULL): the `timeline` property, the Vulkan contexts (GstContext),
 * the devices' set-up, caps, the output pool and errors. Not registered
 * as an element.
 */
struct _GstCudaVkBaseTransformClass
{
  GstCudaSyncBaseTransformClass parent_class;

  gboolean to_vulkan;

  gboolean (*set_info) (GstCudaVkBaseTransform * self, GstCaps * incaps,
      GstCaps * outcaps);
  void (*set_flushing) (GstCudaVkBaseTransform * self, gboolean flushing);
};

/* What the subclasses use: the bridge state (the streaming thread, and
 * start/stop, own it), the negotiated video infos and the output pool */
GstCudaVkBridge * gst_cuda_vk_base_transform_get_bridge (GstCudaVkBaseTransform * self);
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

G_END_DECLS

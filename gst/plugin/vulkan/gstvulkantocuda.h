/* gst-cudasync
 * Copyright (C) 2026 gst-cudasync developers
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <gst/gst.h>
#include "gstcudavkbasetransform.h"

G_BEGIN_DECLS

#define GST_TYPE_VULKAN_TO_CUDA (gst_vulkan_to_cuda_get_type ())
G_DECLARE_FINAL_TYPE (GstVulkanToCuda, gst_vulkan_to_cuda, GST, VULKAN_TO_CUDA,
    GstCudaVkBaseTransform)

GST_ELEMENT_REGISTER_DECLARE (vulkantocuda);

G_END_DECLS

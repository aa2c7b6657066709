/* gst-cudasync
 * Copyright (C) 2026 gst-cudasync developers
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <gst/gst.h>
#include "gstcudavkbasetransform.h"

G_BEGIN_DECLS

#define GST_TYPE_CUDA_TO_VULKAN (gst_cuda_to_vulkan_get_type ())
G_DECLARE_FINAL_TYPE (GstCudaToVulkan, gst_cuda_to_vulkan, GST, CUDA_TO_VULKAN,
    GstCudaVkBaseTransform)

GST_ELEMENT_REGISTER_DECLARE (cudatovulkan);

G_END_DECLS

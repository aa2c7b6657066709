/* gst-cudasync
 * Copyright (C) 2026 gst-cudasync developers
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <gst/base/gstpushsrc.h>

G_BEGIN_DECLS

#define GST_TYPE_CUDA_SYNC_IPC_SRC (gst_cuda_sync_ipc_src_get_type ())
G_DECLARE_FINAL_TYPE (GstCudaSyncIpcSrc, gst_cuda_sync_ipc_src, GST,
    CUDA_SYNC_IPC_SRC, GstPushSrc)

GST_ELEMENT_REGISTER_DECLARE (cudasyncipcsrc);

G_END_DECLS

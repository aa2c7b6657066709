/* gst-cudasync
 * Copyright (C) 2026 gst-cudasync developers
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <gst/base/gstbasesink.h>

G_BEGIN_DECLS

#define GST_TYPE_CUDA_SYNC_IPC_SINK (gst_cuda_sync_ipc_sink_get_type ())
G_DECLARE_FINAL_TYPE (GstCudaSyncIpcSink, gst_cuda_sync_ipc_sink, GST,
    CUDA_SYNC_IPC_SINK, GstBaseSink)

GST_ELEMENT_REGISTER_DECLARE (cudasyncipcsink);

G_END_DECLS

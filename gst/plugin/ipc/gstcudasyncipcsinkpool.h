/* gst-cudasync
 * Copyright (C) 2026 gst-cudasync developers
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The pool cudasyncipcsink proposes upstream: its shareable frames
 * themselves, so that upstream writes each frame in place and the sink
 * sends it without a copy. Not installed.
 */
#pragma once

#include "gstcudasyncipcserver.h"

G_BEGIN_DECLS

/* A pool of @server's frames for @caps (its current caps), or NULL where
 * GStreamer cannot hand them out (before 1.24: no stream in a CUDA pool's
 * config, no wrapped CUDA memory) or the layout does not survive
 * GstCudaMemory's CPU map */
GstBufferPool * gst_cuda_sync_ipc_sink_pool_new (GstCudaSyncIpcServer * server,
                                            GstCudaContext * context,
                                            GstCaps * caps);

G_END_DECLS

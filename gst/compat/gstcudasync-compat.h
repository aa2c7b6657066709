/* gst-cudasync
 * Copyright (C) 2026 gst-cudasync developers
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The GStreamer versions the project builds against, as capabilities:
 * the only place that tests GST_CHECK_VERSION. Not installed.
 */
#pragma once

#include <gst/gst.h>

/* library capabilities */

/* 1.24+: a GstCudaMemory carries the GstCudaStream its producer wrote it
 * on, and may be pushed with work still pending there
 * (GST_CUDA_MEMORY_TRANSFER_NEED_SYNC); per-memory user tokens */
#if GST_CHECK_VERSION(1, 24, 0)
#define GST_CUDA_SYNC_HAVE_MEMORY_STREAM 1
#endif

/* 1.26+: libgstcuda loads and exports wrappers (CuImportExternalSemaphore,
 * CuEventCreate, ...) of the driver entry points the library needs */
#if GST_CHECK_VERSION(1, 26, 0)
#define GST_CUDA_SYNC_HAVE_GST_CUDA_LOADER_WRAPPERS 1
#endif

/* end of library capabilities */

/* plugin capabilities */
/* end of plugin capabilities */

/* gst-cudasync
 * Copyright (C) 2026 gst-cudasync developers
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <gst/cudasync/cudasync-prelude.h>

G_BEGIN_DECLS

/**
 * GST_CUDA_SYNC_ERROR:
 *
 * Error domain of the gst-cudasync library.
 *
 * Since: 0.1
 */
#define GST_CUDA_SYNC_ERROR (gst_cuda_sync_error_quark ())

/**
 * GstCudaSyncError:
 * @GST_CUDA_SYNC_ERROR_FAILED: generic failure
 * @GST_CUDA_SYNC_ERROR_NO_DRIVER: the CUDA driver or one of its entry points
 *   is missing
 * @GST_CUDA_SYNC_ERROR_DRIVER: a CUDA driver call failed; the message names
 *   the call and the `CUresult`
 * @GST_CUDA_SYNC_ERROR_INVALID_HANDLE: the handle (fd, NvSciSync object) is
 *   invalid, closed, or not of the declared type
 * @GST_CUDA_SYNC_ERROR_WRONG_DEVICE: the semaphore belongs to another CUDA
 *   context or device
 * @GST_CUDA_SYNC_ERROR_PROTOCOL: the operation would break the semaphore's
 *   rules (binary semaphore signalled twice, timeline value not increasing,
 *   semaphore type cannot do this)
 * @GST_CUDA_SYNC_ERROR_NOT_SUPPORTED: the driver or the object does not
 *   support the operation
 * @GST_CUDA_SYNC_ERROR_TIMEOUT: a CPU wait timed out
 *
 * Errors reported by the library.
 *
 * Since: 0.1
 */
typedef enum
{
  GST_CUDA_SYNC_ERROR_FAILED,
  GST_CUDA_SYNC_ERROR_NO_DRIVER,
  GST_CUDA_SYNC_ERROR_DRIVER,
  GST_CUDA_SYNC_ERROR_INVALID_HANDLE,
  GST_CUDA_SYNC_ERROR_WRONG_DEVICE,
  GST_CUDA_SYNC_ERROR_PROTOCOL,
  GST_CUDA_SYNC_ERROR_NOT_SUPPORTED,
  GST_CUDA_SYNC_ERROR_TIMEOUT,
} GstCudaSyncError;

GST_CUDA_SYNC_API
GQuark gst_cuda_sync_error_quark (void);

/**
 * gst_cuda_sync_init:
 * @error: return location for a #GError
 *
 * Loads the CUDA driver entry points the library needs (external semaphores
 * and memory, events, stream waits, device UUID) from `libcuda.so.1`, once
 * and thread-safely. Every other function calls it; applications may call it
 * to find out early whether the driver is usable.
 *
 * Returns: %TRUE when the driver and all entry points are available.
 *
 * Since: 0.1
 */
GST_CUDA_SYNC_API
gboolean gst_cuda_sync_init (GError ** error);

GST_CUDA_SYNC_API
void     gst_cuda_sync_wait_idle (void);

G_END_DECLS

/* gst-cudasync
 * Copyright (C) 2026 gst-cudasync developers
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include "gstcudasembase.h"

G_BEGIN_DECLS

#define GST_TYPE_CUDA_SEM_WAIT (gst_cuda_sem_wait_get_type ())
G_DECLARE_FINAL_TYPE (GstCudaSemWait, gst_cuda_sem_wait, GST,
    CUDA_SEM_WAIT, GstCudaSemBase)

/**
 * GstCudaSemWaitMode:
 * @GST_CUDA_SEM_WAIT_MODE_GPU: enqueue the waits on the CUDA context's legacy
 *   default stream; nothing blocks
 * @GST_CUDA_SEM_WAIT_MODE_CPU: additionally block the streaming thread until
 *   the acquire points are reached (counted in `cpu-syncs`)
 */
typedef enum
{
  GST_CUDA_SEM_WAIT_MODE_GPU,
  GST_CUDA_SEM_WAIT_MODE_CPU,
} GstCudaSemWaitMode;

GST_ELEMENT_REGISTER_DECLARE (cudasemwait);

G_END_DECLS

/* gst-cudasync
 * Copyright (C) 2026 gst-cudasync developers
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include "gstcudasembase.h"

G_BEGIN_DECLS

#define GST_TYPE_CUDA_SEM_SIGNAL (gst_cuda_sem_signal_get_type ())
G_DECLARE_FINAL_TYPE (GstCudaSemSignal, gst_cuda_sem_signal, GST,
    CUDA_SEM_SIGNAL, GstCudaSemBase)

/**
 * GstCudaSemSignalFallback:
 * @GST_CUDA_SEM_SIGNAL_FALLBACK_SYNC: synchronise the CUDA stream on the CPU
 *   before pushing (counted in `cpu-syncs`)
 * @GST_CUDA_SEM_SIGNAL_FALLBACK_ERROR: post an error
 *
 * What cudasemsignal does when it has no semaphore to signal.
 */
typedef enum
{
  GST_CUDA_SEM_SIGNAL_FALLBACK_SYNC,
  GST_CUDA_SEM_SIGNAL_FALLBACK_ERROR,
} GstCudaSemSignalFallback;

GST_ELEMENT_REGISTER_DECLARE (cudasemsignal);

G_END_DECLS

/* gst-cudasync
 * Copyright (C) 2026 gst-cudasync developers
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <gst/gst.h>
#include <gst/base/gstbasetransform.h>
#include <gst/cuda/gstcudacontext.h>
#include <gst/cudasync/gstcudasync-internal.h>
#include "gstcudasyncbasetransform.h"

G_BEGIN_DECLS

#define GST_TYPE_CUDA_SEM_BASE (gst_cuda_sem_base_get_type ())
G_DECLARE_DERIVABLE_TYPE (GstCudaSemBase, gst_cuda_sem_base,
    GST, CUDA_SEM_BASE, GstCudaSyncBaseTransform)

/**
 * GstCudaSemBase:
 *
 * Shared base of cudasemsignal and cudasemwait, on
 * #GstCudaSyncBaseTransform (`cuda-device-id`, `stats`, the context, the
 * element's own CUDA stream, start and stop): the `semaphore` and
 * `skip-nvscibuf-memsync` properties (the semaphore's context is the one
 * the element starts with), and input checks. Not registered as an
 * element.
 */
struct _GstCudaSemBaseClass
{
  GstCudaSyncBaseTransformClass parent_class;
};

/* counters shared by the subclasses: the numbers of their counter_names
 * (GstCudaSyncBaseTransformClass), of the fields "buffers", "signals",
 * "waits", "cpu-syncs" and "last-value" */
typedef enum
{
  GST_CUDA_SEM_COUNTER_BUFFERS,
  GST_CUDA_SEM_COUNTER_SIGNALS,
  GST_CUDA_SEM_COUNTER_WAITS,
  GST_CUDA_SEM_COUNTER_CPU_SYNCS,
  GST_CUDA_SEM_COUNTER_LAST_VALUE,
  GST_CUDA_SYNC_N_COUNTERS,
} GstCudaSyncCounter;

GstCudaContext *   gst_cuda_sem_base_get_context   (GstCudaSemBase * self);
GstCudaSemaphore * gst_cuda_sem_base_dup_semaphore (GstCudaSemBase * self);
gboolean           gst_cuda_sem_base_get_skip_nvscibuf_memsync (GstCudaSemBase * self);
GstCudaSyncFlags   gst_cuda_sem_base_get_flags     (GstCudaSemBase * self);
void               gst_cuda_sem_base_count         (GstCudaSemBase * self,
                                                            GstCudaSyncCounter counter,
                                                            guint64 add);
/* counts one signal and sets last-value, under one lock (per buffer) */
void               gst_cuda_sem_base_count_signal  (GstCudaSemBase * self,
                                                            guint64 value);
gboolean           gst_cuda_sem_base_check_input   (GstCudaSemBase * self,
                                                            GstBuffer * buffer);
gboolean           gst_cuda_sem_base_check_semaphore (GstCudaSemBase * self,
                                                            GstCudaSemaphore * sem,
                                                            const gchar * what);
gboolean           gst_cuda_sem_base_input_stream  (GstCudaSemBase * self,
                                                            GstBuffer * buffer,
                                                            CUstream * stream,
                                                            GError ** error);
gboolean           gst_cuda_sem_base_wait_acquire  (GstCudaSemBase * self,
                                                            GstCudaSyncMeta * meta,
                                                            CUstream stream);
gboolean           gst_cuda_sem_base_cpu_sync      (GstCudaSemBase * self,
                                                            CUstream stream);

G_END_DECLS

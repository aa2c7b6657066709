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

#define GST_TYPE_CUDA_SYNC_BASE_FILTER (gst_cuda_sync_base_filter_get_type ())
G_DECLARE_DERIVABLE_TYPE (GstCudaSyncBaseFilter, gst_cuda_sync_base_filter,
    GST, CUDA_SYNC_BASE_FILTER, GstCudaSyncBaseTransform)

/**
 * GstCudaSyncBaseFilter:
 *
 * Shared base of cudasemsignal and cudasemwait, on
 * #GstCudaSyncBaseTransform (`cuda-device-id`, `stats`, the context, the
 * element's own CUDA stream, start and stop): the `semaphore` and
 * `skip-nvscibuf-memsync` properties (the semaphore's context is the one
 * the element starts with), and input checks. Not registered as an
 * element.
 */
struct _GstCudaSyncBaseFilterClass
{
  GstCudaSyncBaseTransformClass parent_class;
};

/* counters shared by the subclasses: the numbers of their counter_names
 * (GstCudaSyncBaseTransformClass), of the fields "buffers", "signals",
 * "waits", "cpu-syncs" and "last-value" */
typedef enum
{
  GST_CUDA_SYNC_COUNTER_BUFFERS,
  GST_CUDA_SYNC_COUNTER_SIGNALS,
  GST_CUDA_SYNC_COUNTER_WAITS,
  GST_CUDA_SYNC_COUNTER_CPU_SYNCS,
  GST_CUDA_SYNC_COUNTER_LAST_VALUE,
  GST_CUDA_SYNC_N_COUNTERS,
} GstCudaSyncCounter;

GstCudaContext *   gst_cuda_sync_base_filter_get_context   (GstCudaSyncBaseFilter * self);
GstCudaSemaphore * gst_cuda_sync_base_filter_dup_semaphore (GstCudaSyncBaseFilter * self);
gboolean           gst_cuda_sync_base_filter_get_skip_nvscibuf_memsync (GstCudaSyncBaseFilter * self);
GstCudaSyncFlags   gst_cuda_sync_base_filter_get_flags     (GstCudaSyncBaseFilter * self);
void               gst_cuda_sync_base_filter_count         (GstCudaSyncBaseFilter * self,
                                                            GstCudaSyncCounter counter,
                                                            guint64 add);
/* counts one signal and sets last-value, under one lock (per buffer) */
void               gst_cuda_sync_base_filter_count_signal  (GstCudaSyncBaseFilter * self,
                                                            guint64 value);
gboolean           gst_cuda_sync_base_filter_check_input   (GstCudaSyncBaseFilter * self,
                                                            GstBuffer * buffer);
gboolean           gst_cuda_sync_base_filter_check_semaphore (GstCudaSyncBaseFilter * self,
                                                            GstCudaSemaphore * sem,
                                                            const gchar * what);
gboolean           gst_cuda_sync_base_filter_input_stream  (GstCudaSyncBaseFilter * self,
                                                            GstBuffer * buffer,
                                                            CUstream * stream,
                                                            GError ** error);
gboolean           gst_cuda_sync_base_filter_wait_acquire  (GstCudaSyncBaseFilter * self,
                                                            GstCudaSyncMeta * meta,
                                                            CUstream stream);
gboolean           gst_cuda_sync_base_filter_cpu_sync      (GstCudaSyncBaseFilter * self,
                                                            CUstream stream);

G_END_DECLS

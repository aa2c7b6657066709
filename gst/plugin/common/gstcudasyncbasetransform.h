/* gst-cudasync
 * Copyright (C) 2026 gst-cudasync developers
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <gst/gst.h>
#include <gst/base/gstbasetransform.h>
#include <gst/cuda/gstcudacontext.h>
#include <gst/cudasync/gstcudasync-internal.h>
#include "gstcudasyncstats.h"

G_BEGIN_DECLS

/* 1.24+: upstream's GstCudaStream; an opaque type never instantiated on
 * 1.22 */
typedef struct _GstCudaStream GstCudaStream;

#define GST_TYPE_CUDA_SYNC_BASE_TRANSFORM \
    (gst_cuda_sync_base_transform_get_type ())
G_DECLARE_DERIVABLE_TYPE (GstCudaSyncBaseTransform,
    gst_cuda_sync_base_transform, GST, CUDA_SYNC_BASE_TRANSFORM,
    GstBaseTransform)

/* the most counters a subclass has */
#define GST_CUDA_SYNC_MAX_COUNTERS 16

/**
 * GstCudaSyncBaseTransformClass:
 * @counter_names: the stats structure's field of each counter, by counter
 *   number; NULL for a counter not shown
 * @n_counters: how many entries @counter_names has
 * @add_stats: adds what follows the counters to the stats structure
 *   (called without the counters' lock held)
 * @open_context: makes the element's CUDA context the one it starts with
 *   (the default: the pipeline's, or a new one for `cuda-device-id`);
 *   FALSE once it has posted an element error
 * @stream_new: makes the element's stream on @context: a blocking stream
 *   in *@stream and, where the subclass wants one (1.24+), its
 *   GstCudaStream in *@owner, else NULL (the default: cuStreamCreate, no
 *   owner); called without @context current
 * @stream_free: releases what @stream_new made (the default destroys the
 *   stream without waiting: its pending work completes first)
 *
 * The abstract base of every element of the plugin (cudasemsignal and
 * cudasemwait through #GstCudaSemBase, cudatovulkan and
 * vulkantocuda through #GstCudaVkBaseTransform): the `cuda-device-id`
 * property (gst_cuda_sync_base_transform_class_install_properties()), the
 * `stats` property each element installs with the fields it reports
 * (gst_cuda_sync_base_transform_class_install_stats()) and notifies when
 * EOS leaves it, the counters, the CUDA context (GstContext query and
 * set_context), and the start and stop of the CUDA side: the driver, the
 * context and the element's own CUDA stream
 * (gst_cuda_sync_base_transform_open() and _close(), GstBaseTransform's
 * start and stop unless a subclass calls them itself). Not registered as
 * an element.
 */
struct _GstCudaSyncBaseTransformClass
{
  GstBaseTransformClass parent_class;

  const gchar *const *counter_names;
  guint n_counters;

  void (*add_stats) (GstCudaSyncBaseTransform * self, GstStructure * stats);

  gboolean (*open_context) (GstCudaSyncBaseTransform * self);
  gboolean (*stream_new) (GstCudaContext * context, GstCudaStream ** owner,
      CUstream * stream, GError ** error);
  void (*stream_free) (GstCudaContext * context, GstCudaStream ** owner,
      CUstream * stream);
};

/* Property ids the base handles; a subclass numbers its own from
 * GST_CUDA_SYNC_BASE_TRANSFORM_PROP_LAST and hands the others to its parent
 * class's set_property/get_property */
enum
{
  GST_CUDA_SYNC_BASE_TRANSFORM_PROP_DEVICE_ID = 1,
  GST_CUDA_SYNC_BASE_TRANSFORM_PROP_STATS,
  GST_CUDA_SYNC_BASE_TRANSFORM_PROP_LAST,
};

/* Installs `cuda-device-id` on @klass with this description (the element
 * family's) */
void gst_cuda_sync_base_transform_class_install_properties (GObjectClass *
    klass, const gchar * device_id_blurb);
/* Installs `stats` on the element's own class @klass, described by the
 * fields it reports (a NULL-terminated table, gstcudasyncstats.h): the
 * element's get_property hands GST_CUDA_SYNC_BASE_TRANSFORM_PROP_STATS on
 * to its parent class's */
void gst_cuda_sync_base_transform_class_install_stats (GObjectClass * klass,
    const GstCudaSyncStatsField * fields);

gint gst_cuda_sync_base_transform_get_device_id (GstCudaSyncBaseTransform *
    self);
void gst_cuda_sync_base_transform_count (GstCudaSyncBaseTransform * self,
    guint counter, guint64 add);
/* gst_cuda_sync_base_transform_count() as a count function for code that
 * knows no element (@self: the element, as its user data) */
void gst_cuda_sync_base_transform_count_func (gpointer self, guint counter,
    guint64 add);
/* adds @add to @counter and sets @set_counter to @value, under one lock */
void gst_cuda_sync_base_transform_count_and_set (GstCudaSyncBaseTransform *
    self, guint counter, guint64 add, guint set_counter, guint64 value);

/* The context: set_context() or a context query's answer may set it from
 * any thread; _ensure_context() (the pipeline's context, or a new one for
 * `cuda-device-id`) and _drop_context() run on the thread that starts and
 * stops the element. _get_context() (transfer none): the streaming thread,
 * between the two. */
GstCudaContext *gst_cuda_sync_base_transform_get_context
    (GstCudaSyncBaseTransform * self);
gboolean gst_cuda_sync_base_transform_ensure_context
    (GstCudaSyncBaseTransform * self);
/* makes @context (transfer none) the element's when it has none yet;
 * returns the element's (transfer none) */
GstCudaContext *gst_cuda_sync_base_transform_adopt_context
    (GstCudaSyncBaseTransform * self, GstCudaContext * context);
void gst_cuda_sync_base_transform_drop_context (GstCudaSyncBaseTransform *
    self);

/* The CUDA side's start: the driver, the context (the class's
 * open_context) and the element's stream (stream_new). FALSE once it has
 * posted an element error; what it made is released by _close(). On the
 * thread that starts and stops the element. */
gboolean gst_cuda_sync_base_transform_open (GstCudaSyncBaseTransform * self);
/* Releases the stream (stream_free) and, when @drop_context, the context */
void gst_cuda_sync_base_transform_close (GstCudaSyncBaseTransform * self,
    gboolean drop_context);
/* The element's stream; NULL outside _open() to _close(). Read by the
 * streaming thread in between. */
CUstream gst_cuda_sync_base_transform_get_stream (GstCudaSyncBaseTransform *
    self);
/* Its GstCudaStream where stream_new made one (1.24+), else NULL
 * (transfer none) */
GstCudaStream *gst_cuda_sync_base_transform_get_cuda_stream
    (GstCudaSyncBaseTransform * self);

G_END_DECLS

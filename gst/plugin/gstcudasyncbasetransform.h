/* gst-cudasync
 * Copyright (C) 2026 gst-cudasync developers
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <gst/gst.h>
#include <gst/base/gstbasetransform.h>
#include <gst/cuda/gstcudacontext.h>

G_BEGIN_DECLS

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
 *
 * The abstract base of every element of the plugin (cudasemsignal and
 * cudasemwait through #GstCudaSyncBaseFilter, cudatovulkan and
 * vulkantocuda through #GstCudaVkBaseTransform): the `cuda-device-id` and
 * `stats` properties (gst_cuda_sync_base_transform_class_install_properties()),
 * the counters, and the CUDA context (GstContext query and set_context).
 * Not registered as an element.
 */
struct _GstCudaSyncBaseTransformClass
{
  GstBaseTransformClass parent_class;

  const gchar *const *counter_names;
  guint n_counters;

  void (*add_stats) (GstCudaSyncBaseTransform * self, GstStructure * stats);
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

/* Installs `cuda-device-id` and `stats` on @klass with these descriptions
 * (those of the element family) */
void gst_cuda_sync_base_transform_class_install_properties (GObjectClass *
    klass, const gchar * device_id_blurb, const gchar * stats_blurb);

gint gst_cuda_sync_base_transform_get_device_id (GstCudaSyncBaseTransform *
    self);
void gst_cuda_sync_base_transform_count (GstCudaSyncBaseTransform * self,
    guint counter, guint64 add);
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

G_END_DECLS

/* gst-cudasync
 * Copyright (C) 2026 gst-cudasync developers
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The bench's GStreamer helpers: pipelines whose bus hands out the bench's
 * CUDA context and Vulkan instance/device, elements, caps, pools, and the
 * Vulkan device the bench opens itself.
 */
#pragma once

#include <gst/video/video.h>
#include <gst/cuda/gstcudamemory.h>

#include "bench.h"

G_BEGIN_DECLS

#ifdef HAVE_CUDA_VULKAN
#include <gst/vulkan/vulkan.h>
#else
/* built without gstreamer-vulkan (e.g. a distribution that does not ship
 * it): the Vulkan scenarios build, and are skipped at run time */
#define GST_CAPS_FEATURE_MEMORY_VULKAN_IMAGE "memory:VulkanImage"
#endif

/* a new pipeline whose bus answers the elements' context queries with the
 * bench's CUDA context and Vulkan instance/device (and keeps the first
 * Vulkan contexts an element posts) */
GstElement *    pipeline_new           (Bench * b);
/* gives @pipeline's elements these Vulkan contexts (instance, device)
 * instead of the bench's */
void            pipeline_set_vulkan_contexts (GstElement * pipeline,
                                        GstContext * const * contexts);
/* the first error message on the pipeline's bus, if any */
gchar *         bus_error              (GstElement * pipeline);
/* sets the bench's Vulkan contexts on @n elements */
void            give_vulkan_contexts   (Bench * b, GstElement ** elements, guint n);

/* a pad of ANY caps, not linked, not active */
GstPad *        any_pad_new            (GstPadDirection direction);
GstCaps *       cuda_caps              (const gchar * format, gint width, gint height);
GstBufferPool * new_pool               (Bench * b, GstCaps * caps, guint n_buffers,
                                        gchar ** error);
#if GST_CHECK_VERSION(1, 24, 0)
#include <gst/cuda/gstcudastream.h>
/* the same, whose memory carries @stream (the pool config's stream) */
GstBufferPool * new_pool_with_stream   (Bench * b, GstCaps * caps, guint n_buffers,
                                        GstCudaStream * stream, gchar ** error);
#endif
void            pool_free              (GstBufferPool * pool);
/* stream-start, caps and segment on a linked, active source pad */
gboolean        push_initial_events    (GstPad * src, GstCaps * caps, gchar ** error);
/* gst_element_factory_make + gst_bin_add; NULL (and *error, unless set
 * already) when the element does not exist */
GstElement *    make                   (GstElement * bin, const gchar * factory,
                                        const gchar * name, gchar ** error);
/* a capsfilter for video/x-raw with @feature */
GstElement *    make_capsfilter        (GstElement * bin, const gchar * feature,
                                        gchar ** error);
/* NULL when every factory exists, else " a b" (the missing ones) */
gchar *         missing_elements       (const gchar * const *names, guint n);

/* Opens the bench's Vulkan device once (b->r.vulkan describes it).
 * FALSE (and *why) when there is none or the build has no Vulkan. */
gboolean        ensure_vulkan_device   (Bench * b, gchar ** why);
/* Whether the bench's Vulkan device (ensure_vulkan_device ()) has a queue
 * family that decodes video: GStreamer 1.24 registers vulkanh264dec
 * whatever the device, 1.26+ only where one has */
gboolean        bench_vulkan_decodes_video (Bench * b);

/* The Vulkan queue object the raw modes submit through: the one the bridge
 * elements use (a context query on a cudatovulkan given the bench's
 * device), kept for the bench's lifetime, so that its submit lock
 * serialises every user of that VkQueue, raw instances and pipelines
 * alike (GStreamer 1.22's gst_vulkan_device_get_queue () makes a new
 * object, with a lock of its own, on every call). New reference, or NULL
 * (no device). */
struct _GstVulkanQueue * bench_vulkan_queue (Bench * b);
/* A Vulkan device of its own on the bench's physical device, opened as the
 * bench's, and its contexts (instance, device) in @ctx: what separate
 * pipelines have by default, a device being shared only between linked
 * elements. FALSE (and *why) when it cannot be opened. */
gboolean        bench_vulkan_contexts_new (Bench * b, GstContext ** ctx,
                                        gchar ** why);
/* The bench's Vulkan device (ensure_vulkan_device ()): a new reference, or
 * NULL (none opened yet, or no Vulkan in the build) */
struct _GstVulkanDevice * bench_vulkan_device (Bench * b);

G_END_DECLS

/* gst-cudasync
 * Copyright (C) 2026 gst-cudasync developers
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The `stats` property every element of the plugin has: its description,
 * made from the element's own table of fields, and its notification when
 * EOS passes the element. Not installed.
 */
#pragma once

#include <gst/gst.h>

G_BEGIN_DECLS

/* GstCudaSyncStatsField:
 * @name: the field of the stats structure
 * @description: what it counts, in a few words (no ';')
 *
 * One field of an element's stats structure. Each element lists the
 * fields it reports in a table ending with a %NULL @name; the property's
 * description is made from it, and a test checks that the structure the
 * element reports has exactly these fields.
 */
typedef struct
{
  const gchar *name;
  const gchar *description;
} GstCudaSyncStatsField;

/* What separates the summary from the fields in the description, and the
 * fields from each other: "SUMMARY. Fields: name: what; name: what" */
#define GST_CUDA_SYNC_STATS_FIELDS_MARK ". Fields: "
#define GST_CUDA_SYNC_STATS_FIELDS_SEP "; "

/* The read-only GstStructure property `stats`, described by @summary (a
 * sentence without its full stop) and @fields */
GParamSpec *gst_cuda_sync_stats_param_spec (const gchar * summary,
    const GstCudaSyncStatsField * fields);

/* A structure @name with each field of @fields as a guint64 at 0: what an
 * element that has not run yet reports */
GstStructure *gst_cuda_sync_stats_new_zero (const gchar * name,
    const GstCudaSyncStatsField * fields);

/* Notifies @element's `stats` each time an EOS event passes @pad (a
 * source pad: when the element pushes it; a sink pad: when it arrives),
 * so that watchers (gst-launch-1.0 -v) see the final counters */
void gst_cuda_sync_stats_notify_at_eos (GstElement * element, GstPad * pad);

G_END_DECLS

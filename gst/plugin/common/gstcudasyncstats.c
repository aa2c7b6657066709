/* gst-cudasync
 * Copyright (C) 2026 gst-cudasync developers
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstcudasyncstats.h"

#include <string.h>

GParamSpec *
gst_cuda_sync_stats_param_spec (const gchar * summary,
    const GstCudaSyncStatsField * fields)
{
  GString *blurb = g_string_new (summary);
  const gchar *sep = GST_CUDA_SYNC_STATS_FIELDS_MARK;
  GParamSpec *pspec;
  guint i;

  for (i = 0; fields[i].name; i++) {
    /* the separators must stay unambiguous for readers of the text */
    g_assert (!strchr (fields[i].name, ':') && !strchr (fields[i].name, ';'));
    g_assert (!strchr (fields[i].description, ';'));
    g_string_append_printf (blurb, "%s%s: %s", sep, fields[i].name,
        fields[i].description);
    sep = GST_CUDA_SYNC_STATS_FIELDS_SEP;
  }
  /* made once per class, which lives as long as the process: the blurb is
   * copied without the static-strings flag */
  pspec = g_param_spec_boxed ("stats", "Statistics", blurb->str,
      GST_TYPE_STRUCTURE, G_PARAM_READABLE | G_PARAM_STATIC_NAME |
      G_PARAM_STATIC_NICK);
  g_string_free (blurb, TRUE);
  return pspec;
}

GstStructure *
gst_cuda_sync_stats_new_zero (const gchar * name,
    const GstCudaSyncStatsField * fields)
{
  GstStructure *s = gst_structure_new_empty (name);
  guint i;

  for (i = 0; fields[i].name; i++)
    gst_structure_set (s, fields[i].name, G_TYPE_UINT64, (guint64) 0, NULL);
  return s;
}

static GstPadProbeReturn
notify_at_eos (GstPad * pad, GstPadProbeInfo * info, gpointer element)
{
  GParamSpec *pspec;

  if (GST_EVENT_TYPE (GST_PAD_PROBE_INFO_EVENT (info)) != GST_EVENT_EOS)
    return GST_PAD_PROBE_OK;
  pspec = g_object_class_find_property (G_OBJECT_GET_CLASS (element), "stats");
  if (pspec)
    g_object_notify_by_pspec (G_OBJECT (element), pspec);
  return GST_PAD_PROBE_OK;
}

void
gst_cuda_sync_stats_notify_at_eos (GstElement * element, GstPad * pad)
{
  /* the element owns the pad: the probe never outlives it */
  gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_EVENT_DOWNSTREAM, notify_at_eos,
      element, NULL);
}

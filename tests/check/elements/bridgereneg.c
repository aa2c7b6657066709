/* gst-cudasync: a source whose format changes mid-stream, for the bridge
 * tests (bridgecommon.h)
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "bridgecommon.h"

typedef struct
{
  const gchar *const *formats;
  guint n_formats, per_format, n;
} Reneg;

/* the capsfilter's caps for the frames the source makes next */
static GstPadProbeReturn
reneg_probe (GstPad * pad, GstPadProbeInfo * info, gpointer data)
{
  GstElement *filter = GST_ELEMENT (GST_OBJECT_PARENT (pad));
  Reneg *r = data;
  guint step;

  r->n++;
  step = r->n / r->per_format;
  if (r->n % r->per_format == 0 && step < r->n_formats) {
    gchar *s = g_strdup_printf ("video/x-raw,format=%s,width=%d,height=%d",
        r->formats[step], BC_RENEG_WIDTH, BC_RENEG_HEIGHT);
    GstCaps *caps = gst_caps_from_string (s);

    g_object_set (filter, "caps", caps, NULL);
    gst_caps_unref (caps);
    g_free (s);
  }
  return GST_PAD_PROBE_OK;
}

GstElement *
bc_run_renegotiating (const gchar * middle, const gchar * const *formats,
    guint n_formats, guint per_format, const gchar * what)
{
  guint total = per_format * n_formats, p;
  gchar *head = g_strdup_printf ("videotestsrc num-buffers=%u pattern=ball ! "
      "video/x-raw,width=%d,height=%d,framerate=30/1 ! videoconvert ! "
      "capsfilter name=f caps=video/x-raw,format=%s", total, BC_RENEG_WIDTH,
      BC_RENEG_HEIGHT, formats[0]);
  gchar *descs[2];
  GstElement *pipelines[2];
  GPtrArray *frames[2];

  descs[0] = g_strdup_printf ("%s ! %s ! videoconvert ! "
      "video/x-raw,format=RGBA ! appsink name=sink sync=false", head, middle);
  descs[1] = g_strdup_printf ("%s ! videoconvert ! video/x-raw,format=RGBA "
      "! appsink name=sink sync=false", head);
  for (p = 0; p < 2; p++) {
    GError *err = NULL;
    GstPad *pad;
    Reneg *r = g_new0 (Reneg, 1);

    pipelines[p] = cs_vk_parse_launch (descs[p], &err);
    fail_unless (pipelines[p] != NULL, "%s", err ? err->message : "?");
    r->formats = formats;
    r->n_formats = n_formats;
    r->per_format = per_format;
    pad = gst_element_get_static_pad (bc_by_name (pipelines[p], "f"), "src");
    gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER, reneg_probe, r, g_free);
    gst_object_unref (pad);
    /* the pipeline with @middle */
    if (p == 0 && bc_pipeline_hook)
      bc_pipeline_hook (pipelines[p]);
    fail_if (gst_element_set_state (pipelines[p], GST_STATE_PLAYING) ==
        GST_STATE_CHANGE_FAILURE);
    frames[p] = bc_pull_all (pipelines[p], bc_by_name (pipelines[p], "sink"));
  }
  fail_unless_equals_int (frames[0]->len, total);
  bc_assert_same_frames (frames[0], frames[1], what);
  bc_stop_pipeline (pipelines[1]);
  for (p = 0; p < 2; p++) {
    g_ptr_array_unref (frames[p]);
    g_free (descs[p]);
  }
  g_free (head);
  return pipelines[0];
}

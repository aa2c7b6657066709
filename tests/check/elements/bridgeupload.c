/* gst-cudasync: vulkanupload in front of vulkantocuda, for the bridge
 * tests (bc_upload_packed_rows(), bc_check_upload_negotiation(),
 * bridgecommon.h)
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * GStreamer 1.22 to 1.26's vulkanupload copies each plane into its image
 * with bufferRowLength = the plane's width, i.e. it reads the rows packed,
 * while system-memory frames have GstVideoInfo strides (rounded up to 4):
 * an NV12 image of a width that is not a multiple of 4 gets shifted rows
 * and the bytes of the staging buffer's row padding, which nothing wrote
 * (docs/known-issues.md). Given each frame with its rows packed at the
 * plane offsets, it writes the frame's own rows.
 */
#include "bridgecommon.h"
#include <string.h>

/* in place: each plane's rows moved to the start of the plane, packed */
static GstPadProbeReturn
pack_rows_probe (GstPad * pad, GstPadProbeInfo * info, gpointer data)
{
  const GstVideoInfo *vinfo = data;
  GstVideoFrame frame;
  GstBuffer *buf;
  guint p, y;

  buf = gst_buffer_make_writable (GST_PAD_PROBE_INFO_BUFFER (info));
  GST_PAD_PROBE_INFO_DATA (info) = buf;
  fail_unless (gst_video_frame_map (&frame, vinfo, buf, GST_MAP_READWRITE));
  for (p = 0; p < GST_VIDEO_FRAME_N_PLANES (&frame); p++) {
    gint comp[GST_VIDEO_MAX_COMPONENTS];
    guint8 *d = GST_VIDEO_FRAME_PLANE_DATA (&frame, p);
    gsize rb, stride = GST_VIDEO_FRAME_PLANE_STRIDE (&frame, p);

    gst_video_format_info_component (vinfo->finfo, p, comp);
    rb = GST_VIDEO_INFO_COMP_WIDTH (vinfo, comp[0]) *
        GST_VIDEO_INFO_COMP_PSTRIDE (vinfo, comp[0]);
    fail_unless (rb <= stride);
    for (y = 1; y < (guint) GST_VIDEO_INFO_COMP_HEIGHT (vinfo, comp[0]); y++)
      memmove (d + y * rb, d + y * stride, rb);
  }
  gst_video_frame_unmap (&frame);
  return GST_PAD_PROBE_OK;
}

/* whether this vulkanupload (1.22 to 1.26) reads a frame of @info wrongly */
static gboolean
upload_reads_packed (const GstVideoInfo * info)
{
  guint p;

  for (p = 0; p < GST_VIDEO_INFO_N_PLANES (info); p++) {
    gint comp[GST_VIDEO_MAX_COMPONENTS];

    gst_video_format_info_component (info->finfo, p, comp);
    if ((gsize) GST_VIDEO_INFO_PLANE_STRIDE (info, p) !=
        (gsize) GST_VIDEO_INFO_COMP_WIDTH (info, comp[0]) *
        GST_VIDEO_INFO_COMP_PSTRIDE (info, comp[0]))
      return bc_vulkandownload_packs_rows ();
  }
  return FALSE;
}

void
bc_upload_packed_rows (GstElement * pipeline, const GstVideoInfo * info)
{
  GstPad *pad;

  if (!upload_reads_packed (info))
    return;
  pad = gst_element_get_static_pad (bc_by_name (pipeline, "up"), "sink");
  gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER, pack_rows_probe,
      g_memdup2 (info, sizeof (*info)), g_free);
  gst_object_unref (pad);
}

gboolean
bc_check_upload_negotiation (const gchar * format, gint w, gint h,
    const gchar * options)
{
  gchar *src = bc_src_desc (format, w, h);
  gchar *desc = g_strdup_printf ("%s ! vulkanupload ! vulkantocuda name=v2c "
      "%s ! cudadownload ! video/x-raw ! appsink name=sink sync=false", src,
      options);
  GPtrArray *want = bc_reference_frames (format, w, h), *got;
  GstElement *pipeline = NULL, *v2c;
  GstVideoInfo info;
  GstCaps *caps;
  gchar *feature;
  gboolean lent;

  got = bc_run_frames (&pipeline, desc);
  v2c = bc_by_name (pipeline, "v2c");
  fail_unless (bc_pad_info (v2c, "sink", &info));
  caps = gst_pad_get_current_caps (GST_BASE_TRANSFORM_SINK_PAD (v2c));
  feature = gst_caps_features_to_string (gst_caps_get_features (caps, 0));
  /* vulkantocuda asks vulkanupload for images first only of the widths
   * it writes right (gst_cuda_vk_vulkan_pool_caps_first()) */
  lent = bc_expect_lent (v2c, &info) && !upload_reads_packed (&info);
  g_print ("%s %dx%d%s%s, no caps filter: %s, %" G_GUINT64_FORMAT " of %u "
      "in place, gpu-copies %" G_GUINT64_FORMAT "\n", format, w, h,
      *options ? " " : "", options, feature, cs_stat (v2c, "in-place"),
      got->len, cs_stat (v2c, "gpu-copies"));
  fail_unless_equals_string (feature, lent ?
      GST_CAPS_FEATURE_MEMORY_VULKAN_IMAGE :
      GST_CAPS_FEATURE_MEMORY_VULKAN_BUFFER);
  bc_assert_same_frames (got, want, desc);
  bc_assert_stats (v2c, BC_N_BUFFERS);
  fail_unless_equals_uint64 (cs_stat (v2c, "in-place"), lent ?
      BC_N_BUFFERS : 0);
  if (lent)
    fail_unless_equals_uint64 (cs_stat (v2c, "gpu-copies"), 0);
  bc_stop_pipeline (pipeline);
  gst_caps_unref (caps);
  g_free (feature);
  g_ptr_array_unref (got);
  g_ptr_array_unref (want);
  g_free (desc);
  g_free (src);
  return lent;
}

/* gst-cudasync: vulkancolorconvert after cudatovulkan == after
 * vulkanupload, for the bridge tests (bc_check_colorconvert(),
 * bridgecommon.h)
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * vulkancolorconvert samples its input images in a shader; whether they are
 * linear images in exported memory (cudatovulkan) or optimal-tiling images
 * of vulkanupload must not change a bit of the output.
 *
 * GStreamer 1.22 to 1.26's vulkanupload has the mirror image of
 * vulkandownload's row bug (see tight_bytes() in bridgecommon.c): it copies
 * each plane from the plane's offset with bufferRowLength = the plane's width,
 * i.e. it reads rows packed, while system-memory frames have GstVideoInfo
 * strides (rounded up to 4). For NV12 widths that are not multiples of 4 the
 * reference would be wrong, so there the reference pipeline's vulkanupload is
 * given each frame with its rows packed at the plane offsets
 * (bc_upload_packed_rows()): the frame as it reads it. */
#include "bridgecommon.h"
#include <string.h>

/* the source's frames, which the reference's vulkanupload reads */
static GstVideoInfo pack_info;

/* vulkancolorconvert's NV12 outputs are freed, not recycled, when
 * vulkandownload drops them, right after its fence wait: kept until the
 * queue is idle instead (bc_hold_inputs()); @pack_rows: the reference's
 * pipeline, whose vulkanupload gets the frames as it reads them */
static gboolean pack_rows;

const gchar *bc_c2v_options = "";

static void
colorconvert_hook (GstElement * pipeline)
{
  if (pack_rows)
    bc_upload_packed_rows (pipeline, &pack_info);
  bc_hold_inputs (bc_by_name (pipeline, "down"));
}

void
bc_check_colorconvert (const gchar * in, const gchar * out, gint w, gint h,
    guint n, const gchar * via, void (*check) (GstElement * c2v, guint n))
{
  gchar *src = g_strdup_printf ("videotestsrc num-buffers=%u pattern=smpte "
      "! video/x-raw,format=%s,width=%d,height=%d,framerate=30/1", n, in, w,
      h);
  gchar *tail = g_strdup_printf ("vulkancolorconvert ! "
      "video/x-raw(memory:VulkanImage),format=%s ! vulkandownload name=down ! "
      "video/x-raw,format=%s ! appsink name=sink sync=false", out, out);
  gchar *desc = g_strdup_printf ("%s ! cudaupload ! cudatovulkan name=c2v %s "
      "! %s", src, bc_c2v_options, tail);
  gchar *ref = g_strdup_printf ("%s ! %s ! %s", src, via, tail);
  gchar *what = g_strdup_printf ("%s->%s %dx%d", in, out, w, h);
  GstElement *pipeline;
  GPtrArray *got, *want;

  GST_INFO ("vulkancolorconvert %s", what);
  gst_video_info_set_format (&pack_info, gst_video_format_from_string (in),
      w, h);
  bc_tight_rows = (w % 4) != 0 && (!strcmp (out, "NV12")) &&
      bc_vulkandownload_packs_rows ();
  bc_pipeline_hook = colorconvert_hook;
  got = bc_run_frames (&pipeline, desc);
  bc_assert_held (n, what);
  bc_assert_stats (bc_by_name (pipeline, "c2v"), n);
  if (check)
    check (bc_by_name (pipeline, "c2v"), n);
  bc_stop_pipeline (pipeline);
  pack_rows = TRUE;
  want = bc_run_frames (NULL, ref);
  bc_assert_held (n, what);
  pack_rows = FALSE;
  bc_pipeline_hook = NULL;
  bc_tight_rows = FALSE;
  bc_assert_same_frames (got, want, what);
  g_ptr_array_unref (got);
  g_ptr_array_unref (want);
  g_free (what);
  g_free (ref);
  g_free (desc);
  g_free (tail);
  g_free (src);
}

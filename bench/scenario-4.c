/* gst-cudasync
 * Copyright (C) 2026 gst-cudasync developers
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Scenario 4, Vulkan -> CUDA: one system-memory frame, pushed again for
 * every frame, uploaded by vulkanupload and handed to a CUDA consumer
 * through vulkantocuda (a) or upstream's vulkandownload ! cudaupload (b).
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "frames.h"

gboolean
s4_build_chain (Run * run, GstElement ** chain, guint * n, gchar ** error)
{
  chain[(*n)++] = make (run->pipeline, "vulkanupload", NULL, error);
  chain[(*n)++] = make_capsfilter (run->pipeline,
      GST_CAPS_FEATURE_MEMORY_VULKAN_IMAGE, error);
  if (run->mode == MODE_VC_A) {
    run->el.bridge = chain[(*n)++] = make (run->pipeline, "vulkantocuda",
        "v2c", error);
    run->el.probe_el = run->el.bridge;
    return TRUE;
  }
  chain[(*n)++] = make (run->pipeline, "vulkandownload", NULL, error);
  chain[(*n)++] = make (run->pipeline, "cudaupload", NULL, error);
  run->el.probe_el = chain[(*n)++] = make_capsfilter (run->pipeline,
      GST_CAPS_FEATURE_MEMORY_CUDA_MEMORY, error);
  return TRUE;
}

gboolean
s4_check_stats (Run * run, GstStructure ** ss, GString * note,
    const gchar ** path)
{
  g_object_get (run->el.bridge, "stats", ss, NULL);
  return expect_bridge_stats (*ss, "vulkantocuda", run->total, G_MAXUINT,
      note, path);
}

/* scenario 4's source: one system-memory frame, pushed again and again.
 * One GstMemory per plane: GStreamer 1.22's vulkanupload peeks memory i
 * for plane i (a single-memory NV12 buffer makes it warn) */
GstBuffer *
new_sysframe (S2Config * c)
{
  GstVideoInfo info;
  GstBuffer *buf = gst_buffer_new ();
  guint p, n;

  gst_video_info_set_format (&info, gst_video_format_from_string (c->format),
      c->width, c->height);
  n = GST_VIDEO_INFO_N_PLANES (&info);
  for (p = 0; p < n; p++) {
    gsize end = p + 1 < n ? info.offset[p + 1] : info.size;
    GstMemory *mem = gst_allocator_alloc (NULL, end - info.offset[p], NULL);
    GstMapInfo map;
    gsize i;

    gst_memory_map (mem, &map, GST_MAP_WRITE);
    for (i = 0; i < map.size; i++)
      map.data[i] = (guint8) (i * 131 + (i >> 12) + p);
    gst_memory_unmap (mem, &map);
    gst_buffer_append_memory (buf, mem);
  }
  gst_buffer_add_video_meta_full (buf, GST_VIDEO_FRAME_FLAG_NONE,
      GST_VIDEO_INFO_FORMAT (&info), c->width, c->height, n, info.offset,
      info.stride);
  return buf;
}

/* gst-cudasync: helpers shared by the cudatovulkan / vulkantocuda tests
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#define _GNU_SOURCE             /* memmem */
#include "config.h"             /* HAVE_VK_OPERATION_SEMAPHORES */
#include "bridgecommon.h"
#include "vkutil.h"
#include <stdio.h>
#include <string.h>

const gchar *const bc_formats[BC_N_FORMATS] =
    { "RGBA", "BGRA", "RGBx", "NV12", "I420" };
const gint bc_sizes[BC_N_SIZES][2] = { {64, 48}, {33, 17}, {321, 241} };

gboolean bc_tight_rows;
/* bc_pull_all() keeps a SHA-1 of each frame instead of its bytes (long runs) */
gboolean bc_store_checksums;
/* bc_run_frames() calls it on the pipeline before starting it */
void (*bc_pipeline_hook) (GstElement * pipeline);

/* GStreamer 1.22 to 1.26's vulkandownload copies each plane with
 * bufferRowLength = the plane's width, i.e. rows packed, into one memory
 * per plane, while
 * its buffers' video meta / caps promise GstVideoInfo strides (rounded up
 * to 4): wrong for NV12/I420 widths that are not multiples of 4, even for
 * videotestsrc ! vulkanupload ! vulkandownload. With bc_tight_rows set, read
 * the frame the way it was written: plane p = memory p, rows packed. */
static GBytes *
tight_bytes (GstBuffer * buf, const GstVideoInfo * info)
{
  GByteArray *arr = g_byte_array_new ();
  guint p, n = GST_VIDEO_INFO_N_PLANES (info);

  fail_unless_equals_int (gst_buffer_n_memory (buf), n);
  for (p = 0; p < n; p++) {
    GstMemory *mem = gst_buffer_peek_memory (buf, p);
    gint comp[GST_VIDEO_MAX_COMPONENTS];
    GstMapInfo map;
    gsize rb, rows;

    gst_video_format_info_component (info->finfo, p, comp);
    rb = GST_VIDEO_INFO_COMP_WIDTH (info, comp[0]) *
        GST_VIDEO_INFO_COMP_PSTRIDE (info, comp[0]);
    rows = GST_VIDEO_INFO_COMP_HEIGHT (info, comp[0]);
    fail_unless (gst_memory_map (mem, &map, GST_MAP_READ));
    fail_unless (map.size >= rb * rows);
    g_byte_array_append (arr, map.data, rb * rows);
    gst_memory_unmap (mem, &map);
  }
  return g_byte_array_free_to_bytes (arr);
}

/* The visible bytes of every buffer an appsink received until EOS. */
GPtrArray *
bc_pull_all (GstElement * pipeline, GstElement * sink)
{
  GPtrArray *frames = g_ptr_array_new_with_free_func ((GDestroyNotify)
      g_bytes_unref);
  GstSample *sample;

  while ((sample = gst_app_sink_pull_sample (GST_APP_SINK (sink)))) {
    GstVideoInfo info;
    GstCaps *caps = gst_sample_get_caps (sample);
    GstBuffer *buf = gst_sample_get_buffer (sample);

    fail_unless (caps && gst_video_info_from_caps (&info, caps));
    fail_unless (gst_caps_features_contains (gst_caps_get_features (caps, 0),
            GST_CAPS_FEATURE_MEMORY_SYSTEM_MEMORY), "appsink caps %"
        GST_PTR_FORMAT, caps);
    {
      GBytes *bytes = bc_tight_rows ? tight_bytes (buf, &info) :
          cs_buffer_bytes (buf, &info);
      if (bc_store_checksums) {
        gchar *hex = g_compute_checksum_for_bytes (G_CHECKSUM_SHA1, bytes);
        g_bytes_unref (bytes);
        bytes = g_bytes_new_take (hex, strlen (hex));
      }
      g_ptr_array_add (frames, bytes);
    }
    gst_sample_unref (sample);
  }
  return frames;
}

static GstPadProbeReturn
strip_pools (GstPad * pad, GstPadProbeInfo * info, gpointer counter)
{
  GstQuery *query = GST_PAD_PROBE_INFO_QUERY (info);

  if (GST_QUERY_TYPE (query) == GST_QUERY_ALLOCATION) {
    while (gst_query_get_n_allocation_pools (query) > 0)
      gst_query_remove_nth_allocation_pool (query, 0);
    g_atomic_int_inc ((gint *) counter);
  }
  return GST_PAD_PROBE_OK;
}

static void
refuse_pools (GstElement * element, const gchar * pad_name, gint * counter)
{
  GstPad *pad = gst_element_get_static_pad (element, pad_name);

  fail_unless (pad != NULL, "no pad %s", pad_name);
  /* PULL: after the query was answered, before it goes back */
  gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_QUERY_DOWNSTREAM |
      GST_PAD_PROBE_TYPE_PULL, strip_pools, counter, NULL);
  gst_object_unref (pad);
}

static struct
{
  const gchar *name, *pad_name;
  void (*hook) (GstElement * pipeline);
  gint queries;
} refusing;

static void
refusing_hook (GstElement * pipeline)
{
  refuse_pools (bc_by_name (pipeline, refusing.name), refusing.pad_name,
      &refusing.queries);
  if (refusing.hook)
    refusing.hook (pipeline);
}

GPtrArray *
bc_run_frames_refusing_pools (GstElement ** pipeline_out, const gchar * desc,
    const gchar * name, const gchar * pad_name,
    void (*hook) (GstElement * pipeline))
{
  GPtrArray *got;

  refusing.name = name;
  refusing.pad_name = pad_name;
  refusing.hook = hook;
  refusing.queries = 0;
  bc_pipeline_hook = refusing_hook;
  got = bc_run_frames (pipeline_out, desc);
  bc_pipeline_hook = NULL;
  fail_unless (g_atomic_int_get (&refusing.queries) >= 1,
      "no ALLOCATION query went through %s's %s pad", name, pad_name);
  return got;
}

/* Plays @desc (with an appsink named "sink") to EOS; returns the frames.
 * The pipeline stays PAUSED->PLAYING (not stopped) so that statistics can be
 * read before the elements shut down; the caller sets it to NULL. */
GPtrArray *
bc_run_frames (GstElement ** pipeline_out, const gchar * desc)
{
  GError *err = NULL;
  GstElement *pipeline = cs_vk_parse_launch (desc, &err);
  GstElement *sink;
  GstBus *bus;
  GstMessage *msg;
  GPtrArray *frames;

  fail_unless (pipeline != NULL, "%s: %s", desc, err ? err->message : "?");
  sink = gst_bin_get_by_name (GST_BIN (pipeline), "sink");
  fail_unless (sink != NULL);
  if (bc_pipeline_hook)
    bc_pipeline_hook (pipeline);
  fail_if (gst_element_set_state (pipeline, GST_STATE_PLAYING) ==
      GST_STATE_CHANGE_FAILURE, "%s: could not start", desc);
  frames = bc_pull_all (pipeline, sink);

  bus = gst_element_get_bus (pipeline);
  msg = gst_bus_timed_pop_filtered (bus, 60 * GST_SECOND,
      GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  fail_unless (msg != NULL, "%s: timed out", desc);
  if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR) {
    gchar *dbg = NULL;
    gst_message_parse_error (msg, &err, &dbg);
    fail ("%s: error from %s: %s (%s)", desc, GST_OBJECT_NAME (msg->src),
        err->message, dbg ? dbg : "");
  }
  gst_message_unref (msg);
  gst_object_unref (bus);
  gst_object_unref (sink);

  if (pipeline_out)
    *pipeline_out = pipeline;
  else
    bc_stop_pipeline (pipeline);
  return frames;
}

/* Sets @pipeline to NULL and drops it. @drain: the pipeline has
 * processed its last frame (EOS), so nothing submits Vulkan work any more:
 * wait for its Vulkan queues to be idle first (vk_util_drain_pipeline(): a
 * Mesa lavapipe race with the image memories' timeline semaphores of
 * GStreamer 1.24+ at teardown). */
void
bc_stop_pipeline_full (GstElement * pipeline, gboolean drain)
{
  if (drain)
    vk_util_drain_pipeline (pipeline);
  fail_unless_equals_int (gst_element_set_state (pipeline, GST_STATE_NULL),
      GST_STATE_CHANGE_SUCCESS);
  gst_object_unref (pipeline);
}

/* after EOS */
void
bc_stop_pipeline (GstElement * pipeline)
{
  bc_stop_pipeline_full (pipeline, TRUE);
}

/* the frames of @got from @first on that differ from @want's, as "1, 2" */
static GString *
differing_frames (GPtrArray * got, GPtrArray * want, guint first)
{
  GString *list = g_string_new (NULL);
  guint i;

  for (i = first; i < got->len; i++) {
    GBytes *a = g_ptr_array_index (got, i), *b = g_ptr_array_index (want, i);

    if (!g_bytes_equal (a, b))
      g_string_append_printf (list, "%s%u", list->len ? ", " : "", i);
  }
  return list;
}

void
bc_assert_same_frames (GPtrArray * got, GPtrArray * want, const gchar * what)
{
  guint i;

  fail_unless_equals_int (got->len, want->len);
  for (i = 0; i < got->len; i++) {
    GBytes *a = g_ptr_array_index (got, i), *b = g_ptr_array_index (want, i);
    gsize na, nb, j;
    const guint8 *da = g_bytes_get_data (a, &na);
    const guint8 *db = g_bytes_get_data (b, &nb);

    fail_unless_equals_uint64 (na, nb);
    if (memcmp (da, db, na) != 0) {
      /* only where a frame differs: the others after it */
      GString *frames = differing_frames (got, want, i);
      gsize bad = 0, k, run;
      const guint8 *at;

      for (j = 0; j < na && da[j] == db[j]; j++);
      for (k = j; k < na; k++)
        bad += da[k] != db[k];
      /* where the bytes read there are in the frame wanted: a plane read
       * at a wrong offset or pitch */
      run = MIN (32, na - j);
      at = memmem (db, nb, da + j, run);
      fail ("%s: frame %u differs at visible byte %" G_GSIZE_FORMAT
          " of %" G_GSIZE_FORMAT " (0x%02x, want 0x%02x; %" G_GSIZE_FORMAT
          " bytes differ; the %" G_GSIZE_FORMAT " bytes read there are the "
          "wanted frame's at %" G_GSSIZE_FORMAT "); frames that differ: %s "
          "of %u", what, i, j, na, da[j], db[j], bad, run,
          at ? (gssize) (at - db) : (gssize) - 1, frames->str, got->len);
    }
  }
}

gchar *
bc_src_desc (const gchar * format, gint w, gint h)
{
  return g_strdup_printf ("videotestsrc num-buffers=%d pattern=smpte ! "
      "video/x-raw,format=%s,width=%d,height=%d,framerate=30/1", BC_N_BUFFERS,
      format, w, h);
}

static GPtrArray *
reference_frames_via (const gchar * format, gint w, gint h, const gchar * via)
{
  gchar *src = bc_src_desc (format, w, h);
  gchar *desc = g_strdup_printf ("%s ! %s ! appsink name=sink sync=false", src,
      via);
  GPtrArray *frames = bc_run_frames (NULL, desc);

  g_free (desc);
  g_free (src);
  return frames;
}

GPtrArray *
bc_reference_frames (const gchar * format, gint w, gint h)
{
  return reference_frames_via (format, w, h, "identity");
}

GstElement *
bc_by_name (GstElement * pipeline, const gchar * name)
{
  GstElement *e = gst_bin_get_by_name (GST_BIN (pipeline), name);

  fail_unless (e != NULL, "no element %s", name);
  gst_object_unref (e);         /* the pipeline keeps it */
  return e;
}

static void
assert_semaphore_type (GstElement * e, const gchar * want)
{
  gchar *type = cs_stat_string (e, "semaphore-type");

  fail_unless (g_strcmp0 (type, want) == 0, "%s: semaphore-type %s, want %s",
      GST_OBJECT_NAME (e), type, want);
  g_free (type);
}

/* Whether a bridge element on a real GPU synchronises through a timeline
 * semaphore: GStreamer 1.24 to 1.28 (whose GstVulkanDevice enables the
 * device's timeline semaphores: the H200's NVIDIA driver has them) unless
 * its "timeline" property is FALSE. 1.22 and upstream main (the relay's
 * binary semaphores, gstcudavksemaphore.c): binary semaphores. */
gboolean
bc_expect_timeline (GstElement * e)
{
  gboolean timeline;

  g_object_get (e, "timeline", &timeline, NULL);
#ifdef HAVE_VK_OPERATION_SEMAPHORES
  return FALSE;
#else
  return timeline && GST_CHECK_VERSION (1, 24, 0);
#endif
}

/* Whether vulkantocuda's output wraps its staging buffers (one GPU copy
 * per frame): GStreamer 1.24+, and every plane's row fits in plane 0's
 * (the layout rule of a wrapped GstCudaMemory, see gstcudavkstaging.h) */
gboolean
bc_info_wrappable (const GstVideoInfo * info)
{
  gboolean ret = GST_CHECK_VERSION (1, 24, 0);
  guint i;

  for (i = 1; i < GST_VIDEO_INFO_N_PLANES (info); i++)
    ret &= GST_VIDEO_INFO_COMP_WIDTH (info, i) *
        GST_VIDEO_INFO_COMP_PSTRIDE (info, i) <=
        GST_VIDEO_INFO_COMP_WIDTH (info, 0) *
        GST_VIDEO_INFO_COMP_PSTRIDE (info, 0);
  return ret;
}

/* The video info of the caps negotiated on @e's pad @pad_name */
gboolean
bc_pad_info (GstElement * e, const gchar * pad_name, GstVideoInfo * info)
{
  GstPad *pad = gst_element_get_static_pad (e, pad_name);
  GstCaps *caps = gst_pad_get_current_caps (pad);
  gboolean ret = caps && gst_video_info_from_caps (info, caps);

  gst_clear_caps (&caps);
  gst_object_unref (pad);
  return ret;
}

gboolean
bc_expect_wrapped_output (GstElement * v2c)
{
  GstVideoInfo info;

  fail_unless (bc_pad_info (v2c, "src", &info));
  return bc_info_wrappable (&info);
}

/* Whether cudatovulkan's frames of @info are written in place by an
 * upstream that uses the pool it proposes (gstcudavkupstreampool.c):
 * GStreamer 1.24+, the "in-place" property, one-plane formats, NV12 and
 * I420 as multi-planar images or as images of one allocation */
gboolean
bc_info_in_place (GstElement * c2v, const GstVideoInfo * info)
{
  gboolean in_place;

  g_object_get (c2v, "in-place", &in_place, NULL);
  return in_place && GST_CHECK_VERSION (1, 24, 0) &&
      (GST_VIDEO_INFO_N_PLANES (info) == 1 ||
      bc_expect_multiplanar (c2v, info) ||
      bc_expect_one_allocation (c2v, info));
}

gboolean
bc_one_allocation_usable (void)
{
  return cs_is_sim || !g_strcmp0 (g_getenv ("GST_CUDASYNC_CUDA_MEMORY"), "1");
}

gboolean
bc_expect_one_allocation (GstElement * c2v, const GstVideoInfo * info)
{
  GstPad *pad = gst_element_get_static_pad (c2v, "src");
  GstCaps *caps = gst_pad_get_current_caps (pad);
  gboolean in_place, one, images;

  gst_object_unref (pad);
  images = caps && gst_caps_features_contains (gst_caps_get_features (caps, 0),
      GST_CAPS_FEATURE_MEMORY_VULKAN_IMAGE);
  gst_clear_caps (&caps);
  g_object_get (c2v, "in-place", &in_place, "one-allocation", &one, NULL);
  return in_place && one && images && GST_CHECK_VERSION (1, 24, 0) &&
      bc_one_allocation_usable () &&
      (GST_VIDEO_INFO_FORMAT (info) == GST_VIDEO_FORMAT_NV12 ||
      GST_VIDEO_INFO_FORMAT (info) == GST_VIDEO_FORMAT_I420) &&
      !bc_expect_multiplanar (c2v, info);
}

/* Whether @e's Vulkan device makes linear, exportable images of @format
 * and @usage (asked of the device here, not of the element) */
static gboolean
device_exports_linear (GstElement * e, VkFormat format, VkImageUsageFlags usage)
{
  GstQuery *q = gst_query_new_context (GST_VULKAN_DEVICE_CONTEXT_TYPE_STR);
  PFN_vkGetPhysicalDeviceImageFormatProperties2 get_props;
  VkPhysicalDeviceExternalImageFormatInfo ext = {
    .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_EXTERNAL_IMAGE_FORMAT_INFO,
    .handleType = VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT,
  };
  VkPhysicalDeviceImageFormatInfo2 fi = {
    .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_IMAGE_FORMAT_INFO_2,
    .pNext = &ext,.format = format,.type = VK_IMAGE_TYPE_2D,
    .tiling = VK_IMAGE_TILING_LINEAR,.usage = usage,
  };
  VkExternalImageFormatProperties ext_props = {
    .sType = VK_STRUCTURE_TYPE_EXTERNAL_IMAGE_FORMAT_PROPERTIES,
  };
  VkImageFormatProperties2 props = {
    .sType = VK_STRUCTURE_TYPE_IMAGE_FORMAT_PROPERTIES_2,.pNext = &ext_props,
  };
  GstVulkanDevice *device = NULL;
  GstContext *ctx = NULL;
  gboolean ret = FALSE;

  fail_unless (gst_element_query (e, q), "no Vulkan device context");
  gst_query_parse_context (q, &ctx);
  fail_unless (ctx && gst_context_get_vulkan_device (ctx, &device) && device);
  get_props = gst_vulkan_instance_get_proc_address (device->instance,
      "vkGetPhysicalDeviceImageFormatProperties2");
  if (get_props && get_props (device->physical_device->device, &fi,
          &props) == VK_SUCCESS)
    ret = (ext_props.externalMemoryProperties.externalMemoryFeatures &
        VK_EXTERNAL_MEMORY_FEATURE_EXPORTABLE_BIT) != 0;
  gst_object_unref (device);
  gst_query_unref (q);
  return ret;
}

gboolean
bc_expect_multiplanar (GstElement * c2v, const GstVideoInfo * info)
{
  gboolean multi_planar;
  VkFormat format;

  g_object_get (c2v, "multi-planar", &multi_planar, NULL);
  switch (GST_VIDEO_INFO_FORMAT (info)) {
    case GST_VIDEO_FORMAT_NV12:
      format = VK_FORMAT_G8_B8R8_2PLANE_420_UNORM;
      break;
    case GST_VIDEO_FORMAT_I420:
      format = VK_FORMAT_G8_B8_R8_3PLANE_420_UNORM;
      break;
    default:
      return FALSE;
  }
  /* the usage of cudatovulkan's frames */
  return multi_planar && GST_CHECK_VERSION (1, 24, 0) &&
      device_exports_linear (c2v, format, VK_IMAGE_USAGE_SAMPLED_BIT |
      VK_IMAGE_USAGE_TRANSFER_SRC_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT);
}

gboolean
bc_expect_lent (GstElement * v2c, const GstVideoInfo * info)
{
  /* the usage of the frames of vulkantocuda's pool for upstream */
  const VkImageUsageFlags usage = VK_IMAGE_USAGE_SAMPLED_BIT |
      VK_IMAGE_USAGE_TRANSFER_SRC_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT |
      VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT;
  GstVideoFormat f = GST_VIDEO_INFO_FORMAT (info);
  gboolean in_place, one;
  gchar *type = cs_stat_string (v2c, "semaphore-type");
  gboolean binary = g_strcmp0 (type, "binary") == 0;

  g_free (type);
  g_object_get (v2c, "in-place", &in_place, "one-allocation", &one, NULL);
  if (!in_place || !GST_CHECK_VERSION (1, 24, 0) || binary)
    return FALSE;
  if (GST_VIDEO_INFO_N_PLANES (info) == 1)
    return device_exports_linear (v2c,
        gst_vulkan_format_from_video_info ((GstVideoInfo *) info, 0), usage);
  /* NV12 and I420 with one-allocation: an R8 image per plane, or R8G8 for
   * NV12's chroma */
  return one && bc_one_allocation_usable () &&
      (f == GST_VIDEO_FORMAT_NV12 || f == GST_VIDEO_FORMAT_I420) &&
      device_exports_linear (v2c, VK_FORMAT_R8_UNORM, usage) &&
      (f != GST_VIDEO_FORMAT_NV12 ||
      device_exports_linear (v2c, VK_FORMAT_R8G8_UNORM, usage));
}

/* How many of @n frames cudatovulkan @c2v received written in place: @n
 * behind cudaupload, cudaconvertscale or an NVDEC decoder (through queues
 * and capsfilters, which pass the ALLOCATION query on) when the current
 * caps allow it, 0 behind anything that does not ask for a pool (appsrc);
 * -1 where the test cannot tell (a tee decides by its branches) */
static gint64
expect_in_place (GstElement * c2v, guint64 n)
{
  GstPad *pad = gst_element_get_static_pad (c2v, "sink");
  GstVideoInfo info;
  gint64 ret = 0;

  fail_unless (bc_pad_info (c2v, "sink", &info));
  while (pad) {
    GstPad *peer = gst_pad_get_peer (pad);
    GstElement *up = peer ? gst_pad_get_parent_element (peer) : NULL;
    const gchar *factory = up && gst_element_get_factory (up) ?
        GST_OBJECT_NAME (gst_element_get_factory (up)) : "";

    gst_object_unref (pad);
    pad = NULL;
    if (!strcmp (factory, "queue") || !strcmp (factory, "capsfilter"))
      pad = gst_element_get_static_pad (up, "sink");
    else if (!strcmp (factory, "cudaupload") ||
        !strcmp (factory, "cudaconvertscale") ||
        (g_str_has_prefix (factory, "nv") && g_str_has_suffix (factory, "dec")))
      ret = bc_info_in_place (c2v, &info) ? (gint64) n : 0;
    else if (!strcmp (factory, "tee") || !strcmp (factory, "cudasemsignal"))
      ret = bc_info_in_place (c2v, &info) ? -1 : 0;
    gst_clear_object (&peer);
    gst_clear_object (&up);
  }
  return ret;
}

/* buffers/copies/cpu-syncs of one bridge element after @n buffers of the
 * current caps */
void
bc_assert_stats (GstElement * e, guint64 n)
{
  gboolean v2c = g_str_equal (G_OBJECT_TYPE_NAME (e), "GstVulkanToCuda");
  gint64 in_place;

  if (v2c) {
    /* a Vulkan copy, then a CUDA copy unless the output wraps the staging
     * buffer; neither for a frame read where upstream wrote it */
    bc_assert_stats_full (e, n, bc_expect_wrapped_output (e) ? 0 :
        n - cs_stat (e, "in-place"));
    return;
  }
  /* cudatovulkan: a copy of every frame not written in place */
  in_place = expect_in_place (e, n);
  if (in_place < 0) {
    in_place = (gint64) cs_stat (e, "in-place");
    fail_unless (in_place <= (gint64) n);
  }
  bc_assert_stats_full (e, n, n - (guint64) in_place);
}

/* the same, with @copies of them copied on the CUDA side (cudatovulkan:
 * the others written in place by upstream) */
void
bc_assert_stats_full (GstElement * e, guint64 n, guint64 copies)
{
  const gchar *name = GST_OBJECT_NAME (e);
  gboolean v2c = g_str_equal (G_OBJECT_TYPE_NAME (e), "GstVulkanToCuda");
  /* vulkantocuda: frames upstream wrote into the pool it proposed, read
   * where they are (no Vulkan copy) */
  guint64 lent = v2c ? cs_stat (e, "in-place") : 0;
  GstVideoInfo info;

  fail_unless (cs_stat (e, "buffers") == n, "%s: buffers %" G_GUINT64_FORMAT
      " != %" G_GUINT64_FORMAT, name, cs_stat (e, "buffers"), n);
  fail_unless (cs_stat (e, "copies") == copies, "%s: copies %"
      G_GUINT64_FORMAT " != %" G_GUINT64_FORMAT, name, cs_stat (e, "copies"),
      copies);
  if (v2c) {
    fail_unless (bc_pad_info (e, "sink", &info));
    fail_unless (lent == 0 || (lent <= n && bc_expect_lent (e, &info)),
        "%s: %" G_GUINT64_FORMAT " of %" G_GUINT64_FORMAT " frames read in "
        "place where no pool for upstream is expected", name, lent, n);
  }
  fail_unless (cs_stat (e, "in-place") == (v2c ? lent : n - copies),
      "%s: in-place %" G_GUINT64_FORMAT " for %" G_GUINT64_FORMAT
      " buffers, %" G_GUINT64_FORMAT " copies", name,
      cs_stat (e, "in-place"), n, copies);
  fail_unless_equals_uint64 (cs_stat (e, "gpu-copies"), v2c ? n - lent +
      copies : copies);
  if (cs_is_sim) {
    /* lavapipe exports no semaphores: the CPU fallback, once a buffer (a
     * frame read in place: also its take-over when upstream got it), and
     * vulkantocuda's waits at its bound of staging buffers, when the
     * simulated GPU is behind */
    guint64 bound = cs_stat (e, "bound-waits");

    fail_unless (cs_stat (e, "cpu-syncs") == n + lent + bound, "%s: "
        "cpu-syncs %" G_GUINT64_FORMAT " != %" G_GUINT64_FORMAT " (lavapipe "
        "fallback)", name, cs_stat (e, "cpu-syncs"), n + lent + bound);
    fail_unless (v2c || bound == 0);
    fail_unless_equals_uint64 (cs_stat (e, "signals"), 0);
    fail_unless_equals_uint64 (cs_stat (e, "semaphores"), 0);
    assert_semaphore_type (e, "none");
    return;
  }
  fail_unless (cs_stat (e, "cpu-syncs") == 0, "%s: %" G_GUINT64_FORMAT
      " CPU syncs on a real GPU", name, cs_stat (e, "cpu-syncs"));
  fail_unless_equals_uint64 (cs_stat (e, "signals"), n);
  if (bc_expect_timeline (e)) {
    /* the element's one timeline semaphore */
    assert_semaphore_type (e, "timeline");
    fail_unless_equals_uint64 (cs_stat (e, "semaphores"), 1);
  } else {
    /* one binary semaphore per pooled frame / staging slot, made on first
     * use of the slot: at least one, never more than one per buffer */
    assert_semaphore_type (e, "binary");
    fail_unless (cs_stat (e, "semaphores") >= 1 &&
        cs_stat (e, "semaphores") <= n, "%s: %" G_GUINT64_FORMAT
        " semaphores for %" G_GUINT64_FORMAT " buffers", name,
        cs_stat (e, "semaphores"), n);
  }
}

GPtrArray *
bc_run_held (const gchar * desc, guint n, GstElement ** pipeline_out)
{
  GstElement *pipeline = cs_vk_parse_launch (desc, NULL);
  GstElement *c2v, *q;
  GPtrArray *got;
  GstPad *qsrc;
  GstBus *bus;
  GstMessage *msg;
  gulong probe;
  guint level = 0;
  gint64 until;

  fail_unless (pipeline != NULL, "%s", desc);
  c2v = bc_by_name (pipeline, "c2v");
  q = bc_by_name (pipeline, "q");
  qsrc = gst_element_get_static_pad (q, "src");
  /* buffers only: events and the serialised ALLOCATION query pass */
  probe = gst_pad_add_probe (qsrc, GST_PAD_PROBE_TYPE_BLOCK |
      GST_PAD_PROBE_TYPE_BUFFER, NULL, NULL, NULL);
  fail_if (gst_element_set_state (pipeline, GST_STATE_PLAYING) ==
      GST_STATE_CHANGE_FAILURE);
  until = g_get_monotonic_time () + 60 * G_TIME_SPAN_SECOND;
  while (cs_stat (c2v, "buffers") < n && g_get_monotonic_time () < until)
    g_usleep (2000);
  fail_unless_equals_uint64 (cs_stat (c2v, "buffers"), n);
  /* the queue holds all but the one its blocked thread has */
  while (level + 1 < n && g_get_monotonic_time () < until) {
    g_object_get (q, "current-level-buffers", &level, NULL);
    g_usleep (2000);
  }
  fail_unless_equals_int (level + 1, n);
  gst_pad_remove_probe (qsrc, probe);
  gst_object_unref (qsrc);

  got = bc_pull_all (pipeline, bc_by_name (pipeline, "sink"));
  bus = gst_element_get_bus (pipeline);
  msg = gst_bus_timed_pop_filtered (bus, 60 * GST_SECOND,
      GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  fail_unless (msg && GST_MESSAGE_TYPE (msg) == GST_MESSAGE_EOS);
  gst_message_unref (msg);
  gst_object_unref (bus);
  *pipeline_out = pipeline;
  return got;
}

/* Whether this GStreamer's vulkanupload and vulkandownload pack rows (see
 * tight_bytes()): up to 1.26 they copy with bufferRowLength = the plane's
 * width, 1.28 takes the row length from the frame's stride. */
gboolean
bc_vulkandownload_packs_rows (void)
{
  GstPlugin *plugin = gst_registry_find_plugin (gst_registry_get (), "vulkan");
  guint major = 0, minor = 0;

  fail_unless (plugin != NULL);
  sscanf (gst_plugin_get_version (plugin), "%u.%u", &major, &minor);
  gst_object_unref (plugin);
  return major == 1 && minor <= 26;
}

/* Whether this GStreamer's Vulkan library maps every plane of I420 to a
 * VkFormat (1.22 and 1.28 do; 1.24 to 1.26 only the first one) */
gboolean
bc_vulkan_has_i420 (void)
{
  GstVideoInfo info;

  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_I420, 16, 16);
  return gst_vulkan_format_from_video_info (&info, 1) != VK_FORMAT_UNDEFINED;
}

/* A system-memory frame holding the pattern seeded with @seed. */
GstBuffer *
bc_system_frame (const GstVideoInfo * info, guint8 seed, GstClockTime pts)
{
  GstBuffer *buf = gst_buffer_new_allocate (NULL, info->size, NULL);
  GBytes *pattern = cs_pattern_bytes (info, seed);
  const guint8 *src = g_bytes_get_data (pattern, NULL);
  GstVideoFrame frame;
  guint p, y;

  fail_unless (gst_video_frame_map (&frame, (GstVideoInfo *) info, buf,
          GST_MAP_WRITE));
  for (p = 0; p < GST_VIDEO_FRAME_N_PLANES (&frame); p++) {
    guint rb, rows = GST_VIDEO_INFO_COMP_HEIGHT (info, p);
    gint comp[GST_VIDEO_MAX_COMPONENTS];

    gst_video_format_info_component (info->finfo, p, comp);
    rb = GST_VIDEO_INFO_COMP_WIDTH (info, comp[0]) *
        GST_VIDEO_INFO_COMP_PSTRIDE (info, comp[0]);
    for (y = 0; y < rows; y++) {
      memcpy ((guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&frame, p) +
          y * GST_VIDEO_FRAME_PLANE_STRIDE (&frame, p), src, rb);
      src += rb;
    }
  }
  gst_video_frame_unmap (&frame);
  g_bytes_unref (pattern);
  GST_BUFFER_PTS (buf) = pts;
  GST_BUFFER_DURATION (buf) = GST_SECOND / 30;
  return buf;
}

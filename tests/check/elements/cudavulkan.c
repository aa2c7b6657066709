/* gst-cudasync: cudatovulkan / vulkantocuda element tests
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * On the simulated driver the Vulkan side is Mesa lavapipe: main() gives
 * the simulator's device 0 lavapipe's deviceUUID (CUDASIM_DEVICE_UUID)
 * before anything loads libcuda, so the elements find "the same" device.
 * lavapipe cannot export semaphores: there the CPU fallback runs, one
 * cpu-sync per buffer in each element. On a real GPU the elements must not
 * synchronise on the CPU at all.
 *
 * Tests that need elements a machine may lack (nvh264dec, x264enc,
 * openh264dec) print "SKIP: ..." and pass there.
 */
#include "config.h"             /* HAVE_VK_BARRIER_SEMAPHORE */
#include "common.h"
#include "vkcommon.h"
#include "vkutil.h"
#if GST_CHECK_VERSION(1, 24, 0)
#include <gst/cuda/gstcudastream.h>
#endif
#include <gst/app/app.h>
#include <gst/vulkan/vulkan.h>
#include <glib/gstdio.h>
#include <stdio.h>
#include <string.h>

#define N_BUFFERS 3

static const gchar *formats[] = { "RGBA", "BGRA", "RGBx", "NV12", "I420" };
static const gint sizes[][2] = { {64, 48}, {33, 17}, {321, 241} };

static void stop_pipeline (GstElement * pipeline);

static gboolean tight_rows;
/* pull_all() keeps a SHA-1 of each frame instead of its bytes (long runs) */
static gboolean store_checksums;
/* run_frames() calls it on the pipeline before starting it */
static void (*pipeline_hook) (GstElement * pipeline);

/* pipeline_hook for check_decode_semaphores(): the semaphore that the
 * pipeline's cudasemwait (named "wait") offers upstream */
static GstCudaSemaphore *semaphore_for_wait;

static void
set_wait_semaphore (GstElement * pipeline)
{
  GstElement *wait = gst_bin_get_by_name (GST_BIN (pipeline), "wait");
  GstBus *bus = gst_element_get_bus (pipeline);

  fail_unless (wait != NULL);
  g_object_set (wait, "semaphore", semaphore_for_wait, NULL);
  gst_object_unref (wait);
  /* every CUDA element on the semaphore's context */
  gst_bus_set_sync_handler (bus, cs_share_context, NULL, NULL);
  gst_object_unref (bus);
}

/* GStreamer 1.22 to 1.26's vulkandownload copies each plane with bufferRowLength =
 * the plane's width, i.e. rows packed, into one memory per plane, while
 * its buffers' video meta / caps promise GstVideoInfo strides (rounded up
 * to 4): wrong for NV12/I420 widths that are not multiples of 4, even for
 * videotestsrc ! vulkanupload ! vulkandownload. With tight_rows set, read
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
static GPtrArray *
pull_all (GstElement * pipeline, GstElement * sink)
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
      GBytes *bytes = tight_rows ? tight_bytes (buf, &info) :
          cs_buffer_bytes (buf, &info);
      if (store_checksums) {
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

/* Plays @desc (with an appsink named "sink") to EOS; returns the frames.
 * The pipeline stays PAUSED->PLAYING (not stopped) so that statistics can be
 * read before the elements shut down; the caller sets it to NULL. */
static GPtrArray *
run_frames (GstElement ** pipeline_out, const gchar * desc)
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
  if (pipeline_hook)
    pipeline_hook (pipeline);
  fail_if (gst_element_set_state (pipeline, GST_STATE_PLAYING) ==
      GST_STATE_CHANGE_FAILURE, "%s: could not start", desc);
  frames = pull_all (pipeline, sink);

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
    stop_pipeline (pipeline);
  return frames;
}

/* Sets @pipeline to NULL and drops it. @drain: the pipeline has
 * processed its last frame (EOS), so nothing submits Vulkan work any more:
 * wait for its Vulkan queues to be idle first (vk_util_drain_pipeline(): a
 * Mesa lavapipe race with the image memories' timeline semaphores of
 * GStreamer 1.24+ at teardown). */
static void
stop_pipeline_full (GstElement * pipeline, gboolean drain)
{
  if (drain)
    vk_util_drain_pipeline (pipeline);
  fail_unless_equals_int (gst_element_set_state (pipeline, GST_STATE_NULL),
      GST_STATE_CHANGE_SUCCESS);
  gst_object_unref (pipeline);
}

/* after EOS */
static void
stop_pipeline (GstElement * pipeline)
{
  stop_pipeline_full (pipeline, TRUE);
}

static void
assert_same_frames (GPtrArray * got, GPtrArray * want, const gchar * what)
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
      for (j = 0; j < na && da[j] == db[j]; j++);
      fail ("%s: frame %u differs at visible byte %" G_GSIZE_FORMAT
          " of %" G_GSIZE_FORMAT " (0x%02x, want 0x%02x)", what, i, j, na,
          da[j], db[j]);
    }
  }
}

static gchar *
src_desc (const gchar * format, gint w, gint h)
{
  return g_strdup_printf ("videotestsrc num-buffers=%d pattern=smpte ! "
      "video/x-raw,format=%s,width=%d,height=%d,framerate=30/1", N_BUFFERS,
      format, w, h);
}

static GPtrArray *
reference_frames_via (const gchar * format, gint w, gint h, const gchar * via)
{
  gchar *src = src_desc (format, w, h);
  gchar *desc = g_strdup_printf ("%s ! %s ! appsink name=sink sync=false", src,
      via);
  GPtrArray *frames = run_frames (NULL, desc);

  g_free (desc);
  g_free (src);
  return frames;
}

static GPtrArray *
reference_frames (const gchar * format, gint w, gint h)
{
  return reference_frames_via (format, w, h, "identity");
}

static GstElement *
by_name (GstElement * pipeline, const gchar * name)
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
 * semaphore: from GStreamer 1.24 on (whose GstVulkanDevice enables the
 * device's timeline semaphores: the H200's NVIDIA driver has them) unless
 * its "timeline" property is FALSE. 1.22: binary semaphores. */
static gboolean
expect_timeline (GstElement * e)
{
  gboolean timeline;

  g_object_get (e, "timeline", &timeline, NULL);
  return timeline && GST_CHECK_VERSION (1, 24, 0);
}

/* Whether vulkantocuda's output wraps its staging buffers (one GPU copy
 * per frame): GStreamer 1.24+, and every plane's row fits in plane 0's
 * (the layout rule of a wrapped GstCudaMemory, see gstcudavkstaging.h) */
static gboolean
info_wrappable (const GstVideoInfo * info)
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
static gboolean
pad_info (GstElement * e, const gchar * pad_name, GstVideoInfo * info)
{
  GstPad *pad = gst_element_get_static_pad (e, pad_name);
  GstCaps *caps = gst_pad_get_current_caps (pad);
  gboolean ret = caps && gst_video_info_from_caps (info, caps);

  gst_clear_caps (&caps);
  gst_object_unref (pad);
  return ret;
}

static gboolean
expect_wrapped_output (GstElement * v2c)
{
  GstVideoInfo info;

  fail_unless (pad_info (v2c, "src", &info));
  return info_wrappable (&info);
}

/* Whether cudatovulkan's frames of @info are written in place by an
 * upstream that uses the pool it proposes (gstcudavkupstreampool.c):
 * GStreamer 1.24+, one-plane formats, the "in-place" property */
static gboolean
info_in_place (GstElement * c2v, const GstVideoInfo * info)
{
  gboolean in_place;

  g_object_get (c2v, "in-place", &in_place, NULL);
  return in_place && GST_CHECK_VERSION (1, 24, 0) &&
      GST_VIDEO_INFO_N_PLANES (info) == 1;
}

/* How many of @n frames cudatovulkan @c2v received written in place: @n
 * behind cudaupload or cudaconvertscale (through queues and capsfilters,
 * which pass the ALLOCATION query on) when the current caps allow it, 0 behind anything
 * that does not ask for a pool (appsrc, a decoder of two-plane frames);
 * -1 where the test cannot tell (a tee decides by its branches) */
static gint64
expect_in_place (GstElement * c2v, guint64 n)
{
  GstPad *pad = gst_element_get_static_pad (c2v, "sink");
  GstVideoInfo info;
  gint64 ret = 0;

  fail_unless (pad_info (c2v, "sink", &info));
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
        !strcmp (factory, "cudaconvertscale"))
      ret = info_in_place (c2v, &info) ? (gint64) n : 0;
    else if (!strcmp (factory, "tee") || !strcmp (factory, "cudasemsignal"))
      ret = info_in_place (c2v, &info) ? -1 : 0;
    gst_clear_object (&peer);
    gst_clear_object (&up);
  }
  return ret;
}

static void assert_stats_full (GstElement * e, guint64 n, guint64 copies);

/* buffers/copies/cpu-syncs of one bridge element after @n buffers of the
 * current caps */
static void
assert_stats (GstElement * e, guint64 n)
{
  gboolean v2c = g_str_equal (G_OBJECT_TYPE_NAME (e), "GstVulkanToCuda");
  gint64 in_place;

  if (v2c) {
    /* a Vulkan copy, then a CUDA copy unless the output wraps the staging
     * buffer */
    assert_stats_full (e, n, expect_wrapped_output (e) ? 0 : n);
    return;
  }
  /* cudatovulkan: a copy of every frame not written in place */
  in_place = expect_in_place (e, n);
  if (in_place < 0) {
    in_place = (gint64) cs_stat (e, "in-place");
    fail_unless (in_place <= (gint64) n);
  }
  assert_stats_full (e, n, n - (guint64) in_place);
}

/* the same, with @copies of them copied on the CUDA side (cudatovulkan:
 * the others written in place by upstream) */
static void
assert_stats_full (GstElement * e, guint64 n, guint64 copies)
{
  const gchar *name = GST_OBJECT_NAME (e);
  gboolean v2c = g_str_equal (G_OBJECT_TYPE_NAME (e), "GstVulkanToCuda");

  fail_unless (cs_stat (e, "buffers") == n, "%s: buffers %" G_GUINT64_FORMAT
      " != %" G_GUINT64_FORMAT, name, cs_stat (e, "buffers"), n);
  fail_unless (cs_stat (e, "copies") == copies, "%s: copies %"
      G_GUINT64_FORMAT " != %" G_GUINT64_FORMAT, name, cs_stat (e, "copies"),
      copies);
  fail_unless (cs_stat (e, "in-place") == (v2c ? 0 : n - copies),
      "%s: in-place %" G_GUINT64_FORMAT " for %" G_GUINT64_FORMAT
      " buffers, %" G_GUINT64_FORMAT " copies", name,
      cs_stat (e, "in-place"), n, copies);
  fail_unless_equals_uint64 (cs_stat (e, "gpu-copies"), v2c ? n + copies :
      copies);
  if (cs_is_sim) {
    /* lavapipe exports no semaphores: the CPU fallback, once a buffer */
    fail_unless (cs_stat (e, "cpu-syncs") == n, "%s: cpu-syncs %"
        G_GUINT64_FORMAT " != %" G_GUINT64_FORMAT " (lavapipe fallback)",
        name, cs_stat (e, "cpu-syncs"), n);
    fail_unless_equals_uint64 (cs_stat (e, "signals"), 0);
    fail_unless_equals_uint64 (cs_stat (e, "semaphores"), 0);
    assert_semaphore_type (e, "none");
    return;
  }
  fail_unless (cs_stat (e, "cpu-syncs") == 0, "%s: %" G_GUINT64_FORMAT
      " CPU syncs on a real GPU", name, cs_stat (e, "cpu-syncs"));
  fail_unless_equals_uint64 (cs_stat (e, "signals"), n);
  if (expect_timeline (e)) {
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

GST_START_TEST (test_roundtrip_bytes)
{
  guint f, s;

  for (f = 0; f < G_N_ELEMENTS (formats); f++) {
    for (s = 0; s < G_N_ELEMENTS (sizes); s++) {
      gint w = sizes[s][0], h = sizes[s][1];
      gchar *src = src_desc (formats[f], w, h);
      gchar *desc = g_strdup_printf ("%s ! cudaupload ! cudatovulkan name=c2v "
          "! vulkantocuda name=v2c ! cudadownload ! video/x-raw ! "
          "appsink name=sink sync=false", src);
      gchar *what = g_strdup_printf ("round trip %s %dx%d", formats[f], w, h);
      GstElement *pipeline;
      GPtrArray *got, *want;

      GST_INFO ("%s", what);
      got = run_frames (&pipeline, desc);
      assert_stats (by_name (pipeline, "c2v"), N_BUFFERS);
      assert_stats (by_name (pipeline, "v2c"), N_BUFFERS);
      stop_pipeline (pipeline);
      want = reference_frames (formats[f], w, h);
      assert_same_frames (got, want, what);

      g_ptr_array_unref (got);
      g_ptr_array_unref (want);
      g_free (what);
      g_free (desc);
      g_free (src);
    }
  }
}

GST_END_TEST;

/* The binary path on every version: timeline=false on both elements gives
 * one binary semaphore per slot on a real GPU (1.22's only path), and the
 * same bytes */
GST_START_TEST (test_roundtrip_binary)
{
  gchar *src = src_desc ("NV12", 320, 240);
  gchar *desc = g_strdup_printf ("%s ! cudaupload ! cudatovulkan name=c2v "
      "timeline=false ! vulkantocuda name=v2c timeline=false ! cudadownload "
      "! video/x-raw ! appsink name=sink sync=false", src);
  GstElement *pipeline;
  GPtrArray *got, *want;

  got = run_frames (&pipeline, desc);
  fail_if (expect_timeline (by_name (pipeline, "c2v")));
  assert_stats (by_name (pipeline, "c2v"), N_BUFFERS);
  assert_stats (by_name (pipeline, "v2c"), N_BUFFERS);
  stop_pipeline (pipeline);
  want = reference_frames ("NV12", 320, 240);
  assert_same_frames (got, want, "round trip, binary semaphores");
  g_ptr_array_unref (got);
  g_ptr_array_unref (want);
  g_free (desc);
  g_free (src);
}

GST_END_TEST;

/* Which downstream Vulkan elements wait on cudatovulkan's frames on the GPU
 * through the images' timeline semaphores (GStreamer 1.24 to 1.28, timeline
 * path): each image carries one in its barrier state. From one use of an
 * image to the next, the value it carries out of cudatovulkan grows by 1
 * for the take-over (which waits for CUDA's signal), 1 for the release,
 * and 1 for every downstream element that waited for the value and
 * signalled the next one (a GstVulkanOperation user); an element that only
 * relies on submission order on the shared queue adds nothing. */
typedef struct
{
  GHashTable *last;             /* VkImage of plane 0 -> value */
  GArray *deltas;               /* guint64 */
  guint without;                /* images without a semaphore */
} TlTrack;

static GstPadProbeReturn
track_image_timeline (GstPad * pad, GstPadProbeInfo * info, gpointer data)
{
#ifdef HAVE_VK_BARRIER_SEMAPHORE
  GstVulkanImageMemory *mem = (GstVulkanImageMemory *)
      gst_buffer_peek_memory (GST_PAD_PROBE_INFO_BUFFER (info), 0);
  TlTrack *t = data;
  gpointer key = GSIZE_TO_POINTER ((gsize) mem->image);
  gpointer old;

  if (mem->barrier.parent.semaphore == VK_NULL_HANDLE) {
    t->without++;
    return GST_PAD_PROBE_OK;
  }
  if (g_hash_table_lookup_extended (t->last, key, NULL, &old)) {
    guint64 d = mem->barrier.parent.semaphore_value - GPOINTER_TO_SIZE (old);
    g_array_append_val (t->deltas, d);
  }
  g_hash_table_insert (t->last, key,
      GSIZE_TO_POINTER ((gsize) mem->barrier.parent.semaphore_value));
#endif
  return GST_PAD_PROBE_OK;
}

GST_START_TEST (test_image_timeline)
{
  static const struct
  {
    const gchar *consumer;
    guint64 waits;              /* GPU waits on the image timeline */
  } cases[] = {
    {"vulkandownload ! video/x-raw", 1},
    {"vulkancolorconvert ! video/x-raw(memory:VulkanImage),format=RGBA", 0},
    {"vulkanviewconvert", 0},
    {"vulkanimageidentity", 0},
    {"vulkantocuda ! cudadownload", 1},
  };
  guint i, j;

#ifndef HAVE_VK_BARRIER_SEMAPHORE
  g_print ("SKIP: test_image_timeline: this GStreamer's Vulkan memories have "
      "no timeline semaphore fields\n");
  return;
#endif
  for (i = 0; i < G_N_ELEMENTS (cases); i++) {
    gchar *desc = g_strdup_printf ("videotestsrc num-buffers=%d "
        "pattern=smpte ! video/x-raw,format=BGRA,width=64,height=48 ! "
        "cudaupload ! cudatovulkan name=c2v ! %s ! fakesink name=sink",
        N_BUFFERS, cases[i].consumer);
    TlTrack t = { g_hash_table_new (NULL, NULL),
      g_array_new (FALSE, FALSE, sizeof (guint64)), 0
    };
    GstElement *pipeline = cs_vk_parse_launch (desc, NULL);
    GstElement *c2v;
    GstPad *pad;
    GstBus *bus;
    GstMessage *msg;

    fail_unless (pipeline != NULL, "%s", desc);
    c2v = by_name (pipeline, "c2v");
    pad = gst_element_get_static_pad (c2v, "src");
    gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER, track_image_timeline,
        &t, NULL);
    gst_object_unref (pad);
    bus = gst_element_get_bus (pipeline);
    gst_bus_set_sync_handler (bus, cs_share_context, NULL, NULL);
    fail_if (gst_element_set_state (pipeline, GST_STATE_PLAYING) ==
        GST_STATE_CHANGE_FAILURE);
    msg = gst_bus_timed_pop_filtered (bus, 60 * GST_SECOND,
        GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
    fail_unless (msg && GST_MESSAGE_TYPE (msg) == GST_MESSAGE_EOS,
        "%s: no EOS", desc);
    gst_message_unref (msg);
    assert_stats (c2v, N_BUFFERS);

    if (!expect_timeline (c2v) || cs_is_sim) {
      /* binary semaphores or the CPU fallback: wrapped images carry none */
      fail_unless_equals_int (t.without, N_BUFFERS);
    } else {
      fail_unless_equals_int (t.without, 0);
      fail_unless (t.deltas->len >= N_BUFFERS / 2, "%s: %u images reused",
          desc, t.deltas->len);
      for (j = 0; j < t.deltas->len; j++)
        fail_unless_equals_uint64 (g_array_index (t.deltas, guint64, j),
            2 + cases[i].waits);
      g_print ("%s: waits on the GPU on cudatovulkan's image timeline: %s "
          "(%u reuses, value +%" G_GUINT64_FORMAT " each)\n",
          cases[i].consumer, cases[i].waits ? "yes" : "no", t.deltas->len,
          2 + cases[i].waits);
    }
    stop_pipeline (pipeline);
    gst_object_unref (bus);
    g_hash_table_unref (t.last);
    g_array_unref (t.deltas);
    g_free (desc);
  }
}

GST_END_TEST;

/* vulkantocuda's output buffers kept by the application past EOS and the
 * pipeline's stop, more of them than the element keeps in flight
 * otherwise: each still holds its own frame (on 1.24+ the buffers wrap the
 * staging buffers, which are not reused while downstream holds them, and
 * outlive the element), is read after the stop, and is freed without a
 * use-after-destroy (the simulator would report it). */
#define N_HELD 20

/* 20 moving frames: a frame overwritten by a later one shows */
#define HELD_SRC "videotestsrc num-buffers=20 pattern=ball ! " \
    "video/x-raw,format=RGBA,width=64,height=48,framerate=30/1"

GST_START_TEST (test_held_outputs)
{
  const gchar *src = HELD_SRC;
  gchar *desc = g_strdup_printf ("%s ! vulkanupload ! vulkantocuda name=v2c "
      "! video/x-raw(memory:CUDAMemory) ! appsink name=sink sync=false", src);
  gchar *ref = g_strdup_printf ("%s ! appsink name=sink sync=false", src);
  GPtrArray *held = g_ptr_array_new_with_free_func ((GDestroyNotify)
      gst_buffer_unref);
  GstElement *pipeline = cs_vk_parse_launch (desc, NULL);
  GPtrArray *want;
  GstSample *sample;
  GstVideoInfo info;
  GstBus *bus;
  guint i;

  fail_unless (pipeline != NULL);
  bus = gst_element_get_bus (pipeline);
  gst_bus_set_sync_handler (bus, cs_share_context, NULL, NULL);
  fail_if (gst_element_set_state (pipeline, GST_STATE_PLAYING) ==
      GST_STATE_CHANGE_FAILURE);
  while ((sample = gst_app_sink_pull_sample (GST_APP_SINK (by_name (pipeline,
                  "sink"))))) {
    g_ptr_array_add (held, gst_buffer_ref (gst_sample_get_buffer (sample)));
    gst_sample_unref (sample);
  }
  fail_unless_equals_int (held->len, N_HELD);
  assert_stats (by_name (pipeline, "v2c"), N_HELD);
  stop_pipeline (pipeline);
  gst_object_unref (bus);

  want = run_frames (NULL, ref);
  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_RGBA, 64, 48);
  fail_unless_equals_int (want->len, N_HELD);
  for (i = 0; i < N_HELD; i++) {
    GstBuffer *buf = g_ptr_array_index (held, i);
    GBytes *got = cs_buffer_bytes (buf, &info);

    fail_unless (gst_is_cuda_memory (gst_buffer_peek_memory (buf, 0)));
    fail_unless (g_bytes_equal (got, g_ptr_array_index (want, i)),
        "held frame %u changed after it was pushed", i);
    g_bytes_unref (got);
  }
  g_ptr_array_unref (held);
  g_ptr_array_unref (want);
  if (cs_is_sim) {
    cs_sim.drain ();
    fail_unless_equals_int (cs_sim.violation_count (), 0);
  }
  g_free (desc);
  g_free (ref);
}

GST_END_TEST;

/* Whether this GStreamer's vulkanupload and vulkandownload pack rows (see
 * tight_bytes()): up to 1.26 they copy with bufferRowLength = the plane's
 * width, 1.28 takes the row length from the frame's stride. */
static gboolean
vulkandownload_packs_rows (void)
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
static gboolean
vulkan_has_i420 (void)
{
  GstVideoInfo info;

  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_I420, 16, 16);
  return gst_vulkan_format_from_video_info (&info, 1) != VK_FORMAT_UNDEFINED;
}

/* cudatovulkan's answer to an ALLOCATION query for @caps (transfer full) */
static GstQuery *
c2v_allocation (GstElement * c2v, GstCaps * caps, gboolean need_pool)
{
  GstPad *pad = gst_element_get_static_pad (c2v, "sink");
  GstQuery *query = gst_query_new_allocation (caps, need_pool);

  fail_unless (gst_pad_query (pad, query), "cudatovulkan refused ALLOCATION");
  gst_object_unref (pad);
  return query;
}

/* What cudatovulkan offers upstream in the ALLOCATION query for @caps:
 * TRUE and the semaphore's handle types when it offers one. */
static gboolean
c2v_offers_semaphore (GstElement * c2v, GstCaps * caps,
    GstCudaSemaphoreHandleTypeFlags * types)
{
  GstQuery *query = c2v_allocation (c2v, caps, FALSE);
  GstCudaSemaphore *sem = NULL;
  gboolean ret = FALSE;

  *types = GST_CUDA_SEMAPHORE_HANDLE_TYPE_FLAG_NONE;
  fail_unless (gst_query_find_allocation_meta (query, GST_VIDEO_META_API_TYPE,
          NULL));
  if (gst_query_parse_cuda_sync_meta (query, types, &sem) && sem) {
    fail_unless (gst_cuda_semaphore_get_handle_type (sem) ==
        GST_CUDA_SEMAPHORE_HANDLE_TYPE_OPAQUE_FD);
    fail_unless (*types & GST_CUDA_SEMAPHORE_HANDLE_TYPE_FLAG_OPAQUE_FD);
    gst_object_unref (sem);
    ret = TRUE;
  }
  gst_query_unref (query);
  return ret;
}

/* cudasemsignal ! cudatovulkan: the semaphore comes from cudatovulkan
 * through the ALLOCATION query. Where Vulkan exports semaphores (a real
 * GPU) cudasemsignal signals it for every buffer and cudatovulkan waits on
 * it on the GPU, no CPU wait anywhere; where it cannot (lavapipe)
 * cudatovulkan offers none and cudasemsignal's fallback=sync synchronises
 * on the CPU once a buffer. Frames byte-exact either way. */
GST_START_TEST (test_semsignal_offer)
{
  static const gchar *fmts[] = { "RGBA", "NV12" };
  guint f;

  for (f = 0; f < G_N_ELEMENTS (fmts); f++) {
    gint w = 33, h = 17;
    gchar *src = src_desc (fmts[f], w, h);
    gchar *desc = g_strdup_printf ("%s ! cudaupload ! cudasemsignal name=sig "
        "! cudatovulkan name=c2v ! vulkandownload ! video/x-raw ! "
        "appsink name=sink sync=false", src);
    gchar *what = g_strdup_printf ("cudasemsignal ! cudatovulkan %s %dx%d",
        fmts[f], w, h);
    GstCudaSemaphoreHandleTypeFlags types;
    GstElement *pipeline, *sig, *c2v;
    GstPad *pad;
    GstCaps *caps;
    GPtrArray *got, *want;
    gboolean offered;

    GST_INFO ("%s", what);
    tight_rows = (w % 4) != 0 && !strcmp (fmts[f], "NV12") &&
        vulkandownload_packs_rows ();
    got = run_frames (&pipeline, desc);
    tight_rows = FALSE;
    sig = by_name (pipeline, "sig");
    c2v = by_name (pipeline, "c2v");

    pad = gst_element_get_static_pad (c2v, "sink");
    caps = gst_pad_get_current_caps (pad);
    fail_unless (caps != NULL);
    offered = c2v_offers_semaphore (c2v, caps, &types);
    gst_caps_unref (caps);
    gst_object_unref (pad);

    assert_stats (c2v, N_BUFFERS);
    fail_unless_equals_uint64 (cs_stat (sig, "buffers"), N_BUFFERS);
    if (!cs_is_sim)
      fail_unless (offered, "%s: no semaphore offered on a real GPU", what);
    if (offered) {
      /* documented: downstream's semaphore, signalled on the GPU for every
       * buffer and waited for by cudatovulkan's stream */
      fail_unless (cs_stat (sig, "signals") == N_BUFFERS, "%s: signals %"
          G_GUINT64_FORMAT, what, cs_stat (sig, "signals"));
      fail_unless (cs_stat (sig, "cpu-syncs") == 0, "%s: cpu-syncs %"
          G_GUINT64_FORMAT, what, cs_stat (sig, "cpu-syncs"));
      fail_unless (cs_stat (c2v, "waits") == N_BUFFERS, "%s: waits %"
          G_GUINT64_FORMAT, what, cs_stat (c2v, "waits"));
    } else {
      /* documented: no offer where Vulkan cannot export semaphores:
       * cudasemsignal's fallback=sync, once a buffer; nothing to wait for */
      fail_unless (cs_stat (sig, "signals") == 0);
      fail_unless (cs_stat (sig, "cpu-syncs") == N_BUFFERS, "%s: cpu-syncs %"
          G_GUINT64_FORMAT, what, cs_stat (sig, "cpu-syncs"));
      fail_unless_equals_uint64 (cs_stat (c2v, "waits"), 0);
    }
    stop_pipeline (pipeline);
    want = reference_frames (fmts[f], w, h);
    assert_same_frames (got, want, what);

    g_ptr_array_unref (got);
    g_ptr_array_unref (want);
    g_free (what);
    g_free (desc);
    g_free (src);
  }
}

GST_END_TEST;

/* memory:VulkanBuffer: cudatovulkan outputs one exportable VkBuffer per
 * plane (GstVideoInfo strides, video meta) when downstream asks for
 * buffers; vulkantocuda takes them (and vulkanupload's) back to CUDA.
 * GStreamer 1.22's vulkandownload takes only images: the check goes
 * through vulkantocuda. */
GST_START_TEST (test_vulkan_buffer)
{
  static const gchar *fmts[] = { "RGBA", "NV12", "I420" };
  guint f, v;

  for (f = 0; f < G_N_ELEMENTS (fmts); f++) {
    for (v = 0; v < 2; v++) {
      gint w = 33, h = 17;
      gchar *src = src_desc (fmts[f], w, h);
      gchar *desc = v == 0 ? g_strdup_printf ("%s ! cudaupload ! "
          "cudatovulkan name=c2v ! video/x-raw(memory:VulkanBuffer) ! "
          "vulkantocuda name=v2c ! cudadownload ! video/x-raw ! "
          "appsink name=sink sync=false", src) :
          g_strdup_printf ("%s ! vulkanupload ! "
          "video/x-raw(memory:VulkanBuffer) ! vulkantocuda name=v2c ! "
          "cudadownload ! video/x-raw ! appsink name=sink sync=false", src);
      gchar *what = g_strdup_printf ("%s VulkanBuffer %s %dx%d", v == 0 ?
          "cudatovulkan ! vulkantocuda" : "vulkanupload ! vulkantocuda",
          fmts[f], w, h);
      GstElement *pipeline;
      GstPad *pad;
      GstCaps *caps;
      GPtrArray *got, *want;

      GST_INFO ("%s", what);
      if (v == 1 && !strcmp (fmts[f], "I420") && !vulkan_has_i420 ()) {
        g_print ("SKIP: %s: this GStreamer's Vulkan library has no format "
            "for I420's chroma planes (1.24 to 1.26): vulkanupload cannot "
            "allocate I420 frames\n", what);
        g_free (what);
        g_free (desc);
        g_free (src);
        continue;
      }
      got = run_frames (&pipeline, desc);
      pad = gst_element_get_static_pad (by_name (pipeline, "v2c"), "sink");
      caps = gst_pad_get_current_caps (pad);
      fail_unless (caps != NULL);
      fail_unless (gst_caps_features_contains (gst_caps_get_features (caps, 0),
              GST_CAPS_FEATURE_MEMORY_VULKAN_BUFFER), "%s: caps %"
          GST_PTR_FORMAT, what, caps);
      gst_caps_unref (caps);
      gst_object_unref (pad);
      if (v == 0)
        assert_stats (by_name (pipeline, "c2v"), N_BUFFERS);
      assert_stats (by_name (pipeline, "v2c"), N_BUFFERS);
      stop_pipeline (pipeline);
      want = reference_frames (fmts[f], w, h);
      assert_same_frames (got, want, what);

      g_ptr_array_unref (got);
      g_ptr_array_unref (want);
      g_free (what);
      g_free (desc);
      g_free (src);
    }
  }
}

GST_END_TEST;

GST_START_TEST (test_to_vulkandownload)
{
  guint f, s;

  for (f = 0; f < G_N_ELEMENTS (formats); f++) {
    for (s = 0; s < G_N_ELEMENTS (sizes); s++) {
      gint w = sizes[s][0], h = sizes[s][1];
      gchar *src = src_desc (formats[f], w, h);
      gchar *desc = g_strdup_printf ("%s ! cudaupload ! cudatovulkan name=c2v "
          "! vulkandownload ! video/x-raw ! appsink name=sink sync=false",
          src);
      gchar *what = g_strdup_printf ("cudatovulkan ! vulkandownload %s %dx%d",
          formats[f], w, h);
      GstElement *pipeline;
      GPtrArray *got, *want;

      GST_INFO ("%s", what);
      /* see tight_bytes(): only where that layout differs from the
       * caps' (checked below against vulkanupload ! vulkandownload) */
      tight_rows = (w % 4) != 0 && (!strcmp (formats[f], "NV12") ||
          !strcmp (formats[f], "I420")) && vulkandownload_packs_rows ();
      got = run_frames (&pipeline, desc);
      tight_rows = FALSE;
      assert_stats (by_name (pipeline, "c2v"), N_BUFFERS);
      stop_pipeline (pipeline);
      want = reference_frames (formats[f], w, h);
      assert_same_frames (got, want, what);

      g_ptr_array_unref (got);
      g_ptr_array_unref (want);
      g_free (what);
      g_free (desc);
      g_free (src);
    }
  }
}

GST_END_TEST;

static void fill_cuda_buffer (GstBuffer * buf, const GstVideoInfo * info,
    guint8 value, CUstream stream);

/* The pool cudatovulkan @c2v proposes upstream for @caps (transfer full),
 * or NULL; its size in @size */
static GstBufferPool *
c2v_proposed_pool (GstElement * c2v, GstCaps * caps, guint * size)
{
  GstQuery *query = c2v_allocation (c2v, caps, TRUE);
  GstBufferPool *pool = NULL;

  if (gst_query_get_n_allocation_pools (query) > 0)
    gst_query_parse_nth_allocation_pool (query, 0, &pool, size, NULL, NULL);
  gst_query_unref (query);
  return pool;
}

/* Checks what cudatovulkan proposes for its current input caps: on 1.24+
 * a GstCudaBufferPool, for frames written in place a subclass of it whose
 * buffers are one CUDA memory per frame at least the caps' size; nothing
 * on 1.22 */
static void
assert_proposed_pool (GstElement * c2v, gboolean in_place)
{
  GstPad *pad = gst_element_get_static_pad (c2v, "sink");
  GstCaps *caps = gst_pad_get_current_caps (pad);
  GstBufferPool *pool;
  GstVideoInfo info;
  guint size = 0;

  fail_unless (caps && gst_video_info_from_caps (&info, caps));
  pool = c2v_proposed_pool (c2v, caps, &size);
  if (!GST_CHECK_VERSION (1, 24, 0)) {
    fail_unless (pool == NULL, "a pool proposed on 1.22");
  } else {
    fail_unless (pool && GST_IS_CUDA_BUFFER_POOL (pool));
    fail_unless (GST_CUDA_BUFFER_POOL (pool)->context != NULL);
    fail_unless_equals_int (G_OBJECT_TYPE (pool) != GST_TYPE_CUDA_BUFFER_POOL,
        in_place);
    fail_unless (size >= info.size, "pool size %u < %" G_GSIZE_FORMAT, size,
        info.size);
  }
  if (pool && in_place) {
    GstStructure *config = gst_buffer_pool_get_config (pool);
    GstBuffer *buf = NULL;
    GstCudaMemory *cmem;

    GstBufferPoolAcquireParams dontwait = {.flags =
          GST_BUFFER_POOL_ACQUIRE_FLAG_DONTWAIT };
    GstBuffer *more = NULL;

    /* max-buffers 1: a second buffer only once the first is back */
    gst_buffer_pool_config_set_params (config, caps, size, 0, 1);
    fail_unless (gst_buffer_pool_set_config (pool, config));
    fail_unless (gst_buffer_pool_set_active (pool, TRUE));
    fail_unless_equals_int (gst_buffer_pool_acquire_buffer (pool, &buf, NULL),
        GST_FLOW_OK);
    fail_unless_equals_int (gst_buffer_pool_acquire_buffer (pool, &more,
            &dontwait), GST_FLOW_EOS);
    fail_unless_equals_int (gst_buffer_n_memory (buf), 1);
    fail_unless (gst_is_cuda_memory (gst_buffer_peek_memory (buf, 0)));
    cmem = GST_CUDA_MEMORY_CAST (gst_buffer_peek_memory (buf, 0));
    fail_unless (GST_VIDEO_INFO_PLANE_STRIDE (&cmem->info, 0) >=
        GST_VIDEO_INFO_PLANE_STRIDE (&info, 0));
    fail_unless (gst_buffer_get_video_meta (buf) != NULL);
    gst_buffer_unref (buf);
    fail_unless_equals_int (gst_buffer_pool_acquire_buffer (pool, &more,
            &dontwait), GST_FLOW_OK);
    gst_buffer_unref (more);
    fail_unless (gst_buffer_pool_set_active (pool, FALSE));
  }
  gst_clear_object (&pool);
  gst_caps_unref (caps);
  gst_object_unref (pad);
}

/* cudaupload ! cudatovulkan: on 1.24+ cudaupload writes one-plane frames
 * straight into cudatovulkan's Vulkan memory (the pool it proposes):
 * copies 0, in-place = buffers; with in-place=false, or for two-plane
 * formats, one copy a frame. Byte-exact either way. */
GST_START_TEST (test_in_place)
{
  static const struct
  {
    const gchar *format;
    gint w, h;
  } cases[] = { {"RGBA", 64, 48}, {"BGRx", 33, 17}, {"RGBx", 321, 241},
  {"BGRA", 320, 240}, {"NV12", 64, 48}
  };
  guint i, k;

  for (i = 0; i < G_N_ELEMENTS (cases); i++) {
    for (k = 0; k < 2; k++) {
      gboolean enabled = k == 0;
      gchar *src = src_desc (cases[i].format, cases[i].w, cases[i].h);
      gchar *desc = g_strdup_printf ("%s ! cudaupload ! cudatovulkan "
          "name=c2v in-place=%s ! vulkandownload ! video/x-raw ! "
          "appsink name=sink sync=false", src, enabled ? "true" : "false");
      gchar *what = g_strdup_printf ("in place %s %dx%d, in-place=%d",
          cases[i].format, cases[i].w, cases[i].h, enabled);
      GstElement *pipeline, *c2v;
      GPtrArray *got, *want;
      GstVideoInfo info;
      gboolean expect;

      GST_INFO ("%s", what);
      got = run_frames (&pipeline, desc);
      c2v = by_name (pipeline, "c2v");
      fail_unless (pad_info (c2v, "sink", &info));
      expect = info_in_place (c2v, &info);
      fail_unless_equals_int (expect, enabled && GST_CHECK_VERSION (1, 24,
              0) && strcmp (cases[i].format, "NV12") != 0);
      fail_unless_equals_uint64 (cs_stat (c2v, "in-place"),
          expect ? N_BUFFERS : 0);
      assert_stats (c2v, N_BUFFERS);
      assert_proposed_pool (c2v, expect);
      stop_pipeline (pipeline);
      want = reference_frames (cases[i].format, cases[i].w, cases[i].h);
      assert_same_frames (got, want, what);
      g_ptr_array_unref (got);
      g_ptr_array_unref (want);
      g_free (what);
      g_free (desc);
      g_free (src);
    }
  }
}

GST_END_TEST;

#define N_HELD_IN_PLACE 20

/* Frames written in place stay with downstream for as long as it holds
 * them: all 20 of a run are held at once (a queue blocked until
 * cudatovulkan has pushed the last one) while cudaupload goes on writing,
 * then read; every one is byte-exact. A frame handed to cudaupload again
 * while held would show the next frame's bytes. */
GST_START_TEST (test_in_place_held)
{
  const gchar *src = HELD_SRC;
  gchar *desc = g_strdup_printf ("%s ! cudaupload ! cudatovulkan name=c2v ! "
      "queue name=q max-size-buffers=0 max-size-bytes=0 max-size-time=0 ! "
      "vulkandownload ! video/x-raw ! appsink name=sink sync=false", src);
  gchar *ref = g_strdup_printf ("%s ! appsink name=sink sync=false", src);
  GstElement *pipeline = cs_vk_parse_launch (desc, NULL);
  GstElement *c2v, *q;
  GPtrArray *got, *want;
  GstPad *qsrc;
  GstBus *bus;
  GstMessage *msg;
  gulong probe;
  guint level = 0;
  gint64 until;

  fail_unless (pipeline != NULL);
  c2v = by_name (pipeline, "c2v");
  q = by_name (pipeline, "q");
  qsrc = gst_element_get_static_pad (q, "src");
  /* buffers only: events and the serialised ALLOCATION query pass */
  probe = gst_pad_add_probe (qsrc, GST_PAD_PROBE_TYPE_BLOCK |
      GST_PAD_PROBE_TYPE_BUFFER, NULL, NULL, NULL);
  fail_if (gst_element_set_state (pipeline, GST_STATE_PLAYING) ==
      GST_STATE_CHANGE_FAILURE);
  until = g_get_monotonic_time () + 60 * G_TIME_SPAN_SECOND;
  while (cs_stat (c2v, "buffers") < N_HELD_IN_PLACE &&
      g_get_monotonic_time () < until)
    g_usleep (2000);
  fail_unless_equals_uint64 (cs_stat (c2v, "buffers"), N_HELD_IN_PLACE);
  /* the queue holds all but the one its blocked thread has */
  while (level + 1 < N_HELD_IN_PLACE && g_get_monotonic_time () < until) {
    g_object_get (q, "current-level-buffers", &level, NULL);
    g_usleep (2000);
  }
  fail_unless_equals_int (level + 1, N_HELD_IN_PLACE);
  gst_pad_remove_probe (qsrc, probe);
  gst_object_unref (qsrc);

  got = pull_all (pipeline, by_name (pipeline, "sink"));
  bus = gst_element_get_bus (pipeline);
  msg = gst_bus_timed_pop_filtered (bus, 60 * GST_SECOND,
      GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  fail_unless (msg && GST_MESSAGE_TYPE (msg) == GST_MESSAGE_EOS);
  gst_message_unref (msg);
  gst_object_unref (bus);
  assert_stats (c2v, N_HELD_IN_PLACE);
  stop_pipeline (pipeline);

  want = run_frames (NULL, ref);
  assert_same_frames (got, want, "frames written in place, held");
  g_ptr_array_unref (got);
  g_ptr_array_unref (want);
  if (cs_is_sim) {
    cs_sim.drain ();
    fail_unless_equals_int (cs_sim.violation_count (), 0);
  }
  g_free (desc);
  g_free (ref);
}

GST_END_TEST;

/* An upstream that does not use the proposed pool (its own CUDA pool) gets
 * its frames copied, and one that uses it for some buffers only gets those
 * written in place: frames 0, 2 and 3 from the test's own pool, frame 1
 * from the pool cudatovulkan proposed (on 1.24+; 1.22 proposes none) */
GST_START_TEST (test_in_place_refused)
{
  GstCaps *caps = gst_caps_from_string ("video/x-raw(memory:CUDAMemory),"
      "format=RGBA,width=64,height=48,framerate=30/1");
  GstBufferPool *own = gst_cuda_buffer_pool_new (cs_ctx), *proposed = NULL;
  GstStructure *config = gst_buffer_pool_get_config (own);
  GPtrArray *frames = g_ptr_array_new_with_free_func ((GDestroyNotify)
      g_bytes_unref);
  CUstream stream = cs_new_stream (CU_STREAM_NON_BLOCKING);
  GstElement *pipeline, *src, *c2v;
  GstVideoInfo info;
  GstBus *bus;
  GstMessage *msg;
  guint i, size = 0;

  fail_unless (gst_video_info_from_caps (&info, caps));
  gst_buffer_pool_config_set_params (config, caps, info.size, 0, 0);
  fail_unless (gst_buffer_pool_set_config (own, config));
  fail_unless (gst_buffer_pool_set_active (own, TRUE));
  pipeline = cs_vk_parse_launch ("appsrc name=src format=time ! cudatovulkan "
      "name=c2v ! vulkandownload ! video/x-raw ! appsink name=sink "
      "sync=false emit-signals=true", NULL);
  fail_unless (pipeline != NULL);
  src = by_name (pipeline, "src");
  c2v = by_name (pipeline, "c2v");
  g_object_set (src, "caps", caps, NULL);
  g_signal_connect (by_name (pipeline, "sink"), "new-sample",
      G_CALLBACK (cs_collect_sample), frames);
  bus = gst_element_get_bus (pipeline);
  gst_bus_set_sync_handler (bus, cs_share_context, NULL, NULL);
  fail_if (gst_element_set_state (pipeline, GST_STATE_PLAYING) ==
      GST_STATE_CHANGE_FAILURE);

  for (i = 0; i < 4; i++) {
    GstBufferPool *from = own;
    GstBuffer *buf = NULL;

    if (i == 1) {
      /* cudatovulkan has caps now (frame 0): what it proposes for them */
      gint64 until = g_get_monotonic_time () + 20 * G_TIME_SPAN_SECOND;

      while (cs_stat (c2v, "buffers") < 1 && g_get_monotonic_time () < until)
        g_usleep (1000);
      proposed = c2v_proposed_pool (c2v, caps, &size);
      fail_unless_equals_int (proposed != NULL, GST_CHECK_VERSION (1, 24, 0));
      if (proposed) {
        config = gst_buffer_pool_get_config (proposed);
        gst_buffer_pool_config_set_params (config, caps, size, 0, 0);
        fail_unless (gst_buffer_pool_set_config (proposed, config));
        fail_unless (gst_buffer_pool_set_active (proposed, TRUE));
        from = proposed;
      }
    }
    fail_unless_equals_int (gst_buffer_pool_acquire_buffer (from, &buf, NULL),
        GST_FLOW_OK);
    fill_cuda_buffer (buf, &info, 0x20 + i, stream);
    GST_BUFFER_PTS (buf) = i * (GST_SECOND / 30);
    fail_unless_equals_int (gst_app_src_push_buffer (GST_APP_SRC (src), buf),
        GST_FLOW_OK);
  }
  gst_app_src_end_of_stream (GST_APP_SRC (src));
  msg = gst_bus_timed_pop_filtered (bus, 60 * GST_SECOND,
      GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  fail_unless (msg && GST_MESSAGE_TYPE (msg) == GST_MESSAGE_EOS);
  gst_message_unref (msg);

  fail_unless_equals_int (frames->len, 4);
  for (i = 0; i < 4; i++) {
    GBytes *want = cs_value_bytes (&info, 0x20 + i);

    fail_unless (g_bytes_equal (g_ptr_array_index (frames, i), want),
        "frame %u differs", i);
    g_bytes_unref (want);
  }
  fail_unless_equals_uint64 (cs_stat (c2v, "in-place"),
      GST_CHECK_VERSION (1, 24, 0) ? 1 : 0);
  assert_stats_full (c2v, 4, GST_CHECK_VERSION (1, 24, 0) ? 3 : 4);
  stop_pipeline (pipeline);
  if (proposed) {
    fail_unless (gst_buffer_pool_set_active (proposed, FALSE));
    gst_object_unref (proposed);
  }
  fail_unless (gst_buffer_pool_set_active (own, FALSE));
  gst_object_unref (own);
  gst_object_unref (bus);
  cs_free_stream (stream);
  g_ptr_array_unref (frames);
  gst_caps_unref (caps);
}

GST_END_TEST;

/* A system-memory frame holding the pattern seeded with @seed. */
static GstBuffer *
system_frame (const GstVideoInfo * info, guint8 seed, GstClockTime pts)
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

/* Two caps in one run: appsrc switches from RGBA 64x48 to NV12 33x17 and
 * then to I420 321x241; every frame comes back unchanged. */
GST_START_TEST (test_renegotiation)
{
  static const struct
  {
    const gchar *format;
    gint w, h;
  } steps[] = { {"RGBA", 64, 48}, {"NV12", 33, 17}, {"I420", 321, 241} };
  GError *err = NULL;
  GstElement *pipeline = cs_vk_parse_launch ("appsrc name=src format=time ! "
      "cudaupload ! cudatovulkan name=c2v ! vulkantocuda name=v2c ! "
      "cudadownload ! video/x-raw ! appsink name=sink sync=false", &err);
  GstElement *src, *sink;
  GPtrArray *want = g_ptr_array_new_with_free_func ((GDestroyNotify)
      g_bytes_unref);
  GPtrArray *got;
  GstBus *bus;
  GstMessage *msg;
  guint i, k, c, n = 0;

  fail_unless (pipeline != NULL, "%s", err ? err->message : "?");
  src = by_name (pipeline, "src");
  sink = by_name (pipeline, "sink");
  fail_if (gst_element_set_state (pipeline, GST_STATE_PLAYING) ==
      GST_STATE_CHANGE_FAILURE);

  for (i = 0; i < G_N_ELEMENTS (steps); i++) {
    GstVideoInfo info;
    GstCaps *caps = gst_caps_new_simple ("video/x-raw", "format",
        G_TYPE_STRING, steps[i].format, "width", G_TYPE_INT, steps[i].w,
        "height", G_TYPE_INT, steps[i].h, "framerate", GST_TYPE_FRACTION, 30,
        1, NULL);

    fail_unless (gst_video_info_from_caps (&info, caps));
    gst_app_src_set_caps (GST_APP_SRC (src), caps);
    gst_caps_unref (caps);
    for (k = 0; k < N_BUFFERS; k++, n++) {
      GstBuffer *buf = system_frame (&info, (guint8) (n * 13),
          n * (GST_SECOND / 30));
      g_ptr_array_add (want, cs_pattern_bytes (&info, (guint8) (n * 13)));
      fail_unless_equals_int (gst_app_src_push_buffer (GST_APP_SRC (src),
              buf), GST_FLOW_OK);
    }
  }
  gst_app_src_end_of_stream (GST_APP_SRC (src));

  got = pull_all (pipeline, sink);
  bus = gst_element_get_bus (pipeline);
  msg = gst_bus_timed_pop_filtered (bus, 60 * GST_SECOND,
      GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  fail_unless (msg != NULL && GST_MESSAGE_TYPE (msg) == GST_MESSAGE_EOS,
      "renegotiation run did not reach EOS");
  gst_message_unref (msg);
  gst_object_unref (bus);

  assert_same_frames (got, want, "renegotiation");
  /* vulkantocuda wraps its staging buffers for some of the caps only, and
   * cudaupload writes cudatovulkan's frames in place for some */
  for (i = 0, k = 0, c = 0; i < G_N_ELEMENTS (steps); i++) {
    GstVideoInfo info;

    fail_unless (gst_video_info_set_format (&info,
            gst_video_format_from_string (steps[i].format), steps[i].w,
            steps[i].h));
    k += info_wrappable (&info) ? 0 : N_BUFFERS;
    c += info_in_place (by_name (pipeline, "c2v"), &info) ? 0 : N_BUFFERS;
  }
  assert_stats_full (by_name (pipeline, "c2v"), n, c);
  assert_stats_full (by_name (pipeline, "v2c"), n, k);
  stop_pipeline (pipeline);
  g_ptr_array_unref (got);
  g_ptr_array_unref (want);
}

GST_END_TEST;

/* System memory under CUDA caps: an error message, not a crash. */
GST_START_TEST (test_bad_input)
{
  GError *err = NULL;
  GstElement *pipeline = cs_vk_parse_launch ("appsrc name=src format=time "
      "caps=video/x-raw(memory:CUDAMemory),format=RGBA,width=64,height=48,"
      "framerate=30/1 ! cudatovulkan name=c2v ! fakesink", &err);
  GstElement *src;
  GstVideoInfo info;
  GstBus *bus;
  GstMessage *msg;
  GError *perr = NULL;

  fail_unless (pipeline != NULL, "%s", err ? err->message : "?");
  src = by_name (pipeline, "src");
  bus = gst_element_get_bus (pipeline);
  fail_if (gst_element_set_state (pipeline, GST_STATE_PLAYING) ==
      GST_STATE_CHANGE_FAILURE);
  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_RGBA, 64, 48);
  gst_app_src_push_buffer (GST_APP_SRC (src), system_frame (&info, 1, 0));
  gst_app_src_end_of_stream (GST_APP_SRC (src));

  msg = gst_bus_timed_pop_filtered (bus, 60 * GST_SECOND,
      GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  fail_unless (msg != NULL, "timed out");
  fail_unless_equals_int (GST_MESSAGE_TYPE (msg), GST_MESSAGE_ERROR);
  gst_message_parse_error (msg, &perr, NULL);
  fail_unless (GST_MESSAGE_SRC (msg) == GST_OBJECT (by_name (pipeline,
              "c2v")));
  fail_unless (perr->domain == GST_STREAM_ERROR, "domain %s",
      g_quark_to_string (perr->domain));
  fail_unless (strstr (perr->message, "not CUDA memory") != NULL, "%s",
      perr->message);
  g_error_free (perr);
  gst_message_unref (msg);
  gst_object_unref (bus);
  /* after an error: no EOS, and no vulkan element to drain */
  stop_pipeline_full (pipeline, FALSE);
}

GST_END_TEST;

/* maxImageDimension2D of the Vulkan device the bridge shares with CUDA
 * device 0 (lavapipe: 16384) */
static guint
image_limit (void)
{
  GstVulkanInstance *instance = gst_vulkan_instance_new ();
  GstVulkanPhysicalDevice *pd;
  gchar name[VK_MAX_PHYSICAL_DEVICE_NAME_SIZE], *hex, *uuid = NULL;
  guint8 cuda_uuid[16];
  guint limit;
  gint idx;

  fail_unless (gst_cuda_sync_context_get_uuid (cs_ctx, cuda_uuid, NULL));
  hex = vk_util_hex_uuid (cuda_uuid);
  fail_unless (gst_vulkan_instance_open (instance, NULL));
  idx = vk_util_find_device (instance, hex, name, &uuid, NULL);
  fail_unless (idx >= 0, "no Vulkan device of CUDA device 0 (%s)", hex);
  pd = gst_vulkan_physical_device_new (instance, idx);
  limit = pd->properties.limits.maxImageDimension2D;
  gst_object_unref (pd);
  gst_object_unref (instance);
  g_free (uuid);
  g_free (hex);
  return limit;
}

/* Frames larger than the device's images can be: cudatovulkan refuses
 * image output with a negotiation error naming the limit and the size (it
 * used to create the images anyway: VUID-VkImageCreateInfo-extent-02252,
 * and the pipeline ran on) */
GST_START_TEST (test_image_over_limit)
{
  static const struct
  {
    const gchar *format;
    gboolean tall;
  } cases[] = { {"RGBA", FALSE}, {"NV12", FALSE}, {"RGBA", TRUE} };
  guint limit = image_limit (), i;

  for (i = 0; i < G_N_ELEMENTS (cases); i++) {
    gint w = cases[i].tall ? 16 : (gint) limit + 1;
    gint h = cases[i].tall ? (gint) limit + 1 : 16;
    gchar *desc = g_strdup_printf ("videotestsrc num-buffers=1 ! "
        "video/x-raw,format=%s,width=%d,height=%d ! cudaupload ! "
        "cudatovulkan name=c2v ! vulkandownload ! fakesink", cases[i].format,
        w, h);
    gchar *size = g_strdup_printf ("%dx%d", w, h);
    gchar *max = g_strdup_printf ("maxImageDimension2D %u", limit);
    GstElement *pipeline = gst_parse_launch (desc, NULL);
    GstBus *bus = gst_element_get_bus (pipeline);
    GstMessage *msg;
    GError *err = NULL;
    gchar *dbg = NULL;

    gst_element_set_state (pipeline, GST_STATE_PLAYING);
    msg = gst_bus_timed_pop_filtered (bus, 60 * GST_SECOND,
        GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
    fail_unless (msg != NULL, "%s: timed out", desc);
    fail_unless (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR,
        "%s: no error", desc);
    gst_message_parse_error (msg, &err, &dbg);
    fail_unless (GST_MESSAGE_SRC (msg) == GST_OBJECT (by_name (pipeline,
                "c2v")), "%s: error from %s: %s", desc,
        GST_OBJECT_NAME (GST_MESSAGE_SRC (msg)), err->message);
    fail_unless (g_error_matches (err, GST_CORE_ERROR,
            GST_CORE_ERROR_NEGOTIATION), "%s: %s", desc, err->message);
    fail_unless (strstr (err->message, size) && strstr (err->message, max),
        "%s: %s", desc, err->message);
    GST_INFO ("%s (%s)", err->message, dbg);
    g_clear_error (&err);
    g_free (dbg);
    gst_message_unref (msg);
    gst_object_unref (bus);
    stop_pipeline_full (pipeline, FALSE);
    g_free (desc);
    g_free (size);
    g_free (max);
  }
}

GST_END_TEST;

/* Frames over the image limit go as memory:VulkanBuffer where downstream
 * takes buffers: cudatovulkan ! vulkantocuda byte for byte, vulkantocuda's
 * staging buffers included */
GST_START_TEST (test_buffers_over_image_limit)
{
  gint w = (gint) image_limit () + 1;
  gchar *src = src_desc ("RGBA", w, 16);
  gchar *desc = g_strdup_printf ("%s ! cudaupload ! cudatovulkan name=c2v ! "
      "vulkantocuda name=v2c ! cudadownload ! video/x-raw ! appsink "
      "name=sink sync=false", src);
  GstElement *pipeline;
  GPtrArray *got = run_frames (&pipeline, desc), *want;
  GstPad *pad = gst_element_get_static_pad (by_name (pipeline, "c2v"), "src");
  GstCaps *caps = gst_pad_get_current_caps (pad);
  gchar *str = gst_caps_to_string (caps);

  fail_unless (caps && gst_caps_features_contains (gst_caps_get_features
          (caps, 0), GST_CAPS_FEATURE_MEMORY_VULKAN_BUFFER), "%s", str);
  g_free (str);
  gst_caps_unref (caps);
  gst_object_unref (pad);
  fail_unless_equals_uint64 (cs_stat (by_name (pipeline, "v2c"), "buffers"),
      N_BUFFERS);
  stop_pipeline (pipeline);
  want = reference_frames ("RGBA", w, 16);
  assert_same_frames (got, want, "frames over the image limit as buffers");
  g_ptr_array_unref (got);
  g_ptr_array_unref (want);
  g_free (desc);
  g_free (src);
}

GST_END_TEST;

/* A Vulkan device that is not the CUDA device is refused with a clear error
 * (simulator only: its device UUID is what CUDASIM_DEVICE_UUID says, read at
 * each cuDeviceGetUuid call). */
GST_START_TEST (test_uuid_mismatch)
{
  GError *err = NULL;
  GstElement *pipeline;
  GstStateChangeReturn ret;
  GstBus *bus;
  GstMessage *msg;
  GError *perr = NULL;
  gchar *saved;

  if (!cs_is_sim) {
    GST_INFO ("needs the simulated driver's UUID override: skipped");
    return;
  }
  saved = g_strdup (g_getenv ("CUDASIM_DEVICE_UUID"));
  g_setenv ("CUDASIM_DEVICE_UUID", "0123456789abcdef0123456789abcdef", TRUE);
  pipeline = cs_vk_parse_launch ("videotestsrc num-buffers=1 ! "
      "video/x-raw,format=RGBA,width=64,height=48 ! cudaupload ! "
      "cudatovulkan name=c2v ! vulkandownload ! fakesink", &err);
  fail_unless (pipeline != NULL, "%s", err ? err->message : "?");
  bus = gst_element_get_bus (pipeline);
  ret = gst_element_set_state (pipeline, GST_STATE_PLAYING);
  msg = gst_bus_timed_pop_filtered (bus, 30 * GST_SECOND,
      GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  fail_unless (msg != NULL, "timed out (state change %d)", ret);
  fail_unless_equals_int (GST_MESSAGE_TYPE (msg), GST_MESSAGE_ERROR);
  gst_message_parse_error (msg, &perr, NULL);
  fail_unless (strstr (perr->message, "UUID") != NULL, "%s", perr->message);
  g_error_free (perr);
  gst_message_unref (msg);
  gst_object_unref (bus);
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (pipeline);
  if (saved)
    g_setenv ("CUDASIM_DEVICE_UUID", saved, TRUE);
  else
    g_unsetenv ("CUDASIM_DEVICE_UUID");
  g_free (saved);
}

GST_END_TEST;

/* ---- the binary semaphore hand-over of the elements, at library level ----
 *
 * Each element hands a frame over with a binary semaphore: cudatovulkan's
 * CUDA stream signals, a Vulkan submission waits; vulkantocuda's Vulkan
 * submission signals, its CUDA stream waits. A binary semaphore holds one
 * signal: if the signaller runs its next signal before the waiter has run
 * the wait for the previous one (two GPU queues, each in its own order), a
 * signal is lost and a later wait hangs. Enqueue order says nothing about
 * that. The elements therefore give every pooled frame / staging slot its
 * own semaphore, and reuse a slot only once the waiter's work is known to
 * have completed (a Vulkan fence, a CUDA event).
 *
 * lavapipe exports no semaphores, so on the simulator the elements run their
 * CPU fallback; these tests play the same protocol with the simulator's
 * exporter-side semaphores standing in for the Vulkan queue (a host thread
 * whose waits run late, like a busy queue), and with the library calls the
 * elements make (gst_cuda_semaphore_signal/wait,
 * gst_cuda_semaphore_mark_waited). The simulator reports a binary
 * semaphore "signalled twice without a wait": the single-semaphore variant
 * must show it (the hazard found on the H200), the per-slot variant must
 * not. */

#define HS_FRAMES 12
#define HS_MAX_SLOTS 3

typedef struct
{
  GstCudaSemaphore *sem;
  TestSem *ts;
  GstCudaSyncEvent *event;      /* vulkantocuda: recorded after the CUDA wait */
  gint done;                    /* atomic: the consumer's wait ran (a fence) */
  gboolean in_flight;           /* signalled, its wait not known to have run */
} HsSlot;

typedef struct
{
  GAsyncQueue *queue;           /* HsSlot *, then &hs_stop */
  gulong delay_us;              /* before each wait: a busy queue */
  gint waits, timeouts;
} HsConsumer;

static HsSlot hs_stop;

/* the "Vulkan queue" of cudatovulkan: waits on each submitted slot in turn */
static gpointer
hs_consumer (gpointer data)
{
  HsConsumer *c = data;
  HsSlot *slot;

  while ((slot = g_async_queue_pop (c->queue)) != &hs_stop) {
    if (c->delay_us)
      g_usleep (c->delay_us);
    if (test_sem_host_wait (slot->ts, 0, 200 * GST_MSECOND))
      c->waits++;
    else
      c->timeouts++;
    g_atomic_int_set (&slot->done, 1);
  }
  return NULL;
}

static void
hs_slot_init (HsSlot * slot)
{
  memset (slot, 0, sizeof (*slot));
  slot->sem = cs_new_semaphore (NULL, FALSE, &slot->ts);
}

static void
hs_slot_clear (HsSlot * slot)
{
  g_clear_pointer (&slot->event, gst_cuda_sync_event_unref);
  gst_clear_object (&slot->sem);
  g_clear_pointer (&slot->ts, test_sem_free);
}

static gboolean
hs_skip_unless_sim (const gchar * test)
{
  if (cs_is_sim)
    return FALSE;
  g_print ("SKIP: %s: simulated driver only (it plays the protocol with the "
      "simulator's exporter-side semaphores and counts its violations; the "
      "element tests cover the GPU path)\n", test);
  return TRUE;
}

/* cudatovulkan's direction: CUDA signals, the Vulkan queue waits late */
GST_START_TEST (test_handover_cuda_to_vulkan)
{
  HsSlot slots[HS_MAX_SLOTS], single;
  HsConsumer c = { 0, };
  GError *err = NULL;
  GThread *thread;
  CUstream stream;
  guint i, n_slots = 0, reused = 0;

  if (hs_skip_unless_sim ("test_handover_cuda_to_vulkan"))
    return;
  stream = cs_new_stream (CU_STREAM_DEFAULT);

  /* 1. The old scheme: one semaphore, the signal counted as consumed when
   * the waiting submission is made. The library accepts every signal, but
   * on the GPU CUDA runs all of them before the (busy) queue runs its first
   * wait: signals are lost, waits starve. */
  hs_slot_init (&single);
  for (i = 0; i < HS_FRAMES; i++) {
    fail_unless (gst_cuda_semaphore_signal (single.sem, stream, NULL, &err),
        "%s", err ? err->message : "?");
    gst_cuda_semaphore_mark_waited (single.sem);
  }
  cs_sim.drain ();              /* CUDA ran ahead of the queue */
  c.queue = g_async_queue_new ();
  thread = g_thread_new ("hs-queue", hs_consumer, &c);
  for (i = 0; i < HS_FRAMES; i++)
    g_async_queue_push (c.queue, &single);
  g_async_queue_push (c.queue, &hs_stop);
  g_thread_join (thread);
  g_async_queue_unref (c.queue);
  GST_INFO ("one shared semaphore: %u violations (%s), %d waits, %d "
      "timeouts", cs_sim.violation_count (), cs_sim.last_violation (),
      c.waits, c.timeouts);
  fail_unless_equals_int (cs_sim.violation_count (), HS_FRAMES - 1);
  fail_unless (strstr (cs_sim.last_violation (), "signalled twice without "
          "a wait") != NULL, "%s", cs_sim.last_violation ());
  fail_unless_equals_int (c.waits, 1);
  fail_unless_equals_int (c.timeouts, HS_FRAMES - 1);
  hs_slot_clear (&single);
  cs_sim.reset_counters ();

  /* 2. The elements' scheme: a semaphore per slot; the wait is recorded
   * with the library (consume_binary) only when the consumer's "fence" has
   * signalled, and only then is the slot signalled again. The queue runs
   * late (1 ms before each wait) and CUDA's signals sometimes late too. */
  memset (&c, 0, sizeof (c));
  c.delay_us = 1000;
  c.queue = g_async_queue_new ();
  thread = g_thread_new ("hs-queue", hs_consumer, &c);
  cs_sim.set_delay_us ("cuSignalExternalSemaphoresAsync", 700);
  for (i = 0; i < HS_FRAMES; i++) {
    HsSlot *slot = NULL;
    guint k;

    while (!slot) {
      for (k = 0; k < n_slots && !slot; k++) {
        if (!slots[k].in_flight || g_atomic_int_get (&slots[k].done))
          slot = &slots[k];
      }
      if (!slot && n_slots < HS_MAX_SLOTS) {
        hs_slot_init (&slots[n_slots]);
        slot = &slots[n_slots++];
      }
      if (!slot)
        g_usleep (100);         /* the pool would wait for the oldest fence */
    }
    if (slot->in_flight) {
      gst_cuda_semaphore_mark_waited (slot->sem);
      slot->in_flight = FALSE;
      g_atomic_int_set (&slot->done, 0);
      reused++;
    }
    fail_unless (gst_cuda_semaphore_signal (slot->sem, stream, NULL, &err),
        "frame %u: %s", i, err ? err->message : "?");
    if (i == 0) {
      /* the library rule the scheme relies on: no second signal before
       * the wait was recorded */
      fail_if (gst_cuda_semaphore_signal (slot->sem, stream, NULL, &err));
      fail_unless (g_error_matches (err, GST_CUDA_SYNC_ERROR,
              GST_CUDA_SYNC_ERROR_PROTOCOL), "%s", err->message);
      g_clear_error (&err);
    }
    slot->in_flight = TRUE;
    g_async_queue_push (c.queue, slot);
  }
  g_async_queue_push (c.queue, &hs_stop);
  g_thread_join (thread);
  g_async_queue_unref (c.queue);
  cs_sim.drain ();
  cs_sim.set_delay_us ("cuSignalExternalSemaphoresAsync", 0);

  fail_unless_equals_int (cs_sim.violation_count (), 0);
  fail_unless_equals_int (c.waits, HS_FRAMES);
  fail_unless_equals_int (c.timeouts, 0);
  fail_unless_equals_int (n_slots, HS_MAX_SLOTS);
  fail_unless (reused >= HS_FRAMES - HS_MAX_SLOTS);
  for (i = 0; i < n_slots; i++)
    hs_slot_clear (&slots[i]);
  cs_free_stream (stream);
}

GST_END_TEST;

/* GStreamer 1.24+: the elements' timeline scheme. One timeline semaphore
 * per element: CUDA signals 1, 2, ... far ahead of a late queue, which then
 * waits for each value in turn; and the other way, the "queue" signals
 * every value before CUDA's waits for them run. A timeline keeps every
 * value it reached, so no signal is lost, no wait starves, and the one
 * semaphore serves every frame. The simulator checks that each signalled
 * value is above the current one. */
GST_START_TEST (test_handover_timeline)
{
  TestSem *ts = NULL;
  GstCudaSemaphore *sem;
  GstCudaSyncEvent *ev;
  GError *err = NULL;
  CUstream stream;
  guint64 value = 0;
  guint i, reached = 0;

  if (hs_skip_unless_sim ("test_handover_timeline"))
    return;
  stream = cs_new_stream (CU_STREAM_DEFAULT);

  /* cudatovulkan: CUDA signals every frame before the queue waits once */
  sem = cs_new_semaphore (NULL, TRUE, &ts);
  for (i = 0; i < HS_FRAMES; i++) {
    fail_unless (gst_cuda_semaphore_signal (sem, stream, &value, &err),
        "frame %u: %s", i, err ? err->message : "?");
    fail_unless_equals_uint64 (value, i + 1);
  }
  cs_sim.drain ();
  for (i = 0; i < HS_FRAMES; i++)
    reached += test_sem_host_wait (ts, i + 1, 200 * GST_MSECOND);
  fail_unless_equals_int (reached, HS_FRAMES);
  fail_unless_equals_uint64 (test_sem_get_value (ts), HS_FRAMES);
  /* a value the library never signalled is not reached */
  fail_if (test_sem_host_wait (ts, HS_FRAMES + 1, 10 * GST_MSECOND));
  gst_object_unref (sem);
  test_sem_free (ts);

  /* vulkantocuda: the "queue" signals every value first, CUDA's waits for
   * each value (enqueued afterwards, with a delay) all complete */
  sem = cs_new_semaphore (NULL, TRUE, &ts);
  for (i = 0; i < HS_FRAMES; i++)
    fail_unless (test_sem_host_signal (ts, i + 1));
  cs_sim.set_delay_us ("cuWaitExternalSemaphoresAsync", 300);
  for (i = 0; i < HS_FRAMES; i++)
    fail_unless (gst_cuda_semaphore_wait (sem, stream, i + 1, &err), "%s",
        err ? err->message : "?");
  ev = gst_cuda_sync_event_new (cs_ctx, FALSE, &err);
  fail_unless (ev != NULL);
  fail_unless (gst_cuda_sync_event_record (ev, stream, &err));
  fail_unless (gst_cuda_sync_event_wait_cpu (ev, &err), "%s",
      err ? err->message : "?");
  cs_sim.set_delay_us ("cuWaitExternalSemaphoresAsync", 0);
  gst_cuda_sync_event_unref (ev);
  gst_object_unref (sem);
  test_sem_free (ts);

  fail_unless_equals_int (cs_sim.violation_count (), 0);
  cs_free_stream (stream);
}

GST_END_TEST;

static gboolean
hs_event_done (HsSlot * slot)
{
  GstCudaSyncEventStatus st = gst_cuda_sync_event_query (slot->event, NULL);

  fail_unless (st != GST_CUDA_SYNC_EVENT_ERROR);
  return st == GST_CUDA_SYNC_EVENT_COMPLETE;
}

static void
hs_wait_and_record (HsSlot * slot, CUstream stream)
{
  GError *err = NULL;

  fail_unless (gst_cuda_semaphore_wait (slot->sem, stream, 0, &err), "%s",
      err ? err->message : "?");
  if (!slot->event)
    fail_unless ((slot->event = gst_cuda_sync_event_new (cs_ctx, FALSE,
                &err)) != NULL, "%s", err ? err->message : "?");
  fail_unless (gst_cuda_sync_event_record (slot->event, stream, &err), "%s",
      err ? err->message : "?");
}

/* vulkantocuda's direction: the Vulkan queue signals, CUDA waits late */
GST_START_TEST (test_handover_vulkan_to_cuda)
{
  HsSlot slots[HS_MAX_SLOTS], single;
  CUstream stream;
  guint i, n_slots = 0, reused = 0, lost = 0;
  gint64 deadline;

  if (hs_skip_unless_sim ("test_handover_vulkan_to_cuda"))
    return;
  stream = cs_new_stream (CU_STREAM_DEFAULT);
  cs_sim.set_delay_us ("cuWaitExternalSemaphoresAsync", 20000);

  /* 1. One semaphore: the queue signals frame 2 while CUDA's wait for
   * frame 1 has not run yet (it runs 20 ms late). */
  hs_slot_init (&single);
  for (i = 0; i < 4; i++) {
    if (!test_sem_host_signal (single.ts, 0))
      lost++;
    hs_wait_and_record (&single, stream);
  }
  GST_INFO ("one shared semaphore: %u lost signals, %u violations (%s)",
      lost, cs_sim.violation_count (), cs_sim.last_violation ());
  fail_unless (lost >= 1 && cs_sim.violation_count () == lost);
  fail_unless (strstr (cs_sim.last_violation (), "signalled twice without "
          "a wait") != NULL, "%s", cs_sim.last_violation ());
  /* the starving CUDA waits would hang the stream: feed them */
  deadline = g_get_monotonic_time () + 10 * G_USEC_PER_SEC;
  while (lost > 0 && g_get_monotonic_time () < deadline) {
    if (test_sem_get_value (single.ts) == 0) {
      fail_unless (test_sem_host_signal (single.ts, 0));
      lost--;
    }
    g_usleep (1000);
  }
  fail_unless_equals_int (lost, 0);
  cs_sim.drain ();
  hs_slot_clear (&single);
  cs_sim.reset_counters ();

  /* 2. The element's scheme: a semaphore per staging slot; a slot (and its
   * semaphore) is signalled again only when the CUDA event recorded after
   * the wait has completed. */
  cs_sim.set_delay_us ("cuWaitExternalSemaphoresAsync", 1500);
  for (i = 0; i < HS_FRAMES; i++) {
    HsSlot *slot = NULL;
    guint k;

    while (!slot) {
      for (k = 0; k < n_slots && !slot; k++) {
        if (!slots[k].in_flight || hs_event_done (&slots[k]))
          slot = &slots[k];
      }
      if (!slot && n_slots < HS_MAX_SLOTS) {
        hs_slot_init (&slots[n_slots]);
        slot = &slots[n_slots++];
      }
      if (!slot)
        g_usleep (100);
    }
    if (slot->in_flight)
      reused++;
    fail_unless (test_sem_host_signal (slot->ts, 0), "frame %u: %s", i,
        cs_sim.last_violation ());
    hs_wait_and_record (slot, stream);
    slot->in_flight = TRUE;
  }
  cs_sim.drain ();
  cs_sim.set_delay_us ("cuWaitExternalSemaphoresAsync", 0);
  fail_unless_equals_int (cs_sim.violation_count (), 0);
  fail_unless_equals_int (n_slots, HS_MAX_SLOTS);
  fail_unless (reused >= HS_FRAMES - HS_MAX_SLOTS);
  for (i = 0; i < n_slots; i++) {
    fail_unless_equals_uint64 (test_sem_get_value (slots[i].ts), 0);
    hs_slot_clear (&slots[i]);
  }
  cs_free_stream (stream);
}

GST_END_TEST;

/* The fallback path under reordering: on the simulator every CUDA copy runs
 * 3 ms late (cudatovulkan must not hand Vulkan an image before its copy
 * ran; vulkantocuda must not overwrite a staging buffer whose CUDA copy has
 * not run). On a real GPU: a longer run of larger frames through the GPU
 * path. Both directions, byte-exact. */
GST_START_TEST (test_roundtrip_late_copies)
{
  static const gchar *fmts[] = { "RGBA", "NV12" };
  gint w = cs_is_sim ? 320 : 1920, h = cs_is_sim ? 240 : 1080;
  guint n = cs_is_sim ? 12 : 240, f;

  if (cs_is_sim)
    cs_sim.set_delay_us ("cuMemcpy2DAsync_v2", 3000);
  store_checksums = TRUE;
  for (f = 0; f < G_N_ELEMENTS (fmts); f++) {
    gchar *src = g_strdup_printf ("videotestsrc num-buffers=%u pattern=ball "
        "! video/x-raw,format=%s,width=%d,height=%d,framerate=30/1", n,
        fmts[f], w, h);
    gchar *desc = g_strdup_printf ("%s ! cudaupload ! cudatovulkan name=c2v "
        "! vulkantocuda name=v2c ! cudadownload ! video/x-raw ! "
        "appsink name=sink sync=false", src);
    gchar *ref = g_strdup_printf ("%s ! appsink name=sink sync=false", src);
    GstElement *pipeline;
    GPtrArray *got, *want;

    got = run_frames (&pipeline, desc);
    assert_stats (by_name (pipeline, "c2v"), n);
    assert_stats (by_name (pipeline, "v2c"), n);
    stop_pipeline (pipeline);
    want = run_frames (NULL, ref);
    assert_same_frames (got, want, fmts[f]);
    g_ptr_array_unref (got);
    g_ptr_array_unref (want);
    g_free (ref);
    g_free (desc);
    g_free (src);
  }
  store_checksums = FALSE;
  if (cs_is_sim)
    cs_sim.set_delay_us ("cuMemcpy2DAsync_v2", 0);
}

GST_END_TEST;

/* ---- vulkancolorconvert after cudatovulkan == after vulkanupload ----
 *
 * vulkancolorconvert samples its input images in a shader; whether they are
 * linear images in exported memory (cudatovulkan) or optimal-tiling images
 * of vulkanupload must not change a bit of the output.
 *
 * GStreamer 1.22 to 1.26's vulkanupload has the mirror image of vulkandownload's
 * row bug (see tight_bytes()): it copies each plane from the plane's offset
 * with bufferRowLength = the plane's width, i.e. it reads rows packed, while
 * system-memory frames have GstVideoInfo strides (rounded up to 4). For NV12
 * widths that are not multiples of 4 the reference would be wrong, so there
 * the reference pipeline's vulkanupload is given each frame with its rows
 * packed at the plane offsets (pack_rows_probe()): the frame as it reads
 * it. */

static GstVideoInfo pack_info;

static GstPadProbeReturn
pack_rows_probe (GstPad * pad, GstPadProbeInfo * info, gpointer data)
{
  GstBuffer *buf;
  GstVideoFrame frame;
  guint p, y;

  /* in place: each plane's rows moved to the start of the plane, packed */
  buf = gst_buffer_make_writable (GST_PAD_PROBE_INFO_BUFFER (info));
  GST_PAD_PROBE_INFO_DATA (info) = buf;
  fail_unless (gst_video_frame_map (&frame, &pack_info, buf,
          GST_MAP_READWRITE));
  for (p = 0; p < GST_VIDEO_FRAME_N_PLANES (&frame); p++) {
    gint comp[GST_VIDEO_MAX_COMPONENTS];
    guint8 *data = GST_VIDEO_FRAME_PLANE_DATA (&frame, p);
    gsize rb, stride = GST_VIDEO_FRAME_PLANE_STRIDE (&frame, p);

    gst_video_format_info_component (pack_info.finfo, p, comp);
    rb = GST_VIDEO_INFO_COMP_WIDTH (&pack_info, comp[0]) *
        GST_VIDEO_INFO_COMP_PSTRIDE (&pack_info, comp[0]);
    fail_unless (rb <= stride);
    for (y = 1; y < (guint) GST_VIDEO_INFO_COMP_HEIGHT (&pack_info, comp[0]);
        y++)
      memmove (data + y * rb, data + y * stride, rb);
  }
  gst_video_frame_unmap (&frame);
  return GST_PAD_PROBE_OK;
}

static void
pack_rows_hook (GstElement * pipeline)
{
  GstPad *pad = gst_element_get_static_pad (by_name (pipeline, "up"), "sink");

  gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER, pack_rows_probe, NULL,
      NULL);
  gst_object_unref (pad);
}

/* whether this vulkanupload (1.22 to 1.26) reads a frame of @info wrongly */
static gboolean
upload_needs_packing (const GstVideoInfo * info)
{
  guint p;

  for (p = 0; p < GST_VIDEO_INFO_N_PLANES (info); p++) {
    gint comp[GST_VIDEO_MAX_COMPONENTS];

    gst_video_format_info_component (info->finfo, p, comp);
    if ((gsize) GST_VIDEO_INFO_PLANE_STRIDE (info, p) !=
        (gsize) GST_VIDEO_INFO_COMP_WIDTH (info, comp[0]) *
        GST_VIDEO_INFO_COMP_PSTRIDE (info, comp[0]))
      return vulkandownload_packs_rows ();
  }
  return FALSE;
}

static const struct
{
  const gchar *in, *out;
} conversions[] = {
  {"NV12", "RGBA"}, {"RGBA", "BGRA"}, {"RGBA", "NV12"}, {"NV12", "BGRx"},
};

static void
check_colorconvert (const gchar * in, const gchar * out, gint w, gint h,
    guint n)
{
  gchar *src = g_strdup_printf ("videotestsrc num-buffers=%u pattern=smpte "
      "! video/x-raw,format=%s,width=%d,height=%d,framerate=30/1", n, in, w,
      h);
  gchar *tail = g_strdup_printf ("vulkancolorconvert ! "
      "video/x-raw(memory:VulkanImage),format=%s ! vulkandownload ! "
      "video/x-raw,format=%s ! appsink name=sink sync=false", out, out);
  gchar *desc = g_strdup_printf ("%s ! cudaupload ! cudatovulkan name=c2v ! "
      "%s", src, tail);
  gchar *ref = g_strdup_printf ("%s ! vulkanupload name=up ! %s", src, tail);
  gchar *what = g_strdup_printf ("%s->%s %dx%d", in, out, w, h);
  GstElement *pipeline;
  GPtrArray *got, *want;

  GST_INFO ("vulkancolorconvert %s", what);
  gst_video_info_set_format (&pack_info, gst_video_format_from_string (in),
      w, h);
  tight_rows = (w % 4) != 0 && (!strcmp (out, "NV12")) &&
      vulkandownload_packs_rows ();
  got = run_frames (&pipeline, desc);
  assert_stats (by_name (pipeline, "c2v"), n);
  stop_pipeline (pipeline);
  if (upload_needs_packing (&pack_info))
    pipeline_hook = pack_rows_hook;
  want = run_frames (NULL, ref);
  pipeline_hook = NULL;
  tight_rows = FALSE;
  assert_same_frames (got, want, what);
  g_ptr_array_unref (got);
  g_ptr_array_unref (want);
  g_free (what);
  g_free (ref);
  g_free (desc);
  g_free (tail);
  g_free (src);
}

GST_START_TEST (test_colorconvert_like_vulkanupload)
{
  static const gint csizes[][2] = { {64, 48}, {320, 240}, {34, 18} };
  guint c, s;

  for (c = 0; c < G_N_ELEMENTS (conversions); c++)
    for (s = 0; s < G_N_ELEMENTS (csizes); s++)
      check_colorconvert (conversions[c].in, conversions[c].out,
          csizes[s][0], csizes[s][1], N_BUFFERS);

  /* a real GPU: 4K frames keep the Vulkan queue busier than CUDA, which
   * then runs ahead (the case per-frame semaphores are for) */
  if (!cs_is_sim) {
    store_checksums = TRUE;
    check_colorconvert ("NV12", "RGBA", 3840, 2160, 60);
    store_checksums = FALSE;
  }
}

GST_END_TEST;

/* ---- decoded H.264 ---- */

static gboolean
have_elements (const gchar * test, const gchar * const *names)
{
  guint i;

  for (i = 0; names[i]; i++) {
    GstElementFactory *f = gst_element_factory_find (names[i]);
    if (!f) {
      g_print ("SKIP: %s: element %s is not available here\n", test,
          names[i]);
      return FALSE;
    }
    gst_object_unref (f);
  }
  return TRUE;
}

#define CLIP_FRAMES 30
#define CLIP_W 640
#define CLIP_H 360

/* A byte-stream H.264 clip of CLIP_FRAMES frames in a new temporary file */
static gchar *
make_clip (const gchar * profile, gboolean bframes)
{
  gchar *dir = g_dir_make_tmp ("cudavulkan-XXXXXX", NULL);
  gchar *path, *desc;
  GError *err = NULL;
  GstElement *pipeline;

  fail_unless (dir != NULL);
  path = g_build_filename (dir, "clip.h264", NULL);
  desc = g_strdup_printf ("videotestsrc num-buffers=%d pattern=ball ! "
      "video/x-raw,format=I420,width=%d,height=%d,framerate=30/1 ! "
      "x264enc speed-preset=ultrafast key-int-max=15 bframes=%d ! "
      "video/x-h264,profile=%s ! h264parse ! "
      "video/x-h264,stream-format=byte-stream ! filesink location=\"%s\"",
      CLIP_FRAMES, CLIP_W, CLIP_H, bframes ? 2 : 0, profile, path);
  pipeline = cs_vk_parse_launch (desc, &err);
  fail_unless (pipeline != NULL, "%s: %s", desc, err ? err->message : "?");
  cs_run_pipeline (pipeline);
  gst_object_unref (pipeline);
  g_free (desc);
  g_free (dir);
  return path;
}

static void
remove_clip (gchar * path)
{
  gchar *dir = g_path_get_dirname (path);

  g_unlink (path);
  g_rmdir (dir);
  g_free (dir);
  g_free (path);
}

/* Decoded frames through cudasemsignal ! cudasemwait (a timeline semaphore
 * that cudasemwait offers): the frames cudadownload gives without them, a
 * GPU signal and wait each, no CPU wait. */
static void
check_decode_semaphores (const gchar * src, GPtrArray * want)
{
  gchar *desc = g_strdup_printf ("%s ! cudasemsignal name=sig ! cudasemwait "
      "name=wait ! cudadownload ! video/x-raw ! appsink name=sink sync=false",
      src);
  GstCudaSemaphore *sem;
  GstElement *pipeline;
  GPtrArray *got;
  TestSem *ts;

  sem = cs_new_semaphore (NULL, TRUE, &ts);
  semaphore_for_wait = sem;
  pipeline_hook = set_wait_semaphore;
  got = run_frames (&pipeline, desc);
  pipeline_hook = NULL;
  semaphore_for_wait = NULL;
  fail_unless_equals_uint64 (cs_stat (by_name (pipeline, "sig"), "signals"),
      CLIP_FRAMES);
  fail_unless_equals_uint64 (cs_stat (by_name (pipeline, "sig"), "cpu-syncs"),
      0);
  fail_unless_equals_uint64 (cs_stat (by_name (pipeline, "wait"), "waits"),
      CLIP_FRAMES);
  fail_unless_equals_uint64 (cs_stat (by_name (pipeline, "wait"),
          "cpu-syncs"), 0);
  stop_pipeline (pipeline);
  assert_same_frames (got, want, "decoder ! cudasemsignal ! cudasemwait");
  g_ptr_array_unref (got);
  gst_object_unref (sem);
  test_sem_free (ts);
  g_free (desc);
}

/* A tee after the decoder: one branch through the bridge (both ways), the
 * other straight to cudadownload; the bridge's frames are the reference's */
static void
check_decode_tee (const gchar * src, GPtrArray * want)
{
  gchar *desc = g_strdup_printf ("%s ! tee name=t t. ! queue ! cudatovulkan "
      "name=c2v ! vulkantocuda name=v2c ! cudadownload ! video/x-raw ! "
      "appsink name=sink sync=false t. ! queue ! cudadownload ! fakesink "
      "sync=false", src);
  GstElement *pipeline;
  GPtrArray *got;

  got = run_frames (&pipeline, desc);
  assert_stats (by_name (pipeline, "c2v"), CLIP_FRAMES);
  assert_stats (by_name (pipeline, "v2c"), CLIP_FRAMES);
  stop_pipeline (pipeline);
  assert_same_frames (got, want, "decoder ! tee ! cudatovulkan ! vulkantocuda");
  g_ptr_array_unref (got);
  g_free (desc);
}

/* @decoder: a description ending in video/x-raw(memory:CUDAMemory) */
static void
check_decode (const gchar * path, const gchar * decoder)
{
  gchar *src = g_strdup_printf ("filesrc location=\"%s\" ! h264parse ! %s",
      path, decoder);
  const gchar *conv;
  gchar *desc, *ref;
  GstElement *pipeline;
  GPtrArray *got, *want;

  /* every decoded frame, through Vulkan, is the frame cudadownload gives */
  desc = g_strdup_printf ("%s ! cudatovulkan name=c2v ! vulkandownload ! "
      "video/x-raw ! appsink name=sink sync=false", src);
  ref = g_strdup_printf ("%s ! cudadownload ! video/x-raw ! "
      "appsink name=sink sync=false", src);
  got = run_frames (&pipeline, desc);
  assert_stats (by_name (pipeline, "c2v"), CLIP_FRAMES);
  stop_pipeline (pipeline);
  want = run_frames (NULL, ref);
  fail_unless_equals_int (want->len, CLIP_FRAMES);
  assert_same_frames (got, want, decoder);
  check_decode_semaphores (src, want);
  check_decode_tee (src, want);
  g_ptr_array_unref (got);
  g_ptr_array_unref (want);
  g_free (ref);
  g_free (desc);

  /* the whole clip into a Vulkan colour conversion: the bytes of the same
   * conversion of the frames cudadownload ! vulkanupload give */
  conv = "vulkancolorconvert ! video/x-raw(memory:VulkanImage),format=RGBA "
      "! vulkandownload ! video/x-raw ! appsink name=sink sync=false";
  desc = g_strdup_printf ("%s ! cudatovulkan name=c2v ! %s", src, conv);
  ref = g_strdup_printf ("%s ! cudadownload ! vulkanupload ! %s", src, conv);
  got = run_frames (&pipeline, desc);
  assert_stats (by_name (pipeline, "c2v"), CLIP_FRAMES);
  GST_INFO ("%s: c2v signals %" G_GUINT64_FORMAT ", cpu-syncs %"
      G_GUINT64_FORMAT ", semaphores %" G_GUINT64_FORMAT, decoder,
      cs_stat (by_name (pipeline, "c2v"), "signals"),
      cs_stat (by_name (pipeline, "c2v"), "cpu-syncs"),
      cs_stat (by_name (pipeline, "c2v"), "semaphores"));
  stop_pipeline (pipeline);
  want = run_frames (NULL, ref);
  fail_unless_equals_int (want->len, CLIP_FRAMES);
  assert_same_frames (got, want, "decoder ! cudatovulkan ! vulkancolorconvert");
  g_ptr_array_unref (got);
  g_ptr_array_unref (want);
  g_free (ref);
  g_free (desc);
  g_free (src);
}

/* nvh264dec's NV12 frames are copied by cudatovulkan (two planes, see
 * gstcudavkupstreampool.c); converted to RGBA by cudaconvertscale, which
 * writes into the pool cudatovulkan proposes, they are written in place on
 * 1.24+: no copy behind the decoder's own */
static void
check_decode_in_place (const gchar * path)
{
  gchar *src = g_strdup_printf ("filesrc location=\"%s\" ! h264parse ! "
      "nvh264dec ! cudaconvertscale ! video/x-raw(memory:CUDAMemory),"
      "format=RGBA", path);
  gchar *desc = g_strdup_printf ("%s ! cudatovulkan name=c2v ! vulkandownload "
      "! video/x-raw ! appsink name=sink sync=false", src);
  gchar *ref = g_strdup_printf ("%s ! cudadownload ! video/x-raw ! appsink "
      "name=sink sync=false", src);
  GstElement *pipeline;
  GPtrArray *got, *want;

  got = run_frames (&pipeline, desc);
  fail_unless_equals_uint64 (cs_stat (by_name (pipeline, "c2v"), "in-place"),
      GST_CHECK_VERSION (1, 24, 0) ? CLIP_FRAMES : 0);
  assert_stats (by_name (pipeline, "c2v"), CLIP_FRAMES);
  stop_pipeline (pipeline);
  want = run_frames (NULL, ref);
  fail_unless_equals_int (want->len, CLIP_FRAMES);
  assert_same_frames (got, want, "nvh264dec ! cudaconvertscale ! cudatovulkan");
  g_ptr_array_unref (got);
  g_ptr_array_unref (want);
  g_free (ref);
  g_free (desc);
  g_free (src);
}

/* NVDEC: nvh264dec's CUDA frames (high profile with B-frames) */
GST_START_TEST (test_nvh264dec)
{
  static const gchar *const need[] = { "nvh264dec", "x264enc", "h264parse",
    "cudadownload", "vulkandownload", "vulkancolorconvert", "vulkanupload",
    NULL
  };
  static const gchar *const need_convert[] = { "cudaconvertscale", NULL };
  gchar *path;

  if (!have_elements ("test_nvh264dec", need))
    return;
  path = make_clip ("high", TRUE);
  check_decode (path, "nvh264dec ! video/x-raw(memory:CUDAMemory),"
      "format=NV12");
  /* cudaconvertscale registers only where NVRTC works */
  if (have_elements ("test_nvh264dec (cudaconvertscale, in place)",
          need_convert))
    check_decode_in_place (path);
  remove_clip (path);
}

GST_END_TEST;

/* Vulkan video decoding (1.24+, where the device has a video-decode
 * queue): vulkanh264dec's frames are one multi-planar image each, decoded
 * on that queue; vulkantocuda orders its copy by the image's timeline
 * semaphore. Conforming decoders are bit-exact: the frames are
 * nvh264dec ! cudadownload's, on baseline, main and high profile clips
 * (the last two with B-frames). */
/* a weak reference to the Vulkan device @e uses */
static void
weak_ref_device (GstElement * e, GWeakRef * ref)
{
  GstQuery *q = gst_query_new_context (GST_VULKAN_DEVICE_CONTEXT_TYPE_STR);
  GstVulkanDevice *device = NULL;
  GstContext *ctx = NULL;

  fail_unless (gst_element_query (e, q), "no Vulkan device context");
  gst_query_parse_context (q, &ctx);
  fail_unless (ctx && gst_context_get_vulkan_device (ctx, &device) && device);
  g_weak_ref_init (ref, device);
  gst_object_unref (device);
  gst_query_unref (q);
}

/* @ref's object is finalized (within a second: the last GPU work's fences
 * may hold it briefly) */
static void
assert_finalized (GWeakRef * ref, const gchar * what)
{
  GObject *obj = NULL;
  guint i;

  for (i = 0; i < 100 && (obj = g_weak_ref_get (ref)); i++) {
    g_object_unref (obj);
    g_usleep (10 * 1000);
  }
  fail_unless (obj == NULL, "%s: the Vulkan device outlives the pipeline",
      what);
  g_weak_ref_clear (ref);
}

GST_START_TEST (test_vulkanh264dec)
{
  static const gchar *const need[] = { "vulkanh264dec", "nvh264dec",
    "x264enc", "h264parse", "cudadownload", NULL
  };
  static const struct
  {
    const gchar *profile;
    gboolean bframes;
  } clips[] = {
    {"constrained-baseline", FALSE}, {"main", TRUE}, {"high", TRUE},
  };
  guint c;

  if (!have_elements ("test_vulkanh264dec", need))
    return;
  for (c = 0; c < G_N_ELEMENTS (clips); c++) {
    gchar *path = make_clip (clips[c].profile, clips[c].bframes);
    gchar *desc = g_strdup_printf ("filesrc location=\"%s\" ! h264parse ! "
        "vulkanh264dec ! video/x-raw(memory:VulkanImage),format=NV12 ! "
        "vulkantocuda name=v2c ! cudadownload ! video/x-raw ! appsink "
        "name=sink sync=false", path);
    gchar *ref = g_strdup_printf ("filesrc location=\"%s\" ! h264parse ! "
        "nvh264dec ! cudadownload ! video/x-raw ! appsink name=sink "
        "sync=false", path);
    gchar *what = g_strdup_printf ("vulkanh264dec ! vulkantocuda, %s",
        clips[c].profile);
    GstElement *pipeline;
    GPtrArray *got, *want;

    GWeakRef device;

    got = run_frames (&pipeline, desc);
    assert_stats (by_name (pipeline, "v2c"), CLIP_FRAMES);
    weak_ref_device (by_name (pipeline, "v2c"), &device);
    stop_pipeline (pipeline);
    /* nothing keeps the Vulkan device once the pipeline is gone (the
     * element's queue left on the decoder's images leaked it) */
    assert_finalized (&device, what);
    want = run_frames (NULL, ref);
    fail_unless_equals_int (want->len, CLIP_FRAMES);
    assert_same_frames (got, want, what);
    GST_INFO ("%s: %u frames identical", what, got->len);
    g_ptr_array_unref (got);
    g_ptr_array_unref (want);
    g_free (what);
    g_free (ref);
    g_free (desc);
    remove_clip (path);
  }
}

GST_END_TEST;

/* The same checks with a software decoder whose frames cudaupload puts in
 * CUDA memory: runs where nvh264dec does not (the simulator) */
GST_START_TEST (test_sw_h264dec)
{
  static const gchar *const need[] = { "openh264dec", "x264enc", "h264parse",
    "videoconvert", "cudaupload", "cudadownload", "vulkandownload",
    "vulkancolorconvert", "vulkanupload", NULL
  };
  gchar *path;

  if (!have_elements ("test_sw_h264dec", need))
    return;
  path = make_clip ("constrained-baseline", FALSE);
  check_decode (path, "openh264dec ! videoconvert ! "
      "video/x-raw,format=NV12 ! cudaupload ! "
      "video/x-raw(memory:CUDAMemory),format=NV12");
  remove_clip (path);
}

GST_END_TEST;

/* Four branches in one pipeline, each with its own streaming thread, all
 * on the pipeline's one Vulkan device and queue object (asserted), as fast
 * as they go: two
 * cudatovulkan ! queue ! vulkandownload, two cudatovulkan ! queue !
 * vulkantocuda ! queue ! cudadownload. Every branch's frames (a moving ball
 * of its own colour) come back byte-exact and in order; on a real GPU with
 * no CPU wait. (Found on the H200: several bench pipelines sharing one
 * device lost it.) */
#define N_BRANCHES 4
#define N_CONCURRENT 150

typedef struct
{
  GstElement *sink;
  GPtrArray *frames;
} BranchPull;

static gpointer
branch_pull (gpointer data)
{
  BranchPull *bp = data;
  GstSample *sample;

  while ((sample = gst_app_sink_pull_sample (GST_APP_SINK (bp->sink)))) {
    GstVideoInfo info;
    GBytes *bytes;

    if (gst_video_info_from_caps (&info, gst_sample_get_caps (sample))) {
      bytes = cs_buffer_bytes (gst_sample_get_buffer (sample), &info);
      g_ptr_array_add (bp->frames, g_bytes_new_take
          (g_compute_checksum_for_bytes (G_CHECKSUM_SHA1, bytes), 40));
      g_bytes_unref (bytes);
    }
    gst_sample_unref (sample);
  }
  return NULL;
}

static gchar *
ball_src (guint i, guint n)
{
  static const guint32 colours[N_BRANCHES] = { 0xffff0000, 0xff00ff00,
    0xff0000ff, 0xffffff00
  };

  return g_strdup_printf ("videotestsrc num-buffers=%u pattern=ball "
      "foreground-color=%u ! video/x-raw,format=RGBA,width=160,height=120,"
      "framerate=30/1", n, colours[i]);
}

/* The GstVulkanQueue @name answers a queue context query with (a ref). */
static GstVulkanQueue *
element_queue (GstElement * pipeline, const gchar * name)
{
  GstPad *pad = gst_element_get_static_pad (by_name (pipeline, name), "src");
  GstQuery *query = gst_query_new_context (GST_VULKAN_QUEUE_CONTEXT_TYPE_STR);
  GstVulkanQueue *queue = NULL;
  GstContext *context = NULL;

  fail_unless (gst_pad_query (pad, query), "%s answers no queue query", name);
  gst_query_parse_context (query, &context);
  fail_unless (context && gst_context_get_vulkan_queue (context, &queue) &&
      queue, "%s has no queue", name);
  gst_query_unref (query);
  gst_object_unref (pad);
  return queue;
}

GST_START_TEST (test_concurrent_branches)
{
  GString *desc = g_string_new (NULL);
  BranchPull bp[N_BRANCHES];
  GThread *threads[N_BRANCHES];
  GstElement *pipeline;
  GstBus *bus;
  GstMessage *msg;
  guint i, eos = 0;

  for (i = 0; i < N_BRANCHES; i++) {
    gchar *src = ball_src (i, N_CONCURRENT);
    gchar *consumer = i < 2 ? g_strdup_printf ("vulkandownload name=vd%u", i) :
        g_strdup_printf ("vulkantocuda name=v2c%u ! queue ! cudadownload", i);

    g_string_append_printf (desc, "%s ! cudaupload ! cudatovulkan name=c2v%u "
        "! queue ! %s ! video/x-raw ! appsink name=sink%u sync=false  ", src,
        i, consumer, i);
    g_free (consumer);
    g_free (src);
  }
  pipeline = cs_vk_parse_launch (desc->str, NULL);
  fail_unless (pipeline != NULL, "%s", desc->str);
  for (i = 0; i < N_BRANCHES; i++) {
    gchar *name = g_strdup_printf ("sink%u", i);

    bp[i].sink = by_name (pipeline, name);
    bp[i].frames = g_ptr_array_new_with_free_func ((GDestroyNotify)
        g_bytes_unref);
    g_free (name);
  }
  fail_if (gst_element_set_state (pipeline, GST_STATE_PLAYING) ==
      GST_STATE_CHANGE_FAILURE);
  for (i = 0; i < N_BRANCHES; i++)
    threads[i] = g_thread_new ("pull", branch_pull, &bp[i]);

  /* the pipeline posts EOS once every sink has it */
  bus = gst_element_get_bus (pipeline);
  msg = gst_bus_timed_pop_filtered (bus, 120 * GST_SECOND,
      GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  if (msg && GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR) {
    GError *err = NULL;
    gchar *dbg = NULL;

    gst_message_parse_error (msg, &err, &dbg);
    fail ("error from %s: %s (%s)", GST_OBJECT_NAME (msg->src), err->message,
        dbg ? dbg : "");
  }
  fail_unless (msg != NULL, "the %u branches did not reach EOS in 120 s",
      N_BRANCHES);
  eos = 1;
  gst_message_unref (msg);
  gst_object_unref (bus);
  for (i = 0; i < N_BRANCHES; i++)
    g_thread_join (threads[i]);

  /* one device and one queue object (one submit lock) for all of them: the
   * first bridge shares its device with the pipeline, the vulkan elements
   * take the bridges' queue */
  {
    GstVulkanQueue *q0 = element_queue (pipeline, "c2v0");

    for (i = 0; i < N_BRANCHES; i++) {
      const gchar *kinds[2] = { "c2v%u", i < 2 ? "vd%u" : "v2c%u" };
      guint k;

      for (k = 0; k < 2; k++) {
        gchar *name = g_strdup_printf (kinds[k], i);
        GstVulkanQueue *q = element_queue (pipeline, name);

        fail_unless (q == q0, "%s submits through another GstVulkanQueue "
            "(%p, not %p): two submit locks for one VkQueue", name, q, q0);
        gst_object_unref (q);
        g_free (name);
      }
    }
    gst_object_unref (q0);
  }
  for (i = 0; i < N_BRANCHES; i++) {
    gchar *name = g_strdup_printf ("c2v%u", i);

    assert_stats (by_name (pipeline, name), N_CONCURRENT);
    g_free (name);
    if (i >= 2) {
      name = g_strdup_printf ("v2c%u", i);
      assert_stats (by_name (pipeline, name), N_CONCURRENT);
      g_free (name);
    }
  }
  stop_pipeline (pipeline);

  for (i = 0; eos && i < N_BRANCHES; i++) {
    gchar *src = ball_src (i, N_CONCURRENT);
    gchar *ref = g_strdup_printf ("%s ! appsink name=sink sync=false", src);
    gchar *what = g_strdup_printf ("branch %u of %u at once", i, N_BRANCHES);
    GPtrArray *want;

    store_checksums = TRUE;
    want = run_frames (NULL, ref);
    store_checksums = FALSE;
    assert_same_frames (bp[i].frames, want, what);
    g_ptr_array_unref (want);
    g_ptr_array_unref (bp[i].frames);
    g_free (what);
    g_free (ref);
    g_free (src);
  }
  g_string_free (desc, TRUE);
}

GST_END_TEST;

/* cudatovulkan keeps an input buffer until its GPU copy out of it has run:
 * upstream 1.22 CUDA elements write the next frame into a recycled pool
 * buffer on their own stream as soon as it is back in their pool. The input
 * comes from a pool of ONE buffer and carries an acquire point that the test
 * signals late, so the element's copy waits on the GPU; meanwhile the test
 * tries to take the buffer back (DONTWAIT) to overwrite it from a
 * non-blocking stream, as such a producer would. The buffer must not be
 * available before the signal, and both frames must come out as written.
 * (On lavapipe the element's CPU fallback holds it in the streaming thread
 * instead; the assertions are the same.) */
static void
fill_cuda_buffer (GstBuffer * buf, const GstVideoInfo * info, guint8 value,
    CUstream stream)
{
  GstCudaMemory *cmem = (GstCudaMemory *) gst_buffer_peek_memory (buf, 0);
  gsize rb = GST_VIDEO_INFO_WIDTH (info) * 4;
  guint8 *host = g_malloc (rb * GST_VIDEO_INFO_HEIGHT (info));
  CUDA_MEMCPY2D cp = { 0, };
  GstMapInfo map;

  memset (host, value, rb * GST_VIDEO_INFO_HEIGHT (info));
  /* no CPU copy pending: the device pointer, without a transfer */
  fail_unless (gst_memory_map (GST_MEMORY_CAST (cmem), &map,
          GST_MAP_WRITE | GST_MAP_CUDA));
  cp.srcMemoryType = CU_MEMORYTYPE_HOST;
  cp.srcHost = host;
  cp.srcPitch = rb;
  cp.dstMemoryType = CU_MEMORYTYPE_DEVICE;
  cp.dstDevice = (CUdeviceptr) map.data;
  cp.dstPitch = GST_VIDEO_INFO_PLANE_STRIDE (&cmem->info, 0);
  cp.WidthInBytes = rb;
  cp.Height = GST_VIDEO_INFO_HEIGHT (info);
  fail_unless (gst_cuda_context_push (cs_ctx));
  fail_unless_equals_int (CuMemcpy2DAsync (&cp, stream), CUDA_SUCCESS);
  fail_unless_equals_int (CuStreamSynchronize (stream), CUDA_SUCCESS);
  gst_cuda_context_pop (NULL);
  gst_memory_unmap (GST_MEMORY_CAST (cmem), &map);
  g_free (host);
}

static GstPadProbeReturn
count_pushed (GstPad * pad, GstPadProbeInfo * info, gpointer data)
{
  g_atomic_int_inc ((gint *) data);
  return GST_PAD_PROBE_OK;
}

/* acquire with DONTWAIT for up to 20 s */
static GstBuffer *
acquire_within (GstBufferPool * pool)
{
  GstBufferPoolAcquireParams dontwait = { 0, };
  gint64 until = g_get_monotonic_time () + 20 * G_TIME_SPAN_SECOND;
  GstBuffer *buf = NULL;

  dontwait.flags = GST_BUFFER_POOL_ACQUIRE_FLAG_DONTWAIT;
  while (gst_buffer_pool_acquire_buffer (pool, &buf, &dontwait) !=
      GST_FLOW_OK && g_get_monotonic_time () < until)
    g_usleep (1000);
  fail_unless (buf != NULL, "the input buffer never came back to its pool");
  return buf;
}

GST_START_TEST (test_input_held_until_copied)
{
  GstCaps *caps = cs_caps ("RGBA", 64, 48);
  GstBufferPool *pool = gst_cuda_buffer_pool_new (cs_ctx);
  GstStructure *config = gst_buffer_pool_get_config (pool);
  GstBufferPoolAcquireParams dontwait = { 0, };
  GPtrArray *frames = g_ptr_array_new_with_free_func ((GDestroyNotify)
      g_bytes_unref);
  GstVideoInfo info;
  GstElement *pipeline, *src, *sink, *c2v;
  GstCudaSemaphore *sem;
  GstBuffer *buf = NULL, *again = NULL;
  CUstream stream = cs_new_stream (CU_STREAM_NON_BLOCKING);
  GstBus *bus;
  GstMessage *msg;
  TestSem *ts = NULL;
  gboolean held;
  gint64 until;
  gint pushed = 0;
  guint i, k;
  GstPad *c2v_src;

  fail_unless (gst_video_info_from_caps (&info, caps));
  gst_buffer_pool_config_set_params (config, caps, info.size, 1, 1);
  fail_unless (gst_buffer_pool_set_config (pool, config));
  fail_unless (gst_buffer_pool_set_active (pool, TRUE));

  pipeline = cs_vk_parse_launch ("appsrc name=src format=time ! cudatovulkan "
      "name=c2v ! queue ! vulkandownload ! video/x-raw ! appsink name=sink "
      "sync=false emit-signals=true", NULL);
  fail_unless (pipeline != NULL);
  src = by_name (pipeline, "src");
  sink = by_name (pipeline, "sink");
  c2v = by_name (pipeline, "c2v");
  g_object_set (src, "caps", caps, NULL);
  c2v_src = gst_element_get_static_pad (c2v, "src");
  gst_pad_add_probe (c2v_src, GST_PAD_PROBE_TYPE_BUFFER, count_pushed,
      &pushed, NULL);
  gst_object_unref (c2v_src);
  g_signal_connect (sink, "new-sample", G_CALLBACK (cs_collect_sample),
      frames);
  bus = gst_element_get_bus (pipeline);
  gst_bus_set_sync_handler (bus, cs_share_context, NULL, NULL);
  fail_if (gst_element_set_state (pipeline, GST_STATE_PLAYING) ==
      GST_STATE_CHANGE_FAILURE);

  sem = cs_new_semaphore (NULL, TRUE, &ts);
  fail_unless_equals_int (gst_buffer_pool_acquire_buffer (pool, &buf, NULL),
      GST_FLOW_OK);
  fill_cuda_buffer (buf, &info, 0x11, stream);
  gst_cuda_sync_meta_add_acquire (gst_buffer_add_cuda_sync_meta (buf), sem, 1);
  fail_unless_equals_int (gst_app_src_push_buffer (GST_APP_SRC (src), buf),
      GST_FLOW_OK);

  /* the element has taken the frame and enqueued its copy; on the GPU path
   * it has also pushed its output already (no CPU wait), so its streaming
   * thread is back from the queue and has let go of the input (the CPU
   * fallback, lavapipe, blocks before pushing until the signal below) */
  until = g_get_monotonic_time () + 20 * G_TIME_SPAN_SECOND;
  while (cs_stat (c2v, "buffers") < 1 && g_get_monotonic_time () < until)
    g_usleep (1000);
  fail_unless_equals_uint64 (cs_stat (c2v, "buffers"), 1);
  if (!cs_is_sim) {
    while (!g_atomic_int_get (&pushed) && g_get_monotonic_time () < until)
      g_usleep (1000);
    fail_unless (g_atomic_int_get (&pushed) == 1, "cudatovulkan did not "
        "push before the signal: not its GPU path");
  }
  g_usleep (100 * 1000);
  dontwait.flags = GST_BUFFER_POOL_ACQUIRE_FLAG_DONTWAIT;
  held = gst_buffer_pool_acquire_buffer (pool, &again, &dontwait) !=
      GST_FLOW_OK;
  if (!held)                    /* what a producer would do with it now */
    fill_cuda_buffer (again, &info, 0x22, stream);

  fail_unless (test_sem_host_signal (ts, 1));
  if (held) {
    again = acquire_within (pool);
    fill_cuda_buffer (again, &info, 0x22, stream);
  }
  fail_unless_equals_int (gst_app_src_push_buffer (GST_APP_SRC (src), again),
      GST_FLOW_OK);
  fail_unless_equals_int (gst_app_src_end_of_stream (GST_APP_SRC (src)),
      GST_FLOW_OK);
  msg = gst_bus_timed_pop_filtered (bus, 30 * GST_SECOND,
      GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  fail_unless (msg && GST_MESSAGE_TYPE (msg) == GST_MESSAGE_EOS,
      "no EOS (or an error)");
  gst_message_unref (msg);

  fail_unless (held, "cudatovulkan gave its input buffer back before its "
      "copy out of it had run");
  fail_unless_equals_int (frames->len, 2);
  for (i = 0; i < 2; i++) {
    gsize n;
    const guint8 *d = g_bytes_get_data (g_ptr_array_index (frames, i), &n);

    fail_unless_equals_uint64 (n, info.width * info.height * 4);
    for (k = 0; k < n; k++)
      fail_unless (d[k] == (i ? 0x22 : 0x11), "frame %u byte %u: 0x%02x",
          i, k, d[k]);
  }

  gst_bus_set_sync_handler (bus, NULL, NULL, NULL);
  gst_object_unref (bus);
  stop_pipeline (pipeline);
  gst_object_unref (sem);
  test_sem_free (ts);
  cs_free_stream (stream);
  gst_buffer_pool_set_active (pool, FALSE);
  gst_object_unref (pool);
  gst_caps_unref (caps);
  g_ptr_array_unref (frames);
}

GST_END_TEST;

#if GST_CHECK_VERSION(1, 24, 0)
/* vulkantocuda's output carries its stream, with the copy into it pending
 * there (upstream 1.24+ consumers order themselves after it) */
static GstPadProbeReturn
check_output_stream (GstPad * pad, GstPadProbeInfo * info, gpointer data)
{
  GstMemory *mem = gst_buffer_peek_memory (GST_PAD_PROBE_INFO_BUFFER (info),
      0);

  /* the element's stream; pending work on it (the CUDA copy, or the wait
   * for the Vulkan copy) unless the output wraps the staging buffer and
   * the Vulkan copy was waited for on the CPU (the fallback) */
  gboolean pending = !(cs_is_sim && expect_wrapped_output
      (GST_ELEMENT (GST_OBJECT_PARENT (pad))));

  if (gst_cuda_sync_memory_get_stream (mem) &&
      GST_MEMORY_FLAG_IS_SET (mem, GST_CUDA_MEMORY_TRANSFER_NEED_SYNC) ==
      pending)
    g_atomic_int_inc ((gint *) data);
  return GST_PAD_PROBE_OK;
}

/* The 1.24+ CUDA stream contract through the bridge: an upstream producer
 * pushes frames whose write is still pending (slowed down on the
 * simulator) on its memory's stream; cudatovulkan must copy them only after
 * that write, on the GPU. */
GST_START_TEST (test_pending_producer_stream)
{
  GstCaps *caps = cs_caps ("NV12", 64, 48);
  GstCudaStream *producer = gst_cuda_stream_new (cs_ctx);
  GstBufferPool *pool = cs_new_stream_pool (caps, producer);
  GPtrArray *frames = g_ptr_array_new_with_free_func ((GDestroyNotify)
      g_bytes_unref);
  GstElement *pipeline, *src, *sink;
  GstVideoInfo info;
  GstPad *pad;
  GstBus *bus;
  GstMessage *msg;
  gint with_stream = 0;
  guint i;

  fail_unless (gst_video_info_from_caps (&info, caps));
  pipeline = cs_vk_parse_launch ("appsrc name=src format=time ! cudatovulkan "
      "name=c2v ! vulkantocuda name=v2c ! cudadownload ! video/x-raw ! "
      "appsink name=sink sync=false emit-signals=true", NULL);
  fail_unless (pipeline != NULL);
  src = by_name (pipeline, "src");
  sink = by_name (pipeline, "sink");
  g_object_set (src, "caps", caps, NULL);
  pad = gst_element_get_static_pad (by_name (pipeline, "v2c"), "src");
  gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER, check_output_stream,
      &with_stream, NULL);
  gst_object_unref (pad);
  g_signal_connect (sink, "new-sample", G_CALLBACK (cs_collect_sample),
      frames);
  bus = gst_element_get_bus (pipeline);
  gst_bus_set_sync_handler (bus, cs_share_context, NULL, NULL);
  fail_if (gst_element_set_state (pipeline, GST_STATE_PLAYING) ==
      GST_STATE_CHANGE_FAILURE);

  if (cs_is_sim) {
    cs_sim.set_delay_us ("cuMemsetD2D8Async", 100000);
    cs_sim.reset_counters ();
  }
  for (i = 0; i < N_BUFFERS; i++) {
    GstBuffer *buf = cs_new_buffer (pool, 0x21);

    cs_write_pending (buf, &info, 0x50 + i);
    GST_BUFFER_PTS (buf) = i * GST_SECOND / 30;
    fail_unless_equals_int (gst_app_src_push_buffer (GST_APP_SRC (src), buf),
        GST_FLOW_OK);
  }
  gst_app_src_end_of_stream (GST_APP_SRC (src));
  msg = gst_bus_timed_pop_filtered (bus, 60 * GST_SECOND,
      GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  fail_unless (msg != NULL && GST_MESSAGE_TYPE (msg) == GST_MESSAGE_EOS,
      "no EOS");
  gst_message_unref (msg);

  fail_unless_equals_int (frames->len, N_BUFFERS);
  for (i = 0; i < N_BUFFERS; i++) {
    GBytes *want = cs_value_bytes (&info, 0x50 + i);
    const guint8 *d = g_bytes_get_data (g_ptr_array_index (frames, i), NULL);

    fail_unless (g_bytes_equal (g_ptr_array_index (frames, i), want),
        "frame %u: byte 0 is 0x%02x, want 0x%02x (0x21: copied before the "
        "producer's write)", i, d[0], 0x50 + i);
    g_bytes_unref (want);
  }
  fail_unless_equals_int (with_stream, N_BUFFERS);
  assert_stats (by_name (pipeline, "c2v"), N_BUFFERS);
  /* cudatovulkan copied on the producer's own stream: no event orders a
   * stream of its own after the producer's work (nor does anything else
   * here: vulkantocuda's output carries its stream) */
  if (cs_is_sim)
    fail_unless_equals_int (cs_sim.call_count ("cuStreamWaitEvent"), 0);

  stop_pipeline (pipeline);
  gst_object_unref (bus);
  g_ptr_array_unref (frames);
  gst_buffer_pool_set_active (pool, FALSE);
  gst_object_unref (pool);
  gst_cuda_stream_unref (producer);
  gst_caps_unref (caps);
}

GST_END_TEST;
#endif

/* cs_run_to_end() (common.c) */
#define run_to_end cs_run_to_end

/* A process in which no upstream CUDA element loaded libgstcuda's driver
 * entry points (no cudaupload/cudadownload): the bridge loads them itself
 * (it used to abort inside libgstcuda). No cs_setup: it would load them. */
GST_START_TEST (test_without_nvcodec)
{
  GstElement *pipeline;
  GstPlugin *nvcodec;
  gchar *error;

  error = run_to_end ("videotestsrc num-buffers=3 ! "
      "video/x-raw,format=RGBA,width=64,height=48 ! vulkanupload ! "
      "vulkantocuda name=v2c ! fakesink", &pipeline);
  fail_unless (error == NULL, "%s", error);
  fail_unless_equals_uint64 (cs_stat (by_name (pipeline, "v2c"), "buffers"),
      3);
  nvcodec = gst_registry_find_plugin (gst_registry_get (), "nvcodec");
  fail_if (nvcodec && gst_plugin_is_loaded (nvcodec),
      "nvcodec was loaded: the test proves nothing");
  gst_clear_object (&nvcodec);
  gst_object_unref (pipeline);
}

GST_END_TEST;

/* cuda-device-id=1 on both bridge elements: each opens CUDA device 1 and
 * the Vulkan device with device 1's UUID. On the simulator no Vulkan
 * device has it (lavapipe is given device 0's): an element error naming
 * device 1's UUID and the Vulkan devices'. With a second GPU: the frames
 * go through on the GPU path. */
GST_START_TEST (test_device1_bridge)
{
  static const gchar *const descs[] = {
    "videotestsrc num-buffers=3 ! video/x-raw,format=RGBA,width=64,height=48 "
        "! cudaupload cuda-device-id=1 ! cudatovulkan name=e cuda-device-id=1 "
        "! vulkandownload ! fakesink",
    "videotestsrc num-buffers=3 ! video/x-raw,format=RGBA,width=64,height=48 "
        "! vulkanupload ! vulkantocuda name=e cuda-device-id=1 ! fakesink",
  };
  GstCudaContext *ctx1 = cs_second_device ("test_device1_bridge");
  guint8 uuid[16];
  gchar *want;
  guint i;

  if (!ctx1)
    return;
  fail_unless (gst_cuda_sync_context_get_uuid (ctx1, uuid, NULL));
  want = g_strdup_printf ("%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-"
      "%02x%02x%02x%02x%02x%02x", uuid[0], uuid[1], uuid[2], uuid[3], uuid[4],
      uuid[5], uuid[6], uuid[7], uuid[8], uuid[9], uuid[10], uuid[11],
      uuid[12], uuid[13], uuid[14], uuid[15]);
  for (i = 0; i < G_N_ELEMENTS (descs); i++) {
    GstElement *pipeline;
    gchar *error = run_to_end (descs[i], &pipeline);

    if (cs_is_sim) {
      fail_unless (error != NULL, "%s: no error", descs[i]);
      fail_unless (g_str_has_prefix (error, "e: ") && strstr (error,
              "No Vulkan device has the UUID of the CUDA device") &&
          strstr (error, want), "%s (want UUID %s)", error, want);
    } else {
      /* a second GPU whose Vulkan device the element found */
      fail_unless (error == NULL, "%s", error);
      fail_unless_equals_uint64 (cs_stat (by_name (pipeline, "e"),
              "cpu-syncs"), 0);
    }
    g_free (error);
    gst_object_unref (pipeline);
  }
  g_free (want);
  gst_object_unref (ctx1);
}

GST_END_TEST;

/* The Vulkan device of CUDA device 0 given (GstContext) to a bridge
 * element on CUDA device 1: an element error naming both UUIDs, on the
 * simulator and on two GPUs alike */
GST_START_TEST (test_device0_vulkan_on_device1)
{
  GstCudaContext *ctx1 = cs_second_device ("test_device0_vulkan_on_device1");
  gchar name[VK_MAX_PHYSICAL_DEVICE_NAME_SIZE], *hex0, *vk_uuid = NULL;
  GstVulkanInstance *instance;
  GstVulkanDevice *device;
  GstElement *pipeline, *e;
  GstContext *context;
  guint8 uuid[16];
  gchar *error;
  gint idx;

  if (!ctx1)
    return;
  fail_unless (gst_cuda_sync_context_get_uuid (cs_ctx, uuid, NULL));
  hex0 = vk_util_hex_uuid (uuid);
  instance = gst_vulkan_instance_new ();
  fail_unless (gst_vulkan_instance_open (instance, NULL));
  idx = vk_util_find_device (instance, hex0, name, &vk_uuid, NULL);
  fail_unless (idx >= 0, "no Vulkan device of CUDA device 0 (%s)", hex0);
  device = gst_vulkan_device_new_with_index (instance, idx);

  pipeline = cs_vk_parse_launch ("videotestsrc num-buffers=2 ! "
      "video/x-raw,format=RGBA,width=64,height=48 ! cudaupload "
      "cuda-device-id=1 ! cudatovulkan name=e cuda-device-id=1 ! "
      "fakesink", NULL);
  e = by_name (pipeline, "e");
  context = gst_context_new (GST_VULKAN_INSTANCE_CONTEXT_TYPE_STR, TRUE);
  gst_context_set_vulkan_instance (context, instance);
  gst_element_set_context (e, context);
  gst_context_unref (context);
  context = gst_context_new (GST_VULKAN_DEVICE_CONTEXT_TYPE_STR, TRUE);
  gst_context_set_vulkan_device (context, device);
  gst_element_set_context (e, context);
  gst_context_unref (context);
  error = cs_play_to_end (pipeline);
  fail_unless (error != NULL, "no error");
  fail_unless (g_str_has_prefix (error, "e: ") && strstr (error,
          "is not the CUDA device"), "%s", error);
  GST_INFO ("%s", error);
  g_free (error);
  gst_object_unref (pipeline);
  gst_object_unref (device);
  gst_object_unref (instance);
  g_free (vk_uuid);
  g_free (hex0);
  gst_object_unref (ctx1);
}

GST_END_TEST;

/* A driver without devices: an element error, not an abort */
GST_START_TEST (test_no_cuda_device)
{
  GstElement *pipeline;
  gchar *error;

  if (g_strcmp0 (g_getenv ("CUDASYNC_TEST_DRIVER"), "sim") != 0) {
    g_print ("SKIP: test_no_cuda_device: the simulated driver's "
        "CUDASIM_DEVICE_COUNT only\n");
    return;
  }
  g_setenv ("CUDASIM_DEVICE_COUNT", "0", TRUE);
  error = run_to_end ("videotestsrc num-buffers=3 ! "
      "video/x-raw,format=RGBA,width=64,height=48 ! vulkanupload ! "
      "vulkantocuda name=v2c ! fakesink", &pipeline);
  fail_unless (error != NULL, "no error without a CUDA device");
  fail_unless (g_str_has_prefix (error, "v2c: "), "%s", error);
  fail_unless (strstr (error, "CUDA") != NULL, "%s", error);
  GST_INFO ("%s", error);
  g_free (error);
  gst_object_unref (pipeline);
}

GST_END_TEST;

/* vulkantocuda reuses a staging buffer only once the CUDA copy out of it is
 * known complete: a failed cuEventQuery is not "complete" (it used to be:
 * a frame came out as the next frame's bytes, with no error). It waits on
 * the CPU for the event instead; if that fails too, an element error. */
GST_START_TEST (test_event_query_failure)
{
  GPtrArray *got, *want;
  GstElement *pipeline;
  /* NV12 of an odd width: vulkantocuda copies on the CUDA side on every
   * version (its output cannot wrap the staging buffer), and that copy is
   * what the event after it waits for */
  gchar *src = src_desc ("NV12", 33, 17);
  gchar *desc = g_strdup_printf ("%s ! vulkanupload ! vulkantocuda name=v2c "
      "! queue ! cudadownload ! video/x-raw ! appsink name=sink sync=false",
      src);
  gchar *error;

  g_free (src);
  if (!cs_is_sim) {
    g_print ("SKIP: test_event_query_failure: needs the simulator's fault "
        "injection\n");
    g_free (desc);
    return;
  }
  /* the copy out of the first staging buffer is still running when the
   * second frame looks for a free one */
  cs_sim.set_delay_us ("cuMemcpy2DAsync_v2", 20000);
  cs_sim.inject_failure ("cuEventQuery", 1, CUDA_ERROR_UNKNOWN);
  got = run_frames (&pipeline, desc);
  fail_unless (cs_stat (by_name (pipeline, "v2c"), "cpu-syncs") >
      N_BUFFERS, "no CPU wait after the failed query");
  stop_pipeline (pipeline);
  want = reference_frames ("NV12", 33, 17);
  assert_same_frames (got, want, "vulkantocuda after a failed cuEventQuery");
  g_ptr_array_unref (got);
  g_ptr_array_unref (want);

  /* and when the CPU wait fails too */
  cs_sim.inject_failure ("cuEventQuery", 1, CUDA_ERROR_UNKNOWN);
  cs_sim.inject_failure ("cuEventSynchronize", 1, CUDA_ERROR_LAUNCH_FAILED);
  error = run_to_end (desc, &pipeline);
  fail_unless (error != NULL, "no error after failed query and wait");
  fail_unless (g_str_has_prefix (error, "v2c: ") &&
      strstr (error, "cuEventSynchronize") != NULL, "%s", error);
  g_free (error);
  gst_object_unref (pipeline);
  cs_sim.clear_failures ();
  cs_sim.set_delay_us ("cuMemcpy2DAsync_v2", 0);
  g_free (desc);
}

GST_END_TEST;

static Suite *
cudavulkan_suite (void)
{
  Suite *s = suite_create ("cudavulkan");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_checked_fixture (tc, cs_vk_setup, cs_vk_teardown);
  tcase_add_test (tc, test_roundtrip_bytes);
  tcase_add_test (tc, test_roundtrip_binary);
  tcase_add_test (tc, test_image_timeline);
  tcase_add_test (tc, test_held_outputs);
  tcase_add_test (tc, test_to_vulkandownload);
  tcase_add_test (tc, test_in_place);
  tcase_add_test (tc, test_in_place_held);
  tcase_add_test (tc, test_in_place_refused);
  tcase_add_test (tc, test_semsignal_offer);
  tcase_add_test (tc, test_vulkan_buffer);
  tcase_add_test (tc, test_renegotiation);
  tcase_add_test (tc, test_bad_input);
  tcase_add_test (tc, test_image_over_limit);
  tcase_add_test (tc, test_buffers_over_image_limit);
  tcase_add_test (tc, test_uuid_mismatch);
  tcase_add_test (tc, test_handover_cuda_to_vulkan);
  tcase_add_test (tc, test_handover_vulkan_to_cuda);
  tcase_add_test (tc, test_handover_timeline);
  tcase_add_test (tc, test_roundtrip_late_copies);
  tcase_add_test (tc, test_concurrent_branches);
  tcase_add_test (tc, test_input_held_until_copied);
#if GST_CHECK_VERSION(1, 24, 0)
  tcase_add_test (tc, test_pending_producer_stream);
#endif
  tcase_add_test (tc, test_colorconvert_like_vulkanupload);
  tcase_add_test (tc, test_nvh264dec);
  tcase_add_test (tc, test_sw_h264dec);
  tcase_add_test (tc, test_vulkanh264dec);
  tcase_add_test (tc, test_event_query_failure);

  /* without cs_setup(), which loads libgstcuda's driver entry points */
  tc = tcase_create ("loading");
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_without_nvcodec);
  tcase_add_test (tc, test_no_cuda_device);

  tc = tcase_create ("devices");
  suite_add_tcase (s, tc);
  tcase_add_checked_fixture (tc, cs_vk_setup_two_devices, cs_vk_teardown);
  tcase_add_test (tc, test_device1_bridge);
  tcase_add_test (tc, test_device0_vulkan_on_device1);
  return s;
}

int
main (int argc, char **argv)
{
  gst_check_init (&argc, &argv);
  return cs_vk_run_suite (cudavulkan_suite (), "cudavulkan", __FILE__);
}

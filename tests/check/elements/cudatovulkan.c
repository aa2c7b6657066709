/* gst-cudasync: cudatovulkan element tests: its output, byte-exact through
 * vulkandownload, and which downstream Vulkan elements wait on its images'
 * timeline semaphores
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * What it answers upstream (the pool it proposes, frames written in place,
 * the semaphore it offers) and how long it holds its input:
 * elements/cudatovulkanalloc. Helpers and what the simulator runs in place
 * of a GPU: bridgecommon.h.
 *
 * Tests:
 * test_image_timeline: which downstream Vulkan elements wait on the images'
 *     timeline semaphores (value step per reuse)
 * test_to_vulkandownload: cudatovulkan ! vulkandownload is byte-exact for
 *     every format and size
 */
#include "config.h"             /* HAVE_VK_BARRIER_SEMAPHORE, ... */
#include "bridgecommon.h"
#include "vkutil.h"
#include <string.h>

/* Which downstream Vulkan elements wait on cudatovulkan's frames on the GPU
 * through the images' timeline semaphores: on GStreamer 1.24 to 1.28 (the
 * timeline path) each image carries one in its barrier state; on upstream
 * main each image memory has one of its own, on every device with
 * timeline semaphores (lavapipe too), which the bridge reaches through a
 * GstVulkanOperation (gstcudavkrelay.h). From one use of an image to the
 * next, the value it carries out of cudatovulkan grows by 1 for the
 * take-over (which waits for CUDA's signal), 1 for the release, and 1 for
 * every downstream element that waited for the value and signalled the
 * next one (a GstVulkanOperation user; vulkantocuda: 2 on main, before and
 * after its copy); an element that only relies on submission order on the
 * shared queue adds nothing. */
typedef struct
{
  GHashTable *last;             /* VkImage of plane 0 -> value */
  GArray *deltas;               /* guint64 */
  guint without;                /* images without a semaphore */
} TlTrack;

/* The value of @mem's timeline as the bridge left it; FALSE: none */
static gboolean
image_timeline_value (GstVulkanImageMemory * mem, guint64 * value)
{
#if defined (HAVE_VK_BARRIER_SEMAPHORE)
  *value = mem->barrier.parent.semaphore_value;
  return mem->barrier.parent.semaphore != VK_NULL_HANDLE;
#elif defined (HAVE_VK_OPERATION_SEMAPHORES)
  /* a private field: the test looks at what upstream's elements wait on */
  if (!mem->timeline_semaphore)
    return FALSE;
  gst_vulkan_timeline_semaphore_lock (mem->timeline_semaphore);
  *value =
      gst_vulkan_timeline_semaphore_peek_unlocked (mem->timeline_semaphore);
  gst_vulkan_timeline_semaphore_unlock (mem->timeline_semaphore);
  return TRUE;
#else
  return FALSE;
#endif
}

static GstPadProbeReturn
track_image_timeline (GstPad * pad, GstPadProbeInfo * info, gpointer data)
{
  GstVulkanImageMemory *mem = (GstVulkanImageMemory *)
      gst_buffer_peek_memory (GST_PAD_PROBE_INFO_BUFFER (info), 0);
  TlTrack *t = data;
  gpointer key = GSIZE_TO_POINTER ((gsize) mem->image);
  gpointer old;
  guint64 value;

  if (!image_timeline_value (mem, &value)) {
    t->without++;
    return GST_PAD_PROBE_OK;
  }
  if (g_hash_table_lookup_extended (t->last, key, NULL, &old)) {
    guint64 d = value - GPOINTER_TO_SIZE (old);
    g_array_append_val (t->deltas, d);
  }
  g_hash_table_insert (t->last, key, GSIZE_TO_POINTER ((gsize) value));
  return GST_PAD_PROBE_OK;
}

/* enough frames that images are reused (the pool may hold 32) */
#define TL_N_BUFFERS 12

GST_START_TEST (test_image_timeline)
{
  static const struct
  {
    const gchar *consumer;
    /* steps of the image timeline: 1.24 to 1.28, upstream main */
    guint64 waits, waits_main;
  } cases[] = {
    {"vulkandownload ! video/x-raw", 1, 1},
    {"vulkancolorconvert ! video/x-raw(memory:VulkanImage),format=RGBA", 0, 1},
    {"vulkanviewconvert", 0, 1},
    {"vulkanimageidentity", 0, 1},
    {"vulkantocuda ! cudadownload", 1, 2},
  };
  guint i, j;
#if defined (HAVE_VK_OPERATION_SEMAPHORES)
  /* every image memory has a timeline, on every path */
  const gboolean main_api = TRUE;
#else
  const gboolean main_api = FALSE;
#endif

#if !defined (HAVE_VK_BARRIER_SEMAPHORE) && !defined (HAVE_VK_OPERATION_SEMAPHORES)
  g_print ("SKIP: test_image_timeline: this GStreamer's Vulkan images have "
      "no timeline semaphores\n");
  return;
#endif
  for (i = 0; i < G_N_ELEMENTS (cases); i++) {
    gchar *desc = g_strdup_printf ("videotestsrc num-buffers=%d "
        "pattern=smpte ! video/x-raw,format=BGRA,width=64,height=48 ! "
        "cudaupload ! cudatovulkan name=c2v ! %s ! fakesink name=sink",
        TL_N_BUFFERS, cases[i].consumer);
    TlTrack t = { g_hash_table_new (NULL, NULL),
      g_array_new (FALSE, FALSE, sizeof (guint64)), 0
    };
    GstElement *pipeline = cs_vk_parse_launch (desc, NULL);
    GstElement *c2v;
    GstPad *pad;
    GstBus *bus;
    GstMessage *msg;

    fail_unless (pipeline != NULL, "%s", desc);
    c2v = bc_by_name (pipeline, "c2v");
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
    bc_assert_stats (c2v, TL_N_BUFFERS);

    if (!main_api && (!bc_expect_timeline (c2v) || cs_is_sim)) {
      /* binary semaphores or the CPU fallback: wrapped images carry none */
      fail_unless_equals_int (t.without, TL_N_BUFFERS);
    } else {
      guint64 step = 2 + (main_api ? cases[i].waits_main : cases[i].waits);

      fail_unless_equals_int (t.without, 0);
      /* a frame is reused once its give-back completed by the next
       * acquire: most are, at this size (9 or 10 of 12 seen) */
      fail_unless (t.deltas->len >= 1, "%s: no image reused", desc);
      for (j = 0; j < t.deltas->len; j++)
        fail_unless_equals_uint64 (g_array_index (t.deltas, guint64, j), step);
      g_print ("%s: waits on the GPU on cudatovulkan's image timeline: %s "
          "(%u reuses, value +%" G_GUINT64_FORMAT " each)\n",
          cases[i].consumer, step > 2 ? "yes" : "no", t.deltas->len, step);
    }
    bc_stop_pipeline (pipeline);
    gst_object_unref (bus);
    g_hash_table_unref (t.last);
    g_array_unref (t.deltas);
    g_free (desc);
  }
}

GST_END_TEST;

GST_START_TEST (test_to_vulkandownload)
{
  guint f, s;

  for (f = 0; f < G_N_ELEMENTS (bc_formats); f++) {
    for (s = 0; s < G_N_ELEMENTS (bc_sizes); s++) {
      gint w = bc_sizes[s][0], h = bc_sizes[s][1];
      gchar *src = bc_src_desc (bc_formats[f], w, h);
      gchar *desc = g_strdup_printf ("%s ! cudaupload ! cudatovulkan name=c2v "
          "! vulkandownload ! video/x-raw ! appsink name=sink sync=false",
          src);
      gchar *what = g_strdup_printf ("cudatovulkan ! vulkandownload %s %dx%d",
          bc_formats[f], w, h);
      GstElement *pipeline;
      GPtrArray *got, *want;

      GST_INFO ("%s", what);
      /* see tight_bytes(): only where that layout differs from the
       * caps' (checked below against vulkanupload ! vulkandownload) */
      bc_tight_rows = (w % 4) != 0 && (!strcmp (bc_formats[f], "NV12") ||
          !strcmp (bc_formats[f], "I420")) && bc_vulkandownload_packs_rows ();
      got = bc_run_frames (&pipeline, desc);
      bc_tight_rows = FALSE;
      bc_assert_stats (bc_by_name (pipeline, "c2v"), BC_N_BUFFERS);
      bc_stop_pipeline (pipeline);
      want = bc_reference_frames (bc_formats[f], w, h);
      bc_assert_same_frames (got, want, what);

      g_ptr_array_unref (got);
      g_ptr_array_unref (want);
      g_free (what);
      g_free (desc);
      g_free (src);
    }
  }
}

GST_END_TEST;

static Suite *
cudatovulkan_suite (void)
{
  Suite *s = suite_create ("cudatovulkan");
  TCase *tc;

  tc = tcase_create ("general");
  suite_add_tcase (s, tc);
  tcase_add_checked_fixture (tc, cs_vk_setup, cs_vk_teardown);
  tcase_add_test (tc, test_image_timeline);
  tcase_add_test (tc, test_to_vulkandownload);
  return s;
}

int
main (int argc, char **argv)
{
  gst_check_init (&argc, &argv);
  return cs_vk_run_suite (cudatovulkan_suite (), "cudatovulkan", __FILE__);
}

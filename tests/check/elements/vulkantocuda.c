/* gst-cudasync: vulkantocuda element tests: its output buffers, its stream,
 * staging buffer reuse, loading on its own
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Helpers and what the simulator runs in place of a GPU: bridgecommon.h.
 *
 * Tests:
 * test_held_outputs: 20 output buffers held past the stop keep their own
 *     frames, no use-after-destroy
 * test_pending_producer_stream: (1.24+) a producer's pending write is copied
 *     after it; the output carries its stream
 * test_event_query_failure: a failed cuEventQuery waits on the CPU
 *     (byte-exact); a failed wait too: element error. Images and buffers.
 * test_default_negotiation: vulkanupload ! vulkantocuda, no caps filter:
 *     (1.24+) one-plane frames go as images, read in place (no GPU copy),
 *     and so do NV12 ones with one-allocation but for widths that
 *     vulkanupload writes wrong (1.24 to 1.26: not a multiple of 4); those,
 *     and 1.22, as buffers; byte-exact
 * test_without_nvcodec: vulkanupload ! vulkantocuda without nvcodec loaded:
 *     loads the driver entry points itself
 * test_pool_failure_ends_stream: a failed CUDA pool set-up: vulkantocuda's
 *     error, then the stream ends (no frame after the error); vulkanupload
 *     frees no image in use (validating). Images and buffers.
 * test_tee_with_vulkandownload: (after 1.28) cudatovulkan's frames read by
 *     vulkantocuda and, beside it, by vulkandownload: byte-exact, in order
 * test_upstream_writes_in_place: (1.24+) vulkanupload, and
 *     vulkancolorconvert's render pass, write into the pool vulkantocuda
 *     proposes: read in place (no copy), byte-exact; with in-place=false
 *     every frame copied
 * test_held_in_place: (1.24+) 20 frames read in place, held past the
 *     stop: none written again while held
 * test_bounded_in_place: (1.24+) 20 frames read in place with downstream
 *     allowing 4 outputs: at most 4 frames, reused, byte-exact
 * test_renegotiate_in_place: (1.24+) RGBA -> BGRA -> RGBA mid-stream:
 *     every frame read in place, byte-exact
 */
#include "config.h"             /* HAVE_VK_OPERATION_SEMAPHORES */
#include "bridgecommon.h"
#include "vkutil.h"
#if GST_CHECK_VERSION(1, 24, 0)
#include <gst/cuda/gstcudastream.h>
#endif

/* vulkantocuda's output buffers kept by the application past EOS and the
 * pipeline's stop, more of them than the element keeps in flight
 * otherwise: each still holds its own frame (on 1.24+ the buffers wrap the
 * staging buffers, which are not reused while downstream holds them, and
 * outlive the element), is read after the stop, and is freed without a
 * use-after-destroy (the simulator would report it). */
#define N_HELD 20

/* @src ! @chain (Vulkan frames of RGBA 64x48) ! vulkantocuda @props,
 * N_HELD outputs held past the stop, then compared with @src ! @ref;
 * @in_place: frames read in place expected */
static void
check_held_outputs (const gchar * src, const gchar * chain,
    const gchar * props, const gchar * ref_chain, gboolean in_place)
{
  gchar *desc = g_strdup_printf ("%s ! %s ! vulkantocuda name=v2c %s ! "
      "video/x-raw(memory:CUDAMemory) ! appsink name=sink sync=false", src,
      chain, props);
  gchar *ref = g_strdup_printf ("%s ! %s appsink name=sink sync=false", src,
      ref_chain);
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
  while ((sample = gst_app_sink_pull_sample (GST_APP_SINK (bc_by_name (pipeline,
                      "sink"))))) {
    g_ptr_array_add (held, gst_buffer_ref (gst_sample_get_buffer (sample)));
    gst_sample_unref (sample);
  }
  fail_unless_equals_int (held->len, N_HELD);
  bc_assert_stats (bc_by_name (pipeline, "v2c"), N_HELD);
  fail_unless_equals_uint64 (cs_stat (bc_by_name (pipeline, "v2c"),
          "in-place"), in_place ? N_HELD : 0);
  bc_stop_pipeline (pipeline);
  gst_object_unref (bus);

  want = bc_run_frames (NULL, ref);
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

GST_START_TEST (test_held_outputs)
{
  /* buffers: copied (images would be read in place on 1.24+) */
  check_held_outputs (BC_HELD_SRC, "vulkanupload ! video/x-raw(memory:"
      "VulkanBuffer)", "", "", FALSE);
}

GST_END_TEST;

#if GST_CHECK_VERSION(1, 24, 0)
/* Whether vulkantocuda proposes upstream frames of RGBA 64x48 (the held
 * frames), read in place: asked of an element in a pipeline that
 * negotiated them */
static gboolean
expect_lent_rgba (void)
{
  GstElement *pipeline = NULL, *v2c;
  GPtrArray *frames = bc_run_frames (&pipeline, BC_HELD_SRC " ! vulkanupload "
      "! video/x-raw(memory:VulkanImage) ! vulkantocuda name=v2c ! "
      "cudadownload ! video/x-raw ! appsink name=sink sync=false");
  GstVideoInfo info;
  gboolean ret;

  v2c = bc_by_name (pipeline, "v2c");
  fail_unless (bc_pad_info (v2c, "sink", &info));
  ret = bc_expect_lent (v2c, &info);
  bc_stop_pipeline (pipeline);
  g_ptr_array_unref (frames);
  return ret;
}

/* 20 moving NV12 frames converted to RGBA by vulkancolorconvert into
 * vulkantocuda's pool: each held output keeps its frame from upstream,
 * which would otherwise render the next frames into it. The frames reach
 * Vulkan through cudatovulkan, not vulkanupload: vulkanupload lets its
 * staging buffer go back to its pool before its copy out of it has run on
 * the GPU (1.24 to main), so with a consumer that does not wait on the CPU
 * a frame can show a later one's bytes (docs/known-issues.md). */
#define CONVERT_RGBA "vulkancolorconvert ! " \
    "video/x-raw(memory:VulkanImage),format=RGBA"

GST_START_TEST (test_held_in_place)
{
  gboolean lent = expect_lent_rgba ();

  g_print ("held frames: %s\n", lent ? "read in place" : "copied (no pool "
      "for upstream on this device)");
  check_held_outputs ("videotestsrc num-buffers=20 pattern=ball ! "
      "video/x-raw,format=NV12,width=64,height=48,framerate=30/1 ! "
      "cudaupload ! cudatovulkan", CONVERT_RGBA, "", CONVERT_RGBA
      " ! vulkandownload ! video/x-raw !", lent);
}

GST_END_TEST;

/* @format @w x @h through vulkanupload ! vulkantocuda in-place=@in_place:
 * byte-exact; every frame read in place where the pool is expected */
static void
check_upstream_writes (const gchar * format, gint w, gint h, gboolean in_place)
{
  gchar *src = bc_src_desc (format, w, h);
  gchar *desc = g_strdup_printf ("%s ! vulkanupload ! "
      "video/x-raw(memory:VulkanImage) ! vulkantocuda name=v2c in-place=%s "
      "! cudadownload ! video/x-raw ! appsink name=sink sync=false", src,
      in_place ? "true" : "false");
  GPtrArray *want = bc_reference_frames (format, w, h);
  GstElement *pipeline = NULL, *v2c;
  GPtrArray *got = bc_run_frames (&pipeline, desc);
  GstVideoInfo info;
  guint64 lent;
  gboolean expect;

  v2c = bc_by_name (pipeline, "v2c");
  fail_unless (bc_pad_info (v2c, "sink", &info));
  expect = bc_expect_lent (v2c, &info);
  fail_unless (!expect || in_place);
  lent = cs_stat (v2c, "in-place");
  g_print ("%s %dx%d, in-place=%d: %s (%" G_GUINT64_FORMAT " of %u in "
      "place, copies %" G_GUINT64_FORMAT ")\n", format, w, h, in_place,
      lent ? "read in place" : "copied", lent, got->len,
      cs_stat (v2c, "gpu-copies"));
  bc_assert_same_frames (got, want, desc);
  fail_unless_equals_uint64 (lent, expect ? BC_N_BUFFERS : 0);
  bc_assert_stats (v2c, BC_N_BUFFERS);
  bc_stop_pipeline (pipeline);
  if (cs_is_sim) {
    cs_sim.drain ();
    fail_unless_equals_int (cs_sim.violation_count (), 0);
  }
  g_ptr_array_unref (got);
  g_ptr_array_unref (want);
  g_free (desc);
  g_free (src);
}

/* vulkancolorconvert renders @format @w x @h as RGBA into the pool
 * vulkantocuda proposes: byte-exact against the same conversion read by
 * vulkandownload; every frame read in place where the pool is expected */
static void
check_convert_in_place (const gchar * format, gint w, gint h)
{
  gchar *src = bc_src_desc (format, w, h);
  const gchar *conv = "vulkanupload ! vulkancolorconvert ! "
      "video/x-raw(memory:VulkanImage),format=RGBA";
  gchar *desc = g_strdup_printf ("%s ! %s ! vulkantocuda name=v2c ! "
      "cudadownload ! video/x-raw ! appsink name=sink sync=false", src, conv);
  gchar *ref = g_strdup_printf ("%s ! %s ! vulkandownload ! video/x-raw ! "
      "appsink name=sink sync=false", src, conv);
  GPtrArray *want = bc_run_frames (NULL, ref);
  GstElement *pipeline = NULL, *v2c;
  GPtrArray *got = bc_run_frames (&pipeline, desc);
  GstVideoInfo info;
  guint64 lent;

  v2c = bc_by_name (pipeline, "v2c");
  fail_unless (bc_pad_info (v2c, "sink", &info));
  lent = cs_stat (v2c, "in-place");
  g_print ("%s %dx%d through vulkancolorconvert: %s (%" G_GUINT64_FORMAT
      " of %u in place)\n", format, w, h, lent ? "read in place" : "copied",
      lent, got->len);
  bc_assert_same_frames (got, want, desc);
  fail_unless_equals_uint64 (lent, bc_expect_lent (v2c, &info) ?
      BC_N_BUFFERS : 0);
  bc_assert_stats (v2c, BC_N_BUFFERS);
  bc_stop_pipeline (pipeline);
  g_ptr_array_unref (got);
  g_ptr_array_unref (want);
  g_free (desc);
  g_free (ref);
  g_free (src);
}

/* ---- frames read in place, reused: downstream allows 4 outputs ---- */

#define N_BOUND 4
static GHashTable *bound_ptrs;  /* the outputs' CUDA addresses */

/* downstream's ALLOCATION answer, seen by vulkantocuda: at most N_BOUND
 * buffers */
static GstPadProbeReturn
bound_allocation (GstPad * pad, GstPadProbeInfo * info, gpointer data)
{
  GstQuery *q = GST_PAD_PROBE_INFO_QUERY (info);
  GstBufferPool *pool = NULL;
  guint size = 0, min = 0, max = 0;

  if (GST_QUERY_TYPE (q) != GST_QUERY_ALLOCATION)
    return GST_PAD_PROBE_OK;
  if (gst_query_get_n_allocation_pools (q) > 0) {
    gst_query_parse_nth_allocation_pool (q, 0, &pool, &size, &min, &max);
    gst_query_set_nth_allocation_pool (q, 0, pool, size, 0, N_BOUND);
    gst_clear_object (&pool);
  } else {
    gst_query_add_allocation_pool (q, NULL, 0, 0, N_BOUND);
  }
  return GST_PAD_PROBE_OK;
}

static GstPadProbeReturn
record_output (GstPad * pad, GstPadProbeInfo * info, gpointer data)
{
  GstMemory *mem = gst_buffer_peek_memory (GST_PAD_PROBE_INFO_BUFFER (info),
      0);
  GstMapInfo map;

  fail_unless (gst_memory_map (mem, &map, GST_MAP_READ | GST_MAP_CUDA));
  g_hash_table_add (bound_ptrs, map.data);
  gst_memory_unmap (mem, &map);
  return GST_PAD_PROBE_OK;
}

static void
bound_hook (GstElement * pipeline)
{
  GstPad *pad = gst_element_get_static_pad (bc_by_name (pipeline, "v2c"),
      "src");

  gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_QUERY_DOWNSTREAM |
      GST_PAD_PROBE_TYPE_PULL, bound_allocation, NULL, NULL);
  gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER, record_output, NULL, NULL);
  gst_object_unref (pad);
}

/* 20 frames through vulkantocuda's pool when downstream allows 4 outputs:
 * the frames are reused (each once CUDA's reads of it, by cudadownload,
 * have completed), byte-exact */
GST_START_TEST (test_bounded_in_place)
{
  gchar *desc = g_strdup_printf ("%s ! vulkanupload ! "
      "video/x-raw(memory:VulkanImage) ! vulkantocuda name=v2c ! "
      "cudadownload ! video/x-raw ! appsink name=sink sync=false",
      BC_HELD_SRC);
  gchar *ref = g_strdup_printf ("%s ! appsink name=sink sync=false",
      BC_HELD_SRC);
  GPtrArray *want = bc_run_frames (NULL, ref), *got;
  GstElement *pipeline = NULL, *v2c;
  GstVideoInfo info;
  guint64 lent;

  bound_ptrs = g_hash_table_new (NULL, NULL);
  bc_pipeline_hook = bound_hook;
  got = bc_run_frames (&pipeline, desc);
  bc_pipeline_hook = NULL;
  v2c = bc_by_name (pipeline, "v2c");
  fail_unless (bc_pad_info (v2c, "sink", &info));
  lent = cs_stat (v2c, "in-place");
  g_print ("bounded: %" G_GUINT64_FORMAT " of %u read in place, in %u "
      "frames\n", lent, got->len, g_hash_table_size (bound_ptrs));
  bc_assert_same_frames (got, want, desc);
  bc_assert_stats (v2c, got->len);
  if (bc_expect_lent (v2c, &info)) {
    fail_unless_equals_uint64 (lent, got->len);
    fail_unless (g_hash_table_size (bound_ptrs) <= N_BOUND, "%u frames for "
        "at most %d outputs", g_hash_table_size (bound_ptrs), N_BOUND);
  }
  bc_stop_pipeline (pipeline);
  if (cs_is_sim) {
    cs_sim.drain ();
    fail_unless_equals_int (cs_sim.violation_count (), 0);
  }
  g_hash_table_unref (bound_ptrs);
  g_ptr_array_unref (got);
  g_ptr_array_unref (want);
  g_free (desc);
  g_free (ref);
}

GST_END_TEST;

static const gchar *const reneg_formats[] = { "RGBA", "BGRA", "RGBA" };

#define RENEG_PER_FORMAT 4

/* One stream RGBA -> BGRA -> RGBA through vulkanupload's images: each
 * format gets a pool of its own (the old one's frames still upstream are
 * copied), every frame byte-exact against the same source converted
 * without Vulkan, and read in place where the pool is expected */
GST_START_TEST (test_renegotiate_in_place)
{
  const guint total = RENEG_PER_FORMAT * G_N_ELEMENTS (reneg_formats);
  GstElement *pipeline, *v2c;
  GstVideoInfo info;
  guint64 lent;

  pipeline = bc_run_renegotiating ("vulkanupload ! "
      "video/x-raw(memory:VulkanImage) ! vulkantocuda name=v2c ! "
      "cudadownload ! video/x-raw", reneg_formats,
      G_N_ELEMENTS (reneg_formats), RENEG_PER_FORMAT, "RGBA -> BGRA -> RGBA");
  v2c = bc_by_name (pipeline, "v2c");
  fail_unless (bc_pad_info (v2c, "sink", &info));
  lent = cs_stat (v2c, "in-place");
  g_print ("renegotiated: %" G_GUINT64_FORMAT " of %u read in place\n",
      lent, total);
  fail_unless_equals_uint64 (cs_stat (v2c, "buffers"), total);
  /* vulkanupload takes the new pool with the new caps, before its first
   * frame of them */
  fail_unless_equals_uint64 (lent, bc_expect_lent (v2c, &info) ? total : 0);
  bc_stop_pipeline (pipeline);
}

GST_END_TEST;

GST_START_TEST (test_upstream_writes_in_place)
{
  check_upstream_writes ("RGBA", 64, 48, TRUE);
  /* a row pitch wider than the frame's rows */
  check_upstream_writes ("RGBA", 33, 17, TRUE);
  check_upstream_writes ("BGRA", 64, 48, TRUE);
  check_upstream_writes ("RGBA", 64, 48, FALSE);
  check_convert_in_place ("NV12", 64, 48);
}

GST_END_TEST;

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
  gboolean pending = !(cs_is_sim && bc_expect_wrapped_output
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
  src = bc_by_name (pipeline, "src");
  sink = bc_by_name (pipeline, "sink");
  g_object_set (src, "caps", caps, NULL);
  pad = gst_element_get_static_pad (bc_by_name (pipeline, "v2c"), "src");
  gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER, check_output_stream,
      &with_stream, NULL);
  gst_object_unref (pad);
  g_signal_connect (sink, "new-sample", G_CALLBACK (cs_collect_sample), frames);
  bus = gst_element_get_bus (pipeline);
  gst_bus_set_sync_handler (bus, cs_share_context, NULL, NULL);
  fail_if (gst_element_set_state (pipeline, GST_STATE_PLAYING) ==
      GST_STATE_CHANGE_FAILURE);

  if (cs_is_sim) {
    cs_sim.set_delay_us ("cuMemsetD2D8Async", 100000);
    cs_sim.reset_counters ();
  }
  for (i = 0; i < BC_N_BUFFERS; i++) {
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

  fail_unless_equals_int (frames->len, BC_N_BUFFERS);
  for (i = 0; i < BC_N_BUFFERS; i++) {
    GBytes *want = cs_value_bytes (&info, 0x50 + i);
    const guint8 *d = g_bytes_get_data (g_ptr_array_index (frames, i), NULL);

    fail_unless (g_bytes_equal (g_ptr_array_index (frames, i), want),
        "frame %u: byte 0 is 0x%02x, want 0x%02x (0x21: copied before the "
        "producer's write)", i, d[0], 0x50 + i);
    g_bytes_unref (want);
  }
  fail_unless_equals_int (with_stream, BC_N_BUFFERS);
  bc_assert_stats (bc_by_name (pipeline, "c2v"), BC_N_BUFFERS);
  /* cudatovulkan copied on the producer's own stream: no event orders a
   * stream of its own after the producer's work (nor does anything else
   * here: vulkantocuda's output carries its stream) */
  if (cs_is_sim)
    fail_unless_equals_int (cs_sim.call_count ("cuStreamWaitEvent"), 0);

  bc_stop_pipeline (pipeline);
  gst_object_unref (bus);
  g_ptr_array_unref (frames);
  gst_buffer_pool_set_active (pool, FALSE);
  gst_object_unref (pool);
  gst_cuda_stream_unref (producer);
  gst_caps_unref (caps);
}

GST_END_TEST;
#endif

/* A process in which no upstream CUDA element loaded libgstcuda's driver
 * entry points (no cudaupload/cudadownload): the bridge loads them itself
 * (it used to abort inside libgstcuda). No cs_setup: it would load them. */
GST_START_TEST (test_without_nvcodec)
{
  GstElement *pipeline;
  GstPlugin *nvcodec;
  gchar *error;

  error = cs_run_to_end ("videotestsrc num-buffers=3 ! "
      "video/x-raw,format=RGBA,width=64,height=48 ! vulkanupload ! "
      "vulkantocuda name=v2c ! fakesink", &pipeline);
  fail_unless (error == NULL, "%s", error);
  fail_unless_equals_uint64 (cs_stat (bc_by_name (pipeline, "v2c"), "buffers"),
      3);
  nvcodec = gst_registry_find_plugin (gst_registry_get (), "nvcodec");
  fail_if (nvcodec && gst_plugin_is_loaded (nvcodec),
      "nvcodec was loaded: the test proves nothing");
  gst_clear_object (&nvcodec);
  gst_object_unref (pipeline);
}

GST_END_TEST;

/* The Vulkan memory kinds, by caps filter: the failure tests' loop index */
static const gchar *const input_kinds[] = {
  "video/x-raw(memory:VulkanImage)", "video/x-raw(memory:VulkanBuffer)",
};

/* vulkanupload's images of NV12 33x17 hold its rows (bridgeupload.c) */
static void
packed_rows_hook (GstElement * pipeline)
{
  GstVideoInfo info;

  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_NV12, 33, 17);
  bc_upload_packed_rows (pipeline, &info);
}

GST_START_TEST (test_default_negotiation)
{
  bc_check_upload_negotiation ("RGBA", 64, 48, "");
  bc_check_upload_negotiation ("BGRx", 33, 17, "");
  bc_check_upload_negotiation ("NV12", 33, 17, "");
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
   * what the event after it waits for. in-place=false: images of its own
   * pool (one-allocation) would be read where they are, through neither
   * a staging buffer nor that copy. */
  gchar *src = bc_src_desc ("NV12", 33, 17);
  gchar *desc = g_strdup_printf ("%s ! vulkanupload name=up ! %s ! "
      "vulkantocuda name=v2c in-place=false ! queue ! cudadownload ! "
      "video/x-raw ! appsink name=sink sync=false", src, input_kinds[__i__]);
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
  if (strstr (input_kinds[__i__], GST_CAPS_FEATURE_MEMORY_VULKAN_IMAGE))
    bc_pipeline_hook = packed_rows_hook;
  got = bc_run_frames (&pipeline, desc);
  bc_pipeline_hook = NULL;
  fail_unless (cs_stat (bc_by_name (pipeline, "v2c"), "cpu-syncs") >
      BC_N_BUFFERS, "no CPU wait after the failed query");
  bc_stop_pipeline (pipeline);
  want = bc_reference_frames ("NV12", 33, 17);
  bc_assert_same_frames (got, want, "vulkantocuda after a failed cuEventQuery");
  g_ptr_array_unref (got);
  g_ptr_array_unref (want);

  /* and when the CPU wait fails too */
  cs_sim.inject_failure ("cuEventQuery", 1, CUDA_ERROR_UNKNOWN);
  cs_sim.inject_failure ("cuEventSynchronize", 1, CUDA_ERROR_LAUNCH_FAILED);
  error = cs_run_to_end (desc, &pipeline);
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

/* The CUDA output pool cannot be set up (a driver call fails once, as a
 * failed cuCtxPushCurrent does in the fault suite): vulkantocuda posts its
 * element error, and that ends its stream. GstBaseTransform asks for the
 * allocation again (upstream's ALLOCATION query, the next buffer), which
 * used to succeed: frames went on after the ERROR, the source never saw a
 * flow error, and the pipeline, whose state change the error had failed,
 * waited in preroll for ever unless the application acted on that first
 * ERROR (gst-launch-1.0 1.22 loses one posted before its main loop runs,
 * and hung). */
GST_START_TEST (test_pool_failure_ends_stream)
{
  GstElement *pipeline;
  GstBus *bus;
  GstMessage *msg;
  GError *err = NULL;
  gchar *src = bc_src_desc ("NV12", 33, 17);
  /* NV12 of an odd width: the output is a CUDA pool's on every version */
  gchar *desc = g_strdup_printf ("%s ! vulkanupload ! %s ! vulkantocuda "
      "name=v2c ! fakesink name=sink", src, input_kinds[__i__]);

  g_free (src);
  if (!cs_is_sim) {
    g_print ("SKIP: test_pool_failure_ends_stream: needs the simulator's "
        "fault injection\n");
    g_free (desc);
    return;
  }
  pipeline = gst_parse_launch (desc, &err);
  fail_unless (pipeline != NULL, "%s", err ? err->message : desc);
  if (cs_pipeline_hook)
    cs_pipeline_hook (pipeline);
  bus = gst_element_get_bus (pipeline);
  /* the first pitched allocation is the pool's (its set_config) */
  cs_sim.inject_failure ("cuMemAllocPitch_v2", 1, CUDA_ERROR_OUT_OF_MEMORY);
  gst_element_set_state (pipeline, GST_STATE_PLAYING);

  msg = gst_bus_timed_pop_filtered (bus, 30 * GST_SECOND,
      GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  fail_unless (msg != NULL, "neither an error nor EOS");
  fail_unless_equals_int (GST_MESSAGE_TYPE (msg), GST_MESSAGE_ERROR);
  gst_message_parse_error (msg, &err, NULL);
  fail_unless_equals_string (GST_OBJECT_NAME (GST_MESSAGE_SRC (msg)), "v2c");
  fail_unless (strstr (err->message, "CUDA buffer pool") != NULL, "%s",
      err->message);
  g_clear_error (&err);
  gst_message_unref (msg);

  /* the stream ends: the source's flow error, no frame, no EOS */
  msg = gst_bus_timed_pop_filtered (bus, 20 * GST_SECOND,
      GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  fail_unless (msg != NULL, "the stream went on after vulkantocuda's error");
  fail_unless_equals_int (GST_MESSAGE_TYPE (msg), GST_MESSAGE_ERROR);
  fail_unless (GST_OBJECT_NAME (GST_MESSAGE_SRC (msg)) != NULL &&
      g_str_has_prefix (GST_OBJECT_NAME (GST_MESSAGE_SRC (msg)),
          "videotestsrc"), "second error from %s",
      GST_OBJECT_NAME (GST_MESSAGE_SRC (msg)));
  gst_message_unref (msg);
  fail_unless_equals_uint64 (cs_stat (bc_by_name (pipeline, "v2c"), "buffers"),
      0);

  fail_unless_equals_int (gst_element_set_state (pipeline, GST_STATE_NULL),
      GST_STATE_CHANGE_SUCCESS);
  gst_object_unref (bus);
  gst_object_unref (pipeline);
  /* vulkanupload's images and staging buffers, freed when it is finalized
   * before it waits for its copies, were not in use any more: vulkantocuda
   * waited for the queue in its stop (it crashed lavapipe's queue thread
   * now and then; the validation layer said so every time) */
  fail_unless_equals_int (cs_vk_other_errors (), 0);
  cs_sim.clear_failures ();
  g_free (desc);
}

GST_END_TEST;

/* Each frame of cudatovulkan read at the same time by vulkantocuda and,
 * through a tee, by vulkandownload, on their own streaming threads: both
 * take part in the images' timeline semaphores (the bridge through its
 * relay, and an operation whose commit comes second is made again).
 * vulkantocuda's output stays byte-exact and in order, and it counts every
 * frame. After 1.28 only (upstream main's API): from 1.24 to 1.28 two
 * elements that use one image on two threads race on its barrier state,
 * which GstVulkanOperation reads and advances without a lock, so both
 * wait for the same timeline value and both signal the next one. On the
 * H200 with 1.26.2 the validation layer reported that as
 * VUID-VkSubmitInfo-pSignalSemaphores-03242 on the image's timeline;
 * docs/known-issues.md. On 1.22 a Vulkan element behind tee ! queue
 * makes a queue object of its own (same page). The frames come from
 * cudatovulkan, not vulkanupload: vulkanupload ! queue ! vulkandownload
 * alone is not byte-exact on Mesa lavapipe (same page). */
#if defined (HAVE_VK_OPERATION_SEMAPHORES)
#define TEE_N_BUFFERS 24

GST_START_TEST (test_tee_with_vulkandownload)
{
  gchar *src = g_strdup_printf ("videotestsrc num-buffers=%d pattern=smpte "
      "! video/x-raw,format=RGBA,width=64,height=48,framerate=30/1",
      TEE_N_BUFFERS);
  gchar *desc = g_strdup_printf ("%s ! cudaupload ! cudatovulkan ! tee "
      "name=t ! queue ! vulkantocuda name=v2c ! cudadownload ! video/x-raw ! "
      "appsink name=sink sync=false t. ! queue ! vulkandownload ! fakesink "
      "sync=false", src);
  gchar *ref = g_strdup_printf ("%s ! appsink name=sink sync=false", src);
  GstElement *pipeline;
  GPtrArray *got, *want;

  got = bc_run_frames (&pipeline, desc);
  fail_unless_equals_int (got->len, TEE_N_BUFFERS);
  bc_assert_stats (bc_by_name (pipeline, "v2c"), TEE_N_BUFFERS);
  bc_stop_pipeline (pipeline);
  want = bc_run_frames (NULL, ref);
  bc_assert_same_frames (got, want, "cudatovulkan ! tee ! vulkantocuda, "
      "with vulkandownload beside it");
  g_ptr_array_unref (got);
  g_ptr_array_unref (want);
  g_free (ref);
  g_free (desc);
  g_free (src);
}

GST_END_TEST;
#endif

static Suite *
vulkantocuda_suite (void)
{
  Suite *s = suite_create ("vulkantocuda");
  TCase *tc;

  tc = tcase_create ("general");
  suite_add_tcase (s, tc);
  tcase_add_checked_fixture (tc, cs_vk_setup, cs_vk_teardown);
  tcase_add_test (tc, test_held_outputs);
  tcase_add_test (tc, test_default_negotiation);
#if GST_CHECK_VERSION(1, 24, 0)
  tcase_add_test (tc, test_pending_producer_stream);
  tcase_add_test (tc, test_upstream_writes_in_place);
  tcase_add_test (tc, test_held_in_place);
  tcase_add_test (tc, test_bounded_in_place);
  tcase_add_test (tc, test_renegotiate_in_place);
#endif
  tcase_add_loop_test (tc, test_event_query_failure, 0,
      G_N_ELEMENTS (input_kinds));
  tcase_add_loop_test (tc, test_pool_failure_ends_stream, 0,
      G_N_ELEMENTS (input_kinds));
#if defined (HAVE_VK_OPERATION_SEMAPHORES)
  tcase_add_test (tc, test_tee_with_vulkandownload);
#endif
  /* without cs_setup(), which loads libgstcuda's driver entry points */
  tc = tcase_create ("loading");
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_without_nvcodec);
  return s;
}

int
main (int argc, char **argv)
{
  gst_check_init (&argc, &argv);
  return cs_vk_run_suite (vulkantocuda_suite (), "vulkantocuda", __FILE__);
}

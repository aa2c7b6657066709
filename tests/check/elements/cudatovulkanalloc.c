/* gst-cudasync: cudatovulkan and its upstream: its answer to the ALLOCATION
 * query (the pool it proposes, in which upstream writes frames in place,
 * and the semaphore it offers cudasemsignal), and how long it holds an
 * input buffer, which upstream reuses once it is back in its pool
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Its output: elements/cudatovulkan. Helpers and what the simulator runs in
 * place of a GPU: bridgecommon.h.
 *
 * Tests:
 * test_in_place: cudaupload writes frames in place on 1.24+ (one-plane
 *     formats, NV12; copies 0), the proposed pool, byte-exact
 * test_in_place_held: 20 frames written in place, all held downstream at
 *     once, stay byte-exact
 * test_in_place_refused: frames from another pool are copied, those from the
 *     proposed pool written in place
 * test_semsignal_offer: cudasemsignal ! cudatovulkan: semaphore offered via
 *     ALLOCATION (GPU) or fallback=sync
 * test_input_held_until_copied: an input buffer returns to its pool only
 *     once its copy ran on the GPU
 */
#include "bridgecommon.h"
#include <string.h>

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
    gchar *src = bc_src_desc (fmts[f], w, h);
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
    bc_tight_rows = (w % 4) != 0 && !strcmp (fmts[f], "NV12") &&
        bc_vulkandownload_packs_rows ();
    got = bc_run_frames (&pipeline, desc);
    bc_tight_rows = FALSE;
    sig = bc_by_name (pipeline, "sig");
    c2v = bc_by_name (pipeline, "c2v");

    pad = gst_element_get_static_pad (c2v, "sink");
    caps = gst_pad_get_current_caps (pad);
    fail_unless (caps != NULL);
    offered = c2v_offers_semaphore (c2v, caps, &types);
    gst_caps_unref (caps);
    gst_object_unref (pad);

    bc_assert_stats (c2v, BC_N_BUFFERS);
    fail_unless_equals_uint64 (cs_stat (sig, "buffers"), BC_N_BUFFERS);
    if (!cs_is_sim)
      fail_unless (offered, "%s: no semaphore offered on a real GPU", what);
    if (offered) {
      /* documented: downstream's semaphore, signalled on the GPU for every
       * buffer and waited for by cudatovulkan's stream */
      fail_unless (cs_stat (sig, "signals") == BC_N_BUFFERS, "%s: signals %"
          G_GUINT64_FORMAT, what, cs_stat (sig, "signals"));
      fail_unless (cs_stat (sig, "cpu-syncs") == 0, "%s: cpu-syncs %"
          G_GUINT64_FORMAT, what, cs_stat (sig, "cpu-syncs"));
      fail_unless (cs_stat (c2v, "waits") == BC_N_BUFFERS, "%s: waits %"
          G_GUINT64_FORMAT, what, cs_stat (c2v, "waits"));
    } else {
      /* documented: no offer where Vulkan cannot export semaphores:
       * cudasemsignal's fallback=sync, once a buffer; nothing to wait for */
      fail_unless (cs_stat (sig, "signals") == 0);
      fail_unless (cs_stat (sig, "cpu-syncs") == BC_N_BUFFERS, "%s: cpu-syncs %"
          G_GUINT64_FORMAT, what, cs_stat (sig, "cpu-syncs"));
      fail_unless_equals_uint64 (cs_stat (c2v, "waits"), 0);
    }
    bc_stop_pipeline (pipeline);
    want = bc_reference_frames (fmts[f], w, h);
    bc_assert_same_frames (got, want, what);

    g_ptr_array_unref (got);
    g_ptr_array_unref (want);
    g_free (what);
    g_free (desc);
    g_free (src);
  }
}

GST_END_TEST;

/* Fills the one-plane frame @buf with @value from the GPU on @stream */
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
          GST_BUFFER_POOL_ACQUIRE_FLAG_DONTWAIT
    };
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
    /* cudatovulkan flushes first (a seek or a stop that reached it before
     * upstream): plain CUDA memory, never a failure, which upstream's
     * decoders take for an error; upstream's own flush: FLUSHING */
    fail_unless (gst_pad_send_event (pad, gst_event_new_flush_start ()));
    fail_unless_equals_int (gst_buffer_pool_acquire_buffer (pool, &more,
            NULL), GST_FLOW_OK);
    fail_unless (gst_is_cuda_memory (gst_buffer_peek_memory (more, 0)));
    gst_buffer_unref (more);
    gst_buffer_pool_set_flushing (pool, TRUE);
    fail_unless_equals_int (gst_buffer_pool_acquire_buffer (pool, &more,
            NULL), GST_FLOW_FLUSHING);
    gst_buffer_pool_set_flushing (pool, FALSE);
    fail_unless (gst_pad_send_event (pad, gst_event_new_flush_stop (TRUE)));
    fail_unless (gst_buffer_pool_set_active (pool, FALSE));
  }
  gst_clear_object (&pool);
  gst_caps_unref (caps);
  gst_object_unref (pad);
}

/* cudaupload ! cudatovulkan: on 1.24+ cudaupload writes the frames
 * straight into cudatovulkan's Vulkan memory (the pool it proposes; NV12's
 * two images bound to one allocation, one-allocation=true): copies 0, in-place = buffers; with
 * in-place=false one copy a frame. Byte-exact either way. */
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
      gchar *src = bc_src_desc (cases[i].format, cases[i].w, cases[i].h);
      gchar *desc = g_strdup_printf ("%s ! cudaupload ! cudatovulkan "
          "name=c2v in-place=%s one-allocation=true ! vulkandownload ! "
          "video/x-raw ! "
          "appsink name=sink sync=false", src, enabled ? "true" : "false");
      gchar *what = g_strdup_printf ("in place %s %dx%d, in-place=%d",
          cases[i].format, cases[i].w, cases[i].h, enabled);
      GstElement *pipeline, *c2v;
      GPtrArray *got, *want;
      GstVideoInfo info;
      gboolean expect;

      GST_INFO ("%s", what);
      got = bc_run_frames (&pipeline, desc);
      c2v = bc_by_name (pipeline, "c2v");
      fail_unless (bc_pad_info (c2v, "sink", &info));
      expect = bc_info_in_place (c2v, &info);
      fail_unless_equals_int (expect, enabled && GST_CHECK_VERSION (1, 24, 0)
          && (GST_VIDEO_INFO_N_PLANES (&info) == 1 ||
              bc_one_allocation_usable ()));
      fail_unless_equals_uint64 (cs_stat (c2v, "in-place"),
          expect ? BC_N_BUFFERS : 0);
      bc_assert_stats (c2v, BC_N_BUFFERS);
      assert_proposed_pool (c2v, expect);
      bc_stop_pipeline (pipeline);
      want = bc_reference_frames (cases[i].format, cases[i].w, cases[i].h);
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

#define N_HELD_IN_PLACE 20

/* Frames written in place stay with downstream for as long as it holds
 * them: all 20 of a run are held at once (a queue blocked until
 * cudatovulkan has pushed the last one) while cudaupload goes on writing,
 * then read; every one is byte-exact. A frame handed to cudaupload again
 * while held would show the next frame's bytes. */
GST_START_TEST (test_in_place_held)
{
  const gchar *src = BC_HELD_SRC;
  gchar *desc = g_strdup_printf ("%s ! cudaupload ! cudatovulkan name=c2v ! "
      "queue name=q max-size-buffers=0 max-size-bytes=0 max-size-time=0 ! "
      "vulkandownload ! video/x-raw ! appsink name=sink sync=false", src);
  gchar *ref = g_strdup_printf ("%s ! appsink name=sink sync=false", src);
  GstElement *pipeline;
  GPtrArray *got, *want;

  got = bc_run_held (desc, N_HELD_IN_PLACE, &pipeline);
  bc_assert_stats (bc_by_name (pipeline, "c2v"), N_HELD_IN_PLACE);
  bc_stop_pipeline (pipeline);

  want = bc_run_frames (NULL, ref);
  bc_assert_same_frames (got, want, "frames written in place, held");
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
  src = bc_by_name (pipeline, "src");
  c2v = bc_by_name (pipeline, "c2v");
  g_object_set (src, "caps", caps, NULL);
  g_signal_connect (bc_by_name (pipeline, "sink"), "new-sample",
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
  bc_assert_stats_full (c2v, 4, GST_CHECK_VERSION (1, 24, 0) ? 3 : 4);
  bc_stop_pipeline (pipeline);
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
  src = bc_by_name (pipeline, "src");
  sink = bc_by_name (pipeline, "sink");
  c2v = bc_by_name (pipeline, "c2v");
  g_object_set (src, "caps", caps, NULL);
  c2v_src = gst_element_get_static_pad (c2v, "src");
  gst_pad_add_probe (c2v_src, GST_PAD_PROBE_TYPE_BUFFER, count_pushed,
      &pushed, NULL);
  gst_object_unref (c2v_src);
  g_signal_connect (sink, "new-sample", G_CALLBACK (cs_collect_sample), frames);
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
  bc_stop_pipeline (pipeline);
  gst_object_unref (sem);
  test_sem_free (ts);
  cs_free_stream (stream);
  gst_buffer_pool_set_active (pool, FALSE);
  gst_object_unref (pool);
  gst_caps_unref (caps);
  g_ptr_array_unref (frames);
}

GST_END_TEST;

static Suite *
cudatovulkanalloc_suite (void)
{
  Suite *s = suite_create ("cudatovulkanalloc");
  TCase *tc;

  tc = tcase_create ("general");
  suite_add_tcase (s, tc);
  tcase_add_checked_fixture (tc, cs_vk_setup, cs_vk_teardown);
  tcase_add_test (tc, test_in_place);
  tcase_add_test (tc, test_in_place_held);
  tcase_add_test (tc, test_in_place_refused);
  tcase_add_test (tc, test_semsignal_offer);
  tcase_add_test (tc, test_input_held_until_copied);
  return s;
}

int
main (int argc, char **argv)
{
  gst_check_init (&argc, &argv);
  return cs_vk_run_suite (cudatovulkanalloc_suite (), "cudatovulkanalloc",
      __FILE__);
}

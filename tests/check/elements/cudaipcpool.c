/* gst-cudasync
 * Copyright (C) 2026 gst-cudasync developers
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The pool cudasyncipcsink proposes upstream (GStreamer 1.24+): cudaupload
 * writes the sink's shareable frames in place. Both ends run in this
 * process; a source in io-mode=import whose appsink is never pulled holds
 * the frames it got, so that sources hold every frame of the sink (1.24+:
 * on 1.22 the source copies and releases every frame at once, and the
 * sink proposes no pool, which test_pool_proposal checks).
 *
 * Tests:
 * test_pool_full_drop: max-buffers=2, on-full=drop, both frames held: the
 *     pool lent 2 frames, both sent in place, then hands out plain memory,
 *     which the sink drops (no copy, no third allocation)
 * test_pool_full_wait_stop: the same with on-full=wait: cudaupload waits
 *     in the pool for a frame that the held source never releases; the
 *     sink's pipeline still stops within 5 s, and cudaupload gets no frame
 *     of the sink meanwhile.
 * test_pool_proposal: the ALLOCATION query before the caps are set gets no
 *     pool; for the sink's caps it gets a GstCudaBufferPool with the sink's
 *     max-buffers and the video meta; for other caps none.
 * test_pool_lend_failures: the simulator fails each cuCtxPushCurrent of an
 *     acquire from the pool in turn: the acquire returns GST_FLOW_ERROR
 *     and no buffer, nothing is counted as lent, and no frame is lost
 *     (both frames are lent afterwards, a third acquire finds none).
 * test_decode_in_place: H.264 clips (high profile with B-frames; a width
 *     that is not a multiple of 4, 720p at 60 frames/s, and 4K) decoded
 *     straight into the sink's frames: by nvh264dec where NVDEC is there,
 *     else (the simulator) by openh264dec ! cudaupload. A source in
 *     io-mode=import gets the decoder ! cudadownload's bytes, every frame
 *     sent in place without a copy (1.24+; 1.22 copies each).
 */
#include "../ipccommon.h"
#include <gst/app/gstappsink.h>
#include <gst/cuda/gstcudabufferpool.h>
#include <unistd.h>

#define HELD 2

/* a live cudaupload into a sink of HELD frames; a source that holds the
 * frames it gets */
static void
start_held (const gchar * on_full, GstElement ** sp, GstElement ** ap,
    GstElement ** sink, gchar ** path)
{
  gchar *fmt = g_strdup_printf ("videotestsrc is-live=true ! "
      "video/x-raw,format=" FORMAT ",width=%d,height=%d,framerate=200/1 ! "
      "cudaupload ! cudasyncipcsink name=sink max-buffers=%d on-full=%s "
      "sync=false socket-path=%%s", W, H, HELD, on_full);

  *path = g_strdup_printf ("%s/cudaipc-pool%d.sock", g_get_tmp_dir (),
      getpid ());
  *sp = ipc_pipeline (fmt, *path, "sink");
  *ap = ipc_pipeline ("cudasyncipcsrc name=src socket-path=%s io-mode=import "
      "! appsink name=out sync=false max-buffers=64", *path, "src");
  *sink = gst_bin_get_by_name (GST_BIN (*sp), "sink");
  /* the source is ready before the first frame: a frame with no source
   * would go back to the pool unsent and be lent again */
  fail_unless (gst_element_set_state (*sp, GST_STATE_PAUSED) !=
      GST_STATE_CHANGE_FAILURE);
  fail_unless (gst_element_set_state (*ap, GST_STATE_PLAYING) !=
      GST_STATE_CHANGE_FAILURE);
  fail_unless_equals_uint64 (ipc_wait_stat (*sink, "sessions", 1), 1);
  fail_unless (gst_element_set_state (*sp, GST_STATE_PLAYING) !=
      GST_STATE_CHANGE_FAILURE);
  g_free (fmt);
}

static gboolean
can_hold (void)
{
  if (GST_CHECK_VERSION (1, 24, 0))
    return TRUE;
  g_print ("SKIP: GStreamer 1.22: no pool, and an import source copies\n");
  return FALSE;
}

static void
stop_all (GstElement * sp, GstElement * ap, GstElement * sink, gchar * path)
{
  gst_element_set_state (ap, GST_STATE_NULL);
  gst_element_set_state (sp, GST_STATE_NULL);
  gst_object_unref (sink);
  gst_object_unref (ap);
  gst_object_unref (sp);
  g_free (path);
}

GST_START_TEST (test_pool_full_drop)
{
  GstElement *sp, *ap, *sink;
  gchar *path;

  if (!can_hold ())
    return;
  start_held ("drop", &sp, &ap, &sink, &path);
  fail_unless_equals_uint64 (ipc_wait_stat (sink, "frames-sent", HELD), HELD);
  /* both frames held: every later frame is dropped */
  fail_unless (ipc_wait_stat (sink, "dropped", 10) >= 10);
  fail_unless_equals_uint64 (cs_stat (sink, "frames-sent"), HELD);
  fail_unless_equals_uint64 (cs_stat (sink, "buffers-allocated"), HELD);
  fail_unless_equals_uint64 (cs_stat (sink, "releases"), 0);
  /* the frames sent were written in place; the rest came as plain memory
   * from the pool and went without a copy */
  fail_unless_equals_uint64 (cs_stat (sink, "lent"), HELD);
  fail_unless_equals_uint64 (cs_stat (sink, "inputs-in-place"), HELD);
  fail_unless_equals_uint64 (cs_stat (sink, "copies"), 0);
  stop_all (sp, ap, sink, path);
}

GST_END_TEST;

GST_START_TEST (test_pool_full_wait_stop)
{
  GstElement *sp, *ap, *sink;
  guint64 buffers;
  gint64 t0;
  gchar *path;

  if (!can_hold ())
    return;
  start_held ("wait", &sp, &ap, &sink, &path);
  fail_unless_equals_uint64 (ipc_wait_stat (sink, "frames-sent", HELD), HELD);
  /* no frame is free: cudaupload waits in the pool's lend */
  g_usleep (200 * 1000);
  buffers = cs_stat (sink, "buffers");
  g_usleep (200 * 1000);
  fail_unless_equals_uint64 (cs_stat (sink, "buffers"), buffers);
  fail_unless_equals_uint64 (cs_stat (sink, "frames-sent"), HELD);
  fail_unless_equals_uint64 (cs_stat (sink, "dropped"), 0);
  fail_unless_equals_uint64 (cs_stat (sink, "lent"), HELD);
  /* the sink's pipeline stops although the source holds both frames */
  t0 = g_get_monotonic_time ();
  fail_unless (gst_element_set_state (sp, GST_STATE_NULL) ==
      GST_STATE_CHANGE_SUCCESS);
  fail_unless (g_get_monotonic_time () - t0 < 5 * G_USEC_PER_SEC,
      "the stop took %" G_GINT64_FORMAT " us", g_get_monotonic_time () - t0);
  fail_unless_equals_uint64 (cs_stat (sink, "frames-sent"), HELD);
  stop_all (sp, ap, sink, path);
}

GST_END_TEST;

/* the pool the sink answers an ALLOCATION query for @caps with, or NULL */
static GstBufferPool *
proposed_pool (GstElement * sink, GstCaps * caps, guint * max)
{
  GstQuery *q = gst_query_new_allocation (caps, TRUE);
  GstPad *pad = gst_element_get_static_pad (sink, "sink");
  GstBufferPool *pool = NULL;

  fail_unless (gst_pad_query (pad, q));
  *max = 0;
  if (gst_query_get_n_allocation_pools (q) > 0)
    gst_query_parse_nth_allocation_pool (q, 0, &pool, NULL, NULL, max);
  fail_unless (gst_query_find_allocation_meta (q, GST_VIDEO_META_API_TYPE,
          NULL));
  gst_query_unref (q);
  gst_object_unref (pad);
  return pool;
}

GST_START_TEST (test_pool_proposal)
{
  gchar *path = g_strdup_printf ("%s/cudaipc-pp%d.sock", g_get_tmp_dir (),
      getpid ());
  GstElement *p = ipc_pipeline ("appsrc name=in format=time ! "
      "cudasyncipcsink name=sink max-buffers=3 socket-path=%s", path, "sink");
  GstElement *sink = gst_bin_get_by_name (GST_BIN (p), "sink");
  GstElement *in = gst_bin_get_by_name (GST_BIN (p), "in");
  GstCaps *caps = cs_caps (FORMAT, W, H), *other = cs_caps (FORMAT, W2, H2);
  GstBufferPool *pool;
  GstPad *pad;
  guint max;

  fail_unless (gst_element_set_state (p, GST_STATE_PAUSED) !=
      GST_STATE_CHANGE_FAILURE);
  /* no caps yet: no frames to lend */
  fail_unless ((pool = proposed_pool (sink, caps, &max)) == NULL);
  pad = gst_element_get_static_pad (in, "src");
  gst_pad_push_event (pad, gst_event_new_stream_start ("pool"));
  fail_unless (gst_pad_push_event (pad, gst_event_new_caps (caps)));
  gst_object_unref (pad);
  pool = proposed_pool (sink, caps, &max);
  if (GST_CHECK_VERSION (1, 24, 0)) {
    fail_unless (GST_IS_CUDA_BUFFER_POOL (pool));
    fail_unless_equals_int (max, 3);
    gst_object_unref (pool);
  } else {
    fail_unless (pool == NULL, "1.22: no pool");
  }
  /* caps that are not the sink's */
  fail_unless ((pool = proposed_pool (sink, other, &max)) == NULL);
  gst_element_set_state (p, GST_STATE_NULL);
  gst_caps_unref (caps);
  gst_caps_unref (other);
  gst_object_unref (in);
  gst_object_unref (sink);
  gst_object_unref (p);
  g_free (path);
}

GST_END_TEST;

/* the sink of @p in PAUSED with caps: its proposed pool, active */
static GstBufferPool *
active_pool (GstElement * p, GstElement * sink)
{
  GstElement *in = gst_bin_get_by_name (GST_BIN (p), "in");
  GstCaps *caps = cs_caps (FORMAT, W, H);
  GstBufferPool *pool;
  GstPad *pad;
  guint max;

  fail_unless (gst_element_set_state (p, GST_STATE_PAUSED) !=
      GST_STATE_CHANGE_FAILURE);
  pad = gst_element_get_static_pad (in, "src");
  gst_pad_push_event (pad, gst_event_new_stream_start ("lend"));
  fail_unless (gst_pad_push_event (pad, gst_event_new_caps (caps)));
  pool = proposed_pool (sink, caps, &max);
  fail_unless (pool != NULL);
  fail_unless (gst_buffer_pool_set_active (pool, TRUE));
  gst_object_unref (pad);
  gst_object_unref (in);
  gst_caps_unref (caps);
  return pool;
}

GST_START_TEST (test_pool_lend_failures)
{
  GstBufferPoolAcquireParams dontwait = {.flags =
        GST_BUFFER_POOL_ACQUIRE_FLAG_DONTWAIT
  };
  gchar *path = g_strdup_printf ("%s/cudaipc-lf%d.sock", g_get_tmp_dir (),
      getpid ());
  GstElement *p, *sink;
  GstBufferPool *pool;
  GstBuffer *buf, *bufs[HELD];
  GstFlowReturn ret;
  guint nth, i, errors = 0, before;
  gboolean consumed = TRUE;

  if (!can_hold ())
    goto out;
  if (!cs_is_sim) {
    g_print ("SKIP: needs the simulator's fault injection\n");
    goto out;
  }
  p = ipc_pipeline ("appsrc name=in format=time ! cudasyncipcsink name=sink "
      "max-buffers=2 socket-path=%s", path, "sink");
  sink = gst_bin_get_by_name (GST_BIN (p), "sink");
  pool = active_pool (p, sink);
  for (nth = 1; consumed && nth < 50; nth++) {
    guint64 lent = cs_stat (sink, "lent");

    before = cs_sim.call_count ("cuCtxPushCurrent_v2");
    cs_sim.inject_failure ("cuCtxPushCurrent_v2", nth, CUDA_ERROR_UNKNOWN);
    buf = NULL;
    ret = gst_buffer_pool_acquire_buffer (pool, &buf, &dontwait);
    consumed = cs_sim.call_count ("cuCtxPushCurrent_v2") - before >= nth;
    cs_sim.inject_failure ("cuCtxPushCurrent_v2", 0, CUDA_SUCCESS);
    if (ret == GST_FLOW_OK) {
      fail_unless (buf != NULL);
      fail_unless_equals_uint64 (cs_stat (sink, "lent"), lent + 1);
      gst_buffer_unref (buf);
    } else {
      fail_unless_equals_int (ret, GST_FLOW_ERROR);
      fail_unless (buf == NULL);
      fail_unless_equals_uint64 (cs_stat (sink, "lent"), lent);
      errors++;
    }
  }
  fail_unless (!consumed, "an acquire makes 50 pushes or more");
  fail_unless (errors > 0, "no acquire failed");
  /* no frame was lost to a failure */
  for (i = 0; i < HELD; i++)
    fail_unless_equals_int (gst_buffer_pool_acquire_buffer (pool, &bufs[i],
            &dontwait), GST_FLOW_OK);
  fail_unless_equals_int (gst_buffer_pool_acquire_buffer (pool, &buf,
          &dontwait), GST_FLOW_EOS);
  fail_unless (cs_stat (sink, "buffers-allocated") <= HELD);
  for (i = 0; i < HELD; i++)
    gst_buffer_unref (bufs[i]);
  fail_unless (gst_buffer_pool_set_active (pool, FALSE));
  gst_object_unref (pool);
  gst_element_set_state (p, GST_STATE_NULL);
  gst_object_unref (sink);
  gst_object_unref (p);
out:
  g_free (path);
}

GST_END_TEST;

static GstElement *
collecting (GstElement * pipeline, GPtrArray * frames)
{
  GstElement *out = gst_bin_get_by_name (GST_BIN (pipeline), "out");

  g_object_set (out, "emit-signals", TRUE, NULL);
  g_signal_connect (out, "new-sample", G_CALLBACK (cs_collect_sample), frames);
  return out;
}

/* @dec (CUDA frames) into the sink's frames, to a source in this process,
 * against @dec ! cudadownload */
static void
decode_in_place (const gchar * dec, gint w, gint h, gint fps, guint n)
{
  gchar *clip = cs_make_h264_clip (w, h, fps, n, "high", TRUE);
  gchar *path = g_strdup_printf ("%s/cudaipc-dec%d.sock", g_get_tmp_dir (),
      getpid ());
  gchar *ref_desc = g_strdup_printf ("filesrc location=\"%s\" ! h264parse ! "
      "%s ! cudadownload ! appsink name=out sync=false", clip, dec);
  gchar *fmt = g_strdup_printf ("filesrc location=\"%s\" ! h264parse ! "
      "%s ! cudasyncipcsink name=sink max-buffers=4 sync=false "
      "socket-path=%%s", clip, dec);
  GPtrArray *want = g_ptr_array_new_with_free_func ((GDestroyNotify)
      g_bytes_unref);
  GPtrArray *got = g_ptr_array_new_with_free_func ((GDestroyNotify)
      g_bytes_unref);
  GstElement *ref = gst_parse_launch (ref_desc, NULL), *sp, *ap, *sink, *out;
  GstBus *bus;
  gchar *err;
  gint64 end;
  guint i;

  fail_unless (ref != NULL, "%s", ref_desc);
  out = collecting (ref, want);
  cs_run_pipeline (ref);
  gst_object_unref (out);
  fail_unless_equals_int (want->len, n);

  sp = ipc_pipeline (fmt, path, "sink");
  ap = ipc_pipeline ("cudasyncipcsrc name=src socket-path=%s io-mode=import "
      "! cudadownload ! appsink name=out sync=false", path, "src");
  sink = gst_bin_get_by_name (GST_BIN (sp), "sink");
  out = collecting (ap, got);
  /* the sink prerolls, the source connects, then the frames flow */
  fail_unless (gst_element_set_state (sp, GST_STATE_PAUSED) !=
      GST_STATE_CHANGE_FAILURE);
  fail_unless (gst_element_set_state (ap, GST_STATE_PLAYING) !=
      GST_STATE_CHANGE_FAILURE);
  fail_unless_equals_uint64 (ipc_wait_stat (sink, "sessions", 1), 1);
  cs_run_pipeline (sp);
  end = g_get_monotonic_time () + 10 * G_USEC_PER_SEC;
  while (got->len < n && g_get_monotonic_time () < end)
    g_usleep (10000);
  bus = gst_element_get_bus (ap);
  err = cs_pop_error (bus, NULL, NULL);
  fail_unless (err == NULL, "the source: %s", err);
  gst_object_unref (bus);
  gst_element_set_state (ap, GST_STATE_NULL);
  fail_unless_equals_int (got->len, n);
  for (i = 0; i < n; i++)
    fail_unless (g_bytes_equal (g_ptr_array_index (got, i),
            g_ptr_array_index (want, i)), "%dx%d: frame %u differs", w, h, i);
  fail_unless_equals_uint64 (cs_stat (sink, "frames-sent"), n);
  fail_unless_equals_uint64 (cs_stat (sink, "inputs-in-place"),
      GST_CHECK_VERSION (1, 24, 0) ? n : 0);
  fail_unless_equals_uint64 (cs_stat (sink, "copies"),
      GST_CHECK_VERSION (1, 24, 0) ? 0 : n);
  /* the stop's one wait for the sink's stream, before freeing the memory */
  fail_unless_equals_uint64 (cs_stat (sink, "cpu-syncs"), 1);

  gst_object_unref (out);
  gst_object_unref (sink);
  gst_object_unref (ap);
  gst_object_unref (sp);
  gst_object_unref (ref);
  g_ptr_array_unref (want);
  g_ptr_array_unref (got);
  g_free (fmt);
  g_free (ref_desc);
  g_free (path);
  cs_remove_clip (clip);
}

GST_START_TEST (test_decode_in_place)
{
  const gchar *dec = cs_h264_cuda_decoder ("test_decode_in_place");

  if (!dec)
    return;
  decode_in_place (dec, 642, 362, 30, 30);
  decode_in_place (dec, 1280, 720, 60, 30);
  decode_in_place (dec, 3840, 2160, 30, 12);
}

GST_END_TEST;

static Suite *
cudaipcpool_suite (void)
{
  Suite *s = suite_create ("cudaipcpool");
  TCase *tc = tcase_create ("general");

  tcase_add_checked_fixture (tc, cs_setup, cs_teardown);
  tcase_add_test (tc, test_pool_full_drop);
  tcase_add_test (tc, test_pool_full_wait_stop);
  tcase_add_test (tc, test_pool_proposal);
  tcase_add_test (tc, test_pool_lend_failures);
  tcase_add_test (tc, test_decode_in_place);
  suite_add_tcase (s, tc);
  return s;
}

IPC_CHECK_MAIN (cudaipcpool);

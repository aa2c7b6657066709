/* gst-cudasync: the bridge elements when downstream holds their buffers
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Tests:
 * - test_v2c_hold: downstream of vulkantocuda (an appsink) holds 1, 63, 64,
 *   65 and 200 buffers before it gives them all back; the element waits at
 *   its bound (64: exactly 64 held, never more) instead of failing or
 *   allocating, and every frame, read when it is given back, is
 *   byte-exact. Its frames come from cudatovulkan (V2C_UPSTREAM), as
 *   those of the flush and stop checks.
 * - test_c2v_hold: the same downstream of cudatovulkan (a pad probe holds
 *   its output frames, vulkandownload reads them), RGBA (written in place
 *   on 1.24+) and NV12 (copied): waits at 32 frames.
 * - test_max_buffers: downstream's max-buffers in the ALLOCATION query is
 *   the bound (24 for vulkantocuda, 8 for cudatovulkan).
 * - test_flush_while_waiting: a flushing seek while the streaming thread
 *   waits for downstream: no hang; the stream restarts and all frames are
 *   byte-exact.
 * - test_stop_while_waiting: set to NULL while it waits: no hang, the held
 *   buffers stay readable and byte-exact after the stop, nothing leaks
 *   (simulator: external memory, allocations, events).
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include "common.h"
#include "vkcommon.h"
#include "vkutil.h"

#include <gst/app/app.h>

#define N_FRAMES 150
#define V2C_BOUND 64
#define C2V_BOUND 32
/* a wait that long with no new buffer: the element does not produce more */
#define SETTLE_US (300 * G_TIME_SPAN_MILLISECOND)

typedef struct
{
  GMutex lock;
  GCond cond;
  GPtrArray *held;              /* GstBuffer */
  gboolean eos;
  guint max_held;
  /* read the held buffers' bytes when giving them back (CUDA memory) */
  gboolean read;
  gboolean have_info;
  GstVideoInfo info;
  GPtrArray *frames;            /* GBytes: read ones, or the appsink's */
  guint stalls;                 /* times the element waited at its bound */
  gint peak_extmem;             /* simulator: imported memories alive */
  gint peak_alloc;              /* simulator: allocations alive */
} Holder;

static void
holder_init (Holder * h, gboolean read)
{
  memset (h, 0, sizeof (*h));
  g_mutex_init (&h->lock);
  g_cond_init (&h->cond);
  h->held = g_ptr_array_new ();
  h->frames = g_ptr_array_new_with_free_func ((GDestroyNotify) g_bytes_unref);
  h->read = read;
}

static void
holder_clear (Holder * h)
{
  fail_unless_equals_int (h->held->len, 0);
  g_ptr_array_unref (h->held);
  g_ptr_array_unref (h->frames);
  g_mutex_clear (&h->lock);
  g_cond_clear (&h->cond);
}

static void
holder_add (Holder * h, GstBuffer * buf)
{
  gint extmem = cs_sim_live ("extmem"), alloc = cs_sim_live ("alloc");

  g_mutex_lock (&h->lock);
  g_ptr_array_add (h->held, gst_buffer_ref (buf));
  h->max_held = MAX (h->max_held, h->held->len);
  h->peak_extmem = MAX (h->peak_extmem, extmem);
  h->peak_alloc = MAX (h->peak_alloc, alloc);
  g_cond_broadcast (&h->cond);
  g_mutex_unlock (&h->lock);
}

/* gives back every held buffer (reading it first with h->read) */
static void
holder_release (Holder * h)
{
  GPtrArray *held;
  guint i;

  g_mutex_lock (&h->lock);
  held = h->held;
  h->held = g_ptr_array_new ();
  g_mutex_unlock (&h->lock);
  for (i = 0; i < held->len; i++) {
    GstBuffer *buf = g_ptr_array_index (held, i);

    if (h->read)
      g_ptr_array_add (h->frames, cs_buffer_bytes (buf, &h->info));
    gst_buffer_unref (buf);
  }
  g_ptr_array_unref (held);
}

static GstFlowReturn
hold_sample (GstAppSink * sink, gpointer data)
{
  Holder *h = data;
  GstSample *sample = gst_app_sink_pull_sample (sink);

  fail_unless (sample != NULL);
  if (h->read && !h->have_info) {
    fail_unless (gst_video_info_from_caps (&h->info,
            gst_sample_get_caps (sample)));
    h->have_info = TRUE;
  }
  holder_add (h, gst_sample_get_buffer (sample));
  gst_sample_unref (sample);
  return GST_FLOW_OK;
}

static void
sink_eos (GstAppSink * sink, gpointer data)
{
  Holder *h = data;

  g_mutex_lock (&h->lock);
  h->eos = TRUE;
  g_cond_broadcast (&h->cond);
  g_mutex_unlock (&h->lock);
}

static GstPadProbeReturn
hold_probe (GstPad * pad, GstPadProbeInfo * info, gpointer data)
{
  holder_add (data, GST_PAD_PROBE_INFO_BUFFER (info));
  return GST_PAD_PROBE_OK;
}

/* appsink "sink": holds its buffers in @h (@collect NULL), or collects
 * their bytes into @collect while @h holds what a probe gives it */
static void
connect_sink (GstElement * pipeline, Holder * h, GPtrArray * collect)
{
  GstElement *sink = gst_bin_get_by_name (GST_BIN (pipeline), "sink");
  GstAppSinkCallbacks cb = { 0, };

  fail_unless (sink != NULL);
  cb.eos = sink_eos;
  cb.new_sample = collect ? NULL : hold_sample;
  gst_app_sink_set_callbacks (GST_APP_SINK (sink), &cb, h, NULL);
  if (collect) {
    g_object_set (sink, "emit-signals", TRUE, NULL);
    g_signal_connect (sink, "new-sample", G_CALLBACK (cs_collect_sample),
        collect);
  }
  gst_object_unref (sink);
}

static void
probe_element (GstElement * pipeline, const gchar * name, Holder * h)
{
  GstElement *e = gst_bin_get_by_name (GST_BIN (pipeline), name);
  GstPad *pad = gst_element_get_static_pad (e, "src");

  gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER, hold_probe, h, NULL);
  gst_object_unref (pad);
  gst_object_unref (e);
}

static void
fail_on_bus_error (GstBus * bus, const gchar * what)
{
  GstMessage *msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);

  if (msg) {
    GError *err = NULL;
    gchar *dbg = NULL;

    gst_message_parse_error (msg, &err, &dbg);
    fail ("%s: error from %s: %s (%s)", what, GST_OBJECT_NAME (msg->src),
        err->message, dbg ? dbg : "");
  }
}

/* Waits until @h holds @n buffers or EOS came; FALSE at EOS */
static gboolean
wait_held (Holder * h, guint n, GstBus * bus, const gchar * what)
{
  gint64 end = g_get_monotonic_time () + 60 * G_TIME_SPAN_SECOND;
  gboolean eos;

  g_mutex_lock (&h->lock);
  while (h->held->len < n && !h->eos) {
    g_mutex_unlock (&h->lock);
    fail_on_bus_error (bus, what);
    g_mutex_lock (&h->lock);
    if (!g_cond_wait_until (&h->cond, &h->lock, MIN (end,
                g_get_monotonic_time () + 100 * G_TIME_SPAN_MILLISECOND)) &&
        g_get_monotonic_time () >= end)
      fail ("%s: %u buffers held, waited for %u", what, h->held->len, n);
  }
  eos = h->eos;
  g_mutex_unlock (&h->lock);
  return !eos;
}

/* Downstream holds @k buffers, then gives them all back, until EOS. With
 * @k above the element's @bound the element must stop at exactly @bound
 * buffers held (waiting, not failing, not allocating more) and go on once
 * they come back. */
static void
hold_until_eos (Holder * h, GstElement * pipeline, guint k, guint bound,
    const gchar * what)
{
  GstBus *bus = gst_element_get_bus (pipeline);

  while (wait_held (h, MIN (k, bound), bus, what)) {
    if (k > bound) {
      g_usleep (SETTLE_US);
      g_mutex_lock (&h->lock);
      fail_unless_equals_int (h->held->len, bound);
      g_mutex_unlock (&h->lock);
      h->stalls++;
    }
    holder_release (h);
  }
  holder_release (h);
  fail_on_bus_error (bus, what);
  gst_object_unref (bus);
}

static gchar *
src_desc (const gchar * format, gint w, gint h, guint n)
{
  return g_strdup_printf ("videotestsrc num-buffers=%u pattern=ball ! "
      "video/x-raw,format=%s,width=%d,height=%d,framerate=120/1", n, format,
      w, h);
}

static GPtrArray *
reference_frames (const gchar * format, gint w, gint h, guint n)
{
  gchar *src = src_desc (format, w, h, n);
  gchar *desc = g_strdup_printf ("%s ! appsink name=sink sync=false "
      "emit-signals=true", src);
  GPtrArray *frames = g_ptr_array_new_with_free_func ((GDestroyNotify)
      g_bytes_unref);
  GstElement *pipeline = cs_vk_parse_launch (desc, NULL);
  GstElement *sink = gst_bin_get_by_name (GST_BIN (pipeline), "sink");
  gchar *err;

  g_signal_connect (sink, "new-sample", G_CALLBACK (cs_collect_sample), frames);
  gst_object_unref (sink);
  err = cs_play_to_end (pipeline);
  fail_unless (err == NULL, "%s", err);
  gst_object_unref (pipeline);
  g_free (desc);
  g_free (src);
  return frames;
}

/* -1, or the index of the reference frame that @bytes equal: a frame
 * with another frame's bytes was read too early or too late */
static gint
find_frame (GPtrArray * want, GBytes * bytes)
{
  guint i;

  for (i = 0; i < want->len; i++)
    if (g_bytes_equal (g_ptr_array_index (want, i), bytes))
      return i;
  return -1;
}

static guint
bytes_differing (GBytes * a, GBytes * b)
{
  gsize i, n = MIN (g_bytes_get_size (a), g_bytes_get_size (b));
  const guint8 *x = g_bytes_get_data (a, NULL), *y = g_bytes_get_data (b, NULL);
  guint d = 0;

  for (i = 0; i < n; i++)
    d += x[i] != y[i];
  return d;
}

static void
assert_frames (GPtrArray * got, GPtrArray * want, const gchar * what)
{
  guint i, bad = 0, first = 0;

  fail_unless_equals_int (got->len, want->len);
  for (i = 0; i < got->len; i++) {
    if (g_bytes_equal (g_ptr_array_index (got, i), g_ptr_array_index (want, i)))
      continue;
    if (bad++ == 0)
      first = i;
  }
  fail_unless (bad == 0, "%s: frame %u differs (%u of %u frames differ; it "
      "has reference frame %d's bytes; %u of %" G_GSIZE_FORMAT " bytes "
      "differ)", what, first, bad, got->len, find_frame (want,
          g_ptr_array_index (got, first)),
      bytes_differing (g_ptr_array_index (got, first),
          g_ptr_array_index (want, first)),
      g_bytes_get_size (g_ptr_array_index (want, first)));
}

static GstElement *
launch (const gchar * desc)
{
  GError *err = NULL;
  GstElement *pipeline = cs_vk_parse_launch (desc, &err);
  GstBus *bus;

  fail_unless (pipeline != NULL, "%s: %s", desc, err ? err->message : "?");
  bus = gst_element_get_bus (pipeline);
  gst_bus_set_sync_handler (bus, cs_share_context, NULL, NULL);
  gst_object_unref (bus);
  return pipeline;
}

static void
stop (GstElement * pipeline)
{
  vk_util_drain_pipeline (pipeline);
  fail_unless_equals_int (gst_element_set_state (pipeline, GST_STATE_NULL),
      GST_STATE_CHANGE_SUCCESS);
  gst_object_unref (pipeline);
}

/* On the simulator: the memory alive stayed within the bound, @peak and
 * @base of the same kind (imported: frames or staging buffers; allocated:
 * CUDA copies) */
static void
assert_bounded (gint peak, gint base, guint bound, const gchar * what)
{
  if (!cs_is_sim)
    return;
  fail_unless (peak - base <= (gint) bound,
      "%s: %d memories alive at the peak, bound %u", what, peak - base, bound);
}

/* downstream held at most what the element has, all of it when it holds
 * that many */
static void
assert_max_held (Holder * h, guint k, guint bound)
{
  if (k >= bound) {
    fail_unless_equals_int (h->max_held, bound);
  } else {
    fail_unless (h->max_held >= k && h->max_held <= bound,
        "%u held at most, holding %u, bound %u", h->max_held, k, bound);
  }
}

static const guint holds[] = { 1, 63, 64, 65, 200 };

/* vulkanupload lets its staging buffer go before its copy out of it has
 * run (docs/known-issues.md): with a consumer that holds the frames it can
 * hand out a later frame's bytes. The frames held after vulkantocuda come
 * from cudatovulkan, as NV12, which vulkantocuda copies (RGBA would be
 * read in place, under cudatovulkan's bound). */
#define V2C_UPSTREAM "cudaupload ! cudatovulkan"
#define V2C_FORMAT "NV12"

static void
check_v2c_hold (const gchar * via, const gchar * format, guint k)
{
  gchar *src = src_desc (format, 64, 48, N_FRAMES);
  gchar *desc = g_strdup_printf ("%s ! %s ! vulkantocuda name=v2c ! "
      "video/x-raw(memory:CUDAMemory) ! queue max-size-buffers=0 "
      "max-size-bytes=0 max-size-time=0 ! appsink name=sink sync=false", src,
      via);
  gchar *what = g_strdup_printf ("%s holding %u", desc, k);
  GPtrArray *want = reference_frames (format, 64, 48, N_FRAMES);
  gint extmem = cs_sim_live ("extmem"), alloc = cs_sim_live ("alloc");
  GstElement *pipeline = launch (desc), *v2c;
  Holder h;

  holder_init (&h, TRUE);
  connect_sink (pipeline, &h, NULL);
  fail_if (gst_element_set_state (pipeline, GST_STATE_PLAYING) ==
      GST_STATE_CHANGE_FAILURE);
  hold_until_eos (&h, pipeline, k, V2C_BOUND, what);
  assert_frames (h.frames, want, what);
  assert_max_held (&h, k, V2C_BOUND);
  if (k > V2C_BOUND)
    fail_unless (h.stalls > 0);
  /* wrapped staging buffers (1.24+), or staging buffers and CUDA copies;
   * a cudatovulkan upstream: its frames too (NV12: two memories each) */
  assert_bounded (h.peak_extmem, extmem, V2C_BOUND + 2 * C2V_BOUND, what);
  assert_bounded (h.peak_alloc, alloc, V2C_BOUND + 16, what);
  v2c = gst_bin_get_by_name (GST_BIN (pipeline), "v2c");
  fail_unless_equals_uint64 (cs_stat (v2c, "buffers"), N_FRAMES);
  gst_object_unref (v2c);
  stop (pipeline);
  holder_clear (&h);
  g_ptr_array_unref (want);
  g_free (what);
  g_free (desc);
  g_free (src);
}

GST_START_TEST (test_v2c_hold)
{
  guint i;

  for (i = 0; i < G_N_ELEMENTS (holds); i++)
    check_v2c_hold (V2C_UPSTREAM, V2C_FORMAT, holds[i]);
}

GST_END_TEST;

static void
check_c2v_hold (const gchar * format, guint k)
{
  gchar *src = src_desc (format, 64, 48, N_FRAMES);
  gchar *desc = g_strdup_printf ("%s ! cudaupload ! cudatovulkan name=c2v ! "
      "queue max-size-buffers=0 max-size-bytes=0 max-size-time=0 ! "
      "vulkandownload ! video/x-raw ! appsink name=sink sync=false", src);
  gchar *what = g_strdup_printf ("%s holding %u", desc, k);
  GPtrArray *want = reference_frames (format, 64, 48, N_FRAMES);
  GPtrArray *got = g_ptr_array_new_with_free_func ((GDestroyNotify)
      g_bytes_unref);
  gint extmem = cs_sim_live ("extmem");
  GstElement *pipeline = launch (desc);
  Holder h;

  holder_init (&h, FALSE);
  connect_sink (pipeline, &h, got);
  probe_element (pipeline, "c2v", &h);
  fail_if (gst_element_set_state (pipeline, GST_STATE_PLAYING) ==
      GST_STATE_CHANGE_FAILURE);
  hold_until_eos (&h, pipeline, k, C2V_BOUND, what);
  /* vulkandownload may still be on its way to the appsink */
  fail_unless (gst_element_get_state (pipeline, NULL, NULL,
          GST_CLOCK_TIME_NONE) == GST_STATE_CHANGE_SUCCESS);
  assert_frames (got, want, what);
  assert_max_held (&h, k, C2V_BOUND);
  /* one imported memory per plane */
  assert_bounded (h.peak_extmem, extmem, C2V_BOUND * (g_str_equal (format,
              "NV12") ? 2 : 1), what);
  stop (pipeline);
  holder_clear (&h);
  g_ptr_array_unref (got);
  g_ptr_array_unref (want);
  g_free (what);
  g_free (desc);
  g_free (src);
}

GST_START_TEST (test_c2v_hold)
{
  static const guint c2v_holds[] = { 1, 31, 32, 33, 200 };
  guint i;

  for (i = 0; i < G_N_ELEMENTS (c2v_holds); i++) {
    check_c2v_hold ("RGBA", c2v_holds[i]);
    check_c2v_hold ("NV12", c2v_holds[i]);
  }
}

GST_END_TEST;

/* An ALLOCATION query answer with max-buffers @max on the appsink's pad */
static GstPadProbeReturn
answer_max (GstPad * pad, GstPadProbeInfo * info, gpointer data)
{
  GstQuery *query = GST_PAD_PROBE_INFO_QUERY (info);

  if (GST_QUERY_TYPE (query) != GST_QUERY_ALLOCATION)
    return GST_PAD_PROBE_OK;
  gst_query_add_allocation_pool (query, NULL, 0, 0, GPOINTER_TO_UINT (data));
  return GST_PAD_PROBE_HANDLED;
}

/* @answerer's sink pad answers the ALLOCATION query with max-buffers @max;
 * then downstream holds 200 buffers: the appsink "sink" holds them
 * (@holder NULL), or a probe on @holder's output does while the appsink
 * collects the frames. The element stops at @max held. */
static void
check_max_buffers (const gchar * desc, const gchar * answerer,
    const gchar * holder, guint max)
{
  GstElement *pipeline = launch (desc);
  GstElement *e = gst_bin_get_by_name (GST_BIN (pipeline), answerer);
  GstPad *pad = gst_element_get_static_pad (e, "sink");
  Holder h;

  holder_init (&h, holder == NULL);
  gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_QUERY_DOWNSTREAM, answer_max,
      GUINT_TO_POINTER (max), NULL);
  gst_object_unref (pad);
  gst_object_unref (e);
  connect_sink (pipeline, &h, holder ? h.frames : NULL);
  if (holder)
    probe_element (pipeline, holder, &h);
  fail_if (gst_element_set_state (pipeline, GST_STATE_PLAYING) ==
      GST_STATE_CHANGE_FAILURE);
  hold_until_eos (&h, pipeline, 200, max, desc);
  fail_unless_equals_int (h.max_held, max);
  fail_unless (gst_element_get_state (pipeline, NULL, NULL,
          GST_CLOCK_TIME_NONE) == GST_STATE_CHANGE_SUCCESS);
  fail_unless_equals_int (h.frames->len, N_FRAMES);
  stop (pipeline);
  holder_clear (&h);
}

GST_START_TEST (test_max_buffers)
{
  gchar *src = src_desc ("RGBA", 64, 48, N_FRAMES);
  gchar *v2c = g_strdup_printf ("%s ! vulkanupload ! vulkantocuda name=v2c ! "
      "video/x-raw(memory:CUDAMemory) ! appsink name=sink sync=false", src);
  /* vulkandownload forwards no ALLOCATION query upstream: identity, in
   * passthrough, answers it in its place */
  gchar *c2v = g_strdup_printf ("%s ! cudaupload ! cudatovulkan name=c2v ! "
      "identity name=answer ! vulkandownload ! appsink name=sink sync=false",
      src);

  check_max_buffers (v2c, "sink", NULL, 24);
  check_max_buffers (c2v, "answer", "c2v", 8);
  g_free (v2c);
  g_free (c2v);
  g_free (src);
}

GST_END_TEST;

/* vulkantocuda (or cudatovulkan) waits for downstream to give a buffer
 * back; then @interrupt, from this thread */
static void
check_interrupted (const gchar * via, const gchar * format, gboolean seek)
{
  gchar *src = src_desc (format, 64, 48, N_FRAMES);
  gchar *desc = g_strdup_printf ("%s ! %s ! video/x-raw(memory:CUDAMemory) "
      "! appsink name=sink sync=false", src, via);
  GPtrArray *want = reference_frames (format, 64, 48, N_FRAMES);
  gint ext = cs_sim_live ("extmem"), alloc = cs_sim_live ("alloc");
  gint events = cs_sim_live ("event");
  GstElement *pipeline = launch (desc);
  GstBus *bus = gst_element_get_bus (pipeline);
  Holder h;
  guint i;

  holder_init (&h, TRUE);
  connect_sink (pipeline, &h, NULL);
  fail_if (gst_element_set_state (pipeline, GST_STATE_PLAYING) ==
      GST_STATE_CHANGE_FAILURE);
  /* the element now waits for a buffer downstream holds */
  fail_unless (wait_held (&h, V2C_BOUND, bus, desc));
  g_usleep (SETTLE_US);
  fail_unless_equals_int (h.held->len, V2C_BOUND);
  if (seek) {
    GPtrArray *before;

    /* a flushing seek to the start wakes it; the stream starts again and
     * waits again at the bound, until the buffers come back */
    fail_unless (gst_element_seek_simple (pipeline, GST_FORMAT_TIME,
            GST_SEEK_FLAG_FLUSH, 0));
    holder_release (&h);
    fail_unless (gst_element_get_state (pipeline, NULL, NULL,
            30 * GST_SECOND) == GST_STATE_CHANGE_SUCCESS);
    /* what was pushed before the seek: the first V2C_BOUND frames */
    before = h.frames;
    for (i = 0; i < before->len; i++)
      fail_unless (g_bytes_equal (g_ptr_array_index (before, i),
              g_ptr_array_index (want, i)), "frame %u before the seek", i);
    h.frames = g_ptr_array_new_with_free_func ((GDestroyNotify)
        g_bytes_unref);
    g_ptr_array_unref (before);
    hold_until_eos (&h, pipeline, 1, V2C_BOUND, desc);
    /* the frames after the seek start at 0 again; videotestsrc counts
     * num-buffers across the seek: the 64 pushed and the one the element
     * waited with, which the flush dropped */
    fail_unless_equals_int (h.frames->len, N_FRAMES - V2C_BOUND - 1);
    g_ptr_array_set_size (want, h.frames->len);
    assert_frames (h.frames, want, desc);
    stop (pipeline);
  } else {
    /* a stop wakes it; the held buffers outlive the pipeline */
    fail_unless_equals_int (gst_element_set_state (pipeline,
            GST_STATE_NULL), GST_STATE_CHANGE_SUCCESS);
    gst_object_unref (pipeline);
    holder_release (&h);
    fail_unless_equals_int (h.frames->len, V2C_BOUND);
    for (i = 0; i < V2C_BOUND; i++)
      fail_unless (g_bytes_equal (g_ptr_array_index (h.frames, i),
              g_ptr_array_index (want, i)), "held frame %u after the stop", i);
  }
  gst_object_unref (bus);
  holder_clear (&h);
  if (cs_is_sim) {
    gst_cuda_sync_wait_idle ();
    cs_sim.drain ();
    fail_unless_equals_int (cs_sim_live ("extmem"), ext);
    fail_unless_equals_int (cs_sim_live ("alloc"), alloc);
    fail_unless_equals_int (cs_sim_live ("event"), events);
  }
  g_ptr_array_unref (want);
  g_free (desc);
  g_free (src);
}

GST_START_TEST (test_flush_while_waiting)
{
  check_interrupted (V2C_UPSTREAM " ! vulkantocuda", V2C_FORMAT, TRUE);
}

GST_END_TEST;

GST_START_TEST (test_stop_while_waiting)
{
  check_interrupted (V2C_UPSTREAM " ! vulkantocuda", V2C_FORMAT, FALSE);
  check_interrupted ("cudaupload ! cudatovulkan ! vulkantocuda", "RGBA", FALSE);
}

GST_END_TEST;

static Suite *
cudavkhold_suite (void)
{
  Suite *s = suite_create ("cudavkhold");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_checked_fixture (tc, cs_vk_setup, cs_vk_teardown);
  tcase_add_test (tc, test_v2c_hold);
  tcase_add_test (tc, test_c2v_hold);
  tcase_add_test (tc, test_max_buffers);
  tcase_add_test (tc, test_flush_while_waiting);
  tcase_add_test (tc, test_stop_while_waiting);
  return s;
}

int
main (int argc, char **argv)
{
  gst_check_init (&argc, &argv);
  return cs_vk_run_suite (cudavkhold_suite (), "cudavkhold", __FILE__);
}

/* gst-cudasync test helpers
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "common.h"
#include <string.h>

GstCudaContext *cs_ctx = NULL;
CudasimApi cs_sim;
gboolean cs_is_sim = FALSE;

static gint baseline_extsem, baseline_stream, baseline_event;

void
cs_setup (void)
{
  GError *err = NULL;

  fail_unless (gst_cuda_load_library (), "upstream libgstcuda cannot load libcuda.so.1");
  gst_cuda_memory_init_once ();
  fail_unless (gst_cuda_sync_init (&err), "gst_cuda_sync_init: %s",
      err ? err->message : "?");
  cs_is_sim = cudasim_lookup (&cs_sim);
  fail_if (test_sem_backend () == TEST_SEM_BACKEND_NONE,
      "no way to create external semaphores: %s", test_sem_backend_name ());

  cs_ctx = gst_cuda_context_new (0);
  fail_unless (cs_ctx != NULL);

  if (cs_is_sim) {
    cs_sim.set_violation_mode (1);
    cs_sim.drain ();
    cs_sim.reset_counters ();
    cs_sim.clear_failures ();
    cs_sim.set_delay_us (NULL, 0);
    baseline_extsem = cs_sim.live_objects ("extsem");
    baseline_stream = cs_sim.live_objects ("stream");
    baseline_event = cs_sim.live_objects ("event");
  }
}

void
cs_teardown (void)
{
  gst_cuda_sync_wait_idle ();
  if (cs_is_sim) {
    cs_sim.drain ();
    gst_cuda_sync_wait_idle ();
    cs_sim.clear_failures ();
    cs_sim.set_delay_us (NULL, 0);
    fail_unless_equals_int (cs_sim.violation_count (), 0);
    /* everything the test created through the library is gone */
    fail_unless_equals_int (cs_sim.live_objects ("extsem"), baseline_extsem);
    fail_unless_equals_int (cs_sim.live_objects ("stream"), baseline_stream);
    fail_unless_equals_int (cs_sim.live_objects ("event"), baseline_event);
  }
  gst_clear_object (&cs_ctx);
}

GstCudaSemaphore *
cs_new_semaphore (GstCudaContext * ctx, gboolean timeline, TestSem ** ts_out)
{
  TestSem *ts = test_sem_new (timeline, 0);
  GstCudaSemaphore *sem;
  GError *err = NULL;
  gint fd;

  fail_unless (ts != NULL);
  fd = test_sem_export_fd (ts);
  fail_unless (fd >= 0);
  sem = gst_cuda_semaphore_import_fd (ctx ? ctx : cs_ctx, timeline ?
      GST_CUDA_SEMAPHORE_HANDLE_TYPE_TIMELINE_FD :
      GST_CUDA_SEMAPHORE_HANDLE_TYPE_OPAQUE_FD, fd, &err);
  fail_unless (sem != NULL, "import: %s", err ? err->message : "?");
  if (ts_out)
    *ts_out = ts;
  else
    test_sem_free (ts);
  return sem;
}

GstCaps *
cs_caps (const gchar * format, gint width, gint height)
{
  GstCaps *caps = gst_caps_new_simple ("video/x-raw", "format", G_TYPE_STRING,
      format, "width", G_TYPE_INT, width, "height", G_TYPE_INT, height,
      "framerate", GST_TYPE_FRACTION, 30, 1, NULL);
  gst_caps_set_features (caps, 0,
      gst_caps_features_new (GST_CAPS_FEATURE_MEMORY_CUDA_MEMORY, NULL));
  return caps;
}

GstBufferPool *
cs_new_pool (GstCaps * caps)
{
  GstBufferPool *pool = gst_cuda_buffer_pool_new (cs_ctx);
  GstStructure *config = gst_buffer_pool_get_config (pool);
  GstVideoInfo info;

  fail_unless (gst_video_info_from_caps (&info, caps));
  gst_buffer_pool_config_set_params (config, caps, info.size, 0, 0);
  gst_buffer_pool_config_add_option (config, GST_BUFFER_POOL_OPTION_VIDEO_META);
  fail_unless (gst_buffer_pool_set_config (pool, config));
  fail_unless (gst_buffer_pool_set_active (pool, TRUE));
  return pool;
}

GBytes *
cs_pattern_bytes (const GstVideoInfo * info, guint8 seed)
{
  GByteArray *arr = g_byte_array_new ();
  guint p, x, y;

  for (p = 0; p < GST_VIDEO_INFO_N_PLANES (info); p++) {
    guint w = GST_VIDEO_INFO_COMP_WIDTH (info, p) *
        GST_VIDEO_INFO_COMP_PSTRIDE (info, p);
    guint h = GST_VIDEO_INFO_COMP_HEIGHT (info, p);
    if (GST_VIDEO_INFO_FORMAT (info) == GST_VIDEO_FORMAT_NV12 && p == 1)
      w = GST_ROUND_UP_2 (GST_VIDEO_INFO_WIDTH (info));
    for (y = 0; y < h; y++) {
      for (x = 0; x < w; x++) {
        guint8 v = (guint8) (seed + p * 31 + y * 7 + x);
        g_byte_array_append (arr, &v, 1);
      }
    }
  }
  return g_byte_array_free_to_bytes (arr);
}

static guint
plane_row_bytes (const GstVideoInfo * info, guint p)
{
  if (GST_VIDEO_INFO_FORMAT (info) == GST_VIDEO_FORMAT_NV12 && p == 1)
    return GST_ROUND_UP_2 (GST_VIDEO_INFO_WIDTH (info));
  return GST_VIDEO_INFO_COMP_WIDTH (info, p) *
      GST_VIDEO_INFO_COMP_PSTRIDE (info, p);
}

GstBuffer *
cs_new_buffer (GstBufferPool * pool, guint8 seed)
{
  GstBuffer *buf = NULL;
  GstVideoFrame frame;
  GstVideoInfo info;
  GstStructure *config = gst_buffer_pool_get_config (pool);
  GstCaps *caps;
  GBytes *pattern;
  const guint8 *src;
  GstMapInfo map;
  guint p, y;

  gst_buffer_pool_config_get_params (config, &caps, NULL, NULL, NULL);
  fail_unless (gst_video_info_from_caps (&info, caps));
  gst_structure_free (config);

  fail_unless_equals_int (gst_buffer_pool_acquire_buffer (pool, &buf, NULL),
      GST_FLOW_OK);
  fail_unless (gst_video_frame_map (&frame, &info, buf, GST_MAP_WRITE));
  pattern = cs_pattern_bytes (&info, seed);
  src = g_bytes_get_data (pattern, NULL);
  for (p = 0; p < GST_VIDEO_FRAME_N_PLANES (&frame); p++) {
    guint rb = plane_row_bytes (&info, p);
    for (y = 0; y < (guint) GST_VIDEO_INFO_COMP_HEIGHT (&info, p); y++) {
      memcpy ((guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&frame, p) +
          y * GST_VIDEO_FRAME_PLANE_STRIDE (&frame, p), src, rb);
      src += rb;
    }
  }
  gst_video_frame_unmap (&frame);
  g_bytes_unref (pattern);

  /* push the data to device memory now (a synchronous copy) and mark the
   * device copy as the current one, like cudaupload's output: a later CPU
   * map downloads from the device */
  fail_unless (gst_buffer_map (buf, &map, GST_MAP_READWRITE | GST_MAP_CUDA));
  gst_buffer_unmap (buf, &map);
  return buf;
}

GBytes *
cs_buffer_bytes (GstBuffer * buf, const GstVideoInfo * info)
{
  GByteArray *arr = g_byte_array_new ();
  GstVideoFrame frame;
  guint p, y;

  fail_unless (gst_video_frame_map (&frame, (GstVideoInfo *) info, buf,
          GST_MAP_READ));
  for (p = 0; p < GST_VIDEO_FRAME_N_PLANES (&frame); p++) {
    guint rb = plane_row_bytes (info, p);
    for (y = 0; y < (guint) GST_VIDEO_INFO_COMP_HEIGHT (info, p); y++)
      g_byte_array_append (arr, (guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&frame,
              p) + y * GST_VIDEO_FRAME_PLANE_STRIDE (&frame, p), rb);
  }
  gst_video_frame_unmap (&frame);
  return g_byte_array_free_to_bytes (arr);
}

void
cs_set_cuda_context (GstElement * element, GstCudaContext * ctx)
{
  GstContext *c = gst_context_new_cuda_context (ctx);
  gst_element_set_context (element, c);
  gst_context_unref (c);
}

guint64
cs_stat (GstElement * element, const gchar * field)
{
  GstStructure *s = NULL;
  guint64 v = G_MAXUINT64;

  g_object_get (element, "stats", &s, NULL);
  fail_unless (s != NULL);
  fail_unless (gst_structure_get_uint64 (s, field, &v), "no stats field %s",
      field);
  gst_structure_free (s);
  return v;
}

gchar *
cs_pop_error (GstBus * bus, GQuark * domain, gint * code)
{
  GstMessage *msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
  GError *err = NULL;
  gchar *text;

  if (!msg)
    return NULL;
  gst_message_parse_error (msg, &err, NULL);
  if (domain)
    *domain = err->domain;
  if (code)
    *code = err->code;
  text = g_strdup (err->message);
  g_error_free (err);
  gst_message_unref (msg);
  return text;
}

gint
cs_sim_thread_syncs (void)
{
  return cs_is_sim ? (gint) cs_sim.thread_cpu_syncs () : -1;
}

gint
cs_sim_live (const gchar * kind)
{
  return cs_is_sim ? cs_sim.live_objects (kind) : -1;
}

void
cs_run_pipeline (GstElement * pipeline)
{
  GstBus *bus = gst_element_get_bus (pipeline);
  GstMessage *msg;

  fail_if (gst_element_set_state (pipeline, GST_STATE_PLAYING) ==
      GST_STATE_CHANGE_FAILURE);
  msg = gst_bus_timed_pop_filtered (bus, 60 * GST_SECOND,
      GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  fail_unless (msg != NULL, "pipeline timed out");
  if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR) {
    GError *err = NULL;
    gchar *dbg = NULL;
    gst_message_parse_error (msg, &err, &dbg);
    fail ("pipeline error from %s: %s (%s)", GST_OBJECT_NAME (msg->src),
        err->message, dbg ? dbg : "");
  }
  gst_message_unref (msg);
  fail_unless_equals_int (gst_element_set_state (pipeline, GST_STATE_NULL),
      GST_STATE_CHANGE_SUCCESS);
  gst_object_unref (bus);
}

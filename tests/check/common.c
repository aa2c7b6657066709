/* gst-cudasync test helpers
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "common.h"
#include <glib/gstdio.h>
#include <string.h>
#include <dlfcn.h>

GstCudaContext *cs_ctx = NULL;
CudasimApi cs_sim;
gboolean cs_is_sim = FALSE;

static gint baseline_extsem, baseline_stream, baseline_event;

void
cs_setup (void)
{
  GError *err = NULL;

  fail_unless (gst_cuda_load_library (),
      "upstream libgstcuda cannot load libcuda.so.1");
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

void (*cs_pipeline_hook) (GstElement * element);

void
cs_teardown (void)
{
  gst_cuda_sync_wait_idle ();
  if (cs_is_sim) {
    cs_sim.drain ();
    gst_cuda_sync_wait_idle ();
    cs_sim.clear_failures ();
    cs_sim.set_delay_us (NULL, 0);
    fail_unless (cs_sim.violation_count () == 0, "%u simulator violations, "
        "the last: %s", cs_sim.violation_count (), cs_sim.last_violation ());
    /* no event wait in the test process (the project's, or upstream's)
     * spun a core while the GPU worked */
    fail_unless_equals_int (cs_sim.spin_waits (), 0);
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

/* a CUDA pool of @caps in cs_ctx, configured by @configure (nullable) */
static GstBufferPool *
new_pool (GstCaps * caps, void (*configure) (GstStructure *, gpointer),
    gpointer data)
{
  GstBufferPool *pool = gst_cuda_buffer_pool_new (cs_ctx);
  GstStructure *config = gst_buffer_pool_get_config (pool);
  GstVideoInfo info;

  fail_unless (gst_video_info_from_caps (&info, caps));
  gst_buffer_pool_config_set_params (config, caps, info.size, 0, 0);
  gst_buffer_pool_config_add_option (config, GST_BUFFER_POOL_OPTION_VIDEO_META);
  if (configure)
    configure (config, data);
  fail_unless (gst_buffer_pool_set_config (pool, config));
  fail_unless (gst_buffer_pool_set_active (pool, TRUE));
  return pool;
}

GstBufferPool *
cs_new_pool (GstCaps * caps)
{
  return new_pool (caps, NULL, NULL);
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

GstElement *
cs_make_element (const gchar * factory, const gchar * first_prop, ...)
{
  GstElement *e = gst_element_factory_make (factory, NULL);
  va_list args;

  fail_unless (e != NULL, "no element %s", factory);
  if (first_prop) {
    va_start (args, first_prop);
    g_object_set_valist (G_OBJECT (e), first_prop, args);
    va_end (args);
  }
  return e;
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
cs_stat_string (GstElement * element, const gchar * field)
{
  GstStructure *s = NULL;
  gchar *v;

  g_object_get (element, "stats", &s, NULL);
  fail_unless (s != NULL);
  fail_unless (gst_structure_has_field_typed (s, field, G_TYPE_STRING),
      "no string stats field %s", field);
  v = g_strdup (gst_structure_get_string (s, field));
  gst_structure_free (s);
  return v;
}

gchar *
cs_pop_error (GstBus * bus, GQuark * domain, gint * code)
{
  GstMessage *msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
  GError *err = NULL;
  gchar *text, *dbg = NULL;

  if (!msg)
    return NULL;
  gst_message_parse_error (msg, &err, &dbg);
  if (domain)
    *domain = err->domain;
  if (code)
    *code = err->code;
  /* the human message, then the details (the call, the CUresult) */
  text = g_strdup_printf ("%s (%s)", err->message, dbg ? dbg : "");
  g_error_free (err);
  g_free (dbg);
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

gboolean
cs_have_elements (const gchar * test, const gchar * const *names)
{
  guint i;

  for (i = 0; names[i]; i++) {
    GstElementFactory *f = gst_element_factory_find (names[i]);
    if (!f) {
      g_print ("SKIP: %s: element %s is not available here\n", test, names[i]);
      return FALSE;
    }
    gst_object_unref (f);
  }
  return TRUE;
}

/* whether the decoder @name takes the high profile (openh264 builds
 * differ) */
static gboolean
decodes_high (const gchar * test, const gchar * name)
{
  GstElementFactory *f = gst_element_factory_find (name);
  GstCaps *caps = gst_caps_from_string ("video/x-h264,"
      "stream-format=byte-stream,alignment=au,profile=high");
  gboolean ok = f && gst_element_factory_can_sink_all_caps (f, caps);

  if (!ok)
    g_print ("SKIP: %s: %s does not take the high profile\n", test, name);
  gst_caps_unref (caps);
  gst_clear_object (&f);
  return ok;
}

const gchar *
cs_h264_cuda_decoder (const gchar * test)
{
  static const gchar *const need[] = { "x264enc", "h264parse",
    "cudadownload", NULL
  };
  static const gchar *const sw[] = { "openh264dec", "videoconvert", NULL };
  GstElementFactory *nv;

  if (!cs_have_elements (test, need))
    return NULL;
  if ((nv = gst_element_factory_find ("nvh264dec"))) {
    gst_object_unref (nv);
    return "nvh264dec";
  }
  if (cs_have_elements (test, sw) && decodes_high (test, "openh264dec"))
    return "openh264dec ! videoconvert ! video/x-raw,format=NV12 ! cudaupload";
  return NULL;
}

gchar *
cs_make_h264_clip (gint w, gint h, gint fps, guint n, const gchar * profile,
    gboolean bframes)
{
  gchar *dir = g_dir_make_tmp ("cudasync-clip-XXXXXX", NULL);
  gchar *path, *desc;
  GError *err = NULL;
  GstElement *pipeline;

  fail_unless (dir != NULL);
  path = g_build_filename (dir, "clip.h264", NULL);
  desc = g_strdup_printf ("videotestsrc num-buffers=%u pattern=ball ! "
      "video/x-raw,format=I420,width=%d,height=%d,framerate=%d/1 ! "
      "x264enc speed-preset=ultrafast key-int-max=15 bframes=%d ! "
      "video/x-h264,profile=%s ! h264parse ! "
      "video/x-h264,stream-format=byte-stream ! filesink location=\"%s\"",
      n, w, h, fps, bframes ? 2 : 0, profile, path);
  pipeline = gst_parse_launch (desc, &err);
  fail_unless (pipeline != NULL, "%s: %s", desc, err ? err->message : "?");
  cs_run_pipeline (pipeline);
  gst_object_unref (pipeline);
  g_free (desc);
  g_free (dir);
  return path;
}

void
cs_remove_clip (gchar * path)
{
  gchar *dir = g_path_get_dirname (path);

  g_unlink (path);
  g_rmdir (dir);
  g_free (dir);
  g_free (path);
}

CUstream
cs_new_stream (guint flags)
{
  CUstream s = NULL;

  fail_unless (gst_cuda_context_push (cs_ctx));
  fail_unless_equals_int (CuStreamCreate (&s, flags), CUDA_SUCCESS);
  gst_cuda_context_pop (NULL);
  return s;
}

void
cs_free_stream (CUstream s)
{
  fail_unless (gst_cuda_context_push (cs_ctx));
  CuStreamSynchronize (s);
  CuStreamDestroy (s);
  gst_cuda_context_pop (NULL);
}

void
cs_fixture_start (CsFixture * f, GstElement * element, const gchar * format,
    gint w, gint h)
{
  memset (f, 0, sizeof (*f));
  f->element = gst_object_ref (element);
  f->bus = gst_bus_new ();
  gst_element_set_bus (element, f->bus);
  cs_set_cuda_context (element, cs_ctx);
  if (cs_pipeline_hook)
    cs_pipeline_hook (element);
  f->h = gst_harness_new_with_element (element, "sink", "src");
  f->caps = cs_caps (format, w, h);
  fail_unless (gst_video_info_from_caps (&f->info, f->caps));
  gst_harness_set_src_caps (f->h, gst_caps_ref (f->caps));
  f->pool = cs_new_pool (f->caps);
}

void
cs_fixture_renegotiate (CsFixture * f, const gchar * format, gint w, gint h)
{
  gst_buffer_pool_set_active (f->pool, FALSE);
  gst_object_unref (f->pool);
  gst_caps_unref (f->caps);
  f->caps = cs_caps (format, w, h);
  fail_unless (gst_video_info_from_caps (&f->info, f->caps));
  gst_harness_set_src_caps (f->h, gst_caps_ref (f->caps));
  f->pool = cs_new_pool (f->caps);
}

void
cs_fixture_stop (CsFixture * f)
{
  gst_harness_teardown (f->h);
  gst_buffer_pool_set_active (f->pool, FALSE);
  gst_object_unref (f->pool);
  gst_caps_unref (f->caps);
  gst_element_set_bus (f->element, NULL);
  gst_object_unref (f->bus);
  gst_object_unref (f->element);
}

void
cs_harness_offer (GstHarness * h, GstCudaSemaphoreHandleTypeFlags types,
    GstCudaSemaphore * sem)
{
  GstCaps *caps = cs_caps ("NV12", 64, 48);
  GstQuery *q = gst_query_new_allocation (caps, FALSE);
  const GstStructure *params = NULL;

  /* build the consumer's answer with the public helper */
  gst_query_add_cuda_sync_meta (q, types, sem);
  gst_query_parse_nth_allocation_meta (q, 0, &params);
  gst_harness_add_propose_allocation_meta (h, GST_CUDA_SYNC_META_API_TYPE,
      params);
  gst_query_unref (q);
  gst_caps_unref (caps);
}

guint
cs_last_acquire (GstBuffer * buf, GstCudaSemaphore * expect_sem,
    guint64 * value)
{
  GstCudaSyncMeta *meta = gst_buffer_get_cuda_sync_meta (buf);
  guint n;

  fail_unless (meta != NULL, "no GstCudaSyncMeta on output buffer");
  n = gst_cuda_sync_meta_get_n_acquire (meta);
  fail_unless (n >= 1);
  fail_unless (gst_cuda_sync_meta_get_acquire (meta, n - 1, value) ==
      expect_sem);
  return n - 1;
}

GstBusSyncReply
cs_share_context (GstBus * bus, GstMessage * msg, gpointer user_data)
{
  const gchar *type = NULL;

  if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_NEED_CONTEXT &&
      gst_message_parse_context_type (msg, &type) &&
      g_strcmp0 (type, GST_CUDA_CONTEXT_TYPE) == 0)
    cs_set_cuda_context (GST_ELEMENT (GST_MESSAGE_SRC (msg)), cs_ctx);
  return GST_BUS_PASS;
}

GstFlowReturn
cs_collect_sample (GstElement * sink, gpointer user_data)
{
  GPtrArray *frames = user_data;
  GstSample *sample = NULL;
  GstVideoInfo info;

  g_signal_emit_by_name (sink, "pull-sample", &sample);
  fail_unless (sample != NULL);
  fail_unless (gst_video_info_from_caps (&info, gst_sample_get_caps (sample)));
  g_ptr_array_add (frames, cs_buffer_bytes (gst_sample_get_buffer (sample),
          &info));
  gst_sample_unref (sample);
  return GST_FLOW_OK;
}

/* ---- 1.24+ CUDA memory with a stream ---- */

gpointer
cs_driver_symbol (const gchar * name)
{
  static void *lib = NULL;
  gpointer func;

  if (!lib)
    lib = dlopen ("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  fail_unless (lib != NULL, "dlopen libcuda.so.1: %s", dlerror ());
  func = dlsym (lib, name);
  fail_unless (func != NULL, "libcuda.so.1 has no %s", name);
  return func;
}

typedef CUresult (*MemsetD2D8AsyncFunc) (CUdeviceptr dst, size_t pitch,
    unsigned char value, size_t width, size_t height, CUstream stream);

CUresult
cs_memset_2d_async (CUdeviceptr dst, gsize pitch, guint8 value, gsize width,
    gsize height, CUstream stream)
{
  MemsetD2D8AsyncFunc func = cs_driver_symbol ("cuMemsetD2D8Async");

  return func (dst, pitch, value, width, height, stream);
}

#if GST_CHECK_VERSION(1, 24, 0)
static void
set_stream (GstStructure * config, gpointer stream)
{
  gst_buffer_pool_config_set_cuda_stream (config, (GstCudaStream *) stream);
}
#endif

GstBufferPool *
cs_new_stream_pool (GstCaps * caps, gpointer stream)
{
#if GST_CHECK_VERSION(1, 24, 0)
  return new_pool (caps, set_stream, stream);
#else
  fail ("CUDA memory has no stream before GStreamer 1.24");
  return NULL;
#endif
}

void
cs_write_pending (GstBuffer * buf, const GstVideoInfo * info, guint8 value)
{
  GstMemory *mem = gst_buffer_peek_memory (buf, 0);
  GstCudaMemory *cmem = GST_CUDA_MEMORY_CAST (mem);
  CUstream stream = gst_cuda_sync_memory_get_stream (mem);
  GstMapInfo map;
  guint p;

  fail_unless (stream != NULL, "the memory carries no CUDA stream");
  fail_unless (gst_memory_map (mem, &map, GST_MAP_WRITE | GST_MAP_CUDA));
  fail_unless (gst_cuda_context_push (cs_ctx));
  for (p = 0; p < GST_VIDEO_INFO_N_PLANES (info); p++) {
    CUdeviceptr dst = (CUdeviceptr) map.data +
        GST_VIDEO_INFO_PLANE_OFFSET (&cmem->info, p);

    fail_unless_equals_int (cs_memset_2d_async (dst,
            GST_VIDEO_INFO_PLANE_STRIDE (&cmem->info, p), value,
            GST_VIDEO_INFO_PLANE_STRIDE (&cmem->info, p),
            GST_VIDEO_INFO_COMP_HEIGHT (info, p), stream), CUDA_SUCCESS);
  }
  gst_cuda_context_pop (NULL);
  gst_memory_unmap (mem, &map);
#if GST_CHECK_VERSION(1, 24, 0)
  fail_unless (GST_MEMORY_FLAG_IS_SET (mem,
          GST_CUDA_MEMORY_TRANSFER_NEED_SYNC));
#endif
}

GBytes *
cs_value_bytes (const GstVideoInfo * info, guint8 value)
{
  GBytes *shape = cs_pattern_bytes (info, 0);
  gsize n = g_bytes_get_size (shape);
  guint8 *data = g_malloc (n);

  memset (data, value, n);
  g_bytes_unref (shape);
  return g_bytes_new_take (data, n);
}

/* the visible bytes of @buf copied on @stream (after whatever it waits
 * for), the calling thread waiting for that stream */
static GBytes *
read_on_stream (GstBuffer * buf, const GstVideoInfo * info, CUstream stream)
{
  GstCudaMemory *cmem = GST_CUDA_MEMORY_CAST (gst_buffer_peek_memory (buf,
          0));
  GByteArray *arr = g_byte_array_new ();
  GstMapInfo map;
  guint p, y;

  fail_unless (gst_memory_map (GST_MEMORY_CAST (cmem), &map,
          GST_MAP_READ | GST_MAP_CUDA));
  for (p = 0; p < GST_VIDEO_INFO_N_PLANES (info); p++) {
    gsize rb = plane_row_bytes (info, p), rows =
        GST_VIDEO_INFO_COMP_HEIGHT (info, p);
    guint8 *host = g_malloc (rb * rows);
    CUDA_MEMCPY2D c = { 0, };

    c.srcMemoryType = CU_MEMORYTYPE_DEVICE;
    c.srcDevice = (CUdeviceptr) map.data +
        GST_VIDEO_INFO_PLANE_OFFSET (&cmem->info, p);
    c.srcPitch = GST_VIDEO_INFO_PLANE_STRIDE (&cmem->info, p);
    c.dstMemoryType = CU_MEMORYTYPE_HOST;
    c.dstHost = host;
    c.dstPitch = rb;
    c.WidthInBytes = rb;
    c.Height = rows;
    fail_unless (gst_cuda_context_push (cs_ctx));
    fail_unless_equals_int (CuMemcpy2DAsync (&c, stream), CUDA_SUCCESS);
    fail_unless_equals_int (CuStreamSynchronize (stream), CUDA_SUCCESS);
    gst_cuda_context_pop (NULL);
    for (y = 0; y < rows; y++)
      g_byte_array_append (arr, host + y * rb, rb);
    g_free (host);
  }
  gst_memory_unmap (GST_MEMORY_CAST (cmem), &map);
  return g_byte_array_free_to_bytes (arr);
}

GBytes *
cs_read_after_acquire (GstBuffer * buf, const GstVideoInfo * info)
{
  GstCudaSyncMeta *meta = gst_buffer_get_cuda_sync_meta (buf);
  CUstream stream = cs_new_stream (CU_STREAM_NON_BLOCKING);
  GError *err = NULL;
  GBytes *bytes;

  fail_unless (meta != NULL, "the buffer has no GstCudaSyncMeta");
  fail_unless (gst_cuda_sync_meta_wait_gpu (meta, stream, &err), "%s",
      err ? err->message : "?");
  bytes = read_on_stream (buf, info, stream);
  cs_free_stream (stream);
  return bytes;
}

GBytes *
cs_read_unordered (GstBuffer * buf, const GstVideoInfo * info)
{
  CUstream stream = cs_new_stream (CU_STREAM_NON_BLOCKING);
  GBytes *bytes = read_on_stream (buf, info, stream);

  cs_free_stream (stream);
  return bytes;
}

gchar *
cs_play_to_end (GstElement * pipeline)
{
  GError *err = NULL;
  GstBus *bus = gst_element_get_bus (pipeline);
  GstMessage *msg;
  gchar *what = NULL;

  gst_element_set_state (pipeline, GST_STATE_PLAYING);
  msg = gst_bus_timed_pop_filtered (bus, 60 * GST_SECOND,
      GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  fail_unless (msg != NULL, "timed out");
  if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR) {
    gchar *dbg = NULL;

    gst_message_parse_error (msg, &err, &dbg);
    what = g_strdup_printf ("%s: %s (%s)", GST_OBJECT_NAME (msg->src),
        err->message, dbg ? dbg : "");
    g_clear_error (&err);
    g_free (dbg);
  }
  gst_message_unref (msg);
  gst_object_unref (bus);
  fail_unless_equals_int (gst_element_set_state (pipeline, GST_STATE_NULL),
      GST_STATE_CHANGE_SUCCESS);
  return what;
}

gchar *
cs_run_to_end (const gchar * desc, GstElement ** pipeline_out)
{
  GError *err = NULL;
  GstElement *pipeline = gst_parse_launch (desc, &err);

  fail_unless (pipeline != NULL, "%s: %s", desc, err ? err->message : "?");
  if (cs_pipeline_hook)
    cs_pipeline_hook (pipeline);
  *pipeline_out = pipeline;
  return cs_play_to_end (pipeline);
}

void
cs_setup_two_devices (void)
{
  /* read when libcuda.so.1 loads, which cs_setup() does in this (forked)
   * process */
  if (g_strcmp0 (g_getenv ("CUDASYNC_TEST_DRIVER"), "sim") == 0)
    g_setenv ("CUDASIM_DEVICE_COUNT", "2", TRUE);
  cs_setup ();
}

void
cs_setup_one_queue (void)
{
  /* read when libcuda.so.1 loads, as above */
  if (g_strcmp0 (g_getenv ("CUDASYNC_TEST_DRIVER"), "sim") == 0) {
    g_setenv ("CUDASIM_CONNECTIONS", "1", FALSE);
    /* these streams are held up for about a second: a loop that enqueues
     * on one meanwhile fills a queue smaller than the driver's */
    g_setenv ("CUDASIM_STREAM_DEPTH", "256", FALSE);
  }
  cs_setup ();
}

GstCudaContext *
cs_second_device (const gchar * test)
{
  gint count = 0;

  if (CuDeviceGetCount (&count) != CUDA_SUCCESS || count < 2) {
    g_print ("SKIP: %s: one CUDA device (the simulator has two)\n", test);
    return NULL;
  }
  return gst_cuda_context_new (1);
}

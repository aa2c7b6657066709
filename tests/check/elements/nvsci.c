/* gst-cudasync: NvSciSync semaphores and fences (library and elements)
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * NvSciSync exists on Jetson/DRIVE only, so these tests run on the simulated
 * driver (tests/cudasim), whose fake NvSciSyncObj / NvSciSyncFence follow
 * the CUDA driver API documentation (deterministic fences, permissions,
 * fences written at the signal call, leaks and double clears detected). On
 * a real driver the whole program reports itself skipped (exit status 77).
 *
 * Tests:
 * test_library_signal_wait: NvSciSync signal writes a fence, refuses a used
 *     one and fd-style calls; the wait
 * test_deterministic_two_streams: signals from two streams get fences 1..n
 *     in order, each expires
 * test_library_permissions: a semaphore without signal or wait permission:
 *     an error naming it, no fence
 * test_skip_nvscibuf_memsync: the skip-nvscibuf-memsync setting reaches the
 *     signal and wait flags
 * test_fence_cleared_once: buffer copies share the acquire fence; it is
 *     cleared once, by the last copy
 * test_meta_fence_library: the meta owns the fence: GPU and CPU waits on it,
 *     cleared with the buffer
 * test_pipeline_semaphore_on_signal: cudasemsignal ! cudasemwait with
 *     NvSciSync: byte-exact, fences 1..n
 * test_pipeline_semaphore_from_consumer: the same with the semaphore offered
 *     by cudasemwait
 * test_element_signal_permission_error: cudasemsignal on a semaphore without
 *     signal permission: an error
 * test_element_wait_permission_error: cudasemwait on a semaphore without
 *     wait permission: an error
 * test_negotiation_mismatch: NvSciSync to a timeline-fd consumer: a
 *     negotiation error; to NvSciSync: fences
 * test_consumer_advertises_nvsci: cudasemwait answers the ALLOCATION query
 *     with the NvSciSync handle type
 */
#include "common.h"
#include <string.h>

/* ---- helpers ---- */

static const guint8 zero_fence[GST_CUDA_NVSCI_FENCE_SIZE];

static gint live_fences_baseline;

/* the application's fence-clear hook: NvSciSyncFenceClear(), here the
 * simulator's, which reports double clears as violations */
static gint hook_calls;

static void
count_clear (guint8 * fence, gpointer user_data)
{
  g_atomic_int_inc (&hook_calls);
  fail_unless (user_data == &hook_calls);
  fail_unless_equals_int (cs_sim.nvsci_fence_clear (fence), 0);
}

static void
nvsci_setup (void)
{
  cs_setup ();
  fail_unless (cs_is_sim, "NvSciSync tests need the simulated driver");
  hook_calls = 0;
  gst_cuda_sync_set_nvsci_fence_clear_func (count_clear, &hook_calls);
  live_fences_baseline = cs_sim.nvsci_live_fences ();
}

static void
nvsci_teardown (void)
{
  gst_cuda_sync_wait_idle ();
  /* every fence a signal wrote was cleared, none twice (a double clear is
   * a simulator violation, checked by cs_teardown) */
  fail_unless_equals_int (cs_sim.nvsci_live_fences (), live_fences_baseline);
  gst_cuda_sync_set_nvsci_fence_clear_func (NULL, NULL);
  cs_teardown ();
}

/* an NvSciSyncObj (the simulator's) imported into cs_ctx */
static GstCudaSemaphore *
new_nvsci_semaphore (gboolean signal_perm, gboolean wait_perm, void **obj)
{
  GstCudaSemaphore *sem;
  GError *err = NULL;

  *obj = cs_sim.nvsci_obj_create (signal_perm, wait_perm);
  fail_unless (*obj != NULL);
  sem = gst_cuda_semaphore_import_nvscisync (cs_ctx, *obj, &err);
  fail_unless (sem != NULL, "import: %s", err ? err->message : "?");
  fail_unless_equals_int (gst_cuda_semaphore_get_handle_type (sem),
      GST_CUDA_SEMAPHORE_HANDLE_TYPE_NVSCISYNC);
  return sem;
}

static guint64
meta_fence_value (GstBuffer * buf, GstCudaSemaphore * expect_sem)
{
  GstCudaSyncMeta *meta;
  guint8 fence[GST_CUDA_NVSCI_FENCE_SIZE];
  guint idx = cs_last_acquire (buf, expect_sem, NULL);

  meta = gst_buffer_get_cuda_sync_meta (buf);
  fail_unless (gst_cuda_sync_meta_get_acquire_nvsci_fence (meta, idx,
          fence), "acquire point is not an NvSciSync fence");
  return cs_sim.nvsci_fence_value (fence);
}

/* ---- library: signal, fences, deterministic values across streams ---- */

GST_START_TEST (test_library_signal_wait)
{
  void *obj;
  GstCudaSemaphore *sem = new_nvsci_semaphore (TRUE, TRUE, &obj);
  guint8 fence[GST_CUDA_NVSCI_FENCE_SIZE] = { 0, };
  CUstream s = cs_new_stream (CU_STREAM_NON_BLOCKING);
  GError *err = NULL;

  fail_unless (gst_cuda_semaphore_signal_nvsci (sem, s, fence, &err), "%s",
      err ? err->message : "");
  /* cuda.h: the fence is written by the call */
  fail_unless (memcmp (fence, zero_fence, sizeof (fence)) != 0);
  fail_unless_equals_uint64 (cs_sim.nvsci_fence_value (fence), 1);
  fail_unless_equals_uint64 (gst_cuda_semaphore_get_last_value (sem), 1);

  /* the storage now holds a fence: signalling into it would leak it */
  fail_if (gst_cuda_semaphore_signal_nvsci (sem, s, fence, &err));
  fail_unless (g_error_matches (err, GST_CUDA_SYNC_ERROR,
          GST_CUDA_SYNC_ERROR_PROTOCOL), "%s", err->message);
  g_clear_error (&err);
  fail_unless_equals_uint64 (cs_sim.nvsci_fence_value (fence), 1);

  /* fd-style calls are refused on an NvSciSync semaphore and vice versa */
  fail_if (gst_cuda_semaphore_signal (sem, s, NULL, &err));
  fail_unless (g_error_matches (err, GST_CUDA_SYNC_ERROR,
          GST_CUDA_SYNC_ERROR_PROTOCOL));
  g_clear_error (&err);

  fail_unless (gst_cuda_semaphore_wait_nvsci (sem, NULL, fence, &err));
  fail_unless_equals_int (cs_sim.nvsci_fence_wait (fence, 10 * GST_SECOND), 0);
  fail_unless_equals_uint64 (cs_sim.nvsci_obj_get_value (obj), 1);
  fail_unless_equals_int (cs_sim.nvsci_fence_clear (fence), 0);
  fail_unless_equals_int (hook_calls, 0);

  cs_free_stream (s);
  gst_object_unref (sem);
  cs_sim.nvsci_obj_free (obj);
}

GST_END_TEST;

GST_START_TEST (test_deterministic_two_streams)
{
  void *obj;
  GstCudaSemaphore *sem = new_nvsci_semaphore (TRUE, TRUE, &obj);
  CUstream slow = cs_new_stream (CU_STREAM_NON_BLOCKING);
  CUstream fast = cs_new_stream (CU_STREAM_NON_BLOCKING);
  guint8 fences[40][GST_CUDA_NVSCI_FENCE_SIZE];
  GstBufferPool *pool;
  GstCaps *caps = cs_caps ("RGBA", 64, 64);
  GstBuffer *buf;
  GstMapInfo map;
  CUDA_MEMCPY2D cp;
  GError *err = NULL;
  guint i;

  pool = cs_new_pool (caps);
  buf = cs_new_buffer (pool, 1);
  fail_unless (gst_buffer_map (buf, &map, GST_MAP_READ | GST_MAP_CUDA));
  memset (fences, 0, sizeof (fences));

  /* the slow stream's copies take 5 ms each: without ordering, the fast
   * stream's signal (value n + 1) would execute before the slow stream's
   * (value n), which the simulator reports as a violation */
  cs_sim.set_delay_us ("cuMemcpy2DAsync_v2", 5000);
  for (i = 0; i < G_N_ELEMENTS (fences); i++) {
    CUstream st = (i % 2) ? fast : slow;
    if (st == slow) {
      memset (&cp, 0, sizeof (cp));
      cp.srcMemoryType = CU_MEMORYTYPE_DEVICE;
      cp.srcDevice = (CUdeviceptr) map.data;
      cp.srcPitch = 256;
      cp.dstMemoryType = CU_MEMORYTYPE_DEVICE;
      cp.dstDevice = (CUdeviceptr) map.data;
      cp.dstPitch = 256;
      cp.WidthInBytes = 256;
      cp.Height = 1;
      fail_unless (gst_cuda_context_push (cs_ctx));
      fail_unless_equals_int (CuMemcpy2DAsync (&cp, st), CUDA_SUCCESS);
      gst_cuda_context_pop (NULL);
    }
    fail_unless (gst_cuda_semaphore_signal_nvsci (sem, st, fences[i], &err),
        "%s", err ? err->message : "");
    /* deterministic: the n-th signal's fence has value n */
    fail_unless_equals_uint64 (cs_sim.nvsci_fence_value (fences[i]), i + 1);
  }
  fail_unless_equals_uint64 (gst_cuda_semaphore_get_last_value (sem),
      G_N_ELEMENTS (fences));

  /* each fence expires, the last one once every signal has run */
  for (i = 0; i < G_N_ELEMENTS (fences); i++)
    fail_unless_equals_int (cs_sim.nvsci_fence_wait (fences[i],
            30 * GST_SECOND), 0);
  fail_unless_equals_uint64 (cs_sim.nvsci_obj_get_value (obj),
      G_N_ELEMENTS (fences));
  fail_unless_equals_int (cs_sim.violation_count (), 0);
  cs_sim.set_delay_us ("cuMemcpy2DAsync_v2", 0);

  for (i = 0; i < G_N_ELEMENTS (fences); i++)
    fail_unless_equals_int (cs_sim.nvsci_fence_clear (fences[i]), 0);

  gst_buffer_unmap (buf, &map);
  gst_buffer_unref (buf);
  gst_buffer_pool_set_active (pool, FALSE);
  gst_object_unref (pool);
  gst_caps_unref (caps);
  cs_free_stream (slow);
  cs_free_stream (fast);
  gst_object_unref (sem);
  cs_sim.nvsci_obj_free (obj);
}

GST_END_TEST;

GST_START_TEST (test_library_permissions)
{
  void *obj_nosig, *obj_nowait;
  GstCudaSemaphore *nosig = new_nvsci_semaphore (FALSE, TRUE, &obj_nosig);
  GstCudaSemaphore *nowait = new_nvsci_semaphore (TRUE, FALSE, &obj_nowait);
  guint8 fence[GST_CUDA_NVSCI_FENCE_SIZE] = { 0, };
  GError *err = NULL;

  fail_if (gst_cuda_semaphore_signal_nvsci (nosig, NULL, fence, &err));
  fail_unless (g_error_matches (err, GST_CUDA_SYNC_ERROR,
          GST_CUDA_SYNC_ERROR_NOT_SUPPORTED));
  fail_unless (strstr (err->message, "CUDA_ERROR_NOT_SUPPORTED") &&
      strstr (err->message, "signal permission") &&
      strstr (err->message, "CUDA_NVSCISYNC_ATTR_SIGNAL"), "%s", err->message);
  g_clear_error (&err);
  fail_unless (memcmp (fence, zero_fence, sizeof (fence)) == 0,
      "a failed signal wrote a fence");
  fail_unless_equals_uint64 (gst_cuda_semaphore_get_last_value (nosig), 0);

  fail_unless (gst_cuda_semaphore_signal_nvsci (nowait, NULL, fence, &err));
  fail_if (gst_cuda_semaphore_wait_nvsci (nowait, NULL, fence, &err));
  fail_unless (g_error_matches (err, GST_CUDA_SYNC_ERROR,
          GST_CUDA_SYNC_ERROR_NOT_SUPPORTED));
  fail_unless (strstr (err->message, "CUDA_ERROR_NOT_SUPPORTED") &&
      strstr (err->message, "wait permission"), "%s", err->message);
  g_clear_error (&err);
  fail_unless_equals_int (cs_sim.nvsci_fence_wait (fence, 10 * GST_SECOND), 0);
  fail_unless_equals_int (cs_sim.nvsci_fence_clear (fence), 0);

  gst_object_unref (nosig);
  gst_object_unref (nowait);
  cs_sim.nvsci_obj_free (obj_nosig);
  cs_sim.nvsci_obj_free (obj_nowait);
}

GST_END_TEST;

GST_START_TEST (test_skip_nvscibuf_memsync)
{
  void *obj;
  GstCudaSemaphore *sem = new_nvsci_semaphore (TRUE, TRUE, &obj);
  guint8 fence[GST_CUDA_NVSCI_FENCE_SIZE] = { 0, };
  GError *err = NULL;
  gboolean skip = TRUE;
  GstElement *sig;
  GstBuffer *out;
  CsFixture f;

  /* default: no flags */
  fail_if (gst_cuda_semaphore_get_skip_nvscibuf_memsync (sem));
  fail_unless (gst_cuda_semaphore_signal_nvsci (sem, NULL, fence, &err));
  fail_unless (gst_cuda_semaphore_wait_nvsci (sem, NULL, fence, &err));
  cs_sim.drain ();
  fail_unless_equals_int (cs_sim.nvsci_obj_flags (obj), 0);
  fail_unless_equals_int (cs_sim.nvsci_fence_clear (fence), 0);

  /* the semaphore's setting: signal and wait flags */
  g_object_set (sem, "skip-nvscibuf-memsync", TRUE, NULL);
  g_object_get (sem, "skip-nvscibuf-memsync", &skip, NULL);
  fail_unless (skip && gst_cuda_semaphore_get_skip_nvscibuf_memsync (sem));
  fail_unless (gst_cuda_semaphore_signal_nvsci (sem, NULL, fence, &err));
  cs_sim.drain ();
  fail_unless_equals_int (cs_sim.nvsci_obj_flags (obj),
      CUDA_EXTERNAL_SEMAPHORE_SIGNAL_SKIP_NVSCIBUF_MEMSYNC);
  fail_unless (gst_cuda_semaphore_wait_nvsci (sem, NULL, fence, &err));
  cs_sim.drain ();
  fail_unless_equals_int (cs_sim.nvsci_obj_flags (obj),
      CUDA_EXTERNAL_SEMAPHORE_SIGNAL_SKIP_NVSCIBUF_MEMSYNC |
      CUDA_EXTERNAL_SEMAPHORE_WAIT_SKIP_NVSCIBUF_MEMSYNC);
  fail_unless_equals_int (cs_sim.nvsci_fence_clear (fence), 0);
  gst_cuda_semaphore_set_skip_nvscibuf_memsync (sem, FALSE);
  gst_object_unref (sem);
  cs_sim.nvsci_obj_free (obj);

  /* the element property, on a semaphore without the setting */
  sem = new_nvsci_semaphore (TRUE, TRUE, &obj);
  sig = gst_element_factory_make ("cudasemsignal", NULL);
  g_object_set (sig, "semaphore", sem, "skip-nvscibuf-memsync", TRUE, NULL);
  cs_fixture_start (&f, sig, "NV12", 64, 48);
  fail_unless_equals_int (gst_harness_push (f.h, cs_new_buffer (f.pool, 1)),
      GST_FLOW_OK);
  out = gst_harness_pull (f.h);
  fail_unless_equals_uint64 (meta_fence_value (out, sem), 1);
  gst_buffer_unref (out);
  cs_sim.drain ();
  fail_unless_equals_int (cs_sim.nvsci_obj_flags (obj),
      CUDA_EXTERNAL_SEMAPHORE_SIGNAL_SKIP_NVSCIBUF_MEMSYNC);
  cs_fixture_stop (&f);
  gst_object_unref (sig);
  gst_object_unref (sem);
  cs_sim.nvsci_obj_free (obj);
}

GST_END_TEST;

/* ---- the meta's fence: cleared exactly once ---- */

GST_START_TEST (test_fence_cleared_once)
{
  void *obj;
  GstCudaSemaphore *sem = new_nvsci_semaphore (TRUE, TRUE, &obj);
  GstElement *sig = gst_element_factory_make ("cudasemsignal", NULL);
  GPtrArray *held = g_ptr_array_new ();
  const guint n = 12;
  CsFixture f;
  guint i;

  g_object_set (sig, "semaphore", sem, NULL);
  cs_fixture_start (&f, sig, "NV12", 64, 48);
  for (i = 0; i < n; i++) {
    GstBuffer *out, *copy, *writable;

    fail_unless_equals_int (gst_harness_push (f.h, cs_new_buffer (f.pool,
                i)), GST_FLOW_OK);
    out = gst_harness_pull (f.h);
    fail_unless_equals_uint64 (meta_fence_value (out, sem), i + 1);

    /* copies share the fence (the same acquire point) */
    copy = gst_buffer_copy (out);
    fail_unless_equals_uint64 (meta_fence_value (copy, sem), i + 1);
    writable = gst_buffer_make_writable (gst_buffer_ref (out));
    fail_unless (writable != out);
    fail_unless_equals_uint64 (meta_fence_value (writable, sem), i + 1);
    g_ptr_array_add (held, out);
    g_ptr_array_add (held, copy);
    g_ptr_array_add (held, writable);
  }
  fail_unless_equals_uint64 (cs_stat (sig, "last-value"), n);
  fail_unless_equals_uint64 (cs_stat (sig, "signals"), n);
  fail_unless_equals_int (cs_sim.nvsci_live_fences (),
      live_fences_baseline + n);

  /* nothing is cleared while a copy is alive; then exactly once per fence,
   * whichever copy goes last */
  for (i = 0; i < held->len; i++) {
    guint fence_idx = i / 3;
    gst_buffer_unref (g_ptr_array_index (held, i));
    fail_unless_equals_int (g_atomic_int_get (&hook_calls),
        (i % 3 == 2) ? fence_idx + 1 : fence_idx);
  }
  fail_unless_equals_int (hook_calls, n);
  fail_unless_equals_int (cs_sim.nvsci_live_fences (), live_fences_baseline);
  fail_unless_equals_int (cs_sim.violation_count (), 0);

  g_ptr_array_unref (held);
  cs_fixture_stop (&f);
  gst_object_unref (sig);
  gst_object_unref (sem);
  cs_sim.nvsci_obj_free (obj);
}

GST_END_TEST;

GST_START_TEST (test_meta_fence_library)
{
  void *obj;
  GstCudaSemaphore *sem = new_nvsci_semaphore (TRUE, TRUE, &obj);
  guint8 fence[GST_CUDA_NVSCI_FENCE_SIZE] = { 0, };
  guint8 got[GST_CUDA_NVSCI_FENCE_SIZE];
  GstBuffer *buf = gst_buffer_new (), *copy;
  GstCudaSyncMeta *meta = gst_buffer_add_cuda_sync_meta (buf);
  GError *err = NULL;

  fail_unless (gst_cuda_semaphore_signal_nvsci (sem, NULL, fence, &err));
  gst_cuda_sync_meta_add_acquire_nvsci_fence (meta, sem, fence);
  /* the meta owns the fence now: the local bytes are just a copy */
  fail_unless (gst_cuda_sync_meta_get_acquire_nvsci_fence (meta, 0, got));
  fail_unless (memcmp (got, fence, sizeof (got)) == 0);

  copy = gst_buffer_copy (buf);
  fail_unless (gst_cuda_sync_meta_wait_gpu (gst_buffer_get_cuda_sync_meta
          (copy), NULL, &err), "%s", err ? err->message : "");
  fail_unless (gst_cuda_sync_meta_wait_cpu (meta, 10 * GST_SECOND, &err),
      "%s", err ? err->message : "");
  fail_unless_equals_uint64 (cs_sim.nvsci_obj_get_value (obj), 1);
  gst_buffer_unref (buf);
  fail_unless_equals_int (hook_calls, 0);
  gst_buffer_unref (copy);
  fail_unless_equals_int (hook_calls, 1);

  gst_object_unref (sem);
  cs_sim.nvsci_obj_free (obj);
}

GST_END_TEST;

/* ---- elements ---- */

typedef struct
{
  GMutex lock;
  GArray *values;
  GstCudaSemaphore *sem;
} FenceLog;

static GstPadProbeReturn
log_fence (GstPad * pad, GstPadProbeInfo * info, gpointer user_data)
{
  FenceLog *log = user_data;
  guint64 v = meta_fence_value (GST_PAD_PROBE_INFO_BUFFER (info), log->sem);

  g_mutex_lock (&log->lock);
  g_array_append_val (log->values, v);
  g_mutex_unlock (&log->lock);
  return GST_PAD_PROBE_OK;
}

/* Runs @desc to EOS and returns the visible bytes of each frame reaching
 * the appsink "out"; with @sem set on the element named @sem_on, logs the
 * fence of each buffer entering "wait". */
static GPtrArray *
run_frames (const gchar * desc, const gchar * sem_on, GstCudaSemaphore * sem,
    FenceLog * log)
{
  GPtrArray *frames = g_ptr_array_new_with_free_func ((GDestroyNotify)
      g_bytes_unref);
  GError *err = NULL;
  GstElement *pipeline = gst_parse_launch (desc, &err), *sink, *e;
  GstBus *bus;

  fail_unless (pipeline != NULL, "%s", err ? err->message : "");
  bus = gst_element_get_bus (pipeline);
  gst_bus_set_sync_handler (bus, cs_share_context, NULL, NULL);
  gst_object_unref (bus);
  sink = gst_bin_get_by_name (GST_BIN (pipeline), "out");
  g_object_set (sink, "emit-signals", TRUE, "sync", FALSE, NULL);
  g_signal_connect (sink, "new-sample", G_CALLBACK (cs_collect_sample), frames);
  if (sem_on) {
    GstPad *pad;
    e = gst_bin_get_by_name (GST_BIN (pipeline), sem_on);
    g_object_set (e, "semaphore", sem, NULL);
    gst_object_unref (e);
    e = gst_bin_get_by_name (GST_BIN (pipeline), "wait");
    pad = gst_element_get_static_pad (e, "sink");
    gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER, log_fence, log, NULL);
    gst_object_unref (pad);
    gst_object_unref (e);
  }
  cs_run_pipeline (pipeline);
  if (sem_on) {
    e = gst_bin_get_by_name (GST_BIN (pipeline), "sig");
    fail_unless_equals_uint64 (cs_stat (e, "cpu-syncs"), 0);
    fail_unless_equals_uint64 (cs_stat (e, "signals"), log->values->len);
    fail_unless_equals_uint64 (cs_stat (e, "last-value"), log->values->len);
    gst_object_unref (e);
    e = gst_bin_get_by_name (GST_BIN (pipeline), "wait");
    fail_unless_equals_uint64 (cs_stat (e, "waits"), log->values->len);
    gst_object_unref (e);
  }
  gst_object_unref (sink);
  gst_object_unref (pipeline);
  return frames;
}

static void
check_pipeline (const gchar * sem_on, const gchar * format, gint w, gint h,
    guint n)
{
  void *obj;
  GstCudaSemaphore *sem = new_nvsci_semaphore (TRUE, TRUE, &obj);
  gchar *src = g_strdup_printf ("videotestsrc num-buffers=%u pattern=ball ! "
      "video/x-raw,format=%s,width=%d,height=%d,framerate=30/1", n, format, w,
      h);
  gchar *ref_desc = g_strdup_printf ("%s ! appsink name=out", src);
  gchar *desc = g_strdup_printf ("%s ! cudaupload ! cudasemsignal name=sig ! "
      "cudasemwait name=wait ! cudadownload ! video/x-raw ! appsink name=out",
      src);
  FenceLog log;
  GPtrArray *ref, *got;
  guint i, calls_before = g_atomic_int_get (&hook_calls);

  g_mutex_init (&log.lock);
  log.values = g_array_new (FALSE, FALSE, sizeof (guint64));
  log.sem = sem;

  ref = run_frames (ref_desc, NULL, NULL, NULL);
  got = run_frames (desc, sem_on, sem, &log);
  fail_unless_equals_int (ref->len, n);
  fail_unless_equals_int (got->len, n);
  for (i = 0; i < n; i++)
    fail_unless (g_bytes_equal (g_ptr_array_index (ref, i),
            g_ptr_array_index (got, i)), "%s %dx%d frame %u differs", format,
        w, h, i);
  /* one fence per buffer, deterministic values 1..n in order */
  fail_unless_equals_int (log.values->len, n);
  for (i = 0; i < n; i++)
    fail_unless_equals_uint64 (g_array_index (log.values, guint64, i), i + 1);
  fail_unless_equals_uint64 (cs_sim.nvsci_obj_get_value (obj), n);
  /* every buffer is gone: each fence cleared once */
  gst_cuda_sync_wait_idle ();
  fail_unless_equals_int (g_atomic_int_get (&hook_calls) - calls_before, n);
  fail_unless_equals_int (cs_sim.nvsci_live_fences (), live_fences_baseline);

  g_array_unref (log.values);
  g_mutex_clear (&log.lock);
  g_ptr_array_unref (ref);
  g_ptr_array_unref (got);
  g_free (src);
  g_free (desc);
  g_free (ref_desc);
  gst_object_unref (sem);
  cs_sim.nvsci_obj_free (obj);
}

GST_START_TEST (test_pipeline_semaphore_on_signal)
{
  check_pipeline ("sig", "NV12", 320, 241, 10);
  check_pipeline ("sig", "RGBA", 63, 17, 4);
}

GST_END_TEST;

GST_START_TEST (test_pipeline_semaphore_from_consumer)
{
  /* cudasemwait offers the NvSciSync semaphore in the ALLOCATION query */
  check_pipeline ("wait", "I420", 640, 360, 8);
}

GST_END_TEST;

GST_START_TEST (test_element_signal_permission_error)
{
  void *obj;
  GstCudaSemaphore *sem = new_nvsci_semaphore (FALSE, TRUE, &obj);
  GstElement *sig = gst_element_factory_make ("cudasemsignal", NULL);
  CsFixture f;
  gchar *msg;
  GQuark domain;
  gint code;

  g_object_set (sig, "semaphore", sem, NULL);
  cs_fixture_start (&f, sig, "NV12", 64, 48);
  fail_unless_equals_int (gst_harness_push (f.h, cs_new_buffer (f.pool, 1)),
      GST_FLOW_ERROR);
  msg = cs_pop_error (f.bus, &domain, &code);
  fail_unless (msg != NULL);
  fail_unless (strstr (msg, "CUDA_ERROR_NOT_SUPPORTED") &&
      strstr (msg, "signal permission"), "%s", msg);
  g_free (msg);
  fail_unless_equals_uint64 (cs_stat (sig, "signals"), 0);
  cs_fixture_stop (&f);
  gst_object_unref (sig);
  gst_object_unref (sem);
  cs_sim.nvsci_obj_free (obj);
}

GST_END_TEST;

GST_START_TEST (test_element_wait_permission_error)
{
  void *obj;
  GstCudaSemaphore *sem = new_nvsci_semaphore (TRUE, FALSE, &obj);
  GstElement *wait = gst_element_factory_make ("cudasemwait", NULL);
  guint8 fence[GST_CUDA_NVSCI_FENCE_SIZE] = { 0, };
  GError *err = NULL;
  GstBuffer *buf;
  CsFixture f;
  gchar *msg;

  cs_fixture_start (&f, wait, "NV12", 64, 48);
  buf = cs_new_buffer (f.pool, 1);
  fail_unless (gst_cuda_semaphore_signal_nvsci (sem, NULL, fence, &err));
  gst_cuda_sync_meta_add_acquire_nvsci_fence (gst_buffer_add_cuda_sync_meta
      (buf), sem, fence);
  fail_unless_equals_int (gst_harness_push (f.h, buf), GST_FLOW_ERROR);
  msg = cs_pop_error (f.bus, NULL, NULL);
  fail_unless (msg != NULL);
  fail_unless (strstr (msg, "CUDA_ERROR_NOT_SUPPORTED") &&
      strstr (msg, "wait permission"), "%s", msg);
  g_free (msg);
  cs_fixture_stop (&f);
  gst_object_unref (wait);
  gst_object_unref (sem);
  cs_sim.nvsci_obj_free (obj);
}

GST_END_TEST;

GST_START_TEST (test_negotiation_mismatch)
{
  void *obj;
  GstCudaSemaphore *sem = new_nvsci_semaphore (TRUE, TRUE, &obj);
  GstElement *sig = gst_element_factory_make ("cudasemsignal", NULL);
  CsFixture f;
  gchar *msg;
  GQuark domain;
  gint code;

  /* downstream can wait on timeline fds only: an error, not a fallback */
  g_object_set (sig, "semaphore", sem, NULL);
  cs_fixture_start (&f, sig, "NV12", 64, 48);
  cs_harness_offer (f.h, GST_CUDA_SEMAPHORE_HANDLE_TYPE_FLAG_TIMELINE_FD, NULL);
  fail_unless_equals_int (gst_harness_push (f.h, cs_new_buffer (f.pool, 1)),
      GST_FLOW_NOT_NEGOTIATED);
  msg = cs_pop_error (f.bus, &domain, &code);
  fail_unless (msg != NULL);
  fail_unless (domain == GST_CORE_ERROR && code == GST_CORE_ERROR_NEGOTIATION);
  fail_unless (strstr (msg, "nvscisync") && strstr (msg, "timeline-fd"),
      "%s", msg);
  g_free (msg);
  fail_unless_equals_uint64 (cs_stat (sig, "signals"), 0);
  fail_unless_equals_uint64 (cs_stat (sig, "cpu-syncs"), 0);
  cs_fixture_stop (&f);
  gst_object_unref (sig);

  /* a consumer that accepts NvSciSync gets fences */
  sig = gst_element_factory_make ("cudasemsignal", NULL);
  g_object_set (sig, "semaphore", sem, NULL);
  cs_fixture_start (&f, sig, "NV12", 64, 48);
  cs_harness_offer (f.h, GST_CUDA_SEMAPHORE_HANDLE_TYPE_FLAG_NVSCISYNC, NULL);
  fail_unless_equals_int (gst_harness_push (f.h, cs_new_buffer (f.pool, 1)),
      GST_FLOW_OK);
  {
    GstBuffer *out = gst_harness_pull (f.h);
    fail_unless_equals_uint64 (meta_fence_value (out, sem), 1);
    gst_buffer_unref (out);
  }
  cs_fixture_stop (&f);
  gst_object_unref (sig);
  gst_object_unref (sem);
  cs_sim.nvsci_obj_free (obj);
}

GST_END_TEST;

GST_START_TEST (test_consumer_advertises_nvsci)
{
  GstElement *wait = gst_element_factory_make ("cudasemwait", NULL);
  GstHarness *h = gst_harness_new_with_element (wait, "sink", "src");
  GstCaps *caps = cs_caps ("NV12", 64, 48);
  GstQuery *q = gst_query_new_allocation (caps, TRUE);
  GstCudaSemaphoreHandleTypeFlags types = 0;

  cs_set_cuda_context (wait, cs_ctx);
  gst_harness_set_src_caps (h, gst_caps_ref (caps));
  fail_unless (gst_pad_peer_query (h->srcpad, q));
  fail_unless (gst_query_parse_cuda_sync_meta (q, &types, NULL));
  fail_unless (types & GST_CUDA_SEMAPHORE_HANDLE_TYPE_FLAG_NVSCISYNC);
  gst_query_unref (q);
  gst_caps_unref (caps);
  gst_harness_teardown (h);
  gst_object_unref (wait);
}

GST_END_TEST;

static Suite *
nvsci_suite (void)
{
  Suite *s = suite_create ("nvsci");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_checked_fixture (tc, nvsci_setup, nvsci_teardown);
  tcase_add_test (tc, test_library_signal_wait);
  tcase_add_test (tc, test_deterministic_two_streams);
  tcase_add_test (tc, test_library_permissions);
  tcase_add_test (tc, test_skip_nvscibuf_memsync);
  tcase_add_test (tc, test_fence_cleared_once);
  tcase_add_test (tc, test_meta_fence_library);
  tcase_add_test (tc, test_pipeline_semaphore_on_signal);
  tcase_add_test (tc, test_pipeline_semaphore_from_consumer);
  tcase_add_test (tc, test_element_signal_permission_error);
  tcase_add_test (tc, test_element_wait_permission_error);
  tcase_add_test (tc, test_negotiation_mismatch);
  tcase_add_test (tc, test_consumer_advertises_nvsci);
  return s;
}

int
main (int argc, char **argv)
{
  CudasimApi api;

  /* NvSciSync does not exist on the GPU machines we have (H200): only the
   * simulated driver implements it. Skip (meson: exit status 77) on a real
   * driver, before any test forks. */
  if (!cudasim_lookup (&api)) {
    g_print ("SKIP: NvSciSync is only tested on the simulated CUDA driver "
        "(tests/cudasim); the libcuda.so.1 found is not the simulator\n");
    return 77;
  }

  gst_check_init (&argc, &argv);
  return gst_check_run_suite (nvsci_suite (), "nvsci", __FILE__);
}

/* gst-cudasync
 * Copyright (C) 2026 gst-cudasync developers
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The GStreamer 1.24+ CUDA stream contract: upstream producers push memory
 * whose work is still pending on the memory's own stream
 * (GST_CUDA_MEMORY_TRANSFER_NEED_SYNC). Each element must order its own
 * work after that stream on the GPU, without a CPU wait, and leave its
 * output in a state upstream consumers read correctly.
 *
 * The producer here writes a constant into a frame on its stream with a
 * slowed cuMemsetD2D8Async (on the simulator) and pushes it at once; the
 * frame held the pattern seeded with SEED before. An element that does not
 * order itself after the producer's stream passes on the pattern. On
 * GStreamer 1.22 CUDA memory has no stream: the tests skip.
 *
 * Tests:
 * test_semsignal_covers_pending_work: cudasemsignal's acquire point covers
 *     the producer's pending write
 * test_semsignal_fallback_syncs_memory_stream: the fallback synchronises the
 *     memory's own stream
 * test_semwait_leaves_memory_pending: cudasemwait waits on the memory's
 *     stream and leaves it pending
 * test_wait_pending_is_a_gpu_wait: the library's pending-work wait is an
 *     event wait, never a CPU wait
 * test_order_reuse_is_a_gpu_wait: a consumer gives memory back before its
 *     reads ran: the memory's stream waits for them on the GPU; memory
 *     without a stream is not ordered
 * test_no_stream_before_1_24: (1.22) CUDA memory has no stream: the helpers
 *     do nothing
 */
#include "../common.h"
#if GST_CHECK_VERSION(1, 24, 0)
#include <gst/cuda/gstcudastream.h>
#endif

#define SEED 0x21
#define VALUE 0x5a
#define PRODUCER_DELAY_US 150000

typedef struct
{
  CsFixture f;
  gpointer producer;            /* GstCudaStream * */
  GstBufferPool *pool;          /* its memory carries the producer's stream */
} StreamFixture;

#if GST_CHECK_VERSION(1, 24, 0)

static void
stream_fixture_start (StreamFixture * sf, GstElement * element)
{
  cs_fixture_start (&sf->f, element, "NV12", 64, 48);
  sf->producer = gst_cuda_stream_new (cs_ctx);
  fail_unless (sf->producer != NULL);
  sf->pool = cs_new_stream_pool (sf->f.caps, sf->producer);
}

static void
stream_fixture_stop (StreamFixture * sf)
{
  cs_fixture_stop (&sf->f);
  gst_buffer_pool_set_active (sf->pool, FALSE);
  gst_object_unref (sf->pool);
  gst_cuda_stream_unref (sf->producer);
}

/* A frame of the pattern whose overwrite with VALUE is still pending (and
 * slowed down on the simulator) on the producer's stream */
static GstBuffer *
pending_frame (StreamFixture * sf)
{
  GstBuffer *buf = cs_new_buffer (sf->pool, SEED);

  if (cs_is_sim)
    cs_sim.set_delay_us ("cuMemsetD2D8Async", PRODUCER_DELAY_US);
  cs_write_pending (buf, &sf->f.info, VALUE);
  return buf;
}

static void
assert_value_bytes (GBytes * got, const GstVideoInfo * info, const gchar * what)
{
  GBytes *want = cs_value_bytes (info, VALUE);
  gsize n;
  const guint8 *d = g_bytes_get_data (got, &n);

  fail_unless_equals_uint64 (n, g_bytes_get_size (want));
  fail_unless (g_bytes_equal (got, want), "%s: got 0x%02x at byte 0, want "
      "0x%02x (0x%02x: the producer's work had not run)", what, d[0], VALUE,
      (guint8) (SEED));
  g_bytes_unref (want);
}

/* cudasemsignal's acquire point covers the producer's pending work: a
 * consumer ordered by that point alone sees the written frame. */
GST_START_TEST (test_semsignal_covers_pending_work)
{
  StreamFixture sf;
  TestSem *ts;
  GstCudaSemaphore *sem;
  GstElement *sig;
  GstBuffer *in, *out;
  GBytes *got;
  gint before;

  sem = cs_new_semaphore (NULL, TRUE, &ts);
  sig = gst_element_factory_make ("cudasemsignal", NULL);
  g_object_set (sig, "semaphore", sem, NULL);
  stream_fixture_start (&sf, sig);

  in = pending_frame (&sf);
  before = cs_sim_thread_syncs ();
  fail_unless_equals_int (gst_harness_push (sf.f.h, in), GST_FLOW_OK);
  out = gst_harness_pull (sf.f.h);
  /* no CPU wait on the streaming thread (the harness pushes from here) */
  if (cs_is_sim)
    fail_unless_equals_int (cs_sim_thread_syncs () - before, 0);
  fail_unless_equals_uint64 (cs_stat (sig, "cpu-syncs"), 0);
  fail_unless_equals_uint64 (cs_stat (sig, "signals"), 1);

  got = cs_read_after_acquire (out, &sf.f.info);
  assert_value_bytes (got, &sf.f.info, "cudasemsignal");

  g_bytes_unref (got);
  gst_buffer_unref (out);
  stream_fixture_stop (&sf);
  gst_object_unref (sig);
  gst_object_unref (sem);
  test_sem_free (ts);
}

GST_END_TEST;

/* Without a semaphore cudasemsignal's fallback synchronises on the CPU:
 * the stream it synchronises must be the one the producer's work is on. */
GST_START_TEST (test_semsignal_fallback_syncs_memory_stream)
{
  StreamFixture sf;
  GstElement *sig;
  GstBuffer *out;
  GBytes *got;

  sig = gst_element_factory_make ("cudasemsignal", NULL);
  stream_fixture_start (&sf, sig);
  fail_unless_equals_int (gst_harness_push (sf.f.h, pending_frame (&sf)),
      GST_FLOW_OK);
  out = gst_harness_pull (sf.f.h);
  fail_unless_equals_uint64 (cs_stat (sig, "cpu-syncs"), 1);
  /* the work has completed: a consumer that trusts the synchronisation
   * reads the written frame, on a stream ordered with nothing */
  got = cs_read_unordered (out, &sf.f.info);
  assert_value_bytes (got, &sf.f.info, "cudasemsignal fallback=sync");
  g_bytes_unref (got);
  gst_buffer_unref (out);
  stream_fixture_stop (&sf);
  gst_object_unref (sig);
}

GST_END_TEST;

/* cudasemwait waits on the memory's own stream and marks the memory
 * pending, so that an upstream consumer (a CPU map: 1.24+ downloads on the
 * memory's stream) reads the frame only after the acquire point. */
GST_START_TEST (test_semwait_leaves_memory_pending)
{
  StreamFixture sf;
  TestSem *ts;
  GstCudaSemaphore *sem;
  GstElement *wait;
  GstCudaSyncMeta *meta;
  GstBuffer *in, *out;
  GBytes *got;
  CUstream writer;
  GError *err = NULL;
  guint64 value = 0;
  gint before;

  sem = cs_new_semaphore (NULL, TRUE, &ts);
  wait = gst_element_factory_make ("cudasemwait", NULL);
  stream_fixture_start (&sf, wait);

  /* the producer is done with the memory; another engine (a non-blocking
   * stream here) writes it and signals the acquire point, late */
  in = cs_new_buffer (sf.pool, SEED);
  GST_MEMORY_FLAG_UNSET (gst_buffer_peek_memory (in, 0),
      GST_CUDA_MEMORY_TRANSFER_NEED_SYNC);
  writer = cs_new_stream (CU_STREAM_NON_BLOCKING);
  if (cs_is_sim)
    cs_sim.set_delay_us ("cuMemsetD2D8Async", PRODUCER_DELAY_US);
  {
    GstMapInfo map;
    GstCudaMemory *cmem = GST_CUDA_MEMORY_CAST (gst_buffer_peek_memory (in,
            0));
    guint p;

    fail_unless (gst_memory_map (GST_MEMORY_CAST (cmem), &map,
            GST_MAP_READ | GST_MAP_CUDA));
    fail_unless (gst_cuda_context_push (cs_ctx));
    for (p = 0; p < GST_VIDEO_INFO_N_PLANES (&sf.f.info); p++)
      fail_unless_equals_int (cs_memset_2d_async ((CUdeviceptr) map.data +
              GST_VIDEO_INFO_PLANE_OFFSET (&cmem->info, p),
              GST_VIDEO_INFO_PLANE_STRIDE (&cmem->info, p), VALUE,
              GST_VIDEO_INFO_PLANE_STRIDE (&cmem->info, p),
              GST_VIDEO_INFO_COMP_HEIGHT (&sf.f.info, p), writer),
          CUDA_SUCCESS);
    gst_cuda_context_pop (NULL);
    gst_memory_unmap (GST_MEMORY_CAST (cmem), &map);
  }
  fail_unless (gst_cuda_semaphore_signal (sem, writer, &value, &err), "%s",
      err ? err->message : "?");
  meta = gst_buffer_add_cuda_sync_meta (in);
  gst_cuda_sync_meta_add_acquire (meta, sem, value);

  before = cs_sim_thread_syncs ();
  fail_unless_equals_int (gst_harness_push (sf.f.h, in), GST_FLOW_OK);
  out = gst_harness_pull (sf.f.h);
  if (cs_is_sim)
    fail_unless_equals_int (cs_sim_thread_syncs () - before, 0);
  fail_unless_equals_uint64 (cs_stat (wait, "waits"), 1);
  fail_unless_equals_uint64 (cs_stat (wait, "cpu-syncs"), 0);
  fail_unless (GST_MEMORY_FLAG_IS_SET (gst_buffer_peek_memory (out, 0),
          GST_CUDA_MEMORY_TRANSFER_NEED_SYNC),
      "cudasemwait did not mark the memory pending");
  /* a CPU map, as cudadownload does */
  got = cs_buffer_bytes (out, &sf.f.info);
  assert_value_bytes (got, &sf.f.info, "cudasemwait");

  g_bytes_unref (got);
  gst_buffer_unref (out);
  cs_free_stream (writer);
  stream_fixture_stop (&sf);
  gst_object_unref (wait);
  gst_object_unref (sem);
  test_sem_free (ts);
}

GST_END_TEST;

/* The library call the elements use: an event wait, no CPU wait, nothing
 * for memory without pending work. */
GST_START_TEST (test_wait_pending_is_a_gpu_wait)
{
  StreamFixture sf;
  GstElement *identity;
  GstBuffer *buf;
  CUstream consumer;
  GError *err = NULL;
  gint before;

  identity = gst_element_factory_make ("cudasemwait", NULL);
  stream_fixture_start (&sf, identity);
  buf = pending_frame (&sf);
  consumer = cs_new_stream (CU_STREAM_NON_BLOCKING);

  fail_unless (gst_cuda_sync_memory_get_stream (gst_buffer_peek_memory (buf,
              0)) != NULL);
  before = cs_sim_thread_syncs ();
  fail_unless (gst_cuda_sync_memory_wait_pending (gst_buffer_peek_memory (buf,
              0), consumer, &err), "%s", err ? err->message : "?");
  if (cs_is_sim) {
    fail_unless_equals_int (cs_sim_thread_syncs () - before, 0);
    CUresult (*query) (CUstream) = cs_driver_symbol ("cuStreamQuery");

    /* ordered, not done: the producer's write is still delayed */
    fail_unless (gst_cuda_context_push (cs_ctx));
    fail_unless_equals_int (query (consumer), CUDA_ERROR_NOT_READY);
    gst_cuda_context_pop (NULL);
  }
  cs_free_stream (consumer);
  gst_buffer_unref (buf);
  stream_fixture_stop (&sf);
  gst_object_unref (identity);
}

GST_END_TEST;

/* The other direction: a consumer still reading on its own stream gives
 * the memory back at once; the memory's stream (its pool's next writer's)
 * waits for those reads on the GPU. Memory without a stream: not ordered,
 * the consumer must keep it. */
GST_START_TEST (test_order_reuse_is_a_gpu_wait)
{
  StreamFixture sf;
  GstElement *identity;
  GstBuffer *buf, *plain;
  GstBufferPool *plain_pool;
  GstMemory *mem;
  CUstream consumer, mem_stream;
  GError *err = NULL;
  gboolean ordered = FALSE;
  gint before;

  identity = gst_element_factory_make ("cudasemwait", NULL);
  stream_fixture_start (&sf, identity);
  buf = cs_new_buffer (sf.pool, SEED);
  mem = gst_buffer_peek_memory (buf, 0);
  mem_stream = gst_cuda_sync_memory_get_stream (mem);
  consumer = cs_new_stream (CU_STREAM_NON_BLOCKING);

  /* the consumer's "read": a slowed write into scratch memory */
  if (cs_is_sim)
    cs_sim.set_delay_us ("cuMemsetD2D8Async", PRODUCER_DELAY_US);
  fail_unless (gst_cuda_context_push (cs_ctx));
  {
    CUdeviceptr scratch;
    CUresult (*alloc) (CUdeviceptr *, size_t) =
        cs_driver_symbol ("cuMemAlloc_v2");
    CUresult (*mfree) (CUdeviceptr) = cs_driver_symbol ("cuMemFree_v2");
    CUresult (*query) (CUstream) = cs_driver_symbol ("cuStreamQuery");
    CUresult (*sync) (CUstream) = cs_driver_symbol ("cuStreamSynchronize");

    fail_unless_equals_int (alloc (&scratch, 64 * 4), CUDA_SUCCESS);
    fail_unless_equals_int (cs_memset_2d_async (scratch, 64, VALUE, 64, 4,
            consumer), CUDA_SUCCESS);
    before = cs_sim_thread_syncs ();
    fail_unless (gst_cuda_sync_memory_order_reuse (mem, consumer, &ordered,
            &err), "%s", err ? err->message : "?");
    fail_unless (ordered);
    fail_unless_equals_int (cs_sim_thread_syncs () - before, 0);
    /* pending for later readers */
    fail_unless (GST_MINI_OBJECT_FLAG_IS_SET (mem,
            GST_CUDA_MEMORY_TRANSFER_NEED_SYNC));
    if (cs_is_sim) {
      /* the memory's stream waits for the consumer's delayed work */
      fail_unless_equals_int (query (mem_stream), CUDA_ERROR_NOT_READY);
    }
    fail_unless_equals_int (sync (consumer), CUDA_SUCCESS);
    fail_unless_equals_int (sync (mem_stream), CUDA_SUCCESS);
    fail_unless_equals_int (mfree (scratch), CUDA_SUCCESS);
  }
  gst_cuda_context_pop (NULL);

  /* memory without a stream: nothing ordered, nothing waited */
  plain_pool = cs_new_pool (sf.f.caps);
  plain = cs_new_buffer (plain_pool, SEED);
  ordered = TRUE;
  before = cs_sim_thread_syncs ();
  fail_unless (gst_cuda_sync_memory_order_reuse (gst_buffer_peek_memory (plain,
              0), consumer, &ordered, &err));
  fail_if (ordered);
  fail_unless_equals_int (cs_sim_thread_syncs () - before, 0);
  gst_buffer_unref (plain);
  gst_buffer_pool_set_active (plain_pool, FALSE);
  gst_object_unref (plain_pool);

  cs_free_stream (consumer);
  gst_buffer_unref (buf);
  stream_fixture_stop (&sf);
  gst_object_unref (identity);
}

GST_END_TEST;

#else /* GStreamer 1.22 */

/* 1.22's CUDA memory has no stream: the library's helpers do nothing */
GST_START_TEST (test_no_stream_before_1_24)
{
  GstCaps *caps = cs_caps ("NV12", 64, 48);
  GstBufferPool *pool = cs_new_pool (caps);
  GstBuffer *buf = cs_new_buffer (pool, SEED);
  GstMemory *mem = gst_buffer_peek_memory (buf, 0);
  GError *err = NULL;
  gint before = cs_sim_thread_syncs ();

  fail_unless (gst_cuda_sync_memory_get_stream (mem) == NULL);
  fail_unless (gst_cuda_sync_memory_wait_pending (mem, NULL, &err));
  fail_unless (err == NULL);
  {
    gboolean ordered = TRUE;

    fail_unless (gst_cuda_sync_memory_order_reuse (mem, NULL, &ordered, &err));
    fail_if (ordered);
  }
  gst_cuda_sync_memory_mark_pending (mem);
  fail_unless_equals_int (cs_sim_thread_syncs () - before, 0);
  g_print ("SKIP: the stream-contract tests: GStreamer 1.22's CUDA memory "
      "carries no stream\n");
  gst_buffer_unref (buf);
  gst_buffer_pool_set_active (pool, FALSE);
  gst_object_unref (pool);
  gst_caps_unref (caps);
}

GST_END_TEST;
#endif

static Suite *
cudastream_suite (void)
{
  Suite *s = suite_create ("cudastream");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_checked_fixture (tc, cs_setup, cs_teardown);
#if GST_CHECK_VERSION(1, 24, 0)
  tcase_add_test (tc, test_semsignal_covers_pending_work);
  tcase_add_test (tc, test_semsignal_fallback_syncs_memory_stream);
  tcase_add_test (tc, test_semwait_leaves_memory_pending);
  tcase_add_test (tc, test_wait_pending_is_a_gpu_wait);
  tcase_add_test (tc, test_order_reuse_is_a_gpu_wait);
#else
  tcase_add_test (tc, test_no_stream_before_1_24);
#endif
  return s;
}

GST_CHECK_MAIN (cudastream);

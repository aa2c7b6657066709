/* cudasim self-test: streams, events, copies and memsets, host functions,
 * CPU sync and spin-wait accounting.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "test-cudasim.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

void
test_async_copy (void)
{
  CUstream s;
  CUdeviceptr d, d2;
  size_t n = 1 << 20, i;
  unsigned char *a = malloc (n), *b = malloc (n), *c = malloc (n);
  int ok = 1;

  SECTION ("async memcpy ordering and bytes");
  for (i = 0; i < n; i++)
    a[i] = (unsigned char) (i * 7 + 3);
  memset (b, 0, n);
  memset (c, 0, n);
  CU_OK (cu.cuStreamCreate (&s, CU_STREAM_NON_BLOCKING));
  CU_OK (cu.cuMemAlloc_v2 (&d, n));
  CU_OK (cu.cuMemAlloc_v2 (&d2, n));
  sim.set_delay_us (NULL, 5000);
  CU_OK (cu.cuMemcpyHtoDAsync_v2 (d, a, n, s));
  CU_OK (cu.cuMemcpyDtoHAsync_v2 (b, d, n, s));
  CU_OK (cu.cuMemsetD8Async (d, 0x5a, n, s));
  CU_OK (cu.cuMemcpyDtoHAsync_v2 (c, d, n, s));
  CHECK (cu.cuStreamQuery (s) == CUDA_ERROR_NOT_READY,
      "cuStreamQuery: NOT_READY while work is queued");
  CU_OK (cu.cuStreamSynchronize (s));
  sim.set_delay_us (NULL, 0);
  CHECK (cu.cuStreamQuery (s) == CUDA_SUCCESS, "cuStreamQuery: idle");
  CHECK (memcmp (a, b, n) == 0, "HtoD then DtoH round-trips the bytes");
  for (i = 0; i < n; i++)
    ok &= c[i] == 0x5a;
  CHECK (ok, "memset after the copy is seen by the next copy (in order)");

  /* 2D copy with pitch, like GStreamer does */
  {
    CUdeviceptr p;
    size_t pitch = 0, w = 321, h = 17;
    unsigned char *src = malloc (w * h), *dst = calloc (1, w * h);
    CUDA_MEMCPY2D c2d;
    for (i = 0; i < w * h; i++)
      src[i] = (unsigned char) (i * 13);
    CU_OK (cu.cuMemAllocPitch_v2 (&p, &pitch, w, h, 16));
    CHECK (pitch >= w && pitch % 512 == 0, "pitch %zu >= width, aligned",
        pitch);
    memset (&c2d, 0, sizeof (c2d));
    c2d.srcMemoryType = CU_MEMORYTYPE_HOST;
    c2d.srcHost = src;
    c2d.srcPitch = w;
    c2d.dstMemoryType = CU_MEMORYTYPE_DEVICE;
    c2d.dstDevice = p;
    c2d.dstPitch = pitch;
    c2d.WidthInBytes = w;
    c2d.Height = h;
    CU_OK (cu.cuMemcpy2D_v2 (&c2d));
    memset (&c2d, 0, sizeof (c2d));
    c2d.srcMemoryType = CU_MEMORYTYPE_UNIFIED;
    c2d.srcDevice = p;
    c2d.srcPitch = pitch;
    c2d.dstMemoryType = CU_MEMORYTYPE_HOST;
    c2d.dstHost = dst;
    c2d.dstPitch = w;
    c2d.WidthInBytes = w;
    c2d.Height = h;
    CU_OK (cu.cuMemcpy2DAsync_v2 (&c2d, s));
    CU_OK (cu.cuStreamSynchronize (s));
    CHECK (memcmp (src, dst, w * h) == 0, "pitched 2D copies round-trip");
    c2d.Height = h + 1;
    CHECK (cu.cuMemcpy2DAsync_v2 (&c2d, s) == CUDA_ERROR_INVALID_VALUE,
        "copy beyond the allocation -> CUDA_ERROR_INVALID_VALUE");
    c2d.Height = h;
    c2d.srcMemoryType = CU_MEMORYTYPE_ARRAY;
    CHECK (cu.cuMemcpy2DAsync_v2 (&c2d, s) == CUDA_ERROR_NOT_SUPPORTED,
        "array copies -> CUDA_ERROR_NOT_SUPPORTED");
    CU_OK (cu.cuMemFree_v2 (p));
    free (src);
    free (dst);
  }
  {
    void *hp = NULL;
    CU_OK (cu.cuMemAllocHost_v2 (&hp, 4096));
    CHECK (sim.live_objects ("hostalloc") == 1, "pinned host allocation");
    CU_OK (cu.cuMemFreeHost (hp));
  }

  CU_OK (cu.cuMemFree_v2 (d));
  CU_OK (cu.cuMemFree_v2 (d2));
  CHECK (cu.cuMemFree_v2 (d) == CUDA_ERROR_INVALID_VALUE,
      "double cuMemFree -> CUDA_ERROR_INVALID_VALUE");
  CU_OK (cu.cuStreamDestroy_v2 (s));
  free (a);
  free (b);
  free (c);
}

void
test_nonblocking_caller (void)
{
  CUstream s;
  CUdeviceptr d;
  unsigned char h[64];
  double t0, t_enq, t_sync;

  SECTION ("a delayed stream does not block the caller");
  CU_OK (cu.cuStreamCreate (&s, 0));
  CU_OK (cu.cuMemAlloc_v2 (&d, sizeof (h)));
  memset (h, 1, sizeof (h));
  sim.set_delay_us ("cuMemcpyHtoDAsync_v2", 300000);
  t0 = now_ms ();
  CU_OK (cu.cuMemcpyHtoDAsync_v2 (d, h, sizeof (h), s));
  t_enq = now_ms () - t0;
  CHECK (t_enq < 100, "enqueue returned after %.1f ms (delay 300 ms)", t_enq);
  CHECK (cu.cuStreamQuery (s) == CUDA_ERROR_NOT_READY, "still running");
  CU_OK (cu.cuStreamSynchronize (s));
  t_sync = now_ms () - t0;
  CHECK (t_sync >= 290, "cuStreamSynchronize waited for the delay "
      "(%.1f ms)", t_sync);
  sim.set_delay_us ("cuMemcpyHtoDAsync_v2", 0);
  CU_OK (cu.cuMemFree_v2 (d));
  CU_OK (cu.cuStreamDestroy_v2 (s));
}

void
test_legacy_stream (void)
{
  CUstream blocking, nonblocking;
  CUdeviceptr d1, d2;
  unsigned char v1 = 0, v2 = 0;
  double t0, t;

  SECTION ("legacy default stream semantics");
  CU_OK (cu.cuStreamCreate (&blocking, CU_STREAM_DEFAULT));
  CU_OK (cu.cuStreamCreate (&nonblocking, CU_STREAM_NON_BLOCKING));
  CU_OK (cu.cuMemAlloc_v2 (&d1, 1));
  CU_OK (cu.cuMemAlloc_v2 (&d2, 1));
  CU_OK (cu.cuMemsetD8_v2 (d1, 0, 1));
  CU_OK (cu.cuMemsetD8_v2 (d2, 0, 1));

  sim.set_delay_us ("cuMemsetD8Async", 300000);

  /* null stream waits for earlier work on blocking streams */
  CU_OK (cu.cuMemsetD8Async (d1, 1, 1, blocking));
  t0 = now_ms ();
  CU_OK (cu.cuMemcpyDtoH_v2 (&v1, d1, 1));
  t = now_ms () - t0;
  CHECK (v1 == 1 && t >= 250, "NULL-stream copy waited for the delayed "
      "blocking-stream memset (value %d after %.0f ms)", v1, t);

  /* ... but not for non-blocking streams */
  CU_OK (cu.cuMemsetD8Async (d2, 2, 1, nonblocking));
  t0 = now_ms ();
  CU_OK (cu.cuMemcpyDtoH_v2 (&v2, d2, 1));
  t = now_ms () - t0;
  CHECK (v2 == 0 && t < 150, "NULL-stream copy did not wait for the "
      "non-blocking stream (value %d after %.0f ms)", v2, t);
  CU_OK (cu.cuStreamSynchronize (nonblocking));

  /* blocking streams wait for earlier work on the null stream */
  CU_OK (cu.cuMemsetD8Async (d1, 3, 1, NULL));
  CU_OK (cu.cuMemcpyDtoHAsync_v2 (&v1, d1, 1, blocking));
  CU_OK (cu.cuMemcpyDtoHAsync_v2 (&v2, d1, 1, nonblocking));
  CU_OK (cu.cuStreamSynchronize (nonblocking));
  CHECK (v2 == 1, "non-blocking stream did not wait for the NULL stream "
      "(saw %d)", v2);
  CU_OK (cu.cuStreamSynchronize (blocking));
  CHECK (v1 == 3, "blocking stream waited for the delayed NULL-stream "
      "memset (saw %d)", v1);

  /* cuStreamSynchronize(NULL) covers blocking-stream work */
  CU_OK (cu.cuMemsetD8Async (d1, 4, 1, blocking));
  CU_OK (cu.cuStreamSynchronize (NULL));
  CU_OK (cu.cuMemcpyDtoH_v2 (&v1, d1, 1));
  CHECK (v1 == 4, "cuStreamSynchronize(NULL) waited for a blocking stream");

  sim.set_delay_us ("cuMemsetD8Async", 0);
  CU_OK (cu.cuMemFree_v2 (d1));
  CU_OK (cu.cuMemFree_v2 (d2));
  CU_OK (cu.cuStreamDestroy_v2 (blocking));
  CU_OK (cu.cuStreamDestroy_v2 (nonblocking));
}

void
test_events (void)
{
  CUstream s1, s2;
  CUevent ev, e0, e1;
  CUdeviceptr d;
  unsigned char v = 0;
  float ms = -1;

  SECTION ("events across streams");
  CU_OK (cu.cuStreamCreate (&s1, CU_STREAM_NON_BLOCKING));
  CU_OK (cu.cuStreamCreate (&s2, CU_STREAM_NON_BLOCKING));
  CU_OK (cu.cuEventCreate (&ev, CU_EVENT_DISABLE_TIMING));
  CU_OK (cu.cuEventCreate (&e0, 0));
  CU_OK (cu.cuEventCreate (&e1, 0));
  CU_OK (cu.cuMemAlloc_v2 (&d, 1));
  CU_OK (cu.cuMemsetD8_v2 (d, 0, 1));
  CHECK (cu.cuEventQuery (ev) == CUDA_SUCCESS,
      "a never-recorded event is complete");

  sim.set_delay_us ("cuMemsetD8Async", 200000);
  CU_OK (cu.cuEventRecord (e0, s1));
  CU_OK (cu.cuMemsetD8Async (d, 7, 1, s1));
  CU_OK (cu.cuEventRecord (ev, s1));
  CU_OK (cu.cuEventRecord (e1, s1));
  CHECK (cu.cuEventQuery (ev) == CUDA_ERROR_NOT_READY,
      "event query: NOT_READY before the work completes");
  CU_OK (cu.cuStreamWaitEvent (s2, ev, 0));
  CU_OK (cu.cuMemcpyDtoHAsync_v2 (&v, d, 1, s2));
  CU_OK (cu.cuStreamSynchronize (s2));
  CHECK (v == 7, "stream 2 waited for the event recorded on stream 1 "
      "(saw %d)", v);
  CU_OK (cu.cuEventSynchronize (e1));
  CHECK (cu.cuEventQuery (ev) == CUDA_SUCCESS, "event complete");
  CU_OK (cu.cuEventElapsedTime_v2 (&ms, e0, e1));
  CHECK (ms >= 150, "elapsed time covers the delayed memset (%.1f ms)", ms);
  CHECK (cu.cuEventElapsedTime_v2 (&ms, e0, ev) == CUDA_ERROR_INVALID_HANDLE,
      "elapsed time with a DISABLE_TIMING event -> INVALID_HANDLE");
  sim.set_delay_us ("cuMemsetD8Async", 0);

  CU_OK (cu.cuEventDestroy_v2 (ev));
  CU_OK (cu.cuEventDestroy_v2 (e0));
  CU_OK (cu.cuEventDestroy_v2 (e1));
  CU_OK (cu.cuMemFree_v2 (d));
  CU_OK (cu.cuStreamDestroy_v2 (s1));
  CU_OK (cu.cuStreamDestroy_v2 (s2));
}

static int host_fn_order[4];
static int host_fn_n;
static CUresult host_fn_nested = CUDA_SUCCESS;

static void
host_fn (void *data)
{
  host_fn_order[host_fn_n++] = (int) (intptr_t) data;
  if ((intptr_t) data == 2) {
    CUcontext c;
    host_fn_nested = cu.cuCtxGetCurrent (&c);
  }
}

void
test_host_func (void)
{
  CUstream s;
  unsigned before;

  SECTION ("host functions");
  CU_OK (cu.cuStreamCreate (&s, CU_STREAM_NON_BLOCKING));
  before = sim.violation_count ();
  CU_OK (cu.cuLaunchHostFunc (s, host_fn, (void *) 1));
  CU_OK (cu.cuLaunchHostFunc (s, host_fn, (void *) 2));
  CU_OK (cu.cuLaunchHostFunc (s, host_fn, (void *) 3));
  CU_OK (cu.cuStreamSynchronize (s));
  CHECK (host_fn_n == 3 && host_fn_order[0] == 1 && host_fn_order[1] == 2 &&
      host_fn_order[2] == 3, "host functions run in order");
  CHECK (host_fn_nested == CUDA_ERROR_NOT_PERMITTED &&
      sim.violation_count () == before + 1,
      "a CUDA call from a host function is a violation: %s",
      sim.last_violation ()? sim.last_violation () : "(none)");
  CU_OK (cu.cuStreamDestroy_v2 (s));
}

typedef struct
{
  CUcontext ctx;
  unsigned syncs;
} SyncThreadData;

static void *
sync_thread (void *data)
{
  SyncThreadData *t = data;
  CUevent ev;

  cu.cuCtxPushCurrent_v2 (t->ctx);
  cu.cuEventCreate (&ev, 0);
  cu.cuEventRecord (ev, NULL);
  cu.cuCtxSynchronize ();
  cu.cuEventSynchronize (ev);
  cu.cuEventQuery (ev);
  cu.cuEventDestroy_v2 (ev);
  cu.cuCtxPopCurrent_v2 (NULL);
  t->syncs = sim.thread_cpu_syncs ();
  return NULL;
}

void
test_cpu_syncs (void)
{
  CUstream s;
  CUdeviceptr d;
  unsigned char buf[16] = { 0 };
  pthread_t th;
  SyncThreadData td;

  SECTION ("CPU sync accounting");
  CU_OK (cu.cuStreamCreate (&s, 0));
  CU_OK (cu.cuMemAlloc_v2 (&d, sizeof (buf)));
  sim.reset_counters ();
  CHECK (sim.thread_cpu_syncs () == 0 && sim.total_cpu_syncs () == 0,
      "counters reset");
  CU_OK (cu.cuMemcpyHtoDAsync_v2 (d, buf, sizeof (buf), s));
  CU_OK (cu.cuStreamQuery (s) == CUDA_ERROR_NOT_READY ? CUDA_SUCCESS :
      cu.cuStreamQuery (s));
  CU_OK (cu.cuStreamSynchronize (s));
  CU_OK (cu.cuStreamSynchronize (s));
  CU_OK (cu.cuMemcpyHtoD_v2 (d, buf, sizeof (buf)));
  CU_OK (cu.cuMemcpyDtoH_v2 (buf, d, sizeof (buf)));
  td.ctx = ctx;
  td.syncs = 0;
  pthread_create (&th, NULL, sync_thread, &td);
  pthread_join (th, NULL);
  CHECK (sim.thread_cpu_syncs () == 4, "main thread: 4 syncs (got %u)",
      sim.thread_cpu_syncs ());
  CHECK (td.syncs == 2, "other thread: 2 syncs (got %u)", td.syncs);
  CHECK (sim.total_cpu_syncs () == 6, "total: 6 (got %u)",
      sim.total_cpu_syncs ());
  CU_OK (cu.cuMemFree_v2 (d));
  CU_OK (cu.cuStreamDestroy_v2 (s));
}

/* a wait for pending work on an event made without BLOCKING_SYNC is a
 * spinning wait; one on a blocking-sync event, or on a completed event,
 * is not */
void
test_spin_waits (void)
{
  CUstream s;
  CUdeviceptr d;
  CUevent spin, sleep;
  unsigned char buf[16] = { 0 };

  SECTION ("spinning waits");
  CU_OK (cu.cuStreamCreate (&s, 0));
  CU_OK (cu.cuMemAlloc_v2 (&d, sizeof (buf)));
  CU_OK (cu.cuEventCreate (&spin, 0));
  CU_OK (cu.cuEventCreate (&sleep, CU_EVENT_BLOCKING_SYNC));
  sim.reset_counters ();
  sim.set_delay_us ("cuMemcpyHtoDAsync_v2", 50000);
  CU_OK (cu.cuMemcpyHtoDAsync_v2 (d, buf, sizeof (buf), s));
  CU_OK (cu.cuEventRecord (sleep, s));
  CU_OK (cu.cuEventRecord (spin, s));
  CU_OK (cu.cuEventSynchronize (sleep));
  CHECK (sim.spin_waits () == 0, "blocking-sync event: no spin (got %u)",
      sim.spin_waits ());
  CU_OK (cu.cuMemcpyHtoDAsync_v2 (d, buf, sizeof (buf), s));
  CU_OK (cu.cuEventRecord (spin, s));
  CU_OK (cu.cuEventSynchronize (spin));
  CHECK (sim.spin_waits () == 1, "pending spinning event: 1 (got %u)",
      sim.spin_waits ());
  CU_OK (cu.cuEventSynchronize (spin));
  CHECK (sim.spin_waits () == 1, "completed event: still 1 (got %u)",
      sim.spin_waits ());
  sim.set_delay_us (NULL, 0);
  CU_OK (cu.cuEventDestroy_v2 (spin));
  CU_OK (cu.cuEventDestroy_v2 (sleep));
  CU_OK (cu.cuMemFree_v2 (d));
  CU_OK (cu.cuStreamDestroy_v2 (s));
}

/* counts the bytes of the pitch x rows buffer that are not what the memsets
 * of test_memset2d() left there */
static int
memset2d_errors (const unsigned char *h, size_t pitch, size_t rows)
{
  size_t r, c;
  int bad = 0;

  for (r = 0; r < rows; r++) {
    for (c = 0; c < pitch; c++) {
      unsigned char want = 0x11;
      if (r >= 1 && r < 4 && c < 100)
        want = 0xab;            /* D2D8Async, rows 1-3, 100 bytes */
      if (r >= 4 && r < 6 && c >= 16 && c < 36)
        want = (c % 2) ? 0x12 : 0x34;   /* D2D16Async 0x1234, 10 elements */
      if (r == 6 && c < 32) {
        static const unsigned char le[4] = { 0xef, 0xbe, 0xad, 0xde };
        want = le[c % 4];       /* D2D32Async 0xdeadbeef, 8 elements */
      }
      if (r == 7 && c >= 500)
        want = 0x77;            /* D2D8_v2, sync, 12 bytes */
      bad += h[r * pitch + c] != want;
    }
  }
  return bad;
}

void
test_memset2d (void)
{
  CUdeviceptr d, d2;
  CUstream s;
  size_t pitch = 0, rows = 8;
  unsigned char *h;
  unsigned syncs;
  double t0, t;
  int bad;

  SECTION ("2D memsets (libgstcuda 1.26+)");
  CU_OK (cu.cuStreamCreate (&s, CU_STREAM_DEFAULT));
  CU_OK (cu.cuMemAllocPitch_v2 (&d, &pitch, 300, rows, 16));
  h = malloc (pitch * rows);
  CU_OK (cu.cuMemsetD8_v2 (d, 0x11, pitch * rows));
  sim.set_delay_us ("cuMemsetD2D8Async", 200000);
  t0 = now_ms ();
  CU_OK (cu.cuMemsetD2D8Async (d + pitch, pitch, 0xab, 100, 3, s));
  t = now_ms () - t0;
  CHECK (t < 100 && cu.cuStreamQuery (s) == CUDA_ERROR_NOT_READY,
      "cuMemsetD2D8Async returns at once (%.1f ms) and its delay keeps the "
      "stream busy", t);
  CU_OK (cu.cuMemsetD2D16Async (d + 4 * pitch + 16, pitch, 0x1234, 10, 2, s));
  CU_OK (cu.cuMemsetD2D32Async (d + 6 * pitch, pitch, 0xdeadbeef, 8, 1, s));
  syncs = sim.thread_cpu_syncs ();
  /* the NULL stream waits for the blocking stream's memsets */
  CU_OK (cu.cuMemsetD2D8_v2 (d + 7 * pitch + 500, pitch, 0x77, 12, 1));
  t = now_ms () - t0;
  CHECK (t >= 190 && sim.thread_cpu_syncs () == syncs + 1,
      "cuMemsetD2D8_v2 is synchronous through the NULL stream (%.0f ms, "
      "%u CPU sync)", t, sim.thread_cpu_syncs () - syncs);
  sim.set_delay_us ("cuMemsetD2D8Async", 0);
  CU_OK (cu.cuMemcpyDtoH_v2 (h, d, pitch * rows));
  bad = memset2d_errors (h, pitch, rows);
  CHECK (bad == 0, "2D memsets wrote exactly their rectangles (%d wrong "
      "bytes)", bad);
  CHECK (cu.cuMemsetD2D8Async (d, pitch, 1, pitch + 1, 2, s) ==
      CUDA_ERROR_INVALID_VALUE, "pitch < width -> INVALID_VALUE");
  CHECK (cu.cuMemsetD2D8Async (d, pitch, 1, 10, rows + 1, s) ==
      CUDA_ERROR_INVALID_VALUE, "beyond the allocation -> INVALID_VALUE");
  CHECK (cu.cuMemsetD2D16_v2 (d + 1, pitch, 1, 10, 1) ==
      CUDA_ERROR_INVALID_VALUE, "misaligned 16-bit memset -> INVALID_VALUE");
  CU_OK (cu.cuMemAlloc_v2 (&d2, pitch * rows));
  CU_OK (cu.cuMemcpyDtoD_v2 (d2, d, pitch * rows));
  memset (h, 0, pitch * rows);
  CU_OK (cu.cuMemcpyDtoH_v2 (h, d2, pitch * rows));
  CHECK (memset2d_errors (h, pitch, rows) == 0, "cuMemcpyDtoD_v2 copied "
      "the bytes");
  CU_OK (cu.cuMemFree_v2 (d2));
  CU_OK (cu.cuMemFree_v2 (d));
  CU_OK (cu.cuStreamDestroy_v2 (s));
  free (h);
}

/* Two CU_STREAM_DEFAULT streams are not ordered with each other (only each
 * with the legacy NULL stream): a reader on B that does not wait for an
 * event of A sees the bytes from before A's delayed write. */
void
test_blocking_streams (void)
{
  CUstream a, b;
  CUevent ev;
  CUdeviceptr d, d2;
  unsigned char h[256];
  double t0, t;
  size_t i;
  int stale = 1, fresh = 1;

  SECTION ("two blocking streams are not ordered with each other");
  CU_OK (cu.cuStreamCreate (&a, CU_STREAM_DEFAULT));
  CU_OK (cu.cuStreamCreate (&b, CU_STREAM_DEFAULT));
  CU_OK (cu.cuEventCreate (&ev, CU_EVENT_DISABLE_TIMING));
  CU_OK (cu.cuMemAlloc_v2 (&d, sizeof (h)));
  CU_OK (cu.cuMemAlloc_v2 (&d2, 1));
  CU_OK (cu.cuMemsetD8_v2 (d, 0x11, sizeof (h)));
  sim.set_delay_us ("cuMemsetD2D8Async", 300000);

  CU_OK (cu.cuMemsetD2D8Async (d, 16, 0x22, 16, 16, a));
  t0 = now_ms ();
  CU_OK (cu.cuMemcpyDtoHAsync_v2 (h, d, sizeof (h), b));
  CU_OK (cu.cuStreamSynchronize (b));
  t = now_ms () - t0;
  for (i = 0; i < sizeof (h); i++)
    stale &= h[i] == 0x11;
  CHECK (stale && t < 150, "reader on blocking stream B saw the stale bytes "
      "after %.0f ms (A's write delayed 300 ms)", t);
  CU_OK (cu.cuStreamSynchronize (a));

  /* with an event wait, B is ordered after A */
  CU_OK (cu.cuMemsetD2D8Async (d, 16, 0x33, 16, 16, a));
  CU_OK (cu.cuEventRecord (ev, a));
  CU_OK (cu.cuStreamWaitEvent (b, ev, 0));
  CU_OK (cu.cuMemcpyDtoHAsync_v2 (h, d, sizeof (h), b));
  CU_OK (cu.cuStreamSynchronize (b));
  for (i = 0; i < sizeof (h); i++)
    fresh &= h[i] == 0x33;
  CHECK (fresh, "after cuStreamWaitEvent B sees A's write");

  /* through the legacy stream: A, then NULL-stream work, then B is ordered */
  CU_OK (cu.cuMemsetD2D8Async (d, 16, 0x44, 16, 16, a));
  CU_OK (cu.cuMemsetD8Async (d2, 0, 1, NULL));
  CU_OK (cu.cuMemcpyDtoHAsync_v2 (h, d, sizeof (h), b));
  CU_OK (cu.cuStreamSynchronize (b));
  fresh = 1;
  for (i = 0; i < sizeof (h); i++)
    fresh &= h[i] == 0x44;
  CHECK (fresh, "NULL-stream work between them orders B after A (legacy "
      "stream waits for A, B waits for the legacy stream)");
  sim.set_delay_us ("cuMemsetD2D8Async", 0);
  CU_OK (cu.cuEventDestroy_v2 (ev));
  CU_OK (cu.cuMemFree_v2 (d));
  CU_OK (cu.cuMemFree_v2 (d2));
  CU_OK (cu.cuStreamDestroy_v2 (a));
  CU_OK (cu.cuStreamDestroy_v2 (b));
}

/* CUDASIM_STREAM_DEPTH (default 1024): a stream takes that many operations
 * ahead; the next enqueue blocks the caller until the stream ran some */
void
test_stream_depth (void)
{
  const char *v = getenv ("CUDASIM_STREAM_DEPTH");
  int depth = v && *v ? atoi (v) : 1024, i, queued, ran;
  CUstream s;
  CUevent first, ev;
  CUdeviceptr d;
  double t0, t_fill, t_over;

  SECTION ("an enqueue on a full stream blocks until the stream ran some");
  if (depth < 2 || depth > 100000) {
    printf ("  skipped: CUDASIM_STREAM_DEPTH=%d\n", depth);
    return;
  }
  CU_OK (cu.cuStreamCreate (&s, CU_STREAM_NON_BLOCKING));
  CU_OK (cu.cuEventCreate (&first, CU_EVENT_DISABLE_TIMING));
  CU_OK (cu.cuEventCreate (&ev, CU_EVENT_DISABLE_TIMING));
  CU_OK (cu.cuMemAlloc_v2 (&d, 1));
  sim.set_delay_us ("cuMemsetD8Async", 300000);
  t0 = now_ms ();
  /* the delayed memset, then records: depth operations queued */
  CU_OK (cu.cuMemsetD8Async (d, 0, 1, s));
  CU_OK (cu.cuEventRecord (first, s));
  for (i = 2; i < depth; i++)
    CU_OK (cu.cuEventRecord (ev, s));
  t_fill = now_ms () - t0;
  queued = cu.cuEventQuery (first) == CUDA_ERROR_NOT_READY;
  CHECK (queued && t_fill < 150, "%d operations queued in %.0f ms, none "
      "run", depth, t_fill);
  CU_OK (cu.cuEventRecord (ev, s));
  t_over = now_ms () - t0;
  ran = cu.cuEventQuery (first) == CUDA_SUCCESS;
  CHECK (ran && t_over >= 250, "operation %d returned after %.0f ms, once "
      "the memset (300 ms) had run", depth + 1, t_over);
  sim.set_delay_us ("cuMemsetD8Async", 0);
  CU_OK (cu.cuStreamSynchronize (s));
  CU_OK (cu.cuEventDestroy_v2 (first));
  CU_OK (cu.cuEventDestroy_v2 (ev));
  CU_OK (cu.cuMemFree_v2 (d));
  CU_OK (cu.cuStreamDestroy_v2 (s));
}

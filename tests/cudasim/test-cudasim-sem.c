/* cudasim self-test: external semaphores (timeline, binary, import
 * errors), violations, fault injection, and several threads at once.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "test-cudasim.h"

#include <fcntl.h>
#include <pthread.h>
#include <string.h>
#include <unistd.h>

void
test_semaphores (void)
{
  CUstream sa, sb;
  CUexternalSemaphore es_a, es_b, es_bin;
  CUdeviceptr d;
  unsigned char v = 0;
  int tl, bin;
  CUresult r;
  double t0, t;

  SECTION ("timeline semaphore across two streams");
  CU_OK (cu.cuStreamCreate (&sa, CU_STREAM_NON_BLOCKING));
  CU_OK (cu.cuStreamCreate (&sb, CU_STREAM_NON_BLOCKING));
  CU_OK (cu.cuMemAlloc_v2 (&d, 1));
  CU_OK (cu.cuMemsetD8_v2 (d, 0, 1));
  tl = sim.sem_create (CUDASIM_SEM_TIMELINE, 0);
  CHECK (tl > 0, "timeline semaphore created (id %d)", tl);
  es_a =
      import_sem (tl, CU_EXTERNAL_SEMAPHORE_HANDLE_TYPE_TIMELINE_SEMAPHORE_FD,
      &r);
  CU_OK (r);
  es_b =
      import_sem (tl, CU_EXTERNAL_SEMAPHORE_HANDLE_TYPE_TIMELINE_SEMAPHORE_FD,
      &r);
  CU_OK (r);
  CHECK (sim.live_objects ("extsem") == 2, "two imported handles");

  sim.set_delay_us ("cuMemsetD8Async", 200000);
  t0 = now_ms ();
  CU_OK (extsem_wait (es_b, 1, sb));
  CU_OK (cu.cuMemcpyDtoHAsync_v2 (&v, d, 1, sb));
  CU_OK (cu.cuMemsetD8Async (d, 9, 1, sa));
  CU_OK (extsem_signal (es_a, 1, sa));
  CU_OK (cu.cuStreamSynchronize (sb));
  t = now_ms () - t0;
  CHECK (v == 9 && t >= 190, "the waiting stream's copy ran after the "
      "signal (saw %d after %.0f ms)", v, t);
  CHECK (sim.sem_get_value (tl) == 1, "timeline value is 1");
  sim.set_delay_us ("cuMemsetD8Async", 0);

  SECTION ("host signal wakes a stream wait; stream signal wakes a host wait");
  CU_OK (extsem_wait (es_b, 5, sb));
  CU_OK (cu.cuMemsetD8Async (d, 4, 1, sb));
  sleep_ms (100);
  CHECK (cu.cuStreamQuery (sb) == CUDA_ERROR_NOT_READY,
      "stream blocked on the semaphore wait");
  CHECK (sim.sem_host_signal (tl, 5) == 0, "host signal 5");
  CU_OK (cu.cuStreamSynchronize (sb));
  CHECK (cu.cuStreamQuery (sb) == CUDA_SUCCESS, "stream resumed");
  sim.set_delay_us ("cuSignalExternalSemaphoresAsync", 100000);
  CU_OK (extsem_signal (es_a, 7, sa));
  CHECK (sim.sem_host_wait (tl, 7, 50ull * 1000000) == -1,
      "host wait times out while the delayed signal is pending");
  CHECK (sim.sem_host_wait (tl, 7, 5000ull * 1000000) == 0,
      "host wait returns once the stream signalled 7");
  sim.set_delay_us ("cuSignalExternalSemaphoresAsync", 0);

  SECTION ("binary semaphore");
  bin = sim.sem_create (CUDASIM_SEM_BINARY, 0);
  es_bin = import_sem (bin, CU_EXTERNAL_SEMAPHORE_HANDLE_TYPE_OPAQUE_FD, &r);
  CU_OK (r);
  CU_OK (extsem_wait (es_bin, 0, sb));
  CU_OK (cu.cuMemsetD8Async (d, 5, 1, sb));
  sleep_ms (50);
  CHECK (cu.cuStreamQuery (sb) == CUDA_ERROR_NOT_READY,
      "stream blocked on the binary wait");
  CHECK (sim.sem_host_signal (bin, 1) == 0, "host signals the binary "
      "semaphore");
  CU_OK (cu.cuStreamSynchronize (sb));
  CHECK (sim.sem_get_value (bin) == 0, "the wait consumed the signal");
  CU_OK (extsem_signal (es_bin, 0, sa));
  CHECK (sim.sem_host_wait (bin, 0, 5000ull * 1000000) == 0,
      "host wait consumes a stream signal");
  CHECK (sim.sem_get_value (bin) == 0, "unsignalled again");

  CU_OK (cu.cuDestroyExternalSemaphore (es_a));
  CU_OK (cu.cuDestroyExternalSemaphore (es_b));
  CU_OK (cu.cuDestroyExternalSemaphore (es_bin));
  sim.sem_unref (tl);
  sim.sem_unref (bin);
  CU_OK (cu.cuMemFree_v2 (d));
  CU_OK (cu.cuStreamDestroy_v2 (sa));
  CU_OK (cu.cuStreamDestroy_v2 (sb));
}

void
test_import_errors (void)
{
  CUDA_EXTERNAL_SEMAPHORE_HANDLE_DESC desc;
  CUexternalSemaphore es = NULL;
  int bin = sim.sem_create (CUDASIM_SEM_BINARY, 0);
  int tl = sim.sem_create (CUDASIM_SEM_TIMELINE, 0);
  int fd, p[2];
  CUresult r;

  SECTION ("semaphore import errors and fd ownership");
  memset (&desc, 0, sizeof (desc));

  desc.type = CU_EXTERNAL_SEMAPHORE_HANDLE_TYPE_OPAQUE_FD;
  desc.handle.fd = fd = open ("/dev/null", O_RDWR);
  r = cu.cuImportExternalSemaphore (&es, &desc);
  CHECK (r == CUDA_ERROR_INVALID_HANDLE && fd_is_open (fd),
      "foreign fd (/dev/null) -> INVALID_HANDLE (%d), fd left open", r);
  close (fd);

  CHECK (pipe (p) == 0, "pipe");
  desc.handle.fd = p[0];
  r = cu.cuImportExternalSemaphore (&es, &desc);
  CHECK (r == CUDA_ERROR_INVALID_HANDLE, "foreign fd (pipe) -> "
      "INVALID_HANDLE (%d)", r);
  close (p[0]);
  close (p[1]);

  desc.handle.fd = fd = sim.mem_create (4096);
  r = cu.cuImportExternalSemaphore (&es, &desc);
  CHECK (r == CUDA_ERROR_INVALID_HANDLE, "foreign memfd -> INVALID_HANDLE "
      "(%d)", r);
  close (fd);

  desc.handle.fd = fd = sim.sem_export_fd (bin);
  close (fd);
  r = cu.cuImportExternalSemaphore (&es, &desc);
  CHECK (r == CUDA_ERROR_INVALID_HANDLE, "closed fd -> INVALID_HANDLE (%d)", r);

  desc.handle.fd = -1;
  r = cu.cuImportExternalSemaphore (&es, &desc);
  CHECK (r == CUDA_ERROR_INVALID_VALUE, "fd -1 -> INVALID_VALUE (%d)", r);

  desc.type = CU_EXTERNAL_SEMAPHORE_HANDLE_TYPE_TIMELINE_SEMAPHORE_FD;
  desc.handle.fd = fd = sim.sem_export_fd (bin);
  r = cu.cuImportExternalSemaphore (&es, &desc);
  CHECK (r == CUDA_ERROR_INVALID_VALUE && fd_is_open (fd),
      "binary fd imported as timeline -> INVALID_VALUE (%d), fd left open", r);
  close (fd);

  desc.type = CU_EXTERNAL_SEMAPHORE_HANDLE_TYPE_OPAQUE_FD;
  desc.handle.fd = fd = sim.sem_export_fd (tl);
  r = cu.cuImportExternalSemaphore (&es, &desc);
  CHECK (r == CUDA_ERROR_INVALID_VALUE, "timeline fd imported as binary -> "
      "INVALID_VALUE (%d)", r);
  close (fd);

  desc.type = CU_EXTERNAL_SEMAPHORE_HANDLE_TYPE_OPAQUE_WIN32;
  r = cu.cuImportExternalSemaphore (&es, &desc);
  CHECK (r == CUDA_ERROR_NOT_SUPPORTED, "win32 handle -> NOT_SUPPORTED");
  desc.type = CU_EXTERNAL_SEMAPHORE_HANDLE_TYPE_NVSCISYNC;
  desc.handle.nvSciSyncObj = NULL;
  r = cu.cuImportExternalSemaphore (&es, &desc);
  CHECK (r == CUDA_ERROR_INVALID_VALUE, "NvSciSync, NULL object -> "
      "INVALID_VALUE (%d)", r);
  desc.handle.nvSciSyncObj = &desc;
  r = cu.cuImportExternalSemaphore (&es, &desc);
  CHECK (r == CUDA_ERROR_INVALID_HANDLE, "NvSciSync, not an NvSciSyncObj "
      "-> INVALID_HANDLE (%d)", r);
  memset (&desc, 0, sizeof (desc));

  desc.type = CU_EXTERNAL_SEMAPHORE_HANDLE_TYPE_TIMELINE_SEMAPHORE_FD;
  desc.handle.fd = fd = sim.sem_export_fd (tl);
  r = cu.cuImportExternalSemaphore (&es, &desc);
  CHECK (r == CUDA_SUCCESS && !fd_is_open (fd),
      "successful import takes ownership of the fd (closed)");
  if (r == CUDA_SUCCESS)
    CU_OK (cu.cuDestroyExternalSemaphore (es));

  sim.sem_unref (bin);
  sim.sem_unref (tl);
}

void
test_violations (void)
{
  CUstream s, s_dead;
  CUevent ev_dead;
  CUexternalSemaphore es, es_bin;
  unsigned before;
  int tl, bin;
  CUresult r;

  SECTION ("violations (record mode)");
  sim.reset_counters ();
  CU_OK (cu.cuStreamCreate (&s, CU_STREAM_NON_BLOCKING));
  tl = sim.sem_create (CUDASIM_SEM_TIMELINE, 5);
  bin = sim.sem_create (CUDASIM_SEM_BINARY, 0);
  es = import_sem (tl, CU_EXTERNAL_SEMAPHORE_HANDLE_TYPE_TIMELINE_SEMAPHORE_FD,
      &r);
  CU_OK (r);
  es_bin = import_sem (bin, CU_EXTERNAL_SEMAPHORE_HANDLE_TYPE_OPAQUE_FD, &r);
  CU_OK (r);

  before = sim.violation_count ();
  CHECK (sim.sem_host_signal (tl, 3) == -1 &&
      sim.violation_count () == before + 1,
      "host signal with a lower timeline value: %s",
      sim.last_violation ()? sim.last_violation () : "(none)");

  before = sim.violation_count ();
  r = extsem_signal (es, 5, s);
  CHECK (r == CUDA_ERROR_INVALID_VALUE && sim.violation_count () == before + 1,
      "non-increasing timeline signal detected at call time (%d): %s", r,
      sim.last_violation ()? sim.last_violation () : "(none)");

  before = sim.violation_count ();
  sim.set_delay_us ("cuSignalExternalSemaphoresAsync", 50000);
  CU_OK (extsem_signal (es, 10, s));
  CU_OK (extsem_signal (es, 10, s));
  CU_OK (cu.cuStreamSynchronize (s));
  sim.set_delay_us ("cuSignalExternalSemaphoresAsync", 0);
  CHECK (sim.violation_count () == before + 1 && sim.last_violation () &&
      strstr (sim.last_violation (), "non-increasing"),
      "non-increasing timeline signal detected at execution time: %s",
      sim.last_violation ()? sim.last_violation () : "(none)");

  before = sim.violation_count ();
  CU_OK (extsem_signal (es_bin, 0, s));
  CU_OK (extsem_signal (es_bin, 0, s));
  CU_OK (cu.cuStreamSynchronize (s));
  CHECK (sim.violation_count () == before + 1 && sim.last_violation () &&
      strstr (sim.last_violation (), "binary semaphore") &&
      strstr (sim.last_violation (), "twice"),
      "binary semaphore double signal: %s",
      sim.last_violation ()? sim.last_violation () : "(none)");
  before = sim.violation_count ();
  CHECK (sim.sem_host_signal (bin, 1) == -1 &&
      sim.violation_count () == before + 1, "host double signal");

  before = sim.violation_count ();
  CU_OK (extsem_wait (es, 1000, s));
  CU_OK (cu.cuDestroyExternalSemaphore (es));
  CHECK (sim.violation_count () == before + 1 && sim.last_violation () &&
      strstr (sim.last_violation (), "1 pending operations"),
      "destroy with pending operations: %s",
      sim.last_violation ()? sim.last_violation () : "(none)");
  CU_OK (cu.cuStreamSynchronize (s));
  CHECK (1, "the orphaned wait gave up, the stream drained");

  before = sim.violation_count ();
  r = extsem_signal (es, 2000, s);
  CHECK (r == CUDA_ERROR_INVALID_HANDLE &&
      sim.violation_count () == before + 1 && sim.last_violation () &&
      strstr (sim.last_violation (), "use after destroy"),
      "external semaphore use after destroy (%d): %s", r,
      sim.last_violation ()? sim.last_violation () : "(none)");

  CU_OK (cu.cuStreamCreate (&s_dead, 0));
  CU_OK (cu.cuStreamDestroy_v2 (s_dead));
  before = sim.violation_count ();
  r = cu.cuStreamQuery (s_dead);
  CHECK (r == CUDA_ERROR_INVALID_HANDLE && sim.violation_count () == before + 1,
      "stream use after destroy (%d): %s", r,
      sim.last_violation ()? sim.last_violation () : "(none)");

  CU_OK (cu.cuEventCreate (&ev_dead, 0));
  CU_OK (cu.cuEventDestroy_v2 (ev_dead));
  before = sim.violation_count ();
  r = cu.cuEventRecord (ev_dead, s);
  CHECK (r == CUDA_ERROR_INVALID_HANDLE && sim.violation_count () == before + 1,
      "event use after destroy (%d): %s", r,
      sim.last_violation ()? sim.last_violation () : "(none)");

  before = sim.violation_count ();
  r = cu.cuStreamQuery ((CUstream) (uintptr_t) 0x1234560);
  CHECK (r == CUDA_ERROR_INVALID_HANDLE && sim.violation_count () == before,
      "garbage stream handle -> INVALID_HANDLE without a violation");

  CU_OK (cu.cuDestroyExternalSemaphore (es_bin));
  CU_OK (cu.cuStreamDestroy_v2 (s));
  sim.sem_unref (tl);
  sim.sem_unref (bin);
}

void
test_fault_injection (void)
{
  CUdeviceptr p[4];
  CUresult r[4];
  CUstream s;
  CUexternalSemaphore es;
  int tl, i;

  SECTION ("fault injection");
  sim.reset_counters ();
  sim.inject_failure ("cuMemAlloc_v2", 3, CUDA_ERROR_OUT_OF_MEMORY);
  for (i = 0; i < 4; i++) {
    p[i] = 0;
    r[i] = cu.cuMemAlloc_v2 (&p[i], 64);
  }
  CHECK (r[0] == CUDA_SUCCESS && r[1] == CUDA_SUCCESS &&
      r[2] == CUDA_ERROR_OUT_OF_MEMORY && r[3] == CUDA_SUCCESS,
      "exactly the 3rd cuMemAlloc_v2 failed (%d %d %d %d)", r[0], r[1], r[2],
      r[3]);
  CHECK (sim.call_count ("cuMemAlloc_v2") == 4, "call count 4 (got %u)",
      sim.call_count ("cuMemAlloc_v2"));
  CHECK (sim.live_objects ("alloc") == 3, "the failed call allocated nothing");
  for (i = 0; i < 4; i++) {
    if (r[i] == CUDA_SUCCESS)
      CU_OK (cu.cuMemFree_v2 (p[i]));
  }

  CU_OK (cu.cuStreamCreate (&s, CU_STREAM_NON_BLOCKING));
  tl = sim.sem_create (CUDASIM_SEM_TIMELINE, 0);
  es = import_sem (tl, CU_EXTERNAL_SEMAPHORE_HANDLE_TYPE_TIMELINE_SEMAPHORE_FD,
      &r[0]);
  CU_OK (r[0]);
  sim.inject_failure ("cuSignalExternalSemaphoresAsync", 2,
      CUDA_ERROR_LAUNCH_FAILED);
  CU_OK (extsem_signal (es, 1, s));
  r[1] = extsem_signal (es, 2, s);
  CU_OK (cu.cuStreamSynchronize (s));
  CHECK (r[1] == CUDA_ERROR_LAUNCH_FAILED && sim.sem_get_value (tl) == 1,
      "the injected signal failure returned LAUNCH_FAILED and did nothing");
  CU_OK (extsem_signal (es, 2, s));
  CU_OK (cu.cuStreamSynchronize (s));
  CHECK (sim.sem_get_value (tl) == 2, "later calls work again");

  sim.inject_failure ("cuStreamDestroy", 1, CUDA_ERROR_UNKNOWN);
  CHECK (cu.cuStreamDestroy_v2 (s) == CUDA_ERROR_UNKNOWN,
      "aliases share the injection (cuStreamDestroy / _v2)");
  sim.inject_failure ("cuStreamSynchronize", 1, CUDA_ERROR_UNKNOWN);
  sim.clear_failures ();
  CU_OK (cu.cuStreamSynchronize (s));
  CHECK (1, "cudasim_clear_failures disarms");
  CU_OK (cu.cuDestroyExternalSemaphore (es));
  CU_OK (cu.cuStreamDestroy_v2 (s));
  sim.sem_unref (tl);
}

/* ------------------------------------------------------------------ */
/* concurrency: several "pipelines" at once                            */
/* ------------------------------------------------------------------ */

#define STRESS_THREADS 8
#define STRESS_ITERS 150

typedef struct
{
  int index;
  int errors;
} StressData;

static void *
stress_thread (void *data)
{
  StressData *t = data;
  CUcontext c;
  CUstream up, down;
  CUevent ev;
  CUexternalSemaphore es_up, es_down;
  CUdeviceptr d;
  CUresult r;
  unsigned char in[4096], out[4096];
  int tl, i, j;

  if (cu.cuCtxCreate_v2 (&c, 0, 0) != CUDA_SUCCESS) {
    t->errors++;
    return NULL;
  }
  tl = sim.sem_create (CUDASIM_SEM_TIMELINE, 0);
  es_up = import_sem (tl,
      CU_EXTERNAL_SEMAPHORE_HANDLE_TYPE_TIMELINE_SEMAPHORE_FD, &r);
  t->errors += r != CUDA_SUCCESS;
  es_down = import_sem (tl,
      CU_EXTERNAL_SEMAPHORE_HANDLE_TYPE_TIMELINE_SEMAPHORE_FD, &r);
  t->errors += r != CUDA_SUCCESS;
  t->errors += cu.cuMemAlloc_v2 (&d, sizeof (in)) != CUDA_SUCCESS;
  t->errors += cu.cuEventCreate (&ev, CU_EVENT_DISABLE_TIMING) != CUDA_SUCCESS;

  for (i = 0; i < STRESS_ITERS; i++) {
    /* fresh streams now and then, like elements restarting */
    if (i % 50 == 0) {
      if (i) {
        cu.cuStreamDestroy_v2 (up);
        cu.cuStreamDestroy_v2 (down);
      }
      t->errors += cu.cuStreamCreate (&up, i % 100 ? CU_STREAM_NON_BLOCKING :
          0) != CUDA_SUCCESS;
      t->errors += cu.cuStreamCreate (&down, 0) != CUDA_SUCCESS;
    }
    for (j = 0; j < (int) sizeof (in); j++)
      in[j] = (unsigned char) (i + j + t->index);
    memset (out, 0, sizeof (out));
    /* upload on one stream, signal; the other waits, downloads, and an
     * event orders the next upload after the download */
    t->errors += cu.cuMemcpyHtoDAsync_v2 (d, in, sizeof (in), up) != 0;
    t->errors += extsem_signal (es_up, (uint64_t) i + 1, up) != 0;
    t->errors += extsem_wait (es_down, (uint64_t) i + 1, down) != 0;
    t->errors += cu.cuMemcpyDtoHAsync_v2 (out, d, sizeof (out), down) != 0;
    t->errors += cu.cuEventRecord (ev, down) != 0;
    t->errors += cu.cuStreamWaitEvent (up, ev, 0) != 0;
    if (i % 3 == 0)
      t->errors += cu.cuEventSynchronize (ev) != 0;
    else
      t->errors += cu.cuStreamSynchronize (down) != 0;
    if (memcmp (in, out, sizeof (in)) != 0)
      t->errors++;
  }

  cu.cuStreamSynchronize (up);
  cu.cuStreamDestroy_v2 (up);
  cu.cuStreamDestroy_v2 (down);
  cu.cuEventDestroy_v2 (ev);
  cu.cuDestroyExternalSemaphore (es_up);
  cu.cuDestroyExternalSemaphore (es_down);
  sim.sem_unref (tl);
  cu.cuMemFree_v2 (d);
  cu.cuCtxDestroy_v2 (c);
  return NULL;
}

void
test_concurrency (void)
{
  pthread_t th[STRESS_THREADS];
  StressData td[STRESS_THREADS];
  int i, errors = 0;
  unsigned viol = sim.violation_count ();
  double t0 = now_ms ();

  SECTION ("concurrency: 8 threads, each a context with two streams");
  sim.set_delay_us (NULL, 200);
  for (i = 0; i < STRESS_THREADS; i++) {
    td[i].index = i;
    td[i].errors = 0;
    pthread_create (&th[i], NULL, stress_thread, &td[i]);
  }
  for (i = 0; i < STRESS_THREADS; i++) {
    pthread_join (th[i], NULL);
    errors += td[i].errors;
  }
  sim.set_delay_us (NULL, 0);
  CHECK (errors == 0, "%d x %d semaphore-ordered round trips without "
      "errors or corrupt data (%d errors, %.0f ms)", STRESS_THREADS,
      STRESS_ITERS, errors, now_ms () - t0);
  CHECK (sim.violation_count () == viol, "no violations");
}

/* cudasim self-test: NvSciSync objects and fences.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "test-cudasim.h"

#include <string.h>

static CUexternalSemaphore
import_nvsci (void *obj, CUresult * res)
{
  CUDA_EXTERNAL_SEMAPHORE_HANDLE_DESC desc;
  CUexternalSemaphore es = NULL;

  memset (&desc, 0, sizeof (desc));
  desc.type = CU_EXTERNAL_SEMAPHORE_HANDLE_TYPE_NVSCISYNC;
  desc.handle.nvSciSyncObj = obj;
  *res = cu.cuImportExternalSemaphore (&es, &desc);
  return es;
}

static CUresult
nvsci_signal (CUexternalSemaphore es, void *fence, unsigned flags, CUstream s)
{
  CUDA_EXTERNAL_SEMAPHORE_SIGNAL_PARAMS p;

  memset (&p, 0, sizeof (p));
  p.params.nvSciSync.fence = fence;
  p.flags = flags;
  return cu.cuSignalExternalSemaphoresAsync (&es, &p, 1, s);
}

static CUresult
nvsci_wait (CUexternalSemaphore es, void *fence, unsigned flags, CUstream s)
{
  CUDA_EXTERNAL_SEMAPHORE_WAIT_PARAMS p;

  memset (&p, 0, sizeof (p));
  p.params.nvSciSync.fence = fence;
  p.flags = flags;
  return cu.cuWaitExternalSemaphoresAsync (&es, &p, 1, s);
}

/* what test_nvsci's steps share */
typedef struct
{
  uint8_t f1[CUDASIM_NVSCI_FENCE_SIZE], f2[CUDASIM_NVSCI_FENCE_SIZE];
  uint8_t f3[CUDASIM_NVSCI_FENCE_SIZE], zero[CUDASIM_NVSCI_FENCE_SIZE];
  void *obj, *obj_nosig, *obj_nowait;
  CUexternalSemaphore es, es2, es_nosig, es_nowait, es_tl;
  CUstream sa, sb;
  CUdeviceptr d;
  int live0, tl;
} NvsciFixture;

/* two streams, a 1-byte allocation, an object with two imported handles */
static void
nvsci_setup (NvsciFixture * x)
{
  CUresult r;

  memset (x->zero, 0, sizeof (x->zero));
  x->live0 = sim.nvsci_live_fences ();
  CU_OK (cu.cuStreamCreate (&x->sa, CU_STREAM_NON_BLOCKING));
  CU_OK (cu.cuStreamCreate (&x->sb, CU_STREAM_NON_BLOCKING));
  CU_OK (cu.cuMemAlloc_v2 (&x->d, 1));
  CU_OK (cu.cuMemsetD8_v2 (x->d, 0, 1));
  x->obj = sim.nvsci_obj_create (1, 1);
  CHECK (x->obj != NULL, "NvSciSync object created");
  x->es = import_nvsci (x->obj, &r);
  CU_OK (r);
  x->es2 = import_nvsci (x->obj, &r);
  CU_OK (r);
}

/* signal writes the fence at call time; the count moves at execution */
static void
nvsci_first_signal (NvsciFixture * x)
{
  unsigned char v = 0;
  double t0, t;

  memset (x->f1, 0, sizeof (x->f1));
  memset (x->f2, 0, sizeof (x->f2));
  sim.set_delay_us ("cuMemsetD8Async", 200000);
  CU_OK (cu.cuMemsetD8Async (x->d, 3, 1, x->sa));
  CU_OK (nvsci_signal (x->es, x->f1, 0, x->sa));
  CHECK (memcmp (x->f1, x->zero, sizeof (x->f1)) != 0 &&
      sim.nvsci_fence_value (x->f1) == 1, "first signal wrote fence value 1 "
      "at call time (%llu)",
      (unsigned long long) sim.nvsci_fence_value (x->f1));
  CHECK (sim.nvsci_obj_get_value (x->obj) == 0, "count still 0 while the "
      "signal is queued behind the delayed memset");
  CHECK (sim.nvsci_live_fences () == x->live0 + 1, "one live fence");
  t0 = now_ms ();
  CU_OK (nvsci_wait (x->es2, x->f1, 0, x->sb));
  CU_OK (cu.cuMemcpyDtoHAsync_v2 (&v, x->d, 1, x->sb));
  CU_OK (cu.cuStreamSynchronize (x->sb));
  t = now_ms () - t0;
  CHECK (v == 3 && t >= 150, "a wait on the fence (other handle, other "
      "stream) ran after the signal (saw %d after %.0f ms)", v, t);
  CHECK (sim.nvsci_obj_get_value (x->obj) == 1, "count 1");
  sim.set_delay_us ("cuMemsetD8Async", 0);
}

/* the second value, CPU waits, cleared fences, SKIP_NVSCIBUF_MEMSYNC */
static void
nvsci_second_signal (NvsciFixture * x)
{
  CU_OK (nvsci_signal (x->es, x->f2,
          CUDA_EXTERNAL_SEMAPHORE_SIGNAL_SKIP_NVSCIBUF_MEMSYNC, x->sa));
  CHECK (sim.nvsci_fence_value (x->f2) == 2, "second signal: value 2");
  CHECK (sim.nvsci_fence_wait (x->f2, 5000ull * 1000000) == 0 &&
      sim.nvsci_obj_get_value (x->obj) == 2, "CPU fence wait returns at 2");
  CHECK (sim.nvsci_fence_wait (x->zero, 0) == 0, "a cleared fence has expired");
  CU_OK (nvsci_wait (x->es, x->zero, 0, x->sb));
  CU_OK (nvsci_wait (x->es, x->f2,
          CUDA_EXTERNAL_SEMAPHORE_WAIT_SKIP_NVSCIBUF_MEMSYNC, x->sb));
  CU_OK (cu.cuStreamSynchronize (x->sb));
  CHECK (sim.nvsci_obj_flags (x->obj) ==
      (CUDA_EXTERNAL_SEMAPHORE_SIGNAL_SKIP_NVSCIBUF_MEMSYNC |
          CUDA_EXTERNAL_SEMAPHORE_WAIT_SKIP_NVSCIBUF_MEMSYNC),
      "SKIP_NVSCIBUF_MEMSYNC flags recorded (0x%x)",
      sim.nvsci_obj_flags (x->obj));
}

static void
nvsci_invalid_params (NvsciFixture * x)
{
  CUDA_EXTERNAL_SEMAPHORE_SIGNAL_PARAMS p;
  uint8_t bogus[CUDASIM_NVSCI_FENCE_SIZE];
  CUresult r;

  memset (x->f3, 0, sizeof (x->f3));
  CHECK (nvsci_signal (x->es, x->f3,
          CUDA_EXTERNAL_SEMAPHORE_WAIT_SKIP_NVSCIBUF_MEMSYNC,
          x->sa) == CUDA_ERROR_INVALID_VALUE &&
      memcmp (x->f3, x->zero, 48) == 0,
      "signal with the wait flag -> INVALID_VALUE, fence untouched");
  CHECK (nvsci_wait (x->es, x->f2,
          CUDA_EXTERNAL_SEMAPHORE_SIGNAL_SKIP_NVSCIBUF_MEMSYNC,
          x->sb) == CUDA_ERROR_INVALID_VALUE, "wait with the signal flag -> "
      "INVALID_VALUE");
  CHECK (nvsci_signal (x->es, NULL, 0, x->sa) == CUDA_ERROR_INVALID_VALUE,
      "signal without fence storage -> INVALID_VALUE");
  x->tl = sim.sem_create (CUDASIM_SEM_TIMELINE, 0);
  x->es_tl = import_sem (x->tl,
      CU_EXTERNAL_SEMAPHORE_HANDLE_TYPE_TIMELINE_SEMAPHORE_FD, &r);
  CU_OK (r);
  memset (&p, 0, sizeof (p));
  p.params.fence.value = 1;
  p.flags = CUDA_EXTERNAL_SEMAPHORE_SIGNAL_SKIP_NVSCIBUF_MEMSYNC;
  CHECK (cu.cuSignalExternalSemaphoresAsync (&x->es_tl, &p, 1, x->sa) ==
      CUDA_ERROR_INVALID_VALUE, "flags on a timeline semaphore -> "
      "INVALID_VALUE (must be zero)");
  memset (bogus, 0x5a, sizeof (bogus));
  CHECK (nvsci_wait (x->es, bogus, 0, x->sb) == CUDA_ERROR_INVALID_VALUE,
      "wait on bytes that are no fence -> INVALID_VALUE");
}

static void
nvsci_permissions (NvsciFixture * x)
{
  CUresult r;

  x->obj_nosig = sim.nvsci_obj_create (0, 1);
  x->obj_nowait = sim.nvsci_obj_create (1, 0);
  x->es_nosig = import_nvsci (x->obj_nosig, &r);
  CU_OK (r);
  x->es_nowait = import_nvsci (x->obj_nowait, &r);
  CU_OK (r);
  CHECK (nvsci_signal (x->es_nosig, x->f3, 0, x->sa) ==
      CUDA_ERROR_NOT_SUPPORTED && memcmp (x->f3, x->zero, 48) == 0,
      "signal without signal permission -> NOT_SUPPORTED at the signal, no "
      "fence written");
  CU_OK (nvsci_signal (x->es_nowait, x->f3, 0, x->sa));
  CHECK (nvsci_wait (x->es_nowait, x->f3, 0, x->sb) ==
      CUDA_ERROR_NOT_SUPPORTED, "wait without wait permission -> "
      "NOT_SUPPORTED");
  CHECK (nvsci_wait (x->es, x->f3, 0, x->sb) == CUDA_ERROR_INVALID_VALUE,
      "wait on another object's fence -> INVALID_VALUE");
  CU_OK (cu.cuStreamSynchronize (x->sa));
  CHECK (sim.nvsci_fence_clear (x->f3) == 0 &&
      memcmp (x->f3, x->zero, 48) == 0, "fence cleared and zeroed");
}

/* uncleared storage, copies of cleared fences, double clears */
static void
nvsci_fence_misuse (NvsciFixture * x)
{
  uint8_t copy[CUDASIM_NVSCI_FENCE_SIZE];
  unsigned before;

  before = sim.violation_count ();
  CU_OK (nvsci_signal (x->es, x->f1, 0, x->sa));        /* f1 still holds value 1 */
  CHECK (sim.violation_count () == before + 1 &&
      sim.nvsci_fence_value (x->f1) == 3,
      "signal into uncleared fence storage: violation (leak): %s",
      sim.last_violation ()? sim.last_violation () : "(none)");
  CU_OK (cu.cuStreamSynchronize (x->sa));

  memcpy (copy, x->f2, sizeof (copy));
  CHECK (sim.nvsci_fence_clear (x->f2) == 0, "clear fence 2");
  before = sim.violation_count ();
  CHECK (nvsci_wait (x->es, copy, 0, x->sb) == CUDA_ERROR_INVALID_VALUE &&
      sim.violation_count () == before + 1,
      "wait on a copy of a cleared fence: violation: %s",
      sim.last_violation ()? sim.last_violation () : "(none)");
  before = sim.violation_count ();
  CHECK (sim.nvsci_fence_clear (copy) == -1 &&
      sim.violation_count () == before + 1,
      "clearing the copy again: double clear violation: %s",
      sim.last_violation ()? sim.last_violation () : "(none)");
  CHECK (sim.nvsci_fence_clear (copy) == 0, "clearing a cleared fence: no-op");
}

/* out of order: the slow stream's signal (value 4) executes after the fast
 * stream's (value 5) */
static void
nvsci_out_of_order (NvsciFixture * x)
{
  unsigned before;

  memset (x->f2, 0, sizeof (x->f2));
  memset (x->f3, 0, sizeof (x->f3));
  before = sim.violation_count ();
  sim.set_delay_us ("cuMemsetD8Async", 100000);
  CU_OK (cu.cuMemsetD8Async (x->d, 1, 1, x->sa));
  CU_OK (nvsci_signal (x->es, x->f2, 0, x->sa));
  CU_OK (nvsci_signal (x->es, x->f3, 0, x->sb));
  CU_OK (cu.cuStreamSynchronize (x->sa));
  CU_OK (cu.cuStreamSynchronize (x->sb));
  sim.set_delay_us ("cuMemsetD8Async", 0);
  CHECK (sim.nvsci_fence_value (x->f2) == 4 &&
      sim.nvsci_fence_value (x->f3) == 5 &&
      sim.violation_count () >= before + 1,
      "deterministic signals executed out of order: violation: %s",
      sim.last_violation ()? sim.last_violation () : "(none)");
}

static void
nvsci_attributes (void)
{
  unsigned char v = 0;
  CUresult r;

  r = cu.cuDeviceGetNvSciSyncAttributes (&v, 0, CUDA_NVSCISYNC_ATTR_SIGNAL);
  CHECK (r == CUDA_ERROR_NOT_SUPPORTED, "cuDeviceGetNvSciSyncAttributes "
      "without a libnvscisync in the process -> NOT_SUPPORTED (%d)", r);
}

/* frees the objects (checking what outlives them), and everything else */
static void
nvsci_lifetime (NvsciFixture * x)
{
  CUresult r;

  sim.nvsci_obj_free (x->obj_nosig);
  CHECK (import_nvsci (x->obj_nosig, &r) == NULL &&
      r == CUDA_ERROR_INVALID_HANDLE,
      "a freed object can no longer be imported (%d)", r);
  CU_OK (cu.cuDestroyExternalSemaphore (x->es_nosig));
  sim.nvsci_obj_free (x->obj);
  CHECK (sim.nvsci_fence_wait (x->f3, 5000ull * 1000000) == 0,
      "uncleared fences keep their object alive after NvSciSyncObjFree");
  sim.nvsci_fence_clear (x->f1);
  sim.nvsci_fence_clear (x->f2);
  sim.nvsci_fence_clear (x->f3);
  CHECK (sim.nvsci_live_fences () == x->live0 + 1, "every fence cleared but "
      "the one overwritten above, which leaked (%d live)",
      sim.nvsci_live_fences () - x->live0);
  CU_OK (cu.cuDestroyExternalSemaphore (x->es));
  CU_OK (cu.cuDestroyExternalSemaphore (x->es2));
  CU_OK (cu.cuDestroyExternalSemaphore (x->es_nowait));
  CU_OK (cu.cuDestroyExternalSemaphore (x->es_tl));
  sim.nvsci_obj_free (x->obj_nowait);
  sim.sem_unref (x->tl);
  CU_OK (cu.cuMemFree_v2 (x->d));
  CU_OK (cu.cuStreamDestroy_v2 (x->sa));
  CU_OK (cu.cuStreamDestroy_v2 (x->sb));
}

void
test_nvsci (void)
{
  NvsciFixture x;

  memset (&x, 0, sizeof (x));
  SECTION ("NvSciSync: fences, deterministic values, permissions");
  nvsci_setup (&x);
  nvsci_first_signal (&x);
  nvsci_second_signal (&x);
  SECTION ("NvSciSync: invalid parameters");
  nvsci_invalid_params (&x);
  SECTION ("NvSciSync: permissions (cuda.h: NOT_SUPPORTED)");
  nvsci_permissions (&x);
  SECTION ("NvSciSync: violations");
  nvsci_fence_misuse (&x);
  nvsci_out_of_order (&x);
  SECTION ("NvSciSync: attributes");
  nvsci_attributes ();
  SECTION ("NvSciSync: lifetime");
  nvsci_lifetime (&x);
}

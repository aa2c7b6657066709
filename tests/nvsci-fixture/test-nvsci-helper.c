/* gst-cudasync: compile/link/run test of the NvSciSync helper
 * (gst/cudasync/gstcudanvsci.c) against the fixture nvscisync.h and the
 * stub libnvscisync of this folder, on the simulated CUDA driver.
 *
 * It keeps the helper building where libnvscisync does not exist (CI), and
 * runs its allocation / reconciliation / fence-clear paths against the
 * stub, which forwards objects and fences to the simulator's fake NvSciSync.
 * It says nothing about the real libnvscisync. On a real CUDA driver it
 * reports itself skipped (exit status 77): the stub's attribute lists must
 * never reach a real driver.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <gst/gst.h>
#include <gst/cuda/gstcudaloader.h>
#include <gst/cuda/gstcudacontext.h>
#include <gst/cudasync/cudasync.h>
#include <gst/cudasync/gstcudanvsci.h>
#include <string.h>

#include "nvscisync-stub.h"
#include "cudasim.h"

static CudasimApi sim;
static GstCudaContext *ctx;
static NvSciSyncModule module;

typedef CUresult (*GetAttrsFunc) (void *list, CUdevice dev, int flags);

static void
test_driver_attributes (void)
{
  GetAttrsFunc get_attrs = (GetAttrsFunc) dlsym (dlopen ("libcuda.so.1",
          RTLD_LAZY | RTLD_NOLOAD), "cuDeviceGetNvSciSyncAttributes");
  NvSciSyncAttrList list = NULL;

  g_assert_nonnull (get_attrs);
  g_assert_cmpint (NvSciSyncAttrListCreate (module, &list), ==,
      NvSciError_Success);
  /* cuda.h: no flag -> INVALID_VALUE; NULL list -> INVALID_HANDLE;
   * RequiredPerm already set -> INVALID_VALUE */
  g_assert_cmpint (get_attrs (list, 0, 0), ==, CUDA_ERROR_INVALID_VALUE);
  g_assert_cmpint (get_attrs (NULL, 0, CUDA_NVSCISYNC_ATTR_SIGNAL), ==,
      CUDA_ERROR_INVALID_HANDLE);
  g_assert_cmpint (get_attrs (list, 0, CUDA_NVSCISYNC_ATTR_SIGNAL), ==,
      CUDA_SUCCESS);
  g_assert_cmpint (get_attrs (list, 0, CUDA_NVSCISYNC_ATTR_WAIT), ==,
      CUDA_ERROR_INVALID_VALUE);
  NvSciSyncAttrListFree (list);
  g_assert_cmpint (nvscistub_live_attr_lists (), ==, 0);
}

static void
test_signal_cpu_waiter (void)
{
  guint8 fence[GST_CUDA_NVSCI_FENCE_SIZE] = { 0, };
  GstCudaSemaphore *sem;
  GError *err = NULL;
  NvSciSyncObj obj;
  NvSciSyncFence f;
  gint live = sim.nvsci_live_fences ();
  gint clears = nvscistub_fence_clears ();

  /* CUDA signals, the application waits on the CPU */
  obj = gst_cuda_nvsci_sync_obj_new (ctx, module,
      GST_CUDA_NVSCI_SYNC_OBJ_CUDA_SIGNAL | GST_CUDA_NVSCI_SYNC_OBJ_CPU_WAIT |
      GST_CUDA_NVSCI_SYNC_OBJ_DETERMINISTIC, NULL, 0, &err);
  g_assert_no_error (err);
  g_assert_nonnull (obj);
  g_assert_cmpint (nvscistub_live_attr_lists (), ==, 0);
  /* CUDA got signal permission only; deterministic; CPU access */
  g_assert_cmpint (nvscistub_last_obj_info (), ==, 1 | 4 | 8);

  sem = gst_cuda_semaphore_import_nvscisync (ctx, obj, &err);
  g_assert_no_error (err);
  g_assert_true (gst_cuda_semaphore_signal_nvsci (sem, NULL, fence, &err));
  g_assert_no_error (err);
  g_assert_cmpuint (sim.nvsci_fence_value (fence), ==, 1);

  /* the consumer side: NvSciSyncFenceWait on the CPU */
  memcpy (&f, fence, sizeof (f));
  g_assert_cmpint (NvSciSyncFenceWait (&f, NULL, 10 * G_USEC_PER_SEC), ==,
      NvSciError_Success);

  /* CUDA did not ask for wait permission */
  g_assert_false (gst_cuda_semaphore_wait_nvsci (sem, NULL, fence, &err));
  g_assert_error (err, GST_CUDA_SYNC_ERROR, GST_CUDA_SYNC_ERROR_NOT_SUPPORTED);
  g_assert_nonnull (strstr (err->message, "wait permission"));
  g_clear_error (&err);

  gst_cuda_nvsci_fence_clear (fence, NULL);
  g_assert_cmpint (nvscistub_fence_clears (), ==, clears + 1);
  g_assert_cmpint (sim.nvsci_live_fences (), ==, live);
  g_assert_true (memcmp (fence, &(NvSciSyncFence) { {
          0}
          }
          , 48) == 0);

  gst_object_unref (sem);
  gst_cuda_sync_wait_idle ();
  NvSciSyncObjFree (obj);
  g_assert_cmpint (nvscistub_live_objs (), ==, 0);
}

static void
test_reconcile_fails (void)
{
  GError *err = NULL;
  NvSciSyncObj obj;

  /* a signaller and no waiter cannot be reconciled */
  obj = gst_cuda_nvsci_sync_obj_new (ctx, module,
      GST_CUDA_NVSCI_SYNC_OBJ_CUDA_SIGNAL, NULL, 0, &err);
  g_assert_null (obj);
  g_assert_nonnull (err);
  g_assert_nonnull (strstr (err->message, "NvSciSyncAttrListReconcile"));
  g_clear_error (&err);
  g_assert_cmpint (nvscistub_live_attr_lists (), ==, 0);
}

static void
test_peer_list (void)
{
  NvSciSyncAccessPerm perm = NvSciSyncAccessPerm_WaitOnly;
  NvSciSyncAttrKeyValuePair pair = { NvSciSyncAttrKey_RequiredPerm, &perm,
    sizeof (perm)
  };
  guint8 fence[GST_CUDA_NVSCI_FENCE_SIZE] = { 0, };
  NvSciSyncAttrList peer = NULL;
  GstCudaSemaphore *sem;
  GError *err = NULL;
  NvSciSyncObj obj;

  /* another engine waits; CUDA signals and waits too */
  g_assert_cmpint (NvSciSyncAttrListCreate (module, &peer), ==,
      NvSciError_Success);
  g_assert_cmpint (NvSciSyncAttrListSetAttrs (peer, &pair, 1), ==,
      NvSciError_Success);
  obj = gst_cuda_nvsci_sync_obj_new (ctx, module,
      GST_CUDA_NVSCI_SYNC_OBJ_CUDA_SIGNAL | GST_CUDA_NVSCI_SYNC_OBJ_CUDA_WAIT,
      &peer, 1, &err);
  g_assert_no_error (err);
  g_assert_nonnull (obj);
  /* the caller's list is still the caller's */
  g_assert_cmpint (nvscistub_live_attr_lists (), ==, 1);
  NvSciSyncAttrListFree (peer);

  sem = gst_cuda_semaphore_import_nvscisync (ctx, obj, &err);
  g_assert_no_error (err);
  g_assert_true (gst_cuda_semaphore_signal_nvsci (sem, NULL, fence, &err));
  g_assert_true (gst_cuda_semaphore_wait_nvsci (sem, NULL, fence, &err));
  g_assert_no_error (err);
  gst_cuda_nvsci_fence_clear (fence, NULL);
  gst_object_unref (sem);
  gst_cuda_sync_wait_idle ();
  NvSciSyncObjFree (obj);
}

static void
test_meta_hook (void)
{
  guint8 fence[GST_CUDA_NVSCI_FENCE_SIZE] = { 0, };
  GstBuffer *buf = gst_buffer_new (), *copy;
  GstCudaSemaphore *sem;
  GError *err = NULL;
  NvSciSyncObj obj;
  gint clears = nvscistub_fence_clears ();
  gint live = sim.nvsci_live_fences ();

  gst_cuda_sync_set_nvsci_fence_clear_func (gst_cuda_nvsci_fence_clear, NULL);
  obj = gst_cuda_nvsci_sync_obj_new (ctx, module,
      GST_CUDA_NVSCI_SYNC_OBJ_CUDA_SIGNAL | GST_CUDA_NVSCI_SYNC_OBJ_CUDA_WAIT,
      NULL, 0, &err);
  g_assert_no_error (err);
  sem = gst_cuda_semaphore_import_nvscisync (ctx, obj, &err);
  g_assert_no_error (err);
  g_assert_true (gst_cuda_semaphore_signal_nvsci (sem, NULL, fence, &err));
  gst_cuda_sync_meta_add_acquire_nvsci_fence (gst_buffer_add_cuda_sync_meta
      (buf), sem, fence);
  copy = gst_buffer_copy (buf);
  gst_buffer_unref (buf);
  g_assert_cmpint (nvscistub_fence_clears (), ==, clears);
  gst_buffer_unref (copy);
  /* once for the fence both copies shared */
  g_assert_cmpint (nvscistub_fence_clears (), ==, clears + 1);
  g_assert_cmpint (sim.nvsci_live_fences (), ==, live);
  gst_cuda_sync_set_nvsci_fence_clear_func (NULL, NULL);

  gst_object_unref (sem);
  gst_cuda_sync_wait_idle ();
  NvSciSyncObjFree (obj);
}

int
main (int argc, char **argv)
{
  GError *err = NULL;
  int ret;

  if (!cudasim_lookup (&sim)) {
    g_print ("SKIP: the NvSciSync fixture test runs on the simulated CUDA "
        "driver only (no simulated libcuda.so.1 here)\n");
    return 77;
  }
  gst_init (&argc, &argv);
  g_test_init (&argc, &argv, NULL);

  g_assert_true (gst_cuda_load_library ());
  g_assert_true (gst_cuda_sync_init (&err));
  ctx = gst_cuda_context_new (0);
  g_assert_nonnull (ctx);
  sim.set_violation_mode (1);
  g_assert_cmpint (NvSciSyncModuleOpen (&module), ==, NvSciError_Success);

  g_test_add_func ("/nvsci-helper/driver-attributes", test_driver_attributes);
  g_test_add_func ("/nvsci-helper/signal-cpu-waiter", test_signal_cpu_waiter);
  g_test_add_func ("/nvsci-helper/reconcile-fails", test_reconcile_fails);
  g_test_add_func ("/nvsci-helper/peer-list", test_peer_list);
  g_test_add_func ("/nvsci-helper/meta-hook", test_meta_hook);
  ret = g_test_run ();

  NvSciSyncModuleClose (module);
  gst_object_unref (ctx);
  sim.drain ();
  if (sim.violation_count () != 0) {
    g_printerr ("simulator violations: %u (last: %s)\n",
        sim.violation_count (), sim.last_violation ());
    ret = 1;
  }
  return ret;
}

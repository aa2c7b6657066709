/* gst-cudasync
 * Copyright (C) 2026 gst-cudasync developers
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * NvSciSync helpers: allocate an NvSciSyncObj for a CUDA device, clear
 * fences (docs/reference/nvsci.md).
 *
 * Compiled only when libnvscisync is available (Jetson / DRIVE OS). CI
 * compiles and links this file against a declarations-only nvscisync.h and
 * a stub libnvscisync (tests/nvsci-fixture) and runs it on the simulated
 * CUDA driver; it has not run against the real libnvscisync.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstcudasync-private.h"
#include <gst/cudasync/gstcudanvsci.h>
#include <stdbool.h>
#include <string.h>

G_STATIC_ASSERT (sizeof (NvSciSyncFence) == GST_CUDA_NVSCI_FENCE_SIZE);

#define GST_CAT_DEFAULT gst_cuda_nvsci_debug
GST_DEBUG_CATEGORY_STATIC (GST_CAT_DEFAULT);

static void
init_debug (void)
{
  static gsize once = 0;

  if (g_once_init_enter (&once)) {
    GST_DEBUG_CATEGORY_INIT (gst_cuda_nvsci_debug, "cudanvsci", 0,
        "gst-cudasync NvSciSync helpers");
    g_once_init_leave (&once, 1);
  }
}

static gboolean
sci_ok (NvSciError e, const gchar * call, GError ** error)
{
  if (e == NvSciError_Success)
    return TRUE;
  GST_WARNING ("%s failed: NvSciError 0x%x", call, (guint) e);
  g_set_error (error, GST_CUDA_SYNC_ERROR, GST_CUDA_SYNC_ERROR_FAILED,
      "%s failed: NvSciError 0x%x", call, (guint) e);
  return FALSE;
}

/* the attribute list of the CUDA device of @context */
static gboolean
cuda_attr_list (GstCudaContext * context, NvSciSyncModule module,
    GstCudaNvSciSyncObjFlags flags, NvSciSyncAttrList * list, GError ** error)
{
  const GstCudaSyncVTable *vt = _gst_cuda_sync_vtable ();
  gint cuda_flags = 0, device_id = 0;
  CUdevice dev = 0;
  CUresult r;

  if (!vt->cuDeviceGetNvSciSyncAttributes || !vt->cuDeviceGet) {
    g_set_error (error, GST_CUDA_SYNC_ERROR, GST_CUDA_SYNC_ERROR_NO_DRIVER,
        "The CUDA driver lacks cuDeviceGetNvSciSyncAttributes");
    return FALSE;
  }
  if (flags & GST_CUDA_NVSCI_SYNC_OBJ_CUDA_SIGNAL)
    cuda_flags |= CUDA_NVSCISYNC_ATTR_SIGNAL;
  if (flags & GST_CUDA_NVSCI_SYNC_OBJ_CUDA_WAIT)
    cuda_flags |= CUDA_NVSCISYNC_ATTR_WAIT;

  if (!sci_ok (NvSciSyncAttrListCreate (module, list),
          "NvSciSyncAttrListCreate", error))
    return FALSE;

  g_object_get (context, "cuda-device-id", &device_id, NULL);
  if (!gst_cuda_context_push (context)) {
    g_set_error (error, GST_CUDA_SYNC_ERROR, GST_CUDA_SYNC_ERROR_DRIVER,
        "Could not make the CUDA context current");
    return FALSE;
  }
  r = vt->cuDeviceGet (&dev, device_id);
  if (r == CUDA_SUCCESS)
    r = vt->cuDeviceGetNvSciSyncAttributes (*list, dev, cuda_flags);
  gst_cuda_context_pop (NULL);
  if (!_gst_cuda_sync_result (r, "cuDeviceGetNvSciSyncAttributes", error))
    return FALSE;

  if (flags & GST_CUDA_NVSCI_SYNC_OBJ_DETERMINISTIC) {
    bool deterministic = true;
    NvSciSyncAttrKeyValuePair pair = {
      NvSciSyncAttrKey_RequireDeterministicFences, &deterministic,
      sizeof (deterministic)
    };
    if (!sci_ok (NvSciSyncAttrListSetAttrs (*list, &pair, 1),
            "NvSciSyncAttrListSetAttrs (RequireDeterministicFences)", error))
      return FALSE;
  }
  return TRUE;
}

/* a CPU waiter: NvSciSyncFenceWait() */
static gboolean
cpu_waiter_list (NvSciSyncModule module, NvSciSyncAttrList * list,
    GError ** error)
{
  bool cpu = true;
  NvSciSyncAccessPerm perm = NvSciSyncAccessPerm_WaitOnly;
  NvSciSyncAttrKeyValuePair pairs[] = {
    {NvSciSyncAttrKey_NeedCpuAccess, &cpu, sizeof (cpu)},
    {NvSciSyncAttrKey_RequiredPerm, &perm, sizeof (perm)},
  };

  if (!sci_ok (NvSciSyncAttrListCreate (module, list),
          "NvSciSyncAttrListCreate", error))
    return FALSE;
  return sci_ok (NvSciSyncAttrListSetAttrs (*list, pairs, G_N_ELEMENTS (pairs)),
      "NvSciSyncAttrListSetAttrs (CPU waiter)", error);
}

/**
 * gst_cuda_nvsci_sync_obj_new:
 * @context: the #GstCudaContext whose device signals or waits
 * @module: an open `NvSciSyncModule`
 * @flags: who signals and waits, see #GstCudaNvSciSyncObjFlags
 * @peer_lists: (array length=n_peer_lists) (nullable): unreconciled attribute
 *   lists of the other parties (the consumer engine, an NvSciIpc peer...),
 *   still owned by the caller
 * @n_peer_lists: number of @peer_lists
 * @error: return location for a #GError
 *
 * Allocates an `NvSciSyncObj` that the CUDA device of @context can signal
 * and/or wait on: fills an attribute list with
 * `cuDeviceGetNvSciSyncAttributes()`, adds a CPU waiter list and the
 * deterministic-fences attribute as @flags ask, reconciles them with
 * @peer_lists (`NvSciSyncAttrListReconcile()`) and allocates the object
 * (`NvSciSyncObjAlloc()`). Reconciliation needs exactly one signaller and at
 * least one waiter among all the lists.
 *
 * Import the result with gst_cuda_semaphore_import_nvscisync() into the
 * same context, and free it with `NvSciSyncObjFree()` after the semaphore.
 *
 * Returns: (transfer full) (nullable): the new object, or %NULL with @error
 *   set (the attribute lists created here are freed in all cases)
 *
 * Since: 0.1
 */
NvSciSyncObj
gst_cuda_nvsci_sync_obj_new (GstCudaContext * context, NvSciSyncModule module,
    GstCudaNvSciSyncObjFlags flags, const NvSciSyncAttrList * peer_lists,
    guint n_peer_lists, GError ** error)
{
  NvSciSyncAttrList cuda_list = NULL, cpu_list = NULL;
  NvSciSyncAttrList reconciled = NULL, conflict = NULL;
  NvSciSyncAttrList *lists;
  NvSciSyncObj obj = NULL;
  NvSciError e;
  guint n = 0, i;

  g_return_val_if_fail (GST_IS_CUDA_CONTEXT (context), NULL);
  g_return_val_if_fail (module != NULL, NULL);
  g_return_val_if_fail (n_peer_lists == 0 || peer_lists != NULL, NULL);
  g_return_val_if_fail (flags & (GST_CUDA_NVSCI_SYNC_OBJ_CUDA_SIGNAL |
          GST_CUDA_NVSCI_SYNC_OBJ_CUDA_WAIT), NULL);

  init_debug ();
  if (!gst_cuda_sync_init (error))
    return NULL;

  lists = g_new0 (NvSciSyncAttrList, n_peer_lists + 2);
  if (!cuda_attr_list (context, module, flags, &cuda_list, error))
    goto done;
  lists[n++] = cuda_list;
  if (flags & GST_CUDA_NVSCI_SYNC_OBJ_CPU_WAIT) {
    if (!cpu_waiter_list (module, &cpu_list, error))
      goto done;
    lists[n++] = cpu_list;
  }
  for (i = 0; i < n_peer_lists; i++)
    lists[n++] = peer_lists[i];

  e = NvSciSyncAttrListReconcile (lists, n, &reconciled, &conflict);
  if (e != NvSciError_Success) {
    g_set_error (error, GST_CUDA_SYNC_ERROR, GST_CUDA_SYNC_ERROR_NOT_SUPPORTED,
        "NvSciSyncAttrListReconcile failed: NvSciError 0x%x (the %u attribute "
        "lists conflict: exactly one signaller and at least one waiter are "
        "needed)", (guint) e, n);
    goto done;
  }
  if (!sci_ok (NvSciSyncObjAlloc (reconciled, &obj), "NvSciSyncObjAlloc",
          error))
    obj = NULL;
  else
    GST_DEBUG ("allocated NvSciSyncObj %p from %u attribute lists", obj, n);

done:
  if (conflict)
    NvSciSyncAttrListFree (conflict);
  if (reconciled)
    NvSciSyncAttrListFree (reconciled);
  if (cpu_list)
    NvSciSyncAttrListFree (cpu_list);
  if (cuda_list)
    NvSciSyncAttrListFree (cuda_list);
  g_free (lists);
  return obj;
}

/**
 * gst_cuda_nvsci_fence_clear:
 * @fence: (array fixed-size=48): an `NvSciSyncFence`
 * @user_data: unused
 *
 * `NvSciSyncFenceClear()` as a #GstCudaSyncNvSciFenceClearFunc: install it
 * with `gst_cuda_sync_set_nvsci_fence_clear_func (gst_cuda_nvsci_fence_clear,
 * NULL)` so that the fences cudasemsignal stores in #GstCudaSyncMeta are
 * released when the buffers are gone.
 *
 * Since: 0.1
 */
void
gst_cuda_nvsci_fence_clear (guint8 * fence, gpointer user_data)
{
  NvSciSyncFence f;

  g_return_if_fail (fence != NULL);

  /* work on an aligned copy: any 48 bytes are accepted */
  memcpy (&f, fence, sizeof (f));
  NvSciSyncFenceClear (&f);
  memcpy (fence, &f, sizeof (f));
}

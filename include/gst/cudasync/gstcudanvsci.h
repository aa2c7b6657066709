/* gst-cudasync
 * Copyright (C) 2026 gst-cudasync developers
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * NvSciSync helpers. Built and installed only when the library was built
 * with NvSciSync support (meson option `nvsci`: nvscisync.h and
 * libnvscisync found, i.e. on Jetson / DRIVE OS); GST_CUDA_SYNC_HAVE_NVSCI
 * is then defined in the pkg-config cflags. Not part of cudasync.h: include
 * it explicitly.
 */
#pragma once

#include <gst/cudasync/cudasync-prelude.h>
#include <gst/cudasync/gstcudasyncerror.h>
#include <gst/cudasync/gstcudasyncmeta.h>
#include <gst/cuda/gstcudacontext.h>
#include <nvscisync.h>

G_BEGIN_DECLS

/**
 * GstCudaNvSciSyncObjFlags:
 * @GST_CUDA_NVSCI_SYNC_OBJ_CUDA_SIGNAL: CUDA (this context's device) signals
 *   the object (cuDeviceGetNvSciSyncAttributes with
 *   `CUDA_NVSCISYNC_ATTR_SIGNAL`): what cudasemsignal needs
 * @GST_CUDA_NVSCI_SYNC_OBJ_CUDA_WAIT: CUDA waits on it
 *   (`CUDA_NVSCISYNC_ATTR_WAIT`): what cudasemwait needs
 * @GST_CUDA_NVSCI_SYNC_OBJ_CPU_WAIT: the application also waits on the CPU
 *   with `NvSciSyncFenceWait()` (adds a waiter list with
 *   `NvSciSyncAttrKey_NeedCpuAccess` and `NvSciSyncAccessPerm_WaitOnly`)
 * @GST_CUDA_NVSCI_SYNC_OBJ_DETERMINISTIC: request deterministic fences
 *   (`NvSciSyncAttrKey_RequireDeterministicFences`): the n-th signal's fence
 *   has value n, so waiters may compute fences themselves
 *
 * What gst_cuda_nvsci_sync_obj_new() asks for.
 *
 * Since: 0.1
 */
typedef enum
{
  GST_CUDA_NVSCI_SYNC_OBJ_CUDA_SIGNAL = (1 << 0),
  GST_CUDA_NVSCI_SYNC_OBJ_CUDA_WAIT = (1 << 1),
  GST_CUDA_NVSCI_SYNC_OBJ_CPU_WAIT = (1 << 2),
  GST_CUDA_NVSCI_SYNC_OBJ_DETERMINISTIC = (1 << 3),
} GstCudaNvSciSyncObjFlags;

GST_CUDA_SYNC_API
NvSciSyncObj gst_cuda_nvsci_sync_obj_new (GstCudaContext * context,
                                          NvSciSyncModule module,
                                          GstCudaNvSciSyncObjFlags flags,
                                          const NvSciSyncAttrList * peer_lists,
                                          guint n_peer_lists,
                                          GError ** error);

GST_CUDA_SYNC_API
void         gst_cuda_nvsci_fence_clear  (guint8 * fence,
                                          gpointer user_data);

G_END_DECLS

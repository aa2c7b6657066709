/* gst-cudasync
 * Copyright (C) 2026 gst-cudasync developers
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Private to the library: not installed, not introspected, not on the
 * include path of the library's users (the plugin included). Two symbols
 * stay exported, _gst_cuda_sync_vtable() and _gst_cuda_sync_result(), for
 * tests/nvsci-fixture alone, which compiles gstcudanvsci.c outside the
 * library; the others are internal.
 *
 * The library's units, from the bottom up; a unit calls only into the
 * units below it (.ci/check-cycles.py on the object files checks it):
 *
 *   gstcudasync-compat.c       the GStreamer version shim
 *   gstcudasyncloader.c        the driver entry points, CUresult errors
 *   gstcudasyncdeferred.c      deferred destruction of driver objects
 *   gstcudasyncevent.c         events, external memory (internal API)
 *   gstcudasyncreleaser.c      the releaser thread (internal API)
 *   gstcudasemaphore-fd.c      fd identities
 *   gstcudasemaphore-streams.c per-stream events of a semaphore
 *   gstcudasemaphore-registry.c  the semaphores imported from fds
 *   gstcudasemaphore-timeline.c, -binary.c, -nvsci.c  the handle types
 *   gstcudasemaphore.c         GstCudaSemaphore
 *   gstcudasemaphore-import.c, -fences.c  imports, NvSciSync fences
 *   gstcudasyncmeta.c, gstcudasyncquery.c, gstcudasyncmemory.c
 */
#pragma once

#include "gstcudasync-internal.h"
#include <cuda.h>

G_BEGIN_DECLS

#define GST_CUDA_SYNC_DECL_FN(name) __typeof__ (name) * name

/* Driver entry points loaded at runtime (libgstcuda 1.22 does not load them). */
typedef struct
{
  GST_CUDA_SYNC_DECL_FN (cuInit);
  GST_CUDA_SYNC_DECL_FN (cuDeviceGetCount);
  GST_CUDA_SYNC_DECL_FN (cuGetErrorName);
  GST_CUDA_SYNC_DECL_FN (cuGetErrorString);
  GST_CUDA_SYNC_DECL_FN (cuImportExternalSemaphore);
  GST_CUDA_SYNC_DECL_FN (cuSignalExternalSemaphoresAsync);
  GST_CUDA_SYNC_DECL_FN (cuWaitExternalSemaphoresAsync);
  GST_CUDA_SYNC_DECL_FN (cuDestroyExternalSemaphore);
  GST_CUDA_SYNC_DECL_FN (cuImportExternalMemory);
  GST_CUDA_SYNC_DECL_FN (cuExternalMemoryGetMappedBuffer);
  GST_CUDA_SYNC_DECL_FN (cuDestroyExternalMemory);
  GST_CUDA_SYNC_DECL_FN (cuEventCreate);
  GST_CUDA_SYNC_DECL_FN (cuEventRecord);
  GST_CUDA_SYNC_DECL_FN (cuEventQuery);
  GST_CUDA_SYNC_DECL_FN (cuEventSynchronize);
  GST_CUDA_SYNC_DECL_FN (cuEventDestroy);
  GST_CUDA_SYNC_DECL_FN (cuStreamCreate);
  GST_CUDA_SYNC_DECL_FN (cuStreamDestroy);
  GST_CUDA_SYNC_DECL_FN (cuStreamSynchronize);
  GST_CUDA_SYNC_DECL_FN (cuStreamQuery);
  GST_CUDA_SYNC_DECL_FN (cuStreamWaitEvent);
  GST_CUDA_SYNC_DECL_FN (cuCtxSynchronize);
  GST_CUDA_SYNC_DECL_FN (cuDeviceGetUuid);
  GST_CUDA_SYNC_DECL_FN (cuMemcpy2DAsync);
  GST_CUDA_SYNC_DECL_FN (cuMemcpyDtoDAsync);
  GST_CUDA_SYNC_DECL_FN (cuMemFree);
  /* optional */
  GST_CUDA_SYNC_DECL_FN (cuExternalMemoryGetMappedMipmappedArray);
  GST_CUDA_SYNC_DECL_FN (cuDeviceGetNvSciSyncAttributes);
  GST_CUDA_SYNC_DECL_FN (cuDeviceGet);
  /* optional: virtual memory management (shareable allocations) */
  GST_CUDA_SYNC_DECL_FN (cuMemGetAllocationGranularity);
  GST_CUDA_SYNC_DECL_FN (cuMemCreate);
  GST_CUDA_SYNC_DECL_FN (cuMemRelease);
  GST_CUDA_SYNC_DECL_FN (cuMemExportToShareableHandle);
  GST_CUDA_SYNC_DECL_FN (cuMemImportFromShareableHandle);
  GST_CUDA_SYNC_DECL_FN (cuMemAddressReserve);
  GST_CUDA_SYNC_DECL_FN (cuMemAddressFree);
  GST_CUDA_SYNC_DECL_FN (cuMemMap);
  GST_CUDA_SYNC_DECL_FN (cuMemUnmap);
  GST_CUDA_SYNC_DECL_FN (cuMemSetAccess);
} GstCudaSyncVTable;

GST_CUDA_SYNC_API
const GstCudaSyncVTable * _gst_cuda_sync_vtable (void);

#define GST_CUDA_SYNC_CALL(name) (_gst_cuda_sync_vtable ()->name)

GST_CUDA_SYNC_API
gboolean _gst_cuda_sync_result (CUresult result, const gchar * call,
    GError ** error);

G_GNUC_INTERNAL
const gchar * _gst_cuda_sync_result_name (CUresult result);

/* Runs @func (with @context pushed) once all @events have completed, on a
 * library worker thread: the caller never blocks. Takes ownership of the
 * events (destroyed after use). With @sync_context, or when waiting for an
 * event fails, the worker also synchronises the whole context first
 * (cuCtxSynchronize): for work that no event covers. If even that fails,
 * @func is not called at all (what it would destroy is leaked, with a
 * warning), because the GPU may still use it. */
typedef void (*GstCudaSyncDeferredFunc) (GstCudaContext * context,
    gpointer data);

G_GNUC_INTERNAL
void _gst_cuda_sync_defer (GstCudaContext * context, GArray * events,
    gboolean sync_context, GstCudaSyncDeferredFunc func, gpointer data);

G_END_DECLS

/* gst-cudasync
 * Copyright (C) 2026 gst-cudasync developers
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The library's GStreamer version shim: the only library file whose code
 * depends on the GStreamer version (through the capabilities of
 * gst/compat/gstcudasync-compat.h).
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstcudasync-compat-private.h"
#include "gst/compat/gstcudasync-compat.h"
#include <gst/cuda/gstcudamemory.h>
#if GST_CUDA_SYNC_HAVE_MEMORY_STREAM
#include <gst/cuda/gstcudastream.h>
#include <gst/cuda/gstcudautils.h>
#endif
#if GST_CUDA_SYNC_HAVE_GST_CUDA_LOADER_WRAPPERS
#include <gst/cuda/cuda-gst.h>
#endif

/* GStreamer 1.26's libgstcuda loads and exports the external-semaphore and
 * external-memory entry points (and events, streams, copies) itself: call
 * through its wrappers there, as its own elements do. The library's loader
 * still checks that the driver has them, and stays the only one for what
 * libgstcuda does not export (and for 1.22 and 1.24). */
#if GST_CUDA_SYNC_HAVE_GST_CUDA_LOADER_WRAPPERS
#define USE_GST(name, gst_name) vt->name = gst_name
void
_gst_cuda_sync_compat_use_loader_wrappers (GstCudaSyncVTable * vt)
{
  USE_GST (cuInit, CuInit);
  USE_GST (cuDeviceGetCount, CuDeviceGetCount);
  USE_GST (cuGetErrorName, CuGetErrorName);
  USE_GST (cuGetErrorString, CuGetErrorString);
  USE_GST (cuImportExternalSemaphore, CuImportExternalSemaphore);
  USE_GST (cuSignalExternalSemaphoresAsync, CuSignalExternalSemaphoresAsync);
  USE_GST (cuWaitExternalSemaphoresAsync, CuWaitExternalSemaphoresAsync);
  USE_GST (cuDestroyExternalSemaphore, CuDestroyExternalSemaphore);
  USE_GST (cuImportExternalMemory, CuImportExternalMemory);
  USE_GST (cuExternalMemoryGetMappedBuffer, CuExternalMemoryGetMappedBuffer);
  USE_GST (cuDestroyExternalMemory, CuDestroyExternalMemory);
  USE_GST (cuEventCreate, CuEventCreate);
  USE_GST (cuEventRecord, CuEventRecord);
  USE_GST (cuEventSynchronize, CuEventSynchronize);
  USE_GST (cuEventDestroy, CuEventDestroy);
  USE_GST (cuStreamCreate, CuStreamCreate);
  USE_GST (cuStreamDestroy, CuStreamDestroy);
  USE_GST (cuStreamSynchronize, CuStreamSynchronize);
  USE_GST (cuCtxSynchronize, CuCtxSynchronize);
  USE_GST (cuMemcpy2DAsync, CuMemcpy2DAsync);
  USE_GST (cuMemcpyDtoDAsync, CuMemcpyDtoDAsync);
  USE_GST (cuMemFree, CuMemFree);
  if (vt->cuExternalMemoryGetMappedMipmappedArray)
    USE_GST (cuExternalMemoryGetMappedMipmappedArray,
        CuExternalMemoryGetMappedMipmappedArray);
}

#undef USE_GST
#else
void
_gst_cuda_sync_compat_use_loader_wrappers (GstCudaSyncVTable * vt)
{
}
#endif

#if GST_CUDA_SYNC_HAVE_MEMORY_STREAM
CUstream
_gst_cuda_sync_compat_memory_get_stream (GstMemory * mem)
{
  GstCudaStream *stream;

  if (!gst_is_cuda_memory (mem))
    return NULL;
  stream = gst_cuda_memory_get_stream (GST_CUDA_MEMORY_CAST (mem));
  return stream ? gst_cuda_stream_get_handle (stream) : NULL;
}

gboolean
_gst_cuda_sync_compat_memory_needs_sync (GstMemory * mem)
{
  return GST_MEMORY_FLAG_IS_SET (mem, GST_CUDA_MEMORY_TRANSFER_NEED_SYNC);
}

void
_gst_cuda_sync_compat_memory_set_needs_sync (GstMemory * mem)
{
  GST_MINI_OBJECT_FLAG_SET (mem, GST_CUDA_MEMORY_TRANSFER_NEED_SYNC);
}

/* the library's user token on CUDA memory */
static gint64
memory_token (void)
{
  static gsize once = 0;
  static gint64 token;

  if (g_once_init_enter (&once)) {
    token = gst_cuda_create_user_token ();
    g_once_init_leave (&once, 1);
  }
  return token;
}

gpointer
_gst_cuda_sync_compat_memory_get_data (GstMemory * mem)
{
  return gst_cuda_memory_get_token_data (GST_CUDA_MEMORY_CAST (mem),
      memory_token ());
}

void
_gst_cuda_sync_compat_memory_set_data (GstMemory * mem, gpointer data,
    GDestroyNotify notify)
{
  gst_cuda_memory_set_token_data (GST_CUDA_MEMORY_CAST (mem),
      memory_token (), data, notify);
}
#else
CUstream
_gst_cuda_sync_compat_memory_get_stream (GstMemory * mem)
{
  return NULL;
}

gboolean
_gst_cuda_sync_compat_memory_needs_sync (GstMemory * mem)
{
  return FALSE;
}

void
_gst_cuda_sync_compat_memory_set_needs_sync (GstMemory * mem)
{
}

gpointer
_gst_cuda_sync_compat_memory_get_data (GstMemory * mem)
{
  return NULL;
}

void
_gst_cuda_sync_compat_memory_set_data (GstMemory * mem, gpointer data,
    GDestroyNotify notify)
{
  if (notify)
    notify (data);
}
#endif

#if GST_CUDA_SYNC_HAVE_WRAPPED_CUDA_ALLOC
GstMemory *
_gst_cuda_sync_compat_memory_wrap (GstCudaContext * context,
    const GstVideoInfo * info, CUdeviceptr ptr, gpointer user_data,
    GDestroyNotify notify)
{
  return gst_cuda_allocator_alloc_wrapped (NULL, context, NULL, info, ptr,
      user_data, notify);
}
#else
GstMemory *
_gst_cuda_sync_compat_memory_wrap (GstCudaContext * context,
    const GstVideoInfo * info, CUdeviceptr ptr, gpointer user_data,
    GDestroyNotify notify)
{
  return NULL;
}
#endif

gboolean
_gst_cuda_sync_compat_can_wrap (void)
{
  return GST_CUDA_SYNC_HAVE_WRAPPED_CUDA_ALLOC;
}

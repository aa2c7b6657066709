/* gst-cudasync
 * Copyright (C) 2026 gst-cudasync developers
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The loader: the CUDA driver entry points that upstream's libgstcuda 1.22
 * does not load (external semaphores and memory, events, stream waits,
 * device UUIDs), and the library's error domain. The API reference's
 * overview (docs/reference/overview.md) introduces the library.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstcudasync-private.h"
#include "gstcudasync-compat-private.h"
#include <gst/cuda/gstcudaloader.h>
#include <gst/cuda/gstcudamemory.h>
#include <gmodule.h>

GST_DEBUG_CATEGORY_STATIC (gst_cuda_sync_debug);
#define GST_CAT_DEFAULT gst_cuda_sync_debug

#define CUDA_LIBNAME "libcuda.so.1"

/**
 * gst_cuda_sync_error_quark:
 *
 * The error domain of #GstCudaSyncError.
 *
 * Returns: the quark of the %GST_CUDA_SYNC_ERROR error domain
 *
 * Since: 0.1
 */
G_DEFINE_QUARK (gst - cuda - sync - error - quark, gst_cuda_sync_error);

static GstCudaSyncVTable vtable;
static GError *load_error = NULL;

static gboolean
load_symbol (GModule * module, const gchar * name, gpointer * func,
    gboolean mandatory)
{
  if (!g_module_symbol (module, name, func) || !*func) {
    *func = NULL;
    if (mandatory) {
      g_set_error (&load_error, GST_CUDA_SYNC_ERROR,
          GST_CUDA_SYNC_ERROR_NO_DRIVER,
          "The CUDA driver (%s) lacks the entry point %s; a driver with "
          "external semaphore support (CUDA 10 or newer) is required",
          g_module_name (module), name);
      return FALSE;
    }
    GST_INFO ("optional entry point %s not available", name);
  }
  return TRUE;
}

#define LOAD(name) \
  if (!load_symbol (module, G_STRINGIFY (name), (gpointer *) &vtable.name, TRUE)) \
    goto failed;
#define LOAD_OPTIONAL(name) \
  load_symbol (module, G_STRINGIFY (name), (gpointer *) &vtable.name, FALSE);

/* A driver without a usable device fails here, with a clear error, before
 * any element reaches libgstcuda's context creation (1.22's logs with an
 * uninitialised debug category when cuInit fails). */
static gboolean
check_devices (void)
{
  CUresult r = vtable.cuInit (0);
  int n = 0;

  if (r == CUDA_SUCCESS)
    r = vtable.cuDeviceGetCount (&n);
  if (r != CUDA_SUCCESS || n == 0) {
    g_set_error (&load_error, GST_CUDA_SYNC_ERROR,
        GST_CUDA_SYNC_ERROR_NO_DRIVER, "The CUDA driver has no usable "
        "device (%s, %d devices)", r == CUDA_SUCCESS ? "cuDeviceGetCount" :
        _gst_cuda_sync_result_name (r), n);
    GST_WARNING ("%s", load_error->message);
    return FALSE;
  }
  return TRUE;
}

static gpointer
load_library (gpointer user_data)
{
  GModule *module;

  GST_DEBUG_CATEGORY_INIT (gst_cuda_sync_debug, "cudasync", 0,
      "gst-cudasync library");

  /* libgstcuda's own entry points (gst_cuda_context_new() and every
   * GstCudaMemory operation use them): loaded by upstream's nvcodec plugin
   * when it is in the process, otherwise nobody would, and libgstcuda
   * asserts on the first call */
  if (!gst_cuda_load_library ()) {
    g_set_error (&load_error, GST_CUDA_SYNC_ERROR,
        GST_CUDA_SYNC_ERROR_NO_DRIVER,
        "libgstcuda could not load the CUDA driver (%s)", CUDA_LIBNAME);
    GST_WARNING ("%s", load_error->message);
    return NULL;
  }
  /* GstCudaAllocator and friends, as nvcodec's plugin_init does */
  gst_cuda_memory_init_once ();

  module = g_module_open (CUDA_LIBNAME, G_MODULE_BIND_LAZY);
  if (!module) {
    g_set_error (&load_error, GST_CUDA_SYNC_ERROR,
        GST_CUDA_SYNC_ERROR_NO_DRIVER,
        "Could not open the CUDA driver %s: %s", CUDA_LIBNAME,
        g_module_error ());
    return NULL;
  }

  LOAD (cuInit);
  LOAD (cuDeviceGetCount);
  LOAD (cuGetErrorName);
  LOAD (cuGetErrorString);
  LOAD (cuImportExternalSemaphore);
  LOAD (cuSignalExternalSemaphoresAsync);
  LOAD (cuWaitExternalSemaphoresAsync);
  LOAD (cuDestroyExternalSemaphore);
  LOAD (cuImportExternalMemory);
  LOAD (cuExternalMemoryGetMappedBuffer);
  LOAD (cuDestroyExternalMemory);
  LOAD (cuEventCreate);
  LOAD (cuEventRecord);
  LOAD (cuEventQuery);
  LOAD (cuEventSynchronize);
  LOAD (cuEventDestroy);
  LOAD (cuStreamCreate);
  LOAD (cuStreamDestroy);
  LOAD (cuStreamSynchronize);
  LOAD (cuStreamQuery);
  LOAD (cuStreamWaitEvent);
  LOAD (cuCtxSynchronize);
  LOAD (cuMemcpy2DAsync);
  LOAD (cuMemcpyDtoDAsync);
  LOAD (cuMemFree);
  /* cuDeviceGetUuid_v2 since CUDA 11.4, the plain name before */
  load_symbol (module, "cuDeviceGetUuid_v2",
      (gpointer *) & vtable.cuDeviceGetUuid, FALSE);
  if (!vtable.cuDeviceGetUuid
      && !load_symbol (module, "cuDeviceGetUuid",
          (gpointer *) & vtable.cuDeviceGetUuid, TRUE))
    goto failed;
  LOAD_OPTIONAL (cuExternalMemoryGetMappedMipmappedArray);
  LOAD_OPTIONAL (cuDeviceGetNvSciSyncAttributes);
  LOAD_OPTIONAL (cuDeviceGet);
  LOAD_OPTIONAL (cuMemGetAllocationGranularity);
  LOAD_OPTIONAL (cuMemCreate);
  LOAD_OPTIONAL (cuMemRelease);
  LOAD_OPTIONAL (cuMemExportToShareableHandle);
  LOAD_OPTIONAL (cuMemImportFromShareableHandle);
  LOAD_OPTIONAL (cuMemAddressReserve);
  LOAD_OPTIONAL (cuMemAddressFree);
  LOAD_OPTIONAL (cuMemMap);
  LOAD_OPTIONAL (cuMemUnmap);
  LOAD_OPTIONAL (cuMemSetAccess);

  _gst_cuda_sync_compat_use_loader_wrappers (&vtable);
  g_module_make_resident (module);
  GST_INFO ("CUDA driver entry points loaded from %s", g_module_name (module));
  return check_devices ()? GINT_TO_POINTER (TRUE) : NULL;

failed:
  GST_WARNING ("%s", load_error->message);
  g_module_close (module);
  memset (&vtable, 0, sizeof (vtable));
  return NULL;
}

gboolean
gst_cuda_sync_init (GError ** error)
{
  static GOnce once = G_ONCE_INIT;

  g_once (&once, load_library, NULL);
  if (!once.retval) {
    if (error)
      *error = g_error_copy (load_error);
    return FALSE;
  }
  return TRUE;
}

const GstCudaSyncVTable *
_gst_cuda_sync_vtable (void)
{
  return &vtable;
}

const gchar *
_gst_cuda_sync_result_name (CUresult result)
{
  const gchar *name = NULL;

  if (vtable.cuGetErrorName && vtable.cuGetErrorName (result, &name) ==
      CUDA_SUCCESS && name)
    return name;
  return "CUDA_ERROR_UNKNOWN";
}

gboolean
_gst_cuda_sync_result (CUresult result, const gchar * call, GError ** error)
{
  const gchar *desc = NULL;
  GstCudaSyncError code = GST_CUDA_SYNC_ERROR_DRIVER;

  if (result == CUDA_SUCCESS)
    return TRUE;

  if (vtable.cuGetErrorString)
    vtable.cuGetErrorString (result, &desc);

  switch (result) {
    case CUDA_ERROR_INVALID_HANDLE:
    case CUDA_ERROR_INVALID_VALUE:
    case CUDA_ERROR_OPERATING_SYSTEM:
    case CUDA_ERROR_FILE_NOT_FOUND:
      code = GST_CUDA_SYNC_ERROR_DRIVER;
      break;
    case CUDA_ERROR_NOT_SUPPORTED:
      code = GST_CUDA_SYNC_ERROR_NOT_SUPPORTED;
      break;
    default:
      break;
  }

  GST_WARNING ("%s failed: %s (%d)%s%s", call,
      _gst_cuda_sync_result_name (result), (gint) result,
      desc ? ": " : "", desc ? desc : "");
  g_set_error (error, GST_CUDA_SYNC_ERROR, code, "%s failed: %s (%d)%s%s",
      call, _gst_cuda_sync_result_name (result), (gint) result,
      desc ? ": " : "", desc ? desc : "");
  return FALSE;
}

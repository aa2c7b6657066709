/* gst-cudasync
 * Copyright (C) 2026 gst-cudasync developers
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
/**
 * SECTION:gstcudasync
 * @title: gst-cudasync library
 * @short_description: external-semaphore synchronisation for CUDA buffers
 *
 * The library loads the CUDA driver entry points that upstream's
 * libgstcuda 1.22 does not (external semaphores and memory, events, stream
 * waits, device UUIDs) and provides #GstCudaSemaphore and #GstCudaSyncMeta.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstcudasync-private.h"
#include <gst/cuda/gstcudaloader.h>
#include <gst/cuda/gstcudamemory.h>
#include <gst/cuda/cuda-gst.h>
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
G_DEFINE_QUARK (gst-cuda-sync-error-quark, gst_cuda_sync_error);

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

/* GStreamer 1.26's libgstcuda loads and exports the external-semaphore and
 * external-memory entry points (and events, streams, copies) itself: call
 * through its wrappers there, as its own elements do. The library's loader
 * above still checks that the driver has them, and stays the only one for
 * what libgstcuda does not export (and for 1.22 and 1.24). */
#if GST_CHECK_VERSION(1, 26, 0)
#define USE_GST(name, gst_name) vtable.name = gst_name
static void
use_libgstcuda_wrappers (void)
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
  if (vtable.cuExternalMemoryGetMappedMipmappedArray)
    USE_GST (cuExternalMemoryGetMappedMipmappedArray,
        CuExternalMemoryGetMappedMipmappedArray);
}
#undef USE_GST
#else
static void
use_libgstcuda_wrappers (void)
{
}
#endif

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
  _gst_cuda_semaphore_init_debug ();

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
  load_symbol (module, "cuDeviceGetUuid_v2", (gpointer *) & vtable.cuDeviceGetUuid,
      FALSE);
  if (!vtable.cuDeviceGetUuid && !load_symbol (module, "cuDeviceGetUuid",
          (gpointer *) & vtable.cuDeviceGetUuid, TRUE))
    goto failed;
  LOAD_OPTIONAL (cuExternalMemoryGetMappedMipmappedArray);
  LOAD_OPTIONAL (cuDeviceGetNvSciSyncAttributes);
  LOAD_OPTIONAL (cuDeviceGet);

  use_libgstcuda_wrappers ();
  g_module_make_resident (module);
  GST_INFO ("CUDA driver entry points loaded from %s", g_module_name (module));
  return check_devices () ? GINT_TO_POINTER (TRUE) : NULL;

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

/* Deferred work: destruction of driver objects that GPU work may still use,
 * done on a worker thread once the events recorded after that work have
 * completed, so that no streaming thread ever waits for the GPU. */

typedef struct
{
  GstCudaContext *context;
  GArray *events;
  gboolean sync_context;
  GstCudaSyncDeferredFunc func;
  gpointer data;
} DeferredJob;

static GMutex deferred_lock;
static GCond deferred_cond;
static guint deferred_pending = 0;
static GThreadPool *deferred_pool = NULL;

/* context pushed: whether the GPU work the job waits for is known to be
 * complete */
static gboolean
deferred_wait (DeferredJob * job)
{
  gboolean sync_context = job->sync_context;
  CUresult r;
  guint i;

  for (i = 0; i < job->events->len; i++) {
    CUevent ev = g_array_index (job->events, CUevent, i);

    r = vtable.cuEventSynchronize (ev);
    if (r != CUDA_SUCCESS) {
      GST_WARNING ("cuEventSynchronize: %s: synchronising the context "
          "instead", _gst_cuda_sync_result_name (r));
      sync_context = TRUE;
    }
    vtable.cuEventDestroy (ev);
  }
  if (!sync_context)
    return TRUE;
  r = vtable.cuCtxSynchronize ();
  if (r != CUDA_SUCCESS) {
    GST_WARNING ("cuCtxSynchronize: %s", _gst_cuda_sync_result_name (r));
    return FALSE;
  }
  return TRUE;
}

static void
deferred_run (gpointer job_ptr, gpointer unused)
{
  DeferredJob *job = job_ptr;

  if (!gst_cuda_context_push (job->context)) {
    GST_ERROR_OBJECT (job->context, "cannot push CUDA context; leaking");
  } else {
    if (deferred_wait (job))
      job->func (job->context, job->data);
    else
      GST_ERROR_OBJECT (job->context, "cannot know whether the GPU work is "
          "done: leaking what it uses instead of destroying it");
    gst_cuda_context_pop (NULL);
  }

  g_array_unref (job->events);
  gst_object_unref (job->context);
  g_free (job);

  g_mutex_lock (&deferred_lock);
  deferred_pending--;
  g_cond_broadcast (&deferred_cond);
  g_mutex_unlock (&deferred_lock);
}

void
_gst_cuda_sync_defer (GstCudaContext * context, GArray * events,
    gboolean sync_context, GstCudaSyncDeferredFunc func, gpointer data)
{
  DeferredJob *job;

  if ((!events || events->len == 0) && !sync_context) {
    /* nothing to wait for: now, on the caller's thread; if the context
     * cannot be made current here, the worker tries again */
    /* @func may drop the caller's last reference to @context */
    gst_object_ref (context);
    if (gst_cuda_context_push (context)) {
      func (context, data);
      gst_cuda_context_pop (NULL);
      gst_object_unref (context);
      if (events)
        g_array_unref (events);
      return;
    }
    gst_object_unref (context);
    GST_WARNING_OBJECT (context, "cannot push the CUDA context: destruction "
        "left to the worker thread");
  }

  job = g_new0 (DeferredJob, 1);
  job->context = gst_object_ref (context);
  job->events = events ? events : g_array_new (FALSE, FALSE, sizeof (CUevent));
  job->sync_context = sync_context;
  job->func = func;
  job->data = data;

  g_mutex_lock (&deferred_lock);
  if (!deferred_pool)
    deferred_pool = g_thread_pool_new (deferred_run, NULL, 1, FALSE, NULL);
  deferred_pending++;
  g_mutex_unlock (&deferred_lock);

  g_thread_pool_push (deferred_pool, job, NULL);
}

/**
 * gst_cuda_sync_wait_idle:
 *
 * Blocks until every deferred destruction the library has queued (semaphores
 * whose GPU work was still pending when they were released) has completed.
 *
 * Applications call it once before they exit (after setting their pipelines
 * to NULL, like gst_deinit()): the destruction runs on a worker thread, and
 * exit() would otherwise tear the process and the driver down under it. The
 * library does not do it itself at unload: there is no gst_deinit() hook for
 * libraries, and waiting for GPU work from a destructor at exit can hang once
 * the driver has been torn down. Also useful in leak checks. Do not call it
 * from a streaming thread.
 *
 * Since: 0.1
 */
void
gst_cuda_sync_wait_idle (void)
{
  g_mutex_lock (&deferred_lock);
  while (deferred_pending > 0)
    g_cond_wait (&deferred_cond, &deferred_lock);
  g_mutex_unlock (&deferred_lock);
}

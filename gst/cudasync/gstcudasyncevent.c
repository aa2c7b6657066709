/* gst-cudasync
 * Copyright (C) 2026 gst-cudasync developers
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Points in a CUDA stream's work, external memory (gstcudasync-internal.h).
 *
 * A #GstCudaSyncEvent wraps a CUDA event of one #GstCudaContext: record it
 * behind work on a stream, then ask whether that work has completed without
 * blocking, wait for it on the CPU, or make another stream wait for it on
 * the GPU. A failed query is reported as %GST_CUDA_SYNC_EVENT_ERROR, never as
 * complete. #GstCudaSyncExternalMemory maps memory another API exported as a
 * POSIX fd (Vulkan's `VK_KHR_external_memory_fd`) into CUDA.
 *
 * These are the driver calls of the project's elements that GStreamer 1.22's
 * libgstcuda does not wrap; every function pushes the context itself.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstcudasync-private.h"
#include <string.h>
#include <unistd.h>

/* destruction, context pushed (_gst_cuda_sync_defer()) */
static void
destroy_event (GstCudaContext * context, gpointer data)
{
  GST_CUDA_SYNC_CALL (cuEventDestroy) ((CUevent) data);
}

struct _GstCudaSyncEvent
{
  gint refcount;
  GstCudaContext *context;
  CUevent event;
};

G_DEFINE_BOXED_TYPE (GstCudaSyncEvent, gst_cuda_sync_event,
    gst_cuda_sync_event_ref, gst_cuda_sync_event_unref);

static gboolean
push (GstCudaContext * context, GError ** error)
{
  if (gst_cuda_context_push (context))
    return TRUE;
  g_set_error (error, GST_CUDA_SYNC_ERROR, GST_CUDA_SYNC_ERROR_DRIVER,
      "Could not make the CUDA context current");
  return FALSE;
}

/**
 * gst_cuda_sync_event_new:
 * @context: a #GstCudaContext
 * @blocking_sync: make gst_cuda_sync_event_wait_cpu() sleep instead of
 *   spinning (`CU_EVENT_BLOCKING_SYNC`)
 * @error: return location for a #GError, or %NULL
 *
 * Creates a CUDA event in @context.
 *
 * Returns: (transfer full) (nullable): a new event (without timing), or
 * %NULL with @error set
 *
 * Since: 0.2
 */
GstCudaSyncEvent *
gst_cuda_sync_event_new (GstCudaContext * context, gboolean blocking_sync,
    GError ** error)
{
  GstCudaSyncEvent *ev;
  CUevent handle = NULL;
  CUresult r;

  g_return_val_if_fail (GST_IS_CUDA_CONTEXT (context), NULL);

  if (!gst_cuda_sync_init (error) || !push (context, error))
    return NULL;
  r = GST_CUDA_SYNC_CALL (cuEventCreate) (&handle, CU_EVENT_DISABLE_TIMING |
      (blocking_sync ? CU_EVENT_BLOCKING_SYNC : 0));
  gst_cuda_context_pop (NULL);
  if (!_gst_cuda_sync_result (r, "cuEventCreate", error))
    return NULL;

  ev = g_new0 (GstCudaSyncEvent, 1);
  ev->refcount = 1;
  ev->context = gst_object_ref (context);
  ev->event = handle;
  return ev;
}

/**
 * gst_cuda_sync_event_ref:
 * @event: a #GstCudaSyncEvent
 *
 * Adds a reference to @event.
 *
 * Returns: (transfer full): @event
 *
 * Since: 0.2
 */
GstCudaSyncEvent *
gst_cuda_sync_event_ref (GstCudaSyncEvent * event)
{
  g_return_val_if_fail (event != NULL, NULL);

  g_atomic_int_inc (&event->refcount);
  return event;
}

/**
 * gst_cuda_sync_event_unref:
 * @event: (transfer full): a #GstCudaSyncEvent
 *
 * The driver releases the event once the work recorded before it has
 * completed: this never blocks.
 *
 * Since: 0.2
 */
void
gst_cuda_sync_event_unref (GstCudaSyncEvent * event)
{
  g_return_if_fail (event != NULL);

  if (!g_atomic_int_dec_and_test (&event->refcount))
    return;
  _gst_cuda_sync_defer (event->context, NULL, FALSE, destroy_event,
      event->event);
  gst_object_unref (event->context);
  g_free (event);
}

/**
 * gst_cuda_sync_event_record:
 * @event: a #GstCudaSyncEvent
 * @stream: (nullable): a stream of the event's context (%NULL: the legacy
 *   default stream)
 * @error: return location for a #GError, or %NULL
 *
 * Records @event behind the work enqueued on @stream so far.
 *
 * Returns: %TRUE on success
 *
 * Since: 0.2
 */
gboolean
gst_cuda_sync_event_record (GstCudaSyncEvent * event, CUstream stream,
    GError ** error)
{
  CUresult r;

  g_return_val_if_fail (event != NULL, FALSE);

  if (!push (event->context, error))
    return FALSE;
  r = GST_CUDA_SYNC_CALL (cuEventRecord) (event->event, stream);
  gst_cuda_context_pop (NULL);
  return _gst_cuda_sync_result (r, "cuEventRecord", error);
}

/**
 * gst_cuda_sync_event_query:
 * @event: a #GstCudaSyncEvent
 * @error: return location for a #GError, or %NULL
 *
 * Never blocks.
 *
 * Returns: whether the work recorded before @event has completed; on a
 * driver error %GST_CUDA_SYNC_EVENT_ERROR with @error set
 *
 * Since: 0.2
 */
GstCudaSyncEventStatus
gst_cuda_sync_event_query (GstCudaSyncEvent * event, GError ** error)
{
  CUresult r;

  g_return_val_if_fail (event != NULL, GST_CUDA_SYNC_EVENT_ERROR);

  if (!push (event->context, error))
    return GST_CUDA_SYNC_EVENT_ERROR;
  r = GST_CUDA_SYNC_CALL (cuEventQuery) (event->event);
  gst_cuda_context_pop (NULL);
  if (r == CUDA_SUCCESS)
    return GST_CUDA_SYNC_EVENT_COMPLETE;
  if (r == CUDA_ERROR_NOT_READY)
    return GST_CUDA_SYNC_EVENT_PENDING;
  _gst_cuda_sync_result (r, "cuEventQuery", error);
  return GST_CUDA_SYNC_EVENT_ERROR;
}

/**
 * gst_cuda_sync_event_wait_cpu:
 * @event: a #GstCudaSyncEvent
 * @error: return location for a #GError, or %NULL
 *
 * Blocks until the work recorded before @event has completed. Not for
 * streaming threads on the GPU path.
 *
 * Returns: %TRUE once it has, %FALSE with @error set on a driver error
 *
 * Since: 0.2
 */
gboolean
gst_cuda_sync_event_wait_cpu (GstCudaSyncEvent * event, GError ** error)
{
  CUresult r;

  g_return_val_if_fail (event != NULL, FALSE);

  if (!push (event->context, error))
    return FALSE;
  r = GST_CUDA_SYNC_CALL (cuEventSynchronize) (event->event);
  gst_cuda_context_pop (NULL);
  return _gst_cuda_sync_result (r, "cuEventSynchronize", error);
}

/**
 * gst_cuda_sync_event_wait_gpu:
 * @event: a #GstCudaSyncEvent
 * @stream: (nullable): a stream of the event's context (%NULL: the legacy
 *   default stream)
 * @error: return location for a #GError, or %NULL
 *
 * Makes the work enqueued on @stream from now on wait, on the GPU, for the
 * work recorded before @event (`cuStreamWaitEvent`). Never blocks.
 *
 * Returns: %TRUE on success
 *
 * Since: 0.2
 */
gboolean
gst_cuda_sync_event_wait_gpu (GstCudaSyncEvent * event, CUstream stream,
    GError ** error)
{
  CUresult r;

  g_return_val_if_fail (event != NULL, FALSE);

  if (!push (event->context, error))
    return FALSE;
  r = GST_CUDA_SYNC_CALL (cuStreamWaitEvent) (stream, event->event, 0);
  gst_cuda_context_pop (NULL);
  return _gst_cuda_sync_result (r, "cuStreamWaitEvent", error);
}

/**
 * GstCudaSyncExternalMemory:
 *
 * Memory another API exported as a POSIX fd, imported into a CUDA context
 * and mapped there as one device address range.
 *
 * Since: 0.2
 */

struct _GstCudaSyncExternalMemory
{
  GstCudaContext *context;
  CUexternalMemory handle;
  CUdeviceptr ptr;
};

static void
destroy_external_memory (GstCudaContext * context, gpointer data)
{
  GstCudaSyncExternalMemory *mem = data;

  GST_CUDA_SYNC_CALL (cuMemFree) (mem->ptr);
  GST_CUDA_SYNC_CALL (cuDestroyExternalMemory) (mem->handle);
  gst_object_unref (mem->context);
  g_free (mem);
}

/**
 * gst_cuda_sync_external_memory_import_fd: (skip)
 * @context: a #GstCudaContext
 * @fd: an opaque POSIX fd of the memory (`CU_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD`)
 * @size: the size of the memory (the exporter's allocation size)
 * @dedicated: the memory is a dedicated allocation
 *   (`CUDA_EXTERNAL_MEMORY_DEDICATED`)
 * @error: return location for a #GError, or %NULL
 *
 * Imports the memory and maps all of it. After a successful import CUDA
 * owns @fd; on failure it stays the caller's.
 *
 * Returns: (transfer full) (nullable): the imported memory, or %NULL with
 * @error set
 *
 * Since: 0.2
 */
GstCudaSyncExternalMemory *
gst_cuda_sync_external_memory_import_fd (GstCudaContext * context, gint fd,
    guint64 size, gboolean dedicated, GError ** error)
{
  CUDA_EXTERNAL_MEMORY_HANDLE_DESC desc;
  CUDA_EXTERNAL_MEMORY_BUFFER_DESC buf_desc;
  CUexternalMemory handle = NULL;
  CUdeviceptr ptr = 0;
  GstCudaSyncExternalMemory *mem;
  CUresult r;

  g_return_val_if_fail (GST_IS_CUDA_CONTEXT (context), NULL);
  g_return_val_if_fail (fd >= 0, NULL);

  if (!gst_cuda_sync_init (error) || !push (context, error))
    return NULL;
  memset (&desc, 0, sizeof (desc));
  desc.type = CU_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD;
  desc.handle.fd = fd;
  desc.size = size;
  desc.flags = dedicated ? CUDA_EXTERNAL_MEMORY_DEDICATED : 0;
  r = GST_CUDA_SYNC_CALL (cuImportExternalMemory) (&handle, &desc);
  if (!_gst_cuda_sync_result (r, "cuImportExternalMemory", error)) {
    gst_cuda_context_pop (NULL);
    return NULL;
  }
  memset (&buf_desc, 0, sizeof (buf_desc));
  buf_desc.size = size;
  r = GST_CUDA_SYNC_CALL (cuExternalMemoryGetMappedBuffer) (&ptr, handle,
      &buf_desc);
  if (!_gst_cuda_sync_result (r, "cuExternalMemoryGetMappedBuffer", error)) {
    GST_CUDA_SYNC_CALL (cuDestroyExternalMemory) (handle);
    gst_cuda_context_pop (NULL);
    return NULL;
  }
  gst_cuda_context_pop (NULL);

  mem = g_new0 (GstCudaSyncExternalMemory, 1);
  mem->context = gst_object_ref (context);
  mem->handle = handle;
  mem->ptr = ptr;
  return mem;
}

/**
 * gst_cuda_sync_external_memory_get_pointer: (skip)
 * @mem: an imported #GstCudaSyncExternalMemory
 *
 * Gets where the memory is mapped in its CUDA context.
 *
 * Returns: the device address the whole memory is mapped at
 *
 * Since: 0.2
 */
CUdeviceptr
gst_cuda_sync_external_memory_get_pointer (GstCudaSyncExternalMemory * mem)
{
  g_return_val_if_fail (mem != NULL, 0);

  return mem->ptr;
}

/**
 * gst_cuda_sync_external_memory_free: (skip)
 * @mem: (transfer full): a #GstCudaSyncExternalMemory
 *
 * Unmaps and releases the memory. The caller makes sure that no GPU work
 * uses it any more.
 *
 * Since: 0.2
 */
void
gst_cuda_sync_external_memory_free (GstCudaSyncExternalMemory * mem)
{
  g_return_if_fail (mem != NULL);

  /* now if the context can be made current, else on the library's worker
   * (which leaks it, with an error, if it cannot either) */
  _gst_cuda_sync_defer (mem->context, NULL, FALSE, destroy_external_memory,
      mem);
}

/**
 * gst_cuda_sync_context_get_uuid:
 * @context: a #GstCudaContext
 * @uuid: (out caller-allocates) (array fixed-size=16): the device's UUID
 * @error: return location for a #GError, or %NULL
 *
 * The UUID of @context's device (`cuDeviceGetUuid`), which Vulkan reports
 * as `VkPhysicalDeviceIDProperties.deviceUUID` for the same GPU.
 *
 * Returns: %TRUE on success
 *
 * Since: 0.2
 */
gboolean
gst_cuda_sync_context_get_uuid (GstCudaContext * context, guint8 uuid[16],
    GError ** error)
{
  guint dev = 0;
  CUuuid id;
  CUresult r;

  g_return_val_if_fail (GST_IS_CUDA_CONTEXT (context), FALSE);

  if (!gst_cuda_sync_init (error) || !push (context, error))
    return FALSE;
  g_object_get (context, "cuda-device-id", &dev, NULL);
  r = GST_CUDA_SYNC_CALL (cuDeviceGetUuid) (&id, (CUdevice) dev);
  gst_cuda_context_pop (NULL);
  if (!_gst_cuda_sync_result (r, "cuDeviceGetUuid", error))
    return FALSE;
  memcpy (uuid, id.bytes, 16);
  return TRUE;
}

/**
 * gst_cuda_sync_context_synchronize:
 * @context: a #GstCudaContext
 * @error: return location for a #GError, or %NULL
 *
 * Blocks until all work of @context has completed, on every stream
 * (`cuCtxSynchronize`): for work that no event covers. Not for streaming
 * threads on the GPU path.
 *
 * Returns: %TRUE once it has, %FALSE with @error set on a driver error
 *
 * Since: 0.2
 */
gboolean
gst_cuda_sync_context_synchronize (GstCudaContext * context, GError ** error)
{
  CUresult r;

  g_return_val_if_fail (GST_IS_CUDA_CONTEXT (context), FALSE);

  if (!gst_cuda_sync_init (error) || !push (context, error))
    return FALSE;
  r = GST_CUDA_SYNC_CALL (cuCtxSynchronize) ();
  gst_cuda_context_pop (NULL);
  return _gst_cuda_sync_result (r, "cuCtxSynchronize", error);
}

/**
 * gst_cuda_sync_check_result:
 * @result: what a CUDA driver call returned
 * @call: the name of the call, for the message
 * @error: return location for a #GError, or %NULL
 *
 * Turns the result of a CUDA driver call into a #GError.
 *
 * Returns: %TRUE for `CUDA_SUCCESS`; otherwise %FALSE with @error set to a
 * %GST_CUDA_SYNC_ERROR whose message names @call and the result
 *
 * Since: 0.2
 */
gboolean
gst_cuda_sync_check_result (CUresult result, const gchar * call,
    GError ** error)
{
  return _gst_cuda_sync_result (result, call, error);
}

/**
 * gst_cuda_sync_result_name:
 * @result: a CUresult
 *
 * Names a CUDA driver result.
 *
 * Returns: its name (`CUDA_ERROR_...`), or "CUDA_ERROR_UNKNOWN"
 *
 * Since: 0.2
 */
const gchar *
gst_cuda_sync_result_name (CUresult result)
{
  return _gst_cuda_sync_result_name (result);
}

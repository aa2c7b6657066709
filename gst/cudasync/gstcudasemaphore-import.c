/* gst-cudasync
 * Copyright (C) 2026 gst-cudasync developers
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * GstCudaSemaphore: importing fds and NvSciSync objects.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstcudasemaphore-private.h"
#include <fcntl.h>
#include <string.h>

#define GST_CAT_DEFAULT gst_cuda_semaphore_debug

GstCudaSemaphore *
_gst_cuda_semaphore_new (GstCudaContext * context,
    GstCudaSemaphoreHandleType type, CUexternalSemaphore handle)
{
  GstCudaSemaphore *self = g_object_new (GST_TYPE_CUDA_SEMAPHORE, NULL);

  gst_object_ref_sink (self);
  self->context = gst_object_ref (context);
  self->type = type;
  self->handle = handle;
  return self;
}

static const gchar *
type_name (GstCudaSemaphoreHandleType type)
{
  switch (type) {
    case GST_CUDA_SEMAPHORE_HANDLE_TYPE_TIMELINE_FD:
      return "timeline fd";
    case GST_CUDA_SEMAPHORE_HANDLE_TYPE_OPAQUE_FD:
      return "binary opaque fd";
    case GST_CUDA_SEMAPHORE_HANDLE_TYPE_NVSCISYNC:
      return "NvSciSync";
  }
  return "unknown";
}

static gboolean
import_failed (CUresult r, GstCudaSemaphoreHandleType type, GError ** error)
{
  GError *err = NULL;

  _gst_cuda_sync_result (r, "cuImportExternalSemaphore", &err);
  /* The NVIDIA driver answers CUDA_ERROR_UNKNOWN for an fd that is not an
   * exported semaphore (seen on driver 580). */
  if (r == CUDA_ERROR_INVALID_HANDLE || r == CUDA_ERROR_INVALID_VALUE ||
      r == CUDA_ERROR_OPERATING_SYSTEM || r == CUDA_ERROR_NOT_SUPPORTED ||
      r == CUDA_ERROR_UNKNOWN) {
    g_set_error (error, GST_CUDA_SYNC_ERROR,
        r == CUDA_ERROR_NOT_SUPPORTED ? GST_CUDA_SYNC_ERROR_NOT_SUPPORTED :
        GST_CUDA_SYNC_ERROR_INVALID_HANDLE,
        "The driver rejected the handle as a %s semaphore (wrong handle type, "
        "or not a semaphore): %s", type_name (type), err->message);
    g_error_free (err);
  } else {
    g_propagate_error (error, err);
  }
  return FALSE;
}

/* imports @desc into @context: a new semaphore, or NULL with @error */
static GstCudaSemaphore *
import_desc (GstCudaContext * context, GstCudaSemaphoreHandleType type,
    const CUDA_EXTERNAL_SEMAPHORE_HANDLE_DESC * desc, GError ** error)
{
  CUexternalSemaphore handle = NULL;
  CUresult r;

  if (!gst_cuda_context_push (context)) {
    g_set_error (error, GST_CUDA_SYNC_ERROR, GST_CUDA_SYNC_ERROR_DRIVER,
        "Could not make the CUDA context current");
    return NULL;
  }
  r = GST_CUDA_SYNC_CALL (cuImportExternalSemaphore) (&handle, desc);
  gst_cuda_context_pop (NULL);
  if (r != CUDA_SUCCESS) {
    import_failed (r, type, error);
    return NULL;
  }
  GST_DEBUG ("imported %s semaphore %p", type_name (type), handle);
  return _gst_cuda_semaphore_new (context, type, handle);
}

/**
 * gst_cuda_semaphore_import_fd:
 * @context: the #GstCudaContext to import into
 * @type: %GST_CUDA_SEMAPHORE_HANDLE_TYPE_TIMELINE_FD or
 *   %GST_CUDA_SEMAPHORE_HANDLE_TYPE_OPAQUE_FD
 * @fd: the exported semaphore fd (for example from `vkGetSemaphoreFdKHR`
 *   with `VK_EXTERNAL_SEMAPHORE_HANDLE_TYPE_OPAQUE_FD_BIT`)
 * @error: return location for a #GError
 *
 * Imports an external semaphore. On success the CUDA driver owns @fd: the
 * caller must not close it. On failure @fd is left open and remains the
 * caller's.
 *
 * Returns: (transfer full) (nullable): a new #GstCudaSemaphore
 *
 * Since: 0.1
 */
GstCudaSemaphore *
gst_cuda_semaphore_import_fd (GstCudaContext * context,
    GstCudaSemaphoreHandleType type, gint fd, GError ** error)
{
  CUDA_EXTERNAL_SEMAPHORE_HANDLE_DESC desc;

  g_return_val_if_fail (GST_IS_CUDA_CONTEXT (context), NULL);

  if (!gst_cuda_sync_init (error))
    return NULL;

  memset (&desc, 0, sizeof (desc));
  switch (type) {
    case GST_CUDA_SEMAPHORE_HANDLE_TYPE_TIMELINE_FD:
      desc.type = CU_EXTERNAL_SEMAPHORE_HANDLE_TYPE_TIMELINE_SEMAPHORE_FD;
      break;
    case GST_CUDA_SEMAPHORE_HANDLE_TYPE_OPAQUE_FD:
      desc.type = CU_EXTERNAL_SEMAPHORE_HANDLE_TYPE_OPAQUE_FD;
      break;
    default:
      g_set_error (error, GST_CUDA_SYNC_ERROR,
          GST_CUDA_SYNC_ERROR_INVALID_HANDLE,
          "Handle type %d cannot be imported from an fd", (gint) type);
      return NULL;
  }

  if (fd < 0 || fcntl (fd, F_GETFD) == -1) {
    g_set_error (error, GST_CUDA_SYNC_ERROR,
        GST_CUDA_SYNC_ERROR_INVALID_HANDLE,
        "Semaphore fd %d is not an open file descriptor", fd);
    return NULL;
  }
  desc.handle.fd = fd;
  GST_DEBUG ("importing a %s semaphore from fd %d", type_name (type), fd);
  return import_desc (context, type, &desc, error);
}

/**
 * gst_cuda_semaphore_import_nvscisync:
 * @context: the #GstCudaContext to import into
 * @nvscisync_obj: an `NvSciSyncObj` allocated with the attributes the CUDA
 *   device reports (cuDeviceGetNvSciSyncAttributes)
 * @error: return location for a #GError
 *
 * Imports an NvSciSync object. The object stays owned by the application and
 * must outlive the returned semaphore.
 *
 * For the object to be signalled by CUDA, the attribute list it was
 * allocated from must include the CUDA device's signaler attributes
 * (cuDeviceGetNvSciSyncAttributes() with `CUDA_NVSCISYNC_ATTR_SIGNAL`);
 * for CUDA to wait on it, the waiter attributes (`CUDA_NVSCISYNC_ATTR_WAIT`).
 * Otherwise the import succeeds but signals (waits) fail with
 * %GST_CUDA_SYNC_ERROR_NOT_SUPPORTED. gst_cuda_nvsci_sync_obj_new() (built
 * when libnvscisync is available) allocates a suitable object.
 *
 * Only signals enqueued through the returned #GstCudaSemaphore are ordered
 * with each other: import an object once and share the semaphore, rather
 * than importing it again for each signaller.
 *
 * Returns: (transfer full) (nullable): a new #GstCudaSemaphore
 *
 * Since: 0.1
 */
GstCudaSemaphore *
gst_cuda_semaphore_import_nvscisync (GstCudaContext * context,
    gpointer nvscisync_obj, GError ** error)
{
  CUDA_EXTERNAL_SEMAPHORE_HANDLE_DESC desc;

  g_return_val_if_fail (GST_IS_CUDA_CONTEXT (context), NULL);

  if (!gst_cuda_sync_init (error))
    return NULL;

  if (!nvscisync_obj) {
    g_set_error (error, GST_CUDA_SYNC_ERROR,
        GST_CUDA_SYNC_ERROR_INVALID_HANDLE, "NULL NvSciSync object");
    return NULL;
  }

  memset (&desc, 0, sizeof (desc));
  desc.type = CU_EXTERNAL_SEMAPHORE_HANDLE_TYPE_NVSCISYNC;
  desc.handle.nvSciSyncObj = nvscisync_obj;
  return import_desc (context, GST_CUDA_SEMAPHORE_HANDLE_TYPE_NVSCISYNC, &desc,
      error);
}

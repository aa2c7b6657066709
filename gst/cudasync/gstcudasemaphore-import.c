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
#include <unistd.h>

#define GST_CAT_DEFAULT gst_cuda_semaphore_debug

static gboolean
import_failed (CUresult r, const GstCudaSemaphoreTypeOps * ops, GError ** error)
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
        "or not a semaphore): %s", ops->name, err->message);
    g_error_free (err);
  } else {
    g_propagate_error (error, err);
  }
  return FALSE;
}

/* imports @handle as @ops's type into @context: a new semaphore, or NULL
 * with @error */
static GstCudaSemaphore *
import_handle (GstCudaContext * context, const GstCudaSemaphoreTypeOps * ops,
    gint fd, gpointer nvscisync_obj, GError ** error)
{
  CUDA_EXTERNAL_SEMAPHORE_HANDLE_DESC desc;
  CUexternalSemaphore handle = NULL;
  CUresult r;

  memset (&desc, 0, sizeof (desc));
  desc.type = ops->cu_type;
  if (ops->from_fd)
    desc.handle.fd = fd;
  else
    desc.handle.nvSciSyncObj = nvscisync_obj;

  if (!gst_cuda_context_push (context)) {
    g_set_error (error, GST_CUDA_SYNC_ERROR, GST_CUDA_SYNC_ERROR_DRIVER,
        "Could not make the CUDA context current");
    return NULL;
  }
  r = GST_CUDA_SYNC_CALL (cuImportExternalSemaphore) (&handle, &desc);
  gst_cuda_context_pop (NULL);
  if (r != CUDA_SUCCESS) {
    import_failed (r, ops, error);
    return NULL;
  }
  GST_DEBUG ("imported %s semaphore %p", ops->name, handle);
  return _gst_cuda_semaphore_new (context, ops, handle);
}

GstCudaSemaphore *
_gst_cuda_semaphore_import_unregistered (GstCudaContext * context,
    const GstCudaSemaphoreTypeOps * ops, gint fd, GError ** error)
{
  return import_handle (context, ops, fd, NULL, error);
}

/* @sem, already imported from another fd of the semaphore, for an import
 * into @context as @type: a new reference, with @fd closed (it is no
 * longer the caller's), or NULL with @error and @fd left open */
static GstCudaSemaphore *
reuse_imported (GstCudaSemaphore * sem, GstCudaContext * context,
    const GstCudaSemaphoreTypeOps * ops, gint fd, GError ** error)
{
  if (sem->ops != ops) {
    g_set_error (error, GST_CUDA_SYNC_ERROR,
        GST_CUDA_SYNC_ERROR_INVALID_HANDLE, "Semaphore fd %d names a "
        "semaphore already imported as a %s semaphore, not a %s one", fd,
        sem->ops->name, ops->name);
  } else if (sem->context != context) {
    guint dev = 0;

    g_object_get (sem->context, "cuda-device-id", &dev, NULL);
    g_set_error (error, GST_CUDA_SYNC_ERROR, GST_CUDA_SYNC_ERROR_WRONG_DEVICE,
        "Semaphore fd %d names a semaphore already imported into another "
        "CUDA context (device %u): a semaphore has one GstCudaSemaphore, "
        "so that its signals are ordered; use that one, or import the "
        "semaphore once it is gone", fd, dev);
  } else {
    GST_INFO ("fd %d names %" GST_PTR_FORMAT ", already imported: the same "
        "object", fd, sem);
    close (fd);
    return sem;
  }
  gst_object_unref (sem);
  return NULL;
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
 * Imports an external semaphore. On success @fd is no longer the
 * caller's, who must not close it: the CUDA driver owns it, or the library
 * closed it (see below). On failure @fd is left open and remains the
 * caller's.
 *
 * A semaphore has one #GstCudaSemaphore at a time, whose signals are
 * ordered and whose timeline values increase (two objects would each
 * signal 1, 2, ...). When @fd names a semaphore that an object still alive
 * was imported from (@fd is a dup() of that fd, or the same regular file),
 * the function returns a new reference to that object and closes @fd; if
 * that object is of another @type, or of another @context, the import
 * fails (%GST_CUDA_SYNC_ERROR_INVALID_HANDLE,
 * %GST_CUDA_SYNC_ERROR_WRONG_DEVICE). Once its last reference is gone, the
 * semaphore may be imported again, as a new object whose values start
 * over: call gst_cuda_semaphore_advance_to() with the value the semaphore
 * reached. Two fds exported separately from one semaphore (two
 * `vkGetSemaphoreFdKHR` calls) cannot be recognised: export once, and
 * share the object.
 *
 * Returns: (transfer full) (nullable): a new #GstCudaSemaphore
 *
 * Since: 0.1
 */
GstCudaSemaphore *
gst_cuda_semaphore_import_fd (GstCudaContext * context,
    GstCudaSemaphoreHandleType type, gint fd, GError ** error)
{
  const GstCudaSemaphoreTypeOps *ops = _gst_cuda_semaphore_get_type_ops (type);
  GstCudaSemaphore *sem = NULL, *found;
  GstCudaFdId id;

  g_return_val_if_fail (GST_IS_CUDA_CONTEXT (context), NULL);

  _gst_cuda_semaphore_init_debug ();
  if (!gst_cuda_sync_init (error))
    return NULL;

  if (!ops || !ops->from_fd) {
    g_set_error (error, GST_CUDA_SYNC_ERROR,
        GST_CUDA_SYNC_ERROR_INVALID_HANDLE,
        "Handle type %d cannot be imported from an fd", (gint) type);
    return NULL;
  }

  if (fd < 0 || fcntl (fd, F_GETFD) == -1 || !_gst_cuda_fd_id_init (&id, fd)) {
    g_set_error (error, GST_CUDA_SYNC_ERROR,
        GST_CUDA_SYNC_ERROR_INVALID_HANDLE,
        "Semaphore fd %d is not an open file descriptor", fd);
    return NULL;
  }

  _gst_cuda_semaphore_registry_lock ();
  found = _gst_cuda_semaphore_registry_find_locked (&id, fd);
  if (!found) {
    GST_DEBUG ("importing a %s semaphore from fd %d", ops->name, fd);
    /* before the import: the driver may close @fd */
    _gst_cuda_fd_id_keep (&id, fd);
    sem = import_handle (context, ops, fd, NULL, error);
    if (sem)
      _gst_cuda_semaphore_registry_add_locked (sem, &id);
    else
      _gst_cuda_fd_id_clear (&id);
  }
  _gst_cuda_semaphore_registry_unlock ();
  /* unlocked: dropping @found may finalize it, which takes the registry
   * lock */
  if (found)
    return reuse_imported (found, context, ops, fd, error);
  return sem;
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
  g_return_val_if_fail (GST_IS_CUDA_CONTEXT (context), NULL);

  _gst_cuda_semaphore_init_debug ();
  if (!gst_cuda_sync_init (error))
    return NULL;

  if (!nvscisync_obj) {
    g_set_error (error, GST_CUDA_SYNC_ERROR,
        GST_CUDA_SYNC_ERROR_INVALID_HANDLE, "NULL NvSciSync object");
    return NULL;
  }

  return import_handle (context, &_gst_cuda_semaphore_nvsci_ops, -1,
      nvscisync_obj, error);
}

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
#include "gstcudasemaphore-fd.h"
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#define GST_CAT_DEFAULT gst_cuda_semaphore_debug

/* The semaphores imported from fds that are alive, so that a second import
 * of one of them (another fd of it) gives the same object: two objects
 * would each count values from 1. fd_lock guards the list and is held
 * across an import, so that two threads importing one semaphore cannot
 * both make an object. */
typedef struct
{
  GstCudaFdId id;
  GWeakRef sem;
  GstCudaSemaphore *owner;      /* compared, never dereferenced */
} FdImport;

static GMutex fd_lock;
static GList *fd_imports;

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

/* Forgets @self's fd (its finalize): a new import of that semaphore makes
 * a new object from now on */
void
_gst_cuda_semaphore_forget_fd (GstCudaSemaphore * self)
{
  GList *l;

  g_mutex_lock (&fd_lock);
  for (l = fd_imports; l; l = l->next) {
    FdImport *imp = l->data;

    if (imp->owner == self) {
      fd_imports = g_list_delete_link (fd_imports, l);
      _gst_cuda_fd_id_clear (&imp->id);
      g_weak_ref_clear (&imp->sem);
      g_free (imp);
      break;
    }
  }
  g_mutex_unlock (&fd_lock);
}

/* The live object imported from the semaphore @fd names (a new reference),
 * or NULL. Call with fd_lock. */
static GstCudaSemaphore *
find_imported_locked (const GstCudaFdId * id, gint fd)
{
  GList *l;

  for (l = fd_imports; l; l = l->next) {
    FdImport *imp = l->data;
    GstCudaSemaphore *sem;

    if (!_gst_cuda_fd_id_same (&imp->id, id, fd))
      continue;
    /* NULL while the object is being finalized: then it is gone */
    if ((sem = g_weak_ref_get (&imp->sem)))
      return sem;
  }
  return NULL;
}

/* Call with fd_lock; takes @id (kept: _gst_cuda_fd_id_keep()) over */
static void
remember_locked (GstCudaSemaphore * sem, GstCudaFdId * id)
{
  FdImport *imp = g_new0 (FdImport, 1);

  imp->id = *id;
  g_weak_ref_init (&imp->sem, sem);
  imp->owner = sem;
  fd_imports = g_list_prepend (fd_imports, imp);
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

/* @sem, already imported from another fd of the semaphore, for an import
 * into @context as @type: a new reference, with @fd closed (it is no
 * longer the caller's), or NULL with @error and @fd left open */
static GstCudaSemaphore *
reuse_imported (GstCudaSemaphore * sem, GstCudaContext * context,
    GstCudaSemaphoreHandleType type, gint fd, GError ** error)
{
  if (sem->type != type) {
    g_set_error (error, GST_CUDA_SYNC_ERROR,
        GST_CUDA_SYNC_ERROR_INVALID_HANDLE, "Semaphore fd %d names a "
        "semaphore already imported as a %s semaphore, not a %s one", fd,
        type_name (sem->type), type_name (type));
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
  CUDA_EXTERNAL_SEMAPHORE_HANDLE_DESC desc;
  GstCudaSemaphore *sem = NULL, *found;
  GstCudaFdId id;

  g_return_val_if_fail (GST_IS_CUDA_CONTEXT (context), NULL);

  _gst_cuda_semaphore_init_debug ();
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

  if (fd < 0 || fcntl (fd, F_GETFD) == -1 || !_gst_cuda_fd_id_init (&id, fd)) {
    g_set_error (error, GST_CUDA_SYNC_ERROR,
        GST_CUDA_SYNC_ERROR_INVALID_HANDLE,
        "Semaphore fd %d is not an open file descriptor", fd);
    return NULL;
  }
  desc.handle.fd = fd;

  g_mutex_lock (&fd_lock);
  found = find_imported_locked (&id, fd);
  if (!found) {
    GST_DEBUG ("importing a %s semaphore from fd %d", type_name (type), fd);
    /* before the import: the driver may close @fd */
    _gst_cuda_fd_id_keep (&id, fd);
    sem = import_desc (context, type, &desc, error);
    if (sem)
      remember_locked (sem, &id);
    else
      _gst_cuda_fd_id_clear (&id);
  }
  g_mutex_unlock (&fd_lock);
  /* unlocked: dropping @found may finalize it, which takes fd_lock */
  if (found)
    return reuse_imported (found, context, type, fd, error);
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
  CUDA_EXTERNAL_SEMAPHORE_HANDLE_DESC desc;

  g_return_val_if_fail (GST_IS_CUDA_CONTEXT (context), NULL);

  _gst_cuda_semaphore_init_debug ();
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

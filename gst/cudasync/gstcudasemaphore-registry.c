/* gst-cudasync
 * Copyright (C) 2026 gst-cudasync developers
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * GstCudaSemaphore: the semaphores imported from fds that are alive, so
 * that a second import of one of them (another fd of it) gives the same
 * object: two objects would each count values from 1.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstcudasemaphore-private.h"
#include <fcntl.h>

typedef struct
{
  GstCudaFdId id;
  GWeakRef sem;
  GstCudaSemaphore *owner;      /* compared, never dereferenced */
} FdImport;

/* fd_lock guards fd_imports and is held across an import, so that two
 * threads importing one semaphore cannot both make an object. Never held
 * together with a semaphore's op_lock, nor while a semaphore is dropped
 * (its finalize takes it). */
static GMutex fd_lock;
static GList *fd_imports;

void
_gst_cuda_semaphore_registry_lock (void)
{
  g_mutex_lock (&fd_lock);
}

void
_gst_cuda_semaphore_registry_unlock (void)
{
  g_mutex_unlock (&fd_lock);
}

GstCudaSemaphore *
_gst_cuda_semaphore_registry_find_locked (const GstCudaFdId * id, gint fd)
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

void
_gst_cuda_semaphore_registry_add_locked (GstCudaSemaphore * sem,
    GstCudaFdId * id)
{
  FdImport *imp = g_new0 (FdImport, 1);

  imp->id = *id;
  g_weak_ref_init (&imp->sem, sem);
  imp->owner = sem;
  fd_imports = g_list_prepend (fd_imports, imp);
}

void
_gst_cuda_semaphore_registry_remove (GstCudaSemaphore * sem)
{
  GList *l;

  g_mutex_lock (&fd_lock);
  for (l = fd_imports; l; l = l->next) {
    FdImport *imp = l->data;

    if (imp->owner == sem) {
      fd_imports = g_list_delete_link (fd_imports, l);
      _gst_cuda_fd_id_clear (&imp->id);
      g_weak_ref_clear (&imp->sem);
      g_free (imp);
      break;
    }
  }
  g_mutex_unlock (&fd_lock);
}

gint
_gst_cuda_semaphore_registry_dup_fd (GstCudaSemaphore * sem)
{
  gint fd = -1;
  GList *l;

  g_mutex_lock (&fd_lock);
  for (l = fd_imports; l; l = l->next) {
    FdImport *imp = l->data;

    if (imp->owner == sem) {
      if (imp->id.dup_fd >= 0)
        fd = fcntl (imp->id.dup_fd, F_DUPFD_CLOEXEC, 0);
      break;
    }
  }
  g_mutex_unlock (&fd_lock);
  return fd;
}

/* gst-cudasync
 * Copyright (C) 2026 gst-cudasync developers
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Whether two fds name the same semaphore.
 *
 * fstat()'s st_dev/st_ino identify a regular file (the simulated driver's
 * semaphores are memfds). They do not identify the object behind other
 * files: the NVIDIA driver exports opaque fds as files of /dev/nvidiactl
 * (all on the device node's inode), and Linux gives every file made with
 * anon_inode_getfile() (sync files, DRM syncobjs, eventfds) the one same
 * anonymous inode. For those, dup()ed fds are told by the open file they
 * share, which kcmp(KCMP_FILE) compares; two exports of one semaphore
 * (two open files) cannot be told apart from two semaphores.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstcudasemaphore-fd.h"
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#ifdef __linux__
#include <linux/kcmp.h>
#include <sys/syscall.h>
#endif

gboolean
_gst_cuda_fd_id_init (GstCudaFdId * id, gint fd)
{
  struct stat st;

  id->dup_fd = -1;
  if (fd < 0 || fstat (fd, &st) != 0)
    return FALSE;
  id->dev = st.st_dev;
  id->ino = st.st_ino;
  id->regular = S_ISREG (st.st_mode);
  return TRUE;
}

void
_gst_cuda_fd_id_keep (GstCudaFdId * id, gint fd)
{
  if (id->dup_fd < 0)
    id->dup_fd = fcntl (fd, F_DUPFD_CLOEXEC, 0);
}

gboolean
_gst_cuda_fd_id_same (const GstCudaFdId * kept, const GstCudaFdId * id, gint fd)
{
  if (kept->dev != id->dev || kept->ino != id->ino)
    return FALSE;
  if (kept->regular)
    return TRUE;
#if defined(__linux__) && defined(SYS_kcmp)
  if (kept->dup_fd >= 0) {
    pid_t pid = getpid ();

    return syscall (SYS_kcmp, pid, pid, KCMP_FILE, kept->dup_fd, fd) == 0;
  }
#endif
  return FALSE;
}

void
_gst_cuda_fd_id_clear (GstCudaFdId * id)
{
  if (id->dup_fd >= 0)
    close (id->dup_fd);
  id->dup_fd = -1;
}

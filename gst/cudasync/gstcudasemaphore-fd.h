/* gst-cudasync
 * Copyright (C) 2026 gst-cudasync developers
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Whether two fds name the same semaphore (gstcudasemaphore-fd.c), for
 * gst_cuda_semaphore_import_fd(). Private to the library; GLib only, so
 * that tests/check/libs/cudasync.c compiles it in to test it on its own.
 */
#pragma once

#include <glib.h>
#include <sys/types.h>

G_BEGIN_DECLS

typedef struct
{
  dev_t dev;
  ino_t ino;
  gboolean regular;
  /* a private duplicate of the fd (-1 if it could not be made): tells
   * apart files that share their inode with others (devices, anonymous
   * inodes), and imports the semaphore again for a rescue
   * (gst_cuda_semaphore_rescue()) */
  gint dup_fd;
} GstCudaFdId;

/* Reads @fd's identity (fstat()); FALSE when @fd is not open */
G_GNUC_INTERNAL
gboolean _gst_cuda_fd_id_init  (GstCudaFdId * id, gint fd);

/* Keeps what _gst_cuda_fd_id_same() needs after @fd is gone: a duplicate
 * of @fd when it is not a regular file */
G_GNUC_INTERNAL
void     _gst_cuda_fd_id_keep  (GstCudaFdId * id, gint fd);

/* Whether @fd (whose identity is @id) names the file @kept was read from:
 * the same regular file (inode), or, for other files, the same open file
 * (dup(): kcmp(KCMP_FILE) on the kept duplicate). FALSE when it cannot be
 * told (kcmp() refused). */
G_GNUC_INTERNAL
gboolean _gst_cuda_fd_id_same  (const GstCudaFdId * kept, const GstCudaFdId * id,
                                gint fd);

G_GNUC_INTERNAL
void     _gst_cuda_fd_id_clear (GstCudaFdId * id);

G_END_DECLS

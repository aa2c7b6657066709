/* gst-cudasync
 * Copyright (C) 2026 gst-cudasync developers
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * cudasyncipcsink's socket path: what the sink may bind over, and what it
 * may remove at stop. The sink takes a path where nothing is, or where a
 * stale socket is (one to which connect() is refused: its sink is gone);
 * anything else there (a file, a directory, a symbolic link, a socket that
 * is listened on) is an error and is left alone. At stop it removes the
 * path only while it is still the socket it bound. Not installed.
 */
#pragma once

#include <gst/gst.h>
#include <sys/types.h>

G_BEGIN_DECLS
/* the file the sink's bind() created, recorded once its mode is set: a
 * file made at the path later can have the same inode number again (the
 * socket removed meanwhile), not also the same change time */
typedef struct
{
  dev_t dev;
  ino_t ino;
  gint64 ctime_ns;
} GstCudaSyncIpcSocketId;

/* A socket-mode property value as a file mode: up to 0777 as it is; above,
 * a value whose decimal digits are all octal digits (600: a command line's
 * mode without its leading 0) as those octal digits. Other values are
 * returned as they are, and gst_cuda_sync_ipc_socket_check_settings() refuses
 * them. */
guint gst_cuda_sync_ipc_socket_mode_from_value (guint value);

/* Whether @path is set and short enough for a unix socket (the sink's
 * and the source's socket-path); GST_RESOURCE_ERROR_SETTINGS otherwise */
gboolean gst_cuda_sync_ipc_socket_check_path (const gchar * path,
    GError ** error);

/* Whether @path (set, short enough for a unix socket) and @mode (a file
 * mode, 0 to 0777) can be listened on; GST_RESOURCE_ERROR_SETTINGS
 * otherwise. Looks at nothing on disk. */
gboolean gst_cuda_sync_ipc_socket_check_settings (const gchar * path, guint mode,
    GError ** error);

/* A listening SOCK_SEQPACKET socket bound at @path, with file mode @mode;
 * *@id: the file created. Where something is at @path it is replaced only
 * if it is a stale socket; anything else is left alone and is an error
 * (GST_RESOURCE_ERROR_OPEN_WRITE) that says what is there. -1 on error. */
gint gst_cuda_sync_ipc_socket_listen (const gchar * path, guint mode,
    GstCudaSyncIpcSocketId * id, GError ** error);

/* Removes @path if it is still the socket @id; leaves anything else that
 * took its place. */
void gst_cuda_sync_ipc_socket_remove (const gchar * path,
    const GstCudaSyncIpcSocketId * id);

G_END_DECLS

/* gst-cudasync
 * Copyright (C) 2026 gst-cudasync developers
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * cudasyncipcsrc's connection to a sink: the socket, the peer check and
 * the source's half of the handshake (HELLO and its release semaphore).
 * The top of the client's units: the connection then lives in
 * gstcudasyncipcclient.c. Locks: gstcudasyncipcclient-private.h.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstcudasyncipcclient-private.h"
#include "gstcudasyncipcsocket.h"
#include "gstcudasyncelementerror.h"
#include <errno.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#define GST_CAT_DEFAULT gst_cuda_sync_ipc_client_debug

/* Our release semaphore, exported to the sink; and the HELLO */
static gboolean
client_hello (GstCudaSyncIpcClient * self, GError ** error)
{
  GstCudaSyncIpcHello hello = { GST_CUDA_SYNC_IPC_VERSION_MAJOR,
    GST_CUDA_SYNC_IPC_VERSION_MINOR, GST_CUDA_SYNC_IPC_ROLE_SOURCE
  };
  GstCudaSyncIpcSemaphore sm = { GST_CUDA_SYNC_IPC_SEM_RELEASE, 1, 0 };
  gint send_fd = -1;
  gboolean ok;

  self->release = gst_cuda_sync_ipc_semaphore_new (self->context,
      self->config.new_semaphore, self->config.user_data, &send_fd, error);
  ok = self->release && gst_cuda_sync_context_get_uuid (self->context,
      hello.device_uuid, error) && gst_cuda_sync_ipc_send (self->fd,
      GST_CUDA_SYNC_IPC_MSG_HELLO, &hello, sizeof (hello), NULL, 0, -1, error)
      && gst_cuda_sync_ipc_send (self->fd, GST_CUDA_SYNC_IPC_MSG_SEMAPHORE, &sm,
      sizeof (sm), NULL, 0, send_fd, error);
  if (send_fd >= 0)
    close (send_fd);
  return ok;
}

GstCudaSyncIpcClient *
gst_cuda_sync_ipc_client_connect (GstCudaContext * context,
    const GstCudaSyncIpcClientConfig * config, GError ** error)
{
  const gchar *path = config->path;
  GstCudaSyncIpcClient *self;
  struct sockaddr_un addr;
  guint uid;
  gint pid;

  GST_DEBUG_CATEGORY_INIT (gst_cuda_sync_ipc_client_debug, "cudasyncipcclient",
      0, "cudasyncipcsrc's connection");
  memset (&addr, 0, sizeof (addr));
  addr.sun_family = AF_UNIX;
  if (!gst_cuda_sync_ipc_socket_check_path (path, error) ||
      !gst_cuda_sync_ipc_check_allowed_uids (config->allowed_uids, error))
    return NULL;
  strcpy (addr.sun_path, path);
  self = g_new0 (GstCudaSyncIpcClient, 1);
  self->refcount = 1;
  g_mutex_init (&self->lock);
  self->context = gst_object_ref (context);
  self->config = *config;
  self->config.path = NULL;
  self->config.allowed_uids = NULL;
  if (config->pad)
    gst_object_ref (config->pad);
  self->wake_fd = config->wake_fd;
  self->retry_fd = eventfd (0, EFD_CLOEXEC | EFD_NONBLOCK);
  self->lost_fd = eventfd (0, EFD_CLOEXEC | EFD_NONBLOCK);
  self->path = g_strdup (path);
  g_cond_init (&self->watch_cond);
  self->imports = g_hash_table_new (NULL, NULL);
  self->releaser = gst_cuda_sync_releaser_new ("cudaipcsrc");
  self->fd = -1;
  if (self->retry_fd < 0 || self->lost_fd < 0) {
    GST_CUDA_SYNC_SET_ERROR (error, RESOURCE, FAILED, ("Could not create "
            "an event fd."), ("eventfd: %s", g_strerror (errno)));
    goto failed;
  }
  self->fd = socket (AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
  if (self->fd < 0 || connect (self->fd, (struct sockaddr *) &addr,
          sizeof (addr)) != 0) {
    GST_CUDA_SYNC_SET_ERROR (error, RESOURCE, OPEN_READ_WRITE, ("Could not "
            "connect to the sink."), ("%s: %s", path, g_strerror (errno)));
    goto failed;
  }
  /* memory and semaphores only for a sink of an allowed user */
  if (!gst_cuda_sync_ipc_check_peer (self->fd, config->allowed_uids, &uid, &pid,
          error))
    goto failed;
  if (!gst_cuda_sync_ipc_streams_new (context, &self->stream, &self->rescue,
          error))
    goto failed;
  self->event = gst_cuda_sync_event_new (context, TRUE, error);
  self->watch_event = self->event ?
      gst_cuda_sync_event_new (context, FALSE, error) : NULL;
  if (!self->watch_event)
    goto failed;
  self->connected = g_get_monotonic_time ();
  if (!client_hello (self, error)) {
    /* closed before any word of the sink's: it may have refused us */
    if (error && *error && gst_cuda_sync_ipc_peer_closed (self->fd)) {
      GError *cause = *error;
      *error = NULL;
      gst_cuda_sync_ipc_client_set_closed_before_hello (self, error,
          cause->message);
      g_error_free (cause);
    }
    goto failed;
  }
  gst_cuda_sync_ipc_client_start_watchdog (self);
  return self;

failed:
  gst_cuda_sync_ipc_client_unref (self);
  return NULL;
}

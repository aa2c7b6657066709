/* gst-cudasync
 * Copyright (C) 2026 gst-cudasync developers
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * cudasyncipcsink's server: the listening socket and its thread, one
 * session per connected source, and the pool of shareable frames
 * (docs/ipc-protocol.md). Knows no element; returns GErrors.
 */
#pragma once

#include <gst/gst.h>
#include <gst/video/video.h>
#include <gst/cuda/gstcudacontext.h>
#include "gstcudaipcsemaphore.h"

G_BEGIN_DECLS

typedef struct _GstCudaIpcServer GstCudaIpcServer;

typedef struct
{
  const gchar *path;
  guint mode;
  const gchar *allowed_uids;
  guint max_buffers;
  gboolean drop_when_full;
  /* the acquire semaphores' source (NULL: Vulkan); called from the
   * server's thread with no lock held */
  GstCudaIpcSemaphoreFunc new_semaphore;
  gpointer user_data;
} GstCudaIpcServerConfig;

GstCudaIpcServer * gst_cuda_ipc_server_new   (GstCudaContext * context,
                                              const GstCudaIpcServerConfig * config,
                                              GError ** error);
/* Stops the thread, says BYE to every source and waits on the CPU for
 * the server's stream (counted in cpu-syncs); stats stay readable */
void               gst_cuda_ipc_server_stop  (GstCudaIpcServer * server);
/* stops it first when needed */
void               gst_cuda_ipc_server_free  (GstCudaIpcServer * server);
gboolean           gst_cuda_ipc_server_set_caps (GstCudaIpcServer * server,
                                              GstCaps * caps,
                                              GError ** error);
/* GST_FLOW_OK (sent, or dropped), GST_FLOW_FLUSHING, GST_FLOW_ERROR */
GstFlowReturn      gst_cuda_ipc_server_render (GstCudaIpcServer * server,
                                              GstBuffer * buffer,
                                              GError ** error);
void               gst_cuda_ipc_server_eos   (GstCudaIpcServer * server);
void               gst_cuda_ipc_server_set_flushing (GstCudaIpcServer * server,
                                              gboolean flushing);
GstStructure *     gst_cuda_ipc_server_stats (GstCudaIpcServer * server);

G_END_DECLS

/* gst-cudasync
 * Copyright (C) 2026 gst-cudasync developers
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * cudasyncipcsrc's connection to a sink: handshake, imported memory and
 * semaphores, and each frame's GPU wait, copy and release
 * (docs/ipc-protocol.md). Knows no element; returns GErrors.
 */
#pragma once

#include <gst/gst.h>
#include <gst/cuda/gstcudacontext.h>
#include "gstcudasyncipcsemaphore.h"

G_BEGIN_DECLS typedef struct _GstCudaSyncIpcClient GstCudaSyncIpcClient;

typedef enum
{
  GST_CUDA_SYNC_IPC_CLIENT_FRAME,    /* *buffer is the next frame */
  GST_CUDA_SYNC_IPC_CLIENT_CAPS,     /* *caps are new caps */
  GST_CUDA_SYNC_IPC_CLIENT_EOS,      /* the sink got EOS */
  GST_CUDA_SYNC_IPC_CLIENT_BYE,      /* the sink stopped */
  GST_CUDA_SYNC_IPC_CLIENT_LOST,     /* the sink vanished (killed) */
  /* the sink did not signal a frame's value within the time limit (its
   * process frozen); *error says so */
  GST_CUDA_SYNC_IPC_CLIENT_FROZEN,
  /* the connection closed before the sink's HELLO (a sink that does not
   * allow our user, or one dying as we connected), or no HELLO came
   * within the time limit */
  GST_CUDA_SYNC_IPC_CLIENT_UNANSWERED,
  GST_CUDA_SYNC_IPC_CLIENT_FLUSHING,
  GST_CUDA_SYNC_IPC_CLIENT_ERROR,
} GstCudaSyncIpcClientResult;

typedef struct
{
  guint64 frames, waits, signals, copies, lent, releases, rescues, cpu_syncs;
} GstCudaSyncIpcClientCounters;

typedef struct
{
  const gchar *path;
  const gchar *allowed_uids;
  gint wake_fd;                 /* readable: stop waiting (flushing) */
  gboolean cpu_wait;            /* wait for each copy on the CPU */
  gboolean lend;                /* push the sink's memory itself (no copy) */
  /* how long the sink may take to send HELLO, and to signal a frame's
   * acquire value once the client's stream waits for it; past it the
   * sink counts as lost (0: no limit) */
  GstClockTime timeout;
  /* the element's source pad (nullable): while values of the sink are
   * pending, its peer flushing (downstream stopping, which a CPU wait
   * downstream of it holds) gives the sink the stop's grace */
  GstPad *pad;
  /* the release semaphore's source (NULL: Vulkan); called from
   * gst_cuda_sync_ipc_client_connect() */
  GstCudaSyncIpcSemaphoreFunc new_semaphore;
  gpointer user_data;
} GstCudaSyncIpcClientConfig;

GstCudaSyncIpcClient *gst_cuda_sync_ipc_client_connect (GstCudaContext * context,
    const GstCudaSyncIpcClientConfig * config, GError ** error);
/* Says BYE and closes the connection, then makes sure the stream's waits
 * for the sink's values end (rescuing a sink that does not signal them
 * within a second); the counters stay readable. Called by the last
 * _unref(). Frames lent after it are no longer released to the sink. */
void gst_cuda_sync_ipc_client_close (GstCudaSyncIpcClient * client);
/* Each frame lent (io-mode import) holds a reference until it is freed */
GstCudaSyncIpcClient *gst_cuda_sync_ipc_client_ref (GstCudaSyncIpcClient * client);
void gst_cuda_sync_ipc_client_unref (GstCudaSyncIpcClient * client);
GstCudaSyncIpcClientResult gst_cuda_sync_ipc_client_next (GstCudaSyncIpcClient * client,
    GstBufferPool * pool,
    GstBuffer ** buffer, GstCaps ** caps, GError ** error);
void gst_cuda_sync_ipc_client_add_counters (GstCudaSyncIpcClient * client,
    GstCudaSyncIpcClientCounters * sum);

G_END_DECLS

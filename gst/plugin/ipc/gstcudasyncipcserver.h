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
#include <gst/cuda/cuda-gst.h>
#include "gstcudasyncipcsemaphore.h"

G_BEGIN_DECLS

typedef struct _GstCudaSyncIpcServer GstCudaSyncIpcServer;
typedef struct _GstCudaSyncIpcSlot GstCudaSyncIpcSlot;

typedef struct
{
  const gchar *path;
  guint mode;
  const gchar *allowed_uids;
  guint max_buffers;
  gboolean drop_when_full;
  /* connections served at once (more are closed at once) */
  guint max_connections;
  /* 0: no limit; how long a source may take to send its release
   * semaphore, and hold a frame, before it is dropped */
  GstClockTime handshake_timeout;
  GstClockTime hold_timeout;
  /* the acquire semaphores' source (NULL: Vulkan); called from the
   * server's thread with no lock held */
  GstCudaSyncIpcSemaphoreFunc new_semaphore;
  gpointer user_data;
} GstCudaSyncIpcServerConfig;

GstCudaSyncIpcServer * gst_cuda_sync_ipc_server_new   (GstCudaContext * context,
                                              const GstCudaSyncIpcServerConfig * config,
                                              GError ** error);
/* Stops the thread, says BYE to every source and waits on the CPU for
 * the server's stream (counted in cpu-syncs); stats stay readable */
void               gst_cuda_sync_ipc_server_stop  (GstCudaSyncIpcServer * server);
/* stops it first when needed, and drops the caller's reference; the frames
 * of the sink's pool hold one each */
void               gst_cuda_sync_ipc_server_free  (GstCudaSyncIpcServer * server);
GstCudaSyncIpcServer * gst_cuda_sync_ipc_server_ref   (GstCudaSyncIpcServer * server);
void               gst_cuda_sync_ipc_server_unref (GstCudaSyncIpcServer * server);
gboolean           gst_cuda_sync_ipc_server_set_caps (GstCudaSyncIpcServer * server,
                                              GstCaps * caps,
                                              GError ** error);
/* GST_FLOW_OK (sent, or dropped), GST_FLOW_FLUSHING, GST_FLOW_ERROR */
GstFlowReturn      gst_cuda_sync_ipc_server_render (GstCudaSyncIpcServer * server,
                                              GstBuffer * buffer,
                                              GError ** error);
void               gst_cuda_sync_ipc_server_eos   (GstCudaSyncIpcServer * server);
void               gst_cuda_sync_ipc_server_set_flushing (GstCudaSyncIpcServer * server,
                                              gboolean flushing);
GstStructure *     gst_cuda_sync_ipc_server_stats (GstCudaSyncIpcServer * server);
/* whether @caps are the current caps, for frames written in place */
gboolean           gst_cuda_sync_ipc_server_has_caps (GstCudaSyncIpcServer * server,
                                              GstCaps * caps);

/* The loan of frames to upstream (the pool the sink proposes): a free
 * frame of the current caps (written longest ago, or a new one up to
 * max-buffers) for upstream to write in place. Before it is returned,
 * @stream waits on the GPU for its sources' releases and for the sink's
 * own work on it. While every frame is held: waits (@wait), or returns
 * GST_FLOW_EOS (not @wait, or on-full=drop). GST_FLOW_FLUSHING when the
 * sink flushes or stopped, or *@cancel is set. */
GstFlowReturn      gst_cuda_sync_ipc_server_lend  (GstCudaSyncIpcServer * server,
                                              CUstream stream, gboolean wait,
                                              const gint * cancel,
                                              GstCudaSyncIpcSlot ** slot,
                                              GError ** error);
/* the frame is no longer upstream's (any thread) */
void               gst_cuda_sync_ipc_server_give_back (GstCudaSyncIpcServer * server,
                                              GstCudaSyncIpcSlot * slot);
/* Whether frames are lent: while the sink is PAUSED or PLAYING. Leaving
 * those states ends every lend waiting for a frame (GST_FLOW_FLUSHING):
 * sources may hold every frame, and upstream's state change waits for its
 * streaming thread. It also starts the stop's grace for the sources'
 * release values (gst_cuda_sync_ipc_sessions_tick()). */
void               gst_cuda_sync_ipc_server_set_lending (GstCudaSyncIpcServer * server,
                                              gboolean lending);
/* a lend waiting for a frame looks at its @cancel again */
void               gst_cuda_sync_ipc_server_wake_lenders (GstCudaSyncIpcServer * server);

GstCudaSyncIpcSlot *   gst_cuda_sync_ipc_slot_ref     (GstCudaSyncIpcSlot * slot);
void               gst_cuda_sync_ipc_slot_unref   (GstCudaSyncIpcSlot * slot);
/* the frame's device pointer, and its layout there */
CUdeviceptr        gst_cuda_sync_ipc_slot_get_pointer (GstCudaSyncIpcSlot * slot,
                                              GstVideoInfo * layout);
/* marks @mem as the slot's memory (no reference: the caller's memory
 * holds one), so that the sink renders it in place */
void               gst_cuda_sync_ipc_slot_attach  (GstMemory * mem,
                                              GstCudaSyncIpcSlot * slot);

G_END_DECLS

/* gst-cudasync
 * Copyright (C) 2026 gst-cudasync developers
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Exportable timeline semaphores for the IPC elements. CUDA cannot export
 * a semaphore; the production source of one is Vulkan: a timeline
 * semaphore of the Vulkan device whose UUID is the CUDA device's, exported
 * as OPAQUE_FD (plain Vulkan loader API, no GStreamer Vulkan library).
 * Knows no element; returns GErrors.
 */
#pragma once

#include <gst/gst.h>
#include <gst/cuda/gstcudacontext.h>
#include <gst/cudasync/cudasync.h>

G_BEGIN_DECLS

/* Makes an exportable timeline semaphore (value 0) on the process's
 * Vulkan device of @uuid, opened once, and returns an fd of it, and a
 * second fd of it in *@second (two exports), which the caller owns; -1 with @error when there is no such Vulkan device, it
 * cannot export timeline semaphores as OPAQUE_FD, or the plugin was built
 * without Vulkan. Thread-safe. */
gint     gst_cuda_sync_ipc_semaphore_new_fd (const guint8 uuid[16], gint * second,
                                        GError ** error);

/* An exportable timeline semaphore: from @func when set (the element's
 * "new-semaphore" signal), else from Vulkan; returns the fd the caller
 * owns, or -1 with @error */
typedef gint (*GstCudaSyncIpcSemaphoreFunc) (gpointer user_data, GError ** error);

/* A new exportable timeline semaphore (from @func when set, else
 * gst_cuda_sync_ipc_semaphore_new_fd() for @context's device) imported into
 * @context, and in *@send_fd another fd of it for the peer (the caller
 * closes it); NULL with @error */
GstCudaSemaphore * gst_cuda_sync_ipc_semaphore_new (GstCudaContext * context,
                                     GstCudaSyncIpcSemaphoreFunc func,
                                     gpointer user_data, gint * send_fd,
                                     GError ** error);

/* TRUE when gst_cuda_sync_ipc_semaphore_new_fd() makes semaphores for
 * @context's device (it makes one and closes it) */
gboolean gst_cuda_sync_ipc_semaphore_check (GstCudaContext * context,
                                     GError ** error);

/* The two streams of one end of a connection, in @context: *@stream, for
 * the copies and the semaphore waits and signals (blocking: ordered with
 * the legacy default stream that upstream CUDA elements use), and
 * *@rescue, non-blocking, for the host-side signals that release the
 * waits on a dead peer's semaphore (never queued behind those waits).
 * FALSE with @error (and no stream) when either cannot be made. */
gboolean gst_cuda_sync_ipc_streams_new (GstCudaContext * context, CUstream * stream,
                                   CUstream * rescue, GError ** error);
/* Destroys what gst_cuda_sync_ipc_streams_new() made (NULL ones are skipped) */
void     gst_cuda_sync_ipc_streams_free (GstCudaContext * context,
                                    CUstream stream, CUstream rescue);

/* A rescue: signals the peer's semaphore @sem to @value from a CUDA
 * context of the library's own (gst_cuda_semaphore_rescue()), whose
 * streams no stream of ours can hold up; where that is not possible, on
 * @fallback, a non-blocking stream of @context. */
gboolean gst_cuda_sync_ipc_rescue_signal (GstCudaContext * context,
                                          GstCudaSemaphore * sem,
                                          CUstream fallback, guint64 value,
                                          GError ** error);

G_END_DECLS

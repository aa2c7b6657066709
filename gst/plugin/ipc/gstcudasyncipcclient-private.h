/* gst-cudasync
 * Copyright (C) 2026 gst-cudasync developers
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The client's state, shared by its three units, each calling only those
 * below it: gstcudasyncipcconnect.c (the connection and the handshake),
 * gstcudasyncipcclient.c (the messages, the copies, the frames lent downstream
 * in io-mode import and their releases) and gstcudasyncipcwatch.c (the
 * watchdog and the rescue). Not installed.
 *
 * Locks: used by one streaming thread at a time, but for the frames it
 * lends: those come back from any thread, when downstream frees them, and
 * each holds a reference on the client; and for its watchdog thread,
 * which rescues the sink's semaphore when the sink does not signal the
 * values the client's stream waits for (downstream may be blocked on the
 * CPU behind them, the streaming thread with it). The client's lock
 * guards the connection's fd, the release semaphore's signals, the lent
 * frames' queue, the acquire semaphore, its last value and the rescue,
 * the watch and the counters; nothing is called with it held but the
 * driver's enqueueing calls, event queries and a non-blocking send.
 */
#pragma once

#include "gstcudasyncipcclient.h"
#include <gst/cudasync/gstcudasyncipcproto.h>
#include <gst/cudasync/gstcudasync-internal.h>
#include <gst/cuda/cuda-gst.h>
#include <gst/video/video.h>

G_BEGIN_DECLS

GST_DEBUG_CATEGORY_EXTERN (gst_cuda_sync_ipc_client_debug);

/* an imported frame of the sink's; referenced by the imports table and by
 * each lent frame */
typedef struct
{
  gint refcount;
  GstCudaSyncVmm *vmm;
} Import;

/* a frame lent downstream: its memory is the import's */
typedef struct
{
  GstCudaSyncIpcClient *client;
  Import *import;
  guint32 id;
} Loan;

struct _GstCudaSyncIpcClient
{
  gint refcount;
  GMutex lock;
  GstCudaContext *context;
  GstCudaSyncIpcClientConfig config;
  gint fd;
  gint wake_fd;
  gint retry_fd;                /* eventfd: lent frames wait in unreleased */
  GQueue unreleased;            /* Loan: back, but their release failed */
  gint lost_fd;                 /* eventfd: the watchdog found the sink lost */
  gchar *path;
  gint64 connected;             /* monotonic time of the connection */
  CUstream stream;
  CUstream rescue;
  GstCudaSyncEvent *event;
  /* the watchdog: waited is the last of the sink's values the stream
   * waits for, reached the last one found reached; watch_event, when
   * armed, was recorded on the stream behind the wait for watch_value;
   * pending_since: since when values are waited for and none was found
   * reached; hup_since: since when the sink's end is closed while they
   * are (0: not seen) */
  GThread *watchdog;
  GCond watch_cond;
  gboolean watch_stop;
  GstCudaSyncEvent *watch_event;
  gboolean armed;
  guint64 waited;
  guint64 watch_value;
  guint64 reached;
  gint64 pending_since;
  gint64 hup_since;
  /* the sink's loss the watchdog found (GST_CUDA_SYNC_IPC_CLIENT_LOST or
   * _FROZEN, 0: none), told by lost_error */
  gint watch_lost;
  GError *lost_error;
  GstCudaSyncReleaser *releaser;
  gboolean got_hello;
  guint sink_minor;             /* the sink's protocol minor version */
  guint max_buffers;
  guint n_lent;                 /* frames lent, not yet back */
  gboolean draining;            /* closed with frames lent: DRAIN sent */
  GstCudaSemaphore *acquire;    /* the sink's */
  guint64 acquire_last;
  gboolean rescued;
  gboolean sink_broke;          /* sent an invalid message */
  /* its end closed (it stopped after BYE): what it sent before is still
   * read, and nothing is released (it no longer waits, and may have
   * rescued our semaphore past our next values) */
  gboolean sink_closed;
  GstCudaSemaphore *release;    /* ours */
  GHashTable *imports;          /* id -> Import */
  guint32 epoch;
  gboolean have_caps;
  gboolean lend;                /* import mode, and the layout allows it */
  GstVideoInfo layout;
  GstCudaSyncIpcClientCounters counters;
};

Import * gst_cuda_sync_ipc_import_ref   (Import * imp);
void     gst_cuda_sync_ipc_import_unref (Import * imp);
void     gst_cuda_sync_ipc_client_unref_import_after (GstCudaSyncIpcClient * self,
                                     Import * imp, CUstream stream);
typedef enum
{
  GST_CUDA_SYNC_IPC_RELEASE_DONE,            /* or the sink closed its end */
  GST_CUDA_SYNC_IPC_RELEASE_NOT_SIGNALLED,   /* to try again */
  GST_CUDA_SYNC_IPC_RELEASE_NOT_SENT,        /* signalled; the sink drops us */
} GstCudaSyncIpcReleaseResult;

GstCudaSyncIpcReleaseResult gst_cuda_sync_ipc_client_release (GstCudaSyncIpcClient * self,
                                     CUstream stream, guint32 id,
                                     GError ** error);
gboolean gst_cuda_sync_ipc_client_order_downstream (GstCudaSyncIpcClient * self,
                                     GError ** error);
void     gst_cuda_sync_ipc_client_say_bye (GstCudaSyncIpcClient * self);
/* the connection closed before the sink's HELLO: the error that says so */
void     gst_cuda_sync_ipc_client_set_closed_before_hello (GstCudaSyncIpcClient * self,
                                     GError ** error, const gchar * cause);

/* gstcudasyncipcwatch.c: the watchdog and the rescue; they call nothing of
 * the client's other units */
/* how long a stop lets the sink signal the values our stream waits for,
 * and how long a sink whose end closed may take, before its semaphore is
 * rescued */
#define GST_CUDA_SYNC_IPC_CLIENT_STOP_GRACE_US G_USEC_PER_SEC
void     gst_cuda_sync_ipc_client_watch (GstCudaSyncIpcClient * self, guint64 value);
void     gst_cuda_sync_ipc_client_start_watchdog (GstCudaSyncIpcClient * self);
void     gst_cuda_sync_ipc_client_stop_watchdog (GstCudaSyncIpcClient * self);
/* whether the element flushes (its wake fd is set) */
gboolean gst_cuda_sync_ipc_client_woken (GstCudaSyncIpcClient * self);
/* signals the sink's semaphore past every value it announced, once */
void     gst_cuda_sync_ipc_client_rescue (GstCudaSyncIpcClient * self);

/* the frames lent downstream */
GstBuffer * gst_cuda_sync_ipc_client_lend_frame (GstCudaSyncIpcClient * self,
                                     Import * imp,
                                     const GstCudaSyncIpcFrame * frame,
                                     GError ** error);
gboolean gst_cuda_sync_ipc_client_retry_releases (GstCudaSyncIpcClient * self,
                                     GError ** error);

G_END_DECLS

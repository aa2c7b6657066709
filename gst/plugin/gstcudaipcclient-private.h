/* gst-cudasync
 * Copyright (C) 2026 gst-cudasync developers
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The client's state, shared by its two units: gstcudaipcclient.c (the
 * connection, the messages, the copies) and gstcudaipcloan.c (the frames
 * lent downstream in io-mode import, and their releases). Not installed.
 *
 * Locks: used by one streaming thread at a time, but for the frames it
 * lends: those come back from any thread, when downstream frees them, and
 * each holds a reference on the client. The client's lock guards the
 * connection's fd, the release semaphore's signals, the lent frames'
 * queue and the counters; nothing is called with it held but the driver's
 * enqueueing calls and a non-blocking send.
 */
#pragma once

#include "gstcudaipcclient.h"
#include "gstcudaipcproto.h"
#include <gst/cudasync/gstcudasync-internal.h>
#include <gst/cuda/cuda-gst.h>
#include <gst/video/video.h>

G_BEGIN_DECLS

GST_DEBUG_CATEGORY_EXTERN (gst_cuda_ipc_client_debug);

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
  GstCudaIpcClient *client;
  Import *import;
  guint32 id;
} Loan;

struct _GstCudaIpcClient
{
  gint refcount;
  GMutex lock;
  GstCudaContext *context;
  GstCudaIpcClientConfig config;
  gint fd;
  gint wake_fd;
  gint retry_fd;                /* eventfd: lent frames wait in unreleased */
  GQueue unreleased;            /* Loan: back, but their release failed */
  CUstream stream;
  CUstream rescue;
  GstCudaSyncEvent *event;
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
  GstCudaIpcClientCounters counters;
};

Import * gst_cuda_ipc_import_ref   (Import * imp);
void     gst_cuda_ipc_import_unref (Import * imp);
void     gst_cuda_ipc_client_unref_import_after (GstCudaIpcClient * self,
                                     Import * imp, CUstream stream);
typedef enum
{
  GST_CUDA_IPC_RELEASE_DONE,            /* or the sink closed its end */
  GST_CUDA_IPC_RELEASE_NOT_SIGNALLED,   /* to try again */
  GST_CUDA_IPC_RELEASE_NOT_SENT,        /* signalled; the sink drops us */
} GstCudaIpcReleaseResult;

GstCudaIpcReleaseResult gst_cuda_ipc_client_release (GstCudaIpcClient * self,
                                     CUstream stream, guint32 id,
                                     GError ** error);
gboolean gst_cuda_ipc_client_order_downstream (GstCudaIpcClient * self,
                                     GError ** error);
void     gst_cuda_ipc_client_say_bye (GstCudaIpcClient * self);

/* gstcudaipcloan.c */
GstBuffer * gst_cuda_ipc_client_lend_frame (GstCudaIpcClient * self,
                                     Import * imp,
                                     const GstCudaIpcFrame * frame,
                                     GError ** error);
gboolean gst_cuda_ipc_client_retry_releases (GstCudaIpcClient * self,
                                     GError ** error);

G_END_DECLS

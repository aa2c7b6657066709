/* gst-cudasync
 * Copyright (C) 2026 gst-cudasync developers
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The server's state, shared by its three units: gstcudasyncipcsession.c (one
 * connected source: handshake, its messages, the frames sent to it),
 * gstcudasyncipcslots.c (the shareable frames, and their loan to upstream) and
 * gstcudasyncipcserver.c (the listening thread, rendering). Not installed.
 *
 * Locks: the server's lock guards the sessions, the slots and the
 * counters, and is held while sending (non-blocking) and while enqueueing
 * semaphore operations (so the semaphores' op_locks nest inside it). The
 * pool condition waits with it. No buffer or memory is freed with it held:
 * freeing a frame of the sink's pool takes it (gst_cuda_sync_ipc_server_give_back()). Every session function but
 * gst_cuda_sync_ipc_session_start() (which may call the application) is called
 * with it held. It also guards the gone sessions (closed after BYE, their
 * last release values watched) and every session's deadlines, which only
 * the socket thread (and the stop, once that thread ended) acts on.
 */
#pragma once

#include "gstcudasyncipcserver.h"
#include <gst/cudasync/gstcudasyncipcproto.h>
#include "gstcudasyncipcsocket.h"
#include <gst/cudasync/gstcudasync-internal.h>
#include <gst/cuda/cuda-gst.h>
#include <errno.h>
#include <unistd.h>

G_BEGIN_DECLS

GST_DEBUG_CATEGORY_EXTERN (gst_cuda_sync_ipc_server_debug);

typedef struct
{
  GstCudaSemaphore *sem;
  guint64 value;
} GstCudaSyncIpcReleasePoint;

/* one shareable frame; the server's slots array holds a reference, and so
 * does each memory the sink's pool wraps around it */
struct _GstCudaSyncIpcSlot
{
  gint refcount;
  gconstpointer owner;          /* the server (no reference) */
  guint id;
  guint32 epoch;
  GstVideoInfo layout;          /* the epoch's */
  GstCudaSyncVmm *vmm;
  guint n_holders;
  gboolean out;                 /* lent to upstream (the sink's pool) */
  guint settling;               /* settles not yet seen complete */
  guint64 last_use;             /* the render that last wrote it */
  GArray *points;               /* GstCudaSyncIpcReleasePoint: settled before reuse */
  GArray *settle_points;        /* those the running settles wait for */
  gint64 sent_at;               /* monotonic time of its last FRAME */
};

/* one connected source */
typedef struct
{
  gint fd;
  guint uid;
  gint pid;
  gboolean got_hello;
  gboolean ready;               /* the source's release semaphore arrived */
  gboolean said_bye;
  gboolean draining;            /* DRAIN: no more frames; holds stay */
  gboolean closed;              /* the stop saw its connection closed */
  gboolean rescued;             /* its release semaphore was signalled */
  guint32 caps_epoch;           /* of the last CAPS sent */
  GstCudaSemaphore *acquire;    /* ours, signalled per frame */
  GstCudaSemaphore *release;    /* the source's */
  guint64 release_first;        /* its initial value */
  guint64 release_last;         /* last release value announced */
  GHashTable *sent;             /* slot ids whose fd this source has */
  GHashTable *held;             /* slot id -> slot held by this source */
  gint64 handshake_end;         /* monotonic; 0: ready, or no limit */
  gint acquire_file;            /* a duplicate of the exported acquire fd,
                                 * or -1 */
  /* with a hold limit, and once gone after BYE: its own stream waits for
   * its release values, and the event after the waits says when they ran */
  CUstream watch;
  GstCudaSyncEvent *watch_event;
  guint64 watched;              /* the value the event follows */
  gint64 watch_since;           /* monotonic, while it has not run; or 0 */
  gint64 watch_end;             /* gone: rescued if not run by then */
} GstCudaSyncIpcSession;

struct _GstCudaSyncIpcServer
{
  gint refcount;
  GstCudaContext *context;
  GstCudaSyncIpcServerConfig config;
  gchar *path;
  gchar *allowed_uids;
  guint8 uuid[16];
  CUstream stream;
  CUstream rescue;
  CUstream settle;              /* waits for the sources' release values */
  guint64 settle_waits;         /* rounds of them enqueued */
  GstCudaSyncReleaser *releaser;
  /* the settles' own (a settle may wait long: nothing queues behind it) */
  GstCudaSyncReleaser *settler;
  GstCudaSyncEvent *lend_event;

  gint listen_fd;
  GstCudaSyncIpcSocketId socket_id; /* what the stop may remove */
  gint wake_fd;
  GThread *thread;

  GMutex lock;
  GCond cond;
  gboolean stopping;
  gboolean flushing;
  gboolean lending;             /* the sink is PAUSED or PLAYING */
  gint64 left_paused;           /* monotonic, since it is not; or 0 */
  guint flush_gen;              /* a flush or the stop of the sink's data flow */
  GList *sessions;
  GList *gone;                  /* closed after BYE, release values pending */
  /* the last request for a free frame (a copy's, or upstream's lend) found
   * none: only then do frames held past hold-timeout cost the others */
  gboolean starved;
  GPtrArray *slots;
  guint next_id;
  guint32 epoch;
  GstVideoInfo info;
  GstCaps *caps;

  guint64 buffers, frames_sent, signals, waits, copies, inputs_held,
      inputs_ordered, inputs_in_place, lent, dropped, unsent,
      releases, cpu_syncs, rescues, sessions_total, sessions_refused,
      sessions_lost, sessions_failed, sessions_invalid, sessions_over_limit,
      handshake_timeouts, hold_timeouts;
};

/* how long a source that said BYE has to reach its last release value
 * once its connection closed, before it is rescued */
#define GST_CUDA_SYNC_IPC_BYE_GRACE_US (2 * G_USEC_PER_SEC)
/* how long the sink, once it leaves PAUSED, lets the sources reach the
 * release values its streams wait for, before it rescues them */
#define GST_CUDA_SYNC_IPC_STOP_GRACE_US G_USEC_PER_SEC

GstCudaSyncIpcSession * gst_cuda_sync_ipc_session_new   (gint fd);
void     gst_cuda_sync_ipc_session_free  (GstCudaSyncIpcSession * s);
gboolean gst_cuda_sync_ipc_session_start (GstCudaSyncIpcServer * self,
                                     GstCudaSyncIpcSession * s, GError ** error);
gboolean gst_cuda_sync_ipc_session_send_caps (GstCudaSyncIpcServer * self,
                                     GstCudaSyncIpcSession * s, GError ** error);
gboolean gst_cuda_sync_ipc_session_handle (GstCudaSyncIpcServer * self,
                                     GstCudaSyncIpcSession * s,
                                     GstCudaSyncIpcMsg * msg, GError ** error);
gboolean gst_cuda_sync_ipc_session_send_frame (GstCudaSyncIpcServer * self,
                                     GstCudaSyncIpcSession * s,
                                     GstCudaSyncIpcSlot * slot, GstBuffer * buf,
                                     GError ** error);
void     gst_cuda_sync_ipc_session_rescue (GstCudaSyncIpcServer * self,
                                     GstCudaSyncIpcSession * s,
                                     gboolean force);
void     gst_cuda_sync_ipc_session_drop  (GstCudaSyncIpcServer * self,
                                     GstCudaSyncIpcSession * s, gboolean lost);
/* the socket thread's timers (lock held): drops the sources past the
 * handshake or hold limits, rescues or forgets the gone ones; returns the
 * next deadline (monotonic), G_MAXINT64 when none */
gint64   gst_cuda_sync_ipc_sessions_tick (GstCudaSyncIpcServer * self, gint64 now);
/* the stop (lock held): rescues each gone source whose last release value
 * has not run, and forgets them all */
void     gst_cuda_sync_ipc_sessions_end_gone (GstCudaSyncIpcServer * self);
/* whether a release value that @s announced has not been seen run (only
 * known with a hold limit) */
gboolean gst_cuda_sync_ipc_session_values_pending (GstCudaSyncIpcServer * self,
                                     GstCudaSyncIpcSession * s);
/* whether a release value of a source, connected or gone, has not been
 * seen run (as far as it is watched) */
gboolean gst_cuda_sync_ipc_sessions_pending (GstCudaSyncIpcServer * self);

/* gstcudasyncipcslots.c */
gboolean gst_cuda_sync_ipc_slots_init    (GstCudaSyncIpcServer * self, GError ** error);
void     gst_cuda_sync_ipc_slots_clear   (GstCudaSyncIpcServer * self);
void     gst_cuda_sync_ipc_slot_settle   (GstCudaSyncIpcServer * self,
                                     GstCudaSyncIpcSlot * slot);
GstCudaSyncIpcSlot * gst_cuda_sync_ipc_slots_get (GstCudaSyncIpcServer * self,
                                     gboolean copy, GError ** error);
gboolean gst_cuda_sync_ipc_slot_order_copy (GstCudaSyncIpcServer * self,
                                     GstCudaSyncIpcSlot * slot, GError ** error);
gboolean gst_cuda_sync_ipc_slot_wait_released (GstCudaSyncIpcServer * self,
                                     GstCudaSyncIpcSlot * slot, CUstream stream,
                                     GError ** error);
GstCudaSyncIpcSlot * gst_cuda_sync_ipc_slot_in_place (GstCudaSyncIpcServer * self,
                                     GstBuffer * buf);

/* wakes the server's thread (its deadlines changed) */
static inline void
gst_cuda_sync_ipc_server_wake_thread (GstCudaSyncIpcServer * self)
{
  guint64 one = 1;

  if (self->wake_fd >= 0 && write (self->wake_fd, &one, sizeof (one)) < 0)
    GST_LOG ("wake: %s", g_strerror (errno));
}

G_END_DECLS

/* gst-cudasync
 * Copyright (C) 2026 gst-cudasync developers
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The wire protocol of cudasyncipcsink and cudasyncipcsrc
 * (docs/ipc-protocol.md): messages over a SOCK_SEQPACKET unix socket, one
 * message per packet, fds as SCM_RIGHTS. Sending, receiving with
 * validation of sizes and fd counts, peer credentials, and the frame
 * layout's check against caps. Knows no element; returns GErrors.
 *
 * Part of the library's internal API (see gstcudasync-internal.h): the
 * IPC elements and the protocol's reference reader
 * (tools/cudasync-ipc-consume.c) use it; not installed.
 */
#pragma once

#include <gst/cudasync/gstcudasync-internal.h>
#include <gst/video/video.h>

G_BEGIN_DECLS
#define GST_CUDA_SYNC_IPC_MAGIC 0x31495343u  /* "CSI1" in little endian */
#define GST_CUDA_SYNC_IPC_VERSION_MAJOR 1
#define GST_CUDA_SYNC_IPC_VERSION_MINOR 1
#define GST_CUDA_SYNC_IPC_MAX_MESSAGE 4096
#define GST_CUDA_SYNC_IPC_MAX_CAPS 3072
#define GST_CUDA_SYNC_IPC_MAX_BUFFERS 1024
/* announced semaphore values stay below this: a rescue never overflows */
#define GST_CUDA_SYNC_IPC_MAX_VALUE (G_GUINT64_CONSTANT (1) << 62)
/* what a survivor signals past the last value its peer announced */
#define GST_CUDA_SYNC_IPC_RESCUE_STEP (G_GUINT64_CONSTANT (1) << 32)
    typedef enum
{
  GST_CUDA_SYNC_IPC_MSG_HELLO = 1,
  GST_CUDA_SYNC_IPC_MSG_SEMAPHORE = 2,
  GST_CUDA_SYNC_IPC_MSG_CAPS = 3,
  GST_CUDA_SYNC_IPC_MSG_BUFFER = 4,
  GST_CUDA_SYNC_IPC_MSG_FRAME = 5,
  GST_CUDA_SYNC_IPC_MSG_RELEASE = 6,
  GST_CUDA_SYNC_IPC_MSG_EOS = 7,
  GST_CUDA_SYNC_IPC_MSG_BYE = 8,
  /* 1.1: the source takes no more frames but still holds some */
  GST_CUDA_SYNC_IPC_MSG_DRAIN = 9,
} GstCudaSyncIpcMsgType;

typedef enum
{
  GST_CUDA_SYNC_IPC_ROLE_SINK = 1,
  GST_CUDA_SYNC_IPC_ROLE_SOURCE = 2,
} GstCudaSyncIpcRole;

typedef enum
{
  GST_CUDA_SYNC_IPC_SEM_ACQUIRE = 1,
  GST_CUDA_SYNC_IPC_SEM_RELEASE = 2,
} GstCudaSyncIpcSemPurpose;

typedef struct
{
  guint32 magic;
  guint16 type;
  guint16 n_fds;
  guint32 size;
  guint32 reserved;
} GstCudaSyncIpcHeader;

typedef struct
{
  guint16 version_major;
  guint16 version_minor;
  guint32 role;
  guint8 device_uuid[16];
  guint32 max_buffers;
  guint32 reserved;
} GstCudaSyncIpcHello;

typedef struct
{
  guint32 purpose;
  guint32 handle_type;          /* 1: timeline semaphore, opaque fd */
  guint64 initial_value;
} GstCudaSyncIpcSemaphore;

typedef struct
{
  guint32 epoch;
  guint32 n_planes;
  guint64 size;
  guint64 offset[4];
  guint32 stride[4];
  guint32 caps_len;             /* bytes of caps text that follow, NUL included */
  guint32 reserved;
} GstCudaSyncIpcCaps;

typedef struct
{
  guint32 id;
  guint32 epoch;
  guint64 alloc_size;
} GstCudaSyncIpcBuffer;

typedef struct
{
  guint32 id;
  guint32 epoch;
  guint64 acquire_value;
  guint64 pts;
  guint64 dts;
  guint64 duration;
  guint64 offset;
  guint64 offset_end;
  guint32 flags;
  guint32 reserved;
} GstCudaSyncIpcFrame;

typedef struct
{
  guint32 id;
  guint32 reserved;
  guint64 release_value;
} GstCudaSyncIpcRelease;

typedef struct
{
  guint32 reason;
  guint32 reserved;
} GstCudaSyncIpcBye;

/* the buffer flags a FRAME may carry */
#define GST_CUDA_SYNC_IPC_FRAME_FLAGS (GST_BUFFER_FLAG_DISCONT | \
    GST_BUFFER_FLAG_DELTA_UNIT | GST_BUFFER_FLAG_GAP | \
    GST_BUFFER_FLAG_DROPPABLE | GST_BUFFER_FLAG_HEADER | \
    GST_BUFFER_FLAG_MARKER)

/* A received message: the header, the body (size - header bytes) and the
 * fds it carried (owned; gst_cuda_sync_ipc_msg_clear() closes those not
 * taken). */
typedef struct
{
  GstCudaSyncIpcHeader hdr;
  guint8 body[GST_CUDA_SYNC_IPC_MAX_MESSAGE];
  gint fd;
} GstCudaSyncIpcMsg;

GST_CUDA_SYNC_API
gboolean gst_cuda_sync_ipc_send (gint sock, GstCudaSyncIpcMsgType type,
    const void *body, gsize body_size,
    const void *extra, gsize extra_size, gint fd, GError ** error);
/* whether the peer's end of @sock closed (what it sent before may still
 * be there to read) */
GST_CUDA_SYNC_API
gboolean gst_cuda_sync_ipc_peer_closed (gint sock);
/* Whether @fd is the file @kept duplicates: the same regular file (the
 * simulated driver's memfds) or, for other files, the same open file
 * (kcmp(KCMP_FILE)): the NVIDIA driver exports every opaque fd as a file
 * of one device node, one inode for all. FALSE when it cannot be told. */
GST_CUDA_SYNC_API
gboolean gst_cuda_sync_ipc_same_file (gint kept, gint fd);
/* 1: a message, 0: the peer closed the connection, -1: error (malformed
 * message, fd count, size) with @error set */
GST_CUDA_SYNC_API
gint gst_cuda_sync_ipc_recv (gint sock, GstCudaSyncIpcMsg * msg, GError ** error);
GST_CUDA_SYNC_API
void gst_cuda_sync_ipc_msg_clear (GstCudaSyncIpcMsg * msg);
GST_CUDA_SYNC_API
gint gst_cuda_sync_ipc_msg_take_fd (GstCudaSyncIpcMsg * msg);

GST_CUDA_SYNC_API
gboolean gst_cuda_sync_ipc_check_hello (const GstCudaSyncIpcMsg * msg,
    GstCudaSyncIpcRole expected_role, GError ** error);
/* The layout of a CAPS message checked against its caps text: parses the
 * caps into @info (fixed raw video caps, CUDA memory) and requires the
 * planes to fit @size and the format's rows. */
GST_CUDA_SYNC_API
gboolean gst_cuda_sync_ipc_parse_caps (const GstCudaSyncIpcMsg * msg,
    GstCaps ** caps, GstVideoInfo * layout, GError ** error);
GST_CUDA_SYNC_API
void gst_cuda_sync_ipc_caps_from_info (GstCudaSyncIpcCaps * caps_msg,
    const GstVideoInfo * info, guint32 epoch);

/* uids: "" (only @own_uid), "*" (any), or a comma-separated list */
GST_CUDA_SYNC_API
gboolean gst_cuda_sync_ipc_check_peer (gint sock, const gchar * allowed_uids,
    guint * uid, gint * pid, GError ** error);
/* whether @allowed_uids is such a list (each entry a decimal user id);
 * GST_RESOURCE_ERROR_SETTINGS naming the first wrong entry otherwise */
GST_CUDA_SYNC_API
gboolean gst_cuda_sync_ipc_check_allowed_uids (const gchar * allowed_uids,
    GError ** error);

/* whether frames of @layout can be handed on in place, as one wrapped
 * GstCudaMemory (1.24+), without GstCudaMemory's CPU map spoiling them */
GST_CUDA_SYNC_API
gboolean gst_cuda_sync_ipc_layout_wrappable (const GstVideoInfo * layout);

G_END_DECLS

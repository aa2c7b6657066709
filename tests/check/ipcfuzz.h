/* gst-cudasync
 * Copyright (C) 2026 gst-cudasync developers
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The IPC fuzz test's fake peer: scripts of messages of
 * docs/ipc-protocol.md, mutated from a seeded GRand (fz_rng).
 */
#pragma once

#include "ipccommon.h"
#include <gst/cudasync/gstcudasyncipcproto.h>

G_BEGIN_DECLS

/* one packet: a message (or what a mutation left of it) and its fds */
typedef struct
{
  union
  {
    guint64 align;
    guint8 data[6144];
  };
  gsize len;
  gint fds[4];
  guint n_fds;
} FzPacket;

/* what a case's script holds */
/* a case's messages */
typedef struct
{
  FzPacket pkts[8];
  guint n;
  gboolean clean_end;           /* an unmutated BYE or EOS ends it */
} FzScript;

extern GRand *fz_rng;

/* the seed (IPC_FUZZ_SEED, else a fixed one) and the number of cases
 * (IPC_FUZZ_CASES, else @dflt) */
guint     fz_seed          (void);
guint     fz_cases         (guint dflt);
/* aborts, naming the case and @seed, when a case runs past 10 s */
GThread * fz_watchdog_start (guint seed);
void      fz_watchdog_case (gint i);
void      fz_watchdog_stop_join (GThread * dog);
guint     fz_count_fds     (void);
/* those that are not sockets: GStreamer makes socket pairs of its own
 * when it needs them (GstPoll), at times a test cannot tell */
guint     fz_count_fds_but_sockets (void);
/* fz_count_fds() once every simulated stream is idle and the library's
 * deferred releases ran */
guint     fz_settled_fds   (void);

FzPacket * fz_script_add   (FzScript * s, guint16 type, const void * body,
                            gsize size);
/* a message of a random type (not EOS or BYE), random body of its size */
void      fz_script_add_random (FzScript * s);
/* the end of every script: a message of an unknown type */
void      fz_script_end    (FzScript * s);
/* one to three mutations of random messages, maybe two swapped; @vmm
 * (nullable) gives memory fds where semaphores are wanted */
void      fz_script_mutate (FzScript * s, GstCudaSyncVmm * vmm);
void      fz_script_clear  (FzScript * s);
/* takes @fd (closed when the packet has four) */
void      fz_pkt_add_fd    (FzPacket * p, gint fd);
/* sends, ignoring a peer that went, and closes the packet's fds */
void      fz_pkt_send      (gint sock, FzPacket * p);
/* reads (closing received fds) until the peer closes: TRUE, or @ms pass
 * without a message */
gboolean  fz_until_closed  (gint sock, guint ms);
/* the id of the next FRAME, 0 when none comes within @ms */
guint32   fz_wait_frame    (gint sock, guint ms);
gint      fz_connect_to    (const gchar * path);
/* one packet of @len bytes with @n_fds fds (up to the kernel's limit,
 * the same fd may repeat; the caller's stay open) */
void      fz_send_raw      (gint sock, const void * data, gsize len,
                            const gint * fds, guint n_fds);
/* the fd of the next message of @type (the others' closed), -1 when none
 * comes within @ms */
gint      fz_recv_fd       (gint sock, guint16 type, guint ms);
/* a fake source's side of the handshake: HELLO, and SEMAPHORE with
 * @release_fd (taken) */
void      fz_source_hello  (gint sock, gint release_fd);
gint      fz_listen_at     (const gchar * path);

G_END_DECLS

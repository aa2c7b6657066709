/* gst-cudasync
 * Copyright (C) 2026 gst-cudasync developers
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Helpers of the IPC tests (elements/cudaipc, elements/cudaipckill): the
 * other process, semaphores for the elements, counters.
 */
#pragma once

#include "common.h"

G_BEGIN_DECLS

#define W 64
#define H 48
#define FORMAT "NV12"
/* the size after a renegotiation */
#define W2 32
#define H2 24
/* a pattern without moving parts: a source joining late gets the same
 * frames as a reference started on its own */
#define PATTERN "pattern=smpte75"

/* main() first: TRUE when this process is a child (--source, --sink or
 * --reader),
 * its exit status in *@ret */
gboolean ipc_child_main (int argc, char **argv, int *ret);
/* a child receiving @n frames (byte-exact against videotestsrc) and
 * printing its stats; @props: the source's properties ("wait-mode=gpu");
 * @delay: its CUDASIM_DELAY (nullable) */
GPid     ipc_spawn_source (const gchar * path, guint n,
                           const gchar * props, const gchar * delay,
                           gint * out_fd);
/* a child source that reads frames into a fakesink until it is killed
 * (no nvcodec element: a quick start on a GPU) */
GPid     ipc_spawn_reader (const gchar * path, const gchar * delay);
/* a child sink of live frames (max-buffers 2), listening when it returns */
GPid     ipc_spawn_sink (const gchar * path, const gchar * delay);
/* @fmt with @path for its one %s, in this process's CUDA context, its
 * IPC element @name getting semaphores of the test backend */
GstElement * ipc_pipeline (const gchar * fmt, const gchar * path,
                           const gchar * name);
/* the element @name of @pipeline gets semaphores of the test backend */
void     ipc_connect_new_semaphore (GstElement * pipeline,
                           const gchar * name);
/* *@out: the simulator's CPU syncs of the streaming thread of element
 * @name's pad @pad_name, read when EOS passes it (-2 before) */
void     ipc_probe_thread_syncs (GstElement * pipeline, const gchar * name,
                           const gchar * pad_name, gint * out);
gchar *  ipc_read_all (gint fd);
/* waits (up to 1 s) until no source is connected to @sink; its
 * sessions-lost */
guint64  ipc_sessions_gone (GstElement * sink);
/* the output of a source child (printed), which must have exited 0 */
gchar *  ipc_source_result (GPid pid, gint out_fd);
guint64  ipc_wait_stat (GstElement * e, const gchar * field, guint64 want);
/* "field=(guint64)N" of a child's output; G_MAXUINT64 when missing */
guint64  ipc_field_of (const gchar * out, const gchar * field);
/* TRUE when every simulated stream went idle within @ms (always on a real
 * driver): no GPU wait is left stuck */
gboolean ipc_drained_within (guint ms);

/* A fake sink in this process, for a source's tests: listening at @path
 * (ipc_fake_sink_new()); _accept() takes the next connection within @ms
 * (FALSE when none came); _send_frame() sends HELLO, the acquire
 * SEMAPHORE (a timeline semaphore of the test backend at 0, which the
 * fake never signals), CAPS of W x H NV12, a BUFFER and a FRAME at
 * acquire value 1: a sink that froze, or is killed, before it signalled
 * its first frame. _hang_up() closes the connection without a word. */
typedef struct
{
  gint listen_fd, fd;
  TestSem *sem;
  GstCudaSyncVmm *vmm;
} IpcFakeSink;

IpcFakeSink * ipc_fake_sink_new (const gchar * path);
gboolean ipc_fake_sink_accept (IpcFakeSink * fs, guint ms);
void     ipc_fake_sink_send_frame (IpcFakeSink * fs);
void     ipc_fake_sink_hang_up (IpcFakeSink * fs);
/* closes the sockets (not the socket file) and frees */
void     ipc_fake_sink_free (IpcFakeSink * fs);

/* gst_element_set_state (@e, NULL) in a thread: TRUE when it returned
 * within @ms (else the thread is left blocked) */
gboolean ipc_stop_within (GstElement * e, guint ms);

/* main() of an IPC test program (as GST_CHECK_MAIN): the other process's
 * when it is started as one, else the suite @name##_suite () */
#define IPC_CHECK_MAIN(name)                                            \
int                                                                     \
main (int argc, char **argv)                                            \
{                                                                       \
  int ret;                                                              \
                                                                        \
  if (ipc_child_main (argc, argv, &ret))                                \
    return ret;                                                         \
  gst_check_init (&argc, &argv);                                        \
  return gst_check_run_suite (name ## _suite (), G_STRINGIFY (name),    \
      __FILE__);                                                        \
}

G_END_DECLS

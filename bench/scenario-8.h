/* gst-cudasync
 * Copyright (C) 2026 gst-cudasync developers
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Scenario 8, frames between processes: modes, results, the consumer.
 */
#pragma once

#include <stdio.h>

#include "bench.h"
#include "bench-cuda.h"

G_BEGIN_DECLS enum
{
  S8_S,                         /* cudasyncipcsink -> cudasyncipcsrc */
  S8_U,                         /* cudaipcsink ipc-mode=legacy -> cudaipcsrc */
  S8_UM,                        /* cudaipcsink ipc-mode=mmap -> cudaipcsrc */
  S8_P,                         /* one process, no IPC */
  S8_SI,                        /* s with cudasyncipcsrc io-mode=import */
  S8_SP,                        /* s, written in place in the sink's pool */
  S8_SIP,                       /* si, written in place in the sink's pool */
  S8_N_MODES
};

typedef struct
{
  const gchar *key;
  const gchar *desc;
  const gchar *sink;            /* the producer's sink element; NULL: p */
  const gchar *src;             /* the consumer's source element */
  const gchar *ipc_mode;        /* upstream's ipc-mode; NULL: ours */
  const gchar *io_mode;         /* cudasyncipcsrc's io-mode; NULL: copy */
  /* the producer writes on the stream its pool sets on the memory and
   * marks it pending, with no acquire point (upstream's 1.24+ producers) */
  gboolean memory_stream;
  /* the producer writes into the pool the sink proposes (1.24+): the sink
   * sends its frames without a copy */
  gboolean sink_pool;
} S8Mode;

/* this project's elements */
#define S8_OURS(k) (s8_modes[k].sink && !s8_modes[k].ipc_mode)

extern const S8Mode s8_modes[S8_N_MODES];

typedef struct
{
  gchar *status;
  gchar *error;
  GArray *fps;                  /* frames the consumer read per second */
  GArray *prod_cpu_us;          /* producer process CPU per frame */
  GArray *cons_cpu_us;          /* consumer process CPU per frame (IPC) */
  GArray *total_cpu_us;         /* both (p: the one process) */
  GArray *lat_p50_us, *lat_p99_us;
  GArray *dropped;              /* measured frames the consumer never saw */
  GstStructure *sink_stats;     /* s: cudasyncipcsink, last repetition */
  GstStructure *src_stats;      /* s: cudasyncipcsrc, last repetition */
  gboolean stats_ok;
  gchar *stats_note;
} S8ModeResult;

typedef struct
{
  gint width, height;
  const gchar *format;
  guint gpu_us;
  guint frames;                 /* measured frames per repetition */
  guint warmup;
  gchar *status, *reason;
  S8ModeResult m[S8_N_MODES];
} S8Config;

/* what one repetition measured */
typedef struct
{
  gdouble fps, prod_cpu_us, cons_cpu_us, total_cpu_us;
  gdouble lat_p50_us, lat_p99_us;
  guint dropped;
  GstStructure *sink_stats, *src_stats;
} S8Sample;

/* scenario-8-hop.c: the median µs per GPU semaphore hop between two
 * streams of one CUDA context (@same_us) and of two (@other_us) */
gboolean s8_hop (Bench * b, gdouble * same_us, gdouble * other_us,
    gchar ** error);

/* scenario-8-run.c: one repetition of @mode in @c with frames written by
 * @writer. FALSE and *error when it failed. */
gboolean s8_repetition (Bench * b, S8Config * c, gint mode,
    FrameWriter writer, const gchar * dir, S8Sample * out, gchar ** error);

/* scenario-8-consumer.c: the consumer. A buffer probe on a pad reads each
 * frame on the GPU on the consumer's non-blocking stream (after the
 * buffer's acquire points with @acquire_meta, else after the legacy
 * default stream's work); a thread of its own sees each read complete
 * (cuEventSynchronize of a blocking-sync event), reads the frame's index
 * from the word the read copied back, and releases the buffer. */
typedef struct _S8Consumer S8Consumer;

/* the consumer's window: the measured frames (index >= @first) it saw,
 * from its end of the last earlier frame to its end of frame @last */
typedef struct
{
  gdouble seconds;
  gdouble cpu_s;                /* process CPU over the window */
  guint frames;                 /* measured frames seen */
  GArray *index;                /* guint: each measured frame seen */
  GArray *t1;                   /* gdouble: mono_s () when its read ended */
} S8Window;

S8Consumer *s8_consumer_new (Bench * b, gboolean acquire_meta,
    FILE * proto, gchar ** error);
void s8_consumer_attach (S8Consumer * c, GstElement * element,
    const gchar * pad_name);
/* waits until frame @last was read (no progress for 10 s: FALSE) */
gboolean s8_consumer_wait (S8Consumer * c, guint last, gchar ** error);
gboolean s8_consumer_window (S8Consumer * c, guint first, guint last,
    S8Window * w, gchar ** error);
void s8_window_clear (S8Window * w);
/* stops the thread, gives back the buffers; after the pipeline stopped */
void s8_consumer_free (S8Consumer * c);

/* new-semaphore of cudasyncipcsink and cudasyncipcsrc: a new exportable
 * timeline semaphore of testsem, kept alive by the element */
gint s8_test_semaphore (GstElement * element, gpointer user_data);

/* the other process: --child=8:MODE,SOCKET */
gint s8_child_main (Bench * b, const gchar * args);

/* the frame index the writer put in the first word of plane 0 (seed =
 * frame * 2654435761, bench-cuda.c's frame_write) */
#define S8_INDEX_OF_WORD(w) ((guint) ((guint32) (w) * 244002641u))

G_END_DECLS

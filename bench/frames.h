/* gst-cudasync
 * Copyright (C) 2026 gst-cudasync developers
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The frame harness of scenarios 2 to 6: a producer thread writes CUDA
 * frames (or pushes a system-memory frame) into a pipeline, a recycler
 * thread waits for each frame's end before its buffer goes back to the pool
 * (which bounds the frames in flight), and the run's window, CPU time and
 * latencies are measured. The scenarios build the pipeline between the
 * producer's pad and the sink (s2_build_chain () ... s5_build_chain ()) and
 * say which element counters they expect.
 */
#pragma once

#include "bench.h"
#include "bench-cuda.h"
#include "pipeline.h"

G_BEGIN_DECLS

#define RUN_WAIT_US (10 * G_USEC_PER_SEC)

typedef struct
{
  GstBuffer *buf;               /* NULL: stop */
  GstBuffer *out;               /* scenario 5: the consumer's CUDA frame */
  EvPair *pair;
  guint frame;
  gboolean e1_recorded;         /* the consumer recorded pair->e1 */
  gboolean kernel;              /* the producer recorded pair->e0, ek */
  gdouble t0, t1;               /* wall clock: before the frame, at its end */
} RecycleItem;

/* the elements whose counters a mode checks */
typedef struct
{
  GstElement *sig;              /* cudasemsignal */
  GstElement *wait;             /* cudasemwait */
  GstElement *bridge;           /* cudatovulkan or vulkantocuda */
  GstElement *probe_el;         /* the consumer probe's element (src pad) */
} RunElements;

typedef struct
{
  Bench *b;
  /* fixed for the run */
  S2Config *cfg;
  gint mode;
  FrameSpec spec;               /* info, writer, grid, producer stream */
  guint total, warmup;
  GstBufferPool *pool;          /* CUDA frames (not scenario 4) */
  GstBufferPool *proposed;      /* mode a_in_place: cudatovulkan's pool */
  GstBuffer *sysframe;          /* scenario 4: the system-memory frame */
  CUstream cstream;             /* a1: the consumer's non-blocking stream */
  GstCudaSemaphore *sem_c;      /* a, a1: the elements' semaphore */
  GstCudaSemaphore *sem_p;      /* the producer's acquire semaphore (a) */
  GstPad *srcpad;
  GstElement *pipeline;
  RunElements el;
  GAsyncQueue *free_pairs;
  GAsyncQueue *recycle_q;
  GAsyncQueue *pending;         /* scenario 3: pushed, not yet at the sink */
  gboolean wall;                /* latency by the wall clock */
  gboolean sink_event;          /* scenario 5: the sink probe records E1 */
  gboolean producer_sync;       /* cuStreamSynchronize before pushing */
  gboolean poll;                /* recycler polls E1 (cuEventQuery) */
  gboolean acquire;             /* attach the producer's acquire point */

  /* producer -> probe (same thread) */
  EvPair *cur_pair;
  guint cur_frame;
  gdouble cur_t0;

  /* measurements */
  gdouble t_start, t_end;
  gdouble cpu_start, cpu_end;
  gdouble prod_cpu;
  guint sim_syncs;
  GArray *lat_us;
  GArray *kern_us;

  GMutex lock;
  gchar *error;
  guint lost;
} Run;

/* what s2_run_once () needs besides the configuration and the mode */
typedef struct
{
  FrameWriter writer;
  GstBufferPool *pool;
  CUstream pstream;
  GAsyncQueue *free_pairs;
  GstCudaSemaphore *sem_c;
  GstCudaSemaphore *sem_p;
  GstBuffer *sysframe;
} RunInputs;

/* One repetition of one mode. Appends to the mode's series. */
gboolean s2_run_once          (Bench * b, S2Config * cfg, gint mode,
                               const RunInputs * in, gchar ** error);

/* the fields every run has (both harnesses) */
void     run_init             (Run * run, Bench * b, S2Config * cfg, gint mode,
                               FrameWriter writer, CUstream pstream,
                               GAsyncQueue * free_pairs);
void     run_clear            (Run * run);
void     run_error            (Run * run, gchar * error);
gboolean run_failed           (Run * run);
/* the measured window: opened at the consumer's end of the last warm-up
 * frame, closed at its end of the last frame */
void     run_window           (Run * run, guint frame);
/* appends a finished run's measurements to @m (under b->lock), and
 * keeps its window in m->last_* */
void     run_record           (Run * run, ModeResult * m);
/* scenario 6: arrive at the start gate; @wait: until every pipeline has
 * (30 s at most) */
void     gate_arrive          (StartGate * g, gboolean wait);

gboolean expect_stat          (const GstStructure * st, const gchar * field,
                               guint64 want, GString * note, const gchar * element);
/* the bridge elements' counters; *path: which path ran */
gboolean expect_bridge_stats  (const GstStructure * st, const gchar * element,
                               guint total, guint waits, GString * note,
                               const gchar ** path);

/* the consumer probes (scenarios 3 and 5, on the sink's pad) */
GstPadProbeReturn s3_sink_probe     (GstPad * pad, GstPadProbeInfo * info,
                                     gpointer user_data);
/* scenario 3 and 5 mode c: the CPU wait for cudatovulkan's copy */
GstPadProbeReturn s3_cpu_sync_probe (GstPad * pad, GstPadProbeInfo * info,
                                     gpointer user_data);
/* adds @func as a buffer probe on @element's @pad_name pad */
void     add_buffer_probe     (GstElement * element, const gchar * pad_name,
                               GstPadProbeCallback func, Run * run);

/* frames per repetition */
guint    s2_frames            (Bench * b, guint gpu_us);
guint    s34_frames           (Bench * b, guint gpu_us, gint width);

/* The scenarios' pipelines: append the elements between the producer's pad
 * and the common tail (queue ! vulkandownload for the pending modes,
 * fakesink) to @chain, fill run->el, add their own probes. */
gboolean s2_build_chain       (Run * run, GstElement ** chain, guint * n,
                               gchar ** error);
gboolean s3_build_chain       (Run * run, GstElement ** chain, guint * n,
                               gchar ** error);
gboolean s4_build_chain       (Run * run, GstElement ** chain, guint * n,
                               gchar ** error);
gboolean s5_build_chain       (Run * run, GstElement ** chain, guint * n,
                               gchar ** error);
/* The element counters each mode expects; *ss, *ws: the stats kept in the
 * results. Returns FALSE (and @note) when they differ. */
gboolean s2_check_stats       (Run * run, GstStructure ** ss, GstStructure ** ws,
                               GString * note);
gboolean s3_check_stats       (Run * run, GstStructure ** ss, GString * note,
                               const gchar ** path);
gboolean s4_check_stats       (Run * run, GstStructure ** ss, GString * note,
                               const gchar ** path);
gboolean s5_check_stats       (Run * run, GstStructure ** ss, GstStructure ** ws,
                               GString * note, const gchar ** path);
/* scenario 3 mode d, d_stall: the raw-API limit (no GStreamer) */
gboolean s3d_run_once         (Bench * b, S2Config * cfg, gint mode,
                               const RunInputs * in, gchar ** error);
/* scenario 4's source: one system-memory frame, pushed again and again */
GstBuffer * new_sysframe      (S2Config * c);

G_END_DECLS

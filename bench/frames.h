/* gst-cudasync
 * Copyright (C) 2026 gst-cudasync developers
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The frame harness of scenarios 2 to 6: a producer thread writes frames
 * into a pipeline, a recycler waits for each frame's end before its buffer
 * goes back to the pool (bounding the frames in flight).
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
  GstBuffer *out;               /* MODE_F_SINK_EVENT: the sink's frame */
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

typedef struct _Run
{
  Bench *b;
  /* fixed for the run */
  S2Config *cfg;
  gint mode;
  FrameSpec spec;               /* info, writer, grid, producer stream */
  guint total, warmup;
  GstBufferPool *pool;          /* CUDA frames (without sysframe) */
  GstBufferPool *proposed;      /* MODE_F_IN_PLACE: the bridge's pool */
  GstBuffer *sysframe;          /* a system-memory frame pushed again and
                                 * again instead of CUDA frames */
  GstCudaSemaphore *sem_c;      /* scenario 2 a: the elements' semaphore */
  GstCudaSemaphore *sem_p;      /* the producer's acquire semaphore (a) */
  GstPad *srcpad;
  GstElement *pipeline;
  RunElements el;
  GAsyncQueue *free_pairs;
  GAsyncQueue *recycle_q;
  GAsyncQueue *pending;         /* MODE_F_PENDING: pushed, not yet at the
                                 * sink */
  gboolean wall;                /* latency by the wall clock */
  gboolean sink_event;          /* the sink probe records E1 */
  gboolean producer_sync;       /* cuStreamSynchronize before pushing */
  gboolean acquire;             /* attach the producer's acquire point */
  gboolean need_sync;           /* mark the memory NEED_SYNC (1.24+) */

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
typedef struct _RunInputs
{
  FrameWriter writer;
  GstBufferPool *pool;
  CUstream pstream;
  GAsyncQueue *free_pairs;
  GstCudaSemaphore *sem_c;
  GstCudaSemaphore *sem_p;
  GstBuffer *sysframe;
  /* MODE_F_OWN_DEVICE: the pipeline's Vulkan instance and device contexts
   * instead of the bench's */
  GstContext *vk_ctx[2];
} RunInputs;

/* one repetition of one mode (through its run_once when it has
 * one). Appends to the mode's series. */
gboolean s2_run_once          (Bench * b, S2Config * cfg, gint mode,
                               const RunInputs * in, gchar ** error);

/* the fields every run has (the raw reference's too), and its
 * measurements appended to @m (under b->lock; its window kept in
 * m->last_*) */
void     run_init             (Run * run, Bench * b, S2Config * cfg, gint mode,
                               const RunInputs * in);
void     run_clear            (Run * run);
void     run_record           (Run * run, ModeResult * m);
/* arrive at the configuration's start gate (several pipelines at
 * once); @wait: until every pipeline has (30 s at most) */
void     gate_arrive          (StartGate * g, gboolean wait);

/* the run's state, from any of its threads. The measured
 * window: opened at the consumer's end of the last warm-up frame, closed
 * at its end of the last frame */
void     run_error            (Run * run, gchar * error);
gboolean run_failed           (Run * run);
void     run_window           (Run * run, guint frame);

/* a src pad probe that waits on the CPU for the context's work
 * (cuCtxSynchronize): the CPU wait of the CPU-synchronised modes */
GstPadProbeReturn cpu_sync_probe   (GstPad * pad, GstPadProbeInfo * info,
                                    gpointer user_data);
/* adds @func as a buffer probe on @element's @pad_name pad */
void     add_buffer_probe     (GstElement * element, const gchar * pad_name,
                               GstPadProbeCallback func, Run * run);

/* section.c: frames per repetition: of the sections with the spin kernel, and of
 * those that push every frame through the CPU in some mode (fewer) */
guint    s2_frames            (Bench * b, guint gpu_us);
guint    s34_frames           (Bench * b, guint gpu_us, gint width);

/* A section that shares the frame harness (section.c): what it runs and
 * how its table reads. The scenario's file defines it. */
struct _BenchSection
{
  const gchar *key;             /* its JSON key (section_json ()) */
  const gchar *title;           /* "Scenario 3: ..." */
  const gchar *latency;         /* what its latency measures */
  const gint *modes;
  guint n_modes;
  gint ref_mode;                /* ratios over this mode */
  /* more ratio lines in the table, after those over ref_mode: {mode, ref} */
  const gint (*extra_ratios)[2];
  guint n_extra_ratios;
  /* configurations: the first n_sizes of 1920x1080, 3840x2160 (one with
   * --quick), the first n_formats of RGBA, NV12, x the GPU work (--quick:
   * quick_work_us if set, else those of work_us up to 1 ms) */
  guint n_sizes, n_formats;
  const guint *work_us;
  guint n_work;
  const guint *quick_work_us;
  guint n_quick_work;
  /* needs the bench's Vulkan device and the bridge elements, and this
   * element besides (NULL: none) */
  gboolean vulkan;
  const gchar *vulkan_element;
  /* s34_frames () and at most 3 repetitions */
  gboolean few_frames;
  /* frames from system memory (this frame, pushed again and again), not
   * written on the GPU; NULL: CUDA frames from a pool */
  GstBuffer * (*sysframe) (S2Config * c);
  /* more of a configuration's JSON object, after its ratios */
  void (*json_config) (JsonBuilder * jb, S2Config * c);
};

/* Several pipelines of one mode at once (pipelines.c): 1, 2, 4 and 8
 * (--quick: 1, 2) at 0 and 5 ms of GPU work (--quick: 0), 1920x1080 RGBA.
 * The scenario's file defines it. */
typedef struct _BenchScaling
{
  const gchar *key;             /* its JSON key */
  const gchar *name;            /* "Scenario 6", in the errors */
  const gchar *title;           /* printed before the table */
  const gchar *what;            /* the JSON's "what" */
  const gchar *const *elements; /* the elements it needs, NULL-terminated */
  /* per GPU work, each mode for 1 to 8 pipelines; then, full runs only,
   * the late modes likewise */
  const gint *modes;
  guint n_modes;
  const gint *late_modes;
  guint n_late_modes;
  gint raw_mode;                /* aggregate_fps_over_raw_median's reference */
} BenchScaling;

/* pipelines.c: a scenario's scaling runs (SCALING_SCENARIO) */
void     scaling_init         (Bench * b, const BenchScenario * sc);
gboolean scaling_run          (Bench * b, const BenchScenario * sc);
void     scaling_json         (Bench * b, const BenchScenario * sc,
                               JsonBuilder * jb);

/* section.c: the elements @need (NULL-terminated; NULL: no Vulkan) and
 * the bench's Vulkan device, then the frame writer. FALSE when the
 * section ends here: skipped or failed, *ret its result. */
gboolean section_start        (Bench * b, S2Result * S,
                               const gchar * const *need,
                               FrameWriter * writer, gboolean * ret);
/* section.c: a scenario's section: its results set-up, run and JSON
 * object (SECTION_SCENARIO) */
void     section_init         (Bench * b, const BenchScenario * sc);
gboolean section_run          (Bench * b, const BenchScenario * sc);
void     section_json         (Bench * b, const BenchScenario * sc,
                               JsonBuilder * jb);

/* the descriptor of scenario @n: section @sec, or scaling runs @scl, on
 * Results' S2Result @field */
#define SECTION_SCENARIO(n, field, sec) { .id = #n, .only_bit = 1 << n, \
    BENCH_RESULT_STATE (field), .init = section_init, .run = section_run, \
    .json = section_json, .result = G_STRUCT_OFFSET (Results, field), \
    .section = (sec) }
#define SCALING_SCENARIO(n, field, scl) { .id = #n, .only_bit = 1 << n, \
    BENCH_RESULT_STATE (field), .init = scaling_init, .run = scaling_run, \
    .json = scaling_json, .result = G_STRUCT_OFFSET (Results, field), \
    .scaling = (scl) }

G_END_DECLS

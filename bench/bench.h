/* gst-cudasync
 * Copyright (C) 2026 gst-cudasync developers
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * gst-cudasync-bench: the context (Bench), the results, and the
 * descriptors of scenarios and modes. Files below the scenarios never name
 * one (.ci/check-cycles.py checks for call cycles).
 */
#pragma once

#include <gst/gst.h>
#include <gst/cuda/gstcudaloader.h>
#include <gst/cuda/gstcudacontext.h>
#include <gst/cuda/cuda-gst.h>

#include "harness.h"

G_BEGIN_DECLS

#define S1_BATCH 128

/* --- results --- */

enum
{
  S1_BARE,
  S1_LIBRARY,
  S1_IDENTITY,
  S1_CUDASEMSIGNAL,
  S1_N_ROWS
};

typedef struct
{
  gchar *status;                /* "not run", "ok", "failed", "skipped" */
  gchar *reason;
  guint calls;
  guint batch;
  GArray *cpu_ns[S1_N_ROWS];
  GArray *wall_ns[S1_N_ROWS];
  GstStructure *sig_stats;
} S1Result;

enum
{
  /* scenario 2 */
  MODE_A,
  MODE_C,
  /* the CUDA <-> Vulkan scenario (scenario-3.c). Part 3: CUDA -> Vulkan;
   * a_binary: cudatovulkan timeline=false; a_in_place: the producer writes
   * into the pool cudatovulkan proposes (1.24+, one-plane formats);
   * a_stream: the producer's memory carries its stream, no acquire point
   * (1.24+) */
  MODE_CV_A,
  MODE_CV_B,
  MODE_CV_AB,
  MODE_CV_AI,
  MODE_CV_AS,
  /* part 3's raw-API limit (no GStreamer): d, d_stall (vulkandownload's
   * per-frame stall), d_split (d_stall with the semaphore wait in a
   * submission of its own: the bridge's shape) */
  MODE_CV_D,
  MODE_CV_D2,
  MODE_CV_D3,
  /* part 4: Vulkan -> CUDA */
  MODE_VC_A,
  MODE_VC_B,
  /* part 5: CUDA -> Vulkan -> CUDA stages */
  MODE_S5_A,
  MODE_S5_C,
  /* part 6 (besides part 3's a and raw modes): a with the producer's
   * memory carrying its stream (1.24+); a with one Vulkan device per
   * pipeline */
  MODE_S6_AM,
  MODE_S6_AO,
  N_ALL_MODES
};

typedef struct
{
  gchar *status;
  gchar *error;
  guint frames;                 /* measured frames per repetition */
  guint warmup;
  GArray *fps;
  GArray *proc_cpu_us;
  GArray *prod_cpu_us;
  GArray *lat_p50_us;
  GArray *lat_p99_us;
  GArray *kernel_us;            /* producer's frame write, E0 -> after it */
  GArray *sim_syncs;            /* producer thread CPU syncs per frame (sim) */
  GstStructure *sig_stats;      /* last repetition */
  GstStructure *wait_stats;
  const gchar *stats_name[2];   /* whose stats sig_stats, wait_stats are */
  guint in_flight;
  gchar *path;                  /* scenarios 3, 4: bridge GPU or CPU path */
  gboolean stats_ok;
  gchar *stats_note;
  /* the last repetition's window (scenario 6 aggregates them) */
  gdouble last_t[2], last_cpu[2];
  guint last_frames;
} ModeResult;

/* several pipelines at once (pipelines.c) start their producers together */
typedef struct
{
  GMutex lock;
  GCond cond;
  guint arrived, n;
} StartGate;

typedef struct
{
  gint width, height;
  const gchar *format;
  guint gpu_us;
  gchar *status;
  gchar *reason;
  const gint *modes;
  guint n_modes;
  gint ref_mode;                /* ratios over this mode */
  ModeResult m[N_ALL_MODES];
  StartGate *gate;              /* scenario 6 */
} S2Config;

typedef struct _BenchSection BenchSection;

/* the results of a section that shares the frame harness (section.c) */
typedef struct
{
  gchar *status;
  gchar *reason;
  gchar *frame_writer;
  gchar *kernel_info;
  GPtrArray *configs;
  const BenchSection *sec;      /* what it runs */
  gint repetitions;
} S2Result;

/* several pipelines of one mode at once (pipelines.c: scenario 6) */
typedef struct
{
  guint n;                      /* pipelines at once */
  guint gpu_us;
  gint mode;                    /* a mode of the frame harness, or a raw
                                 * mode (its instances) */
  gchar *status, *reason;
  GArray *agg_fps, *proc_cpu_us, *min_fps, *max_fps;
  S2Config *pipes;              /* n of them, mode @mode */
  gboolean stats_ok;
  gchar *stats_note;
  const gchar *path;
} S6Config;

/* scenario 7: real decodes (scenario-7.h has its configurations) */
typedef struct
{
  gchar *status, *reason;
  gchar *clips;                 /* how the clips were made */
  gchar *container;             /* what holds them */
  gint repetitions;
  gchar **mode_skipped;         /* per mode: why it does not run, or NULL */
  GPtrArray *configs;
} S7Result;

/* scenario 8: frames between processes (scenario-8.h has its
 * configurations) */
typedef struct
{
  gchar *status, *reason;
  gchar *frame_writer;
  gint repetitions;
  gchar **mode_skipped;         /* per mode: why it does not run, or NULL */
  GPtrArray *configs;
  /* a GPU semaphore hop, one context and two (scenario-8-hop.c); NAN and
   * hop_error when it failed */
  gdouble hop_same_us, hop_other_us;
  gchar *hop_error;
} S8Result;

typedef struct
{
  gchar *started;
  gboolean complete;
  gchar *aborted;
  /* environment */
  gchar *driver;
  gchar *device;
  gint cc_major, cc_minor, sm_count;
  gint driver_version;
  gchar *semaphores;
  gint ctx_flags;               /* -1: unknown */
  gchar *fatal;
  gchar *vulkan;                /* the Vulkan device for scenarios 3 to 6 */
  S1Result s1;
  S2Result s2;
  S2Result s3;                  /* CUDA -> Vulkan */
  S2Result s4;                  /* Vulkan -> CUDA */
  S2Result s5;                  /* CUDA -> Vulkan -> CUDA stages */
  S2Result s6;                  /* scaling (configs: S6Config) */
  S7Result s7;                  /* real decodes */
  S8Result s8;                  /* frames between processes */
} Results;

/* --- the context --- */

typedef unsigned (*SimCountFunc) (void);
typedef struct _Bench Bench;
typedef struct _BenchMode BenchMode;

typedef struct _BenchScenario BenchScenario;

/* A scenario, as main.c and results.c see it. */
struct _BenchScenario
{
  const gchar *id;              /* as --only names it: "1", "8" */
  guint only_bit;               /* its --only bit (harness.h) */
  /* its status and reason in Results: BENCH_RESULT_STATE (s1) */
  gsize status, reason;
  /* its results' set-up (NULL: none), run (FALSE when something failed)
   * and JSON object */
  void (*init) (Bench * b, const BenchScenario * sc);
  gboolean (*run) (Bench * b, const BenchScenario * sc);
  void (*json) (Bench * b, const BenchScenario * sc, JsonBuilder * jb);
  /* A process the scenario started (this program again, with the hidden
   * option --child=ID:ARGS): runs instead of the scenarios, after the CUDA
   * set-up; returns the exit status. NULL: none. */
  gint (*child) (Bench * b, const gchar * args);
  /* a section of the frame harness or scaling runs (frames.h): its
   * S2Result in Results, and what it runs */
  gsize result;
  const struct _BenchSection *section;
  const struct _BenchScaling *scaling;
};

#define BENCH_RESULT_STATE(field) G_STRUCT_OFFSET (Results, field.status), \
    G_STRUCT_OFFSET (Results, field.reason)

typedef struct
{
  CUmodule module;
  CUfunction func;
  gboolean tried, ok;
  gchar *info;                  /* where it came from, or why there is none */
} BenchKernel;

struct _Bench
{
  BenchOptions opt;
  BenchWatchdog wd;
  GMutex lock;                  /* guards r (the JSON writer reads it) */
  Results r;
  GstCudaContext *ctx;
  gboolean is_sim;              /* the simulated CUDA driver */
  SimCountFunc sim_thread_cpu_syncs;    /* simulator only */
  BenchKernel kernel;
  /* The bench's Vulkan instance and device (vulkan_device ()), given to
   * every element of every pipeline by the bus handler */
  GMutex vk_lock;
  GstContext *vk_ctx[2];
  /* mode d's queue (bench_vulkan_queue ()): the bridge elements' queue
   * object, one for every raw instance and pipeline, so that its submit
   * lock serialises all their vkQueueSubmit calls on that VkQueue */
  GMutex raw_queue_lock;
  struct _GstVulkanQueue *raw_queue;
  /* bench_abort () was called: start nothing more that needs the GPU */
  gint stopped;
  /* the table (main.c): the scenarios in the order they run and
   * appear in the JSON (NULL-terminated), the modes by their index */
  const BenchScenario *const *scenarios;
  const BenchMode *const *modes;
};

/* What the frame harness (run.c) does in a mode besides building its
 * pipeline */
typedef enum
{
  /* cuStreamSynchronize before pushing, no acquire point */
  MODE_F_PRODUCER_SYNC = 1 << 0,
  /* latency by the wall clock, not by CUDA events */
  MODE_F_WALL = 1 << 2,
  /* frames end at the sink (after a queue, and vulkandownload unless
   * MODE_F_SINK_EVENT), not at the consumer probe */
  MODE_F_PENDING = 1 << 3,
  /* MODE_F_PENDING whose sink probe records the CUDA end event */
  MODE_F_SINK_EVENT = 1 << 4,
  /* from frame 1 on, the producer writes into the pool the bridge element
   * proposes */
  MODE_F_IN_PLACE = 1 << 5,
  /* (GStreamer 1.24+) the producer writes on the GstCudaStream its pool's
   * memory carries and marks the memory GST_CUDA_MEMORY_TRANSFER_NEED_SYNC,
   * with no acquire point, as upstream CUDA producers do */
  MODE_F_MEMORY_STREAM = 1 << 6,
  /* (GStreamer 1.24+, several pipelines at once: pipelines.c) the producer
   * writes on a GstCudaStream its pool's memory carries, and still attaches
   * its acquire point */
  MODE_F_POOL_STREAM = 1 << 7,
  /* (several pipelines at once: pipelines.c) each pipeline has a Vulkan
   * device of its own on the bench's physical device, as separate
   * pipelines have by default (a device is shared only between linked
   * elements) */
  MODE_F_OWN_DEVICE = 1 << 8,
} BenchModeFlags;

struct _Run;
struct _RunInputs;

/* A mode of a scenario: the scenario's file defines it, main.c lists
 * it at its index (MODE_A ...) */
struct _BenchMode
{
  const gchar *key;             /* in the table and the JSON */
  const gchar *desc;
  BenchModeFlags flags;
  /* whose counters the JSON keeps (ModeResult's sig_stats, wait_stats) */
  const gchar *stats[2];
  /* The mode's elements between the producer's pad and the harness's
   * tail: appended to @chain, run->el filled, probes added */
  gboolean (*build_chain) (struct _Run * run, GstElement ** chain,
      guint * n, gchar ** error);
  /* The element counters it expects; *ss, *ws: the stats kept in the
   * results, *path: which bridge path ran. FALSE (and @note) when they
   * differ. NULL: none checked. */
  gboolean (*check_stats) (struct _Run * run, GstStructure ** ss,
      GstStructure ** ws, GString * note, const gchar ** path);
  /* a mode that runs without the frame harness (the raw reference) */
  gboolean (*run_once) (Bench * b, S2Config * cfg, gint mode,
      const struct _RunInputs * in, gchar ** error);
};

/* a mode's key in the table and the JSON ("a", "d_stall") */
const gchar * bench_mode_key   (Bench * b, gint mode);

/* results.c: the results' set-up and their JSON document */
void     results_init          (Bench * b);
void     mode_result_init      (ModeResult * m);
/* sets a results string under the lock */
void     set_str               (Bench * b, gchar ** field, const gchar * value);
void     sec_set               (Bench * b, S2Result * S, const gchar * status,
                                const gchar * reason);
void     write_json            (Bench * b);
gboolean write_json_aborted    (gpointer bench, const gchar * why, gchar ** error);
/* parts of the scenarios' JSON objects */
void     json_structure        (JsonBuilder * jb, const gchar * key,
                                const GstStructure * st);
void     json_mode             (Bench * b, JsonBuilder * jb, const gchar * key,
                                ModeResult * m);
void     json_config_head      (JsonBuilder * jb, S2Config * c);
/* {"fps": m/ref, ...} of the medians, left open */
void     json_ratios           (JsonBuilder * jb, const gchar * key,
                                ModeResult * m, ModeResult * ref,
                                gboolean latency);

/* results.c: the element counters the modes check (a note per
 * mismatch); the bridge elements' (*path: which path ran) */
gboolean expect_stat          (const GstStructure * st, const gchar * field,
                               guint64 want, GString * note, const gchar * element);
gboolean expect_bridge_stats  (const GstStructure * st, const gchar * element,
                               guint total, guint waits, GString * note,
                               const gchar ** path);

/* Stops the run after a failure that leaves the GPU or its Vulkan device
 * in doubt: the raw reference (scenario 3 and 6 modes d, d_stall,
 * d_split) failed, or something reported VK_ERROR_DEVICE_LOST. @why goes
 * to the JSON's "aborted" (the first one is kept) and "complete" stays
 * false; runs in flight stop (BENCH_STOPPED), later configurations and
 * scenarios are skipped with the reason, and the exit status is 4. Any
 * thread. */
void     bench_abort           (Bench * b, const gchar * why);
gboolean bench_stopped         (Bench * b);
/* "aborted: <why>", for the failed scenario */
gchar *  bench_abort_reason    (Bench * b);
/* "not run: the run was aborted (<why>)", for what it skipped */
gchar *  bench_skip_reason     (Bench * b);
/* bench_abort () when @error says that the Vulkan device is lost; @where:
 * which run. TRUE when it did. */
gboolean bench_check_device_lost (Bench * b, const gchar * where,
                                const gchar * error);

/* how a run stopped by bench_abort () ends its error message */
#define BENCH_STOPPED "stopped: the run was aborted"
#define BENCH_EXIT_ABORTED 4

G_END_DECLS

/* gst-cudasync
 * Copyright (C) 2026 gst-cudasync developers
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * gst-cudasync-bench: the context every part of the bench is given (Bench),
 * the results it fills, and the scenarios' entry points. See
 * docs/benchmarks.md and main.c.
 */
#pragma once

#include <gst/gst.h>
#include <gst/cuda/gstcudaloader.h>
#include <gst/cuda/gstcudacontext.h>
#include <gst/cuda/cuda-gst.h>

#include "harness.h"

G_BEGIN_DECLS

#define S1_BATCH 128

/* ------------------------------------------------------------------ */
/* results                                                              */
/* ------------------------------------------------------------------ */

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
  N_MODES,
  /* scenario 2 diagnosis: variants of a (a and c run alongside) */
  MODE_A1 = N_MODES,
  MODE_A2,
  MODE_A_IF1,
  MODE_A_IF8,
  MODE_A4,
  /* scenario 3: CUDA -> Vulkan */
  MODE_CV_A,
  MODE_CV_B,
  MODE_CV_C,
  /* scenario 3: a with cudatovulkan timeline=false (binary semaphores) */
  MODE_CV_AB,
  /* scenario 4: Vulkan -> CUDA */
  MODE_VC_A,
  MODE_VC_B,
  /* scenario 3: the raw-API limit (no GStreamer) */
  MODE_CV_D,
  /* scenario 3: the raw-API limit with vulkandownload's per-frame stall */
  MODE_CV_D2,
  /* scenario 3: d_stall with the semaphore wait in a submission of its own
   * (the bridge's shape) */
  MODE_CV_D3,
  /* scenario 5: CUDA -> Vulkan -> CUDA stages */
  MODE_S5_A,
  MODE_S5_C,
  /* scenario 6: scenario 3 mode a, N pipelines at once */
  MODE_S6_A,
  /* scenario 6: a with the producer's memory carrying its stream (1.24+) */
  MODE_S6_AM,
  /* scenario 3: a with the producer writing into the pool cudatovulkan
   * proposes (frames written in place, 1.24+, one-plane formats) */
  MODE_CV_AI,
  N_ALL_MODES
};

extern const gchar *const mode_key[N_ALL_MODES];
extern const gchar *const mode_desc[N_ALL_MODES];
extern const gint s2_modes[2];
extern const gint s2d_modes[7];
extern const gint s3_modes[8];
extern const gint s4_modes[2];
extern const gint s5_modes[2];

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

/* scenario 6: the pipelines start their producers together */
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

/* the sections that share the frame harness (run_gpu_section) */
typedef enum
{
  SEC_2,                        /* scenario 2 */
  SEC_2D,                       /* scenario 2 diagnosis */
  SEC_3,                        /* CUDA -> Vulkan */
  SEC_4,                        /* Vulkan -> CUDA */
  SEC_5                         /* CUDA -> Vulkan -> CUDA stages */
} Section;

typedef struct
{
  gchar *status;
  gchar *reason;
  gchar *frame_writer;
  gchar *kernel_info;
  GPtrArray *configs;
  /* scenario 2 diagnosis, 3 and 4 */
  const gchar *key;
  const gchar *title;
  const gchar *latency;
  const gint *modes;
  guint n_modes;
  gint ref_mode;
  gint repetitions;
} S2Result;

/* scenario 2g */
enum
{
  G_KERNEL_Q4,                  /* kernel only, 4 queued */
  G_KERNEL_Q1,                  /* kernel only, one at a time */
  G_EVENT_Q4,                   /* + an extra cuEventRecord, 4 queued */
  G_SIGNAL_Q4,                  /* + timeline signal, 4 queued */
  G_SIGNAL_Q1,                  /* + timeline signal, one at a time */
  G_SIGNAL_Q8,                  /* + timeline signal, 8 queued */
  G_SIGNAL_SEP_Q4,              /* timeline signal on a second stream after
                                 * a cuStreamWaitEvent (EK), 4 queued */
  G_N
};

typedef struct
{
  gchar *status, *reason;
  guint frames, gpu_us;
  GArray *fps[G_N], *gap_us[G_N];
} S2gResult;

/* scenario 6 */
typedef struct
{
  guint n;                      /* pipelines at once */
  guint gpu_us;
  gint mode;                    /* MODE_S6_A, MODE_S6_AM, or a raw mode (d,
                                 * d_stall, d_split: instances) */
  gchar *status, *reason;
  GArray *agg_fps, *proc_cpu_us, *min_fps, *max_fps;
  S2Config *pipes;              /* n of them, mode @mode */
  gboolean stats_ok;
  gchar *stats_note;
  const gchar *path;
} S6Config;

typedef struct
{
  gchar *status, *reason, *frame_writer;
  gint repetitions;
  GPtrArray *configs;
} S6Result;

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
  S2Result s2d;                 /* scenario 2 diagnosis */
  S2gResult s2g;                /* GPU gap between frames */
  S2Result s3;                  /* CUDA -> Vulkan */
  S2Result s4;                  /* Vulkan -> CUDA */
  S2Result s5;                  /* CUDA -> Vulkan -> CUDA stages */
  S6Result s6;                  /* scaling */
} Results;

/* ------------------------------------------------------------------ */
/* the context                                                          */
/* ------------------------------------------------------------------ */

typedef unsigned (*SimCountFunc) (void);

typedef struct
{
  CUmodule module;
  CUfunction func;
  gboolean tried, ok;
  gchar *info;                  /* where it came from, or why there is none */
} BenchKernel;

typedef struct
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
} Bench;

/* results.c: the results' set-up and their JSON document */
void     results_init          (Bench * b);
void     mode_result_init      (ModeResult * m);
const gchar * s1_row_label     (guint row);
/* sets a results string under the lock */
void     set_str               (Bench * b, gchar ** field, const gchar * value);
void     sec_set               (Bench * b, S2Result * S, const gchar * status,
                                const gchar * reason);
void     write_json            (Bench * b);
gboolean write_json_aborted    (gpointer bench, const gchar * why, gchar ** error);

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

/* the scenarios */
gboolean run_scenario1         (Bench * b);
gboolean run_gpu_section       (Bench * b, S2Result * S, Section sec);
gboolean run_scenario2g        (Bench * b);
gboolean run_scenario6         (Bench * b);
void     json_s2g              (Bench * b, JsonBuilder * jb);
void     json_s6               (Bench * b, JsonBuilder * jb);

G_END_DECLS

/* gst-cudasync
 * Copyright (C) 2026 gst-cudasync developers
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The bench's harness: options, timing and CPU-time helpers, series of
 * measurements, the watchdog (time budget, stall detection) and JSON
 * output with json-glib. Nothing here knows CUDA or GStreamer pipelines.
 */
#pragma once

#include <glib.h>
#include <json-glib/json-glib.h>

G_BEGIN_DECLS

#define JSON_SCHEMA "gst-cudasync-bench/1"
#define STALL_LIMIT_S 20.0
#define HARD_LIMIT_EXTRA_S 20.0

typedef enum
{
  WRITER_AUTO,
  WRITER_KERNEL,
  WRITER_MEMSET,
} FrameWriter;

typedef struct
{
  gint repetitions;
  gboolean quick;
  gchar *json_path;
  guint only;                   /* bit n: scenario n; 0: all */
  FrameWriter writer;
  gint in_flight;
  gint frames;                  /* 0: depends on the GPU work */
  gint calls;                   /* scenario 1 calls per repetition */
  gdouble time_limit;
  gchar *child;                 /* --child=ID:ARGS (hidden): a scenario's
                                 * other process */
  gchar *command_line;
} BenchOptions;

/* Parses the command line into @opt (GStreamer's options included).
 * Returns 0, or the exit status for bad options (2, message printed). */
gint     bench_options_parse   (BenchOptions * opt, gint * argc, gchar *** argv);
gboolean bench_options_want    (const BenchOptions * opt, guint bit);

/* timing */
gdouble  mono_s                (void);
gdouble  thread_cpu_s          (void);
gdouble  process_cpu_s         (void);

/* series of doubles (GArray of gdouble) */
GArray * series_new            (void);
void     series_add            (GArray * s, gdouble v);
gdouble  series_median         (GArray * s);
gdouble  series_min            (GArray * s);
gdouble  series_percentile     (GArray * s, gdouble q);
gdouble  ratio                 (gdouble a, gdouble b);

/* The watchdog: aborts the program (exit status 3, after writing what it
 * has through @write_aborted) when it runs HARD_LIMIT_EXTRA_S past the
 * time limit, or when a run is active and nothing progressed for
 * STALL_LIMIT_S. @write_aborted is called with @lock held (taken with a
 * bounded trylock: the main thread may be stuck in a driver call). */
typedef gboolean (*BenchWriteAborted) (gpointer user_data, const gchar * why,
    gchar ** error);

typedef struct
{
  gint64 t_start;               /* g_get_monotonic_time at program start */
  gint64 progress_stamp;        /* ... of the last progress */
  gint run_active;
  gint finished;
  gdouble time_limit;
  GMutex *lock;
  BenchWriteAborted write_aborted;
  gpointer user_data;
  const gchar *json_path;
  GThread *thread;
} BenchWatchdog;

void     bench_watchdog_start  (BenchWatchdog * wd);
void     bench_watchdog_stop   (BenchWatchdog * wd);
/* a run made progress (and is active) */
void     bench_progress        (BenchWatchdog * wd);
/* the run is no longer active (no stall detection between runs) */
void     bench_run_idle        (BenchWatchdog * wd);
gdouble  bench_elapsed_s       (const BenchWatchdog * wd);
/* TRUE once the time limit is past: start no new configuration */
gboolean bench_time_is_up      (const BenchWatchdog * wd);

/* JSON building (JsonBuilder): @key NULL inside an array. Numbers are
 * written with 6 significant digits, NaN and infinities as null. */
void     jb_obj                (JsonBuilder * jb, const gchar * key);
void     jb_obj_end            (JsonBuilder * jb);
void     jb_arr                (JsonBuilder * jb, const gchar * key);
void     jb_arr_end            (JsonBuilder * jb);
void     jb_str                (JsonBuilder * jb, const gchar * key, const gchar * value);
void     jb_num                (JsonBuilder * jb, const gchar * key, gdouble value);
void     jb_int                (JsonBuilder * jb, const gchar * key, gint64 value);
void     jb_bool               (JsonBuilder * jb, const gchar * key, gboolean value);
/* {"min":..,"median":..,"max":..,"all":[..]} */
void     jb_series             (JsonBuilder * jb, const gchar * key, GArray * s);

/* Writes the builder's document to @path (pretty, through a temporary
 * file renamed over it). */
gboolean bench_json_write      (JsonBuilder * jb, const gchar * path, gchar ** error);

G_END_DECLS

/* gst-cudasync
 * Copyright (C) 2026 gst-cudasync developers
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * gst-cudasync-bench: measures what handing a CUDA frame over with external
 * semaphores costs, against a bare driver call and against the CPU
 * synchronised handoff upstream GStreamer uses. See docs/benchmarks.md.
 *
 * Scenario 1, signal overhead: CPU time per call on the calling thread of
 *   - a bare cuSignalExternalSemaphoresAsync loop (timeline semaphore),
 *   - gst_cuda_semaphore_signal() (what the element calls),
 *   - a gst_pad_push() loop through `identity` (GStreamer's own cost),
 *   - the same loop through `cudasemsignal`.
 *   Each is timed in batches (the GPU drains the queue between batches,
 *   outside the timed part) with CLOCK_THREAD_CPUTIME_ID.
 *
 * Scenario 2, GPU-produced frames: a producer thread writes each frame into
 * a GstCudaBufferPool buffer with a kernel (bench/spin.cu) that also keeps
 * the GPU busy for 0, 1 or 5 ms, then pushes it through
 * `cudasemsignal ! cudasemwait ! fakesink`:
 *   (a) the producer signals its own timeline semaphore on its stream and
 *       attaches that acquire point: no CPU wait anywhere;
 *   (c) the producer calls cuStreamSynchronize before pushing, and
 *       cudasemsignal runs with fallback=sync and no semaphore (what
 *       upstream GStreamer elements do).
 *   A recycler thread (not the streaming thread) waits for each frame's
 *   end event before the buffer goes back to the pool, which bounds the
 *   frames in flight to the pool size. Latency: CUDA events recorded before
 *   the producer's kernel (producer stream) and after cudasemwait (legacy
 *   default stream, where cudasemwait waits).
 *
 * Every scenario repeats R times; min and median over the repetitions are
 * reported, and the ratios are computed from the same run. The results go
 * to a table on stdout and to a JSON file, rewritten after each step so that
 * an interrupted run still leaves the finished parts.
 *
 * Needs GST_PLUGIN_PATH pointing at the build's gst/plugin folder;
 * bench/run.sh sets everything up.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <dlfcn.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include <gst/gst.h>
#include <gst/video/video.h>
#include <gst/cuda/gstcudacontext.h>
#include <gst/cuda/gstcudaloader.h>
#include <gst/cuda/gstcudautils.h>
#include <gst/cuda/gstcudamemory.h>
#include <gst/cuda/gstcudabufferpool.h>
#include <gst/cuda/cuda-gst.h>
#include <gst/cudasync/cudasync.h>

#ifdef HAVE_CUDA_VULKAN
#include <gst/vulkan/vulkan.h>
#else
/* built without gstreamer-vulkan (e.g. a distribution that does not ship
 * it): the Vulkan scenarios build, and are skipped at run time when the
 * elements are missing */
#define GST_CAPS_FEATURE_MEMORY_VULKAN_IMAGE "memory:VulkanImage"
#endif

#include "testsem.h"
#include "bench-kernel.h"

#define JSON_SCHEMA "gst-cudasync-bench/1"
#define S1_BATCH 128
#define STALL_LIMIT_S 20.0
#define HARD_LIMIT_EXTRA_S 20.0

/* ------------------------------------------------------------------ */
/* options                                                              */
/* ------------------------------------------------------------------ */

typedef enum
{
  WRITER_AUTO,
  WRITER_KERNEL,
  WRITER_MEMSET,
} FrameWriter;

static struct
{
  gint repetitions;
  gboolean quick;
  gchar *json_path;
  guint only;                   /* bit n: scenario n; 0: all */
  FrameWriter writer;
  gchar *kernel_source;         /* auto, fatbin, nvrtc */
  gint in_flight;
  gint frames;                  /* 0: depends on the GPU work */
  gint calls;                   /* scenario 1 calls per repetition */
  gdouble time_limit;
  gchar *command_line;
} opt;

/* ------------------------------------------------------------------ */
/* driver entry points                                                  */
/* ------------------------------------------------------------------ */

/* Resolved with dlsym from the libcuda.so.1 libgstcuda loaded, under the
 * names cuda.h maps them to (cuEventDestroy -> cuEventDestroy_v2, ...). */
#define BENCH_DECL_FN(name) __typeof__ (name) * name
static struct
{
  BENCH_DECL_FN (cuGetErrorName);
  BENCH_DECL_FN (cuCtxSynchronize);
  BENCH_DECL_FN (cuStreamCreate);
  BENCH_DECL_FN (cuStreamDestroy);
  BENCH_DECL_FN (cuStreamSynchronize);
  BENCH_DECL_FN (cuEventCreate);
  BENCH_DECL_FN (cuEventRecord);
  BENCH_DECL_FN (cuEventSynchronize);
  BENCH_DECL_FN (cuEventQuery);
  BENCH_DECL_FN (cuStreamWaitEvent);
  BENCH_DECL_FN (cuEventDestroy);
  BENCH_DECL_FN (cuEventElapsedTime);
  BENCH_DECL_FN (cuImportExternalSemaphore);
  BENCH_DECL_FN (cuSignalExternalSemaphoresAsync);
  BENCH_DECL_FN (cuDestroyExternalSemaphore);
  BENCH_DECL_FN (cuMemsetD32Async);
  BENCH_DECL_FN (cuDeviceGet);
  BENCH_DECL_FN (cuDeviceGetAttribute);
  BENCH_DECL_FN (cuDeviceGetName);
  BENCH_DECL_FN (cuDriverGetVersion);
  /* scenario 3 mode d (the raw-API path) */
  BENCH_DECL_FN (cuMemAlloc);
  BENCH_DECL_FN (cuMemFree);
  BENCH_DECL_FN (cuMemcpy2DAsync);
  BENCH_DECL_FN (cuImportExternalMemory);
  BENCH_DECL_FN (cuExternalMemoryGetMappedBuffer);
  BENCH_DECL_FN (cuDestroyExternalMemory);
  /* optional */
  BENCH_DECL_FN (cuCtxGetFlags);
  CUresult (*cuDeviceGetUuid) (CUuuid * uuid, CUdevice dev);
} drv;

typedef unsigned (*SimCountFunc) (void);
static SimCountFunc sim_thread_cpu_syncs = NULL;
static gboolean is_sim = FALSE;

static GstCudaContext *ctx = NULL;
static gint64 t_program_start;

/* ------------------------------------------------------------------ */
/* small helpers                                                        */
/* ------------------------------------------------------------------ */

static gdouble
mono_s (void)
{
  return g_get_monotonic_time () / 1e6;
}

static gdouble
thread_cpu_s (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_THREAD_CPUTIME_ID, &ts);
  return ts.tv_sec + ts.tv_nsec / 1e9;
}

static gdouble
process_cpu_s (void)
{
  struct rusage ru;

  getrusage (RUSAGE_SELF, &ru);
  return ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 +
      ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
}

static const gchar *
cu_name (CUresult r)
{
  const char *name = NULL;

  if (drv.cuGetErrorName && drv.cuGetErrorName (r, &name) == CUDA_SUCCESS
      && name)
    return name;
  return "CUDA_ERROR_?";
}

static gchar *
cu_error (const gchar * call, CUresult r)
{
  return g_strdup_printf ("%s failed: %s (%d)", call, cu_name (r), (gint) r);
}

static gint
cmp_double (gconstpointer a, gconstpointer b)
{
  gdouble x = *(const gdouble *) a, y = *(const gdouble *) b;

  return x < y ? -1 : x > y ? 1 : 0;
}

static GArray *
series_new (void)
{
  return g_array_new (FALSE, FALSE, sizeof (gdouble));
}

static void
series_add (GArray * s, gdouble v)
{
  g_array_append_val (s, v);
}

static GArray *
series_sorted (GArray * s)
{
  GArray *c = g_array_sized_new (FALSE, FALSE, sizeof (gdouble), s->len);

  g_array_append_vals (c, s->data, s->len);
  g_array_sort (c, cmp_double);
  return c;
}

static gdouble
series_median (GArray * s)
{
  GArray *c;
  gdouble m;

  if (!s || s->len == 0)
    return NAN;
  c = series_sorted (s);
  if (c->len % 2)
    m = g_array_index (c, gdouble, c->len / 2);
  else
    m = (g_array_index (c, gdouble, c->len / 2 - 1) +
        g_array_index (c, gdouble, c->len / 2)) / 2;
  g_array_unref (c);
  return m;
}

static gdouble
series_min (GArray * s)
{
  gdouble m = NAN;
  guint i;

  for (i = 0; s && i < s->len; i++)
    if (i == 0 || g_array_index (s, gdouble, i) < m)
      m = g_array_index (s, gdouble, i);
  return m;
}

static gdouble
series_max (GArray * s)
{
  gdouble m = NAN;
  guint i;

  for (i = 0; s && i < s->len; i++)
    if (i == 0 || g_array_index (s, gdouble, i) > m)
      m = g_array_index (s, gdouble, i);
  return m;
}

/* nearest-rank percentile */
static gdouble
series_percentile (GArray * s, gdouble q)
{
  GArray *c;
  gdouble v;
  guint idx;

  if (!s || s->len == 0)
    return NAN;
  c = series_sorted (s);
  idx = (guint) ceil (q * c->len);
  idx = CLAMP (idx, 1, c->len) - 1;
  v = g_array_index (c, gdouble, idx);
  g_array_unref (c);
  return v;
}

static gdouble
ratio (gdouble a, gdouble b)
{
  if (isnan (a) || isnan (b) || b == 0)
    return NAN;
  return a / b;
}

/* ------------------------------------------------------------------ */
/* JSON writer                                                          */
/* ------------------------------------------------------------------ */

typedef struct
{
  GString *s;
  gint depth;
  gboolean first[64];
} JW;

static void
jw_newline (JW * w)
{
  gint i;

  g_string_append_c (w->s, '\n');
  for (i = 0; i < w->depth; i++)
    g_string_append (w->s, "  ");
}

static void
jw_string_literal (JW * w, const gchar * str)
{
  const guchar *p;

  g_string_append_c (w->s, '"');
  for (p = (const guchar *) str; *p; p++) {
    switch (*p) {
      case '"':
        g_string_append (w->s, "\\\"");
        break;
      case '\\':
        g_string_append (w->s, "\\\\");
        break;
      case '\n':
        g_string_append (w->s, "\\n");
        break;
      case '\t':
        g_string_append (w->s, "\\t");
        break;
      case '\r':
        g_string_append (w->s, "\\r");
        break;
      default:
        if (*p < 0x20)
          g_string_append_printf (w->s, "\\u%04x", *p);
        else
          g_string_append_c (w->s, *p);
    }
  }
  g_string_append_c (w->s, '"');
}

/* separator and key of the next value */
static void
jw_key (JW * w, const gchar * key)
{
  if (!w->first[w->depth])
    g_string_append_c (w->s, ',');
  w->first[w->depth] = FALSE;
  if (w->depth > 0)
    jw_newline (w);
  if (key) {
    jw_string_literal (w, key);
    g_string_append (w->s, ": ");
  }
}

static void
jw_open (JW * w, const gchar * key, gchar bracket)
{
  jw_key (w, key);
  g_string_append_c (w->s, bracket);
  w->depth++;
  g_assert (w->depth < (gint) G_N_ELEMENTS (w->first));
  w->first[w->depth] = TRUE;
}

static void
jw_close (JW * w, gchar bracket)
{
  gboolean empty = w->first[w->depth];

  w->depth--;
  if (!empty)
    jw_newline (w);
  g_string_append_c (w->s, bracket);
}

#define jw_obj(w, key) jw_open ((w), (key), '{')
#define jw_obj_end(w) jw_close ((w), '}')
#define jw_arr(w, key) jw_open ((w), (key), '[')
#define jw_arr_end(w) jw_close ((w), ']')

static void
jw_str (JW * w, const gchar * key, const gchar * value)
{
  jw_key (w, key);
  if (value)
    jw_string_literal (w, value);
  else
    g_string_append (w->s, "null");
}

static void
jw_num (JW * w, const gchar * key, gdouble value)
{
  jw_key (w, key);
  if (isnan (value) || isinf (value)) {
    g_string_append (w->s, "null");
  } else {
    gchar buf[G_ASCII_DTOSTR_BUF_SIZE];
    g_string_append (w->s, g_ascii_formatd (buf, sizeof (buf), "%.6g",
            value));
  }
}

static void
jw_int (JW * w, const gchar * key, gint64 value)
{
  jw_key (w, key);
  g_string_append_printf (w->s, "%" G_GINT64_FORMAT, value);
}

static void
jw_bool (JW * w, const gchar * key, gboolean value)
{
  jw_key (w, key);
  g_string_append (w->s, value ? "true" : "false");
}

/* {"min":..,"median":..,"max":..,"all":[..]} */
static void
jw_series (JW * w, const gchar * key, GArray * s)
{
  guint i;

  jw_obj (w, key);
  jw_num (w, "min", series_min (s));
  jw_num (w, "median", series_median (s));
  jw_num (w, "max", series_max (s));
  jw_arr (w, "all");
  for (i = 0; s && i < s->len; i++)
    jw_num (w, NULL, g_array_index (s, gdouble, i));
  jw_arr_end (w);
  jw_obj_end (w);
}

static gboolean
jw_structure_field (GQuark field, const GValue * value, gpointer user_data)
{
  JW *w = user_data;
  const gchar *name = g_quark_to_string (field);

  if (G_VALUE_HOLDS_UINT64 (value))
    jw_int (w, name, (gint64) g_value_get_uint64 (value));
  else if (G_VALUE_HOLDS_INT (value))
    jw_int (w, name, g_value_get_int (value));
  else if (G_VALUE_HOLDS_UINT (value))
    jw_int (w, name, g_value_get_uint (value));
  else {
    gchar *str = gst_value_serialize (value);
    jw_str (w, name, str);
    g_free (str);
  }
  return TRUE;
}

static void
jw_structure (JW * w, const gchar * key, const GstStructure * st)
{
  if (!st) {
    jw_str (w, key, NULL);
    return;
  }
  jw_obj (w, key);
  gst_structure_foreach (st, jw_structure_field, w);
  jw_obj_end (w);
}

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

static const struct
{
  const gchar *key;
  const gchar *label;
} s1_row_names[S1_N_ROWS] = {
  {"bare", "bare cuSignalExternalSemaphoresAsync"},
  {"library", "gst_cuda_semaphore_signal()"},
  {"identity", "gst_pad_push through identity"},
  {"cudasemsignal", "gst_pad_push through cudasemsignal"},
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
  /* scenario 4: Vulkan -> CUDA */
  MODE_VC_A,
  MODE_VC_B,
  /* scenario 3: the raw-API limit (no GStreamer) */
  MODE_CV_D,
  /* scenario 3: the raw-API limit with vulkandownload's per-frame stall */
  MODE_CV_D2,
  /* scenario 5: CUDA -> Vulkan -> CUDA stages */
  MODE_S5_A,
  MODE_S5_C,
  /* scenario 6: scenario 3 mode a, N pipelines at once */
  MODE_S6_A,
  N_ALL_MODES
};

static const gchar *const mode_key[N_ALL_MODES] = { "a", "c", "a1", "a2",
  "a3_in_flight_1", "a3_in_flight_8", "a4_poll", "a", "b", "c", "a", "b", "d", "d_stall", "a", "c",
  "a"
};

static const gchar *const mode_desc[N_ALL_MODES] = {
  "GPU handoff: producer acquire point, cudasemsignal and cudasemwait wait "
      "and signal on the GPU",
  "CPU-synchronised handoff: producer cuStreamSynchronize before pushing, "
      "cudasemsignal fallback=sync without a semaphore",
  "a without cudasemwait: producer acquire point -> cudasemsignal "
      "(semaphore property) ! fakesink; the bench's consumer waits for "
      "cudasemsignal's acquire point on its own NON-BLOCKING stream and "
      "records the end event there: nothing on the legacy default stream",
  "a without cudasemsignal: producer acquire point -> cudasemwait ! "
      "fakesink; cudasemwait waits for the producer's point on the legacy "
      "default stream, the end event is recorded there (as in a)",
  "a with 1 frame in flight (pool of 1 buffer)",
  "a with 8 frames in flight (pool of 8 buffers)",
  "a with the recycler polling the end event (cuEventQuery, 20 us sleeps) "
      "instead of blocking in cuEventSynchronize on a blocking-sync event",
  "this project: producer acquire point -> cudatovulkan ! queue ! "
      "vulkandownload ! fakesink (no CPU wait before vulkandownload)",
  "upstream today: producer cuStreamSynchronize -> cudadownload ! "
      "vulkanupload ! queue ! vulkandownload ! fakesink",
  "bridge CPU-synchronised (emulated; the element has no property for it): "
      "producer cuStreamSynchronize, no acquire point -> cudatovulkan, whose "
      "src pad probe calls cuCtxSynchronize (the CPU wait for the element's "
      "copy that its fallback does before the Vulkan submission) ! queue ! "
      "vulkandownload ! fakesink; cudatovulkan still signals its semaphore, "
      "which the Vulkan side then finds already signalled",
  "this project: system-memory frame -> vulkanupload ! vulkantocuda ! "
      "fakesink; the consumer records an event on the legacy default stream",
  "upstream today: system-memory frame -> vulkanupload ! vulkandownload ! "
      "cudaupload ! fakesink; the consumer records an event on the legacy "
      "default stream",
  "raw-API limit, no GStreamer: the producer thread writes the frame "
      "(same kernel, own CUDA allocation), cuMemcpy2DAsync into exportable "
      "linear Vulkan images (dedicated allocations imported into CUDA) on "
      "the same stream, cuSignalExternalSemaphoresAsync of the slot's "
      "binary semaphore exported by Vulkan, vkQueueSubmit of a pre-recorded "
      "command buffer that waits on it and copies the images into a "
      "host-visible buffer (what vulkandownload does); a consumer thread "
      "waits for the slot's VkFence, checks a few words of the frame and "
      "frees the slot (slots = frames in flight, as a). Without exportable "
      "semaphores: cuStreamSynchronize before the submission (CPU fallback, "
      "not the limit)",
  "raw-API limit with the consumer of a: as d, but the consumer thread "
      "submits each frame's copy (waiting on the semaphore) and waits for "
      "its fence before taking the next frame, one at a time, as GStreamer "
      "1.22's vulkandownload does on its queue thread (\"XXX: STALL!\"): "
      "the limit of a's pipeline shape, without GStreamer and the bridge",
  "GPU handoffs: producer acquire point -> cudatovulkan ! queue ! "
      "vulkancolorconvert ! capsfilter(BGRA) ! queue ! vulkantocuda ! queue ! fakesink; the "
      "CUDA consumer records an event on the legacy default stream",
  "CPU-synchronised handoffs (emulated): producer cuStreamSynchronize, no "
      "acquire point; cuCtxSynchronize on cudatovulkan's src pad (CPU wait "
      "for its copy); vkQueueWaitIdle of the elements' queue on "
      "vulkantocuda's sink pad (CPU wait for the Vulkan stage); the "
      "elements still run their GPU path, whose waits find their "
      "semaphores already signalled",
  "scenario 3 mode a (producer acquire point -> cudatovulkan ! queue ! "
      "vulkandownload ! fakesink), one of N pipelines running at once on "
      "the shared Vulkan device",
};

static const gint s2_modes[] = { MODE_A, MODE_C };
static const gint s2d_modes[] = { MODE_A, MODE_C, MODE_A1, MODE_A2,
  MODE_A_IF1, MODE_A_IF8, MODE_A4
};
static const gint s3_modes[] = { MODE_CV_A, MODE_CV_B, MODE_CV_C, MODE_CV_D,
  MODE_CV_D2
};
static const gint s5_modes[] = { MODE_S5_A, MODE_S5_C };
static const gint s4_modes[] = { MODE_VC_A, MODE_VC_B };

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

static struct
{
  GMutex lock;
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
  gchar *vulkan;                /* the Vulkan device for scenarios 3, 4 */
  S1Result s1;
  S2Result s2;
  S2Result s2d;                 /* scenario 2 diagnosis */
  S2Result s3;                  /* CUDA -> Vulkan */
  S2Result s4;                  /* Vulkan -> CUDA */
  S2Result s5;                  /* CUDA -> Vulkan -> CUDA stages */
  struct S6Result *s6;          /* scaling */
} R;

static void
mode_result_init (ModeResult * m)
{
  m->status = g_strdup ("not run");
  m->stats_name[0] = "cudasemsignal";
  m->stats_name[1] = "cudasemwait";
  m->fps = series_new ();
  m->proc_cpu_us = series_new ();
  m->prod_cpu_us = series_new ();
  m->lat_p50_us = series_new ();
  m->lat_p99_us = series_new ();
  m->kernel_us = series_new ();
  m->sim_syncs = series_new ();
  m->stats_ok = TRUE;
}

static void
set_str (gchar ** field, const gchar * value)
{
  g_mutex_lock (&R.lock);
  g_free (*field);
  *field = g_strdup (value);
  g_mutex_unlock (&R.lock);
}

/* ------------------------------------------------------------------ */
/* JSON document                                                        */
/* ------------------------------------------------------------------ */

static const gchar *
sched_name (gint flags)
{
  if (flags < 0)
    return NULL;
  switch (flags & CU_CTX_SCHED_MASK) {
    case CU_CTX_SCHED_AUTO:
      return "auto";
    case CU_CTX_SCHED_SPIN:
      return "spin";
    case CU_CTX_SCHED_YIELD:
      return "yield";
    case CU_CTX_SCHED_BLOCKING_SYNC:
      return "blocking-sync";
  }
  return "?";
}

static void
json_mode (JW * w, const gchar * key, ModeResult * m)
{
  jw_obj (w, key);
  jw_str (w, "status", m->status);
  jw_str (w, "error", m->error);
  jw_int (w, "frames_per_repetition", m->frames);
  jw_int (w, "warmup_frames", m->warmup);
  jw_series (w, "fps", m->fps);
  jw_series (w, "process_cpu_us_per_frame", m->proc_cpu_us);
  jw_series (w, "producer_thread_cpu_us_per_frame", m->prod_cpu_us);
  jw_series (w, "latency_p50_us", m->lat_p50_us);
  jw_series (w, "latency_p99_us", m->lat_p99_us);
  jw_series (w, "frame_write_gpu_us_median", m->kernel_us);
  if (is_sim)
    jw_series (w, "sim_producer_thread_cpu_syncs_per_frame", m->sim_syncs);
  if (m->stats_name[0]) {
    gchar *k = g_strdup_printf ("%s_stats", m->stats_name[0]);
    jw_structure (w, k, m->sig_stats);
    g_free (k);
  }
  if (m->stats_name[1]) {
    gchar *k = g_strdup_printf ("%s_stats", m->stats_name[1]);
    jw_structure (w, k, m->wait_stats);
    g_free (k);
  }
  if (m->in_flight)
    jw_int (w, "frames_in_flight", m->in_flight);
  if (m->path)
    jw_str (w, "bridge_path", m->path);
  jw_bool (w, "element_stats_as_expected", m->stats_ok);
  jw_str (w, "element_stats_note", m->stats_note);
  jw_obj_end (w);
}

/* scenario 2 diagnosis, 3, 4 */
static void
json_section (JW * w, S2Result * S)
{
  guint i, j, k;

  jw_obj (w, S->key);
  jw_str (w, "status", S->status);
  jw_str (w, "reason", S->reason);
  jw_str (w, "what", S->title);
  jw_int (w, "repetitions", S->repetitions);
  jw_str (w, "frame_writer", S->frame_writer);
  jw_obj (w, "modes");
  for (j = 0; j < S->n_modes; j++)
    jw_str (w, mode_key[S->modes[j]], mode_desc[S->modes[j]]);
  jw_obj_end (w);
  jw_str (w, "latency", S->latency);
  jw_arr (w, "configs");
  for (i = 0; S->configs && i < S->configs->len; i++) {
    S2Config *c = g_ptr_array_index (S->configs, i);
    gchar *rk;

    jw_obj (w, NULL);
    jw_int (w, "width", c->width);
    jw_int (w, "height", c->height);
    jw_str (w, "format", c->format);
    jw_num (w, "gpu_work_ms", c->gpu_us / 1000.0);
    jw_str (w, "status", c->status);
    jw_str (w, "reason", c->reason);
    jw_obj (w, "modes");
    for (j = 0; j < c->n_modes; j++)
      json_mode (w, mode_key[c->modes[j]], &c->m[c->modes[j]]);
    jw_obj_end (w);
    rk = g_strdup_printf ("ratios_over_%s_median", mode_key[c->ref_mode]);
    jw_obj (w, rk);
    g_free (rk);
    for (j = 0; j < c->n_modes; j++) {
      ModeResult *m = &c->m[c->modes[j]], *ref = &c->m[c->ref_mode];
      struct
      {
        const gchar *key;
        GArray *a, *b;
      } f[] = {
        {"fps", m->fps, ref->fps},
        {"process_cpu_per_frame", m->proc_cpu_us, ref->proc_cpu_us},
        {"producer_thread_cpu_per_frame", m->prod_cpu_us, ref->prod_cpu_us},
        {"latency_p50", m->lat_p50_us, ref->lat_p50_us},
      };

      if (c->modes[j] == c->ref_mode)
        continue;
      jw_obj (w, mode_key[c->modes[j]]);
      for (k = 0; k < G_N_ELEMENTS (f); k++)
        jw_num (w, f[k].key, ratio (series_median (f[k].a),
                series_median (f[k].b)));
      jw_obj_end (w);
    }
    jw_obj_end (w);
    if (c->modes == s3_modes) {
      /* the issue's target: a >= 0.9 d */
      ModeResult *a = &c->m[MODE_CV_A], *d = &c->m[MODE_CV_D];

      jw_obj (w, "ratios_a_over_d_median");
      jw_num (w, "fps", ratio (series_median (a->fps),
              series_median (d->fps)));
      jw_num (w, "process_cpu_per_frame", ratio (series_median
              (a->proc_cpu_us), series_median (d->proc_cpu_us)));
      jw_num (w, "producer_thread_cpu_per_frame", ratio (series_median
              (a->prod_cpu_us), series_median (d->prod_cpu_us)));
      jw_num (w, "target_fps", 0.9);
      jw_str (w, "d_path", d->path);
      jw_obj_end (w);
      d = &c->m[MODE_CV_D2];
      jw_obj (w, "ratios_a_over_d_stall_median");
      jw_num (w, "fps", ratio (series_median (a->fps),
              series_median (d->fps)));
      jw_num (w, "process_cpu_per_frame", ratio (series_median
              (a->proc_cpu_us), series_median (d->proc_cpu_us)));
      jw_obj_end (w);
    }
    jw_obj_end (w);
  }
  jw_arr_end (w);
  jw_obj_end (w);
}

static void json_s6 (JW * w);
static void json_s2g (JW * w);

static gchar *
json_document (void)
{
  JW w = { g_string_new (NULL), 0, {TRUE,} };
  guint i, j;

  jw_obj (&w, NULL);
  jw_str (&w, "schema", JSON_SCHEMA);
  jw_bool (&w, "complete", R.complete);
  jw_str (&w, "aborted", R.aborted);
  jw_str (&w, "fatal_error", R.fatal);
  jw_str (&w, "started", R.started);
  jw_num (&w, "elapsed_s", mono_s () - t_program_start / 1e6);
  jw_str (&w, "command", opt.command_line);

  jw_obj (&w, "options");
  jw_int (&w, "repetitions", opt.repetitions);
  jw_bool (&w, "quick", opt.quick);
  jw_int (&w, "frames_in_flight", opt.in_flight);
  jw_int (&w, "frames", opt.frames);
  jw_num (&w, "time_limit_s", opt.time_limit);
  jw_obj_end (&w);

  jw_obj (&w, "environment");
  jw_str (&w, "driver", R.driver);
  jw_bool (&w, "simulated", is_sim);
  jw_str (&w, "device", R.device);
  if (R.cc_major > 0) {
    gchar *cc = g_strdup_printf ("%d.%d", R.cc_major, R.cc_minor);
    jw_str (&w, "compute_capability", cc);
    g_free (cc);
  } else {
    jw_str (&w, "compute_capability", NULL);
  }
  jw_int (&w, "multiprocessors", R.sm_count);
  jw_int (&w, "cuda_driver_api_version", R.driver_version);
  jw_str (&w, "cuda_context_scheduling", sched_name (R.ctx_flags));
  jw_str (&w, "semaphores", R.semaphores);
  jw_str (&w, "vulkan_device", R.vulkan);
  {
    gchar *v = gst_version_string ();
    jw_str (&w, "gstreamer", v);
    g_free (v);
  }
  jw_int (&w, "online_cpus", sysconf (_SC_NPROCESSORS_ONLN));
  jw_str (&w, "kernel_build", bench_kernel_build_info);
  jw_obj_end (&w);

  /* scenario 1 */
  jw_obj (&w, "scenario1_signal_overhead");
  jw_str (&w, "status", R.s1.status);
  jw_str (&w, "reason", R.s1.reason);
  jw_str (&w, "measures", "CPU time per call on the calling thread "
      "(CLOCK_THREAD_CPUTIME_ID), in batches; the GPU drains between "
      "batches outside the timed part");
  jw_int (&w, "calls_per_repetition", R.s1.calls);
  jw_int (&w, "batch", R.s1.batch);
  jw_obj (&w, "rows");
  for (i = 0; i < S1_N_ROWS; i++) {
    jw_obj (&w, s1_row_names[i].key);
    jw_str (&w, "what", s1_row_names[i].label);
    jw_series (&w, "cpu_ns_per_call", R.s1.cpu_ns[i]);
    jw_series (&w, "wall_ns_per_call", R.s1.wall_ns[i]);
    jw_obj_end (&w);
  }
  jw_obj_end (&w);
  jw_obj (&w, "ratios");
  {
    GArray **c = R.s1.cpu_ns;
    jw_num (&w, "cudasemsignal_over_bare_median",
        ratio (series_median (c[S1_CUDASEMSIGNAL]), series_median (c[S1_BARE])));
    jw_num (&w, "cudasemsignal_over_bare_min",
        ratio (series_min (c[S1_CUDASEMSIGNAL]), series_min (c[S1_BARE])));
    jw_num (&w, "cudasemsignal_minus_identity_over_bare_median",
        ratio (series_median (c[S1_CUDASEMSIGNAL]) -
            series_median (c[S1_IDENTITY]), series_median (c[S1_BARE])));
    jw_num (&w, "cudasemsignal_minus_identity_over_bare_min",
        ratio (series_min (c[S1_CUDASEMSIGNAL]) - series_min (c[S1_IDENTITY]),
            series_min (c[S1_BARE])));
    jw_num (&w, "library_over_bare_median",
        ratio (series_median (c[S1_LIBRARY]), series_median (c[S1_BARE])));
    jw_num (&w, "target_cudasemsignal_minus_identity_over_bare", 2.0);
  }
  jw_obj_end (&w);
  jw_structure (&w, "cudasemsignal_stats", R.s1.sig_stats);
  jw_obj_end (&w);

  /* scenario 2 */
  jw_obj (&w, "scenario2_gpu_frames");
  jw_str (&w, "status", R.s2.status);
  jw_str (&w, "reason", R.s2.reason);
  jw_str (&w, "frame_writer", R.s2.frame_writer);
  jw_str (&w, "kernel", R.s2.kernel_info);
  jw_str (&w, "pipeline", "producer thread (pad push) ! cudasemsignal ! "
      "cudasemwait ! fakesink sync=false");
  jw_obj (&w, "modes");
  for (j = 0; j < N_MODES; j++)
    jw_str (&w, mode_key[j], mode_desc[j]);
  jw_obj_end (&w);
  jw_str (&w, "latency", "GPU time from an event recorded on the producer's "
      "stream just before its kernel to an event recorded on the legacy "
      "default stream after cudasemwait");
  jw_arr (&w, "configs");
  for (i = 0; R.s2.configs && i < R.s2.configs->len; i++) {
    S2Config *c = g_ptr_array_index (R.s2.configs, i);

    jw_obj (&w, NULL);
    jw_int (&w, "width", c->width);
    jw_int (&w, "height", c->height);
    jw_str (&w, "format", c->format);
    jw_num (&w, "gpu_work_ms", c->gpu_us / 1000.0);
    jw_str (&w, "status", c->status);
    jw_str (&w, "reason", c->reason);
    jw_obj (&w, "modes");
    for (j = 0; j < N_MODES; j++)
      json_mode (&w, mode_key[j], &c->m[j]);
    jw_obj_end (&w);
    jw_obj (&w, "ratios_a_over_c_median");
    jw_num (&w, "fps", ratio (series_median (c->m[MODE_A].fps),
            series_median (c->m[MODE_C].fps)));
    jw_num (&w, "process_cpu_per_frame",
        ratio (series_median (c->m[MODE_A].proc_cpu_us),
            series_median (c->m[MODE_C].proc_cpu_us)));
    jw_num (&w, "producer_thread_cpu_per_frame",
        ratio (series_median (c->m[MODE_A].prod_cpu_us),
            series_median (c->m[MODE_C].prod_cpu_us)));
    jw_num (&w, "latency_p50", ratio (series_median (c->m[MODE_A].lat_p50_us),
            series_median (c->m[MODE_C].lat_p50_us)));
    jw_num (&w, "latency_p99", ratio (series_median (c->m[MODE_A].lat_p99_us),
            series_median (c->m[MODE_C].lat_p99_us)));
    jw_obj_end (&w);
    jw_obj_end (&w);
  }
  jw_arr_end (&w);
  jw_obj_end (&w);

  json_section (&w, &R.s2d);
  json_s2g (&w);
  json_section (&w, &R.s3);
  json_section (&w, &R.s4);
  json_section (&w, &R.s5);
  json_s6 (&w);

  jw_obj_end (&w);
  g_string_append_c (w.s, '\n');
  return g_string_free (w.s, FALSE);
}

/* Call with R.lock held. */
static gboolean
write_json_locked (gchar ** error)
{
  gchar *doc = json_document ();
  gchar *tmp = g_strdup_printf ("%s.tmp", opt.json_path);
  GError *err = NULL;
  gboolean ok;

  ok = g_file_set_contents (tmp, doc, -1, &err);
  if (ok && rename (tmp, opt.json_path) != 0) {
    ok = FALSE;
    if (error)
      *error = g_strdup_printf ("rename %s: %s", tmp, g_strerror (errno));
  } else if (!ok && error) {
    *error = g_strdup (err->message);
  }
  g_clear_error (&err);
  g_free (tmp);
  g_free (doc);
  return ok;
}

static void
write_json (void)
{
  gchar *error = NULL;

  g_mutex_lock (&R.lock);
  if (!write_json_locked (&error)) {
    g_printerr ("bench: could not write %s: %s\n", opt.json_path, error);
    g_free (error);
  }
  g_mutex_unlock (&R.lock);
}

/* ------------------------------------------------------------------ */
/* watchdog                                                             */
/* ------------------------------------------------------------------ */

static gint64 progress_stamp;   /* g_get_monotonic_time of the last progress */
static gint run_active;
static gint finished;

static void
progress (void)
{
  g_atomic_int_set (&run_active, 1);
  /* 64-bit store; a torn read only delays the watchdog by one period */
  progress_stamp = g_get_monotonic_time ();
}

static void
emergency_exit (const gchar * why)
{
  gint i;

  g_printerr ("bench: ABORTED: %s\n", why);
  /* the main thread may be stuck in a driver call: do not wait for it long */
  for (i = 0; i < 40; i++) {
    if (g_mutex_trylock (&R.lock)) {
      gchar *error = NULL;
      g_free (R.aborted);
      R.aborted = g_strdup (why);
      R.complete = FALSE;
      if (write_json_locked (&error))
        g_printerr ("bench: partial results written to %s\n", opt.json_path);
      else
        g_printerr ("bench: could not write %s: %s\n", opt.json_path, error);
      break;
    }
    g_usleep (50 * 1000);
  }
  fflush (stdout);
  fflush (stderr);
  _exit (3);
}

static gpointer
watchdog_thread (gpointer data)
{
  gdouble hard = opt.time_limit + HARD_LIMIT_EXTRA_S;

  for (;;) {
    gdouble now = g_get_monotonic_time () / 1e6;

    g_usleep (250 * 1000);
    if (g_atomic_int_get (&finished))
      return NULL;
    if (now - t_program_start / 1e6 > hard) {
      gchar *why = g_strdup_printf ("still running after %.0f s (time limit "
          "%.0f s + %.0f s)", now - t_program_start / 1e6, opt.time_limit,
          HARD_LIMIT_EXTRA_S);
      emergency_exit (why);
    }
    if (g_atomic_int_get (&run_active) &&
        now - progress_stamp / 1e6 > STALL_LIMIT_S) {
      gchar *why = g_strdup_printf ("no progress for %.0f s: a GPU wait or "
          "the pipeline is stuck", STALL_LIMIT_S);
      emergency_exit (why);
    }
  }
  return NULL;
}

/* ------------------------------------------------------------------ */
/* set-up                                                               */
/* ------------------------------------------------------------------ */

static gboolean
load_driver_symbols (gchar ** error)
{
  void *lib = dlopen ("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  const gchar *missing = NULL;

  if (!lib) {
    *error = g_strdup_printf ("dlopen libcuda.so.1: %s", dlerror ());
    return FALSE;
  }
#define LOAD(name) G_STMT_START { \
    drv.name = dlsym (lib, G_STRINGIFY (name)); \
    if (!drv.name && !missing) missing = G_STRINGIFY (name); \
  } G_STMT_END
  LOAD (cuGetErrorName);
  LOAD (cuCtxSynchronize);
  LOAD (cuStreamCreate);
  LOAD (cuStreamDestroy);
  LOAD (cuStreamSynchronize);
  LOAD (cuEventCreate);
  LOAD (cuEventRecord);
  LOAD (cuEventSynchronize);
  LOAD (cuEventQuery);
  LOAD (cuStreamWaitEvent);
  LOAD (cuEventDestroy);
  LOAD (cuImportExternalSemaphore);
  LOAD (cuSignalExternalSemaphoresAsync);
  LOAD (cuDestroyExternalSemaphore);
  LOAD (cuMemsetD32Async);
  LOAD (cuDeviceGet);
  LOAD (cuDeviceGetAttribute);
  LOAD (cuDeviceGetName);
  LOAD (cuDriverGetVersion);
  LOAD (cuMemAlloc);
  LOAD (cuMemFree);
  LOAD (cuMemcpy2DAsync);
  LOAD (cuImportExternalMemory);
  LOAD (cuExternalMemoryGetMappedBuffer);
  LOAD (cuDestroyExternalMemory);
#undef LOAD
  /* cuda.h 13 maps cuEventElapsedTime to _v2; older drivers have only the
   * first one (same prototype) */
  drv.cuEventElapsedTime = dlsym (lib, G_STRINGIFY (cuEventElapsedTime));
  if (!drv.cuEventElapsedTime)
    drv.cuEventElapsedTime = dlsym (lib, "cuEventElapsedTime");
  if (!drv.cuEventElapsedTime && !missing)
    missing = "cuEventElapsedTime";
  drv.cuCtxGetFlags = dlsym (lib, "cuCtxGetFlags");
  drv.cuDeviceGetUuid = dlsym (lib, "cuDeviceGetUuid_v2");
  if (!drv.cuDeviceGetUuid)
    drv.cuDeviceGetUuid = dlsym (lib, "cuDeviceGetUuid");

  if (missing) {
    *error = g_strdup_printf ("the CUDA driver lacks %s", missing);
    return FALSE;
  }
  is_sim = dlsym (lib, "cudasim_sem_create") != NULL;
  if (is_sim)
    sim_thread_cpu_syncs = (SimCountFunc) dlsym (lib,
        "cudasim_thread_cpu_syncs");
  return TRUE;
}

static void
describe_device (void)
{
  CUdevice dev;
  char name[256] = "";
  gint id = 0, v = 0;
  unsigned int flags = 0;

  g_object_get (ctx, "cuda-device-id", &id, NULL);
  R.ctx_flags = -1;
  if (!gst_cuda_context_push (ctx))
    return;
  if (drv.cuDeviceGet (&dev, id) == CUDA_SUCCESS) {
    drv.cuDeviceGetName (name, sizeof (name) - 1, dev);
    drv.cuDeviceGetAttribute (&R.cc_major,
        CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev);
    drv.cuDeviceGetAttribute (&R.cc_minor,
        CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev);
    drv.cuDeviceGetAttribute (&R.sm_count,
        CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, dev);
  }
  if (drv.cuDriverGetVersion (&v) == CUDA_SUCCESS)
    R.driver_version = v;
  if (drv.cuCtxGetFlags && drv.cuCtxGetFlags (&flags) == CUDA_SUCCESS)
    R.ctx_flags = (gint) flags;
  gst_cuda_context_pop (NULL);

  R.device = g_strdup_printf ("device %d \"%s\"", id, name[0] ? name : "?");
  R.driver = is_sim ? g_strdup ("SIMULATED CUDA driver (tests/cudasim; no "
      "GPU, no kernels)") : g_strdup_printf ("NVIDIA CUDA driver, API %d.%d",
      v / 1000, (v % 1000) / 10);
}

/* A GstCudaSemaphore on a new timeline semaphore from testsem. */
static GstCudaSemaphore *
new_semaphore (TestSem ** ts_out, gchar ** error)
{
  TestSem *ts = test_sem_new (TRUE, 0);
  GstCudaSemaphore *sem;
  GError *err = NULL;
  gint fd;

  if (!ts) {
    *error = g_strdup ("could not create a timeline semaphore (testsem)");
    return NULL;
  }
  fd = test_sem_export_fd (ts);
  if (fd < 0) {
    test_sem_free (ts);
    *error = g_strdup ("could not export the semaphore as an fd");
    return NULL;
  }
  sem = gst_cuda_semaphore_import_fd (ctx,
      GST_CUDA_SEMAPHORE_HANDLE_TYPE_TIMELINE_FD, fd, &err);
  if (!sem) {
    *error = g_strdup_printf ("gst_cuda_semaphore_import_fd: %s",
        err->message);
    g_error_free (err);
    close (fd);
    test_sem_free (ts);
    return NULL;
  }
  *ts_out = ts;
  return sem;
}

/* The Vulkan instance and device the first pipeline's elements set up
 * (the bridge elements pick the device whose UUID is CUDA device 0's), kept
 * and given to every later pipeline, as an application would: one device,
 * and no instance/device creation inside the measurements. */
static GMutex vk_ctx_lock;
static GstContext *vk_ctx[2];
static const gchar *const vk_ctx_type[2] = { "gst.vulkan.instance",
  "gst.vulkan.device"
};

static GstBusSyncReply
bus_sync_handler (GstBus * bus, GstMessage * msg, gpointer user_data)
{
  const gchar *type = NULL;
  guint i;

  if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_NEED_CONTEXT &&
      gst_message_parse_context_type (msg, &type) &&
      g_strcmp0 (type, GST_CUDA_CONTEXT_TYPE) == 0) {
    GstContext *c = gst_context_new_cuda_context (ctx);

    gst_element_set_context (GST_ELEMENT (GST_MESSAGE_SRC (msg)), c);
    gst_context_unref (c);
  } else if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_NEED_CONTEXT &&
      gst_message_parse_context_type (msg, &type)) {
    for (i = 0; i < 2; i++) {
      if (g_strcmp0 (type, vk_ctx_type[i]) == 0) {
        GstContext *c = NULL;

        g_mutex_lock (&vk_ctx_lock);
        if (vk_ctx[i])
          c = gst_context_ref (vk_ctx[i]);
        g_mutex_unlock (&vk_ctx_lock);
        if (c) {
          gst_element_set_context (GST_ELEMENT (GST_MESSAGE_SRC (msg)), c);
          gst_context_unref (c);
        }
      }
    }
  } else if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_HAVE_CONTEXT) {
    GstContext *c = NULL;

    gst_message_parse_have_context (msg, &c);
    type = c ? gst_context_get_context_type (c) : NULL;
    for (i = 0; type && i < 2; i++) {
      if (g_strcmp0 (type, vk_ctx_type[i]) == 0) {
        g_mutex_lock (&vk_ctx_lock);
        if (!vk_ctx[i])
          vk_ctx[i] = gst_context_ref (c);
        g_mutex_unlock (&vk_ctx_lock);
      }
    }
    if (c)
      gst_context_unref (c);
  }
  return GST_BUS_PASS;
}

/* the first error message on the pipeline's bus, if any */
static gchar *
bus_error (GstElement * pipeline)
{
  GstBus *bus = gst_element_get_bus (pipeline);
  GstMessage *msg;
  gchar *ret = NULL;

  while (!ret && (msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR))) {
    GError *err = NULL;
    gchar *dbg = NULL;

    gst_message_parse_error (msg, &err, &dbg);
    ret = g_strdup_printf ("%s: %s%s%s", GST_OBJECT_NAME (GST_MESSAGE_SRC
            (msg)), err->message, dbg ? " (" : "", dbg ? dbg : "");
    if (dbg) {
      gchar *t = g_strconcat (ret, ")", NULL);
      g_free (ret);
      ret = t;
    }
    g_error_free (err);
    g_free (dbg);
    gst_message_unref (msg);
  }
  gst_object_unref (bus);
  return ret;
}

static GstStaticPadTemplate any_src = GST_STATIC_PAD_TEMPLATE ("src",
    GST_PAD_SRC, GST_PAD_ALWAYS, GST_STATIC_CAPS_ANY);
static GstStaticPadTemplate any_sink = GST_STATIC_PAD_TEMPLATE ("sink",
    GST_PAD_SINK, GST_PAD_ALWAYS, GST_STATIC_CAPS_ANY);

static GstCaps *
cuda_caps (const gchar * format, gint width, gint height)
{
  GstCaps *caps = gst_caps_new_simple ("video/x-raw", "format", G_TYPE_STRING,
      format, "width", G_TYPE_INT, width, "height", G_TYPE_INT, height,
      "framerate", GST_TYPE_FRACTION, 60, 1, NULL);

  gst_caps_set_features (caps, 0,
      gst_caps_features_new (GST_CAPS_FEATURE_MEMORY_CUDA_MEMORY, NULL));
  return caps;
}

static GstBufferPool *
new_pool (GstCaps * caps, guint n_buffers, gchar ** error)
{
  GstBufferPool *pool = gst_cuda_buffer_pool_new (ctx);
  GstStructure *config = gst_buffer_pool_get_config (pool);
  GstVideoInfo info;

  if (!gst_video_info_from_caps (&info, caps)) {
    *error = g_strdup ("invalid caps");
    gst_structure_free (config);
    gst_object_unref (pool);
    return NULL;
  }
  gst_buffer_pool_config_set_params (config, caps, info.size, n_buffers,
      n_buffers);
  gst_buffer_pool_config_add_option (config, GST_BUFFER_POOL_OPTION_VIDEO_META);
  if (!gst_buffer_pool_set_config (pool, config) ||
      !gst_buffer_pool_set_active (pool, TRUE)) {
    *error = g_strdup_printf ("could not set up a GstCudaBufferPool of %u "
        "buffers of %" G_GSIZE_FORMAT " bytes", n_buffers, info.size);
    gst_object_unref (pool);
    return NULL;
  }
  return pool;
}

/* stream-start, caps and segment on a linked, active source pad */
static gboolean
push_initial_events (GstPad * src, GstCaps * caps, gchar ** error)
{
  GstSegment segment;

  gst_segment_init (&segment, GST_FORMAT_TIME);
  if (!gst_pad_push_event (src, gst_event_new_stream_start ("cudasync-bench"))
      || !gst_pad_push_event (src, gst_event_new_caps (caps)) ||
      !gst_pad_push_event (src, gst_event_new_segment (&segment))) {
    *error = g_strdup ("the initial events (stream-start, caps, segment) "
        "were refused");
    return FALSE;
  }
  return TRUE;
}

static gboolean
ctx_sync (gchar ** error)
{
  CUresult r;

  if (!gst_cuda_context_push (ctx)) {
    if (error)
      *error = g_strdup ("could not push the CUDA context");
    return FALSE;
  }
  r = drv.cuCtxSynchronize ();
  gst_cuda_context_pop (NULL);
  if (r != CUDA_SUCCESS) {
    if (error)
      *error = cu_error ("cuCtxSynchronize", r);
    return FALSE;
  }
  return TRUE;
}

/* ------------------------------------------------------------------ */
/* scenario 1: signal overhead                                          */
/* ------------------------------------------------------------------ */

typedef struct
{
  GstElement *pipeline;
  GstElement *element;
  GstPad *src;
  GstPad *sink;
} Chain;

static GstFlowReturn
drop_chain (GstPad * pad, GstObject * parent, GstBuffer * buf)
{
  gst_buffer_unref (buf);
  return GST_FLOW_OK;
}

static void
chain_clear (Chain * c)
{
  if (c->pipeline)
    gst_element_set_state (c->pipeline, GST_STATE_NULL);
  if (c->src) {
    gst_pad_set_active (c->src, FALSE);
    gst_object_unref (c->src);
  }
  if (c->sink) {
    gst_pad_set_active (c->sink, FALSE);
    gst_object_unref (c->sink);
  }
  gst_clear_object (&c->pipeline);
  memset (c, 0, sizeof (*c));
}

/* my src pad ! element ! my sink pad (drops), in a pipeline for its bus */
static gboolean
chain_setup (Chain * c, GstElement * element, GstCaps * caps, gchar ** error)
{
  GstPad *esink, *esrc;
  GstBus *bus;
  gboolean ok;

  memset (c, 0, sizeof (*c));
  c->pipeline = gst_pipeline_new (NULL);
  c->element = element;
  gst_bin_add (GST_BIN (c->pipeline), element);
  bus = gst_element_get_bus (c->pipeline);
  gst_bus_set_sync_handler (bus, bus_sync_handler, NULL, NULL);
  gst_object_unref (bus);

  c->src = gst_pad_new_from_static_template (&any_src, "src");
  c->sink = gst_pad_new_from_static_template (&any_sink, "sink");
  gst_pad_set_chain_function (c->sink, drop_chain);
  esink = gst_element_get_static_pad (element, "sink");
  esrc = gst_element_get_static_pad (element, "src");
  ok = gst_pad_link (c->src, esink) == GST_PAD_LINK_OK &&
      gst_pad_link (esrc, c->sink) == GST_PAD_LINK_OK;
  gst_object_unref (esink);
  gst_object_unref (esrc);
  if (!ok) {
    *error = g_strdup_printf ("could not link %s", GST_OBJECT_NAME (element));
    return FALSE;
  }
  gst_pad_set_active (c->sink, TRUE);
  gst_pad_set_active (c->src, TRUE);

  if (gst_element_set_state (c->pipeline,
          GST_STATE_PLAYING) == GST_STATE_CHANGE_FAILURE) {
    gchar *e = bus_error (c->pipeline);
    *error = g_strdup_printf ("%s did not start: %s",
        GST_OBJECT_NAME (element), e ? e : "no error message");
    g_free (e);
    return FALSE;
  }
  return push_initial_events (c->src, caps, error);
}

/* Pushes n_batches batches of pool buffers; returns CPU and wall ns per
 * buffer spent in gst_pad_push (the element, the drop, the pool release). */
static gboolean
s1_measure_chain (Chain * c, GstBufferPool * pool, guint batch,
    guint n_batches, gdouble * cpu_ns, gdouble * wall_ns, gchar ** error)
{
  GstBuffer **bufs = g_new0 (GstBuffer *, batch);
  gdouble cpu = 0, wall = 0;
  gboolean ok = TRUE;
  guint b, i;

  for (b = 0; ok && b < n_batches; b++) {
    gdouble t0, w0;

    for (i = 0; i < batch; i++) {
      if (gst_buffer_pool_acquire_buffer (pool, &bufs[i], NULL) !=
          GST_FLOW_OK) {
        *error = g_strdup ("could not acquire a buffer from the pool");
        ok = FALSE;
        break;
      }
    }
    if (!ok)
      break;

    t0 = thread_cpu_s ();
    w0 = mono_s ();
    for (i = 0; i < batch; i++) {
      GstFlowReturn r = gst_pad_push (c->src, bufs[i]);

      bufs[i] = NULL;
      if (r != GST_FLOW_OK) {
        gchar *e = bus_error (c->pipeline);
        *error = g_strdup_printf ("pushing through %s: %s%s%s",
            GST_OBJECT_NAME (c->element), gst_flow_get_name (r),
            e ? ": " : "", e ? e : "");
        g_free (e);
        ok = FALSE;
        break;
      }
    }
    cpu += thread_cpu_s () - t0;
    wall += mono_s () - w0;
    progress ();

    if (ok)
      ok = ctx_sync (error);
  }
  for (i = 0; i < batch; i++)
    if (bufs[i])
      gst_buffer_unref (bufs[i]);
  g_free (bufs);

  *cpu_ns = cpu * 1e9 / ((gdouble) batch * n_batches);
  *wall_ns = wall * 1e9 / ((gdouble) batch * n_batches);
  return ok;
}

/* Exports @ts as an fd and imports it with cuImportExternalSemaphore (a
 * raw timeline handle, no library object); call with ctx pushed. The fd is
 * closed on failure (the driver owns it on success). */
static CUresult
import_timeline_raw (TestSem * ts, CUexternalSemaphore * ext)
{
  CUDA_EXTERNAL_SEMAPHORE_HANDLE_DESC desc;
  gint fd = test_sem_export_fd (ts);
  CUresult r;

  if (fd < 0)
    return CUDA_ERROR_INVALID_HANDLE;
  memset (&desc, 0, sizeof (desc));
  desc.type = CU_EXTERNAL_SEMAPHORE_HANDLE_TYPE_TIMELINE_SEMAPHORE_FD;
  desc.handle.fd = fd;
  r = drv.cuImportExternalSemaphore (ext, &desc);
  if (r != CUDA_SUCCESS)
    close (fd);
  return r;
}

typedef struct
{
  CUexternalSemaphore ext;
  CUstream stream;
  guint64 value;
} Bare;

static gboolean
s1_measure_bare (Bare * bare, guint batch, guint n_batches, gdouble * cpu_ns,
    gdouble * wall_ns, gchar ** error)
{
  CUDA_EXTERNAL_SEMAPHORE_SIGNAL_PARAMS params;
  gdouble cpu = 0, wall = 0;
  gboolean ok = TRUE;
  guint b, i;
  CUresult r = CUDA_SUCCESS;

  memset (&params, 0, sizeof (params));
  if (!gst_cuda_context_push (ctx)) {
    *error = g_strdup ("could not push the CUDA context");
    return FALSE;
  }
  for (b = 0; ok && b < n_batches; b++) {
    gdouble t0 = thread_cpu_s (), w0 = mono_s ();

    for (i = 0; i < batch; i++) {
      params.params.fence.value = ++bare->value;
      r = drv.cuSignalExternalSemaphoresAsync (&bare->ext, &params, 1,
          bare->stream);
      if (r != CUDA_SUCCESS)
        break;
    }
    cpu += thread_cpu_s () - t0;
    wall += mono_s () - w0;
    progress ();
    if (r != CUDA_SUCCESS) {
      *error = cu_error ("cuSignalExternalSemaphoresAsync", r);
      ok = FALSE;
      break;
    }
    r = drv.cuStreamSynchronize (bare->stream);
    if (r != CUDA_SUCCESS) {
      *error = cu_error ("cuStreamSynchronize", r);
      ok = FALSE;
    }
  }
  gst_cuda_context_pop (NULL);

  *cpu_ns = cpu * 1e9 / ((gdouble) batch * n_batches);
  *wall_ns = wall * 1e9 / ((gdouble) batch * n_batches);
  return ok;
}

static gboolean
s1_measure_library (GstCudaSemaphore * sem, CUstream stream, guint batch,
    guint n_batches, gdouble * cpu_ns, gdouble * wall_ns, gchar ** error)
{
  gdouble cpu = 0, wall = 0;
  gboolean ok = TRUE;
  GError *err = NULL;
  guint b, i;

  for (b = 0; ok && b < n_batches; b++) {
    gdouble t0 = thread_cpu_s (), w0 = mono_s ();

    for (i = 0; i < batch; i++) {
      if (!gst_cuda_semaphore_signal (sem, stream, NULL, &err))
        break;
    }
    cpu += thread_cpu_s () - t0;
    wall += mono_s () - w0;
    progress ();
    if (err) {
      *error = g_strdup_printf ("gst_cuda_semaphore_signal: %s", err->message);
      g_clear_error (&err);
      ok = FALSE;
      break;
    }
    if (!gst_cuda_context_push (ctx)) {
      *error = g_strdup ("could not push the CUDA context");
      ok = FALSE;
      break;
    }
    {
      CUresult r = drv.cuStreamSynchronize (stream);
      gst_cuda_context_pop (NULL);
      if (r != CUDA_SUCCESS) {
        *error = cu_error ("cuStreamSynchronize", r);
        ok = FALSE;
      }
    }
  }
  *cpu_ns = cpu * 1e9 / ((gdouble) batch * n_batches);
  *wall_ns = wall * 1e9 / ((gdouble) batch * n_batches);
  return ok;
}

static void
s1_fail (const gchar * what, gchar * error)
{
  gchar *msg = g_strdup_printf ("%s: %s", what, error ? error : "?");

  g_print ("  FAILED: %s\n", msg);
  g_mutex_lock (&R.lock);
  g_free (R.s1.status);
  R.s1.status = g_strdup ("failed");
  g_free (R.s1.reason);
  R.s1.reason = msg;
  g_mutex_unlock (&R.lock);
  g_free (error);
}

static gboolean
run_scenario1 (void)
{
  TestSem *ts_elem = NULL, *ts_lib = NULL, *ts_bare = NULL;
  GstCudaSemaphore *sem_elem = NULL, *sem_lib = NULL;
  Bare bare = { NULL, NULL, 0 };
  Chain chains[2] = { {NULL,}, {NULL,} };
  GstBufferPool *pool = NULL;
  GstCaps *caps = NULL;
  gchar *error = NULL;
  guint batch = S1_BATCH, n_batches, r, i;
  gboolean ok = FALSE;
  GstElement *e;
  CUresult cr;

  n_batches = opt.calls > 0 ? MAX (1, (opt.calls + batch - 1) / batch) :
      (opt.quick ? 4 : 32);
  g_mutex_lock (&R.lock);
  R.s1.calls = batch * n_batches;
  R.s1.batch = batch;
  g_mutex_unlock (&R.lock);

  g_print ("\nScenario 1: signal overhead (CPU time per call on the calling "
      "thread; %u calls x %d repetitions)\n", batch * n_batches,
      opt.repetitions);

  /* semaphores */
  if (!(sem_elem = new_semaphore (&ts_elem, &error))) {
    s1_fail ("semaphore for cudasemsignal", error);
    goto out;
  }
  if (!(sem_lib = new_semaphore (&ts_lib, &error))) {
    s1_fail ("semaphore for the library loop", error);
    goto out;
  }
  ts_bare = test_sem_new (TRUE, 0);
  if (!ts_bare) {
    s1_fail ("semaphore for the bare loop", g_strdup ("testsem failed"));
    goto out;
  }
  if (!gst_cuda_context_push (ctx)) {
    s1_fail ("bare semaphore", g_strdup ("context push failed"));
    goto out;
  }
  cr = import_timeline_raw (ts_bare, &bare.ext);
  if (cr == CUDA_SUCCESS)
    cr = drv.cuStreamCreate (&bare.stream, CU_STREAM_DEFAULT);
  gst_cuda_context_pop (NULL);
  if (cr != CUDA_SUCCESS) {
    s1_fail ("bare semaphore", cu_error ("cuImportExternalSemaphore / "
            "cuStreamCreate", cr));
    goto out;
  }

  /* elements */
  caps = cuda_caps ("RGBA", 64, 64);
  pool = new_pool (caps, batch, &error);
  if (!pool) {
    s1_fail ("buffer pool", error);
    goto out;
  }
  e = gst_element_factory_make ("identity", NULL);
  g_object_set (e, "silent", TRUE, "signal-handoffs", FALSE, NULL);
  if (!chain_setup (&chains[0], e, caps, &error)) {
    s1_fail ("identity", error);
    goto out;
  }
  e = gst_element_factory_make ("cudasemsignal", NULL);
  g_object_set (e, "semaphore", sem_elem, NULL);
  gst_util_set_object_arg (G_OBJECT (e), "fallback", "error");
  if (!chain_setup (&chains[1], e, caps, &error)) {
    s1_fail ("cudasemsignal", error);
    goto out;
  }

  /* warm-up, then R interleaved repetitions */
  for (r = 0; r <= (guint) opt.repetitions; r++) {
    guint nb = r == 0 ? MIN (2, n_batches) : n_batches;
    gdouble cpu[S1_N_ROWS], wall[S1_N_ROWS];

    if (!s1_measure_bare (&bare, batch, nb, &cpu[S1_BARE], &wall[S1_BARE],
            &error)) {
      s1_fail ("bare loop", error);
      goto out;
    }
    if (!s1_measure_library (sem_lib, bare.stream, batch, nb,
            &cpu[S1_LIBRARY], &wall[S1_LIBRARY], &error)) {
      s1_fail ("library loop", error);
      goto out;
    }
    if (!s1_measure_chain (&chains[0], pool, batch, nb, &cpu[S1_IDENTITY],
            &wall[S1_IDENTITY], &error)) {
      s1_fail ("identity loop", error);
      goto out;
    }
    if (!s1_measure_chain (&chains[1], pool, batch, nb,
            &cpu[S1_CUDASEMSIGNAL], &wall[S1_CUDASEMSIGNAL], &error)) {
      s1_fail ("cudasemsignal loop", error);
      goto out;
    }
    if (r == 0)
      continue;
    g_mutex_lock (&R.lock);
    for (i = 0; i < S1_N_ROWS; i++) {
      series_add (R.s1.cpu_ns[i], cpu[i]);
      series_add (R.s1.wall_ns[i], wall[i]);
    }
    g_mutex_unlock (&R.lock);
  }

  {
    GstStructure *st = NULL;
    g_object_get (chains[1].element, "stats", &st, NULL);
    g_mutex_lock (&R.lock);
    R.s1.sig_stats = st;
    g_free (R.s1.status);
    R.s1.status = g_strdup ("ok");
    g_mutex_unlock (&R.lock);
  }
  ok = TRUE;

  {
    GArray **c = R.s1.cpu_ns;
    guint64 cpu_syncs = 0;

    g_print ("  %-40s %12s %12s\n", "ns per call (thread CPU)", "min",
        "median");
    for (i = 0; i < S1_N_ROWS; i++)
      g_print ("  %-40s %12.0f %12.0f\n", s1_row_names[i].label,
          series_min (c[i]), series_median (c[i]));
    g_print ("  %-40s %12.2f %12.2f\n", "ratio cudasemsignal / bare",
        ratio (series_min (c[S1_CUDASEMSIGNAL]), series_min (c[S1_BARE])),
        ratio (series_median (c[S1_CUDASEMSIGNAL]),
            series_median (c[S1_BARE])));
    g_print ("  %-40s %12.2f %12.2f   (target: <= 2)\n",
        "ratio (cudasemsignal - identity) / bare",
        ratio (series_min (c[S1_CUDASEMSIGNAL]) - series_min (c[S1_IDENTITY]),
            series_min (c[S1_BARE])),
        ratio (series_median (c[S1_CUDASEMSIGNAL]) -
            series_median (c[S1_IDENTITY]), series_median (c[S1_BARE])));
    if (R.s1.sig_stats)
      gst_structure_get_uint64 (R.s1.sig_stats, "cpu-syncs", &cpu_syncs);
    if (cpu_syncs)
      g_print ("  WARNING: cudasemsignal synchronised on the CPU %"
          G_GUINT64_FORMAT " times\n", cpu_syncs);
  }

out:
  for (i = 0; i < 2; i++)
    chain_clear (&chains[i]);
  if (pool) {
    gst_buffer_pool_set_active (pool, FALSE);
    gst_object_unref (pool);
  }
  if (caps)
    gst_caps_unref (caps);
  if (bare.ext || bare.stream) {
    if (gst_cuda_context_push (ctx)) {
      if (bare.stream) {
        drv.cuStreamSynchronize (bare.stream);
        drv.cuStreamDestroy (bare.stream);
      }
      if (bare.ext)
        drv.cuDestroyExternalSemaphore (bare.ext);
      gst_cuda_context_pop (NULL);
    }
  }
  gst_clear_object (&sem_elem);
  gst_clear_object (&sem_lib);
  gst_cuda_sync_wait_idle ();
  test_sem_free (ts_elem);
  test_sem_free (ts_lib);
  test_sem_free (ts_bare);
  g_atomic_int_set (&run_active, 0);
  write_json ();
  return ok;
}

/* ------------------------------------------------------------------ */
/* scenario 2: GPU-produced frames                                      */
/* ------------------------------------------------------------------ */

typedef struct
{
  CUmodule module;
  CUfunction func;
} Kernel;

static Kernel kernel;

typedef int (*NvrtcCreateProgramFunc) (void **prog, const char *src,
    const char *name, int n_headers, const char *const *headers,
    const char *const *include_names);
typedef int (*NvrtcCompileProgramFunc) (void *prog, int n_opts,
    const char *const *opts);
typedef int (*NvrtcGetSizeFunc) (void *prog, size_t *size);
typedef int (*NvrtcGetDataFunc) (void *prog, char *data);
typedef int (*NvrtcDestroyProgramFunc) (void **prog);

/* Compiles spin.cu with NVRTC for this device: a cubin when NVRTC can make
 * one, else PTX. Returns the image (g_free) or NULL with *why set. */
static gchar *
nvrtc_compile (gchar ** why)
{
  const gchar *cuda_path = g_getenv ("CUDA_PATH");
  gchar *candidates[8];
  void *lib = NULL;
  guint n = 0, i;
  NvrtcCreateProgramFunc create;
  NvrtcCompileProgramFunc compile;
  NvrtcGetSizeFunc log_size, ptx_size, cubin_size;
  NvrtcGetDataFunc get_log, get_ptx, get_cubin;
  NvrtcDestroyProgramFunc destroy;
  gchar *image = NULL;
  gint pass;

  candidates[n++] = g_strdup ("libnvrtc.so.13");
  candidates[n++] = g_strdup ("libnvrtc.so.12");
  candidates[n++] = g_strdup ("libnvrtc.so");
  if (cuda_path)
    candidates[n++] = g_build_filename (cuda_path, "lib64", "libnvrtc.so",
        NULL);
  candidates[n++] = g_strdup ("/usr/local/cuda/lib64/libnvrtc.so");
  for (i = 0; i < n; i++) {
    if (!lib)
      lib = dlopen (candidates[i], RTLD_NOW | RTLD_LOCAL);
    g_free (candidates[i]);
  }
  if (!lib) {
    *why = g_strdup ("NVRTC (libnvrtc.so.13/.12) not found");
    return NULL;
  }
  create = (NvrtcCreateProgramFunc) dlsym (lib, "nvrtcCreateProgram");
  compile = (NvrtcCompileProgramFunc) dlsym (lib, "nvrtcCompileProgram");
  log_size = (NvrtcGetSizeFunc) dlsym (lib, "nvrtcGetProgramLogSize");
  get_log = (NvrtcGetDataFunc) dlsym (lib, "nvrtcGetProgramLog");
  ptx_size = (NvrtcGetSizeFunc) dlsym (lib, "nvrtcGetPTXSize");
  get_ptx = (NvrtcGetDataFunc) dlsym (lib, "nvrtcGetPTX");
  cubin_size = (NvrtcGetSizeFunc) dlsym (lib, "nvrtcGetCUBINSize");
  get_cubin = (NvrtcGetDataFunc) dlsym (lib, "nvrtcGetCUBIN");
  destroy = (NvrtcDestroyProgramFunc) dlsym (lib, "nvrtcDestroyProgram");
  if (!create || !compile || !log_size || !get_log || !ptx_size || !get_ptx
      || !destroy) {
    *why = g_strdup ("NVRTC lacks an entry point");
    return NULL;
  }

  /* pass 0: SASS for this GPU (cubin); pass 1: PTX for it (JIT) */
  for (pass = (cubin_size && get_cubin) ? 0 : 1; !image && pass < 2; pass++) {
    void *prog = NULL;
    gchar *arch = g_strdup_printf ("--gpu-architecture=%s_%d%d",
        pass == 0 ? "sm" : "compute", R.cc_major, R.cc_minor);
    const char *opts[] = { arch };
    size_t size = 0;
    int res;

    res = create (&prog, bench_kernel_source, "spin.cu", 0, NULL, NULL);
    if (res == 0)
      res = compile (prog, 1, opts);
    if (res != 0) {
      gchar *log = NULL;
      if (prog && log_size (prog, &size) == 0 && size > 1) {
        log = g_malloc0 (size + 1);
        get_log (prog, log);
      }
      g_free (*why);
      *why = g_strdup_printf ("NVRTC %s: error %d%s%s", arch, res,
          log ? ": " : "", log ? log : "");
      g_free (log);
    } else if (pass == 0 && cubin_size (prog, &size) == 0 && size > 0) {
      image = g_malloc0 (size);
      if (get_cubin (prog, image) != 0)
        g_clear_pointer (&image, g_free);
    } else if (pass == 1 && ptx_size (prog, &size) == 0 && size > 0) {
      image = g_malloc0 (size + 1);
      if (get_ptx (prog, image) != 0)
        g_clear_pointer (&image, g_free);
    }
    if (prog)
      destroy (&prog);
    if (image) {
      g_free (*why);
      *why = g_strdup_printf ("NVRTC (%s)", arch);
    }
    g_free (arch);
  }
  return image;
}

/* Loads the kernel into the context: the embedded fatbin, else NVRTC.
 * *info says which, or why there is none. */
static gboolean
kernel_load (gchar ** info)
{
  gboolean want_fatbin = g_strcmp0 (opt.kernel_source, "nvrtc") != 0;
  gboolean want_nvrtc = g_strcmp0 (opt.kernel_source, "fatbin") != 0;
  GString *why = g_string_new (NULL);
  CUresult r = CUDA_ERROR_NOT_FOUND;
  gboolean ok = FALSE;

  if (!gst_cuda_context_push (ctx)) {
    *info = g_strdup ("could not push the CUDA context");
    g_string_free (why, TRUE);
    return FALSE;
  }

  if (want_fatbin) {
    if (bench_kernel_fatbin_size == 0) {
      g_string_append_printf (why, "%s", bench_kernel_build_info);
    } else {
      r = CuModuleLoadData (&kernel.module, bench_kernel_fatbin);
      if (r == CUDA_SUCCESS)
        r = CuModuleGetFunction (&kernel.func, kernel.module,
            BENCH_KERNEL_NAME);
      if (r == CUDA_SUCCESS) {
        ok = TRUE;
        g_string_assign (why, bench_kernel_build_info);
      } else {
        g_string_append_printf (why, "cuModuleLoadData/cuModuleGetFunction of "
            "the embedded fatbin: %s", cu_name (r));
        if (kernel.module)
          CuModuleUnload (kernel.module);
        kernel.module = NULL;
      }
    }
  }

  /* A driver that cannot load modules at all would not load NVRTC's
   * output either. Not on the simulator: NVRTC itself calls into
   * libcuda.so.1 and crashes against the simulated one. */
  if (!ok && want_nvrtc && is_sim) {
    g_string_append_printf (why, "%sNVRTC is not tried on the simulated "
        "driver", why->len ? "; " : "");
  } else if (!ok && want_nvrtc && r != CUDA_ERROR_NOT_SUPPORTED) {
    gchar *nwhy = NULL;
    gchar *image = nvrtc_compile (&nwhy);

    if (image) {
      r = CuModuleLoadData (&kernel.module, image);
      if (r == CUDA_SUCCESS)
        r = CuModuleGetFunction (&kernel.func, kernel.module,
            BENCH_KERNEL_NAME);
      if (r == CUDA_SUCCESS) {
        ok = TRUE;
        g_string_printf (why, "%s%s", nwhy, want_fatbin ? " (the fatbin "
            "was not usable)" : "");
      } else {
        g_string_append_printf (why, "%s%s output: cuModuleLoadData: %s",
            why->len ? "; " : "", nwhy, cu_name (r));
        if (kernel.module)
          CuModuleUnload (kernel.module);
        kernel.module = NULL;
      }
      g_free (image);
    } else {
      g_string_append_printf (why, "%s%s", why->len ? "; " : "", nwhy);
    }
    g_free (nwhy);
  }
  gst_cuda_context_pop (NULL);

  *info = g_string_free (why, FALSE);
  return ok;
}

typedef struct
{
  CUevent e0;                   /* producer stream, before the frame write */
  CUevent ek;                   /* producer stream, after the frame write */
  CUevent e1;                   /* legacy stream, after cudasemwait */
} EvPair;

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

typedef struct
{
  /* fixed for the run */
  S2Config *cfg;
  gint mode;
  FrameWriter writer;
  guint total, warmup;
  GstVideoInfo info;
  GstBufferPool *pool;          /* CUDA frames (not scenario 4) */
  GstBuffer *sysframe;          /* scenario 4: the system-memory frame */
  CUstream pstream;
  CUstream cstream;             /* a1: the consumer's non-blocking stream */
  GstCudaSemaphore *sem_p;      /* the producer's acquire semaphore (a) */
  GstPad *srcpad;
  GstElement *pipeline;
  GAsyncQueue *free_pairs;
  GAsyncQueue *recycle_q;
  GAsyncQueue *pending;         /* scenario 3: pushed, not yet at the sink */
  gboolean wall;                /* latency by the wall clock */
  gboolean sink_event;          /* scenario 5: the sink probe records E1 */
  gboolean producer_sync;       /* cuStreamSynchronize before pushing */
  gboolean poll;                /* recycler polls E1 (cuEventQuery) */
  gboolean acquire;             /* attach the producer's acquire point */
  guint grid;

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

#define RUN_WAIT_US (10 * G_USEC_PER_SEC)

static void
run_error (Run * run, gchar * error)
{
  g_mutex_lock (&run->lock);
  if (!run->error)
    run->error = error;
  else
    g_free (error);
  g_mutex_unlock (&run->lock);
  /* unblock a producer waiting for a pool buffer */
  if (run->pool)
    gst_buffer_pool_set_flushing (run->pool, TRUE);
}

static gboolean
run_failed (Run * run)
{
  gboolean f;

  g_mutex_lock (&run->lock);
  f = run->error != NULL;
  g_mutex_unlock (&run->lock);
  return f;
}

/* The consumer end on the streaming thread (scenarios 2 and 4): records the
 * frame's end event E1 on the legacy default stream (after cudasemwait's
 * waits, or after vulkantocuda's / cudaupload's work), or for a1 on the
 * consumer's own non-blocking stream after waiting for the buffer's
 * acquire points there, and hands the buffer to the recycler. */
static GstPadProbeReturn
s2_consumer_probe (GstPad * pad, GstPadProbeInfo * info, gpointer user_data)
{
  Run *run = user_data;
  GstBuffer *buf = GST_PAD_PROBE_INFO_BUFFER (info);
  RecycleItem *item;
  CUresult r = CUDA_ERROR_INVALID_CONTEXT;

  if (!run->cur_pair)
    return GST_PAD_PROBE_OK;

  if (gst_cuda_context_push (ctx)) {
    r = CUDA_SUCCESS;
    if (run->cstream) {
      GstCudaSyncMeta *meta = gst_buffer_get_cuda_sync_meta (buf);
      GError *err = NULL;

      if (!meta || gst_cuda_sync_meta_get_n_acquire (meta) == 0) {
        run_error (run, g_strdup ("a1: the buffer after cudasemsignal has "
                "no acquire point"));
      } else if (!gst_cuda_sync_meta_wait_gpu (meta, run->cstream, &err)) {
        run_error (run, g_strdup_printf ("a1: gst_cuda_sync_meta_wait_gpu: "
                "%s", err->message));
        g_clear_error (&err);
      }
    }
    r = drv.cuEventRecord (run->cur_pair->e1, run->cstream);
    gst_cuda_context_pop (NULL);
  }
  if (r != CUDA_SUCCESS)
    run_error (run, cu_error ("cuEventRecord (consumer)", r));

  item = g_new0 (RecycleItem, 1);
  item->buf = gst_buffer_ref (buf);
  item->pair = run->cur_pair;
  item->frame = run->cur_frame;
  item->e1_recorded = TRUE;
  item->kernel = run->sysframe == NULL;
  item->t0 = run->cur_t0;
  run->cur_pair = NULL;
  g_async_queue_push (run->recycle_q, item);
  return GST_PAD_PROBE_OK;
}

/* scenario 3: a frame came out of vulkandownload (the Vulkan consumer is
 * done with it), on the thread after the queue. Frames come out in order. */
static GstPadProbeReturn
s3_sink_probe (GstPad * pad, GstPadProbeInfo * info, gpointer user_data)
{
  Run *run = user_data;

  if (info->type & GST_PAD_PROBE_TYPE_BUFFER) {
    RecycleItem *item = g_async_queue_try_pop (run->pending);

    if (!item) {
      run_error (run, g_strdup ("a frame came out of vulkandownload that "
              "the producer did not push"));
      return GST_PAD_PROBE_OK;
    }
    item->t1 = mono_s ();
    if (run->sink_event) {
      /* scenario 5: the CUDA consumer's end event, after vulkantocuda's
       * copy (it makes the legacy default stream wait for it) */
      CUresult r = CUDA_ERROR_INVALID_CONTEXT;

      if (gst_cuda_context_push (ctx)) {
        r = drv.cuEventRecord (item->pair->e1, NULL);
        gst_cuda_context_pop (NULL);
      }
      if (r != CUDA_SUCCESS)
        run_error (run, cu_error ("cuEventRecord (consumer)", r));
      else
        item->e1_recorded = TRUE;
      item->out = gst_buffer_ref (GST_PAD_PROBE_INFO_BUFFER (info));
    }
    g_async_queue_push (run->recycle_q, item);
  } else if (info->type & GST_PAD_PROBE_TYPE_EVENT_DOWNSTREAM &&
      GST_EVENT_TYPE (GST_PAD_PROBE_INFO_EVENT (info)) == GST_EVENT_EOS) {
    g_async_queue_push (run->recycle_q, g_new0 (RecycleItem, 1));
  }
  return GST_PAD_PROBE_OK;
}

#ifdef HAVE_CUDA_VULKAN
/* scenario 5 mode c: the CPU wait for the Vulkan stage, before
 * vulkantocuda: the queue idle. The queue object is the element's (asked
 * with a context query): GStreamer 1.22 gives every
 * gst_vulkan_device_get_queue() caller its own object and submit lock, and
 * vkQueueWaitIdle must not run while an element submits to the queue. */
static GstPadProbeReturn
s5_vk_idle_probe (GstPad * pad, GstPadProbeInfo * info, gpointer user_data)
{
  Run *run = user_data;
  GstElement *v2c = gst_pad_get_parent_element (pad);
  GstPad *src = v2c ? gst_element_get_static_pad (v2c, "src") : NULL;
  GstQuery *query = gst_query_new_context (GST_VULKAN_QUEUE_CONTEXT_TYPE_STR);
  GstVulkanQueue *queue = NULL;
  VkResult res = VK_SUCCESS;

  if (src && gst_pad_query (src, query)) {
    GstContext *c = NULL;

    gst_query_parse_context (query, &c);
    if (c)
      gst_context_get_vulkan_queue (c, &queue);
  }
  gst_query_unref (query);
  gst_clear_object (&src);
  gst_clear_object (&v2c);
  if (!queue) {
    run_error (run, g_strdup ("vulkantocuda answered no Vulkan queue"));
    return GST_PAD_PROBE_OK;
  }
  gst_vulkan_queue_submit_lock (queue);
  res = vkQueueWaitIdle (queue->queue);
  gst_vulkan_queue_submit_unlock (queue);
  gst_object_unref (queue);
  if (res != VK_SUCCESS)
    run_error (run, g_strdup_printf ("vkQueueWaitIdle: %d", res));
  return GST_PAD_PROBE_OK;
}
#endif

/* scenario 3 mode c: the CPU wait for cudatovulkan's copy */
static GstPadProbeReturn
s3_cpu_sync_probe (GstPad * pad, GstPadProbeInfo * info, gpointer user_data)
{
  Run *run = user_data;
  gchar *error = NULL;

  if (!ctx_sync (&error))
    run_error (run, error);
  return GST_PAD_PROBE_OK;
}

/* Waits (off the streaming thread) until the consumer's end of each frame,
 * reads the latency, then returns the buffer to the pool: this is what
 * bounds the frames in flight to the pool size. */
static gpointer
s2_recycler (gpointer data)
{
  Run *run = data;

  for (;;) {
    RecycleItem *item = run->wall ?
        g_async_queue_timeout_pop (run->recycle_q, RUN_WAIT_US) :
        g_async_queue_pop (run->recycle_q);
    CUresult r = CUDA_SUCCESS;
    gfloat ms = 0, kms = 0;

    if (!item) {
      run_error (run, g_strdup_printf ("no frame came out of the pipeline "
              "for %d s", (gint) (RUN_WAIT_US / G_USEC_PER_SEC)));
      break;
    }
    if (!item->buf) {
      g_free (item);
      break;
    }
    if ((item->e1_recorded || item->kernel) && !gst_cuda_context_push (ctx))
      r = CUDA_ERROR_INVALID_CONTEXT;
    else {
      if (item->e1_recorded) {
        if (run->poll) {
          /* 2d a4_poll: no blocking wait in the driver */
          while ((r = drv.cuEventQuery (item->pair->e1)) ==
              CUDA_ERROR_NOT_READY)
            g_usleep (20);
        } else {
          r = drv.cuEventSynchronize (item->pair->e1);
        }
        if (run->wall)
          item->t1 = mono_s ();
        else if (r == CUDA_SUCCESS)
          r = drv.cuEventElapsedTime (&ms, item->pair->e0, item->pair->e1);
      }
      if (item->kernel) {
        if (r == CUDA_SUCCESS)
          r = drv.cuEventSynchronize (item->pair->ek);
        if (r == CUDA_SUCCESS)
          r = drv.cuEventElapsedTime (&kms, item->pair->e0, item->pair->ek);
      }
      if (item->e1_recorded || item->kernel)
        gst_cuda_context_pop (NULL);
    }
    if (run->wall)
      ms = (item->t1 - item->t0) * 1e3;
    if (r != CUDA_SUCCESS)
      run_error (run, cu_error ("cuEventSynchronize/cuEventElapsedTime", r));
    else if (item->frame >= run->warmup) {
      series_add (run->lat_us, ms * 1000.0);
      if (item->kernel)
        series_add (run->kern_us, kms * 1000.0);
    }
    /* the measured window: from the consumer's end of the last warm-up
     * frame to its end of the last frame, so that it holds exactly the
     * measured frames' completions (opening it when the producer starts
     * the first measured frame also counted the warm-up frames still in
     * flight: up to --in-flight - 1 frames of GPU work too many) */
    if (item->frame + 1 == run->warmup) {
      run->t_start = mono_s ();
      run->cpu_start = process_cpu_s ();
    }
    if (item->frame == run->total - 1) {
      run->t_end = mono_s ();
      run->cpu_end = process_cpu_s ();
    }
    gst_buffer_unref (item->buf);
    if (item->out)
      gst_buffer_unref (item->out);
    g_async_queue_push (run->free_pairs, item->pair);
    g_free (item);
    progress ();
  }
  return NULL;
}

/* the frame's GPU work on the producer stream; call with ctx pushed */
static CUresult
write_frame (Run * run, GstBuffer * buf, guint8 * data, guint frame)
{
  GstVideoMeta *vmeta = buf ? gst_buffer_get_video_meta (buf) : NULL;
  const GstVideoFormatInfo *finfo = run->info.finfo;
  unsigned long long plane[2] = { 0, 0 }, pitch[2] = { 0, 0};
  unsigned int words[2] = { 0, 0 }, rows[2] = { 0, 0 };
  unsigned long long spin_ns = (unsigned long long) run->cfg->gpu_us * 1000;
  unsigned int seed = frame * 2654435761u;
  guint p, n_planes = MIN (GST_VIDEO_INFO_N_PLANES (&run->info), 2);
  CUresult r = CUDA_SUCCESS;

  for (p = 0; p < n_planes; p++) {
    gint comp[GST_VIDEO_MAX_COMPONENTS];
    gsize offset = vmeta ? vmeta->offset[p] :
        GST_VIDEO_INFO_PLANE_OFFSET (&run->info, p);
    gint stride = vmeta ? vmeta->stride[p] :
        GST_VIDEO_INFO_PLANE_STRIDE (&run->info, p);

    gst_video_format_info_component (finfo, p, comp);
    plane[p] = (unsigned long long) (guintptr) data + offset;
    pitch[p] = stride;
    words[p] = GST_VIDEO_INFO_COMP_WIDTH (&run->info, comp[0]) *
        GST_VIDEO_INFO_COMP_PSTRIDE (&run->info, comp[0]) / 4;
    rows[p] = GST_VIDEO_INFO_COMP_HEIGHT (&run->info, comp[0]);
  }

  if (run->writer == WRITER_KERNEL) {
    void *args[] = { &plane[0], &pitch[0], &words[0], &rows[0],
      &plane[1], &pitch[1], &words[1], &rows[1], &spin_ns, &seed
    };
    return CuLaunchKernel (kernel.func, run->grid, 1, 1, 256, 1, 1, 0,
        run->pstream, args, NULL);
  }

  for (p = 0; r == CUDA_SUCCESS && p < n_planes; p++)
    r = drv.cuMemsetD32Async ((CUdeviceptr) plane[p], seed + p,
        (size_t) pitch[p] * rows[p] / 4, run->pstream);
  return r;
}

/* scenarios 2 and 3: a CUDA frame written on the producer stream */
static GstBuffer *
produce_cuda_frame (Run * run, EvPair * pair, guint n)
{
  GstBuffer *buf = NULL;
  GstMapInfo map;
  GError *err = NULL;
  CUresult r = CUDA_SUCCESS;
  guint64 value = 0;
  const gchar *what;

  /* blocks while all pool buffers are in flight */
  if (gst_buffer_pool_acquire_buffer (run->pool, &buf, NULL) != GST_FLOW_OK) {
    run_error (run, g_strdup ("could not acquire a buffer"));
    return NULL;
  }
  if (!gst_buffer_map (buf, &map, GST_MAP_WRITE | GST_MAP_CUDA)) {
    run_error (run, g_strdup ("could not map the buffer (GST_MAP_CUDA)"));
    gst_buffer_unref (buf);
    return NULL;
  }
  if (!gst_cuda_context_push (ctx)) {
    run_error (run, g_strdup ("could not push the CUDA context"));
    gst_buffer_unmap (buf, &map);
    gst_buffer_unref (buf);
    return NULL;
  }
  what = "cuEventRecord (producer stream)";
  r = drv.cuEventRecord (pair->e0, run->pstream);
  if (r == CUDA_SUCCESS) {
    what = run->writer == WRITER_KERNEL ? "cuLaunchKernel" :
        "cuMemsetD32Async";
    r = write_frame (run, buf, map.data, n);
  }
  if (r == CUDA_SUCCESS) {
    what = "cuEventRecord (producer stream)";
    r = drv.cuEventRecord (pair->ek, run->pstream);
  }
  if (r == CUDA_SUCCESS && run->producer_sync) {
    what = "cuStreamSynchronize (producer stream)";
    r = drv.cuStreamSynchronize (run->pstream);
  }
  gst_cuda_context_pop (NULL);
  if (r == CUDA_SUCCESS && run->acquire &&
      !gst_cuda_semaphore_signal (run->sem_p, run->pstream, &value, &err)) {
    run_error (run, g_strdup_printf ("gst_cuda_semaphore_signal "
            "(producer): %s", err->message));
    g_clear_error (&err);
    r = CUDA_ERROR_UNKNOWN;
  } else if (r != CUDA_SUCCESS) {
    gchar *call = g_strdup_printf ("producer: %s", what);
    run_error (run, cu_error (call, r));
    g_free (call);
  }
  gst_buffer_unmap (buf, &map);
  if (r != CUDA_SUCCESS) {
    gst_buffer_unref (buf);
    return NULL;
  }
  if (run->acquire)
    gst_cuda_sync_meta_add_acquire (gst_buffer_add_cuda_sync_meta (buf),
        run->sem_p, value);
  return buf;
}

static gpointer
s2_producer (gpointer data)
{
  Run *run = data;
  guint n;
  guint syncs0 = 0;
  gdouble tcpu0 = 0;
  gboolean eos = FALSE;

  for (n = 0; n < run->total && !run_failed (run); n++) {
    GstBuffer *buf = NULL;
    EvPair *pair;
    GstFlowReturn fr;
    gdouble t0;

    if (n == run->warmup) {
      /* the run's window (t_start, cpu_start) opens when the consumer sees
       * the last warm-up frame (recycler): frames still in flight here
       * must not count as measured-window work */
      tcpu0 = thread_cpu_s ();
      if (sim_thread_cpu_syncs)
        syncs0 = sim_thread_cpu_syncs ();
    }

    if (run->sysframe) {
      /* scenario 4: the free pairs bound the frames in flight */
      pair = g_async_queue_timeout_pop (run->free_pairs, RUN_WAIT_US);
      if (!pair) {
        run_error (run, g_strdup ("no frame was released for 10 s"));
        break;
      }
      t0 = mono_s ();
      buf = gst_buffer_ref (run->sysframe);
    } else {
      pair = g_async_queue_pop (run->free_pairs);
      t0 = mono_s ();
      buf = produce_cuda_frame (run, pair, n);
      if (!buf) {
        g_async_queue_push (run->free_pairs, pair);
        break;
      }
    }

    if (run->pending) {
      /* scenario 3: the sink probe (another thread) ends the frame */
      RecycleItem *item = g_new0 (RecycleItem, 1);

      item->buf = gst_buffer_ref (buf);
      item->pair = pair;
      item->frame = n;
      item->kernel = TRUE;
      item->t0 = t0;
      g_async_queue_push (run->pending, item);
      run->cur_pair = NULL;
    } else {
      run->cur_pair = pair;
      run->cur_frame = n;
      run->cur_t0 = t0;
    }
    fr = gst_pad_push (run->srcpad, buf);
    if (run->cur_pair) {
      /* the buffer never reached the consumer probe */
      g_async_queue_push (run->free_pairs, run->cur_pair);
      run->cur_pair = NULL;
      run->lost++;
    }
    if (fr != GST_FLOW_OK) {
      gchar *e = bus_error (run->pipeline);
      run_error (run, g_strdup_printf ("gst_pad_push: %s%s%s",
              gst_flow_get_name (fr), e ? ": " : "", e ? e : ""));
      g_free (e);
      break;
    }
    progress ();
  }
  run->prod_cpu = thread_cpu_s () - tcpu0;
  if (sim_thread_cpu_syncs)
    run->sim_syncs = sim_thread_cpu_syncs () - syncs0;

  /* stop the recycler after everything pushed so far: in scenario 3 the
   * EOS reaching the sink does, after the frames still in the queue */
  if (run->pending && !run_failed (run))
    eos = gst_pad_push_event (run->srcpad, gst_event_new_eos ());
  if (!eos)
    g_async_queue_push (run->recycle_q, g_new0 (RecycleItem, 1));
  return NULL;
}

static guint
s2_frames (guint gpu_us)
{
  if (opt.frames > 0)
    return opt.frames;
  if (opt.quick)
    return gpu_us ? 10 : 20;
  if (gpu_us == 0)
    return 400;
  return CLAMP (400000 / gpu_us, 60, 400);
}

/* scenarios 3 and 4: fewer frames (every frame goes through the CPU in the
 * upstream modes) */
static guint
s34_frames (guint gpu_us, gint width)
{
  if (opt.frames > 0)
    return opt.frames;
  if (opt.quick)
    return 10;
  if (gpu_us == 0)
    return width > 1920 ? 40 : 100;
  return CLAMP (400000 / gpu_us, 60, 400);
}

static gboolean
expect_stat (const GstStructure * st, const gchar * field, guint64 want,
    GString * note, const gchar * element)
{
  guint64 v = G_MAXUINT64;

  if (st && gst_structure_get_uint64 (st, field, &v) && v == want)
    return TRUE;
  g_string_append_printf (note, "%s%s %s=%" G_GINT64_FORMAT " (expected %"
      G_GUINT64_FORMAT ")", note->len ? "; " : "", element, field,
      (gint64) v, want);
  return FALSE;
}

/* the bridge elements' counters; *path: which path ran */
static gboolean
expect_bridge_stats (const GstStructure * st, const gchar * element,
    guint total, guint waits, GString * note, const gchar ** path)
{
  guint64 sems = 0;
  gboolean ok = TRUE;

  if (st)
    gst_structure_get_uint64 (st, "semaphores", &sems);
  *path = sems > 0 ? "GPU (semaphores)" :
      "CPU fallback (Vulkan cannot export semaphores)";
  ok &= expect_stat (st, "buffers", total, note, element);
  ok &= expect_stat (st, "copies", total, note, element);
  ok &= expect_stat (st, "cpu-syncs", sems > 0 ? 0 : total, note, element);
  if (waits != G_MAXUINT)
    ok &= expect_stat (st, "waits", waits, note, element);
  return ok;
}

static GstElement *
make (GstElement * bin, const gchar * factory, const gchar * name,
    gchar ** error)
{
  GstElement *e = gst_element_factory_make (factory, name);

  if (!e) {
    if (!*error)
      *error = g_strdup_printf ("element %s not found", factory);
    return NULL;
  }
  gst_bin_add (GST_BIN (bin), e);
  return e;
}

static GstElement *
make_capsfilter (GstElement * bin, const gchar * feature, gchar ** error)
{
  GstElement *e = make (bin, "capsfilter", NULL, error);
  GstCaps *caps;

  if (!e)
    return NULL;
  caps = gst_caps_new_empty_simple ("video/x-raw");
  gst_caps_set_features (caps, 0, gst_caps_features_new (feature, NULL));
  g_object_set (e, "caps", caps, NULL);
  gst_caps_unref (caps);
  return e;
}

static gboolean s3d_run_once (S2Config * cfg, gint mode, FrameWriter writer,
    CUstream pstream, GAsyncQueue * free_pairs, gchar ** error);

/* scenario 6: wait until every pipeline is ready to start its producer
 * (a pipeline that failed before arrives too, from its exit path) */
static void
gate_arrive (StartGate * g, gboolean wait)
{
  gint64 until = g_get_monotonic_time () + 30 * G_USEC_PER_SEC;

  g_mutex_lock (&g->lock);
  g->arrived++;
  g_cond_broadcast (&g->cond);
  while (wait && g->arrived < g->n)
    if (!g_cond_wait_until (&g->cond, &g->lock, until))
      break;
  g_mutex_unlock (&g->lock);
}

/* One repetition of one mode. Appends to the mode's series. */
static gboolean
s2_run_once (S2Config * cfg, gint mode, FrameWriter writer, GstBufferPool *
    pool, CUstream pstream, GAsyncQueue * free_pairs, GstCudaSemaphore * sem_c,
    GstCudaSemaphore * sem_p, GstBuffer * sysframe, gchar ** error)
{
  ModeResult *m = &cfg->m[mode];
  Run run;
  GstElement *chain[8] = { NULL, };
  GstElement *sig = NULL, *wait = NULL, *bridge = NULL, *sink;
  GstElement *probe_el = NULL;
  GstPad *pad;
  GstCaps *caps;
  GstBus *bus;
  GThread *producer, *recycler;
  gboolean ok = FALSE, arrived = FALSE;
  guint n_meas, n = 0, i;

  if (mode == MODE_CV_D || mode == MODE_CV_D2)
    return s3d_run_once (cfg, mode, writer, pstream, free_pairs, error);

  memset (&run, 0, sizeof (run));
  g_mutex_init (&run.lock);
  run.cfg = cfg;
  run.mode = mode;
  run.writer = writer;
  run.pool = sysframe ? NULL : pool;
  run.sysframe = sysframe;
  run.pstream = pstream;
  run.sem_p = sem_p;
  run.free_pairs = free_pairs;
  run.recycle_q = g_async_queue_new ();
  run.total = m->frames + m->warmup;
  run.warmup = m->warmup;
  run.lat_us = series_new ();
  run.kern_us = series_new ();
  run.grid = MAX (R.sm_count, 1) * 4;
  run.producer_sync = mode == MODE_C || mode == MODE_CV_B ||
      mode == MODE_CV_C || mode == MODE_S5_C;
  run.acquire = !run.producer_sync && !sysframe;
  run.poll = mode == MODE_A4;
  run.wall = mode >= MODE_CV_A;
  if ((mode >= MODE_CV_A && mode <= MODE_CV_C) || mode == MODE_S5_A ||
      mode == MODE_S5_C || mode == MODE_S6_A)
    run.pending = g_async_queue_new ();
  run.sink_event = mode == MODE_S5_A || mode == MODE_S5_C;
  if (pool)
    gst_buffer_pool_set_flushing (pool, FALSE);
  if (sysframe) {
    caps = gst_caps_new_simple ("video/x-raw", "format", G_TYPE_STRING,
        cfg->format, "width", G_TYPE_INT, cfg->width, "height", G_TYPE_INT,
        cfg->height, "framerate", GST_TYPE_FRACTION, 60, 1, NULL);
  } else {
    caps = cuda_caps (cfg->format, cfg->width, cfg->height);
  }
  gst_video_info_from_caps (&run.info, caps);

  run.pipeline = gst_pipeline_new (NULL);
  bus = gst_element_get_bus (run.pipeline);
  gst_bus_set_sync_handler (bus, bus_sync_handler, NULL, NULL);
  gst_object_unref (bus);

  switch (mode) {
    case MODE_A:
    case MODE_C:
    case MODE_A_IF1:
    case MODE_A_IF8:
    case MODE_A4:
    case MODE_A1:
      sig = chain[n++] = make (run.pipeline, "cudasemsignal", "sig", error);
      if (!sig)
        goto out;
      gst_util_set_object_arg (G_OBJECT (sig), "fallback", "sync");
      probe_el = sig;
      if (mode == MODE_A1) {
        /* no cudasemwait: cudasemsignal signals its own semaphore */
        g_object_set (sig, "semaphore", sem_c, NULL);
        break;
      }
      /* fall through */
    case MODE_A2:
      wait = chain[n++] = make (run.pipeline, "cudasemwait", "wait", error);
      if (!wait)
        goto out;
      if (mode != MODE_C && mode != MODE_A2)
        g_object_set (wait, "semaphore", sem_c, NULL);
      probe_el = wait;
      break;
    case MODE_CV_A:
    case MODE_CV_C:
    case MODE_S6_A:
      bridge = chain[n++] = make (run.pipeline, "cudatovulkan", "c2v", error);
      break;
    case MODE_S5_A:
    case MODE_S5_C:
      /* the Vulkan stage on its own thread between two queues; the last
       * queue is added below */
      bridge = chain[n++] = make (run.pipeline, "cudatovulkan", "c2v", error);
      chain[n++] = make (run.pipeline, "queue", NULL, error);
      /* GStreamer 1.22's vulkanimageidentity takes BGRA only: the Vulkan
       * stage is vulkancolorconvert RGBA -> BGRA (a render pass per frame) */
      chain[n++] = make (run.pipeline, "vulkancolorconvert", NULL, error);
      {
        GstElement *cf = chain[n++] = make (run.pipeline, "capsfilter", NULL,
            error);

        if (cf) {
          GstCaps *c2 = gst_caps_new_simple ("video/x-raw", "format",
              G_TYPE_STRING, "BGRA", NULL);

          gst_caps_set_features (c2, 0, gst_caps_features_new
              (GST_CAPS_FEATURE_MEMORY_VULKAN_IMAGE, NULL));
          g_object_set (cf, "caps", c2, NULL);
          gst_caps_unref (c2);
        }
      }
      chain[n++] = make (run.pipeline, "queue", NULL, error);
      probe_el = chain[n++] = make (run.pipeline, "vulkantocuda", "v2c",
          error);
      break;
    case MODE_CV_B:
      chain[n++] = make (run.pipeline, "cudadownload", NULL, error);
      chain[n++] = make (run.pipeline, "vulkanupload", NULL, error);
      chain[n++] = make_capsfilter (run.pipeline,
          GST_CAPS_FEATURE_MEMORY_VULKAN_IMAGE, error);
      break;
    case MODE_VC_A:
      chain[n++] = make (run.pipeline, "vulkanupload", NULL, error);
      chain[n++] = make_capsfilter (run.pipeline,
          GST_CAPS_FEATURE_MEMORY_VULKAN_IMAGE, error);
      bridge = chain[n++] = make (run.pipeline, "vulkantocuda", "v2c", error);
      probe_el = bridge;
      break;
    case MODE_VC_B:
      chain[n++] = make (run.pipeline, "vulkanupload", NULL, error);
      chain[n++] = make_capsfilter (run.pipeline,
          GST_CAPS_FEATURE_MEMORY_VULKAN_IMAGE, error);
      chain[n++] = make (run.pipeline, "vulkandownload", NULL, error);
      chain[n++] = make (run.pipeline, "cudaupload", NULL, error);
      probe_el = chain[n++] = make_capsfilter (run.pipeline,
          GST_CAPS_FEATURE_MEMORY_CUDA_MEMORY, error);
      break;
  }
  if (run.pending) {
    GstElement *q = chain[n++] = make (run.pipeline, "queue", NULL, error);

    if (q)
      g_object_set (q, "max-size-bytes", 0, "max-size-time",
          (guint64) 0, NULL);
    if (!run.sink_event)
      chain[n++] = make (run.pipeline, "vulkandownload", NULL, error);
  }
  for (i = 0; i < n; i++)
    if (chain[i] && g_str_equal (G_OBJECT_TYPE_NAME (chain[i]), "GstQueue"))
      g_object_set (chain[i], "max-size-bytes", 0, "max-size-time",
          (guint64) 0, NULL);
  sink = chain[n++] = make (run.pipeline, "fakesink", "sink", error);
  for (i = 0; i < n; i++)
    if (!chain[i])
      goto out;
  /* the bench's Vulkan instance and device (vulkan_device ()): the bridge
   * elements take the device context, upstream vulkan elements the
   * instance (whose create-device signal gives them the device) */
  g_mutex_lock (&vk_ctx_lock);
  for (i = 0; i < n; i++) {
    if (vk_ctx[0])
      gst_element_set_context (chain[i], vk_ctx[0]);
    if (vk_ctx[1])
      gst_element_set_context (chain[i], vk_ctx[1]);
  }
  g_mutex_unlock (&vk_ctx_lock);
  g_object_set (sink, "sync", FALSE, "async", FALSE, "enable-last-sample",
      FALSE, "silent", TRUE, NULL);
  for (i = 0; i + 1 < n; i++) {
    if (!gst_element_link (chain[i], chain[i + 1])) {
      *error = g_strdup_printf ("could not link %s ! %s",
          GST_OBJECT_NAME (chain[i]), GST_OBJECT_NAME (chain[i + 1]));
      goto out;
    }
  }

  if (mode == MODE_A1) {
    CUresult r = CUDA_ERROR_INVALID_CONTEXT;

    if (gst_cuda_context_push (ctx)) {
      r = drv.cuStreamCreate (&run.cstream, CU_STREAM_NON_BLOCKING);
      gst_cuda_context_pop (NULL);
    }
    if (r != CUDA_SUCCESS) {
      *error = cu_error ("cuStreamCreate (consumer)", r);
      goto out;
    }
  }
  if (run.pending) {
    pad = gst_element_get_static_pad (sink, "sink");
    gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER |
        GST_PAD_PROBE_TYPE_EVENT_DOWNSTREAM, s3_sink_probe, &run, NULL);
    gst_object_unref (pad);
  } else {
    pad = gst_element_get_static_pad (probe_el, "src");
    gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER, s2_consumer_probe, &run,
        NULL);
    gst_object_unref (pad);
  }
  if (mode == MODE_CV_C || mode == MODE_S5_C) {
    pad = gst_element_get_static_pad (bridge, "src");
    gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER, s3_cpu_sync_probe,
        &run, NULL);
    gst_object_unref (pad);
  }
#ifdef HAVE_CUDA_VULKAN
  if (mode == MODE_S5_C) {
    pad = gst_element_get_static_pad (probe_el, "sink");
    gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER, s5_vk_idle_probe,
        &run, NULL);
    gst_object_unref (pad);
  }
#endif

  run.srcpad = gst_pad_new_from_static_template (&any_src, "src");
  pad = gst_element_get_static_pad (chain[0], "sink");
  if (gst_pad_link (run.srcpad, pad) != GST_PAD_LINK_OK) {
    gst_object_unref (pad);
    *error = g_strdup ("could not link the producer pad");
    goto out;
  }
  gst_object_unref (pad);
  gst_pad_set_active (run.srcpad, TRUE);

  if (gst_element_set_state (run.pipeline,
          GST_STATE_PLAYING) == GST_STATE_CHANGE_FAILURE) {
    gchar *e = bus_error (run.pipeline);
    *error = g_strdup_printf ("the pipeline did not start: %s",
        e ? e : "no error message");
    g_free (e);
    goto out;
  }
  if (!push_initial_events (run.srcpad, caps, error))
    goto out;

  if (cfg->gate) {
    gate_arrive (cfg->gate, TRUE);
    arrived = TRUE;
  }
  progress ();
  recycler = g_thread_new ("bench-recycler", s2_recycler, &run);
  producer = g_thread_new ("bench-producer", s2_producer, &run);
  g_thread_join (producer);
  g_thread_join (recycler);

  if (!run.error) {
    gchar *e = bus_error (run.pipeline);
    if (e)
      run.error = e;
  }
  if (run.error) {
    *error = g_strdup (run.error);
    goto out;
  }
  if (!ctx_sync (error))
    goto out;

  n_meas = run.total - run.warmup;
  if (run.lost || run.lat_us->len != n_meas) {
    *error = g_strdup_printf ("%u of %u frames did not reach the consumer "
        "(%u latency samples)", run.lost, run.total, run.lat_us->len);
    goto out;
  }

  {
    GstStructure *ss = NULL, *ws = NULL;
    GString *note = g_string_new (NULL);
    gboolean sok = TRUE;
    gdouble dt = run.t_end - run.t_start;
    const gchar *path = NULL;

    if (sig)
      g_object_get (sig, "stats", &ss, NULL);
    if (wait)
      g_object_get (wait, "stats", &ws, NULL);
    if (bridge)
      g_object_get (bridge, "stats", &ss, NULL);
    switch (mode) {
      case MODE_A:
      case MODE_A_IF1:
      case MODE_A_IF8:
      case MODE_A4:
      case MODE_A1:
        sok &= expect_stat (ss, "signals", run.total, note, "cudasemsignal");
        sok &= expect_stat (ss, "waits", run.total, note, "cudasemsignal");
        sok &= expect_stat (ss, "cpu-syncs", 0, note, "cudasemsignal");
        if (mode == MODE_A1)
          break;
        /* one acquire point per buffer: cudasemsignal waited for the
         * producer's and replaced it with its own */
        sok &= expect_stat (ws, "waits", (guint64) run.total, note,
            "cudasemwait");
        sok &= expect_stat (ws, "cpu-syncs", 0, note, "cudasemwait");
        break;
      case MODE_A2:
        sok &= expect_stat (ws, "waits", (guint64) run.total, note,
            "cudasemwait");
        sok &= expect_stat (ws, "cpu-syncs", 0, note, "cudasemwait");
        break;
      case MODE_C:
        sok &= expect_stat (ss, "signals", 0, note, "cudasemsignal");
        sok &= expect_stat (ss, "cpu-syncs", run.total, note,
            "cudasemsignal");
        sok &= expect_stat (ws, "waits", 0, note, "cudasemwait");
        break;
      case MODE_CV_A:
      case MODE_CV_C:
      case MODE_S6_A:
        sok &= expect_bridge_stats (ss, "cudatovulkan", run.total,
            mode != MODE_CV_C ? run.total : 0, note, &path);
        break;
      case MODE_S5_A:
      case MODE_S5_C:
        sok &= expect_bridge_stats (ss, "cudatovulkan", run.total,
            mode == MODE_S5_A ? run.total : 0, note, &path);
        g_object_get (probe_el, "stats", &ws, NULL);
        {
          const gchar *path2 = NULL;

          sok &= expect_bridge_stats (ws, "vulkantocuda", run.total,
              G_MAXUINT, note, &path2);
          if (g_strcmp0 (path, path2) != 0)
            path = "mixed (cudatovulkan and vulkantocuda took different "
                "paths)";
        }
        break;
      case MODE_VC_A:
        sok &= expect_bridge_stats (ss, "vulkantocuda", run.total,
            G_MAXUINT, note, &path);
        break;
      default:
        break;
    }

    g_mutex_lock (&R.lock);
    series_add (m->fps, dt > 0 ? n_meas / dt : NAN);
    m->last_t[0] = run.t_start;
    m->last_t[1] = run.t_end;
    m->last_cpu[0] = run.cpu_start;
    m->last_cpu[1] = run.cpu_end;
    m->last_frames = n_meas;
    series_add (m->proc_cpu_us, (run.cpu_end - run.cpu_start) * 1e6 / n_meas);
    series_add (m->prod_cpu_us, run.prod_cpu * 1e6 / n_meas);
    series_add (m->lat_p50_us, series_percentile (run.lat_us, 0.50));
    series_add (m->lat_p99_us, series_percentile (run.lat_us, 0.99));
    if (run.kern_us->len)
      series_add (m->kernel_us, series_median (run.kern_us));
    if (sim_thread_cpu_syncs)
      series_add (m->sim_syncs, (gdouble) run.sim_syncs / n_meas);
    if (m->sig_stats)
      gst_structure_free (m->sig_stats);
    if (m->wait_stats)
      gst_structure_free (m->wait_stats);
    m->sig_stats = ss;
    m->wait_stats = ws;
    if (path) {
      g_free (m->path);
      m->path = g_strdup (path);
    }
    if (!sok) {
      m->stats_ok = FALSE;
      g_free (m->stats_note);
      m->stats_note = g_strdup (note->str);
    }
    g_mutex_unlock (&R.lock);
    if (!sok)
      g_print ("    WARNING: mode %s: unexpected element stats: %s\n",
          mode_key[mode], note->str);
    g_string_free (note, TRUE);
  }
  ok = TRUE;

out:
  if (cfg->gate && !arrived)
    gate_arrive (cfg->gate, FALSE);
  gst_element_set_state (run.pipeline, GST_STATE_NULL);
  if (run.srcpad) {
    gst_pad_set_active (run.srcpad, FALSE);
    gst_object_unref (run.srcpad);
  }
  gst_object_unref (run.pipeline);
  /* frames left behind by a failed run */
  {
    RecycleItem *item;

    while (run.pending && (item = g_async_queue_try_pop (run.pending)))
      g_async_queue_push (run.recycle_q, item);
    while ((item = g_async_queue_try_pop (run.recycle_q))) {
      if (item->buf) {
        gst_buffer_unref (item->buf);
        g_async_queue_push (run.free_pairs, item->pair);
      }
      if (item->out)
        gst_buffer_unref (item->out);
      g_free (item);
    }
  }
  if (!ok)
    ctx_sync (NULL);
  if (run.cstream && gst_cuda_context_push (ctx)) {
    drv.cuStreamSynchronize (run.cstream);
    drv.cuStreamDestroy (run.cstream);
    gst_cuda_context_pop (NULL);
  }
  if (run.pending)
    g_async_queue_unref (run.pending);
  g_async_queue_unref (run.recycle_q);
  g_array_unref (run.lat_us);
  g_array_unref (run.kern_us);
  gst_caps_unref (caps);
  g_free (run.error);
  g_mutex_clear (&run.lock);
  return ok;
}

/* ------------------------------------------------------------------ */
/* scenario 3 mode d: the raw-API limit                                 */
/* ------------------------------------------------------------------ */

#ifdef HAVE_CUDA_VULKAN
#define D_MAX_PLANES 2

typedef struct
{
  CUdeviceptr src;              /* the CUDA frame (own allocation) */
  struct
  {
    VkImage image;
    VkDeviceMemory memory;
    CUexternalMemory ext;
    CUdeviceptr ptr;            /* the image's texels in CUDA */
    VkDeviceSize offset, pitch, alloc;
    gsize wbytes, rows, host_off;
  } p[D_MAX_PLANES];
  VkBuffer host;                /* the consumer's host-visible copy */
  VkDeviceMemory host_mem;
  guint8 *host_map;
  VkSemaphore vk_sem;
  CUexternalSemaphore cu_sem;
  VkFence fence;
  VkCommandBuffer cmd;
  EvPair *pair;
  guint frame;
  gdouble t0;
} DSlot;

typedef struct
{
  Run *run;
  VkDevice dev;
  GAsyncQueue *done;            /* submitted slots, in order; NULL: stop */
  GAsyncQueue *free_slots;
  guint n_planes;
  gboolean verify_kernel;
  gchar *bad;                   /* first byte mismatch */
  /* d_stall: the consumer submits and waits, one frame at a time */
  gboolean stall, gpu;
  GstVulkanQueue *queue;
} DCtx;

static gboolean
d_memory_type (GstVulkanDevice * device, guint32 bits, VkMemoryPropertyFlags
    want, guint32 * idx)
{
  const VkPhysicalDeviceMemoryProperties *mp =
      &device->physical_device->memory_properties;
  guint32 i;

  for (i = 0; i < mp->memoryTypeCount; i++)
    if ((bits & (1u << i)) && (mp->memoryTypes[i].propertyFlags & want) ==
        want) {
      *idx = i;
      return TRUE;
    }
  return FALSE;
}

/* What the consumer found in word (x, y) of plane p of the frame: the
 * kernel's pattern (bench/spin.cu) or the memset value */
static gboolean
d_check_frame (DCtx * d, DSlot * sl)
{
  guint32 seed = sl->frame * 2654435761u;
  guint p, k;

  for (p = 0; p < d->n_planes; p++) {
    guint xs[3] = { 0, (guint) sl->p[p].wbytes / 8, (guint) sl->p[p].wbytes /
      4 - 1 }, ys[3] = { 0, (guint) sl->p[p].rows / 2,
      (guint) sl->p[p].rows - 1 };

    for (k = 0; k < 3; k++) {
      guint32 got, want = d->verify_kernel ?
          (seed + p) ^ (ys[k] * 0x9e3779b9u + xs[k]) : seed + p;

      memcpy (&got, sl->host_map + sl->p[p].host_off + ys[k] *
          sl->p[p].wbytes + xs[k] * 4, 4);
      if (got != want) {
        if (!d->bad)
          d->bad = g_strdup_printf ("frame %u plane %u word (%u, %u): "
              "Vulkan read 0x%08x, CUDA wrote 0x%08x", sl->frame, p, xs[k],
              ys[k], got, want);
        return FALSE;
      }
    }
  }
  return TRUE;
}

/* Submits the slot's pre-recorded copy, waiting on its semaphore on the GPU
 * path, with the slot's fence. */
static VkResult
d_submit (DCtx * d, DSlot * sl)
{
  VkPipelineStageFlags stage = VK_PIPELINE_STAGE_TRANSFER_BIT;
  VkSubmitInfo si = { VK_STRUCTURE_TYPE_SUBMIT_INFO, NULL, 0, NULL, NULL,
    1, &sl->cmd, 0, NULL
  };
  VkResult res;

  if (d->gpu) {
    si.waitSemaphoreCount = 1;
    si.pWaitSemaphores = &sl->vk_sem;
    si.pWaitDstStageMask = &stage;
  }
  gst_vulkan_queue_submit_lock (d->queue);
  res = vkQueueSubmit (d->queue->queue, 1, &si, sl->fence);
  gst_vulkan_queue_submit_unlock (d->queue);
  return res;
}

/* the consumer thread: waits for each slot's fence, then frees the slot */
static gpointer
d_consumer (gpointer data)
{
  DCtx *d = data;
  Run *run = d->run;

  for (;;) {
    DSlot *sl = g_async_queue_timeout_pop (d->done, RUN_WAIT_US);
    VkResult res;
    CUresult r = CUDA_ERROR_INVALID_CONTEXT;
    gfloat kms = 0;

    if (!sl) {
      run_error (run, g_strdup ("d: no frame submitted for 10 s"));
      break;
    }
    if (sl == (DSlot *) d)
      break;
    /* d_stall: the consumer submits (vulkandownload's shape) */
    if (d->stall && (res = d_submit (d, sl)) != VK_SUCCESS) {
      run_error (run, g_strdup_printf ("d: vkQueueSubmit: %d", res));
      break;
    }
    res = vkWaitForFences (d->dev, 1, &sl->fence, VK_TRUE,
        (guint64) RUN_WAIT_US * 1000);
    sl->t0 = mono_s () - sl->t0;      /* latency */
    if (res != VK_SUCCESS) {
      run_error (run, g_strdup_printf ("d: vkWaitForFences: %d", res));
      break;
    }
    vkResetFences (d->dev, 1, &sl->fence);
    d_check_frame (d, sl);
    if (gst_cuda_context_push (ctx)) {
      r = drv.cuEventSynchronize (sl->pair->ek);
      if (r == CUDA_SUCCESS)
        r = drv.cuEventElapsedTime (&kms, sl->pair->e0, sl->pair->ek);
      gst_cuda_context_pop (NULL);
    }
    if (r != CUDA_SUCCESS)
      run_error (run, cu_error ("d: cuEventElapsedTime", r));
    else if (sl->frame >= run->warmup) {
      series_add (run->lat_us, sl->t0 * 1e6);
      series_add (run->kern_us, kms * 1000.0);
    }
    if (sl->frame + 1 == run->warmup) {
      /* the measured window, as s2_recycler() */
      run->t_start = mono_s ();
      run->cpu_start = process_cpu_s ();
    }
    if (sl->frame == run->total - 1) {
      run->t_end = mono_s ();
      run->cpu_end = process_cpu_s ();
    }
    g_async_queue_push (d->free_slots, sl);
    progress ();
  }
  return NULL;
}

/* One repetition of mode d. Everything is set up before and torn down
 * after the measured frames; per frame only plain CUDA and Vulkan calls. */
static gboolean
s3d_run_once (S2Config * cfg, gint mode, FrameWriter writer, CUstream pstream,
    GAsyncQueue * free_pairs, gchar ** error)
{
  ModeResult *m = &cfg->m[mode];
  GstVulkanDevice *device = NULL;
  GstVulkanQueue *queue = NULL;
  PFN_vkGetMemoryFdKHR get_mem_fd;
  PFN_vkGetSemaphoreFdKHR get_sem_fd;
  PFN_vkGetPhysicalDeviceExternalSemaphoreProperties get_sem_props;
  VkDevice dev;
  VkCommandPool cpool = VK_NULL_HANDLE;
  DSlot *slots;
  DCtx d;
  Run run;
  GstCaps *caps;
  guint n_slots = (guint) opt.in_flight, i, p, n;
  guint family = 0;
  gboolean gpu = FALSE, ok = FALSE, pushed = FALSE;
  GThread *consumer = NULL;
  gdouble tcpu0 = 0;
  guint syncs0 = 0;
  gchar *e = NULL;
  CUresult r = CUDA_SUCCESS;
  VkResult res = VK_SUCCESS;
  const gchar *what = NULL;

  memset (&run, 0, sizeof (run));
  memset (&d, 0, sizeof (d));
  g_mutex_init (&run.lock);
  run.cfg = cfg;
  run.mode = mode;
  run.writer = writer;
  run.pstream = pstream;
  run.total = m->frames + m->warmup;
  run.warmup = m->warmup;
  run.lat_us = series_new ();
  run.kern_us = series_new ();
  run.grid = MAX (R.sm_count, 1) * 4;
  caps = cuda_caps (cfg->format, cfg->width, cfg->height);
  gst_video_info_from_caps (&run.info, caps);
  gst_caps_unref (caps);
  slots = g_new0 (DSlot, n_slots);
  d.run = &run;
  d.done = g_async_queue_new ();
  d.free_slots = g_async_queue_new ();
  d.n_planes = GST_VIDEO_INFO_N_PLANES (&run.info);
  d.verify_kernel = writer == WRITER_KERNEL;

  g_mutex_lock (&vk_ctx_lock);
  if (vk_ctx[1])
    gst_context_get_vulkan_device (vk_ctx[1], &device);
  g_mutex_unlock (&vk_ctx_lock);
  if (!device || d.n_planes > D_MAX_PLANES) {
    *error = g_strdup (device ? "d: more than 2 planes" :
        "d: no Vulkan device");
    goto out;
  }
  dev = d.dev = device->device;
  for (i = 0; i < device->physical_device->n_queue_families; i++)
    if (device->physical_device->queue_family_props[i].queueFlags &
        (VK_QUEUE_GRAPHICS_BIT | VK_QUEUE_COMPUTE_BIT)) {
      family = i;
      break;
    }
  queue = gst_vulkan_device_get_queue (device, family, 0);
  get_mem_fd = (PFN_vkGetMemoryFdKHR) vkGetDeviceProcAddr (dev,
      "vkGetMemoryFdKHR");
  get_sem_fd = (PFN_vkGetSemaphoreFdKHR) vkGetDeviceProcAddr (dev,
      "vkGetSemaphoreFdKHR");
  get_sem_props = gst_vulkan_instance_get_proc_address (device->instance,
      "vkGetPhysicalDeviceExternalSemaphoreProperties");
  if (!queue || !get_mem_fd) {
    *error = g_strdup_printf ("d: %s", queue ? "no vkGetMemoryFdKHR" :
        "no Vulkan queue");
    goto out;
  }
  if (get_sem_fd && get_sem_props) {
    VkPhysicalDeviceExternalSemaphoreInfo si = { 0, };
    VkExternalSemaphoreProperties sp = { 0, };

    si.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_EXTERNAL_SEMAPHORE_INFO;
    si.handleType = VK_EXTERNAL_SEMAPHORE_HANDLE_TYPE_OPAQUE_FD_BIT;
    sp.sType = VK_STRUCTURE_TYPE_EXTERNAL_SEMAPHORE_PROPERTIES;
    get_sem_props (device->physical_device->device, &si, &sp);
    gpu = (sp.externalSemaphoreFeatures &
        VK_EXTERNAL_SEMAPHORE_FEATURE_EXPORTABLE_BIT) != 0;
  }

  {
    VkCommandPoolCreateInfo ci = { VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
      NULL, VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT, family
    };
    what = "vkCreateCommandPool";
    res = vkCreateCommandPool (dev, &ci, NULL, &cpool);
    if (res != VK_SUCCESS)
      goto vk_fail;
  }

  if (!gst_cuda_context_push (ctx)) {
    *error = g_strdup ("d: could not push the CUDA context");
    goto out;
  }
  pushed = TRUE;
  for (i = 0; i < n_slots; i++) {
    DSlot *sl = &slots[i];
    VkDeviceSize host_size = 0;

    what = "cuMemAlloc";
    r = drv.cuMemAlloc (&sl->src, GST_VIDEO_INFO_SIZE (&run.info));
    if (r != CUDA_SUCCESS)
      goto cu_fail;
    for (p = 0; p < d.n_planes; p++) {
      VkExternalMemoryImageCreateInfo ext = {
        VK_STRUCTURE_TYPE_EXTERNAL_MEMORY_IMAGE_CREATE_INFO, NULL,
        VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT
      };
      VkImageCreateInfo ci = { 0, };
      VkImageSubresource sub = { VK_IMAGE_ASPECT_COLOR_BIT, 0, 0 };
      VkSubresourceLayout layout;
      VkMemoryRequirements req;
      VkMemoryDedicatedAllocateInfo ded = {
        VK_STRUCTURE_TYPE_MEMORY_DEDICATED_ALLOCATE_INFO, NULL, 0, 0
      };
      VkExportMemoryAllocateInfo exp = {
        VK_STRUCTURE_TYPE_EXPORT_MEMORY_ALLOCATE_INFO, &ded,
        VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT
      };
      VkMemoryAllocateInfo ai = { VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO,
        &exp, 0, 0
      };
      VkMemoryGetFdInfoKHR fdi = { VK_STRUCTURE_TYPE_MEMORY_GET_FD_INFO_KHR,
        NULL, 0, VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT
      };
      CUDA_EXTERNAL_MEMORY_HANDLE_DESC hd;
      CUDA_EXTERNAL_MEMORY_BUFFER_DESC bd;
      gint comp[GST_VIDEO_MAX_COMPONENTS];
      guint w, h;
      int fd = -1;

      gst_video_format_info_component (run.info.finfo, p, comp);
      w = GST_VIDEO_INFO_COMP_WIDTH (&run.info, comp[0]);
      h = GST_VIDEO_INFO_COMP_HEIGHT (&run.info, comp[0]);
      sl->p[p].wbytes = (gsize) w *
          GST_VIDEO_INFO_COMP_PSTRIDE (&run.info, comp[0]);
      sl->p[p].rows = h;
      sl->p[p].host_off = host_size;
      host_size += sl->p[p].wbytes * h;

      /* the formats cudatovulkan gives these planes */
      ci.sType = VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO;
      ci.pNext = &ext;
      ci.imageType = VK_IMAGE_TYPE_2D;
      ci.format = d.n_planes == 1 ? VK_FORMAT_R8G8B8A8_UNORM : p == 0 ?
          VK_FORMAT_R8_UNORM : VK_FORMAT_R8G8_UNORM;
      ci.extent.width = w;
      ci.extent.height = h;
      ci.extent.depth = 1;
      ci.mipLevels = 1;
      ci.arrayLayers = 1;
      ci.samples = VK_SAMPLE_COUNT_1_BIT;
      ci.tiling = VK_IMAGE_TILING_LINEAR;
      ci.usage = VK_IMAGE_USAGE_TRANSFER_SRC_BIT |
          VK_IMAGE_USAGE_TRANSFER_DST_BIT;
      ci.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
      ci.initialLayout = VK_IMAGE_LAYOUT_UNDEFINED;   /* external memory */
      what = "vkCreateImage (linear, exportable)";
      if ((res = vkCreateImage (dev, &ci, NULL, &sl->p[p].image)))
        goto vk_fail;
      vkGetImageSubresourceLayout (dev, sl->p[p].image, &sub, &layout);
      sl->p[p].offset = layout.offset;
      sl->p[p].pitch = layout.rowPitch;
      vkGetImageMemoryRequirements (dev, sl->p[p].image, &req);
      /* dedicated, as the elements (required on the NVIDIA driver) */
      ded.image = sl->p[p].image;
      ai.allocationSize = req.size;
      if (!d_memory_type (device, req.memoryTypeBits,
              VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, &ai.memoryTypeIndex) &&
          !d_memory_type (device, req.memoryTypeBits, 0,
              &ai.memoryTypeIndex)) {
        *error = g_strdup ("d: no memory type for the image");
        goto out;
      }
      what = "vkAllocateMemory (dedicated, exportable)";
      if ((res = vkAllocateMemory (dev, &ai, NULL, &sl->p[p].memory)))
        goto vk_fail;
      sl->p[p].alloc = req.size;
      what = "vkBindImageMemory";
      if ((res = vkBindImageMemory (dev, sl->p[p].image, sl->p[p].memory, 0)))
        goto vk_fail;
      fdi.memory = sl->p[p].memory;
      what = "vkGetMemoryFdKHR";
      if ((res = get_mem_fd (dev, &fdi, &fd)))
        goto vk_fail;
      memset (&hd, 0, sizeof (hd));
      hd.type = CU_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD;
      hd.handle.fd = fd;
      hd.size = req.size;
      hd.flags = CUDA_EXTERNAL_MEMORY_DEDICATED;
      what = "cuImportExternalMemory";
      if ((r = drv.cuImportExternalMemory (&sl->p[p].ext, &hd))) {
        close (fd);
        goto cu_fail;
      }
      memset (&bd, 0, sizeof (bd));
      bd.size = req.size;
      what = "cuExternalMemoryGetMappedBuffer";
      if ((r = drv.cuExternalMemoryGetMappedBuffer (&sl->p[p].ptr,
                  sl->p[p].ext, &bd)))
        goto cu_fail;
    }

    /* the consumer's host-visible buffer */
    {
      VkBufferCreateInfo bi = { VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO, NULL, 0,
        host_size, VK_BUFFER_USAGE_TRANSFER_DST_BIT,
        VK_SHARING_MODE_EXCLUSIVE, 0, NULL
      };
      VkMemoryRequirements req;
      VkMemoryAllocateInfo ai = { VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO,
        NULL, 0, 0
      };

      what = "vkCreateBuffer (host-visible)";
      if ((res = vkCreateBuffer (dev, &bi, NULL, &sl->host)))
        goto vk_fail;
      vkGetBufferMemoryRequirements (dev, sl->host, &req);
      ai.allocationSize = req.size;
      if (!d_memory_type (device, req.memoryTypeBits,
              VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT |
              VK_MEMORY_PROPERTY_HOST_COHERENT_BIT |
              VK_MEMORY_PROPERTY_HOST_CACHED_BIT, &ai.memoryTypeIndex) &&
          !d_memory_type (device, req.memoryTypeBits,
              VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT |
              VK_MEMORY_PROPERTY_HOST_COHERENT_BIT, &ai.memoryTypeIndex)) {
        *error = g_strdup ("d: no host-visible coherent memory type");
        goto out;
      }
      what = "vkAllocateMemory (host-visible)";
      if ((res = vkAllocateMemory (dev, &ai, NULL, &sl->host_mem)))
        goto vk_fail;
      what = "vkBindBufferMemory";
      if ((res = vkBindBufferMemory (dev, sl->host, sl->host_mem, 0)))
        goto vk_fail;
      what = "vkMapMemory";
      if ((res = vkMapMemory (dev, sl->host_mem, 0, VK_WHOLE_SIZE, 0,
                  (void **) &sl->host_map)))
        goto vk_fail;
    }

    /* the slot's binary semaphore, exported to CUDA */
    if (gpu) {
      VkExportSemaphoreCreateInfo es = {
        VK_STRUCTURE_TYPE_EXPORT_SEMAPHORE_CREATE_INFO, NULL,
        VK_EXTERNAL_SEMAPHORE_HANDLE_TYPE_OPAQUE_FD_BIT
      };
      VkSemaphoreCreateInfo sci = { VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO,
        &es, 0
      };
      VkSemaphoreGetFdInfoKHR sfd = {
        VK_STRUCTURE_TYPE_SEMAPHORE_GET_FD_INFO_KHR, NULL, 0,
        VK_EXTERNAL_SEMAPHORE_HANDLE_TYPE_OPAQUE_FD_BIT
      };
      CUDA_EXTERNAL_SEMAPHORE_HANDLE_DESC sd;
      int fd = -1;

      what = "vkCreateSemaphore (exportable)";
      if ((res = vkCreateSemaphore (dev, &sci, NULL, &sl->vk_sem)))
        goto vk_fail;
      sfd.semaphore = sl->vk_sem;
      what = "vkGetSemaphoreFdKHR";
      if ((res = get_sem_fd (dev, &sfd, &fd)))
        goto vk_fail;
      memset (&sd, 0, sizeof (sd));
      sd.type = CU_EXTERNAL_SEMAPHORE_HANDLE_TYPE_OPAQUE_FD;
      sd.handle.fd = fd;
      what = "cuImportExternalSemaphore";
      if ((r = drv.cuImportExternalSemaphore (&sl->cu_sem, &sd))) {
        close (fd);
        goto cu_fail;
      }
    }
    {
      VkFenceCreateInfo fi = { VK_STRUCTURE_TYPE_FENCE_CREATE_INFO, NULL, 0 };
      VkCommandBufferAllocateInfo cai = {
        VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO, NULL, cpool,
        VK_COMMAND_BUFFER_LEVEL_PRIMARY, 1
      };
      what = "vkCreateFence";
      if ((res = vkCreateFence (dev, &fi, NULL, &sl->fence)))
        goto vk_fail;
      what = "vkAllocateCommandBuffers";
      if ((res = vkAllocateCommandBuffers (dev, &cai, &sl->cmd)))
        goto vk_fail;
    }
    sl->pair = g_async_queue_pop (free_pairs);
  }
  drv.cuCtxSynchronize ();
  gst_cuda_context_pop (NULL);
  pushed = FALSE;

  /* the slots' command buffers, recorded once: the first one also takes
   * every image from UNDEFINED to GENERAL (submitted and waited for
   * outside the measurement); then per frame: acquire the images from
   * the external (CUDA) queue family, copy them into the host-visible
   * buffer, make the copy visible to the host */
  for (n = 0; n < 2; n++) {
    for (i = 0; i < n_slots; i++) {
      DSlot *sl = &slots[i];
      VkCommandBufferBeginInfo bi = {
        VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO, NULL, 0, NULL
      };
      VkImageMemoryBarrier ib[D_MAX_PLANES];
      VkBufferMemoryBarrier hb = { VK_STRUCTURE_TYPE_BUFFER_MEMORY_BARRIER,
        NULL, VK_ACCESS_TRANSFER_WRITE_BIT, VK_ACCESS_HOST_READ_BIT,
        VK_QUEUE_FAMILY_IGNORED, VK_QUEUE_FAMILY_IGNORED, sl->host, 0,
        VK_WHOLE_SIZE
      };

      what = "vkBeginCommandBuffer";
      if ((res = vkBeginCommandBuffer (sl->cmd, &bi)))
        goto vk_fail;
      for (p = 0; p < d.n_planes; p++) {
        memset (&ib[p], 0, sizeof (ib[p]));
        ib[p].sType = VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER;
        ib[p].dstAccessMask = VK_ACCESS_TRANSFER_READ_BIT;
        ib[p].oldLayout = n == 0 ? VK_IMAGE_LAYOUT_UNDEFINED :
            VK_IMAGE_LAYOUT_GENERAL;
        ib[p].newLayout = VK_IMAGE_LAYOUT_GENERAL;
        ib[p].srcQueueFamilyIndex = n == 0 ? VK_QUEUE_FAMILY_IGNORED :
            VK_QUEUE_FAMILY_EXTERNAL;
        ib[p].dstQueueFamilyIndex = n == 0 ? VK_QUEUE_FAMILY_IGNORED : family;
        ib[p].image = sl->p[p].image;
        ib[p].subresourceRange.aspectMask = VK_IMAGE_ASPECT_COLOR_BIT;
        ib[p].subresourceRange.levelCount = 1;
        ib[p].subresourceRange.layerCount = 1;
      }
      vkCmdPipelineBarrier (sl->cmd, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT,
          VK_PIPELINE_STAGE_TRANSFER_BIT, 0, 0, NULL, 0, NULL, d.n_planes, ib);
      for (p = 0; n == 1 && p < d.n_planes; p++) {
        VkBufferImageCopy rg = { 0, };

        rg.bufferOffset = sl->p[p].host_off;
        rg.imageSubresource.aspectMask = VK_IMAGE_ASPECT_COLOR_BIT;
        rg.imageSubresource.layerCount = 1;
        rg.imageExtent.width = sl->p[p].wbytes / (d.n_planes == 1 ? 4 :
            p == 0 ? 1 : 2);
        rg.imageExtent.height = sl->p[p].rows;
        rg.imageExtent.depth = 1;
        vkCmdCopyImageToBuffer (sl->cmd, sl->p[p].image,
            VK_IMAGE_LAYOUT_GENERAL, sl->host, 1, &rg);
      }
      if (n == 1)
        vkCmdPipelineBarrier (sl->cmd, VK_PIPELINE_STAGE_TRANSFER_BIT,
            VK_PIPELINE_STAGE_HOST_BIT, 0, 0, NULL, 1, &hb, 0, NULL);
      what = "vkEndCommandBuffer";
      if ((res = vkEndCommandBuffer (sl->cmd)))
        goto vk_fail;
      if (n == 0) {
        VkSubmitInfo si = { VK_STRUCTURE_TYPE_SUBMIT_INFO, NULL, 0, NULL,
          NULL, 1, &sl->cmd, 0, NULL
        };
        gst_vulkan_queue_submit_lock (queue);
        res = vkQueueSubmit (queue->queue, 1, &si, sl->fence);
        gst_vulkan_queue_submit_unlock (queue);
        what = "vkQueueSubmit (layout)";
        if (res || (res = vkWaitForFences (dev, 1, &sl->fence, VK_TRUE,
                    (guint64) RUN_WAIT_US * 1000)))
          goto vk_fail;
        vkResetFences (dev, 1, &sl->fence);
        vkResetCommandBuffer (sl->cmd, 0);
      }
    }
  }
  for (i = 0; i < n_slots; i++)
    g_async_queue_push (d.free_slots, &slots[i]);

  /* the frames: this (the producer) thread is the critical one */
  progress ();
  d.stall = mode == MODE_CV_D2;
  d.gpu = gpu;
  d.queue = queue;
  consumer = g_thread_new ("bench-d-consumer", d_consumer, &d);
  for (n = 0; n < run.total && !run_failed (&run); n++) {
    DSlot *sl;

    if (n == run.warmup) {
      /* window opened by the consumer at the last warm-up frame */
      tcpu0 = thread_cpu_s ();
      if (sim_thread_cpu_syncs)
        syncs0 = sim_thread_cpu_syncs ();
    }
    sl = g_async_queue_timeout_pop (d.free_slots, RUN_WAIT_US);
    if (!sl) {
      run_error (&run, g_strdup ("d: no slot was released for 10 s"));
      break;
    }
    sl->frame = n;
    sl->t0 = mono_s ();
    if (!gst_cuda_context_push (ctx)) {
      run_error (&run, g_strdup ("d: could not push the CUDA context"));
      break;
    }
    what = "cuEventRecord";
    r = drv.cuEventRecord (sl->pair->e0, pstream);
    if (r == CUDA_SUCCESS) {
      what = writer == WRITER_KERNEL ? "cuLaunchKernel" : "cuMemsetD32Async";
      r = write_frame (&run, NULL, (guint8 *) (guintptr) sl->src, n);
    }
    if (r == CUDA_SUCCESS) {
      what = "cuEventRecord";
      r = drv.cuEventRecord (sl->pair->ek, pstream);
    }
    for (p = 0; r == CUDA_SUCCESS && p < d.n_planes; p++) {
      CUDA_MEMCPY2D c;

      memset (&c, 0, sizeof (c));
      c.srcMemoryType = CU_MEMORYTYPE_DEVICE;
      c.srcDevice = sl->src + GST_VIDEO_INFO_PLANE_OFFSET (&run.info, p);
      c.srcPitch = GST_VIDEO_INFO_PLANE_STRIDE (&run.info, p);
      c.dstMemoryType = CU_MEMORYTYPE_DEVICE;
      c.dstDevice = sl->p[p].ptr + sl->p[p].offset;
      c.dstPitch = sl->p[p].pitch;
      c.WidthInBytes = sl->p[p].wbytes;
      c.Height = sl->p[p].rows;
      what = "cuMemcpy2DAsync";
      r = drv.cuMemcpy2DAsync (&c, pstream);
    }
    if (r == CUDA_SUCCESS && gpu) {
      CUDA_EXTERNAL_SEMAPHORE_SIGNAL_PARAMS sp;

      memset (&sp, 0, sizeof (sp));
      what = "cuSignalExternalSemaphoresAsync";
      r = drv.cuSignalExternalSemaphoresAsync (&sl->cu_sem, &sp, 1, pstream);
    } else if (r == CUDA_SUCCESS) {
      what = "cuStreamSynchronize (CPU fallback)";
      r = drv.cuStreamSynchronize (pstream);
    }
    gst_cuda_context_pop (NULL);
    if (r != CUDA_SUCCESS) {
      run_error (&run, cu_error (what, r));
      break;
    }
    /* d_stall: the consumer submits (vulkandownload's shape) */
    if (!d.stall && (res = d_submit (&d, sl)) != VK_SUCCESS) {
      run_error (&run, g_strdup_printf ("d: vkQueueSubmit: %d", res));
      break;
    }
    g_async_queue_push (d.done, sl);
    progress ();
  }
  run.prod_cpu = thread_cpu_s () - tcpu0;
  if (sim_thread_cpu_syncs)
    run.sim_syncs = sim_thread_cpu_syncs () - syncs0;
  g_async_queue_push (d.done, &d);      /* stop */
  g_thread_join (consumer);
  consumer = NULL;

  if (run.error) {
    *error = g_strdup (run.error);
    goto out;
  }
  if (d.bad) {
    *error = g_strdup_printf ("d: the frame Vulkan copied is not what CUDA "
        "wrote: %s", d.bad);
    goto out;
  }
  if (run.lat_us->len != run.total - run.warmup) {
    *error = g_strdup_printf ("d: %u of %u frames measured",
        run.lat_us->len, run.total - run.warmup);
    goto out;
  }
  {
    guint n_meas = run.total - run.warmup;
    gdouble dt = run.t_end - run.t_start;

    g_mutex_lock (&R.lock);
    series_add (m->fps, dt > 0 ? n_meas / dt : NAN);
    series_add (m->proc_cpu_us, (run.cpu_end - run.cpu_start) * 1e6 / n_meas);
    series_add (m->prod_cpu_us, run.prod_cpu * 1e6 / n_meas);
    series_add (m->lat_p50_us, series_percentile (run.lat_us, 0.50));
    series_add (m->lat_p99_us, series_percentile (run.lat_us, 0.99));
    series_add (m->kernel_us, series_median (run.kern_us));
    if (sim_thread_cpu_syncs)
      series_add (m->sim_syncs, (gdouble) run.sim_syncs / n_meas);
    g_free (m->path);
    m->path = g_strdup (gpu ? "GPU (semaphores)" : "CPU fallback (Vulkan "
        "cannot export semaphores: cuStreamSynchronize before vkQueueSubmit; "
        "not the raw limit)");
    g_mutex_unlock (&R.lock);
  }
  ok = TRUE;
  goto out;

vk_fail:
  *error = g_strdup_printf ("d: %s failed: %d", what, res);
  goto out;
cu_fail:
  *error = cu_error (what, r);
  goto out;

out:
  if (consumer) {
    g_async_queue_push (d.done, &d);
    g_thread_join (consumer);
  }
  if (!pushed && gst_cuda_context_push (ctx))
    pushed = TRUE;
  if (pushed) {
    drv.cuStreamSynchronize (pstream);
    drv.cuCtxSynchronize ();
  }
  if (device && device->device)
    vkDeviceWaitIdle (device->device);
  for (i = 0; i < n_slots; i++) {
    DSlot *sl = &slots[i];

    if (pushed) {
      if (sl->cu_sem)
        drv.cuDestroyExternalSemaphore (sl->cu_sem);
      for (p = 0; p < D_MAX_PLANES; p++) {
        if (sl->p[p].ptr)
          drv.cuMemFree (sl->p[p].ptr);
        if (sl->p[p].ext)
          drv.cuDestroyExternalMemory (sl->p[p].ext);
      }
      if (sl->src)
        drv.cuMemFree (sl->src);
    }
    if (device) {
      for (p = 0; p < D_MAX_PLANES; p++) {
        if (sl->p[p].image)
          vkDestroyImage (device->device, sl->p[p].image, NULL);
        if (sl->p[p].memory)
          vkFreeMemory (device->device, sl->p[p].memory, NULL);
      }
      if (sl->host)
        vkDestroyBuffer (device->device, sl->host, NULL);
      if (sl->host_mem)
        vkFreeMemory (device->device, sl->host_mem, NULL);
      if (sl->vk_sem)
        vkDestroySemaphore (device->device, sl->vk_sem, NULL);
      if (sl->fence)
        vkDestroyFence (device->device, sl->fence, NULL);
    }
    if (sl->pair)
      g_async_queue_push (free_pairs, sl->pair);
  }
  if (pushed)
    gst_cuda_context_pop (NULL);
  if (cpool)
    vkDestroyCommandPool (device->device, cpool, NULL);
  g_free (slots);
  g_async_queue_unref (d.done);
  g_async_queue_unref (d.free_slots);
  g_free (d.bad);
  gst_clear_object (&queue);
  gst_clear_object (&device);
  g_array_unref (run.lat_us);
  g_array_unref (run.kern_us);
  g_free (run.error);
  g_mutex_clear (&run.lock);
  (void) e;
  return ok;
}
#else
static gboolean
s3d_run_once (S2Config * cfg, gint mode, FrameWriter writer, CUstream pstream,
    GAsyncQueue * free_pairs, gchar ** error)
{
  *error = g_strdup ("built without Vulkan");
  return FALSE;
}
#endif

static void
s2_print_header (void)
{
  g_print ("  %-9s %-4s %4s %14s %9s %11s %11s %10s %10s %9s\n", "size",
      "fmt", "gpu", "mode", "fps", "proc-cpu", "prod-cpu", "lat-p50",
      "lat-p99", "write");
  g_print ("  %-9s %-4s %4s %14s %9s %11s %11s %10s %10s %9s\n", "", "", "ms",
      "", "median", "us/frame", "us/frame", "us", "us", "gpu-us");
}

static void
s2_print_ratio (S2Config * c, gint mode, gint ref)
{
  gchar label[40];

  if (g_strcmp0 (c->m[mode].status, "ok") != 0 ||
      g_strcmp0 (c->m[ref].status, "ok") != 0)
    return;
  g_snprintf (label, sizeof (label), "%s/%s", mode_key[mode], mode_key[ref]);
  g_print ("  %-9s %-4s %4s %14s %9.2f %11.2f %11.2f %10.2f %10.2f\n", "", "",
      "", label, ratio (series_median (c->m[mode].fps),
          series_median (c->m[ref].fps)),
      ratio (series_median (c->m[mode].proc_cpu_us),
          series_median (c->m[ref].proc_cpu_us)),
      ratio (series_median (c->m[mode].prod_cpu_us),
          series_median (c->m[ref].prod_cpu_us)),
      ratio (series_median (c->m[mode].lat_p50_us),
          series_median (c->m[ref].lat_p50_us)),
      ratio (series_median (c->m[mode].lat_p99_us),
          series_median (c->m[ref].lat_p99_us)));
}

static void
s2_print_config (S2Config * c)
{
  gchar size[32];
  guint j;

  g_snprintf (size, sizeof (size), "%dx%d", c->width, c->height);
  for (j = 0; j < c->n_modes; j++) {
    gint k = c->modes[j];
    ModeResult *m = &c->m[k];

    if (g_strcmp0 (m->status, "ok") != 0) {
      g_print ("  %-9s %-4s %4.0f %14s %s: %s\n", size, c->format,
          c->gpu_us / 1000.0, mode_key[k], m->status, m->error ? m->error :
          "");
      continue;
    }
    g_print ("  %-9s %-4s %4.0f %14s %9.0f %11.1f %11.1f %10.0f %10.0f %9.0f"
        "%s%s\n", size, c->format, c->gpu_us / 1000.0, mode_key[k],
        series_median (m->fps), series_median (m->proc_cpu_us),
        series_median (m->prod_cpu_us), series_median (m->lat_p50_us),
        series_median (m->lat_p99_us), series_median (m->kernel_us),
        m->path ? "  " : "", m->path ? m->path : "");
  }
  if (c->ref_mode == MODE_C) {
    /* scenario 2 and its diagnosis: everything over c, a first */
    for (j = 0; j < c->n_modes; j++)
      if (c->modes[j] != MODE_C)
        s2_print_ratio (c, c->modes[j], MODE_C);
  } else {
    for (j = 0; j < c->n_modes; j++)
      if (c->modes[j] != c->ref_mode)
        s2_print_ratio (c, c->modes[j], c->ref_mode);
    /* scenario 3: the bridge against the raw-API limit */
    if (c->modes == s3_modes) {
      s2_print_ratio (c, MODE_CV_A, MODE_CV_D);
      s2_print_ratio (c, MODE_CV_A, MODE_CV_D2);
    }
  }
}

static void
sec_set (S2Result * S, const gchar * status, const gchar * reason)
{
  g_mutex_lock (&R.lock);
  g_free (S->status);
  S->status = g_strdup (status);
  g_free (S->reason);
  S->reason = g_strdup (reason);
  g_mutex_unlock (&R.lock);
}

static void
s2_skip_config (S2Config * c, const gchar * why)
{
  guint j;

  set_str (&c->status, "skipped");
  set_str (&c->reason, why);
  for (j = 0; j < c->n_modes; j++)
    set_str (&c->m[c->modes[j]].status, "skipped");
}

#ifdef HAVE_CUDA_VULKAN
/* GstVulkanInstance::create-device: upstream vulkan elements that find no
 * device in the pipeline (vulkanupload in modes b) get ours. 1.24 added the
 * index of the physical device asked for. */
#if GST_CHECK_VERSION(1, 24, 0)
static GstVulkanDevice *
on_create_device (GstVulkanInstance * instance, guint device_index,
    gpointer device)
{
  return gst_object_ref (device);
}
#else
static GstVulkanDevice *
on_create_device (GstVulkanInstance * instance, gpointer device)
{
  return gst_object_ref (device);
}
#endif

static gchar *
hex_uuid (const guint8 * b)
{
  GString *s = g_string_new (NULL);
  guint i;

  for (i = 0; i < 16; i++)
    g_string_append_printf (s, "%02x", b[i]);
  return g_string_free (s, FALSE);
}

/* Opens the Vulkan device of CUDA device 0 (the one with its UUID), with
 * the extensions the bridge elements need, and keeps it (and its instance)
 * in vk_ctx: the bus handler gives it to every element of every pipeline
 * (GstContext), as an application does, so that the upstream vulkan
 * elements of modes b use the same device as the bridge, never another one
 * the instance lists first (e.g. lavapipe next to the NVIDIA driver), and
 * no pipeline creates a device. On the simulated driver, the first device
 * with VK_KHR_external_memory_fd (lavapipe) plays it, and the simulated
 * device 0 is given its UUID (CUDASIM_DEVICE_UUID), as the tests and the
 * demo do. Returns a description; NULL when there is none (*why says why). */
static gchar *
vulkan_device (gchar ** why)
{
  GstVulkanInstance *instance = gst_vulkan_instance_new ();
  PFN_vkGetPhysicalDeviceProperties2 get_props2;
  gchar *want = NULL, *ret = NULL;
  guint i;

  if (!is_sim) {
    CUdevice dev;
    CUuuid uuid;

    if (!gst_cuda_context_push (ctx)) {
      *why = g_strdup ("could not push the CUDA context");
      gst_object_unref (instance);
      return NULL;
    }
    if (drv.cuDeviceGetUuid && drv.cuDeviceGet (&dev, 0) == CUDA_SUCCESS &&
        drv.cuDeviceGetUuid (&uuid, dev) == CUDA_SUCCESS)
      want = hex_uuid ((const guint8 *) uuid.bytes);
    gst_cuda_context_pop (NULL);
    if (!want) {
      *why = g_strdup ("CUDA device 0's UUID could not be read");
      gst_object_unref (instance);
      return NULL;
    }
  }
  if (!gst_vulkan_instance_open (instance, NULL)) {
    *why = g_strdup ("no Vulkan instance could be opened");
    gst_object_unref (instance);
    g_free (want);
    return NULL;
  }
  get_props2 = gst_vulkan_instance_get_proc_address (instance,
      "vkGetPhysicalDeviceProperties2");
  for (i = 0; get_props2 && !ret && i < instance->n_physical_devices; i++) {
    GstVulkanPhysicalDevice *pd = gst_vulkan_physical_device_new (instance, i);
    VkPhysicalDeviceIDProperties id = { 0, };
    VkPhysicalDeviceProperties2 p2 = { 0, };
    gchar *uuid;

    if (!pd)
      continue;
    if (!gst_vulkan_physical_device_get_extension_info (pd,
            "VK_KHR_external_memory_fd", NULL)) {
      gst_object_unref (pd);
      continue;
    }
    id.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_ID_PROPERTIES;
    p2.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2;
    p2.pNext = &id;
    get_props2 (pd->device, &p2);
    uuid = hex_uuid (id.deviceUUID);
    if (is_sim || g_str_equal (uuid, want)) {
      GstVulkanDevice *dev = gst_vulkan_device_new_with_index (instance, i);
      gboolean sem = FALSE;
      GError *err = NULL;

      if (is_sim && !g_getenv ("CUDASIM_DEVICE_UUID"))
        g_setenv ("CUDASIM_DEVICE_UUID", uuid, TRUE);
      if (dev && gst_vulkan_device_enable_extension (dev,
              "VK_KHR_external_memory_fd")) {
        sem = gst_vulkan_device_enable_extension (dev,
            "VK_KHR_external_semaphore_fd");
        if (gst_vulkan_device_open (dev, &err)) {
          GstContext *c;

          g_mutex_lock (&vk_ctx_lock);
          for (guint k = 0; k < 2; k++)
            if (vk_ctx[k])
              gst_context_unref (vk_ctx[k]);
          c = vk_ctx[0] = gst_context_new (GST_VULKAN_INSTANCE_CONTEXT_TYPE_STR,
              TRUE);
          gst_context_set_vulkan_instance (c, instance);
          c = vk_ctx[1] = gst_context_new (GST_VULKAN_DEVICE_CONTEXT_TYPE_STR,
              TRUE);
          gst_context_set_vulkan_device (c, dev);
          g_mutex_unlock (&vk_ctx_lock);
          /* the context keeps the device alive, hence the instance */
          g_signal_connect_data (instance, "create-device",
              G_CALLBACK (on_create_device), gst_object_ref (dev),
              (GClosureNotify) (void (*)(void)) gst_object_unref, 0);
          ret = g_strdup_printf ("%s (deviceUUID %s%s; %s "
              "VK_KHR_external_semaphore_fd), opened by the bench and "
              "shared with every element", p2.properties.deviceName, uuid,
              is_sim ? ", given to the simulated CUDA device 0" :
              " = CUDA device 0's", sem ? "with" : "without");
        } else {
          *why = g_strdup_printf ("could not open the Vulkan device %s: %s",
              p2.properties.deviceName, err ? err->message : "?");
          g_clear_error (&err);
        }
      } else {
        *why = g_strdup_printf ("could not enable VK_KHR_external_memory_fd "
            "on %s", p2.properties.deviceName);
      }
      gst_clear_object (&dev);
      g_free (uuid);
      gst_object_unref (pd);
      break;
    }
    g_free (uuid);
    gst_object_unref (pd);
  }
  if (!ret && !*why)
    *why = g_strdup_printf ("no Vulkan device with VK_KHR_external_memory_fd"
        "%s%s", want ? " and CUDA device 0's UUID " : "", want ? want : "");
  gst_object_unref (instance);
  g_free (want);
  return ret;
}
#endif

/* scenario 4's source: one system-memory frame, pushed again and again.
 * One GstMemory per plane: GStreamer 1.22's vulkanupload peeks memory i
 * for plane i (a single-memory NV12 buffer makes it warn) */
static GstBuffer *
new_sysframe (S2Config * c)
{
  GstVideoInfo info;
  GstBuffer *buf = gst_buffer_new ();
  guint p, n;

  gst_video_info_set_format (&info, gst_video_format_from_string (c->format),
      c->width, c->height);
  n = GST_VIDEO_INFO_N_PLANES (&info);
  for (p = 0; p < n; p++) {
    gsize end = p + 1 < n ? info.offset[p + 1] : info.size;
    GstMemory *mem = gst_allocator_alloc (NULL, end - info.offset[p], NULL);
    GstMapInfo map;
    gsize i;

    gst_memory_map (mem, &map, GST_MAP_WRITE);
    for (i = 0; i < map.size; i++)
      map.data[i] = (guint8) (i * 131 + (i >> 12) + p);
    gst_memory_unmap (mem, &map);
    gst_buffer_append_memory (buf, mem);
  }
  gst_buffer_add_video_meta_full (buf, GST_VIDEO_FRAME_FLAG_NONE,
      GST_VIDEO_INFO_FORMAT (&info), c->width, c->height, n, info.offset,
      info.stride);
  return buf;
}

enum
{
  SEC_2,                        /* scenario 2 */
  SEC_2D,                       /* scenario 2 diagnosis */
  SEC_3,                        /* CUDA -> Vulkan */
  SEC_4,                        /* Vulkan -> CUDA */
  SEC_5                         /* CUDA -> Vulkan -> CUDA stages */
};

/* kernel_load () once: later sections get the first answer */
static gboolean
kernel_load_once (gchar ** info)
{
  static gboolean done = FALSE, ok = FALSE;
  static gchar *first_info = NULL;

  if (!done) {
    ok = kernel_load (&first_info);
    done = TRUE;
  }
  *info = g_strdup (first_info);
  return ok;
}

/* Scenario 2, its diagnosis, 3 and 4: the same harness (a producer thread
 * pushing into a pipeline, a recycler bounding the frames in flight). */
static gboolean
run_gpu_section (S2Result * S, gint sec)
{
  static const gint sizes[][2] = { {1920, 1080}, {3840, 2160} };
  static const gchar *formats[] = { "RGBA", "NV12" };
  static const guint s2_work[] = { 0, 1000, 5000 };
  static const guint s34_work[] = { 0, 5000 };
  static const guint s4_work[] = { 0 };
  /* scenario 5: 1 and 5 ms; --quick: 0 (memset frames can run it) and 1 */
  static const guint s5_work[] = { 1000, 5000 }, s5_quick_work[] = { 0, 1000 };
  const guint *work_us = sec == SEC_2 ? s2_work : sec == SEC_4 ? s4_work :
      sec == SEC_5 ? (opt.quick ? s5_quick_work : s5_work) : s34_work;
  guint n_work = sec == SEC_2 ? 3 : sec == SEC_4 ? 1 : 2;
  guint n_sizes = sec == SEC_2D || sec == SEC_5 ? 1 : 2;
  guint n_formats = sec == SEC_2D || sec == SEC_5 ? 1 : 2;
  FrameWriter writer = opt.writer;
  gchar *kinfo = NULL, *error = NULL;
  TestSem *ts_c = NULL, *ts_p = NULL;
  GstCudaSemaphore *sem_c = NULL, *sem_p = NULL;
  CUstream pstream = NULL;
  EvPair *pairs = NULL;
  GAsyncQueue *free_pairs = NULL;
  guint n_pairs, i, si, fi, wi;
  gboolean all_ok = TRUE;
  gboolean any_run = FALSE;
  CUresult r;

  S->repetitions = sec >= SEC_3 ? MIN (opt.repetitions, 3) : opt.repetitions;
  n_pairs = sec == SEC_4 ? (guint) opt.in_flight :
      (guint) MAX (opt.in_flight, 8) + 2;
  g_print ("\n%s (%d frames in flight, %d repetitions)\n", S->title,
      opt.in_flight, S->repetitions);
  for (i = 0; i < S->n_modes; i++)
    g_print ("  %s: %s\n", mode_key[S->modes[i]], mode_desc[S->modes[i]]);

  if (sec >= SEC_3) {
#ifdef HAVE_CUDA_VULKAN
    const gchar *need[] = { "cudatovulkan", "vulkantocuda", "vulkanupload",
      "vulkandownload", "cudadownload", "cudaupload", "queue", "capsfilter",
      sec == SEC_5 ? "vulkancolorconvert" : "queue"
    };
    GString *missing = g_string_new (NULL);

    for (i = 0; i < G_N_ELEMENTS (need); i++) {
      GstElementFactory *f = gst_element_factory_find (need[i]);

      if (f)
        gst_object_unref (f);
      else
        g_string_append_printf (missing, " %s", need[i]);
    }
    if (missing->len) {
      gchar *why = g_strdup_printf ("SKIPPED: elements not found:%s",
          missing->str);
      g_print ("  %s\n", why);
      sec_set (S, "skipped", why);
      g_free (why);
      g_string_free (missing, TRUE);
      write_json ();
      return TRUE;
    }
    g_string_free (missing, TRUE);
    if (!R.vulkan) {
      gchar *dev = vulkan_device (&error);

      if (!dev) {
        gchar *why = g_strdup_printf ("SKIPPED: %s", error);
        g_print ("  %s\n", why);
        sec_set (S, "skipped", why);
        g_free (why);
        g_clear_pointer (&error, g_free);
        write_json ();
        return TRUE;
      }
      set_str (&R.vulkan, dev);
      g_free (dev);
    }
    g_print ("  Vulkan device: %s\n", R.vulkan);
#else
    g_print ("  SKIPPED: built without Vulkan (gstreamer-vulkan-1.0 or "
        "vulkan not found): no cudatovulkan/vulkantocuda\n");
    sec_set (S, "skipped", "built without Vulkan (gstreamer-vulkan-1.0 or "
        "vulkan not found): no cudatovulkan/vulkantocuda");
    write_json ();
    return TRUE;
#endif
  }

  /* the frame writer */
  if (sec == SEC_4) {
    writer = WRITER_MEMSET;     /* unused: frames come from system memory */
    set_str (&S->frame_writer, "none (one system-memory frame, pushed "
        "again for every frame)");
  } else if (writer != WRITER_MEMSET) {
    if (kernel_load_once (&kinfo)) {
      writer = WRITER_KERNEL;
      g_print ("  kernel: %s\n", kinfo);
    } else if (writer == WRITER_KERNEL || is_sim) {
      gchar *why = g_strdup_printf ("%s: the spin kernel is not available "
          "(%s). %s", is_sim ? "SKIPPED on the simulated CUDA driver, which "
          "cannot run kernels" : "SKIPPED", kinfo, is_sim ? "Use "
          "--frame-writer=memset to exercise the harness on it." : "");
      g_print ("  %s\n", why);
      g_mutex_lock (&R.lock);
      S->kernel_info = kinfo;
      S->frame_writer = g_strdup ("none");
      g_mutex_unlock (&R.lock);
      sec_set (S, writer == WRITER_KERNEL ? "failed" : "skipped", why);
      g_free (why);
      write_json ();
      return writer != WRITER_KERNEL;
    } else {
      /* a real GPU without the kernel: still measure the handoff with
       * memset frames, clearly labelled */
      g_print ("  WARNING: the spin kernel is not available (%s); frames are "
          "written with cuMemsetD32Async and only the 0 ms GPU-work "
          "configurations run\n", kinfo);
      writer = WRITER_MEMSET;
    }
  }
  if (sec != SEC_4) {
    g_mutex_lock (&R.lock);
    S->frame_writer = g_strdup (writer == WRITER_KERNEL ? "kernel" :
        "memset (cuMemsetD32Async per plane; no GPU busy-wait)");
    S->kernel_info = kinfo;
    g_mutex_unlock (&R.lock);
  }

  /* semaphores, producer stream, events */
  if (!(sem_c = new_semaphore (&ts_c, &error)) ||
      !(sem_p = new_semaphore (&ts_p, &error))) {
    sec_set (S, "failed", error);
    g_print ("  FAILED: %s\n", error);
    g_free (error);
    all_ok = FALSE;
    goto out;
  }
  pairs = g_new0 (EvPair, n_pairs);
  free_pairs = g_async_queue_new ();
  if (!gst_cuda_context_push (ctx)) {
    sec_set (S, "failed", "could not push the CUDA context");
    all_ok = FALSE;
    goto out;
  }
  r = drv.cuStreamCreate (&pstream, CU_STREAM_NON_BLOCKING);
  for (i = 0; r == CUDA_SUCCESS && i < n_pairs; i++) {
    r = drv.cuEventCreate (&pairs[i].e0, CU_EVENT_DEFAULT);
    if (r == CUDA_SUCCESS)
      r = drv.cuEventCreate (&pairs[i].ek, CU_EVENT_DEFAULT);
    if (r == CUDA_SUCCESS)
      r = drv.cuEventCreate (&pairs[i].e1, CU_EVENT_BLOCKING_SYNC);
    g_async_queue_push (free_pairs, &pairs[i]);
  }
  gst_cuda_context_pop (NULL);
  if (r != CUDA_SUCCESS) {
    error = cu_error ("cuStreamCreate/cuEventCreate", r);
    sec_set (S, "failed", error);
    g_print ("  FAILED: %s\n", error);
    g_free (error);
    all_ok = FALSE;
    goto out;
  }

  /* the configurations */
  g_mutex_lock (&R.lock);
  for (si = 0; si < n_sizes; si++) {
    if (opt.quick && si > 0)
      break;
    for (fi = 0; fi < n_formats; fi++) {
      for (wi = 0; wi < n_work; wi++) {
        S2Config *c;
        guint j;

        if (opt.quick && work_us[wi] > 1000)
          continue;
        c = g_new0 (S2Config, 1);
        c->width = sizes[si][0];
        c->height = sizes[si][1];
        c->format = formats[fi];
        c->gpu_us = work_us[wi];
        c->status = g_strdup ("not run");
        c->modes = S->modes;
        c->n_modes = S->n_modes;
        c->ref_mode = S->ref_mode;
        for (j = 0; j < N_ALL_MODES; j++) {
          ModeResult *m = &c->m[j];

          mode_result_init (m);
          m->in_flight = j == MODE_A_IF1 ? 1 : j == MODE_A_IF8 ? 8 :
              (guint) opt.in_flight;
          if (j == MODE_A1)
            m->stats_name[1] = NULL;
          else if (j == MODE_A2)
            m->stats_name[0] = NULL;
          else if (j == MODE_CV_A || j == MODE_CV_C || j == MODE_S6_A) {
            m->stats_name[0] = "cudatovulkan";
            m->stats_name[1] = NULL;
          } else if (j == MODE_S5_A || j == MODE_S5_C) {
            m->stats_name[0] = "cudatovulkan";
            m->stats_name[1] = "vulkantocuda";
          } else if (j == MODE_VC_A) {
            m->stats_name[0] = "vulkantocuda";
            m->stats_name[1] = NULL;
          } else if (j >= MODE_CV_A) {
            m->stats_name[0] = m->stats_name[1] = NULL;
          }
        }
        g_ptr_array_add (S->configs, c);
      }
    }
  }
  g_mutex_unlock (&R.lock);
  sec_set (S, "running", NULL);

  s2_print_header ();
  for (i = 0; i < S->configs->len; i++) {
    S2Config *c = g_ptr_array_index (S->configs, i);
    GstCaps *caps;
    GstBufferPool *pools[3] = { NULL, NULL, NULL };
    GstBuffer *sysframe = NULL;
    gint rep;
    guint j;
    gboolean cfg_ok = TRUE;

    if (c->gpu_us > 0 && writer != WRITER_KERNEL) {
      s2_skip_config (c, "no spin kernel: frames are written with "
          "cuMemsetD32Async, which cannot busy-wait");
      continue;
    }
    if (mono_s () - t_program_start / 1e6 > opt.time_limit) {
      s2_skip_config (c, "time limit reached (--time-limit)");
      g_print ("  %dx%d %s %.0f ms: skipped, time limit reached\n", c->width,
          c->height, c->format, c->gpu_us / 1000.0);
      continue;
    }

    for (j = 0; j < c->n_modes; j++) {
      ModeResult *m = &c->m[c->modes[j]];

      m->frames = sec >= SEC_3 ? s34_frames (c->gpu_us, c->width) :
          s2_frames (c->gpu_us);
      m->warmup = opt.quick ? 3 : 8;
    }
    if (sec == SEC_4) {
      sysframe = new_sysframe (c);
    } else {
      caps = cuda_caps (c->format, c->width, c->height);
      pools[0] = new_pool (caps, opt.in_flight, &error);
      if (pools[0] && sec == SEC_2D) {
        pools[1] = new_pool (caps, 1, &error);
        if (pools[1])
          pools[2] = new_pool (caps, 8, &error);
      }
      gst_caps_unref (caps);
      if (error) {
        set_str (&c->status, "failed");
        set_str (&c->reason, error);
        g_print ("  %dx%d %s: FAILED: %s\n", c->width, c->height, c->format,
            error);
        g_clear_pointer (&error, g_free);
        all_ok = FALSE;
        for (j = 0; j < 3; j++)
          if (pools[j]) {
            gst_buffer_pool_set_active (pools[j], FALSE);
            gst_object_unref (pools[j]);
          }
        continue;
      }
    }

    any_run = TRUE;
    for (rep = 0; rep < S->repetitions; rep++) {
      for (j = 0; j < c->n_modes; j++) {
        gint k = c->modes[j];
        GstBufferPool *pool = k == MODE_A_IF1 ? pools[1] :
            k == MODE_A_IF8 ? pools[2] : pools[0];

        if (g_strcmp0 (c->m[k].status, "failed") == 0)
          continue;
        if (!s2_run_once (c, k, writer, pool, pstream, free_pairs, sem_c,
                sem_p, sysframe, &error)) {
          g_mutex_lock (&R.lock);
          g_free (c->m[k].status);
          c->m[k].status = g_strdup ("failed");
          g_free (c->m[k].error);
          c->m[k].error = error;
          g_mutex_unlock (&R.lock);
          g_print ("    %s: FAILED: %s\n", mode_key[k], error);
          error = NULL;
          cfg_ok = FALSE;
        }
      }
    }
    g_atomic_int_set (&run_active, 0);
    for (j = 0; j < c->n_modes; j++)
      if (g_strcmp0 (c->m[c->modes[j]].status, "not run") == 0)
        set_str (&c->m[c->modes[j]].status, "ok");
    set_str (&c->status, cfg_ok ? "ok" : "failed");
    if (!cfg_ok)
      all_ok = FALSE;

    for (j = 0; j < 3; j++)
      if (pools[j]) {
        gst_buffer_pool_set_active (pools[j], FALSE);
        gst_object_unref (pools[j]);
      }
    if (sysframe)
      gst_buffer_unref (sysframe);
    s2_print_config (c);
    write_json ();
  }
  sec_set (S, all_ok ? (any_run ? "ok" : "skipped") : "failed",
      any_run ? NULL : "no configuration ran");

out:
  if (gst_cuda_context_push (ctx)) {
    if (pstream) {
      drv.cuStreamSynchronize (pstream);
      drv.cuStreamDestroy (pstream);
    }
    for (i = 0; pairs && i < n_pairs; i++) {
      if (pairs[i].e0)
        drv.cuEventDestroy (pairs[i].e0);
      if (pairs[i].ek)
        drv.cuEventDestroy (pairs[i].ek);
      if (pairs[i].e1)
        drv.cuEventDestroy (pairs[i].e1);
    }
    gst_cuda_context_pop (NULL);
  }
  g_free (pairs);
  if (free_pairs)
    g_async_queue_unref (free_pairs);
  gst_clear_object (&sem_c);
  gst_clear_object (&sem_p);
  gst_cuda_sync_wait_idle ();
  test_sem_free (ts_c);
  test_sem_free (ts_p);
  write_json ();
  return all_ok;
}

static gboolean
run_scenario2 (void)
{
  return run_gpu_section (&R.s2, SEC_2);
}

/* ------------------------------------------------------------------ */
/* scenario 2g: the GPU gap between frames, without GStreamer           */
/* ------------------------------------------------------------------ */

/* Scenario 2 at 5 ms of GPU work loses ~0.7 ms per frame in every variant
 * that queues frames ahead (2d), and the raw-API mode d of scenario 3 loses
 * about as much. 2g runs the spin kernel alone on one non-blocking stream,
 * no element, no pool, no pipeline, and adds one suspect at a time. Per
 * frame: E0, kernel (5 ms spin, one 1920x1080 RGBA frame written), EK, then
 * the variant's operation. The host keeps at most `depth` frames queued
 * (cuEventSynchronize on EK of frame n - depth before launching frame n).
 * gap = E0(n+1) - EK(n) on the GPU, i.e. what the GPU spent between two
 * kernels. */
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

static const struct
{
  const gchar *key, *desc;
  guint depth;
} g_variant[G_N] = {
  {"kernel_q4", "kernel only, 4 frames queued", 4},
  {"kernel_q1", "kernel only, one frame at a time", 1},
  {"event_q4", "kernel + one more cuEventRecord, 4 queued", 4},
  {"signal_q4", "kernel + cuSignalExternalSemaphoresAsync (Vulkan timeline, "
        "imported fd), 4 queued", 4},
  {"signal_q1", "kernel + timeline signal, one frame at a time", 1},
  {"signal_q8", "kernel + timeline signal, 8 queued", 8},
  {"signal_other_stream_q4", "kernel; the signal on a second stream that "
        "waits for EK (cuStreamWaitEvent), 4 queued", 4},
};

static struct
{
  gchar *status, *reason;
  guint frames, gpu_us;
  GArray *fps[G_N], *gap_us[G_N];
} G;

#define G_MAX_Q 8
#define G_FRAMES 40

static gboolean
s2g_once (gint v, CUdeviceptr frame, CUstream s1, CUstream s2,
    CUexternalSemaphore ext, guint64 * value, gchar ** error)
{
  CUevent e0[G_FRAMES], ek[G_FRAMES], ex[G_FRAMES];
  guint depth = g_variant[v].depth, n, i;
  /* write_frame()'s view of a frame: the same kernel launch as scenario 2 */
  S2Config cfg = { 0, };
  Run run;
  gdouble gap = 0;
  CUresult r = CUDA_SUCCESS;

  memset (&run, 0, sizeof (run));
  cfg.gpu_us = G.gpu_us;
  run.cfg = &cfg;
  run.writer = WRITER_KERNEL;
  run.grid = MAX (R.sm_count, 1) * 4;
  run.pstream = s1;
  gst_video_info_set_format (&run.info, GST_VIDEO_FORMAT_RGBA, 1920, 1080);

  for (i = 0; i < G_FRAMES && r == CUDA_SUCCESS; i++) {
    r = drv.cuEventCreate (&e0[i], CU_EVENT_DEFAULT);
    if (r == CUDA_SUCCESS)
      r = drv.cuEventCreate (&ek[i], CU_EVENT_DEFAULT);
    if (r == CUDA_SUCCESS)
      r = drv.cuEventCreate (&ex[i], CU_EVENT_DISABLE_TIMING);
  }
  if (r != CUDA_SUCCESS) {
    *error = cu_error ("cuEventCreate", r);
    return FALSE;
  }
  for (n = 0; n < G_FRAMES && r == CUDA_SUCCESS; n++) {
    if (n >= depth)
      r = drv.cuEventSynchronize (ek[n - depth]);
    if (r == CUDA_SUCCESS)
      r = drv.cuEventRecord (e0[n], s1);
    if (r == CUDA_SUCCESS)
      r = write_frame (&run, NULL, (guint8 *) (guintptr) frame, n);
    if (r == CUDA_SUCCESS)
      r = drv.cuEventRecord (ek[n], s1);
    if (r != CUDA_SUCCESS)
      break;
    if (v == G_EVENT_Q4) {
      r = drv.cuEventRecord (ex[n], s1);
    } else if (v != G_KERNEL_Q4 && v != G_KERNEL_Q1) {
      CUDA_EXTERNAL_SEMAPHORE_SIGNAL_PARAMS p;
      CUstream ss = s1;

      memset (&p, 0, sizeof (p));
      p.params.fence.value = ++(*value);
      if (v == G_SIGNAL_SEP_Q4) {
        ss = s2;
        r = drv.cuStreamWaitEvent (s2, ek[n], 0);
      }
      if (r == CUDA_SUCCESS)
        r = drv.cuSignalExternalSemaphoresAsync (&ext, &p, 1, ss);
    }
  }
  if (r == CUDA_SUCCESS)
    r = drv.cuStreamSynchronize (s1);
  if (r == CUDA_SUCCESS)
    r = drv.cuStreamSynchronize (s2);
  if (r == CUDA_SUCCESS) {
    guint k = 0;

    for (n = 4; n + 1 < G_FRAMES && r == CUDA_SUCCESS; n++, k++) {
      gfloat ms = 0;

      r = drv.cuEventElapsedTime (&ms, ek[n], e0[n + 1]);
      gap += ms * 1000.0;
    }
    if (r == CUDA_SUCCESS) {
      /* GPU time from frame 4's start to the last frame's end: the host
       * clock would also count frames queued before frame 4 */
      gfloat span = 0;

      r = drv.cuEventElapsedTime (&span, e0[4], ek[G_FRAMES - 1]);
      if (r == CUDA_SUCCESS && span > 0)
        series_add (G.fps[v], (G_FRAMES - 4) / (span / 1e3));
      series_add (G.gap_us[v], gap / MAX (k, 1));
    }
  }
  for (i = 0; i < G_FRAMES; i++) {
    drv.cuEventDestroy (e0[i]);
    drv.cuEventDestroy (ek[i]);
    drv.cuEventDestroy (ex[i]);
  }
  if (r != CUDA_SUCCESS) {
    *error = cu_error ("scenario 2g", r);
    return FALSE;
  }
  return TRUE;
}

static gboolean
run_scenario2g (void)
{
  TestSem *ts = NULL;
  CUexternalSemaphore ext = NULL;
  CUstream s1 = NULL, s2 = NULL;
  CUdeviceptr frame = 0;
  guint64 value = 0;
  gchar *error = NULL, *info = NULL;
  gint v, rep;
  CUresult r;

  G.gpu_us = opt.quick ? 1000 : 5000;
  G.frames = G_FRAMES - 4;
  for (v = 0; v < G_N; v++) {
    G.fps[v] = series_new ();
    G.gap_us[v] = series_new ();
  }
  g_print ("\nScenario 2g: GPU time between frames on one stream, no "
      "GStreamer (spin kernel %u us, 1920x1080 RGBA, %u frames, %d "
      "repetitions)\n", G.gpu_us, G.frames, opt.repetitions);
  if (!kernel_load_once (&info)) {
    set_str (&G.status, "skipped");
    G.reason = g_strdup_printf ("no kernel: %s", info);
    g_print ("  SKIPPED: %s\n", G.reason);
    g_free (info);
    return TRUE;
  }
  g_free (info);
  ts = test_sem_new (TRUE, 0);
  if (!ts) {
    error = g_strdup ("could not create a timeline semaphore (testsem)");
    goto fail;
  }
  if (!gst_cuda_context_push (ctx)) {
    error = g_strdup ("cannot push the CUDA context");
    goto fail;
  }
  r = import_timeline_raw (ts, &ext);
  if (r != CUDA_SUCCESS) {
    gst_cuda_context_pop (NULL);
    error = cu_error ("cuImportExternalSemaphore", r);
    goto fail;
  }
  r = drv.cuStreamCreate (&s1, CU_STREAM_NON_BLOCKING);
  if (r == CUDA_SUCCESS)
    r = drv.cuStreamCreate (&s2, CU_STREAM_NON_BLOCKING);
  if (r == CUDA_SUCCESS)
    r = drv.cuMemAlloc (&frame, 1920 * 4 * 1080);
  if (r != CUDA_SUCCESS) {
    gst_cuda_context_pop (NULL);
    error = cu_error ("cuStreamCreate/cuMemAlloc", r);
    goto fail;
  }
  for (rep = 0; rep < opt.repetitions && !error; rep++)
    for (v = 0; v < G_N && !error; v++) {
      s2g_once (v, frame, s1, s2, ext, &value, &error);
      progress ();
    }
  drv.cuStreamSynchronize (s1);
  drv.cuStreamSynchronize (s2);
  drv.cuMemFree (frame);
  drv.cuStreamDestroy (s1);
  drv.cuStreamDestroy (s2);
  drv.cuDestroyExternalSemaphore (ext);
  gst_cuda_context_pop (NULL);
  if (error)
    goto fail;
  test_sem_free (ts);

  set_str (&G.status, "ok");
  g_print ("  %-24s %9s %9s  %s\n", "variant", "fps", "gap-us", "what");
  g_print ("  %-24s %9s %9s\n", "", "median", "median");
  for (v = 0; v < G_N; v++)
    g_print ("  %-24s %9.1f %9.1f  %s\n", g_variant[v].key,
        series_median (G.fps[v]), series_median (G.gap_us[v]),
        g_variant[v].desc);
  write_json ();
  return TRUE;

fail:
  set_str (&G.status, "failed");
  G.reason = error;
  g_print ("  FAILED: %s\n", error);
  if (ts)
    test_sem_free (ts);
  write_json ();
  return FALSE;
}

static void
json_s2g (JW * w)
{
  gint v;

  jw_obj (w, "scenario2g_gpu_gap");
  jw_str (w, "status", G.status ? G.status : "not run");
  jw_str (w, "reason", G.reason);
  jw_str (w, "what", "spin kernel alone on one non-blocking stream, no "
      "GStreamer; gap_us = GPU time from the end event of frame n to the "
      "start event of frame n+1 (mean over a repetition)");
  jw_int (w, "gpu_us", G.gpu_us);
  jw_int (w, "frames", G.frames);
  jw_arr (w, "variants");
  for (v = 0; v < G_N && G.status; v++) {
    jw_obj (w, NULL);
    jw_str (w, "key", g_variant[v].key);
    jw_str (w, "what", g_variant[v].desc);
    jw_int (w, "depth", g_variant[v].depth);
    jw_series (w, "fps", G.fps[v]);
    jw_series (w, "gap_us", G.gap_us[v]);
    jw_obj_end (w);
  }
  jw_arr_end (w);
  jw_obj_end (w);
}

/* ------------------------------------------------------------------ */
/* scenario 6: scaling                                                  */
/* ------------------------------------------------------------------ */

typedef struct
{
  guint n;                      /* pipelines at once */
  guint gpu_us;
  gchar *status, *reason;
  GArray *agg_fps, *proc_cpu_us, *min_fps, *max_fps;
  S2Config *pipes;              /* n of them, mode MODE_S6_A */
  gboolean stats_ok;
  gchar *stats_note;
  const gchar *path;
} S6Config;

struct S6Result
{
  gchar *status, *reason, *frame_writer;
  gint repetitions;
  GPtrArray *configs;
};

typedef struct
{
  S2Config *cfg;
  FrameWriter writer;
  GstBufferPool *pool;
  CUstream pstream;
  GAsyncQueue *free_pairs;
  EvPair pairs[18];
  GstCudaSemaphore *sem_p;
  TestSem *ts_p;
  gboolean ok;
  gchar *error;
} S6Job;

#define S6_MAX 8

static void
json_s6 (JW * w)
{
  struct S6Result *S = R.s6;
  guint i, j;

  jw_obj (w, "scenario6_scaling");
  jw_str (w, "status", S->status);
  jw_str (w, "reason", S->reason);
  jw_str (w, "what", "N pipelines of scenario 3 mode a (producer acquire "
      "point -> cudatovulkan ! queue ! vulkandownload ! fakesink, "
      "1920x1080 RGBA), each with its own producer thread, buffer pool, "
      "stream and recycler, all on the bench's Vulkan device, producers "
      "started together");
  jw_str (w, "aggregate", "aggregate_fps: all pipelines' measured frames / "
      "(last pipeline's end - first pipeline's start); "
      "process_cpu_us_per_frame: process CPU over the same window / those "
      "frames (includes other pipelines' warm-up frames that fall inside "
      "it); min/max_pipeline_fps: each pipeline's own fps");
  jw_int (w, "repetitions", S->repetitions);
  jw_str (w, "frame_writer", S->frame_writer);
  jw_arr (w, "configs");
  for (i = 0; S->configs && i < S->configs->len; i++) {
    S6Config *c = g_ptr_array_index (S->configs, i);
    S6Config *one = NULL;

    for (j = 0; j < S->configs->len; j++) {
      S6Config *o = g_ptr_array_index (S->configs, j);
      if (o->n == 1 && o->gpu_us == c->gpu_us)
        one = o;
    }
    jw_obj (w, NULL);
    jw_int (w, "pipelines", c->n);
    jw_int (w, "width", 1920);
    jw_int (w, "height", 1080);
    jw_str (w, "format", "RGBA");
    jw_num (w, "gpu_work_ms", c->gpu_us / 1000.0);
    jw_str (w, "status", c->status);
    jw_str (w, "reason", c->reason);
    jw_int (w, "frames_per_pipeline_per_repetition", c->pipes ?
        c->pipes[0].m[MODE_S6_A].frames : 0);
    jw_series (w, "aggregate_fps", c->agg_fps);
    jw_series (w, "process_cpu_us_per_frame", c->proc_cpu_us);
    jw_series (w, "min_pipeline_fps", c->min_fps);
    jw_series (w, "max_pipeline_fps", c->max_fps);
    jw_num (w, "aggregate_fps_over_1_pipeline_median", one ?
        ratio (series_median (c->agg_fps), series_median (one->agg_fps)) :
        NAN);
    jw_num (w, "process_cpu_per_frame_over_1_pipeline_median", one ?
        ratio (series_median (c->proc_cpu_us),
            series_median (one->proc_cpu_us)) : NAN);
    jw_str (w, "bridge_path", c->path);
    jw_bool (w, "element_stats_as_expected", c->stats_ok);
    jw_str (w, "element_stats_note", c->stats_note);
    jw_obj_end (w);
  }
  jw_arr_end (w);
  jw_obj_end (w);
}

static gpointer
s6_worker (gpointer data)
{
  S6Job *j = data;

  j->ok = s2_run_once (j->cfg, MODE_S6_A, j->writer, j->pool, j->pstream,
      j->free_pairs, NULL, j->sem_p, NULL, &j->error);
  return NULL;
}

static void
s6_set (gchar ** field, const gchar * v)
{
  set_str (field, v);
}

static gboolean
run_scenario6 (void)
{
  struct S6Result *S = R.s6;
  static const guint counts[] = { 1, 2, 4, 8 };
  static const guint work_full[] = { 0, 5000 }, work_quick[] = { 0 };
  const guint *work = opt.quick ? work_quick : work_full;
  guint n_work = opt.quick ? 1 : 2, n_counts = opt.quick ? 2 : 4;
  S6Job jobs[S6_MAX];
  FrameWriter writer = opt.writer;
  gchar *kinfo = NULL, *error = NULL;
  gboolean all_ok = TRUE, any_run = FALSE;
  guint i, k, wi, ci;
  gint rep;
  CUresult r = CUDA_SUCCESS;

  memset (jobs, 0, sizeof (jobs));
  S->repetitions = MIN (opt.repetitions, 3);
  g_print ("\nScenario 6: scaling: 1, 2, 4, 8 pipelines of scenario 3 mode a "
      "at once (1920x1080 RGBA, one producer thread each, shared Vulkan "
      "device; %d frames in flight each, %d repetitions)\n", opt.in_flight,
      S->repetitions);

#ifdef HAVE_CUDA_VULKAN
  {
    const gchar *need[] = { "cudatovulkan", "vulkandownload", "queue" };

    for (i = 0; i < G_N_ELEMENTS (need); i++) {
      GstElementFactory *f = gst_element_factory_find (need[i]);

      if (!f) {
        gchar *why = g_strdup_printf ("SKIPPED: element %s not found",
            need[i]);
        g_print ("  %s\n", why);
        s6_set (&S->status, "skipped");
        s6_set (&S->reason, why);
        g_free (why);
        write_json ();
        return TRUE;
      }
      gst_object_unref (f);
    }
  }
  if (!R.vulkan) {
    gchar *dev = vulkan_device (&error);

    if (!dev) {
      gchar *why = g_strdup_printf ("SKIPPED: %s", error);
      g_print ("  %s\n", why);
      s6_set (&S->status, "skipped");
      s6_set (&S->reason, why);
      g_free (why);
      g_free (error);
      write_json ();
      return TRUE;
    }
    set_str (&R.vulkan, dev);
    g_free (dev);
  }
  g_print ("  Vulkan device: %s\n", R.vulkan);
#else
  g_print ("  SKIPPED: built without Vulkan\n");
  s6_set (&S->status, "skipped");
  s6_set (&S->reason, "built without Vulkan (gstreamer-vulkan-1.0 or "
      "vulkan not found): no cudatovulkan");
  write_json ();
  return TRUE;
#endif

  if (writer != WRITER_MEMSET) {
    if (kernel_load_once (&kinfo)) {
      writer = WRITER_KERNEL;
    } else if (writer == WRITER_KERNEL || is_sim) {
      gchar *why = g_strdup_printf ("%s: the spin kernel is not available "
          "(%s). %s", is_sim ? "SKIPPED on the simulated CUDA driver, which "
          "cannot run kernels" : "SKIPPED", kinfo, is_sim ? "Use "
          "--frame-writer=memset to exercise the harness on it." : "");
      g_print ("  %s\n", why);
      s6_set (&S->status, writer == WRITER_KERNEL ? "failed" : "skipped");
      s6_set (&S->reason, why);
      s6_set (&S->frame_writer, "none");
      g_free (why);
      g_free (kinfo);
      write_json ();
      return writer != WRITER_KERNEL;
    } else {
      writer = WRITER_MEMSET;
    }
  }
  g_free (kinfo);
  s6_set (&S->frame_writer, writer == WRITER_KERNEL ? "kernel" :
      "memset (cuMemsetD32Async per plane; no GPU busy-wait)");

  /* per pipeline: pool, stream, events, acquire semaphore (made once) */
  {
    GstCaps *caps = cuda_caps ("RGBA", 1920, 1080);
    guint n_pairs = (guint) MAX (opt.in_flight, 8) + 2;

    for (i = 0; i < S6_MAX && !error; i++) {
      S6Job *j = &jobs[i];

      j->writer = writer;
      j->pool = new_pool (caps, opt.in_flight, &error);
      if (!j->pool)
        break;
      j->sem_p = new_semaphore (&j->ts_p, &error);
      if (!j->sem_p)
        break;
      j->free_pairs = g_async_queue_new ();
      if (!gst_cuda_context_push (ctx)) {
        error = g_strdup ("could not push the CUDA context");
        break;
      }
      r = drv.cuStreamCreate (&j->pstream, CU_STREAM_NON_BLOCKING);
      for (k = 0; r == CUDA_SUCCESS && k < MIN (n_pairs, 18); k++) {
        r = drv.cuEventCreate (&j->pairs[k].e0, CU_EVENT_DEFAULT);
        if (r == CUDA_SUCCESS)
          r = drv.cuEventCreate (&j->pairs[k].ek, CU_EVENT_DEFAULT);
        if (r == CUDA_SUCCESS)
          r = drv.cuEventCreate (&j->pairs[k].e1, CU_EVENT_BLOCKING_SYNC);
        g_async_queue_push (j->free_pairs, &j->pairs[k]);
      }
      gst_cuda_context_pop (NULL);
      if (r != CUDA_SUCCESS)
        error = cu_error ("cuStreamCreate/cuEventCreate", r);
    }
    gst_caps_unref (caps);
    if (error) {
      g_print ("  FAILED: %s\n", error);
      s6_set (&S->status, "failed");
      s6_set (&S->reason, error);
      g_clear_pointer (&error, g_free);
      all_ok = FALSE;
      goto out;
    }
  }

  g_mutex_lock (&R.lock);
  for (wi = 0; wi < n_work; wi++) {
    for (ci = 0; ci < n_counts; ci++) {
      S6Config *c = g_new0 (S6Config, 1);

      c->n = counts[ci];
      c->gpu_us = work[wi];
      c->status = g_strdup ("not run");
      c->agg_fps = series_new ();
      c->proc_cpu_us = series_new ();
      c->min_fps = series_new ();
      c->max_fps = series_new ();
      c->stats_ok = TRUE;
      c->pipes = g_new0 (S2Config, c->n);
      for (i = 0; i < c->n; i++) {
        S2Config *pc = &c->pipes[i];

        pc->width = 1920;
        pc->height = 1080;
        pc->format = "RGBA";
        pc->gpu_us = c->gpu_us;
        for (k = 0; k < N_ALL_MODES; k++)
          mode_result_init (&pc->m[k]);
        pc->m[MODE_S6_A].frames = s34_frames (c->gpu_us, 1920);
        pc->m[MODE_S6_A].warmup = opt.quick ? 3 : 8;
        pc->m[MODE_S6_A].stats_name[0] = "cudatovulkan";
        pc->m[MODE_S6_A].stats_name[1] = NULL;
      }
      g_ptr_array_add (S->configs, c);
    }
  }
  g_mutex_unlock (&R.lock);
  s6_set (&S->status, "running");

  g_print ("  %9s %4s %9s %9s %9s %11s %9s\n", "pipelines", "gpu", "agg-fps",
      "min-pipe", "max-pipe", "proc-cpu", "agg-fps/");
  g_print ("  %9s %4s %9s %9s %9s %11s %9s\n", "", "ms", "median", "fps",
      "fps", "us/frame", "1 pipe");
  for (ci = 0; ci < S->configs->len; ci++) {
    S6Config *c = g_ptr_array_index (S->configs, ci);
    S6Config *one = g_ptr_array_index (S->configs, (ci / n_counts) *
        n_counts);
    StartGate gate;
    gboolean cfg_ok = TRUE;

    if (c->gpu_us > 0 && writer != WRITER_KERNEL) {
      s6_set (&c->status, "skipped");
      s6_set (&c->reason, "no spin kernel: frames are written with "
          "cuMemsetD32Async, which cannot busy-wait");
      continue;
    }
    if (mono_s () - t_program_start / 1e6 > opt.time_limit) {
      s6_set (&c->status, "skipped");
      s6_set (&c->reason, "time limit reached (--time-limit)");
      g_print ("  %9u %4.0f skipped, time limit reached\n", c->n,
          c->gpu_us / 1000.0);
      continue;
    }
    any_run = TRUE;
    g_mutex_init (&gate.lock);
    g_cond_init (&gate.cond);
    for (rep = 0; rep < S->repetitions && cfg_ok; rep++) {
      GThread *th[S6_MAX];
      gdouble t0 = G_MAXDOUBLE, t1 = 0, cpu0 = 0, cpu1 = 0, fmin = G_MAXDOUBLE,
          fmax = 0;
      guint frames = 0;

      gate.arrived = 0;
      gate.n = c->n;
      for (i = 0; i < c->n; i++) {
        jobs[i].cfg = &c->pipes[i];
        c->pipes[i].gate = &gate;
        g_clear_pointer (&jobs[i].error, g_free);
        th[i] = g_thread_new ("bench-s6", s6_worker, &jobs[i]);
      }
      for (i = 0; i < c->n; i++)
        g_thread_join (th[i]);
      for (i = 0; i < c->n; i++) {
        ModeResult *m = &c->pipes[i].m[MODE_S6_A];
        gdouble f;

        if (!jobs[i].ok) {
          gchar *e = g_strdup_printf ("pipeline %u: %s", i, jobs[i].error);
          g_print ("    %u pipelines: FAILED: %s\n", c->n, e);
          s6_set (&c->reason, e);
          set_str (&m->status, "failed");
          set_str (&m->error, jobs[i].error);
          g_free (e);
          cfg_ok = FALSE;
          continue;
        }
        if (m->last_t[0] < t0) {
          t0 = m->last_t[0];
          cpu0 = m->last_cpu[0];
        }
        if (m->last_t[1] > t1) {
          t1 = m->last_t[1];
          cpu1 = m->last_cpu[1];
        }
        frames += m->last_frames;
        f = g_array_index (m->fps, gdouble, m->fps->len - 1);
        fmin = MIN (fmin, f);
        fmax = MAX (fmax, f);
        if (!m->stats_ok) {
          c->stats_ok = FALSE;
          set_str (&c->stats_note, m->stats_note);
        }
        c->path = m->path;
      }
      if (!cfg_ok)
        break;
      g_mutex_lock (&R.lock);
      series_add (c->agg_fps, t1 > t0 ? frames / (t1 - t0) : NAN);
      series_add (c->proc_cpu_us, frames ? (cpu1 - cpu0) * 1e6 / frames : NAN);
      series_add (c->min_fps, fmin);
      series_add (c->max_fps, fmax);
      g_mutex_unlock (&R.lock);
    }
    g_atomic_int_set (&run_active, 0);
    g_mutex_clear (&gate.lock);
    g_cond_clear (&gate.cond);
    s6_set (&c->status, cfg_ok ? "ok" : "failed");
    if (!cfg_ok) {
      all_ok = FALSE;
    } else {
      g_print ("  %9u %4.0f %9.0f %9.0f %9.0f %11.1f %9.2f%s%s\n", c->n,
          c->gpu_us / 1000.0, series_median (c->agg_fps),
          series_median (c->min_fps), series_median (c->max_fps),
          series_median (c->proc_cpu_us), ratio (series_median (c->agg_fps),
              series_median (one->agg_fps)), c->path ? "  " : "",
          c->path ? c->path : "");
      if (!c->stats_ok)
        g_print ("    WARNING: unexpected element stats: %s\n",
            c->stats_note);
    }
    write_json ();
  }
  s6_set (&S->status, all_ok ? (any_run ? "ok" : "skipped") : "failed");
  s6_set (&S->reason, any_run ? NULL : "no configuration ran");

out:
  for (i = 0; i < S6_MAX; i++) {
    S6Job *j = &jobs[i];

    if (j->pool) {
      gst_buffer_pool_set_active (j->pool, FALSE);
      gst_object_unref (j->pool);
    }
    if (gst_cuda_context_push (ctx)) {
      if (j->pstream) {
        drv.cuStreamSynchronize (j->pstream);
        drv.cuStreamDestroy (j->pstream);
      }
      for (k = 0; k < 18; k++) {
        if (j->pairs[k].e0)
          drv.cuEventDestroy (j->pairs[k].e0);
        if (j->pairs[k].ek)
          drv.cuEventDestroy (j->pairs[k].ek);
        if (j->pairs[k].e1)
          drv.cuEventDestroy (j->pairs[k].e1);
      }
      gst_cuda_context_pop (NULL);
    }
    if (j->free_pairs)
      g_async_queue_unref (j->free_pairs);
    gst_clear_object (&j->sem_p);
    g_free (j->error);
  }
  gst_cuda_sync_wait_idle ();
  for (i = 0; i < S6_MAX; i++)
    test_sem_free (jobs[i].ts_p);
  write_json ();
  return all_ok;
}

/* ------------------------------------------------------------------ */
/* main                                                                 */
/* ------------------------------------------------------------------ */

static gboolean
parse_writer (const gchar * name, const gchar * value, gpointer data,
    GError ** error)
{
  if (g_str_equal (value, "auto"))
    opt.writer = WRITER_AUTO;
  else if (g_str_equal (value, "kernel"))
    opt.writer = WRITER_KERNEL;
  else if (g_str_equal (value, "memset"))
    opt.writer = WRITER_MEMSET;
  else {
    g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
        "--frame-writer: auto, kernel or memset");
    return FALSE;
  }
  return TRUE;
}

/* --only: a comma-separated list of 1, 2, 2d (scenario 2's diagnosis), 3,
 * 4 */
#define ONLY_2D (1 << 9)
#define ONLY_2G (1 << 10)

static gboolean
parse_only (const gchar * name, const gchar * value, gpointer data,
    GError ** error)
{
  gchar **parts = g_strsplit (value, ",", -1);
  guint i;

  for (i = 0; parts[i]; i++) {
    gchar *p = g_strstrip (parts[i]);

    if (strlen (p) == 1 && p[0] >= '1' && p[0] <= '6')
      opt.only |= 1 << (p[0] - '0');
    else if (g_str_equal (p, "2d"))
      opt.only |= ONLY_2D;
    else if (g_str_equal (p, "2g"))
      opt.only |= ONLY_2G;
    else {
      g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
          "--only: a comma-separated list of 1, 2, 2d, 2g, 3, 4, 5, 6");
      g_strfreev (parts);
      return FALSE;
    }
  }
  g_strfreev (parts);
  return TRUE;
}

static gboolean
want (guint bit)
{
  return opt.only == 0 || (opt.only & bit) != 0;
}

static void
section_init (S2Result * S, const gchar * key, const gchar * title,
    const gchar * latency, const gint * modes, guint n_modes, gint ref)
{
  S->status = g_strdup ("not run");
  S->configs = g_ptr_array_new ();
  S->key = key;
  S->title = title;
  S->latency = latency;
  S->modes = modes;
  S->n_modes = n_modes;
  S->ref_mode = ref;
}

static void
fatal (const gchar * what)
{
  g_print ("FAIL: %s\n", what);
  g_mutex_lock (&R.lock);
  g_free (R.fatal);
  R.fatal = g_strdup (what);
  g_mutex_unlock (&R.lock);
  write_json ();
  g_atomic_int_set (&finished, 1);
}

int
main (int argc, char **argv)
{
  gchar *kernel_source = NULL;
  gdouble time_limit = 240;
  GOptionEntry entries[] = {
    {"repetitions", 'r', 0, G_OPTION_ARG_INT, &opt.repetitions,
        "Repetitions of each measurement (default 5; 2 with --quick)", "R"},
    {"quick", 'q', 0, G_OPTION_ARG_NONE, &opt.quick,
          "Short run for CI: fewer calls and frames, 1920x1080 only, GPU work "
          "0 and 1 ms", NULL},
    {"json", 'j', 0, G_OPTION_ARG_FILENAME, &opt.json_path,
        "Where to write the results (default bench-results.json)", "PATH"},
    {"only", 0, 0, G_OPTION_ARG_CALLBACK, parse_only,
          "Run only these scenarios: a comma-separated list of 1, 2, 2d "
          "(scenario 2's diagnosis), 3 (CUDA -> Vulkan, modes a-d), 4 "
          "(Vulkan -> CUDA), 5 (CUDA -> Vulkan -> CUDA stages), 6 (scaling "
          "to 8 pipelines)",
        "LIST"},
    {"frame-writer", 0, 0, G_OPTION_ARG_CALLBACK, parse_writer,
          "Scenario 2 frame writer: auto (the spin kernel; skips scenario 2 on "
          "the simulated driver), kernel, or memset (cuMemsetD32Async, GPU "
          "work 0 only: exercises the harness on the simulator)", "WRITER"},
    {"kernel-source", 0, 0, G_OPTION_ARG_STRING, &kernel_source,
        "auto (embedded fatbin, then NVRTC), fatbin or nvrtc", "SRC"},
    {"in-flight", 0, 0, G_OPTION_ARG_INT, &opt.in_flight,
        "Scenario 2 frames in flight = buffer pool size (default 4)", "N"},
    {"frames", 0, 0, G_OPTION_ARG_INT, &opt.frames,
          "Scenario 2 measured frames per repetition (default: 400 for 0 ms, "
          "400 ms worth of GPU work otherwise, 60..400)", "N"},
    {"calls", 0, 0, G_OPTION_ARG_INT, &opt.calls,
        "Scenario 1 calls per repetition (default 4096; 512 with --quick)",
        "N"},
    {"time-limit", 0, 0, G_OPTION_ARG_DOUBLE, &time_limit,
          "Start no new scenario 2, 2d, 3, 4, 5 or 6 configuration after this "
          "many "
          "seconds (default 240); the program aborts, keeping the JSON of what "
          "finished, 20 s later or when nothing progresses for 20 s", "S"},
    {NULL}
  };
  GOptionContext *octx;
  GError *err = NULL;
  gchar *error = NULL;
  gboolean ok = TRUE;
  GThread *wd;
  GDateTime *now;
  const gchar *elements[] = { "cudasemsignal", "cudasemwait", "identity",
    "fakesink"
  };
  guint i;

  setvbuf (stdout, NULL, _IOLBF, 0);
  t_program_start = g_get_monotonic_time ();
  g_mutex_init (&R.lock);
  opt.repetitions = -1;
  opt.in_flight = 4;
  opt.command_line = g_strjoinv (" ", argv);

  octx = g_option_context_new ("- measure the cost of handing CUDA frames "
      "over with external semaphores");
  g_option_context_add_main_entries (octx, entries, NULL);
  g_option_context_add_group (octx, gst_init_get_option_group ());
  if (!g_option_context_parse (octx, &argc, &argv, &err)) {
    g_printerr ("%s\n", err->message);
    return 2;
  }
  g_option_context_free (octx);
  if (opt.repetitions < 0)
    opt.repetitions = opt.quick ? 2 : 5;
  if (!opt.json_path)
    opt.json_path = g_strdup ("bench-results.json");
  opt.kernel_source = kernel_source ? kernel_source : g_strdup ("auto");
  opt.time_limit = time_limit;
  if (opt.calls <= 0 && opt.quick)
    opt.calls = 512;
  if (opt.repetitions < 1 || opt.in_flight < 1 || opt.in_flight > 64 ||

      (!g_str_equal (opt.kernel_source, "auto") &&
          !g_str_equal (opt.kernel_source, "fatbin") &&
          !g_str_equal (opt.kernel_source, "nvrtc"))) {
    g_printerr ("invalid option value (see --help)\n");
    return 2;
  }

  now = g_date_time_new_now_utc ();
  R.started = g_date_time_format_iso8601 (now);
  g_date_time_unref (now);
  R.cc_major = R.cc_minor = R.sm_count = 0;
  R.ctx_flags = -1;
  R.s1.status = g_strdup ("not run");
  R.s2.status = g_strdup ("not run");
  R.s2.configs = g_ptr_array_new ();
  R.s2.modes = s2_modes;
  R.s2.n_modes = G_N_ELEMENTS (s2_modes);
  R.s2.ref_mode = MODE_C;
  R.s2.title = "Scenario 2: GPU-produced frames handed to cudasemsignal ! "
      "cudasemwait ! fakesink";
  section_init (&R.s2d, "scenario2_diagnosis", "Scenario 2d: diagnosis of "
      "mode a's throughput (1920x1080 RGBA; a and c again, and variants of a)",
      "as scenario 2 (GPU time from the producer's kernel to the end event); "
      "a1 records the end event on its own non-blocking stream",
      s2d_modes, G_N_ELEMENTS (s2d_modes), MODE_C);
  section_init (&R.s3, "scenario3_cuda_to_vulkan", "Scenario 3: CUDA -> "
      "Vulkan: GPU-produced CUDA frames consumed by vulkandownload",
      "wall clock, from before the producer's kernel launch to the frame "
      "leaving vulkandownload (Vulkan consumer done, frame in system memory)",
      s3_modes, G_N_ELEMENTS (s3_modes), MODE_CV_B);
  section_init (&R.s4, "scenario4_vulkan_to_cuda", "Scenario 4: Vulkan -> "
      "CUDA: Vulkan frames (vulkanupload of one system-memory frame) handed "
      "to a CUDA consumer", "wall clock, from the push of the system-memory "
      "frame to the recycler seeing the end event the consumer recorded on "
      "the legacy default stream complete", s4_modes, G_N_ELEMENTS (s4_modes),
      MODE_VC_B);
  section_init (&R.s5, "scenario5_pipelined_stages", "Scenario 5: "
      "pipelined stages: GPU-produced CUDA frames -> cudatovulkan ! queue ! "
      "vulkancolorconvert ! capsfilter(BGRA) ! queue ! vulkantocuda ! queue ! fakesink (CUDA "
      "-> Vulkan -> CUDA), 1920x1080 RGBA",
      "wall clock, from before the producer's kernel launch to the recycler "
      "seeing the end event the CUDA consumer recorded on the legacy default "
      "stream (after vulkantocuda's copy) complete", s5_modes,
      G_N_ELEMENTS (s5_modes), MODE_S5_C);
  R.s6 = g_new0 (struct S6Result, 1);
  R.s6->status = g_strdup ("not run");
  R.s6->configs = g_ptr_array_new ();
  for (i = 0; i < S1_N_ROWS; i++) {
    R.s1.cpu_ns[i] = series_new ();
    R.s1.wall_ns[i] = series_new ();
  }

  g_print ("gst-cudasync bench: results to %s\n", opt.json_path);
  write_json ();
  wd = g_thread_new ("bench-watchdog", watchdog_thread, NULL);

  for (i = 0; i < G_N_ELEMENTS (elements); i++) {
    GstElementFactory *f = gst_element_factory_find (elements[i]);
    if (!f) {
      gchar *msg = g_strdup_printf ("element %s not found%s", elements[i],
          i < 2 ? ": point GST_PLUGIN_PATH at <builddir>/gst/plugin "
          "(bench/run.sh does)" : "");
      fatal (msg);
      return 1;
    }
    gst_object_unref (f);
  }

  /* semaphores the way an application makes them; decides the backend */
  if (test_sem_backend () == TEST_SEM_BACKEND_NONE) {
    gchar *msg = g_strdup_printf ("cannot create external semaphores: %s",
        test_sem_backend_name ());
    fatal (msg);
    return 1;
  }
  R.semaphores = g_strdup (test_sem_backend_name ());

  if (!gst_cuda_load_library ()) {
    fatal ("libgstcuda could not load the CUDA driver");
    return 1;
  }
  gst_cuda_memory_init_once ();
  if (!load_driver_symbols (&error)) {
    fatal (error);
    return 1;
  }
  ctx = gst_cuda_context_new (0);
  if (!ctx) {
    fatal ("gst_cuda_context_new (0) failed");
    return 1;
  }
  describe_device ();
  g_print ("  CUDA driver : %s\n  device      : %s, compute capability %d.%d,"
      " %d SMs, context scheduling %s\n  semaphores  : %s\n", R.driver,
      R.device, R.cc_major, R.cc_minor, R.sm_count,
      sched_name (R.ctx_flags) ? sched_name (R.ctx_flags) : "unknown",
      R.semaphores);
  write_json ();

  if (want (1 << 1))
    ok &= run_scenario1 ();
  else
    set_str (&R.s1.status, "skipped");
  if (want (1 << 2))
    ok &= run_scenario2 ();
  else
    set_str (&R.s2.status, "skipped");
  if (want (ONLY_2D))
    ok &= run_gpu_section (&R.s2d, SEC_2D);
  else
    set_str (&R.s2d.status, "skipped");
  if (want (ONLY_2G))
    ok &= run_scenario2g ();
  else
    set_str (&G.status, "skipped");
  if (want (1 << 3))
    ok &= run_gpu_section (&R.s3, SEC_3);
  else
    set_str (&R.s3.status, "skipped");
  if (want (1 << 4))
    ok &= run_gpu_section (&R.s4, SEC_4);
  else
    set_str (&R.s4.status, "skipped");
  if (want (1 << 5))
    ok &= run_gpu_section (&R.s5, SEC_5);
  else
    set_str (&R.s5.status, "skipped");
  if (want (1 << 6))
    ok &= run_scenario6 ();
  else
    set_str (&R.s6->status, "skipped");

  if (kernel.module && gst_cuda_context_push (ctx)) {
    CuModuleUnload (kernel.module);
    gst_cuda_context_pop (NULL);
  }

  g_mutex_lock (&R.lock);
  R.complete = TRUE;
  g_mutex_unlock (&R.lock);
  write_json ();
  g_atomic_int_set (&finished, 1);
  g_thread_join (wd);

  g_print ("\n%s (results in %s, %.1f s)\n", ok ? "DONE" : "DONE WITH "
      "FAILURES", opt.json_path, mono_s () - t_program_start / 1e6);
  gst_object_unref (ctx);
  return ok ? 0 : 1;
}

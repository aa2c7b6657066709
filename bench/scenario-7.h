/* gst-cudasync
 * Copyright (C) 2026 gst-cudasync developers
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Scenario 7, real decodes: its modes and configurations.
 */
#pragma once

#include "bench.h"

G_BEGIN_DECLS
#define S7_MAX 8
    typedef enum
{
  S7_CONSUMER_NONE,             /* decode only: the decoder ! fakesink */
  S7_CONSUMER_VULKAN,
  S7_CONSUMER_CUDA,
} S7Consumer;

/* a mode: decoder ! handoff ! consumer ! fakesink */
typedef struct
{
  const gchar *key;
  const gchar *desc;
  gboolean vk_decoder;          /* vulkanh264dec, else nvh264dec */
  const gchar *handoff;         /* between decoder and consumer; NULL: none */
  S7Consumer consumer;
  const gchar *bridge;          /* the bridge element whose stats are
                                 * checked (named "bridge"); NULL: none */
} S7Mode;

enum
{
  S7_A,                         /* nvh264dec ! cudatovulkan ! vk consumer */
  S7_B,                         /* nvh264dec ! cudadownload ! vulkanupload */
  S7_C,                         /* vulkanh264dec ! vulkantocuda ! cuda */
  S7_E,                         /* vulkanh264dec ! vulkandownload !
                                 * cudaupload */
  S7_N,                         /* nvh264dec ! cuda consumer */
  S7_N0,                        /* nvh264dec ! fakesink */
  S7_V0,                        /* vulkanh264dec ! fakesink */
  S7_N_MODES
};

extern const S7Mode s7_modes[S7_N_MODES];

/* the ratios written: {mode, over mode} */
extern const gint s7_ratios[][2];
extern const guint s7_n_ratios;

typedef struct
{
  gchar *status;
  gchar *error;
  GArray *fps;                  /* all pipelines together */
  GArray *proc_cpu_us;          /* process CPU per frame */
  GArray *lat_p50_us, *lat_p99_us;
  GArray *min_fps, *max_fps;    /* the slowest and fastest pipeline */
  GstStructure *stats;          /* the bridge's, pipeline 0, last repetition */
  const gchar *path;            /* which path the bridge ran */
  gboolean stats_ok;
  gchar *stats_note;
} S7ModeResult;

typedef struct
{
  gint width, height;
  guint n;                      /* decoders at once */
  guint frames;                 /* the clip's frames (each pipeline) */
  guint warmup;                 /* of them, before the window */
  gchar *status, *reason;
  S7ModeResult m[S7_N_MODES];
} S7Config;

/* what the pipelines of a repetition share */
typedef struct
{
  const gchar *clip;            /* its file */
  const gchar *demux;           /* its container's demuxer; NULL: none */
} S7Source;

/* the elements a mode needs that are not registered (" a b"), or NULL */
gchar *  s7_missing           (const S7Mode * mode, const S7Source * src);
/* Encodes a clip of @frames frames of @width x @height into @dir (high
 * profile with B-frames), in the
 * first container whose muxer and demuxer exist (*demux; NULL: a raw
 * byte-stream, whose frames carry no PTS). The file, or NULL and *error. */
gchar *  s7_make_clip         (Bench * b, const gchar * dir, gint width,
                               gint height, guint frames,
                               const gchar ** demux, gchar ** error);
/* One repetition of @mode in @c: c->n pipelines at once, their aggregate
 * appended to c->m[mode]. FALSE and *error when a pipeline failed. */
gboolean s7_repetition        (Bench * b, S7Config * c, gint mode,
                               const S7Source * src, gchar ** error);

G_END_DECLS

/* gst-cudasync
 * Copyright (C) 2026 gst-cudasync developers
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Scenario 7's pipelines: the clips, the modes' pipeline descriptions, and
 * one repetition of a configuration (N pipelines at once, each decoding the
 * clip from its own file source). See scenario-7.h and bench/README.md.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <math.h>
#include <string.h>

#include "frames.h"
#include "scenario-7.h"

#ifdef HAVE_CUDA_VULKAN
#include "vkutil.h"
#endif

/* a repetition that takes longer than this fails (the watchdog catches a
 * pipeline that stops moving sooner) */
#define S7_RUN_LIMIT_S 120

#define NV_OUT "video/x-raw(memory:CUDAMemory),format=NV12"
#define VK_OUT "video/x-raw(memory:VulkanImage),format=NV12"

const S7Mode s7_modes[S7_N_MODES] = {
  [S7_A] = {"a", "nvh264dec ! cudatovulkan ! Vulkan consumer: this "
        "project's bridge", FALSE, "cudatovulkan name=bridge",
      S7_CONSUMER_VULKAN, "cudatovulkan"},
  [S7_B] = {"b", "nvh264dec ! cudadownload ! vulkanupload ! Vulkan consumer: "
        "upstream, through system memory",
      FALSE, "cudadownload ! video/x-raw,format=NV12 ! vulkanupload ! "
        VK_OUT, S7_CONSUMER_VULKAN, NULL},
  [S7_C] = {"c", "vulkanh264dec ! vulkantocuda ! CUDA consumer: this "
        "project's bridge", TRUE,
      "vulkantocuda name=bridge", S7_CONSUMER_CUDA, "vulkantocuda"},
  [S7_E] = {"e", "vulkanh264dec ! vulkandownload ! cudaupload ! CUDA "
        "consumer: upstream, through system memory", TRUE,
        "vulkandownload ! video/x-raw,format=NV12 ! cudaupload ! " NV_OUT,
      S7_CONSUMER_CUDA, NULL},
  [S7_N] = {"n", "nvh264dec ! CUDA consumer: no handoff (the limit of c "
        "and e)", FALSE, NULL, S7_CONSUMER_CUDA, NULL},
  [S7_N0] = {"n0", "nvh264dec ! fakesink: decode alone", FALSE, NULL,
      S7_CONSUMER_NONE, NULL},
  [S7_V0] = {"v0", "vulkanh264dec ! fakesink: decode alone", TRUE, NULL,
      S7_CONSUMER_NONE, NULL},
};

/* the bridge over upstream, then each over its limit (the same decoder's
 * frames already where the consumer works, with the same consumer), and
 * what the consumer costs over decoding alone */
const gint s7_ratios[][2] = {
  {S7_A, S7_B}, {S7_A, S7_N0},
  {S7_C, S7_E}, {S7_C, S7_N}, {S7_E, S7_N}, {S7_C, S7_V0},
  {S7_N, S7_N0},
};

const guint s7_n_ratios = G_N_ELEMENTS (s7_ratios);

/* --- the pipelines' descriptions --- */

static gboolean
have (const gchar * factory)
{
  GstElementFactory *f = gst_element_factory_find (factory);

  if (f)
    gst_object_unref (f);
  return f != NULL;
}

/* "nvh264dec ! ... ! fakesink": the mode's pipeline after the source */
static gchar *
s7_describe (const S7Mode * mode, const S7Source * src)
{
  return g_strdup_printf ("%s name=dec ! %s%s%s%s ! fakesink name=sink "
      "sync=false enable-last-sample=false", mode->vk_decoder ?
      "vulkanh264dec" : "nvh264dec", mode->vk_decoder ? VK_OUT : NV_OUT,
      mode->handoff ? " ! " : "", mode->handoff ? mode->handoff : "",
      mode->consumer == S7_CONSUMER_VULKAN ? " ! vulkancolorconvert ! "
      "video/x-raw(memory:VulkanImage),format=RGBA" :
      mode->consumer == S7_CONSUMER_CUDA ? " ! cudaconvertscale ! "
      "video/x-raw(memory:CUDAMemory),format=RGBA" : "");
}

gchar *
s7_missing (const S7Mode * mode, const S7Source * src)
{
  GString *missing = g_string_new (NULL);
  gchar *desc = s7_describe (mode, src);
  gchar **parts = g_strsplit (desc, "!", -1);
  guint i;

  for (i = 0; parts[i]; i++) {
    gchar *name = g_strstrip (parts[i]);
    gchar *end = strchr (name, ' ');

    if (end)
      *end = '\0';
    /* caps are not elements */
    if (strchr (name, '/') || !*name)
      continue;
    if (!have (name))
      g_string_append_printf (missing, " %s", name);
  }
  g_strfreev (parts);
  g_free (desc);
  if (missing->len == 0) {
    g_string_free (missing, TRUE);
    return NULL;
  }
  return g_string_free (missing, FALSE);
}

/* --- the clips --- */

/* runs a pipeline to its end; FALSE and *error when it fails */
static gboolean
run_to_eos (GstElement * pipeline, gdouble limit_s, gchar ** error)
{
  GstBus *bus = gst_element_get_bus (pipeline);
  GstMessage *msg;

  gst_element_set_state (pipeline, GST_STATE_PLAYING);
  msg = gst_bus_timed_pop_filtered (bus, (GstClockTime) (limit_s * GST_SECOND),
      GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  if (!msg)
    *error = g_strdup_printf ("no end after %.0f s", limit_s);
  else if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR) {
    GError *err = NULL;

    gst_message_parse_error (msg, &err, NULL);
    *error = g_strdup_printf ("%s: %s", GST_OBJECT_NAME (GST_MESSAGE_SRC
            (msg)), err->message);
    g_error_free (err);
  }
  if (msg)
    gst_message_unref (msg);
  gst_object_unref (bus);
  gst_element_set_state (pipeline, GST_STATE_NULL);
  return *error == NULL;
}

gchar *
s7_make_clip (Bench * b, const gchar * dir, gint width, gint height,
    guint frames, const gchar ** demux, gchar ** error)
{
  /* the first container whose muxer and demuxer exist: its frames carry
   * their PTS (the latency's key); a raw byte-stream's do not */
  static const struct
  {
    const gchar *mux, *demux, *ext;
  } containers[] = {
    {"matroskamux", "matroskademux", "mkv"},
    {"mp4mux", "qtdemux", "mp4"},
    {"video/x-h264,stream-format=byte-stream", NULL, "h264"},
  };
  gchar *path, *name, *desc;
  GstElement *pipeline;
  GError *err = NULL;
  guint i;

  for (i = 0; i + 1 < G_N_ELEMENTS (containers); i++)
    if (have (containers[i].mux) && have (containers[i].demux))
      break;
  *demux = containers[i].demux;
  name = g_strdup_printf ("clip-%dx%d.%s", width, height, containers[i].ext);
  path = g_build_filename (dir, name, NULL);
  g_free (name);
  /* a moving test pattern at a streaming bit rate */
  desc = g_strdup_printf ("videotestsrc num-buffers=%u pattern=smpte "
      "horizontal-speed=4 ! video/x-raw,format=I420,width=%d,height=%d,"
      "framerate=30/1 ! x264enc speed-preset=superfast key-int-max=30 "
      "bframes=2 bitrate=%d ! video/x-h264,profile=high ! h264parse ! %s ! "
      "filesink location=\"%s\"", frames, width, height,
      width > 1920 ? 20000 : 8000, containers[i].mux, path);
  pipeline = gst_parse_launch (desc, &err);
  g_free (desc);
  if (!pipeline) {
    *error = g_strdup_printf ("could not make the clip: %s", err ?
        err->message : "?");
    g_clear_error (&err);
  } else {
    run_to_eos (pipeline, 300, error);
    gst_object_unref (pipeline);
    if (*error) {
      gchar *e = g_strdup_printf ("could not make the clip: %s", *error);

      g_free (*error);
      *error = e;
    }
  }
  if (*error) {
    g_free (path);
    return NULL;
  }
  return path;
}

/* --- one repetition --- */

typedef struct
{
  Bench *b;
  GstElement *pipeline;
  GstElement *bin;
  GMutex lock;
  GHashTable *t_in;             /* PTS -> when the decoder got the frame */
  GArray *lat_us;
  guint count, frames, warmup;
  gdouble t0, t1, cpu0, cpu1;   /* the window: after the warm-up frames */
  gboolean eos;
} S7Pipe;

static GstPadProbeReturn
decoder_in_probe (GstPad * pad, GstPadProbeInfo * info, gpointer user_data)
{
  S7Pipe *p = user_data;
  GstBuffer *buf = GST_PAD_PROBE_INFO_BUFFER (info);
  gint64 *key;
  gdouble *t;

  if (!GST_BUFFER_PTS_IS_VALID (buf))
    return GST_PAD_PROBE_OK;
  key = g_new (gint64, 1);
  *key = (gint64) GST_BUFFER_PTS (buf);
  t = g_new (gdouble, 1);
  *t = mono_s ();
  g_mutex_lock (&p->lock);
  g_hash_table_replace (p->t_in, key, t);
  g_mutex_unlock (&p->lock);
  return GST_PAD_PROBE_OK;
}

static GstPadProbeReturn
sink_probe (GstPad * pad, GstPadProbeInfo * info, gpointer user_data)
{
  S7Pipe *p = user_data;
  GstBuffer *buf = GST_PAD_PROBE_INFO_BUFFER (info);
  gint64 pts = (gint64) GST_BUFFER_PTS (buf);
  gdouble now = mono_s (), *t;

  g_mutex_lock (&p->lock);
  p->count++;
  if (p->count == p->warmup) {
    p->t0 = now;
    p->cpu0 = process_cpu_s ();
  } else if (p->count == p->frames) {
    p->t1 = now;
    p->cpu1 = process_cpu_s ();
  }
  if (GST_BUFFER_PTS_IS_VALID (buf) && (t = g_hash_table_lookup (p->t_in,
              &pts))) {
    gdouble us = (now - *t) * 1e6;

    if (p->count > p->warmup)
      g_array_append_val (p->lat_us, us);
    g_hash_table_remove (p->t_in, &pts);
  }
  g_mutex_unlock (&p->lock);
  bench_progress (&p->b->wd);
  return GST_PAD_PROBE_OK;
}

static void
add_probe (GstElement * bin, const gchar * element, GstPadProbeCallback func,
    S7Pipe * p)
{
  GstElement *el = gst_bin_get_by_name (GST_BIN (bin), element);
  GstPad *pad = el ? gst_element_get_static_pad (el, "sink") : NULL;

  if (pad)
    gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER, func, p, NULL);
  gst_clear_object (&pad);
  gst_clear_object (&el);
}

/* the bench's CUDA and Vulkan contexts on every element of @bin */
static void
give_contexts (Bench * b, GstElement * bin)
{
  GstIterator *it = gst_bin_iterate_recurse (GST_BIN (bin));
  GValue v = G_VALUE_INIT;

  while (gst_iterator_next (it, &v) == GST_ITERATOR_OK) {
    GstElement *el = g_value_get_object (&v);

    give_vulkan_contexts (b, &el, 1);
    g_value_reset (&v);
  }
  g_value_unset (&v);
  gst_iterator_free (it);
}

static gboolean
pipe_build (Bench * b, S7Pipe * p, const gchar * desc, S7Config * c,
    gchar ** error)
{
  GError *err = NULL;

  memset (p, 0, sizeof (*p));
  p->b = b;
  g_mutex_init (&p->lock);
  p->t_in = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, g_free);
  p->lat_us = series_new ();
  p->frames = c->frames;
  p->warmup = c->warmup;
  p->pipeline = pipeline_new (b);
  p->bin = gst_parse_bin_from_description (desc, FALSE, &err);
  if (!p->bin) {
    *error = g_strdup_printf ("%s: %s", desc, err ? err->message : "?");
    g_clear_error (&err);
    return FALSE;
  }
  gst_bin_add (GST_BIN (p->pipeline), p->bin);
  give_contexts (b, p->bin);
  add_probe (p->bin, "dec", decoder_in_probe, p);
  add_probe (p->bin, "sink", sink_probe, p);
  return TRUE;
}

static void
pipe_clear (S7Pipe * p, gboolean drain)
{
  if (p->pipeline) {
#ifdef HAVE_CUDA_VULKAN
    /* every frame reached the sink: vk_util_drain_pipeline () says why */
    if (drain)
      vk_util_drain_pipeline (p->pipeline);
#endif
    gst_element_set_state (p->pipeline, GST_STATE_NULL);
    gst_object_unref (p->pipeline);
  }
  if (p->t_in)
    g_hash_table_unref (p->t_in);
  if (p->lat_us)
    g_array_unref (p->lat_us);
  g_mutex_clear (&p->lock);
}

/* the first error among the pipelines' buses; "pipeline i: ..." */
static gchar *
pipes_error (S7Pipe * pipes, guint n)
{
  guint i;

  for (i = 0; i < n; i++) {
    gchar *e = pipes[i].pipeline ? bus_error (pipes[i].pipeline) : NULL;

    if (e) {
      gchar *ret = g_strdup_printf ("pipeline %u: %s", i, e);

      g_free (e);
      return ret;
    }
  }
  return NULL;
}

/* every pipeline prerolls (decoder and device set up), then all play */
static gboolean
pipes_start (S7Pipe * pipes, guint n, gchar ** error)
{
  guint i;

  for (i = 0; i < n; i++)
    if (gst_element_set_state (pipes[i].pipeline, GST_STATE_PAUSED) ==
        GST_STATE_CHANGE_FAILURE)
      break;
  for (i = 0; i < n; i++) {
    if (gst_element_get_state (pipes[i].pipeline, NULL, NULL, 30 * GST_SECOND)
        != GST_STATE_CHANGE_SUCCESS) {
      *error = pipes_error (pipes, n);
      if (!*error)
        *error = g_strdup_printf ("pipeline %u did not preroll", i);
      return FALSE;
    }
  }
  for (i = 0; i < n; i++)
    gst_element_set_state (pipes[i].pipeline, GST_STATE_PLAYING);
  return TRUE;
}

/* until every pipeline's EOS, an error, the limit or the run's abort */
static gboolean
pipes_wait (Bench * b, S7Pipe * pipes, guint n, gchar ** error)
{
  gdouble until = mono_s () + S7_RUN_LIMIT_S;
  guint done = 0, i;

  while (done < n && !*error) {
    for (i = 0; i < n && !*error; i++) {
      GstBus *bus = gst_element_get_bus (pipes[i].pipeline);
      GstMessage *msg = gst_bus_timed_pop_filtered (bus, 20 * GST_MSECOND,
          GST_MESSAGE_EOS | GST_MESSAGE_ERROR);

      if (msg && GST_MESSAGE_TYPE (msg) == GST_MESSAGE_EOS && !pipes[i].eos) {
        pipes[i].eos = TRUE;
        done++;
      } else if (msg && GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR) {
        /* bus_error () reads it again */
        gst_bus_post (bus, gst_message_ref (msg));
        *error = pipes_error (pipes, n);
      }
      if (msg)
        gst_message_unref (msg);
      gst_object_unref (bus);
    }
    if (!*error && bench_stopped (b))
      *error = g_strdup (BENCH_STOPPED);
    else if (!*error && mono_s () > until)
      *error = g_strdup_printf ("%u of %u pipelines not done after %d s",
          n - done, n, S7_RUN_LIMIT_S);
  }
  for (i = 0; i < n && !*error; i++)
    if (pipes[i].count != pipes[i].frames)
      *error = g_strdup_printf ("pipeline %u: %u frames reached the sink, "
          "the clip has %u", i, pipes[i].count, pipes[i].frames);
  return *error == NULL;
}

/* the bridge's counters in every pipeline; pipeline 0's are kept */
static void
pipes_stats (Bench * b, S7Pipe * pipes, guint n, const S7Mode * mode,
    S7ModeResult * m)
{
  GString *note = g_string_new (NULL);
  GstStructure *st0 = NULL;
  const gchar *path = NULL;
  gboolean ok = TRUE;
  guint i;

  for (i = 0; mode->bridge && i < n; i++) {
    GstElement *el = gst_bin_get_by_name (GST_BIN (pipes[i].bin), "bridge");
    GstStructure *st = NULL;

    if (el)
      g_object_get (el, "stats", &st, NULL);
    ok &= expect_bridge_stats (st, mode->bridge, pipes[i].frames, G_MAXUINT,
        note, &path);
    if (i == 0)
      st0 = st;
    else if (st)
      gst_structure_free (st);
    gst_clear_object (&el);
  }
  g_mutex_lock (&b->lock);
  if (st0) {
    if (m->stats)
      gst_structure_free (m->stats);
    m->stats = st0;
  }
  m->path = path;
  if (!ok) {
    m->stats_ok = FALSE;
    g_free (m->stats_note);
    m->stats_note = g_strdup (note->str);
  }
  g_mutex_unlock (&b->lock);
  if (!ok)
    g_print ("    WARNING: mode %s: unexpected element stats: %s\n",
        mode->key, note->str);
  g_string_free (note, TRUE);
}

/* the pipelines' aggregate over their windows, appended to @m */
static void
pipes_record (Bench * b, S7Pipe * pipes, guint n, S7ModeResult * m)
{
  gdouble t0 = G_MAXDOUBLE, t1 = 0, cpu0 = 0, cpu1 = 0, fmin = G_MAXDOUBLE,
      fmax = 0;
  GArray *lat = series_new ();
  guint frames = 0, i;

  for (i = 0; i < n; i++) {
    S7Pipe *p = &pipes[i];
    guint measured = p->frames - p->warmup;

    if (p->t0 < t0) {
      t0 = p->t0;
      cpu0 = p->cpu0;
    }
    if (p->t1 > t1) {
      t1 = p->t1;
      cpu1 = p->cpu1;
    }
    frames += measured;
    fmin = MIN (fmin, p->t1 > p->t0 ? measured / (p->t1 - p->t0) : NAN);
    fmax = MAX (fmax, p->t1 > p->t0 ? measured / (p->t1 - p->t0) : NAN);
    if (p->lat_us->len)
      g_array_append_vals (lat, p->lat_us->data, p->lat_us->len);
  }
  g_mutex_lock (&b->lock);
  series_add (m->fps, t1 > t0 ? frames / (t1 - t0) : NAN);
  series_add (m->proc_cpu_us, frames ? (cpu1 - cpu0) * 1e6 / frames : NAN);
  series_add (m->min_fps, fmin);
  series_add (m->max_fps, fmax);
  /* without PTS (a raw byte-stream clip) there is no latency */
  series_add (m->lat_p50_us, lat->len ? series_percentile (lat, 0.5) : NAN);
  series_add (m->lat_p99_us, lat->len ? series_percentile (lat, 0.99) : NAN);
  g_mutex_unlock (&b->lock);
  g_array_unref (lat);
}

gboolean
s7_repetition (Bench * b, S7Config * c, gint mode, const S7Source * src,
    gchar ** error)
{
  const S7Mode *md = &s7_modes[mode];
  S7Pipe pipes[S7_MAX];
  gchar *chain = s7_describe (md, src);
  gchar *desc = g_strdup_printf ("filesrc location=\"%s\" ! %s%sh264parse ! "
      "%s", src->clip, src->demux ? src->demux : "", src->demux ? " ! " : "",
      chain);
  gboolean ok = TRUE;
  guint i, built = 0;

  g_free (chain);
  for (i = 0; i < c->n && ok; i++, built++)
    ok = pipe_build (b, &pipes[i], desc, c, error);
  g_free (desc);
  ok = ok && pipes_start (pipes, c->n, error);
  ok = ok && pipes_wait (b, pipes, c->n, error);
  if (ok) {
    pipes_stats (b, pipes, c->n, md, &c->m[mode]);
    pipes_record (b, pipes, c->n, &c->m[mode]);
  }
  /* the watchdog's stall detection covers the teardown too (a Vulkan
   * element that waits for ever for a fence after an error) */
  bench_progress (&b->wd);
  for (i = 0; i < built; i++)
    pipe_clear (&pipes[i], ok);
  bench_run_idle (&b->wd);
  return ok;
}

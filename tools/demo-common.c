/* gst-cudasync
 * Copyright (C) 2026 gst-cudasync developers
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * gst-cudasync-demo's shared part: demo-common.h.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <gst/gst.h>
#include <gst/app/gstappsink.h>
#include <gst/video/video.h>
#include <gst/cuda/gstcudacontext.h>
#include <gst/cuda/gstcudaloader.h>
#include <gst/cuda/gstcudautils.h>
#include <gst/cudasync/cudasync.h>

#include "testsem.h"

#ifdef HAVE_CUDA_VULKAN
#include "vkutil.h"
#endif
#include "demo-common.h"

#define PIPELINE_TIMEOUT (120 * GST_SECOND)

typedef struct
{
  GstCudaContext *context;
  GMutex lock;
  GString *given_to;            /* names of the elements given the context */
} BusData;

typedef struct
{
  GMutex lock;
  GPtrArray *sums;              /* one hex SHA-1 per frame */
  gchar *error;
} Collect;

/* ---- driver description ---- */

typedef CUresult (*DemoInitFunc) (unsigned int flags);
typedef CUresult (*DemoDeviceGetNameFunc) (char *name, int len, CUdevice dev);
typedef CUresult (*DemoDriverGetVersionFunc) (int *version);

gchar *
describe_driver (void)
{
  void *lib = dlopen ("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  DemoInitFunc cu_init;
  DemoDeviceGetNameFunc get_name;
  DemoDriverGetVersionFunc get_version;
  char name[256] = "";
  int version = 0;

  if (!lib)
    return g_strdup ("no CUDA driver (libcuda.so.1 not found)");
  if (dlsym (lib, "cudasim_sem_create"))
    return g_strdup ("SIMULATED CUDA driver (no GPU on this machine)");

  /* cuInit first: this may run before anything else used the driver */
  cu_init = (DemoInitFunc) dlsym (lib, "cuInit");
  if (cu_init)
    cu_init (0);
  get_name = (DemoDeviceGetNameFunc) dlsym (lib, "cuDeviceGetName");
  get_version = (DemoDriverGetVersionFunc) dlsym (lib, "cuDriverGetVersion");
  if (get_name)
    get_name (name, sizeof (name) - 1, 0);
  if (get_version)
    get_version (&version);
  return g_strdup_printf ("real NVIDIA GPU: device 0 \"%s\", CUDA driver API "
      "%d.%d", name[0] ? name : "?", version / 1000, (version % 1000) / 10);
}

SimCallCount
sim_call_count_func (void)
{
  void *lib = dlopen ("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);

  return lib ? (SimCallCount) dlsym (lib, "cudasim_call_count") : NULL;
}

/* ---- checksums ---- */

static gchar *
frame_checksum (GstVideoFrame * frame)
{
  const GstVideoFormatInfo *finfo = frame->info.finfo;
  GChecksum *sum = g_checksum_new (G_CHECKSUM_SHA1);
  guint p;
  gchar *hex;

  for (p = 0; p < GST_VIDEO_FRAME_N_PLANES (frame); p++) {
    gint comp[GST_VIDEO_MAX_COMPONENTS];
    const guint8 *data = GST_VIDEO_FRAME_PLANE_DATA (frame, p);
    gint stride = GST_VIDEO_FRAME_PLANE_STRIDE (frame, p);
    gsize row_bytes;
    gint rows, y;

    gst_video_format_info_component (finfo, p, comp);
    if (comp[0] < 0 || GST_VIDEO_FRAME_COMP_PSTRIDE (frame, comp[0]) <= 0) {
      /* not a simple raster plane: hash it all */
      row_bytes = ABS (stride);
      rows = GST_VIDEO_FRAME_SIZE (frame) / MAX (row_bytes, 1) /
          GST_VIDEO_FRAME_N_PLANES (frame);
    } else {
      row_bytes = (gsize) GST_VIDEO_FRAME_COMP_WIDTH (frame, comp[0]) *
          GST_VIDEO_FRAME_COMP_PSTRIDE (frame, comp[0]);
      rows = GST_VIDEO_FRAME_COMP_HEIGHT (frame, comp[0]);
    }
    for (y = 0; y < rows; y++)
      g_checksum_update (sum, data + (gssize) y * stride, row_bytes);
  }
  hex = g_strdup (g_checksum_get_string (sum));
  g_checksum_free (sum);
  return hex;
}

static GstFlowReturn
on_new_sample (GstAppSink * sink, gpointer user_data)
{
  Collect *c = user_data;
  GstSample *sample = gst_app_sink_pull_sample (sink);
  GstVideoInfo info;
  GstVideoFrame frame;
  GstBuffer *buf;
  GstCaps *caps;

  if (!sample)
    return GST_FLOW_EOS;

  caps = gst_sample_get_caps (sample);
  buf = gst_sample_get_buffer (sample);
  if (!caps || !buf || !gst_video_info_from_caps (&info, caps) ||
      !gst_video_frame_map (&frame, &info, buf, GST_MAP_READ)) {
    g_mutex_lock (&c->lock);
    if (!c->error)
      c->error = g_strdup ("appsink: could not map a frame");
    g_mutex_unlock (&c->lock);
    gst_sample_unref (sample);
    return GST_FLOW_ERROR;
  }

  {
    gchar *hex = frame_checksum (&frame);

    g_mutex_lock (&c->lock);
    g_ptr_array_add (c->sums, hex);
    g_mutex_unlock (&c->lock);
  }
  gst_video_frame_unmap (&frame);
  gst_sample_unref (sample);
  return GST_FLOW_OK;
}

/* ---- CUDA context sharing ---- */

static GstBusSyncReply
bus_sync_handler (GstBus * bus, GstMessage * msg, gpointer user_data)
{
  BusData *bd = user_data;
  const gchar *type = NULL;

  if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_NEED_CONTEXT &&
      gst_message_parse_context_type (msg, &type) &&
      g_strcmp0 (type, GST_CUDA_CONTEXT_TYPE) == 0) {
    GstContext *ctx = gst_context_new_cuda_context (bd->context);

    gst_element_set_context (GST_ELEMENT (GST_MESSAGE_SRC (msg)), ctx);
    gst_context_unref (ctx);
    g_mutex_lock (&bd->lock);
    g_string_append_printf (bd->given_to, "%s%s", bd->given_to->len ? ", " :
        "", GST_OBJECT_NAME (GST_MESSAGE_SRC (msg)));
    g_mutex_unlock (&bd->lock);
  }
  return GST_BUS_PASS;
}

/* ---- one pipeline ---- */

static GstStructure *
get_stats (GstElement * pipeline, const gchar * name)
{
  GstElement *e = gst_bin_get_by_name (GST_BIN (pipeline), name);
  GstStructure *s = NULL;

  if (e) {
    g_object_get (e, "stats", &s, NULL);
    gst_object_unref (e);
  }
  return s;
}

/* Pops the bus's messages until EOS (TRUE) or an error, or until none came
 * for PIPELINE_TIMEOUT; prints warnings; *error says why it failed. */
static gboolean
wait_for_eos (GstBus * bus, gchar ** error)
{
  gboolean ok = FALSE, done = FALSE;

  while (!done) {
    GstMessage *msg = gst_bus_timed_pop_filtered (bus, PIPELINE_TIMEOUT,
        GST_MESSAGE_EOS | GST_MESSAGE_ERROR | GST_MESSAGE_WARNING);
    GError *gerr = NULL;
    gchar *dbg = NULL;

    if (!msg) {
      *error = g_strdup_printf ("no EOS within %u s: the pipeline stalled",
          (guint) (PIPELINE_TIMEOUT / GST_SECOND));
      break;
    }
    switch (GST_MESSAGE_TYPE (msg)) {
      case GST_MESSAGE_EOS:
        ok = TRUE;
        done = TRUE;
        break;
      case GST_MESSAGE_ERROR:
        gst_message_parse_error (msg, &gerr, &dbg);
        *error = g_strdup_printf ("error from %s: %s%s%s",
            GST_OBJECT_NAME (GST_MESSAGE_SRC (msg)), gerr->message,
            dbg ? "\n    debug: " : "", dbg ? dbg : "");
        done = TRUE;
        break;
      case GST_MESSAGE_WARNING:
        gst_message_parse_warning (msg, &gerr, &dbg);
        g_print ("  warning from %s: %s\n",
            GST_OBJECT_NAME (GST_MESSAGE_SRC (msg)), gerr->message);
        break;
      default:
        break;
    }
    g_clear_error (&gerr);
    g_free (dbg);
    gst_message_unref (msg);
  }
  return ok;
}

static gboolean
run_pipeline (const gchar * desc, GstCudaContext * context,
    GstCudaSemaphore * sem, RunResult * res, gchar ** error)
{
  GError *err = NULL;
  GstElement *pipeline, *sink;
  GstBus *bus;
  BusData bd = { context, };
  Collect c;
  GstAppSinkCallbacks cb = { 0, };
  gboolean ok;
  gint64 start;

  memset (res, 0, sizeof (*res));
  pipeline = gst_parse_launch (desc, &err);
  if (!pipeline || err) {
    *error = g_strdup_printf ("could not build the pipeline: %s",
        err ? err->message : "unknown error");
    g_clear_error (&err);
    gst_clear_object (&pipeline);
    return FALSE;
  }

  g_mutex_init (&bd.lock);
  bd.given_to = g_string_new (NULL);
  g_mutex_init (&c.lock);
  c.sums = g_ptr_array_new_with_free_func (g_free);
  c.error = NULL;

  bus = gst_element_get_bus (pipeline);
  if (context)
    gst_bus_set_sync_handler (bus, bus_sync_handler, &bd, NULL);

  if (sem) {
    GstElement *wait = gst_bin_get_by_name (GST_BIN (pipeline), "wait");

    g_assert (wait);
    g_object_set (wait, "semaphore", sem, NULL);
    gst_object_unref (wait);
  }

  sink = gst_bin_get_by_name (GST_BIN (pipeline), "sink");
  g_assert (sink);
  cb.new_sample = on_new_sample;
  gst_app_sink_set_callbacks (GST_APP_SINK (sink), &cb, &c, NULL);
  gst_object_unref (sink);

  start = g_get_monotonic_time ();
  if (gst_element_set_state (pipeline,
          GST_STATE_PLAYING) == GST_STATE_CHANGE_FAILURE) {
    /* the error message on the bus says why */
    GST_DEBUG ("state change to PLAYING failed");
  }

  ok = wait_for_eos (bus, error);
  res->seconds = (g_get_monotonic_time () - start) / 1e6;
#ifdef HAVE_CUDA_VULKAN
  /* every frame is through: see vk_util_drain_pipeline() */
  if (ok)
    vk_util_drain_pipeline (pipeline);
#endif

  res->sig_stats = get_stats (pipeline, "sig");
  res->wait_stats = get_stats (pipeline, "wait");
  res->c2v_stats = get_stats (pipeline, "c2v");
  res->v2c_stats = get_stats (pipeline, "v2c");

  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_bus_set_flushing (bus, TRUE);
  gst_object_unref (bus);
  gst_object_unref (pipeline);

  res->context_given_to = g_string_free (bd.given_to, FALSE);
  g_mutex_clear (&bd.lock);
  res->sums = c.sums;
  if (ok && c.error) {
    *error = c.error;
    c.error = NULL;
    ok = FALSE;
  }
  g_free (c.error);
  g_mutex_clear (&c.lock);
  return ok;
}

guint64
get_stat (const GstStructure * s, const gchar * field)
{
  guint64 v = 0;

  if (!s || !gst_structure_get_uint64 (s, field, &v))
    return G_MAXUINT64;
  return v;
}

static void
clear_result (RunResult * r)
{
  g_clear_pointer (&r->sums, g_ptr_array_unref);
  g_clear_pointer (&r->sig_stats, gst_structure_free);
  g_clear_pointer (&r->wait_stats, gst_structure_free);
  g_clear_pointer (&r->c2v_stats, gst_structure_free);
  g_clear_pointer (&r->v2c_stats, gst_structure_free);
  g_clear_pointer (&r->context_given_to, g_free);
}

/* ---- frame comparison ---- */

/* Prints the checksum line; returns the number of identical frames. */
static guint
compare_sums (GPtrArray * got, GPtrArray * ref, gint frames)
{
  guint n = got ? MIN (got->len, ref->len) : 0, i, n_identical = 0;
  guint first_bad = G_MAXUINT;

  for (i = 0; i < n; i++) {
    if (g_str_equal (g_ptr_array_index (got, i), g_ptr_array_index (ref, i)))
      n_identical++;
    else if (first_bad == G_MAXUINT)
      first_bad = i;
  }
  g_print ("checksums: %u/%d frames identical\n", n_identical, frames);
  if (first_bad != G_MAXUINT)
    g_print ("  first difference at frame %u: %s (CUDA) vs %s (reference)\n",
        first_bad, (gchar *) g_ptr_array_index (got, first_bad),
        (gchar *) g_ptr_array_index (ref, first_bad));
  return n_identical;
}

void
demo_clear (Demo * d)
{
  clear_result (&d->ref);
  clear_result (&d->run);
  gst_clear_object (&d->sem);
  g_clear_pointer (&d->tsem, test_sem_free);
  gst_clear_object (&d->context);
  g_clear_pointer (&d->caps, g_free);
  g_clear_pointer (&d->desc, g_free);
  g_clear_pointer (&d->ref_desc, g_free);
  g_clear_pointer (&d->driver, g_free);
  g_clear_pointer (&d->vkdev, g_free);
  g_clear_pointer (&d->error, g_free);
}

/* ---- set-up shared by both pipelines ---- */

/* names[0..1] come from nvcodec, names[2..3] from this plugin */
gboolean
find_elements (const gchar * const *names, const gchar * nvcodec_hint,
    const gchar * plugin_hint)
{
  guint i;

  for (i = 0; i < 4; i++) {
    GstElementFactory *f = gst_element_factory_find (names[i]);

    if (!f) {
      g_print ("FAIL: element %s not found. %s\n", names[i],
          i < 2 ? nvcodec_hint : plugin_hint);
      return FALSE;
    }
    gst_object_unref (f);
  }
  return TRUE;
}

/* gst_cuda_sync_init() first, as applications do: it loads libgstcuda's
 * driver entry points (the nvcodec plugin would, but this application
 * creates its context before any element does) and fails cleanly on a
 * driver without a usable device, where libgstcuda 1.22's context creation
 * would break (docs/known-issues.md) */
gboolean
demo_new_context (Demo * d)
{
  GError *err = NULL;

  if (!gst_cuda_sync_init (&err)) {
    g_print ("FAIL: gst_cuda_sync_init: %s\n", err->message);
    g_clear_error (&err);
    return FALSE;
  }
  d->context = gst_cuda_context_new (0);
  if (!d->context) {
    g_print ("FAIL: gst_cuda_context_new(0) failed\n");
    return FALSE;
  }
  return TRUE;
}

/* the pipeline descriptions: @middle between the caps and cudadownload's */
void
demo_describe_pipelines (Demo * d, const DemoOptions * o, const gchar * middle)
{
  d->caps = g_strdup_printf ("video/x-raw,format=NV12,width=%d,height=%d,"
      "framerate=30/1", o->width, o->height);
  d->desc = g_strdup_printf ("videotestsrc num-buffers=%d pattern=ball ! "
      "%s ! %s ! video/x-raw,format=NV12 ! appsink name=sink sync=false",
      o->frames, d->caps, middle);
  d->ref_desc = g_strdup_printf ("videotestsrc num-buffers=%d pattern=ball ! "
      "%s ! appsink name=sink sync=false", o->frames, d->caps);
}

/* ---- running ---- */

/* the reference, without CUDA */
gboolean
demo_run_reference (Demo * d)
{
  if (!run_pipeline (d->ref_desc, NULL, NULL, &d->ref, &d->error)) {
    g_print ("FAIL: reference pipeline: %s\n", d->error);
    return FALSE;
  }
  return TRUE;
}

/* the CUDA pipeline, with the application's context (and @sem on
 * cudasemwait); FALSE (said) when it did not end with EOS */
gboolean
demo_run_cuda (Demo * d, GstCudaSemaphore * sem, const gchar * label)
{
  g_print ("  pipeline        : %s\n", d->desc);
  if (!run_pipeline (d->desc, d->context, sem, &d->run, &d->error)) {
    g_print ("FAIL: %s pipeline: %s\n", label, d->error);
    return FALSE;
  }
  return TRUE;
}

/* ---- report ---- */

/* context, frame count and time lines; @how: "with CUDA" ... */
void
demo_print_run (const Demo * d, const gchar * how)
{
  g_print ("  CUDA context    : the application's, given on need-context to: "
      "%s\n", d->run.context_given_to && *d->run.context_given_to ?
      d->run.context_given_to : "(none asked)");
  g_print ("  frames          : %u (reference %u)\n",
      d->run.sums ? d->run.sums->len : 0, d->ref.sums->len);
  g_print ("  time            : %.2f s %s, %.2f s reference\n",
      d->run.seconds, how, d->ref.seconds);
}

/* the checksum line and the frame checks; TRUE when every frame is there
 * and identical to the reference */
gboolean
demo_check_frames (const Demo * d, gint frames)
{
  guint n_identical = compare_sums (d->run.sums, d->ref.sums, frames);
  gboolean pass = TRUE;

  if (d->ref.sums->len != (guint) frames) {
    g_print ("FAIL: the reference pipeline gave %u frames\n", d->ref.sums->len);
    pass = FALSE;
  }
  if (n_identical != (guint) frames) {
    g_print ("FAIL: %u of %d frames differ or are missing\n",
        frames - n_identical, frames);
    pass = FALSE;
  }
  return pass;
}

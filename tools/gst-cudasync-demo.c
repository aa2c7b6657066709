/* gst-cudasync
 * Copyright (C) 2026 gst-cudasync developers
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * gst-cudasync-demo: runs
 *
 *   videotestsrc ! NV12 ! cudaupload ! cudasemsignal ! cudasemwait ! cudadownload ! appsink
 *
 * with a timeline semaphore created the way an application creates it
 * (Vulkan on a real GPU, the simulator's exporter API otherwise; see
 * tools/common/testsem.h), imported with gst_cuda_semaphore_import_fd() and
 * set on cudasemwait, which offers it to cudasemsignal through the
 * ALLOCATION query. The frames are compared, checksum by checksum, with
 * those of the same videotestsrc without CUDA.
 *
 * Exit status: 0 when every frame is identical, every buffer was signalled
 * on the GPU and cudasemsignal never synchronised on the CPU; 1 otherwise.
 *
 * With --bridge it runs the CUDA<->Vulkan bridge instead:
 *
 *   videotestsrc ! NV12 ! cudaupload ! cudatovulkan ! vulkantocuda ! cudadownload ! appsink
 *
 * every frame going CUDA -> Vulkan image -> CUDA, and compares the frames
 * the same way. It says which Vulkan device the elements share with CUDA
 * and which path ran: the GPU path (CUDA and Vulkan wait for each other on
 * semaphores, no CPU wait: required on a real GPU) or the CPU fallback
 * (Mesa lavapipe, which cannot export semaphores, on the simulated driver:
 * each element waits on the CPU once per frame).
 *
 * Needs GST_PLUGIN_PATH pointing at the build's gst/plugin folder;
 * tools/run-demo.sh sets everything up (and runs both pipelines).
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
#include <gst/vulkan/vulkan.h>
#include "vkutil.h"
#endif

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

typedef struct
{
  GPtrArray *sums;
  GstStructure *sig_stats;
  GstStructure *wait_stats;
  GstStructure *c2v_stats;      /* --bridge */
  GstStructure *v2c_stats;
  gchar *context_given_to;
  gdouble seconds;
} RunResult;

/* ---- driver description ---- */

typedef CUresult (*DemoInitFunc) (unsigned int flags);
typedef CUresult (*DemoDeviceGetNameFunc) (char *name, int len, CUdevice dev);
typedef CUresult (*DemoDriverGetVersionFunc) (int *version);
typedef unsigned (*SimCallCount) (const char *entry_point);

static gchar *
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

static SimCallCount
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

static guint64
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

/* ---- --bridge: cudaupload ! cudatovulkan ! vulkantocuda ! cudadownload ---- */

static gboolean
is_simulator (void)
{
  void *lib = dlopen ("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);

  return lib && dlsym (lib, "cudasim_sem_create") != NULL;
}

#ifdef HAVE_CUDA_VULKAN
/* Describes the Vulkan device the bridge elements will share with CUDA
 * device 0: the one with the same deviceUUID. The simulated CUDA device has
 * no Vulkan twin: there the first device with VK_KHR_external_memory_fd
 * (Mesa lavapipe) plays it, and the simulator's device 0 is given its UUID
 * (CUDASIM_DEVICE_UUID, read at each cuDeviceGetUuid), as the tests do.
 * *gpu_sync: whether it can export opaque-fd semaphores (the GPU path). */
static gchar *
describe_vulkan_device (gboolean sim, gboolean * gpu_sync)
{
  GstVulkanInstance *instance = gst_vulkan_instance_new ();
  gchar name[VK_MAX_PHYSICAL_DEVICE_NAME_SIZE] = "";
  gchar *uuid = NULL, *why = NULL, *ret;
  gboolean sem_fd = FALSE;
  gint index;

  *gpu_sync = FALSE;
  if (!gst_vulkan_instance_open (instance, NULL)) {
    gst_object_unref (instance);
    return g_strdup ("(no Vulkan instance: the bridge cannot run)");
  }
  index = vk_util_find_cuda_device (instance, sim, name, &uuid, &sem_fd, &why);
  if (index >= 0) {
    GstVulkanPhysicalDevice *pd = gst_vulkan_physical_device_new (instance,
        index);

    *gpu_sync = sem_fd && pd && vk_util_can_export_semaphores (pd);
    gst_clear_object (&pd);
    ret = g_strdup_printf ("\"%s\" (deviceUUID %s%s), %s opaque-fd "
        "semaphores", name, uuid, sim ?
        ", given to the simulated CUDA device 0" : " = CUDA device 0's",
        *gpu_sync ? "exports" : "cannot export");
  } else {
    ret = g_strdup_printf ("(%s)", why);
  }
  gst_object_unref (instance);
  g_free (uuid);
  g_free (why);
  return ret;
}
#endif

static void
print_bridge_stats (const gchar * label, const GstStructure * s)
{
  const gchar *type = s ? gst_structure_get_string (s, "semaphore-type") : NULL;

  g_print ("  %-15s : buffers=%" G_GINT64_FORMAT " copies=%" G_GINT64_FORMAT
      " gpu-copies=%" G_GINT64_FORMAT " signals=%" G_GINT64_FORMAT " waits=%"
      G_GINT64_FORMAT " cpu-syncs=%" G_GINT64_FORMAT " semaphores=%"
      G_GINT64_FORMAT " (%s)\n", label, (gint64) get_stat (s, "buffers"),
      (gint64) get_stat (s, "copies"), (gint64) get_stat (s, "gpu-copies"),
      (gint64) get_stat (s, "signals"), (gint64) get_stat (s, "waits"),
      (gint64) get_stat (s, "cpu-syncs"), (gint64) get_stat (s, "semaphores"),
      type ? type : "?");
}

/* ---- what the demo creates, and its one cleanup path ---- */

typedef struct
{
  gint frames, width, height;
  gboolean no_semaphore, bridge, vulkan_uuid;
} DemoOptions;

/* Everything a run creates; demo_clear() releases what is set, so every exit
 * path, set-up failures included, goes through it. */
typedef struct
{
  GstCudaContext *context;
  TestSem *tsem;
  GstCudaSemaphore *sem;
  gchar *driver, *vkdev, *caps, *desc, *ref_desc, *error;
  RunResult ref, run;
} Demo;

static void
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
static gboolean
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
 * would break (docs/upstream-issues.md) */
static gboolean
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
static void
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
static gboolean
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
static gboolean
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
static void
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
static gboolean
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

/* ---- --bridge ---- */

typedef struct
{
  gboolean sim, expect_gpu, gpu_path, fallback_path;
  /* CPU fallback: waits beyond one per frame and element */
  guint64 extra_cpu_waits;
} BridgePath;

static gboolean
bridge_setup (Demo * d, const DemoOptions * o, BridgePath * bp)
{
  static const gchar *const names[] = { "cudaupload", "cudadownload",
    "cudatovulkan", "vulkantocuda"
  };

  g_print ("gst-cudasync demo (--bridge): %d frames of %dx%d NV12, CUDA -> "
      "Vulkan -> CUDA\n", o->frames, o->width, o->height);
  if (!find_elements (names, "It comes from gstreamer1.0-plugins-bad "
          "(nvcodec), which registers it only when a CUDA driver loads; use "
          "tools/run-demo.sh.", "The plugin has it only when built with "
          "gstreamer-vulkan-1.0 (meson option vulkan); point GST_PLUGIN_PATH "
          "at <builddir>/gst/plugin (tools/run-demo.sh does)."))
    return FALSE;

  d->driver = describe_driver ();
  g_print ("  CUDA driver     : %s\n", d->driver);
#ifdef HAVE_CUDA_VULKAN
  d->vkdev = describe_vulkan_device (bp->sim, &bp->expect_gpu);
#else
  d->vkdev = g_strdup ("(built without Vulkan)");
#endif
  g_print ("  Vulkan device   : %s\n", d->vkdev);
  if (!demo_new_context (d))
    return FALSE;
  demo_describe_pipelines (d, o, "cudaupload ! cudatovulkan name=c2v ! "
      "vulkantocuda name=v2c ! cudadownload");
  return TRUE;
}

/* which path every frame took, from the elements' counters: the GPU path
 * (a semaphore signal and a GPU wait per frame in each direction, no CPU
 * wait), or the CPU fallback (no semaphore; each element waited on the CPU
 * for every frame, and perhaps more: where a driver query fails, the
 * elements wait on the CPU instead, which still orders the frame) */
static void
bridge_classify (const Demo * d, gint frames, BridgePath * bp)
{
  guint64 n = frames;
  guint64 c2v_sig = get_stat (d->run.c2v_stats, "signals");
  guint64 c2v_cpu = get_stat (d->run.c2v_stats, "cpu-syncs");
  guint64 v2c_sig = get_stat (d->run.v2c_stats, "signals");
  guint64 v2c_wait = get_stat (d->run.v2c_stats, "waits");
  guint64 v2c_cpu = get_stat (d->run.v2c_stats, "cpu-syncs");

  bp->gpu_path = c2v_sig == n && c2v_cpu == 0 && v2c_sig == n &&
      v2c_wait == n && v2c_cpu == 0;
  bp->fallback_path = c2v_sig == 0 && v2c_sig == 0 && c2v_cpu >= n &&
      c2v_cpu != G_MAXUINT64 && v2c_cpu >= n && v2c_cpu != G_MAXUINT64;
  bp->extra_cpu_waits = bp->fallback_path ? c2v_cpu + v2c_cpu - 2 * n : 0;
}

static void
bridge_print (const Demo * d, const BridgePath * bp)
{
  demo_print_run (d, "through Vulkan");
  print_bridge_stats ("cudatovulkan", d->run.c2v_stats);
  print_bridge_stats ("vulkantocuda", d->run.v2c_stats);
  if (bp->gpu_path)
    g_print ("  path            : GPU: CUDA signalled a semaphore per frame "
        "that Vulkan waited for, and back; no CPU wait in either element\n");
  else if (bp->fallback_path)
    g_print ("  path            : CPU fallback: the Vulkan device cannot "
        "export semaphores (%s), so each element waited on the CPU once per "
        "frame; the frames still went CUDA -> Vulkan image -> CUDA through "
        "exported memory, one copy per element\n",
        bp->sim ? "Mesa lavapipe with the simulated CUDA driver" :
        "unexpected on this GPU");
  if (bp->fallback_path && bp->extra_cpu_waits)
    g_print ("                    and %" G_GUINT64_FORMAT " CPU wait%s "
        "more than one per frame: an element also waits on the CPU where it "
        "cannot tell otherwise that GPU work is done (after a failed "
        "driver query, for example)\n", bp->extra_cpu_waits,
        bp->extra_cpu_waits > 1 ? "s" : "");
  else if (!bp->gpu_path && !bp->fallback_path)
    g_print ("  path            : mixed or incomplete (see the counters)\n");
}

/* the checks after the frame checks; TRUE when they pass */
static gboolean
bridge_check (const Demo * d, gint frames, const BridgePath * bp)
{
  gboolean pass = TRUE;

  guint64 v2c_copies = get_stat (d->run.v2c_stats, "copies");

  /* cudatovulkan copies each frame once; vulkantocuda copies it once in
   * Vulkan, and once more in CUDA unless its output wraps the staging
   * buffer (GStreamer 1.24+) */
  if (get_stat (d->run.c2v_stats, "copies") != (guint64) frames ||
      get_stat (d->run.c2v_stats, "gpu-copies") != (guint64) frames ||
      (v2c_copies != 0 && v2c_copies != (guint64) frames) ||
      get_stat (d->run.v2c_stats, "gpu-copies") != frames + v2c_copies) {
    g_print ("FAIL: expected one device-to-device copy per frame in "
        "cudatovulkan, one or two in vulkantocuda\n");
    pass = FALSE;
  }
  /* on a real GPU every frame takes the GPU path, with no CPU wait */
  if (!bp->sim && bp->fallback_path) {
    g_print ("FAIL: the CPU fallback ran on a real GPU (%s)\n", d->vkdev);
    pass = FALSE;
  } else if (!bp->gpu_path && !bp->fallback_path) {
    g_print ("FAIL: neither every frame on the GPU path nor every frame on "
        "the CPU fallback\n");
    pass = FALSE;
  } else if (bp->gpu_path != bp->expect_gpu) {
    g_print ("  note: the Vulkan device %s semaphores, but the %s ran\n",
        bp->expect_gpu ? "exports" : "does not export", bp->gpu_path ?
        "GPU path" : "CPU fallback");
  }
  return pass;
}

static int
run_bridge (const DemoOptions * o)
{
  Demo d = { 0, };
  BridgePath bp = { 0, };
  gboolean pass;
  int status = 1;

  bp.sim = is_simulator ();
  if (bridge_setup (&d, o, &bp) && demo_run_reference (&d)) {
    pass = demo_run_cuda (&d, NULL, "bridge");
    bridge_classify (&d, o->frames, &bp);
    bridge_print (&d, &bp);
    pass = demo_check_frames (&d, o->frames) && pass;
    pass = bridge_check (&d, o->frames, &bp) && pass;
    g_print ("%s (bridge, %s)\n", pass ? "PASS" : "FAIL", bp.gpu_path ?
        "GPU path" : bp.fallback_path ? "CPU fallback" : "?");
    status = pass ? 0 : 1;
  }
  demo_clear (&d);
  return status;
}

/* ---- semaphore pipeline: cudasemsignal ! cudasemwait ---- */

typedef struct
{
  guint64 sig_signals, sig_cpu, sig_last, wait_waits, wait_cpu, sem_value;
  SimCallCount sim_count;
  unsigned sim_signals0, sim_waits0;
} SemCounters;

/* the semaphore, created and exported the way an application does, and
 * imported into the application's context */
static gboolean
sem_setup_semaphore (Demo * d)
{
  GError *err = NULL;
  int fd;

  d->tsem = test_sem_new (TRUE, 0);
  if (!d->tsem) {
    g_print ("FAIL: could not create a timeline semaphore\n");
    return FALSE;
  }
  fd = test_sem_export_fd (d->tsem);
  if (fd < 0) {
    g_print ("FAIL: could not export the semaphore\n");
    return FALSE;
  }
  d->sem = gst_cuda_semaphore_import_fd (d->context,
      GST_CUDA_SEMAPHORE_HANDLE_TYPE_TIMELINE_FD, fd, &err);
  if (!d->sem) {
    g_print ("FAIL: gst_cuda_semaphore_import_fd: %s\n", err->message);
    g_clear_error (&err);
    close (fd);
    return FALSE;
  }
  return TRUE;
}

static gboolean
sem_setup (Demo * d, const DemoOptions * o)
{
  static const gchar *const names[] = { "cudaupload", "cudadownload",
    "cudasemsignal", "cudasemwait"
  };

  g_print ("gst-cudasync demo: %d frames of %dx%d NV12\n", o->frames,
      o->width, o->height);
  if (!find_elements (names, "It comes from gstreamer1.0-plugins-bad "
          "(nvcodec), which registers it only when a CUDA driver loads; use "
          "tools/run-demo.sh (a private GST_REGISTRY per driver).",
          "Point GST_PLUGIN_PATH at <builddir>/gst/plugin (tools/run-demo.sh "
          "does)."))
    return FALSE;
  if (test_sem_backend () == TEST_SEM_BACKEND_NONE) {
    g_print ("FAIL: cannot create an external semaphore: %s\n",
        test_sem_backend_name ());
    return FALSE;
  }
  d->driver = describe_driver ();
  g_print ("  CUDA driver     : %s\n", d->driver);
  g_print ("  semaphores from : %s\n", test_sem_backend_name ());
  if (!demo_new_context (d) || !sem_setup_semaphore (d))
    return FALSE;
  demo_describe_pipelines (d, o, "cudaupload ! cudasemsignal name=sig ! "
      "cudasemwait name=wait ! cudadownload");
  return TRUE;
}

/* the reference, then the CUDA pipeline with the simulator's call counters
 * read before it; -1: the reference failed, else whether the CUDA pipeline
 * ended with EOS */
static int
sem_run (Demo * d, const DemoOptions * o, SemCounters * c)
{
  gboolean ok;

  if (!demo_run_reference (d))
    return -1;
  c->sim_count = sim_call_count_func ();
  if (c->sim_count) {
    c->sim_signals0 = c->sim_count ("cuSignalExternalSemaphoresAsync");
    c->sim_waits0 = c->sim_count ("cuWaitExternalSemaphoresAsync");
  }
  ok = demo_run_cuda (d, o->no_semaphore ? NULL : d->sem, "CUDA");

  c->sig_signals = get_stat (d->run.sig_stats, "signals");
  c->sig_cpu = get_stat (d->run.sig_stats, "cpu-syncs");
  c->sig_last = get_stat (d->run.sig_stats, "last-value");
  c->wait_waits = get_stat (d->run.wait_stats, "waits");
  c->wait_cpu = get_stat (d->run.wait_stats, "cpu-syncs");

  /* the semaphore must have reached the last signalled value */
  if (c->sig_last != G_MAXUINT64 && c->sig_last > 0 &&
      !test_sem_host_wait (d->tsem, c->sig_last,
          10 * G_GUINT64_CONSTANT (1000000000)))
    g_print ("  the semaphore did not reach %" G_GUINT64_FORMAT
        " within 10 s\n", c->sig_last);
  c->sem_value = test_sem_get_value (d->tsem);
  return ok;
}

static void
sem_print (const Demo * d, const SemCounters * c)
{
  demo_print_run (d, "with CUDA");
  g_print ("  cudasemsignal   : signals=%" G_GINT64_FORMAT " cpu-syncs=%"
      G_GINT64_FORMAT " last-value=%" G_GINT64_FORMAT "\n",
      (gint64) c->sig_signals, (gint64) c->sig_cpu, (gint64) c->sig_last);
  g_print ("  cudasemwait     : waits=%" G_GINT64_FORMAT " cpu-syncs=%"
      G_GINT64_FORMAT "\n", (gint64) c->wait_waits, (gint64) c->wait_cpu);
  g_print ("  semaphore value : %" G_GUINT64_FORMAT " (seen by the %s)\n",
      c->sem_value, test_sem_backend () == TEST_SEM_BACKEND_VULKAN ?
      "Vulkan device" : "simulator's exporter side");
  if (c->sim_count)
    g_print ("  driver calls    : cuSignalExternalSemaphoresAsync=%u "
        "cuWaitExternalSemaphoresAsync=%u (counted by the simulator)\n",
        c->sim_count ("cuSignalExternalSemaphoresAsync") - c->sim_signals0,
        c->sim_count ("cuWaitExternalSemaphoresAsync") - c->sim_waits0);
}

/* the checks after the frame checks; TRUE when they pass */
static gboolean
sem_check (const SemCounters * c, gint frames)
{
  gboolean pass = TRUE;

  if (c->sig_signals != (guint64) frames) {
    g_print ("FAIL: cudasemsignal signalled %" G_GINT64_FORMAT " times for %d "
        "frames\n", (gint64) c->sig_signals, frames);
    pass = FALSE;
  }
  if (c->sig_cpu != 0) {
    g_print ("FAIL: cudasemsignal synchronised on the CPU %" G_GINT64_FORMAT
        " times\n", (gint64) c->sig_cpu);
    pass = FALSE;
  }
  if (c->wait_waits != (guint64) frames) {
    g_print ("FAIL: cudasemwait waited %" G_GINT64_FORMAT " times for %d "
        "frames\n", (gint64) c->wait_waits, frames);
    pass = FALSE;
  }
  if (c->sig_last == G_MAXUINT64 || c->sem_value < c->sig_last) {
    g_print ("FAIL: the semaphore is at %" G_GUINT64_FORMAT ", below the last "
        "signalled value\n", c->sem_value);
    pass = FALSE;
  }
  return pass;
}

static int
run_semaphore (const DemoOptions * o)
{
  Demo d = { 0, };
  SemCounters c = { 0, };
  gboolean pass;
  int status = 1, ran = -1;

  if (sem_setup (&d, o) && (ran = sem_run (&d, o, &c)) >= 0) {
    sem_print (&d, &c);
    pass = demo_check_frames (&d, o->frames) && ran;
    pass = sem_check (&c, o->frames) && pass;
    g_print ("%s\n", pass ? "PASS" : "FAIL");
    status = pass ? 0 : 1;
  }
  demo_clear (&d);
  return status;
}

/* ---- options ---- */

/* 0, or the exit status (2) after saying what is wrong */
static int
parse_options (int *argc, char ***argv, DemoOptions * o)
{
  GOptionEntry entries[] = {
    {"frames", 'n', 0, G_OPTION_ARG_INT, &o->frames,
        "Number of frames (default 300)", "N"},
    {"width", 'W', 0, G_OPTION_ARG_INT, &o->width,
        "Frame width (default 1280)", "PIXELS"},
    {"height", 'H', 0, G_OPTION_ARG_INT, &o->height,
        "Frame height (default 720)", "PIXELS"},
    {"no-semaphore", 0, 0, G_OPTION_ARG_NONE, &o->no_semaphore,
        "Do not give cudasemwait the semaphore: cudasemsignal then falls back "
          "to CPU synchronisation, and the demo reports FAIL (shows what the "
          "semaphore saves)", NULL},
    {"bridge", 0, 0, G_OPTION_ARG_NONE, &o->bridge,
        "Run cudaupload ! cudatovulkan ! vulkantocuda ! cudadownload instead "
          "(the CUDA<->Vulkan bridge elements)", NULL},
    {"vulkan-uuid", 0, 0, G_OPTION_ARG_NONE, &o->vulkan_uuid,
          "Print the deviceUUID of the first Vulkan device that shares memory "
          "(VK_KHR_external_memory_fd), the value CUDASIM_DEVICE_UUID gives "
          "the simulated CUDA device for the bridge elements, and exit",
        NULL},
    {NULL}
  };
  GOptionContext *octx = g_option_context_new ("- hand CUDA frames over with "
      "external semaphores, and check them");
  GError *err = NULL;
  gboolean parsed;

  g_option_context_add_main_entries (octx, entries, NULL);
  g_option_context_add_group (octx, gst_init_get_option_group ());
  parsed = g_option_context_parse (octx, argc, argv, &err);
  g_option_context_free (octx);
  if (!parsed) {
    g_printerr ("%s\n", err->message);
    g_error_free (err);
    return 2;
  }
  if (o->frames < 1 || o->width < 16 || o->height < 16 || (o->width & 1) ||
      (o->height & 1)) {
    g_printerr ("--frames must be >= 1; --width/--height even and >= 16\n");
    return 2;
  }
  return 0;
}

/* --vulkan-uuid: 0, or 1 when there is no such device */
static int
print_vulkan_uuid (void)
{
#ifdef HAVE_CUDA_VULKAN
  gchar *uuid = vk_util_interop_uuid ();

  if (uuid) {
    g_print ("%s\n", uuid);
    g_free (uuid);
    return 0;
  }
  g_printerr ("no Vulkan device with VK_KHR_external_memory_fd\n");
#else
  g_printerr ("built without the CUDA<->Vulkan bridge\n");
#endif
  return 1;
}

static int
run_demo (int argc, char **argv)
{
  DemoOptions o = { 300, 1280, 720, FALSE, FALSE, FALSE };
  int status = parse_options (&argc, &argv, &o);

  if (status != 0)
    return status;
  if (o.vulkan_uuid)
    return print_vulkan_uuid ();
  if (o.bridge) {
    if (o.no_semaphore)
      g_print ("note: --no-semaphore does not apply to --bridge\n");
    return run_bridge (&o);
  }
  return run_semaphore (&o);
}

int
main (int argc, char **argv)
{
  int status = run_demo (argc, argv);

  /* The library destroys semaphores whose GPU work was still pending on a
   * worker thread: let it finish before exit() tears the process (and the
   * driver) down. Applications do the same before they exit. */
  gst_cuda_sync_wait_idle ();
  return status;
}

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

typedef CUresult (*DemoDeviceGetNameFunc) (char *name, int len, CUdevice dev);
typedef CUresult (*DemoDriverGetVersionFunc) (int *version);
typedef unsigned (*SimCallCount) (const char *entry_point);

static gchar *
describe_driver (void)
{
  void *lib = dlopen ("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  DemoDeviceGetNameFunc get_name;
  DemoDriverGetVersionFunc get_version;
  char name[256] = "";
  int version = 0;

  if (!lib)
    return g_strdup ("no CUDA driver (libcuda.so.1 not found)");
  if (dlsym (lib, "cudasim_sem_create"))
    return g_strdup ("SIMULATED CUDA driver (no GPU on this machine)");

  /* cuInit was called by testsem and by GStreamer's CUDA loader */
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
  gboolean ok = FALSE, done = FALSE;
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
  res->seconds = (g_get_monotonic_time () - start) / 1e6;

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

typedef CUresult (*DemoInitFunc) (unsigned int flags);
typedef CUresult (*DemoDeviceGetUuidFunc) (CUuuid * uuid, CUdevice dev);

static gboolean
is_simulator (void)
{
  void *lib = dlopen ("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);

  return lib && dlsym (lib, "cudasim_sem_create") != NULL;
}

#ifdef HAVE_CUDA_VULKAN
static gchar *
hex_uuid (const guint8 * u)
{
  GString *s = g_string_new (NULL);
  guint i;

  for (i = 0; i < 16; i++)
    g_string_append_printf (s, "%02x", u[i]);
  return g_string_free (s, FALSE);
}

/* CUDA device 0's UUID (32 hex digits), or NULL */
static gchar *
cuda_uuid (void)
{
  void *lib = dlopen ("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  DemoInitFunc cu_init;
  DemoDeviceGetUuidFunc get_uuid;
  CUuuid uuid;

  if (!lib)
    return NULL;
  cu_init = (DemoInitFunc) dlsym (lib, "cuInit");
  get_uuid = (DemoDeviceGetUuidFunc) dlsym (lib, "cuDeviceGetUuid_v2");
  if (!get_uuid)
    get_uuid = (DemoDeviceGetUuidFunc) dlsym (lib, "cuDeviceGetUuid");
  if (!cu_init || !get_uuid || cu_init (0) != CUDA_SUCCESS ||
      get_uuid (&uuid, 0) != CUDA_SUCCESS)
    return NULL;
  return hex_uuid ((const guint8 *) uuid.bytes);
}

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
  PFN_vkGetPhysicalDeviceProperties2 get_props2;
  PFN_vkGetPhysicalDeviceExternalSemaphoreProperties get_sem_props;
  gchar *want = sim ? NULL : cuda_uuid ();
  gchar *ret = NULL;
  guint i;

  *gpu_sync = FALSE;
  if (!sim && !want) {
    gst_object_unref (instance);
    return g_strdup ("(CUDA device 0's UUID could not be read)");
  }
  if (!gst_vulkan_instance_open (instance, NULL)) {
    gst_object_unref (instance);
    g_free (want);
    return g_strdup ("(no Vulkan instance: the bridge cannot run)");
  }
  get_props2 = gst_vulkan_instance_get_proc_address (instance,
      "vkGetPhysicalDeviceProperties2");
  get_sem_props = gst_vulkan_instance_get_proc_address (instance,
      "vkGetPhysicalDeviceExternalSemaphoreProperties");
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
    if (sim || g_str_equal (uuid, want)) {
      if (get_sem_props && gst_vulkan_physical_device_get_extension_info (pd,
              "VK_KHR_external_semaphore_fd", NULL)) {
        VkPhysicalDeviceExternalSemaphoreInfo info = { 0, };
        VkExternalSemaphoreProperties props = { 0, };

        info.sType =
            VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_EXTERNAL_SEMAPHORE_INFO;
        info.handleType = VK_EXTERNAL_SEMAPHORE_HANDLE_TYPE_OPAQUE_FD_BIT;
        props.sType = VK_STRUCTURE_TYPE_EXTERNAL_SEMAPHORE_PROPERTIES;
        get_sem_props (pd->device, &info, &props);
        *gpu_sync = (props.externalSemaphoreFeatures &
            VK_EXTERNAL_SEMAPHORE_FEATURE_EXPORTABLE_BIT) != 0;
      }
      if (sim && !g_getenv ("CUDASIM_DEVICE_UUID"))
        g_setenv ("CUDASIM_DEVICE_UUID", uuid, TRUE);
      ret = g_strdup_printf ("\"%s\" (deviceUUID %s%s), %s opaque-fd "
          "semaphores", p2.properties.deviceName, uuid, sim ?
          ", given to the simulated CUDA device 0" : " = CUDA device 0's",
          *gpu_sync ? "exports" : "cannot export");
    }
    g_free (uuid);
    gst_object_unref (pd);
  }
  if (!ret)
    ret = g_strdup_printf ("(no Vulkan device with VK_KHR_external_memory_fd"
        "%s%s)", want ? " and CUDA device 0's UUID " : "", want ? want : "");
  gst_object_unref (instance);
  g_free (want);
  return ret;
}
#endif

static void
print_bridge_stats (const gchar * label, const GstStructure * s)
{
  g_print ("  %-15s : buffers=%" G_GINT64_FORMAT " copies=%" G_GINT64_FORMAT
      " signals=%" G_GINT64_FORMAT " waits=%" G_GINT64_FORMAT " cpu-syncs=%"
      G_GINT64_FORMAT " semaphores=%" G_GINT64_FORMAT "\n", label,
      (gint64) get_stat (s, "buffers"), (gint64) get_stat (s, "copies"),
      (gint64) get_stat (s, "signals"), (gint64) get_stat (s, "waits"),
      (gint64) get_stat (s, "cpu-syncs"), (gint64) get_stat (s, "semaphores"));
}

static int
run_bridge (gint frames, gint width, gint height)
{
  RunResult ref = { 0, }, run = { 0, };
  GstCudaContext *context;
  GstElementFactory *f;
  gchar *caps, *desc, *ref_desc, *driver, *vkdev = NULL, *error = NULL;
  gboolean sim = is_simulator (), pass = TRUE, expect_gpu = FALSE;
  gboolean gpu_path, fallback_path;
  guint64 c2v_sig, c2v_cpu, v2c_sig, v2c_wait, v2c_cpu;
  guint n_identical, i;
  const gchar *names[] = { "cudaupload", "cudadownload", "cudatovulkan",
    "vulkantocuda"
  };

  g_print ("gst-cudasync demo (--bridge): %d frames of %dx%d NV12, CUDA -> "
      "Vulkan -> CUDA\n", frames, width, height);
  for (i = 0; i < G_N_ELEMENTS (names); i++) {
    f = gst_element_factory_find (names[i]);
    if (!f) {
      g_print ("FAIL: element %s not found. %s\n", names[i], i < 2 ?
          "It comes from gstreamer1.0-plugins-bad (nvcodec), which "
          "registers it only when a CUDA driver loads; use tools/run-demo.sh."
          : "The plugin has it only when built with gstreamer-vulkan-1.0 "
          "(meson option vulkan); point GST_PLUGIN_PATH at "
          "<builddir>/gst/plugin (tools/run-demo.sh does).");
      return 1;
    }
    gst_object_unref (f);
  }

  driver = describe_driver ();
  g_print ("  CUDA driver     : %s\n", driver);
#ifdef HAVE_CUDA_VULKAN
  vkdev = describe_vulkan_device (sim, &expect_gpu);
#else
  vkdev = g_strdup ("(built without Vulkan)");
#endif
  g_print ("  Vulkan device   : %s\n", vkdev);

  if (!gst_cuda_load_library ()) {
    g_print ("FAIL: libgstcuda could not load the CUDA driver\n");
    return 1;
  }
  context = gst_cuda_context_new (0);
  if (!context) {
    g_print ("FAIL: gst_cuda_context_new(0) failed\n");
    return 1;
  }

  caps = g_strdup_printf ("video/x-raw,format=NV12,width=%d,height=%d,"
      "framerate=30/1", width, height);
  desc = g_strdup_printf ("videotestsrc num-buffers=%d pattern=ball ! %s ! "
      "cudaupload ! cudatovulkan name=c2v ! vulkantocuda name=v2c ! "
      "cudadownload ! video/x-raw,format=NV12 ! appsink name=sink "
      "sync=false", frames, caps);
  ref_desc = g_strdup_printf ("videotestsrc num-buffers=%d pattern=ball ! "
      "%s ! appsink name=sink sync=false", frames, caps);

  if (!run_pipeline (ref_desc, NULL, NULL, &ref, &error)) {
    g_print ("FAIL: reference pipeline: %s\n", error);
    return 1;
  }
  g_print ("  pipeline        : %s\n", desc);
  if (!run_pipeline (desc, context, NULL, &run, &error)) {
    g_print ("FAIL: bridge pipeline: %s\n", error);
    pass = FALSE;
  }

  c2v_sig = get_stat (run.c2v_stats, "signals");
  c2v_cpu = get_stat (run.c2v_stats, "cpu-syncs");
  v2c_sig = get_stat (run.v2c_stats, "signals");
  v2c_wait = get_stat (run.v2c_stats, "waits");
  v2c_cpu = get_stat (run.v2c_stats, "cpu-syncs");
  gpu_path = c2v_sig == (guint64) frames && c2v_cpu == 0 &&
      v2c_sig == (guint64) frames && v2c_wait == (guint64) frames &&
      v2c_cpu == 0;
  fallback_path = c2v_sig == 0 && c2v_cpu == (guint64) frames &&
      v2c_sig == 0 && v2c_cpu == (guint64) frames;

  g_print ("  CUDA context    : the application's, given on need-context to: "
      "%s\n", run.context_given_to && *run.context_given_to ?
      run.context_given_to : "(none asked)");
  g_print ("  frames          : %u (reference %u)\n",
      run.sums ? run.sums->len : 0, ref.sums->len);
  g_print ("  time            : %.2f s through Vulkan, %.2f s reference\n",
      run.seconds, ref.seconds);
  print_bridge_stats ("cudatovulkan", run.c2v_stats);
  print_bridge_stats ("vulkantocuda", run.v2c_stats);
  if (gpu_path)
    g_print ("  path            : GPU: CUDA signalled a semaphore per frame "
        "that Vulkan waited for, and back; no CPU wait in either element\n");
  else if (fallback_path)
    g_print ("  path            : CPU fallback: the Vulkan device cannot "
        "export semaphores (%s), so each element waited on the CPU once per "
        "frame; the frames still went CUDA -> Vulkan image -> CUDA through "
        "exported memory, one copy per element\n",
        sim ? "Mesa lavapipe with the simulated CUDA driver" : "unexpected "
        "on this GPU");
  else
    g_print ("  path            : mixed or incomplete (see the counters)\n");

  n_identical = compare_sums (run.sums, ref.sums, frames);

  if (ref.sums->len != (guint) frames) {
    g_print ("FAIL: the reference pipeline gave %u frames\n", ref.sums->len);
    pass = FALSE;
  }
  if (n_identical != (guint) frames) {
    g_print ("FAIL: %u of %d frames differ or are missing\n",
        frames - n_identical, frames);
    pass = FALSE;
  }
  if (get_stat (run.c2v_stats, "copies") != (guint64) frames ||
      get_stat (run.v2c_stats, "copies") != (guint64) frames) {
    g_print ("FAIL: expected one device-to-device copy per frame in each "
        "element\n");
    pass = FALSE;
  }
  if (!gpu_path && !fallback_path) {
    g_print ("FAIL: neither every frame on the GPU path nor every frame on "
        "the CPU fallback\n");
    pass = FALSE;
  } else if (!sim && !gpu_path) {
    g_print ("FAIL: the CPU fallback ran on a real GPU (%s)\n", vkdev);
    pass = FALSE;
  } else if (gpu_path != expect_gpu) {
    g_print ("  note: the Vulkan device %s semaphores, but the %s ran\n",
        expect_gpu ? "exports" : "does not export", gpu_path ? "GPU path" :
        "CPU fallback");
  }
  g_print ("%s (bridge, %s)\n", pass ? "PASS" : "FAIL", gpu_path ?
      "GPU path" : fallback_path ? "CPU fallback" : "?");

  clear_result (&ref);
  clear_result (&run);
  gst_object_unref (context);
  g_free (caps);
  g_free (desc);
  g_free (ref_desc);
  g_free (driver);
  g_free (vkdev);
  g_free (error);
  return pass ? 0 : 1;
}

static int
run_demo (int argc, char **argv)
{
  gint frames = 300, width = 1280, height = 720;
  gboolean no_semaphore = FALSE, bridge = FALSE;
  GOptionEntry entries[] = {
    {"frames", 'n', 0, G_OPTION_ARG_INT, &frames,
        "Number of frames (default 300)", "N"},
    {"width", 'W', 0, G_OPTION_ARG_INT, &width, "Frame width (default 1280)",
        "PIXELS"},
    {"height", 'H', 0, G_OPTION_ARG_INT, &height,
        "Frame height (default 720)", "PIXELS"},
    {"no-semaphore", 0, 0, G_OPTION_ARG_NONE, &no_semaphore,
        "Do not give cudasemwait the semaphore: cudasemsignal then falls back "
          "to CPU synchronisation, and the demo reports FAIL (shows what the "
          "semaphore saves)", NULL},
    {"bridge", 0, 0, G_OPTION_ARG_NONE, &bridge,
        "Run cudaupload ! cudatovulkan ! vulkantocuda ! cudadownload instead "
          "(the CUDA<->Vulkan bridge elements)", NULL},
    {NULL}
  };
  GOptionContext *octx;
  GError *err = NULL;
  GstCudaContext *context = NULL;
  GstCudaSemaphore *sem = NULL;
  TestSem *tsem = NULL;
  RunResult ref = { 0, }, cuda = { 0, };
  gchar *caps, *cuda_desc, *ref_desc, *driver, *error = NULL;
  GstElementFactory *f;
  guint64 sig_signals, sig_cpu, sig_last, wait_waits, wait_cpu, sem_value;
  guint n_identical = 0, i;
  SimCallCount sim_count;
  unsigned sim_signals0 = 0, sim_waits0 = 0;
  gboolean pass = TRUE;
  int fd;

  octx = g_option_context_new ("- hand CUDA frames over with external "
      "semaphores, and check them");
  g_option_context_add_main_entries (octx, entries, NULL);
  g_option_context_add_group (octx, gst_init_get_option_group ());
  if (!g_option_context_parse (octx, &argc, &argv, &err)) {
    g_printerr ("%s\n", err->message);
    return 2;
  }
  g_option_context_free (octx);
  if (frames < 1 || width < 16 || height < 16 || (width & 1) || (height & 1)) {
    g_printerr ("--frames must be >= 1; --width/--height even and >= 16\n");
    return 2;
  }

  if (bridge) {
    if (no_semaphore)
      g_print ("note: --no-semaphore does not apply to --bridge\n");
    return run_bridge (frames, width, height);
  }

  g_print ("gst-cudasync demo: %d frames of %dx%d NV12\n", frames, width,
      height);

  /* elements */
  for (i = 0; i < 4; i++) {
    const gchar *names[] = { "cudaupload", "cudadownload", "cudasemsignal",
      "cudasemwait"
    };
    f = gst_element_factory_find (names[i]);
    if (!f) {
      g_print ("FAIL: element %s not found. %s\n", names[i],
          i < 2 ? "It comes from gstreamer1.0-plugins-bad (nvcodec), which "
          "registers it only when a CUDA driver loads; use tools/run-demo.sh "
          "(a private GST_REGISTRY per driver)." :
          "Point GST_PLUGIN_PATH at <builddir>/gst/plugin (tools/run-demo.sh "
          "does).");
      return 1;
    }
    gst_object_unref (f);
  }

  /* the semaphore, created and exported the way an application does */
  if (test_sem_backend () == TEST_SEM_BACKEND_NONE) {
    g_print ("FAIL: cannot create an external semaphore: %s\n",
        test_sem_backend_name ());
    return 1;
  }
  driver = describe_driver ();
  g_print ("  CUDA driver     : %s\n", driver);
  g_print ("  semaphores from : %s\n", test_sem_backend_name ());

  /* libgstcuda's own loader (the nvcodec plugin calls it when it loads;
   * this application creates its context before any element does) */
  if (!gst_cuda_load_library ()) {
    g_print ("FAIL: libgstcuda could not load the CUDA driver\n");
    return 1;
  }
  context = gst_cuda_context_new (0);
  if (!context) {
    g_print ("FAIL: gst_cuda_context_new(0) failed\n");
    return 1;
  }
  tsem = test_sem_new (TRUE, 0);
  if (!tsem) {
    g_print ("FAIL: could not create a timeline semaphore\n");
    return 1;
  }
  fd = test_sem_export_fd (tsem);
  if (fd < 0) {
    g_print ("FAIL: could not export the semaphore\n");
    return 1;
  }
  sem = gst_cuda_semaphore_import_fd (context,
      GST_CUDA_SEMAPHORE_HANDLE_TYPE_TIMELINE_FD, fd, &err);
  if (!sem) {
    g_print ("FAIL: gst_cuda_semaphore_import_fd: %s\n", err->message);
    close (fd);
    return 1;
  }

  caps = g_strdup_printf ("video/x-raw,format=NV12,width=%d,height=%d,"
      "framerate=30/1", width, height);
  cuda_desc = g_strdup_printf ("videotestsrc num-buffers=%d pattern=ball ! "
      "%s ! cudaupload ! cudasemsignal name=sig ! cudasemwait name=wait ! "
      "cudadownload ! video/x-raw,format=NV12 ! appsink name=sink sync=false",
      frames, caps);
  ref_desc = g_strdup_printf ("videotestsrc num-buffers=%d pattern=ball ! "
      "%s ! appsink name=sink sync=false", frames, caps);

  /* reference, without CUDA */
  if (!run_pipeline (ref_desc, NULL, NULL, &ref, &error)) {
    g_print ("FAIL: reference pipeline: %s\n", error);
    return 1;
  }

  sim_count = sim_call_count_func ();
  if (sim_count) {
    sim_signals0 = sim_count ("cuSignalExternalSemaphoresAsync");
    sim_waits0 = sim_count ("cuWaitExternalSemaphoresAsync");
  }

  g_print ("  pipeline        : %s\n", cuda_desc);
  if (!run_pipeline (cuda_desc, context, no_semaphore ? NULL : sem, &cuda,
          &error)) {
    g_print ("FAIL: CUDA pipeline: %s\n", error);
    pass = FALSE;
  }

  sig_signals = get_stat (cuda.sig_stats, "signals");
  sig_cpu = get_stat (cuda.sig_stats, "cpu-syncs");
  sig_last = get_stat (cuda.sig_stats, "last-value");
  wait_waits = get_stat (cuda.wait_stats, "waits");
  wait_cpu = get_stat (cuda.wait_stats, "cpu-syncs");

  /* the semaphore must have reached the last signalled value */
  if (sig_last != G_MAXUINT64 && sig_last > 0 &&
      !test_sem_host_wait (tsem, sig_last, 10 * G_GUINT64_CONSTANT (1000000000)))
    g_print ("  the semaphore did not reach %" G_GUINT64_FORMAT
        " within 10 s\n", sig_last);
  sem_value = test_sem_get_value (tsem);

  g_print ("  CUDA context    : the application's, given on need-context to: "
      "%s\n", cuda.context_given_to && *cuda.context_given_to ?
      cuda.context_given_to : "(none asked)");
  g_print ("  frames          : %u (reference %u)\n",
      cuda.sums ? cuda.sums->len : 0, ref.sums->len);
  g_print ("  time            : %.2f s with CUDA, %.2f s reference\n",
      cuda.seconds, ref.seconds);
  g_print ("  cudasemsignal   : signals=%" G_GINT64_FORMAT " cpu-syncs=%"
      G_GINT64_FORMAT " last-value=%" G_GINT64_FORMAT "\n",
      (gint64) sig_signals, (gint64) sig_cpu, (gint64) sig_last);
  g_print ("  cudasemwait     : waits=%" G_GINT64_FORMAT " cpu-syncs=%"
      G_GINT64_FORMAT "\n", (gint64) wait_waits, (gint64) wait_cpu);
  g_print ("  semaphore value : %" G_GUINT64_FORMAT " (seen by the %s)\n",
      sem_value, test_sem_backend () == TEST_SEM_BACKEND_VULKAN ?
      "Vulkan device" : "simulator's exporter side");
  if (sim_count)
    g_print ("  driver calls    : cuSignalExternalSemaphoresAsync=%u "
        "cuWaitExternalSemaphoresAsync=%u (counted by the simulator)\n",
        sim_count ("cuSignalExternalSemaphoresAsync") - sim_signals0,
        sim_count ("cuWaitExternalSemaphoresAsync") - sim_waits0);

  n_identical = compare_sums (cuda.sums, ref.sums, frames);

  if (ref.sums->len != (guint) frames) {
    g_print ("FAIL: the reference pipeline gave %u frames\n", ref.sums->len);
    pass = FALSE;
  }
  if (n_identical != (guint) frames) {
    g_print ("FAIL: %u of %d frames differ or are missing\n",
        frames - n_identical, frames);
    pass = FALSE;
  }
  if (sig_signals != (guint64) frames) {
    g_print ("FAIL: cudasemsignal signalled %" G_GINT64_FORMAT " times for %d "
        "frames\n", (gint64) sig_signals, frames);
    pass = FALSE;
  }
  if (sig_cpu != 0) {
    g_print ("FAIL: cudasemsignal synchronised on the CPU %" G_GINT64_FORMAT
        " times\n", (gint64) sig_cpu);
    pass = FALSE;
  }
  if (wait_waits != (guint64) frames) {
    g_print ("FAIL: cudasemwait waited %" G_GINT64_FORMAT " times for %d "
        "frames\n", (gint64) wait_waits, frames);
    pass = FALSE;
  }
  if (sig_last == G_MAXUINT64 || sem_value < sig_last) {
    g_print ("FAIL: the semaphore is at %" G_GUINT64_FORMAT ", below the last "
        "signalled value\n", sem_value);
    pass = FALSE;
  }

  g_print ("%s\n", pass ? "PASS" : "FAIL");

  clear_result (&ref);
  clear_result (&cuda);
  gst_object_unref (sem);
  test_sem_free (tsem);
  gst_object_unref (context);
  g_free (caps);
  g_free (cuda_desc);
  g_free (ref_desc);
  g_free (driver);
  g_free (error);
  return pass ? 0 : 1;
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

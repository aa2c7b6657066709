/* gst-cudasync
 * Copyright (C) 2026 gst-cudasync developers
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The bench's results: the modes' names, the sections' set-up, and the JSON
 * document (docs/benchmarks.md describes it; bench/smoke.py checks it).
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>
#include <unistd.h>

#include "bench.h"
#include "bench-cuda.h"
#include "bench-kernel.h"

const gchar *const mode_key[N_ALL_MODES] = { "a", "c", "a1", "a2",
  "a3_in_flight_1", "a3_in_flight_8", "a4_poll", "a", "b", "c", "a_binary", "a", "b", "d", "d_stall", "d_split", "a", "c",
  "a", "a_memory_stream", "a_in_place"
};

const gchar *const mode_desc[N_ALL_MODES] = {
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
  "a with cudatovulkan timeline=false: one binary semaphore per pooled "
      "frame instead of the element's one timeline semaphore (the same as "
      "a on GStreamer 1.22, which has no timeline semaphores)",
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
  "d_stall with the semaphore wait in a submission of its own, made by "
      "the producer thread right after the CUDA work (the acquire barrier, "
      "as cudatovulkan's take-over does), the copy submitted later by the "
      "consumer: the bridge's submission shape, without GStreamer",
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
  "as a, but the producer writes on a GstCudaStream that its pool sets on "
      "the memory (GStreamer 1.24+, as upstream CUDA producers do): "
      "cudatovulkan then works on that stream, one CUDA stream per pipeline "
      "instead of two",
  "as a, but from its second frame on the producer writes into the pool "
      "that cudatovulkan proposes in the ALLOCATION query: on GStreamer "
      "1.24+ and one-plane formats its buffers are the element's output "
      "frames (Vulkan memory imported into CUDA), so the element copies "
      "nothing (stats in-place); otherwise an ordinary CUDA pool and one "
      "copy a frame, as a",
};

const gint s2_modes[2] = { MODE_A, MODE_C };
const gint s2d_modes[7] = { MODE_A, MODE_C, MODE_A1, MODE_A2,
  MODE_A_IF1, MODE_A_IF8, MODE_A4
};
const gint s3_modes[8] = { MODE_CV_A, MODE_CV_AB, MODE_CV_AI, MODE_CV_B,
  MODE_CV_C,
  MODE_CV_D, MODE_CV_D2, MODE_CV_D3
};
const gint s5_modes[2] = { MODE_S5_A, MODE_S5_C };
const gint s4_modes[2] = { MODE_VC_A, MODE_VC_B };

static const struct
{
  const gchar *key;
  const gchar *label;
} s1_rows[S1_N_ROWS] = {
  {"bare", "bare cuSignalExternalSemaphoresAsync"},
  {"library", "gst_cuda_semaphore_signal()"},
  {"identity", "gst_pad_push through identity"},
  {"cudasemsignal", "gst_pad_push through cudasemsignal"},
};

const gchar *
s1_row_label (guint row)
{
  return s1_rows[row].label;
}

void
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

void
set_str (Bench * b, gchar ** field, const gchar * value)
{
  g_mutex_lock (&b->lock);
  g_free (*field);
  *field = g_strdup (value);
  g_mutex_unlock (&b->lock);
}

void
bench_abort (Bench * b, const gchar * why)
{
  gboolean first;

  g_mutex_lock (&b->lock);
  first = b->r.aborted == NULL;
  if (first)
    b->r.aborted = g_strdup (why);
  b->r.complete = FALSE;
  g_mutex_unlock (&b->lock);
  g_atomic_int_set (&b->stopped, 1);
  if (first) {
    g_print ("  ABORTED: %s\n", why);
    write_json (b);
  }
}

gboolean
bench_stopped (Bench * b)
{
  return g_atomic_int_get (&b->stopped) != 0;
}

gchar *
bench_abort_reason (Bench * b)
{
  gchar *why;

  g_mutex_lock (&b->lock);
  why = g_strdup_printf ("aborted: %s", b->r.aborted ? b->r.aborted : "?");
  g_mutex_unlock (&b->lock);
  return why;
}

gchar *
bench_skip_reason (Bench * b)
{
  gchar *why;

  g_mutex_lock (&b->lock);
  why = g_strdup_printf ("not run: the run was aborted (%s)", b->r.aborted ?
      b->r.aborted : "?");
  g_mutex_unlock (&b->lock);
  return why;
}

gboolean
bench_check_device_lost (Bench * b, const gchar * where, const gchar * error)
{
  gchar *why;

  /* the raw program names the result; GStreamer's vulkan library writes
   * "Device lost (0xfffffffc, -4): <call>" */
  if (!error || (!strstr (error, "VK_ERROR_DEVICE_LOST") &&
          !strstr (error, "Device lost (")))
    return FALSE;
  why = g_strdup_printf ("%s: %s", where, error);
  bench_abort (b, why);
  g_free (why);
  return TRUE;
}

void
sec_set (Bench * b, S2Result * S, const gchar * status, const gchar * reason)
{
  g_mutex_lock (&b->lock);
  g_free (S->status);
  S->status = g_strdup (status);
  g_free (S->reason);
  S->reason = g_strdup (reason);
  g_mutex_unlock (&b->lock);
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

void
results_init (Bench * b)
{
  Results *R = &b->r;
  GDateTime *now = g_date_time_new_now_utc ();
  guint i;

  R->started = g_date_time_format_iso8601 (now);
  g_date_time_unref (now);
  R->cc_major = R->cc_minor = R->sm_count = 0;
  R->ctx_flags = -1;
  R->s1.status = g_strdup ("not run");
  section_init (&R->s2, NULL, "Scenario 2: GPU-produced frames handed to "
      "cudasemsignal ! cudasemwait ! fakesink", NULL, s2_modes,
      G_N_ELEMENTS (s2_modes), MODE_C);
  section_init (&R->s2d, "scenario2_diagnosis", "Scenario 2d: diagnosis of "
      "mode a's throughput (1920x1080 RGBA; a and c again, and variants of a)",
      "as scenario 2 (GPU time from the producer's kernel to the end event); "
      "a1 records the end event on its own non-blocking stream",
      s2d_modes, G_N_ELEMENTS (s2d_modes), MODE_C);
  section_init (&R->s3, "scenario3_cuda_to_vulkan", "Scenario 3: CUDA -> "
      "Vulkan: GPU-produced CUDA frames consumed by vulkandownload",
      "wall clock, from before the producer's kernel launch to the frame "
      "leaving vulkandownload (Vulkan consumer done, frame in system memory)",
      s3_modes, G_N_ELEMENTS (s3_modes), MODE_CV_B);
  section_init (&R->s4, "scenario4_vulkan_to_cuda", "Scenario 4: Vulkan -> "
      "CUDA: Vulkan frames (vulkanupload of one system-memory frame) handed "
      "to a CUDA consumer", "wall clock, from the push of the system-memory "
      "frame to the recycler seeing the end event the consumer recorded on "
      "the legacy default stream complete", s4_modes, G_N_ELEMENTS (s4_modes),
      MODE_VC_B);
  section_init (&R->s5, "scenario5_pipelined_stages", "Scenario 5: "
      "pipelined stages: GPU-produced CUDA frames -> cudatovulkan ! queue ! "
      "vulkancolorconvert ! capsfilter(BGRA) ! queue ! vulkantocuda ! queue ! fakesink (CUDA "
      "-> Vulkan -> CUDA), 1920x1080 RGBA",
      "wall clock, from before the producer's kernel launch to the recycler "
      "seeing the end event the CUDA consumer recorded on the legacy default "
      "stream (after vulkantocuda's copy) complete", s5_modes,
      G_N_ELEMENTS (s5_modes), MODE_S5_C);
  R->s6.status = g_strdup ("not run");
  R->s6.configs = g_ptr_array_new ();
  for (i = 0; i < S1_N_ROWS; i++) {
    R->s1.cpu_ns[i] = series_new ();
    R->s1.wall_ns[i] = series_new ();
  }
}

/* ------------------------------------------------------------------ */
/* JSON document                                                        */
/* ------------------------------------------------------------------ */

static gboolean
jb_structure_field (GQuark field, const GValue * value, gpointer user_data)
{
  JsonBuilder *jb = user_data;
  const gchar *name = g_quark_to_string (field);

  if (G_VALUE_HOLDS_UINT64 (value))
    jb_int (jb, name, (gint64) g_value_get_uint64 (value));
  else if (G_VALUE_HOLDS_INT (value))
    jb_int (jb, name, g_value_get_int (value));
  else if (G_VALUE_HOLDS_UINT (value))
    jb_int (jb, name, g_value_get_uint (value));
  else {
    gchar *str = gst_value_serialize (value);
    jb_str (jb, name, str);
    g_free (str);
  }
  return TRUE;
}

static void
jb_structure (JsonBuilder * jb, const gchar * key, const GstStructure * st)
{
  if (!st) {
    jb_str (jb, key, NULL);
    return;
  }
  jb_obj (jb, key);
  gst_structure_foreach (st, jb_structure_field, jb);
  jb_obj_end (jb);
}

/* GPU copy passes / buffers of a bridge element's stats (-1 without
 * buffers) */
static gdouble
bridge_copies_per_frame (const GstStructure * st)
{
  guint64 copies = 0, buffers = 0;

  if (!gst_structure_get_uint64 (st, "gpu-copies", &copies) ||
      !gst_structure_get_uint64 (st, "buffers", &buffers) || buffers == 0)
    return -1;
  return (gdouble) copies / buffers;
}

static void
json_mode (Bench * b, JsonBuilder * jb, const gchar * key, ModeResult * m)
{
  guint i;

  jb_obj (jb, key);
  jb_str (jb, "status", m->status);
  jb_str (jb, "error", m->error);
  jb_int (jb, "frames_per_repetition", m->frames);
  jb_int (jb, "warmup_frames", m->warmup);
  jb_series (jb, "fps", m->fps);
  jb_series (jb, "process_cpu_us_per_frame", m->proc_cpu_us);
  jb_series (jb, "producer_thread_cpu_us_per_frame", m->prod_cpu_us);
  jb_series (jb, "latency_p50_us", m->lat_p50_us);
  jb_series (jb, "latency_p99_us", m->lat_p99_us);
  jb_series (jb, "frame_write_gpu_us_median", m->kernel_us);
  if (b->is_sim)
    jb_series (jb, "sim_producer_thread_cpu_syncs_per_frame", m->sim_syncs);
  for (i = 0; i < 2; i++) {
    if (m->stats_name[i]) {
      gchar *k = g_strdup_printf ("%s_stats", m->stats_name[i]);
      jb_structure (jb, k, i == 0 ? m->sig_stats : m->wait_stats);
      g_free (k);
    }
  }
  if (m->in_flight)
    jb_int (jb, "frames_in_flight", m->in_flight);
  if (m->path)
    jb_str (jb, "bridge_path", m->path);
  /* bridge elements (their stats count copies) */
  if (m->stats_name[0] && m->sig_stats &&
      bridge_copies_per_frame (m->sig_stats) >= 0)
    jb_num (jb, "copies_per_frame", bridge_copies_per_frame (m->sig_stats));
  jb_bool (jb, "element_stats_as_expected", m->stats_ok);
  jb_str (jb, "element_stats_note", m->stats_note);
  jb_obj_end (jb);
}

/* the configuration's size, format, GPU work and state */
static void
json_config_head (JsonBuilder * jb, S2Config * c)
{
  jb_int (jb, "width", c->width);
  jb_int (jb, "height", c->height);
  jb_str (jb, "format", c->format);
  jb_num (jb, "gpu_work_ms", c->gpu_us / 1000.0);
  jb_str (jb, "status", c->status);
  jb_str (jb, "reason", c->reason);
}

/* {"fps": a/b, ...} of the medians */
static void
json_ratios (JsonBuilder * jb, const gchar * key, ModeResult * m,
    ModeResult * ref, gboolean latency)
{
  jb_obj (jb, key);
  jb_num (jb, "fps", ratio (series_median (m->fps),
          series_median (ref->fps)));
  jb_num (jb, "process_cpu_per_frame", ratio (series_median
          (m->proc_cpu_us), series_median (ref->proc_cpu_us)));
  jb_num (jb, "producer_thread_cpu_per_frame", ratio (series_median
          (m->prod_cpu_us), series_median (ref->prod_cpu_us)));
  if (latency)
    jb_num (jb, "latency_p50", ratio (series_median (m->lat_p50_us),
            series_median (ref->lat_p50_us)));
}

/* scenario 3: a against the raw-API limit (the target: a >= 0.9 d) */
static void
json_s3_raw_ratios (JsonBuilder * jb, S2Config * c)
{
  ModeResult *a = &c->m[MODE_CV_A], *d = &c->m[MODE_CV_D];

  json_ratios (jb, "ratios_a_over_d_median", a, d, FALSE);
  jb_num (jb, "target_fps", 0.9);
  jb_str (jb, "d_path", d->path);
  jb_obj_end (jb);
  d = &c->m[MODE_CV_D2];
  jb_obj (jb, "ratios_a_over_d_stall_median");
  jb_num (jb, "fps", ratio (series_median (a->fps), series_median (d->fps)));
  jb_num (jb, "process_cpu_per_frame", ratio (series_median
          (a->proc_cpu_us), series_median (d->proc_cpu_us)));
  jb_obj_end (jb);
}

/* scenario 2 diagnosis, 3, 4, 5 */
static void
json_section (Bench * b, JsonBuilder * jb, S2Result * S)
{
  guint i, j;

  jb_obj (jb, S->key);
  jb_str (jb, "status", S->status);
  jb_str (jb, "reason", S->reason);
  jb_str (jb, "what", S->title);
  jb_int (jb, "repetitions", S->repetitions);
  jb_str (jb, "frame_writer", S->frame_writer);
  jb_obj (jb, "modes");
  for (j = 0; j < S->n_modes; j++)
    jb_str (jb, mode_key[S->modes[j]], mode_desc[S->modes[j]]);
  jb_obj_end (jb);
  jb_str (jb, "latency", S->latency);
  jb_arr (jb, "configs");
  for (i = 0; S->configs && i < S->configs->len; i++) {
    S2Config *c = g_ptr_array_index (S->configs, i);
    gchar *rk;

    jb_obj (jb, NULL);
    json_config_head (jb, c);
    jb_obj (jb, "modes");
    for (j = 0; j < c->n_modes; j++)
      json_mode (b, jb, mode_key[c->modes[j]], &c->m[c->modes[j]]);
    jb_obj_end (jb);
    rk = g_strdup_printf ("ratios_over_%s_median", mode_key[c->ref_mode]);
    jb_obj (jb, rk);
    g_free (rk);
    for (j = 0; j < c->n_modes; j++) {
      if (c->modes[j] == c->ref_mode)
        continue;
      json_ratios (jb, mode_key[c->modes[j]], &c->m[c->modes[j]],
          &c->m[c->ref_mode], TRUE);
      jb_obj_end (jb);
    }
    jb_obj_end (jb);
    if (c->modes == s3_modes)
      json_s3_raw_ratios (jb, c);
    jb_obj_end (jb);
  }
  jb_arr_end (jb);
  jb_obj_end (jb);
}

static void
json_environment (Bench * b, JsonBuilder * jb)
{
  Results *R = &b->r;
  gchar *v;

  jb_obj (jb, "environment");
  jb_str (jb, "driver", R->driver);
  jb_bool (jb, "simulated", b->is_sim);
  jb_str (jb, "device", R->device);
  if (R->cc_major > 0) {
    gchar *cc = g_strdup_printf ("%d.%d", R->cc_major, R->cc_minor);
    jb_str (jb, "compute_capability", cc);
    g_free (cc);
  } else {
    jb_str (jb, "compute_capability", NULL);
  }
  jb_int (jb, "multiprocessors", R->sm_count);
  jb_int (jb, "cuda_driver_api_version", R->driver_version);
  jb_str (jb, "cuda_context_scheduling", sched_name (R->ctx_flags));
  jb_str (jb, "semaphores", R->semaphores);
  jb_str (jb, "vulkan_device", R->vulkan);
  v = gst_version_string ();
  jb_str (jb, "gstreamer", v);
  g_free (v);
  /* the minor version the bench was built against (which modes exist) */
  jb_int (jb, "gstreamer_build_minor", GST_VERSION_MINOR);
  jb_int (jb, "online_cpus", sysconf (_SC_NPROCESSORS_ONLN));
  jb_str (jb, "kernel_build", bench_kernel_build_info);
  jb_obj_end (jb);
}

static void
json_s1 (JsonBuilder * jb, S1Result * s1)
{
  GArray **c = s1->cpu_ns;
  guint i;

  jb_obj (jb, "scenario1_signal_overhead");
  jb_str (jb, "status", s1->status);
  jb_str (jb, "reason", s1->reason);
  jb_str (jb, "measures", "CPU time per call on the calling thread "
      "(CLOCK_THREAD_CPUTIME_ID), in batches; the GPU drains between "
      "batches outside the timed part");
  jb_int (jb, "calls_per_repetition", s1->calls);
  jb_int (jb, "batch", s1->batch);
  jb_obj (jb, "rows");
  for (i = 0; i < S1_N_ROWS; i++) {
    jb_obj (jb, s1_rows[i].key);
    jb_str (jb, "what", s1_rows[i].label);
    jb_series (jb, "cpu_ns_per_call", s1->cpu_ns[i]);
    jb_series (jb, "wall_ns_per_call", s1->wall_ns[i]);
    jb_obj_end (jb);
  }
  jb_obj_end (jb);
  jb_obj (jb, "ratios");
  jb_num (jb, "cudasemsignal_over_bare_median",
      ratio (series_median (c[S1_CUDASEMSIGNAL]), series_median (c[S1_BARE])));
  jb_num (jb, "cudasemsignal_over_bare_min",
      ratio (series_min (c[S1_CUDASEMSIGNAL]), series_min (c[S1_BARE])));
  jb_num (jb, "cudasemsignal_minus_identity_over_bare_median",
      ratio (series_median (c[S1_CUDASEMSIGNAL]) -
          series_median (c[S1_IDENTITY]), series_median (c[S1_BARE])));
  jb_num (jb, "cudasemsignal_minus_identity_over_bare_min",
      ratio (series_min (c[S1_CUDASEMSIGNAL]) - series_min (c[S1_IDENTITY]),
          series_min (c[S1_BARE])));
  jb_num (jb, "library_over_bare_median",
      ratio (series_median (c[S1_LIBRARY]), series_median (c[S1_BARE])));
  jb_num (jb, "target_cudasemsignal_minus_identity_over_bare", 2.0);
  jb_obj_end (jb);
  jb_structure (jb, "cudasemsignal_stats", s1->sig_stats);
  jb_obj_end (jb);
}

static void
json_s2 (Bench * b, JsonBuilder * jb, S2Result * s2)
{
  guint i, j;

  jb_obj (jb, "scenario2_gpu_frames");
  jb_str (jb, "status", s2->status);
  jb_str (jb, "reason", s2->reason);
  jb_str (jb, "frame_writer", s2->frame_writer);
  jb_str (jb, "kernel", s2->kernel_info);
  jb_str (jb, "pipeline", "producer thread (pad push) ! cudasemsignal ! "
      "cudasemwait ! fakesink sync=false");
  jb_obj (jb, "modes");
  for (j = 0; j < N_MODES; j++)
    jb_str (jb, mode_key[j], mode_desc[j]);
  jb_obj_end (jb);
  jb_str (jb, "latency", "GPU time from an event recorded on the producer's "
      "stream just before its kernel to an event recorded on the legacy "
      "default stream after cudasemwait");
  jb_arr (jb, "configs");
  for (i = 0; s2->configs && i < s2->configs->len; i++) {
    S2Config *c = g_ptr_array_index (s2->configs, i);
    ModeResult *a = &c->m[MODE_A], *cm = &c->m[MODE_C];

    jb_obj (jb, NULL);
    json_config_head (jb, c);
    jb_obj (jb, "modes");
    for (j = 0; j < N_MODES; j++)
      json_mode (b, jb, mode_key[j], &c->m[j]);
    jb_obj_end (jb);
    json_ratios (jb, "ratios_a_over_c_median", a, cm, TRUE);
    jb_num (jb, "latency_p99", ratio (series_median (a->lat_p99_us),
            series_median (cm->lat_p99_us)));
    jb_obj_end (jb);
    jb_obj_end (jb);
  }
  jb_arr_end (jb);
  jb_obj_end (jb);
}

static JsonBuilder *
json_document (Bench * b)
{
  JsonBuilder *jb = json_builder_new ();
  Results *R = &b->r;

  jb_obj (jb, NULL);
  jb_str (jb, "schema", JSON_SCHEMA);
  jb_bool (jb, "complete", R->complete);
  jb_str (jb, "aborted", R->aborted);
  jb_str (jb, "fatal_error", R->fatal);
  jb_str (jb, "started", R->started);
  jb_num (jb, "elapsed_s", bench_elapsed_s (&b->wd));
  jb_str (jb, "command", b->opt.command_line);

  jb_obj (jb, "options");
  jb_int (jb, "repetitions", b->opt.repetitions);
  jb_bool (jb, "quick", b->opt.quick);
  jb_int (jb, "frames_in_flight", b->opt.in_flight);
  jb_int (jb, "frames", b->opt.frames);
  jb_num (jb, "time_limit_s", b->opt.time_limit);
  jb_obj_end (jb);

  json_environment (b, jb);
  json_s1 (jb, &R->s1);
  json_s2 (b, jb, &R->s2);
  json_section (b, jb, &R->s2d);
  json_s2g (b, jb);
  json_section (b, jb, &R->s3);
  json_section (b, jb, &R->s4);
  json_section (b, jb, &R->s5);
  json_s6 (b, jb);
  jb_obj_end (jb);
  return jb;
}

/* Call with b->lock held. */
static gboolean
write_json_locked (Bench * b, gchar ** error)
{
  JsonBuilder *jb = json_document (b);
  gboolean ok = bench_json_write (jb, b->opt.json_path, error);

  g_object_unref (jb);
  return ok;
}

void
write_json (Bench * b)
{
  gchar *error = NULL;

  g_mutex_lock (&b->lock);
  if (!write_json_locked (b, &error)) {
    g_printerr ("bench: could not write %s: %s\n", b->opt.json_path, error);
    g_free (error);
  }
  g_mutex_unlock (&b->lock);
}

/* the watchdog's writer (BenchWriteAborted), called with b->lock held */
gboolean
write_json_aborted (gpointer bench, const gchar * why, gchar ** error)
{
  Bench *b = bench;
  gchar *was = b->r.aborted;

  /* a bench_abort () before keeps its reason first */
  b->r.aborted = was ? g_strdup_printf ("%s; then: %s", was, why) :
      g_strdup (why);
  g_free (was);
  b->r.complete = FALSE;
  return write_json_locked (b, error);
}

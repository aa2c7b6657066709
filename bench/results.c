/* gst-cudasync
 * Copyright (C) 2026 gst-cudasync developers
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The bench's results: their state, the run's abort, and the JSON document
 * (bench/README.md describes it; bench/smoke.py checks it), whose
 * scenarios' objects their descriptors write (BenchScenario.json).
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>
#include <unistd.h>

#include "bench.h"
#include "bench-cuda.h"

const gchar *
bench_mode_key (Bench * b, gint mode)
{
  return b->modes[mode]->key;
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
  for (i = 0; b->scenarios[i]; i++)
    if (b->scenarios[i]->init)
      b->scenarios[i]->init (b, b->scenarios[i]);
}

/* --- JSON document --- */

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

void
json_structure (JsonBuilder * jb, const gchar * key, const GstStructure * st)
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

void
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
      json_structure (jb, k, i == 0 ? m->sig_stats : m->wait_stats);
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

void
json_config_head (JsonBuilder * jb, S2Config * c)
{
  jb_int (jb, "width", c->width);
  jb_int (jb, "height", c->height);
  jb_str (jb, "format", c->format);
  jb_num (jb, "gpu_work_ms", c->gpu_us / 1000.0);
  jb_str (jb, "status", c->status);
  jb_str (jb, "reason", c->reason);
}

void
json_ratios (JsonBuilder * jb, const gchar * key, ModeResult * m,
    ModeResult * ref, gboolean latency)
{
  jb_obj (jb, key);
  jb_num (jb, "fps", ratio (series_median (m->fps), series_median (ref->fps)));
  jb_num (jb, "process_cpu_per_frame", ratio (series_median
          (m->proc_cpu_us), series_median (ref->proc_cpu_us)));
  jb_num (jb, "producer_thread_cpu_per_frame", ratio (series_median
          (m->prod_cpu_us), series_median (ref->prod_cpu_us)));
  if (latency)
    jb_num (jb, "latency_p50", ratio (series_median (m->lat_p50_us),
            series_median (ref->lat_p50_us)));
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

static JsonBuilder *
json_document (Bench * b)
{
  JsonBuilder *jb = json_builder_new ();
  Results *R = &b->r;
  guint i;

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
  for (i = 0; b->scenarios[i]; i++)
    b->scenarios[i]->json (b, b->scenarios[i], jb);
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

/* --- the element counters the modes check --- */

gboolean
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

gboolean
expect_bridge_stats (const GstStructure * st, const gchar * element,
    guint total, guint waits, GString * note, const gchar ** path)
{
  const gchar *type = st ? gst_structure_get_string (st, "semaphore-type") :
      NULL;
  guint64 sems = 0, lent = 0;
  gboolean ok = TRUE;

  if (st)
    gst_structure_get_uint64 (st, "semaphores", &sems);
  if (g_strcmp0 (type, "timeline") == 0)
    *path = "GPU (timeline semaphore)";
  else if (g_strcmp0 (type, "binary") == 0)
    *path = "GPU (binary semaphores)";
  else
    *path = "CPU fallback (Vulkan cannot export semaphores)";
  ok &= expect_stat (st, "buffers", total, note, element);
  if (g_str_equal (element, "vulkantocuda")) {
    guint64 copies = 0, in_place = 0;

    /* its Vulkan copy into the staging buffer, then (unless the output
     * wraps the staging buffer: GStreamer 1.24+) a CUDA copy out of it;
     * none for a frame upstream wrote into the pool it proposed */
    if (st) {
      gst_structure_get_uint64 (st, "copies", &copies);
      gst_structure_get_uint64 (st, "in-place", &in_place);
    }
    if (copies != 0)
      ok &= expect_stat (st, "copies", total - in_place, note, element);
    ok &= expect_stat (st, "gpu-copies", total - in_place + copies, note,
        element);
    lent = in_place;
  } else {
    guint64 in_place = 0;

    /* cudatovulkan: a copy of every frame not written in place */
    if (st)
      gst_structure_get_uint64 (st, "in-place", &in_place);
    ok &= expect_stat (st, "copies", total - in_place, note, element);
    ok &= expect_stat (st, "gpu-copies", total - in_place, note, element);
  }
  /* the CPU fallback: a wait per frame, and for a frame vulkantocuda lent
   * upstream one more, for its take-over */
  ok &= expect_stat (st, "cpu-syncs", sems > 0 ? 0 : total + lent, note,
      element);
  if (waits != G_MAXUINT)
    ok &= expect_stat (st, "waits", waits, note, element);
  return ok;
}

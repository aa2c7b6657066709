/* gst-cudasync
 * Copyright (C) 2026 gst-cudasync developers
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The bench's harness: see harness.h.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "harness.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include <gst/gst.h>

/* --- options --- */

static gboolean
parse_writer (const gchar * name, const gchar * value, gpointer data,
    GError ** error)
{
  BenchOptions *opt = data;

  if (g_str_equal (value, "auto"))
    opt->writer = WRITER_AUTO;
  else if (g_str_equal (value, "kernel"))
    opt->writer = WRITER_KERNEL;
  else if (g_str_equal (value, "memset"))
    opt->writer = WRITER_MEMSET;
  else {
    g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
        "--frame-writer: auto, kernel or memset");
    return FALSE;
  }
  return TRUE;
}

/* --only: a comma-separated list of 1 to 8 (bit n: scenario n; 3 to 6 are
 * the parts of the CUDA <-> Vulkan scenario) */
static gboolean
parse_only (const gchar * name, const gchar * value, gpointer data,
    GError ** error)
{
  BenchOptions *opt = data;
  gchar **parts = g_strsplit (value, ",", -1);
  guint i;

  for (i = 0; parts[i]; i++) {
    gchar *p = g_strstrip (parts[i]);

    if (strlen (p) == 1 && p[0] >= '1' && p[0] <= '8')
      opt->only |= 1 << (p[0] - '0');
    else {
      g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
          "--only: a comma-separated list of 1, 2, 3, 4, 5, 6, 7, 8");
      g_strfreev (parts);
      return FALSE;
    }
  }
  g_strfreev (parts);
  return TRUE;
}

static GOptionGroup *
options_group (BenchOptions * opt, gdouble * time_limit)
{
  GOptionEntry entries[] = {
    {"repetitions", 'r', 0, G_OPTION_ARG_INT, &opt->repetitions,
        "Repetitions of each measurement (default 5; 2 with --quick)", "R"},
    {"quick", 'q', 0, G_OPTION_ARG_NONE, &opt->quick,
        "Short run for CI: fewer calls and frames, 1920x1080 only, GPU work "
          "0 and 1 ms", NULL},
    {"json", 'j', 0, G_OPTION_ARG_FILENAME, &opt->json_path,
        "Where to write the results (default bench-results.json)", "PATH"},
    {"only", 0, 0, G_OPTION_ARG_CALLBACK, parse_only,
          "Run only these scenarios: a comma-separated list of 1, 2, 3 "
          "(CUDA -> Vulkan, modes a-d), 4 "
          "(Vulkan -> CUDA), 5 (CUDA -> Vulkan -> CUDA stages), 6 (scaling "
          "to 8 pipelines), 7 (H.264 decodes into Vulkan and CUDA), 8 (frames "
          "between processes)",
        "LIST"},
    {"frame-writer", 0, 0, G_OPTION_ARG_CALLBACK, parse_writer,
        "How GPU frames are written: auto (the spin kernel, skipped on the "
          "simulator), kernel, or memset (GPU work 0 only)", "WRITER"},
    {"in-flight", 0, 0, G_OPTION_ARG_INT, &opt->in_flight,
        "Scenario 2 frames in flight = buffer pool size (default 4)", "N"},
    {"frames", 0, 0, G_OPTION_ARG_INT, &opt->frames,
        "Scenario 2 measured frames per repetition (default: 400 for 0 ms, "
          "400 ms worth of GPU work otherwise, 60..400)", "N"},
    {"calls", 0, 0, G_OPTION_ARG_INT, &opt->calls,
          "Scenario 1 calls per repetition (default 4096; 512 with --quick)",
        "N"},
    {"child", 0, G_OPTION_FLAG_HIDDEN, G_OPTION_ARG_STRING, &opt->child,
        "Internal: run as the other process of scenario ID (its arguments "
          "after the colon)", "ID:ARGS"},
    {"time-limit", 0, 0, G_OPTION_ARG_DOUBLE, time_limit,
        "Start no new configuration after S seconds (default 240); abort, "
          "keeping the JSON, 20 s later or after 20 s without progress", "S"},
    {NULL}
  };
  GOptionGroup *group = g_option_group_new (NULL, NULL, NULL, opt, NULL);

  /* the entries are copied; the pointers in them stay valid (opt and the
   * caller's locals) */
  g_option_group_add_entries (group, entries);
  return group;
}

gint
bench_options_parse (BenchOptions * opt, gint * argc, gchar *** argv)
{
  gdouble time_limit = 240;
  GOptionContext *octx;
  GError *err = NULL;

  memset (opt, 0, sizeof (*opt));
  opt->repetitions = -1;
  opt->in_flight = 4;
  opt->command_line = g_strjoinv (" ", *argv);

  octx = g_option_context_new ("- measure the cost of handing CUDA frames "
      "over with external semaphores");
  g_option_context_set_main_group (octx, options_group (opt, &time_limit));
  g_option_context_add_group (octx, gst_init_get_option_group ());
  if (!g_option_context_parse (octx, argc, argv, &err)) {
    g_printerr ("%s\n", err->message);
    g_error_free (err);
    g_option_context_free (octx);
    return 2;
  }
  g_option_context_free (octx);
  if (opt->repetitions < 0)
    opt->repetitions = opt->quick ? 2 : 5;
  if (!opt->json_path)
    opt->json_path = g_strdup ("bench-results.json");
  opt->time_limit = time_limit;
  if (opt->calls <= 0 && opt->quick)
    opt->calls = 512;
  if (opt->repetitions < 1 || opt->in_flight < 1 || opt->in_flight > 64) {
    g_printerr ("invalid option value (see --help)\n");
    return 2;
  }
  return 0;
}

gboolean
bench_options_want (const BenchOptions * opt, guint bit)
{
  return opt->only == 0 || (opt->only & bit) != 0;
}

/* --- timing --- */

gdouble
mono_s (void)
{
  return g_get_monotonic_time () / 1e6;
}

gdouble
thread_cpu_s (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_THREAD_CPUTIME_ID, &ts);
  return ts.tv_sec + ts.tv_nsec / 1e9;
}

gdouble
process_cpu_s (void)
{
  struct rusage ru;

  getrusage (RUSAGE_SELF, &ru);
  return ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 +
      ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
}

/* --- series --- */

static gint
cmp_double (gconstpointer a, gconstpointer b)
{
  gdouble x = *(const gdouble *) a, y = *(const gdouble *) b;

  return x < y ? -1 : x > y ? 1 : 0;
}

GArray *
series_new (void)
{
  return g_array_new (FALSE, FALSE, sizeof (gdouble));
}

void
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

gdouble
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

gdouble
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
gdouble
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

gdouble
ratio (gdouble a, gdouble b)
{
  if (isnan (a) || isnan (b) || b == 0)
    return NAN;
  return a / b;
}

/* --- watchdog --- */

void
bench_progress (BenchWatchdog * wd)
{
  g_atomic_int_set (&wd->run_active, 1);
  /* 64-bit store; a torn read only delays the watchdog by one period */
  wd->progress_stamp = g_get_monotonic_time ();
}

void
bench_run_idle (BenchWatchdog * wd)
{
  g_atomic_int_set (&wd->run_active, 0);
}

gdouble
bench_elapsed_s (const BenchWatchdog * wd)
{
  return mono_s () - wd->t_start / 1e6;
}

gboolean
bench_time_is_up (const BenchWatchdog * wd)
{
  return bench_elapsed_s (wd) > wd->time_limit;
}

static void
emergency_exit (BenchWatchdog * wd, const gchar * why)
{
  gint i;

  g_printerr ("bench: ABORTED: %s\n", why);
  /* the main thread may be stuck in a driver call: do not wait for it long */
  for (i = 0; i < 40; i++) {
    if (g_mutex_trylock (wd->lock)) {
      gchar *error = NULL;

      if (wd->write_aborted (wd->user_data, why, &error))
        g_printerr ("bench: partial results written to %s\n", wd->json_path);
      else
        g_printerr ("bench: could not write %s: %s\n", wd->json_path, error);
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
  BenchWatchdog *wd = data;
  gdouble hard = wd->time_limit + HARD_LIMIT_EXTRA_S;

  for (;;) {
    gdouble now = g_get_monotonic_time () / 1e6;

    g_usleep (250 * 1000);
    if (g_atomic_int_get (&wd->finished))
      return NULL;
    if (now - wd->t_start / 1e6 > hard) {
      gchar *why = g_strdup_printf ("still running after %.0f s (time limit "
          "%.0f s + %.0f s)", now - wd->t_start / 1e6, wd->time_limit,
          HARD_LIMIT_EXTRA_S);
      emergency_exit (wd, why);
    }
    if (g_atomic_int_get (&wd->run_active) &&
        now - wd->progress_stamp / 1e6 > STALL_LIMIT_S) {
      gchar *why = g_strdup_printf ("no progress for %.0f s: a GPU wait or "
          "the pipeline is stuck", STALL_LIMIT_S);
      emergency_exit (wd, why);
    }
  }
  return NULL;
}

void
bench_watchdog_start (BenchWatchdog * wd)
{
  wd->thread = g_thread_new ("bench-watchdog", watchdog_thread, wd);
}

void
bench_watchdog_stop (BenchWatchdog * wd)
{
  g_atomic_int_set (&wd->finished, 1);
  if (wd->thread)
    g_thread_join (wd->thread);
  wd->thread = NULL;
}

/* --- JSON --- */

static void
jb_key (JsonBuilder * jb, const gchar * key)
{
  if (key)
    json_builder_set_member_name (jb, key);
}

void
jb_obj (JsonBuilder * jb, const gchar * key)
{
  jb_key (jb, key);
  json_builder_begin_object (jb);
}

void
jb_obj_end (JsonBuilder * jb)
{
  json_builder_end_object (jb);
}

void
jb_arr (JsonBuilder * jb, const gchar * key)
{
  jb_key (jb, key);
  json_builder_begin_array (jb);
}

void
jb_arr_end (JsonBuilder * jb)
{
  json_builder_end_array (jb);
}

void
jb_str (JsonBuilder * jb, const gchar * key, const gchar * value)
{
  jb_key (jb, key);
  if (value)
    json_builder_add_string_value (jb, value);
  else
    json_builder_add_null_value (jb);
}

void
jb_num (JsonBuilder * jb, const gchar * key, gdouble value)
{
  gchar buf[G_ASCII_DTOSTR_BUF_SIZE];

  jb_key (jb, key);
  if (isnan (value) || isinf (value)) {
    json_builder_add_null_value (jb);
    return;
  }
  /* 6 significant digits */
  value = g_ascii_strtod (g_ascii_formatd (buf, sizeof (buf), "%.6g", value),
      NULL);
  json_builder_add_double_value (jb, value);
}

void
jb_int (JsonBuilder * jb, const gchar * key, gint64 value)
{
  jb_key (jb, key);
  json_builder_add_int_value (jb, value);
}

void
jb_bool (JsonBuilder * jb, const gchar * key, gboolean value)
{
  jb_key (jb, key);
  json_builder_add_boolean_value (jb, value);
}

void
jb_series (JsonBuilder * jb, const gchar * key, GArray * s)
{
  guint i;

  jb_obj (jb, key);
  jb_num (jb, "min", series_min (s));
  jb_num (jb, "median", series_median (s));
  jb_num (jb, "max", series_max (s));
  jb_arr (jb, "all");
  for (i = 0; s && i < s->len; i++)
    jb_num (jb, NULL, g_array_index (s, gdouble, i));
  jb_arr_end (jb);
  jb_obj_end (jb);
}

gboolean
bench_json_write (JsonBuilder * jb, const gchar * path, gchar ** error)
{
  JsonGenerator *gen = json_generator_new ();
  JsonNode *root = json_builder_get_root (jb);
  gchar *tmp = g_strdup_printf ("%s.tmp", path);
  GError *err = NULL;
  gchar *text, *doc;
  gboolean ok;

  json_generator_set_pretty (gen, TRUE);
  json_generator_set_indent (gen, 2);
  json_generator_set_root (gen, root);
  text = json_generator_to_data (gen, NULL);
  doc = g_strconcat (text, "\n", NULL);
  ok = g_file_set_contents (tmp, doc, -1, &err);
  if (ok && rename (tmp, path) != 0) {
    ok = FALSE;
    if (error)
      *error = g_strdup_printf ("rename %s: %s", tmp, g_strerror (errno));
  } else if (!ok && error) {
    *error = g_strdup (err->message);
  }
  g_clear_error (&err);
  g_free (doc);
  g_free (text);
  g_free (tmp);
  json_node_unref (root);
  g_object_unref (gen);
  return ok;
}

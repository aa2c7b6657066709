/* gst-cudasync: what the stats tests of each element family share
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Every element's `stats` is notified when EOS passes the element, and its
 * description lists the fields it reports (gst/plugin/common/gstcudasyncstats.h:
 * "SUMMARY. Fields: name: what; name: what"). A StatsWatch records the
 * notifications a pipeline's deep-notify::stats brings, with the value
 * each one carried; stats_assert_documented() compares a structure's
 * fields with the element's description. Static functions: each test
 * program includes this once.
 */
#pragma once

#include <gst/check/gstcheck.h>
#include <string.h>

/* as gstcudasyncstats.h writes them */
#define STATS_FIELDS_MARK ". Fields: "
#define STATS_FIELDS_SEP "; "

typedef struct
{
  GMutex lock;
  /* element name -> GPtrArray of the GstStructure each notification of it
   * carried */
  GHashTable *notes;
} StatsWatch;

static void
stats_on_deep_notify (GstObject * pipeline, GstObject * origin,
    GParamSpec * pspec, gpointer data)
{
  StatsWatch *w = data;
  GstStructure *s = NULL;
  GPtrArray *list;

  /* the value at the notification, as gst-launch-1.0 -v reads it */
  g_object_get (origin, "stats", &s, NULL);
  g_mutex_lock (&w->lock);
  list = g_hash_table_lookup (w->notes, GST_OBJECT_NAME (origin));
  if (!list) {
    list = g_ptr_array_new_with_free_func ((GDestroyNotify)
        gst_structure_free);
    g_hash_table_insert (w->notes, g_strdup (GST_OBJECT_NAME (origin)), list);
  }
  g_ptr_array_add (list, s);
  g_mutex_unlock (&w->lock);
}

/* records @pipeline's notifications (too) */
static void
stats_watch_add (StatsWatch * w, GstElement * pipeline)
{
  g_signal_connect (pipeline, "deep-notify::stats",
      G_CALLBACK (stats_on_deep_notify), w);
}

static void
stats_watch_init (StatsWatch * w, GstElement * pipeline)
{
  g_mutex_init (&w->lock);
  w->notes = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
      (GDestroyNotify) g_ptr_array_unref);
  stats_watch_add (w, pipeline);
}

static void
stats_watch_clear (StatsWatch * w)
{
  g_hash_table_unref (w->notes);
  g_mutex_clear (&w->lock);
}

/* How many times element @name's stats were notified */
static guint
stats_watch_count (StatsWatch * w, const gchar * name)
{
  GPtrArray *list;
  guint n;

  g_mutex_lock (&w->lock);
  list = g_hash_table_lookup (w->notes, name);
  n = list ? list->len : 0;
  g_mutex_unlock (&w->lock);
  return n;
}

/* The value element @name's only notification carried (transfer none,
 * valid until stats_watch_clear()); fails unless it was notified exactly
 * once */
static const GstStructure *
stats_watch_only (StatsWatch * w, const gchar * name)
{
  GPtrArray *list;

  fail_unless_equals_int (stats_watch_count (w, name), 1);
  g_mutex_lock (&w->lock);
  list = g_hash_table_lookup (w->notes, name);
  g_mutex_unlock (&w->lock);
  return g_ptr_array_index (list, 0);
}

static guint64
stats_field (const GstStructure * s, const gchar * field)
{
  guint64 v = G_MAXUINT64;

  fail_unless (gst_structure_get_uint64 (s, field, &v), "no field %s in %"
      GST_PTR_FORMAT, field, s);
  return v;
}

static gint
stats_compare_names (gconstpointer a, gconstpointer b)
{
  return strcmp (*(const gchar * const *) a, *(const gchar * const *) b);
}

/* The field names element @element's stats description lists, sorted,
 * comma-separated (caller frees) */
static gchar *
stats_documented_fields (GstElement * element)
{
  GParamSpec *pspec = g_object_class_find_property (G_OBJECT_GET_CLASS
      (element), "stats");
  const gchar *blurb, *fields;
  GPtrArray *names = g_ptr_array_new_with_free_func (g_free);
  gchar **items, *res;
  guint i;

  fail_unless (pspec != NULL);
  blurb = g_param_spec_get_blurb (pspec);
  fields = strstr (blurb, STATS_FIELDS_MARK);
  fail_unless (fields != NULL, "%s: no field list in the description of "
      "stats: %s", GST_OBJECT_NAME (element), blurb);
  items = g_strsplit (fields + strlen (STATS_FIELDS_MARK), STATS_FIELDS_SEP,
      -1);
  for (i = 0; items[i]; i++) {
    const gchar *colon = strstr (items[i], ": ");

    fail_unless (colon != NULL && colon > items[i], "%s: field without a "
        "description in %s", GST_OBJECT_NAME (element), blurb);
    g_ptr_array_add (names, g_strndup (items[i], colon - items[i]));
  }
  g_strfreev (items);
  g_ptr_array_sort (names, stats_compare_names);
  g_ptr_array_add (names, NULL);
  res = g_strjoinv (",", (gchar **) names->pdata);
  g_ptr_array_unref (names);
  return res;
}

/* @s's field names, sorted, comma-separated (caller frees) */
static gchar *
stats_reported_fields (const GstStructure * s)
{
  GPtrArray *names = g_ptr_array_new ();
  gchar *res;
  gint i;

  for (i = 0; i < gst_structure_n_fields (s); i++)
    g_ptr_array_add (names, (gpointer) gst_structure_nth_field_name (s, i));
  g_ptr_array_sort (names, stats_compare_names);
  g_ptr_array_add (names, NULL);
  res = g_strjoinv (",", (gchar **) names->pdata);
  g_ptr_array_free (names, TRUE);
  return res;
}

/* Fails unless @s, what @element reported, has exactly the fields its
 * stats description documents; prints them */
static void
stats_assert_documented (GstElement * element, const GstStructure * s)
{
  gchar *documented = stats_documented_fields (element);
  gchar *reported = stats_reported_fields (s);

  g_print ("%s: stats fields %s\n", G_OBJECT_TYPE_NAME (element), reported);
  fail_unless (g_str_equal (documented, reported), "%s: the stats structure "
      "has the fields\n  %s\nbut its description documents\n  %s",
      G_OBJECT_TYPE_NAME (element), reported, documented);
  g_free (documented);
  g_free (reported);
}

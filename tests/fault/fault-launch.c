/* gst-cudasync
 * Copyright (C) 2026 gst-cudasync developers
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * fault-launch PIPELINE-DESCRIPTION...: what the fault suite runs in place
 * of gst-launch-1.0. It prints the lines of gst-launch-1.0 that the suite
 * reads ("ERROR: from element PATH: MESSAGE", "Additional debug info:",
 * "Got EOS from element", "Failed to set pipeline to PAUSED."), and exits
 * 0 at EOS, 1 after an ERROR message or a failed state change.
 *
 * Why not gst-launch-1.0: it quits its main loop from its bus sync handler
 * on an ERROR message, and g_main_loop_run() forgets a quit made before it
 * runs. An ERROR posted by a streaming thread before gst-launch-1.0's main
 * thread reaches g_main_loop_run() (a machine under load) leaves it
 * waiting for ever on a pipeline whose state change the error failed: a
 * hang that is gst-launch's, not the elements'. This one pops the bus
 * from its own thread, so no message is lost.
 */
#include <gst/gst.h>
#include <stdio.h>

static void
print_error (GstMessage * msg)
{
  GError *err = NULL;
  gchar *dbg = NULL, *path;

  gst_message_parse_error (msg, &err, &dbg);
  path = GST_MESSAGE_SRC (msg) ?
      gst_object_get_path_string (GST_MESSAGE_SRC (msg)) : g_strdup ("(none)");
  g_printerr ("ERROR: from element %s: %s\n", path, err->message);
  if (dbg)
    g_printerr ("Additional debug info:\n%s\n", dbg);
  g_clear_error (&err);
  g_free (dbg);
  g_free (path);
}

/* a failed state change: prints the ERROR messages posted with it (the
 * elements' own, waited for briefly: a streaming thread may post it just
 * after), then says which change failed, as gst-launch-1.0 does; the
 * caller exits with status 1 */
static void
state_change_failed (GstBus * bus, const gchar * state)
{
  GstMessage *msg;

  while ((msg = gst_bus_timed_pop_filtered (bus, 100 * GST_MSECOND,
              GST_MESSAGE_ERROR))) {
    print_error (msg);
    gst_message_unref (msg);
  }
  g_printerr ("Failed to set pipeline to %s.\n", state);
}

int
main (int argc, char **argv)
{
  GstElement *pipeline;
  GstBus *bus;
  GError *err = NULL;
  GstStateChangeReturn ret;
  gboolean playing = FALSE;
  int rc = 1;

  gst_init (&argc, &argv);
  if (argc < 2) {
    g_printerr ("usage: %s PIPELINE-DESCRIPTION\n", argv[0]);
    return 2;
  }
  pipeline = gst_parse_launchv ((const gchar **) argv + 1, &err);
  if (!pipeline || err) {
    g_printerr ("ERROR: pipeline could not be constructed: %s.\n",
        err ? err->message : "unknown error");
    g_clear_error (&err);
    gst_clear_object (&pipeline);
    return 1;
  }
  if (!GST_IS_PIPELINE (pipeline)) {
    GstElement *p = gst_pipeline_new (NULL);

    gst_bin_add (GST_BIN (p), pipeline);
    pipeline = p;
  }
  bus = gst_element_get_bus (pipeline);

  g_print ("Setting pipeline to PAUSED ...\n");
  ret = gst_element_set_state (pipeline, GST_STATE_PAUSED);
  if (ret == GST_STATE_CHANGE_FAILURE) {
    state_change_failed (bus, "PAUSED");
    goto end;
  }
  if (ret != GST_STATE_CHANGE_ASYNC) {
    g_print ("Setting pipeline to PLAYING ...\n");
    playing = TRUE;
    if (gst_element_set_state (pipeline, GST_STATE_PLAYING) ==
        GST_STATE_CHANGE_FAILURE) {
      state_change_failed (bus, "PLAYING");
      goto end;
    }
  }

  for (;;) {
    GstMessage *msg = gst_bus_timed_pop_filtered (bus, GST_CLOCK_TIME_NONE,
        GST_MESSAGE_ERROR | GST_MESSAGE_EOS | GST_MESSAGE_ASYNC_DONE |
        GST_MESSAGE_LATENCY);
    gboolean done = FALSE;

    switch (GST_MESSAGE_TYPE (msg)) {
      case GST_MESSAGE_ERROR:
        print_error (msg);
        done = TRUE;
        break;
      case GST_MESSAGE_EOS:
        g_print ("Got EOS from element \"%s\".\n", GST_MESSAGE_SRC_NAME (msg));
        rc = 0;
        done = TRUE;
        break;
      case GST_MESSAGE_ASYNC_DONE:
        if (!playing && GST_MESSAGE_SRC (msg) == GST_OBJECT_CAST (pipeline)) {
          g_print ("Setting pipeline to PLAYING ...\n");
          playing = TRUE;
          if (gst_element_set_state (pipeline, GST_STATE_PLAYING) ==
              GST_STATE_CHANGE_FAILURE) {
            state_change_failed (bus, "PLAYING");
            done = TRUE;
          }
        }
        break;
      case GST_MESSAGE_LATENCY:
        gst_bin_recalculate_latency (GST_BIN (pipeline));
        break;
      default:
        break;
    }
    gst_message_unref (msg);
    if (done)
      break;
  }

end:
  g_print ("Setting pipeline to NULL ...\n");
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (bus);
  g_print ("Freeing pipeline ...\n");
  gst_object_unref (pipeline);
  gst_deinit ();
  return rc;
}

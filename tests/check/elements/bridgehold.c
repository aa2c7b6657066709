/* gst-cudasync: a Vulkan element's inputs kept until its queue is idle,
 * for the cudatovulkan / vulkantocuda tests
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"
#include "bridgecommon.h"
#include "vkutil.h"

/* vulkancolorconvert renders a subsampled plane (NV12's UV) into a scratch
 * image and keeps, until its next frame, a buffer of the output's plane-0
 * memory and that scratch image: its output buffer is then not writable when
 * vulkandownload drops it, and GstBufferPool frees it instead of recycling
 * it. That happens right after vulkandownload's fence wait, and on
 * GStreamer 1.24+ frees the timeline semaphore that vulkandownload's
 * submission has just signalled, which Mesa lavapipe's queue thread may
 * still be signalling (docs/known-issues.md). bc_hold_inputs() keeps
 * every buffer entering an element until the element has pushed its output
 * and the Vulkan queue it answers with is idle, and records whether one of
 * their memories was freed inside the element's chain all the same. One
 * element at a time: the state is static so that memories freed after the
 * test still find it. */
static struct
{
  GMutex lock;
  GQueue held;
  GThread *chain_thread;        /* the element's chain, between the probes */
  guint in, released, freed_in_chain, no_queue;
} hold;

static void
hold_memory_freed (gpointer data, GstMiniObject * mem)
{
  g_mutex_lock (&hold.lock);
  if (hold.chain_thread == g_thread_self ())
    hold.freed_in_chain++;
  g_mutex_unlock (&hold.lock);
}

static GstPadProbeReturn
hold_in (GstPad * pad, GstPadProbeInfo * info, gpointer data)
{
  GstBuffer *buf = GST_PAD_PROBE_INFO_BUFFER (info);
  guint i;

  for (i = 0; i < gst_buffer_n_memory (buf); i++)
    gst_mini_object_weak_ref (GST_MINI_OBJECT_CAST (gst_buffer_peek_memory
            (buf, i)), hold_memory_freed, NULL);
  g_mutex_lock (&hold.lock);
  g_queue_push_tail (&hold.held, gst_buffer_ref (buf));
  hold.in++;
  hold.chain_thread = g_thread_self ();
  g_mutex_unlock (&hold.lock);
  return GST_PAD_PROBE_OK;
}

static GstPadProbeReturn
hold_out (GstPad * pad, GstPadProbeInfo * info, gpointer data)
{
  GstVulkanQueue *queue = vk_util_pad_queue (pad);
  GQueue done;
  guint n;

  g_mutex_lock (&hold.lock);
  hold.chain_thread = NULL;
  done = hold.held;
  g_queue_init (&hold.held);
  if (!queue)
    hold.no_queue++;
  g_mutex_unlock (&hold.lock);
  if (queue) {
    vk_util_queue_wait_idle (queue);
    gst_object_unref (queue);
  }
  /* outside the lock: a buffer freed here may call hold_memory_freed() */
  n = g_queue_get_length (&done);
  g_queue_clear_full (&done, (GDestroyNotify) gst_buffer_unref);
  g_mutex_lock (&hold.lock);
  hold.released += n;
  g_mutex_unlock (&hold.lock);
  return GST_PAD_PROBE_OK;
}

void
bc_hold_inputs (GstElement * element)
{
  GstPad *sink = gst_element_get_static_pad (element, "sink");
  GstPad *src = gst_element_get_static_pad (element, "src");

  fail_unless (sink && src);
  fail_unless (g_queue_is_empty (&hold.held));
  hold.in = hold.released = hold.freed_in_chain = hold.no_queue = 0;
  gst_pad_add_probe (sink, GST_PAD_PROBE_TYPE_BUFFER, hold_in, NULL, NULL);
  gst_pad_add_probe (src, GST_PAD_PROBE_TYPE_BUFFER, hold_out, NULL, NULL);
  gst_object_unref (sink);
  gst_object_unref (src);
}

void
bc_assert_held (guint n, const gchar * what)
{
  guint in, released, freed_in_chain, no_queue, still_held;

  g_mutex_lock (&hold.lock);
  in = hold.in;
  released = hold.released;
  freed_in_chain = hold.freed_in_chain;
  no_queue = hold.no_queue;
  still_held = g_queue_get_length (&hold.held);
  g_mutex_unlock (&hold.lock);
  fail_unless (no_queue == 0, "%s: the element answered no queue", what);
  fail_unless_equals_int (in, n);
  fail_unless_equals_int (released, n);
  fail_unless_equals_int (still_held, 0);
  fail_unless (freed_in_chain == 0, "%s: %u memories of the element's "
      "inputs freed inside its chain", what, freed_in_chain);
}

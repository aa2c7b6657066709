/* gst-cudasync: the bridge elements' semaphore hand-over, at library level
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Helpers and what the simulator runs in place of a GPU: bridgecommon.h.
 *
 * Tests:
 * test_handover_cuda_to_vulkan: one binary semaphore loses signals
 *     (simulator reports it), one per slot does not
 * test_handover_vulkan_to_cuda: the same in vulkantocuda's direction, slots
 *     reused after their CUDA event
 * test_handover_timeline: one timeline semaphore serves every frame both
 *     ways: no lost signal, no violation
 */
#include "bridgecommon.h"
#include "vkutil.h"
#include <string.h>

/* ---- the binary semaphore hand-over of the elements, at library level ----
 *
 * Each element hands a frame over with a binary semaphore: cudatovulkan's
 * CUDA stream signals, a Vulkan submission waits; vulkantocuda's Vulkan
 * submission signals, its CUDA stream waits. A binary semaphore holds one
 * signal: if the signaller runs its next signal before the waiter has run
 * the wait for the previous one (two GPU queues, each in its own order), a
 * signal is lost and a later wait hangs. Enqueue order says nothing about
 * that. The elements therefore give every pooled frame / staging slot its
 * own semaphore, and reuse a slot only once the waiter's work is known to
 * have completed (a Vulkan fence, a CUDA event).
 *
 * lavapipe exports no semaphores, so on the simulator the elements run their
 * CPU fallback; these tests play the same protocol with the simulator's
 * exporter-side semaphores standing in for the Vulkan queue (a host thread
 * whose waits run late, like a busy queue), and with the library calls the
 * elements make (gst_cuda_semaphore_signal/wait,
 * gst_cuda_semaphore_mark_waited). The simulator reports a binary
 * semaphore "signalled twice without a wait": the single-semaphore variant
 * must show it (the hazard found on the H200), the per-slot variant must
 * not. */

#define HS_FRAMES 12
#define HS_MAX_SLOTS 3

typedef struct
{
  GstCudaSemaphore *sem;
  TestSem *ts;
  GstCudaSyncEvent *event;      /* vulkantocuda: recorded after the CUDA wait */
  gint done;                    /* atomic: the consumer's wait ran (a fence) */
  gboolean in_flight;           /* signalled, its wait not known to have run */
} HsSlot;

typedef struct
{
  GAsyncQueue *queue;           /* HsSlot *, then &hs_stop */
  gulong delay_us;              /* before each wait: a busy queue */
  gint waits, timeouts;
} HsConsumer;

static HsSlot hs_stop;

/* the "Vulkan queue" of cudatovulkan: waits on each submitted slot in turn */
static gpointer
hs_consumer (gpointer data)
{
  HsConsumer *c = data;
  HsSlot *slot;

  while ((slot = g_async_queue_pop (c->queue)) != &hs_stop) {
    if (c->delay_us)
      g_usleep (c->delay_us);
    if (test_sem_host_wait (slot->ts, 0, 200 * GST_MSECOND))
      c->waits++;
    else
      c->timeouts++;
    g_atomic_int_set (&slot->done, 1);
  }
  return NULL;
}

static void
hs_slot_init (HsSlot * slot)
{
  memset (slot, 0, sizeof (*slot));
  slot->sem = cs_new_semaphore (NULL, FALSE, &slot->ts);
}

static void
hs_slot_clear (HsSlot * slot)
{
  g_clear_pointer (&slot->event, gst_cuda_sync_event_unref);
  gst_clear_object (&slot->sem);
  g_clear_pointer (&slot->ts, test_sem_free);
}

static gboolean
hs_skip_unless_sim (const gchar * test)
{
  if (cs_is_sim)
    return FALSE;
  g_print ("SKIP: %s: simulated driver only (it plays the protocol with the "
      "simulator's exporter-side semaphores and counts its violations; the "
      "element tests cover the GPU path)\n", test);
  return TRUE;
}

/* cudatovulkan's direction: CUDA signals, the Vulkan queue waits late */
GST_START_TEST (test_handover_cuda_to_vulkan)
{
  HsSlot slots[HS_MAX_SLOTS], single;
  HsConsumer c = { 0, };
  GError *err = NULL;
  GThread *thread;
  CUstream stream;
  guint i, n_slots = 0, reused = 0;

  if (hs_skip_unless_sim ("test_handover_cuda_to_vulkan"))
    return;
  stream = cs_new_stream (CU_STREAM_DEFAULT);

  /* 1. The old scheme: one semaphore, the signal counted as consumed when
   * the waiting submission is made. The library accepts every signal, but
   * on the GPU CUDA runs all of them before the (busy) queue runs its first
   * wait: signals are lost, waits starve. */
  hs_slot_init (&single);
  for (i = 0; i < HS_FRAMES; i++) {
    fail_unless (gst_cuda_semaphore_signal (single.sem, stream, NULL, &err),
        "%s", err ? err->message : "?");
    gst_cuda_semaphore_mark_waited (single.sem);
  }
  cs_sim.drain ();              /* CUDA ran ahead of the queue */
  c.queue = g_async_queue_new ();
  thread = g_thread_new ("hs-queue", hs_consumer, &c);
  for (i = 0; i < HS_FRAMES; i++)
    g_async_queue_push (c.queue, &single);
  g_async_queue_push (c.queue, &hs_stop);
  g_thread_join (thread);
  g_async_queue_unref (c.queue);
  GST_INFO ("one shared semaphore: %u violations (%s), %d waits, %d "
      "timeouts", cs_sim.violation_count (), cs_sim.last_violation (),
      c.waits, c.timeouts);
  fail_unless_equals_int (cs_sim.violation_count (), HS_FRAMES - 1);
  fail_unless (strstr (cs_sim.last_violation (), "signalled twice without "
          "a wait") != NULL, "%s", cs_sim.last_violation ());
  fail_unless_equals_int (c.waits, 1);
  fail_unless_equals_int (c.timeouts, HS_FRAMES - 1);
  hs_slot_clear (&single);
  cs_sim.reset_counters ();

  /* 2. The elements' scheme: a semaphore per slot; the wait is recorded
   * with the library (consume_binary) only when the consumer's "fence" has
   * signalled, and only then is the slot signalled again. The queue runs
   * late (1 ms before each wait) and CUDA's signals sometimes late too. */
  memset (&c, 0, sizeof (c));
  c.delay_us = 1000;
  c.queue = g_async_queue_new ();
  thread = g_thread_new ("hs-queue", hs_consumer, &c);
  cs_sim.set_delay_us ("cuSignalExternalSemaphoresAsync", 700);
  for (i = 0; i < HS_FRAMES; i++) {
    HsSlot *slot = NULL;
    guint k;

    while (!slot) {
      for (k = 0; k < n_slots && !slot; k++) {
        if (!slots[k].in_flight || g_atomic_int_get (&slots[k].done))
          slot = &slots[k];
      }
      if (!slot && n_slots < HS_MAX_SLOTS) {
        hs_slot_init (&slots[n_slots]);
        slot = &slots[n_slots++];
      }
      if (!slot)
        g_usleep (100);         /* the pool would wait for the oldest fence */
    }
    if (slot->in_flight) {
      gst_cuda_semaphore_mark_waited (slot->sem);
      slot->in_flight = FALSE;
      g_atomic_int_set (&slot->done, 0);
      reused++;
    }
    fail_unless (gst_cuda_semaphore_signal (slot->sem, stream, NULL, &err),
        "frame %u: %s", i, err ? err->message : "?");
    if (i == 0) {
      /* the library rule the scheme relies on: no second signal before
       * the wait was recorded */
      fail_if (gst_cuda_semaphore_signal (slot->sem, stream, NULL, &err));
      fail_unless (g_error_matches (err, GST_CUDA_SYNC_ERROR,
              GST_CUDA_SYNC_ERROR_PROTOCOL), "%s", err->message);
      g_clear_error (&err);
    }
    slot->in_flight = TRUE;
    g_async_queue_push (c.queue, slot);
  }
  g_async_queue_push (c.queue, &hs_stop);
  g_thread_join (thread);
  g_async_queue_unref (c.queue);
  cs_sim.drain ();
  cs_sim.set_delay_us ("cuSignalExternalSemaphoresAsync", 0);

  fail_unless_equals_int (cs_sim.violation_count (), 0);
  fail_unless_equals_int (c.waits, HS_FRAMES);
  fail_unless_equals_int (c.timeouts, 0);
  fail_unless_equals_int (n_slots, HS_MAX_SLOTS);
  fail_unless (reused >= HS_FRAMES - HS_MAX_SLOTS);
  for (i = 0; i < n_slots; i++)
    hs_slot_clear (&slots[i]);
  cs_free_stream (stream);
}

GST_END_TEST;

/* GStreamer 1.24+: the elements' timeline scheme. One timeline semaphore
 * per element: CUDA signals 1, 2, ... far ahead of a late queue, which then
 * waits for each value in turn; and the other way, the "queue" signals
 * every value before CUDA's waits for them run. A timeline keeps every
 * value it reached, so no signal is lost, no wait starves, and the one
 * semaphore serves every frame. The simulator checks that each signalled
 * value is above the current one. */
GST_START_TEST (test_handover_timeline)
{
  TestSem *ts = NULL;
  GstCudaSemaphore *sem;
  GstCudaSyncEvent *ev;
  GError *err = NULL;
  CUstream stream;
  guint64 value = 0;
  guint i, reached = 0;

  if (hs_skip_unless_sim ("test_handover_timeline"))
    return;
  stream = cs_new_stream (CU_STREAM_DEFAULT);

  /* cudatovulkan: CUDA signals every frame before the queue waits once */
  sem = cs_new_semaphore (NULL, TRUE, &ts);
  for (i = 0; i < HS_FRAMES; i++) {
    fail_unless (gst_cuda_semaphore_signal (sem, stream, &value, &err),
        "frame %u: %s", i, err ? err->message : "?");
    fail_unless_equals_uint64 (value, i + 1);
  }
  cs_sim.drain ();
  for (i = 0; i < HS_FRAMES; i++)
    reached += test_sem_host_wait (ts, i + 1, 200 * GST_MSECOND);
  fail_unless_equals_int (reached, HS_FRAMES);
  fail_unless_equals_uint64 (test_sem_get_value (ts), HS_FRAMES);
  /* a value the library never signalled is not reached */
  fail_if (test_sem_host_wait (ts, HS_FRAMES + 1, 10 * GST_MSECOND));
  gst_object_unref (sem);
  test_sem_free (ts);

  /* vulkantocuda: the "queue" signals every value first, CUDA's waits for
   * each value (enqueued afterwards, with a delay) all complete */
  sem = cs_new_semaphore (NULL, TRUE, &ts);
  for (i = 0; i < HS_FRAMES; i++)
    fail_unless (test_sem_host_signal (ts, i + 1));
  cs_sim.set_delay_us ("cuWaitExternalSemaphoresAsync", 300);
  for (i = 0; i < HS_FRAMES; i++)
    fail_unless (gst_cuda_semaphore_wait (sem, stream, i + 1, &err), "%s",
        err ? err->message : "?");
  ev = gst_cuda_sync_event_new (cs_ctx, TRUE, &err);
  fail_unless (ev != NULL);
  fail_unless (gst_cuda_sync_event_record (ev, stream, &err));
  fail_unless (gst_cuda_sync_event_wait_cpu (ev, &err), "%s",
      err ? err->message : "?");
  cs_sim.set_delay_us ("cuWaitExternalSemaphoresAsync", 0);
  gst_cuda_sync_event_unref (ev);
  gst_object_unref (sem);
  test_sem_free (ts);

  fail_unless_equals_int (cs_sim.violation_count (), 0);
  cs_free_stream (stream);
}

GST_END_TEST;

static gboolean
hs_event_done (HsSlot * slot)
{
  GstCudaSyncEventStatus st = gst_cuda_sync_event_query (slot->event, NULL);

  fail_unless (st != GST_CUDA_SYNC_EVENT_ERROR);
  return st == GST_CUDA_SYNC_EVENT_COMPLETE;
}

static void
hs_wait_and_record (HsSlot * slot, CUstream stream)
{
  GError *err = NULL;

  fail_unless (gst_cuda_semaphore_wait (slot->sem, stream, 0, &err), "%s",
      err ? err->message : "?");
  if (!slot->event)
    fail_unless ((slot->event = gst_cuda_sync_event_new (cs_ctx, TRUE,
                &err)) != NULL, "%s", err ? err->message : "?");
  fail_unless (gst_cuda_sync_event_record (slot->event, stream, &err), "%s",
      err ? err->message : "?");
}

/* vulkantocuda's direction: the Vulkan queue signals, CUDA waits late */
GST_START_TEST (test_handover_vulkan_to_cuda)
{
  HsSlot slots[HS_MAX_SLOTS], single;
  CUstream stream;
  guint i, n_slots = 0, reused = 0, lost = 0;
  gint64 deadline;

  if (hs_skip_unless_sim ("test_handover_vulkan_to_cuda"))
    return;
  stream = cs_new_stream (CU_STREAM_DEFAULT);
  cs_sim.set_delay_us ("cuWaitExternalSemaphoresAsync", 20000);

  /* 1. One semaphore: the queue signals frame 2 while CUDA's wait for
   * frame 1 has not run yet (it runs 20 ms late). */
  hs_slot_init (&single);
  for (i = 0; i < 4; i++) {
    if (!test_sem_host_signal (single.ts, 0))
      lost++;
    hs_wait_and_record (&single, stream);
  }
  GST_INFO ("one shared semaphore: %u lost signals, %u violations (%s)",
      lost, cs_sim.violation_count (), cs_sim.last_violation ());
  fail_unless (lost >= 1 && cs_sim.violation_count () == lost);
  fail_unless (strstr (cs_sim.last_violation (), "signalled twice without "
          "a wait") != NULL, "%s", cs_sim.last_violation ());
  /* the starving CUDA waits would hang the stream: feed them */
  deadline = g_get_monotonic_time () + 10 * G_USEC_PER_SEC;
  while (lost > 0 && g_get_monotonic_time () < deadline) {
    if (test_sem_get_value (single.ts) == 0) {
      fail_unless (test_sem_host_signal (single.ts, 0));
      lost--;
    }
    g_usleep (1000);
  }
  fail_unless_equals_int (lost, 0);
  cs_sim.drain ();
  hs_slot_clear (&single);
  cs_sim.reset_counters ();

  /* 2. The element's scheme: a semaphore per staging slot; a slot (and its
   * semaphore) is signalled again only when the CUDA event recorded after
   * the wait has completed. */
  cs_sim.set_delay_us ("cuWaitExternalSemaphoresAsync", 1500);
  for (i = 0; i < HS_FRAMES; i++) {
    HsSlot *slot = NULL;
    guint k;

    while (!slot) {
      for (k = 0; k < n_slots && !slot; k++) {
        if (!slots[k].in_flight || hs_event_done (&slots[k]))
          slot = &slots[k];
      }
      if (!slot && n_slots < HS_MAX_SLOTS) {
        hs_slot_init (&slots[n_slots]);
        slot = &slots[n_slots++];
      }
      if (!slot)
        g_usleep (100);
    }
    if (slot->in_flight)
      reused++;
    fail_unless (test_sem_host_signal (slot->ts, 0), "frame %u: %s", i,
        cs_sim.last_violation ());
    hs_wait_and_record (slot, stream);
    slot->in_flight = TRUE;
  }
  cs_sim.drain ();
  cs_sim.set_delay_us ("cuWaitExternalSemaphoresAsync", 0);
  fail_unless_equals_int (cs_sim.violation_count (), 0);
  fail_unless_equals_int (n_slots, HS_MAX_SLOTS);
  fail_unless (reused >= HS_FRAMES - HS_MAX_SLOTS);
  for (i = 0; i < n_slots; i++) {
    fail_unless_equals_uint64 (test_sem_get_value (slots[i].ts), 0);
    hs_slot_clear (&slots[i]);
  }
  cs_free_stream (stream);
}

GST_END_TEST;

static Suite *
cudavkhandover_suite (void)
{
  Suite *s = suite_create ("cudavkhandover");
  TCase *tc;

  tc = tcase_create ("general");
  suite_add_tcase (s, tc);
  tcase_add_checked_fixture (tc, cs_vk_setup, cs_vk_teardown);
  tcase_add_test (tc, test_handover_cuda_to_vulkan);
  tcase_add_test (tc, test_handover_vulkan_to_cuda);
  tcase_add_test (tc, test_handover_timeline);
  return s;
}

int
main (int argc, char **argv)
{
  gst_check_init (&argc, &argv);
  return cs_vk_run_suite (cudavkhandover_suite (), "cudavkhandover", __FILE__);
}

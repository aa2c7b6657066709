/* gst-cudasync
 * Copyright (C) 2026 gst-cudasync developers
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * cudasyncipcsrc's watchdog and rescue: the values of the sink's semaphore
 * that the client's stream waits for are watched from a thread of their
 * own, since the streaming thread may be blocked on the CPU behind them;
 * a sink that does not signal them (killed, frozen) has its semaphore
 * signalled past them here. Calls nothing of the client's other units.
 * Locks: gstcudasyncipcclient-private.h.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstcudasyncipcclient-private.h"
#include "gstcudasyncipcsemaphore.h"
#include "gstcudasyncelementerror.h"
#include <errno.h>
#include <poll.h>
#include <unistd.h>

GST_DEBUG_CATEGORY_STATIC (gst_cuda_sync_ipc_watch_debug);
#define GST_CAT_DEFAULT gst_cuda_sync_ipc_watch_debug

/* how often the watchdog looks at the values the stream waits for */
#define WATCH_TICK_US (20 * 1000)

/* The sink vanished, froze or broke the protocol: its signals for the
 * values it announced may never come. Signal its semaphore far past them
 * on a stream nothing waits behind, so that our stream's waits end; the
 * frames already pushed may hold what the memory held then. Once only,
 * from the streaming thread or the watchdog (lock held). */
static void
rescue_locked (GstCudaSyncIpcClient * self)
{
  GError *err = NULL;

  if (!self->acquire || self->rescued)
    return;
  self->rescued = TRUE;
  if (gst_cuda_sync_ipc_rescue_signal (self->context, self->acquire,
          self->rescue, self->acquire_last + GST_CUDA_SYNC_IPC_RESCUE_STEP,
          &err))
    self->counters.rescues++;
  else
    GST_WARNING ("rescue signal failed: %s", err->message);
  g_clear_error (&err);
}

void
gst_cuda_sync_ipc_client_rescue (GstCudaSyncIpcClient * self)
{
  g_mutex_lock (&self->lock);
  rescue_locked (self);
  g_mutex_unlock (&self->lock);
}

/* whether the element flushes (its stop, or a flushing seek) */
gboolean
gst_cuda_sync_ipc_client_woken (GstCudaSyncIpcClient * self)
{
  struct pollfd pfd = { self->wake_fd, POLLIN, 0 };

  return self->wake_fd >= 0 && poll (&pfd, 1, 0) > 0;
}

/* whether the element or downstream flushes; no lock held */
static gboolean
flushing (GstCudaSyncIpcClient * self)
{
  GstPad *peer;
  gboolean ret;

  if (gst_cuda_sync_ipc_client_woken (self))
    return TRUE;
  peer = self->config.pad ? gst_pad_get_peer (self->config.pad) : NULL;
  if (!peer)
    return FALSE;
  GST_OBJECT_LOCK (peer);
  ret = GST_PAD_IS_FLUSHING (peer);
  GST_OBJECT_UNLOCK (peer);
  gst_object_unref (peer);
  return ret;
}

/* Whether the stream's waits for the sink's values made no progress for
 * too long (lock held): the values the stream waits for are watched with
 * an event recorded behind them, queried on every tick. The sink counts
 * as lost (a result with @error) once its end is closed, or the element
 * flushes, and they are not reached within the stop's grace (killed; or a
 * stop that a CPU wait downstream would otherwise hold), or when none is
 * reached within the time limit (frozen, or hung with its end open). */
static gint
watch_check (GstCudaSyncIpcClient * self, gint64 now, gboolean stopping,
    GError ** error)
{
  GstCudaSyncEventStatus st = GST_CUDA_SYNC_EVENT_PENDING;
  GError *err = NULL;
  gboolean over;

  if (!self->armed) {
    /* behind every wait enqueued so far: stream order */
    if (gst_cuda_sync_event_record (self->watch_event, self->stream, &err)) {
      self->armed = TRUE;
      self->watch_value = self->waited;
    }
  } else {
    st = gst_cuda_sync_event_query (self->watch_event, &err);
  }
  if (err) {
    /* tried again on the next tick; never taken as reached */
    GST_WARNING ("watching the sink's values: %s", err->message);
    g_clear_error (&err);
  }
  if (st == GST_CUDA_SYNC_EVENT_COMPLETE) {
    self->armed = FALSE;
    self->reached = self->watch_value;
    self->pending_since = now;
    self->hup_since = 0;
    return 0;
  }
  if (!self->hup_since && (self->fd < 0
          || gst_cuda_sync_ipc_peer_closed (self->fd)
          || stopping))
    self->hup_since = now;
  over = self->config.timeout && now - self->pending_since >=
      (gint64) (self->config.timeout / GST_USECOND);
  if (self->hup_since && (over
          || now - self->hup_since >= GST_CUDA_SYNC_IPC_CLIENT_STOP_GRACE_US))
    return GST_CUDA_SYNC_IPC_CLIENT_LOST;
  if (over) {
    GST_CUDA_SYNC_SET_ERROR (error, RESOURCE, READ, ("The sink stopped "
            "signalling its frames: its process may be frozen or hung."),
        ("%s: no acquire value above %" G_GUINT64_FORMAT " (frames up to "
            "%" G_GUINT64_FORMAT " wait) was reached within %" GST_TIME_FORMAT,
            self->path, self->reached, self->waited,
            GST_TIME_ARGS (self->config.timeout)));
    return GST_CUDA_SYNC_IPC_CLIENT_FROZEN;
  }
  return 0;
}

/* The watchdog thread: the streaming thread may be blocked on the CPU
 * behind the waits for the sink's values (in downstream's synchronisation,
 * or with cpu_wait in ours), and the sink, killed or frozen, may never
 * signal them: this thread finds that out without it, rescues the sink's
 * semaphore so that those waits end, and wakes the streaming thread
 * (lost_fd) to act on the loss. */
static gpointer
watchdog (gpointer data)
{
  GstCudaSyncIpcClient *self = data;
  GError *err = NULL;
  guint64 one = 1;
  gint lost = 0;
  gboolean stopping;

  g_mutex_lock (&self->lock);
  while (!self->watch_stop && !lost) {
    gint64 now = g_get_monotonic_time ();

    if (self->waited <= self->reached || self->rescued) {
      g_cond_wait (&self->watch_cond, &self->lock);
      continue;
    }
    /* (pads are not looked at under our lock: lent frames come back
     * under any lock of downstream's) */
    g_mutex_unlock (&self->lock);
    stopping = flushing (self);
    g_mutex_lock (&self->lock);
    lost = watch_check (self, now, stopping, &err);
    if (!lost)
      g_cond_wait_until (&self->watch_cond, &self->lock, now + WATCH_TICK_US);
  }
  if (lost) {
    GST_WARNING ("the sink is lost: %s", err ? err->message :
        "its connection closed with values pending");
    g_atomic_int_set (&self->watch_lost, lost);
    self->lost_error = err;
    rescue_locked (self);
    if (write (self->lost_fd, &one, sizeof (one)) < 0)
      GST_WARNING ("eventfd write: %s", g_strerror (errno));
  }
  g_mutex_unlock (&self->lock);
  return NULL;
}

/* The stream now waits for the sink's @value (after the wait's enqueueing,
 * context pushed): watched from now on */
void
gst_cuda_sync_ipc_client_watch (GstCudaSyncIpcClient * self, guint64 value)
{
  g_mutex_lock (&self->lock);
  if (self->waited <= self->reached)
    self->pending_since = g_get_monotonic_time ();
  self->waited = value;
  g_cond_signal (&self->watch_cond);
  g_mutex_unlock (&self->lock);
}

void
gst_cuda_sync_ipc_client_stop_watchdog (GstCudaSyncIpcClient * self)
{
  if (!self->watchdog)
    return;
  g_mutex_lock (&self->lock);
  self->watch_stop = TRUE;
  g_cond_signal (&self->watch_cond);
  g_mutex_unlock (&self->lock);
  g_thread_join (self->watchdog);
  self->watchdog = NULL;
}

void
gst_cuda_sync_ipc_client_start_watchdog (GstCudaSyncIpcClient * self)
{
  GST_DEBUG_CATEGORY_INIT (gst_cuda_sync_ipc_watch_debug, "cudasyncipcwatch", 0,
      "cudasyncipcsrc's watchdog");
  self->watchdog = g_thread_new ("cudaipcsrc-watch", watchdog, self);
}

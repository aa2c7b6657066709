/* gst-cudasync
 * Copyright (C) 2026 gst-cudasync developers
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The frames cudasyncipcsrc lends downstream in io-mode import: the
 * sink's memory itself, wrapped in a GstCudaMemory. Each is released to
 * the sink (our release semaphore's next value, and RELEASE) when
 * downstream frees it; one whose release fails waits for the streaming
 * thread to try again. Locks: gstcudaipcclient-private.h.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstcudaipcclient-private.h"
#include "gstcudasyncelementerror.h"
#include <errno.h>
#include <unistd.h>

#define GST_CAT_DEFAULT gst_cuda_ipc_client_debug

/* Signals our release semaphore's next value on the legacy default
 * stream, after the reads that downstream CUDA elements (on blocking
 * streams, or that one) have enqueued, and sends it to the sink; the
 * import goes once those reads ran. FALSE when the signal failed (to try
 * again); a failed send is a connection the sink sees fail, and the frame
 * counts as released (lock held, context pushed). */
static gboolean
release_loan (GstCudaIpcClient * self, Loan * loan, GError ** error)
{
  GError *err = NULL;

  switch (gst_cuda_ipc_client_release (self, NULL, loan->id, &err)) {
    case GST_CUDA_IPC_RELEASE_NOT_SIGNALLED:
      g_propagate_error (error, err);
      return FALSE;
    case GST_CUDA_IPC_RELEASE_NOT_SENT:
      GST_WARNING ("frame %u not released to the sink: %s", loan->id,
          err->message);
      g_clear_error (&err);
      break;
    default:
      break;
  }
  gst_cuda_ipc_client_unref_import_after (self, loan->import, NULL);
  self->n_lent--;
  if (self->draining && self->n_lent == 0 && self->fd >= 0)
    gst_cuda_ipc_client_say_bye (self);
  return TRUE;
}

/* The lent frames whose release failed (a context that could not be made
 * current, a failed signal), released now: FALSE and @error when one
 * fails again (any thread but loan_return()'s caller's lock) */
gboolean
gst_cuda_ipc_client_retry_releases (GstCudaIpcClient * self, GError ** error)
{
  GQueue done = G_QUEUE_INIT;
  gboolean ok = TRUE;
  Loan *loan;
  guint64 v;

  if (self->retry_fd >= 0 && read (self->retry_fd, &v, sizeof (v)) < 0 &&
      errno != EAGAIN)
    GST_WARNING ("eventfd read: %s", g_strerror (errno));
  g_mutex_lock (&self->lock);
  if (!g_queue_is_empty (&self->unreleased)) {
    if (!gst_cuda_context_push (self->context)) {
      g_set_error (error, GST_CUDA_SYNC_ERROR, GST_CUDA_SYNC_ERROR_DRIVER,
          "Could not make the CUDA context current");
      ok = FALSE;
    } else {
      while (ok && !g_queue_is_empty (&self->unreleased) &&
          (ok = release_loan (self, g_queue_peek_head (&self->unreleased),
                  error)))
        g_queue_push_tail (&done, g_queue_pop_head (&self->unreleased));
      gst_cuda_context_pop (NULL);
    }
    if (!ok)
      GST_WARNING ("%u lent frames not released",
          g_queue_get_length (&self->unreleased));
  }
  g_mutex_unlock (&self->lock);
  while ((loan = g_queue_pop_head (&done))) {
    gst_cuda_ipc_client_unref (loan->client);
    g_free (loan);
  }
  return ok;
}

/* A frame lent downstream is back (any thread): released (release_loan()),
 * else kept for the streaming thread to try again (retry_releases()):
 * until then the sink does not write into it, and the import stays */
static void
loan_return (gpointer data)
{
  Loan *loan = data;
  GstCudaIpcClient *self = loan->client;
  GError *err = NULL;
  gboolean pushed = gst_cuda_context_push (self->context);
  guint64 one = 1;

  g_mutex_lock (&self->lock);
  if (pushed && release_loan (self, loan, &err)) {
    g_mutex_unlock (&self->lock);
    gst_cuda_context_pop (NULL);
    gst_cuda_ipc_client_unref (self);
    g_free (loan);
    return;
  }
  GST_WARNING ("frame %u not released yet: %s", loan->id, err ? err->message :
      "could not make the CUDA context current");
  g_clear_error (&err);
  g_queue_push_tail (&self->unreleased, loan);
  if (write (self->retry_fd, &one, sizeof (one)) < 0)
    GST_WARNING ("eventfd write: %s", g_strerror (errno));
  g_mutex_unlock (&self->lock);
  if (pushed)
    gst_cuda_context_pop (NULL);
}

/* The frame is the import itself: our stream waits for the sink's value,
 * then the legacy default stream (or the CPU) waits for our stream
 * (context pushed). Released by loan_return() when freed. */
GstBuffer *
gst_cuda_ipc_client_lend_frame (GstCudaIpcClient * self, Import * imp,
    const GstCudaIpcFrame * f, GError ** error)
{
  GstVideoInfo *l = &self->layout;
  GstBuffer *out;
  GstMemory *mem;
  Loan *loan;

  if (!gst_cuda_semaphore_wait (self->acquire, self->stream,
          f->acquire_value, error))
    return NULL;
  self->counters.waits++;
  if (!gst_cuda_ipc_client_order_downstream (self, error))
    return NULL;
  loan = g_new0 (Loan, 1);
  loan->client = gst_cuda_ipc_client_ref (self);
  loan->import = gst_cuda_ipc_import_ref (imp);
  loan->id = f->id;
  mem = gst_cuda_sync_memory_wrap (self->context, l,
      gst_cuda_sync_vmm_get_pointer (imp->vmm), loan, loan_return);
  if (!mem) {
    /* the table and the element keep theirs: nothing is freed here */
    gst_cuda_ipc_import_unref (loan->import);
    gst_cuda_ipc_client_unref (self);
    g_free (loan);
    GST_CUDA_SYNC_SET_ERROR (error, RESOURCE, FAILED, ("Could not wrap the "
            "sink's memory."), ("gst_cuda_allocator_alloc_wrapped"));
    return NULL;
  }
  g_mutex_lock (&self->lock);
  self->n_lent++;
  self->counters.lent++;
  g_mutex_unlock (&self->lock);
  out = gst_buffer_new ();
  gst_buffer_append_memory (out, mem);
  gst_buffer_add_video_meta_full (out, GST_VIDEO_FRAME_FLAG_NONE,
      GST_VIDEO_INFO_FORMAT (l), GST_VIDEO_INFO_WIDTH (l),
      GST_VIDEO_INFO_HEIGHT (l), GST_VIDEO_INFO_N_PLANES (l), l->offset,
      l->stride);
  return out;
}

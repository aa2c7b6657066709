/* gst-cudasync
 * Copyright (C) 2026 gst-cudasync developers
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * GstCudaSemaphore's parts, private to the library: gstcudasemaphore.c (the
 * object, signals and waits, destruction), gstcudasemaphore-import.c (fd and
 * NvSciSync imports) and gstcudasemaphore-nvsci.c (NvSciSync fences).
 */
#pragma once

#include "gstcudasync-private.h"

G_BEGIN_DECLS

GST_DEBUG_CATEGORY_EXTERN (gst_cuda_semaphore_debug);

/* Initialises gst_cuda_semaphore_debug, once (gstcudasemaphore.c) */
G_GNUC_INTERNAL
void _gst_cuda_semaphore_init_debug (void);

typedef struct
{
  CUstream stream;
  CUevent event;
} StreamEvent;

struct _GstCudaSemaphore
{
  GstObject parent;

  GstCudaContext *context;
  GstCudaSemaphoreHandleType type;
  CUexternalSemaphore handle;

  /* serialises every operation, so that enqueue order is value order */
  GMutex op_lock;
  guint64 last_value;
  /* the last value this object signalled (last_value may be above it:
   * gst_cuda_semaphore_advance_to()); what its own GPU waits wait for */
  guint64 last_signalled;
  gboolean has_signalled;
  CUstream last_signal_stream;
  gboolean has_waited;
  CUstream last_wait_stream;
  gboolean binary_pending;
  /* NvSciSync: pass the SKIP_NVSCIBUF_MEMSYNC flags */
  gboolean skip_nvscibuf_memsync;
  /* last operation on each stream this semaphore was used on */
  GArray *stream_events;
  /* an operation was enqueued but no event records it (record_op()
   * failed): destruction synchronises the context instead */
  gboolean untracked_ops;
};

typedef enum
{
  OP_SIGNAL,
  OP_WAIT,
} OpKind;

/* A new semaphore object for an imported @handle (gstcudasemaphore-import.c) */
G_GNUC_INTERNAL
GstCudaSemaphore * _gst_cuda_semaphore_new (GstCudaContext * context,
    GstCudaSemaphoreHandleType type, CUexternalSemaphore handle);

/* Drops @self from the fd imports (gstcudasemaphore-import.c), in its
 * finalize */
G_GNUC_INTERNAL
void _gst_cuda_semaphore_forget_fd (GstCudaSemaphore * self);

/* Enqueues one signal or wait. Call with op_lock held (gstcudasemaphore.c). */
G_GNUC_INTERNAL
gboolean _gst_cuda_semaphore_enqueue_locked (GstCudaSemaphore * self,
    OpKind kind, CUstream stream, guint64 value, guint8 * fence, guint flags,
    GError ** error);

/* %FALSE (with @error) unless @sem is an NvSciSync semaphore exactly when
 * @want_nvsci (gstcudasemaphore.c) */
G_GNUC_INTERNAL
gboolean _gst_cuda_semaphore_check_nvsci (GstCudaSemaphore * sem,
    gboolean want_nvsci, GError ** error);

/* The error of a failed NvSciSync signal or wait (gstcudasemaphore-nvsci.c) */
G_GNUC_INTERNAL
void _gst_cuda_semaphore_nvsci_op_failed (CUresult r, OpKind kind,
    GError ** error);

G_END_DECLS

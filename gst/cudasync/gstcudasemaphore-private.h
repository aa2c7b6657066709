/* gst-cudasync
 * Copyright (C) 2026 gst-cudasync developers
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * GstCudaSemaphore's parts, private to the library, from the bottom up
 * (a file calls only into the files above it in this list, and into the
 * loader and the deferred destruction):
 *
 * - gstcudasemaphore-streams.c: the debug category, and the events that
 *   track the last operation on each stream;
 * - gstcudasemaphore-registry.c: the semaphores imported from fds that are
 *   alive;
 * - gstcudasemaphore-timeline.c, -binary.c, -nvsci.c: what differs between
 *   handle types, one #GstCudaSemaphoreTypeOps table each;
 * - gstcudasemaphore.c: the object, its type table, signals and waits
 *   (dispatched through the tables), destruction;
 * - gstcudasemaphore-import.c (fd and NvSciSync imports) and
 *   gstcudasemaphore-fences.c (NvSciSync fence signals and waits).
 */
#pragma once

#include "gstcudasync-private.h"
#include "gstcudasemaphore-fd.h"

G_BEGIN_DECLS

GST_DEBUG_CATEGORY_EXTERN (gst_cuda_semaphore_debug);

typedef struct
{
  CUstream stream;
  CUevent event;
} StreamEvent;

typedef struct _GstCudaSemaphoreTypeOps GstCudaSemaphoreTypeOps;

struct _GstCudaSemaphore
{
  GstObject parent;

  GstCudaContext *context;
  GstCudaSemaphoreHandleType type;
  const GstCudaSemaphoreTypeOps *ops;
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

/* NvSciSyncFence (uint64_t payload[6]) storage with the alignment the
 * driver expects, whatever the caller's bytes have */
typedef guint64 GstCudaSemaphoreFence[GST_CUDA_NVSCI_FENCE_SIZE / 8];

/**
 * GstCudaSemaphoreTypeOps: (skip)
 *
 * What differs between the handle types: one table per type, which
 * gstcudasemaphore.c dispatches to. A new handle type is a new table (and
 * a new value of the public enum). The functions are called with op_lock
 * held; those that enqueue work, with the context pushed too. A %NULL
 * function does nothing (returns 0 or %TRUE).
 */
struct _GstCudaSemaphoreTypeOps
{
  GstCudaSemaphoreHandleType type;
  const gchar *enum_name;       /* the public enum value's name */
  const gchar *flag_name;       /* the public flag's name */
  const gchar *nick;            /* GEnum and GFlags nick */
  const gchar *name;            /* in messages */
  CUexternalSemaphoreHandleType cu_type;
  /* imported from an fd (gst_cuda_semaphore_import_fd()) */
  gboolean from_fd;
  /* carries a 64-bit timeline value (gst_cuda_semaphore_is_timeline()) */
  gboolean timeline;
  /* signals and waits go through NvSciSync fences, not values */
  gboolean fences;
  /* one wait consumes one signal: the signal must be waited for before
   * the next (gst_cuda_semaphore_mark_waited()) */
  gboolean one_wait_per_signal;
  /* signals record an event, so that destruction waits for them */
  gboolean signal_records_event;

  /* The value of the next gst_cuda_semaphore_signal(), or %FALSE with
   * @error when the semaphore may not be signalled now */
  gboolean (*reserve_signal) (GstCudaSemaphore * self, guint64 * value,
      GError ** error);
  /* Orders a signal on @stream after what must run before it */
  gboolean (*order_signal) (GstCudaSemaphore * self, CUstream stream,
      GError ** error);
  /* The driver flags of an operation, from the caller's @flags */
  guint (*op_flags) (GstCudaSemaphore * self, OpKind kind,
      GstCudaSyncFlags flags);
  /* Fills the payload of a signal's parameters (@value, or the fence the
   * driver writes into @storage) */
  void (*fill_signal) (CUDA_EXTERNAL_SEMAPHORE_SIGNAL_PARAMS * params,
      guint64 value, GstCudaSemaphoreFence storage);
  /* Fills the payload of a wait's parameters (@value, or @fence copied
   * into @storage) */
  void (*fill_wait) (CUDA_EXTERNAL_SEMAPHORE_WAIT_PARAMS * params,
      guint64 value, const guint8 * fence, GstCudaSemaphoreFence storage);
  /* The error of a failed signal or wait (%NULL: the driver's result) */
  void (*op_failed) (CUresult r, OpKind kind, GError ** error);
  /* After a signal of @value was enqueued; hands the fence the driver
   * wrote into @storage out to @fence */
  void (*signalled) (GstCudaSemaphore * self, guint64 value,
      const GstCudaSemaphoreFence storage, guint8 * fence);
  /* After a wait was enqueued */
  void (*waited) (GstCudaSemaphore * self);
  /* At destruction, with the context not pushed: adds to @events what
   * covers the work no event records; %FALSE when the context must be
   * synchronised instead */
  gboolean (*pending_work) (GstCudaSemaphore * self, GArray * events);
};

/* Traits of @sem's type; none for an object that was never imported */
static inline gboolean
_gst_cuda_semaphore_has_fences (GstCudaSemaphore * sem)
{
  return sem->ops && sem->ops->fences;
}

static inline gboolean
_gst_cuda_semaphore_one_wait_per_signal (GstCudaSemaphore * sem)
{
  return sem->ops && sem->ops->one_wait_per_signal;
}

/* gstcudasemaphore-streams.c */

/* Initialises gst_cuda_semaphore_debug, once */
G_GNUC_INTERNAL
void _gst_cuda_semaphore_init_debug (void);

/* The event of the last operation on @stream, or NULL. Call with op_lock
 * and the context pushed. */
G_GNUC_INTERNAL
StreamEvent * _gst_cuda_semaphore_find_stream_event (GstCudaSemaphore * self,
    CUstream stream);

/* Records the operation just enqueued on @stream, so that destruction
 * waits for it. Call with op_lock and the context pushed. */
G_GNUC_INTERNAL
gboolean _gst_cuda_semaphore_record_op (GstCudaSemaphore * self,
    CUstream stream, GError ** error);

/* Makes @stream wait for the last operation recorded on @other, if any
 * and if it is another stream. Call with op_lock and the context
 * pushed. */
G_GNUC_INTERNAL
gboolean _gst_cuda_semaphore_order_after (GstCudaSemaphore * self,
    CUstream stream, CUstream other, GError ** error);

/* gstcudasemaphore-registry.c: the semaphores imported from fds. The
 * registry lock is held across an import, never together with a
 * semaphore's op_lock. */

G_GNUC_INTERNAL
void _gst_cuda_semaphore_registry_lock (void);

G_GNUC_INTERNAL
void _gst_cuda_semaphore_registry_unlock (void);

/* The live object imported from the semaphore @fd (whose identity is
 * @id) names, a new reference, or NULL. Call with the registry lock. */
G_GNUC_INTERNAL
GstCudaSemaphore * _gst_cuda_semaphore_registry_find_locked (
    const GstCudaFdId * id, gint fd);

/* Remembers that @sem was imported from the fd @id was read from; takes
 * @id (kept: _gst_cuda_fd_id_keep()) over. Call with the registry lock. */
G_GNUC_INTERNAL
void _gst_cuda_semaphore_registry_add_locked (GstCudaSemaphore * sem,
    GstCudaFdId * id);

/* Drops @sem from the registry (its finalize): a new import of that
 * semaphore makes a new object from now on */
G_GNUC_INTERNAL
void _gst_cuda_semaphore_registry_remove (GstCudaSemaphore * sem);

/* Whether @value may be @sem's next timeline value (above its last);
 * GST_CUDA_SYNC_ERROR_PROTOCOL otherwise. Call with op_lock. */
G_GNUC_INTERNAL
gboolean _gst_cuda_semaphore_check_next_locked (GstCudaSemaphore * sem,
    guint64 value, GError ** error);

/* A new duplicate of the fd @sem was imported from (the caller's to
 * close), or -1 where @sem was not imported from an fd */
G_GNUC_INTERNAL
gint _gst_cuda_semaphore_registry_dup_fd (GstCudaSemaphore * sem);

/* @fd imported as @ops's type into @context as an object of its own,
 * outside the registry (on success @fd is no longer the caller's): a
 * second handle of a semaphore that has its object, for a rescue */
G_GNUC_INTERNAL
GstCudaSemaphore * _gst_cuda_semaphore_import_unregistered (
    GstCudaContext * context, const GstCudaSemaphoreTypeOps * ops, gint fd,
    GError ** error);

/* the handle types */
G_GNUC_INTERNAL extern const GstCudaSemaphoreTypeOps
    _gst_cuda_semaphore_timeline_ops;
G_GNUC_INTERNAL extern const GstCudaSemaphoreTypeOps
    _gst_cuda_semaphore_binary_ops;
G_GNUC_INTERNAL extern const GstCudaSemaphoreTypeOps
    _gst_cuda_semaphore_nvsci_ops;

/* gstcudasemaphore.c */

/* The table of @type, or NULL for an unknown type */
G_GNUC_INTERNAL
const GstCudaSemaphoreTypeOps * _gst_cuda_semaphore_get_type_ops (
    GstCudaSemaphoreHandleType type);

/* The flags of every handle type the library has a table for */
G_GNUC_INTERNAL
GstCudaSemaphoreHandleTypeFlags _gst_cuda_semaphore_all_type_flags (void);

/* A new semaphore object for an imported @handle */
G_GNUC_INTERNAL
GstCudaSemaphore * _gst_cuda_semaphore_new (GstCudaContext * context,
    const GstCudaSemaphoreTypeOps * ops, CUexternalSemaphore handle);

/* Enqueues one signal or wait. Call with op_lock held. */
G_GNUC_INTERNAL
gboolean _gst_cuda_semaphore_enqueue_locked (GstCudaSemaphore * self,
    OpKind kind, CUstream stream, guint64 value, guint8 * fence,
    GstCudaSyncFlags flags, GError ** error);

/* %FALSE (with @error) unless @sem signals and waits through fences
 * exactly when @want_fences */
G_GNUC_INTERNAL
gboolean _gst_cuda_semaphore_check_fences (GstCudaSemaphore * sem,
    gboolean want_fences, GError ** error);

G_END_DECLS

/* gst-cudasync
 * Copyright (C) 2026 gst-cudasync developers
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The library's API for the project's own elements, tools and tests, as
 * upstream's gstcuda-private.h: not installed, not introspected, not in
 * the API reference, and free to change. The symbols are exported from
 * the shared library (the plugin links against it); in-tree users reach
 * this header through the gstcudasync_internal_dep meson dependency.
 * Applications use <gst/cudasync/cudasync.h>.
 *
 * CUDA events (GstCudaSyncEvent), memory imported from another API's fd
 * (GstCudaSyncExternalMemory), the device UUID, CUresult helpers and the
 * releaser thread (GstCudaSyncReleaser): the driver calls of the
 * project's elements that GStreamer 1.22's libgstcuda does not wrap.
 */
#pragma once

#include <gst/cudasync/cudasync.h>
#include <gst/cuda/gstcudacontext.h>
#include <gst/video/video.h>
#include <cuda.h>

G_BEGIN_DECLS

/**
 * GstCudaSyncEventStatus:
 * @GST_CUDA_SYNC_EVENT_COMPLETE: the work recorded before the event has
 *   completed (or nothing was recorded)
 * @GST_CUDA_SYNC_EVENT_PENDING: it has not completed yet
 * @GST_CUDA_SYNC_EVENT_ERROR: the driver could not tell (the error is set);
 *   never to be taken as complete
 *
 * What gst_cuda_sync_event_query() found.
 *
 * Since: 0.2
 */
typedef enum
{
  GST_CUDA_SYNC_EVENT_COMPLETE,
  GST_CUDA_SYNC_EVENT_PENDING,
  GST_CUDA_SYNC_EVENT_ERROR,
} GstCudaSyncEventStatus;

typedef struct _GstCudaSyncEvent GstCudaSyncEvent;

#define GST_TYPE_CUDA_SYNC_EVENT (gst_cuda_sync_event_get_type ())
GST_CUDA_SYNC_API
GType              gst_cuda_sync_event_get_type (void);

GST_CUDA_SYNC_API
GstCudaSyncEvent * gst_cuda_sync_event_new      (GstCudaContext * context,
                                                 gboolean blocking_sync,
                                                 GError ** error);
GST_CUDA_SYNC_API
GstCudaSyncEvent * gst_cuda_sync_event_ref      (GstCudaSyncEvent * event);
GST_CUDA_SYNC_API
void               gst_cuda_sync_event_unref    (GstCudaSyncEvent * event);

GST_CUDA_SYNC_API
gboolean           gst_cuda_sync_event_record   (GstCudaSyncEvent * event,
                                                 CUstream stream,
                                                 GError ** error);
GST_CUDA_SYNC_API
GstCudaSyncEventStatus gst_cuda_sync_event_query (GstCudaSyncEvent * event,
                                                 GError ** error);
GST_CUDA_SYNC_API
gboolean           gst_cuda_sync_event_wait_cpu (GstCudaSyncEvent * event,
                                                 GError ** error);
GST_CUDA_SYNC_API
gboolean           gst_cuda_sync_event_wait_gpu (GstCudaSyncEvent * event,
                                                 CUstream stream,
                                                 GError ** error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (GstCudaSyncEvent, gst_cuda_sync_event_unref)

typedef struct _GstCudaSyncExternalMemory GstCudaSyncExternalMemory;

GST_CUDA_SYNC_API
GstCudaSyncExternalMemory * gst_cuda_sync_external_memory_import_fd (GstCudaContext * context,
                                                 gint fd,
                                                 guint64 size,
                                                 gboolean dedicated,
                                                 GError ** error);
GST_CUDA_SYNC_API
CUdeviceptr        gst_cuda_sync_external_memory_get_pointer (GstCudaSyncExternalMemory * mem);
GST_CUDA_SYNC_API
void               gst_cuda_sync_external_memory_free (GstCudaSyncExternalMemory * mem);

/**
 * GstCudaSyncVmm:
 *
 * A CUDA virtual-memory allocation (`cuMemCreate`) that can be shared with
 * other processes as a POSIX fd, mapped read-write into one context; or an
 * import of such an fd. Internal API (gstcudasyncvmm.c).
 */
typedef struct _GstCudaSyncVmm GstCudaSyncVmm;

GST_CUDA_SYNC_API
gsize              gst_cuda_sync_vmm_round_size (GstCudaContext * context,
                                                 gsize size,
                                                 GError ** error);
GST_CUDA_SYNC_API
GstCudaSyncVmm *   gst_cuda_sync_vmm_new        (GstCudaContext * context,
                                                 gsize size,
                                                 GError ** error);
GST_CUDA_SYNC_API
GstCudaSyncVmm *   gst_cuda_sync_vmm_import_fd  (GstCudaContext * context,
                                                 gint fd,
                                                 gsize size,
                                                 GError ** error);
GST_CUDA_SYNC_API
gint               gst_cuda_sync_vmm_export_fd  (GstCudaSyncVmm * vmm,
                                                 GError ** error);
GST_CUDA_SYNC_API
CUdeviceptr        gst_cuda_sync_vmm_get_pointer (GstCudaSyncVmm * vmm);
GST_CUDA_SYNC_API
gsize              gst_cuda_sync_vmm_get_size   (GstCudaSyncVmm * vmm);
GST_CUDA_SYNC_API
void               gst_cuda_sync_vmm_free       (GstCudaSyncVmm * vmm);

/* A GstCudaMemory (no stream) around @ptr, which the caller owns, laid out
 * as @info; @notify (@user_data) runs, on whatever thread frees it, when it
 * is freed. NULL where GStreamer cannot wrap device memory (1.22). */
GST_CUDA_SYNC_API
gboolean           gst_cuda_sync_memory_can_wrap (void);
GST_CUDA_SYNC_API
GstMemory *        gst_cuda_sync_memory_wrap    (GstCudaContext * context,
                                                 const GstVideoInfo * info,
                                                 CUdeviceptr ptr,
                                                 gpointer user_data,
                                                 GDestroyNotify notify);

GST_CUDA_SYNC_API
gboolean           gst_cuda_sync_context_get_uuid (GstCudaContext * context,
                                                 guint8 uuid[16],
                                                 GError ** error);

GST_CUDA_SYNC_API
gboolean           gst_cuda_sync_context_synchronize (GstCudaContext * context,
                                                 GError ** error);

GST_CUDA_SYNC_API
gboolean           gst_cuda_sync_check_result   (CUresult result,
                                                 const gchar * call,
                                                 GError ** error);
GST_CUDA_SYNC_API
const gchar *      gst_cuda_sync_result_name    (CUresult result);

/**
 * GstCudaSyncReleaseFunc: (skip)
 * @data: the data given to gst_cuda_sync_releaser_push()
 * @error: (nullable): %NULL once the GPU work recorded in the event has
 *   completed; else why the driver could not tell (what @data stands for
 *   may then still be in use by the GPU: keep it or leak it, never reuse
 *   it)
 *
 * Called on the releaser's thread, in push order.
 *
 * Since: 0.2
 */
typedef void (*GstCudaSyncReleaseFunc) (gpointer data, const GError * error);

typedef struct _GstCudaSyncReleaser GstCudaSyncReleaser;

GST_CUDA_SYNC_API
GstCudaSyncReleaser * gst_cuda_sync_releaser_new  (const gchar * name);

GST_CUDA_SYNC_API
void                  gst_cuda_sync_releaser_push (GstCudaSyncReleaser * releaser,
                                                   GstCudaSyncEvent * event,
                                                   GstCudaSyncReleaseFunc func,
                                                   gpointer data);

GST_CUDA_SYNC_API
gboolean              gst_cuda_sync_releaser_push_after (GstCudaSyncReleaser * releaser,
                                                   GstCudaContext * context,
                                                   CUstream stream,
                                                   GstCudaSyncReleaseFunc func,
                                                   gpointer data,
                                                   GError ** error);

GST_CUDA_SYNC_API
void                  gst_cuda_sync_releaser_free (GstCudaSyncReleaser * releaser);

/* Signals the timeline semaphore @sem, imported from an fd, to @value
 * from a CUDA context of the library's own on @sem's device, and returns
 * once the signal ran: for ending GPU waits that a vanished peer will
 * never satisfy. A stream of @sem's context could not be trusted with
 * it: the driver feeds a context's streams to the GPU through a few
 * hardware queues (CUDA_DEVICE_MAX_CONNECTIONS), each in enqueue order,
 * and a stream that waits behind those very values may hold up the
 * queue of any other stream of the context. For a semaphore that only
 * the peer signals: signals of @sem still pending on the GPU would run
 * after the rescue, with lower values. Values of @sem's own later signals
 * go on above @value. FALSE (GST_CUDA_SYNC_ERROR_NOT_SUPPORTED)
 * for a semaphore not imported from an fd, or a binary one. */
GST_CUDA_SYNC_API
gboolean           gst_cuda_semaphore_rescue    (GstCudaSemaphore * sem,
                                                 guint64 value,
                                                 GError ** error);

/* What helpers that know no element report, for the element to post: a
 * GError of a GStreamer error domain (GST_RESOURCE_ERROR, ...) and code,
 * whose message is the human sentence of the element error, then, after a
 * line break, its debug details if there are any. @text and @details are
 * in parentheses, printf-style, as for GST_ELEMENT_ERROR(); (NULL) text
 * means the domain's default message. */
#define GST_CUDA_SYNC_SET_ERROR(error, domain, code, text, details) \
  G_STMT_START { \
    gchar *__txt = _gst_element_error_printf text; \
    gchar *__dbg = _gst_element_error_printf details; \
    gst_cuda_sync_take_error (error, GST_ ## domain ## _ERROR, \
        GST_ ## domain ## _ERROR_ ## code, __txt, __dbg); \
  } G_STMT_END

GST_CUDA_SYNC_API
void               gst_cuda_sync_take_error     (GError ** error,
                                                 GQuark domain, gint code,
                                                 gchar * text,
                                                 gchar * details);

G_END_DECLS

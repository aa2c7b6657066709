/* gst-cudasync
 * Copyright (C) 2026 gst-cudasync developers
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <gst/cudasync/cudasync-prelude.h>
#include <gst/cudasync/gstcudasyncevent.h>

G_BEGIN_DECLS

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
void                  gst_cuda_sync_releaser_free (GstCudaSyncReleaser * releaser);

G_END_DECLS

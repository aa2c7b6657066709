/* gst-cudasync
 * Copyright (C) 2026 gst-cudasync developers
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The one mapping of the library's errors to element errors, for every
 * element of the plugin. Not installed.
 */
#pragma once

#include <gst/gst.h>
#include <gst/cuda/gstcudacontext.h>
#include <gst/cudasync/gstcudasync-internal.h>

G_BEGIN_DECLS

void gst_cuda_sync_element_post_error (GstElement * element, GError * error,
    const gchar * what, const gchar * file, const gchar * function, gint line);

/* Posts an element error whose message is @what (a human sentence) and
 * whose debug string is @error's text (the call and the CUresult, ...).
 * Takes @error. */
#define GST_CUDA_SYNC_ELEMENT_ERROR(element, error, what) \
  gst_cuda_sync_element_post_error (GST_ELEMENT (element), error, what, \
      __FILE__, GST_FUNCTION, __LINE__)

/* GST_CUDA_SYNC_SET_ERROR() (helpers that know no element): the library's
 * internal API, gstcudasync-internal.h */

/* For helpers that know no element: @cause (taken; nullable: "unknown
 * error") as the GError the element posts with
 * GST_CUDA_SYNC_ELEMENT_ERROR_FROM(): @what (a human sentence) as its
 * text, @cause's message as its details, and the domain and code that
 * GST_CUDA_SYNC_ELEMENT_ERROR() gives @cause */
void gst_cuda_sync_wrap_error (GError ** error, GError * cause,
    const gchar * what);

void gst_cuda_sync_element_post_gerror (GstElement * element, GError * error,
    const gchar * file, const gchar * function, gint line);

/* Posts @error, made by GST_CUDA_SYNC_SET_ERROR(), as an element error on
 * @element: its domain and code, its text and its details. Takes @error. */
#define GST_CUDA_SYNC_ELEMENT_ERROR_FROM(element, error) \
  gst_cuda_sync_element_post_gerror (GST_ELEMENT (element), error, \
      __FILE__, GST_FUNCTION, __LINE__)

/* TRUE when @mem is CUDA memory of @context; otherwise posts the element
 * error (not CUDA memory, or another context, naming both devices) */
gboolean gst_cuda_sync_element_check_memory (GstElement * element,
    GstMemory * mem, GstCudaContext * context);

G_END_DECLS

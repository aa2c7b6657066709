/* gst-cudasync
 * Copyright (C) 2026 gst-cudasync developers
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstcudasyncelementerror.h"
#include <gst/cudasync/gstcudasync-internal.h>
#include <gst/cuda/gstcudamemory.h>
#include <string.h>

/* GstCudaSyncError code -> GStreamer error domain and code:
 * no driver or device: the resource is not found; a handle that is not a
 * semaphore or belongs to another device: the settings are wrong; a
 * protocol violation or an unsupported operation: the stream cannot go on;
 * a failed driver call and everything else: the resource failed. */
static void
map_error (const GError * error, GQuark * domain, gint * code)
{
  gint c = error && error->domain == GST_CUDA_SYNC_ERROR ? error->code :
      GST_CUDA_SYNC_ERROR_FAILED;

  *domain = GST_RESOURCE_ERROR;
  switch (c) {
    case GST_CUDA_SYNC_ERROR_NO_DRIVER:
      *code = GST_RESOURCE_ERROR_NOT_FOUND;
      break;
    case GST_CUDA_SYNC_ERROR_INVALID_HANDLE:
    case GST_CUDA_SYNC_ERROR_WRONG_DEVICE:
      *code = GST_RESOURCE_ERROR_SETTINGS;
      break;
    case GST_CUDA_SYNC_ERROR_PROTOCOL:
    case GST_CUDA_SYNC_ERROR_NOT_SUPPORTED:
      *domain = GST_STREAM_ERROR;
      *code = GST_STREAM_ERROR_FAILED;
      break;
    default:
      *code = GST_RESOURCE_ERROR_FAILED;
      break;
  }
}

void
gst_cuda_sync_element_post_error (GstElement * element, GError * error,
    const gchar * what, const gchar * file, const gchar * function, gint line)
{
  GQuark domain;
  gint code;

  map_error (error, &domain, &code);
  gst_element_message_full (element, GST_MESSAGE_ERROR, domain, code,
      g_strdup (what), g_strdup (error ? error->message : "unknown error"),
      file, function, line);
  g_clear_error (&error);
}

void
gst_cuda_sync_wrap_error (GError ** error, GError * cause, const gchar * what)
{
  GQuark domain;
  gint code;

  map_error (cause, &domain, &code);
  gst_cuda_sync_take_error (error, domain, code, g_strdup (what),
      g_strdup (cause ? cause->message : "unknown error"));
  g_clear_error (&cause);
}

static gboolean
is_gst_error_domain (GQuark domain)
{
  return domain == GST_CORE_ERROR || domain == GST_LIBRARY_ERROR ||
      domain == GST_RESOURCE_ERROR || domain == GST_STREAM_ERROR;
}

void
gst_cuda_sync_element_post_gerror (GstElement * element, GError * error,
    const gchar * file, const gchar * function, gint line)
{
  const gchar *msg = error ? error->message : "unknown error";
  const gchar *nl = strchr (msg, '\n');
  GQuark domain;
  gint code;

  if (error && is_gst_error_domain (error->domain)) {
    domain = error->domain;
    code = error->code;
  } else {
    map_error (error, &domain, &code);
  }
  gst_element_message_full (element, GST_MESSAGE_ERROR, domain, code,
      nl ? g_strndup (msg, nl - msg) : g_strdup (msg),
      nl ? g_strdup (nl + 1) : NULL, file, function, line);
  g_clear_error (&error);
}

gboolean
gst_cuda_sync_element_check_memory (GstElement * element, GstMemory * mem,
    GstCudaContext * context)
{
  guint dev = 0, own = 0;

  if (!gst_is_cuda_memory (mem)) {
    GST_ELEMENT_ERROR (element, STREAM, FORMAT,
        ("Buffer memory is not CUDA memory (allocator %s); caps promise "
            "memory:CUDAMemory", mem->allocator ?
            mem->allocator->mem_type : "none"), (NULL));
    return FALSE;
  }
  if (GST_CUDA_MEMORY_CAST (mem)->context == context)
    return TRUE;
  g_object_get (GST_CUDA_MEMORY_CAST (mem)->context, "cuda-device-id", &dev,
      NULL);
  g_object_get (context, "cuda-device-id", &own, NULL);
  GST_ELEMENT_ERROR (element, STREAM, FORMAT,
      ("Buffer memory belongs to another CUDA context (device %u) than the "
          "element's (device %u)", dev, own),
      ("share one GstCudaContext per device in the pipeline, or make the "
          "upstream element use device %u", own));
  return FALSE;
}

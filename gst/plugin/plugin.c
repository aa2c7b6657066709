/* gst-cudasync
 * Copyright (C) 2026 gst-cudasync developers
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
/**
 * plugin-cudasync:
 *
 * Elements that hand CUDA buffers between GPU APIs with external
 * semaphores instead of CPU synchronisation.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <gst/gst.h>
#include "semaphore/gstcudasemsignal.h"
#include "semaphore/gstcudasemwait.h"
#include "ipc/gstcudasyncipcsink.h"
#include "ipc/gstcudasyncipcsrc.h"
#ifdef HAVE_CUDA_VULKAN
#include "vulkan/gstcudatovulkan.h"
#include "vulkan/gstvulkantocuda.h"
#endif

static gboolean
plugin_init (GstPlugin * plugin)
{
  gboolean ret = FALSE;
  guint major, minor, micro, nano;

  /* Built per GStreamer minor version: 1.24 changed the layout of the Vulkan
   * memory structures the bridge elements fill in, and the CUDA stream
   * contract differs between 1.22 and 1.24+. GStreamer itself loads plugins
   * built against an older minor version, so refuse here. */
  gst_version (&major, &minor, &micro, &nano);
  if (major != GST_VERSION_MAJOR || minor != GST_VERSION_MINOR) {
    GST_ERROR ("gst-cudasync was built against GStreamer %d.%d and cannot "
        "run with GStreamer %u.%u: rebuild it against this version",
        GST_VERSION_MAJOR, GST_VERSION_MINOR, major, minor);
    return FALSE;
  }

  /* Elements register even without a driver; they report a clear error
   * when started without one. */
  ret |= GST_ELEMENT_REGISTER (cudasemsignal, plugin);
  ret |= GST_ELEMENT_REGISTER (cudasemwait, plugin);
  ret |= GST_ELEMENT_REGISTER (cudasyncipcsink, plugin);
  ret |= GST_ELEMENT_REGISTER (cudasyncipcsrc, plugin);
#ifdef HAVE_CUDA_VULKAN
  ret |= GST_ELEMENT_REGISTER (cudatovulkan, plugin);
  ret |= GST_ELEMENT_REGISTER (vulkantocuda, plugin);
#endif

  return ret;
}

GST_PLUGIN_DEFINE (GST_VERSION_MAJOR, GST_VERSION_MINOR, cudasync,
    "CUDA external-semaphore synchronisation elements", plugin_init, VERSION,
    GST_LICENSE, GST_PACKAGE_NAME, GST_PACKAGE_ORIGIN)

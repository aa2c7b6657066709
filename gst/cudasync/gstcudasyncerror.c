/* gst-cudasync
 * Copyright (C) 2026 gst-cudasync developers
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * GST_CUDA_SYNC_SET_ERROR() (gstcudasync-internal.h): the errors of
 * helpers that know no element, in GStreamer's error domains, for the
 * element that calls them to post.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstcudasync-internal.h"

void
gst_cuda_sync_take_error (GError ** error, GQuark domain, gint code,
    gchar * text, gchar * details)
{
  if (!text)
    text = gst_error_get_message (domain, code);
  if (details)
    g_set_error (error, domain, code, "%s\n%s", text, details);
  else
    g_set_error_literal (error, domain, code, text);
  g_free (text);
  g_free (details);
}

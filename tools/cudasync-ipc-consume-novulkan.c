/* gst-cudasync
 * Copyright (C) 2026 gst-cudasync developers
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * cudasync-ipc-consume --vulkan where the build has no Vulkan: it says so.
 */
#include "cudasync-ipc-consume.h"

static gboolean
no_vulkan (const guint8 uuid[16], guint8 ours[16])
{
  return consume_fail ("built without Vulkan: --vulkan is not available");
}

const ConsumeBackend consume_vulkan = {
  "Vulkan", no_vulkan, NULL, NULL, NULL, NULL, NULL, NULL
};

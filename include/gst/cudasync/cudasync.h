/* gst-cudasync
 * Copyright (C) 2026 gst-cudasync developers
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <gst/cudasync/cudasync-prelude.h>
#include <gst/cudasync/gstcudasyncerror.h>
#include <gst/cudasync/gstcudasemaphore.h>
#include <gst/cudasync/gstcudasyncmeta.h>
#include <gst/cudasync/gstcudasyncmemory.h>

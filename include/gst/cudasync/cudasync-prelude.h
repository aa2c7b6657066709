/* gst-cudasync
 * Copyright (C) 2026 gst-cudasync developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */
#pragma once

#include <gst/gst.h>

#ifndef GST_USE_UNSTABLE_API
#define GST_USE_UNSTABLE_API
#endif

#ifndef GST_CUDA_SYNC_API
# ifdef BUILDING_GST_CUDA_SYNC
#  define GST_CUDA_SYNC_API __attribute__ ((visibility ("default"))) extern
# else
#  define GST_CUDA_SYNC_API extern
# endif
#endif

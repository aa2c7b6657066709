/* gst-cudasync
 * Copyright (C) 2026 gst-cudasync developers
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * What embed-kernel.py generates into bench-kernel.c at build time.
 */
#pragma once

#include <stddef.h>

/* nvcc's fatbin of spin.cu (sm_90 SASS + compute_75 PTX); size 0 when the
 * build had no working nvcc */
extern const unsigned char bench_kernel_fatbin[];
extern const size_t bench_kernel_fatbin_size;

/* spin.cu itself, for NVRTC at run time */
extern const char bench_kernel_source[];

/* how the fatbin was made, or why there is none */
extern const char bench_kernel_build_info[];

/* the kernel's name in spin.cu */
#define BENCH_KERNEL_NAME "bench_write_frame"

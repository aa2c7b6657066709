/* gst-cudasync
 * Copyright (C) 2026 gst-cudasync developers
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The GPU work of one benchmark frame (bench/bench-cuda.c, frame_write): busy-wait
 * for @spin_ns nanoseconds of GPU time, then write every visible 32-bit word
 * of up to two pitched planes (RGBA: one plane; NV12: Y and interleaved UV).
 *
 * Compiled at build time with nvcc into a fatbin (sm_90 SASS + compute_75
 * PTX) that bench-kernel.c embeds; the same text is compiled with NVRTC at
 * run time when the build had no working nvcc. No #include: NVRTC compiles
 * it as it is.
 *
 * Launch: 1-D grid of blocks (any size), 1-D blocks (any size). Block 0's
 * thread 0 spins, everything else writes rows in a grid-stride loop, so the
 * kernel lasts max(spin, write) regardless of the grid size.
 */

__device__ static __forceinline__ unsigned long long
bench_now_ns (void)
{
  unsigned long long t;

  asm volatile ("mov.u64 %0, %%globaltimer;" : "=l" (t));
  return t;
}

__device__ static __forceinline__ void
bench_fill_plane (unsigned long long base, unsigned long long pitch,
    unsigned int words, unsigned int rows, unsigned int seed)
{
  for (unsigned int y = blockIdx.x; y < rows; y += gridDim.x) {
    unsigned int *row = (unsigned int *) (base + (unsigned long long) y * pitch);

    for (unsigned int x = threadIdx.x; x < words; x += blockDim.x)
      row[x] = seed ^ (y * 0x9e3779b9u + x);
  }
}

extern "C" __global__ void
bench_write_frame (unsigned long long plane0, unsigned long long pitch0,
    unsigned int words0, unsigned int rows0,
    unsigned long long plane1, unsigned long long pitch1,
    unsigned int words1, unsigned int rows1,
    unsigned long long spin_ns, unsigned int seed)
{
  if (spin_ns != 0 && blockIdx.x == 0 && threadIdx.x == 0) {
    unsigned long long start = bench_now_ns ();

    while (bench_now_ns () - start < spin_ns) {
    }
  }

  bench_fill_plane (plane0, pitch0, words0, rows0, seed);
  if (rows1 != 0)
    bench_fill_plane (plane1, pitch1, words1, rows1, seed + 1u);
}

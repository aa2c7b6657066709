/* gst-cudasync
 * Copyright (C) 2026 gst-cudasync developers
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The table of the bench's scenarios and modes, given to the rest of the
 * bench through Bench: nothing else names a scenario's descriptor.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "bench.h"

extern const BenchScenario bench_scenario_1;
extern const BenchScenario bench_scenario_2;
extern const BenchScenario bench_scenario_3;
extern const BenchScenario bench_scenario_4;
extern const BenchScenario bench_scenario_5;
extern const BenchScenario bench_scenario_6;
extern const BenchScenario bench_scenario_7;
extern const BenchScenario bench_scenario_8;

/* scenario-2.c */
extern const BenchMode bench_mode_a, bench_mode_c;
/* scenario-3.c (the CUDA <-> Vulkan scenario), scenario-3-raw.c */
extern const BenchMode bench_mode_cv_a, bench_mode_cv_b,
    bench_mode_cv_ab, bench_mode_cv_ai, bench_mode_cv_as, bench_mode_cv_d,
    bench_mode_cv_d2, bench_mode_cv_d3, bench_mode_vc_a, bench_mode_vc_b,
    bench_mode_s5_a, bench_mode_s5_c, bench_mode_s6_am, bench_mode_s6_ao;

/* in the order they run and appear in the JSON document */
const BenchScenario *const bench_scenarios[] = {
  &bench_scenario_1,
  &bench_scenario_2,
  &bench_scenario_3,
  &bench_scenario_4,
  &bench_scenario_5,
  &bench_scenario_6,
  &bench_scenario_7,
  &bench_scenario_8,
  NULL
};

/* by their index in the results (ModeResult m[]) */
const BenchMode *const bench_modes[N_ALL_MODES] = {
  [MODE_A] = &bench_mode_a,
  [MODE_C] = &bench_mode_c,
  [MODE_CV_A] = &bench_mode_cv_a,
  [MODE_CV_B] = &bench_mode_cv_b,
  [MODE_CV_AB] = &bench_mode_cv_ab,
  [MODE_VC_A] = &bench_mode_vc_a,
  [MODE_VC_B] = &bench_mode_vc_b,
  [MODE_CV_D] = &bench_mode_cv_d,
  [MODE_CV_D2] = &bench_mode_cv_d2,
  [MODE_CV_D3] = &bench_mode_cv_d3,
  [MODE_S5_A] = &bench_mode_s5_a,
  [MODE_S5_C] = &bench_mode_s5_c,
  [MODE_S6_AM] = &bench_mode_s6_am,
  [MODE_S6_AO] = &bench_mode_s6_ao,
  [MODE_CV_AI] = &bench_mode_cv_ai,
  [MODE_CV_AS] = &bench_mode_cv_as,
};

/* gst-cudasync test helpers for the CUDA<->Vulkan bridge tests
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Validation: with CUDASYNC_TEST_VK_VALIDATION=1 (the meson test setup
 * "vkvalidation", which also loads the Khronos validation layer with
 * synchronization validation, see docs/testing.md), every pipeline and
 * harness of a test shares one Vulkan instance of the test's, with
 * VK_EXT_debug_utils enabled. The bridge elements name their Vulkan
 * objects "gst-cudasync ..." on such an instance, and a validation error
 * that names one of them fails the test in cs_vk_teardown(); the others
 * (upstream elements' own) are printed.
 */
#pragma once

#include <gst/check/gstcheck.h>

G_BEGIN_DECLS

/* main() of a bridge test: on the simulated driver, gives the simulated
 * device the UUID of the Vulkan device that shares memory (lavapipe), or
 * exits 77 (skipped) when there is none; then runs @suite. Not with a real
 * driver: the NVIDIA Vulkan driver must not be initialised before check
 * forks the tests (vkCreateDevice then fails in the children with
 * VK_ERROR_INITIALIZATION_FAILED, seen on the H200). */
int      cs_vk_run_suite        (Suite * suite, const gchar * name,
                                 const gchar * file);

/* The checked fixture of the bridge tests: cs_setup() and cs_teardown(),
 * plus the validation check */
void     cs_vk_setup            (void);
void     cs_vk_setup_two_devices (void);
void     cs_vk_teardown         (void);

/* gst_parse_launch() that gives the pipeline the test's Vulkan instance
 * when validating */
GstElement * cs_vk_parse_launch (const gchar * desc, GError ** error);

/* When validating: the validation errors so far on other objects than the
 * project's (upstream elements'), which cs_vk_teardown() only prints, for
 * a test that expects none; else 0 */
guint    cs_vk_other_errors     (void);

G_END_DECLS

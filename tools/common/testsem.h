/* gst-cudasync
 * Copyright (C) 2026 gst-cudasync developers
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * testsem: external semaphores created the way an application creates them,
 * for the tests and the demo.
 *
 * The same calls work on two drivers:
 *
 * - the simulated CUDA driver (tests/cudasim, a libcuda.so.1 that exports
 *   cudasim_* functions): the semaphores are the simulator's exporter-side
 *   objects (cudasim_sem_create() and friends);
 * - a real NVIDIA driver: the semaphores are Vulkan semaphores created on
 *   the Vulkan physical device whose deviceUUID equals CUDA device 0's UUID,
 *   exportable as OPAQUE_FD (timeline or binary).
 *
 * libcuda.so.1 is only ever loaded with dlopen(); nothing links it.
 *
 * The fds returned by test_sem_export_fd() are meant for
 * gst_cuda_semaphore_import_fd() with %GST_CUDA_SEMAPHORE_HANDLE_TYPE_TIMELINE_FD
 * (timeline semaphores) or %GST_CUDA_SEMAPHORE_HANDLE_TYPE_OPAQUE_FD (binary).
 *
 * All functions are thread-safe.
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef enum
{
  TEST_SEM_BACKEND_NONE,
  TEST_SEM_BACKEND_SIM,
  TEST_SEM_BACKEND_VULKAN,
} TestSemBackend;

/* Decided once per process (the first call does the work; later calls
 * return the cached result):
 * - SIM when the libcuda.so.1 found by dlopen() exports cudasim_sem_create;
 * - VULKAN when a Vulkan physical device whose deviceUUID equals CUDA device
 *   0's UUID (cuInit + cuDeviceGetUuid_v2) can export OPAQUE_FD timeline
 *   semaphores and the helper could open a Vulkan device on it;
 * - NONE otherwise (test_sem_backend_name() says why). */
TestSemBackend test_sem_backend      (void);

/* "simulated CUDA driver", "Vulkan (<device name>)" or "none: <reason>".
 * The string is owned by the helper and lives as long as the process. */
const char *   test_sem_backend_name (void);

typedef struct _TestSem TestSem;

/* A new semaphore: a timeline semaphore starting at @initial_value, or a
 * binary semaphore, signalled when @initial_value != 0 (Vulkan: created
 * unsignalled, then signalled with an empty queue submission).
 * Returns NULL, with a g_warning() saying why, when there is no backend or
 * the driver refused. */
TestSem *      test_sem_new          (gboolean timeline,
                                      guint64 initial_value);

/* TRUE for a timeline semaphore. */
gboolean       test_sem_is_timeline  (TestSem * s);

/* A new fd referring to the semaphore's payload on each call, or -1 (with a
 * g_warning()). The caller owns it (gst_cuda_semaphore_import_fd() takes it
 * over on success). Vulkan: vkGetSemaphoreFdKHR (OPAQUE_FD). */
int            test_sem_export_fd    (TestSem * s);

/* Signals from the host. Timeline: sets the value (must be greater than the
 * current one; vkSignalSemaphore). Binary: @value is ignored; on Vulkan an
 * empty vkQueueSubmit signals it. */
gboolean       test_sem_host_signal  (TestSem * s,
                                      guint64 value);

/* Timeline: the current counter value (vkGetSemaphoreCounterValue).
 * Binary: on the simulator 1 when signalled, 0 when not; Vulkan cannot read
 * a binary semaphore's state without consuming it, so it returns 0. */
guint64        test_sem_get_value    (TestSem * s);

/* Timeline: blocks until the value is >= @value or @timeout_ns passed
 * (G_MAXUINT64: forever); TRUE when reached (vkWaitSemaphores /
 * cudasim_sem_host_wait).
 * Binary (also supported): waits until signalled and consumes the signal.
 * On Vulkan the signal must already be enqueued (a binary semaphore cannot
 * be waited on before its signal is submitted). */
gboolean       test_sem_host_wait    (TestSem * s,
                                      guint64 value,
                                      guint64 timeout_ns);

/* Frees the helper's semaphore object. Imports made from exported fds keep
 * the payload alive on their own. NULL is allowed. */
void           test_sem_free         (TestSem * s);

/* An open fd (O_CLOEXEC) that is not a semaphore (a dup of /dev/null), for
 * error-path tests. The caller closes it. */
int            test_sem_foreign_fd   (void);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (TestSem, test_sem_free)

G_END_DECLS

/* gst-cudasync
 * Copyright (C) 2026 gst-cudasync developers
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * testsem: see testsem.h. This file chooses the backend and drives the
 * simulator's semaphores; the Vulkan backend is in testsem-vulkan.c.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#include "testsem-private.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include <cuda.h>

/* ---- the simulator's exporter API (see tests/cudasim/cudasim.h) ---- */

typedef int (*SimSemCreate) (int type, guint64 initial_value);
typedef int (*SimSemExportFd) (int id);
typedef int (*SimSemHostSignal) (int id, guint64 value);
typedef guint64 (*SimSemGetValue) (int id);
typedef int (*SimSemHostWait) (int id, guint64 value, guint64 timeout_ns);
typedef void (*SimSemUnref) (int id);

/* ---- CUDA driver entry points used to find the GPU ---- */

typedef CUresult (*TsCuInitFunc) (unsigned int flags);
typedef CUresult (*TsCuDeviceGetCountFunc) (int *count);
typedef CUresult (*TsCuDeviceGetFunc) (CUdevice * dev, int ordinal);
typedef CUresult (*TsCuDeviceGetUuidFunc) (CUuuid * uuid, CUdevice dev);

typedef struct
{
  TestSemBackend backend;
  gchar *name;

  /* SIM */
  SimSemCreate sim_create;
  SimSemExportFd sim_export_fd;
  SimSemHostSignal sim_signal;
  SimSemGetValue sim_get_value;
  SimSemHostWait sim_wait;
  SimSemUnref sim_unref;
} Backend;

static Backend be;

/* ------------------------------------------------------------------ */
/* backend choice                                                      */
/* ------------------------------------------------------------------ */

/* Returns NULL when a backend was chosen, else the reason. */
static gchar *
choose_backend (void)
{
  void *lib;

  /* The same library GStreamer's CUDA loader opens (by soname), so the
   * simulator's objects are shared with the pipeline. Never closed. */
  lib = dlopen ("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!lib)
    return g_strdup_printf ("libcuda.so.1 could not be loaded (%s)",
        dlerror ());

  be.sim_create = (SimSemCreate) dlsym (lib, "cudasim_sem_create");
  if (be.sim_create) {
    be.sim_export_fd = (SimSemExportFd) dlsym (lib, "cudasim_sem_export_fd");
    be.sim_signal = (SimSemHostSignal) dlsym (lib, "cudasim_sem_host_signal");
    be.sim_get_value = (SimSemGetValue) dlsym (lib, "cudasim_sem_get_value");
    be.sim_wait = (SimSemHostWait) dlsym (lib, "cudasim_sem_host_wait");
    be.sim_unref = (SimSemUnref) dlsym (lib, "cudasim_sem_unref");
    if (!be.sim_export_fd || !be.sim_signal || !be.sim_get_value ||
        !be.sim_wait || !be.sim_unref)
      return g_strdup ("the simulated CUDA driver lacks part of the "
          "cudasim_sem_* API");
    be.backend = TEST_SEM_BACKEND_SIM;
    be.name = g_strdup ("simulated CUDA driver");
    return NULL;
  }
#ifdef TESTSEM_HAVE_VULKAN
  {
    TsCuInitFunc cu_init = (TsCuInitFunc) dlsym (lib, "cuInit");
    TsCuDeviceGetCountFunc cu_count = (TsCuDeviceGetCountFunc) dlsym (lib,
        "cuDeviceGetCount");
    TsCuDeviceGetFunc cu_get = (TsCuDeviceGetFunc) dlsym (lib, "cuDeviceGet");
    TsCuDeviceGetUuidFunc cu_uuid = (TsCuDeviceGetUuidFunc) dlsym (lib,
        "cuDeviceGetUuid_v2");
    CUuuid uuid;
    CUdevice dev;
    CUresult r;
    int count = 0;
    const gchar *name;
    gchar *reason;

    if (!cu_uuid)
      cu_uuid = (TsCuDeviceGetUuidFunc) dlsym (lib, "cuDeviceGetUuid");
    if (!cu_init || !cu_count || !cu_get || !cu_uuid)
      return g_strdup ("libcuda.so.1 lacks cuInit, cuDeviceGetCount, "
          "cuDeviceGet or cuDeviceGetUuid");
    if ((r = cu_init (0)) != CUDA_SUCCESS)
      return g_strdup_printf ("cuInit failed (CUresult %d)", (int) r);
    if ((r = cu_count (&count)) != CUDA_SUCCESS || count < 1)
      return g_strdup_printf ("no CUDA device (cuDeviceGetCount: CUresult "
          "%d, %d devices)", (int) r, count);
    if ((r = cu_get (&dev, 0)) != CUDA_SUCCESS)
      return g_strdup_printf ("cuDeviceGet(0) failed (CUresult %d)", (int) r);
    memset (&uuid, 0, sizeof (uuid));
    if ((r = cu_uuid (&uuid, dev)) != CUDA_SUCCESS)
      return g_strdup_printf ("cuDeviceGetUuid failed (CUresult %d)", (int) r);

    reason = testsem_vk_setup ((const guint8 *) uuid.bytes, &name);
    if (reason)
      return reason;
    be.backend = TEST_SEM_BACKEND_VULKAN;
    be.name = g_strdup (name);
    return NULL;
  }
#else
  return g_strdup ("the CUDA driver is not the simulator, and this build "
      "has no Vulkan support (libvulkan-dev was not found)");
#endif
}

TestSemBackend
test_sem_backend (void)
{
  static gsize done = 0;

  if (g_once_init_enter (&done)) {
    gchar *reason = choose_backend ();

    if (reason) {
      be.backend = TEST_SEM_BACKEND_NONE;
      g_free (be.name);
      be.name = g_strdup_printf ("none: %s", reason);
      g_free (reason);
    }
    g_once_init_leave (&done, 1);
  }
  return be.backend;
}

const char *
test_sem_backend_name (void)
{
  test_sem_backend ();
  return be.name;
}

/* ------------------------------------------------------------------ */
/* semaphores                                                          */
/* ------------------------------------------------------------------ */

TestSem *
test_sem_new (gboolean timeline, guint64 initial_value)
{
  TestSem *s;

  switch (test_sem_backend ()) {
    case TEST_SEM_BACKEND_SIM:
      s = g_new0 (TestSem, 1);
      s->backend = TEST_SEM_BACKEND_SIM;
      s->timeline = !!timeline;
      s->sim_id = be.sim_create (timeline ? 1 : 0, initial_value);
      if (s->sim_id < 0) {
        g_warning ("testsem: cudasim_sem_create (%s, %" G_GUINT64_FORMAT
            ") failed", timeline ? "timeline" : "binary", initial_value);
        g_free (s);
        return NULL;
      }
      return s;
#ifdef TESTSEM_HAVE_VULKAN
    case TEST_SEM_BACKEND_VULKAN:
      s = g_new0 (TestSem, 1);
      s->backend = TEST_SEM_BACKEND_VULKAN;
      s->timeline = !!timeline;
      if (!testsem_vk_sem_new (s, initial_value)) {
        g_free (s);
        return NULL;
      }
      return s;
#endif
    default:
      g_warning ("testsem: cannot create a semaphore: %s", be.name);
      return NULL;
  }
}

gboolean
test_sem_is_timeline (TestSem * s)
{
  g_return_val_if_fail (s != NULL, FALSE);
  return s->timeline;
}

int
test_sem_export_fd (TestSem * s)
{
  int fd = -1;

  g_return_val_if_fail (s != NULL, -1);

  if (s->backend == TEST_SEM_BACKEND_SIM) {
    fd = be.sim_export_fd (s->sim_id);
    if (fd < 0)
      g_warning ("testsem: cudasim_sem_export_fd (%d) failed", s->sim_id);
  }
#ifdef TESTSEM_HAVE_VULKAN
  else if (s->backend == TEST_SEM_BACKEND_VULKAN)
    fd = testsem_vk_export_fd (s);
#endif
  return fd;
}

gboolean
test_sem_host_signal (TestSem * s, guint64 value)
{
  g_return_val_if_fail (s != NULL, FALSE);

  if (s->backend == TEST_SEM_BACKEND_SIM)
    return be.sim_signal (s->sim_id, value) == 0;

#ifdef TESTSEM_HAVE_VULKAN
  if (s->backend == TEST_SEM_BACKEND_VULKAN)
    return testsem_vk_host_signal (s, value);
#endif
  return FALSE;
}

guint64
test_sem_get_value (TestSem * s)
{
  g_return_val_if_fail (s != NULL, 0);

  if (s->backend == TEST_SEM_BACKEND_SIM)
    return be.sim_get_value (s->sim_id);

#ifdef TESTSEM_HAVE_VULKAN
  if (s->backend == TEST_SEM_BACKEND_VULKAN && s->timeline)
    return testsem_vk_get_value (s);
#endif
  return 0;
}

gboolean
test_sem_host_wait (TestSem * s, guint64 value, guint64 timeout_ns)
{
  g_return_val_if_fail (s != NULL, FALSE);

  if (s->backend == TEST_SEM_BACKEND_SIM)
    return be.sim_wait (s->sim_id, value, timeout_ns) == 0;

#ifdef TESTSEM_HAVE_VULKAN
  if (s->backend == TEST_SEM_BACKEND_VULKAN)
    return testsem_vk_host_wait (s, value, timeout_ns);
#endif
  return FALSE;
}

void
test_sem_free (TestSem * s)
{
  if (!s)
    return;

  if (s->backend == TEST_SEM_BACKEND_SIM)
    be.sim_unref (s->sim_id);
#ifdef TESTSEM_HAVE_VULKAN
  else if (s->backend == TEST_SEM_BACKEND_VULKAN && !testsem_vk_sem_free (s))
    return;                     /* still in use: leaked */
#endif
  g_free (s);
}

int
test_sem_foreign_fd (void)
{
  int fd = open ("/dev/null", O_RDWR | O_CLOEXEC);

  if (fd < 0)
    g_warning ("testsem: cannot open /dev/null: %s", g_strerror (errno));
  return fd;
}

/* cudasim: the test-only exporter API (the "Vulkan side").
 *
 * cudasim_sem_create() and friends make and drive the exporter-side
 * semaphore objects of sim-semobj.c, as an application does with
 * vkCreateSemaphore, vkGetSemaphoreFdKHR, vkSignalSemaphore,
 * vkWaitSemaphores and vkGetSemaphoreCounterValue; cudasim_mem_create()
 * makes memory to import as external memory.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "cudasim-internal.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

SIM_EXPORT int
cudasim_sem_create (CudasimSemType type, uint64_t initial_value)
{
  SimSemObject *sem;
  int id;

  if (type != CUDASIM_SEM_BINARY && type != CUDASIM_SEM_TIMELINE)
    return -1;
  sem = calloc (1, sizeof (SimSemObject));
  if (!sem)
    return -1;
  pthread_mutex_lock (&g_sim.lock);
  id = sim_sem_register_locked (sem);
  if (id < 0) {
    pthread_mutex_unlock (&g_sim.lock);
    free (sem);
    return -1;
  }
  sem->refcount = 1;
  sem->exporter_ref = 1;
  sem->type = type;
  sem->value = type == CUDASIM_SEM_BINARY ? (initial_value != 0) :
      initial_value;
  pthread_mutex_unlock (&g_sim.lock);
  return id;
}

SIM_EXPORT int
cudasim_sem_export_fd (int id)
{
  SimSemObject *sem;
  char path[64];
  int fd = -1;

  pthread_mutex_lock (&g_sim.lock);
  sem = sim_sem_get_locked (id);
  if (sem && sem->exporter_ref && (sem->shared
          || sim_sem_make_payload_locked (sem) == 0)) {
    snprintf (path, sizeof (path), "/proc/self/fd/%d", sem->shared_fd);
    fd = open (path, O_RDWR | O_CLOEXEC);
  }
  pthread_mutex_unlock (&g_sim.lock);
  return fd;
}

SIM_EXPORT int
cudasim_sem_host_signal (int id, uint64_t value)
{
  SimSemObject *sem;
  int r = -1;

  pthread_mutex_lock (&g_sim.lock);
  sem = sim_sem_get_locked (id);
  if (sem)
    r = sim_sem_signal_locked (sem, value, "cudasim_sem_host_signal");
  pthread_mutex_unlock (&g_sim.lock);
  return r;
}

SIM_EXPORT uint64_t
cudasim_sem_get_value (int id)
{
  SimSemObject *sem;
  uint64_t v = 0;

  pthread_mutex_lock (&g_sim.lock);
  sem = sim_sem_get_locked (id);
  if (sem)
    v = sim_sem_value (sem);
  pthread_mutex_unlock (&g_sim.lock);
  return v;
}

SIM_EXPORT int
cudasim_sem_host_wait (int id, uint64_t value, uint64_t timeout_ns)
{
  SimSemObject *sem;
  int64_t deadline;
  int r = -1;

  deadline = sim_sem_host_wait_deadline (timeout_ns);

  pthread_mutex_lock (&g_sim.lock);
  sem = sim_sem_get_locked (id);
  if (sem)
    r = sim_sem_host_wait_locked (sem, value, deadline);
  pthread_mutex_unlock (&g_sim.lock);
  return r;
}

SIM_EXPORT void
cudasim_sem_unref (int id)
{
  SimSemObject *sem;

  pthread_mutex_lock (&g_sim.lock);
  sem = sim_sem_get_locked (id);
  if (sem && sem->exporter_ref) {
    sem->exporter_ref = 0;
    sim_sem_object_unref_locked (sem);
  }
  pthread_mutex_unlock (&g_sim.lock);
}

SIM_EXPORT int
cudasim_mem_create (size_t size)
{
  int fd = memfd_create ("cudasim-memory", MFD_CLOEXEC);

  if (fd < 0)
    return -1;
  if (ftruncate (fd, (off_t) size) != 0) {
    close (fd);
    return -1;
  }
  return fd;
}

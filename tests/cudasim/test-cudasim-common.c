/* cudasim self-test: the state and helpers its files share (see
 * test-cudasim.h): the driver's entry points, the test API, the tests'
 * context, the check counters, time, fds and external semaphores.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "test-cudasim.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

CuFuncs cu;
CudasimApi sim;
CUcontext ctx;

int failures;
int checks;

const char *self_path = "/proc/self/exe";

double
now_ms (void)
{
  struct timespec ts;
  clock_gettime (CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

void
sleep_ms (int ms)
{
  struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
  while (nanosleep (&ts, &ts) == -1 && errno == EINTR);
}

int
fd_is_open (int fd)
{
  return fcntl (fd, F_GETFD) != -1;
}

CUexternalSemaphore
import_sem (int id, CUexternalSemaphoreHandleType type, CUresult * res)
{
  CUDA_EXTERNAL_SEMAPHORE_HANDLE_DESC desc;
  CUexternalSemaphore es = NULL;
  int fd = sim.sem_export_fd (id);

  memset (&desc, 0, sizeof (desc));
  desc.type = type;
  desc.handle.fd = fd;
  *res = cu.cuImportExternalSemaphore (&es, &desc);
  if (*res != CUDA_SUCCESS)
    close (fd);
  return es;
}

CUresult
extsem_signal (CUexternalSemaphore es, uint64_t v, CUstream s)
{
  CUDA_EXTERNAL_SEMAPHORE_SIGNAL_PARAMS p;

  memset (&p, 0, sizeof (p));
  p.params.fence.value = v;
  return cu.cuSignalExternalSemaphoresAsync (&es, &p, 1, s);
}

CUresult
extsem_wait (CUexternalSemaphore es, uint64_t v, CUstream s)
{
  CUDA_EXTERNAL_SEMAPHORE_WAIT_PARAMS p;

  memset (&p, 0, sizeof (p));
  p.params.fence.value = v;
  return cu.cuWaitExternalSemaphoresAsync (&es, &p, 1, s);
}

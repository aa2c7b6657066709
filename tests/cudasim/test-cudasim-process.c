/* cudasim self-test: environment variables (checked in child processes
 * that run this program again) and semaphores and memory shared with a
 * second process.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "test-cudasim.h"

#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* ------------------------------------------------------------------ */
/* environment variables (checked in child processes)                  */
/* ------------------------------------------------------------------ */

int
child_env (void)
{
  int n = 0, i, bad = 0;
  CUuuid u[3];
  CUdeviceptr p[3];
  CUresult r[3];
  CUcontext c;
  CUstream s;
  double t0, t;

  if (cu.cuInit (0) != CUDA_SUCCESS || cu.cuDeviceGetCount (&n) != 0 || n != 3) {
    printf ("child: device count %d\n", n);
    return 1;
  }
  for (i = 0; i < 3; i++)
    bad |= cu.cuDeviceGetUuid_v2 (&u[i], i) != CUDA_SUCCESS;
  if (bad || !memcmp (&u[0], &u[1], sizeof (CUuuid)) ||
      !memcmp (&u[1], &u[2], sizeof (CUuuid)) ||
      !memcmp (&u[0], &u[2], sizeof (CUuuid))) {
    printf ("child: UUIDs not distinct\n");
    return 2;
  }
  cu.cuCtxCreate_v2 (&c, 0, 2);
  for (i = 0; i < 3; i++)
    r[i] = cu.cuMemAlloc_v2 (&p[i], 16);
  if (r[0] != CUDA_SUCCESS || r[1] != CUDA_ERROR_OUT_OF_MEMORY ||
      r[2] != CUDA_SUCCESS) {
    printf ("child: CUDASIM_FAIL not applied (%d %d %d)\n", r[0], r[1], r[2]);
    return 3;
  }
  cu.cuStreamCreate (&s, 0);
  t0 = now_ms ();
  cu.cuMemsetD8Async (p[0], 1, 16, s);
  cu.cuStreamSynchronize (s);
  t = now_ms () - t0;
  if (t < 140) {
    printf ("child: CUDASIM_DELAY + CUDASIM_DELAY_US not applied (%.0f ms)\n",
        t);
    return 4;
  }
  if (sim.sem_host_signal (sim.sem_create (CUDASIM_SEM_BINARY, 1), 1) != -1 ||
      sim.violation_count () != 1) {
    printf ("child: CUDASIM_VIOLATIONS=record not applied\n");
    return 5;
  }
  return 0;
}

int
child_abort (void)
{
  int id = sim.sem_create (CUDASIM_SEM_BINARY, 0);

  sim.sem_host_signal (id, 1);
  sim.sem_host_signal (id, 1);  /* violation: aborts */
  return 0;
}

static int
run_child (const char *mode, char *const envp_extra[], int *sig,
    char *err, size_t err_len)
{
  int pipefd[2], status = 0;
  pid_t pid;

  if (pipe (pipefd) != 0)
    return -1;
  pid = fork ();
  if (pid == 0) {
    int i;
    dup2 (pipefd[1], 2);
    close (pipefd[0]);
    for (i = 0; envp_extra[i]; i++)
      putenv (envp_extra[i]);
    execl (self_path, self_path, mode, (char *) NULL);
    _exit (127);
  }
  close (pipefd[1]);
  {
    size_t got = 0;
    ssize_t k;
    while (got + 1 < err_len &&
        (k = read (pipefd[0], err + got, err_len - 1 - got)) > 0)
      got += (size_t) k;
    err[got] = '\0';
  }
  close (pipefd[0]);
  waitpid (pid, &status, 0);
  *sig = WIFSIGNALED (status) ? WTERMSIG (status) : 0;
  return WIFEXITED (status) ? WEXITSTATUS (status) : -1;
}

/* --child-shared-sem: fd 3 is a timeline semaphore of the parent and fd 4
 * a VMM allocation (0x5a bytes). The child waits for value 5 on the GPU,
 * then copies the allocation into one of its own, checks it and signals
 * 6. */
int
child_shared_sem (void)
{
  CUDA_EXTERNAL_SEMAPHORE_HANDLE_DESC desc;
  CUexternalSemaphore es = NULL;
  CUmemGenericAllocationHandle h;
  CUmemAccessDesc access;
  CUdeviceptr va = 0, dst = 0;
  unsigned char bytes[64];
  CUcontext c;
  CUstream s;
  int bad = 0, i;

  if (cu.cuInit (0) || cu.cuCtxCreate_v2 (&c, 0, 0) ||
      cu.cuStreamCreate (&s, 0))
    return 2;
  memset (&desc, 0, sizeof (desc));
  desc.type = CU_EXTERNAL_SEMAPHORE_HANDLE_TYPE_TIMELINE_SEMAPHORE_FD;
  desc.handle.fd = 3;
  if (cu.cuImportExternalSemaphore (&es, &desc))
    return 3;
  if (cu.cuMemImportFromShareableHandle (&h, (void *) (intptr_t) 4,
          CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR) ||
      cu.cuMemAddressReserve (&va, 2 << 20, 0, 0, 0) ||
      cu.cuMemMap (va, 2 << 20, 0, h, 0))
    return 4;
  memset (&access, 0, sizeof (access));
  access.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
  access.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
  if (cu.cuMemSetAccess (va, 2 << 20, &access, 1) ||
      cu.cuMemAlloc_v2 (&dst, sizeof (bytes)))
    return 5;
  /* stream order: the copy runs once the parent reached 5 */
  if (extsem_wait (es, 5, s) || cu.cuMemcpyDtoDAsync_v2 (dst, va + 4096,
          sizeof (bytes), s) || extsem_signal (es, 6, s) ||
      cu.cuStreamSynchronize (s) || cu.cuMemcpyDtoH_v2 (bytes, dst,
          sizeof (bytes)))
    return 6;
  for (i = 0; i < (int) sizeof (bytes); i++)
    bad |= bytes[i] != 0x5a;
  cu.cuDestroyExternalSemaphore (es);
  cu.cuMemUnmap (va, 2 << 20);
  cu.cuMemAddressFree (va, 2 << 20);
  cu.cuMemRelease (h);
  cu.cuMemFree_v2 (dst);
  cu.cuStreamDestroy_v2 (s);
  return bad ? 7 : 0;
}

/* Semaphores and VMM memory shared with another process: the value lives
 * in the semaphore's memfd, so a GPU wait in the child sees the parent's
 * host signal, and the parent's host wait sees the child's GPU signal. */
void
test_cross_process (void)
{
  CUmemAllocationProp prop;
  CUmemGenericAllocationHandle h;
  CUmemAccessDesc access;
  CUdeviceptr va = 0;
  int id, fd, mfd = -1, status = 0, waited;
  pid_t pid;

  SECTION ("semaphores and memory shared between two processes");
  id = sim.sem_create (CUDASIM_SEM_TIMELINE, 0);
  fd = sim.sem_export_fd (id);
  memset (&prop, 0, sizeof (prop));
  prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
  prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
  prop.requestedHandleTypes = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
  CU_OK (cu.cuMemCreate (&h, 2 << 20, &prop, 0));
  CU_OK (cu.cuMemExportToShareableHandle (&mfd, h,
          CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0));
  CU_OK (cu.cuMemAddressReserve (&va, 2 << 20, 0, 0, 0));
  CU_OK (cu.cuMemMap (va, 2 << 20, 0, h, 0));
  memset (&access, 0, sizeof (access));
  access.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
  access.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
  CU_OK (cu.cuMemSetAccess (va, 2 << 20, &access, 1));
  pid = fork ();
  if (pid == 0) {
    dup2 (fd, 3);
    dup2 (mfd, 4);
    execl (self_path, self_path, "--child-shared-sem", (char *) NULL);
    _exit (127);
  }
  close (fd);
  close (mfd);
  sleep_ms (50);
  CHECK (sim.sem_get_value (id) == 0 && sim.sem_host_wait (id, 6, 0) != 0,
      "the child waits for 5 (value %llu)",
      (unsigned long long) sim.sem_get_value (id));
  CU_OK (cu.cuMemsetD8_v2 (va, 0x5a, 2 << 20));
  CHECK (sim.sem_host_signal (id, 5) == 0, "host signal 5");
  waited = sim.sem_host_wait (id, 6, 10ull * 1000000000ull);
  CHECK (waited == 0 && sim.sem_get_value (id) == 6, "the child's GPU "
      "signal 6 reached this process (value %llu)",
      (unsigned long long) sim.sem_get_value (id));
  waitpid (pid, &status, 0);
  CHECK (WIFEXITED (status) && WEXITSTATUS (status) == 0, "child read the "
      "shared memory after its GPU wait (status %d)", status);
  CU_OK (cu.cuMemUnmap (va, 2 << 20));
  CU_OK (cu.cuMemAddressFree (va, 2 << 20));
  CU_OK (cu.cuMemRelease (h));
  sim.sem_unref (id);
}

void
test_env (void)
{
  static char e1[] = "CUDASIM_DEVICE_COUNT=3";
  static char e2[] = "CUDASIM_FAIL=cuMemAlloc_v2:2:CUDA_ERROR_OUT_OF_MEMORY";
  static char e3[] = "CUDASIM_DELAY=cuMemsetD8Async:100000";
  static char e4[] = "CUDASIM_DELAY_US=50000";
  static char e5[] = "CUDASIM_VIOLATIONS=record";
  static char a1[] = "CUDASIM_VIOLATIONS=abort";
  char *env_env[] = { e1, e2, e3, e4, e5, NULL };
  char *env_abort[] = { a1, NULL };
  char err[4096];
  int sig = 0, rc;

  SECTION ("environment variables (child processes)");
  rc = run_child ("--child-env", env_env, &sig, err, sizeof (err));
  CHECK (rc == 0 && sig == 0, "CUDASIM_DEVICE_COUNT / _FAIL / _DELAY / "
      "_DELAY_US / _VIOLATIONS=record honoured (child rc %d)", rc);
  rc = run_child ("--child-abort", env_abort, &sig, err, sizeof (err));
  CHECK (sig == SIGABRT && strstr (err, "cudasim: VIOLATION: ") &&
      strstr (err, "twice"), "abort mode prints the violation and aborts "
      "(signal %d, stderr: %.*s)", sig, (int) strcspn (err, "\n"), err);
}

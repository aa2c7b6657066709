/* gst-cudasync test fixture: a stub libnvscisync.
 *
 * Built only for the NvSciSync helper's compile/link test
 * (tests/nvsci-fixture/meson.build), never installed. It implements the
 * calls of the fixture nvscisync.h on top of the simulated CUDA driver's
 * fake NvSciSync objects (tests/cudasim, cudasim_nvsci_*), found in the
 * process with dlsym:
 *
 * - attribute lists record RequiredPerm, NeedCpuAccess and
 *   RequireDeterministicFences (the simulated cuDeviceGetNvSciSyncAttributes
 *   sets RequiredPerm through NvSciSyncAttrListSetAttrs);
 * - reconciliation needs exactly one list with signal permission and at
 *   least one with wait permission (the rule NVIDIA documents for
 *   NvSciSyncAttrKey_ActualPerm), otherwise ReconciliationFailed and a
 *   conflict list;
 * - NvSciSyncObjAlloc makes a simulator object whose CUDA signal (wait)
 *   permission is that of the lists without CPU access: an approximation of
 *   NvSciSync, which knows which list came from which engine;
 * - NvSciSyncFenceClear / NvSciSyncFenceWait / NvSciSyncObjFree go to the
 *   simulator.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#include "nvscisync.h"
#include "nvscisync-stub.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define STUB_EXPORT __attribute__((visibility ("default")))

struct NvSciSyncModuleRec
{
  int magic;
};

struct NvSciSyncAttrListRec
{
  NvSciSyncModule module;
  int reconciled;
  int perm_set;
  uint64_t perm;
  bool cpu;
  bool deterministic;
};

#define MODULE_MAGIC 0x5c15c1

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int live_lists, fence_clears, live_objs, last_obj_info;

static void *
sim_sym (const char *name)
{
  void *lib = dlopen ("libcuda.so.1", RTLD_LAZY | RTLD_NOLOAD);
  void *sym = lib ? dlsym (lib, name) : NULL;

  if (lib)
    dlclose (lib);
  return sym;
}

STUB_EXPORT NvSciError
NvSciSyncModuleOpen (NvSciSyncModule * newModule)
{
  if (!newModule)
    return NvSciError_BadParameter;
  *newModule = calloc (1, sizeof (**newModule));
  if (!*newModule)
    return NvSciError_InsufficientMemory;
  (*newModule)->magic = MODULE_MAGIC;
  return NvSciError_Success;
}

STUB_EXPORT void
NvSciSyncModuleClose (NvSciSyncModule module)
{
  if (module && module->magic == MODULE_MAGIC) {
    module->magic = 0;
    free (module);
  }
}

static NvSciSyncAttrList
list_new (NvSciSyncModule module)
{
  NvSciSyncAttrList l = calloc (1, sizeof (*l));

  if (l) {
    l->module = module;
    pthread_mutex_lock (&lock);
    live_lists++;
    pthread_mutex_unlock (&lock);
  }
  return l;
}

STUB_EXPORT NvSciError
NvSciSyncAttrListCreate (NvSciSyncModule module, NvSciSyncAttrList * attrList)
{
  if (!module || module->magic != MODULE_MAGIC || !attrList)
    return NvSciError_BadParameter;
  *attrList = list_new (module);
  return *attrList ? NvSciError_Success : NvSciError_InsufficientMemory;
}

STUB_EXPORT void
NvSciSyncAttrListFree (NvSciSyncAttrList attrList)
{
  if (!attrList)
    return;
  pthread_mutex_lock (&lock);
  live_lists--;
  pthread_mutex_unlock (&lock);
  free (attrList);
}

STUB_EXPORT NvSciError
NvSciSyncAttrListSetAttrs (NvSciSyncAttrList attrList,
    const NvSciSyncAttrKeyValuePair * pairArray, size_t pairCount)
{
  size_t i;

  if (!attrList || attrList->reconciled || !pairArray || pairCount == 0)
    return NvSciError_BadParameter;
  for (i = 0; i < pairCount; i++) {
    const NvSciSyncAttrKeyValuePair *p = &pairArray[i];
    switch (p->attrKey) {
      case NvSciSyncAttrKey_RequiredPerm:
        if (p->len != sizeof (NvSciSyncAccessPerm) || attrList->perm_set)
          return NvSciError_BadParameter;
        memcpy (&attrList->perm, p->value, sizeof (attrList->perm));
        attrList->perm_set = 1;
        break;
      case NvSciSyncAttrKey_NeedCpuAccess:
        if (p->len != sizeof (bool))
          return NvSciError_BadParameter;
        memcpy (&attrList->cpu, p->value, sizeof (bool));
        break;
      case NvSciSyncAttrKey_RequireDeterministicFences:
        if (p->len != sizeof (bool))
          return NvSciError_BadParameter;
        memcpy (&attrList->deterministic, p->value, sizeof (bool));
        break;
      default:
        return NvSciError_BadParameter;
    }
  }
  return NvSciError_Success;
}

STUB_EXPORT NvSciError
NvSciSyncAttrListGetAttrs (NvSciSyncAttrList attrList,
    NvSciSyncAttrKeyValuePair * pairArray, size_t pairCount)
{
  size_t i;

  if (!attrList || !pairArray)
    return NvSciError_BadParameter;
  for (i = 0; i < pairCount; i++) {
    NvSciSyncAttrKeyValuePair *p = &pairArray[i];
    p->value = NULL;
    p->len = 0;
    if (p->attrKey == NvSciSyncAttrKey_RequiredPerm && attrList->perm_set) {
      p->value = &attrList->perm;
      p->len = sizeof (attrList->perm);
    } else if (p->attrKey == NvSciSyncAttrKey_NeedCpuAccess) {
      p->value = &attrList->cpu;
      p->len = sizeof (bool);
    } else if (p->attrKey == NvSciSyncAttrKey_RequireDeterministicFences) {
      p->value = &attrList->deterministic;
      p->len = sizeof (bool);
    }
  }
  return NvSciError_Success;
}

STUB_EXPORT NvSciError
NvSciSyncAttrListReconcile (const NvSciSyncAttrList inputArray[],
    size_t inputCount, NvSciSyncAttrList * newReconciledList,
    NvSciSyncAttrList * newConflictList)
{
  NvSciSyncAttrList r;
  int signalers = 0, waiters = 0;
  size_t i;

  if (!inputArray || inputCount == 0 || !newReconciledList || !newConflictList)
    return NvSciError_BadParameter;
  *newReconciledList = NULL;
  *newConflictList = NULL;
  for (i = 0; i < inputCount; i++) {
    if (!inputArray[i] || inputArray[i]->reconciled)
      return NvSciError_BadParameter;
    if (inputArray[i]->perm & NvSciSyncAccessPerm_SignalOnly)
      signalers++;
    if (inputArray[i]->perm & NvSciSyncAccessPerm_WaitOnly)
      waiters++;
  }
  if (signalers != 1 || waiters == 0) {
    *newConflictList = list_new (inputArray[0]->module);
    return NvSciError_ReconciliationFailed;
  }

  r = list_new (inputArray[0]->module);
  if (!r)
    return NvSciError_InsufficientMemory;
  r->reconciled = 1;
  r->perm_set = 1;
  for (i = 0; i < inputCount; i++) {
    /* in the reconciled list: perm = what the non-CPU (engine) lists asked
     * for, cpu = any CPU access */
    if (!inputArray[i]->cpu)
      r->perm |= inputArray[i]->perm;
    r->cpu = r->cpu || inputArray[i]->cpu;
    r->deterministic = r->deterministic || inputArray[i]->deterministic;
  }
  *newReconciledList = r;
  return NvSciError_Success;
}

STUB_EXPORT NvSciError
NvSciSyncObjAlloc (NvSciSyncAttrList reconciledList, NvSciSyncObj * syncObj)
{
  void *(*create) (int, int) = sim_sym ("cudasim_nvsci_obj_create");
  int sig, wait;

  if (!reconciledList || !reconciledList->reconciled || !syncObj)
    return NvSciError_BadParameter;
  if (!create)
    return NvSciError_NotSupported;     /* no simulated driver loaded */
  sig = (reconciledList->perm & NvSciSyncAccessPerm_SignalOnly) != 0;
  wait = (reconciledList->perm & NvSciSyncAccessPerm_WaitOnly) != 0;
  *syncObj = create (sig, wait);
  if (!*syncObj)
    return NvSciError_InsufficientMemory;
  pthread_mutex_lock (&lock);
  live_objs++;
  last_obj_info = sig | (wait << 1) | (reconciledList->deterministic << 2) |
      (reconciledList->cpu << 3);
  pthread_mutex_unlock (&lock);
  return NvSciError_Success;
}

STUB_EXPORT void
NvSciSyncObjFree (NvSciSyncObj syncObj)
{
  void (*obj_free) (void *) = sim_sym ("cudasim_nvsci_obj_free");

  if (!syncObj)
    return;
  if (obj_free)
    obj_free (syncObj);
  pthread_mutex_lock (&lock);
  live_objs--;
  pthread_mutex_unlock (&lock);
}

STUB_EXPORT void
NvSciSyncFenceClear (NvSciSyncFence * syncFence)
{
  static const NvSciSyncFence cleared;
  int (*clear) (void *) = sim_sym ("cudasim_nvsci_fence_clear");

  if (!syncFence || memcmp (syncFence, &cleared, sizeof (cleared)) == 0)
    return;
  pthread_mutex_lock (&lock);
  fence_clears++;
  pthread_mutex_unlock (&lock);
  if (clear)
    clear (syncFence);
  memset (syncFence, 0, sizeof (*syncFence));
}

STUB_EXPORT NvSciError
NvSciSyncFenceWait (const NvSciSyncFence * syncFence,
    NvSciSyncCpuWaitContext context, int64_t timeoutUs)
{
  int (*wait) (const void *, uint64_t) = sim_sym ("cudasim_nvsci_fence_wait");

  if (!syncFence)
    return NvSciError_BadParameter;
  if (!wait)
    return NvSciError_NotSupported;
  return wait (syncFence, timeoutUs < 0 ? UINT64_MAX :
      (uint64_t) timeoutUs * 1000) == 0 ? NvSciError_Success :
      NvSciError_Timeout;
}

STUB_EXPORT int
nvscistub_live_attr_lists (void)
{
  int n;

  pthread_mutex_lock (&lock);
  n = live_lists;
  pthread_mutex_unlock (&lock);
  return n;
}

STUB_EXPORT int
nvscistub_fence_clears (void)
{
  int n;

  pthread_mutex_lock (&lock);
  n = fence_clears;
  pthread_mutex_unlock (&lock);
  return n;
}

STUB_EXPORT int
nvscistub_live_objs (void)
{
  int n;

  pthread_mutex_lock (&lock);
  n = live_objs;
  pthread_mutex_unlock (&lock);
  return n;
}

STUB_EXPORT int
nvscistub_last_obj_info (void)
{
  int n;

  pthread_mutex_lock (&lock);
  n = last_obj_info;
  pthread_mutex_unlock (&lock);
  return n;
}

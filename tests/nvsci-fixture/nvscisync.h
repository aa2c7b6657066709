/* gst-cudasync test fixture: a minimal nvscisync.h.
 *
 * NOT NVIDIA's header. It declares only what gst/cudasync/gstcudanvsci.c
 * and the stub libnvscisync (nvscisync-stub.c) use, with the names, types
 * and values of the public NvSciSync API (NvSciSync 1.x / DRIVE OS 6, as
 * documented by NVIDIA), so that CI compiles and links the NvSciSync helper
 * on machines without libnvscisync. On Jetson / DRIVE the real header is
 * used instead.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef GST_CUDASYNC_TEST_NVSCISYNC_H
#define GST_CUDASYNC_TEST_NVSCISYNC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* nvscierror.h: only the codes used here */
typedef enum
{
  NvSciError_Success = 0x00000000,
  NvSciError_NotSupported = 0x00000011,
  NvSciError_InsufficientMemory = 0x00000030,
  NvSciError_BadParameter = 0x00000100,
  NvSciError_Timeout = 0x00000200,
  NvSciError_ReconciliationFailed = 0x00010100,
  NvSciError_UnsupportedConfig = 0x02000001,
} NvSciError;

typedef struct NvSciSyncModuleRec *NvSciSyncModule;
typedef struct NvSciSyncAttrListRec *NvSciSyncAttrList;
typedef struct NvSciSyncObjRec *NvSciSyncObj;
typedef struct NvSciSyncCpuWaitContextRec *NvSciSyncCpuWaitContext;

typedef struct NvSciSyncFence
{
  uint64_t payload[6];
} NvSciSyncFence;

typedef uint64_t NvSciSyncAccessPerm;
#define NvSciSyncAccessPerm_WaitOnly ((uint64_t) 1U << 0U)
#define NvSciSyncAccessPerm_SignalOnly ((uint64_t) 1U << 1U)
#define NvSciSyncAccessPerm_WaitSignal \
  (NvSciSyncAccessPerm_WaitOnly | NvSciSyncAccessPerm_SignalOnly)

typedef enum
{
  NvSciSyncAttrKey_LowerBound,
  NvSciSyncAttrKey_NeedCpuAccess,
  NvSciSyncAttrKey_RequiredPerm,
  NvSciSyncAttrKey_ActualPerm,
  NvSciSyncAttrKey_WaiterContextInsensitiveFenceExports,
  NvSciSyncAttrKey_WaiterRequireTimestamps,
  NvSciSyncAttrKey_RequireDeterministicFences,
  /* later keys are not used here */
} NvSciSyncAttrKey;

typedef struct
{
  NvSciSyncAttrKey attrKey;
  const void *value;
  size_t len;
} NvSciSyncAttrKeyValuePair;

NvSciError NvSciSyncModuleOpen (NvSciSyncModule * newModule);
void NvSciSyncModuleClose (NvSciSyncModule module);

NvSciError NvSciSyncAttrListCreate (NvSciSyncModule module,
    NvSciSyncAttrList * attrList);
void NvSciSyncAttrListFree (NvSciSyncAttrList attrList);
NvSciError NvSciSyncAttrListSetAttrs (NvSciSyncAttrList attrList,
    const NvSciSyncAttrKeyValuePair * pairArray, size_t pairCount);
NvSciError NvSciSyncAttrListGetAttrs (NvSciSyncAttrList attrList,
    NvSciSyncAttrKeyValuePair * pairArray, size_t pairCount);
NvSciError NvSciSyncAttrListReconcile (const NvSciSyncAttrList inputArray[],
    size_t inputCount, NvSciSyncAttrList * newReconciledList,
    NvSciSyncAttrList * newConflictList);

NvSciError NvSciSyncObjAlloc (NvSciSyncAttrList reconciledList,
    NvSciSyncObj * syncObj);
void NvSciSyncObjFree (NvSciSyncObj syncObj);

void NvSciSyncFenceClear (NvSciSyncFence * syncFence);
NvSciError NvSciSyncFenceWait (const NvSciSyncFence * syncFence,
    NvSciSyncCpuWaitContext context, int64_t timeoutUs);

#ifdef __cplusplus
}
#endif
#endif /* GST_CUDASYNC_TEST_NVSCISYNC_H */

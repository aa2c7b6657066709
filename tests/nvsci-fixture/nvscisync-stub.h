/* gst-cudasync test fixture: what the stub libnvscisync lets a test check.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef GST_CUDASYNC_TEST_NVSCISYNC_STUB_H
#define GST_CUDASYNC_TEST_NVSCISYNC_STUB_H

#ifdef __cplusplus
extern "C" {
#endif

/* attribute lists created and not freed yet */
int nvscistub_live_attr_lists (void);
/* NvSciSyncFenceClear() calls on uncleared fences */
int nvscistub_fence_clears (void);
/* objects allocated and not freed yet */
int nvscistub_live_objs (void);
/* what the last NvSciSyncObjAlloc() gave CUDA: bit 0 signal permission,
 * bit 1 wait permission, bit 2 deterministic fences, bit 3 CPU access */
int nvscistub_last_obj_info (void);

#ifdef __cplusplus
}
#endif
#endif

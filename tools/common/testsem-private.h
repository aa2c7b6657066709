/* gst-cudasync
 * Copyright (C) 2026 gst-cudasync developers
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * testsem: what testsem.c (backend choice, the simulator's semaphores, the
 * public functions) and testsem-vulkan.c (the Vulkan backend) share.
 */
#pragma once

#include "testsem.h"

#ifdef TESTSEM_HAVE_VULKAN
#include <vulkan/vulkan.h>
#endif

G_BEGIN_DECLS

typedef enum
{
  PENDING_NONE,
  PENDING_SIGNAL,
  PENDING_WAIT,
} PendingKind;

struct _TestSem
{
  TestSemBackend backend;
  gboolean timeline;

  int sim_id;

#ifdef TESTSEM_HAVE_VULKAN
  VkSemaphore sem;
  /* binary semaphores: the last queue submission that used the semaphore */
  GMutex lock;
  VkFence fence;
  PendingKind pending;
#endif
};

#ifdef TESTSEM_HAVE_VULKAN
/* testsem-vulkan.c: the Vulkan side of testsem.c's functions */
gchar *        testsem_vk_setup        (const guint8 cuda_uuid[16],
                                        const gchar ** name);
gboolean       testsem_vk_sem_new      (TestSem * s,
                                        guint64 initial_value);
int            testsem_vk_export_fd    (TestSem * s);
gboolean       testsem_vk_host_signal  (TestSem * s,
                                        guint64 value);
guint64        testsem_vk_get_value    (TestSem * s);
gboolean       testsem_vk_host_wait    (TestSem * s,
                                        guint64 value,
                                        guint64 timeout_ns);
gboolean       testsem_vk_sem_free     (TestSem * s);
#endif

G_END_DECLS

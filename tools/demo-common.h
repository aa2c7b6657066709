/* gst-cudasync
 * Copyright (C) 2026 gst-cudasync developers
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * gst-cudasync-demo's shared part (demo-common.c): running one pipeline
 * and collecting its frames' checksums and its elements' stats, the
 * driver's description, and the state both demos use. The demos
 * themselves: demo-semaphore.c (cudasemsignal ! cudasemwait) and
 * demo-bridge.c (cudatovulkan ! vulkantocuda).
 */
#pragma once

#include <gst/gst.h>
#include <gst/cuda/gstcudacontext.h>
#include <gst/cudasync/cudasync.h>

#include "testsem.h"

G_BEGIN_DECLS

typedef struct
{
  GPtrArray *sums;
  GstStructure *sig_stats;
  GstStructure *wait_stats;
  GstStructure *c2v_stats;      /* --bridge */
  GstStructure *v2c_stats;
  gchar *context_given_to;
  gdouble seconds;
} RunResult;

typedef unsigned (*SimCallCount) (const char *entry_point);

typedef struct
{
  gint frames, width, height;
  gboolean no_semaphore, bridge, vulkan_uuid;
} DemoOptions;

/* Everything a run creates; demo_clear() releases what is set, so every exit
 * path, set-up failures included, goes through it. */
typedef struct
{
  GstCudaContext *context;
  TestSem *tsem;
  GstCudaSemaphore *sem;
  gchar *driver, *vkdev, *caps, *desc, *ref_desc, *error;
  RunResult ref, run;
} Demo;

/* the CUDA driver in use, in words */
gchar *      describe_driver (void);
/* the simulator's call counter, NULL on a real driver */
SimCallCount sim_call_count_func (void);
/* field @field of @s, 0 when missing */
guint64      get_stat (const GstStructure * s, const gchar * field);
void         demo_clear (Demo * d);
gboolean     find_elements (const gchar * const *names,
                            const gchar * nvcodec_hint,
                            const gchar * plugin_hint);
gboolean     demo_new_context (Demo * d);
void         demo_describe_pipelines (Demo * d, const DemoOptions * o,
                            const gchar * middle);
gboolean     demo_run_reference (Demo * d);
gboolean     demo_run_cuda (Demo * d, GstCudaSemaphore * sem,
                            const gchar * label);
void         demo_print_run (const Demo * d, const gchar * how);
gboolean     demo_check_frames (const Demo * d, gint frames);

/* the two demos: the process's exit status */
int          run_bridge (const DemoOptions * o);
int          run_semaphore (const DemoOptions * o);

G_END_DECLS

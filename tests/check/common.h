/* gst-cudasync test helpers
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The same tests run against the simulated driver (CI) and a real NVIDIA
 * driver: helpers that need the simulator's test API say so, and tests that
 * need it skip their simulator-only assertions elsewhere.
 */
#pragma once

#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <gst/video/video.h>
#include <gst/cuda/gstcudaloader.h>
#include <gst/cuda/gstcudacontext.h>
#include <gst/cuda/gstcudamemory.h>
#include <gst/cuda/gstcudabufferpool.h>
#include <gst/cuda/gstcudautils.h>
#include <gst/cuda/cuda-gst.h>
#include <gst/cudasync/gstcudasync-internal.h>
#include "cudasim.h"
#include "testsem.h"

G_BEGIN_DECLS

/* set by cs_setup () */
extern GstCudaContext *cs_ctx;
extern CudasimApi cs_sim;
extern gboolean cs_is_sim;

void cs_setup (void);
void cs_teardown (void);

/* Called (when set) with every pipeline cs_run_to_end() makes and every
 * element cs_fixture_start() puts in a harness, before they start: the
 * bridge tests give them their Vulkan instance (vkcommon.h) */
extern void (*cs_pipeline_hook) (GstElement * element);

/* A semaphore created by the test backend (Vulkan or simulator), exported and
 * imported into @ctx (cs_ctx when NULL). */
GstCudaSemaphore *cs_new_semaphore (GstCudaContext * ctx, gboolean timeline,
    TestSem ** ts);

GstCaps *cs_caps (const gchar * format, gint width, gint height);
GstBufferPool *cs_new_pool (GstCaps * caps);
/* A buffer from @pool whose device memory holds the pattern seeded with @seed. */
GstBuffer *cs_new_buffer (GstBufferPool * pool, guint8 seed);
/* The visible bytes of every plane, rows packed. */
GBytes *cs_buffer_bytes (GstBuffer * buf, const GstVideoInfo * info);
GBytes *cs_pattern_bytes (const GstVideoInfo * info, guint8 seed);

/* An element of @factory with the properties that follow set (a
 * NULL-terminated list, as for g_object_set ()); fails the test where the
 * factory is missing, so that a test never runs on a NULL element */
GstElement *cs_make_element (const gchar * factory, const gchar * first_prop,
    ...);
void cs_set_cuda_context (GstElement * element, GstCudaContext * ctx);
guint64 cs_stat (GstElement * element, const gchar * field);
/* Plays @pipeline (a sink at its end) to EOS or ERROR and sets it to
 * NULL; returns "element: message (debug)" of the error, NULL at EOS */
gchar *cs_play_to_end (GstElement * pipeline);
/* the same for gst_parse_launch (@desc), the pipeline in *@pipeline_out
 * (caller unrefs) */
gchar *cs_run_to_end (const gchar * desc, GstElement ** pipeline_out);
/* cs_setup() with a second CUDA device on the simulator
 * (CUDASIM_DEVICE_COUNT=2): a checked fixture */
void cs_setup_two_devices (void);
/* cs_setup() where, on the simulator, every stream of a context shares one
 * hardware queue (CUDASIM_CONNECTIONS=1: the worst case of the driver's
 * CUDA_DEVICE_MAX_CONNECTIONS queues, each run in enqueue order) and a
 * stream takes 256 operations ahead (CUDASIM_STREAM_DEPTH); child
 * processes inherit both */
void cs_setup_one_queue (void);
/* A context on CUDA device 1 (caller unrefs), or NULL with a SKIP line
 * when there is one device only */
GstCudaContext *cs_second_device (const gchar * test);
/* A string field of "stats" (caller frees) */
gchar *cs_stat_string (GstElement * element, const gchar * field);
/* First ERROR message on @bus as "message (debug details)", or NULL.
 * Caller frees. */
gchar *cs_pop_error (GstBus * bus, GQuark * domain, gint * code);

/* simulator-only checks (no-ops returning -1 on the real driver) */
gint cs_sim_thread_syncs (void);
gint cs_sim_live (const gchar * kind);

/* Runs a full pipeline to EOS; fails the test on error. */
void cs_run_pipeline (GstElement * pipeline);

/* TRUE when every element of @names (NULL-terminated) is registered; else
 * a SKIP line naming @test and the missing element */
gboolean cs_have_elements (const gchar * test, const gchar * const *names);
/* A byte-stream H.264 clip of @n frames of videotestsrc's ball, @w x @h at
 * @fps (x264enc ultrafast, a key frame every 15, 2 B-frames if @bframes),
 * in @profile, in a new temporary folder; cs_remove_clip() removes both */
gchar *cs_make_h264_clip (gint w, gint h, gint fps, guint n,
    const gchar * profile, gboolean bframes);
void cs_remove_clip (gchar * path);
/* A pipeline fragment that decodes H.264 high profile with B-frames into
 * CUDA memory: nvh264dec where there is one, else openh264dec !
 * cudaupload; NULL, with a SKIP line naming @test, where neither (nor
 * x264enc, h264parse and cudadownload to make and check clips) is here */
const gchar *cs_h264_cuda_decoder (const gchar * test);

/* A CUDA stream in cs_ctx; cs_free_stream () synchronises it, then
 * destroys it. */
CUstream cs_new_stream (guint flags);
void cs_free_stream (CUstream s);

/* An element (or bin with "sink"/"src" ghost pads) in a harness, with our
 * CUDA context, a bus for its errors, and caps set. */
typedef struct
{
  GstHarness *h;
  GstElement *element;
  GstBus *bus;
  GstBufferPool *pool;
  GstCaps *caps;
  GstVideoInfo info;
} CsFixture;

void cs_fixture_start (CsFixture * f, GstElement * element,
    const gchar * format, gint w, gint h);
void cs_fixture_renegotiate (CsFixture * f, const gchar * format, gint w,
    gint h);
void cs_fixture_stop (CsFixture * f);

/* Downstream of the harness answers the ALLOCATION query like a consumer
 * that can wait on @types (built with the public helper). */
void cs_harness_offer (GstHarness * h, GstCudaSemaphoreHandleTypeFlags types,
    GstCudaSemaphore * sem);

/* The last acquire point of @buf's GstCudaSyncMeta, which must exist and be
 * on @expect_sem (fails the test otherwise): its index, and its value in
 * @value (nullable). */
guint cs_last_acquire (GstBuffer * buf, GstCudaSemaphore * expect_sem,
    guint64 * value);

/* Bus sync handler: answers NEED_CONTEXT for CUDA with cs_ctx. */
GstBusSyncReply cs_share_context (GstBus * bus, GstMessage * msg,
    gpointer user_data);
/* appsink "new-sample" handler: appends the sample's visible bytes
 * (cs_buffer_bytes ()) to the GPtrArray in @user_data. */
GstFlowReturn cs_collect_sample (GstElement * sink, gpointer user_data);

/* GStreamer 1.24+ CUDA memory with a stream (no-ops that fail the test on
 * 1.22, whose memory has none: callers skip there). */

/* An entry point of the libcuda.so.1 in use (fails the test if missing) */
gpointer cs_driver_symbol (const gchar * name);
/* cuMemsetD2D8Async (not loaded by every libgstcuda), context pushed */
CUresult cs_memset_2d_async (CUdeviceptr dst, gsize pitch, guint8 value,
    gsize width, gsize height, CUstream stream);

/* A pool whose memory carries @stream (a GstCudaStream *). */
GstBufferPool *cs_new_stream_pool (GstCaps * caps, gpointer stream);
/* Like an upstream 1.24+ producer: writes @value into every row of every
 * plane of @buf on its memory's stream (cuMemsetD2D8Async) and pushes on
 * without synchronising, leaving GST_CUDA_MEMORY_TRANSFER_NEED_SYNC set.
 * Slow it down with the simulator's delay for "cuMemsetD2D8Async". */
void cs_write_pending (GstBuffer * buf, const GstVideoInfo * info,
    guint8 value);
/* @value in every visible byte of a frame of @info (cs_buffer_bytes ()'s
 * layout) */
GBytes *cs_value_bytes (const GstVideoInfo * info, guint8 value);
/* The visible bytes of @buf as a consumer ordered by nothing but @buf's
 * acquire points sees them: a non-blocking stream waits for them on the
 * GPU, then copies the frame to the host. */
GBytes *cs_read_after_acquire (GstBuffer * buf, const GstVideoInfo * info);
/* The same without any GPU wait: what a consumer that trusts an earlier CPU
 * synchronisation sees */
GBytes *cs_read_unordered (GstBuffer * buf, const GstVideoInfo * info);

G_END_DECLS

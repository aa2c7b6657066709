/* gst-cudasync: helpers shared by the cudatovulkan / vulkantocuda tests
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * On the simulated driver the Vulkan side is Mesa lavapipe: main()
 * (cs_vk_run_suite()) gives the simulator's device 0 lavapipe's deviceUUID
 * (CUDASIM_DEVICE_UUID) before anything loads libcuda, so the elements find
 * "the same" device. lavapipe cannot export semaphores: there the CPU
 * fallback runs, one cpu-sync per buffer in each element. On a real GPU the
 * elements must not synchronise on the CPU at all (bc_assert_stats()).
 *
 * Tests that need elements a machine may lack (nvh264dec, x264enc,
 * openh264dec) print "SKIP: ..." and pass there.
 */
#pragma once

#include "common.h"
#include "vkcommon.h"
#include <gst/app/app.h>
#include <gst/vulkan/vulkan.h>

G_BEGIN_DECLS

/* frames of the short test runs */
#define BC_N_BUFFERS 3

/* 20 moving frames: a frame overwritten by a later one shows */
#define BC_HELD_SRC "videotestsrc num-buffers=20 pattern=ball ! " \
    "video/x-raw,format=RGBA,width=64,height=48,framerate=30/1"

/* the formats and sizes of the byte-exact coverage runs */
#define BC_N_FORMATS 5
#define BC_N_SIZES 3
extern const gchar *const bc_formats[BC_N_FORMATS];
extern const gint bc_sizes[BC_N_SIZES][2];

/* bc_pull_all() reads each frame with its rows packed, one memory per
 * plane (vulkandownload up to 1.26, see bridgecommon.c) */
extern gboolean bc_tight_rows;
/* bc_pull_all() keeps a SHA-1 of each frame instead of its bytes */
extern gboolean bc_store_checksums;
/* bc_run_frames() calls it on the pipeline before starting it */
extern void (*bc_pipeline_hook) (GstElement * pipeline);

GPtrArray *  bc_pull_all            (GstElement * pipeline, GstElement * sink);
GPtrArray *  bc_run_frames          (GstElement ** pipeline_out,
                                     const gchar * desc);
void         bc_stop_pipeline_full  (GstElement * pipeline, gboolean drain);
void         bc_stop_pipeline       (GstElement * pipeline);
void         bc_assert_same_frames  (GPtrArray * got, GPtrArray * want,
                                     const gchar * what);

gchar *      bc_src_desc            (const gchar * format, gint w, gint h);
GPtrArray *  bc_reference_frames    (const gchar * format, gint w, gint h);
GstElement * bc_by_name             (GstElement * pipeline,
                                     const gchar * name);
/* bc_run_frames() where every pool is taken out of the ALLOCATION
 * queries answered through the pad @pad_name of the element named @name,
 * before the element that asked sees the answer (what a producer that
 * refuses a proposed pool does); @hook (nullable) runs as bc_pipeline_hook.
 * Fails unless such a query went through that pad. */
GPtrArray *  bc_run_frames_refusing_pools (GstElement ** pipeline_out,
                                     const gchar * desc, const gchar * name,
                                     const gchar * pad_name,
                                     void (*hook) (GstElement * pipeline));

gboolean     bc_expect_timeline     (GstElement * e);
gboolean     bc_info_wrappable      (const GstVideoInfo * info);
gboolean     bc_pad_info            (GstElement * e, const gchar * pad_name,
                                     GstVideoInfo * info);
gboolean     bc_expect_wrapped_output (GstElement * v2c);
gboolean     bc_info_in_place       (GstElement * c2v,
                                     const GstVideoInfo * info);
/* Whether cudatovulkan @c2v outputs frames of @info as one multi-planar
 * image each: property multi-planar, 1.24+, NV12 or I420, and a device
 * that makes such images (exportable, linear) */
gboolean     bc_expect_multiplanar  (GstElement * c2v,
                                     const GstVideoInfo * info);
/* Whether the elements bind a frame's planes' images to one allocation
 * (property one-allocation) with this test's Vulkan driver: lavapipe's on
 * the simulator, not NVIDIA's with the real CUDA driver, unless the test
 * hook GST_CUDASYNC_CUDA_MEMORY=1 is set (docs/known-issues.md) */
gboolean     bc_one_allocation_usable (void);
/* Whether cudatovulkan @c2v outputs frames of @info as one image per
 * plane, all bound to one allocation (NV12 and I420 images on 1.24+,
 * properties in-place and one-allocation, bc_one_allocation_usable()) */
gboolean     bc_expect_one_allocation (GstElement * c2v,
                                     const GstVideoInfo * info);
/* Whether vulkantocuda @v2c proposes upstream a pool of frames of @info
 * that CUDA reads in place: property in-place, 1.24+, one-plane formats
 * (NV12 and I420 too with property one-allocation, where
 * bc_one_allocation_usable()), no binary semaphores,
 * and a device that makes the images (linear, exportable, with colour
 * attachment usage) */
gboolean     bc_expect_lent         (GstElement * v2c,
                                     const GstVideoInfo * info);
void         bc_assert_stats        (GstElement * e, guint64 n);
void         bc_assert_stats_full   (GstElement * e, guint64 n,
                                     guint64 copies);

/* Runs @desc (cudatovulkan "c2v", a queue "q", appsink "sink") with the
 * queue's output blocked until cudatovulkan has pushed @n frames and the
 * queue holds all but one of them, then lets them through to EOS. Returns
 * the frames (transfer full); *@pipeline_out: the pipeline, still
 * playing */
GPtrArray *  bc_run_held            (const gchar * desc, guint n,
                                     GstElement ** pipeline_out);
/* Keeps every buffer entering @element (a Vulkan element) until it has
 * pushed the output made from it and the queue it answers with is idle
 * (Mesa lavapipe and vulkancolorconvert's outputs, see bridgecommon.c);
 * bc_assert_held() then checks that @n buffers went through that way and
 * that none of their memories was freed inside the element's chain. */
void         bc_hold_inputs         (GstElement * element);
void         bc_assert_held         (guint n, const gchar * what);

/* (bridgereneg.c) A moving source of BC_RENEG_WIDTH x BC_RENEG_HEIGHT
 * frames whose format goes through @formats, @per_format frames each,
 * then @middle, then videoconvert to RGBA into an appsink: every frame
 * byte-exact (@what) against the same source converted without @middle;
 * bc_pipeline_hook (if set) is called on the pipeline with @middle. Returns the pipeline with @middle, after EOS (transfer full; stop it
 * with bc_stop_pipeline()). */
#define BC_RENEG_WIDTH 64
#define BC_RENEG_HEIGHT 48
GstElement * bc_run_renegotiating   (const gchar * middle,
                                     const gchar * const *formats,
                                     guint n_formats, guint per_format,
                                     const gchar * what);

/* (bridgeconvert.c) @n frames of videotestsrc's @in, @w x @h, through
 * cudaupload ! cudatovulkan "c2v" ! vulkancolorconvert to @out (images),
 * read by vulkandownload: byte-exact against the same frames given to
 * vulkancolorconvert through @via instead (a description ending in
 * vulkanupload named "up"); vulkandownload's inputs freed only once its
 * queue is idle (bc_hold_inputs()); cudatovulkan's stats
 * (bc_assert_stats()), then @check (nullable) on it, before the stop */
#define BC_VIA_VULKANUPLOAD "vulkanupload name=up"
#define BC_VIA_CUDADOWNLOAD "cudaupload ! cudadownload ! vulkanupload name=up"
/* cudatovulkan's properties in bc_check_colorconvert()'s pipeline
 * (default: none) */
extern const gchar *bc_c2v_options;
void         bc_check_colorconvert  (const gchar * in, const gchar * out,
                                     gint w, gint h, guint n,
                                     const gchar * via,
                                     void (*check) (GstElement * c2v,
                                         guint n));

gboolean     bc_vulkandownload_packs_rows (void);
/* (bridgeupload.c) Where vulkanupload reads frames of @info with their rows
 * packed (1.22 to 1.26, rows not a multiple of 4 bytes wide), gives the
 * vulkanupload named "up" of @pipeline each frame so: its images then hold
 * the frame's own rows */
void         bc_upload_packed_rows  (GstElement * pipeline,
                                     const GstVideoInfo * info);
/* (bridgeupload.c) @format @w x @h through vulkanupload ! vulkantocuda
 * @options, no caps between them: byte-exact. Where vulkantocuda lends
 * such frames (bc_expect_lent()) and this vulkanupload writes their rows
 * right (not for widths whose rows it reads packed, 1.22 to 1.26: see
 * bc_upload_packed_rows()) they go as memory:VulkanImage, every one read
 * in place with no GPU copy in vulkantocuda; otherwise upstream's order
 * stays: memory:VulkanBuffer, copied. Returns whether they were lent. */
gboolean     bc_check_upload_negotiation (const gchar * format, gint w,
                                     gint h, const gchar * options);
gboolean     bc_vulkan_has_i420     (void);
GstBuffer *  bc_system_frame        (const GstVideoInfo * info, guint8 seed,
                                     GstClockTime pts);

G_END_DECLS

/* gst-cudasync
 * Copyright (C) 2026 gst-cudasync developers
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Scenario 3's raw reference, modes d, d_stall and d_split: the same GPU
 * work with plain CUDA and Vulkan calls (bench/README.md).
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "scenario-3-raw.h"

#include <string.h>
#include <unistd.h>

#ifdef HAVE_CUDA_VULKAN

/* What the consumer found in word (x, y) of plane p of the frame: the
 * kernel's pattern (bench/spin.cu) or the memset value */
static gboolean
d_check_frame (DCtx * d, DSlot * sl)
{
  guint32 seed = sl->frame * 2654435761u;
  guint p, k;

  for (p = 0; p < d->n_planes; p++) {
    guint xs[3] = { 0, (guint) sl->p[p].wbytes / 8, (guint) sl->p[p].wbytes /
          4 - 1
    }, ys[3] = { 0, (guint) sl->p[p].rows / 2,
      (guint) sl->p[p].rows - 1
    };

    for (k = 0; k < 3; k++) {
      guint32 got, want = d->verify_kernel ?
          (seed + p) ^ (ys[k] * 0x9e3779b9u + xs[k]) : seed + p;

      memcpy (&got, sl->host_map + sl->p[p].host_off + ys[k] *
          sl->p[p].wbytes + xs[k] * 4, 4);
      if (got != want) {
        if (!d->bad)
          d->bad = g_strdup_printf ("frame %u plane %u word (%u, %u): "
              "Vulkan read 0x%08x, CUDA wrote 0x%08x", sl->frame, p, xs[k],
              ys[k], got, want);
        return FALSE;
      }
    }
  }
  return TRUE;
}

/* Submits @cmd, waiting at @stage for the slot's semaphore when @wait (and
 * the GPU path), with @fence (nullable) */
static VkResult
d_submit_cmd (DCtx * d, DSlot * sl, VkCommandBuffer * cmd, gboolean wait,
    VkPipelineStageFlags stage, VkFence fence)
{
  VkSubmitInfo si = { VK_STRUCTURE_TYPE_SUBMIT_INFO, NULL, 0, NULL, NULL,
    1, cmd, 0, NULL
  };
  VkResult res;

  if (wait && d->gpu) {
    si.waitSemaphoreCount = 1;
    si.pWaitSemaphores = &sl->vk_sem;
    si.pWaitDstStageMask = &stage;
  }
  gst_vulkan_queue_submit_lock (d->queue);
  res = vkQueueSubmit (d->queue->queue, 1, &si, fence);
  /* under the lock: the producer and the consumer both submit */
  if (res == VK_SUCCESS)
    d->submitted = TRUE;
  gst_vulkan_queue_submit_unlock (d->queue);
  return res;
}

/* The slot's pre-recorded copy, with its fence; it waits for the slot's
 * semaphore itself except in d_split, whose take-over waited */
static VkResult
d_submit (DCtx * d, DSlot * sl)
{
  return d_submit_cmd (d, sl, &sl->cmd, !d->split,
      VK_PIPELINE_STAGE_TRANSFER_BIT, sl->fence);
}

/* d_split, on the producer thread: the wait for CUDA's signal and the
 * acquire barrier, as cudatovulkan's take-over (no fence: the copy's
 * fence, later on the same queue, covers it) */
static VkResult
d_submit_take (DCtx * d, DSlot * sl)
{
  return d_submit_cmd (d, sl, &sl->cmd_take, TRUE,
      VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, VK_NULL_HANDLE);
}

/* the consumer's measurements of a completed slot */
static void
d_consumed (DCtx * d, DSlot * sl)
{
  Run *run = d->run;
  CUresult r = CUDA_ERROR_INVALID_CONTEXT;
  gfloat kms = 0;

  d_check_frame (d, sl);
  if (gst_cuda_context_push (run->b->ctx)) {
    r = drv.cuEventSynchronize (sl->pair->ek);
    if (r == CUDA_SUCCESS)
      r = drv.cuEventElapsedTime (&kms, sl->pair->e0, sl->pair->ek);
    gst_cuda_context_pop (NULL);
  }
  if (r != CUDA_SUCCESS)
    run_error (run, cu_error ("d: cuEventElapsedTime", r));
  else if (sl->frame >= run->warmup) {
    series_add (run->lat_us, sl->t0 * 1e6);
    series_add (run->kern_us, kms * 1000.0);
  }
  /* the measured window, as s2_recycler() */
  run_window (run, sl->frame);
}

/* the consumer thread: waits for each slot's fence, then frees the slot */
static gpointer
d_consumer (gpointer data)
{
  DCtx *d = data;
  Run *run = d->run;

  for (;;) {
    DSlot *sl = g_async_queue_timeout_pop (d->done, RUN_WAIT_US);
    VkResult res;

    if (!sl) {
      run_error (run, g_strdup ("d: no frame submitted for 10 s"));
      break;
    }
    if (sl == (DSlot *) d)
      break;
    /* d_stall: the consumer submits (vulkandownload's shape) */
    if (d->stall && (res = d_submit (d, sl)) != VK_SUCCESS) {
      run_error (run, d_vk_error ("vkQueueSubmit", res));
      break;
    }
    res = vkWaitForFences (d->dev, 1, &sl->fence, VK_TRUE,
        (guint64) RUN_WAIT_US * 1000);
    sl->t0 = mono_s () - sl->t0;        /* latency */
    if (res != VK_SUCCESS) {
      run_error (run, d_vk_error ("vkWaitForFences", res));
      break;
    }
    vkResetFences (d->dev, 1, &sl->fence);
    d_consumed (d, sl);
    g_async_queue_push (d->free_slots, sl);
    bench_progress (&run->b->wd);
  }
  return NULL;
}

/* --- the frames --- */

/* the frame's CUDA work: write, copy into the images, signal (or the CPU
 * fallback); call with the context pushed. *what: the failed call. */
static CUresult
d_enqueue (DCtx * d, DSlot * sl, guint n, const gchar ** what)
{
  Run *run = d->run;
  CUstream pstream = run->spec.stream;
  CUresult r;
  guint p;

  *what = "cuEventRecord";
  r = drv.cuEventRecord (sl->pair->e0, pstream);
  if (r == CUDA_SUCCESS) {
    *what = run->spec.writer == WRITER_KERNEL ? "cuLaunchKernel" :
        "cuMemsetD32Async";
    r = frame_write (run->b, &run->spec, NULL, (guint8 *) (guintptr) sl->src,
        n);
  }
  if (r == CUDA_SUCCESS) {
    *what = "cuEventRecord";
    r = drv.cuEventRecord (sl->pair->ek, pstream);
  }
  for (p = 0; r == CUDA_SUCCESS && p < d->n_planes; p++) {
    CUDA_MEMCPY2D c;

    memset (&c, 0, sizeof (c));
    c.srcMemoryType = CU_MEMORYTYPE_DEVICE;
    c.srcDevice = sl->src + GST_VIDEO_INFO_PLANE_OFFSET (&run->spec.info, p);
    c.srcPitch = GST_VIDEO_INFO_PLANE_STRIDE (&run->spec.info, p);
    c.dstMemoryType = CU_MEMORYTYPE_DEVICE;
    c.dstDevice = sl->p[p].ptr + sl->p[p].offset;
    c.dstPitch = sl->p[p].pitch;
    c.WidthInBytes = sl->p[p].wbytes;
    c.Height = sl->p[p].rows;
    *what = "cuMemcpy2DAsync";
    r = CuMemcpy2DAsync (&c, pstream);
  }
  if (r == CUDA_SUCCESS && d->gpu) {
    CUDA_EXTERNAL_SEMAPHORE_SIGNAL_PARAMS sp;

    memset (&sp, 0, sizeof (sp));
    *what = "cuSignalExternalSemaphoresAsync";
    r = drv.cuSignalExternalSemaphoresAsync (&sl->cu_sem, &sp, 1, pstream);
  } else if (r == CUDA_SUCCESS) {
    *what = "cuStreamSynchronize (CPU fallback)";
    r = CuStreamSynchronize (pstream);
  }
  return r;
}

/* one frame on this (the producer) thread; FALSE: stop (run error set) */
static gboolean
d_produce (DCtx * d, guint n)
{
  Run *run = d->run;
  DSlot *sl = g_async_queue_timeout_pop (d->free_slots, RUN_WAIT_US);
  const gchar *what = NULL;
  VkResult res;
  CUresult r;

  if (!sl) {
    run_error (run, g_strdup ("d: no slot was released for 10 s"));
    return FALSE;
  }
  sl->frame = n;
  sl->t0 = mono_s ();
  if (!gst_cuda_context_push (run->b->ctx)) {
    run_error (run, g_strdup ("d: could not push the CUDA context"));
    return FALSE;
  }
  r = d_enqueue (d, sl, n, &what);
  gst_cuda_context_pop (NULL);
  if (r != CUDA_SUCCESS) {
    run_error (run, cu_error (what, r));
    return FALSE;
  }
  /* d_stall: the consumer submits (vulkandownload's shape); d_split: the
   * producer submits the semaphore wait first */
  if (d->split && (res = d_submit_take (d, sl)) != VK_SUCCESS) {
    run_error (run, d_vk_error ("vkQueueSubmit (take)", res));
    return FALSE;
  }
  if (!d->stall && (res = d_submit (d, sl)) != VK_SUCCESS) {
    run_error (run, d_vk_error ("vkQueueSubmit", res));
    return FALSE;
  }
  g_async_queue_push (d->done, sl);
  return TRUE;
}

/* the measured frames: this (the producer) thread is the critical one */
static void
d_frames (DCtx * d)
{
  Run *run = d->run;
  Bench *b = run->b;
  GThread *consumer;
  gdouble tcpu0 = 0;
  guint syncs0 = 0, n;

  for (n = 0; n < d->n_slots; n++)
    g_async_queue_push (d->free_slots, &d->slots[n]);
  bench_progress (&b->wd);
  consumer = g_thread_new ("bench-d-consumer", d_consumer, d);
  for (n = 0; n < run->total && !run_failed (run); n++) {
    if (bench_stopped (b)) {
      /* another instance failed: its device is ours */
      run_error (run, g_strdup ("d: " BENCH_STOPPED));
      break;
    }
    if (n == run->warmup) {
      /* window opened by the consumer at the last warm-up frame */
      tcpu0 = thread_cpu_s ();
      if (b->sim_thread_cpu_syncs)
        syncs0 = b->sim_thread_cpu_syncs ();
    }
    if (!d_produce (d, n))
      break;
    bench_progress (&b->wd);
  }
  run->prod_cpu = thread_cpu_s () - tcpu0;
  if (b->sim_thread_cpu_syncs)
    run->sim_syncs = b->sim_thread_cpu_syncs () - syncs0;
  g_async_queue_push (d->done, d);      /* stop */
  g_thread_join (consumer);
}

static gboolean
d_results (DCtx * d, ModeResult * m, gchar ** error)
{
  Run *run = d->run;

  if (run->error) {
    *error = g_strdup (run->error);
    return FALSE;
  }
  if (d->bad) {
    *error = g_strdup_printf ("d: the frame Vulkan copied is not what CUDA "
        "wrote: %s", d->bad);
    return FALSE;
  }
  if (run->lat_us->len != run->total - run->warmup) {
    *error = g_strdup_printf ("d: %u of %u frames measured",
        run->lat_us->len, run->total - run->warmup);
    return FALSE;
  }
  g_mutex_lock (&run->b->lock);
  run_record (run, m);
  g_free (m->path);
  m->path = g_strdup (d->gpu ? "GPU (binary semaphores)" :
      "CPU fallback (Vulkan cannot export semaphores: cuStreamSynchronize "
      "before vkQueueSubmit; not the raw limit)");
  g_mutex_unlock (&run->b->lock);
  return TRUE;
}

/* One repetition of mode d or d_stall. */
static gboolean
s3d_run_once (Bench * b, S2Config * cfg, gint mode, const RunInputs * in,
    gchar ** error)
{
  GstCaps *caps = cuda_caps (cfg->format, cfg->width, cfg->height);
  gboolean ok;
  DCtx d;
  Run run;

  run_init (&run, b, cfg, mode, in);
  gst_video_info_from_caps (&run.spec.info, caps);
  gst_caps_unref (caps);
  memset (&d, 0, sizeof (d));
  d.run = &run;
  d.n_slots = (guint) b->opt.in_flight;
  d.slots = g_new0 (DSlot, d.n_slots);
  d.done = g_async_queue_new ();
  d.free_slots = g_async_queue_new ();
  d.n_planes = GST_VIDEO_INFO_N_PLANES (&run.spec.info);
  d.verify_kernel = in->writer == WRITER_KERNEL;
  d.stall = mode == MODE_CV_D2 || mode == MODE_CV_D3;
  d.split = mode == MODE_CV_D3;

  ok = d_open (&d, b, error) && d_slots_setup (&d, error) &&
      d_record_all (&d, error);
  /* scenario 6: start with the other instances (a failed one arrives too) */
  if (cfg->gate)
    gate_arrive (cfg->gate, ok);
  if (ok) {
    d_frames (&d);
    ok = d_results (&d, &cfg->m[mode], error);
  }
  d_teardown (&d);
  run_clear (&run);
  /* the reference every ratio is measured against failed: the GPU or the
   * Vulkan device is in doubt (VK_ERROR_DEVICE_LOST, a CUDA error), so
   * nothing later that needs them runs */
  if (!ok && !(*error && g_str_has_suffix (*error, BENCH_STOPPED))) {
    gchar *why = g_strdup_printf ("raw mode %s (%dx%d %s, %g ms of GPU "
        "work) failed: %s", bench_mode_key (b, mode), cfg->width,
        cfg->height, cfg->format, cfg->gpu_us / 1000.0, *error ? *error : "?");

    bench_abort (b, why);
    g_free (why);
  }
  return ok;
}
#else
static gboolean
s3d_run_once (Bench * b, S2Config * cfg, gint mode, const RunInputs * in,
    gchar ** error)
{
  *error = g_strdup ("built without Vulkan");
  return FALSE;
}
#endif

/* the modes (of scenario 3, and run several at once by scenario 6) */

const BenchMode bench_mode_cv_d = {
  .key = "d",
  .desc = "raw-API limit, no GStreamer: the kernel, cuMemcpy2DAsync into "
      "Vulkan images imported into CUDA, a semaphore signal, a pre-recorded "
      "copy to host memory (as vulkandownload), a consumer thread waiting on "
      "its fence (no exportable semaphores: cuStreamSynchronize)",
  .flags = MODE_F_WALL,
  .run_once = s3d_run_once,
};

const BenchMode bench_mode_cv_d2 = {
  .key = "d_stall",
  .desc = "as d, but the consumer submits each copy and waits for its fence, "
      "one at a time, as GStreamer 1.22's vulkandownload does",
  .flags = MODE_F_WALL,
  .run_once = s3d_run_once,
};

const BenchMode bench_mode_cv_d3 = {
  .key = "d_split",
  .desc = "d_stall with the semaphore wait in a submission of its own by the "
      "producer (the bridge's submission shape)",
  .flags = MODE_F_WALL,
  .run_once = s3d_run_once,
};

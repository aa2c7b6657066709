/* gst-cudasync
 * Copyright (C) 2026 gst-cudasync developers
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The relay (see gstcudavkrelay.h). Its body exists on upstream main only
 * (GST_CUDA_SYNC_HAVE_VK_OPERATION_TIMELINES); elsewhere its calls relay
 * nothing.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstcudasync-compat.h"
#include "gstcudavkrelay.h"
#include "gstcudavkcompat.h"

#if GST_CUDA_SYNC_HAVE_VK_OPERATION_TIMELINES
GST_DEBUG_CATEGORY_EXTERN (gst_cuda_vk_debug);
#define GST_CAT_DEFAULT gst_cuda_vk_debug

/* an operation that gst_vulkan_operation_end() refuses with
 * VK_ERROR_OUT_OF_DATE_KHR (another user of a frame committed first) is
 * recorded again, as upstream's elements do; this many times at most */
#define RELAY_TRIES 8

struct _GstCudaVkRelay
{
  /* serialises the operation: give-backs run on whichever thread drops a
   * frame. Taken alone or under the interop's trash lock (a give-back from
   * its list's collection); under it only upstream's locks (the
   * operation's, the barrier state's, the images', the queue's submit
   * lock). A reset (after a conflict) waits on the CPU for the relay's
   * earlier operations, which depend on submitted work only. */
  GMutex lock;
  GstVulkanDevice *device;
  GstVulkanCommandPool *pool;
  GstVulkanOperation *op;
};

/* Whether every memory of @frame is a Vulkan image: each has a timeline
 * where the device has timeline semaphores, which the operation checks */
static gboolean
frame_has_timelines (GstBuffer * frame)
{
  guint i, n = gst_buffer_n_memory (frame);

  for (i = 0; i < n; i++) {
    if (!gst_is_vulkan_image_memory (gst_buffer_peek_memory (frame, i)))
      return FALSE;
  }
  return n > 0;
}

static GstVulkanHandle *
binary_semaphore_new (GstVulkanDevice * device, GError ** error)
{
  VkSemaphoreCreateInfo ci = {.sType = VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO,
  };
  VkSemaphore sem;
  VkResult res;

  res = vkCreateSemaphore (device->device, &ci, NULL, &sem);
  if (gst_vulkan_error_to_g_error (res, error, "vkCreateSemaphore") < 0)
    return NULL;
  return gst_vulkan_handle_new_wrapped (device,
      GST_VULKAN_HANDLE_TYPE_SEMAPHORE, (GstVulkanHandleTypedef) sem,
      gst_vulkan_handle_free_semaphore, NULL);
}

/* One operation on @frame's timelines that waits on @wait or signals
 * @signal (one of them). Every failure resets the operation (upstream's
 * end() leaves it begun when it could not make a fence or end the command
 * buffer), so that the next one starts clean. A conflict with another
 * user of the frame (its timeline moved between reading and committing,
 * seen by add_dependency_frame() or end()) is tried again. */
static gboolean
relay_run (GstCudaVkRelay * relay, GstBuffer * frame, GstVulkanHandle * wait,
    GstVulkanHandle * signal, GError ** error)
{
  guint tries;

  g_mutex_lock (&relay->lock);
  for (tries = 0; tries < RELAY_TRIES; tries++) {
    GError *err = NULL;

    /* upstream's begin() may set its error twice: none asked */
    if (!gst_vulkan_operation_begin (relay->op, NULL)) {
      g_set_error (error, GST_VULKAN_ERROR, VK_ERROR_INITIALIZATION_FAILED,
          "Could not begin a Vulkan operation on the frame's timelines");
      break;
    }
    if (!gst_vulkan_operation_add_dependency_frame (relay->op, frame,
            VK_PIPELINE_STAGE_ALL_COMMANDS_BIT,
            VK_PIPELINE_STAGE_ALL_COMMANDS_BIT)) {
      gst_vulkan_operation_reset (relay->op);
      GST_DEBUG ("frame %p: its timeline moved while added, again", frame);
      continue;
    }
    /* the operation owns what it is given until its fence signals */
    if (wait)
      gst_vulkan_operation_add_wait_semaphore (relay->op,
          gst_vulkan_handle_ref (wait), VK_PIPELINE_STAGE_ALL_COMMANDS_BIT);
    if (signal)
      gst_vulkan_operation_add_signal_semaphore (relay->op,
          gst_vulkan_handle_ref (signal), VK_PIPELINE_STAGE_ALL_COMMANDS_BIT);
    if (gst_vulkan_operation_end (relay->op, &err)) {
      g_mutex_unlock (&relay->lock);
      return TRUE;
    }
    gst_vulkan_operation_reset (relay->op);
    if (!g_error_matches (err, GST_VULKAN_ERROR, VK_ERROR_OUT_OF_DATE_KHR)) {
      g_propagate_error (error, err);
      break;
    }
    GST_DEBUG ("frame %p: another user committed first, again", frame);
    g_clear_error (&err);
  }
  if (tries == RELAY_TRIES)
    g_set_error (error, GST_VULKAN_ERROR, VK_ERROR_OUT_OF_DATE_KHR,
        "The frame's timeline semaphores changed %d times in a row while "
        "an operation on them was submitted", RELAY_TRIES);
  g_mutex_unlock (&relay->lock);
  return FALSE;
}
#endif

GstCudaVkRelay *
gst_cuda_vk_relay_new (GstVulkanQueue * queue, GError ** error)
{
#if GST_CUDA_SYNC_HAVE_VK_OPERATION_TIMELINES
  GstCudaVkRelay *relay;
  GstVulkanCommandPool *pool;

  pool = gst_vulkan_queue_create_command_pool (queue, error);
  if (!pool)
    return NULL;
  relay = g_new0 (GstCudaVkRelay, 1);
  g_mutex_init (&relay->lock);
  relay->device = gst_object_ref (queue->device);
  relay->pool = pool;
  relay->op = gst_vulkan_operation_new (pool);
  /* Upstream's operation handles the images' timelines and one's own
   * semaphores together only with timeline semaphores and
   * synchronization2; elsewhere images have no timelines to relay (or its
   * submission would go wrong), and the bridge keeps queue order */
  if (!gst_cuda_vk_compat_timeline_enabled (queue->device,
          queue->device->instance) || !gst_vulkan_operation_use_sync2
      (relay->op)) {
    GST_INFO_OBJECT (queue, "no timeline semaphores or no synchronization2: "
        "nothing to relay; the bridge is ordered by submission order");
    gst_cuda_vk_relay_free (relay);
    return NULL;
  }
  return relay;
#else
  return NULL;
#endif
}

void
gst_cuda_vk_relay_free (GstCudaVkRelay * relay)
{
#if GST_CUDA_SYNC_HAVE_VK_OPERATION_TIMELINES
  if (!relay)
    return;
  /* waits for the operations' fences and frees what they used */
  gst_vulkan_operation_reset (relay->op);
  gst_object_unref (relay->op);
  gst_object_unref (relay->pool);
  gst_object_unref (relay->device);
  g_mutex_clear (&relay->lock);
  g_free (relay);
#endif
}

gboolean
gst_cuda_vk_relay_prepare_after (GstCudaVkRelay * relay, GstBuffer * frame,
    GstVulkanHandle ** signal, GError ** error)
{
  *signal = NULL;
#if GST_CUDA_SYNC_HAVE_VK_OPERATION_TIMELINES
  if (!relay || !frame_has_timelines (frame))
    return TRUE;
  *signal = binary_semaphore_new (relay->device, error);
  return *signal != NULL;
#else
  return TRUE;
#endif
}

gboolean
gst_cuda_vk_relay_before (GstCudaVkRelay * relay, GstBuffer * frame,
    GstVulkanHandle ** wait, GError ** error)
{
  /* the same semaphore, made the same way: the operation signals it */
  if (!gst_cuda_vk_relay_prepare_after (relay, frame, wait, error))
    return FALSE;
#if GST_CUDA_SYNC_HAVE_VK_OPERATION_TIMELINES
  if (*wait && !relay_run (relay, frame, NULL, *wait, error)) {
    gst_clear_vulkan_handle (wait);
    return FALSE;
  }
#endif
  return TRUE;
}

gboolean
gst_cuda_vk_relay_after (GstCudaVkRelay * relay, GstBuffer * frame,
    GstVulkanHandle * signalled, GError ** error)
{
#if GST_CUDA_SYNC_HAVE_VK_OPERATION_TIMELINES
  if (relay && signalled)
    return relay_run (relay, frame, signalled, NULL, error);
#endif
  return TRUE;
}

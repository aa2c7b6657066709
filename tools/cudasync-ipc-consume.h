/* gst-cudasync
 * Copyright (C) 2026 gst-cudasync developers
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * cudasync-ipc-consume's two ways of reading the sink's frames: the CUDA
 * driver API (cudasync-ipc-consume.c) and Vulkan
 * (cudasync-ipc-consume-vulkan.c). The protocol is the same for both;
 * what differs is how the shared memory and the two timeline semaphores
 * are imported, waited for and signalled.
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

#define CONSUME_MAX_IDS 64

typedef struct
{
  const gchar *name;
  /* the device of the sink's HELLO (its UUID); our own UUID in @ours */
  gboolean (*open) (const guint8 uuid[16], guint8 ours[16]);
  /* a new fd of our release timeline semaphore (initial value 0) */
  gint (*release_fd) (void);
  /* the sink's acquire timeline semaphore; owns @fd on success */
  gboolean (*import_acquire) (gint fd);
  /* shareable memory of @size bytes as frame @slot; sets *@fd to -1 once
   * it owns the fd (it may fail after that) */
  gboolean (*import_buffer) (guint slot, gint * fd, guint64 size);
  /* the frames of the previous caps go */
  void (*drop_buffers) (void);
  /* after the acquire value: the first @size bytes of @slot into @dst, and
   * the release value signalled after that read */
  gboolean (*read) (guint slot, guint64 acquire, guint64 release, gsize size,
      guint8 * dst);
  /* every read and signal ran; everything goes */
  void (*close) (void);
} ConsumeBackend;

extern const ConsumeBackend consume_vulkan;

/* prints why the tool fails; FALSE (inline: both readers report alike,
 * and neither depends on the other's unit) */
static inline gboolean
consume_fail (const gchar * what)
{
  g_printerr ("cudasync-ipc-consume: %s\n", what);
  return FALSE;
}

G_END_DECLS

/* gst-cudasync
 * Copyright (C) 2026 gst-cudasync developers
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * cudasync-ipc-consume: the minimal receiver of docs/ipc-protocol.md, a
 * program of its own rather than a GStreamer element. It connects to a
 * cudasyncipcsink, checks the sink's credentials, imports the shared
 * memory and the sink's timeline semaphore, makes its own release
 * semaphore, and for each frame waits for the acquire value on the GPU,
 * copies the frame to the host, signals its release value after the copy
 * and sends RELEASE. It checks what the sink sends (ids, epochs, growing
 * values, layouts within the memory) and prints one line per frame with a
 * 64-bit FNV-1a hash of the frame's visible bytes, plane after plane.
 * GStreamer only parses the caps text.
 *
 * By default it reads with the CUDA driver API (through dlopen; the
 * release semaphore from testsem: Vulkan, or the simulator). With
 * --vulkan it reads with Vulkan alone (cudasync-ipc-consume-vulkan.c): the
 * memory is a VkBuffer, the waits and signals are those of a queue
 * submission, and no CUDA call is made.
 *
 *   cudasync-ipc-consume [--vulkan] SOCKET N
 *
 * Exit status 0 once N frames came (or the sink ended the stream), 1 on
 * an error or a violation.
 */
#define _GNU_SOURCE
#include "cudasync-ipc-consume.h"
#include <gst/cudasync/gstcudasyncipcproto.h>
#include "testsem.h"
#include <cuda.h>
#include <dlfcn.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

/* ---- the CUDA driver API ---- */

static struct
{
  __typeof__ (cuInit) * Init;
  __typeof__ (cuDeviceGet) * DeviceGet;
  __typeof__ (cuDeviceGetUuid) * DeviceGetUuid;
  __typeof__ (cuDevicePrimaryCtxRetain) * PrimaryCtxRetain;
  __typeof__ (cuCtxSetCurrent) * CtxSetCurrent;
  __typeof__ (cuStreamCreate) * StreamCreate;
  __typeof__ (cuStreamSynchronize) * StreamSynchronize;
  __typeof__ (cuImportExternalSemaphore) * ImportSem;
  __typeof__ (cuWaitExternalSemaphoresAsync) * WaitSem;
  __typeof__ (cuSignalExternalSemaphoresAsync) * SignalSem;
  __typeof__ (cuMemImportFromShareableHandle) * MemImport;
  __typeof__ (cuMemAddressReserve) * AddressReserve;
  __typeof__ (cuMemAddressFree) * AddressFree;
  __typeof__ (cuMemMap) * MemMap;
  __typeof__ (cuMemUnmap) * MemUnmap;
  __typeof__ (cuMemRelease) * MemRelease;
  __typeof__ (cuMemSetAccess) * MemSetAccess;
  __typeof__ (cuMemcpyDtoH) * MemcpyDtoH;
} cu;

static struct
{
  CUdevice dev;
  CUstream stream;
  CUexternalSemaphore acquire, release;
  TestSem *release_sem;
  struct
  {
    CUdeviceptr ptr;
    guint64 size;
  } mem[CONSUME_MAX_IDS];
} cuda;

#define CHECK(call, what) do { CUresult r_ = (call); if (r_ != CUDA_SUCCESS) \
    return consume_fail (what); } while (0)

static gboolean
load_cuda (void)
{
  void *lib = dlopen ("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);

  if (!lib)
    return FALSE;
#define SYM(field, name) if (!(*(void **) &cu.field = dlsym (lib, name))) \
    return FALSE
  SYM (Init, "cuInit");
  SYM (DeviceGet, "cuDeviceGet");
  SYM (DeviceGetUuid, "cuDeviceGetUuid");
  SYM (PrimaryCtxRetain, "cuDevicePrimaryCtxRetain");
  SYM (CtxSetCurrent, "cuCtxSetCurrent");
  SYM (StreamCreate, "cuStreamCreate");
  SYM (StreamSynchronize, "cuStreamSynchronize");
  SYM (ImportSem, "cuImportExternalSemaphore");
  SYM (WaitSem, "cuWaitExternalSemaphoresAsync");
  SYM (SignalSem, "cuSignalExternalSemaphoresAsync");
  SYM (MemImport, "cuMemImportFromShareableHandle");
  SYM (AddressReserve, "cuMemAddressReserve");
  SYM (AddressFree, "cuMemAddressFree");
  SYM (MemMap, "cuMemMap");
  SYM (MemUnmap, "cuMemUnmap");
  SYM (MemRelease, "cuMemRelease");
  SYM (MemSetAccess, "cuMemSetAccess");
  SYM (MemcpyDtoH, "cuMemcpyDtoH_v2");
#undef SYM
  return TRUE;
}

/* CUDA device 0 (the simulator has one; the sink's UUID is not compared) */
static gboolean
cuda_open (const guint8 uuid[16], guint8 ours[16])
{
  CUcontext ctx;
  CUuuid id;

  if (!load_cuda () || cu.Init (0) != CUDA_SUCCESS ||
      cu.DeviceGet (&cuda.dev, 0) != CUDA_SUCCESS ||
      cu.PrimaryCtxRetain (&ctx, cuda.dev) != CUDA_SUCCESS ||
      cu.CtxSetCurrent (ctx) != CUDA_SUCCESS ||
      cu.StreamCreate (&cuda.stream, CU_STREAM_NON_BLOCKING) != CUDA_SUCCESS)
    return consume_fail ("no CUDA driver");
  memset (ours, 0, 16);
  if (cu.DeviceGetUuid (&id, cuda.dev) == CUDA_SUCCESS)
    memcpy (ours, id.bytes, 16);
  return TRUE;
}

static gboolean
import_semaphore (gint fd, CUexternalSemaphore * sem)
{
  CUDA_EXTERNAL_SEMAPHORE_HANDLE_DESC d;

  memset (&d, 0, sizeof (d));
  d.type = CU_EXTERNAL_SEMAPHORE_HANDLE_TYPE_TIMELINE_SEMAPHORE_FD;
  d.handle.fd = fd;
  CHECK (cu.ImportSem (sem, &d), "cuImportExternalSemaphore");
  return TRUE;
}

static gboolean
cuda_import_acquire (gint fd)
{
  return import_semaphore (fd, &cuda.acquire);
}

/* our release semaphore: one fd imported here, one sent to the sink */
static gint
cuda_release_fd (void)
{
  gint fd;

  cuda.release_sem = test_sem_new (TRUE, 0);
  if (!cuda.release_sem)
    return -1;
  fd = test_sem_export_fd (cuda.release_sem);
  if (fd < 0 || !import_semaphore (fd, &cuda.release)) {
    if (fd >= 0)
      close (fd);
    return -1;
  }
  return test_sem_export_fd (cuda.release_sem);
}

static gboolean
cuda_import_buffer (guint slot, gint * fdp, guint64 size)
{
  const gint fd = *fdp;
  CUmemGenericAllocationHandle h;
  CUmemAccessDesc access;

  CHECK (cu.MemImport (&h, (void *) (gintptr) fd,
          CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR),
      "cuMemImportFromShareableHandle");
  CHECK (cu.AddressReserve (&cuda.mem[slot].ptr, size, 0, 0, 0),
      "cuMemAddressReserve");
  cuda.mem[slot].size = size;
  CHECK (cu.MemMap (cuda.mem[slot].ptr, size, 0, h, 0), "cuMemMap");
  /* the mapping keeps the memory */
  cu.MemRelease (h);
  memset (&access, 0, sizeof (access));
  access.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
  access.location.id = cuda.dev;
  access.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
  CHECK (cu.MemSetAccess (cuda.mem[slot].ptr, size, &access, 1),
      "cuMemSetAccess");
  /* (the import leaves the fd ours) */
  close (fd);
  *fdp = -1;
  return TRUE;
}

static void
cuda_drop_buffers (void)
{
  guint i;

  cu.StreamSynchronize (cuda.stream);
  for (i = 0; i < CONSUME_MAX_IDS; i++) {
    if (!cuda.mem[i].ptr)
      continue;
    cu.MemUnmap (cuda.mem[i].ptr, cuda.mem[i].size);
    cu.AddressFree (cuda.mem[i].ptr, cuda.mem[i].size);
    cuda.mem[i].ptr = 0;
  }
}

static gboolean
cuda_read (guint slot, guint64 acquire, guint64 release, gsize size,
    guint8 * dst)
{
  CUDA_EXTERNAL_SEMAPHORE_WAIT_PARAMS wp;
  CUDA_EXTERNAL_SEMAPHORE_SIGNAL_PARAMS sp;

  memset (&wp, 0, sizeof (wp));
  wp.params.fence.value = acquire;
  CHECK (cu.WaitSem (&cuda.acquire, &wp, 1, cuda.stream),
      "cuWaitExternalSemaphoresAsync");
  /* the copy is synchronous: it follows the wait on this stream's device,
   * and the hash needs the bytes on the CPU anyway */
  CHECK (cu.StreamSynchronize (cuda.stream), "cuStreamSynchronize");
  CHECK (cu.MemcpyDtoH (dst, cuda.mem[slot].ptr, size), "cuMemcpyDtoH");
  memset (&sp, 0, sizeof (sp));
  sp.params.fence.value = release;
  CHECK (cu.SignalSem (&cuda.release, &sp, 1, cuda.stream),
      "cuSignalExternalSemaphoresAsync");
  return TRUE;
}

static void
cuda_close (void)
{
  cuda_drop_buffers ();
  g_clear_pointer (&cuda.release_sem, test_sem_free);
}

static const ConsumeBackend consume_cuda = {
  "CUDA", cuda_open, cuda_release_fd, cuda_import_acquire,
  cuda_import_buffer, cuda_drop_buffers, cuda_read, cuda_close
};

/* ---- the protocol ---- */

typedef struct
{
  const ConsumeBackend *be;
  gint sock;
  guint64 acquire_last, release_last;
  guint max_buffers;
  guint32 epoch;
  gboolean opened, have_acquire, have_caps;
  GstVideoInfo info;
  GstCudaSyncIpcCaps layout;
  guint32 ids[CONSUME_MAX_IDS];
  guint n_imports;
  guint8 *frame;
} Consumer;

/* the sink's HELLO: our device, then our HELLO and release semaphore */
static gboolean
hello (Consumer * c, const GstCudaSyncIpcMsg * msg)
{
  const GstCudaSyncIpcHello *h = (const void *) msg->body;
  GstCudaSyncIpcHello ours = { 1, 0, GST_CUDA_SYNC_IPC_ROLE_SOURCE };
  GstCudaSyncIpcSemaphore sm = { GST_CUDA_SYNC_IPC_SEM_RELEASE, 1, 0 };
  gboolean ok;
  gint fd;

  if (c->opened
      || !gst_cuda_sync_ipc_check_hello (msg, GST_CUDA_SYNC_IPC_ROLE_SINK,
          NULL))
    return consume_fail ("not a cudasyncipcsink");
  c->max_buffers = MIN (h->max_buffers, CONSUME_MAX_IDS);
  if (!c->be->open (h->device_uuid, ours.device_uuid))
    return FALSE;
  c->opened = TRUE;
  if ((fd = c->be->release_fd ()) < 0)
    return consume_fail ("no release semaphore");
  ok = gst_cuda_sync_ipc_send (c->sock, GST_CUDA_SYNC_IPC_MSG_HELLO, &ours,
      sizeof (ours), NULL, 0, -1, NULL) &&
      gst_cuda_sync_ipc_send (c->sock, GST_CUDA_SYNC_IPC_MSG_SEMAPHORE, &sm,
      sizeof (sm), NULL, 0, fd, NULL);
  close (fd);
  return ok ? TRUE : consume_fail ("could not send HELLO and SEMAPHORE");
}

static gboolean
buffer (Consumer * c, GstCudaSyncIpcMsg * msg)
{
  const GstCudaSyncIpcBuffer *b = (const void *) msg->body;
  gint fd = msg->fd;
  gboolean ok;

  if (!c->have_caps || b->epoch != c->epoch ||
      c->n_imports >= c->max_buffers || b->alloc_size < c->layout.size)
    return consume_fail ("BUFFER out of place or too small");
  ok = c->be->import_buffer (c->n_imports, &fd, b->alloc_size);
  if (fd < 0)
    gst_cuda_sync_ipc_msg_take_fd (msg);
  if (ok)
    c->ids[c->n_imports++] = b->id;
  return ok;
}

static guint64
hash_frame (Consumer * c)
{
  guint64 hash = 0xcbf29ce484222325ull;
  guint i, p;

  for (p = 0; p < c->layout.n_planes; p++) {
    gint comp[GST_VIDEO_MAX_COMPONENTS], y;
    guint bytes;
    gst_video_format_info_component (c->info.finfo, p, comp);
    bytes = GST_VIDEO_INFO_COMP_WIDTH (&c->info, comp[0]) *
        GST_VIDEO_INFO_COMP_PSTRIDE (&c->info, comp[0]);
    for (y = 0; y < GST_VIDEO_INFO_COMP_HEIGHT (&c->info, comp[0]); y++) {
      const guint8 *row = c->frame + c->layout.offset[p] +
          (guint64) y * c->layout.stride[p];
      for (i = 0; i < bytes; i++)
        hash = (hash ^ row[i]) * 0x100000001b3ull;
    }
  }
  return hash;
}

/* read the frame after its acquire value, signal the release value after
 * the read, send RELEASE; prints the frame's hash */
static gboolean
frame (Consumer * c, const GstCudaSyncIpcFrame * f, guint index)
{
  GstCudaSyncIpcRelease rel = { f->id, 0, c->release_last + 1 };
  guint slot;

  for (slot = 0; slot < c->n_imports && c->ids[slot] != f->id; slot++);
  if (slot == c->n_imports || f->epoch != c->epoch ||
      f->acquire_value <= c->acquire_last || !c->have_acquire)
    return consume_fail ("FRAME of an unknown id or epoch, or a value not "
        "growing");
  c->acquire_last = f->acquire_value;
  if (!c->be->read (slot, f->acquire_value, rel.release_value,
          c->layout.size, c->frame))
    return FALSE;
  c->release_last = rel.release_value;
  if (!gst_cuda_sync_ipc_send (c->sock, GST_CUDA_SYNC_IPC_MSG_RELEASE, &rel,
          sizeof (rel), NULL, 0, -1, NULL))
    return consume_fail ("could not send RELEASE");
  g_print ("frame %u id %u %dx%d hash %016" G_GINT64_MODIFIER "x\n", index,
      f->id, GST_VIDEO_INFO_WIDTH (&c->info), GST_VIDEO_INFO_HEIGHT (&c->info),
      hash_frame (c));
  return TRUE;
}

static gboolean
caps (Consumer * c, const GstCudaSyncIpcMsg * msg)
{
  GstCaps *caps = NULL;

  if (!c->opened || !gst_cuda_sync_ipc_parse_caps (msg, &caps, &c->info, NULL))
    return consume_fail ("invalid CAPS");
  g_print ("caps %" GST_PTR_FORMAT "\n", caps);
  gst_caps_unref (caps);
  memcpy (&c->layout, msg->body, sizeof (c->layout));
  c->epoch = c->layout.epoch;
  c->have_caps = TRUE;
  /* a new epoch: ids start over */
  c->be->drop_buffers ();
  c->n_imports = 0;
  g_free (c->frame);
  c->frame = g_malloc (c->layout.size);
  return TRUE;
}

/* one message; 1: a frame, 0: more to read, -1: error, 2: the end */
static gint
handle (Consumer * c, GstCudaSyncIpcMsg * msg, guint frames)
{
  const GstCudaSyncIpcSemaphore *sm = (const void *) msg->body;

  switch (msg->hdr.type) {
    case GST_CUDA_SYNC_IPC_MSG_HELLO:
      return hello (c, msg) ? 0 : -1;
    case GST_CUDA_SYNC_IPC_MSG_SEMAPHORE:
      if (!c->opened || sm->purpose != GST_CUDA_SYNC_IPC_SEM_ACQUIRE ||
          c->have_acquire || !c->be->import_acquire (msg->fd))
        return consume_fail ("SEMAPHORE out of place"), -1;
      gst_cuda_sync_ipc_msg_take_fd (msg);
      c->have_acquire = TRUE;
      c->acquire_last = sm->initial_value;
      return 0;
    case GST_CUDA_SYNC_IPC_MSG_CAPS:
      return caps (c, msg) ? 0 : -1;
    case GST_CUDA_SYNC_IPC_MSG_BUFFER:
      return buffer (c, msg) ? 0 : -1;
    case GST_CUDA_SYNC_IPC_MSG_FRAME:
      return frame (c, (const void *) msg->body, frames) ? 1 : -1;
    case GST_CUDA_SYNC_IPC_MSG_EOS:
    case GST_CUDA_SYNC_IPC_MSG_BYE:
      return 2;
    default:
      return consume_fail ("a message out of place"), -1;
  }
}

static gint
connect_to (const gchar * path)
{
  struct sockaddr_un addr;
  gint fd = socket (AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
  guint uid;
  gint pid;

  memset (&addr, 0, sizeof (addr));
  addr.sun_family = AF_UNIX;
  g_strlcpy (addr.sun_path, path, sizeof (addr.sun_path));
  if (fd < 0 || connect (fd, (struct sockaddr *) &addr, sizeof (addr)) != 0 ||
      !gst_cuda_sync_ipc_check_peer (fd, "", &uid, &pid, NULL)) {
    if (fd >= 0)
      close (fd);
    return -1;
  }
  return fd;
}

int
main (int argc, char **argv)
{
  Consumer c;
  GstCudaSyncIpcMsg *msg = g_new (GstCudaSyncIpcMsg, 1);
  GstCudaSyncIpcBye bye = { 0, 0 };
  gboolean vulkan = argc == 4 && g_str_equal (argv[1], "--vulkan");
  guint n, frames = 0;
  gint r = 0;

  if (argc != 3 && !vulkan)
    return consume_fail ("usage: cudasync-ipc-consume [--vulkan] SOCKET N"), 1;
  gst_init (NULL, NULL);
  memset (&c, 0, sizeof (c));
  c.be = vulkan ? &consume_vulkan : &consume_cuda;
  n = atoi (argv[argc - 1]);
  c.sock = connect_to (argv[argc - 2]);
  if (c.sock < 0)
    return consume_fail ("could not connect to the sink"), 1;
  while (frames < n && r >= 0 && r != 2) {
    gint got = gst_cuda_sync_ipc_recv (c.sock, msg, NULL);
    if (got <= 0)
      return consume_fail ("the sink went away or sent garbage"), 1;
    r = handle (&c, msg, frames);
    frames += r == 1;
    gst_cuda_sync_ipc_msg_clear (msg);
  }
  /* our release signals are enqueued: BYE, and the sink does not rescue */
  gst_cuda_sync_ipc_send (c.sock, GST_CUDA_SYNC_IPC_MSG_BYE, &bye, sizeof (bye),
      NULL, 0, -1, NULL);
  if (c.opened)
    c.be->close ();
  g_print ("frames %u (%s)\n", frames, c.be->name);
  close (c.sock);
  g_free (c.frame);
  g_free (msg);
  return r < 0 ? 1 : 0;
}

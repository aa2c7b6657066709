/* gst-cudasync
 * Copyright (C) 2026 gst-cudasync developers
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * cudasync-ipc-consume: the minimal receiver of docs/ipc-protocol.md, a
 * program of its own rather than a GStreamer element. It connects to a
 * cudasyncipcsink, checks the sink's credentials, imports the shared
 * memory (cuMemImportFromShareableHandle, cuMemMap) and the sink's
 * timeline semaphore into CUDA (driver API through dlopen), makes its own
 * release semaphore (testsem: Vulkan, or the simulator), and for each
 * frame waits for the acquire value on its stream, copies the visible
 * rows to the host, signals its release value after the copy and sends
 * RELEASE. It checks what the sink sends (ids, epochs, growing values,
 * layouts within the memory) and prints one line per frame with a
 * 64-bit FNV-1a hash of the frame's visible bytes, plane after plane.
 * GStreamer only parses the caps text.
 *
 *   cudasync-ipc-consume SOCKET N
 *
 * Exit status 0 once N frames came (or the sink ended the stream), 1 on
 * an error or a violation.
 */
#define _GNU_SOURCE
#include "gstcudaipcproto.h"
#include "testsem.h"
#include <cuda.h>
#include <dlfcn.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#define MAX_IDS 64

static struct
{
  __typeof__ (cuInit) * Init;
  __typeof__ (cuDeviceGet) * DeviceGet;
  __typeof__ (cuDevicePrimaryCtxRetain) * PrimaryCtxRetain;
  __typeof__ (cuCtxSetCurrent) * CtxSetCurrent;
  __typeof__ (cuStreamCreate) * StreamCreate;
  __typeof__ (cuStreamSynchronize) * StreamSynchronize;
  __typeof__ (cuImportExternalSemaphore) * ImportSem;
  __typeof__ (cuWaitExternalSemaphoresAsync) * WaitSem;
  __typeof__ (cuSignalExternalSemaphoresAsync) * SignalSem;
  __typeof__ (cuMemImportFromShareableHandle) * MemImport;
  __typeof__ (cuMemAddressReserve) * AddressReserve;
  __typeof__ (cuMemMap) * MemMap;
  __typeof__ (cuMemSetAccess) * MemSetAccess;
  __typeof__ (cuMemcpyDtoH) * MemcpyDtoH;
} cu;

typedef struct
{
  guint32 id;
  CUdeviceptr ptr;
  guint64 size;
} Import;

typedef struct
{
  gint sock;
  CUdevice dev;
  CUstream stream;
  CUexternalSemaphore acquire, release;
  guint64 acquire_last, release_last;
  guint max_buffers;
  guint32 epoch;
  gboolean have_caps;
  GstVideoInfo info;
  GstCudaIpcCaps layout;
  Import imports[MAX_IDS];
  guint n_imports;
} Consumer;

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
  SYM (PrimaryCtxRetain, "cuDevicePrimaryCtxRetain");
  SYM (CtxSetCurrent, "cuCtxSetCurrent");
  SYM (StreamCreate, "cuStreamCreate");
  SYM (StreamSynchronize, "cuStreamSynchronize");
  SYM (ImportSem, "cuImportExternalSemaphore");
  SYM (WaitSem, "cuWaitExternalSemaphoresAsync");
  SYM (SignalSem, "cuSignalExternalSemaphoresAsync");
  SYM (MemImport, "cuMemImportFromShareableHandle");
  SYM (AddressReserve, "cuMemAddressReserve");
  SYM (MemMap, "cuMemMap");
  SYM (MemSetAccess, "cuMemSetAccess");
  SYM (MemcpyDtoH, "cuMemcpyDtoH_v2");
#undef SYM
  return TRUE;
}

static gboolean
fail (const gchar * what)
{
  g_printerr ("cudasync-ipc-consume: %s\n", what);
  return FALSE;
}

#define CHECK(call, what) do { CUresult r_ = (call); if (r_ != CUDA_SUCCESS) \
    return fail (what); } while (0)

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

/* our release semaphore: one fd imported here, one sent to the sink */
static gboolean
send_hello (Consumer * c, TestSem ** ts)
{
  GstCudaIpcHello hello = { 1, 0, GST_CUDA_IPC_ROLE_SOURCE };
  GstCudaIpcSemaphore sm = { GST_CUDA_IPC_SEM_RELEASE, 1, 0 };
  gint fd;

  *ts = test_sem_new (TRUE, 0);
  if (!*ts || !import_semaphore (test_sem_export_fd (*ts), &c->release))
    return fail ("no release semaphore");
  fd = test_sem_export_fd (*ts);
  if (!gst_cuda_ipc_send (c->sock, GST_CUDA_IPC_MSG_HELLO, &hello,
          sizeof (hello), NULL, 0, -1, NULL) ||
      !gst_cuda_ipc_send (c->sock, GST_CUDA_IPC_MSG_SEMAPHORE, &sm,
          sizeof (sm), NULL, 0, fd, NULL))
    return fail ("could not send HELLO and SEMAPHORE");
  close (fd);
  return TRUE;
}

static gboolean
map_buffer (Consumer * c, const GstCudaIpcBuffer * b, gint fd)
{
  CUmemGenericAllocationHandle h;
  CUmemAccessDesc access;
  Import *imp;

  if (!c->have_caps || b->epoch != c->epoch || c->n_imports >= MAX_IDS ||
      c->n_imports >= c->max_buffers || b->alloc_size < c->layout.size)
    return fail ("BUFFER out of place or too small");
  imp = &c->imports[c->n_imports++];
  imp->id = b->id;
  imp->size = b->alloc_size;
  CHECK (cu.MemImport (&h, (void *) (gintptr) fd,
          CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR),
      "cuMemImportFromShareableHandle");
  CHECK (cu.AddressReserve (&imp->ptr, b->alloc_size, 0, 0, 0),
      "cuMemAddressReserve");
  CHECK (cu.MemMap (imp->ptr, b->alloc_size, 0, h, 0), "cuMemMap");
  memset (&access, 0, sizeof (access));
  access.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
  access.location.id = c->dev;
  access.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
  CHECK (cu.MemSetAccess (imp->ptr, b->alloc_size, &access, 1),
      "cuMemSetAccess");
  return TRUE;
}

/* wait for the acquire value, copy the visible rows, signal the release
 * value, send RELEASE; prints the frame's hash */
static gboolean
read_frame (Consumer * c, const GstCudaIpcFrame * f, guint index)
{
  CUDA_EXTERNAL_SEMAPHORE_WAIT_PARAMS wp;
  CUDA_EXTERNAL_SEMAPHORE_SIGNAL_PARAMS sp;
  GstCudaIpcRelease rel = { f->id, 0, c->release_last + 1 };
  guint64 hash = 0xcbf29ce484222325ull;
  Import *imp = NULL;
  guint8 *row;
  guint i, p;

  for (i = 0; i < c->n_imports; i++)
    if (c->imports[i].id == f->id)
      imp = &c->imports[i];
  if (!imp || f->epoch != c->epoch || f->acquire_value <= c->acquire_last)
    return fail ("FRAME of an unknown id or epoch, or a value not growing");
  c->acquire_last = f->acquire_value;
  memset (&wp, 0, sizeof (wp));
  wp.params.fence.value = f->acquire_value;
  CHECK (cu.WaitSem (&c->acquire, &wp, 1, c->stream),
      "cuWaitExternalSemaphoresAsync");
  /* the copies are synchronous: they follow the wait on this stream's
   * device, and the hash needs the bytes on the CPU anyway */
  CHECK (cu.StreamSynchronize (c->stream), "cuStreamSynchronize");
  row = g_malloc (c->layout.stride[0] + c->layout.stride[1] +
      c->layout.stride[2] + c->layout.stride[3]);
  for (p = 0; p < c->layout.n_planes; p++) {
    gint comp[GST_VIDEO_MAX_COMPONENTS], y;
    guint bytes;
    gst_video_format_info_component (c->info.finfo, p, comp);
    bytes = GST_VIDEO_INFO_COMP_WIDTH (&c->info, comp[0]) *
        GST_VIDEO_INFO_COMP_PSTRIDE (&c->info, comp[0]);
    for (y = 0; y < GST_VIDEO_INFO_COMP_HEIGHT (&c->info, comp[0]); y++) {
      CHECK (cu.MemcpyDtoH (row, imp->ptr + c->layout.offset[p] +
              (guint64) y * c->layout.stride[p], bytes), "cuMemcpyDtoH");
      for (i = 0; i < bytes; i++)
        hash = (hash ^ row[i]) * 0x100000001b3ull;
    }
  }
  g_free (row);
  memset (&sp, 0, sizeof (sp));
  sp.params.fence.value = rel.release_value;
  CHECK (cu.SignalSem (&c->release, &sp, 1, c->stream),
      "cuSignalExternalSemaphoresAsync");
  c->release_last = rel.release_value;
  if (!gst_cuda_ipc_send (c->sock, GST_CUDA_IPC_MSG_RELEASE, &rel,
          sizeof (rel), NULL, 0, -1, NULL))
    return fail ("could not send RELEASE");
  g_print ("frame %u id %u %dx%d hash %016" G_GINT64_MODIFIER "x\n", index,
      f->id, GST_VIDEO_INFO_WIDTH (&c->info), GST_VIDEO_INFO_HEIGHT (&c->info),
      hash);
  return TRUE;
}

/* one message; 1: a frame, 0: more to read, -1: error, 2: the end */
static gint
handle (Consumer * c, GstCudaIpcMsg * msg, guint frames)
{
  const GstCudaIpcSemaphore *sm = (const void *) msg->body;
  GstCaps *caps = NULL;

  switch (msg->hdr.type) {
    case GST_CUDA_IPC_MSG_HELLO:
      if (!gst_cuda_ipc_check_hello (msg, GST_CUDA_IPC_ROLE_SINK, NULL))
        return fail ("not a cudasyncipcsink"), -1;
      c->max_buffers = ((const GstCudaIpcHello *) msg->body)->max_buffers;
      return 0;
    case GST_CUDA_IPC_MSG_SEMAPHORE:
      if (sm->purpose != GST_CUDA_IPC_SEM_ACQUIRE || c->acquire ||
          !import_semaphore (msg->fd, &c->acquire))
        return -1;
      gst_cuda_ipc_msg_take_fd (msg);
      c->acquire_last = sm->initial_value;
      return 0;
    case GST_CUDA_IPC_MSG_CAPS:
      if (!gst_cuda_ipc_parse_caps (msg, &caps, &c->info, NULL))
        return fail ("invalid CAPS"), -1;
      g_print ("caps %" GST_PTR_FORMAT "\n", caps);
      gst_caps_unref (caps);
      memcpy (&c->layout, msg->body, sizeof (c->layout));
      c->epoch = c->layout.epoch;
      c->have_caps = TRUE;
      c->n_imports = 0;         /* a new epoch: ids start over */
      return 0;
    case GST_CUDA_IPC_MSG_BUFFER:
      return map_buffer (c, (const void *) msg->body, msg->fd) ?
          (gst_cuda_ipc_msg_take_fd (msg), 0) : -1;
    case GST_CUDA_IPC_MSG_FRAME:
      return read_frame (c, (const void *) msg->body, frames) ? 1 : -1;
    case GST_CUDA_IPC_MSG_EOS:
    case GST_CUDA_IPC_MSG_BYE:
      return 2;
    default:
      return fail ("a message out of place"), -1;
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
      !gst_cuda_ipc_check_peer (fd, "", &uid, &pid, NULL)) {
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
  GstCudaIpcMsg *msg = g_new (GstCudaIpcMsg, 1);
  GstCudaIpcBye bye = { 0, 0 };
  CUcontext ctx;
  TestSem *ts = NULL;
  guint n, frames = 0;
  gint r = 0;

  if (argc != 3)
    return fail ("usage: cudasync-ipc-consume SOCKET N"), 1;
  gst_init (NULL, NULL);
  n = atoi (argv[2]);
  memset (&c, 0, sizeof (c));
  if (!load_cuda () || cu.Init (0) != CUDA_SUCCESS ||
      cu.DeviceGet (&c.dev, 0) != CUDA_SUCCESS ||
      cu.PrimaryCtxRetain (&ctx, c.dev) != CUDA_SUCCESS ||
      cu.CtxSetCurrent (ctx) != CUDA_SUCCESS ||
      cu.StreamCreate (&c.stream, CU_STREAM_NON_BLOCKING) != CUDA_SUCCESS)
    return fail ("no CUDA driver"), 1;
  c.sock = connect_to (argv[1]);
  if (c.sock < 0 || !send_hello (&c, &ts))
    return fail ("could not connect to the sink"), 1;
  while (frames < n && r >= 0 && r != 2) {
    gint got = gst_cuda_ipc_recv (c.sock, msg, NULL);
    if (got <= 0)
      return fail ("the sink went away or sent garbage"), 1;
    r = handle (&c, msg, frames);
    frames += r == 1;
    gst_cuda_ipc_msg_clear (msg);
  }
  /* our release signals are enqueued: BYE, and the sink does not rescue */
  gst_cuda_ipc_send (c.sock, GST_CUDA_IPC_MSG_BYE, &bye, sizeof (bye), NULL,
      0, -1, NULL);
  cu.StreamSynchronize (c.stream);
  g_print ("frames %u\n", frames);
  close (c.sock);
  g_free (msg);
  return r < 0 ? 1 : 0;
}

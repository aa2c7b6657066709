#!/usr/bin/env python3
# gst-cudasync: the library through GObject introspection (Python).
# Runs on the simulated driver (its exporter creates the semaphore); exits 77
# (skipped) on a real driver, where the C tests create semaphores through
# Vulkan.
import ctypes
import sys

import gi
gi.require_version('Gst', '1.0')
gi.require_version('GstCuda', '1.0')
gi.require_version('GstCudaSync', '1.0')
from gi.repository import Gst, GstCuda, GstCudaSync  # noqa: E402

# an empty argv, not None: 1.28 annotates gst_init()'s arguments (optional)
# instead of (allow-none), and PyGObject without gst-python's overrides
# then refuses None
Gst.init([])
assert GstCudaSync.cuda_sync_init()
assert GstCuda.cuda_load_library()

cuda = ctypes.CDLL('libcuda.so.1')
if not hasattr(cuda, 'cudasim_sem_create'):
    print('real driver: skipped (the simulator exporter is needed)')
    sys.exit(77)
cuda.cudasim_sem_get_value.restype = ctypes.c_uint64
cuda.cudasim_sem_host_wait.argtypes = [ctypes.c_int, ctypes.c_uint64, ctypes.c_uint64]

ctx = GstCuda.CudaContext.new(0)
sem_id = cuda.cudasim_sem_create(1, 0)
fd = cuda.cudasim_sem_export_fd(sem_id)
sem = GstCudaSync.CudaSemaphore.import_fd(
    ctx, GstCudaSync.CudaSemaphoreHandleType.TIMELINE_FD, fd)
assert sem.is_timeline()
assert sem.get_handle_type() == GstCudaSync.CudaSemaphoreHandleType.TIMELINE_FD
assert sem.props.handle_type == GstCudaSync.CudaSemaphoreHandleType.TIMELINE_FD

# signal twice on the legacy default stream: values 1 and 2
ok, v1 = sem.signal(None)
ok2, v2 = sem.signal(None)
assert ok and ok2 and (v1, v2) == (1, 2), (v1, v2)
assert sem.props.last_value == 2
assert cuda.cudasim_sem_host_wait(sem_id, 2, 10 * 1000 * 1000 * 1000) == 0

# a value that does not increase is refused with the library's error domain
try:
    sem.signal_value(None, 2)
    raise AssertionError('non-increasing value accepted')
except gi.repository.GLib.Error as e:
    assert e.matches(GstCudaSync.cuda_sync_error_quark(),
                     GstCudaSync.CudaSyncError.PROTOCOL), e

# a bad fd gives INVALID_HANDLE
try:
    GstCudaSync.CudaSemaphore.import_fd(
        ctx, GstCudaSync.CudaSemaphoreHandleType.TIMELINE_FD, -1)
    raise AssertionError('fd -1 accepted')
except gi.repository.GLib.Error as e:
    assert e.matches(GstCudaSync.cuda_sync_error_quark(),
                     GstCudaSync.CudaSyncError.INVALID_HANDLE), e

# the meta: acquire points on a buffer, shared by a copy
buf = Gst.Buffer.new_allocate(None, 16, None)
meta = GstCudaSync.buffer_add_cuda_sync_meta(buf)
meta.add_acquire(sem, 2)
assert meta.get_n_acquire() == 1
got, value = meta.get_acquire(0)
assert got == sem and value == 2, (got, value)
assert meta.wait_gpu(None)
assert meta.wait_cpu(Gst.CLOCK_TIME_NONE)

# ALLOCATION query round trip
caps = Gst.Caps.from_string('video/x-raw(memory:CUDAMemory),format=NV12,width=64,height=48')
q = Gst.Query.new_allocation(caps, False)
GstCudaSync.query_add_cuda_sync_meta(
    q, GstCudaSync.CudaSemaphoreHandleTypeFlags.TIMELINE_FD, sem)
found, types, offered = GstCudaSync.query_parse_cuda_sync_meta(q)
assert found and offered == sem
assert types == GstCudaSync.CudaSemaphoreHandleTypeFlags.TIMELINE_FD

del meta, buf, sem, got, offered
GstCudaSync.cuda_sync_wait_idle()
cuda.cudasim_sem_unref(sem_id)
print('GstCudaSync introspection: OK')

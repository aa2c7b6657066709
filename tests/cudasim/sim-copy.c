/* cudasim: copies and memsets.
 *
 * 1D and 2D copies between host, device and unified memory, 1D and 2D
 * memsets; synchronous ones go through the legacy NULL stream and wait
 * (sim_submit_locked(), sim-stream.c).  Device ranges must lie inside one
 * allocation of the table in sim-registry.c.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "cudasim-internal.h"

#include <stdlib.h>
#include <string.h>

/* resolves one side of a 2D copy: returns the first byte, or NULL on error */
static CUresult
sim_copy_side_locked (CUmemorytype type, const void *host, CUdeviceptr dev,
    size_t x, size_t y, size_t pitch, size_t width, size_t height,
    uint8_t ** out)
{
  uint8_t *base;
  size_t span;

  switch (type) {
    case CU_MEMORYTYPE_HOST:
      base = (uint8_t *) host;
      break;
    case CU_MEMORYTYPE_DEVICE:
    case CU_MEMORYTYPE_UNIFIED:
      base = (uint8_t *) (uintptr_t) dev;
      break;
    case CU_MEMORYTYPE_ARRAY:
      return CUDA_ERROR_NOT_SUPPORTED;
    default:
      return CUDA_ERROR_INVALID_VALUE;
  }
  if (!base)
    return CUDA_ERROR_INVALID_VALUE;
  if (height > 1 && pitch < width)
    return CUDA_ERROR_INVALID_VALUE;
  base += y * pitch + x;
  span = (height - 1) * pitch + width;
  /* device pointers must lie in one allocation; a unified pointer is
   * checked the same way when it starts inside a known allocation (else it
   * is host memory, which cannot be checked) */
  if (type == CU_MEMORYTYPE_DEVICE &&
      !sim_alloc_contains_locked (base, span, NULL, NULL))
    return CUDA_ERROR_INVALID_VALUE;
  if (type == CU_MEMORYTYPE_UNIFIED &&
      sim_alloc_contains_locked (base, 1, NULL, NULL) &&
      !sim_alloc_contains_locked (base, span, NULL, NULL))
    return CUDA_ERROR_INVALID_VALUE;
  *out = base;
  return CUDA_SUCCESS;
}

static CUresult
sim_copy2d (const CUDA_MEMCPY2D * p, CUstream stream, SimSubmit mode,
    SimEntry entry)
{
  uint8_t *src = NULL, *dst = NULL;
  SimOp *op;
  CUresult r;

  if (!p)
    return CUDA_ERROR_INVALID_VALUE;

  pthread_mutex_lock (&g_sim.lock);
  if (p->WidthInBytes == 0 || p->Height == 0) {
    op = sim_op_new (OP_NOP, entry);
  } else {
    r = sim_copy_side_locked (p->srcMemoryType, p->srcHost, p->srcDevice,
        p->srcXInBytes, p->srcY, p->srcPitch, p->WidthInBytes, p->Height, &src);
    if (r == CUDA_SUCCESS)
      r = sim_copy_side_locked (p->dstMemoryType, p->dstHost, p->dstDevice,
          p->dstXInBytes, p->dstY, p->dstPitch, p->WidthInBytes, p->Height,
          &dst);
    if (r != CUDA_SUCCESS) {
      pthread_mutex_unlock (&g_sim.lock);
      return r;
    }
    op = sim_op_new (OP_COPY2D, entry);
    op->global_delay = 1;
    op->u.copy.src = src;
    op->u.copy.dst = dst;
    op->u.copy.spitch = p->srcPitch;
    op->u.copy.dpitch = p->dstPitch;
    op->u.copy.width = p->WidthInBytes;
    op->u.copy.height = p->Height;
  }
  r = sim_submit_locked (op, stream, mode, sim_entry_name (entry));
  pthread_mutex_unlock (&g_sim.lock);
  return r;
}

static CUresult
sim_copy1d (CUmemorytype dst_type, void *dst, CUmemorytype src_type,
    const void *src, size_t n, CUstream stream, SimSubmit mode, SimEntry entry)
{
  CUDA_MEMCPY2D p;

  memset (&p, 0, sizeof (p));
  p.srcMemoryType = src_type;
  if (src_type == CU_MEMORYTYPE_HOST)
    p.srcHost = src;
  else
    p.srcDevice = (CUdeviceptr) (uintptr_t) src;
  p.srcPitch = n;
  p.dstMemoryType = dst_type;
  if (dst_type == CU_MEMORYTYPE_HOST)
    p.dstHost = dst;
  else
    p.dstDevice = (CUdeviceptr) (uintptr_t) dst;
  p.dstPitch = n;
  p.WidthInBytes = n;
  p.Height = 1;
  return sim_copy2d (&p, stream, mode, entry);
}

SIM_EXPORT CUresult
cuMemcpy2D_v2 (const CUDA_MEMCPY2D * pCopy)
{
  SIM_ENTER (cuMemcpy2D_v2);
  return sim_copy2d (pCopy, NULL, SIM_SUBMIT_SYNC, EP_cuMemcpy2D_v2);
}

SIM_EXPORT CUresult
cuMemcpy2DAsync_v2 (const CUDA_MEMCPY2D * pCopy, CUstream hStream)
{
  SIM_ENTER (cuMemcpy2DAsync_v2);
  return sim_copy2d (pCopy, hStream, SIM_SUBMIT_ASYNC, EP_cuMemcpy2DAsync_v2);
}

SIM_EXPORT CUresult
cuMemcpyHtoD_v2 (CUdeviceptr dstDevice, const void *srcHost, size_t ByteCount)
{
  SIM_ENTER (cuMemcpyHtoD_v2);
  return sim_copy1d (CU_MEMORYTYPE_DEVICE, (void *) (uintptr_t) dstDevice,
      CU_MEMORYTYPE_HOST, srcHost, ByteCount, NULL, SIM_SUBMIT_SYNC,
      EP_cuMemcpyHtoD_v2);
}

SIM_EXPORT CUresult
cuMemcpyDtoH_v2 (void *dstHost, CUdeviceptr srcDevice, size_t ByteCount)
{
  SIM_ENTER (cuMemcpyDtoH_v2);
  return sim_copy1d (CU_MEMORYTYPE_HOST, dstHost, CU_MEMORYTYPE_DEVICE,
      (void *) (uintptr_t) srcDevice, ByteCount, NULL, SIM_SUBMIT_SYNC,
      EP_cuMemcpyDtoH_v2);
}

SIM_EXPORT CUresult
cuMemcpyDtoD_v2 (CUdeviceptr dstDevice, CUdeviceptr srcDevice, size_t ByteCount)
{
  SIM_ENTER (cuMemcpyDtoD_v2);
  return sim_copy1d (CU_MEMORYTYPE_DEVICE, (void *) (uintptr_t) dstDevice,
      CU_MEMORYTYPE_DEVICE, (void *) (uintptr_t) srcDevice, ByteCount, NULL,
      SIM_SUBMIT_SYNC, EP_cuMemcpyDtoD_v2);
}

SIM_EXPORT CUresult
cuMemcpyHtoDAsync_v2 (CUdeviceptr dstDevice, const void *srcHost,
    size_t ByteCount, CUstream hStream)
{
  SIM_ENTER (cuMemcpyHtoDAsync_v2);
  return sim_copy1d (CU_MEMORYTYPE_DEVICE, (void *) (uintptr_t) dstDevice,
      CU_MEMORYTYPE_HOST, srcHost, ByteCount, hStream, SIM_SUBMIT_ASYNC,
      EP_cuMemcpyHtoDAsync_v2);
}

SIM_EXPORT CUresult
cuMemcpyDtoHAsync_v2 (void *dstHost, CUdeviceptr srcDevice, size_t ByteCount,
    CUstream hStream)
{
  SIM_ENTER (cuMemcpyDtoHAsync_v2);
  return sim_copy1d (CU_MEMORYTYPE_HOST, dstHost, CU_MEMORYTYPE_DEVICE,
      (void *) (uintptr_t) srcDevice, ByteCount, hStream, SIM_SUBMIT_ASYNC,
      EP_cuMemcpyDtoHAsync_v2);
}

SIM_EXPORT CUresult
cuMemcpyDtoDAsync_v2 (CUdeviceptr dstDevice, CUdeviceptr srcDevice,
    size_t ByteCount, CUstream hStream)
{
  SIM_ENTER (cuMemcpyDtoDAsync_v2);
  return sim_copy1d (CU_MEMORYTYPE_DEVICE, (void *) (uintptr_t) dstDevice,
      CU_MEMORYTYPE_DEVICE, (void *) (uintptr_t) srcDevice, ByteCount,
      hStream, SIM_SUBMIT_ASYNC, EP_cuMemcpyDtoDAsync_v2);
}

SIM_EXPORT CUresult
cuMemcpy (CUdeviceptr dst, CUdeviceptr src, size_t ByteCount)
{
  SIM_ENTER (cuMemcpy);
  return sim_copy1d (CU_MEMORYTYPE_UNIFIED, (void *) (uintptr_t) dst,
      CU_MEMORYTYPE_UNIFIED, (void *) (uintptr_t) src, ByteCount, NULL,
      SIM_SUBMIT_SYNC, EP_cuMemcpy);
}

SIM_EXPORT CUresult
cuMemcpyAsync (CUdeviceptr dst, CUdeviceptr src, size_t ByteCount,
    CUstream hStream)
{
  SIM_ENTER (cuMemcpyAsync);
  return sim_copy1d (CU_MEMORYTYPE_UNIFIED, (void *) (uintptr_t) dst,
      CU_MEMORYTYPE_UNIFIED, (void *) (uintptr_t) src, ByteCount, hStream,
      SIM_SUBMIT_ASYNC, EP_cuMemcpyAsync);
}

/* 1D (height 1) and 2D memsets: width elements of elem_size bytes per row,
 * rows pitch bytes apart, all inside one allocation */
static CUresult
sim_memset (CUdeviceptr dst, size_t pitch, uint32_t value, size_t elem_size,
    size_t width, size_t height, CUstream stream, SimSubmit mode,
    SimEntry entry)
{
  SimOp *op;
  CUresult r;
  int empty = width == 0 || height == 0;

  if (dst == 0 || dst % elem_size != 0)
    return CUDA_ERROR_INVALID_VALUE;
  if (height > 1 && pitch < width * elem_size)
    return CUDA_ERROR_INVALID_VALUE;
  pthread_mutex_lock (&g_sim.lock);
  if (!empty && !sim_alloc_contains_locked ((void *) (uintptr_t) dst,
          (height - 1) * pitch + width * elem_size, NULL, NULL)) {
    pthread_mutex_unlock (&g_sim.lock);
    return CUDA_ERROR_INVALID_VALUE;
  }
  op = sim_op_new (empty ? OP_NOP : OP_MEMSET, entry);
  op->global_delay = !empty;
  op->u.memset.dst = (uint8_t *) (uintptr_t) dst;
  op->u.memset.value = value;
  op->u.memset.elem_size = elem_size;
  op->u.memset.count = width;
  op->u.memset.pitch = pitch;
  op->u.memset.height = height;
  r = sim_submit_locked (op, stream, mode, sim_entry_name (entry));
  pthread_mutex_unlock (&g_sim.lock);
  return r;
}

SIM_EXPORT CUresult
cuMemsetD8_v2 (CUdeviceptr dstDevice, unsigned char uc, size_t N)
{
  SIM_ENTER (cuMemsetD8_v2);
  return sim_memset (dstDevice, N, uc, 1, N, 1, NULL, SIM_SUBMIT_SYNC,
      EP_cuMemsetD8_v2);
}

SIM_EXPORT CUresult
cuMemsetD32_v2 (CUdeviceptr dstDevice, unsigned int ui, size_t N)
{
  SIM_ENTER (cuMemsetD32_v2);
  return sim_memset (dstDevice, N * 4, ui, 4, N, 1, NULL, SIM_SUBMIT_SYNC,
      EP_cuMemsetD32_v2);
}

SIM_EXPORT CUresult
cuMemsetD8Async (CUdeviceptr dstDevice, unsigned char uc, size_t N,
    CUstream hStream)
{
  SIM_ENTER (cuMemsetD8Async);
  return sim_memset (dstDevice, N, uc, 1, N, 1, hStream, SIM_SUBMIT_ASYNC,
      EP_cuMemsetD8Async);
}

SIM_EXPORT CUresult
cuMemsetD32Async (CUdeviceptr dstDevice, unsigned int ui, size_t N,
    CUstream hStream)
{
  SIM_ENTER (cuMemsetD32Async);
  return sim_memset (dstDevice, N * 4, ui, 4, N, 1, hStream, SIM_SUBMIT_ASYNC,
      EP_cuMemsetD32Async);
}

/* 2D memsets: Width is in elements; the synchronous ones go through the
 * NULL stream and wait, like cuMemsetD8_v2 */
#define SIM_MEMSET2D(bits, ctype, elem) \
SIM_EXPORT CUresult \
cuMemsetD2D##bits##_v2 (CUdeviceptr dstDevice, size_t dstPitch, ctype v, \
    size_t Width, size_t Height) \
{ \
  SIM_ENTER (cuMemsetD2D##bits##_v2); \
  return sim_memset (dstDevice, dstPitch, v, elem, Width, Height, NULL, \
      SIM_SUBMIT_SYNC, EP_cuMemsetD2D##bits##_v2); \
} \
SIM_EXPORT CUresult \
cuMemsetD2D##bits (CUdeviceptr dstDevice, size_t dstPitch, ctype v, \
    size_t Width, size_t Height) \
{ \
  SIM_ENTER (cuMemsetD2D##bits##_v2); \
  return sim_memset (dstDevice, dstPitch, v, elem, Width, Height, NULL, \
      SIM_SUBMIT_SYNC, EP_cuMemsetD2D##bits##_v2); \
} \
SIM_EXPORT CUresult \
cuMemsetD2D##bits##Async (CUdeviceptr dstDevice, size_t dstPitch, ctype v, \
    size_t Width, size_t Height, CUstream hStream) \
{ \
  SIM_ENTER (cuMemsetD2D##bits##Async); \
  return sim_memset (dstDevice, dstPitch, v, elem, Width, Height, hStream, \
      SIM_SUBMIT_ASYNC, EP_cuMemsetD2D##bits##Async); \
}

SIM_MEMSET2D (8, unsigned char, 1)
SIM_MEMSET2D (16, unsigned short, 2)
SIM_MEMSET2D (32, unsigned int, 4)
#undef SIM_MEMSET2D

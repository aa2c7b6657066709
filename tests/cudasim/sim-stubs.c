/* cudasim: entry points that are not simulated.
 *
 * Graphics interop (GL, EGL), modules, textures and kernels: exported so
 * that libgstcuda loads, and all CUDA_ERROR_NOT_SUPPORTED (after the usual
 * call counting and fault injection).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "cudasim-internal.h"

SIM_EXPORT CUresult
cuGraphicsMapResources (unsigned int count, CUgraphicsResource * resources,
    CUstream hStream)
{
  SIM_ENTER (cuGraphicsMapResources);
  return CUDA_ERROR_NOT_SUPPORTED;
}

SIM_EXPORT CUresult
cuGraphicsUnmapResources (unsigned int count, CUgraphicsResource * resources,
    CUstream hStream)
{
  SIM_ENTER (cuGraphicsUnmapResources);
  return CUDA_ERROR_NOT_SUPPORTED;
}

SIM_EXPORT CUresult
cuGraphicsResourceSetMapFlags_v2 (CUgraphicsResource resource,
    unsigned int flags)
{
  SIM_ENTER (cuGraphicsResourceSetMapFlags_v2);
  return CUDA_ERROR_NOT_SUPPORTED;
}

SIM_EXPORT CUresult
cuGraphicsSubResourceGetMappedArray (CUarray * pArray,
    CUgraphicsResource resource, unsigned int arrayIndex, unsigned int mipLevel)
{
  SIM_ENTER (cuGraphicsSubResourceGetMappedArray);
  return CUDA_ERROR_NOT_SUPPORTED;
}

SIM_EXPORT CUresult
cuGraphicsResourceGetMappedPointer_v2 (CUdeviceptr * pDevPtr, size_t *pSize,
    CUgraphicsResource resource)
{
  SIM_ENTER (cuGraphicsResourceGetMappedPointer_v2);
  return CUDA_ERROR_NOT_SUPPORTED;
}

SIM_EXPORT CUresult
cuGraphicsUnregisterResource (CUgraphicsResource resource)
{
  SIM_ENTER (cuGraphicsUnregisterResource);
  return CUDA_ERROR_NOT_SUPPORTED;
}

SIM_EXPORT CUresult
cuGraphicsGLRegisterImage (CUgraphicsResource * pCudaResource,
    unsigned int image, unsigned int target, unsigned int Flags)
{
  SIM_ENTER (cuGraphicsGLRegisterImage);
  return CUDA_ERROR_NOT_SUPPORTED;
}

SIM_EXPORT CUresult
cuGraphicsGLRegisterBuffer (CUgraphicsResource * pCudaResource,
    unsigned int buffer, unsigned int Flags)
{
  SIM_ENTER (cuGraphicsGLRegisterBuffer);
  return CUDA_ERROR_NOT_SUPPORTED;
}

SIM_EXPORT CUresult
cuGLGetDevices_v2 (unsigned int *pCudaDeviceCount, CUdevice * pCudaDevices,
    unsigned int cudaDeviceCount, int deviceList)
{
  SIM_ENTER (cuGLGetDevices_v2);
  return CUDA_ERROR_NOT_SUPPORTED;
}

SIM_EXPORT CUresult
cuGraphicsEGLRegisterImage (CUgraphicsResource * pCudaResource, void *image,
    unsigned int flags)
{
  SIM_ENTER (cuGraphicsEGLRegisterImage);
  return CUDA_ERROR_NOT_SUPPORTED;
}

SIM_EXPORT CUresult
cuGraphicsResourceGetMappedEglFrame (void *eglFrame,
    CUgraphicsResource resource, unsigned int index, unsigned int mipLevel)
{
  SIM_ENTER (cuGraphicsResourceGetMappedEglFrame);
  return CUDA_ERROR_NOT_SUPPORTED;
}

SIM_EXPORT CUresult
cuModuleLoadData (CUmodule * module, const void *image)
{
  SIM_ENTER (cuModuleLoadData);
  return CUDA_ERROR_NOT_SUPPORTED;
}

SIM_EXPORT CUresult
cuModuleUnload (CUmodule hmod)
{
  SIM_ENTER (cuModuleUnload);
  return CUDA_ERROR_NOT_SUPPORTED;
}

SIM_EXPORT CUresult
cuModuleGetFunction (CUfunction * hfunc, CUmodule hmod, const char *name)
{
  SIM_ENTER (cuModuleGetFunction);
  return CUDA_ERROR_NOT_SUPPORTED;
}

SIM_EXPORT CUresult
cuTexObjectCreate (CUtexObject * pTexObject,
    const CUDA_RESOURCE_DESC * pResDesc, const CUDA_TEXTURE_DESC * pTexDesc,
    const CUDA_RESOURCE_VIEW_DESC * pResViewDesc)
{
  SIM_ENTER (cuTexObjectCreate);
  return CUDA_ERROR_NOT_SUPPORTED;
}

SIM_EXPORT CUresult
cuTexObjectDestroy (CUtexObject texObject)
{
  SIM_ENTER (cuTexObjectDestroy);
  return CUDA_ERROR_NOT_SUPPORTED;
}

SIM_EXPORT CUresult
cuLaunchKernel (CUfunction f, unsigned int gridDimX, unsigned int gridDimY,
    unsigned int gridDimZ, unsigned int blockDimX, unsigned int blockDimY,
    unsigned int blockDimZ, unsigned int sharedMemBytes, CUstream hStream,
    void **kernelParams, void **extra)
{
  SIM_ENTER (cuLaunchKernel);
  return CUDA_ERROR_NOT_SUPPORTED;
}

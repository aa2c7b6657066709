/* gst-cudasync
 * Copyright (C) 2026 gst-cudasync developers
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Shareable CUDA virtual-memory allocations (internal API): cuMemCreate
 * with CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, reserved, mapped and made
 * read-write in one context; exported with cuMemExportToShareableHandle and
 * imported with cuMemImportFromShareableHandle. The IPC elements pool them.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstcudasync-private.h"
#include "gstcudasync-compat-private.h"
#include <string.h>

struct _GstCudaSyncVmm
{
  GstCudaContext *context;
  CUmemGenericAllocationHandle handle;
  CUdeviceptr ptr;
  gsize size;
  gboolean mapped;
};

static gboolean
vmm_supported (GError ** error)
{
  const GstCudaSyncVTable *vt = _gst_cuda_sync_vtable ();

  if (vt->cuMemCreate && vt->cuMemRelease && vt->cuMemAddressReserve &&
      vt->cuMemAddressFree && vt->cuMemMap && vt->cuMemUnmap &&
      vt->cuMemSetAccess && vt->cuMemExportToShareableHandle &&
      vt->cuMemImportFromShareableHandle && vt->cuMemGetAllocationGranularity)
    return TRUE;
  g_set_error (error, GST_CUDA_SYNC_ERROR, GST_CUDA_SYNC_ERROR_NOT_SUPPORTED,
      "The CUDA driver has no virtual memory management entry points "
      "(cuMemCreate and friends, CUDA 10.2 or newer)");
  return FALSE;
}

static gboolean
push (GstCudaContext * context, GError ** error)
{
  if (gst_cuda_context_push (context))
    return TRUE;
  g_set_error (error, GST_CUDA_SYNC_ERROR, GST_CUDA_SYNC_ERROR_DRIVER,
      "Could not make the CUDA context current");
  return FALSE;
}

static void
prop_init (GstCudaContext * context, CUmemAllocationProp * prop)
{
  gint device_id = 0;

  g_object_get (context, "cuda-device-id", &device_id, NULL);
  memset (prop, 0, sizeof (*prop));
  prop->type = CU_MEM_ALLOCATION_TYPE_PINNED;
  prop->location.type = CU_MEM_LOCATION_TYPE_DEVICE;
  prop->location.id = device_id;
  prop->requestedHandleTypes = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
}

/**
 * gst_cuda_sync_vmm_round_size:
 * @context: a #GstCudaContext
 * @size: bytes wanted
 * @error: return location for a #GError
 *
 * Returns: @size rounded up to the device's allocation granularity, or 0
 * with @error set
 */
gsize
gst_cuda_sync_vmm_round_size (GstCudaContext * context, gsize size,
    GError ** error)
{
  CUmemAllocationProp prop;
  size_t gran = 0;
  CUresult r;

  g_return_val_if_fail (GST_IS_CUDA_CONTEXT (context), 0);

  if (!gst_cuda_sync_init (error) || !vmm_supported (error))
    return 0;
  prop_init (context, &prop);
  r = GST_CUDA_SYNC_CALL (cuMemGetAllocationGranularity) (&gran, &prop,
      CU_MEM_ALLOC_GRANULARITY_RECOMMENDED);
  if (!_gst_cuda_sync_result (r, "cuMemGetAllocationGranularity", error))
    return 0;
  if (gran == 0)
    gran = 2 << 20;
  return ((MAX (size, 1) + gran - 1) / gran) * gran;
}

/* context pushed */
static gboolean
vmm_map (GstCudaSyncVmm * vmm, GError ** error)
{
  const GstCudaSyncVTable *vt = _gst_cuda_sync_vtable ();
  CUmemAccessDesc access;
  CUresult r;
  gint device_id = 0;

  r = vt->cuMemAddressReserve (&vmm->ptr, vmm->size, 0, 0, 0);
  if (!_gst_cuda_sync_result (r, "cuMemAddressReserve", error))
    return FALSE;
  r = vt->cuMemMap (vmm->ptr, vmm->size, 0, vmm->handle, 0);
  if (!_gst_cuda_sync_result (r, "cuMemMap", error)) {
    vt->cuMemAddressFree (vmm->ptr, vmm->size);
    vmm->ptr = 0;
    return FALSE;
  }
  vmm->mapped = TRUE;
  g_object_get (vmm->context, "cuda-device-id", &device_id, NULL);
  memset (&access, 0, sizeof (access));
  access.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
  access.location.id = device_id;
  access.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
  r = vt->cuMemSetAccess (vmm->ptr, vmm->size, &access, 1);
  return _gst_cuda_sync_result (r, "cuMemSetAccess", error);
}

static GstCudaSyncVmm *
vmm_finish (GstCudaSyncVmm * vmm, gboolean ok)
{
  gst_cuda_context_pop (NULL);
  if (ok)
    return vmm;
  gst_cuda_sync_vmm_free (vmm);
  return NULL;
}

/**
 * gst_cuda_sync_vmm_new:
 * @context: a #GstCudaContext
 * @size: bytes, a multiple of gst_cuda_sync_vmm_round_size()'s granularity
 * @error: return location for a #GError
 *
 * Allocates device memory that can be exported as a POSIX fd, mapped
 * read-write in @context.
 *
 * Returns: (transfer full) (nullable): the allocation
 */
GstCudaSyncVmm *
gst_cuda_sync_vmm_new (GstCudaContext * context, gsize size, GError ** error)
{
  CUmemAllocationProp prop;
  GstCudaSyncVmm *vmm;
  CUresult r;

  g_return_val_if_fail (GST_IS_CUDA_CONTEXT (context), NULL);

  if (!gst_cuda_sync_init (error) || !vmm_supported (error) ||
      !push (context, error))
    return NULL;
  vmm = g_new0 (GstCudaSyncVmm, 1);
  vmm->context = gst_object_ref (context);
  vmm->size = size;
  prop_init (context, &prop);
  r = GST_CUDA_SYNC_CALL (cuMemCreate) (&vmm->handle, size, &prop, 0);
  if (!_gst_cuda_sync_result (r, "cuMemCreate", error)) {
    vmm->handle = 0;
    return vmm_finish (vmm, FALSE);
  }
  return vmm_finish (vmm, vmm_map (vmm, error));
}

/**
 * gst_cuda_sync_vmm_import_fd:
 * @context: a #GstCudaContext
 * @fd: a POSIX fd exported by gst_cuda_sync_vmm_export_fd() (in any
 *   process); it stays the caller's
 * @size: the allocation's size
 * @error: return location for a #GError
 *
 * Returns: (transfer full) (nullable): the import, mapped read-write
 */
GstCudaSyncVmm *
gst_cuda_sync_vmm_import_fd (GstCudaContext * context, gint fd, gsize size,
    GError ** error)
{
  GstCudaSyncVmm *vmm;
  CUresult r;

  g_return_val_if_fail (GST_IS_CUDA_CONTEXT (context), NULL);

  if (!gst_cuda_sync_init (error) || !vmm_supported (error) ||
      !push (context, error))
    return NULL;
  vmm = g_new0 (GstCudaSyncVmm, 1);
  vmm->context = gst_object_ref (context);
  vmm->size = size;
  r = GST_CUDA_SYNC_CALL (cuMemImportFromShareableHandle) (&vmm->handle,
      (void *) (gintptr) fd, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR);
  if (!_gst_cuda_sync_result (r, "cuMemImportFromShareableHandle", error)) {
    vmm->handle = 0;
    return vmm_finish (vmm, FALSE);
  }
  return vmm_finish (vmm, vmm_map (vmm, error));
}

/**
 * gst_cuda_sync_vmm_export_fd:
 * @vmm: an allocation
 * @error: return location for a #GError
 *
 * Returns: a new fd (the caller's, close-on-exec), or -1 with @error set
 */
gint
gst_cuda_sync_vmm_export_fd (GstCudaSyncVmm * vmm, GError ** error)
{
  gint fd = -1;
  CUresult r;

  g_return_val_if_fail (vmm != NULL, -1);

  if (!push (vmm->context, error))
    return -1;
  r = GST_CUDA_SYNC_CALL (cuMemExportToShareableHandle) (&fd, vmm->handle,
      CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0);
  gst_cuda_context_pop (NULL);
  if (!_gst_cuda_sync_result (r, "cuMemExportToShareableHandle", error))
    return -1;
  return fd;
}

/**
 * gst_cuda_sync_vmm_get_pointer:
 * @vmm: an allocation
 *
 * Returns: its device address in its context
 */
CUdeviceptr
gst_cuda_sync_vmm_get_pointer (GstCudaSyncVmm * vmm)
{
  return vmm->ptr;
}

/**
 * gst_cuda_sync_vmm_get_size:
 * @vmm: an allocation
 *
 * Returns: its size in bytes
 */
gsize
gst_cuda_sync_vmm_get_size (GstCudaSyncVmm * vmm)
{
  return vmm->size;
}

/**
 * gst_cuda_sync_vmm_free:
 * @vmm: (transfer full): an allocation
 *
 * Unmaps and releases it. GPU work that reads or writes it must be
 * complete, or at least ordered before whatever reuses the address.
 */
void
gst_cuda_sync_vmm_free (GstCudaSyncVmm * vmm)
{
  const GstCudaSyncVTable *vt = _gst_cuda_sync_vtable ();

  if (!vmm)
    return;
  if (gst_cuda_context_push (vmm->context)) {
    if (vmm->mapped)
      vt->cuMemUnmap (vmm->ptr, vmm->size);
    if (vmm->ptr)
      vt->cuMemAddressFree (vmm->ptr, vmm->size);
    if (vmm->handle)
      vt->cuMemRelease (vmm->handle);
    gst_cuda_context_pop (NULL);
  }
  gst_object_unref (vmm->context);
  g_free (vmm);
}

/* (not the VMM's alone: any device memory the caller owns; here because
 * this unit is outside the GIR's sources) */
GstMemory *
gst_cuda_sync_memory_wrap (GstCudaContext * context, const GstVideoInfo * info,
    CUdeviceptr ptr, gpointer user_data, GDestroyNotify notify)
{
  g_return_val_if_fail (GST_IS_CUDA_CONTEXT (context), NULL);
  g_return_val_if_fail (info != NULL && ptr != 0, NULL);

  return _gst_cuda_sync_compat_memory_wrap (context, info, ptr, user_data,
      notify);
}

gboolean
gst_cuda_sync_memory_can_wrap (void)
{
  return _gst_cuda_sync_compat_can_wrap ();
}

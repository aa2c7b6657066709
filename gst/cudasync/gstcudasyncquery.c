/* gst-cudasync
 * Copyright (C) 2026 gst-cudasync developers
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The ALLOCATION query side of #GstCudaSyncMeta: a consumer offers the
 * meta (and a semaphore), a producer reads the offer.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstcudasemaphore-private.h"

#define META_PARAMS_NAME "GstCudaSyncMeta"

/**
 * gst_query_add_cuda_sync_meta:
 * @query: an ALLOCATION #GstQuery
 * @handle_types: the semaphore types the consumer can wait on
 * @semaphore: (nullable): a semaphore the consumer wants the producer to
 *   signal, imported into the pipeline's CUDA context
 *
 * Called by a consumer in its ALLOCATION query handler
 * (`propose_allocation`) to say that it understands #GstCudaSyncMeta.
 *
 * Since: 0.1
 */
void
gst_query_add_cuda_sync_meta (GstQuery * query,
    GstCudaSemaphoreHandleTypeFlags handle_types, GstCudaSemaphore * semaphore)
{
  GstStructure *params;

  g_return_if_fail (GST_IS_QUERY (query));
  g_return_if_fail (semaphore == NULL || GST_IS_CUDA_SEMAPHORE (semaphore));

  params = gst_structure_new (META_PARAMS_NAME, "handle-types",
      GST_TYPE_CUDA_SEMAPHORE_HANDLE_TYPE_FLAGS, handle_types, NULL);
  if (semaphore)
    gst_structure_set (params, "semaphore", GST_TYPE_CUDA_SEMAPHORE,
        semaphore, NULL);
  gst_query_add_allocation_meta (query, GST_CUDA_SYNC_META_API_TYPE, params);
  gst_structure_free (params);
}

/**
 * gst_query_parse_cuda_sync_meta:
 * @query: an answered ALLOCATION #GstQuery
 * @handle_types: (out) (optional): the types the consumer can wait on
 * @semaphore: (out) (optional) (transfer full) (nullable): the semaphore the
 *   consumer offered, if any
 *
 * Reads what gst_query_add_cuda_sync_meta() put in @query: the producer's
 * side of the negotiation.
 *
 * Returns: %TRUE if downstream advertised #GstCudaSyncMeta
 *
 * Since: 0.1
 */
gboolean
gst_query_parse_cuda_sync_meta (GstQuery * query,
    GstCudaSemaphoreHandleTypeFlags * handle_types,
    GstCudaSemaphore ** semaphore)
{
  const GstStructure *params = NULL;
  GstCudaSemaphoreHandleTypeFlags types = _gst_cuda_semaphore_all_type_flags ();
  guint idx;

  g_return_val_if_fail (GST_IS_QUERY (query), FALSE);

  if (semaphore)
    *semaphore = NULL;
  if (handle_types)
    *handle_types = GST_CUDA_SEMAPHORE_HANDLE_TYPE_FLAG_NONE;

  if (!gst_query_find_allocation_meta (query, GST_CUDA_SYNC_META_API_TYPE,
          &idx))
    return FALSE;

  gst_query_parse_nth_allocation_meta (query, idx, &params);
  if (params) {
    gst_structure_get (params, "handle-types",
        GST_TYPE_CUDA_SEMAPHORE_HANDLE_TYPE_FLAGS, &types, NULL);
    if (semaphore && gst_structure_has_field_typed (params, "semaphore",
            GST_TYPE_CUDA_SEMAPHORE))
      gst_structure_get (params, "semaphore", GST_TYPE_CUDA_SEMAPHORE,
          semaphore, NULL);
  }
  if (handle_types)
    *handle_types = types;
  return TRUE;
}

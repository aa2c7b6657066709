/* cudasim: stub libnvcuvid.so.1
 *
 * GStreamer's nvcodec plugin (1.22) only registers cudaupload/cudadownload
 * when either NVENC or NVDEC can be loaded.  This stub exports the symbols
 * the NVDEC loader requires, reports every codec as unsupported (so no
 * decoder element is registered) and fails everything else.
 *
 * No NVIDIA header is used: the only structure we touch is the decoder caps
 * query, whose output fields all follow a fixed 24-byte input header.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define STUB_EXPORT __attribute__((visibility ("default")))

typedef int StubResult;         /* CUresult */
#define STUB_SUCCESS 0
#define STUB_ERROR_NOT_SUPPORTED 801

/* layout of CUVIDDECODECAPS: 6 x 32-bit input words (codec, chroma format,
 * bit depth, 3 reserved), then output fields up to a total of 88 bytes */
#define STUB_CAPS_INPUT_BYTES 24
#define STUB_CAPS_TOTAL_BYTES 88

STUB_EXPORT StubResult cuvidGetDecoderCaps (void *caps);
STUB_EXPORT StubResult cuvidCtxLockCreate (void **lock, void *ctx);
STUB_EXPORT StubResult cuvidCtxLockDestroy (void *lock);
STUB_EXPORT StubResult cuvidCtxLock (void *lock, unsigned int flags);
STUB_EXPORT StubResult cuvidCtxUnlock (void *lock, unsigned int flags);
STUB_EXPORT StubResult cuvidCreateDecoder (void **decoder, void *info);
STUB_EXPORT StubResult cuvidDestroyDecoder (void *decoder);
STUB_EXPORT StubResult cuvidDecodePicture (void *decoder, void *params);
STUB_EXPORT StubResult cuvidCreateVideoParser (void **parser, void *params);
STUB_EXPORT StubResult cuvidParseVideoData (void *parser, void *packet);
STUB_EXPORT StubResult cuvidDestroyVideoParser (void *parser);
STUB_EXPORT StubResult cuvidMapVideoFrame64 (void *decoder, int pic_idx,
    unsigned long long *dev_ptr, unsigned int *pitch, void *params);
STUB_EXPORT StubResult cuvidUnmapVideoFrame64 (void *decoder,
    unsigned long long dev_ptr);
STUB_EXPORT StubResult cuvidMapVideoFrame (void *decoder, int pic_idx,
    unsigned int *dev_ptr, unsigned int *pitch, void *params);
STUB_EXPORT StubResult cuvidUnmapVideoFrame (void *decoder,
    unsigned int dev_ptr);

StubResult
cuvidGetDecoderCaps (void *caps)
{
  if (!caps)
    return 1;                   /* CUDA_ERROR_INVALID_VALUE */
  /* bIsSupported = 0, all limits 0 */
  memset ((uint8_t *) caps + STUB_CAPS_INPUT_BYTES, 0,
      STUB_CAPS_TOTAL_BYTES - STUB_CAPS_INPUT_BYTES);
  return STUB_SUCCESS;
}

StubResult
cuvidCtxLockCreate (void **lock, void *ctx)
{
  return STUB_ERROR_NOT_SUPPORTED;
}

StubResult
cuvidCtxLockDestroy (void *lock)
{
  return STUB_ERROR_NOT_SUPPORTED;
}

StubResult
cuvidCtxLock (void *lock, unsigned int flags)
{
  return STUB_ERROR_NOT_SUPPORTED;
}

StubResult
cuvidCtxUnlock (void *lock, unsigned int flags)
{
  return STUB_ERROR_NOT_SUPPORTED;
}

StubResult
cuvidCreateDecoder (void **decoder, void *info)
{
  return STUB_ERROR_NOT_SUPPORTED;
}

StubResult
cuvidDestroyDecoder (void *decoder)
{
  return STUB_ERROR_NOT_SUPPORTED;
}

StubResult
cuvidDecodePicture (void *decoder, void *params)
{
  return STUB_ERROR_NOT_SUPPORTED;
}

StubResult
cuvidCreateVideoParser (void **parser, void *params)
{
  return STUB_ERROR_NOT_SUPPORTED;
}

StubResult
cuvidParseVideoData (void *parser, void *packet)
{
  return STUB_ERROR_NOT_SUPPORTED;
}

StubResult
cuvidDestroyVideoParser (void *parser)
{
  return STUB_ERROR_NOT_SUPPORTED;
}

StubResult
cuvidMapVideoFrame64 (void *decoder, int pic_idx, unsigned long long *dev_ptr,
    unsigned int *pitch, void *params)
{
  return STUB_ERROR_NOT_SUPPORTED;
}

StubResult
cuvidUnmapVideoFrame64 (void *decoder, unsigned long long dev_ptr)
{
  return STUB_ERROR_NOT_SUPPORTED;
}

StubResult
cuvidMapVideoFrame (void *decoder, int pic_idx, unsigned int *dev_ptr,
    unsigned int *pitch, void *params)
{
  return STUB_ERROR_NOT_SUPPORTED;
}

StubResult
cuvidUnmapVideoFrame (void *decoder, unsigned int dev_ptr)
{
  return STUB_ERROR_NOT_SUPPORTED;
}

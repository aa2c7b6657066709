/* gst-cudasync
 * Copyright (C) 2026 gst-cudasync developers
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Scenario 8's modes: what each side runs (scenario-8.h). Both processes
 * read them: the producer's (scenario-8.c, scenario-8-run.c) and the
 * consumer's (scenario-8-consumer.c).
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "scenario-8.h"

const S8Mode s8_modes[S8_N_MODES] = {
  [S8_S] = {"s", "this project: cudasyncipcsink -> cudasyncipcsrc "
        "wait-mode=gpu; the producer attaches its acquire point, the sink "
        "waits for it and copies into shared VMM memory on the GPU, the "
        "source waits for the sink's semaphore and copies out on the GPU; no "
        "CPU wait", "cudasyncipcsink", "cudasyncipcsrc", NULL, NULL, FALSE},
  [S8_U] = {"u", "upstream: the producer waits on the CPU "
        "(cuStreamSynchronize), cudaipcsink ipc-mode=legacy (cuIpcGetMemHandle "
        "of the producer's buffer, no copy) -> cudaipcsrc (copies, "
        "cuStreamSynchronize); the server sends the newest frame only",
      "cudaipcsink", "cudaipcsrc", "legacy", NULL, FALSE},
  [S8_UM] = {"um", "upstream: as u with ipc-mode=mmap (the sink copies into "
        "VMM memory and waits on the CPU, the source maps it, copies and "
        "waits on the CPU)", "cudaipcsink", "cudaipcsrc", "mmap", NULL, FALSE},
  [S8_P] = {"p", "one process, no IPC: the producer's frames (acquire point "
        "attached) go to a fakesink whose probe is the consumer, which waits "
        "for the acquire point on its stream", NULL, NULL, NULL, NULL, FALSE},
  [S8_SI] = {"si", "as s, with cudasyncipcsrc io-mode=import: the source "
        "pushes the shared VMM memory itself (no copy on its side) and "
        "releases it when the consumer freed the buffer (after its read); "
        "GStreamer 1.22 cannot wrap device memory and copies",
      "cudasyncipcsink", "cudasyncipcsrc", NULL, "import", FALSE},
  [S8_SIS] = {"si_stream", "as si, with the producer of upstream's 1.24+ "
        "CUDA elements: it writes on the stream its pool sets on the memory "
        "and marks the memory pending, with no acquire point; the sink "
        "waits for that stream on the GPU and gives the buffer back at once "
        "(the memory's stream waits for its copy)", "cudasyncipcsink",
      "cudasyncipcsrc", NULL, "import", TRUE},
  [S8_SP] = {"s_pool", "as s, with the producer writing into the pool "
        "cudasyncipcsink proposes (GStreamer 1.24+), on the stream it sets "
        "on that pool, marking the memory pending: the sink sends each "
        "frame without a copy", "cudasyncipcsink", "cudasyncipcsrc", NULL,
      NULL, TRUE, TRUE},
  [S8_SIP] = {"si_pool", "as s_pool, with cudasyncipcsrc io-mode=import: "
        "no copy on either side", "cudasyncipcsink", "cudasyncipcsrc", NULL,
      "import", TRUE, TRUE},
};

const gchar *const s8_stage_names[S8_N_STAGES] = {
  "acquire_wait", "push", "to_probe", "read", "probe_period",
};

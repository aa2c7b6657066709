# gst-cudasync
# Copyright (C) 2026 gst-cudasync developers
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Fault-injection suite (run-faults.py): what a case is and the tables it
is judged by: the pipelines, the entry points run slowed or with other
error codes, the racy cases repeated, the known defects of this project and
of upstream GStreamer, and the objects a failed destroy may leave alive."""

import re

WIDTH, HEIGHT = 320, 240
FRAME_SIZE = WIDTH * HEIGHT * 3 // 2        # NV12, no padding at this size
CAPS = ("video/x-raw,format=NV12,width=%d,height=%d,framerate=30/1"
        % (WIDTH, HEIGHT))
TIMEOUT = 25            # seconds per run
SUITE_BUDGET = 540      # seconds: cases not started by then are "not run"

# Entry points whose failure changes what waits for what: also run slowed.
SYNC_ENTRIES = {
    "cuEventCreate", "cuEventRecord", "cuEventQuery", "cuEventSynchronize",
    "cuEventDestroy", "cuStreamQuery", "cuStreamWaitEvent",
    "cuStreamSynchronize", "cuCtxSynchronize", "cuLaunchHostFunc",
    "cuSignalExternalSemaphoresAsync", "cuWaitExternalSemaphoresAsync",
    "cuImportExternalSemaphore", "cuDestroyExternalSemaphore",
}
# GPU copies take 20 ms, semaphore signals 200 ms (per operation, on the
# stream thread; the caller never sleeps)
SLOW_DELAY = "cuMemcpy2DAsync_v2:20000,cuSignalExternalSemaphoresAsync:200000"
# Error codes with a meaning of their own, per entry point (besides UNKNOWN)
SPECIAL_CODES = {
    "cuEventQuery": ["CUDA_ERROR_NOT_READY"],
    "cuStreamQuery": ["CUDA_ERROR_NOT_READY"],
}

# Known defects (reported, being fixed): (id, description, predicate on a
# failing case). Matching cases are still failures.
KNOWN = [
    ("cuinit-abort",
     "cudatovulkan/vulkantocuda abort (CuInit: assertion failed in "
     "libgstcuda) when no nvcodec element loaded libgstcuda's driver first",
     lambda c, r: r.kind == "crash" and "CuInit" in r.output),
    ("v2c-eventquery-done",
     "vulkantocuda takes a cuEventQuery error for \"done\" and reuses a "
     "staging buffer whose copy is pending",
     lambda c, r: c.entry_base == "cuEventQuery" and
     c.pipeline in ("bridge", "vk2cuda") and r.kind == "silent corruption"),
    ("sem-destroy-pending",
     "the library destroys an external semaphore with GPU work pending when "
     "the finalize wait cannot be set up",
     lambda c, r: c.entry_base == "cuEventCreate" and
     (("pending operation" in r.detail) or
      (r.kind == "leak" and "extsem" in r.detail))),
    ("eventrecord-abort",
     "CUDASIM_FAIL=cuEventRecord:1 gst-cudasync-demo aborts now and then",
     lambda c, r: c.entry_base == "cuEventRecord" and
     c.pipeline == "semaphore" and r.kind == "crash"),
    ("demo-setup-leak",
     "the demo returns without releasing its context/semaphore when an "
     "application set-up call fails",
     lambda c, r: c.pipeline in ("semaphore", "bridge") and r.kind == "leak"
     and r.outcome == "app-error"),
    ("demo-no-idle-wait",
     "the demo exits without gst_cuda_sync_wait_idle(): objects whose "
     "destruction was deferred are still alive at exit (its baseline, without "
     "a fault, leaks too)",
     lambda c, r: c.pipeline in ("semaphore", "bridge") and r.kind == "leak"
     and c.pipeline in BASELINE_LEAKED),
]


# Defects of upstream GStreamer (reproduced without gst-cudasync's elements):
# reported as XFAIL lines and in the summary, not counted as failures. Each
# predicate needs the upstream code's own log line (GST_DEBUG=2) as evidence.
UPSTREAM = [
    ("gstcuda-once-deadlock",
     "libgstcuda 1.22: a failed cuInit in gst_cuda_context_new() leaves its "
     "g_once_init with 0 (GLib-CRITICAL g_once_init_leave), the next context "
     "creation blocks for ever (docs/known-issues.md; 1.24+ give an "
     "error)",
     lambda c, r: r.kind == "hang" and "g_once_init_leave: assertion" in
     r.output),
    ("cudadownload-stale-fallback",
     "cudaupload/cudadownload: when gst_cuda_buffer_copy()'s "
     "cuStreamSynchronize fails, the CPU fallback copy delivers a stale frame "
     "(also with cudaupload ! video/x-raw(memory:CUDAMemory) ! cudadownload); "
     "the copy that is still pending then writes the host frame after it was "
     "freed (valgrind: the simulated stream's memmove into a block freed by "
     "the system-memory pool's deactivation), which glibc may report as heap "
     "corruption, or a crash that gst-launch-1.0's SIGSEGV handler turns "
     "into a hang (it spins, waiting for a debugger)",
     lambda c, r: (r.kind in ("silent corruption", "crash") or
                   (r.kind == "hang" and "Caught SIGSEGV" in r.output)) and
     c.entry_base == "cuStreamSynchronize" and
     "gst_cuda_buffer_copy_internal" in r.output),
    ("cudabasetransform-stop-leak",
     "cudaupload/cudadownload 1.22 (gst_cuda_base_transform_stop) destroy "
     "their CUDA stream only when making the context current succeeds: a "
     "failed cuCtxPushCurrent at stop leaks the stream (the project's "
     "elements destroy theirs anyway, and warn)",
     lambda c, r: r.kind == "leak" and c.entry_base == "cuCtxPushCurrent" and
     "alive at exit: stream=1" in r.detail and
     "gst_cuda_context_push" in r.output and
     "to release the stream" not in r.output and
     "to destroy the stream" not in r.output),
    ("cudabasetransform-start-no-error",
     "cudaupload/cudadownload fail their start (no CUDA context) without "
     "posting an ERROR message (gst_cuda_base_transform_start)",
     lambda c, r: r.kind == "no error message" and re.search(
         r"gst_cuda_base_transform_start:<cuda(up|down)load", r.output)),
]

# pipelines whose run without a fault left objects alive
BASELINE_LEAKED = set()

# bridge first: its demo prints the Vulkan device's UUID, which the vk2cuda
# pipelines give the simulated device
PIPELINES = ["bridge", "semaphore", "vk2cuda", "vk2cuda-nodl", "fallback"]
VULKAN_PIPELINES = ("bridge", "vk2cuda", "vk2cuda-nodl")

# Racy cases, repeated: (pipeline, entry, call, frames, repeats, slow); the
# demo's stress runs use its default 1280x720 frames
STRESS = [
    ("semaphore", "cuEventRecord", 1, 20, 40, False),
    ("vk2cuda", "cuEventQuery", 1, 20, 10, True),
    # vulkantocuda's pool set-up fails once: it used to stream on after its
    # error (the retried allocation succeeded) and the run hung in preroll
    ("vk2cuda-nodl", "cuCtxPushCurrent", 3, 6, 10, False),
]

# A failed destroy leaves its object alive: that one object is no leak.
DESTROY_KIND = {
    "cuMemFree": "alloc", "cuMemFreeAsync": "alloc", "cuMemFreeHost": "hostalloc",
    "cuStreamDestroy": "stream", "cuEventDestroy": "event",
    "cuCtxDestroy": "context", "cuDestroyExternalSemaphore": "extsem",
    "cuDestroyExternalMemory": "extmem", "cuMemRelease": "memhandle",
    "cuMemAddressFree": "varange", "cuMemPoolDestroy": "mempool",
}

# Output of a library being relinked by a concurrent `ninja` in the build
# folder: the run is repeated.
RELINK_MARKS = ("error while loading shared libraries", "file too short",
                "invalid ELF header")


def base_name(entry):
    if not entry:
        return ""
    return entry[:-3] if entry.endswith("_v2") else entry


def sample(count):
    """Call numbers to fail for an entry point called count times: all when
    count <= 12; else 1..8, five spread evenly over 9..count-1, and count."""
    if count <= 12:
        return list(range(1, count + 1))
    picks = set(range(1, 9))
    picks.add(count)
    for k in range(1, 6):
        picks.add(8 + round(k * (count - 9) / 6))
    return sorted(p for p in picks if 1 <= p <= count)


class Case:
    def __init__(self, pipeline, entry, nth, code=None, slow=False,
                 frames=None, rep=0):
        self.frames = frames
        self.rep = rep
        self.pipeline = pipeline
        self.entry = entry
        self.entry_base = base_name(entry)
        self.nth = nth
        self.code = code
        self.slow = slow

    def fail_spec(self):
        if not self.entry:
            return "(no fault)"
        spec = "%s:%d" % (self.entry, self.nth)
        return spec + (":" + self.code if self.code else "")

    def env(self):
        e = {}
        if self.entry:
            e["CUDASIM_FAIL"] = self.fail_spec()
        if self.slow:
            e["CUDASIM_DELAY"] = SLOW_DELAY
        return e

    def name(self):
        if not self.entry:
            return "%s (no fault)" % self.pipeline
        return "%s %s%s%s" % (self.pipeline, self.fail_spec(),
                              " slow" if self.slow else "", self.suffix())

    def suffix(self):
        if not self.rep:
            return ""
        return " (repeat %d, %d frames%s)" % (
            self.rep, self.frames,
            " of 1280x720" if self.pipeline in ("semaphore", "bridge") else "")


class Result:
    def __init__(self):
        self.kind = None      # None: acceptable
        self.outcome = ""     # error / app-error / clean / fallback ...
        self.detail = ""
        self.output = ""
        self.calls = {}
        self.injected = False
        self.names_failure = True
        self.notes = []
        self.seconds = 0.0


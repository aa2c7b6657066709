#!/usr/bin/env python3
# gst-cudasync
# Copyright (C) 2026 gst-cudasync developers
# SPDX-License-Identifier: LGPL-2.1-or-later
"""gst-cudasync-demo on the simulated CUDA driver: what it reports.

Cases (320x240 NV12, 6 frames):
  baseline          (built without Vulkan) the semaphore pipeline: PASS,
                    which makes the registry the later cases reuse
  bridge-baseline   --bridge: PASS on the CPU fallback (lavapipe)
  bridge-query      --bridge with CUDASIM_FAIL=cuEventQuery:2: vulkantocuda
                    waits on the CPU once more where the query failed; every
                    frame is identical and copied once by each element, so
                    the demo says PASS (CPU fallback) and names the extra
                    wait (it used to say FAIL: "neither every frame on the
                    GPU path nor every frame on the CPU fallback")
  vulkan-uuid       --vulkan-uuid prints 32 hex digits, the deviceUUID the
                    bridge run gave the simulated device (the README's
                    examples set CUDASIM_DEVICE_UUID with it)
  no-device         CUDASIM_DEVICE_COUNT=0, both pipelines: the demo calls
                    gst_cuda_sync_init() before creating its context, so it
                    fails with the library's "no usable device" error and no
                    GLib critical (it used to create the context first:
                    libgstcuda 1.22's g_once_init_leave critical)

Exit status: 0 when every case gives what is expected, 1 otherwise, 77
(skipped) when the tests do not run against the simulator.
"""

import argparse
import os
import subprocess
import sys

GEOMETRY = ["--frames", "6", "--width", "320", "--height", "240"]


def run(args, env, options, extra_env=None):
    """The demo's exit status and output (stdout and stderr)"""
    e = dict(env)
    e.update(extra_env or {})
    p = subprocess.run([args.demo] + GEOMETRY + options, env=e,
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       timeout=120)
    return p.returncode, p.stdout.decode("utf-8", "replace")


def check(name, ok, why, out, failures):
    if ok:
        print("ok    %s" % name)
    else:
        print("FAIL  %s: %s\n%s" % (name, why, out))
        failures.append(name)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--driver", default="sim")
    ap.add_argument("--demo", required=True)
    ap.add_argument("--cudasim-dir", required=True)
    ap.add_argument("--plugin-dir", required=True)
    ap.add_argument("--registry", required=True)
    ap.add_argument("--vulkan", default="yes", choices=["yes", "no"])
    args = ap.parse_args()
    if args.driver != "sim":
        print("demo checks: the tests run against the %s CUDA driver; they "
              "need the simulator (test-driver=sim): skipped" % args.driver)
        return 77

    env = {k: v for k, v in os.environ.items() if not k.startswith("CUDASIM_")}
    env["LD_LIBRARY_PATH"] = args.cudasim_dir + (
        ":" + env["LD_LIBRARY_PATH"] if env.get("LD_LIBRARY_PATH") else "")
    env["GST_PLUGIN_PATH"] = args.plugin_dir
    env["GST_REGISTRY"] = args.registry
    # the test's own registry, made anew by the first (working) run: one
    # left by a run under a failing driver lacks nvcodec's elements
    if os.path.exists(args.registry):
        os.remove(args.registry)
    env["CUDASIM_VIOLATIONS"] = "record"
    failures = []

    if args.vulkan == "yes":
        rc, out = run(args, env, ["--bridge"])
        check("bridge-baseline", rc == 0 and
              "PASS (bridge, CPU fallback)" in out, "exit %d" % rc, out,
              failures)
        urc, uuid = run(args, env, ["--vulkan-uuid"])
        uuid = uuid.strip()
        check("vulkan-uuid", urc == 0 and len(uuid) == 32 and
              all(c in "0123456789abcdef" for c in uuid) and
              "(deviceUUID %s, given to the simulated CUDA device 0)" % uuid
              in out, "exit %d, printed %r" % (urc, uuid), out, failures)
        # from now on the registry is the baseline's: no rescan under a fault
        env["GST_REGISTRY_UPDATE"] = "no"
        rc, out = run(args, env, ["--bridge"],
                      {"CUDASIM_FAIL": "cuEventQuery:2"})
        check("bridge-query", rc == 0 and "checksums: 6/6 frames identical"
              in out and "PASS (bridge, CPU fallback)" in out and
              "CPU wait more than one per frame" in out,
              "exit %d, want PASS on the CPU fallback with one CPU wait more"
              % rc, out, failures)
    else:
        print("built without the CUDA<->Vulkan elements: no --bridge cases")
        # the registry from a working driver (nvcodec registers cudaupload
        # only when one loads), as the bridge baseline makes it otherwise
        rc, out = run(args, env, [])
        check("baseline", rc == 0 and "PASS" in out, "exit %d" % rc, out,
              failures)
        env["GST_REGISTRY_UPDATE"] = "no"

    for label, extra in (("no-device", []), ("no-device --bridge",
                                             ["--bridge"])):
        if extra and args.vulkan != "yes":
            continue
        rc, out = run(args, env, extra, {"CUDASIM_DEVICE_COUNT": "0"})
        check(label, rc == 1 and
              "FAIL: gst_cuda_sync_init: The CUDA driver has no usable "
              "device" in out and "CRITICAL" not in out,
              "exit %d, want the library's error and no critical" % rc, out,
              failures)

    print("RESULT: %s" % ("FAIL (%s)" % ", ".join(failures) if failures
                          else "PASS"))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

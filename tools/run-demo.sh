#!/usr/bin/env bash
# Runs gst-cudasync-demo from a build folder, on the GPU when there is one,
# otherwise on the simulated CUDA driver: first the semaphore pipeline
# (cudasemsignal ! cudasemwait), then the CUDA<->Vulkan bridge pipeline
# (cudatovulkan ! vulkantocuda, demo option --bridge), and a summary. The
# exit status is non-zero when either fails.
#
#   tools/run-demo.sh [builddir] [demo options...]     (builddir: build)
#
# Demo options (--frames, --width, --height) go to both runs; with --bridge
# only the bridge pipeline runs; --no-semaphore applies to the semaphore
# pipeline only.
#
# With an NVIDIA GPU (`nvidia-smi -L` succeeds) the system CUDA driver is
# used. Without one, LD_LIBRARY_PATH points at <builddir>/tests/cudasim so
# that the simulated libcuda.so.1 is loaded instead, and this is said plainly.
# Each driver kind gets its own GStreamer registry file in the build folder,
# because GStreamer caches which nvcodec elements (cudaupload, cudadownload)
# registered, and that depends on the driver found when the plugin was
# scanned.
set -euo pipefail

builddir=${1:-build}
[ $# -gt 0 ] && shift
if [ ! -d "$builddir" ]; then
  echo "run-demo.sh: build folder '$builddir' not found; build first:" >&2
  echo "    meson setup $builddir && ninja -C $builddir" >&2
  exit 1
fi
builddir=$(cd "$builddir" && pwd)
demo=$builddir/tools/gst-cudasync-demo
if [ ! -x "$demo" ]; then
  echo "run-demo.sh: $demo not found; run: ninja -C $builddir" >&2
  exit 1
fi

if nvidia-smi -L >/dev/null 2>&1; then
  kind=gpu
  echo "run-demo.sh: NVIDIA GPU present, using the system CUDA driver:"
  nvidia-smi -L | sed 's/^/    /'
else
  kind=sim
  sim=$builddir/tests/cudasim
  if [ ! -e "$sim/libcuda.so.1" ]; then
    echo "run-demo.sh: there is no NVIDIA GPU here (nvidia-smi -L failed), and" >&2
    echo "the simulated CUDA driver is not built ($sim/libcuda.so.1 is missing;" >&2
    echo "it is built with the tests: meson configure $builddir -Dtests=enabled)." >&2
    exit 1
  fi
  echo "run-demo.sh: there is no NVIDIA GPU on this machine (nvidia-smi -L failed),"
  echo "    so the demo runs on the SIMULATED CUDA driver: $sim/libcuda.so.1"
  export LD_LIBRARY_PATH="$sim${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
fi

export GST_REGISTRY="$builddir/registry-$kind.bin"
export GST_PLUGIN_PATH="$builddir/gst/plugin${GST_PLUGIN_PATH:+:$GST_PLUGIN_PATH}"
echo "run-demo.sh: GST_PLUGIN_PATH=$GST_PLUGIN_PATH GST_REGISTRY=$GST_REGISTRY"

bridge_only=no
bridge_args=()
for a in "$@"; do
  case "$a" in
    --bridge) bridge_only=yes ;;
    --no-semaphore) ;;
    *) bridge_args+=("$a") ;;
  esac
done
if [ "$bridge_only" = yes ]; then
  exec "$demo" "$@"
fi

set +e
echo
echo "=== 1/2: semaphore pipeline (cudasemsignal ! cudasemwait) ==="
"$demo" "$@"
sem_rc=$?
echo
echo "=== 2/2: bridge pipeline (cudatovulkan ! vulkantocuda) ==="
bridge_log=$(mktemp)
"$demo" --bridge "${bridge_args[@]}" | tee "$bridge_log"
bridge_rc=${PIPESTATUS[0]}
set -e

if grep -q '^PASS (bridge, GPU path)' "$bridge_log"; then
  bridge_path="GPU path, no CPU wait"
elif grep -q '^PASS (bridge, CPU fallback)' "$bridge_log"; then
  bridge_path="CPU fallback: the Vulkan device cannot export semaphores"
  [ "$kind" = sim ] && bridge_path="CPU fallback: Mesa lavapipe cannot export semaphores"
else
  bridge_path="see above"
fi
rm -f "$bridge_log"
echo
echo "=== summary ($([ "$kind" = gpu ] && echo "NVIDIA GPU" || echo "SIMULATED CUDA driver")) ==="
echo "  semaphore pipeline: $([ $sem_rc -eq 0 ] && echo PASS || echo "FAIL (exit $sem_rc)")"
echo "  bridge pipeline   : $([ $bridge_rc -eq 0 ] && echo PASS || echo "FAIL (exit $bridge_rc)") ($bridge_path)"
[ $sem_rc -eq 0 ] && [ $bridge_rc -eq 0 ]

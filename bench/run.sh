#!/usr/bin/env bash
# Runs gst-cudasync-bench from a build folder, on the GPU when there is one,
# otherwise on the simulated CUDA driver (which cannot run kernels: scenario
# 1 and, with Mesa lavapipe, scenario 4 run; 2, 3, 5, 6 and 8 are skipped
# unless --frame-writer=memset).
#
#   bench/run.sh <builddir> [bench options...]
#
# Options (see --help): --json PATH (default bench-results.json, in the
# current folder), --repetitions R (default 5), --quick, --only LIST (of 1
# to 8), --frame-writer auto|kernel|memset, --in-flight N,
# --frames N, --time-limit S (default 240).
#
# BENCH_RESULTS_DIR=DIR keeps the raw results of the run in DIR (for CI or
# release artefacts): the JSON as DIR/bench-<UTC time>.json (unless --json
# is given) and what the program prints as DIR/bench-<UTC time>.txt.
set -euo pipefail

if [ $# -lt 1 ] || [ "${1#-}" != "$1" ]; then
  echo "usage: bench/run.sh <builddir> [bench options...]" >&2
  exit 2
fi
builddir=$1
shift
if [ ! -d "$builddir" ]; then
  echo "run.sh: build folder '$builddir' not found; build first:" >&2
  echo "    meson setup $builddir -Dbench=enabled && ninja -C $builddir" >&2
  exit 1
fi
builddir=$(cd "$builddir" && pwd)
bench=$builddir/bench/gst-cudasync-bench
if [ ! -x "$bench" ]; then
  echo "run.sh: $bench not found; the bench is optional:" >&2
  echo "    meson configure $builddir -Dbench=enabled && ninja -C $builddir" >&2
  exit 1
fi

if nvidia-smi -L >/dev/null 2>&1; then
  kind=gpu
  echo "run.sh: NVIDIA GPU present, using the system CUDA driver:"
  nvidia-smi -L | sed 's/^/    /'
else
  kind=sim
  sim=$builddir/tests/cudasim
  if [ ! -e "$sim/libcuda.so.1" ]; then
    echo "run.sh: there is no NVIDIA GPU here (nvidia-smi -L failed), and the" >&2
    echo "simulated CUDA driver is not built ($sim/libcuda.so.1 is missing;" >&2
    echo "it is built with the tests: meson configure $builddir -Dtests=enabled)." >&2
    exit 1
  fi
  echo "run.sh: there is no NVIDIA GPU on this machine (nvidia-smi -L failed),"
  echo "    so the bench runs on the SIMULATED CUDA driver: $sim/libcuda.so.1"
  echo "    (it cannot run kernels: scenarios 2, 3, 5, 6, 8 are skipped unless"
  echo "    --frame-writer=memset; timings on it mean nothing)"
  export LD_LIBRARY_PATH="$sim${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
fi

# GStreamer caches which nvcodec elements registered, which depends on the
# driver: one registry per driver kind (as tools/run-demo.sh)
export GST_REGISTRY="$builddir/registry-$kind.bin"
export GST_PLUGIN_PATH="$builddir/gst/plugin${GST_PLUGIN_PATH:+:$GST_PLUGIN_PATH}"
echo "run.sh: GST_PLUGIN_PATH=$GST_PLUGIN_PATH GST_REGISTRY=$GST_REGISTRY"
if [ -z "${BENCH_RESULTS_DIR:-}" ]; then
  exec "$bench" "$@"
fi

mkdir -p "$BENCH_RESULTS_DIR"
stem=$BENCH_RESULTS_DIR/bench-$(date -u +%Y%m%dT%H%M%SZ)
json=()
case " $* " in
  *" --json "*|*" --json="*) ;;
  *) json=(--json "$stem.json") ;;
esac
echo "run.sh: raw results in $BENCH_RESULTS_DIR (${stem##*/}.*)"
status=0
"$bench" "$@" "${json[@]}" 2>&1 | tee "$stem.txt" || status=${PIPESTATUS[0]}
exit "$status"

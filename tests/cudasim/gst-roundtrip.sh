#!/bin/sh
# Runs upstream cudaupload ! cudadownload on the cudasim driver and checks
# that the output is byte-identical to the same pipeline without them.
# usage: gst-roundtrip.sh <cudasim_dir> <path to gst-launch-1.0>
# Exit 77 (skip) when nvcodec's cudaupload is not available.
set -u

dir=$1
launch=$2
inspect=$(dirname "$launch")/gst-inspect-1.0
[ -x "$inspect" ] || inspect=gst-inspect-1.0

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM

# a private registry: GStreamer caches what nvcodec registered
export GST_REGISTRY="$tmp/registry.bin"
export LD_LIBRARY_PATH="$dir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export CUDASIM_VIOLATIONS=abort

if ! "$inspect" cudaupload >/dev/null 2>&1; then
  echo "cudaupload is not available (nvcodec plugin missing?): skipping"
  exit 77
fi

# Sizes are chosen so that buffers carry no padding bytes (stride == visible
# bytes, and no extra row: GStreamer allocates an even number of luma rows for
# odd-height I420).  Padding is never written by videotestsrc nor by the copy,
# so it holds stale pool memory that legitimately differs between the two
# pipelines.  (NV12 320x241 is the one odd-height 4:2:0 case that videotestsrc
# fills completely.)
status=0
for caps in \
    'video/x-raw,format=NV12,width=320,height=241' \
    'video/x-raw,format=I420,width=176,height=96' \
    'video/x-raw,format=RGBA,width=640,height=360' \
    'video/x-raw,format=Y444,width=100,height=63'; do
  for pattern in smpte ball; do
    "$launch" -q videotestsrc num-buffers=20 pattern=$pattern ! "$caps" ! \
        filesink location="$tmp/ref.raw" || { status=1; continue; }
    # the CUDAMemory caps filter keeps the two elements from negotiating
    # passthrough; CUDASIM_STATS proves the copies ran on the simulator
    CUDASIM_STATS=1 "$launch" -q videotestsrc num-buffers=20 \
        pattern=$pattern ! "$caps" ! cudaupload ! \
        "video/x-raw(memory:CUDAMemory)" ! cudadownload ! "$caps" ! \
        filesink location="$tmp/sim.raw" 2> "$tmp/stats.txt" || {
      cat "$tmp/stats.txt"; status=1; continue; }
    copies=$(sed -n 's/.*cuMemcpy2DAsync_v2=\([0-9]*\).*/\1/p' "$tmp/stats.txt")
    if ! grep -q 'violations=0 ' "$tmp/stats.txt"; then
      echo "FAIL $caps pattern=$pattern: violations reported"
      cat "$tmp/stats.txt"
      status=1
    elif [ -z "$copies" ] || [ "$copies" -lt 40 ]; then
      echo "FAIL $caps pattern=$pattern: expected >= 40 simulated copies," \
          "got '${copies}'"
      cat "$tmp/stats.txt"
      status=1
    elif cmp -s "$tmp/ref.raw" "$tmp/sim.raw"; then
      echo "ok   $caps pattern=$pattern ($(wc -c < "$tmp/sim.raw") bytes," \
          "$copies simulated 2D copies)"
    else
      echo "FAIL $caps pattern=$pattern: output differs"
      status=1
    fi
  done
done
exit $status

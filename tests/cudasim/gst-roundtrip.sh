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

# Padding is never written by the copy (and, since 1.28, not by videotestsrc
# either), so it holds stale pool memory that legitimately differs between
# the two branches: only the visible bytes are compared.  Sizes are chosen so
# that buffers carry no padding (stride == visible bytes) except NV12
# 320x241: GStreamer allocates an even number (242) of luma rows, so each
# 116160-byte frame has 320 padding bytes between the 77120 luma bytes and
# the 38720 chroma bytes at 77440.
# visible FILE FRAME_SIZE OFFSET+LENGTH...: the visible bytes of every frame
# (only the NV12 case uses it: the size check below is that case's)
visible() {
  file=$1 fsize=$2
  shift 2
  frames=$(( $(wc -c < "$file") / fsize ))
  f=0
  while [ $f -lt $frames ]; do
    for range in "$@"; do
      dd if="$file" iflag=skip_bytes,count_bytes status=none \
          skip=$(( f * fsize + ${range%+*} )) count=${range#*+}
    done
    f=$((f + 1))
  done
}

status=0
for case in \
    'video/x-raw,format=NV12,width=320,height=241 116160 0+77120 77440+38720' \
    'video/x-raw,format=I420,width=176,height=96' \
    'video/x-raw,format=RGBA,width=640,height=360' \
    'video/x-raw,format=Y444,width=100,height=63'; do
  set -- $case
  caps=$1
  shift
  for pattern in smpte ball; do
    # One pipeline, a tee: the reference is the very buffers that went
    # through the CUDA branch (videotestsrc 1.28 leaves a few chroma bytes of
    # odd-height NV12 smpte frames uninitialised, so two runs differ).
    # The CUDAMemory caps filter keeps the two elements from negotiating
    # passthrough; CUDASIM_STATS proves the copies ran on the simulator
    CUDASIM_STATS=1 "$launch" -q videotestsrc num-buffers=20 \
        pattern=$pattern ! "$caps" ! tee name=t \
        t. ! queue ! filesink location="$tmp/ref.raw" \
        t. ! queue ! cudaupload ! \
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
    elif if [ $# -gt 0 ]; then
        visible "$tmp/ref.raw" "$@" > "$tmp/ref.vis"
        visible "$tmp/sim.raw" "$@" > "$tmp/sim.vis"
        # 20 frames of 115840 visible bytes (guards against an empty dd)
        [ "$(wc -c < "$tmp/ref.vis")" -eq 2316800 ] &&
          cmp -s "$tmp/ref.vis" "$tmp/sim.vis"
      else
        cmp -s "$tmp/ref.raw" "$tmp/sim.raw"
      fi; then
      echo "ok   $caps pattern=$pattern ($(wc -c < "$tmp/sim.raw") bytes," \
          "$copies simulated 2D copies)"
    else
      echo "FAIL $caps pattern=$pattern: output differs"
      status=1
    fi
  done
done
exit $status

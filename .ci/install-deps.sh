#!/usr/bin/env bash
# Installs what building and testing gst-cudasync needs on Debian 12, with
# apt-get. Idempotent: packages already installed are skipped, and nothing is
# downloaded when all are there. Uses sudo only when not run as root.
#
# The CUDA toolkit is not a Debian package: its headers are needed
# (cuda.h, cudaGL.h ...), from $CUDA_PATH or /usr/local/cuda, and its nvcc is
# used when present (the bench kernel). This script checks the headers.
set -euo pipefail

PKGS=(
  meson ninja-build pkg-config gcc libc6-dev
  libglib2.0-dev
  libgstreamer1.0-dev libgstreamer-plugins-base1.0-dev libgstreamer-plugins-bad1.0-dev
  gstreamer1.0-tools gstreamer1.0-plugins-base gstreamer1.0-plugins-good gstreamer1.0-plugins-bad
  gstreamer1.0-plugins-ugly   # x264enc: the tests make H.264 clips
  libvulkan-dev mesa-vulkan-drivers
  libxkbcommon-dev libxkbcommon-x11-dev   # required by gstreamer-vulkan-1.0.pc
  check
  gobject-introspection libgirepository1.0-dev python3-gi gir1.2-gstreamer-1.0 gir1.2-gst-plugins-bad-1.0   # GI + the Python test
  libgl-dev   # gst/cuda/cuda-gst.h includes cudaGL.h, which includes GL/gl.h
  libjson-glib-dev   # the bench writes its JSON with json-glib
  gi-docgen   # the API reference (meson option doc, docs/reference)
  vulkan-validationlayers   # meson test --setup vkvalidation (CI)
  indent   # .ci/gst-indent, .ci/check-indent (CI)
  gdb   # the fault suite prints the stacks of a run that hangs
)

missing=()
for p in "${PKGS[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q '^install ok installed$'; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -gt 0 ]; then
  SUDO=()
  if [ "$(id -u)" -ne 0 ]; then
    command -v sudo >/dev/null || { echo "install-deps.sh: not root and no sudo; install: ${missing[*]}" >&2; exit 1; }
    SUDO=(sudo)
  fi
  echo "install-deps.sh: ${#missing[@]} of ${#PKGS[@]} Debian packages missing: ${missing[*]}"
  echo "install-deps.sh: apt-get update ..."
  "${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -qq
  # what apt will install with their dependencies (a fresh machine: several
  # hundred packages, a few minutes), so that the silence below is explained
  total=$("${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -s \
    --no-install-recommends "${missing[@]}" 2>/dev/null | grep -c '^Inst ' || true)
  echo "install-deps.sh: apt-get install: ${total} packages with their dependencies; apt is running quietly (output shown only on failure) ..."
  log=$(mktemp)
  if ! "${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
      --no-install-recommends "${missing[@]}" >"$log" 2>&1; then
    cat "$log" >&2
    rm -f "$log"
    echo "install-deps.sh: apt-get install failed" >&2
    exit 1
  fi
  rm -f "$log"
  echo "install-deps.sh: installed ${total} packages"
else
  echo "install-deps.sh: all ${#PKGS[@]} Debian packages already installed"
fi

cuda=${CUDA_PATH:-/usr/local/cuda}
if [ ! -f "$cuda/include/cuda.h" ] || [ ! -f "$cuda/include/cudaGL.h" ]; then
  cat >&2 <<MSG
install-deps.sh: the CUDA toolkit headers were not found in $cuda/include
(cuda.h and cudaGL.h are needed; no CUDA library is linked). Install the CUDA
toolkit (https://developer.nvidia.com/cuda-downloads, e.g. the cuda-toolkit
package from NVIDIA's Debian 12 repository), or set CUDA_PATH to its root.
MSG
  exit 1
fi
echo "install-deps.sh: CUDA toolkit headers found in $cuda/include"

#!/usr/bin/env bash
# Developer tool: builds GStreamer from a source tree into a prefix that this
# project's build and tests can use, for GStreamer versions that Debian does
# not ship (1.24.x, 1.28.x with Vulkan, upstream main). CI does not use it:
# CI tests Debian's own packages (.ci/run, .ci/debian-root.sh).
#
#   tools/gst-from-source.sh [--no-deps] SRC PREFIX [MESON-OPTION...]
#
# SRC is a GStreamer monorepo tree (subprojects/gstreamer,
# subprojects/gst-plugins-base, ...: a git checkout or an unpacked tag).
# PREFIX is where it is installed (created; an existing install is
# overwritten). MESON-OPTIONs (-Dname=value) are added to the ones below.
# At the end it writes PREFIX/env.sh, to be sourced before `meson setup` of
# this project, and prints it.
#
# Meant to run in a Debian 13 root made by the CI script, from the project
# root, e.g.:
#
#   .ci/debian-root.sh trixie "tools/gst-from-source.sh build-gst/src-1.24.2 build-gst/1.24.2"
#
# (the root sees the project tree only: keep SRC and PREFIX inside it, in an
# ignored folder such as build-gst/). As root, or with sudo, it first
# installs the Debian packages the build needs (only missing ones; nothing
# else is downloaded, subprojects are not fetched: --wrap-mode=nodownload);
# --no-deps skips that.
#
# What it builds (-Dauto_features=disabled, then only these):
#   gstreamer: core, tools, libgstcheck, coretracers
#   base: the libraries (app, video, allocators, ...) and the app,
#     videotestsrc, videoconvertscale, videorate, typefind, playback,
#     audiotestsrc and audioconvert plugins; no OpenGL
#   good: isomp4, matroska, debugutils, videofilter, autodetect
#   bad: the cuda and vulkan libraries, nvcodec, vulkan (with the XCB
#     window system, and Vulkan Video where the Vulkan headers are recent
#     enough: 1.28 and later need 1.4.317, Debian 13 has 1.4.309),
#     videoparsers, debugutils, codectimestamper, openh264 (the tests
#     decode with it on the simulated CUDA driver)
#   ugly: x264 (GPL: -Dgpl=enabled)
#   GObject introspection data (the project's GIR includes Gst and GstCuda;
#     tests/python uses them), system ORC
# Options a tree does not define (they change between releases) are left
# out with a note.
#
# Environment: GST_FROM_SOURCE_BUILDDIR (default SRC/_build-cudasync),
# GST_FROM_SOURCE_JOBS (default: the number of CPUs),
# GST_FROM_SOURCE_BUILDTYPE (default debugoptimized),
# GST_FROM_SOURCE_VULKAN_HEADERS: a Khronos Vulkan-Headers tree (a git
# checkout of a tag such as v1.4.321) whose include/ is copied into
# PREFIX/include and put first on CPATH for this build and in env.sh, so
# that 1.28 and later build Vulkan Video with Debian 13's Vulkan loader.
set -euo pipefail

say() { echo "gst-from-source: $*"; }
die() { echo "gst-from-source: $*" >&2; exit 1; }

# Debian packages the build needs (same names on Debian 12 and 13)
PKGS=(
  meson ninja-build pkg-config gcc g++ flex bison python3   # gstreamer core: g++ for cuda/nvcodec, flex/bison for the parser
  libglib2.0-dev
  gobject-introspection libgirepository1.0-dev   # GIRs and typelibs
  liborc-0.4-dev liborc-0.4-dev-bin              # ORC (orcc)
  zlib1g-dev                                     # isomp4, matroska
  libvulkan-dev glslc                            # vulkan library and plugin (shaders)
  libxcb1-dev libxkbcommon-dev libxkbcommon-x11-dev   # vulkan: its XCB window system (the library needs one)
  libx264-dev                                    # x264enc
  libopenh264-dev                                # openh264dec
)

deps=1
if [ "${1:-}" = --no-deps ]; then deps=0; shift; fi
[ $# -ge 2 ] || die "usage: tools/gst-from-source.sh [--no-deps] SRC PREFIX [MESON-OPTION...]"
SRC=$(cd "$1" && pwd) || die "no source tree $1"
mkdir -p "$2"
PREFIX=$(cd "$2" && pwd)
shift 2
BUILD=${GST_FROM_SOURCE_BUILDDIR:-$SRC/_build-cudasync}
JOBS=${GST_FROM_SOURCE_JOBS:-$(nproc)}
BUILDTYPE=${GST_FROM_SOURCE_BUILDTYPE:-debugoptimized}
[ -f "$SRC/subprojects/gstreamer/meson.build" ] && [ -f "$SRC/subprojects/gst-plugins-bad/meson.build" ] \
  || die "$SRC is not a GStreamer monorepo tree (no subprojects/gstreamer, subprojects/gst-plugins-bad)"
[ -f /etc/debian_version ] || die "not a Debian system (the packages are Debian's)"

if [ $deps = 1 ]; then
  missing=()
  for p in "${PKGS[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q '^install ok installed$' || missing+=("$p")
  done
  if [ ${#missing[@]} -gt 0 ]; then
    SUDO=()
    if [ "$(id -u)" -ne 0 ]; then
      command -v sudo >/dev/null || die "not root and no sudo; install: ${missing[*]} (or use --no-deps)"
      SUDO=(sudo)
    fi
    say "installing ${#missing[@]} Debian packages: ${missing[*]}"
    # a failing extra source (a debug-symbols mirror ...) leaves the others updated
    "${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -qq \
      || say "warning: apt-get update failed; installing from the package lists there are"
    "${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
      "${missing[@]}" >/dev/null
  fi
fi

# newer Vulkan headers than the system's, in the prefix (see above)
VK_INCLUDE=""
if [ -n "${GST_FROM_SOURCE_VULKAN_HEADERS:-}" ]; then
  vkh=$(cd "$GST_FROM_SOURCE_VULKAN_HEADERS" && pwd) || die "no Vulkan-Headers tree $GST_FROM_SOURCE_VULKAN_HEADERS"
  [ -f "$vkh/include/vulkan/vulkan_core.h" ] || die "$vkh is not a Vulkan-Headers tree (no include/vulkan/vulkan_core.h)"
  mkdir -p "$PREFIX/include"
  rm -rf "$PREFIX/include/vulkan" "$PREFIX/include/vk_video"
  cp -r "$vkh/include/vulkan" "$PREFIX/include/"
  [ -d "$vkh/include/vk_video" ] && cp -r "$vkh/include/vk_video" "$PREFIX/include/"
  VK_INCLUDE=$PREFIX/include
  export CPATH="$VK_INCLUDE${CPATH:+:$CPATH}"
fi

version=$(sed -n "s/^ *version *: *'\([^']*\)'.*/\1/p" "$SRC/subprojects/gstreamer/meson.build" | head -1)
commit=$(git -C "$SRC" rev-parse HEAD 2>/dev/null || echo "not a git checkout")
say "GStreamer $version from $SRC ($commit) into $PREFIX"

# meson options: only those the tree defines (meson.options or meson_options.txt)
optfile() { # optfile DIR
  if [ -f "$1/meson.options" ]; then echo "$1/meson.options"; else echo "$1/meson_options.txt"; fi
}
OPTS=()
opt() { # opt SUBPROJECT|- NAME VALUE
  local dir=$SRC prefix=""
  [ "$1" = - ] || { dir=$SRC/subprojects/$1; prefix=$1:; }
  if grep -q "^option('$2'" "$(optfile "$dir")" 2>/dev/null; then
    OPTS+=("-D$prefix$2=$3")
  else
    say "note: ${prefix}$2 is not an option of this tree; left out"
  fi
}
opt - base enabled
opt - good enabled
opt - bad enabled
opt - ugly enabled
opt - gpl enabled                 # x264
opt - orc enabled
opt - orc-source system
opt - introspection enabled
opt - tools enabled
opt - tests disabled
opt - examples disabled
opt - doc disabled
opt - nls disabled
opt gstreamer check enabled       # libgstcheck: the project's tests
opt gstreamer coretracers enabled
for p in app videotestsrc videoconvertscale videorate typefind playback audiotestsrc audioconvert; do
  opt gst-plugins-base $p enabled
done
for p in isomp4 matroska debugutils videofilter autodetect; do
  opt gst-plugins-good $p enabled
done
for p in nvcodec vulkan x11 videoparsers debugutils codectimestamper openh264; do
  opt gst-plugins-bad $p enabled
done
# Vulkan Video (vulkanh264dec ...) needs newer Vulkan headers from 1.28 on
# (1.4.317) than Debian 13 has (1.4.309): left out where they are too old
vk_need=$(grep -o 'Need at least Vulkan [0-9.]*' \
  "$SRC/subprojects/gst-plugins-bad/gst-libs/gst/vulkan/meson.build" | head -1 | awk '{print $5}')
vk_core=${VK_INCLUDE:-$(pkg-config --variable=includedir vulkan 2>/dev/null || echo /usr/include)}/vulkan/vulkan_core.h
vk_have=$(sed -n 's/^#define VK_HEADER_VERSION_COMPLETE VK_MAKE_API_VERSION(0, *\([0-9]*\), *\([0-9]*\),.*/\1.\2/p' "$vk_core").$(
  sed -n 's/^#define VK_HEADER_VERSION \([0-9]*\)$/\1/p' "$vk_core")
if [ -n "$vk_need" ] && [ "$(printf '%s\n' "$vk_need" "$vk_have" | sort -V | head -1)" != "$vk_need" ]; then
  say "note: Vulkan Video needs Vulkan headers $vk_need, these are $vk_have: gst-plugins-bad:vulkan-video disabled"
  opt gst-plugins-bad vulkan-video disabled
else
  opt gst-plugins-bad vulkan-video enabled
fi
opt gst-plugins-bad vulkan-windowing x11   # after 1.28 (before: the x11 option)
opt gst-plugins-ugly x264 enabled

setup=(meson setup)
[ -f "$BUILD/meson-private/coredata.dat" ] && setup+=(--reconfigure)
start=$(date +%s)
"${setup[@]}" "$BUILD" "$SRC" --prefix="$PREFIX" --libdir=lib --buildtype="$BUILDTYPE" \
  --wrap-mode=nodownload -Dauto_features=disabled "${OPTS[@]}" "$@"
ninja -C "$BUILD" -j"$JOBS"
meson install -C "$BUILD" --quiet
say "built and installed in $(( $(date +%s) - start )) s"

{
  echo "GStreamer $version"
  echo "source: $SRC"
  echo "commit: $commit"
  echo "built: $(date -u +%Y-%m-%dT%H:%M:%SZ) on Debian $(cat /etc/debian_version), $(gcc -dumpfullversion 2>/dev/null | sed 's/^/gcc /')"
  echo "options: --buildtype=$BUILDTYPE -Dauto_features=disabled ${OPTS[*]} $*"
  [ -z "$VK_INCLUDE" ] || echo "Vulkan headers: $vkh ($(git -C "$vkh" describe --tags 2>/dev/null || echo "not a git checkout")), in $VK_INCLUDE"
} > "$PREFIX/gst-from-source.txt"

cat > "$PREFIX/env.sh" <<ENV
# GStreamer $version in $PREFIX (tools/gst-from-source.sh).
# Source it, then configure the project in a build folder of its own:
#   . $PREFIX/env.sh && meson setup build-$version && ninja -C build-$version
GST_PREFIX=$PREFIX
export PATH="\$GST_PREFIX/bin\${PATH:+:\$PATH}"
export LD_LIBRARY_PATH="\$GST_PREFIX/lib\${LD_LIBRARY_PATH:+:\$LD_LIBRARY_PATH}"
export PKG_CONFIG_PATH="\$GST_PREFIX/lib/pkgconfig\${PKG_CONFIG_PATH:+:\$PKG_CONFIG_PATH}"
# only this prefix's plugins: never mix in the system's GStreamer plugins
export GST_PLUGIN_SYSTEM_PATH_1_0="\$GST_PREFIX/lib/gstreamer-1.0"
export GST_PLUGIN_SCANNER_1_0="\$GST_PREFIX/libexec/gstreamer-1.0/gst-plugin-scanner"
# a registry of its own (the tests set GST_REGISTRY themselves)
export GST_REGISTRY="\${TMPDIR:-/tmp}/gst-registry-$version-\$(id -u).bin"
# GObject introspection: this prefix's GIRs (g-ir-scanner) and typelibs
export GI_GIR_PATH="\$GST_PREFIX/share/gir-1.0\${GI_GIR_PATH:+:\$GI_GIR_PATH}"
export GI_TYPELIB_PATH="\$GST_PREFIX/lib/girepository-1.0\${GI_TYPELIB_PATH:+:\$GI_TYPELIB_PATH}"
export XDG_DATA_DIRS="\$GST_PREFIX/share:\${XDG_DATA_DIRS:-/usr/local/share:/usr/share}"
ENV
# the Vulkan headers GStreamer was built with come before the system's
[ -z "$VK_INCLUDE" ] || echo "export CPATH=\"\$GST_PREFIX/include\${CPATH:+:\$CPATH}\"" >> "$PREFIX/env.sh"
say "environment script: $PREFIX/env.sh"
cat "$PREFIX/env.sh"

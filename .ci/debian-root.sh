#!/usr/bin/env bash
# Runs the project's test command against another Debian release's GStreamer,
# in a minimal root made with debootstrap from Debian packages only.
#
#   .ci/debian-root.sh SUITE [COMMAND]
#
# SUITE is a debootstrap suite name: `trixie` (Debian 13, GStreamer 1.26) or
# `testing` (GStreamer 1.28 today). The root ($DEBIAN_ROOT, default
# /var/tmp/gst-cudasync-SUITE) is kept, so a second run only builds and tests.
# Inside it the source tree is bind-mounted at the same path as here and the
# CUDA toolkit ($CUDA_PATH or /usr/local/cuda) at /usr/local/cuda, in a mount
# namespace of its own (unshare), so that nothing stays mounted afterwards and
# several runs can share a root. COMMAND (default: the README's test command
# with the build folder build-SUITE/) runs there, in the source tree, after
# .ci/install-deps.sh.
# Needs root (debootstrap, chroot, mount).
set -euo pipefail
SUITE=${1:?usage: .ci/debian-root.sh SUITE [COMMAND]}
ROOT=${DEBIAN_ROOT:-/var/tmp/gst-cudasync-$SUITE}
COMMAND=${2:-meson setup build-$SUITE -Dbench=enabled && ninja -C build-$SUITE && meson test -C build-$SUITE --print-errorlogs}
SRC=$(cd "$(dirname "$0")/.." && pwd)
CUDA=${CUDA_PATH:-/usr/local/cuda}
MIRROR=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
say() { echo "debian-root[$SUITE]: $*"; }

[ "$(id -u)" -eq 0 ] || { say "must run as root (debootstrap, chroot, mount)" >&2; exit 1; }
[ -f "$CUDA/include/cuda.h" ] || { say "no CUDA toolkit in $CUDA (set CUDA_PATH)" >&2; exit 1; }

if [ ! -x "$ROOT/usr/bin/apt-get" ] || [ ! -f "$ROOT/.gst-cudasync-ready" ]; then
  if ! command -v debootstrap >/dev/null; then
    say "installing debootstrap"
    DEBIAN_FRONTEND=noninteractive apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends debootstrap >/dev/null
  fi
  rm -rf "$ROOT"
  say "debootstrap --variant=minbase $SUITE $ROOT (a few minutes)"
  # --no-check-gpg would hide a wrong mirror; the host's Debian keyring signs every suite.
  debootstrap --variant=minbase "$SUITE" "$ROOT" "$MIRROR" > "$ROOT.debootstrap.log" 2>&1 \
    || { tail -20 "$ROOT.debootstrap.log" >&2; say "debootstrap failed (log: $ROOT.debootstrap.log)" >&2; exit 1; }
  # The Release file that mirrors serve for testing can be past its
  # Valid-Until date; the suite is signed all the same.
  echo 'Acquire::Check-Valid-Until "false";' > "$ROOT/etc/apt/apt.conf.d/99gst-cudasync"
  touch "$ROOT/.gst-cudasync-ready"
fi

if [ -z "${DEBIAN_ROOT_IN_NS:-}" ]; then
  # again, in a private mount namespace: the bind mounts vanish with it
  exec env DEBIAN_ROOT_IN_NS=1 DEBIAN_ROOT="$ROOT" unshare -m --propagation private "$0" "$SUITE" "$COMMAND"
fi
bind() { # bind SRC DEST-INSIDE-ROOT
  mkdir -p "$ROOT$2"
  mount --bind "$1" "$ROOT$2"
}
for d in proc dev sys; do bind "/$d" "/$d"; done
bind "$CUDA" /usr/local/cuda
bind "$SRC" "$SRC"
cp /etc/resolv.conf "$ROOT/etc/resolv.conf" 2>/dev/null || true

in_root() {
  chroot "$ROOT" /usr/bin/env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    HOME=/root LANG=C.UTF-8 CUDA_PATH=/usr/local/cuda CI="${CI:-}" bash -c "cd '$SRC' && $1"
}
say "GStreamer $(in_root 'pkg-config --modversion gstreamer-1.0 2>/dev/null || echo "not installed yet"'), $(in_root 'gcc -dumpfullversion 2>/dev/null | sed "s/^/gcc /"')"
in_root ".ci/install-deps.sh"
in_root "$COMMAND"

#!/usr/bin/env bash
# Developer tool: builds the project against several GStreamer installs
# and runs its tests against each, the versions and their test runs side by
# side, then prints one summary. Meant for a machine with a GPU, where the
# suite, the validation-layer run and the demo are what to check for each
# GStreamer version (docs/testing.md); it works on the simulated driver too.
#
#   tools/test-versions.sh [OPTION...] NAME=ENV[:ENV...] [NAME=ENV...]
#
# NAME names a version (letters, digits, '.', '-', '_'); ENV is a script
# that sets up that GStreamer (PATH, PKG_CONFIG_PATH, LD_LIBRARY_PATH, the
# plugin paths), such as the env.sh that tools/gst-from-source.sh writes;
# several, separated by ':', are sourced in order (a runtime, then a prefix
# on top of it). The system's GStreamer: NAME=/dev/null.
#
# For each version, in a subshell of its own: meson setup and ninja in
# DIR/NAME, then at once
#   - the bridge suite (meson test --suite bridge),
#   - the bridge suite under the Vulkan validation layers
#     (--setup vkvalidation; left out with --no-vkvalidation),
#   - the other suites, then the demo (tools/run-demo.sh).
# With --only 'TEST...' one run of those meson tests replaces the three.
# The logs are DIR/NAME-*.log and the build folders' meson-logs.
#
# Options:
#   --dir DIR            build folders and logs (default: build-versions)
#   --only 'TEST...'     run only these meson tests (names as meson test
#                        --list prints them)
#   --no-vkvalidation    no run under the validation layers
#   --time-limit S       stop every run still going S seconds after the
#                        start (default: none)
#   --meson-option OPT   passed to meson setup (repeatable)
#
# Exit status: 0 when every build and run passed, 1 otherwise, 2 for bad
# arguments.
set -uo pipefail

die() { echo "test-versions: $*" >&2; exit 2; }

dir=build-versions only="" vkval=1 limit=0 setup_opts=()
versions=()
while [ $# -gt 0 ]; do
  case $1 in
    --dir) dir=${2:?}; shift 2 ;;
    --only) only=${2:?}; shift 2 ;;
    --no-vkvalidation) vkval=0; shift ;;
    --time-limit) limit=${2:?}; shift 2 ;;
    --meson-option) setup_opts+=("${2:?}"); shift 2 ;;
    -h|--help) sed -n '2,/^set -uo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    -*) die "unknown option $1" ;;
    *=*) versions+=("$1"); shift ;;
    *) die "not NAME=ENV: $1" ;;
  esac
done
[ ${#versions[@]} -gt 0 ] || die "no version given (NAME=ENV[:ENV...])"
[ -f meson.build ] && [ -d tools ] || die "run it from the project root"
mkdir -p "$dir" || die "cannot create $dir"
root=$PWD
dir=$(cd "$dir" && pwd)
start=$(date +%s)

# the seconds left before --time-limit, as a timeout(1) prefix
limited() {
  if [ "$limit" -gt 0 ]; then
    local left=$(( limit - ($(date +%s) - start) ))
    [ $left -gt 0 ] || { echo "time limit reached before: $*"; return 124; }
    timeout "$left" "$@"
  else
    "$@"
  fi
}

source_envs() {
  local -a files
  IFS=: read -ra files <<< "$1"
  for f in "${files[@]}"; do
    # shellcheck disable=SC1090
    . "$f" || { echo "cannot source $f"; return 1; }
  done
}

# one run: NAME RUN COMMAND... ; its log is DIR/NAME-RUN.log
run() {
  local name=$1 what=$2
  shift 2
  (cd "$root" && limited "$@") > "$dir/$name-$what.log" 2>&1
  echo "$?" > "$dir/$name-$what.rc"
}

test_version() {
  local name=$1 envs=$2 b=$dir/$1
  local m=(meson test -C "$b" --no-rebuild --print-errorlogs)

  source_envs "$envs" > "$dir/$name-env.log" 2>&1 || { echo 1 > "$dir/$name-build.rc"; return; }
  export GST_PLUGIN_PATH=$b/gst/plugin
  if [ -d "$b" ]; then
    run "$name" build ninja -C "$b"
  else
    run "$name" build bash -c 'meson setup "$0" "${@}" && ninja -C "$0"' "$b" "${setup_opts[@]}"
  fi
  [ "$(cat "$dir/$name-build.rc")" = 0 ] || return
  if [ -n "$only" ]; then
    # shellcheck disable=SC2086
    run "$name" only "${m[@]}" --logbase only $only
    return
  fi
  run "$name" bridge "${m[@]}" --logbase bridge --suite bridge &
  [ $vkval = 1 ] && run "$name" vkvalidation "${m[@]}" --logbase vkvalidation \
      --setup vkvalidation --suite bridge &
  { run "$name" other "${m[@]}" --logbase other --no-suite bridge
    run "$name" demo tools/run-demo.sh "$b"; } &
  wait
}

for v in "${versions[@]}"; do
  name=${v%%=*}
  [[ $name =~ ^[A-Za-z0-9._-]+$ ]] || die "bad version name '$name'"
  rm -f "$dir/$name"-*.rc
  ( test_version "$name" "${v#*=}" ) &
done
wait

# the summary: per version and run, meson's counts or the demo's verdict
status=0
printf '%-12s %-13s %s\n' version run result
for v in "${versions[@]}"; do
  name=${v%%=*}
  for what in build only bridge vkvalidation other demo; do
    rc_file=$dir/$name-$what.rc
    [ -f "$rc_file" ] || continue
    rc=$(cat "$rc_file")
    [ "$rc" = 0 ] || status=1
    counts=$(grep -E '^(Ok|Fail|Skipped|Timeout):' "$dir/$name-$what.log" 2>/dev/null |
        awk '{printf "%s %s ", $1, $2}')
    [ "$what" = demo ] && counts=$(grep -E '^ *(semaphore|bridge) pipeline *:' \
        "$dir/$name-$what.log" | sed 's/^ *//' | tr '\n' ' ')
    printf '%-12s %-13s %s%s\n' "$name" "$what" "$( [ "$rc" = 0 ] && echo ok || echo "FAILED (exit $rc)")" \
        "${counts:+: $counts}"
  done
done
echo "logs: $dir/<version>-<run>.log; $(( $(date +%s) - start )) s"
exit $status

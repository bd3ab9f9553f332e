#!/usr/bin/env bash
# Builds the real ROCm installs the tests judge: Debian root filesystems made with
# `debootstrap --variant=minbase` + `apt-get install`, one per suite, cached.
#
#   scripts/real-roots.sh [trixie|sid|all]     build (or refresh) the roots; prints their paths
#   scripts/real-roots.sh --path SUITE         print the root's path (built or not)
#
# Roots live in $ROCM_DOCTOR_ROOTS (default /var/tmp/rocm-doctor-roots/<suite>). A finished root
# carries `.rocm-doctor-root-ok` listing its packages; a root whose list matches is reused as is.
# The mirror is debootstrap's default unless $ROCM_DOCTOR_MIRROR names another one.
# A suite that cannot be built writes `.rocm-doctor-root-failed` with the reason (the tests
# report it) and makes this script exit 3; trixie is stable, sid may be momentarily broken.
#
# Needs root (debootstrap, chroot). Run the doctor inside a root with scripts/in-root.sh.
set -euo pipefail

ROOTS="${ROCM_DOCTOR_ROOTS:-/var/tmp/rocm-doctor-roots}"

# The packages of each real stack (Debian's names):
#  trixie: HIP 5.7.1 (hipcc, clang-17), rocm-device-libs-17, comgr 6.0, rocBLAS 5.5.1
#  sid:    hipcc 7.0.2, HIP 6.4.3, rocm-device-libs-21, comgr 7.0.2, clang-21, rocBLAS 6.4.4,
#          hipBLASLt 7.1.1 (whose ISAs checks/builds.toml records as measured)
# clang-tools-N carries clang-offload-bundler (the independent listing the inspect tests compare
# with); lld-N the device linker; libunwind-N-dev the x86-64 libunwind of seed 001's broken set-up;
# cmake and make (sid) the HIP language that Debian 12's CMake 3.25 cannot configure (tests/why_cli.rs).
packages_for() {
  case "$1" in
    trixie) echo hipcc libamdhip64-dev rocm-device-libs-17 libamd-comgr-dev rocminfo \
      librocblas0 clang-17 lld-17 clang-tools-17 libunwind-17-dev ;;
    sid) echo hipcc libamdhip64-dev rocm-device-libs-21 libamd-comgr-dev rocminfo \
      librocblas4 libhipblaslt1 clang-21 lld-21 clang-tools-21 libunwind-21-dev cmake make ;;
    *) echo "unknown suite: $1" >&2; return 2 ;;
  esac
}

root_of() { echo "$ROOTS/$1"; }

build_root() {
  local suite=$1 root pkgs stamp
  root=$(root_of "$suite")
  pkgs=$(packages_for "$suite")
  stamp="$root/.rocm-doctor-root-ok"
  if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$pkgs" ]; then
    echo "$suite: cached at $root"
    return 0
  fi
  rm -f "$root/.rocm-doctor-root-failed"
  mkdir -p "$root"
  local log="$ROOTS/$suite.log"
  echo "$suite: building at $root (log: $log)"
  if [ ! -x "$root/usr/bin/apt-get" ]; then
    # shellcheck disable=SC2086
    if ! debootstrap --variant=minbase "$suite" "$root" ${ROCM_DOCTOR_MIRROR:-} >"$log" 2>&1; then
      fail "$suite" "debootstrap failed: $(tail -n 3 "$log" | tr '\n' ' ')"
      return 3
    fi
  fi
  # The archive served here can be a snapshot whose sid Release file is past its Valid-Until:
  # the packages are still the ones signed, so do not let apt reject them for the date alone.
  mkdir -p "$root/etc/apt/apt.conf.d"
  echo 'Acquire::Check-Valid-Until "false";' >"$root/etc/apt/apt.conf.d/99rocm-doctor-snapshot"
  # shellcheck disable=SC2086
  if ! in_chroot "$root" sh -c "apt-get update -q && DEBIAN_FRONTEND=noninteractive \
      apt-get install -y -q --no-install-recommends $pkgs" >>"$log" 2>&1; then
    fail "$suite" "apt-get install failed: $(grep -E '^(E:|W:)| : Depends' "$log" | tail -n 6 | tr '\n' ' ')"
    return 3
  fi
  in_chroot "$root" apt-get clean >>"$log" 2>&1 || true
  echo "$pkgs" >"$stamp"
  echo "$suite: ready at $root"
}

fail() {
  local suite=$1 why=$2 root
  root=$(root_of "$suite")
  mkdir -p "$root"
  echo "$why" >"$root/.rocm-doctor-root-failed"
  echo "$suite: NOT BUILT: $why" >&2
}

# Runs a command inside ROOT with /proc, /sys and /dev bound, in a private mount namespace so
# nothing stays mounted afterwards.
in_chroot() {
  local root=$1
  shift
  unshare --mount --propagation private -- sh -c '
    root=$1; shift
    mount -t proc proc "$root/proc"
    mount --rbind /sys "$root/sys"
    mount --rbind /dev "$root/dev"
    cp -L /etc/resolv.conf "$root/etc/resolv.conf" 2>/dev/null || true
    exec chroot "$root" "$@"' sh "$root" "$@"
}

[ "$(id -u)" -eq 0 ] || { echo "real-roots.sh needs root (debootstrap, chroot)" >&2; exit 2; }

case "${1:-all}" in
  --path) root_of "${2:?suite}"; exit 0 ;;
  all) suites=(trixie sid) ;;
  trixie | sid) suites=("$1") ;;
  *) echo "usage: $0 [trixie|sid|all] | --path SUITE" >&2; exit 2 ;;
esac

command -v debootstrap >/dev/null || { echo "debootstrap is not installed" >&2; exit 2; }
status=0
pids=()
for s in "${suites[@]}"; do
  build_root "$s" &
  pids+=($!)
done
for p in "${pids[@]}"; do wait "$p" || status=3; done
exit $status

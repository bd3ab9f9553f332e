#!/usr/bin/env bash
# Regenerates the real runtime logs of tests/fixtures/logs/ (`hip-*-level*.log`): builds
# tests/fixtures/logs/programs/hip-init.hip with each real stack's hipcc and runs it at
# AMD_LOG_LEVEL=1, 3, 4 and 5, keeping the runtime's log (the program's stderr) verbatim.
#
#   scripts/make-runtime-logs.sh [bookworm|trixie|sid|all]   (default: all)
#
# Stacks:
#   bookworm  this machine (Debian 12): hipcc / libamdhip64 5.2.3
#   trixie    the root of scripts/real-roots.sh (HIP 5.7.1), run with scripts/in-root.sh
#   sid       the same (HIP 6.4.3, hipcc 7.0.2)
# On a machine without a GPU (no /dev/kfd) every HIP call fails and the log shows how each
# runtime reports its failed initialisation; with a GPU the logs would differ.
#
# The program's stdout (each call's hipError_t name) is printed, and each stack's package
# versions (dpkg -l), which tests/fixtures/logs/SOURCE.md records. Pids, timestamps and
# addresses differ on every run. Needs root for the chroots.
set -euo pipefail

here=$(cd "$(dirname "$0")/.." && pwd)
src="$here/tests/fixtures/logs/programs/hip-init.hip"
out="$here/tests/fixtures/logs"
ROOTS="${ROCM_DOCTOR_ROOTS:-/var/tmp/rocm-doctor-roots}"
LEVELS="1 3 4 5"
# Any ISA: there is no GPU to run it on, and hipcc needs one to compile the kernel.
ARCH=gfx1030
PKGS='hipcc|libamdhip64-[0-9]|libamdhip64-dev|libhsa-runtime64|libhsakmt|libamd-comgr[0-9]|clang-(15|17|21) '

# The HIP version the stack's runtime reports, for the file names (5.2.3, 5.7.1, 6.4.3).
hip_version() { sed -n 's/^ii  libamdhip64-dev[^ ]* *\([0-9.]*\).*/\1/p'; }

# Build directories, removed on exit (in a root: under its /var/tmp, as in-root.sh mounts a
# fresh /tmp).
cleanup=()
trap 'rm -rf "${cleanup[@]}"' EXIT

# run_stack NAME RUNNER...: RUNNER runs a command on the stack (empty for this machine).
run_stack() {
  local name=$1 work dir ver l
  shift
  if [ $# -eq 0 ]; then
    work=$(mktemp -d)
    dir=$work
  else
    local root=${*: -1}
    work=$(mktemp -d "$root/var/tmp/hip-init.XXXXXX")
    dir=/var/tmp/${work##*/}
  fi
  cleanup+=("$work")
  cp "$src" "$work/hip-init.hip"
  local pkgs
  pkgs=$("$@" sh -c 'dpkg -l' | grep -E "^ii  ($PKGS)")
  ver=$(printf '%s\n' "$pkgs" | hip_version)
  echo "== $name (HIP $ver)"
  printf '%s\n' "$pkgs"
  "$@" sh -c "cd $dir && hipcc --offload-arch=$ARCH -o hip-init hip-init.hip"
  for l in $LEVELS; do
    local f="$out/hip-$ver-$name-level$l.log"
    echo "-- AMD_LOG_LEVEL=$l ./hip-init 2> ${f#"$here"/}"
    # env -i: the same clean environment on every stack (in-root.sh sets its own).
    if [ $# -eq 0 ]; then
      (cd "$dir" && env -i PATH=/usr/bin:/bin HOME=/root AMD_LOG_LEVEL="$l" ./hip-init 2>"$f")
    else
      "$@" AMD_LOG_LEVEL="$l" "$dir/hip-init" 2>"$f"
    fi
  done
}

in_root() { "$here/scripts/in-root.sh" "$@"; }

want=${1:-all}
case "$want" in
  bookworm | all) run_stack bookworm ;;&
  trixie | all) run_stack trixie in_root "$ROOTS/trixie" ;;&
  sid | all) run_stack sid in_root "$ROOTS/sid" ;;&
  bookworm | trixie | sid | all) ;;
  *) echo "usage: $0 [bookworm|trixie|sid|all]" >&2; exit 2 ;;
esac

#!/usr/bin/env bash
# Runs a command inside a real root built by scripts/real-roots.sh, as a user of that install
# would: `chroot` with /proc, /sys and /dev bound, the doctor binary visible at
# /opt/rocm-doctor/bin/rocm-doctor (the directory holding $ROCM_DOCTOR_BIN, bound read-only), and
# a clean environment (PATH, HOME=/root, plus whatever `VAR=value` words precede the command).
#
#   scripts/in-root.sh ROOT [VAR=value ...] COMMAND [ARG...]
#
# Everything happens in a private mount namespace: nothing stays mounted afterwards, and
# concurrent calls do not see each other's mounts. Needs root.
set -euo pipefail

root=${1:?usage: in-root.sh ROOT [VAR=value ...] COMMAND [ARG...]}
shift
[ -x "$root/usr/bin/env" ] || { echo "in-root.sh: $root is not a built root" >&2; exit 2; }
bin=${ROCM_DOCTOR_BIN:-}
bindir=""
if [ -n "$bin" ]; then
  bindir=$(cd "$(dirname "$bin")" && pwd)
  mkdir -p "$root/opt/rocm-doctor/bin"
fi

exec unshare --mount --propagation private -- /bin/sh -c '
  set -e
  root=$1 bindir=$2; shift 2
  mount -t proc proc "$root/proc"
  mount --rbind /sys "$root/sys"
  mount --rbind /dev "$root/dev"
  mount -t tmpfs tmpfs "$root/tmp"
  if [ -n "$bindir" ]; then
    mount --bind "$bindir" "$root/opt/rocm-doctor/bin"
    mount -o remount,bind,ro "$root/opt/rocm-doctor/bin"
  fi
  exec chroot "$root" /usr/bin/env -i PATH=/opt/rocm-doctor/bin:/usr/local/bin:/usr/bin:/bin \
    HOME=/root TERM=dumb "$@"' sh "$root" "$bindir" "$@"

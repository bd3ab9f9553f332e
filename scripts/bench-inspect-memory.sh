#!/usr/bin/env bash
# Peak RSS and wall time of `rocm-doctor inspect` as the number of files grows, to show whether
# memory stays flat (issue 12): generated trees of 3,000, 30,000 and 100,000 offload-bundle
# files (copies of one real gfx1030 bundle, 1,000 per directory), the real sid trees when
# scripts/real-roots.sh built them, and a tree of unpacked ROCm Python wheels when
# scripts/fetch-rocm-wheels.sh fetched it. Three runs per tree: `inspect`, `--json inspect`
# and `--isa gfx1030 inspect` (a verdict per file and target); /usr/bin/time -f "%e %M".
#
# With BASE_BIN=path/to/an/older/rocm-doctor, every command also runs with it and the outputs
# are compared: byte for byte (human) and as parsed values (JSON).
#
# Usage: scripts/bench-inspect-memory.sh [COUNT...]   (default 3000 30000 100000)
#   BENCH_DIR=dir keeps the generated trees there (reused when present; ~12 KB per file on
#   disk); by default they go to a temp dir removed at exit.
#   ROCM_DOCTOR_ROOTS (default /var/tmp/rocm-doctor-roots), WHEELS_DIR (default
#   /var/tmp/rocm-doctor-wheels/tree).
# Needs hipcc (the bundle), python3, /usr/bin/time.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
counts=("$@")
[ ${#counts[@]} -gt 0 ] || counts=(3000 30000 100000)
cargo build --release --quiet --manifest-path "$ROOT/Cargo.toml"
NEW=$ROOT/target/release/rocm-doctor
BASE=${BASE_BIN:-}
ROOTS=${ROCM_DOCTOR_ROOTS:-/var/tmp/rocm-doctor-roots}
WHEELS=${WHEELS_DIR:-/var/tmp/rocm-doctor-wheels/tree}
if [ -n "${BENCH_DIR:-}" ]; then W=$BENCH_DIR; mkdir -p "$W"; else W=$(mktemp -d); fi
out=$(mktemp -d)
trap 'rm -rf "$out"; [ -n "${BENCH_DIR:-}" ] || rm -rf "$W"' EXIT

if [ ! -s "$W/k.hipfb" ]; then
  cat > "$W/k.hip" <<'HIP'
#include <hip/hip_runtime.h>
__global__ void add(float* a, const float* b, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) a[i] += b[i]; }
__global__ void mul(float* a, const float* b, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) a[i] *= b[i]; }
HIP
  (cd "$W" && TMPDIR=$W hipcc --offload-arch=gfx1030 --cuda-device-only -c k.hip -o k.hipfb)
fi
for n in "${counts[@]}"; do
  [ -d "$W/tree$n" ] && continue
  python3 - "$W/k.hipfb" "$W/tree$n" "$n" <<'PY'
import os, sys
src, root, n = open(sys.argv[1], "rb").read(), sys.argv[2], int(sys.argv[3])
for i in range(n):
    d = f"{root}/d{i // 1000:03d}"
    if i % 1000 == 0:
        os.makedirs(d)
    open(f"{d}/f{i:06d}.hipfb", "wb").write(src)
PY
done

# measure LABEL BIN ARGS... -> "secs MiB", output in $out/LABEL
measure() {
  local label=$1 bin=$2; shift 2
  local rc=0
  /usr/bin/time -f "%e %M" -o "$out/t" "$bin" "$@" >"$out/$label" 2>"$out/err" || rc=$?
  [ $rc -le 1 ] || { echo "$bin $*: exit $rc" >&2; cat "$out/err" >&2; exit 1; }
  read -r s kb < <(tail -n 1 "$out/t")
  echo "$s $((kb / 1024))"
}

row() { # NAME ARGS...
  local name=$1; shift
  for mode in "inspect" "--json inspect" "--isa gfx1030 inspect"; do
    # shellcheck disable=SC2086
    read -r s mib < <(measure new "$NEW" $mode "$@")
    local line
    line=$(printf "%-28s %-24s new %6.2f s %4d MiB" "$name" "$mode" "$s" "$mib")
    if [ -n "$BASE" ]; then
      # shellcheck disable=SC2086
      read -r bs bmib < <(measure base "$BASE" $mode "$@")
      if [[ $mode == --json* ]]; then
        same=$(python3 -c 'import json,sys; print("equal" if json.load(open(sys.argv[1])) == json.load(open(sys.argv[2])) else "DIFFERENT")' "$out/new" "$out/base")
      else
        same=$(cmp -s "$out/new" "$out/base" && echo identical || echo DIFFERENT)
      fi
      line+=$(printf "   base %6.2f s %4d MiB   output %s" "$bs" "$bmib" "$same")
    fi
    echo "$line"
  done
}

for n in "${counts[@]}"; do row "$n bundle files" "$W/tree$n"; done
if [ -d "$ROOTS/sid/usr/lib/x86_64-linux-gnu" ]; then
  row "sid rocblas/" --sysroot "$ROOTS/sid" /usr/lib/x86_64-linux-gnu/rocblas
  row "sid /usr/lib/x86_64-linux-gnu" --sysroot "$ROOTS/sid" /usr/lib/x86_64-linux-gnu
fi
if [ -d "$WHEELS" ]; then
  row "ROCm wheels ($(du -sh "$WHEELS" | cut -f1))" "$WHEELS"
  "$NEW" --json inspect "$WHEELS" > "$out/w.json" || true
  python3 - "$out/w.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))["inspect"]
files = [f for f in d["files"] if f.get("bundles")]
bundles = sum(len(f["bundles"]) for f in files)
entries = sum(len(b.get("entries", [])) for f in files for b in f["bundles"])
print(f"wheel tree: {len(d['files'])} files listed, {len(files)} with bundles, {bundles} bundles, {entries} entries")
PY
fi

#!/usr/bin/env bash
# Throughput and peak RSS of `rocm-doctor inspect` on a large library with many bundles, side by
# side with clang-offload-bundler --list (clang-19) over the same bundles.
#
# How the input is assembled: one HIP file with $KERNELS kernels is built twice, with hipcc
# (uncompressed bundles) and clang-19 --offload-compress (CCOB v2 zstd), for three targets. The
# bundles are cut out of both libraries and repeated, alternately, with `.incbin` into the
# `.hip_fatbin` section (4096-aligned, as clang lays them out) of one shared library of about
# $TARGET_MB MB, linked by clang-19. The doctor finds them by walking the section. A second
# library a quarter of the size shows whether RSS depends on file size.
#
# Usage: scripts/bench-inspect.sh [TARGET_MB] (default 400). Needs hipcc, clang-19 and
# clang-offload-bundler-19, python3, /usr/bin/time. Page cache warm (files just written).
set -euo pipefail
TARGET_MB=${1:-400}
KERNELS=${KERNELS:-40}
LLVM=/usr/lib/llvm-19/bin
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cargo build --release --quiet --manifest-path "$ROOT/Cargo.toml"
DOCTOR=$ROOT/target/release/rocm-doctor
# BENCH_DIR=dir keeps the inputs there (for profiling); by default a temp dir is removed.
if [ -n "${BENCH_DIR:-}" ]; then W=$BENCH_DIR; mkdir -p "$W"; else W=$(mktemp -d); trap 'rm -rf "$W"' EXIT; fi
cd "$W"

python3 - "$KERNELS" > big.hip <<'PY'
import sys
n = int(sys.argv[1])
print('#include <hip/hip_runtime.h>')
for i in range(n):
    print(f'__global__ void k{i}(float* p, int n) {{ float a = p[threadIdx.x];'
          f' for (int j = 0; j < n; ++j) {{ a = a * {i+1}.5f + __sinf(a) * {i}.25f; if (a > {i}.0f) a -= p[j & 63]; }}'
          f' p[threadIdx.x] = a; }}')
PY
ARCHS="--offload-arch=gfx90a:sramecc+:xnack- --offload-arch=gfx1030 --offload-arch=gfx908"
echo "building the device code ($KERNELS kernels, 3 targets)..." >&2
hipcc $ARCHS -fPIC -shared big.hip -o libu.so
PATH=$LLVM:$PATH $LLVM/clang++ -x hip $ARCHS --offload-compress \
  --rocm-device-lib-path=/usr/lib/x86_64-linux-gnu/amdgcn/bitcode --rocm-path=/usr -fPIC -shared big.hip -o libc.so

# Cut the bundles out (offset and size from the doctor's own listing, cross-checked below).
for lib in libu libc; do
  { "$DOCTOR" inspect --json $lib.so || true; } | python3 -c '
import json, sys
d = json.load(sys.stdin)["inspect"]["files"][0]["bundles"][0]
src = open(sys.argv[1] + ".so", "rb").read()
open(sys.argv[1] + ".bundle", "wb").write(src[d["offset"]:d["offset"] + d["stored_size"]])
' $lib
done
$LLVM/clang-offload-bundler --list --type=o --input=libu.bundle >/dev/null
$LLVM/clang-offload-bundler --list --type=o --input=libc.bundle >/dev/null

make_big() { # $1 = MB, $2 = output
  python3 - "$1" "$2" <<'PY'
import os, sys
mb, out = int(sys.argv[1]), sys.argv[2]
u, c = os.path.getsize("libu.bundle"), os.path.getsize("libc.bundle")
lines, total, n = ['.section .hip_fatbin,"a",@progbits'], 0, 0
while total < mb << 20:
    f, s = ("libu.bundle", u) if n % 2 == 0 else ("libc.bundle", c)
    lines += [".p2align 12", f'.incbin "{f}"']
    total += (s + 4095) // 4096 * 4096
    n += 1
open(out + ".s", "w").write("\n".join(lines) + "\n")
open(out + ".count", "w").write(f"{n} {(n+1)//2} {n//2}\n")
PY
  $LLVM/clang -c "$2.s" -o "$2.o"
  $LLVM/clang -shared -fuse-ld=lld "$2.o" -o "$2"
}
make_big "$TARGET_MB" big.so
make_big $((TARGET_MB / 4)) quarter.so

measure() { # label, command...
  local label=$1; shift
  # Exit 1 is a verdict (findings failed), not a crash.
  local rc=0
  /usr/bin/time -f "%e %M" -o t.txt "$@" >/dev/null 2>err.txt || rc=$?
  [ $rc -le 1 ] || { cat err.txt >&2; exit 1; }
  read -r secs kb < <(tail -n 1 t.txt)
  echo "$label $secs $kb"
}

report() { # file
  local f=$1 size n nu nc
  size=$(stat -c %s "$f")
  read -r n nu nc < "$f.count"
  # Our listing: every bundle found, decompressed, every code object's header and metadata read.
  found=$({ "$DOCTOR" inspect --json "$f" || true; } | python3 -c 'import json,sys; print(len(json.load(sys.stdin)["inspect"]["files"][0]["bundles"]))')
  [ "$found" = "$n" ] || { echo "found $found bundles, expected $n" >&2; exit 1; }
  read -r _ d_s d_kb < <(measure doctor "$DOCTOR" inspect --json "$f")
  # The bundler over the same bundles: one --list per bundle (it reads one bundle per call).
  cat > loop.sh <<SH
for i in \$(seq $nu); do $LLVM/clang-offload-bundler --list --type=o --input=libu.bundle; done
for i in \$(seq $nc); do $LLVM/clang-offload-bundler --list --type=o --input=libc.bundle; done
SH
  read -r _ b_s b_kb < <(measure bundler bash loop.sh)
  python3 - "$f" "$size" "$n" "$d_s" "$d_kb" "$b_s" "$b_kb" <<'PY'
import sys
f, size, n, ds, dkb, bs, bkb = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4]), int(sys.argv[5]), float(sys.argv[6]), int(sys.argv[7])
mb = size / 2**20
print(f"{f}: {mb:.0f} MiB, {n} bundles (half CCOB)")
print(f"  rocm-doctor inspect --json : {ds:6.2f} s  {mb/max(ds,1e-9):7.0f} MiB/s  peak RSS {dkb/1024:6.1f} MiB")
print(f"  clang-offload-bundler -list: {bs:6.2f} s  {mb/max(bs,1e-9):7.0f} MiB/s  peak RSS {bkb/1024:6.1f} MiB (largest single call)")
PY
}
echo "unique bundles: uncompressed $(stat -c %s libu.bundle) B, CCOB $(stat -c %s libc.bundle) B" 
report big.so
report quarter.so

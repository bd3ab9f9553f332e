#!/bin/sh
# Benchmark: `--asm-caps` default (batched, parallel) vs `--no-batch` (Tensile's serial
# method) on Debian's clang-15 over Tensile's ISAs (current list + gfx940/gfx941 from 6.2 +
# the gfx000 placeholder = 20), with hyperfine. Checks that both give identical answers and
# prints the medians and the speed-up.
#
# The exit code of rocm-doctor is 1 here (gfx940/941 are asked for explicitly and clang-15
# does not know them), hence `-i`.
#
# Usage: scripts/bench-asm-caps.sh [CLANG++]   (BIN=path/to/rocm-doctor to override)
set -eu
CLANG=${1:-/usr/lib/llvm-15/bin/clang++}
BIN=${BIN:-}
if [ -z "$BIN" ]; then
    if [ -x target/release/rocm-doctor ]; then BIN=target/release/rocm-doctor; else BIN=target/debug/rocm-doctor; fi
fi
command -v hyperfine >/dev/null || { echo "hyperfine is required" >&2; exit 2; }
[ -x "$CLANG" ] || { echo "$CLANG: not executable" >&2; exit 2; }
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
ARGS="--asm-caps --isa tensile,gfx940,gfx941 --assembler $CLANG --only asm --json --timeout 60 --deadline 900"

# Same answers?
"$BIN" $ARGS > "$OUT/batched.json" || true
"$BIN" $ARGS --no-batch > "$OUT/serial.json" || true
python3 - "$OUT/batched.json" "$OUT/serial.json" <<'PY'
import json, sys
b, s = (json.load(open(p))["asm_caps"] for p in sys.argv[1:3])
assert list(b) == list(s), "different ISAs"
diff = [f"{i}.{k}" for i in b for k in b[i] if b[i][k] != s[i].get(k)]
print(f"ISAs: {len(b)}, keys per ISA: {len(next(iter(b.values())))}, differences: {len(diff)} {diff[:10]}")
sys.exit(1 if diff else 0)
PY

hyperfine -i --warmup 1 --runs ${RUNS_BATCHED:-10} --export-json "$OUT/h-batched.json" -n batched "$BIN $ARGS"
hyperfine -i --runs ${RUNS_SERIAL:-3} --export-json "$OUT/h-serial.json" -n serial "$BIN $ARGS --no-batch"
python3 - "$OUT/h-batched.json" "$OUT/h-serial.json" <<'PY'
import json, sys
b, s = (json.load(open(p))["results"][0] for p in sys.argv[1:3])
print(f"median batched: {b['median']:.3f} s  (runs {len(b['times'])}, min {min(b['times']):.3f}, max {max(b['times']):.3f})")
print(f"median serial:  {s['median']:.3f} s  (runs {len(s['times'])}, min {min(s['times']):.3f}, max {max(s['times']):.3f})")
print(f"speed-up: {s['median'] / b['median']:.1f}x")
PY

# The whole run (every check, incl. the HIP compile for each ISA and the probe), for Tensile's
# ISAs named explicitly, beside Tensile's own serial method above. OLD_BIN (another build)
# adds a before/after comparison.
WHOLE="--asm-caps --isa gfx803,gfx900,gfx906,gfx908,gfx90a,gfx942,gfx1010,gfx1011,gfx1012,gfx1030,gfx1031,gfx1100,gfx1101,gfx1102,gfx1151,gfx1200,gfx1201 --color never"
set -- -n whole "$BIN $WHOLE"
if [ -n "${OLD_BIN:-}" ]; then set -- "$@" -n whole-old "$OLD_BIN $WHOLE"; fi
hyperfine -i --warmup 1 --runs ${RUNS_WHOLE:-10} --export-json "$OUT/h-whole.json" "$@"
python3 - "$OUT/h-whole.json" "$OUT/h-serial.json" <<'PY'
import json, sys
w = json.load(open(sys.argv[1]))["results"]
s = json.load(open(sys.argv[2]))["results"][0]
for r in w:
    print(f"median {r['command'].split()[0]} whole run: {r['median']:.3f} s  (runs {len(r['times'])}); Tensile's serial probe alone: {s['median']:.3f} s ({s['median'] / r['median']:.1f}x)")
PY

#!/usr/bin/env bash
# `rocm-doctor why -` on two 10,000-line logs, before and after in one run (hyperfine medians):
# a generated AMD_LOG_LEVEL=5 runtime log (`rocm-doctor gen-log`, deterministic: nearly every line
# carries CLR's prefix, the worst case for the origin matcher) and a build/run log made of the
# corpus's texts (tests/corpus/*.toml) repeated to 10,000 lines (the lines users paste).
#
# Usage: scripts/bench-why.sh [BEFORE_BINARY]  (default: only this tree's release build). Needs
# hyperfine and python3. BENCH_DIR=dir keeps the logs.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cargo build --release --quiet --manifest-path "$ROOT/Cargo.toml"
AFTER=$ROOT/target/release/rocm-doctor
BEFORE=${1:-}
if [ -n "${BENCH_DIR:-}" ]; then W=$BENCH_DIR; mkdir -p "$W"; else W=$(mktemp -d); trap 'rm -rf "$W"' EXIT; fi
"$AFTER" gen-log --iterations 2000 --devices 8 | head -n 10000 > "$W/runtime.log"
python3 - "$ROOT" > "$W/corpus.log" <<'PY'
import glob, sys, tomllib
lines = []
for f in sorted(glob.glob(sys.argv[1] + "/tests/corpus/*.toml")):
    for c in tomllib.load(open(f, "rb"))["case"]:
        lines += c["text"].splitlines()
out = (lines * (10000 // len(lines) + 1))[:10000]
print("\n".join(out))
PY
echo "cores: $(nproc)  load: $(cut -d' ' -f1-3 /proc/loadavg)"
for log in runtime corpus; do
  f=$W/$log.log
  echo "== $log: $(wc -l < "$f") lines, $(stat -c %s "$f") bytes"
  cmds=(-n after "$AFTER why - < $f | cat")
  [ -n "$BEFORE" ] && cmds+=(-n before "$BEFORE why - < $f | cat")
  hyperfine --style basic --warmup 1 --runs "${RUNS:-7}" -i --export-json "$W/h-$log.json" "${cmds[@]}" >/dev/null
  python3 - "$W/h-$log.json" <<'PY'
import json, sys
for r in json.load(open(sys.argv[1]))["results"]:
    print(f"  {r['command']}: median {r['median'] * 1000:.0f} ms (min {r['min'] * 1000:.0f}, max {r['max'] * 1000:.0f})")
PY
done

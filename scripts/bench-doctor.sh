#!/usr/bin/env bash
# Benchmark of a default `rocm-doctor` run on the installed toolchain, side by side in one
# hyperfine run with `hipconfig --full` (the nearest thing users run today), plus a run with
# `--isa gfx1030` (one real HIP compile with the HIP headers). Prints medians and ratios.
# Usage: scripts/bench-doctor.sh [runs]   (needs hyperfine and the test toolchain)
set -euo pipefail
cd "$(dirname "$0")/.."
runs="${1:-30}"
cargo build --release -q
bin=target/release/rocm-doctor
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
hyperfine --style basic -N --warmup 3 --runs "$runs" --export-json "$out/r.json" \
  -n "rocm-doctor" "$bin" \
  -n "hipconfig --full" "hipconfig --full" \
  -n "rocm-doctor --isa gfx1030" "$bin --isa gfx1030" \
  -i >/dev/null
python3 - "$out/r.json" <<'PY'
import json, sys
r = {x["command"]: x for x in json.load(open(sys.argv[1]))["results"]}
med = {k: v["median"] * 1000 for k, v in r.items()}
for k, v in med.items():
    print(f"{k:28s} median {v:8.1f} ms  (min {r[k]['min']*1000:.1f}, max {r[k]['max']*1000:.1f}, {len(r[k]['times'])} runs)")
print(f"hipconfig --full / rocm-doctor = {med['hipconfig --full'] / med['rocm-doctor']:.2f}x")
PY

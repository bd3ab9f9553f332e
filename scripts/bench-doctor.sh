#!/usr/bin/env bash
# Benchmark of a default `rocm-doctor` run on the installed toolchain, side by side in one
# hyperfine run with `rocm-doctor --json` (the issue's target: <= 150 ms median), `hipconfig
# --full` (the nearest thing users run today), AMD's `rocm-cli diagnose --json` when it is
# installed, and `--isa gfx1030` (one real HIP compile with the HIP headers). Prints medians
# and ratios, then the peak RSS of the doctor's own process apart from its children's
# (getrusage RUSAGE_SELF vs RUSAGE_CHILDREN, printed by the doctor with ROCM_DOCTOR_RUSAGE=1;
# /usr/bin/time would report the larger of the two, usually clang's).
# Usage: scripts/bench-doctor.sh [runs]   (needs hyperfine and the test toolchain)
# OLD_BIN=path/to/an/older/rocm-doctor adds it to the same hyperfine run ("before", "before
# --json") and prints the ratios, so a change is measured before and after in one run.
set -euo pipefail
cd "$(dirname "$0")/.."
runs="${1:-30}"
cargo build --release -q
bin=target/release/rocm-doctor
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
extra=()
if [ -n "${OLD_BIN:-}" ]; then
  extra+=(-n "before" "$OLD_BIN" -n "before --json" "$OLD_BIN --json")
fi
if command -v rocm-cli >/dev/null; then
  extra+=(-n "rocm-cli diagnose --json" "rocm-cli diagnose --json")
else
  echo "rocm-cli: not installed on this machine (command -v rocm-cli); no comparison with it"
fi
hyperfine --style basic -N --warmup 3 --runs "$runs" --export-json "$out/r.json" \
  -n "rocm-doctor" "$bin" \
  -n "rocm-doctor --json" "$bin --json" \
  -n "hipconfig --full" "hipconfig --full" \
  "${extra[@]}" \
  -n "rocm-doctor --isa gfx1030" "$bin --isa gfx1030" \
  -i >/dev/null
for _ in $(seq 1 11); do
  ROCM_DOCTOR_RUSAGE=1 "$bin" --json 2>&1 >/dev/null | grep '^rusage:' >>"$out/rusage.txt" || true
done
python3 - "$out/r.json" "$out/rusage.txt" <<'PY'
import json, re, statistics, sys
r = {x["command"]: x for x in json.load(open(sys.argv[1]))["results"]}
med = {k: v["median"] * 1000 for k, v in r.items()}
for k, v in med.items():
    print(f"{k:28s} median {v:8.1f} ms  (min {r[k]['min']*1000:.1f}, max {r[k]['max']*1000:.1f}, {len(r[k]['times'])} runs)")
print(f"hipconfig --full / rocm-doctor = {med['hipconfig --full'] / med['rocm-doctor']:.2f}x")
if "before" in med:
    print(f"before / now: default {med['before'] / med['rocm-doctor']:.2f}x, --json {med['before --json'] / med['rocm-doctor --json']:.2f}x")
if "rocm-cli diagnose --json" in med:
    print(f"rocm-cli diagnose --json / rocm-doctor --json = {med['rocm-cli diagnose --json'] / med['rocm-doctor --json']:.2f}x")
own, kids = [], []
for line in open(sys.argv[2]):
    m = re.search(r"self maxrss_kb=(\d+).*children maxrss_kb=(\d+)", line)
    if m:
        own.append(int(m.group(1)))
        kids.append(int(m.group(2)))
if own:
    print(f"rocm-doctor --json peak RSS, median of {len(own)} runs: own process {statistics.median(own)/1024:.1f} MiB, "
          f"largest child {statistics.median(kids)/1024:.1f} MiB")
PY

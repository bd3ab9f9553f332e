#!/usr/bin/env bash
# `rocm-doctor log` on a generated AMD_LOG_LEVEL=5 log shaped like seed 003 (a GEMM loop over 8
# devices, ROCm 7.2 line format, interleaved threads; `rocm-doctor gen-log`, deterministic),
# from the page cache, against the seed's three `grep -c` passes (queues, KernelExecution
# enqueues, HWq= dispatch lines) in the same run. Reports medians (hyperfine) and peak RSS
# (/usr/bin/time) for each size, then the median ratio of PAIRS (default 21) interleaved pairs.
# Outputs go through `| cat`: GNU grep stops at the first match when its stdout is /dev/null
# (which is where hyperfine sends it), which would time nothing.
#
# Usage: scripts/bench-log.sh [ITERATIONS...] (default: 12764 127644 = ~150 MB and ~1.5 GB;
# seed 003 had 127,644 iterations). Needs hyperfine and /usr/bin/time. BENCH_DIR=dir keeps the logs.
set -euo pipefail
SIZES=("${@:-12764 127644}")
[ $# -eq 0 ] && SIZES=(12764 127644)
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cargo build --release --quiet --manifest-path "$ROOT/Cargo.toml"
DOCTOR=$ROOT/target/release/rocm-doctor
if [ -n "${BENCH_DIR:-}" ]; then W=$BENCH_DIR; mkdir -p "$W"; else W=$(mktemp -d); trap 'rm -rf "$W"' EXIT; fi
echo "cores: $(nproc)  load: $(cut -d' ' -f1-3 /proc/loadavg)"
for it in "${SIZES[@]}"; do
  f=$W/gemm-$it.log
  [ -s "$f" ] || "$DOCTOR" gen-log --iterations "$it" --devices 8 > "$f"
  bytes=$(stat -c %s "$f")
  cat "$f" > /dev/null # page cache
  echo "== $it iterations, $((bytes / 1000000)) MB"
  "$DOCTOR" log "$f" | sed -n '1,6p'
  # doctor-1core: the same on one core (taskset), to show how the parse scales; wc-l: one
  # read of the file and a newline count, the floor any reader of this file pays here.
  hyperfine --style basic --warmup 1 --runs "${RUNS:-5}" --export-json "$W/h-$it.json" \
    -n doctor "$DOCTOR log $f | cat" \
    -n grep3 "grep -c 'Created SWq' $f | cat; grep -c KernelExecution $f | cat; grep -c 'HWq=' $f | cat" \
    -n doctor-1core "taskset -c 0 $DOCTOR log $f | cat" \
    -n wc-l "wc -l $f | cat" >/dev/null
  python3 - "$W/h-$it.json" "$bytes" <<'PY'
import json, sys
r = {x["command"]: x for x in json.load(open(sys.argv[1]))["results"]}
b = int(sys.argv[2])
d, g = r["doctor"]["median"], r["grep3"]["median"]
d1, w = r["doctor-1core"]["median"], r["wc-l"]["median"]
print(f"doctor median {d:.3f} s = {b / d / 1e9:.2f} GB/s; three grep -c median {g:.3f} s; doctor is {g / d:.2f}x grep")
print(f"doctor on one core {d1:.3f} s ({d1 / d:.2f}x the all-core time); wc -l (read floor) {w:.3f} s")
PY
  # The same two commands again, interleaved: run i times the doctor and the grep passes back to
  # back (alternating which goes first), so that a change of the VM's speed during the run hits
  # both sides of each pair. hyperfine above runs each command in one block, which a slow phase
  # can hit alone; on a noisy VM neither measure is steady, so compare medians over several runs.
  python3 - "$DOCTOR" "$f" "${PAIRS:-21}" <<'PY'
import statistics, subprocess, sys, time
doctor, f, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
cmds = {
    "doctor": f"{doctor} log {f} | cat",
    "grep3": f"grep -c 'Created SWq' {f} | cat; grep -c KernelExecution {f} | cat; grep -c 'HWq=' {f} | cat",
}
pairs = []
for i in range(n):
    t = {}
    for name in (("doctor", "grep3") if i % 2 == 0 else ("grep3", "doctor")):
        s = time.perf_counter()
        subprocess.run(cmds[name], shell=True, stdout=subprocess.DEVNULL, check=True)
        t[name] = time.perf_counter() - s
    pairs.append(t)
r = sorted(p["grep3"] / p["doctor"] for p in pairs)
d = statistics.median(p["doctor"] for p in pairs)
g = statistics.median(p["grep3"] for p in pairs)
print(f"interleaved, {n} pairs: doctor median {d:.3f} s, three grep -c median {g:.3f} s; "
      f"per-pair ratio median {statistics.median(r):.2f}x (min {r[0]:.2f}x, max {r[-1]:.2f}x)")
PY
  /usr/bin/time -f "peak RSS %M KB" "$DOCTOR" log "$f" > /dev/null
done

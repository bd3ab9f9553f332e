#!/usr/bin/env bash
# Where a default `rocm-doctor` run spends its CPU and what its critical path is, from the
# kernel's scheduler tracepoints (perf: sched_process_fork/exec/exit and sched_stat_runtime),
# which cost far less than strace and count exact CPU per process rather than samples.
# For each run it records
#   - the CPU of the doctor's own process (all its threads) and of every child, named by the
#     program it executed (a child that never executes, the reaper, is "fork"),
#   - when each child was forked and when it ended, after the doctor's exec,
# then prints the median of each over the runs, the total CPU and what it bounds on this
# machine's cores (total CPU / cores: no schedule of the same work can be shorter), and the
# chain of Tensile's link probe (clang driver -> cc1as -> ld.lld: the children of the driver
# that runs `-x assembler`).
#
#   scripts/bench-critical-path.sh [BINARY] [RUNS] [-- ARGS...]
#
# BINARY defaults to target/release/rocm-doctor (build it first), RUNS to 15. Needs perf and
# the permission to record tracepoints (root, or kernel.perf_event_paranoid <= -1).
set -euo pipefail
bin=${1:-target/release/rocm-doctor}
runs=${2:-15}
shift $(($# < 2 ? $# : 2))
[ "${1:-}" = "--" ] && shift
command -v perf >/dev/null || { echo "bench-critical-path: perf is not installed" >&2; exit 2; }
[ -x "$bin" ] || { echo "bench-critical-path: $bin is not an executable (build it first)" >&2; exit 2; }
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
for i in $(seq 1 "$runs"); do
  perf record -q -o "$out/$i.data" \
    -e sched:sched_process_fork -e sched:sched_process_exec \
    -e sched:sched_process_exit -e sched:sched_stat_runtime \
    -- "$bin" "$@" >/dev/null 2>"$out/$i.err" || true
  perf script -i "$out/$i.data" -F comm,pid,tid,time,event,trace >"$out/$i.txt" 2>/dev/null
done
python3 - "$out" "$runs" "$(nproc)" <<'PY'
import re, statistics, sys
from collections import defaultdict
out, runs, cores = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
line = re.compile(r"\s*(.*?)\s+(\d+)/(\d+)\s+([\d.]+):\s+(\S+):\s*(.*)")

def one(path):
    t0 = None
    cpu = defaultdict(int)      # pid -> ns
    name, fork, end, parent = {}, {}, {}, {}
    for l in open(path):
        m = line.match(l)
        if not m:
            continue
        _, pid, tid, t, ev, tr = m.groups()
        pid, t = int(pid), float(t)
        if ev.endswith("sched_process_exec"):
            prog = re.search(r"filename=(\S+)", tr).group(1).rsplit("/", 1)[-1]
            if t0 is None:
                t0, doctor = t, pid
            name[pid] = prog
        elif ev.endswith("sched_process_fork"):
            child = int(re.search(r"child_pid=(\d+)", tr).group(1))
            fork[child], parent[child] = t, pid
        elif ev.endswith("sched_process_exit") and "group_dead=true" in tr:
            end[pid] = t
        elif ev.endswith("sched_stat_runtime"):
            cpu[pid] += int(re.search(r"runtime=(\d+)", tr).group(1))
    if t0 is None:
        return None
    procs = {}
    for pid, ns in cpu.items():
        if pid == doctor:
            key = "doctor (own process, all threads)"
        elif pid in fork:
            key = name.get(pid, "fork (never executed)")
            if key == name.get(doctor):
                key = "doctor child (probe-library)"
        else:
            continue
        procs.setdefault(key, []).append(
            (ns / 1e6, 1000 * (fork.get(pid, t0) - t0), 1000 * (end.get(pid, t0) - t0), pid))
    # Tensile's link chain: the clang driver whose children are cc1as and ld.lld.
    kids = defaultdict(list)
    for c, p in parent.items():
        if c in name:
            kids[p].append(c)
    chain = None
    for p, cs in kids.items():
        progs = {name[c] for c in cs}
        if "ld.lld" in progs and p != doctor:
            members = [p] + sorted(cs, key=lambda c: fork[c])
            chain = (1000 * (fork[p] - t0), 1000 * (end.get(p, t0) - t0),
                     sum(cpu[m] for m in members) / 1e6)
    wall = 1000 * (max(end.values()) - t0) if end else 0
    return procs, chain, sum(cpu.values()) / 1e6, wall

results = [r for r in (one(f"{out}/{i}.txt") for i in range(1, runs + 1)) if r]
if not results:
    sys.exit("bench-critical-path: no run was recorded (perf permissions?)")
med = statistics.median
print(f"{len(results)} runs, {cores} cores; medians (ms):")
keys = sorted({k for r in results for k in r[0]})
for k in keys:
    per_run = [r[0].get(k, []) for r in results]
    n = med(len(x) for x in per_run)
    c = med(sum(p[0] for p in x) for x in per_run)
    starts = [min(p[1] for p in x) for x in per_run if x]
    print(f"  {k:36s} x{n:<4g} CPU {c:6.1f}   first fork at {med(starts):6.1f}")
tot = med(r[2] for r in results)
print(f"  total CPU {tot:.1f} ms: no schedule on {cores} cores is shorter than {tot / cores:.1f} ms")
ch = [r[1] for r in results if r[1]]
if ch:
    print(f"  link chain (driver, cc1as, ld.lld): forked at {med(c[0] for c in ch):.1f}, "
          f"ended at {med(c[1] for c in ch):.1f}, CPU {med(c[2] for c in ch):.1f}")
print(f"  last process ended at {med(r[3] for r in results):.1f} after the doctor's exec")
PY

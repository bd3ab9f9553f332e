#!/usr/bin/env bash
# Cost of a fuzz target's runs: each target starts from its committed seeds with libFuzzer's
# random seed fixed (-seed=1) and makes exactly RUNS executions, so two builds or two settings
# do the same number of runs from the same start. Prints the CPU seconds (user + system, from
# /usr/bin/time), executions per CPU second and peak RSS. CPU time rather than wall time: on a
# shared machine the wall time measures the neighbours.
#
#   scripts/bench-fuzz.sh RUNS BIN_DIR [TARGET...]
#
# BIN_DIR holds built targets (fuzz/target/x86_64-unknown-linux-gnu/release, or a copy of an
# older build). The settings are scripts/fuzz-settings.sh's; BENCH_ASAN_OPTIONS and
# BENCH_MAX_LEN (0: libFuzzer's default) replace them, to measure what each setting is worth.
# Needs /usr/bin/time. Writes only to a temporary directory, removed at the end.
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:?RUNS}
bin_dir=${2:?BIN_DIR}
shift 2
targets=("$@")
# shellcheck source=scripts/fuzz-settings.sh
. scripts/fuzz-settings.sh
[ ${#targets[@]} -eq 0 ] && mapfile -t targets < <(all_targets)
export ASAN_OPTIONS=${BENCH_ASAN_OPTIONS-$FUZZ_ASAN_OPTIONS}
w=$(mktemp -d)
trap 'rm -rf "$w"' EXIT
echo "cores: $(nproc)  load: $(cut -d' ' -f1-3 /proc/loadavg)  ASAN_OPTIONS=$ASAN_OPTIONS"
printf '%-14s %10s %9s %12s %9s %8s\n' target runs cpu-s exec/cpu-s "peak MB" max_len
for t in "${targets[@]}"; do
  mkdir -p "$w/corpus-$t"
  seeds=()
  [ -d "fuzz/seeds/$t" ] && seeds+=("fuzz/seeds/$t")
  [ -d "tests/fixtures/fuzz-regressions/$t" ] && seeds+=("tests/fixtures/fuzz-regressions/$t")
  ml=${BENCH_MAX_LEN:-$(max_len_for "$t")}
  /usr/bin/time -f '%U %S %M' -o "$w/time-$t" "$bin_dir/$t" "$w/corpus-$t" "${seeds[@]}" \
    -seed=1 -runs="$runs" -max_len="$ml" -rss_limit_mb=256 -timeout=10 -dict="$(dict_for "$t")" \
    -artifact_prefix="$w/" >"$w/log-$t" 2>&1 || {
    echo "$t: failed, log:"
    tail -20 "$w/log-$t"
    exit 1
  }
  read -r u s m <"$w/time-$t"
  python3 -c "
u, s, m, n = $u, $s, $m, $runs
print(f'%-14s %10d %9.2f %12.0f %9.1f %8s' % ('$t', n, u + s, n / (u + s), m / 1024, '$ml'))"
done

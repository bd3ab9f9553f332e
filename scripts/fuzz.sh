#!/usr/bin/env bash
# Runs every fuzz target (fuzz/, cargo-fuzz + libFuzzer) for SECONDS each (default 60), one
# after another, and prints executions, corpus size and findings per target.
#
#   scripts/fuzz.sh [SECONDS] [TARGET...]
#
# Needs a nightly toolchain and cargo-fuzz (scripts/install-test-deps.sh installs both).
# Seeds: fuzz/seeds/T (committed, small) and tests/fixtures/fuzz-regressions/T (every crash
# ever found, so a regression shows up in the first seconds). New inputs go to
# $FUZZ_CORPUS/T (default fuzz/corpus, git-ignored); crashes to fuzz/artifacts/T.
# Built with optimisations and debug assertions (overflow checks on), cargo-fuzz's default.
# FUZZ_MAX_RUNS=N stops a target after N executions (whichever comes first with SECONDS).
# FUZZ_BIN_DIR=DIR runs the targets already built in DIR (a copy of
# fuzz/target/x86_64-unknown-linux-gnu/release) instead of building them: a long run then goes on
# while the sources change.
# Exit status: 1 when any target found a crash, timeout or out-of-memory input.
set -euo pipefail
cd "$(dirname "$0")/.."

secs=${1:-60}
shift || true
corpus_root=${FUZZ_CORPUS:-fuzz/corpus}
targets=("$@")

# all_targets, dict_for, max_len_for, FUZZ_ASAN_OPTIONS
# shellcheck source=scripts/fuzz-settings.sh
. scripts/fuzz-settings.sh
[ ${#targets[@]} -gt 0 ] || mapfile -t targets < <(all_targets)

bin_dir=${FUZZ_BIN_DIR:-}
if [ -z "$bin_dir" ]; then
  cargo +nightly fuzz build
fi

export ASAN_OPTIONS="${ASAN_OPTIONS:-$FUZZ_ASAN_OPTIONS}"

failed=0
printf '%-14s %12s %8s %10s %14s %s\n' target executions seconds exec/s "corpus" result
for t in "${targets[@]}"; do
  corpus="$corpus_root/$t"
  mkdir -p "$corpus" "fuzz/artifacts/$t"
  seeds=()
  [ -d "fuzz/seeds/$t" ] && seeds+=("fuzz/seeds/$t")
  [ -d "tests/fixtures/fuzz-regressions/$t" ] && seeds+=("tests/fixtures/fuzz-regressions/$t")
  log="fuzz/artifacts/$t/last-run.log"
  rc=0
  if [ -n "$bin_dir" ]; then
    run=("$bin_dir/$t" "$corpus" "${seeds[@]}")
  else
    run=(cargo +nightly fuzz run "$t" "$corpus" "${seeds[@]}" --)
  fi
  "${run[@]}" \
    -max_total_time="$secs" -rss_limit_mb=256 -timeout=10 -dict="$(dict_for "$t")" \
    -max_len="$(max_len_for "$t")" -print_final_stats=1 -artifact_prefix="fuzz/artifacts/$t/" \
    ${FUZZ_MAX_RUNS:+-runs="$FUZZ_MAX_RUNS"} >"$log" 2>&1 || rc=$?
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  took=$(sed -n 's/^Done [0-9]* runs in \([0-9]*\) second.*/\1/p' "$log" | tail -1)
  files=$(find "$corpus" -type f | wc -l)
  size=$(du -sk "$corpus" | cut -f1)
  result=ok
  if [ "$rc" -ne 0 ]; then
    result="FAILED (exit $rc; see $log)"
    failed=1
  fi
  rate=$(( ${runs:-0} / (${took:-0} > 0 ? ${took:-1} : 1) ))
  printf '%-14s %12s %8s %10s %14s %s\n' "$t" "${runs:-?}" "${took:-?}" "$rate" "$files/${size}K" "$result"
done
exit "$failed"

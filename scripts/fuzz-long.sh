#!/usr/bin/env bash
# The long fuzz runs behind the ">= 10 million executions per target" figures.
#
#   scripts/fuzz-long.sh RUNS DIR [TARGET...]
#
# 1. Builds every target without a sanitizer into DIR/none (`cargo fuzz build -s none`). The
#    fuzzed parsers are safe Rust (no `unsafe` outside src/probe, which no target reaches), so
#    AddressSanitizer finds nothing there that Rust's own bounds checks miss; debug assertions
#    and overflow checks stay on, and the runs are 1.5-3.5x faster (docs/fuzzing.md).
# 2. Runs each target until RUNS executions with scripts/fuzz.sh's settings (-rss_limit_mb=256,
#    -timeout=10, the dictionaries, -max_len); new inputs go to DIR/corpus/T.
# 3. Replays every input those runs kept, once, through the AddressSanitizer build (cargo-fuzz's
#    default, built by scripts/fuzz.sh), with the same RSS limit and timeout. Only there is each
#    single allocation capped too (libFuzzer's -malloc_limit_mb needs the sanitizer's allocator
#    hooks), so an input that asks for a huge buffer still shows up.
#
# Targets run one after another; run two instances on disjoint targets to use two cores. Do not
# stop the processes (SIGSTOP) while they run: libFuzzer's timeout is wall time, and a paused unit
# is reported as a timeout.
# Exit status: 1 when a run or the replay found a crash, timeout or out-of-memory input.
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:?RUNS}
dir=${2:?DIR}
shift 2
targets=("$@")
# shellcheck source=scripts/fuzz-settings.sh
. scripts/fuzz-settings.sh
[ ${#targets[@]} -gt 0 ] || mapfile -t targets < <(all_targets)
mkdir -p "$dir/corpus"
dir=$(cd "$dir" && pwd)

cargo +nightly fuzz build -s none --target-dir "$dir/none"
failed=0
FUZZ_BIN_DIR="$dir/none/x86_64-unknown-linux-gnu/release" FUZZ_CORPUS="$dir/corpus" \
  FUZZ_MAX_RUNS="$runs" scripts/fuzz.sh 86400 "${targets[@]}" || failed=1

export ASAN_OPTIONS="${ASAN_OPTIONS:-$FUZZ_ASAN_OPTIONS}"
cargo +nightly fuzz build
asan=fuzz/target/x86_64-unknown-linux-gnu/release
printf '%-14s %8s %s\n' target inputs "replay with AddressSanitizer"
for t in "${targets[@]}"; do
  log="fuzz/artifacts/$t/replay.log"
  mkdir -p "fuzz/artifacts/$t"
  n=$(find "$dir/corpus/$t" -type f | wc -l)
  rc=0
  "$asan/$t" "$dir/corpus/$t" -runs=0 -rss_limit_mb=256 -timeout=10 \
    -artifact_prefix="fuzz/artifacts/$t/" >"$log" 2>&1 || rc=$?
  if [ "$rc" -eq 0 ]; then
    printf '%-14s %8s %s\n' "$t" "$n" ok
  else
    printf '%-14s %8s %s\n' "$t" "$n" "FAILED (exit $rc; see $log)"
    failed=1
  fi
done
exit "$failed"

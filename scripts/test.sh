#!/usr/bin/env bash
# Runs every test against the real toolchain: installs it first (scripts/install-test-deps.sh),
# then lints and tests with ROCM_DOCTOR_REQUIRE_TOOLCHAIN=1 so that a missing tool fails the
# run instead of skipping tests.
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/install-test-deps.sh
command -v cargo >/dev/null || { echo "cargo not found: install Rust (https://rustup.rs)" >&2; exit 2; }

# The real ROCm stacks of Debian 13 and sid as root filesystems (cached under /var/tmp); a
# suite the archive cannot serve right now is reported by the tests that need it (exit 3).
status=0
scripts/real-roots.sh all || status=$?
[ "$status" -eq 0 ] || [ "$status" -eq 3 ] || exit "$status"

cargo fmt --all -- --check
cargo clippy --workspace --all-targets --locked -- -D warnings

# The doctor writes nothing outside its own temp dir, and the tests leave nothing behind: the
# suite runs with a private TMPDIR, which must be empty afterwards (the doctor's temp dirs, its
# children's temporaries, LLVM's and tempfile's unique names would all land there). A private
# directory, not /tmp, so that other programs on a shared machine (another doctor included)
# cannot make the check fail.
suite_tmp=$(mktemp -d "${TMPDIR:-/tmp}/rocm-doctor-suite.XXXXXX")
ROCM_DOCTOR_REQUIRE_TOOLCHAIN=1 TMPDIR="$suite_tmp" cargo test --workspace --all-targets --locked
litter=$(ls -A "$suite_tmp")
if [ -n "$litter" ]; then
  echo "left in the suite's TMPDIR by the tests: $litter" >&2
  exit 1
fi
rmdir "$suite_tmp"
echo "TMPDIR: nothing left behind by the doctor or the tests"

# Every fuzz target briefly (~6 s each, ~60 s in all): the committed crash inputs under
# tests/fixtures/fuzz-regressions are replayed first, so a regression fails here at once.
FUZZ_CORPUS=target/fuzz-ci-corpus scripts/fuzz.sh 6

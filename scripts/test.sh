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
cargo clippy --all-targets --locked -- -D warnings

# The doctor writes nothing outside its own temp dir, and the tests leave nothing in /tmp: compare
# /tmp before and after the suite. Names: the doctor's and its children's temporaries, LLVM's
# unique names (`a-1f3411`: clang's per-input directories) and the tempfile crate's (`.tmpAbC123`).
# Other programs on a shared machine may come and go in /tmp meanwhile, so only these count.
before=$(mktemp)
ls -A /tmp | sort >"$before"
ROCM_DOCTOR_REQUIRE_TOOLCHAIN=1 cargo test --all-targets --locked
litter=$(ls -A /tmp | sort | comm -13 "$before" - |
  grep -E '^(rocm-doctor-|probe|hip-|hipcc|a\.out)|^[A-Za-z0-9_.+]+-[0-9a-f]{6}(\.[a-z]+)?$|^\.tmp[A-Za-z0-9]{6}$' || true)
rm -f "$before"
if [ -n "$litter" ]; then
  echo "left in /tmp by the test suite: $litter" >&2
  exit 1
fi
echo "/tmp: nothing left behind by the doctor"

# Every fuzz target briefly (~6 s each, ~60 s in all): the committed crash inputs under
# tests/fixtures/fuzz-regressions are replayed first, so a regression fails here at once.
FUZZ_CORPUS=target/fuzz-ci-corpus scripts/fuzz.sh 6

#!/usr/bin/env bash
# Runs every test against the real toolchain: installs it first (scripts/install-test-deps.sh),
# then lints and tests with ROCM_DOCTOR_REQUIRE_TOOLCHAIN=1 so that a missing tool fails the
# run instead of skipping tests.
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/install-test-deps.sh
command -v cargo >/dev/null || { echo "cargo not found: install Rust (https://rustup.rs)" >&2; exit 2; }

cargo fmt --all -- --check
cargo clippy --all-targets --locked -- -D warnings
ROCM_DOCTOR_REQUIRE_TOOLCHAIN=1 cargo test --all-targets --locked

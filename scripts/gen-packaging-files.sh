#!/usr/bin/env bash
# Regenerates the committed man pages (docs/man/) and shell completions (contrib/completions/)
# from the clap definitions. tests/packaging.rs fails when they are stale: run this after any
# change to src/cli.rs.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --locked --quiet
bin=target/debug/rocm-doctor
rm -rf docs/man
"$bin" man --out-dir docs/man
mkdir -p contrib/completions
"$bin" completions bash >contrib/completions/rocm-doctor.bash
"$bin" completions zsh >contrib/completions/_rocm-doctor
"$bin" completions fish >contrib/completions/rocm-doctor.fish
echo "wrote docs/man/*.1 and contrib/completions/{rocm-doctor.bash,_rocm-doctor,rocm-doctor.fish}"

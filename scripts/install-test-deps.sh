#!/usr/bin/env bash
# Installs the real ROCm toolchain the tests run against (Debian 12 packages), when missing.
# Needs root (or sudo). Safe to run again: installs nothing when everything is there.
set -euo pipefail

PACKAGES=(
  hipcc rocm-device-libs libamdhip64-dev rocminfo libamd-comgr-dev libhsa-runtime-dev
  clang-15 lld-15 llvm-15 libunwind-15-dev
  clang-19 lld-19 llvm-19 clang-tools-19
  nix-bin hyperfine util-linux shellcheck
  cmake
  man-db groff-base
  debootstrap
  slurm-wlm munge   # tests/slurm_real.rs: a one-node Slurm 22.05.8 cluster on localhost
)

# Fuzzing (scripts/fuzz.sh): a nightly toolchain and cargo-fuzz, when missing.
install_fuzz_tools() {
  command -v rustup >/dev/null || { echo "fuzzing: rustup not found, cannot add nightly" >&2; return 1; }
  rustup toolchain list | grep -q '^nightly' || rustup toolchain install nightly --profile minimal
  command -v cargo-fuzz >/dev/null || cargo install --locked cargo-fuzz
}
install_fuzz_tools

missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "test toolchain: all ${#PACKAGES[@]} packages present"
  exit 0
fi
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
echo "test toolchain: installing ${missing[*]}"
$SUDO apt-get update -q
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"

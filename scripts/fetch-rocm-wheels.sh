#!/usr/bin/env bash
# Downloads real ROCm-built Python wheels (no dependencies) and unpacks each into its own
# directory: a large tree of real HIP binaries for `inspect` (scripts/bench-inspect-memory.sh).
# Wheels of CuPy for ROCm 4.3 and 5.0 and the JAX ROCm plugins and PJRT runtimes (ROCm 6.0 and
# 7); onnxruntime's ROCm build is not published on the Python package index. About 370 MB of
# downloads, 1.5 GB unpacked. Nothing is installed and the repository is not touched.
#
# Usage: scripts/fetch-rocm-wheels.sh [DIR]   (default /var/tmp/rocm-doctor-wheels; the tree
# is DIR/tree). Needs python3 with pip, and unzip.
set -euo pipefail
dir=${1:-/var/tmp/rocm-doctor-wheels}
mkdir -p "$dir/tree"
cd "$dir"
for p in cupy-rocm-4-3 cupy-rocm-5-0 jax-rocm60-plugin jax-rocm60-pjrt jax-rocm7-plugin jax-rocm7-pjrt; do
  python3 -m pip download --quiet --no-deps --only-binary=:all: --python-version 3.11 \
    --platform manylinux2014_x86_64 --platform manylinux_2_27_x86_64 \
    --platform manylinux_2_28_x86_64 -d . "$p"
done
for w in ./*.whl; do
  n=$(basename "$w"); n=${n%%-*}
  [ -d "tree/$n" ] || { mkdir -p "tree/$n" && unzip -q -o "$w" -d "tree/$n"; }
done
ls -l ./*.whl
du -sh tree

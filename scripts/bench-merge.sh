#!/usr/bin/env bash
# `rocm-doctor merge` on COUNT reports (default 10,000): median wall time (hyperfine) and peak
# RSS (/usr/bin/time). The reports are real doctor output on the fixture machines (MI300X CPX,
# MI210 XGMI: ~50 KB on average) copied per host by scripts/gen-fleet-reports.py, with three
# injected outliers that the summary must name. Page cache warm (files just written).
#
# Usage: scripts/bench-merge.sh [COUNT]. Needs python3, hyperfine, /usr/bin/time.
set -euo pipefail
COUNT=${1:-10000}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cargo build --release --quiet --locked --manifest-path "$ROOT/Cargo.toml"
DOCTOR=$ROOT/target/release/rocm-doctor
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
mkdir "$W/reports"
for fx in k8s-mi300x-cpx-gfx942 k8s-mi210x8-gfx90a-xgmi; do
  timeout 120 "$DOCTOR" --json --profile runtime --sysroot "$ROOT/tests/fixtures/sysroots/$fx" > "$W/$fx.json" || true
done
python3 "$ROOT/scripts/gen-fleet-reports.py" "$W/reports" "$COUNT" \
  "$W/k8s-mi300x-cpx-gfx942.json" "$W/k8s-mi210x8-gfx90a-xgmi.json"
echo "$COUNT reports, $(du -sm "$W/reports" | cut -f1) MB; $(nproc) cores" >&2
cat "$W/reports"/*.json > /dev/null   # warm the page cache

"$DOCTOR" merge "$W/reports" | sed -n '/^outliers/,/^$/p' >&2 || true
hyperfine -i --warmup 1 --runs "${RUNS:-10}" -N "$DOCTOR merge --json $W/reports" \
  --export-json "$W/hf.json" --output null >&2
python3 -c "import json,sys; r=json.load(open(sys.argv[1]))['results'][0]; print(f'median {r[\"median\"]:.3f} s (min {r[\"min\"]:.3f}, max {r[\"max\"]:.3f})')" "$W/hf.json"
/usr/bin/time -f 'peak RSS %M KB, %e s' "$DOCTOR" merge --json "$W/reports" > /dev/null

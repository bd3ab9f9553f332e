#!/usr/bin/env bash
# Before/after comparison of what users read, on the three real stacks: this machine (Debian 12,
# ROCm 5.2.3) and the trixie and sid roots of scripts/real-roots.sh, each run inside its root
# (scripts/in-root.sh). For each stack and each of the two binaries it records
#   - the default report (human, no colour),
#   - `--json`, normalised (timings, temp dirs, the tool's own version and path removed),
#   - `why` on every case text of tests/corpus (first cause and answer, one line per case),
#   - `inspect` of the stack's HIP runtime and rocBLAS (when installed), human,
# then prints one line per comparison ("same" or the number of differing lines) and leaves the
# diffs in OUT_DIR.
#
#   scripts/compare-outputs.sh OLD_BIN NEW_BIN [OUT_DIR]
#
# OLD_BIN/NEW_BIN: release builds of two commits (e.g. a `git worktree` of the older one).
# COMPARE_EVERY=N runs `why` on every Nth case only (the same cases for both binaries; default 1).
# Needs root for the chroot runs; stacks whose root is missing are skipped with a note.
set -euo pipefail
old=${1:?usage: compare-outputs.sh OLD_BIN NEW_BIN [OUT_DIR]}
new=${2:?usage: compare-outputs.sh OLD_BIN NEW_BIN [OUT_DIR]}
out=${3:-$(mktemp -d)}
here=$(cd "$(dirname "$0")/.." && pwd)
roots=${ROCM_DOCTOR_ROOTS:-/var/tmp/rocm-doctor-roots}
mkdir -p "$out"
old=$(cd "$(dirname "$old")" && pwd)/$(basename "$old")
new=$(cd "$(dirname "$new")" && pwd)/$(basename "$new")

# The corpus texts, one file per case (id.txt), read by `why -` in every stack.
cases="$out/cases"
mkdir -p "$cases"
python3 - "$here/tests/corpus" "$cases" "${COMPARE_EVERY:-1}" <<'PY'
import pathlib, sys, tomllib
src, dst, every = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2]), int(sys.argv[3])
n = 0
for f in sorted(src.glob("*.toml")):
    for c in tomllib.loads(f.read_text()).get("case", []):
        if n % every == 0:
            (dst / f"{c['id']}.txt").write_text(c["text"])
        n += 1
PY

normalise_json() { # BIN
  python3 -c '
import json, re, sys
d = json.load(sys.stdin)
def clean(x):
    if isinstance(x, dict):
        return {k: clean(v) for k, v in x.items() if k not in ("duration_ms", "tool", "elapsed_ms")}
    if isinstance(x, list):
        return [clean(v) for v in x]
    if isinstance(x, str):
        x = x.replace(sys.argv[1], "rocm-doctor")
        x = re.sub(r"/tmp/rocm-doctor-[A-Za-z0-9]+", "/tmp/rocm-doctor-X", x)
        x = re.sub(r"(/tmp/rocm-doctor-X/[a-z-]+)-[A-Za-z0-9]{6}\b", r"\1-X", x)
        return re.sub(r"\b\d+(\.\d+)? ?ms\b", "N ms", x)
    return x
print(json.dumps(clean(d), indent=1, sort_keys=True))' "$1"
}

# run STACK BIN ARGS...: the doctor of BIN on STACK (stdin passed through).
run() {
  local stack=$1 bin=$2
  shift 2
  if [ "$stack" = debian12 ]; then
    NO_COLOR=1 "$bin" "$@"
  else
    ROCM_DOCTOR_BIN="$bin" "$here/scripts/in-root.sh" "$roots/$stack" NO_COLOR=1 \
      /opt/rocm-doctor/bin/"$(basename "$bin")" "$@"
  fi
}

record() { # STACK TAG BIN DIR
  local stack=$1 tag=$2 bin=$3 d=$4
  mkdir -p "$d"
  run "$stack" "$bin" >"$d/default.txt" 2>&1 || true
  sed -i -E 's/[0-9]+(\.[0-9]+)? ?ms\b/N ms/g; s#/tmp/rocm-doctor-[A-Za-z0-9]+#/tmp/rocm-doctor-X#g' "$d/default.txt"
  local inside=$bin
  [ "$stack" = debian12 ] || inside=/opt/rocm-doctor/bin/$(basename "$bin")
  (run "$stack" "$bin" --json 2>/dev/null || true) | normalise_json "$inside" >"$d/json.txt" 2>&1 || true
  : >"$d/why.txt"
  for c in "$cases"/*.txt; do
    first=$( (run "$stack" "$bin" why --json - <"$c" 2>/dev/null || true) | python3 -c '
import json, sys
try:
    d = json.load(sys.stdin)
except Exception:
    print("(no JSON)"); sys.exit()
m = d.get("recognised") or []
top = m[0] if m else {}
print(top.get("id", "-"), top.get("class", "-"), top.get("answer", "-"), "(unrecognised)" if not m else "")')
    echo "$(basename "$c" .txt): $first" >>"$d/why.txt"
  done
  : >"$d/inspect.txt"
  for lib in libamdhip64.so librocblas.so; do
    for dir in /usr/lib/x86_64-linux-gnu /opt/rocm/lib; do
      local on=$dir/$lib
      [ "$stack" = debian12 ] || on_host="$roots/$stack$on"
      if [ -e "${on_host:-$on}" ]; then
        echo "== inspect $on" >>"$d/inspect.txt"
        run "$stack" "$bin" inspect "$on" >>"$d/inspect.txt" 2>&1 || true
        break
      fi
      unset on_host
    done
  done
  sed -i -E 's/[0-9]+(\.[0-9]+)? ?ms\b/N ms/g' "$d/inspect.txt"
}

printf '%-9s %-8s %s\n' stack output result
for stack in debian12 trixie sid; do
  if [ "$stack" != debian12 ] && [ ! -x "$roots/$stack/usr/bin/env" ]; then
    echo "$stack: no root at $roots/$stack (scripts/real-roots.sh builds it); skipped"
    continue
  fi
  record "$stack" old "$old" "$out/$stack/old"
  record "$stack" new "$new" "$out/$stack/new"
  for o in default json why inspect; do
    if diff -u "$out/$stack/old/$o.txt" "$out/$stack/new/$o.txt" >"$out/$stack/$o.diff"; then
      printf '%-9s %-8s %s\n' "$stack" "$o" same
    else
      n=$(grep -c '^[-+][^-+]' "$out/$stack/$o.diff" || true)
      printf '%-9s %-8s %s\n' "$stack" "$o" "$n lines differ ($out/$stack/$o.diff)"
    fi
  done
done
# why: how the first answer moved, case by case (the catalogue grows on purpose).
for stack in debian12 trixie sid; do
  [ -f "$out/$stack/new/why.txt" ] || continue
  python3 - "$out/$stack/old/why.txt" "$out/$stack/new/why.txt" "$stack" "$here" <<'PY'
import glob, sys, tomllib
def load(p):
    return dict(l.rstrip("\n").split(": ", 1) for l in open(p) if ": " in l)
old, new = load(sys.argv[1]), load(sys.argv[2])
def key(v):  # (symptom, answer); the class column is absent from older builds' JSON
    t = (v or "").split()
    return (t[0], t[2]) if len(t) >= 3 else tuple(t)
unrec = lambda v: "(unrecognised)" in (v or "")
n = len(old)
newly = [k for k in old if unrec(old[k]) and not unrec(new.get(k))]
lost = [k for k in old if not unrec(old[k]) and unrec(new.get(k))]
both = [k for k in old if not unrec(old[k]) and not unrec(new.get(k))]
same = [k for k in both if key(old[k]) == key(new.get(k))]
same_sym = [k for k in both if key(old[k]) != key(new.get(k)) and key(old[k])[0] == key(new.get(k))[0]]
other = [k for k in both if key(old[k])[0] != key(new.get(k))[0]]
print(f"{sys.argv[3]:9s} why: {n} cases: {len(newly)} newly recognised, {len(lost)} no longer recognised; "
      f"of {len(both)} recognised by both: {len(same)} same first symptom and answer, "
      f"{len(same_sym)} same symptom with another answer, {len(other)} another first symptom")
# Whether the moves went the right way: the cause class of each first symptom (the current
# catalogue's; ids are stable) against the case's confirmed cause.
cls, cause = {}, {}
for f in glob.glob(f"{sys.argv[4]}/checks/packs/symptoms*.toml"):
    cls.update({x["id"]: x["class"] for x in tomllib.load(open(f, "rb")).get("symptom", [])})
for f in glob.glob(f"{sys.argv[4]}/tests/corpus/*.toml"):
    cause.update({c["id"]: c["cause"] for c in tomllib.load(open(f, "rb"))["case"]})
right = lambda k, v: cls.get(key(v)[0]) == cause.get(k)
print(f"{'':9s}      of the {len(other)} with another first symptom, the confirmed cause first: "
      f"{sum(right(k, old[k]) for k in other)} before, {sum(right(k, new[k]) for k in other)} after; "
      f"worse: {', '.join(k for k in other if right(k, old[k]) and not right(k, new[k])) or 'none'}")
PY
done
echo "diffs and outputs: $out"

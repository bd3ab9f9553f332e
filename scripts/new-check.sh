#!/usr/bin/env bash
# Scaffolds a new check, so that adding one is this command plus the logic:
#
#   scripts/new-check.sh [--dry-run] FAMILY NAME      e.g.  scripts/new-check.sh gpu pcie-atomics
#   scripts/new-check.sh [--dry-run] --family FAMILY NAME   a new family and its first check
#
# A FAMILY that is a check pack (checks/packs/FAMILY.toml: pytorch, slurm, nix, cmake) gets a pack
# check instead: a [[check]] stub with a probe and a rule, in that pack's file.
#
# For a Rust family it writes the places a check lives (docs/architecture.md, "Adding a check"):
#   1. its id: a `CheckId` variant (FamilyName = "family.name") in src/checkdoc/ids.rs, the one
#      declaration of the Rust checks' ids (code names the variant, never the string);
#   2. the function: src/checks/FAMILY/NAME.rs (families that are a directory: gpu, toolchain)
#      or appended to src/checks/FAMILY.rs (single-file families: targets, runtime, libs, asm);
#   3. the registry line in that family's `CHECKS` (and `mod NAME;` for a directory family);
#   4. the doc stub in checks/FAMILY.toml;
#   5. a table-test stub (fixture in, findings out; harness src/checks/testkit.rs) in the family's
#      table file: src/checks/FAMILY/tests.rs (gpu) or src/checks/tables/FAMILY.rs.
# A pack check gets its table-test stub in tests/packs_real.rs (the shipped packs' tests).
# The stubs say TODO: the function panics (`todo!`, an `error` finding at run time), a unit
# test refuses a doc containing TODO, and the test stub's row expects a pass saying TODO, so it
# fails until the check is written and the row replaced: a scaffold cannot be merged unfinished.
# --dry-run applies the edits to a temporary copy, prints them as a diff and removes the copy.
#
# --family FAMILY NAME starts a new Rust family with its first check, FAMILY.NAME. Besides the
# check's five places above it writes what a family needs (docs/architecture.md, rule 2):
#   6. its `Category` variant in src/checkdoc.rs (the enum, `Category::ALL`, `as_str`);
#   7. in src/checks/mod.rs: `pub(crate) mod FAMILY;`, the doc file in `DOC_FILES` (compiled in; the
#      report's order is this list's) and `FAMILY::CHECKS` in `implementations()`;
#   8. the doc file in src/data.rs's `every_embedded_table_loads`;
#   9. new files: src/checks/FAMILY.rs (its `CHECKS`), checks/FAMILY.toml, and the table-test
#      file src/checks/tables/FAMILY.rs (with `mod FAMILY;` in src/checks/tables/mod.rs).
# The tree then builds and is clippy-clean; the new check's stubs say TODO as above.
set -euo pipefail

dry=0
newfam=0
while [ $# -gt 0 ]; do
  case $1 in
    --dry-run) dry=1; shift ;;
    --family) newfam=1; shift ;;
    *) break ;;
  esac
done
family=${1:-}
name=${2:-}
usage="usage: scripts/new-check.sh [--dry-run] [--family] FAMILY NAME"
[ -n "$family" ] && [ -n "$name" ] && [ $# -eq 2 ] || { echo "$usage" >&2; exit 2; }
[[ $family =~ ^[a-z][a-z0-9]*$ ]] || { echo "new-check: bad FAMILY '$family' (lowercase letters and digits)" >&2; exit 2; }
[[ $name =~ ^[a-z][a-z0-9]*(-[a-z0-9]+)*$ ]] || { echo "new-check: bad NAME '$name' (lowercase words joined by dashes)" >&2; exit 2; }

root=$(cd "$(dirname "$0")/.." && pwd)
id="$family.$name"
snake=${name//-/_}
# The CheckId variant: the id's words in CamelCase (gpu.pcie-atomics -> GpuPcieAtomics).
variant=$(printf '%s' "$family-$name" | awk -F- '{ for (i = 1; i <= NF; i++) printf "%s", toupper(substr($i, 1, 1)) substr($i, 2) }')

pack=0
# The Category variant of a new family: the family in CamelCase (health -> Health).
catvar=$(printf '%s' "$family" | awk '{ printf "%s", toupper(substr($0, 1, 1)) substr($0, 2) }')
# The file of the family's table tests.
table_file() { # $1: tree
  if [ -f "$1/src/checks/$family/tests.rs" ]; then
    echo "$1/src/checks/$family/tests.rs"
  else
    echo "$1/src/checks/tables/$family.rs"
  fi
}
# A new family: nothing of that name may exist yet.
check_new_family() { # $1: tree to check
  local t=$1 f
  for f in "checks/$family.toml" "checks/packs/$family.toml" "src/checks/$family.rs" "src/checks/$family" "src/checks/tables/$family.rs"; do
    [ ! -e "$t/$f" ] || { echo "new-check: family '$family' exists ($f); without --family, scripts/new-check.sh $family $name adds a check to it" >&2; exit 2; }
  done
  if grep -qE "^    $catvar,$" "$t/src/checkdoc.rs"; then
    echo "new-check: src/checkdoc.rs already has Category::$catvar" >&2; exit 2
  fi
  case $family in
    packs|known|other|quiet|self|super|crate|mod|fn|type|use|tables|testkit|loop|match|move|ref|box|dyn|impl|where|async|await|static|const|enum|struct|trait|unsafe|extern|pub|let|for|while|if|else|return|break|continue|in|as)
      echo "new-check: '$family' cannot be a family name (a Rust keyword, a module of src/checks, or a pack namespace)" >&2; exit 2 ;;
  esac
}

check_tree() { # $1: tree to check
  local t=$1
  if [ $newfam -eq 1 ]; then
    check_new_family "$t"
    return 0
  fi
  if [ ! -f "$t/checks/$family.toml" ] && [ -f "$t/checks/packs/$family.toml" ]; then
    pack=1
    if grep -q "^id = \"$id\"" "$t/checks/packs/$family.toml"; then
      echo "new-check: $id already exists in checks/packs/$family.toml" >&2; exit 2
    fi
    return 0
  fi
  [ -f "$t/checks/$family.toml" ] || { echo "new-check: no family '$family' (no checks/$family.toml); start one with: scripts/new-check.sh --family $family $name" >&2; exit 2; }
  if grep -q "^id = \"$id\"" "$t/checks/$family.toml"; then
    echo "new-check: $id already exists in checks/$family.toml" >&2; exit 2
  fi
  if grep -qE "^    ($variant = |[A-Za-z0-9]+ = \"$id\")" "$t/src/checkdoc/ids.rs"; then
    echo "new-check: src/checkdoc/ids.rs already declares $variant or $id" >&2; exit 2
  fi
  if grep -q "fn ${snake}_table()" "$(table_file "$t")" 2>/dev/null; then
    echo "new-check: $(table_file "$t") already has fn ${snake}_table" >&2; exit 2
  fi
  if [ -d "$t/src/checks/$family" ]; then
    [ ! -e "$t/src/checks/$family/$snake.rs" ] || { echo "new-check: src/checks/$family/$snake.rs exists" >&2; exit 2; }
  elif [ -f "$t/src/checks/$family.rs" ]; then
    ! grep -q "fn $snake(" "$t/src/checks/$family.rs" || { echo "new-check: src/checks/$family.rs already has fn $snake" >&2; exit 2; }
  else
    echo "new-check: no src/checks/$family.rs or src/checks/$family/" >&2; exit 2
  fi
}

# Appends `entry` to the `pub(crate) const CHECKS` list of file $1 (one-line or multi-line form).
add_registry_line() {
  local file=$1 entry=$2
  ENTRY="$entry" perl -0pi -e '
    s/(pub(?:\(crate\))? const CHECKS: &\[\(CheckId, CheckFn\)\] = &\[.*?\))(,?\s*)\];/$1, $ENV{ENTRY},\n];/s
      or die "no CHECKS list in $ARGV\n"' "$file"
}

# Declares the CheckId variant in src/checkdoc/ids.rs of tree $1: after the family's last id, so
# the declaration stays grouped by family (a new family's first id goes last).
add_check_id() {
  local file=$1/src/checkdoc/ids.rs
  if [ $newfam -eq 1 ]; then
    LINE="    $variant = \"$id\"," perl -0pi -e '
      s/(check_ids! \{\n(?:    [A-Za-z0-9]+ = "[^"]*",\n)+)\}/$1$ENV{LINE}\n}/
        or die "no check_ids! list in $ARGV\n"' "$file"
    return 0
  fi
  LINE="    $variant = \"$id\"," FAMILY="$family" perl -0pi -e '
    my $line = $ENV{LINE}; my $fam = quotemeta($ENV{FAMILY});
    s/(check_ids! \{\n(?:.*\n)*    [A-Za-z0-9]+ = "$fam\.[^"]*",\n)/$1$line\n/
      or die "no check_ids! line of family $ENV{FAMILY} in $ARGV\n"' "$file"
}

body() { # the function; $1 = visibility prefix
  cat <<EOF
/// \`$id\`: TODO say in one line what this check judges (docs: checks/$family.toml).
${1}fn $snake(ctx: &crate::checks::Ctx) -> Vec<crate::report::Finding> {
    // Judge facts from \`ctx.inv\` (discovered once per run) and \`ctx.host\` (the only door to
    // the machine: rooted files, the env snapshot, children with timeouts); ask the tools,
    // never assume a layout. Every warn/fail carries a fix.
    let _ = ctx;
    todo!(
        "{}: judge the facts and return findings",
        crate::checkdoc::CheckId::$variant
    )
}
EOF
}

# The table-test stub of a Rust check: one row that fails until the check is written.
add_table_test() { # $1: tree to edit
  local f
  f=$(table_file "$1")
  if [ ! -f "$f" ]; then
    printf '%s\n' "//! \`$family.*\` table tests (harness: \`crate::checks::testkit\`)." >"$f"
    echo "mod $family;" >>"$1/src/checks/tables/mod.rs"
  fi
  cat >>"$f" <<EOF3

/// \`$id\`: TODO rows: a fixture (tests/fixtures; cite the format of a new one in its
/// SOURCE.md) and environment in, the verdicts expected out. This stub row fails until then.
#[test]
fn ${snake}_table() {
    use crate::checks::testkit::{row, table, NO_GPU};
    use crate::report::Status;
    table(
        crate::checks::CheckId::$variant,
        &[row(
            NO_GPU,
            &[],
            &[(Status::Pass, "TODO: what $id says on this fixture")],
        )],
    );
}
EOF3
}

# The table-test stub of a pack check, beside the shipped packs' tests.
add_pack_test() { # $1: tree to edit
  local f=$1/tests/packs_real.rs
  if [ ! -f "$f" ]; then
    echo "new-check: no tests/packs_real.rs: write a test for $id by hand" >&2
    return 0
  fi
  cat >>"$f" <<EOF3

/// \`$id\`: TODO a fixture (\`--sysroot\`, tests/fixtures/sysroots) and environment in, the
/// finding out. This stub fails until the check is written and the expectation replaced.
#[test]
fn ${family}_${snake}_table() {
    let f = one(&[], &[], "$id");
    assert_eq!(f["status"], "pass", "{f:#}");
    assert_eq!(f["summary"], "TODO: what $id says here", "{f:#}");
}
EOF3
}

apply_pack() { # $1: tree to edit
  cat >>"$1/checks/packs/$family.toml" <<EOF2

[[check]]
id = "$id"
title = "TODO"
what = "TODO: what is examined, and how (which probe reads what)."
why = "TODO: what breaks for the user when this is wrong (the exact error they see)."
fix = "TODO: how to fix it."
sources = []

[[check.probe]]
# TODO: the facts to judge (docs/check-packs.md lists the probe kinds).
name = "fact"
kind = "glob"
path = "/etc/os-release"

[[check.rule]]
# TODO: rules from the probes' values, most specific first; every warn/fail carries a fix.
status = "skip"
message = "TODO: judge {fact}"
EOF2
}

# What a new family needs besides its first check (items 6-9 of the header).
apply_family() { # $1: tree to edit
  local t=$1
  CAT="$catvar" FAM="$family" perl -0pi -e '
    my ($v, $f) = ($ENV{CAT}, $ENV{FAM});
    s/(pub(?:\(crate\))? enum Category \{\n(?:    [A-Za-z0-9]+,\n)+)\}/$1    $v,\n}/
      or die "no enum Category in $ARGV\n";
    s/(pub(?:\(crate\))? const ALL: &\x27static \[Category\] = &\[\n(?:        Category::[A-Za-z0-9]+,\n)+)(    \];)/$1        Category::$v,\n$2/
      or die "no Category::ALL in $ARGV\n";
    s/(pub(?:\(crate\))? fn as_str\(self\) -> &\x27static str \{\n        match self \{\n(?:            Category::[A-Za-z0-9]+ => "[^"]*",\n)+)(        \})/$1            Category::$v => "$f",\n$2/
      or die "no Category::as_str in $ARGV\n"' "$t/src/checkdoc.rs"
  FAM="$family" perl -0pi -e '
    my $f = $ENV{FAM};
    s/^(pub\(crate\) mod [a-z0-9_]+;\n)(?!(?:#\[cfg\(test\)\]\n(?:pub\(crate\) )?mod [a-z0-9_]+;\n)*pub\(crate\) mod )/$1pub(crate) mod $f;\n/m
      or die "no pub(crate) mod lines in $ARGV\n";
    s/(const DOC_FILES: &\[\(&str, &str\)\] = &\[\n.*?\n)(\];)/$1    ("checks\/$f.toml", include_str!("..\/..\/checks\/$f.toml")),\n$2/s
      or die "no DOC_FILES in $ARGV\n";
    s/(fn implementations\(\) -> Vec<\(CheckId, CheckFn\)> \{\n.*?)(\n    v\n\})/$1\n    v.extend_from_slice($f\:\:CHECKS);$2/s
      or die "no implementations() in $ARGV\n"' "$t/src/checks/mod.rs"
  FAM="$family" perl -0pi -e '
    my $f = $ENV{FAM};
    s/((?:\n *\("[a-z0-9]+\.toml", &\|\| crate::checks::docs\(\)\.len\(\)\),)+)/$1\n            ("$f.toml", &|| crate::checks::docs().len()),/
      or die "no doc files in every_embedded_table_loads in $ARGV\n"' "$t/src/data.rs"
  cat >"$t/src/checks/$family.rs" <<EOF
//! The \`$family\` family (docs: \`checks/$family.toml\`): TODO what these checks judge, from which
//! facts (\`ctx.inv\`, read once per run) and why they belong together.

use super::{CheckFn, CheckId};

pub(crate) const CHECKS: &[(CheckId, CheckFn)] = &[(CheckId::$variant, $snake)];
EOF
  cat >"$t/checks/$family.toml" <<EOF
# Documentation of the $family checks (one [[check]] per check; the family is the id's first
# word). TODO: say here what the family judges.
EOF
}

apply() { # $1: tree to edit
  local t=$1
  if [ $newfam -eq 1 ]; then
    apply_family "$t"
  fi
  if [ $pack -eq 1 ]; then
    apply_pack "$t"
    add_pack_test "$t"
    return 0
  fi
  add_check_id "$t"
  if [ -d "$t/src/checks/$family" ]; then
    {
      echo "//! \`$id\`: TODO what this check judges, and why (docs: checks/$family.toml)."
      echo
      body "pub(super) "
    } >"$t/src/checks/$family/$snake.rs"
    # `mod NAME;` after the family's last plain `mod` line.
    awk -v m="mod $snake;" '
      { lines[NR] = $0 }
      /^mod [a-z0-9_]+;$/ { last = NR }
      END { for (i = 1; i <= NR; i++) { print lines[i]; if (i == last) print m } }
    ' "$t/src/checks/$family/mod.rs" >"$t/src/checks/$family/mod.rs.new"
    mv "$t/src/checks/$family/mod.rs.new" "$t/src/checks/$family/mod.rs"
    add_registry_line "$t/src/checks/$family/mod.rs" "(CheckId::$variant, $snake::$snake)"
  else
    { echo; body ""; } >>"$t/src/checks/$family.rs"
    # A new family's file was written with this check in its `CHECKS`.
    [ $newfam -eq 1 ] || add_registry_line "$t/src/checks/$family.rs" "(CheckId::$variant, $snake)"
  fi
  add_table_test "$t"
  cat >>"$t/checks/$family.toml" <<EOF

[[check]]
id = "$id"
action = "fix-config" # TODO: the repair action of its warn and fail findings (src/checkdoc/action.rs)
title = "TODO"
what = """TODO: what is examined, and how (which tool is asked, which file is read)."""
why = """TODO: what breaks for the user when this is wrong (the exact error they see)."""
fix = """TODO: how to fix it."""
sources = []
EOF
  if command -v rustfmt >/dev/null; then
    local f
    local more=()
    [ $newfam -eq 0 ] || more=("$t/src/checkdoc.rs" "$t/src/checks/mod.rs" "$t/src/checks/tables/mod.rs" "$t/src/data.rs")
    for f in "$t/src/checkdoc/ids.rs" "$(table_file "$t")" "$t/src/checks/$family.rs" "$t/src/checks/$family/mod.rs" "$t/src/checks/$family/$snake.rs" "${more[@]}"; do
      [ -f "$f" ] && rustfmt --edition 2021 "$f" 2>/dev/null || true
    done
  fi
}

check_tree "$root"
if [ $dry -eq 1 ]; then
  tmp=$(mktemp -d "${TMPDIR:-/tmp}/new-check.XXXXXX")
  trap 'rm -rf "$tmp"' EXIT
  mkdir -p "$tmp/a" "$tmp/b"
  for d in a b; do
    cp -R "$root/src" "$root/checks" "$tmp/$d/"
    mkdir -p "$tmp/$d/tests"
    [ ! -f "$root/tests/packs_real.rs" ] || cp "$root/tests/packs_real.rs" "$tmp/$d/tests/"
  done
  apply "$tmp/b"
  (cd "$tmp" && diff -ruN a b) || true
  exit 0
fi
apply "$root"
if [ $pack -eq 1 ]; then
  echo "new-check: scaffolded the pack check $id in checks/packs/$family.toml (a probe and a rule)."
  echo "and a failing test stub in tests/packs_real.rs (fn ${family}_${snake}_table)."
  echo "Next: write the probes and rules, fill in the doc (a test refuses TODO), replace the test's TODO expectation"
  echo "(run it: cargo test --test integration packs_real::${family}_${snake}_table),"
  echo "then rocm-doctor checks lint checks/packs/$family.toml && cargo run -q -- docs-checks > docs/checks.md"
  exit 0
fi
if [ $newfam -eq 1 ]; then
  cat <<EOF
new-check: started the family $family (Category::$catvar):
  src/checkdoc.rs (Category::$catvar), src/checks/mod.rs (mod, DOC_FILES, implementations),
  src/data.rs (every_embedded_table_loads), src/checks/tables/mod.rs (mod $family)
  src/checks/$family.rs, checks/$family.toml, src/checks/tables/$family.rs (new)
EOF
fi
cat <<EOF
new-check: scaffolded $id:
  src/checkdoc/ids.rs (CheckId::$variant)
  $( [ -d "$root/src/checks/$family" ] && echo "src/checks/$family/$snake.rs (new), src/checks/$family/mod.rs (mod + registry line)" || echo "src/checks/$family.rs (function + registry line)" )
  checks/$family.toml (doc stub)
  $(table_file "$root" | sed "s|^$root/||") (table-test stub: fn ${snake}_table, fails until written)
Next: write the logic (replace todo!), fill in the doc (a test refuses TODO), replace the test
row's TODO (cargo test --lib ${snake}_table), then
  cargo run -q -- docs-checks > docs/checks.md
EOF

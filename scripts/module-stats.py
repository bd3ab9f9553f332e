#!/usr/bin/env python3
"""The shape of the source tree, as issue 27's closing note reports it.

    scripts/module-stats.py [SRC_DIR]        (default: src/ of this checkout)

Prints, per top-level folder of SRC_DIR (a module, `foo/` or `foo.rs`):
  - files and lines (tests in `tests.rs`/`tests/` counted apart),
  - the folders it imports (`crate::x`, `super::` resolved), i.e. the folder-level module map,
  - its public items: `pub` and `pub(crate)` items at the start of a line (fn, struct, enum,
    const, static, type, trait, mod, use),
and, for the whole tree, the functions longer than 80 and 100 lines (a function's lines run
from its `fn` line to the closing brace at the same indentation) and the code lines longer than
100 characters that rustfmt leaves as they are (string literals it cannot break).

A reading of the text, not of the compiler: good enough to compare two trees, which is what it
is for (run it on a checkout before and after a change).
"""
import collections
import pathlib
import re
import sys

src = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else pathlib.Path(__file__).resolve().parent.parent / "src")
ITEM = re.compile(r"^\s*pub(\((crate|super|in [^)]*)\))?\s+(async\s+|unsafe\s+|const\s+)*(fn|struct|enum|const|static|type|trait|mod|use)\b")


def folder_of(rel: pathlib.PurePath) -> str:
    parts = rel.parts
    if len(parts) == 1:
        return parts[0].removesuffix(".rs")
    return parts[0]


def is_test_file(rel: pathlib.PurePath) -> bool:
    return rel.name == "tests.rs" or "tests" in rel.parts[:-1]


def strip_comments(text: str) -> str:
    return "\n".join(re.sub(r"//.*$", "", line) if '"' not in line.split("//")[0] else line for line in text.splitlines())


def cut_test_modules(text: str) -> str:
    """Drops `#[cfg(test)] mod ... { ... }` blocks (their imports reach anywhere)."""
    out, skip, depth, pending = [], None, 0, False
    for line in text.splitlines():
        t = line.strip()
        if skip is None and t.startswith("#[cfg(test)]"):
            pending = True
            continue
        opens, closes = line.count("{"), line.count("}")
        if pending and skip is None:
            if opens:
                skip = depth
            elif t.endswith(";"):
                pending = False
                continue
        depth += opens - closes
        if skip is not None:
            if depth <= skip:
                skip, pending = None, False
            continue
        out.append(line)
    return "\n".join(out)


def imports(rel: pathlib.PurePath, code: str, folders: set) -> set:
    me = folder_of(rel)
    found = set()
    for m in re.finditer(r"crate::(\{[^}]*\}|[A-Za-z_][A-Za-z0-9_]*)", code):
        names = m.group(1).strip("{}").split(",") if m.group(1).startswith("{") else [m.group(1)]
        for n in names:
            n = n.strip().split("::")[0]
            if n in folders and n != me:
                found.add(n)
    # `super::` from a file directly under SRC_DIR/folder/ reaches the crate root.
    depth_in_folder = len(rel.parts) - (1 if rel.name == "mod.rs" else 0)
    for m in re.finditer(r"((?:super::)+)(\{[^}]*\}|[A-Za-z_][A-Za-z0-9_]*)", code):
        ups = m.group(1).count("super::")
        if ups >= depth_in_folder:
            names = m.group(2).strip("{}").split(",") if m.group(2).startswith("{") else [m.group(2)]
            for n in names:
                n = n.strip().split("::")[0]
                if n in folders and n != me:
                    found.add(n)
    return found


def long_functions(text: str, limit: int):
    lines = text.splitlines()
    out = []
    for i, line in enumerate(lines):
        m = re.match(r"^(\s*)(pub(\([^)]*\))?\s+)?(async\s+|unsafe\s+|const\s+)*fn\s+([A-Za-z_0-9]+)", line)
        if not m or line.rstrip().endswith(";"):
            continue
        indent = m.group(1)
        for j in range(i + 1, len(lines)):
            if lines[j] == indent + "}":
                if j - i + 1 > limit:
                    out.append((m.group(5), j - i + 1, i + 1))
                break
    return out


def main():
    files = sorted(p for p in src.rglob("*.rs"))
    folders = {folder_of(p.relative_to(src)) for p in files}
    folders.discard("lib")
    folders.discard("main")
    stats = collections.defaultdict(lambda: {"files": 0, "lines": 0, "test_lines": 0, "pub": 0, "pub_crate": 0, "uses": set()})
    long80, long100, long_lines = [], [], 0
    for p in files:
        rel = p.relative_to(src)
        text = p.read_text()
        f = folder_of(rel)
        s = stats[f]
        s["files"] += 1
        n = text.count("\n")
        if is_test_file(rel):
            s["test_lines"] += n
            continue
        s["lines"] += n
        code = cut_test_modules(strip_comments(text))
        s["uses"] |= imports(rel, code, folders)
        for line in code.splitlines():
            m = ITEM.match(line)
            if m:
                if m.group(1):
                    s["pub_crate"] += 1
                else:
                    s["pub"] += 1
            if len(line) > 100:
                long_lines += 1
        for name, length, at in long_functions(code, 80):
            long80.append((length, f"{rel}:{at} {name}"))
            if length > 100:
                long100.append((length, f"{rel}:{at} {name}"))
    print(f"{'folder':<12} {'files':>5} {'lines':>6} {'tests':>6} {'pub':>4} {'pub(crate)':>10}  imports")
    tot = collections.Counter()
    for f in sorted(stats):
        s = stats[f]
        for k in ("files", "lines", "test_lines", "pub", "pub_crate"):
            tot[k] += s[k]
        print(f"{f:<12} {s['files']:>5} {s['lines']:>6} {s['test_lines']:>6} {s['pub']:>4} {s['pub_crate']:>10}  {' '.join(sorted(s['uses']))}")
    print(f"{'total':<12} {tot['files']:>5} {tot['lines']:>6} {tot['test_lines']:>6} {tot['pub']:>4} {tot['pub_crate']:>10}")
    # Folder-level cycles (two folders importing each other, directly).
    pairs = sorted({tuple(sorted((a, b))) for a in stats for b in stats[a]["uses"] if a in stats.get(b, {"uses": set()})["uses"]})
    print(f"folder pairs importing each other: {len(pairs)} {' '.join(a + '<->' + b for a, b in pairs)}")
    print(f"functions over 80 lines: {len(long80)}; over 100 lines: {len(long100)}")
    for length, where in sorted(long80, reverse=True):
        print(f"  {length:>4} {where}")
    print(f"code lines over 100 characters (rustfmt leaves them): {long_lines}")


main()

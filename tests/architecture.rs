//! The layering rules of docs/architecture.md, checked on the source text so that a back-arrow
//! cannot come back unnoticed.

use std::path::{Path, PathBuf};

fn sources() -> Vec<(String, String)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut out = Vec::new();
    let mut stack = vec![root.clone()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p: PathBuf = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "rs") {
                let rel = p
                    .strip_prefix(&root)
                    .unwrap()
                    .to_string_lossy()
                    .into_owned();
                out.push((rel, std::fs::read_to_string(&p).unwrap()));
            }
        }
    }
    assert!(out.len() > 50);
    out
}

fn offenders(pattern: &str, allowed: impl Fn(&str) -> bool) -> Vec<String> {
    sources()
        .into_iter()
        .filter(|(rel, text)| text.contains(pattern) && !allowed(rel))
        .map(|(rel, _)| rel)
        .collect()
}

#[test]
fn only_checks_app_and_runner_use_the_check_registry() {
    // data.rs: its unit test loads every embedded table, the check docs included. registry/:
    // the pack loader checks that symptoms name real checks. The pack engine (packs/) no
    // longer needs them: its probes take the Host, the inventory and the config.
    let bad = offenders("crate::checks", |f| {
        f.starts_with("checks/")
            || f.starts_with("registry/")
            || matches!(f, "app.rs" | "runner.rs" | "registry.rs" | "data.rs")
            // the default run's room, which runs them (`diagnose`)
            || f == "commands/run.rs"
    });
    assert!(bad.is_empty(), "modules below checks/ import it: {bad:?}");
}

#[test]
fn the_command_line_stops_at_config_and_the_entry_points() {
    // Subcommand entry points take the parsed arguments; everything else gets a Config.
    let bad = offenders("crate::cli", |f| {
        matches!(
            f,
            "cli.rs"
                | "app.rs"
                // man pages and completions are generated from the clap definitions themselves
                | "packaging.rs"
        ) || f.starts_with("commands/")
    });
    assert!(bad.is_empty(), "modules read argv types: {bad:?}");
}

#[test]
fn children_are_started_only_by_host_run_and_vendor_libraries_loaded_only_in_probes() {
    let bad = offenders("Command::new(", |f| f == "host/process.rs");
    assert!(
        bad.is_empty(),
        "processes started outside Host::run: {bad:?}"
    );
    let bad = offenders("libloading", |f| f.starts_with("probe/"));
    assert!(
        bad.is_empty(),
        "vendor libraries loaded outside the probe child: {bad:?}"
    );
}

#[test]
fn embedded_tables_are_loaded_by_the_one_loader() {
    // Every data file, the check packs and the known issues included, is parsed by
    // `data::load`; their own checks report `data::DataError`s too.
    let bad = offenders("toml::from_str", |f| f == "data.rs");
    assert!(bad.is_empty(), "TOML parsed outside src/data.rs: {bad:?}");
    let bad = offenders("toml::de::Error", |f| f == "data.rs");
    assert!(
        bad.is_empty(),
        "TOML errors turned into messages outside src/data.rs: {bad:?}"
    );
}

// ---------------------------------------------------------------------------------------------
// The layer order (docs/architecture.md, "Layers"). A module may use only modules of lower
// layers; the few pairs that share a layer and may use each other are listed. The graph is
// read from the source text (paths `crate::a::b`, `use crate::{a, b}`, `super::x`), comments
// and `#[cfg(test)]` modules left out. A node is a folder (a top-level module of `src/`): every
// file of a folder sits on its folder's layer, none is split out (issue 27).

/// Lowest first: one line per layer, each name a top-level module (`src/NAME/` or
/// `src/NAME.rs`).
const LAYERS: &[&[&str]] = &[
    &["host", "data", "glob"],
    &["isa", "version", "checkdoc", "probe"],
    &["policy"],
    &["codeobj", "config"],
    &["report", "gpu", "diag"],
    &["kernlog"],
    &["inventory"],
    &["binfacts"],
    &["packs"],
    &["known_issues"],
    &["inspect", "logscan", "gpuproc", "asm", "fleet"],
    &["bugreport"],
    &["checks"],
    &["runner"],
    &["registry"],
    &["cli"],
    &["commands", "packaging"],
    &["app"],
];

/// Same-layer edges that are allowed: the `completions` and `man` rooms call the generators.
const SAME_LAYER: &[(&str, &str)] = &[("commands", "packaging")];

type Graph = std::collections::BTreeMap<String, std::collections::BTreeSet<String>>;

/// `a/b.rs` -> ["a", "b"]; `a/mod.rs` -> ["a"]; `lib.rs`/`main.rs` -> [].
fn module_path(rel: &str) -> Vec<String> {
    let rel = rel.trim_end_matches(".rs");
    let mut parts: Vec<String> = rel.split('/').map(str::to_string).collect();
    if parts
        .last()
        .is_some_and(|p| p == "mod" || p == "lib" || p == "main")
    {
        parts.pop();
    }
    parts
}

/// The folder (top-level module) a module path is in.
fn node_of(path: &[String]) -> Option<String> {
    path.first().cloned()
}

/// The text without comments and without `#[cfg(test)]` items (a test module may reach up).
fn code_only(text: &str) -> String {
    let mut out = String::new();
    let mut skip_depth: Option<i32> = None;
    let mut depth = 0i32;
    let mut pending_test = false;
    for line in text.lines() {
        let code = match line.find("//") {
            Some(i) if !line[..i].contains('"') => &line[..i],
            _ => line,
        };
        let t = code.trim();
        if skip_depth.is_none() && t.starts_with("#[cfg(test)]") {
            pending_test = true;
            continue;
        }
        let opens = code.matches('{').count() as i32;
        let closes = code.matches('}').count() as i32;
        if pending_test && skip_depth.is_none() {
            if opens > 0 {
                skip_depth = Some(depth);
            } else if t.ends_with(';') {
                // `#[cfg(test)] use ...;` or `mod tests;`
                pending_test = false;
                continue;
            }
        }
        depth += opens - closes;
        if let Some(d) = skip_depth {
            if depth <= d {
                skip_depth = None;
                pending_test = false;
            }
            continue;
        }
        out.push_str(code);
        out.push('\n');
    }
    out
}

/// The nodes a file's code refers to.
fn references(rel: &str, text: &str) -> Vec<Vec<String>> {
    let code = code_only(text);
    let mut refs = Vec::new();
    let me = module_path(rel);
    let bytes = code.as_bytes();
    let ident = |i: usize| -> (String, usize) {
        let mut j = i;
        while j < bytes.len() && (bytes[j].is_ascii_alphanumeric() || bytes[j] == b'_') {
            j += 1;
        }
        (code[i..j].to_string(), j)
    };
    // A path after `start`: up to two segments, or a `{a, b::c}` group.
    let path_at = |start: usize, base: Vec<String>, refs: &mut Vec<Vec<String>>| {
        if bytes.get(start) == Some(&b'{') {
            let end = code[start..].find('}').map_or(code.len(), |e| start + e);
            for item in code[start + 1..end].split(',') {
                let item = item.trim();
                if item.is_empty() || item == "self" {
                    refs.push(base.clone());
                    continue;
                }
                let mut p = base.clone();
                p.extend(item.split("::").take(2).map(|s| s.trim().to_string()));
                refs.push(p);
            }
        } else {
            let (a, j) = ident(start);
            let mut p = base;
            p.push(a);
            if code[j..].starts_with("::") {
                let (b, _) = ident(j + 2);
                if !b.is_empty() {
                    p.push(b);
                }
            }
            refs.push(p);
        }
    };
    for (i, _) in code.match_indices("crate::") {
        path_at(i + 7, Vec::new(), &mut refs);
    }
    // A module file naming its own children (`mod probe;` ... `probe::run()`).
    if rel.ends_with("mod.rs") || rel == "lib.rs" {
        let children: Vec<String> = code
            .lines()
            .filter_map(|l| {
                let l = l
                    .trim()
                    .trim_start_matches("pub ")
                    .trim_start_matches("pub(crate) ");
                l.strip_prefix("mod ")?
                    .strip_suffix(';')
                    .map(|n| n.trim().to_string())
            })
            .collect();
        for child in children {
            let pat = format!("{child}::");
            for (i, _) in code.match_indices(&pat) {
                let before = code[..i].chars().next_back();
                if before.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_' || c == ':') {
                    continue;
                }
                let mut p = me.clone();
                p.push(child.clone());
                refs.push(p);
            }
        }
    }
    for (i, _) in code.match_indices("super::") {
        // Count the chain of `super::`.
        if i >= 7 && &code[i - 7..i] == "super::" {
            continue;
        }
        let mut n = 0;
        let mut j = i;
        while code[j..].starts_with("super::") {
            n += 1;
            j += 7;
        }
        let parent_len = me.len().saturating_sub(n);
        let base: Vec<String> = me[..parent_len].to_vec();
        path_at(j, base, &mut refs);
    }
    refs
}

fn graph_of(files: &[(String, String)]) -> Graph {
    let mut g = Graph::new();
    for (rel, text) in files {
        let Some(from) = node_of(&module_path(rel)) else {
            continue;
        };
        let entry = g.entry(from.clone()).or_default();
        for r in references(rel, text) {
            if let Some(to) = node_of(&r) {
                if to != from && !to.is_empty() {
                    entry.insert(to);
                }
            }
        }
    }
    g
}

fn layer_of(node: &str) -> Option<usize> {
    LAYERS.iter().position(|l| l.contains(&node))
}

/// Every edge that goes up or sideways (not declared), and every cycle with its path.
fn violations(g: &Graph) -> Vec<String> {
    let mut bad = Vec::new();
    for (from, tos) in g {
        let Some(lf) = layer_of(from) else {
            bad.push(format!("module `{from}` is in no layer"));
            continue;
        };
        for to in tos {
            let Some(lt) = layer_of(to) else {
                continue; // a name that is not a module (a function, a macro) or a std path
            };
            if lt > lf || (lt == lf && !SAME_LAYER.contains(&(from.as_str(), to.as_str()))) {
                bad.push(format!("`{from}` (layer {lf}) uses `{to}` (layer {lt})"));
            }
        }
    }
    bad.extend(cycles(g, &|n| layer_of(n).is_some()));
    bad
}

/// Every cycle among the nodes `known` accepts, indirect ones included, each once with its
/// path: a depth-first search from every node.
fn cycles(g: &Graph, known: &dyn Fn(&str) -> bool) -> Vec<String> {
    let mut bad = Vec::new();
    let nodes: Vec<&String> = g.keys().filter(|n| known(n)).collect();
    for start in &nodes {
        let mut stack = vec![(start.to_string(), vec![start.to_string()])];
        let mut seen = std::collections::BTreeSet::new();
        while let Some((n, path)) = stack.pop() {
            for next in g.get(&n).into_iter().flatten() {
                if next == *start {
                    let mut p = path.clone();
                    p.push(next.clone());
                    let cycle = format!("cycle: {}", p.join(" -> "));
                    if !bad.contains(&cycle) && p.iter().min() == Some(&start.to_string()) {
                        bad.push(cycle);
                    }
                } else if known(next) && seen.insert(next.clone()) {
                    let mut p = path.clone();
                    p.push(next.clone());
                    stack.push((next.clone(), p));
                }
            }
        }
    }
    bad
}

/// A Rust check's id is written once, in `src/checkdoc/ids.rs`; code elsewhere names the
/// `CheckId` variant (messages format it in), so renaming a check cannot leave a stale
/// reference. Comments, `#[cfg(test)]` items and test files may quote ids (they assert text),
/// and so may `--help`'s examples (a `const` for clap's attribute, which cannot format; a unit
/// test in `cli.rs` checks that every id it names is a `CheckId`).
#[test]
fn rust_check_ids_are_written_only_in_their_declaration() {
    use rocm_doctor::checkdoc::{mentioned_ids, CheckId};
    let mut families: Vec<&str> = CheckId::ALL.iter().map(|c| c.family()).collect();
    families.dedup();
    let mut bad = Vec::new();
    for (rel, text) in sources() {
        // Test-only files: test modules, and the table tests with their harness.
        if rel == "checkdoc/ids.rs"
            || rel.ends_with("/tests.rs")
            || rel.contains("/tests/")
            || rel.starts_with("checks/tables/")
            || rel == "checks/testkit.rs"
        {
            continue;
        }
        for id in mentioned_ids(&code_only(&text), &families) {
            if id.parse::<CheckId>().is_ok() && !(rel == "cli.rs" && id == "toolchain.lld") {
                bad.push(format!("{rel}: {id}"));
            }
        }
    }
    assert!(bad.is_empty(), "check ids written as text: {bad:#?}");
    // The scan sees the declaration itself (so it would see a copy elsewhere).
    let decl = sources()
        .into_iter()
        .find(|(rel, _)| rel == "checkdoc/ids.rs")
        .expect("src/checkdoc/ids.rs");
    assert!(mentioned_ids(&code_only(&decl.1), &families).contains(&"gpu.kfd"));
}

/// Inside each folder its files and sub-folders (`folder::child`; the folder's own `mod.rs`
/// aside) and the edges between them: a folder's files must not form a circle either (the
/// fleet's `baseline -> input -> summary -> baseline` was one).
fn sibling_graph(files: &[(String, String)]) -> Graph {
    let child = |p: &[String]| (p.len() >= 2).then(|| format!("{}::{}", p[0], p[1]));
    let known: std::collections::BTreeSet<String> = files
        .iter()
        .filter_map(|(rel, _)| child(&module_path(rel)))
        .collect();
    let mut g = Graph::new();
    for (rel, text) in files {
        let me = module_path(rel);
        let Some(from) = child(&me) else {
            continue;
        };
        let entry = g.entry(from.clone()).or_default();
        for r in references(rel, text) {
            if r.first() == me.first() {
                if let Some(to) = child(&r).filter(|t| *t != from && known.contains(t)) {
                    entry.insert(to);
                }
            }
        }
    }
    g
}

#[test]
fn modules_use_only_lower_layers_and_form_no_cycle() {
    let files = sources();
    let g = graph_of(&files);
    let mut bad = violations(&g);
    // Every layer names real folders (a stale name would hide a module that moved).
    for name in LAYERS.iter().flat_map(|l| l.iter()) {
        if !g.contains_key(*name) {
            bad.push(format!("layer entry `{name}` is no module of src/"));
        }
    }
    bad.extend(cycles(&sibling_graph(&files), &|_| true));
    assert!(bad.is_empty(), "layering violations:\n{}", bad.join("\n"));
}

#[test]
fn a_folder_is_one_layer_and_its_files_form_no_circle() {
    // A deliberately bad tree: the pack engine's probe reaching the checks' context and the
    // known issues reaching `inspect`'s file reader (both were allowed while `packs::probe` and
    // `inspect::file` were nodes of their own; a file sits on its folder's layer now), and the
    // fleet circle through `super::`.
    let files = vec![
        (
            "packs/probe.rs".to_string(),
            "use crate::checks::Ctx;\npub fn run_check(ctx: &Ctx) {}\n".to_string(),
        ),
        (
            "known_issues/mod.rs".to_string(),
            "use crate::inspect::file::FileReport;\n".to_string(),
        ),
        (
            "fleet/baseline.rs".to_string(),
            "fn f() -> usize { super::input::MAX_DOC_BYTES }\n".to_string(),
        ),
        (
            "fleet/input.rs".to_string(),
            "use super::summary::Summary;\n".to_string(),
        ),
        (
            "fleet/summary.rs".to_string(),
            "use super::{baseline, doc::Doc};\n".to_string(),
        ),
        ("fleet/doc.rs".to_string(), "pub struct Doc;\n".to_string()),
    ];
    let bad = violations(&graph_of(&files));
    assert!(
        bad.contains(&"`packs` (layer 8) uses `checks` (layer 12)".to_string()),
        "{bad:?}"
    );
    assert!(
        bad.contains(&"`known_issues` (layer 9) uses `inspect` (layer 10)".to_string()),
        "{bad:?}"
    );
    let circles = cycles(&sibling_graph(&files), &|_| true);
    assert_eq!(
        circles,
        ["cycle: fleet::baseline -> fleet::input -> fleet::summary -> fleet::baseline"],
        "{circles:?}"
    );
    // Cut as in the tree: the limit read from the document, below all three.
    let mut cut = files.clone();
    cut[2].1 = "fn f() -> usize { super::doc::MAX_DOC_BYTES }\n".to_string();
    assert!(cycles(&sibling_graph(&cut), &|_| true).is_empty());
}

#[test]
fn the_layer_test_catches_a_back_import_and_an_indirect_cycle() {
    // A deliberately bad tree, in the test's own fixtures: `host` (layer 0) reaching up to
    // `report`; the pack engine's core reaching `app` through `super::super`; and the indirect
    // cycle `checks -> registry -> runner -> checks` through a `use` group.
    let files = vec![
        (
            "host/mod.rs".to_string(),
            "use crate::report::Finding;\n".to_string(),
        ),
        (
            "report/mod.rs".to_string(),
            "pub struct Finding;\n#[cfg(test)]\nmod tests {\n    use crate::app::run;\n}\n"
                .to_string(),
        ),
        (
            "packs/why.rs".to_string(),
            "// crate::app is only a comment\nfn f() { super::super::app::run(); }\n".to_string(),
        ),
        (
            "checks/mod.rs".to_string(),
            "use crate::{registry::run, host};\n".to_string(),
        ),
        (
            "registry.rs".to_string(),
            "use crate::runner::guarded;\n".to_string(),
        ),
        (
            "runner.rs".to_string(),
            "fn f() { crate::checks::docs(); }\n".to_string(),
        ),
    ];
    let g = graph_of(&files);
    let bad = violations(&g);
    assert!(
        bad.contains(&"`host` (layer 0) uses `report` (layer 4)".to_string()),
        "{bad:?}"
    );
    assert!(
        bad.iter()
            .any(|b| b.starts_with("`packs` ") && b.ends_with("uses `app` (layer 17)")),
        "{bad:?}"
    );
    assert!(
        bad.iter().any(|b| b.starts_with("cycle: ")
            && b.contains("checks")
            && b.contains("registry")
            && b.contains("runner")),
        "{bad:?}"
    );
    // The test module and the comment are not dependencies.
    assert!(!g["report"].contains("app"), "{g:?}");
}

/// What the parsers crate (crates/parsers) may not use: its parsers get bytes or text and return
/// values, the main crate does every read (docs/architecture.md, "The parsers crate").
const IMPURE: &[&str] = &[
    "std::fs",
    "std::process",
    "std::net",
    "std::env",
    "std::os",
    "File::",
    "Command::",
    "rocm_doctor::",
];

/// Crates the parsers crate may not depend on: the fuzz targets of the parsers link it without
/// the command line (clap), the system calls (nix, libc) or the vendor libraries (libloading).
const HEAVY: &[&str] = &[
    "clap",
    "nix",
    "libloading",
    "libc",
    "which",
    "walkdir",
    "tempfile",
    "memmap2",
    "toml",
];

/// The impure uses in one parsers-crate file's code (comments and tests left out).
fn impure_uses(text: &str) -> Vec<&'static str> {
    let code = code_only(text);
    IMPURE
        .iter()
        .copied()
        .filter(|p| code.contains(p))
        .collect()
}

#[test]
fn the_parsers_crate_does_no_io_and_links_no_heavy_crate() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("crates/parsers");
    let manifest = std::fs::read_to_string(root.join("Cargo.toml")).unwrap();
    let deps: Vec<&str> = manifest
        .lines()
        .skip_while(|l| l.trim() != "[dependencies]")
        .skip(1)
        .take_while(|l| !l.starts_with('['))
        .filter_map(|l| l.split('=').next())
        .map(str::trim)
        .filter(|n| !n.is_empty() && !n.starts_with('#'))
        .collect();
    assert!(deps.contains(&"thiserror"), "{deps:?}");
    let heavy: Vec<_> = deps.iter().filter(|d| HEAVY.contains(d)).collect();
    assert!(heavy.is_empty(), "crates/parsers depends on {heavy:?}");
    let mut files = 0;
    let mut stack = vec![root.join("src")];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "rs") {
                files += 1;
                let bad = impure_uses(&std::fs::read_to_string(&p).unwrap());
                assert!(bad.is_empty(), "{} uses {bad:?}", p.display());
            }
        }
    }
    assert!(files >= 10, "{files} files");
    // The rule sees a file read in code, not in a comment or a test module.
    let fixture = "// std::fs is fine here\nfn f() { let _ = std::fs::read(\"x\"); }\n\
                   #[cfg(test)]\nmod tests {\n    use std::process::Command;\n}\n";
    assert_eq!(impure_uses(fixture), ["std::fs"]);
}

/// A finding gets its check's id from the engine alone (issue 27, item 4): `runner::stamp` for
/// every check the registry runs, `packs.load`, `--baseline`'s `fleet.baseline` (a comparison
/// of two reports, made after the run: the `run` command stamps it through the engine) and
/// `inspect`'s `libs.code-objects` (printed as the walk goes, below the engine's layer: the
/// `inspect` command hands the walk `runner::stamp` to call, and `why --binary` stamps what
/// it gets back). A check, a probe or a library that wrote an id on its findings would show
/// up here.
#[test]
fn finding_ids_are_written_only_by_the_engine() {
    assert_eq!(
        id_writers(sources()),
        ["runner.rs"],
        "finding ids written outside the engine"
    );
    // The rule on a fixture: the old allowance (`inspect/judge.rs` stamping its own findings)
    // is now an offence, as is any other module's; a comment or a test module is not.
    let stamp = concat!(
        "pub(crate) fn stamp(mut f: Finding) -> Finding {\n",
        "    f.id = ID.to_string();\n",
        "    f.category = CATEGORY.to_string();\n",
        "    f\n",
        "}\n",
    );
    let fixture = vec![
        ("inspect/judge.rs".to_string(), stamp.to_string()),
        (
            "checks/libs.rs".to_string(),
            "// f.id = \"x\" is fine in a comment\n".into(),
        ),
        (
            "gpu/mod.rs".to_string(),
            "#[cfg(test)]\nmod tests {\n    fn t() { f.category = \"x\".into(); }\n}\n".into(),
        ),
        ("runner.rs".to_string(), stamp.replace("stamp", "mark")),
    ];
    assert_eq!(id_writers(fixture), ["inspect/judge.rs", "runner.rs"]);
}

/// The files whose code (not comments, not test modules) writes a finding's id or category.
fn id_writers(files: Vec<(String, String)>) -> Vec<String> {
    let mut writers: Vec<String> = files
        .into_iter()
        .filter(|(_, text)| {
            code_only(text)
                .lines()
                .any(|l| l.contains("f.id = ") || l.contains("f.category = "))
        })
        .map(|(rel, _)| rel)
        .collect();
    writers.sort();
    writers
}

#[test]
fn only_the_commands_rooms_have_a_main_and_only_host_asks_the_uid() {
    // Issue 27: a command's orchestration lives in its room (`src/commands/`), the libraries
    // keep the functions it calls; who the doctor is (getuid) is asked through `Host::uid`.
    let bad = offenders("fn main(", |f| {
        f.starts_with("commands/") || matches!(f, "app.rs" | "main.rs")
    });
    assert!(bad.is_empty(), "library modules with a main: {bad:?}");
    let bad = offenders("getuid", |f| f.starts_with("host/"));
    assert!(bad.is_empty(), "getuid outside Host: {bad:?}");
}

/// The public items (`pub`, not `pub(crate)`) of each top-level module, at most: the count at
/// issue 27's merge (scripts/module-stats.py prints the same figures). A ratchet, not a goal: a
/// module may only shrink its face. A new `pub` item either is used by the binary, the tests or
/// the fuzz targets (then raise the number here, saying why, in the same change) or should be
/// `pub(crate)`.
const PUBLIC_ITEM_BUDGET: &[(&str, usize)] = &[
    ("app", 1),
    ("asm", 18),
    ("binfacts", 4),
    ("bugreport", 0),
    ("checkdoc", 8),
    ("checks", 0),
    ("cli", 4),
    ("codeobj", 42),
    ("commands", 0),
    ("config", 3),
    ("data", 3),
    ("diag", 3),
    ("fleet", 21),
    ("glob", 0),
    ("gpu", 47),
    ("gpuproc", 0),
    ("host", 21),
    ("inspect", 0),
    ("inventory", 17),
    ("isa", 8),
    ("kernlog", 7),
    ("known_issues", 0),
    ("logscan", 4),
    ("packaging", 2),
    ("packs", 41), // +1: origins::Table::commit_of, read by tests/origins_harvest.rs
    ("policy", 0),
    ("probe", 0),
    ("registry", 2),
    ("report", 11),
    ("runner", 0),
    ("version", 1),
];

/// `pub` items declared at the start of a line of code (tests and comments left out).
fn public_items(text: &str) -> usize {
    code_only(text)
        .lines()
        .map(str::trim_start)
        .filter(|l| {
            l.strip_prefix("pub ").is_some_and(|rest| {
                let rest = rest
                    .trim_start_matches("async ")
                    .trim_start_matches("unsafe ");
                [
                    "fn ", "struct ", "enum ", "const ", "static ", "type ", "trait ", "mod ",
                    "use ",
                ]
                .iter()
                .any(|k| rest.starts_with(k))
            })
        })
        .count()
}

#[test]
fn every_module_keeps_within_its_budget_of_public_items() {
    let mut counts: std::collections::BTreeMap<String, usize> = Default::default();
    for (rel, text) in sources() {
        let Some(node) = module_path(&rel).first().cloned() else {
            continue; // lib.rs, main.rs
        };
        if rel.ends_with("/tests.rs") || rel.contains("/tests/") {
            continue;
        }
        *counts.entry(node).or_default() += public_items(&text);
    }
    let mut over = Vec::new();
    for (node, n) in &counts {
        match PUBLIC_ITEM_BUDGET.iter().find(|(m, _)| m == node) {
            Some((_, budget)) if n > budget => over.push(format!("{node}: {n} > {budget}")),
            Some(_) => {}
            None => over.push(format!("{node}: {n} public items and no budget")),
        }
    }
    assert!(
        over.is_empty(),
        "modules over their public-item budget: {over:?}"
    );
    if std::env::var_os("PRINT_PUBLIC_ITEMS").is_some() {
        eprintln!("{counts:?}");
    }
    // The count sees items, not `pub(crate)` ones, fields or text in comments and tests.
    let fixture = "pub fn a() {}\npub(crate) fn b() {}\npub struct C {\n    pub d: u8,\n}\n                   // pub fn e() {}\n#[cfg(test)]\nmod tests {\n    pub fn f() {}\n}\n";
    assert_eq!(public_items(fixture), 2);
}

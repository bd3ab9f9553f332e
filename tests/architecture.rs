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
    // data.rs: its unit test loads every embedded table, the check docs included. packs/: the
    // declarative check engine (issue 9) is a source of checks and plugs into the registry.
    let bad = offenders("crate::checks", |f| {
        f.starts_with("checks/")
            || f.starts_with("packs/")
            || matches!(f, "app.rs" | "runner.rs" | "registry.rs" | "data.rs")
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
                | "config.rs"
                | "app.rs"
                | "asm/mod.rs"
                | "gpuproc/mod.rs"
                | "inspect/mod.rs"
                | "logscan/mod.rs"
                // man pages and completions are generated from the clap definitions themselves
                | "packaging.rs"
        )
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
    // Two more parsers, for reasons: known_issues.rs keeps its own until its entries become
    // pack checks, and the pack compiler parses untrusted user files, collecting every error
    // of a file as a span (for `checks lint`), which one formatted string cannot carry.
    let bad = offenders("toml::from_str", |f| {
        matches!(
            f,
            "data.rs" | "inspect/known_issues.rs" | "packs/compile.rs"
        )
    });
    assert!(bad.is_empty(), "TOML parsed outside src/data.rs: {bad:?}");
}

//! The command line as documented: list, explain, JSON shape, exit codes.

use crate::common::*;

#[test]
fn every_listed_check_has_an_explanation() {
    let out = doctor().arg("--list-checks").output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8_lossy(&out.stdout).to_string();
    let ids: Vec<&str> = text
        .lines()
        .filter_map(|l| l.split_whitespace().next())
        .collect();
    assert!(ids.len() >= 12, "{text}");
    for id in ids {
        let out = doctor().args(["explain", id]).output().unwrap();
        assert_eq!(out.status.code(), Some(0), "{id}");
        let t = String::from_utf8_lossy(&out.stdout);
        for part in ["What it checks", "Why it matters", "How to fix"] {
            assert!(t.contains(part), "{id} lacks {part}");
        }
    }
}

#[test]
fn docs_checks_md_is_generated_from_the_check_docs() {
    let out = doctor().arg("docs-checks").output().unwrap();
    let generated = String::from_utf8_lossy(&out.stdout);
    let committed =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/checks.md")).unwrap();
    assert!(
        generated == committed,
        "docs/checks.md is stale: run `cargo run -q -- docs-checks > docs/checks.md`"
    );
}

#[test]
fn json_is_one_document_with_the_documented_top_level_fields() {
    let out = doctor()
        .args(["--json", "--profile", "build"])
        .output()
        .unwrap();
    let doc = json_of(&out);
    for key in [
        "schema_version",
        "tool",
        "profile",
        "sysroot",
        "host",
        "fingerprint",
        "exit_code",
        "summary",
        "findings",
        "inventory",
    ] {
        assert!(doc.get(key).is_some(), "missing {key}");
    }
    assert_eq!(doc["schema_version"], 2);
    assert_eq!(doc["exit_code"].as_i64(), out.status.code().map(i64::from));
    for f in doc["findings"].as_array().unwrap() {
        for key in [
            "id",
            "category",
            "status",
            "summary",
            "evidence",
            "duration_ms",
        ] {
            assert!(f.get(key).is_some(), "finding lacks {key}: {f}");
        }
        if ["warn", "fail", "error"].contains(&f["status"].as_str().unwrap()) {
            assert!(
                f["fix"]["text"].as_str().is_some_and(|t| !t.is_empty()),
                "problem without a fix: {f}"
            );
        }
    }
}

#[test]
fn colour_only_when_asked() {
    let plain = doctor().args(["--only", "targets.isa"]).output().unwrap();
    assert!(
        !plain.stdout.contains(&0x1b),
        "no escape codes off a terminal"
    );
    let forced = doctor()
        .args(["--only", "targets.isa", "--color", "always"])
        .output()
        .unwrap();
    assert!(forced.stdout.contains(&0x1b));
}

#[test]
fn strict_turns_warnings_into_exit_1() {
    // AMDGPU_TARGETS with a typo gives a warning and nothing else.
    let out = doctor()
        .env("AMDGPU_TARGETS", "sm_80")
        .args(["--only", "targets.isa"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let out = doctor()
        .env("AMDGPU_TARGETS", "sm_80")
        .args(["--only", "targets.isa", "--strict"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
}

/// README's flag table is written by hand (the meanings are prose), so a test keeps its list of
/// flags equal to the parser's: a flag added to `src/cli.rs` must be documented there, and a
/// documented flag must exist.
#[test]
fn readme_flag_table_lists_exactly_the_run_flags() {
    use clap::CommandFactory;
    let readme =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md")).unwrap();
    let start = readme
        .find("| flag | meaning |")
        .expect("README has the flag table");
    let documented: Vec<String> = readme[start..]
        .lines()
        .skip(2)
        .take_while(|l| l.starts_with('|'))
        .flat_map(|l| {
            let cell = l.split('|').nth(1).unwrap_or("");
            cell.split('`')
                .skip(1)
                .step_by(2)
                .filter_map(|code| code.split_whitespace().next().map(str::to_string))
                .collect::<Vec<_>>()
        })
        .collect();
    let cmd = rocm_doctor::cli::Cli::command();
    let mut parser_flags = Vec::new();
    for a in cmd.get_arguments() {
        let (Some(long), id) = (a.get_long(), a.get_id().as_str()) else {
            continue;
        };
        if matches!(id, "help" | "version") {
            continue;
        }
        let names = [
            Some(format!("--{long}")),
            a.get_short().map(|s| format!("-{s}")),
        ];
        assert!(
            names.iter().flatten().any(|n| documented.contains(n)),
            "--{long} is not in README's flag table"
        );
        parser_flags.extend(names.into_iter().flatten());
    }
    for d in &documented {
        assert!(
            parser_flags.contains(d) || d == "-vv",
            "README documents {d}, which the parser does not have"
        );
    }
}

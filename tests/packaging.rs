//! The man pages and completions shipped in the repository are what the binary generates now,
//! and they are well-formed (`man` renders every page without a warning; bash parses the
//! bash script). Regenerate with scripts/gen-packaging-files.sh.

use crate::common;

use clap_complete::Shell;
use rocm_doctor::packaging;
use std::path::Path;

const COMPLETIONS: [(Shell, &str); 3] = [
    (Shell::Bash, "rocm-doctor.bash"),
    (Shell::Zsh, "_rocm-doctor"),
    (Shell::Fish, "rocm-doctor.fish"),
];

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

const STALE: &str = "stale: run scripts/gen-packaging-files.sh and commit the result";

#[test]
fn committed_man_pages_are_fresh() {
    let pages = packaging::man_pages().expect("render");
    let dir = root().join("docs/man");
    let mut committed: Vec<String> = std::fs::read_dir(&dir)
        .expect("docs/man")
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    committed.sort();
    let mut generated: Vec<String> = pages.iter().map(|(n, _)| n.clone()).collect();
    generated.sort();
    assert_eq!(committed, generated, "docs/man page set {STALE}");
    for (name, text) in &pages {
        let on_disk = std::fs::read(dir.join(name)).unwrap();
        assert!(on_disk == *text, "docs/man/{name} {STALE}");
    }
    // The main page documents the subcommands and the exit codes of --help.
    let main = String::from_utf8_lossy(&pages[0].1);
    assert!(
        main.contains("inspect") && main.contains("Exit codes"),
        "{main}"
    );
}

#[test]
fn committed_completions_are_fresh() {
    for (shell, file) in COMPLETIONS {
        let on_disk = std::fs::read(root().join("contrib/completions").join(file)).unwrap();
        assert!(
            on_disk == packaging::completion_script(shell),
            "contrib/completions/{file} {STALE}"
        );
    }
}

#[test]
fn completions_subcommand_prints_the_script() {
    let out = common::doctor()
        .args(["completions", "fish"])
        .output()
        .unwrap();
    assert!(out.status.success());
    assert_eq!(out.stdout, packaging::completion_script(Shell::Fish));
    assert!(String::from_utf8_lossy(&out.stdout).contains("complete -c rocm-doctor"));
    let bad = common::doctor()
        .args(["completions", "tcsh"])
        .output()
        .unwrap();
    assert_eq!(
        bad.status.code(),
        Some(2),
        "an unknown shell is a usage error"
    );
}

#[test]
fn man_subcommand_prints_the_main_page() {
    let out = common::doctor().arg("man").output().unwrap();
    assert!(out.status.success());
    assert_eq!(out.stdout, packaging::man_pages().unwrap()[0].1);
}

#[test]
fn every_man_page_renders_without_warnings() {
    let Some(man) = common::need_tool("man") else {
        return;
    };
    for (name, _) in packaging::man_pages().unwrap() {
        let path = root().join("docs/man").join(&name);
        let out = std::process::Command::new(&man)
            .args(["--warnings", "-E", "UTF-8", "-l"])
            .arg(&path)
            .env("MANWIDTH", "80")
            .env("LC_ALL", "C.UTF-8")
            .env_remove("MANPAGER")
            .env_remove("PAGER")
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(out.status.success(), "man -l {name}: {err}");
        assert!(err.trim().is_empty(), "man -l {name} warned:\n{err}");
        assert!(text.contains("SYNOPSIS"), "{name} rendered:\n{text}");
    }
}

#[test]
fn bash_completion_parses() {
    let Some(bash) = common::need_tool("bash") else {
        return;
    };
    let out = std::process::Command::new(bash)
        .arg("-n")
        .arg(root().join("contrib/completions/rocm-doctor.bash"))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

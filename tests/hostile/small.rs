//! Issue 25, item 7. Smaller items: terminal escapes, merge determinism, setsid children, relative roots, closed stdout, caps said, truncated .gz, non-UTF-8 arguments, inspect depth.
//!
//! This file holds the terminal escapes, the closed stdout, the non-UTF-8 `why` argument and
//! the relative roots.

use crate::common::*;
use std::ffi::{OsStr, OsString};
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// xterm's OSC 52: sets the clipboard to "hi" (base64 `aGk=`), ended by BEL.
const OSC52: &str = "\x1b]52;c;aGk=\x07";
/// How the human output shows it.
const OSC52_SHOWN: &str = "\\x1b]52;c;aGk=\\x07";

fn gfx1030() -> PathBuf {
    fixture("sysroots", "gfx1030-dgpu")
}

/// Stdout of the doctor run with `args` and `env`, after checking it did not panic.
fn stdout_of(args: &[&OsStr], env: &[(&str, &str)]) -> String {
    let mut c = doctor();
    for (k, v) in env {
        c.env(k, v);
    }
    let out = c.args(args).output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!err.contains("panicked"), "{err}");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// No control character reaches the terminal but line feed, tab and, when `colour`, the
/// doctor's own colour sequences; the OSC 52 sequence is shown (its start at least: a finding
/// may quote a value only up to its `;`).
fn assert_shown_not_obeyed(what: &str, out: &str, colour: bool) {
    assert!(out.contains("\\x1b]52"), "{what}: OSC 52 not shown:\n{out}");
    assert!(!out.contains("\x1b]"), "{what}: raw OSC written:\n{out:?}");
    assert!(!out.contains('\x07'), "{what}: raw BEL written:\n{out:?}");
    let mut rest = out;
    while let Some(i) = rest.find('\x1b') {
        // Only SGR: ESC [ digits ; m.
        let seq = &rest[i + 1..];
        let ok = colour
            && seq.starts_with('[')
            && seq[1..]
                .trim_start_matches(|c: char| c.is_ascii_digit() || c == ';')
                .starts_with('m');
        assert!(
            ok,
            "{what}: escape sequence other than a colour: {:?}",
            &rest[i..]
        );
        rest = &rest[i + 1..];
    }
    let bad = out
        .chars()
        .find(|c| c.is_control() && !matches!(c, '\n' | '\t' | '\x1b'));
    assert_eq!(bad, None, "{what}: control character written:\n{out:?}");
}

#[test]
fn terminal_escapes_from_a_pasted_text_are_shown() {
    let text = format!("hipErrorNoBinaryForGpu {OSC52} at line 3");
    let root = gfx1030();
    let out = stdout_of(
        &[
            "--sysroot".as_ref(),
            root.as_os_str(),
            "why".as_ref(),
            text.as_ref(),
        ],
        &[],
    );
    assert!(out.contains("Recognised"), "{out}");
    assert!(out.contains(OSC52_SHOWN), "{out}");
    assert_shown_not_obeyed("why", &out, false);
}

#[test]
fn terminal_escapes_from_a_log_are_shown() {
    let dir = tempfile::tempdir().unwrap();
    let log = std::fs::read_to_string(fixture("logs", "seed000-rocm-6.2.2.log")).unwrap();
    let evil = log.replace("stream:<null> )", &format!("stream:<null>{OSC52} )"));
    assert_ne!(evil, log, "the fixture changed: inject elsewhere");
    let path = dir.path().join(format!("run{OSC52}.log"));
    std::fs::write(&path, evil).unwrap();
    let out = stdout_of(&["log".as_ref(), path.as_os_str()], &[]);
    assert!(out.contains("hipErrorInvalidDeviceFunction"), "{out}");
    assert_shown_not_obeyed("log", &out, false);
}

#[test]
fn terminal_escapes_from_merged_host_names_are_shown() {
    let dir = tempfile::tempdir().unwrap();
    let root = gfx1030();
    let host = format!("node1{OSC52}");
    let doc = stdout_of(
        &["--sysroot".as_ref(), root.as_os_str(), "--json".as_ref()],
        &[("ROCM_DOCTOR_HOST", &host)],
    );
    // JSON needs no more: serde_json writes C0 controls as \u00NN.
    assert!(doc.contains("node1\\u001b]52;c;aGk=\\u0007"), "{doc}");
    assert!(!doc.contains('\x1b') && !doc.contains('\x07'));
    let file = dir.path().join("node1.json");
    std::fs::write(&file, doc).unwrap();
    let out = stdout_of(&["merge".as_ref(), file.as_os_str()], &[]);
    assert_shown_not_obeyed("merge", &out, false);
}

#[test]
fn terminal_escapes_in_findings_are_shown_colours_kept() {
    let dir = tempfile::tempdir().unwrap();
    let root = gfx1030();
    let value = format!("gfx90a{OSC52}");
    let lib = dir.path().join(format!("lib{OSC52}.so"));
    std::fs::copy("/bin/true", &lib).unwrap();
    for (what, args, env) in [
        (
            "default run",
            vec![
                root.as_os_str(),
                "--color".as_ref(),
                "always".as_ref(),
                "-v".as_ref(),
            ],
            vec![("AMDGPU_TARGETS", value.as_str())],
        ),
        (
            "inspect",
            vec![
                root.as_os_str(),
                "--color".as_ref(),
                "always".as_ref(),
                "inspect".as_ref(),
                lib.as_os_str(),
            ],
            vec![],
        ),
    ] {
        let mut a: Vec<&OsStr> = vec!["--sysroot".as_ref()];
        a.extend(args);
        let out = stdout_of(&a, &env);
        assert!(out.contains("\x1b["), "{what}: colours asked for:\n{out}");
        assert_shown_not_obeyed(what, &out, true);
    }
    // The bug report (Markdown, no colours) quotes the variable too.
    let out = stdout_of(
        &["--sysroot".as_ref(), root.as_os_str(), "report".as_ref()],
        &[("AMDGPU_TARGETS", value.as_str())],
    );
    assert_shown_not_obeyed("report", &out, false);
}

/// `ps` shows other users' command lines: a process named with OSC 52 (or colours, hiding
/// text) is shown, not obeyed.
#[test]
fn terminal_escapes_from_process_names_are_shown() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("root");
    let ok = Command::new("cp")
        .arg("-a")
        .arg(fixture("sysroots", "ps-in-container"))
        .arg(&root)
        .status()
        .unwrap()
        .success();
    assert!(ok, "cp -a");
    let cmdline = format!("python3\0train.py{OSC52}\0--x\x1b[8mhidden\0");
    std::fs::write(root.join("proc/17/cmdline"), cmdline).unwrap();
    let out = stdout_of(
        &["--sysroot".as_ref(), root.as_os_str(), "ps".as_ref()],
        &[],
    );
    assert!(out.contains("train.py"), "{out}");
    assert!(out.contains("\\x1b[8mhidden"), "{out}");
    assert_shown_not_obeyed("ps", &out, false);
}

/// A reader that went away (`rocm-doctor --list-checks | head -0`): every subcommand ends
/// quietly with the exit code it has with a reader, never a panic (101) or a signal.
#[test]
fn closed_stdout_is_not_a_panic() {
    let dir = tempfile::tempdir().unwrap();
    let bad_pack = dir.path().join("bad.toml");
    std::fs::write(&bad_pack, "[[check]]\nid = 1\n").unwrap();
    let log = fixture("logs", "seed000-rocm-6.2.2.log");
    let root = gfx1030();
    let s = |v: &str| OsString::from(v);
    let sysroot = [s("--sysroot"), root.clone().into_os_string()];
    let cases: Vec<Vec<OsString>> = vec![
        vec![s("--list-checks")],
        vec![s("explain"), s("toolchain.clang")],
        vec![s("checks"), s("lint"), bad_pack.clone().into_os_string()],
        vec![s("docs-checks")],
        vec![s("completions"), s("bash")],
        vec![s("man")],
        vec![s("--help")],
        vec![s("--npd"), s("--only"), s("no.such.check")],
        [&sysroot[..], &[s("--json")]].concat(),
        sysroot.to_vec(),
        [&sysroot[..], &[s("why"), s("hipErrorNoBinaryForGpu")]].concat(),
        [&sysroot[..], &[s("why"), s("nothing known here")]].concat(),
        [&sysroot[..], &[s("report")]].concat(),
        vec![s("log"), log.clone().into_os_string()],
        vec![s("inspect"), s("/bin/true")],
        [&sysroot[..], &[s("ps")]].concat(),
        vec![s("gen-log")],
    ];
    let bin = assert_cmd::cargo::cargo_bin("rocm-doctor");
    for args in cases {
        let run = |stdout: Stdio| {
            Command::new(&bin)
                .env_clear()
                .env("PATH", "/usr/bin:/bin")
                .env("TMPDIR", dir.path())
                .args(&args)
                .stdin(Stdio::null())
                .stdout(stdout)
                .stderr(Stdio::piped())
                .output()
                .unwrap()
        };
        let with_reader = run(Stdio::null());
        let (reader, writer) = std::io::pipe().unwrap();
        drop(reader);
        let closed = run(writer.into());
        let err = String::from_utf8_lossy(&closed.stderr);
        assert!(!err.contains("panicked"), "{args:?}: {err}");
        assert_eq!(
            closed.status.code(),
            with_reader.status.code(),
            "{args:?}: {:?} {err}",
            closed.status
        );
    }
}

/// `why` takes a non-UTF-8 argument as it takes the same bytes on stdin (lossy).
#[test]
fn why_accepts_a_non_utf8_argument() {
    let root = gfx1030();
    let mut bytes = b"hipErrorNoBinaryForGpu in caf".to_vec();
    bytes.push(0xe9); // Latin-1 é, invalid as UTF-8.
    bytes.extend_from_slice(b" build");
    let arg = OsString::from_vec(bytes.clone());
    let out = doctor()
        .arg("--sysroot")
        .arg(&root)
        .args(["why", "--json"])
        .arg(&arg)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!err.contains("invalid UTF-8"), "{err}");
    let from_arg = json_of(&out);
    let from_stdin = doctor()
        .arg("--sysroot")
        .arg(&root)
        .args(["why", "--json", "-"])
        .write_stdin(bytes)
        .output()
        .unwrap();
    let from_stdin = json_of(&from_stdin);
    let ids = |d: &serde_json::Value| {
        d["recognised"]
            .as_array()
            .map(|a| a.iter().map(|s| s["id"].clone()).collect::<Vec<_>>())
    };
    assert!(
        ids(&from_arg).is_some_and(|v| !v.is_empty()),
        "{from_arg:#}"
    );
    assert_eq!(ids(&from_arg), ids(&from_stdin));
    assert_eq!(
        out.status.code(),
        Some(from_arg["exit_code"].as_i64().unwrap() as i32)
    );
}

/// A root with one program, a clang that runs anywhere (a shell script).
fn root_with_clang(dir: &Path) -> PathBuf {
    let root = dir.join("r");
    std::fs::create_dir_all(root.join("usr/bin")).unwrap();
    write_script(
        &root.join("usr/bin/clang++"),
        "#!/bin/sh\necho 'Debian clang version 17.0.6'\necho 'Target: x86_64-pc-linux-gnu'\n",
    );
    root
}

/// A relative `--sysroot`/`--host-root` judges what the absolute one judges: before, children
/// ran in the doctor's temp dir with the relative path and "could not run".
#[test]
fn relative_roots_are_the_absolute_ones() {
    let dir = tempfile::tempdir().unwrap();
    let root = root_with_clang(dir.path());
    let findings = |flag: &str, root: &OsStr| {
        let out = doctor()
            .current_dir(dir.path())
            .args([flag])
            .arg(root)
            .args(["--profile", "build", "--only", "toolchain", "--json"])
            .output()
            .unwrap();
        assert!(
            !out.stdout.is_empty(),
            "{flag} {root:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let doc = json_of(&out);
        let v: Vec<serde_json::Value> = doc["findings"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| serde_json::json!([f["id"], f["status"], f["summary"]]))
            .collect();
        // Evidence names the run's temp dir: only searched.
        let evidence = doc["findings"].to_string();
        assert!(
            !evidence.contains("cannot execute"),
            "{flag} {root:?}: {evidence}"
        );
        (v, doc["sysroot"].clone())
    };
    for flag in ["--sysroot", "--host-root"] {
        let (abs, abs_root) = findings(flag, root.as_os_str());
        let (rel, rel_root) = findings(flag, OsStr::from_bytes(b"r"));
        assert_eq!(rel, abs, "{flag} r");
        assert_eq!(rel_root, abs_root, "{flag} r");
    }
}

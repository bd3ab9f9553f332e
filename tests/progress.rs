//! Progress lines go to a terminal's stderr only: never into a pipe, never with --json. The
//! terminal case runs the doctor under a pseudo-terminal with util-linux `script`.

use crate::common;

use std::path::Path;
use std::process::Command;

const ERASE: &str = "\u{1b}[2K";

fn fixtures() -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .display()
        .to_string()
}

fn log_fixture() -> String {
    format!("{}/logs/seed000-rocm-6.2.2.log", fixtures())
}

fn assert_quiet(out: &std::process::Output, what: &str) {
    for (name, b) in [("stdout", &out.stdout), ("stderr", &out.stderr)] {
        let t = String::from_utf8_lossy(b);
        assert!(
            !t.contains(ERASE) && !t.contains('\r'),
            "{what}: progress in piped {name}:\n{t}"
        );
    }
}

#[test]
fn piped_inspect_and_log_print_no_progress() {
    let dir = fixtures();
    let out = common::doctor().args(["inspect", &dir]).output().unwrap();
    assert!(!out.stdout.is_empty(), "the listing is printed");
    assert_quiet(&out, "inspect");
    let out = common::doctor()
        .args(["--json", "inspect", &dir])
        .output()
        .unwrap();
    assert_quiet(&out, "inspect --json");
    let out = common::doctor()
        .args(["log", &log_fixture()])
        .output()
        .unwrap();
    assert!(!out.stdout.is_empty());
    assert_quiet(&out, "log");
}

/// Runs the doctor with `args` under a pseudo-terminal; returns what the terminal showed.
fn on_terminal(args: &str) -> Option<String> {
    let script = common::need_tool("script")?;
    let bin = assert_cmd::cargo::cargo_bin("rocm-doctor");
    let out = Command::new(script)
        .args(["-q", "-e", "-c"])
        .arg(format!("{} {args}", bin.display()))
        .arg("/dev/null")
        .env("TERM", "xterm")
        .env("TMPDIR", std::env::temp_dir())
        .output()
        .unwrap();
    Some(String::from_utf8_lossy(&out.stdout).into_owned())
}

#[test]
fn a_terminal_sees_progress_but_json_does_not() {
    let dir = fixtures();
    let Some(t) = on_terminal(&format!("inspect {dir}")) else {
        return;
    };
    assert!(t.contains(ERASE) && t.contains("inspect: "), "{t}");
    let t = on_terminal(&format!("--json inspect {dir}")).unwrap();
    assert!(!t.contains(ERASE) && t.contains("\"command\""), "{t}");
    let t = on_terminal(&format!("log {}", log_fixture())).unwrap();
    assert!(t.contains(ERASE) && t.contains("log: "), "{t}");
    let t = on_terminal(&format!("--json log {}", log_fixture())).unwrap();
    assert!(!t.contains(ERASE), "{t}");
}

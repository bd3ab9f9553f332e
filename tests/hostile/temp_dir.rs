//! Issue 25, item 4. The doctor's own failures (no temp dir, a probe it could not start) are errors, never verdicts.
//!
//! Each case runs the doctor in a private mount namespace (`unshare -m`, root only, as in CI)
//! where `/tmp` (and `$TMPDIR`) is read-only or a full tmpfs: with another writable place the
//! probes must really run there; with none, the probes the doctor could not start are `error`
//! (`--npd` exit 2, Unknown), never `fail` (exit 1, a drain).

use crate::common;
use std::process::Command;

/// `sh -c SETUP; exec rocm-doctor ARGS` in a private mount namespace, with a clean environment
/// (`TMPDIR=/tmp`). `None` (after a skip notice) when not root or without `unshare`.
fn in_namespace(setup: &str, args: &[&str]) -> Option<std::process::Output> {
    if !nix::unistd::geteuid().is_root() {
        eprintln!("skipped: mount namespaces need root (CI runs the suite as root)");
        return None;
    }
    let unshare = common::need_tool("unshare")?;
    let bin = assert_cmd::cargo::cargo_bin("rocm-doctor");
    let script = format!("set -e; mount --make-rprivate /; {setup}; exec \"$0\" \"$@\"");
    let out = Command::new(unshare)
        .args(["-m", "sh", "-c", &script])
        .arg(&bin)
        .args(args)
        .env_clear()
        .env("PATH", "/usr/local/bin:/usr/bin:/bin")
        .env("TMPDIR", "/tmp")
        .output()
        .unwrap();
    Some(out)
}

const READ_ONLY: &str = "mount --bind /tmp /tmp; mount -o remount,bind,ro /tmp";
const NOTHING_WRITABLE: &str =
    "for d in /tmp /var/tmp /dev/shm; do mount --bind $d $d; mount -o remount,bind,ro $d; done";
/// A 64 KiB tmpfs on /tmp, filled: `mkdir` still works there, writing does not.
const FULL: &str =
    "mount -t tmpfs -o size=64k tmpfs /tmp; dd if=/dev/zero of=/tmp/fill bs=4k 2>/dev/null || true";

fn statuses(out: &std::process::Output) -> Vec<(String, String, String)> {
    let doc = common::json_of(out);
    doc["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            (
                f["id"].as_str().unwrap().to_string(),
                f["status"].as_str().unwrap().to_string(),
                f["summary"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

fn status_of<'a>(s: &'a [(String, String, String)], id: &str) -> &'a str {
    s.iter()
        .find(|(i, _, _)| i == id)
        .map(|(_, st, _)| st.as_str())
        .unwrap_or_else(|| panic!("no {id} finding in {s:?}"))
}

/// `/tmp` (= `$TMPDIR`) read-only: the temp dir goes to `/var/tmp` or `/dev/shm` and clang is
/// really probed (before: "cannot be run", fail).
#[test]
fn a_read_only_tmp_falls_back_and_the_probes_run() {
    if common::need_tool("clang-15").is_none() {
        return;
    }
    let Some(out) = in_namespace(READ_ONLY, &["--json", "--only", "toolchain.clang"]) else {
        return;
    };
    let s = statuses(&out);
    assert_eq!(status_of(&s, "toolchain.clang"), "pass", "{s:?}");
}

/// A full tmpfs on `/tmp`: making the dir works, writing does not; the write test sends the
/// temp dir elsewhere and the link and compile probes pass (before: the link "fails").
#[test]
fn a_full_tmp_falls_back_and_the_probes_run() {
    if common::need_tool("clang-15").is_none() || common::need_tool("hipcc").is_none() {
        return;
    }
    let Some(out) = in_namespace(
        FULL,
        &[
            "--json",
            "--only",
            "toolchain.link,toolchain.hip-compile",
            "--isa",
            "gfx90a",
        ],
    ) else {
        return;
    };
    let s = statuses(&out);
    assert_eq!(status_of(&s, "toolchain.link"), "pass", "{s:?}");
    assert_eq!(status_of(&s, "toolchain.hip-compile"), "pass", "{s:?}");
}

/// No writable temp place at all: clang and the HSA probe could not be started by the doctor,
/// which says so as `error`; `--npd` exits 2 (Unknown), never 1 (before: both `fail`, exit 1,
/// and the Slurm health check drains the node).
#[test]
fn no_temp_dir_anywhere_is_an_error_never_a_failure() {
    if common::need_tool("clang-15").is_none() {
        return;
    }
    let only = [
        "--only",
        "toolchain.clang,gpu.runtime-init",
        "--profile",
        "runtime",
    ];
    let mut args = vec!["--json"];
    args.extend(only);
    let Some(out) = in_namespace(NOTHING_WRITABLE, &args) else {
        return;
    };
    let s = statuses(&out);
    assert_eq!(status_of(&s, "toolchain.clang"), "error", "{s:?}");
    let clang = s.iter().find(|(i, _, _)| i == "toolchain.clang").unwrap();
    assert!(clang.2.contains("could not run"), "{s:?}");
    // The HSA probe runs only when the runtime library is installed.
    let hsa = status_of(&s, "gpu.runtime-init");
    assert_ne!(hsa, "fail", "{s:?}");
    let mut args = vec!["--npd"];
    args.extend(only);
    let out = in_namespace(NOTHING_WRITABLE, &args).unwrap();
    let line = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(2), "{line}");
    assert!(line.starts_with("UNKNOWN"), "{line}");
}

//! Hostile or odd input: a clear message and a non-crashing result, never a panic or a hang.

use crate::common::*;
use serde_json::Value;
use std::os::unix::ffi::OsStrExt;

fn env_finding(doc: &Value) -> Vec<Value> {
    doc["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["id"] == "toolchain.env")
        .cloned()
        .collect()
}

fn run_env(var: &str, val: &std::ffi::OsStr) -> Value {
    let out = doctor()
        .env(var, val)
        .args(["--json", "--only", "toolchain.env,toolchain.rocm-root"])
        .output()
        .unwrap();
    assert!(out.status.code().is_some(), "killed by a signal");
    assert!(
        !String::from_utf8_lossy(&out.stderr).contains("panicked"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    json_of(&out)
}

#[test]
fn rocm_path_pointing_to_a_file() {
    let t = tempfile::NamedTempFile::new().unwrap();
    let doc = run_env("ROCM_PATH", t.path().as_os_str());
    let f = &env_finding(&doc)[0];
    assert_eq!(f["status"], "fail");
    assert!(
        f["summary"].as_str().unwrap().contains("not a directory"),
        "{f:#}"
    );
}

#[test]
fn rocm_path_pointing_to_nothing() {
    let doc = run_env("ROCM_PATH", std::ffi::OsStr::new("/nonexistent/rocm-9.9"));
    let f = &env_finding(&doc)[0];
    assert_eq!(f["status"], "fail");
    assert!(f["summary"].as_str().unwrap().contains("ENOENT"), "{f:#}");
}

#[test]
fn rocm_path_that_is_not_utf8() {
    let doc = run_env(
        "ROCM_PATH",
        std::ffi::OsStr::from_bytes(b"/opt/rocm-\xff\xfe"),
    );
    let f = &env_finding(&doc)[0];
    assert_eq!(f["status"], "fail");
    assert!(f["summary"].as_str().unwrap().contains("not valid UTF-8"));
}

#[test]
fn rocm_path_in_a_symlink_loop() {
    let t = tempfile::tempdir().unwrap();
    std::os::unix::fs::symlink(t.path().join("b"), t.path().join("a")).unwrap();
    std::os::unix::fs::symlink(t.path().join("a"), t.path().join("b")).unwrap();
    let doc = run_env("ROCM_PATH", t.path().join("a").as_os_str());
    let f = &env_finding(&doc)[0];
    assert_eq!(f["status"], "fail");
    assert!(f["summary"].as_str().unwrap().contains("ELOOP"), "{f:#}");
}

#[test]
fn rocm_path_with_quotes_is_called_out() {
    let doc = run_env("ROCM_PATH", std::ffi::OsStr::new("\"/usr\""));
    let all = env_finding(&doc);
    assert!(
        all.iter()
            .any(|f| f["status"] == "warn" && f["summary"].as_str().unwrap().contains("quotes")),
        "{all:#?}"
    );
}

/// Root reads any directory, so the unreadable case runs the doctor as `nobody` when we are
/// root (setpriv, util-linux), and directly otherwise.
#[test]
fn an_unreadable_rocm_path() {
    let t = tempfile::tempdir().unwrap();
    let dir = dir_with_mode(t.path(), "rocm", 0o000);
    let Some(doc) = doctor_as_unprivileged(
        &[("ROCM_PATH", dir.as_os_str())],
        &["--json", "--only", "toolchain.env"],
    ) else {
        return;
    };
    let f = &env_finding(&doc)[0];
    assert_eq!(f["status"], "fail", "{f:#}");
    assert!(f["summary"].as_str().unwrap().contains("EACCES"), "{f:#}");
}

#[test]
fn usage_errors_exit_2_with_a_message() {
    for args in [
        vec!["--isa", "gfx1030;rm -rf /"],
        vec!["--isa", "gfx"],
        vec!["--isa", "sm_80"],
        vec!["--isa", "gfx90a:xnack"],
        vec!["--only", "no.such.check"],
        vec!["--sysroot", "/nonexistent/sysroot"],
        vec!["--timeout", "-1"],
        vec!["--timeout", "nan"],
        vec!["--profile", "sometimes"],
        vec!["explain", "no.such.check"],
    ] {
        let out = doctor().args(&args).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            !err.trim().is_empty() && !err.contains("panicked"),
            "{args:?}: {err}"
        );
        assert!(out.stdout.is_empty(), "{args:?}: nothing on stdout");
    }
}

#[test]
fn a_huge_isa_list_is_refused_cleanly() {
    let list = vec!["gfx1030"; 5000].join(",");
    let out = doctor().args(["--isa", &list]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn hostile_target_variables_are_reported_not_obeyed() {
    let out = doctor()
        .env("AMDGPU_TARGETS", "gfx90a;$(reboot);gfx1030")
        .args(["--json", "--only", "targets.isa"])
        .output()
        .unwrap();
    let doc = json_of(&out);
    let f: Vec<&Value> = doc["findings"].as_array().unwrap().iter().collect();
    assert!(
        f.iter()
            .any(|x| x["status"] == "warn" && x["summary"].as_str().unwrap().contains("$(reboot)")),
        "{f:#?}"
    );
    let isas: Vec<&str> = doc["inventory"]["targets"]["isas"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["isa"].as_str().unwrap())
        .collect();
    assert_eq!(isas, ["gfx90a", "gfx1030"]);
}

/// An unwritable TMPDIR makes every compiler fail with "unable to make temporary file": the
/// doctor names it (as `nobody` when we are root, who may write anywhere).
#[test]
fn an_unwritable_tmpdir_is_named_as_the_cause() {
    let t = tempfile::tempdir().unwrap();
    let ro = dir_with_mode(t.path(), "ro", 0o555);
    let Some(doc) = doctor_as_unprivileged(
        &[("TMPDIR", ro.as_os_str())],
        &["--json", "--only", "toolchain.env"],
    ) else {
        return;
    };
    let f: Vec<Value> = env_finding(&doc)
        .into_iter()
        .filter(|f| f["subject"] == "TMPDIR")
        .collect();
    assert_eq!(f.len(), 1, "{doc:#}");
    assert_eq!(f[0]["status"], "fail");
    assert!(
        f[0]["summary"].as_str().unwrap().contains("EACCES"),
        "{:#}",
        f[0]
    );
    assert_eq!(f[0]["fix"]["env"]["TMPDIR"], "/tmp");
}

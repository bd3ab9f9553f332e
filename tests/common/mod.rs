//! Shared helpers for integration tests.
//!
//! Real-toolchain tests call [`need_tool`]: when the tool is missing they skip (printing why),
//! unless `ROCM_DOCTOR_REQUIRE_TOOLCHAIN=1` is set (as `scripts/test.sh` does), in which case a
//! missing tool fails the test: CI must never pass by skipping.
#![allow(dead_code)]

use std::path::{Path, PathBuf};

pub fn toolchain_required() -> bool {
    std::env::var("ROCM_DOCTOR_REQUIRE_TOOLCHAIN").as_deref() == Ok("1")
}

/// Finds an executable on PATH (or an absolute path).
pub fn find_tool(name: &str) -> Option<PathBuf> {
    if name.starts_with('/') {
        return Path::new(name).exists().then(|| PathBuf::from(name));
    }
    which::which(name).ok()
}

/// The tool, or `None` after printing a skip notice; panics when the toolchain is required.
pub fn need_tool(name: &str) -> Option<PathBuf> {
    match find_tool(name) {
        Some(p) => Some(p),
        None if toolchain_required() => panic!("{name} is required (ROCM_DOCTOR_REQUIRE_TOOLCHAIN=1) but not installed"),
        None => {
            eprintln!("skipped: {name} not installed");
            None
        }
    }
}

/// The doctor binary with a minimal, explicit environment (no inherited ROCm variables).
pub fn doctor() -> assert_cmd::Command {
    let mut c = assert_cmd::Command::cargo_bin("rocm-doctor").expect("binary built");
    c.env_clear().env("PATH", "/usr/local/bin:/usr/bin:/bin").env("TMPDIR", std::env::temp_dir());
    c
}

/// Parses stdout as the single JSON document `--json` must print.
pub fn json_of(out: &std::process::Output) -> serde_json::Value {
    let text = String::from_utf8_lossy(&out.stdout);
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("stdout is not one JSON document ({e}):\n{text}"))
}

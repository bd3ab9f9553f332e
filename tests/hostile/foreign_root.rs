//! Issue 25, item 3. --sysroot: a foreign root's programs are not run unless asked, and then scrubbed and resolved inside the root.
//!
//! The root's `clang++` is a shell script that leaves a mark (`DIR/out/ran`), its environment
//! (`DIR/out/env`) and its user id (`DIR/out/uid`) when it runs, wherever it runs: `$0` is its
//! path, inside a chroot or out of it. The root carries this machine's `/bin/sh` and the libraries it needs,
//! so that the script can run chrooted too.

use crate::common::{findings, need_tool, run_json};
use std::path::Path;
use std::process::Command;

/// The script: prints a clang banner of its own (99.1.0, no AMDGPU processors), so that a
/// verdict on it is told apart from one on this machine's clang.
const CLANG: &str = "#!/bin/sh\n\
    top=\"${0%/*}/../../out\"\n\
    echo ran >> \"$top/ran\"\n\
    export -p > \"$top/env\"\n\
    while read -r k v rest; do [ \"$k\" = Uid: ] && echo \"$v\" > \"$top/uid\"; done < /proc/self/status\n\
    echo 'clang version 99.1.0'\n";

/// A root with `usr/bin`, a writable `tmp` and a working `/bin/sh` (this machine's, with the
/// libraries ldd lists for it). `None` without `ldd` (a skip).
fn root_with_sh() -> Option<tempfile::TempDir> {
    let ldd = need_tool("ldd")?;
    let sh = std::fs::canonicalize("/bin/sh").unwrap();
    let t = tempfile::tempdir().unwrap();
    let r = t.path();
    for d in ["usr/bin", "bin", "tmp", "proc", "out"] {
        std::fs::create_dir_all(r.join(d)).unwrap();
    }
    // An image's root is world-traversable; `out` is where the script, run as an unprivileged
    // user in the chroot, leaves its marks.
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(r, std::fs::Permissions::from_mode(0o755)).unwrap();
    std::fs::set_permissions(r.join("out"), std::fs::Permissions::from_mode(0o777)).unwrap();
    std::fs::copy(&sh, r.join("bin/sh")).unwrap();
    let out = Command::new(ldd).arg(&sh).output().unwrap();
    for l in String::from_utf8_lossy(&out.stdout).lines() {
        // `libc.so.6 => /lib/x86_64-linux-gnu/libc.so.6 (0x...)` or `/lib64/ld-linux-... (0x...)`.
        let p = l
            .split("=> ")
            .last()
            .unwrap()
            .split(" (")
            .next()
            .unwrap()
            .trim();
        if p.starts_with('/') {
            let dst = r.join(p.trim_start_matches('/'));
            std::fs::create_dir_all(dst.parent().unwrap()).unwrap();
            std::fs::copy(p, dst).unwrap();
        }
    }
    Some(t)
}

fn script(path: &Path) {
    crate::common::write_script(path, CLANG);
}

fn doctor_on(root: &Path, extra: &[&str], env: &[(&str, &str)]) -> serde_json::Value {
    let mut args: Vec<&str> = vec!["--sysroot", root.to_str().unwrap(), "--only", "toolchain."];
    args.extend(extra);
    run_json(args, env).0
}

fn clang_finding(doc: &serde_json::Value) -> serde_json::Value {
    findings(doc, "toolchain.clang")[0].clone()
}

/// (a) By default the root's clang is not executed; the finding says why and how to run it.
#[test]
fn a_foreign_roots_program_is_not_run_by_default() {
    let Some(t) = root_with_sh() else { return };
    let r = t.path();
    script(&r.join("usr/bin/clang++"));
    let doc = doctor_on(r, &[], &[]);
    assert!(!r.join("out/ran").exists(), "the root's clang++ was run");
    let c = clang_finding(&doc);
    assert_eq!(c["status"], "skip", "{c:#}");
    let s = c["summary"].as_str().unwrap();
    assert!(
        s.contains("programs of a foreign root are not executed"),
        "{s}"
    );
    assert!(s.contains("--run-root-programs"), "{s}");
    assert!(
        c["evidence"].to_string().contains("/usr/bin/clang++"),
        "{c:#}"
    );
    // No failure in a cascade from the checks that need a run: they skip, pointing here.
    for id in [
        "toolchain.resource-dir",
        "toolchain.link",
        "toolchain.hip-compile",
    ] {
        for f in findings(&doc, id) {
            assert_eq!(f["status"], "skip", "{f:#}");
        }
    }
    // (d) and the report says nothing ran.
    assert_eq!(doc["programs_run"], serde_json::json!([]), "{doc:#}");
}

/// (b) With --run-root-programs the script runs, with the allow-listed environment only:
/// no token or key of the caller's reaches it. (d) The JSON lists it.
#[test]
fn run_root_programs_scrubs_the_environment_and_lists_the_programs() {
    let Some(t) = root_with_sh() else { return };
    let r = t.path();
    script(&r.join("usr/bin/clang++"));
    let doc = doctor_on(
        r,
        &["--run-root-programs"],
        &[
            ("HF_TOKEN", "hf_secret_value"),
            ("AWS_SECRET_ACCESS_KEY", "aws_secret_value"),
            ("HIP_API_TOKEN", "hip_secret_value"),
            ("HIP_PLATFORM", "amd"),
        ],
    );
    assert!(
        r.join("out/ran").exists(),
        "not run with --run-root-programs"
    );
    let env = std::fs::read_to_string(r.join("out/env")).unwrap();
    for secret in ["hf_secret_value", "aws_secret_value", "hip_secret_value"] {
        assert!(!env.contains(secret), "{env}");
    }
    assert!(
        env.contains("HIP_PLATFORM"),
        "a ROCm variable is kept: {env}"
    );
    if nix::unistd::geteuid().is_root() {
        // Chrooted, with a /proc of its own, and never as root.
        let uid = std::fs::read_to_string(r.join("out/uid")).unwrap();
        assert_eq!(uid.trim(), "65534");
    }
    let c = clang_finding(&doc);
    assert!(c.to_string().contains("99.1.0"), "{c:#}");
    let runs = doc["programs_run"].as_array().expect("programs_run");
    let clang = runs
        .iter()
        .find(|p| p["path"] == "/usr/bin/clang++")
        .unwrap_or_else(|| panic!("{runs:#?}"));
    assert_eq!(clang["from_root"], true);
    assert_eq!(
        clang["in_chroot"],
        nix::unistd::geteuid().is_root(),
        "{clang:#}"
    );
    assert!(
        clang["host_path"]
            .as_str()
            .unwrap()
            .starts_with(r.to_str().unwrap()),
        "{clang:#}"
    );
    // The child's temporaries went with the run.
    assert_eq!(std::fs::read_dir(r.join("tmp")).unwrap().count(), 0);
}

/// (c) `clang++ -> /usr/bin/clang++-15`, an absolute link: it names the root's file. With the
/// root's own clang++-15, that one runs (never this machine's clang-15); without it, nothing of
/// this machine's is run, with or without the flag.
#[test]
fn an_absolute_link_never_runs_this_machines_program() {
    let Some(host_clang) = need_tool("/usr/bin/clang++-15") else {
        return;
    };
    let Some(t) = root_with_sh() else { return };
    let r = t.path();
    std::os::unix::fs::symlink(&host_clang, r.join("usr/bin/clang++")).unwrap();
    // With the root's own clang++-15 (the marking script): the default runs nothing ...
    script(&r.join("usr/bin/clang++-15"));
    let doc = doctor_on(r, &[], &[]);
    assert!(!r.join("out/ran").exists());
    assert!(
        !clang_finding(&doc).to_string().contains("15.0."),
        "{doc:#}"
    );
    // ... and the flag runs the root's file, never this machine's.
    let doc = doctor_on(r, &["--run-root-programs"], &[]);
    assert!(
        r.join("out/ran").exists(),
        "the root's clang++-15 did not run"
    );
    let c = clang_finding(&doc);
    assert!(c.to_string().contains("99.1.0"), "{c:#}");
    assert!(!c.to_string().contains("15.0."), "{c:#}");
    let runs = doc["programs_run"].to_string();
    assert!(runs.contains("/usr/bin/clang++-15"), "{runs}");
    // Without the root's own file: this machine's clang is not judged as the root's.
    std::fs::remove_file(r.join("usr/bin/clang++-15")).unwrap();
    for extra in [&[][..], &["--run-root-programs"][..]] {
        let doc = doctor_on(r, extra, &[]);
        let c = clang_finding(&doc);
        assert_ne!(c["status"], "pass", "{extra:?}: {c:#}");
        assert!(!c.to_string().contains("15.0."), "{extra:?}: {c:#}");
        for p in doc["programs_run"].as_array().unwrap() {
            let h = p["host_path"].as_str().unwrap();
            assert!(
                !p["from_root"].as_bool().unwrap() || h.starts_with(r.to_str().unwrap()),
                "{p:#}"
            );
        }
    }
}

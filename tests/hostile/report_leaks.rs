//! Issue 25, item 6. report scrubs secrets by value as well as by name.
//!
//! Each test runs `rocm-doctor report` on a copy of a fixture root with one class of secret
//! planted where the report shows it (a variable it lists, the flags that reach hipcc, the
//! sudo user's passwd entry) and asserts the secret is gone and the marker is there.

use crate::common::*;
use std::path::{Path, PathBuf};

/// What secrets are replaced with (`bugreport::redact::SECRET`).
const MARK: &str = "<redacted>";

/// A copy of the healthy gfx1030 fixture root with this `/etc/passwd`.
fn root_with_passwd(dir: &Path, passwd: &str) -> PathBuf {
    let dst = dir.join("root");
    let ok = std::process::Command::new("cp")
        .arg("-a")
        .arg(fixture("sysroots", "gfx1030-dgpu"))
        .arg(&dst)
        .status()
        .unwrap()
        .success();
    assert!(ok, "cp -a");
    std::fs::write(dst.join("etc/passwd"), passwd).unwrap();
    dst
}

/// `rocm-doctor --sysroot ROOT report EXTRA` with these variables; the Markdown, after
/// checking that the run wrote it.
fn report_with(env: &[(&str, &str)], extra: &[&str]) -> String {
    let dir = tempfile::tempdir().unwrap();
    let root = root_with_passwd(dir.path(), "root:x:0:0:root:/root:/bin/sh\n");
    let mut c = doctor();
    c.env("TMPDIR", dir.path());
    for (k, v) in env {
        c.env(k, v);
    }
    let out = c
        .arg("--sysroot")
        .arg(&root)
        .arg("report")
        .args(extra)
        .output()
        .unwrap();
    let md = String::from_utf8_lossy(&out.stdout).into_owned();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        md.contains("## Environment") || md.contains("Environment"),
        "{md}"
    );
    md
}

fn assert_scrubbed(md: &str, secrets: &[&str], marks: &[&str]) {
    for s in secrets {
        assert!(!md.contains(s), "{s:?} leaked into the report:\n{md}");
    }
    for m in marks {
        assert!(md.contains(m), "{m:?} missing from the report:\n{md}");
    }
}

#[test]
fn url_credentials_in_any_variable() {
    let md = report_with(
        &[
            ("HIP_PATH", "https://bob:s3cret@example.invalid/x"),
            ("ROCM_REPO", "git+https://ghp_tok3n@example.invalid/r.git"),
        ],
        &[],
    );
    assert_scrubbed(
        &md,
        &["s3cret", "bob:", "ghp_tok3n"],
        &[
            "https://<redacted>@example.invalid/x",
            "https://<redacted>@example.invalid/r.git",
        ],
    );
}

#[test]
fn bearer_tokens_in_a_value() {
    let md = report_with(
        &[
            ("ROCM_EXTRA_HEADER", "Bearer abc.def.ghi"),
            (
                "HIPCC_LINK_FLAGS_APPEND",
                "--header='Authorization: Basic dXNlcjpwdw=='",
            ),
        ],
        &[],
    );
    assert_scrubbed(
        &md,
        &["abc.def.ghi", "dXNlcjpwdw"],
        &["Bearer <redacted>", "Authorization: <redacted>"],
    );
}

#[test]
fn secret_definitions_in_build_flags() {
    let md = report_with(
        &[
            (
                "HIPCC_COMPILE_FLAGS_APPEND",
                "-O2 -DDB_PASS=hunter2 -DUSE_X=1",
            ),
            ("CFLAGS", "-g --password 'hunter3' -DAPI_KEY=\"hunter4\""),
        ],
        &[],
    );
    assert_scrubbed(
        &md,
        &["hunter2", "hunter3", "hunter4"],
        &[
            "-DDB_PASS=<redacted> -DUSE_X=1",
            "--password <redacted>",
            "-DAPI_KEY=<redacted>",
        ],
    );
}

#[test]
fn secret_named_variables() {
    let md = report_with(
        &[
            ("ROCM_DB_PASS", "hunter5"),
            ("HIP_AUTH_HEADER", "hunter6"),
            ("MIOPEN_S3_CREDENTIALS", "hunter7"),
        ],
        &[],
    );
    assert_scrubbed(
        &md,
        &["hunter5", "hunter6", "hunter7"],
        &[
            &format!("ROCM_DB_PASS={MARK}"),
            &format!("HIP_AUTH_HEADER={MARK}"),
        ],
    );
}

/// `--no-redact` keeps user and host names; secrets are never kept.
#[test]
fn no_redact_keeps_names_not_secrets() {
    let md = report_with(
        &[
            ("USER", "jdoe42"),
            ("HIP_PATH", "https://bob:s3cret@example.invalid/x"),
            ("HIPCC_COMPILE_FLAGS_APPEND", "-DDB_PASS=hunter2"),
            ("ROCM_CACHE", "/home/jdoe42/cache"),
        ],
        &["--no-redact"],
    );
    assert_scrubbed(
        &md,
        &["s3cret", "hunter2"],
        &["/home/jdoe42/cache", "-DDB_PASS=<redacted>"],
    );
}

/// Under sudo the real user is `SUDO_USER`/`SUDO_UID`, not `USER` (root): their name and their
/// home directory outside `/home` (from the diagnosed root's passwd) are redacted.
#[test]
fn sudo_user_and_home_outside_home() {
    let dir = tempfile::tempdir().unwrap();
    let root = root_with_passwd(
        dir.path(),
        "root:x:0:0:root:/root:/bin/sh\n\
         alice:x:4242:4242:Alice:/data/u4242x:/bin/bash\n\
         carol:x:4343:4343::/srv/people/cz:/bin/bash\n",
    );
    let out = doctor()
        .env("TMPDIR", dir.path())
        .env("USER", "root")
        .env("LOGNAME", "root")
        .env("SUDO_USER", "alice")
        .env("SUDO_UID", "4343")
        .env("HIP_CACHE_DIR", "/data/u4242x/hip-cache")
        .env("ROCM_OWNER", "alice")
        .env("MIOPEN_USER_DB_PATH", "/srv/people/cz/.config/miopen")
        .env("ROCM_PATH", "/root/rocm")
        .arg("--sysroot")
        .arg(&root)
        .arg("report")
        .output()
        .unwrap();
    let md = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_scrubbed(
        &md,
        &["alice", "u4242x", "/srv/people/cz"],
        &[
            "ROCM_OWNER=<user>",
            "HIP_CACHE_DIR=<home>/hip-cache",
            "MIOPEN_USER_DB_PATH=<home>/.config/miopen",
            // Root's home identifies no one.
            "ROCM_PATH=/root/rocm",
        ],
    );
}

/// The login uid (pam_loginuid, kept across sudo and su) names the real user too. Setting it
/// needs CAP_AUDIT_CONTROL and a loginuid not made immutable: skipped when it cannot be set.
#[test]
fn login_uid_user() {
    if !nix::unistd::geteuid().is_root() {
        eprintln!("skipped: setting /proc/self/loginuid needs root");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let root = root_with_passwd(
        dir.path(),
        "root:x:0:0:root:/root:/bin/sh\ndave:x:4545:4545::/data/dave:/bin/bash\n",
    );
    let bin = assert_cmd::cargo::cargo_bin("rocm-doctor");
    // The wrapper sets its own login uid (inherited by the doctor), then runs it.
    let out = std::process::Command::new("sh")
        .arg("-c")
        .arg("echo 4545 > /proc/self/loginuid || exit 77; exec \"$@\"")
        .arg("sh")
        .arg(&bin)
        .arg("--sysroot")
        .arg(&root)
        .arg("report")
        .env_clear()
        .env("PATH", "/usr/bin:/bin")
        .env("TMPDIR", dir.path())
        .env("USER", "root")
        .env("ROCM_NOTE", "built by dave in /data/dave/src")
        .output()
        .unwrap();
    if out.status.code() == Some(77) {
        eprintln!("skipped: cannot set /proc/self/loginuid here");
        return;
    }
    let md = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_scrubbed(&md, &["dave"], &["ROCM_NOTE=built by <user> in <home>/src"]);
}

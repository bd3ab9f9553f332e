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
        None if toolchain_required() => {
            panic!("{name} is required (ROCM_DOCTOR_REQUIRE_TOOLCHAIN=1) but not installed")
        }
        None => {
            eprintln!("skipped: {name} not installed");
            None
        }
    }
}

/// The doctor binary with a minimal, explicit environment (no inherited ROCm variables).
pub fn doctor() -> assert_cmd::Command {
    let mut c = assert_cmd::Command::cargo_bin("rocm-doctor").expect("binary built");
    c.env_clear()
        .env("PATH", "/usr/local/bin:/usr/bin:/bin")
        .env("TMPDIR", std::env::temp_dir());
    c
}

/// A fixture under `tests/fixtures/<kind>/` (`sysroots`, `toolchains`, `logs`, ...).
pub fn fixture(kind: &str, name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(kind)
        .join(name)
}

/// Runs `rocm-doctor --json ARGS` with the clean environment of [`doctor`] plus `env`, and
/// returns the one JSON document it printed and its exit code. Fails the test when the doctor
/// was killed by a signal or panicked.
pub fn run_json<I, S>(args: I, env: &[(&str, &str)]) -> (serde_json::Value, i32)
where
    I: IntoIterator<Item = S>,
    S: AsRef<std::ffi::OsStr>,
{
    let mut c = doctor();
    for (k, v) in env {
        c.env(k, v);
    }
    let out = c
        .arg("--json")
        .args(args)
        .output()
        .expect("run rocm-doctor");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        !stderr.contains("panicked"),
        "the doctor panicked:\n{stderr}"
    );
    let code = out
        .status
        .code()
        .unwrap_or_else(|| panic!("killed by a signal: {:?}\n{stderr}", out.status));
    (json_of(&out), code)
}

/// Parses stdout as the single JSON document `--json` must print.
pub fn json_of(out: &std::process::Output) -> serde_json::Value {
    let text = String::from_utf8_lossy(&out.stdout);
    serde_json::from_str(&text)
        .unwrap_or_else(|e| panic!("stdout is not one JSON document ({e}):\n{text}"))
}

/// The findings of one check in a `--json` document.
pub fn findings<'a>(doc: &'a serde_json::Value, id: &str) -> Vec<&'a serde_json::Value> {
    doc["findings"]
        .as_array()
        .map(|a| a.iter().filter(|f| f["id"] == id).collect())
        .unwrap_or_default()
}

/// Writes an executable script.
pub fn write_script(path: &Path, body: &str) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::write(path, body).unwrap();
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
}

/// Seed 001's broken set-up: the real clang-15 and an x86-64 `libunwind.so` (a copy of LLVM's
/// own) in `<dir>/unwind-lib`, for a wrapper or a flags variable to inject with
/// `-Wl,-L<dir>/unwind-lib -Wl,-lunwind`. Returns (clang, the library directory).
pub fn clang_and_x86_unwind(dir: &Path) -> Option<(PathBuf, PathBuf)> {
    let clang = need_tool("/usr/lib/llvm-15/bin/clang++")?;
    need_tool("/usr/lib/llvm-15/bin/ld.lld")?;
    let unwind = need_tool("/usr/lib/llvm-15/lib/libunwind.so.1")?;
    let libdir = dir.join("unwind-lib");
    std::fs::create_dir_all(&libdir).unwrap();
    std::fs::copy(unwind, libdir.join("libunwind.so")).unwrap();
    Some((clang, libdir))
}

/// Runs the doctor with a clean environment plus `env`, as user `nobody` when we are root (root
/// reads and writes anything, so permission cases need another user; setpriv from util-linux),
/// directly otherwise. `None` (after a skip notice) when `nobody` cannot reach the binary.
pub fn doctor_as_unprivileged(
    env: &[(&str, &std::ffi::OsStr)],
    args: &[&str],
) -> Option<serde_json::Value> {
    let bin = assert_cmd::cargo::cargo_bin("rocm-doctor");
    let is_root = nix::unistd::geteuid().is_root();
    let mut cmd = if is_root {
        let mut c = std::process::Command::new(need_tool("setpriv")?);
        c.args(["--reuid=65534", "--regid=65534", "--clear-groups"])
            .arg(&bin);
        c
    } else {
        std::process::Command::new(&bin)
    };
    cmd.env_clear()
        .env("PATH", "/usr/bin:/bin")
        .env("TMPDIR", "/tmp");
    for (k, v) in env {
        cmd.env(k, v);
    }
    let out = cmd.args(args).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    if is_root && text.trim().is_empty() {
        eprintln!(
            "skipped: the binary is not reachable as nobody: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        return None;
    }
    Some(serde_json::from_str(&text).unwrap_or_else(|e| panic!("not JSON ({e}): {text}")))
}

/// A directory `<tmp>/name` with `mode`, under a world-traversable parent.
pub fn dir_with_mode(t: &Path, name: &str, mode: u32) -> PathBuf {
    use std::os::unix::fs::PermissionsExt;
    let d = t.join(name);
    std::fs::create_dir(&d).unwrap();
    std::fs::set_permissions(t, std::fs::Permissions::from_mode(0o755)).unwrap();
    std::fs::set_permissions(&d, std::fs::Permissions::from_mode(mode)).unwrap();
    d
}

/// A temporary directory for pack files whose whole path passes the pack trust rule
/// (docs/security.md, section 1): under the target directory rather than the shared, sticky
/// `/tmp` (which the rule refuses), mode 0755, owned by whoever runs the tests.
pub fn pack_dir() -> tempfile::TempDir {
    use std::os::unix::fs::PermissionsExt;
    let base = Path::new(env!("CARGO_TARGET_TMPDIR")).join("packs");
    std::fs::create_dir_all(&base).unwrap();
    std::fs::set_permissions(&base, std::fs::Permissions::from_mode(0o755)).unwrap();
    let t = tempfile::tempdir_in(&base).unwrap();
    std::fs::set_permissions(t.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    t
}

/// The pids of live processes whose command line is exactly `sleep <secs>`.
pub fn sleepers(secs: &str) -> Vec<i32> {
    let mut found = Vec::new();
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return found;
    };
    for e in dir.flatten() {
        let Some(pid) = e.file_name().to_str().and_then(|s| s.parse::<i32>().ok()) else {
            continue;
        };
        let Ok(cmd) = std::fs::read(e.path().join("cmdline")) else {
            continue;
        };
        let args: Vec<&[u8]> = cmd.split(|&b| b == 0).filter(|a| !a.is_empty()).collect();
        let zombie = std::fs::read_to_string(e.path().join("stat"))
            .map(|s| {
                s.rsplit(')')
                    .next()
                    .unwrap_or("")
                    .trim_start()
                    .starts_with('Z')
            })
            .unwrap_or(false);
        if !zombie && args.len() == 2 && args[0].ends_with(b"sleep") && args[1] == secs.as_bytes() {
            found.push(pid);
        }
    }
    found
}

/// Copies a tree, links as links (a fixture's absolute links stay what they were).
pub fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let (src, dst) = (e.path(), to.join(e.file_name()));
        let ft = e.file_type().unwrap();
        if ft.is_symlink() {
            std::os::unix::fs::symlink(std::fs::read_link(&src).unwrap(), &dst).unwrap();
        } else if ft.is_dir() {
            copy_tree(&src, &dst);
        } else {
            std::fs::copy(&src, &dst).unwrap();
        }
    }
}

/// `rocm-doctor --json --sysroot ROOT why -` with `text` on stdin: the document (its
/// `recognised` array holds the answer). The machine tests of `why` (tests/why_machine.rs,
/// tests/corpus_machine.rs) put a fixture root in place of the machine.
pub fn why_json_on(root: &Path, text: &str) -> serde_json::Value {
    let out = doctor()
        .args(["--json", "--sysroot"])
        .arg(root)
        .args(["why", "-"])
        .write_stdin(text)
        .output()
        .unwrap();
    json_of(&out)
}

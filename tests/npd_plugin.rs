//! `--npd` against node-problem-detector's custom plugin protocol (kubernetes/node-problem-detector
//! `pkg/custompluginmonitor/plugin/plugin.go`: exit 0 OK, 1 NonOK, other Unknown; stdout trimmed
//! and cut to `max_output_length`, default 80 bytes), and the shipped contrib/npd config against
//! NPD's validation rules (`types/config.go`).

use crate::common::{doctor, write_script};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/sysroots")
        .join(name)
}

/// Runs like NPD: stdout, trimmed; exit code.
fn npd(args: &[&str]) -> (String, i32, Vec<u8>) {
    let out = doctor().args(args).output().unwrap();
    let raw = out.stdout.clone();
    (
        String::from_utf8(out.stdout).unwrap().trim().to_string(),
        out.status.code().unwrap_or(-1),
        raw,
    )
}

fn one_bounded_line(raw: &[u8], max: usize) {
    let s = std::str::from_utf8(raw).unwrap();
    assert!(s.ends_with('\n') && s.matches('\n').count() == 1, "{s:?}");
    assert!(s.trim().len() <= max, "{} bytes: {s}", s.trim().len());
}

#[test]
fn ok_nonok_unknown() {
    let mi210 = fixture("k8s-mi210x8-gfx90a-xgmi");
    let root = mi210.to_str().unwrap();
    let (msg, code, raw) = npd(&[
        "--npd",
        "--sysroot",
        root,
        "--profile",
        "runtime",
        "--only",
        "gpu.agents",
    ]);
    assert_eq!(code, 0, "{msg}");
    assert!(msg.starts_with("OK"), "{msg}");
    one_bounded_line(&raw, 80);

    let (msg, code, raw) = npd(&["--npd", "--sysroot", root, "--profile", "runtime"]);
    assert_eq!(code, 1, "{msg}");
    assert!(msg.starts_with("FAIL "), "{msg}");
    one_bounded_line(&raw, 80);

    // A usage error is Unknown (2), never NonOK: no remediation for a broken rule.
    let (_, code, _) = npd(&["--npd", "--only", "no.such-check"]);
    assert_eq!(code, 2);
}

#[test]
fn bound_is_configurable_and_cut_on_characters() {
    let root = fixture("k8s-mi300x-cpx-gfx942");
    for max in ["20", "80", "4096"] {
        let (_, _, raw) = npd(&[
            "--npd",
            "--npd-max-len",
            max,
            "--sysroot",
            root.to_str().unwrap(),
            "--profile",
            "runtime",
        ]);
        one_bounded_line(&raw, max.parse().unwrap());
    }
}

/// A check that cannot decide within the deadline is Unknown (2), and the run ends within the
/// deadline NPD's rule timeout leaves (the shipped config: --deadline 10 under a 15 s timeout).
#[test]
fn a_hanging_tool_is_unknown_within_the_deadline() {
    let t = tempfile::tempdir().unwrap();
    let hang = t.path().join("clang++");
    write_script(&hang, "#!/bin/sh\nsleep 600\n");
    let start = Instant::now();
    let (msg, code, raw) = npd(&[
        "--npd",
        "--only",
        "toolchain.clang",
        "--timeout",
        "500",
        "--deadline",
        "2",
        "--clang",
        hang.to_str().unwrap(),
    ]);
    assert_eq!(code, 2, "{msg}");
    assert!(msg.starts_with("UNKNOWN toolchain.clang"), "{msg}");
    one_bounded_line(&raw, 80);
    assert!(
        start.elapsed() < Duration::from_secs(15),
        "{:?}",
        start.elapsed()
    );
}

fn secs(v: &Value) -> f64 {
    let s = v.as_str().unwrap();
    s.strip_suffix('s').unwrap().parse().unwrap()
}

/// contrib/npd/rocm-doctor.json passes NPD's validation and each rule's args work.
#[test]
fn shipped_monitor_config_is_valid_and_runs() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("contrib/npd/rocm-doctor.json");
    let cfg: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    assert_eq!(cfg["plugin"], "custom");
    let global = secs(&cfg["pluginConfig"]["timeout"]);
    let max = cfg["pluginConfig"]["max_output_length"].as_u64().unwrap() as usize;
    let defaults: Vec<&str> = cfg["conditions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["type"].as_str().unwrap())
        .collect();
    let mi210 = fixture("k8s-mi210x8-gfx90a-xgmi");
    for rule in cfg["rules"].as_array().unwrap() {
        let timeout = secs(&rule["timeout"]);
        assert!(
            timeout <= global,
            "plugin timeout is greater than global timeout"
        );
        if rule["type"] == "permanent" {
            assert!(
                defaults.contains(&rule["condition"].as_str().unwrap()),
                "permanent problem without preset default condition"
            );
        }
        let mut args: Vec<String> = rule["args"]
            .as_array()
            .unwrap()
            .iter()
            .map(|a| a.as_str().unwrap().to_string())
            .collect();
        let d = args.iter().position(|a| a == "--deadline").unwrap();
        assert!(
            args[d + 1].parse::<f64>().unwrap() < timeout,
            "the doctor must end before NPD kills it"
        );
        // Run it as NPD would, with the fixture in place of /host.
        let s = args.iter().position(|a| a == "/host").unwrap();
        args[s] = mi210.to_str().unwrap().to_string();
        let refs: Vec<&str> = args.iter().map(String::as_str).collect();
        let (msg, code, raw) = npd(&refs);
        assert!(code == 0 || code == 1, "{msg}");
        one_bounded_line(&raw, max);
    }
}

/// A usage error in `--npd` mode prints NPD's one line on stdout (the condition's message),
/// exit 2 (Unknown): clap's refusals and the doctor's own alike.
#[test]
fn usage_error_prints_the_unknown_line() {
    let t = tempfile::tempdir().unwrap();
    let root = t.path().to_str().unwrap();
    for (args, words) in [
        (
            vec!["--npd", "--only", "no.such-check"],
            "no check matches 'no.such-check'",
        ),
        (
            vec!["--npd", "--host-root", root, "--sysroot", root],
            "cannot be used with",
        ),
        (vec!["--npd", "--no-such-flag"], "unexpected argument"),
        (
            vec!["--npd", "--host-root", "/nonexistent/host"],
            "--host-root /nonexistent/host: not a directory",
        ),
    ] {
        let (msg, code, raw) = npd(&args);
        assert_eq!(code, 2, "{args:?}: {msg}");
        assert!(msg.starts_with("UNKNOWN usage: "), "{msg}");
        assert!(msg.contains(words), "{msg}");
        one_bounded_line(&raw, 80);
    }
    // The bound applies to it too.
    let (msg, code, raw) = npd(&["--npd", "--npd-max-len", "24", "--only", "no.such-check"]);
    assert_eq!(code, 2);
    assert!(msg.starts_with("UNKNOWN usage"), "{msg}");
    one_bounded_line(&raw, 24);
    // Without --npd, stdout stays empty.
    let (msg, code, _) = npd(&["--only", "no.such-check"]);
    assert_eq!((msg.as_str(), code), ("", 2));
}

/// The line is ASCII (NPD cuts it by bytes): a finding whose summary carries non-ASCII text (a
/// path under a non-ASCII directory, the doctor's own punctuation) still gives ASCII, and every
/// byte prefix of it is valid UTF-8.
#[test]
fn npd_line_is_ascii() {
    let t = tempfile::tempdir().unwrap();
    let dir = t.path().join("jürgen—ROCm·6");
    std::fs::create_dir_all(&dir).unwrap();
    let missing = dir.join("clang++");
    let (msg, code, raw) = npd(&[
        "--npd",
        "--npd-max-len",
        "4096",
        "--only",
        "toolchain.clang",
        "--clang",
        missing.to_str().unwrap(),
    ]);
    assert!(code == 1 || code == 2, "{msg}");
    assert!(raw.is_ascii(), "{msg}");
    assert!(msg.contains("j?rgen-ROCm-6"), "{msg}");
    for cut in 0..raw.len() {
        assert!(std::str::from_utf8(&raw[..cut]).is_ok());
    }
}

/// The NPD rules under `--host-root` on a host tree without GPU devices for this process:
/// gpu.kfd is judged live (a failure, not "not described by this fixture"), so the condition
/// goes True on a node whose pod cannot open the GPU.
#[test]
fn host_root_rule_judges_devices_in_the_pod() {
    if std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open("/dev/kfd")
        .is_ok()
    {
        eprintln!("skipped: this machine opens /dev/kfd; the case needs a process without a GPU");
        return;
    }
    let t = tempfile::tempdir().unwrap();
    let src = fixture("k8s-mi210x8-gfx90a-xgmi");
    let status = std::process::Command::new("cp")
        .arg("-r")
        .arg(src.join("sys"))
        .arg(t.path())
        .status()
        .unwrap();
    assert!(status.success());
    let root = t.path().to_str().unwrap();
    let (msg, code, raw) = npd(&[
        "--npd",
        "--host-root",
        root,
        "--profile",
        "runtime",
        "--only",
        "gpu.kfd",
    ]);
    assert_eq!(code, 1, "{msg}");
    assert!(msg.starts_with("FAIL gpu.kfd"), "{msg}");
    assert!(!msg.contains("fixture"), "{msg}");
    one_bounded_line(&raw, 80);
    // The same tree as a fixture: the nodes are not described, nothing fails.
    let (msg, code, _) = npd(&[
        "--npd",
        "--sysroot",
        root,
        "--profile",
        "runtime",
        "--only",
        "gpu.kfd",
    ]);
    assert_eq!(code, 0, "{msg}");
}

/// The shipped DaemonSet gives the doctor what `--host-root /host` reads: the host's whole
/// root read-only at /host (ld.so.conf included, issue 20), a privileged pod (the devices in
/// its own /dev), and the rules use `--host-root`, never `--sysroot` (a fixture).
#[test]
fn shipped_daemonset_mounts_the_host_root() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("contrib/npd");
    let ds = std::fs::read_to_string(dir.join("daemonset.yaml")).unwrap();
    assert!(ds.contains("hostPath: {path: /, type: Directory}"), "{ds}");
    assert!(ds.contains("mountPath: /host, readOnly: true"), "{ds}");
    assert!(ds.contains("privileged: true"), "{ds}");
    let cfg = std::fs::read_to_string(dir.join("rocm-doctor.json")).unwrap();
    assert_eq!(
        cfg.matches("\"--host-root\", \"/host\"").count(),
        3,
        "{cfg}"
    );
    assert!(!cfg.contains("--sysroot"), "{cfg}");
}

#[test]
fn a_usage_error_is_npd_s_line_only_for_the_runs_npd_reads() {
    // The default run (and `why`, `report`, `explain`) under --npd also prints NPD's one line on
    // stdout; `ps` and `inspect` are not NPD plugins: their usage errors go to stderr only.
    let out = doctor()
        .args(["--npd", "--isa", "gfx9999x"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.starts_with("UNKNOWN usage: --isa"), "{stdout}");
    for sub in [&["ps"][..], &["inspect", "/bin/true"]] {
        let out = doctor()
            .args(["--npd", "--isa", "gfx9999x"])
            .args(sub)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{sub:?}");
        assert!(out.stdout.is_empty(), "{sub:?}: {:?}", out.stdout);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            stderr.starts_with("rocm-doctor: --isa"),
            "{sub:?}: {stderr}"
        );
    }
}

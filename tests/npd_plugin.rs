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

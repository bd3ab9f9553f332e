//! The shipped NPD rules under a real node-problem-detector (issue 20 item 5): runs only when
//! `ROCM_DOCTOR_NPD_BIN` names an NPD binary (`scripts/build-npd.sh`; CI cannot fetch NPD's
//! source, so this test skips with a notice otherwise, even under ROCM_DOCTOR_REQUIRE_TOOLCHAIN).
//!
//! NPD runs contrib/npd/rocm-doctor.json's rules (paths pointed at the test build and a host
//! tree: a GPU node's sysfs, /opt/rocm libraries, /etc/ld.so.conf.d but no /etc/ld.so.conf, the
//! DaemonSet's old mounts), exporters: Kubernetes off, Prometheus on 127.0.0.1. Observed in its
//! log ("Node condition X is now: ...") and in its metrics (`problem_gauge`, `problem_counter`):
//! ROCmRuntimeProblem True while ld.so.conf is missing and False once it is there; a rule with
//! a misspelt check id is Unknown with the doctor's `UNKNOWN usage:` line as its message;
//! ROCmGPUProblem True when this process has no /dev/kfd (judged live under --host-root).

use serde_json::Value;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

struct Npd(Child);
impl Drop for Npd {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

fn http_get(port: u16, path: &str) -> String {
    let Ok(mut s) = std::net::TcpStream::connect(("127.0.0.1", port)) else {
        return String::new();
    };
    let _ = write!(s, "GET {path} HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n");
    let mut out = String::new();
    let _ = s.read_to_string(&mut out);
    out
}

/// Waits until `log` holds `needle` (NPD logs each transition as it generates it).
fn wait_for(log: &Path, needle: &str, limit: Duration) -> String {
    let start = Instant::now();
    loop {
        let text = std::fs::read_to_string(log).unwrap_or_default();
        if text.contains(needle) {
            return text;
        }
        assert!(
            start.elapsed() < limit,
            "NPD did not log {needle:?} within {limit:?}:\n{}",
            text.lines().rev().take(30).collect::<Vec<_>>().join("\n")
        );
        std::thread::sleep(Duration::from_millis(200));
    }
}

fn metric(text: &str, prefix: &str) -> Option<f64> {
    text.lines()
        .find(|l| l.starts_with(prefix))
        .and_then(|l| l.rsplit(' ').next()?.parse().ok())
}

#[test]
fn real_npd_sets_the_conditions() {
    let Some(npd_bin) = std::env::var_os("ROCM_DOCTOR_NPD_BIN").map(PathBuf::from) else {
        eprintln!(
            "skipped: ROCM_DOCTOR_NPD_BIN is not set (build NPD with scripts/build-npd.sh; \
             CI cannot fetch its source)"
        );
        return;
    };
    let t = tempfile::tempdir().unwrap();
    let host = t.path().join("host");
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/sysroots");
    std::fs::create_dir_all(&host).unwrap();
    let copied = Command::new("cp")
        .arg("-r")
        .arg(src.join("k8s-mi210x8-gfx90a-xgmi/sys"))
        .arg(&host)
        .status()
        .unwrap();
    assert!(copied.success());
    let lib = host.join("opt/rocm-6.2.2/lib");
    std::fs::create_dir_all(&lib).unwrap();
    std::fs::create_dir_all(host.join("etc/ld.so.conf.d")).unwrap();
    std::os::unix::fs::symlink("/opt/rocm-6.2.2", host.join("opt/rocm")).unwrap();
    std::fs::write(host.join("etc/ld.so.conf.d/rocm.conf"), "/opt/rocm/lib\n").unwrap();
    for l in [
        "libamdhip64.so.6",
        "libhsa-runtime64.so.1",
        "libamd_comgr.so.2",
    ] {
        std::fs::write(lib.join(l), b"\x7fELF").unwrap();
    }

    // The shipped config, pointed at the test build and the tree; a third rule misspells a
    // check id; NPD's own cut (60 bytes) below the doctor's bound (80).
    let shipped = Path::new(env!("CARGO_MANIFEST_DIR")).join("contrib/npd/rocm-doctor.json");
    let mut cfg: Value = serde_json::from_str(&std::fs::read_to_string(shipped).unwrap()).unwrap();
    let doctor = env!("CARGO_BIN_EXE_rocm-doctor");
    cfg["pluginConfig"]["invoke_interval"] = "1s".into();
    cfg["pluginConfig"]["max_output_length"] = 60.into();
    for r in cfg["rules"].as_array_mut().unwrap() {
        r["path"] = doctor.into();
        for a in r["args"].as_array_mut().unwrap() {
            if a == "/host" {
                *a = host.to_str().unwrap().into();
            }
        }
    }
    cfg["conditions"]
        .as_array_mut()
        .unwrap()
        .push(serde_json::json!(
            {"type": "ROCmUsageProbe", "reason": "ROCmUsageOK", "message": "usage probe"}
        ));
    cfg["rules"]
        .as_array_mut()
        .unwrap()
        .push(serde_json::json!({
            "type": "permanent", "condition": "ROCmUsageProbe", "reason": "ROCmUsageBad",
            "path": doctor, "args": ["--npd", "--host-root", host, "--only", "gpu.kdf"],
            "timeout": "15s"
        }));
    let cfg_path = t.path().join("npd.json");
    std::fs::write(&cfg_path, serde_json::to_string_pretty(&cfg).unwrap()).unwrap();

    let (prom, port) = (free_port(), free_port());
    let log = t.path().join("npd.log");
    let _npd = Npd(Command::new(&npd_bin)
        .args([
            "--logtostderr",
            "--v=3",
            "--enable-k8s-exporter=false",
            "--hostname-override=gpu-node-1",
            "--address=127.0.0.1",
            "--prometheus-address=127.0.0.1",
        ])
        .arg(format!("--port={port}"))
        .arg(format!("--prometheus-port={prom}"))
        .arg(format!(
            "--config.custom-plugin-monitor={}",
            cfg_path.display()
        ))
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(std::fs::File::create(&log).unwrap())
        .spawn()
        .expect("start NPD"));

    let limit = Duration::from_secs(30);
    let text = wait_for(
        &log,
        "Node condition ROCmRuntimeProblem is now: True, reason: ROCmRuntimeIsDown, message: \"FAIL runtime.libraries",
        limit,
    );
    // The repair action is in the condition's message, before NPD's cut.
    let runtime = text
        .lines()
        .find(|l| l.contains("ROCmRuntimeIsDown, message: \"FAIL runtime.libraries"))
        .unwrap();
    assert!(runtime.contains(" action=fix-config: "), "{runtime}");
    let text = wait_for(
        &log,
        "Node condition ROCmUsageProbe is now: Unknown, reason: ROCmUsageOK, message: \"UNKNOWN usage: no check matches 'gpu.kdf'",
        limit,
    );
    let kfd_opens = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open("/dev/kfd")
        .is_ok();
    if !kfd_opens {
        wait_for(
            &log,
            "Node condition ROCmGPUProblem is now: True, reason: ROCmGPUIsDown, message: \"FAIL gpu.",
            limit,
        );
    }
    // NPD's 60-byte cut of the doctor's ASCII line: the message is valid (NPD logs it as is).
    let msg = text
        .lines()
        .find_map(|l| l.split("message: \"").nth(1))
        .unwrap()
        .split('"')
        .next()
        .unwrap();
    assert!(msg.len() <= 60 && msg.is_ascii(), "{msg}");

    let metrics = http_get(prom, "/metrics");
    assert_eq!(
        metric(
            &metrics,
            "problem_gauge{reason=\"ROCmRuntimeIsDown\",type=\"ROCmRuntimeProblem\"}"
        ),
        Some(1.0),
        "{metrics}"
    );

    // The DaemonSet's fix: /etc/ld.so.conf is there now; the condition goes back to False.
    std::fs::write(
        host.join("etc/ld.so.conf"),
        "include /etc/ld.so.conf.d/*.conf\n",
    )
    .unwrap();
    wait_for(
        &log,
        "Node condition ROCmRuntimeProblem is now: False, reason: ROCmRuntimeIsUp",
        limit,
    );
    let metrics = http_get(prom, "/metrics");
    assert_eq!(
        metric(
            &metrics,
            "problem_gauge{reason=\"ROCmRuntimeIsDown\",type=\"ROCmRuntimeProblem\"}"
        ),
        Some(0.0),
        "{metrics}"
    );
    assert_eq!(
        metric(&metrics, "problem_counter{reason=\"ROCmRuntimeIsDown\"}"),
        Some(1.0),
        "{metrics}"
    );
    // Unknown is neither a problem nor counted: no remediation for a broken rule.
    assert_eq!(
        metric(&metrics, "problem_counter{reason=\"ROCmUsageBad\"}"),
        Some(0.0),
        "{metrics}"
    );
}

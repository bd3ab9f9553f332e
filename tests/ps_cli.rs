//! `rocm-doctor ps`: a fixture tree (tests/fixtures/sysroots/ps-kfd-container/SOURCE.md) and a
//! real process holding a real /dev/kfd file descriptor in a private mount namespace.

use crate::common::{doctor, json_of};
use std::path::PathBuf;

fn fixture() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/sysroots/ps-kfd-container")
}

#[test]
fn fixture_container_process_vram_and_other_namespace() {
    let out = doctor()
        .args(["ps", "--json", "--sysroot"])
        .arg(fixture())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let doc = json_of(&out);
    let ps = &doc["ps"];
    let procs = ps["processes"].as_array().unwrap();
    assert_eq!(procs.len(), 1, "{doc}");
    let p = &procs[0];
    assert_eq!(p["pid"], 4242);
    assert_eq!(p["user"], "alice");
    assert_eq!(p["ns_pid"], 17);
    assert_eq!(p["cmdline"], "python3 train.py --gpus 8");
    assert!(p["container"].as_str().unwrap().contains("docker"));
    // fd 4 and 5 are one DRM client: 512 MiB once, not twice.
    assert_eq!(p["vram_kib"], 524288);
    assert_eq!(p["kfd_vram_bytes"]["51234"], 536870912u64);
    assert_eq!(p["kfd_queues"], 1);
    assert_eq!(ps["unseen"]["kfd_not_in_proc"][0], 777001);
    assert_eq!(ps["unseen"]["kfd_not_in_proc_vram_bytes"], 1073741824u64);
    assert_eq!(ps["unseen"]["kfd_not_in_proc_queues"], 1);
    let text = doctor()
        .args(["ps", "--sysroot"])
        .arg(fixture())
        .output()
        .unwrap();
    let t = String::from_utf8_lossy(&text.stdout);
    assert!(
        t.contains("another PID namespace") && t.contains("lsof"),
        "{t}"
    );
}

#[test]
fn no_gpu_machine_is_an_empty_listing() {
    let t = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(t.path().join("proc/1/fd")).unwrap();
    let out = doctor()
        .args(["ps", "--sysroot"])
        .arg(t.path())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&out.stdout).contains("no process holds"));
}

/// A child keeps a real fd on /dev/kfd open (a file on a private tmpfs /dev, in a private mount
/// namespace made by `unshare --mount`), and `rocm-doctor ps` inside that namespace finds it.
#[test]
fn real_process_holding_dev_kfd_in_a_private_namespace() {
    if !nix::unistd::getuid().is_root() || which::which("unshare").is_err() {
        eprintln!("skipped: needs root and unshare");
        return;
    }
    let bin = assert_cmd::cargo::cargo_bin("rocm-doctor");
    let script = format!(
        "set -e; mount -t tmpfs none /dev; mknod -m 666 /dev/null c 1 3; : > /dev/kfd; \
         sleep 30 3</dev/kfd & child=$!; sleep 0.2; \
         {bin} ps --json; echo \"CHILD=$child\"; \
         if command -v setpriv >/dev/null; then echo NOBODY; setpriv --reuid=65534 --regid=65534 --clear-groups {bin} ps --json || true; fi; \
         kill $child",
        bin = bin.display()
    );
    let out = std::process::Command::new("timeout")
        .args([
            "60",
            "unshare",
            "--mount",
            "--propagation",
            "private",
            "sh",
            "-c",
            &script,
        ])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    if !out.status.success() {
        eprintln!(
            "skipped: unshare/mount not permitted here: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        return;
    }
    let (json, tail) = text.rsplit_once("CHILD=").unwrap();
    let (child, nobody) = tail.split_once("NOBODY").unwrap_or((tail, ""));
    let child: u32 = child.trim().parse().unwrap();
    let doc: serde_json::Value = serde_json::from_str(json).unwrap();
    let procs = doc["ps"]["processes"].as_array().unwrap();
    let p = procs
        .iter()
        .find(|p| p["pid"] == child)
        .unwrap_or_else(|| panic!("child {child} not listed: {doc}"));
    assert_eq!(p["devices"][0], "/dev/kfd");
    assert!(p["cmdline"].as_str().unwrap().starts_with("sleep 30"));
    // As nobody, root's child is not readable: reported as unseen with its errno, not dropped.
    if let Ok(doc) = serde_json::from_str::<serde_json::Value>(nobody.trim()) {
        let ps = &doc["ps"];
        assert_eq!(ps["unseen"]["not_root"], true, "{doc}");
        assert!(
            ps["unseen"]["unreadable"]
                .as_array()
                .unwrap()
                .iter()
                .any(|u| u[0] == child && u[1] == "EACCES"),
            "{doc}"
        );
        assert!(ps["notes"].to_string().contains("root or CAP_SYS_PTRACE"));
    } else {
        eprintln!("skipped the unprivileged half: the binary is not reachable as nobody");
    }
}

/// Inside a container KFD's entries carry host pids while /proc carries the container's: the
/// process is tied to its entry by PASID, and the host process that shares its number is not
/// (tests/fixtures/sysroots/ps-in-container/SOURCE.md).
#[test]
fn inside_a_container_kfd_entries_join_by_pasid_not_pid() {
    let root =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/sysroots/ps-in-container");
    let out = doctor()
        .args(["ps", "--json", "--sysroot"])
        .arg(&root)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let doc = json_of(&out);
    let ps = &doc["ps"];
    let procs = ps["processes"].as_array().unwrap();
    assert_eq!(procs.len(), 1, "{doc}");
    let p = &procs[0];
    assert_eq!(p["pid"], 17);
    assert_eq!(p["kfd_pid"], 4242);
    assert_eq!(p["kfd_match"], "pasid");
    // The VRAM of host pid 4242 (512 MiB), not that of host pid 17 (256 MiB).
    assert_eq!(p["kfd_vram_bytes"]["51234"], 536870912u64);
    assert_eq!(ps["unseen"]["kfd_not_in_proc"], serde_json::json!([17]));
    assert_eq!(ps["unseen"]["kfd_not_in_proc_vram_bytes"], 268435456u64);
    let text = doctor()
        .args(["ps", "--sysroot"])
        .arg(&root)
        .output()
        .unwrap();
    let t = String::from_utf8_lossy(&text.stdout);
    assert!(
        t.contains("host pid 4242 (KFD entry matched by pasid)"),
        "{t}"
    );
}

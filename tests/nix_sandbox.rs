//! rocm-doctor in a real Nix build sandbox, the way a derivation's checkPhase runs it: no HOME,
//! no /dev/kfd, no network, a read-only store. The toolchain is exposed with
//! `extra-sandbox-paths`. It must exit 0 with `--profile build` and print valid JSON.

use crate::common::*;
use std::path::Path;

#[test]
fn runs_in_a_nix_sandbox_as_a_check_phase() {
    let Some(nix_build) = need_tool("nix-build") else {
        return;
    };
    let Some(_) = need_tool("clang++-15") else {
        return;
    };
    let bin = assert_cmd::cargo::cargo_bin("rocm-doctor");
    let t = tempfile::tempdir().unwrap();
    let nonce = format!(
        "{}-{}",
        std::process::id(),
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_nanos()
    );
    // builtins only: no nixpkgs. The builder is the host's /bin/sh, exposed read-only.
    let expr = format!(
        r#"derivation {{
  name = "rocm-doctor-check";
  system = builtins.currentSystem;
  nonce = "{nonce}";
  builder = "/bin/sh";
  args = [ "-c" "export PATH=/usr/bin:/bin; mkdir -p $out; if [ -e /dev/kfd ]; then echo kfd >&2; exit 3; fi; {bin} --profile build --json > $out/report.json; echo $? > $out/rc; exit 0" ];
}}"#,
        bin = bin.display()
    );
    let file = t.path().join("check.nix");
    std::fs::write(&file, expr).unwrap();
    let bin_dir = bin.parent().unwrap();
    let sandbox_paths = format!(
        "/bin /usr /lib /lib64 /etc/ld.so.cache /etc/ld.so.conf /etc/ld.so.conf.d {}",
        bin_dir.display()
    );
    let out = std::process::Command::new(nix_build)
        .arg(&file)
        .args([
            "--no-out-link",
            "--option",
            "sandbox",
            "true",
            "--option",
            "substituters",
            "",
            "--option",
            "build-users-group",
            "",
        ])
        .args(["--option", "extra-sandbox-paths", &sandbox_paths])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "nix-build failed:\n{stderr}");
    let store_path = String::from_utf8_lossy(&out.stdout)
        .trim()
        .lines()
        .last()
        .unwrap()
        .to_string();
    let rc = std::fs::read_to_string(Path::new(&store_path).join("rc")).unwrap();
    let report = std::fs::read_to_string(Path::new(&store_path).join("report.json")).unwrap();
    let doc: serde_json::Value =
        serde_json::from_str(&report).unwrap_or_else(|e| panic!("not JSON ({e}): {report}"));
    assert_eq!(rc.trim(), "0", "the checkPhase run must pass: {doc:#}");
    assert_eq!(doc["profile"], "build");
    // The toolchain was judged for real inside the sandbox, not skipped.
    let clang = doc["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["id"] == "toolchain.clang")
        .unwrap();
    assert_eq!(clang["status"], "pass", "{clang:#}");
    assert!(doc["findings"]
        .as_array()
        .unwrap()
        .iter()
        .all(|f| f["status"] != "fail"));
}

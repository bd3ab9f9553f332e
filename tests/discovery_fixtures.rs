//! Hermetic discovery tests on fixture sysroots (tests/fixtures/toolchains, see SOURCE.md).

use crate::common::*;
use serde_json::Value;

fn fixture(name: &str) -> String {
    crate::common::fixture("toolchains", name)
        .to_string_lossy()
        .into_owned()
}

fn roots(sysroot: &str, env: &[(&str, &str)]) -> Value {
    let env: Vec<(&str, &str)> = std::iter::once(("PATH", "/usr/bin:/bin"))
        .chain(env.iter().copied())
        .collect();
    run_json(
        [
            "--sysroot",
            sysroot,
            "--only",
            "toolchain.rocm-root,toolchain.env",
        ],
        &env,
    )
    .0
}

#[test]
fn opt_rocm_versioned_layout() {
    let doc = roots(&fixture("opt-rocm-6.2.2"), &[]);
    let r = &doc["inventory"]["rocm_roots"];
    let first = &r[0];
    assert_eq!(first["path"], "/opt/rocm", "{r:#}");
    assert_eq!(first["canonical"], "/opt/rocm-6.2.2");
    assert_eq!(first["layout"], "opt-rocm");
    assert_eq!(first["versions"]["rocm"]["version"], "6.2.2");
    assert_eq!(first["versions"]["hip"]["version"], "6.2.41134");
    let srcs: Vec<&str> = first["sources"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s.as_str().unwrap())
        .collect();
    assert!(
        srcs.contains(&"/opt/rocm") && srcs.contains(&"/opt/rocm-6.2.2"),
        "{srcs:?}"
    );
    assert_eq!(
        first["parts"]["bitcode_dirs"][0],
        "/opt/rocm-6.2.2/lib/llvm/lib/clang/18/lib/amdgcn/bitcode"
    );
    assert_eq!(first["parts"]["hipcc"], "/opt/rocm-6.2.2/bin/hipcc");
    assert_eq!(r.as_array().unwrap().len(), 1, "one root, two names");
    let rr = doc["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["id"] == "toolchain.rocm-root")
        .unwrap();
    assert_eq!(rr["status"], "pass", "{rr:#}");
}

#[test]
fn therock_layout_from_rocm_path() {
    let doc = roots(
        &fixture("therock"),
        &[("ROCM_PATH", "/home/user/therock-tarball/install")],
    );
    let first = &doc["inventory"]["rocm_roots"][0];
    assert_eq!(first["layout"], "the-rock", "{first:#}");
    assert_eq!(first["sources"][0], "ROCM_PATH");
    assert_eq!(first["versions"]["hip"]["version"], "7.0.51830");
    assert_eq!(
        first["parts"]["bitcode_dirs"][0],
        "/home/user/therock-tarball/install/lib/llvm/amdgcn/bitcode"
    );
}

#[test]
fn nix_symlink_join_and_split_store_paths() {
    let joined = "/nix/store/cccccccccccccccccccccccccccccccc-rocm-path";
    let doc = roots(
        &fixture("nix-split"),
        &[
            ("ROCM_PATH", joined),
            (
                "HIP_DEVICE_LIB_PATH",
                "/nix/store/aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa-rocm-device-libs-6.0.2/amdgcn/bitcode",
            ),
        ],
    );
    let roots = doc["inventory"]["rocm_roots"].as_array().unwrap();
    assert_eq!(roots[0]["path"], joined);
    assert_eq!(roots[0]["layout"], "nix-joined", "{roots:#?}");
    // Links inside the join resolve inside the sysroot.
    assert_eq!(
        roots[0]["parts"]["bitcode_dirs"][0],
        format!("{joined}/amdgcn/bitcode")
    );
    assert_eq!(roots[0]["versions"]["hip"]["version"], "6.0.32831");
    let split = roots
        .iter()
        .find(|r| r["sources"][0] == "HIP_DEVICE_LIB_PATH")
        .expect("device-libs store path is a root");
    assert_eq!(split["layout"], "nix-split");
    let env = doc["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["id"] == "toolchain.env")
        .unwrap();
    assert_eq!(env["status"], "pass", "{env:#}");
}

#[test]
fn an_empty_sysroot_fails_cleanly_without_cascades() {
    let t = tempfile::tempdir().unwrap();
    let out = doctor()
        .env("PATH", "/usr/bin:/bin")
        .args(["--json", "--sysroot"])
        .arg(t.path())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let doc = json_of(&out);
    let by_status = |s: &str| {
        doc["findings"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|f| f["status"] == s)
            .map(|f| f["id"].as_str().unwrap().to_string())
            .collect::<Vec<_>>()
    };
    let fails = by_status("fail");
    // The root causes fail; checks that depend on clang skip instead of piling on.
    assert!(
        fails.contains(&"toolchain.rocm-root".to_string())
            && fails.contains(&"toolchain.clang".to_string()),
        "{fails:?}"
    );
    for dependent in [
        "toolchain.resource-dir",
        "toolchain.lld",
        "toolchain.link",
        "toolchain.device-libs",
    ] {
        assert!(
            by_status("skip").contains(&dependent.to_string()),
            "{dependent} should skip: {doc:#}"
        );
    }
    assert!(by_status("error").is_empty(), "{doc:#}");
}

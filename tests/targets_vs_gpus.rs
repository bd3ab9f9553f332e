//! Build targets from the environment against the GPUs present (fixture sysroots), and the quiet
//! one-line view of a category whose checks all skipped.

use crate::common::*;

fn fixture(name: &str) -> std::path::PathBuf {
    crate::common::fixture("sysroots", name)
}

fn targets_doc(targets: &str, profile: &str) -> (serde_json::Value, i32) {
    let root = fixture("gfx1036-igpu-gfx1031-dgpu");
    run_json(
        [
            "--sysroot",
            root.to_str().unwrap(),
            "--only",
            "targets.",
            "--profile",
            profile,
        ],
        &[("AMDGPU_TARGETS", targets)],
    )
}

#[test]
fn build_targets_missing_a_present_gpu_warn_and_fail_under_runtime() {
    let (doc, code) = targets_doc("gfx90a;gfx1030", "auto");
    let f = findings(&doc, "targets.isa");
    let warns: Vec<_> = f.iter().filter(|x| x["status"] == "warn").collect();
    assert_eq!(warns.len(), 2, "gfx1036 and gfx1031 are missed: {f:#?}");
    assert_eq!(code, 0, "a warning does not fail the run");
    let fix = &warns[1]["fix"];
    // One value covering every GPU, and the sibling workaround for gfx1031 (gfx1030 is built).
    assert_eq!(
        fix["env"]["AMDGPU_TARGETS"],
        "gfx90a;gfx1030;gfx1036;gfx1031"
    );
    assert!(
        fix["text"]
            .as_str()
            .unwrap()
            .contains("HSA_OVERRIDE_GFX_VERSION=10.3.0"),
        "{fix:#}"
    );

    let (doc, code) = targets_doc("gfx90a;gfx1030", "runtime");
    assert_eq!(code, 1);
    let fails = findings(&doc, "targets.isa")
        .into_iter()
        .filter(|x| x["status"] == "fail")
        .count();
    assert_eq!(fails, 2);
}

#[test]
fn build_targets_covering_every_gpu_pass() {
    // gfx10-3-generic covers both RDNA2 GPUs under the runtime's generic-target rules.
    for targets in ["gfx1031;gfx1036", "gfx10-3-generic"] {
        let (doc, code) = targets_doc(targets, "runtime");
        let f = findings(&doc, "targets.isa");
        assert!(f.iter().all(|x| x["status"] == "pass"), "{targets}: {f:#?}");
        assert_eq!(
            f.iter()
                .filter(|x| x["summary"].as_str().unwrap().contains("covers the GPU"))
                .count(),
            2,
            "{targets}: {f:#?}"
        );
        assert_eq!(code, 0);
    }
}

#[test]
fn explicit_isa_is_not_judged_against_the_gpus() {
    let out = doctor()
        .arg("--sysroot")
        .arg(fixture("gfx1036-igpu-gfx1031-dgpu"))
        .args(["--only", "targets.", "--json", "--isa", "gfx90a"])
        .output()
        .unwrap();
    let doc = json_of(&out);
    assert!(findings(&doc, "targets.isa")
        .iter()
        .all(|x| x["status"] == "pass"));
}

#[test]
fn a_category_that_only_skips_is_one_line() {
    // No KFD topology in an empty root: every GPU check skips.
    let t = tempfile::tempdir().unwrap();
    let out = doctor()
        .arg("--sysroot")
        .arg(t.path())
        .args(["--only", "gpu.", "--color", "never"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    let gpu: Vec<&str> = text.lines().filter(|l| l.contains("gpu")).collect();
    assert_eq!(gpu.len(), 1, "{text}");
    assert!(
        gpu[0].starts_with("[-] gpu: ") && gpu[0].ends_with("checks skipped"),
        "{text}"
    );
    // -v shows every check.
    let out = doctor()
        .arg("--sysroot")
        .arg(t.path())
        .args(["--only", "gpu.", "--color", "never", "-v"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.lines().filter(|l| l.contains("[gpu.")).count() >= 8,
        "{text}"
    );
}

//! `gpu.layers` through the binary: the `gpu_layers` section of `--json`, `--expect-gpus`, the
//! kernel log's word on a lost GPU, and the PCI files absent, unreadable (as `nobody`) and
//! refused as unsupported. The judging rows are `src/checks/gpu/tests.rs` (`layers_table`).

use crate::common::{copy_tree, doctor_as_unprivileged, findings, fixture, run_json};
use serde_json::Value;
use std::path::{Path, PathBuf};

fn sysroot(name: &str) -> PathBuf {
    fixture("sysroots", name)
}

fn layers_of(root: &Path, extra: &[&str]) -> (Value, i32) {
    let mut args = vec![
        "--sysroot".to_string(),
        root.to_str().unwrap().to_string(),
        "--only".into(),
        "gpu.layers".into(),
    ];
    args.extend(extra.iter().map(|s| s.to_string()));
    run_json(args, &[])
}

/// `[gpus per layer]` of the `gpu_layers` section (-1 for a layer not observed).
fn counts(doc: &Value) -> Vec<i64> {
    doc["gpu_layers"]["counts"]
        .as_array()
        .expect("gpu_layers.counts")
        .iter()
        .map(|c| {
            if c["observed"] == true {
                c["gpus"].as_i64().unwrap()
            } else {
                -1
            }
        })
        .collect()
}

fn gpu<'a>(doc: &'a Value, pci: &str) -> &'a Value {
    doc["gpu_layers"]["gpus"]
        .as_array()
        .unwrap()
        .iter()
        .find(|g| g["pci"] == pci)
        .unwrap_or_else(|| panic!("{pci} not in {:#}", doc["gpu_layers"]))
}

/// A writable copy of a fixture under a world-traversable temporary directory.
fn copy_of(name: &str) -> (tempfile::TempDir, PathBuf) {
    use std::os::unix::fs::PermissionsExt;
    let t = tempfile::tempdir().unwrap();
    std::fs::set_permissions(t.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    let root = t.path().join("root");
    copy_tree(&sysroot(name), &root);
    (t, root)
}

#[test]
fn json_names_each_lost_gpu_and_its_layer() {
    let (doc, code) = layers_of(&sysroot("layers-mi210x8-lost"), &[]);
    assert_eq!(code, 1, "{doc:#}");
    assert_eq!(counts(&doc), [8, 6, 6, 5, 4, 4]);
    let lost = |pci: &str| {
        let l = &gpu(&doc, pci)["lost"];
        (
            l["layer"].as_str().unwrap().to_string(),
            l["cause"].as_str().unwrap().to_string(),
        )
    };
    assert_eq!(lost("0000:83:00.0"), ("amdgpu".into(), "no-driver".into()));
    assert_eq!(lost("0000:a3:00.0"), ("amdgpu".into(), "vfio".into()));
    assert_eq!(lost("0000:c3:00.0"), ("kfd".into(), "no-kfd-node".into()));
    assert_eq!(lost("0000:e3:00.0"), ("rocr".into(), "not-usable".into()));
    assert!(gpu(&doc, "0000:63:00.0")["lost"].is_null());
    assert_eq!(gpu(&doc, "0000:a3:00.0")["driver"]["detail"], "vfio-pci");
    // The BMC's ASPEED VGA function (vendor 0x1a03) is a display controller, not counted.
    assert!(doc["gpu_layers"]["gpus"]
        .as_array()
        .unwrap()
        .iter()
        .all(|g| g["pci"] != "0000:c1:00.0"));
    let fs = findings(&doc, "gpu.layers");
    let subjects: Vec<&str> = fs.iter().map(|f| f["subject"].as_str().unwrap()).collect();
    assert_eq!(
        subjects,
        [
            "0000:83:00.0",
            "0000:a3:00.0",
            "0000:c3:00.0",
            "0000:e3:00.0"
        ]
    );
    // The kernel log's probe failure is in the evidence of the GPU it names.
    let ev = fs[0]["evidence"].to_string();
    assert!(
        ev.contains("probe of 0000:83:00.0 failed with error -12"),
        "{ev}"
    );
    // One action and event per cause (the check's doc says where each comes from).
    let acts: Vec<(&str, &str)> = fs
        .iter()
        .map(|f| (f["action"].as_str().unwrap(), f["event"].as_str().unwrap()))
        .collect();
    assert_eq!(
        acts,
        [
            ("fix-config", "probe-failed"),
            ("fix-config", "vfio"),
            ("reboot-node", "no-kfd-node"),
            ("fix-config", "not-usable"),
        ]
    );
}

#[test]
fn a_partitioned_mi300x_is_eight_gpus_of_63_nodes() {
    let (doc, code) = layers_of(&sysroot("layers-mi300x-cpx"), &[]);
    assert_eq!(code, 0, "{doc:#}");
    assert_eq!(counts(&doc), [8, 8, 8, 8, 8, 8]);
    let kfd = &doc["gpu_layers"]["counts"][3];
    assert_eq!(
        (kfd["layer"].as_str(), kfd["nodes"].as_i64()),
        (Some("kfd"), Some(63))
    );
    assert_eq!(
        gpu(&doc, "0000:05:00.0")["kfd_nodes"]
            .as_array()
            .unwrap()
            .len(),
        8
    );
}

#[test]
fn expect_gpus_at_and_above_the_count() {
    let root = sysroot("layers-mi210x8-ok");
    let (doc, code) = layers_of(&root, &["--expect-gpus", "8"]);
    assert_eq!(code, 0, "{doc:#}");
    let fs = findings(&doc, "gpu.layers");
    assert_eq!(fs.len(), 1);
    assert_eq!(fs[0]["status"], "pass");
    let (doc, code) = layers_of(&root, &["--expect-gpus", "9"]);
    assert_eq!(code, 1, "{doc:#}");
    let fs = findings(&doc, "gpu.layers");
    assert_eq!(fs.len(), 1);
    assert_eq!(fs[0]["status"], "fail");
    assert!(fs[0]["summary"]
        .as_str()
        .unwrap()
        .contains("8 GPU(s) usable by ROCr, 9 expected"));
    // Fewer GPUs on the bus than expected: hardware.
    assert_eq!(
        (fs[0]["action"].as_str(), fs[0]["event"].as_str()),
        (Some("drain-and-inspect"), Some("fewer-gpus"))
    );
}

#[test]
fn no_gpu_is_a_skip_unless_one_is_expected() {
    let t = tempfile::tempdir().unwrap();
    let (doc, code) = layers_of(t.path(), &[]);
    assert_eq!(code, 0, "{doc:#}");
    assert_eq!(findings(&doc, "gpu.layers")[0]["status"], "skip");
    let (doc, code) = layers_of(t.path(), &["--expect-gpus", "1"]);
    assert_eq!(code, 1, "{doc:#}");
    assert_eq!(findings(&doc, "gpu.layers")[0]["status"], "fail");
}

#[test]
fn the_kernel_log_decides_what_a_probe_failure_calls_for() {
    let (_t, root) = copy_of("layers-mi210x8-lost");
    let log = root.join("var/log/rocm-doctor-dmesg.txt");
    let first = |doc: &Value| findings(doc, "gpu.layers")[0].clone();
    // -110 (ETIMEDOUT) has no configuration cause: reboot to run the probe again.
    let text = std::fs::read_to_string(&log).unwrap();
    std::fs::write(&log, text.replace("error -12", "error -110")).unwrap();
    let (doc, _) = layers_of(&root, &[]);
    let f = first(&doc);
    assert!(
        f["summary"]
            .as_str()
            .unwrap()
            .contains("failed with error -110"),
        "{f:#}"
    );
    assert_eq!(f["action"], "reboot-node", "{f:#}");
    // No kernel log: nothing says the probe failed; the driver is configuration.
    std::fs::remove_file(&log).unwrap();
    let (doc, _) = layers_of(&root, &[]);
    let f = first(&doc);
    assert!(
        f["summary"]
            .as_str()
            .unwrap()
            .ends_with("no driver bound (the kernel log cannot be read here: `dmesg` says why)"),
        "{f:#}"
    );
    assert_eq!(
        (f["action"].as_str(), f["event"].as_str()),
        (Some("fix-config"), Some("no-driver")),
        "{f:#}"
    );
}

#[test]
fn pci_absent_is_not_observed() {
    let (doc, code) = layers_of(&sysroot("gfx90c-apu"), &[]);
    assert_eq!(code, 0, "{doc:#}");
    let pci = &doc["gpu_layers"]["pci"];
    assert_eq!(
        (pci["observed"].as_bool(), pci["unobserved"].as_str()),
        (Some(false), Some("absent"))
    );
    assert_eq!(counts(&doc), [-1, -1, 1, 1, 1, 1]);
}

/// EACCES for real: the `class` file of one GPU mode 0000, read as `nobody`. That GPU is not
/// counted on the bus; it is not called lost either, and the file is named.
#[test]
fn an_unreadable_class_file_is_said_not_judged() {
    use std::os::unix::fs::PermissionsExt;
    let (_t, root) = copy_of("layers-mi210x8-ok");
    let class = root.join("sys/devices/pci0000:40/0000:40:01.1/0000:43:00.0/class");
    std::fs::set_permissions(&class, std::fs::Permissions::from_mode(0o000)).unwrap();
    let Some(doc) = doctor_as_unprivileged(
        &[],
        &[
            "--json",
            "--sysroot",
            root.to_str().unwrap(),
            "--only",
            "gpu.layers",
        ],
    ) else {
        return;
    };
    assert_eq!(counts(&doc), [7, 7, 7, 8, 8, 8]);
    let fs = findings(&doc, "gpu.layers");
    assert_eq!(fs.len(), 1, "{fs:#?}");
    assert_eq!(fs[0]["status"], "pass");
    assert!(fs[0]["summary"]
        .as_str()
        .unwrap()
        .starts_with("8 GPU(s) usable by ROCr"));
    let ev = fs[0]["evidence"].to_string();
    assert!(
        ev.contains("could not read: /sys/bus/pci/devices/0000:43:00.0/class: EACCES"),
        "{ev}"
    );
}

/// A read the kernel refuses as unsupported (EINVAL from a show function), through the fixture
/// manifest's deny rule: "not supported here", not a problem.
#[test]
fn an_unsupported_read_is_not_a_problem() {
    let (_t, root) = copy_of("layers-mi210x8-ok");
    let manifest = root.join(".rocm-doctor-fixture.toml");
    let mut m = std::fs::read_to_string(&manifest).unwrap();
    m.push_str(
        "\n[[deny]]\npath = \"/sys/bus/pci/devices/0000:c1:00.0/vendor\"\nerrno = \"EINVAL\"\n",
    );
    std::fs::write(&manifest, m).unwrap();
    let (doc, code) = layers_of(&root, &[]);
    assert_eq!(code, 0, "{doc:#}");
    assert_eq!(counts(&doc), [8, 8, 8, 8, 8, 8]);
    assert_eq!(
        doc["gpu_layers"]["pci"]["unsupported"][0],
        "/sys/bus/pci/devices/0000:c1:00.0/vendor: EINVAL"
    );
    let fs = findings(&doc, "gpu.layers");
    assert_eq!(fs[0]["status"], "pass");
}

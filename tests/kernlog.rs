//! The kernel-log evidence layer (src/kernlog) on fixture sysroots, read through the Host as a
//! check would, and a property test that no input makes the parser panic.

use proptest::prelude::*;
use rocm_doctor::host::{Host, Limits};
use rocm_doctor::kernlog::{self, EventKind, Origin};
use std::path::{Path, PathBuf};
use std::time::Duration;

fn sysroot(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/sysroots")
        .join(name)
}

fn host(name: &str) -> Host {
    Host::for_sysroot(
        &sysroot(name),
        Limits::new(Duration::from_secs(5), Duration::from_secs(20)),
    )
    .unwrap()
}

#[test]
fn kern_log_keeps_this_boot_and_folds_the_page_fault() {
    let log = kernlog::read(&host("kernlog-gfx1151-page-fault")).unwrap();
    assert_eq!(log.origin, Origin::File("/var/log/kern.log".into()));
    // The fixture file was tried first and is absent.
    assert!(
        log.notes[0].starts_with("/var/log/rocm-doctor-dmesg.txt not read: ENOENT"),
        "{:?}",
        log.notes
    );
    assert!(
        log.notes
            .iter()
            .any(|n| n.contains("kept the 13 lines from the last boot on (line 5")),
        "{:?}",
        log.notes
    );
    let events = kernlog::amdgpu_events(&log.lines);
    assert_eq!(events.len(), 1, "{events:?}");
    let (i, e) = &events[0];
    assert_eq!(*i, 3);
    assert_eq!(e.kind, EventKind::VmPageFault);
    assert_eq!(e.device.as_deref(), Some("0000:c3:00.0"));
    assert_eq!(e.process, Some(("llama-bench-roc".to_string(), 345001)));
    assert_eq!(e.extra.len(), 9);
    assert_eq!(log.lines[*i].wall.as_deref(), Some("Aug 08 22:35:13"));
    let s = kernlog::summarize(&events);
    assert_eq!((s.len(), s[0].count), (1, 1));
}

#[test]
fn the_fixture_dmesg_file_is_read_first() {
    let log = kernlog::read(&host("kernlog-mi100-gpu-info")).unwrap();
    assert_eq!(
        log.origin,
        Origin::File("/var/log/rocm-doctor-dmesg.txt".into())
    );
    assert!(log.notes.iter().any(|n| n.starts_with("no boot marker")));
    let events = kernlog::amdgpu_events(&log.lines);
    let kinds: Vec<(usize, EventKind)> = events.iter().map(|(i, e)| (*i, e.kind)).collect();
    assert_eq!(
        kinds,
        [
            (8, EventKind::FirmwareLoadFailed),
            (9, EventKind::FirmwareLoadFailed),
            (10, EventKind::IpInitFailed),
            (12, EventKind::ProbeFailed),
        ]
    );
    assert!(events
        .iter()
        .all(|(_, e)| e.device.as_deref() == Some("0000:23:00.0")));
    assert_eq!(events[3].1.error, Some(-2));
}

#[test]
fn a_root_without_logs_is_unavailable_not_an_error() {
    let e = kernlog::read(&host("gfx1030-dgpu")).unwrap_err();
    assert_eq!(e.attempts.len(), 3);
    assert!(e.to_string().contains("/var/log/kern.log: ENOENT"), "{e}");
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    #[test]
    fn parsing_never_panics(bytes in proptest::collection::vec(any::<u8>(), 0..512)) {
        let lines = kernlog::parse_text(&bytes);
        let _ = kernlog::amdgpu_events(&lines);
        let _ = kernlog::parse_kmsg_record(&bytes);
    }

    #[test]
    fn kernel_shaped_lines_never_panic(
        s in "(<[0-9]{1,3}>)?(\\[[ 0-9.TC]{0,14}\\] ?)?([0-9,;\\-c]{0,16})?(amdgpu [0-9a-f:.]{0,14}: |kfd kfd: |\\[drm:[a-z_]{0,8} \\[amdgpu\\]\\] |\\[drm\\] )?(amdgpu: )?(\\{[0-9]{0,3}\\}?)?[ -~\\t]{0,80}"
    ) {
        let l = kernlog::parse_line(&s);
        let _ = kernlog::classify(&l);
    }
}

/// Every case text of the symptom corpus (tests/corpus/*.toml, each case with its source link):
/// the kernel events found, folded, per case. Cases not listed must give none, so this also
/// guards against events found in build logs, library output and harmless noise.
#[test]
fn corpus_texts_give_exactly_these_events() {
    let expected: &[(&str, &[&str])] = &[
        (
            "fresh7-amdgpu-204-kernel-6-18-page-fault-comfyui",
            &["vm-page-fault", "vm-page-fault"],
        ),
        (
            "gpu-rocm-1214-x5650-rx580-atomics",
            &["pcie-atomics-rejected"],
        ),
        (
            "gpu-rocm-237-b250-chipset-slot-atomics",
            &["pcie-atomics-rejected"],
        ),
        (
            "gpu-rocm-2232-pitcairn-not-supported-in-kfd",
            &["asic-unsupported"],
        ),
        (
            "gpu-rocm-912-vega20-ta-firmware-harmless",
            &["firmware-load-failed", "firmware-load-failed"],
        ),
        (
            "gpu-rocm-2747-mi210-psp-ring-fabric-link",
            &["firmware-load-failed"],
        ),
        (
            "gpu-awsdocs-152-amdgpu-unknown-symbol-iommu-v2",
            &["iommu-failure"; 5],
        ),
        (
            "gpu-rocm-719-did-15d8-missing-picasso",
            &["device-id-missing"],
        ),
        (
            "fresh3-legacy-1318-navi14-did-7340-missing-in-kfd",
            &["device-id-missing"],
        ),
        (
            "fresh3-kernelci-2238-skyrim-psp-13-0-8-toc-firmware-missing",
            &[
                "firmware-load-failed",
                "ip-init-failed",
                "ip-init-failed",
                "ip-init-failed",
            ],
        ),
        (
            "fresh3-legacy-939-nuc8-rx550-pci-rejects-atomics",
            &["pcie-atomics-rejected"],
        ),
        (
            "fresh3-legacy-192-msi-970a-mainboard-no-pcie-atomics",
            &["pcie-atomics-rejected", "pcie-atomics-rejected"],
        ),
        (
            "fresh3-legacy-157-e5-2670v1-rx480-pci-rejects-atomics",
            &["pcie-atomics-rejected"],
        ),
        (
            "gpu-rocm-1357-mi100-arcturus-gpu-info-missing",
            &[
                "firmware-load-failed",
                "firmware-load-failed",
                "ip-init-failed",
                "probe-failed",
            ],
        ),
        (
            "gpu-rocminstall-615-mi210-probe-error-12-bios",
            &["ip-init-failed", "probe-failed"],
        ),
        (
            "gpu-rocmlibs-1132-gfx1151-hang-page-fault",
            &["vm-page-fault"],
        ),
        ("co-rocm-5616-mes-firmware-fault", &["vm-page-fault"]),
        (
            "co-nixpkgs-207109-5600g-override-1030-pagefault",
            &["vm-page-fault"],
        ),
        (
            "stack-rocm-804-wx7100-pci-rejects-atomics",
            &["pcie-atomics-rejected", "pcie-atomics-rejected"],
        ),
        (
            "more-rocm-1320-radeon-vii-atombios-stuck",
            &["ip-init-failed"],
        ),
        (
            "fresh6-legacy-rocm-build-364-rx570-x4-slot-pci-rejects-atomics",
            &["pcie-atomics-rejected"],
        ),
        (
            "fresh9-legacy-rocm-build-558-rx580-xeon-v2-pci-rejects-atomics",
            &["pcie-atomics-rejected"],
        ),
        (
            "fresh6-legacy-rocm-build-827-rx550-laptop-pci-rejects-atomics",
            &["pcie-atomics-rejected"],
        ),
        (
            "fresh6-legacy-rocm-build-622-rx570-second-slot-atomics",
            &["pcie-atomics-rejected"],
        ),
        (
            "fresh10-legacy-1079-rocm-3-3-navi-smu-hw-init-failed",
            &[
                "ip-init-failed",
                "ip-init-failed",
                "ip-init-failed",
                "firmware-load-failed",
            ],
        ),
        (
            "fresh10-nixpkgs-122776-navy-flounder-sos-firmware",
            &[
                "firmware-load-failed",
                "ip-init-failed",
                "ip-init-failed",
                "ip-init-failed",
                "probe-failed",
            ],
        ),
    ];
    #[derive(serde::Deserialize)]
    struct Case {
        id: String,
        text: String,
    }
    #[derive(serde::Deserialize)]
    struct File {
        case: Vec<Case>,
    }
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/corpus");
    let mut seen = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let p = entry.unwrap().path();
        if p.extension().is_none_or(|x| x != "toml") {
            continue;
        }
        let text = std::fs::read_to_string(&p).unwrap();
        let file: File = rocm_doctor::data::load(&p.display().to_string(), &text)
            .unwrap_or_else(|e| panic!("{e}"));
        for c in file.case {
            let got: Vec<&str> = kernlog::amdgpu_events(&kernlog::parse_text(c.text.as_bytes()))
                .iter()
                .map(|(_, e)| e.kind.name())
                .collect();
            let want: &[&str] = expected
                .iter()
                .find(|(id, _)| *id == c.id)
                .map_or(&[], |(_, k)| k);
            assert_eq!(got, want, "case {}", c.id);
            seen += 1;
        }
    }
    assert!(seen > 100, "{seen} cases");
}

/// The kernel family as the doctor reports it, on the fixture logs: each kind a finding with
/// its status, the catalogue's cause beside a line it knows, and a readable log's pass.
#[test]
fn the_kernel_checks_report_the_fixture_logs() {
    let (doc, code) = crate::common::run_json(
        [
            "--sysroot",
            crate::common::fixture("sysroots", "kernlog-mi100-gpu-info")
                .to_str()
                .unwrap(),
            "--only",
            "kernel",
        ],
        &[],
    );
    assert_eq!(code, 1, "{doc:#}");
    let of = |id: &str| crate::common::findings(&doc, id);
    assert_eq!(of("kernel.log")[0]["status"], "pass");
    let init = of("kernel.driver-init");
    assert!(init.iter().all(|f| f["status"] == "fail"), "{doc:#}");
    assert!(
        init[0]["summary"]
            .as_str()
            .unwrap()
            .contains("arcturus_gpu_info.bin"),
        "{doc:#}"
    );
    assert!(
        doc.to_string().contains("amdgpu-firmware-missing"),
        "{doc:#}"
    );
    for id in [
        "kernel.hangs",
        "kernel.page-faults",
        "kernel.ras",
        "kernel.smu",
    ] {
        assert_eq!(of(id)[0]["status"], "pass", "{id}");
    }
    let (doc, code) = crate::common::run_json(
        [
            "--sysroot",
            crate::common::fixture("sysroots", "kernlog-gfx1151-page-fault")
                .to_str()
                .unwrap(),
            "--only",
            "kernel.page-faults",
        ],
        &[],
    );
    assert_eq!(code, 0, "{doc:#}");
    let f = &crate::common::findings(&doc, "kernel.page-faults")[0];
    assert_eq!(f["status"], "warn");
    assert!(
        f.to_string().contains("llama-bench-roc pid 345001"),
        "{f:#}"
    );
}

#[test]
fn a_missing_or_unreadable_kernel_log_is_a_skip_and_says_how_to_grant_access() {
    use std::os::unix::fs::PermissionsExt;
    // No log at all: every kernel check skips, kernel.log lists what it tried.
    let empty = tempfile::tempdir().unwrap();
    let (doc, code) = crate::common::run_json(
        [
            "--sysroot",
            empty.path().to_str().unwrap(),
            "--only",
            "kernel",
        ],
        &[],
    );
    assert_eq!(code, 0, "{doc:#}");
    for f in doc["findings"].as_array().unwrap() {
        assert_eq!(f["status"], "skip", "{f:#}");
    }
    let log = &crate::common::findings(&doc, "kernel.log")[0];
    assert!(log.to_string().contains("kern.log: ENOENT"), "{log:#}");
    // A log this user may not read: a skip whose fix says how to get access.
    let root = tempfile::tempdir().unwrap();
    let dir = root.path().join("var/log");
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("kern.log");
    std::fs::write(
        &file,
        "Nov 25 10:00:00 node kernel: [    0.000000] Linux version 6.8.0 (x)\n",
    )
    .unwrap();
    std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o600)).unwrap();
    for d in [root.path(), &root.path().join("var"), &dir] {
        std::fs::set_permissions(d, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    let Some(doc) = crate::common::doctor_as_unprivileged(
        &[],
        &[
            "--json",
            "--sysroot",
            root.path().to_str().unwrap(),
            "--only",
            "kernel.log",
        ],
    ) else {
        return;
    };
    let log = &crate::common::findings(&doc, "kernel.log")[0];
    assert_eq!(log["status"], "skip", "{log:#}");
    assert!(log.to_string().contains("EACCES"), "{log:#}");
    let fix = log["fix"]["text"].as_str().unwrap_or("");
    assert!(fix.contains("adm"), "{log:#}");
}

#[test]
fn harmless_kernel_lines_are_reported_as_harmless() {
    // ROCm/ROCm#912: the optional TA firmware of a Radeon VII, harmless by the maintainers.
    let root = tempfile::tempdir().unwrap();
    let log = root.path().join("var/log");
    std::fs::create_dir_all(&log).unwrap();
    std::fs::write(
        log.join("kern.log"),
        "Nov 25 10:00:00 node kernel: [    0.000000] Linux version 5.4.0-rc3 (x)\n\
         Nov 25 10:00:03 node kernel: [    3.353884] amdgpu 0000:19:00.0: Direct firmware load for amdgpu/vega20_ta.bin failed with error -2\n",
    )
    .unwrap();
    let (doc, code) = crate::common::run_json(
        [
            "--sysroot",
            root.path().to_str().unwrap(),
            "--only",
            "kernel.driver-init",
        ],
        &[],
    );
    assert_eq!(code, 0, "{doc:#}");
    let f = &crate::common::findings(&doc, "kernel.driver-init")[0];
    assert_eq!(f["status"], "pass", "{f:#}");
    assert!(
        f["summary"].as_str().unwrap().starts_with("harmless: "),
        "{f:#}"
    );
}

/// `rocm-doctor --json --sysroot <fixture> --only kernel.history` plus `extra`.
fn history_json(root: &Path, extra: &[&str]) -> (serde_json::Value, i32) {
    let mut args = vec![
        "--sysroot",
        root.to_str().unwrap(),
        "--only",
        "kernel.history",
    ];
    args.extend_from_slice(extra);
    crate::common::run_json(args, &[])
}

#[test]
fn earlier_boots_from_rotated_files_escalate_and_carry_per_boot_counts() {
    let (doc, code) = history_json(&sysroot("kernlog-history-recurring"), &["--boots", "5"]);
    assert_eq!(code, 1, "{doc:#}");
    let f = &crate::common::findings(&doc, "kernel.history")[0];
    assert_eq!(f["status"], "fail", "{f:#}");
    assert_eq!(f["subject"], "0000:03:00.0");
    assert_eq!(f["action"], "drain-and-inspect");
    assert_eq!(f["event"], "recurring");
    let h = &doc["inventory"]["kernel_history"];
    assert_eq!(h["boots_asked"], 5);
    assert_eq!(
        h["source"],
        "/var/log/kern.log, /var/log/kern.log.1, /var/log/kern.log.2.gz"
    );
    let offsets: Vec<i64> = h["earlier_boots"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b["offset"].as_i64().unwrap())
        .collect();
    assert_eq!(offsets, [-1, -2, -3]);
    let gpu = &h["gpus"][0];
    assert_eq!(gpu["device"], "0000:03:00.0");
    assert_eq!(gpu["serious_boots"], serde_json::json!([0, -1, -3]));
    assert_eq!(gpu["boots"][1]["boot"], -1);
    assert_eq!(gpu["boots"][1]["counts"]["ring-timeout"], 1);
    assert_eq!(gpu["boots"][1]["counts"]["gpu-reset-begin"], 1);
}

#[test]
fn the_fleet_modes_read_earlier_boots_and_the_default_run_does_not() {
    let root = sysroot("kernlog-history-previous");
    // Default run: kernel.history is not selected, the files of earlier boots are not read.
    let (doc, _) = crate::common::run_json(
        ["--sysroot", root.to_str().unwrap(), "--only", "kernel.log"],
        &[],
    );
    assert!(doc["inventory"].get("kernel_history").is_none(), "{doc:#}");
    assert!(crate::common::findings(&doc, "kernel.history").is_empty());
    // --npd: five boots by default; the previous boot's hang is a pass (the reboot cleared it)
    // and the node is OK.
    let out = crate::common::doctor()
        .args([
            "--npd",
            "--sysroot",
            root.to_str().unwrap(),
            "--only",
            "kernel.history",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    // The recurring fixture: NonOK, and the line carries the escalated action.
    let rec = sysroot("kernlog-history-recurring");
    let out = crate::common::doctor()
        .args([
            "--npd",
            "--sysroot",
            rec.to_str().unwrap(),
            "--only",
            "kernel.history",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    let line = String::from_utf8_lossy(&out.stdout);
    assert!(
        line.starts_with("FAIL kernel.history action=drain-and-inspect: 0000:03:00.0: "),
        "{line}"
    );
}

#[test]
fn an_unreadable_rotated_log_is_said_and_ends_the_history() {
    use std::os::unix::fs::PermissionsExt;
    let root = tempfile::tempdir().unwrap();
    crate::common::copy_tree(&sysroot("kernlog-history-recurring"), root.path());
    let dir = root.path().join("var/log");
    for d in [root.path(), &root.path().join("var"), &dir] {
        std::fs::set_permissions(d, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    for f in ["kern.log", "kern.log.2.gz"] {
        std::fs::set_permissions(dir.join(f), std::fs::Permissions::from_mode(0o644)).unwrap();
    }
    std::fs::set_permissions(
        dir.join("kern.log.1"),
        std::fs::Permissions::from_mode(0o600),
    )
    .unwrap();
    let Some(doc) = crate::common::doctor_as_unprivileged(
        &[],
        &[
            "--json",
            "--sysroot",
            root.path().to_str().unwrap(),
            "--only",
            "kernel.history",
            "--boots",
            "5",
        ],
    ) else {
        return;
    };
    let f = &crate::common::findings(&doc, "kernel.history")[0];
    if nix::unistd::geteuid().is_root() {
        // As nobody: kern.log.1 is not readable, so only this boot is known.
        assert_eq!(f["status"], "skip", "{f:#}");
        assert!(
            f.to_string()
                .contains("/var/log/kern.log.1 not read: EACCES"),
            "{f:#}"
        );
    } else {
        assert_ne!(f["status"], "error", "{f:#}");
    }
}

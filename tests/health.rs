//! GPU health (issue 20, item 3): each `health-*` fixture sysroot read through
//! `Host::for_sysroot`, and the problems the judgements find. Healthy fixtures give none;
//! each degraded signal gives its problem with the evidence an operator needs.

use rocm_doctor::gpu::health::parse::{AerSeverity, BadPageFlag, RasCount, RasSource};
use rocm_doctor::gpu::health::{judge, read_health, Health, Limits, Problem, Severity};
use rocm_doctor::host::{Host, Limits as HostLimits};
use std::time::Duration;

fn health(name: &str) -> Health {
    let root = crate::common::fixture("sysroots", name);
    let host = Host::for_sysroot(
        &root,
        HostLimits::new(Duration::from_secs(10), Duration::from_secs(60)),
    )
    .expect("fixture sysroot");
    read_health(&host)
}

fn problems(h: &Health) -> Vec<Problem> {
    judge::all(h, &Limits::default())
}

fn find<'a>(ps: &'a [Problem], device: &str, what: &str) -> &'a Problem {
    ps.iter()
        .find(|p| p.device.split(',').any(|d| d == device) && p.what.contains(what))
        .unwrap_or_else(|| panic!("no problem on {device} containing {what:?} in {ps:#?}"))
}

#[test]
fn healthy_mi210x4_reads_everything_and_finds_nothing() {
    let h = health("health-mi210x4-ok");
    let pcis: Vec<&str> = h.devices.iter().map(|d| d.pci.as_str()).collect();
    assert_eq!(
        pcis,
        [
            "0000:63:00.0",
            "0000:43:00.0",
            "0000:03:00.0",
            "0000:26:00.0"
        ]
    );
    assert_eq!(h.kernel.as_deref(), Some("6.8.0-49-generic"));
    for d in &h.devices {
        assert!(d.issues.is_empty(), "{:?}", d.issues);
        assert_eq!(d.pci_id.as_deref(), Some("1002:740f"));
        let ras = d.ras.as_ref().expect("ras");
        assert_eq!(ras.blocks.len(), 7);
        assert_eq!(ras.features.as_ref().unwrap().blocks.len(), 7);
        let link = d.link.as_ref().expect("link");
        // The partner is the board switch's downstream port (vendor 0x1000), not the GPU.
        assert!(link.limited_by.is_some());
        assert_eq!(link.current.label(), "16.0 GT/s x16");
        let x = d.xgmi.as_ref().expect("xgmi");
        assert_eq!(x.hive_id, Some(12609507387757274807));
        assert_eq!(
            x.hive_nodes,
            Some(4),
            "hive_info is a link on all but the first"
        );
        assert_eq!(d.firmware.get("mec"), Some(&0x5c));
        let t = d.thermal.as_ref().expect("thermal");
        assert_eq!(t.temps.len(), 3);
        assert_eq!(t.power_cap, Some(300_000_000));
        assert_eq!(t.metrics.as_ref().unwrap().content_revision, 3);
    }
    // One retired page on the first GPU, far below VRAM/100 MiB = 655 (6.8, threshold -1).
    assert_eq!(h.devices[0].bad_pages.as_ref().unwrap().pages.len(), 1);
    let ps = problems(&h);
    assert!(ps.is_empty(), "{ps:#?}");
}

#[test]
fn degraded_mi210_shows_every_signal() {
    let h = health("health-mi210-degraded");
    let ps = problems(&h);
    let a = "0000:63:00.0";
    let b = "0000:43:00.0";

    let ue = find(&ps, a, "uncorrectable hardware errors in umc");
    assert_eq!(ue.severity, Severity::Fail);
    assert!(ue.evidence[0].ends_with("/ras/umc_err_count: ue 1, ce 4"));

    let bp = find(
        &ps,
        a,
        "retired VRAM pages, 90% of the bad-page threshold 10",
    );
    assert_eq!(bp.severity, Severity::Warn);
    assert!(
        bp.what.contains("will not initialise"),
        "6.8 with N > 0: {}",
        bp.what
    );
    assert!(bp.evidence[0].contains("8 R (retired), 1 P (pending)"));
    let pages = h.devices[0].bad_pages.as_ref().unwrap();
    assert_eq!(pages.count(BadPageFlag::Pending), 1);

    let link = find(&ps, b, "PCIe link");
    assert_eq!(link.severity, Severity::Warn);
    assert!(
        link.what.contains("16.0 GT/s x8 instead of 16.0 GT/s x16"),
        "{}",
        link.what
    );
    assert!(
        link.what.contains("0000:42:00.0"),
        "names the limiting port: {}",
        link.what
    );

    let fw = find(&ps, b, "smc firmware differs");
    assert_eq!(fw.severity, Severity::Warn);
    assert!(fw
        .evidence
        .iter()
        .any(|e| e.contains("0x00444500: 0000:43:00.0")));

    let hot = find(&ps, b, "junction temperature 111.0");
    assert_eq!(hot.severity, Severity::Warn);
    let thr = find(&ps, b, "thermal throttling: TEMP_HOTSPOT");
    assert_eq!(thr.severity, Severity::Warn);

    // Nothing else: the hive is consistent, no file failed.
    assert_eq!(ps.len(), 6, "{ps:#?}");
    // Most severe first.
    assert_eq!(ps[0].severity, Severity::Fail);
}

#[test]
fn mi300x_aca_counters_are_read_where_err_count_files_are_absent() {
    let h = health("health-mi300x-aca");
    // card2 is a partition's platform device (amdgpu_xcp): not a PCI device, skipped.
    let pcis: Vec<&str> = h.devices.iter().map(|d| d.pci.as_str()).collect();
    assert_eq!(pcis, ["0000:05:00.0", "0000:27:00.0"]);
    let d = &h.devices[0];
    let umc = &d.ras.as_ref().unwrap().blocks["umc"];
    assert_eq!(umc.source, RasSource::Aca);
    assert_eq!(
        umc.count,
        RasCount::Counts {
            ue: 2,
            ce: 7,
            de: Some(0)
        }
    );
    let t = d.thermal.as_ref().unwrap();
    assert_eq!(t.temps.iter().map(|s| s.index).collect::<Vec<_>>(), [2, 3]);
    assert_eq!((t.power_average, t.power_input), (None, Some(152_000_000)));
    let m = t.metrics.as_ref().unwrap();
    assert_eq!((m.format_revision, m.content_revision), (1, 8));
    assert_eq!(m.throttle_status, None);
    assert_eq!(
        d.partition.as_ref().unwrap().compute.as_deref(),
        Some("CPX")
    );
    let ps = problems(&h);
    assert_eq!(ps.len(), 1, "{ps:#?}");
    assert_eq!(ps[0].severity, Severity::Fail);
    assert_eq!(ps[0].device, "0000:05:00.0");
    assert!(ps[0].evidence[0].ends_with("/ras/aca_umc: ue 2, ce 7, de 0"));
}

#[test]
fn empty_bad_pages_is_none_and_an_unreadable_file_is_reported() {
    let h = health("health-empty-bad-pages");
    let d = &h.devices[0];
    let bp = d.bad_pages.as_ref().expect("the file exists");
    assert!(bp.pages.is_empty() && bp.malformed.is_empty());
    assert_eq!(
        d.ras.as_ref().unwrap().blocks["sdma"].count,
        RasCount::Inaccessible
    );
    assert_eq!(d.issues.len(), 1);
    assert!(d.issues[0].path.ends_with("/gpu_metrics") && d.issues[0].error == "EBUSY");
    let ps = problems(&h);
    assert!(ps.iter().all(|p| p.severity == Severity::Info), "{ps:#?}");
    find(&ps, "0000:03:00.0", "RAS counters not readable yet");
    find(&ps, "0000:03:00.0", "could not be read");
    assert_eq!(ps.len(), 2, "{ps:#?}");
}

#[test]
fn internal_switch_is_skipped_to_the_slot_link() {
    let h = health("health-navi-internal-switch");
    let d = &h.devices[0];
    let l = d.link.as_ref().unwrap();
    // The GPU function reports its link inside the package; the slot runs at x4.
    assert_eq!(l.device_reported.label(), "16.0 GT/s x16");
    assert_eq!(l.internal_switch, ["0000:02:00.0", "0000:01:00.0"]);
    assert_eq!(l.limited_by.as_deref(), Some("0000:00:01.1"));
    assert!(d.pcie_dynamic_speed);
    let ps = problems(&h);
    let p = find(
        &ps,
        "0000:03:00.0",
        "PCIe link between 0000:00:01.1 and 0000:01:00.0",
    );
    assert_eq!(
        p.severity,
        Severity::Warn,
        "a narrow link is not power management"
    );
    assert!(p.what.contains("16.0 GT/s x4 instead of 16.0 GT/s x16"));
    // power1_cap printing a bare newline is None, not an error.
    assert_eq!(d.thermal.as_ref().unwrap().power_cap, None);
    assert!(d.issues.is_empty(), "{:?}", d.issues);
    assert_eq!(ps.len(), 1, "{ps:#?}");
}

#[test]
fn existing_gpu_fixtures_without_health_files_read_as_nothing() {
    // Cards whose device is not a canonical PCI directory, and KFD-only captures.
    for name in ["gfx1030-dgpu", "k8s-mi210x8-gfx90a-xgmi"] {
        let h = health(name);
        assert!(h.devices.is_empty(), "{name}: {:?}", h.devices);
        assert!(problems(&h).is_empty());
    }
}

/// The health family as the doctor reports it: one check per kind of problem, each degraded
/// signal of the fixture a finding with its status, the healthy fixture all passes.
#[test]
fn the_health_checks_report_each_signal_of_the_degraded_fixture() {
    let (doc, code) = crate::common::run_json(
        [
            "--sysroot",
            crate::common::fixture("sysroots", "health-mi210-degraded")
                .to_str()
                .unwrap(),
            "--only",
            "health",
        ],
        &[],
    );
    assert_eq!(code, 1, "{doc:#}");
    let status = |id: &str| -> Vec<String> {
        crate::common::findings(&doc, id)
            .iter()
            .map(|f| f["status"].as_str().unwrap().to_string())
            .collect()
    };
    assert_eq!(status("health.ras"), ["fail"]);
    assert_eq!(status("health.bad-pages"), ["warn"]);
    assert_eq!(status("health.pcie-link"), ["warn"]);
    assert_eq!(status("health.firmware"), ["warn"]);
    assert_eq!(status("health.xgmi"), ["pass"]);
    assert_eq!(status("health.partitions"), ["pass"]);
    assert!(
        status("health.thermal").iter().all(|s| s == "warn"),
        "{doc:#}"
    );
    let (doc, code) = crate::common::run_json(
        [
            "--sysroot",
            crate::common::fixture("sysroots", "health-mi210x4-ok")
                .to_str()
                .unwrap(),
            "--only",
            "health",
        ],
        &[],
    );
    assert_eq!(code, 0, "{doc:#}");
    for f in doc["findings"].as_array().unwrap() {
        assert_eq!(f["status"], "pass", "{f:#}");
    }
}

#[test]
fn without_an_amdgpu_device_the_health_checks_skip_in_every_profile_but_runtime() {
    let empty = tempfile::tempdir().unwrap();
    for profile in ["auto", "build"] {
        let (doc, code) = crate::common::run_json(
            [
                "--sysroot",
                empty.path().to_str().unwrap(),
                "--profile",
                profile,
                "--only",
                "health",
            ],
            &[],
        );
        assert_eq!(code, 0, "{profile}: {doc:#}");
        for f in doc["findings"].as_array().unwrap() {
            assert_eq!(f["status"], "skip", "{profile}: {f:#}");
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Issue 26, item 3: PCIe AER counters and replays.
// ---------------------------------------------------------------------------------------------

fn pcie_problems(h: &Health) -> Vec<Problem> {
    judge::pcie_error_problems(&h.devices, &Limits::default())
}

#[test]
fn aer_counters_of_the_gpu_and_every_port_above_it() {
    let h = health("health-pcie-aer");
    let a = &h.devices[0];
    assert_eq!(a.pci, "0000:03:00.0");
    // The canonical path: the GPU, the board switch's two ports, the root port; nothing else.
    let walked: Vec<(&str, bool)> = a
        .pcie_errors
        .aer
        .iter()
        .map(|p| (p.bdf.as_str(), p.is_gpu))
        .collect();
    assert_eq!(
        walked,
        [
            ("0000:03:00.0", true),
            ("0000:02:00.0", false),
            ("0000:01:00.0", false),
            ("0000:00:01.1", false)
        ]
    );
    let rp = &a.pcie_errors.aer[3].stats[&AerSeverity::NonFatal];
    assert_eq!(rp.total, 2);
    assert_eq!(rp.kinds, [("Completion Timeout".to_string(), 2)]);
    assert_eq!(a.pcie_errors.replay_count, Some(0));
    // Unsupported reads (the manifest's EOPNOTSUPP and EINVAL) are recorded, not problems.
    let d = &h.devices[3];
    let unsupported: Vec<&str> = d
        .pcie_errors
        .unsupported
        .iter()
        .map(|i| i.error.as_str())
        .collect();
    assert_eq!(unsupported, ["EOPNOTSUPP", "EINVAL"], "{:?}", d.pcie_errors);
    assert!(d.pcie_errors.unreadable.is_empty());
    assert_eq!(d.pcie_errors.replay_count, None);
    // The root port lost only its fatal file: its other two are still read.
    assert_eq!(d.pcie_errors.aer[3].stats.len(), 2);

    let ps = pcie_problems(&h);
    let sev: Vec<(&str, Severity)> = ps.iter().map(|p| (p.device.as_str(), p.severity)).collect();
    assert_eq!(
        sev,
        [
            ("0000:03:00.0", Severity::Warn),
            ("0000:23:00.0", Severity::Fail),
            ("0000:43:00.0", Severity::Warn),
            ("0000:43:00.0", Severity::Warn)
        ],
        "{ps:#?}"
    );
    assert!(find(&ps, "0000:03:00.0", "ERR_NONFATAL")
        .what
        .contains("port 0000:00:01.1 above the GPU"));
    let ce = find(&ps, "0000:43:00.0", "correctable");
    assert!(ce.what.contains("port 0000:42:00.0 above the GPU: 250"));
    assert!(ce.evidence[0].contains("Receiver Error 180, Bad TLP 40, Bad DLLP 30"));
    // The GPU's own 4 correctable errors are below the level and not named.
    assert!(!ce.what.contains("0000:43:00.0"));
    assert!(find(&ps, "0000:43:00.0", "320 PCIe replays").evidence[0]
        .ends_with("pcie_replay_count: 320"));
    // The whole judgement also puts them in `all`.
    assert_eq!(
        problems(&h)
            .iter()
            .filter(|p| p.what.contains("PCIe"))
            .count(),
        4
    );
}

#[test]
fn aer_files_absent_are_not_problems() {
    // The MI210 fixtures have no AER file anywhere (kernels before 4.19, no AER capability).
    for name in ["health-mi210x4-ok", "health-mi210-degraded"] {
        let h = health(name);
        for d in &h.devices {
            assert_eq!(d.pcie_errors, Default::default(), "{name} {}", d.pci);
        }
        assert!(pcie_problems(&h).is_empty(), "{name}");
    }
}

/// EACCES for real: a copy of the fixture with two AER files and one `pcie_replay_count` mode
/// 0000, read by the binary as `nobody`. The fatal error and the replays behind them are not
/// seen, so not judged: "could not read".
#[test]
fn aer_files_unreadable_as_nobody_are_said_not_judged() {
    use std::os::unix::fs::PermissionsExt;
    let t = tempfile::tempdir().unwrap();
    std::fs::set_permissions(t.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    let root = t.path().join("root");
    let src = crate::common::fixture("sysroots", "health-pcie-aer");
    let ok = std::process::Command::new("cp")
        .arg("-a")
        .arg(&src)
        .arg(&root)
        .status()
        .unwrap();
    assert!(ok.success());
    let gpu_b =
        root.join("sys/devices/pci0000:20/0000:20:01.1/0000:21:00.0/0000:22:00.0/0000:23:00.0");
    let rp_a = root.join("sys/devices/pci0000:00/0000:00:01.1");
    let gpu_c =
        root.join("sys/devices/pci0000:40/0000:40:01.1/0000:41:00.0/0000:42:00.0/0000:43:00.0");
    for f in [
        gpu_b.join("aer_dev_fatal"),
        rp_a.join("aer_dev_nonfatal"),
        gpu_c.join("pcie_replay_count"),
    ] {
        std::fs::set_permissions(&f, std::fs::Permissions::from_mode(0o000)).unwrap();
    }
    let Some(doc) = crate::common::doctor_as_unprivileged(
        &[],
        &[
            "--json",
            "--sysroot",
            root.to_str().unwrap(),
            "--only",
            "health.pcie-errors",
        ],
    ) else {
        return;
    };
    let fs = crate::common::findings(&doc, "health.pcie-errors");
    let of = |pci: &str| -> Vec<&&serde_json::Value> {
        fs.iter().filter(|f| f["subject"] == pci).collect()
    };
    for pci in ["0000:03:00.0", "0000:23:00.0"] {
        let got = of(pci);
        assert_eq!(got.len(), 1, "{pci}: {got:#?}");
        assert_eq!(got[0]["status"], "pass", "{:#}", got[0]);
        assert!(
            got[0]["summary"]
                .as_str()
                .unwrap()
                .contains("could not read 1 PCIe error file(s)"),
            "{:#}",
            got[0]
        );
        assert!(got[0].to_string().contains("EACCES"), "{:#}", got[0]);
    }
    // What could be read is still judged: GPU C's correctable errors warn, its unreadable
    // replay count is said, not judged.
    let c: Vec<(&str, &str)> = of("0000:43:00.0")
        .iter()
        .map(|f| {
            (
                f["status"].as_str().unwrap(),
                f["summary"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(c.len(), 2, "{c:#?}");
    assert_eq!(c[0].0, "warn");
    assert!(c[0].1.contains("correctable PCIe errors"), "{c:#?}");
    assert_eq!(c[1], ("pass", "could not read 1 PCIe error file(s)"));
    assert!(!fs.iter().any(|f| f["status"] == "fail"), "{fs:#?}");
}

// ---------------------------------------------------------------------------------------------
// Issue 26, item 7: a throttle bit judged with its sample.
// ---------------------------------------------------------------------------------------------

#[test]
fn a_throttle_bit_at_idle_is_not_throttling_a_hot_gpu_under_load_is() {
    let h = health("health-r9700-throttle");
    let ps = problems(&h);
    let on = |pci: &str| -> Vec<&Problem> { ps.iter().filter(|p| p.device == pci).collect() };
    // Idle, 37 °C, the firmware's TEMP_HOTSPOT bit: information only.
    let idle = on("0000:03:00.0");
    assert_eq!(idle.len(), 1, "{idle:#?}");
    assert_eq!(idle[0].severity, Severity::Info);
    assert!(idle[0]
        .what
        .contains("while the GPU is idle (gfx activity 0%)"));
    let m = h.devices[0]
        .thermal
        .as_ref()
        .unwrap()
        .metrics
        .as_ref()
        .unwrap();
    assert_eq!(m.throttle_status, Some(0x2));
    assert_eq!(m.sample.hotspot_c, Some(37));
    // At its power cap, 72 °C: the power limit (information) and the doubted bit.
    let capped = on("0000:23:00.0");
    assert!(
        capped.iter().all(|p| p.severity == Severity::Info),
        "{capped:#?}"
    );
    assert!(capped
        .iter()
        .any(|p| p.what.contains("power/current limit: PPT0")));
    // Hot under load: thermal throttling, with the sample as evidence.
    let hot = find(&ps, "0000:43:00.0", "thermal throttling: TEMP_HOTSPOT");
    assert_eq!(hot.severity, Severity::Warn);
    assert!(hot.evidence[0].contains("hotspot 107 °C"), "{hot:#?}");
}

// ---------------------------------------------------------------------------------------------
// Issue 26, item 3 (rest): gpu_metrics v1_6-v1_8 PCIe counters, per-link XGMI state, CPER.
// ---------------------------------------------------------------------------------------------

const XGMI_CPER: &str = "health-mi300x-xgmi-cper";
const GPU_A: &str = "sys/devices/pci0000:02/0000:02:01.1/0000:03:00.0/0000:04:00.0/0000:05:00.0";

/// A private copy of a fixture sysroot (world-readable, for the run as `nobody`).
fn copy_fixture(name: &str) -> (tempfile::TempDir, std::path::PathBuf) {
    use std::os::unix::fs::PermissionsExt;
    let t = tempfile::tempdir().unwrap();
    std::fs::set_permissions(t.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    let root = t.path().join("root");
    let ok = std::process::Command::new("cp")
        .arg("-a")
        .arg(crate::common::fixture("sysroots", name))
        .arg(&root)
        .status()
        .unwrap();
    assert!(ok.success());
    (t, root)
}

fn health_at(root: &std::path::Path) -> Health {
    let host = Host::for_sysroot(
        root,
        HostLimits::new(Duration::from_secs(10), Duration::from_secs(60)),
    )
    .expect("fixture sysroot");
    read_health(&host)
}

#[test]
fn mi300x_v1_8_counters_xgmi_links_and_cper_records_are_read() {
    use rocm_doctor::gpu::health::cper::{CperNotify, CperSectionKind, CperSeverity};
    use rocm_doctor::gpu::health::parse::XgmiLinkState::*;
    use rocm_doctor::gpu::health::read::CperRead;
    let h = health(XGMI_CPER);
    let a = &h.devices[0];
    assert_eq!(a.pci, "0000:05:00.0");
    let m = a.thermal.as_ref().unwrap().metrics.as_ref().unwrap();
    assert_eq!((m.format_revision, m.content_revision), (1, 8));
    assert_eq!(
        m.note.as_deref().map(|n| n.contains("no throttle bitmap")),
        Some(true)
    );
    assert_eq!(
        (
            m.pcie.replay,
            m.pcie.recovery,
            m.pcie.nak_sent,
            m.pcie.nak_rcvd
        ),
        (Some(140), Some(12), Some(60), Some(58))
    );
    assert_eq!(
        (
            m.pcie.bandwidth_acc,
            m.pcie.bandwidth_inst,
            m.pcie.replay_rollover,
            m.pcie.other_end_recovery
        ),
        (Some(1500), Some(21), Some(0), Some(9))
    );
    assert_eq!(
        m.xgmi_links.as_deref(),
        Some(
            &[Up, Down, NotPresent, NotPresent, NotPresent, NotPresent, NotPresent, NotPresent][..]
        )
    );
    assert_eq!(a.xgmi_links.num_links.as_deref(), Some(&[0u8, 2][..]));
    let CperRead::Read { path, log } = &a.cper else {
        panic!("{:?}", a.cper)
    };
    assert_eq!(path, "/sys/kernel/debug/dri/0/amdgpu_ring_cper");
    assert!(log.damaged.is_empty(), "{:?}", log.damaged);
    assert_eq!(log.records.len(), 2);
    let f = &log.records[0];
    assert_eq!(
        (f.severity, &f.notify),
        (CperSeverity::Fatal, &CperNotify::Mce)
    );
    assert_eq!(f.sections[0].kind, CperSectionKind::Crashdump);
    assert_eq!(f.sections[0].fru_text.as_deref(), Some("OAM0"));
    assert_eq!(f.sections[0].aca_status, Some(0xBAA0_0000_0001_0135));
    assert_eq!(log.records[1].severity, CperSeverity::Corrected);
    let CperRead::Read { log, .. } = &h.devices[1].cper else {
        panic!("{:?}", h.devices[1].cper)
    };
    assert!(log.records[0].sections[0].threshold_exceeded);
    // The problems, each with the evidence that names the file.
    let ps = problems(&h);
    let down = find(&ps, "0000:05:00.0", "XGMI link 1 down");
    assert_eq!(down.severity, Severity::Fail);
    assert!(
        down.evidence[0].ends_with(
            "gpu_metrics v1_8: xgmi_link_status [1 0 - - - - - -] (1 up, 0 down, - not a link)"
        ),
        "{down:#?}"
    );
    assert!(down.evidence[1].contains("xgmi_num_links: 00 02 (the hive's topology: 2 link(s))"));
    use rocm_doctor::report::Action;
    assert_eq!(
        (down.event, down.action),
        ("link-down", Some(Action::RebootNode))
    );
    assert!(
        !ps.iter()
            .any(|p| p.device == "0000:27:00.0" && p.what.contains("XGMI")),
        "{ps:#?}"
    );
    let bp = find(&ps, "0000:27:00.0", "bad-page threshold was exceeded");
    assert_eq!(bp.severity, Severity::Fail);
    assert!(
        bp.evidence[0].contains("FRU OAM1, bad-page threshold exceeded"),
        "{bp:#?}"
    );
    assert_eq!(
        (bp.event, bp.action),
        ("bad-page-threshold", Some(Action::DrainAndInspect))
    );
    let fatal = find(&ps, "0000:05:00.0", "CPER: 1 fatal error record(s)");
    assert_eq!((fatal.severity, fatal.event), (Severity::Warn, "fatal"));
    assert_eq!(fatal.action, Some(Action::DrainAndInspect));
    let replay = find(&ps, "0000:05:00.0", "140 PCIe replays");
    assert!(replay
        .evidence
        .iter()
        .any(|e| e.contains("pcie_lc_perf_other_end_recovery 9")));
}

/// Absent: `health-mi300x-aca` has v1_8 samples whose link slots are all-ones, no
/// `xgmi_num_links` and no debugfs. Nothing is recorded as unreadable and nothing is judged.
#[test]
fn absent_link_counts_and_cper_ring_are_nothing() {
    use rocm_doctor::gpu::health::read::CperRead;
    let h = health("health-mi300x-aca");
    for d in &h.devices {
        assert_eq!(d.xgmi_links, Default::default());
        assert!(
            matches!(&d.cper, CperRead::Absent { path } if path.ends_with("amdgpu_ring_cper")),
            "{:?}",
            d.cper
        );
        assert!(d.issues.is_empty(), "{:?}", d.issues);
    }
    assert!(judge::xgmi_link_problems(&h.devices).is_empty());
    assert!(judge::cper_problems(&h.devices).is_empty());
}

/// Unsupported: the driver refuses the reads (`xgmi_num_links` EOPNOTSUPP, the CPER ring
/// EINVAL, fixture deny rules). Neither is a problem: the link down is then information (no
/// topology to hold it against) and the CPER check says nothing. `xgmi_error` is present and
/// refused too, and must never be opened: no trace of it anywhere in what was read.
#[test]
fn refused_reads_are_unsupported_not_problems_and_xgmi_error_is_never_read() {
    use rocm_doctor::gpu::health::read::CperRead;
    let (_t, root) = copy_fixture(XGMI_CPER);
    std::fs::write(root.join(GPU_A).join("xgmi_error"), "3\n").unwrap();
    std::fs::write(
        root.join(".rocm-doctor-fixture.toml"),
        format!(
            "[[deny]]\npath = \"/{GPU_A}/xgmi_num_links\"\nerrno = \"EOPNOTSUPP\"\n\n\
             [[deny]]\npath = \"/sys/kernel/debug/dri/0/amdgpu_ring_cper\"\nerrno = \"EINVAL\"\n\n\
             [[deny]]\npath = \"/{GPU_A}/xgmi_error\"\nerrno = \"EINVAL\"\n"
        ),
    )
    .unwrap();
    let h = health_at(&root);
    let a = &h.devices[0];
    assert_eq!(a.xgmi_links.num_links, None);
    assert_eq!(a.xgmi_links.unsupported.len(), 1, "{:?}", a.xgmi_links);
    assert_eq!(a.xgmi_links.unsupported[0].error, "EOPNOTSUPP");
    assert!(a.xgmi_links.unreadable.is_empty());
    assert!(
        matches!(&a.cper, CperRead::Unsupported { error, .. } if error == "EINVAL"),
        "{:?}",
        a.cper
    );
    let ps = problems(&h);
    let on_a: Vec<&Problem> = ps.iter().filter(|p| p.device == "0000:05:00.0").collect();
    let link = on_a
        .iter()
        .find(|p| p.what.contains("XGMI link 1"))
        .expect("link 1 said");
    assert_eq!(link.severity, Severity::Info);
    assert!(
        link.what.contains("xgmi_num_links not readable"),
        "{link:#?}"
    );
    assert!(!on_a.iter().any(|p| p.what.contains("CPER")), "{on_a:#?}");
    assert!(
        !on_a
            .iter()
            .any(|p| p.severity == Severity::Fail && !p.what.contains("uncorrectable")),
        "{on_a:#?}"
    );
    let all = serde_json::to_string(&h).unwrap();
    assert!(!all.contains("xgmi_error"), "xgmi_error was read");
}

/// Unreadable for real: the CPER rings and GPU A's `xgmi_num_links` mode 0000, the binary run
/// as `nobody`. "could not read", information with EACCES, never a failure; the link down is
/// then information too (no topology to hold it against).
#[test]
fn link_counts_and_cper_unreadable_as_nobody_are_said_not_judged() {
    use std::os::unix::fs::PermissionsExt;
    let (_t, root) = copy_fixture(XGMI_CPER);
    for f in [
        root.join(GPU_A).join("xgmi_num_links"),
        root.join("sys/kernel/debug/dri/0/amdgpu_ring_cper"),
        root.join("sys/kernel/debug/dri/1/amdgpu_ring_cper"),
    ] {
        std::fs::set_permissions(&f, std::fs::Permissions::from_mode(0o000)).unwrap();
    }
    let Some(doc) = crate::common::doctor_as_unprivileged(
        &[],
        &[
            "--json",
            "--sysroot",
            root.to_str().unwrap(),
            "--only",
            "health.cper,health.xgmi-links",
        ],
    ) else {
        return;
    };
    let cper = crate::common::findings(&doc, "health.cper");
    assert_eq!(cper.len(), 3, "{cper:#?}");
    for f in &cper[1..] {
        assert_eq!(f["status"], "pass", "{f:#}");
        assert_eq!(f["summary"], "could not read the GPU's CPER records");
        assert!(f.to_string().contains("EACCES"), "{f:#}");
    }
    let links = crate::common::findings(&doc, "health.xgmi-links");
    let shown: Vec<(&str, &str)> = links
        .iter()
        .map(|f| {
            (
                f["status"].as_str().unwrap(),
                f["summary"].as_str().unwrap(),
            )
        })
        .collect();
    assert!(
        shown.contains(&("pass", "could not read the hive's XGMI link counts")),
        "{shown:#?}"
    );
    assert!(
        shown
            .iter()
            .any(|(s, w)| *s == "pass" && w.contains("XGMI link 1 inactive")),
        "{shown:#?}"
    );
    assert!(
        !shown.iter().any(|(s, _)| *s == "fail" || *s == "warn"),
        "{shown:#?}"
    );
}

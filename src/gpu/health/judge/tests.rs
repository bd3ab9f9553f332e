//! Unit tests of the judgements, on devices built in code and real `gpu_metrics` layouts.

use super::*;
use crate::gpu::health::parse::{
    parse_gpu_metrics, BadPage, BadPageFlag, BadPageThreshold, BadPages, Partition, RasCount,
    RasSource, TempSensor, Xgmi,
};
use crate::gpu::health::read::{Ras, RasBlock, Thermal};

fn dev(pci: &str) -> DeviceHealth {
    DeviceHealth {
        pci: pci.into(),
        dir: format!("/sys/devices/pci0000:00/{pci}"),
        pci_id: Some("1002:74a1".into()),
        ..Default::default()
    }
}

fn xgmi(hive: u64, phys: u32, nodes: usize) -> Option<Xgmi> {
    Some(Xgmi {
        hive_id: Some(hive),
        device_id: Some(1000 + u64::from(phys)),
        physical_id: Some(phys),
        hive_nodes: Some(nodes),
    })
}

#[test]
fn hive_inconsistencies() {
    let mut a = dev("0000:05:00.0");
    let mut b = dev("0000:27:00.0");
    let c = dev("0000:47:00.0");
    a.xgmi = xgmi(7, 0, 3);
    b.xgmi = xgmi(7, 0, 3);
    let ps = xgmi_problems(&[a.clone(), b.clone(), c]);
    assert_eq!(ps.len(), 2, "{ps:#?}");
    assert!(ps[0].what.contains("physical id(s) [0]"));
    assert!(ps[0].what.contains("lists 3 node(s) but 2 GPU(s)"));
    assert!(ps[0].what.contains("xgmi_device_id(s) [1000]"));
    assert_eq!(ps[1].device, "0000:47:00.0");
    assert!(ps[1].what.contains("not in any XGMI hive"));
    b.xgmi = xgmi(7, 1, 2);
    a.xgmi = xgmi(7, 0, 2);
    assert!(xgmi_problems(&[a, b]).is_empty());
}

#[test]
fn partitions_differ_within_a_model_only() {
    let part = |c: &str, m: &str| {
        Some(Partition {
            compute: Some(c.into()),
            memory: Some(m.into()),
            ..Default::default()
        })
    };
    let mut a = dev("0000:05:00.0");
    let mut b = dev("0000:27:00.0");
    let mut other = dev("0000:47:00.0");
    other.pci_id = Some("1002:74a5".into());
    a.partition = part("CPX", "NPS1");
    b.partition = part("SPX", "NPS1");
    other.partition = part("DPX", "NPS1");
    let ps = partition_problems(&[a.clone(), b.clone(), other]);
    assert_eq!(ps.len(), 1, "{ps:#?}");
    assert!(ps[0].what.contains("different compute partition modes"));
    b.partition = part("CPX", "UNKNOWN");
    let ps = partition_problems(&[a, b]);
    assert!(ps
        .iter()
        .any(|p| p.what.contains("memory partition mode is UNKNOWN")));
}

#[test]
fn firmware_odd_one_out_is_named() {
    let mut v = vec![
        dev("0000:05:00.0"),
        dev("0000:27:00.0"),
        dev("0000:47:00.0"),
    ];
    for d in &mut v {
        d.firmware.insert("sos".into(), 0x0038_0a1d);
    }
    v[2].firmware.insert("sos".into(), 0x0038_0a00);
    // A firmware only one GPU lists is not compared.
    v[0].firmware.insert("vcn".into(), 1);
    let ps = firmware_problems(&v);
    assert_eq!(ps.len(), 1);
    assert_eq!(ps[0].device, "0000:47:00.0");
}

#[test]
fn ras_severities_and_limits() {
    let mut d = dev("0000:05:00.0");
    let mut ras = Ras::default();
    let counts = |ue, ce, de| RasBlock {
        source: RasSource::Aca,
        count: RasCount::Counts { ue, ce, de },
    };
    ras.blocks.insert("umc".into(), counts(0, 150, Some(0)));
    ras.blocks.insert("gfx".into(), counts(0, 0, Some(2)));
    ras.blocks.insert("sdma".into(), counts(0, 100, None));
    d.ras = Some(ras);
    let ps = ras_problems(std::slice::from_ref(&d), &Limits::default());
    let sev: Vec<Severity> = ps.iter().map(|p| p.severity).collect();
    assert_eq!(sev, [Severity::Warn, Severity::Warn], "{ps:#?}");
    assert!(ps[0].what.contains("deferred") && ps[0].what.contains("gfx"));
    assert!(ps[1].what.contains("umc") && !ps[1].what.contains("sdma"));
    let strict = Limits {
        ce_warn: 1000,
        ..Limits::default()
    };
    assert_eq!(ras_problems(&[d], &strict).len(), 1);
}

#[test]
fn bad_pages_against_thresholds() {
    let mut d = dev("0000:05:00.0");
    d.vram_total = Some(64 << 30);
    let page = |flag| BadPage {
        pfn: 1,
        size: 0x1000,
        flag,
    };
    d.bad_pages = Some(BadPages {
        pages: vec![page(BadPageFlag::Retired); 10],
        malformed: vec![],
    });
    let l = Limits::default();
    let devs = std::slice::from_ref(&d);
    // 6.17 with N = 10: reached, services halt.
    let ps = bad_page_problems(devs, Some(BadPageThreshold::User(10)), Some("6.17.0"), &l);
    assert_eq!(ps[0].severity, Severity::Fail);
    assert!(ps[0].what.contains("halts"));
    // -1 on 6.17: the limit is only in debugfs, nothing to compare.
    assert!(
        bad_page_problems(devs, Some(BadPageThreshold::Default), Some("6.17.0"), &l).is_empty()
    );
    // -1 on 6.8: VRAM/100 MiB = 655, far.
    assert!(bad_page_problems(devs, Some(BadPageThreshold::Default), Some("6.8.0"), &l).is_empty());
    // A page that could not be reserved is reported whatever the threshold.
    d.bad_pages
        .as_mut()
        .unwrap()
        .pages
        .push(page(BadPageFlag::Failed));
    let ps = bad_page_problems(std::slice::from_ref(&d), None, None, &l);
    assert!(ps[0].what.contains("could not be retired"));
    // Huge user thresholds do not overflow.
    let ps = bad_page_problems(&[d], Some(BadPageThreshold::User(u64::MAX)), None, &l);
    assert_eq!(ps.len(), 1);
}

/// A v1_3 sample with TEMP_HOTSPOT set, and the given hotspot and gfx activity (all-ones:
/// not reported).
fn hotspot_bit(hotspot: u16, activity: u16) -> DeviceHealth {
    let mut b = vec![0xffu8; 120];
    b[0..4].copy_from_slice(&[120, 0, 1, 3]);
    b[6..8].copy_from_slice(&hotspot.to_le_bytes());
    b[16..18].copy_from_slice(&activity.to_le_bytes());
    b[112..120].copy_from_slice(&(1u64 << 36).to_le_bytes());
    let mut d = dev("0000:05:00.0");
    d.thermal = Some(Thermal {
        metrics: Some(parse_gpu_metrics(&b).unwrap()),
        ..Default::default()
    });
    d
}

#[test]
fn a_throttle_bit_is_judged_with_its_sample() {
    let l = Limits::default();
    let sev = |d: DeviceHealth| {
        thermal_problems(&[d], &l)
            .iter()
            .map(|p| p.severity)
            .collect::<Vec<_>>()
    };
    let with_crit = |mut d: DeviceHealth, crit: i64| {
        d.thermal.as_mut().unwrap().temps = vec![TempSensor {
            index: 2,
            label: Some("junction".into()),
            input: None,
            crit: Some(crit),
            emergency: None,
        }];
        d
    };
    // No limit to compare with: believed when busy, not when idle.
    assert_eq!(sev(hotspot_bit(0xffff, 100)), [Severity::Warn]);
    assert_eq!(sev(hotspot_bit(0xffff, 0)), [Severity::Info]);
    // Activity not reported either: believed.
    assert_eq!(sev(hotspot_bit(0xffff, 0xffff)), [Severity::Warn]);
    // With hwmon's limit: the sensor decides, busy or not.
    assert_eq!(
        sev(with_crit(hotspot_bit(37, 100), 110_000)),
        [Severity::Info]
    );
    assert_eq!(
        sev(with_crit(hotspot_bit(96, 100), 110_000)),
        [Severity::Warn]
    );
    assert_eq!(
        sev(with_crit(hotspot_bit(104, 0), 110_000)),
        [Severity::Warn]
    );
    let strict = Limits {
        throttle_margin_c: 80,
        ..Limits::default()
    };
    let ps = thermal_problems(&[with_crit(hotspot_bit(37, 0), 110_000)], &strict);
    assert_eq!(ps[0].severity, Severity::Warn);
}

#[test]
fn power_throttling_is_info_thermal_is_warn() {
    let mut b = vec![0xffu8; 120];
    b[0..4].copy_from_slice(&[120, 0, 1, 3]);
    b[112..120].copy_from_slice(&1u64.to_le_bytes());
    let mut d = dev("0000:05:00.0");
    d.thermal = Some(Thermal {
        metrics: Some(parse_gpu_metrics(&b).unwrap()),
        ..Default::default()
    });
    let ps = thermal_problems(std::slice::from_ref(&d), &Limits::default());
    assert_eq!(ps[0].severity, Severity::Info);
    assert!(ps[0].what.contains("PPT0"));
}

/// A v1_8 sample with these link states, and `xgmi_num_links` when given.
fn links(states: [u16; 8], num_links: Option<Vec<u8>>) -> DeviceHealth {
    let mut b = vec![0xffu8; 3872];
    b[0..4].copy_from_slice(&[0x20, 0x0f, 1, 8]);
    for (i, v) in states.iter().enumerate() {
        b[264 + 2 * i..266 + 2 * i].copy_from_slice(&v.to_le_bytes());
    }
    let mut d = dev("0000:05:00.0");
    d.thermal = Some(Thermal {
        metrics: Some(parse_gpu_metrics(&b).unwrap()),
        ..Default::default()
    });
    d.xgmi_links.num_links = num_links;
    d
}

/// Only the hive's topology can make a link that is down a failure: seven peers with one
/// link each and link 3 down fails naming it; the same states with an eighth slot unused,
/// or without a readable topology, are information; values the driver never writes are
/// said; all-ones slots are not links.
#[test]
fn an_xgmi_link_down_fails_only_against_the_hive_topology() {
    const N: u16 = 0xffff;
    let seven = Some(vec![0, 1, 1, 1, 1, 1, 1, 1]);
    let ev = xgmi_link_problems(&[links([1, 1, 1, 0, 1, 1, 1, N], seven.clone())]);
    assert_eq!(ev.len(), 1, "{ev:#?}");
    assert_eq!((ev[0].severity, ev[0].event), (Severity::Fail, "link-down"));
    assert_eq!(ev[0].action, Some(Action::RebootNode));
    assert!(
        ev[0]
            .what
            .starts_with("XGMI link 3 down: 6 of the 7 link(s)"),
        "{ev:#?}"
    );
    assert!(!ev[0].fix.is_empty());
    // Seven up, the eighth reads 0: enough links, the inactive one is information.
    let ev = xgmi_link_problems(&[links([1, 1, 1, 1, 1, 1, 1, 0], seven.clone())]);
    assert_eq!(
        (ev[0].severity, ev[0].event),
        (Severity::Info, "link-inactive")
    );
    // No topology: a link down cannot be judged.
    let ev = xgmi_link_problems(&[links([1, 0, N, N, N, N, N, N], None)]);
    assert_eq!(
        (ev[0].severity, ev[0].event),
        (Severity::Info, "link-inactive")
    );
    assert!(ev[0].what.contains("not readable"));
    // Fewer up than counted but none down (slots not filled): information.
    let ev = xgmi_link_problems(&[links([1, 1, N, N, N, N, N, N], seven)]);
    assert_eq!(
        (ev[0].severity, ev[0].event),
        (Severity::Info, "link-count")
    );
    // A value the driver never writes.
    let ev = xgmi_link_problems(&[links([1, 7, N, N, N, N, N, N], Some(vec![0, 1]))]);
    assert_eq!(ev.len(), 1, "{ev:#?}");
    assert_eq!(ev[0].event, "link-unknown");
    // Everything up, or no link at all: nothing.
    assert!(xgmi_link_problems(&[links([1, 1, N, N, N, N, N, N], Some(vec![0, 2]))]).is_empty());
    assert!(xgmi_link_problems(&[links([N; 8], None)]).is_empty());
    // A v1_3 sample has no link states: nothing to judge.
    assert!(xgmi_link_problems(&[hotspot_bit(40, 0)]).is_empty());
}

//! Pure judgements over [`Health`]: what a cluster operator should act on, with the evidence.
//!
//! The checks (src/checks/) turn [`Problem`]s into findings; nothing here reads the machine.
//! Thresholds that are a site's choice, not the kernel's, are in [`Limits`].

use super::parse::{
    active_throttlers, parse_kernel_release, threshold_policy, AerSeverity, BadPageFlag,
    BadPageThreshold, GpuMetrics, OnExceed, RasCount, RasSource, ThrottleKind,
};
use super::read::{DeviceHealth, Health, Thermal};
use crate::checkdoc::Action;
use serde::Serialize;
use std::collections::BTreeMap;

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Severity {
    /// Worth knowing, nothing to do now.
    Info,
    Warn,
    Fail,
}

/// One thing wrong with one GPU (or a group of GPUs: `device` then names them all).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Problem {
    /// PCI address(es), comma-separated.
    pub device: String,
    /// One line: what is wrong.
    pub what: String,
    /// The file values that show it (`path: value`).
    pub evidence: Vec<String>,
    pub fix: String,
    /// The event inside the check (stable kebab-case: `uncorrectable`, `link-degraded`).
    pub event: &'static str,
    /// The repair action when it differs from the check doc's default.
    pub action: Option<Action>,
    pub severity: Severity,
}

/// Site policy: thresholds not given by the kernel.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Correctable errors of one block since driver load above which to warn. The kernel has no
    /// such threshold (it corrects and counts); 100 is this tool's default.
    pub ce_warn: u64,
    /// Warn when the retired pages reach this percentage of the bad-page threshold: the kernel
    /// itself logs "RAS records:%u exceeds 90% of threshold:%d" from 6.15 (§1.1).
    pub bad_pages_near_pct: u64,
    /// Correctable PCIe errors (`TOTAL_ERR_COR` of one function, or amdgpu's replay count) above
    /// which to warn. The kernel keeps no threshold; a link replays a few packets during
    /// training and power-state changes, so a handful is noise. DCGM warns at 8 replays per
    /// minute (`DCGM_LIMIT_MAX_PCIREPLAY_RATE`, NVIDIA/DCGM `dcgm_gpu_hardware_limits.h`), a rate
    /// that needs two samples; one read since boot cannot give a rate, so this tool warns on a
    /// count: 100 by default, the same as `ce_warn`.
    pub pcie_ce_warn: u64,
    /// A temperature throttle bit is believed only when its sensor is within this many °C of
    /// its critical limit, or when no sensor can confirm it and the GPU is busy (item 7 of
    /// issue 26: firmware that sets TEMP_HOTSPOT at idle, rocm-systems#11781).
    pub throttle_margin_c: i64,
    /// gfx activity (%) at or below which a GPU is idle: not throttled by load.
    pub idle_activity_pct: u16,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            ce_warn: 100,
            bad_pages_near_pct: 90,
            pcie_ce_warn: 100,
            throttle_margin_c: 15,
            idle_activity_pct: 5,
        }
    }
}

fn ras_path(d: &DeviceHealth, block: &str, source: RasSource) -> String {
    match source {
        RasSource::ErrCount => format!("{}/ras/{block}_err_count", d.dir),
        RasSource::Aca => format!("{}/ras/aca_{block}", d.dir),
    }
}

/// RAS counters: uncorrectable (fail), deferred (warn: poisoned data not yet consumed),
/// correctable above `limits.ce_warn` (warn), counters not yet readable (info).
pub fn ras_problems(devs: &[DeviceHealth], limits: &Limits) -> Vec<Problem> {
    let mut out = Vec::new();
    for d in devs {
        let Some(ras) = &d.ras else { continue };
        let mut ue = Vec::new();
        let mut de = Vec::new();
        let mut ce = Vec::new();
        let mut inaccessible = Vec::new();
        for (block, b) in &ras.blocks {
            let path = ras_path(d, block, b.source);
            match b.count {
                RasCount::Inaccessible => {
                    inaccessible.push(format!("{path}: Query currently inaccessible"))
                }
                RasCount::Counts {
                    ue: u,
                    ce: c,
                    de: dd,
                } => {
                    let ev = match dd {
                        Some(x) => format!("{path}: ue {u}, ce {c}, de {x}"),
                        None => format!("{path}: ue {u}, ce {c}"),
                    };
                    if u > 0 {
                        ue.push((block.clone(), ev));
                    } else if dd.is_some_and(|x| x > 0) {
                        de.push((block.clone(), ev));
                    } else if c > limits.ce_warn {
                        ce.push((block.clone(), ev));
                    }
                }
            }
        }
        let names = |v: &[(String, String)]| {
            v.iter()
                .map(|(b, _)| b.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        };
        let evs = |v: Vec<(String, String)>| v.into_iter().map(|(_, e)| e).collect::<Vec<_>>();
        if !ue.is_empty() {
            out.push(Problem {
                device: d.pci.clone(),
                what: format!("uncorrectable hardware errors in {} since the driver loaded", names(&ue)),
                evidence: evs(ue),
                fix: "Drain the jobs on this GPU and look in the kernel log for 'uncorrectable hardware errors detected in ... block' and in gpu_vram_bad_pages for retired pages. The counters count since the driver loaded: if new uncorrectable errors appear after a reset or reboot, follow AMD's Service Action Guide for the GPU.".into(),
                event: "uncorrectable",
                action: Some(Action::DrainAndInspect),
                severity: Severity::Fail,
            });
        }
        if !de.is_empty() {
            out.push(Problem {
                device: d.pci.clone(),
                what: format!("deferred (poisoned, not yet consumed) errors in {}", names(&de)),
                evidence: evs(de),
                fix: "Deferred errors become uncorrectable when the data is read; watch the kernel log for 'Poison is created' / 'poison is consumed' and the bad-page list.".into(),
                event: "deferred",
                action: None,
                severity: Severity::Warn,
            });
        }
        if !ce.is_empty() {
            out.push(Problem {
                device: d.pci.clone(),
                what: format!(
                    "more than {} correctable errors in {} since the driver loaded",
                    limits.ce_warn,
                    names(&ce)
                ),
                evidence: evs(ce),
                fix: "Correctable errors are fixed by ECC, but a high count on one GPU predicts page retirement; compare with the node's other GPUs and watch gpu_vram_bad_pages.".into(),
                event: "correctable",
                action: Some(Action::None),
                severity: Severity::Warn,
            });
        }
        if !inaccessible.is_empty() {
            out.push(Problem {
                device: d.pci.clone(),
                what: "RAS counters not readable yet (RAS not ready)".into(),
                evidence: inaccessible,
                fix:
                    "Read again after the driver finished initialising or the GPU reset completed."
                        .into(),
                event: "ras-not-ready",
                action: None,
                severity: Severity::Info,
            });
        }
    }
    out
}

/// Retired pages against `amdgpu.bad_page_threshold` (§1.1), and pages the driver could not
/// retire (`F`) or has not yet retired (`P`).
pub fn bad_page_problems(
    devs: &[DeviceHealth],
    threshold: Option<BadPageThreshold>,
    kernel: Option<&str>,
    limits: &Limits,
) -> Vec<Problem> {
    let mut out = Vec::new();
    let k = kernel.and_then(parse_kernel_release);
    for d in devs {
        let Some(bp) = &d.bad_pages else { continue };
        let path = format!("{}/ras/gpu_vram_bad_pages", d.dir);
        let n = bp.pages.len() as u64;
        let failed = bp.count(BadPageFlag::Failed);
        let pending = bp.count(BadPageFlag::Pending);
        let counts = format!(
            "{path}: {n} line(s): {} R (retired), {pending} P (pending), {failed} F (could not be reserved)",
            bp.count(BadPageFlag::Retired)
        );
        if failed > 0 {
            out.push(Problem {
                device: d.pci.clone(),
                what: format!("{failed} bad VRAM page(s) could not be retired"),
                evidence: vec![counts.clone()],
                fix: "The page stays in use: drain the GPU and reset it (or reload amdgpu) so the driver retires it at init; if it stays F, follow AMD's Service Action Guide.".into(),
                event: "retire-failed",
                action: Some(Action::DrainAndInspect),
                severity: Severity::Warn,
            });
        }
        let Some(t) = threshold else { continue };
        let policy = threshold_policy(t, k, d.vram_total);
        let Some(limit) = policy.limit.filter(|l| *l > 0) else {
            continue;
        };
        let mut evidence = vec![
            counts.clone(),
            format!("threshold {limit}: {}", policy.basis),
        ];
        if let Some(kr) = kernel {
            evidence.push(format!("kernel {kr}"));
        }
        let consequence = match policy.on_exceed {
            OnExceed::Halt => "the driver halts the GPU's services (RMA state)",
            OnExceed::NotInitialised => "the driver will not initialise the GPU at its next load",
            OnExceed::WarnOnly => "the driver only logs it and keeps running",
            OnExceed::Nothing => "nothing happens",
        };
        if n >= limit {
            out.push(Problem {
                device: d.pci.clone(),
                what: format!("{n} retired VRAM pages reach the bad-page threshold {limit}: {consequence}"),
                evidence,
                fix: "Take the GPU out of service and follow AMD's Service Action Guide (replacement). Raising amdgpu.bad_page_threshold only hides the signal.".into(),
                event: "threshold-reached",
                action: Some(Action::DrainAndInspect),
                severity: if policy.on_exceed == OnExceed::WarnOnly { Severity::Warn } else { Severity::Fail },
            });
        } else if u128::from(n) * 100 >= u128::from(limit) * u128::from(limits.bad_pages_near_pct) {
            out.push(Problem {
                device: d.pci.clone(),
                what: format!(
                    "{n} retired VRAM pages, {}% of the bad-page threshold {limit}; at {limit} {consequence}",
                    u128::from(n) * 100 / u128::from(limit)
                ),
                evidence,
                fix: "Plan the GPU's replacement now (AMD Service Action Guide); each new uncorrectable memory error retires another page.".into(),
                event: "threshold-near",
                action: Some(Action::None),
                severity: Severity::Warn,
            });
        }
    }
    out
}

/// The link to the platform below its capability (§2). Width below max warns; speed below
/// max warns, or is info when `pp_dpm_pcie` shows the speed follows load.
pub fn link_problems(devs: &[DeviceHealth]) -> Vec<Problem> {
    let mut out = Vec::new();
    for d in devs {
        let Some(l) = &d.link else { continue };
        let narrow = matches!((l.current.width, l.max.width), (Some(c), Some(m)) if c > 0 && c < m);
        let down = l.current.width == Some(0);
        let slow = matches!((&l.current.speed, &l.max.speed), (Some(c), Some(m)) if c.tenths_gts < m.tenths_gts);
        if !(narrow || down || slow) {
            continue;
        }
        let at = match &l.limited_by {
            Some(p) => format!("link between {p} and {}", l.package_port),
            None => format!("link of {}", l.package_port),
        };
        let mut evidence = vec![format!(
            "{at}: running {}, capable of {}",
            l.current.label(),
            l.max.label()
        )];
        if !l.internal_switch.is_empty() {
            evidence.push(format!(
                "{} reports {} on the switch inside the GPU package ({}), not the slot's link",
                d.pci,
                l.device_reported.label(),
                l.internal_switch.join(", ")
            ));
        }
        let idle = slow && !narrow && !down && d.pcie_dynamic_speed;
        if idle {
            evidence.push(format!(
                "{}/pp_dpm_pcie lists several levels: the link speed follows load",
                d.dir
            ));
        }
        out.push(Problem {
            device: d.pci.clone(),
            what: format!(
                "PCIe {at} runs at {} instead of {}",
                l.current.label(),
                l.max.label()
            ),
            evidence,
            fix: if idle {
                "Read current_link_speed again while the GPU is busy; only a lower speed under load is a problem.".into()
            } else {
                format!(
                    "Reseat the GPU and its riser/cable, and check the slot's BIOS settings (lane bifurcation, PCIe generation); compare LnkSta with LnkCap in `lspci -vv -s {}`.",
                    l.limited_by.as_deref().unwrap_or(&l.package_port)
                )
            },
            event: "link-degraded",
            action: None,
            severity: if idle { Severity::Info } else { Severity::Warn },
        });
    }
    out
}

/// XGMI hives (§7): within one hive the physical ids and device ids are unique and the number
/// of member GPUs found equals the `nodeN` links the hive lists; a GPU of a model whose other
/// GPUs are in a hive but which is in none has dropped out.
pub fn xgmi_problems(devs: &[DeviceHealth]) -> Vec<Problem> {
    let mut out = Vec::new();
    let mut hives: BTreeMap<u64, Vec<&DeviceHealth>> = BTreeMap::new();
    for d in devs {
        if let Some(h) = d.xgmi.as_ref().and_then(|x| x.hive_id) {
            hives.entry(h).or_default().push(d);
        }
    }
    for (hive, members) in &hives {
        let pcis: Vec<&str> = members.iter().map(|d| d.pci.as_str()).collect();
        let mut evidence: Vec<String> = members
            .iter()
            .map(|d| {
                let x = d.xgmi.as_ref();
                format!(
                    "{}: hive {hive}, xgmi_physical_id {}, xgmi_device_id {}, hive lists {} node(s)",
                    d.pci,
                    x.and_then(|x| x.physical_id).map(|v| v.to_string()).unwrap_or_else(|| "?".into()),
                    x.and_then(|x| x.device_id).map(|v| v.to_string()).unwrap_or_else(|| "?".into()),
                    x.and_then(|x| x.hive_nodes).map(|v| v.to_string()).unwrap_or_else(|| "?".into()),
                )
            })
            .collect();
        let mut what = Vec::new();
        let dup = |f: &dyn Fn(&DeviceHealth) -> Option<u64>| {
            let mut seen = BTreeMap::new();
            for d in members {
                if let Some(v) = f(d) {
                    *seen.entry(v).or_insert(0) += 1;
                }
            }
            seen.into_iter()
                .filter(|(_, n)| *n > 1)
                .map(|(v, _)| v)
                .collect::<Vec<_>>()
        };
        let dup_phys = dup(&|d| d.xgmi.as_ref()?.physical_id.map(u64::from));
        if !dup_phys.is_empty() {
            what.push(format!(
                "physical id(s) {dup_phys:?} appear on several GPUs"
            ));
        }
        let dup_dev = dup(&|d| d.xgmi.as_ref()?.device_id);
        if !dup_dev.is_empty() {
            what.push(format!(
                "xgmi_device_id(s) {dup_dev:?} appear on several GPUs"
            ));
        }
        let listed: Vec<usize> = members
            .iter()
            .filter_map(|d| d.xgmi.as_ref()?.hive_nodes)
            .collect();
        if let Some(&n) = listed.iter().max() {
            if n != members.len() {
                what.push(format!(
                    "the hive lists {n} node(s) but {} GPU(s) report this hive",
                    members.len()
                ));
            }
        }
        if !what.is_empty() {
            evidence.sort();
            out.push(Problem {
                device: pcis.join(","),
                what: format!("XGMI hive {hive} is inconsistent: {}", what.join("; ")),
                evidence,
                fix: "Check the kernel log for 'XGMI: Failed to add node' or 'Set topology failure'; reload amdgpu or reboot so every GPU rejoins the hive.".into(),
                event: "hive-inconsistent",
                action: None,
                severity: Severity::Warn,
            });
        }
    }
    // GPUs of a model that is in hives, outside any hive.
    let mut by_model: BTreeMap<String, (Vec<&DeviceHealth>, Vec<&DeviceHealth>)> = BTreeMap::new();
    for d in devs {
        let Some(m) = d.model() else { continue };
        let e = by_model.entry(m).or_default();
        if d.xgmi.as_ref().and_then(|x| x.hive_id).is_some() {
            e.0.push(d);
        } else {
            e.1.push(d);
        }
    }
    for (model, (inside, outside)) in by_model {
        if inside.is_empty() || outside.is_empty() {
            continue;
        }
        for d in outside {
            out.push(Problem {
                device: d.pci.clone(),
                what: format!("not in any XGMI hive while {} other {model} GPU(s) are", inside.len()),
                evidence: vec![
                    format!("{}/xgmi_hive_info/xgmi_hive_id: absent", d.dir),
                    format!(
                        "in a hive: {}",
                        inside.iter().map(|d| d.pci.as_str()).collect::<Vec<_>>().join(", ")
                    ),
                ],
                fix: "Check the kernel log for 'XGMI: Failed to add node'; a GPU that cannot join its hive needs a reset or reboot, and if it persists a check of the XGMI bridge/board.".into(),
                event: "not-in-hive",
                action: None,
                severity: Severity::Warn,
            });
        }
    }
    out
}

/// Groups devices by model (PCI id, else product name); models with one GPU are left out.
fn by_model(devs: &[DeviceHealth]) -> BTreeMap<String, Vec<&DeviceHealth>> {
    let mut m: BTreeMap<String, Vec<&DeviceHealth>> = BTreeMap::new();
    for d in devs {
        if let Some(k) = d.model() {
            m.entry(k).or_default().push(d);
        }
    }
    m.retain(|_, v| v.len() > 1);
    m
}

/// Firmware versions that differ between GPUs of one model (§5 `fw_version/`). Firmware a GPU
/// does not list is not compared (6.11+ hides absent firmware).
pub fn firmware_problems(devs: &[DeviceHealth]) -> Vec<Problem> {
    let mut out = Vec::new();
    for (model, group) in by_model(devs) {
        let mut names: Vec<&String> = group.iter().flat_map(|d| d.firmware.keys()).collect();
        names.sort();
        names.dedup();
        for name in names {
            let mut values: BTreeMap<u32, Vec<&str>> = BTreeMap::new();
            for d in &group {
                if let Some(v) = d.firmware.get(name) {
                    values.entry(*v).or_default().push(d.pci.as_str());
                }
            }
            if values.len() < 2 {
                continue;
            }
            // The GPUs on the less common version(s) are the odd ones out.
            let common = values.iter().max_by_key(|(_, v)| v.len()).map(|(k, _)| *k);
            let odd: Vec<&str> = values
                .iter()
                .filter(|(k, _)| Some(**k) != common)
                .flat_map(|(_, v)| v.iter().copied())
                .collect();
            out.push(Problem {
                device: odd.join(","),
                what: format!("{name} firmware differs between {model} GPUs"),
                evidence: values
                    .iter()
                    .map(|(v, pcis)| format!("{name}_fw_version 0x{v:08x}: {}", pcis.join(", ")))
                    .collect(),
                fix: "GPUs of one model in one node should run one firmware set: compare vbios_version, update the odd GPU(s) to the node's firmware/IFWI release, and make sure one amdgpu firmware package is installed.".into(),
                event: "firmware-differs",
                action: None,
                severity: Severity::Warn,
            });
        }
    }
    out
}

/// Partition modes that differ between GPUs of one model (§6), and `UNKNOWN` modes.
pub fn partition_problems(devs: &[DeviceHealth]) -> Vec<Problem> {
    let mut out = Vec::new();
    for (model, group) in by_model(devs) {
        for (what, get) in [
            (
                "compute",
                (|d: &DeviceHealth| d.partition.as_ref()?.compute.clone())
                    as fn(&DeviceHealth) -> Option<String>,
            ),
            ("memory", |d: &DeviceHealth| {
                d.partition.as_ref()?.memory.clone()
            }),
        ] {
            let mut values: BTreeMap<String, Vec<&str>> = BTreeMap::new();
            for d in &group {
                if let Some(v) = get(d) {
                    values.entry(v).or_default().push(d.pci.as_str());
                }
            }
            if values.len() < 2 {
                continue;
            }
            out.push(Problem {
                device: values.values().flatten().copied().collect::<Vec<_>>().join(","),
                what: format!("{model} GPUs are in different {what} partition modes"),
                evidence: values
                    .iter()
                    .map(|(v, p)| format!("current_{what}_partition {v}: {}", p.join(", ")))
                    .collect(),
                fix: format!("Set one {what} partition mode on every GPU (amd-smi set --{what}-partition, or write current_{what}_partition as root), so every GPU exposes the same devices to the scheduler."),
                event: "partition-differs",
                action: None,
                severity: Severity::Warn,
            });
        }
    }
    for d in devs {
        let Some(p) = &d.partition else { continue };
        for (what, v) in [("compute", &p.compute), ("memory", &p.memory)] {
            if v.as_deref() == Some("UNKNOWN") {
                out.push(Problem {
                    device: d.pci.clone(),
                    what: format!("{what} partition mode is UNKNOWN"),
                    evidence: vec![format!("{}/current_{what}_partition: UNKNOWN", d.dir)],
                    fix: format!("Set the {what} partition mode again and check the kernel log for partition switch errors."),
                    event: "partition-unknown",
                    action: None,
                    severity: Severity::Warn,
                });
            }
        }
    }
    out
}

/// Temperatures at their critical/emergency limits (hwmon, §4) and throttlers active in
/// `gpu_metrics` (§3): thermal ones warn when the sample confirms them (`throttle_problems`),
/// power/current ones are info (a GPU at its power limit under load is working as designed).
pub fn thermal_problems(devs: &[DeviceHealth], limits: &Limits) -> Vec<Problem> {
    let mut out = Vec::new();
    for d in devs {
        let Some(t) = &d.thermal else { continue };
        let hw = t.hwmon.as_deref().unwrap_or("hwmon");
        for s in &t.temps {
            let Some(v) = s.input else { continue };
            let label = s
                .label
                .clone()
                .unwrap_or_else(|| format!("temp{}", s.index));
            let (limit, name, sev) = match (s.emergency, s.crit) {
                (Some(e), _) if v >= e => (e, "emergency", Severity::Fail),
                (_, Some(c)) if v >= c => (c, "critical", Severity::Warn),
                _ => continue,
            };
            out.push(Problem {
                device: d.pci.clone(),
                what: format!("{label} temperature {:.1} °C at or above its {name} limit {:.1} °C", v as f64 / 1000.0, limit as f64 / 1000.0),
                evidence: vec![format!("{hw}/temp{}_input: {v}; temp{}_{}: {limit} (m°C)", s.index, s.index, if name == "emergency" { "emergency" } else { "crit" })],
                fix: "Check the node's cooling (fans, airflow, inlet temperature, blanking panels) and the GPU's heatsink contact; temp*_crit is the critical maximum and temp*_emergency the ASIC-shutdown limit (amdgpu's hwmon documentation).".into(),
                event: "temperature-limit",
                action: None,
                severity: sev,
            });
        }
        let Some(m) = &t.metrics else { continue };
        throttle_problems(d, t, m, limits, &mut out);
    }
    out
}

/// The sensor a temperature throttler names, for the cross-check: (metrics value, hwmon label,
/// hwmon index). TEMP_HOTSPOT/TEMP_GPU/TEMP_CORE and MI300's THERMAL_SOCKET limit the junction
/// (hotspot) temperature, TEMP_EDGE the edge, TEMP_MEM and THERMAL_HBM the memory; the others
/// (voltage regulators, liquid, PROCHOT) have no sensor here and are believed.
fn throttler_sensor(name: &str, m: &GpuMetrics) -> Option<(Option<u16>, &'static str, u32)> {
    match name {
        "TEMP_HOTSPOT" | "TEMP_GPU" | "TEMP_CORE" | "THERMAL_SOCKET" => {
            Some((m.sample.hotspot_c, "junction", 2))
        }
        "TEMP_EDGE" => Some((m.sample.edge_c, "edge", 1)),
        "TEMP_MEM" | "THERMAL_HBM" => Some((m.sample.mem_c, "mem", 3)),
        _ => None,
    }
}

/// (temperature, critical limit) in m°C of the sensor a throttler names: the sample's value,
/// else the hwmon input; the limit is hwmon's `temp*_crit` (amdgpu's hwmon: edge 1, junction
/// 2, mem 3, found by label first).
fn sensor_reading(t: &Thermal, m: &GpuMetrics, name: &str) -> Option<(Option<i64>, Option<i64>)> {
    let (metric, label, index) = throttler_sensor(name, m)?;
    let hw = t
        .temps
        .iter()
        .find(|s| s.label.as_deref() == Some(label))
        .or_else(|| {
            t.temps
                .iter()
                .find(|s| s.index == index && s.label.is_none())
        });
    let value = metric
        .map(|c| i64::from(c) * 1000)
        .or_else(|| hw.and_then(|s| s.input));
    Some((value, hw.and_then(|s| s.crit)))
}

/// Throttlers active in `gpu_metrics` (§3), each cross-checked with the same sample (issue 26,
/// item 7). Some SMU firmware keeps a temperature bit set whatever the temperature: the Radeon
/// AI PRO R9700 (Navi 48, SMU 14.0.2) reports TEMP_HOTSPOT at idle at 37 °C and under load at
/// 63-75 °C with a 110 °C limit (ROCm/rocm-systems#11781), RDNA3 boards do the same
/// (Umio-Yasuno/libdrm-amdgpu-sys-rs#7, MangoHud#1690). So a temperature bit is believed when
/// its sensor is within `throttle_margin_c` of its critical limit; when no sensor or limit can
/// tell, when the GPU is busy (gfx activity above `idle_activity_pct`). An idle GPU far from its
/// limits is not throttled by anything that matters; a bit the sample contradicts is reported
/// as information, not as a warning.
fn throttle_problems(
    d: &DeviceHealth,
    t: &Thermal,
    m: &GpuMetrics,
    limits: &Limits,
    out: &mut Vec<Problem>,
) {
    let active = active_throttlers(m);
    if active.is_empty() {
        return;
    }
    let activity = m.sample.gfx_activity_pct;
    let idle = activity.is_some_and(|a| a <= limits.idle_activity_pct);
    let mut believed: Vec<&str> = Vec::new();
    let mut doubted: Vec<String> = Vec::new();
    let mut power: Vec<&str> = Vec::new();
    for (name, kind) in &active {
        if *kind != ThrottleKind::Temperature {
            power.push(name);
            continue;
        }
        let when = if idle {
            format!(
                " while the GPU is idle (gfx activity {}%)",
                activity.unwrap_or(0)
            )
        } else {
            String::new()
        };
        match sensor_reading(t, m, name) {
            Some((Some(v), Some(crit))) => {
                if v >= crit - limits.throttle_margin_c * 1000 {
                    believed.push(name);
                } else {
                    doubted.push(format!(
                        "{name} with the sensor at {:.0} °C, {:.0} °C below its {:.0} °C limit{when}",
                        v as f64 / 1000.0,
                        (crit - v) as f64 / 1000.0,
                        crit as f64 / 1000.0
                    ));
                }
            }
            _ if idle => doubted.push(format!("{name}{when}")),
            _ => believed.push(name),
        }
    }
    let mut ev = format!(
        "{}/gpu_metrics v{}_{}: throttle_status {}, indep_throttle_status {}",
        d.dir,
        m.format_revision,
        m.content_revision,
        m.throttle_status
            .map(|v| format!("{v:#x}"))
            .unwrap_or_else(|| "n/a".into()),
        m.indep_throttle_status
            .map(|v| format!("{v:#x}"))
            .unwrap_or_else(|| "n/a".into())
    );
    let na = |v: Option<u16>, unit: &str| {
        v.map(|x| format!("{x}{unit}"))
            .unwrap_or_else(|| "n/a".into())
    };
    ev.push_str(&format!(
        "; hotspot {}, mem {}, gfx activity {}, gfxclk {}",
        na(m.sample.hotspot_c, " °C"),
        na(m.sample.mem_c, " °C"),
        na(activity, "%"),
        na(m.sample.current_gfxclk_mhz, " MHz")
    ));
    let mut evidence = vec![ev];
    if let (Some(avg), Some(cap)) = (t.power_average.or(t.power_input), t.power_cap) {
        evidence.push(format!(
            "power {} W of cap {} W",
            avg / 1_000_000,
            cap / 1_000_000
        ));
    }
    if !believed.is_empty() {
        out.push(Problem {
            device: d.pci.clone(),
            what: format!("thermal throttling: {}", believed.join(", ")),
            evidence: evidence.clone(),
            fix: "Check the node's cooling and the GPU's temperatures under load; thermal throttling lowers clocks and makes this GPU the slowest rank of a job.".into(),
            event: "throttling",
            action: None,
            severity: Severity::Warn,
        });
    } else if !power.is_empty() {
        out.push(Problem {
            device: d.pci.clone(),
            what: format!(
                "throttling at a power/current limit{}: {}",
                if idle { " while idle" } else { "" },
                power.join(", ")
            ),
            evidence: evidence.clone(),
            fix: "Expected under full load; if the GPU is idle or slower than its peers, compare power1_cap with the other GPUs.".into(),
            event: "throttle-unconfirmed",
            action: None,
            severity: Severity::Info,
        });
    }
    if !doubted.is_empty() {
        out.push(Problem {
            device: d.pci.clone(),
            what: format!(
                "temperature throttle bit not taken as throttling: {} (the firmware of some GPUs sets it without throttling, ROCm/rocm-systems#11781)",
                doubted.join("; ")
            ),
            evidence,
            fix: String::new(),
            event: "throttle-idle",
            action: None,
            severity: Severity::Info,
        });
    }
}

/// PCIe errors (issue 26, item 3): the AER counters of the GPU and of every port above it
/// (`Documentation/ABI/testing/sysfs-bus-pci-devices-aer_stats`: an error caused by the GPU may
/// be counted only at its link partner, so the ports count as much as the GPU), amdgpu's replay
/// count and, for v1_4 to v1_8, the replays and recoveries in `gpu_metrics`. A fatal error fails
/// (the link was reset: drain), a non-fatal one warns, correctable errors and replays warn above
/// `limits.pcie_ce_warn`. Unreadable files are information ("could not read"); files the
/// device does not support are nothing.
pub fn pcie_error_problems(devs: &[DeviceHealth], limits: &Limits) -> Vec<Problem> {
    let mut out = Vec::new();
    for d in devs {
        let pe = &d.pcie_errors;
        for sev in [
            AerSeverity::Fatal,
            AerSeverity::NonFatal,
            AerSeverity::Correctable,
        ] {
            let file = match sev {
                AerSeverity::Fatal => "aer_dev_fatal",
                AerSeverity::NonFatal => "aer_dev_nonfatal",
                AerSeverity::Correctable => "aer_dev_correctable",
            };
            let mut at = Vec::new();
            let mut evidence = Vec::new();
            for port in &pe.aer {
                let Some(st) = port.stats.get(&sev) else {
                    continue;
                };
                let over = match sev {
                    AerSeverity::Correctable => st.total > limits.pcie_ce_warn,
                    _ => st.total > 0,
                };
                if !over {
                    continue;
                }
                at.push(if port.is_gpu {
                    format!("the GPU {}: {}", port.bdf, st.total)
                } else if port.vendor == Some(super::parse::VENDOR_ATI) {
                    format!(
                        "{}, the switch inside the GPU package: {}",
                        port.bdf, st.total
                    )
                } else {
                    format!("port {} above the GPU: {}", port.bdf, st.total)
                });
                let kinds: Vec<String> = st.kinds.iter().map(|(k, n)| format!("{k} {n}")).collect();
                evidence.push(format!(
                    "{}/{file}: total {}{}",
                    port.dir,
                    st.total,
                    if kinds.is_empty() {
                        String::new()
                    } else {
                        format!(" ({})", kinds.join(", "))
                    }
                ));
            }
            if at.is_empty() {
                continue;
            }
            let (event, action) = match sev {
                AerSeverity::Fatal => ("aer-fatal", Some(Action::DrainAndInspect)),
                AerSeverity::NonFatal => ("aer-nonfatal", None),
                // Corrected by the link itself: watch the count (gpud and DCGM raise no repair
                // for corrected PCIe errors below their rate limits).
                AerSeverity::Correctable => ("aer-correctable", Some(Action::None)),
            };
            let (what, fix, severity) = match sev {
                AerSeverity::Fatal => (
                    "fatal PCIe errors (ERR_FATAL)".to_string(),
                    "Drain the GPU: a fatal PCIe error resets the link and loses the work in flight. Find the 'AER: ... Uncorrectable (Fatal)' lines of the named device in the kernel log, reseat the GPU and its riser/cable; if it comes back, send the GPU (or, when the port above it reports the error, the board or riser) for inspection.",
                    Severity::Fail,
                ),
                AerSeverity::NonFatal => (
                    "uncorrectable non-fatal PCIe errors (ERR_NONFATAL)".to_string(),
                    "A transaction was lost (completion timeout, poisoned or malformed TLP): match the 'AER: ... Uncorrectable (Non-Fatal)' kernel-log lines of the named device with failed jobs, reseat the card and riser, and watch whether the count grows.",
                    Severity::Warn,
                ),
                AerSeverity::Correctable => (
                    format!("more than {} correctable PCIe errors (ERR_COR)", limits.pcie_ce_warn),
                    "The link corrects these by replaying packets, but this many mean a marginal link (riser, cable, slot, signal integrity): reseat, compare with the node's other GPUs, and try another slot if the count keeps growing.",
                    Severity::Warn,
                ),
            };
            out.push(Problem {
                device: d.pci.clone(),
                what: format!("{what} since boot on {}", at.join("; ")),
                evidence,
                fix: fix.into(),
                event,
                action,
                severity,
            });
        }
        let metric = d
            .thermal
            .as_ref()
            .and_then(|t| t.metrics.as_ref())
            .map(|m| &m.pcie);
        let (replays, src) = match (pe.replay_count, metric.and_then(|p| p.replay)) {
            (Some(n), _) => (Some(n), format!("{}/pcie_replay_count: {n}", d.dir)),
            (None, Some(n)) => (
                Some(n),
                format!("{}/gpu_metrics: pcie_replay_count_acc {n}", d.dir),
            ),
            _ => (None, String::new()),
        };
        if let Some(n) = replays.filter(|n| *n > limits.pcie_ce_warn) {
            let mut evidence = vec![src];
            if let Some(p) = metric {
                if let Some(r) = p.recovery {
                    evidence.push(format!("gpu_metrics: pcie_l0_to_recov_count_acc {r}"));
                }
                if let (Some(s), Some(r)) = (p.nak_sent, p.nak_rcvd) {
                    evidence.push(format!("gpu_metrics: NAKs sent {s}, received {r}"));
                }
                if let Some(r) = p.replay_rollover.filter(|r| *r > 0) {
                    evidence.push(format!("gpu_metrics: pcie_replay_rover_count_acc {r}"));
                }
                if let Some(r) = p.other_end_recovery {
                    evidence.push(format!(
                        "gpu_metrics: pcie_lc_perf_other_end_recovery {r} (recoveries the link partner entered)"
                    ));
                }
            }
            out.push(Problem {
                device: d.pci.clone(),
                what: format!("{n} PCIe replays on the GPU's link since the driver loaded (more than {})", limits.pcie_ce_warn),
                evidence,
                fix: "Replays are packets the link had to resend: many mean a marginal link (riser, cable, slot). Reseat the GPU and compare with the node's other GPUs.".into(),
                event: "pcie-replays",
                action: None,
                severity: Severity::Warn,
            });
        }
        if !pe.unreadable.is_empty() {
            out.push(Problem {
                device: d.pci.clone(),
                what: format!("could not read {} PCIe error file(s)", pe.unreadable.len()),
                evidence: pe
                    .unreadable
                    .iter()
                    .map(|i| format!("{}: {}", i.path, i.error))
                    .collect(),
                fix: "Run as root to read them (or read again after a reset completes).".into(),
                event: "unreadable",
                action: None,
                severity: Severity::Info,
            });
        }
    }
    out
}

/// Per-link XGMI state (issue 26, item 3; `health.xgmi-links`), each problem with the name of
/// its event. The states are `gpu_metrics` v1_7/v1_8 `xgmi_link_status[8]` (1 up, 0 down,
/// all-ones not a link); what the hive expects is `xgmi_num_links`, the links the XGMI TA's
/// topology counts to each node, summed. Fewer links up than the topology counts fails
/// (`link-down`), naming the links that are down; a link down while the topology is not
/// readable, or while enough links are up, is information (`link-inactive`: on a platform
/// that wires fewer than eight links, unused slots may read 0); values the driver never
/// writes are information; an unreadable `xgmi_num_links` is "could not read".
pub fn xgmi_link_problems(devs: &[DeviceHealth]) -> Vec<Problem> {
    use super::parse::XgmiLinkState;
    let mut out = Vec::new();
    for d in devs {
        let xl = &d.xgmi_links;
        if !xl.unreadable.is_empty() {
            out.push(Problem {
                device: d.pci.clone(),
                what: "could not read the hive's XGMI link counts".into(),
                evidence: xl
                    .unreadable
                    .iter()
                    .map(|i| format!("{}: {}", i.path, i.error))
                    .collect(),
                fix: "Read again as root, or after a reset completes.".into(),
                event: "unreadable",
                action: None,
                severity: Severity::Info,
            });
        }
        let Some(m) = d.thermal.as_ref().and_then(|t| t.metrics.as_ref()) else {
            continue;
        };
        let Some(links) = &m.xgmi_links else {
            continue;
        };
        let idx = |want: &dyn Fn(&XgmiLinkState) -> bool| -> Vec<usize> {
            links
                .iter()
                .enumerate()
                .filter(|(_, s)| want(s))
                .map(|(i, _)| i)
                .collect()
        };
        let up = idx(&|s| *s == XgmiLinkState::Up);
        let down = idx(&|s| *s == XgmiLinkState::Down);
        let odd: Vec<String> = links
            .iter()
            .enumerate()
            .filter_map(|(i, s)| match s {
                XgmiLinkState::Unknown(v) => Some(format!("link {i}: {v}")),
                _ => None,
            })
            .collect();
        let names = |v: &[usize]| -> String {
            v.iter()
                .map(|i| format!("link {i}"))
                .collect::<Vec<_>>()
                .join(", ")
        };
        let states: String = links
            .iter()
            .map(|s| match s {
                XgmiLinkState::Up => "1".to_string(),
                XgmiLinkState::Down => "0".to_string(),
                XgmiLinkState::NotPresent => "-".to_string(),
                XgmiLinkState::Unknown(v) => v.to_string(),
            })
            .collect::<Vec<_>>()
            .join(" ");
        let mut evidence = vec![format!(
            "{}/gpu_metrics v{}_{}: xgmi_link_status [{states}] (1 up, 0 down, - not a link)",
            d.dir, m.format_revision, m.content_revision
        )];
        let expected: Option<u32> = xl
            .num_links
            .as_ref()
            .map(|v| v.iter().map(|n| u32::from(*n)).sum());
        if let Some(v) = &xl.num_links {
            evidence.push(format!(
                "{}/xgmi_num_links: {} (the hive's topology: {} link(s))",
                d.dir,
                v.iter()
                    .map(|n| format!("{n:02x}"))
                    .collect::<Vec<_>>()
                    .join(" "),
                expected.unwrap_or(0)
            ));
        }
        match expected {
            Some(e) if (up.len() as u32) < e && !down.is_empty() => out.push(Problem {
                    device: d.pci.clone(),
                    what: format!(
                        "XGMI {} down: {} of the {e} link(s) the hive's topology counts are up",
                        names(&down),
                        up.len()
                    ),
                    evidence,
                    fix: "A link that does not train leaves the hive's collectives to route around it or hang. A GPU reset cannot retrain one link alone: amdgpu resets every GPU of the hive together (amdgpu_device_gpu_recover walks hive->device_list), so drain the node and reboot it; if the link is down again after the reboot, reseat or replace the XGMI bridge/baseboard (hardware inspection).".into(),
                    event: "link-down",
                    // The driver retrains XGMI links only by resetting the whole hive
                    // (amdgpu_device_gpu_recover resets every device of hive->device_list),
                    // which on a node in use is a reboot; a link still down after it is
                    // hardware (health.xgmi-links doc).
                    action: Some(Action::RebootNode),
                    severity: Severity::Fail,
                }),
            Some(e) if (up.len() as u32) < e => out.push(Problem {
                    device: d.pci.clone(),
                    what: format!(
                        "XGMI: {} link(s) up, the hive's topology counts {e}, none reported down",
                        up.len()
                    ),
                    evidence,
                    fix: String::new(),
                    event: "link-count",
                    action: None,
                    severity: Severity::Info,
                }),
            _ if !down.is_empty() => out.push(Problem {
                    device: d.pci.clone(),
                    what: format!(
                        "XGMI {} inactive ({} up){}",
                        names(&down),
                        up.len(),
                        if expected.is_some() {
                            ", as many as the hive's topology counts"
                        } else {
                            "; xgmi_num_links not readable to tell whether it should be up"
                        }
                    ),
                    evidence,
                    fix: String::new(),
                    event: "link-inactive",
                    action: None,
                    severity: Severity::Info,
                }),
            _ => {}
        }
        if !odd.is_empty() {
            out.push(Problem {
                device: d.pci.clone(),
                what: format!(
                    "XGMI link status values the driver does not write: {}",
                    odd.join(", ")
                ),
                evidence: vec![format!(
                    "{}/gpu_metrics: xgmi_link_status [{states}]",
                    d.dir
                )],
                fix: String::new(),
                event: "link-unknown",
                action: None,
                severity: Severity::Info,
            });
        }
    }
    out
}

/// amdgpu's CPER records (issue 26, item 3; `health.cper`), each problem with its event.
/// Records are evidence of what the driver already saw: a record whose section says the
/// bad-page threshold was exceeded fails (`bad-page-threshold`: the GPU is due for
/// replacement); fatal records warn (`fatal`), non-fatal uncorrected ones warn (`uncorrected`);
/// corrected ones are information (`corrected`). A file that could not be read is information
/// ("could not read", `unreadable`), never a failure; an absent or refused file is nothing.
pub fn cper_problems(devs: &[DeviceHealth]) -> Vec<Problem> {
    use super::cper::{CperRecord, CperSeverity};
    use super::read::CperRead;
    let mut out = Vec::new();
    let describe = |r: &CperRecord| -> String {
        let mut parts = vec![format!(
            "record {} ({}, {}{})",
            r.record_id,
            r.severity.label(),
            r.notify.label(),
            r.timestamp
                .as_ref()
                .map(|t| format!(", {t}"))
                .unwrap_or_default()
        )];
        for s in &r.sections {
            let mut t = format!("{} section, {}", s.kind.label(), s.severity.label());
            if let Some(f) = &s.fru_text {
                t.push_str(&format!(", FRU {f}"));
            }
            if let Some(st) = s.aca_status {
                t.push_str(&format!(", ACA STATUS {st:#018x}"));
            }
            if s.threshold_exceeded {
                t.push_str(", bad-page threshold exceeded");
            }
            if s.latent {
                t.push_str(", latent (poison)");
            }
            parts.push(t);
        }
        parts.join("; ")
    };
    for d in devs {
        let (path, log) = match &d.cper {
            CperRead::Read { path, log } => (path, log),
            CperRead::Unreadable { path, error } => {
                out.push(Problem {
                        device: d.pci.clone(),
                        what: "could not read the GPU's CPER records".into(),
                        evidence: vec![format!("{path}: {error}")],
                        fix: "Run as root with debugfs mounted (mount -t debugfs none /sys/kernel/debug) to read them.".into(),
                        event: "unreadable",
                        action: None,
                        severity: Severity::Info,
                    });
                continue;
            }
            _ => continue,
        };
        let ev = |pred: &dyn Fn(&CperRecord) -> bool| -> Vec<String> {
            log.records
                .iter()
                .filter(|r| pred(r))
                .take(8)
                .map(|r| format!("{path}: {}", describe(r)))
                .collect()
        };
        let threshold = |r: &CperRecord| r.sections.iter().any(|s| s.threshold_exceeded);
        let n_threshold = log.records.iter().filter(|r| threshold(r)).count();
        if n_threshold > 0 {
            out.push(Problem {
                    device: d.pci.clone(),
                    what: format!("CPER: the bad-page threshold was exceeded ({n_threshold} record(s))"),
                    evidence: ev(&threshold),
                    fix: "amdgpu wrote this record when the retired VRAM pages reached amdgpu.bad_page_threshold (amdgpu_ras_eeprom_update_header): drain the node and send the GPU for replacement (the retired pages themselves: the bad-page check).".into(),
                    event: "bad-page-threshold",
                    // amdgpu writes this record when the bad pages reach the threshold
                    // (amdgpu_ras_eeprom_update_header), the driver's own replacement signal.
                    action: Some(Action::DrainAndInspect),
                    severity: Severity::Fail,
                });
        }
        // Actions as health.ras and kernel.ras give the same errors (docs/fleet.md): a fatal
        // or uncorrected record is an uncorrectable hardware error the driver also counts in
        // its RAS counters and toward the bad-page threshold (amdgpu_ras.c), so drain and
        // inspect; corrected ones are watched.
        for (sev, event, action, what, fix, severity) in [
            (
                CperSeverity::Fatal,
                "fatal",
                Some(Action::DrainAndInspect),
                "fatal error record(s)",
                "A fatal error made amdgpu reset the GPU (amdgpu_ras_global_ras_isr, then GPU recovery) and lost the jobs on it. Drain the GPU and have it inspected as for uncorrectable RAS errors, quoting these records and their ACA STATUS values (amd-smi decodes them into AFIDs for AMD's Service Action Guide).",
                Severity::Warn,
            ),
            (
                CperSeverity::Uncorrected,
                "uncorrected",
                Some(Action::DrainAndInspect),
                "non-fatal uncorrected error record(s)",
                "Uncorrected (poison) errors end the process that consumed the data and may reset the GPU; drain the GPU, restart the affected jobs elsewhere and have it inspected as for uncorrectable RAS errors.",
                Severity::Warn,
            ),
            (
                CperSeverity::Corrected,
                "corrected",
                None,
                "corrected error record(s)",
                "",
                Severity::Info,
            ),
        ] {
            let pick = |r: &CperRecord| r.severity == sev && !threshold(r);
            let n = log.records.iter().filter(|r| pick(r)).count();
            if n == 0 {
                continue;
            }
            out.push(Problem {
                device: d.pci.clone(),
                what: format!("CPER: {n} {what} since the driver loaded"),
                evidence: ev(&pick),
                fix: fix.into(),
                event,
                action,
                severity,
            });
        }
        if !log.damaged.is_empty() || log.more > 0 {
            let mut evidence: Vec<String> =
                log.damaged.iter().map(|w| format!("{path}: {w}")).collect();
            if log.more > 0 {
                evidence.push(format!("{path}: {} more record(s) not decoded", log.more));
            }
            out.push(Problem {
                device: d.pci.clone(),
                what: "CPER ring holds records that could not be decoded".into(),
                evidence,
                fix: String::new(),
                event: "undecoded",
                action: None,
                severity: Severity::Info,
            });
        }
    }
    out
}

/// Health files that exist but could not be read or parsed (§0: EPERM/EBUSY during reset or
/// suspend; EINVAL when a PCI config read fails).
pub fn read_problems(h: &Health) -> Vec<Problem> {
    let mut out = Vec::new();
    if !h.issues.is_empty() {
        out.push(Problem {
            device: String::new(),
            what: "machine-wide amdgpu files could not be read".into(),
            evidence: h.issues.iter().map(|i| format!("{}: {}", i.path, i.error)).collect(),
            fix: "Read them again; if the error stays, check the amdgpu module's state (lsmod, dmesg).".into(),
            event: "unreadable",
            action: None,
            severity: Severity::Info,
        });
    }
    for d in &h.devices {
        if d.issues.is_empty() {
            continue;
        }
        out.push(Problem {
            device: d.pci.clone(),
            what: format!("{} health file(s) could not be read or parsed", d.issues.len()),
            evidence: d.issues.iter().map(|i| format!("{}: {}", i.path, i.error)).collect(),
            fix: "EBUSY/EPERM: the GPU is in reset or runtime-suspended, read again later; other errors: check the kernel log for this GPU.".into(),
            event: "unreadable",
            action: None,
            severity: Severity::Info,
        });
    }
    out
}

/// Every judgement, most severe first (stable within a severity).
pub fn all(h: &Health, limits: &Limits) -> Vec<Problem> {
    let d = &h.devices;
    let mut v = ras_problems(d, limits);
    v.extend(bad_page_problems(
        d,
        h.bad_page_threshold,
        h.kernel.as_deref(),
        limits,
    ));
    v.extend(link_problems(d));
    v.extend(xgmi_problems(d));
    v.extend(firmware_problems(d));
    v.extend(partition_problems(d));
    v.extend(thermal_problems(d, limits));
    v.extend(pcie_error_problems(d, limits));
    v.extend(xgmi_link_problems(d));
    v.extend(cper_problems(d));
    v.extend(read_problems(h));
    v.sort_by_key(|p| std::cmp::Reverse(p.severity));
    v
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gpu::health::parse::{
        parse_gpu_metrics, BadPage, BadPages, Partition, RasCount, RasSource, TempSensor, Xgmi,
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
        assert!(
            bad_page_problems(devs, Some(BadPageThreshold::Default), Some("6.8.0"), &l).is_empty()
        );
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
        assert!(
            xgmi_link_problems(&[links([1, 1, N, N, N, N, N, N], Some(vec![0, 2]))]).is_empty()
        );
        assert!(xgmi_link_problems(&[links([N; 8], None)]).is_empty());
        // A v1_3 sample has no link states: nothing to judge.
        assert!(xgmi_link_problems(&[hotspot_bit(40, 0)]).is_empty());
    }
}

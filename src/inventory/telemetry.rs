//! The run's per-GPU telemetry (issue 26, item 5), built from what the health checks and the
//! kernel-log checks already read: no file is read again and nothing is read for it. The value
//! is `report::telemetry::Telemetry`, printed by `--json` and `--prometheus` alike.

use super::Inventory;
use crate::gpu::health::parse::{
    active_throttlers, parse_kernel_release, threshold_policy, AerSeverity, BadPageFlag, RasCount,
    RasSource, ThrottleKind,
};
use crate::gpu::health::{DeviceHealth, Health};
use crate::kernlog::{Event, EventKind};
use crate::report::telemetry::*;

/// The telemetry of this run, or None when the health evidence was not read (the `health.*`
/// checks did not run). Resets are counted only when the kernel log was read by this run's
/// `kernel.*` checks; the GPU's ISA only when the GPU checks read KFD.
pub(crate) fn of(inv: &Inventory) -> Option<Telemetry> {
    let health = inv.health.get()?;
    let events = match inv.kernel_log.get() {
        Some(Ok(_)) => Some(inv.kernel_events()),
        _ => None,
    };
    let isas: Vec<(&str, &str)> = inv
        .gpu
        .get()
        .map(|t| {
            t.agents
                .iter()
                .filter_map(|a| Some((a.location.as_deref()?, a.gfx.as_deref()?)))
                .collect()
        })
        .unwrap_or_default();
    Some(build(health, &isas, events))
}

/// Pure: the telemetry of `health`, the ISA from `isas` (the KFD agents' (PCI address, gfx)
/// pairs), and the resets of `events` (None: the kernel log was not read).
pub(crate) fn build(
    health: &Health,
    isas: &[(&str, &str)],
    events: Option<&[(usize, Event)]>,
) -> Telemetry {
    let kernel = health.kernel.as_deref().and_then(parse_kernel_release);
    Telemetry {
        gpus: health
            .devices
            .iter()
            .map(|d| gpu(d, health, kernel, isas, events))
            .collect(),
    }
}

fn gpu(
    d: &DeviceHealth,
    health: &Health,
    kernel: Option<(u32, u32)>,
    isas: &[(&str, &str)],
    events: Option<&[(usize, Event)]>,
) -> GpuTelemetry {
    GpuTelemetry {
        pci: d.pci.clone(),
        model: d.pci_id.clone(),
        product: d.name.clone(),
        // MI300 partitions add their index to the low bits of `location_id`: the agent whose
        // location is the PCI function itself is partition 0, the device's own ISA.
        gfx: isas
            .iter()
            .find(|(loc, _)| *loc == d.pci)
            .map(|(_, gfx)| gfx.to_string()),
        card: d.card.clone(),
        ras: ras(d),
        bad_pages: d.bad_pages.as_ref().map(|b| {
            let policy = health
                .bad_page_threshold
                .map(|t| threshold_policy(t, kernel, d.vram_total));
            BadPages {
                retired: b.count(BadPageFlag::Retired) as u64,
                pending: b.count(BadPageFlag::Pending) as u64,
                failed: b.count(BadPageFlag::Failed) as u64,
                threshold: policy.as_ref().and_then(|p| p.limit),
                threshold_basis: Some(policy.map(|p| p.basis).unwrap_or_else(|| {
                    "amdgpu.bad_page_threshold not readable here (module parameter absent)".into()
                })),
            }
        }),
        pcie: pcie(d),
        temperatures: temperatures(d),
        throttle: throttle(d),
        resets: events.map(|ev| resets(&d.pci, ev)),
    }
}

fn ras(d: &DeviceHealth) -> Vec<RasBlock> {
    let Some(r) = &d.ras else {
        return Vec::new();
    };
    r.blocks
        .iter()
        .map(|(name, b)| {
            let source = match b.source {
                RasSource::ErrCount => "err_count",
                RasSource::Aca => "aca",
            };
            let mut out = RasBlock {
                block: name.clone(),
                source: source.into(),
                ..Default::default()
            };
            if let RasCount::Counts { ue, ce, de } = b.count {
                out.accessible = true;
                out.correctable = Some(ce);
                out.uncorrectable = Some(ue);
                out.deferred = de;
            }
            out
        })
        .collect()
}

fn gts(s: &Option<crate::gpu::health::parse::LinkSpeed>) -> Option<f64> {
    s.as_ref().map(|s| f64::from(s.tenths_gts) / 10.0)
}

fn pcie(d: &DeviceHealth) -> Pcie {
    let mut p = Pcie::default();
    if let Some(l) = &d.link {
        p.current_gts = gts(&l.current.speed);
        p.current_width = l.current.width;
        p.max_gts = gts(&l.max.speed);
        p.max_width = l.max.width;
        p.link_port = l.limited_by.clone();
    }
    let e = &d.pcie_errors;
    p.aer = e
        .aer
        .iter()
        .map(|a| {
            let total = |s: AerSeverity| a.stats.get(&s).map(|st| st.total);
            Aer {
                port: a.bdf.clone(),
                gpu: a.is_gpu,
                correctable: total(AerSeverity::Correctable),
                nonfatal: total(AerSeverity::NonFatal),
                fatal: total(AerSeverity::Fatal),
            }
        })
        .collect();
    p.replays = e.replay_count;
    if let Some(m) = d.thermal.as_ref().and_then(|t| t.metrics.as_ref()) {
        p.metrics_replays = m.pcie.replay;
        p.metrics_recoveries = m.pcie.recovery;
        p.naks_sent = m.pcie.nak_sent.map(u64::from);
        p.naks_received = m.pcie.nak_rcvd.map(u64::from);
    }
    p
}

fn temperatures(d: &DeviceHealth) -> Vec<Temperature> {
    let Some(t) = &d.thermal else {
        return Vec::new();
    };
    // hwmon reports m°C (Documentation/hwmon/sysfs-interface.rst, `temp[1-*]_input`).
    let c = |v: Option<i64>| v.map(|m| m as f64 / 1000.0);
    t.temps
        .iter()
        .filter(|s| s.input.is_some() || s.crit.is_some() || s.emergency.is_some())
        .map(|s| Temperature {
            sensor: s
                .label
                .clone()
                .unwrap_or_else(|| format!("temp{}", s.index)),
            celsius: c(s.input),
            crit_celsius: c(s.crit),
            emergency_celsius: c(s.emergency),
        })
        .collect()
}

fn throttle(d: &DeviceHealth) -> Option<Throttle> {
    let m = d.thermal.as_ref()?.metrics.as_ref()?;
    if m.throttle_status.is_none() && m.indep_throttle_status.is_none() {
        return None;
    }
    Some(Throttle {
        metrics_version: format!("{}_{}", m.format_revision, m.content_revision),
        active: active_throttlers(m)
            .into_iter()
            .map(|(name, kind)| Throttler {
                name,
                kind: match kind {
                    ThrottleKind::Power => "power",
                    ThrottleKind::Current => "current",
                    ThrottleKind::Temperature => "temperature",
                    ThrottleKind::Other => "other",
                }
                .into(),
            })
            .collect(),
    })
}

/// Reset events of one device. A report's detail lines are folded into its head event by
/// `kernlog::amdgpu_events`, so each started, succeeded or failed reset counts once.
fn resets(pci: &str, events: &[(usize, Event)]) -> Resets {
    let mut r = Resets::default();
    for (_, e) in events {
        if e.device.as_deref() != Some(pci) {
            continue;
        }
        match e.kind {
            EventKind::GpuResetBegin => r.started += 1,
            EventKind::GpuResetSucceeded => r.succeeded += 1,
            EventKind::GpuResetFailed => r.failed += 1,
            _ => {}
        }
    }
    r
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn isa_comes_from_the_agent_at_the_same_address_and_resets_from_its_events() {
        let health = Health {
            devices: vec![DeviceHealth {
                pci: "0000:2b:00.0".into(),
                ..Default::default()
            }],
            ..Default::default()
        };
        let isas = [("0000:2b:00.1", "gfx1100"), ("0000:2b:00.0", "gfx90a")];
        let lines = crate::kernlog::parse_text(
            b"[ 3081.747745] amdgpu 0000:2b:00.0: amdgpu: GPU reset begin!\n\
             [ 3082.004232] amdgpu 0000:2b:00.0: amdgpu: GPU reset succeeded, trying to resume\n\
             [ 3082.910000] amdgpu 0000:2b:00.0: amdgpu: GPU reset(2) succeeded!\n\
             [ 4000.000000] amdgpu 0000:2b:00.0: amdgpu: GPU reset begin!\n\
             [ 4001.000000] amdgpu 0000:2b:00.0: amdgpu: GPU reset(3) failed with error -110\n\
             [ 4002.000000] amdgpu 0000:0b:00.0: amdgpu: GPU reset begin!\n",
        );
        let events = crate::kernlog::amdgpu_events(&lines);
        let t = build(&health, &isas, Some(&events));
        assert_eq!(t.gpus[0].gfx.as_deref(), Some("gfx90a"));
        assert_eq!(
            t.gpus[0].resets,
            Some(Resets {
                started: 2,
                succeeded: 1,
                failed: 1
            })
        );
        // The log not read in this run: no reset counts at all (not zero).
        let t = build(&health, &[], None);
        assert_eq!((t.gpus[0].gfx.as_deref(), &t.gpus[0].resets), (None, &None));
    }
}

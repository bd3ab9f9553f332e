//! Temperatures at their limits (hwmon, docs/gpu.md §4) and throttling in `gpu_metrics` (§3).

use super::{Limits, Problem, Severity};
use crate::gpu::health::parse::{active_throttlers, GpuMetrics, ThrottleKind};
use crate::gpu::health::read::{DeviceHealth, Thermal};

const FIX_TEMPERATURE: &str = "Check the node's cooling (fans, airflow, inlet temperature, \
     blanking panels) and the GPU's heatsink contact; temp*_crit is the critical maximum and \
     temp*_emergency the ASIC-shutdown limit (amdgpu's hwmon documentation).";
const FIX_THROTTLING: &str = "Check the node's cooling and the GPU's temperatures under load; \
     thermal throttling lowers clocks and makes this GPU the slowest rank of a job.";
const FIX_POWER: &str = "Expected under full load; if the GPU is idle or slower than its peers, \
     compare power1_cap with the other GPUs.";

/// Temperatures at their critical/emergency limits (hwmon, §4) and throttlers active in
/// `gpu_metrics` (§3): thermal ones warn when the sample confirms them (`throttle_problems`),
/// power/current ones are info (a GPU at its power limit under load is working as designed).
pub(crate) fn thermal_problems(devs: &[DeviceHealth], limits: &Limits) -> Vec<Problem> {
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
            let (limit, name, file, sev) = match (s.emergency, s.crit) {
                (Some(e), _) if v >= e => (e, "emergency", "emergency", Severity::Fail),
                (_, Some(c)) if v >= c => (c, "critical", "crit", Severity::Warn),
                _ => continue,
            };
            let what = format!(
                "{label} temperature {:.1} °C at or above its {name} limit {:.1} °C",
                v as f64 / 1000.0,
                limit as f64 / 1000.0
            );
            let i = s.index;
            let evidence = format!("{hw}/temp{i}_input: {v}; temp{i}_{file}: {limit} (m°C)");
            out.push(
                Problem::new(d.pci.clone(), sev, "temperature-limit", what)
                    .evidence(vec![evidence])
                    .fix(FIX_TEMPERATURE),
            );
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

/// The active throttlers of one sample, sorted: temperature bits the sample confirms
/// (`believed`), temperature bits it contradicts (`doubted`, with why) and power/current bits.
#[derive(Default)]
struct Throttlers<'a> {
    believed: Vec<&'a str>,
    doubted: Vec<String>,
    power: Vec<&'a str>,
}

impl<'a> Throttlers<'a> {
    fn sort(
        active: &'a [(String, ThrottleKind)],
        t: &Thermal,
        m: &GpuMetrics,
        limits: &Limits,
        idle: bool,
    ) -> Self {
        let mut s = Throttlers::default();
        let when = if idle {
            let activity = m.sample.gfx_activity_pct.unwrap_or(0);
            format!(" while the GPU is idle (gfx activity {activity}%)")
        } else {
            String::new()
        };
        for (name, kind) in active {
            let name = name.as_str();
            if *kind != ThrottleKind::Temperature {
                s.power.push(name);
                continue;
            }
            match sensor_reading(t, m, name) {
                Some((Some(v), Some(crit))) if v < crit - limits.throttle_margin_c * 1000 => {
                    s.doubted.push(format!(
                        "{name} with the sensor at {:.0} °C, {:.0} °C below its {:.0} °C \
                            limit{when}",
                        v as f64 / 1000.0,
                        (crit - v) as f64 / 1000.0,
                        crit as f64 / 1000.0
                    ));
                }
                Some((Some(_), Some(_))) => s.believed.push(name),
                _ if idle => s.doubted.push(format!("{name}{when}")),
                _ => s.believed.push(name),
            }
        }
        s
    }
}

/// What the sample shows: the status words, temperatures, activity, clock and power.
fn throttle_evidence(d: &DeviceHealth, t: &Thermal, m: &GpuMetrics) -> Vec<String> {
    let hex = |v: Option<u64>| v.map_or_else(|| "n/a".into(), |v| format!("{v:#x}"));
    let na = |v: Option<u16>, unit: &str| v.map_or_else(|| "n/a".into(), |x| format!("{x}{unit}"));
    let mut evidence = vec![format!(
        "{}/gpu_metrics v{}_{}: throttle_status {}, indep_throttle_status {}; hotspot {}, mem {}, \
            gfx activity {}, gfxclk {}",
        d.dir,
        m.format_revision,
        m.content_revision,
        hex(m.throttle_status.map(u64::from)),
        hex(m.indep_throttle_status),
        na(m.sample.hotspot_c, " °C"),
        na(m.sample.mem_c, " °C"),
        na(m.sample.gfx_activity_pct, "%"),
        na(m.sample.current_gfxclk_mhz, " MHz")
    )];
    if let (Some(avg), Some(cap)) = (t.power_average.or(t.power_input), t.power_cap) {
        evidence.push(format!(
            "power {} W of cap {} W",
            avg / 1_000_000,
            cap / 1_000_000
        ));
    }
    evidence
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
    let idle = m
        .sample
        .gfx_activity_pct
        .is_some_and(|a| a <= limits.idle_activity_pct);
    let s = Throttlers::sort(&active, t, m, limits, idle);
    let evidence = throttle_evidence(d, t, m);
    if !s.believed.is_empty() {
        let what = format!("thermal throttling: {}", s.believed.join(", "));
        out.push(
            Problem::new(d.pci.clone(), Severity::Warn, "throttling", what)
                .evidence(evidence.clone())
                .fix(FIX_THROTTLING),
        );
    } else if !s.power.is_empty() {
        let what = format!(
            "throttling at a power/current limit{}: {}",
            if idle { " while idle" } else { "" },
            s.power.join(", ")
        );
        out.push(
            Problem::new(d.pci.clone(), Severity::Info, "throttle-unconfirmed", what)
                .evidence(evidence.clone())
                .fix(FIX_POWER),
        );
    }
    if !s.doubted.is_empty() {
        let what = format!(
            "temperature throttle bit not taken as throttling: {} (the firmware of some GPUs sets \
                it without throttling, ROCm/rocm-systems#11781)",
            s.doubted.join("; ")
        );
        out.push(
            Problem::new(d.pci.clone(), Severity::Info, "throttle-idle", what).evidence(evidence),
        );
    }
}

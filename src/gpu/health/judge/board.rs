//! What GPUs of one model in one node should share: firmware versions and partition modes
//! (docs/gpu.md §5, §6).

use super::{by_model, Problem, Severity};
use crate::gpu::health::read::DeviceHealth;
use std::collections::BTreeMap;

const FIX_FIRMWARE: &str = "GPUs of one model in one node should run one firmware set: compare \
     vbios_version, update the odd GPU(s) to the node's firmware/IFWI release, and make sure one \
     amdgpu firmware package is installed.";

/// GPUs by value, for the values that more than one GPU of a group reports differently.
fn split_by<'a, V: Ord>(
    group: &[&'a DeviceHealth],
    get: impl Fn(&DeviceHealth) -> Option<V>,
) -> Option<BTreeMap<V, Vec<&'a str>>> {
    let mut values: BTreeMap<V, Vec<&str>> = BTreeMap::new();
    for d in group {
        if let Some(v) = get(d) {
            values.entry(v).or_default().push(d.pci.as_str());
        }
    }
    (values.len() >= 2).then_some(values)
}

/// Firmware versions that differ between GPUs of one model (§5 `fw_version/`). Firmware a GPU
/// does not list is not compared (6.11+ hides absent firmware).
pub(crate) fn firmware_problems(devs: &[DeviceHealth]) -> Vec<Problem> {
    let mut out = Vec::new();
    for (model, group) in by_model(devs) {
        let mut names: Vec<&String> = group.iter().flat_map(|d| d.firmware.keys()).collect();
        names.sort();
        names.dedup();
        for name in names {
            let Some(values) = split_by(&group, |d| d.firmware.get(name).copied()) else {
                continue;
            };
            // The GPUs on the less common version(s) are the odd ones out.
            let common = values.iter().max_by_key(|(_, v)| v.len()).map(|(k, _)| *k);
            let odd: Vec<&str> = values
                .iter()
                .filter(|(k, _)| Some(**k) != common)
                .flat_map(|(_, v)| v.iter().copied())
                .collect();
            let evidence = values
                .iter()
                .map(|(v, pcis)| format!("{name}_fw_version 0x{v:08x}: {}", pcis.join(", ")))
                .collect();
            let what = format!("{name} firmware differs between {model} GPUs");
            out.push(
                Problem::new(odd.join(","), Severity::Warn, "firmware-differs", what)
                    .evidence(evidence)
                    .fix(FIX_FIRMWARE),
            );
        }
    }
    out
}

/// A partition mode of one kind (`compute`, `memory`) of one device.
fn partition_mode(d: &DeviceHealth, kind: &str) -> Option<String> {
    let p = d.partition.as_ref()?;
    match kind {
        "compute" => p.compute.clone(),
        _ => p.memory.clone(),
    }
}

/// Partition modes that differ between GPUs of one model (§6), and `UNKNOWN` modes.
pub(crate) fn partition_problems(devs: &[DeviceHealth]) -> Vec<Problem> {
    let mut out = Vec::new();
    for (model, group) in by_model(devs) {
        for what in ["compute", "memory"] {
            let Some(values) = split_by(&group, |d| partition_mode(d, what)) else {
                continue;
            };
            let device = values.values().flatten().copied().collect::<Vec<_>>();
            let evidence = values
                .iter()
                .map(|(v, p)| format!("current_{what}_partition {v}: {}", p.join(", ")))
                .collect();
            let fix = format!(
                "Set one {what} partition mode on every GPU (amd-smi set --{what}-partition, or \
                 write current_{what}_partition as root), so every GPU exposes the same devices \
                 to the scheduler."
            );
            let text = format!("{model} GPUs are in different {what} partition modes");
            out.push(
                Problem::new(device.join(","), Severity::Warn, "partition-differs", text)
                    .evidence(evidence)
                    .fix(fix),
            );
        }
    }
    for d in devs {
        for what in ["compute", "memory"] {
            if partition_mode(d, what).as_deref() != Some("UNKNOWN") {
                continue;
            }
            let fix = format!(
                "Set the {what} partition mode again and check the kernel log for partition \
                 switch errors."
            );
            let text = format!("{what} partition mode is UNKNOWN");
            out.push(
                Problem::new(d.pci.clone(), Severity::Warn, "partition-unknown", text)
                    .evidence(vec![format!("{}/current_{what}_partition: UNKNOWN", d.dir)])
                    .fix(fix),
            );
        }
    }
    out
}

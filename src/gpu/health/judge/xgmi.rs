//! XGMI hives (docs/gpu.md §7) and the state of each XGMI link (`health.xgmi-links`).

use super::{Problem, Severity};
use crate::checkdoc::Action;
use crate::gpu::health::parse::{GpuMetrics, XgmiLinkState};
use crate::gpu::health::read::DeviceHealth;
use std::collections::BTreeMap;

const FIX_HIVE: &str = "Check the kernel log for 'XGMI: Failed to add node' or 'Set topology \
     failure'; reload amdgpu or reboot so every GPU rejoins the hive.";
const FIX_NOT_IN_HIVE: &str = "Check the kernel log for 'XGMI: Failed to add node'; a GPU that \
     cannot join its hive needs a reset or reboot, and if it persists a check of the XGMI \
     bridge/board.";
const FIX_LINK_DOWN: &str = "A link that does not train leaves the hive's collectives to route \
     around it or hang. A GPU reset cannot retrain one link alone: amdgpu resets every GPU of the \
     hive together (amdgpu_device_gpu_recover walks hive->device_list), so drain the node and \
     reboot it; if the link is down again after the reboot, reseat or replace the XGMI \
     bridge/baseboard (hardware inspection).";
const FIX_UNREADABLE: &str = "Read again as root, or after a reset completes.";

fn or_unknown<T: ToString>(v: Option<T>) -> String {
    v.map(|v| v.to_string()).unwrap_or_else(|| "?".into())
}

/// Values that more than one member of a hive reports.
fn duplicates(members: &[&DeviceHealth], get: impl Fn(&DeviceHealth) -> Option<u64>) -> Vec<u64> {
    let mut seen = BTreeMap::new();
    for d in members {
        if let Some(v) = get(d) {
            *seen.entry(v).or_insert(0) += 1;
        }
    }
    seen.into_iter()
        .filter(|(_, n)| *n > 1)
        .map(|(v, _)| v)
        .collect()
}

/// One hive: unique physical and device ids, as many members as the hive lists.
fn hive_problem(hive: u64, members: &[&DeviceHealth]) -> Option<Problem> {
    let mut what = Vec::new();
    let dup_phys = duplicates(members, |d| d.xgmi.as_ref()?.physical_id.map(u64::from));
    if !dup_phys.is_empty() {
        what.push(format!(
            "physical id(s) {dup_phys:?} appear on several GPUs"
        ));
    }
    let dup_dev = duplicates(members, |d| d.xgmi.as_ref()?.device_id);
    if !dup_dev.is_empty() {
        what.push(format!(
            "xgmi_device_id(s) {dup_dev:?} appear on several GPUs"
        ));
    }
    let listed = members
        .iter()
        .filter_map(|d| d.xgmi.as_ref()?.hive_nodes)
        .max();
    if let Some(n) = listed.filter(|n| *n != members.len()) {
        what.push(format!(
            "the hive lists {n} node(s) but {} GPU(s) report this hive",
            members.len()
        ));
    }
    if what.is_empty() {
        return None;
    }
    let mut evidence: Vec<String> = members
        .iter()
        .map(|d| {
            let x = d.xgmi.as_ref();
            format!(
                "{}: hive {hive}, xgmi_physical_id {}, xgmi_device_id {}, hive lists {} node(s)",
                d.pci,
                or_unknown(x.and_then(|x| x.physical_id)),
                or_unknown(x.and_then(|x| x.device_id)),
                or_unknown(x.and_then(|x| x.hive_nodes)),
            )
        })
        .collect();
    evidence.sort();
    let pcis: Vec<&str> = members.iter().map(|d| d.pci.as_str()).collect();
    let text = format!("XGMI hive {hive} is inconsistent: {}", what.join("; "));
    Some(
        Problem::new(pcis.join(","), Severity::Warn, "hive-inconsistent", text)
            .evidence(evidence)
            .fix(FIX_HIVE),
    )
}

/// GPUs of a model that is in hives, outside any hive.
fn outside_hive_problems(devs: &[DeviceHealth]) -> Vec<Problem> {
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
    let mut out = Vec::new();
    for (model, (inside, outside)) in by_model {
        if inside.is_empty() {
            continue;
        }
        let in_hive = inside
            .iter()
            .map(|d| d.pci.as_str())
            .collect::<Vec<_>>()
            .join(", ");
        for d in outside {
            let what = format!(
                "not in any XGMI hive while {} other {model} GPU(s) are",
                inside.len()
            );
            let evidence = vec![
                format!("{}/xgmi_hive_info/xgmi_hive_id: absent", d.dir),
                format!("in a hive: {in_hive}"),
            ];
            out.push(
                Problem::new(d.pci.clone(), Severity::Warn, "not-in-hive", what)
                    .evidence(evidence)
                    .fix(FIX_NOT_IN_HIVE),
            );
        }
    }
    out
}

/// XGMI hives (§7): within one hive the physical ids and device ids are unique and the number
/// of member GPUs found equals the `nodeN` links the hive lists; a GPU of a model whose other
/// GPUs are in a hive but which is in none has dropped out.
pub fn xgmi_problems(devs: &[DeviceHealth]) -> Vec<Problem> {
    let mut hives: BTreeMap<u64, Vec<&DeviceHealth>> = BTreeMap::new();
    for d in devs {
        if let Some(h) = d.xgmi.as_ref().and_then(|x| x.hive_id) {
            hives.entry(h).or_default().push(d);
        }
    }
    let mut out: Vec<Problem> = hives
        .iter()
        .filter_map(|(hive, members)| hive_problem(*hive, members))
        .collect();
    out.extend(outside_hive_problems(devs));
    out
}

/// The links of one sample, by state.
struct LinkStates {
    up: Vec<usize>,
    down: Vec<usize>,
    /// Values the driver never writes, as `link i: v`.
    odd: Vec<String>,
    /// The states as the evidence shows them: `1`, `0`, `-` (not a link) or the odd value.
    shown: String,
}

impl LinkStates {
    fn of(links: &[XgmiLinkState]) -> Self {
        let idx = |want: XgmiLinkState| -> Vec<usize> {
            links
                .iter()
                .enumerate()
                .filter(|(_, s)| **s == want)
                .map(|(i, _)| i)
                .collect()
        };
        let odd = links
            .iter()
            .enumerate()
            .filter_map(|(i, s)| match s {
                XgmiLinkState::Unknown(v) => Some(format!("link {i}: {v}")),
                _ => None,
            })
            .collect();
        let shown = links
            .iter()
            .map(|s| match s {
                XgmiLinkState::Up => "1".to_string(),
                XgmiLinkState::Down => "0".to_string(),
                XgmiLinkState::NotPresent => "-".to_string(),
                XgmiLinkState::Unknown(v) => v.to_string(),
            })
            .collect::<Vec<_>>()
            .join(" ");
        LinkStates {
            up: idx(XgmiLinkState::Up),
            down: idx(XgmiLinkState::Down),
            odd,
            shown,
        }
    }
}

fn link_names(v: &[usize]) -> String {
    v.iter()
        .map(|i| format!("link {i}"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Up links against what the hive's topology counts: down, fewer than counted, or inactive.
fn link_count_problem(
    d: &DeviceHealth,
    s: &LinkStates,
    expected: Option<u32>,
    evidence: Vec<String>,
) -> Option<Problem> {
    let (up, down) = (s.up.len(), &s.down);
    let pci = d.pci.clone();
    let problem = match expected {
        Some(e) if (up as u32) < e && !down.is_empty() => {
            let what = format!(
                "XGMI {} down: {up} of the {e} link(s) the hive's topology counts are up",
                link_names(down)
            );
            // The driver retrains XGMI links only by resetting the whole hive
            // (amdgpu_device_gpu_recover resets every device of hive->device_list), which on a
            // node in use is a reboot; a link still down after it is hardware
            // (health.xgmi-links doc).
            Problem::new(pci, Severity::Fail, "link-down", what)
                .fix(FIX_LINK_DOWN)
                .action(Action::RebootNode)
        }
        Some(e) if (up as u32) < e => {
            let what = format!(
                "XGMI: {up} link(s) up, the hive's topology counts {e}, none reported down"
            );
            Problem::new(pci, Severity::Info, "link-count", what)
        }
        _ if !down.is_empty() => {
            let why = if expected.is_some() {
                ", as many as the hive's topology counts"
            } else {
                "; xgmi_num_links not readable to tell whether it should be up"
            };
            let what = format!("XGMI {} inactive ({up} up){why}", link_names(down));
            Problem::new(pci, Severity::Info, "link-inactive", what)
        }
        _ => return None,
    };
    Some(problem.evidence(evidence))
}

/// The link problems of one device whose `gpu_metrics` has link states.
fn link_state_problems(
    d: &DeviceHealth,
    m: &GpuMetrics,
    links: &[XgmiLinkState],
    out: &mut Vec<Problem>,
) {
    let s = LinkStates::of(links);
    let mut evidence = vec![format!(
        "{}/gpu_metrics v{}_{}: xgmi_link_status [{}] (1 up, 0 down, - not a link)",
        d.dir, m.format_revision, m.content_revision, s.shown
    )];
    let num_links = d.xgmi_links.num_links.as_ref();
    let expected: Option<u32> = num_links.map(|v| v.iter().map(|n| u32::from(*n)).sum());
    if let Some(v) = num_links {
        let hex = v
            .iter()
            .map(|n| format!("{n:02x}"))
            .collect::<Vec<_>>()
            .join(" ");
        evidence.push(format!(
            "{}/xgmi_num_links: {hex} (the hive's topology: {} link(s))",
            d.dir,
            expected.unwrap_or(0)
        ));
    }
    out.extend(link_count_problem(d, &s, expected, evidence));
    if !s.odd.is_empty() {
        let what = format!(
            "XGMI link status values the driver does not write: {}",
            s.odd.join(", ")
        );
        let evidence = vec![format!(
            "{}/gpu_metrics: xgmi_link_status [{}]",
            d.dir, s.shown
        )];
        out.push(
            Problem::new(d.pci.clone(), Severity::Info, "link-unknown", what).evidence(evidence),
        );
    }
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
    let mut out = Vec::new();
    for d in devs {
        let xl = &d.xgmi_links;
        if !xl.unreadable.is_empty() {
            let what = "could not read the hive's XGMI link counts";
            out.push(
                Problem::new(d.pci.clone(), Severity::Info, "unreadable", what)
                    .evidence(super::unreadable_lines(&xl.unreadable))
                    .fix(FIX_UNREADABLE),
            );
        }
        let Some(m) = d.thermal.as_ref().and_then(|t| t.metrics.as_ref()) else {
            continue;
        };
        if let Some(links) = &m.xgmi_links {
            link_state_problems(d, m, links, &mut out);
        }
    }
    out
}

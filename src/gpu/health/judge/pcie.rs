//! PCIe errors: AER counters of the GPU and the ports above it, and replays (issue 26, item 3).

use super::{Limits, Problem, Severity};
use crate::checkdoc::Action;
use crate::gpu::health::parse::{AerSeverity, VENDOR_ATI};
use crate::gpu::health::read::{DeviceHealth, PortAer};

const FIX_FATAL: &str = "Drain the GPU: a fatal PCIe error resets the link and loses the work \
     in flight. Find the 'AER: ... Uncorrectable (Fatal)' lines of the named device in the \
     kernel log, reseat the GPU and its riser/cable; if it comes back, send the GPU (or, when the \
     port above it reports the error, the board or riser) for inspection.";
const FIX_NONFATAL: &str = "A transaction was lost (completion timeout, poisoned or malformed \
     TLP): match the 'AER: ... Uncorrectable (Non-Fatal)' kernel-log lines of the named device \
     with failed jobs, reseat the card and riser, and watch whether the count grows.";
const FIX_CORRECTABLE: &str = "The link corrects these by replaying packets, but this many mean \
     a marginal link (riser, cable, slot, signal integrity): reseat, compare with the node's \
     other GPUs, and try another slot if the count keeps growing.";
const FIX_REPLAYS: &str = "Replays are packets the link had to resend: many mean a marginal \
     link (riser, cable, slot). Reseat the GPU and compare with the node's other GPUs.";
const FIX_UNREADABLE: &str = "Run as root to read them (or read again after a reset completes).";

/// What the counts of one AER severity mean.
struct AerMeaning {
    /// The sysfs file of the counts.
    file: &'static str,
    event: &'static str,
    action: Option<Action>,
    what: String,
    fix: &'static str,
    severity: Severity,
}

fn aer_meaning(sev: AerSeverity, limits: &Limits) -> AerMeaning {
    match sev {
        AerSeverity::Fatal => AerMeaning {
            file: "aer_dev_fatal",
            event: "aer-fatal",
            action: Some(Action::DrainAndInspect),
            what: "fatal PCIe errors (ERR_FATAL)".to_string(),
            fix: FIX_FATAL,
            severity: Severity::Fail,
        },
        AerSeverity::NonFatal => AerMeaning {
            file: "aer_dev_nonfatal",
            event: "aer-nonfatal",
            action: None,
            what: "uncorrectable non-fatal PCIe errors (ERR_NONFATAL)".to_string(),
            fix: FIX_NONFATAL,
            severity: Severity::Warn,
        },
        // Corrected by the link itself: watch the count (gpud and DCGM raise no repair for
        // corrected PCIe errors below their rate limits).
        AerSeverity::Correctable => AerMeaning {
            file: "aer_dev_correctable",
            event: "aer-correctable",
            action: Some(Action::None),
            what: format!(
                "more than {} correctable PCIe errors (ERR_COR)",
                limits.pcie_ce_warn
            ),
            fix: FIX_CORRECTABLE,
            severity: Severity::Warn,
        },
    }
}

/// Where one port's count is: the GPU, the switch inside the GPU package, or a port above.
fn port_place(port: &PortAer, total: u64) -> String {
    if port.is_gpu {
        format!("the GPU {}: {total}", port.bdf)
    } else if port.vendor == Some(VENDOR_ATI) {
        format!("{}, the switch inside the GPU package: {total}", port.bdf)
    } else {
        format!("port {} above the GPU: {total}", port.bdf)
    }
}

/// The AER problem of one severity on one GPU's path, if any port counts more than allowed.
fn aer_problem(d: &DeviceHealth, sev: AerSeverity, limits: &Limits) -> Option<Problem> {
    let m = aer_meaning(sev, limits);
    let mut at = Vec::new();
    let mut evidence = Vec::new();
    for port in &d.pcie_errors.aer {
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
        at.push(port_place(port, st.total));
        let kinds: Vec<String> = st.kinds.iter().map(|(k, n)| format!("{k} {n}")).collect();
        let kinds = if kinds.is_empty() {
            String::new()
        } else {
            format!(" ({})", kinds.join(", "))
        };
        evidence.push(format!(
            "{}/{}: total {}{kinds}",
            port.dir, m.file, st.total
        ));
    }
    if at.is_empty() {
        return None;
    }
    let what = format!("{} since boot on {}", m.what, at.join("; "));
    let p = Problem::new(d.pci.clone(), m.severity, m.event, what)
        .evidence(evidence)
        .fix(m.fix);
    Some(match m.action {
        Some(a) => p.action(a),
        None => p,
    })
}

/// Replays on the GPU's link above the limit: amdgpu's `pcie_replay_count`, else the count in
/// `gpu_metrics`, with the sample's recoveries and NAKs as evidence.
fn replay_problem(d: &DeviceHealth, limits: &Limits) -> Option<Problem> {
    let metric = d
        .thermal
        .as_ref()
        .and_then(|t| t.metrics.as_ref())
        .map(|m| &m.pcie);
    let (n, src) = match (d.pcie_errors.replay_count, metric.and_then(|p| p.replay)) {
        (Some(n), _) => (n, format!("{}/pcie_replay_count: {n}", d.dir)),
        (None, Some(n)) => (
            n,
            format!("{}/gpu_metrics: pcie_replay_count_acc {n}", d.dir),
        ),
        _ => return None,
    };
    if n <= limits.pcie_ce_warn {
        return None;
    }
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
                "gpu_metrics: pcie_lc_perf_other_end_recovery {r} (recoveries the link partner \
                    entered)"
            ));
        }
    }
    let what = format!(
        "{n} PCIe replays on the GPU's link since the driver loaded (more than {})",
        limits.pcie_ce_warn
    );
    Some(
        Problem::new(d.pci.clone(), Severity::Warn, "pcie-replays", what)
            .evidence(evidence)
            .fix(FIX_REPLAYS),
    )
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
        for sev in [
            AerSeverity::Fatal,
            AerSeverity::NonFatal,
            AerSeverity::Correctable,
        ] {
            out.extend(aer_problem(d, sev, limits));
        }
        out.extend(replay_problem(d, limits));
        let unreadable = &d.pcie_errors.unreadable;
        if !unreadable.is_empty() {
            let what = format!("could not read {} PCIe error file(s)", unreadable.len());
            out.push(
                Problem::new(d.pci.clone(), Severity::Info, "unreadable", what)
                    .evidence(super::unreadable_lines(unreadable))
                    .fix(FIX_UNREADABLE),
            );
        }
    }
    out
}

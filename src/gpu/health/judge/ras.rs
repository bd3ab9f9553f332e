//! RAS error counters and retired VRAM pages (docs: ../../../../docs/gpu.md §1).

use super::{Limits, Problem, Severity};
use crate::checkdoc::Action;
use crate::gpu::health::parse::{
    parse_kernel_release, threshold_policy, BadPageFlag, BadPageThreshold, OnExceed, RasCount,
    RasSource,
};
use crate::gpu::health::read::{DeviceHealth, Ras};

const FIX_UNCORRECTABLE: &str = "Drain the jobs on this GPU and look in the kernel log for \
     'uncorrectable hardware errors detected in ... block' and in gpu_vram_bad_pages for retired \
     pages. The counters count since the driver loaded: if new uncorrectable errors appear after \
     a reset or reboot, follow AMD's Service Action Guide for the GPU.";
const FIX_DEFERRED: &str = "Deferred errors become uncorrectable when the data is read; watch \
     the kernel log for 'Poison is created' / 'poison is consumed' and the bad-page list.";
const FIX_CORRECTABLE: &str = "Correctable errors are fixed by ECC, but a high count on one GPU \
     predicts page retirement; compare with the node's other GPUs and watch gpu_vram_bad_pages.";
const FIX_NOT_READY: &str =
    "Read again after the driver finished initialising or the GPU reset completed.";
const FIX_RETIRE_FAILED: &str = "The page stays in use: drain the GPU and reset it (or reload \
     amdgpu) so the driver retires it at init; if it stays F, follow AMD's Service Action Guide.";
const FIX_THRESHOLD_REACHED: &str = "Take the GPU out of service and follow AMD's Service \
     Action Guide (replacement). Raising amdgpu.bad_page_threshold only hides the signal.";
const FIX_THRESHOLD_NEAR: &str = "Plan the GPU's replacement now (AMD Service Action Guide); \
     each new uncorrectable memory error retires another page.";

fn ras_path(d: &DeviceHealth, block: &str, source: RasSource) -> String {
    match source {
        RasSource::ErrCount => format!("{}/ras/{block}_err_count", d.dir),
        RasSource::Aca => format!("{}/ras/aca_{block}", d.dir),
    }
}

/// One device's RAS blocks sorted by what they show: (block, evidence line) per kind.
#[derive(Default)]
struct RasBlocks {
    uncorrectable: Vec<(String, String)>,
    deferred: Vec<(String, String)>,
    correctable: Vec<(String, String)>,
    inaccessible: Vec<String>,
}

impl RasBlocks {
    fn sort(d: &DeviceHealth, ras: &Ras, limits: &Limits) -> Self {
        let mut s = RasBlocks::default();
        for (block, b) in &ras.blocks {
            let path = ras_path(d, block, b.source);
            let RasCount::Counts { ue, ce, de } = b.count else {
                s.inaccessible
                    .push(format!("{path}: Query currently inaccessible"));
                continue;
            };
            let ev = match de {
                Some(x) => format!("{path}: ue {ue}, ce {ce}, de {x}"),
                None => format!("{path}: ue {ue}, ce {ce}"),
            };
            if ue > 0 {
                s.uncorrectable.push((block.clone(), ev));
            } else if de.is_some_and(|x| x > 0) {
                s.deferred.push((block.clone(), ev));
            } else if ce > limits.ce_warn {
                s.correctable.push((block.clone(), ev));
            }
        }
        s
    }
}

fn block_names(v: &[(String, String)]) -> String {
    v.iter()
        .map(|(b, _)| b.as_str())
        .collect::<Vec<_>>()
        .join(", ")
}

fn block_evidence(v: Vec<(String, String)>) -> Vec<String> {
    v.into_iter().map(|(_, e)| e).collect()
}

/// RAS counters: uncorrectable (fail), deferred (warn: poisoned data not yet consumed),
/// correctable above `limits.ce_warn` (warn), counters not yet readable (info).
pub(crate) fn ras_problems(devs: &[DeviceHealth], limits: &Limits) -> Vec<Problem> {
    let mut out = Vec::new();
    for d in devs {
        let Some(ras) = &d.ras else { continue };
        let s = RasBlocks::sort(d, ras, limits);
        let pci = || d.pci.clone();
        if !s.uncorrectable.is_empty() {
            let what = format!(
                "uncorrectable hardware errors in {} since the driver loaded",
                block_names(&s.uncorrectable)
            );
            out.push(
                Problem::new(pci(), Severity::Fail, "uncorrectable", what)
                    .evidence(block_evidence(s.uncorrectable))
                    .fix(FIX_UNCORRECTABLE)
                    .action(Action::DrainAndInspect),
            );
        }
        if !s.deferred.is_empty() {
            let what = format!(
                "deferred (poisoned, not yet consumed) errors in {}",
                block_names(&s.deferred)
            );
            out.push(
                Problem::new(pci(), Severity::Warn, "deferred", what)
                    .evidence(block_evidence(s.deferred))
                    .fix(FIX_DEFERRED),
            );
        }
        if !s.correctable.is_empty() {
            let what = format!(
                "more than {} correctable errors in {} since the driver loaded",
                limits.ce_warn,
                block_names(&s.correctable)
            );
            out.push(
                Problem::new(pci(), Severity::Warn, "correctable", what)
                    .evidence(block_evidence(s.correctable))
                    .fix(FIX_CORRECTABLE)
                    .action(Action::None),
            );
        }
        if !s.inaccessible.is_empty() {
            let what = "RAS counters not readable yet (RAS not ready)";
            out.push(
                Problem::new(pci(), Severity::Info, "ras-not-ready", what)
                    .evidence(s.inaccessible)
                    .fix(FIX_NOT_READY),
            );
        }
    }
    out
}

/// What the driver does when the retired pages exceed the threshold.
fn consequence(on_exceed: OnExceed) -> &'static str {
    match on_exceed {
        OnExceed::Halt => "the driver halts the GPU's services (RMA state)",
        OnExceed::NotInitialised => "the driver will not initialise the GPU at its next load",
        OnExceed::WarnOnly => "the driver only logs it and keeps running",
        OnExceed::Nothing => "nothing happens",
    }
}

/// Retired pages against `amdgpu.bad_page_threshold` (§1.1), and pages the driver could not
/// retire (`F`) or has not yet retired (`P`).
pub(crate) fn bad_page_problems(
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
            "{path}: {n} line(s): {} R (retired), {pending} P (pending), {failed} F (could not be \
                reserved)",
            bp.count(BadPageFlag::Retired)
        );
        if failed > 0 {
            let what = format!("{failed} bad VRAM page(s) could not be retired");
            out.push(
                Problem::new(d.pci.clone(), Severity::Warn, "retire-failed", what)
                    .evidence(vec![counts.clone()])
                    .fix(FIX_RETIRE_FAILED)
                    .action(Action::DrainAndInspect),
            );
        }
        let Some(t) = threshold else { continue };
        let policy = threshold_policy(t, k, d.vram_total);
        let Some(limit) = policy.limit.filter(|l| *l > 0) else {
            continue;
        };
        let mut evidence = vec![counts, format!("threshold {limit}: {}", policy.basis)];
        if let Some(kr) = kernel {
            evidence.push(format!("kernel {kr}"));
        }
        let consequence = consequence(policy.on_exceed);
        if n >= limit {
            let what = format!(
                "{n} retired VRAM pages reach the bad-page threshold {limit}: {consequence}"
            );
            let severity = if policy.on_exceed == OnExceed::WarnOnly {
                Severity::Warn
            } else {
                Severity::Fail
            };
            out.push(
                Problem::new(d.pci.clone(), severity, "threshold-reached", what)
                    .evidence(evidence)
                    .fix(FIX_THRESHOLD_REACHED)
                    .action(Action::DrainAndInspect),
            );
        } else if u128::from(n) * 100 >= u128::from(limit) * u128::from(limits.bad_pages_near_pct) {
            let what = format!(
                "{n} retired VRAM pages, {}% of the bad-page threshold {limit}; at {limit} \
                    {consequence}",
                u128::from(n) * 100 / u128::from(limit)
            );
            out.push(
                Problem::new(d.pci.clone(), Severity::Warn, "threshold-near", what)
                    .evidence(evidence)
                    .fix(FIX_THRESHOLD_NEAR)
                    .action(Action::None),
            );
        }
    }
    out
}

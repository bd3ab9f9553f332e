//! GPU health a cluster operator acts on, from amdgpu sysfs (no amd-smi): RAS error counters,
//! retired VRAM pages against the driver's threshold, the PCIe link, XGMI hives, firmware and
//! partition modes that differ between GPUs of one model, temperatures and throttling, PCIe AER
//! errors and replays, per-link XGMI state and amdgpu's CPER records. The
//! evidence and the judgements are `src/gpu/health/`; each check here reports one kind.

use super::{CheckFn, CheckId, Ctx};
use crate::gpu::health::{judge, Health, Limits, Problem, Severity};
use crate::report::Finding;

pub(crate) const CHECKS: &[(CheckId, CheckFn)] = &[
    (CheckId::HealthRas, ras),
    (CheckId::HealthBadPages, bad_pages),
    (CheckId::HealthPcieLink, pcie_link),
    (CheckId::HealthXgmi, xgmi),
    (CheckId::HealthFirmware, firmware),
    (CheckId::HealthPartitions, partitions),
    (CheckId::HealthThermal, thermal),
    (CheckId::HealthPcieErrors, pcie_errors),
    (CheckId::HealthXgmiLinks, xgmi_links),
    (CheckId::HealthCper, cper),
];

/// The findings of one kind of problem, or the pass (or skip) that says what was judged.
fn report(ctx: &Ctx, problems: Vec<Problem>, judged: &str) -> Vec<Finding> {
    let h: &Health = ctx.inv.health();
    if h.devices.is_empty() {
        // Say what was seen: a fixture or container may show KFD's GPUs without their PCI
        // device directories, where the health files live.
        let t = ctx.inv.gpu();
        let msg = if t.has_gpu_nodes() {
            "KFD lists GPUs, but no amdgpu PCI device directory is readable here \
                (/sys/class/drm/card*/device, /sys/bus/pci/devices/ADDR): no health files to judge"
                .to_string()
        } else {
            "no amdgpu device to judge (no DRM card bound to amdgpu, no KFD GPU node)".to_string()
        };
        return vec![Finding::skip(msg)];
    }
    let mut out = Vec::new();
    for p in problems {
        let f = match p.severity {
            Severity::Fail => Finding::fail(p.what),
            Severity::Warn => Finding::warn(p.what),
            // Worth knowing, nothing to do: a pass that carries it.
            Severity::Info => Finding::pass(p.what),
        };
        let mut f = f.evidence_lines(p.evidence).event(p.event);
        if let Some(a) = p.action {
            f = f.action(a);
        }
        if !p.device.is_empty() {
            f = f.subject(p.device);
        }
        if p.severity != Severity::Info && !p.fix.is_empty() {
            f = f.fix_text(p.fix);
        }
        out.push(f);
    }
    if !out.iter().any(|f| f.status != crate::report::Status::Pass) {
        out.insert(
            0,
            Finding::pass(format!(
                "{} amdgpu device{}: {judged}",
                h.devices.len(),
                if h.devices.len() == 1 { "" } else { "s" }
            )),
        );
    }
    out
}

/// The thresholds of this run: the site policy's where it sets them, the checks' defaults
/// otherwise (`policy::THRESHOLDS`).
fn limits(ctx: &Ctx) -> Limits {
    let p = &ctx.cfg.policy;
    let d = Limits::default();
    Limits {
        ce_warn: p.threshold(CheckId::HealthRas, "correctable"),
        bad_pages_near_pct: p.threshold(CheckId::HealthBadPages, "near-percent"),
        pcie_ce_warn: p.threshold(CheckId::HealthPcieErrors, "correctable"),
        throttle_margin_c: i64::try_from(
            p.threshold(CheckId::HealthThermal, "throttle-margin-celsius"),
        )
        .unwrap_or(d.throttle_margin_c),
        idle_activity_pct: u16::try_from(p.threshold(CheckId::HealthThermal, "idle-percent"))
            .unwrap_or(d.idle_activity_pct),
    }
}

fn ras(ctx: &Ctx) -> Vec<Finding> {
    let h = ctx.inv.health();
    report(
        ctx,
        judge::ras_problems(&h.devices, &limits(ctx)),
        "no uncorrectable or deferred RAS errors, correctable ones below the warning level",
    )
}

fn bad_pages(ctx: &Ctx) -> Vec<Finding> {
    let h = ctx.inv.health();
    report(
        ctx,
        judge::bad_page_problems(
            &h.devices,
            h.bad_page_threshold,
            h.kernel.as_deref(),
            &limits(ctx),
        ),
        "retired VRAM pages well below the driver's threshold",
    )
}

fn pcie_link(ctx: &Ctx) -> Vec<Finding> {
    let h = ctx.inv.health();
    report(
        ctx,
        judge::link_problems(&h.devices),
        "every PCIe link runs at its maximum width and speed",
    )
}

fn xgmi(ctx: &Ctx) -> Vec<Finding> {
    let h = ctx.inv.health();
    report(
        ctx,
        judge::xgmi_problems(&h.devices),
        "XGMI hives consistent (or no hive)",
    )
}

fn firmware(ctx: &Ctx) -> Vec<Finding> {
    let h = ctx.inv.health();
    report(
        ctx,
        judge::firmware_problems(&h.devices),
        "firmware versions equal across GPUs of one model",
    )
}

fn partitions(ctx: &Ctx) -> Vec<Finding> {
    let h = ctx.inv.health();
    report(
        ctx,
        judge::partition_problems(&h.devices),
        "compute and memory partition modes equal across GPUs of one model (or none)",
    )
}

fn thermal(ctx: &Ctx) -> Vec<Finding> {
    let h = ctx.inv.health();
    let mut problems = judge::thermal_problems(&h.devices, &limits(ctx));
    // Files that exist but could not be read are reported once, here.
    problems.extend(judge::read_problems(h));
    report(
        ctx,
        problems,
        "temperatures below their critical limits, no thermal throttling",
    )
}

fn pcie_errors(ctx: &Ctx) -> Vec<Finding> {
    let h = ctx.inv.health();
    report(
        ctx,
        judge::pcie_error_problems(&h.devices, &limits(ctx)),
        "no fatal or non-fatal PCIe AER errors on the GPUs and the ports above them, correctable \
            errors and replays below the warning level",
    )
}

fn xgmi_links(ctx: &Ctx) -> Vec<Finding> {
    let h = ctx.inv.health();
    report(
        ctx,
        judge::xgmi_link_problems(&h.devices),
        "every XGMI link the hive's topology counts is up (or no per-link state: gpu_metrics \
            before v1_7)",
    )
}

fn cper(ctx: &Ctx) -> Vec<Finding> {
    let h = ctx.inv.health();
    report(
        ctx,
        judge::cper_problems(&h.devices),
        "no fatal, uncorrected or bad-page-threshold CPER records (or none readable: debugfs, \
            root, Linux 6.15+)",
    )
}

//! The kernel log as evidence: the amdgpu/KFD/DRM lines of this boot (`src/kernlog/`), read once
//! per run, judged per kind. A line the symptom catalogue knows (`packs::catalogue()`, the one
//! `why` and `log` use) gets that symptom's cause and fix, and harmless lines are said to be
//! harmless; the others get the family's own fix. No permission to read the log is a skip that
//! says how to grant it.

use super::{CheckFn, CheckId, Ctx};
use crate::kernlog::{Event, EventKind, KernelLog};
use crate::report::{Action, Finding, Status};

pub(crate) const CHECKS: &[(CheckId, CheckFn)] = &[
    (CheckId::KernelLog, log),
    (CheckId::KernelDriverInit, driver_init),
    (CheckId::KernelHangs, hangs),
    (CheckId::KernelPageFaults, page_faults),
    (CheckId::KernelRas, ras),
    (CheckId::KernelSmu, smu),
    (CheckId::KernelHistory, history),
];

fn log(ctx: &Ctx) -> Vec<Finding> {
    match ctx.inv.kernel_log() {
        Ok(k) => {
            let events = ctx.inv.kernel_events();
            let mut f = Finding::pass(format!(
                "read {} line(s) of this boot from {}: {} amdgpu/KFD event(s)",
                k.lines.len(),
                k.described,
                events.len()
            ));
            f = f.evidence_lines(k.notes.iter().cloned());
            vec![f]
        }
        Err(u) => {
            let mut f = Finding::skip("the kernel log of this boot cannot be read here")
                .evidence_lines(
                    u.attempts
                        .iter()
                        .map(|a| format!("{}: {}", a.source, a.why)),
                );
            if let Some(g) = u.grant.first() {
                f = f.fix_text(g.clone());
            }
            vec![f.evidence_lines(u.grant.iter().skip(1).cloned())]
        }
    }
}

/// Events of one kind on one device (by the index of their first line).
type Group<'a> = (EventKind, Option<String>, Vec<&'a (usize, Event)>);

/// The findings for the events of `kinds`, grouped by kind and device; `status` gives each
/// group's status from its events.
fn judge(
    ctx: &Ctx,
    kinds: &[EventKind],
    what: &str,
    status: impl Fn(&Event) -> Status,
    default_fix: &str,
) -> Vec<Finding> {
    let k: &KernelLog = match ctx.inv.kernel_log() {
        Ok(k) => k,
        Err(_) => {
            return vec![Finding::skip(format!(
                "the kernel log cannot be read here ({})",
                CheckId::KernelLog.see()
            ))]
        }
    };
    let events = ctx.inv.kernel_events();
    let mut groups: Vec<Group> = Vec::new();
    for e in events.iter().filter(|(_, e)| kinds.contains(&e.kind)) {
        match groups
            .iter_mut()
            .find(|(kind, dev, _)| *kind == e.1.kind && *dev == e.1.device)
        {
            Some(g) => g.2.push(e),
            None => groups.push((e.1.kind, e.1.device.clone(), vec![e])),
        }
    }
    if groups.is_empty() {
        return vec![Finding::pass(format!(
            "no {what} in the kernel log of this boot ({} lines from {})",
            k.lines.len(),
            k.described
        ))];
    }
    groups
        .into_iter()
        .map(|g| group_finding(k, g, &status, default_fix))
        .collect()
}

fn driver_init(ctx: &Ctx) -> Vec<Finding> {
    judge(
        ctx,
        &[
            EventKind::FirmwareLoadFailed,
            EventKind::IpInitFailed,
            EventKind::ProbeFailed,
            EventKind::AsicUnsupported,
            EventKind::DeviceIdMissing,
            EventKind::PcieAtomicsRejected,
            EventKind::IommuFailure,
        ],
        "driver or KFD initialisation failure",
        |_| Status::Fail,
        "Read the kernel log around the line (dmesg | grep -i -e amdgpu -e kfd): a missing \
            firmware needs a newer linux-firmware and a rebuilt initramfs; an unsupported device \
            needs a newer kernel or another GPU.",
    )
}

fn hangs(ctx: &Ctx) -> Vec<Finding> {
    judge(
        ctx,
        &[
            EventKind::RingTimeout,
            EventKind::HwsHang,
            EventKind::GpuResetBegin,
            EventKind::GpuResetSucceeded,
            EventKind::GpuResetFailed,
            EventKind::VramLost,
        ],
        "ring timeout, GPU hang or reset",
        |e| match e.kind {
            EventKind::GpuResetFailed | EventKind::VramLost => Status::Fail,
            _ => Status::Warn,
        },
        "A GPU hung since boot: update the kernel/amdgpu and ROCm; the process named in the \
            report ran the kernel that hung. A failed reset or lost VRAM needs a reboot before \
            the GPU is trusted again.",
    )
}

fn page_faults(ctx: &Ctx) -> Vec<Finding> {
    judge(
        ctx,
        &[EventKind::VmPageFault],
        "GPU page fault",
        |_| Status::Warn,
        "A GPU kernel accessed unmapped memory: the process named is the one to debug (or its \
            library to update); repeated faults from many programs point at the driver.",
    )
}

fn ras(ctx: &Ctx) -> Vec<Finding> {
    judge(
        ctx,
        &[EventKind::RasEvent],
        "RAS (ECC) event",
        |e| {
            if e.is_uncorrected_ras() {
                Status::Fail
            } else {
                Status::Warn
            }
        },
        &format!(
            "Uncorrectable or fatal memory errors: drain the node and follow the GPU's \
            service procedure ({} and {} show the counters).",
            CheckId::HealthRas,
            CheckId::HealthBadPages
        ),
    )
}

fn smu(ctx: &Ctx) -> Vec<Finding> {
    judge(
        ctx,
        &[EventKind::SmuFailure, EventKind::Throttling],
        "SMU (power management) failure or throttling",
        |_| Status::Warn,
        "The power-management firmware failed or throttled the GPU: check cooling and power \
            delivery, and update linux-firmware and the kernel.",
    )
}

/// Per GPU, what happened in which boot: this boot's events (the ones the checks above judge)
/// beside the earlier boots the journal or the rotated kern.log still hold. One finding per GPU
/// with events in any boot read; hangs, resets or uncorrectable errors in 2 boots are a warning
/// (a reboot did not clear them), in [`history::ESCALATE_BOOTS`] boots a failure for hardware
/// inspection (gpud's reboot threshold, cited there). Only in `--boots N` and the fleet modes.
fn history(ctx: &Ctx) -> Vec<Finding> {
    use crate::kernlog::history;
    let asked = ctx.cfg.boots;
    if asked < 2 {
        return vec![Finding::skip(format!(
            "earlier boots are read only when asked: --boots N (N >= 2; now {asked}), or --npd / \
                --prometheus"
        ))];
    }
    let h = match ctx.inv.kernel_history() {
        Ok(h) => h,
        Err(e) => {
            return vec![Finding::skip(format!(
                "no earlier boot's kernel log is kept here (of the {asked} boots asked for)"
            ))
            .evidence_lines(e.attempts.iter().map(|(s, why)| format!("{s}: {why}")))
            .fix_text(
                "To keep the kernel log across reboots: a persistent journal (sudo mkdir -p \
                /var/log/journal, or Storage=persistent in /etc/systemd/journald.conf, then sudo \
                systemctl restart systemd-journald), or rsyslog writing /var/log/kern.log.",
            )]
        }
    };
    let this_boot: Vec<&Event> = match ctx.inv.kernel_log() {
        Ok(_) => ctx.inv.kernel_events().iter().map(|(_, e)| e).collect(),
        Err(_) => Vec::new(),
    };
    let read = 1 + h.boots.len();
    let evidence = boots_evidence(ctx, h);
    let gpus = history::per_gpu(this_boot, &h.boots);
    if gpus.is_empty() {
        return vec![
            Finding::pass(format!("no amdgpu/KFD event in the last {read} boots"))
                .evidence_lines(evidence),
        ];
    }
    gpus.iter()
        .map(|g| gpu_history(g, read, &evidence))
        .collect()
}

/// The finding for one group of events: its worst status (or harmless, when the symptom
/// catalogue says so), the first lines as evidence, the catalogue's fix or `default_fix`.
fn group_finding(
    k: &KernelLog,
    (kind, device, evs): Group,
    status: &impl Fn(&Event) -> Status,
    default_fix: &str,
) -> Finding {
    let catalogue = crate::packs::catalogue();
    let first = &evs[0].1;
    let worst = evs
        .iter()
        .map(|(_, e)| status(e))
        .max_by_key(|s| match s {
            Status::Fail => 3,
            Status::Warn => 2,
            _ => 1,
        })
        .unwrap_or(Status::Warn);
    let line = &k.lines[evs[0].0];
    let hit = crate::packs::why::recognise(catalogue, &line.text)
        .into_iter()
        .next();
    let harmless = hit.as_ref().is_some_and(|h| h.symptom.harmless);
    let count = if evs.len() == 1 {
        String::new()
    } else {
        format!(
            " ({} times, last: {})",
            evs.len(),
            evs[evs.len() - 1].1.detail
        )
    };
    let summary = format!("{}: {}{count}", kind.name(), first.detail);
    let mut f = match (harmless, worst) {
        (true, _) => Finding::pass(format!("harmless: {summary}")),
        (false, Status::Fail) => Finding::fail(summary),
        (false, Status::Pass) => Finding::pass(summary),
        (false, _) => Finding::warn(summary),
    };
    if let Some(d) = device {
        f = f.subject(d);
    }
    let action = evs.iter().map(|(_, e)| action_of(e)).max();
    f = f.event(kind.name());
    if let Some(a) = action.filter(|_| !harmless) {
        f = f.action(a);
    }
    let mut evidence = Vec::new();
    for (i, e) in evs.iter().take(4) {
        evidence.push(format!("line {}: {}", i + 1, k.lines[*i].text));
        if let Some((name, pid)) = &e.process {
            evidence.push(format!("  process {name} pid {pid}"));
        }
        evidence.extend(e.extra.iter().take(6).map(|x| format!("  {x}")));
    }
    if let Some(h) = &hit {
        evidence.push(format!(
            "the symptom catalogue knows this line: {} ({}): {}",
            h.symptom.id,
            h.symptom.class.as_deref().unwrap_or("-"),
            h.symptom.cause.trim()
        ));
    }
    f = f.evidence_lines(evidence);
    if f.status != Status::Pass {
        let fix = hit
            .as_ref()
            .map(|h| h.symptom.fix.trim().to_string())
            .unwrap_or_else(|| default_fix.to_string());
        f = f.fix_text(fix);
    }
    f
}

/// The boots read, one line each, and what could not be read.
fn boots_evidence(ctx: &Ctx, h: &crate::kernlog::history::History) -> Vec<String> {
    let mut evidence: Vec<String> = vec![format!("earlier boots from {}", h.source)];
    for b in &h.boots {
        let id = b.id.as_deref().map(|i| format!(" {i}")).unwrap_or_default();
        let when = match (&b.first, &b.last) {
            (Some(a), Some(z)) => format!(" ({a} .. {z})"),
            (Some(a), None) => format!(" ({a})"),
            _ => String::new(),
        };
        let partial = if b.partial {
            ", its start not kept"
        } else {
            ""
        };
        evidence.push(format!(
            "boot {}{id}{when}: {} amdgpu line(s), {} event(s){partial}",
            b.offset,
            b.lines,
            b.events.len()
        ));
    }
    if ctx.inv.kernel_log().is_err() {
        evidence.push(format!(
            "this boot's log cannot be read ({}): counted as none",
            CheckId::KernelLog.see()
        ));
    }
    evidence.extend(h.notes.iter().cloned());
    evidence
}

/// One GPU's events across the boots read: a warning when they recurred after a reboot, a
/// failure at [`history::ESCALATE_BOOTS`] boots.
fn gpu_history(
    g: &crate::kernlog::history::GpuHistory,
    read: usize,
    evidence: &[String],
) -> Finding {
    use crate::kernlog::history;
    let summary = history::describe(g, read);
    let serious = g.serious_boots.len();
    // Actions (docs/kernlog.md, "Earlier boots"): a GPU that failed again after two
    // reboots is a hardware case (gpud's reboot threshold); once, a reboot is still the
    // remedy amdgpu's own recovery leaves (a failed or repeated reset is cleared by a fresh
    // start of the device).
    let mut f = if serious >= history::ESCALATE_BOOTS {
        Finding::fail(summary)
            .event("recurring")
            .action(Action::DrainAndInspect)
            .fix_text(format!(
                "The GPU hung, was reset or had uncorrectable errors in {serious} of the last \
                {read} boots: rebooting has not cleared it. Drain the node and have the GPU \
                inspected (amd-smi, the vendor's diagnostics; {} and {} show its error \
                counters).",
                CheckId::HealthRas,
                CheckId::HealthBadPages
            ))
    } else if serious == 2 {
        Finding::warn(summary)
            .event("recurred-after-reboot")
            .action(Action::RebootNode)
            .fix_text(
                "The GPU hung, was reset or had uncorrectable errors again after a reboot: reboot \
                once more and watch it; a third boot with the same errors means hardware \
                inspection.",
            )
    } else {
        Finding::pass(summary)
    };
    if g.device != "unknown" {
        f = f.subject(g.device.clone());
    }
    let mut ev = Vec::new();
    for b in &g.boots {
        let counts: Vec<String> = b.counts.iter().map(|(k, n)| format!("{k} {n}")).collect();
        ev.push(format!(
            "{}: {}",
            history::boot_name(b.boot),
            counts.join(", ")
        ));
    }
    ev.extend(evidence.iter().cloned());
    f.evidence_lines(ev)
}

/// The repair action of one kernel-log event, from what the driver did about it.
/// - A ring timeout or hang the driver recovered from (`GPU reset succeeded`) leaves the GPU
///   usable; the process whose job hung lost its context (amdgpu_device_gpu_recover marks the
///   guilty context; its submissions fail with ECANCELED): restart that program.
/// - A failed reset or VRAM lost leaves a GPU that only a fresh start trusts (amdgpu prints
///   "GPU reset(%d) failed" and keeps the device in error).
/// - A page fault is the faulting program's (the process is named): restart or debug it.
/// - Uncorrectable, fatal or poison RAS events are hardware: the driver retires the page and
///   counts toward the bad-page threshold (health.bad-pages); corrected ones ask nothing.
/// - Initialisation failures are configuration (firmware, kernel, BIOS settings).
fn action_of(e: &Event) -> Action {
    match e.kind {
        EventKind::RingTimeout
        | EventKind::HwsHang
        | EventKind::GpuResetBegin
        | EventKind::GpuResetSucceeded
        | EventKind::VmPageFault => Action::RestartProcess,
        EventKind::GpuResetFailed | EventKind::VramLost | EventKind::SmuFailure => {
            Action::RebootNode
        }
        EventKind::RasEvent if e.is_uncorrected_ras() => Action::DrainAndInspect,
        EventKind::RasEvent => Action::None,
        EventKind::Throttling | EventKind::TaskInfo => Action::None,
        EventKind::FirmwareLoadFailed
        | EventKind::IpInitFailed
        | EventKind::ProbeFailed
        | EventKind::AsicUnsupported
        | EventKind::DeviceIdMissing
        | EventKind::PcieAtomicsRejected
        | EventKind::IommuFailure => Action::FixConfig,
    }
}

//! amdgpu's CPER records (issue 26, item 3; `health.cper`).

use super::{Problem, Severity};
use crate::checkdoc::Action;
use crate::gpu::health::cper::{CperLog, CperRecord, CperSeverity};
use crate::gpu::health::read::{CperRead, DeviceHealth};

const FIX_UNREADABLE: &str = "Run as root with debugfs mounted (mount -t debugfs none \
     /sys/kernel/debug) to read them.";
const FIX_THRESHOLD: &str = "amdgpu wrote this record when the retired VRAM pages reached \
     amdgpu.bad_page_threshold (amdgpu_ras_eeprom_update_header): drain the node and send the GPU \
     for replacement (the retired pages themselves: the bad-page check).";
const FIX_FATAL: &str = "A fatal error made amdgpu reset the GPU (amdgpu_ras_global_ras_isr, \
     then GPU recovery) and lost the jobs on it. Drain the GPU and have it inspected as for \
     uncorrectable RAS errors, quoting these records and their ACA STATUS values (amd-smi \
     decodes them into AFIDs for AMD's Service Action Guide).";
const FIX_UNCORRECTED: &str = "Uncorrected (poison) errors end the process that consumed the \
     data and may reset the GPU; drain the GPU, restart the affected jobs elsewhere and have it \
     inspected as for uncorrectable RAS errors.";

/// What a record of one severity means.
struct RecordKind {
    severity: CperSeverity,
    event: &'static str,
    action: Option<Action>,
    what: &'static str,
    fix: &'static str,
    finding: Severity,
}

/// Actions as health.ras and kernel.ras give the same errors (docs/fleet.md): a fatal or
/// uncorrected record is an uncorrectable hardware error the driver also counts in its RAS
/// counters and toward the bad-page threshold (amdgpu_ras.c), so drain and inspect; corrected
/// ones are watched.
const BY_SEVERITY: [RecordKind; 3] = [
    RecordKind {
        severity: CperSeverity::Fatal,
        event: "fatal",
        action: Some(Action::DrainAndInspect),
        what: "fatal error record(s)",
        fix: FIX_FATAL,
        finding: Severity::Warn,
    },
    RecordKind {
        severity: CperSeverity::Uncorrected,
        event: "uncorrected",
        action: Some(Action::DrainAndInspect),
        what: "non-fatal uncorrected error record(s)",
        fix: FIX_UNCORRECTED,
        finding: Severity::Warn,
    },
    RecordKind {
        severity: CperSeverity::Corrected,
        event: "corrected",
        action: None,
        what: "corrected error record(s)",
        fix: "",
        finding: Severity::Info,
    },
];

/// One record in one line: id, severity, notification type, time, then each section.
fn describe(r: &CperRecord) -> String {
    let time = r
        .timestamp
        .as_ref()
        .map(|t| format!(", {t}"))
        .unwrap_or_default();
    let mut parts = vec![format!(
        "record {} ({}, {}{time})",
        r.record_id,
        r.severity.label(),
        r.notify.label()
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
}

fn exceeds_threshold(r: &CperRecord) -> bool {
    r.sections.iter().any(|s| s.threshold_exceeded)
}

/// The problems of one readable CPER ring.
fn log_problems(d: &DeviceHealth, path: &str, log: &CperLog, out: &mut Vec<Problem>) {
    let evidence = |pred: &dyn Fn(&CperRecord) -> bool| -> Vec<String> {
        log.records
            .iter()
            .filter(|r| pred(r))
            .take(8)
            .map(|r| format!("{path}: {}", describe(r)))
            .collect()
    };
    let n_threshold = log.records.iter().filter(|r| exceeds_threshold(r)).count();
    if n_threshold > 0 {
        let what = format!("CPER: the bad-page threshold was exceeded ({n_threshold} record(s))");
        // amdgpu writes this record when the bad pages reach the threshold
        // (amdgpu_ras_eeprom_update_header), the driver's own replacement signal.
        out.push(
            Problem::new(d.pci.clone(), Severity::Fail, "bad-page-threshold", what)
                .evidence(evidence(&exceeds_threshold))
                .fix(FIX_THRESHOLD)
                .action(Action::DrainAndInspect),
        );
    }
    for kind in &BY_SEVERITY {
        let pick = |r: &CperRecord| r.severity == kind.severity && !exceeds_threshold(r);
        let n = log.records.iter().filter(|r| pick(r)).count();
        if n == 0 {
            continue;
        }
        let what = format!("CPER: {n} {} since the driver loaded", kind.what);
        let p = Problem::new(d.pci.clone(), kind.finding, kind.event, what)
            .evidence(evidence(&pick))
            .fix(kind.fix);
        out.push(match kind.action {
            Some(a) => p.action(a),
            None => p,
        });
    }
    if !log.damaged.is_empty() || log.more > 0 {
        let mut lines: Vec<String> = log.damaged.iter().map(|w| format!("{path}: {w}")).collect();
        if log.more > 0 {
            lines.push(format!("{path}: {} more record(s) not decoded", log.more));
        }
        let what = "CPER ring holds records that could not be decoded";
        out.push(Problem::new(d.pci.clone(), Severity::Info, "undecoded", what).evidence(lines));
    }
}

/// amdgpu's CPER records (issue 26, item 3; `health.cper`), each problem with its event.
/// Records are evidence of what the driver already saw: a record whose section says the
/// bad-page threshold was exceeded fails (`bad-page-threshold`: the GPU is due for
/// replacement); fatal records warn (`fatal`), non-fatal uncorrected ones warn (`uncorrected`);
/// corrected ones are information (`corrected`). A file that could not be read is information
/// ("could not read", `unreadable`), never a failure; an absent or refused file is nothing.
pub fn cper_problems(devs: &[DeviceHealth]) -> Vec<Problem> {
    let mut out = Vec::new();
    for d in devs {
        match &d.cper {
            CperRead::Read { path, log } => log_problems(d, path, log, &mut out),
            CperRead::Unreadable { path, error } => {
                let what = "could not read the GPU's CPER records";
                out.push(
                    Problem::new(d.pci.clone(), Severity::Info, "unreadable", what)
                        .evidence(vec![format!("{path}: {error}")])
                        .fix(FIX_UNREADABLE),
                );
            }
            _ => {}
        }
    }
    out
}

//! `rocm-doctor log` on a kernel log (dmesg, `dmesg -T`, `journalctl -k` in either timestamp
//! style, kern.log, /dev/kmsg records): a file with no HIP runtime line is read as kernel text
//! by `kernlog`, and its amdgpu/KFD events are reported with the cause and fix the symptom
//! catalogue gives each line (the one `why` and the kernel checks use).

use crate::kernlog::{self, Event, EventKind};
use serde_json::{json, Value};
use std::path::Path;

/// Kernel text read at most (a whole boot's dmesg is far smaller).
const MAX_BYTES: u64 = 64 << 20;

/// One event as reported: where, what, and what the catalogue says of its line.
pub(crate) struct Reported {
    pub line: usize,
    pub event: Event,
    pub text: String,
    pub failure: bool,
    pub symptom: Option<(String, String, String, bool)>,
}

/// The amdgpu/KFD events of a plain kernel-log file, or `None` when it holds none (or cannot be
/// read as a plain file).
pub(crate) fn events_of_file(path: &Path) -> Option<Vec<Reported>> {
    use std::io::Read;
    // A regular file only, opened without blocking (issue 25, item 5).
    let f = crate::host::open::open_regular(path, crate::host::open::FinalLink::Follow)
        .ok()?
        .file;
    let mut bytes = Vec::new();
    f.take(MAX_BYTES).read_to_end(&mut bytes).ok()?;
    let lines = kernlog::parse_text(&bytes);
    let events = kernlog::amdgpu_events(&lines);
    if events.is_empty() {
        return None;
    }
    let catalogue = crate::packs::catalogue();
    Some(
        events
            .into_iter()
            .map(|(i, e)| {
                let text = lines[i].text.clone();
                let symptom = crate::packs::why::recognise(catalogue, &text)
                    .into_iter()
                    .next()
                    .map(|h| {
                        (
                            h.symptom.id.clone(),
                            h.symptom.cause.trim().to_string(),
                            h.symptom.fix.trim().to_string(),
                            h.symptom.harmless,
                        )
                    });
                let harmless = symptom.as_ref().is_some_and(|s| s.3);
                Reported {
                    line: i + 1,
                    failure: !harmless && is_failure(&e),
                    event: e,
                    text,
                    symptom,
                }
            })
            .collect(),
    )
}

/// Events that mean a GPU is unusable or its data is not to be trusted.
fn is_failure(e: &Event) -> bool {
    match e.kind {
        EventKind::FirmwareLoadFailed
        | EventKind::IpInitFailed
        | EventKind::ProbeFailed
        | EventKind::AsicUnsupported
        | EventKind::DeviceIdMissing
        | EventKind::PcieAtomicsRejected
        | EventKind::GpuResetFailed
        | EventKind::VramLost => true,
        EventKind::RasEvent => e.is_uncorrected_ras(),
        _ => false,
    }
}

pub(crate) fn human(path: &str, events: &[Reported], verbose: u8) -> String {
    let failures = events.iter().filter(|r| r.failure).count();
    let mut s = format!(
        "{path}: a kernel log (no HIP runtime line): {} amdgpu/KFD event(s), {failures} a \
            failure\n\n",
        events.len()
    );
    for r in events {
        let mark = if r.failure {
            "✗"
        } else if r.symptom.as_ref().is_some_and(|x| x.3) {
            "✓"
        } else {
            "!"
        };
        let dev = r
            .event
            .device
            .as_deref()
            .map(|d| format!(" ({d})"))
            .unwrap_or_default();
        s.push_str(&format!(
            "[{mark}] line {}: {}{dev}: {}\n",
            r.line,
            r.event.kind.name(),
            r.text
        ));
        if let Some((name, pid)) = &r.event.process {
            s.push_str(&format!("    process {name} pid {pid}\n"));
        }
        if verbose > 0 {
            for x in &r.event.extra {
                s.push_str(&format!("    | {x}\n"));
            }
        }
        if let Some((id, cause, fix, harmless)) = &r.symptom {
            if *harmless {
                s.push_str(&format!("    harmless ({id}): {cause}\n"));
            } else {
                s.push_str(&format!("    why ({id}): {cause}\n    fix: {fix}\n"));
            }
        }
    }
    s
}

pub(crate) fn json(path: &str, events: &[Reported], exit_code: i32) -> Value {
    json!({
        "schema_version": crate::report::json::SCHEMA_VERSION,
        "tool": &crate::report::json::TOOL,
        "command": "log",
        "exit_code": exit_code,
        "kernel_log": {
            "path": path,
            "events": events.iter().map(|r| json!({
                "line": r.line,
                "kind": r.event.kind.name(),
                "device": r.event.device,
                "process": r.event.process.as_ref().map(|(n, p)| json!({"name": n, "pid": p})),
                "text": r.text,
                "detail": r.event.extra,
                "failure": r.failure,
                "symptom": r.symptom.as_ref().map(|(id, cause, fix, harmless)| json!({
                    "id": id, "cause": cause, "fix": fix, "harmless": harmless,
                })),
            })).collect::<Vec<_>>(),
        }
    })
}

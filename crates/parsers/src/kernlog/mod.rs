//! The pure half of the kernel log reader (the main crate's `kernlog` reads the logs):
//!
//! - [`parse`]: one line in any captured shape (kmsg record, dmesg, journalctl, kern.log,
//!   a paste) → [`KernelLine`];
//! - [`event`]: [`classify`] one line → [`Event`];
//! - this module: [`amdgpu_events`] folds multi-line reports into one event each,
//!   [`summarize`] counts them per kind.
//!
//! The formats and their sources: docs/kernlog.md.

pub mod event;
pub mod parse;

pub use event::{classify, Event, EventKind, RasSeverity, Role};
pub use parse::{parse_kmsg_record, parse_line, parse_text, Format, KernelLine};

/// Detail lines kept per folded event (a page-fault report has at most about ten).
pub const MAX_FOLDED: usize = 16;

/// How far back (in events) a detail line looks for the report it belongs to.
const FOLD_WINDOW: usize = 32;

/// Seconds within which a detail line still belongs to the report before it (page-fault
/// reports are printed in one interrupt handler call, microseconds apart).
const FOLD_SECONDS: f64 = 2.0;

/// The amdgpu/KFD/DRM events of `lines`, each with the index of its first line. A report that
/// spans lines (a page fault with its task, address and status lines; a ring timeout with its
/// task and ring-reset lines; a reset with its intermediate steps; `kgd2kfd_probe failed`
/// after `DID ... is missing`) is one event: its detail lines are folded into
/// [`Event::extra`], the process into [`Event::process`]. Lines are joined by device and
/// time (§10 item 3 of the shared reference `amdgpu-health.md`). A page-fault detail line with
/// no header before it (a paste that kept only the status lines) is an event of its own;
/// other orphan detail and task lines are dropped.
pub fn amdgpu_events(lines: &[KernelLine]) -> Vec<(usize, Event)> {
    let mut out: Vec<(usize, Event, Option<f64>)> = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        let Some(ev) = classify(line) else { continue };
        if ev.role == Role::Head && ev.kind != EventKind::TaskInfo {
            out.push((i, ev, line.ts));
            continue;
        }
        let start = out.len().saturating_sub(FOLD_WINDOW);
        let owner = out[start..].iter().rposition(|(_, head, ts)| {
            let kind_fits = match ev.kind {
                EventKind::TaskInfo => {
                    matches!(head.kind, EventKind::VmPageFault | EventKind::RingTimeout)
                }
                k => head.kind == k,
            };
            let device_fits =
                head.device.is_none() || ev.device.is_none() || head.device == ev.device;
            let time_fits = match (ts, line.ts) {
                (Some(a), Some(b)) => (b - a).abs() <= FOLD_SECONDS,
                _ => true,
            };
            kind_fits && device_fits && time_fits
        });
        match owner {
            Some(j) => {
                let head = &mut out[start + j].1;
                if head.process.is_none() {
                    head.process = ev.process.clone();
                }
                if head.device.is_none() {
                    head.device = ev.device.clone();
                }
                if head.extra.len() < MAX_FOLDED {
                    head.extra.push(ev.detail);
                }
            }
            None if ev.kind == EventKind::VmPageFault => {
                let mut ev = ev;
                ev.role = Role::Head;
                out.push((i, ev, line.ts));
            }
            None => {}
        }
    }
    out.into_iter().map(|(i, e, _)| (i, e)).collect()
}

/// Events of one kind.
#[derive(Debug, Clone, PartialEq)]
pub struct KindSummary {
    pub kind: EventKind,
    pub count: usize,
    /// Line index (into the slice given to [`amdgpu_events`]) of the first and last event.
    pub first_line: usize,
    pub last_line: usize,
    /// Devices named by these events, sorted, each once.
    pub devices: Vec<String>,
}

/// Counts per kind, in [`EventKind::ALL`] order; kinds without events are left out.
pub fn summarize(events: &[(usize, Event)]) -> Vec<KindSummary> {
    let mut out: Vec<KindSummary> = Vec::new();
    for kind in EventKind::ALL {
        let mut s: Option<KindSummary> = None;
        for (i, e) in events.iter().filter(|(_, e)| e.kind == kind) {
            let s = s.get_or_insert(KindSummary {
                kind,
                count: 0,
                first_line: *i,
                last_line: *i,
                devices: Vec::new(),
            });
            s.count += 1;
            s.first_line = s.first_line.min(*i);
            s.last_line = s.last_line.max(*i);
            if let Some(d) = &e.device {
                if !s.devices.contains(d) {
                    s.devices.push(d.clone());
                }
            }
        }
        if let Some(mut s) = s {
            s.devices.sort();
            out.push(s);
        }
    }
    out
}

#[cfg(test)]
mod tests;

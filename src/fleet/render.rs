//! The human view of a fleet summary.

use super::summary::{NodeStatus, Report};
use std::fmt::Write;

/// Hosts shown per line before `... and N more`.
const SHOW: usize = 12;

fn hosts(list: &[String]) -> String {
    let mut s = list
        .iter()
        .take(SHOW)
        .cloned()
        .collect::<Vec<_>>()
        .join(", ");
    if list.len() > SHOW {
        let _ = write!(s, " ... and {} more", list.len() - SHOW);
    }
    s
}

pub(crate) fn render(r: &Report) -> String {
    let mut s = String::new();
    let count = |st| r.nodes.get(&st).map_or(0, Vec::len);
    let _ = writeln!(
        s,
        "{} nodes: {} ok, {} warn, {} fail, {} error; {} inputs not used",
        r.reports,
        count(NodeStatus::Ok),
        count(NodeStatus::Warn),
        count(NodeStatus::Fail),
        count(NodeStatus::Error),
        r.notes.len() as u64 + r.notes_dropped.values().sum::<u64>()
    );
    for st in [NodeStatus::Error, NodeStatus::Fail, NodeStatus::Warn] {
        if let Some(list) = r.nodes.get(&st) {
            let _ = writeln!(
                s,
                "  {:<5} {}",
                format!("{st:?}").to_lowercase(),
                hosts(list)
            );
        }
    }
    checks(&mut s, r);
    outliers(&mut s, r);
    baseline(&mut s, r);
    notes(&mut s, r);
    s
}

/// The failing checks, grouped by identical cause.
fn checks(s: &mut String, r: &Report) {
    if !r.checks.is_empty() {
        let _ = writeln!(s, "\nchecks (grouped by identical cause):");
        for c in &r.checks {
            let subj = c
                .subject
                .as_deref()
                .map(|x| format!(" [{x}]"))
                .unwrap_or_default();
            let _ = writeln!(
                s,
                "  {} {}{} on {} node(s): {}\n      {}",
                c.status.to_uppercase(),
                c.id,
                subj,
                c.count,
                c.cause,
                hosts(&c.nodes)
            );
        }
    }
}

/// The values that differ from the majority.
fn outliers(s: &mut String, r: &Report) {
    if !r.outliers.is_empty() {
        let _ = writeln!(s, "\noutliers (differ from the majority):");
        for o in &r.outliers {
            let _ = writeln!(
                s,
                "  {} = {} on {} (majority of {}: {} on {} node(s))",
                o.field,
                o.value,
                hosts(&o.nodes),
                o.among,
                o.majority,
                o.majority_count
            );
        }
    }
}

/// The drift from `--baseline`.
fn baseline(s: &mut String, r: &Report) {
    if let Some(b) = &r.baseline {
        let _ = writeln!(
            s,
            "\nbaseline (host {}, {}): {} of {} node(s) drift",
            b.host, b.fingerprint, b.drifting, b.compared
        );
        for d in &b.drifts {
            let _ = writeln!(
                s,
                "  {} (baseline: {}) on {} node(s)",
                d.kind, d.baseline, d.count
            );
            for v in &d.now {
                let _ = writeln!(s, "      {}: {}", v.value, hosts(&v.nodes));
            }
        }
    }
}

/// The inputs not used, and how many more were not named.
fn notes(s: &mut String, r: &Report) {
    if !r.notes.is_empty() {
        let _ = writeln!(s, "\ninputs not used:");
        for n in &r.notes {
            let host = n
                .host
                .as_deref()
                .map(|h| format!(" ({h})"))
                .unwrap_or_default();
            let kind = serde_json::to_value(n.kind)
                .ok()
                .and_then(|v| v.as_str().map(str::to_string))
                .unwrap_or_default();
            let _ = writeln!(s, "  {kind}: {}{host}: {}", n.source, n.detail);
        }
    }
    for (k, n) in &r.notes_dropped {
        let _ = writeln!(s, "  ... and {n} more {k:?} notes");
    }
}

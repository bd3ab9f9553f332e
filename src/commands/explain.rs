//! `rocm-doctor explain ID`: a check's documentation, Rust and pack checks alike.

use super::Outcome;
use crate::packs::PackSet;
use crate::registry::Registry;
use crate::report::exit;
use std::fmt::Write;

pub(crate) fn main(id: &str, packs: &PackSet) -> Outcome {
    let reg = Registry::new(packs);
    let entry = reg.get(id);
    let mut out = String::new();
    if let Some(o) = entry.and_then(|e| e.origin) {
        let _ = writeln!(out, "(from check pack {o})");
    }
    let Some(d) = entry.map(|e| e.doc) else {
        anyhow::bail!("no check '{id}' (see --list-checks)");
    };
    let _ = writeln!(out, "{} — {}\ncategory: {}\n", d.id, d.title, d.category);
    let _ = writeln!(out, "What it checks\n  {}\n", d.what.trim());
    let _ = writeln!(out, "Why it matters\n  {}\n", d.why.trim());
    let _ = writeln!(out, "How to fix\n  {}", d.fix.trim());
    let _ = writeln!(
        out,
        "\nRepair action\n  {} ({}), unless a finding names its own",
        d.action,
        d.action.meaning()
    );
    if !d.sources.is_empty() {
        let _ = writeln!(out, "\nSources");
        for s in &d.sources {
            let _ = writeln!(out, "  - {s}");
        }
    }
    // A pack's docs are the pack author's text.
    Ok(super::print_visible(&out, exit::OK))
}

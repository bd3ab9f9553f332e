//! The human view: findings grouped by category, one line each, a fix under every problem,
//! evidence with `-v`. Colours only when asked for or on a terminal without NO_COLOR.

use super::{Counts, Finding, Status};
use owo_colors::{OwoColorize, Style};
use std::fmt::Write;

/// Whether to colour stdout: `--color always|never`, or on a terminal unless NO_COLOR is set
/// (to anything non-empty; no-color.org).
pub fn use_color(choice: crate::config::ColorChoice, env: &crate::host::Env) -> bool {
    use std::io::IsTerminal;
    match choice {
        crate::config::ColorChoice::Always => true,
        crate::config::ColorChoice::Never => false,
        crate::config::ColorChoice::Auto => {
            std::io::stdout().is_terminal() && env.get_os("NO_COLOR").is_none_or(|v| v.is_empty())
        }
    }
}

#[derive(Debug, Clone, Copy)]
pub struct Options {
    pub color: bool,
    pub verbose: u8,
}

fn mark(s: Status) -> &'static str {
    match s {
        Status::Pass => "✓",
        Status::Skip => "-",
        Status::Warn => "!",
        Status::Fail => "✗",
        Status::Error => "?",
    }
}

fn style(s: Status) -> Style {
    match s {
        Status::Pass => Style::new().green(),
        Status::Skip => Style::new().dimmed(),
        Status::Warn => Style::new().yellow(),
        Status::Fail => Style::new().red().bold(),
        Status::Error => Style::new().magenta().bold(),
    }
}

fn paint(o: &Options, st: Style, text: &str) -> String {
    if o.color {
        text.style(st).to_string()
    } else {
        text.to_string()
    }
}

/// Renders the findings; categories appear in the order of their first finding.
pub fn render(findings: &[Finding], o: &Options) -> String {
    let mut out = String::new();
    let mut cats: Vec<&str> = Vec::new();
    for f in findings {
        if !cats.contains(&f.category.as_str()) {
            cats.push(&f.category);
        }
    }
    for cat in cats {
        let group: Vec<&Finding> = findings.iter().filter(|f| f.category == cat).collect();
        let worst = group.iter().map(|f| f.status).max().unwrap_or(Status::Pass);
        // Quiet when nothing is wrong: a category where every check skipped is one line.
        if o.verbose == 0 && group.iter().all(|f| f.status == Status::Skip) {
            let mut ids: Vec<&str> = group.iter().map(|f| f.id.as_str()).collect();
            ids.dedup();
            // The reason before its detail (`no GPU to judge: no KFD topology`), unless that
            // leaves too little to say anything.
            let full = group[0].summary.as_str();
            let reason = full
                .split(": ")
                .next()
                .filter(|r| r.len() >= 20)
                .unwrap_or(full);
            let n = ids.len();
            let _ = writeln!(
                out,
                "{} {}: {reason} - {n} {} skipped",
                paint(o, style(worst), &format!("[{}]", mark(worst))),
                paint(o, Style::new().bold(), cat),
                if n == 1 { "check" } else { "checks" }
            );
            continue;
        }
        let _ = writeln!(
            out,
            "{} {}",
            paint(o, style(worst), &format!("[{}]", mark(worst))),
            paint(o, Style::new().bold(), cat)
        );
        // A fix already printed in this category is referred to, not repeated.
        let mut fixes_shown: Vec<&super::Fix> = Vec::new();
        for f in group {
            // The subject only when the summary does not already name it.
            let subject = f
                .subject
                .as_deref()
                .filter(|s| !f.summary.contains(*s))
                .map(|s| format!(" ({s})"))
                .unwrap_or_default();
            let _ = writeln!(
                out,
                "    {} {}{}  {}",
                paint(o, style(f.status), mark(f.status)),
                f.summary,
                subject,
                paint(o, Style::new().dimmed(), &format!("[{}]", f.id))
            );
            let problem = matches!(f.status, Status::Warn | Status::Fail | Status::Error);
            if let Some(fix) = f.fix.as_ref().filter(|_| problem) {
                if fixes_shown.contains(&fix) {
                    let _ = writeln!(
                        out,
                        "        {} same as above",
                        paint(o, Style::new().cyan().bold(), "fix:")
                    );
                } else {
                    fixes_shown.push(fix);
                    let _ = writeln!(
                        out,
                        "        {} {}",
                        paint(o, Style::new().cyan().bold(), "fix:"),
                        fix.text
                    );
                    for c in &fix.commands {
                        let _ = writeln!(out, "          $ {c}");
                    }
                    for (k, v) in &fix.env {
                        let _ = writeln!(out, "          export {k}={}", shell_value(v));
                    }
                }
            }
            let show_evidence = o.verbose >= 2 || (o.verbose >= 1 && f.status != Status::Pass);
            if show_evidence {
                for e in &f.evidence {
                    for line in e.lines() {
                        let _ = writeln!(
                            out,
                            "        {}",
                            paint(o, Style::new().dimmed(), &format!("| {line}"))
                        );
                    }
                }
            }
        }
    }
    let c = Counts::of(findings);
    let _ = writeln!(out, "\n{}", summary_line(&c, o));
    if o.verbose == 0
        && findings
            .iter()
            .any(|f| f.status != Status::Pass && !f.evidence.is_empty())
    {
        let _ = writeln!(out, "{}", paint(o, Style::new().dimmed(), "Run with -v for the evidence behind each finding, `rocm-doctor explain ID` for a check's docs."));
    }
    out
}

fn shell_value(v: &str) -> String {
    if v.bytes()
        .all(|b| b.is_ascii_alphanumeric() || b"-_./:,+=@%".contains(&b))
    {
        v.to_string()
    } else {
        format!("'{}'", v.replace('\'', "'\\''"))
    }
}

pub fn summary_line(c: &Counts, o: &Options) -> String {
    let parts = [
        (c.pass, "passed", Status::Pass),
        (
            c.warn,
            if c.warn == 1 { "warning" } else { "warnings" },
            Status::Warn,
        ),
        (c.fail, "failed", Status::Fail),
        (
            c.error,
            if c.error == 1 { "error" } else { "errors" },
            Status::Error,
        ),
        (c.skip, "skipped", Status::Skip),
    ];
    parts
        .iter()
        .filter(|(n, _, s)| *n > 0 || matches!(s, Status::Pass | Status::Fail))
        .map(|(n, label, s)| {
            let t = format!("{n} {label}");
            if *n > 0 {
                paint(o, style(*s), &t)
            } else {
                t
            }
        })
        .collect::<Vec<_>>()
        .join(", ")
}

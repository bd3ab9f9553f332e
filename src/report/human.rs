//! The human view: findings grouped by category, one line each, a fix under every problem,
//! evidence with `-v`. Colours only when asked for or on a terminal without NO_COLOR.

use super::escape::visible;
use super::{Counts, Finding, Status};
use owo_colors::{OwoColorize, Style};

/// Whether to colour stdout: `--color always|never`, or on a terminal unless NO_COLOR is set
/// (to anything non-empty; no-color.org).
pub(crate) fn use_color(choice: crate::config::ColorChoice, env: &crate::host::Env) -> bool {
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
pub(crate) struct Options {
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

/// Findings that can be read more than once, in order: a slice, or the findings `inspect`
/// keeps on disk while it streams a large tree (`inspect::kept`).
pub(crate) trait Findings {
    /// Calls `f` with every finding, in order.
    fn each(&self, f: &mut dyn FnMut(&Finding)) -> std::io::Result<()>;
}

impl Findings for &[Finding] {
    fn each(&self, f: &mut dyn FnMut(&Finding)) -> std::io::Result<()> {
        self.iter().for_each(f);
        Ok(())
    }
}

/// Renders the findings; categories appear in the order of their first finding.
pub(crate) fn render(findings: &[Finding], o: &Options) -> String {
    let mut out = String::new();
    // Neither a slice nor a String can fail.
    let _ = render_to(&findings, o, &mut out);
    out
}

/// What the first pass learns of one category.
struct Category {
    name: String,
    worst: Status,
    all_skip: bool,
    /// The first finding's summary.
    first: String,
    /// Check ids, counting a run of equal ids once.
    ids: usize,
    last_id: String,
}

/// [`render`] onto any writer, reading the findings once to learn the categories and once
/// more per category: nothing is held per finding, so a listing of any length renders in
/// constant memory (only distinct fixes are remembered, to say "same as above").
pub(crate) fn render_to(
    src: &dyn Findings,
    o: &Options,
    out: &mut dyn std::fmt::Write,
) -> std::io::Result<()> {
    let mut cats: Vec<Category> = Vec::new();
    let mut counts = Counts::default();
    let mut hint = false;
    src.each(&mut |f| {
        counts.add(f.status);
        hint |= f.status != Status::Pass && !f.evidence.is_empty();
        let c = match cats.iter_mut().position(|c| c.name == f.category) {
            Some(i) => &mut cats[i],
            None => {
                cats.push(Category {
                    name: f.category.clone(),
                    worst: f.status,
                    all_skip: true,
                    first: f.summary.clone(),
                    ids: 0,
                    last_id: String::new(),
                });
                cats.last_mut().expect("just pushed")
            }
        };
        c.worst = c.worst.max(f.status);
        c.all_skip &= f.status == Status::Skip;
        if c.ids == 0 || c.last_id != f.id {
            c.ids += 1;
            c.last_id.clone_from(&f.id);
        }
    })?;
    for cat in &cats {
        let worst = cat.worst;
        // Quiet when nothing is wrong: a category where every check skipped is one line.
        if o.verbose == 0 && cat.all_skip {
            // The reason before its detail (`no GPU to judge: no KFD topology`), unless that
            // leaves too little to say anything.
            let first = visible(&cat.first);
            let full = first.as_ref();
            let reason = full
                .split(": ")
                .next()
                .filter(|r| r.len() >= 20)
                .unwrap_or(full);
            let n = cat.ids;
            let _ = writeln!(
                out,
                "{} {}: {reason} - {n} {} skipped",
                paint(o, style(worst), &format!("[{}]", mark(worst))),
                paint(o, Style::new().bold(), &visible(&cat.name)),
                if n == 1 { "check" } else { "checks" }
            );
            continue;
        }
        let _ = writeln!(
            out,
            "{} {}",
            paint(o, style(worst), &format!("[{}]", mark(worst))),
            paint(o, Style::new().bold(), &visible(&cat.name))
        );
        // A fix already printed in this category is referred to, not repeated.
        let mut fixes_shown: std::collections::HashSet<super::Fix> =
            std::collections::HashSet::new();
        src.each(&mut |f| {
            if f.category == cat.name {
                render_one(f, o, &mut fixes_shown, out);
            }
        })?;
    }
    let _ = writeln!(out, "\n{}", summary_line(&counts, o));
    if o.verbose == 0 && hint {
        let more =
            "Run with -v for the evidence behind each finding, `rocm-doctor explain ID` for \
                    a check's docs.";
        let _ = writeln!(out, "{}", paint(o, Style::new().dimmed(), more));
    }
    Ok(())
}

/// One finding's lines: status, summary, fix (or "same as above"), evidence.
fn render_one(
    f: &Finding,
    o: &Options,
    fixes_shown: &mut std::collections::HashSet<super::Fix>,
    out: &mut dyn std::fmt::Write,
) {
    // The subject only when the summary does not already name it.
    let subject = f
        .subject
        .as_deref()
        .filter(|s| !f.summary.contains(*s))
        .map(|s| format!(" ({})", visible(s)))
        .unwrap_or_default();
    let _ = writeln!(
        out,
        "    {} {}{}  {}",
        paint(o, style(f.status), mark(f.status)),
        visible(&f.summary),
        subject,
        paint(o, Style::new().dimmed(), &format!("[{}]", visible(&f.id)))
    );
    let problem = matches!(f.status, Status::Warn | Status::Fail | Status::Error);
    if let Some(fix) = f.fix.as_ref().filter(|_| problem) {
        if fixes_shown.contains(fix) {
            let _ = writeln!(
                out,
                "        {} same as above",
                paint(o, Style::new().cyan().bold(), "fix:")
            );
        } else {
            fixes_shown.insert(fix.clone());
            let _ = writeln!(
                out,
                "        {} {}",
                paint(o, Style::new().cyan().bold(), "fix:"),
                visible(&fix.text)
            );
            for c in &fix.commands {
                let _ = writeln!(out, "          $ {}", visible(c));
            }
            for (k, v) in &fix.env {
                let _ = writeln!(
                    out,
                    "          export {}={}",
                    visible(k),
                    visible(&shell_value(v))
                );
            }
        }
    }
    // A configuration fix is what `fix:` already says; an operation on the node is named.
    if let Some(a) = f.action.filter(|a| *a > super::Action::FixConfig) {
        let _ = writeln!(
            out,
            "        {} {a} ({})",
            paint(o, Style::new().cyan().bold(), "action:"),
            a.meaning()
        );
    }
    let show_evidence = o.verbose >= 2 || (o.verbose >= 1 && f.status != Status::Pass);
    if show_evidence {
        for e in &f.evidence {
            for line in e.lines() {
                let _ = writeln!(
                    out,
                    "        {}",
                    paint(o, Style::new().dimmed(), &format!("| {}", visible(line)))
                );
            }
        }
    }
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

pub(crate) fn summary_line(c: &Counts, o: &Options) -> String {
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

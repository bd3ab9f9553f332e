//! The Markdown of `rocm-doctor report`: pure rendering from plain data (no I/O), for pasting
//! into a GitHub or GitLab issue. Sections other than the summary are collapsible
//! (`<details>`, which both render; a blank line after `<summary>` lets Markdown inside work:
//! GitHub Docs, "Organizing information with collapsed sections").
//!
//! Text from the machine never breaks the document: prose and table cells are escaped
//! ([`md_text`]), code blocks get a fence longer than any backtick run inside them
//! ([`fenced`]), and every section has a byte budget so the whole stays under [`MAX_BYTES`]
//! (GitHub refuses issue bodies above 65,536 characters).

use crate::report::{Counts, Finding, Status};

/// The report's upper bound in bytes (the section budgets below add up to less).
#[cfg(test)]
pub(crate) const MAX_BYTES: usize = 60_000;

const BUDGET_PROBLEMS: usize = 9_000;
const BUDGET_VERSIONS: usize = 4_000;
const BUDGET_GPUS: usize = 6_000;
const BUDGET_TABLE: usize = 12_000;
const BUDGET_EVIDENCE: usize = 14_000;
const BUDGET_ENV: usize = 5_000;
const BUDGET_KERNEL: usize = 6_000;
/// One finding's evidence: lines and bytes.
const EVIDENCE_LINES: usize = 60;
const EVIDENCE_BYTES: usize = 4_000;
/// One line of prose or one cell.
const LINE_CHARS: usize = 400;
/// One environment value.
const ENV_VALUE_CHARS: usize = 1_000;
/// Kernel log lines kept from the start and the end when there are more.
const KERNEL_HEAD: usize = 40;
const KERNEL_TAIL: usize = 120;

/// The GPUs of the run.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) enum Gpus {
    /// No selected check looked at the GPUs (`--only toolchain.`), so the agents are unknown.
    #[default]
    NotExamined,
    /// The KFD agents (empty: no GPU).
    Agents(Vec<GpuRow>),
}

/// One GPU agent, as text cells.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct GpuRow {
    pub node: String,
    /// The processor (`gfx1030`).
    pub isa: String,
    /// The target id the runtime loads code for (override and features applied).
    pub target: String,
    pub name: String,
    /// The product the agent's `product` names (`Product::text` of `src/packs/gpunames.rs`:
    /// one name, or the chip and its candidates); empty when the doctor's JSON has none (an
    /// id the table lacks, or a doctor older than the field).
    pub product: String,
    /// PCI `vendor:device` in hex, with ` rev xx` when the revision was read.
    pub device_id: String,
    pub location: String,
    pub compute_units: String,
    pub vram: String,
    pub visible: String,
}

/// Everything the report shows: plain data, gathered by `bugreport::gather_with_log` and
/// redacted by `bugreport::redact_report` before rendering.
#[derive(Debug, Clone, Default)]
pub(crate) struct Report {
    pub findings: Vec<Finding>,
    /// (label, value) rows of the Versions section, in order.
    pub versions: Vec<(String, String)>,
    pub gpus: Gpus,
    /// The ROCm/GPU-related environment variables (name, value), sorted.
    pub env: Vec<(String, String)>,
    /// amdgpu/KFD kernel log lines; the section is left out when empty (see
    /// [`kernel_log_section`]).
    pub kernel_lines: Vec<String>,
    pub tool_version: String,
    /// The exact command line, shell-quoted.
    pub command_line: String,
    /// Whether user and host names were replaced (said in the report).
    pub redacted: bool,
}

/// The whole report.
pub(crate) fn render(r: &Report) -> String {
    let mut out = String::new();
    let c = Counts::of(&r.findings);
    out.push_str(&title(&c));
    out.push_str("\n\n");
    out.push_str(&summary_line(&c, r.redacted));
    out.push_str("\n\n");
    out.push_str(&problems(&r.findings));
    out.push_str(&details("Versions", &versions_table(&r.versions)));
    out.push_str(&details(&gpus_title(&r.gpus), &gpus_body(&r.gpus)));
    out.push_str(&details(
        &format!("All findings ({})", r.findings.len()),
        &findings_table(&r.findings),
    ));
    let (ev_count, ev_body) = evidence(&r.findings);
    if ev_count > 0 {
        out.push_str(&details(
            &format!("Evidence ({})", plural(ev_count, "finding")),
            &ev_body,
        ));
    }
    out.push_str(&details(
        &format!("Environment ({})", plural(r.env.len(), "variable")),
        &environment(&r.env),
    ));
    out.push_str(&kernel_log_section(&r.kernel_lines));
    out.push_str(&format!(
        "---\nrocm-doctor {} · {}\n",
        md_text(&r.tool_version),
        code_span(&clip(&r.command_line, LINE_CHARS * 2))
    ));
    out
}

fn title(c: &Counts) -> String {
    let mut parts = Vec::new();
    for (n, one, many) in [
        (c.fail, "failed", "failed"),
        (c.error, "error", "errors"),
        (c.warn, "warning", "warnings"),
    ] {
        if n > 0 {
            parts.push(format!("{n} {}", if n == 1 { one } else { many }));
        }
    }
    if parts.is_empty() {
        "## rocm-doctor report: no problem found".to_string()
    } else {
        format!("## rocm-doctor report: {}", parts.join(", "))
    }
}

fn summary_line(c: &Counts, redacted: bool) -> String {
    let total = c.pass + c.warn + c.fail + c.skip + c.error;
    let mut s = format!(
        "**{} fail · {} warn · {} error** ({total} findings: {} pass, {} skip).",
        c.fail, c.warn, c.error, c.pass, c.skip
    );
    if redacted {
        s.push_str(
            " User and host names are replaced by `<user>` and `<host>` \
             (`rocm-doctor report --no-redact` keeps them).",
        );
    }
    s
}

fn is_problem(s: Status) -> bool {
    matches!(s, Status::Fail | Status::Error | Status::Warn)
}

fn status_order(s: Status) -> u8 {
    match s {
        Status::Fail => 0,
        Status::Error => 1,
        Status::Warn => 2,
        _ => 3,
    }
}

/// The findings worth reading first: failures, errors, then warnings, each with its fix.
fn problems(findings: &[Finding]) -> String {
    let mut list: Vec<&Finding> = findings.iter().filter(|f| is_problem(f.status)).collect();
    if list.is_empty() {
        return "No check failed or warned: the doctor recognises no cause here. The sections \
                below describe this machine for whoever looks at the problem.\n\n"
            .to_string();
    }
    list.sort_by_key(|f| status_order(f.status));
    let mut b = Budget::new(BUDGET_PROBLEMS);
    for f in &list {
        let mut item = format!(
            "- **{}** {}: {}{}\n",
            f.status.as_str(),
            code_span(&f.id),
            md_text(&clip(&f.summary, LINE_CHARS)),
            subject_suffix(f)
        );
        if let Some(fix) = &f.fix {
            if !fix.text.trim().is_empty() {
                item.push_str(&format!(
                    "  - fix: {}\n",
                    md_text(&clip(&fix.text, LINE_CHARS * 2))
                ));
            }
            for cmd in &fix.commands {
                item.push_str(&format!("  - run: {}\n", code_span(&clip(cmd, LINE_CHARS))));
            }
            for (k, v) in &fix.env {
                item.push_str(&format!(
                    "  - set: {}\n",
                    code_span(&clip(&format!("{k}={v}"), LINE_CHARS))
                ));
            }
        }
        b.push(&item);
    }
    let mut out = b.finish("more problems (size limit); see All findings");
    out.push('\n');
    out
}

/// ` (subject)` when the summary does not already name it (as the human view does).
fn subject_suffix(f: &Finding) -> String {
    f.subject
        .as_deref()
        .filter(|s| !s.is_empty() && !f.summary.contains(*s))
        .map(|s| format!(" ({})", md_text(&clip(s, LINE_CHARS))))
        .unwrap_or_default()
}

fn plural(n: usize, word: &str) -> String {
    format!("{n} {word}{}", if n == 1 { "" } else { "s" })
}

/// A collapsible section.
pub(crate) fn details(summary: &str, body: &str) -> String {
    format!(
        "<details><summary>{}</summary>\n\n{}\n\n</details>\n\n",
        html_text(summary),
        body.trim_end()
    )
}

fn versions_table(rows: &[(String, String)]) -> String {
    if rows.is_empty() {
        return "Nothing was discovered (the checks that read versions did not run).\n".into();
    }
    let mut b = Budget::new(BUDGET_VERSIONS);
    b.push("| component | version / path |\n|---|---|\n");
    for (k, v) in rows {
        b.push(&format!(
            "| {} | {} |\n",
            md_text(&clip(k, LINE_CHARS)),
            md_text(&clip(v, LINE_CHARS))
        ));
    }
    b.finish("more rows (size limit)")
}

fn gpus_title(g: &Gpus) -> String {
    match g {
        Gpus::NotExamined => "GPUs (not examined)".into(),
        Gpus::Agents(a) => format!("GPUs ({})", a.len()),
    }
}

fn gpus_body(g: &Gpus) -> String {
    match g {
        Gpus::NotExamined => "No selected check looked at the GPUs (`--only`), so they were not \
                              examined.\n"
            .into(),
        Gpus::Agents(a) if a.is_empty() => "KFD shows no GPU.\n".into(),
        Gpus::Agents(a) => {
            // The product column only when some agent has a product: a doctor older than the
            // field, or ids the table lacks, leave the table as it was.
            let products = a.iter().any(|r| !r.product.is_empty());
            let mut b = Budget::new(BUDGET_GPUS);
            let heads = [
                "node", "ISA", "target", "name", "product", "device", "PCI", "CUs", "VRAM",
                "visible",
            ];
            let heads: Vec<&str> = heads
                .into_iter()
                .filter(|h| products || *h != "product")
                .collect();
            b.push(&format!(
                "| {} |\n|{}\n",
                heads.join(" | "),
                "---|".repeat(heads.len())
            ));
            for r in a {
                let mut cells: Vec<String> = [&r.node, &r.isa, &r.target, &r.name]
                    .iter()
                    .map(|c| md_text(&clip(c, 80)))
                    .collect();
                if products {
                    // As the `gpu.agents` line writes it: clipped like a line of prose, not
                    // a short cell, so the candidates stay whole.
                    cells.push(md_text(&clip(&r.product, LINE_CHARS)));
                }
                cells.extend(
                    [
                        &r.device_id,
                        &r.location,
                        &r.compute_units,
                        &r.vram,
                        &r.visible,
                    ]
                    .iter()
                    .map(|c| md_text(&clip(c, 80))),
                );
                b.push(&format!("| {} |\n", cells.join(" | ")));
            }
            b.finish("more GPUs (size limit)")
        }
    }
}

fn findings_table(findings: &[Finding]) -> String {
    if findings.is_empty() {
        return "No finding (no check selected).\n".into();
    }
    let mut b = Budget::new(BUDGET_TABLE);
    b.push("| status | id | summary |\n|---|---|---|\n");
    for f in findings {
        b.push(&format!(
            "| {} | {} | {}{} |\n",
            f.status.as_str(),
            code_span(&f.id),
            md_text(&clip(&f.summary, 200)),
            subject_suffix(f)
        ));
    }
    b.finish("more findings (size limit)")
}

/// The evidence of failing, erroring and warning findings: (how many findings, body).
fn evidence(findings: &[Finding]) -> (usize, String) {
    let mut list: Vec<&Finding> = findings
        .iter()
        .filter(|f| is_problem(f.status) && !f.evidence.is_empty())
        .collect();
    list.sort_by_key(|f| status_order(f.status));
    let mut b = Budget::new(BUDGET_EVIDENCE);
    for f in &list {
        let (text, cut) = clip_lines(&f.evidence, EVIDENCE_LINES, EVIDENCE_BYTES);
        let mut item = format!(
            "{} ({}): {}{}\n\n{}",
            code_span(&f.id),
            f.status.as_str(),
            md_text(&clip(&f.summary, LINE_CHARS)),
            subject_suffix(f),
            fenced("text", &text)
        );
        if cut > 0 {
            item.push_str(&format!(
                "({cut} more evidence lines left out; `rocm-doctor -v --only {}` shows all)\n",
                f.id
            ));
        }
        item.push('\n');
        b.push(&item);
    }
    (
        list.len(),
        b.finish("more findings' evidence (size limit); `rocm-doctor -v` shows all"),
    )
}

fn environment(env: &[(String, String)]) -> String {
    if env.is_empty() {
        return "No ROCm, HIP, HSA or GPU variable is set.\n".into();
    }
    let lines: Vec<String> = env
        .iter()
        .map(|(k, v)| format!("{k}={}", clip(v, ENV_VALUE_CHARS)))
        .collect();
    let (text, cut) = clip_lines(&lines, usize::MAX, BUDGET_ENV);
    let mut out = fenced("sh", &text);
    if cut > 0 {
        out.push_str(&format!("({cut} more variables left out: size limit)\n"));
    }
    out
}

/// HOOK (kernel log): the "Kernel log" section for amdgpu/KFD kernel lines (dmesg,
/// `journalctl -k`, kern.log), given already filtered (`bugreport::kernel_lines_of`); empty
/// input gives no section.
/// Long logs keep their first and last lines (the driver's initialisation and the latest
/// errors), with a marker between.
pub(crate) fn kernel_log_section(lines: &[String]) -> String {
    if lines.is_empty() {
        return String::new();
    }
    let mut kept: Vec<String> = Vec::new();
    if lines.len() > KERNEL_HEAD + KERNEL_TAIL {
        kept.extend(lines[..KERNEL_HEAD].iter().cloned());
        kept.push(format!(
            "[... {} lines left out ...]",
            lines.len() - KERNEL_HEAD - KERNEL_TAIL
        ));
        kept.extend(lines[lines.len() - KERNEL_TAIL..].iter().cloned());
    } else {
        kept.extend(lines.iter().cloned());
    }
    let kept: Vec<String> = kept.iter().map(|l| clip(l, LINE_CHARS)).collect();
    let (text, cut) = clip_lines(&kept, usize::MAX, BUDGET_KERNEL);
    let mut body = fenced("text", &text);
    if cut > 0 {
        body.push_str(&format!("({cut} more lines left out: size limit)\n"));
    }
    details(
        &format!("Kernel log ({})", plural(lines.len(), "line")),
        &body,
    )
}

/// A fenced code block whose fence is longer than any run of backticks in `content`, so the
/// content cannot close it (CommonMark 0.31, 4.5: the closing fence must be at least as long
/// as the opening one).
pub(crate) fn fenced(info: &str, content: &str) -> String {
    let n = longest_run(content, '`').max(2) + 1;
    let fence = "`".repeat(n);
    let body = content.trim_end_matches('\n');
    format!("{fence}{info}\n{body}\n{fence}\n")
}

/// An inline code span that survives backticks and `|` in its text (CommonMark 6.1: the
/// delimiter is a backtick run of a length not found inside; GFM tables: `\|` inside).
pub(crate) fn code_span(s: &str) -> String {
    let s = s.replace(['\n', '\r'], " ").replace('|', "\\|");
    let n = longest_run(&s, '`') + 1;
    let d = "`".repeat(n);
    if s.starts_with('`') || s.ends_with('`') {
        format!("{d} {s} {d}")
    } else {
        format!("{d}{s}{d}")
    }
}

fn longest_run(s: &str, ch: char) -> usize {
    let (mut best, mut cur) = (0, 0);
    for c in s.chars() {
        if c == ch {
            cur += 1;
            best = best.max(cur);
        } else {
            cur = 0;
        }
    }
    best
}

/// Text for prose and table cells: one line, with the characters that would start HTML, a
/// link, emphasis, strike-through, an entity or a new table cell escaped (`_` is left alone:
/// GFM does not emphasise inside words, and `HSA_OVERRIDE_GFX_VERSION` stays readable) (CommonMark 0.31, 2.4: any ASCII punctuation
/// may be backslash-escaped). Code spans the text already has (fixes say `apt install x`)
/// stay code spans: a backtick run closed by a run of the same length is kept as written
/// (only `|` escaped, which GFM tables need even inside code), an unclosed one is escaped.
pub(crate) fn md_text(s: &str) -> String {
    let s = s.replace(['\n', '\r', '\t'], " ");
    let mut out = String::with_capacity(s.len());
    let mut rest = s.as_str();
    while let Some(c) = rest.chars().next() {
        if c == '`' {
            let n = rest.len() - rest.trim_start_matches('`').len();
            if let Some(end) = closing_run(&rest[n..], n) {
                out.push_str(&rest[..n + end + n].replace('|', "\\|"));
                rest = &rest[n + end + n..];
            } else {
                for _ in 0..n {
                    out.push_str("\\`");
                }
                rest = &rest[n..];
            }
            continue;
        }
        if matches!(c, '\\' | '*' | '[' | ']' | '<' | '|' | '&' | '~') {
            out.push('\\');
        }
        out.push(c);
        rest = &rest[c.len_utf8()..];
    }
    out
}

/// Where a backtick run of exactly `n` starts in `s`.
fn closing_run(s: &str, n: usize) -> Option<usize> {
    let b = s.as_bytes();
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'`' {
            let mut j = i;
            while j < b.len() && b[j] == b'`' {
                j += 1;
            }
            if j - i == n {
                return Some(i);
            }
            i = j;
        } else {
            i += 1;
        }
    }
    None
}

/// Text inside an HTML element (`<summary>`).
fn html_text(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

/// At most `max` characters, with an ellipsis when cut.
fn clip(s: &str, max: usize) -> String {
    match s.char_indices().nth(max) {
        Some((i, _)) => format!("{}…", &s[..i]),
        None => s.to_string(),
    }
}

/// The lines joined, at most `max_lines` lines and about `max_bytes` bytes: (text, lines cut).
fn clip_lines(lines: &[String], max_lines: usize, max_bytes: usize) -> (String, usize) {
    let mut out = String::new();
    let mut kept = 0;
    for l in lines {
        if kept == max_lines || out.len() + l.len() + 1 > max_bytes {
            break;
        }
        out.push_str(l);
        out.push('\n');
        kept += 1;
    }
    (out, lines.len() - kept)
}

/// Appends whole items while they fit; counts those that did not.
struct Budget {
    out: String,
    left: usize,
    omitted: usize,
}

impl Budget {
    fn new(bytes: usize) -> Self {
        Budget {
            out: String::new(),
            left: bytes,
            omitted: 0,
        }
    }
    fn push(&mut self, item: &str) {
        if self.omitted == 0 && item.len() <= self.left {
            self.out.push_str(item);
            self.left -= item.len();
        } else {
            self.omitted += 1;
        }
    }
    fn finish(mut self, what: &str) -> String {
        if self.omitted > 0 {
            self.out.push_str(&format!("\n({} {what})\n", self.omitted));
        }
        self.out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::Fix;

    fn finding(id: &str, st: Status, summary: &str) -> Finding {
        let mut f = Finding::new(st, summary);
        f.id = id.into();
        f.category = id.split('.').next().unwrap().into();
        f
    }

    fn sample() -> Report {
        Report {
            findings: vec![
                finding("toolchain.lld", Status::Pass, "ld.lld /usr/bin/ld.lld"),
                finding("gpu.kfd", Status::Fail, "cannot open /dev/kfd: EACCES")
                    .evidence("stat /dev/kfd: root:render 0660")
                    .fix(Fix::text("add the user to render").command("usermod -aG render $USER")),
                finding("toolchain.env", Status::Warn, "ROCM_PATH | odd <value>")
                    .evidence("ROCM_PATH=/opt/rocm"),
            ],
            versions: vec![("kernel".into(), "6.8.0-45-generic".into())],
            gpus: Gpus::Agents(vec![GpuRow {
                node: "1".into(),
                isa: "gfx1030".into(),
                ..Default::default()
            }]),
            env: vec![("ROCM_PATH".into(), "/opt/rocm".into())],
            kernel_lines: vec![],
            tool_version: "0.1.0".into(),
            command_line: "rocm-doctor report".into(),
            redacted: true,
        }
    }

    #[test]
    fn sections_and_balanced_details() {
        let md = render(&sample());
        assert!(md.starts_with("## rocm-doctor report: 1 failed, 1 warning\n"));
        for s in [
            "Versions",
            "GPUs (1)",
            "All findings (3)",
            "Evidence (2 findings)",
            "Environment (1 variable)",
        ] {
            assert!(md.contains(&format!("<summary>{s}</summary>")), "{s}\n{md}");
        }
        assert_eq!(
            md.matches("<details>").count(),
            md.matches("</details>").count()
        );
        assert!(!md.contains("Kernel log"), "no kernel lines, no section");
        // Failures before warnings, with their fixes.
        let fail = md.find("- **fail** `gpu.kfd`").unwrap();
        let warn = md.find("- **warn** `toolchain.env`").unwrap();
        assert!(fail < warn);
        assert!(md.contains("  - run: `usermod -aG render $USER`"));
        // `|` and `<` in a cell are escaped.
        assert!(md.contains("ROCM_PATH \\| odd \\<value>"), "{md}");
        assert!(md.ends_with("rocm-doctor 0.1.0 · `rocm-doctor report`\n"));
    }

    #[test]
    fn kernel_log_hook_renders_only_given_lines() {
        assert_eq!(kernel_log_section(&[]), "");
        let lines: Vec<String> = (0..500).map(|i| format!("amdgpu: line {i}")).collect();
        let s = kernel_log_section(&lines);
        assert!(s.starts_with("<details><summary>Kernel log (500 lines)</summary>"));
        assert!(s.contains("amdgpu: line 0\n") && s.contains("amdgpu: line 499\n"));
        assert!(s.contains("[... 340 lines left out ...]"));
        let mut r = sample();
        r.kernel_lines = vec!["[    2.1] amdgpu 0000:03:00.0: ring gfx timeout".into()];
        assert!(render(&r).contains("<summary>Kernel log (1 line)</summary>"));
    }

    #[test]
    fn fences_outlast_backticks_in_content() {
        let content = "a\n```\nb ```` c\n";
        let f = fenced("text", content);
        assert!(f.starts_with("`````text\n"), "{f}");
        assert!(f.ends_with("\n`````\n"));
        assert_eq!(fenced("", "x"), "```\nx\n```\n");
        assert_eq!(code_span("a`b"), "``a`b``");
        assert_eq!(code_span("`x"), "`` `x ``");
        assert_eq!(code_span("a|b"), "`a\\|b`");
    }

    #[test]
    fn table_cells_cannot_break_the_table() {
        let t = md_text("a | b\nc <img src=x> *e* [l](u) &amp; __init__");
        assert!(!t.contains('\n'));
        assert!(!t.contains(" | "));
        assert_eq!(
            t,
            "a \\| b c \\<img src=x> \\*e\\* \\[l\\](u) \\&amp; __init__"
        );
        // Code spans stay, with `|` escaped; an unclosed backtick is escaped.
        assert_eq!(
            md_text("run `a | b <c>` then ``x`y`` and `odd"),
            "run `a \\| b <c>` then ``x`y`` and \\`odd"
        );
    }

    #[test]
    fn huge_inputs_stay_under_the_limit() {
        let long = "x".repeat(10_000);
        let mut r = sample();
        let line = "y".repeat(1_000);
        r.findings = (0..300)
            .map(|i| {
                finding(&format!("libs.f{i}"), Status::Fail, &long)
                    .evidence_lines((0..70).map(|j| format!("{j} {line}")))
                    .fix(Fix::text(long.clone()).command(long.clone()))
                    .subject(long.clone())
            })
            .collect();
        r.versions = (0..500).map(|i| (format!("v{i}"), long.clone())).collect();
        r.gpus = Gpus::Agents(
            (0..500)
                .map(|_| GpuRow {
                    name: long.clone(),
                    ..Default::default()
                })
                .collect(),
        );
        r.env = (0..500)
            .map(|i| (format!("HSA_{i}"), long.clone()))
            .collect();
        r.kernel_lines = (0..5_000).map(|_| long.clone()).collect();
        r.command_line = long.clone();
        let md = render(&r);
        assert!(md.len() <= MAX_BYTES, "{} bytes", md.len());
        assert_eq!(
            md.matches("<details>").count(),
            md.matches("</details>").count()
        );
        assert!(md.contains("size limit"));
        // Every fence opened is closed.
        assert_eq!(md.lines().filter(|l| l.starts_with("```")).count() % 2, 0);
    }

    #[test]
    fn nothing_wrong_says_so() {
        let mut r = sample();
        r.findings.retain(|f| f.status == Status::Pass);
        let md = render(&r);
        assert!(md.starts_with("## rocm-doctor report: no problem found\n"));
        assert!(md.contains("the doctor recognises no cause here"));
        assert!(!md.contains("<summary>Evidence"));
    }

    #[test]
    fn not_examined_gpus() {
        let mut r = sample();
        r.gpus = Gpus::NotExamined;
        assert!(render(&r).contains("<summary>GPUs (not examined)</summary>"));
        r.gpus = Gpus::Agents(vec![]);
        assert!(render(&r).contains("KFD shows no GPU."));
    }
}

//! `--prometheus`: the run as Prometheus text exposition format (version 0.0.4), for
//! node_exporter's textfile collector (`--collector.textfile.directory`, files named `*.prom`).
//!
//! Format rules followed (prometheus.io/docs/instrumenting/exposition_formats, "Text format
//! details"): lines end with `\n`, the last one too; `# HELP name text` with `\` and line feed
//! escaped as `\\` and `\n`; `# TYPE name gauge` once per name, before its first sample; a
//! sample is `name{label="value",...} value`, label values escaping `\`, `"` and line feed as
//! `\\`, `\"` and `\n`; metric names match `[a-zA-Z_:][a-zA-Z0-9_:]*`, label names
//! `[a-zA-Z_][a-zA-Z0-9_]*`. No timestamps: the textfile collector does not accept them
//! (prometheus/node_exporter README, "Textfile Collector"); node_exporter adds
//! `node_textfile_mtime_seconds` per file, which tells when the doctor last wrote it.
//!
//! Check verdicts are one-hot (the usual Prometheus encoding of a state, as node_exporter's
//! systemd collector does for unit states): for every check id, one series per status, value
//! 1 for the check's worst status in this run and 0 for the others, so
//! `rocm_doctor_check_status{status="fail"} == 1` selects the failing checks and a series
//! never disappears when the verdict changes.

use super::{Action, Finding, Status};
use std::collections::BTreeMap;
use std::fmt::Write;

/// Every status, in the order of [`Status`].
pub const STATUSES: [Status; 5] = [
    Status::Pass,
    Status::Skip,
    Status::Warn,
    Status::Fail,
    Status::Error,
];

/// What the exposition is made of, beside the findings.
pub struct Run<'a> {
    pub findings: &'a [Finding],
    pub duration_s: f64,
    /// GPU agents in KFD; `None` when the GPU checks did not run (the metric is left out).
    pub gpus: Option<u64>,
    pub version: &'a str,
    pub rocm_version: Option<&'a str>,
    pub hip_version: Option<&'a str>,
    /// With `--baseline`: the number of drifts, or `None` when the baseline was unusable
    /// (the metric is left out; `fleet.baseline` is `error`).
    pub baseline_drifts: Option<usize>,
    pub exit_code: i32,
}

/// A label value, escaped (the exposition format escapes `\\`, `"` and line feed). Other
/// control characters are written as the human view shows them (`\x1b`, its backslash
/// escaped): the text stays valid for the scraper and harmless on a terminal.
pub fn escape_label(v: &str) -> String {
    let mut out = String::with_capacity(v.len());
    for c in v.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '"' => out.push_str("\\\""),
            '\n' => out.push_str("\\n"),
            c if super::escape::is_unsafe(c) => out.push_str(&escape_label(
                &super::escape::visible(c.encode_utf8(&mut [0; 4])),
            )),
            c => out.push(c),
        }
    }
    out
}

/// HELP text, escaped (`\` and line feed only).
fn escape_help(v: &str) -> String {
    v.replace('\\', "\\\\").replace('\n', "\\n")
}

struct Out(String);

impl Out {
    fn family(&mut self, name: &str, help: &str) {
        let _ = writeln!(self.0, "# HELP {name} {}", escape_help(help));
        let _ = writeln!(self.0, "# TYPE {name} gauge");
    }
    fn sample(&mut self, name: &str, labels: &[(&str, &str)], value: f64) {
        self.0.push_str(name);
        if !labels.is_empty() {
            self.0.push('{');
            for (i, (k, v)) in labels.iter().enumerate() {
                if i > 0 {
                    self.0.push(',');
                }
                let _ = write!(self.0, "{k}=\"{}\"", escape_label(v));
            }
            self.0.push('}');
        }
        // Rust prints finite f64 as decimal text Go's ParseFloat reads (`1`, `0.25`).
        let _ = writeln!(self.0, " {value}");
    }
}

/// The whole exposition text.
pub fn render(r: &Run<'_>) -> String {
    let mut o = Out(String::new());
    o.family(
        "rocm_doctor_info",
        "rocm-doctor version and the ROCm and HIP runtime versions it found (empty: not found); always 1.",
    );
    o.sample(
        "rocm_doctor_info",
        &[
            ("version", r.version),
            ("rocm_version", r.rocm_version.unwrap_or("")),
            ("hip_version", r.hip_version.unwrap_or("")),
        ],
        1.0,
    );
    // Worst status per check id, in id order; category from its findings.
    let mut checks: BTreeMap<&str, (&str, Status)> = BTreeMap::new();
    for f in r.findings {
        let e = checks
            .entry(f.id.as_str())
            .or_insert((f.category.as_str(), f.status));
        e.1 = e.1.max(f.status);
    }
    o.family(
        "rocm_doctor_check_status",
        "Verdict of each check in the last run, one-hot: 1 for the check's worst status (pass < skip < warn < fail < error), 0 for the other statuses.",
    );
    for (id, (category, worst)) in &checks {
        for st in STATUSES {
            o.sample(
                "rocm_doctor_check_status",
                &[("id", id), ("category", category), ("status", st.as_str())],
                if st == *worst { 1.0 } else { 0.0 },
            );
        }
    }
    // The repair action each check asks for (its heaviest over its warn and fail findings),
    // and the node's: the heaviest of all, one-hot so that alert rules match one label.
    let mut actions: BTreeMap<&str, Action> = BTreeMap::new();
    for f in r
        .findings
        .iter()
        .filter(|f| matches!(f.status, Status::Warn | Status::Fail))
    {
        if let Some(a) = f.action {
            let e = actions.entry(f.id.as_str()).or_insert(a);
            *e = (*e).max(a);
        }
    }
    if !actions.is_empty() {
        o.family(
            "rocm_doctor_check_action",
            "Repair action each warning or failing check asks for (its heaviest: none < fix-config < restart-process < reset-gpu < reboot-node < drain-and-inspect); always 1.",
        );
    }
    for (id, a) in &actions {
        o.sample(
            "rocm_doctor_check_action",
            &[("id", id), ("action", a.as_str())],
            1.0,
        );
    }
    let node = super::action::of_node(r.findings);
    o.family(
        "rocm_doctor_node_action",
        "Repair action the node needs, one-hot: 1 for the heaviest action of the run's warnings and failures (none when there is nothing to do), 0 for the others.",
    );
    for a in Action::ALL {
        o.sample(
            "rocm_doctor_node_action",
            &[("action", a.as_str())],
            if *a == node { 1.0 } else { 0.0 },
        );
    }
    let counts = super::Counts::of(r.findings);
    o.family(
        "rocm_doctor_findings",
        "Findings of the last run by status.",
    );
    for (st, n) in [
        (Status::Pass, counts.pass),
        (Status::Skip, counts.skip),
        (Status::Warn, counts.warn),
        (Status::Fail, counts.fail),
        (Status::Error, counts.error),
    ] {
        o.sample("rocm_doctor_findings", &[("status", st.as_str())], n as f64);
    }
    o.family(
        "rocm_doctor_run_duration_seconds",
        "Wall time of the last run, in seconds.",
    );
    o.sample("rocm_doctor_run_duration_seconds", &[], r.duration_s);
    o.family(
        "rocm_doctor_exit_code",
        "Exit code of the last run: 0 no failure, 1 a check failed or could not decide (or a warning with --strict).",
    );
    o.sample("rocm_doctor_exit_code", &[], f64::from(r.exit_code));
    if let Some(n) = r.gpus {
        o.family("rocm_doctor_gpus", "GPU agents in KFD.");
        o.sample("rocm_doctor_gpus", &[], n as f64);
    }
    if let Some(n) = r.baseline_drifts {
        o.family(
            "rocm_doctor_baseline_drifts",
            "Facts that differ from the --baseline report (fleet.baseline warn findings).",
        );
        o.sample("rocm_doctor_baseline_drifts", &[], n as f64);
    }
    o.0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escaping() {
        assert_eq!(escape_label("a\\b\"c\nd"), "a\\\\b\\\"c\\nd");
        // Control characters: shown as `\x1b`, the backslash escaped; nothing raw is left.
        assert_eq!(
            escape_label("a\x1b]52\x07\u{9b}"),
            "a\\\\x1b]52\\\\x07\\\\u{9b}"
        );
        assert_eq!(escape_help("x\\y\nz \"q\""), "x\\\\y\\nz \"q\"");
    }

    #[test]
    fn one_hot_worst_status() {
        let mut a = Finding::pass("ok");
        a.id = "gpu.render".into();
        a.category = "gpu".into();
        let mut b = Finding::warn("meh");
        b.id = "gpu.render".into();
        b.category = "gpu".into();
        let text = render(&Run {
            findings: &[a, b],
            duration_s: 0.5,
            gpus: None,
            version: "0.1.0",
            rocm_version: Some("6.2\"x"),
            hip_version: None,
            baseline_drifts: Some(0),
            exit_code: 0,
        });
        assert!(text.contains(
            "rocm_doctor_check_status{id=\"gpu.render\",category=\"gpu\",status=\"warn\"} 1\n"
        ));
        assert!(text.contains(
            "rocm_doctor_check_status{id=\"gpu.render\",category=\"gpu\",status=\"pass\"} 0\n"
        ));
        assert!(text.contains("rocm_version=\"6.2\\\"x\""));
        assert!(text.contains("rocm_doctor_run_duration_seconds 0.5\n"));
        assert!(!text.contains("rocm_doctor_gpus"));
        assert!(text.contains("rocm_doctor_baseline_drifts 0\n"));
        assert!(text.ends_with('\n'));
    }

    #[test]
    fn actions_per_check_and_one_hot_for_the_node() {
        let mk = |id: &str, st: Status, a: Option<Action>| {
            let mut f = Finding::new(st, "x");
            f.id = id.into();
            f.category = "health".into();
            f.action = a;
            f
        };
        let findings = [
            mk("health.ras", Status::Warn, Some(Action::None)),
            mk("health.ras", Status::Fail, Some(Action::DrainAndInspect)),
            mk("kernel.hangs", Status::Warn, Some(Action::RestartProcess)),
            // A pass carries no action even if one was set by mistake.
            mk("gpu.kfd", Status::Pass, Some(Action::RebootNode)),
        ];
        let text = render(&Run {
            findings: &findings,
            duration_s: 0.1,
            gpus: Some(1),
            version: "0.1.0",
            rocm_version: None,
            hip_version: None,
            baseline_drifts: None,
            exit_code: 1,
        });
        assert!(text.contains(
            "rocm_doctor_check_action{id=\"health.ras\",action=\"drain-and-inspect\"} 1\n"
        ));
        assert!(text.contains(
            "rocm_doctor_check_action{id=\"kernel.hangs\",action=\"restart-process\"} 1\n"
        ));
        assert!(!text.contains("rocm_doctor_check_action{id=\"gpu.kfd\""));
        assert!(text.contains("rocm_doctor_node_action{action=\"drain-and-inspect\"} 1\n"));
        assert!(text.contains("rocm_doctor_node_action{action=\"reboot-node\"} 0\n"));
        let hot = text
            .lines()
            .filter(|l| l.starts_with("rocm_doctor_node_action{") && l.ends_with(" 1"))
            .count();
        assert_eq!(hot, 1);
    }
}

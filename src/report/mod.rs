//! The result model: findings, the report that collects them, and its renderers.

pub(crate) mod action;
pub(crate) mod asm_caps;
pub(crate) mod escape;
pub mod fingerprint;
pub(crate) mod human;
pub mod json;
pub(crate) mod npd;
pub(crate) mod progress;
pub(crate) mod prometheus;
pub(crate) mod telemetry;

pub use action::Action;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// The verdict of one finding. Order matters: later is worse for the summary line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    /// Checked and fine.
    Pass,
    /// Does not apply here (no GPU in the build profile, nothing to compile...).
    Skip,
    /// Works, but something is off and may bite later.
    Warn,
    /// Broken: the fix says what to change.
    Fail,
    /// The doctor itself could not decide (a check crashed, a tool hung).
    Error,
}

impl Status {
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Status::Pass => "pass",
            Status::Skip => "skip",
            Status::Warn => "warn",
            Status::Fail => "fail",
            Status::Error => "error",
        }
    }
}

/// What to do about a finding: prose plus, where possible, commands to run or variables to set.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub(crate) struct Fix {
    pub text: String,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub commands: Vec<String>,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub env: BTreeMap<String, String>,
}

impl Fix {
    pub(crate) fn text(t: impl Into<String>) -> Self {
        Fix {
            text: t.into(),
            ..Default::default()
        }
    }
    pub(crate) fn command(mut self, c: impl Into<String>) -> Self {
        self.commands.push(c.into());
        self
    }
    pub(crate) fn set_env(mut self, k: impl Into<String>, v: impl Into<String>) -> Self {
        self.env.insert(k.into(), v.into());
        self
    }
}

/// One verdict of one check, about one subject.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct Finding {
    /// Stable check id (`toolchain.lld`).
    pub id: String,
    pub category: String,
    /// What the finding is about when a check judges several things (an ISA, a library).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub subject: Option<String>,
    pub status: Status,
    /// The event inside the check when it judges several kinds (`uncorrectable`,
    /// `ring-timeout`): stable kebab-case words, matched by the site policy's rules.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub event: Option<String>,
    /// What to do about it (warn and fail findings; docs/json.md). The check may set it per
    /// event; the engine fills the check doc's default otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub action: Option<Action>,
    pub summary: String,
    /// Facts behind the verdict: paths, versions, the exact command run and the lines of its
    /// output that matter, errno names.
    pub evidence: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fix: Option<Fix>,
    pub duration_ms: u64,
}

impl Finding {
    pub(crate) fn new(status: Status, summary: impl Into<String>) -> Self {
        Finding {
            id: String::new(),
            category: String::new(),
            subject: None,
            status,
            event: None,
            action: None,
            summary: summary.into(),
            evidence: Vec::new(),
            fix: None,
            duration_ms: 0,
        }
    }
    pub(crate) fn pass(s: impl Into<String>) -> Self {
        Self::new(Status::Pass, s)
    }
    pub(crate) fn warn(s: impl Into<String>) -> Self {
        Self::new(Status::Warn, s)
    }
    pub(crate) fn fail(s: impl Into<String>) -> Self {
        Self::new(Status::Fail, s)
    }
    pub(crate) fn skip(s: impl Into<String>) -> Self {
        Self::new(Status::Skip, s)
    }
    pub(crate) fn error(s: impl Into<String>) -> Self {
        Self::new(Status::Error, s)
    }
    pub(crate) fn subject(mut self, s: impl Into<String>) -> Self {
        self.subject = Some(s.into());
        self
    }
    pub(crate) fn evidence(mut self, e: impl Into<String>) -> Self {
        self.evidence.push(e.into());
        self
    }
    pub(crate) fn evidence_lines<I: IntoIterator<Item = S>, S: Into<String>>(
        mut self,
        it: I,
    ) -> Self {
        self.evidence.extend(it.into_iter().map(Into::into));
        self
    }
    pub(crate) fn fix(mut self, f: Fix) -> Self {
        self.fix = Some(f);
        self
    }
    pub(crate) fn fix_text(self, t: impl Into<String>) -> Self {
        self.fix(Fix::text(t))
    }
    /// The repair action of this event (overrides the check doc's default).
    pub(crate) fn action(mut self, a: Action) -> Self {
        self.action = Some(a);
        self
    }
    /// The event inside the check (stable kebab-case words).
    pub(crate) fn event(mut self, e: impl Into<String>) -> Self {
        self.event = Some(e.into());
        self
    }
}

#[derive(Debug, Clone, Copy, Default, Serialize, PartialEq, Eq)]
pub(crate) struct Counts {
    pub pass: usize,
    pub warn: usize,
    pub fail: usize,
    pub skip: usize,
    pub error: usize,
}

impl Counts {
    pub(crate) fn of(findings: &[Finding]) -> Self {
        let mut c = Counts::default();
        for f in findings {
            c.add(f.status);
        }
        c
    }
    pub(crate) fn add(&mut self, s: Status) {
        match s {
            Status::Pass => self.pass += 1,
            Status::Warn => self.warn += 1,
            Status::Fail => self.fail += 1,
            Status::Skip => self.skip += 1,
            Status::Error => self.error += 1,
        }
    }
    /// The exit code these counts give (see [`exit_code`]).
    pub(crate) fn exit_code(&self, strict: bool) -> i32 {
        if self.fail > 0 || self.error > 0 || (strict && self.warn > 0) {
            exit::FAILED
        } else {
            exit::OK
        }
    }
}

/// Exit codes, documented in README.md and `--help`.
pub(crate) mod exit {
    /// No failure (warnings allowed unless `--strict`).
    pub(crate) const OK: i32 = 0;
    /// At least one failure or error finding (with `--strict`: or a warning).
    pub(crate) const FAILED: i32 = 1;
    /// Usage error, or the doctor itself could not run.
    pub(crate) const USAGE_OR_INTERNAL: i32 = 2;
}

/// The exit code for a set of findings.
pub(crate) fn exit_code(findings: &[Finding], strict: bool) -> i32 {
    Counts::of(findings).exit_code(strict)
}

/// What to print on stdout: one JSON document, or the human text.
pub(crate) enum Output<'a, T: serde::Serialize> {
    Json(&'a T),
    Text(&'a str),
}

/// Writes the report on stdout and returns the exit code to use: `code`, also when the reader
/// went away (`| head` is not the doctor failing), or 2 when stdout cannot be written.
pub(crate) fn write_stdout<T: serde::Serialize>(out: Output<'_, T>, code: i32) -> i32 {
    use std::io::Write;
    let stdout = std::io::stdout();
    let mut w = std::io::BufWriter::new(stdout.lock());
    let written = match out {
        // An I/O error keeps its kind (a closed pipe is told apart from a full disk).
        Output::Json(doc) => serde_json::to_writer_pretty(&mut w, doc)
            .map_err(|e| match e.io_error_kind() {
                Some(kind) => std::io::Error::from(kind),
                None => std::io::Error::other(e),
            })
            .and_then(|_| writeln!(w)),
        // Renderers escape the untrusted text they print (`escape::visible`); this is the
        // last guard, keeping only the doctor's own colours.
        Output::Text(t) => w.write_all(escape::visible_keep_colour(t).as_bytes()),
    }
    .and_then(|_| w.flush());
    match written {
        Ok(()) => code,
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => code,
        Err(e) => {
            eprintln!("rocm-doctor: cannot write the report: {e}");
            exit::USAGE_OR_INTERNAL
        }
    }
}

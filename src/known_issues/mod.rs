//! Known issues as data (`checks/known-issues.toml`), evaluated against installed versions,
//! the environment and what an inspected file carries (`crate::binfacts`). They sit just below
//! the checks: `inspect`, `log`, `libs.code-objects` and the default run (as pack checks,
//! through the registry) read them; they read the binary facts and the pack engine's core.

pub(crate) mod pack;

pub(crate) use crate::binfacts::flags::{file_flags, Flag};
use crate::data::{self, DataError};
use crate::report::{Finding, Fix};
use serde::Deserialize;
use std::collections::{BTreeMap, BTreeSet};
use std::sync::OnceLock;
use toml::Spanned;

/// A known issue, validated at load (`Condition`s typed, `versions` a valid range).
#[derive(Debug, Clone)]
pub(crate) struct Issue {
    pub id: String,
    pub title: String,
    pub component: String,
    pub versions: String,
    /// The conditions as written (shown as evidence).
    pub when: Vec<String>,
    pub conditions: Vec<Condition>,
    pub status: Severity,
    pub symptom: String,
    pub fix: String,
    pub unset_env: Vec<String>,
    pub sources: Vec<String>,
    /// The issue as a check-pack check (`known-issues.<id>`): the one evaluator of its
    /// conditions and version range, for `inspect`, `why --binary` and the default run.
    pub check: std::sync::Arc<crate::packs::Check>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum Severity {
    Warn,
    Fail,
}

/// One `when` entry, parsed at load: a misspelt condition fails the load with its place.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Condition {
    /// A `file.*` / `dir.*` flag that must be set.
    Flag(Flag),
    /// `env.NAME=v1|v2`: the variable is set to one of the values (case-insensitive).
    Env { name: String, values: Vec<String> },
    /// `symbols.undefined=PREFIX`.
    Undefined(String),
}

impl Condition {
    pub(crate) fn parse(s: &str) -> Result<Self, String> {
        if let Some(rest) = s.strip_prefix("env.") {
            let (name, values) = rest.split_once('=').unwrap_or((rest, ""));
            if name.is_empty() || values.is_empty() {
                return Err(format!("condition '{s}' must be env.NAME=value1|value2"));
            }
            return Ok(Condition::Env {
                name: name.to_string(),
                values: values.split('|').map(str::to_string).collect(),
            });
        }
        if let Some(prefix) = s.strip_prefix("symbols.undefined=") {
            return Ok(Condition::Undefined(prefix.to_string()));
        }
        match Flag::parse(s) {
            Some(f) => Ok(Condition::Flag(f)),
            None => {
                let mut cands: Vec<&str> = Flag::ALL.iter().map(|f| f.as_str()).collect();
                cands.extend(["env.NAME=VALUE", "symbols.undefined=PREFIX"]);
                let hint = data::hint(s, &cands);
                Err(format!(
                    "unknown condition '{s}', expected one of {}{hint}",
                    cands.join(", ")
                ))
            }
        }
    }
}

/// What `rocm-doctor log` says about a failure signal it reads in a log (`[[log]]` entries).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct LogSignal {
    /// A HIP result name (`hipErrorNoBinaryForGpu`) or `no-code-object`.
    pub signal: String,
    pub diagnosis: String,
    pub fix: String,
    /// Ids of `[[issue]]` entries whose symptom this signal matches.
    pub issues: Vec<String>,
    #[allow(dead_code)] // a key of the table (deny_unknown_fields): where the signal comes from
    pub sources: Vec<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawIssue {
    id: Spanned<String>,
    title: String,
    component: String,
    versions: Spanned<String>,
    when: Vec<Spanned<String>>,
    status: Severity,
    symptom: String,
    fix: String,
    #[serde(default)]
    unset_env: Vec<String>,
    sources: Vec<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Table {
    issue: Vec<RawIssue>,
    #[serde(default)]
    log: Vec<Spanned<LogSignal>>,
}

/// The table's name in errors, and its text (compiled in).
pub(crate) const FILE: &str = "checks/known-issues.toml";
pub(crate) const TEXT: &str = include_str!("../../checks/known-issues.toml");

/// Loads and validates the table with the one loader (`crate::data`): `file:line:column`
/// errors, did-you-mean for unknown keys, misspelt values and conditions.
pub(crate) fn load(file: &str, text: &str) -> Result<(Vec<Issue>, Vec<LogSignal>), Vec<DataError>> {
    let at = |span: std::ops::Range<usize>, msg: String| DataError::at(file, text, span, msg);
    let t: Table = data::load(file, text).map_err(|e| vec![e])?;
    let mut errors = Vec::new();
    let mut issues = Vec::new();
    for r in t.issue {
        let mut conditions = Vec::new();
        for w in &r.when {
            match Condition::parse(w.get_ref()) {
                Ok(c) => conditions.push(c),
                Err(e) => errors.push(at(w.span(), e)),
            }
        }
        if in_range("1.0", r.versions.get_ref()).is_none() {
            errors.push(at(
                r.versions.span(),
                format!(
                    "version range '{}' is not like '>=6.1, <7.0'",
                    r.versions.get_ref()
                ),
            ));
        }
        if r.sources.is_empty() {
            errors.push(at(
                r.id.span(),
                format!("issue {} cites no source", r.id.get_ref()),
            ));
        }
        let id_span = r.id.span();
        let mut issue = Issue {
            id: r.id.into_inner(),
            title: r.title,
            component: r.component,
            versions: r.versions.into_inner(),
            when: r.when.into_iter().map(Spanned::into_inner).collect(),
            conditions,
            status: r.status,
            symptom: r.symptom,
            fix: r.fix,
            unset_env: r.unset_env,
            sources: r.sources,
            check: Default::default(),
        };
        match pack::to_check(&issue) {
            Ok(c) => issue.check = std::sync::Arc::new(c),
            Err(e) => errors.push(at(id_span, format!("issue {}: {e}", issue.id))),
        }
        issues.push(issue);
    }
    let mut logs = Vec::new();
    for l in t.log {
        let span = l.span();
        let l = l.into_inner();
        for id in &l.issues {
            if !issues.iter().any(|i| i.id == *id) {
                errors.push(at(
                    span.clone(),
                    format!("log signal {} names unknown issue '{id}'", l.signal),
                ));
            }
        }
        logs.push(l);
    }
    if errors.is_empty() {
        Ok((issues, logs))
    } else {
        Err(errors)
    }
}

/// The loaded table: its issues and log signals, or every error that kept it from loading.
pub(crate) type Catalogue = Result<(Vec<Issue>, Vec<LogSignal>), Vec<DataError>>;

/// The compiled-in table, loaded once. A broken table is an error that its users report (an
/// `error` finding in `inspect` and `libs.code-objects`, a `packs.load` finding in the default
/// run), never an empty table that would pass every file.
pub(crate) fn catalogue() -> &'static Catalogue {
    static T: OnceLock<Catalogue> = OnceLock::new();
    T.get_or_init(|| load(FILE, TEXT))
}

/// The log view's knowledge of a signal, if any.
pub(crate) fn log_signal(signal: &str) -> Option<&'static LogSignal> {
    catalogue()
        .as_ref()
        .ok()?
        .1
        .iter()
        .find(|l| l.signal == signal)
}

/// An issue by id.
pub(crate) fn issue(id: &str) -> Option<&'static Issue> {
    issues().iter().find(|i| i.id == id)
}

/// The issues (none when the table is broken: callers that judge use [`catalogue`] and
/// report its errors).
pub(crate) fn issues() -> &'static [Issue] {
    catalogue().as_ref().map_or(&[], |t| &t.0)
}

/// The table's errors as one message.
pub(crate) fn error_text(errors: &[DataError]) -> String {
    let lines: Vec<String> = errors.iter().map(|e| e.to_string()).collect();
    format!("the known-issues table is broken: {}", lines.join("; "))
}

/// Everything an issue's conditions can ask about.
pub(crate) struct Facts<'a> {
    /// Installed component versions (`amdhip64` -> `5.2.21153`).
    pub versions: &'a BTreeMap<String, String>,
    /// The environment the binary would run with.
    pub env: &'a dyn Fn(&str) -> Option<String>,
    /// `file.*` / `dir.*` flags that hold.
    pub flags: &'a BTreeSet<Flag>,
    /// Undefined symbols no needed library defines (`--symbols`).
    pub undefined: &'a [String],
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Outcome {
    Applies {
        version: Option<String>,
    },
    DoesNotApply,
    /// Every other condition holds but the component's version is unknown.
    Unknown {
        why: String,
    },
}

/// The pack id prefix of known issues run as checks.
pub(crate) const PACK: &str = "known-issues";

/// Libraries whose device code the default run reads for known issues (as `libs.code-objects`).
pub(crate) const KEY_LIBS: &[&str] = &["rocblas", "hipblaslt", "MIOpen", "amdhip64"];

/// The item a file flag becomes in a `code-objects` probe's value.
const SUBJECT: &str = "the inspected file";

/// Whether the default run can judge the issue on the machine: every condition is a file flag
/// its `code-objects` probe reads or an environment variable (`dir.*` needs the Tensile
/// directory `libs.code-objects` locates, `symbols.*` needs `inspect --symbols`).
pub(crate) fn runs_on_machine(issue: &Issue) -> bool {
    issue.conditions.iter().all(|c| match c {
        Condition::Flag(f) => f.of_file(),
        Condition::Env { .. } => true,
        Condition::Undefined(_) => false,
    })
}

/// Evaluates an issue for one subject, through its pack check with the probes bound to the
/// subject's facts: the conditions first, then the version range (an unknown version is
/// `Unknown` only when every other condition holds).
pub(crate) fn evaluate(issue: &Issue, facts: &Facts) -> Outcome {
    use crate::packs::eval::{self, NotApplied, RawValue, Situation};
    use crate::packs::ProbeSpec;
    let check = &issue.check;
    let raws: Vec<RawValue> = check
        .probes
        .iter()
        .map(|p| match &p.spec {
            ProbeSpec::CodeObjects(_) => RawValue {
                found: true,
                ..RawValue::list(
                    facts
                        .flags
                        .iter()
                        .map(|f| format!("{SUBJECT}: {f}"))
                        .collect(),
                )
            },
            ProbeSpec::Env(var) => match (facts.env)(var) {
                Some(v) => RawValue::found(v),
                None => RawValue::missing(format!("{var} is not set")),
            },
            ProbeSpec::UndefinedSymbols => RawValue {
                found: true,
                ..RawValue::list(facts.undefined.to_vec())
            },
            _ => RawValue::missing("not bound for a subject"),
        })
        .collect();
    let outs = eval::finalize(&check.probes, &raws);
    if !check.rules.first().is_some_and(|r| eval::holds(r, &outs)) {
        return Outcome::DoesNotApply;
    }
    let version = facts.versions.get(&issue.component).cloned();
    let version_of = |c: &str| facts.versions.get(c).cloned();
    let situation = Situation {
        profile: crate::packs::model::Profile::Auto,
        gpu_present: false,
        isas: &[],
        version_of: &version_of,
    };
    match eval::applies(&check.when, &situation) {
        Ok(()) => Outcome::Applies { version },
        Err(NotApplied::VersionUnknown(c)) => Outcome::Unknown {
            why: format!("the installed {c} version is unknown"),
        },
        Err(NotApplied::Uncomparable(_, v, r)) => Outcome::Unknown {
            why: format!("cannot compare version '{v}' with '{r}'"),
        },
        Err(_) => Outcome::DoesNotApply,
    }
}

/// Whether `version` is in `range` (`src/version.rs`).
pub(crate) use crate::version::in_range;

/// Findings of the issues `keep` selects that apply (or cannot be ruled out) for a subject.
pub(crate) fn findings_where(
    subject: &str,
    facts: &Facts,
    keep: &dyn Fn(&Issue) -> bool,
) -> Vec<Finding> {
    findings_in(catalogue(), subject, facts, keep)
}

/// [`findings_where`] over a given table: a broken one is one `error` finding for the subject.
pub(crate) fn findings_in(
    table: &Catalogue,
    subject: &str,
    facts: &Facts,
    keep: &dyn Fn(&Issue) -> bool,
) -> Vec<Finding> {
    let issues = match table {
        Ok((issues, _)) => issues,
        Err(errors) => {
            return vec![Finding::error(error_text(errors))
                .subject(subject.to_string())
                .fix_text("this build of rocm-doctor is broken: report it with this message")]
        }
    };
    let mut out = Vec::new();
    for issue in issues.iter().filter(|i| keep(i)) {
        let f = match evaluate(issue, facts) {
            Outcome::DoesNotApply => continue,
            Outcome::Applies { version } => {
                let summary = format!("known issue {}: {}", issue.id, issue.title);
                let base = if issue.status == Severity::Warn {
                    Finding::warn(summary)
                } else {
                    Finding::fail(summary)
                };
                let mut fix = Fix::text(issue.fix.clone());
                for v in &issue.unset_env {
                    fix = fix.command(format!("unset {v}"));
                }
                let mut f = base
                    .fix(fix)
                    .evidence(issue.symptom.clone())
                    .evidence(format!("conditions: {}", issue.when.join(" and ")));
                if let Some(v) = version {
                    f = f.evidence(format!(
                        "installed {} {v} is in the affected range {}",
                        issue.component, issue.versions
                    ));
                }
                f
            }
            Outcome::Unknown { why } => Finding::warn(format!(
                "known issue {} may apply ({}): {why}",
                issue.id, issue.title
            ))
            .fix_text(format!(
                "check the installed {} version; affected: {}. {}",
                issue.component, issue.versions, issue.fix
            ))
            .evidence(issue.symptom.clone()),
        };
        out.push(
            f.subject(subject.to_string())
                .evidence_lines(issue.sources.iter().map(|s| format!("source: {s}"))),
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_catalogue_loads_without_errors() {
        let (issues, logs) = load(FILE, TEXT).unwrap_or_else(|e| panic!("{e:#?}"));
        assert!(issues.len() >= 5 && !logs.is_empty());
        assert!(issues.iter().all(|i| i.conditions.len() == i.when.len()));
    }

    #[test]
    fn misspelt_conditions_statuses_and_issue_ids_fail_the_load_with_their_place() {
        let text = TEXT;
        let bad = text.replacen(
            "\"file.uncompressed-bundle\"",
            "\"file.uncompresed-bundle\"",
            1,
        );
        let line = bad.lines().position(|l| l.contains("uncompresed")).unwrap() + 1;
        let errs = load("k.toml", &bad).unwrap_err();
        let e = errs[0].to_string();
        assert!(
            e.starts_with(&format!("k.toml:{line}:"))
                && e.contains("did you mean `file.uncompressed-bundle`?"),
            "{errs:?}"
        );
        let bad = text.replacen("status = \"fail\"", "status = \"fial\"", 1);
        let errs = load("k.toml", &bad).unwrap_err();
        let e = &errs[0].message;
        assert!(
            e.contains("unknown variant `fial`") && e.contains("did you mean `fail`?"),
            "{errs:?}"
        );
        let first_log_issue = logs_issue_line(text);
        let bad = text.replacen(
            &first_log_issue,
            &first_log_issue.replacen('"', "\"no-such-", 1),
            1,
        );
        let errs = load("k.toml", &bad).unwrap_err();
        assert!(
            errs[0].message.contains("names unknown issue 'no-such-") && errs[0].at.is_some(),
            "{errs:?}"
        );
    }

    #[test]
    fn an_issue_without_sources_is_located_at_its_id() {
        let text = "[[issue]]\nid = \"x\"\ntitle = \"t\"\ncomponent = \"amdhip64\"\n\
                    versions = \"<6.2\"\nwhen = [\"file.ccob\"]\nstatus = \"warn\"\n\
                    symptom = \"s\"\nfix = \"f\"\nsources = []\n";
        let errs = load("k.toml", text).unwrap_err();
        assert_eq!(errs.len(), 1, "{errs:?}");
        assert_eq!(errs[0].to_string(), "k.toml:2:6: issue x cites no source");
    }

    #[test]
    fn a_broken_table_is_an_error_finding_not_an_empty_table() {
        let bad = TEXT.replacen("status = \"fail\"", "status = \"fial\"", 1);
        let broken = load("k.toml", &bad);
        assert!(broken.is_err());
        let flags: BTreeSet<Flag> = [Flag::UncompressedBundle].into();
        let v = BTreeMap::new();
        let facts = Facts {
            versions: &v,
            env: &|_| None,
            flags: &flags,
            undefined: &[],
        };
        let f = findings_in(&broken, "/lib/x.so", &facts, &|_| true);
        assert_eq!(f.len(), 1, "{f:?}");
        assert_eq!(f[0].status, crate::report::Status::Error);
        assert!(
            f[0].summary
                .starts_with("the known-issues table is broken: k.toml:")
                && f[0].summary.contains("fial"),
            "{f:?}"
        );
        // The compiled-in table loads (else every user would see that error).
        assert!(catalogue().is_ok());
    }

    /// The first `issues = [...]` line of a `[[log]]` entry.
    fn logs_issue_line(text: &str) -> String {
        let at = text.find("[[log]]").unwrap();
        text[at..]
            .lines()
            .find(|l| l.starts_with("issues = [\""))
            .unwrap()
            .to_string()
    }

    #[test]
    fn ranges_compare_as_many_components_as_given() {
        assert_eq!(in_range("6.2.41134", ">=6.1, <7.0"), Some(true));
        assert_eq!(in_range("6.0.32830", ">=6.1, <7.0"), Some(false));
        assert_eq!(in_range("5.2.21153", "<6.2"), Some(true));
        assert_eq!(in_range("6.2.41134", "<6.2"), Some(false));
        assert_eq!(in_range("2.4.0", "<2.8"), Some(true));
        assert_eq!(in_range("2.8.0", "<2.8"), Some(false));
        assert_eq!(in_range("x", "<2.8"), None);
    }

    #[test]
    fn the_magic_bug_needs_the_env_and_the_version() {
        let issue = issues()
            .iter()
            .find(|i| i.id == "clr-bundle-magic-nul")
            .unwrap();
        let flags: BTreeSet<Flag> = [Flag::UncompressedBundle].into();
        let v: BTreeMap<String, String> =
            [("amdhip64".to_string(), "6.2.41134".to_string())].into();
        let on = |k: &str| (k == "HIP_USE_RUNTIME_UNBUNDLER").then(|| "1".to_string());
        let off = |_: &str| None;
        let facts = Facts {
            versions: &v,
            env: &on,
            flags: &flags,
            undefined: &[],
        };
        assert!(matches!(evaluate(issue, &facts), Outcome::Applies { .. }));
        let facts = Facts {
            versions: &v,
            env: &off,
            flags: &flags,
            undefined: &[],
        };
        assert_eq!(evaluate(issue, &facts), Outcome::DoesNotApply);
        let v6: BTreeMap<String, String> =
            [("amdhip64".to_string(), "6.0.32830".to_string())].into();
        let facts = Facts {
            versions: &v6,
            env: &on,
            flags: &flags,
            undefined: &[],
        };
        assert_eq!(evaluate(issue, &facts), Outcome::DoesNotApply);
    }
}

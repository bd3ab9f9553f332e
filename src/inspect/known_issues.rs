//! Known issues as data (`checks/known-issues.toml`), evaluated against installed versions,
//! the environment and what an inspected file carries.

use super::file::FileReport;
use crate::codeobj::ccob::Method;
use crate::report::{Finding, Fix};
use serde::Deserialize;
use std::collections::{BTreeMap, BTreeSet};
use std::sync::OnceLock;

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Issue {
    pub id: String,
    pub title: String,
    pub component: String,
    pub versions: String,
    pub when: Vec<String>,
    pub status: String,
    pub symptom: String,
    pub fix: String,
    #[serde(default)]
    pub unset_env: Vec<String>,
    pub sources: Vec<String>,
}

/// What `rocm-doctor log` says about a failure signal it reads in a log (`[[log]]` entries).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LogSignal {
    /// A HIP result name (`hipErrorNoBinaryForGpu`) or `no-code-object`.
    pub signal: String,
    pub diagnosis: String,
    pub fix: String,
    /// Ids of `[[issue]]` entries whose symptom this signal matches.
    pub issues: Vec<String>,
    pub sources: Vec<String>,
}

#[derive(Deserialize)]
struct Table {
    issue: Vec<Issue>,
    #[serde(default)]
    log: Vec<LogSignal>,
}

fn table() -> &'static (Vec<Issue>, Vec<LogSignal>) {
    static T: OnceLock<(Vec<Issue>, Vec<LogSignal>)> = OnceLock::new();
    T.get_or_init(|| {
        toml::from_str::<Table>(include_str!("../../checks/known-issues.toml"))
            .map(|t| (t.issue, t.log))
            .unwrap_or_else(|e| {
                eprintln!("rocm-doctor: checks/known-issues.toml is invalid: {e}");
                (Vec::new(), Vec::new())
            })
    })
}

/// The log view's knowledge of a signal, if any.
pub fn log_signal(signal: &str) -> Option<&'static LogSignal> {
    table().1.iter().find(|l| l.signal == signal)
}

/// An issue by id.
pub fn issue(id: &str) -> Option<&'static Issue> {
    issues().iter().find(|i| i.id == id)
}

pub fn issues() -> &'static [Issue] {
    &table().0
}

/// Everything an issue's conditions can ask about.
pub struct Facts<'a> {
    /// Installed component versions (`amdhip64` -> `5.2.21153`).
    pub versions: &'a BTreeMap<String, String>,
    /// The environment the binary would run with.
    pub env: &'a dyn Fn(&str) -> Option<String>,
    /// `file.*` / `dir.*` flags that hold.
    pub flags: &'a BTreeSet<String>,
    /// Undefined symbols no needed library defines (`--symbols`).
    pub undefined: &'a [String],
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    Applies {
        version: Option<String>,
    },
    DoesNotApply,
    /// Every other condition holds but the component's version is unknown.
    Unknown {
        why: String,
    },
}

/// The flags a file report sets.
pub fn file_flags(r: &FileReport) -> BTreeSet<String> {
    let mut f = BTreeSet::new();
    if r.uncompressed_bundles() > 0 {
        f.insert("file.uncompressed-bundle".to_string());
    }
    for b in r.ccob_bundles() {
        f.insert("file.ccob".to_string());
        if let Some(c) = &b.ccob {
            if c.version == 3 {
                f.insert("file.ccob-v3".to_string());
            }
            if c.magic_inside {
                f.insert("file.ccob-magic-inside".to_string());
            }
            if c.method == Method::Zlib && (b.error.is_some() || c.hash_ok == Some(false)) {
                f.insert("file.ccob-zlib-broken".to_string());
            }
        }
    }
    f
}

pub fn evaluate(issue: &Issue, facts: &Facts) -> Outcome {
    for cond in &issue.when {
        let holds = if let Some(rest) = cond.strip_prefix("env.") {
            let (name, values) = rest.split_once('=').unwrap_or((rest, ""));
            (facts.env)(name).is_some_and(|v| {
                values
                    .split('|')
                    .any(|want| want.eq_ignore_ascii_case(v.trim()))
            })
        } else if let Some(prefix) = cond.strip_prefix("symbols.undefined=") {
            facts.undefined.iter().any(|s| s.starts_with(prefix))
        } else {
            facts.flags.contains(cond)
        };
        if !holds {
            return Outcome::DoesNotApply;
        }
    }
    if issue.component == "any" || issue.versions.trim() == "*" {
        return Outcome::Applies {
            version: facts.versions.get(&issue.component).cloned(),
        };
    }
    match facts.versions.get(&issue.component) {
        None => Outcome::Unknown {
            why: format!("the installed {} version is unknown", issue.component),
        },
        Some(v) => match in_range(v, &issue.versions) {
            Some(true) => Outcome::Applies {
                version: Some(v.clone()),
            },
            Some(false) => Outcome::DoesNotApply,
            None => Outcome::Unknown {
                why: format!("cannot compare version '{v}' with '{}'", issue.versions),
            },
        },
    }
}

fn parse_version(s: &str) -> Option<Vec<u64>> {
    let nums: Vec<u64> = s
        .trim()
        .split(['.', '-', '+'])
        .map_while(|p| p.parse().ok())
        .collect();
    (!nums.is_empty()).then_some(nums)
}

/// Whether `version` satisfies every constraint of `range` (`>=6.1, <7.0`). Each constraint
/// compares as many components as it names.
pub fn in_range(version: &str, range: &str) -> Option<bool> {
    let v = parse_version(version)?;
    for c in range.split(',').map(str::trim).filter(|c| !c.is_empty()) {
        if c == "*" {
            continue;
        }
        let (op, rest) = [">=", "<=", ">", "<", "="]
            .iter()
            .find_map(|op| c.strip_prefix(op).map(|r| (*op, r)))?;
        let want = parse_version(rest)?;
        let have: Vec<u64> = (0..want.len())
            .map(|i| v.get(i).copied().unwrap_or(0))
            .collect();
        let ord = have.cmp(&want);
        let ok = match op {
            ">=" => ord.is_ge(),
            "<=" => ord.is_le(),
            ">" => ord.is_gt(),
            "<" => ord.is_lt(),
            _ => ord.is_eq(),
        };
        if !ok {
            return Some(false);
        }
    }
    Some(true)
}

/// Findings for every issue that applies (or cannot be ruled out) for a subject.
pub fn findings(subject: &str, facts: &Facts) -> Vec<Finding> {
    let mut out = Vec::new();
    for issue in issues() {
        let f = match evaluate(issue, facts) {
            Outcome::DoesNotApply => continue,
            Outcome::Applies { version } => {
                let summary = format!("known issue {}: {}", issue.id, issue.title);
                let base = if issue.status == "warn" {
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
    fn the_catalogue_parses_and_names_known_conditions() {
        let known = [
            "file.uncompressed-bundle",
            "file.ccob",
            "file.ccob-v3",
            "file.ccob-magic-inside",
            "file.ccob-zlib-broken",
            "dir.tensile-missing",
        ];
        assert!(issues().len() >= 5);
        for i in issues() {
            assert!(i.status == "fail" || i.status == "warn", "{}", i.id);
            assert!(!i.sources.is_empty(), "{} has no source", i.id);
            assert!(
                in_range("1.0", &i.versions).is_some(),
                "{}: bad range {}",
                i.id,
                i.versions
            );
            for c in &i.when {
                assert!(
                    c.starts_with("env.")
                        || c.starts_with("symbols.undefined=")
                        || known.contains(&c.as_str()),
                    "{}: {c}",
                    i.id
                );
            }
        }
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
        let flags: BTreeSet<String> = ["file.uncompressed-bundle".to_string()].into();
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

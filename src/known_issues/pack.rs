//! The known issues (`checks/known-issues.toml`) as pack checks: each `[[issue]]` compiles into a
//! `known-issues.<id>` check (when = the version range, one probe per condition, rule 1 = the
//! issue's status, rule 2 = pass). `inspect` evaluates the same check with its probes bound to
//! the inspected file (`known_issues::evaluate`); the default run reads the installed key
//! libraries through a `code-objects` probe. Pure: no I/O.

use crate::known_issues::{issues, runs_on_machine, Condition, Issue, Severity, KEY_LIBS, PACK};
use crate::packs::{template::Template, Check, Probe, ProbeSpec, Rule, Term, When};
use crate::report::Status;

/// Builds the pack check of an issue: `when` = its component's version range; one probe per
/// condition (a `code-objects` probe with a regex for a file flag, an `env` probe with a regex
/// for the values, the undefined symbols for `symbols.undefined`); rule 1 = every condition
/// holds -> the issue's status; rule 2 = pass.
pub(crate) fn to_check(issue: &Issue) -> Result<Check, String> {
    let esc = |t: &str| t.replace('{', "{{").replace('}', "}}");
    let mut probes = Vec::new();
    let mut file_ref = None;
    for (i, c) in issue.conditions.iter().enumerate() {
        let name = format!("c{i}");
        if matches!(c, Condition::Flag(_)) {
            file_ref.get_or_insert_with(|| name.clone());
        }
        probes.push(probe_of(name, c)?);
    }
    let terms = (0..probes.len())
        .map(|i| Term {
            probe: i,
            negate: false,
            found: true,
            matched: true,
        })
        .collect();
    let applies = match &file_ref {
        Some(p) => format!(
            "known issue {}: {} ({{{p}.file}})",
            issue.id,
            esc(&issue.title)
        ),
        None => format!("known issue {}: {}", issue.id, esc(&issue.title)),
    };
    let any_version = issue.component == "any" || issue.versions.trim() == "*";
    Ok(Check {
        doc: doc_of(issue, any_version),
        when: When {
            component: match (
                any_version,
                crate::version::VersionRange::parse(&issue.versions),
            ) {
                (true, _) => None,
                (false, Ok(r)) => Some((issue.component.clone(), r)),
                (false, Err(e)) => return Err(e),
            },
            ..Default::default()
        },
        probes,
        rules: vec![
            Rule {
                terms,
                status: match issue.status {
                    Severity::Warn => Status::Warn,
                    Severity::Fail => Status::Fail,
                },
                message: Template::parse(&applies)?,
                fix: Some(Template::parse(&esc(&issue.fix))?),
                action: None,
            },
            Rule {
                terms: Vec::new(),
                status: Status::Pass,
                message: Template::parse(&format!("known issue {} does not apply here", issue.id))?,
                fix: None,
                action: None,
            },
        ],
    })
}

/// The probe `name` of condition `c`: a regex over what its source reads.
fn probe_of(name: String, c: &Condition) -> Result<Probe, String> {
    let (spec, re) = match c {
        Condition::Flag(f) => (
            ProbeSpec::CodeObjects(KEY_LIBS.iter().map(|s| s.to_string()).collect()),
            format!("(?m)^(?P<file>.+): {}$", regex::escape(f.as_str())),
        ),
        Condition::Env { name: var, values } => (
            ProbeSpec::Env(var.clone()),
            format!(
                r"^\s*(?i:{})\s*$",
                values
                    .iter()
                    .map(|v| regex::escape(v))
                    .collect::<Vec<_>>()
                    .join("|")
            ),
        ),
        Condition::Undefined(prefix) => (
            ProbeSpec::UndefinedSymbols,
            format!("(?m)^{}", regex::escape(prefix)),
        ),
    };
    Ok(Probe {
        name,
        spec,
        regex: Some(crate::packs::compile::regex(&re)?),
        split: None,
        relation: None,
        as_indices: false,
    })
}

/// The check's documentation, from the issue's own texts.
fn doc_of(issue: &Issue, any_version: bool) -> crate::checkdoc::CheckDoc {
    let mut doc = crate::checkdoc::CheckDoc {
        id: format!("{PACK}.{}", issue.id),
        category: PACK.into(),
        title: issue.title.clone(),
        what: format!(
            "Reads what the installed key libraries ({}) carry and the environment; applies when \
                {}{}.",
            KEY_LIBS.join(", "),
            issue.when.join(" and "),
            if any_version {
                String::new()
            } else {
                format!(", with {} {}", issue.component, issue.versions)
            }
        ),
        why: issue.symptom.clone(),
        fix: issue.fix.clone(),
        // A known issue is a build or an installation meeting a bug: fixed by changing them.
        action: crate::report::Action::FixConfig,
        sources: issue.sources.clone(),
    };
    doc.sources.push("checks/known-issues.toml".into());
    doc
}

/// The built-in pack of the known issues the default run judges (`known-issues.<id>`).
pub(crate) fn pack() -> crate::packs::Pack {
    crate::packs::Pack {
        name: PACK.into(),
        version: "1".into(),
        source: "rocm-doctor built-in".into(),
        description: "Known runtime and packaging bugs (checks/known-issues.toml)".into(),
        checks: issues()
            .iter()
            .filter(|i| runs_on_machine(i))
            .filter_map(|i| to_check(i).ok())
            .collect(),
        symptoms: Vec::new(),
    }
}

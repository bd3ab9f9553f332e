//! Pure evaluation of a pack check: `when` conditions, regexes, token relations, rules and
//! templates. The raw probe values come from `probe.rs`.

use super::model::Profile;
use super::template::Field;
use super::{Check, Probe, Relation, Rule, When};
use crate::report::{Finding, Fix};

/// What a probe read, before matching.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct RawValue {
    pub found: bool,
    pub value: String,
    /// Probes that read several things (globs, KFD nodes, GPU ISAs) give them as a list.
    pub list: Option<Vec<String>>,
    /// How it was read: the command and its outcome, the path, the error.
    pub evidence: Vec<String>,
}

impl RawValue {
    pub(crate) fn found(value: impl Into<String>) -> Self {
        RawValue {
            found: true,
            value: value.into(),
            ..Default::default()
        }
    }
    pub(crate) fn list(items: Vec<String>) -> Self {
        RawValue {
            found: !items.is_empty(),
            value: items.join("\n"),
            list: Some(items),
            evidence: Vec::new(),
        }
    }
    pub(crate) fn missing(why: impl Into<String>) -> Self {
        RawValue {
            evidence: vec![why.into()],
            ..Default::default()
        }
    }
}

/// A probe's result after its regex and relation.
#[derive(Debug, Clone, Default)]
pub(crate) struct Outcome {
    pub found: bool,
    pub matched: bool,
    pub value: String,
    pub tokens: Vec<String>,
    /// Capture groups by number and by name.
    pub groups: Vec<(String, String)>,
    pub missing: Vec<String>,
    pub evidence: Vec<String>,
}

fn tokens(p: &Probe, raw: &RawValue) -> Vec<String> {
    if !raw.found {
        return Vec::new();
    }
    let t: Vec<String> = match (&p.split, &raw.list) {
        (Some(sep), _) => raw
            .value
            .split(|c| sep.contains(c))
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(String::from)
            .collect(),
        (None, Some(l)) => l.clone(),
        // A regex with a group: the token is what the first group captured (`6.2` of
        // `6.2.41134` for `^(\d+\.\d+)`), so two probes' versions compare by a relation.
        (None, None) => match p.regex.as_ref().filter(|r| r.captures_len() > 1) {
            Some(r) => r
                .captures(&raw.value)
                .and_then(|c| c.get(1))
                .map(|m| vec![m.as_str().to_string()])
                .unwrap_or_default(),
            None => vec![raw.value.trim().to_string()],
        },
    };
    if p.as_indices {
        (0..t.len()).map(|i| i.to_string()).collect()
    } else {
        t
    }
}

/// Applies each probe's regex and relation to the raw values (same order as the probes).
pub(crate) fn finalize(probes: &[Probe], raws: &[RawValue]) -> Vec<Outcome> {
    let toks: Vec<Vec<String>> = probes.iter().zip(raws).map(|(p, r)| tokens(p, r)).collect();
    probes
        .iter()
        .zip(raws)
        .enumerate()
        .map(|(i, (p, raw))| {
            let mut o = Outcome {
                found: raw.found,
                matched: raw.found,
                value: raw.value.clone(),
                tokens: toks[i].clone(),
                evidence: raw.evidence.clone(),
                ..Default::default()
            };
            if let (true, Some(re)) = (raw.found, &p.regex) {
                match re.captures(&raw.value) {
                    Some(c) => {
                        for (n, name) in re.capture_names().enumerate() {
                            let v = c.get(n).map_or("", |m| m.as_str()).to_string();
                            o.groups.push((n.to_string(), v.clone()));
                            if let Some(name) = name {
                                o.groups.push((name.to_string(), v));
                            }
                        }
                    }
                    None => o.matched = false,
                }
            }
            if let (true, Some((rel, other))) = (raw.found, p.relation) {
                let (sub, sup) = match rel {
                    Relation::SubsetOf => (&toks[i], &toks[other]),
                    Relation::Covers => (&toks[other], &toks[i]),
                };
                o.missing = sub.iter().filter(|t| !sup.contains(t)).cloned().collect();
                o.missing.dedup();
                o.matched = o.matched && o.missing.is_empty();
            }
            o
        })
        .collect()
}

/// What `when` may ask about the run.
pub(crate) struct Situation<'a> {
    pub profile: Profile,
    pub gpu_present: bool,
    /// Processors of the GPUs (`gfx90a`).
    pub isas: &'a [String],
    pub version_of: &'a dyn Fn(&str) -> Option<String>,
}

/// Why a check's `when` does not hold (its `Display` is the skip reason).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum NotApplied {
    Profile(String),
    NoGpu,
    HasGpu,
    Family(String),
    /// The component is not installed, or its version is unknown.
    VersionUnknown(String),
    /// (component, version, range)
    Outside(String, String, String),
    /// The version does not parse as one.
    Uncomparable(String, String, String),
}

impl std::fmt::Display for NotApplied {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            NotApplied::Profile(p) => write!(f, "only for profile {p}"),
            NotApplied::NoGpu => write!(f, "no GPU is present"),
            NotApplied::HasGpu => write!(f, "only without GPUs"),
            NotApplied::Family(x) => write!(f, "no GPU of family {x}"),
            NotApplied::VersionUnknown(c) => {
                write!(f, "{c} is not installed (or its version is unknown)")
            }
            NotApplied::Outside(c, v, r) => write!(f, "{c} {v} is outside {r}"),
            NotApplied::Uncomparable(c, v, r) => {
                write!(f, "cannot compare {c} version '{v}' with {r}")
            }
        }
    }
}

/// `Ok` when the check applies, else why not (the check is skipped with that reason).
pub(crate) fn applies(w: &When, s: &Situation) -> Result<(), NotApplied> {
    if !w.profile.is_empty() && !w.profile.contains(&s.profile) {
        return Err(NotApplied::Profile(
            w.profile
                .iter()
                .map(|p| format!("{p:?}").to_lowercase())
                .collect::<Vec<_>>()
                .join(" or "),
        ));
    }
    match w.gpu {
        Some(true) if !s.gpu_present => return Err(NotApplied::NoGpu),
        Some(false) if s.gpu_present => return Err(NotApplied::HasGpu),
        _ => {}
    }
    if !w.isa_family.is_empty()
        && !s
            .isas
            .iter()
            .any(|i| w.isa_family.iter().any(|f| i.starts_with(f.as_str())))
    {
        return Err(NotApplied::Family(w.isa_family.join(", ")));
    }
    if let Some((comp, range)) = &w.component {
        match (s.version_of)(comp) {
            None => return Err(NotApplied::VersionUnknown(comp.clone())),
            Some(v) => match range.contains(&v) {
                Some(true) => {}
                Some(false) => {
                    return Err(NotApplied::Outside(comp.clone(), v, range.as_str().into()))
                }
                None => {
                    return Err(NotApplied::Uncomparable(
                        comp.clone(),
                        v,
                        range.as_str().into(),
                    ))
                }
            },
        }
    }
    Ok(())
}

fn first_line(s: &str) -> String {
    let l = s
        .lines()
        .map(str::trim)
        .find(|l| !l.is_empty())
        .unwrap_or("");
    if l.chars().count() > 200 {
        l.chars().take(200).collect::<String>() + "…"
    } else {
        l.to_string()
    }
}

/// The probes a rule needs: its terms', its templates' and their relations' targets.
pub(crate) fn rule_probes(check: &Check, rule: &Rule) -> Vec<usize> {
    let mut v: Vec<usize> = rule.terms.iter().map(|t| t.probe).collect();
    for t in std::iter::once(&rule.message).chain(rule.fix.as_ref()) {
        for (name, _) in t.refs() {
            if let Some(i) = check.probes.iter().position(|p| p.name == name) {
                v.push(i);
            }
        }
    }
    let targets: Vec<usize> = v
        .iter()
        .filter_map(|i| check.probes[*i].relation.map(|(_, o)| o))
        .collect();
    v.extend(targets);
    v.sort_unstable();
    v.dedup();
    v
}

/// Whether every term of the rule holds.
pub(crate) fn holds(rule: &Rule, outs: &[Outcome]) -> bool {
    rule.terms.iter().all(|t| {
        let o = &outs[t.probe];
        let h = (!t.found || o.found) && (!t.matched || o.matched);
        h != t.negate
    })
}

pub(crate) fn verdict(
    check: &Check,
    rule: Option<&Rule>,
    outs: &[Outcome],
    read: &[bool],
) -> Finding {
    let lookup = |name: &str, field: &Field| -> String {
        let Some(i) = check.probes.iter().position(|p| p.name == name) else {
            return String::new();
        };
        let o = &outs[i];
        match field {
            // A failed command's last line is its error.
            Field::Value if o.found => first_line(&o.value),
            Field::Value => last_line(&o.value),
            Field::Missing => o.missing.join(","),
            Field::Count => o.tokens.len().to_string(),
            Field::Group(g) => o
                .groups
                .iter()
                .find(|(k, _)| k == g)
                .map(|(_, v)| first_line(v))
                .unwrap_or_default(),
        }
    };
    let evidence: Vec<String> = check
        .probes
        .iter()
        .zip(outs)
        .zip(read)
        .filter(|(_, r)| **r)
        .flat_map(|((p, o), _)| {
            let head = if o.found {
                format!("{}: {}", p.name, first_line(&o.value))
            } else {
                format!("{}: not found", p.name)
            };
            std::iter::once(head).chain(o.evidence.iter().map(|e| format!("  {e}")))
        })
        .collect();
    let Some(rule) = rule else {
        return Finding::skip("no rule of this check applies here").evidence_lines(evidence);
    };
    let status = rule.status;
    let mut f = Finding::new(status, rule.message.render(&lookup)).evidence_lines(evidence);
    if let Some(a) = rule.action {
        f = f.action(a);
    }
    if let Some(fix) = &rule.fix {
        f = f.fix(Fix::text(fix.render(&lookup)));
    }
    f
}

fn last_line(s: &str) -> String {
    first_line(s.lines().rev().find(|l| !l.trim().is_empty()).unwrap_or(""))
}

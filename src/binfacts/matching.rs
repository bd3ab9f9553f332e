//! Would the runtime find a code object for this agent? The target-id rules of ROCr
//! (`runtime/hsa-runtime/core/runtime/isa.cpp`, `Isa::IsCompatible`), CLR
//! (`isCodeObjectCompatibleWithDevice`) and comgr (`isCompatibleIsaName`):
//! - the processor must be equal, or the code object is generic and the agent's processor maps
//!   to that generic name (ROCr's table: `generic` in `checks/isa.toml`) with generic version >= 1;
//! - a feature absent from the code object (any) matches every agent setting; `+`/`-` must equal
//!   the agent's current mode.

use super::file::Candidate;
use crate::isa::{self, TargetId};
use serde::Serialize;

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "verdict", rename_all = "kebab-case")]
pub(crate) enum Coverage {
    /// A code object for exactly this processor, features compatible.
    Exact { code_object: String },
    /// Only a generic code object matches.
    Generic {
        code_object: String,
        generic_version: u32,
    },
    /// A code object for this processor exists but only for a feature mode the agent is not
    /// known to run in (the agent's mode is unknown, e.g. `--isa gfx90a`).
    DependsOnFeatures { code_object: String, needs: String },
    /// Code objects for this processor exist, all for the other feature mode.
    FeatureMismatch {
        code_objects: Vec<String>,
        agent: String,
    },
    /// Nothing for this processor or its generic family.
    Missing,
}

impl Coverage {
    pub(crate) fn ok(&self) -> bool {
        matches!(self, Coverage::Exact { .. } | Coverage::Generic { .. })
    }
}

enum Feat {
    Ok,
    Unknown(String),
    Conflict,
}

fn features(agent: &TargetId, co: &TargetId, ignore_sramecc: bool) -> Feat {
    let mut unknown = Vec::new();
    let pairs = [
        (
            "sramecc",
            agent.sramecc,
            if ignore_sramecc { None } else { co.sramecc },
        ),
        ("xnack", agent.xnack, co.xnack),
    ];
    for (name, a, c) in pairs {
        match (a, c) {
            (_, None) => {}
            (Some(a), Some(c)) if a == c => {}
            (Some(_), Some(_)) => return Feat::Conflict,
            (None, Some(c)) => unknown.push(format!("{name}{}", if c { '+' } else { '-' })),
        }
    }
    if unknown.is_empty() {
        Feat::Ok
    } else {
        Feat::Unknown(unknown.join(":"))
    }
}

/// The best verdict for an agent over the code objects a file carries.
pub(crate) fn judge(agent: &TargetId, cands: &[Candidate]) -> Coverage {
    let mut depends: Option<Coverage> = None;
    let mut conflicting: Vec<String> = Vec::new();
    let mut generic: Option<Coverage> = None;
    let agent_generic = isa::processor(&agent.processor).and_then(|p| p.generic.clone());
    for c in cands {
        let t = &c.target;
        if t.processor == agent.processor {
            match features(agent, t, false) {
                Feat::Ok => {
                    return Coverage::Exact {
                        code_object: t.to_string(),
                    }
                }
                Feat::Unknown(needs) => {
                    depends.get_or_insert(Coverage::DependsOnFeatures {
                        code_object: t.to_string(),
                        needs,
                    });
                }
                Feat::Conflict => conflicting.push(t.to_string()),
            }
        } else if agent_generic.as_deref() == Some(t.processor.as_str()) && generic.is_none() {
            // ROCr compares generic names without features; sramecc is not part of gfx9-generic.
            let gen_has_sramecc = isa::processor(&t.processor).is_some_and(|p| p.sramecc);
            let version = c.generic_version.unwrap_or(0);
            if version >= 1 {
                if let Feat::Ok = features(agent, t, !gen_has_sramecc) {
                    generic = Some(Coverage::Generic {
                        code_object: t.to_string(),
                        generic_version: version,
                    });
                }
            }
        }
    }
    if let Some(g) = generic {
        return g;
    }
    if let Some(d) = depends {
        return d;
    }
    if !conflicting.is_empty() {
        return Coverage::FeatureMismatch {
            code_objects: conflicting,
            agent: agent.to_string(),
        };
    }
    Coverage::Missing
}

/// `HSA_OVERRIDE_GFX_VERSION` value for a concrete processor (`gfx1030` -> `10.3.0`).
pub(crate) fn override_value(processor: &str) -> Option<String> {
    let v = isa::encode_gfx_target_version(processor)?;
    Some(format!("{}.{}.{}", v / 10000, (v / 100) % 100, v % 100))
}

/// A code object for a same-family sibling that `HSA_OVERRIDE_GFX_VERSION` could make the
/// runtime use: both processors map to the same generic family in ROCr's table (the ISA is
/// compatible in practice, e.g. gfx1031 -> gfx1030). Never across families.
pub(crate) fn sibling(agent: &TargetId, cands: &[Candidate]) -> Option<TargetId> {
    let fam = isa::processor(&agent.processor)?.generic.clone()?;
    cands
        .iter()
        .map(|c| &c.target)
        .find(|t| {
            t.processor != agent.processor
                && isa::processor(&t.processor)
                    .and_then(|p| p.generic.clone())
                    .as_deref()
                    == Some(fam.as_str())
                && !isa::processor(&t.processor).is_some_and(|p| p.is_generic)
        })
        .cloned()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn c(s: &str, g: Option<u32>) -> Candidate {
        Candidate {
            target: TargetId::parse(s).unwrap(),
            generic_version: g,
        }
    }
    fn t(s: &str) -> TargetId {
        TargetId::parse(s).unwrap()
    }

    #[test]
    fn exact_any_and_feature_rules() {
        let cands = [c("gfx90a:sramecc+:xnack-", None), c("gfx1030", None)];
        assert!(judge(&t("gfx90a:sramecc+:xnack-"), &cands).ok());
        assert!(judge(&t("gfx1030"), &cands).ok());
        assert_eq!(judge(&t("gfx1031"), &cands), Coverage::Missing);
        assert!(matches!(
            judge(&t("gfx90a:sramecc+:xnack+"), &cands),
            Coverage::FeatureMismatch { .. }
        ));
        assert!(matches!(
            judge(&t("gfx90a"), &cands),
            Coverage::DependsOnFeatures { .. }
        ));
        // A code object without features (any) runs in every mode.
        assert!(judge(&t("gfx90a:sramecc-:xnack+"), &[c("gfx90a", None)]).ok());
    }

    #[test]
    fn generic_rules_follow_the_rocr_table() {
        let g = [c("gfx10-3-generic", Some(1))];
        assert!(matches!(
            judge(&t("gfx1031"), &g),
            Coverage::Generic {
                generic_version: 1,
                ..
            }
        ));
        assert_eq!(
            judge(&t("gfx1031"), &[c("gfx10-3-generic", None)]),
            Coverage::Missing
        );
        assert_eq!(
            judge(&t("gfx90a"), &[c("gfx9-generic", Some(1))]),
            Coverage::Missing
        );
        assert!(judge(
            &t("gfx906:sramecc+:xnack-"),
            &[c("gfx9-generic:xnack-", Some(1))]
        )
        .ok());
        assert_eq!(judge(&t("gfx1100"), &g), Coverage::Missing);
    }

    #[test]
    fn siblings_and_override_values() {
        let cands = [c("gfx1030", None), c("gfx90a", None)];
        assert_eq!(sibling(&t("gfx1031"), &cands), Some(t("gfx1030")));
        assert_eq!(sibling(&t("gfx1100"), &cands), None);
        assert_eq!(sibling(&t("gfx908"), &cands), None);
        assert_eq!(override_value("gfx1030").as_deref(), Some("10.3.0"));
        assert_eq!(override_value("gfx90a").as_deref(), Some("9.0.10"));
    }
}

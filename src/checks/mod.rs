//! Checks: small units with a stable id, docs (in `checks/checks.toml`) and a run function
//! that judges inventory facts and returns findings.

pub mod asm;
pub mod gpu;
pub mod libs;
pub mod runtime;
pub mod targets;
pub mod toolchain;

use crate::config::Config;
use crate::host::Host;
use crate::inventory::Inventory;
use crate::report::Finding;
use serde::Deserialize;
use std::sync::OnceLock;

/// What a check needs: the machine, the shared facts and the configuration.
pub struct Ctx<'a> {
    pub host: &'a Host,
    pub inv: &'a Inventory<'a>,
    pub cfg: &'a Config,
    /// The run's asm-caps probe, done once by the first `asm.*` check that needs it.
    pub asm: &'a AsmSlot,
}

/// Where the run keeps the asm-caps probe's outcome (shared by the `asm.*` checks, read by the
/// caller for the matrix and the `asm_caps` JSON object).
pub type AsmSlot = OnceLock<crate::asm::Outcome>;

pub type CheckFn = fn(&Ctx) -> Vec<Finding>;

/// A check's documentation, from `checks/checks.toml`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CheckDoc {
    pub id: String,
    pub category: String,
    pub title: String,
    pub what: String,
    pub why: String,
    pub fix: String,
    /// Where the facts behind the check come from.
    #[serde(default)]
    pub sources: Vec<String>,
}

#[derive(Deserialize)]
struct DocFile {
    check: Vec<CheckDoc>,
}

/// The doc files, one per check family, compiled in. Their order is the report's order.
const DOC_FILES: &[(&str, &str)] = &[
    (
        "checks/targets.toml",
        include_str!("../../checks/targets.toml"),
    ),
    (
        "checks/toolchain.toml",
        include_str!("../../checks/toolchain.toml"),
    ),
    (
        "checks/runtime.toml",
        include_str!("../../checks/runtime.toml"),
    ),
    ("checks/gpu.toml", include_str!("../../checks/gpu.toml")),
    ("checks/libs.toml", include_str!("../../checks/libs.toml")),
    ("checks/asm.toml", include_str!("../../checks/asm.toml")),
];

pub fn docs() -> &'static [CheckDoc] {
    static DOCS: OnceLock<Vec<CheckDoc>> = OnceLock::new();
    DOCS.get_or_init(|| {
        DOC_FILES
            .iter()
            .flat_map(|(name, text)| {
                toml::from_str::<DocFile>(text)
                    .unwrap_or_else(|e| panic!("{name} is invalid (a unit test catches this): {e}"))
                    .check
            })
            .collect()
    })
}

pub fn doc(id: &str) -> Option<&'static CheckDoc> {
    docs().iter().find(|d| d.id == id)
}

/// A registered check: its docs and its implementation.
#[derive(Clone, Copy)]
pub struct Check {
    pub doc: &'static CheckDoc,
    pub run: CheckFn,
}

/// Every implementation, by id. Each family module lists its own.
fn implementations() -> Vec<(&'static str, CheckFn)> {
    let mut v = Vec::new();
    v.extend_from_slice(targets::CHECKS);
    v.extend_from_slice(toolchain::CHECKS);
    v.extend_from_slice(runtime::CHECKS);
    v.extend_from_slice(gpu::CHECKS);
    v.extend_from_slice(libs::CHECKS);
    v.extend_from_slice(asm::CHECKS);
    v
}

/// All checks in documentation order. Panics only if the compiled-in docs and the
/// implementations disagree, which a unit test rules out.
pub fn registry() -> Vec<Check> {
    let impls = implementations();
    docs()
        .iter()
        .filter_map(|d| {
            impls
                .iter()
                .find(|(id, _)| *id == d.id)
                .map(|(_, f)| Check { doc: d, run: *f })
        })
        .collect()
}

/// Whether `id` is selected by `--only` / `--skip` (exact ids or prefixes ending in `.`, or a
/// bare category name).
pub fn selected(id: &str, only: &[String], skip: &[String]) -> bool {
    let matches = |pat: &String| {
        id == pat
            || (pat.ends_with('.') && id.starts_with(pat.as_str()))
            || id.split('.').next() == Some(pat.as_str())
    };
    (only.is_empty() || only.iter().any(matches)) && !skip.iter().any(matches)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_doc_has_an_implementation_and_every_implementation_a_doc() {
        let impls = implementations();
        for d in docs() {
            assert!(
                impls.iter().any(|(id, _)| *id == d.id),
                "{} is documented but not implemented",
                d.id
            );
            assert!(
                !d.what.trim().is_empty() && !d.why.trim().is_empty() && !d.fix.trim().is_empty(),
                "{}",
                d.id
            );
            assert!(
                d.id.starts_with(&format!("{}.", d.category)),
                "{} not in category {}",
                d.id,
                d.category
            );
        }
        for (id, _) in &impls {
            assert_eq!(
                docs().iter().filter(|d| d.id == *id).count(),
                1,
                "{id} needs exactly one doc"
            );
        }
    }

    #[test]
    fn selection_by_id_prefix_and_category() {
        let only = vec!["toolchain.".to_string()];
        assert!(selected("toolchain.lld", &only, &[]));
        assert!(!selected("gpu.kfd", &only, &[]));
        assert!(selected("toolchain.lld", &["toolchain".into()], &[]));
        assert!(!selected("toolchain.lld", &[], &["toolchain.lld".into()]));
    }
}

//! Checks: small units with a stable id, docs (in `checks/<family>.toml`, one file per family)
//! and a run function that judges inventory facts and returns findings.

pub(crate) mod asm;
pub(crate) mod gpu;
pub(crate) mod health;
pub(crate) mod kernel;
pub(crate) mod libs;
pub(crate) mod runtime;
#[cfg(test)]
mod tables;
pub(crate) mod targets;
#[cfg(test)]
pub(crate) mod testkit;
pub(crate) mod toolchain;

use crate::config::Config;
use crate::host::Host;
use crate::inventory::Inventory;
use crate::report::Finding;
use serde::Deserialize;
use std::sync::OnceLock;

/// What a check needs: the machine, the shared facts and the configuration.
pub(crate) struct Ctx<'a> {
    pub host: &'a Host,
    pub inv: &'a Inventory<'a>,
    pub cfg: &'a Config,
    /// The run's asm-caps probe, done once by the first `asm.*` check that needs it.
    pub asm: &'a AsmSlot,
}

/// Where the run keeps the asm-caps probe's outcome (shared by the `asm.*` checks, read by the
/// caller for the matrix and the `asm_caps` JSON object).
pub(crate) type AsmSlot = OnceLock<crate::asm::Outcome>;

pub(crate) type CheckFn = fn(&Ctx) -> Vec<Finding>;

pub(crate) use crate::checkdoc::{selected, Category, CheckDoc, CheckId};

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
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
    (
        "checks/health.toml",
        include_str!("../../checks/health.toml"),
    ),
    (
        "checks/kernel.toml",
        include_str!("../../checks/kernel.toml"),
    ),
    ("checks/libs.toml", include_str!("../../checks/libs.toml")),
    ("checks/asm.toml", include_str!("../../checks/asm.toml")),
];

/// The Rust checks' docs, in report order. Panics (a bug in this build, which a unit test rules
/// out) if a doc file does not load: see [`load_docs`].
pub(crate) fn docs() -> &'static [CheckDoc] {
    static DOCS: OnceLock<Vec<CheckDoc>> = OnceLock::new();
    DOCS.get_or_init(|| {
        load_docs(DOC_FILES).unwrap_or_else(|e| panic!("compiled-in table is invalid: {e}"))
    })
}

/// Loads the doc files (`(name, text)`): each id must be a [`CheckId`] (else `file:line:column`),
/// documented once, and every `CheckId` must have a doc (else the file of its family).
fn load_docs(files: &[(&str, &str)]) -> Result<Vec<CheckDoc>, crate::data::DataError> {
    use crate::data::DataError;
    let mut out: Vec<CheckDoc> = Vec::new();
    for (name, text) in files {
        for mut d in crate::data::load::<DocFile>(name, text)?.check {
            if out.iter().any(|o| o.id == d.id) {
                return Err(DataError::whole(
                    name,
                    format!("{} is documented twice", d.id),
                ));
            }
            d.category = Category::of_id(&d.id)
                .map(|c| c.as_str().to_string())
                .unwrap_or_default();
            out.push(d);
        }
    }
    for id in CheckId::ALL {
        if !out.iter().any(|d| d.id == id.as_str()) {
            return Err(DataError::whole(
                &format!("checks/{}.toml", id.family()),
                format!(
                    "no doc for the check {id} (declared in src/checkdoc/ids.rs); \
                    scripts/new-check.sh writes a stub"
                ),
            ));
        }
    }
    Ok(out)
}

pub(crate) fn doc(id: &str) -> Option<&'static CheckDoc> {
    docs().iter().find(|d| d.id == id)
}

/// A registered Rust check: its docs and its implementation (the registry wraps it and the
/// pack checks in `registry::Entry`).
#[derive(Clone, Copy)]
pub(crate) struct RustCheck {
    pub doc: &'static CheckDoc,
    pub run: CheckFn,
}

/// Every implementation, by id. Each family module lists its own.
fn implementations() -> Vec<(CheckId, CheckFn)> {
    let mut v = Vec::new();
    v.extend_from_slice(targets::CHECKS);
    v.extend_from_slice(toolchain::CHECKS);
    v.extend_from_slice(runtime::CHECKS);
    v.extend_from_slice(gpu::CHECKS);
    v.extend_from_slice(health::CHECKS);
    v.extend_from_slice(kernel::CHECKS);
    v.extend_from_slice(libs::CHECKS);
    v.extend_from_slice(asm::CHECKS);
    v
}

/// All checks in documentation order. Panics only if the compiled-in docs and the
/// implementations disagree, which a unit test rules out.
pub(crate) fn registry() -> Vec<RustCheck> {
    let impls = implementations();
    docs()
        .iter()
        .filter_map(|d| {
            impls
                .iter()
                .find(|(id, _)| id.as_str() == d.id)
                .map(|(_, f)| RustCheck { doc: d, run: *f })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_doc_has_an_implementation_and_every_implementation_a_doc() {
        let impls = implementations();
        for d in docs() {
            assert!(
                impls.iter().any(|(id, _)| id.as_str() == d.id),
                "{} is documented but not implemented",
                d.id
            );
            assert!(
                !d.what.trim().is_empty() && !d.why.trim().is_empty() && !d.fix.trim().is_empty(),
                "{}",
                d.id
            );
            // scripts/new-check.sh writes TODO stubs: a scaffold cannot ship unfinished.
            for text in [&d.title, &d.what, &d.why, &d.fix] {
                assert!(!text.contains("TODO"), "{}: the doc still says TODO", d.id);
            }
            assert!(
                d.id.starts_with(&format!("{}.", d.category)),
                "{} not in category {}",
                d.id,
                d.category
            );
        }
        for id in CheckId::ALL {
            assert_eq!(
                impls.iter().filter(|(i, _)| i == id).count(),
                1,
                "{id} needs exactly one implementation"
            );
            assert_eq!(
                docs().iter().filter(|d| d.id == id.as_str()).count(),
                1,
                "{id} needs exactly one doc"
            );
        }
    }

    #[test]
    fn a_doc_in_no_family_fails_its_load_with_file_line_column() {
        let text = "[[check]]\nid = \"toolchian.lld\"\ntitle = \"t\"\nwhat = \"w\"\nwhy = \
            \"y\"\nfix = \"f\"\naction = \"fix-config\"\n";
        let e = crate::data::load::<DocFile>("checks/x.toml", text)
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with(
                "checks/x.toml:2:6: check id \"toolchian.lld\": unknown family `toolchian`"
            ),
            "{e}"
        );
        let e = crate::data::load::<DocFile>(
            "checks/x.toml",
            &text.replace("toolchian.lld", "toolchain.LLD"),
        )
        .unwrap_err()
        .to_string();
        assert!(e.contains("checks/x.toml:2:6:"), "{e}");
        // A category written by hand is refused: it comes from the id.
        let e = crate::data::load::<DocFile>(
            "checks/x.toml",
            &text
                .replace("toolchian", "toolchain")
                .replace("title", "category = \"gpu\"\ntitle"),
        )
        .unwrap_err()
        .to_string();
        assert!(
            e.starts_with("checks/x.toml:3:1: unknown field `category`"),
            "{e}"
        );
        assert!(crate::data::load::<DocFile>(
            "checks/x.toml",
            &text.replace("toolchian", "toolchain")
        )
        .is_ok());
        // Every check names its repair action, one of the documented words.
        let good = text.replace("toolchian", "toolchain");
        let e = crate::data::load::<DocFile>(
            "checks/x.toml",
            &good.replace("action = \"fix-config\"\n", ""),
        )
        .unwrap_err()
        .to_string();
        assert!(e.contains("missing field `action`"), "{e}");
        let e =
            crate::data::load::<DocFile>("checks/x.toml", &good.replace("fix-config", "reboot"))
                .unwrap_err()
                .to_string();
        assert!(
            e.contains("checks/x.toml:7:") && e.contains("reboot-node"),
            "{e}"
        );
    }

    #[test]
    fn a_doc_for_a_check_with_no_check_id_fails_its_load_at_its_line() {
        let text = "[[check]]\nid = \"toolchain.ldd\"\ntitle = \"t\"\nwhat = \"w\"\nwhy = \
            \"y\"\nfix = \"f\"\n";
        let e = load_docs(&[("checks/toolchain.toml", text)])
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with("checks/toolchain.toml:2:6: no Rust check has the id \"toolchain.ldd\""),
            "{e}"
        );
        assert!(
            e.contains("toolchain.lld"),
            "the family's ids are listed: {e}"
        );
    }

    #[test]
    fn a_check_id_without_a_doc_fails_the_load_naming_its_family_file() {
        // Every doc file but the GPU family's: the first GPU check is the one reported.
        let without_gpu: Vec<(&str, &str)> = DOC_FILES
            .iter()
            .copied()
            .filter(|(n, _)| *n != "checks/gpu.toml")
            .collect();
        let e = load_docs(&without_gpu).unwrap_err().to_string();
        let first_gpu = CheckId::ALL.iter().find(|c| c.family() == "gpu").unwrap();
        assert!(
            e.starts_with(&format!(
                "checks/gpu.toml: no doc for the check {first_gpu} "
            )),
            "{e}"
        );
        // A doc written twice is refused too.
        let (name, text) = DOC_FILES[0];
        let e = load_docs(&[(name, text), (name, text)])
            .unwrap_err()
            .to_string();
        assert!(e.contains("is documented twice"), "{e}");
        assert_eq!(load_docs(DOC_FILES).unwrap().len(), CheckId::ALL.len());
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

//! Findings: code objects against targets, Tensile directories against targets, known issues.

use super::Target;
use crate::binfacts::file::{Candidate, FileReport};
use crate::binfacts::matching::{self, Coverage};
use crate::binfacts::tensile::TensileDir;
use crate::checkdoc::CheckId;
use crate::isa::TargetId;
use crate::known_issues::{self, Facts, Flag};
use crate::report::{Finding, Fix, Status};
use std::collections::BTreeMap;

/// The check whose findings these are: the findings leave here without an id, which the engine
/// writes (`runner::stamp`: the registry for the check, the `inspect` and `why` commands for
/// theirs).
pub(crate) const ID: CheckId = CheckId::LibsCodeObjects;
pub(crate) const CATEGORY: &str = "libs";

fn name_of(r: &FileReport) -> String {
    r.path.display().to_string()
}

/// One finding per target: would the runtime find a code object in this file?
pub(crate) fn file_against_targets(r: &FileReport, targets: &[Target]) -> Vec<Finding> {
    let cands = r.candidates();
    let name = name_of(r);
    let carries = if r.isas.is_empty() {
        "nothing".to_string()
    } else {
        r.isas.join(", ")
    };
    targets
        .iter()
        .map(|t| verdict_finding(&name, &cands, &carries, t))
        .collect()
}

fn verdict_finding(what: &str, cands: &[Candidate], carries: &str, t: &Target) -> Finding {
    let agent = &t.target;
    let subject = format!("{what} on {agent} ({})", t.source);
    let carry = format!("{what} carries code objects for: {carries}");
    let f = match matching::judge(agent, cands) {
        Coverage::Exact { code_object } => Finding::pass(format!(
            "{agent}: code object \
            {code_object} present"
        )),
        Coverage::Generic {
            code_object,
            generic_version,
        } => Finding::pass(format!(
            "{agent}: \
            generic code object {code_object} (generic version {generic_version}) covers it"
        ))
        .evidence(
            "generic code objects need a runtime that knows generic targets (code \
                object v6, ROCm >= 6.4)",
        ),
        Coverage::DependsOnFeatures { code_object, needs } => Finding::warn(format!(
            "{agent}: \
            only {code_object} is present; it runs only if the GPU is in mode {needs}"
        ))
        .fix(Fix::text(format!(
            "give the GPU's full target id (rocminfo shows it, e.g. \
                {}:{needs}) with --isa to decide, or rebuild with --offload-arch={} (no feature \
                suffix: runs in either mode)",
            agent.processor, agent.processor
        ))),
        Coverage::FeatureMismatch {
            code_objects,
            agent: a,
        } => feature_mismatch(agent, &code_objects, &a),
        Coverage::Missing => missing(agent, cands),
    };
    f.subject(subject)
        .evidence(carry)
        .evidence(format!("target {agent} from {}", t.source))
}

/// A code object for the processor, in another feature mode only (`a`: the agent's id as the
/// code objects would need it).
fn feature_mismatch(agent: &TargetId, code_objects: &[String], a: &str) -> Finding {
    let mut fix = Fix::text(format!(
        "rebuild with --offload-arch={a} or --offload-arch={} (any mode); the code \
            objects present are {}",
        agent.processor,
        code_objects.join(", ")
    ));
    let co_xnack = code_objects
        .iter()
        .filter_map(|c| crate::isa::TargetId::parse(c).ok())
        .find_map(|c| c.xnack);
    if let (Some(want), Some(have)) = (co_xnack, agent.xnack) {
        if want != have {
            fix.text.push_str(
                "; or switch the GPU's XNACK mode to match the code object \
                (needs a kernel with retry faults enabled, amdgpu.noretry=0)",
            );
            fix = fix.set_env("HSA_XNACK", if want { "1" } else { "0" });
        }
    }
    Finding::fail(format!(
        "{agent}: code objects exist for {} only in another feature mode",
        agent.processor
    ))
    .fix(fix)
}

/// No code object the agent can load: rebuild, or a same-family sibling's override.
fn missing(agent: &TargetId, cands: &[Candidate]) -> Finding {
    let mut fix = Fix::text(format!(
        "rebuild with --offload-arch={} (or add it to \
        AMDGPU_TARGETS / GPU_TARGETS)",
        agent
    ));
    if let Some(sib) = matching::sibling(agent, cands) {
        if let Some(v) = matching::override_value(&sib.processor) {
            fix.text.push_str(&format!(
                "; as a workaround, {} is a same-family sibling of {}: \
                    HSA_OVERRIDE_GFX_VERSION={v} makes the runtime load the {} code \
                    (process-wide: every library must then carry {})",
                agent.processor, sib.processor, sib.processor, sib.processor
            ));
            fix = fix.set_env("HSA_OVERRIDE_GFX_VERSION", v);
        }
    }
    Finding::fail(format!(
        "{agent}: no compatible code object; the runtime fails with \
        hipErrorNoBinaryForGpu / \"invalid device function\""
    ))
    .fix(fix)
}

/// One verdict per Tensile library and target: does it have a catalog and code objects for it?
/// (Each Tensile file is built for one ISA by design, so files are never judged one by one; the
/// per-file counts are evidence.)
pub(crate) fn tensile_against_targets(t: &TensileDir, targets: &[Target]) -> Vec<Finding> {
    let name = t.path.display().to_string();
    let label = t.label();
    if t.is_empty() {
        return vec![
            Finding::fail(format!("{label} in {name} has no TensileLibrary files"))
                .subject(name.clone())
                .fix_text(
                    "install a rocBLAS/hipBLASLt built with Tensile kernels \
                    (BUILD_WITH_TENSILE=ON) for your GPUs",
                ),
        ];
    }
    let covered = t.covered();
    let covers = if covered.is_empty() {
        "nothing".to_string()
    } else {
        covered.join(" ")
    };
    let mut out = Vec::new();
    for tg in targets {
        let p = &tg.target.processor;
        let catalog = t.lazy_isas.contains(p) || t.dat_isas.contains(p) || t.monolithic;
        let carries = if t.code_object_isas.is_empty() {
            "nothing".to_string()
        } else {
            t.code_object_isas
                .iter()
                .cloned()
                .collect::<Vec<_>>()
                .join(", ")
        };
        let files = t.files_by_isa.get(p).copied().unwrap_or(0);
        let detail = format!("{files} files name {p}; catalog: {}", catalog_of(t, p));
        let mut f = verdict_finding(&name, &t.candidates, &carries, tg);
        if catalog && f.status == Status::Pass {
            f.summary = format!("{label} covers {}", tg.target);
        } else if f.status == Status::Fail || !catalog {
            f = tensile_missing(t, tg, catalog);
        }
        f = f
            .evidence(format!("{label} ({name}) covers: {covers}"))
            .evidence(detail);
        out.push(f);
    }
    out
}

/// Which catalog file of a Tensile library names the processor `p`.
fn catalog_of(t: &TensileDir, p: &str) -> String {
    if t.lazy_isas.contains(p) {
        format!("TensileLibrary_lazy_{p}.dat")
    } else if t.dat_isas.contains(p) {
        format!("TensileLibrary*_{p}.dat")
    } else if t.monolithic {
        "TensileLibrary.dat (all ISAs)".into()
    } else {
        "none".into()
    }
}

/// A Tensile library without kernels (or without a catalog, `!catalog`) for a target: what the
/// library will say, and the fix.
fn tensile_missing(t: &TensileDir, tg: &Target, catalog: bool) -> Finding {
    let name = t.path.display().to_string();
    let label = t.label();
    let p = &tg.target.processor;
    if let Some(fb) = crate::packs::builds::fallback_of(&t.component) {
        // A library built for few ISAs whose callers use another where it has no kernels
        // (checks/builds.toml `[[fallback]]`: hipBLASLt, PyTorch's Context.cpp; the
        // `hipblaslt-unsupported-arch` symptom): not a failure of this install.
        return Finding::skip(format!(
            "{label} has no kernels for {p}: {} is not built for every GPU, and where it has \
             none {} uses {} instead (its \"{}\" warning is harmless)",
            fb.name(),
            fb.caller,
            fb.instead,
            fb.warning
        ))
        .subject(format!("{name} on {} ({})", tg.target, tg.source));
    }
    let mut fix = Fix::text(format!(
        "install a {} built for {p} (Tensile architectures / AMDGPU_TARGETS include {p})",
        t.component
    ));
    if let Some(sib) = matching::sibling(&tg.target, &t.candidates) {
        if let Some(v) = matching::override_value(&sib.processor) {
            fix.text.push_str(&format!(
                "; or, for this same-family sibling, HSA_OVERRIDE_GFX_VERSION={v} (use {})",
                sib.processor
            ));
            fix = fix.set_env("HSA_OVERRIDE_GFX_VERSION", v);
        }
    }
    let expect = if catalog {
        "hipErrorNoBinaryForGpu / \"invalid device function\"".to_string()
    } else {
        // rocBLAS prints strerror(errno) of whatever failed last: users report
        // "Illegal seek" (most often) or "No such file or directory".
        format!("\"Cannot read {name}/TensileLibrary.dat: Illegal seek for GPU arch : {p}\"")
    };
    Finding::fail(format!("{label} has no kernels for {p}; expect {expect}"))
        .subject(format!("{name} on {} ({})", tg.target, tg.source))
        .fix(fix)
}

/// Known-issue findings for one inspected file.
pub(crate) fn known_issues_for(
    r: &FileReport,
    extra_flags: &[Flag],
    versions: &BTreeMap<String, String>,
    env: &dyn Fn(&str) -> Option<String>,
    undefined: &[String],
) -> Vec<Finding> {
    known_issues_where(r, extra_flags, versions, env, undefined, &|_| true)
}

/// Known-issue findings for one file, of the issues `keep` selects (`libs.code-objects` leaves
/// the ones the default run judges as `known-issues.*` pack checks).
pub(crate) fn known_issues_where(
    r: &FileReport,
    extra_flags: &[Flag],
    versions: &BTreeMap<String, String>,
    env: &dyn Fn(&str) -> Option<String>,
    undefined: &[String],
    keep: &dyn Fn(&known_issues::Issue) -> bool,
) -> Vec<Finding> {
    let mut flags = known_issues::file_flags(r);
    flags.extend(extra_flags.iter().copied());
    let facts = Facts {
        versions,
        env,
        flags: &flags,
        undefined,
    };
    known_issues::findings_where(&name_of(r), &facts, keep)
}

/// Problems reading the file or its bundles.
pub(crate) fn read_problems(r: &FileReport) -> Vec<Finding> {
    let name = name_of(r);
    let mut out = Vec::new();
    for b in &r.bundles {
        if let Some(e) = &b.error {
            out.push(
                Finding::warn(format!("bundle at 0x{:x} cannot be read: {e}", b.offset))
                    .subject(name.clone())
                    .fix_text(
                        "the runtime will likely reject it too: rebuild the binary; compare \
                        with `clang-offload-bundler --list --type=o --input=<extracted bundle>`",
                    ),
            );
        }
        for e in &b.entries {
            if let Some(m) = &e.mismatch {
                out.push(
                    Finding::warn(format!("entry {} is inconsistent: {m}", e.id))
                        .subject(name.clone())
                        .fix_text(
                            "rebuild the binary with a consistent toolchain; a hand-made or \
                             corrupt bundle",
                        ),
                );
            }
            if let Some(err) = &e.error {
                out.push(
                    Finding::warn(format!("entry {} cannot be read: {err}", e.id))
                        .subject(name.clone())
                        .fix_text("rebuild the binary"),
                );
            }
        }
    }
    if r.kpack_wrappers > 0 {
        out.push(
            Finding::warn(format!(
                "{} fat-binary wrappers use kpack (HIPK): the code objects live in .kpack files, \
                 not in this file",
                r.kpack_wrappers
            ))
            .subject(name)
            .fix_text(
                "inspect the .kpack archives shipped next to the library; they are not read by \
                 this version of the doctor",
            ),
        );
    }
    out
}

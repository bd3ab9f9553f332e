//! `--asm-caps`: Tensile's assembler capability probe (`GetAsmCaps`), with Tensile's exact
//! answers, batched and parallel, and a diagnosis when the answer is "nothing works".
//!
//! Flow: the validated flags ([`Request`], from `RunArgs::config`) -> [`run`]: resolve the assembler
//! ([`assembler`]), pick the ISAs, probe them ([`runner`]), explain failures ([`diagnose`]),
//! compare with `--expect` ([`expect`]) -> findings (`asm.*`) and the answers as one typed value
//! of the report model ([`AsmCaps`]: the `asm_caps` JSON object and the human matrix are both
//! rendered from it). Specification: docs/asm-caps.md.

pub(crate) mod assembler;
pub mod catalog;
pub mod diagnose;
pub(crate) mod expect;
pub mod parse;
pub mod runner;

use crate::checkdoc::CheckId;
use crate::config::Config;
use crate::host::Host;
use crate::inventory::Inventory;
use crate::report::asm_caps::{AsmCaps, IsaCaps};
use crate::report::{Finding, Fix};
use catalog::{Catalog, Compat};
use runner::{IsaResult, Method};
use serde_json::{Map, Value};
use std::path::Path;
use std::time::Instant;

/// The validated `--asm-caps` flags (built by `RunArgs::config`).
pub(crate) type Request = crate::config::AsmRequest;

/// Everything one probe run produced.
pub(crate) struct Outcome {
    /// Each finding with the check it belongs to (`asm.assembler`, `asm.caps`, `asm.expect`):
    /// each of those checks returns its own, and the engine stamps them (`runner::guarded`).
    pub findings: Vec<(CheckId, Finding)>,
    /// The answers: `--json`'s `asm_caps` and the human matrix, from one value.
    pub caps: AsmCaps,
}

/// The ISAs to probe, with whether the user asked for each (vs Tensile's list): `--isa` (and
/// Tensile's list with `--isa tensile`), else every GPU and then the inventory's targets (the one
/// rule: `inventory::targets::pick`). Tensile names ISAs without features (gfxName): the
/// processor is probed.
fn select_isas(cfg: &Config, inv: &Inventory, cat: &Catalog) -> (Vec<String>, Vec<String>) {
    let asked = cfg.isas.iter().map(|id| (id.processor.clone(), true));
    let tensile = cfg
        .isa_tensile
        .then(|| {
            cat.supported_isa
                .iter()
                .chain(std::iter::once(&cat.pseudo_isa))
        })
        .into_iter()
        .flatten()
        .map(|g| (g.clone(), false));
    let fallback = std::iter::once_with(|| {
        let agents = inv.gpu().agents.iter().filter_map(|a| a.gfx.clone());
        let others = inv.targets().isas.iter().map(|t| t.isa.processor.clone());
        agents.chain(others).map(|g| (g, true)).collect()
    });
    let picked = crate::inventory::targets::pick(
        std::iter::once(asked.chain(tensile).collect()).chain(fallback),
        |(g, _): &(String, bool)| g.clone(),
        false,
    );
    let explicit = picked
        .isas
        .iter()
        .filter(|(_, asked)| *asked)
        .map(|(g, _)| g.clone())
        .collect();
    (picked.isas.into_iter().map(|(g, _)| g).collect(), explicit)
}

/// Runs the whole probe against this machine.
/// Runs the probe with the run's shared inventory (each tool is asked once per run).
pub(crate) fn run(host: &Host, cfg: &Config, inv: &Inventory, req: &Request) -> Outcome {
    let start = Instant::now();
    let cat = catalog::catalog(req.compat);
    let mut findings = Vec::new();
    let core_clang = cfg
        .clang
        .clone()
        .or_else(|| inv.clang().map(|c| c.path.clone()));
    let resolved = assembler::resolve(
        host,
        req.compat,
        req.assembler.as_deref(),
        core_clang.as_deref(),
    );
    let (isas, explicit) = select_isas(cfg, inv, cat);
    // Another root's assembler cannot run on this host, or is not run: say so once, probe
    // nothing (with no assembler found, that is said below, from the files).
    if let Some(f) = not_run_here(inv, resolved.is_ok()) {
        findings.push((CheckId::AsmAssembler, f));
        return Outcome::nothing_probed(findings, String::new());
    }
    let title = |asm: &str, n: usize, calls: usize| {
        format!(
            "Tensile asm caps ({} Tensile, {}), assembler {asm}: {n} ISAs, {calls} calls, {:.2} s",
            req.compat.as_str(),
            if req.serial { "serial" } else { "batched" },
            start.elapsed().as_secs_f64()
        )
    };
    let asm = match resolved {
        Err(steps) => {
            findings.push((CheckId::AsmAssembler, no_assembler(steps)));
            return Outcome::nothing_probed(findings, title("(none)", 0, 0));
        }
        Ok(r) => r,
    };
    findings.push((CheckId::AsmAssembler, assembler_finding(host, req, &asm)));

    if isas.is_empty() {
        findings.push((
            CheckId::AsmCaps,
            Finding::skip("no ISA to probe: no --isa and no GPU").fix(Fix::text(
                "Pass --isa gfx1030 (repeatable) or --isa tensile for Tensile's list.",
            )),
        ));
        return Outcome::nothing_probed(findings, title(&asm.path.display().to_string(), 0, 0));
    }

    let results = runner::probe_all(host, &asm.path, cat, &isas, req.serial);
    let calls: usize = results.iter().map(|r| r.calls).sum();
    findings.extend(
        caps_findings(&results)
            .into_iter()
            .map(|f| (CheckId::AsmCaps, f)),
    );
    let cx = diagnose::Context {
        host,
        asm: &asm.path,
        explicit: &explicit,
        pseudo_isa: &cat.pseudo_isa,
    };
    for f in diagnose::findings(&cx, &results) {
        findings.push((CheckId::AsmCaps, f));
    }

    let caps = caps_of(
        title(&asm.path.display().to_string(), results.len(), calls),
        &results,
    );
    if let Some((path, expected)) = &req.expect {
        let actual = caps.to_json().as_object().cloned().unwrap_or_default();
        findings.push((CheckId::AsmExpect, expect_finding(path, expected, &actual)));
    }
    Outcome { findings, caps }
}

/// The answers of the probed ISAs, under `title`.
fn caps_of(title: String, results: &[IsaResult]) -> AsmCaps {
    AsmCaps {
        title,
        probed: true,
        isas: results
            .iter()
            .map(|r| IsaCaps {
                isa: r.isa.clone(),
                values: r.values.clone(),
            })
            .collect(),
    }
}

/// Another root's assembler cannot run on this host, or is not run: said once, nothing is
/// probed (with no assembler found, that is said by the caller, from the files).
fn not_run_here(inv: &Inventory, assembler_found: bool) -> Option<Finding> {
    let refused = assembler_found
        .then(|| inv.host.root_programs_refused())
        .flatten();
    let e = refused.or_else(|| inv.cannot_run_here())?;
    let why = match inv.host.root_programs_refused() {
        Some(_) => "programs of a foreign root are not executed",
        None => "this root's programs cannot run on this host",
    };
    Some(
        Finding::skip(format!(
            "not run: {why} ({})",
            CheckId::ToolchainClang.see()
        ))
        .evidence(e.to_string()),
    )
}

/// Neither Tensile's search nor the fallbacks found an assembler (`steps`: what was tried).
fn no_assembler(steps: Vec<String>) -> Finding {
    Finding::fail("no assembler found: Tensile would find none either")
        .evidence_lines(steps)
        .fix(Fix::text(
            "Install a clang with the AMDGPU target (ROCm's llvm, or \
            Debian's clang-N with lld-N) and point TENSILE_ROCM_ASSEMBLER_PATH (or \
            rocm-doctor's --assembler) at its clang++.",
        ))
}

impl Outcome {
    /// A run that stopped before probing: its findings and the matrix title (if any).
    fn nothing_probed(findings: Vec<(CheckId, Finding)>, title: String) -> Outcome {
        Outcome {
            findings,
            caps: AsmCaps::not_probed(title),
        }
    }
}

/// Whether Tensile would pick the assembler the probe uses, and what to set when not.
fn assembler_finding(host: &Host, req: &Request, asm: &assembler::Resolved) -> Finding {
    let from_env = host
        .env
        .get_nonempty("TENSILE_ROCM_ASSEMBLER_PATH")
        .is_some()
        && asm.how.starts_with("TENSILE_ROCM_ASSEMBLER_PATH");
    let mut af = if asm.tensile_picks_it {
        Finding::pass(format!("assembler {} ({})", asm.path.display(), asm.how))
    } else if from_env {
        // The variable is set, but the emulated (current) Tensile no longer reads it: asking to
        // set it again would be no help.
        Finding::warn(format!(
            "TENSILE_ROCM_ASSEMBLER_PATH is set, but current Tensile no longer \
            reads it; probing {} as Tensile ≤ rocm-6.3 would",
            asm.path.display()
        ))
        .fix(Fix::text(format!(
            "For current Tensile pass the assembler on its command line (--assembler {}); for \
                    Tensile of rocm-6.2/6.3 the variable works (rocm-doctor --tensile-compat 6.2 \
                    emulates it).",
            asm.path.display()
        )))
    } else {
        Finding::warn(format!(
            "Tensile would not find an assembler here; probing {} ({})",
            asm.path.display(),
            asm.how
        ))
        .fix(
            Fix::text(
                "Tell Tensile which assembler to use: TENSILE_ROCM_ASSEMBLER_PATH (Tensile \
                ≤ rocm-6.3) or --assembler (current Tensile).",
            )
            .set_env("TENSILE_ROCM_ASSEMBLER_PATH", asm.path.to_string_lossy()),
        )
    };
    af = af.evidence_lines(asm.steps.iter().cloned());
    let base = asm
        .path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    if req.compat == Compat::Current && !assembler::TENSILE_NAMES.contains(&base.as_str()) {
        af = af.evidence(format!(
            "current Tensile's validateToolchain rejects the name `{base}` (it accepts {})",
            assembler::TENSILE_NAMES.join(", ")
        ));
    }
    af
}

/// The probe's own findings (unstamped): the ISAs supported, with calls and keys per ISA;
/// an ISA that could not be set up; a probe that timed out.
fn caps_findings(results: &[IsaResult]) -> Vec<Finding> {
    let mut findings = Vec::new();
    let supported: Vec<&IsaResult> = results.iter().filter(|r| r.supported()).collect();
    if !supported.is_empty() {
        let names: Vec<&str> = supported.iter().map(|r| r.isa.as_str()).collect();
        let mut f = Finding::pass(format!(
            "{} of {} ISAs supported: {}",
            supported.len(),
            results.len(),
            names.join(" ")
        ));
        for r in results {
            let trues = r
                .values
                .iter()
                .filter(|(_, v)| matches!(v, catalog::Value::Bool(true)))
                .count();
            let how = match &r.method {
                Method::Serial => "serial".to_string(),
                Method::Batched { fallback: None } => "batched".to_string(),
                Method::Batched { fallback: Some(w) } => {
                    format!("batched, then one call per snippet because {w}")
                }
            };
            f = f.evidence(format!(
                "{}: {} calls ({how}), {trues} keys true",
                r.isa, r.calls
            ));
        }
        findings.push(f);
    }
    for r in results.iter().filter(|r| r.setup_error.is_some()) {
        findings.push(
            Finding::error(format!(
                "could not probe {}: {}",
                r.isa,
                r.setup_error.clone().unwrap_or_default()
            ))
            .fix(Fix::text(
                "Make TMPDIR (or /tmp) writable; rocm-doctor runs the assembler in \
                    a private directory there.",
            )),
        );
    }
    for r in results.iter().filter(|r| r.timed_out && r.supported()) {
        findings.push(
            Finding::error(format!(
                "a probe for {} timed out: its answers are incomplete",
                r.isa
            ))
            .fix(Fix::text(
                "Raise --timeout, or run with -v and repeat the command shown by hand.",
            )),
        );
    }
    findings
}

/// `--expect`: this run's capabilities against the expected file, the differing keys named.
fn expect_finding(
    path: &Path,
    expected: &Map<String, Value>,
    actual: &Map<String, Value>,
) -> Finding {
    let diff = expect::compare(expected, actual);
    if diff.is_empty() {
        Finding::pass(format!("identical to {}", path.display()))
    } else {
        // The differing keys are the point of --expect: name them in the summary.
        let keys: Vec<&str> = diff
            .iter()
            .map(|d| d.split(':').next().unwrap_or(d))
            .collect();
        let shown = if keys.len() > 12 {
            format!("{} ...", keys[..12].join(", "))
        } else {
            keys.join(", ")
        };
        Finding::fail(format!(
            "{} differences from {}: {shown}",
            diff.len(),
            path.display()
        ))
        .evidence_lines(diff.iter().cloned())
        .fix(Fix::text(format!(
            "The toolchain's capabilities changed: find which assembler or ISA changed \
                ({}), or refresh the expected file from this run's --json `asm_caps`.",
            CheckId::AsmAssembler.see()
        )))
    }
}

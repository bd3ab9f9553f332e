//! `targets.isa`: the ISAs the toolchain is judged for, where they came from, and whether this
//! clang and these device libraries know them.

use super::{CheckFn, CheckId, Ctx};
use crate::inventory::clang::ClangInfo;
use crate::inventory::targets::{Rejected, TargetIsa, TEXT_SOURCE};
use crate::report::{Finding, Fix};

pub(crate) const CHECKS: &[(CheckId, CheckFn)] = &[(CheckId::TargetsIsa, isa)];

fn isa(ctx: &Ctx) -> Vec<Finding> {
    let t = ctx.inv.targets();
    let mut out: Vec<Finding> = t.rejected.iter().map(rejected).collect();
    if t.isas.is_empty() {
        out.push(Finding::skip(
            "no target ISA: give --isa, set AMDGPU_TARGETS/GPU_TARGETS, or run \
            on a machine with a GPU",
        ));
        return out;
    }
    let clang = ctx.inv.clang();
    // Asked only when the judged clang rejects a processor: do the other clangs here know it?
    let others = std::cell::OnceCell::new();
    for ti in &t.isas {
        let subject = ti.isa.to_string();
        let known_to_clang = clang.map(|c| c.amdgpu_processors.contains(&ti.isa.processor));
        let mut f = match (known_to_clang, clang) {
            (Some(false), Some(c)) if c.amdgpu_registered => {
                unknown_to_clang(ti, c, others.get_or_init(|| other_clangs(ctx, c)))
            }
            _ if ti.isa.info().is_none() => Finding::warn(format!(
                "{} is not a processor rocm-doctor knows",
                ti.isa.processor
            ))
            .fix(Fix::text(
                "Check the spelling against `clang --target=amdgcn-amd-amdhsa -nogpulib \
                -print-supported-cpus`.",
            )),
            _ => Finding::pass(format!("target {} (from {})", ti.isa, ti.source)),
        };
        f = f
            .subject(subject)
            .evidence(format!("source: {}", ti.source));
        out.push(f);
    }
    let gpu_findings = build_targets_vs_gpus(ctx);
    let judged_gpus = !gpu_findings.is_empty();
    out.extend(gpu_findings);
    // GPUs behind environment targets are judged above; other sources are only listed.
    let also: Vec<_> = t
        .also
        .iter()
        .filter(|x| !(judged_gpus && x.source.starts_with("agent ")))
        .collect();
    if !also.is_empty() {
        out.push(Finding::pass(format!(
            "also named elsewhere (not used): {}",
            also.iter()
                .map(|x| format!("{} ({})", x.isa, x.source))
                .collect::<Vec<_>>()
                .join(", ")
        )));
    }
    out
}

/// A target the environment or the build names that is no ISA at all.
fn rejected(r: &Rejected) -> Finding {
    Finding::warn(format!("{} holds an invalid ISA '{}'", r.source, r.value))
        .subject(r.source.clone())
        .evidence(r.reason.clone())
        .fix(Fix::text(if r.source == TEXT_SOURCE {
            format!(
                "The build asked for '{}', which is not a processor name: use names \
                such as gfx90a or gfx1030 (clang --target=amdgcn-amd-amdhsa -nogpulib \
                -print-supported-cpus lists them), optionally with :xnack+/- or \
                :sramecc+/-.",
                r.value
            )
        } else {
            format!(
                "{} takes processor names such as gfx90a or gfx1030, separated by ';' \
                (CMake) or ',' (PyTorch), optionally with :xnack+/- or :sramecc+/-.",
                r.source
            )
        }))
}

/// The judged clang `c` does not know the target's processor: which of the `others` do.
fn unknown_to_clang(ti: &TargetIsa, c: &ClangInfo, others: &[OtherClang]) -> Finding {
    let p = &ti.isa.processor;
    let knowing: Vec<&OtherClang> = others.iter().filter(|o| o.processors.contains(p)).collect();
    let first = ti
        .isa
        .info()
        .map(|i| i.llvm.to_string())
        .unwrap_or_default();
    let from = if ti.source == TEXT_SOURCE {
        "the build's targets (--offload-arch, AMDGPU_TARGETS, GPU_TARGETS)"
    } else {
        ti.source.as_str()
    };
    let this = format!(
        "clang {} ({})",
        c.version.as_deref().unwrap_or("?"),
        c.path.display()
    );
    let (summary, fix) = match knowing.first() {
        Some(o) => (
            format!(
                "{this} does not know {p}; clang {} at {} does",
                o.version,
                o.path.display()
            ),
            format!(
                "Build with the clang that knows {p}: --clang {} (for CMake: \
                CMAKE_HIP_COMPILER={}), or remove {p} from {from}.",
                o.path.display(),
                o.path.display()
            ),
        ),
        None => (
            format!(
                "{this} does not know {p}{}",
                if others.is_empty() {
                    String::new()
                } else {
                    "; no other clang here does".into()
                }
            ),
            match ti.isa.info() {
                Some(_) => format!(
                    "Use a clang that knows {p} (first in LLVM {first} \
                    per checks/isa.toml), or remove it from {from}."
                ),
                None => format!(
                    "{p} is not in rocm-doctor's processor table either \
                    (checks/isa.toml): check the spelling against `clang \
                    --target=amdgcn-amd-amdhsa -nogpulib -print-supported-cpus`, or \
                    remove it from {from}."
                ),
            },
        ),
    };
    let mut f = Finding::fail(summary).fix(Fix::text(fix));
    for o in others {
        f = f.evidence(format!(
            "clang {} at {} {} {p}",
            o.version,
            o.path.display(),
            if o.processors.contains(p) {
                "knows"
            } else {
                "does not know"
            }
        ));
    }
    f
}

/// Another clang found on the machine and the processors its AMDGPU backend lists.
struct OtherClang {
    path: std::path::PathBuf,
    version: String,
    processors: Vec<String>,
}

/// The clangs the inventory found beside the judged one (at most 4 distinct binaries), each
/// asked `-print-supported-cpus` through `Host::run`; those that cannot answer are left out.
fn other_clangs(ctx: &Ctx, judged: &crate::inventory::clang::ClangInfo) -> Vec<OtherClang> {
    use crate::inventory::clang::parse_supported_cpus;
    let fs = &ctx.host.fs;
    let mut seen: Vec<std::path::PathBuf> = judged.real_path.iter().cloned().collect();
    let mut out = Vec::new();
    for (path, _) in &judged.others {
        let real = fs.canonicalize(path).unwrap_or_else(|_| path.clone());
        if seen.contains(&real) || out.len() >= 4 {
            continue;
        }
        seen.push(real);
        let spec = crate::host::CommandSpec::new(path).args([
            "--target=amdgcn-amd-amdhsa",
            "-nogpulib",
            "-print-supported-cpus",
        ]);
        let r = ctx.host.run(&spec);
        let text = r.combined_text();
        let processors = parse_supported_cpus(&text);
        if !r.success() || processors.is_empty() {
            continue;
        }
        out.push(OtherClang {
            path: path.clone(),
            version: crate::inventory::versions::parse_clang_version(&text)
                .unwrap_or_else(|| "?".into()),
            processors,
        });
    }
    out
}

/// Build targets from the environment (`AMDGPU_TARGETS` & co.) must cover every visible GPU:
/// a GPU whose ISA they miss cannot run what that build produces. Judged with the runtime's
/// target-id rules (features, generic targets), as `inspect` judges code objects.
fn build_targets_vs_gpus(ctx: &Ctx) -> Vec<Finding> {
    use crate::binfacts::file::Candidate;
    use crate::binfacts::matching;
    let t = ctx.inv.targets();
    let Some(source) = t
        .isas
        .first()
        .map(|ti| ti.source.clone())
        .filter(|s| crate::inventory::targets::ENV_SOURCES.contains(&s.as_str()))
    else {
        return Vec::new();
    };
    let cands: Vec<Candidate> = t
        .isas
        .iter()
        .map(|ti| Candidate {
            target: ti.isa.clone(),
            generic_version: ti.isa.info().filter(|p| p.is_generic).map(|_| 1),
        })
        .collect();
    let list: Vec<String> = t.isas.iter().map(|ti| ti.isa.to_string()).collect();
    let runtime = ctx.cfg.profile == crate::config::Profile::Runtime;
    let agents: Vec<_> = t
        .also
        .iter()
        .filter(|a| a.source.starts_with("agent "))
        .collect();
    // One value that covers every GPU the list misses.
    let mut wanted = list.clone();
    for a in &agents {
        if !matching::judge(&a.isa, &cands).ok() && !wanted.contains(&a.isa.processor) {
            wanted.push(a.isa.processor.clone());
        }
    }
    let mut out = Vec::new();
    for agent in agents {
        if matching::judge(&agent.isa, &cands).ok() {
            out.push(
                Finding::pass(format!(
                    "{source} covers the GPU {} ({})",
                    agent.isa, agent.source
                ))
                .subject(agent.isa.to_string()),
            );
            continue;
        }
        let summary = format!(
            "{source} lacks {} ({}): what this build produces will not run on that GPU \
                (hipErrorNoBinaryForGpu)",
            agent.isa, agent.source
        );
        let mut fix = Fix::text(format!("Add {} to {source}.", agent.isa.processor))
            // CMake lists and PYTORCH_ROCM_ARCH both take `;`.
            .set_env(source.clone(), wanted.join(";"));
        if let Some(sib) = matching::sibling(&agent.isa, &cands) {
            if let Some(v) = matching::override_value(&sib.processor) {
                fix.text.push_str(&format!(
                    " Or, as a workaround, run {} code on this same-family GPU with \
                        HSA_OVERRIDE_GFX_VERSION={v} (process-wide).",
                    sib.processor
                ));
            }
        }
        let f = if runtime {
            Finding::fail(summary)
        } else {
            Finding::warn(summary)
        };
        out.push(
            f.subject(agent.isa.to_string())
                .evidence(format!("{source}: {}", list.join(";")))
                .evidence(format!("GPU: {} from {}", agent.isa, agent.source))
                .fix(fix),
        );
    }
    out
}

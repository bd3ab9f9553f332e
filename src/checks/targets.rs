//! `targets.isa`: the ISAs the toolchain is judged for, where they came from, and whether this
//! clang and these device libraries know them.

use super::{CheckFn, Ctx};
use crate::report::{Finding, Fix};

pub const CHECKS: &[(&str, CheckFn)] = &[("targets.isa", isa)];

fn isa(ctx: &Ctx) -> Vec<Finding> {
    let t = ctx.inv.targets();
    let mut out = Vec::new();
    for r in &t.rejected {
        out.push(
            Finding::warn(format!("{} holds an invalid ISA '{}'", r.source, r.value))
                .subject(r.source.clone())
                .evidence(r.reason.clone())
                .fix(Fix::text(format!("{} takes processor names such as gfx90a or gfx1030, separated by ';' (CMake) or ',' (PyTorch), optionally with :xnack+/- or :sramecc+/-.", r.source))),
        );
    }
    if t.isas.is_empty() {
        out.push(Finding::skip("no target ISA: give --isa, set AMDGPU_TARGETS/GPU_TARGETS, or run on a machine with a GPU"));
        return out;
    }
    let clang = ctx.inv.clang();
    for ti in &t.isas {
        let subject = ti.isa.to_string();
        let known_to_clang = clang.map(|c| c.amdgpu_processors.contains(&ti.isa.processor));
        let mut f = match (known_to_clang, clang) {
            (Some(false), Some(c)) if c.amdgpu_registered => Finding::fail(format!("clang {} does not know {}", c.version.as_deref().unwrap_or("?"), ti.isa.processor))
                .fix(Fix::text(format!(
                    "Use a clang that knows {} (first in LLVM {} per checks/isa.toml), or remove it from {}.",
                    ti.isa.processor,
                    ti.isa.info().map(|p| p.llvm.to_string()).unwrap_or_else(|| "?".into()),
                    ti.source
                ))),
            _ if ti.isa.info().is_none() => Finding::warn(format!("{} is not a processor rocm-doctor knows", ti.isa.processor)).fix(Fix::text("Check the spelling against `clang --target=amdgcn-amd-amdhsa -nogpulib -print-supported-cpus`.")),
            _ => Finding::pass(format!("target {} (from {})", ti.isa, ti.source)),
        };
        f = f
            .subject(subject)
            .evidence(format!("source: {}", ti.source));
        out.push(f);
    }
    if !t.also.is_empty() {
        out.push(Finding::pass(format!(
            "also named elsewhere (not used): {}",
            t.also
                .iter()
                .map(|x| format!("{} ({})", x.isa, x.source))
                .collect::<Vec<_>>()
                .join(", ")
        )));
    }
    out
}

//! Toolchain checks: ROCm roots, env, clang, resource dir, device libs, lld, link step, HIP
//! compile, runtime libraries, target ISAs.
use super::{CheckFn, Ctx};
use crate::report::Finding;

pub const CHECKS: &[(&str, CheckFn)] = &[("toolchain.rocm-root", rocm_root)];

fn rocm_root(ctx: &Ctx) -> Vec<Finding> {
    let roots = ctx.inv.roots();
    if roots.is_empty() {
        return vec![Finding::fail("no ROCm installation found").fix_text("install ROCm or set ROCM_PATH")];
    }
    vec![Finding::pass(format!("ROCm root {}", roots[0].path.display()))]
}

//! Toolchain checks: ROCm roots, env, versions, clang, resource dir, device libs, lld, the
//! link step and a HIP compile.

mod clang;
mod compile;
mod devicelibs;
mod env;
mod link;
mod roots;

use super::CheckFn;

pub const CHECKS: &[(&str, CheckFn)] = &[
    ("toolchain.rocm-root", roots::rocm_root),
    ("toolchain.env", env::env_vars),
    ("toolchain.versions", roots::versions),
    ("toolchain.clang", clang::clang),
    ("toolchain.resource-dir", clang::resource_dir),
    ("toolchain.device-libs", devicelibs::device_libs),
    ("toolchain.lld", link::lld),
    ("toolchain.link", link::link_step),
    ("toolchain.hip-compile", compile::hip_compile),
];

use crate::report::Finding;

/// The finding a check returns when the clang it needs is missing (toolchain.clang reports why).
pub(crate) fn no_clang() -> Finding {
    Finding::skip("no clang to check with (see toolchain.clang)")
}

//! Toolchain checks: ROCm roots, env, versions, clang, resource dir, device libs, lld, the
//! link step and a HIP compile.

mod clang;
mod compile;
mod devicelibs;
mod env;
mod link;
mod roots;

use super::{CheckFn, CheckId};

pub(crate) const CHECKS: &[(CheckId, CheckFn)] = &[
    (CheckId::ToolchainRocmRoot, roots::rocm_root),
    (CheckId::ToolchainEnv, env::env_vars),
    (CheckId::ToolchainVersions, roots::versions),
    (CheckId::ToolchainClang, clang::clang),
    (CheckId::ToolchainResourceDir, clang::resource_dir),
    (CheckId::ToolchainDeviceLibs, devicelibs::device_libs),
    (CheckId::ToolchainLld, link::lld),
    (CheckId::ToolchainLink, link::link_step),
    (CheckId::ToolchainHipCompile, compile::hip_compile),
];

use crate::report::Finding;

/// The finding a check returns when the clang it needs is missing (toolchain.clang reports why).
pub(crate) fn no_clang() -> Finding {
    Finding::skip(format!(
        "no clang to check with ({})",
        CheckId::ToolchainClang.see()
    ))
}

/// With `--sysroot` on a root whose programs cannot run on this host: the checks that run them
/// skip, once explained by `toolchain.clang`, instead of failing in a cascade.
pub(crate) fn foreign_skip(ctx: &crate::checks::Ctx) -> Option<Finding> {
    ctx.inv.cannot_run_here()?;
    if ctx.host.root_programs_refused().is_some() {
        return Some(Finding::skip(format!(
            "not run: programs of a foreign root are not executed ({})",
            CheckId::ToolchainClang.see()
        )));
    }
    Some(Finding::skip(format!(
        "not run: this root's programs cannot run on this host ({})",
        CheckId::ToolchainClang.see()
    )))
}

/// The toolchain.clang finding for such a root: the loader error once, and the way that works;
/// for a `--sysroot` whose programs are not run (issue 25, item 3), why, and what its clang is
/// from its files.
pub(crate) fn foreign_root_finding(ctx: &crate::checks::Ctx, error: &str) -> Finding {
    if let Some(why) = ctx.host.root_programs_refused() {
        let mut f = Finding::skip(format!("not run: {why}"));
        if let Some(c) = ctx.inv.clang() {
            f = f.evidence(format!(
                "clang found: {} (chosen by: {})",
                c.path.display(),
                c.source
            ));
            if let Some(r) = c.real_path.as_ref().filter(|r| **r != c.path) {
                f = f.evidence(format!("resolves to {} (inside the root)", r.display()));
            }
            if let Some(m) = c.binary.as_deref().and_then(|b| elf_machine(ctx, b)) {
                f = f.evidence(format!("its binary is an ELF file for {m}"));
            }
        }
        return f.evidence(
            "files are still judged (roots, versions, bitcode, libraries and their code objects)",
        );
    }
    let root: std::path::PathBuf = ctx
        .host
        .fs
        .host_path(std::path::Path::new("/"))
        .components()
        .collect();
    Finding::skip(format!(
        "the programs of {} cannot run on this host; to judge its toolchain, run the doctor inside \
            it: chroot {} rocm-doctor",
        root.display(),
        root.display()
    ))
    .evidence(error.to_string())
    .evidence("files are still judged (roots, versions, bitcode, libraries and their code objects)")
}

/// The machine of an ELF file of the root (from its header, never by running it).
fn elf_machine(ctx: &crate::checks::Ctx, p: &std::path::Path) -> Option<String> {
    use std::io::Read;
    let mut head = Vec::new();
    ctx.host
        .fs
        .open(p)
        .ok()?
        .take(64)
        .read_to_end(&mut head)
        .ok()?;
    crate::codeobj::elf::machine(&head).map(crate::codeobj::elf::machine_name)
}

//! `toolchain.lld` and `toolchain.link`: the amdgcn link step Tensile's probe and every HIP
//! device link depend on.
//!
//! Facts (shared/reference/tensile-asm-caps.md §10): clang runs `ld.lld` for
//! `-target amdgcn-amdhsa` without `-c`, found by that exact name in the clang binary's own
//! directory, then on PATH (Debian's versioned `ld.lld-15` is not found); Debian's clang-15
//! does not depend on lld-15. The HIP device link runs `lld -flavor gnu` from the same place.

use crate::checks::{CheckId, Ctx};
use crate::diag::ProblemKind;
use crate::host::CommandSpec;
use crate::inventory::clang::ClangInfo;
use crate::report::{Finding, Fix};
use std::path::{Path, PathBuf};

/// The directory clang looks in first for its tools: the real binary's.
fn clang_bin_dir(ctx: &Ctx, c: &ClangInfo) -> Option<PathBuf> {
    let b = c.binary.as_deref()?;
    let real = ctx
        .host
        .fs
        .canonicalize(b)
        .unwrap_or_else(|_| b.to_path_buf());
    real.parent().map(Path::to_path_buf)
}

fn lld_package_hint(c: &ClangInfo) -> String {
    match c.major() {
        Some(m) => format!("sudo apt install lld-{m}"),
        None => "install lld from the same LLVM release as clang".into(),
    }
}

pub(crate) fn lld(ctx: &Ctx) -> Vec<Finding> {
    let Some(c) = ctx.inv.clang() else {
        return vec![super::no_clang()];
    };
    let host = ctx.host;
    let mut evidence = Vec::new();
    let own = clang_bin_dir(ctx, c)
        .map(|d| d.join("ld.lld"))
        .filter(|p| crate::host::is_executable_at(host, p));
    let on_path = host.which("ld.lld");
    let found = own.clone().or(on_path.clone());
    match (&own, &on_path) {
        (Some(p), _) => evidence.push(format!("ld.lld next to clang: {}", p.display())),
        (None, Some(p)) => evidence.push(format!(
            "ld.lld from PATH: {} (none next to clang)",
            p.display()
        )),
        _ => evidence.push(format!(
            "no ld.lld in {} nor on PATH",
            clang_bin_dir(ctx, c)
                .map(|d| d.display().to_string())
                .unwrap_or_else(|| "clang's directory".into())
        )),
    }
    let view = ctx.inv.hip_driver();
    let device_linker_ok = match &view.device_linker {
        Some(p) => {
            let ok = crate::host::is_executable_at(host, p);
            evidence.push(format!(
                "HIP device link runs {} ({})",
                p.display(),
                if ok { "present" } else { "missing" }
            ));
            ok
        }
        None => true,
    };
    let f =
        if found.is_none() {
            Finding::fail("no ld.lld for amdgcn links: every Tensile ISA probe and every `-x \
            assembler` link fails")
            .fix(Fix::text(
                "Install lld of the same LLVM release as clang; clang looks for the exact name \
                    `ld.lld` next to itself, then on PATH (a versioned ld.lld-N is not found). \
                    Debian's clang-N package does not pull lld-N in.",
            )
            .command(lld_package_hint(c)))
        } else if !device_linker_ok {
            Finding::fail("the HIP device linker clang runs is missing").fix(
                Fix::text("Install lld of the same release as clang.").command(lld_package_hint(c)),
            )
        } else if own.is_none() {
            Finding::warn(format!(
                "ld.lld is taken from PATH ({}), not from clang's own release",
                on_path
                    .as_ref()
                    .map(|p| p.display().to_string())
                    .unwrap_or_default()
            ))
            .fix(
                Fix::text(
                    "It works while that ld.lld understands this clang's objects; install \
                the matching lld to be safe.",
                )
                .command(lld_package_hint(c)),
            )
        } else {
            Finding::pass(format!(
                "ld.lld {}",
                found
                    .as_ref()
                    .map(|p| p.display().to_string())
                    .unwrap_or_default()
            ))
        };
    vec![f.evidence_lines(evidence)]
}

/// Tensile's argv (Common.py tryAssembler): no -c, so clang assembles and links a.out, in a
/// fresh temp dir.
fn run_link(ctx: &Ctx, clang: &Path, isa: &str) -> Result<crate::host::RunOutput, String> {
    let dir = ctx
        .host
        .scratch_dir("link")
        .map_err(|e| format!("no temp dir: {e}"))?;
    let cmd = CommandSpec::new(clang)
        .args(["-x", "assembler", "-target", "amdgcn-amdhsa"])
        .arg(format!("-mcpu={isa}"))
        .arg("-")
        .stdin(Vec::new())
        .cwd(&dir);
    Ok(ctx.host.run(&cmd))
}

/// The ISA the probe links for: the first target clang knows, else gfx900.
fn link_isa(ctx: &Ctx, known: Option<&[String]>) -> String {
    ctx.inv
        .targets()
        .isas
        .iter()
        .map(|t| t.isa.processor.clone())
        .find(|p| known.is_none_or(|k| k.contains(p)))
        .unwrap_or_else(|| "gfx900".into())
}

pub(crate) fn link_step(ctx: &Ctx) -> Vec<Finding> {
    // On this machine's own root the link is the critical path of a run (three programs one
    // after the other): it starts on the chosen clang at once, beside the clang probes, for the
    // ISA it will most likely need. It is used only when the probes then pick the same ISA and
    // find the AMDGPU backend, so the verdict is the one a link started afterwards would give.
    // Decision (issue 20): not under --sysroot nor --host-root, whose programs may not run here.
    let early = ctx.host.fs.is_own_machine().then(|| {
        ctx.inv
            .clang_choice()
            .map(|c| (c.path.clone(), link_isa(ctx, None)))
    });
    std::thread::scope(|s| {
        let early = early.flatten().map(|(path, isa)| {
            let probe_isa = isa.clone();
            let h = s.spawn(move || run_link(ctx, &path, &probe_isa));
            (h, isa)
        });
        judge_link(ctx, early)
    })
}

type EarlyLink<'s> = (
    std::thread::ScopedJoinHandle<'s, Result<crate::host::RunOutput, String>>,
    String,
);

fn judge_link(ctx: &Ctx, early: Option<EarlyLink<'_>>) -> Vec<Finding> {
    if let Some(f) = super::foreign_skip(ctx) {
        return vec![f];
    }
    let Some(c) = ctx.inv.clang() else {
        return vec![super::no_clang()];
    };
    if !c.amdgpu_registered {
        return vec![Finding::skip(format!(
            "clang has no AMDGPU backend ({})",
            CheckId::ToolchainClang.see()
        ))];
    }
    let isa = link_isa(ctx, Some(&c.amdgpu_processors));
    let early = early
        .filter(|(_, i)| *i == isa)
        .and_then(|(h, _)| h.join().ok());
    let out = match early.unwrap_or_else(|| run_link(ctx, &c.path, &isa)) {
        Ok(o) => o,
        Err(e) => return vec![Finding::error(e)],
    };
    let text = out.combined_text();
    let ev = format!(
        "$ {} < /dev/null  (in a temp dir; {})",
        out.command,
        out.outcome()
    );
    if out.timed_out {
        return vec![Finding::error("the link probe timed out")
            .evidence(ev)
            .fix(Fix::text(
                "clang or the linker hangs; run the command by hand to see why.",
            ))];
    }
    if out.success() && text.trim().is_empty() {
        return vec![
            Finding::pass(format!("amdgcn link works ({isa}, like Tensile's probe)")).evidence(ev),
        ];
    }
    let problems = crate::diag::classify(&text);
    let mut f = match problems.first().map(|p| &p.kind) {
        Some(ProblemKind::IncompatibleLibrary { library, .. }) => {
            incompatible_library(ctx, c, library)
        }
        Some(ProblemKind::ExecutableNotFound { name }) => Finding::fail(format!(
            "clang cannot run \
            {name} for the amdgcn link"
        ))
        .fix(
            Fix::text(format!(
                "Install lld of the same release as clang (clang looks for `{name}` \
                next to itself, then on PATH)."
            ))
            .command(lld_package_hint(c)),
        ),
        Some(ProblemKind::InvalidTargetId { .. } | ProblemKind::UnknownTargetCpu { .. }) => {
            Finding::fail(format!("clang does not know {isa}"))
                .fix(Fix::text("Use a newer clang that knows this ISA."))
        }
        _ => Finding::fail("the amdgcn link fails").fix(Fix::text(
            "Read the linker output below; run the command by hand with -v to see the link line.",
        )),
    };
    f = f.evidence(ev).evidence(out.tail(8));
    vec![f]
}

/// The amdgcn link pulls in a host library: where the flags that add it come from, and the
/// unwrapped clang to give Tensile.
fn incompatible_library(ctx: &Ctx, c: &ClangInfo, library: &Path) -> Finding {
    let inj = crate::diag::link::explain_incompatible(ctx.host, &c.path, library);
    let machine = inj
        .elf_machine
        .clone()
        .unwrap_or_else(|| "not an ELF file".into());
    let mut fix = Fix::text(format!(
        "{} is a host library ({machine}), not an amdgcn one; something adds it to every \
            link, so Tensile concludes no ISA is supported. Compile GPU code with the \
            unwrapped clang, or drop the injected -L/-l flags{}.",
        library.display(),
        if inj.origins.is_empty() {
            ""
        } else {
            " (see where they come from above)"
        }
    ));
    if let Some(real) = inj
        .unwrapped
        .clone()
        .or_else(|| c.binary.clone().filter(|_| c.is_script))
    {
        fix = fix.set_env("TENSILE_ROCM_ASSEMBLER_PATH", real.display().to_string());
    }
    Finding::fail(format!(
        "the amdgcn link pulls in {} ({machine})",
        library
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default()
    ))
    .evidence_lines(
        inj.origins
            .iter()
            .map(|o| format!("added by {}: {}", o.place, o.text)),
    )
    .evidence_lines(inj.notes.iter().cloned())
    .fix(fix)
}

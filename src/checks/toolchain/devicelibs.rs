//! `toolchain.device-libs`: the bitcode clang will really link, asked from clang itself.

use crate::checks::Ctx;
use crate::inventory::clang::{ClangInfo, HipDriverView};
use crate::inventory::devicelibs::{BitcodeDir, DeviceLibs};
use crate::report::{Finding, Fix};
use std::path::{Path, PathBuf};

pub(crate) fn device_libs(ctx: &Ctx) -> Vec<Finding> {
    // On this machine's own root the dry run needs only the chosen clang's path: it starts
    // now, beside the clang probes, instead of after them (the same command either way; the
    // inventory runs it once, whoever asks first).
    std::thread::scope(|s| {
        // Decision (issue 20): only on this machine's own root; another root's clang (a
        // fixture's, or the host's under --host-root) may not run here, which the clang probes
        // find out first.
        if ctx.host.fs.is_own_machine() {
            s.spawn(|| ctx.inv.hip_driver());
        }
        judge(ctx)
    })
}

fn judge(ctx: &Ctx) -> Vec<Finding> {
    if let Some(f) = super::foreign_skip(ctx) {
        let found: Vec<String> = ctx.inv.device_libs().dirs.iter().map(describe).collect();
        return vec![f.evidence_lines(found)];
    }
    let Some(clang) = ctx.inv.clang() else {
        return vec![super::no_clang()];
    };
    let view = ctx.inv.hip_driver();
    let libs = ctx.inv.device_libs();
    let dry = view
        .command
        .clone()
        .map(|c| format!("$ {c}"))
        .unwrap_or_default();
    if !view.ran {
        return vec![
            Finding::error("could not ask clang which device libraries it uses")
                .evidence(dry)
                .evidence(view.outcome.clone().unwrap_or_default())
                .evidence_lines(view.errors.clone()),
        ];
    }
    // "cannot find ROCm device library for ABI version 5": bitcode found, but without the
    // oclc_abi_version file for the code object version this clang emits.
    if let Some(e) = view.errors.iter().find(|e| e.contains("for ABI version")) {
        return vec![abi_file_missing(clang, libs, e, dry)];
    }
    let Some(dir) = view.bitcode_dir() else {
        return vec![none_linked(ctx, view, libs, dry)];
    };
    vec![linked_from(ctx, view, libs, dir, dry)]
}

/// clang's "cannot find ROCm device library for ABI version N" (`e`): the bitcode lacks the
/// `oclc_abi_version` file of the code object version this clang emits.
fn abi_file_missing(clang: &ClangInfo, libs: &DeviceLibs, e: &str, dry: String) -> Finding {
    let abi: String = e
        .split("for ABI version")
        .nth(1)
        .unwrap_or("")
        .trim()
        .chars()
        .take_while(|c| c.is_ascii_digit())
        .collect();
    let file = format!("oclc_abi_version_{abi}00.bc");
    Finding::fail(format!(
        "the device libraries lack {file}, which clang {} needs",
        clang.version.as_deref().unwrap_or("?")
    ))
    .evidence(dry)
    .evidence(e.to_string())
    .evidence_lines(libs.dirs.iter().map(describe))
    .fix(Fix::text(format!(
        "The device libraries are older than this clang (it emits code \
            object v{abi}): install device libraries of the same release as the clang, or use the \
            clang they came with."
    )))
}

/// The dry run linked no bitcode: where the bitcode is, if anywhere, and what to tell clang
/// (a warning when only hipcc would find it, a failure when a root was named explicitly).
fn none_linked(ctx: &Ctx, view: &HipDriverView, libs: &DeviceLibs, dry: String) -> Finding {
    let complete: Vec<&BitcodeDir> = libs.dirs.iter().filter(|d| d.is_complete()).collect();
    let not_found = view.errors.iter().any(|e| {
        crate::diag::classify(e)
            .iter()
            .any(|p| p.kind == crate::diag::ProblemKind::DeviceLibraryMissing)
    });
    let mut f = if let Some(best) = complete.first() {
        let hipcc_ok = hipcc_would_find(ctx);
        // A root named explicitly is the one every CMake HIP build in this environment
        // hands clang: if clang finds no bitcode with it, those builds fail.
        let explicit = explicit_root(ctx);
        let base = if let Some(how) = &explicit {
            Finding::fail(format!("clang finds no device libraries with {how}"))
        } else if hipcc_ok {
            Finding::warn("clang alone finds no device libraries (hipcc passes them itself)")
        } else {
            Finding::fail("clang finds no device libraries")
        };
        let mut fix = Fix::text(format!(
            "Bare clang (and CMake's HIP language, which runs clang directly) looks in \
                    --rocm-path/ROCM_PATH/amdgcn/bitcode and its resource dir, not in {}. Tell it \
                    where the bitcode is: set HIP_DEVICE_LIB_PATH (clang reads it), or pass \
                    --rocm-device-lib-path={} in CMAKE_HIP_FLAGS.",
            best.path.display(),
            best.path.display()
        ))
        .set_env("HIP_DEVICE_LIB_PATH", best.path.display().to_string());
        // clang also reports the HIP headers missing when ROCM_PATH does not lead to them.
        if view
            .errors
            .iter()
            .any(|e| e.contains("cannot find HIP runtime"))
        {
            if let Some(r) = ctx
                .inv
                .roots()
                .iter()
                .find(|r| r.parts.hip_headers.is_some())
            {
                fix = fix.set_env("ROCM_PATH", r.path.display().to_string());
            }
        }
        base.fix(fix)
    } else {
        Finding::fail(
            "no device-library bitcode anywhere (ocml.bc, ockl.bc, \
            oclc_abi_version_*.bc)",
        )
        .fix(
            Fix::text(
                "Install the ROCm device libraries (Debian/Ubuntu: rocm-device-libs; \
                AMD: rocm-device-libs package; Nix: rocmPackages.rocm-device-libs) and point \
                ROCM_PATH or HIP_DEVICE_LIB_PATH at them.",
            )
            .command("sudo apt install rocm-device-libs"),
        )
    };
    f = f.evidence(dry).evidence_lines(view.errors.clone());
    if !not_found && view.errors.is_empty() {
        f = f.evidence("the dry run linked no -mlink-builtin-bitcode files");
    }
    for d in &libs.dirs {
        f = f.evidence(describe(d));
    }
    f
}

/// The bitcode clang will link from `dir`: every file it names must exist, and each target
/// ISA needs its `oclc_isa_version` file.
fn linked_from(
    ctx: &Ctx,
    view: &HipDriverView,
    libs: &DeviceLibs,
    dir: PathBuf,
    dry: String,
) -> Finding {
    let listing = libs
        .find(&dir)
        .cloned()
        .or_else(|| crate::inventory::devicelibs::scan_dir(ctx.host, &dir, "clang".into()));
    let (missing, isa_missing) = missing_bitcode(ctx, view, &dir, listing.as_ref());
    let mut f = if missing.is_empty() {
        Finding::pass(format!(
            "clang links device libraries from {}",
            dir.display()
        ))
    } else if !isa_missing.is_empty() && missing.len() == isa_missing.len() {
        Finding::fail(format!(
            "device libraries in {} lack {}",
            dir.display(),
            isa_missing.join(", ")
        ))
        .fix(Fix::text(
            "These device libraries predate the target ISA: install device \
                libraries from the same release as a clang that knows it (or drop the ISA from \
                your target list).",
        ))
    } else {
        Finding::fail(format!(
            "device libraries in {} are incomplete",
            dir.display()
        ))
        .fix(Fix::text(
            "Reinstall the device libraries of the same release as this clang \
                (Debian: rocm-device-libs).",
        ))
    };
    f = f.evidence_lines(missing.iter().map(|p| format!("missing: {}", p.display())));
    if let Some(l) = &listing {
        f = f.evidence(describe(l));
    }
    f = f.evidence(dry);
    if let Some(first) = view.builtin_bitcode.first() {
        f = f.evidence(format!(
            "first linked: {} (+{} more)",
            first.display(),
            view.builtin_bitcode.len().saturating_sub(1)
        ));
    }
    f
}

/// What `dir` lacks of the bitcode clang will link (`listing`: what it holds): every file
/// the driver names, each target ISA's `oclc_isa_version` file, ocml and ockl; and the ISAs
/// whose file is missing.
fn missing_bitcode(
    ctx: &Ctx,
    view: &HipDriverView,
    dir: &Path,
    listing: Option<&BitcodeDir>,
) -> (Vec<PathBuf>, Vec<String>) {
    let targets: Vec<String> = ctx
        .inv
        .targets()
        .isas
        .iter()
        .map(|t| t.isa.processor.clone())
        .collect();
    // The bitcode clang will use: every file it names must exist, and each target ISA needs its
    // oclc_isa_version file.
    let mut missing: Vec<PathBuf> = view
        .builtin_bitcode
        .iter()
        .filter(|p| !ctx.host.fs.is_file(p))
        .cloned()
        .collect();
    let isa_missing: Vec<String> = match listing {
        Some(l) => targets
            .iter()
            .filter(|t| !l.has_isa(t) && crate::isa::processor(t).is_some_and(|p| !p.is_generic))
            .cloned()
            .collect(),
        None => Vec::new(),
    };
    if let Some(l) = listing {
        for t in &isa_missing {
            missing.push(dir.join(format!(
                "oclc_isa_version_{}.bc",
                t.trim_start_matches("gfx")
            )));
        }
        if !l.has_ocml || !l.has_ockl {
            missing.push(dir.join("ocml.bc / ockl.bc"));
        }
    }
    (missing, isa_missing)
}

fn describe(d: &BitcodeDir) -> String {
    format!(
        "{} (from {}): {} files, ocml {}, ockl {}, ABI versions {:?}, {} ISA files",
        d.path.display(),
        d.source,
        d.file_count,
        if d.has_ocml { "yes" } else { "no" },
        if d.has_ockl { "yes" } else { "no" },
        d.abi_versions,
        d.isa_versions.len()
    )
}

/// `ROCM_PATH=/x` or `--rocm-path /x` when the user named the root explicitly.
fn explicit_root(ctx: &Ctx) -> Option<String> {
    if let Some(r) = &ctx.cfg.rocm_path {
        return Some(format!("--rocm-path {}", r.display()));
    }
    ctx.host
        .env
        .get_nonempty("ROCM_PATH")
        .map(|v| format!("ROCM_PATH={}", v.trim()))
}

/// hipcc finds bitcode via DEVICE_LIB_PATH, `$ROCM_PATH/amdgcn/bitcode` or
/// `$ROCM_PATH/lib/*/amdgcn/bitcode` (hipcc.pl of HIP 5.x, Debian 5.2.3-8 lines 114-133).
fn hipcc_would_find(ctx: &Ctx) -> bool {
    let Some(root) = ctx.inv.primary_root() else {
        return false;
    };
    if root.parts.hipcc.is_none() && ctx.host.which("hipcc").is_none() {
        return false;
    }
    if let Some(d) = ctx.host.env.get_nonempty("DEVICE_LIB_PATH") {
        return ctx
            .host
            .fs
            .is_file(&PathBuf::from(d.trim()).join("ocml.bc"));
    }
    root.parts
        .bitcode_dirs
        .iter()
        .any(|d| ctx.host.fs.is_file(&d.join("ocml.bc")))
}

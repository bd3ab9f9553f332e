//! `toolchain.clang` and `toolchain.resource-dir`.

use crate::checks::Ctx;
use crate::inventory::clang::ClangInfo;
use crate::report::{Finding, Fix};
use std::path::Path;

pub(crate) fn clang(ctx: &Ctx) -> Vec<Finding> {
    // A root without a clang says so from its files, run or not.
    if let (Some(e), Some(_)) = (ctx.inv.cannot_run_here(), ctx.inv.clang()) {
        return vec![super::foreign_root_finding(ctx, e)];
    }
    let Some(c) = ctx.inv.clang() else {
        return vec![Finding::fail("no clang found to compile HIP")
            .evidence(
                "looked at: --clang, HIP_CLANG_PATH, the ROCm root's llvm/bin, amdclang++ \
                and clang++ on PATH, hipcc's configured clang, /usr/lib/llvm-*/bin",
            )
            .fix(
                Fix::text(
                    "Install a clang with the AMDGPU backend (ROCm's, or your \
                distribution's: Debian `apt install clang-15`), or set HIP_CLANG_PATH to its bin \
                directory.",
                )
                .command("sudo apt install clang-15 lld-15"),
            )];
    };
    let mut f = if !c.probe_errors.is_empty() && c.version.is_none() {
        probe_failed(c)
    } else if !c.amdgpu_registered {
        Finding::fail(format!(
            "clang {} at {} has no AMDGPU backend",
            c.version.as_deref().unwrap_or("?"),
            c.path.display()
        ))
        .fix(Fix::text(
            "This clang cannot target AMD GPUs (built without the AMDGPU target). \
                Use ROCm's clang ($ROCM_PATH/llvm/bin/clang++) or a distribution clang built with \
                AMDGPU, via HIP_CLANG_PATH or --clang.",
        ))
    } else {
        Finding::pass(format!(
            "clang {} at {} (AMDGPU: {} processors)",
            c.version.as_deref().unwrap_or("?"),
            c.path.display(),
            c.amdgpu_processors.len()
        ))
    };
    f = f.evidence(format!("chosen by: {}", c.source));
    if let Some(b) = &c.banner {
        f = f.evidence(format!("banner: {b}"));
    }
    if let Some(r) = c.real_path.as_ref().filter(|r| **r != c.path) {
        f = f.evidence(format!("resolves to {}", r.display()));
    }
    if c.is_script {
        f = f.evidence("this clang is a script (a wrapper): it may add flags of its own");
    }
    f = f.evidence_lines(c.probe_errors.iter().cloned());
    f = f.evidence_lines(c.commands.iter().map(|cmd| format!("$ {cmd}")));
    for (p, why) in &c.others {
        f = f.evidence(format!("also found: {} ({why})", p.display()));
    }
    vec![f]
}

/// The resource dir's name: the full version up to clang 15, the major only from 16 on
/// (LLVM D125860, commit e1b88c8a09be; shared/reference/code-objects.md §4f).
pub(crate) fn expected_resource_dir_name(version: &str) -> Option<String> {
    let major: u32 = version.split('.').next()?.parse().ok()?;
    Some(if major >= 16 {
        major.to_string()
    } else {
        version.to_string()
    })
}

pub(crate) fn resource_dir(ctx: &Ctx) -> Vec<Finding> {
    if let Some(f) = super::foreign_skip(ctx) {
        return vec![f];
    }
    let Some(c) = ctx.inv.clang() else {
        return vec![super::no_clang()];
    };
    let Some(dir) = &c.resource_dir else {
        return vec![Finding::error("clang did not print its resource dir")
            .evidence_lines(c.probe_errors.iter().cloned())];
    };
    let host = ctx.host;
    let mut f;
    let mut problems = Vec::new();
    if !host.fs.is_dir(dir) {
        f = Finding::fail(format!(
            "clang's resource dir {} does not exist",
            dir.display()
        ))
        .fix(resource_dir_fix(ctx, c));
        f = f.evidence(format!("{} -> {}", rdir_question(c), dir.display()));
        if let Some(line) = script_line_with(ctx, c, "-resource-dir") {
            f = f.evidence(format!("set by the wrapper {}: {line}", c.path.display()));
        }
        return vec![f];
    }
    for (rel, what) in [
        ("include/stddef.h", "standard headers"),
        (
            "include/__clang_hip_runtime_wrapper.h",
            "HIP wrapper headers",
        ),
    ] {
        if !host.fs.is_file(&dir.join(rel)) {
            problems.push(format!("{} ({what}) missing", dir.join(rel).display()));
        }
    }
    if !problems.is_empty() {
        return vec![Finding::fail(format!(
            "clang's resource dir {} is incomplete",
            dir.display()
        ))
        .evidence_lines(problems)
        .fix(resource_dir_fix(ctx, c))];
    }
    f = Finding::pass(format!(
        "resource dir {} has the standard and HIP wrapper headers",
        dir.display()
    ));
    let mut out = vec![f.evidence(rdir_question(c))];
    out.extend(misnamed(c, dir));
    out.extend(stray_siblings(ctx.host, dir));
    out
}

/// The resource dir is not named by the rule of clang's version (full version up to clang 15,
/// major only from 16).
fn misnamed(c: &ClangInfo, dir: &Path) -> Option<Finding> {
    if let (Some(v), Some(name)) = (
        &c.version,
        dir.file_name().map(|n| n.to_string_lossy().into_owned()),
    ) {
        if let Some(want) = expected_resource_dir_name(v) {
            if name != want {
                return Some(
                    Finding::warn(format!(
                        "resource dir is named {name}, but clang {v} names it \
                        {want}"
                    ))
                    .evidence(format!("resource dir: {}", dir.display()))
                    .fix(Fix::text(
                        "A wrapper or build script computed the path with the \
                            wrong rule (full version up to clang 15, major only from 16). Drop \
                            the hard-coded -resource-dir, or fix the script that computes it.",
                    )),
                );
            }
        }
    }
    None
}

/// Stray siblings: other version directories that are not links to this one.
fn stray_siblings(host: &crate::host::Host, dir: &Path) -> Option<Finding> {
    if let Some(parent) = dir.parent() {
        let canon = host.fs.canonicalize(dir).ok();
        let stray: Vec<String> = host
            .fs
            .list_names(parent)
            .into_iter()
            .map(|n| parent.join(n))
            // Only another release's headers are harmful; Debian's libclang-common-15-dev ships a
            // `15` directory holding just `lib/` beside `15.0.6`, which is normal.
            .filter(|p| {
                p != dir
                    && host.fs.is_file(&p.join("include/stddef.h"))
                    && host.fs.canonicalize(p).ok() != canon
            })
            .map(|p| p.display().to_string())
            .collect();
        if !stray.is_empty() {
            return Some(
                Finding::warn(format!(
                    "{} holds other clang resource dirs",
                    parent.display()
                ))
                .evidence_lines(stray.iter().map(|s| format!("stray: {s}")))
                .fix(Fix::text(
                    "Leftovers of another clang release: tools that glob \
                        lib/clang/* (HIP's CMake files, hipcc) may pick the wrong one. Remove the \
                        stale directories.",
                )),
            );
        }
    }
    None
}

/// How clang was asked for its resource dir, for evidence.
fn rdir_question(c: &ClangInfo) -> String {
    match c
        .commands
        .first()
        .filter(|_| !c.resource_dir_from.is_empty())
    {
        Some(cmd) => format!("$ {cmd}  ({})", c.resource_dir_from),
        None => format!("$ {} -print-resource-dir", c.path.display()),
    }
}

fn resource_dir_fix(ctx: &Ctx, c: &ClangInfo) -> Fix {
    let real_dirs: Vec<String> = c
        .binary
        .as_deref()
        .and_then(|b| ctx.host.fs.canonicalize(b).ok())
        .and_then(|p| p.parent()?.parent().map(|prefix| prefix.join("lib/clang")))
        .map(|base| {
            ctx.host
                .fs
                .list_names(&base)
                .into_iter()
                .map(|n| base.join(n).display().to_string())
                .collect()
        })
        .unwrap_or_default();
    let mut text = String::from(
        "Use the resource dir that matches this clang: drop a hard-coded \
        `-resource-dir` from the wrapper or flags",
    );
    if !real_dirs.is_empty() {
        text.push_str(&format!(" (this clang's own: {})", real_dirs.join(", ")));
    }
    text.push_str(
        ", or reinstall the clang package (Debian: libclang-common-N-dev holds the headers).",
    );
    Fix::text(text)
}

/// The line of a wrapper script that mentions `needle`, if the clang is a script.
pub(crate) fn script_line_with(ctx: &Ctx, c: &ClangInfo, needle: &str) -> Option<String> {
    if !c.is_script {
        return None;
    }
    let text = ctx
        .host
        .fs
        .read_text(c.real_path.as_deref().unwrap_or(Path::new(&c.path)))
        .ok()?;
    text.lines()
        .find(|l| l.contains(needle))
        .map(|l| l.trim().to_string())
}

/// The clang's own probe gave no version: the doctor could not start it, it hung, or it does
/// not run.
fn probe_failed(c: &ClangInfo) -> Finding {
    let hung = c.probe_errors.iter().any(|e| e.contains("timed out"));
    // Issue 25, item 4: the doctor could not start the probe (no temp dir, out of
    // descriptors or processes): nothing is known about this clang, so no verdict on it.
    let ours = c
        .probe_errors
        .iter()
        .any(|e| e.contains(crate::host::DOCTOR_COULD_NOT_START));
    if ours {
        Finding::error(format!(
            "the doctor could not run {} to probe it",
            c.path.display()
        ))
        .fix(Fix::text(
            "The doctor itself could not start the probe (see the evidence): \
                give it a writable temp dir ($TMPDIR, /tmp, /var/tmp, /dev/shm or \
                $XDG_RUNTIME_DIR with free space) or more file descriptors/processes, and run \
                it again.",
        ))
    } else if hung {
        Finding::error(format!("{} did not answer (timed out)", c.path.display())).fix(Fix::text(
            "The clang (or a wrapper around it) hangs. Run it by hand with \
                --version to see why; point HIP_CLANG_PATH or --clang at a working clang.",
        ))
    } else {
        Finding::fail(format!("{} cannot be run", c.path.display())).fix(Fix::text(
            "The clang chosen cannot run: reinstall it, or point \
                HIP_CLANG_PATH / --clang at a working clang.",
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resource_dir_naming_rule() {
        assert_eq!(
            expected_resource_dir_name("15.0.6").as_deref(),
            Some("15.0.6")
        );
        assert_eq!(expected_resource_dir_name("16.0.0").as_deref(), Some("16"));
        assert_eq!(expected_resource_dir_name("19.1.7").as_deref(), Some("19"));
    }
}

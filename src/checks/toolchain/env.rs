//! `toolchain.env`: the ROCm variables must point at real, agreeing places.

use crate::checks::Ctx;
use crate::host::io_error_text;
use crate::report::{Finding, Fix};
use std::path::{Path, PathBuf};

/// Every variable judged: those naming a ROCm root (`ROCM_PATH`, `HIP_PATH`, `ROCM_HOME`),
/// then the compiler and bitcode directories.
const ALL_VARS: &[&str] = &[
    "ROCM_PATH",
    "HIP_PATH",
    "ROCM_HOME",
    "HIP_CLANG_PATH",
    "HIP_DEVICE_LIB_PATH",
    "DEVICE_LIB_PATH",
];

pub(crate) fn env_vars(ctx: &Ctx) -> Vec<Finding> {
    let host = ctx.host;
    let mut out = Vec::new();
    let mut roots: Vec<(&str, PathBuf)> = Vec::new();
    let mut seen_any = false;
    for var in ALL_VARS {
        let Some(raw) = host.env.get_os(var) else {
            continue;
        };
        seen_any = true;
        if let Some(root) = judge_var(ctx, var, raw, &mut out) {
            roots.push((var, root));
        }
    }
    out.extend(tmpdir(ctx));
    out.extend(roots_agree(&roots));
    if out.is_empty() {
        let summary = if seen_any {
            "ROCm variables point at real, agreeing places"
        } else {
            "no ROCm variables set; tools use their defaults"
        };
        let mut f = Finding::pass(summary);
        for var in ALL_VARS {
            if let Some(v) = host.env.get_str(var) {
                f = f.evidence(format!("{var}={v}"));
            }
        }
        out.push(f);
    }
    out
}

/// One variable's value: UTF-8, no stray quotes or blanks, an absolute path to a listable
/// directory holding what the variable is for. Problems go to `out`; a root variable's
/// canonical directory is returned for the agreement check.
fn judge_var(
    ctx: &Ctx,
    var: &'static str,
    raw: &std::ffi::OsStr,
    out: &mut Vec<Finding>,
) -> Option<PathBuf> {
    let host = ctx.host;
    let v = usable_value(var, raw, out)?;
    let p = Path::new(v);
    if !listable_dir(ctx, var, v, p, out) {
        return None;
    }
    match var {
        "HIP_CLANG_PATH" => {
            if !["clang++", "clang"]
                .iter()
                .any(|n| crate::host::is_executable_at(host, &p.join(n)))
            {
                out.push(
                    Finding::fail(format!("HIP_CLANG_PATH={v} holds no clang++ or clang"))
                        .subject(var)
                        .fix(Fix::text(
                            "HIP_CLANG_PATH must name the directory of the clang \
                            binaries (for ROCm: $ROCM_PATH/llvm/bin); hipcc runs \
                            $HIP_CLANG_PATH/clang++.",
                        )),
                );
            }
        }
        "HIP_DEVICE_LIB_PATH" | "DEVICE_LIB_PATH" => {
            if !host.fs.is_file(&p.join("ocml.bc")) {
                out.push(
                    Finding::fail(format!("{var}={v} holds no ocml.bc"))
                        .subject(var)
                        .fix(fix_for(ctx, var)),
                );
            }
        }
        _ => return Some(host.fs.canonicalize(p).unwrap_or_else(|_| p.to_path_buf())),
    }
    None
}

/// The value as a path: UTF-8, no stray quotes or blanks (a warning, then trimmed), not empty,
/// absolute. Problems go to `out`.
fn usable_value<'a>(
    var: &'static str,
    raw: &'a std::ffi::OsStr,
    out: &mut Vec<Finding>,
) -> Option<&'a str> {
    let Some(val) = raw.to_str() else {
        out.push(
            Finding::fail(format!("{var} is not valid UTF-8"))
                .subject(var)
                .evidence(format!("{var}={}", raw.to_string_lossy()))
                .fix(Fix::text(format!(
                    "Set {var} to the real path; tools such as hipcc (Perl) \
                    and CMake mangle non-UTF-8 paths."
                ))),
        );
        return None;
    };
    let trimmed = val.trim();
    if trimmed != val || trimmed.starts_with('"') || trimmed.ends_with('"') {
        out.push(
            Finding::warn(format!("{var} has stray white space or quotes"))
                .subject(var)
                .evidence(format!("{var}={val:?}"))
                .fix(Fix::text(format!(
                    "Set it without quotes or spaces: export {var}={}",
                    trimmed.trim_matches('"')
                ))),
        );
    }
    let v = trimmed.trim_matches('"');
    if v.is_empty() {
        out.push(
            Finding::warn(format!("{var} is set but empty"))
                .subject(var)
                .fix(Fix::text(format!(
                    "unset {var}, or set it to the install path"
                ))),
        );
        return None;
    }
    if !Path::new(v).is_absolute() {
        out.push(
            Finding::warn(format!("{var}={v} is a relative path"))
                .subject(var)
                .fix(Fix::text(format!(
                    "Use an absolute path: its meaning changes with every \
                    tool's working directory (export {var}=$(realpath {v}))."
                ))),
        );
        return None;
    }
    Some(v)
}

/// The path is a directory this user can list. Problems go to `out`.
fn listable_dir(ctx: &Ctx, var: &'static str, v: &str, p: &Path, out: &mut Vec<Finding>) -> bool {
    let host = ctx.host;
    match host.fs.metadata(p) {
        Err(e) => {
            out.push(
                Finding::fail(format!("{var}={v} cannot be used: {}", io_error_text(&e)))
                    .subject(var)
                    .evidence(format!("stat {v}: {}", io_error_text(&e)))
                    .fix(fix_for(ctx, var)),
            );
            return false;
        }
        Ok(m) if !m.is_dir() => {
            out.push(
                Finding::fail(format!("{var}={v} is not a directory"))
                    .subject(var)
                    .fix(fix_for(ctx, var)),
            );
            return false;
        }
        Ok(_) => {}
    }
    if let Err(e) = host.fs.read_dir(p) {
        out.push(
            Finding::fail(format!("{var}={v} cannot be listed: {}", io_error_text(&e)))
                .subject(var)
                .fix(Fix::text(format!(
                    "Make {v} readable by this user, or point {var} elsewhere."
                ))),
        );
        return false;
    }
    true
}

/// Compilers write their temporary files to $TMPDIR: clang fails with "unable to make
/// temporary file" when it is not a writable directory (measured with clang-15).
/// Under --sysroot the tools still run on this host with this process's TMPDIR: only the
/// real root's TMPDIR is about the diagnosed machine (under --host-root the environment is
/// the container's, not a host user's: not judged either).
fn tmpdir(ctx: &Ctx) -> Option<Finding> {
    let host = ctx.host;
    if let Some(t) = host
        .env
        .get_str("TMPDIR")
        .filter(|t| !t.is_empty() && host.fs.is_own_machine())
    {
        let p = Path::new(&t);
        let problem = match host.fs.metadata(p) {
            Err(e) => Some(io_error_text(&e)),
            Ok(m) if !m.is_dir() => Some("not a directory".to_string()),
            Ok(_) => nix::unistd::access(
                p,
                nix::unistd::AccessFlags::W_OK | nix::unistd::AccessFlags::X_OK,
            )
            .err()
            .map(|e| {
                format!(
                    "{}: not writable by this user",
                    crate::host::errno_name(&std::io::Error::from_raw_os_error(e as i32))
                )
            }),
        };
        if let Some(why) = problem {
            return Some(
                Finding::fail(format!("TMPDIR={t} cannot hold temporary files ({why})"))
                    .subject("TMPDIR")
                    .fix(
                        Fix::text(
                            "clang, hipcc and the linker put their temporary files in \
                        $TMPDIR and fail with \"unable to make temporary file\". Point it at a \
                        writable directory.",
                        )
                        .set_env("TMPDIR", "/tmp"),
                    ),
            );
        }
    }
    None
}

/// ROCM_PATH, HIP_PATH and ROCM_HOME must name one install (HIP_PATH=$ROCM_PATH/hip is the
/// pre-5.x layout and still agrees).
fn roots_agree(roots: &[(&str, PathBuf)]) -> Vec<Finding> {
    let mut out = Vec::new();
    if let Some((first_var, first)) = roots.first() {
        for (var, p) in roots.iter().skip(1) {
            let agrees = p == first || p.starts_with(first) || first.starts_with(p);
            if !agrees {
                out.push(
                    Finding::warn(format!("{first_var} and {var} name different installs"))
                        .evidence(format!("{first_var} -> {}", first.display()))
                        .evidence(format!("{var} -> {}", p.display()))
                        .fix(Fix::text(format!(
                            "Point both at the same root, e.g. export {var}={}",
                            first.display()
                        ))),
                );
            }
        }
    }
    out
}

fn fix_for(ctx: &Ctx, var: &str) -> Fix {
    let found_root = ctx
        .inv
        .roots()
        .iter()
        .find(|r| !r.sources.iter().any(|s| s == var))
        .map(|r| r.path.clone());
    let bitcode = ctx
        .inv
        .device_libs()
        .dirs
        .iter()
        .find(|d| d.is_complete())
        .map(|d| d.path.clone());
    match var {
        "HIP_DEVICE_LIB_PATH" | "DEVICE_LIB_PATH" => match bitcode {
            Some(b) => Fix::text(format!(
                "Point {var} at a directory with the device bitcode."
            ))
            .set_env(var, b.display().to_string()),
            None => Fix::text(format!(
                "Install the device libraries (Debian: rocm-device-libs) \
                and point {var} at their amdgcn/bitcode directory."
            )),
        },
        _ => match found_root {
            Some(r) => Fix::text(format!(
                "Point {var} at an existing ROCm root, or unset it."
            ))
            .set_env(var, r.display().to_string()),
            None => Fix::text(format!(
                "Point {var} at the ROCm install root, or unset it."
            )),
        },
    }
}

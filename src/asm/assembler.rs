//! Which assembler Tensile would run, and which one we run.
//!
//! Tensile rocm-6.2.2 (`assignGlobalParameters`): `TENSILE_ROCM_ASSEMBLER_PATH` wins; else
//! `locateExe(<ROCmPath>/llvm/bin, "clang++")` (that dir, then each PATH dir), ROCmPath being
//! `TENSILE_ROCM_PATH`, else `ROCM_PATH`, else `/opt/rocm`.
//! Tensile develop (`Utilities/Toolchain.validateToolchain`): no env variable; `--assembler`
//! (default `amdclang++`) is used as given when executable, else searched in each `ROCM_PATH`
//! entry's `bin` and `lib/llvm/bin`, then `/opt/rocm/bin`, `/opt/rocm/lib/llvm/bin`, then PATH;
//! the basename must be `amdclang++`, `clang++` or `hipcc`.
//! Source: reference tensile-asm-caps.md §6.

use super::catalog::Compat;
use crate::host::Host;
use std::path::{Path, PathBuf};

/// The assembler chosen, and how.
#[derive(Debug, Clone)]
pub(crate) struct Resolved {
    /// Machine path to run.
    pub path: PathBuf,
    /// Why this one (`--assembler`, `TENSILE_ROCM_ASSEMBLER_PATH`, ...).
    pub how: String,
    /// Whether Tensile (of the emulated variant) would pick the same program.
    pub tensile_picks_it: bool,
    /// The look-up steps, for evidence.
    pub steps: Vec<String>,
}

/// Names Tensile develop's validateToolchain accepts for the assembler.
pub(crate) const TENSILE_NAMES: &[&str] = &["amdclang++", "clang++", "hipcc"];

fn executable(host: &Host, p: &Path) -> Option<PathBuf> {
    host.which(&p.to_string_lossy())
        .map(|h| host.fs.machine_path(&h))
}

fn on_path(host: &Host, name: &str) -> Option<PathBuf> {
    host.which(name).map(|h| host.fs.machine_path(&h))
}

/// Resolves the assembler. `explicit` is `--assembler`; `core_clang` is the clang the core
/// judges (if it found one). Returns Err with the steps tried when nothing is found.
pub(crate) fn resolve(
    host: &Host,
    compat: Compat,
    explicit: Option<&Path>,
    core_clang: Option<&Path>,
) -> Result<Resolved, Vec<String>> {
    let mut steps = Vec::new();
    if let Some(p) = explicit {
        steps.push(format!("--assembler {}", p.display()));
        let path = if p.is_absolute() || p.to_string_lossy().contains('/') {
            p.to_path_buf()
        } else {
            on_path(host, &p.to_string_lossy()).unwrap_or_else(|| p.to_path_buf())
        };
        return Ok(Resolved {
            path,
            how: "given with --assembler".into(),
            tensile_picks_it: true,
            steps,
        });
    }
    if let Some(v) = host.env.get_nonempty("TENSILE_ROCM_ASSEMBLER_PATH") {
        steps.push(format!("TENSILE_ROCM_ASSEMBLER_PATH={v}"));
        let how = match compat {
            Compat::V6_2 => {
                "TENSILE_ROCM_ASSEMBLER_PATH (Tensile 6.2 uses it as given)".to_string()
            }
            Compat::Current => "TENSILE_ROCM_ASSEMBLER_PATH (read by Tensile up to rocm-6.3; \
                current Tensile takes --assembler instead)"
                .to_string(),
        };
        return Ok(Resolved {
            path: PathBuf::from(v),
            how,
            tensile_picks_it: compat == Compat::V6_2,
            steps,
        });
    }
    steps.push("TENSILE_ROCM_ASSEMBLER_PATH is not set".into());
    let found = match compat {
        Compat::V6_2 => search_v6_2(host, &mut steps),
        Compat::Current => search_current(host, &mut steps),
    };
    if let Some((path, how)) = found {
        return Ok(Resolved {
            path,
            how,
            tensile_picks_it: true,
            steps,
        });
    }
    not_tensiles(host, compat, core_clang, steps)
}

/// Tensile 6.2's search: `<ROCmPath>/llvm/bin/clang++`, then clang++ on PATH.
fn search_v6_2(host: &Host, steps: &mut Vec<String>) -> Option<(PathBuf, String)> {
    let root = host
        .env
        .get_nonempty("TENSILE_ROCM_PATH")
        .map(|v| (v, "TENSILE_ROCM_PATH"))
        .or_else(|| host.env.get_nonempty("ROCM_PATH").map(|v| (v, "ROCM_PATH")))
        .unwrap_or(("/opt/rocm".into(), "default"));
    let cand = Path::new(&root.0).join("llvm/bin/clang++");
    match executable(host, &cand) {
        Some(p) => Some((
            p,
            format!("<ROCmPath>/llvm/bin/clang++ (ROCmPath from {})", root.1),
        )),
        None => {
            steps.push(format!("{}: not an executable", cand.display()));
            let r = on_path(host, "clang++")
                .map(|p| (p, "clang++ on PATH (Tensile 6.2's locateExe)".to_string()));
            if r.is_none() {
                steps.push("clang++: not on PATH".into());
            }
            r
        }
    }
}

/// Current Tensile's search (validateToolchain): amdclang++ in the ROCm dirs, then on PATH.
fn search_current(host: &Host, steps: &mut Vec<String>) -> Option<(PathBuf, String)> {
    let mut dirs: Vec<PathBuf> = Vec::new();
    if let Some(v) = host.env.get_nonempty("ROCM_PATH") {
        for e in v.split(':').filter(|e| !e.is_empty()) {
            dirs.push(Path::new(e).join("bin"));
            dirs.push(Path::new(e).join("lib/llvm/bin"));
        }
    }
    dirs.push("/opt/rocm/bin".into());
    dirs.push("/opt/rocm/lib/llvm/bin".into());
    let mut r = None;
    for d in dirs {
        let cand = d.join("amdclang++");
        if let Some(p) = executable(host, &cand) {
            r = Some((
                p,
                "amdclang++ in a ROCm dir (current Tensile's validateToolchain)".to_string(),
            ));
            break;
        }
        steps.push(format!("{}: not an executable", cand.display()));
    }
    if r.is_none() {
        r = on_path(host, "amdclang++").map(|p| {
            (
                p,
                "amdclang++ on PATH (current Tensile's validateToolchain)".to_string(),
            )
        });
        if r.is_none() {
            steps.push("amdclang++: not on PATH".into());
        }
    }
    r
}

/// When Tensile's own search finds nothing: a clang it would not pick, if there is one.
fn not_tensiles(
    host: &Host,
    compat: Compat,
    core_clang: Option<&Path>,
    mut steps: Vec<String>,
) -> Result<Resolved, Vec<String>> {
    // Not Tensile's: so the probe still says something useful on distributions without a
    // ROCm clang (Debian ships clang++ only as /usr/lib/llvm-N/bin/clang++).
    if let Some(c) = core_clang {
        steps.push(format!("the clang rocm-doctor judges: {}", c.display()));
        let cxx = c.with_file_name("clang++");
        let path = if c
            .file_name()
            .is_some_and(|n| n.to_string_lossy().ends_with("++"))
        {
            c.to_path_buf()
        } else if let Some(p) = executable(host, &cxx) {
            p
        } else {
            c.to_path_buf()
        };
        return Ok(Resolved {
            path,
            how: "the clang rocm-doctor judges (Tensile would not find it)".into(),
            tensile_picks_it: false,
            steps,
        });
    }
    if compat == Compat::Current {
        if let Some(p) = on_path(host, "clang++") {
            return Ok(Resolved {
                path: p,
                how: "clang++ on PATH (Tensile would need --assembler)".into(),
                tensile_picks_it: false,
                steps,
            });
        }
    }
    if let Some(p) = newest_llvm_clang(host) {
        steps.push(format!("newest /usr/lib/llvm-N: {}", p.display()));
        return Ok(Resolved {
            path: p,
            how: "the newest /usr/lib/llvm-N/bin/clang++ (Tensile would not find it)".into(),
            tensile_picks_it: false,
            steps,
        });
    }
    steps.push("no /usr/lib/llvm-N/bin/clang++".into());
    Err(steps)
}

/// `/usr/lib/llvm-N/bin/clang++` with the largest N (the inventory's list of LLVM releases).
pub(crate) fn newest_llvm_clang(host: &Host) -> Option<PathBuf> {
    crate::inventory::clang::llvm_dirs_newest_first(host)
        .into_iter()
        .map(|d| d.join("bin/clang++"))
        .find(|p| executable(host, p).is_some())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::host::{Env, Limits};
    use std::time::Duration;

    fn host(pairs: &[(&str, &str)]) -> Host {
        Host::new(
            PathBuf::from("/"),
            Env::from_pairs(pairs.iter().copied()),
            Limits::new(Duration::from_secs(5), Duration::from_secs(30)),
        )
    }

    #[test]
    fn explicit_and_env_win() {
        let h = host(&[
            ("TENSILE_ROCM_ASSEMBLER_PATH", "/x/clang++"),
            ("PATH", "/usr/bin"),
        ]);
        let r = resolve(&h, Compat::V6_2, Some(Path::new("/y/clang++")), None).unwrap();
        assert_eq!(r.path, Path::new("/y/clang++"));
        let r = resolve(&h, Compat::V6_2, None, None).unwrap();
        assert_eq!(r.path, Path::new("/x/clang++"));
        assert!(r.tensile_picks_it);
        let r = resolve(&h, Compat::Current, None, None).unwrap();
        assert!(!r.tensile_picks_it, "current Tensile ignores the variable");
    }

    #[test]
    fn rocm_path_layouts_per_variant() {
        let d = tempfile::tempdir().unwrap();
        for rel in ["llvm/bin/clang++", "lib/llvm/bin/amdclang++"] {
            let p = d.path().join(rel);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(&p, "#!/bin/sh\n").unwrap();
            std::fs::set_permissions(&p, std::os::unix::fs::PermissionsExt::from_mode(0o755))
                .unwrap();
        }
        let root = d.path().to_string_lossy().into_owned();
        let h = host(&[("ROCM_PATH", &root), ("PATH", "/nonexistent")]);
        let r = resolve(&h, Compat::V6_2, None, None).unwrap();
        assert_eq!(r.path, d.path().join("llvm/bin/clang++"));
        let r = resolve(&h, Compat::Current, None, None).unwrap();
        assert_eq!(r.path, d.path().join("lib/llvm/bin/amdclang++"));
        assert!(r.tensile_picks_it);
    }

    #[test]
    fn debian_fallback_is_reported_as_not_tensiles() {
        let h = host(&[("PATH", "/nonexistent"), ("ROCM_PATH", "/nonexistent")]);
        match resolve(&h, Compat::V6_2, None, None) {
            Ok(r) => {
                assert!(!r.tensile_picks_it);
                assert!(r.path.starts_with("/usr/lib"), "{}", r.path.display());
            }
            Err(steps) => assert!(steps.iter().any(|s| s.contains("llvm-N"))),
        }
    }
}

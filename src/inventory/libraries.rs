//! Key runtime libraries resolved as the dynamic loader would: `LD_LIBRARY_PATH`, then the
//! directories of `/etc/ld.so.conf` (with its `include` globs), then the default directories
//! (ld.so(8)). The HIP runtime's own dependencies are resolved through its `DT_RUNPATH` first,
//! as the loader does for a library's `DT_NEEDED` entries.

use super::Inventory;
use crate::codeobj::elf;
use crate::host::Host;
use serde::Serialize;
use std::path::{Path, PathBuf};

/// One key library (`libamdhip64`, `libhsa-runtime64`, `libamd_comgr`) as the loader would find it.
#[derive(Debug, Clone, Serialize)]
pub struct LibraryResolution {
    /// Short name: `amdhip64`, `hsa-runtime64`, `amd_comgr`.
    pub name: String,
    /// The file the loader would open for `lib<name>.so` (machine path), if any.
    pub path: Option<PathBuf>,
    /// `path` with symlinks resolved (its file name carries the version).
    pub realpath: Option<PathBuf>,
    /// Version from the real file name (`5.2.21153` for `libamdhip64.so.5.2.21153`).
    pub version: Option<String>,
    /// How the loader found it: `LD_LIBRARY_PATH`, `ld.so.conf`, `default dirs`, `RUNPATH of ...`.
    pub how: String,
    /// Other copies found that the loader would not pick.
    pub others: Vec<PathBuf>,
}

pub const KEY_LIBRARIES: &[&str] = &["amdhip64", "hsa-runtime64", "amd_comgr"];

const DEFAULT_DIRS: &[&str] = &[
    "/lib/x86_64-linux-gnu",
    "/usr/lib/x86_64-linux-gnu",
    "/lib64",
    "/usr/lib64",
    "/lib",
    "/usr/lib",
];

/// The absolute directories of `LD_LIBRARY_PATH` (searched before a library's DT_RUNPATH).
pub fn ld_library_path(host: &Host) -> Vec<PathBuf> {
    host.env
        .get_os("LD_LIBRARY_PATH")
        .map(|llp| {
            std::env::split_paths(llp)
                .filter(|d| d.is_absolute())
                .collect()
        })
        .unwrap_or_default()
}

/// The system directories (searched after DT_RUNPATH): those of `/etc/ld.so.conf` and its
/// includes, then the default ones, with the reason each is searched.
pub fn system_dirs(host: &Host) -> Vec<(PathBuf, String)> {
    let mut visited = Vec::new();
    let mut v: Vec<(PathBuf, String)> =
        ld_so_conf_dirs(host, Path::new("/etc/ld.so.conf"), &mut visited)
            .into_iter()
            .map(|d| (d, "ld.so.conf".to_string()))
            .collect();
    v.extend(
        DEFAULT_DIRS
            .iter()
            .map(|d| (PathBuf::from(d), "default dirs".to_string())),
    );
    v
}

/// The loader's search directories for a program without RUNPATH, with the reason each is
/// searched.
pub fn search_dirs(host: &Host) -> Vec<(PathBuf, String)> {
    let mut v: Vec<(PathBuf, String)> = ld_library_path(host)
        .into_iter()
        .map(|d| (d, "LD_LIBRARY_PATH".to_string()))
        .collect();
    v.extend(system_dirs(host));
    v
}

fn ld_so_conf_dirs(host: &Host, file: &Path, visited: &mut Vec<PathBuf>) -> Vec<PathBuf> {
    if visited.len() > 64 || visited.iter().any(|p| p == file) {
        return Vec::new();
    }
    visited.push(file.to_path_buf());
    let Ok(text) = host.fs.read_text(file) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for line in text.lines() {
        let line = line.split('#').next().unwrap_or("").trim();
        if line.is_empty() {
            continue;
        }
        if let Some(pat) = line.strip_prefix("include") {
            for inc in expand_simple_glob(host, pat.trim()) {
                out.extend(ld_so_conf_dirs(host, &inc, visited));
            }
        } else if line.starts_with('/') {
            out.push(PathBuf::from(line));
        }
    }
    out
}

/// Expands `dir/*.conf`-style patterns (a `*` in the last component only), sorted like glob(3).
fn expand_simple_glob(host: &Host, pat: &str) -> Vec<PathBuf> {
    let p = Path::new(pat);
    let (Some(dir), Some(name)) = (
        p.parent(),
        p.file_name().map(|n| n.to_string_lossy().into_owned()),
    ) else {
        return Vec::new();
    };
    if !name.contains('*') {
        return vec![p.to_path_buf()];
    }
    let (pre, post) = name.split_once('*').unwrap_or((&name, ""));
    host.fs
        .list_names(dir)
        .into_iter()
        .map(|n| n.to_string_lossy().into_owned())
        .filter(|n| n.starts_with(pre) && n.ends_with(post) && n.len() >= pre.len() + post.len())
        .map(|n| dir.join(n))
        .collect()
}

/// `libamdhip64.so.5.2.21153` -> `5.2.21153`.
pub fn version_from_file_name(name: &str, lib: &str) -> Option<String> {
    let v = name.strip_prefix(&format!("lib{lib}.so."))?;
    (!v.is_empty()
        && v.split('.')
            .all(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit())))
    .then(|| v.to_string())
}

/// Finds `lib<name>.so*` in `dirs` (first dir wins; within a dir the plain `.so`, then the
/// highest-versioned file).
/// The file the loader would take for `lib<name>.so` in one directory: the plain `.so`, else the
/// shortest (least specific) versioned name.
pub fn find_in_dir(host: &Host, name: &str, dir: &Path) -> Option<PathBuf> {
    let prefix = format!("lib{name}.so");
    let mut names: Vec<String> = host
        .fs
        .list_names(dir)
        .into_iter()
        .map(|n| n.to_string_lossy().into_owned())
        .filter(|n| *n == prefix || n.starts_with(&format!("{prefix}.")))
        .collect();
    names.sort_by_key(|n| (n.len(), n.clone()));
    names.first().map(|n| dir.join(n))
}

/// Finds `lib<name>.so*` in `dirs` (first directory wins); the other directories' copies too.
fn find_in(
    host: &Host,
    name: &str,
    dirs: &[(PathBuf, String)],
) -> (Option<(PathBuf, String)>, Vec<PathBuf>) {
    let mut hit: Option<(PathBuf, String)> = None;
    let mut all: Vec<PathBuf> = Vec::new();
    for (d, why) in dirs {
        let Some(p) = find_in_dir(host, name, d) else {
            continue;
        };
        if hit.is_none() {
            hit = Some((p, why.clone()));
        } else {
            all.push(p);
        }
    }
    (hit, all)
}

pub fn resolve_all(inv: &Inventory) -> Vec<LibraryResolution> {
    let host = inv.host;
    let loader_dirs = search_dirs(host);
    // Copies inside ROCm roots that the loader may not see.
    let mut root_dirs: Vec<(PathBuf, String)> = Vec::new();
    for r in inv.roots() {
        for d in &r.parts.lib_dirs {
            root_dirs.push((d.clone(), format!("ROCm root {}", r.path.display())));
        }
    }
    let mut out = Vec::new();
    let mut hip_runpath: Vec<(PathBuf, String)> = Vec::new();
    for name in KEY_LIBRARIES {
        let mut dirs = Vec::new();
        if *name != "amdhip64" {
            dirs.extend(hip_runpath.iter().cloned());
        }
        dirs.extend(loader_dirs.iter().cloned());
        let (hit, mut others) = find_in(host, name, &dirs);
        let (_, more) = find_in(host, name, &root_dirs);
        let (path, how) = match hit {
            Some((p, how)) => (Some(p), how),
            None => (None, "not on the loader's search path".to_string()),
        };
        let realpath = path.as_ref().and_then(|p| host.fs.canonicalize(p).ok());
        let version = realpath
            .as_ref()
            .and_then(|r| r.file_name())
            .and_then(|n| version_from_file_name(&n.to_string_lossy(), name));
        // Other copies count only when they are different files.
        others.extend(more);
        others.retain(|o| host.fs.canonicalize(o).ok() != realpath);
        others.sort();
        others.dedup();
        if *name == "amdhip64" {
            if let Some(rp) = &realpath {
                hip_runpath = runpath_dirs(host, rp);
            }
        }
        out.push(LibraryResolution {
            name: name.to_string(),
            path,
            realpath,
            version,
            how,
            others,
        });
    }
    out
}

/// `DT_RUNPATH` / `DT_RPATH` of a library, `$ORIGIN` expanded.
pub fn runpath_dirs(host: &Host, lib: &Path) -> Vec<(PathBuf, String)> {
    let Ok(file) = host.fs.open(lib) else {
        return Vec::new();
    };
    // SAFETY: read-only private mapping; a concurrent truncation can only make the reader see
    // garbage, which it reports as a parse error.
    let Ok(map) = (unsafe { memmap2::Mmap::map(&file) }) else {
        return Vec::new();
    };
    let Ok(dynamic) = elf::Elf::parse(&map).and_then(|e| e.dynamic()) else {
        return Vec::new();
    };
    let origin = lib
        .parent()
        .map(|p| p.to_string_lossy().into_owned())
        .unwrap_or_default();
    let mut v = Vec::new();
    for rp in dynamic.runpath.iter().chain(dynamic.rpath.iter()) {
        for d in rp.split(':') {
            let d = d.replace("$ORIGIN", &origin).replace("${ORIGIN}", &origin);
            if d.starts_with('/') {
                v.push((PathBuf::from(d), format!("RUNPATH of {}", lib.display())));
            }
        }
    }
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_from_file_names() {
        assert_eq!(
            version_from_file_name("libamdhip64.so.5.2.21153", "amdhip64").as_deref(),
            Some("5.2.21153")
        );
        assert_eq!(
            version_from_file_name("libamd_comgr.so.2.4.0", "amd_comgr").as_deref(),
            Some("2.4.0")
        );
        assert_eq!(version_from_file_name("libamdhip64.so", "amdhip64"), None);
        assert_eq!(
            version_from_file_name("libamdhip64.so.6.x", "amdhip64"),
            None
        );
    }
}

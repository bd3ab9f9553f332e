//! Installed component versions and library lookup for the inspect family.
//!
//! Versions come from the core inventory (`inv.libraries()`); when it has none for a
//! component (or does not resolve it yet), a minimal local lookup finds `lib<name>.so*` in the
//! usual directories and reads the version from the real file name, as the inventory does.

use crate::host::Host;
use crate::inventory::{libraries, Inventory};
use std::collections::BTreeMap;
use std::path::PathBuf;

/// Directories a loader or packager would put ROCm libraries in, as machine paths, in order.
pub fn library_dirs(inv: &Inventory) -> Vec<PathBuf> {
    let host = inv.host;
    let mut dirs: Vec<PathBuf> = Vec::new();
    if let Some(ld) = host.env.get_nonempty("LD_LIBRARY_PATH") {
        dirs.extend(
            ld.split(':')
                .filter(|s| s.starts_with('/'))
                .map(PathBuf::from),
        );
    }
    for l in inv.libraries() {
        if let Some(p) = l.path.as_ref().and_then(|p| p.parent()) {
            dirs.push(p.to_path_buf());
        }
    }
    for r in inv.roots() {
        dirs.push(r.path.join("lib"));
        dirs.push(r.path.join("lib64"));
    }
    for d in [
        "/opt/rocm/lib",
        "/usr/lib/x86_64-linux-gnu",
        "/usr/lib64",
        "/usr/lib",
        "/usr/local/lib",
        "/lib/x86_64-linux-gnu",
        "/lib64",
        "/lib",
    ] {
        dirs.push(PathBuf::from(d));
    }
    let mut seen = Vec::new();
    dirs.retain(|d| {
        let key = host.fs.canonicalize(d).unwrap_or_else(|_| d.clone());
        if seen.contains(&key) || !host.fs.is_dir(d) {
            return false;
        }
        seen.push(key);
        true
    });
    dirs
}

/// A library found by name: the path, its real path and the version in the real file name.
#[derive(Debug, Clone, serde::Serialize)]
pub struct FoundLib {
    pub path: PathBuf,
    pub realpath: PathBuf,
    pub version: Option<String>,
}

/// Finds `lib<stem>.so*` in the first directory that has one (the inventory's rule), with the
/// version from its real file name.
pub fn find_lib(host: &Host, dirs: &[PathBuf], stem: &str) -> Option<FoundLib> {
    dirs.iter().find_map(|d| {
        let path = libraries::find_in_dir(host, stem, d)?;
        let realpath = host.fs.canonicalize(&path).unwrap_or_else(|_| path.clone());
        if !host.fs.is_file(&realpath) {
            return None;
        }
        let version = realpath
            .file_name()
            .and_then(|n| libraries::version_from_file_name(&n.to_string_lossy(), stem));
        Some(FoundLib {
            path,
            realpath,
            version,
        })
    })
}

/// Installed versions of the components the known issues name.
pub fn versions(inv: &Inventory) -> (BTreeMap<String, String>, Vec<String>) {
    let mut out = BTreeMap::new();
    let mut evidence = Vec::new();
    for l in inv.libraries() {
        if let Some(v) = &l.version {
            out.insert(l.name.clone(), v.clone());
            evidence.push(format!(
                "{} {v} ({}, {})",
                l.name,
                l.realpath
                    .as_ref()
                    .or(l.path.as_ref())
                    .map(|p| p.display().to_string())
                    .unwrap_or_default(),
                l.how
            ));
        }
    }
    let dirs = library_dirs(inv);
    for (name, stem) in [
        ("amdhip64", "amdhip64"),
        ("amd_comgr", "amd_comgr"),
        ("rocblas", "rocblas"),
        ("MIOpen", "MIOpen"),
    ] {
        if out.contains_key(name) {
            continue;
        }
        if let Some(f) = find_lib(inv.host, &dirs, stem) {
            if let Some(v) = f.version {
                evidence.push(format!("{name} {v} ({})", f.realpath.display()));
                out.insert(name.to_string(), v);
            }
        }
    }
    (out, evidence)
}

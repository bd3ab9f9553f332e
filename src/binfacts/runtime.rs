//! Installed component versions and library lookup for the inspect family.
//!
//! Versions come from the core inventory (`inv.libraries()`); when it has none for a
//! component (or does not resolve it yet), the one library lookup (`inventory::libraries`)
//! finds `lib<name>.so*` where the loader looks, then where ROCm installs put libraries, and
//! the version comes from the real file name, as the inventory does.

use crate::host::Host;
use crate::inventory::libraries::{self, Name, Search};
use crate::inventory::Inventory;
use std::collections::BTreeMap;
use std::path::PathBuf;

/// Where ROCm libraries are looked for, in order: the loader's directories, then the
/// directories of the inventory's key libraries, the ROCm roots' `lib`/`lib64` and the usual
/// install places, which the loader may not search. Each directory once (by its real path),
/// and only existing ones.
pub(crate) fn library_dirs(inv: &Inventory) -> Search {
    let host = inv.host;
    let mut more: Vec<(PathBuf, String)> = Vec::new();
    for l in inv.libraries() {
        if let Some(p) = l.path.as_ref().and_then(|p| p.parent()) {
            more.push((p.to_path_buf(), format!("where lib{} is", l.name)));
        }
    }
    for r in inv.roots() {
        let why = format!("ROCm root {}", r.path.display());
        more.push((r.path.join("lib"), why.clone()));
        more.push((r.path.join("lib64"), why));
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
        more.push((PathBuf::from(d), "a usual install place".to_string()));
    }
    let mut s = Search::loader(host).then(more);
    let mut seen = Vec::new();
    s.dirs.retain(|(d, _)| {
        let key = host.fs.canonicalize(d).unwrap_or_else(|_| d.clone());
        if seen.contains(&key) || !host.fs.is_dir(d) {
            return false;
        }
        seen.push(key);
        true
    });
    s
}

/// A library found by name: the path, its real path and the version in the real file name.
#[derive(Debug, Clone, serde::Serialize)]
pub(crate) struct FoundLib {
    pub path: PathBuf,
    pub realpath: PathBuf,
    pub version: Option<String>,
}

/// Finds `lib<stem>.so*` through the one lookup: the first directory whose copy is a real
/// file (a dangling link is passed over), with the version from its real file name.
pub(crate) fn find_lib(host: &Host, dirs: &Search, stem: &str) -> Option<FoundLib> {
    libraries::find_every(host, dirs, Name::Stem(stem))
        .into_iter()
        .find_map(|f| {
            let realpath = host
                .fs
                .canonicalize(&f.path)
                .unwrap_or_else(|_| f.path.clone());
            if !host.fs.is_file(&realpath) {
                return None;
            }
            let version = realpath
                .file_name()
                .and_then(|n| libraries::version_from_file_name(&n.to_string_lossy(), stem));
            Some(FoundLib {
                path: f.path,
                realpath,
                version,
            })
        })
}

/// Installed versions of the components the known issues name.
pub(crate) fn versions(inv: &Inventory) -> (BTreeMap<String, String>, Vec<String>) {
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

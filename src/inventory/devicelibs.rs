//! Device-library bitcode (`ocml.bc`, `ockl.bc`, `oclc_*.bc`): every directory that holds it
//! and what each holds. Which one clang really uses comes from the HIP dry run
//! ([`super::clang::HipDriverView::bitcode_dir`]).
//!
//! File naming (ROCm-Device-Libs, measured on Debian's rocm-device-libs 5.2.3):
//! `oclc_isa_version_<N>.bc` with N the processor name without `gfx` (`1030`, `90a`),
//! `oclc_abi_version_<V>.bc` with V = 400/500/600 for code object v4/v5/v6.

use super::Inventory;
use crate::host::Host;
use serde::Serialize;
use std::path::{Path, PathBuf};

#[derive(Debug, Clone, Default, Serialize)]
pub struct BitcodeDir {
    pub path: PathBuf,
    /// Where the doctor heard of it: a ROCm root, `HIP_DEVICE_LIB_PATH`, clang's resource dir.
    pub source: String,
    pub has_ocml: bool,
    pub has_ockl: bool,
    /// `oclc_abi_version_*.bc` present (400, 500, 600).
    pub abi_versions: Vec<u32>,
    /// Processor suffixes of `oclc_isa_version_*.bc` (`1030`, `90a`).
    pub isa_versions: Vec<String>,
    pub file_count: usize,
}

impl BitcodeDir {
    pub(crate) fn has_isa(&self, processor: &str) -> bool {
        processor
            .strip_prefix("gfx")
            .is_some_and(|s| self.isa_versions.iter().any(|v| v == s))
    }
    pub(crate) fn is_complete(&self) -> bool {
        self.has_ocml && self.has_ockl && !self.abi_versions.is_empty()
    }
}

#[derive(Debug, Clone, Default, Serialize)]
pub(crate) struct DeviceLibs {
    pub dirs: Vec<BitcodeDir>,
}

impl DeviceLibs {
    pub(crate) fn find(&self, dir: &Path) -> Option<&BitcodeDir> {
        self.dirs.iter().find(|d| d.path == dir)
    }
}

pub(crate) fn discover(inv: &Inventory) -> DeviceLibs {
    let host = inv.host;
    let mut cands: Vec<(PathBuf, String)> = Vec::new();
    for var in ["HIP_DEVICE_LIB_PATH", "DEVICE_LIB_PATH"] {
        if let Some(v) = host.env.get_nonempty(var) {
            cands.push((PathBuf::from(v.trim()), var.to_string()));
        }
    }
    for r in inv.roots() {
        for d in &r.parts.bitcode_dirs {
            cands.push((d.clone(), format!("ROCm root {}", r.path.display())));
        }
    }
    // What clang itself links (`-###`): on current LLVM the bitcode sits in its resource dir.
    if let Some(d) = inv.hip_driver().bitcode_dir() {
        cands.push((d, "clang -###".into()));
    }
    // clang >= 17 searches `<resource dir>/amdgcn/bitcode` (Debian's rocm-device-libs-17 and
    // later install there); AMD's 6.2+ tree uses `<resource dir>/lib/amdgcn/bitcode`.
    if let Some(rd) = inv.clang().and_then(|c| c.resource_dir.clone()) {
        for sub in ["amdgcn/bitcode", "lib/amdgcn/bitcode"] {
            cands.push((rd.join(sub), "clang resource dir".into()));
        }
    }
    // Every installed LLVM's resource dirs, found as files: what a clang that cannot be asked
    // (another root's, with --sysroot) would use.
    for llvm in super::clang::llvm_dirs_newest_first(host) {
        let clang_dir = llvm.join("lib/clang");
        for v in host.fs.list_names(&clang_dir) {
            for sub in ["amdgcn/bitcode", "lib/amdgcn/bitcode"] {
                cands.push((
                    clang_dir.join(&v).join(sub),
                    format!("{} resource dir", llvm.display()),
                ));
            }
        }
    }
    let mut out = DeviceLibs::default();
    let mut seen: Vec<PathBuf> = Vec::new();
    for (p, src) in cands {
        let canon = host.fs.canonicalize(&p).unwrap_or_else(|_| p.clone());
        if seen.contains(&canon) {
            continue;
        }
        if let Some(d) = scan_dir(host, &p, src) {
            seen.push(canon);
            out.dirs.push(d);
        }
    }
    out
}

/// Lists one directory's bitcode; `None` when it is not a directory.
pub(crate) fn scan_dir(host: &Host, p: &Path, source: String) -> Option<BitcodeDir> {
    if !host.fs.is_dir(p) {
        return None;
    }
    let names: Vec<String> = host
        .fs
        .list_names(p)
        .into_iter()
        .map(|n| n.to_string_lossy().into_owned())
        .collect();
    Some(classify_names(p.to_path_buf(), source, &names))
}

/// Pure: what a directory listing says about a bitcode directory.
pub fn classify_names(path: PathBuf, source: String, names: &[String]) -> BitcodeDir {
    let mut d = BitcodeDir {
        path,
        source,
        ..Default::default()
    };
    for n in names {
        let Some(stem) = n.strip_suffix(".bc") else {
            continue;
        };
        d.file_count += 1;
        match stem {
            "ocml" => d.has_ocml = true,
            "ockl" => d.has_ockl = true,
            _ => {
                if let Some(v) = stem
                    .strip_prefix("oclc_abi_version_")
                    .and_then(|v| v.parse().ok())
                {
                    d.abi_versions.push(v);
                } else if let Some(v) = stem.strip_prefix("oclc_isa_version_") {
                    d.isa_versions.push(v.to_string());
                }
            }
        }
    }
    d.abi_versions.sort_unstable();
    d.isa_versions.sort();
    d
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classifies_a_debian_listing() {
        let names: Vec<String> = [
            "ocml.bc",
            "ockl.bc",
            "oclc_abi_version_400.bc",
            "oclc_abi_version_500.bc",
            "oclc_isa_version_1030.bc",
            "oclc_isa_version_90a.bc",
            "README",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        let d = classify_names(PathBuf::from("/b"), "x".into(), &names);
        assert!(d.is_complete());
        assert_eq!(d.abi_versions, [400, 500]);
        assert!(d.has_isa("gfx1030") && d.has_isa("gfx90a") && !d.has_isa("gfx1100"));
        assert_eq!(d.file_count, 6);
    }
}

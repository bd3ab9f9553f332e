//! Key runtime libraries resolved as the dynamic loader would.
use super::Inventory;
use serde::Serialize;
use std::path::PathBuf;

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
    /// How the loader found it: `LD_LIBRARY_PATH`, `ld.so.conf`, `default dirs`, a ROCm root.
    pub how: String,
    /// Other copies found that the loader would not pick (different versions shadowed).
    pub others: Vec<PathBuf>,
}

pub fn resolve_all(_inv: &Inventory) -> Vec<LibraryResolution> {
    Vec::new()
}

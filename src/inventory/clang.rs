//! The clang that compiles HIP: which one, its version, resource dir, known AMDGPU processors,
//! and what its driver would do for a HIP device compile.
use super::Inventory;
use serde::Serialize;
use std::path::PathBuf;

#[derive(Debug, Clone, Serialize)]
pub struct ClangInfo {
    pub path: PathBuf,
    /// Why this clang was chosen (`--clang`, `HIP_CLANG_PATH`, ...).
    pub source: String,
}

#[derive(Debug, Clone, Default, Serialize)]
pub struct HipDriverView {}

pub fn discover(_inv: &Inventory) -> Option<ClangInfo> {
    None
}

pub fn hip_dry_run(_inv: &Inventory) -> HipDriverView {
    HipDriverView::default()
}

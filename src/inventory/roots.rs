//! ROCm roots: where ROCm is installed, how it is laid out, and who pointed at it.
use crate::config::Config;
use crate::host::Host;
use serde::Serialize;
use std::path::PathBuf;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Layout {
    /// AMD's packages: `/opt/rocm-X.Y.Z` (and the `/opt/rocm` link).
    OptRocm,
    /// A distribution's FHS layout (`/usr`, bitcode in `/usr/lib/<triplet>/amdgcn/bitcode`).
    Fhs,
    /// TheRock tarball or wheel: `lib/llvm/amdgcn/bitcode`.
    TheRock,
    /// One Nix store path holding one component.
    NixSplit,
    /// A Nix symlinkJoin tree merging components.
    NixJoined,
    /// Something else (a custom prefix).
    Custom,
}

#[derive(Debug, Clone, Serialize)]
pub struct RocmRoot {
    pub path: PathBuf,
    pub layout: Layout,
    /// Who pointed at this root: `--rocm-path`, `ROCM_PATH`, `PATH (hipcc)`, `/opt/rocm`...
    pub sources: Vec<String>,
}

pub fn discover(_host: &Host, _cfg: &Config) -> Vec<RocmRoot> {
    Vec::new()
}

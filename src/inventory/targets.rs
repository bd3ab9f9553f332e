//! Target ISAs: from `--isa`, the build-system variables, and the GPUs present.
use super::Inventory;
use crate::isa::TargetId;
use serde::Serialize;

#[derive(Debug, Clone, Serialize)]
pub struct TargetIsa {
    pub isa: TargetId,
    /// `--isa`, `AMDGPU_TARGETS`, `GPU_TARGETS`, `PYTORCH_ROCM_ARCH`, `agent N`.
    pub source: String,
}

#[derive(Debug, Clone, Default, Serialize)]
pub struct Targets {
    pub isas: Vec<TargetIsa>,
    /// Values that could not be parsed, with the reason (reported by the targets check).
    pub rejected: Vec<(String, String, String)>,
}

pub fn collect(inv: &Inventory) -> Targets {
    let mut t = Targets::default();
    for id in &inv.cfg.isas {
        t.isas.push(TargetIsa { isa: id.clone(), source: "--isa".into() });
    }
    t
}

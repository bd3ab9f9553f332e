//! GPU agents: KFD sysfs topology, device access, driver, visibility and overrides.

use crate::host::Host;
use crate::isa::TargetId;
use serde::Serialize;

/// What the machine shows of its GPUs.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Topology {
    pub agents: Vec<Agent>,
}

/// One KFD node that is a GPU.
#[derive(Debug, Clone, Serialize)]
pub struct Agent {
    /// KFD sysfs node number.
    pub node: u32,
    /// LLVM processor name (`gfx90a`), when `gfx_target_version` decodes.
    pub gfx: Option<String>,
    /// The target id the runtime would load code for (override applied, features when known).
    pub target: Option<TargetId>,
    /// Whether a HIP program would see it (visibility variables applied).
    pub visible: bool,
}

pub fn discover(_host: &Host) -> Topology {
    Topology::default()
}

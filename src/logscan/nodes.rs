//! Names the GPU behind ROCr's `node-N` (memory faults, HW exceptions) from this machine's KFD
//! topology: ROCr prints the KFD topology node id (`gpu_agent->node_id()` in rocm-systems
//! `runtime.cpp`; `/sys/class/kfd/kfd/topology/nodes/N`, see shared reference `hip-logs.md` 1.8).
//! The log may come from another machine, so the answer says "on this machine".

use crate::gpu::{fixture, sysfs};
use crate::host::Host;
use crate::isa::decode_gfx_target_version;
use std::collections::BTreeMap;

/// What a KFD node is on this machine.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum NodeName {
    /// A GPU node: its processor and PCI location (when known).
    Gpu {
        gfx: Option<String>,
        location: Option<String>,
    },
    /// The node exists and is a CPU.
    Cpu,
}

/// The KFD nodes of the machine `host` looks at (empty without a topology: no amdgpu here).
pub(crate) fn read(host: &Host) -> BTreeMap<u32, NodeName> {
    let fx = fixture::load(host);
    let topo = sysfs::read_topology(host, &fx);
    topo.nodes
        .iter()
        .filter(|n| n.unreadable.is_none())
        .map(|n| {
            let name = if n.is_gpu() {
                let p = &n.props;
                NodeName::Gpu {
                    gfx: p
                        .get("gfx_target_version")
                        .and_then(decode_gfx_target_version),
                    location: p
                        .get("location_id")
                        .map(|l| sysfs::bdf(p.get_or_zero("domain"), l)),
                }
            } else {
                NodeName::Cpu
            };
            (n.id, name)
        })
        .collect()
}

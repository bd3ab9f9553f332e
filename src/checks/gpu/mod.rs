//! GPU checks: driver, /dev/kfd, render nodes, agents and their ISAs, visibility, overrides,
//! XNACK mode and runtime initialisation. Facts come from `inv.gpu()` (src/gpu); each check
//! only judges them.

mod agents;
mod driver;
mod kfd;
mod layers;
mod nodes;
mod overrides;
mod processes;
mod render;
mod runtime_init;
#[cfg(test)]
mod tests;
mod visibility;
mod xnack;

use super::{CheckFn, CheckId, Ctx};
use crate::config::Profile;
use crate::gpu::Topology;
use crate::report::Finding;

pub(crate) const CHECKS: &[(CheckId, CheckFn)] = &[
    (CheckId::GpuDriver, driver::driver),
    (CheckId::GpuKfd, kfd::kfd),
    (CheckId::GpuRender, render::render),
    (CheckId::GpuAgents, agents::agents),
    (CheckId::GpuVisibility, visibility::visibility),
    (CheckId::GpuOverrides, overrides::overrides),
    (CheckId::GpuXnack, xnack::xnack),
    (CheckId::GpuRuntimeInit, runtime_init::runtime_init),
    (CheckId::GpuProcesses, processes::processes),
    (CheckId::GpuLayers, layers::layers),
];

const NO_GPU_FIX: &str = "Install a GPU supported by ROCm and load amdgpu (`sudo modprobe \
    amdgpu`; check `dmesg | grep -i -e amdgpu -e kfd`). In a container, pass the devices: \
    `--device=/dev/kfd --device=/dev/dri`.";

/// Why GPU checks stop early, or None to judge.
pub(crate) fn gate(ctx: &Ctx, t: &Topology, primary: bool) -> Option<Vec<Finding>> {
    if !t.environment.wsl.is_empty() {
        return Some(vec![Finding::skip(
            "WSL: ROCm on WSL drives the GPU through /dev/dxg, not KFD; KFD checks do not apply",
        )
        .evidence_lines(t.environment.wsl.clone())]);
    }
    if t.has_gpu_nodes() {
        return None;
    }
    let where_ = match &t.path {
        None => "no KFD topology (/sys/devices/virtual/kfd/kfd/topology and \
            /sys/class/kfd/kfd/topology are absent)"
            .to_string(),
        Some(p) => format!(
            "KFD topology {} lists {} node(s), none of them a GPU (simd_count 0)",
            p.display(),
            t.node_count
        ),
    };
    let f = match ctx.cfg.profile {
        Profile::Build if primary => Finding::skip(format!(
            "no GPU: {where_}; the build profile does not need one"
        )),
        Profile::Auto if primary => Finding::skip(format!(
            "no GPU to judge: {where_}; use --profile runtime to require one"
        )),
        Profile::Build | Profile::Auto => {
            Finding::skip(format!("no GPU to judge ({})", CheckId::GpuAgents.see()))
        }
        Profile::Runtime if primary => {
            Finding::fail(format!("no usable GPU: {where_}")).fix_text(NO_GPU_FIX)
        }
        Profile::Runtime => Finding::skip(format!(
            "nothing to check without a GPU ({where_}); {}",
            CheckId::GpuAgents.see()
        )),
    };
    Some(vec![f])
}

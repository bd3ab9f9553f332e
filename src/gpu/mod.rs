//! GPU agents: KFD sysfs topology, device access, driver, visibility and overrides.
//!
//! [`discover`] reads everything once (through `host.fs`, so `--sysroot` fixtures work) and
//! computes what a HIP program would see: which KFD nodes libhsakmt keeps, the ISA ROCr loads
//! code for (overrides applied), and the device order after `ROCR_VISIBLE_DEVICES` and
//! `HIP_VISIBLE_DEVICES`. The checks in `src/checks/gpu/` judge these facts.

pub mod access;
pub(crate) mod devnodes;
pub mod facts;
pub(crate) mod fixture;
pub mod health;
pub(crate) mod hsa;
pub(crate) mod layers;
pub mod overrides;
pub(crate) mod platform;
// The KFD properties parser lives in the parsers crate (crates/parsers).
pub use rocm_doctor_parsers::kfd_props as props;
pub(crate) mod sysfs;
pub mod visibility;

use crate::host::Host;
use crate::isa::{decode_gfx_target_version, processor, TargetId};
use devnodes::{Devices, NodeState};
use overrides::{parse_override, GfxVersion, OverrideError, XnackRequest};
use serde::Serialize;
use std::path::{Path, PathBuf};

/// What the machine shows of its GPUs.
#[derive(Debug, Clone, Default, Serialize)]
pub(crate) struct Topology {
    pub agents: Vec<Agent>,
    /// Where the topology was read from (None: no KFD topology).
    #[serde(skip)]
    pub path: Option<PathBuf>,
    #[serde(skip)]
    #[allow(dead_code)] // in --json (serde's derived Serialize is no read for the lint)
    pub generation_id: Option<u64>,
    /// Number of KFD nodes (CPU and GPU, readable or not).
    #[serde(skip)]
    pub node_count: usize,
    /// Nodes that could not be read, with the errno name (EPERM: hidden by the device cgroup).
    #[serde(skip)]
    pub unreadable_nodes: Vec<(u32, String)>,
    #[serde(skip)]
    pub problems: Vec<String>,
    #[serde(skip)]
    pub devices: Option<Devices>,
    /// `/dev/kfd`.
    #[serde(skip)]
    pub kfd: Option<NodeState>,
    #[serde(skip)]
    pub drm_cards: Vec<sysfs::DrmCard>,
    #[serde(skip)]
    pub driver: platform::Driver,
    #[serde(skip)]
    pub environment: platform::Environment,
    /// A fixture manifest that could not be used.
    #[serde(skip)]
    pub fixture_error: Option<String>,
    #[serde(skip)]
    pub visibility: VisibilityReport,
    /// Reasons ROCr's initialisation fails as a whole (then no agent is visible).
    #[serde(skip)]
    pub runtime_blocked: Vec<String>,
    #[serde(skip)]
    pub xnack_request: Option<XnackRequest>,
}

impl Topology {
    /// Whether KFD shows any GPU node (readable or hidden).
    pub(crate) fn has_gpu_nodes(&self) -> bool {
        !self.agents.is_empty() || !self.unreadable_nodes.is_empty()
    }
}

/// The visibility variables and their effect.
#[derive(Debug, Clone, Default)]
pub(crate) struct VisibilityReport {
    /// KFD node ids of the GPUs ROCr enumerates, in ROCr order (before any filter).
    pub rocr_base: Vec<u32>,
    pub rocr_value: Option<String>,
    pub rocr: visibility::Applied,
    /// Node ids after ROCr's filter, in ROCr's order.
    pub after_rocr: Vec<u32>,
    pub hip_variable: Option<(&'static str, String)>,
    pub hip: visibility::Applied,
    /// Node ids in HIP device order.
    pub hip_order: Vec<u32>,
    pub gpu_device_ordinal: Option<String>,
    /// `CUDA_VISIBLE_DEVICES` is set but ignored because `HIP_VISIBLE_DEVICES` is non-empty.
    pub cuda_shadowed: Option<String>,
}

/// An override applying to one agent.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct AgentOverride {
    /// `HSA_OVERRIDE_GFX_VERSION` or `HSA_OVERRIDE_GFX_VERSION_<n>`.
    pub variable: String,
    pub value: String,
    /// The processor ROCr loads code for, when the value is valid and names one.
    pub gfx: Option<String>,
    pub error: Option<String>,
}

/// One KFD node that is a GPU.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct Agent {
    /// KFD sysfs node number.
    pub node: u32,
    /// LLVM processor name (`gfx90a`) decoded from `gfx_target_version` (native, no override).
    pub gfx: Option<String>,
    /// Raw `gfx_target_version` (None on older kernels that lack the key).
    pub gfx_target_version: Option<u64>,
    /// The target id the runtime would load code for (override applied, features when known).
    pub target: Option<TargetId>,
    /// Whether a HIP program would see it (device access, visibility variables applied).
    pub visible: bool,
    /// KFD `name` (`ip discovery` on current parts), when the file exists.
    pub name: Option<String>,
    pub gpu_id: Option<u64>,
    pub vendor_id: Option<u64>,
    pub device_id: Option<u64>,
    /// The PCI revision of the GPU's DRM card (`device/revision`, joined by PCI address:
    /// [`sysfs::card_at`]); None without a card or a readable revision. KFD does not print it.
    pub pci_revision: Option<u8>,
    /// PCI address `dddd:bb:dd.f` from `domain` and `location_id`.
    pub location: Option<String>,
    pub compute_units: Option<u64>,
    pub simd_count: u64,
    pub wave_front_size: Option<u64>,
    /// VRAM from the frame-buffer `mem_banks` (or `local_mem_size` on old kernels).
    pub vram_bytes: Option<u64>,
    pub render_minor: Option<u64>,
    pub num_xcc: Option<u64>,
    pub hive_id: Option<u64>,
    pub unique_id: Option<u64>,
    pub capability: Option<u64>,
    /// Micro-engine firmware (`fw_version`) and SDMA firmware (`sdma_fw_version`) from KFD.
    pub fw_version: Option<u64>,
    pub sdma_fw_version: Option<u64>,
    /// An integrated GPU (APU).
    pub integrated: bool,
    /// libhsakmt's dense node id (what `HSA_OVERRIDE_GFX_VERSION_<n>` uses); None if skipped.
    pub user_node: Option<u32>,
    /// Index in ROCr's GPU list before `ROCR_VISIBLE_DEVICES`.
    pub rocr_index: Option<u32>,
    /// HIP device ordinal (after both filters).
    pub hip_index: Option<u32>,
    #[serde(rename = "override")]
    pub override_: Option<AgentOverride>,
    /// Why libhsakmt leaves this node out, if it does.
    pub excluded: Option<String>,
    /// The render node's state.
    #[serde(skip)]
    pub render: Option<NodeState>,
}

fn opt(p: &props::Properties, k: &str) -> Option<u64> {
    p.get(k)
}

/// VRAM: frame-buffer heaps (HSA_HEAPTYPE 1 public, 2 private) of the node's mem banks.
fn vram(node: &sysfs::RawNode) -> Option<u64> {
    let fb: Vec<u64> = node
        .mem_banks
        .iter()
        .filter(|b| matches!(b.get("heap_type"), Some(1 | 2)))
        .filter_map(|b| b.get("size_in_bytes"))
        .collect();
    if !fb.is_empty() {
        return Some(fb.iter().sum());
    }
    node.props.get("local_mem_size").filter(|v| *v > 0)
}

/// The XNACK mode agents run in: `HSA_XNACK` when set, else the driver's `noretry`
/// (`noretry=0` means XNACK on).
fn xnack_mode(request: XnackRequest, noretry: Option<i64>) -> Option<bool> {
    match request {
        XnackRequest::On => Some(true),
        XnackRequest::Off => Some(false),
        _ => match noretry {
            Some(1) => Some(false),
            Some(0) => Some(true),
            _ => None,
        },
    }
}

/// The override that applies to libhsakmt's user node `un`: the per-node variable (its dense
/// node id) wins over the global one. An invalid value is recorded in `blocked` (topology
/// initialisation fails).
fn agent_override(host: &Host, un: u32, blocked: &mut Vec<String>) -> Option<AgentOverride> {
    for var in [
        format!("HSA_OVERRIDE_GFX_VERSION_{un}"),
        "HSA_OVERRIDE_GFX_VERSION".to_string(),
    ] {
        if let Some(os) = host.env.get_os(&var) {
            let value = os.to_string_lossy().into_owned();
            let parsed: Result<GfxVersion, OverrideError> = parse_override(&value);
            if let Err(e) = &parsed {
                blocked.push(format!(
                    "{var}={value:?} is invalid for libhsakmt ({e}): topology initialisation fails"
                ));
            }
            return Some(AgentOverride {
                variable: var.clone(),
                value: value.clone(),
                gfx: parsed.as_ref().ok().and_then(|v| v.gfx()),
                error: parsed.as_ref().err().map(|e| e.to_string()),
            });
        }
    }
    None
}

/// The target id an agent runs as: the processor, and the SRAMECC (KFD capability bit 26) and
/// XNACK modes where the processor has them.
fn target_id(name: String, p: &props::Properties, xnack_mode: Option<bool>) -> TargetId {
    let info = processor(&name);
    let sramecc = info
        .filter(|i| i.sramecc)
        .and_then(|_| opt(p, "capability").map(|c| c & (1 << 26) != 0));
    let xnack = info.filter(|i| i.xnack).and(xnack_mode);
    TargetId {
        processor: name,
        sramecc,
        xnack,
    }
}

/// Visibility: ROCr's list is the kept GPU nodes in node order, then `ROCR_VISIBLE_DEVICES`,
/// then HIP's variable; sets each agent's ROCr and HIP index (HIP's only when nothing blocks
/// the runtime).
fn visibility_of(t: &mut Topology, env: &crate::host::Env) -> VisibilityReport {
    let mut v = VisibilityReport {
        rocr_value: env.get_str("ROCR_VISIBLE_DEVICES"),
        gpu_device_ordinal: env.get_str("GPU_DEVICE_ORDINAL"),
        ..Default::default()
    };
    let kept: Vec<usize> = (0..t.agents.len())
        .filter(|i| t.agents[*i].excluded.is_none())
        .collect();
    for (r, i) in kept.iter().enumerate() {
        t.agents[*i].rocr_index = Some(r as u32);
    }
    v.rocr_base = kept.iter().map(|i| t.agents[*i].node).collect();
    let uid_of = |i: usize| t.agents[i].unique_id.unwrap_or(0);
    let base_ids: Vec<u64> = kept.iter().map(|i| uid_of(*i)).collect();
    v.rocr = visibility::apply_rocr(v.rocr_value.as_deref(), &base_ids);
    let after: Vec<usize> = v.rocr.selected.iter().map(|s| kept[*s]).collect();
    v.after_rocr = after.iter().map(|i| t.agents[*i].node).collect();
    let hip = env.get_str("HIP_VISIBLE_DEVICES");
    let cuda = env.get_str("CUDA_VISIBLE_DEVICES");
    if hip.as_deref().is_some_and(|h| !h.is_empty()) {
        v.cuda_shadowed = cuda.clone().filter(|c| !c.is_empty());
    }
    v.hip_variable = visibility::hip_variable(hip.as_deref(), cuda.as_deref())
        .map(|(k, val)| (k, val.to_string()));
    let after_ids: Vec<u64> = after.iter().map(|i| uid_of(*i)).collect();
    v.hip = visibility::apply_hip(
        v.hip_variable.as_ref().map(|(_, val)| val.as_str()),
        &after_ids,
    );
    let order: Vec<usize> = v.hip.selected.iter().map(|s| after[*s]).collect();
    v.hip_order = order.iter().map(|i| t.agents[*i].node).collect();
    if t.runtime_blocked.is_empty() {
        for (h, i) in order.iter().enumerate() {
            t.agents[*i].hip_index = Some(h as u32);
            t.agents[*i].visible = true;
        }
    }
    v
}

/// The agent of one readable GPU node: its ISA and target, its render node (whether
/// libhsakmt can open it, skips it or fails on it), its user-visible number, override and
/// properties. Problems that stop the runtime go to `t.runtime_blocked`.
fn gpu_agent(
    host: &Host,
    devices: &Devices,
    node: &sysfs::RawNode,
    user_node: &mut u32,
    xnack_mode: Option<bool>,
    t: &mut Topology,
) -> Agent {
    let p = &node.props;
    let gtv = opt(p, "gfx_target_version");
    let gfx = gtv.and_then(decode_gfx_target_version);
    let minor = opt(p, "drm_render_minor").filter(|m| *m > 0);
    let render = minor.map(|m| devices.probe(host, &PathBuf::from(format!("/dev/dri/renderD{m}"))));
    let excluded = render_exclusion(node.id, minor, render.as_ref(), &mut t.runtime_blocked);
    let this_user_node = if excluded.is_none() {
        *user_node += 1;
        Some(*user_node - 1)
    } else {
        None
    };
    let ov = this_user_node.and_then(|un| agent_override(host, un, &mut t.runtime_blocked));
    let effective = ov
        .as_ref()
        .and_then(|o| o.gfx.clone())
        .or_else(|| gfx.clone());
    let target = effective.map(|name| target_id(name, p, xnack_mode));
    let simd = p.get_or_zero("simd_count");
    let integrated =
        gfx.as_deref().is_some_and(facts::is_apu_processor) || p.get_or_zero("cpu_cores_count") > 0;
    Agent {
        node: node.id,
        gfx,
        gfx_target_version: gtv,
        target,
        visible: false,
        name: node.name.clone(),
        gpu_id: node.gpu_id,
        vendor_id: opt(p, "vendor_id"),
        device_id: opt(p, "device_id"),
        pci_revision: None,
        location: opt(p, "location_id").map(|l| sysfs::bdf(p.get_or_zero("domain"), l)),
        compute_units: opt(p, "simd_per_cu").filter(|s| *s > 0).map(|s| simd / s),
        simd_count: simd,
        wave_front_size: opt(p, "wave_front_size"),
        vram_bytes: vram(node),
        render_minor: minor,
        num_xcc: opt(p, "num_xcc"),
        hive_id: opt(p, "hive_id"),
        unique_id: opt(p, "unique_id"),
        capability: opt(p, "capability"),
        fw_version: opt(p, "fw_version"),
        sdma_fw_version: opt(p, "sdma_fw_version"),
        integrated,
        user_node: this_user_node,
        rocr_index: None,
        hip_index: None,
        override_: ov,
        excluded,
        render,
    }
}

/// Whether libhsakmt skips a KFD node for its render node (`minor`, opened as `render` says):
/// why, when it does; a render node that stops the runtime goes to `blocked`.
fn render_exclusion(
    node: u32,
    minor: Option<u64>,
    render: Option<&NodeState>,
    blocked: &mut Vec<String>,
) -> Option<String> {
    match (minor, render) {
        (None, _) => blocked.push(format!(
            "KFD node {} has no drm_render_minor: libhsakmt fails topology initialisation",
            node
        )),
        (Some(m), Some(state)) => {
            if let Some(e) = state.open_errno() {
                if e == "ENOENT" || e == "EPERM" {
                    return Some(format!(
                        "/dev/dri/renderD{m}: {e} (libhsakmt skips the node)"
                    ));
                } else {
                    blocked.push(format!(
                        "/dev/dri/renderD{m} cannot be opened read-write ({e}): libhsakmt \
                         fails topology initialisation"
                    ));
                }
            }
        }
        _ => {}
    }
    None
}

pub(crate) fn discover(host: &Host) -> Topology {
    let fx = fixture::load(host);
    let raw = sysfs::read_topology(host, &fx);
    let devices = Devices::new(host, &fx);
    let mut t = Topology {
        path: raw.path.clone(),
        generation_id: raw.generation_id,
        node_count: raw.nodes.len(),
        problems: raw.problems.clone(),
        kfd: Some(devices.probe(host, Path::new("/dev/kfd"))),
        drm_cards: sysfs::amd_drm_cards(host, &fx),
        driver: platform::driver(host),
        environment: platform::environment(host),
        fixture_error: fx.error.clone(),
        ..Default::default()
    };
    let xnack = overrides::parse_hsa_xnack(host.env.get_str("HSA_XNACK").as_deref());
    t.xnack_request = Some(xnack);
    let xnack_mode = xnack_mode(xnack, t.driver.noretry);

    if let Some(kfd) = &t.kfd {
        if kfd.usable() == Some(false) {
            t.runtime_blocked.push(format!(
                "/dev/kfd cannot be opened read-write ({})",
                kfd.open_errno()
                    .unwrap_or_else(|| "not a character device".into())
            ));
        }
    }

    let mut user_node = 0u32;
    for node in &raw.nodes {
        if let Some(e) = &node.unreadable {
            t.unreadable_nodes.push((node.id, e.clone()));
            continue;
        }
        if !node.is_gpu() {
            user_node += 1;
            continue;
        }
        let agent = gpu_agent(host, &devices, node, &mut user_node, xnack_mode, &mut t);
        t.agents.push(agent);
    }
    for a in &mut t.agents {
        a.pci_revision = a
            .location
            .as_deref()
            .and_then(|l| sysfs::card_at(&t.drm_cards, l, a.device_id))
            .and_then(|c| c.revision);
    }

    t.visibility = visibility_of(&mut t, &host.env);
    t.devices = Some(devices);
    t
}

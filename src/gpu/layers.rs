//! Lost GPUs, named by layer (issue 26, item 4): every AMD GPU counted at each layer of the stack
//! a HIP program depends on, and the first layer where one went missing.
//!
//! The layers, in order:
//! 1. `pci`: PCI functions of vendor 0x1002 whose class amdgpu claims. amdgpu's id table
//!    (`drivers/gpu/drm/amd/amdgpu/amdgpu_drv.c`, `pciidlist`) ends with class matches for vendor
//!    0x1002 and any device: `PCI_CLASS_DISPLAY_VGA << 8`, `PCI_CLASS_DISPLAY_OTHER << 8` and,
//!    since the patch "drm/amdgpu: add the accelerator pcie class" (2023),
//!    `PCI_CLASS_ACCELERATOR_PROCESSING << 8`; older parts are listed by device id and are
//!    display controllers too. `include/linux/pci_ids.h`: base class 0x03 is a display
//!    controller (0x0300 VGA, 0x0302 3D, 0x0380 other), 0x1200 a processing accelerator. The
//!    other functions of vendor 0x1002 are not GPUs: the HDMI/DP audio function (0x0403), the
//!    ports of the PCIe switch inside a dGPU package (0x0604). `class` reads `0x%06x\n` and
//!    `vendor` `0x%04x\n` (`drivers/pci/pci-sysfs.c`).
//! 2. `amdgpu`: the function's `driver` link names `amdgpu` (the PCI core's link to
//!    `/sys/bus/pci/drivers/<name>`, `drivers/base/bus.c`); `vfio-pci` and no link at all are
//!    told apart.
//! 3. `drm`: a DRM card and render node under the function (`drm/cardN`, `drm/renderDN`, made by
//!    `drm_dev_register`), else the `/sys/class/drm` cards already read by [`super::discover`].
//! 4. `kfd`: a KFD topology node whose `domain` and `location_id` name the function. On a
//!    partitioned GPU (MI300 CPX) KFD ORs the partition index into `location_id`
//!    (`amdkfd/kfd_topology.c`, `kfd_topology_add_device`: `if (gpu->kfd->num_nodes > 1)
//!    location_id |= node_id`), which lands on the function bits: such nodes belong to the
//!    function 0 of the same slot. One GPU may therefore have several KFD nodes.
//! 5. `rocr`: nodes ROCr can use: libhsakmt keeps the node (its render node opens) and nothing
//!    stops ROCr's initialisation (`/dev/kfd`, overrides): [`super::Topology::runtime_blocked`].
//! 6. `hip`: nodes HIP shows after `ROCR_VISIBLE_DEVICES` and `HIP_VISIBLE_DEVICES`
//!    ([`super::VisibilityReport`]).
//!
//! Everything above the PCI scan comes from the topology discovered once per run; this module
//! only adds the scan of `/sys/bus/pci/devices` (sysfs reads, no child process) and the pure
//! [`assess`]. A layer whose source this root does not have (a capture of KFD only, a container
//! without `/sys/bus/pci`) is "not observed" and loses nothing.

use super::fixture::Fixture;
use super::sysfs::unsupported_errno;
use super::{sysfs, Topology};
use crate::host::{errno_name, Host};
use serde::Serialize;
use std::collections::BTreeMap;
use std::io;
use std::path::Path;

/// Where the PCI core lists every function (`drivers/pci/pci-sysfs.c`, `bus_add_device`).
pub(crate) const PCI_DEVICES: &str = "/sys/bus/pci/devices";
/// The DRM class directory (`drivers/gpu/drm/drm_sysfs.c`).
pub(crate) const DRM_CLASS: &str = "/sys/class/drm";
/// No more PCI functions than this are looked at (a large server has a few hundred).
const MAX_FUNCTIONS: usize = 4096;
/// PCI vendor id of AMD's graphics functions (ATI's id, `PCI_VENDOR_ID_ATI`).
pub(crate) const VENDOR_AMD_GPU: u32 = 0x1002;

/// The layers, in the order a GPU passes them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
pub(crate) enum Layer {
    Pci,
    Amdgpu,
    Drm,
    Kfd,
    Rocr,
    Hip,
}

impl Layer {
    pub(crate) const ALL: [Layer; 6] = [
        Layer::Pci,
        Layer::Amdgpu,
        Layer::Drm,
        Layer::Kfd,
        Layer::Rocr,
        Layer::Hip,
    ];
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Layer::Pci => "pci",
            Layer::Amdgpu => "amdgpu",
            Layer::Drm => "drm",
            Layer::Kfd => "kfd",
            Layer::Rocr => "rocr",
            Layer::Hip => "hip",
        }
    }
}

/// The driver bound to a PCI function.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "state", content = "detail", rename_all = "kebab-case")]
pub(crate) enum Binding {
    Amdgpu,
    /// Another driver, by name (`vfio-pci`, `radeon`).
    Other(String),
    /// No `driver` link.
    None,
    /// The link could not be read (errno name).
    Unreadable(String),
}

/// One AMD GPU function on the PCI bus.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub(crate) struct PciGpu {
    /// `dddd:bb:dd.f`.
    pub pci: String,
    /// `vendor:device` (`1002:74a1`).
    pub id: String,
    /// The class code as the kernel prints it (`0x030000`).
    pub class: String,
    pub driver: Binding,
    /// `cardN` under the function's `drm/`.
    pub card: Option<String>,
    /// `renderDN` under the function's `drm/`.
    pub render: Option<String>,
}

/// The scan of `/sys/bus/pci/devices`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub(crate) struct PciScan {
    /// The directory could be listed (else the PCI and driver layers are not observed).
    pub observed: bool,
    /// Why it could not be listed (`absent`, or an errno name).
    pub unobserved: Option<String>,
    /// Functions listed (every vendor).
    pub functions: usize,
    pub gpus: Vec<PciGpu>,
    /// Files that exist but could not be read, or not in the kernel's format: "could not
    /// read", never a verdict.
    pub unreadable: Vec<String>,
    /// Reads refused as not supported (EINVAL, EOPNOTSUPP, ENODATA, ENODEV): not a problem.
    pub unsupported: Vec<String>,
    /// `/sys/class/drm` exists (the DRM layer is observed through it when PCI is not).
    pub drm_class: bool,
}

/// Whether amdgpu claims a function of this class (module doc).
pub(crate) fn is_gpu_class(class: u32) -> bool {
    class >> 16 == 0x03 || class >> 8 == 0x1200
}

/// `0x1002\n` → 0x1002 (PCI sysfs hex, `0x` prefix optional).
pub(crate) fn parse_hex(s: &str) -> Option<u32> {
    let t = s.trim();
    let t = t
        .strip_prefix("0x")
        .or_else(|| t.strip_prefix("0X"))
        .unwrap_or(t);
    if t.is_empty() || t.len() > 8 {
        return None;
    }
    u32::from_str_radix(t, 16).ok()
}

enum Read {
    Absent,
    Value(u32),
    Problem,
}

/// Reads one hex id file; problems are recorded in `scan`.
fn read_hex(host: &Host, fx: &Fixture, p: &Path, scan: &mut PciScan) -> Read {
    match sysfs::read(host, fx, p) {
        Ok(s) => match parse_hex(&s) {
            Some(v) => Read::Value(v),
            None => {
                scan.unreadable.push(format!(
                    "{}: not a hex id: {:?}",
                    p.display(),
                    s.trim().chars().take(20).collect::<String>()
                ));
                Read::Problem
            }
        },
        Err(e) if e.kind() == io::ErrorKind::NotFound => Read::Absent,
        Err(e) if unsupported_errno(&e) => {
            scan.unsupported
                .push(format!("{}: {}", p.display(), errno_name(&e)));
            Read::Problem
        }
        Err(e) => {
            scan.unreadable
                .push(format!("{}: {}", p.display(), errno_name(&e)));
            Read::Problem
        }
    }
}

fn list(host: &Host, fx: &Fixture, p: &Path) -> io::Result<Vec<String>> {
    if let Some(e) = fx.denied(p) {
        return Err(e);
    }
    let mut v: Vec<String> = host
        .fs
        .read_dir(p)?
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    Ok(v)
}

/// The PCI address rule lives with the health parsers in the parsers crate (crates/parsers).
pub(crate) use rocm_doctor_parsers::gpu_health::parse::is_pci_address;

/// Reads the AMD GPU functions of the PCI bus: `vendor` of every function, `class` of AMD ones,
/// then the `driver` link and the `drm/` listing of the GPUs. Reads go through the fixture's
/// deny rules like every sysfs read of [`super::discover`].
pub(crate) fn read_pci(host: &Host, fx: &Fixture) -> PciScan {
    let mut scan = PciScan {
        drm_class: host.fs.is_dir(Path::new(DRM_CLASS)),
        ..Default::default()
    };
    let base = Path::new(PCI_DEVICES);
    let names = match list(host, fx, base) {
        Ok(n) => n,
        Err(e) => {
            scan.unobserved = Some(if e.kind() == io::ErrorKind::NotFound {
                "absent".into()
            } else {
                errno_name(&e)
            });
            return scan;
        }
    };
    scan.observed = true;
    for name in names.into_iter().filter(|n| is_pci_address(n)) {
        scan.functions += 1;
        if scan.functions > MAX_FUNCTIONS {
            scan.unreadable.push(format!(
                "{PCI_DEVICES}: more than {MAX_FUNCTIONS} functions, the rest not read"
            ));
            break;
        }
        let dir = base.join(&name);
        let Read::Value(vendor) = read_hex(host, fx, &dir.join("vendor"), &mut scan) else {
            continue;
        };
        if vendor != VENDOR_AMD_GPU {
            continue;
        }
        let Read::Value(class) = read_hex(host, fx, &dir.join("class"), &mut scan) else {
            continue;
        };
        if !is_gpu_class(class) {
            continue;
        }
        let device = match read_hex(host, fx, &dir.join("device"), &mut scan) {
            Read::Value(d) => format!("{d:04x}"),
            _ => "????".into(),
        };
        let link = dir.join("driver");
        let driver = match fx
            .denied(&link)
            .map_or_else(|| host.fs.read_link(&link), Err)
        {
            Ok(t) => match t.file_name().map(|n| n.to_string_lossy().into_owned()) {
                Some(n) if n == "amdgpu" => Binding::Amdgpu,
                Some(n) => Binding::Other(n),
                None => Binding::Unreadable("EINVAL".into()),
            },
            Err(e) if e.kind() == io::ErrorKind::NotFound => Binding::None,
            Err(e) => {
                scan.unreadable
                    .push(format!("{}: {}", link.display(), errno_name(&e)));
                Binding::Unreadable(errno_name(&e))
            }
        };
        let drm = list(host, fx, &dir.join("drm")).unwrap_or_default();
        let numbered = |prefix: &str| {
            drm.iter()
                .find(|n| {
                    n.strip_prefix(prefix)
                        .is_some_and(|d| !d.is_empty() && d.bytes().all(|b| b.is_ascii_digit()))
                })
                .cloned()
        };
        scan.gpus.push(PciGpu {
            pci: name.to_ascii_lowercase(),
            id: format!("1002:{device}"),
            class: format!("0x{class:06x}"),
            driver,
            card: numbered("card"),
            render: numbered("renderD"),
        });
    }
    scan
}

/// Why a GPU did not reach a layer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub(crate) enum Cause {
    /// On the PCI bus, no driver bound.
    NoDriver,
    /// Bound to vfio-pci (kept for a virtual machine).
    Vfio,
    /// Bound to another driver (`radeon`).
    OtherDriver,
    /// amdgpu bound, no DRM card.
    NoDrmCard,
    /// A DRM card without a render node.
    NoRenderNode,
    /// No KFD node names the function.
    NoKfdNode,
    /// The KFD node is hidden from this process (EPERM: a device cgroup, Slurm's
    /// ConstrainDevices, a container given other GPUs).
    HiddenFromProcess,
    /// ROCr cannot use the node (render node or /dev/kfd not openable, an invalid override).
    NotUsable,
    /// The visibility variables hide it.
    HiddenByVariable,
}

impl Cause {
    /// The stable kebab-case name (the finding's event).
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Cause::NoDriver => "no-driver",
            Cause::Vfio => "vfio",
            Cause::OtherDriver => "other-driver",
            Cause::NoDrmCard => "no-drm-card",
            Cause::NoRenderNode => "no-render-node",
            Cause::NoKfdNode => "no-kfd-node",
            Cause::HiddenFromProcess => "hidden-from-process",
            Cause::NotUsable => "not-usable",
            Cause::HiddenByVariable => "hidden-by-variable",
        }
    }
}

/// The first layer a GPU did not reach, and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub(crate) struct Loss {
    pub layer: Layer,
    pub cause: Cause,
    /// What was seen, in words (`bound to vfio-pci`, `/dev/dri/renderD129: ENOENT`).
    pub detail: String,
    /// Chosen by someone (a device cgroup, the visibility variables): reported, not a failure.
    pub deliberate: bool,
}

/// One GPU (a PCI function, or what a layer shows of one when PCI is not observed).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub(crate) struct GpuPath {
    pub pci: String,
    /// `1002:74a1` (PCI, else the KFD node's device id).
    pub id: Option<String>,
    pub driver: Option<Binding>,
    pub card: Option<String>,
    pub render: Option<String>,
    /// KFD nodes of this GPU (several on a partitioned GPU).
    pub kfd_nodes: Vec<u32>,
    pub rocr_nodes: usize,
    pub hip_nodes: usize,
    /// The layers it is present at.
    pub present: Vec<Layer>,
    pub lost: Option<Loss>,
}

impl GpuPath {
    pub(crate) fn at(&self, l: Layer) -> bool {
        self.present.contains(&l)
    }
}

/// The count at one layer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub(crate) struct LayerCount {
    pub layer: Layer,
    /// This root shows the layer's source.
    pub observed: bool,
    /// GPUs present at the layer.
    pub gpus: usize,
    /// KFD nodes at the layer (kfd, rocr, hip; a partitioned GPU has several).
    pub nodes: Option<usize>,
}

/// Every GPU across the layers.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub(crate) struct Layers {
    pub counts: Vec<LayerCount>,
    pub gpus: Vec<GpuPath>,
    /// KFD nodes that could not be read (node id, errno name): EPERM is a device cgroup.
    pub hidden_kfd_nodes: Vec<(u32, String)>,
    pub pci: PciScan,
}

impl Layers {
    /// GPUs with at least one node ROCr can use.
    pub(crate) fn usable(&self) -> usize {
        self.gpus.iter().filter(|g| g.at(Layer::Rocr)).count()
    }
    /// The count at one layer.
    pub(crate) fn count(&self, l: Layer) -> Option<&LayerCount> {
        self.counts.iter().find(|c| c.layer == l)
    }
    /// `pci 2 → amdgpu 2 → drm 2 → kfd 2 (16 nodes) → rocr 2 (16) → hip 2 (16)`.
    pub(crate) fn line(&self) -> String {
        self.counts
            .iter()
            .map(|c| {
                if !c.observed {
                    return format!("{} not observed", c.layer.as_str());
                }
                match c.nodes {
                    Some(n) if n != c.gpus => {
                        format!("{} {} ({n} nodes)", c.layer.as_str(), c.gpus)
                    }
                    _ => format!("{} {}", c.layer.as_str(), c.gpus),
                }
            })
            .collect::<Vec<_>>()
            .join(" → ")
    }
}

/// What the topology says of one KFD GPU node, as [`assess`] needs it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct KfdGpu {
    pub node: u32,
    /// `dddd:bb:dd.f` from `domain` + `location_id` (partition index included).
    pub location: Option<String>,
    pub device_id: Option<u64>,
    pub unique_id: Option<u64>,
    /// libhsakmt keeps it (None) or why not.
    pub excluded: Option<String>,
    /// The render node's open errno when libhsakmt skips it (`ENOENT`, `EPERM`).
    pub render_errno: Option<String>,
    pub visible: bool,
}

/// The facts of the topology [`assess`] uses.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct KfdView {
    pub observed: bool,
    pub nodes: Vec<KfdGpu>,
    pub hidden: Vec<(u32, String)>,
    /// AMD DRM cards of `/sys/class/drm`: card, PCI address, device id.
    pub drm_cards: Vec<(String, Option<String>, Option<u32>)>,
    pub runtime_blocked: Vec<String>,
    pub in_container: bool,
}

impl KfdView {
    pub(crate) fn of(t: &Topology) -> Self {
        KfdView {
            observed: t.path.is_some(),
            nodes: t
                .agents
                .iter()
                .map(|a| KfdGpu {
                    node: a.node,
                    location: a.location.clone(),
                    device_id: a.device_id,
                    unique_id: a.unique_id,
                    excluded: a.excluded.clone(),
                    render_errno: a.render.as_ref().and_then(|r| r.open_errno()),
                    visible: a.visible,
                })
                .collect(),
            hidden: t.unreadable_nodes.clone(),
            drm_cards: t
                .drm_cards
                .iter()
                .map(|c| (c.card.clone(), c.pci_slot.clone(), c.device_id))
                .collect(),
            runtime_blocked: t.runtime_blocked.clone(),
            in_container: !t.environment.container.is_empty(),
        }
    }
}

/// `dddd:bb:dd.f` with the function set to 0.
fn function0(addr: &str) -> String {
    format!("{}0", &addr[..addr.len() - 1])
}

/// The GPU a KFD node belongs to: its own address when that is a known GPU (`exact`), else
/// function 0 of its slot when that is a GPU (`slot`: a partition, module doc), else its own.
fn physical(addr: &str, exact: &dyn Fn(&str) -> bool, slot: &dyn Fn(&str) -> bool) -> String {
    if exact(addr) || !addr.ends_with(|c: char| c.is_ascii_digit() && c != '0') {
        return addr.to_string();
    }
    let f0 = function0(addr);
    if slot(&f0) {
        f0
    } else {
        addr.to_string()
    }
}

/// Which layers this run could see.
#[derive(Clone, Copy)]
struct Observed {
    pci: bool,
    drm: bool,
    kfd: bool,
}

impl Observed {
    fn of(pci: &PciScan, kfd: &KfdView) -> Self {
        Observed {
            pci: pci.observed,
            drm: pci.observed || pci.drm_class,
            kfd: kfd.observed,
        }
    }

    fn layer(self, l: Layer) -> bool {
        match l {
            Layer::Pci | Layer::Amdgpu => self.pci,
            Layer::Drm => self.drm,
            Layer::Kfd | Layer::Rocr | Layer::Hip => self.kfd,
        }
    }
}

fn blank_path(pci: &str) -> GpuPath {
    GpuPath {
        pci: pci.to_string(),
        id: None,
        driver: None,
        card: None,
        render: None,
        kfd_nodes: Vec::new(),
        rocr_nodes: 0,
        hip_nodes: 0,
        present: Vec::new(),
        lost: None,
    }
}

/// The GPUs of the PCI scan; without the scan, those the DRM cards name (the driver layer
/// made them).
fn gpus_of_pci_and_drm(pci: &PciScan, kfd: &KfdView) -> BTreeMap<String, GpuPath> {
    let mut gpus: BTreeMap<String, GpuPath> = BTreeMap::new();
    for g in &pci.gpus {
        let mut p = blank_path(&g.pci);
        p.id = Some(g.id.clone());
        p.driver = Some(g.driver.clone());
        p.card = g.card.clone();
        p.render = g.render.clone();
        gpus.insert(g.pci.clone(), p);
    }
    if !pci.observed {
        for (card, slot, device) in &kfd.drm_cards {
            if let Some(s) = slot.as_deref().filter(|s| is_pci_address(s)) {
                let g = gpus.entry(s.to_string()).or_insert_with(|| blank_path(s));
                g.card.get_or_insert_with(|| card.clone());
                if g.id.is_none() {
                    g.id = device.map(|d| format!("1002:{d:04x}"));
                }
            }
        }
    }
    gpus
}

/// KFD nodes onto their GPUs: partitions join function 0 of their slot when a GPU (or another
/// node of the same unique_id) is there. A node counts for ROCr unless excluded (or ROCr is
/// blocked), for HIP when also visible.
fn place_kfd_nodes(gpus: &mut BTreeMap<String, GpuPath>, pci: &PciScan, kfd: &KfdView) {
    let node_at = |addr: &str, uid: Option<u64>| {
        kfd.nodes
            .iter()
            .any(|n| n.location.as_deref() == Some(addr) && n.unique_id == uid)
    };
    let blocked = !kfd.runtime_blocked.is_empty();
    for n in &kfd.nodes {
        let Some(loc) = n.location.as_deref() else {
            continue;
        };
        let exact = |a: &str| gpus.contains_key(a);
        let slot = |a: &str| gpus.contains_key(a) || (!pci.observed && node_at(a, n.unique_id));
        let at = physical(loc, &exact, &slot);
        let g = gpus.entry(at.clone()).or_insert_with(|| blank_path(&at));
        if g.id.is_none() {
            g.id = n.device_id.map(|d| format!("1002:{d:04x}"));
        }
        g.kfd_nodes.push(n.node);
        if n.excluded.is_none() && !blocked {
            g.rocr_nodes += 1;
            if n.visible {
                g.hip_nodes += 1;
            }
        }
    }
}

/// Each GPU's layers, and where it was lost: the first observed layer it misses after one it
/// reached. KFD nodes hidden from this process cannot be placed: they account for as many GPUs
/// that reach DRM and no further.
fn trace_paths(
    gpus: &mut BTreeMap<String, GpuPath>,
    pci: &PciScan,
    kfd: &KfdView,
    observed: Observed,
) {
    let pci_gpus: Vec<&str> = pci.gpus.iter().map(|g| g.pci.as_str()).collect();
    let mut hidden_left = kfd.hidden.len();
    for g in gpus.values_mut() {
        let on_pci = pci_gpus.contains(&g.pci.as_str());
        let has = |l: Layer| match l {
            Layer::Pci => on_pci,
            Layer::Amdgpu => g.driver == Some(Binding::Amdgpu),
            Layer::Drm => g.card.is_some() && (!pci.observed || g.render.is_some()),
            Layer::Kfd => !g.kfd_nodes.is_empty(),
            Layer::Rocr => g.rocr_nodes > 0,
            Layer::Hip => g.hip_nodes > 0,
        };
        g.present = Layer::ALL
            .into_iter()
            .filter(|l| observed.layer(*l) && has(*l))
            .collect();
        let mut seen = false;
        for l in Layer::ALL.into_iter().filter(|l| observed.layer(*l)) {
            if g.at(l) {
                seen = true;
                continue;
            }
            // First seen at a later layer (its PCI files unreadable), or a driver link that
            // could not be read: unknown, not lost.
            if !seen || (l == Layer::Amdgpu && matches!(g.driver, Some(Binding::Unreadable(_)))) {
                continue;
            }
            g.lost = Some(loss(l, g, kfd, &mut hidden_left));
            break;
        }
    }
}

/// GPUs (and, for KFD, ROCr and HIP, nodes) at each layer.
fn count_layers(gpus: &[GpuPath], observed: Observed) -> Vec<LayerCount> {
    Layer::ALL
        .into_iter()
        .map(|l| LayerCount {
            layer: l,
            observed: observed.layer(l),
            gpus: gpus.iter().filter(|g| g.at(l)).count(),
            nodes: match l {
                Layer::Kfd => Some(gpus.iter().map(|g| g.kfd_nodes.len()).sum()),
                Layer::Rocr => Some(gpus.iter().map(|g| g.rocr_nodes).sum()),
                Layer::Hip => Some(gpus.iter().map(|g| g.hip_nodes).sum()),
                _ => None,
            }
            .filter(|_| observed.layer(l)),
        })
        .collect()
}

/// The layer counts and the losses, from the PCI scan and the topology (pure).
pub(crate) fn assess(pci: PciScan, kfd: &KfdView) -> Layers {
    let observed = Observed::of(&pci, kfd);
    let mut gpus = gpus_of_pci_and_drm(&pci, kfd);
    place_kfd_nodes(&mut gpus, &pci, kfd);
    trace_paths(&mut gpus, &pci, kfd, observed);
    let mut out_gpus: Vec<GpuPath> = gpus.into_values().collect();
    out_gpus.sort_by(|a, b| a.pci.cmp(&b.pci));
    Layers {
        counts: count_layers(&out_gpus, observed),
        gpus: out_gpus,
        hidden_kfd_nodes: kfd.hidden.clone(),
        pci,
    }
}

fn loss(l: Layer, g: &GpuPath, kfd: &KfdView, hidden_left: &mut usize) -> Loss {
    let mk = |cause, detail: String, deliberate| Loss {
        layer: l,
        cause,
        detail,
        deliberate,
    };
    match l {
        Layer::Pci => mk(Cause::NoDriver, "not on the PCI bus".into(), false),
        Layer::Amdgpu => match &g.driver {
            Some(Binding::Other(d)) if d == "vfio-pci" => mk(
                Cause::Vfio,
                "bound to vfio-pci (kept for a virtual machine), not amdgpu".into(),
                false,
            ),
            Some(Binding::Other(d)) => mk(
                Cause::OtherDriver,
                format!("bound to {d}, not amdgpu"),
                false,
            ),
            _ => mk(
                Cause::NoDriver,
                "AMD GPU on the PCI bus with no driver bound".into(),
                false,
            ),
        },
        Layer::Drm => match &g.card {
            None => mk(
                Cause::NoDrmCard,
                "amdgpu bound but no DRM card (drm/ has no cardN)".into(),
                false,
            ),
            Some(c) => mk(
                Cause::NoRenderNode,
                format!("amdgpu bound, DRM {c} but no render node (drm/ has no renderDN)"),
                false,
            ),
        },
        Layer::Kfd => {
            let (cause, detail, deliberate) = kfd_loss(g, kfd, hidden_left);
            mk(cause, detail, deliberate)
        }
        Layer::Rocr => {
            let (cause, detail, deliberate) = rocr_loss(g, kfd);
            mk(cause, detail, deliberate)
        }
        Layer::Hip => mk(
            Cause::HiddenByVariable,
            "hidden by the visibility variables".into(),
            true,
        ),
    }
}

/// Why a GPU the driver has is not at the KFD layer: a node this process may not read (the
/// hidden nodes are handed out in order, `hidden_left` counts them down), else no node.
fn kfd_loss(g: &GpuPath, kfd: &KfdView, hidden_left: &mut usize) -> (Cause, String, bool) {
    if *hidden_left > 0 {
        *hidden_left -= 1;
        let (n, e) = &kfd.hidden[kfd.hidden.len() - 1 - *hidden_left];
        (
            Cause::HiddenFromProcess,
            format!(
                "no KFD node readable by this process: KFD node {n} is {e}, likely \
                this GPU's (a device cgroup gives this process other GPUs)"
            ),
            e == "EPERM",
        )
    } else {
        let via = match &g.card {
            Some(c) if g.driver == Some(Binding::Amdgpu) => format!("amdgpu bound ({c})"),
            Some(c) => format!("DRM {c}"),
            None => "amdgpu bound".into(),
        };
        (Cause::NoKfdNode, format!("{via} but no KFD node"), false)
    }
}

/// Why a GPU with a KFD node is not one ROCr uses: the runtime cannot start, or libhsakmt
/// skips its node (deliberately when a cgroup or a container leaves it out).
fn rocr_loss(g: &GpuPath, kfd: &KfdView) -> (Cause, String, bool) {
    if !kfd.runtime_blocked.is_empty() {
        return (
            Cause::NotUsable,
            format!("ROCr cannot initialise: {}", kfd.runtime_blocked.join("; ")),
            false,
        );
    }
    let n = kfd
        .nodes
        .iter()
        .find(|n| g.kfd_nodes.contains(&n.node) && n.excluded.is_some());
    let errno = n.and_then(|n| n.render_errno.clone()).unwrap_or_default();
    let why = n
        .and_then(|n| n.excluded.clone())
        .unwrap_or_else(|| "libhsakmt skips its nodes".into());
    // EPERM: a device cgroup denies the node; ENOENT in a container: not passed in.
    let deliberate = errno == "EPERM" || (errno == "ENOENT" && kfd.in_container);
    (
        if deliberate {
            Cause::HiddenFromProcess
        } else {
            Cause::NotUsable
        },
        why,
        deliberate,
    )
}

/// PCI vendor id of NVIDIA (`PCI_VENDOR_ID_NVIDIA`, `include/linux/pci_ids.h`).
pub(crate) const VENDOR_NVIDIA: u32 = 0x10de;

/// GPU functions (display or accelerator class, [`is_gpu_class`]) on a PCI bus, by vendor.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct PciGpus {
    pub amd: usize,
    pub nvidia: usize,
}

/// The GPU functions (display or accelerator class, [`is_gpu_class`]) of AMD and NVIDIA on the
/// PCI bus, counted: what `why` needs to read a text that names no GPU against this machine
/// (`packs::here`). Reads `vendor` of every function and `class` of those two vendors' only;
/// a file that cannot be read counts for nothing. None when the bus cannot be listed.
pub(crate) fn gpu_vendors(host: &Host, fx: &Fixture) -> Option<PciGpus> {
    let base = Path::new(PCI_DEVICES);
    let names = list(host, fx, base).ok()?;
    let mut out = PciGpus::default();
    let mut scratch = PciScan::default();
    for name in names
        .into_iter()
        .filter(|n| is_pci_address(n))
        .take(MAX_FUNCTIONS)
    {
        let dir = base.join(&name);
        let Read::Value(vendor) = read_hex(host, fx, &dir.join("vendor"), &mut scratch) else {
            continue;
        };
        if vendor != VENDOR_AMD_GPU && vendor != VENDOR_NVIDIA {
            continue;
        }
        let Read::Value(class) = read_hex(host, fx, &dir.join("class"), &mut scratch) else {
            continue;
        };
        if !is_gpu_class(class) {
            continue;
        }
        if vendor == VENDOR_AMD_GPU {
            out.amd += 1;
        } else {
            out.nvidia += 1;
        }
    }
    Some(out)
}

/// Reads the PCI bus and assesses every GPU against the topology already discovered.
pub(crate) fn read(host: &Host, t: &Topology) -> Layers {
    let fx = t
        .devices
        .as_ref()
        .map(|d| d.fixture().clone())
        .unwrap_or_default();
    assess(read_pci(host, &fx), &KfdView::of(t))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classes_amdgpu_claims() {
        // pci_ids.h: 0x0300 VGA, 0x0380 display other, 0x1200 processing accelerator.
        for c in [0x030000, 0x038000, 0x030200, 0x120000] {
            assert!(is_gpu_class(c), "{c:06x}");
        }
        // HDMI audio, PCI bridge (the switch in a dGPU package), encryption (PSP), USB.
        for c in [0x040300, 0x060400, 0x108000, 0x0c0330, 0x130000] {
            assert!(!is_gpu_class(c), "{c:06x}");
        }
    }

    #[test]
    fn hex_ids_in_the_kernel_format() {
        assert_eq!(parse_hex("0x1002\n"), Some(0x1002));
        assert_eq!(parse_hex("0x030000\n"), Some(0x030000));
        assert_eq!(parse_hex(""), None);
        assert_eq!(parse_hex("0xzz"), None);
        assert_eq!(parse_hex("0x1234567890"), None);
    }

    #[test]
    fn pci_addresses_as_the_pci_core_names_them() {
        for a in ["0000:03:00.0", "10000:e1:00.7", "0001:c3:1f.1"] {
            assert!(is_pci_address(a), "{a}");
        }
        for a in [
            "0000:03:00",
            "000:03:00.0",
            "0000:03:00.8",
            "0000:3:00.0",
            "pci0000:00",
            "0000:03:00.0:1",
        ] {
            assert!(!is_pci_address(a), "{a}");
        }
    }

    #[test]
    fn partitions_join_function_zero() {
        let known = |a: &str| a == "0000:05:00.0";
        assert_eq!(physical("0000:05:00.3", &known, &known), "0000:05:00.0");
        assert_eq!(physical("0000:05:00.0", &known, &known), "0000:05:00.0");
        // Not a partition of anything known: its own address.
        assert_eq!(physical("0000:06:00.1", &known, &known), "0000:06:00.1");
    }

    fn gpu(pci: &str, driver: Binding, drm: bool) -> PciGpu {
        PciGpu {
            pci: pci.into(),
            id: "1002:740f".into(),
            class: "0x038000".into(),
            driver,
            card: drm.then(|| "card0".into()),
            render: drm.then(|| "renderD128".into()),
        }
    }

    fn node(n: u32, loc: &str) -> KfdGpu {
        KfdGpu {
            node: n,
            location: Some(loc.into()),
            device_id: Some(0x740f),
            unique_id: Some(7),
            excluded: None,
            render_errno: None,
            visible: true,
        }
    }

    fn scan(gpus: Vec<PciGpu>) -> PciScan {
        PciScan {
            observed: true,
            functions: gpus.len(),
            gpus,
            ..Default::default()
        }
    }

    fn view(nodes: Vec<KfdGpu>) -> KfdView {
        KfdView {
            observed: true,
            nodes,
            ..Default::default()
        }
    }

    #[test]
    fn each_layer_names_its_loss() {
        let l = assess(
            scan(vec![
                gpu("0000:03:00.0", Binding::Amdgpu, true),
                gpu("0000:8a:00.0", Binding::None, false),
                gpu("0000:8b:00.0", Binding::Other("vfio-pci".into()), false),
                gpu("0000:8c:00.0", Binding::Amdgpu, false),
                gpu("0000:8d:00.0", Binding::Amdgpu, true),
            ]),
            &view(vec![node(1, "0000:03:00.0")]),
        );
        let lost: Vec<(&str, Option<Cause>)> = l
            .gpus
            .iter()
            .map(|g| (g.pci.as_str(), g.lost.as_ref().map(|x| x.cause)))
            .collect();
        assert_eq!(
            lost,
            [
                ("0000:03:00.0", None),
                ("0000:8a:00.0", Some(Cause::NoDriver)),
                ("0000:8b:00.0", Some(Cause::Vfio)),
                ("0000:8c:00.0", Some(Cause::NoDrmCard)),
                ("0000:8d:00.0", Some(Cause::NoKfdNode)),
            ]
        );
        assert_eq!(
            l.line(),
            "pci 5 → amdgpu 3 → drm 2 → kfd 1 → rocr 1 → hip 1"
        );
        assert_eq!(l.usable(), 1);
    }

    #[test]
    fn a_partitioned_gpu_is_one_gpu_with_many_nodes() {
        let nodes: Vec<KfdGpu> = (0..8)
            .map(|i| node(2 + i, &format!("0000:05:00.{i}")))
            .collect();
        // With the PCI scan and without it (a KFD-only capture).
        for s in [
            scan(vec![gpu("0000:05:00.0", Binding::Amdgpu, true)]),
            PciScan::default(),
        ] {
            let l = assess(s, &view(nodes.clone()));
            assert_eq!(l.gpus.len(), 1, "{:?}", l.gpus);
            assert_eq!(l.gpus[0].kfd_nodes.len(), 8);
            assert_eq!(l.count(Layer::Hip).unwrap().nodes, Some(8));
            assert!(l.gpus[0].lost.is_none());
        }
    }

    #[test]
    fn hidden_nodes_and_variables_are_deliberate() {
        let mut v = view(vec![node(1, "0000:03:00.0")]);
        v.hidden = vec![(2, "EPERM".into())];
        v.nodes[0].visible = false;
        let l = assess(
            scan(vec![
                gpu("0000:03:00.0", Binding::Amdgpu, true),
                gpu("0000:04:00.0", Binding::Amdgpu, true),
            ]),
            &v,
        );
        let losses: Vec<(Layer, Cause, bool)> = l
            .gpus
            .iter()
            .filter_map(|g| g.lost.as_ref())
            .map(|x| (x.layer, x.cause, x.deliberate))
            .collect();
        assert_eq!(
            losses,
            [
                (Layer::Hip, Cause::HiddenByVariable, true),
                (Layer::Kfd, Cause::HiddenFromProcess, true),
            ]
        );
    }

    #[test]
    fn a_blocked_runtime_loses_every_gpu_at_rocr() {
        let mut v = view(vec![node(1, "0000:03:00.0")]);
        v.runtime_blocked = vec!["/dev/kfd cannot be opened read-write (EACCES)".into()];
        let l = assess(scan(vec![gpu("0000:03:00.0", Binding::Amdgpu, true)]), &v);
        let x = l.gpus[0].lost.as_ref().unwrap();
        assert_eq!(
            (x.layer, x.cause, x.deliberate),
            (Layer::Rocr, Cause::NotUsable, false)
        );
        assert!(x.detail.contains("EACCES"), "{}", x.detail);
    }
}

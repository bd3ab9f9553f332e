//! Reading the health files of every amdgpu PCI device, through `&Host` only.
//!
//! Devices are the DRM cards whose device is a PCI function bound to amdgpu
//! (`/sys/class/drm/cardN/device`), plus the PCI functions of KFD GPU nodes
//! (`/sys/bus/pci/devices/<location>`) in case a card is missing. The partition devices of an
//! MI300 (`amdgpu_xcp_N`, platform devices) have none of the files and are skipped (§0 of the
//! health reference). A file that is absent gives None; a file that exists but cannot be read
//! is recorded with its errno name (§0: `EPERM`/`EBUSY` while in reset or suspended, §10
//! item 5), never treated as absent. No read is larger than [`MAX_FILE`].

use super::cper::{parse_cper_ring, CperLog};
use super::parse::{self, *};
use crate::gpu::fixture::{self, Fixture};
use crate::gpu::sysfs::{self, unsupported_errno};
use crate::host::{errno_name, Host};
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet};
use std::io;
use std::path::{Path, PathBuf};

/// No health file is read past this size (sysfs text is at most a page; `gpu_metrics` ≤ 4 KiB).
pub(crate) const MAX_FILE: u64 = 1 << 20;
/// At most this many hwmon/fw_version/ras entries are looked at per directory.
const MAX_ENTRIES: usize = 256;

pub(crate) const BAD_PAGE_THRESHOLD: &str = "/sys/module/amdgpu/parameters/bad_page_threshold";
pub(crate) const OSRELEASE: &str = "/proc/sys/kernel/osrelease";

/// The RAS counters of one GPU.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Ras {
    pub features: Option<RasFeatures>,
    /// Per block (`umc`, `gfx`, `xgmi_wafl`, ...).
    pub blocks: BTreeMap<String, RasBlock>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RasBlock {
    pub source: RasSource,
    pub count: RasCount,
}

/// hwmon and `gpu_metrics`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Thermal {
    /// The hwmon directory used (`.../hwmon/hwmon3`).
    pub hwmon: Option<String>,
    pub temps: Vec<TempSensor>,
    /// µW.
    pub power_average: Option<u64>,
    pub power_input: Option<u64>,
    pub power_cap: Option<u64>,
    pub metrics: Option<GpuMetrics>,
}

/// A file that exists but could not be read or parsed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct FileIssue {
    /// Machine path.
    pub path: String,
    /// errno name (`EBUSY`), or `malformed: ...` for content that does not parse.
    pub error: String,
}

/// Everything read about one amdgpu PCI device.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct DeviceHealth {
    /// PCI address `dddd:bb:dd.f`.
    pub pci: String,
    /// Machine path of the PCI device directory (canonical).
    pub dir: String,
    /// `cardN`, when found through DRM.
    pub card: Option<String>,
    /// `vendor:device` from the PCI `vendor`/`device` files (`1002:740f`).
    pub pci_id: Option<String>,
    /// FRU `product_name` (§5), when the board has a FRU EEPROM.
    pub name: Option<String>,
    pub vbios: Option<String>,
    /// `mem_info_vram_total`, bytes.
    pub vram_total: Option<u64>,
    pub ras: Option<Ras>,
    /// `ras/gpu_vram_bad_pages`; Some(empty) for an empty read.
    pub bad_pages: Option<BadPages>,
    pub link: Option<Link>,
    /// `pp_dpm_pcie` lists more than one level (link speed follows load).
    pub pcie_dynamic_speed: bool,
    pub xgmi: Option<Xgmi>,
    /// `fw_version/<name>_fw_version`, by name.
    pub firmware: BTreeMap<String, u32>,
    pub thermal: Option<Thermal>,
    pub partition: Option<Partition>,
    /// AER counters of the GPU and the ports above it, and amdgpu's replay count (issue 26,
    /// item 3). Their unreadable files are kept there, not in `issues`.
    pub pcie_errors: PcieErrors,
    /// Per-link XGMI topology (`xgmi_num_links`, issue 26 item 3); the link states themselves
    /// are in `gpu_metrics` v1_7+ (`thermal.metrics.xgmi_links`).
    pub xgmi_links: XgmiLinkRead,
    /// amdgpu's CPER records from debugfs (issue 26, item 3; root only).
    pub cper: CperRead,
    /// Files present but unreadable or malformed.
    pub issues: Vec<FileIssue>,
}

/// `xgmi_num_links` of a GPU in a hive. `xgmi_error` is deliberately not read: its show
/// function (`amdgpu_xgmi_show_error`) clears the DF counter it reports (`set_fica(..., 0, 0)`
/// after the read) and, where the data fabric's FICA counters are not enabled, prints
/// `pr_err("xGMI error counters not enabled!")` on every read; on data fabrics without FICA
/// it returns -EINVAL. A doctor must neither reset a counter nor write to the kernel log.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct XgmiLinkRead {
    /// Links to each node of the hive, in the XGMI TA's order (this GPU's entry 0).
    pub num_links: Option<Vec<u8>>,
    /// Present but not readable (`EACCES`, `EBUSY`) or not in the kernel's format.
    pub unreadable: Vec<FileIssue>,
    /// Refused by the device (`EINVAL`, `EOPNOTSUPP`, `ENODATA`, `ENODEV`): not a problem.
    pub unsupported: Vec<FileIssue>,
}

/// `amdgpu_ring_cper` in debugfs (`/sys/kernel/debug/dri/<minor>/`, Linux 6.15+, parts with a
/// CPER ring; mode 0444 under a 0700 debugfs root, so root only).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[serde(tag = "state", rename_all = "kebab-case")]
pub enum CperRead {
    /// No DRM card to find the debugfs directory by (a GPU seen only through KFD).
    #[default]
    NoCard,
    /// The file is not there: debugfs not mounted, a kernel before 6.15, or no CPER ring on
    /// this part. Nothing to judge, nothing to say.
    Absent {
        path: String,
    },
    /// There but not readable (`EACCES` as a user other than root, `EBUSY`) or larger than
    /// the cap: "could not read", never a verdict.
    Unreadable {
        path: String,
        error: String,
    },
    /// Refused by the driver (`EINVAL`, `EOPNOTSUPP`, `ENODATA`, `ENODEV`): not a problem.
    Unsupported {
        path: String,
        error: String,
    },
    Read {
        path: String,
        log: CperLog,
    },
}

/// The most read from `amdgpu_ring_cper`: the ring is at most `CPER_MAX_RING_SIZE` (1 MiB,
/// amdgpu_cper.h) plus the 12-byte header.
pub(crate) const MAX_CPER: u64 = (1 << 20) + 4096;

/// The AER statistics of one PCI function on the GPU's path to the root port.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct PortAer {
    /// PCI address of the function.
    pub bdf: String,
    /// Machine path of its directory.
    pub dir: String,
    /// The GPU function itself (else a bridge or port above it).
    pub is_gpu: bool,
    /// PCI vendor id (0x1002: the switch inside an AMD GPU package).
    pub vendor: Option<u16>,
    /// The files read, by severity; an absent file (no AER capability) is not in the map.
    pub stats: BTreeMap<AerSeverity, AerStats>,
}

/// PCIe error counters of one GPU.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct PcieErrors {
    /// The GPU function first, then every PCI function above it in the canonical sysfs path,
    /// nearest first (up to the root port); only functions with at least one AER file.
    pub aer: Vec<PortAer>,
    /// amdgpu's `pcie_replay_count` (NAKs sent and received), when the file exists.
    pub replay_count: Option<u64>,
    /// Files present but not readable (`EACCES` as an unprivileged user, `EPERM`, `EBUSY`) or
    /// not in the kernel's format: "could not read", never a verdict.
    pub unreadable: Vec<FileIssue>,
    /// Files whose read the kernel refuses because the device does not support it (`EINVAL`,
    /// `EOPNOTSUPP`, `ENODATA`, `ENODEV`): not a problem.
    pub unsupported: Vec<FileIssue>,
}

impl DeviceHealth {
    /// What groups GPUs of one model: the PCI id, else the product name.
    pub(crate) fn model(&self) -> Option<String> {
        self.pci_id.clone().or_else(|| self.name.clone())
    }
}

/// The machine-wide part and every device.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Health {
    pub devices: Vec<DeviceHealth>,
    /// `amdgpu.bad_page_threshold` (None: module parameter absent).
    pub bad_page_threshold: Option<BadPageThreshold>,
    /// `/proc/sys/kernel/osrelease`.
    pub kernel: Option<String>,
    /// Machine-wide files present but unreadable or malformed.
    pub issues: Vec<FileIssue>,
}

struct Reader<'a> {
    host: &'a Host,
    fx: Fixture,
}

impl Reader<'_> {
    fn bytes(&self, p: &Path) -> io::Result<Vec<u8>> {
        if let Some(e) = self.fx.denied(p) {
            return Err(e);
        }
        self.host.fs.read_bytes_limited(p, MAX_FILE)
    }

    /// Ok(None) when absent; Err(errno name) when present but unreadable.
    fn text(&self, p: &Path) -> Result<Option<String>, String> {
        match self.bytes(p) {
            Ok(b) => Ok(Some(String::from_utf8_lossy(&b).into_owned())),
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
            Err(e) if e.kind() == io::ErrorKind::InvalidData => Err("EFBIG".into()),
            Err(e) => Err(errno_name(&e)),
        }
    }

    fn names(&self, p: &Path) -> Vec<String> {
        if self.fx.denied(p).is_some() {
            return Vec::new();
        }
        self.host
            .fs
            .list_names(p)
            .into_iter()
            .take(MAX_ENTRIES)
            .map(|n| n.to_string_lossy().into_owned())
            .collect()
    }

    /// Reads and parses one file; problems go to `issues`.
    fn get<T>(
        &self,
        p: &Path,
        issues: &mut Vec<FileIssue>,
        parse: impl FnOnce(&str) -> Result<T, String>,
    ) -> Option<T> {
        match self.text(p) {
            Ok(Some(t)) => match parse(&t) {
                Ok(v) => Some(v),
                Err(e) => {
                    issues.push(issue(p, format!("malformed: {e}")));
                    None
                }
            },
            Ok(None) => None,
            Err(e) => {
                issues.push(issue(p, e));
                None
            }
        }
    }
}

fn issue(p: &Path, error: String) -> FileIssue {
    FileIssue {
        path: p.display().to_string(),
        error,
    }
}

/// A PCI device directory to read, found through DRM or KFD.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct DeviceDir {
    pub pci: String,
    /// Canonical machine path.
    pub dir: PathBuf,
    pub card: Option<String>,
}

/// The driver bound to a PCI device: the `driver` link's name, else `DRIVER=` in `uevent`.
fn driver_of(r: &Reader, dir: &Path) -> Option<String> {
    if let Ok(t) = r.host.fs.read_link(&dir.join("driver")) {
        if let Some(n) = t.file_name() {
            return Some(n.to_string_lossy().into_owned());
        }
    }
    let u = r.text(&dir.join("uevent")).ok().flatten()?;
    u.lines()
        .find_map(|l| l.strip_prefix("DRIVER=").map(|d| d.trim().to_string()))
}

fn pci_dir(r: &Reader, dev: &Path) -> Option<(String, PathBuf)> {
    let dir = r.host.fs.canonicalize(dev).ok()?;
    let name = dir.file_name()?.to_string_lossy().into_owned();
    if !is_pci_address(&name) || driver_of(r, &dir).as_deref() != Some("amdgpu") {
        return None;
    }
    Some((name, dir))
}

/// Every amdgpu PCI device: DRM cards first (card order), then KFD GPU nodes not seen yet.
pub(crate) fn device_dirs(host: &Host) -> Vec<DeviceDir> {
    let r = Reader {
        host,
        fx: fixture::load(host),
    };
    device_dirs_with(&r)
}

fn device_dirs_with(r: &Reader) -> Vec<DeviceDir> {
    let mut out: Vec<DeviceDir> = Vec::new();
    let mut seen = BTreeSet::new();
    let base = Path::new("/sys/class/drm");
    let mut cards: Vec<(u32, String)> = r
        .names(base)
        .into_iter()
        .filter_map(|n| Some((n.strip_prefix("card")?.parse().ok()?, n)))
        .collect();
    cards.sort();
    for (_, card) in cards {
        if let Some((pci, dir)) = pci_dir(r, &base.join(&card).join("device")) {
            if seen.insert(pci.clone()) {
                out.push(DeviceDir {
                    pci,
                    dir,
                    card: Some(card),
                });
            }
        }
    }
    // KFD nodes (gpu/sysfs.rs): location_id + domain give the PCI address; partitions of an
    // MI300 add their index to the low bits, and those addresses have no PCI directory.
    let topo = sysfs::read_topology(r.host, &r.fx);
    for node in topo.nodes.iter().filter(|n| n.is_gpu()) {
        let Some(loc) = node.props.get("location_id") else {
            continue;
        };
        let addr = sysfs::bdf(node.props.get_or_zero("domain"), loc);
        if seen.contains(&addr) {
            continue;
        }
        if let Some((pci, dir)) = pci_dir(r, &Path::new("/sys/bus/pci/devices").join(&addr)) {
            if seen.insert(pci.clone()) {
                out.push(DeviceDir {
                    pci,
                    dir,
                    card: None,
                });
            }
        }
    }
    out
}

/// Reads the health of every amdgpu device and the machine-wide settings.
pub fn read_health(host: &Host) -> Health {
    let r = Reader {
        host,
        fx: fixture::load(host),
    };
    let mut issues = Vec::new();
    let bad_page_threshold = r.get(
        Path::new(BAD_PAGE_THRESHOLD),
        &mut issues,
        parse_bad_page_threshold,
    );
    let kernel = r.get(Path::new(OSRELEASE), &mut issues, |t| {
        Ok(parse::truncate(t.trim(), 120))
    });
    let devices = device_dirs_with(&r)
        .iter()
        .map(|d| read_device(&r, d))
        .collect();
    Health {
        devices,
        bad_page_threshold,
        kernel,
        issues,
    }
}

fn read_device(r: &Reader, d: &DeviceDir) -> DeviceHealth {
    let dir = &d.dir;
    let mut issues = Vec::new();
    let hex16 = |t: &str| {
        let t = t.trim();
        u16::from_str_radix(t.strip_prefix("0x").unwrap_or(t), 16)
            .map_err(|_| format!("not a hex id: {:?}", parse::truncate(t, 20)))
    };
    let vendor = r.get(&dir.join("vendor"), &mut issues, hex16);
    let device = r.get(&dir.join("device"), &mut issues, hex16);
    let line =
        |t: &str| -> Result<String, String> { Ok(parse::truncate(t.trim_end_matches('\n'), 120)) };
    let mut h = DeviceHealth {
        pci: d.pci.clone(),
        dir: dir.display().to_string(),
        card: d.card.clone(),
        pci_id: vendor
            .zip(device)
            .map(|(v, dv)| format!("{v:04x}:{dv:04x}")),
        name: r
            .get(&dir.join("product_name"), &mut issues, line)
            .filter(|s| !s.trim().is_empty()),
        vbios: r.get(&dir.join("vbios_version"), &mut issues, line),
        vram_total: r.get(&dir.join("mem_info_vram_total"), &mut issues, parse_dec_u64),
        ..Default::default()
    };
    h.ras = read_ras(r, dir, &mut issues);
    h.bad_pages = r.get(&dir.join("ras/gpu_vram_bad_pages"), &mut issues, |t| {
        Ok(parse_bad_pages(t))
    });
    h.link = read_link(r, dir, &mut issues);
    h.pcie_dynamic_speed = r
        .get(&dir.join("pp_dpm_pcie"), &mut issues, |t| {
            Ok(pcie_dpm_levels(t))
        })
        .is_some_and(|n| n > 1);
    h.xgmi = read_xgmi(r, dir, &mut issues);
    for name in r.names(&dir.join("fw_version")) {
        if let Some(fw) = fw_name(&name) {
            let fw = fw.to_string();
            if let Some(v) = r.get(
                &dir.join("fw_version").join(&name),
                &mut issues,
                parse_fw_version,
            ) {
                h.firmware.insert(fw, v);
            }
        }
    }
    h.thermal = read_thermal(r, dir, &mut issues);
    let mut part = Partition {
        compute: r.get(&dir.join("current_compute_partition"), &mut issues, |t| {
            parse_partition_mode(t, &COMPUTE_PARTITIONS)
        }),
        available_compute: r.get(&dir.join("available_compute_partition"), &mut issues, |t| {
            Ok(parse_partition_list(t))
        }),
        memory: r.get(&dir.join("current_memory_partition"), &mut issues, |t| {
            parse_partition_mode(t, &MEMORY_PARTITIONS)
        }),
        available_memory: None,
    };
    part.available_memory = r.get(&dir.join("available_memory_partition"), &mut issues, |t| {
        Ok(parse_partition_list(t))
    });
    if part != Partition::default() {
        h.partition = Some(part);
    }
    h.pcie_errors = read_pcie_errors(r, dir);
    if h.xgmi.is_some() {
        h.xgmi_links = read_xgmi_links(r, dir);
    }
    if let Some(card) = &d.card {
        h.cper = read_cper(r, card);
    }
    h.issues = issues;
    h
}

/// `xgmi_num_links`, present only on GPUs in a hive (`amdgpu_xgmi_sysfs_add_dev_info`). Its
/// show function prints the topology the driver cached at hive setup: no hardware access, no
/// kernel-log line on any part.
fn read_xgmi_links(r: &Reader, dir: &Path) -> XgmiLinkRead {
    let mut pe = PcieErrors::default();
    let num_links = pcie_file(
        r,
        &dir.join("xgmi_num_links"),
        &mut pe,
        parse_xgmi_num_links,
    );
    XgmiLinkRead {
        num_links,
        unreadable: pe.unreadable,
        unsupported: pe.unsupported,
    }
}

/// The debugfs directory of a DRM card is named by its minor (`/sys/kernel/debug/dri/<N>` for
/// `cardN`, `drm_debugfs_register`). The CPER ring is read in 64 KiB reads, a multiple of 4
/// (`amdgpu_debugfs_ring_read` refuses an offset or size that is not: EINVAL), until the end or
/// [`MAX_CPER`]. Neither read path (`amdgpu_debugfs_ring_read`, `amdgpu_ras_cper_debugfs_read`)
/// prints to the kernel log.
fn read_cper(r: &Reader, card: &str) -> CperRead {
    use std::io::Read;
    let Some(minor) = card.strip_prefix("card") else {
        return CperRead::NoCard;
    };
    let p = Path::new("/sys/kernel/debug/dri")
        .join(minor)
        .join("amdgpu_ring_cper");
    let path = p.display().to_string();
    let classify = |e: io::Error, path: String| -> CperRead {
        if e.kind() == io::ErrorKind::NotFound {
            CperRead::Absent { path }
        } else if unsupported_errno(&e) {
            CperRead::Unsupported {
                path,
                error: errno_name(&e),
            }
        } else {
            CperRead::Unreadable {
                path,
                error: errno_name(&e),
            }
        }
    };
    if let Some(e) = r.fx.denied(&p) {
        return classify(e, path);
    }
    let mut f = match r.host.fs.open(&p) {
        Ok(f) => f,
        Err(e) => return classify(e, path),
    };
    let _w = crate::host::watchdog::Waiting::on_path("reading", &p);
    let mut out = Vec::new();
    let mut chunk = vec![0u8; 64 * 1024];
    loop {
        match f.read(&mut chunk) {
            Ok(0) => break,
            Ok(n) => {
                out.extend_from_slice(&chunk[..n]);
                if out.len() as u64 > MAX_CPER {
                    return CperRead::Unreadable {
                        path,
                        error: format!("larger than {MAX_CPER} bytes"),
                    };
                }
            }
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return classify(e, path),
        }
    }
    CperRead::Read {
        path,
        log: parse_cper_ring(&out),
    }
}

/// Reads one PCIe error file into `out`: Ok(None) when absent, unsupported or unreadable (those
/// two recorded in `out`).
fn pcie_file<T>(
    r: &Reader,
    p: &Path,
    out: &mut PcieErrors,
    parse: impl FnOnce(&str) -> Result<T, String>,
) -> Option<T> {
    match r.bytes(p) {
        Ok(b) => match parse(&String::from_utf8_lossy(&b)) {
            Ok(v) => Some(v),
            Err(e) => {
                out.unreadable.push(issue(p, format!("malformed: {e}")));
                None
            }
        },
        Err(e) if e.kind() == io::ErrorKind::NotFound => None,
        Err(e) if unsupported_errno(&e) => {
            out.unsupported.push(issue(p, errno_name(&e)));
            None
        }
        Err(e) if e.kind() == io::ErrorKind::InvalidData => {
            out.unreadable.push(issue(p, "EFBIG".into()));
            None
        }
        Err(e) => {
            out.unreadable.push(issue(p, errno_name(&e)));
            None
        }
    }
}

/// The AER files of the GPU function and of each PCI function above it in its canonical path
/// (`/sys/devices/pci0000:00/0000:00:01.1/0000:01:00.0/...`: the directories named by a PCI
/// address, the GPU's upstream bridges up to the root port), and `pcie_replay_count`. Only these
/// few directories are visited, never the rest of /sys. A file that does not exist is not
/// opened with any side effect: sysfs looks the name up and answers ENOENT, so a function
/// without AER capability costs one failed lookup and no kernel-log line.
fn read_pcie_errors(r: &Reader, dir: &Path) -> PcieErrors {
    let mut out = PcieErrors::default();
    out.replay_count = pcie_file(r, &dir.join("pcie_replay_count"), &mut out, parse_dec_u64);
    for (i, f) in dir.ancestors().enumerate() {
        let Some(bdf) = f.file_name().map(|n| n.to_string_lossy().into_owned()) else {
            break;
        };
        if !is_pci_address(&bdf) {
            break;
        }
        let mut stats = BTreeMap::new();
        for (sev, file, total) in AER_FILES {
            if let Some(st) = pcie_file(r, &f.join(file), &mut out, |t| parse_aer_stats(t, total)) {
                stats.insert(sev, st);
            }
        }
        if stats.is_empty() {
            continue;
        }
        let vendor = r.text(&f.join("vendor")).ok().flatten().and_then(|t| {
            let t = t.trim();
            u16::from_str_radix(t.strip_prefix("0x").unwrap_or(t), 16).ok()
        });
        out.aer.push(PortAer {
            bdf,
            dir: f.display().to_string(),
            is_gpu: i == 0,
            vendor,
            stats,
        });
    }
    out
}

fn read_ras(r: &Reader, dir: &Path, issues: &mut Vec<FileIssue>) -> Option<Ras> {
    let ras_dir = dir.join("ras");
    if !r.host.fs.is_dir(&ras_dir) {
        return None;
    }
    let mut ras = Ras {
        features: r.get(&ras_dir.join("features"), issues, parse_ras_features),
        ..Default::default()
    };
    for name in r.names(&ras_dir) {
        let Some((block, source)) = ras_count_file(&name) else {
            continue;
        };
        if let Some(count) = r.get(&ras_dir.join(&name), issues, parse_ras_count) {
            // Both forms for one block would be a kernel change; keep the ACA one (the newer).
            let keep = ras
                .blocks
                .get(&block)
                .is_none_or(|b| b.source != RasSource::Aca);
            if keep {
                ras.blocks.insert(block, RasBlock { source, count });
            }
        }
    }
    Some(ras)
}

fn link_state(r: &Reader, dir: &Path, prefix: &str, issues: &mut Vec<FileIssue>) -> LinkState {
    LinkState {
        speed: r
            .get(
                &dir.join(format!("{prefix}_link_speed")),
                issues,
                parse_link_speed,
            )
            .flatten(),
        width: r.get(
            &dir.join(format!("{prefix}_link_width")),
            issues,
            parse_link_width,
        ),
    }
}

fn port_link(r: &Reader, dir: &Path, issues: &mut Vec<FileIssue>) -> PortLink {
    let vendor = r.get(&dir.join("vendor"), issues, |t| {
        let t = t.trim();
        u16::from_str_radix(t.strip_prefix("0x").unwrap_or(t), 16).map_err(|_| "not hex".into())
    });
    PortLink {
        bdf: dir
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default(),
        vendor,
        current: link_state(r, dir, "current", issues),
        max: link_state(r, dir, "max", issues),
    }
}

/// The GPU function, then the PCI functions above it in the canonical sysfs path (the
/// upstream bridges, nearest first), resolved by [`resolve_link`].
fn read_link(r: &Reader, dir: &Path, issues: &mut Vec<FileIssue>) -> Option<Link> {
    let gpu = port_link(r, dir, issues);
    if gpu.current == LinkState::default() && gpu.max == LinkState::default() {
        return None;
    }
    let mut chain = vec![gpu];
    for up in dir.ancestors().skip(1) {
        let Some(name) = up.file_name().map(|n| n.to_string_lossy().into_owned()) else {
            break;
        };
        if !is_pci_address(&name) {
            break;
        }
        chain.push(port_link(r, up, issues));
    }
    resolve_link(&chain)
}

fn read_xgmi(r: &Reader, dir: &Path, issues: &mut Vec<FileIssue>) -> Option<Xgmi> {
    let hive = dir.join("xgmi_hive_info");
    let x = Xgmi {
        hive_id: r.get(&hive.join("xgmi_hive_id"), issues, parse_dec_u64),
        device_id: r.get(&dir.join("xgmi_device_id"), issues, parse_dec_u64),
        physical_id: r.get(&dir.join("xgmi_physical_id"), issues, |t| {
            parse_dec_u64(t).and_then(|v| u32::try_from(v).map_err(|_| "out of range".into()))
        }),
        hive_nodes: r
            .host
            .fs
            .is_dir(&hive)
            .then(|| {
                r.names(&hive)
                    .iter()
                    .filter(|n| {
                        n.strip_prefix("node")
                            .is_some_and(|i| !i.is_empty() && i.bytes().all(|b| b.is_ascii_digit()))
                    })
                    .count()
            })
            .filter(|n| *n > 0),
    };
    (x != Xgmi::default()).then_some(x)
}

fn read_thermal(r: &Reader, dir: &Path, issues: &mut Vec<FileIssue>) -> Option<Thermal> {
    let mut t = Thermal::default();
    let hwmon_base = dir.join("hwmon");
    let hwmon = r.names(&hwmon_base).into_iter().find(|n| {
        r.text(&hwmon_base.join(n).join("name"))
            .ok()
            .flatten()
            .is_some_and(|s| s.trim() == "amdgpu")
    });
    if let Some(hm) = hwmon {
        let hd = hwmon_base.join(&hm);
        t.hwmon = Some(hd.display().to_string());
        let mut temps: BTreeMap<u32, TempSensor> = BTreeMap::new();
        for name in r.names(&hd) {
            let Some((kind, idx, attr)) = hwmon_attr(&name) else {
                continue;
            };
            let p = hd.join(&name);
            match (kind, idx, attr) {
                ("temp", i, "input" | "crit" | "emergency" | "label") => {
                    let s = temps.entry(i).or_insert_with(|| TempSensor {
                        index: i,
                        ..Default::default()
                    });
                    if attr == "label" {
                        s.label = r.get(&p, issues, |t| Ok(parse::truncate(t.trim(), 32)));
                    } else {
                        let v = r.get(&p, issues, parse_dec_i64);
                        match attr {
                            "input" => s.input = v,
                            "crit" => s.crit = v,
                            _ => s.emergency = v,
                        }
                    }
                }
                ("power", 1, "average") => {
                    t.power_average = r.get(&p, issues, parse_microwatts).flatten()
                }
                ("power", 1, "input") => {
                    t.power_input = r.get(&p, issues, parse_microwatts).flatten()
                }
                ("power", 1, "cap") => t.power_cap = r.get(&p, issues, parse_microwatts).flatten(),
                _ => {}
            }
        }
        t.temps = temps.into_values().collect();
    }
    let gm = dir.join("gpu_metrics");
    match r.bytes(&gm) {
        Ok(b) => match parse_gpu_metrics(&b) {
            Ok(m) => t.metrics = Some(m),
            Err(e) => issues.push(issue(&gm, format!("malformed: {e}"))),
        },
        Err(e) if e.kind() == io::ErrorKind::NotFound => {}
        Err(e) if e.kind() == io::ErrorKind::InvalidData => issues.push(issue(&gm, "EFBIG".into())),
        Err(e) => issues.push(issue(&gm, errno_name(&e))),
    }
    (t != Thermal::default()).then_some(t)
}

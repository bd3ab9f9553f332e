//! Pure parsers of the amdgpu health files (no I/O).
//!
//! Every format here is the one the kernel prints; the section numbers (§N) refer to the
//! project's amdgpu health reference (`amdgpu-health.md`), which quotes the kernel source
//! (file:function) for each. Parsers return a value or an error text for any input and never
//! panic (tests/parsers_props.rs).

use serde::Serialize;

// ---------------------------------------------------------------------------------------------
// RAS (§1)
// ---------------------------------------------------------------------------------------------

/// `enum amdgpu_ras_block` order = bit number in `ras/features` (`amdgpu_ras.h`, names from
/// `ras_block_string[]` in `amdgpu_ras.c`; §1 "Block numbers and names").
pub const RAS_BLOCKS: [&str; 20] = [
    "umc",
    "sdma",
    "gfx",
    "mmhub",
    "athub",
    "pcie_bif",
    "hdp",
    "xgmi_wafl",
    "df",
    "smn",
    "sem",
    "mp0",
    "mp1",
    "fuse",
    "mca",
    "vcn",
    "jpeg",
    "ih",
    "mpio",
    "mmsch",
];

/// Bits 31:29 of the feature mask are the socket id (`AMDGPU_RAS_FEATURES_SOCKETID_SHIFT` 29, §1).
const SOCKET_SHIFT: u32 = 29;

/// One RAS counter file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case", tag = "state")]
pub enum RasCount {
    /// Counts since driver load: uncorrectable, correctable, deferred (UMC from ≈6.11 and every
    /// `aca_*` file; None where the kernel prints two lines).
    Counts { ue: u64, ce: u64, de: Option<u64> },
    /// The literal `Query currently inaccessible` (RAS not ready yet).
    Inaccessible,
}

/// Which kind of file a count came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum RasSource {
    /// `ras/<blk>_err_count` (`amdgpu_ras.c:amdgpu_ras_sysfs_read`).
    ErrCount,
    /// `ras/aca_<blk>` (`amdgpu_ras.c:amdgpu_ras_aca_sysfs_read`): the only form on MI300-class
    /// parts (MP0 13.0.6/13.0.12/13.0.14) from Linux 6.15 (§1, §10 item 6).
    Aca,
}

/// The block a file in `ras/` counts, and its form; None for the other `ras/` files.
/// Names may carry a dot (`mca.mp0_err_count`, §1).
pub fn ras_count_file(name: &str) -> Option<(String, RasSource)> {
    let ok = |b: &str| {
        !b.is_empty()
            && b.bytes()
                .all(|c| c.is_ascii_alphanumeric() || c == b'_' || c == b'.')
    };
    if let Some(b) = name.strip_suffix("_err_count") {
        return ok(b).then(|| (b.to_string(), RasSource::ErrCount));
    }
    if let Some(b) = name.strip_prefix("aca_") {
        return ok(b).then(|| (b.to_string(), RasSource::Aca));
    }
    None
}

/// Parses `"ue: %lu\nce: %lu\n"` (plus `"de: %lu\n"` for UMC and `aca_*`), or
/// `"Query currently inaccessible\n"` (§1, `amdgpu_ras_sysfs_read`, `amdgpu_ras_aca_sysfs_read`).
/// Lines are matched by their key, so a reader of the 2-line form also reads the 3-line one.
pub fn parse_ras_count(text: &str) -> Result<RasCount, String> {
    let t = text.trim();
    if t == "Query currently inaccessible" {
        return Ok(RasCount::Inaccessible);
    }
    let (mut ue, mut ce, mut de) = (None, None, None);
    for line in t.lines() {
        let Some((k, v)) = line.split_once(':') else {
            return Err(format!("not 'key: count': {line:?}"));
        };
        let n: u64 = v
            .trim()
            .parse()
            .map_err(|_| format!("not a count: {line:?}"))?;
        let slot = match k.trim() {
            "ue" => &mut ue,
            "ce" => &mut ce,
            "de" => &mut de,
            _ => return Err(format!("unknown counter {:?}", k.trim())),
        };
        if slot.replace(n).is_some() {
            return Err(format!("counter {:?} repeated", k.trim()));
        }
    }
    match (ue, ce) {
        (Some(ue), Some(ce)) => Ok(RasCount::Counts { ue, ce, de }),
        _ => Err(format!("no ue/ce lines in {t:?}")),
    }
}

/// `ras/features`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RasFeatures {
    pub mask: u32,
    /// Bits 31:29.
    pub socket: u32,
    /// Names of the blocks whose bit is set (bits 0..19; unknown bits as `bitN`).
    pub blocks: Vec<String>,
}

/// Parses `"feature mask: 0x%x\n"` (`amdgpu_ras.c:amdgpu_ras_sysfs_features_read`, same format
/// from 5.4 to 7.0, §1). amdsmi reads the third whitespace token as hex; so does this.
pub fn parse_ras_features(text: &str) -> Result<RasFeatures, String> {
    let t = text.trim();
    let v = t
        .strip_prefix("feature mask:")
        .ok_or_else(|| format!("not 'feature mask: 0x..': {t:?}"))?
        .trim();
    let mask = parse_hex_u32(v)?;
    let blocks = (0..SOCKET_SHIFT)
        .filter(|b| mask & (1 << b) != 0)
        .map(|b| {
            RAS_BLOCKS
                .get(b as usize)
                .map(|s| s.to_string())
                .unwrap_or_else(|| format!("bit{b}"))
        })
        .collect();
    Ok(RasFeatures {
        mask,
        socket: mask >> SOCKET_SHIFT,
        blocks,
    })
}

// ---------------------------------------------------------------------------------------------
// Bad pages and the threshold (§1, §1.1)
// ---------------------------------------------------------------------------------------------

/// The flag of a line of `gpu_vram_bad_pages` (`amdgpu_ras_badpage_flags_str`, §1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum BadPageFlag {
    /// `R`: reserved (retired).
    Retired,
    /// `P`: pending reservation.
    Pending,
    /// `F`: could not be reserved.
    Failed,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct BadPage {
    /// In 4 KiB GPU pages: the address is `pfn << 12`.
    pub pfn: u64,
    pub size: u64,
    pub flag: BadPageFlag,
}

/// `ras/gpu_vram_bad_pages`. An empty read means no bad pages (§1: the kernel's read returns
/// 0 bytes when there are none; §10 item 5: empty is not an error).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct BadPages {
    pub pages: Vec<BadPage>,
    /// Lines that are not `0x%08x : 0x%08x : %1s` (kept for evidence).
    pub malformed: Vec<String>,
}

impl BadPages {
    pub fn count(&self, flag: BadPageFlag) -> usize {
        self.pages.iter().filter(|p| p.flag == flag).count()
    }
}

/// Parses `"0x%08x : 0x%08x : %1s\n"` lines = pfn : size : flag
/// (`amdgpu_ras.c:amdgpu_ras_sysfs_badpages_read`, §1). amdsmi refuses flags other than R, P, F;
/// such lines are kept as malformed here.
pub fn parse_bad_pages(text: &str) -> BadPages {
    let mut out = BadPages::default();
    for line in text.lines() {
        if line.trim().is_empty() {
            continue;
        }
        let parts: Vec<&str> = line.split(" : ").collect();
        let parsed = match parts.as_slice() {
            [pfn, size, flag] => {
                let flag = match flag.trim() {
                    "R" => Some(BadPageFlag::Retired),
                    "P" => Some(BadPageFlag::Pending),
                    "F" => Some(BadPageFlag::Failed),
                    _ => None,
                };
                match (parse_hex_u64(pfn), parse_hex_u64(size), flag) {
                    (Ok(pfn), Ok(size), Some(flag)) => Some(BadPage { pfn, size, flag }),
                    _ => None,
                }
            }
            _ => None,
        };
        match parsed {
            Some(p) => out.pages.push(p),
            None => out.malformed.push(truncate(line, 80)),
        }
    }
    out
}

/// `amdgpu.bad_page_threshold` (`/sys/module/amdgpu/parameters/bad_page_threshold`, §1.1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case", tag = "mode", content = "value")]
pub enum BadPageThreshold {
    /// `0`: bad-page retirement off (no `gpu_vram_bad_pages` file).
    Disabled,
    /// `-1`, the default in every version.
    Default,
    /// `-2`.
    Minus2,
    /// `N > 0`: a user-defined threshold.
    User(u64),
    /// Any other value (the driver treats it as invalid).
    Other(i64),
}

/// Parses the module parameter (`"%d\n"`).
pub fn parse_bad_page_threshold(text: &str) -> Result<BadPageThreshold, String> {
    let t = text.trim();
    let v: i64 = t
        .parse()
        .map_err(|_| format!("not an integer: {:?}", truncate(t, 40)))?;
    Ok(match v {
        0 => BadPageThreshold::Disabled,
        -1 => BadPageThreshold::Default,
        -2 => BadPageThreshold::Minus2,
        n if n > 0 => BadPageThreshold::User(n as u64),
        n => BadPageThreshold::Other(n),
    })
}

/// What the driver does once the retired pages reach the threshold.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum OnExceed {
    /// Logs and keeps running.
    WarnOnly,
    /// The GPU is not initialised at the next driver load.
    NotInitialised,
    /// 6.15+ with N > 0: `is_rma = true`, services halt.
    Halt,
    /// Retirement is off.
    Nothing,
}

/// The threshold the driver applies, as far as userspace can know it (§1.1 table).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ThresholdPolicy {
    /// The number of retired pages the driver compares against, when it can be computed.
    pub limit: Option<u64>,
    /// How `limit` was obtained, for evidence.
    pub basis: String,
    pub on_exceed: OnExceed,
}

/// `RAS_BAD_PAGE_COVER`: one bad page per 100 MiB of VRAM (§1.1).
const BAD_PAGE_COVER: u64 = 100 << 20;

/// Applies the §1.1 table: the parameter, the kernel release (major, minor) and VRAM size.
/// Where the limit lives only in debugfs (6.15+ with -1: computed from reserved pages) it is
/// None and `basis` says so.
pub fn threshold_policy(
    t: BadPageThreshold,
    kernel: Option<(u32, u32)>,
    vram_bytes: Option<u64>,
) -> ThresholdPolicy {
    let formula = vram_bytes.map(|v| v / BAD_PAGE_COVER);
    let formula_basis = match vram_bytes {
        Some(v) => format!("VRAM {} MiB / 100 MiB (RAS_BAD_PAGE_COVER)", v >> 20),
        None => "VRAM / 100 MiB, VRAM size unknown".to_string(),
    };
    let k = kernel.unwrap_or((0, 0));
    let known = kernel.is_some();
    let ge = |maj: u32, min: u32| known && k >= (maj, min);
    match t {
        BadPageThreshold::Disabled => ThresholdPolicy {
            limit: None,
            basis: "bad_page_threshold=0: bad-page retirement disabled".into(),
            on_exceed: OnExceed::Nothing,
        },
        BadPageThreshold::User(n) => ThresholdPolicy {
            limit: Some(n),
            basis: format!(
                "bad_page_threshold={n} (user-defined; capped by the EEPROM's record \
                count)"
            ),
            on_exceed: if ge(6, 15) || !known {
                OnExceed::Halt
            } else {
                OnExceed::NotInitialised
            },
        },
        BadPageThreshold::Default if ge(6, 15) => ThresholdPolicy {
            limit: None,
            basis: "bad_page_threshold=-1 on Linux 6.15+: computed from the reserved pages, \
                visible only in debugfs (ras/bad_page_cnt_threshold)"
                .into(),
            on_exceed: OnExceed::WarnOnly,
        },
        BadPageThreshold::Default => ThresholdPolicy {
            limit: formula,
            basis: format!("bad_page_threshold=-1: {formula_basis}"),
            // 6.6-6.12 "ignore threshold": warns; 6.1 and 5.x "auto": GPU not initialised.
            on_exceed: if ge(6, 6) || !known {
                OnExceed::WarnOnly
            } else {
                OnExceed::NotInitialised
            },
        },
        BadPageThreshold::Minus2 => ThresholdPolicy {
            limit: formula,
            basis: format!("bad_page_threshold=-2: {formula_basis}"),
            // 6.15+: warns; 6.6-6.12: not initialised; 6.1: ignored (initialises anyway).
            on_exceed: if ge(6, 15) || !known {
                OnExceed::WarnOnly
            } else if ge(6, 6) {
                OnExceed::NotInitialised
            } else {
                OnExceed::WarnOnly
            },
        },
        BadPageThreshold::Other(n) => ThresholdPolicy {
            limit: None,
            basis: format!("bad_page_threshold={n}: not a documented value"),
            on_exceed: OnExceed::WarnOnly,
        },
    }
}

/// `major.minor` of a kernel release (`/proc/sys/kernel/osrelease`, e.g. `6.8.0-49-generic`).
pub fn parse_kernel_release(text: &str) -> Option<(u32, u32)> {
    let t = text.trim();
    let mut it = t.split(|c: char| !c.is_ascii_digit());
    let major = it.next()?.parse().ok()?;
    let minor = it.next()?.parse().ok()?;
    Some((major, minor))
}

// ---------------------------------------------------------------------------------------------
// PCIe link (§2)
// ---------------------------------------------------------------------------------------------

/// A link speed in tenths of GT/s (`8.0 GT/s PCIe` = 80), with the text as printed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct LinkSpeed {
    pub tenths_gts: u32,
    pub text: String,
}

impl LinkSpeed {
    /// `16.0 GT/s`.
    pub fn label(&self) -> String {
        format!("{}.{} GT/s", self.tenths_gts / 10, self.tenths_gts % 10)
    }
}

/// Parses `current_link_speed`/`max_link_speed`: `pci_speed_string()` values, `2.5 GT/s PCIe`
/// .. `64.0 GT/s PCIe` (Linux ≥5.7), or `2.5 GT/s`, `5 GT/s`, ... (≤5.6); `Unknown` and
/// `Unknown speed` give Ok(None) (`drivers/pci/pci-sysfs.c:current_link_speed_show`, §2).
pub fn parse_link_speed(text: &str) -> Result<Option<LinkSpeed>, String> {
    let t = text.trim();
    if t == "Unknown" || t == "Unknown speed" {
        return Ok(None);
    }
    let num = t
        .strip_suffix(" GT/s PCIe")
        .or_else(|| t.strip_suffix(" GT/s"))
        .ok_or_else(|| format!("not 'N GT/s PCIe': {:?}", truncate(t, 40)))?;
    let (whole, frac) = num.split_once('.').unwrap_or((num, "0"));
    let digits = |s: &str| !s.is_empty() && s.len() <= 4 && s.bytes().all(|b| b.is_ascii_digit());
    if !digits(whole) || !digits(frac) || frac.len() != 1 {
        return Err(format!("not a speed: {:?}", truncate(t, 40)));
    }
    let w: u32 = whole.parse().map_err(|_| format!("not a speed: {t:?}"))?;
    let f: u32 = frac.parse().map_err(|_| format!("not a speed: {t:?}"))?;
    Ok(Some(LinkSpeed {
        tenths_gts: w * 10 + f,
        text: t.to_string(),
    }))
}

/// Parses `current_link_width`/`max_link_width` (`"%u\n"`, §2; 0 = no link).
pub fn parse_link_width(text: &str) -> Result<u32, String> {
    parse_dec_u64(text)
        .and_then(|v| u32::try_from(v).map_err(|_| format!("width out of range: {v}")))
}

/// Speed and width of one end (current or maximum).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct LinkState {
    pub speed: Option<LinkSpeed>,
    pub width: Option<u32>,
}

impl LinkState {
    pub fn label(&self) -> String {
        let s = self
            .speed
            .as_ref()
            .map(LinkSpeed::label)
            .unwrap_or_else(|| "? GT/s".into());
        let w = self
            .width
            .map(|w| format!("x{w}"))
            .unwrap_or_else(|| "x?".into());
        format!("{s} {w}")
    }
}

/// One PCI function on the path from the GPU up to the root port, as read from its directory.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct PortLink {
    pub bdf: String,
    pub vendor: Option<u16>,
    pub current: LinkState,
    pub max: LinkState,
}

/// PCI vendor id of AMD/ATI GPUs (`PCI_VENDOR_ID_ATI`).
pub const VENDOR_ATI: u16 = 0x1002;

/// The GPU's link to the platform.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Link {
    /// Negotiated speed and width of the link between the GPU package and the platform.
    pub current: LinkState,
    /// What that link could run at: the lower of its two ends' capabilities.
    pub max: LinkState,
    /// The upstream port the link was read at (the first port outside the GPU package); None
    /// when the GPU has no upstream bridge in sysfs (then the GPU's own files are used).
    pub limited_by: Option<String>,
    /// The function on the GPU side of that link (the GPU, or its internal switch's upstream port).
    pub package_port: String,
    /// AMD bridges skipped (the switch inside the dGPU package), nearest first.
    pub internal_switch: Vec<String>,
    /// What the GPU function itself reports (behind an internal switch: the internal link).
    pub device_reported: LinkState,
    /// The GPU package's own capability (max of the function on the GPU side of the link).
    pub package_max: LinkState,
}

fn min_speed(a: &Option<LinkSpeed>, b: &Option<LinkSpeed>) -> Option<LinkSpeed> {
    match (a, b) {
        (Some(x), Some(y)) => Some(if x.tenths_gts <= y.tenths_gts { x } else { y }.clone()),
        (Some(x), None) | (None, Some(x)) => Some(x.clone()),
        (None, None) => None,
    }
}

fn min_width(a: Option<u32>, b: Option<u32>) -> Option<u32> {
    match (a, b) {
        (Some(x), Some(y)) => Some(x.min(y)),
        (x, y) => x.or(y),
    }
}

/// Resolves the GPU's real link from `chain` = the GPU function first, then its upstream
/// bridges nearest first. Like amdgpu (`amdgpu_device.c:amdgpu_device_partner_bandwidth`,
/// §2), bridges with vendor 0x1002 are the switch inside the dGPU package and are skipped; the
/// first other bridge is the link partner, whose `current_*` describe the link to the package,
/// judged against the lower of the two ends' `max_*`. None for an empty chain.
pub fn resolve_link(chain: &[PortLink]) -> Option<Link> {
    let gpu = chain.first()?;
    let mut internal = Vec::new();
    let mut package_side = gpu;
    for port in &chain[1..] {
        if port.vendor == Some(VENDOR_ATI) {
            internal.push(port.bdf.clone());
            package_side = port;
            continue;
        }
        // Either end reports the same negotiated link; prefer the partner's, fall back to the
        // package side's when the partner's files were unreadable.
        let current = LinkState {
            speed: port
                .current
                .speed
                .clone()
                .or_else(|| package_side.current.speed.clone()),
            width: port.current.width.or(package_side.current.width),
        };
        let max = LinkState {
            speed: min_speed(&port.max.speed, &package_side.max.speed),
            width: min_width(port.max.width, package_side.max.width),
        };
        return Some(Link {
            current,
            max,
            limited_by: Some(port.bdf.clone()),
            package_port: package_side.bdf.clone(),
            internal_switch: internal,
            device_reported: gpu.current.clone(),
            package_max: package_side.max.clone(),
        });
    }
    // No partner in sysfs (a VM's passthrough device, a bare root-complex device): use the
    // package side's own view.
    Some(Link {
        current: package_side.current.clone(),
        max: package_side.max.clone(),
        limited_by: None,
        package_port: package_side.bdf.clone(),
        internal_switch: internal,
        device_reported: gpu.current.clone(),
        package_max: package_side.max.clone(),
    })
}

/// Whether a name is a PCI address (the names of PCI device directories; `gpu::layers` of the
/// main crate uses the same rule):
/// `dddd:bb:dd.f`, the names the PCI core gives its devices (`pci_setup_device`: `%04x:%02x:%02x.%d`;
/// a domain above 0xffff, as behind Intel's VMD, prints with more digits).
pub fn is_pci_address(s: &str) -> bool {
    let hex = |t: &str, min: usize, max: usize| {
        (min..=max).contains(&t.len()) && t.bytes().all(|c| c.is_ascii_hexdigit())
    };
    let mut it = s.split(':');
    let (Some(dom), Some(bus), Some(devfn), None) = (it.next(), it.next(), it.next(), it.next())
    else {
        return false;
    };
    let Some((dev, func)) = devfn.split_once('.') else {
        return false;
    };
    hex(dom, 4, 8)
        && hex(bus, 2, 2)
        && hex(dev, 2, 2)
        && func.len() == 1
        && matches!(func.as_bytes()[0], b'0'..=b'7')
}

/// Counts the DPM levels of `pp_dpm_pcie` (`"%d: %s %s %dMhz %s\n"`, §2). More than one level
/// means the SMU changes the link speed with load, so a lower speed at idle is expected.
pub fn pcie_dpm_levels(text: &str) -> usize {
    text.lines()
        .filter(|l| {
            l.split_once(':')
                .is_some_and(|(i, _)| !i.is_empty() && i.trim().bytes().all(|c| c.is_ascii_digit()))
        })
        .count()
}

// ---------------------------------------------------------------------------------------------
// Numbers, firmware (§5), XGMI (§7)
// ---------------------------------------------------------------------------------------------

/// A decimal `"%llu\n"` / `"%u\n"` value.
pub fn parse_dec_u64(text: &str) -> Result<u64, String> {
    let t = text.trim();
    t.parse()
        .map_err(|_| format!("not a decimal number: {:?}", truncate(t, 40)))
}

/// A signed decimal value (`"%d\n"`: hwmon temperatures in m°C, §4).
pub fn parse_dec_i64(text: &str) -> Result<i64, String> {
    let t = text.trim();
    t.parse()
        .map_err(|_| format!("not a decimal number: {:?}", truncate(t, 40)))
}

fn parse_hex_u64(text: &str) -> Result<u64, String> {
    let t = text.trim();
    let h = t
        .strip_prefix("0x")
        .or_else(|| t.strip_prefix("0X"))
        .ok_or_else(|| format!("not 0x-hex: {:?}", truncate(t, 40)))?;
    u64::from_str_radix(h, 16).map_err(|_| format!("not 0x-hex: {:?}", truncate(t, 40)))
}

fn parse_hex_u32(text: &str) -> Result<u32, String> {
    let v = parse_hex_u64(text)?;
    u32::try_from(v).map_err(|_| format!("more than 32 bits: {:#x}", v))
}

/// `fw_version/<name>_fw_version`: `"0x%08x\n"` (`amdgpu_ucode.c:FW_VERSION_ATTR`, §5).
/// Before ≈6.11, firmware a GPU does not have reads `0x00000000`.
pub fn parse_fw_version(text: &str) -> Result<u32, String> {
    parse_hex_u32(text)
}

/// `sos` for `sos_fw_version`; None for other names.
pub fn fw_name(file: &str) -> Option<&str> {
    file.strip_suffix("_fw_version").filter(|n| !n.is_empty())
}

/// XGMI identity of one GPU (§7, `amdgpu_xgmi.c`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Xgmi {
    /// `xgmi_hive_info/xgmi_hive_id` (`"%llu\n"`, decimal).
    pub hive_id: Option<u64>,
    /// `xgmi_device_id` (`"%llu\n"`, decimal node id).
    pub device_id: Option<u64>,
    /// `xgmi_physical_id` (`"%u\n"`, 0..7).
    pub physical_id: Option<u32>,
    /// The `nodeN` links in `xgmi_hive_info` (the members the hive lists), when readable.
    pub hive_nodes: Option<usize>,
}

/// `xgmi_num_links` (§7, `amdgpu_xgmi.c:amdgpu_xgmi_show_num_links`): one `"%02x "` per node
/// of the XGMI TA's topology of the hive (`psp.xgmi_context.top_info.nodes[]`, this GPU's own
/// entry included, with 0 links), then `"\n"`: how many XGMI links join this GPU to each node.
/// Their sum is the number of links the hive's topology says are trained and in use.
pub fn parse_xgmi_num_links(text: &str) -> Result<Vec<u8>, String> {
    text.split_whitespace()
        .take(64)
        .map(|w| {
            u8::from_str_radix(w, 16)
                .map_err(|_| format!("not a hex link count: {:?}", truncate(w, 12)))
        })
        .collect()
}

// ---------------------------------------------------------------------------------------------
// hwmon (§4) and gpu_metrics (§3)
// ---------------------------------------------------------------------------------------------

/// A hwmon `temp<N>_*` group.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct TempSensor {
    pub index: u32,
    /// `edge`, `junction`, `mem`.
    pub label: Option<String>,
    /// m°C.
    pub input: Option<i64>,
    pub crit: Option<i64>,
    pub emergency: Option<i64>,
}

/// Splits a hwmon file name `temp2_input` into (`temp`, 2, `input`).
pub fn hwmon_attr(name: &str) -> Option<(&str, u32, &str)> {
    let (head, attr) = name.split_once('_')?;
    let split = head.find(|c: char| c.is_ascii_digit())?;
    let (kind, num) = head.split_at(split);
    if kind.is_empty() || attr.is_empty() {
        return None;
    }
    Some((kind, num.parse().ok()?, attr))
}

/// A hwmon power value in µW (`"%zd\n"`/`"%u\n"`). `power1_cap` prints a bare `"\n"` when
/// the SMU query fails (§4, §10 item 5): Ok(None).
pub fn parse_microwatts(text: &str) -> Result<Option<u64>, String> {
    if text.trim().is_empty() {
        return Ok(None);
    }
    parse_dec_u64(text).map(Some)
}

/// The `gpu_metrics` header and throttle fields (§3).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct GpuMetrics {
    pub structure_size: u16,
    pub format_revision: u8,
    pub content_revision: u8,
    /// The size the kernel header gives this version, when known (§3 table).
    pub expected_size: Option<u16>,
    /// Raw, ASIC-specific `throttle_status` (None: not in this version, all-ones, or short).
    pub throttle_status: Option<u32>,
    /// ASIC-independent `indep_throttle_status` (v1_3, v2_2+).
    pub indep_throttle_status: Option<u64>,
    /// Why no throttle bitmap was read, when there is none.
    pub note: Option<String>,
    /// The same sample's sensors and load, to judge a throttle bit by (issue 26, item 7): °C
    /// (v2_x's centi-°C converted), % of gfx activity, MHz. None where the version has no such
    /// field or the firmware left it all-ones.
    pub sample: MetricsSample,
    /// PCIe counters accumulated by the firmware (v1_4 to v1_8, `kgd_pp_interface.h`).
    pub pcie: MetricsPcie,
    /// Per-link XGMI state (v1_7/v1_8 `xgmi_link_status[8]`), None for other versions.
    pub xgmi_links: Option<Vec<XgmiLinkState>>,
}

/// Temperatures, activity and clock of one `gpu_metrics` sample.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct MetricsSample {
    pub hotspot_c: Option<u16>,
    pub edge_c: Option<u16>,
    pub mem_c: Option<u16>,
    pub gfx_activity_pct: Option<u16>,
    pub current_gfxclk_mhz: Option<u16>,
}

/// `pcie_l0_to_recov_count_acc`, `pcie_replay_count_acc` (u64) and `pcie_nak_sent_count_acc`,
/// `pcie_nak_rcvd_count_acc` (u32, v1_5 to v1_8) of `struct gpu_metrics_v1_4` to `_v1_8`; from
/// v1_4 the bandwidth and replay-rollover counters, from v1_6 the link partner's recovery count
/// (`pcie_lc_perf_other_end_recovery`, u32).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct MetricsPcie {
    pub recovery: Option<u64>,
    pub replay: Option<u64>,
    pub nak_sent: Option<u32>,
    pub nak_rcvd: Option<u32>,
    /// `pcie_bandwidth_acc` (u64): accumulated bandwidth, in the firmware's unit (the header
    /// says GB/s; an intermediate v1_6 said Mbps): reported as read, never judged.
    pub bandwidth_acc: Option<u64>,
    /// `pcie_bandwidth_inst` (u64), the same unit.
    pub bandwidth_inst: Option<u64>,
    /// `pcie_replay_rover_count_acc` (u64): how often the replay counter rolled over.
    pub replay_rollover: Option<u64>,
    /// `pcie_lc_perf_other_end_recovery` (u32, v1_6+): recoveries the link partner entered.
    pub other_end_recovery: Option<u32>,
}

/// `xgmi_link_status[NUM_XGMI_LINKS]` (u16 x 8) of `gpu_metrics_v1_7`/`_v1_8`, filled by
/// `smu_v13_0_6_get_gpu_metrics` from `amdgpu_get_xgmi_link_status()`: 1 = active, 0 =
/// inactive; a slot the firmware did not fill stays all-ones (`smu_cmn_init_soft_gpu_metrics`
/// memsets 0xFF), which amd-smi reports as "disabled" (`amdsmi_get_gpu_xgmi_link_status`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum XgmiLinkState {
    Up,
    Down,
    /// All-ones: the slot is not a populated link.
    NotPresent,
    /// Any other value (the driver writes only 0 and 1).
    Unknown(u16),
}

impl XgmiLinkState {
    pub fn from_raw(v: u16) -> Self {
        match v {
            1 => XgmiLinkState::Up,
            0 => XgmiLinkState::Down,
            u16::MAX => XgmiLinkState::NotPresent,
            n => XgmiLinkState::Unknown(n),
        }
    }
}

/// Offsets of the sample fields (hotspot, edge, mem, gfx activity, current gfxclk) per version,
/// and the divisor that turns the stored unit into °C / %. From §3's offset tables (computed
/// from `kgd_pp_interface.h`); v1_x store °C and %, v2_1+ centi-°C and centi-% (the header's
/// comments). v2_0 (not naturally aligned) and v3_0 are not decoded.
struct SampleOffsets {
    hotspot: Option<usize>,
    edge: Option<usize>,
    mem: Option<usize>,
    activity: usize,
    gfxclk: usize,
    scale: u16,
}

fn sample_offsets(format: u8, content: u8) -> Option<SampleOffsets> {
    let v1 = |hotspot, edge, mem, activity, gfxclk| SampleOffsets {
        hotspot: Some(hotspot),
        edge,
        mem: Some(mem),
        activity,
        gfxclk,
        scale: 1,
    };
    Some(match (format, content) {
        (1, 0) => v1(18, Some(16), 20, 28, 54),
        (1, 1..=3) => v1(6, Some(4), 8, 16, 54),
        (1, 4) => v1(4, None, 6, 12, 240),
        (1, 5) => v1(4, None, 6, 12, 312),
        (1, 6) => v1(4, None, 6, 12, 264),
        (1, 7 | 8) => v1(4, None, 6, 12, 296),
        // APUs: temperature_gfx at 4 stands for the hotspot; no memory sensor.
        (2, 1..=4) => SampleOffsets {
            hotspot: Some(4),
            edge: None,
            mem: None,
            activity: 28,
            gfxclk: 76,
            scale: 100,
        },
        _ => return None,
    })
}

/// Offsets of the NAK sent/received counters (v1_5 on).
type NakOffsets = Option<(usize, usize)>;

/// Offsets of (`pcie_l0_to_recov_count_acc`, `pcie_replay_count_acc`, NAK sent, NAK received)
/// computed from `struct gpu_metrics_v1_4`/`_v1_5` (x86-64 natural alignment; the computation
/// puts `current_gfxclk` at 240 and 312, as §3 does).
fn pcie_offsets(format: u8, content: u8) -> Option<(usize, usize, NakOffsets)> {
    pcie_layout(format, content).map(|l| (l.recovery, l.replay, l.nak))
}

/// Where the PCIe and XGMI-link fields of one `gpu_metrics` version lie (byte offsets).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PcieLayout {
    pub bandwidth_acc: usize,
    pub bandwidth_inst: usize,
    pub recovery: usize,
    pub replay: usize,
    pub replay_rollover: usize,
    pub nak: NakOffsets,
    /// `pcie_lc_perf_other_end_recovery` (u32), v1_6+.
    pub other_end_recovery: Option<usize>,
    /// `xgmi_link_status[8]` (u16), v1_7+.
    pub xgmi_link_status: Option<usize>,
}

/// Offsets in `struct gpu_metrics_v1_4` to `_v1_8` (`drivers/gpu/drm/amd/include/
/// kgd_pp_interface.h`), computed by hand with x86-64 natural alignment and checked against
/// what the kernel's `structure_size` must be (§3: 288, 360, 1664, 2208, 3872; the unit test
/// `pcie_layouts_match_the_kernel_structs` redoes the arithmetic field by field). Layouts:
/// v1_4/v1_5 as in torvalds/linux@00dedab0; v1_6 (the 6.13+ body, with `xcp_stats[8]` of
/// `amdgpu_xcp_metrics` and `pcie_lc_perf_other_end_recovery`), v1_7 (`mem_max_bandwidth`,
/// `xgmi_link_status[8]`, `amdgpu_xcp_metrics_v1_1`) and v1_8 (`amdgpu_xcp_metrics_v1_2`,
/// `NUM_JPEG_ENG_V1` 40) as posted in "drm/amd/pm: Add gpu_metrics_v1_8" (amd-gfx, 2025-03-26,
/// Asad Kamal) and carried by the S1 `pr/6.13`..`pr/6.18` trees of the health reference. The
/// v1_6 of torvalds/linux@00dedab0 (an earlier body, 380 bytes, never emitted) differs in
/// size, so `parse_gpu_metrics` notes the mismatch and decodes nothing.
pub fn pcie_layout(format: u8, content: u8) -> Option<PcieLayout> {
    let l = |bw: usize, nak: NakOffsets, other: Option<usize>, xgmi: Option<usize>| PcieLayout {
        bandwidth_acc: bw,
        bandwidth_inst: bw + 8,
        recovery: bw + 16,
        replay: bw + 24,
        replay_rollover: bw + 32,
        nak,
        other_end_recovery: other,
        xgmi_link_status: xgmi,
    };
    Some(match (format, content) {
        (1, 4) => l(64, None, None, None),
        (1, 5) => l(128, Some((168, 172)), None, None),
        (1, 6) => l(80, Some((120, 124)), Some(1656), None),
        (1, 7) => l(88, Some((128, 132)), Some(2200), Some(264)),
        (1, 8) => l(88, Some((128, 132)), Some(3864), Some(264)),
        _ => return None,
    })
}

/// Number of `xgmi_link_status` slots (`NUM_XGMI_LINKS`, kgd_pp_interface.h).
pub const NUM_XGMI_LINKS: usize = 8;

fn le_u16(b: &[u8], off: usize) -> Option<u16> {
    let s = b.get(off..off.checked_add(2)?)?;
    Some(u16::from_le_bytes([s[0], s[1]]))
}

fn decode_sample(b: &[u8], format: u8, content: u8) -> MetricsSample {
    let Some(o) = sample_offsets(format, content) else {
        return MetricsSample::default();
    };
    let get = |off: Option<usize>| {
        off.and_then(|o2| le_u16(b, o2))
            .filter(|v| *v != u16::MAX)
            .map(|v| v / o.scale)
    };
    MetricsSample {
        hotspot_c: get(o.hotspot),
        edge_c: get(o.edge),
        mem_c: get(o.mem),
        gfx_activity_pct: get(Some(o.activity)),
        current_gfxclk_mhz: le_u16(b, o.gfxclk).filter(|v| *v != u16::MAX),
    }
}

fn decode_pcie(b: &[u8], format: u8, content: u8) -> MetricsPcie {
    let Some((recov, replay, nak)) = pcie_offsets(format, content) else {
        return MetricsPcie::default();
    };
    let mut p = MetricsPcie {
        recovery: le_u64(b, recov).filter(|v| *v != u64::MAX),
        replay: le_u64(b, replay).filter(|v| *v != u64::MAX),
        nak_sent: nak
            .and_then(|(s, _)| le_u32(b, s))
            .filter(|v| *v != u32::MAX),
        nak_rcvd: nak
            .and_then(|(_, r)| le_u32(b, r))
            .filter(|v| *v != u32::MAX),
        ..Default::default()
    };
    if let Some(l) = pcie_layout(format, content) {
        let u64_at = |o: usize| le_u64(b, o).filter(|v| *v != u64::MAX);
        p.bandwidth_acc = u64_at(l.bandwidth_acc);
        p.bandwidth_inst = u64_at(l.bandwidth_inst);
        p.replay_rollover = u64_at(l.replay_rollover);
        p.other_end_recovery = l
            .other_end_recovery
            .and_then(|o| le_u32(b, o))
            .filter(|v| *v != u32::MAX);
    }
    p
}

/// The `xgmi_link_status` slots of a v1_7/v1_8 sample, in link order; None for other versions
/// or a sample too short to hold them.
fn decode_xgmi_links(b: &[u8], format: u8, content: u8) -> Option<Vec<XgmiLinkState>> {
    let off = pcie_layout(format, content)?.xgmi_link_status?;
    (0..NUM_XGMI_LINKS)
        .map(|i| le_u16(b, off + 2 * i).map(XgmiLinkState::from_raw))
        .collect()
}

/// Sizes from §3 (computed there from `kgd_pp_interface.h`, x86-64).
fn metrics_size(format: u8, content: u8) -> Option<u16> {
    Some(match (format, content) {
        (1, 0) => 80,
        (1, 1) => 96,
        (1, 2) => 104,
        (1, 3) => 120,
        (1, 4) => 288,
        (1, 5) => 360,
        (1, 6) => 1664,
        (1, 7) => 2208,
        (1, 8) => 3872,
        (2, 0) | (2, 1) => 120,
        (2, 2) => 128,
        (2, 3) => 152,
        (2, 4) => 168,
        (3, 0) => 264,
        _ => return None,
    })
}

/// Offsets of `throttle_status` (u32) and `indep_throttle_status` (u64) per version (§3
/// "Offsets that matter").
fn throttle_offsets(format: u8, content: u8) -> (Option<usize>, Option<usize>) {
    match (format, content) {
        (1, 0..=2) => (Some(68), None),
        (1, 3) => (Some(68), Some(112)),
        (1, 4) => (Some(40), None),
        (1, 5) => (Some(104), None),
        (2, 1) => (Some(108), None),
        (2, 2..=4) => (Some(108), Some(120)),
        _ => (None, None),
    }
}

fn le_u32(b: &[u8], off: usize) -> Option<u32> {
    let s = b.get(off..off.checked_add(4)?)?;
    Some(u32::from_le_bytes([s[0], s[1], s[2], s[3]]))
}

fn le_u64(b: &[u8], off: usize) -> Option<u64> {
    let s = b.get(off..off.checked_add(8)?)?;
    let mut a = [0u8; 8];
    a.copy_from_slice(s);
    Some(u64::from_le_bytes(a))
}

/// Parses the header (`struct metrics_table_header`: u16 size, u8 format, u8 content) and the
/// throttle fields where §3 gives their offset. All-ones fields are N/A (the firmware did not
/// fill them, `smu_cmn_init_soft_gpu_metrics`). v1_6+ and v3_0 have no bitmap (residency
/// counters instead, which need two samples): `note` says so.
pub fn parse_gpu_metrics(bytes: &[u8]) -> Result<GpuMetrics, String> {
    if bytes.len() < 4 {
        return Err(format!(
            "{} bytes, shorter than the 4-byte header",
            bytes.len()
        ));
    }
    let structure_size = u16::from_le_bytes([bytes[0], bytes[1]]);
    let (format_revision, content_revision) = (bytes[2], bytes[3]);
    let expected_size = metrics_size(format_revision, content_revision);
    let (t_off, i_off) = throttle_offsets(format_revision, content_revision);
    let mut note = None;
    let mut throttle_status = None;
    let mut indep = None;
    let mut sample = MetricsSample::default();
    let mut pcie = MetricsPcie::default();
    let mut xgmi_links = None;
    if bytes.len() < structure_size as usize {
        note = Some(format!(
            "read {} bytes, header says {structure_size}",
            bytes.len()
        ));
    } else if bytes.len() > structure_size as usize {
        // amdgpu_get_gpu_metrics copies exactly `structure_size` bytes: more is not one sample.
        note = Some(format!(
            "read {} bytes, more than the header's structure_size {structure_size}: not one \
                gpu_metrics sample",
            bytes.len()
        ));
    } else if expected_size.is_some_and(|e| e != structure_size) {
        note = Some(format!(
            "structure_size {structure_size} differs from v{format_revision}_{content_revision}'s \
                {}",
            expected_size.unwrap_or(0)
        ));
    } else if expected_size.is_none() {
        note = Some(format!(
            "v{format_revision}_{content_revision} is not a known gpu_metrics version"
        ));
    } else {
        throttle_status = t_off
            .and_then(|o| le_u32(bytes, o))
            .filter(|v| *v != u32::MAX);
        indep = i_off
            .and_then(|o| le_u64(bytes, o))
            .filter(|v| *v != u64::MAX);
        if t_off.is_none() && i_off.is_none() {
            note = Some(format!(
                "v{format_revision}_{content_revision} has no throttle bitmap (residency counters \
                    need two samples)"
            ));
        }
        sample = decode_sample(bytes, format_revision, content_revision);
        pcie = decode_pcie(bytes, format_revision, content_revision);
        xgmi_links = decode_xgmi_links(bytes, format_revision, content_revision);
    }
    Ok(GpuMetrics {
        structure_size,
        format_revision,
        content_revision,
        expected_size,
        throttle_status,
        indep_throttle_status: indep,
        note,
        sample,
        pcie,
        xgmi_links,
    })
}

/// What a throttler limits.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ThrottleKind {
    Power,
    Current,
    Temperature,
    Other,
}

/// `SMU_THROTTLER_*_BIT` of `indep_throttle_status` (`swsmu/inc/amdgpu_smu.h`, §3).
const INDEP_THROTTLERS: [(u32, &str, ThrottleKind); 34] = {
    use ThrottleKind::*;
    [
        (0, "PPT0", Power),
        (1, "PPT1", Power),
        (2, "PPT2", Power),
        (3, "PPT3", Power),
        (4, "SPL", Power),
        (5, "FPPT", Power),
        (6, "SPPT", Power),
        (7, "SPPT_APU", Power),
        (16, "TDC_GFX", Current),
        (17, "TDC_SOC", Current),
        (18, "TDC_MEM", Current),
        (19, "TDC_VDD", Current),
        (20, "TDC_CVIP", Current),
        (21, "EDC_CPU", Current),
        (22, "EDC_GFX", Current),
        (23, "APCC", Current),
        (32, "TEMP_GPU", Temperature),
        (33, "TEMP_CORE", Temperature),
        (34, "TEMP_MEM", Temperature),
        (35, "TEMP_EDGE", Temperature),
        (36, "TEMP_HOTSPOT", Temperature),
        (37, "TEMP_SOC", Temperature),
        (38, "TEMP_VR_GFX", Temperature),
        (39, "TEMP_VR_SOC", Temperature),
        (40, "TEMP_VR_MEM0", Temperature),
        (41, "TEMP_VR_MEM1", Temperature),
        (42, "TEMP_LIQUID0", Temperature),
        (43, "TEMP_LIQUID1", Temperature),
        (44, "VRHOT0", Temperature),
        (45, "VRHOT1", Temperature),
        (46, "PROCHOT_CPU", Temperature),
        (47, "PROCHOT_GFX", Temperature),
        (56, "PPM", Other),
        (57, "FIT", Other),
    ]
};

/// MI300 (v1_4/v1_5) `throttle_status` bits (`smu13_driver_if_v13_0_6.h`, §3).
const MI300_THROTTLERS: [(u32, &str, ThrottleKind); 5] = [
    (0, "PROCHOT", ThrottleKind::Temperature),
    (1, "PPT", ThrottleKind::Power),
    (2, "THERMAL_SOCKET", ThrottleKind::Temperature),
    (3, "THERMAL_VR", ThrottleKind::Temperature),
    (4, "THERMAL_HBM", ThrottleKind::Temperature),
];

/// The throttlers active in a sample, by name, with their kind. Uses the ASIC-independent
/// bitmap when present, else MI300's raw bits for v1_4/v1_5; other raw bitmaps are
/// ASIC-specific and are reported as `throttle_status 0x..` of kind Other.
pub fn active_throttlers(m: &GpuMetrics) -> Vec<(String, ThrottleKind)> {
    if let Some(bits) = m.indep_throttle_status {
        let mut v: Vec<(String, ThrottleKind)> = INDEP_THROTTLERS
            .iter()
            .filter(|(b, _, _)| bits & (1u64 << b) != 0)
            .map(|(_, n, k)| (n.to_string(), *k))
            .collect();
        let known: u64 = INDEP_THROTTLERS
            .iter()
            .fold(0, |a, (b, _, _)| a | (1u64 << b));
        if bits & !known != 0 {
            v.push((format!("bits {:#x}", bits & !known), ThrottleKind::Other));
        }
        return v;
    }
    let Some(raw) = m.throttle_status.filter(|r| *r != 0) else {
        return Vec::new();
    };
    if m.format_revision == 1 && matches!(m.content_revision, 4 | 5) {
        let mut v: Vec<(String, ThrottleKind)> = MI300_THROTTLERS
            .iter()
            .filter(|(b, _, _)| raw & (1 << b) != 0)
            .map(|(_, n, k)| (n.to_string(), *k))
            .collect();
        if raw & !0x1f != 0 {
            v.push((format!("bits {:#x}", raw & !0x1f), ThrottleKind::Other));
        }
        return v;
    }
    vec![(
        format!("throttle_status {raw:#010x} (ASIC-specific bits)"),
        ThrottleKind::Other,
    )]
}

// ---------------------------------------------------------------------------------------------
// PCIe AER statistics (issue 26, item 3)
// ---------------------------------------------------------------------------------------------

/// The three AER statistics files of a PCI function, with the key of their last line.
/// They exist only on AER-capable functions (`aer_stats_attrs_are_visible` in
/// `drivers/pci/pcie/aer.c` hides them otherwise), from Linux 4.19
/// (`Documentation/ABI/testing/sysfs-bus-pci-devices-aer_stats`).
pub const AER_FILES: [(AerSeverity, &str, &str); 3] = [
    (AerSeverity::Fatal, "aer_dev_fatal", "TOTAL_ERR_FATAL"),
    (
        AerSeverity::NonFatal,
        "aer_dev_nonfatal",
        "TOTAL_ERR_NONFATAL",
    ),
    (
        AerSeverity::Correctable,
        "aer_dev_correctable",
        "TOTAL_ERR_COR",
    ),
];

/// The class of an AER error message (ERR_FATAL, ERR_NONFATAL, ERR_COR).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum AerSeverity {
    Fatal,
    NonFatal,
    Correctable,
}

/// One `aer_dev_*` file: the total of error messages, and the error kinds seen (count > 0).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct AerStats {
    /// The `TOTAL_ERR_*` line: error messages received (one message may report several errors,
    /// so it need not equal the sum of the lines above it, per the ABI document).
    pub total: u64,
    /// The named lines with a count above zero, in file order (`Receiver Error 2`), and the
    /// unnamed bits the kernel prints as `dev_cor_errs_bit[N] C`.
    pub kinds: Vec<(String, u64)>,
}

/// Parses an `aer_dev_*` file: one `"%s %llu\n"` line per error kind the kernel names, a
/// `"<array>_bit[%d] %llu\n"` line per unnamed bit with a count, then
/// `"TOTAL_%s %llu\n"` (`drivers/pci/pcie/aer.c`, macro `aer_stats_dev_attr`). Names contain
/// spaces (`Replay Timer Timeout 0`), so the count is the last word. The total line is required:
/// without it the text is not this format.
pub fn parse_aer_stats(text: &str, total_key: &str) -> Result<AerStats, String> {
    let mut out = AerStats::default();
    let mut total = None;
    for line in text.lines().map(str::trim).filter(|l| !l.is_empty()) {
        let Some((name, count)) = line.rsplit_once(' ') else {
            return Err(format!("line without a count: {:?}", truncate(line, 40)));
        };
        let n: u64 = count
            .parse()
            .map_err(|_| format!("not a count: {:?}", truncate(line, 40)))?;
        let name = name.trim();
        if name == total_key {
            total = Some(n);
        } else if name.starts_with("TOTAL_") {
            return Err(format!("{name} where {total_key} was expected"));
        } else if n > 0 && out.kinds.len() < 64 {
            out.kinds.push((truncate(name, 40), n));
        }
    }
    out.total = total.ok_or_else(|| format!("no {total_key} line"))?;
    Ok(out)
}

// ---------------------------------------------------------------------------------------------
// Partitions (§6)
// ---------------------------------------------------------------------------------------------

/// Compute modes printed by `current_compute_partition` (`amdgpu_gfx.c`, §6).
pub const COMPUTE_PARTITIONS: [&str; 6] = ["SPX", "DPX", "TPX", "QPX", "CPX", "UNKNOWN"];
/// Memory modes printed by `current_memory_partition` (`amdgpu_gmc.c`, §6).
pub const MEMORY_PARTITIONS: [&str; 7] =
    ["NPS1", "NPS2", "NPS3", "NPS4", "NPS6", "NPS8", "UNKNOWN"];

/// Parses a `current_*_partition` value against the modes the kernel prints.
pub fn parse_partition_mode(text: &str, modes: &[&str]) -> Result<String, String> {
    let t = text.trim();
    if modes.contains(&t) {
        Ok(t.to_string())
    } else {
        Err(format!(
            "not one of {}: {:?}",
            modes.join("/"),
            truncate(t, 40)
        ))
    }
}

/// Parses `available_*_partition`: modes joined by `", "`; `Not supported` is an empty list.
pub fn parse_partition_list(text: &str) -> Vec<String> {
    let t = text.trim();
    if t == "Not supported" {
        return Vec::new();
    }
    t.split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(|s| truncate(s, 16))
        .collect()
}

/// The partition state of one GPU.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Partition {
    pub compute: Option<String>,
    pub available_compute: Option<Vec<String>>,
    pub memory: Option<String>,
    pub available_memory: Option<Vec<String>>,
}

/// The first `max` characters of `s` (for evidence from untrusted text).
pub fn truncate(s: &str, max: usize) -> String {
    match s.char_indices().nth(max) {
        Some((i, _)) => format!("{}...", &s[..i]),
        None => s.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ras_counts_two_and_three_lines_and_inaccessible() {
        // 2-line form (≤6.8 and non-UMC blocks), 3-line UMC/ACA form, §1.
        assert_eq!(
            parse_ras_count("ue: 0\nce: 3\n"),
            Ok(RasCount::Counts {
                ue: 0,
                ce: 3,
                de: None
            })
        );
        assert_eq!(
            parse_ras_count("ue: 1\nce: 3\nde: 0\n"),
            Ok(RasCount::Counts {
                ue: 1,
                ce: 3,
                de: Some(0)
            })
        );
        assert_eq!(
            parse_ras_count("Query currently inaccessible\n"),
            Ok(RasCount::Inaccessible)
        );
        assert!(parse_ras_count("").is_err());
        assert!(parse_ras_count("ue: x\nce: 1\n").is_err());
        assert!(parse_ras_count("ue: 1\nue: 2\nce: 0\n").is_err());
        assert!(parse_ras_count("ue: 18446744073709551616\nce: 0\n").is_err());
    }

    #[test]
    fn ras_file_names() {
        assert_eq!(
            ras_count_file("umc_err_count"),
            Some(("umc".into(), RasSource::ErrCount))
        );
        assert_eq!(
            ras_count_file("mca.mp0_err_count"),
            Some(("mca.mp0".into(), RasSource::ErrCount))
        );
        assert_eq!(
            ras_count_file("aca_xgmi_wafl"),
            Some(("xgmi_wafl".into(), RasSource::Aca))
        );
        for other in [
            "features",
            "gpu_vram_bad_pages",
            "version",
            "schema",
            "event_state",
            "_err_count",
            "aca_",
        ] {
            assert_eq!(ras_count_file(other), None, "{other}");
        }
    }

    #[test]
    fn ras_features_mask_and_socket() {
        // The reference's example: socket 1, umc sdma gfx mmhub pcie_bif hdp xgmi_wafl.
        let f = parse_ras_features("feature mask: 0x200000ef\n").unwrap();
        assert_eq!(f.socket, 1);
        assert_eq!(
            f.blocks,
            [
                "umc",
                "sdma",
                "gfx",
                "mmhub",
                "pcie_bif",
                "hdp",
                "xgmi_wafl"
            ]
        );
        assert!(parse_ras_features("mask 0xef").is_err());
        assert!(parse_ras_features("feature mask: 0x1ffffffff").is_err());
    }

    #[test]
    fn bad_pages_lines_flags_and_empty() {
        let b = parse_bad_pages("0x000a1b2c : 0x00001000 : R\n0x000a1b2d : 0x00001000 : P\n");
        assert_eq!(b.pages.len(), 2);
        assert_eq!(b.pages[0].pfn, 0xa1b2c);
        assert_eq!(b.pages[0].size, 0x1000);
        assert_eq!(b.count(BadPageFlag::Retired), 1);
        assert_eq!(b.count(BadPageFlag::Pending), 1);
        // Empty read: no bad pages, not an error (§1).
        assert_eq!(parse_bad_pages(""), BadPages::default());
        let b = parse_bad_pages("0x1 : 0x00001000 : X\ngarbage\n0x00000002 : 0x00001000 : F\n");
        assert_eq!(b.malformed.len(), 2);
        assert_eq!(b.count(BadPageFlag::Failed), 1);
    }

    #[test]
    fn threshold_values_and_policy() {
        use BadPageThreshold::*;
        assert_eq!(parse_bad_page_threshold("-1\n"), Ok(Default));
        assert_eq!(parse_bad_page_threshold("-2\n"), Ok(Minus2));
        assert_eq!(parse_bad_page_threshold("0\n"), Ok(Disabled));
        assert_eq!(parse_bad_page_threshold("128\n"), Ok(User(128)));
        assert_eq!(parse_bad_page_threshold("-7"), Ok(Other(-7)));
        assert!(parse_bad_page_threshold("auto").is_err());
        let vram = Some(64u64 << 30);
        // 6.8 (6.6-6.12 row): -1 = VRAM/100 MiB, warns only.
        let p = threshold_policy(Default, Some((6, 8)), vram);
        assert_eq!(p.limit, Some(655));
        assert_eq!(p.on_exceed, OnExceed::WarnOnly);
        // 6.15+: -1 is computed from reserved pages, only in debugfs.
        assert_eq!(threshold_policy(Default, Some((6, 17)), vram).limit, None);
        // 5.15: -1 "auto", GPU not initialised.
        assert_eq!(
            threshold_policy(Default, Some((5, 15)), vram).on_exceed,
            OnExceed::NotInitialised
        );
        // -2 on 6.8: not initialised; on 6.1: ignored.
        assert_eq!(
            threshold_policy(Minus2, Some((6, 8)), vram).on_exceed,
            OnExceed::NotInitialised
        );
        assert_eq!(
            threshold_policy(Minus2, Some((6, 1)), vram).on_exceed,
            OnExceed::WarnOnly
        );
        let p = threshold_policy(User(10), Some((6, 17)), vram);
        assert_eq!((p.limit, p.on_exceed), (Some(10), OnExceed::Halt));
        assert_eq!(
            threshold_policy(User(10), Some((6, 8)), vram).on_exceed,
            OnExceed::NotInitialised
        );
        assert_eq!(
            threshold_policy(Disabled, None, vram).on_exceed,
            OnExceed::Nothing
        );
        assert_eq!(parse_kernel_release("6.8.0-49-generic\n"), Some((6, 8)));
        assert_eq!(parse_kernel_release("6.17.0"), Some((6, 17)));
        assert_eq!(parse_kernel_release("linux"), None);
    }

    #[test]
    fn link_speed_strings_old_and_new() {
        let s = parse_link_speed("8.0 GT/s PCIe\n").unwrap().unwrap();
        assert_eq!(s.tenths_gts, 80);
        assert_eq!(s.label(), "8.0 GT/s");
        assert_eq!(
            parse_link_speed("2.5 GT/s PCIe")
                .unwrap()
                .unwrap()
                .tenths_gts,
            25
        );
        assert_eq!(
            parse_link_speed("64.0 GT/s PCIe")
                .unwrap()
                .unwrap()
                .tenths_gts,
            640
        );
        // ≤5.6 strings.
        assert_eq!(
            parse_link_speed("5 GT/s\n").unwrap().unwrap().tenths_gts,
            50
        );
        assert_eq!(
            parse_link_speed("16 GT/s").unwrap().unwrap().tenths_gts,
            160
        );
        assert_eq!(parse_link_speed("Unknown\n"), Ok(None));
        assert_eq!(parse_link_speed("Unknown speed\n"), Ok(None));
        assert!(parse_link_speed("fast").is_err());
        assert!(parse_link_speed(".5 GT/s").is_err());
        assert_eq!(parse_link_width("16\n"), Ok(16));
        assert_eq!(parse_link_width("0\n"), Ok(0));
        assert!(parse_link_width("x16").is_err());
    }

    fn port(bdf: &str, vendor: u16, cur: (u32, u32), max: (u32, u32)) -> PortLink {
        let st = |(s, w): (u32, u32)| LinkState {
            speed: Some(LinkSpeed {
                tenths_gts: s,
                text: String::new(),
            }),
            width: Some(w),
        };
        PortLink {
            bdf: bdf.into(),
            vendor: Some(vendor),
            current: st(cur),
            max: st(max),
        }
    }

    #[test]
    fn link_skips_the_internal_switch() {
        // Navi-style package: GPU 03:00.0 behind 1002 switch ports 02:00.0 and 01:00.0; the GPU
        // reports its internal link (16 GT/s x16), the root port shows the slot at x4.
        let chain = [
            port("0000:03:00.0", 0x1002, (160, 16), (160, 16)),
            port("0000:02:00.0", 0x1002, (160, 16), (160, 16)),
            port("0000:01:00.0", 0x1002, (160, 16), (160, 16)),
            port("0000:00:01.1", 0x1022, (160, 4), (160, 16)),
        ];
        let l = resolve_link(&chain).unwrap();
        assert_eq!(l.limited_by.as_deref(), Some("0000:00:01.1"));
        assert_eq!(l.package_port, "0000:01:00.0");
        assert_eq!(l.internal_switch, ["0000:02:00.0", "0000:01:00.0"]);
        assert_eq!(l.current.width, Some(4));
        assert_eq!(l.max.width, Some(16));
        assert_eq!(l.device_reported.width, Some(16));
    }

    #[test]
    fn link_max_is_the_lower_end_and_no_bridge_uses_the_gpu() {
        let chain = [
            port("0000:63:00.0", 0x1002, (80, 8), (160, 16)),
            port("0000:60:01.1", 0x1022, (80, 8), (80, 16)),
        ];
        let l = resolve_link(&chain).unwrap();
        assert_eq!(l.max.speed.as_ref().unwrap().tenths_gts, 80);
        assert_eq!(l.max.width, Some(16));
        assert_eq!(l.current.label(), "8.0 GT/s x8");
        let l = resolve_link(&chain[..1]).unwrap();
        assert_eq!(l.limited_by, None);
        assert_eq!(l.current.width, Some(8));
        assert!(resolve_link(&[]).is_none());
    }

    #[test]
    fn pci_addresses() {
        assert!(is_pci_address("0000:03:00.0"));
        assert!(is_pci_address("0001:af:1f.7"));
        assert!(!is_pci_address("pci0000:00"));
        assert!(!is_pci_address("0000:03:00.8"));
        assert!(!is_pci_address("amdgpu_xcp.0"));
    }

    #[test]
    fn pcie_dpm_level_count() {
        assert_eq!(
            pcie_dpm_levels("0: 2.5GT/s, x1 619Mhz \n1: 16.0GT/s, x16 619Mhz *\n"),
            2
        );
        assert_eq!(pcie_dpm_levels(""), 0);
    }

    #[test]
    fn firmware_versions_are_hex() {
        assert_eq!(parse_fw_version("0x0000005c\n"), Ok(92));
        assert_eq!(parse_fw_version("0x00000000\n"), Ok(0));
        assert!(parse_fw_version("92").is_err());
        assert_eq!(fw_name("sos_fw_version"), Some("sos"));
        assert_eq!(fw_name("_fw_version"), None);
        assert_eq!(fw_name("sos"), None);
    }

    #[test]
    fn hwmon_names_and_power() {
        assert_eq!(hwmon_attr("temp2_input"), Some(("temp", 2, "input")));
        assert_eq!(
            hwmon_attr("temp1_crit_hyst"),
            Some(("temp", 1, "crit_hyst"))
        );
        assert_eq!(hwmon_attr("power1_cap_max"), Some(("power", 1, "cap_max")));
        assert_eq!(hwmon_attr("name"), None);
        assert_eq!(hwmon_attr("temp_input"), None);
        assert_eq!(parse_microwatts("300000000\n"), Ok(Some(300_000_000)));
        // power1_cap prints a bare newline when the query fails (§4).
        assert_eq!(parse_microwatts("\n"), Ok(None));
        assert_eq!(parse_dec_i64("-5000\n"), Ok(-5000));
    }

    fn metrics(format: u8, content: u8, size: u16) -> Vec<u8> {
        let mut b = vec![0xffu8; size as usize];
        b[0..2].copy_from_slice(&size.to_le_bytes());
        b[2] = format;
        b[3] = content;
        b
    }

    #[test]
    fn gpu_metrics_header_and_throttle_fields() {
        // v1_3 (MI200): throttle_status at 68, indep_throttle_status at 112 (§3).
        let mut b = metrics(1, 3, 120);
        b[68..72].copy_from_slice(&0u32.to_le_bytes());
        b[112..120].copy_from_slice(&(1u64 << 36 | 1).to_le_bytes());
        let m = parse_gpu_metrics(&b).unwrap();
        assert_eq!(
            (m.format_revision, m.content_revision, m.structure_size),
            (1, 3, 120)
        );
        assert_eq!(m.throttle_status, Some(0));
        let t = active_throttlers(&m);
        assert_eq!(
            t,
            [
                ("PPT0".to_string(), ThrottleKind::Power),
                ("TEMP_HOTSPOT".to_string(), ThrottleKind::Temperature)
            ]
        );
        // All-ones = N/A.
        let m = parse_gpu_metrics(&metrics(1, 3, 120)).unwrap();
        assert_eq!((m.throttle_status, m.indep_throttle_status), (None, None));
        assert!(active_throttlers(&m).is_empty());
        // MI300 v1_5: throttle_status at 104, bits PROCHOT 0 .. THERMAL_HBM 4.
        let mut b = metrics(1, 5, 360);
        b[104..108].copy_from_slice(&0b10010u32.to_le_bytes());
        let names: Vec<String> = active_throttlers(&parse_gpu_metrics(&b).unwrap())
            .into_iter()
            .map(|(n, _)| n)
            .collect();
        assert_eq!(names, ["PPT", "THERMAL_HBM"]);
        // v1_8: no bitmap.
        let m = parse_gpu_metrics(&metrics(1, 8, 3872)).unwrap();
        assert!(m.note.as_deref().unwrap().contains("no throttle bitmap"));
        // Size mismatch and truncation are notes, not panics.
        let m = parse_gpu_metrics(&metrics(1, 3, 100)).unwrap();
        assert!(m.note.is_some() && m.throttle_status.is_none());
        let mut short = metrics(1, 3, 120);
        short.truncate(50);
        assert!(parse_gpu_metrics(&short).unwrap().note.is_some());
        assert!(parse_gpu_metrics(&[1, 2]).is_err());
    }

    #[test]
    fn aer_stats_as_the_kernel_prints_them() {
        // The ABI document's sample of aer_dev_correctable (sysfs-bus-pci-devices-aer_stats).
        let cor = "Receiver Error 2\nBad TLP 0\nBad DLLP 0\nRELAY_NUM Rollover 0\nReplay Timer \
            Timeout 0\nAdvisory Non-Fatal 0\nCorrected Internal Error 0\nHeader Log Overflow \
            0\nTOTAL_ERR_COR 2\n";
        let st = parse_aer_stats(cor, "TOTAL_ERR_COR").unwrap();
        assert_eq!(st.total, 2);
        assert_eq!(st.kinds, [("Receiver Error".to_string(), 2)]);
        // An unnamed bit with a count (aer.c prints `<array>_bit[N] C`), and a total that is
        // not the sum (one message may carry several errors).
        let st = parse_aer_stats(
            "Undefined 0\ndev_fatal_errs_bit[26] 3\nTOTAL_ERR_FATAL 1\n",
            "TOTAL_ERR_FATAL",
        )
        .unwrap();
        assert_eq!((st.total, st.kinds.len()), (1, 1));
        assert_eq!(st.kinds[0].0, "dev_fatal_errs_bit[26]");
        // Not this format: no total, another file's total, a word for a count.
        assert!(parse_aer_stats("Receiver Error 2\n", "TOTAL_ERR_COR").is_err());
        assert!(parse_aer_stats("TOTAL_ERR_FATAL 0\n", "TOTAL_ERR_COR").is_err());
        assert!(parse_aer_stats("Bad TLP many\nTOTAL_ERR_COR 1\n", "TOTAL_ERR_COR").is_err());
        assert!(parse_aer_stats("", "TOTAL_ERR_COR").is_err());
    }

    #[test]
    fn gpu_metrics_sample_and_pcie_counters() {
        // v1_3: edge 4, hotspot 6, mem 8, gfx activity 16, current_gfxclk 54 (°C, %, MHz).
        let mut b = metrics(1, 3, 120);
        for (off, v) in [(4usize, 35u16), (6, 37), (8, 40), (16, 0), (54, 5)] {
            b[off..off + 2].copy_from_slice(&v.to_le_bytes());
        }
        let m = parse_gpu_metrics(&b).unwrap();
        assert_eq!(
            m.sample,
            MetricsSample {
                hotspot_c: Some(37),
                edge_c: Some(35),
                mem_c: Some(40),
                gfx_activity_pct: Some(0),
                current_gfxclk_mhz: Some(5),
            }
        );
        assert_eq!(m.pcie, MetricsPcie::default());
        // v1_5 (MI300): the PCIe counters at 144/152 (u64) and 168/172 (u32); all-ones is N/A.
        let mut b = metrics(1, 5, 360);
        b[144..152].copy_from_slice(&7u64.to_le_bytes());
        b[152..160].copy_from_slice(&420u64.to_le_bytes());
        b[168..172].copy_from_slice(&3u32.to_le_bytes());
        b[4..6].copy_from_slice(&45u16.to_le_bytes());
        let m = parse_gpu_metrics(&b).unwrap();
        assert_eq!(
            m.pcie,
            MetricsPcie {
                recovery: Some(7),
                replay: Some(420),
                nak_sent: Some(3),
                nak_rcvd: None,
                ..Default::default()
            }
        );
        assert_eq!((m.sample.hotspot_c, m.sample.edge_c), (Some(45), None));
        // v2_2 (APU): centi-°C and centi-% become °C and %.
        let mut b = metrics(2, 2, 128);
        b[4..6].copy_from_slice(&4250u16.to_le_bytes());
        b[28..30].copy_from_slice(&1200u16.to_le_bytes());
        let m = parse_gpu_metrics(&b).unwrap();
        assert_eq!(
            (m.sample.hotspot_c, m.sample.gfx_activity_pct),
            (Some(42), Some(12))
        );
        // A truncated sample decodes nothing past the header.
        let mut short = metrics(1, 5, 360);
        short.truncate(100);
        assert_eq!(
            parse_gpu_metrics(&short).unwrap().pcie,
            MetricsPcie::default()
        );
    }

    /// Lays out C fields with x86-64 natural alignment: (name, element size, count); returns
    /// every field's offset and the padded struct size.
    fn layout(fields: &[(&'static str, usize, usize)]) -> (Vec<(&'static str, usize)>, usize) {
        let (mut off, mut align, mut out) = (0usize, 1usize, Vec::new());
        for &(name, size, count) in fields {
            let a = size.min(8);
            off = off.div_ceil(a) * a;
            out.push((name, off));
            off += size * count;
            align = align.max(a);
        }
        (out, off.div_ceil(align) * align)
    }

    /// The PCIe/XGMI offsets of [`pcie_layout`] and the sizes of [`metrics_size`], recomputed
    /// from the field lists of `struct gpu_metrics_v1_6`/`_v1_7`/`_v1_8` and of the per-XCP
    /// structs they embed (`amdgpu_xcp_metrics`, `_v1_1`, `_v1_2`) in kgd_pp_interface.h
    /// (MAX_XCC 8, NUM_XCP 8, NUM_JPEG_ENG 32, NUM_JPEG_ENG_V1 40, NUM_VCN 4, NUM_XGMI_LINKS 8,
    /// MAX_GFX_CLKS 8, MAX_CLKS 4). A field left out or misplaced changes a size the kernel
    /// states in `structure_size`, so this fails.
    #[test]
    fn pcie_layouts_match_the_kernel_structs() {
        let xcp_v1_0 = [
            ("gfx_busy_inst", 4, 8),
            ("jpeg_busy", 2, 32),
            ("vcn_busy", 2, 4),
            ("gfx_busy_acc", 8, 8),
        ];
        let xcp_v1_1 = [
            ("gfx_busy_inst", 4, 8),
            ("jpeg_busy", 2, 32),
            ("vcn_busy", 2, 4),
            ("gfx_busy_acc", 8, 8),
            ("gfx_below_host_limit_acc", 8, 8),
        ];
        let xcp_v1_2 = [
            ("gfx_busy_inst", 4, 8),
            ("jpeg_busy", 2, 40),
            ("vcn_busy", 2, 4),
            ("gfx_busy_acc", 8, 8),
            ("ppt", 8, 8),
            ("thm", 8, 8),
            ("low_util", 8, 8),
            ("total", 8, 8),
        ];
        let xcp_size = |f: &[(&'static str, usize, usize)]| layout(f).1;
        // The per-XCP structs hold u64s: 8-aligned, so they can stand in as `count` u64s.
        let body = |v17: bool, xcp: usize| -> Vec<(&'static str, usize, usize)> {
            let mut f = vec![("header", 4, 1), ("temps+power+activity", 2, 6)];
            if v17 {
                f.push(("mem_max_bandwidth", 8, 1));
            }
            f.extend([
                ("energy_accumulator", 8, 1),
                ("system_clock_counter", 8, 1),
                ("accumulation_counter+residencies+lock", 4, 7),
                ("pcie_link_width/speed, xgmi_link_width/speed", 2, 4),
                ("gfx/mem_activity_acc", 4, 2),
                ("pcie_bandwidth_acc", 8, 1),
                ("pcie_bandwidth_inst", 8, 1),
                ("pcie_l0_to_recov_count_acc", 8, 1),
                ("pcie_replay_count_acc", 8, 1),
                ("pcie_replay_rover_count_acc", 8, 1),
                ("pcie_nak_sent_count_acc", 4, 1),
                ("pcie_nak_rcvd_count_acc", 4, 1),
                ("xgmi_read/write_data_acc", 8, 16),
            ]);
            if v17 {
                f.push(("xgmi_link_status", 2, 8));
                f.push(("padding", 2, 1));
            }
            f.extend([
                ("firmware_timestamp", 8, 1),
                ("clocks+uclk+num_partition", 2, 22),
                ("xcp_stats", 8, xcp),
                ("pcie_lc_perf_other_end_recovery", 4, 1),
            ]);
            f
        };
        for (content, v17, xcp) in [
            (6u8, false, xcp_size(&xcp_v1_0)),
            (7, true, xcp_size(&xcp_v1_1)),
            (8, true, xcp_size(&xcp_v1_2)),
        ] {
            let (offs, size) = layout(&body(v17, xcp));
            let at = |n: &str| offs.iter().find(|(f, _)| *f == n).unwrap().1;
            assert_eq!(
                Some(size as u16),
                metrics_size(1, content),
                "v1_{content} size"
            );
            let l = pcie_layout(1, content).unwrap();
            assert_eq!(l.bandwidth_acc, at("pcie_bandwidth_acc"), "v1_{content}");
            assert_eq!(l.recovery, at("pcie_l0_to_recov_count_acc"));
            assert_eq!(l.replay, at("pcie_replay_count_acc"));
            assert_eq!(l.replay_rollover, at("pcie_replay_rover_count_acc"));
            assert_eq!(
                l.nak,
                Some((at("pcie_nak_sent_count_acc"), at("pcie_nak_rcvd_count_acc")))
            );
            assert_eq!(
                l.other_end_recovery,
                Some(at("pcie_lc_perf_other_end_recovery"))
            );
            assert_eq!(l.xgmi_link_status, v17.then(|| at("xgmi_link_status")));
            // The same computation puts current_gfxclk where §3's table does (264, 296).
            assert_eq!(at("clocks+uclk+num_partition"), if v17 { 296 } else { 264 });
        }
        assert_eq!(xcp_size(&xcp_v1_0) * 8, 1344);
        // v1_5 with the same arithmetic (vcn_activity[4], jpeg_activity[32], throttle_status).
        let (offs, size) = layout(&[
            ("header", 4, 1),
            ("u16s", 2, 6),
            ("vcn", 2, 4),
            ("jpeg", 2, 32),
            ("energy", 8, 1),
            ("clock", 8, 1),
            ("throttle+lock", 4, 2),
            ("links", 2, 4),
            ("acc", 4, 2),
            ("bw_acc", 8, 1),
            ("bw_inst", 8, 1),
            ("recov", 8, 1),
            ("replay", 8, 1),
            ("rover", 8, 1),
            ("nak_sent", 4, 1),
            ("nak_rcvd", 4, 1),
            ("xgmi", 8, 16),
            ("fw", 8, 1),
            ("clocks", 2, 22),
        ]);
        assert_eq!(size, 360);
        let l = pcie_layout(1, 5).unwrap();
        assert_eq!(
            (l.bandwidth_acc, l.replay_rollover),
            (offs[9].1, offs[13].1)
        );
    }

    /// Bytes laid out as `struct gpu_metrics_v1_8` (3872 bytes, all-ones except the fields
    /// set): every PCIe counter and the link states decode from their offsets; a v1_6 sample
    /// has no link states; truncated, oversized and early-v1_6 (380-byte) blobs decode nothing
    /// and say why.
    #[test]
    fn gpu_metrics_v1_6_to_v1_8_pcie_and_xgmi_links() {
        let mut b = metrics(1, 8, 3872);
        let put64 =
            |b: &mut Vec<u8>, o: usize, v: u64| b[o..o + 8].copy_from_slice(&v.to_le_bytes());
        let put32 =
            |b: &mut Vec<u8>, o: usize, v: u32| b[o..o + 4].copy_from_slice(&v.to_le_bytes());
        put64(&mut b, 88, 512);
        put64(&mut b, 96, 12);
        put64(&mut b, 104, 9);
        put64(&mut b, 112, 4100);
        put64(&mut b, 120, 2);
        put32(&mut b, 128, 30);
        put32(&mut b, 132, 31);
        put32(&mut b, 3864, 5);
        for (i, v) in [1u16, 1, 0, 1, 1, 1, 1, 0xffff].iter().enumerate() {
            b[264 + 2 * i..266 + 2 * i].copy_from_slice(&v.to_le_bytes());
        }
        let m = parse_gpu_metrics(&b).unwrap();
        assert_eq!(
            m.pcie,
            MetricsPcie {
                recovery: Some(9),
                replay: Some(4100),
                nak_sent: Some(30),
                nak_rcvd: Some(31),
                bandwidth_acc: Some(512),
                bandwidth_inst: Some(12),
                replay_rollover: Some(2),
                other_end_recovery: Some(5),
            }
        );
        use XgmiLinkState::*;
        assert_eq!(
            m.xgmi_links.as_deref(),
            Some(&[Up, Up, Down, Up, Up, Up, Up, NotPresent][..])
        );
        // v1_7: same offsets up to the XCP stats, the other end's recoveries at 2200.
        let mut b7 = metrics(1, 7, 2208);
        put64(&mut b7, 112, 77);
        put32(&mut b7, 2200, 3);
        b7[264..266].copy_from_slice(&0u16.to_le_bytes());
        let m = parse_gpu_metrics(&b7).unwrap();
        assert_eq!(
            (m.pcie.replay, m.pcie.other_end_recovery),
            (Some(77), Some(3))
        );
        assert_eq!(m.xgmi_links.as_ref().unwrap()[0], Down);
        // v1_6: replay at 104, no link states.
        let mut b6 = metrics(1, 6, 1664);
        put64(&mut b6, 104, 6);
        put32(&mut b6, 1656, 1);
        let m = parse_gpu_metrics(&b6).unwrap();
        assert_eq!(
            (m.pcie.replay, m.pcie.other_end_recovery),
            (Some(6), Some(1))
        );
        assert_eq!(m.xgmi_links, None);
        // Truncated: the header says 3872, 300 bytes came.
        let mut short = b.clone();
        short.truncate(300);
        let m = parse_gpu_metrics(&short).unwrap();
        assert_eq!((m.pcie.replay, m.xgmi_links.clone()), (None, None));
        assert_eq!(m.note.as_deref(), Some("read 300 bytes, header says 3872"));
        // Oversized: more bytes than the header's size is not one sample.
        let mut long = b.clone();
        long.extend_from_slice(&[0; 16]);
        let m = parse_gpu_metrics(&long).unwrap();
        assert_eq!((m.pcie.replay, m.xgmi_links.clone()), (None, None));
        assert!(m
            .note
            .unwrap()
            .contains("more than the header's structure_size 3872"));
        // The early v1_6 body (torvalds/linux@00dedab0: vcn/jpeg arrays, 380 bytes).
        let m = parse_gpu_metrics(&metrics(1, 6, 380)).unwrap();
        assert_eq!(m.pcie, MetricsPcie::default());
        assert!(m.note.unwrap().contains("differs from v1_6's 1664"));
        // An unknown link value is kept as such, not taken as up.
        assert_eq!(XgmiLinkState::from_raw(7), Unknown(7));
    }

    #[test]
    fn xgmi_num_links_as_amdgpu_prints_them() {
        // Eight nodes, this GPU's own entry 0, one link to each peer: "%02x " each, then "\n".
        assert_eq!(
            parse_xgmi_num_links("01 01 01 00 01 01 01 01 \n"),
            Ok(vec![1, 1, 1, 0, 1, 1, 1, 1])
        );
        assert_eq!(parse_xgmi_num_links("0a 00 \n"), Ok(vec![10, 0]));
        assert_eq!(parse_xgmi_num_links("\n"), Ok(vec![]));
        assert!(parse_xgmi_num_links("01 zz \n").is_err());
        assert!(parse_xgmi_num_links("100\n").is_err());
    }

    #[test]
    fn partitions() {
        assert_eq!(
            parse_partition_mode("CPX\n", &COMPUTE_PARTITIONS),
            Ok("CPX".into())
        );
        assert_eq!(
            parse_partition_mode("NPS4\n", &MEMORY_PARTITIONS),
            Ok("NPS4".into())
        );
        assert!(parse_partition_mode("cpx", &COMPUTE_PARTITIONS).is_err());
        assert_eq!(
            parse_partition_list("SPX, DPX, QPX, CPX\n"),
            ["SPX", "DPX", "QPX", "CPX"]
        );
        assert!(parse_partition_list("Not supported\n").is_empty());
    }
}

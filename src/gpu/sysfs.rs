//! Reading KFD topology and DRM cards from sysfs (through `host.fs`, so fixtures work).
//!
//! Layout (Linux `amdkfd/kfd_topology.c`): `topology/{generation_id,system_properties}` and
//! `topology/nodes/<N>/{gpu_id,name,properties,mem_banks/<i>/properties,...}`. libhsakmt reads
//! `/sys/devices/virtual/kfd/kfd/topology`; `/sys/class/kfd/kfd` is the class link to it. A GPU
//! node whose device the caller's device cgroup denies returns EPERM on every read
//! (`kfd_devcgroup_check_permission`); libhsakmt skips such nodes.

use super::fixture::Fixture;
use super::props::{self, Properties};
use crate::host::{errno_name, Host};
use std::io;
use std::path::{Path, PathBuf};

/// errnos by which a sysfs read says "this device does not do that" (a show function returning
/// -EINVAL/-EOPNOTSUPP/-ENODATA/-ENODEV), as opposed to "you may not" or "not now".
pub(crate) fn unsupported_errno(e: &io::Error) -> bool {
    use nix::errno::Errno;
    e.raw_os_error().is_some_and(|c| {
        [
            Errno::EINVAL,
            Errno::EOPNOTSUPP,
            Errno::ENODATA,
            Errno::ENODEV,
        ]
        .iter()
        .any(|x| *x as i32 == c)
    })
}

pub(crate) const TOPOLOGY_DIRS: [&str; 2] = [
    "/sys/devices/virtual/kfd/kfd/topology",
    "/sys/class/kfd/kfd/topology",
];

#[derive(Debug, Clone, Default)]
pub(crate) struct RawNode {
    pub id: u32,
    /// `gpu_id` (0 for CPU nodes); None when the file is missing (partial captures).
    pub gpu_id: Option<u64>,
    pub name: Option<String>,
    pub props: Properties,
    pub mem_banks: Vec<Properties>,
    /// errno name when the node cannot be read (`EPERM`: hidden by the device cgroup).
    pub unreadable: Option<String>,
}

impl RawNode {
    /// libhsakmt: `NumFComputeCores` (simd_count) == 0 means a CPU node.
    pub(crate) fn is_gpu(&self) -> bool {
        self.props.get_or_zero("simd_count") > 0
    }
}

#[derive(Debug, Clone, Default)]
pub(crate) struct RawTopology {
    /// The machine path the topology was read from.
    pub path: Option<PathBuf>,
    pub generation_id: Option<u64>,
    pub nodes: Vec<RawNode>,
    /// Things that did not read as expected (for evidence).
    pub problems: Vec<String>,
}

/// Reads a sysfs file, honouring the fixture's deny rules.
pub(crate) fn read(host: &Host, fx: &Fixture, p: &Path) -> io::Result<String> {
    if let Some(e) = fx.denied(p) {
        return Err(e);
    }
    host.fs.read_text(p)
}

fn list(host: &Host, fx: &Fixture, p: &Path) -> io::Result<Vec<String>> {
    if let Some(e) = fx.denied(p) {
        return Err(e);
    }
    let rd = host.fs.read_dir(p)?;
    Ok(rd
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect())
}

/// Numeric sub-directory names, sorted numerically.
fn numeric_names(names: Vec<String>) -> Vec<u32> {
    let mut v: Vec<u32> = names.iter().filter_map(|n| n.parse().ok()).collect();
    v.sort_unstable();
    v
}

/// One node directory of the topology: `gpu_id`, `properties`, `name` and the memory banks.
/// A file that exists but cannot be read marks the node unreadable; a missing `properties`, a
/// bad `gpu_id` and malformed lines go to `problems`.
fn read_node(host: &Host, fx: &Fixture, nd: &Path, id: u32, problems: &mut Vec<String>) -> RawNode {
    let mut node = RawNode {
        id,
        ..Default::default()
    };
    match read(host, fx, &nd.join("gpu_id")) {
        Ok(s) => match s.trim().parse::<u64>() {
            Ok(v) => node.gpu_id = Some(v),
            Err(_) => problems.push(format!(
                "{}: not a number: {:?}",
                nd.join("gpu_id").display(),
                s.trim()
            )),
        },
        Err(e) if e.kind() == io::ErrorKind::NotFound => {}
        Err(e) => {
            node.unreadable = Some(errno_name(&e));
            return node;
        }
    }
    match read(host, fx, &nd.join("properties")) {
        Ok(s) => node.props = props::parse(&s),
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            problems.push(format!("{}: missing", nd.join("properties").display()));
        }
        Err(e) => {
            node.unreadable = Some(errno_name(&e));
            return node;
        }
    }
    if !node.props.malformed.is_empty() {
        problems.push(format!(
            "{}: {} line(s) not 'key value': {:?}",
            nd.join("properties").display(),
            node.props.malformed.len(),
            node.props.malformed.first()
        ));
    }
    node.name = read(host, fx, &nd.join("name"))
        .ok()
        .map(|s| s.trim_end_matches('\n').to_string());
    if let Ok(banks) = list(host, fx, &nd.join("mem_banks")) {
        for b in numeric_names(banks) {
            if let Ok(s) = read(
                host,
                fx,
                &nd.join("mem_banks").join(b.to_string()).join("properties"),
            ) {
                node.mem_banks.push(props::parse(&s));
            }
        }
    }
    node
}

pub(crate) fn read_topology(host: &Host, fx: &Fixture) -> RawTopology {
    let mut t = RawTopology::default();
    let Some(dir) = TOPOLOGY_DIRS
        .iter()
        .map(PathBuf::from)
        .find(|d| host.fs.is_dir(&d.join("nodes")))
    else {
        return t;
    };
    t.generation_id = read(host, fx, &dir.join("generation_id"))
        .ok()
        .and_then(|s| s.trim().parse().ok());
    let names = match list(host, fx, &dir.join("nodes")) {
        Ok(n) => n,
        Err(e) => {
            t.problems.push(format!(
                "{}: {}",
                dir.join("nodes").display(),
                errno_name(&e)
            ));
            Vec::new()
        }
    };
    for id in numeric_names(names) {
        let nd = dir.join("nodes").join(id.to_string());
        let node = read_node(host, fx, &nd, id, &mut t.problems);
        t.nodes.push(node);
    }
    t.path = Some(dir);
    t
}

/// A DRM card of PCI vendor 0x1002.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct DrmCard {
    pub card: String,
    pub device_id: Option<u32>,
    /// `0000:03:00.0` from the device's `uevent` (`PCI_SLOT_NAME`).
    pub pci_slot: Option<String>,
    /// The PCI revision (`device/revision`, [`parse_revision`]); None when unreadable or odd.
    pub revision: Option<u8>,
}

/// The PCI revision as the kernel prints it: `pci_config_attr(revision, "0x%02x\n")`
/// (torvalds/linux `drivers/pci/pci-sysfs.c`, at 0077a845f7e31a6eabafaefc99540903b65439d4 and
/// unchanged since): `0x`, two hex digits, a newline. Anything else is no revision. Pure.
pub(crate) fn parse_revision(s: &str) -> Option<u8> {
    let hex = s.strip_suffix('\n').unwrap_or(s).strip_prefix("0x")?;
    if hex.len() != 2 || !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    u8::from_str_radix(hex, 16).ok()
}

/// `dddd:bb:dd` of a PCI address `dddd:bb:dd.f` (the whole text when it has no function).
pub(crate) fn pci_slot_of(addr: &str) -> &str {
    addr.rsplit_once('.').map_or(addr, |(slot, _)| slot)
}

/// The DRM card of the GPU at PCI address `addr`: the card at that address, else the card of
/// the same slot (a partition's KFD node carries its index in the function bits, see
/// `layers.rs`), and only when the card's device id, if read, is `device_id`.
pub(crate) fn card_at<'c>(
    cards: &'c [DrmCard],
    addr: &str,
    device_id: Option<u64>,
) -> Option<&'c DrmCard> {
    let same_device = |c: &&DrmCard| match (c.device_id, device_id) {
        (Some(a), Some(b)) => u64::from(a) == b,
        _ => true,
    };
    let slot = |c: &&DrmCard| c.pci_slot.as_deref().map(pci_slot_of) == Some(pci_slot_of(addr));
    cards
        .iter()
        .find(|c| c.pci_slot.as_deref() == Some(addr))
        .or_else(|| cards.iter().find(slot))
        .filter(same_device)
}

fn hex_u32(s: &str) -> Option<u32> {
    let t = s.trim();
    u32::from_str_radix(t.strip_prefix("0x").unwrap_or(t), 16).ok()
}

/// AMD DRM cards (`/sys/class/drm/cardN/device/vendor` = 0x1002).
pub(crate) fn amd_drm_cards(host: &Host, fx: &Fixture) -> Vec<DrmCard> {
    let base = Path::new("/sys/class/drm");
    let mut out = Vec::new();
    let mut names = list(host, fx, base).unwrap_or_default();
    names.sort();
    for n in names {
        let Some(num) = n.strip_prefix("card") else {
            continue;
        };
        if num.is_empty() || !num.bytes().all(|b| b.is_ascii_digit()) {
            continue;
        }
        let dev = base.join(&n).join("device");
        let vendor = read(host, fx, &dev.join("vendor"))
            .ok()
            .and_then(|s| hex_u32(&s));
        if vendor != Some(0x1002) {
            continue;
        }
        let device_id = read(host, fx, &dev.join("device"))
            .ok()
            .and_then(|s| hex_u32(&s));
        let pci_slot = read(host, fx, &dev.join("uevent")).ok().and_then(|u| {
            u.lines().find_map(|l| {
                l.strip_prefix("PCI_SLOT_NAME=")
                    .map(|s| s.trim().to_ascii_lowercase())
            })
        });
        let revision = read(host, fx, &dev.join("revision"))
            .ok()
            .and_then(|s| parse_revision(&s));
        out.push(DrmCard {
            card: n,
            device_id,
            pci_slot,
            revision,
        });
    }
    out
}

/// `domain` + `location_id` (bus << 8 | devfn) as a PCI address `dddd:bb:dd.f`.
pub(crate) fn bdf(domain: u64, location_id: u64) -> String {
    let bus = (location_id >> 8) & 0xff;
    let dev = (location_id >> 3) & 0x1f;
    let func = location_id & 0x7;
    format!("{domain:04x}:{bus:02x}:{dev:02x}.{func:x}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bdf_from_location_id() {
        assert_eq!(bdf(0, 25344), "0000:63:00.0");
        assert_eq!(bdf(0, 2561), "0000:0a:00.1");
        assert_eq!(bdf(1, 0x0318), "0001:03:03.0");
    }

    /// The kernel's format reads; anything else (no `0x`, one or three digits, words, empty,
    /// not UTF-8 after a lossy read) is no revision, never a panic.
    #[test]
    fn revision_in_the_kernel_format_only() {
        assert_eq!(parse_revision("0xc1\n"), Some(0xc1));
        assert_eq!(parse_revision("0x00\n"), Some(0));
        assert_eq!(parse_revision("0xFF"), Some(0xff));
        for bad in [
            "",
            "\n",
            "c1\n",
            "0x\n",
            "0xc\n",
            "0x1c1\n",
            "0xzz\n",
            "0x c1",
            " 0xc1\n",
            "0xc1\n\n",
            "0x\u{e9}1",
            "-0x1\n",
        ] {
            assert_eq!(parse_revision(bad), None, "{bad:?}");
        }
    }

    fn card(n: &str, id: u32, slot: &str, rev: u8) -> DrmCard {
        DrmCard {
            card: n.into(),
            device_id: Some(id),
            pci_slot: Some(slot.into()),
            revision: Some(rev),
        }
    }

    /// A KFD node finds its card at its own address, a partition's node (function bits set)
    /// the card of its slot; another device id at that place is not its card.
    #[test]
    fn a_node_finds_its_card_by_address_then_slot() {
        let cards = [
            card("card0", 0x73bf, "0000:03:00.0", 0xc1),
            card("card1", 0x74a1, "0000:05:00.0", 0x00),
        ];
        let rev = |addr: &str, id: u64| card_at(&cards, addr, Some(id)).and_then(|c| c.revision);
        assert_eq!(rev("0000:03:00.0", 0x73bf), Some(0xc1));
        assert_eq!(rev("0000:05:00.3", 0x74a1), Some(0x00));
        assert_eq!(rev("0000:03:00.0", 0x744c), None);
        assert_eq!(rev("0000:0b:00.0", 0x67df), None);
        assert_eq!(
            card_at(&cards, "0000:03:00.0", None).map(|c| c.card.as_str()),
            Some("card0")
        );
        assert_eq!(pci_slot_of("0000:03:00.1"), "0000:03:00");
        assert_eq!(pci_slot_of("garbage"), "garbage");
    }

    #[test]
    fn numeric_dirs_sort_numerically() {
        assert_eq!(
            numeric_names(vec!["10".into(), "2".into(), "x".into(), "0".into()]),
            vec![0, 2, 10]
        );
    }
}

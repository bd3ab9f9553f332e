//! Where HIP device code sits in a host ELF file.
//!
//! Sources: clang `lib/CodeGen/CGCUDANV.cpp` (`makeModuleCtorFunction`): the fat binaries live
//! in `.hip_fatbin` (4096-aligned, one bundle per translation unit, or one for a `-fgpu-rdc`
//! link), and `.hipFatBinSegment` holds one 24-byte wrapper per translation unit:
//! `u32 magic` (`HIPF` = 0x48495046; `HIPK` for kpack, out-of-band code objects), `u32 version`,
//! `u64` pointer to the bundle, `u64` unused. In position-independent files the pointer is an
//! `R_*_RELATIVE` dynamic relocation whose addend is the bundle's virtual address (lld may leave
//! the slot itself 0). `roc-obj-ls` (CLR `hipamd/bin/roc-obj-ls`) finds bundles by walking the
//! section; we do both and take the union. Relocatable objects from `-fgpu-rdc -c` instead have
//! `__CLANG_OFFLOAD_BUNDLE__<entry id>` sections (`ObjectFileHandler` in `OffloadBundler.cpp`).

use super::elf::{self, Section, SHT_RELA};
use super::{blob, invalid, u32_at, u64_at, Result};
use goblin::elf::reloc::{R_AARCH64_RELATIVE, R_X86_64_RELATIVE};
use goblin::elf64::reloc::{r_type, Rela};
use scroll::LE;
use serde::Serialize;

pub(crate) const FATBIN_SECTION: &str = ".hip_fatbin";
pub(crate) const WRAPPER_SECTION: &str = ".hipFatBinSegment";
pub(crate) const OBJECT_BUNDLE_PREFIX: &str = "__CLANG_OFFLOAD_BUNDLE__";
const WRAPPER_SIZE: u64 = 24;
const HIPF: u32 = 0x4849_5046;
const HIPK: u32 = 0x4849_504b;

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Span {
    pub offset: u64,
    pub size: u64,
    pub addr: u64,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Wrapper {
    /// File offset of the wrapper.
    pub offset: u64,
    /// `HIPF`, `HIPK` (kpack: code objects stored out of band), or the bytes in hex.
    pub magic: String,
    pub version: u32,
    /// The bundle's virtual address.
    pub pointer: u64,
    /// `relocation` (the RELATIVE addend) or `file` (the value stored in the slot).
    pub pointer_from: &'static str,
    /// The bundle's file offset, when the address maps into the file.
    pub target_offset: Option<u64>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Default)]
pub struct Layout {
    pub fatbin: Option<Span>,
    pub wrappers: Vec<Wrapper>,
    /// File offsets of the bundles found (section walk and wrapper targets), ascending.
    pub bundles: Vec<u64>,
    /// `__CLANG_OFFLOAD_BUNDLE__<id>` sections: (entry id, file span).
    pub object_sections: Vec<(String, Span)>,
    /// Inconsistencies found while locating (a wrapper pointing outside `.hip_fatbin`...).
    pub problems: Vec<String>,
}

/// Locates the bundles of a host ELF. Reads only headers, the wrappers, the relocation tables
/// and the first page of each bundle.
pub fn locate(b: &[u8]) -> Result<Layout> {
    locate_with(b, true)
}

/// As [`locate`]; `walk = false` leaves the `.hip_fatbin` walk to the caller (who can then
/// read bundle by bundle in one pass) and lists only the wrappers' targets in `bundles`.
pub fn locate_with(b: &[u8], walk: bool) -> Result<Layout> {
    let h = elf::parse_header(b)?;
    let secs = elf::sections(b, &h)?;
    let segs = elf::segments(b, &h)?;
    let mut out = Layout::default();
    let fat = secs.iter().find(|s| s.name == FATBIN_SECTION);
    if let Some(f) = fat {
        let data = elf::section_data(b, f)?;
        out.fatbin = Some(Span {
            offset: f.offset,
            size: f.size,
            addr: f.addr,
        });
        if walk {
            let (found, problems) = walk_fatbin(data);
            out.bundles.extend(found.into_iter().map(|o| o + f.offset));
            out.problems.extend(problems);
        }
    }
    if let Some(w) = secs.iter().find(|s| s.name == WRAPPER_SECTION) {
        out.wrappers = wrappers(b, w, &secs, &segs, h.e_type)?;
        for wr in &out.wrappers {
            let Some(t) = wr.target_offset else {
                if wr.pointer != 0 || h.e_type != 1 {
                    out.problems.push(format!(
                        "wrapper at 0x{:x} points to 0x{:x}, outside the file",
                        wr.offset, wr.pointer
                    ));
                }
                continue;
            };
            let inside = fat.is_some_and(|f| t >= f.offset && t - f.offset < f.size);
            if !inside {
                out.problems.push(format!(
                    "wrapper at 0x{:x} points to file offset 0x{t:x}, outside {FATBIN_SECTION}",
                    wr.offset
                ));
            }
            if wr.magic == "HIPF" && !out.bundles.contains(&t) {
                let at = b.get(t as usize..).unwrap_or(&[]);
                if blob::delimit(at).is_ok() {
                    out.bundles.push(t);
                } else {
                    out.problems.push(format!(
                        "wrapper at 0x{:x} points to 0x{t:x}, where no bundle starts",
                        wr.offset
                    ));
                }
            }
        }
    }
    out.bundles.sort_unstable();
    out.bundles.dedup();
    for s in &secs {
        if let Some(id) = s.name.strip_prefix(OBJECT_BUNDLE_PREFIX) {
            out.object_sections.push((
                id.to_string(),
                Span {
                    offset: s.offset,
                    size: s.size,
                    addr: s.addr,
                },
            ));
        }
    }
    Ok(out)
}

/// Walks a `.hip_fatbin` section: bundle after bundle, each delimited by its own header
/// (entry table or CCOB total size), skipping zero padding to the next magic. Returns the
/// section-relative offsets and the problems met.
pub fn walk_fatbin(sec: &[u8]) -> (Vec<u64>, Vec<String>) {
    let mut found = Vec::new();
    let mut problems = Vec::new();
    let mut pos = 0u64;
    while let Some(at) = blob::next_magic(sec, pos) {
        let rest = &sec[at as usize..];
        match blob::delimit(rest) {
            Ok(size) => {
                found.push(at);
                pos = at + size.max(1);
            }
            Err(e) => {
                problems.push(format!("{FATBIN_SECTION}+0x{at:x}: {e}"));
                pos = at + 1;
            }
        }
    }
    (found, problems)
}

fn wrappers(
    b: &[u8],
    w: &Section,
    secs: &[Section],
    segs: &[elf::Segment],
    e_type: u16,
) -> Result<Vec<Wrapper>> {
    let data = elf::section_data(b, w)?;
    if data.len() as u64 % WRAPPER_SIZE != 0 {
        return Err(invalid(
            "HIP fat binary wrappers",
            format!(
                "{WRAPPER_SECTION} is {} bytes, not a multiple of {WRAPPER_SIZE}",
                data.len()
            ),
        ));
    }
    let count = data.len() as u64 / WRAPPER_SIZE;
    // Pointer slots that have a RELATIVE relocation: read the addends in one pass.
    let lo = w.addr;
    let hi = w.addr.saturating_add(w.size);
    let mut addends: Vec<(u64, u64)> = Vec::new();
    for r in secs.iter().filter(|s| s.sh_type == SHT_RELA && e_type != 1) {
        let Ok(rd) = elf::section_data(b, r) else {
            continue;
        };
        for i in 0..(rd.len() as u64 / elf::RELA_SIZE) {
            let r: Rela = elf::record(rd, i * elf::RELA_SIZE, LE, "relocation")?;
            if r.r_offset < lo || r.r_offset >= hi {
                continue;
            }
            let ty = r_type(r.r_info);
            if ty == R_X86_64_RELATIVE || ty == R_AARCH64_RELATIVE {
                // The addend's bits, as the slot would hold them once relocated at base 0.
                addends.push((r.r_offset, r.r_addend as u64));
            }
        }
    }
    let mut out = Vec::with_capacity(count as usize);
    for i in 0..count {
        let o = i * WRAPPER_SIZE;
        let magic_v = u32_at(data, o, "wrapper")?;
        let version = u32_at(data, o + 4, "wrapper")?;
        let slot = u64_at(data, o + 8, "wrapper")?;
        // A section address near u64::MAX (only a corrupt file has one) puts the slot at no
        // address: no relocation can name it, and the pointer is read from the file.
        let slot_addr = w.addr.checked_add(o + 8);
        let (pointer, from) = match addends.iter().find(|(a, _)| Some(*a) == slot_addr) {
            Some((_, add)) => (*add, "relocation"),
            None => (slot, "file"),
        };
        let magic = match magic_v {
            HIPF => "HIPF".to_string(),
            HIPK => "HIPK".to_string(),
            m => format!("0x{m:08x}"),
        };
        let target_offset = if e_type == 1 {
            None
        } else {
            elf::vaddr_to_offset(segs, pointer)
        };
        out.push(Wrapper {
            offset: w.offset + o,
            magic,
            version,
            pointer,
            pointer_from: from,
            target_offset,
        });
    }
    Ok(out)
}

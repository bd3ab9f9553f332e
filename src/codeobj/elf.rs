//! A minimal, bounds-checked ELF64 little-endian reader: the header, section and program
//! headers, section names and notes. Enough for host libraries and AMDGPU code objects;
//! every offset and count is checked against the input (System V gABI layout).

use super::{invalid, slice, u16_at, u32_at, u64_at, Error, Result};

pub const EM_AMDGPU: u16 = 224;
pub const SHT_RELA: u32 = 4;
pub const SHT_NOTE: u32 = 7;
pub const SHT_NOBITS: u32 = 8;
pub const PT_LOAD: u32 = 1;
pub const PT_NOTE: u32 = 4;
/// More section headers than this is not a real file.
const MAX_HEADERS: u64 = 1 << 20;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Header {
    pub osabi: u8,
    pub abi_version: u8,
    pub e_type: u16,
    pub e_machine: u16,
    pub e_flags: u32,
    pub phoff: u64,
    pub shoff: u64,
    pub phentsize: u16,
    pub phnum: u64,
    pub shentsize: u16,
    pub shnum: u64,
    pub shstrndx: u64,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Section {
    pub name: String,
    pub sh_type: u32,
    pub flags: u64,
    pub addr: u64,
    pub offset: u64,
    pub size: u64,
    pub link: u32,
    pub info: u32,
    pub entsize: u64,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Segment {
    pub p_type: u32,
    pub offset: u64,
    pub vaddr: u64,
    pub filesz: u64,
    pub memsz: u64,
}

pub fn parse_header(b: &[u8]) -> Result<Header> {
    if !b.starts_with(b"\x7fELF") {
        return Err(Error::BadMagic {
            what: "an ELF file",
            found: super::hex_prefix(b),
        });
    }
    let ident = slice(b, 0, 16, "ELF identification")?;
    if ident[4] != 2 {
        return Err(Error::Unsupported {
            what: "ELF class",
            detail: format!("{} (only ELF64 is read)", ident[4]),
        });
    }
    if ident[5] != 1 {
        return Err(Error::Unsupported {
            what: "ELF data encoding",
            detail: format!("{} (only little-endian is read)", ident[5]),
        });
    }
    let mut h = Header {
        osabi: ident[7],
        abi_version: ident[8],
        e_type: u16_at(b, 16, "ELF header")?,
        e_machine: u16_at(b, 18, "ELF header")?,
        e_flags: u32_at(b, 48, "ELF header")?,
        phoff: u64_at(b, 32, "ELF header")?,
        shoff: u64_at(b, 40, "ELF header")?,
        phentsize: u16_at(b, 54, "ELF header")?,
        phnum: u16_at(b, 56, "ELF header")? as u64,
        shentsize: u16_at(b, 58, "ELF header")?,
        shnum: u16_at(b, 60, "ELF header")? as u64,
        shstrndx: u16_at(b, 62, "ELF header")? as u64,
    };
    // Extended numbering (gABI): counts that do not fit live in section header 0.
    if h.shoff != 0 && (h.shnum == 0 || h.shstrndx == 0xffff) {
        if h.shnum == 0 {
            h.shnum = u64_at(b, h.shoff.saturating_add(32), "section header 0")?;
        }
        if h.shstrndx == 0xffff {
            h.shstrndx = u32_at(b, h.shoff.saturating_add(24), "section header 0")? as u64;
        }
    }
    if h.phnum == 0xffff && h.shoff != 0 {
        h.phnum = u32_at(b, h.shoff.saturating_add(44), "section header 0")? as u64;
    }
    Ok(h)
}

pub fn sections(b: &[u8], h: &Header) -> Result<Vec<Section>> {
    if h.shoff == 0 || h.shnum == 0 {
        return Ok(Vec::new());
    }
    if h.shentsize < 64 {
        return Err(invalid(
            "ELF section headers",
            format!("entry size {} < 64", h.shentsize),
        ));
    }
    if h.shnum > MAX_HEADERS {
        return Err(invalid(
            "ELF section headers",
            format!("{} sections", h.shnum),
        ));
    }
    let es = h.shentsize as u64;
    let table = slice(b, h.shoff, h.shnum * es, "ELF section header table")?;
    let mut raw = Vec::with_capacity(h.shnum as usize);
    for i in 0..h.shnum {
        let o = i * es;
        raw.push((
            u32_at(table, o, "section header")?,
            Section {
                name: String::new(),
                sh_type: u32_at(table, o + 4, "section header")?,
                flags: u64_at(table, o + 8, "section header")?,
                addr: u64_at(table, o + 16, "section header")?,
                offset: u64_at(table, o + 24, "section header")?,
                size: u64_at(table, o + 32, "section header")?,
                link: u32_at(table, o + 40, "section header")?,
                info: u32_at(table, o + 44, "section header")?,
                entsize: u64_at(table, o + 56, "section header")?,
            },
        ));
    }
    let strtab = raw
        .get(h.shstrndx as usize)
        .and_then(|(_, s)| section_data(b, s).ok())
        .unwrap_or(&[]);
    Ok(raw
        .into_iter()
        .map(|(name_off, mut s)| {
            s.name = cstr_at(strtab, name_off as usize);
            s
        })
        .collect())
}

pub fn segments(b: &[u8], h: &Header) -> Result<Vec<Segment>> {
    if h.phoff == 0 || h.phnum == 0 {
        return Ok(Vec::new());
    }
    if h.phentsize < 56 || h.phnum > MAX_HEADERS {
        return Err(invalid(
            "ELF program headers",
            format!("{} entries of {} bytes", h.phnum, h.phentsize),
        ));
    }
    let es = h.phentsize as u64;
    let table = slice(b, h.phoff, h.phnum * es, "ELF program header table")?;
    (0..h.phnum)
        .map(|i| {
            let o = i * es;
            Ok(Segment {
                p_type: u32_at(table, o, "program header")?,
                offset: u64_at(table, o + 8, "program header")?,
                vaddr: u64_at(table, o + 16, "program header")?,
                filesz: u64_at(table, o + 32, "program header")?,
                memsz: u64_at(table, o + 40, "program header")?,
            })
        })
        .collect()
}

/// A section's bytes (`SHT_NOBITS` has none).
pub fn section_data<'a>(b: &'a [u8], s: &Section) -> Result<&'a [u8]> {
    if s.sh_type == SHT_NOBITS {
        return Ok(&[]);
    }
    slice(b, s.offset, s.size, "ELF section contents")
}

/// A NUL-terminated string at `off` (lossy, at most 4096 bytes; empty when out of range).
pub fn cstr_at(b: &[u8], off: usize) -> String {
    let Some(rest) = b.get(off..) else {
        return String::new();
    };
    let rest = &rest[..rest.len().min(4096)];
    let end = memchr::memchr(0, rest).unwrap_or(rest.len());
    String::from_utf8_lossy(&rest[..end]).into_owned()
}

/// Maps a virtual address to a file offset through the `PT_LOAD` segments. `None` also when
/// a corrupt `p_offset` would put it past `u64::MAX` (found by the `hostelf` fuzz target: the
/// sum overflowed, a panic with overflow checks and a wrapped offset without).
pub fn vaddr_to_offset(segs: &[Segment], vaddr: u64) -> Option<u64> {
    segs.iter()
        .filter(|s| s.p_type == PT_LOAD)
        .find(|s| vaddr >= s.vaddr && vaddr - s.vaddr < s.filesz)
        .and_then(|s| s.offset.checked_add(vaddr - s.vaddr))
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Note<'a> {
    pub name: &'a [u8],
    pub n_type: u32,
    pub desc: &'a [u8],
}

/// The notes in a note section or segment (4-byte aligned name and descriptor).
pub fn notes(data: &[u8]) -> Result<Vec<Note<'_>>> {
    let mut out = Vec::new();
    let mut pos = 0u64;
    let len = data.len() as u64;
    while pos + 12 <= len {
        let namesz = u32_at(data, pos, "note header")? as u64;
        let descsz = u32_at(data, pos + 4, "note header")? as u64;
        let n_type = u32_at(data, pos + 8, "note header")?;
        let name_off = pos + 12;
        let name = slice(data, name_off, namesz, "note name")?;
        let desc_off = super::align_up(name_off + namesz, 4);
        let desc = slice(data, desc_off, descsz, "note descriptor")?;
        let name = name.strip_suffix(&[0]).unwrap_or(name);
        out.push(Note { name, n_type, desc });
        pos = super::align_up(desc_off + descsz, 4);
    }
    Ok(out)
}

//! The doctor's one ELF reader: ELF64 little-endian header, section and program headers,
//! section names, notes, the dynamic section (`DT_NEEDED`, `DT_RPATH`, `DT_RUNPATH`) and the
//! dynamic symbols; and the machine of any ELF (32/64-bit, either byte order). Enough for host
//! libraries and AMDGPU code objects. The records are decoded by `goblin`'s piecewise API: its
//! ELF64 structs (`elf64::header::Header`, `SectionHeader`, `ProgramHeader`, `Dyn`, `Sym`,
//! `Rela`, and `elf::note::Nhdr32`) read one at a time through their `scroll` contexts, never
//! `goblin::elf::Elf::parse`, which reads every table up front. The bounds, caps and error
//! messages around them are ours: every offset and count is checked against the input (System V
//! gABI layout, "Object Files" and "Dynamic Linking" chapters) before goblin reads a record, so
//! the reader works on a memory map of a file of any size and reads only the bytes it is asked
//! for. Why: docs/architecture.md, "One ELF reader" and "ELF reading (goblin)".

use super::{invalid, slice, Error, Result};
use goblin::elf::dynamic::{DT_NEEDED, DT_NULL, DT_RPATH, DT_RUNPATH, DT_STRSZ, DT_STRTAB};
use goblin::elf::note::Nhdr32;
use goblin::elf64::{dynamic::Dyn, program_header::ProgramHeader, section_header::SectionHeader};
use scroll::{ctx::TryFromCtx, Pread, LE};

// The constants callers use, as goblin names them (its `elf::header`, `section_header`,
// `program_header` and `sym` modules; values from the gABI and LLVM's `BinaryFormat/ELF.h`).
pub(crate) const EM_AMDGPU: u16 = goblin::elf::header::EM_AMDGPU;
pub(crate) const SHT_RELA: u32 = goblin::elf::section_header::SHT_RELA;
pub(crate) const SHT_NOTE: u32 = goblin::elf::section_header::SHT_NOTE;
pub(crate) const SHT_NOBITS: u32 = goblin::elf::section_header::SHT_NOBITS;
pub(crate) const SHT_DYNSYM: u32 = goblin::elf::section_header::SHT_DYNSYM;
pub(crate) const PT_LOAD: u32 = goblin::elf::program_header::PT_LOAD;
pub(crate) const PT_DYNAMIC: u32 = goblin::elf::program_header::PT_DYNAMIC;
pub(crate) const PT_NOTE: u32 = goblin::elf::program_header::PT_NOTE;
pub(crate) const EM_386: u16 = goblin::elf::header::EM_386;
pub(crate) const EM_X86_64: u16 = goblin::elf::header::EM_X86_64;
pub(crate) const EM_AARCH64: u16 = goblin::elf::header::EM_AARCH64;
/// Symbol bindings (gABI, "Symbol Table": the high 4 bits of `st_info`).
pub(crate) const STB_LOCAL: u8 = goblin::elf::sym::STB_LOCAL;
pub(crate) const STB_WEAK: u8 = goblin::elf::sym::STB_WEAK;
/// More section headers than this is not a real file.
const MAX_HEADERS: u64 = 1 << 20;
/// Record sizes in ELF64 (gABI): section header, program header, dynamic entry, symbol,
/// relocation with addend, note header.
const SHDR_SIZE: u16 = 64;
const PHDR_SIZE: u16 = 56;
const DYN_SIZE: u64 = 16;
pub(crate) const SYM_SIZE: u64 = 24;
pub(crate) const RELA_SIZE: u64 = 24;
const NHDR_SIZE: u64 = 12;
/// The header fields, as (offset, size) in the order they used to be read one by one: a file
/// shorter than the 64-byte header is reported as missing the first of them it lacks.
const HEADER_FIELDS: [(u64, u64); 10] = [
    (16, 2),
    (18, 2),
    (48, 4),
    (32, 8),
    (40, 8),
    (54, 2),
    (56, 2),
    (58, 2),
    (60, 2),
    (62, 2),
];

/// Decodes one goblin record of type `T` at `off` in `b`, whose bounds the caller checked (a
/// short read is still an error naming `what`, never a panic).
pub(crate) fn record<'a, T, C, E>(b: &'a [u8], off: u64, ctx: C, what: &'static str) -> Result<T>
where
    C: Copy,
    T: TryFromCtx<'a, C, [u8], Error = E>,
    E: From<scroll::Error> + std::fmt::Display,
{
    let at = usize::try_from(off).map_err(|_| invalid(what, format!("offset {off:#x}")))?;
    b.pread_with::<T>(at, ctx)
        .map_err(|e| invalid(what, e.to_string()))
}

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
    let len = b.len() as u64;
    if let Some(&(start, size)) = HEADER_FIELDS.iter().find(|(o, n)| o + n > len) {
        return Err(Error::Truncated {
            what: "ELF header",
            start,
            end: start + size,
            len,
        });
    }
    let g: goblin::elf64::header::Header = record(b, 0, LE, "ELF header")?;
    let mut h = Header {
        osabi: ident[7],
        abi_version: ident[8],
        e_type: g.e_type,
        e_machine: g.e_machine,
        e_flags: g.e_flags,
        phoff: g.e_phoff,
        shoff: g.e_shoff,
        phentsize: g.e_phentsize,
        phnum: g.e_phnum as u64,
        shentsize: g.e_shentsize,
        shnum: g.e_shnum as u64,
        shstrndx: g.e_shstrndx as u64,
    };
    // Extended numbering (gABI): counts that do not fit live in section header 0 (`sh_size`,
    // `sh_link`, `sh_info`).
    let extended = h.shnum == 0 || h.shstrndx == 0xffff || h.phnum == 0xffff;
    if h.shoff != 0 && extended {
        let at = slice(b, h.shoff, SHDR_SIZE as u64, "section header 0")?;
        let sh0: SectionHeader = record(at, 0, LE, "section header 0")?;
        if h.shnum == 0 {
            h.shnum = sh0.sh_size;
        }
        if h.shstrndx == 0xffff {
            h.shstrndx = sh0.sh_link as u64;
        }
        if h.phnum == 0xffff {
            h.phnum = sh0.sh_info as u64;
        }
    }
    Ok(h)
}

pub fn sections(b: &[u8], h: &Header) -> Result<Vec<Section>> {
    if h.shoff == 0 || h.shnum == 0 {
        return Ok(Vec::new());
    }
    if h.shentsize < SHDR_SIZE {
        return Err(invalid(
            "ELF section headers",
            format!("entry size {} < {SHDR_SIZE}", h.shentsize),
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
        let g: SectionHeader = record(table, i * es, LE, "section header")?;
        raw.push((
            g.sh_name,
            Section {
                name: String::new(),
                sh_type: g.sh_type,
                flags: g.sh_flags,
                addr: g.sh_addr,
                offset: g.sh_offset,
                size: g.sh_size,
                link: g.sh_link,
                info: g.sh_info,
                entsize: g.sh_entsize,
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
    if h.phentsize < PHDR_SIZE || h.phnum > MAX_HEADERS {
        return Err(invalid(
            "ELF program headers",
            format!("{} entries of {} bytes", h.phnum, h.phentsize),
        ));
    }
    let es = h.phentsize as u64;
    let table = slice(b, h.phoff, h.phnum * es, "ELF program header table")?;
    (0..h.phnum)
        .map(|i| {
            let g: ProgramHeader = record(table, i * es, LE, "program header")?;
            Ok(Segment {
                p_type: g.p_type,
                offset: g.p_offset,
                vaddr: g.p_vaddr,
                filesz: g.p_filesz,
                memsz: g.p_memsz,
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
pub(crate) fn cstr_at(b: &[u8], off: usize) -> String {
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
    while pos + NHDR_SIZE <= len {
        // goblin's `Note` would also decode the name, but as UTF-8 text, and its iterator
        // fails on trailing padding: the header is goblin's, the name and descriptor ours.
        let nh: Nhdr32 = record(data, pos, LE, "note header")?;
        let (namesz, descsz, n_type) = (nh.n_namesz as u64, nh.n_descsz as u64, nh.n_type);
        let name_off = pos + NHDR_SIZE;
        let name = slice(data, name_off, namesz, "note name")?;
        let desc_off = super::align_up(name_off + namesz, 4);
        let desc = slice(data, desc_off, descsz, "note descriptor")?;
        let name = name.strip_suffix(&[0]).unwrap_or(name);
        out.push(Note { name, n_type, desc });
        pos = super::align_up(desc_off + descsz, 4);
    }
    Ok(out)
}

/// The parsed headers of one ELF file, over its bytes (a memory map or a slice).
#[derive(Debug, Clone)]
pub(crate) struct Elf<'a> {
    pub bytes: &'a [u8],
    #[cfg_attr(not(test), allow(dead_code))] // read by the unit tests
    pub header: Header,
    pub sections: Vec<Section>,
    pub segments: Vec<Segment>,
}

impl<'a> Elf<'a> {
    /// The header, section headers and program headers; nothing else is read.
    pub(crate) fn parse(bytes: &'a [u8]) -> Result<Self> {
        let header = parse_header(bytes)?;
        let sections = sections(bytes, &header)?;
        let segments = segments(bytes, &header)?;
        Ok(Elf {
            bytes,
            header,
            sections,
            segments,
        })
    }

    /// The dynamic section's library names and search paths (see [`dynamic`]).
    pub(crate) fn dynamic(&self) -> Result<Dynamic> {
        dynamic(self.bytes, &self.segments)
    }

    /// The dynamic symbols (see [`dynamic_symbols`]).
    pub(crate) fn dynamic_symbols(&self) -> Result<Vec<DynSym>> {
        dynamic_symbols(self.bytes, &self.sections)
    }
}

/// What the dynamic section says the loader needs: `DT_NEEDED` names and the `DT_RPATH` /
/// `DT_RUNPATH` strings (each as written, `:`-separated lists not split), in file order.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Dynamic {
    pub needed: Vec<String>,
    pub rpath: Vec<String>,
    pub runpath: Vec<String>,
}

/// Reads the dynamic section the way the loader finds it: the `PT_DYNAMIC` segment, its
/// strings at `DT_STRTAB` (a virtual address, mapped through `PT_LOAD`) bounded by `DT_STRSZ`.
/// A file without `PT_DYNAMIC` (static, relocatable) has an empty one.
pub(crate) fn dynamic(b: &[u8], segs: &[Segment]) -> Result<Dynamic> {
    let Some(seg) = segs.iter().find(|s| s.p_type == PT_DYNAMIC) else {
        return Ok(Dynamic::default());
    };
    let table = slice(b, seg.offset, seg.filesz, "ELF dynamic segment")?;
    let mut entries = Vec::new();
    let (mut strtab, mut strsz) = (None, None);
    let mut o = 0u64;
    while o + DYN_SIZE <= table.len() as u64 {
        let Dyn {
            d_tag: tag,
            d_val: val,
        } = record(table, o, LE, "dynamic entry")?;
        o += DYN_SIZE;
        match tag {
            DT_NULL => break,
            DT_STRTAB => strtab = Some(val),
            DT_STRSZ => strsz = Some(val),
            DT_NEEDED | DT_RPATH | DT_RUNPATH => entries.push((tag, val)),
            _ => {}
        }
    }
    let mut d = Dynamic::default();
    if entries.is_empty() {
        return Ok(d);
    }
    let addr = strtab.ok_or_else(|| invalid("ELF dynamic section", "no DT_STRTAB"))?;
    let off = vaddr_to_offset(segs, addr).ok_or_else(|| {
        invalid(
            "ELF dynamic section",
            format!("DT_STRTAB {addr:#x} is in no PT_LOAD segment"),
        )
    })?;
    let len = strsz.unwrap_or(0).min((b.len() as u64).saturating_sub(off));
    let strings = slice(b, off, len, "ELF dynamic string table")?;
    for (tag, val) in entries {
        let Ok(at) = usize::try_from(val) else {
            continue;
        };
        let text = cstr_at(strings, at);
        if at >= strings.len() || text.is_empty() {
            continue;
        }
        match tag {
            DT_NEEDED => d.needed.push(text),
            DT_RPATH => d.rpath.push(text),
            _ => d.runpath.push(text),
        }
    }
    Ok(d)
}

/// One dynamic symbol: its name, binding (`STB_*`) and section index (0: undefined).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct DynSym {
    pub name: String,
    pub bind: u8,
    pub shndx: u16,
}

/// The symbols of the `SHT_DYNSYM` section (names from its `sh_link` string table), the null
/// symbol and nameless ones left out. A file whose section headers were removed has none.
pub(crate) fn dynamic_symbols(b: &[u8], secs: &[Section]) -> Result<Vec<DynSym>> {
    let Some(sec) = secs.iter().find(|s| s.sh_type == SHT_DYNSYM) else {
        return Ok(Vec::new());
    };
    let table = section_data(b, sec)?;
    let strings = secs
        .get(sec.link as usize)
        .map(|s| section_data(b, s))
        .transpose()?
        .unwrap_or(&[]);
    let es = sec.entsize.max(SYM_SIZE);
    let mut out = Vec::new();
    let mut o = 0u64;
    while o + SYM_SIZE <= table.len() as u64 {
        let sym: goblin::elf64::sym::Sym = record(table, o, LE, "dynamic symbol")?;
        o += es;
        let name = cstr_at(strings, sym.st_name as usize);
        if !name.is_empty() {
            out.push(DynSym {
                name,
                bind: goblin::elf::sym::st_bind(sym.st_info),
                shndx: sym.st_shndx,
            });
        }
    }
    Ok(out)
}

/// The `e_machine` of any ELF file, 32- or 64-bit, either byte order (the field sits at the
/// same offset in both classes); `None` when `b` is not ELF or too short.
pub(crate) fn machine(b: &[u8]) -> Option<u16> {
    if !b.starts_with(b"\x7fELF") {
        return None;
    }
    let raw = [*b.get(18)?, *b.get(19)?];
    match b.get(5)? {
        1 => Some(u16::from_le_bytes(raw)),
        2 => Some(u16::from_be_bytes(raw)),
        _ => None,
    }
}

/// A machine's name as tools print it (`x86-64`, `AMDGPU`, ...), else `EM_<n>`.
pub(crate) fn machine_name(m: u16) -> String {
    match m {
        EM_X86_64 => "x86-64".to_string(),
        EM_AMDGPU => "AMDGPU".to_string(),
        EM_AARCH64 => "AArch64".to_string(),
        EM_386 => "i386".to_string(),
        n => format!("EM_{n}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A small shared library image: header, PT_LOAD (vaddr = offset + 0x10000) and PT_DYNAMIC,
    /// `.dynstr`, `.dynamic`, `.dynsym` and three section headers (null, `.dynsym`, `.dynstr`).
    fn library(dyns: &[(u64, &str)], syms: &[(&str, u8, u16)]) -> Vec<u8> {
        const BASE: u64 = 0x10000;
        let mut strtab = vec![0u8];
        let mut add = |s: &str| {
            let at = strtab.len() as u64;
            strtab.extend_from_slice(s.as_bytes());
            strtab.push(0);
            at
        };
        let dyn_vals: Vec<(u64, u64)> = dyns.iter().map(|(t, s)| (*t, add(s))).collect();
        let sym_names: Vec<u64> = syms.iter().map(|(n, _, _)| add(n)).collect();
        let str_off = 64 + 2 * 56;
        let dyn_off = (str_off + strtab.len() as u64).next_multiple_of(8);
        let n_dyn = dyn_vals.len() as u64 + 3;
        let sym_off = dyn_off + n_dyn * 16;
        let sh_off = sym_off + (syms.len() as u64 + 1) * 24;
        let mut b = vec![0u8; (sh_off + 3 * 64) as usize];
        let put16 = |b: &mut Vec<u8>, o: u64, v: u16| {
            b[o as usize..o as usize + 2].copy_from_slice(&v.to_le_bytes())
        };
        let put32 = |b: &mut Vec<u8>, o: u64, v: u32| {
            b[o as usize..o as usize + 4].copy_from_slice(&v.to_le_bytes())
        };
        let put64 = |b: &mut Vec<u8>, o: u64, v: u64| {
            b[o as usize..o as usize + 8].copy_from_slice(&v.to_le_bytes())
        };
        b[..4].copy_from_slice(b"\x7fELF");
        b[4] = 2;
        b[5] = 1;
        put16(&mut b, 16, 3);
        put16(&mut b, 18, EM_X86_64);
        put64(&mut b, 32, 64);
        put64(&mut b, 40, sh_off);
        put16(&mut b, 54, 56);
        put16(&mut b, 56, 2);
        put16(&mut b, 58, 64);
        put16(&mut b, 60, 3);
        put16(&mut b, 62, 2);
        let len = b.len() as u64;
        for (i, (ty, off, size)) in [(PT_LOAD, 0, len), (PT_DYNAMIC, dyn_off, n_dyn * 16)]
            .into_iter()
            .enumerate()
        {
            let ph = 64 + i as u64 * 56;
            put32(&mut b, ph, ty);
            put64(&mut b, ph + 8, off);
            put64(&mut b, ph + 16, BASE + off);
            put64(&mut b, ph + 32, size);
            put64(&mut b, ph + 40, size);
        }
        b[str_off as usize..str_off as usize + strtab.len()].copy_from_slice(&strtab);
        let mut o = dyn_off;
        for (t, v) in dyn_vals
            .into_iter()
            .chain([(DT_STRTAB, BASE + str_off), (DT_STRSZ, strtab.len() as u64)])
        {
            put64(&mut b, o, t);
            put64(&mut b, o + 8, v);
            o += 16;
        }
        for (i, ((_, bind, shndx), name)) in syms.iter().zip(sym_names).enumerate() {
            let s = sym_off + (i as u64 + 1) * 24;
            put32(&mut b, s, name as u32);
            b[s as usize + 4] = bind << 4;
            put16(&mut b, s + 6, *shndx);
        }
        // Section 1: .dynsym (link 2), section 2: .dynstr.
        let sh1 = sh_off + 64;
        put32(&mut b, sh1 + 4, SHT_DYNSYM);
        put64(&mut b, sh1 + 24, sym_off);
        put64(&mut b, sh1 + 32, (syms.len() as u64 + 1) * 24);
        put32(&mut b, sh1 + 40, 2);
        put64(&mut b, sh1 + 56, 24);
        let sh2 = sh_off + 128;
        put32(&mut b, sh2 + 4, 3);
        put64(&mut b, sh2 + 24, str_off);
        put64(&mut b, sh2 + 32, strtab.len() as u64);
        b
    }

    #[test]
    fn reads_needed_paths_and_dynamic_symbols() {
        let b = library(
            &[
                (DT_NEEDED, "libhsa-runtime64.so.1"),
                (DT_RUNPATH, "$ORIGIN:/opt/rocm/lib"),
                (DT_NEEDED, "libc.so.6"),
                (DT_RPATH, "/old"),
            ],
            &[
                ("hipMalloc", 1, 12),
                ("hsa_init", 1, 0),
                ("__gmon_start__", STB_WEAK, 0),
                ("local_helper", STB_LOCAL, 12),
            ],
        );
        let elf = Elf::parse(&b).unwrap();
        let d = elf.dynamic().unwrap();
        assert_eq!(d.needed, ["libhsa-runtime64.so.1", "libc.so.6"]);
        assert_eq!(d.runpath, ["$ORIGIN:/opt/rocm/lib"]);
        assert_eq!(d.rpath, ["/old"]);
        let syms = elf.dynamic_symbols().unwrap();
        let got: Vec<(&str, u8, u16)> = syms
            .iter()
            .map(|s| (s.name.as_str(), s.bind, s.shndx))
            .collect();
        assert_eq!(
            got,
            [
                ("hipMalloc", 1, 12),
                ("hsa_init", 1, 0),
                ("__gmon_start__", STB_WEAK, 0),
                ("local_helper", STB_LOCAL, 12)
            ]
        );
        assert_eq!(machine(&b).map(machine_name).as_deref(), Some("x86-64"));
    }

    #[test]
    fn hostile_dynamic_sections_are_errors_not_panics() {
        let good = library(&[(DT_NEEDED, "liba.so")], &[("f", 1, 1)]);
        let elf = Elf::parse(&good).unwrap();
        let dyn_seg = elf.segments[1];
        // Every truncation either parses or fails cleanly.
        for cut in 0..good.len() {
            if let Ok(e) = Elf::parse(&good[..cut]) {
                let _ = e.dynamic();
                let _ = e.dynamic_symbols();
            }
        }
        // A DT_STRTAB outside every PT_LOAD segment is named.
        let mut b = good.clone();
        let strtab_entry = dyn_seg.offset + 16;
        b[strtab_entry as usize + 8..strtab_entry as usize + 16]
            .copy_from_slice(&u64::MAX.to_le_bytes());
        let err = Elf::parse(&b).unwrap().dynamic().unwrap_err().to_string();
        assert!(err.contains("in no PT_LOAD segment"), "{err}");
        // A string offset past DT_STRSZ yields no name rather than a read past the table.
        let mut b = good.clone();
        b[dyn_seg.offset as usize + 8..dyn_seg.offset as usize + 16]
            .copy_from_slice(&1_000_000u64.to_le_bytes());
        assert!(Elf::parse(&b).unwrap().dynamic().unwrap().needed.is_empty());
    }

    #[test]
    fn machine_of_any_class_and_byte_order() {
        let mut h = vec![0u8; 20];
        h[..4].copy_from_slice(b"\x7fELF");
        h[4] = 1; // ELF32
        h[5] = 1;
        h[18] = EM_386 as u8;
        assert_eq!(machine(&h).map(machine_name).as_deref(), Some("i386"));
        h[5] = 2; // big-endian: bytes 18..20 = 0x00 0xb7
        h[18] = 0;
        h[19] = EM_AARCH64 as u8;
        assert_eq!(machine(&h), Some(EM_AARCH64));
        assert_eq!(machine_name(0x1234), "EM_4660");
        assert_eq!(machine(b"\x7fELF"), None);
        assert_eq!(machine(b"!<arch>\n"), None);
    }

    #[test]
    fn a_short_header_names_the_first_field_it_lacks() {
        let good = library(&[(DT_NEEDED, "liba.so")], &[]);
        for (cut, range) in [
            (16, "16..18"),
            (19, "18..20"),
            (20, "48..52"),
            (52, "54..56"),
            (63, "62..64"),
        ] {
            let err = parse_header(&good[..cut]).unwrap_err().to_string();
            let want = format!("truncated ELF header: needs bytes {range}, only {cut} available");
            assert_eq!(err, want);
        }
        let err = parse_header(&good[..10]).unwrap_err().to_string();
        assert!(err.starts_with("truncated ELF identification"), "{err}");
        assert!(parse_header(&good[..64]).is_ok());
    }

    #[test]
    fn extended_numbering_reads_counts_from_section_header_0() {
        let good = library(&[(DT_NEEDED, "liba.so")], &[("f", 1, 1)]);
        let plain = Elf::parse(&good).unwrap();
        let mut b = good.clone();
        let sh0 = plain.header.shoff as usize;
        b[56..58].copy_from_slice(&0xffffu16.to_le_bytes()); // e_phnum = PN_XNUM
        b[60..62].copy_from_slice(&0u16.to_le_bytes()); // e_shnum = 0
        b[62..64].copy_from_slice(&0xffffu16.to_le_bytes()); // e_shstrndx = SHN_XINDEX
        b[sh0 + 32..sh0 + 40].copy_from_slice(&3u64.to_le_bytes()); // sh_size: shnum
        b[sh0 + 40..sh0 + 44].copy_from_slice(&2u32.to_le_bytes()); // sh_link: shstrndx
        b[sh0 + 44..sh0 + 48].copy_from_slice(&2u32.to_le_bytes()); // sh_info: phnum
        let ext = Elf::parse(&b).unwrap();
        assert_eq!(
            (ext.header.shnum, ext.header.shstrndx, ext.header.phnum),
            (3, 2, 2)
        );
        assert_eq!(ext.sections[1..], plain.sections[1..]);
        assert_eq!(ext.segments, plain.segments);
        assert_eq!(ext.dynamic().unwrap().needed, ["liba.so"]);
        // Section header 0 cut off: a clear error naming it.
        let err = parse_header(&b[..sh0 + 40]).unwrap_err().to_string();
        assert!(err.contains("truncated section header 0"), "{err}");
    }

    #[test]
    fn notes_keep_raw_names_and_stop_at_trailing_padding() {
        let mut data = Vec::new();
        let mut note = |name: &[u8], ty: u32, desc: &[u8]| {
            data.extend_from_slice(&(name.len() as u32).to_le_bytes());
            data.extend_from_slice(&(desc.len() as u32).to_le_bytes());
            data.extend_from_slice(&ty.to_le_bytes());
            data.extend_from_slice(name);
            data.resize(data.len().next_multiple_of(4), 0);
            data.extend_from_slice(desc);
            data.resize(data.len().next_multiple_of(4), 0);
        };
        note(b"\xff\xfe\0", 1, b"wxyz");
        note(b"AMDGPU\0", 32, b"abc");
        data.extend_from_slice(&[0; 4]); // padding of the section to 8 bytes
        let got = notes(&data).unwrap();
        assert_eq!(
            got,
            [
                Note {
                    name: b"\xff\xfe",
                    n_type: 1,
                    desc: b"wxyz"
                },
                Note {
                    name: b"AMDGPU",
                    n_type: 32,
                    desc: b"abc"
                }
            ]
        );
        // Why the name and descriptor stay ours: goblin's own note iterator takes the name as
        // UTF-8 text and reads the padding as a note, so on these bytes it fails.
        let mut goblin_notes = goblin::elf::note::NoteDataIterator {
            data: &data,
            size: data.len(),
            offset: 0,
            ctx: (
                4,
                goblin::container::Ctx::new(goblin::container::Container::Big, LE),
            ),
        };
        assert!(goblin_notes.any(|n| n.is_err()));
        // A descriptor running past the data is a clear error.
        let err = notes(&data[..36]).unwrap_err().to_string();
        assert!(err.starts_with("truncated note"), "{err}");
    }
}

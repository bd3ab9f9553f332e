//! One offload bundle, uncompressed or `CCOB`, down to its code objects.

use super::entry_id::{self, Kind};
use super::{amdgpu, bundle, ccob, sniff, Error, Magic, Result};
use crate::isa::TargetId;
use serde::Serialize;

#[derive(Debug, Clone, Copy)]
pub struct Options {
    /// Hard cap on one bundle's decompressed size.
    pub cap: u64,
    /// Collect kernel names (counts are always collected).
    pub kernel_names: bool,
    /// Verify the CCOB hash (MD5 of the decompressed bundle) of every compressed bundle. zlib
    /// bundles are always verified: that is where corruption is known (zlib-ng vs zlib,
    /// rocm-libraries#6085). LLVM's own bundler checks the hash only in verbose mode. Off by
    /// default, as `inspect` has it (`--verify-hash` turns it on): nothing in the default run
    /// reads a zstd bundle's hash, and hashing every decompressed kernel of a hipBLASLt library
    /// (Debian's 7.1.1: 717 compressed files) tripled the run's time.
    pub verify_hash: bool,
    /// Read a compressed bundle's entry ids, not its code objects, when the ids alone say which
    /// targets it serves (the default run's Tensile directories: Debian's hipBLASLt 7.1.1 has
    /// 717 compressed files, each decompressed whole only to read its ids). Only the start of
    /// the stream is decoded ([`ccob::table`]); bundles whose ids leave the target open (a
    /// generic processor, whose version only `e_flags` carry; a legacy `hip` id without
    /// features; SPIR-V; anything unparsed) are decoded whole as before. No hash, no payload
    /// check: `inspect` keeps this off.
    pub targets_only: bool,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            cap: ccob::DEFAULT_CAP,
            kernel_names: false,
            verify_hash: false,
            targets_only: false,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Format {
    Uncompressed,
    Ccob,
    /// `__CLANG_OFFLOAD_BUNDLE__<id>` sections of a relocatable object.
    ObjectSections,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CcobInfo {
    pub version: u16,
    pub method: ccob::Method,
    pub total_size: Option<u64>,
    pub uncompressed_size: u64,
    /// Whether the MD5 in the header matches the decompressed data (None: not checked).
    pub hash_ok: Option<bool>,
    /// The bytes `CCOB` occur inside the compressed payload (breaks magic-scanning readers).
    pub magic_inside: bool,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct EntryReport {
    pub id: String,
    pub kind: Kind,
    /// The target id from the entry id.
    pub target: Option<String>,
    /// Payload offset: in the file for uncompressed bundles, in the decompressed bundle for CCOB.
    pub offset: u64,
    pub size: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub code_object: Option<amdgpu::CodeObject>,
    /// What the payload is when it is not a code object (`host (empty)`, `LLVM bitcode`...).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub payload: Option<String>,
    /// The entry id, `e_flags` and `amdhsa.target` disagree.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mismatch: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

impl EntryReport {
    /// The target this entry serves: the code object's when it was read, else the id's.
    pub(crate) fn effective_target(&self) -> Option<TargetId> {
        self.code_object
            .as_ref()
            .and_then(|c| c.target())
            .or_else(|| self.target.as_deref().and_then(|t| TargetId::parse(t).ok()))
    }
    pub(crate) fn generic_version(&self) -> Option<u32> {
        self.code_object.as_ref().and_then(|c| c.generic_version)
    }
    pub(crate) fn is_device(&self) -> bool {
        !matches!(self.kind, Kind::Host)
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct BlobReport {
    /// Where the bundle starts in the file.
    pub offset: u64,
    pub format: Format,
    /// Bytes the bundle occupies in the file.
    pub stored_size: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ccob: Option<CcobInfo>,
    pub entries: Vec<EntryReport>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// How many bytes the bundle at the start of `b` occupies. For CCOB v1, which records no
/// total size, the bundle runs to the next bundle magic at an 8-aligned offset or to the end.
pub fn delimit(b: &[u8]) -> Result<u64> {
    match sniff(b) {
        Magic::Bundle => Ok(bundle::parse(b)?.end),
        Magic::Ccob => {
            let h = ccob::parse_header(b)?;
            match h.total_size {
                Some(t) if t > b.len() as u64 => Err(Error::Truncated {
                    what: "CCOB bundle (total size)",
                    start: 0,
                    end: t,
                    len: b.len() as u64,
                }),
                Some(t) => Ok(t),
                None => Ok(next_magic(b, h.header_size).unwrap_or(b.len() as u64)),
            }
        }
        _ => Err(Error::BadMagic {
            what: "an offload bundle",
            found: super::hex_prefix(b),
        }),
    }
}

/// The first offset >= `from`, 8-aligned, where a bundle magic starts. Searches window by
/// window so that it reads little past the hit (the resident set of a mapped file stays small).
pub fn next_magic(b: &[u8], from: u64) -> Option<u64> {
    const WINDOW: usize = 4096;
    let mut pos = usize::try_from(from).ok()?;
    while pos < b.len() {
        let end = pos
            .saturating_add(WINDOW + bundle::MAGIC.len())
            .min(b.len());
        let w = &b[pos..end];
        let u = memchr::memmem::find_iter(w, bundle::MAGIC).find(|i| (pos + i) % 8 == 0);
        let c = memchr::memmem::find_iter(w, ccob::MAGIC).find(|i| (pos + i) % 8 == 0);
        match (u, c) {
            (Some(a), Some(c)) => return Some((pos + a.min(c)) as u64),
            (Some(a), None) | (None, Some(a)) => return Some((pos + a) as u64),
            (None, None) => pos += WINDOW,
        }
    }
    None
}

/// Inspects the bundle at the start of `b` (`b` may extend past it). `base` is its file offset.
pub fn inspect(b: &[u8], base: u64, opts: &Options) -> BlobReport {
    match sniff(b) {
        Magic::Ccob => inspect_ccob(b, base, opts),
        _ => inspect_uncompressed(b, base, 0, opts),
    }
}

fn failed(base: u64, format: Format, stored_size: u64, e: &Error) -> BlobReport {
    BlobReport {
        offset: base,
        format,
        stored_size,
        ccob: None,
        entries: Vec::new(),
        error: Some(e.to_string()),
    }
}

/// `payload_base`: added to entry offsets (the bundle's file offset for uncompressed bundles).
fn inspect_uncompressed(b: &[u8], base: u64, payload_base: u64, opts: &Options) -> BlobReport {
    let parsed = match bundle::parse(b) {
        Ok(p) => p,
        Err(e) => return failed(base, Format::Uncompressed, 0, &e),
    };
    let entries = parsed
        .entries
        .iter()
        .map(|e| {
            // parse() checked offset + size against b.
            let data = super::slice(b, e.offset, e.size, "bundle entry").unwrap_or(&[]);
            entry(&e.id, payload_base + e.offset, data, opts)
        })
        .collect();
    BlobReport {
        offset: base,
        format: Format::Uncompressed,
        stored_size: parsed.end,
        ccob: None,
        entries,
        error: None,
    }
}

fn inspect_ccob(b: &[u8], base: u64, opts: &Options) -> BlobReport {
    let h = match ccob::parse_header(b) {
        Ok(h) => h,
        Err(e) => return failed(base, Format::Ccob, 0, &e),
    };
    let stored = delimit(b).unwrap_or(b.len() as u64);
    let own = &b[..(stored.min(b.len() as u64)) as usize];
    let mut info = CcobInfo {
        version: h.version,
        method: h.method,
        total_size: h.total_size,
        uncompressed_size: h.uncompressed_size,
        hash_ok: None,
        magic_inside: ccob::magic_inside_payload(own, &h),
    };
    if opts.targets_only {
        if let Ok(t) = ccob::table(own, &h, opts.cap) {
            if t.entries.iter().all(|e| id_names_target(&e.id)) {
                let entries = t.entries.iter().map(id_only).collect();
                return BlobReport {
                    offset: base,
                    format: Format::Ccob,
                    stored_size: stored,
                    ccob: Some(info),
                    entries,
                    error: None,
                };
            }
        }
    }
    let data = match ccob::decompress(own, &h, opts.cap) {
        Ok(d) => d,
        Err(e) => {
            let mut r = failed(base, Format::Ccob, stored, &e);
            r.ccob = Some(info);
            return r;
        }
    };
    if opts.verify_hash || h.method == ccob::Method::Zlib {
        info.hash_ok = Some(ccob::hash(&data) == h.hash);
    }
    let mut r = inspect_uncompressed(&data, base, 0, opts);
    r.format = Format::Ccob;
    r.stored_size = stored;
    r.offset = base;
    r.ccob = Some(info);
    r
}

/// Whether an entry id alone says what the entry serves, as its code object would: the host,
/// or a `hipv4` id with a concrete (not generic) processor and its features. A generic code
/// object's version is in `e_flags` only, and a legacy `hip` id omits the features.
fn id_names_target(id: &str) -> bool {
    let p = entry_id::parse(id);
    match p.kind {
        Kind::Host => true,
        Kind::Hipv4 => {
            !p.spirv
                && p.target_id.as_ref().is_some_and(|t| {
                    crate::isa::processor(&t.processor).is_some_and(|i| !i.is_generic)
                })
        }
        _ => false,
    }
}

/// An entry known by its id alone ([`Options::targets_only`]): no payload read.
fn id_only(e: &bundle::Entry) -> EntryReport {
    let parsed = entry_id::parse(&e.id);
    EntryReport {
        id: e.id.clone(),
        kind: parsed.kind,
        target: parsed.target,
        offset: e.offset,
        size: e.size,
        code_object: None,
        payload: Some("not read (targets only)".into()),
        mismatch: None,
        error: None,
    }
}

/// One entry: its id parsed and its payload read.
pub(crate) fn entry(id: &str, offset: u64, data: &[u8], opts: &Options) -> EntryReport {
    let parsed = entry_id::parse(id);
    let mut r = EntryReport {
        id: id.to_string(),
        kind: parsed.kind,
        target: parsed.target.clone(),
        offset,
        size: data.len() as u64,
        code_object: None,
        payload: None,
        mismatch: None,
        error: None,
    };
    if data.is_empty() || (parsed.kind == Kind::Host && data.len() <= 1) {
        r.payload = Some("empty".into());
        return r;
    }
    if data.starts_with(b"BC\xc0\xde") || data.starts_with(&[0xde, 0xc0, 0x17, 0x0b]) {
        r.payload = Some("LLVM bitcode".into());
        return r;
    }
    if parsed.spirv {
        r.payload = Some("SPIR-V (compiled at run time, no native ISA)".into());
        return r;
    }
    match sniff(data) {
        Magic::Elf => match amdgpu::parse(data, opts.kernel_names) {
            Ok(co) => {
                r.mismatch = mismatch(&parsed, &co);
                r.code_object = Some(co);
            }
            Err(e) if parsed.kind == Kind::Host => r.payload = Some(format!("host object ({e})")),
            Err(e) => r.error = Some(e.to_string()),
        },
        Magic::Bundle | Magic::Ccob => r.payload = Some("a nested bundle (not read)".into()),
        Magic::Unknown if parsed.kind == Kind::Host => r.payload = Some("host data".into()),
        Magic::Unknown => {
            r.error = Some(format!(
                "the payload is not an ELF code object (starts {})",
                super::hex_prefix(data)
            ))
        }
    }
    r
}

fn mismatch(id: &entry_id::EntryId, co: &amdgpu::CodeObject) -> Option<String> {
    let mut problems = Vec::new();
    let from_flags = co.target();
    // Legacy `hip` ids carry only the processor: compare the processor alone.
    if let (Some(i), Some(f)) = (&id.target_id, &from_flags) {
        let same = if id.kind == Kind::Hipv4 {
            i == f
        } else {
            i.processor == f.processor
        };
        if !same {
            problems.push(format!("entry id says {i}, e_flags say {f}"));
        }
    }
    if co.metadata_agrees() == Some(false) {
        let t = co
            .metadata
            .as_ref()
            .and_then(|m| m.target.clone())
            .unwrap_or_default();
        problems.push(format!(
            "amdhsa.target says {t}, e_flags say {}",
            co.target_id()
        ));
    }
    (!problems.is_empty()).then(|| problems.join("; "))
}

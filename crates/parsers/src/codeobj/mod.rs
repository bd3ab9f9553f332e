//! The pure code-object parsers: bytes in, a typed result or a precise error out. No I/O.
//!
//! - [`bundle`]: uncompressed `__CLANG_OFFLOAD_BUNDLE__` bundles;
//! - [`ccob`]: compressed bundles (`CCOB` v1/v2/v3, zlib or zstd), with a hard size cap;
//! - [`msgpack`]: the MessagePack reader of the AMDGPU metadata note;
//! - this module: the error type and the bounds-checked little-endian readers that the ELF
//!   readers of the main crate (`rocm_doctor::codeobj`) share with these.

pub mod bundle;
pub mod ccob;
pub mod msgpack;

/// Why bytes could not be parsed. Offsets are relative to the slice given to the parser.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Error {
    #[error("truncated {what}: needs bytes {start}..{end}, only {len} available")]
    Truncated {
        what: &'static str,
        start: u64,
        end: u64,
        len: u64,
    },
    #[error("not {what}: the first bytes are {found}")]
    BadMagic { what: &'static str, found: String },
    #[error("invalid {what}: {detail}")]
    Invalid { what: &'static str, detail: String },
    #[error("unsupported {what}: {detail}")]
    Unsupported { what: &'static str, detail: String },
    #[error("{what} would decompress to {size} bytes, above the cap of {cap} bytes")]
    TooLarge {
        what: &'static str,
        size: u64,
        cap: u64,
    },
    #[error("{method} decompression failed: {detail}")]
    Decompress {
        method: &'static str,
        detail: String,
    },
}

pub type Result<T> = std::result::Result<T, Error>;

pub fn invalid(what: &'static str, detail: impl Into<String>) -> Error {
    Error::Invalid {
        what,
        detail: detail.into(),
    }
}

/// `b[start..start+len]`, or a `Truncated` error naming `what`.
pub fn slice<'a>(b: &'a [u8], start: u64, len: u64, what: &'static str) -> Result<&'a [u8]> {
    let end = start.checked_add(len).ok_or(Error::Truncated {
        what,
        start,
        end: u64::MAX,
        len: b.len() as u64,
    })?;
    if end > b.len() as u64 {
        return Err(Error::Truncated {
            what,
            start,
            end,
            len: b.len() as u64,
        });
    }
    // Both bounds fit in usize: they are at most b.len().
    Ok(&b[start as usize..end as usize])
}

pub fn u16_at(b: &[u8], off: u64, what: &'static str) -> Result<u16> {
    let s = slice(b, off, 2, what)?;
    Ok(u16::from_le_bytes([s[0], s[1]]))
}

pub fn u32_at(b: &[u8], off: u64, what: &'static str) -> Result<u32> {
    let s = slice(b, off, 4, what)?;
    Ok(u32::from_le_bytes([s[0], s[1], s[2], s[3]]))
}

pub fn u64_at(b: &[u8], off: u64, what: &'static str) -> Result<u64> {
    let s = slice(b, off, 8, what)?;
    let mut a = [0u8; 8];
    a.copy_from_slice(s);
    Ok(u64::from_le_bytes(a))
}

/// The first bytes of `b` as hex, for `BadMagic` messages.
pub fn hex_prefix(b: &[u8]) -> String {
    if b.is_empty() {
        return "(empty input)".into();
    }
    b.iter()
        .take(8)
        .map(|x| format!("{x:02x}"))
        .collect::<Vec<_>>()
        .join(" ")
}

/// What kind of container bytes start with.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Magic {
    Elf,
    Bundle,
    Ccob,
    Unknown,
}

pub fn sniff(b: &[u8]) -> Magic {
    if b.starts_with(b"\x7fELF") {
        Magic::Elf
    } else if b.starts_with(bundle::MAGIC) {
        Magic::Bundle
    } else if b.starts_with(ccob::MAGIC) {
        Magic::Ccob
    } else {
        Magic::Unknown
    }
}

/// Rounds `v` up to a multiple of `align` (a power of two), saturating.
pub fn align_up(v: u64, align: u64) -> u64 {
    let mask = align - 1;
    v.checked_add(mask).map(|x| x & !mask).unwrap_or(u64::MAX)
}

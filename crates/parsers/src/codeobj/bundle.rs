//! Uncompressed clang offload bundles.
//!
//! Layout (llvm-project `clang/lib/Driver/OffloadBundler.cpp`, `BinaryFileHandler`; CLR
//! `hipamd/src/hip_code_object.cpp` mirrors it): 24-byte magic without NUL, `u64` entry count,
//! then per entry `u64 offset` (from the bundle start), `u64 size`, `u64 id_len` and the id
//! bytes, unaligned. Payloads follow, aligned (HIP passes `-bundle-align=4096`).

use super::{invalid, slice, u64_at, Error, Result};

pub const MAGIC: &[u8; 24] = b"__CLANG_OFFLOAD_BUNDLE__";

/// The smallest possible entry record (three u64 and an empty id).
const MIN_ENTRY: u64 = 24;
/// Entry ids longer than this are not real ids (real ones are < 100 bytes).
pub const MAX_ID_LEN: u64 = 4096;

#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Entry {
    /// The bundle entry id as written (`hipv4-amdgcn-amd-amdhsa--gfx1030`).
    pub id: String,
    /// Offset of the payload from the bundle start.
    pub offset: u64,
    pub size: u64,
}

#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Bundle {
    pub entries: Vec<Entry>,
    /// Bytes used by the magic, the count and the entry table.
    pub header_size: u64,
    /// The bundle's end relative to its start: the largest `offset + size` (at least the header).
    pub end: u64,
}

/// Parses the bundle at the start of `b`; `b` may extend past the bundle (the rest of the
/// section or file), and every entry must lie inside `b`.
pub fn parse(b: &[u8]) -> Result<Bundle> {
    parse_table(b, b.len() as u64)
}

/// [`parse`] of the header and entry table alone, for a bundle of `len` bytes of which `b` is
/// a prefix (the start of a compressed bundle's stream, [`super::ccob::table`]): the entries
/// must lie inside `len`, and a table running past `b` is a `Truncated` error, so that the
/// caller can read more and try again.
pub fn parse_table(b: &[u8], len: u64) -> Result<Bundle> {
    if !b.starts_with(MAGIC) {
        return Err(Error::BadMagic {
            what: "an offload bundle (__CLANG_OFFLOAD_BUNDLE__)",
            found: super::hex_prefix(b),
        });
    }
    let count = u64_at(b, 24, "bundle entry count")?;
    let max_count = len.saturating_sub(32) / MIN_ENTRY;
    if count > max_count {
        return Err(invalid(
            "offload bundle",
            format!("claims {count} entries, but {len} bytes hold at most {max_count}"),
        ));
    }
    // Reserved for real tables only: `len` may be a header's claim, not bytes in memory.
    let mut entries = Vec::with_capacity(count.min(64) as usize);
    let mut pos = 32u64;
    let mut end = 0u64;
    for i in 0..count {
        let offset = u64_at(b, pos, "bundle entry offset")?;
        let size = u64_at(b, pos + 8, "bundle entry size")?;
        let id_len = u64_at(b, pos + 16, "bundle entry id length")?;
        if id_len > MAX_ID_LEN {
            return Err(invalid(
                "offload bundle",
                format!("entry {i}: id length {id_len} exceeds {MAX_ID_LEN}"),
            ));
        }
        let id_bytes = slice(b, pos + 24, id_len, "bundle entry id")?;
        let id = String::from_utf8_lossy(id_bytes).into_owned();
        pos += 24 + id_len;
        // The bundler's reader stops at offset 0 or a payload past the end; so do we, loudly.
        if offset == 0 {
            return Err(invalid(
                "offload bundle",
                format!("entry {i} ({id}): offset 0"),
            ));
        }
        let stop = offset
            .checked_add(size)
            .filter(|e| *e <= len)
            .ok_or_else(|| {
                invalid(
                    "offload bundle",
                    format!("entry {i} ({id}): bytes {offset}+{size} lie past the {len} available"),
                )
            })?;
        end = end.max(stop);
        entries.push(Entry { id, offset, size });
    }
    Ok(Bundle {
        entries,
        header_size: pos,
        end: end.max(pos),
    })
}

/// Writes a bundle (for tests and fixtures): entries are placed at `align`-aligned offsets in
/// the order given, like `clang-offload-bundler -type=o -bundle-align=N`.
pub fn write(entries: &[(&str, &[u8])], align: u64) -> Vec<u8> {
    let header: u64 = 32
        + entries
            .iter()
            .map(|(id, _)| 24 + id.len() as u64)
            .sum::<u64>();
    let mut offsets = Vec::new();
    let mut at = super::align_up(header, align.max(1));
    for (_, data) in entries {
        offsets.push(at);
        if !data.is_empty() {
            at = super::align_up(at + data.len() as u64, align.max(1));
        }
    }
    let mut out = Vec::new();
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&(entries.len() as u64).to_le_bytes());
    for ((id, data), off) in entries.iter().zip(&offsets) {
        out.extend_from_slice(&off.to_le_bytes());
        out.extend_from_slice(&(data.len() as u64).to_le_bytes());
        out.extend_from_slice(&(id.len() as u64).to_le_bytes());
        out.extend_from_slice(id.as_bytes());
    }
    for ((_, data), off) in entries.iter().zip(&offsets) {
        out.resize(*off as usize, 0);
        out.extend_from_slice(data);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_and_bounds_entries() {
        let b = write(
            &[
                ("host-x86_64-unknown-linux-gnu-", b""),
                ("hipv4-amdgcn-amd-amdhsa--gfx1030", b"abc"),
            ],
            4096,
        );
        let p = parse(&b).unwrap();
        assert_eq!(p.entries.len(), 2);
        assert_eq!(p.entries[1].offset, 4096);
        assert_eq!(p.entries[1].size, 3);
        assert_eq!(p.end, 4099);
        // One byte short: the payload no longer fits.
        assert!(matches!(
            parse(&b[..b.len() - 1]),
            Err(Error::Invalid { .. })
        ));
    }

    #[test]
    fn lying_counts_are_rejected_before_allocating() {
        let mut b = MAGIC.to_vec();
        b.extend_from_slice(&u64::MAX.to_le_bytes());
        let e = parse(&b).unwrap_err().to_string();
        assert!(e.contains("claims"), "{e}");
    }
}

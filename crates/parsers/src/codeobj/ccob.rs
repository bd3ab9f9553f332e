//! Compressed offload bundles (`CCOB`).
//!
//! Headers (llvm-project `clang/lib/Driver/OffloadBundler.cpp`, `CompressedOffloadBundle`;
//! CLR `hip_code_object.cpp` reads the V2 shape): magic `CCOB`, `u16 version`, `u16 method`
//! (`llvm::compression::Format`: 0 zlib, 1 zstd), then
//! - V1: `u32 uncompressed_size`, `u64 hash`; 20 bytes; no total size (the payload runs to the
//!   end of the buffer);
//! - V2: `u32 total_size`, `u32 uncompressed_size`, `u64 hash`; 24 bytes;
//! - V3: `u64 total_size`, `u64 uncompressed_size`, `u64 hash`; 32 bytes.
//!
//! `total_size` counts the header too. `hash` is the low 64 bits (first 8 bytes, little
//! endian) of the MD5 of the uncompressed data. The uncompressed data is a complete
//! uncompressed bundle. Bundles are delimited by `total_size`, never by scanning for the next
//! magic (that scan is the bug fixed by llvm-project PR #205587).

use super::{invalid, slice, u16_at, u32_at, u64_at, Error, Result};
use std::io::Read;

pub const MAGIC: &[u8; 4] = b"CCOB";

/// Default cap on one bundle's decompressed size. Real fat binaries hold at most a few
/// hundred MB per bundle; anything above is refused, not allocated.
pub const DEFAULT_CAP: u64 = 1 << 30;

#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Method {
    Zlib,
    Zstd,
    Unknown(u16),
}

impl Method {
    pub fn as_str(&self) -> &'static str {
        match self {
            Method::Zlib => "zlib",
            Method::Zstd => "zstd",
            Method::Unknown(_) => "unknown",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Header {
    pub version: u16,
    pub method: Method,
    pub header_size: u64,
    /// Whole bundle size including the header (V2/V3); `None` for V1.
    pub total_size: Option<u64>,
    pub uncompressed_size: u64,
    pub hash: u64,
}

pub fn parse_header(b: &[u8]) -> Result<Header> {
    if !b.starts_with(MAGIC) {
        return Err(Error::BadMagic {
            what: "a compressed offload bundle (CCOB)",
            found: super::hex_prefix(b),
        });
    }
    let version = u16_at(b, 4, "CCOB version")?;
    let raw_method = u16_at(b, 6, "CCOB method")?;
    let method = match raw_method {
        0 => Method::Zlib,
        1 => Method::Zstd,
        m => Method::Unknown(m),
    };
    let (header_size, total_size, uncompressed_size, hash) = match version {
        1 => (
            20,
            None,
            u32_at(b, 8, "CCOB v1 uncompressed size")? as u64,
            u64_at(b, 12, "CCOB v1 hash")?,
        ),
        2 => (
            24,
            Some(u32_at(b, 8, "CCOB v2 total size")? as u64),
            u32_at(b, 12, "CCOB v2 uncompressed size")? as u64,
            u64_at(b, 16, "CCOB v2 hash")?,
        ),
        3 => (
            32,
            Some(u64_at(b, 8, "CCOB v3 total size")?),
            u64_at(b, 16, "CCOB v3 uncompressed size")?,
            u64_at(b, 24, "CCOB v3 hash")?,
        ),
        v => {
            return Err(Error::Unsupported {
                what: "CCOB version",
                detail: format!("{v} (known: 1, 2, 3)"),
            })
        }
    };
    if let Some(t) = total_size {
        if t < header_size {
            return Err(invalid(
                "CCOB header",
                format!("total size {t} is smaller than the {header_size}-byte header"),
            ));
        }
    }
    Ok(Header {
        version,
        method,
        header_size,
        total_size,
        uncompressed_size,
        hash,
    })
}

/// The compressed payload: bounded by `total_size` (V2/V3), the rest of `b` for V1.
pub fn payload<'a>(b: &'a [u8], h: &Header) -> Result<&'a [u8]> {
    match h.total_size {
        Some(t) => slice(
            b,
            h.header_size,
            t - h.header_size,
            "CCOB payload (total size from the header)",
        ),
        None => slice(
            b,
            h.header_size,
            (b.len() as u64).saturating_sub(h.header_size),
            "CCOB payload",
        ),
    }
}

/// How many bytes the bundle occupies in `b` (`total_size`, or all of `b` for V1).
pub fn stored_size(b: &[u8], h: &Header) -> u64 {
    h.total_size.unwrap_or(b.len() as u64)
}

/// Decompresses the payload. Refuses before allocating when the header announces more than
/// `cap` bytes, stops reading at `min(announced, cap) + 1` bytes, and fails when the output
/// size differs from the announced one (a lying header or a corrupt stream).
pub fn decompress(b: &[u8], h: &Header, cap: u64) -> Result<Vec<u8>> {
    let data = payload(b, h)?;
    if h.uncompressed_size > cap {
        return Err(Error::TooLarge {
            what: "CCOB bundle",
            size: h.uncompressed_size,
            cap,
        });
    }
    frame_fills_payload(data, h)?;
    let limit = h.uncompressed_size + 1;
    let mut out = Vec::with_capacity(initial_capacity(data.len(), limit));
    let res = match h.method {
        // One-shot decoding straight into `out` first: the output is then the decoder's only
        // window, so a bundle costs its size once. A streaming decoder keeps its own window
        // beside the output, as large as the frame for the single-segment frames clang writes
        // (zstd_decompress.c, ZSTD_decompressStream): twice the size. Anything the one-shot
        // call refuses is decoded again by the streaming decoder, whose result and messages
        // stay the reference.
        Method::Zstd if one_shot_zstd(data, &mut out) => Ok(out.len()),
        Method::Zstd => zstd::stream::read::Decoder::with_buffer(data)
            .map(|d| d.single_frame())
            .and_then(|d| d.take(limit).read_to_end(&mut out)),
        Method::Zlib => flate2::read::ZlibDecoder::new(data)
            .take(limit)
            .read_to_end(&mut out),
        Method::Unknown(m) => {
            return Err(Error::Unsupported {
                what: "CCOB compression method",
                detail: format!("{m} (known: 0 zlib, 1 zstd)"),
            })
        }
    };
    res.map_err(|e| Error::Decompress {
        method: h.method.as_str(),
        detail: e.to_string(),
    })?;
    if out.len() as u64 != h.uncompressed_size {
        return Err(invalid(
            "CCOB bundle",
            format!(
                "the header announces {} uncompressed bytes, the stream holds {}",
                h.uncompressed_size,
                if out.len() as u64 >= limit {
                    format!("more than {}", h.uncompressed_size)
                } else {
                    out.len().to_string()
                }
            ),
        ));
    }
    Ok(out)
}

/// With a total size, the payload must be exactly one compressed stream: a zstd frame shorter
/// than the payload means the header's total size lies. (Reads the frame's block headers only.)
fn frame_fills_payload(data: &[u8], h: &Header) -> Result<()> {
    if h.method == Method::Zstd && h.total_size.is_some() {
        if let Ok(frame) = zstd::zstd_safe::find_frame_compressed_size(data) {
            if frame != data.len() {
                return Err(invalid(
                    "CCOB bundle",
                    format!(
                        "the total size leaves {} compressed bytes, the zstd frame is {frame}",
                        data.len()
                    ),
                ));
            }
        }
    }
    Ok(())
}

/// The header and entry table of the bundle inside a compressed one, decoding only the start
/// of the stream: 4 KiB first (a real table of a few entries is ~100 bytes), four times more
/// while the table runs past what was decoded, never past the announced size. For callers that
/// need the entry ids alone (which targets a file carries); the payloads, the hash and the
/// stream's length past the table are not read, so a stream corrupt after the table passes
/// here and fails [`decompress`]. The same refusals as [`decompress`] before any decoding
/// (cap, method, a lying total size), and a table claiming more entries than the announced
/// size holds is refused by [`super::bundle::parse_table`] before it is read.
pub fn table(b: &[u8], h: &Header, cap: u64) -> Result<super::bundle::Bundle> {
    let data = payload(b, h)?;
    if h.uncompressed_size > cap {
        return Err(Error::TooLarge {
            what: "CCOB bundle",
            size: h.uncompressed_size,
            cap,
        });
    }
    frame_fills_payload(data, h)?;
    let failed = |e: std::io::Error| Error::Decompress {
        method: h.method.as_str(),
        detail: e.to_string(),
    };
    let mut reader: Box<dyn Read + '_> = match h.method {
        Method::Zstd => Box::new(
            zstd::stream::read::Decoder::with_buffer(data)
                .map_err(failed)?
                .single_frame(),
        ),
        Method::Zlib => Box::new(flate2::read::ZlibDecoder::new(data)),
        Method::Unknown(m) => {
            return Err(Error::Unsupported {
                what: "CCOB compression method",
                detail: format!("{m} (known: 0 zlib, 1 zstd)"),
            })
        }
    };
    let len = h.uncompressed_size;
    let mut buf = Vec::new();
    let mut want = 4096u64.min(len);
    loop {
        let asked = want - buf.len() as u64;
        let got = (&mut reader)
            .take(asked)
            .read_to_end(&mut buf)
            .map_err(failed)? as u64;
        match super::bundle::parse_table(&buf, len) {
            Err(Error::Truncated { .. }) if got == asked && want < len => {
                want = want.saturating_mul(4).min(len);
            }
            Err(Error::Truncated { .. }) if got < asked => {
                return Err(invalid(
                    "CCOB bundle",
                    format!(
                        "the header announces {len} uncompressed bytes, the stream holds {}",
                        buf.len()
                    ),
                ))
            }
            other => return other,
        }
    }
}

/// Decodes the first zstd frame of `data` into the spare capacity of `out` (which must be
/// empty); false, with `out` left empty, when it does not fit or is not a valid frame.
fn one_shot_zstd(data: &[u8], out: &mut Vec<u8>) -> bool {
    let Some(frame) = zstd::zstd_safe::find_frame_compressed_size(data)
        .ok()
        .filter(|&n| n <= data.len())
    else {
        return false;
    };
    let ok = zstd::bulk::Decompressor::new()
        .and_then(|mut d| d.decompress_to_buffer(&data[..frame], out))
        .is_ok();
    if !ok {
        out.clear();
    }
    ok
}

/// Bytes reserved before decompressing `payload` bytes into at most `limit`. The header's size
/// is not trusted for this: a 100-byte payload claiming 1 GiB reserved 256 MiB (and the fuzz
/// targets' 4 MiB cap, every run). Up to 8x the payload plus 64 KiB, never more than `limit`:
/// the real bundle of fuzz/seeds/bundle compresses 2.9x (clang-offload-bundler-19, zstd and
/// zlib); a stream that expands more grows the buffer as it is read (amortised doubling).
pub fn initial_capacity(payload: usize, limit: u64) -> usize {
    let plausible = (payload as u64).saturating_mul(8).saturating_add(64 << 10);
    limit.min(plausible).min(256 << 20) as usize
}

/// The header's hash function: the first 8 bytes of the MD5, little endian.
pub fn hash(data: &[u8]) -> u64 {
    use md5::{Digest, Md5};
    let d = Md5::digest(data);
    let mut a = [0u8; 8];
    a.copy_from_slice(&d[..8]);
    u64::from_le_bytes(a)
}

/// Whether the bytes `CCOB` occur inside the compressed payload: readers that delimit bundles
/// by scanning for the magic cut such a bundle short (llvm-project PR #205587).
pub fn magic_inside_payload(b: &[u8], h: &Header) -> bool {
    payload(b, h)
        .map(|p| memchr::memmem::find(p, MAGIC).is_some())
        .unwrap_or(false)
}

/// Writes a CCOB (for tests and benchmarks), like `clang-offload-bundler -compress`.
pub fn write(
    version: u16,
    method: Method,
    uncompressed: &[u8],
    level: i32,
) -> std::io::Result<Vec<u8>> {
    let compressed = match method {
        Method::Zstd => zstd::bulk::compress(uncompressed, level)?,
        _ => {
            use std::io::Write;
            let mut e = flate2::write::ZlibEncoder::new(
                Vec::new(),
                flate2::Compression::new(level.clamp(0, 9) as u32),
            );
            e.write_all(uncompressed)?;
            e.finish()?
        }
    };
    let m: u16 = match method {
        Method::Zlib => 0,
        Method::Zstd => 1,
        Method::Unknown(m) => m,
    };
    let mut out = MAGIC.to_vec();
    out.extend_from_slice(&version.to_le_bytes());
    out.extend_from_slice(&m.to_le_bytes());
    let h = hash(uncompressed);
    match version {
        1 => {
            out.extend_from_slice(&(uncompressed.len() as u32).to_le_bytes());
            out.extend_from_slice(&h.to_le_bytes());
        }
        2 => {
            out.extend_from_slice(&((24 + compressed.len()) as u32).to_le_bytes());
            out.extend_from_slice(&(uncompressed.len() as u32).to_le_bytes());
            out.extend_from_slice(&h.to_le_bytes());
        }
        _ => {
            out.extend_from_slice(&((32 + compressed.len()) as u64).to_le_bytes());
            out.extend_from_slice(&(uncompressed.len() as u64).to_le_bytes());
            out.extend_from_slice(&h.to_le_bytes());
        }
    }
    out.extend_from_slice(&compressed);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_version_and_method_round_trips() {
        let data =
            super::super::bundle::write(&[("hipv4-amdgcn-amd-amdhsa--gfx1030", b"payload")], 64);
        for v in 1..=3 {
            for m in [Method::Zlib, Method::Zstd] {
                let c = write(v, m, &data, 3).unwrap();
                let h = parse_header(&c).unwrap();
                assert_eq!((h.version, h.method), (v, m));
                let out = decompress(&c, &h, DEFAULT_CAP).unwrap();
                assert_eq!(out, data);
                assert_eq!(hash(&out), h.hash);
            }
        }
    }

    #[test]
    fn a_bomb_is_refused_by_the_cap_and_a_lying_size_is_caught() {
        let zeros = vec![0u8; 8 << 20];
        let c = write(3, Method::Zstd, &zeros, 19).unwrap();
        assert!(c.len() < 4096, "zeros compress well: {}", c.len());
        let h = parse_header(&c).unwrap();
        assert!(matches!(
            decompress(&c, &h, 1 << 20),
            Err(Error::TooLarge { .. })
        ));
        // Lie: announce 1 KiB; the stream holds 8 MiB. We stop after 1 KiB + 1.
        let mut lie = c.clone();
        lie[16..24].copy_from_slice(&1024u64.to_le_bytes());
        let h = parse_header(&lie).unwrap();
        let e = decompress(&lie, &h, DEFAULT_CAP).unwrap_err().to_string();
        assert!(e.contains("more than 1024"), "{e}");
    }

    /// Bytes that do not compress (xorshift), so that a stream has many blocks.
    fn noise(n: usize) -> Vec<u8> {
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        (0..n)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                x as u8
            })
            .collect()
    }

    #[test]
    fn the_table_is_read_from_the_start_of_the_stream_alone() {
        let big = noise(2 << 20);
        let data = super::super::bundle::write(
            &[
                ("host-x86_64-unknown-linux-gnu-", b""),
                ("hipv4-amdgcn-amd-amdhsa--gfx1030", &big),
                ("hipv4-amdgcn-amd-amdhsa--gfx90a:xnack-", b"small"),
            ],
            4096,
        );
        let whole = super::super::bundle::parse(&data).unwrap();
        for m in [Method::Zlib, Method::Zstd] {
            let c = write(1, m, &data, 1).unwrap();
            let h = parse_header(&c).unwrap();
            assert_eq!(table(&c, &h, DEFAULT_CAP).unwrap(), whole, "{m:?}");
            // Cut the stream in half (V1 has no total size): the payload cannot be decoded,
            // the table still can, so it was read without the rest.
            let cut = &c[..c.len() / 2];
            assert!(decompress(cut, &h, DEFAULT_CAP).is_err(), "{m:?}");
            assert_eq!(table(cut, &h, DEFAULT_CAP).unwrap(), whole, "{m:?}");
        }
        // The same refusals as a whole decode: the cap and an unknown method.
        let c = write(3, Method::Zstd, &data, 1).unwrap();
        let h = parse_header(&c).unwrap();
        assert!(matches!(
            table(&c, &h, 1 << 20),
            Err(Error::TooLarge { .. })
        ));
        let mut odd = c.clone();
        odd[6..8].copy_from_slice(&7u16.to_le_bytes());
        let h = parse_header(&odd).unwrap();
        assert!(matches!(
            table(&odd, &h, DEFAULT_CAP),
            Err(Error::Unsupported { .. })
        ));
    }

    #[test]
    fn a_table_claiming_more_than_the_stream_holds_fails_without_reading_past_it() {
        // A header announcing 1 GiB over a 64-byte bundle whose count claims 10 million entries.
        let mut data = super::super::bundle::MAGIC.to_vec();
        data.extend_from_slice(&10_000_000u64.to_le_bytes());
        // One entry (offset 4096, size 1, empty id), then the next one's offset and nothing.
        for v in [4096u64, 1, 0, 4096] {
            data.extend_from_slice(&v.to_le_bytes());
        }
        for m in [Method::Zlib, Method::Zstd] {
            let mut c = write(3, m, &data, 3).unwrap();
            c[16..24].copy_from_slice(&(1u64 << 30).to_le_bytes());
            let h = parse_header(&c).unwrap();
            let e = table(&c, &h, DEFAULT_CAP).unwrap_err().to_string();
            assert!(e.contains("the stream holds 64"), "{m:?}: {e}");
            // A count beyond what the announced size can hold is refused before any entry.
            let mut huge = data.clone();
            huge[24..32].copy_from_slice(&u64::MAX.to_le_bytes());
            let c = write(3, m, &huge, 3).unwrap();
            let h = parse_header(&c).unwrap();
            let e = table(&c, &h, DEFAULT_CAP).unwrap_err().to_string();
            assert!(
                e.contains("claims 18446744073709551615 entries"),
                "{m:?}: {e}"
            );
        }
        // Nothing but the header of a stream: no bytes at all decode.
        let c = write(3, Method::Zstd, &data, 3).unwrap();
        let h = parse_header(&c).unwrap();
        assert!(table(&c[..40], &h, DEFAULT_CAP).is_err());
    }
}

//! Structure-aware CCOB: an uncompressed bundle of arbitrary entries is compressed with a real
//! codec into every header version (v1-v3, zlib or zstd or an unknown method), then bytes are
//! flipped and the tail cut or extended. Random bytes almost never get past the codec; this
//! reaches the decompressed bundle's entries, the hash check and the size fields.
#![no_main]
use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use rocm_doctor::codeobj::{blob, bundle, ccob};

const CAP: u64 = 4 << 20;

#[derive(Arbitrary, Debug)]
struct Input {
    version: u8,
    method: u8,
    entries: Vec<(String, Vec<u8>)>,
    align_log2: u8,
    /// (offset, xor) pairs applied to the compressed bundle.
    flips: Vec<(u16, u8)>,
    /// Cut the bundle to this many bytes (when smaller).
    cut: Option<u16>,
    trailer: Vec<u8>,
}

fuzz_target!(|inp: Input| {
    let entries: Vec<(&str, &[u8])> = inp
        .entries
        .iter()
        .take(8)
        .map(|(id, p)| (id.as_str(), p.as_slice()))
        .collect();
    let inner = bundle::write(&entries, 1u64 << (inp.align_log2 % 13));
    let version = u16::from(inp.version % 4).max(1);
    let method = match inp.method % 3 {
        0 => ccob::Method::Zlib,
        1 => ccob::Method::Zstd,
        _ => ccob::Method::Unknown(u16::from(inp.method)),
    };
    let Ok(mut b) = ccob::write(version, method, &inner, 1) else {
        return;
    };
    let n = b.len();
    for (off, x) in inp.flips.iter().take(4) {
        b[usize::from(*off) % n] ^= x;
    }
    if let Some(c) = inp.cut {
        b.truncate(usize::from(c).min(b.len()));
    }
    b.extend_from_slice(&inp.trailer);
    let _ = blob::delimit(&b);
    let opts = blob::Options {
        cap: CAP,
        kernel_names: true,
        verify_hash: true,
        targets_only: false,
    };
    let r = blob::inspect(&b, 0, &opts);
    // The default run's reading: the entry ids from the start of the stream only.
    let ids = blob::Options {
        targets_only: true,
        ..opts
    };
    let _ = serde_json::to_string(&blob::inspect(&b, 0, &ids));
    let _ = serde_json::to_string(&r);
});

//! Raw bytes as an offload bundle (uncompressed or CCOB) at the start of a file, the way
//! `inspect` meets them: delimit, then inspect down to code objects with kernel names.
#![no_main]
use libfuzzer_sys::fuzz_target;
use rocm_doctor::codeobj::{blob, bundle, ccob};

/// Decompression cap: small, so a lying size field cannot hit libFuzzer's RSS limit.
const CAP: u64 = 4 << 20;

fuzz_target!(|data: &[u8]| {
    let _ = blob::delimit(data);
    let _ = bundle::parse(data);
    // `blob::inspect` decompresses a CCOB (header, delimit, payload, decompress, hash) as
    // `inspect` does; decompressing it here too doubled the cost of every valid stream.
    if let Ok(h) = ccob::parse_header(data) {
        let _ = ccob::stored_size(data, &h);
    }
    let opts = blob::Options {
        cap: CAP,
        kernel_names: true,
        verify_hash: true,
        targets_only: false,
    };
    let r = blob::inspect(data, 0, &opts);
    // The default run's reading: the entry ids from the start of the stream only.
    let ids = blob::Options {
        targets_only: true,
        ..opts
    };
    let _ = serde_json::to_string(&blob::inspect(data, 0, &ids));
    let _ = serde_json::to_string(&r);
    let _ = blob::next_magic(data, 1);
});

//! Property tests: every parser takes arbitrary, truncated or lying bytes and returns a value
//! or a clear error, never a panic; the size cap holds against decompression bombs.

use proptest::prelude::*;
use rocm_doctor::binfacts::file::inspect_mapped;
use rocm_doctor::codeobj::{amdgpu, blob, bundle, ccob, entry_id, hostelf, msgpack};
use std::path::Path;

fn sample_bundle() -> Vec<u8> {
    bundle::write(
        &[
            ("host-x86_64-unknown-linux-gnu-", b""),
            ("hipv4-amdgcn-amd-amdhsa--gfx1030", &gfx1030_elf()),
        ],
        64,
    )
}

/// A minimal AMDGPU ELF header with gfx1030's `e_flags`.
fn gfx1030_elf() -> Vec<u8> {
    let mut co = vec![0u8; 64];
    co[..4].copy_from_slice(b"\x7fELF");
    co[4] = 2;
    co[5] = 1;
    co[7] = 64;
    co[8] = 2;
    co[18..20].copy_from_slice(&224u16.to_le_bytes());
    co[48..52].copy_from_slice(&0x36u32.to_le_bytes());
    co
}

fn opts() -> blob::Options {
    blob::Options {
        cap: 1 << 20,
        kernel_names: true,
        verify_hash: true,
        targets_only: false,
    }
}

fn all_parsers(b: &[u8]) {
    let _ = bundle::parse(b);
    if let Ok(h) = ccob::parse_header(b) {
        let _ = ccob::decompress(b, &h, 1 << 20);
    }
    let _ = amdgpu::parse(b, true);
    let _ = msgpack::decode(b);
    let _ = hostelf::locate(b);
    let _ = hostelf::walk_fatbin(b);
    let _ = blob::inspect(b, 0, &opts());
    let ids = blob::Options {
        targets_only: true,
        ..opts()
    };
    let _ = blob::inspect(b, 0, &ids);
    if let Ok(h) = ccob::parse_header(b) {
        let _ = ccob::table(b, &h, 1 << 20);
    }
    let _ = entry_id::parse(&String::from_utf8_lossy(b));
    let _ = inspect_mapped(b, Path::new("/x"), &opts(), &|_, _| {});
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    #[test]
    fn arbitrary_bytes_never_panic(b in proptest::collection::vec(any::<u8>(), 0..512)) {
        all_parsers(&b);
    }

    #[test]
    fn magic_prefixed_garbage_never_panics(kind in 0..4usize, tail in proptest::collection::vec(any::<u8>(), 0..400)) {
        let mut b = match kind {
            0 => b"__CLANG_OFFLOAD_BUNDLE__".to_vec(),
            1 => b"CCOB".to_vec(),
            2 => vec![0x7f, b'E', b'L', b'F', 2, 1, 1, 64],
            _ => vec![0x82],
        };
        b.extend_from_slice(&tail);
        all_parsers(&b);
    }

    #[test]
    fn truncated_and_mutated_bundles_give_errors(cut in 0usize..400, flips in proptest::collection::vec((0usize..400, any::<u8>()), 0..6)) {
        let mut b = sample_bundle();
        for (at, v) in flips {
            if at < b.len() {
                b[at] = v;
            }
        }
        let b = &b[..cut.min(b.len())];
        all_parsers(b);
        let full = sample_bundle();
        if cut < full.len() && b == &full[..cut] {
            // A strict prefix of a valid bundle can never parse to all its entries.
            let r = bundle::parse(b);
            prop_assert!(r.map(|p| p.entries.len() < 2 || p.end <= cut as u64).unwrap_or(true));
        }
    }

    #[test]
    fn ccob_lying_sizes_are_caught(version in 1u16..=3, zstd in any::<bool>(), announced in any::<u32>(), cut in 0usize..200) {
        let data = sample_bundle();
        let method = if zstd { ccob::Method::Zstd } else { ccob::Method::Zlib };
        let mut c = ccob::write(version, method, &data, 3).unwrap();
        // Overwrite the uncompressed size with an arbitrary value.
        let at = match version { 1 => 8, 2 => 12, _ => 16 };
        c[at..at + 4].copy_from_slice(&announced.to_le_bytes());
        if version == 3 { c[at + 4..at + 8].copy_from_slice(&[0; 4]); }
        let h = ccob::parse_header(&c).unwrap();
        match ccob::decompress(&c, &h, 1 << 20) {
            Ok(out) => { prop_assert_eq!(out.len() as u64, announced as u64); prop_assert_eq!(out, data.clone()); }
            Err(e) => prop_assert!(announced as usize != data.len() || !e.to_string().is_empty()),
        }
        let t = &c[..cut.min(c.len())];
        all_parsers(t);
    }

    #[test]
    fn entry_ids_round_trip_targets(proc_idx in 0usize..5, x in 0u8..3) {
        let p = ["gfx90a", "gfx1030", "gfx10-3-generic", "gfx942", "gfx9-generic"][proc_idx];
        let feat = if (p == "gfx90a" || p == "gfx942" || p == "gfx9-generic") && x > 0 { if x == 1 { ":xnack+" } else { ":xnack-" } } else { "" };
        let id = format!("hipv4-amdgcn-amd-amdhsa--{p}{feat}");
        let e = entry_id::parse(&id);
        let expected = format!("{p}{feat}");
        prop_assert_eq!(e.target.as_deref(), Some(expected.as_str()));
        prop_assert_eq!(e.target_id.map(|t| t.to_string()), Some(expected));
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 12, ..ProptestConfig::default() })]

    #[test]
    fn decompression_bombs_hit_the_cap(mb in 2usize..8, version in 2u16..=3, zstd in any::<bool>()) {
        let zeros = vec![0u8; mb << 20];
        let method = if zstd { ccob::Method::Zstd } else { ccob::Method::Zlib };
        let c = ccob::write(version, method, &zeros, 3).unwrap();
        let h = ccob::parse_header(&c).unwrap();
        let is_too_large = matches!(ccob::decompress(&c, &h, 1 << 20), Err(ccob_err) if ccob_err.to_string().contains("above the cap"));
        prop_assert!(is_too_large);
        // Lie about the size to slip under the cap: decoding stops at the announced size + 1.
        let mut lie = c.clone();
        if version == 2 { lie[12..16].copy_from_slice(&1000u32.to_le_bytes()); } else { lie[16..24].copy_from_slice(&1000u64.to_le_bytes()); }
        let h = ccob::parse_header(&lie).unwrap();
        prop_assert!(ccob::decompress(&lie, &h, 1 << 20).is_err());
    }

}

/// The default run's reading of a compressed bundle (its entry ids from the start of the stream)
/// names the targets the whole decode names, without reading the code objects; a generic id,
/// whose version only `e_flags` carry, is decoded whole.
#[test]
fn targets_only_names_what_the_whole_decode_names() {
    let ids = blob::Options {
        targets_only: true,
        ..opts()
    };
    let at = Path::new("/x.co");
    for version in 1..=3 {
        for method in [ccob::Method::Zlib, ccob::Method::Zstd] {
            let c = ccob::write(version, method, &sample_bundle(), 3).unwrap();
            let whole = inspect_mapped(&c, at, &opts(), &|_, _| {});
            let quick = inspect_mapped(&c, at, &ids, &|_, _| {});
            assert_eq!(quick.isas, whole.isas, "v{version} {method:?}");
            if version == 1 && method == ccob::Method::Zstd {
                // A V1 bundle ends at the next bundle magic (no total size, blob::delimit), and
                // this small zstd stream keeps the inner bundle's magic as a literal: both
                // readings stop there alike.
                continue;
            }
            assert_eq!(whole.isas, ["gfx1030"], "v{version} {method:?}");
            let (w, q) = (&whole.bundles[0].entries[1], &quick.bundles[0].entries[1]);
            assert!(w.code_object.is_some(), "v{version} {method:?}");
            assert!(q.code_object.is_none(), "v{version} {method:?}");
            assert_eq!(q.payload.as_deref(), Some("not read (targets only)"));
            assert_eq!((q.offset, q.size), (w.offset, w.size));
        }
    }
    let generic = bundle::write(
        &[("hipv4-amdgcn-amd-amdhsa--gfx10-3-generic", &gfx1030_elf())],
        64,
    );
    let c = ccob::write(3, ccob::Method::Zstd, &generic, 3).unwrap();
    let r = inspect_mapped(&c, at, &ids, &|_, _| {});
    assert!(r.bundles[0].entries[0].code_object.is_some(), "{r:?}");
}

#[test]
fn non_elf_input_is_a_clear_error() {
    let r = inspect_mapped(
        b"#!/bin/sh\necho hi\n",
        Path::new("/x.sh"),
        &opts(),
        &|_, _| {},
    );
    assert!(r
        .error
        .unwrap()
        .contains("not an ELF file or offload bundle"));
    let e = amdgpu::parse(b"hello", false).unwrap_err().to_string();
    assert!(e.contains("not an ELF file"), "{e}");
    let e = bundle::parse(b"__CLANG_OFFLOAD_BUNDLE__\x02")
        .unwrap_err()
        .to_string();
    assert!(e.contains("truncated"), "{e}");
}

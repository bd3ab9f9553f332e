//! Inputs the fuzz targets (fuzz/, docs/fuzzing.md) reported, replayed through the parsers.
//! The files live in tests/fixtures/fuzz-regressions/TARGET/, which scripts/fuzz.sh also
//! feeds to the target first.

use crate::common;

/// Found by the `bundle` fuzz target (reported as out-of-memory: AddressSanitizer's quarantine,
/// 26 MB live; see docs/fuzzing.md): a CCOB v1 whose zlib stream holds more than its header
/// announces. It must stay a precise error of that bundle, quickly and in little memory.
#[test]
fn fuzz_regression_ccob_stream_longer_than_its_header() {
    let p = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/fuzz-regressions/bundle/ccob-v1-zlib-stream-longer-than-header");
    let b = std::fs::read(&p).unwrap();
    let r = rocm_doctor::codeobj::blob::inspect(&b, 0, &Default::default());
    let e = r.error.as_deref().unwrap_or_default();
    assert!(
        e.contains("announces 3262 uncompressed bytes") && e.contains("holds more"),
        "{r:?}"
    );
    assert!(r.entries.is_empty());
}

/// Found by the `hostelf` fuzz target: a `PT_LOAD` segment with `p_offset` 0xffff_ffff_ffff_fe00
/// covering a wrapper's bundle pointer. Mapping the address overflowed `u64` (a panic with
/// overflow checks, a wrapped offset without); now the address simply does not map.
#[test]
fn fuzz_regression_segment_offset_near_u64_max() {
    let p = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/fuzz-regressions/hostelf/wrapper-pointer-past-u64-max");
    let b = std::fs::read(&p).unwrap();
    // Panicked here (overflow check) before the fix.
    rocm_doctor::codeobj::hostelf::locate(&b).expect("the headers still parse");
    let segs = {
        let h = rocm_doctor::codeobj::elf::parse_header(&b).unwrap();
        rocm_doctor::codeobj::elf::segments(&b, &h).unwrap()
    };
    let bad = segs
        .iter()
        .find(|s| s.offset == 0xffff_ffff_ffff_fe00)
        .expect("segment");
    assert_eq!(
        rocm_doctor::codeobj::elf::vaddr_to_offset(&segs, bad.vaddr + 0x300),
        None
    );
    // The whole subcommand reports on it instead of crashing.
    let out = common::doctor().arg("inspect").arg(&p).output().unwrap();
    assert!(out.status.code().is_some_and(|c| c <= 1), "{out:?}");
}

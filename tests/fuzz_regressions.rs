//! Inputs the fuzz targets (fuzz/, docs/fuzzing.md) reported, replayed through the parsers.
//! The files live in tests/fixtures/fuzz-regressions/TARGET/, which scripts/fuzz.sh also
//! feeds to the target first.

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

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

/// Found by the `hostelf` fuzz target after 8,357,989 runs of a long run: a `.hipFatBinSegment`
/// section at address 0xffff_ffff_ffff_ff18 with 14 wrappers. The address of a wrapper's pointer
/// slot (section address + wrapper offset + 8) overflowed `u64` from the eleventh wrapper on (a
/// panic with overflow checks; a wrapped address, compared with relocation offsets, without).
#[test]
fn fuzz_regression_wrapper_section_address_near_u64_max() {
    let p = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/fuzz-regressions/hostelf/wrapper-section-address-near-u64-max");
    let b = std::fs::read(&p).unwrap();
    for walk in [false, true] {
        // Panicked here (overflow check) before the fix.
        let l = rocm_doctor::codeobj::hostelf::locate_with(&b, walk).expect("the headers parse");
        assert_eq!(l.wrappers.len(), 14, "every wrapper is still read");
        // The slots past u64::MAX have no address, so no relocation names them: their pointer
        // is the one in the file.
        assert!(l.wrappers[10..].iter().all(|w| w.pointer_from == "file"));
    }
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

/// Bytes allocated by the current thread while `COUNTING` is set on it (the other tests of this
/// binary run on other threads and are not counted).
mod alloc_count {
    use std::alloc::{GlobalAlloc, Layout, System};
    use std::cell::Cell;

    thread_local! {
        static COUNTING: Cell<bool> = const { Cell::new(false) };
        static BYTES: Cell<usize> = const { Cell::new(0) };
    }

    struct Counting;

    fn note(n: usize) {
        // `try_with`: no panic while the thread's locals are being torn down.
        let _ = COUNTING.try_with(|c| {
            if c.get() {
                let _ = BYTES.try_with(|b| b.set(b.get().saturating_add(n)));
            }
        });
    }

    unsafe impl GlobalAlloc for Counting {
        unsafe fn alloc(&self, l: Layout) -> *mut u8 {
            note(l.size());
            unsafe { System.alloc(l) }
        }
        unsafe fn alloc_zeroed(&self, l: Layout) -> *mut u8 {
            note(l.size());
            unsafe { System.alloc_zeroed(l) }
        }
        unsafe fn realloc(&self, p: *mut u8, l: Layout, new: usize) -> *mut u8 {
            note(new);
            unsafe { System.realloc(p, l, new) }
        }
        unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
            unsafe { System.dealloc(p, l) }
        }
    }

    #[global_allocator]
    static A: Counting = Counting;

    /// Runs `f` and returns its result and the bytes it allocated (reallocations count their
    /// new size).
    pub fn measure<T>(f: impl FnOnce() -> T) -> (T, usize) {
        BYTES.with(|b| b.set(0));
        COUNTING.with(|c| c.set(true));
        let r = f();
        COUNTING.with(|c| c.set(false));
        (r, BYTES.with(Cell::get))
    }
}

/// Found from the `msgpack` target's memory (libFuzzer's RSS limit): every container reserved
/// room for as many `Value`s (32 bytes each) as its count claimed. A count is checked against
/// the bytes left, but 32 nested arrays each claiming the rest of a 64 KiB note reserved
/// 32 x 64 Ki x 32 B = 64 MiB before one element was read. Now a container reserves at most
/// `msgpack::PREALLOC` elements and grows with what it reads.
#[test]
fn fuzz_regression_msgpack_counts_do_not_reserve_memory() {
    use rocm_doctor::codeobj::msgpack;
    const N: usize = 64 << 10;
    let mut b = Vec::with_capacity(N);
    for _ in 0..msgpack::MAX_DEPTH {
        let left = (N - b.len() - 5) as u32;
        b.push(0xdd); // array 32
        b.extend_from_slice(&left.to_be_bytes());
    }
    // One bin 32 holds the rest: the innermost array's second element is past the end.
    let rest = (N - b.len() - 5) as u32;
    b.push(0xc6);
    b.extend_from_slice(&rest.to_be_bytes());
    b.resize(N, 0);
    let (r, bytes) = alloc_count::measure(|| msgpack::decode(&b).map(|(_, used)| used));
    let e = r.expect_err("every array claims more elements than follow");
    assert!(e.to_string().contains("msgpack"), "{e}");
    // Before the fix: 64 MiB. Now: 32 containers x PREALLOC x 32 B = 256 KiB, plus the error.
    assert!(
        bytes < 1 << 20,
        "decode allocated {bytes} bytes for a {N}-byte input"
    );
}

/// Found from the `bundle` target's memory: a CCOB header's uncompressed size was trusted for
/// the output buffer, so a 100-byte payload claiming 1 GiB reserved 256 MiB (and 4 MiB per
/// run under the fuzz targets' cap). Now the buffer starts at 8x the payload plus 64 KiB and
/// grows; the lie is still reported precisely.
#[test]
fn fuzz_regression_ccob_size_field_does_not_reserve_memory() {
    use rocm_doctor::codeobj::{bundle, ccob};
    let inner = bundle::write(&[("hipv4-amdgcn-amd-amdhsa--gfx1030", b"payload")], 4096);
    for method in [ccob::Method::Zlib, ccob::Method::Zstd] {
        let mut b = ccob::write(3, method, &inner, 1).unwrap();
        // V3: magic, u16 version, u16 method, u64 total size, then u64 uncompressed size.
        b[16..24].copy_from_slice(&(1u64 << 30).to_le_bytes());
        let h = ccob::parse_header(&b).unwrap();
        assert_eq!(h.uncompressed_size, 1 << 30);
        let (r, bytes) = alloc_count::measure(|| ccob::decompress(&b, &h, ccob::DEFAULT_CAP));
        let e = r
            .expect_err("the stream is shorter than announced")
            .to_string();
        assert!(
            e.contains(&format!(
                "announces 1073741824 uncompressed bytes, the stream holds {}",
                inner.len()
            )),
            "{method:?}: {e}"
        );
        // Before the fix: 256 MiB. Now: the buffer (8x the payload + 64 KiB) and the decoder's
        // own state (a zstd context is about 100-200 KiB).
        assert!(bytes < 4 << 20, "{method:?}: {bytes} bytes allocated");
    }
}

/// Found from the `fleet_report` target's speed: every note counted the notes already kept, so
/// a stream of junk lines cost up to 1,200 comparisons per line. The counts are now kept per
/// kind; what is kept and what is dropped must be unchanged.
#[test]
fn fuzz_regression_fleet_notes_are_capped_per_kind() {
    use rocm_doctor::fleet::{doc::Problem, input, summary};
    let mut text = String::new();
    for i in 0..5000 {
        text.push_str(&format!(
            "node{}: ssh: connect to host refused {i}\n",
            i % 7
        ));
    }
    text.push_str("{\"truncated\": \n");
    let mut s = summary::Summary::default();
    input::fold_bytes(&mut s, text.as_bytes(), "stream.txt", None);
    let corrupt = s
        .notes
        .iter()
        .filter(|n| n.kind == Problem::Corrupt)
        .count();
    assert_eq!(corrupt, summary::MAX_NOTES_PER_KIND);
    assert_eq!(
        s.notes_dropped.get(&Problem::Corrupt),
        Some(&(5000 - summary::MAX_NOTES_PER_KIND as u64))
    );
    // Another kind still gets its own notes after one kind is full.
    assert_eq!(
        s.notes
            .iter()
            .filter(|n| n.kind == Problem::Truncated)
            .count(),
        1,
        "{:?}",
        s.notes.last()
    );
    let r = s.finish();
    assert_eq!(r.notes.len(), summary::MAX_NOTES_PER_KIND + 1);
    assert_eq!(r.exit_code(), 1);
}

/// Found by the `kfd_props` fuzz target (2026-11-23, 657,916 runs into a long run): a
/// `gfx_target_version` of 9109120402 decodes to `gfx91091242`, whose major (910912) times
/// 10000 overflowed the u32 encoding (a panic with overflow checks, a wrong number without).
/// The name now has no encoding; a real one still round-trips.
#[test]
fn fuzz_regression_gfx_target_version_past_u32() {
    let p = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/fuzz-regressions/kfd_props/gfx-target-version-past-u32");
    let text = String::from_utf8_lossy(&std::fs::read(&p).unwrap()).into_owned();
    let props = rocm_doctor::gpu::props::parse(&text);
    let v = props.get("gfx_target_version").expect("the value parses");
    assert_eq!(v, 9109120402);
    let name = rocm_doctor::isa::decode_gfx_target_version(v).expect("a name");
    assert_eq!(name, "gfx91091242");
    // Panicked here (overflow check) before the fix.
    assert_eq!(rocm_doctor::isa::encode_gfx_target_version(&name), None);
    assert_eq!(
        rocm_doctor::isa::encode_gfx_target_version("gfx90a"),
        Some(90010)
    );
    assert_eq!(
        rocm_doctor::isa::encode_gfx_target_version("gfx1100"),
        Some(110000)
    );
}

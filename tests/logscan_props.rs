//! Property tests of the log line parser and the summary: any bytes parse without panicking,
//! lines printed with CLR's format strings parse back to their fields, and splitting the input
//! anywhere at line boundaries gives the same summary as one pass.

use proptest::prelude::*;
use rocm_doctor::logscan::line::{parse, Kind};
use rocm_doctor::logscan::read;
use rocm_doctor::logscan::summary::Summary;

proptest! {
    #[test]
    fn any_bytes_parse(b in proptest::collection::vec(any::<u8>(), 0..400)) {
        let l = parse(&b);
        prop_assert!(l.msg.len() <= b.len());
        let mut s = Summary::default();
        s.add(&b, 1);
        prop_assert_eq!(s.lines, 1);
    }

    #[test]
    fn prefix_like_bytes_parse(tail in "[:0-9a-z \\[\\]x]{0,80}") {
        let line = format!(":3:{tail}");
        let _ = parse(line.as_bytes());
    }

    /// `":%d:%-25s:%-4d: %010lld us: [pid:%-5d tid:0x%s] %s"` (ROCm 5.7-6.2 debug.cpp) and the
    /// 6.4-7.2 variant `[pid:%d tid: 0x%s]`.
    #[test]
    fn clr_format_round_trips(
        lvl in 0u8..7,
        file in "[a-z_]{1,24}\\.cpp",
        no in 0u32..100000,
        ts in 0u64..10_000_000_000_000,
        pid in 1u32..4_000_000,
        tid in any::<u64>(),
        space in any::<bool>(),
        msg in "[ -~]{0,120}",
    ) {
        let sep = if space { " " } else { "" };
        let line = format!(":{lvl}:{file:<25}:{no:<4}: {ts:010} us: [pid:{pid:<5} tid:{sep}0x{tid:x}] {msg}");
        let l = parse(line.as_bytes());
        prop_assert_eq!(l.kind, Kind::Runtime(lvl));
        prop_assert_eq!(l.file(), file.as_bytes());
        prop_assert_eq!(l.src_line(), no);
        prop_assert_eq!(l.ts_us, Some(ts));
        prop_assert_eq!(l.pid(), Some(pid));
        prop_assert_eq!(l.tid(), Some(tid));
        prop_assert_eq!(l.msg, msg.as_bytes());
    }

    /// `":%d:%-25s:%-4d: %010lld us: %-5d: [tid:0x%s] %s"` (ROCm 5.0-5.6 debug.cpp, as Debian's
    /// libamdhip64 5.2.3 carries it).
    #[test]
    fn clr_5_0_format_round_trips(
        lvl in 0u8..7,
        file in "[a-z_]{1,24}\\.cpp",
        no in 0u32..100000,
        ts in 0u64..10_000_000_000_000,
        pid in 1u32..4_000_000,
        tid in any::<u64>(),
        msg in "[ -~]{0,120}",
    ) {
        let line = format!(":{lvl}:{file:<25}:{no:<4}: {ts:010} us: {pid:<5}: [tid:0x{tid:x}] {msg}");
        let l = parse(line.as_bytes());
        prop_assert_eq!(l.kind, Kind::Runtime(lvl));
        prop_assert_eq!(l.file(), file.as_bytes());
        prop_assert_eq!(l.src_line(), no);
        prop_assert_eq!(l.ts_us, Some(ts));
        prop_assert_eq!(l.pid(), Some(pid));
        prop_assert_eq!(l.tid(), Some(tid));
        prop_assert_eq!(l.msg, msg.as_bytes());
    }

    #[test]
    fn split_anywhere_equals_one_pass(
        lines in proptest::collection::vec(prop_oneof![
            Just(":3:hip_module.cpp           :825 : 100 us: [pid:7 tid: 0x1] \u{1b}[32m hipLaunchKernel ( 0x1 ) \u{1b}[0m".to_string()),
            Just(":3:hip_module.cpp           :827 : 140 us: [pid:7 tid: 0x1] hipLaunchKernel: Returned hipErrorInvalidDeviceFunction : ".to_string()),
            Just(":3:rocvirtual.cpp           :3668: 150 us: [pid:8 tid: 0x2] ShaderName : _Z6vecAddPfS_S_i".to_string()),
            Just(":1:hip_fatbin.cpp           :536 : 160 us:  No compatible code objects found for: gfx1030, value of HIP_FORCE_SPIRV_CODEOBJECT: 0".to_string()),
            Just(":3:hip_memory.cpp           :493 : 170 us: 9    : [tid:0x3] \u{1b}[32mhipMalloc ( 0x1, 256 )\u{1b}[0m".to_string()),
            Just(":1:rocdevice.cpp            :424 : 175 us: 9    : [tid:0x3] hsa_init failed.".to_string()),
            Just(":3:rocdevice.cpp            :416 : 176 us: 9    : [tid:0x3] Initializing HSA stack.".to_string()),
            Just(":3:hip_memory.cpp           :493 : 180 us: 9    : [tid:0x3] hipMalloc: Returned hipErrorInvalidDevice : ".to_string()),
            "[ -~]{0,40}",
        ], 0..60),
        threads in 1usize..6,
        region in 1u64..200,
    ) {
        let data = lines.join("\n").into_bytes();
        let mut seq = Summary::default();
        read::scan_reader(&data[..], &mut seq).unwrap();
        let t = tempfile::NamedTempFile::new().unwrap();
        std::fs::write(t.path(), &data).unwrap();
        let f = std::fs::File::open(t.path()).unwrap();
        let par = read::scan_plain_regions(&f, data.len() as u64, threads, region).unwrap();
        // A call and its return on both sides of a region boundary are paired at the merge:
        // the split summary equals one pass exactly, durations and error texts included.
        prop_assert_eq!(serde_json::to_value(&par).unwrap(), serde_json::to_value(&seq).unwrap());
        prop_assert_eq!(par.kernels, seq.kernels);
    }
}

//! `rocm-doctor log`: real log excerpts (tests/fixtures/logs/SOURCE.md), compression, stdin,
//! hostile input, and the parallel reader against the sequential one.

use crate::common::{doctor, json_of, run_json};
use rocm_doctor::logscan::{read, summary::Summary};
use std::io::Write;
use std::path::PathBuf;

fn fixture(name: &str) -> PathBuf {
    crate::common::fixture("logs", name)
}

/// Asserts that two summaries are equal in everything `--json` shows.
fn assert_same_summary(got: &Summary, want: &Summary, what: &str) {
    assert_eq!(
        serde_json::to_value(got).unwrap(),
        serde_json::to_value(want).unwrap(),
        "{what}"
    );
}

fn log_json(path: &std::path::Path) -> (serde_json::Value, i32) {
    run_json([std::ffi::OsStr::new("log"), path.as_os_str()], &[])
}

#[test]
fn seed_000_invalid_device_function_with_diagnosis() {
    let (doc, code) = log_json(&fixture("seed000-rocm-6.2.2.log"));
    assert_eq!(code, 1);
    let log = &doc["log"];
    assert_eq!(doc["command"], "log");
    assert_eq!(log["devices"][0]["gfx"], "gfx1031");
    assert_eq!(log["queues_created"], 1);
    assert_eq!(log["runtime"]["comgr_version"], "2.8");
    let launch = &log["apis"]["hipLaunchKernel"];
    assert_eq!(launch["calls"], 1);
    let e = &launch["errors"]["hipErrorInvalidDeviceFunction"];
    assert_eq!(e["count"], 1);
    assert_eq!(e["first"]["line"], 10);
    assert!(e["first"]["text"]
        .as_str()
        .unwrap()
        .contains("0x5c2ff28dd840, {4,1,1}"));
    assert_eq!(log["apis"]["hipMalloc"]["max_us"], 367);
    let p = &log["problems"][0];
    assert_eq!(p["status"], "fail");
    assert!(p["known_issues"]
        .to_string()
        .contains("clr-bundle-magic-nul"));
    assert!(p["fix"].as_str().unwrap().contains("rocm-doctor inspect"));
}

#[test]
fn rocm_7_2_no_device_and_device_failure() {
    let (doc, code) = log_json(&fixture("rocm-5924-7.2.0.log"));
    assert_eq!(code, 1);
    assert_eq!(doc["log"]["agents_enumerated"], 3);
    assert_eq!(doc["log"]["pids"][0], 307076);
    assert_eq!(doc["log"]["threads"][0]["tid"], "0x7f195a24d400");
    assert_eq!(doc["log"]["device_failures"].as_array().unwrap().len(), 1);
    assert_eq!(
        doc["log"]["apis"]["hipGetDeviceCount"]["errors"]["hipErrorNoDevice"]["count"],
        1
    );
    // Agents were enumerated: device creation failed, not the runtime's initialisation.
    assert!(!doc["log"]["problems"].to_string().contains("initialis"));
}

#[test]
fn level_3_without_pid_crlf_and_missing_code_object() {
    let (doc, _) = log_json(&fixture("mivisionx-1437-crlf.log"));
    let log = &doc["log"];
    assert_eq!(log["crlf_lines"], 3);
    assert_eq!(log["code_objects"]["missing"]["gfx1030"]["count"], 1);
    assert_eq!(log["apis"]["hipLaunchKernel"]["max_us"], 4603);
    assert!(log["notes"].to_string().contains("pid tid"));
}

#[test]
fn cannot_find_co_per_library_and_fatal_line() {
    let (doc, code) = log_json(&fixture("rocm-4208-6.2.1.log"));
    assert_eq!(code, 1);
    let log = &doc["log"];
    assert_eq!(
        log["code_objects"]["missing_in"]["amdgcn-amd-amdhsa--gfx90a:sramecc+:xnack-"][0],
        "/opt/rocm-6.2.1/lib/libMIOpen.so.1.0.60201"
    );
    assert_eq!(log["fatal"].as_array().unwrap().len(), 1);
    // init's hipErrorNoBinaryForGpu is per module: a warning, not a failure.
    let init = log["problems"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["summary"].as_str().unwrap().starts_with("init"))
        .unwrap();
    assert_eq!(init["status"], "warn");
}

#[test]
fn gzip_zstd_and_stdin_give_the_same_summary() {
    let plain = std::fs::read(fixture("seed000-rocm-6.2.2.log")).unwrap();
    let t = tempfile::tempdir().unwrap();
    let gz = t.path().join("a.log.gz");
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    e.write_all(&plain).unwrap();
    std::fs::write(&gz, e.finish().unwrap()).unwrap();
    let zst = t.path().join("a.log.zst");
    std::fs::write(&zst, zstd::encode_all(&plain[..], 3).unwrap()).unwrap();
    let (p, _) = log_json(&fixture("seed000-rocm-6.2.2.log"));
    for (f, name) in [(&gz, "gzip"), (&zst, "zstd")] {
        let (d, _) = log_json(f);
        assert_eq!(d["log"]["compression"], name);
        assert_eq!(d["log"]["apis"], p["log"]["apis"]);
        assert_eq!(d["log"]["lines"], p["log"]["lines"]);
    }
    let out = doctor()
        .args(["log", "-", "--json"])
        .write_stdin(std::fs::read(&zst).unwrap())
        .output()
        .unwrap();
    let d = json_of(&out);
    assert_eq!(d["log"]["apis"], p["log"]["apis"]);
}

#[test]
fn hostile_input_is_a_report_not_a_crash() {
    let t = tempfile::tempdir().unwrap();
    let f = t.path().join("bad.log");
    let mut b = Vec::new();
    b.extend_from_slice(&std::fs::read(fixture("seed000-rocm-6.2.2.log")).unwrap());
    b.extend_from_slice(b"\x00\x01\x02\xff\xfe binary garbage\n");
    b.extend(std::iter::repeat_n(b'x', 1 << 20));
    b.push(b'\n');
    b.extend(std::iter::repeat_n(b'y', 5 << 20)); // longer than the read buffer
    b.push(b'\n');
    b.extend_from_slice(b":3:hip_module.cpp           :678 : 89870474190 us: [pid:1089444 tid:0x76cc16cb11c0] hipLaunch");
    std::fs::write(&f, &b).unwrap();
    let (doc, code) = log_json(&f);
    assert_eq!(code, 1);
    let log = &doc["log"];
    assert_eq!(log["lines"], 14);
    assert_eq!(log["binary_lines"], 1);
    assert_eq!(log["long_lines"], 2);
    assert_eq!(log["truncated_last_line"], true);
    let out = doctor().arg("log").arg(&f).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stdout).contains("hipErrorInvalidDeviceFunction"));
    let out = doctor()
        .args(["log", "/nonexistent/x.log"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn parallel_regions_equal_one_sequential_pass() {
    let t = tempfile::tempdir().unwrap();
    let f = t.path().join("gen.log");
    let out = doctor()
        .args(["gen-log", "--iterations", "300"])
        .output()
        .unwrap();
    let mut data = out.stdout;
    // Several processes appended, and the seed-000 excerpt in the middle.
    data.extend_from_slice(&std::fs::read(fixture("seed000-rocm-6.2.2.log")).unwrap());
    data.extend_from_slice(&std::fs::read(fixture("rocm-5924-7.2.0.log")).unwrap());
    std::fs::write(&f, &data).unwrap();
    let mut seq = Summary::default();
    read::scan_reader(&data[..], &mut seq).unwrap();
    let file = std::fs::File::open(&f).unwrap();
    for threads in [2, 3, 7] {
        let par = read::scan_plain_regions(&file, data.len() as u64, threads, 1000).unwrap();
        assert_same_summary(&par, &seq, &format!("{threads} regions"));
        assert_eq!(par.kernels, seq.kernels);
        let a: Vec<_> = par
            .threads
            .values()
            .map(|t| (t.lines, t.last.back().map(|l| l.line)))
            .collect();
        let b: Vec<_> = seq
            .threads
            .values()
            .map(|t| (t.lines, t.last.back().map(|l| l.line)))
            .collect();
        assert_eq!(a, b);
    }
    assert_eq!(seq.kernel_launches, 300 * 7);
    assert_eq!(
        seq.threads
            .keys()
            .map(|k| k.0)
            .collect::<std::collections::BTreeSet<_>>()
            .len(),
        3
    );
}

#[test]
fn human_view_fits_a_screen() {
    let out = doctor()
        .args(["gen-log", "--iterations", "50"])
        .output()
        .unwrap();
    let t = tempfile::tempdir().unwrap();
    let f = t.path().join("g.log");
    std::fs::write(&f, out.stdout).unwrap();
    let out = doctor().arg("log").arg(&f).output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.lines().count() <= 50, "{text}");
    assert!(text.contains("8x gfx942:xnack-"), "{text}");
    assert!(text.contains("KernelExecution"), "{text}");
}

/// ROCr's fault line names a KFD topology node (`"Memory access fault by GPU node-%u (Agent
/// handle: %p) on address %p%s. Reason: %s.\n"`, rocm-systems `runtime.cpp`): the doctor names
/// that node's GPU from the machine's topology (here a gfx1030 fixture sysroot), and says so
/// when the machine has no such node.
#[test]
fn rocr_memory_fault_node_named_from_the_topology() {
    let t = tempfile::tempdir().unwrap();
    let f = t.path().join("fault.log");
    std::fs::write(
        &f,
        ":3:hip_module.cpp           :825 : 38362003003 us: [pid:309675 tid: 0x73e30402f6c0] \u{1b}[32m hipLaunchKernel ( 0x1, {7,1,1}, {256,1,1}, 0x2, 0, stream:0x3 ) \u{1b}[0m\n\
Memory access fault by GPU node-1 (Agent handle: 0x55d1c3a0b2c0) on address 0x7f0000000000. Reason: Page not present or supervisor privilege.\n",
    )
    .unwrap();
    let sysroots = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/sysroots");
    let run = |root: &std::path::Path| {
        let out = doctor()
            .arg("log")
            .arg(&f)
            .args(["--json", "--sysroot"])
            .arg(root)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(1));
        let doc = json_of(&out);
        let p = doc["log"]["problems"]
            .as_array()
            .cloned()
            .unwrap_or_default();
        let fatal = p
            .iter()
            .find(|p| p["summary"].as_str().unwrap_or("").contains("node-1"))
            .cloned()
            .unwrap_or_else(|| panic!("no fatal problem in {doc}"));
        fatal["diagnosis"].as_str().unwrap_or("").to_string()
    };
    let d = run(&sysroots.join("gfx1030-dgpu"));
    assert!(
        d.contains("KFD node 1 is gfx1030 at PCI 0000:03:00.0"),
        "{d}"
    );
    // The 8x MI210 capture has two CPU nodes (0, 1) before its GPUs: this log is not from there.
    let d = run(&sysroots.join("k8s-mi210x8-gfx90a-xgmi"));
    assert!(d.contains("KFD node 1 is a CPU"), "{d}");
    // A root without amdgpu: no topology to read.
    let d = run(t.path());
    assert!(d.contains("no KFD topology"), "{d}");
}

/// Lines of `n` bytes (without the newline) that look like the runtime's, numbered.
fn runtime_line(i: usize, n: usize) -> Vec<u8> {
    let head = format!(
        ":3:hip_module.cpp           :825 : {i} us: [pid:7 tid: 0x{:x}] hipLaunchKernel ( 0x1 ) ",
        1 + i % 3
    );
    let mut l = head.into_bytes();
    l.resize(n.max(l.len()), b'a');
    l
}

#[test]
fn over_long_lines_are_cut_alike_by_every_reader() {
    // A line is cut to its first 4 MiB (the reader's buffer) whichever reader sees it: the
    // one-pass stream reader, or the parallel reader whose regions start at line starts
    // anywhere. Over-long lines sit just under, at and over that size and over twice it, and
    // the file ends with an over-long line without a newline (data A) or a short one (data B).
    const BUF: usize = 4 << 20;
    let t = tempfile::tempdir().unwrap();
    let mut a = Vec::new();
    let mut i = 0;
    let mut push = |d: &mut Vec<u8>, n: usize, nl: bool| {
        d.extend_from_slice(&runtime_line(i, n));
        if nl {
            d.push(b'\n');
        }
        i += 1;
    };
    for n in [BUF - 1, BUF, BUF + 1, 9 << 20] {
        for k in 0..20_000 {
            push(&mut a, 120 + k % 300, true);
        }
        push(&mut a, n, true);
    }
    let mut b = a.clone();
    push(&mut a, BUF + 5, false);
    push(&mut b, 77, false);
    for (name, data) in [("a", a), ("b", b)] {
        let path = t.path().join(name);
        std::fs::write(&path, &data).unwrap();
        let mut seq = Summary::default();
        read::scan_reader(&data[..], &mut seq).unwrap();
        assert_eq!(seq.lines, 80_005, "data {name}");
        assert_eq!(
            seq.long_lines,
            if name == "a" { 5 } else { 4 },
            "data {name}"
        );
        assert_eq!(seq.truncated_last_line, name == "b");
        let f = std::fs::File::open(&path).unwrap();
        for threads in [2, 3, 5] {
            let par = read::scan_plain_regions(&f, data.len() as u64, threads, 1).unwrap();
            assert_same_summary(&par, &seq, &format!("data {name}, {threads} regions"));
        }
    }
}

/// A real runtime's log of a failed initialisation (tests/fixtures/logs/SOURCE.md: Debian's
/// HIP 5.2.3, 5.7.1 and 6.4.3 running programs/hip-init.hip on a machine without /dev/kfd).
struct RealInit {
    file: &'static str,
    /// The pid the log prints (none at level 3 on 6.4).
    pid: Option<u64>,
    /// The failed calls the problem lists, in order (empty at level 1: no API trace).
    calls: &'static [&'static str],
    /// Whether the runtime printed `hsa_init failed` (HIP 6.4.3 never does).
    said: bool,
}

const NO_DEVICE_5_7_6_4: &[&str] = &[
    "hipGetDeviceCount -> hipErrorNoDevice",
    "hipSetDevice -> hipErrorNoDevice",
    "hipMalloc -> hipErrorNoDevice",
    "__hipPushCallConfiguration -> hipErrorNoDevice",
    "hipDeviceSynchronize -> hipErrorNoDevice",
    "hipFree -> hipErrorNoDevice",
];
const NO_DEVICE_5_2: &[&str] = &[
    "hipGetDeviceCount -> hipErrorNoDevice",
    "hipSetDevice -> hipErrorInvalidDevice",
    "hipMalloc -> hipErrorInvalidDevice",
    "__hipPushCallConfiguration -> hipErrorInvalidDevice",
    "hipDeviceSynchronize -> hipErrorInvalidDevice",
    "hipFree -> hipErrorInvalidDevice",
];

const REAL_INIT: &[RealInit] = &[
    RealInit {
        file: "hip-5.2.3-bookworm-level1.log",
        pid: Some(30897),
        calls: &[],
        said: true,
    },
    RealInit {
        file: "hip-5.2.3-bookworm-level3.log",
        pid: Some(30899),
        calls: NO_DEVICE_5_2,
        said: true,
    },
    RealInit {
        file: "hip-5.2.3-bookworm-level4.log",
        pid: Some(30901),
        calls: NO_DEVICE_5_2,
        said: true,
    },
    RealInit {
        file: "hip-5.2.3-bookworm-level5.log",
        pid: Some(30903),
        calls: NO_DEVICE_5_2,
        said: true,
    },
    RealInit {
        file: "hip-5.7.1-trixie-level1.log",
        pid: Some(30958),
        calls: &[],
        said: true,
    },
    RealInit {
        file: "hip-5.7.1-trixie-level3.log",
        pid: Some(30963),
        calls: NO_DEVICE_5_7_6_4,
        said: true,
    },
    RealInit {
        file: "hip-5.7.1-trixie-level4.log",
        pid: Some(30968),
        calls: NO_DEVICE_5_7_6_4,
        said: true,
    },
    RealInit {
        file: "hip-5.7.1-trixie-level5.log",
        pid: Some(30973),
        calls: NO_DEVICE_5_7_6_4,
        said: true,
    },
    RealInit {
        file: "hip-6.4.3-sid-level3.log",
        pid: None,
        calls: NO_DEVICE_5_7_6_4,
        said: false,
    },
    RealInit {
        file: "hip-6.4.3-sid-level4.log",
        pid: Some(31021),
        calls: NO_DEVICE_5_7_6_4,
        said: false,
    },
    RealInit {
        file: "hip-6.4.3-sid-level5.log",
        pid: Some(31026),
        calls: NO_DEVICE_5_7_6_4,
        said: false,
    },
];

#[test]
fn real_runtimes_failed_init_is_a_failure_with_its_cause() {
    for r in REAL_INIT {
        let (doc, code) = log_json(&fixture(r.file));
        let log = &doc["log"];
        let what = format!("{}: {log}", r.file);
        assert_eq!(code, 1, "{what}");
        // Every line is the runtime's, in the 5.0-5.6, 5.7-6.2 or 6.4 prefix.
        assert_eq!(log["foreign_lines"], 0, "{what}");
        assert_eq!(log["runtime_lines"], log["lines"], "{what}");
        match r.pid {
            Some(pid) => {
                assert_eq!(log["pids"], serde_json::json!([pid]), "{what}");
                assert_eq!(log["threads"].as_array().unwrap().len(), 1, "{what}");
            }
            None => assert_eq!(log["pids"], serde_json::json!([]), "{what}"),
        }
        let p = &log["problems"][0];
        let summary = p["summary"].as_str().unwrap();
        assert_eq!(p["status"], "fail", "{what}");
        assert_eq!(p["first"]["pid"].as_u64(), r.pid, "{what}");
        if r.said {
            assert!(
                summary.starts_with("the HIP runtime could not initialise (\"hsa_init failed.\""),
                "{summary}"
            );
            assert_eq!(p["first"]["text"], "hsa_init failed.", "{what}");
        } else {
            assert!(
                summary.starts_with(
                    "the HIP runtime initialised no GPU (HSA initialisation started at line 1"
                ),
                "{summary}"
            );
        }
        if r.calls.is_empty() {
            assert!(summary.contains("no HIP call traced"), "{summary}");
        } else {
            let listed = summary.split_once("failed calls: ").unwrap().1;
            assert_eq!(listed, r.calls.join(", "), "{what}");
        }
        assert!(
            p["diagnosis"].as_str().unwrap().contains("/dev/kfd"),
            "{what}"
        );
        assert!(p["fix"].as_str().unwrap().contains("gpu.kfd"), "{what}");
        // The failed calls are in the problem, not one problem each.
        assert_eq!(log["problems"].as_array().unwrap().len(), 1, "{what}");
        assert!(!log["notes"].to_string().contains("mid-run"), "{what}");
    }
}

#[test]
fn real_hip_5_2_log_read_in_full() {
    // Debian 12's HIP 5.2.3: `PID: [tid:0xHEX]` lines, the API entry without blanks inside its
    // colour codes, hipGetDeviceCount's return without its call, an init attempt per call.
    let (doc, _) = log_json(&fixture("hip-5.2.3-bookworm-level4.log"));
    let log = &doc["log"];
    assert_eq!(log["threads"][0]["tid"], "0x7f2d97fb8880");
    assert_eq!(log["api_calls"], 6);
    assert_eq!(log["init_starts"], 7);
    assert_eq!(log["init_failures"]["hsa_init failed."]["count"], 7);
    assert_eq!(
        log["init_failures"]["Runtime initialization failed"]["count"],
        7
    );
    assert_eq!(
        log["apis"]["hipMalloc"]["errors"]["hipErrorInvalidDevice"]["first"]["text"],
        "hipMalloc ( 0x7fffb5cb6758, 256 ) -> hipErrorInvalidDevice"
    );
    let out = doctor()
        .arg("log")
        .arg(fixture("hip-5.2.3-bookworm-level4.log"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("processes 1 · threads 1"), "{text}");
    assert!(
        text.contains("first at line 2 (pid 30901): hsa_init failed."),
        "{text}"
    );
    assert!(!text.contains("[✓]"), "{text}");
}

#[test]
fn real_hip_6_4_level_1_prints_nothing() {
    // HIP 6.4.3 that cannot initialise is silent at AMD_LOG_LEVEL=1: nothing to judge, and the
    // note says which level shows it.
    let (doc, code) = log_json(&fixture("hip-6.4.3-sid-level1.log"));
    assert_eq!(code, 0);
    assert_eq!(doc["log"]["lines"], 0);
    assert!(doc["log"]["notes"]
        .to_string()
        .contains("HIP 6.4 prints nothing at AMD_LOG_LEVEL=1"));
}

/// `log` on kernel text: dmesg and journalctl lines (both timestamp styles) are read as a kernel
/// log, each amdgpu/KFD event reported with the cause the symptom catalogue gives its line.
#[test]
fn a_kernel_log_is_read_as_one_in_both_timestamp_styles() {
    let dir = tempfile::tempdir().unwrap();
    // Lines from ROCm/ROCm#1214 (dmesg) and ROCm/ROCm#2232, as `journalctl -k` prints them.
    let dmesg = dir.path().join("dmesg.txt");
    std::fs::write(
        &dmesg,
        "[    7.026427] kfd kfd: amdgpu: skipped device 1002:67df, PCI rejects atomics\n",
    )
    .unwrap();
    let journal = dir.path().join("journal.txt");
    std::fs::write(
        &journal,
        "Nov 25 10:00:03 node kernel: kfd kfd: amdgpu: PITCAIRN  not supported in kfd\n",
    )
    .unwrap();
    for (file, symptom) in [
        (&dmesg, "kfd-pci-atomics"),
        (&journal, "kfd-asic-not-supported"),
    ] {
        let out = crate::common::doctor()
            .args(["--json", "log"])
            .arg(file)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(1), "{out:?}");
        let doc = crate::common::json_of(&out);
        let ev = &doc["kernel_log"]["events"][0];
        assert_eq!(ev["failure"], true, "{doc:#}");
        assert_eq!(ev["symptom"]["id"], symptom, "{doc:#}");
    }
}

//! Issue 25, item 7 (the part on determinism, reaping and caps): `merge` picks the same report
//! for a host reported twice whatever the thread timing, and names both files; a probe's
//! descendant that leaves its process group with `setsid` dies with the doctor (killed or not)
//! and is named; `log` says when a cap is hit and never overflows; a truncated `.gz` log still
//! gets a summary; `inspect` says where it stopped descending.

use crate::common::{doctor, json_of, run_json, write_script};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

// ---------------------------------------------------------------------------------------
// merge: a host reported twice

fn report(host: &str, fail: u64) -> String {
    serde_json::json!({
        "schema_version": rocm_doctor::report::json::SCHEMA_VERSION,
        "tool": {"name": "rocm-doctor"},
        "host": host,
        "exit_code": if fail > 0 { 1 } else { 0 },
        "summary": {"warn": 0, "fail": fail, "error": 0},
        "findings": if fail > 0 {
            serde_json::json!([{"id": "gpu.visible", "status": "fail", "summary": "no GPU"}])
        } else {
            serde_json::json!([])
        },
    })
    .to_string()
}

/// Two reports for host `twice` (one failing, one healthy) among 40 files, so that worker
/// threads race for them: every merge, in either argument order, keeps the first in input
/// order and names both files, in JSON and in the human view.
#[test]
fn merge_keeps_the_first_report_in_input_order_and_names_both() {
    let dir = tempfile::tempdir().unwrap();
    let a = dir.path().join("a-twice.json");
    let b = dir.path().join("b-twice.json");
    std::fs::write(&a, report("twice", 1)).unwrap();
    std::fs::write(&b, report("twice", 0)).unwrap();
    let mut fillers = Vec::new();
    for i in 0..38 {
        let f = dir.path().join(format!("filler-{i:02}.json"));
        std::fs::write(&f, report(&format!("node-{i:02}"), 0)).unwrap();
        fillers.push(f);
    }
    for (first, second, want) in [(&a, &b, "fail"), (&b, &a, "ok")] {
        for round in 0..12 {
            // The two reports at both ends of the list: two workers take them.
            let mut args = vec![first.clone()];
            args.extend(fillers.iter().cloned());
            args.push(second.clone());
            let mut c = doctor();
            c.arg("merge").arg("--json").args(&args);
            let out = c.output().unwrap();
            let doc = json_of(&out);
            let in_status = |s: &str| {
                doc["nodes"][s]
                    .as_array()
                    .is_some_and(|l| l.iter().any(|h| h == "twice"))
            };
            assert!(
                in_status(want),
                "round {round}: the report of {} was not the one used: {doc:#}",
                first.display()
            );
            assert_eq!(doc["reports"], 39, "round {round}");
            let dups: Vec<&serde_json::Value> = doc["notes"]
                .as_array()
                .unwrap()
                .iter()
                .filter(|n| n["kind"] == "duplicate")
                .collect();
            assert_eq!(dups.len(), 1, "{doc:#}");
            assert_eq!(dups[0]["source"], second.display().to_string(), "{doc:#}");
            assert_eq!(dups[0]["kept"], first.display().to_string(), "{doc:#}");
        }
        let out = doctor()
            .arg("merge")
            .arg(first)
            .arg(second)
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&out.stdout);
        let line = text
            .lines()
            .find(|l| l.contains("duplicate"))
            .unwrap_or_else(|| panic!("no duplicate line:\n{text}"));
        assert!(
            line.contains(&*first.to_string_lossy()) && line.contains(&*second.to_string_lossy()),
            "both files are named: {line}"
        );
    }
}

// ---------------------------------------------------------------------------------------
// Probe descendants that leave their process group

/// Waits up to 5 s for the sleepers to go; kills and names any left.
fn assert_gone(secs: &str, what: &str) {
    let t = Instant::now();
    while !crate::common::sleepers(secs).is_empty() && t.elapsed() < Duration::from_secs(5) {
        std::thread::sleep(Duration::from_millis(20));
    }
    let left = crate::common::sleepers(secs);
    for p in &left {
        let _ = nix::sys::signal::kill(
            nix::unistd::Pid::from_raw(*p),
            nix::sys::signal::Signal::SIGKILL,
        );
    }
    assert!(left.is_empty(), "{what}: processes left behind: {left:?}");
}

/// A clang wrapper that starts `sleep SECS` in a session of its own (out of the probe's
/// process group; `setsid` execs in place when not a group leader, util-linux setsid(1)),
/// touches `mark`, then either hangs or exits.
fn escaping_clang(dir: &Path, secs: &str, hang: bool) -> (std::path::PathBuf, std::path::PathBuf) {
    let mark = dir.join("started");
    let clang = dir.join("clang");
    write_script(
        &clang,
        &format!(
            "#!/bin/sh\nsetsid sleep {secs} </dev/null >/dev/null 2>&1 &\ntouch '{}'\n{}",
            mark.display(),
            if hang {
                "sleep 86399\n"
            } else {
                "echo 'clang version 15.0.6'\nexit 0\n"
            }
        ),
    );
    (clang, mark)
}

#[test]
fn a_setsid_descendant_dies_with_a_doctor_killed_by_sigkill() {
    crate::common::need_tool("setsid").expect("setsid (util-linux)");
    let secs = "86421";
    let dir = tempfile::tempdir().unwrap();
    let (clang, mark) = escaping_clang(dir.path(), secs, true);
    let mut doctor = Command::new(env!("CARGO_BIN_EXE_rocm-doctor"))
        .env_clear()
        .env("PATH", "/usr/bin:/bin")
        .env("TMPDIR", std::env::temp_dir())
        .args(["--json", "--only", "toolchain.clang", "--clang"])
        .arg(&clang)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let t0 = Instant::now();
    while !(mark.exists() && crate::common::sleepers(secs).len() == 1) {
        assert!(
            t0.elapsed() < Duration::from_secs(30),
            "the probe never started its escapee"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    nix::sys::signal::kill(
        nix::unistd::Pid::from_raw(doctor.id() as i32),
        nix::sys::signal::Signal::SIGKILL,
    )
    .unwrap();
    let _ = doctor.wait();
    assert_gone(secs, "doctor killed with SIGKILL");
}

#[test]
fn a_normal_run_kills_and_names_what_a_probe_left_running() {
    crate::common::need_tool("setsid").expect("setsid (util-linux)");
    let secs = "86422";
    let dir = tempfile::tempdir().unwrap();
    let (clang, mark) = escaping_clang(dir.path(), secs, false);
    let out = doctor()
        .args(["--json", "--only", "toolchain.clang", "--clang"])
        .arg(&clang)
        .output()
        .unwrap();
    assert!(mark.exists(), "the probe ran");
    // Gone when the doctor returns, not only some time later (the doctor swept before it
    // printed its report).
    let left_at_exit = crate::common::sleepers(secs);
    assert_gone(secs, "normal run");
    assert!(left_at_exit.is_empty(), "alive at exit: {left_at_exit:?}");
    let doc = json_of(&out);
    let left = doc["leftover_processes"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    assert!(
        left.iter()
            .any(|l| l["name"] == "sleep" && l.get("error").is_none()),
        "the report names the killed process: {:#}",
        doc["leftover_processes"]
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("killed process") && stderr.contains("(sleep)"),
        "{stderr}"
    );
}

// ---------------------------------------------------------------------------------------
// log: caps said, sums that cannot overflow, truncated .gz

fn runtime_line(ts: u64, tid: u64, body: &str) -> String {
    format!(":3:hip_memory.cpp           :100 : {ts:010} us: [pid:7     tid: 0x{tid:x}] {body}\n")
}

#[test]
fn log_durations_that_would_overflow_saturate() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("huge.log");
    let mut text = String::new();
    for i in 0..3 {
        text.push_str(&runtime_line(
            1000 + i,
            1,
            "hipMalloc: Returned hipSuccess : : duration: 18446744073709551615 us",
        ));
    }
    std::fs::write(&p, text).unwrap();
    let (doc, code) = run_json([std::ffi::OsStr::new("log"), p.as_os_str()], &[]);
    assert_eq!(code, 0, "{doc:#}");
    let a = &doc["log"]["apis"]["hipMalloc"];
    assert_eq!(a["timed"], 3, "{doc:#}");
    assert_eq!(a["total_us"], u64::MAX, "{doc:#}");
}

#[test]
fn log_says_when_the_thread_cap_is_hit() {
    let cap = rocm_doctor::logscan::summary::MAX_THREADS as u64;
    let extra = 300u64;
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("threads.log");
    let mut text = String::new();
    for t in 0..cap + extra {
        // Two lines per thread.
        for k in 0..2 {
            text.push_str(&runtime_line(
                1000 + 2 * t + k,
                t + 1,
                "\x1b[32m hipMalloc ( 0x1, 64 ) \x1b[0m",
            ));
        }
    }
    std::fs::write(&p, &text).unwrap();
    let (doc, _) = run_json([std::ffi::OsStr::new("log"), p.as_os_str()], &[]);
    let log = &doc["log"];
    assert_eq!(log["threads"].as_array().map(Vec::len), Some(cap as usize));
    assert_eq!(log["untracked_threads"], extra, "{:#}", log["notes"]);
    assert_eq!(log["untracked_thread_lines"], 2 * extra);
    assert_eq!(
        log["api_calls"],
        2 * (cap + extra),
        "totals count every line"
    );
    let notes = log["notes"].to_string();
    assert!(
        notes.contains(&format!("{cap} threads shown")) && notes.contains("300 more not tracked"),
        "{notes}"
    );
    let out = doctor().arg("log").arg(&p).output().unwrap();
    let human = String::from_utf8_lossy(&out.stdout);
    assert!(human.contains("300 more not tracked"), "{human}");
}

#[test]
fn a_truncated_gz_log_is_summarised_up_to_where_it_ends() {
    use std::io::Write;
    let dir = tempfile::tempdir().unwrap();
    let mut text = String::new();
    for i in 0..20_000u64 {
        text.push_str(&runtime_line(
            1000 + i,
            1 + i % 4,
            &format!("\x1b[32m hipMalloc ( 0x{i:x}, 64 ) \x1b[0m"),
        ));
    }
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    e.write_all(text.as_bytes()).unwrap();
    let gz = e.finish().unwrap();
    let p = dir.path().join("cut.log.gz");
    std::fs::write(&p, &gz[..gz.len() / 2]).unwrap();
    let (doc, code) = run_json([std::ffi::OsStr::new("log"), p.as_os_str()], &[]);
    let log = &doc["log"];
    let lines = log["lines"].as_u64().unwrap_or(0);
    assert!(
        lines > 100 && lines < 20_000,
        "partial summary: {lines} lines"
    );
    let err = log["read_error"].as_str().unwrap_or_default();
    assert!(
        err.starts_with("unexpected end of gzip stream after "),
        "{err:?}"
    );
    assert_eq!(code, 2, "a log read in part is not a clean bill");
    let out = doctor().arg("log").arg(&p).output().unwrap();
    let human = String::from_utf8_lossy(&out.stdout);
    assert!(
        human.contains("reading stopped early: unexpected end of gzip stream"),
        "{human}"
    );
}

// ---------------------------------------------------------------------------------------
// inspect: the walk's depth limit is said

#[test]
fn inspect_says_which_directories_it_did_not_descend() {
    let dir = tempfile::tempdir().unwrap();
    let mut deep = dir.path().to_path_buf();
    for _ in 0..70 {
        deep.push("d");
    }
    std::fs::create_dir_all(&deep).unwrap();
    let (doc, _) = run_json(
        [
            std::ffi::OsStr::new("inspect"),
            std::ffi::OsStr::new("--isa"),
            std::ffi::OsStr::new("gfx90a"),
            dir.path().as_os_str(),
        ],
        &[],
    );
    let nd = &doc["inspect"]["not_descended"];
    assert_eq!(nd["max_depth"], 64, "{doc:#}");
    assert_eq!(nd["count"], 1);
    let first = nd["dirs"][0].as_str().unwrap_or_default();
    assert_eq!(first.matches("/d").count(), 64, "{first}");
    let out = doctor()
        .args(["inspect", "--isa", "gfx90a"])
        .arg(dir.path())
        .output()
        .unwrap();
    let human = String::from_utf8_lossy(&out.stdout);
    assert!(
        human.contains("1 directories deeper than 64 levels not descended"),
        "{human}"
    );
}

//! Earlier boots: the journal's boot table and per-boot output (real shapes, quoted from the
//! threads named at each test), rotated files split at the boot lines, and every way a source
//! can fail (absent, damaged, a gzip bomb, a hung journalctl). The fixture sysroots
//! (tests/fixtures/sysroots/kernlog-history-*) are read in tests/kernlog.rs.

use super::*;
use crate::host::{Env, Limits};
use std::io::Write;
use std::path::PathBuf;

fn host_on(root: &Path, per_call: Duration) -> Host {
    Host::new(
        root.to_path_buf(),
        Env::default(),
        Limits::new(per_call, Duration::from_secs(60)),
    )
}

fn write(root: &Path, rel: &str, bytes: &[u8]) -> PathBuf {
    let p = root.join(rel);
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(&p, bytes).unwrap();
    p
}

fn gz(bytes: &[u8]) -> Vec<u8> {
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    e.write_all(bytes).unwrap();
    e.finish().unwrap()
}

/// A boot banner as printk prints it first (init/version.c `linux_banner`; version invented).
fn banner(wall: &str) -> String {
    format!("{wall} n1 kernel: [    0.000000] Linux version 6.8.0-45-generic (buildd@lcy02-amd64-075) #45-Ubuntu SMP PREEMPT_DYNAMIC\n")
}

/// A reset as github.com/pop-os/pop/issues/2132 quotes it from /var/log/syslog (traditional
/// format; the host, which the paste trimmed, added).
fn reset(wall: &str) -> String {
    format!(
        "{wall} n1 kernel: [37937.169164] amdgpu 0000:03:00.0: amdgpu: GPU reset begin!\n\
         {wall} n1 kernel: [37937.845178] amdgpu 0000:03:00.0: amdgpu: MODE1 reset\n"
    )
}

// --- journalctl --list-boots -------------------------------------------------------------

#[test]
fn list_boots_reads_the_table_with_a_header() {
    // systemd 251+, quoted in github.com/systemd/systemd/issues/28981 (Fedora 37).
    let t = "IDX BOOT ID                          FIRST ENTRY                 LAST ENTRY                 \n \
             -2 2ee7853b07a44e708cb2dc15a3ea2ad6 Mon 2023-09-25 19:48:13 UTC Fri 2023-08-25 20:01:31 UTC\n \
             -1 cd425eeb66eb46e591aabf0e5824e5cb Fri 2023-08-25 20:05:50 UTC Sat 2023-08-26 21:27:06 UTC\n  \
             0 48accb1d370e43eb911b3bb1a3c5a92c Sat 2023-08-26 21:30:07 UTC Sat 2023-08-26 21:39:44 UTC\n";
    let b = parse_list_boots(t);
    assert_eq!(b.len(), 3, "{b:?}");
    assert_eq!(b[1].offset, -1);
    assert_eq!(b[1].id, "cd425eeb66eb46e591aabf0e5824e5cb");
    assert_eq!(b[1].first.as_deref(), Some("Fri 2023-08-25 20:05:50 UTC"));
    assert_eq!(b[1].last.as_deref(), Some("Sat 2023-08-26 21:27:06 UTC"));
}

#[test]
fn list_boots_reads_the_old_em_dash_table() {
    // systemd < 251, quoted in github.com/systemd/systemd/issues/17326 (Debian, 246.6).
    let t = "-2 9ed946320a354306b6d94071198f130b Mon 2020-10-12 21:43:58 CEST—Mon 2020-10-12 21:45:42 CEST\n\
             -1 132fe52e87384afaa4ef83afa967a982 Mon 2020-10-12 21:46:33 CEST—Mon 2020-10-12 21:55:27 CEST\n \
             0 bde6e48dd6084030856f26129514ee03 Mon 2020-10-12 21:56:18 CEST—Mon 2020-10-12 21:56:36 CEST\n";
    let b = parse_list_boots(t);
    assert_eq!(b.iter().map(|x| x.offset).collect::<Vec<_>>(), [-2, -1, 0]);
    assert_eq!(b[0].first.as_deref(), Some("Mon 2020-10-12 21:43:58 CEST"));
    assert_eq!(b[0].last.as_deref(), Some("Mon 2020-10-12 21:45:42 CEST"));
}

#[test]
fn list_boots_skips_what_is_not_a_row() {
    // journalctl's words without a journal (this machine: "No journal files were found.").
    assert!(parse_list_boots("No journal files were found.\n").is_empty());
    assert!(parse_list_boots("-1 not-a-boot-id Mon\n 0 short 1\n\u{0}\u{ff}garbage").is_empty());
}

// --- journalctl, run ---------------------------------------------------------------------

/// A sysroot whose PATH holds a stand-in `journalctl` shell script with `body`.
fn fake_journalctl(body: &str, per_call: Duration) -> (tempfile::TempDir, Host) {
    use std::os::unix::fs::PermissionsExt;
    let t = tempfile::tempdir().unwrap();
    let script = write(
        t.path(),
        "usr/bin/journalctl",
        format!("#!/bin/sh\n{body}").as_bytes(),
    );
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    let mut host = Host::new(
        t.path().to_path_buf(),
        Env::from_pairs([("PATH", "/usr/bin")]),
        Limits::new(per_call, Duration::from_secs(60)),
    );
    // A foreign root's programs are not run unless asked (docs/security.md item 3); the stand-in
    // is a script for this machine's /bin/sh.
    host.run_root_programs_from_outside();
    (t, host)
}

/// `--list-boots` as systemd 251+ prints it, then per boot id the kernel lines of
/// github.com/pop-os/cosmic-comp/issues/2684 and pop-os/pop#2132 in short-monotonic shape (the
/// second's device set to the first's).
const JOURNAL: &str = r#"case "$*" in
*--list-boots*) cat <<'OUT'
IDX BOOT ID                          FIRST ENTRY                 LAST ENTRY
 -3 0b6f1c2e9a7d4e55b1c0d2f3a4b5c6d7 Mon 2024-07-29 08:00:01 CEST Mon 2024-07-29 18:00:00 CEST
 -2 1c7a2d3e4f5a4b6c8d9e0f1a2b3c4d5e Tue 2024-07-30 08:00:01 CEST Tue 2024-07-30 18:00:00 CEST
 -1 2d8b3e4f5a6b4c7d9e0f1a2b3c4d5e6f Wed 2024-07-31 08:00:01 CEST Wed 2024-07-31 10:40:00 CEST
  0 3e9c4f5a6b7c4d8e0f1a2b3c4d5e6f70 Wed 2024-07-31 10:41:12 CEST Wed 2024-07-31 11:00:00 CEST
OUT
;;
*2d8b3e4f5a6b4c7d9e0f1a2b3c4d5e6f*) cat <<'OUT'
[    0.000000] popcorn kernel: Linux version 6.9.3-76060903-generic
[ 8661.203311] popcorn kernel: amdgpu 0000:28:00.0: ring gfx_0.0.0 timeout, signaled seq=210245, emitted seq=210247
[ 8661.203318] popcorn kernel: amdgpu 0000:28:00.0:  Process cosmic-comp pid 6481 thread cosmic-com:cs0 pid 6521
[ 8661.203322] popcorn kernel: amdgpu 0000:28:00.0: Starting gfx_0.0.0 ring reset
[ 8661.203590] popcorn kernel: amdgpu 0000:28:00.0: Ring gfx_0.0.0 reset succeeded
OUT
;;
*1c7a2d3e4f5a4b6c8d9e0f1a2b3c4d5e*) cat <<'OUT'
-- No entries --
OUT
;;
*0b6f1c2e9a7d4e55b1c0d2f3a4b5c6d7*) cat <<'OUT'
[37937.169164] popcorn kernel: amdgpu 0000:28:00.0: amdgpu: GPU reset begin!
[37937.845178] popcorn kernel: amdgpu 0000:28:00.0: amdgpu: MODE1 reset
OUT
;;
esac
"#;

#[test]
fn journal_boots_are_read_by_id_newest_first() {
    let (_t, host) = fake_journalctl(JOURNAL, Duration::from_secs(5));
    let h = read_journal_history(&host, 4).unwrap_or_else(|e| panic!("{e:?}"));
    let offsets: Vec<i64> = h.boots.iter().map(|b| b.offset).collect();
    assert_eq!(offsets, [-1, -2, -3]);
    assert_eq!(
        h.boots[0].id.as_deref(),
        Some("2d8b3e4f5a6b4c7d9e0f1a2b3c4d5e6f")
    );
    assert_eq!(
        h.boots[0].first.as_deref(),
        Some("Wed 2024-07-31 08:00:01 CEST")
    );
    let kinds: Vec<EventKind> = h.boots[0].events.iter().map(|e| e.kind).collect();
    assert_eq!(kinds, [EventKind::RingTimeout], "{:?}", h.boots[0].events);
    assert!(h.boots[1].events.is_empty());
    assert_eq!(h.boots[2].events[0].kind, EventKind::GpuResetBegin);
    // Per GPU: this boot clean, -1 a ring timeout, -3 a reset.
    let g = per_gpu([], &h.boots);
    assert_eq!(g.len(), 1);
    assert_eq!(g[0].serious_boots, [-1, -3]);
    assert_eq!(
        describe(&g[0], 4),
        "0000:28:00.0: ring timeout and GPU reset in 2 of the last 4 boots (boots -1, -3), none in this one"
    );
}

#[test]
fn journal_reads_no_more_boots_than_asked() {
    let (_t, host) = fake_journalctl(JOURNAL, Duration::from_secs(5));
    let h = read_journal_history(&host, 1).unwrap();
    assert_eq!(h.boots.len(), 1);
    assert_eq!(h.boots[0].offset, -1);
}

#[test]
fn a_volatile_journal_with_one_boot_says_so() {
    let (_t, host) = fake_journalctl(
        "cat <<'OUT'\nIDX BOOT ID                          FIRST ENTRY                 LAST ENTRY\n  0 48accb1d370e43eb911b3bb1a3c5a92c Sat 2023-08-26 21:30:07 UTC Sat 2023-08-26 21:39:44 UTC\nOUT\n",
        Duration::from_secs(5),
    );
    let (src, why) = read_journal_history(&host, 4).unwrap_err();
    assert_eq!(src, "journalctl --list-boots --no-pager");
    assert!(why.contains("only this boot"), "{why}");
}

#[test]
fn no_journal_files_is_a_reason_not_an_error() {
    // journalctl's own words on a machine without a journal (this one).
    let (_t, host) = fake_journalctl(
        "echo 'No journal files were found.' >&2\nexit 1\n",
        Duration::from_secs(5),
    );
    let (_, why) = read_journal_history(&host, 4).unwrap_err();
    assert!(why.contains("No journal files were found"), "{why}");
}

#[test]
fn a_hung_journalctl_is_stopped_by_its_timeout() {
    let (_t, host) = fake_journalctl("exec sleep 30\n", Duration::from_millis(500));
    let start = std::time::Instant::now();
    let (_, why) = read_journal_history(&host, 4).unwrap_err();
    assert!(
        start.elapsed() < Duration::from_secs(10),
        "{:?}",
        start.elapsed()
    );
    assert!(
        why.contains("timed out") || why.contains("timeout"),
        "{why}"
    );
}

#[test]
fn a_boot_read_that_hangs_ends_the_journal_reading() {
    // The table answers, the first boot's read hangs: no further boot is tried.
    let body = JOURNAL.replace(
        "*2d8b3e4f5a6b4c7d9e0f1a2b3c4d5e6f*) cat <<'OUT'",
        "*2d8b3e4f5a6b4c7d9e0f1a2b3c4d5e6f*) exec sleep 30; cat <<'OUT'",
    );
    let (_t, host) = fake_journalctl(&body, Duration::from_millis(500));
    let start = std::time::Instant::now();
    let (_, why) = read_journal_history(&host, 4).unwrap_err();
    assert!(
        start.elapsed() < Duration::from_secs(5),
        "{:?}",
        start.elapsed()
    );
    assert!(why.contains("earlier boots not read"), "{why}");
}

// --- rotated files -----------------------------------------------------------------------

#[test]
fn rotated_files_are_split_at_the_boot_lines() {
    let t = tempfile::tempdir().unwrap();
    // kern.log.2.gz: boot -2 with a reset; kern.log.1: boot -1, clean; kern.log: this boot.
    let old = banner("Jan 20 08:00:00") + &reset("Jan 20 12:00:00");
    write(t.path(), "var/log/kern.log.2.gz", &gz(old.as_bytes()));
    write(
        t.path(),
        "var/log/kern.log.1",
        banner("Jan 21 08:00:00").as_bytes(),
    );
    write(
        t.path(),
        "var/log/kern.log",
        (banner("Jan 22 08:00:00") + &reset("Jan 22 09:00:00")).as_bytes(),
    );
    let host = host_on(t.path(), Duration::from_secs(5));
    let h = read_history(&host, 5).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        h.source,
        "/var/log/kern.log, /var/log/kern.log.1, /var/log/kern.log.2.gz"
    );
    let offsets: Vec<i64> = h.boots.iter().map(|b| b.offset).collect();
    assert_eq!(offsets, [-1, -2]);
    assert!(h.boots[0].events.is_empty());
    assert_eq!(h.boots[1].events.len(), 1, "{:?}", h.boots[1].events);
    assert_eq!(h.boots[1].first.as_deref(), Some("Jan 20 08:00:00"));
    assert!(!h.boots[1].partial);
    assert!(h.notes.iter().any(|n| n.contains("taken as this one")));
}

#[test]
fn enough_banners_stop_the_reading_of_older_files() {
    let t = tempfile::tempdir().unwrap();
    write(
        t.path(),
        "var/log/kern.log.1",
        (banner("Jan 21 08:00:00") + &reset("Jan 21 09:00:00")).as_bytes(),
    );
    write(
        t.path(),
        "var/log/kern.log",
        banner("Jan 22 08:00:00").as_bytes(),
    );
    // Damaged: would be noted if it were read.
    write(t.path(), "var/log/kern.log.2.gz", b"not gzip");
    let host = host_on(t.path(), Duration::from_secs(5));
    let h = read_history(&host, 2).unwrap();
    assert_eq!(h.boots.len(), 1);
    assert!(
        !h.notes.iter().any(|n| n.contains("kern.log.2.gz")),
        "{:?}",
        h.notes
    );
}

#[test]
fn a_command_line_after_its_banner_is_the_same_boot() {
    let text =
        "[    0.000000] Linux version 6.8.0 (b@h) #1\n[    0.000000] Command line: ro quiet\n\
                [   10.000000] amdgpu 0000:05:00.0: amdgpu: GPU reset succeeded, trying to resume\n\
                [    0.000000] Command line: ro quiet\n";
    let boots = split_boots(kept_lines(text.as_bytes()));
    // The banner and its command line open one boot; the lone command line (a log that lost
    // the banner) opens the next.
    assert_eq!(boots.len(), 2, "{boots:?}");
    assert_eq!(boots[0].1.len(), 3);
    assert!(!boots[0].0);
}

#[test]
fn lines_before_the_first_marker_are_a_partial_boot() {
    let t = tempfile::tempdir().unwrap();
    // The oldest file begins inside a boot (its banner rotated away).
    write(
        t.path(),
        "var/log/kern.log.1",
        (reset("Jan 21 09:00:00") + &banner("Jan 22 08:00:00")).as_bytes(),
    );
    write(
        t.path(),
        "var/log/kern.log",
        b"Jan 22 09:00:00 n1 kernel: [ 3600.0] usb 1-1: new device\n",
    );
    let host = host_on(t.path(), Duration::from_secs(5));
    let h = read_history(&host, 5).unwrap();
    assert_eq!(h.boots.len(), 1);
    assert_eq!(h.boots[0].offset, -1);
    assert!(h.boots[0].partial);
    assert_eq!(h.boots[0].events.len(), 1);
}

#[test]
fn no_boot_marker_means_no_earlier_boot() {
    let t = tempfile::tempdir().unwrap();
    write(
        t.path(),
        "var/log/kern.log",
        reset("Jan 22 09:00:00").as_bytes(),
    );
    let host = host_on(t.path(), Duration::from_secs(5));
    let e = read_history(&host, 5).unwrap_err();
    assert_eq!(e.attempts.len(), 1);
    assert!(e.attempts[0].1.starts_with("no boot marker"), "{e}");
}

#[test]
fn absent_files_are_said() {
    let t = tempfile::tempdir().unwrap();
    let host = host_on(t.path(), Duration::from_secs(5));
    let e = read_history(&host, 5).unwrap_err();
    assert_eq!(e.attempts[0].0, KERN_LOG);
    assert!(e.attempts[0].1.starts_with("ENOENT"), "{e}");
    assert!(e.to_string().starts_with("no earlier boot could be read"));
}

#[test]
fn a_directory_where_a_log_should_be_is_refused_not_read() {
    // Unsupported: not a regular file (the safe open refuses it at once).
    let t = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(t.path().join("var/log/kern.log")).unwrap();
    let host = host_on(t.path(), Duration::from_secs(5));
    let e = read_history(&host, 5).unwrap_err();
    assert!(!e.attempts[0].1.is_empty());
    assert!(!e.attempts[0].1.starts_with("ENOENT"), "{e}");
}

#[test]
fn a_corrupt_gzip_ends_the_history_with_a_note() {
    let t = tempfile::tempdir().unwrap();
    write(
        t.path(),
        "var/log/kern.log.2.gz",
        b"\x1f\x8b\x08\x00garbage that is not deflate",
    );
    write(
        t.path(),
        "var/log/kern.log.1",
        (banner("Jan 21 08:00:00") + &reset("Jan 21 09:00:00")).as_bytes(),
    );
    write(
        t.path(),
        "var/log/kern.log",
        banner("Jan 22 08:00:00").as_bytes(),
    );
    let host = host_on(t.path(), Duration::from_secs(5));
    let h = read_history(&host, 5).unwrap();
    assert_eq!(h.boots.len(), 1, "{:?}", h.boots);
    assert!(
        h.notes
            .iter()
            .any(|n| n.starts_with("/var/log/kern.log.2.gz not read: not a readable gzip file")),
        "{:?}",
        h.notes
    );
}

#[test]
fn a_truncated_gzip_keeps_what_came_before() {
    let t = tempfile::tempdir().unwrap();
    let mut data = gz((banner("Jan 20 08:00:00") + &reset("Jan 20 12:00:00"))
        .repeat(400)
        .as_bytes());
    data.truncate(data.len() * 2 / 3);
    let p = write(t.path(), "var/log/kern.log.1.gz", &data);
    let host = host_on(t.path(), Duration::from_secs(5));
    let (bytes, note) = read_log_end(&host, Path::new("/var/log/kern.log.1.gz")).unwrap();
    assert!(!bytes.is_empty());
    assert!(note.is_some_and(|n| n.contains("damaged")), "{p:?}");
}

#[test]
fn a_gzip_bomb_stops_at_the_cap() {
    let t = tempfile::tempdir().unwrap();
    // 96 MiB of log lines compress to well under 1 MiB: more than the decompression cap.
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    let line = b"Jan 20 08:00:00 n1 kernel: [   1.000000] filler line of a runaway log\n";
    let chunk = line.repeat((1 << 20) / line.len());
    for _ in 0..96 {
        e.write_all(&chunk).unwrap();
    }
    write(t.path(), "var/log/kern.log.1.gz", &e.finish().unwrap());
    let host = host_on(t.path(), Duration::from_secs(5));
    let (bytes, note) = read_log_end(&host, Path::new("/var/log/kern.log.1.gz")).unwrap();
    assert!(
        bytes.len() as u64 <= MAX_HISTORY_FILE_BYTES,
        "{}",
        bytes.len()
    );
    let note = note.unwrap();
    assert!(
        note.contains("decompressed only the first 64 MiB"),
        "{note}"
    );
    // Whole lines only: the cut line was dropped.
    assert!(bytes.starts_with(b"Jan 20"));
}

#[test]
fn a_large_plain_file_is_read_from_its_end() {
    let t = tempfile::tempdir().unwrap();
    let filler = b"Jan 20 08:00:00 n1 kernel: [   1.000000] filler\n"
        .repeat(((MAX_HISTORY_FILE_BYTES + (1 << 20)) / 48) as usize);
    let mut text = banner("Jan 19 08:00:00").into_bytes();
    text.extend_from_slice(&filler);
    text.extend_from_slice(banner("Jan 21 08:00:00").as_bytes());
    text.extend_from_slice(reset("Jan 21 09:00:00").as_bytes());
    text.extend_from_slice(banner("Jan 22 08:00:00").as_bytes());
    write(t.path(), "var/log/kern.log", &text);
    let host = host_on(t.path(), Duration::from_secs(5));
    let h = read_history(&host, 5).unwrap();
    // The first banner was beyond the cap: boot -2 is partial (its start not kept).
    assert_eq!(
        h.boots.iter().map(|b| b.offset).collect::<Vec<_>>(),
        [-1, -2]
    );
    assert!(h.boots[1].partial);
    assert_eq!(h.boots[0].events.len(), 1);
    assert!(
        h.notes.iter().any(|n| n.contains("read the last 16 MiB")),
        "{:?}",
        h.notes
    );
}

#[test]
fn boots_below_two_read_nothing() {
    let t = tempfile::tempdir().unwrap();
    let host = host_on(t.path(), Duration::from_secs(5));
    let e = read_history(&host, 1).unwrap_err();
    assert_eq!(e.attempts[0].0, "--boots");
}

// --- per GPU ---------------------------------------------------------------------------

fn boot(offset: i64, text: &str) -> Boot {
    let lines = crate::kernlog::parse_text(text.as_bytes());
    Boot {
        offset,
        id: None,
        first: None,
        last: None,
        partial: false,
        lines: lines.len(),
        events: amdgpu_events(&lines).into_iter().map(|(_, e)| e).collect(),
    }
}

#[test]
fn the_previous_boot_only_reads_as_such() {
    let earlier = [boot(-1, &reset("Jan 21 09:00:00"))];
    let g = per_gpu([], &earlier);
    assert_eq!(
        describe(&g[0], 2),
        "0000:03:00.0: GPU reset in the previous boot, none in this one"
    );
    assert_eq!(g[0].boots[0].boot, -1);
    assert_eq!(g[0].boots[0].counts.get("gpu-reset-begin"), Some(&1));
}

#[test]
fn an_event_without_a_device_joins_the_only_gpu_of_its_boot() {
    // pop-os/pop#2132: the ring timeout names no device, the reset does.
    let text = "Feb  2 08:03:20 n1 kernel: [37937.168911] [drm:amdgpu_job_timedout [amdgpu]] *ERROR* ring gfx_0.0.0 timeout, signaled seq=228661, emitted seq=228662\n\
                Feb  2 08:03:20 n1 kernel: [37937.169164] amdgpu 0000:03:00.0: amdgpu: GPU reset begin!\n";
    let g = per_gpu([], &[boot(-1, text)]);
    assert_eq!(g.len(), 1, "{g:?}");
    assert_eq!(g[0].device, "0000:03:00.0");
    assert_eq!(g[0].what, ["ring timeout", "GPU reset"]);
    // Two GPUs in the boot: the device-less event stays unknown.
    let two = format!(
        "{text}Feb  2 08:03:21 n1 kernel: [37938.0] amdgpu 0000:43:00.0: amdgpu: GPU reset begin!\n"
    );
    let g = per_gpu([], &[boot(-1, &two)]);
    assert!(g.iter().any(|x| x.device == "unknown"), "{g:?}");
}

#[test]
fn json_has_per_gpu_per_boot_counts() {
    let h = History {
        source: "x".into(),
        boots: vec![boot(-1, &reset("Jan 21 09:00:00"))],
        notes: vec![],
    };
    let v = to_json([], &Ok(h), 5);
    assert_eq!(v["boots_asked"], 5);
    assert_eq!(v["gpus"][0]["device"], "0000:03:00.0");
    assert_eq!(v["gpus"][0]["boots"][0]["boot"], -1);
    assert_eq!(v["gpus"][0]["boots"][0]["counts"]["gpu-reset-begin"], 1);
    assert_eq!(v["earlier_boots"][0]["offset"], -1);
    let none = to_json(
        [],
        &Err(NoHistory {
            attempts: vec![("a".into(), "b".into())],
        }),
        5,
    );
    assert_eq!(none["unavailable"][0]["why"], "b");
}

#[test]
fn the_live_machine_answers_or_says_why() {
    // Whatever this machine keeps (its journal, its kern.log): boots or reasons, never a panic.
    match read_history(&Host::local(), DEFAULT_BOOTS) {
        Ok(h) => {
            eprintln!(
                "{}: {} earlier boot(s); {:?}",
                h.source,
                h.boots.len(),
                h.notes
            );
            assert!(h.boots.len() < DEFAULT_BOOTS);
            assert!(h.boots.iter().all(|b| b.offset < 0));
        }
        Err(e) => {
            eprintln!("{e}");
            assert!(!e.attempts.is_empty());
        }
    }
}

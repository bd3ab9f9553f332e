//! The kernel log of earlier boots (issue 26, item 2): what amdgpu said before the last reboot,
//! per GPU and per boot, read where the system keeps it. No state file: only what the journal or
//! the rotated rsyslog files still hold.
//!
//! Sources, in order (docs/kernlog.md, "Earlier boots"):
//! 1. On this machine only (never a `--sysroot`'s or `--host-root`'s program: docs/security.md
//!    item 3), a persistent journal: `journalctl --list-boots` (its table, journalctl(1)), then
//!    `journalctl -k -b <BOOT-ID> -o short-monotonic` for each earlier boot, newest first. Each call
//!    goes through `Host::run` (timeout, output capped by the runner); the first call that times
//!    out ends the journal reading.
//! 2. rsyslog's files as logrotate names them: `/var/log/kern.log`, `kern.log.1`, `kern.log.2.gz`,
//!    ... (`.N` or `.N.gz`), newest first, until enough boot markers were seen. Each file is read
//!    from its end, at most [`MAX_HISTORY_FILE_BYTES`]; a `.gz` file is decompressed to at most
//!    [`MAX_DECOMPRESSED_BYTES`] (a gzip bomb stops there, said in a note), keeping its last
//!    [`MAX_HISTORY_FILE_BYTES`]. The lines are split into boots at the boot lines
//!    ([`super::source::is_boot_marker`]); the last boot in the files is this one (rsyslog writes
//!    while the machine runs), the earlier ones are numbered -1, -2, ... as journalctl does.
//!
//! Only boot markers and the lines [`classify`] knows are kept from each file (the events and
//! their detail lines), so memory stays small whatever the files hold.

use super::parse::{parse_text, Format, KernelLine};
use super::source::is_boot_marker;
use super::{amdgpu_events, classify, Event, EventKind};
use crate::host::{io_error_text, CommandSpec, Host};
use serde::Serialize;
use std::collections::BTreeMap;
use std::io::{Read, Seek, SeekFrom};
use std::path::Path;
use std::time::Duration;

/// Boots read by default in the fleet modes (`--npd`, `--prometheus`) and by `--boots` without
/// a value of its own: this one and four earlier.
pub(crate) const DEFAULT_BOOTS: usize = 5;

/// The most boots `--boots` accepts.
pub(crate) const MAX_BOOTS: usize = 50;

/// A GPU whose hangs, resets or uncorrectable errors were seen in this many boots of the window
/// escalates to `drain-and-inspect`: the node was rebooted twice and the GPU failed again. The
/// same threshold as gpud's XID component, which suggests a reboot until two reboots did not
/// clear the error and then asks for hardware inspection (leptonai/gpud,
/// components/accelerator/nvidia/xid, `DefaultRebootThreshold = 2`).
pub(crate) const ESCALATE_BOOTS: usize = 3;

/// At most this much of the end of each log file is kept.
pub(crate) const MAX_HISTORY_FILE_BYTES: u64 = 16 << 20;

/// A compressed file is decompressed to at most this much (a gzip bomb stops here).
pub(crate) const MAX_DECOMPRESSED_BYTES: u64 = 64 << 20;

/// At most this much of a compressed file is read.
const MAX_COMPRESSED_BYTES: u64 = 16 << 20;

/// Rotated files looked for: `kern.log.1` ... `kern.log.N` (logrotate keeps 4 by default on
/// Debian and Ubuntu, `rotate 4` in /etc/logrotate.d/rsyslog).
const MAX_ROTATIONS: usize = 10;

const JOURNAL_TIMEOUT: Duration = Duration::from_secs(10);

/// The rsyslog file of kernel messages (Debian, Ubuntu: `kern.*  -/var/log/kern.log`).
pub(crate) const KERN_LOG: &str = "/var/log/kern.log";

/// One earlier boot.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct Boot {
    /// 0 is this boot, -1 the one before, as journalctl numbers them.
    pub offset: i64,
    /// The journal's boot id, when read from the journal.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    /// The first and last times the source gives for the boot (as printed).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub first: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last: Option<String>,
    /// The boot's start is not in what was read (the oldest file begins inside it, or a file
    /// was read only in part).
    pub partial: bool,
    /// amdgpu/KFD lines kept for this boot.
    pub lines: usize,
    /// The boot's events, folded as for this boot ([`amdgpu_events`]).
    #[serde(skip)]
    pub events: Vec<Event>,
}

/// The earlier boots that could be read, newest first.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct History {
    /// Where they came from (`journalctl ...` or the files read).
    pub source: String,
    pub boots: Vec<Boot>,
    /// Sources that failed before this one, files read in part, caps reached, missing markers.
    pub notes: Vec<String>,
}

/// No earlier boot could be read: each source and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub(crate) struct NoHistory {
    pub attempts: Vec<(String, String)>,
}

impl std::fmt::Display for NoHistory {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let tried: Vec<String> = self
            .attempts
            .iter()
            .map(|(s, why)| format!("{s}: {why}"))
            .collect();
        write!(f, "no earlier boot could be read ({})", tried.join("; "))
    }
}

/// Reads up to `boots - 1` earlier boots (module docs). `boots` < 2 reads nothing.
pub(crate) fn read_history(host: &Host, boots: usize) -> Result<History, NoHistory> {
    let earlier = boots.clamp(1, MAX_BOOTS) - 1;
    let mut attempts = Vec::new();
    if earlier == 0 {
        attempts.push(("--boots".to_string(), "asks for this boot only".to_string()));
        return Err(NoHistory { attempts });
    }
    if host.fs.is_own_machine() {
        match read_journal_history(host, earlier) {
            Ok(h) => return Ok(h),
            Err(a) => attempts.push(a),
        }
    }
    match read_file_history(host, Path::new(KERN_LOG), earlier) {
        Ok(mut h) => {
            let mut notes: Vec<String> = attempts
                .iter()
                .map(|(s, why)| format!("{s} not used: {why}"))
                .collect();
            notes.append(&mut h.notes);
            h.notes = notes;
            Ok(h)
        }
        Err(a) => {
            attempts.push(a);
            Err(NoHistory { attempts })
        }
    }
}

/// One row of `journalctl --list-boots`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ListedBoot {
    pub offset: i64,
    pub id: String,
    pub first: Option<String>,
    pub last: Option<String>,
}

/// The rows of `journalctl --list-boots`, in both shapes journalctl has printed (journalctl(1);
/// captures in tests): since systemd 251 a header `IDX BOOT ID FIRST ENTRY LAST ENTRY` and the
/// two times in columns, before it no header and the times joined by an em dash
/// (` -1 cd42... Fri 2023-08-25 20:05:50 UTC—Sat 2023-08-26 21:27:06 UTC`). Other lines (the
/// header, warnings) are skipped.
pub(crate) fn parse_list_boots(text: &str) -> Vec<ListedBoot> {
    let mut out = Vec::new();
    for line in text.lines() {
        let mut it = line.split_whitespace();
        let (Some(idx), Some(id)) = (it.next(), it.next()) else {
            continue;
        };
        let Ok(offset) = idx.parse::<i64>() else {
            continue;
        };
        if id.len() != 32 || !id.bytes().all(|b| b.is_ascii_hexdigit()) {
            continue;
        }
        let rest: Vec<&str> = it.collect();
        let rest = rest.join(" ");
        let (first, last) = match rest.split_once('—') {
            Some((a, b)) => (a.trim().to_string(), b.trim().to_string()),
            None => {
                let w: Vec<&str> = rest.split(' ').collect();
                let half = w.len() / 2;
                (w[..half].join(" "), w[half..].join(" "))
            }
        };
        let some = |s: String| (!s.is_empty()).then_some(s);
        out.push(ListedBoot {
            offset,
            id: id.to_string(),
            first: some(first),
            last: some(last),
        });
    }
    out
}

fn journal_spec(host: &Host, prog: &Path, args: &[&str]) -> CommandSpec {
    CommandSpec::new(prog)
        .args(args)
        .env("SYSTEMD_COLORS", "0")
        .env("LC_ALL", "C")
        .timeout(JOURNAL_TIMEOUT.min(host.limits().per_call))
}

/// Earlier boots from the journal, or (source, why) when it has none to give.
pub(crate) fn read_journal_history(
    host: &Host,
    earlier: usize,
) -> Result<History, (String, String)> {
    const LIST: [&str; 2] = ["--list-boots", "--no-pager"];
    let src = format!("journalctl {}", LIST.join(" "));
    let Some(prog) = host.which("journalctl") else {
        return Err((src, "journalctl is not in PATH".into()));
    };
    let out = host.run(&journal_spec(host, &prog, &LIST));
    if out.spawn_error.is_some() || out.timed_out {
        return Err((src, out.outcome()));
    }
    let listed = parse_list_boots(&out.stdout_text());
    if listed.is_empty() {
        let said = out.stderr_tail(2);
        let why = if said.trim().is_empty() {
            format!("{}: no boot listed", out.outcome())
        } else {
            format!("no boot listed ({})", said.trim())
        };
        return Err((src, why));
    }
    let mut older: Vec<&ListedBoot> = listed.iter().filter(|b| b.offset < 0).collect();
    older.sort_by_key(|b| std::cmp::Reverse(b.offset));
    older.truncate(earlier);
    if older.is_empty() {
        return Err((
            src,
            format!(
                "the journal holds only this boot ({} listed): it is not persistent here \
                    (Storage=volatile, or no /var/log/journal)",
                listed.len()
            ),
        ));
    }
    let mut boots = Vec::new();
    let mut notes = Vec::new();
    for b in older {
        let args = ["-k", "-b", &b.id, "-o", "short-monotonic", "--no-pager"];
        let out = host.run(&journal_spec(host, &prog, &args));
        let cmd = format!("journalctl {}", args.join(" "));
        if out.spawn_error.is_some() || out.timed_out {
            notes.push(format!("{cmd}: {}; earlier boots not read", out.outcome()));
            break;
        }
        if out.truncated {
            notes.push(format!(
                "{cmd} printed more than the doctor reads; the boot's end is missing"
            ));
        }
        let lines: Vec<KernelLine> = parse_text(&out.stdout)
            .into_iter()
            .filter(|l| l.format == Format::JournalMonotonic && l.is_kernel())
            .filter(|l| classify(l).is_some())
            .collect();
        if !out.success() && lines.is_empty() {
            notes.push(format!("{cmd}: {}: {}", out.outcome(), out.stderr_tail(1)));
            continue;
        }
        let events = amdgpu_events(&lines).into_iter().map(|(_, e)| e).collect();
        boots.push(Boot {
            offset: b.offset,
            id: Some(b.id.clone()),
            first: b.first.clone(),
            last: b.last.clone(),
            partial: out.truncated,
            lines: lines.len(),
            events,
        });
    }
    if boots.is_empty() {
        return Err((src, notes.join("; ")));
    }
    Ok(History {
        source: "journalctl -k -b <boot> -o short-monotonic".into(),
        boots,
        notes,
    })
}

/// The rotated names of `base`, newest first: `base`, `base.1`, `base.2.gz`, ...
fn rotated(host: &Host, base: &Path) -> Vec<std::path::PathBuf> {
    let mut out = vec![base.to_path_buf()];
    for n in 1..=MAX_ROTATIONS {
        let plain = std::path::PathBuf::from(format!("{}.{n}", base.display()));
        let gz = std::path::PathBuf::from(format!("{}.{n}.gz", base.display()));
        if host.fs.symlink_metadata(&plain).is_ok() {
            out.push(plain);
        } else if host.fs.symlink_metadata(&gz).is_ok() {
            out.push(gz);
        } else {
            break;
        }
    }
    out
}

/// The end of one log file (decompressed when it ends in `.gz`), at most
/// [`MAX_HISTORY_FILE_BYTES`], and whether its start was cut.
pub(crate) fn read_log_end(host: &Host, path: &Path) -> Result<(Vec<u8>, Option<String>), String> {
    let mut f = host.fs.open(path).map_err(|e| io_error_text(&e))?;
    let gz = path.extension().is_some_and(|e| e == "gz");
    if !gz {
        let len = f.metadata().map(|m| m.len()).unwrap_or(0);
        let mut cut = None;
        if len > MAX_HISTORY_FILE_BYTES {
            f.seek(SeekFrom::Start(len - MAX_HISTORY_FILE_BYTES))
                .map_err(|e| io_error_text(&e))?;
            cut = Some(format!(
                "read the last {} MiB of {} MiB",
                MAX_HISTORY_FILE_BYTES >> 20,
                len >> 20
            ));
        }
        let mut bytes = Vec::new();
        f.take(MAX_HISTORY_FILE_BYTES)
            .read_to_end(&mut bytes)
            .map_err(|e| io_error_text(&e))?;
        return Ok((drop_cut_line(bytes, cut.is_some()), cut));
    }
    // Streamed: only the last MAX_HISTORY_FILE_BYTES of the output are kept, and the output stops
    // at MAX_DECOMPRESSED_BYTES whatever the input claims.
    let input = f.take(MAX_COMPRESSED_BYTES);
    let mut dec = flate2::read::MultiGzDecoder::new(input);
    let keep = MAX_HISTORY_FILE_BYTES as usize;
    let mut buf = vec![0u8; 64 << 10];
    let mut out: Vec<u8> = Vec::new();
    let (mut total, mut dropped) = (0u64, false);
    loop {
        let n = match dec.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => {
                if total == 0 {
                    return Err(format!("not a readable gzip file ({e})"));
                }
                // Keep what decompressed before the damage; say so.
                let note = format!(
                    "gzip data damaged after {} KiB ({e}); kept what came before",
                    total >> 10
                );
                return Ok((drop_cut_line(out, dropped), Some(note)));
            }
        };
        total += n as u64;
        out.extend_from_slice(&buf[..n]);
        if out.len() > 2 * keep {
            out.drain(..out.len() - keep);
            dropped = true;
        }
        if total >= MAX_DECOMPRESSED_BYTES {
            if out.len() > keep {
                out.drain(..out.len() - keep);
            }
            let note = format!(
                "decompressed only the first {} MiB (the doctor's cap), kept their last {} MiB",
                MAX_DECOMPRESSED_BYTES >> 20,
                MAX_HISTORY_FILE_BYTES >> 20
            );
            return Ok((drop_cut_line(out, true), Some(note)));
        }
    }
    let mut cut = None;
    if out.len() > keep {
        out.drain(..out.len() - keep);
        dropped = true;
    }
    if dropped {
        cut = Some(format!(
            "kept the last {} MiB of {} MiB decompressed",
            MAX_HISTORY_FILE_BYTES >> 20,
            total >> 20
        ));
    }
    Ok((drop_cut_line(out, dropped), cut))
}

/// Without the first (partial) line when the start was cut.
fn drop_cut_line(mut bytes: Vec<u8>, cut: bool) -> Vec<u8> {
    if cut {
        match memchr::memchr(b'\n', &bytes) {
            Some(i) => {
                bytes.drain(..=i);
            }
            None => bytes.clear(),
        }
    }
    bytes
}

/// A boot marker line that starts a new boot here: a `Linux version` banner always; a
/// `Command line:` line unless it follows the banner of its own boot.
fn starts_boot(prev: Option<&KernelLine>, l: &KernelLine) -> bool {
    if !is_boot_marker(l) {
        return false;
    }
    if l.text.starts_with("Linux version ") {
        return true;
    }
    !prev.is_some_and(|p| p.is_kernel() && p.text.starts_with("Linux version "))
}

/// The kept lines (markers and amdgpu lines) of `text`, and whether it held a boot marker.
fn kept_lines(text: &[u8]) -> Vec<KernelLine> {
    parse_text(text)
        .into_iter()
        .filter(|l| is_boot_marker(l) || (l.is_kernel() && classify(l).is_some()))
        .collect()
}

/// Lines in time order split into boots: the first chunk (before any marker) is a boot whose
/// start is missing, unless empty.
pub(crate) fn split_boots(lines: Vec<KernelLine>) -> Vec<(bool, Vec<KernelLine>)> {
    let mut out: Vec<(bool, Vec<KernelLine>)> = vec![(true, Vec::new())];
    for l in lines {
        let new = {
            let cur = &out.last().expect("one boot").1;
            starts_boot(cur.last(), &l)
        };
        if new {
            out.push((false, Vec::new()));
        }
        out.last_mut().expect("one boot").1.push(l);
    }
    if out[0].1.is_empty() {
        out.remove(0);
    }
    out
}

/// What the rotated files gave: their lines oldest first, the files read, notes on cuts and
/// files not read, and whether the oldest file read was cut.
struct FileLines {
    lines: Vec<KernelLine>,
    read: Vec<String>,
    notes: Vec<String>,
    cut_oldest: bool,
}

/// Reads `base` and its rotated files, newest first, until `earlier + 1` boot banners were
/// seen (the oldest needs its own banner to be whole) or a file cannot be read; Err when not
/// even `base` can.
fn read_rotated(host: &Host, base: &Path, earlier: usize) -> Result<FileLines, String> {
    let mut chunks: Vec<Vec<KernelLine>> = Vec::new();
    let mut notes = Vec::new();
    let mut read = Vec::new();
    let mut markers = 0usize;
    let mut cut_oldest = false;
    for path in rotated(host, base) {
        let name = path.display().to_string();
        match read_log_end(host, &path) {
            Ok((bytes, cut)) => {
                let lines = kept_lines(&bytes);
                markers += lines
                    .iter()
                    .filter(|l| l.text.starts_with("Linux version "))
                    .count();
                if let Some(c) = &cut {
                    notes.push(format!("{name}: {c}"));
                }
                cut_oldest = cut.is_some();
                read.push(name);
                chunks.push(lines);
            }
            Err(why) => {
                if read.is_empty() {
                    return Err(why);
                }
                // An unreadable older file ends the history there.
                notes.push(format!("{name} not read: {why}"));
                break;
            }
        }
        if markers > earlier {
            break;
        }
    }
    Ok(FileLines {
        lines: chunks.into_iter().rev().flatten().collect(),
        read,
        notes,
        cut_oldest,
    })
}

/// One earlier boot's summary: its place before this boot, times, size and amdgpu events.
fn boot_of(offset: i64, partial: bool, lines: &[KernelLine]) -> Boot {
    let events = amdgpu_events(lines).into_iter().map(|(_, e)| e).collect();
    Boot {
        offset,
        id: None,
        first: lines.first().and_then(|l| l.wall.clone()),
        last: lines.last().and_then(|l| l.wall.clone()),
        partial,
        lines: lines.iter().filter(|l| !is_boot_marker(l)).count(),
        events,
    }
}

/// Earlier boots from `base` and its rotated files, or (source, why).
pub(crate) fn read_file_history(
    host: &Host,
    base: &Path,
    earlier: usize,
) -> Result<History, (String, String)> {
    let src = base.display().to_string();
    let FileLines {
        lines,
        read,
        mut notes,
        cut_oldest,
    } = read_rotated(host, base, earlier).map_err(|why| (src.clone(), why))?;
    let mut split = split_boots(lines);
    // The oldest file was cut inside a boot with no amdgpu line kept: still a boot read.
    if cut_oldest && split.first().is_some_and(|(partial, _)| !partial) {
        split.insert(0, (true, Vec::new()));
    }
    if split.len() <= 1 {
        let why = if split.iter().all(|(partial, _)| *partial) {
            format!(
                "no boot marker (`Linux version`) in {}: no reboot in what the files hold",
                read.join(", ")
            )
        } else {
            format!("only this boot in {}", read.join(", "))
        };
        // Why older files were not read belongs to the reason.
        let why = std::iter::once(why)
            .chain(notes)
            .collect::<Vec<_>>()
            .join("; ");
        return Err((src, why));
    }
    // The last boot in the files is this one.
    split.pop();
    if let Some(first) = split.first_mut() {
        first.0 |= cut_oldest;
    }
    let n = split.len();
    let boots: Vec<Boot> = split
        .into_iter()
        .enumerate()
        .rev()
        .take(earlier)
        .map(|(i, (partial, lines))| boot_of(i as i64 - n as i64, partial, &lines))
        .collect();
    notes.push("the last boot in the files is taken as this one".into());
    Ok(History {
        source: read.join(", "),
        boots,
        notes,
    })
}

/// Kinds that count toward escalation: the GPU hung, was reset, lost VRAM, or had an
/// uncorrectable memory error.
pub(crate) fn is_serious(e: &Event) -> bool {
    match e.kind {
        EventKind::RingTimeout
        | EventKind::HwsHang
        | EventKind::GpuResetBegin
        | EventKind::GpuResetSucceeded
        | EventKind::GpuResetFailed
        | EventKind::VramLost => true,
        EventKind::RasEvent => e.is_uncorrected_ras(),
        _ => false,
    }
}

/// Words for an event in a sentence (`ring timeout`, `GPU reset`).
pub(crate) fn words(e: &Event) -> &'static str {
    match e.kind {
        EventKind::RingTimeout => "ring timeout",
        EventKind::HwsHang => "KFD scheduler hang",
        EventKind::GpuResetBegin | EventKind::GpuResetSucceeded => "GPU reset",
        EventKind::GpuResetFailed => "failed GPU reset",
        EventKind::VramLost => "VRAM lost",
        EventKind::VmPageFault => "page fault",
        EventKind::RasEvent if is_serious(e) => "uncorrectable RAS error",
        EventKind::RasEvent => "correctable RAS error",
        EventKind::SmuFailure => "SMU failure",
        EventKind::Throttling => "throttling",
        EventKind::IommuFailure => "IOMMU failure",
        _ => "driver initialisation failure",
    }
}

/// Event counts by kind name.
pub(crate) type Counts = BTreeMap<&'static str, usize>;

/// One boot's events on one GPU.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct BootCounts {
    /// 0 is this boot, -1 the one before.
    pub boot: i64,
    pub counts: Counts,
}

/// One GPU over the boots read.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct GpuHistory {
    /// PCI address, or `unknown` for events that name none.
    pub device: String,
    /// Per boot with events, newest first: counts by kind.
    pub boots: Vec<BootCounts>,
    /// Boots (offsets, newest first) with a hang, reset or uncorrectable error.
    pub serious_boots: Vec<i64>,
    /// Words for what happened, in kind order, each once.
    pub what: Vec<&'static str>,
}

/// Per GPU: what happened in which boot, from this boot's events and the earlier boots'.
pub(crate) fn per_gpu<'a>(
    this_boot: impl IntoIterator<Item = &'a Event>,
    earlier: &'a [Boot],
) -> Vec<GpuHistory> {
    let mut by: BTreeMap<String, BTreeMap<i64, Vec<&Event>>> = BTreeMap::new();
    // An event that names no device (older kernels print `[drm:amdgpu_job_timedout [amdgpu]]
    // *ERROR* ring gfx timeout` without one) belongs to the only GPU the boot's other events
    // name; with several GPUs it stays `unknown`.
    let mut add_boot = |offset: i64, evs: Vec<&'a Event>| {
        let mut named: Vec<&str> = evs.iter().filter_map(|e| e.device.as_deref()).collect();
        named.sort_unstable();
        named.dedup();
        let only = (named.len() == 1).then(|| named[0].to_string());
        for e in evs {
            let dev = e
                .device
                .clone()
                .or_else(|| only.clone())
                .unwrap_or_else(|| "unknown".into());
            by.entry(dev)
                .or_default()
                .entry(offset)
                .or_default()
                .push(e);
        }
    };
    add_boot(0, this_boot.into_iter().collect());
    for b in earlier {
        add_boot(b.offset, b.events.iter().collect());
    }
    by.into_iter()
        .map(|(device, boots)| {
            let mut all: Vec<&Event> = boots.values().flatten().copied().collect();
            all.sort_by_key(|e| e.kind);
            let mut what: Vec<&'static str> = Vec::new();
            for e in &all {
                let w = words(e);
                if !what.contains(&w) {
                    what.push(w);
                }
            }
            let serious_boots = boots
                .iter()
                .rev()
                .filter(|(_, evs)| evs.iter().any(|e| is_serious(e)))
                .map(|(o, _)| *o)
                .collect();
            let boots = boots
                .into_iter()
                .rev()
                .map(|(o, evs)| {
                    let mut c = Counts::new();
                    for e in evs {
                        *c.entry(e.kind.name()).or_default() += 1;
                    }
                    BootCounts { boot: o, counts: c }
                })
                .collect();
            GpuHistory {
                device,
                boots,
                serious_boots,
                what,
            }
        })
        .collect()
}

/// `a`, `a and b`, `a, b and c`.
pub(crate) fn and_list(items: &[&str]) -> String {
    match items {
        [] => String::new(),
        [a] => a.to_string(),
        [init @ .., last] => format!("{} and {last}", init.join(", ")),
    }
}

/// A boot by its offset in words.
pub(crate) fn boot_name(offset: i64) -> String {
    match offset {
        0 => "this boot".into(),
        -1 => "the previous boot".into(),
        o => format!("boot {o}"),
    }
}

/// The sentence for one GPU: `ring timeout and GPU reset in the previous boot, none in this
/// one`; `GPU reset in 3 of the last 5 boots (0, -1, -3)`.
pub(crate) fn describe(g: &GpuHistory, boots_read: usize) -> String {
    let what = and_list(&g.what);
    let offsets: Vec<i64> = g.boots.iter().map(|b| b.boot).collect();
    let here = offsets.contains(&0);
    match offsets.as_slice() {
        [o] if *o != 0 => format!(
            "{}: {what} in {}, none in this one",
            g.device,
            boot_name(*o)
        ),
        [0] => format!(
            "{}: {what} in this boot only (none in the {} earlier boot(s) read)",
            g.device,
            boots_read.saturating_sub(1)
        ),
        _ => {
            let list: Vec<String> = offsets.iter().map(|o| o.to_string()).collect();
            format!(
                "{}: {what} in {} of the last {boots_read} boots (boots {}){}",
                g.device,
                offsets.len(),
                list.join(", "),
                if here { "" } else { ", none in this one" }
            )
        }
    }
}

/// The `inventory.kernel_history` object of `--json` (docs/json.md): the boots asked for, the
/// source, each earlier boot read, and per GPU the event counts per boot (this boot included).
pub(crate) fn to_json<'a>(
    this_boot: impl IntoIterator<Item = &'a Event>,
    history: &'a Result<History, NoHistory>,
    boots_asked: usize,
) -> serde_json::Value {
    match history {
        Ok(h) => {
            let gpus = per_gpu(this_boot, &h.boots);
            serde_json::json!({
                "boots_asked": boots_asked,
                "source": h.source,
                "earlier_boots": h.boots,
                "notes": h.notes,
                "gpus": gpus,
            })
        }
        Err(e) => serde_json::json!({
            "boots_asked": boots_asked,
            "unavailable": e
                .attempts
                .iter()
                .map(|(s, why)| serde_json::json!({"source": s, "why": why}))
                .collect::<Vec<_>>(),
        }),
    }
}

#[cfg(test)]
mod tests;

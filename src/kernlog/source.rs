//! Reading the kernel log of this boot, through the [`Host`] only.
//!
//! Order on the machine itself (sysroot `/`), per the shared reference `amdgpu-health.md` §9:
//! 1. `/dev/kmsg`, opened `O_NONBLOCK` and read one record per `read(2)` from the start of the
//!    ring until `EAGAIN` (`EPIPE` = records overwritten while reading: the position moved on);
//! 2. `journalctl -k -b -o short-monotonic --no-pager` through `Host::run` (timeout, bounded
//!    output);
//! 3. `/var/log/kern.log`, then `/var/log/dmesg`, keeping the lines from the last boot marker on.
//!
//! Under `--sysroot DIR` the live log is this machine's, not the root's, so only files of the
//! root are read: [`FIXTURE_FILE`] (a fixture convention: any text the parser reads, e.g. a
//! `dmesg` or `journalctl -k -b` capture, taken as the log of the boot being diagnosed), then
//! `var/log/kern.log`, then `var/log/dmesg`.
//!
//! No permission is not an error: [`Unavailable`] lists what was tried and how to grant access.

use super::parse::{parse_kmsg_record, parse_text, Format, KernelLine};
use crate::host::{errno_name, io_error_text, CommandSpec, Host};
use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// The fixture file read first under `--sysroot` (documented in docs/kernlog.md).
pub(crate) const FIXTURE_FILE: &str = "/var/log/rocm-doctor-dmesg.txt";

/// At most this much of a log file is read (its end); kern.log can be hundreds of MiB.
pub(crate) const MAX_FILE_BYTES: u64 = 32 << 20;

/// At most this much is read from `/dev/kmsg` (the ring is a few MiB at most).
const MAX_KMSG_BYTES: usize = 64 << 20;

/// kmsg records are at most 8 KiB with their properties (`CONSOLE_EXT_LOG_MAX`); a smaller
/// buffer makes `read(2)` fail with `EINVAL`.
const KMSG_BUF: usize = 16 << 10;

const JOURNAL_TIMEOUT: Duration = Duration::from_secs(10);

/// Where the lines came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Origin {
    Kmsg,
    Journal,
    /// A file, by its machine path.
    File(PathBuf),
}

/// The kernel log of this boot.
#[derive(Debug, Clone)]
pub struct KernelLog {
    pub origin: Origin,
    /// The source as a user would name it (`/dev/kmsg`, the journalctl command, a path).
    pub described: String,
    pub lines: Vec<KernelLine>,
    /// What a reader should know: sources tried first and why they failed, records lost,
    /// where the boot starts in a file, a file read only in part.
    pub notes: Vec<String>,
}

/// One source that could not be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Attempt {
    pub source: String,
    pub why: String,
}

/// No source could be read: what was tried, and how to grant access.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unavailable {
    pub attempts: Vec<Attempt>,
    /// Ways to grant access, most direct first, each once.
    pub grant: Vec<String>,
}

impl std::fmt::Display for Unavailable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let tried: Vec<String> = self
            .attempts
            .iter()
            .map(|a| format!("{}: {}", a.source, a.why))
            .collect();
        write!(f, "the kernel log could not be read ({})", tried.join("; "))?;
        if !self.grant.is_empty() {
            write!(f, "; to grant access: {}", self.grant.join("; or "))?;
        }
        Ok(())
    }
}

struct Failure {
    attempt: Attempt,
    grant: Vec<String>,
}

impl Failure {
    fn new(source: &str, why: impl Into<String>) -> Self {
        Failure {
            attempt: Attempt {
                source: source.to_string(),
                why: why.into(),
            },
            grant: Vec::new(),
        }
    }
    fn grant(mut self, g: impl Into<String>) -> Self {
        self.grant.push(g.into());
        self
    }
}

/// Reads the kernel log of this boot from the first source that answers (module docs).
pub fn read(host: &Host) -> Result<KernelLog, Unavailable> {
    let mut failures: Vec<Failure> = Vec::new();
    let attempt = |r: Result<KernelLog, Failure>, failures: &mut Vec<Failure>| match r {
        Ok(mut log) => {
            let mut notes: Vec<String> = failures
                .iter()
                .map(|f| format!("{} not read: {}", f.attempt.source, f.attempt.why))
                .collect();
            notes.append(&mut log.notes);
            log.notes = notes;
            Some(log)
        }
        Err(f) => {
            failures.push(f);
            None
        }
    };
    // /dev/kmsg and journalctl are this machine's; a fixture or a --host-root tree is read from its files.
    if host.fs.is_own_machine() {
        if let Some(log) = attempt(read_kmsg(host), &mut failures) {
            return Ok(log);
        }
        if let Some(log) = attempt(read_journal(host), &mut failures) {
            return Ok(log);
        }
        for p in ["/var/log/kern.log", "/var/log/dmesg"] {
            if let Some(log) = attempt(read_file(host, Path::new(p)), &mut failures) {
                return Ok(log);
            }
        }
    } else {
        for p in [FIXTURE_FILE, "/var/log/kern.log", "/var/log/dmesg"] {
            if let Some(log) = attempt(read_file(host, Path::new(p)), &mut failures) {
                return Ok(log);
            }
        }
    }
    let mut grant: Vec<String> = Vec::new();
    for g in failures.iter().flat_map(|f| f.grant.iter()) {
        if !grant.contains(g) {
            grant.push(g.clone());
        }
    }
    Err(Unavailable {
        attempts: failures.into_iter().map(|f| f.attempt).collect(),
        grant,
    })
}

fn read_kmsg(host: &Host) -> Result<KernelLog, Failure> {
    const SRC: &str = "/dev/kmsg";
    let mut f = host
        .fs
        .open_nonblocking(Path::new(SRC))
        .map_err(|e| kmsg_open_failure(host, &e))?;
    let mut buf = vec![0u8; KMSG_BUF];
    let mut lines = Vec::new();
    let mut notes = Vec::new();
    let (mut bytes, mut overwritten, mut skipped) = (0usize, 0usize, 0usize);
    loop {
        match f.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => {
                bytes += n;
                match parse_kmsg_record(&buf[..n]) {
                    Some(l) => lines.push(l),
                    None => skipped += 1,
                }
                if bytes > MAX_KMSG_BYTES {
                    notes.push(format!("stopped after {} MiB", MAX_KMSG_BYTES >> 20));
                    break;
                }
            }
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => break,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            // The reader fell behind the writer: the kernel moved the position to the oldest
            // record still held.
            Err(e) if e.raw_os_error() == Some(nix::libc::EPIPE) => {
                overwritten += 1;
                if overwritten > 1000 {
                    notes.push("records kept being overwritten while reading; stopped".into());
                    break;
                }
            }
            Err(e) => {
                if lines.is_empty() {
                    return Err(Failure::new(SRC, io_error_text(&e)));
                }
                notes.push(format!("reading stopped: {}", io_error_text(&e)));
                break;
            }
        }
    }
    if overwritten > 0 {
        notes.push(format!(
            "records were overwritten while reading ({overwritten} times)"
        ));
    }
    if skipped > 0 {
        notes.push(format!("{skipped} records were not in the kmsg format"));
    }
    // Sequence numbers count from 0 at boot: a first record above 0 means the ring no longer
    // holds the start of this boot.
    if let Some(seq) = lines.first().and_then(|l| l.seq).filter(|&s| s > 0) {
        notes.push(format!(
            "the ring starts at record {seq}: the earliest messages of this boot were overwritten"
        ));
    }
    Ok(KernelLog {
        origin: Origin::Kmsg,
        described: SRC.into(),
        lines,
        notes,
    })
}

fn kmsg_open_failure(host: &Host, e: &std::io::Error) -> Failure {
    const SRC: &str = "/dev/kmsg";
    let errno = errno_name(e);
    match errno.as_str() {
        "ENOENT" => Failure::new(SRC, "no such device (containers often have none)").grant(
            "run the doctor on the host, or give the container the device (docker run --device \
                /dev/kmsg)",
        ),
        "EPERM" | "EACCES" => {
            let restrict = host
                .fs
                .read_text(Path::new("/proc/sys/kernel/dmesg_restrict"))
                .ok()
                .map(|s| s.trim().to_string());
            let devkmsg_off = host
                .fs
                .read_text(Path::new("/proc/cmdline"))
                .is_ok_and(|c| c.split_whitespace().any(|w| w == "printk.devkmsg=off"));
            let why = match restrict.as_deref() {
                Some("1") => format!(
                    "{} (kernel.dmesg_restrict = 1: reading needs CAP_SYSLOG)",
                    io_error_text(e)
                ),
                Some(v) => format!("{} (kernel.dmesg_restrict = {v})", io_error_text(e)),
                None => io_error_text(e),
            };
            let mut f = Failure::new(SRC, why);
            if devkmsg_off {
                f.attempt
                    .why
                    .push_str("; the kernel command line has printk.devkmsg=off");
                f = f.grant("boot without printk.devkmsg=off");
            }
            if restrict.as_deref() == Some("1") {
                f = f
                    .grant("run the doctor as root (sudo rocm-doctor ...)")
                    .grant(
                        "allow every user to read the kernel log until reboot: sudo sysctl \
                        kernel.dmesg_restrict=0",
                    );
            }
            f
        }
        _ => Failure::new(SRC, io_error_text(e)),
    }
}

/// journalctl's own words when the system journal is not readable (journalctl(1); real output
/// quoted in the shared reference §9).
const JOURNAL_DENIED: [&str; 3] = [
    "insufficient permissions",
    "not seeing messages from other users and the system",
    "No journal files were found",
];

fn read_journal(host: &Host) -> Result<KernelLog, Failure> {
    const ARGS: [&str; 5] = ["-k", "-b", "-o", "short-monotonic", "--no-pager"];
    let src = format!("journalctl {}", ARGS.join(" "));
    let Some(prog) = host.which("journalctl") else {
        return Err(Failure::new(&src, "journalctl is not in PATH"));
    };
    // Not `--quiet`: it would also hide the warning that the system journal is not readable.
    // Its "-- Boot ... --" banners are not in the short-monotonic shape and are dropped below.
    let spec = CommandSpec::new(prog)
        .args(ARGS)
        .env("SYSTEMD_COLORS", "0")
        .env("LC_ALL", "C")
        .timeout(JOURNAL_TIMEOUT);
    let out = host.run(&spec);
    if out.spawn_error.is_some() || out.timed_out {
        return Err(Failure::new(&src, out.outcome()));
    }
    let lines: Vec<KernelLine> = parse_text(&out.stdout)
        .into_iter()
        .filter(|l| l.format == Format::JournalMonotonic && l.is_kernel())
        .collect();
    let said = out.combined_text();
    let denied = JOURNAL_DENIED.iter().any(|d| said.contains(d));
    if lines.is_empty() {
        let why = if denied {
            format!(
                "no kernel lines: the system journal is not readable ({})",
                journal_groups(host)
            )
        } else if !out.success() {
            format!("{}: {}", out.outcome(), out.stderr_tail(2))
        } else {
            "no kernel lines for this boot (journald may not store kernel messages here)".into()
        };
        let mut f = Failure::new(&src, why);
        if denied {
            f = f.grant(
                "add the user to group systemd-journal (or adm): sudo usermod -aG systemd-journal \
                    $USER, then log in again",
            );
        }
        return Err(f);
    }
    let mut notes = Vec::new();
    if out.truncated {
        notes.push("journalctl printed more than the doctor reads; the end is missing".into());
    }
    Ok(KernelLog {
        origin: Origin::Journal,
        described: src,
        lines,
        notes,
    })
}

/// Which of the groups that may read the system journal exist, and whether the doctor is in
/// them (ids from the sysroot's /etc/group; the doctor's own credentials).
fn journal_groups(host: &Host) -> String {
    let text = host
        .fs
        .read_text(Path::new("/etc/group"))
        .unwrap_or_default();
    let cred = crate::gpu::devnodes::process_credentials();
    let mut parts = Vec::new();
    for name in ["systemd-journal", "adm", "wheel"] {
        let gid = text.lines().find_map(|l| {
            let mut f = l.split(':');
            (f.next() == Some(name))
                .then(|| f.nth(1).and_then(|g| g.parse::<u32>().ok()))
                .flatten()
        });
        if let Some(g) = gid {
            let member = if cred.in_group(g) {
                "a member"
            } else {
                "not a member"
            };
            parts.push(format!("{name} (gid {g}): {member}"));
        }
    }
    if parts.is_empty() {
        format!("uid {}", cred.uid)
    } else {
        format!("uid {}; {}", cred.uid, parts.join(", "))
    }
}

/// Whether a line starts a boot: the banner printk prints first (`Linux version ...`), or the
/// kernel command line at time 0 on logs that lost the banner.
pub(crate) fn is_boot_marker(l: &KernelLine) -> bool {
    l.is_kernel()
        && (l.text.starts_with("Linux version ")
            || (l.text.starts_with("Command line: ") && l.ts.is_none_or(|t| t < 1.0)))
}

/// Keeps the lines of the last boot; the note says where it starts, or why all lines are kept.
pub(crate) fn since_last_boot(lines: Vec<KernelLine>) -> (Vec<KernelLine>, String) {
    let banner = lines
        .iter()
        .rposition(|l| l.is_kernel() && l.text.starts_with("Linux version "));
    let marker = banner.or_else(|| lines.iter().rposition(is_boot_marker));
    match marker {
        Some(i) => {
            let note = format!(
                "kept the {} lines from the last boot on (line {} of what was read: {})",
                lines.len() - i,
                i + 1,
                clip_note(&lines[i].text)
            );
            (lines.into_iter().skip(i).collect(), note)
        }
        None => (
            lines,
            "no boot marker (`Linux version`) in what was read: no reboot since its first line, \
                so every line was kept"
                .into(),
        ),
    }
}

fn clip_note(s: &str) -> String {
    let mut t: String = s.chars().take(80).collect();
    if t.len() < s.len() {
        t.push_str("...");
    }
    t
}

fn read_file(host: &Host, path: &Path) -> Result<KernelLog, Failure> {
    let src = path.display().to_string();
    let mut f = host.fs.open(path).map_err(|e| file_failure(&src, &e))?;
    let len = f.metadata().map(|m| m.len()).unwrap_or(0);
    let mut notes = Vec::new();
    let mut bytes = Vec::new();
    let partial = len > MAX_FILE_BYTES;
    if partial {
        f.seek(SeekFrom::Start(len - MAX_FILE_BYTES))
            .map_err(|e| file_failure(&src, &e))?;
        notes.push(format!(
            "read the last {} MiB of {} MiB",
            MAX_FILE_BYTES >> 20,
            len >> 20
        ));
    }
    f.take(MAX_FILE_BYTES)
        .read_to_end(&mut bytes)
        .map_err(|e| file_failure(&src, &e))?;
    let text: &[u8] = if partial {
        // Drop the line the seek cut.
        match memchr::memchr(b'\n', &bytes) {
            Some(i) => &bytes[i + 1..],
            None => &[],
        }
    } else {
        &bytes
    };
    let lines = parse_text(text);
    if lines.is_empty() {
        return Err(Failure::new(&src, "empty"));
    }
    let (lines, note) = since_last_boot(lines);
    notes.push(note);
    Ok(KernelLog {
        origin: Origin::File(path.to_path_buf()),
        described: src,
        lines,
        notes,
    })
}

fn file_failure(src: &str, e: &std::io::Error) -> Failure {
    let f = Failure::new(src, io_error_text(e));
    match errno_name(e).as_str() {
        "EACCES" | "EPERM" => f.grant(format!(
            "{src} is usually readable by group adm: sudo usermod -aG adm $USER, then log in again"
        )),
        _ => f,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::host::{Env, Limits};

    fn host_on(root: &Path) -> Host {
        Host::new(
            root.to_path_buf(),
            Env::default(),
            Limits::new(Duration::from_secs(5), Duration::from_secs(20)),
        )
    }

    #[test]
    fn sysroot_fixture_file_comes_first_and_keeps_the_last_boot() {
        let t = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(t.path().join("var/log")).unwrap();
        std::fs::write(
            t.path().join("var/log/rocm-doctor-dmesg.txt"),
            "[    0.000000] Linux version 6.8.0-1 (old)\n[   10.0] amdgpu: old boot\n\
             [    0.000000] Linux version 6.8.0-2 (new)\n[    1.500000] amdgpu: this boot\n",
        )
        .unwrap();
        std::fs::write(t.path().join("var/log/kern.log"), "ignored\n").unwrap();
        let log = read(&host_on(t.path())).unwrap();
        assert_eq!(log.origin, Origin::File(FIXTURE_FILE.into()));
        assert_eq!(log.lines.len(), 2);
        assert_eq!(log.lines[1].text, "amdgpu: this boot");
        assert!(
            log.notes
                .iter()
                .any(|n| n.contains("from the last boot on")),
            "{:?}",
            log.notes
        );
        assert!(!log.notes.iter().any(|n| n.starts_with(FIXTURE_FILE)));
    }

    #[test]
    fn nothing_to_read_is_unavailable_with_every_attempt() {
        let t = tempfile::tempdir().unwrap();
        let e = read(&host_on(t.path())).unwrap_err();
        let srcs: Vec<&str> = e.attempts.iter().map(|a| a.source.as_str()).collect();
        assert_eq!(srcs, [FIXTURE_FILE, "/var/log/kern.log", "/var/log/dmesg"]);
        assert!(
            e.attempts.iter().all(|a| a.why.starts_with("ENOENT")),
            "{e}"
        );
        assert!(e.to_string().contains("could not be read"));
    }

    #[test]
    fn unreadable_kern_log_says_how_to_grant() {
        let f = file_failure(
            "/var/log/kern.log",
            &std::io::Error::from_raw_os_error(nix::libc::EACCES),
        );
        assert!(f.attempt.why.starts_with("EACCES"));
        assert!(f.grant[0].contains("group adm"));
    }

    #[test]
    fn kmsg_denied_names_dmesg_restrict() {
        let t = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(t.path().join("proc/sys/kernel")).unwrap();
        std::fs::write(t.path().join("proc/sys/kernel/dmesg_restrict"), "1\n").unwrap();
        std::fs::write(
            t.path().join("proc/cmdline"),
            "ro quiet printk.devkmsg=off\n",
        )
        .unwrap();
        let f = kmsg_open_failure(
            &host_on(t.path()),
            &std::io::Error::from_raw_os_error(nix::libc::EPERM),
        );
        assert!(
            f.attempt.why.contains("kernel.dmesg_restrict = 1"),
            "{}",
            f.attempt.why
        );
        assert!(f.attempt.why.contains("printk.devkmsg=off"));
        assert!(f
            .grant
            .iter()
            .any(|g| g.contains("sysctl kernel.dmesg_restrict=0")));
        assert!(f.grant.iter().any(|g| g.contains("as root")));
    }

    /// A sysroot whose PATH holds a stand-in `journalctl` script printing `stdout` and `stderr`.
    fn fake_journalctl(stdout: &str, stderr: &str) -> (tempfile::TempDir, Host) {
        use std::os::unix::fs::PermissionsExt;
        let t = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(t.path().join("usr/bin")).unwrap();
        std::fs::create_dir_all(t.path().join("etc")).unwrap();
        std::fs::write(
            t.path().join("etc/group"),
            "adm:x:4:\nsystemd-journal:x:999:\n",
        )
        .unwrap();
        let script = t.path().join("usr/bin/journalctl");
        std::fs::write(
            &script,
            format!("#!/bin/sh\ncat <<'OUT'\n{stdout}OUT\ncat >&2 <<'ERR'\n{stderr}ERR\n"),
        )
        .unwrap();
        std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
        let mut host = Host::new(
            t.path().to_path_buf(),
            Env::from_pairs([("PATH", "/usr/bin")]),
            Limits::new(Duration::from_secs(5), Duration::from_secs(20)),
        );
        // A foreign root's programs are not run unless asked (docs/security.md, item 3); this
        // stand-in is a script for this machine's /bin/sh.
        host.run_root_programs_from_outside();
        (t, host)
    }

    #[test]
    fn journal_lines_are_read() {
        // journalctl -k -o short-monotonic as in the reference §8.0 (a boot banner included).
        let (_t, host) = fake_journalctl(
            "-- Boot 0123456789abcdef --\n[ 3081.747745] tiana kernel: amdgpu 0000:2b:00.0: \
                amdgpu: GPU reset begin!\n",
            "",
        );
        let log = read_journal(&host).unwrap_or_else(|f| panic!("{:?}", f.attempt));
        assert_eq!(log.origin, Origin::Journal);
        assert_eq!(log.lines.len(), 1);
        assert_eq!(log.lines[0].ts, Some(3081.747745));
    }

    #[test]
    fn journal_without_permission_names_the_groups() {
        // journalctl's words without access (reference §9, [real]).
        let (_t, host) = fake_journalctl(
            "",
            "No journal files were opened due to insufficient permissions.\n",
        );
        let f = read_journal(&host).unwrap_err();
        assert!(f.attempt.why.contains("not readable"), "{}", f.attempt.why);
        assert!(
            f.attempt.why.contains("systemd-journal (gid 999)"),
            "{}",
            f.attempt.why
        );
        assert!(f.grant[0].contains("usermod -aG systemd-journal"));
    }

    #[test]
    fn no_boot_marker_keeps_everything_and_says_so() {
        let lines = parse_text(b"Jan 23 22:04:34 h kernel: [ 3081.7] amdgpu: x\n");
        let (kept, note) = since_last_boot(lines);
        assert_eq!(kept.len(), 1);
        assert!(note.starts_with("no boot marker"));
    }

    #[test]
    fn the_live_machine_answers_or_says_why() {
        // Whatever this machine allows: lines, or a reason for each source. Never a panic.
        match read(&Host::local()) {
            Ok(log) => {
                let events = crate::kernlog::amdgpu_events(&log.lines);
                eprintln!(
                    "{}: {} lines, {} amdgpu events; notes: {:?}",
                    log.described,
                    log.lines.len(),
                    events.len(),
                    log.notes
                );
                assert!(!log.described.is_empty());
            }
            Err(e) => {
                eprintln!("{e}");
                assert!(!e.attempts.is_empty());
            }
        }
    }
}

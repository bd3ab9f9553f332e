//! One kernel log line, in whatever shape it was captured, reduced to its time and message.
//! Pure: no I/O.
//!
//! Shapes read (sources: the kernel's `Documentation/ABI/testing/dev-kmsg` and
//! `kernel/printk/printk.c` as summarised in the shared reference `amdgpu-health.md` §8.0 and §9;
//! journalctl(1) for the output modes; real lines in tests/corpus/gpu.toml):
//! - a `/dev/kmsg` record: `pri,seq,usec,flags[,more...];message`, the message escaped as
//!   `\xNN`, then continuation lines that start with a space and hold `KEY=value`
//!   (` SUBSYSTEM=pci`, ` DEVICE=+pci:0000:03:00.0`); unknown extra header fields are ignored;
//! - `dmesg`: `[  123.456789] msg` (`[%5lu.%06lu] `), with `CONFIG_PRINTK_CALLER` also
//!   `[  123.456789][  T287] msg` or `[  T287] msg`; `dmesg -T`: `[Mon Dec 18 08:34:36 2023] msg`;
//!   `dmesg --time-format iso`: `2023-12-18T08:34:36,123456+01:00 msg`; `dmesg -r`: `<3>[...] msg`;
//!   `dmesg -x`: `kern  :err   : [...] msg`;
//! - journalctl `short` (`Aug 08 22:35:13 host kernel: msg`, also `short-precise` with a
//!   fraction), `short-monotonic` (`[  123.456789] host kernel: msg`), `short-iso`
//!   (`2023-08-08T22:35:13+0200 host kernel: msg`);
//! - `/var/log/kern.log` (rsyslog): the `short` shape or an RFC 3339 stamp, the message often
//!   starting with the dmesg time (`kernel: [ 3081.747745] amdgpu ...`);
//! - anything pasted with leading `>` quote markers or indentation.
//!
//! A line in none of these shapes is kept whole as the message, with no time.

/// Longest message kept: the kernel's own records are at most about 1 KiB (`PRINTKRB_RECORD_MAX`
/// in recent kernels, `LOG_LINE_MAX` = 1024 - 32 before), so anything longer is not one kernel
/// line and is cut (at a character boundary).
pub const MAX_TEXT: usize = 4096;

/// Which shape a line was read in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// A `/dev/kmsg` record.
    Kmsg,
    /// `dmesg` with seconds since boot (also `-r`, `-x`, or the caller id only).
    Dmesg,
    /// `dmesg -T` (ctime in brackets) or `dmesg --time-format iso`.
    DmesgWall,
    /// journalctl `short-monotonic`.
    JournalMonotonic,
    /// journalctl `short`/`short-precise`/`short-iso`, or a syslog file (kern.log).
    Syslog,
    /// No recognised prefix: the whole line is the message.
    Plain,
}

/// One kernel log line.
#[derive(Debug, Clone, PartialEq)]
pub struct KernelLine {
    /// Seconds since boot (CLOCK_MONOTONIC as printk stamps it), when the line carries them.
    pub ts: Option<f64>,
    /// The wall-clock time as printed (`Aug 08 22:35:13`, `Mon Dec 18 08:34:36 2023`, an RFC 3339
    /// stamp), when the line carries one.
    pub wall: Option<String>,
    /// The message after every prefix (time, host, `kernel:`), trailing white space removed.
    pub text: String,
    /// Syslog facility (0 = kernel), when known (kmsg, `dmesg -r`/`-x`).
    pub facility: Option<u8>,
    /// Syslog level (3 = err, 4 = warning, 6 = info), when known.
    pub level: Option<u8>,
    /// kmsg sequence number.
    pub seq: Option<u64>,
    /// Host name of a journal or syslog line.
    pub host: Option<String>,
    /// Syslog identifier (`kernel`, `systemd[1]`) of a journal or syslog line.
    pub ident: Option<String>,
    /// kmsg ` DEVICE=` value (`+pci:0000:03:00.0`).
    pub kmsg_device: Option<String>,
    /// kmsg ` SUBSYSTEM=` value.
    pub subsystem: Option<String>,
    pub format: Format,
}

impl KernelLine {
    fn plain(text: &str, format: Format) -> Self {
        KernelLine {
            ts: None,
            wall: None,
            text: clip(text.trim_end()).to_string(),
            facility: None,
            level: None,
            seq: None,
            host: None,
            ident: None,
            kmsg_device: None,
            subsystem: None,
            format,
        }
    }

    /// Whether the line is the kernel's: no syslog identifier or `kernel`, facility 0 or unknown
    /// (programs may write into /dev/kmsg with a facility of their own).
    pub fn is_kernel(&self) -> bool {
        self.ident.as_deref().is_none_or(|i| i == "kernel") && self.facility.unwrap_or(0) == 0
    }

    /// The PCI address from a kmsg ` DEVICE=+pci:BDF` continuation line.
    pub fn pci_device(&self) -> Option<&str> {
        self.kmsg_device.as_deref()?.strip_prefix("+pci:")
    }
}

fn clip(s: &str) -> &str {
    if s.len() <= MAX_TEXT {
        return s;
    }
    let mut end = MAX_TEXT;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    &s[..end]
}

/// Parses a whole text (a file, journalctl output, a paste): one [`KernelLine`] per non-blank
/// line, kmsg continuation lines folded into their record. Invalid UTF-8 is replaced, `\r\n`
/// accepted.
pub fn parse_text(bytes: &[u8]) -> Vec<KernelLine> {
    let mut out: Vec<KernelLine> = Vec::new();
    for raw in bytes.split(|&b| b == b'\n') {
        let raw = raw.strip_suffix(b"\r").unwrap_or(raw);
        // A kmsg continuation line (` KEY=value`) belongs to the record before it.
        if raw.first() == Some(&b' ') {
            if let Some(prev) = out.last_mut().filter(|l| l.format == Format::Kmsg) {
                apply_kmsg_property(prev, &String::from_utf8_lossy(&raw[1..]));
                continue;
            }
        }
        let line = String::from_utf8_lossy(raw);
        if line.trim().is_empty() {
            continue;
        }
        out.push(parse_line(&line));
    }
    out
}

/// Parses one record as `read(2)` on `/dev/kmsg` returns it (header, message, continuation
/// lines). `None` when the bytes are not a kmsg record (no header, or truncated before `;`).
pub fn parse_kmsg_record(bytes: &[u8]) -> Option<KernelLine> {
    let mut parts = bytes.split(|&b| b == b'\n');
    let first = String::from_utf8_lossy(parts.next()?);
    let mut line = parse_kmsg(&first)?;
    for p in parts {
        if let Some(prop) = p.strip_prefix(b" ") {
            apply_kmsg_property(&mut line, &String::from_utf8_lossy(prop));
        }
    }
    Some(line)
}

fn apply_kmsg_property(line: &mut KernelLine, prop: &str) {
    let prop = prop.trim_end();
    if let Some(v) = prop.strip_prefix("DEVICE=") {
        line.kmsg_device = Some(clip(v).to_string());
    } else if let Some(v) = prop.strip_prefix("SUBSYSTEM=") {
        line.subsystem = Some(clip(v).to_string());
    }
}

/// Parses one line of text in any of the shapes of the module documentation.
pub fn parse_line(line: &str) -> KernelLine {
    let line = line.strip_suffix('\r').unwrap_or(line);
    let body = strip_quote_markers(line);
    if let Some(k) = parse_kmsg(body) {
        return k;
    }
    let (facility, level, rest) = strip_level_prefix(body);
    let mut out = parse_stamped(rest);
    if facility.is_some() {
        out.facility = facility;
    }
    if level.is_some() {
        out.level = level;
    }
    out
}

/// Leading blanks and `>` quote markers (mail, Markdown, forum quotes).
fn strip_quote_markers(s: &str) -> &str {
    let mut s = s.trim_start_matches([' ', '\t']);
    while let Some(r) = s.strip_prefix('>') {
        s = r.trim_start_matches([' ', '\t']);
    }
    s
}

fn parse_kmsg(s: &str) -> Option<KernelLine> {
    // The header is short: three numbers, a flag and optional `,key=value` fields.
    let semi = s.as_bytes().iter().take(128).position(|&b| b == b';')?;
    let header = &s[..semi];
    let mut fields = header.split(',');
    let pri: u32 = digits(fields.next()?)?;
    let seq: u64 = digits(fields.next()?)?;
    let usec: u64 = digits(fields.next()?)?;
    let flag = fields.next()?;
    if !matches!(flag, "-" | "c" | "+") {
        return None;
    }
    let msg = unescape_kmsg(&s[semi + 1..]);
    let mut line = KernelLine::plain(&msg, Format::Kmsg);
    line.ts = Some(usec as f64 / 1e6);
    line.seq = Some(seq);
    line.facility = Some((pri >> 3).min(u8::MAX as u32) as u8);
    line.level = Some((pri & 7) as u8);
    Some(line)
}

fn digits<T: std::str::FromStr>(s: &str) -> Option<T> {
    if s.is_empty() || !s.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    s.parse().ok()
}

/// kmsg escapes non-printable bytes and `\` itself as `\xNN` (dev-kmsg ABI document).
fn unescape_kmsg(s: &str) -> String {
    if !s.contains("\\x") {
        return s.to_string();
    }
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'\\' && i + 4 <= b.len() && b[i + 1] == b'x' {
            let hex = std::str::from_utf8(&b[i + 2..i + 4]).ok();
            if let Some(v) = hex.and_then(|h| u8::from_str_radix(h, 16).ok()) {
                // A newline or tab inside a message becomes a blank: one record, one line.
                out.push(if v == b'\n' || v == b'\r' { b' ' } else { v });
                i += 4;
                continue;
            }
        }
        out.push(b[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// `<N>` (`dmesg -r`) or `kern  :err   : ` (`dmesg -x`).
fn strip_level_prefix(s: &str) -> (Option<u8>, Option<u8>, &str) {
    if let Some(r) = s.strip_prefix('<') {
        if let Some(end) = r.find('>').filter(|&e| e > 0 && e <= 4 && e + 1 < r.len()) {
            if let Some(pri) = digits::<u32>(&r[..end]) {
                return (
                    Some((pri >> 3).min(255) as u8),
                    Some((pri & 7) as u8),
                    &r[end + 1..],
                );
            }
        }
    }
    const FACILITIES: [&str; 20] = [
        "kern", "user", "mail", "daemon", "auth", "syslog", "lpr", "news", "uucp", "cron",
        "authpriv", "ftp", "local0", "local1", "local2", "local3", "local4", "local5", "local6",
        "local7",
    ];
    const LEVELS: [&str; 8] = [
        "emerg", "alert", "crit", "err", "warn", "notice", "info", "debug",
    ];
    let mut it = s.splitn(3, ':');
    if let (Some(f), Some(l), Some(rest)) = (it.next(), it.next(), it.next()) {
        let f = FACILITIES.iter().position(|x| *x == f.trim_end());
        let l = LEVELS.iter().position(|x| *x == l.trim());
        if let (Some(f), Some(l)) = (f, l) {
            return (Some(f as u8), Some(l as u8), rest.trim_start());
        }
    }
    (None, None, s)
}

fn parse_stamped(s: &str) -> KernelLine {
    if s.starts_with('[') {
        if let Some(l) = parse_bracketed(s) {
            return l;
        }
    }
    if let Some(l) = parse_syslog_month(s) {
        return l;
    }
    if let Some(l) = parse_iso(s) {
        return l;
    }
    KernelLine::plain(s, Format::Plain)
}

/// The inside of `[...]` and what follows it (one blank removed).
fn bracket(s: &str) -> Option<(&str, &str)> {
    let r = s.strip_prefix('[')?;
    let end = r.as_bytes().iter().take(40).position(|&b| b == b']')?;
    let rest = &r[end + 1..];
    Some((&r[..end], rest.strip_prefix(' ').unwrap_or(rest)))
}

/// `  123.456789` → seconds.
fn mono_seconds(inner: &str) -> Option<f64> {
    let t = inner.trim_start();
    let (a, b) = t.split_once('.')?;
    if a.is_empty() || b.is_empty() {
        return None;
    }
    digits::<u64>(a)?;
    digits::<u64>(b)?;
    t.parse().ok()
}

/// `T287`, `C3` (CONFIG_PRINTK_CALLER).
fn is_caller(inner: &str) -> bool {
    let t = inner.trim_start();
    matches!(t.as_bytes().first(), Some(b'T' | b'C')) && digits::<u64>(&t[1..]).is_some()
}

fn parse_bracketed(s: &str) -> Option<KernelLine> {
    let (inner, mut rest) = bracket(s)?;
    let mut ts = None;
    let mut wall = None;
    if let Some(t) = mono_seconds(inner) {
        ts = Some(t);
    } else if is_ctime(inner) {
        wall = Some(inner.to_string());
    } else if !is_caller(inner) {
        return None;
    }
    // `[time][  T287] ` or `[time] [  T287] `.
    let after = rest.trim_start_matches(' ');
    if let Some((_, r)) = bracket(after).filter(|(c, _)| is_caller(c)) {
        rest = r;
    }
    // short-monotonic: `[time] host kernel: msg`.
    if ts.is_some() {
        if let Some((host, msg)) = split_host_kernel(rest) {
            let mut l = KernelLine::plain(msg, Format::JournalMonotonic);
            l.ts = ts;
            l.host = Some(host.to_string());
            l.ident = Some("kernel".into());
            return Some(l);
        }
    }
    let format = if wall.is_some() {
        Format::DmesgWall
    } else {
        Format::Dmesg
    };
    let mut l = KernelLine::plain(rest, format);
    l.ts = ts;
    l.wall = wall;
    Some(l)
}

/// `Mon Dec 18 08:34:36 2023` (`dmesg -T`, ctime without the newline).
fn is_ctime(s: &str) -> bool {
    let w: Vec<&str> = s.split_whitespace().collect();
    w.len() == 5
        && w[0].len() == 3
        && month(w[1])
        && digits::<u8>(w[2]).is_some()
        && is_clock(w[3])
        && digits::<u16>(w[4]).is_some()
}

fn month(s: &str) -> bool {
    matches!(
        s,
        "Jan"
            | "Feb"
            | "Mar"
            | "Apr"
            | "May"
            | "Jun"
            | "Jul"
            | "Aug"
            | "Sep"
            | "Oct"
            | "Nov"
            | "Dec"
    )
}

/// `HH:MM:SS` with an optional fraction.
fn is_clock(s: &str) -> bool {
    let (hms, frac) = s.split_once('.').unwrap_or((s, "0"));
    let p: Vec<&str> = hms.split(':').collect();
    p.len() == 3
        && p.iter().all(|x| x.len() == 2 && digits::<u8>(x).is_some())
        && digits::<u64>(frac).is_some()
}

/// `host kernel: msg` → (host, msg).
fn split_host_kernel(s: &str) -> Option<(&str, &str)> {
    let (host, rest) = s.split_once(' ')?;
    if host.is_empty() || host.contains(':') {
        return None;
    }
    let msg = rest.strip_prefix("kernel:")?;
    Some((host, msg.strip_prefix(' ').unwrap_or(msg)))
}

/// `host ident[pid]: msg` → (host, ident, msg), for any program's syslog line.
fn split_host_ident(s: &str) -> Option<(&str, &str, &str)> {
    let (host, rest) = s.split_once(' ')?;
    if host.is_empty() || host.contains(':') {
        return None;
    }
    let colon = rest
        .find(": ")
        .or_else(|| rest.strip_suffix(':').map(|r| r.len()))?;
    let ident = &rest[..colon];
    let ok = !ident.is_empty()
        && ident.len() <= 64
        && ident
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"_.-/@[]()".contains(&b));
    if !ok {
        return None;
    }
    let msg = rest[colon + 1..]
        .strip_prefix(' ')
        .unwrap_or(&rest[colon + 1..]);
    Some((host, ident, msg))
}

/// After `host kernel: `, rsyslog often keeps the dmesg time: `[ 3081.747745] msg`.
fn kernel_message(mut l: KernelLine) -> KernelLine {
    if let Some((inner, rest)) = bracket(&l.text) {
        if let Some(t) = mono_seconds(inner) {
            let rest = rest.to_string();
            l.ts = Some(t);
            l.text = rest;
        }
    }
    l
}

fn syslog_line(wall: &str, rest: &str) -> Option<KernelLine> {
    let (host, ident, msg) = split_host_ident(rest)?;
    let mut l = KernelLine::plain(msg, Format::Syslog);
    l.wall = Some(wall.to_string());
    l.host = Some(host.to_string());
    l.ident = Some(ident.to_string());
    Some(if ident == "kernel" {
        kernel_message(l)
    } else {
        l
    })
}

/// `Aug 08 22:35:13 host ident: msg` (journalctl short, classic syslog; the day may be
/// blank-padded: `Aug  8`).
fn parse_syslog_month(s: &str) -> Option<KernelLine> {
    if s.len() < 16 || !month(s.get(..3)?) || s.as_bytes()[3] != b' ' {
        return None;
    }
    let r = s[4..].trim_start_matches(' ');
    let (day, r) = r.split_once(' ')?;
    digits::<u8>(day)?;
    let (clock, rest) = r.split_once(' ')?;
    if !is_clock(clock) {
        return None;
    }
    let wall_len = s.len() - rest.len() - 1;
    syslog_line(&s[..wall_len], rest)
}

/// `2023-08-08T22:35:13[.,frac][Z|+0200|+02:00] ...`: journalctl short-iso and RFC 3339 syslog
/// (`host kernel: msg`), or `dmesg --time-format iso` (message right after the stamp).
fn parse_iso(s: &str) -> Option<KernelLine> {
    let b = s.as_bytes();
    if b.len() < 20 || b[4] != b'-' || b[7] != b'-' || b[10] != b'T' {
        return None;
    }
    digits::<u16>(&s[..4])?;
    digits::<u8>(&s[5..7])?;
    digits::<u8>(&s[8..10])?;
    let (stamp, rest) = s.split_once(' ')?;
    let clock = &stamp[11..];
    let clock_end = clock
        .find(|c: char| !(c.is_ascii_digit() || c == ':' || c == '.' || c == ','))
        .unwrap_or(clock.len());
    if !is_clock(&clock[..clock_end.min(8)]) {
        return None;
    }
    let tz = &clock[clock_end..];
    let tz_ok = tz.is_empty()
        || tz == "Z"
        || ((tz.starts_with('+') || tz.starts_with('-'))
            && tz[1..].bytes().all(|c| c.is_ascii_digit() || c == b':'));
    if !tz_ok {
        return None;
    }
    if let Some((host, msg)) = split_host_kernel(rest) {
        let mut l = KernelLine::plain(msg, Format::Syslog);
        l.wall = Some(stamp.to_string());
        l.host = Some(host.to_string());
        l.ident = Some("kernel".into());
        return Some(kernel_message(l));
    }
    // A program's line (`host sshd[12]: ...`) is told from a dmesg message by its `[pid]`.
    if split_host_ident(rest).is_some_and(|(_, i, _)| i.ends_with(']')) {
        return syslog_line(stamp, rest);
    }
    let mut l = KernelLine::plain(rest, Format::DmesgWall);
    l.wall = Some(stamp.to_string());
    Some(l)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dmesg_seconds() {
        // tests/corpus/gpu.toml gpu-rocm-1214 (github.com/ROCm/legacy-rocm-build/issues/1214)
        let l = parse_line(
            "[    7.026427] kfd kfd: amdgpu: skipped device 1002:67df, PCI rejects atomics",
        );
        assert_eq!(l.format, Format::Dmesg);
        assert_eq!(l.ts, Some(7.026427));
        assert_eq!(
            l.text,
            "kfd kfd: amdgpu: skipped device 1002:67df, PCI rejects atomics"
        );
        assert!(l.is_kernel());
    }

    #[test]
    fn dmesg_with_caller_ids() {
        let l = parse_line("[  123.000001][  T287] amdgpu: Topology: Add CPU node");
        assert_eq!(
            (l.ts, l.text.as_str()),
            (Some(123.000001), "amdgpu: Topology: Add CPU node")
        );
        let l = parse_line("[  T287] amdgpu: Topology: Add CPU node");
        assert_eq!((l.ts, l.format), (None, Format::Dmesg));
        assert_eq!(l.text, "amdgpu: Topology: Add CPU node");
    }

    #[test]
    fn dmesg_ctime() {
        // tests/corpus/gpu.toml gpu-rocm-2747 (github.com/ROCm/legacy-rocm-build/issues/2747)
        let l = parse_line(
            "[Mon Dec 18 08:34:36 2023] [drm:psp_hw_start [amdgpu]] *ERROR* PSP create ring \
                failed!",
        );
        assert_eq!(l.format, Format::DmesgWall);
        assert_eq!(l.wall.as_deref(), Some("Mon Dec 18 08:34:36 2023"));
        assert_eq!(l.ts, None);
        assert_eq!(
            l.text,
            "[drm:psp_hw_start [amdgpu]] *ERROR* PSP create ring failed!"
        );
    }

    #[test]
    fn dmesg_iso_raw_and_decoded_levels() {
        let l =
            parse_line("2023-12-18T08:34:36,123456+01:00 kfd kfd: amdgpu: added device 1002:73ff");
        assert_eq!(l.format, Format::DmesgWall);
        assert_eq!(l.text, "kfd kfd: amdgpu: added device 1002:73ff");
        let l = parse_line("<3>[ 3081.700001] amdgpu 0000:64:00.0: amdgpu: ring gfx_0.0.0 timeout");
        assert_eq!(
            (l.facility, l.level, l.ts),
            (Some(0), Some(3), Some(3081.700001))
        );
        let l = parse_line("kern  :err   : [ 3081.700001] amdgpu 0000:64:00.0: amdgpu: x");
        assert_eq!((l.facility, l.level), (Some(0), Some(3)));
        assert_eq!(l.text, "amdgpu 0000:64:00.0: amdgpu: x");
    }

    #[test]
    fn journal_short() {
        // tests/corpus/gpu.toml gpu-rocmlibs-1132 (github.com/ROCm/rocm-libraries/issues/1132)
        let l = parse_line(
            "Aug 08 22:35:13 ultrabook-jaap kernel: amdgpu 0000:c3:00.0: amdgpu: \
            [gfxhub] page fault (src_id:0 ring:24 vmid:8 pasid:32794)",
        );
        assert_eq!(l.format, Format::Syslog);
        assert_eq!(l.wall.as_deref(), Some("Aug 08 22:35:13"));
        assert_eq!(l.host.as_deref(), Some("ultrabook-jaap"));
        assert!(l.is_kernel());
        assert!(l
            .text
            .starts_with("amdgpu 0000:c3:00.0: amdgpu: [gfxhub] page fault"));
        let l = parse_line("Aug  8 22:35:13.123456 h systemd[1]: Started x.");
        assert_eq!(l.ident.as_deref(), Some("systemd[1]"));
        assert!(!l.is_kernel());
    }

    #[test]
    fn journal_monotonic_and_iso_and_kern_log() {
        let l = parse_line("[ 3081.747298] ws1 kernel: amdgpu: Failed to evict process queues");
        assert_eq!(l.format, Format::JournalMonotonic);
        assert_eq!((l.ts, l.host.as_deref()), (Some(3081.747298), Some("ws1")));
        assert_eq!(l.text, "amdgpu: Failed to evict process queues");
        let l = parse_line(
            "2023-08-08T22:35:13+0200 tiana kernel: amdgpu 0000:2b:00.0: amdgpu: GPU reset begin!",
        );
        assert_eq!(l.format, Format::Syslog);
        assert_eq!(l.text, "amdgpu 0000:2b:00.0: amdgpu: GPU reset begin!");
        // rsyslog RFC 3339 with the dmesg time kept in the message.
        let l = parse_line(
            "2024-01-23T22:04:34.123456+01:00 tiana kernel: [ 3081.747745] amdgpu \
            0000:2b:00.0: amdgpu: GPU reset begin!",
        );
        assert_eq!(l.ts, Some(3081.747745));
        assert_eq!(l.wall.as_deref(), Some("2024-01-23T22:04:34.123456+01:00"));
        assert_eq!(l.text, "amdgpu 0000:2b:00.0: amdgpu: GPU reset begin!");
        let l = parse_line(
            "Jan 23 22:04:34 tiana kernel: [ 3081.747745] [drm] VRAM is lost due to GPU reset!",
        );
        assert_eq!(
            (l.ts, l.text.as_str()),
            (Some(3081.747745), "[drm] VRAM is lost due to GPU reset!")
        );
        let l = parse_line("2024-01-23T22:04:34+01:00 tiana sshd[77]: Accepted key");
        assert!(!l.is_kernel());
    }

    #[test]
    fn quoted_pastes() {
        // tests/corpus/gpu.toml gpu-rocm-719 (github.com/ROCm/legacy-rocm-build/issues/719)
        let l = parse_line("> [    2.510806] kfd kfd: DID 15d8 is missing in supported_devices");
        assert_eq!(l.ts, Some(2.510806));
        assert_eq!(l.text, "kfd kfd: DID 15d8 is missing in supported_devices");
        let l = parse_line(">>   [    2.510806] x");
        assert_eq!(l.text, "x");
    }

    #[test]
    fn kmsg_records() {
        // The example record of the shared reference amdgpu-health.md §9.
        let rec = b"3,2212,3081747745,-;amdgpu 0000:2b:00.0: amdgpu: ring gfx_0.0.0 timeout, \
            signaled seq=14, emitted seq=15\n SUBSYSTEM=pci\n DEVICE=+pci:0000:2b:00.0\n";
        let l = parse_kmsg_record(rec).unwrap();
        assert_eq!(l.format, Format::Kmsg);
        assert_eq!((l.facility, l.level, l.seq), (Some(0), Some(3), Some(2212)));
        assert_eq!(l.ts, Some(3081.747745));
        assert_eq!(l.pci_device(), Some("0000:2b:00.0"));
        assert_eq!(l.subsystem.as_deref(), Some("pci"));
        // The same record as text, continuation lines folded; extra header fields ignored.
        let v = parse_text(
            b"6,1,5,-,caller=T1;x\n SUBSYSTEM=pci\n DEVICE=+pci:0000:2b:00.0\n4,2,6,c;y\r\n",
        );
        assert_eq!(v.len(), 2);
        assert_eq!(v[0].pci_device(), Some("0000:2b:00.0"));
        assert_eq!((v[1].text.as_str(), v[1].level), ("y", Some(4)));
        // A program writing to /dev/kmsg (facility 3, daemon) is not the kernel.
        assert!(!parse_line("30,9,1,-;systemd[1]: hi").is_kernel());
    }

    #[test]
    fn kmsg_escapes() {
        let l = parse_line(
            "4,7,100,-;amdgpu: a\\x09tab and a backslash \\x5c and bad \\xZZ and end \\x",
        );
        assert_eq!(
            l.text,
            "amdgpu: a\ttab and a backslash \\ and bad \\xZZ and end \\x"
        );
        let l = parse_line("4,7,100,-;two\\x0alines");
        assert_eq!(l.text, "two lines");
    }

    #[test]
    fn truncated_and_odd_records_are_plain_text() {
        for s in [
            "3,2212,30817",
            "3,2212;x",
            "3,a,1,-;x",
            "[   12.5",
            "[]",
            "<3>",
            "Aug 08 22:35",
            "2023-08-08T",
        ] {
            let l = parse_line(s);
            assert_eq!(l.format, Format::Plain, "{s}");
            assert_eq!(l.text, s.trim_end());
        }
        assert!(parse_kmsg_record(b"3,2212,30817").is_none());
    }

    #[test]
    fn crlf_invalid_utf8_and_long_lines() {
        let mut bytes = b"[    1.000000] amdgpu: a\xff\xfe b\r\n\r\n".to_vec();
        bytes.extend_from_slice(b"[    2.000000] ");
        bytes.extend(std::iter::repeat_n("\u{e9}", 10_000).flat_map(|s| s.bytes()));
        let v = parse_text(&bytes);
        assert_eq!(v.len(), 2);
        assert_eq!(v[0].text, "amdgpu: a\u{fffd}\u{fffd} b");
        assert!(v[1].text.len() <= MAX_TEXT && v[1].text.len() > MAX_TEXT - 4);
    }
}

//! The prefix of one HIP runtime (CLR) log line, parsed without allocating.
//!
//! Formats (see docs/log.md and the shared reference notes, `hip-logs.md` section 1.3):
//! - ROCm 5.7-6.2, `rocclr/utils/debug.cpp` (tags rocm-5.7.0..rocm-6.2.2):
//!   `:%d:%-25s:%-4d: %010lld us: [pid:%-5d tid:0x%s] %s`
//! - ROCm 6.3 (`release/rocm-rel-6.3.0.1` debug.cpp): `%010lud us:` (stray `d`), and
//!   `[pid:N tid: HEX]` only at level 5
//! - ROCm 6.4-7.2 (clr commits 365ffd480 and 35e03ea0d): `%010lu us:`, `[pid:N tid: 0xHEX]` only
//!   when AMD_LOG_LEVEL >= 4, otherwise nothing (two spaces before the message)
//! - without `LOG_LOCATION` (0x10000) in AMD_LOG_MASK the file is empty and the line 0
//! - ROCr lines (rocm-systems `runtime/hsa-runtime/core/util/flag.cpp`): no level digit,
//!   `:%-25s:%-4d: %010lld us: [pid:%-5d tid:0x%s] [***rocr***] %s`
//!
//! Anything else is a foreign line (application output, tracebacks, ROCr fatal `fprintf`s).

/// What kind of line this is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// A CLR line with its level digit.
    Runtime(u8),
    /// A ROCr (HSA runtime) line, tagged `[***rocr***]`.
    Rocr,
    /// Not a runtime line.
    Foreign,
}

/// One parsed line; every slice borrows from the input.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Line<'a> {
    pub kind: Kind,
    /// Source file (empty when AMD_LOG_MASK lacks LOG_LOCATION).
    pub file: &'a [u8],
    pub src_line: u32,
    /// CLOCK_MONOTONIC microseconds.
    pub ts_us: Option<u64>,
    /// The bytes between `[pid:` and `]` (empty when the line has none). Parsed on demand by
    /// [`Line::pid`] and [`Line::tid`]: a summary keys threads by these bytes and parses them
    /// once per thread, not once per line.
    pub thread: &'a [u8],
    /// The message (the whole line for foreign lines), without the trailing `\r`.
    pub msg: &'a [u8],
}

impl<'a> Line<'a> {
    fn foreign(raw: &'a [u8]) -> Self {
        Line {
            kind: Kind::Foreign,
            file: b"",
            src_line: 0,
            ts_us: None,
            thread: b"",
            msg: raw,
        }
    }

    /// The process id of `[pid:N tid:...]`, if the line has a well-formed one.
    pub fn pid(&self) -> Option<u32> {
        thread_ids(self.thread).map(|(p, _)| p)
    }

    /// The thread id (hex) of `[pid:N tid:...]`, if the line has a well-formed one.
    pub fn tid(&self) -> Option<u64> {
        thread_ids(self.thread).map(|(_, t)| t)
    }
}

/// Parses the inside of `[pid:%-5d tid:0x%s]` (also `tid: 0x..` and `tid: ..` without `0x`).
pub fn thread_ids(field: &[u8]) -> Option<(u32, u64)> {
    if field.is_empty() {
        return None;
    }
    let mut c = Cursor { b: field, i: 0 };
    c.spaces();
    let pid = u32::try_from(c.number()?).ok()?;
    c.spaces();
    c.lit(b"tid:")?;
    c.spaces();
    let _ = c.lit(b"0x");
    let tid = c.hex()?;
    c.spaces();
    (c.i == field.len()).then_some((pid, tid))
}

/// Parses one line (without its `\n`). Never fails: an unknown shape is [`Kind::Foreign`].
pub fn parse(raw: &[u8]) -> Line<'_> {
    let raw = raw.strip_suffix(b"\r").unwrap_or(raw);
    parse_prefix(raw).unwrap_or_else(|| Line::foreign(raw))
}

fn parse_prefix(raw: &[u8]) -> Option<Line<'_>> {
    let mut c = Cursor { b: raw, i: 0 };
    c.eat(b':')?;
    // `:L:` for CLR, `:file` for ROCr.
    let level = match (raw.get(1), raw.get(2)) {
        (Some(d), Some(b':')) if d.is_ascii_digit() => {
            c.i = 3;
            Some(d - b'0')
        }
        _ => None,
    };
    let f0 = c.i;
    let colon = memchr::memchr(b':', &raw[f0..])? + f0;
    let file = trim_end(&raw[f0..colon]);
    c.i = colon + 1;
    let src_line = c.number()?;
    c.spaces();
    c.eat(b':')?;
    c.eat(b' ')?;
    let ts = c.number()?;
    let _ = c.eat(b'd'); // ROCm 6.3 prints `%010lud`
    c.lit(b" us:")?;
    let _ = c.eat(b' ');
    let mut thread: &[u8] = b"";
    if c.rest().starts_with(b"[pid:") {
        c.i += 5;
        // The field is short (`pid:` up to 10 digits, `tid:` up to 16 hex digits).
        let r = c.rest();
        let close = memchr::memchr(b']', &r[..r.len().min(48)])?;
        thread = &r[..close];
        c.i += close + 1;
        let _ = c.eat(b' ');
    } else if level.is_some() {
        // Levels <= 3 on 6.3+ runtimes print an empty pid/tid field then a space.
        let _ = c.eat(b' ');
    }
    let kind = match level {
        Some(l) => Kind::Runtime(l),
        None => {
            let r = c.rest();
            let tag = b"[***rocr***]";
            if !r.starts_with(tag) {
                return None;
            }
            c.i += tag.len();
            let _ = c.eat(b' ');
            Kind::Rocr
        }
    };
    Some(Line {
        kind,
        file,
        src_line: u32::try_from(src_line).unwrap_or(u32::MAX),
        ts_us: Some(ts),
        thread,
        msg: c.rest(),
    })
}

fn trim_end(b: &[u8]) -> &[u8] {
    let n = b.iter().rposition(|&c| c != b' ').map_or(0, |p| p + 1);
    &b[..n]
}

struct Cursor<'a> {
    b: &'a [u8],
    i: usize,
}

impl<'a> Cursor<'a> {
    fn rest(&self) -> &'a [u8] {
        self.b.get(self.i..).unwrap_or(b"")
    }
    fn eat(&mut self, ch: u8) -> Option<()> {
        if self.b.get(self.i) == Some(&ch) {
            self.i += 1;
            Some(())
        } else {
            None
        }
    }
    fn lit(&mut self, s: &[u8]) -> Option<()> {
        if self.rest().starts_with(s) {
            self.i += s.len();
            Some(())
        } else {
            None
        }
    }
    fn spaces(&mut self) {
        while self.b.get(self.i) == Some(&b' ') {
            self.i += 1;
        }
    }
    /// A decimal number. Up to 19 digits cannot overflow a u64, so the hot loop needs no
    /// overflow check; a longer run of digits is re-read with checks.
    #[inline]
    fn number(&mut self) -> Option<u64> {
        let rest = self.rest();
        let mut v: u64 = 0;
        let mut n = 0;
        for &d in rest.iter().take(19) {
            let x = d.wrapping_sub(b'0');
            if x > 9 {
                break;
            }
            v = v * 10 + u64::from(x);
            n += 1;
        }
        if n == 0 {
            return None;
        }
        if n == 19 && rest.get(19).is_some_and(u8::is_ascii_digit) {
            let all = rest.iter().take_while(|d| d.is_ascii_digit()).count();
            v = rest[..all].iter().try_fold(0u64, |v, &d| {
                v.checked_mul(10)?.checked_add(u64::from(d - b'0'))
            })?;
            n = all;
        }
        self.i += n;
        Some(v)
    }
    /// A hexadecimal number (at most 16 digits: a longer run is not a thread id).
    fn hex(&mut self) -> Option<u64> {
        let rest = self.rest();
        let mut v: u64 = 0;
        let mut n = 0;
        while let Some(&d) = rest.get(n) {
            let x = HEX[usize::from(d)];
            if x == 0xff {
                break;
            }
            if n == 16 {
                return None;
            }
            v = (v << 4) | u64::from(x);
            n += 1;
        }
        if n == 0 {
            return None;
        }
        self.i += n;
        Some(v)
    }
}

/// Hex digit values; 0xff for any other byte.
static HEX: [u8; 256] = {
    let mut t = [0xffu8; 256];
    let mut i = 0;
    while i < 10 {
        t[b'0' as usize + i] = i as u8;
        i += 1;
    }
    let mut i = 0;
    while i < 6 {
        t[b'a' as usize + i] = 10 + i as u8;
        t[b'A' as usize + i] = 10 + i as u8;
        i += 1;
    }
    t
};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thread_field_parsed_on_demand() {
        assert_eq!(thread_ids(b"7     tid:0xab"), Some((7, 0xab)));
        assert_eq!(
            thread_ids(b"309675 tid: 0x73e303fff6c0"),
            Some((309675, 0x73e303fff6c0))
        );
        assert_eq!(
            thread_ids(b"809742 tid: 7f203f7ab340"),
            Some((809742, 0x7f203f7ab340))
        );
        for bad in [
            &b""[..],
            b"tid:0x1",
            b"7 tid:",
            b"7 tid:0x1 junk",
            b"99999999999 tid:0x1",
            b"7 tid:0x11111111111111111",
        ] {
            assert_eq!(thread_ids(bad), None, "{}", String::from_utf8_lossy(bad));
        }
        // A malformed field leaves a runtime line without ids, not a foreign line.
        let l = parse(b":3:x.cpp:1 : 5 us: [pid:abc tid:zz] hipInit ( )");
        assert_eq!(
            (l.kind, l.pid(), l.msg),
            (Kind::Runtime(3), None, &b"hipInit ( )"[..])
        );
        // An unclosed field is not the runtime's format.
        assert_eq!(
            parse(b":3:x.cpp:1 : 5 us: [pid:7 tid:0x1 hipInit").kind,
            Kind::Foreign
        );
    }

    #[test]
    fn number_matches_a_plain_parse() {
        for s in [
            &b""[..],
            b"x",
            b"0",
            b"7 us",
            b"12345678",
            b"123456789",
            b"00000042:",
            b"9999999999999999999",
            b"18446744073709551615",
            b"18446744073709551616",
            b"0000000000000000000000001",
            b"12a4",
            b"/12",
            b":12",
        ] {
            let n = s.iter().take_while(|d| d.is_ascii_digit()).count();
            let want = std::str::from_utf8(&s[..n])
                .ok()
                .and_then(|t| t.parse::<u64>().ok());
            let mut c = Cursor { b: s, i: 0 };
            assert_eq!(c.number(), want, "{}", String::from_utf8_lossy(s));
            if want.is_some() {
                assert_eq!(c.i, n);
            }
        }
    }

    #[test]
    fn rocm_6_2_with_pid_tid() {
        let l = parse(b":3:hip_memory.cpp           :615 : 89870227932 us: [pid:1089444 tid:0x76cc16cb11c0]  hipMalloc ( 0x7ffc16ba1708, 4096 ) ");
        assert_eq!(l.kind, Kind::Runtime(3));
        assert_eq!(l.file, b"hip_memory.cpp");
        assert_eq!(l.src_line, 615);
        assert_eq!(l.ts_us, Some(89870227932));
        assert_eq!(l.pid(), Some(1089444));
        assert_eq!(l.tid(), Some(0x76cc16cb11c0));
        assert_eq!(l.msg, b" hipMalloc ( 0x7ffc16ba1708, 4096 ) ");
    }

    #[test]
    fn rocm_7_tid_with_space_and_6_3_stray_d_and_no_pid() {
        let l = parse(b":5:command.cpp              :354 : 38362352647 us: [pid:309675 tid: 0x73e303fff6c0] Command (KernelExecution) enqueued: 0x1 to queue: 0x2\r");
        assert_eq!(l.pid(), Some(309675));
        assert_eq!(l.tid(), Some(0x73e303fff6c0));
        assert_eq!(
            l.msg,
            b"Command (KernelExecution) enqueued: 0x1 to queue: 0x2"
        );
        let l = parse(b":3:rocsettings.cpp          :287 : 452775184024d us: [pid:809742 tid: 7f203f7ab340] Using dev kernel arg wa = 2");
        assert_eq!(l.tid(), Some(0x7f203f7ab340));
        assert_eq!(l.ts_us, Some(452775184024));
        let l = parse(b":3:hip_fatbin.cpp           :397 : 95859869682 us:  Searching for code objects, HIP_FORCE_SPIRV_CODEOBJECT: 0");
        assert_eq!(l.pid(), None);
        assert_eq!(
            l.msg,
            b"Searching for code objects, HIP_FORCE_SPIRV_CODEOBJECT: 0"
        );
    }

    #[test]
    fn no_location_rocr_and_foreign() {
        let l = parse(b":3:                         :0   : 12 us:  hello");
        assert_eq!(
            (l.kind, l.file, l.src_line),
            (Kind::Runtime(3), &b""[..], 0)
        );
        let l = parse(b":runtime.cpp               :12  : 0000000042 us: [pid:7     tid:0xab] [***rocr***] blit");
        assert_eq!((l.kind, l.msg), (Kind::Rocr, &b"blit"[..]));
        assert_eq!(
            parse(b"Traceback (most recent call last):").kind,
            Kind::Foreign
        );
        assert_eq!(parse(b":3:x.cpp:1").kind, Kind::Foreign);
        assert_eq!(parse(b"").kind, Kind::Foreign);
    }
}

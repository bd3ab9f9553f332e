//! The prefix of one HIP runtime (CLR) log line, parsed without allocating.
//!
//! Formats (see docs/log.md and /work/shared/reference/hip-logs.md section 1.3):
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
    pub pid: Option<u32>,
    pub tid: Option<u64>,
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
            pid: None,
            tid: None,
            msg: raw,
        }
    }
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
    let mut pid = None;
    let mut tid = None;
    if c.rest().starts_with(b"[pid:") {
        c.i += 5;
        c.spaces();
        pid = Some(u32::try_from(c.number()?).ok()?);
        c.spaces();
        c.lit(b"tid:")?;
        c.spaces();
        let _ = c.lit(b"0x");
        tid = Some(c.hex()?);
        c.eat(b']')?;
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
        pid,
        tid,
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
    fn number(&mut self) -> Option<u64> {
        let start = self.i;
        let mut v: u64 = 0;
        while let Some(d) = self.b.get(self.i).filter(|d| d.is_ascii_digit()) {
            v = v.checked_mul(10)?.checked_add(u64::from(d - b'0'))?;
            self.i += 1;
        }
        (self.i > start).then_some(v)
    }
    fn hex(&mut self) -> Option<u64> {
        let start = self.i;
        let mut v: u64 = 0;
        while let Some(d) = self.b.get(self.i).and_then(|d| (*d as char).to_digit(16)) {
            v = v.checked_mul(16)?.checked_add(u64::from(d))?;
            self.i += 1;
        }
        (self.i > start).then_some(v)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rocm_6_2_with_pid_tid() {
        let l = parse(b":3:hip_memory.cpp           :615 : 89870227932 us: [pid:1089444 tid:0x76cc16cb11c0]  hipMalloc ( 0x7ffc16ba1708, 4096 ) ");
        assert_eq!(l.kind, Kind::Runtime(3));
        assert_eq!(l.file, b"hip_memory.cpp");
        assert_eq!(l.src_line, 615);
        assert_eq!(l.ts_us, Some(89870227932));
        assert_eq!(l.pid, Some(1089444));
        assert_eq!(l.tid, Some(0x76cc16cb11c0));
        assert_eq!(l.msg, b" hipMalloc ( 0x7ffc16ba1708, 4096 ) ");
    }

    #[test]
    fn rocm_7_tid_with_space_and_6_3_stray_d_and_no_pid() {
        let l = parse(b":5:command.cpp              :354 : 38362352647 us: [pid:309675 tid: 0x73e303fff6c0] Command (KernelExecution) enqueued: 0x1 to queue: 0x2\r");
        assert_eq!(l.pid, Some(309675));
        assert_eq!(l.tid, Some(0x73e303fff6c0));
        assert_eq!(
            l.msg,
            b"Command (KernelExecution) enqueued: 0x1 to queue: 0x2"
        );
        let l = parse(b":3:rocsettings.cpp          :287 : 452775184024d us: [pid:809742 tid: 7f203f7ab340] Using dev kernel arg wa = 2");
        assert_eq!(l.tid, Some(0x7f203f7ab340));
        assert_eq!(l.ts_us, Some(452775184024));
        let l = parse(b":3:hip_fatbin.cpp           :397 : 95859869682 us:  Searching for code objects, HIP_FORCE_SPIRV_CODEOBJECT: 0");
        assert_eq!(l.pid, None);
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

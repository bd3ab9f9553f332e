//! The prefix of one HIP runtime (CLR) log line, parsed without allocating.
//!
//! Formats (see docs/log.md and the shared reference notes, `hip-logs.md` section 1.3):
//! - ROCm 5.0-5.6, ROCclr `debug.cpp` of those releases (the format string as Debian 12's
//!   libamdhip64 5.2.3 carries it): `:%d:%-25s:%-4d: %010lld us: %-5d: [tid:0x%s] %s`, the pid
//!   bare and padded, the thread in brackets (real logs: tests/fixtures/logs/hip-5.2.3-*.log)
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
    /// The source file field as printed (`%-25s`: padded with blanks); [`Line::file`] trims it.
    pub file_field: &'a [u8],
    /// The digits of the source line field; [`Line::src_line`] reads them.
    pub src_line_digits: &'a [u8],
    /// CLOCK_MONOTONIC microseconds.
    pub ts_us: Option<u64>,
    /// The bytes between `[pid:` and `]` (empty when the line has none). Parsed on demand by
    /// [`Line::pid`] and [`Line::tid`]: a summary keys threads by these bytes and parses them
    /// once per thread, not once per line.
    pub thread: &'a [u8],
    /// Whether `thread` equals the hint given to [`parse_hinted`] (the previous line's field).
    pub thread_is_hint: bool,
    /// The message (the whole line for foreign lines), without the trailing `\r`.
    pub msg: &'a [u8],
}

impl<'a> Line<'a> {
    fn foreign(raw: &'a [u8]) -> Self {
        Line {
            kind: Kind::Foreign,
            file_field: b"",
            src_line_digits: b"",
            ts_us: None,
            thread: b"",
            thread_is_hint: false,
            msg: raw,
        }
    }

    /// Source file (empty when AMD_LOG_MASK lacks LOG_LOCATION).
    pub fn file(&self) -> &'a [u8] {
        trim_end(self.file_field)
    }

    /// Whether the line has no source file (AMD_LOG_MASK without LOG_LOCATION): the field is
    /// all blanks. A file name never starts with a blank, so the first byte decides the norm.
    pub fn file_is_empty(&self) -> bool {
        match self.file_field.first() {
            None => true,
            Some(&b' ') => self.file().is_empty(),
            Some(_) => false,
        }
    }

    /// The source line (saturated at `u32::MAX`).
    pub fn src_line(&self) -> u32 {
        checked_decimal(self.src_line_digits)
            .map_or(u32::MAX, |v| u32::try_from(v).unwrap_or(u32::MAX))
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

/// Parses the inside of `[pid:%-5d tid:0x%s]` (also `tid: 0x..` and `tid: ..` without `0x`), or
/// the ROCm 5.0-5.6 field `%-5d: [tid:0x%s` (see [`legacy_thread`]).
pub fn thread_ids(field: &[u8]) -> Option<(u32, u64)> {
    if field.is_empty() {
        return None;
    }
    let mut c = Cursor { b: field, i: 0 };
    c.spaces();
    let pid = u32::try_from(c.number()?).ok()?;
    c.spaces();
    if c.eat(b':').is_some() {
        c.lit(b" [")?;
    }
    c.lit(b"tid:")?;
    c.spaces();
    let _ = c.lit(b"0x");
    let tid = c.hex()?;
    c.spaces();
    (c.i == field.len()).then_some((pid, tid))
}

/// Parses one line (without its `\n`). Never fails: an unknown shape is [`Kind::Foreign`].
pub fn parse(raw: &[u8]) -> Line<'_> {
    parse_hinted(raw, b"")
}

/// [`parse`], told the thread field the line probably has (the previous line's): when it does,
/// the field is found by one comparison instead of a search, and [`Line::thread_is_hint`] says
/// so. `hint` must be empty or a `thread` this parser returned (no `]`, shorter than the search
/// window); then the result is the same as [`parse`]'s.
pub fn parse_hinted<'a>(raw: &'a [u8], hint: &[u8]) -> Line<'a> {
    let raw = raw.strip_suffix(b"\r").unwrap_or(raw);
    parse_prefix(raw, hint).unwrap_or_else(|| Line::foreign(raw))
}

/// Longest thread field searched for (`pid:` up to 10 digits, `tid:` up to 16 hex digits).
const THREAD_FIELD_MAX: usize = 48;

fn parse_prefix<'a>(raw: &'a [u8], hint: &[u8]) -> Option<Line<'a>> {
    if raw.first() != Some(&b':') {
        return None;
    }
    // `:L:` for CLR, `:file` for ROCr.
    let (level, f0) = match (raw.get(1), raw.get(2)) {
        (Some(d), Some(b':')) if d.is_ascii_digit() => (Some(d - b'0'), 3),
        _ => (None, 1),
    };
    let colon = first_colon(raw, f0)?;
    let mut c = Cursor {
        b: raw,
        i: colon + 1,
    };
    let digits = c.digits();
    if digits.is_empty() || (digits.len() > 19 && checked_decimal(digits).is_none()) {
        return None;
    }
    c.spaces();
    c.eat(b':')?;
    c.eat(b' ')?;
    let ts = c.number()?;
    let _ = c.eat(b'd'); // ROCm 6.3 prints `%010lud`
    c.lit(b" us:")?;
    let _ = c.eat(b' ');
    let mut thread: &[u8] = b"";
    let mut thread_is_hint = false;
    if c.rest().starts_with(b"[pid:") {
        c.i += 5;
        let r = c.rest();
        let close = if !hint.is_empty()
            && hint.len() < THREAD_FIELD_MAX
            && r.get(hint.len()) == Some(&b']')
            && same_bytes(&r[..hint.len()], hint)
        {
            thread_is_hint = true;
            hint.len()
        } else {
            memchr::memchr(b']', &r[..r.len().min(THREAD_FIELD_MAX)])?
        };
        thread = &r[..close];
        c.i += close + 1;
        let _ = c.eat(b' ');
    } else if level.is_some() {
        match c.rest().first() {
            // ROCm 5.0-5.6: `PID: [tid:0xHEX] ` (only reached when `[pid:` is not there, so
            // the 5.7+ formats never pay for it).
            Some(d) if d.is_ascii_digit() => {
                match legacy_thread(c.rest(), hint) {
                    Legacy::Field(field, hinted) => {
                        thread = field;
                        thread_is_hint = hinted;
                        c.i += field.len() + 1;
                        let _ = c.eat(b' ');
                    }
                    // Like an unclosed `[pid:` field: not the runtime's format.
                    Legacy::Unclosed => return None,
                    Legacy::No => {}
                }
            }
            // Levels <= 3 on 6.3+ runtimes print an empty pid/tid field then a space.
            _ => {
                let _ = c.eat(b' ');
            }
        }
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
        file_field: &raw[f0..colon],
        src_line_digits: digits,
        ts_us: Some(ts),
        thread,
        thread_is_hint,
        msg: c.rest(),
    })
}

/// What follows `us: ` on a line without `[pid:`, when it starts with a digit.
enum Legacy<'a> {
    /// A ROCm 5.0-5.6 thread field (up to, without, the `]`), and whether it equals the hint.
    Field(&'a [u8], bool),
    /// `PID: [tid:` without a `]` in reach.
    Unclosed,
    /// Not that shape: the message starts here.
    No,
}

/// The thread field of a ROCm 5.0-5.6 line, `r` starting at the pid: `%-5d: [tid:0x%s]`.
fn legacy_thread<'a>(r: &'a [u8], hint: &[u8]) -> Legacy<'a> {
    let mut c = Cursor { b: r, i: 0 };
    if !(1..=10).contains(&c.digits().len()) {
        return Legacy::No;
    }
    c.spaces();
    if c.lit(b": [tid:").is_none() {
        return Legacy::No;
    }
    // The shape is checked first, so a hint decides only where the `]` is (a hint has none).
    if hint.len() > c.i
        && hint.len() < THREAD_FIELD_MAX
        && r.get(hint.len()) == Some(&b']')
        && same_bytes(&r[..hint.len()], hint)
    {
        return Legacy::Field(&r[..hint.len()], true);
    }
    match memchr::memchr(b']', &r[..r.len().min(THREAD_FIELD_MAX)]) {
        Some(close) => Legacy::Field(&r[..close], false),
        None => Legacy::Unclosed,
    }
}

/// The value of a run of ASCII digits, or `None` when it overflows a u64 (more than 19 digits
/// can: such a number is not one the runtime printed). The caller has checked the bytes are digits.
fn checked_decimal(digits: &[u8]) -> Option<u64> {
    digits.iter().try_fold(0u64, |v, &d| {
        v.checked_mul(10)?.checked_add(u64::from(d - b'0'))
    })
}

/// The first `:` at or after `from`. The file field is `%-25s`, so for every name of up to 25
/// bytes the colon sits at `from + 25`: check there first (no colon in the 25 bytes before it,
/// eight at a time), then search.
#[inline]
fn first_colon(raw: &[u8], from: usize) -> Option<usize> {
    const W: usize = 25;
    if let Some(field) = raw.get(from..from + W + 1) {
        if field[W] == b':' {
            let word = |i: usize| {
                let mut b = [0u8; 8];
                b.copy_from_slice(&field[i..i + 8]);
                u64::from_le_bytes(b)
            };
            let no_colon = !has_byte(word(0), b':')
                && !has_byte(word(8), b':')
                && !has_byte(word(16), b':')
                && field[24] != b':';
            if no_colon {
                return Some(from + W);
            }
        }
    }
    memchr::memchr(b':', &raw[from.min(raw.len())..]).map(|p| p + from)
}

/// Whether any byte of `w` equals `b` (the classic zero-byte test on `w ^ b*0x01..01`).
#[inline]
fn has_byte(w: u64, b: u8) -> bool {
    let x = w ^ (u64::from(b) * 0x0101_0101_0101_0101);
    (x.wrapping_sub(0x0101_0101_0101_0101) & !x & 0x8080_8080_8080_8080) != 0
}

/// Byte equality for short fields: two overlapping 16-byte compares for 16-32 bytes (the usual
/// `pid:N tid: 0xHEX` field), the library compare otherwise.
#[inline]
pub fn same_bytes(a: &[u8], b: &[u8]) -> bool {
    let n = a.len();
    if n != b.len() {
        return false;
    }
    if (16..=32).contains(&n) {
        let w = |s: &[u8], i: usize| {
            let mut x = [0u8; 16];
            x.copy_from_slice(&s[i..i + 16]);
            u128::from_le_bytes(x)
        };
        return w(a, 0) == w(b, 0) && w(a, n - 16) == w(b, n - 16);
    }
    a == b
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
    /// The run of ASCII digits here (consumed).
    #[inline]
    fn digits(&mut self) -> &'a [u8] {
        let rest = self.rest();
        let n = match load8(rest, 0).map(digit_prefix) {
            Some(n) if n < 8 => n,
            _ => rest.iter().take_while(|d| d.is_ascii_digit()).count(),
        };
        self.i += n;
        &rest[..n]
    }
    fn spaces(&mut self) {
        while self.b.get(self.i) == Some(&b' ') {
            self.i += 1;
        }
    }
    /// A decimal number. Timestamps are `%010lu` (ten digits or more) and line numbers short, so
    /// the fast path reads eight bytes at a time (SWAR: how many leading digits, then their value
    /// in three multiplies) and handles up to 15 digits; longer runs and the last bytes of the
    /// input take the plain loop, which checks for overflow past 19 digits.
    #[inline(always)]
    fn number(&mut self) -> Option<u64> {
        let rest = self.rest();
        if let Some(w) = load8(rest, 0) {
            let n = digit_prefix(w);
            if n == 0 {
                return None;
            }
            if n < 8 {
                self.i += n;
                return Some(prefix_value(w, n));
            }
            if let Some(w2) = load8(rest, 8) {
                let n2 = digit_prefix(w2);
                if n2 < 8 {
                    self.i += 8 + n2;
                    let low = if n2 == 0 { 0 } else { prefix_value(w2, n2) };
                    return Some(prefix_value(w, 8) * POW10[n2] + low);
                }
            }
        }
        self.number_slow()
    }

    /// [`Cursor::number`] one digit at a time.
    fn number_slow(&mut self) -> Option<u64> {
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
            v = checked_decimal(&rest[..all])?;
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

/// Eight bytes of `b` from `at`, little-endian (the first byte lowest), if there are eight.
#[inline(always)]
fn load8(b: &[u8], at: usize) -> Option<u64> {
    let s = b.get(at..at + 8)?;
    let mut a = [0u8; 8];
    a.copy_from_slice(s);
    Some(u64::from_le_bytes(a))
}

/// How many of the eight bytes of `w` (from the lowest) are ASCII digits before the first other
/// byte. After `^ '0'` a digit byte is 0..=9; adding 0x76 sets its high bit exactly when it is
/// more, and a byte with the high bit already set is no digit either. A carry out of a byte can
/// only disturb the bytes above the first non-digit, which do not count.
#[inline(always)]
fn digit_prefix(w: u64) -> usize {
    let x = w ^ 0x3030_3030_3030_3030;
    let m = (x | x.wrapping_add(0x7676_7676_7676_7676)) & 0x8080_8080_8080_8080;
    (m.trailing_zeros() / 8) as usize
}

/// The value of the first `n` (1..=8) ASCII digits of `w`: shifted up so that the bytes after
/// them fall off and zeros lead, then combined pairwise, quadwise and whole (SWAR).
#[inline(always)]
fn prefix_value(w: u64, n: usize) -> u64 {
    let d = (w ^ 0x3030_3030_3030_3030) << ((8 - n) * 8);
    let d = (d * 10 + (d >> 8)) & 0x00ff_00ff_00ff_00ff;
    let d = (d * 100 + (d >> 16)) & 0x0000_ffff_0000_ffff;
    (d * 10_000 + (d >> 32)) & 0xffff_ffff
}

const POW10: [u64; 8] = [1, 10, 100, 1_000, 10_000, 100_000, 1_000_000, 10_000_000];

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
            b"1234567a9",
            b"12345678:",
            b"1234567890123456",
            b"12345678901234567",
            b"0123456789 us:",
            b"9999999999999999999999",
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
    fn number_matches_a_plain_parse_on_random_digit_runs() {
        // Digit runs of every length around the 8-digit steps, with a stop byte after them.
        let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
        for _ in 0..20_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let len = (x % 25) as usize;
            let mut s: Vec<u8> = (0..len)
                .map(|i| b'0' + ((x >> (i % 60)) % 10) as u8)
                .collect();
            s.push(b"/: a9"[(x >> 61) as usize % 5]);
            // Bytes after the stop, so that the eight-byte loads see the stop mid-word too.
            s.extend_from_slice(&b"0123 us: [pid"[..(x >> 40) as usize % 14]);
            let n = s.iter().take_while(|d| d.is_ascii_digit()).count();
            let want = std::str::from_utf8(&s[..n])
                .ok()
                .and_then(|t| t.parse::<u64>().ok());
            let mut c = Cursor { b: &s, i: 0 };
            assert_eq!(c.number(), want, "{}", String::from_utf8_lossy(&s));
            if want.is_some() {
                assert_eq!(c.i, n);
            }
        }
    }

    #[test]
    fn fast_paths_agree_with_the_searches() {
        // The colon fast path, the field compare and the hint give what the plain searches give.
        let mut x: u64 = 0x2545_f491_4f6c_dd1d;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        let alphabet = b"ab:.]  0x9";
        for _ in 0..20_000 {
            let r = next();
            let len = 20 + (r % 20) as usize;
            let mut raw = b":3:".to_vec();
            raw.extend((0..len).map(|i| alphabet[((next() >> (i % 50)) % 10) as usize]));
            assert_eq!(
                first_colon(&raw, 3),
                memchr::memchr(b':', &raw[3..]).map(|p| p + 3),
                "{}",
                String::from_utf8_lossy(&raw)
            );
            let (a, b) = raw.split_at(raw.len() / 2);
            assert_eq!(
                same_bytes(a, &b[..a.len().min(b.len())]),
                a == &b[..a.len().min(b.len())]
            );
        }
        let lines: [&[u8]; 9] = [
            b":3:hip_module.cpp           :825 : 100 us: [pid:7 tid: 0x1] hipLaunchKernel ( 0x1 )",
            b":3:hip_module.cpp           :825 : 100 us: [pid:7 tid: 0x12] hipLaunchKernel ( 0x1 )",
            b":3:hip_module.cpp           :825 : 100 us: [pid:7 tid: 0x1 hipLaunchKernel ( 0x1 )",
            b":3:a:b                      :825 : 100 us: [pid:8 tid: 0x2] x",
            b":3:hip_memory.cpp           :493 : 100 us: 7    : [tid:0x1] hipMalloc",
            b":3:hip_memory.cpp           :493 : 100 us: 7    : [tid:0x12] hipMalloc",
            b":3:hip_memory.cpp           :493 : 100 us: 7    : [tid:0x1 hipMalloc",
            b":3:hip_memory.cpp           :493 : 100 us: 7     tid:0x1] hipMalloc",
            b":3:hip_memory.cpp           :493 : 100 us: 7 tid: 0x1] x",
        ];
        for hint_line in lines {
            let hint = parse(hint_line).thread;
            for l in lines {
                let mut hinted = parse_hinted(l, hint);
                assert_eq!(
                    hinted.thread_is_hint,
                    !hint.is_empty() && hinted.thread == hint
                );
                hinted.thread_is_hint = false;
                assert_eq!(hinted, parse(l));
            }
        }
    }

    #[test]
    fn rocm_5_0_to_5_6_bare_pid_then_tid() {
        // Debian 12's HIP 5.2.3 (tests/fixtures/logs/hip-5.2.3-bookworm-level4.log).
        let l = parse(
            b":1:rocdevice.cpp            :424 : 0548772064 us: 29393: \
            [tid:0x7f63651d2880] hsa_init failed.",
        );
        assert_eq!(l.kind, Kind::Runtime(1));
        assert_eq!(l.file(), b"rocdevice.cpp");
        assert_eq!(l.src_line(), 424);
        assert_eq!(l.ts_us, Some(548772064));
        assert_eq!(l.thread, b"29393: [tid:0x7f63651d2880");
        assert_eq!(l.pid(), Some(29393));
        assert_eq!(l.tid(), Some(0x7f63651d2880));
        assert_eq!(l.msg, b"hsa_init failed.");
        // `%-5d`: a short pid is padded before its colon.
        let l = parse(
            b":3:hip_memory.cpp           :493 : 0548772158 us: 812  : [tid:0xab] \
            \x1b[32mhipMalloc ( 0x7ffc5a825738, 256 )\x1b[0m",
        );
        assert_eq!((l.pid(), l.tid()), (Some(812), Some(0xab)));
        assert_eq!(l.msg, b"\x1b[32mhipMalloc ( 0x7ffc5a825738, 256 )\x1b[0m");
        // Not that shape: a message that starts with a digit, no thread.
        let l = parse(b":3:x.cpp                    :1   : 5 us: 42 things");
        assert_eq!(
            (l.kind, l.pid(), l.msg),
            (Kind::Runtime(3), None, &b"42 things"[..])
        );
        // Unclosed, like an unclosed `[pid:`: not the runtime's format.
        assert_eq!(
            parse(b":3:x.cpp:1 : 5 us: 7: [tid:0x1 hipInit").kind,
            Kind::Foreign
        );
        assert_eq!(thread_ids(b"7: tid:0x1"), None);
    }

    #[test]
    fn rocm_6_2_with_pid_tid() {
        let l = parse(
            b":3:hip_memory.cpp           :615 : 89870227932 us: [pid:1089444 \
            tid:0x76cc16cb11c0]  hipMalloc ( 0x7ffc16ba1708, 4096 ) ",
        );
        assert_eq!(l.kind, Kind::Runtime(3));
        assert_eq!(l.file(), b"hip_memory.cpp");
        assert_eq!(l.src_line(), 615);
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
        let l = parse(
            b":3:rocsettings.cpp          :287 : 452775184024d us: [pid:809742 tid: \
            7f203f7ab340] Using dev kernel arg wa = 2",
        );
        assert_eq!(l.tid(), Some(0x7f203f7ab340));
        assert_eq!(l.ts_us, Some(452775184024));
        let l = parse(
            b":3:hip_fatbin.cpp           :397 : 95859869682 us:  Searching for code \
            objects, HIP_FORCE_SPIRV_CODEOBJECT: 0",
        );
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
            (l.kind, l.file(), l.src_line()),
            (Kind::Runtime(3), &b""[..], 0)
        );
        let l = parse(
            b":runtime.cpp               :12  : 0000000042 us: [pid:7     tid:0xab] \
            [***rocr***] blit",
        );
        assert_eq!((l.kind, l.msg), (Kind::Rocr, &b"blit"[..]));
        assert_eq!(
            parse(b"Traceback (most recent call last):").kind,
            Kind::Foreign
        );
        assert_eq!(parse(b":3:x.cpp:1").kind, Kind::Foreign);
        assert_eq!(parse(b"").kind, Kind::Foreign);
    }
}

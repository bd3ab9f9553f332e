//! `--npd`: node-problem-detector's custom plugin protocol. NPD runs the plugin, reads at most
//! 4 KiB of stdout, trims white space, cuts it to `max_output_length` bytes (default 80;
//! `output = output[:MaxOutputLength]`, a byte cut: `plugin.go` lines 243-255 at v0.8.12) and
//! maps the exit code: 0 OK, 1 NonOK, anything else Unknown (kubernetes/node-problem-detector
//! `pkg/custompluginmonitor/plugin/plugin.go`, `types/types.go`, `types/config.go`; notes in
//! the shared reference notes, `fleet-plugins.md` §4.1). NonOK sets the node condition and may start
//! AMD's auto-remediation, so only a real failure exits 1; a check that could not decide exits
//! 2 (Unknown), never 1.
//!
//! The line is ASCII: NPD cuts it by bytes (`output[:maxOutputLength]` in `plugin.go`), and a
//! rule's `max_output_length` below `--npd-max-len` would cut a multi-byte character in two,
//! leaving invalid UTF-8 in the node condition. The doctor's own punctuation is transliterated
//! (`·` and `—` to `-`, `…` to `...`, `≤` to `<=`), any other non-ASCII character (a path, a
//! product name) becomes `?`, so that a cut at any byte is valid.

use super::{Counts, Finding, Status};

/// NPD's exit codes.
pub(crate) const OK: i32 = 0;
pub(crate) const NON_OK: i32 = 1;
pub(crate) const UNKNOWN: i32 = 2;

/// The message line (no newline, at most `max` bytes, cut at a character boundary) and the
/// exit code.
pub(crate) fn render(findings: &[Finding], max: usize) -> (String, i32) {
    let c = Counts::of(findings);
    // The finding of that status whose repair action is the heaviest (the first of equals):
    // the condition names what the node needs most.
    let first = |st: Status| {
        findings
            .iter()
            .filter(|f| f.status == st)
            .rev()
            .max_by_key(|f| f.action)
    };
    let (msg, code) = if let Some(f) = first(Status::Fail) {
        (headline("FAIL", f, c.fail + c.error), NON_OK)
    } else if let Some(f) = first(Status::Error) {
        (headline("UNKNOWN", f, c.error), UNKNOWN)
    } else if let Some(f) = first(Status::Warn) {
        (headline("OK, warn", f, c.warn), OK)
    } else {
        // Nothing judged (every check skipped: no GPU, no log) is said as such, not as a pass.
        if c.pass == 0 && c.skip > 0 {
            (
                format!("OK: nothing to judge here ({} checks skipped)", c.skip),
                OK,
            )
        } else {
            (format!("OK: {} checks pass", c.pass), OK)
        }
    };
    (bound(&msg, max), code)
}

/// The line for a usage error in `--npd` mode (a rule with bad arguments): NPD shows stdout in
/// the condition, so the cause is there too, not only in NPD's log (stderr). Exit [`UNKNOWN`].
pub(crate) fn usage_line(msg: &str, max: usize) -> String {
    bound(&format!("UNKNOWN usage: {msg}"), max)
}

fn headline(word: &str, f: &Finding, total: usize) -> String {
    let more = if total > 1 {
        format!(" (+{} more)", total - 1)
    } else {
        String::new()
    };
    // The count and the action go before the summary so that the cut never hides them.
    let action = f.action.map(|a| format!(" action={a}")).unwrap_or_default();
    format!("{word} {}{more}{action}: {}", f.id, f.summary)
}

/// One ASCII line of at most `max` bytes: control characters become spaces, non-ASCII is
/// transliterated or `?` ([`ascii`]), white space is trimmed (as NPD's `strings.TrimSpace`
/// would), and a cut ends with `...` when there is room.
pub(crate) fn bound(s: &str, max: usize) -> String {
    let clean = ascii(s);
    let clean = clean.trim();
    if clean.len() <= max {
        return clean.to_string();
    }
    let room = if max > 3 { max - 3 } else { max };
    let mut end = room;
    while end > 0 && !clean.is_char_boundary(end) {
        end -= 1;
    }
    let mut out = clean[..end].trim_end().to_string();
    if max > 3 {
        out.push_str("...");
    }
    out
}

/// ASCII only: control characters become spaces, the punctuation the doctor writes in its own
/// summaries (grep of src/ and checks/) its ASCII spelling, anything else `?`.
pub(crate) fn ascii(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        let t = match c {
            c if c.is_control() => " ",
            c if c.is_ascii() => {
                out.push(c);
                continue;
            }
            '\u{a0}' | '\u{2009}' | '\u{202f}' => " ",
            '·' | '—' | '–' | '‐' | '‑' | '−' => "-",
            '…' => "...",
            '≤' => "<=",
            '≥' => ">=",
            '≈' => "~",
            '≠' => "!=",
            '±' => "+-",
            '→' => "->",
            '←' => "<-",
            '×' => "x",
            '‘' | '’' | '′' => "'",
            '“' | '”' | '″' => "\"",
            '✓' => "ok",
            '✗' => "x",
            '°' => " deg",
            'µ' | 'μ' => "u",
            '§' => "S",
            _ => "?",
        };
        out.push_str(t);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f(id: &str, st: Status, s: &str) -> Finding {
        let mut x = Finding::new(st, s);
        x.id = id.into();
        x
    }

    #[test]
    fn exit_codes_follow_npd() {
        let ok = [f("a.b", Status::Pass, "fine")];
        assert_eq!(render(&ok, 80), ("OK: 1 checks pass".into(), OK));
        let skipped = [
            f("a.b", Status::Skip, "no GPU"),
            f("a.c", Status::Skip, "no log"),
        ];
        assert_eq!(
            render(&skipped, 80),
            ("OK: nothing to judge here (2 checks skipped)".into(), OK)
        );
        let warn = [f("a.b", Status::Warn, "meh")];
        assert_eq!(render(&warn, 80).1, OK);
        let err = [f("a.b", Status::Error, "hung"), f("c.d", Status::Pass, "x")];
        assert_eq!(render(&err, 80), ("UNKNOWN a.b: hung".into(), UNKNOWN));
        let fail = [
            f("e.f", Status::Error, "hung"),
            f("gpu.kfd", Status::Fail, "/dev/kfd: EACCES"),
        ];
        assert_eq!(
            render(&fail, 80),
            ("FAIL gpu.kfd (+1 more): /dev/kfd: EACCES".into(), NON_OK)
        );
    }

    #[test]
    fn the_heaviest_action_heads_the_line_and_is_never_cut() {
        let fails = [
            f("gpu.kfd", Status::Fail, "/dev/kfd: EACCES").action(crate::report::Action::FixConfig),
            f("health.ras", Status::Fail, "uncorrectable errors in umc")
                .action(crate::report::Action::DrainAndInspect),
            f("kernel.hangs", Status::Fail, "ring timeout")
                .action(crate::report::Action::RestartProcess),
        ];
        let (m, code) = render(&fails, 200);
        assert_eq!(code, NON_OK);
        assert!(
            m.starts_with("FAIL health.ras (+2 more) action=drain-and-inspect: uncorrectable"),
            "{m}"
        );
        // Equal actions: the first finding of the report heads the line.
        let equal = [
            f("a.b", Status::Warn, "one").action(crate::report::Action::None),
            f("a.c", Status::Warn, "two").action(crate::report::Action::None),
        ];
        assert_eq!(
            render(&equal, 80).0,
            "OK, warn a.b (+1 more) action=none: one"
        );
    }

    #[test]
    fn line_is_ascii_so_any_byte_cut_is_utf8() {
        let (m, _) = render(
            &[f(
                "gpu.kfd",
                Status::Fail,
                "3 GPUs · /home/jürgen/ROCm — 5 µs … ≤ 2 ✓ 漢",
            )],
            4096,
        );
        assert!(m.is_ascii(), "{m}");
        assert_eq!(
            m,
            "FAIL gpu.kfd: 3 GPUs - /home/j?rgen/ROCm - 5 us ... <= 2 ok ?"
        );
        // NPD cuts the bytes wherever its own bound says.
        for cut in 0..=m.len() {
            assert!(std::str::from_utf8(&m.as_bytes()[..cut]).is_ok());
        }
        assert_eq!(
            usage_line("--host-root /x: not a directory", 80),
            "UNKNOWN usage: --host-root /x: not a directory"
        );
        assert!(usage_line(&"é".repeat(100), 20).len() <= 20);
    }

    #[test]
    fn message_is_bounded_one_line_and_utf8() {
        let long = "é".repeat(100) + "\nsecond line";
        for max in [0, 1, 2, 3, 4, 5, 10, 79, 80, 81, 4096] {
            let (m, _) = render(&[f("x.y", Status::Fail, &long)], max);
            assert!(m.len() <= max, "{max}: {m}");
            assert!(!m.contains('\n'));
            assert_eq!(m, m.trim());
        }
        assert_eq!(bound("  ab  ", 80), "ab");
        assert_eq!(bound("abcdefghij", 8), "abcde...");
    }
}

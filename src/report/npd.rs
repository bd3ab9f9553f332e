//! `--npd`: node-problem-detector's custom plugin protocol. NPD runs the plugin, reads at most
//! 4 KiB of stdout, trims white space, cuts it to `max_output_length` bytes (default 80) and maps
//! the exit code: 0 OK, 1 NonOK, anything else Unknown (kubernetes/node-problem-detector
//! `pkg/custompluginmonitor/plugin/plugin.go`, `types/types.go`, `types/config.go`; notes in
//! the shared reference notes, `fleet-plugins.md` §4.1). NonOK sets the node condition and may start
//! AMD's auto-remediation, so only a real failure exits 1; a check that could not decide exits
//! 2 (Unknown), never 1.

use super::{Counts, Finding, Status};

/// NPD's exit codes.
pub const OK: i32 = 0;
pub const NON_OK: i32 = 1;
pub const UNKNOWN: i32 = 2;

/// The message line (no newline, at most `max` bytes, cut at a character boundary) and the
/// exit code.
pub fn render(findings: &[Finding], max: usize) -> (String, i32) {
    let c = Counts::of(findings);
    let first = |st: Status| findings.iter().find(|f| f.status == st);
    let (msg, code) = if let Some(f) = first(Status::Fail) {
        (headline("FAIL", f, c.fail + c.error), NON_OK)
    } else if let Some(f) = first(Status::Error) {
        (headline("UNKNOWN", f, c.error), UNKNOWN)
    } else if let Some(f) = first(Status::Warn) {
        (headline("OK, warn", f, c.warn), OK)
    } else {
        (format!("OK: {} checks pass", c.pass), OK)
    };
    (bound(&msg, max), code)
}

fn headline(word: &str, f: &Finding, total: usize) -> String {
    let more = if total > 1 {
        format!(" (+{} more)", total - 1)
    } else {
        String::new()
    };
    // The count goes before the summary so that the cut never hides it.
    format!("{word} {}{more}: {}", f.id, f.summary)
}

/// One line of at most `max` bytes: control characters become spaces, white space is trimmed
/// (as NPD's `strings.TrimSpace` would), and a cut ends with `...` when there is room.
pub fn bound(s: &str, max: usize) -> String {
    let clean: String = s
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
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

//! Maps the assembler's output for a batched input (one snippet per line) back to the lines
//! that failed. Pure: takes the input lines and the output text.
//!
//! LLVM's assembler reports each problem as `<stdin>:LINE:COL: error: message` (or
//! `warning:`), followed by an echo of the source line and a caret line. Anything else in the
//! output (a driver or linker error, a note that points elsewhere) cannot be attributed to a
//! line, and the caller falls back to one call per snippet. Measured behaviour: reference
//! tensile-asm-caps.md §11 (clang 15 and 19: one diagnostic per failing line, no cascades
//! between the single-line probes, no error limit).

use std::collections::BTreeSet;

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Batch {
    /// Every diagnostic was attributed; these 1-based lines failed (empty: all assembled).
    Lines(BTreeSet<usize>),
    /// Some output could not be attributed to an input line.
    Unattributable(String),
}

/// A located diagnostic: `<stdin>:L:C: severity: message`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Located<'a> {
    pub line: usize,
    pub column: usize,
    pub severity: &'a str,
    pub message: &'a str,
}

/// Parses one output line as a located diagnostic on `<stdin>`.
pub(crate) fn located(line: &str) -> Option<Located<'_>> {
    let rest = line.strip_prefix("<stdin>:")?;
    let (l, rest) = rest.split_once(':')?;
    let (c, rest) = rest.split_once(':')?;
    let lnum: usize = digits(l)?;
    let cnum: usize = digits(c)?;
    let rest = rest.strip_prefix(' ')?;
    for sev in ["fatal error", "error", "warning", "note", "remark"] {
        if let Some(msg) = rest.strip_prefix(sev).and_then(|r| r.strip_prefix(": ")) {
            return Some(Located {
                line: lnum,
                column: cnum,
                severity: sev,
                message: msg,
            });
        }
    }
    None
}

fn digits(s: &str) -> Option<usize> {
    if s.is_empty() || s.len() > 9 || !s.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    s.parse().ok()
}

fn is_caret_line(s: &str) -> bool {
    s.contains('^')
        && s.chars()
            .all(|c| c == ' ' || c == '\t' || c == '^' || c == '~')
}

fn is_echo_of(out: &str, src: &str) -> bool {
    out == src || out.trim_end() == src.trim_end() || out == src.replace('\t', " ")
}

/// Attributes the output of one batched call. `exited_ok` is "exit code 0".
pub fn attribute(input: &[&str], output: &str, exited_ok: bool) -> Batch {
    let lines: Vec<&str> = output.lines().collect();
    let mut failed = BTreeSet::new();
    let mut errors = 0usize;
    let mut i = 0;
    while i < lines.len() {
        let text = lines[i];
        let Some(d) = located(text) else {
            return Batch::Unattributable(format!(
                "output line without a <stdin> location: {}",
                clip(text)
            ));
        };
        if d.line == 0 || d.line > input.len() {
            return Batch::Unattributable(format!(
                "diagnostic for line {} of a {}-line input",
                d.line,
                input.len()
            ));
        }
        match d.severity {
            "error" | "fatal error" => errors += 1,
            "warning" => {}
            // A note or remark may point at another line than the one that failed.
            _ => return Batch::Unattributable(format!("{} line: {}", d.severity, clip(text))),
        }
        failed.insert(d.line);
        i += 1;
        if i < lines.len() && located(lines[i]).is_none() && is_echo_of(lines[i], input[d.line - 1])
        {
            i += 1;
        }
        if i < lines.len() && is_caret_line(lines[i]) {
            i += 1;
        }
    }
    if exited_ok && errors > 0 {
        return Batch::Unattributable("errors reported but the exit code was 0".into());
    }
    if !exited_ok && errors == 0 {
        return Batch::Unattributable("non-zero exit code without a located error".into());
    }
    Batch::Lines(failed)
}

fn clip(s: &str) -> String {
    let t: String = s.chars().take(200).collect();
    if t.len() < s.len() {
        format!("{t}...")
    } else {
        t
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // Real output of /usr/lib/llvm-15/bin/clang++ -x assembler -target amdgcn-amdhsa
    // -mcpu=gfx803 - (Debian 15.0.6) for the three lines below.
    const INPUT: [&str; 3] = [
        "v_add_co_u32 v0,vcc,v0,1",
        "v_add_nc_u32 v0,v0,1",
        "s_waitcnt vmcnt(63)",
    ];
    const GFX803: &str = "<stdin>:1:1: error: instruction not supported on this GPU\nv_add_co_u32 v0,vcc,v0,1\n^\n<stdin>:2:1: error: instruction not supported on this GPU\nv_add_nc_u32 v0,v0,1\n^\n<stdin>:3:17: error: too large value for vmcnt\ns_waitcnt vmcnt(63)\n                ^\n";

    #[test]
    fn maps_errors_to_lines() {
        assert_eq!(
            attribute(&INPUT, GFX803, false),
            Batch::Lines([1, 2, 3].into())
        );
    }

    #[test]
    fn clean_output_means_all_assembled() {
        assert_eq!(attribute(&INPUT, "", true), Batch::Lines(BTreeSet::new()));
    }

    #[test]
    fn a_warning_fails_its_line_like_tensile() {
        let out = "<stdin>:2:1: warning: x\n.warning \"x\"\n^\n";
        assert_eq!(
            attribute(&["nop", ".warning \"x\""], out, true),
            Batch::Lines([2].into())
        );
    }

    #[test]
    fn driver_and_link_errors_are_not_attributable() {
        let out = "ld.lld: error: /tmp/w/lib/libunwind.so is incompatible with \
            /tmp/--83adfe.o\nclang: error: ld.lld command failed with exit code 1 (use -v to see \
            invocation)\n";
        assert!(matches!(
            attribute(&INPUT, out, false),
            Batch::Unattributable(_)
        ));
        let mixed = format!("{GFX803}clang: error: something else\n");
        assert!(matches!(
            attribute(&INPUT, &mixed, false),
            Batch::Unattributable(_)
        ));
    }

    #[test]
    fn out_of_range_lines_notes_and_inconsistent_codes_are_rejected() {
        assert!(matches!(
            attribute(&INPUT, "<stdin>:9:1: error: x\n", false),
            Batch::Unattributable(_)
        ));
        assert!(matches!(
            attribute(&INPUT, "<stdin>:1:1: note: x\n", false),
            Batch::Unattributable(_)
        ));
        assert!(matches!(
            attribute(&INPUT, "<stdin>:1:1: error: x\n", true),
            Batch::Unattributable(_)
        ));
        assert!(matches!(
            attribute(&INPUT, "", false),
            Batch::Unattributable(_)
        ));
    }

    #[test]
    fn located_parses_fields_and_rejects_lookalikes() {
        let d = located("<stdin>:12:7: error: unknown directive").unwrap();
        assert_eq!(
            (d.line, d.column, d.severity, d.message),
            (12, 7, "error", "unknown directive")
        );
        assert!(located("<stdin>:x:7: error: y").is_none());
        assert!(located("<stdin>:1:2:error: y").is_none());
        assert!(located("foo.s:1:2: error: y").is_none());
        assert!(located("<stdin>:99999999999:1: error: y").is_none());
    }
}

//! Terminal control characters in untrusted text, made visible (issue 25, item 7).
//!
//! Texts the doctor prints come from places it does not control: a pasted error (`why`), a log
//! (`log`), host names in reports from other machines (`merge`), a file name or a tool's output
//! in a finding's evidence. Written raw to a terminal, their control characters are commands to
//! it: ECMA-48 escape sequences move the cursor, erase lines or hide text, a carriage return
//! overwrites the line it ends, and xterm's OSC 52 (`ESC ] 52 ; c ; BASE64 BEL`) sets the
//! clipboard ("Operating System Commands" in xterm's ctlseqs). The human output shows them
//! instead: every C0 control but line feed and tab, DEL, and the C1 controls U+0080..U+009F
//! (which a terminal may take as 8-bit `CSI`/`OSC`, ECMA-48 section 5.3) are written as `\xNN`
//! or `\u{NN}`. JSON output needs nothing more for C0: serde_json writes them as `\u00NN`
//! (RFC 8259 section 7 requires it).

use std::borrow::Cow;

/// Whether `c` is shown escaped: C0 controls except `\n` and `\t`, DEL, C1 controls.
pub(crate) fn is_unsafe(c: char) -> bool {
    (c.is_control() && c != '\n' && c != '\t') || ('\u{80}'..='\u{9f}').contains(&c)
}

fn push_escaped(out: &mut String, c: char) {
    use std::fmt::Write;
    if (c as u32) < 0x80 {
        let _ = write!(out, "\\x{:02x}", c as u32);
    } else {
        let _ = write!(out, "\\u{{{:x}}}", c as u32);
    }
}

/// The text with every control character but `\n` and `\t` made visible (`ESC` as `\x1b`).
pub(crate) fn visible(text: &str) -> Cow<'_, str> {
    if !text.chars().any(is_unsafe) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 16);
    for c in text.chars() {
        if is_unsafe(c) {
            push_escaped(&mut out, c);
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// The length of a colour sequence (SGR, ECMA-48 8.3.117: `ESC [`, digits and `;`, `m`) at the
/// start of `text`, if there is one: the only sequences the doctor writes itself.
fn sgr_len(text: &str) -> Option<usize> {
    let rest = text.strip_prefix("\x1b[")?;
    let params = rest
        .bytes()
        .take_while(|b| b.is_ascii_digit() || *b == b';')
        .count();
    (rest.as_bytes().get(params) == Some(&b'm')).then_some(2 + params + 1)
}

/// Like [`visible`], but keeps colour sequences (SGR): the last guard on everything the human
/// output writes, after the renderers escaped their untrusted fields with [`visible`] (so a
/// colour sequence left here is one the doctor wrote).
pub(crate) fn visible_keep_colour(text: &str) -> Cow<'_, str> {
    if !text.chars().any(is_unsafe) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 16);
    let mut i = 0;
    while let Some(c) = text[i..].chars().next() {
        if c == '\x1b' {
            if let Some(n) = sgr_len(&text[i..]) {
                out.push_str(&text[i..i + n]);
                i += n;
                continue;
            }
        }
        if is_unsafe(c) {
            push_escaped(&mut out, c);
        } else {
            out.push(c);
        }
        i += c.len_utf8();
    }
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn controls_are_shown() {
        // OSC 52 (clipboard), a CSI erase, a carriage return, BEL, DEL, 8-bit CSI.
        let t = "a\x1b]52;c;aGk=\x07b\x1b[2Kc\rd\x7fe\u{9b}31mf";
        assert_eq!(
            visible(t),
            "a\\x1b]52;c;aGk=\\x07b\\x1b[2Kc\\x0dd\\x7fe\\u{9b}31mf"
        );
        assert!(!visible(t).chars().any(is_unsafe));
    }

    #[test]
    fn plain_text_is_borrowed() {
        let t = "line 1\n\tline 2 → ü ✓ 中文";
        assert!(matches!(visible(t), Cow::Borrowed(_)));
        assert!(matches!(visible_keep_colour(t), Cow::Borrowed(_)));
    }

    #[test]
    fn colours_kept_other_sequences_not() {
        let t = "\x1b[31;1m✗\x1b[0m x\x1b]0;title\x07 \x1b[2J \x1b[m \x1b[";
        assert_eq!(
            visible_keep_colour(t),
            "\x1b[31;1m✗\x1b[0m x\\x1b]0;title\\x07 \\x1b[2J \x1b[m \\x1b["
        );
    }
}

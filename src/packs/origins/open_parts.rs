//! The parts of an attributed line that its format leaves open: what the printing code filled
//! in (a path, an errno's text, the GPU's processor), as opposed to the literal text that
//! attributed it. Pure.
//!
//! A matcher's captures are the format's placeholders between literal text; a placeholder at
//! the end of a format line is trimmed from the matcher (the match is not anchored), so the text
//! after the match is one more open part: that trimmed placeholder (rocBLAS's `... for GPU arch :
//! {}`), a collector's suffix, or the attributes a Go logger writes after the message (ollama's
//! `gpu_type=gfx1031`).

use super::{split_clr_prefix, split_device_prefix, Matcher, Origin, Table};

impl Table {
    /// The open parts of `line`, a line [`Table::attribute`] gave the origin `o`: the captures of
    /// the origin's most specific matcher that matches it, in order, then the rest of the line
    /// after that match (when not empty). Empty when `o` is not of this table or no matcher of it
    /// matches the line.
    pub(crate) fn open_parts(&self, o: &Origin, line: &str) -> Vec<String> {
        let Some(i) = self.index_of(o) else {
            return Vec::new();
        };
        let mine = |m: &&Matcher| m.origin == i;
        let best = |ms: &mut dyn Iterator<Item = &Matcher>, s: &str| -> Option<Vec<String>> {
            ms.filter(mine)
                .filter(|m| m.is_match(s))
                .max_by_key(|m| m.literal)
                .and_then(|m| parts(m, s))
        };
        if let Some(p) = best(&mut self.matchers.iter(), line) {
            return p;
        }
        // A short line: its matcher is anchored to the rest after the prefix that attributed it.
        if let Some((file, rest)) = split_clr_prefix(line) {
            let of = |k: &str| self.by_file.get(k).into_iter().flatten();
            if let Some(p) = best(&mut of(file).chain(of(super::ANY_FILE)), rest) {
                return p;
            }
        }
        split_device_prefix(line)
            .and_then(|rest| best(&mut self.by_device.iter(), rest))
            .unwrap_or_default()
    }
}

/// The captures of `m` in `s`, then the rest of `s` after the match when it is not blank.
fn parts(m: &Matcher, s: &str) -> Option<Vec<String>> {
    let c = m.compiled()?.captures(s.as_bytes())?;
    let mut out: Vec<String> = c
        .iter()
        .skip(1)
        .flatten()
        .map(|g| String::from_utf8_lossy(g.as_bytes()).into_owned())
        .collect();
    let end = c.get(0).map_or(s.len(), |g| g.end());
    let rest = String::from_utf8_lossy(&s.as_bytes()[end..]);
    if !rest.trim().is_empty() {
        out.push(rest.into_owned());
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::super::table;

    fn open(line: &str) -> Vec<String> {
        let t = table();
        let a = t.attribute(line);
        assert_eq!(a.len(), 1, "{line}");
        t.open_parts(a[0].origin, a[0].line)
    }

    /// rocBLAS's glob (its `{}` between literal text) and its trailing processor (trimmed from
    /// the matcher, so it is the rest of the line).
    #[test]
    fn captures_and_the_rest_after_the_match_are_open() {
        // https://github.com/justxi/rocm/issues/182
        let p = open(
            "rocBLAS warning: No paths matched /usr/lib64/library/*gfx906*co. Make sure that \
             ROCBLAS_TENSILE_LIBPATH is set correctly.",
        );
        assert_eq!(p, vec!["/usr/lib64/library/*gfx906*co".to_string()]);
        // ollama/ollama#3107 (in tests/corpus)
        let p = open(
            "rocBLAS error: Cannot read C:\\Users\\user\\AppData\\Local\\Programs\\Ollama\\rocm\\\
             /rocblas/library/TensileLibrary.dat: No such file or directory for GPU arch : \
             gfx1032.",
        );
        assert!(p.last().is_some_and(|l| l.trim() == "gfx1032."), "{p:?}");
        // The path's drive colon ends the first `{}` (the captures are lazy); the open text is
        // all there, in order.
        assert!(
            p.concat().contains("TensileLibrary.dat: No such file"),
            "{p:?}"
        );
    }

    /// A line of no format, or an origin of another table, has no open parts; odd bytes in the
    /// line do not panic.
    #[test]
    fn a_line_without_its_format_has_none() {
        let t = table();
        let o = &t.origins[0];
        assert!(t.open_parts(o, "nothing of that format").is_empty());
        let other = super::super::Table::parse(
            "t.toml",
            "[[source]]\nrepo = \"r/r\"\ncommit = \"c\"\n\n[[origin]]\ncomponent = \"clr\"\n\
             syntax = \"printf\"\nformat = \"Cannot find CO in the bundle %s for ISA: %s\"\n\
             level = \"error\"\nprinter = \"p\"\ngate = \"always\"\n\
             sites = [{ repo = \"r/r\", path = \"a.cpp\", line = 7 }]\n",
        )
        .expect("parses");
        let line = "Cannot find CO in the bundle /x/\u{e9}\u{1F600} for ISA: gfx1103 \u{e9}";
        assert!(t.open_parts(&other.origins[0], line).is_empty());
        let p = other.open_parts(&other.origins[0], line);
        assert!(p.iter().any(|s| s.contains("/x/")), "{p:?}");
        assert!(p.iter().any(|s| s.contains("gfx1103")), "{p:?}");
    }
}

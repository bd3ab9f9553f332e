//! The one glob matcher, pure: brace expansion (`{a,b}`) and the match of one path component
//! (`*`, `?`, `[abc]`, `[a-z]`, `[!abc]`). Used by the packs' `glob` probes (whose walker in
//! `packs/probe.rs` owns the I/O, its bounds and the whole-component `**`) and by the
//! `include` lines of `/etc/ld.so.conf` (`inventory::libraries`).
//! The syntax follows POSIX shell pattern matching (XCU 2.13) plus the `{a,b}` and `**`
//! extensions of bash and of the `globset` crate's documentation; the code is ours.

/// At most this many patterns come out of brace expansion (`{a,b}{c,d}` is 4).
pub(crate) const MAX_EXPANSIONS: usize = 64;
/// Brace groups nest at most this deep.
const MAX_BRACE_DEPTH: usize = 8;

/// Checks a pattern's syntax (closed brackets and braces, bounded expansion); the error says
/// what is wrong. Used at load so a bad pattern is a `file:line:column` error.
pub(crate) fn validate(pattern: &str) -> Result<(), String> {
    let all = expand_braces(pattern)?;
    for p in &all {
        for comp in p.split('/') {
            parse_component(comp)?;
        }
    }
    Ok(())
}

/// `{a,b}` alternatives expanded, left to right (`/opt/{rocm,amd}*/lib` -> two patterns).
/// A `\{` or a brace inside `[...]` is literal.
pub(crate) fn expand_braces(pattern: &str) -> Result<Vec<String>, String> {
    let mut out = Vec::new();
    expand_into(pattern, 0, &mut out)?;
    Ok(out)
}

fn expand_into(p: &str, depth: usize, out: &mut Vec<String>) -> Result<(), String> {
    if depth > MAX_BRACE_DEPTH {
        return Err(format!("braces nest deeper than {MAX_BRACE_DEPTH}"));
    }
    let Some((open, close, alts)) = first_group(p)? else {
        if out.len() >= MAX_EXPANSIONS {
            return Err(format!(
                "the braces expand to more than {MAX_EXPANSIONS} patterns"
            ));
        }
        out.push(p.to_string());
        return Ok(());
    };
    for alt in alts {
        let next = format!("{}{}{}", &p[..open], alt, &p[close + 1..]);
        expand_into(&next, depth + 1, out)?;
    }
    Ok(())
}

/// A `{...}` group: the byte offsets of its braces and its comma-separated alternatives.
type Group<'a> = (usize, usize, Vec<&'a str>);

/// The first top-level `{...}` group.
fn first_group(p: &str) -> Result<Option<Group<'_>>, String> {
    let b = p.as_bytes();
    let mut i = 0;
    let mut in_class = false;
    while i < b.len() {
        match b[i] {
            b'\\' => i += 1,
            b'[' if !in_class => in_class = true,
            b']' if in_class => in_class = false,
            b'{' if !in_class => {
                let mut depth = 0usize;
                let mut alts = Vec::new();
                let mut start = i + 1;
                let mut j = i;
                while j < b.len() {
                    match b[j] {
                        b'\\' => j += 1,
                        b'{' => depth += 1,
                        b'}' => {
                            depth -= 1;
                            if depth == 0 {
                                alts.push(&p[start..j]);
                                return Ok(Some((i, j, alts)));
                            }
                        }
                        b',' if depth == 1 => {
                            alts.push(&p[start..j]);
                            start = j + 1;
                        }
                        _ => {}
                    }
                    j += 1;
                }
                return Err(format!("unclosed '{{' in '{p}'"));
            }
            b'}' if !in_class => return Err(format!("'}}' without '{{' in '{p}'")),
            _ => {}
        }
        i += 1;
    }
    if in_class {
        return Err(format!("unclosed '[' in '{p}'"));
    }
    Ok(None)
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Tok {
    Lit(char),
    Any,
    Star,
    /// `[...]`: (negated, ranges).
    Class(bool, Vec<(char, char)>),
}

fn parse_component(comp: &str) -> Result<Vec<Tok>, String> {
    let mut out = Vec::new();
    let mut it = comp.chars().peekable();
    while let Some(c) = it.next() {
        match c {
            '\\' => out.push(Tok::Lit(it.next().unwrap_or('\\'))),
            '?' => out.push(Tok::Any),
            '*' => {
                if out.last() != Some(&Tok::Star) {
                    out.push(Tok::Star);
                }
            }
            '[' => {
                let negated = matches!(it.peek(), Some('!') | Some('^'));
                if negated {
                    it.next();
                }
                let mut ranges = Vec::new();
                let mut first = true;
                loop {
                    let Some(c) = it.next() else {
                        return Err(format!("unclosed '[' in '{comp}'"));
                    };
                    if c == ']' && !first {
                        break;
                    }
                    first = false;
                    let lo = if c == '\\' {
                        it.next().unwrap_or('\\')
                    } else {
                        c
                    };
                    if it.peek() == Some(&'-') {
                        let mut look = it.clone();
                        look.next();
                        match look.peek() {
                            Some(&hi) if hi != ']' => {
                                it.next();
                                it.next();
                                if hi < lo {
                                    return Err(format!(
                                        "range '{lo}-{hi}' is reversed in '{comp}'"
                                    ));
                                }
                                ranges.push((lo, hi));
                                continue;
                            }
                            _ => {}
                        }
                    }
                    ranges.push((lo, lo));
                }
                out.push(Tok::Class(negated, ranges));
            }
            c => out.push(Tok::Lit(c)),
        }
    }
    Ok(out)
}

/// Whether a path component has wildcards (otherwise it is looked up, not listed).
pub(crate) fn has_magic(comp: &str) -> bool {
    comp.contains(['*', '?', '[', '\\'])
}

/// Whether `name` matches the component pattern `comp` (no `/` in either). A leading `.` in a
/// name is matched only by a leading `.` in the pattern, as in the shell. Invalid patterns
/// match nothing (they are refused at load). Linear in practice: one backtrack point.
pub(crate) fn matches(comp: &str, name: &str) -> bool {
    let Ok(p) = parse_component(comp) else {
        return false;
    };
    if name.starts_with('.') && !matches!(p.first(), Some(Tok::Lit('.'))) {
        return false;
    }
    let n: Vec<char> = name.chars().collect();
    let (mut i, mut j) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while j < n.len() {
        let step = match p.get(i) {
            Some(Tok::Lit(c)) => *c == n[j],
            Some(Tok::Any) => true,
            Some(Tok::Class(neg, r)) => {
                r.iter().any(|(lo, hi)| (*lo..=*hi).contains(&n[j])) != *neg
            }
            Some(Tok::Star) => {
                star = Some((i, j));
                i += 1;
                continue;
            }
            None => false,
        };
        if step {
            i += 1;
            j += 1;
        } else if let Some((si, sj)) = star {
            i = si + 1;
            j = sj + 1;
            star = Some((si, sj + 1));
        } else {
            return false;
        }
    }
    while p.get(i) == Some(&Tok::Star) {
        i += 1;
    }
    i == p.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn components_match_like_the_shell() {
        assert!(matches("*.toml", "a.toml"));
        assert!(!matches("*.toml", "a.toml~"));
        assert!(matches("libamdhip64.so.?", "libamdhip64.so.6"));
        assert!(matches("*", "x"));
        assert!(!matches("*", ".hidden"));
        assert!(matches(".*", ".hidden"));
        assert!(!matches("a*b", "acd"));
        assert!(matches("gfx[0-9][0-9]*", "gfx90a"));
        assert!(!matches("gfx[0-9][0-9]*", "gfxab"));
        assert!(matches("rocm-[!a-z]*", "rocm-6.2"));
        assert!(!matches("rocm-[!a-z]*", "rocm-dev"));
        assert!(matches("[]x]", "]"));
        assert!(matches("a[-]b", "a-b"));
        assert!(matches("\\*", "*"));
        assert!(!matches("\\*", "x"));
        // Many stars stay fast (one backtrack point).
        let name = "a".repeat(5000);
        assert!(!matches(&format!("{}b", "*a".repeat(50)), &name));
    }

    #[test]
    fn braces_expand_in_order_and_are_bounded() {
        assert_eq!(
            expand_braces("/usr{,/local}/share/cmake-*/x").unwrap(),
            ["/usr/share/cmake-*/x", "/usr/local/share/cmake-*/x"]
        );
        assert_eq!(expand_braces("{a,b{c,d}}e").unwrap(), ["ae", "bce", "bde"]);
        assert_eq!(expand_braces("[{]x").unwrap(), ["[{]x"]);
        assert!(expand_braces("{a,b").unwrap_err().contains("unclosed"));
        assert!(expand_braces("a}").is_err());
        let bomb = "{a,b,c,d}".repeat(4);
        assert!(expand_braces(&bomb).unwrap_err().contains("more than"));
        let deep = format!("{}x{}", "{a,".repeat(20), "}".repeat(20));
        assert!(expand_braces(&deep).is_err());
    }

    #[test]
    fn validation_names_the_problem() {
        assert!(validate("/opt/rocm*/lib/**/*.so.[0-9]").is_ok());
        assert!(validate("/x/[abc").unwrap_err().contains("unclosed '['"));
        assert!(validate("/x/[z-a]").unwrap_err().contains("reversed"));
    }
}

//! Where a line comes from (issue 28, item 1): the format strings harvested from the sources of
//! the stack (`checks/origins.toml`, written by `scripts/harvest-origins.py` from pinned commits)
//! turned into matchers, and the attribution of each line of a text to the call site that
//! prints it. Pure: no I/O.
//!
//! A format becomes one matcher per line it prints (a `\n` inside a format starts another
//! line). Literal text is matched exactly (runs of blanks as runs of blanks: a paste re-wraps
//! them), printf conversions (`%s %d %u %x %p %lu %zu %f`, Go's `%v %w %q`) and stream or fmt
//! placeholders (`{}`) become typed captures, and the match may start anywhere in the line, since
//! every collector puts its own prefix in front (docs/check-packs.md). Speed: each matcher is indexed by
//! its rarest literal word; a line is scanned once for the 4-byte heads of those words and only
//! the matchers whose word is really there run their regex.

use regex::bytes::Regex as BytesRegex;
use regex::Regex;
use rustc_hash::FxHashMap;
use serde::Deserialize;
use std::sync::OnceLock;

mod open_parts;

/// The path of the table, as errors name it.
pub(crate) const FILE: &str = "checks/origins.toml";
/// The table as build.rs converted it to JSON (it parses ~30 times faster than the TOML).
const JSON: &str = include_str!(concat!(env!("OUT_DIR"), "/origins.json"));

/// One repository the harvest read, at its pinned commit.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Source {
    pub repo: String,
    /// The release tag, for an older release read beside the newest pin (empty for the pin).
    #[serde(default)]
    pub at: String,
    pub commit: String,
}

/// How a format's placeholders are written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Syntax {
    /// C printf (or Go fmt) conversions.
    Printf,
    /// A `<<` chain: `{}` for a non-literal operand, `{{`/`}}` for literal braces.
    Stream,
    /// Go slog: a constant message (its attributes follow it on the line).
    GoSlog,
}

/// One call site of a format.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Site {
    pub repo: String,
    /// The older release this site was read at (empty: the repository's newest pin).
    #[serde(default)]
    pub at: String,
    pub path: String,
    pub line: u32,
    #[serde(default)]
    pub function: String,
    /// The `if` condition in front of the call, where the source shows it.
    #[serde(default)]
    pub condition: String,
}

/// One format string and every place that prints it.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Origin {
    pub component: String,
    pub syntax: Syntax,
    pub format: String,
    pub level: String,
    pub printer: String,
    pub gate: String,
    pub sites: Vec<Site>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    source: Vec<Source>,
    origin: Vec<Origin>,
}

/// A compiled line of a format.
struct Matcher {
    origin: usize,
    /// The pattern, compiled on first use: most matchers never meet their word.
    pattern: String,
    regex: OnceLock<Option<BytesRegex>>,
    /// The literal word the line must contain (the index key).
    word: String,
    /// The line's other literal words: a line without one of them cannot match, and looking
    /// for them costs less than the regex (each is matched byte for byte).
    others: Vec<String>,
    /// Bytes of literal text: the most specific matcher wins a line.
    literal: usize,
}

impl Matcher {
    /// The pattern compiled without Unicode: blanks, digits and any character of a capture
    /// are ASCII classes and bytes. A Unicode `\s`, `\d` or `.` compiles to an automaton of
    /// every UTF-8 range, and the matchers a 10,000-line log meets took 1.2 billion
    /// instructions to compile that way (callgrind, docs/benchmarks.md); what the formats print
    /// around their captures is ASCII, and the literal text still matches byte for byte.
    fn compiled(&self) -> Option<&BytesRegex> {
        self.regex
            .get_or_init(|| {
                regex::bytes::RegexBuilder::new(&self.pattern)
                    .unicode(false)
                    .build()
                    .ok()
            })
            .as_ref()
    }

    /// The same matcher, not yet compiled.
    fn again(&self) -> Matcher {
        Matcher {
            origin: self.origin,
            pattern: self.pattern.clone(),
            regex: OnceLock::new(),
            word: self.word.clone(),
            others: self.others.clone(),
            literal: self.literal,
        }
    }

    fn is_match(&self, s: &str) -> bool {
        self.compiled().is_some_and(|r| r.is_match(s.as_bytes()))
    }
}

/// The loaded table and its index.
pub struct Table {
    pub sources: Vec<Source>,
    pub origins: Vec<Origin>,
    matchers: Vec<Matcher>,
    /// First four bytes of a matcher's word -> the matchers keyed by it.
    index: FxHashMap<u32, Vec<u32>>,
    /// A bit per first two bytes of the index's words: most places in a line start none, and
    /// this answers before the hash does.
    starts: Vec<u64>,
    /// CLR source file name -> the anchored matchers of its short lines (key [`ANY_FILE`]: the
    /// short lines of a macro in a header, which print the including file's name).
    by_file: FxHashMap<String, Vec<Matcher>>,
    /// The anchored matchers of the amdgpu driver's short `dev_*` lines, for the rest of a line
    /// after the device prefix the kernel puts in front of them.
    by_device: Vec<Matcher>,
    /// `<level> <function>` -> the anchored matchers of MIOpen's short lines printed there (the
    /// compiler's log a failed build passes on, `MIOPEN_LOG_W(ex.text)`), for the rest of a line
    /// after the logger's prefix, which names the level and the function.
    by_function: FxHashMap<String, Vec<Matcher>>,
}

/// The `by_file` key of a CLR macro's short lines: `ClPrint` expands `__FILE__` where the macro
/// is used (hip_internal.hpp's `HIP_RETURN` prints `:3:hip_platform.cpp :670 : ... init:
/// Returned hipErrorNoBinaryForGpu :`), so the prefix names any file.
const ANY_FILE: &str = "*";

/// A piece of one format line.
#[derive(Debug, PartialEq)]
enum Piece {
    Lit(String),
    /// A capture: its regex.
    Cap(&'static str),
}

/// The regex of a printf conversion (`spec` is its letter; `alt` the `#` flag).
fn conversion(spec: char, alt: bool) -> &'static str {
    match spec {
        'd' | 'i' => r"\s*-?\d+",
        'u' => r"\s*\d+",
        'x' | 'X' if alt => r"(?:0[xX])?[0-9a-fA-F]+",
        'x' | 'X' | 'o' => r"\s*[0-9a-fA-F]+",
        'p' => r"(?:0x[0-9a-fA-F]+|\(nil\)|[0-9a-fA-F]+)",
        'f' | 'e' | 'E' | 'g' | 'G' => r"\s*(?:[-+]?[0-9.]+(?:[eE][-+]?\d+)?|-?nan|-?inf)",
        'c' => r".",
        _ => r".*?",
    }
}

/// A printf `%s:%d` read as a source file and its line: a path without blanks that ends in an
/// extension, a colon, a number (ggml's `at %s:%d` prints `__FILE__` and `__LINE__`).
const FILE_LINE: &str = r"[^\s:]*[\w.]\.[A-Za-z]\w*:\d+";

/// Splits one line of a printf format into pieces (`file_line`: a `%s:%d` becomes one
/// [`FILE_LINE`] capture).
fn printf_pieces(f: &str, file_line: bool) -> Vec<Piece> {
    let mut out = Vec::new();
    let mut lit = String::new();
    let mut it = f.chars().peekable();
    while let Some(c) = it.next() {
        if c != '%' {
            lit.push(c);
            continue;
        }
        if it.peek() == Some(&'%') {
            it.next();
            lit.push('%');
            continue;
        }
        let mut alt = false;
        while let Some(&n) = it.peek() {
            if "-+ #0".contains(n) {
                alt |= n == '#';
                it.next();
            } else {
                break;
            }
        }
        while it
            .peek()
            .is_some_and(|n| n.is_ascii_digit() || *n == '.' || *n == '*')
        {
            it.next();
        }
        while it.peek().is_some_and(|n| "hlzjtLq".contains(*n)) {
            it.next();
        }
        match it.next() {
            Some(spec) if spec.is_ascii_alphabetic() => {
                if !lit.is_empty() {
                    out.push(Piece::Lit(std::mem::take(&mut lit)));
                }
                let rest = it.clone().take(3).collect::<String>();
                if file_line && spec == 's' && [":%d", ":%u", ":%i"].contains(&rest.as_str()) {
                    it.nth(2);
                    out.push(Piece::Cap(FILE_LINE));
                } else {
                    out.push(Piece::Cap(conversion(spec, alt)));
                }
            }
            // A lone `%` (a percentage sign in a message): literal.
            Some(other) => {
                lit.push('%');
                lit.push(other);
            }
            None => lit.push('%'),
        }
    }
    if !lit.is_empty() {
        out.push(Piece::Lit(lit));
    }
    out
}

/// Splits one line of a stream template (`{}` captures, `{{`/`}}` braces) into pieces.
fn stream_pieces(f: &str) -> Vec<Piece> {
    let mut out = Vec::new();
    let mut lit = String::new();
    let mut rest = f;
    while let Some(c) = rest.chars().next() {
        if rest.starts_with("{{") {
            lit.push('{');
            rest = &rest[2..];
        } else if rest.starts_with("}}") {
            lit.push('}');
            rest = &rest[2..];
        } else if rest.starts_with("{}") {
            if !lit.is_empty() {
                out.push(Piece::Lit(std::mem::take(&mut lit)));
            }
            out.push(Piece::Cap(r".*?"));
            rest = &rest[2..];
        } else {
            lit.push(c);
            rest = &rest[c.len_utf8()..];
        }
    }
    if !lit.is_empty() {
        out.push(Piece::Lit(lit));
    }
    out
}

/// The pieces of one line of a format, as printed.
fn pieces_of(syntax: Syntax, l: &str) -> Vec<Piece> {
    match syntax {
        Syntax::Printf => printf_pieces(l, false),
        Syntax::Stream => stream_pieces(l),
        Syntax::GoSlog => vec![Piece::Lit(l.to_string())],
    }
}

/// The pieces of each line a format prints, trimmed of blanks and of captures at either end
/// (the match is not anchored, so a capture there adds nothing). A printf line under the floors
/// ([`MIN_LETTERS`], or a head under [`MIN_HEAD`]) that names a source file and line is read
/// with its `%s:%d` as a [`FILE_LINE`] capture, which it keeps at either end.
fn lines_of(o: &Origin) -> Vec<Vec<Piece>> {
    o.format
        .split('\n')
        .map(|l| {
            let p = trimmed(pieces_of(o.syntax, l));
            let weak =
                letters(&p) < MIN_LETTERS || head_of(&p).is_some_and(|h| letters(h) < MIN_HEAD);
            if o.syntax == Syntax::Printf && weak {
                let typed = trimmed(printf_pieces(l, true));
                if specific_by_file_line(&typed) {
                    return typed;
                }
            }
            p
        })
        .collect()
}

/// `p` without captures at either end (a [`FILE_LINE`] stays) and without blanks at its ends.
fn trimmed(mut p: Vec<Piece>) -> Vec<Piece> {
    let loose = |x: Option<&Piece>| matches!(x, Some(Piece::Cap(c)) if *c != FILE_LINE);
    while loose(p.first()) {
        p.remove(0);
    }
    while loose(p.last()) {
        p.pop();
    }
    if let Some(Piece::Lit(s)) = p.first_mut() {
        *s = s.trim_start().to_string();
    }
    if let Some(Piece::Lit(s)) = p.last_mut() {
        *s = s.trim_end().to_string();
    }
    p.retain(|x| !matches!(x, Piece::Lit(s) if s.is_empty()));
    p
}

/// Whether a line is specific by the source file and line it names: a [`FILE_LINE`] capture and
/// [`MIN_LETTERS_FILE_LINE`] letters of literal text.
fn specific_by_file_line(p: &[Piece]) -> bool {
    p.iter()
        .any(|x| matches!(x, Piece::Cap(c) if *c == FILE_LINE))
        && letters(p) >= MIN_LETTERS_FILE_LINE
}

/// The letters of literal text in a line's pieces.
fn letters(p: &[Piece]) -> usize {
    p.iter()
        .map(|x| match x {
            Piece::Lit(s) => s.chars().filter(|c| c.is_alphabetic()).count(),
            Piece::Cap(_) => 0,
        })
        .sum()
}

/// A line with fewer letters of its own than this is no evidence of where it comes from.
const MIN_LETTERS: usize = 12;
/// A head of fewer letters than this also matches other programs' lines ("current device: "),
/// scripts/harvest-origins.py's MIN_HEAD_SECOND; such a line is attributed by its head only
/// where it names no source file and line.
const MIN_HEAD: usize = 14;
/// The letters a line specific by its source file and line needs (`CUDA error %d at %s:%d: %s`
/// has 11), scripts/harvest-origins.py's MIN_LETTERS_FILE_LINE.
const MIN_LETTERS_FILE_LINE: usize = 8;
/// The shortest index word (the index reads 4-byte heads).
const MIN_WORD: usize = 4;

fn head(b: &[u8]) -> u32 {
    u32::from_le_bytes([b[0], b[1], b[2], b[3]])
}

fn words(p: &[Piece]) -> impl Iterator<Item = &str> {
    p.iter()
        .filter_map(|x| match x {
            Piece::Lit(s) => Some(s.split_whitespace()),
            Piece::Cap(_) => None,
        })
        .flatten()
        .filter(|w| w.len() >= MIN_WORD)
}

/// The regex of a line's pieces (unanchored) and its bytes of literal text.
fn regex_of(p: &[Piece]) -> (String, usize) {
    let mut re = String::new();
    let mut literal = 0;
    for x in p {
        match x {
            Piece::Lit(s) => {
                literal += s.len();
                let parts: Vec<String> = s.split_whitespace().map(regex::escape).collect();
                if s.starts_with(char::is_whitespace) {
                    re.push_str(r"\s*");
                }
                re.push_str(&parts.join(r"\s+"));
                if s.ends_with(char::is_whitespace) && !parts.is_empty() {
                    re.push_str(r"\s*");
                }
            }
            Piece::Cap(c) => {
                re.push('(');
                re.push_str(c);
                re.push(')');
            }
        }
    }
    (re, literal)
}

/// The shortest run of pieces from the start that carries [`MIN_LETTERS`] letters, when it is
/// shorter than the whole line: a paste cut short, or a later release that changed the end of
/// the message (MIOpen's kernel-database warning names another URL), still shows this head.
fn head_of(p: &[Piece]) -> Option<&[Piece]> {
    (1..p.len())
        .find(|&k| letters(&p[..k]) >= MIN_LETTERS)
        .map(|k| &p[..k])
}

impl Piece {
    fn copy(&self) -> Piece {
        match self {
            Piece::Lit(s) => Piece::Lit(s.clone()),
            Piece::Cap(c) => Piece::Cap(c),
        }
    }
}

/// Whether a CLR site is a macro in a header (no enclosing function): its `ClPrint` names the
/// file that uses the macro, not the header.
fn is_macro_site(site: &Site) -> bool {
    site.function.is_empty() && [".hpp", ".h"].iter().any(|e| site.path.ends_with(e))
}

/// The anchored matchers of a format's short lines: under [`MIN_LETTERS`] letters, with at least
/// `min` letters of literal text; each with the line's pieces.
fn short_lines(i: usize, o: &Origin, min: usize) -> impl Iterator<Item = (Matcher, usize)> + '_ {
    o.format.split('\n').filter_map(move |l| {
        let p = pieces_of(o.syntax, l);
        let n = letters(&p);
        let lit = p
            .iter()
            .any(|x| matches!(x, Piece::Lit(s) if !s.trim().is_empty()));
        if n >= MIN_LETTERS || n < min || !lit {
            return None;
        }
        Some((whole_line(i, &p), n))
    })
}

/// The anchored matcher of a line that must be the whole rest of a line after a prefix.
fn whole_line(origin: usize, p: &[Piece]) -> Matcher {
    let (re, literal) = regex_of(p);
    Matcher {
        origin,
        pattern: format!(r"^\s*{re}\s*$"),
        regex: OnceLock::new(),
        word: String::new(),
        others: Vec::new(),
        literal,
    }
}

/// A MIOpen format's short lines (a single line under [`MIN_LETTERS`], a lone variable among
/// them), each keyed by the level and the function of each site that prints it: MIOpen's logger
/// puts both in front of the text (`MIOpen(HIP): Warning [BuildHip] `, logger.hpp
/// `MIOPEN_LOG_XQ_`), so the prefix says who prints even a line that is all variable.
fn short_miopen_lines(i: usize, o: &Origin) -> Vec<(String, Matcher)> {
    let p = pieces_of(o.syntax, &o.format);
    if o.format.contains('\n') || letters(&p) >= MIN_LETTERS {
        return Vec::new();
    }
    let mut out = Vec::new();
    for site in o.sites.iter().filter(|s| !s.function.is_empty()) {
        let name = site.function.rsplit("::").next().unwrap_or(&site.function);
        out.push((format!("{} {name}", o.level), whole_line(i, &p)));
    }
    out
}

/// A CLR format's short lines, each keyed by the file name of each site that prints it.
fn short_clr_lines(i: usize, o: &Origin) -> Vec<(String, Matcher)> {
    let mut out = Vec::new();
    for (m, _) in short_lines(i, o, 0) {
        for site in &o.sites {
            let base = site.path.rsplit('/').next().unwrap_or(&site.path);
            let key = if is_macro_site(site) { ANY_FILE } else { base };
            out.push((key.to_string(), m.again()));
        }
    }
    out
}

/// The matchers of the lines, each keyed by its rarest word: a common word ("failed") would send
/// every line that has it through hundreds of regexes.
fn keyed_matchers(lines: &[(usize, Vec<Piece>)]) -> Vec<Matcher> {
    let mut freq: FxHashMap<&str, usize> = FxHashMap::default();
    for (_, p) in lines {
        for w in words(p) {
            *freq.entry(w).or_default() += 1;
        }
    }
    lines
        .iter()
        .map(|(i, p)| {
            let word = words(p)
                .min_by_key(|w| (freq[w], std::cmp::Reverse(w.len())))
                .expect("filtered above")
                .to_string();
            let (re, literal) = regex_of(p);
            let mut others: Vec<String> = words(p)
                .filter(|w| *w != word)
                .map(str::to_string)
                .collect();
            others.sort_unstable();
            others.dedup();
            Matcher {
                origin: *i,
                pattern: re,
                regex: OnceLock::new(),
                word,
                others,
                literal,
            }
        })
        .collect()
}

impl Table {
    /// Compiles the table from its TOML text (`file` names it in errors); the built-in table is
    /// read from its JSON copy ([`table`]), so only the tests parse TOML.
    #[cfg(test)]
    pub(crate) fn parse(file: &str, text: &str) -> Result<Table, crate::data::DataError> {
        Ok(Table::compile(crate::data::load(file, text)?))
    }

    /// Compiles the table from the JSON copy build.rs made of `file`.
    fn from_converted(file: &str, json: &str) -> Result<Table, crate::data::DataError> {
        Ok(Table::compile(crate::data::load_converted(file, json)?))
    }

    fn compile(f: File) -> Table {
        let mut lines: Vec<(usize, Vec<Piece>)> = Vec::new();
        let mut by_file: FxHashMap<String, Vec<Matcher>> = FxHashMap::default();
        let mut by_device = Vec::new();
        let mut by_function: FxHashMap<String, Vec<Matcher>> = FxHashMap::default();
        for (i, o) in f.origin.iter().enumerate() {
            for p in lines_of(o) {
                let file_line = specific_by_file_line(&p);
                if (letters(&p) >= MIN_LETTERS || file_line) && words(&p).next().is_some() {
                    if let Some(h) = head_of(&p).filter(|_| !file_line) {
                        if words(h).next().is_some() {
                            lines.push((i, h.iter().map(Piece::copy).collect()));
                        }
                    }
                    lines.push((i, p));
                }
            }
            // CLR's prefix names the source file: a short line of a CLR format is attributed
            // when the file agrees and the whole rest of the line matches.
            if o.component == "clr" {
                for (key, m) in short_clr_lines(i, o) {
                    by_file.entry(key).or_default().push(m);
                }
            }
            if o.component == "amdgpu" && o.printer.starts_with("dev_") {
                by_device.extend(short_lines(i, o, 2).map(|(m, _)| m));
            }
            if o.component == "miopen" {
                for (key, m) in short_miopen_lines(i, o) {
                    by_function.entry(key).or_default().push(m);
                }
            }
        }
        let matchers = keyed_matchers(&lines);
        let mut index: FxHashMap<u32, Vec<u32>> = FxHashMap::default();
        let mut starts = vec![0u64; 1 << 10];
        for (n, m) in matchers.iter().enumerate() {
            let w = m.word.as_bytes();
            index.entry(head(w)).or_default().push(n as u32);
            let two = usize::from(u16::from_le_bytes([w[0], w[1]]));
            starts[two >> 6] |= 1 << (two & 63);
        }
        Table {
            sources: f.source,
            origins: f.origin,
            matchers,
            index,
            starts,
            by_file,
            by_device,
            by_function,
        }
    }

    /// How many line matchers the table compiled to.
    #[cfg(test)]
    pub(crate) fn matchers(&self) -> usize {
        self.matchers.len()
    }

    /// The formats whose pattern does not compile (each is compiled lazily, on first use; the
    /// built-in table's test asserts there is none).
    #[cfg(test)]
    pub(crate) fn bad_patterns(&self) -> Vec<String> {
        self.matchers
            .iter()
            .chain(self.by_file.values().flatten())
            .filter(|m| m.compiled().is_none())
            .map(|m| self.origins[m.origin].format.clone())
            .collect()
    }

    /// The commit the harvest read `repo` at (`at`: an older release's tag, or empty).
    pub fn commit_of(&self, repo: &str, at: &str) -> Option<&str> {
        self.sources
            .iter()
            .find(|s| s.repo == repo && s.at == at)
            .map(|s| s.commit.as_str())
    }

    /// The origin of one line (ANSI colour codes ignored), the most specific when several
    /// formats match.
    pub fn origin_of(&self, line: &str) -> Option<&Origin> {
        let clean;
        let line = if line.contains('\x1b') {
            clean = strip_ansi(line);
            clean.as_str()
        } else {
            line
        };
        let b = line.as_bytes();
        if b.len() < MIN_WORD {
            return None;
        }
        let mut best: Option<&Matcher> = None;
        let mut tried: Vec<u32> = Vec::new();
        for i in 0..=b.len() - MIN_WORD {
            let two = usize::from(u16::from_le_bytes([b[i], b[i + 1]]));
            if self.starts[two >> 6] & (1 << (two & 63)) == 0 {
                continue;
            }
            let Some(cands) = self.index.get(&head(&b[i..])) else {
                continue;
            };
            for &n in cands {
                let m = &self.matchers[n as usize];
                if !b[i..].starts_with(m.word.as_bytes())
                    || best.is_some_and(|x| x.literal >= m.literal)
                    || tried.contains(&n)
                {
                    continue;
                }
                tried.push(n);
                if m.others.iter().all(|w| line.contains(w.as_str())) && m.is_match(line) {
                    best = Some(m);
                }
            }
        }
        best.or_else(|| self.short_line(line))
            .map(|m| &self.origins[m.origin])
    }

    /// The matcher of a short line whose prefix says who prints it: CLR's names the source file,
    /// MIOpen's the level and the function, the kernel's the amdgpu device.
    fn short_line(&self, line: &str) -> Option<&Matcher> {
        if let Some((file, rest)) = split_clr_prefix(line) {
            let of = |k: &str| self.by_file.get(k).into_iter().flatten();
            best_whole(of(file).chain(of(ANY_FILE)), rest)
        } else if let Some((key, rest)) = split_miopen_prefix(line) {
            best_whole(self.by_function.get(&key)?.iter(), rest)
        } else {
            best_whole(self.by_device.iter(), split_device_prefix(line)?)
        }
    }

    /// Every line of `text` that a harvested format prints, with its origin. `why` asks twice
    /// for one text (its answers from the families, then the section on where the lines come
    /// from), so the last text's result is kept per thread, as line numbers and origin indexes
    /// under the text's length and hash: the second call costs a hash of the text, not a second
    /// search (a 10,000-line runtime log: ~270 M instructions, callgrind).
    pub(crate) fn attribute<'a>(&'a self, text: &'a str) -> Vec<Attribution<'a>> {
        let key = (self as *const Table as usize, text.len(), fx_hash(text));
        let found = LAST_ATTRIBUTED.with(|last| {
            let mut last = last.borrow_mut();
            match &*last {
                Some((k, found)) if *k == key => found.clone(),
                _ => {
                    let found = self.search(text);
                    *last = Some((key, found.clone()));
                    found
                }
            }
        });
        let mut found = found.into_iter().peekable();
        let mut out = Vec::new();
        for (n, l) in text.lines().enumerate() {
            let Some(&(at, i)) = found.peek() else { break };
            if at == n {
                found.next();
                out.push(Attribution {
                    line_no: n + 1,
                    line: l.trim(),
                    origin: &self.origins[i],
                });
            }
        }
        out
    }

    /// The 0-based numbers of the lines of `text` a harvested format prints, with the index of
    /// its origin in [`Table::origins`].
    fn search(&self, text: &str) -> Vec<(usize, usize)> {
        text.lines()
            .enumerate()
            .filter_map(|(n, l)| Some((n, self.index_of(self.origin_of(l)?)?)))
            .collect()
    }

    /// The index of `o` in [`Table::origins`], when it is one of them (an origin of another
    /// table is none).
    pub(super) fn index_of(&self, o: &Origin) -> Option<usize> {
        let size = std::mem::size_of::<Origin>().max(1);
        let off = (o as *const Origin as usize).checked_sub(self.origins.as_ptr() as usize)?;
        let i = off / size;
        (off % size == 0 && i < self.origins.len() && std::ptr::eq(&self.origins[i], o))
            .then_some(i)
    }
}

/// The last text [`Table::attribute`] searched on this thread: the table, the text's length and
/// hash, and what it found.
type Attributed = Option<((usize, usize, u64), Vec<(usize, usize)>)>;

thread_local! {
    static LAST_ATTRIBUTED: std::cell::RefCell<Attributed> = const { std::cell::RefCell::new(None) };
}

fn fx_hash(text: &str) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut h = rustc_hash::FxHasher::default();
    text.hash(&mut h);
    h.finish()
}

/// CLR's log prefix, every release's variant (docs/log.md): `:<level>:<file> :<line> : <µs> us:`
/// then, by release, `<pid>: [tid:0x..]` or `[pid:N tid:0x..]`; captures the file name.
fn clr_prefix() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| {
        Regex::new(concat!(
            r"^\s*:\d:\s*([\w.]+)\s*:\s*\d+\s*:\s*\d+\s*us:\s*",
            r"(?:\d+:\s*)?(?:\[[^\]]*tid:[^\]]*\]\s?)?",
        ))
        .expect("valid")
    })
}

/// The file name in CLR's prefix and the rest of the line after the prefix, when the line
/// has one. A cheap look at the first bytes comes first: most lines of a paste have no prefix,
/// and a search with captures costs ~25,000 instructions a line (callgrind).
fn split_clr_prefix(line: &str) -> Option<(&str, &str)> {
    let t = line.trim_start().as_bytes();
    if !(t.len() > 3 && t[0] == b':' && t[1].is_ascii_digit() && t[2] == b':') {
        return None;
    }
    let end = clr_prefix().find(line)?.end();
    let file = line.trim_start()[3..].trim_start();
    let len = file
        .find(|c: char| !(c.is_alphanumeric() || c == '_' || c == '.'))
        .unwrap_or(file.len());
    Some((&file[..len], &line[end..]))
}

/// MIOpen's logger prefix (src/logger.cpp `LoggingPrefix`: `MIOpen(HIP)` or `MIOpen(OpenCL)`,
/// with MIOPEN_ENABLE_LOGGING_ELAPSED_TIME the milliseconds, then `: `; logger.hpp
/// `MIOPEN_LOG_XQ_`: the level, ` [`, the function, `] `) as the key of
/// [`Table::by_function`] (`warning BuildHip`), and the rest of the line. The text after the
/// prefix must not be empty. A cheap look for the name comes first.
fn split_miopen_prefix(line: &str) -> Option<(String, &str)> {
    static RE: OnceLock<Regex> = OnceLock::new();
    if !line.contains("MIOpen") {
        return None;
    }
    let re = RE.get_or_init(|| {
        Regex::new(concat!(
            r"\bMIOpen(?:\((?:HIP|OpenCL)\))?\s*[\d.]*: ",
            r"(Fatal|Error|Warning|Info2?|Trace) \[(?:[\w~<>]*::)*([\w~]+)\] ",
        ))
        .expect("valid")
    });
    let c = re.captures(line)?;
    let rest = &line[c.get(0)?.end()..];
    if rest.trim().is_empty() {
        return None;
    }
    let level = c[1].to_ascii_lowercase();
    Some((format!("{level} {}", &c[2]), rest))
}

/// The most specific of the anchored matchers `ms` that matches `rest`.
fn best_whole<'m>(ms: impl Iterator<Item = &'m Matcher>, rest: &str) -> Option<&'m Matcher> {
    ms.filter(|m| m.is_match(rest)).max_by_key(|m| m.literal)
}

/// The rest of a kernel log line after the prefix amdgpu's `dev_*` prints: the device
/// (`amdgpu 0000:c4:00.0: `), then the driver's `dev_fmt` (`amdgpu: `, amdgpu.h of the kernels
/// whose short lines the table holds, as scripts/harvest-origins.py `dev_fmt_prefixes` reads it;
/// a line without it comes from a kernel the sites do not name). A cheap look for the driver's
/// name comes first.
fn split_device_prefix(line: &str) -> Option<&str> {
    static RE: OnceLock<Regex> = OnceLock::new();
    if !line.contains("amdgpu ") {
        return None;
    }
    let re = RE.get_or_init(|| {
        Regex::new(r"\bamdgpu [0-9a-fA-F]{4}:[0-9a-fA-F]{2}:[0-9a-fA-F]{2}\.\d: amdgpu: ")
            .expect("valid")
    });
    re.find(line).map(|m| &line[m.end()..])
}

fn strip_ansi(s: &str) -> String {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| Regex::new(r"\x1b\[[0-9;]*[A-Za-z]").expect("valid"))
        .replace_all(s, "")
        .into_owned()
}

/// The built-in table.
pub fn table() -> &'static Table {
    static T: OnceLock<Table> = OnceLock::new();
    T.get_or_init(|| match Table::from_converted(FILE, JSON) {
        Ok(t) => t,
        Err(e) => panic!("the built-in {FILE} does not load: {e}"),
    })
}

/// One attributed line.
pub(crate) struct Attribution<'a> {
    /// 1-based, in the text.
    pub line_no: usize,
    pub line: &'a str,
    pub origin: &'a Origin,
}

impl Attribution<'_> {
    /// `rocBLAS \`library/src/tensile_host.cpp:839\` (function)`, the first site, and how
    /// many others print the same text.
    pub(crate) fn printed_by(&self) -> String {
        let o = self.origin;
        let s = self.site();
        let mut out = format!("{} `{}:{}`", component_name(&o.component), s.path, s.line);
        if !s.at.is_empty() {
            out.push_str(&format!(" as of {}", s.at));
        }
        if !s.function.is_empty() {
            out.push_str(&format!(" ({})", s.function));
        }
        if !s.condition.is_empty() {
            out.push_str(&format!(" when `{}`", s.condition));
        }
        if o.sites.len() > 1 {
            out.push_str(&format!(
                " (and {} other site{})",
                o.sites.len() - 1,
                if o.sites.len() == 2 { "" } else { "s" }
            ));
        }
        out
    }

    /// The site that printed the line: for MIOpen, the first site in the function its logger's
    /// prefix names (the rows of a one-variable format span several functions), else the first.
    fn site(&self) -> &Site {
        let o = self.origin;
        let named = split_miopen_prefix(self.line)
            .filter(|_| o.component == "miopen")
            .and_then(|(key, _)| {
                let func = key.split_once(' ')?.1.to_string();
                o.sites
                    .iter()
                    .find(|s| s.function.rsplit("::").next() == Some(func.as_str()))
            });
        named.unwrap_or(&o.sites[0])
    }

    /// The cause a family of messages names, where the source makes it clear: the first
    /// family of the origin whose `line_has` the line has (so rows of one format can tell
    /// apart what the format leaves open, an ABI version or an errno, in the table's order).
    pub(crate) fn cause(&self) -> Option<&'static Family> {
        families_of(self.origin).find(|f| self.line.contains(f.line_has.as_str()))
    }
}

/// The display name of a component of the table.
pub(crate) fn component_name(c: &str) -> &str {
    match c {
        "clr" => "HIP runtime (CLR)",
        "rocr" => "ROCr/libhsakmt",
        "rocblas" => "rocBLAS",
        "hipblaslt" => "hipBLASLt",
        "miopen" => "MIOpen",
        "rocminfo" => "rocminfo",
        "ollama" => "ollama",
        "amdgpu" => "the amdgpu kernel driver",
        "amdkfd" => "the amdkfd kernel driver",
        other => other,
    }
}

/// A family of messages whose source makes its cause clear: a row of
/// `checks/origin-causes.toml` (the file's header says what each field means).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Family {
    pub component: String,
    /// Text every format of the family contains.
    pub contains: String,
    /// Text the printed line must contain too ("" for none): the part the format leaves open
    /// that decides the cause (an errno's text).
    #[serde(default)]
    pub line_has: String,
    /// The printing code runs on machines without an AMD GPU too (ollama's Windows discovery
    /// loads HIP's DLL before it knows the vendor): the row answers only where the text does not
    /// show an NVIDIA GPU without an AMD one.
    #[serde(default)]
    pub not_on_nvidia: bool,
    /// An id of checks/causes.toml.
    pub cause: String,
    /// Why the source supports that cause.
    pub reason: String,
    /// What to do, for this cause as this message shows it.
    pub fix: String,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Families {
    family: Vec<Family>,
}

/// The families of `checks/origin-causes.toml`, in the file's order.
pub(crate) fn families() -> &'static [Family] {
    static T: OnceLock<Families> = OnceLock::new();
    &T.get_or_init(|| {
        crate::data::embedded(
            "checks/origin-causes.toml",
            include_str!("../../checks/origin-causes.toml"),
        )
    })
    .family
}

/// The families of an origin, in the table's order.
pub(crate) fn families_of(o: &Origin) -> impl Iterator<Item = &'static Family> + '_ {
    families()
        .iter()
        .filter(move |f| f.component == o.component && o.format.contains(f.contains.as_str()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn one(syntax: &str, format: &str) -> Table {
        let text = format!(
            "[[source]]\nrepo = \"r/r\"\ncommit = \"c\"\n\n[[origin]]\ncomponent = \"clr\"\n\
             syntax = \"{syntax}\"\nformat = {format:?}\nlevel = \"error\"\nprinter = \"p\"\n\
             gate = \"always\"\nsites = [{{ repo = \"r/r\", path = \"a.cpp\", line = 7 }}]\n"
        );
        Table::parse("t.toml", &text).unwrap()
    }

    #[test]
    fn printf_conversions_become_typed_captures() {
        let t = one("printf", "Cannot find CO in the bundle %s for ISA: %s");
        assert!(t
            .origin_of(
                ":1:hip_fatbin.cpp :277 : 123 us: Cannot find CO in the bundle /x/y for \
                ISA: amdgcn-amd-amdhsa--gfx1103"
            )
            .is_some());
        assert!(t.origin_of("Cannot find the bundle x for ISA: y").is_none());
        let t = one("printf", "Queue %p aborting with error : %s code: 0x%x");
        assert!(t
            .origin_of(
                "Callback: Queue 0x7f00 aborting with error : HSA_STATUS_ERROR_EXCEPTION: \
                x code: 0x1016"
            )
            .is_some());
        // %x takes hex digits only; %d a number.
        let t = one("printf", "bad value 0x%x in the queue packet");
        assert!(t.origin_of("bad value 0x1f in the queue packet").is_some());
        assert!(t.origin_of("bad value 0xZZ in the queue packet").is_none());
        let t = one("printf", "Queue sizes: %d bytes of device memory");
        assert!(t
            .origin_of("Queue sizes: 12 bytes of device memory")
            .is_some());
        assert!(t
            .origin_of("Queue sizes: many bytes of device memory")
            .is_none());
    }

    #[test]
    fn stream_templates_match_their_literals_and_any_operand() {
        let t = one("stream", "\nrocBLAS error: Cannot read {}: {}\n");
        assert!(t
            .origin_of(
                "rocBLAS error: Cannot read \
                /opt/rocm/lib/rocblas/library/TensileLibrary.dat: No such file or directory"
            )
            .is_some());
        assert!(t.origin_of("rocBLAS error: Cannot write x: y").is_none());
        let t = one("stream", "literal {{braces}} stay literal {}");
        assert!(t.origin_of("literal {braces} stay literal 3").is_some());
    }

    #[test]
    fn blanks_are_rewrapped_and_colours_ignored() {
        let t = one("printf", "%sUnable to open /dev/kfd read-write: %s%s\n");
        assert!(t
            .origin_of("\x1b[31mUnable to open  /dev/kfd read-write: Permission denied\x1b[0m")
            .is_some());
    }

    #[test]
    fn a_line_cut_short_or_reworded_at_its_end_matches_by_its_head() {
        let t = one(
            "stream",
            "Missing system database file: {} Performance may degrade. Please see https://a/b",
        );
        assert!(t
            .origin_of(
                "MIOpen(HIP): Warning [SQLiteBase] Missing system database file: gfx90878.kdb"
            )
            .is_some());
        assert!(t.origin_of("Missing system file: x").is_none());
    }

    #[test]
    fn a_short_clr_line_is_attributed_only_where_the_prefix_names_its_file() {
        let t = one("printf", "  Devices:");
        assert!(t
            .origin_of(":1:a.cpp                   :458 : 1885938540 us:   Devices:")
            .is_some());
        assert!(t
            .origin_of(":1:b.cpp                   :458 : 1885938540 us:   Devices:")
            .is_none());
        assert!(t.origin_of("  Devices:").is_none());
        // The rest of the line must be the whole format.
        assert!(t
            .origin_of(":1:a.cpp :458 : 1 us: 350457: [tid:0x7f02] Devices: and more")
            .is_none());
        assert!(t
            .origin_of(":1:a.cpp :458 : 1 us: 350457: [tid:0x7f02]   Devices:")
            .is_some());
    }

    /// A one-format table of `component`, printed by `printer` at `path` (in `function`).
    fn site(component: &str, printer: &str, format: &str, path: &str, function: &str) -> Table {
        let text = format!(
            "[[source]]\nrepo = \"r/r\"\ncommit = \"c\"\n\n[[origin]]\ncomponent = {component:?}\n\
             syntax = \"printf\"\nformat = {format:?}\nlevel = \"error\"\nprinter = {printer:?}\n\
             gate = \"always\"\nsites = [{{ repo = \"r/r\", path = {path:?}, line = 7, \
             function = {function:?} }}]\n"
        );
        Table::parse("t.toml", &text).unwrap()
    }

    /// MIOpen's hipRTC macro prints the failing call as written, and BuildHip passes the
    /// compiler's log on as one warning; both lines as ROCm/legacy-rocm-build#1889 pasted them
    /// (MIOpen of ROCm 5.x on an RX 6800).
    #[test]
    fn miopens_stringized_call_and_passed_on_compiler_log_are_attributed() {
        let t = table();
        let compile = "MIOpen(HIP): Error [Compile] 'hiprtcCompileProgram(prog.get(), \
                       c_options.size(), c_options.data())' naive_conv.cpp: \
                       HIPRTC_ERROR_COMPILATION (6)";
        let build = "MIOpen(HIP): Warning [BuildHip] /tmp/comgr-112729/input/CompileSource:39:10: \
                     fatal error: 'limits' file not found";
        for (line, func) in [(compile, "Compile"), (build, "BuildHip")] {
            let o = t.origin_of(line).unwrap_or_else(|| panic!("{line}"));
            assert_eq!(o.component, "miopen", "{line}");
            let a = Attribution {
                line_no: 1,
                line,
                origin: o,
            };
            let by = a.printed_by();
            assert!(
                by.contains("src/comgr.cpp") && by.contains(&format!("({func})")),
                "{by}"
            );
        }
        // The prefix decides: the same text under another function, another level or no
        // prefix at all is not the passed-on log.
        for l in [
            "MIOpen(HIP): Warning [FindSolution] /tmp/x.cpp:1:1: fatal error: 'limits' file not found",
            "MIOpen(HIP): Info [BuildHip] /tmp/x.cpp:1:1: fatal error: 'limits' file not found",
            "MIOpen(HIP): Warning [BuildHip] ",
        ] {
            assert!(
                t.origin_of(l).is_none_or(|o| o.component != "miopen" || o.format != "{}"),
                "{l}"
            );
        }
    }

    #[test]
    fn a_clr_macro_in_a_header_prints_the_name_of_the_file_that_uses_it() {
        // hip_internal.hpp's HIP_RETURN (a macro: no enclosing function), as CLR 6.x prints it.
        let t = site(
            "clr",
            "ClPrint",
            "%s: Returned %s : %s",
            "src/hip_internal.hpp",
            "",
        );
        for l in [
            ":3:hip_platform.cpp         :670 : 99442500035 us: 350457: [tid:0x7f02e57efc00] \
             init: Returned hipErrorNoBinaryForGpu :",
            ":3:hip_device_runtime.cpp   :565 : 99442500042 us: [pid:9111  tid:0x79a4] \
             hipSetDevice: Returned hipSuccess :",
        ] {
            assert!(t.origin_of(l).is_some(), "{l}");
        }
        // Not without CLR's prefix, nor a line whose rest is another text.
        assert!(t
            .origin_of("init: Returned hipErrorNoBinaryForGpu :")
            .is_none());
        assert!(t
            .origin_of(":3:hip_module.cpp :775 : 17 us: hipExtLaunchKernel ( 0x206f10, 0 )")
            .is_none());
        // A header's inline function prints its own file's name: only that file.
        let t = site("clr", "ClPrint", "%s: Returned %s", "src/x.hpp", "ToString");
        assert!(t
            .origin_of(":3:a.cpp :1 : 1 us: init: Returned 3")
            .is_none());
        assert!(t
            .origin_of(":3:x.hpp :1 : 1 us: init: Returned 3")
            .is_some());
    }

    #[test]
    fn a_short_amdgpu_line_is_attributed_after_the_device_prefix() {
        let t = site("amdgpu", "dev_err", "\t RW: 0x%x\n", "gmc_v9_0.c", "f");
        for l in [
            "[   67.058819] amdgpu 0000:c4:00.0: amdgpu:      RW: 0x0",
            "Aug 08 22:35:13 host kernel: amdgpu 0000:c3:00.0: amdgpu:          RW: 0x1",
        ] {
            assert!(t.origin_of(l).is_some(), "{l}");
        }
        for l in [
            "RW: 0x0",
            "nvme 0000:c4:00.0: RW: 0x0",
            "amdgpu 0000:c4:00.0: amdgpu: RW: 0x0 and more",
            "amdgpu 0000:c4:00.0: amdgpu: RW: none",
            "amdgpu: RW: 0x0",
            // without the driver's dev_fmt: a kernel the sites do not name
            "amdgpu 0000:03:00.0: \t RW: 0x0",
        ] {
            assert!(t.origin_of(l).is_none(), "{l}");
        }
        // Only dev_* prints the device prefix, and only the amdgpu driver's lines are read so.
        let t = site("amdgpu", "DRM_ERROR", "\t RW: 0x%x\n", "gmc_v9_0.c", "f");
        assert!(t
            .origin_of("amdgpu 0000:c4:00.0: amdgpu: RW: 0x0")
            .is_none());
        let t = site("rocr", "dev_err", "\t RW: 0x%x\n", "gmc_v9_0.c", "f");
        assert!(t
            .origin_of("amdgpu 0000:c4:00.0: amdgpu: RW: 0x0")
            .is_none());
    }

    #[test]
    fn a_short_line_that_names_its_source_file_and_line_is_specific() {
        let fmt = "  current device: %d, in function %s at %s:%d\n";
        let t = site(
            "llama.cpp",
            "GGML_LOG_ERROR",
            fmt,
            "ggml-cuda.cu",
            "ggml_cuda_error",
        );
        for l in [
            "  current device: 0, in function ggml_cuda_compute_forward at ggml-cuda.cu:11444",
            "current device: 1, in function stream at /home/m/llama.cpp/ggml/src/./ggml-cuda/\
             common.cuh:814",
        ] {
            assert!(t.origin_of(l).is_some(), "{l}");
        }
        // Its head alone ("current device: ", 13 letters) is no evidence; nor a place that is
        // no source file and line.
        for l in [
            "current device: 0",
            "the current device: 0 is busy",
            "current device: 0, in function main at the top",
            "current device: 0, in function main at host:8080",
        ] {
            assert!(t.origin_of(l).is_none(), "{l}");
        }
        let t = site(
            "llama.cpp",
            "fprintf",
            "\nCUDA error %d at %s:%d: %s\n",
            "ggml-cuda.cu",
            "",
        );
        let l = "CUDA error 98 at /source/llama.cpp/ggml-cuda.cu:7788: invalid device function";
        assert!(t.origin_of(l).is_some());
        for l in [
            "CUDA error: invalid device function",
            "CUDA error 98 at line 7788: invalid device function",
            "HIP error 98 at ggml-cuda.cu:7788: invalid device function",
        ] {
            assert!(t.origin_of(l).is_none(), "{l}");
        }
        // Under MIN_LETTERS_FILE_LINE letters, a file and line is not enough.
        let t = site("llama.cpp", "fprintf", "err %d at %s:%d\n", "a.cu", "");
        assert!(t.origin_of("err 1 at a.cu:3").is_none());
    }

    #[test]
    fn short_formats_make_no_matcher() {
        let t = one("printf", "Error: %s\n");
        assert_eq!(t.matchers(), 0);
        assert!(t.origin_of("Error: anything").is_none());
    }

    #[test]
    fn a_bad_table_is_a_clear_error() {
        let e = Table::parse("t.toml", "[[origin]]\ncomponent = 1\n")
            .err()
            .expect("refused");
        assert!(e.to_string().starts_with("t.toml:"), "{e}");
    }

    #[test]
    fn the_json_copy_build_rs_makes_is_the_toml_table() {
        let toml = Table::parse(FILE, include_str!("../../checks/origins.toml")).unwrap();
        let json = table();
        assert_eq!(json.origins.len(), toml.origins.len());
        assert_eq!(json.matchers(), toml.matchers());
        assert_eq!(format!("{:?}", json.origins), format!("{:?}", toml.origins));
        assert_eq!(format!("{:?}", json.sources), format!("{:?}", toml.sources));
        // A field of the wrong type in the copy is an error naming the table, not a panic.
        let e = Table::from_converted(FILE, r#"{"source": [], "origin": [{"component": 1}]}"#)
            .err()
            .expect("a type error");
        assert!(e.to_string().starts_with(FILE), "{e}");
    }

    #[test]
    fn the_built_in_table_loads_and_attributes_a_real_line() {
        let t = table();
        assert!(t.origins.len() > 1000, "{}", t.origins.len());
        assert_eq!(t.bad_patterns(), Vec::<String>::new());
        assert!(t.commit_of("ROCm/clr", "").is_some());
        assert!(t.commit_of("ROCm/clr", "rocm-5.7.0").is_some());
        // ollama's discovery line, as slog prints it (ollama/ollama#4512's shape).
        let l = "time=2024-05-20T10:00:00Z level=WARN source=amd_linux.go:346 msg=\"dropping ROCm \
            device — no rocblas support for gfx target\" gpu=0 gpu_type=gfx1103";
        let a = t.attribute(l);
        assert_eq!(a.len(), 1);
        assert_eq!(a[0].origin.component, "ollama");
        assert_eq!(
            a[0].cause().map(|f| f.cause.as_str()),
            Some("gpu-unsupported-asic")
        );
        assert!(a[0].printed_by().starts_with("ollama `discover/amd.go:"));
    }

    #[test]
    fn the_fourth_harvests_families_name_their_causes_on_real_lines() {
        let cause = |l: &str| {
            let a = table().attribute(l);
            assert_eq!(a.len(), 1, "{l}");
            a[0].cause().map(|f| f.cause.as_str())
        };
        let unknown =
            "'gfx1250' is not a recognized processor for this target (ignoring processor)";
        assert_eq!(cause(unknown), Some("build-unknown-target"));
        // The same LLVM line for another target's processor names no AMD cause.
        let other = "'apple-m4' is not a recognized processor for this target (ignoring processor)";
        assert_eq!(cause(other), None);
        let xnack = "warning: xnack 'On' was requested for a processor that does not support it!";
        assert_eq!(cause(xnack), Some("codeobj-xnack-sramecc"));
        let lld = "ld.lld: error: incompatible xnack: /tmp/kernel-gfx90a.o";
        assert_eq!(cause(lld), Some("codeobj-xnack-sramecc"));
        let tensile = "Tensile::WARNING: Architecture (11, 5, 1) not supported by ROCm 6.2.0";
        assert_eq!(cause(tensile), Some("tensile-assembler"));
        assert_eq!(
            cause("Hip Clang Compiler not found"),
            Some("build-hipcc-config")
        );
        // A line of the same components without a family: attributed, no cause.
        assert_eq!(
            cause("ld.lld: error: unable to find library -lamdhip64"),
            None
        );
    }

    #[test]
    fn every_family_names_a_cause_and_a_harvested_format() {
        for f in families() {
            assert!(
                crate::packs::causes::get(&f.cause).is_some(),
                "{}: no cause {}",
                f.contains,
                f.cause
            );
            assert!(
                table()
                    .origins
                    .iter()
                    .any(|o| o.component == f.component && o.format.contains(f.contains.as_str())),
                "no harvested {} format contains {:?}",
                f.component,
                f.contains
            );
        }
    }
}

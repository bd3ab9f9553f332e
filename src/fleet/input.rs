//! Turning inputs into documents: files (one report, or one per line), directories (their
//! `*.json` files), and streams as `pdsh`/`srun`/`clush` print them (`host: ` before every
//! line, lines of different hosts interleaved). Each document is parsed and folded at once.

use super::doc::{self, Problem};
use super::summary::Summary;
use std::collections::HashMap;
use std::io::BufRead;
use std::path::Path;

pub(crate) use super::doc::MAX_DOC_BYTES;

/// Most bytes the unfinished documents of one stream may hold together (interleaved hosts).
pub(crate) const MAX_PENDING_BYTES: usize = 4 * MAX_DOC_BYTES;

/// Parses `bytes` as one document and folds it, or notes why not.
pub(crate) fn fold_one(sum: &mut Summary, bytes: &[u8], fallback_host: Option<&str>, source: &str) {
    match doc::parse(bytes) {
        Ok(d) => sum.add(&d, bytes, fallback_host, source),
        Err((kind, detail)) => sum.note(kind, source, fallback_host, detail),
    }
}

/// `host: rest` when the line starts with a host-name-like word and `: ` (pdsh, clush, srun
/// `--label` print `0: `). JSON lines never start with a letter or digit.
pub(crate) fn split_prefix(line: &str) -> Option<(&str, &str)> {
    let (h, rest) = line.split_once(':')?;
    let ok = !h.is_empty()
        && h.len() <= 253
        && h.bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'-' | b'_'));
    if !ok {
        return None;
    }
    Some((h, rest.strip_prefix(' ').unwrap_or(rest)))
}

/// Whole files whose first byte is `{`: a stream of JSON values (one pretty document, or one
/// per line). Anything else goes through the line reader.
pub fn fold_bytes(sum: &mut Summary, bytes: &[u8], source: &str, file_host: Option<&str>) {
    let first = bytes.iter().position(|b| !b.is_ascii_whitespace());
    let Some(first) = first else {
        sum.note(Problem::Missing, source, file_host, "empty input".into());
        return;
    };
    if bytes[first] != b'{' {
        fold_lines(sum, std::io::Cursor::new(bytes), source);
        return;
    }
    // The common case, one report per file: parsed once, no separate scan for its end.
    match doc::parse(&bytes[first..]) {
        Ok(d) => return sum.add(&d, &bytes[first..], file_host, source),
        Err((kind, detail)) if !detail.contains("trailing characters") => {
            return sum.note(kind, source, file_host, detail);
        }
        Err(_) => {}
    }
    let mut rest = &bytes[first..];
    let mut n = 0usize;
    while !rest.is_empty() {
        let mut it =
            serde_json::Deserializer::from_slice(rest).into_iter::<serde::de::IgnoredAny>();
        match it.next() {
            None => break,
            Some(Ok(_)) => {
                let end = it.byte_offset();
                n += 1;
                let src = if n == 1 {
                    source.to_string()
                } else {
                    format!("{source}#{n}")
                };
                // A file holding one report is named after its host when the report is not.
                fold_one(sum, &rest[..end], file_host.filter(|_| n == 1), &src);
                rest = &rest[end..];
                let skip = rest.iter().position(|b| !b.is_ascii_whitespace());
                rest = &rest[skip.unwrap_or(rest.len())..];
            }
            Some(Err(e)) => {
                let kind = if e.is_eof() {
                    Problem::Truncated
                } else {
                    Problem::Corrupt
                };
                sum.note(kind, source, file_host, e.to_string());
                break;
            }
        }
    }
}

/// One buffer per stream key (a host prefix, or none).
#[derive(Default)]
struct Pending {
    buf: String,
    first_line: usize,
}

/// Reads lines, groups them by `host: ` prefix, and folds each document when its closing line
/// arrives: a `}` at column 0 (the doctor's pretty output) or a one-line document.
pub fn fold_lines<R: BufRead>(sum: &mut Summary, mut r: R, source: &str) {
    let mut pending: HashMap<Option<String>, Pending> = HashMap::new();
    let mut raw: Vec<u8> = Vec::new();
    let mut lineno = 0usize;
    // Bytes held in all pending documents: many interleaved hosts each just under the
    // one-document cap must not add up without bound either.
    let mut held = 0usize;
    loop {
        if held > MAX_PENDING_BYTES {
            drop_largest(sum, &mut pending, &mut held, source);
        }
        raw.clear();
        match crate::host::open::read_line_bounded(&mut r, &mut raw, MAX_DOC_BYTES) {
            Ok((0, _)) => break,
            Ok((n, true)) => {
                // Issue 25, item 5: a line longer than a whole report (a newline-less stream,
                // /dev/zero) is skipped as it is read, never held.
                lineno += 1;
                sum.note(
                    Problem::Corrupt,
                    &format!("{source}:{lineno}"),
                    None,
                    format!("line of {n} bytes skipped: longer than {MAX_DOC_BYTES} bytes"),
                );
                continue;
            }
            Ok(_) => {}
            Err(e) => {
                sum.note(Problem::Corrupt, source, None, format!("read error: {e}"));
                break;
            }
        }
        lineno += 1;
        // Invalid UTF-8 spoils only its own document (as replacement characters), not the stream.
        let line = String::from_utf8_lossy(&raw);
        let text = line.trim_end_matches(['\n', '\r']);
        fold_line(sum, &mut pending, &mut held, source, lineno, text);
    }
    note_unfinished(sum, pending, source);
}

/// Folds one line (`lineno`, its host prefix still on) into its stream's pending document:
/// starts one, adds to it, or closes and adds it to the summary.
fn fold_line(
    sum: &mut Summary,
    pending: &mut HashMap<Option<String>, Pending>,
    held: &mut usize,
    source: &str,
    lineno: usize,
    text: &str,
) {
    let (key, body) = match split_prefix(text) {
        Some((h, b)) => (Some(h.to_string()), b),
        None => (None, text),
    };
    if body.trim().is_empty() {
        return;
    }
    let p = pending.entry(key.clone()).or_default();
    if p.buf.is_empty() {
        if !body.trim_start().starts_with('{') {
            // Not JSON (an ssh error, a shell message): it explains a missing report.
            let detail: String = body.chars().take(200).collect();
            sum.note(
                Problem::Corrupt,
                &format!("{source}:{lineno}"),
                key.as_deref(),
                format!("not a JSON document: {detail}"),
            );
            // No empty entry stays behind: a stream of ever new prefixes holds nothing.
            pending.remove(&key);
            return;
        }
        p.first_line = lineno;
    }
    p.buf.push_str(body);
    p.buf.push('\n');
    *held += body.len() + 1;
    let closes =
        body.starts_with('}') || (p.first_line == lineno && body.trim_end().ends_with('}'));
    let src = format!("{source}:{}", p.first_line);
    if p.buf.len() > MAX_DOC_BYTES {
        sum.note(
            Problem::Corrupt,
            &src,
            key.as_deref(),
            format!("document larger than {MAX_DOC_BYTES} bytes"),
        );
        *held -= p.buf.len();
        pending.remove(&key);
        return;
    }
    if closes {
        let done = std::mem::take(&mut p.buf);
        *held -= done.len();
        match doc::parse(done.as_bytes()) {
            Err((Problem::Truncated, _)) if !body.starts_with('}') => {
                // A one-line start of a longer document: keep reading.
                *held += done.len();
                p.buf = done;
            }
            Ok(d) => sum.add(&d, done.as_bytes(), key.as_deref(), &src),
            Err((kind, detail)) => sum.note(kind, &src, key.as_deref(), detail),
        }
        if pending.get(&key).is_some_and(|p| p.buf.is_empty()) {
            pending.remove(&key);
        }
    }
}

/// Drops the largest unfinished document when all of them together hold too many bytes.
fn drop_largest(
    sum: &mut Summary,
    pending: &mut HashMap<Option<String>, Pending>,
    held: &mut usize,
    source: &str,
) {
    if let Some(k) = pending
        .iter()
        .max_by_key(|(_, p)| p.buf.len())
        .map(|(k, _)| k.clone())
    {
        let p = pending.remove(&k).unwrap_or_default();
        *held -= p.buf.len();
        sum.note(
            Problem::Corrupt,
            &format!("{source}:{}", p.first_line),
            k.as_deref(),
            format!(
                "document of {} bytes dropped: the unfinished documents of this stream \
                    held more than {MAX_PENDING_BYTES} bytes",
                p.buf.len()
            ),
        );
    }
}

/// The documents still open when the input ended, in order of their first line.
fn note_unfinished(sum: &mut Summary, pending: HashMap<Option<String>, Pending>, source: &str) {
    let mut left: Vec<_> = pending
        .into_iter()
        .filter(|(_, p)| !p.buf.is_empty())
        .collect();
    left.sort_by_key(|(_, p)| p.first_line);
    for (key, p) in left {
        sum.note(
            Problem::Truncated,
            &format!("{source}:{}", p.first_line),
            key.as_deref(),
            "input ended inside a document".into(),
        );
    }
}

/// The host a file is named after: `node-7.json` -> `node-7`.
pub(crate) fn host_from_file(path: &Path) -> Option<String> {
    let stem = path.file_stem()?.to_str()?;
    split_prefix(&format!("{stem}:")).map(|(h, _)| h.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    const DOC: &str = r#"{"schema_version":2,"tool":{"name":"rocm-doctor"},"host":"a","exit_code":0,"summary":{"warn":0,"fail":0,"error":0},"findings":[]}"#;

    #[test]
    fn prefixes() {
        assert_eq!(split_prefix("gpu-01: {"), Some(("gpu-01", "{")));
        assert_eq!(split_prefix("0: x"), Some(("0", "x")));
        assert_eq!(split_prefix("  \"id\": 1"), None);
        assert_eq!(split_prefix("{\"a\":1}"), None);
    }

    #[test]
    fn one_per_line_and_concatenated() {
        let mut s = Summary::default();
        let two = format!("{DOC}\n{}\n", DOC.replace("\"a\"", "\"b\""));
        fold_bytes(&mut s, two.as_bytes(), "f", None);
        assert_eq!(s.nodes.len(), 2, "{:?}", s.notes);
        assert!(s.notes.is_empty());
    }

    #[test]
    fn an_over_long_line_is_skipped_and_the_next_one_read() {
        let mut input = vec![b'x'; 100];
        input.push(b'\n');
        input.extend_from_slice(b"short\n");
        let mut r = std::io::Cursor::new(input);
        let mut out = Vec::new();
        assert_eq!(
            crate::host::open::read_line_bounded(&mut r, &mut out, 10).unwrap(),
            (101, true)
        );
        assert!(out.is_empty());
        out.clear();
        assert_eq!(
            crate::host::open::read_line_bounded(&mut r, &mut out, 10).unwrap(),
            (6, false)
        );
        assert_eq!(out, b"short\n");
        out.clear();
        assert_eq!(
            crate::host::open::read_line_bounded(&mut r, &mut out, 10).unwrap(),
            (0, false)
        );
    }

    proptest! {
        #[test]
        fn any_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..400)) {
            let mut s = Summary::default();
            fold_bytes(&mut s, &bytes, "x", Some("h"));
            fold_lines(&mut s, std::io::Cursor::new(&bytes), "-");
            let _ = s.finish();
        }

        #[test]
        fn any_cut_of_a_prefixed_stream_never_panics(cut in 0usize..300) {
            let stream = format!("h1: {DOC}\nh2: {{\nh2: \"x\": 1\nh2: }}\n{DOC}\n");
            let end = cut.min(stream.len());
            let mut s = Summary::default();
            fold_lines(&mut s, std::io::Cursor::new(&stream.as_bytes()[..end]), "-");
            let _ = s.finish();
        }
    }
}

//! The one loader of the project's data files, and the one error type for all of them.
//!
//! Every TOML data file is parsed by [`load`] (typed rows, unknown keys refused, misspelt enum
//! values refused with a did-you-mean), and every problem in a data file, syntax or meaning, is
//! a [`DataError`]: `file:line:column: message`, or `file: message` when no place in the file is
//! to blame. Loaders that check more than the types (the pack compiler, the known issues) build
//! their own errors with [`DataError::at`] from the span of the value at fault, so every message
//! points at its place the same way. A compiled-in table that does not load is a bug in this
//! build: [`embedded`] panics (inside a check that becomes the check's `error` finding), and the
//! unit test below loads every table so such a build never ships.
//!
//! The files, and who loads them (all through [`load`]):
//!
//! | file | loader |
//! |---|---|
//! | `checks/<family>.toml` (check docs) | `checks::docs` ([`embedded`]) |
//! | `checks/isa.toml` | `isa::processors` ([`embedded`]) |
//! | `checks/gpu-facts.toml` | `gpu::facts::facts` ([`embedded`]) |
//! | `checks/why-facts.toml` | `packs::facts::table` ([`embedded`]) |
//! | `checks/gpu-names.toml` (generated) | `packs::gpunames::table` ([`embedded`]) |
//! | `checks/gpu-vendors.toml` | `packs::vendors::table` ([`embedded`]) |
//! | `checks/elf-mach.toml` | `codeobj::mach::table` ([`embedded`]) |
//! | `checks/causes.toml` | `packs::causes::all` ([`embedded`]) |
//! | `checks/why-families.toml` | `packs::libfamilies::table` ([`embedded`]) |
//! | `checks/origin-causes.toml` | `packs::origins::families` ([`embedded`]) |
//! | `checks/origin-internal.toml` | `packs::internal_checks` ([`embedded`]) |
//! | `checks/rocm-packages.toml` | `packs::pkgnames` ([`embedded`]) |
//! | `checks/origins.toml` (generated) | `packs::origins::table` ([`load_converted`] of the JSON copy build.rs makes) |
//! | `checks/asm-caps.toml` | `asm::catalog::catalog` |
//! | `checks/known-issues.toml` | `known_issues::load` (conditions and ranges checked, compiled into pack checks) |
//! | `checks/packs/*.toml`, `checks.d/*.toml`, `--checks` files | `packs::compile` (`checks lint` prints every error) |
//! | a fixture sysroot's `/.rocm-doctor-fixture.toml` | `gpu::fixture::parse` |
//! | `tests/corpus/*.toml` (test data) | the corpus tests |
//!
//! Not data files, so not here: JSON read back from `--json` reports (`merge`, `--baseline`,
//! `--expect`; validated by `fleet::doc` and `asm::expect`) and the `probe-library` child's
//! JSON lines (a protocol between two processes of this build).

use serde::de::DeserializeOwned;
use std::fmt;
use std::ops::Range;

/// A 1-based line and column (in characters) in a data file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Position {
    pub line: usize,
    pub column: usize,
}

impl Position {
    /// The position of byte offset `at` of `text` (clamped to the text, and to the start of
    /// the character it falls in).
    pub(crate) fn of(text: &str, at: usize) -> Self {
        let (line, column) = line_col(text, at);
        Position { line, column }
    }
}

/// One problem in a data file: `file:line:column: message`, or `file: message` without a place.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DataError {
    pub file: String,
    /// Where in the file; `None` for a problem of the whole file (too large, unreadable, ...).
    pub at: Option<Position>,
    pub message: String,
}

impl DataError {
    /// A problem at byte span `span` of `text` (the file `file`); only its start is reported.
    pub(crate) fn at(
        file: &str,
        text: &str,
        span: Range<usize>,
        message: impl Into<String>,
    ) -> Self {
        DataError::located(file, Position::of(text, span.start), message)
    }

    /// A problem at a position already computed (a span read earlier, e.g. a pack's reference
    /// checked only once every pack is loaded).
    pub(crate) fn located(file: &str, at: Position, message: impl Into<String>) -> Self {
        DataError {
            file: file.to_string(),
            at: Some(at),
            message: message.into(),
        }
    }

    /// A problem of the whole file.
    pub(crate) fn whole(file: &str, message: impl Into<String>) -> Self {
        DataError {
            file: file.to_string(),
            at: None,
            message: message.into(),
        }
    }

    /// A TOML syntax or type error of `text`, its serde message explained ([`explain_toml_error`]).
    pub(crate) fn from_toml(file: &str, text: &str, e: &toml::de::Error) -> Self {
        let message = explain_toml_error(e.message());
        match e.span() {
            Some(span) => DataError::at(file, text, span, message),
            None => DataError::whole(file, message),
        }
    }
}

impl fmt::Display for DataError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.at {
            Some(p) => write!(f, "{}:{}:{}: {}", self.file, p.line, p.column, self.message),
            None => write!(f, "{}: {}", self.file, self.message),
        }
    }
}

impl std::error::Error for DataError {}

/// Parses `text` (the file `name`) into `T`; the error names the file, line and column, with a
/// did-you-mean for an unknown key or a misspelt value.
pub fn load<T: DeserializeOwned>(name: &str, text: &str) -> Result<T, DataError> {
    toml::from_str(text).map_err(|e| DataError::from_toml(name, text, &e))
}

/// Parses the JSON copy of a TOML data file that build.rs made (`name` is the TOML file's
/// name; the copy has the same keys and values). Only the large generated table is read this
/// way, for speed (build.rs says why); its TOML was parsed at build time, so an error here is
/// a type error (a field of the wrong type), reported without a place.
pub(crate) fn load_converted<T: DeserializeOwned>(name: &str, json: &str) -> Result<T, DataError> {
    serde_json::from_str(json)
        .map_err(|e| DataError::whole(name, explain_toml_error(&e.to_string())))
}

/// A compiled-in table; panics with `file:line:column` if it is invalid (a unit test rules that
/// out for every table).
pub(crate) fn embedded<T: DeserializeOwned>(name: &str, text: &str) -> T {
    load(name, text).unwrap_or_else(|e| panic!("compiled-in table is invalid: {e}"))
}

/// toml/serde's message, with a did-you-mean for unknown keys and misspelt values.
pub(crate) fn explain_toml_error(msg: &str) -> String {
    let msg = msg.trim();
    let unknown = ["unknown field `", "unknown variant `"]
        .iter()
        .find_map(|p| msg.find(p).map(|i| &msg[i + p.len()..]));
    // serde lists the valid names after `expected` (`one of `a`, `b``, or `a` or `b`).
    if let (Some(rest), Some(list_at)) = (unknown, msg.find("expected ")) {
        let bad = rest.split('`').next().unwrap_or("");
        let candidates: Vec<&str> = msg[list_at..].split('`').skip(1).step_by(2).collect();
        if let Some(best) = did_you_mean(bad, &candidates) {
            return format!("{msg}; did you mean `{best}`?");
        }
    }
    msg.to_string()
}

/// The closest candidate, if it is close enough to be a typo.
pub(crate) fn did_you_mean<'a>(bad: &str, candidates: &[&'a str]) -> Option<&'a str> {
    candidates
        .iter()
        .map(|c| (strsim::levenshtein(bad, c), *c))
        .filter(|(d, c)| *d <= (c.len().max(bad.len()) / 3).max(2))
        .min_by_key(|(d, _)| *d)
        .map(|(_, c)| c)
}

/// `"; did you mean `best`?"` when a candidate is close to `bad`, else `""` (to append to a
/// message).
pub(crate) fn hint(bad: &str, candidates: &[&str]) -> String {
    did_you_mean(bad, candidates)
        .map(|b| format!("; did you mean `{b}`?"))
        .unwrap_or_default()
}

/// 1-based line and column (in characters) of byte offset `at`; an offset past the end or
/// inside a character counts from the character it falls in.
pub(crate) fn line_col(text: &str, at: usize) -> (usize, usize) {
    let mut at = at.min(text.len());
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    let before = &text[..at];
    let line = before.matches('\n').count() + 1;
    let col = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    (line, col)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;

    /// Every table under `checks/` is loaded by its own accessor here; a new table must be
    /// added to this list (the directory listing enforces it).
    #[test]
    fn every_embedded_table_loads() {
        let loaded: &[(&str, &dyn Fn() -> usize)] = &[
            ("isa.toml", &|| crate::isa::processors().len()),
            ("gpu-facts.toml", &|| crate::gpu::facts::facts().apu.len()),
            ("why-facts.toml", &|| {
                crate::packs::facts::table().name.len()
            }),
            ("gpu-vendors.toml", &|| {
                crate::packs::vendors::table().form.len()
            }),
            ("elf-mach.toml", &|| crate::codeobj::mach::table().len()),
            ("asm-caps.toml", &|| {
                crate::asm::catalog::catalog(crate::asm::catalog::Compat::Current)
                    .keys
                    .len()
                    + crate::asm::catalog::catalog(crate::asm::catalog::Compat::V6_2)
                        .keys
                        .len()
            }),
            ("targets.toml", &|| crate::checks::docs().len()),
            ("toolchain.toml", &|| crate::checks::docs().len()),
            ("runtime.toml", &|| crate::checks::docs().len()),
            ("gpu.toml", &|| crate::checks::docs().len()),
            ("health.toml", &|| crate::checks::docs().len()),
            ("kernel.toml", &|| crate::checks::docs().len()),
            ("libs.toml", &|| crate::checks::docs().len()),
            ("asm.toml", &|| crate::checks::docs().len()),
            ("known-issues.toml", &|| {
                use crate::known_issues::{load, FILE, TEXT};
                let (issues, logs) = load(FILE, TEXT).unwrap_or_else(|errs| {
                    panic!(
                        "{}",
                        errs.iter()
                            .map(|e| e.to_string())
                            .collect::<Vec<_>>()
                            .join("\n")
                    )
                });
                issues.len().min(logs.len())
            }),
            ("causes.toml", &|| crate::packs::causes::all().len()),
            ("builds.toml", &|| crate::packs::builds::table().build.len()),
            ("origins.toml", &|| {
                crate::packs::origins::table().matchers()
            }),
            ("why-families.toml", &|| {
                crate::packs::libfamilies::table().cuda_only.len()
            }),
            ("origin-causes.toml", &|| {
                crate::packs::origins::families().len()
            }),
            ("gpu-names.toml", &|| {
                crate::packs::gpunames::table().gpu.len()
            }),
            ("origin-internal.toml", &crate::packs::internal_checks::rows),
            ("rocm-packages.toml", &crate::packs::pkgnames::rows),
            ("hip-since.toml", &crate::packs::hip_since::rows),
        ];
        for (name, f) in loaded {
            assert!(f() > 0, "{name} loaded empty");
        }
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("checks");
        for e in std::fs::read_dir(&dir).unwrap() {
            let name = e.unwrap().file_name().to_string_lossy().into_owned();
            if name.ends_with(".toml") {
                assert!(
                    loaded.iter().any(|(n, _)| *n == name),
                    "checks/{name} is not loaded by the embedded-table test"
                );
            }
        }
    }

    #[derive(Debug, Deserialize)]
    #[serde(deny_unknown_fields)]
    struct Row {
        #[allow(dead_code)]
        kind: Kind,
    }

    #[derive(Debug, Deserialize)]
    #[serde(rename_all = "lowercase")]
    enum Kind {
        Probe,
        Library,
    }

    #[test]
    fn errors_name_file_line_and_column() {
        let e = load::<Row>("t.toml", "# c\nkind = \"probe\"\nkinf = 1\n").unwrap_err();
        assert_eq!(e.file, "t.toml");
        assert_eq!(e.at, Some(Position { line: 3, column: 1 }));
        assert!(
            e.to_string()
                .starts_with("t.toml:3:1: unknown field `kinf`"),
            "{e}"
        );
        let e = load::<Row>("t.toml", "\n\nkind = \"prob\"\n").unwrap_err();
        assert!(
            e.to_string()
                .starts_with("t.toml:3:8: unknown variant `prob`"),
            "{e}"
        );
        assert!(load::<Row>("t.toml", "kind = \"probe\"").is_ok());
    }

    #[test]
    fn unknown_keys_and_misspelt_values_get_a_did_you_mean() {
        let e = load::<Row>("t.toml", "kinf = \"probe\"\n").unwrap_err();
        assert!(e.message.starts_with("unknown field `kinf`"), "{e}");
        assert!(e.message.ends_with("; did you mean `kind`?"), "{e}");
        let e = load::<Row>("t.toml", "kind = \"libary\"\n").unwrap_err();
        assert!(e.message.starts_with("unknown variant `libary`"), "{e}");
        assert!(e.message.ends_with("; did you mean `library`?"), "{e}");
        // Nothing close: serde's message alone.
        let e = load::<Row>("t.toml", "kind = \"zzzzzzzz\"\n").unwrap_err();
        assert!(!e.message.contains("did you mean"), "{e}");
        assert_eq!(
            explain_toml_error("invalid type: integer `1`, expected a string"),
            "invalid type: integer `1`, expected a string"
        );
    }

    #[test]
    fn a_syntax_error_is_located_too() {
        let e = load::<Row>("t.toml", "kind = \"probe\"\nkind = = 1\n").unwrap_err();
        assert_eq!(e.at.map(|p| p.line), Some(2), "{e}");
        assert!(e.to_string().starts_with("t.toml:2:"), "{e}");
    }

    #[test]
    fn errors_with_and_without_a_place_display_as_today() {
        let text = "[pack]\nname = \"Bad\"\n";
        let span = text.find("\"Bad\"").unwrap();
        let e = DataError::at("p.toml", text, span..span + 5, "pack name 'Bad' is wrong");
        assert_eq!(e.to_string(), "p.toml:2:8: pack name 'Bad' is wrong");
        let e = DataError::whole("p.toml", "the file is 9 bytes; at most 1");
        assert_eq!(e.at, None);
        assert_eq!(e.to_string(), "p.toml: the file is 9 bytes; at most 1");
        let e = DataError::located("p.toml", Position { line: 4, column: 2 }, "m");
        assert_eq!(e.to_string(), "p.toml:4:2: m");
        let boxed: Box<dyn std::error::Error> = Box::new(e);
        assert_eq!(boxed.to_string(), "p.toml:4:2: m");
    }

    #[test]
    fn columns_count_characters_not_bytes() {
        assert_eq!(line_col("ab\ncé\nx", 7), (3, 1));
        assert_eq!(line_col("ab\ncé\nx", 3), (2, 1));
        assert_eq!(line_col("", 10), (1, 1));
        // `é` and `ß` are two bytes each; `x` is the fourth character of its line.
        let text = "a\néßx = 1\n";
        let at = text.find('x').unwrap();
        assert_eq!(at, 6);
        assert_eq!(Position::of(text, at), Position { line: 2, column: 3 });
        // An offset inside a character counts from that character.
        assert_eq!(line_col(text, 3), (2, 1));
        // Through the loader: a stray token after a non-ASCII value, on character 13 of its
        // line (byte 16).
        let e = load::<Row>("t.toml", "# c\nkind = \"é€\" x\n").unwrap_err();
        assert_eq!(
            e.at,
            Some(Position {
                line: 2,
                column: 13
            }),
            "{e}"
        );
    }

    #[test]
    fn hint_is_empty_when_nothing_is_close() {
        assert_eq!(
            hint("mesage", &["message", "status"]),
            "; did you mean `message`?"
        );
        assert_eq!(hint("zzz", &["message", "status"]), "");
    }
}

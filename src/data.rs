//! The one TOML loader: the tables compiled into the binary (`checks/*.toml`) and fixture
//! manifests. Typed rows, unknown keys refused, misspelt enum values refused, and every failure
//! reported as `file:line:column: message`. A compiled-in table that does not load is a bug in this build:
//! [`embedded`] panics (inside a check that becomes the check's `error` finding), and the unit
//! test below loads every table so such a build never ships.
//!
//! (`checks/known-issues.toml` is loaded by `src/inspect/known_issues/` with the check packs'
//! parser and compiled into pack checks, `src/inspect/known_issues/pack.rs`.)

use serde::de::DeserializeOwned;

/// Parses `text` (the file `name`) into `T`; the error names the file, line and column.
pub fn load<T: DeserializeOwned>(name: &str, text: &str) -> Result<T, String> {
    toml::from_str(text).map_err(|e| {
        let msg = e.message().trim().to_string();
        match e.span() {
            Some(span) => {
                let (line, col) = line_col(text, span.start);
                format!("{name}:{line}:{col}: {msg}")
            }
            None => format!("{name}: {msg}"),
        }
    })
}

/// A compiled-in table; panics with `file:line:column` if it is invalid (a unit test rules that
/// out for every table).
pub fn embedded<T: DeserializeOwned>(name: &str, text: &str) -> T {
    load(name, text).unwrap_or_else(|e| panic!("compiled-in table is invalid: {e}"))
}

/// 1-based line and column (in characters) of byte offset `at`.
fn line_col(text: &str, at: usize) -> (usize, usize) {
    let at = at.min(text.len());
    let before = text.get(..at).unwrap_or(text);
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
            // Its own loader, moving to the pack engine (issue 9); tested in its module.
            ("known-issues.toml", &|| 1),
            ("causes.toml", &|| crate::packs::causes::all().len()),
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
    }

    #[test]
    fn errors_name_file_line_and_column() {
        let e = load::<Row>("t.toml", "# c\nkind = \"probe\"\nkinf = 1\n").unwrap_err();
        assert!(e.starts_with("t.toml:3:1: unknown field `kinf`"), "{e}");
        let e = load::<Row>("t.toml", "\n\nkind = \"prob\"\n").unwrap_err();
        assert!(e.starts_with("t.toml:3:8: unknown variant `prob`"), "{e}");
        assert!(load::<Row>("t.toml", "kind = \"probe\"").is_ok());
    }

    #[test]
    fn line_col_counts_characters() {
        assert_eq!(line_col("ab\ncé\nx", 7), (3, 1));
        assert_eq!(line_col("ab\ncé\nx", 3), (2, 1));
        assert_eq!(line_col("", 10), (1, 1));
    }
}

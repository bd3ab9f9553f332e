//! What a check is, whatever engine runs it: its id (`family.name`), its family, and its
//! documentation (*what it checks / why it matters / how to fix*), plus the `--only`/`--skip`
//! selection by id, prefix or family. The lowest layer of the check machinery: the Rust checks,
//! the pack compiler and the registry all build on it.

use serde::Deserialize;

mod action;
mod ids;
pub use action::Action;
pub use ids::CheckId;

/// The check families. A check's category is the first word of its id (`gpu.kfd` is `gpu`);
/// an id in no family fails the load of its doc file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Category {
    Targets,
    Toolchain,
    Runtime,
    Gpu,
    Health,
    Kernel,
    Libs,
    Asm,
}

impl Category {
    pub(crate) const ALL: &'static [Category] = &[
        Category::Targets,
        Category::Toolchain,
        Category::Runtime,
        Category::Gpu,
        Category::Health,
        Category::Kernel,
        Category::Libs,
        Category::Asm,
    ];

    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Category::Targets => "targets",
            Category::Toolchain => "toolchain",
            Category::Runtime => "runtime",
            Category::Gpu => "gpu",
            Category::Health => "health",
            Category::Kernel => "kernel",
            Category::Libs => "libs",
            Category::Asm => "asm",
        }
    }

    /// The category of a well-formed check id (`family.name`, lowercase words and dashes).
    pub(crate) fn of_id(id: &str) -> Result<Category, String> {
        let (family, name) = id
            .split_once('.')
            .ok_or_else(|| format!("check id {id:?} is not `family.name`"))?;
        let word = |s: &str| {
            !s.is_empty()
                && s.bytes()
                    .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
        };
        if !word(name) {
            return Err(format!(
                "check id {id:?}: the name must be lowercase letters, digits and dashes"
            ));
        }
        Category::ALL
            .iter()
            .copied()
            .find(|c| c.as_str() == family)
            .ok_or_else(|| {
                let known: Vec<&str> = Category::ALL.iter().map(|c| c.as_str()).collect();
                format!(
                    "check id {id:?}: unknown family `{family}` (known: {})",
                    known.join(", ")
                )
            })
    }
}

/// A Rust check's documented id: well-formed, in a family, and declared as a [`CheckId`] (a doc
/// for a check that does not exist fails the load at its line).
fn check_id<'de, D: serde::Deserializer<'de>>(d: D) -> Result<String, D::Error> {
    let id = String::deserialize(d)?;
    Category::of_id(&id).map_err(serde::de::Error::custom)?;
    id.parse::<CheckId>().map_err(serde::de::Error::custom)?;
    Ok(id)
}

/// A check's documentation: deserialized from `checks/<family>.toml` for the Rust checks (the
/// id must be a [`CheckId`]), built by the pack compiler for pack checks.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CheckDoc {
    #[serde(deserialize_with = "check_id")]
    pub id: String,
    /// The family, from the id (not written in the doc files).
    #[serde(skip)]
    pub category: String,
    pub title: String,
    pub what: String,
    pub why: String,
    pub fix: String,
    /// The repair action of the check's warn and fail findings unless a finding names its own
    /// (`report::Action`; required in `checks/*.toml`).
    pub action: Action,
    /// Where the facts behind the check come from.
    #[serde(default)]
    pub sources: Vec<String>,
}

/// Whether `id` is selected by `--only` / `--skip` (exact ids or prefixes ending in `.`, or a
/// bare category name).
pub(crate) fn selected(id: &str, only: &[String], skip: &[String]) -> bool {
    let matches = |pat: &String| {
        id == pat
            || (pat.ends_with('.') && id.starts_with(pat.as_str()))
            || id.split('.').next() == Some(pat.as_str())
    };
    (only.is_empty() || only.iter().any(matches)) && !skip.iter().any(matches)
}

/// The check ids a piece of prose mentions: every token `family.name` whose family is one of
/// `families` (a check family or a pack's namespace), with the name made of lowercase letters,
/// digits and dashes. A token glued to a longer word is not one (`/checks/libs.toml`'s
/// `libs.toml` after a `/`, `kernel.dmesg_restrict`, `torch.version` inside `pytorch.version`
/// is `pytorch.version`), and neither is a file name (`libs.toml`). A trailing `.` or `-` (end
/// of a sentence, a dash) is not part of the name.
pub fn mentioned_ids<'t>(text: &'t str, families: &[&str]) -> Vec<&'t str> {
    /// Extensions that make `family.ext` a file name, not a check id.
    const FILE_EXTENSIONS: &[&str] = &["toml", "rs", "md", "json", "so", "txt", "log", "sh"];
    let b = text.as_bytes();
    let word = |c: u8| c.is_ascii_alphanumeric() || c == b'_';
    let name_byte = |c: u8| c.is_ascii_lowercase() || c.is_ascii_digit() || c == b'-';
    let mut out = Vec::new();
    for family in families {
        let pat = format!("{family}.");
        let mut from = 0;
        while let Some(at) = text.get(from..).and_then(|t| t.find(&pat)) {
            let start = from + at;
            from = start + 1;
            if start > 0 && (word(b[start - 1]) || matches!(b[start - 1], b'.' | b'-' | b'/')) {
                continue;
            }
            let name_start = start + pat.len();
            let mut end = name_start;
            while end < b.len() && name_byte(b[end]) {
                end += 1;
            }
            // A name ends at a letter or digit: `gpu.kfd-` or `gpu.kfd.` end before the dash or dot.
            while end > name_start && b[end - 1] == b'-' {
                end -= 1;
            }
            if end == name_start || !b[name_start].is_ascii_lowercase() {
                continue;
            }
            let glued = b.get(end).is_some_and(|&c| {
                c.is_ascii_uppercase()
                    || c == b'_'
                    || (matches!(c, b'.' | b'/') && b.get(end + 1).is_some_and(|&n| word(n)))
            });
            let name = &text[name_start..end];
            if glued || FILE_EXTENSIONS.contains(&name) {
                continue;
            }
            out.push(&text[start..end]);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mentioned_ids_finds_check_tokens_and_not_file_names_or_words() {
        let fams = ["gpu", "libs", "kernel", "pytorch", "known-issues"];
        let text = "Fix what gpu.kfd, gpu.render and gpu.driver report (see libs.code-objects). \
                    Read checks/libs.toml and libs.toml; sudo sysctl kernel.dmesg_restrict=0; \
                    torch.version and pytorch.rocm-arch.\nknown-issues.ccob-v3-runtime- gpu.kfd.so \
                    xgpu.kfd gpu.2x GPU.kfd gpu.kfd";
        assert_eq!(
            mentioned_ids(text, &fams),
            [
                "gpu.kfd",
                "gpu.render",
                "gpu.driver",
                "gpu.kfd",
                "libs.code-objects",
                "pytorch.rocm-arch",
                "known-issues.ccob-v3-runtime"
            ]
        );
        assert!(mentioned_ids("no ids here", &fams).is_empty());
        assert!(mentioned_ids("gpu.", &fams).is_empty());
        // Non-ASCII around a token does not confuse the byte scan.
        assert_eq!(mentioned_ids("é gpu.kfd é", &fams), ["gpu.kfd"]);
    }
}

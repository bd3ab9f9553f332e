//! What a check is, whatever engine runs it: its id (`family.name`), its family, and its
//! documentation (*what it checks / why it matters / how to fix*), plus the `--only`/`--skip`
//! selection by id, prefix or family. The lowest layer of the check machinery: the Rust checks,
//! the pack compiler and the registry all build on it.

use serde::Deserialize;

/// The check families. A check's category is the first word of its id (`gpu.kfd` is `gpu`);
/// an id in no family fails the load of its doc file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Category {
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
    pub const ALL: &'static [Category] = &[
        Category::Targets,
        Category::Toolchain,
        Category::Runtime,
        Category::Gpu,
        Category::Health,
        Category::Kernel,
        Category::Libs,
        Category::Asm,
    ];

    pub fn as_str(self) -> &'static str {
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
    pub fn of_id(id: &str) -> Result<Category, String> {
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

fn check_id<'de, D: serde::Deserializer<'de>>(d: D) -> Result<String, D::Error> {
    let id = String::deserialize(d)?;
    Category::of_id(&id).map_err(serde::de::Error::custom)?;
    Ok(id)
}

/// A check's documentation, from `checks/<family>.toml`.
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
    /// Where the facts behind the check come from.
    #[serde(default)]
    pub sources: Vec<String>,
}

/// Whether `id` is selected by `--only` / `--skip` (exact ids or prefixes ending in `.`, or a
/// bare category name).
pub fn selected(id: &str, only: &[String], skip: &[String]) -> bool {
    let matches = |pat: &String| {
        id == pat
            || (pat.ends_with('.') && id.starts_with(pat.as_str()))
            || id.split('.').next() == Some(pat.as_str())
    };
    (only.is_empty() || only.iter().any(matches)) && !skip.iter().any(matches)
}

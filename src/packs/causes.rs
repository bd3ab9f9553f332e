//! The causes `why` names (`checks/causes.toml`): an id, a one-line title, and whether the
//! cause is harmless noise. Symptoms refer to them by `class`; the corpus of real cases
//! (`tests/corpus/`) by `cause`.

use serde::Deserialize;
use std::sync::OnceLock;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Cause {
    pub id: String,
    pub title: String,
    #[serde(default)]
    pub harmless: bool,
    /// The cause's message says a build has no code for the GPU's ISA: a family line naming the
    /// ISA is answered with the ISA's facts (`origin_causes.rs`).
    #[serde(default)]
    pub missing_isa_code: bool,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Table {
    cause: Vec<Cause>,
}

/// Every cause, in the table's order.
pub(crate) fn all() -> &'static [Cause] {
    static T: OnceLock<Vec<Cause>> = OnceLock::new();
    T.get_or_init(|| {
        crate::data::embedded::<Table>(
            "checks/causes.toml",
            include_str!("../../checks/causes.toml"),
        )
        .cause
    })
}

pub fn get(id: &str) -> Option<&'static Cause> {
    all().iter().find(|c| c.id == id)
}

#[cfg(test)]
mod tests {
    #[test]
    fn ids_are_unique_and_harmless_ones_are_benign() {
        let all = super::all();
        for (i, c) in all.iter().enumerate() {
            assert!(all[..i].iter().all(|o| o.id != c.id), "{} twice", c.id);
            assert_eq!(c.harmless, c.id.starts_with("benign-"), "{}", c.id);
        }
    }
}

//! `rocm-doctor docs-checks` (hidden): docs/checks.md, generated from the registry.

use super::Outcome;
use crate::registry::Registry;
use crate::report::exit;

pub(crate) fn main() -> Outcome {
    Ok(super::print_text(&markdown(), exit::OK))
}

/// docs/checks.md: every built-in check, Rust and pack alike.
pub(crate) fn markdown() -> String {
    Registry::new(&crate::registry::sources::built_in()).markdown()
}

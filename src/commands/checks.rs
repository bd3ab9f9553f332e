//! `rocm-doctor checks lint FILE...`: check pack files before they are installed.

use super::Outcome;
use crate::report::exit;
use std::path::PathBuf;

pub(crate) fn lint(files: &[PathBuf]) -> Outcome {
    let (lines, ok) = crate::registry::sources::lint(files);
    let code = if ok { exit::OK } else { exit::FAILED };
    let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
    // A pack file's text (names, messages) may be quoted in the lint's lines.
    Ok(super::print_visible(&text, code))
}

//! `rocm-doctor man [--out-dir DIR]` (hidden): the man pages.

use super::Outcome;
use crate::report::exit;
use anyhow::Context;
use std::path::Path;

pub(crate) fn main(out_dir: Option<&Path>) -> Outcome {
    crate::packaging::man(out_dir).context("cannot write the man page")?;
    Ok(exit::OK)
}

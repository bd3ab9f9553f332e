//! `rocm-doctor completions SHELL`: the shell's completion script on stdout.

use super::Outcome;
use crate::report::exit;
use anyhow::Context;

pub(crate) fn main(shell: clap_complete::Shell) -> Outcome {
    crate::packaging::completions(shell).context("cannot write the completions")?;
    Ok(exit::OK)
}

//! `rocm-doctor inspect PATH... [--symbols] [--kernels] [--verify-hash]`: what a binary or a
//! library directory holds and whether it runs here (`inspect`).

use super::Outcome;
use crate::cli::RunArgs;
use crate::report::human;
use std::path::PathBuf;

/// What `inspect` was asked to look at beyond the code objects.
pub(crate) struct Asked {
    pub symbols: bool,
    pub kernels: bool,
    pub verify_hash: bool,
}

pub(crate) fn main(args: &RunArgs, paths: &[PathBuf], asked: &Asked) -> Outcome {
    let cfg = super::config(args)?;
    if paths.is_empty() {
        return super::scoped("inspect", "give at least one file or directory".into());
    }
    let host = super::host(args, &cfg)?;
    let o = crate::inspect::Options {
        symbols: asked.symbols,
        kernels: asked.kernels,
        verify_hash: asked.verify_hash,
        ..Default::default()
    };
    let view = crate::inspect::View {
        json: args.json,
        color: human::use_color(args.color, &host.env),
        verbose: args.verbose,
    };
    Ok(crate::inspect::print(
        &host,
        &cfg,
        &super::absolute(paths),
        &o,
        &view,
        stamp,
    ))
}

/// The engine writes the check's id on `inspect`'s findings, as on every check's.
pub(super) fn stamp(findings: &mut [crate::report::Finding]) {
    use crate::inspect::judge::{CATEGORY, ID};
    crate::runner::stamp(findings, ID.as_str(), CATEGORY, 0);
}

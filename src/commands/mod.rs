//! The subcommands' entry points, on top of everything else: each turns the parsed command line
//! into a `Config` and a `Session` and calls its module, which never sees argv types.

use crate::cli::RunArgs;
use crate::report::exit;
use std::path::{Path, PathBuf};

fn config(args: &RunArgs) -> Option<crate::config::Config> {
    match args.config() {
        Ok(c) => Some(c),
        Err(e) => {
            eprintln!("rocm-doctor: {e}");
            None
        }
    }
}

/// `rocm-doctor inspect PATH...`
pub fn inspect(
    args: &RunArgs,
    paths: &[PathBuf],
    symbols: bool,
    kernels: bool,
    verify_hash: bool,
) -> i32 {
    match config(args) {
        Some(cfg) => {
            crate::inspect::main(&cfg, &args.session(), paths, symbols, kernels, verify_hash)
        }
        None => exit::USAGE_OR_INTERNAL,
    }
}

/// `rocm-doctor ps`
pub fn ps(args: &RunArgs) -> i32 {
    match config(args) {
        Some(cfg) => crate::gpuproc::main(&cfg, &args.session()),
        None => exit::USAGE_OR_INTERNAL,
    }
}

/// `rocm-doctor log FILE|-`
pub fn log(args: &RunArgs, file: &Path) -> i32 {
    crate::logscan::main(&args.session(), file)
}

//! Vendor libraries are loaded only in a child process: the doctor re-executes itself with the
//! hidden `probe-library` subcommand, and the parent reads the child's JSON line.

pub mod hsa;

use std::path::Path;

/// Entry point of the child process.
pub fn child_main(kind: &str, path: &Path) -> i32 {
    match kind {
        "hsa" => hsa::child_main(path),
        _ => 2,
    }
}

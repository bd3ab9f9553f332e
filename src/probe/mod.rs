//! Vendor libraries are loaded only in a child process: the doctor re-executes itself with the
//! hidden `probe-library` subcommand, and the parent reads the child's JSON line.

use std::path::Path;

/// Entry point of the child process.
pub fn child_main(_kind: &str, _path: &Path) -> i32 {
    2
}

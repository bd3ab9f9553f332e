//! `rocm-doctor probe-library KIND PATH` (hidden): the child that loads a vendor library, so
//! that a crash in it is the child's (`probe`).

use std::path::Path;

pub(crate) fn main(kind: &str, path: &Path) -> i32 {
    crate::probe::child_main(kind, path)
}

//! `PATH` look-up inside the sysroot, using the env snapshot's `PATH`.

use super::Host;
use std::os::unix::fs::PermissionsExt;
use std::path::PathBuf;

pub(super) fn which_in(host: &Host, name: &str) -> Option<PathBuf> {
    if name.is_empty() || name.contains('\0') {
        return None;
    }
    if name.contains('/') {
        let p = PathBuf::from(name);
        return is_executable_at(host, &p).then_some(p);
    }
    let path = host.env.get_os("PATH")?;
    for dir in std::env::split_paths(path) {
        if !dir.is_absolute() {
            continue; // relative PATH entries depend on the cwd; the doctor never uses them
        }
        let candidate = dir.join(name);
        if is_executable_at(host, &candidate) {
            return Some(candidate);
        }
    }
    None
}

/// Whether the machine path is an executable regular file (inside the sysroot).
pub fn is_executable_at(host: &Host, machine: &std::path::Path) -> bool {
    match host.fs.metadata(machine) {
        Ok(m) => m.is_file() && m.permissions().mode() & 0o111 != 0,
        Err(_) => false,
    }
}

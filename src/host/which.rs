//! `PATH` look-up inside the sysroot, using the env snapshot's `PATH`.

use super::Host;
use std::os::unix::fs::PermissionsExt;
use std::path::PathBuf;

pub(super) fn which_in(host: &Host, name: &str) -> Option<PathBuf> {
    if name.is_empty() || name.contains('\0') {
        return None;
    }
    if name.contains('/') {
        let p = host.fs.host_path(std::path::Path::new(name));
        return is_executable(&p).then_some(p);
    }
    let path = host.env.get_os("PATH")?;
    for dir in std::env::split_paths(path) {
        if !dir.is_absolute() {
            continue; // relative PATH entries depend on the cwd; the doctor never uses them
        }
        let candidate = host.fs.host_path(&dir.join(name));
        if is_executable(&candidate) {
            return Some(candidate);
        }
    }
    None
}

pub(crate) fn is_executable(p: &std::path::Path) -> bool {
    match std::fs::metadata(p) {
        Ok(m) => m.is_file() && m.permissions().mode() & 0o111 != 0,
        Err(_) => false,
    }
}

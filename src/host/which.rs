//! `PATH` look-up inside the sysroot, using the env snapshot's `PATH`: the `which` crate's
//! search (`WhichConfig::new_with_sys`) over [`Rooted`], a view of the machine in which every
//! path is a machine path resolved by [`RootedFs`](super::RootedFs) (absolute symlinks stay
//! inside `--sysroot`) and `PATH` comes from the snapshot, never from this process.

use super::Host;
use std::ffi::{OsStr, OsString};
use std::io;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

pub(super) fn which_in(host: &Host, name: &str) -> Option<PathBuf> {
    if name.is_empty() || name.contains('\0') {
        return None;
    }
    if name.contains('/') {
        // An explicit path is used as given, never searched for.
        let p = PathBuf::from(name);
        return is_executable_at(host, &p).then_some(p);
    }
    let path = host.env.get_os("PATH")?.to_os_string();
    which::WhichConfig::new_with_sys(Rooted(host))
        .system_cwd(false)
        .binary_name(OsString::from(name))
        .custom_path_list(path)
        .first_result()
        .ok()
}

/// Every match on `PATH`, in `PATH` order (for a shim that defers to the next one).
pub(super) fn which_all_in(host: &Host, name: &str) -> Vec<PathBuf> {
    if name.is_empty() || name.contains('\0') || name.contains('/') {
        return which_in(host, name).into_iter().collect();
    }
    let Some(path) = host.env.get_os("PATH").map(OsStr::to_os_string) else {
        return Vec::new();
    };
    which::WhichConfig::new_with_sys(Rooted(host))
        .system_cwd(false)
        .binary_name(OsString::from(name))
        .custom_path_list(path)
        .all_results()
        .map(|it| it.collect())
        .unwrap_or_default()
}

/// Whether the machine path is an executable regular file (inside the sysroot).
pub(crate) fn is_executable_at(host: &Host, machine: &Path) -> bool {
    match host.fs.metadata(machine) {
        Ok(m) => m.is_file() && m.permissions().mode() & 0o111 != 0,
        Err(_) => false,
    }
}

/// The diagnosed machine as `which` sees it.
struct Rooted<'a>(&'a Host);

struct Meta {
    symlink: bool,
    file: bool,
}

impl which::sys::SysMetadata for Meta {
    fn is_symlink(&self) -> bool {
        self.symlink
    }
    fn is_file(&self) -> bool {
        self.file
    }
}

/// Never produced: directory listings are only used by `which`'s regex search.
struct NoEntry;

impl which::sys::SysReadDirEntry for NoEntry {
    fn file_name(&self) -> OsString {
        OsString::new()
    }
    fn path(&self) -> PathBuf {
        PathBuf::new()
    }
}

impl which::sys::Sys for Rooted<'_> {
    type ReadDirEntry = NoEntry;
    type Metadata = Meta;

    fn is_windows(&self) -> bool {
        false
    }
    fn current_dir(&self) -> io::Result<PathBuf> {
        // The doctor never searches relative to a working directory.
        Err(io::Error::from(io::ErrorKind::Unsupported))
    }
    fn home_dir(&self) -> Option<PathBuf> {
        None
    }
    /// Absolute entries only: relative ones (and `~`) depend on a cwd or a home the diagnosed
    /// machine's user has, not this process.
    fn env_split_paths(&self, paths: &OsStr) -> Vec<PathBuf> {
        std::env::split_paths(paths)
            .filter(|p| p.is_absolute())
            .collect()
    }
    fn env_path(&self) -> Option<OsString> {
        self.0.env.get_os("PATH").map(OsStr::to_os_string)
    }
    fn env_path_ext(&self) -> Option<OsString> {
        None
    }
    fn metadata(&self, path: &Path) -> io::Result<Meta> {
        let m = self.0.fs.metadata(path)?;
        Ok(Meta {
            symlink: false,
            file: m.is_file(),
        })
    }
    fn symlink_metadata(&self, path: &Path) -> io::Result<Meta> {
        let m = self.0.fs.symlink_metadata(path)?;
        Ok(Meta {
            symlink: m.file_type().is_symlink(),
            file: m.is_file(),
        })
    }
    fn read_dir(&self, _path: &Path) -> io::Result<Box<dyn Iterator<Item = io::Result<NoEntry>>>> {
        Err(io::Error::from(io::ErrorKind::Unsupported))
    }
    fn is_valid_executable(&self, path: &Path) -> io::Result<bool> {
        Ok(is_executable_at(self.0, path))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::host::{Env, Limits};
    use std::os::unix::fs::symlink;
    use std::time::Duration;

    fn host(root: &Path, path: &str) -> Host {
        Host::new(
            root.to_path_buf(),
            Env::from_pairs([("PATH", path)]),
            Limits::new(Duration::from_secs(1), Duration::from_secs(1)),
        )
    }

    fn exe(p: &Path) {
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, "#!/bin/sh\n").unwrap();
        std::fs::set_permissions(p, std::fs::Permissions::from_mode(0o755)).unwrap();
    }

    #[test]
    fn search_is_rooted_in_the_sysroot() {
        let t = tempfile::tempdir().unwrap();
        let r = t.path();
        exe(&r.join("opt/llvm/bin/clang"));
        std::fs::create_dir_all(r.join("usr/bin")).unwrap();
        std::fs::create_dir_all(r.join("first")).unwrap();
        // An absolute link, as in Nix symlinkJoin trees: resolved inside the root.
        symlink("/opt/llvm/bin/clang", r.join("usr/bin/clang")).unwrap();
        // A link to a program this host has but the root does not: not found.
        symlink("/bin/sh", r.join("usr/bin/sh")).unwrap();
        // Not executable: skipped, the search goes on.
        std::fs::write(r.join("first/clang"), "").unwrap();
        let h = host(r, "relative/bin:/first:/usr/bin");
        assert_eq!(h.which("clang"), Some(PathBuf::from("/usr/bin/clang")));
        assert_eq!(h.which("sh"), None);
        assert_eq!(h.which("missing"), None);
        assert_eq!(h.which(""), None);
        // Relative PATH entries are never searched.
        exe(&r.join("relative/bin/tool"));
        assert_eq!(h.which("tool"), None);
        // An explicit path is checked, not searched.
        assert_eq!(
            h.which("/opt/llvm/bin/clang"),
            Some(PathBuf::from("/opt/llvm/bin/clang"))
        );
        assert_eq!(h.which("/first/clang"), None);
        // Without PATH in the snapshot, nothing is found (the process's PATH is not used).
        let bare = Host::new(
            r.to_path_buf(),
            Env::from_pairs(Vec::<(String, String)>::new()),
            Limits::new(Duration::from_secs(1), Duration::from_secs(1)),
        );
        assert_eq!(bare.which("clang"), None);
    }
}

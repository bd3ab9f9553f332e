//! Filesystem access rooted at the sysroot.
//!
//! Paths given to and returned by [`RootedFs`] are *machine paths*: paths as the diagnosed
//! machine sees them (`/opt/rocm/bin/hipcc`). With `--sysroot DIR` they are read from
//! `DIR/opt/rocm/bin/hipcc`, and absolute symlinks are resolved inside `DIR` too, so a fixture
//! tree behaves like a real machine.

use std::ffi::OsString;
use std::fs::{Metadata, ReadDir};
use std::io::{self, Read};
use std::path::{Component, Path, PathBuf};

/// Files larger than this are never read whole (sysfs and version files are tiny).
pub const MAX_TEXT_FILE: u64 = 4 << 20;
const MAX_SYMLINK_HOPS: usize = 40;

#[derive(Debug, Clone)]
pub struct RootedFs {
    root: PathBuf,
}

impl RootedFs {
    pub fn new(root: PathBuf) -> Self {
        RootedFs { root }
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    pub fn is_real_root(&self) -> bool {
        self.root == Path::new("/")
    }

    /// The host path to open for a machine path.
    pub fn host_path(&self, machine: &Path) -> PathBuf {
        if self.is_real_root() {
            return machine.to_path_buf();
        }
        let rel: PathBuf = machine
            .components()
            .filter(|c| {
                matches!(
                    c,
                    Component::Normal(_) | Component::ParentDir | Component::CurDir
                )
            })
            .collect();
        self.root.join(rel)
    }

    /// The machine path for a host path below the root (used for paths found by walking).
    pub fn machine_path(&self, host: &Path) -> PathBuf {
        if self.is_real_root() {
            return host.to_path_buf();
        }
        match host.strip_prefix(&self.root) {
            Ok(rel) => Path::new("/").join(rel),
            Err(_) => host.to_path_buf(),
        }
    }

    pub fn metadata(&self, p: &Path) -> io::Result<Metadata> {
        std::fs::metadata(self.resolve_host(p)?)
    }

    pub fn symlink_metadata(&self, p: &Path) -> io::Result<Metadata> {
        std::fs::symlink_metadata(self.host_path(p))
    }

    pub fn exists(&self, p: &Path) -> bool {
        self.metadata(p).is_ok()
    }

    pub fn is_dir(&self, p: &Path) -> bool {
        self.metadata(p).map(|m| m.is_dir()).unwrap_or(false)
    }

    pub fn is_file(&self, p: &Path) -> bool {
        self.metadata(p).map(|m| m.is_file()).unwrap_or(false)
    }

    pub fn read_link(&self, p: &Path) -> io::Result<PathBuf> {
        std::fs::read_link(self.host_path(p))
    }

    pub fn read_dir(&self, p: &Path) -> io::Result<ReadDir> {
        std::fs::read_dir(self.resolve_host(p)?)
    }

    /// Names of the entries of a directory, sorted (empty on error).
    pub fn list_names(&self, p: &Path) -> Vec<OsString> {
        let mut v: Vec<OsString> = match self.read_dir(p) {
            Ok(rd) => rd.filter_map(|e| e.ok()).map(|e| e.file_name()).collect(),
            Err(_) => Vec::new(),
        };
        v.sort();
        v
    }

    /// Reads a small text file (bounded by [`MAX_TEXT_FILE`]); invalid UTF-8 is replaced.
    pub fn read_text(&self, p: &Path) -> io::Result<String> {
        let bytes = self.read_bytes_limited(p, MAX_TEXT_FILE)?;
        Ok(String::from_utf8_lossy(&bytes).into_owned())
    }

    pub fn read_bytes_limited(&self, p: &Path, limit: u64) -> io::Result<Vec<u8>> {
        let f = std::fs::File::open(self.resolve_host(p)?)?;
        let mut buf = Vec::new();
        f.take(limit + 1).read_to_end(&mut buf)?;
        if buf.len() as u64 > limit {
            return Err(io::Error::new(
                io::ErrorKind::InvalidData,
                format!("larger than {limit} bytes"),
            ));
        }
        Ok(buf)
    }

    /// Opens a file for reading (for memory-mapping or streaming large inputs).
    pub fn open(&self, p: &Path) -> io::Result<std::fs::File> {
        std::fs::File::open(self.resolve_host(p)?)
    }

    /// Opens a file for reading with `O_NONBLOCK`: a character device such as `/dev/kmsg` then
    /// answers `EAGAIN` instead of blocking when it has nothing more to give.
    pub fn open_nonblocking(&self, p: &Path) -> io::Result<std::fs::File> {
        use std::os::unix::fs::OpenOptionsExt;
        std::fs::OpenOptions::new()
            .read(true)
            .custom_flags(nix::libc::O_NONBLOCK)
            .open(self.resolve_host(p)?)
    }

    /// Canonical machine path: every symlink resolved inside the sysroot, `..` applied,
    /// symlink loops reported as `ELOOP`.
    pub fn canonicalize(&self, p: &Path) -> io::Result<PathBuf> {
        if self.is_real_root() {
            return std::fs::canonicalize(p);
        }
        let mut pending: Vec<OsString> = Vec::new();
        push_components(&mut pending, p);
        let mut out = PathBuf::from("/");
        let mut hops = 0usize;
        while let Some(part) = pending.pop() {
            if part == ".." {
                out.pop();
                continue;
            }
            if part == "." || part.is_empty() {
                continue;
            }
            let next = out.join(&part);
            let meta = std::fs::symlink_metadata(self.host_path(&next))?;
            if meta.file_type().is_symlink() {
                hops += 1;
                if hops > MAX_SYMLINK_HOPS {
                    return Err(io::Error::from_raw_os_error(nix::libc::ELOOP));
                }
                let target = std::fs::read_link(self.host_path(&next))?;
                if target.is_absolute() {
                    out = PathBuf::from("/");
                }
                push_components(&mut pending, &target);
            } else {
                out = next;
            }
        }
        Ok(out)
    }

    fn resolve_host(&self, p: &Path) -> io::Result<PathBuf> {
        if self.is_real_root() {
            return Ok(p.to_path_buf());
        }
        Ok(self.host_path(&self.canonicalize(p)?))
    }
}

/// Pushes the components of `p` onto a stack so that the first component is popped first.
fn push_components(stack: &mut Vec<OsString>, p: &Path) {
    let parts: Vec<OsString> = p
        .components()
        .filter_map(|c| match c {
            Component::Normal(s) => Some(s.to_os_string()),
            Component::ParentDir => Some(OsString::from("..")),
            _ => None,
        })
        .collect();
    stack.extend(parts.into_iter().rev());
}

/// The symbolic errno name of an I/O error (`EACCES`, `ENOENT`, ...), or its kind.
pub fn errno_name(e: &io::Error) -> String {
    match e.raw_os_error() {
        Some(code) => {
            let name = format!("{:?}", nix::errno::Errno::from_raw(code));
            if name.starts_with('E') {
                name
            } else {
                format!("errno {code}")
            }
        }
        None => format!("{:?}", e.kind()),
    }
}

/// `"ENOENT: No such file or directory"`-style text for evidence lines.
pub fn io_error_text(e: &io::Error) -> String {
    match e.raw_os_error() {
        Some(code) => format!(
            "{}: {}",
            errno_name(e),
            nix::errno::Errno::from_raw(code).desc()
        ),
        None => e.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rooted_symlinks_resolve_inside_the_sysroot() {
        let t = tempfile::tempdir().unwrap();
        let root = t.path();
        std::fs::create_dir_all(root.join("opt/rocm-6.2.2/bin")).unwrap();
        std::os::unix::fs::symlink("/opt/rocm-6.2.2", root.join("opt/rocm")).unwrap();
        std::fs::write(root.join("opt/rocm-6.2.2/bin/x"), "hi").unwrap();
        let fs = RootedFs::new(root.to_path_buf());
        assert_eq!(
            fs.canonicalize(Path::new("/opt/rocm/bin/x")).unwrap(),
            Path::new("/opt/rocm-6.2.2/bin/x")
        );
        assert_eq!(fs.read_text(Path::new("/opt/rocm/bin/x")).unwrap(), "hi");
    }

    #[test]
    fn symlink_loops_are_eloop_not_a_hang() {
        let t = tempfile::tempdir().unwrap();
        let root = t.path();
        std::os::unix::fs::symlink("/b", root.join("a")).unwrap();
        std::os::unix::fs::symlink("/a", root.join("b")).unwrap();
        let fs = RootedFs::new(root.to_path_buf());
        let e = fs.canonicalize(Path::new("/a/x")).unwrap_err();
        assert_eq!(errno_name(&e), "ELOOP");
    }

    #[test]
    fn dotdot_cannot_escape_the_root() {
        let fs = RootedFs::new(PathBuf::from("/some/root"));
        assert_eq!(fs.host_path(Path::new("/a/b")), Path::new("/some/root/a/b"));
        let t = tempfile::tempdir().unwrap();
        let fs = RootedFs::new(t.path().to_path_buf());
        std::fs::write(t.path().join("f"), "x").unwrap();
        assert_eq!(
            fs.canonicalize(Path::new("/../../f")).unwrap(),
            Path::new("/f")
        );
    }
}

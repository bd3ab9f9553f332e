//! Device nodes (`/dev/kfd`, `/dev/dri/renderD*`): existence, type, owner, mode, ACL and whether
//! this process can open them read-write.
//!
//! On the real root the node is stat()ed and really opened with `O_RDWR | O_CLOEXEC`, like
//! libhsakmt's `hsaKmtOpenKFD` and its render-node check; the errno name is reported. Under a
//! fixture sysroot the manifest (see [`super::fixture`]) describes the node and the verdict is
//! decided from mode, owner, ACL and the credentials.

use super::access::{decide_rw, parse_acl_xattr, AclEntry, Credentials, Decision};
use super::fixture::Fixture;
use crate::host::{errno_name, Host};
use std::os::unix::fs::{FileTypeExt, MetadataExt};
use std::path::{Path, PathBuf};

/// Where device facts come from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Source {
    /// The real machine: stat and a real open.
    Real,
    /// A fixture manifest.
    Manifest,
    /// A fixture sysroot without a manifest: device nodes are not described.
    Undescribed,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Open {
    /// A real open succeeded.
    Opened,
    /// A real open failed with this errno name.
    Failed(String),
    /// Decided without opening (fixtures): the errno an open would return, or None for success.
    Predicted(Option<String>),
}

impl Open {
    pub(crate) fn ok(&self) -> bool {
        matches!(self, Open::Opened | Open::Predicted(None))
    }
    pub(crate) fn errno(&self) -> Option<&str> {
        match self {
            Open::Failed(e) | Open::Predicted(Some(e)) => Some(e),
            _ => None,
        }
    }
}

#[derive(Debug, Clone)]
pub(crate) struct NodeInfo {
    pub path: PathBuf,
    pub is_char: bool,
    /// `char`, `dir`, `file`, `symlink`, `other`.
    pub kind: String,
    pub major: u32,
    pub minor: u32,
    pub mode: u32,
    pub uid: u32,
    pub gid: u32,
    pub acl: Option<Vec<AclEntry>>,
    /// What the permission bits / ACL say for the judged credentials.
    pub decision: Decision,
    pub open: Open,
}

#[derive(Debug, Clone)]
pub(crate) enum NodeState {
    Unknown,
    Missing,
    /// stat failed with another errno.
    Error(String),
    Present(NodeInfo),
}

impl NodeState {
    pub(crate) fn usable(&self) -> Option<bool> {
        match self {
            NodeState::Unknown => None,
            NodeState::Present(i) => Some(i.is_char && i.open.ok()),
            _ => Some(false),
        }
    }
    /// The errno name a libhsakmt-style open would see.
    pub(crate) fn open_errno(&self) -> Option<String> {
        match self {
            NodeState::Unknown => None,
            NodeState::Missing => Some("ENOENT".into()),
            NodeState::Error(e) => Some(e.clone()),
            NodeState::Present(i) => i.open.errno().map(str::to_string),
        }
    }
}

/// Device facts for one run.
#[derive(Debug, Clone)]
pub(crate) struct Devices {
    pub source: Source,
    pub cred: Credentials,
    /// `process` (the doctor's own ids) or `fixture manifest`.
    pub cred_source: &'static str,
    fixture: Fixture,
}

/// The credentials the kernel checks for this process (effective ids, supplementary groups).
pub(crate) fn process_credentials() -> Credentials {
    let uid = nix::unistd::geteuid().as_raw();
    let gid = nix::unistd::getegid().as_raw();
    let groups = nix::unistd::getgroups()
        .map(|g| g.into_iter().map(|g| g.as_raw()).collect())
        .unwrap_or_default();
    Credentials { uid, gid, groups }
}

impl Devices {
    pub(crate) fn new(host: &Host, fixture: &Fixture) -> Self {
        // Decision (issue 20): --host-root judges the nodes live, as this process (the
        // container) sees them (RootedFs::device_path); a fixture by its manifest.
        let source = if host.fs.judges_live_devices() {
            Source::Real
        } else if fixture.present {
            Source::Manifest
        } else {
            Source::Undescribed
        };
        let (cred, cred_source) = match &fixture.process {
            Some(c) if source == Source::Manifest => (c.clone(), "fixture manifest"),
            _ => (process_credentials(), "process"),
        };
        Devices {
            source,
            cred,
            cred_source,
            fixture: fixture.clone(),
        }
    }

    /// The fixture manifest read for this run (empty on a real root), so later readers do not
    /// read it again.
    pub(crate) fn fixture(&self) -> &Fixture {
        &self.fixture
    }

    /// Facts about one device node (machine path).
    pub(crate) fn probe(&self, host: &Host, path: &Path) -> NodeState {
        match self.source {
            Source::Undescribed => NodeState::Unknown,
            Source::Manifest => match self.fixture.device(path) {
                None => NodeState::Missing,
                Some(d) => {
                    let decision = decide_rw(&self.cred, d.mode, d.uid, d.gid, d.acl.as_deref());
                    let is_char = d.kind == "char";
                    let errno = if !is_char {
                        // Opening a directory O_RDWR fails with EISDIR; a plain file opens but is no device.
                        (d.kind == "dir").then(|| "EISDIR".to_string())
                    } else if !decision.granted() {
                        Some("EACCES".into())
                    } else {
                        d.open_errno
                            .map(|e| errno_name(&std::io::Error::from_raw_os_error(e)))
                    };
                    NodeState::Present(NodeInfo {
                        path: path.to_path_buf(),
                        is_char,
                        kind: d.kind.clone(),
                        major: d.major,
                        minor: d.minor,
                        mode: d.mode,
                        uid: d.uid,
                        gid: d.gid,
                        acl: d.acl.clone(),
                        decision,
                        open: Open::Predicted(errno),
                    })
                }
            },
            Source::Real => real_probe(host, path, &self.cred),
        }
    }
}

fn real_probe(host: &Host, path: &Path, cred: &Credentials) -> NodeState {
    // The node this process would open: the machine path itself, also under --host-root
    // (the container's own /dev: RootedFs::device_path says why).
    let dev = host.fs.device_path(path);
    let meta = match std::fs::metadata(&dev) {
        Ok(m) => m,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return NodeState::Missing,
        Err(e) => return NodeState::Error(errno_name(&e)),
    };
    let ft = meta.file_type();
    let kind = if ft.is_char_device() {
        "char"
    } else if ft.is_dir() {
        "dir"
    } else if ft.is_file() {
        "file"
    } else {
        "other"
    };
    let rdev = meta.rdev();
    let acl = read_acl(&dev);
    let mode = meta.mode() & 0o7777;
    let decision = decide_rw(cred, mode, meta.uid(), meta.gid(), acl.as_deref());
    let open = if ft.is_char_device() {
        use nix::fcntl::{open, OFlag};
        match open(
            &dev,
            OFlag::O_RDWR | OFlag::O_CLOEXEC | OFlag::O_NOCTTY,
            nix::sys::stat::Mode::empty(),
        ) {
            Ok(fd) => {
                let _ = nix::unistd::close(fd);
                Open::Opened
            }
            Err(e) => Open::Failed(format!("{e:?}")),
        }
    } else {
        Open::Predicted(Some(if ft.is_dir() {
            "EISDIR".into()
        } else {
            "ENODEV".into()
        }))
    };
    NodeState::Present(NodeInfo {
        path: path.to_path_buf(),
        is_char: ft.is_char_device(),
        kind: kind.into(),
        major: nix::sys::stat::major(rdev) as u32,
        minor: nix::sys::stat::minor(rdev) as u32,
        mode,
        uid: meta.uid(),
        gid: meta.gid(),
        acl,
        decision,
        open,
    })
}

/// The access ACL of a file, if it has one beyond the mode bits.
fn read_acl(path: &Path) -> Option<Vec<AclEntry>> {
    use std::os::unix::ffi::OsStrExt;
    let c_path = std::ffi::CString::new(path.as_os_str().as_bytes()).ok()?;
    let name = c"system.posix_acl_access";
    let mut buf = vec![0u8; 1024];
    // SAFETY: both strings are NUL-terminated and `buf` is valid for `buf.len()` bytes.
    let n = unsafe {
        nix::libc::getxattr(
            c_path.as_ptr(),
            name.as_ptr(),
            buf.as_mut_ptr().cast(),
            buf.len(),
        )
    };
    if n <= 0 {
        return None;
    }
    buf.truncate(n as usize);
    parse_acl_xattr(&buf)
}

/// Group names from `<sysroot>/etc/group` (for messages only: decisions use numbers).
pub(crate) fn group_name(host: &Host, gid: u32) -> Option<String> {
    let text = host.fs.read_text(Path::new("/etc/group")).ok()?;
    text.lines().find_map(|l| {
        let mut it = l.split(':');
        let name = it.next()?;
        let _pw = it.next()?;
        let id: u32 = it.next()?.trim().parse().ok()?;
        (id == gid && !name.is_empty()).then(|| name.to_string())
    })
}

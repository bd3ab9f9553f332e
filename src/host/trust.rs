//! Opening a file the doctor will trust with its commands (a check pack), race-free (issue 25,
//! item 1): the rule of OpenSSH's `StrictModes` (`safe_path` in its `misc.c`) and of sudo's
//! `sudoers.d` checks, kept through descriptors rather than paths.
//!
//! The path is walked from `/` one component at a time with `openat(2)` relative to the
//! descriptor of the directory already vetted, each with `O_NOFOLLOW` (open(2): "If the
//! trailing component ... of pathname is a symbolic link, then the open fails"), and each
//! descriptor is judged by `fstat(2)`, never by a second look at the path:
//!
//! - every directory on the way must be owned by root or by the user running the doctor (as
//!   root: by root only) and writable by neither its group nor others, with one exception: a
//!   *sticky* directory of a trusted owner (`/tmp`, mode 1777) may be shared, because in it
//!   "only the file's owner, the directory's owner, or root can rename or delete" an entry
//!   (inode(7), "The file type and mode", S_ISVTX). The entry the walk takes from such a
//!   directory must then itself be owned by a trusted user (a link checked with
//!   `fstatat(AT_SYMLINK_NOFOLLOW)` before it is read, a directory or file by its descriptor),
//!   as the kernel's `protected_symlinks` does for links (proc_sys_fs(5)). A shared directory
//!   is never *listed* as a checks.d: its other users choose which names exist in it.
//! - a symbolic link met on the way is followed only because the directory holding it passed
//!   (nobody else could have made or changed it): `readlinkat(2)`, then the walk goes on with
//!   the link's target, vetted the same way. At most [`MAX_LINKS`] links are followed (the
//!   kernel's own limit, path_resolution(7)), then `ELOOP`.
//! - the file is opened with `O_NOFOLLOW | O_NONBLOCK` from its directory's descriptor and must
//!   be a regular file, writable by neither group nor others, owned by root or (when the doctor
//!   is not root) by the doctor's user. It is then read through that same descriptor.
//!
//! A directory is listed through its vetted descriptor and each entry opened relative to it,
//! so a listing never resolves the directory's path a second time.

use super::open::{kind_of, OpenedFile};
use std::collections::VecDeque;
use std::ffi::{OsStr, OsString};
use std::fs::File;
use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::MetadataExt;
use std::path::{Component, Path, PathBuf};
use std::sync::Arc;

/// Symbolic links followed in one walk before giving up with `ELOOP` (Linux's `MAXSYMLINKS`,
/// path_resolution(7): "a maximum of 40 symbolic links").
pub(crate) const MAX_LINKS: usize = 40;

/// Whom the files and directories may belong to: root, and the doctor's own user when it is
/// not root.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Owners {
    pub euid: u32,
}

impl Owners {
    /// The rule for the doctor's effective user.
    pub(crate) fn current() -> Self {
        Owners {
            euid: nix::unistd::geteuid().as_raw(),
        }
    }

    fn allows(&self, uid: u32) -> bool {
        uid == 0 || uid == self.euid
    }

    fn who(&self) -> String {
        if self.euid == 0 {
            "the doctor runs as root, so only root-owned ones are trusted".to_string()
        } else {
            format!(
                "only root and the user running the doctor (uid {}) are trusted",
                self.euid
            )
        }
    }
}

/// Why a file could not be opened as trusted.
#[derive(Debug)]
pub(crate) enum Refusal {
    /// A component does not exist (normal for an optional directory such as checks.d).
    Missing(PathBuf),
    /// The file or a directory on its path fails the ownership or mode rule.
    Untrusted(String),
    /// Any other failure (permission denied, `ELOOP`, not a directory, ...).
    Io(String),
}

impl std::fmt::Display for Refusal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Refusal::Missing(p) => write!(f, "cannot read it: {} does not exist", p.display()),
            Refusal::Untrusted(m) | Refusal::Io(m) => f.write_str(m),
        }
    }
}

/// A directory on a vetted path, open.
#[derive(Debug, Clone)]
struct Vetted {
    fd: Arc<OwnedFd>,
    path: PathBuf,
    /// A sticky directory others may create entries in (see the module's rule).
    shared: bool,
}

/// A directory whose whole path passed the rule, with its descriptor.
#[derive(Debug)]
pub(crate) struct TrustedDir {
    stack: Vec<Vetted>,
    owners: Owners,
}

/// Opens `path` as a file the doctor may trust (see the module's rule).
pub(crate) fn open_file(path: &Path, owners: Owners) -> Result<OpenedFile, Refusal> {
    let (stack, comps) = start(path, owners)?;
    match walk(stack, comps, true, owners)? {
        Walked::File(f) => Ok(f),
        Walked::Dir(_) => Err(Refusal::Io(format!(
            "{} is not a regular file: a directory",
            path.display()
        ))),
    }
}

/// Opens the directory `path` when every directory on its path passes the rule.
pub(crate) fn open_dir(path: &Path, owners: Owners) -> Result<TrustedDir, Refusal> {
    let (stack, comps) = start(path, owners)?;
    match walk(stack, comps, false, owners)? {
        Walked::Dir(stack) => listable(stack, owners),
        Walked::File(_) => unreachable!("a walk for a directory opens directories only"),
    }
}

/// Opens `path` as trusted, file or directory, whichever it is.
pub(crate) fn open_any(path: &Path, owners: Owners) -> Result<Either, Refusal> {
    let (stack, comps) = start(path, owners)?;
    match walk(stack, comps, true, owners)? {
        Walked::File(f) => Ok(Either::File(f)),
        Walked::Dir(stack) => Ok(Either::Dir(listable(stack, owners)?)),
    }
}

/// A walked directory as one whose entries may be listed and trusted: not a shared one.
fn listable(stack: Vec<Vetted>, owners: Owners) -> Result<TrustedDir, Refusal> {
    let last = stack.last().expect("the root at least");
    if last.shared {
        return Err(Refusal::Untrusted(format!(
            "refused: the directory {} is a shared sticky directory, whose other users choose \
                which names exist in it; its files are not listed as packs. Fix: move the packs \
                to a directory only root or you can write (/etc/rocm-doctor/checks.d, your home)",
            last.path.display()
        )));
    }
    Ok(TrustedDir { stack, owners })
}

/// What [`open_any`] found.
#[derive(Debug)]
pub(crate) enum Either {
    File(OpenedFile),
    Dir(TrustedDir),
}

impl TrustedDir {
    /// The directory's path as walked (links resolved).
    pub(crate) fn path(&self) -> &Path {
        &self.stack.last().expect("the root at least").path
    }

    /// The names in the directory (without `.` and `..`), read through its descriptor.
    pub(crate) fn names(&self) -> io::Result<Vec<OsString>> {
        list(self.stack.last().expect("the root at least").fd.as_raw_fd())
    }

    /// Opens the entry `name` as a trusted file, relative to this directory's descriptor (a
    /// link in it is followed and its target vetted like any path).
    pub(crate) fn open_file(&self, name: &OsStr) -> Result<OpenedFile, Refusal> {
        let comps = VecDeque::from([name.to_os_string()]);
        match walk(self.stack.clone(), comps, true, self.owners)? {
            Walked::File(f) => Ok(f),
            Walked::Dir(_) => Err(Refusal::Io(format!(
                "{} is not a regular file: a directory",
                self.path().join(name).display()
            ))),
        }
    }
}

enum Walked {
    File(OpenedFile),
    Dir(Vec<Vetted>),
}

fn io_refusal(path: &Path, e: nix::errno::Errno) -> Refusal {
    if e == nix::errno::Errno::ENOENT {
        return Refusal::Missing(path.to_path_buf());
    }
    Refusal::Io(format!(
        "cannot read {}: {}",
        path.display(),
        io::Error::from(e)
    ))
}

/// The vetted root directory and the components of `path` (made absolute against the
/// working directory).
fn start(path: &Path, owners: Owners) -> Result<(Vec<Vetted>, VecDeque<OsString>), Refusal> {
    if path.as_os_str().is_empty() {
        return Err(Refusal::Io("an empty path".into()));
    }
    let abs = if path.is_absolute() {
        path.to_path_buf()
    } else {
        std::env::current_dir()
            .map_err(|e| Refusal::Io(format!("cannot resolve {}: {e}", path.display())))?
            .join(path)
    };
    let root = Path::new("/");
    let fd = open_dir_at(None, root).map_err(|e| io_refusal(root, e))?;
    let shared = vet_dir(&fd, root, owners)?;
    let stack = vec![Vetted {
        fd: Arc::new(fd),
        path: root.to_path_buf(),
        shared,
    }];
    Ok((stack, components(&abs)))
}

fn components(p: &Path) -> VecDeque<OsString> {
    p.components()
        .filter_map(|c| match c {
            Component::Normal(n) => Some(n.to_os_string()),
            Component::ParentDir => Some(OsString::from("..")),
            Component::RootDir | Component::CurDir | Component::Prefix(_) => None,
        })
        .collect()
}

fn walk(
    mut stack: Vec<Vetted>,
    mut comps: VecDeque<OsString>,
    file_at_end: bool,
    owners: Owners,
) -> Result<Walked, Refusal> {
    let mut links = 0;
    while let Some(name) = comps.pop_front() {
        if name == ".." {
            // The stack holds the real directories walked, so the parent is the one below.
            if stack.len() > 1 {
                stack.pop();
            }
            continue;
        }
        let here = stack.last().expect("the root at least");
        let path = here.path.join(&name);
        let dirfd = here.fd.as_raw_fd();
        if here.shared {
            entry_owned_by_trusted(dirfd, &name, &path, owners)?;
        }
        // The directory holding `name` passed, so nobody untrusted can make or change a link
        // here: reading it and then opening with O_NOFOLLOW cannot race.
        match nix::fcntl::readlinkat(Some(dirfd), name.as_os_str()) {
            Ok(target) => {
                links += 1;
                if links > MAX_LINKS {
                    return Err(Refusal::Io(format!(
                        "cannot read {}: too many levels of symbolic links (more than \
                            {MAX_LINKS}, ELOOP)",
                        path.display()
                    )));
                }
                let target = PathBuf::from(target);
                if target.is_absolute() {
                    stack.truncate(1);
                }
                for c in components(&target).into_iter().rev() {
                    comps.push_front(c);
                }
                continue;
            }
            Err(nix::errno::Errno::EINVAL) => {}
            Err(e) => return Err(io_refusal(&path, e)),
        }
        let last = comps.is_empty();
        if last && file_at_end {
            let flags = nix::fcntl::OFlag::O_RDONLY
                | nix::fcntl::OFlag::O_NOFOLLOW
                | nix::fcntl::OFlag::O_NONBLOCK
                | nix::fcntl::OFlag::O_NOCTTY
                | nix::fcntl::OFlag::O_CLOEXEC;
            let fd = openat(dirfd, &name, flags).map_err(|e| io_refusal(&path, e))?;
            let file = File::from(fd);
            let meta = file
                .metadata()
                .map_err(|e| Refusal::Io(format!("cannot read {}: {e}", path.display())))?;
            if meta.is_dir() {
                let fd = OwnedFd::from(file);
                let shared = vet_dir(&fd, &path, owners)?;
                stack.push(Vetted {
                    fd: Arc::new(fd),
                    path,
                    shared,
                });
                return Ok(Walked::Dir(stack));
            }
            if !meta.is_file() {
                return Err(Refusal::Io(format!(
                    "{} is not a regular file: {}",
                    path.display(),
                    kind_of(&meta)
                )));
            }
            vet_file(&meta, &path, owners)?;
            super::open::clear_nonblocking(&file)
                .map_err(|e| Refusal::Io(format!("cannot read {}: {e}", path.display())))?;
            return Ok(Walked::File(OpenedFile { file, meta }));
        }
        let fd = open_dir_at(Some(dirfd), Path::new(&name)).map_err(|e| io_refusal(&path, e))?;
        let shared = vet_dir(&fd, &path, owners)?;
        stack.push(Vetted {
            fd: Arc::new(fd),
            path,
            shared,
        });
    }
    if file_at_end && stack.len() == 1 {
        return Err(Refusal::Io("/ is not a regular file: a directory".into()));
    }
    Ok(Walked::Dir(stack))
}

fn openat(dirfd: i32, name: &OsStr, flags: nix::fcntl::OFlag) -> nix::Result<OwnedFd> {
    let fd = nix::fcntl::openat(Some(dirfd), name, flags, nix::sys::stat::Mode::empty())?;
    // SAFETY: `openat` just returned this descriptor, which nothing else owns.
    Ok(unsafe { OwnedFd::from_raw_fd(fd) })
}

fn open_dir_at(dirfd: Option<i32>, name: &Path) -> nix::Result<OwnedFd> {
    use nix::fcntl::OFlag;
    let flags = OFlag::O_RDONLY | OFlag::O_DIRECTORY | OFlag::O_NOFOLLOW | OFlag::O_CLOEXEC;
    match dirfd {
        Some(d) => openat(d, name.as_os_str(), flags),
        None => {
            let fd = nix::fcntl::open(name, flags, nix::sys::stat::Mode::empty())?;
            // SAFETY: `open` just returned this descriptor, which nothing else owns.
            Ok(unsafe { OwnedFd::from_raw_fd(fd) })
        }
    }
}

/// An entry of a shared sticky directory must be owned by a trusted user: nobody else can then
/// rename, replace or delete it (S_ISVTX), so what is read through it next is what they put
/// there. Checked without following a link (`AT_SYMLINK_NOFOLLOW`), before the link is read.
fn entry_owned_by_trusted(
    dirfd: i32,
    name: &OsStr,
    path: &Path,
    owners: Owners,
) -> Result<(), Refusal> {
    let st = nix::sys::stat::fstatat(Some(dirfd), name, nix::fcntl::AtFlags::AT_SYMLINK_NOFOLLOW)
        .map_err(|e| io_refusal(path, e))?;
    if owners.allows(st.st_uid) {
        return Ok(());
    }
    Err(Refusal::Untrusted(format!(
        "refused: {} is in a shared sticky directory and owned by uid {}; {}. Fix: keep packs in \
            a directory owned by root (/etc/rocm-doctor/checks.d) or by you",
        path.display(),
        st.st_uid,
        owners.who()
    )))
}

/// The directory rule, on the directory's descriptor: `Ok(true)` for a shared sticky directory
/// of a trusted owner (its entries are then vetted one by one), `Ok(false)` for one only its
/// owner can write.
fn vet_dir(fd: &OwnedFd, path: &Path, owners: Owners) -> Result<bool, Refusal> {
    let st = nix::sys::stat::fstat(fd.as_raw_fd()).map_err(|e| io_refusal(path, e))?;
    let mode = st.st_mode & 0o7777;
    if !owners.allows(st.st_uid) {
        return Err(Refusal::Untrusted(format!(
            "refused: the directory {} on the path is owned by uid {} (mode {mode:o}); {}. Fix: \
                keep packs in a directory owned by root (chown root:root {0}) or move the file",
            path.display(),
            st.st_uid,
            owners.who()
        )));
    }
    if mode & 0o022 != 0 {
        // A sticky directory of a trusted owner is meant to be shared (never advise
        // `chmod go-w /tmp`): its entries are vetted instead.
        if mode & 0o1000 != 0 {
            return Ok(true);
        }
        return Err(Refusal::Untrusted(format!(
            "refused: the directory {} on the path is writable by its group or by others (mode \
                {mode:o}, owner uid {}); whoever can write it could swap the file. Fix: chmod \
                go-w {0}, or move the file to a directory only its owner can write",
            path.display(),
            st.st_uid,
        )));
    }
    Ok(false)
}

/// The file rule, on the descriptor's metadata.
fn vet_file(meta: &std::fs::Metadata, path: &Path, owners: Owners) -> Result<(), Refusal> {
    let mode = meta.mode() & 0o7777;
    if mode & 0o022 != 0 {
        return Err(Refusal::Untrusted(format!(
            "refused: the file is writable by its group or by others (mode {mode:o}, owner uid \
                {}); they could make the doctor run their commands. Fix: chmod go-w {}",
            meta.uid(),
            path.display()
        )));
    }
    if !owners.allows(meta.uid()) {
        let why = if owners.euid == 0 {
            "as root the doctor runs only packs owned by root".to_string()
        } else {
            format!(
                "neither root nor the user running the doctor (uid {}); packs can run commands",
                owners.euid
            )
        };
        return Err(Refusal::Untrusted(format!(
            "refused: the file is owned by uid {}, {why}. Fix: chown root:root {1}; chmod go-w {1}",
            meta.uid(),
            path.display()
        )));
    }
    Ok(())
}

/// The names in the directory open on `fd` (`fdopendir(3)` on a duplicate, so the listing
/// reads the very directory that was vetted).
fn list(fd: i32) -> io::Result<Vec<OsString>> {
    let dup = nix::unistd::dup(fd).map_err(io::Error::from)?;
    // SAFETY: `dup` returned a fresh descriptor; `fdopendir` takes it over (closed by
    // `closedir` below), or leaves it to us on failure.
    let dir = unsafe { nix::libc::fdopendir(dup) };
    if dir.is_null() {
        let e = io::Error::last_os_error();
        let _ = nix::unistd::close(dup);
        return Err(e);
    }
    // SAFETY: the directory stream was just opened from our own duplicate.
    unsafe { nix::libc::rewinddir(dir) };
    let mut names = Vec::new();
    loop {
        nix::errno::Errno::clear();
        // SAFETY: `dir` is a valid stream until `closedir`; the entry is copied out before the
        // next call.
        let ent = unsafe { nix::libc::readdir(dir) };
        if ent.is_null() {
            let errno = nix::errno::Errno::last_raw();
            // SAFETY: closes the stream opened above, once.
            unsafe { nix::libc::closedir(dir) };
            if errno != 0 {
                return Err(io::Error::from_raw_os_error(errno));
            }
            break;
        }
        // SAFETY: `d_name` is a NUL-terminated name inside the entry readdir returned.
        let name = unsafe { std::ffi::CStr::from_ptr((*ent).d_name.as_ptr()) };
        let bytes = name.to_bytes();
        if bytes != b"." && bytes != b".." {
            names.push(OsStr::from_bytes(bytes).to_os_string());
        }
    }
    Ok(names)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::{symlink, PermissionsExt};

    /// A scratch directory whose whole path passes for the current user (not under /tmp,
    /// which the rule refuses).
    fn scratch() -> tempfile::TempDir {
        let base = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/trust-tests");
        std::fs::create_dir_all(&base).unwrap();
        std::fs::set_permissions(&base, std::fs::Permissions::from_mode(0o755)).unwrap();
        let t = tempfile::tempdir_in(&base).unwrap();
        std::fs::set_permissions(t.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
        t
    }

    fn me() -> Owners {
        Owners::current()
    }

    fn write(p: &Path, mode: u32) {
        std::fs::write(p, b"x = 1\n").unwrap();
        std::fs::set_permissions(p, std::fs::Permissions::from_mode(mode)).unwrap();
    }

    #[test]
    fn a_file_under_a_clean_path_is_opened_and_read() {
        let t = scratch();
        let f = t.path().join("p.toml");
        write(&f, 0o644);
        let got = open_file(&f, me()).unwrap().read_capped(100).unwrap();
        assert_eq!(got, b"x = 1\n");
    }

    #[test]
    fn a_symlinked_directory_in_a_vetted_directory_is_followed() {
        let t = scratch();
        let real = t.path().join("real");
        std::fs::create_dir(&real).unwrap();
        std::fs::set_permissions(&real, std::fs::Permissions::from_mode(0o755)).unwrap();
        write(&real.join("p.toml"), 0o644);
        symlink("real", t.path().join("rel")).unwrap();
        symlink(&real, t.path().join("abs")).unwrap();
        for via in ["rel", "abs"] {
            let f = t.path().join(via).join("p.toml");
            assert!(open_file(&f, me()).is_ok(), "{via}");
        }
        // `..` after a link goes to the link target's parent, as the kernel resolves it.
        let f = t.path().join("rel/../real/p.toml");
        assert!(open_file(&f, me()).is_ok());
        let d = open_dir(&t.path().join("abs"), me()).unwrap();
        assert_eq!(d.path(), real.as_path());
        assert_eq!(d.names().unwrap(), vec![OsString::from("p.toml")]);
        assert!(d.open_file(OsStr::new("p.toml")).is_ok());
    }

    #[test]
    fn a_link_loop_ends_with_eloop_not_a_hang() {
        let t = scratch();
        symlink("b", t.path().join("a")).unwrap();
        symlink("a", t.path().join("b")).unwrap();
        let e = open_file(&t.path().join("a/p.toml"), me()).unwrap_err();
        let m = e.to_string();
        assert!(m.contains("too many levels of symbolic links"), "{m}");
        assert!(m.contains("ELOOP"), "{m}");
    }

    #[test]
    fn writable_files_and_directories_are_refused_with_the_mode() {
        let t = scratch();
        let f = t.path().join("g.toml");
        write(&f, 0o664);
        let m = open_file(&f, me()).unwrap_err().to_string();
        assert!(m.contains("mode 664") && m.contains("chmod go-w"), "{m}");
        let d = t.path().join("group");
        std::fs::create_dir(&d).unwrap();
        std::fs::set_permissions(&d, std::fs::Permissions::from_mode(0o775)).unwrap();
        write(&d.join("p.toml"), 0o644);
        let m = open_file(&d.join("p.toml"), me()).unwrap_err().to_string();
        assert!(m.contains("mode 775") && m.contains("chmod go-w"), "{m}");
        assert!(m.contains(&d.display().to_string()), "{m}");
    }

    #[test]
    fn a_sticky_directory_passes_for_its_trusted_entries_but_is_never_listed() {
        let t = scratch();
        let d = t.path().join("shared");
        std::fs::create_dir(&d).unwrap();
        std::fs::set_permissions(&d, std::fs::Permissions::from_mode(0o1777)).unwrap();
        write(&d.join("p.toml"), 0o644);
        assert!(open_file(&d.join("p.toml"), me()).is_ok());
        let m = open_dir(&d, me()).unwrap_err().to_string();
        assert!(m.contains("shared sticky directory"), "{m}");
        let m = match open_any(&d, me()) {
            Err(e) => e.to_string(),
            Ok(_) => panic!("a shared directory was listed"),
        };
        assert!(m.contains("shared sticky directory"), "{m}");
        if nix::unistd::geteuid().is_root() {
            // Another user's file, directory or link in the shared directory is refused.
            let nobody = Some(nix::unistd::Uid::from_raw(65534));
            let theirs = d.join("theirs.toml");
            write(&theirs, 0o644);
            nix::unistd::chown(&theirs, nobody, None).unwrap();
            let m = open_file(&theirs, me()).unwrap_err().to_string();
            assert!(m.contains("uid 65534"), "{m}");
            let link = d.join("link.toml");
            symlink(d.join("p.toml"), &link).unwrap();
            nix::unistd::fchownat(
                None,
                &link,
                nobody,
                None,
                nix::fcntl::AtFlags::AT_SYMLINK_NOFOLLOW,
            )
            .unwrap();
            let m = open_file(&link, me()).unwrap_err().to_string();
            assert!(
                m.contains("shared sticky directory") && m.contains("65534"),
                "{m}"
            );
        }
    }

    #[test]
    fn tmp_itself_is_refused_and_a_fifo_is_not_waited_for() {
        let e = open_dir(&std::env::temp_dir(), me());
        if std::env::temp_dir() == Path::new("/tmp") {
            assert!(matches!(e, Err(Refusal::Untrusted(_))), "{e:?}");
        }
        let t = scratch();
        let fifo = t.path().join("p.toml");
        nix::unistd::mkfifo(&fifo, nix::sys::stat::Mode::from_bits_truncate(0o600)).unwrap();
        let m = open_file(&fifo, me()).unwrap_err().to_string();
        assert!(m.contains("not a regular file: a FIFO"), "{m}");
    }

    #[test]
    fn another_owner_is_refused_for_root() {
        if !nix::unistd::geteuid().is_root() {
            return;
        }
        let t = scratch();
        let f = t.path().join("p.toml");
        write(&f, 0o644);
        nix::unistd::chown(&f, Some(nix::unistd::Uid::from_raw(65534)), None).unwrap();
        let m = open_file(&f, me()).unwrap_err().to_string();
        assert!(
            m.contains("owned by uid 65534") && m.contains("chown root:root"),
            "{m}"
        );
        // The file is root's, its directory nobody's.
        let d = t.path().join("theirs");
        std::fs::create_dir(&d).unwrap();
        write(&d.join("p.toml"), 0o644);
        nix::unistd::chown(&d, Some(nix::unistd::Uid::from_raw(65534)), None).unwrap();
        let m = open_file(&d.join("p.toml"), me()).unwrap_err().to_string();
        assert!(m.contains("directory") && m.contains("uid 65534"), "{m}");
    }
}

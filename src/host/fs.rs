//! Filesystem access rooted at the sysroot.
//!
//! Paths given to and returned by [`RootedFs`] are *machine paths*: paths as the diagnosed
//! machine sees them (`/opt/rocm/bin/hipcc`). With `--sysroot DIR` they are read from
//! `DIR/opt/rocm/bin/hipcc`, and absolute symlinks are resolved inside `DIR` too, so a fixture
//! tree behaves like a real machine.
//!
//! What the root *is* decides more than where files are read from: [`RootMode`] says whether
//! the tree is this machine (`/`), a fixture or another tree (`--sysroot`), or the live host
//! mounted into a container (`--host-root`, docs/fleet.md). The questions callers ask of it
//! ([`RootedFs::judges_live_devices`], [`RootedFs::loads_libraries`], ...) are answered here,
//! one per kind of decision, so that each caller says which one it means.

use std::collections::HashMap;
use std::ffi::OsString;
use std::fs::{Metadata, ReadDir};
use std::io;
use std::path::{Component, Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};

/// Files larger than this are never read whole (sysfs and version files are tiny).
pub(crate) const MAX_TEXT_FILE: u64 = 4 << 20;
const MAX_SYMLINK_HOPS: usize = 40;

/// What the root of a run is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum RootMode {
    /// `/`: this machine, as this process sees it.
    Real,
    /// `--sysroot DIR`: a fixture tree, a chroot, an image's root filesystem. Only its files
    /// are judged; what files cannot hold (device nodes, processes, a loaded runtime) comes
    /// from its fixture manifest or is not judged.
    Fixture,
    /// `--host-root DIR`: the live host mounted (read-only) at DIR inside a container, the
    /// doctor running in that container (node-problem-detector's pod). Files (sysfs, /etc,
    /// /opt/rocm, the loader's configuration, /proc) are read under DIR; device nodes are
    /// opened as this process sees them (the container's own /dev, where a GPU workload's
    /// devices are too); vendor libraries found under DIR are loaded in a probe child here.
    HostRoot,
}

#[derive(Debug, Clone)]
pub struct RootedFs {
    root: PathBuf,
    mode: RootMode,
    /// Listings of the installed software's directories, read once per run (see
    /// [`RootedFs::list_names`]); shared by clones.
    listings: Arc<Listings>,
}

/// Directory listings by machine path; each is read once, the threads that ask for it
/// meanwhile wait for that one read.
type Listings = Mutex<HashMap<PathBuf, Arc<OnceLock<Arc<[OsString]>>>>>;

/// Directories whose listing cannot change during a run, so [`RootedFs::list_names`] reads
/// each once: the installed software and its configuration. A default run looks up the key
/// libraries for many checks and known issues, and listed `/usr/lib/x86_64-linux-gnu` (1,135
/// entries on Debian 12) 70 times before (`strace -f -e trace=openat`, docs/benchmarks.md).
/// Kernel, process, device and scratch trees (`/proc`, `/sys`, `/dev`, `/tmp`, `/run`,
/// `/var`, home directories) are always read afresh: `ps` and the GPU checks list them to see
/// what is there now, and the doctor's own temp dir lives in one of them.
const STABLE_DIRS: &[&str] = &[
    "/usr",
    "/lib",
    "/lib32",
    "/lib64",
    "/opt",
    "/etc",
    "/nix/store",
];

fn is_stable_dir(machine: &Path) -> bool {
    STABLE_DIRS.iter().any(|d| machine.starts_with(d))
}

impl RootedFs {
    /// `/` is this machine; any other root is a fixture (`--sysroot`).
    pub(crate) fn new(root: PathBuf) -> Self {
        let mode = if root == Path::new("/") {
            RootMode::Real
        } else {
            RootMode::Fixture
        };
        RootedFs::with_mode(root, mode)
    }

    fn with_mode(root: PathBuf, mode: RootMode) -> Self {
        RootedFs {
            root,
            mode,
            listings: Arc::default(),
        }
    }

    /// The live host mounted at `root` (`--host-root`); `/` is simply this machine.
    pub(crate) fn host_root(root: PathBuf) -> Self {
        let mode = if root == Path::new("/") {
            RootMode::Real
        } else {
            RootMode::HostRoot
        };
        RootedFs::with_mode(root, mode)
    }

    pub(crate) fn root(&self) -> &Path {
        &self.root
    }

    pub(crate) fn mode(&self) -> RootMode {
        self.mode
    }

    /// Machine paths are host paths (the root is `/`): nothing to map, and absolute symlinks
    /// may be followed by the OS (they cannot leave the root).
    pub(crate) fn paths_are_native(&self) -> bool {
        self.mode == RootMode::Real
    }

    /// Device nodes (`/dev/kfd`, `/dev/dri/renderD*`) are stat()ed and really opened, rather
    /// than described by a fixture manifest: this machine, or the live host seen from a
    /// container (where they are opened at [`RootedFs::device_path`]).
    pub(crate) fn judges_live_devices(&self) -> bool {
        matches!(self.mode, RootMode::Real | RootMode::HostRoot)
    }

    /// The path this process opens for a device node (a machine path). Under `--host-root`
    /// it is the container's own node, not `DIR/dev/...`: the container runtime's device
    /// cgroup decides whether a container may open a device, whatever inode a host mount
    /// shows it, and a GPU workload opens its own `/dev/kfd` too (AMD's device plugin gives
    /// containers `/dev/kfd` and `/dev/dri/renderD<N>` at the host's paths). The HSA probe
    /// child opens these same paths. Under a fixture it is the tree's path (for messages; a
    /// fixture's nodes are never opened).
    pub(crate) fn device_path(&self, machine: &Path) -> PathBuf {
        match self.mode {
            RootMode::Real | RootMode::HostRoot => machine.to_path_buf(),
            RootMode::Fixture => self.host_path(machine),
        }
    }

    /// Vendor libraries found under the root are loaded in a probe child (`hsa_init`, the HIP
    /// runtime, comgr): on this machine, and under `--host-root` (the host's library, run in
    /// this container against its devices, with the host's loader directories). A fixture's
    /// libraries would run against this machine's kernel and describe neither.
    pub(crate) fn loads_libraries(&self) -> bool {
        matches!(self.mode, RootMode::Real | RootMode::HostRoot)
    }

    /// The programs found under the root are this process's own machine's and surely run
    /// here, and the environment snapshot is the diagnosed user's. False under `--sysroot`
    /// and `--host-root`: another root's programs may not run here (another loader and libc:
    /// a host's clang in a pod), and this process's environment is not that machine's.
    pub(crate) fn is_own_machine(&self) -> bool {
        self.mode == RootMode::Real
    }

    /// The root's fixture manifest applies (`--sysroot` only: a live host has none, and a
    /// file of that name on a host must not decide anything).
    pub(crate) fn is_fixture(&self) -> bool {
        self.mode == RootMode::Fixture
    }

    /// The host path to open for a machine path.
    pub(crate) fn host_path(&self, machine: &Path) -> PathBuf {
        if self.paths_are_native() {
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
    pub(crate) fn machine_path(&self, host: &Path) -> PathBuf {
        if self.paths_are_native() {
            return host.to_path_buf();
        }
        match host.strip_prefix(&self.root) {
            Ok(rel) => Path::new("/").join(rel),
            Err(_) => host.to_path_buf(),
        }
    }

    pub(crate) fn metadata(&self, p: &Path) -> io::Result<Metadata> {
        std::fs::metadata(self.resolve_host(p)?)
    }

    pub(crate) fn symlink_metadata(&self, p: &Path) -> io::Result<Metadata> {
        std::fs::symlink_metadata(self.host_path(p))
    }

    pub(crate) fn exists(&self, p: &Path) -> bool {
        self.metadata(p).is_ok()
    }

    pub(crate) fn is_dir(&self, p: &Path) -> bool {
        self.metadata(p).map(|m| m.is_dir()).unwrap_or(false)
    }

    pub(crate) fn is_file(&self, p: &Path) -> bool {
        self.metadata(p).map(|m| m.is_file()).unwrap_or(false)
    }

    pub(crate) fn read_link(&self, p: &Path) -> io::Result<PathBuf> {
        std::fs::read_link(self.host_path(p))
    }

    pub(crate) fn read_dir(&self, p: &Path) -> io::Result<ReadDir> {
        std::fs::read_dir(self.resolve_host(p)?)
    }

    /// Names of the entries of a directory, sorted (empty on error). Directories of the
    /// installed software ([`STABLE_DIRS`]) are read once per run and then answered from memory.
    pub(crate) fn list_names(&self, p: &Path) -> Vec<OsString> {
        self.names(p).to_vec()
    }

    /// [`Self::list_names`] without copying the names: a stable directory's listing is the
    /// run's one read, shared (a library look-up scans `/usr/lib/x86_64-linux-gnu` many times).
    pub(crate) fn names(&self, p: &Path) -> Arc<[OsString]> {
        if !is_stable_dir(p) {
            return self.read_names(p).into();
        }
        let slot = {
            let mut map = self.listings.lock().unwrap_or_else(|e| e.into_inner());
            Arc::clone(map.entry(p.to_path_buf()).or_default())
        };
        Arc::clone(slot.get_or_init(|| self.read_names(p).into()))
    }

    fn read_names(&self, p: &Path) -> Vec<OsString> {
        let mut v: Vec<OsString> = match self.read_dir(p) {
            Ok(rd) => rd.filter_map(|e| e.ok()).map(|e| e.file_name()).collect(),
            Err(_) => Vec::new(),
        };
        v.sort();
        v
    }

    /// Reads a small text file (bounded by [`MAX_TEXT_FILE`]); invalid UTF-8 is replaced.
    pub(crate) fn read_text(&self, p: &Path) -> io::Result<String> {
        let bytes = self.read_bytes_limited(p, MAX_TEXT_FILE)?;
        Ok(String::from_utf8_lossy(&bytes).into_owned())
    }

    /// Reads a regular file of at most `limit` bytes; a FIFO, device, socket or directory is
    /// refused at once (`InvalidInput`, never a hang: [`super::open`]).
    pub(crate) fn read_bytes_limited(&self, p: &Path, limit: u64) -> io::Result<Vec<u8>> {
        super::open::read_regular(&self.resolve_host(p)?, limit)
    }

    /// The first `n` bytes of a regular file (all of it when shorter); what is not a regular
    /// file is refused at once, as by [`RootedFs::read_bytes_limited`].
    pub(crate) fn read_head(&self, p: &Path, n: u64) -> io::Result<Vec<u8>> {
        super::open::read_regular_head(&self.resolve_host(p)?, n)
    }

    /// Opens a regular file for reading (for memory-mapping or streaming large inputs); what
    /// is not a regular file is refused at once, as by [`RootedFs::read_bytes_limited`].
    pub(crate) fn open(&self, p: &Path) -> io::Result<std::fs::File> {
        Ok(super::open::open_regular(&self.resolve_host(p)?, super::open::FinalLink::Follow)?.file)
    }

    /// Opens a file for reading with `O_NONBLOCK`: a character device such as `/dev/kmsg` then
    /// answers `EAGAIN` instead of blocking when it has nothing more to give.
    pub(crate) fn open_nonblocking(&self, p: &Path) -> io::Result<std::fs::File> {
        use std::os::unix::fs::OpenOptionsExt;
        std::fs::OpenOptions::new()
            .read(true)
            .custom_flags(nix::libc::O_NONBLOCK)
            .open(self.resolve_host(p)?)
    }

    /// Canonical machine path: every symlink resolved inside the sysroot, `..` applied,
    /// symlink loops reported as `ELOOP`.
    pub(crate) fn canonicalize(&self, p: &Path) -> io::Result<PathBuf> {
        if self.paths_are_native() {
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
        if self.paths_are_native() {
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
pub(crate) fn errno_name(e: &io::Error) -> String {
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
pub(crate) fn io_error_text(e: &io::Error) -> String {
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
    fn installed_software_dirs_are_listed_once_scratch_dirs_every_time() {
        let t = tempfile::tempdir().unwrap();
        let root = t.path();
        for d in ["usr/lib", "tmp/x"] {
            std::fs::create_dir_all(root.join(d)).unwrap();
            std::fs::write(root.join(d).join("a"), "").unwrap();
        }
        let fs = RootedFs::new(root.to_path_buf());
        let clone = fs.clone();
        assert_eq!(
            fs.list_names(Path::new("/usr/lib")),
            vec![OsString::from("a")]
        );
        assert_eq!(
            fs.list_names(Path::new("/tmp/x")),
            vec![OsString::from("a")]
        );
        for d in ["usr/lib", "tmp/x"] {
            std::fs::write(root.join(d).join("b"), "").unwrap();
        }
        // The run's listing of /usr/lib stands, for clones too; /tmp is read again.
        assert_eq!(
            clone.list_names(Path::new("/usr/lib")),
            vec![OsString::from("a")]
        );
        assert_eq!(
            fs.list_names(Path::new("/tmp/x")),
            vec![OsString::from("a"), OsString::from("b")]
        );
        // A new RootedFs (a new run) sees the change.
        assert_eq!(
            RootedFs::new(root.to_path_buf())
                .list_names(Path::new("/usr/lib"))
                .len(),
            2
        );
    }

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
    fn root_modes_answer_each_question() {
        let real = RootedFs::new(PathBuf::from("/"));
        let fixture = RootedFs::new(PathBuf::from("/some/root"));
        let host = RootedFs::host_root(PathBuf::from("/host"));
        assert_eq!(
            RootedFs::host_root(PathBuf::from("/")).mode(),
            RootMode::Real
        );
        assert_eq!(fixture.mode(), RootMode::Fixture);
        // (paths native, live devices, loads libraries, own machine, fixture)
        let answers = |f: &RootedFs| {
            (
                f.paths_are_native(),
                f.judges_live_devices(),
                f.loads_libraries(),
                f.is_own_machine(),
                f.is_fixture(),
            )
        };
        assert_eq!(answers(&real), (true, true, true, true, false));
        assert_eq!(answers(&fixture), (false, false, false, false, true));
        assert_eq!(answers(&host), (false, true, true, false, false));
        // Files under DIR; device nodes as this process sees them.
        let kfd = Path::new("/dev/kfd");
        assert_eq!(
            host.host_path(Path::new("/etc/ld.so.conf")),
            Path::new("/host/etc/ld.so.conf")
        );
        assert_eq!(host.device_path(kfd), kfd);
        assert_eq!(fixture.device_path(kfd), Path::new("/some/root/dev/kfd"));
        assert_eq!(real.device_path(kfd), kfd);
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

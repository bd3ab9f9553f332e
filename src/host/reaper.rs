//! Children die with the doctor, however the doctor dies, and its temp dir goes with them.
//!
//! Every child runs in a process group of its own (so a timeout kills a shell wrapper and the
//! compiler it started). That also means a signal sent to the doctor's group (`timeout`,
//! Slurm, node-problem-detector's rule timeout, NHC's `-t`) never reaches them, and a doctor
//! killed with SIGKILL cannot clean up: its probes used to live on, parented to init, and its
//! temp dir stayed in `$TMPDIR`.
//!
//! The reaper is a small process forked from the doctor when the doctor first needs it (its
//! temp dir or its first child). It sits in a session of its own (so the signals aimed at the
//! doctor's group miss it), ignores the terminating signals, and reads a pipe whose only
//! writer is the doctor. The doctor writes the process group of each child when it starts and
//! again when it has been reaped, and its temp dir when made and when removed. When the pipe
//! reaches end-of-file (the doctor exited, normally or not: the kernel closes the descriptor
//! in every case, SIGKILL included) the reaper sends SIGKILL to every group still listed,
//! removes every temp dir still listed, and exits. A wrapper's own children stay in the
//! group, so the whole tree goes.
//!
//! Between fork and exit the reaper calls only async-signal-safe functions (`setsid`,
//! `signal`, `open`, `dup2`, `close`, `read`, `kill`, `unlinkat`, `rmdir`, `_exit`;
//! POSIX.1-2017 section 2.4.3; `getdents64` and `close_range` are plain system calls) and
//! allocates nothing: the doctor is multi-threaded, and a fork copies only the calling thread,
//! so a lock held by another thread (the allocator's) would never be released in the copy.
//!
//! A process group is not enough: a descendant that calls `setsid()` (a daemonising tool, a
//! `setsid sleep &` in a wrapper) leaves the group, and its parent's exit reparents it to init
//! (or the nearest subreaper), out of every group the reaper holds. So every child also gets
//! a marker in its environment, `ROCM_DOCTOR_REAP_<pid>_<nanoseconds>=1`, unique to the run,
//! which descendants inherit across `fork`, `setsid` and `exec` (environ(7)). When the pipe
//! ends, after killing the groups, the reaper reads `/proc/<pid>/environ` of every process
//! (proc(5): the environment the process was started with; readable for the same user, and
//! for root) and kills those carrying the marker, in passes until one finds none (a process
//! may fork while a pass runs). A process is pinned with `pidfd_open(2)` before its
//! environment is read and signalled through that descriptor (`pidfd_send_signal(2)`), so a
//! pid reused meanwhile is never hit. At the end of a diagnosis the doctor sweeps the same
//! way itself ([`sweep_leftovers`]) and says what it killed and what it could not (a set-user-ID
//! program it cannot signal).
//!
//! Why not a subreaper or a cgroup: `PR_SET_CHILD_SUBREAPER` (prctl(2)) makes orphans the
//! doctor's children only while it lives; a doctor killed with SIGKILL hands them to init
//! like before, so it does not cover the case that matters. A cgroup v2 leaf with
//! `cgroup.kill` (Linux 5.14) would also catch a descendant that clears its environment, but
//! needs root, a writable unified hierarchy of the doctor's own cgroup, and is absent on v1 or
//! hybrid hosts and in most containers; the marker works for every user everywhere `/proc`
//! is mounted.
//!
//! Left open by design: a child killed in the microseconds between its spawn and its
//! registration; a reaper that is itself sent SIGKILL (`pkill -9 rocm-doctor` matches it too);
//! a descendant that both leaves the group and drops the marker (`env -i`, `setsid env -i ...`),
//! or that runs as another user (set-user-ID) when the doctor is not root.

use std::fs::File;
use std::io::Write;
use std::os::fd::{FromRawFd, RawFd};
use std::os::unix::ffi::OsStrExt;
use std::path::Path;
use std::sync::{Mutex, OnceLock};

/// A message: an operation and a number (a process group id, or the length of the path that
/// follows), native byte order (both ends are this binary). Whole messages stay below
/// PIPE_BUF (4096), so concurrent writes never interleave (pipe(7)).
const HEADER: usize = 8;
const OP_ADD: i32 = 1;
const OP_REMOVE: i32 = 2;
const OP_ADD_DIR: i32 = 3;
const OP_REMOVE_DIR: i32 = 4;
/// Longest temp dir path handed over (the message must fit in PIPE_BUF with its header).
const MAX_PATH: usize = 4096 - HEADER - 1;
/// Groups tracked at once; the doctor runs a handful of children at a time.
const SLOTS: usize = 1024;
/// Temp dirs tracked at once (one per Host; tests make several).
const DIR_SLOTS: usize = 8;
/// Deepest directory nesting removed under a temp dir.
const MAX_DEPTH: usize = 24;

static REAPER: OnceLock<Option<Mutex<File>>> = OnceLock::new();
/// The run's marker variable (`NAME`), set before the reaper is forked.
static MARK: OnceLock<String> = OnceLock::new();
/// Longest marker name: `ROCM_DOCTOR_REAP_` + a pid + `_` + 32 hex digits.
const MAX_MARK: usize = 64;
/// Sweep passes at most (each one kills what forked during the one before).
const SWEEP_PASSES: usize = 8;

/// The variable every child gets, `(name, "1")`: what the reaper and [`sweep_leftovers`] look for in
/// `/proc/<pid>/environ`. Starts the reaper; `None` when it could not start (no marker is
/// worth giving then).
pub(crate) fn marker() -> Option<(&'static str, &'static str)> {
    REAPER.get_or_init(start).as_ref()?;
    MARK.get().map(|m| (m.as_str(), "1"))
}

/// A process the sweep found carrying the run's marker.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub(crate) struct Leftover {
    pub pid: i32,
    /// Its `comm` (proc(5)), for the reader.
    pub name: String,
    /// Why it could not be killed (`EPERM`, ...); `None` when it was.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// Kills every process still carrying this run's marker (descendants of probes that left
/// their process group and outlived them), and lists them. Called when the doctor's own work
/// is done; the children it runs have all ended by then, so whatever carries the marker is a
/// leftover. Empty when no child was ever started.
pub(crate) fn sweep_leftovers() -> Vec<Leftover> {
    let Some(mark) = MARK.get() else {
        return Vec::new();
    };
    if REAPER.get().is_none_or(|r| r.is_none()) {
        return Vec::new();
    }
    let mut entry = [0u8; MAX_MARK + 1];
    let Some(m) = mark_entry(mark.as_bytes(), &mut entry) else {
        return Vec::new();
    };
    let mut out: Vec<Leftover> = Vec::new();
    for _ in 0..SWEEP_PASSES {
        let mut found = 0;
        // Safety: plain system calls on descriptors this function opens and closes.
        unsafe {
            for_each_marked(m, &mut |pid, pidfd| {
                if out.iter().any(|l| l.pid == pid && l.error.is_some()) {
                    return;
                }
                found += 1;
                // The name is the process's own choice: no control characters reach the
                // terminal.
                let name: String = std::fs::read_to_string(format!("/proc/{pid}/comm"))
                    .unwrap_or_default()
                    .trim_end_matches('\n')
                    .chars()
                    .map(|c| if c.is_control() { '?' } else { c })
                    .collect();
                let error = if kill_pinned(pid, pidfd) {
                    None
                } else {
                    Some(crate::host::fs::errno_name(&std::io::Error::last_os_error()))
                };
                if let Some(l) = out.iter_mut().find(|l| l.pid == pid) {
                    l.error = error;
                } else {
                    out.push(Leftover { pid, name, error });
                }
            });
        }
        if found == 0 {
            break;
        }
        // Let the killed ones die before the next pass looks again.
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    out
}

/// `NAME=` of the marker in `buf`; `None` when it does not fit.
fn mark_entry<'a>(name: &[u8], buf: &'a mut [u8; MAX_MARK + 1]) -> Option<&'a [u8]> {
    if name.is_empty() || name.len() > MAX_MARK {
        return None;
    }
    buf[..name.len()].copy_from_slice(name);
    buf[name.len()] = b'=';
    Some(&buf[..=name.len()])
}

/// The run's marker name: unique per run (the doctor's pid and the time in nanoseconds).
fn new_mark() -> String {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    format!("ROCM_DOCTOR_REAP_{}_{nanos:x}", std::process::id())
}

/// Tells the reaper that `pgid` is live (after spawning its leader).
pub(crate) fn track(pgid: i32) {
    send(OP_ADD, pgid, &[]);
}

/// Tells the reaper that `pgid` needs no killing any more (its leader was reaped).
pub(crate) fn untrack(pgid: i32) {
    send(OP_REMOVE, pgid, &[]);
}

/// The doctor's temp dir: removed by the reaper if the doctor dies before dropping it.
#[derive(Debug)]
pub(crate) struct OwnedTempDir(tempfile::TempDir);

impl OwnedTempDir {
    pub(crate) fn new(dir: tempfile::TempDir) -> Self {
        send_dir(OP_ADD_DIR, dir.path());
        OwnedTempDir(dir)
    }
    pub(crate) fn path(&self) -> &Path {
        self.0.path()
    }
}

impl Drop for OwnedTempDir {
    fn drop(&mut self) {
        // The TempDir field is dropped (and the directory removed) right after this.
        send_dir(OP_REMOVE_DIR, self.0.path());
    }
}

fn send_dir(op: i32, path: &Path) {
    let bytes = path.as_os_str().as_bytes();
    if bytes.len() <= MAX_PATH && !bytes.contains(&0) {
        send(op, bytes.len() as i32, bytes);
    }
}

fn send(op: i32, n: i32, tail: &[u8]) {
    let Some(pipe) = REAPER.get_or_init(start) else {
        return;
    };
    let mut msg = Vec::with_capacity(HEADER + tail.len());
    msg.extend_from_slice(&op.to_ne_bytes());
    msg.extend_from_slice(&n.to_ne_bytes());
    msg.extend_from_slice(tail);
    if let Ok(mut w) = pipe.lock() {
        // One write(2) of at most PIPE_BUF bytes. A reaper that is gone (EPIPE; SIGPIPE is
        // ignored by Rust programs) only loses the protection it gave; the run goes on.
        let _ = w.write_all(&msg);
    }
}

/// Forks the reaper; `None` when that fails (the run goes on without it).
fn start() -> Option<Mutex<File>> {
    let (read_end, write_end) = pipe_cloexec()?;
    // Made before the fork: the reaper reads its copy, allocating nothing.
    let mut entry = [0u8; MAX_MARK + 1];
    let mark = MARK.get_or_init(new_mark);
    let mark_len = mark_entry(mark.as_bytes(), &mut entry).map_or(0, <[u8]>::len);
    // Safety: the child runs `reaper_main` only, which is async-signal-safe and never returns.
    match unsafe { libc::fork() } {
        -1 => {
            unsafe {
                libc::close(read_end);
                libc::close(write_end);
            }
            None
        }
        0 => reaper_main(read_end, &entry[..mark_len]),
        _ => {
            // Nobody waits for the reaper while the doctor lives (it outlives every child);
            // at the doctor's exit it is reparented and reaped by init.
            unsafe { libc::close(read_end) };
            Some(Mutex::new(unsafe { File::from_raw_fd(write_end) }))
        }
    }
}

fn pipe_cloexec() -> Option<(RawFd, RawFd)> {
    let mut fds = [0 as libc::c_int; 2];
    // O_CLOEXEC: no child the doctor starts may hold the write end, or the reaper would not
    // see end-of-file while an orphan lives.
    if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) } != 0 {
        return None;
    }
    Some((fds[0], fds[1]))
}

/// What the reaper holds: live process groups and temp dirs (NUL-terminated paths).
struct Table {
    groups: [i32; SLOTS],
    dirs: [[u8; MAX_PATH + 1]; DIR_SLOTS],
    dir_len: [usize; DIR_SLOTS],
}

impl Table {
    /// Applies one message; `path` is empty for group messages.
    fn apply(&mut self, op: i32, n: i32, path: &[u8]) {
        match op {
            // Never "every process" (-1) nor init's group.
            OP_ADD if n > 1 => {
                if let Some(slot) = self.groups.iter_mut().find(|g| **g == 0) {
                    *slot = n;
                }
            }
            OP_REMOVE if n > 1 => {
                if let Some(slot) = self.groups.iter_mut().find(|g| **g == n) {
                    *slot = 0;
                }
            }
            OP_ADD_DIR if !path.is_empty() && path.len() <= MAX_PATH => {
                if let Some(i) = self.dir_len.iter().position(|&l| l == 0) {
                    self.dirs[i][..path.len()].copy_from_slice(path);
                    self.dirs[i][path.len()] = 0;
                    self.dir_len[i] = path.len();
                }
            }
            OP_REMOVE_DIR => {
                if let Some(i) =
                    (0..DIR_SLOTS).find(|&i| self.dir_len[i] == path.len() && self.dir(i) == path)
                {
                    self.dir_len[i] = 0;
                }
            }
            _ => {}
        }
    }
    fn dir(&self, i: usize) -> &[u8] {
        &self.dirs[i][..self.dir_len[i]]
    }
}

/// The reaper's whole life, in the forked child. `mark`: `NAME=` of the run's marker (empty:
/// none).
fn reaper_main(read_end: RawFd, mark: &[u8]) -> ! {
    unsafe {
        libc::setsid();
        for sig in [
            libc::SIGTERM,
            libc::SIGINT,
            libc::SIGHUP,
            libc::SIGQUIT,
            libc::SIGPIPE,
            libc::SIGUSR1,
            libc::SIGUSR2,
        ] {
            libc::signal(sig, libc::SIG_IGN);
        }
        // Hold nothing but the pipe: inherited descriptors (the doctor's own stdout, the
        // pipes of children being read right now, the write end of our own pipe) would keep
        // their readers waiting for an end-of-file until the reaper exits.
        let devnull = libc::open(c"/dev/null".as_ptr(), libc::O_RDWR);
        for fd in 0..3 {
            if devnull >= 0 {
                libc::dup2(devnull, fd);
            } else {
                libc::close(fd);
            }
        }
        let keep: RawFd = 3;
        if read_end != keep && libc::dup2(read_end, keep) < 0 {
            libc::_exit(1);
        }
        close_from(keep + 1);
    }
    // The table lives in the copy of the forking thread's stack (about 44 KiB).
    let mut table = Table {
        groups: [0; SLOTS],
        dirs: [[0; MAX_PATH + 1]; DIR_SLOTS],
        dir_len: [0; DIR_SLOTS],
    };
    let mut buf = [0u8; 2 * 4096];
    let mut have = 0usize;
    loop {
        let n = unsafe { libc::read(3, buf[have..].as_mut_ptr().cast(), buf.len() - have) };
        if n < 0 && unsafe { *libc::__errno_location() } == libc::EINTR {
            continue;
        }
        if n <= 0 {
            break;
        }
        have += n as usize;
        let used = consume(&mut table, &buf[..have]);
        buf.copy_within(used..have, 0);
        have -= used;
    }
    for &g in table.groups.iter().filter(|&&g| g > 1) {
        unsafe { libc::kill(-g, libc::SIGKILL) };
    }
    // Then what left the groups but still carries the run's marker.
    if !mark.is_empty() {
        for _ in 0..SWEEP_PASSES {
            let mut found = 0;
            unsafe {
                for_each_marked(mark, &mut |pid, pidfd| {
                    found += 1;
                    kill_pinned(pid, pidfd);
                })
            };
            if found == 0 {
                break;
            }
            let pause = libc::timespec {
                tv_sec: 0,
                tv_nsec: 5_000_000,
            };
            unsafe { libc::nanosleep(&pause, std::ptr::null_mut()) };
        }
    }
    // A killed child may finish the system call it was in (a write into the temp dir) before
    // it dies: remove, wait a moment, remove what appeared meanwhile.
    for pass in 0..2 {
        if pass == 1 {
            let pause = libc::timespec {
                tv_sec: 0,
                tv_nsec: 50_000_000,
            };
            unsafe { libc::nanosleep(&pause, std::ptr::null_mut()) };
        }
        for i in 0..DIR_SLOTS {
            if table.dir_len[i] > 0 {
                unsafe { remove_tree(table.dirs[i].as_ptr().cast()) };
            }
        }
    }
    unsafe { libc::_exit(0) }
}

/// Calls `f(pid, pidfd)` for every live process (other than this one) whose environment holds
/// an entry starting with `mark` (`NAME=`). `pidfd` pins the process (-1 when
/// `pidfd_open(2)`, Linux 5.3, is missing); it is closed after `f` returns. Async-signal-safe:
/// fixed buffers, plain system calls, no allocation.
unsafe fn for_each_marked(mark: &[u8], f: &mut dyn FnMut(i32, RawFd)) {
    let proc_fd = libc::open(
        c"/proc".as_ptr(),
        libc::O_RDONLY | libc::O_DIRECTORY | libc::O_CLOEXEC,
    );
    if proc_fd < 0 {
        return;
    }
    let me = libc::getpid();
    let mut dents = [0u8; 4096];
    loop {
        let n = libc::syscall(
            libc::SYS_getdents64,
            proc_fd,
            dents.as_mut_ptr(),
            dents.len() as libc::c_uint,
        );
        if n <= 0 {
            break;
        }
        let mut at = 0usize;
        while at + 19 < n as usize {
            // struct linux_dirent64: d_ino u64, d_off i64, d_reclen u16, d_type u8, d_name.
            let reclen = u16::from_ne_bytes([dents[at + 16], dents[at + 17]]) as usize;
            if reclen == 0 {
                break;
            }
            let name = &dents[at + 19..(at + reclen).min(n as usize)];
            at += reclen;
            let Some(pid) = parse_pid(name) else { continue };
            if pid == me || pid <= 1 {
                continue;
            }
            if !environ_has(proc_fd, name, mark) {
                continue;
            }
            // Pinned, then read again: the process signalled is the one that carries the
            // marker, never another that reused its pid in between.
            let pidfd = libc::syscall(libc::SYS_pidfd_open, pid, 0) as RawFd;
            if pidfd < 0 || environ_has(proc_fd, name, mark) {
                f(pid, pidfd);
            }
            if pidfd >= 0 {
                libc::close(pidfd);
            }
        }
    }
    libc::close(proc_fd);
}

/// The pid a `/proc` entry name (NUL-terminated digits) stands for.
fn parse_pid(name: &[u8]) -> Option<i32> {
    let mut pid: i32 = 0;
    let mut digits = 0;
    for &b in name {
        if b == 0 {
            break;
        }
        if !b.is_ascii_digit() {
            return None;
        }
        pid = pid.checked_mul(10)?.checked_add(i32::from(b - b'0'))?;
        digits += 1;
    }
    (digits > 0).then_some(pid)
}

/// Whether `/proc/<name>/environ` has an entry starting with `mark`, read in fixed chunks.
unsafe fn environ_has(proc_fd: RawFd, name: &[u8], mark: &[u8]) -> bool {
    // "<digits>/environ\0"
    let mut path = [0u8; 32];
    let digits = name.iter().position(|&b| b == 0).unwrap_or(name.len());
    const TAIL: &[u8] = b"/environ\0";
    if digits + TAIL.len() > path.len() {
        return false;
    }
    path[..digits].copy_from_slice(&name[..digits]);
    path[digits..digits + TAIL.len()].copy_from_slice(TAIL);
    let fd = libc::openat(
        proc_fd,
        path.as_ptr().cast(),
        libc::O_RDONLY | libc::O_CLOEXEC,
    );
    if fd < 0 {
        return false;
    }
    let mut m = EntryMatch::default();
    let mut buf = [0u8; 4096];
    let mut found = false;
    loop {
        let n = libc::read(fd, buf.as_mut_ptr().cast(), buf.len());
        if n <= 0 {
            break;
        }
        if m.feed(&buf[..n as usize], mark) {
            found = true;
            break;
        }
        // environ_read (fs/proc/base.c) fills the buffer unless it reaches the end of the
        // environment: a short read is the end, and spares one read per process.
        if (n as usize) < buf.len() {
            break;
        }
    }
    libc::close(fd);
    found
}

/// A streaming match of `mark` at the start of a NUL-separated entry.
#[derive(Default)]
struct EntryMatch {
    /// Bytes of `mark` matched so far in the current entry.
    pos: usize,
    /// The current entry no longer can match.
    dead: bool,
}

impl EntryMatch {
    /// Feeds the next bytes of the environment; true once an entry starts with `mark` (which
    /// holds no NUL). Compares whole runs and skips to the next NUL with `memchr`: most
    /// entries differ at their first byte.
    fn feed(&mut self, bytes: &[u8], mark: &[u8]) -> bool {
        let mut i = 0;
        while i < bytes.len() {
            if !self.dead {
                let want = &mark[self.pos..];
                let n = want.len().min(bytes.len() - i);
                if bytes[i..i + n] == want[..n] {
                    self.pos += n;
                    if self.pos == mark.len() {
                        return true;
                    }
                    return false; // the chunk ended inside a match
                }
                self.dead = true;
            }
            match memchr::memchr(0, &bytes[i..]) {
                Some(k) => {
                    i += k + 1;
                    self.pos = 0;
                    self.dead = false;
                }
                None => return false,
            }
        }
        false
    }
}

/// SIGKILL through the pidfd when there is one (never a process that reused the pid), else
/// by pid. True when sent.
unsafe fn kill_pinned(pid: i32, pidfd: RawFd) -> bool {
    if pidfd >= 0 {
        libc::syscall(
            libc::SYS_pidfd_send_signal,
            pidfd,
            libc::SIGKILL,
            std::ptr::null::<libc::siginfo_t>(),
            0,
        ) == 0
    } else {
        libc::kill(pid, libc::SIGKILL) == 0
    }
}

/// Applies every whole message at the start of `buf`; returns the bytes used.
fn consume(table: &mut Table, buf: &[u8]) -> usize {
    let mut at = 0;
    while buf.len() - at >= HEADER {
        let h = &buf[at..at + HEADER];
        let op = i32::from_ne_bytes([h[0], h[1], h[2], h[3]]);
        let n = i32::from_ne_bytes([h[4], h[5], h[6], h[7]]);
        let tail = if op == OP_ADD_DIR || op == OP_REMOVE_DIR {
            (n.max(0) as usize).min(MAX_PATH)
        } else {
            0
        };
        if buf.len() - at < HEADER + tail {
            break;
        }
        table.apply(op, n, &buf[at + HEADER..at + HEADER + tail]);
        at += HEADER + tail;
    }
    at
}

/// Removes the directory at `path` (NUL-terminated) and everything under it, never following
/// a symbolic link.
unsafe fn remove_tree(path: *const libc::c_char) {
    let fd = libc::open(
        path,
        libc::O_RDONLY | libc::O_DIRECTORY | libc::O_NOFOLLOW | libc::O_CLOEXEC,
    );
    if fd < 0 {
        return;
    }
    remove_contents(fd, 0);
    libc::close(fd);
    libc::rmdir(path);
}

/// Empties the open directory `dir`: files and links are unlinked, sub-directories emptied
/// and removed, down to MAX_DEPTH. Removing entries while reading shifts later ones, so the
/// directory is read again from the start until a pass removes nothing.
unsafe fn remove_contents(dir: RawFd, depth: usize) {
    let mut buf = [0u8; 2048];
    for _ in 0..64 {
        libc::lseek(dir, 0, libc::SEEK_SET);
        let mut removed = 0;
        loop {
            let n = libc::syscall(
                libc::SYS_getdents64,
                dir,
                buf.as_mut_ptr(),
                buf.len() as libc::c_uint,
            );
            if n <= 0 {
                break;
            }
            let mut at = 0usize;
            while at + 19 < n as usize {
                // struct linux_dirent64: d_ino u64, d_off i64, d_reclen u16, d_type u8, d_name.
                let reclen = u16::from_ne_bytes([buf[at + 16], buf[at + 17]]) as usize;
                if reclen == 0 {
                    break;
                }
                let kind = buf[at + 18];
                let name = buf[at + 19..].as_ptr().cast::<libc::c_char>();
                let dot = buf[at + 19] == b'.'
                    && (buf[at + 20] == 0 || (buf[at + 20] == b'.' && buf[at + 21] == 0));
                if !dot && remove_entry(dir, name, kind, depth) {
                    removed += 1;
                }
                at += reclen;
            }
        }
        if removed == 0 {
            return;
        }
    }
}

/// Removes one entry of `dir`; true when it is gone.
unsafe fn remove_entry(dir: RawFd, name: *const libc::c_char, kind: u8, depth: usize) -> bool {
    if kind != libc::DT_DIR {
        if libc::unlinkat(dir, name, 0) == 0 {
            return true;
        }
        if kind != libc::DT_UNKNOWN || *libc::__errno_location() != libc::EISDIR {
            return false;
        }
    }
    if depth >= MAX_DEPTH {
        return false;
    }
    let sub = libc::openat(
        dir,
        name,
        libc::O_RDONLY | libc::O_DIRECTORY | libc::O_NOFOLLOW | libc::O_CLOEXEC,
    );
    if sub < 0 {
        return false;
    }
    remove_contents(sub, depth + 1);
    libc::close(sub);
    libc::unlinkat(dir, name, libc::AT_REMOVEDIR) == 0
}

/// Closes every descriptor from `first` up: close_range(2) (Linux 5.9), else one by one up
/// to the descriptor limit.
unsafe fn close_from(first: RawFd) {
    if libc::syscall(
        libc::SYS_close_range,
        first as libc::c_uint,
        libc::c_uint::MAX,
        0,
    ) == 0
    {
        return;
    }
    let mut lim = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    let max = if libc::getrlimit(libc::RLIMIT_NOFILE, &mut lim) == 0 {
        lim.rlim_cur.min(1 << 16) as RawFd
    } else {
        1024
    };
    for fd in first..max {
        libc::close(fd);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table() -> Box<Table> {
        Box::new(Table {
            groups: [0; SLOTS],
            dirs: [[0; MAX_PATH + 1]; DIR_SLOTS],
            dir_len: [0; DIR_SLOTS],
        })
    }

    fn msg(op: i32, n: i32, tail: &[u8]) -> Vec<u8> {
        let mut m = op.to_ne_bytes().to_vec();
        m.extend_from_slice(&n.to_ne_bytes());
        m.extend_from_slice(tail);
        m
    }

    #[test]
    fn groups_are_added_removed_and_dangerous_ones_refused() {
        let mut t = table();
        for (op, n) in [
            (OP_ADD, 100),
            (OP_ADD, 200),
            (OP_ADD, -1),
            (OP_ADD, 1),
            (OP_ADD, 0),
        ] {
            t.apply(op, n, &[]);
        }
        assert_eq!(&t.groups[..3], &[100, 200, 0]);
        t.apply(OP_REMOVE, 100, &[]);
        t.apply(OP_ADD, 300, &[]);
        t.apply(7, 200, &[]);
        assert_eq!(&t.groups[..3], &[300, 200, 0]);
    }

    #[test]
    fn messages_split_across_reads_are_applied_once_whole() {
        let mut t = table();
        let mut stream = msg(OP_ADD, 42, &[]);
        stream.extend(msg(OP_ADD_DIR, 8, b"/tmp/abc"));
        stream.extend(msg(OP_REMOVE, 42, &[]));
        // Feed the stream in pieces of every size, as reads may return it.
        for cut in 1..stream.len() {
            let mut t2 = table();
            let used = consume(&mut t2, &stream[..cut]);
            let mut rest = stream[used..cut].to_vec();
            rest.extend_from_slice(&stream[cut..]);
            let used2 = consume(&mut t2, &rest);
            assert_eq!(used2, rest.len(), "cut at {cut}");
            assert_eq!(t2.groups[0], 0);
            assert_eq!(t2.dir(0), b"/tmp/abc");
        }
        assert_eq!(consume(&mut t, &stream), stream.len());
        t.apply(OP_REMOVE_DIR, 8, b"/tmp/abc");
        assert_eq!(t.dir_len[0], 0);
    }

    #[test]
    fn the_marker_matches_whole_entry_starts_across_chunks() {
        let mark = b"ROCM_DOCTOR_REAP_1_ab=";
        let env =
            b"A=1\0XROCM_DOCTOR_REAP_1_ab=1\0ROCM_DOCTOR_REAP_1_a=1\0ROCM_DOCTOR_REAP_1_ab=1\0";
        // Only the fourth entry matches (the second has a prefix, the third is shorter).
        for cut in 0..env.len() {
            let mut m = EntryMatch::default();
            let hit = m.feed(&env[..cut], mark) || m.feed(&env[cut..], mark);
            assert!(hit, "cut at {cut}");
        }
        let mut m = EntryMatch::default();
        assert!(!m.feed(&env[..env.len() - 25], mark));
        assert_eq!(parse_pid(b"123\0"), Some(123));
        assert_eq!(parse_pid(b"self\0"), None);
        assert_eq!(parse_pid(b"99999999999\0"), None);
    }

    #[test]
    fn a_tree_is_removed_without_following_links() {
        let outside = tempfile::tempdir().unwrap();
        std::fs::write(outside.path().join("keep"), b"x").unwrap();
        let dir = tempfile::tempdir().unwrap().keep();
        let deep = dir.join("a/b/c");
        std::fs::create_dir_all(&deep).unwrap();
        std::fs::write(deep.join("f"), b"x").unwrap();
        for i in 0..300 {
            std::fs::write(dir.join(format!("file-{i:03}")), b"x").unwrap();
        }
        std::os::unix::fs::symlink(outside.path(), dir.join("link")).unwrap();
        let c = std::ffi::CString::new(dir.as_os_str().as_bytes()).unwrap();
        unsafe { remove_tree(c.as_ptr()) };
        assert!(!dir.exists());
        assert!(outside.path().join("keep").exists());
    }
}

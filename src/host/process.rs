//! Child processes with a per-call timeout, a global deadline and bounded output.
//!
//! Each child runs in its own process group so that a timeout kills the whole tree (a shell
//! wrapper and the compiler it started), stdin is either the given bytes or `/dev/null`, and
//! the environment is exactly the [`Env`] snapshot. Each group is handed to the reaper
//! (`reaper.rs`), which kills what is left of it if the doctor dies first.

use super::env::Env;
use super::Limits;
use std::ffi::OsString;
use std::io::{Read, Write};
use std::os::unix::ffi::OsStrExt;
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Output beyond this many bytes per stream is dropped (and flagged).
const MAX_OUTPUT: usize = 8 << 20;

#[derive(Debug, Clone)]
pub struct CommandSpec {
    /// Program to run, as a host path or a bare name (then looked up by the OS in the env's PATH).
    pub program: PathBuf,
    pub args: Vec<OsString>,
    pub stdin: Option<Vec<u8>>,
    /// Overrides the runner's per-call timeout (never extends past the global deadline).
    pub timeout: Option<Duration>,
    /// Extra or replaced variables for this call only.
    pub env_overrides: Vec<(OsString, Option<OsString>)>,
    /// Working directory; defaults to the doctor's temp dir.
    pub cwd: Option<PathBuf>,
    /// The program is a path on this host (the doctor itself), never re-rooted in `--sysroot`.
    pub on_host: bool,
    /// Set by `Host::run` only: run inside another root (`program` is then a path inside it).
    pub(super) chroot: Option<Jail>,
}

/// How a foreign root's program is started inside that root (docs/security.md, item 3).
#[derive(Debug, Clone)]
pub(super) struct Jail {
    /// The root to `chroot(2)` into (a host path).
    pub root: PathBuf,
    /// The working directory inside it.
    pub cwd: PathBuf,
    /// The root's `/proc` directory (a host path, resolved inside the root), where a fresh
    /// read-only procfs is mounted in the child's own mount namespace: programs that find
    /// themselves through `/proc/self/exe` (hipcc 6 and later) need it.
    pub proc_dir: Option<PathBuf>,
    /// The user and group the program runs as (the unprivileged overflow id, 65534).
    pub uid: u32,
    pub gid: u32,
}

impl CommandSpec {
    pub fn new(program: impl Into<PathBuf>) -> Self {
        CommandSpec {
            program: program.into(),
            args: Vec::new(),
            stdin: None,
            timeout: None,
            env_overrides: Vec::new(),
            cwd: None,
            on_host: false,
            chroot: None,
        }
    }

    /// The doctor re-executing itself (probe children): the program path is not re-rooted.
    pub(crate) fn current_exe() -> Self {
        let exe = std::env::current_exe().unwrap_or_else(|_| PathBuf::from("rocm-doctor"));
        let mut c = CommandSpec::new(exe);
        c.on_host = true;
        c
    }
    pub(crate) fn arg(mut self, a: impl Into<OsString>) -> Self {
        self.args.push(a.into());
        self
    }
    pub fn args<I: IntoIterator<Item = S>, S: Into<OsString>>(mut self, it: I) -> Self {
        self.args.extend(it.into_iter().map(Into::into));
        self
    }
    pub(crate) fn stdin(mut self, bytes: impl Into<Vec<u8>>) -> Self {
        self.stdin = Some(bytes.into());
        self
    }
    pub(crate) fn timeout(mut self, t: Duration) -> Self {
        self.timeout = Some(t);
        self
    }
    pub(crate) fn env(mut self, k: impl Into<OsString>, v: impl Into<OsString>) -> Self {
        self.env_overrides.push((k.into(), Some(v.into())));
        self
    }
    pub(crate) fn cwd(mut self, d: impl Into<PathBuf>) -> Self {
        self.cwd = Some(d.into());
        self
    }

    /// The command line as a shell-like string, for evidence.
    pub(crate) fn display(&self) -> String {
        let mut s = shell_quote(&self.program.to_string_lossy());
        for a in &self.args {
            s.push(' ');
            s.push_str(&shell_quote(&a.to_string_lossy()));
        }
        s
    }
}
fn shell_quote(s: &str) -> String {
    if !s.is_empty()
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"-_./=:,+@%".contains(&b))
    {
        s.to_string()
    } else {
        format!("'{}'", s.replace('\'', "'\\''"))
    }
}

/// How [`RunOutput::outcome`] begins when the doctor itself could not start a child: checks that
/// keep only that text (in evidence) recognise it by this prefix.
pub const DOCTOR_COULD_NOT_START: &str = "the doctor could not start it";

/// Why a child could not be started.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SpawnFailure {
    /// `ENOENT`, `EACCES`, `ENOEXEC`, ... or `other`.
    pub errno: String,
    pub message: String,
}

impl SpawnFailure {
    pub(crate) fn other(message: String) -> Self {
        SpawnFailure {
            errno: "other".into(),
            message,
        }
    }

    /// A failure of the doctor's own making, before the program was reached (no temp dir).
    pub(crate) fn doctors_own(message: String) -> Self {
        SpawnFailure {
            errno: "doctor".into(),
            message,
        }
    }

    /// Whether the doctor, not the program, is why the child did not start (issue 25, item 4):
    /// no temp dir, or `fork`/`exec` refused for want of the doctor's resources (fork(2) and
    /// execve(2) ERRORS: `EAGAIN` process limit, `ENOMEM`, `EMFILE`/`ENFILE` descriptors for
    /// the pipes, `ENOSPC`). A program that is missing or not executable is the machine's.
    pub(crate) fn is_doctors_own(&self) -> bool {
        matches!(
            self.errno.as_str(),
            "doctor" | "EAGAIN" | "ENOMEM" | "EMFILE" | "ENFILE" | "ENOSPC"
        )
    }
}

#[derive(Debug, Clone)]
pub struct RunOutput {
    pub command: String,
    /// Exit code when the child exited normally.
    pub code: Option<i32>,
    /// Signal number when it was killed by a signal (and not by our timeout).
    pub signal: Option<i32>,
    pub stdout: Vec<u8>,
    pub stderr: Vec<u8>,
    pub timed_out: bool,
    pub spawn_error: Option<SpawnFailure>,
    pub duration: Duration,
    pub truncated: bool,
}

impl RunOutput {
    /// Whether the child never started for a reason of the doctor's own (no verdict on it).
    pub(crate) fn doctor_failed(&self) -> bool {
        self.spawn_error
            .as_ref()
            .is_some_and(SpawnFailure::is_doctors_own)
    }

    pub(crate) fn spawn_failed(spec: &CommandSpec, f: SpawnFailure) -> Self {
        RunOutput {
            command: spec.display(),
            code: None,
            signal: None,
            stdout: Vec::new(),
            stderr: Vec::new(),
            timed_out: false,
            spawn_error: Some(f),
            duration: Duration::ZERO,
            truncated: false,
        }
    }
    pub(crate) fn success(&self) -> bool {
        self.code == Some(0) && !self.timed_out
    }
    pub(crate) fn stdout_text(&self) -> String {
        String::from_utf8_lossy(&self.stdout).into_owned()
    }
    pub(crate) fn stderr_text(&self) -> String {
        String::from_utf8_lossy(&self.stderr).into_owned()
    }
    /// stdout followed by stderr, as a user would see them in a terminal.
    pub fn combined_text(&self) -> String {
        let mut s = self.stdout_text();
        s.push_str(&self.stderr_text());
        s
    }
    /// The last `n` non-blank lines of stdout and stderr, for evidence.
    pub(crate) fn tail(&self, n: usize) -> String {
        tail_lines(&self.combined_text(), n)
    }
    /// The last `n` non-blank lines of stderr.
    pub(crate) fn stderr_tail(&self, n: usize) -> String {
        tail_lines(&self.stderr_text(), n)
    }
    /// One line describing how the process ended, for evidence.
    pub(crate) fn outcome(&self) -> String {
        if let Some(f) = &self.spawn_error {
            if f.is_doctors_own() {
                return format!("{DOCTOR_COULD_NOT_START}: {}", f.message);
            }
            return format!("could not start: {} ({})", f.errno, f.message);
        }
        if self.timed_out {
            return format!(
                "timed out after {} ms and was killed",
                self.duration.as_millis()
            );
        }
        if let Some(s) = self.signal {
            let name = nix::sys::signal::Signal::try_from(s)
                .map(|s| s.as_str().to_string())
                .unwrap_or(s.to_string());
            return format!("killed by signal {name}");
        }
        format!("exit code {}", self.code.unwrap_or(-1))
    }
}

/// The last `n` non-blank lines of `text`.
pub fn tail_lines(text: &str, n: usize) -> String {
    let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
    lines[lines.len().saturating_sub(n)..].join("\n")
}

#[derive(Debug)]
pub struct Runner {
    limits: Limits,
}

impl Runner {
    pub(crate) fn new(limits: Limits) -> Self {
        Runner { limits }
    }

    pub(crate) fn limits(&self) -> Limits {
        self.limits
    }

    /// Runs `spec` with the environment `env` only, in `default_cwd` unless the spec names
    /// another directory or a jail, bounded by its timeout and the doctor's deadline.
    pub(crate) fn run(&self, spec: &CommandSpec, env: &Env, default_cwd: &Path) -> RunOutput {
        let start = Instant::now();
        let remaining = self.limits.deadline.saturating_duration_since(start);
        let timeout = spec.timeout.unwrap_or(self.limits.per_call).min(remaining);
        if timeout.is_zero() {
            let mut out = RunOutput::spawn_failed(
                spec,
                SpawnFailure::other("the doctor's overall deadline has passed".into()),
            );
            out.timed_out = true;
            out.spawn_error = None;
            return out;
        }
        let mut cmd = match command(spec, env, default_cwd) {
            Ok(c) => c,
            Err(f) => return RunOutput::spawn_failed(spec, f),
        };
        let child = match cmd.spawn() {
            Ok(c) => c,
            Err(e) => {
                return RunOutput::spawn_failed(
                    spec,
                    SpawnFailure {
                        errno: super::fs::errno_name(&e),
                        message: e.to_string(),
                    },
                )
            }
        };
        supervise(child, spec, start, timeout)
    }
}

/// The command of `spec`: its program and arguments, the environment `env` and the spec's
/// overrides only, the run's marker, piped output, a process group of its own, and its
/// directory or its jail.
fn command(spec: &CommandSpec, env: &Env, default_cwd: &Path) -> Result<Command, SpawnFailure> {
    let mut cmd = Command::new(&spec.program);
    cmd.args(&spec.args).env_clear();
    for (k, v) in env.iter() {
        cmd.env(k, v);
    }
    for (k, v) in &spec.env_overrides {
        match v {
            Some(v) => cmd.env(k, v),
            None => cmd.env_remove(k),
        };
    }
    // The run's marker, inherited by every descendant: the reaper finds those that leave
    // the process group by it (reaper.rs).
    if let Some((k, v)) = super::reaper::marker() {
        cmd.env(k, v);
    }
    match &spec.chroot {
        None => {
            cmd.current_dir(spec.cwd.as_deref().unwrap_or(default_cwd));
        }
        Some(jail) => enter_jail(&mut cmd, jail)?,
    }
    cmd.stdin(if spec.stdin.is_some() {
        Stdio::piped()
    } else {
        Stdio::null()
    });
    cmd.stdout(Stdio::piped()).stderr(Stdio::piped());
    cmd.process_group(0);
    Ok(cmd)
}

/// Makes the child enter `jail` between fork and exec: its own /proc, the new root, and the
/// jail's unprivileged user.
fn enter_jail(cmd: &mut Command, jail: &Jail) -> Result<(), SpawnFailure> {
    let cstr = |p: &Path| std::ffi::CString::new(p.as_os_str().as_bytes());
    let (Ok(root), Ok(cwd)) = (cstr(&jail.root), cstr(&jail.cwd)) else {
        return Err(SpawnFailure::other("a path holds a NUL byte".into()));
    };
    let proc_dir = jail.proc_dir.as_deref().and_then(|p| cstr(p).ok());
    let (uid, gid) = (jail.uid, jail.gid);
    // SAFETY: between fork and exec the closure makes only system calls (unshare,
    // mount, chroot, chdir, setgroups, setgid, setuid) on strings allocated before
    // the fork, and allocates nothing (POSIX.1-2017 2.4.3: a multi-threaded
    // process's child may call only async-signal-safe functions). std runs it
    // after its own set-up and right before execve(2), so the program path is
    // looked up inside the new root.
    unsafe {
        cmd.pre_exec(move || {
            use nix::libc;
            let fail = || Err(std::io::Error::last_os_error());
            // /proc for the child only: a mount namespace of its own
            // (unshare(2) CLONE_NEWNS; mount_namespaces(7): made private first so
            // that nothing propagates back). Best effort: without it the program
            // runs with the root's empty /proc.
            if let Some(p) = &proc_dir {
                if libc::unshare(libc::CLONE_NEWNS) == 0
                    && libc::mount(
                        std::ptr::null(),
                        c"/".as_ptr(),
                        std::ptr::null(),
                        libc::MS_REC | libc::MS_PRIVATE,
                        std::ptr::null(),
                    ) == 0
                {
                    libc::mount(
                        c"proc".as_ptr(),
                        p.as_ptr(),
                        c"proc".as_ptr(),
                        libc::MS_RDONLY | libc::MS_NOSUID | libc::MS_NODEV | libc::MS_NOEXEC,
                        std::ptr::null(),
                    );
                }
            }
            if libc::chroot(root.as_ptr()) != 0 || libc::chdir(cwd.as_ptr()) != 0 {
                return fail();
            }
            // A root's program never runs as root: chroot(2) is no boundary for a
            // privileged process ("This call does not change the current working
            // directory ... the process can escape"), so it runs as the overflow
            // user, without supplementary groups (setgroups before setgid before
            // setuid: after setuid the others are not permitted).
            if libc::setgroups(0, std::ptr::null()) != 0
                || libc::setgid(gid) != 0
                || libc::setuid(uid) != 0
            {
                return fail();
            }
            Ok(())
        });
    }
    Ok(())
}

/// Feeds the child its stdin, reads its output (bounded), and waits for it until `timeout`
/// after `start`; a child past its time is killed with its process group.
fn supervise(
    mut child: std::process::Child,
    spec: &CommandSpec,
    start: Instant,
    timeout: Duration,
) -> RunOutput {
    let pid = child.id() as i32;
    super::reaper::track(pid);
    let stdin_thread = spec.stdin.clone().and_then(|bytes| {
        child.stdin.take().map(|mut w| {
            std::thread::spawn(move || {
                let _ = w.write_all(&bytes);
            })
        })
    });
    let out_t = child
        .stdout
        .take()
        .map(|r| std::thread::spawn(move || read_bounded(r)));
    let err_t = child
        .stderr
        .take()
        .map(|r| std::thread::spawn(move || read_bounded(r)));

    // A waiter thread blocks in wait(2) and hands the status over: the child's end is seen
    // at once (no polling interval on every child of the critical path), and the timeout
    // is the channel's.
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(child.wait().ok());
    });
    let mut timed_out = false;
    let status = match rx.recv_timeout(timeout.saturating_sub(start.elapsed())) {
        Ok(st) => st,
        Err(_) => {
            timed_out = true;
            kill_group(pid);
            // SIGKILL cannot be caught; a child stuck in the kernel (D state) is given up
            // on rather than waited for.
            rx.recv_timeout(Duration::from_secs(2)).ok().flatten()
        }
    };
    // A grandchild may still hold the pipes open after the child exited; make sure it
    // cannot keep us waiting.
    if timed_out {
        kill_group(pid);
    }
    let reap_deadline = Instant::now() + Duration::from_millis(500);
    let (stdout, t1) = join_reader(out_t, reap_deadline, pid);
    let (stderr, t2) = join_reader(err_t, reap_deadline, pid);
    if let Some(t) = stdin_thread {
        let _ = t.join();
    }
    super::reaper::untrack(pid);
    RunOutput {
        command: spec.display(),
        code: status.and_then(|s| s.code()),
        signal: if timed_out {
            None
        } else {
            status.and_then(|s| s.signal())
        },
        stdout,
        stderr,
        timed_out,
        spawn_error: None,
        duration: start.elapsed(),
        truncated: t1 || t2,
    }
}

fn kill_group(pid: i32) {
    let _ = nix::sys::signal::killpg(
        nix::unistd::Pid::from_raw(pid),
        nix::sys::signal::Signal::SIGKILL,
    );
}

type Reader = std::thread::JoinHandle<(Vec<u8>, bool)>;

fn join_reader(t: Option<Reader>, deadline: Instant, pid: i32) -> (Vec<u8>, bool) {
    let Some(t) = t else {
        return (Vec::new(), false);
    };
    while !t.is_finished() {
        if Instant::now() >= deadline {
            // Orphaned grandchildren keep the pipe open: kill the group once more and stop
            // waiting; the thread ends when the pipe closes.
            kill_group(pid);
            return (
                b"[output not collected: a background process kept the pipe open]".to_vec(),
                true,
            );
        }
        std::thread::sleep(Duration::from_millis(2));
    }
    t.join().unwrap_or_default()
}

fn read_bounded(mut r: impl Read) -> (Vec<u8>, bool) {
    let mut buf = Vec::new();
    let mut chunk = [0u8; 16384];
    let mut truncated = false;
    loop {
        match r.read(&mut chunk) {
            Ok(0) => break,
            Ok(n) => {
                if buf.len() < MAX_OUTPUT {
                    let take = n.min(MAX_OUTPUT - buf.len());
                    buf.extend_from_slice(&chunk[..take]);
                    truncated |= take < n;
                } else {
                    truncated = true;
                }
            }
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(_) => break,
        }
    }
    (buf, truncated)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_doctors_own_spawn_failures_are_told_apart() {
        let spec = CommandSpec::new("clang");
        for (errno, ours) in [
            ("EMFILE", true),
            ("ENFILE", true),
            ("EAGAIN", true),
            ("ENOMEM", true),
            ("ENOENT", false),
            ("EACCES", false),
            ("ENOEXEC", false),
        ] {
            let f = SpawnFailure {
                errno: errno.into(),
                message: "x".into(),
            };
            assert_eq!(f.is_doctors_own(), ours, "{errno}");
            let out = RunOutput::spawn_failed(&spec, f);
            assert_eq!(out.doctor_failed(), ours, "{errno}");
            assert_eq!(out.outcome().starts_with(DOCTOR_COULD_NOT_START), ours);
        }
        let out = RunOutput::spawn_failed(&spec, SpawnFailure::doctors_own("no temp dir".into()));
        assert!(out.doctor_failed());
        assert!(out.outcome().contains("no temp dir"), "{}", out.outcome());
    }

    fn runner(per_call_ms: u64) -> Runner {
        Runner::new(Limits::new(
            Duration::from_millis(per_call_ms),
            Duration::from_secs(30),
        ))
    }

    fn env() -> Env {
        Env::from_pairs([("PATH", "/usr/bin:/bin")])
    }

    #[test]
    fn captures_output_and_exit_code() {
        let out = runner(5000).run(
            &CommandSpec::new("/bin/sh").args(["-c", "echo hi; echo err >&2; exit 3"]),
            &env(),
            Path::new("/"),
        );
        assert_eq!(out.code, Some(3));
        assert_eq!(out.stdout_text(), "hi\n");
        assert_eq!(out.stderr_text(), "err\n");
    }

    #[test]
    fn feeds_stdin() {
        let out = runner(5000).run(
            &CommandSpec::new("/bin/cat").stdin(b"abc".to_vec()),
            &env(),
            Path::new("/"),
        );
        assert_eq!(out.stdout_text(), "abc");
    }

    #[test]
    fn a_hung_tree_is_killed_at_the_timeout() {
        let t0 = Instant::now();
        let out = runner(300).run(
            &CommandSpec::new("/bin/sh").args(["-c", "sleep 30 & sleep 30"]),
            &env(),
            Path::new("/"),
        );
        assert!(out.timed_out);
        assert!(
            t0.elapsed() < Duration::from_secs(5),
            "took {:?}",
            t0.elapsed()
        );
    }

    #[test]
    fn missing_program_reports_enoent() {
        let out = runner(1000).run(
            &CommandSpec::new("/nonexistent/tool"),
            &env(),
            Path::new("/"),
        );
        assert_eq!(out.spawn_error.unwrap().errno, "ENOENT");
    }

    #[test]
    fn the_env_is_the_snapshot_only() {
        let e = Env::from_pairs([("ONLY_THIS", "1")]);
        let out = runner(5000).run(&CommandSpec::new("/usr/bin/env"), &e, Path::new("/"));
        // Besides the reaper's marker (reaper.rs).
        let vars: Vec<String> = out
            .stdout_text()
            .lines()
            .filter(|l| !l.starts_with("ROCM_DOCTOR_REAP_"))
            .map(str::to_string)
            .collect();
        assert_eq!(vars, ["ONLY_THIS=1"]);
    }
}

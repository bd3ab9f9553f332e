//! Host: the only door to the machine.
//!
//! Every check reads files, the environment and runs tools through a [`Host`], never through
//! `std::fs`, `std::env` or `std::process` directly. A fixture sysroot plus an env map therefore
//! make any run hermetic, through the same code path users run.

mod env;
mod fs;
pub(crate) mod map;
pub(crate) mod open;
mod process;
mod reaper;
pub(crate) mod rusage;
pub(crate) mod trust;
pub(crate) mod watchdog;
mod which;

pub use env::{names_a_secret, Env};
pub(crate) use fs::{errno_name, io_error_text, RootMode, RootedFs};
pub use process::{
    tail_lines, CommandSpec, RunOutput, Runner, SpawnFailure, DOCTOR_COULD_NOT_START,
};
pub(crate) use reaper::sweep_leftovers;
pub(crate) use which::is_executable_at;

use std::path::{Path, PathBuf};
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, Instant};

/// Why a foreign root's program was not run (`--sysroot` without `--run-root-programs`): the
/// reason the checks that need a run give when they skip (docs/security.md, item 3).
pub(crate) const ROOT_PROGRAMS_NOT_RUN: &str = "programs of a foreign root are not executed (pass \
    --run-root-programs to run them, inside the root with chroot when root; or run the doctor \
    inside the root)";

/// The user and group a foreign root's program runs as inside its chroot: the kernel's
/// overflow id (`/proc/sys/kernel/overflowuid`, 65534 by default; `nobody` on Debian), never
/// root.
const JAIL_ID: u32 = 65534;

/// One program the doctor ran for a run on another root (`programs_run` in the JSON report).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ProgramRun {
    /// The program as the root sees it (a machine path), or this machine's path for the
    /// doctor's own probe child.
    pub path: PathBuf,
    /// The file executed, as this process sees it.
    pub host_path: PathBuf,
    /// A program of the root (false: the doctor itself, a probe child).
    pub from_root: bool,
    /// Run after `chroot(2)` into the root.
    pub in_chroot: bool,
    /// How many times it was started.
    pub count: u32,
}

/// Limits that keep the doctor from hanging on a broken tool.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    /// Upper bound for one child process.
    pub per_call: Duration,
    /// Wall-clock instant after which no child may run any longer.
    pub deadline: Instant,
}

impl Limits {
    pub fn new(per_call: Duration, total: Duration) -> Self {
        Limits {
            per_call,
            deadline: Instant::now() + total,
        }
    }
}

/// The machine as the doctor sees it: a rooted filesystem, an environment snapshot and a
/// process runner with timeouts.
pub struct Host {
    pub fs: RootedFs,
    pub env: Env,
    runner: Runner,
    tmp: OnceLock<Result<reaper::OwnedTempDir, String>>,
    /// `--run-root-programs`: a `--sysroot`'s programs may be run (scrubbed, resolved inside
    /// the root, chrooted when root).
    run_root_programs: bool,
    /// Root programs run chrooted when root (false only in unit tests of a stand-in program).
    chroot_allowed: bool,
    /// The children of a run on another root, for the report.
    programs_run: Mutex<Vec<ProgramRun>>,
    /// The child's temp dir inside a `--sysroot` it is chrooted into (`ROOT/tmp/rocm-doctor-*`),
    /// made on the first chrooted run; `Err` when the root has no writable `/tmp`.
    root_tmp: OnceLock<Result<reaper::OwnedTempDir, String>>,
}

impl Host {
    pub fn new(sysroot: PathBuf, env: Env, limits: Limits) -> Self {
        Host {
            fs: RootedFs::new(sysroot),
            env,
            runner: Runner::new(limits),
            tmp: OnceLock::new(),
            run_root_programs: false,
            chroot_allowed: true,
            programs_run: Mutex::new(Vec::new()),
            root_tmp: OnceLock::new(),
        }
    }

    /// The doctor's own real user id (getuid(2)): whose processes it may inspect and whose
    /// name a bug report redacts. The one place outside `host` that asks the kernel who we are.
    pub(crate) fn uid(&self) -> u32 {
        nix::unistd::getuid().as_raw()
    }

    /// `--run-root-programs`: let the programs of a `--sysroot` run (see [`Host::run`]).
    pub(crate) fn set_run_root_programs(&mut self, yes: bool) {
        self.run_root_programs = yes;
    }

    /// Unit tests of a caller of [`Host::run`] on a stand-in root: its programs (shell scripts
    /// without a shell inside the root) run, from outside.
    #[cfg(test)]
    pub(crate) fn run_root_programs_from_outside(&mut self) {
        self.run_root_programs = true;
        self.chroot_allowed = false;
    }

    /// Why the root's programs are not run, or `None` when they may be: a `--sysroot` is
    /// foreign (an image, a chroot, another user's tree), and its programs run only on
    /// request (`--run-root-programs`). This machine's and a `--host-root`'s programs run.
    pub(crate) fn root_programs_refused(&self) -> Option<&'static str> {
        (self.fs.mode() == RootMode::Fixture && !self.run_root_programs)
            .then_some(ROOT_PROGRAMS_NOT_RUN)
    }

    /// The children started so far by a run on another root (empty on this machine), in the
    /// order first started.
    pub(crate) fn programs_run(&self) -> Vec<ProgramRun> {
        self.programs_run
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }

    fn record_run(&self, run: ProgramRun) {
        let mut v = self.programs_run.lock().unwrap_or_else(|e| e.into_inner());
        match v
            .iter_mut()
            .find(|r| r.host_path == run.host_path && r.in_chroot == run.in_chroot)
        {
            Some(r) => r.count += 1,
            None => v.push(run),
        }
    }

    /// A host for this machine: sysroot `/`, the process environment, default limits.
    #[cfg(test)]
    pub(crate) fn local() -> Self {
        Host::new(
            PathBuf::from("/"),
            Env::from_process(),
            Limits::new(Duration::from_secs(10), Duration::from_secs(60)),
        )
    }

    /// The Host of a run on `sysroot` (a fixture unless `/`) with the process environment.
    pub fn for_sysroot(sysroot: &Path, limits: Limits) -> Result<Self, String> {
        Host::for_root(sysroot, RootMode::Fixture, limits)
    }

    /// The Host of a run on `root` taken as `mode` (`Fixture`: `--sysroot`, `HostRoot`:
    /// `--host-root`; `/` is this machine either way) with the process environment: the one
    /// place the commands (diagnose, `inspect`, `ps`, `log`) check that the root is a directory.
    pub(crate) fn for_root(root: &Path, mode: RootMode, limits: Limits) -> Result<Self, String> {
        let flag = match mode {
            RootMode::HostRoot => "--host-root",
            _ => "--sysroot",
        };
        if !root.is_dir() {
            return Err(format!("{flag} {}: not a directory", root.display()));
        }
        let mut host = Host::new(root.to_path_buf(), Env::from_process(), limits);
        if mode == RootMode::HostRoot {
            host.fs = RootedFs::host_root(root.to_path_buf());
        }
        Ok(host)
    }

    /// This process's pid as the root's `/proc` names it: its own pid on this machine; under
    /// `--host-root`, the pid the host's `/proc/self` resolves to (a container's process has
    /// another pid in the host's PID namespace); none in a fixture.
    pub(crate) fn own_pid_in_proc(&self) -> Option<u32> {
        match self.fs.mode() {
            RootMode::Real => Some(std::process::id()),
            RootMode::HostRoot => self
                .fs
                .read_link(Path::new("/proc/self"))
                .ok()?
                .to_str()?
                .parse()
                .ok(),
            RootMode::Fixture => None,
        }
    }

    /// The command of a probe child: the doctor re-executing itself to load a vendor library
    /// (`probe-library KIND PATH`). Under `--host-root` the child runs through the host's own
    /// dynamic loader, `DIR/lib64/ld-linux-x86-64.so.2 --library-path DIRS rocm-doctor ...`
    /// (ld.so(8): "the dynamic linker can be run ... as a command"; `--library-path` is used
    /// instead of LD_LIBRARY_PATH): the library, its dependencies and glibc itself are then the
    /// host's, as in a process on the host, while the devices and sysfs it opens are this
    /// container's. With LD_LIBRARY_PATH on the container's loader instead, the doctor would
    /// start with the host's libc under the container's ld.so, and the host's libraries would
    /// meet the container's (older) glibc. `lib_dirs` are machine paths (the loader's search
    /// directories as the inventory rebuilds them); the host's default directories follow.
    /// Without a host loader under DIR (another architecture, a static host) the child runs as
    /// on a real root.
    pub(crate) fn probe_spec(&self, lib_dirs: &[PathBuf]) -> CommandSpec {
        let plain = CommandSpec::current_exe();
        if self.fs.mode() != RootMode::HostRoot {
            return plain;
        }
        let (interp, triplet) = match std::env::consts::ARCH {
            "x86_64" => ("/lib64/ld-linux-x86-64.so.2", "x86_64-linux-gnu"),
            "aarch64" => ("/lib/ld-linux-aarch64.so.1", "aarch64-linux-gnu"),
            _ => return plain,
        };
        let Ok(interp) = self.fs.canonicalize(Path::new(interp)) else {
            return plain;
        };
        if !self.fs.is_file(&interp) {
            return plain;
        }
        let defaults = [
            format!("/lib/{triplet}"),
            format!("/usr/lib/{triplet}"),
            "/lib64".into(),
            "/usr/lib64".into(),
            "/lib".into(),
            "/usr/lib".into(),
        ];
        let mut dirs: Vec<PathBuf> = Vec::new();
        for d in lib_dirs
            .iter()
            .cloned()
            .chain(defaults.iter().map(PathBuf::from))
        {
            // Resolved inside DIR before the loader sees it (issue 25, item 2): handed over as
            // `DIR/opt/rocm/lib`, AMD's `/opt/rocm -> /etc/alternatives/rocm -> /opt/rocm-6.x`
            // would be followed by the kernel from this container's root, not the host's.
            let Ok(d) = self.fs.canonicalize(&d) else {
                continue;
            };
            let h = self.fs.host_path(&d);
            if self.fs.is_dir(&d) && !dirs.contains(&h) {
                dirs.push(h);
            }
        }
        let joined = std::env::join_paths(&dirs).unwrap_or_default();
        let mut spec = CommandSpec::new(self.fs.host_path(&interp))
            .arg("--library-path")
            .arg(joined)
            .arg(plain.program);
        spec.on_host = true;
        spec
    }

    pub(crate) fn limits(&self) -> Limits {
        self.runner.limits()
    }

    /// Looks a program up in `PATH` of the env snapshot (paths are interpreted inside the
    /// sysroot). Returns the host path to execute.
    pub(crate) fn which(&self, name: &str) -> Option<PathBuf> {
        which::which_in(self, name)
    }

    /// Every match of `name` on the snapshot's `PATH`, in order.
    pub(crate) fn which_all(&self, name: &str) -> Vec<PathBuf> {
        which::which_all_in(self, name)
    }

    /// Runs a child process with the env snapshot, a private cwd and a timeout.
    ///
    /// On another root (issue 25, items 2 and 3; docs/security.md) a program of the root is
    /// never started by a path the kernel would resolve here: it is resolved inside the root
    /// first ([`RootedFs::canonicalize`]: an absolute link `clang++ -> /usr/bin/clang++-15`
    /// names the root's file, never this machine's), looked up on the snapshot's `PATH` inside
    /// the root when bare, and refused when it is not an executable file there. A `--sysroot`'s
    /// programs are not run at all unless `--run-root-programs` was given
    /// ([`Host::root_programs_refused`]); then, as root, they run after `chroot(2)` into the
    /// root, with their temporaries in a directory of the root's `/tmp`. Every child of a run on
    /// another root gets the allow-listed environment only ([`Env::for_foreign_child`]) and is
    /// recorded ([`Host::programs_run`]).
    pub fn run(&self, spec: &CommandSpec) -> RunOutput {
        if self.fs.paths_are_native() {
            return self.run_native(spec);
        }
        let env = self.env.for_foreign_child();
        if spec.on_host {
            return self.run_doctor_child(spec.clone(), &env);
        }
        if let Some(why) = self.root_programs_refused() {
            return RunOutput::spawn_failed(
                spec,
                SpawnFailure {
                    errno: "not-run".into(),
                    message: why.into(),
                },
            );
        }
        let machine = match self.resolve_root_program(&spec.program) {
            Ok(m) => m,
            Err(e) => return RunOutput::spawn_failed(spec, e),
        };
        match self.chroot_tmp() {
            Some((root, tmp_host)) => {
                self.run_in_chroot(spec.clone(), &env, machine, root, tmp_host)
            }
            None => self.run_root_program_here(spec.clone(), &env, machine),
        }
    }

    /// A program of this machine, with the env snapshot.
    fn run_native(&self, spec: &CommandSpec) -> RunOutput {
        let cwd = match self.child_cwd(spec) {
            Ok(d) => d,
            Err(failed) => return *failed,
        };
        let mut spec = spec.clone();
        // Children write their temporaries (clang's `probe-XXXXXX` directories, the
        // assembler's files) into the doctor's temp dir, which is removed at exit: nothing is
        // left in /tmp. A variable the call sets itself still wins (overrides apply in order).
        with_temp_vars(&mut spec, cwd.as_os_str(), false);
        self.runner.run(&spec, &self.env, &cwd)
    }

    /// The doctor itself (a probe child) on another root, possibly through the host's loader.
    fn run_doctor_child(&self, mut spec: CommandSpec, env: &Env) -> RunOutput {
        let cwd = match self.child_cwd(&spec) {
            Ok(d) => d,
            Err(failed) => return *failed,
        };
        with_temp_vars(&mut spec, cwd.as_os_str(), true);
        self.record_run(ProgramRun {
            path: spec.program.clone(),
            host_path: spec.program.clone(),
            from_root: false,
            in_chroot: false,
            count: 1,
        });
        self.runner.run(&spec, env, &cwd)
    }

    /// A root's program (`machine`, the root's path) run inside the root: every path is the
    /// root's. Paths into the child's temp dir (probe sources, outputs, the working directory)
    /// are handed over as the root names them.
    fn run_in_chroot(
        &self,
        mut spec: CommandSpec,
        env: &Env,
        machine: PathBuf,
        root: PathBuf,
        tmp_host: PathBuf,
    ) -> RunOutput {
        let host_path = self.fs.host_path(&machine);
        let inside = |p: &Path| Path::new("/").join(p.strip_prefix(&root).unwrap_or(p));
        let tmp_machine = inside(&tmp_host);
        let (from, to) = (tmp_host.as_os_str(), tmp_machine.as_os_str());
        let cwd = spec
            .cwd
            .as_deref()
            .filter(|c| c.starts_with(&tmp_host))
            .map(inside)
            .unwrap_or_else(|| tmp_machine.clone());
        spec.args = spec.args.iter().map(|a| replace_os(a, from, to)).collect();
        // The root's /proc, resolved inside the root: a fresh procfs is mounted there for the
        // child alone.
        let proc_dir = self
            .fs
            .canonicalize(Path::new("/proc"))
            .ok()
            .filter(|p| self.fs.is_dir(p))
            .map(|p| root.join(p.strip_prefix("/").unwrap_or(&p)));
        spec.program = machine.clone();
        spec.cwd = None;
        spec.chroot = Some(process::Jail {
            root,
            cwd,
            proc_dir,
            uid: JAIL_ID,
            gid: JAIL_ID,
        });
        with_temp_vars(&mut spec, to, true);
        self.record_run(ProgramRun {
            path: machine,
            host_path,
            from_root: true,
            in_chroot: true,
            count: 1,
        });
        self.runner.run(&spec, env, &tmp_host)
    }

    /// A root's program run from outside the root, by its resolved host path (not root, no
    /// writable `/tmp` in the root, or a root that is not a `--sysroot`: [`Host::chroot_tmp`]).
    fn run_root_program_here(
        &self,
        mut spec: CommandSpec,
        env: &Env,
        machine: PathBuf,
    ) -> RunOutput {
        let host_path = self.fs.host_path(&machine);
        let cwd = match self.child_cwd(&spec) {
            Ok(d) => d,
            Err(failed) => return *failed,
        };
        spec.program = host_path.clone();
        with_temp_vars(&mut spec, cwd.as_os_str(), true);
        self.record_run(ProgramRun {
            path: machine,
            host_path,
            from_root: true,
            in_chroot: false,
            count: 1,
        });
        self.runner.run(&spec, env, &cwd)
    }

    /// The working directory of a child: the doctor's temp dir, or the outcome of a child the
    /// doctor could not start (its own failure: `error`, never a verdict; issue 25, item 4).
    fn child_cwd(&self, spec: &CommandSpec) -> Result<PathBuf, Box<RunOutput>> {
        self.temp_dir().map(Path::to_path_buf).map_err(|e| {
            Box::new(RunOutput::spawn_failed(
                spec,
                SpawnFailure::doctors_own(format!("no temp dir: {e}")),
            ))
        })
    }

    /// The machine path of a root's program: a bare name looked up on the snapshot's `PATH`
    /// inside the root, a path resolved inside the root; an executable regular file there.
    fn resolve_root_program(&self, program: &Path) -> Result<PathBuf, SpawnFailure> {
        let not_found = |why: String| SpawnFailure {
            errno: "ENOENT".into(),
            message: format!("{}: not found in the root ({why})", program.display()),
        };
        let named = if program.is_absolute() {
            program.to_path_buf()
        } else if program.components().count() == 1 {
            let name = program.to_string_lossy();
            self.which(&name)
                .ok_or_else(|| not_found("not on PATH".into()))?
        } else {
            return Err(not_found("a relative path".into()));
        };
        let real = self
            .fs
            .canonicalize(&named)
            .map_err(|e| not_found(io_error_text(&e)))?;
        if !which::is_executable_at(self, &real) {
            return Err(not_found(format!(
                "{} is not an executable file",
                real.display()
            )));
        }
        Ok(real)
    }

    /// Whether a root's program runs chrooted, and then the root to chroot into and the
    /// child's temp dir (a host path inside it): a `--sysroot` (with `--run-root-programs`),
    /// as root (chroot(2): "Only a privileged process ... may change the root directory"), with
    /// a writable `/tmp` in the root. Otherwise the program runs from outside, by its
    /// resolved host path.
    fn chroot_tmp(&self) -> Option<(PathBuf, PathBuf)> {
        if self.fs.mode() != RootMode::Fixture
            || !self.run_root_programs
            || !self.chroot_allowed
            || !nix::unistd::geteuid().is_root()
        {
            return None;
        }
        let root = std::fs::canonicalize(self.fs.root()).ok()?;
        let made = self.root_tmp.get_or_init(|| {
            // The root's /tmp resolved inside the root: a `tmp -> /etc` link in an image must
            // not make the doctor write into this machine's /etc.
            let tmp = self
                .fs
                .canonicalize(Path::new("/tmp"))
                .map_err(|e| io_error_text(&e))?;
            if !self.fs.is_dir(&tmp) {
                return Err(format!("{} is not a directory", tmp.display()));
            }
            let dir = tempfile::Builder::new()
                .prefix("rocm-doctor-")
                .tempdir_in(root.join(tmp.strip_prefix("/").unwrap_or(&tmp)))
                .map(reaper::OwnedTempDir::new)
                .map_err(|e| e.to_string())?;
            // The child runs as JAIL_ID and writes here.
            std::os::unix::fs::chown(dir.path(), Some(JAIL_ID), Some(JAIL_ID))
                .map_err(|e| e.to_string())?;
            Ok(dir)
        });
        let tmp = made.as_ref().ok()?.path().to_path_buf();
        Some((root, tmp))
    }

    /// The doctor's own temp dir, created on first use and removed when the Host is dropped.
    /// It is the only place the doctor writes to. See [`temp_candidates`] for where it looks.
    pub(crate) fn temp_dir(&self) -> Result<&Path, String> {
        let made = self.tmp.get_or_init(|| {
            let mut b = tempfile::Builder::new();
            b.prefix("rocm-doctor-");
            let mut errors = Vec::new();
            for base in temp_candidates(&self.env) {
                match b
                    .tempdir_in(&base)
                    .and_then(|d| writable(d.path()).map(|()| d))
                {
                    Ok(d) => return Ok(reaper::OwnedTempDir::new(d)),
                    Err(e) => errors.push(format!("{}: {}", base.display(), io_error_text(&e))),
                }
            }
            Err(format!(
                "cannot create the doctor's temp dir ({})",
                errors.join("; ")
            ))
        });
        match made {
            Ok(d) => Ok(d.path()),
            Err(e) => Err(e.clone()),
        }
    }

    /// Creates a fresh sub-directory of the temp dir for one probe.
    /// Inside the root when its programs run chrooted (they could not see it otherwise).
    pub(crate) fn scratch_dir(&self, label: &str) -> Result<PathBuf, String> {
        let chrooted = self.chroot_tmp().map(|(_, tmp)| tmp);
        let base = match &chrooted {
            Some(t) => t.as_path(),
            None => self.temp_dir()?,
        };
        let dir = tempfile::Builder::new()
            .prefix(&format!("{label}-"))
            .tempdir_in(base)
            .map_err(|e| e.to_string())?
            .keep();
        if chrooted.is_some() {
            std::os::unix::fs::chown(&dir, Some(JAIL_ID), Some(JAIL_ID))
                .map_err(|e| e.to_string())?;
        }
        Ok(dir)
    }
}

/// Sets `TMPDIR`, `TMP` and `TEMP` (and, for a child on another root, `HOME`) to the child's
/// temp dir, before the call's own overrides (which still win: they apply in order).
fn with_temp_vars(spec: &mut CommandSpec, dir: &std::ffi::OsStr, home: bool) {
    let keys: &[&str] = if home {
        &["TMPDIR", "TMP", "TEMP", "HOME"]
    } else {
        &["TMPDIR", "TMP", "TEMP"]
    };
    let vars: Vec<_> = keys
        .iter()
        .map(|k| ((*k).into(), Some(dir.to_os_string())))
        .collect();
    spec.env_overrides.splice(0..0, vars);
}

/// `arg` with every occurrence of `from` replaced by `to` (byte-wise; paths need not be UTF-8).
fn replace_os(
    arg: &std::ffi::OsStr,
    from: &std::ffi::OsStr,
    to: &std::ffi::OsStr,
) -> std::ffi::OsString {
    use std::os::unix::ffi::{OsStrExt, OsStringExt};
    let (a, f, t) = (arg.as_bytes(), from.as_bytes(), to.as_bytes());
    if f.is_empty() {
        return arg.to_os_string();
    }
    let mut out = Vec::with_capacity(a.len());
    let mut i = 0;
    while i < a.len() {
        if a[i..].starts_with(f) {
            out.extend_from_slice(t);
            i += f.len();
        } else {
            out.push(a[i]);
            i += 1;
        }
    }
    std::ffi::OsString::from_vec(out)
}

/// Where the doctor's temp dir may go, in order (issue 25, item 4): `$TMPDIR` (Nix sets it to
/// the build dir), `/tmp`, `/var/tmp`, `/dev/shm`, `$XDG_RUNTIME_DIR`. A variable counts only
/// when it holds an absolute path. A read-only or full `/tmp` (a pod with a read-only root, a
/// filled tmpfs) must not make every probe look broken: the next place that works is used.
fn temp_candidates(env: &Env) -> Vec<PathBuf> {
    let var = |k: &str| {
        env.get_str(k)
            .map(PathBuf::from)
            .filter(|p| p.is_absolute())
    };
    let mut out: Vec<PathBuf> = Vec::new();
    let fixed = ["/tmp", "/var/tmp", "/dev/shm"].map(PathBuf::from);
    for c in var("TMPDIR")
        .into_iter()
        .chain(fixed)
        .chain(var("XDG_RUNTIME_DIR"))
    {
        if c.is_dir() && !out.contains(&c) {
            out.push(c);
        }
    }
    out
}

/// Whether files can really be written in `dir`: on a full tmpfs `mkdir` still succeeds (a
/// directory takes no data page) but the first write fails with `ENOSPC` (tmpfs allocates a
/// page per written page, Documentation/filesystems/tmpfs.rst "size"), so one byte is written
/// and the file removed again.
fn writable(dir: &Path) -> std::io::Result<()> {
    use std::io::Write;
    let p = dir.join(".write-test");
    let r = std::fs::File::create(&p).and_then(|mut f| f.write_all(b"x"));
    let _ = std::fs::remove_file(&p);
    r
}

//! Host: the only door to the machine.
//!
//! Every check reads files, the environment and runs tools through a [`Host`], never through
//! `std::fs`, `std::env` or `std::process` directly. A fixture sysroot plus an env map therefore
//! make any run hermetic, through the same code path users run.

mod env;
mod fs;
pub mod open;
mod process;
mod reaper;
pub mod rusage;
mod which;

pub use env::Env;
pub use fs::{errno_name, io_error_text, RootMode, RootedFs};
pub use process::{tail_lines, CommandSpec, RunOutput, Runner, SpawnFailure};
pub use reaper::{sweep_leftovers, Leftover};
pub use which::is_executable_at;

use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

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
}

impl Host {
    pub fn new(sysroot: PathBuf, env: Env, limits: Limits) -> Self {
        Host {
            fs: RootedFs::new(sysroot),
            env,
            runner: Runner::new(limits),
            tmp: OnceLock::new(),
        }
    }

    /// A host for this machine: sysroot `/`, the process environment, default limits.
    pub fn local() -> Self {
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
    pub fn for_root(root: &Path, mode: RootMode, limits: Limits) -> Result<Self, String> {
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
    pub fn own_pid_in_proc(&self) -> Option<u32> {
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
    pub fn probe_spec(&self, lib_dirs: &[PathBuf]) -> CommandSpec {
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

    pub fn limits(&self) -> Limits {
        self.runner.limits()
    }

    /// Looks a program up in `PATH` of the env snapshot (paths are interpreted inside the
    /// sysroot). Returns the host path to execute.
    pub fn which(&self, name: &str) -> Option<PathBuf> {
        which::which_in(self, name)
    }

    /// Every match of `name` on the snapshot's `PATH`, in order.
    pub fn which_all(&self, name: &str) -> Vec<PathBuf> {
        which::which_all_in(self, name)
    }

    /// Runs a child process with the env snapshot, a private cwd and a timeout.
    pub fn run(&self, spec: &CommandSpec) -> RunOutput {
        let cwd = match self.temp_dir() {
            Ok(d) => d.to_path_buf(),
            Err(e) => {
                return RunOutput::spawn_failed(
                    spec,
                    SpawnFailure::other(format!("no temp dir: {e}")),
                )
            }
        };
        let mut spec = spec.clone();
        // A program found under another root (fixture or host root) runs from its path there.
        if spec.program.is_absolute() && !spec.on_host && !self.fs.paths_are_native() {
            spec.program = self.fs.host_path(&spec.program);
        }
        // Children write their temporaries (clang's `probe-XXXXXX` directories, the assembler's
        // files) into the doctor's temp dir, which is removed at exit: nothing is left in /tmp.
        // A variable the call sets itself still wins (overrides apply in order).
        let tmp: Vec<_> = ["TMPDIR", "TMP", "TEMP"]
            .into_iter()
            .map(|k| (k.into(), Some(cwd.clone().into_os_string())))
            .collect();
        spec.env_overrides.splice(0..0, tmp);
        self.runner.run(&spec, &self.env, &cwd)
    }

    /// The doctor's own temp dir, created on first use and removed when the Host is dropped.
    /// It is the only place the doctor writes to.
    pub fn temp_dir(&self) -> Result<&Path, String> {
        let made = self.tmp.get_or_init(|| {
            let mut b = tempfile::Builder::new();
            b.prefix("rocm-doctor-");
            // $TMPDIR first (Nix sets it to the build dir), then /tmp: an unwritable $TMPDIR must
            // not make every tool look broken.
            let mut errors = Vec::new();
            let tmpdir = self
                .env
                .get_str("TMPDIR")
                .filter(|s| Path::new(s).is_absolute());
            for base in tmpdir.iter().map(String::as_str).chain(["/tmp"]) {
                match b.tempdir_in(base) {
                    Ok(d) => return Ok(reaper::OwnedTempDir::new(d)),
                    Err(e) => errors.push(format!("{base}: {e}")),
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
    pub fn scratch_dir(&self, label: &str) -> Result<PathBuf, String> {
        let base = self.temp_dir()?;
        let dir = tempfile::Builder::new()
            .prefix(&format!("{label}-"))
            .tempdir_in(base)
            .map_err(|e| e.to_string())?;
        Ok(dir.keep())
    }
}

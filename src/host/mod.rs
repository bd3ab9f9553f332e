//! Host: the only door to the machine.
//!
//! Every check reads files, the environment and runs tools through a [`Host`], never through
//! `std::fs`, `std::env` or `std::process` directly. A fixture sysroot plus an env map therefore
//! make any run hermetic, through the same code path users run.

mod env;
mod fs;
mod process;
mod reaper;
pub mod rusage;
mod which;

pub use env::Env;
pub use fs::{errno_name, io_error_text, RootedFs};
pub use process::{tail_lines, CommandSpec, RunOutput, Runner, SpawnFailure};
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

    /// The Host of a run on `sysroot` with the process environment: the one place the three
    /// commands (diagnose, `inspect`, `ps`) check that the root is a directory.
    pub fn for_sysroot(sysroot: &Path, limits: Limits) -> Result<Self, String> {
        if !sysroot.is_dir() {
            return Err(format!("--sysroot {}: not a directory", sysroot.display()));
        }
        Ok(Host::new(
            sysroot.to_path_buf(),
            Env::from_process(),
            limits,
        ))
    }

    pub fn limits(&self) -> Limits {
        self.runner.limits()
    }

    /// Looks a program up in `PATH` of the env snapshot (paths are interpreted inside the
    /// sysroot). Returns the host path to execute.
    pub fn which(&self, name: &str) -> Option<PathBuf> {
        which::which_in(self, name)
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
        if spec.program.is_absolute() && !spec.on_host && !self.fs.is_real_root() {
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

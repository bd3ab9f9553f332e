//! The validated run configuration, built from the command line.

use crate::host::{Host, Limits, RootMode};
use crate::isa::TargetId;
use clap::ValueEnum;
use std::path::PathBuf;
use std::time::Duration;

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
/// Which checks judge what (`--profile`; `when.profile` in check packs).
pub enum Profile {
    Auto,
    Build,
    Runtime,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
/// When to use colours (`--color`).
pub enum ColorChoice {
    Auto,
    Always,
    Never,
}

/// How a run presents itself: the machine it looks at (`--sysroot` or `--host-root`) and how
/// it prints.
#[derive(Debug, Clone)]
pub(crate) struct Session {
    /// The root of the diagnosed machine (`/`, `--sysroot DIR` or `--host-root DIR`).
    pub sysroot: PathBuf,
    /// What that root is: a fixture (`--sysroot`) or the live host (`--host-root`); `/` is
    /// this machine either way.
    pub root_mode: RootMode,
    /// `--run-root-programs`: a `--sysroot`'s programs may run (docs/security.md, item 3).
    pub run_root_programs: bool,
    pub json: bool,
    pub verbose: u8,
}

impl Session {
    /// The Host of this session's root, with the process environment and these limits.
    pub(crate) fn host(&self, limits: Limits) -> Result<Host, String> {
        let mut host = Host::for_root(&self.sysroot, self.root_mode, limits)?;
        host.set_run_root_programs(self.run_root_programs);
        Ok(host)
    }
}

#[derive(Debug, Clone)]
pub(crate) struct Config {
    pub profile: Profile,
    /// ISAs given with `--isa` (validated).
    pub isas: Vec<TargetId>,
    /// `--isa tensile` was given (the asm-caps probe expands it).
    pub isa_tensile: bool,
    /// Processors named in the text given to `why` (`invalid target ID 'gfx1200'`), as
    /// written: judged beside `--isa` with their own source label, or listed as rejected.
    pub isas_from_text: Vec<String>,
    pub only: Vec<String>,
    pub skip: Vec<String>,
    pub rocm_path: Option<PathBuf>,
    pub clang: Option<PathBuf>,
    pub per_call: Duration,
    pub deadline: Duration,
    pub strict: bool,
    /// `--asm-caps` and its flags (validated); `None` when the probe was not asked for. The
    /// `asm.*` checks run only when it is set (see `RunArgs::config` in src/cli.rs).
    pub asm: Option<AsmRequest>,
    /// Boots whose kernel log `kernel.history` reads (this one and the earlier ones); 0 when
    /// not asked (`--boots`, the fleet modes: see `RunArgs::config` in src/cli.rs).
    pub boots: usize,
    /// `--expect-gpus N`: `gpu.layers` fails when fewer GPUs are usable by ROCr.
    pub expect_gpus: Option<u32>,
    /// The site policy (`--policy`, /etc/rocm-doctor/policy.toml, or the defaults).
    pub policy: crate::policy::Policy,
}

/// Which Tensile's probe to emulate (`--tensile-compat`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AsmCompat {
    /// ROCm/Tensile develop (a164ed70df55) and rocm-6.3+.
    Current,
    /// ROCm/Tensile rocm-6.2.2 / 6.2.4.
    V6_2,
}

impl AsmCompat {
    pub(crate) fn parse(s: &str) -> Result<Self, String> {
        match s.trim() {
            "current" | "develop" | "latest" => Ok(AsmCompat::Current),
            "6.2" | "6.2.2" | "6.2.4" | "rocm-6.2" => Ok(AsmCompat::V6_2),
            other => Err(format!(
                "--tensile-compat {other:?}: expected `current` or `6.2`"
            )),
        }
    }
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            AsmCompat::Current => "current",
            AsmCompat::V6_2 => "6.2",
        }
    }
}

/// The validated `--asm-caps` flags.
#[derive(Debug, Clone)]
pub(crate) struct AsmRequest {
    pub assembler: Option<PathBuf>,
    /// `--no-batch`: Tensile's own serial method.
    pub serial: bool,
    pub compat: AsmCompat,
    /// `--expect FILE` and its parsed content.
    pub expect: Option<(PathBuf, serde_json::Map<String, serde_json::Value>)>,
}

#[derive(Debug, thiserror::Error)]
pub(crate) enum ConfigError {
    #[error("--isa {value:?}: {reason}")]
    BadIsa { value: String, reason: String },
    #[error("--{flag} must be a positive number of seconds, got {value}")]
    BadSeconds { flag: &'static str, value: f64 },
    #[error("--isa: {0} ISAs given; at most 256 are accepted")]
    TooManyIsas(usize),
    /// A bad `--asm-caps` flag combination or `--expect` file (the message names the flag).
    #[error("{0}")]
    Asm(String),
    /// The site policy cannot be used (the message names the file and the line).
    #[error("{0}")]
    Policy(String),
}

impl Config {
    /// A configuration with defaults, for tests and library users.
    #[cfg(test)]
    pub(crate) fn default_for_tests() -> Self {
        Config {
            profile: Profile::Auto,
            isas: Vec::new(),
            isa_tensile: false,
            isas_from_text: Vec::new(),
            only: Vec::new(),
            skip: Vec::new(),
            rocm_path: None,
            clang: None,
            per_call: Duration::from_secs(20),
            deadline: Duration::from_secs(120),
            strict: false,
            expect_gpus: None,
            asm: None,
            boots: 0,
            policy: crate::policy::Policy::default(),
        }
    }
}

pub(crate) fn seconds(flag: &'static str, v: f64) -> Result<Duration, ConfigError> {
    if !(v.is_finite() && v > 0.0 && v < 1.0e7) {
        return Err(ConfigError::BadSeconds { flag, value: v });
    }
    Ok(Duration::from_secs_f64(v))
}

//! The validated run configuration, built from the command line.

use crate::cli::{Profile, RunArgs};
use crate::isa::TargetId;
use std::path::PathBuf;
use std::time::Duration;

#[derive(Debug, Clone)]
pub struct Config {
    pub profile: Profile,
    /// ISAs given with `--isa` (validated).
    pub isas: Vec<TargetId>,
    /// `--isa tensile` was given (the asm-caps probe expands it).
    pub isa_tensile: bool,
    pub only: Vec<String>,
    pub skip: Vec<String>,
    pub rocm_path: Option<PathBuf>,
    pub clang: Option<PathBuf>,
    pub per_call: Duration,
    pub deadline: Duration,
    pub strict: bool,
    /// The check packs of this run (built-in, checks.d, --checks); loaded by the app.
    pub packs: std::sync::Arc<crate::packs::PackSet>,
}

#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    #[error("--isa {value:?}: {reason}")]
    BadIsa { value: String, reason: String },
    #[error("--{flag} must be a positive number of seconds, got {value}")]
    BadSeconds { flag: &'static str, value: f64 },
    #[error("--isa: {0} ISAs given; at most 256 are accepted")]
    TooManyIsas(usize),
}

impl Config {
    pub fn from_args(a: &RunArgs) -> Result<Self, ConfigError> {
        let mut isas = Vec::new();
        let mut isa_tensile = false;
        if a.isa.len() > 256 {
            return Err(ConfigError::TooManyIsas(a.isa.len()));
        }
        for raw in &a.isa {
            let v = raw.trim();
            if v.eq_ignore_ascii_case("tensile") {
                isa_tensile = true;
                continue;
            }
            let id = TargetId::parse(v).map_err(|e| ConfigError::BadIsa {
                value: raw.clone(),
                reason: e.to_string(),
            })?;
            if !isas.contains(&id) {
                isas.push(id);
            }
        }
        Ok(Config {
            profile: a.profile,
            isas,
            isa_tensile,
            only: a
                .only
                .iter()
                .map(|s| s.trim().to_string())
                .filter(|s| !s.is_empty())
                .collect(),
            skip: a
                .skip
                .iter()
                .map(|s| s.trim().to_string())
                .filter(|s| !s.is_empty())
                .collect(),
            rocm_path: a.rocm_path.clone(),
            clang: a.clang.clone(),
            per_call: seconds("timeout", a.timeout)?,
            deadline: seconds("deadline", a.deadline)?,
            strict: a.strict,
            packs: Default::default(),
        })
    }

    /// A configuration with defaults, for tests and library users.
    pub fn default_for_tests() -> Self {
        Config {
            profile: Profile::Auto,
            isas: Vec::new(),
            isa_tensile: false,
            only: Vec::new(),
            skip: Vec::new(),
            rocm_path: None,
            clang: None,
            per_call: Duration::from_secs(20),
            deadline: Duration::from_secs(120),
            strict: false,
            packs: Default::default(),
        }
    }
}

fn seconds(flag: &'static str, v: f64) -> Result<Duration, ConfigError> {
    if !(v.is_finite() && v > 0.0 && v < 1.0e7) {
        return Err(ConfigError::BadSeconds { flag, value: v });
    }
    Ok(Duration::from_secs_f64(v))
}

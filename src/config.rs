//! The validated run configuration, built from the command line.

use crate::cli::RunArgs;
use crate::isa::TargetId;
use clap::ValueEnum;
use std::path::PathBuf;
use std::time::Duration;

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum, serde::Serialize)]
#[serde(rename_all = "lowercase")]
/// Which checks judge what (`--profile`).
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

#[derive(Debug, Clone)]
pub struct Config {
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
    /// The check packs of this run (built-in, checks.d, --checks); loaded by the app.
    pub packs: std::sync::Arc<crate::packs::PackSet>,
    /// `--asm-caps` and its flags (validated); `None` when the probe was not asked for. The
    /// `asm.*` checks run only when it is set (see [`Config::from_args`]).
    pub asm: Option<crate::asm::Request>,
}

#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    #[error("--isa {value:?}: {reason}")]
    BadIsa { value: String, reason: String },
    #[error("--{flag} must be a positive number of seconds, got {value}")]
    BadSeconds { flag: &'static str, value: f64 },
    #[error("--isa: {0} ISAs given; at most 256 are accepted")]
    TooManyIsas(usize),
    /// A bad `--asm-caps` flag combination or `--expect` file (the message names the flag).
    #[error("{0}")]
    Asm(String),
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
        let asm = crate::asm::Request::from_args(a).map_err(ConfigError::Asm)?;
        let only: Vec<String> = a
            .only
            .iter()
            .map(|s| s.trim().to_string())
            .filter(|s| !s.is_empty())
            .collect();
        let mut skip: Vec<String> = a
            .skip
            .iter()
            .map(|s| s.trim().to_string())
            .filter(|s| !s.is_empty())
            .collect();
        // Opt-in checks: the asm probe runs only when asked for (`--asm-caps`), and its
        // comparison only with `--expect`, unless `--only` names them (then they say why not).
        if only.is_empty() {
            match &asm {
                None => skip.push("asm".into()),
                Some(r) if r.expect.is_none() => skip.push("asm.expect".into()),
                Some(_) => {}
            }
        }
        Ok(Config {
            profile: a.profile,
            isas,
            isa_tensile,
            isas_from_text: Vec::new(),
            only,
            skip,
            rocm_path: a.rocm_path.clone(),
            clang: a.clang.clone(),
            per_call: seconds("timeout", a.timeout)?,
            deadline: seconds("deadline", a.deadline)?,
            strict: a.strict,
            packs: Default::default(),
            asm,
        })
    }

    /// A configuration with defaults, for tests and library users.
    pub fn default_for_tests() -> Self {
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
            packs: Default::default(),
            asm: None,
        }
    }
}

fn seconds(flag: &'static str, v: f64) -> Result<Duration, ConfigError> {
    if !(v.is_finite() && v > 0.0 && v < 1.0e7) {
        return Err(ConfigError::BadSeconds { flag, value: v });
    }
    Ok(Duration::from_secs_f64(v))
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    fn cfg(argv: &[&str]) -> Config {
        let cli = crate::cli::Cli::try_parse_from(
            std::iter::once("rocm-doctor").chain(argv.iter().copied()),
        )
        .unwrap();
        Config::from_args(&cli.run).unwrap()
    }

    #[test]
    fn asm_checks_are_opt_in() {
        let c = cfg(&[]);
        assert!(c.asm.is_none());
        assert_eq!(c.skip, ["asm"]);
        let c = cfg(&["--asm-caps"]);
        assert!(c.asm.is_some());
        assert_eq!(c.skip, ["asm.expect"]);
        // Named by --only, they run (and say "not requested" without --asm-caps).
        let c = cfg(&["--only", "asm.caps"]);
        assert!(c.skip.is_empty());
        let e = Config::from_args(
            &crate::cli::Cli::try_parse_from(["rocm-doctor", "--no-batch"])
                .unwrap()
                .run,
        )
        .unwrap_err();
        assert_eq!(e.to_string(), "--no-batch only applies with --asm-caps");
    }
}

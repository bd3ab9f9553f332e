//! The commands, one room each, named after what the user types (`run` is the default run with
//! no subcommand). A room turns the parsed command line into what its library needs, calls it,
//! prints and returns the exit code; the modules it calls never see argv types. What every room
//! shares is here: the one set-up ([`config`], [`setup`]: configuration, Host, session; the
//! watchdog) and the one way an error ends a command ([`finish`]).

pub(crate) mod checks;
pub(crate) mod completions;
pub(crate) mod docs_checks;
pub(crate) mod explain;
pub(crate) mod gen_log;
pub(crate) mod inspect;
pub(crate) mod log;
pub(crate) mod man;
pub(crate) mod merge;
pub(crate) mod probe_library;
pub(crate) mod ps;
pub(crate) mod report;
pub(crate) mod run;
pub(crate) mod why;

use crate::cli::RunArgs;
use crate::config::Config;
use crate::host::{Host, Limits};
use crate::report::exit;

/// What a room returns: its exit code, or the error that ends it before its output (said on
/// stderr by [`finish`], exit 2).
pub(crate) type Outcome = anyhow::Result<i32>;

/// `--npd` mode and its bound, once known: a usage error of a room that answers NPD then also
/// prints NPD's one line on stdout (`UNKNOWN usage: ...`, exit 2), since NPD shows stdout in the
/// node condition and only logs stderr (issue 20).
static NPD_USAGE: std::sync::OnceLock<usize> = std::sync::OnceLock::new();

/// Usage errors from now on also print NPD's line, bounded to `max_len` (`--npd`).
pub(crate) fn answer_npd(max_len: usize) {
    let _ = NPD_USAGE.set(max_len);
}

/// An error said under a command's own name (`rocm-doctor merge: ...`) instead of the tool's
/// (`rocm-doctor: ...`).
#[derive(Debug)]
pub(crate) struct Scoped {
    pub command: &'static str,
    pub message: String,
}

impl std::fmt::Display for Scoped {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Scoped {}

/// `Err` of a [`Scoped`] error.
pub(crate) fn scoped<T>(command: &'static str, message: String) -> anyhow::Result<T> {
    Err(Scoped { command, message }.into())
}

/// The one way a command ends: its exit code, or its error on stderr ([`said`]) and exit 2,
/// with NPD's line under `--npd`.
pub(crate) fn finish(outcome: Outcome) -> i32 {
    match outcome {
        Ok(code) => code,
        Err(e) if e.downcast_ref::<Scoped>().is_some() => {
            eprintln!("{}", said(&e));
            exit::USAGE_OR_INTERNAL
        }
        Err(e) => usage_error(&format!("{e:#}")),
    }
}

/// How an error is said: `rocm-doctor: ERROR` with its context chain joined by `: `, or
/// `rocm-doctor COMMAND: MESSAGE` for a [`Scoped`] one.
pub(crate) fn said(e: &anyhow::Error) -> String {
    match e.downcast_ref::<Scoped>() {
        Some(s) => format!("rocm-doctor {}: {}", s.command, s.message),
        None => format!("rocm-doctor: {e:#}"),
    }
}

fn usage_error(msg: &str) -> i32 {
    eprintln!("rocm-doctor: {msg}");
    if let Some(max) = NPD_USAGE.get() {
        let line = crate::report::npd::usage_line(msg, *max) + "\n";
        return print_text(&line, exit::USAGE_OR_INTERNAL);
    }
    exit::USAGE_OR_INTERNAL
}

/// Prints text on stdout (through `report::write_stdout`, never `println!`): a reader that went
/// away (`| head -0`, EPIPE) ends the output quietly with `code`, as the default run does; the
/// Rust runtime ignores SIGPIPE, and `println!` would panic on the error (issue 25, item 7).
pub(crate) fn print_text(text: &str, code: i32) -> i32 {
    crate::report::write_stdout::<()>(crate::report::Output::Text(text), code)
}

/// The same, with the text's control characters shown, not obeyed (it quotes what the machine,
/// a pack or a paste says).
pub(crate) fn print_visible(text: &str, code: i32) -> i32 {
    print_text(&crate::report::escape::visible(text), code)
}

/// The validated run configuration of these arguments.
pub(crate) fn config(args: &RunArgs) -> anyhow::Result<Config> {
    args.config().map_err(|e| anyhow::anyhow!("{e}"))
}

/// The Host of the session's root, with the configuration's limits (`--timeout`, `--deadline`).
pub(crate) fn host(args: &RunArgs, cfg: &Config) -> anyhow::Result<Host> {
    args.session()
        .host(Limits::new(cfg.per_call, cfg.deadline))
        .map_err(anyhow::Error::msg)
}

/// The shared set-up: the configuration (its `--only`/`--skip` checked against the registry of
/// `packs` when given) and the Host.
pub(crate) fn setup(
    args: &RunArgs,
    packs: Option<&crate::packs::PackSet>,
) -> anyhow::Result<(Config, Host)> {
    let cfg = config(args)?;
    if let Some(packs) = packs {
        let patterns: Vec<String> = cfg.only.iter().chain(&cfg.skip).cloned().collect();
        crate::registry::Registry::new(packs)
            .validate_selection(&patterns)
            .map_err(anyhow::Error::msg)?;
    }
    let host = host(args, &cfg)?;
    Ok((cfg, host))
}

/// The run's check packs: built-in, checks.d, then `--checks` (docs/check-packs.md).
pub(crate) fn load_packs(args: &RunArgs) -> crate::packs::PackSet {
    let env = |k: &str| std::env::var(k).ok();
    crate::registry::sources::load_all(&env, &args.checks)
}

/// Issue 25, item 5: the run ends at `--deadline` (plus a grace) even when the doctor's own
/// work is stuck (a stalled file, a stdin that never ends): exit 1 as a run that could not
/// decide, or 2 (Unknown) with `--npd`, never a verdict (`host::watchdog`).
pub(crate) fn arm_watchdog(args: &RunArgs, total: std::time::Duration) {
    let started = std::time::Instant::now();
    let on = crate::host::watchdog::OnExpiry {
        code: if args.npd {
            crate::report::npd::UNKNOWN
        } else {
            exit::FAILED
        },
        npd_max: args.npd.then_some(args.npd_max_len),
    };
    crate::host::watchdog::arm(started + total, total, on);
}

/// Relative paths are the user's: absolute against the current directory (`/` when unknown).
pub(crate) fn absolute(paths: &[std::path::PathBuf]) -> Vec<std::path::PathBuf> {
    let cwd = std::env::current_dir().unwrap_or_else(|_| "/".into());
    paths.iter().map(|p| cwd.join(p)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use anyhow::Context;

    #[test]
    fn an_error_is_said_with_its_context_or_under_its_command() {
        let e = Err::<(), _>(std::io::Error::other("disk full"))
            .context("cannot write /x")
            .unwrap_err();
        assert_eq!(said(&e), "rocm-doctor: cannot write /x: disk full");
        let e = scoped::<()>("merge", "--baseline: no such file".into()).unwrap_err();
        assert_eq!(said(&e), "rocm-doctor merge: --baseline: no such file");
        assert_eq!(finish(Ok(exit::FAILED)), exit::FAILED);
        assert_eq!(finish(Err(e)), exit::USAGE_OR_INTERNAL);
    }

    #[test]
    fn relative_paths_are_made_absolute_and_absolute_ones_kept() {
        let cwd = std::env::current_dir().unwrap();
        let got = absolute(&["a/b".into(), "/etc/hosts".into()]);
        assert_eq!(got, vec![cwd.join("a/b"), "/etc/hosts".into()]);
    }
}

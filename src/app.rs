//! The program: parse argv and dispatch to the command's room (`commands`); nothing else.

use crate::cli::{ChecksAction, Cli, Command};
use crate::commands::{self as c, finish};
use crate::report::exit;
use clap::Parser;

pub fn main() -> i32 {
    let code = main_inner();
    if std::env::var_os("ROCM_DOCTOR_RUSAGE").is_some() {
        eprintln!("{}", crate::host::rusage::line());
    }
    code
}

/// `--npd` and `--npd-max-len` read from raw argv, for an argv clap refused (options end at
/// `--`; a bad or missing bound is the default 80).
fn npd_in_argv(argv: &[std::ffi::OsString]) -> Option<usize> {
    let args: Vec<&str> = argv
        .iter()
        .skip(1)
        .filter_map(|a| a.to_str())
        .take_while(|a| *a != "--")
        .collect();
    if !args.contains(&"--npd") {
        return None;
    }
    let mut max = 80;
    for (i, a) in args.iter().enumerate() {
        let v = match a.strip_prefix("--npd-max-len") {
            Some("") => args.get(i + 1).copied(),
            Some(rest) => rest.strip_prefix('='),
            None => None,
        };
        if let Some(n) = v.and_then(|v| v.parse().ok()) {
            max = n;
        }
    }
    Some(max)
}

/// clap's refusal of argv: its message (exit 2), or help and version (exit 0). Under `--npd`
/// NPD's one line also goes to stdout (issue 20).
fn refused(argv: &[std::ffi::OsString], e: &clap::Error) -> i32 {
    let code = if e.use_stderr() {
        exit::USAGE_OR_INTERNAL
    } else {
        exit::OK
    };
    let _ = e.print();
    if let Some(max) = npd_in_argv(argv).filter(|_| e.use_stderr()) {
        // clap's first line, without its `error: ` prefix.
        let text = e.to_string();
        let first = text.lines().next().unwrap_or("");
        let first = first.strip_prefix("error: ").unwrap_or(first);
        let line = crate::report::npd::usage_line(first, max) + "\n";
        c::print_text(&line, code);
    }
    code
}

/// The subcommands whose usage errors NPD may read (`ps`, `log`, `inspect`, `merge` and the
/// probe child never print NPD's line).
fn answers_npd(command: &Option<Command>) -> bool {
    !matches!(
        command,
        Some(
            Command::Inspect { .. }
                | Command::Ps
                | Command::Log { .. }
                | Command::Merge { .. }
                | Command::ProbeLibrary { .. }
        )
    )
}

fn main_inner() -> i32 {
    let argv: Vec<std::ffi::OsString> = std::env::args_os().collect();
    let cli = match Cli::try_parse_from(&argv) {
        Ok(c) => c,
        Err(e) => return refused(&argv, &e),
    };
    let run = &cli.run;
    if run.npd && answers_npd(&cli.command) {
        c::answer_npd(run.npd_max_len);
    }
    finish(match &cli.command {
        None => c::run::main(run),
        Some(Command::Explain { id }) => c::explain::main(id, &c::load_packs(run)),
        Some(Command::Why { text, binary }) => c::why::main(run, text, binary),
        Some(Command::Checks {
            action: ChecksAction::Lint { files },
        }) => c::checks::lint(files),
        Some(Command::DocsChecks) => c::docs_checks::main(),
        Some(Command::ProbeLibrary { kind, path }) => Ok(c::probe_library::main(kind, path)),
        Some(Command::Inspect {
            paths,
            symbols,
            kernels,
            verify_hash,
        }) => {
            let asked = c::inspect::Asked {
                symbols: *symbols,
                kernels: *kernels,
                verify_hash: *verify_hash,
            };
            c::inspect::main(run, paths, &asked)
        }
        Some(Command::Merge {
            inputs,
            expect,
            baseline,
        }) => c::merge::main(inputs, expect.as_deref(), baseline.as_deref(), run.json),
        Some(Command::Completions { shell }) => c::completions::main(*shell),
        Some(Command::Man { out_dir }) => c::man::main(out_dir.as_deref()),
        Some(Command::Ps) => c::ps::main(run),
        Some(Command::Report {
            no_redact,
            output,
            bundle,
        }) => c::report::main(run, !*no_redact, output, bundle.as_deref()),
        Some(Command::Log { file }) => c::log::main(&run.session(), file),
        Some(Command::GenLog {
            iterations,
            devices,
        }) => c::gen_log::main(*iterations, *devices),
    })
}

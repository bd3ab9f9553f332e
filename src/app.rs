//! The program: parse, run, render, exit. Kept thin; everything else is in the library.

use crate::checks::{self, Ctx};
use crate::cli::{Cli, Command, RunArgs};
use crate::config::Config;
use crate::host::{Host, Limits};
use crate::inventory::Inventory;
use crate::registry::Registry;
use crate::report::{self, exit, human, json};
use clap::Parser;

pub fn main() -> i32 {
    let code = main_inner();
    if std::env::var_os("ROCM_DOCTOR_RUSAGE").is_some() {
        eprintln!("{}", crate::host::rusage::line());
    }
    code
}

/// `--npd` mode and its bound, once known: a usage error then also prints NPD's one line on
/// stdout (`UNKNOWN usage: ...`, exit 2), since NPD shows stdout in the node condition and
/// only logs stderr (issue 20).
static NPD_USAGE: std::sync::OnceLock<usize> = std::sync::OnceLock::new();

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

fn main_inner() -> i32 {
    let argv: Vec<std::ffi::OsString> = std::env::args_os().collect();
    let cli = match Cli::try_parse_from(&argv) {
        Ok(c) => c,
        Err(e) => {
            let code = if e.use_stderr() {
                exit::USAGE_OR_INTERNAL
            } else {
                exit::OK
            };
            let _ = e.print();
            if let Some(max) = npd_in_argv(&argv).filter(|_| e.use_stderr()) {
                // clap's first line, without its `error: ` prefix.
                let text = e.to_string();
                let first = text.lines().next().unwrap_or("");
                let first = first.strip_prefix("error: ").unwrap_or(first);
                let line = crate::report::npd::usage_line(first, max) + "\n";
                print_text(&line, code);
            }
            return code;
        }
    };
    if cli.run.npd {
        let _ = NPD_USAGE.set(cli.run.npd_max_len);
    }
    match &cli.command {
        Some(Command::Explain { id }) => explain(id, &load_packs(&cli.run)),
        Some(Command::Why { text, binary }) => why(&cli.run, text, binary),
        Some(Command::Checks {
            action: crate::cli::ChecksAction::Lint { files },
        }) => {
            let (lines, ok) = crate::packs::sources::lint(files);
            let code = if ok { exit::OK } else { exit::FAILED };
            let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
            // A pack file's text (names, messages) may be quoted in the lint's lines.
            print_text(&report::escape::visible(&text), code)
        }
        Some(Command::DocsChecks) => print_text(&checks_markdown(), exit::OK),
        Some(Command::ProbeLibrary { kind, path }) => crate::probe::child_main(kind, path),
        Some(Command::Inspect {
            paths,
            symbols,
            kernels,
            verify_hash,
        }) => crate::commands::inspect(&cli.run, paths, *symbols, *kernels, *verify_hash),
        Some(Command::Merge {
            inputs,
            expect,
            baseline,
        }) => crate::fleet::main(inputs, expect.as_deref(), baseline.as_deref(), cli.run.json),
        Some(Command::Completions { shell }) => match crate::packaging::completions(*shell) {
            Ok(()) => exit::OK,
            Err(e) => usage_error(&format!("cannot write the completions: {e}")),
        },
        Some(Command::Man { out_dir }) => match crate::packaging::man(out_dir.as_deref()) {
            Ok(()) => exit::OK,
            Err(e) => usage_error(&format!("cannot write the man page: {e}")),
        },
        Some(Command::Ps) => crate::commands::ps(&cli.run),
        Some(Command::Report {
            no_redact,
            output,
            bundle,
        }) => report(&cli.run, !*no_redact, output, bundle.as_deref()),
        Some(Command::Log { file }) => crate::commands::log(&cli.run, file),
        Some(Command::GenLog {
            iterations,
            devices,
        }) => match crate::logscan::gen::write(std::io::stdout().lock(), *iterations, *devices) {
            Ok(()) => exit::OK,
            Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => exit::OK,
            Err(e) => usage_error(&e.to_string()),
        },
        None => run(&cli.run),
    }
}

/// Prints text on stdout (through `report::write_stdout`, never `println!`): a reader that went
/// away (`| head -0`, EPIPE) ends the output quietly with `code`, as the default run does; the
/// Rust runtime ignores SIGPIPE, and `println!` would panic on the error (issue 25, item 7).
fn print_text(text: &str, code: i32) -> i32 {
    report::write_stdout::<()>(report::Output::Text(text), code)
}

fn usage_error(msg: &str) -> i32 {
    eprintln!("rocm-doctor: {msg}");
    if let Some(max) = NPD_USAGE.get() {
        let line = crate::report::npd::usage_line(msg, *max) + "\n";
        return print_text(&line, exit::USAGE_OR_INTERNAL);
    }
    exit::USAGE_OR_INTERNAL
}

/// The configuration and Host of a default run (packs loaded, selection validated), or the
/// exit code of a usage error already reported.
fn prepare(args: &RunArgs, packs: &crate::packs::PackSet) -> Result<(Config, Host), i32> {
    let cfg = args.config().map_err(|e| usage_error(&e.to_string()))?;
    let patterns: Vec<String> = cfg.only.iter().chain(&cfg.skip).cloned().collect();
    Registry::new(packs)
        .validate_selection(&patterns)
        .map_err(|e| usage_error(&e))?;
    let host = args
        .session()
        .host(Limits::new(cfg.per_call, cfg.deadline))
        .map_err(|e| usage_error(&e))?;
    Ok((cfg, host))
}

/// `report`: the default run's findings and the machine's facts as a Markdown bug report.
fn report(
    args: &RunArgs,
    redact: bool,
    output: &Option<std::path::PathBuf>,
    bundle: Option<&std::path::Path>,
) -> i32 {
    // The report is Markdown only; these flags choose another output.
    for (set, flag) in [
        (args.json, "--json"),
        (args.npd, "--npd"),
        (args.list_checks, "--list-checks"),
    ] {
        if set {
            return usage_error(&format!("report writes Markdown; {flag} does not apply"));
        }
    }
    // A bundle target that cannot be written is refused before the run.
    let target = bundle.map(crate::bugreport::bundle::Target::of);
    if let Some(Err(e)) = target.as_ref().map(|t| t.check()) {
        return usage_error(&format!("--bundle {e}"));
    }
    let packs = load_packs(args);
    let (cfg, host) = match prepare(args, &packs) {
        Ok(p) => p,
        Err(code) => return code,
    };
    let mut opts = crate::bugreport::Options {
        redact,
        output: output.as_deref(),
        argv: std::env::args_os()
            .map(|a| a.to_string_lossy().into_owned())
            .collect(),
        bundle: None,
    };
    let d = diagnose(&host, &cfg, &packs);
    if let Some(target) = target {
        opts.bundle = Some(crate::bugreport::BundleRequest {
            target,
            json: json_document(&host, &cfg, &d.findings, d.sections.clone()),
            human: report::escape::visible(&d.preamble).into_owned()
                + &human::render(
                    &d.findings,
                    &human::Options {
                        color: false,
                        verbose: args.verbose,
                    },
                ),
        });
    }
    crate::bugreport::run(&host, d.findings, &d.sections, &opts)
}

/// The `--json` document of a run, as [`run`] builds it (for `report --bundle`).
fn json_document(
    host: &Host,
    cfg: &Config,
    findings: &[report::Finding],
    sections: Vec<(&'static str, serde_json::Value)>,
) -> serde_json::Value {
    let driver = crate::gpu::platform::driver(host);
    let section = |k: &str| sections.iter().find(|(n, _)| *n == k).map(|(_, v)| v);
    let fp = crate::report::fingerprint::Fingerprint::from_report(
        section("inventory"),
        section("agents"),
        driver.version.as_deref(),
        driver.kernel_release.as_deref(),
    );
    let name = host_name(host);
    let sysroot = host.fs.root().to_string_lossy();
    json::document(
        &json::Head {
            profile: profile_name(cfg),
            sysroot: &sysroot,
            host: &name,
            strict: cfg.strict,
            fingerprint: &fp,
        },
        findings,
        sections,
    )
}

/// Runs the doctor with these arguments against this machine.
pub fn run(args: &RunArgs) -> i32 {
    let started = std::time::Instant::now();
    let packs = load_packs(args);
    if args.list_checks {
        return print_text(&Registry::new(&packs).listing(), exit::OK);
    }
    let (cfg, host) = match prepare(args, &packs) {
        Ok(p) => p,
        Err(code) => return code,
    };
    arm_watchdog(args, cfg.deadline);
    let Diagnosis {
        mut findings,
        sections,
        preamble,
        telemetry,
        ..
    } = diagnose(&host, &cfg, &packs);
    // The report as `--json` prints it: what `--baseline` compares and `--prometheus` reads.
    let fp = (args.json || args.prometheus || args.baseline.is_some()).then(|| {
        let driver = crate::gpu::platform::driver(&host);
        let section = |k: &str| sections.iter().find(|(n, _)| *n == k).map(|(_, v)| v);
        crate::report::fingerprint::Fingerprint::from_report(
            section("inventory"),
            section("agents"),
            driver.version.as_deref(),
            driver.kernel_release.as_deref(),
        )
    });
    let name = host_name(&host);
    let sysroot = host.fs.root().to_string_lossy();
    let document = |findings: &[report::Finding],
                    sections: Vec<(&'static str, serde_json::Value)>| {
        json::document(
            &json::Head {
                profile: profile_name(&cfg),
                sysroot: &sysroot,
                host: &name,
                strict: cfg.strict,
                fingerprint: fp.as_ref().expect("computed for every document"),
            },
            findings,
            sections,
        )
    };
    // Drift findings are appended before any rendering, so every output and the exit code
    // include them.
    let mut drifts = None;
    if let Some(path) = &args.baseline {
        let now = document(&findings, sections.clone());
        let found = crate::fleet::baseline::findings_for_file(path, &now);
        let usable = !found.iter().any(|f| f.status == report::Status::Error);
        drifts = usable.then(|| {
            found
                .iter()
                .filter(|f| f.status == report::Status::Warn)
                .count()
        });
        findings.extend(found);
    }
    let code = report::exit_code(&findings, cfg.strict);
    if args.npd {
        let (line, npd_code) = crate::report::npd::render(&findings, args.npd_max_len);
        return report::write_stdout::<()>(report::Output::Text(&(line + "\n")), npd_code);
    }
    if args.prometheus {
        let doc = document(&findings, sections);
        let rocm = doc
            .pointer("/inventory/rocm_roots/0/versions/rocm/version")
            .and_then(serde_json::Value::as_str);
        let text = crate::report::prometheus::render(&crate::report::prometheus::Run {
            findings: &findings,
            duration_s: started.elapsed().as_secs_f64(),
            gpus: fp.as_ref().and_then(|f| f.gpu_count),
            version: json::TOOL.version,
            rocm_version: rocm,
            hip_version: fp.as_ref().and_then(|f| f.hip_runtime.as_deref()),
            baseline_drifts: args.baseline.as_ref().and(drifts),
            exit_code: code,
            telemetry: telemetry.as_ref(),
        });
        return report::write_stdout::<()>(report::Output::Text(&text), code);
    }
    if args.json {
        let doc = document(&findings, sections);
        report::write_stdout(report::Output::Json(&doc), code)
    } else {
        let color = human::use_color(args.color, &host.env);
        // The headline and the asm matrix name paths of the machine: shown, not obeyed.
        let mut text = report::escape::visible(&preamble).into_owned()
            + &human::render(
                &findings,
                &human::Options {
                    color,
                    verbose: args.verbose,
                },
            );
        if args.verbose > 0 && !host.fs.is_own_machine() {
            text.push_str(&programs_run_text(&host));
        }
        report::write_stdout::<()>(report::Output::Text(&text), code)
    }
}

/// `programs_run`: every child of a run on another root, once, with how often it ran.
fn programs_run_json(host: &Host) -> serde_json::Value {
    serde_json::Value::Array(
        host.programs_run()
            .iter()
            .map(|r| {
                serde_json::json!({
                    "path": r.path.to_string_lossy(),
                    "host_path": r.host_path.to_string_lossy(),
                    "from_root": r.from_root,
                    "in_chroot": r.in_chroot,
                    "count": r.count,
                })
            })
            .collect(),
    )
}

/// The same for `-v`: a closing paragraph of the human report, when anything ran (a check
/// that needed a run and had none says why itself).
fn programs_run_text(host: &Host) -> String {
    let runs = host.programs_run();
    if runs.is_empty() {
        return String::new();
    }
    let mut s = String::from("\nPrograms run for this root:\n");
    for r in runs {
        let how = match (r.from_root, r.in_chroot) {
            (false, _) => "the doctor's own probe child".to_string(),
            (true, true) => "the root's, in a chroot".to_string(),
            (true, false) => format!("the root's, from outside as {}", r.host_path.display()),
        };
        s.push_str(&format!("  {} ({how}; {}x)\n", r.path.display(), r.count));
    }
    s
}

/// The node's name for fleet summaries: `ROCM_DOCTOR_HOST` (e.g. a DaemonSet's `spec.nodeName`
/// through the downward API), else the diagnosed root's `/proc/sys/kernel/hostname`, else this
/// machine's host name (its own `/proc`).
fn host_name(host: &Host) -> String {
    if let Some(h) = host
        .env
        .get_str("ROCM_DOCTOR_HOST")
        .filter(|h| !h.trim().is_empty())
    {
        return h.trim().to_string();
    }
    if let Ok(t) = host
        .fs
        .read_text(std::path::Path::new("/proc/sys/kernel/hostname"))
    {
        if !t.trim().is_empty() {
            return t.trim().to_string();
        }
    }
    crate::host::open::read_regular(std::path::Path::new("/proc/sys/kernel/hostname"), 4096)
        .ok()
        .map(|h| String::from_utf8_lossy(&h).trim().to_string())
        .filter(|h| !h.is_empty())
        .unwrap_or_else(|| "unknown".into())
}

fn profile_name(cfg: &Config) -> &'static str {
    match cfg.profile {
        crate::config::Profile::Auto => "auto",
        crate::config::Profile::Build => "build",
        crate::config::Profile::Runtime => "runtime",
    }
}

/// What one run produced.
pub struct Diagnosis {
    pub findings: Vec<report::Finding>,
    /// JSON sections beside the findings (`inventory`, `agents`, `asm_caps`).
    pub sections: Vec<(&'static str, serde_json::Value)>,
    /// Text printed before the findings in the human view (the asm-caps matrix).
    pub preamble: String,
    /// The paths the run examined (`why` weighs a pass against the paths a text names).
    pub examined: crate::inventory::Examined,
    /// Per-GPU telemetry when the health checks ran (also the `telemetry` JSON section).
    pub telemetry: Option<report::telemetry::Telemetry>,
}

/// Runs the selected checks on one shared inventory (each tool is asked once per run). The
/// asm-caps probe (`--asm-caps`) is the `asm.*` checks: the first of them to run does it, in
/// its own thread beside the other checks; its matrix and `asm_caps` object are read back here.
pub fn diagnose(host: &Host, cfg: &Config, packs: &crate::packs::PackSet) -> Diagnosis {
    let inv = Inventory::new(host, cfg);
    let asm = checks::AsmSlot::new();
    let ctx = Ctx {
        host,
        inv: &inv,
        cfg,
        asm: &asm,
    };
    let reg = Registry::new(packs);
    let (rust, packs): (Vec<_>, Vec<_>) = reg
        .selected(&cfg.only, &cfg.skip)
        .into_iter()
        .partition(|e| e.origin.is_none());
    // Rust checks, the packs that did not load, then the pack checks: one engine for both.
    let findings = std::thread::scope(|s| {
        let packs = s.spawn(|| crate::registry::run(&ctx, &packs));
        let mut findings = crate::registry::run(&ctx, &rust);
        findings.extend(crate::registry::load_errors(&reg, &cfg.only, &cfg.skip));
        findings.extend(packs.join().unwrap_or_default());
        crate::registry::apply_policy(&mut findings, &cfg.policy);
        findings
    });
    let mut sections = Vec::new();
    let mut preamble = String::new();
    if let Some(out) = asm.into_inner() {
        sections.push(("asm_caps", out.caps));
        if !out.matrix.is_empty() {
            preamble = out.matrix + "\n";
        }
    }
    let headline = inv.headline();
    if !headline.is_empty() {
        preamble = format!("{headline}\n\n{preamble}");
    }
    sections.insert(0, ("inventory", inv.to_json()));
    if let Some(t) = inv.gpu_if_computed() {
        sections.push(("agents", serde_json::json!(t.agents)));
    }
    if let Some(l) = inv.gpu_layers_if_computed() {
        sections.push(("gpu_layers", serde_json::json!(l)));
    }
    sections.push((
        "environment",
        crate::fleet::baseline::environment(&host.env),
    ));
    // Per-GPU telemetry from what the health and kernel-log checks read (issue 26, item 5).
    let telemetry = crate::inventory::telemetry::of(&inv);
    if let Some(t) = &telemetry {
        sections.push(("telemetry", serde_json::json!(t)));
    }
    // On another root, which programs ran (issue 25, item 3; docs/json.md).
    if !host.fs.is_own_machine() {
        sections.push(("programs_run", programs_run_json(host)));
    }
    // The checks are done: what their probes left running (outside their process groups) is
    // killed now and named, and what could not be killed is said (docs/security.md, item 7).
    let left = crate::host::sweep_leftovers();
    if !left.is_empty() {
        for l in &left {
            match &l.error {
                // A process names itself (comm): shown, not obeyed.
                None => eprintln!(
                    "rocm-doctor: killed process {} ({}) left running by a probe",
                    l.pid,
                    crate::report::escape::visible(&l.name)
                ),
                Some(e) => eprintln!(
                    "rocm-doctor: could not kill process {} ({}) left running by a probe: {e}",
                    l.pid,
                    crate::report::escape::visible(&l.name)
                ),
            }
        }
        sections.push(("leftover_processes", serde_json::json!(left)));
    }
    Diagnosis {
        findings,
        sections,
        preamble,
        examined: inv.examined(),
        telemetry,
    }
}

/// The run's check packs: built-in, checks.d, then `--checks` (docs/check-packs.md).
fn load_packs(args: &RunArgs) -> crate::packs::PackSet {
    let env = |k: &str| std::env::var(k).ok();
    crate::packs::sources::load_all(&env, &args.checks)
}

fn explain(id: &str, packs: &crate::packs::PackSet) -> i32 {
    use std::fmt::Write;
    let reg = Registry::new(packs);
    let entry = reg.get(id);
    let mut out = String::new();
    if let Some(o) = entry.and_then(|e| e.origin) {
        let _ = writeln!(out, "(from check pack {o})");
    }
    match entry.map(|e| e.doc) {
        Some(d) => {
            let _ = writeln!(out, "{} — {}\ncategory: {}\n", d.id, d.title, d.category);
            let _ = writeln!(out, "What it checks\n  {}\n", d.what.trim());
            let _ = writeln!(out, "Why it matters\n  {}\n", d.why.trim());
            let _ = writeln!(out, "How to fix\n  {}", d.fix.trim());
            let _ = writeln!(
                out,
                "\nRepair action\n  {} ({}), unless a finding names its own",
                d.action,
                d.action.meaning()
            );
            if !d.sources.is_empty() {
                let _ = writeln!(out, "\nSources");
                for s in &d.sources {
                    let _ = writeln!(out, "  - {s}");
                }
            }
            // A pack's docs are the pack author's text.
            print_text(&report::escape::visible(&out), exit::OK)
        }
        None => usage_error(&format!("no check '{id}' (see --list-checks)")),
    }
}

/// Issue 25, item 5: the run ends at `--deadline` (plus a grace) even when the doctor's own
/// work is stuck (a stalled file, a stdin that never ends): exit 1 as a run that could not
/// decide, or 2 (Unknown) with `--npd`, never a verdict (`host::watchdog`).
fn arm_watchdog(args: &RunArgs, total: std::time::Duration) {
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

/// `why [TEXT|-]`: recognise symptoms, run only the checks that judge their causes, answer.
fn why(args: &RunArgs, words: &[std::ffi::OsString], binaries: &[std::path::PathBuf]) -> i32 {
    use crate::packs::why as w;
    if let Ok(total) = crate::config::seconds("deadline", args.deadline) {
        arm_watchdog(args, total);
    }
    let packs = std::sync::Arc::new(load_packs(args));
    let text = if words.is_empty() || (words.len() == 1 && words[0] == "-") {
        // Issue 25, item 5: the whole stream is read, per line, with bounded memory; what was
        // not kept is said.
        let _w = crate::host::watchdog::Waiting::on("standard input to end".into());
        match w::read_input(&packs, std::io::stdin().lock()) {
            Ok((text, unread)) => {
                if let Some(n) = unread.note() {
                    eprintln!("rocm-doctor why: stdin: {n}");
                }
                text
            }
            Err(e) => return usage_error(&format!("cannot read stdin: {e}")),
        }
    } else {
        // Lossy, as stdin is read: a log line with a stray Latin-1 byte is still matched.
        let words: Vec<_> = words.iter().map(|w| w.to_string_lossy()).collect();
        words.join(" ")
    };
    let hits = w::recognise(&packs, &text);
    if hits.is_empty() {
        return why_unrecognised(args, &packs, &text);
    }
    let mut cfg = match args.config() {
        Ok(c) => c,
        Err(e) => return usage_error(&e.to_string()),
    };
    let host = match args.session().host(Limits::new(cfg.per_call, cfg.deadline)) {
        Ok(h) => h,
        Err(e) => return usage_error(&e),
    };
    // The failing file itself, judged as `inspect` judges it (its findings are
    // libs.code-objects findings, which the code-object symptoms name).
    let mut from_binaries = Vec::new();
    if !binaries.is_empty() {
        let cwd = std::env::current_dir().unwrap_or_else(|_| "/".into());
        let abs: Vec<std::path::PathBuf> = binaries.iter().map(|p| cwd.join(p)).collect();
        let opts = crate::inspect::Options::default();
        from_binaries = crate::inspect::findings(&host, &cfg, &abs, &opts);
    }
    // Symptoms are judged in groups by the value they carry from the text (`[symptom.with]`):
    // a processor one message names (clang's `invalid target ID 'gfx1200'`, rocBLAS's `for GPU
    // arch : gfx942`) is judged beside --isa for that symptom's checks only, so it cannot
    // confirm another symptom of the same log. Each group runs only its symptoms' checks.
    // A symptom whose checks run under the runtime profile (a "no GPU" message: a machine
    // without one confirms it) is judged in a group of its own too.
    type Key = (Option<String>, bool);
    let key_of = |h: &w::Hit| -> Key {
        (
            h.carried_isa().map(str::to_string),
            h.symptom.runtime_profile,
        )
    };
    type Group = (
        Key,
        Vec<String>,
        Vec<crate::report::Finding>,
        crate::inventory::Examined,
    );
    let mut groups: Vec<Group> = Vec::new();
    for h in &hits {
        let key = key_of(h);
        let i = match groups.iter().position(|g| g.0 == key) {
            Some(i) => i,
            None => {
                groups.push((key, Vec::new(), Vec::new(), Default::default()));
                groups.len() - 1
            }
        };
        for c in &h.symptom.checks {
            // Every reference was checked when the packs were loaded (a typo breaks its pack).
            if !groups[i].1.contains(c) {
                groups[i].1.push(c.clone());
            }
        }
    }
    cfg.skip.clear();
    cfg.asm = None;
    for ((isa, runtime), only, findings, examined) in &mut groups {
        if !only.is_empty() {
            let mut c = cfg.clone();
            c.only = only.clone();
            if *runtime {
                c.profile = crate::config::Profile::Runtime;
            }
            // Validated by the inventory like an AMDGPU_TARGETS entry (a malformed value is
            // reported as an invalid ISA).
            c.isas_from_text = isa.iter().cloned().collect();
            let d = diagnose(&host, &c, &packs);
            *findings = d.findings;
            *examined = d.examined;
        }
        findings.extend(from_binaries.iter().cloned());
    }
    // The paths the text names (compilers, roots, libraries): a pass rules a cause out only
    // for what the run examined.
    let named = crate::packs::paths::named_paths(&text);
    let resolve = |p: &std::path::Path| host.fs.canonicalize(p).ok();
    let exists = |p: &std::path::Path| host.fs.exists(p);
    let mut judged: Vec<w::Judged> = hits
        .iter()
        .map(|h| {
            let key = key_of(h);
            let g = groups
                .iter()
                .find(|g| g.0 == key)
                .expect("every hit has a group");
            let u = w::unexamined_for(h.symptom, &g.2, &named, &g.3, &resolve, &exists);
            (h, g.2.as_slice(), u)
        })
        .collect();
    // The machine decides what the text cannot: causes confirmed here first, those ruled out
    // here last, the text's own order within each.
    judged.sort_by_key(|(h, f, u)| w::machine_order(w::final_answer(h.symptom, f, u)));
    let code = if judged.iter().any(|(h, f, u)| {
        !h.symptom.harmless && w::final_answer(h.symptom, f, u) == w::Answer::Confirmed
    }) {
        exit::FAILED
    } else {
        exit::OK
    };
    if args.json {
        let mut doc = w::render_json(&judged, code);
        w::add_origins(&mut doc, &text);
        report::write_stdout(report::Output::Json(&doc), code)
    } else {
        // The text quotes the paste: its control characters are shown, not obeyed.
        let text = w::render_human(&judged) + &w::origins_human(&text);
        report::write_stdout::<()>(report::Output::Text(&report::escape::visible(&text)), code)
    }
}

/// `why` on text that matches no symptom: says so first (human and JSON alike), then gives the
/// default checks' findings, so an unknown error never reads as a clean bill of health.
fn why_unrecognised(
    args: &RunArgs,
    packs: &std::sync::Arc<crate::packs::PackSet>,
    text: &str,
) -> i32 {
    let known = packs.symptoms().count();
    let note = format!(
        "NOT RECOGNISED: this text matches none of the {known} known symptoms, so nothing below \
         is a diagnosis of it. The default checks of this machine follow."
    );
    if !args.json {
        let origins = crate::packs::why::origins_human(text);
        print_text(
            &report::escape::visible(&format!("{note}\n{origins}\n")),
            exit::OK,
        );
        return run(args);
    }
    let cfg = match args.config() {
        Ok(c) => c,
        Err(e) => return usage_error(&e.to_string()),
    };
    let host = match args.session().host(Limits::new(cfg.per_call, cfg.deadline)) {
        Ok(h) => h,
        Err(e) => return usage_error(&e),
    };
    let findings = diagnose(&host, &cfg, packs).findings;
    let code = report::exit_code(&findings, cfg.strict);
    let mut doc = crate::packs::why::render_unrecognised_json(&note, &findings, code);
    crate::packs::why::add_origins(&mut doc, text);
    report::write_stdout(report::Output::Json(&doc), code)
}

/// docs/checks.md, generated from the registry: every built-in check, Rust and pack alike.
pub fn checks_markdown() -> String {
    Registry::new(&crate::packs::sources::built_in()).markdown()
}

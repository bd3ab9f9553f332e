//! Command-line definitions. The `--help` text is documentation: keep it exact.

use crate::checkdoc::{Category, CheckId};
use crate::config::{AsmCompat, AsmRequest, Config, ConfigError};
/// The profile and colour choice are run configuration (`config`); clap parses them here.
pub(crate) use crate::config::{ColorChoice, Profile};
use crate::isa::TargetId;
use clap::{Args, Parser, Subcommand};
use std::path::PathBuf;

const AFTER_HELP: &str = "\
Exit codes:
  0  no failure (warnings allowed unless --strict)
  1  at least one check failed or could not decide (error); with --strict, a warning too
  2  usage error, or the doctor itself could not run

Profiles:
  auto     judge the toolchain, and the GPUs if the machine shows any (default)
  build    toolchain only: absent GPUs are skipped, never failed (Nix checkPhase, packaging CI)
  runtime  GPUs are required: their absence fails

Examples:
  rocm-doctor                         diagnose this machine
  rocm-doctor -v                      ... with the evidence behind every verdict
  rocm-doctor --isa gfx1030           ... and compile a HIP kernel for gfx1030
  rocm-doctor --profile build --json  machine-readable, for CI (schema: docs/json.md)
  rocm-doctor --isa gfx90a --asm-caps Tensile's assembler capabilities for gfx90a
  rocm-doctor explain toolchain.lld   what a check does, why it matters, how to fix it
  rocm-doctor --profile runtime --npd node-problem-detector plugin: one line, exit 0/1/2
  rocm-doctor merge reports/          fleet summary of many --json reports (docs/fleet.md)
  rocm-doctor --baseline good.json    drift from a known-good node's saved --json report
  rocm-doctor --prometheus            node_exporter textfile-collector metrics on stdout
  rocm-doctor why 'clang: error: cannot find ROCm device library'
                                      what an error means here, and its fix
  rocm-doctor --checks site.toml      add a site's check pack (docs/check-packs.md)
  rocm-doctor report > report.md      a bug report to paste into an issue (docs/report.md)";

#[derive(Debug, Parser)]
#[command(
    name = "rocm-doctor",
    version,
    about = "Tells whether an AMD ROCm toolchain and its GPUs work, and if not, exactly what to \
        fix",
    after_help = AFTER_HELP
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Option<Command>,

    #[command(flatten)]
    pub run: RunArgs,
}

#[derive(Debug, Args, Clone)]
pub struct RunArgs {
    /// Print one JSON document on stdout and nothing else (schema: docs/json.md).
    #[arg(long, global = true)]
    pub json: bool,

    /// Show the evidence behind every finding (-vv: passing findings' evidence too).
    #[arg(short, long, action = clap::ArgAction::Count, global = true)]
    pub verbose: u8,

    /// When to use colours. `auto` uses them on a terminal unless NO_COLOR is set.
    #[arg(long, value_enum, default_value_t = ColorChoice::Auto, global = true)]
    pub color: ColorChoice,

    /// Exit 1 on warnings too, not only on failures.
    #[arg(long)]
    pub strict: bool,

    /// Fail `gpu.layers` when fewer than N GPUs are usable by ROCr (a node that lost a GPU);
    /// without it a GPU lost between layers fails and no GPU at all is a skip.
    #[arg(long, value_name = "N")]
    pub expect_gpus: Option<u32>,

    /// The site policy (thresholds, ignore rules, severity and action overrides; docs/fleet.md).
    /// Default: /etc/rocm-doctor/policy.toml when it exists. Read only if trusted: as root,
    /// root's file on a path only root may write.
    #[arg(long, value_name = "FILE")]
    pub policy: Option<PathBuf>,

    /// Which checks judge what: `build` never fails for missing GPUs, `runtime` requires one.
    #[arg(long, value_enum, default_value_t = Profile::Auto)]
    pub profile: Profile,

    /// Run only these checks (ids or id prefixes such as `toolchain.`; repeatable, comma lists).
    #[arg(long, value_delimiter = ',', value_name = "ID")]
    pub only: Vec<String>,

    /// Do not run these checks (ids or id prefixes; repeatable, comma lists).
    #[arg(long, value_delimiter = ',', value_name = "ID")]
    pub skip: Vec<String>,

    /// List every check with its id, category and title, then exit.
    #[arg(long)]
    pub list_checks: bool,

    /// Target ISA to judge the toolchain for, e.g. gfx1030 or gfx90a:xnack+ (repeatable, comma
    /// lists). Default: AMDGPU_TARGETS / GPU_TARGETS / PYTORCH_ROCM_ARCH, then the GPUs present.
    /// With --asm-caps, `tensile` selects Tensile's SupportedISA list.
    #[arg(long, value_delimiter = ',', value_name = "ISA", global = true)]
    pub isa: Vec<String>,

    /// Diagnose the machine rooted at DIR instead of `/` (fixture trees, chroots, containers'
    /// root filesystems). Tools are still run from the paths found inside DIR.
    #[arg(
        long,
        value_name = "DIR",
        default_value = "/",
        global = true,
        value_parser = absolute_dir()
    )]
    pub sysroot: PathBuf,

    /// A host root mounted read-only is the live host, not a fixture (node-problem-detector's
    /// pod, docs/fleet.md): files come from DIR; device nodes, hsa_init and processes are
    /// judged as this process sees them. Not with --sysroot.
    #[arg(
        long,
        value_name = "DIR",
        global = true,
        conflicts_with = "sysroot",
        value_parser = absolute_dir()
    )]
    pub host_root: Option<PathBuf>,

    /// Run the programs of the --sysroot (clang, hipcc, pack commands) to judge them. Default:
    /// never executed, judged from their files. With this flag they are resolved inside DIR,
    /// run with a scrubbed environment (no tokens or keys) and, as root, after chroot into DIR;
    /// the report lists them (programs_run). Run only roots you trust (docs/security.md).
    #[arg(long, global = true)]
    pub run_root_programs: bool,

    /// The ROCm root to judge first (like ROCM_PATH, but wins over it).
    #[arg(long, value_name = "DIR")]
    pub rocm_path: Option<PathBuf>,

    /// The clang to judge (default: HIP_CLANG_PATH, the ROCm root's clang, amdclang++, clang++,
    /// the clang hipcc is configured for, then the newest /usr/lib/llvm-N).
    #[arg(long, value_name = "PATH")]
    pub clang: Option<PathBuf>,

    /// Time limit for each child process, in seconds.
    #[arg(long, value_name = "SECS", default_value_t = 20.0)]
    pub timeout: f64,

    /// Time limit for the whole run, in seconds: children still running then are killed and
    /// their checks end as `error`.
    #[arg(long, value_name = "SECS", default_value_t = 120.0)]
    pub deadline: f64,

    /// Probe the assembler like Tensile's GetAsmCaps and print the capability matrix.
    #[arg(long)]
    pub asm_caps: bool,

    /// With --asm-caps: the assembler to probe (default: as Tensile resolves it).
    #[arg(long, value_name = "PATH")]
    pub assembler: Option<PathBuf>,

    /// With --asm-caps: one assembler call per probe, in Tensile's order (slow, exact method).
    #[arg(long)]
    pub no_batch: bool,

    /// With --asm-caps: the Tensile variant to emulate (`current` or `6.2`).
    #[arg(long, value_name = "VERSION", default_value = "current")]
    pub tensile_compat: String,

    /// node-problem-detector custom plugin mode: one line of at most --npd-max-len bytes on
    /// stdout (the worst finding first), exit 0 OK, 1 a check failed (NonOK), 2 the doctor could
    /// not decide (Unknown: a check error, a tool past its timeout, a usage error). docs/fleet.md.
    #[arg(long, conflicts_with = "json")]
    pub npd: bool,

    /// Print the run in Prometheus text format for node_exporter's textfile collector: check
    /// verdicts (one-hot per status), finding counts, run duration, GPU count, versions, and
    /// with --baseline the drift count. Exit codes as for --json (docs/fleet.md).
    #[arg(long, conflicts_with_all = ["json", "npd"])]
    pub prometheus: bool,

    /// Compare this node with a known-good report saved with --json (ROCm, HIP runtime and
    /// driver versions, GPU count and models, firmware, partitions, key environment, check
    /// verdicts): each drift is a `fleet.baseline` warning; an unusable file is an error.
    #[arg(long, value_name = "GOOD.json")]
    pub baseline: Option<PathBuf>,

    /// With --npd: the message bound in bytes (NPD's `max_output_length`, default 80).
    #[arg(long, value_name = "BYTES", default_value_t = 80)]
    pub npd_max_len: usize,

    /// Also load the check packs in this file or directory of *.toml (repeatable), after the
    /// built-in ones, /etc/rocm-doctor/checks.d and ~/.config/rocm-doctor/checks.d
    /// (docs/check-packs.md).
    #[arg(long, value_name = "DIR|FILE", global = true)]
    pub checks: Vec<PathBuf>,

    /// Read the kernel log of the last N boots (this one included) where the system keeps it
    /// (a persistent journal, rotated kern.log files) and report per GPU what happened in which
    /// boot (check kernel.history, docs/kernlog.md). Default: 5 with --npd and --prometheus,
    /// else off; 0 or 1 turns it off.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u16).range(0..=50))]
    pub boots: Option<u16>,

    /// With --asm-caps: compare with a saved result (the JSON `asm_caps` object) and fail on
    /// any difference.
    #[arg(long, value_name = "FILE")]
    pub expect: Option<PathBuf>,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Explain a check: what it checks, why it matters, how to fix it.
    Explain {
        /// The check id (see --list-checks).
        id: String,
    },
    /// List the GPU code that binaries, libraries and directories carry (bundles, CCOB, code
    /// objects, Tensile libraries) and whether each GPU (or --isa) would find a code object.
    Inspect {
        /// Files or directories to inspect.
        #[arg(required = true, value_name = "PATH")]
        paths: Vec<PathBuf>,
        /// Also resolve DT_NEEDED like the loader and list undefined symbols (like `ldd -r`).
        #[arg(long)]
        symbols: bool,
        /// Also list kernel names.
        #[arg(long)]
        kernels: bool,
        /// Check the MD5 hash of every compressed bundle (default: zlib bundles only, where
        /// corruption is known; zstd frames fail to decode or miss their size when corrupt).
        #[arg(long)]
        verify_hash: bool,
    },
    /// Fold many --json reports (files, directories of *.json, or `-` for stdin, one document
    /// per line or per file, with or without `host: ` prefixes) into one fleet summary: nodes by
    /// status, failing checks grouped by cause, stack outliers, unusable inputs. docs/fleet.md.
    Merge {
        /// Report files, directories, or `-` (stdin).
        #[arg(required = true, value_name = "REPORT|DIR|-")]
        inputs: Vec<PathBuf>,
        /// Host names that must have sent a report (one per line, or space/comma separated);
        /// those without one are listed as missing.
        #[arg(long, value_name = "FILE")]
        expect: Option<PathBuf>,
        /// Compare every node's report with this known-good report (saved with --json) and
        /// list, per drift kind, the nodes that drift.
        #[arg(long, value_name = "GOOD.json")]
        baseline: Option<PathBuf>,
    },
    /// Summarise a HIP runtime AMD_LOG_LEVEL log (plain, .gz, .zst; `-` = stdin): processes,
    /// devices, queues, API calls and their errors, kernels, code objects, where each thread
    /// stopped (docs/log.md).
    Log {
        /// The log file, or `-` for stdin.
        #[arg(value_name = "FILE")]
        file: PathBuf,
    },
    /// List the processes holding /dev/kfd or an AMD render node: user, command line, container,
    /// GPUs, VRAM; and what could not be seen, and why (docs/ps.md). Honours --sysroot.
    Ps,
    /// Recognise a pasted error message (or a whole build/run log on stdin) and check its
    /// likely causes on this machine: the cause, the evidence found now, the fix. Exit 1 when a
    /// cause is confirmed here; unrecognised text runs the default checks (docs/check-packs.md).
    Why {
        /// The message (words are joined), `-` / nothing to read stdin, or one word naming a
        /// regular file (a saved log), read as stdin is. A paste may begin with `-` (a Markdown
        /// bullet, a `--` banner): it is text, not an option.
        // Not UTF-8 is taken as stdin is (invalid bytes become U+FFFD; issue 25, item 7).
        #[arg(value_name = "TEXT|-", allow_hyphen_values = true)]
        text: Vec<std::ffi::OsString>,
        /// The program or library that failed: its code objects and bundles are judged too
        /// (as `inspect` does), against the GPUs or --isa (repeatable).
        #[arg(long, value_name = "FILE")]
        binary: Vec<PathBuf>,
    },
    /// Write a bug report in Markdown, ready to paste into an issue: the findings of the default
    /// run, versions, GPUs, the ROCm/HIP/HSA/GPU environment variables, in collapsible sections.
    /// The run flags apply as for the default run; those not listed here go before `report`
    /// (`rocm-doctor --profile build report`). User and host names are replaced by <user> and
    /// <host> unless --no-redact. Exit 0 when written, 2 when it cannot be (docs/report.md).
    Report {
        /// Keep user names and host names as they are.
        #[arg(long)]
        no_redact: bool,
        /// Write the report to FILE instead of stdout (the only file the doctor writes outside
        /// its temp dir, and only when named here).
        #[arg(long, value_name = "FILE")]
        output: Option<PathBuf>,
        /// Also keep the evidence: write DIR (new or empty), or FILE.tar.gz (new), with the
        /// --json and human reports, this report, the kernel log, the GPUs' sysfs files and the
        /// output of lspci, rocminfo and amd-smi when installed, and a manifest.json (each file's
        /// source, sha256, what was left out and why); redacted like the report.
        #[arg(long, value_name = "DIR|FILE.tar.gz")]
        bundle: Option<PathBuf>,
    },
    /// Check packs: `lint FILE...` validates pack files (exit 0 all valid, 1 a file has
    /// errors, 2 usage error); errors are `file:line:column: message`.
    Checks {
        #[command(subcommand)]
        action: ChecksAction,
    },
    /// Print a shell completion script on stdout (install: docs/packaging.md).
    Completions {
        /// The shell.
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
    /// Print the man page (roff) on stdout, or write rocm-doctor.1 and one page per
    /// subcommand into DIR (docs/man is generated with this).
    #[command(hide = true)]
    Man {
        /// Write every page into this directory instead of printing rocm-doctor.1.
        #[arg(long, value_name = "DIR")]
        out_dir: Option<PathBuf>,
    },
    /// Internal: write a synthetic AMD_LOG_LEVEL log shaped like seed 003 (benchmarks).
    #[command(hide = true)]
    GenLog {
        /// GEMM iterations (seed 003: 127644).
        #[arg(long, default_value_t = 1000)]
        iterations: u64,
        /// Devices the iterations rotate over.
        #[arg(long, default_value_t = 8)]
        devices: u64,
    },
    /// Print the checks reference in Markdown (docs/checks.md is generated from this).
    #[command(hide = true)]
    DocsChecks,
    /// Internal: load a vendor library in this child process and report on stdout.
    #[command(hide = true)]
    ProbeLibrary {
        /// `hip`, `hsa` or `comgr`.
        kind: String,
        /// Path of the shared library to load.
        path: PathBuf,
    },
}

#[derive(Debug, Subcommand)]
pub enum ChecksAction {
    /// Validate pack files: every problem as `file:line:column: message`.
    Lint {
        #[arg(required = true, value_name = "FILE")]
        files: Vec<PathBuf>,
    },
}

/// `--sysroot`/`--host-root` made absolute against the working directory when parsed: a
/// relative root would name another directory for every child the doctor starts in its temp
/// dir (issue 25, item 7). Lexical (`std::path::absolute`): links inside are left to the
/// rooted reads.
fn absolute_dir() -> impl clap::builder::TypedValueParser<Value = PathBuf> {
    use clap::builder::TypedValueParser;
    clap::builder::PathBufValueParser::new().map(|p: PathBuf| std::path::absolute(&p).unwrap_or(p))
}

impl RunArgs {
    /// The machine looked at and the output settings, for the subcommands.
    pub(crate) fn session(&self) -> crate::config::Session {
        let (sysroot, root_mode) = match &self.host_root {
            Some(dir) => (dir.clone(), crate::host::RootMode::HostRoot),
            None => (self.sysroot.clone(), crate::host::RootMode::Fixture),
        };
        crate::config::Session {
            sysroot,
            root_mode,
            run_root_programs: self.run_root_programs,
            json: self.json,
            verbose: self.verbose,
        }
    }

    /// The validated run configuration.
    pub(crate) fn config(&self) -> Result<Config, ConfigError> {
        let a = self;
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
        let asm = asm_request(a).map_err(ConfigError::Asm)?;
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
                None => skip.push(Category::Asm.as_str().into()),
                Some(r) if r.expect.is_none() => skip.push(CheckId::AsmExpect.into()),
                Some(_) => {}
            }
        }
        // Earlier boots are read when asked (`--boots N`) and in the fleet modes, whose nodes
        // were often rebooted to clear the very fault (docs/kernlog.md, "Earlier boots").
        let boots = match a.boots {
            Some(n) => usize::from(n),
            None if a.npd || a.prometheus => crate::kernlog::history::DEFAULT_BOOTS,
            None => 0,
        };
        if only.is_empty() && boots < 2 {
            skip.push(CheckId::KernelHistory.into());
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
            per_call: crate::config::seconds("timeout", a.timeout)?,
            deadline: crate::config::seconds("deadline", a.deadline)?,
            strict: a.strict,
            asm,
            boots,
            expect_gpus: a.expect_gpus,
            policy: crate::policy::Policy::load(a.policy.as_deref())
                .map_err(ConfigError::Policy)?,
        })
    }
}

/// Validates the asm flags. `Ok(None)` when `--asm-caps` is not given. The expect file is an
/// input of the run (like argv), read here, not a fact of the judged machine.
fn asm_request(a: &RunArgs) -> Result<Option<AsmRequest>, String> {
    let compat = AsmCompat::parse(&a.tensile_compat)?;
    if !a.asm_caps {
        for (given, flag) in [
            (a.assembler.is_some(), "--assembler"),
            (a.no_batch, "--no-batch"),
            (a.expect.is_some(), "--expect"),
        ] {
            if given {
                return Err(format!("{flag} only applies with --asm-caps"));
            }
        }
        return Ok(None);
    }
    if a.assembler
        .as_ref()
        .is_some_and(|p| p.as_os_str().is_empty())
    {
        return Err("--assembler: empty path".into());
    }
    let expect = match &a.expect {
        None => None,
        Some(p) => {
            // A regular file only, opened without blocking, capped (issue 25, item 5).
            let bytes = crate::host::open::open_argument(p)
                .and_then(|f| {
                    f.read_capped(16 << 20)
                        .map_err(|e| format!("{}: {e}", p.display()))
                })
                .map_err(|e| format!("--expect {e}"))?;
            let map = crate::asm::expect::load(&String::from_utf8_lossy(&bytes))
                .map_err(|e| format!("--expect {}: {e}", p.display()))?;
            Some((p.clone(), map))
        }
    };
    Ok(Some(AsmRequest {
        assembler: a.assembler.clone(),
        serial: a.no_batch,
        compat,
        expect,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Config;
    use clap::Parser;

    fn cfg(argv: &[&str]) -> Config {
        let cli = Cli::try_parse_from(std::iter::once("rocm-doctor").chain(argv.iter().copied()))
            .unwrap();
        cli.run.config().unwrap()
    }

    #[test]
    fn the_help_names_only_real_checks() {
        let fams: Vec<&str> = Category::ALL.iter().map(|c| c.as_str()).collect();
        let named = crate::checkdoc::mentioned_ids(AFTER_HELP, &fams);
        assert!(!named.is_empty(), "the examples name a check");
        for id in named {
            assert!(id.parse::<CheckId>().is_ok(), "the help names {id}");
        }
    }

    #[test]
    fn asm_checks_are_opt_in() {
        let c = cfg(&[]);
        assert!(c.asm.is_none());
        assert_eq!(c.skip, ["asm", "kernel.history"]);
        let c = cfg(&["--asm-caps"]);
        assert!(c.asm.is_some());
        assert_eq!(c.skip, ["asm.expect", "kernel.history"]);
        // Named by --only, they run (and say "not requested" without --asm-caps).
        let c = cfg(&["--only", "asm.caps"]);
        assert!(c.skip.is_empty());
        let e = Cli::try_parse_from(["rocm-doctor", "--no-batch"])
            .unwrap()
            .run
            .config()
            .unwrap_err();
        assert_eq!(e.to_string(), "--no-batch only applies with --asm-caps");
    }

    #[test]
    fn earlier_boots_are_read_when_asked_and_in_fleet_modes() {
        let history = |c: &Config| !c.skip.iter().any(|s| s == "kernel.history");
        let c = cfg(&[]);
        assert_eq!((c.boots, history(&c)), (0, false));
        let c = cfg(&["--boots", "3"]);
        assert_eq!((c.boots, history(&c)), (3, true));
        for fleet in ["--npd", "--prometheus"] {
            let c = cfg(&[fleet]);
            assert_eq!((c.boots, history(&c)), (5, true), "{fleet}");
        }
        let c = cfg(&["--npd", "--boots", "0"]);
        assert_eq!((c.boots, history(&c)), (0, false));
        assert!(Cli::try_parse_from(["rocm-doctor", "--boots", "51"]).is_err());
    }
}

//! `rocm-doctor report [--no-redact] [--output FILE] [--bundle DIR|FILE.tar.gz]`: the default
//! run's findings and the machine's facts as a Markdown bug report (`bugreport`), and the
//! evidence bundle.

use super::run::{diagnose, DocHead};
use super::Outcome;
use crate::bugreport::{self, bundle, redact::Redactor, KernelLogRead};
use crate::cli::RunArgs;
use crate::host::Host;
use crate::report::{exit, human};
use anyhow::Context;
use serde_json::Value;
use std::path::{Path, PathBuf};

/// What the `report` subcommand was asked for.
#[derive(Debug, Clone)]
pub(crate) struct Options<'a> {
    /// Replace user and host names (default; `--no-redact` turns it off).
    pub redact: bool,
    /// Write here instead of stdout (`--output FILE`): the only file the doctor writes outside
    /// its temp dir, and only because the user named it.
    pub output: Option<&'a Path>,
    /// The command line as typed (`argv`), shown at the end of the report.
    pub argv: Vec<String>,
    /// `--bundle DIR|FILE.tar.gz`: the evidence bundle, with the run's other documents.
    pub bundle: Option<BundleRequest>,
}

/// What `--bundle` adds to the report: where, and the documents of the same run that only the
/// caller can render (the `--json` document and the human report).
#[derive(Debug, Clone)]
pub(crate) struct BundleRequest {
    pub target: bundle::Target,
    pub json: Value,
    pub human: String,
}

pub(crate) fn main(
    args: &RunArgs,
    redact: bool,
    output: &Option<PathBuf>,
    bundle: Option<&Path>,
) -> Outcome {
    // The report is Markdown only; these flags choose another output.
    for (set, flag) in [
        (args.json, "--json"),
        (args.npd, "--npd"),
        (args.list_checks, "--list-checks"),
    ] {
        if set {
            anyhow::bail!("report writes Markdown; {flag} does not apply");
        }
    }
    // A bundle target that cannot be written is refused before the run.
    let target = bundle.map(bundle::Target::of);
    if let Some(Err(e)) = target.as_ref().map(|t| t.check()) {
        anyhow::bail!("--bundle {e}");
    }
    let packs = super::load_packs(args);
    let (cfg, host) = super::setup(args, Some(&packs))?;
    let mut opts = Options {
        redact,
        output: output.as_deref(),
        argv: std::env::args_os()
            .map(|a| a.to_string_lossy().into_owned())
            .collect(),
        bundle: None,
    };
    let d = diagnose(&host, &cfg, &packs);
    if let Some(target) = target {
        opts.bundle = Some(BundleRequest {
            target,
            json: DocHead::of(&host, &cfg, &d.sections).document(&d.findings, d.sections.clone()),
            human: crate::report::escape::visible(&d.preamble).into_owned()
                + &human::render(
                    &d.findings,
                    &human::Options {
                        color: false,
                        verbose: args.verbose,
                    },
                ),
        });
    }
    write(&host, d.findings, &d.sections, &opts)
}

/// Writes the report of a default run's findings and sections; exit 0 when written (the
/// verdict is in the report, not the exit code), 2 when it cannot be written.
fn write(
    host: &Host,
    findings: Vec<crate::report::Finding>,
    sections: &[(&'static str, Value)],
    opts: &Options<'_>,
) -> Outcome {
    // Read once: the report's kernel lines and the bundle's log come from the same read.
    let log = crate::kernlog::read(host);
    let mut report = bugreport::gather_with_log(host, findings, sections, &opts.argv, &log);
    let red = if opts.redact {
        bugreport::redactor(host)
    } else {
        Redactor::off()
    };
    bugreport::redact_report(&mut report, &red);
    // Control characters are shown, in the file as on the terminal (`report::escape`).
    let md = bugreport::render::render(&report);
    let md = crate::report::escape::visible(&md);
    if let Some(req) = &opts.bundle {
        return write_bundle(host, &red, req, &md, &log, opts.output);
    }
    match opts.output {
        Some(path) => {
            write_file(path, &md)?;
            Ok(exit::OK)
        }
        None => Ok(super::print_text(&md, exit::OK)),
    }
}

/// `--output FILE`: the report, written where the user said.
fn write_file(path: &Path, md: &str) -> anyhow::Result<()> {
    std::fs::write(path, md.as_bytes()).with_context(|| format!("cannot write {}", path.display()))
}

/// `--bundle`: collects and writes the bundle (and the Markdown to `--output` when named);
/// says on stdout where it went and how much was left out. Exit 0 when written, 2 when not.
fn write_bundle(
    host: &Host,
    red: &Redactor,
    req: &BundleRequest,
    md: &str,
    log: &KernelLogRead,
    output: Option<&Path>,
) -> Outcome {
    let docs = bundle::Documents {
        json: &req.json,
        human: &req.human,
        markdown: md,
        kernel_log: log,
    };
    let b = bundle::collect(host, red, &docs);
    let shown = match &req.target {
        bundle::Target::Dir(p) | bundle::Target::TarGz(p) => p.display().to_string(),
    };
    bundle::write(&b, &req.target)
        .map_err(anyhow::Error::msg)
        .context("cannot write the bundle")?;
    if let Some(path) = output {
        write_file(path, md)?;
    }
    let line = format!(
        "bundle written to {shown}: {} files, {} items left out (see {})\n",
        b.manifest.files.len() + 1,
        b.manifest.left_out.len(),
        bundle::MANIFEST
    );
    Ok(super::print_visible(&line, exit::OK))
}

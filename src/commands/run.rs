//! `rocm-doctor` with no subcommand: the default run (`--json`, `--npd`, `--prometheus`,
//! `--baseline`, `--asm-caps`, `--list-checks`), and [`diagnose`], the run of the checks that
//! `why` and `report` share.

use super::Outcome;
use crate::checks::{self, Ctx};
use crate::cli::RunArgs;
use crate::config::Config;
use crate::host::Host;
use crate::inventory::Inventory;
use crate::registry::Registry;
use crate::report::fingerprint::Fingerprint;
use crate::report::{self, exit, human, json, Finding};

/// A JSON section beside the findings: its key and value.
pub(crate) type Section = (&'static str, serde_json::Value);

/// Runs the doctor with these arguments against this machine.
pub(crate) fn main(args: &RunArgs) -> Outcome {
    let started = std::time::Instant::now();
    let packs = super::load_packs(args);
    if args.list_checks {
        return Ok(super::print_text(
            &Registry::new(&packs).listing(),
            exit::OK,
        ));
    }
    let (cfg, host) = super::setup(args, Some(&packs))?;
    super::arm_watchdog(args, cfg.deadline);
    let Diagnosis {
        mut findings,
        sections,
        preamble,
        telemetry,
        ..
    } = diagnose(&host, &cfg, &packs);
    // The report as `--json` prints it: what `--baseline` compares and `--prometheus` reads.
    let head = (args.json || args.prometheus || args.baseline.is_some())
        .then(|| DocHead::of(&host, &cfg, &sections));
    let document = |findings: &[Finding], sections: Vec<Section>| {
        head.as_ref()
            .expect("computed for every document")
            .document(findings, sections)
    };
    // Drift findings are appended before any rendering, so every output and the exit code
    // include them.
    let mut drifts = None;
    if let Some(path) = &args.baseline {
        let now = document(&findings, sections.clone());
        drifts = add_drifts(path, &mut findings, now);
    }
    let code = report::exit_code(&findings, cfg.strict);
    if args.npd {
        let (line, npd_code) = crate::report::npd::render(&findings, args.npd_max_len);
        return Ok(super::print_text(&(line + "\n"), npd_code));
    }
    if args.prometheus {
        let doc = document(&findings, sections);
        let fp = head.as_ref().map(|h| &h.fingerprint);
        let text = prometheus(
            &doc,
            &findings,
            fp,
            started,
            drifts,
            code,
            telemetry.as_ref(),
        );
        return Ok(super::print_text(&text, code));
    }
    if args.json {
        let doc = document(&findings, sections);
        return Ok(report::write_stdout(report::Output::Json(&doc), code));
    }
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
    Ok(super::print_text(&text, code))
}

/// `--baseline FILE`: the drift findings against the golden report, appended to `findings`;
/// how many drifts (warnings) there are, when the baseline could be used.
fn add_drifts(
    path: &std::path::Path,
    findings: &mut Vec<Finding>,
    now: serde_json::Value,
) -> Option<usize> {
    use crate::fleet::baseline::{findings_for_file, CATEGORY, ID};
    let mut found = findings_for_file(path, &now);
    // The engine writes the id, as for every check's findings (`fleet.baseline` compares two
    // reports after the run, so the registry does not run it).
    crate::runner::stamp(&mut found, ID, CATEGORY, 0);
    let usable = !found.iter().any(|f| f.status == report::Status::Error);
    let drifts = usable.then(|| {
        found
            .iter()
            .filter(|f| f.status == report::Status::Warn)
            .count()
    });
    findings.extend(found);
    drifts
}

/// `--prometheus`: the run as metrics, from its `--json` document `doc`.
fn prometheus(
    doc: &serde_json::Value,
    findings: &[Finding],
    fp: Option<&Fingerprint>,
    started: std::time::Instant,
    baseline_drifts: Option<usize>,
    code: i32,
    telemetry: Option<&report::telemetry::Telemetry>,
) -> String {
    let rocm = doc
        .pointer("/inventory/rocm_roots/0/versions/rocm/version")
        .and_then(serde_json::Value::as_str);
    crate::report::prometheus::render(&crate::report::prometheus::Run {
        findings,
        duration_s: started.elapsed().as_secs_f64(),
        gpus: fp.and_then(|f| f.gpu_count),
        version: json::TOOL.version,
        rocm_version: rocm,
        hip_version: fp.and_then(|f| f.hip_runtime.as_deref()),
        baseline_drifts,
        exit_code: code,
        telemetry,
    })
}

/// What heads a run's `--json` document: the stack's fingerprint, the node's name, the root,
/// the profile.
pub(crate) struct DocHead {
    pub fingerprint: Fingerprint,
    name: String,
    sysroot: String,
    profile: &'static str,
    strict: bool,
}

impl DocHead {
    /// The head of the run on `host` with `cfg` that produced `sections`.
    pub(crate) fn of(host: &Host, cfg: &Config, sections: &[Section]) -> Self {
        let driver = crate::gpu::platform::driver(host);
        let section = |k: &str| sections.iter().find(|(n, _)| *n == k).map(|(_, v)| v);
        let fingerprint = Fingerprint::from_report(
            section("inventory"),
            section("agents"),
            driver.version.as_deref(),
            driver.kernel_release.as_deref(),
        );
        DocHead {
            fingerprint,
            name: host_name(host),
            sysroot: host.fs.root().to_string_lossy().into_owned(),
            profile: profile_name(cfg),
            strict: cfg.strict,
        }
    }

    /// The `--json` document of these findings and sections.
    pub(crate) fn document(
        &self,
        findings: &[Finding],
        sections: Vec<Section>,
    ) -> serde_json::Value {
        json::document(
            &json::Head {
                profile: self.profile,
                sysroot: &self.sysroot,
                host: &self.name,
                strict: self.strict,
                fingerprint: &self.fingerprint,
            },
            findings,
            sections,
        )
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
pub(crate) struct Diagnosis {
    pub findings: Vec<Finding>,
    /// JSON sections beside the findings (`inventory`, `agents`, `asm_caps`).
    pub sections: Vec<Section>,
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
pub(crate) fn diagnose(host: &Host, cfg: &Config, packs: &crate::packs::PackSet) -> Diagnosis {
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
        // One value, two views: the `asm_caps` object and the matrix.
        sections.push(("asm_caps", out.caps.to_json()));
        preamble = out.caps.human();
    }
    let headline = inv.headline();
    if !headline.is_empty() {
        preamble = format!("{headline}\n\n{preamble}");
    }
    let telemetry = add_sections(host, &inv, &mut sections);
    Diagnosis {
        findings,
        sections,
        preamble,
        examined: inv.examined(),
        telemetry,
    }
}

/// The `agents` section: each KFD agent with, when `checks/gpu-names.toml` has its device id,
/// `product`, `product_from` and, for an id of several products that the revision does not
/// tell apart, `product_candidates` (docs/gpu.md).
fn agents_json(agents: &[crate::gpu::Agent]) -> serde_json::Value {
    use crate::packs::gpunames::{product, Named};
    let list = agents.iter().map(|a| {
        let mut v = serde_json::json!(a);
        let p = a.device_id.and_then(|d| product(d, a.pci_revision));
        if let (Some(p), Some(o)) = (p, v.as_object_mut()) {
            o.insert("product".into(), p.text().into());
            o.insert("product_from".into(), p.source().into());
            if p.named == Named::Candidates {
                o.insert("product_candidates".into(), serde_json::json!(p.names));
            }
        }
        v
    });
    serde_json::Value::Array(list.collect())
}

/// The sections of a run after its checks: the inventory first, then the GPUs, the
/// environment, the telemetry (returned too), the programs run and the processes left behind.
fn add_sections(
    host: &Host,
    inv: &Inventory,
    sections: &mut Vec<Section>,
) -> Option<report::telemetry::Telemetry> {
    sections.insert(0, ("inventory", inv.to_json()));
    if let Some(t) = inv.gpu_if_computed() {
        sections.push(("agents", agents_json(&t.agents)));
    }
    if let Some(l) = inv.gpu_layers_if_computed() {
        sections.push(("gpu_layers", serde_json::json!(l)));
    }
    sections.push((
        "environment",
        crate::fleet::baseline::environment(&host.env),
    ));
    // Per-GPU telemetry from what the health and kernel-log checks read (issue 26, item 5).
    let telemetry = crate::inventory::telemetry::of(inv);
    if let Some(t) = &telemetry {
        sections.push(("telemetry", serde_json::json!(t)));
    }
    // On another root, which programs ran (issue 25, item 3; docs/json.md).
    if !host.fs.is_own_machine() {
        sections.push(("programs_run", programs_run_json(host)));
    }
    sweep_leftovers(sections);
    telemetry
}

/// The checks are done: what their probes left running (outside their process groups) is
/// killed now and named, and what could not be killed is said (docs/security.md, item 7).
fn sweep_leftovers(sections: &mut Vec<Section>) {
    let left = crate::host::sweep_leftovers();
    if left.is_empty() {
        return;
    }
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

//! `--prometheus`: the run as Prometheus text exposition format (version 0.0.4), for
//! node_exporter's textfile collector (`--collector.textfile.directory`, files named `*.prom`).
//!
//! Format rules followed (prometheus.io/docs/instrumenting/exposition_formats, "Text format
//! details"): lines end with `\n`, the last one too; `# HELP name text` with `\` and line feed
//! escaped as `\\` and `\n`; `# TYPE name gauge` once per name, before its first sample; a
//! sample is `name{label="value",...} value`, label values escaping `\`, `"` and line feed as
//! `\\`, `\"` and `\n`; metric names match `[a-zA-Z_:][a-zA-Z0-9_:]*`, label names
//! `[a-zA-Z_][a-zA-Z0-9_]*`. No timestamps: the textfile collector does not accept them
//! (prometheus/node_exporter README, "Textfile Collector"); node_exporter adds
//! `node_textfile_mtime_seconds` per file, which tells when the doctor last wrote it.
//!
//! Check verdicts are one-hot (the usual Prometheus encoding of a state, as node_exporter's
//! systemd collector does for unit states): for every check id, one series per status, value
//! 1 for the check's worst status in this run and 0 for the others, so
//! `rocm_doctor_check_status{status="fail"} == 1` selects the failing checks and a series
//! never disappears when the verdict changes.
//!
//! Per-GPU telemetry (issue 26, item 5; [`super::telemetry`]) follows the naming practice of
//! prometheus.io/docs/practices/naming and node_exporter: a `rocm_doctor_gpu_` prefix, base
//! units in the name (`_celsius` as node_exporter's hwmon collector, `_transfers_per_second`
//! and `_width` as its pcidevice collector's `node_pcidevice_current_link_transfers_per_second`),
//! `_total` on counters (`# TYPE ... counter`: the RAS, AER, replay and reset counts only grow
//! until the driver is reloaded or the node reboots, which Prometheus' `rate()` treats as a
//! counter reset), and an `_info` gauge of value 1 carrying the labels that describe a GPU.
//! Every GPU series carries `pci`, `model` (PCI `vendor:device`) and `gfx` (empty when
//! unknown); label values are escaped, the product name being text from the board's EEPROM.

use super::telemetry::{GpuTelemetry, Telemetry};
use super::{Action, Finding, Status};
use std::collections::BTreeMap;
use std::fmt::Write;

/// Every status, in the order of [`Status`].
pub(crate) const STATUSES: [Status; 5] = [
    Status::Pass,
    Status::Skip,
    Status::Warn,
    Status::Fail,
    Status::Error,
];

/// What the exposition is made of, beside the findings.
pub(crate) struct Run<'a> {
    pub findings: &'a [Finding],
    pub duration_s: f64,
    /// GPU agents in KFD; `None` when the GPU checks did not run (the metric is left out).
    pub gpus: Option<u64>,
    pub version: &'a str,
    pub rocm_version: Option<&'a str>,
    pub hip_version: Option<&'a str>,
    /// With `--baseline`: the number of drifts, or `None` when the baseline was unusable
    /// (the metric is left out; `fleet.baseline` is `error`).
    pub baseline_drifts: Option<usize>,
    pub exit_code: i32,
    /// Per-GPU telemetry, when the health checks ran (the `telemetry` section of `--json`).
    pub telemetry: Option<&'a Telemetry>,
}

/// A label value, escaped (the exposition format escapes `\\`, `"` and line feed). Other
/// control characters are written as the human view shows them (`\x1b`, its backslash
/// escaped): the text stays valid for the scraper and harmless on a terminal.
pub(crate) fn escape_label(v: &str) -> String {
    let mut out = String::with_capacity(v.len());
    for c in v.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '"' => out.push_str("\\\""),
            '\n' => out.push_str("\\n"),
            c if super::escape::is_unsafe(c) => out.push_str(&escape_label(
                &super::escape::visible(c.encode_utf8(&mut [0; 4])),
            )),
            c => out.push(c),
        }
    }
    out
}

/// HELP text, escaped (`\` and line feed only).
fn escape_help(v: &str) -> String {
    v.replace('\\', "\\\\").replace('\n', "\\n")
}

struct Out(String);

impl Out {
    fn family(&mut self, name: &str, help: &str) {
        self.family_of(name, help, "gauge");
    }
    fn family_of(&mut self, name: &str, help: &str, kind: &str) {
        let _ = writeln!(self.0, "# HELP {name} {}", escape_help(help));
        let _ = writeln!(self.0, "# TYPE {name} {kind}");
    }
    fn sample(&mut self, name: &str, labels: &[(&str, &str)], value: f64) {
        self.0.push_str(name);
        if !labels.is_empty() {
            self.0.push('{');
            for (i, (k, v)) in labels.iter().enumerate() {
                if i > 0 {
                    self.0.push(',');
                }
                let _ = write!(self.0, "{k}=\"{}\"", escape_label(v));
            }
            self.0.push('}');
        }
        // Rust prints finite f64 as decimal text Go's ParseFloat reads (`1`, `0.25`).
        let _ = writeln!(self.0, " {value}");
    }
}

/// The one-hot verdict of each check: its worst status over its findings.
fn check_statuses(o: &mut Out, findings: &[Finding]) {
    // Worst status per check id, in id order; category from its findings.
    let mut checks: BTreeMap<&str, (&str, Status)> = BTreeMap::new();
    for f in findings {
        let e = checks
            .entry(f.id.as_str())
            .or_insert((f.category.as_str(), f.status));
        e.1 = e.1.max(f.status);
    }
    o.family(
        "rocm_doctor_check_status",
        "Verdict of each check in the last run, one-hot: 1 for the check's worst status (pass < \
            skip < warn < fail < error), 0 for the other statuses.",
    );
    for (id, (category, worst)) in &checks {
        for st in STATUSES {
            o.sample(
                "rocm_doctor_check_status",
                &[("id", id), ("category", category), ("status", st.as_str())],
                if st == *worst { 1.0 } else { 0.0 },
            );
        }
    }
}

/// The repair action of each check and of the node.
fn actions(o: &mut Out, findings: &[Finding]) {
    // The repair action each check asks for (its heaviest over its warn and fail findings),
    // and the node's: the heaviest of all, one-hot so that alert rules match one label.
    let mut actions: BTreeMap<&str, Action> = BTreeMap::new();
    for f in findings
        .iter()
        .filter(|f| matches!(f.status, Status::Warn | Status::Fail))
    {
        if let Some(a) = f.action {
            let e = actions.entry(f.id.as_str()).or_insert(a);
            *e = (*e).max(a);
        }
    }
    if !actions.is_empty() {
        o.family(
            "rocm_doctor_check_action",
            "Repair action each warning or failing check asks for (its heaviest: none < \
                fix-config < restart-process < reset-gpu < reboot-node < drain-and-inspect); \
                always 1.",
        );
    }
    for (id, a) in &actions {
        o.sample(
            "rocm_doctor_check_action",
            &[("id", id), ("action", a.as_str())],
            1.0,
        );
    }
    let node = super::action::of_node(findings);
    o.family(
        "rocm_doctor_node_action",
        "Repair action the node needs, one-hot: 1 for the heaviest action of the run's warnings \
            and failures (none when there is nothing to do), 0 for the others.",
    );
    for a in Action::ALL {
        o.sample(
            "rocm_doctor_node_action",
            &[("action", a.as_str())],
            if *a == node { 1.0 } else { 0.0 },
        );
    }
}

/// The whole exposition text.
pub(crate) fn render(r: &Run<'_>) -> String {
    let mut o = Out(String::new());
    o.family(
        "rocm_doctor_info",
        "rocm-doctor version and the ROCm and HIP runtime versions it found (empty: not found); \
            always 1.",
    );
    o.sample(
        "rocm_doctor_info",
        &[
            ("version", r.version),
            ("rocm_version", r.rocm_version.unwrap_or("")),
            ("hip_version", r.hip_version.unwrap_or("")),
        ],
        1.0,
    );
    check_statuses(&mut o, r.findings);
    actions(&mut o, r.findings);
    let counts = super::Counts::of(r.findings);
    o.family(
        "rocm_doctor_findings",
        "Findings of the last run by status.",
    );
    for (st, n) in [
        (Status::Pass, counts.pass),
        (Status::Skip, counts.skip),
        (Status::Warn, counts.warn),
        (Status::Fail, counts.fail),
        (Status::Error, counts.error),
    ] {
        o.sample("rocm_doctor_findings", &[("status", st.as_str())], n as f64);
    }
    o.family(
        "rocm_doctor_run_duration_seconds",
        "Wall time of the last run, in seconds.",
    );
    o.sample("rocm_doctor_run_duration_seconds", &[], r.duration_s);
    o.family(
        "rocm_doctor_exit_code",
        "Exit code of the last run: 0 no failure, 1 a check failed or could not decide (or a \
            warning with --strict).",
    );
    o.sample("rocm_doctor_exit_code", &[], f64::from(r.exit_code));
    if let Some(n) = r.gpus {
        o.family("rocm_doctor_gpus", "GPU agents in KFD.");
        o.sample("rocm_doctor_gpus", &[], n as f64);
    }
    if let Some(n) = r.baseline_drifts {
        o.family(
            "rocm_doctor_baseline_drifts",
            "Facts that differ from the --baseline report (fleet.baseline warn findings).",
        );
        o.sample("rocm_doctor_baseline_drifts", &[], n as f64);
    }
    if let Some(t) = r.telemetry {
        gpu_families(&mut o, t);
    }
    o.0
}

/// One metric family of the telemetry: its samples are gathered over every GPU first, so that
/// they are contiguous and the family is left out when no GPU has a value.
struct Family {
    name: &'static str,
    help: &'static str,
    kind: &'static str,
    samples: Vec<(Vec<(&'static str, String)>, f64)>,
}

impl Family {
    fn gauge(name: &'static str, help: &'static str) -> Self {
        Family {
            name,
            help,
            kind: "gauge",
            samples: Vec::new(),
        }
    }
    fn counter(name: &'static str, help: &'static str) -> Self {
        Family {
            kind: "counter",
            ..Self::gauge(name, help)
        }
    }
    /// A sample of GPU `g` with the extra labels `more`; nothing when `v` is None.
    fn add(&mut self, g: &GpuTelemetry, more: &[(&'static str, &str)], v: Option<f64>) {
        let Some(v) = v else { return };
        let mut labels = gpu_labels(g);
        labels.extend(more.iter().map(|(k, v)| (*k, v.to_string())));
        self.samples.push((labels, v));
    }
    fn write(self, o: &mut Out) {
        if self.samples.is_empty() {
            return;
        }
        o.family_of(self.name, self.help, self.kind);
        for (labels, v) in &self.samples {
            let l: Vec<(&str, &str)> = labels.iter().map(|(k, v)| (*k, v.as_str())).collect();
            o.sample(self.name, &l, *v);
        }
    }
}

/// The labels every GPU series carries.
fn gpu_labels(g: &GpuTelemetry) -> Vec<(&'static str, String)> {
    vec![
        ("pci", g.pci.clone()),
        ("model", g.model.clone().unwrap_or_default()),
        ("gfx", g.gfx.clone().unwrap_or_default()),
    ]
}

fn num(v: Option<u64>) -> Option<f64> {
    v.map(|n| n as f64)
}

/// The per-GPU families, in the order they are written.
struct GpuFamilies {
    info: Family,
    ras: Family,
    pages: Family,
    threshold: Family,
    cur_speed: Family,
    max_speed: Family,
    cur_width: Family,
    max_width: Family,
    aer: Family,
    replays: Family,
    m_replays: Family,
    m_recov: Family,
    naks: Family,
    temp: Family,
    crit: Family,
    emergency: Family,
    throttlers: Family,
    throttle: Family,
    resets: Family,
}

impl GpuFamilies {
    fn new() -> Self {
        GpuFamilies {
            info: Family::gauge(
                "rocm_doctor_gpu_info",
                "An amdgpu GPU the health checks read; always 1. product: the board's FRU product \
                    name, card: its DRM card.",
            ),
            ras: Family::counter(
                "rocm_doctor_gpu_ras_errors_total",
                "RAS error counts since the driver was loaded, per block (ras/<block>_err_count \
                    or ras/aca_<block>) and type (correctable, uncorrectable, deferred).",
            ),
            pages: Family::gauge(
                "rocm_doctor_gpu_retired_pages",
                "VRAM pages in ras/gpu_vram_bad_pages by state: retired (R), pending (P), failed \
                    (F: could not be retired).",
            ),
            threshold: Family::gauge(
                "rocm_doctor_gpu_bad_page_threshold",
                "Retired pages at which the driver acts (amdgpu.bad_page_threshold applied to \
                    this GPU), when it can be known outside debugfs.",
            ),
            cur_speed: Family::gauge(
                "rocm_doctor_gpu_pcie_current_link_transfers_per_second",
                "Negotiated PCIe link speed where the GPU package meets the platform, in \
                    transfers per second (16.0 GT/s = 1.6e10).",
            ),
            max_speed: Family::gauge(
                "rocm_doctor_gpu_pcie_max_link_transfers_per_second",
                "Maximum speed of that PCIe link (the lower of its two ends), in transfers per \
                    second.",
            ),
            cur_width: Family::gauge(
                "rocm_doctor_gpu_pcie_current_link_width",
                "Negotiated width of that PCIe link, in lanes.",
            ),
            max_width: Family::gauge(
                "rocm_doctor_gpu_pcie_max_link_width",
                "Maximum width of that PCIe link (the lower of its two ends), in lanes.",
            ),
            aer: Family::counter(
                "rocm_doctor_gpu_pcie_aer_errors_total",
                "PCIe AER error messages since boot (TOTAL_ERR_* of aer_dev_correctable, \
                    aer_dev_nonfatal, aer_dev_fatal) of the GPU function and each port above it \
                    (port: its PCI address).",
            ),
            replays: Family::counter(
                "rocm_doctor_gpu_pcie_replays_total",
                "PCIe replays (NAKs sent and received) counted by amdgpu (pcie_replay_count).",
            ),
            m_replays: Family::counter(
                "rocm_doctor_gpu_pcie_metrics_replays_total",
                "PCIe replays accumulated by the GPU firmware (gpu_metrics pcie_replay_count_acc).",
            ),
            m_recov: Family::counter(
                "rocm_doctor_gpu_pcie_recoveries_total",
                "PCIe link entries into recovery accumulated by the GPU firmware (gpu_metrics \
                    pcie_l0_to_recov_count_acc).",
            ),
            naks: Family::counter(
                "rocm_doctor_gpu_pcie_naks_total",
                "PCIe NAKs sent and received accumulated by the GPU firmware (gpu_metrics \
                    pcie_nak_sent_count_acc, pcie_nak_rcvd_count_acc).",
            ),
            temp: Family::gauge(
                "rocm_doctor_gpu_temp_celsius",
                "GPU temperature by hwmon sensor (edge, junction, mem), in degrees Celsius.",
            ),
            crit: Family::gauge(
                "rocm_doctor_gpu_temp_crit_celsius",
                "Critical temperature limit of the sensor (hwmon temp*_crit), in degrees Celsius.",
            ),
            emergency: Family::gauge(
                "rocm_doctor_gpu_temp_emergency_celsius",
                "Emergency (shutdown) temperature limit of the sensor (hwmon temp*_emergency), in \
                    degrees Celsius.",
            ),
            throttlers: Family::gauge(
                "rocm_doctor_gpu_throttlers_active",
                "Throttlers set in the gpu_metrics sample (0 when none; left out when the sample \
                    has no throttle bitmap).",
            ),
            throttle: Family::gauge(
                "rocm_doctor_gpu_throttle_active",
                "A throttler set in the gpu_metrics sample, by name and kind (power, current, \
                    temperature, other); always 1 (whether a temperature bit is believed is \
                    judged by the thermal check, with the sample's temperatures).",
            ),
            resets: Family::counter(
                "rocm_doctor_gpu_resets_total",
                "GPU resets in the kernel log of this boot, by result (started, succeeded, \
                    failed); left out when the kernel log was not read.",
            ),
        }
    }

    /// GPU `g`'s samples: identity, RAS and retired pages, the PCIe link, temperatures and
    /// throttling, resets.
    fn add(&mut self, g: &GpuTelemetry) {
        self.info.add(
            g,
            &[
                ("product", g.product.as_deref().unwrap_or("")),
                ("card", g.card.as_deref().unwrap_or("")),
            ],
            Some(1.0),
        );
        self.add_memory(g);
        self.add_pcie(g);
        self.add_thermal(g);
        if let Some(r) = &g.resets {
            for (res, v) in [
                ("started", r.started),
                ("succeeded", r.succeeded),
                ("failed", r.failed),
            ] {
                self.resets.add(g, &[("result", res)], num(Some(v)));
            }
        }
    }

    fn add_memory(&mut self, g: &GpuTelemetry) {
        for b in &g.ras {
            for (ty, v) in [
                ("correctable", b.correctable),
                ("uncorrectable", b.uncorrectable),
                ("deferred", b.deferred),
            ] {
                self.ras
                    .add(g, &[("block", &b.block), ("type", ty)], num(v));
            }
        }
        if let Some(b) = &g.bad_pages {
            for (st, v) in [
                ("retired", b.retired),
                ("pending", b.pending),
                ("failed", b.failed),
            ] {
                self.pages.add(g, &[("state", st)], num(Some(v)));
            }
            self.threshold.add(g, &[], num(b.threshold));
        }
    }

    fn add_pcie(&mut self, g: &GpuTelemetry) {
        let p = &g.pcie;
        let ts = |gts: Option<f64>| gts.map(|v| v * 1e9);
        self.cur_speed.add(g, &[], ts(p.current_gts));
        self.max_speed.add(g, &[], ts(p.max_gts));
        self.cur_width.add(g, &[], p.current_width.map(f64::from));
        self.max_width.add(g, &[], p.max_width.map(f64::from));
        for a in &p.aer {
            for (sev, v) in [
                ("correctable", a.correctable),
                ("nonfatal", a.nonfatal),
                ("fatal", a.fatal),
            ] {
                self.aer
                    .add(g, &[("port", &a.port), ("severity", sev)], num(v));
            }
        }
        self.replays.add(g, &[], num(p.replays));
        self.m_replays.add(g, &[], num(p.metrics_replays));
        self.m_recov.add(g, &[], num(p.metrics_recoveries));
        self.naks.add(g, &[("direction", "sent")], num(p.naks_sent));
        self.naks
            .add(g, &[("direction", "received")], num(p.naks_received));
    }

    fn add_thermal(&mut self, g: &GpuTelemetry) {
        for s in &g.temperatures {
            self.temp.add(g, &[("sensor", &s.sensor)], s.celsius);
            self.crit.add(g, &[("sensor", &s.sensor)], s.crit_celsius);
            self.emergency
                .add(g, &[("sensor", &s.sensor)], s.emergency_celsius);
        }
        if let Some(th) = &g.throttle {
            self.throttlers.add(g, &[], Some(th.active.len() as f64));
            for a in &th.active {
                self.throttle
                    .add(g, &[("throttler", &a.name), ("kind", &a.kind)], Some(1.0));
            }
        }
    }

    fn write(self, o: &mut Out) {
        for f in [
            self.info,
            self.ras,
            self.pages,
            self.threshold,
            self.cur_speed,
            self.max_speed,
            self.cur_width,
            self.max_width,
            self.aer,
            self.replays,
            self.m_replays,
            self.m_recov,
            self.naks,
            self.temp,
            self.crit,
            self.emergency,
            self.throttlers,
            self.throttle,
            self.resets,
        ] {
            f.write(o);
        }
    }
}

/// The per-GPU families, in a fixed order.
fn gpu_families(o: &mut Out, t: &Telemetry) {
    let mut families = GpuFamilies::new();
    for g in &t.gpus {
        families.add(g);
    }
    families.write(o);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escaping() {
        assert_eq!(escape_label("a\\b\"c\nd"), "a\\\\b\\\"c\\nd");
        // Control characters: shown as `\x1b`, the backslash escaped; nothing raw is left.
        assert_eq!(
            escape_label("a\x1b]52\x07\u{9b}"),
            "a\\\\x1b]52\\\\x07\\\\u{9b}"
        );
        assert_eq!(escape_help("x\\y\nz \"q\""), "x\\\\y\\nz \"q\"");
    }

    #[test]
    fn one_hot_worst_status() {
        let mut a = Finding::pass("ok");
        a.id = "gpu.render".into();
        a.category = "gpu".into();
        let mut b = Finding::warn("meh");
        b.id = "gpu.render".into();
        b.category = "gpu".into();
        let text = render(&Run {
            findings: &[a, b],
            duration_s: 0.5,
            gpus: None,
            version: "0.1.0",
            rocm_version: Some("6.2\"x"),
            hip_version: None,
            baseline_drifts: Some(0),
            exit_code: 0,
            telemetry: None,
        });
        assert!(text.contains(
            "rocm_doctor_check_status{id=\"gpu.render\",category=\"gpu\",status=\"warn\"} 1\n"
        ));
        assert!(text.contains(
            "rocm_doctor_check_status{id=\"gpu.render\",category=\"gpu\",status=\"pass\"} 0\n"
        ));
        assert!(text.contains("rocm_version=\"6.2\\\"x\""));
        assert!(text.contains("rocm_doctor_run_duration_seconds 0.5\n"));
        assert!(!text.contains("rocm_doctor_gpus"));
        assert!(text.contains("rocm_doctor_baseline_drifts 0\n"));
        assert!(text.ends_with('\n'));
    }

    #[test]
    fn telemetry_families_counters_and_untrusted_labels() {
        use crate::report::telemetry::*;
        let g = GpuTelemetry {
            pci: "0000:2b:00.0".into(),
            model: Some("1002:740f".into()),
            product: Some("x\"y\nz\x1b".into()),
            ras: vec![RasBlock {
                block: "umc".into(),
                source: "err_count".into(),
                accessible: true,
                correctable: Some(4),
                uncorrectable: Some(1),
                deferred: None,
            }],
            pcie: Pcie {
                current_gts: Some(16.0),
                ..Default::default()
            },
            ..Default::default()
        };
        let t = Telemetry { gpus: vec![g] };
        let text = render(&Run {
            findings: &[],
            duration_s: 0.1,
            gpus: None,
            version: "0.1.0",
            rocm_version: None,
            hip_version: None,
            baseline_drifts: None,
            exit_code: 0,
            telemetry: Some(&t),
        });
        assert!(text.contains("# TYPE rocm_doctor_gpu_ras_errors_total counter\n"));
        assert!(text.contains("# TYPE rocm_doctor_gpu_info gauge\n"));
        assert!(text.contains(
            "rocm_doctor_gpu_ras_errors_total{pci=\"0000:2b:00.0\",model=\"1002:740f\",gfx=\"\",block=\"umc\",type=\"uncorrectable\"} \
                1\n"
        ));
        // A count the kernel does not print is no series (not a zero).
        assert!(!text.contains("type=\"deferred\""));
        // GT/s in transfers per second, as a plain number.
        assert!(text.contains(
            "rocm_doctor_gpu_pcie_current_link_transfers_per_second{pci=\"0000:2b:00.0\",model=\"1002:740f\",gfx=\"\"} \
                16000000000\n"
        ));
        // The EEPROM's text, escaped: quote, line feed, ESC made visible.
        assert!(text.contains("product=\"x\\\"y\\nz\\\\x1b\""), "{text}");
        // Families without a sample are left out entirely.
        assert!(!text.contains("rocm_doctor_gpu_temp_celsius"));
        assert!(!text.contains("rocm_doctor_gpu_resets_total"));
    }

    #[test]
    fn actions_per_check_and_one_hot_for_the_node() {
        let mk = |id: &str, st: Status, a: Option<Action>| {
            let mut f = Finding::new(st, "x");
            f.id = id.into();
            f.category = "health".into();
            f.action = a;
            f
        };
        let findings = [
            mk("health.ras", Status::Warn, Some(Action::None)),
            mk("health.ras", Status::Fail, Some(Action::DrainAndInspect)),
            mk("kernel.hangs", Status::Warn, Some(Action::RestartProcess)),
            // A pass carries no action even if one was set by mistake.
            mk("gpu.kfd", Status::Pass, Some(Action::RebootNode)),
        ];
        let text = render(&Run {
            findings: &findings,
            duration_s: 0.1,
            gpus: Some(1),
            version: "0.1.0",
            rocm_version: None,
            hip_version: None,
            baseline_drifts: None,
            exit_code: 1,
            telemetry: None,
        });
        assert!(text.contains(
            "rocm_doctor_check_action{id=\"health.ras\",action=\"drain-and-inspect\"} 1\n"
        ));
        assert!(text.contains(
            "rocm_doctor_check_action{id=\"kernel.hangs\",action=\"restart-process\"} 1\n"
        ));
        assert!(!text.contains("rocm_doctor_check_action{id=\"gpu.kfd\""));
        assert!(text.contains("rocm_doctor_node_action{action=\"drain-and-inspect\"} 1\n"));
        assert!(text.contains("rocm_doctor_node_action{action=\"reboot-node\"} 0\n"));
        let hot = text
            .lines()
            .filter(|l| l.starts_with("rocm_doctor_node_action{") && l.ends_with(" 1"))
            .count();
        assert_eq!(hot, 1);
    }
}

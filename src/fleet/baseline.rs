//! Golden-node drift (`--baseline GOOD.json`, `merge --baseline`): this node's report compared
//! with a saved known-good report of the doctor (its own `--json` document, the schema `merge`
//! reads). Pure: two JSON values in, drifts out; the caller reads the file and appends the
//! findings. Facts are compared only when both reports know them (a check not selected in one
//! run, an older report without `environment` or `health`): an unknown is never a drift.

use super::doc;
use super::fingerprint::Fingerprint;
use crate::report::{Finding, Fix, Status};
use serde::Serialize;
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::Path;

/// The check id of the drift findings (docs/fleet.md, "Golden-node drift").
pub(crate) const ID: &str = "fleet.baseline";
pub(crate) const CATEGORY: &str = "fleet";

/// The environment variables recorded in every report's `environment` section and compared
/// (the ROCm root, HIP's root, the ISA override and the two GPU visibility masks, the loader
/// path).
pub(crate) const ENV_KEYS: [&str; 6] = [
    "ROCM_PATH",
    "HIP_PATH",
    "HSA_OVERRIDE_GFX_VERSION",
    "HIP_VISIBLE_DEVICES",
    "ROCR_VISIBLE_DEVICES",
    "LD_LIBRARY_PATH",
];

/// How an unset variable is shown in a drift.
pub(crate) const UNSET: &str = "(unset)";

/// One fact that differs from the baseline.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub struct Drift {
    /// `rocm version`, `hip runtime`, `driver`, `gpu count`, `gpu model`, `firmware`,
    /// `partition`, `env:VAR` or `check verdict`.
    pub what: String,
    /// The check id of a `check verdict` drift.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub subject: Option<String>,
    pub baseline: String,
    pub now: String,
}

impl Drift {
    /// The kind as shown and grouped: `what`, and the check id of a verdict drift.
    pub(crate) fn kind(&self) -> String {
        match &self.subject {
            Some(s) => format!("{} {s}", self.what),
            None => self.what.clone(),
        }
    }
}

/// The `environment` section written into every report: [`ENV_KEYS`] with their values
/// (`null` when unset; a value that is not UTF-8 is written lossily).
pub(crate) fn environment(env: &crate::host::Env) -> Value {
    let mut m = serde_json::Map::new();
    for k in ENV_KEYS {
        let v = env
            .get_os(k)
            .map(|v| Value::String(v.to_string_lossy().into_owned()));
        m.insert(k.to_string(), v.unwrap_or(Value::Null));
    }
    Value::Object(m)
}

/// Reads a baseline file: a rocm-doctor `--json` report this build's `merge` accepts.
pub(crate) fn read(path: &Path) -> Result<Value, String> {
    // Issue 25, item 5: a FIFO, /dev/zero or /dev/stdin would block or never end; the file is
    // opened without blocking, must be a regular file, and is read with the cap of one report.
    let bytes = crate::host::open::open_argument(path)?
        .read_capped(doc::MAX_DOC_BYTES as u64)
        .map_err(|e| format!("{}: {}: too large", path.display(), e))?;
    parse(&bytes).map_err(|e| format!("{}: {e}", path.display()))
}

/// Parses and validates a baseline document (the rules of `merge`'s reader, `doc::parse`).
pub(crate) fn parse(bytes: &[u8]) -> Result<Value, String> {
    doc::parse(bytes).map_err(describe)?;
    serde_json::from_slice(bytes).map_err(|e| e.to_string())
}

fn describe((kind, detail): (doc::Problem, String)) -> String {
    let k = serde_json::to_value(kind)
        .ok()
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_default();
    format!("{k}: {detail}")
}

/// The facts compared, each `None` when the report does not know it.
#[derive(Debug, Default)]
struct Facts {
    rocm: Option<String>,
    hip: Option<String>,
    driver: Option<String>,
    gpu_count: Option<u64>,
    models: Option<Vec<String>>,
    firmware: Option<Vec<String>>,
    health: Option<Health>,
    env: Option<BTreeMap<String, String>>,
    verdicts: BTreeMap<String, Status>,
}

/// Firmware and partition facts of a `health` section (GPU health data), when there is one.
#[derive(Debug, Default)]
struct Health {
    firmware: Vec<String>,
    partitions: Vec<String>,
}

fn facts(report: &Value) -> Facts {
    let inventory = report.get("inventory");
    let agents = report.get("agents").filter(|a| a.is_array());
    // The fingerprint's own extraction (firmware pairs, count); the driver is not in the
    // sections, so it is read from the report's fingerprint.
    let fp = Fingerprint::from_report(inventory, agents, None, None);
    let rocm = inventory
        .and_then(|i| i.get("rocm_roots"))
        .and_then(Value::as_array)
        .map(|roots| match roots.first() {
            None => "no ROCm root".to_string(),
            Some(r) => r
                .pointer("/versions/rocm/version")
                .and_then(Value::as_str)
                .map_or_else(|| "unknown".to_string(), str::to_string),
        });
    let hip = inventory
        .and_then(|i| i.get("libraries"))
        .filter(|l| l.is_array())
        .map(|_| fp.hip_runtime.clone().unwrap_or_else(|| "not found".into()));
    let driver = report
        .pointer("/fingerprint/driver")
        .and_then(Value::as_str)
        .map(str::to_string);
    let models = agents.and_then(Value::as_array).map(|list| {
        let mut m: Vec<String> = list.iter().map(model).collect();
        m.sort();
        m.dedup();
        m
    });
    let env = report
        .get("environment")
        .and_then(Value::as_object)
        .map(|o| {
            ENV_KEYS
                .iter()
                .map(|k| {
                    let v = o.get(*k).and_then(Value::as_str).unwrap_or(UNSET);
                    (k.to_string(), v.to_string())
                })
                .collect()
        });
    let mut verdicts: BTreeMap<String, Status> = BTreeMap::new();
    for f in report
        .get("findings")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let id = f.get("id").and_then(Value::as_str);
        let st = f
            .get("status")
            .and_then(|s| serde_json::from_value::<Status>(s.clone()).ok());
        if let (Some(id), Some(st)) = (id, st) {
            if id == ID {
                continue;
            }
            let w = verdicts.entry(id.to_string()).or_insert(st);
            *w = (*w).max(st);
        }
    }
    Facts {
        rocm,
        hip,
        driver,
        gpu_count: agents.and(fp.gpu_count),
        firmware: agents.map(|_| fp.firmware.clone()),
        models,
        health: report.get("health").map(health),
        env,
        verdicts,
    }
}

/// A GPU model: its marketing name when known, target id, and PCI vendor:device ids.
fn model(a: &Value) -> String {
    let mut parts: Vec<String> = Vec::new();
    if let Some(n) = a
        .get("name")
        .and_then(Value::as_str)
        .filter(|n| !n.is_empty())
    {
        parts.push(n.to_string());
    }
    if let Some(t) = a
        .get("target")
        .or_else(|| a.get("gfx"))
        .and_then(Value::as_str)
    {
        parts.push(t.to_string());
    }
    let id = |k: &str| a.get(k).and_then(Value::as_u64);
    if let (Some(v), Some(d)) = (id("vendor_id"), id("device_id")) {
        parts.push(format!("[{v:04x}:{d:04x}]"));
    }
    if parts.is_empty() {
        "unknown".into()
    } else {
        parts.join(" ")
    }
}

/// The GPU health data's firmware and partition fields, whatever its exact layout: the
/// section (or its `gpus` / `devices` list) holds one object per GPU; a key containing
/// `firmware` (or ending in `_fw` / `fw_version`) is firmware, a key containing `partition` a
/// partition mode. Values are kept as distinct `key=value` texts, sorted, like the
/// fingerprint's firmware pairs (order of GPUs does not matter).
fn health(h: &Value) -> Health {
    let gpus: Vec<&Value> = match h {
        Value::Array(a) => a.iter().collect(),
        Value::Object(o) => match o
            .get("gpus")
            .or_else(|| o.get("devices"))
            .and_then(Value::as_array)
        {
            Some(a) => a.iter().collect(),
            None => vec![h],
        },
        _ => Vec::new(),
    };
    let mut out = Health::default();
    for g in gpus {
        let Some(o) = g.as_object() else { continue };
        for (k, v) in o {
            let key = k.to_ascii_lowercase();
            let fw =
                key.contains("firmware") || key.ends_with("_fw") || key.ends_with("fw_version");
            let list = if fw {
                &mut out.firmware
            } else if key.contains("partition") {
                &mut out.partitions
            } else {
                continue;
            };
            match v {
                Value::Object(inner) => {
                    for (n, x) in inner {
                        if let Some(t) = scalar(x) {
                            list.push(format!("{k}.{n}={t}"));
                        }
                    }
                }
                _ => {
                    if let Some(t) = scalar(v) {
                        list.push(format!("{k}={t}"));
                    }
                }
            }
        }
    }
    for l in [&mut out.firmware, &mut out.partitions] {
        l.sort();
        l.dedup();
    }
    out
}

fn scalar(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        Value::Bool(b) => Some(b.to_string()),
        _ => None,
    }
}

fn list(v: &[String]) -> String {
    if v.is_empty() {
        "-".into()
    } else {
        v.join(", ")
    }
}

/// Every fact known in both reports that differs, in a fixed order: stack, GPUs, firmware,
/// partitions, environment, check verdicts (by id).
pub(crate) fn drifts(baseline: &Value, now: &Value) -> Vec<Drift> {
    let b = facts(baseline);
    let n = facts(now);
    let mut out = Vec::new();
    let mut cmp = |what: &str, subject: Option<&str>, x: Option<String>, y: Option<String>| {
        if let (Some(x), Some(y)) = (x, y) {
            if x != y {
                out.push(Drift {
                    what: what.to_string(),
                    subject: subject.map(str::to_string),
                    baseline: x,
                    now: y,
                });
            }
        }
    };
    cmp("rocm version", None, b.rocm, n.rocm);
    cmp("hip runtime", None, b.hip, n.hip);
    cmp("driver", None, b.driver, n.driver);
    cmp(
        "gpu count",
        None,
        b.gpu_count.map(|c| c.to_string()),
        n.gpu_count.map(|c| c.to_string()),
    );
    cmp(
        "gpu model",
        None,
        b.models.as_deref().map(list),
        n.models.as_deref().map(list),
    );
    cmp(
        "firmware",
        None,
        b.firmware.as_deref().map(list),
        n.firmware.as_deref().map(list),
    );
    if let (Some(bh), Some(nh)) = (&b.health, &n.health) {
        // GPU health data: compared only when both reports carry it, and only fields both
        // carry (a health probe that could not read firmware is not a firmware change).
        let known = |a: &[String], z: &[String]| !a.is_empty() && !z.is_empty();
        if known(&bh.firmware, &nh.firmware) {
            cmp(
                "firmware",
                None,
                Some(list(&bh.firmware)),
                Some(list(&nh.firmware)),
            );
        }
        if known(&bh.partitions, &nh.partitions) {
            cmp(
                "partition",
                None,
                Some(list(&bh.partitions)),
                Some(list(&nh.partitions)),
            );
        }
    }
    if let (Some(be), Some(ne)) = (&b.env, &n.env) {
        for k in ENV_KEYS {
            cmp(
                &format!("env:{k}"),
                None,
                be.get(k).cloned(),
                ne.get(k).cloned(),
            );
        }
    }
    for (id, st) in &b.verdicts {
        if let Some(now) = n.verdicts.get(id) {
            cmp(
                "check verdict",
                Some(id),
                Some(st.as_str().to_string()),
                Some(now.as_str().to_string()),
            );
        }
    }
    out
}

/// The `fleet.baseline` findings for this node's report `now`: one `warn` per drift, one
/// `pass` when there is none, one `error` when the baseline is not a usable report. Their id
/// ([`ID`], [`CATEGORY`]) is written by the engine (`runner::stamp`, called by the command).
pub(crate) fn findings(baseline: &Value, now: &Value) -> Vec<Finding> {
    if let Err(e) = doc::check_value(baseline) {
        return vec![invalid(&describe(e))];
    }
    let host = baseline
        .get("host")
        .and_then(Value::as_str)
        .unwrap_or("unnamed");
    let fp = baseline
        .pointer("/fingerprint/id")
        .and_then(Value::as_str)
        .unwrap_or("-");
    let origin = format!("baseline: host {host}, fingerprint {fp}");
    let ds = drifts(baseline, now);
    if ds.is_empty() {
        return vec![
            Finding::pass(format!("no drift from the baseline of host {host}"))
                .evidence(origin)
                .evidence(
                    "compared where both reports know them: ROCm version, HIP runtime, driver, \
                     GPU count and models, firmware, partitions, key environment, check verdicts",
                ),
        ];
    }
    ds.into_iter()
        .map(|d| {
            let fix = match d.what.strip_prefix("env:") {
                Some(var) if d.baseline == UNSET => Fix::text(format!(
                    "Unset {var} as on the baseline node, or save a new baseline if the \
                         change is intended."
                ))
                .command(format!("unset {var}")),
                Some(var) => Fix::text(format!(
                    "Set {var} as on the baseline node, or save a new baseline if the change is \
                        intended."
                ))
                .set_env(var, d.baseline.clone()),
                None if d.what == "check verdict" => Fix::text(format!(
                    "See this report's own {} finding (and `rocm-doctor explain {}`): it says \
                        what changed and how to fix it.",
                    d.subject.as_deref().unwrap_or(""),
                    d.subject.as_deref().unwrap_or("")
                )),
                None => Fix::text(
                    "Bring this node back to the baseline's stack (the ROCm release, driver, \
                        firmware and GPU configuration of the known-good node), or, if the change \
                        is intended, save a new baseline from a node known to be good.",
                )
                .command("rocm-doctor --json > GOOD.json"),
            };
            Finding::warn(format!(
                "{} drifted from the baseline: {} -> {}",
                d.kind(),
                d.baseline,
                d.now
            ))
            .subject(d.kind())
            .evidence(origin.clone())
            .evidence(format!("baseline: {}", d.baseline))
            .evidence(format!("now: {}", d.now))
            .fix(fix)
        })
        .collect()
}

/// The finding for a baseline that could not be read or is not a usable report.
pub(crate) fn invalid(detail: &str) -> Finding {
    Finding::error(format!(
        "the baseline cannot be used, so drift was not judged: {detail}"
    ))
    .evidence(detail.to_string())
    .fix_text(
        "Pass a report saved with `rocm-doctor --json` on a known-good node by this version \
             of the doctor (the same schema_version).",
    )
}

/// `--baseline FILE`: the findings for this node's report, or the error finding when the file
/// cannot be read or used. Never panics.
pub(crate) fn findings_for_file(path: &Path, now: &Value) -> Vec<Finding> {
    match read(path) {
        Ok(b) => findings(&b, now),
        Err(e) => vec![invalid(&e)],
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn report() -> Value {
        json!({
            "schema_version": crate::report::json::SCHEMA_VERSION,
            "tool": {"name": "rocm-doctor", "version": "0"},
            "host": "gold",
            "fingerprint": {"id": "fnv1a64:0", "driver": "6.8.5"},
            "findings": [
                {"id": "gpu.kfd", "status": "pass"},
                {"id": "gpu.render", "status": "pass", "subject": "node 2"},
                {"id": "gpu.render", "status": "skip", "subject": "node 3"}
            ],
            "inventory": {
                "rocm_roots": [{"path": "/opt/rocm", "versions": {"rocm": {"version": "6.2.0"}}}],
                "libraries": [{"name": "amdhip64", "version": "6.2.41133"}]
            },
            "agents": [
                {"target": "gfx90a:sramecc+", "vendor_id": 4098, "device_id": 29711,
                 "fw_version": 92, "sdma_fw_version": 9}
            ],
            "environment": {"ROCM_PATH": "/opt/rocm", "HIP_PATH": null}
        })
    }

    #[test]
    fn same_report_no_drift() {
        let r = report();
        assert!(drifts(&r, &r).is_empty());
        let f = findings(&r, &r);
        assert_eq!(f.len(), 1);
        assert_eq!(f[0].status, Status::Pass);
    }

    #[test]
    fn each_fact_drifts() {
        let b = report();
        let mut n = report();
        n["inventory"]["rocm_roots"][0]["versions"]["rocm"]["version"] = json!("6.3.0");
        n["inventory"]["libraries"][0]["version"] = json!("6.3.42131");
        n["fingerprint"]["driver"] = json!("6.10.5");
        n["agents"][0]["device_id"] = json!(29856);
        n["agents"][0]["fw_version"] = json!(90);
        n["environment"]["HIP_PATH"] = json!("/opt/hip");
        n["findings"][2]["status"] = json!("fail");
        let second = n["agents"][0].clone();
        n["agents"].as_array_mut().unwrap().push(second);
        let d: Vec<String> = drifts(&b, &n).iter().map(Drift::kind).collect();
        assert_eq!(
            d,
            [
                "rocm version",
                "hip runtime",
                "driver",
                "gpu count",
                "gpu model",
                "firmware",
                "env:HIP_PATH",
                "check verdict gpu.render"
            ]
        );
        let f = findings(&b, &n);
        assert!(f
            .iter()
            .all(|f| f.status == Status::Warn && f.fix.is_some()));
        let hip = f
            .iter()
            .find(|f| f.subject.as_deref() == Some("env:HIP_PATH"))
            .unwrap();
        assert_eq!(
            hip.fix.as_ref().unwrap().commands,
            ["unset HIP_PATH".to_string()]
        );
    }

    #[test]
    fn unknown_facts_are_skipped() {
        let b = report();
        let mut n = report();
        for k in ["inventory", "agents", "environment"] {
            n.as_object_mut().unwrap().remove(k);
        }
        n["findings"] = json!([{"id": "toolchain.lld", "status": "fail"}]);
        n["fingerprint"] = json!({"id": "x", "driver": null});
        assert_eq!(drifts(&b, &n), []);
    }

    #[test]
    fn health_section_when_both_have_it() {
        let b = report();
        let mut n = report();
        n["health"] = json!({"gpus": [{"firmware": {"mec": 92}, "compute_partition": "CPX"}]});
        assert_eq!(drifts(&b, &n), [], "absent in the baseline: skipped");
        let mut b2 = b.clone();
        b2["health"] = json!([{"firmware": {"mec": 92}, "compute_partition": "SPX"},
                               {"firmware": {"mec": 92}, "compute_partition": "SPX"}]);
        let d = drifts(&b2, &n);
        assert_eq!(d.len(), 1, "{d:?}");
        assert_eq!(
            (
                d[0].what.as_str(),
                d[0].baseline.as_str(),
                d[0].now.as_str()
            ),
            (
                "partition",
                "compute_partition=SPX",
                "compute_partition=CPX"
            )
        );
        n["health"]["gpus"][0]["firmware"]["mec"] = json!(95);
        assert_eq!(drifts(&b2, &n).len(), 2);
    }

    #[test]
    fn invalid_baselines_are_an_error_finding() {
        let now = report();
        let mut old = report();
        old["schema_version"] = json!(1);
        let mut why = report();
        why["command"] = json!("why");
        for b in [json!("x"), json!({"kind": "Node"}), old, why] {
            let f = findings(&b, &now);
            assert_eq!(f.len(), 1);
            assert_eq!(f[0].status, Status::Error, "{b}");
        }
        for bytes in [&b""[..], b"{", b"not json", b"\xff\xfe", b"[]"] {
            assert!(parse(bytes).is_err());
        }
        let f = findings_for_file(Path::new("/nonexistent/good.json"), &now);
        assert_eq!(f[0].status, Status::Error);
    }
}

//! Golden-node drift (`--baseline`, `merge --baseline`) on fixture machines, and `--prometheus`
//! parsed back by a strict reader of the Prometheus text exposition format
//! (prometheus.io/docs/instrumenting/exposition_formats, "Text format details") and checked
//! against the `--json` report of the same run.

use crate::common::{doctor, fixture, json_of, run_json};
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

const MI210: &str = "k8s-mi210x8-gfx90a-xgmi";
const MI300: &str = "k8s-mi300x-cpx-gfx942";

/// Checks that pass on the MI210 fixture with a clean environment, and that judge the
/// environment the drift cases change.
const ONLY: &str = "gpu.agents,gpu.overrides,gpu.visibility,toolchain.env";

fn args(root: &str, extra: &[&str]) -> Vec<String> {
    let mut v: Vec<String> = vec![
        "--profile".into(),
        "runtime".into(),
        "--only".into(),
        ONLY.into(),
        "--sysroot".into(),
        fixture("sysroots", root).to_string_lossy().into_owned(),
    ];
    v.extend(extra.iter().map(|s| s.to_string()));
    v
}

/// `--json` of a fixture with `env`, as node `host`.
fn report(root: &str, host: &str, env: &[(&str, &str)], extra: &[&str]) -> (Value, i32) {
    let mut e = env.to_vec();
    e.push(("ROCM_DOCTOR_HOST", host));
    run_json(args(root, extra), &e)
}

fn save(dir: &Path, name: &str, v: &Value) -> String {
    let p = dir.join(name);
    std::fs::write(&p, serde_json::to_string_pretty(v).unwrap()).unwrap();
    p.to_string_lossy().into_owned()
}

fn baseline_findings(doc: &Value) -> Vec<&Value> {
    doc["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["id"] == "fleet.baseline")
        .collect()
}

/// The drift kinds (`subject`s of the warn findings), sorted.
fn drift_kinds(doc: &Value) -> Vec<String> {
    let mut v: Vec<String> = baseline_findings(doc)
        .iter()
        .filter(|f| f["status"] == "warn")
        .map(|f| f["subject"].as_str().unwrap().to_string())
        .collect();
    v.sort();
    v
}

#[test]
fn drift_cases_on_fixtures() {
    let dir = tempfile::tempdir().unwrap();
    let (gold, code) = report(MI210, "gold", &[], &[]);
    assert_eq!(code, 0, "{:#}", gold["findings"]);
    assert!(
        gold["environment"].is_object(),
        "reports record the key environment"
    );
    let good = save(dir.path(), "good.json", &gold);
    let b = ["--baseline", good.as_str()];

    // The same node: one pass finding, exit code unchanged.
    let (same, code) = report(MI210, "gold", &[], &b);
    assert_eq!(code, 0);
    let f = baseline_findings(&same);
    assert_eq!(f.len(), 1, "{f:#?}");
    assert_eq!(f[0]["status"], "pass");
    assert_eq!(f[0]["category"], "fleet");

    // The override set: the variable and the verdict it changes; warnings only (exit 0, 1 with
    // --strict).
    let hsa = [("HSA_OVERRIDE_GFX_VERSION", "9.0.10")];
    let (d, code) = report(MI210, "n1", &hsa, &b);
    assert_eq!(code, 0);
    assert_eq!(
        drift_kinds(&d),
        [
            "check verdict gpu.overrides",
            "env:HSA_OVERRIDE_GFX_VERSION"
        ]
    );
    let env = baseline_findings(&d)
        .into_iter()
        .find(|f| f["subject"] == "env:HSA_OVERRIDE_GFX_VERSION")
        .unwrap();
    assert_eq!(
        env["summary"],
        "env:HSA_OVERRIDE_GFX_VERSION drifted from the baseline: (unset) -> 9.0.10"
    );
    assert_eq!(env["fix"]["commands"][0], "unset HSA_OVERRIDE_GFX_VERSION");
    let strict: Vec<&str> = b.iter().copied().chain(["--strict"]).collect();
    assert_eq!(report(MI210, "n1", &hsa, &strict).1, 1);

    // ROCM_PATH changed (to a root that does not exist: toolchain.env fails).
    let (d, code) = report(MI210, "n2", &[("ROCM_PATH", "/opt/rocm-9.9.9")], &b);
    assert_eq!(code, 1);
    assert_eq!(
        drift_kinds(&d),
        ["check verdict toolchain.env", "env:ROCM_PATH"]
    );

    // Another GPU model (the MI300X CPX fixture): count, model, firmware.
    let (d, _) = report(MI300, "n3", &[], &b);
    assert_eq!(drift_kinds(&d), ["firmware", "gpu count", "gpu model"]);
    let model = baseline_findings(&d)
        .into_iter()
        .find(|f| f["subject"] == "gpu model")
        .unwrap();
    let s = model["summary"].as_str().unwrap();
    assert!(s.contains("gfx90a:sramecc+ [1002:740f] -> gfx942"), "{s}");

    // A run of other checks: the verdicts of checks that did not run in both are not compared
    // (toolchain.env did not run here); the environment is always recorded, so it is.
    let root = fixture("sysroots", MI210);
    let (d, _) = run_json(
        [
            "--profile",
            "runtime",
            "--only",
            "gpu.agents",
            "--sysroot",
            root.to_str().unwrap(),
            "--baseline",
            &good,
        ],
        &[("ROCM_PATH", "/elsewhere")],
    );
    assert_eq!(drift_kinds(&d), ["env:ROCM_PATH"]);
}

#[test]
fn unusable_baselines_are_an_error_finding_never_a_crash() {
    let dir = tempfile::tempdir().unwrap();
    let (gold, _) = report(MI210, "gold", &[], &[]);
    let text = serde_json::to_string_pretty(&gold).unwrap();
    let mut old = gold.clone();
    old["schema_version"] = 1.into();
    let mut cases: Vec<(String, &str)> = vec![
        (save(dir.path(), "old.json", &old), "schema-version"),
        (
            save(
                dir.path(),
                "foreign.json",
                &serde_json::json!({"kind": "Node"}),
            ),
            "foreign",
        ),
        (
            dir.path()
                .join("missing.json")
                .to_string_lossy()
                .into_owned(),
            "missing.json",
        ),
    ];
    for (name, body, why) in [
        ("garbage.json", "not json\u{0}", "corrupt"),
        ("cut.json", &text[..text.len() / 2], "truncated"),
        ("empty.json", "", "truncated"),
    ] {
        let p = dir.path().join(name);
        std::fs::write(&p, body).unwrap();
        cases.push((p.to_string_lossy().into_owned(), why));
    }
    for (path, why) in &cases {
        let (d, code) = report(MI210, "n", &[], &["--baseline", path]);
        assert_eq!(code, 1, "{path}");
        let f = baseline_findings(&d);
        assert_eq!(f.len(), 1, "{path}");
        assert_eq!(f[0]["status"], "error", "{path}");
        let s = f[0]["summary"].as_str().unwrap();
        assert!(s.contains(why), "{path}: {s}");
        // The other outputs too: --npd says Unknown (2), the human view exits 1.
        let out = doctor()
            .args(args(MI210, &["--npd", "--baseline", path]))
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{path}");
        let out = doctor()
            .args(args(MI210, &["--baseline", path]))
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(1), "{path}");
        assert!(!String::from_utf8_lossy(&out.stderr).contains("panicked"));
    }
}

/// Environment variables of one run.
type Env<'a> = &'a [(&'a str, &'a str)];

fn names(v: &Value) -> Vec<String> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_str().unwrap().to_string())
        .collect()
}

#[test]
fn merge_lists_the_drifting_nodes_per_kind() {
    let dir = tempfile::tempdir().unwrap();
    let reports = dir.path().join("reports");
    std::fs::create_dir(&reports).unwrap();
    let (gold, _) = report(MI210, "gold", &[], &[]);
    let good = save(dir.path(), "good.json", &gold);
    let hsa = [("HSA_OVERRIDE_GFX_VERSION", "9.0.10")];
    let nodes: [(&str, &str, Env); 5] = [
        ("a1", MI210, &[]),
        ("a2", MI210, &[]),
        ("a3", MI210, &hsa),
        ("a4", MI210, &hsa),
        ("b1", MI300, &[]),
    ];
    for (h, root, env) in nodes {
        let (d, _) = report(root, h, env, &[]);
        save(&reports, &format!("{h}.json"), &d);
    }
    let out = doctor()
        .args(["merge", "--json", "--baseline", &good])
        .arg(&reports)
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "drift alone does not fail a fleet"
    );
    let r = json_of(&out);
    let b = &r["baseline"];
    assert_eq!(
        (b["host"].as_str(), b["compared"].as_u64()),
        (Some("gold"), Some(5))
    );
    assert_eq!(b["drifting"], 3);
    let got: BTreeMap<String, Vec<String>> = b["drifts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| (d["kind"].as_str().unwrap().to_string(), names(&d["nodes"])))
        .collect();
    let want: BTreeMap<String, Vec<String>> = [
        ("check verdict gpu.overrides", vec!["a3", "a4"]),
        ("env:HSA_OVERRIDE_GFX_VERSION", vec!["a3", "a4"]),
        ("firmware", vec!["b1"]),
        ("gpu count", vec!["b1"]),
        ("gpu model", vec!["b1"]),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v.into_iter().map(String::from).collect()))
    .collect();
    assert_eq!(got, want);
    let env = b["drifts"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["kind"] == "env:HSA_OVERRIDE_GFX_VERSION")
        .unwrap();
    assert_eq!(env["baseline"], "(unset)");
    assert_eq!(env["now"][0]["value"], "9.0.10");
    // A node that drifts is at least warn.
    assert_eq!(names(&r["nodes"]["ok"]), ["a1", "a2"]);
    assert!(names(&r["nodes"]["warn"]).contains(&"b1".to_string()));

    let out = doctor()
        .args(["merge", "--baseline", &good])
        .arg(&reports)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("3 of 5 node(s) drift"), "{text}");
    assert!(
        text.contains(
            "env:HSA_OVERRIDE_GFX_VERSION (baseline: (unset)) on 2 node(s)\n      9.0.10: a3, a4"
        ),
        "{text}"
    );

    // An unusable baseline is a usage error of merge (exit 2), not a fleet result.
    let out = doctor()
        .args(["merge", "--baseline", "/nonexistent/good.json"])
        .arg(&reports)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
}

/// One parsed sample.
#[derive(Debug)]
struct Sample {
    name: String,
    labels: BTreeMap<String, String>,
    value: f64,
}

fn is_name(s: &str, colon: bool) -> bool {
    let mut it = s.chars();
    let ok_first = |c: char| c.is_ascii_alphabetic() || c == '_' || (colon && c == ':');
    it.next().is_some_and(ok_first)
        && it.all(|c| c.is_ascii_alphanumeric() || c == '_' || (colon && c == ':'))
}

/// A strict reader of the text format: every line a `# HELP`/`# TYPE` comment or a sample
/// `name{labels} value`; names and label names valid; label values with only `\\`, `\"` and
/// `\n` escapes; HELP and TYPE once per name, both before its first sample; samples of a
/// name contiguous; values f64; no timestamps; the text ends with a line feed.
fn parse_prom(text: &str) -> Vec<Sample> {
    assert!(
        text.ends_with('\n'),
        "the last line must end with a line feed"
    );
    let mut help: BTreeSet<String> = BTreeSet::new();
    let mut typed: BTreeSet<String> = BTreeSet::new();
    let mut done: BTreeSet<String> = BTreeSet::new();
    let mut current: Option<String> = None;
    let mut out = Vec::new();
    for line in text.lines() {
        assert!(!line.is_empty(), "no empty lines");
        if let Some(rest) = line.strip_prefix("# ") {
            let (kw, rest) = rest.split_once(' ').expect(line);
            let (name, arg) = rest.split_once(' ').expect(line);
            assert!(is_name(name, true), "{line}");
            assert!(
                !done.contains(name) && current.as_deref() != Some(name),
                "metadata after samples: {line}"
            );
            match kw {
                "HELP" => {
                    assert!(help.insert(name.to_string()), "second HELP: {line}");
                    let mut chars = arg.chars();
                    while let Some(c) = chars.next() {
                        if c == '\\' {
                            assert!(matches!(chars.next(), Some('\\' | 'n')), "{line}");
                        }
                    }
                }
                "TYPE" => {
                    assert!(typed.insert(name.to_string()), "second TYPE: {line}");
                    assert!(
                        ["counter", "gauge", "histogram", "summary", "untyped"].contains(&arg),
                        "{line}"
                    );
                }
                _ => panic!("unknown comment: {line}"),
            }
            continue;
        }
        assert!(!line.starts_with('#'), "{line}");
        let name_end = line.find(['{', ' ']).expect(line);
        let name = &line[..name_end];
        assert!(is_name(name, true), "{line}");
        assert!(
            help.contains(name) && typed.contains(name),
            "HELP and TYPE before {line}"
        );
        if current.as_deref() != Some(name) {
            if let Some(c) = current.take() {
                done.insert(c);
            }
            assert!(!done.contains(name), "samples of {name} not contiguous");
            current = Some(name.to_string());
        }
        let mut rest = &line[name_end..];
        let mut labels = BTreeMap::new();
        if let Some(r) = rest.strip_prefix('{') {
            let mut r = r;
            loop {
                if let Some(after) = r.strip_prefix('}') {
                    r = after;
                    break;
                }
                let (lname, after) = r.split_once("=\"").expect(line);
                assert!(is_name(lname, false), "{line}");
                let mut value = String::new();
                let mut chars = after.char_indices();
                let end = loop {
                    let (i, c) = chars.next().expect("unterminated label value");
                    match c {
                        '\\' => match chars.next().map(|x| x.1) {
                            Some('\\') => value.push('\\'),
                            Some('"') => value.push('"'),
                            Some('n') => value.push('\n'),
                            other => panic!("bad escape {other:?}: {line}"),
                        },
                        '"' => break i,
                        '\n' => panic!("raw line feed"),
                        c => value.push(c),
                    }
                };
                assert!(labels.insert(lname.to_string(), value).is_none(), "{line}");
                r = &after[end + 1..];
                r = r.strip_prefix(',').unwrap_or(r);
            }
            rest = r;
        }
        let v = rest.strip_prefix(' ').expect(line);
        assert!(!v.contains(' '), "no timestamps in a textfile: {line}");
        let value: f64 = v.parse().unwrap_or_else(|_| panic!("value: {line}"));
        out.push(Sample {
            name: name.to_string(),
            labels,
            value,
        });
    }
    out
}

fn prometheus(root: &str, env: &[(&str, &str)], extra: &[&str]) -> (Vec<Sample>, i32, String) {
    let mut c = doctor();
    for (k, v) in env {
        c.env(k, v);
    }
    let out = c
        .args(args(root, extra))
        .arg("--prometheus")
        .output()
        .unwrap();
    assert!(
        out.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    (parse_prom(&text), out.status.code().unwrap(), text)
}

fn value(samples: &[Sample], name: &str, labels: &[(&str, &str)]) -> Option<f64> {
    let want: BTreeMap<String, String> = labels
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    let mut hits = samples
        .iter()
        .filter(|s| s.name == name && s.labels == want);
    let v = hits.next().map(|s| s.value);
    assert!(hits.next().is_none(), "duplicate series {name}{labels:?}");
    v
}

fn rank(s: &str) -> u8 {
    match s {
        "pass" => 0,
        "skip" => 1,
        "warn" => 2,
        "fail" => 3,
        _ => 4,
    }
}

/// The exposition agrees with the `--json` report of the same run.
fn agrees(samples: &[Sample], code: i32, json: &Value, json_code: i32, baseline: bool) {
    assert_eq!(code, json_code);
    assert_eq!(
        value(samples, "rocm_doctor_exit_code", &[]),
        Some(f64::from(code))
    );
    for st in ["pass", "skip", "warn", "fail", "error"] {
        assert_eq!(
            value(samples, "rocm_doctor_findings", &[("status", st)]),
            json["summary"][st].as_f64(),
            "{st}"
        );
    }
    let mut worst: BTreeMap<String, (String, String)> = BTreeMap::new();
    for f in json["findings"].as_array().unwrap() {
        let (id, cat, st) = (
            f["id"].as_str().unwrap(),
            f["category"].as_str().unwrap(),
            f["status"].as_str().unwrap(),
        );
        let e = worst
            .entry(id.to_string())
            .or_insert((cat.to_string(), st.to_string()));
        if rank(st) > rank(&e.1) {
            e.1 = st.to_string();
        }
    }
    let series = samples
        .iter()
        .filter(|s| s.name == "rocm_doctor_check_status")
        .count();
    assert_eq!(series, worst.len() * 5, "one-hot: five series per check");
    for (id, (cat, st)) in &worst {
        for s in ["pass", "skip", "warn", "fail", "error"] {
            let v = value(
                samples,
                "rocm_doctor_check_status",
                &[("id", id), ("category", cat), ("status", s)],
            );
            assert_eq!(v, Some(if s == st { 1.0 } else { 0.0 }), "{id} {s}");
        }
    }
    assert_eq!(
        value(samples, "rocm_doctor_gpus", &[]),
        json["agents"].as_array().map(|a| a.len() as f64)
    );
    let info = samples
        .iter()
        .find(|s| s.name == "rocm_doctor_info")
        .unwrap();
    assert_eq!(info.value, 1.0);
    assert_eq!(
        info.labels["version"],
        json["tool"]["version"].as_str().unwrap()
    );
    assert_eq!(
        info.labels["hip_version"],
        json["fingerprint"]["hip_runtime"].as_str().unwrap_or("")
    );
    assert_eq!(
        info.labels["rocm_version"],
        json.pointer("/inventory/rocm_roots/0/versions/rocm/version")
            .and_then(Value::as_str)
            .unwrap_or("")
    );
    let d = value(samples, "rocm_doctor_run_duration_seconds", &[]).unwrap();
    assert!(d > 0.0 && d < 120.0, "{d}");
    let drifts = json["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["id"] == "fleet.baseline" && f["status"] == "warn")
        .count();
    assert_eq!(
        value(samples, "rocm_doctor_baseline_drifts", &[]),
        baseline.then_some(drifts as f64)
    );
}

#[test]
fn prometheus_output_parses_back_and_matches_the_json() {
    let dir = tempfile::tempdir().unwrap();
    let (gold, _) = report(MI210, "gold", &[], &[]);
    let good = save(dir.path(), "good.json", &gold);
    let hsa = [("HSA_OVERRIDE_GFX_VERSION", "9.0.10")];
    let b = ["--baseline", good.as_str()];

    // With drifts (warnings: exit 0).
    let (s, code, text) = prometheus(MI210, &hsa, &b);
    let (j, jcode) = run_json(args(MI210, &b), &hsa);
    agrees(&s, code, &j, jcode, true);
    assert_eq!(value(&s, "rocm_doctor_baseline_drifts", &[]), Some(2.0));
    assert!(
        text.contains(
            "rocm_doctor_check_status{id=\"gpu.overrides\",category=\"gpu\",status=\"warn\"} 1\n"
        ),
        "{text}"
    );

    // Without --only and without a baseline: failures (exit 1), no drift metric.
    let full = |extra: &[&str]| -> Vec<String> {
        let mut v = vec![
            "--profile".to_string(),
            "runtime".into(),
            "--sysroot".into(),
            fixture("sysroots", MI300).to_string_lossy().into_owned(),
        ];
        v.extend(extra.iter().map(|s| s.to_string()));
        v
    };
    let out = doctor().args(full(&["--prometheus"])).output().unwrap();
    let s = parse_prom(&String::from_utf8(out.stdout).unwrap());
    // --prometheus reads 5 boots' kernel logs by default (kernel.history); the JSON run is asked to.
    let (j, jcode) = run_json(full(&["--boots", "5"]), &[]);
    agrees(&s, out.status.code().unwrap(), &j, jcode, false);
    assert_eq!(jcode, 1);

    // An unusable baseline: error, exit 1, no drift metric, fleet.baseline one-hot on error.
    let bad = dir.path().join("bad.json");
    std::fs::write(&bad, "{").unwrap();
    let bad = bad.to_string_lossy().into_owned();
    let (s, code, _) = prometheus(MI210, &[], &["--baseline", &bad]);
    assert_eq!(code, 1);
    assert_eq!(value(&s, "rocm_doctor_baseline_drifts", &[]), None);
    assert_eq!(
        value(
            &s,
            "rocm_doctor_check_status",
            &[
                ("id", "fleet.baseline"),
                ("category", "fleet"),
                ("status", "error")
            ]
        ),
        Some(1.0)
    );

    // --prometheus with --json or --npd is a usage error.
    for other in ["--json", "--npd"] {
        let out = doctor().args(["--prometheus", other]).output().unwrap();
        assert_eq!(out.status.code(), Some(2));
    }
}

#[test]
fn the_strict_reader_rejects_bad_text() {
    let ok = "# HELP a x\n# TYPE a gauge\na{l=\"q\\\"\\\\\\n\"} 1\n";
    assert_eq!(parse_prom(ok)[0].labels["l"], "q\"\\\n");
    for bad in [
        "a 1\n",                                         // no HELP/TYPE
        "# HELP a x\n# TYPE a gauge\na{l=\"\\x\"} 1\n",  // bad escape
        "# HELP a x\n# TYPE a gauge\na 1 123\n",         // timestamp
        "# HELP a x\n# TYPE a gauge\n1a 1\n",            // name
        "# HELP a x\n# TYPE a gauge\na one\n",           // value
        "# HELP a x\n# TYPE a gauge\na 1",               // no final line feed
        "# HELP a x\n# TYPE a gauge\na 1\n# HELP a y\n", // metadata after samples
    ] {
        let r = std::panic::catch_unwind(|| parse_prom(bad));
        assert!(r.is_err(), "accepted: {bad:?}");
    }
}

//! `rocm-doctor merge` on a generated fleet: real reports of the fixture machines (MI210 XGMI,
//! MI300X CPX, Vega10), copied per host with injected differences; the summary must name exactly
//! the injected outliers and failures, and bad inputs must become notes, never a crash.

use crate::common::{doctor, json_of};
use rocm_doctor::fleet::fingerprint::Fingerprint;
use serde_json::{json, Value};
use std::path::Path;

fn real_report(fixture: &str) -> Value {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/sysroots")
        .join(fixture);
    let out = doctor()
        .args(["--json", "--profile", "runtime", "--sysroot"])
        .arg(root)
        .env("ROCM_DOCTOR_HOST", "template")
        .output()
        .expect("run rocm-doctor");
    let doc = json_of(&out);
    assert_eq!(doc["host"], "template");
    assert!(doc["fingerprint"]["id"]
        .as_str()
        .unwrap()
        .starts_with("fnv1a64:"));
    doc
}

/// A copy of `base` for `host`, with the fingerprint changed by `edit` (id recomputed).
fn node(base: &Value, host: &str, edit: impl FnOnce(&mut Fingerprint)) -> Value {
    let mut d = base.clone();
    d["host"] = json!(host);
    let mut fp: Fingerprint = serde_json::from_value(d["fingerprint"].clone()).unwrap();
    fp.hip_runtime = Some("6.2.41133".into());
    fp.driver = Some("6.8.5".into());
    edit(&mut fp);
    fp.id = fp.compute_id();
    d["fingerprint"] = serde_json::to_value(fp).unwrap();
    d
}

fn merge(args: &[&str], stdin: Option<&[u8]>) -> (Value, i32) {
    let mut c = doctor();
    c.arg("merge").arg("--json").args(args);
    if let Some(s) = stdin {
        c.write_stdin(s.to_vec());
    }
    let out = c.output().unwrap();
    (json_of(&out), out.status.code().unwrap_or(-1))
}

fn names(v: &Value) -> Vec<String> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_str().unwrap().to_string())
        .collect()
}

#[test]
fn fleet_summary_names_exactly_the_injected_outliers() {
    let mi210 = real_report("k8s-mi210x8-gfx90a-xgmi");
    let dir = tempfile::tempdir().unwrap();
    let write = |name: &str, v: &Value| {
        std::fs::write(
            dir.path().join(format!("{name}.json")),
            serde_json::to_string_pretty(v).unwrap(),
        )
        .unwrap()
    };
    for i in 0..30 {
        let h = format!("node-{i:03}");
        let d = match i {
            7 => node(&mi210, &h, |f| f.hip_runtime = Some("6.1.40091".into())),
            13 => node(&mi210, &h, |f| f.firmware = vec!["90/9".into()]),
            21 => node(&mi210, &h, |f| {
                f.gpu_count = Some(7);
            }),
            _ => node(&mi210, &h, |_| {}),
        };
        write(&h, &d);
    }
    // A node of another model in the same fleet (real MI300X CPX report): count, ISA, firmware.
    let mi300 = real_report("k8s-mi300x-cpx-gfx942");
    write("node-100", &node(&mi300, "node-100", |_| {}));

    let (r, code) = merge(&[dir.path().to_str().unwrap()], None);
    assert_eq!(code, 1, "the fixtures fail real checks");
    assert_eq!(r["command"], "merge");
    assert_eq!(r["reports"], 31);
    let mut out: Vec<(String, String, Vec<String>)> = r["outliers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| {
            (
                o["field"].as_str().unwrap().to_string(),
                o["value"].as_str().unwrap().to_string(),
                names(&o["nodes"]),
            )
        })
        .collect();
    out.sort();
    // The MI300X node differs by model (isas); its firmware and GPU count are compared only
    // with nodes of its own model, so they are not outliers.
    let want: Vec<(String, String, Vec<String>)> = [
        ("firmware", "90/9", "node-013"),
        ("gpu_count", "7", "node-021"),
        ("hip_runtime", "6.1.40091", "node-007"),
        ("isas", "gfx942:sramecc+", "node-100"),
    ]
    .iter()
    .map(|(a, b, c)| (a.to_string(), b.to_string(), vec![c.to_string()]))
    .collect();
    assert_eq!(out, want);
    let hip = r["outliers"]
        .as_array()
        .unwrap()
        .iter()
        .find(|o| o["field"] == "hip_runtime")
        .unwrap();
    assert_eq!(
        (hip["majority"].as_str(), hip["majority_count"].as_u64()),
        (Some("6.2.41133"), Some(30))
    );
    // The same failure on every node is one group with all 31 hosts.
    let driver: Vec<&Value> = r["checks"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["id"] == "gpu.driver")
        .collect();
    assert_eq!(driver.len(), 1);
    assert_eq!(driver[0]["count"], 31);
    assert_eq!(names(&r["nodes"]["fail"]).len(), 31);
    assert!(r["notes"].as_array().unwrap().is_empty(), "{}", r["notes"]);
}

#[test]
fn bad_inputs_become_notes_never_a_crash() {
    let vega = real_report("k8s-vega10-gfx900");
    let dir = tempfile::tempdir().unwrap();
    let p = |n: &str| dir.path().join(n);
    let good = serde_json::to_string_pretty(&node(&vega, "v-1", |_| {})).unwrap();
    std::fs::write(p("v-1.json"), &good).unwrap();
    std::fs::write(p("truncated.json"), &good[..good.len() / 2]).unwrap();
    std::fs::write(p("dup.json"), &good).unwrap();
    std::fs::write(p("foreign.json"), r#"{"apiVersion":"v1","kind":"Node"}"#).unwrap();
    let mut old = node(&vega, "v-old", |_| {});
    old["schema_version"] = json!(1);
    std::fs::write(p("old.json"), old.to_string()).unwrap();
    std::fs::write(p("garbage.json"), "\u{0}\u{1}not json at all").unwrap();
    std::fs::write(p("empty.json"), "").unwrap();
    std::fs::write(p("expect.txt"), "v-1 v-2").unwrap();
    let expect = p("expect.txt");
    let (r, code) = merge(
        &[
            "--expect",
            expect.to_str().unwrap(),
            dir.path().to_str().unwrap(),
            "/nonexistent/x.json",
        ],
        None,
    );
    assert_eq!(code, 1);
    assert_eq!(r["reports"], 1);
    let mut kinds: Vec<String> = r["notes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n["kind"].as_str().unwrap().to_string())
        .collect();
    kinds.sort();
    assert_eq!(
        kinds,
        [
            "corrupt",
            "duplicate",
            "foreign",
            "missing",
            "missing",
            "missing",
            "schema-version",
            "truncated"
        ],
        "{:#}",
        r["notes"]
    );
    let text = r["notes"].to_string();
    assert!(
        text.contains("v-2") && text.contains("empty input") && text.contains("schema_version 1"),
        "{text}"
    );

    // Random bytes and random cuts of a real report: always a summary, never a crash.
    let bytes = good.as_bytes();
    for cut in (0..bytes.len()).step_by(bytes.len() / 37 + 1) {
        let f = p("cut.json");
        std::fs::write(&f, &bytes[..cut]).unwrap();
        let out = doctor().args(["merge", "--json"]).arg(&f).output().unwrap();
        assert!(matches!(out.status.code(), Some(0) | Some(1)), "cut {cut}");
        json_of(&out);
    }
}

#[test]
fn pdsh_streams_with_interleaved_host_prefixes() {
    let mi210 = real_report("k8s-mi210x8-gfx90a-xgmi");
    let a = serde_json::to_string_pretty(&node(&mi210, "ignored", |_| {})).unwrap();
    // pdsh: every line prefixed `host: `, hosts interleaved line by line; reports without host.
    let strip = |s: &str| -> Vec<String> {
        let mut v: Value = serde_json::from_str(s).unwrap();
        v.as_object_mut().unwrap().remove("host");
        serde_json::to_string_pretty(&v)
            .unwrap()
            .lines()
            .map(str::to_string)
            .collect()
    };
    let la = strip(&a);
    let mut stream = String::new();
    for (i, l) in la.iter().enumerate() {
        stream.push_str(&format!("gpu-a: {l}\n"));
        stream.push_str(&format!("gpu-b: {}\n", la[i]));
    }
    stream.push_str("gpu-c: ssh: connect to host gpu-c port 22: Connection refused\n");
    // One NDJSON line (srun/clush with a compact report) and a cut one at the end.
    let mut one: Value = serde_json::from_str(&a).unwrap();
    one["host"] = json!("gpu-d");
    stream.push_str(&format!("{}\n", one));
    stream.push_str("gpu-f: \u{fffd}\n");
    stream.push_str(&format!("gpu-e: {}\n", &la[..5].join("\n")));
    // Invalid UTF-8 spoils its own document only.
    let mut stream = stream.into_bytes();
    stream.extend_from_slice(b"gpu-g: {\"x\": \"\xff\xfe\"}\n");
    let (r, _) = merge(&["-"], Some(&stream));
    let mut hosts: Vec<String> = Vec::new();
    for v in r["nodes"].as_object().unwrap().values() {
        hosts.extend(names(v));
    }
    hosts.sort();
    assert_eq!(hosts, ["gpu-a", "gpu-b", "gpu-d"]);
    let notes = r["notes"].to_string();
    assert!(
        notes.contains("gpu-g") && notes.contains("foreign"),
        "{notes}"
    );
    assert!(
        notes.contains("Connection refused") && notes.contains("gpu-c"),
        "{notes}"
    );
    assert!(
        notes.contains("truncated") || notes.contains("corrupt"),
        "{notes}"
    );
}

#[test]
fn human_view_lists_groups_and_outliers() {
    let mi210 = real_report("k8s-mi210x8-gfx90a-xgmi");
    let dir = tempfile::tempdir().unwrap();
    for i in 0..3 {
        let h = format!("n{i}");
        let d = node(&mi210, &h, |f| {
            if i == 2 {
                f.driver = Some("6.10.5".into())
            }
        });
        std::fs::write(dir.path().join(format!("{h}.json")), d.to_string()).unwrap();
    }
    let out = doctor().arg("merge").arg(dir.path()).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.starts_with("3 nodes: 0 ok, 0 warn, 3 fail"), "{text}");
    assert!(
        text.contains("driver = 6.10.5 on n2 (majority of all nodes: 6.8.5 on 2 node(s))"),
        "{text}"
    );
    assert!(
        text.contains("FAIL gpu.driver on 3 node(s): amdgpu is not loaded"),
        "{text}"
    );
}

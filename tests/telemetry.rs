//! Per-GPU telemetry (issue 26, item 5): `--prometheus` parsed back by a strict reader of the
//! text exposition format (prometheus.io/docs/instrumenting/exposition_formats, "Text format
//! details") and compared series by series, value by value, with the `telemetry` section of
//! `--json` on the same fixture, healthy and degraded; the ISA label joined from KFD, a hostile
//! product name escaped, GPU resets from the kernel log, unsupported and unreadable files left
//! out (never a zero, never a crash).

use crate::common::{copy_tree, doctor, find_tool, fixture, need_tool, run_json};
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

type Labels = BTreeMap<String, String>;
/// (metric name, labels) -> value.
type Series = BTreeMap<(String, Labels), f64>;

fn is_name(s: &str, colon: bool) -> bool {
    let mut it = s.chars();
    let first = |c: char| c.is_ascii_alphabetic() || c == '_' || (colon && c == ':');
    it.next().is_some_and(first)
        && it.all(|c| c.is_ascii_alphanumeric() || c == '_' || (colon && c == ':'))
}

/// The exposition read strictly: `# HELP`/`# TYPE` once per name, both before its samples;
/// samples of a name contiguous; names and label names valid; label values with only the
/// `\\`, `\"`, `\n` escapes and no raw control character; no duplicate series; values f64; no
/// timestamps; `_total` exactly on counters; counters never negative; a final line feed.
/// Returns the series and each name's type.
fn parse_prom(text: &str) -> (Series, BTreeMap<String, String>) {
    assert!(text.ends_with('\n'), "no final line feed");
    let mut help = BTreeSet::new();
    let mut types: BTreeMap<String, String> = BTreeMap::new();
    let mut done = BTreeSet::new();
    let mut current: Option<String> = None;
    let mut series = Series::new();
    for line in text.lines() {
        assert!(!line.is_empty(), "empty line");
        assert!(
            !line.chars().any(|c| c.is_control()),
            "raw control character: {line:?}"
        );
        if let Some(rest) = line.strip_prefix("# ") {
            let (kw, rest) = rest.split_once(' ').expect(line);
            let (name, arg) = rest.split_once(' ').expect(line);
            assert!(is_name(name, true), "{line}");
            assert!(
                !done.contains(name) && current.as_deref() != Some(name),
                "metadata after samples: {line}"
            );
            match kw {
                "HELP" => assert!(help.insert(name.to_string()), "second HELP: {line}"),
                "TYPE" => {
                    assert!(["counter", "gauge"].contains(&arg), "{line}");
                    assert_eq!(
                        name.ends_with("_total"),
                        arg == "counter",
                        "`_total` names counters and only counters: {line}"
                    );
                    assert!(
                        types.insert(name.into(), arg.into()).is_none(),
                        "second TYPE: {line}"
                    );
                }
                _ => panic!("unknown comment: {line}"),
            }
            continue;
        }
        let name_end = line.find(['{', ' ']).expect(line);
        let name = &line[..name_end];
        assert!(is_name(name, true), "{line}");
        assert!(
            help.contains(name) && types.contains_key(name),
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
        let mut labels = Labels::new();
        if let Some(mut r) = rest.strip_prefix('{') {
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
                        c => value.push(c),
                    }
                };
                assert!(labels.insert(lname.into(), value).is_none(), "{line}");
                r = &after[end + 1..];
                r = r.strip_prefix(',').unwrap_or(r);
            }
            rest = r;
        }
        let v = rest.strip_prefix(' ').expect(line);
        assert!(!v.contains(' '), "timestamp: {line}");
        let value: f64 = v.parse().unwrap_or_else(|_| panic!("value: {line}"));
        if types[name] == "counter" {
            assert!(value >= 0.0, "negative counter: {line}");
        }
        assert!(
            series.insert((name.into(), labels), value).is_none(),
            "duplicate series: {line}"
        );
    }
    (series, types)
}

/// The per-GPU series only.
fn gpu_series(s: &Series) -> Series {
    s.iter()
        .filter(|((n, _), _)| n.starts_with("rocm_doctor_gpu_"))
        .map(|(k, v)| (k.clone(), *v))
        .collect()
}

fn text(v: &Value) -> String {
    v.as_str().unwrap_or("").to_string()
}

/// What `--prometheus` must print for the `telemetry` section of `--json`, derived here from
/// the JSON alone (the names and units of docs/fleet.md's table), so the two renderers are
/// checked against each other. The product name is compared after the exposition's own
/// rendering of control characters (`\x1b` as visible text), checked separately.
fn expected(telemetry: &Value) -> Series {
    let mut out = Series::new();
    let mut put = |name: &str, g: &Value, more: &[(&str, String)], v: &Value| {
        let Some(v) = v.as_f64() else { return };
        let mut l: Labels = [
            ("pci", text(&g["pci"])),
            ("model", text(&g["model"])),
            ("gfx", text(&g["gfx"])),
        ]
        .into_iter()
        .chain(more.iter().cloned())
        .map(|(k, v)| (k.to_string(), v))
        .collect();
        if name == "rocm_doctor_gpu_info" {
            l.insert("product".into(), visible(&text(&g["product"])));
            l.insert("card".into(), text(&g["card"]));
        }
        assert!(out.insert((name.into(), l), v).is_none());
    };
    for g in telemetry["gpus"].as_array().unwrap() {
        put("rocm_doctor_gpu_info", g, &[], &Value::from(1));
        for b in g["ras"].as_array().unwrap() {
            for ty in ["correctable", "uncorrectable", "deferred"] {
                let l = [("block", text(&b["block"])), ("type", ty.to_string())];
                put("rocm_doctor_gpu_ras_errors_total", g, &l, &b[ty]);
            }
        }
        if let Some(bp) = g["bad_pages"].as_object() {
            for st in ["retired", "pending", "failed"] {
                let l = [("state", st.to_string())];
                put("rocm_doctor_gpu_retired_pages", g, &l, &bp[st]);
            }
            put(
                "rocm_doctor_gpu_bad_page_threshold",
                g,
                &[],
                &bp["threshold"],
            );
        }
        let p = &g["pcie"];
        let per_s = |v: &Value| v.as_f64().map(|x| Value::from(x * 1e9)).unwrap_or_default();
        put(
            "rocm_doctor_gpu_pcie_current_link_transfers_per_second",
            g,
            &[],
            &per_s(&p["current_gts"]),
        );
        put(
            "rocm_doctor_gpu_pcie_max_link_transfers_per_second",
            g,
            &[],
            &per_s(&p["max_gts"]),
        );
        put(
            "rocm_doctor_gpu_pcie_current_link_width",
            g,
            &[],
            &p["current_width"],
        );
        put(
            "rocm_doctor_gpu_pcie_max_link_width",
            g,
            &[],
            &p["max_width"],
        );
        for a in p["aer"].as_array().unwrap() {
            for sev in ["correctable", "nonfatal", "fatal"] {
                let l = [("port", text(&a["port"])), ("severity", sev.to_string())];
                put("rocm_doctor_gpu_pcie_aer_errors_total", g, &l, &a[sev]);
            }
        }
        put("rocm_doctor_gpu_pcie_replays_total", g, &[], &p["replays"]);
        put(
            "rocm_doctor_gpu_pcie_metrics_replays_total",
            g,
            &[],
            &p["metrics_replays"],
        );
        put(
            "rocm_doctor_gpu_pcie_recoveries_total",
            g,
            &[],
            &p["metrics_recoveries"],
        );
        let sent = [("direction", "sent".to_string())];
        put("rocm_doctor_gpu_pcie_naks_total", g, &sent, &p["naks_sent"]);
        let rcvd = [("direction", "received".to_string())];
        put(
            "rocm_doctor_gpu_pcie_naks_total",
            g,
            &rcvd,
            &p["naks_received"],
        );
        for t in g["temperatures"].as_array().unwrap() {
            let l = [("sensor", text(&t["sensor"]))];
            put("rocm_doctor_gpu_temp_celsius", g, &l, &t["celsius"]);
            put(
                "rocm_doctor_gpu_temp_crit_celsius",
                g,
                &l,
                &t["crit_celsius"],
            );
            put(
                "rocm_doctor_gpu_temp_emergency_celsius",
                g,
                &l,
                &t["emergency_celsius"],
            );
        }
        if let Some(th) = g["throttle"].as_object() {
            let active = th["active"].as_array().unwrap();
            put(
                "rocm_doctor_gpu_throttlers_active",
                g,
                &[],
                &Value::from(active.len()),
            );
            for a in active {
                let l = [("throttler", text(&a["name"])), ("kind", text(&a["kind"]))];
                put("rocm_doctor_gpu_throttle_active", g, &l, &Value::from(1));
            }
        }
        if let Some(r) = g["resets"].as_object() {
            for res in ["started", "succeeded", "failed"] {
                let l = [("result", res.to_string())];
                put("rocm_doctor_gpu_resets_total", g, &l, &r[res]);
            }
        }
    }
    out
}

/// The exposition's rendering of a control character (`escape::visible`, `\x1b`).
fn visible(s: &str) -> String {
    s.chars()
        .map(|c| {
            if c.is_control() && c != '\n' {
                format!("\\x{:02x}", c as u32)
            } else {
                c.to_string()
            }
        })
        .collect()
}

fn run_prom(root: &Path, only: &str) -> (Series, BTreeMap<String, String>, String) {
    let out = doctor()
        .arg("--sysroot")
        .arg(root)
        .args(["--only", only, "--prometheus"])
        .output()
        .unwrap();
    assert!(
        matches!(out.status.code(), Some(0 | 1)),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let t = String::from_utf8(out.stdout).unwrap();
    let (s, types) = parse_prom(&t);
    (s, types, t)
}

fn run_both(root: &Path, only: &str) -> (Series, Value) {
    let (s, _, _) = run_prom(root, only);
    let (doc, _) = run_json(
        [
            "--sysroot".as_ref(),
            root.as_os_str(),
            "--only".as_ref(),
            only.as_ref(),
        ],
        &[],
    );
    (s, doc)
}

/// Both outputs of one fixture agree series by series; returns the per-GPU series.
fn agree(root: &Path, only: &str) -> Series {
    let (s, doc) = run_both(root, only);
    let got = gpu_series(&s);
    let want = expected(&doc["telemetry"]);
    let missing: Vec<_> = want.keys().filter(|k| !got.contains_key(*k)).collect();
    let extra: Vec<_> = got.keys().filter(|k| !want.contains_key(*k)).collect();
    assert!(
        missing.is_empty() && extra.is_empty(),
        "{}: missing {missing:?}\nextra {extra:?}",
        root.display()
    );
    for (k, v) in &want {
        assert_eq!(got[k], *v, "{}: {k:?}", root.display());
    }
    got
}

fn get(s: &Series, name: &str, pci: &str, more: &[(&str, &str)]) -> Option<f64> {
    s.iter()
        .find(|((n, l), _)| {
            n == name
                && l.get("pci").map(String::as_str) == Some(pci)
                && more
                    .iter()
                    .all(|(k, v)| l.get(*k).map(String::as_str) == Some(*v))
        })
        .map(|(_, v)| *v)
}

const HEALTH: &str = "health.";

#[test]
fn prometheus_telemetry_equals_the_json_on_every_health_fixture() {
    for f in [
        "health-mi210x4-ok",
        "health-mi210-degraded",
        "health-mi300x-aca",
        "health-empty-bad-pages",
        "health-navi-internal-switch",
        "health-pcie-aer",
        "health-r9700-throttle",
    ] {
        let s = agree(&fixture("sysroots", f), HEALTH);
        assert!(
            s.keys().any(|(n, _)| n == "rocm_doctor_gpu_info"),
            "{f}: no GPU"
        );
    }
}

#[test]
fn degraded_values_are_the_fixture_files() {
    // The values the fixtures' SOURCE.md documents, so that both renderers being wrong in the
    // same way would still fail.
    let s = agree(&fixture("sysroots", "health-mi210-degraded"), HEALTH);
    let ras = "rocm_doctor_gpu_ras_errors_total";
    let umc = |ty| [("block", "umc"), ("type", ty)];
    assert_eq!(
        get(&s, ras, "0000:63:00.0", &umc("uncorrectable")),
        Some(1.0)
    );
    assert_eq!(get(&s, ras, "0000:63:00.0", &umc("correctable")), Some(4.0));
    // 2-line form of Linux 6.8: no deferred count, so no deferred series (not a zero).
    assert_eq!(get(&s, ras, "0000:63:00.0", &umc("deferred")), None);
    let pages = "rocm_doctor_gpu_retired_pages";
    assert_eq!(
        get(&s, pages, "0000:63:00.0", &[("state", "retired")]),
        Some(8.0)
    );
    assert_eq!(
        get(&s, pages, "0000:63:00.0", &[("state", "pending")]),
        Some(1.0)
    );
    let thr = "rocm_doctor_gpu_bad_page_threshold";
    assert_eq!(get(&s, thr, "0000:63:00.0", &[]), Some(10.0));
    let w = "rocm_doctor_gpu_pcie_current_link_width";
    assert_eq!(get(&s, w, "0000:43:00.0", &[]), Some(8.0));
    assert_eq!(
        get(
            &s,
            "rocm_doctor_gpu_pcie_max_link_width",
            "0000:43:00.0",
            &[]
        ),
        Some(16.0)
    );
    assert_eq!(
        get(
            &s,
            "rocm_doctor_gpu_pcie_current_link_transfers_per_second",
            "0000:43:00.0",
            &[]
        ),
        Some(16e9)
    );
    let t = "rocm_doctor_gpu_temp_celsius";
    assert_eq!(
        get(&s, t, "0000:43:00.0", &[("sensor", "junction")]),
        Some(111.0)
    );
    assert_eq!(
        get(
            &s,
            "rocm_doctor_gpu_temp_crit_celsius",
            "0000:43:00.0",
            &[("sensor", "junction")]
        ),
        Some(110.0)
    );
    let th = "rocm_doctor_gpu_throttle_active";
    let hot = [("throttler", "TEMP_HOTSPOT"), ("kind", "temperature")];
    assert_eq!(get(&s, th, "0000:43:00.0", &hot), Some(1.0));
    assert_eq!(
        get(&s, "rocm_doctor_gpu_throttlers_active", "0000:63:00.0", &[]),
        Some(0.0)
    );
    // No kernel log read (the kernel checks did not run): no reset series at all.
    assert!(!s.keys().any(|(n, _)| n == "rocm_doctor_gpu_resets_total"));
}

#[test]
fn aer_per_port_and_unsupported_reads_left_out() {
    // health-pcie-aer (SOURCE.md): a non-fatal error counted only at the root port above
    // 0000:03:00.0, a fatal one on 0000:23:00.0, 250 correctable at the board switch above
    // 0000:43:00.0 with 320 replays; 0000:63:00.0's pcie_replay_count and the root port
    // 0000:60:01.1's aer_dev_fatal refused as unsupported (EOPNOTSUPP, EINVAL).
    let s = agree(&fixture("sysroots", "health-pcie-aer"), HEALTH);
    let aer = "rocm_doctor_gpu_pcie_aer_errors_total";
    let at = |port, sev| [("port", port), ("severity", sev)];
    assert_eq!(
        get(&s, aer, "0000:03:00.0", &at("0000:00:01.1", "nonfatal")),
        Some(2.0)
    );
    assert_eq!(
        get(&s, aer, "0000:03:00.0", &at("0000:03:00.0", "nonfatal")),
        Some(0.0)
    );
    assert_eq!(
        get(&s, aer, "0000:23:00.0", &at("0000:23:00.0", "fatal")),
        Some(1.0)
    );
    assert_eq!(
        get(&s, aer, "0000:43:00.0", &at("0000:42:00.0", "correctable")),
        Some(250.0)
    );
    let rp = "rocm_doctor_gpu_pcie_replays_total";
    assert_eq!(get(&s, rp, "0000:43:00.0", &[]), Some(320.0));
    // Unsupported: absent, not 0.
    assert_eq!(get(&s, rp, "0000:63:00.0", &[]), None);
    assert_eq!(
        get(&s, aer, "0000:63:00.0", &at("0000:60:01.1", "fatal")),
        None
    );
    assert_eq!(
        get(&s, aer, "0000:63:00.0", &at("0000:60:01.1", "nonfatal")),
        Some(0.0)
    );
}

#[test]
fn isa_from_kfd_and_a_hostile_product_name_escaped() {
    // health-mi210x4-ok's GPUs are nodes 2-5 of the real KFD capture k8s-mi210x8-gfx90a-xgmi
    // (its SOURCE.md): with that topology beside them, each GPU gets its ISA label. The FRU
    // product name is text from an EEPROM: quote, backslash, line feed and ESC must come out
    // escaped and read back as they were.
    let t = tempfile::tempdir().unwrap();
    let root = t.path().join("root");
    copy_tree(&fixture("sysroots", "health-mi210x4-ok"), &root);
    copy_tree(
        &fixture("sysroots", "k8s-mi210x8-gfx90a-xgmi").join("sys/class/kfd"),
        &root.join("sys/class/kfd"),
    );
    let gpu = std::fs::canonicalize(root.join("sys/class/drm/card0/device")).unwrap();
    let hostile = "MI210 \"x\" \\ y\nz\u{1b}[31m";
    std::fs::write(gpu.join("product_name"), format!("{hostile}\n")).unwrap();
    let only = "health.,gpu.agents";
    let s = agree(&root, only);
    let infos: Vec<&Labels> = s
        .keys()
        .filter(|(n, _)| n == "rocm_doctor_gpu_info")
        .map(|(_, l)| l)
        .collect();
    assert_eq!(infos.len(), 4);
    assert!(infos.iter().all(|l| l["gfx"] == "gfx90a"), "{infos:?}");
    let card0 = infos.iter().find(|l| l["card"] == "card0").unwrap();
    assert_eq!(card0["product"], "MI210 \"x\" \\ y\nz\\x1b[31m");
    let (_, doc) = run_both(&root, only);
    let g = &doc["telemetry"]["gpus"][0];
    assert_eq!(
        (g["card"].as_str(), g["product"].as_str()),
        (Some("card0"), Some(hostile))
    );
    // And the raw text: the line feed and the quotes escaped on one line.
    let (_, _, raw) = run_prom(&root, only);
    assert!(
        raw.contains(r#"product="MI210 \"x\" \\ y\nz\\x1b[31m""#),
        "{raw}"
    );
}

#[test]
fn resets_of_this_boot_from_the_kernel_log() {
    // The reset messages of the shared reference amdgpu-health.md §8.4 ([real] begin line; the
    // succeeded forms as the driver prints them), on this fixture's GPU 0000:63:00.0, after a
    // boot marker; and a reset of an earlier boot, which must not count.
    let t = tempfile::tempdir().unwrap();
    let root = t.path().join("root");
    copy_tree(&fixture("sysroots", "health-mi210-degraded"), &root);
    std::fs::create_dir_all(root.join("var/log")).unwrap();
    std::fs::write(
        root.join("var/log/kern.log"),
        "Aug 08 09:12:40 n1 kernel: Linux version 6.8.0-49-generic (buildd@lcy02) #49-Ubuntu SMP\n\
         Aug 08 10:00:00 n1 kernel: amdgpu 0000:63:00.0: amdgpu: GPU reset begin!\n\
         Aug 08 22:31:02 n1 kernel: Linux version 6.8.0-49-generic (buildd@lcy02) #49-Ubuntu SMP\n\
         Aug 08 23:04:34 n1 kernel: amdgpu 0000:63:00.0: amdgpu: GPU reset begin!\n\
         Aug 08 23:04:35 n1 kernel: amdgpu 0000:63:00.0: amdgpu: GPU reset succeeded, trying to resume\n\
         Aug 08 23:04:35 n1 kernel: [drm] VRAM is lost due to GPU reset!\n\
         Aug 08 23:04:36 n1 kernel: amdgpu 0000:63:00.0: amdgpu: GPU reset(2) succeeded!\n",
    )
    .unwrap();
    let s = agree(&root, "health.,kernel.");
    let r = "rocm_doctor_gpu_resets_total";
    let res = |x| [("result", x)];
    assert_eq!(get(&s, r, "0000:63:00.0", &res("started")), Some(1.0));
    assert_eq!(get(&s, r, "0000:63:00.0", &res("succeeded")), Some(1.0));
    assert_eq!(get(&s, r, "0000:63:00.0", &res("failed")), Some(0.0));
    // The other GPU: the log was read, it had none: zero, not absent.
    assert_eq!(get(&s, r, "0000:43:00.0", &res("started")), Some(0.0));
}

#[test]
fn no_health_checks_no_telemetry() {
    let root = fixture("sysroots", "health-mi210-degraded");
    let (s, doc) = run_both(&root, "toolchain.env");
    assert!(gpu_series(&s).is_empty());
    assert!(doc.get("telemetry").is_none(), "{doc}");
}

#[test]
fn unreadable_counters_are_left_out_as_nobody() {
    // A RAS counter and a temperature that exist but cannot be read (mode 000, run as nobody:
    // root reads anything): their series are absent from both outputs, the rest is there.
    use std::os::unix::fs::PermissionsExt;
    if !nix::unistd::geteuid().is_root() {
        eprintln!("skipped: needs root to run as nobody");
        return;
    }
    let Some(setpriv) = need_tool("setpriv") else {
        return;
    };
    let base = Path::new(env!("CARGO_TARGET_TMPDIR")).join("telemetry");
    std::fs::create_dir_all(&base).unwrap();
    std::fs::set_permissions(&base, std::fs::Permissions::from_mode(0o755)).unwrap();
    let t = tempfile::tempdir_in(&base).unwrap();
    std::fs::set_permissions(t.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    let root = t.path().join("root");
    copy_tree(&fixture("sysroots", "health-mi210-degraded"), &root);
    let gpu = std::fs::canonicalize(root.join("sys/class/drm/card0/device")).unwrap();
    for f in ["ras/umc_err_count", "hwmon/hwmon0/temp2_input"] {
        std::fs::set_permissions(gpu.join(f), std::fs::Permissions::from_mode(0o000)).unwrap();
    }
    let bin = assert_cmd::cargo::cargo_bin("rocm-doctor");
    let run = |fmt: &str| {
        let out = std::process::Command::new(&setpriv)
            .args(["--reuid=65534", "--regid=65534", "--clear-groups"])
            .arg(&bin)
            .env_clear()
            .env("PATH", "/usr/bin:/bin")
            .env("TMPDIR", "/tmp")
            .arg("--sysroot")
            .arg(&root)
            .args(["--only", HEALTH, fmt])
            .output()
            .unwrap();
        String::from_utf8(out.stdout).unwrap()
    };
    let prom = run("--prometheus");
    if prom.is_empty() {
        eprintln!("skipped: the binary is not reachable as nobody");
        return;
    }
    let (s, _) = parse_prom(&prom);
    let doc: Value = serde_json::from_str(&run("--json")).unwrap();
    let got = gpu_series(&s);
    assert_eq!(got, expected(&doc["telemetry"]));
    let ras = "rocm_doctor_gpu_ras_errors_total";
    let umc = [("block", "umc"), ("type", "uncorrectable")];
    assert_eq!(get(&got, ras, "0000:63:00.0", &umc), None);
    assert_eq!(get(&got, ras, "0000:43:00.0", &umc), Some(0.0));
    let gfx = [("block", "gfx"), ("type", "uncorrectable")];
    assert_eq!(get(&got, ras, "0000:63:00.0", &gfx), Some(0.0));
    let temp = "rocm_doctor_gpu_temp_celsius";
    assert_eq!(
        get(&got, temp, "0000:63:00.0", &[("sensor", "junction")]),
        None
    );
    assert_eq!(
        get(
            &got,
            "rocm_doctor_gpu_temp_crit_celsius",
            "0000:63:00.0",
            &[("sensor", "junction")]
        ),
        Some(110.0)
    );
}

#[test]
fn the_strict_reader_rejects_bad_text() {
    let ok = "# HELP a_total x\n# TYPE a_total counter\na_total{l=\"q\\\"\\\\\\n\"} 1\n";
    assert_eq!(parse_prom(ok).0.len(), 1);
    for bad in [
        "# HELP a x\n# TYPE a counter\na 1\n", // counter without _total
        "# HELP a_total x\n# TYPE a_total gauge\na_total 1\n", // _total on a gauge
        "# HELP a_total x\n# TYPE a_total counter\na_total -1\n", // negative counter
        "# HELP a x\n# TYPE a gauge\na{l=\"1\"} 1\na{l=\"1\"} 2\n", // duplicate series
        "# HELP a x\n# TYPE a gauge\na{l=\"\u{1b}\"} 1\n", // raw control character
        "# HELP a x\n# TYPE a gauge\na{l=\"\\x\"} 1\n", // bad escape
        "# HELP a x\n# TYPE a gauge\na 1 123\n", // timestamp
        "# HELP a x\n# TYPE a gauge\na 1",     // no final line feed
        "a 1\n",                               // no HELP/TYPE
    ] {
        let r = std::panic::catch_unwind(|| parse_prom(bad));
        assert!(r.is_err(), "accepted: {bad:?}");
    }
}

#[test]
fn promtool_accepts_the_exposition() {
    // `promtool check metrics` (Debian package prometheus), when installed: the upstream
    // linter of the exposition format and of the naming conventions.
    // Not part of the required toolchain: skipped (with a notice) where it is not installed.
    let Some(promtool) = find_tool("promtool") else {
        eprintln!("skipped: promtool not installed");
        return;
    };
    let (_, _, raw) = run_prom(&fixture("sysroots", "health-mi210-degraded"), HEALTH);
    let mut child = std::process::Command::new(promtool)
        .args(["check", "metrics"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    use std::io::Write;
    child
        .stdin
        .take()
        .unwrap()
        .write_all(raw.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

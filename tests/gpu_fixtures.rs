//! The GPU checks against fixture machines, through the real binary (`--sysroot`, `--json`).

use crate::common::{doctor, json_of, run_json};
use serde_json::Value;
use std::collections::BTreeMap;
use std::ffi::OsStr;
use std::path::{Path, PathBuf};

fn fixture(name: &str) -> PathBuf {
    crate::common::fixture("sysroots", name)
}

fn run(name: &str, args: &[&str], env: &[(&str, &str)]) -> (Value, i32) {
    let root = fixture(name);
    let argv = [OsStr::new("--sysroot"), root.as_os_str()]
        .into_iter()
        .chain(args.iter().map(OsStr::new));
    run_json(argv, env)
}

fn findings<'a>(doc: &'a Value, id: &str) -> Vec<&'a Value> {
    doc["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .filter(|f| f["id"] == id)
        .collect()
}

fn statuses(doc: &Value, id: &str) -> Vec<String> {
    findings(doc, id)
        .iter()
        .map(|f| f["status"].as_str().unwrap_or("").to_string())
        .collect()
}

fn agents(doc: &Value) -> &Vec<Value> {
    doc["agents"].as_array().expect("agents array")
}

/// The properties of one capture node, parsed here independently of the doctor.
fn capture_nodes(name: &str) -> Vec<(u32, BTreeMap<String, u64>)> {
    let nodes = fixture(name).join("sys/class/kfd/kfd/topology/nodes");
    let mut out = Vec::new();
    for e in std::fs::read_dir(&nodes).expect("nodes dir") {
        let e = e.unwrap();
        let Ok(id) = e.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        let text = std::fs::read_to_string(e.path().join("properties")).expect("properties");
        let map = text
            .lines()
            .filter_map(|l| {
                let (k, v) = l.split_once(' ')?;
                Some((k.to_string(), v.trim().parse::<u64>().ok()?))
            })
            .collect();
        out.push((id, map));
    }
    out.sort_by_key(|(id, _)| *id);
    out
}

/// gfx name from gfx_target_version: decimal major, then minor and stepping as one hex digit each.
fn gfx_name(v: u64) -> String {
    let digits = "0123456789abcdef".as_bytes();
    format!(
        "gfx{}{}{}",
        v / 10000,
        digits[((v / 100) % 100) as usize] as char,
        digits[(v % 100) as usize] as char
    )
}

#[test]
fn real_captures_match_node_for_node() {
    for cap in [
        "k8s-mi210x8-gfx90a-xgmi",
        "k8s-mi300x-cpx-gfx942",
        "k8s-mi308x-cpx-gfx942",
        "k8s-vega10-gfx900",
    ] {
        let (doc, _) = run(cap, &["--only", "gpu.agents"], &[]);
        let got = agents(&doc);
        let want: Vec<_> = capture_nodes(cap)
            .into_iter()
            .filter(|(_, p)| p.get("simd_count").copied().unwrap_or(0) > 0)
            .collect();
        assert!(!want.is_empty(), "{cap}: no GPU node in the capture");
        assert_eq!(got.len(), want.len(), "{cap}: agent count");
        for (a, (id, p)) in got.iter().zip(&want) {
            assert_eq!(a["node"], *id, "{cap}");
            assert_eq!(a["device_id"], p["device_id"], "{cap} node {id}");
            assert_eq!(a["simd_count"], p["simd_count"], "{cap} node {id}");
            assert_eq!(
                a["compute_units"],
                p["simd_count"] / p["simd_per_cu"],
                "{cap} node {id}"
            );
            assert_eq!(a["render_minor"], p["drm_render_minor"], "{cap} node {id}");
            assert_eq!(
                a["wave_front_size"], p["wave_front_size"],
                "{cap} node {id}"
            );
            assert_eq!(a["unique_id"], p["unique_id"], "{cap} node {id}");
            let loc = p["location_id"];
            let bdf = format!(
                "{:04x}:{:02x}:{:02x}.{:x}",
                p.get("domain").copied().unwrap_or(0),
                loc >> 8 & 0xff,
                loc >> 3 & 0x1f,
                loc & 7
            );
            assert_eq!(a["location"], bdf.as_str(), "{cap} node {id}");
            match p.get("gfx_target_version") {
                Some(v) => {
                    assert_eq!(a["gfx_target_version"], *v);
                    assert_eq!(a["gfx"], gfx_name(*v).as_str(), "{cap} node {id}");
                    assert!(
                        a["target"].as_str().unwrap().starts_with(&gfx_name(*v)),
                        "{cap} node {id}"
                    );
                }
                None => {
                    assert!(
                        a["gfx_target_version"].is_null() && a["gfx"].is_null(),
                        "{cap} node {id}: older kernel has no gfx_target_version"
                    );
                }
            }
            assert_eq!(
                a["num_xcc"],
                p.get("num_xcc")
                    .map(|v| Value::from(*v))
                    .unwrap_or(Value::Null),
                "{cap} node {id}"
            );
            // No device manifest: device nodes are not described, every GPU counts as visible.
            assert_eq!(a["visible"], true, "{cap} node {id}");
        }
        // HIP ordinals are dense and in node order.
        let hip: Vec<u64> = got
            .iter()
            .map(|a| a["hip_index"].as_u64().unwrap())
            .collect();
        assert_eq!(hip, (0..got.len() as u64).collect::<Vec<_>>(), "{cap}");
    }
}

#[test]
fn captures_sramecc_comes_from_the_capability_bit() {
    // MI210 / MI300: capability bit 26 (SRAM_EDCSupport) set in the capture -> sramecc+.
    for cap in ["k8s-mi210x8-gfx90a-xgmi", "k8s-mi308x-cpx-gfx942"] {
        let (doc, _) = run(cap, &["--only", "gpu.agents"], &[]);
        let nodes = capture_nodes(cap);
        for a in agents(&doc) {
            let id = a["node"].as_u64().unwrap() as u32;
            let cap_word = nodes.iter().find(|(n, _)| *n == id).unwrap().1["capability"];
            let want = if cap_word & (1 << 26) != 0 {
                ":sramecc+"
            } else {
                ":sramecc-"
            };
            assert!(
                a["target"].as_str().unwrap().contains(want),
                "{cap} node {id}: {}",
                a["target"]
            );
        }
    }
}

#[test]
fn vega10_without_gfx_target_version_is_said_so() {
    let (doc, code) = run("k8s-vega10-gfx900", &["--only", "gpu.agents"], &[]);
    let warns: Vec<_> = findings(&doc, "gpu.agents")
        .into_iter()
        .filter(|f| f["status"] == "warn")
        .collect();
    assert_eq!(
        warns.len(),
        2,
        "one warning per node without gfx_target_version"
    );
    assert!(warns[0]["summary"]
        .as_str()
        .unwrap()
        .contains("no gfx_target_version"));
    assert!(warns[0]["fix"].is_object());
    assert_eq!(code, 0);
    // VRAM of an old kernel comes from mem_banks.
    let bank = std::fs::read_to_string(
        fixture("k8s-vega10-gfx900")
            .join("sys/class/kfd/kfd/topology/nodes/1/mem_banks/0/properties"),
    )
    .unwrap();
    let size: u64 = bank
        .lines()
        .find_map(|l| l.strip_prefix("size_in_bytes "))
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    assert_eq!(agents(&doc)[0]["vram_bytes"], size);
}

#[test]
fn gfx1030_dgpu_passes_everything_it_can_judge() {
    let (doc, code) = run("gfx1030-dgpu", &["--only", "gpu"], &[]);
    assert_eq!(code, 0, "{doc:#}");
    for f in doc["findings"].as_array().unwrap() {
        let s = f["status"].as_str().unwrap();
        assert!(
            s == "pass" || (f["id"] == "gpu.runtime-init" && s == "skip"),
            "{f:#}"
        );
    }
    let a = &agents(&doc)[0];
    assert_eq!(a["gfx"], "gfx1030");
    assert_eq!(a["location"], "0000:03:00.0");
    assert_eq!(a["visible"], true);
    assert_eq!(a["integrated"], false);
}

#[test]
fn igpu_and_dgpu_the_fix_selects_the_dgpu_by_computed_index() {
    let (doc, _) = run(
        "gfx1036-igpu-gfx1031-dgpu",
        &["--only", "gpu.visibility,gpu.agents"],
        &[],
    );
    let ag = agents(&doc);
    assert_eq!(ag.len(), 2);
    let igpu = ag
        .iter()
        .find(|a| a["integrated"] == true)
        .expect("an integrated agent");
    let dgpu = ag
        .iter()
        .find(|a| a["integrated"] == false)
        .expect("a discrete agent");
    assert_eq!(igpu["gfx"], "gfx1036");
    assert_eq!(dgpu["gfx"], "gfx1031");
    let vis = findings(&doc, "gpu.visibility");
    assert_eq!(vis.len(), 1);
    assert_eq!(vis[0]["status"], "warn");
    let value = vis[0]["fix"]["env"]["ROCR_VISIBLE_DEVICES"]
        .as_str()
        .expect("computed value");
    assert_eq!(value, dgpu["rocr_index"].as_u64().unwrap().to_string());

    // Applying the fix leaves only the dGPU, as HIP device 0.
    let (doc, _) = run(
        "gfx1036-igpu-gfx1031-dgpu",
        &["--only", "gpu.visibility"],
        &[("ROCR_VISIBLE_DEVICES", value)],
    );
    assert_eq!(statuses(&doc, "gpu.visibility"), vec!["pass"]);
    let visible: Vec<_> = agents(&doc)
        .iter()
        .filter(|a| a["visible"] == true)
        .collect();
    assert_eq!(visible.len(), 1);
    assert_eq!(visible[0]["gfx"], "gfx1031");
    assert_eq!(visible[0]["hip_index"], 0);

    // HIP_VISIBLE_DEVICES indexes what ROCr left: with ROCr showing both, "1" is the dGPU.
    let (doc, _) = run(
        "gfx1036-igpu-gfx1031-dgpu",
        &["--only", "gpu.visibility"],
        &[("HIP_VISIBLE_DEVICES", "1")],
    );
    let visible: Vec<_> = agents(&doc)
        .iter()
        .filter(|a| a["visible"] == true)
        .collect();
    assert_eq!(
        (visible.len(), visible[0]["gfx"].as_str()),
        (1, Some("gfx1031"))
    );
}

#[test]
fn visibility_variables_that_hide_or_half_work() {
    let (doc, code) = run(
        "k8s-mi210x8-gfx90a-xgmi",
        &["--only", "gpu.visibility"],
        &[("ROCR_VISIBLE_DEVICES", "")],
    );
    assert_eq!(statuses(&doc, "gpu.visibility"), vec!["fail"]);
    assert_eq!(code, 1);
    assert!(agents(&doc).iter().all(|a| a["visible"] == false));

    let (doc, _) = run(
        "k8s-mi210x8-gfx90a-xgmi",
        &["--only", "gpu.visibility"],
        &[("HIP_VISIBLE_DEVICES", "3,1,9,0")],
    );
    assert_eq!(statuses(&doc, "gpu.visibility"), vec!["warn"]);
    let order: Vec<(u64, u64)> = agents(&doc)
        .iter()
        .filter_map(|a| Some((a["hip_index"].as_u64()?, a["node"].as_u64()?)))
        .collect();
    // Entries 3 and 1 apply (nodes are 2..9, so ROCr index 3 = node 5), 9 ends the list.
    let mut order = order;
    order.sort();
    assert_eq!(order, vec![(0, 5), (1, 3)]);

    // Partitions share unique_id: a UUID cannot pick one of them in ROCr.
    let nodes = capture_nodes("k8s-mi308x-cpx-gfx942");
    let uid = nodes
        .iter()
        .find(|(_, p)| p.get("simd_count").copied().unwrap_or(0) > 0)
        .unwrap()
        .1["unique_id"];
    let (doc, _) = run(
        "k8s-mi308x-cpx-gfx942",
        &["--only", "gpu.visibility"],
        &[("ROCR_VISIBLE_DEVICES", &format!("GPU-{uid:016X}"))],
    );
    let f = findings(&doc, "gpu.visibility");
    assert_eq!(f[0]["status"], "fail", "{f:#?}");
    assert!(f[0]["evidence"].to_string().contains("more than one GPU"));
}

#[test]
fn gfx90c_apu_is_integrated_and_xnack_follows_noretry() {
    let (doc, _) = run("gfx90c-apu", &["--only", "gpu.agents,gpu.xnack"], &[]);
    let a = &agents(&doc)[0];
    assert_eq!(
        (a["gfx"].as_str(), a["integrated"].as_bool()),
        (Some("gfx90c"), Some(true))
    );
    // amdgpu.noretry=0 in the fixture: retry on -> xnack+.
    assert_eq!(a["target"], "gfx90c:xnack+");
    let (doc, _) = run(
        "gfx90c-apu",
        &["--only", "gpu.agents"],
        &[("HSA_XNACK", "0")],
    );
    assert_eq!(agents(&doc)[0]["target"], "gfx90c:xnack-");
    let (doc, _) = run(
        "gfx90c-apu",
        &["--only", "gpu.xnack"],
        &[("HSA_XNACK", "true")],
    );
    assert_eq!(statuses(&doc, "gpu.xnack"), vec!["warn"]);
}

#[test]
fn kfd_owned_by_a_group_the_process_lacks() {
    let (doc, code) = run("kfd-group-missing", &["--only", "gpu"], &[]);
    assert_eq!(code, 1);
    let kfd = findings(&doc, "gpu.kfd");
    assert_eq!(kfd[0]["status"], "fail");
    assert!(kfd[0]["summary"].as_str().unwrap().contains("EACCES"));
    let ev = kfd[0]["evidence"].to_string();
    assert!(
        ev.contains("gid 992") && ev.contains("groups [1000, 44]"),
        "{ev}"
    );
    assert!(kfd[0]["fix"]["commands"][0]
        .as_str()
        .unwrap()
        .contains("usermod -aG render"));
    assert_eq!(statuses(&doc, "gpu.render"), vec!["fail"]);
    assert!(agents(&doc).iter().all(|a| a["visible"] == false));
    // The build profile never fails for GPUs.
    let (doc, code) = run(
        "kfd-group-missing",
        &["--only", "gpu", "--profile", "build"],
        &[],
    );
    assert_eq!(code, 0);
    assert!(doc["findings"]
        .as_array()
        .unwrap()
        .iter()
        .all(|f| f["status"] != "fail"));
}

#[test]
fn container_without_device_passthrough() {
    let (doc, code) = run("container-no-devices", &["--only", "gpu"], &[]);
    assert_eq!(code, 1);
    let kfd = findings(&doc, "gpu.kfd");
    assert_eq!(kfd[0]["status"], "fail");
    assert!(kfd[0]["fix"]["commands"][0]
        .as_str()
        .unwrap()
        .contains("--device=/dev/kfd"));
    assert!(kfd[0]["evidence"].to_string().contains(".dockerenv"));
    let render = findings(&doc, "gpu.render");
    assert_eq!(render[0]["status"], "fail");
    assert!(render[0]["fix"]["text"]
        .as_str()
        .unwrap()
        .contains("passthrough"));
}

#[test]
fn a_node_returning_eperm_is_hidden_not_an_error() {
    let (doc, code) = run("node-eperm", &["--only", "gpu"], &[]);
    assert_eq!(code, 0, "{doc:#}");
    let ag = agents(&doc);
    assert_eq!(ag.len(), 1);
    assert_eq!(ag[0]["node"], 1);
    let table = findings(&doc, "gpu.agents")[0];
    assert!(table["summary"]
        .as_str()
        .unwrap()
        .contains("hidden by the device cgroup"));
    assert!(table["evidence"].to_string().contains("node 2: EPERM"));
}

#[test]
fn overrides_are_parsed_and_judged_per_gpu() {
    let f = |env: &[(&str, &str)], name: &str| {
        let (doc, _) = run(name, &["--only", "gpu.overrides"], env);
        findings(&doc, "gpu.overrides")
            .into_iter()
            .cloned()
            .collect::<Vec<_>>()
    };
    let quoted = f(
        &[("HSA_OVERRIDE_GFX_VERSION", "\"11.0.3\"")],
        "gfx1030-dgpu",
    );
    assert_eq!(quoted[0]["status"], "fail");
    assert!(quoted[0]["summary"].as_str().unwrap().contains("quote"));
    let hex = f(&[("HSA_OVERRIDE_GFX_VERSION", "10.3.a")], "gfx1030-dgpu");
    assert!(hex[0]["summary"].as_str().unwrap().contains("10.3.10"));
    assert_eq!(
        f(&[("HSA_OVERRIDE_GFX_VERSION", "10.3.0")], "gfx1030-dgpu")[0]["status"],
        "warn",
        "redundant"
    );
    assert_eq!(
        f(&[("HSA_OVERRIDE_GFX_VERSION", "11.0.0")], "gfx1030-dgpu")[0]["status"],
        "fail",
        "cross-family"
    );
    // Mixed machine: the sibling override is fine per GPU, the global variable is flagged.
    let mixed = f(
        &[("HSA_OVERRIDE_GFX_VERSION", "10.3.0")],
        "gfx1036-igpu-gfx1031-dgpu",
    );
    let global = mixed
        .iter()
        .find(|x| x["subject"] == "HSA_OVERRIDE_GFX_VERSION")
        .expect("mixed-machine finding");
    assert_eq!(global["status"], "warn");
    assert!(mixed.iter().any(|x| x["status"] == "pass"));
    // Per-node variable for the dGPU (libhsakmt node id counts the CPU node).
    let (doc, _) = run(
        "gfx1036-igpu-gfx1031-dgpu",
        &["--only", "gpu.overrides,gpu.agents"],
        &[],
    );
    let dgpu_user_node = agents(&doc).iter().find(|a| a["gfx"] == "gfx1031").unwrap()["user_node"]
        .as_u64()
        .unwrap();
    let var = format!("HSA_OVERRIDE_GFX_VERSION_{dgpu_user_node}");
    let (doc, _) = run(
        "gfx1036-igpu-gfx1031-dgpu",
        &["--only", "gpu.overrides,gpu.agents"],
        &[(var.as_str(), "10.3.0")],
    );
    assert_eq!(statuses(&doc, "gpu.overrides"), vec!["pass"]);
    let ag = agents(&doc);
    assert_eq!(
        ag.iter().find(|a| a["gfx"] == "gfx1031").unwrap()["target"],
        "gfx1030"
    );
    assert_eq!(
        ag.iter().find(|a| a["gfx"] == "gfx1036").unwrap()["target"],
        "gfx1036"
    );
    // A bad override blocks the runtime: nothing visible.
    let (doc, _) = run(
        "gfx1030-dgpu",
        &["--only", "gpu.agents"],
        &[("HSA_OVERRIDE_GFX_VERSION", "10.3")],
    );
    assert_eq!(agents(&doc)[0]["visible"], false);
}

#[test]
fn driver_states() {
    let (doc, _) = run("builtin-amdgpu", &["--only", "gpu.driver"], &[]);
    let d = findings(&doc, "gpu.driver");
    assert_eq!(d[0]["status"], "pass");
    assert!(d[0]["summary"]
        .as_str()
        .unwrap()
        .contains("built into the kernel"));
    let (doc, _) = run("gfx1030-dgpu", &["--only", "gpu.driver"], &[]);
    let d = findings(&doc, "gpu.driver");
    assert_eq!(d[0]["status"], "pass");
    assert!(d[0]["evidence"]
        .to_string()
        .contains("normal, not a problem"));
}

#[test]
fn drm_card_without_kfd_node_and_wsl() {
    let (doc, _) = run("polaris-no-kfd-node", &["--only", "gpu.agents"], &[]);
    let w: Vec<_> = findings(&doc, "gpu.agents")
        .into_iter()
        .filter(|f| f["status"] == "warn")
        .collect();
    assert_eq!(w.len(), 1);
    assert!(w[0]["summary"].as_str().unwrap().contains("1002:67df"));
    let (doc, code) = run("wsl", &["--only", "gpu", "--profile", "runtime"], &[]);
    assert_eq!(code, 0);
    assert!(doc["findings"]
        .as_array()
        .unwrap()
        .iter()
        .all(|f| f["status"] == "skip" && f["summary"].as_str().unwrap().contains("WSL")));
}

#[test]
fn profiles_on_a_machine_without_gpus() {
    let empty = tempfile::tempdir().unwrap();
    let go = |profile: &str| {
        let out = doctor()
            .args(["--json", "--only", "gpu", "--profile", profile, "--sysroot"])
            .arg(empty.path())
            .output()
            .unwrap();
        (json_of(&out), out.status.code().unwrap())
    };
    let (doc, code) = go("build");
    assert_eq!(code, 0);
    assert!(doc["findings"]
        .as_array()
        .unwrap()
        .iter()
        .all(|f| f["status"] == "skip"));
    let (doc, code) = go("auto");
    assert_eq!(code, 0);
    assert!(findings(&doc, "gpu.agents")[0]["summary"]
        .as_str()
        .unwrap()
        .contains("no KFD topology"));
    let (doc, code) = go("runtime");
    assert_eq!(code, 1);
    assert_eq!(statuses(&doc, "gpu.agents"), vec!["fail"]);
    assert!(findings(&doc, "gpu.agents")[0]["fix"].is_object());
}

#[test]
fn this_machine_default_run_is_honest_skips() {
    // The real root: no GPU here. The runtime probe runs in a child and ends as a skip naming
    // the hsa_status_t, when the HSA runtime is installed.
    let out = doctor().args(["--json", "--only", "gpu"]).output().unwrap();
    let doc = json_of(&out);
    assert_eq!(out.status.code(), Some(0), "{doc:#}");
    let kfd_present = Path::new("/dev/kfd").exists();
    if kfd_present {
        eprintln!("skipped: this machine has /dev/kfd");
        return;
    }
    for f in doc["findings"].as_array().unwrap() {
        assert_eq!(f["status"], "skip", "{f:#}");
    }
    let lib = [
        "/usr/lib/x86_64-linux-gnu/libhsa-runtime64.so.1",
        "/opt/rocm/lib/libhsa-runtime64.so.1",
    ]
    .iter()
    .any(|p| Path::new(p).exists());
    if lib {
        let r = findings(&doc, "gpu.runtime-init");
        assert!(
            r[0]["summary"].as_str().unwrap().contains("HSA_STATUS_"),
            "{:#}",
            r[0]
        );
    }
}

/// The visible GPUs' ISAs become the toolchain's target ISAs when nothing else names any, and
/// `--isa` wins over them (the agents are then listed as `also`).
#[test]
fn agents_isas_are_the_default_targets() {
    let root = format!(
        "{}/tests/fixtures/sysroots/gfx1036-igpu-gfx1031-dgpu",
        env!("CARGO_MANIFEST_DIR")
    );
    let out = crate::common::doctor()
        .args(["--json", "--only", "targets.isa", "--sysroot", &root])
        .output()
        .unwrap();
    let doc = crate::common::json_of(&out);
    let t = &doc["inventory"]["targets"];
    let mut isas: Vec<(String, String)> = t["isas"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| {
            (
                x["isa"].as_str().unwrap().to_string(),
                x["source"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    isas.sort();
    assert_eq!(
        isas,
        [
            ("gfx1031".to_string(), "agent 2".to_string()),
            ("gfx1036".to_string(), "agent 1".to_string())
        ],
        "{t:#}"
    );
    let out = crate::common::doctor()
        .args([
            "--json",
            "--only",
            "targets.isa",
            "--isa",
            "gfx90a",
            "--sysroot",
            &root,
        ])
        .output()
        .unwrap();
    let doc = crate::common::json_of(&out);
    let t = &doc["inventory"]["targets"];
    assert_eq!(t["isas"][0]["isa"], "gfx90a");
    assert_eq!(t["isas"].as_array().unwrap().len(), 1);
    assert_eq!(t["also"].as_array().unwrap().len(), 2, "{t:#}");
}

/// The product of each agent from its PCI id and the revision of its DRM card (the fixtures'
/// `revision` files, formats in their SOURCE.md): the revision's amdgpu.ids row; the chip and
/// every candidate when the revision is missing or does not parse; nothing for an id the table
/// does not have. The table is `checks/gpu-names.toml`, read through its own rows here.
#[test]
fn agents_carry_the_product_their_revision_names() {
    let (doc, _) = run("gfx1030-dgpu", &["--only", "gpu.agents"], &[]);
    let a = &agents(&doc)[0];
    assert_eq!(a["device_id"], 0x73bf);
    assert_eq!(a["pci_revision"], 0xc1);
    assert_eq!(a["product"], "AMD Radeon RX 6800 XT");
    assert_eq!(a["product_from"], "amdgpu.ids: 1002:73bf rev c1");
    assert!(a.get("product_candidates").is_none(), "{a}");

    // No revision file: Navi 21 and its three products, none picked.
    let (doc, _) = run("builtin-amdgpu", &["--only", "gpu.agents"], &[]);
    let a = &agents(&doc)[0];
    assert_eq!(a["pci_revision"], Value::Null);
    assert_eq!(a["product"], "Navi 21: Radeon RX 6800 / 6800 XT / 6900 XT");
    assert_eq!(a["product_candidates"].as_array().map(Vec::len), Some(3));

    // A partitioned MI300X: every partition's node (function bits set) finds the card of its slot.
    let (doc, _) = run("layers-mi300x-cpx", &["--only", "gpu.agents"], &[]);
    let list = agents(&doc);
    assert!(list.len() > 8);
    for a in list {
        assert_eq!(
            (&a["pci_revision"], &a["product"]),
            (&Value::from(0), &Value::from("AMD Instinct MI300X"))
        );
    }

    // MI308X: no input of the table states its ISA, so it has no row and no product.
    let (doc, _) = run("k8s-mi308x-cpx-gfx942", &["--only", "gpu.agents"], &[]);
    assert!(agents(&doc).iter().all(|a| a.get("product").is_none()));

    // The DRM card without a KFD node names its product too.
    let (doc, _) = run("polaris-no-kfd-node", &["--only", "gpu.agents"], &[]);
    let w: Vec<_> = findings(&doc, "gpu.agents")
        .into_iter()
        .filter(|f| f["status"] == "warn")
        .collect();
    assert!(w[0]["summary"]
        .as_str()
        .unwrap()
        .contains("card1 (AMD Radeon RX 480 Graphics [1002:67df rev c7] at 0000:0b:00.0)"));
}

/// A `revision` file that is not the kernel's `0x%02x` (or not readable text) is no revision:
/// the candidates, no panic, the same exit code.
#[test]
fn an_odd_revision_file_is_no_revision() {
    let tmp = tempfile::tempdir().unwrap();
    crate::common::copy_tree(&fixture("gfx1030-dgpu"), tmp.path());
    let rev = tmp.path().join("sys/class/drm/card0/device/revision");
    for bad in [&b"c1\n"[..], b"0x1c1\n", b"\xff\xfe", b""] {
        std::fs::write(&rev, bad).unwrap();
        let argv = [
            OsStr::new("--sysroot"),
            tmp.path().as_os_str(),
            OsStr::new("--only"),
            OsStr::new("gpu.agents"),
        ];
        let (doc, code) = run_json(argv, &[]);
        assert_eq!(code, 0);
        let a = &agents(&doc)[0];
        assert_eq!(a["pci_revision"], Value::Null, "{bad:?}");
        assert_eq!(a["product"], "Navi 21: Radeon RX 6800 / 6800 XT / 6900 XT");
    }
}

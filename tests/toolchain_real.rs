//! The doctor against Debian 12's real ROCm toolchain (hipcc, rocm-device-libs,
//! libamdhip64-dev, libamd-comgr-dev, clang-15/lld-15, clang-19/lld-19): the healthy install
//! passes, and the facts it reports are the ones the tools themselves give.

use crate::common::*;
use serde_json::Value;

fn status_of(doc: &Value, id: &str) -> Vec<String> {
    findings(doc, id)
        .iter()
        .map(|f| f["status"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn healthy_debian_toolchain_passes_with_a_real_hip_compile() {
    let (Some(_), Some(_), Some(_)) = (
        need_tool("clang++-15"),
        need_tool("hipcc"),
        need_tool("/usr/lib/llvm-15/bin/ld.lld"),
    ) else {
        return;
    };
    let out = doctor()
        .args(["--json", "--isa", "gfx1030", "--profile", "build"])
        .output()
        .unwrap();
    let doc = json_of(&out);
    assert_eq!(out.status.code(), Some(0), "{doc:#}");
    for id in [
        "toolchain.rocm-root",
        "toolchain.clang",
        "toolchain.resource-dir",
        "toolchain.lld",
        "toolchain.link",
        "toolchain.hip-compile",
        "runtime.libraries",
        "runtime.load",
        "toolchain.versions",
    ] {
        let st = status_of(&doc, id);
        assert!(
            !st.is_empty() && st.iter().all(|s| s == "pass"),
            "{id}: {st:?}\n{:#}",
            findings(&doc, id)
                .iter()
                .map(|f| f.to_string())
                .collect::<Vec<_>>()
                .join("\n")
        );
    }
    // Facts equal what the tools say themselves.
    let banner = std::process::Command::new("clang++-15")
        .arg("--version")
        .output()
        .unwrap();
    let banner = String::from_utf8_lossy(&banner.stdout);
    let version = doc["inventory"]["clang"]["version"].as_str().unwrap();
    assert!(
        banner.contains(&format!("clang version {version}")),
        "{version} vs {banner}"
    );
    let rd = std::process::Command::new("clang++-15")
        .arg("-print-resource-dir")
        .output()
        .unwrap();
    assert_eq!(
        doc["inventory"]["clang"]["resource_dir"].as_str().unwrap(),
        String::from_utf8_lossy(&rd.stdout).trim()
    );
    let hip_version = std::fs::read_to_string("/usr/share/hip/version").unwrap();
    let root = &doc["inventory"]["rocm_roots"][0];
    assert_eq!(root["path"], "/usr");
    assert_eq!(root["layout"], "fhs");
    let hv = root["versions"]["hip"]["version"].as_str().unwrap();
    let patch = hv.rsplit('.').next().unwrap();
    assert!(
        hip_version.contains(&format!("HIP_VERSION_PATCH={patch}")),
        "{hv}"
    );
    // The HIP compile produced a real offload bundle for gfx1030.
    let hc = &findings(&doc, "toolchain.hip-compile")[0];
    assert_eq!(hc["subject"], "gfx1030");
}

#[test]
fn bare_clang_on_debian_is_warned_about_and_the_fix_works() {
    let Some(_) = need_tool("clang++-15") else {
        return;
    };
    let out = doctor()
        .args(["--json", "--only", "toolchain.device-libs"])
        .output()
        .unwrap();
    let doc = json_of(&out);
    let f = findings(&doc, "toolchain.device-libs")[0];
    assert_eq!(f["status"], "warn", "{f:#}");
    let dir = f["fix"]["env"]["HIP_DEVICE_LIB_PATH"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(std::path::Path::new(&dir).join("ocml.bc").is_file());
    let rocm = f["fix"]["env"]["ROCM_PATH"].as_str().unwrap().to_string();
    // Applying the suggested environment makes the same check pass.
    let out = doctor()
        .env("HIP_DEVICE_LIB_PATH", &dir)
        .env("ROCM_PATH", &rocm)
        .args([
            "--json",
            "--only",
            "toolchain.device-libs",
            "--isa",
            "gfx90a",
        ])
        .output()
        .unwrap();
    let doc = json_of(&out);
    assert_eq!(
        status_of(&doc, "toolchain.device-libs"),
        ["pass"],
        "{doc:#}"
    );
}

#[test]
fn clang_19_is_judged_with_its_own_facts() {
    let (Some(clang), Some(_)) = (
        need_tool("/usr/lib/llvm-19/bin/clang++"),
        need_tool("/usr/lib/llvm-19/bin/ld.lld"),
    ) else {
        return;
    };
    let out = doctor()
        .args([
            "--json",
            "--clang",
            clang.to_str().unwrap(),
            "--only",
            "toolchain.clang,toolchain.resource-dir,toolchain.lld,toolchain.link",
        ])
        .output()
        .unwrap();
    let doc = json_of(&out);
    for id in [
        "toolchain.clang",
        "toolchain.resource-dir",
        "toolchain.lld",
        "toolchain.link",
    ] {
        assert_eq!(status_of(&doc, id), ["pass"], "{id}: {doc:#}");
    }
    assert!(doc["inventory"]["clang"]["version"]
        .as_str()
        .unwrap()
        .starts_with("19."));
    // From clang 16 on the resource dir is named by the major version only.
    assert!(doc["inventory"]["clang"]["resource_dir"]
        .as_str()
        .unwrap()
        .ends_with("/19"));
    let cpus = doc["inventory"]["clang"]["amdgpu_processors"]
        .as_array()
        .unwrap();
    assert!(cpus.iter().any(|c| c == "gfx942"), "clang-19 knows gfx942");
}

#[test]
fn an_isa_this_clang_does_not_know_fails_with_the_list_it_knows() {
    let Some(_) = need_tool("clang++-15") else {
        return;
    };
    let out = doctor()
        .args([
            "--json",
            "--isa",
            "gfx1200",
            "--only",
            "targets.isa,toolchain.hip-compile",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let doc = json_of(&out);
    assert_eq!(status_of(&doc, "targets.isa"), ["fail"]);
    let hc = findings(&doc, "toolchain.hip-compile")[0];
    assert_eq!(hc["status"], "fail");
    assert!(
        hc["evidence"].to_string().contains("gfx1030"),
        "lists the processors it knows: {hc:#}"
    );
}

#[test]
fn the_runtime_is_loaded_in_a_child_and_reports_no_device_honestly() {
    let Some(_) = need_tool("hipcc") else { return };
    let out = doctor()
        .args(["--json", "--only", "runtime."])
        .output()
        .unwrap();
    let doc = json_of(&out);
    let load = findings(&doc, "runtime.load");
    let hip = load
        .iter()
        .find(|f| f["subject"] == "libamdhip64")
        .expect("hip probed");
    assert_eq!(hip["status"], "pass");
    assert!(
        hip["summary"]
            .as_str()
            .unwrap()
            .contains("hipErrorNoDevice"),
        "{hip:#}"
    );
    assert!(
        hip["evidence"].to_string().contains("probe-library hip"),
        "ran in a child process"
    );
    let comgr = load
        .iter()
        .find(|f| f["subject"] == "libamd_comgr")
        .expect("comgr probed");
    assert_eq!(comgr["status"], "pass");
}

/// The link probe starts before clang's probes say which ISA it knows, on the first target;
/// when that one turns out unknown to clang (gfx1200 on clang-15), the link is run again for
/// the first target it knows, exactly as a link started after the probes.
#[test]
fn an_early_link_for_an_isa_clang_does_not_know_is_run_again() {
    let (Some(_), Some(_)) = (
        need_tool("clang++-15"),
        need_tool("/usr/lib/llvm-15/bin/ld.lld"),
    ) else {
        return;
    };
    let out = doctor()
        .args([
            "--json",
            "--isa",
            "gfx1200,gfx1030",
            "--only",
            "toolchain.link",
        ])
        .output()
        .unwrap();
    let doc = json_of(&out);
    let link = findings(&doc, "toolchain.link");
    assert_eq!(link.len(), 1, "{doc:#}");
    assert_eq!(link[0]["status"], "pass", "{doc:#}");
    assert!(
        link[0]["summary"].as_str().unwrap().contains("gfx1030"),
        "{doc:#}"
    );
    let ev = link[0]["evidence"].to_string();
    assert!(
        ev.contains("-mcpu=gfx1030") && !ev.contains("gfx1200"),
        "{ev}"
    );
}

/// A clang whose `-print-supported-cpus -v` shows no job line (here a script that prints only
/// the list) is asked `-print-resource-dir`, as before, and its answer is the resource dir.
#[test]
fn the_resource_dir_is_asked_directly_when_no_job_line_shows_it() {
    let t = tempfile::tempdir().unwrap();
    let clang = t.path().join("clang++");
    // Missing on purpose: the verdict names how the directory was asked for.
    let rd = t.path().join("lib/clang/15.0.6");
    write_script(
        &clang,
        &format!(
            "#!/bin/sh\ncase \"$*\" in\n  *-print-resource-dir*) echo {};;\n  *-print-supported-cpus*) printf 'clang version 15.0.6\\nAvailable CPUs for this target:\\n\\n\\tgfx900\\n\\nUse -mcpu or -mtune to specify the target.\\n';;\nesac\n",
            rd.display()
        ),
    );
    let out = doctor()
        .args(["--json", "--only", "toolchain.resource-dir", "--clang"])
        .arg(&clang)
        .output()
        .unwrap();
    let doc = json_of(&out);
    assert_eq!(
        doc["inventory"]["clang"]["resource_dir"].as_str(),
        Some(rd.to_str().unwrap()),
        "{doc:#}"
    );
    assert!(doc["inventory"]["clang"].get("resource_dir_from").is_none());
    let cmds = doc["inventory"]["clang"]["commands"].to_string();
    assert!(cmds.contains("-print-resource-dir"), "{cmds}");
    let f = findings(&doc, "toolchain.resource-dir");
    assert_eq!(f[0]["status"], "fail", "{doc:#}");
    assert!(
        f[0]["evidence"].to_string().contains("-print-resource-dir"),
        "{doc:#}"
    );
}

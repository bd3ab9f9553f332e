//! `rocm-doctor --asm-caps` end to end: real broken set-ups built in temp dirs (seed 001's
//! wrapper with an x86-64 libunwind, a missing assembler, clang without ld.lld, an unknown
//! ISA, a hanging assembler), bad input, JSON shape and `--expect`.

use crate::common::{doctor, json_of, need_tool};
use serde_json::Value;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;

const CLANG15: &str = "/usr/lib/llvm-15/bin/clang++";

fn script(path: &Path, body: &str) {
    std::fs::write(path, body).unwrap();
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
}

fn asm_findings(doc: &Value) -> Vec<Value> {
    doc["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["category"] == "asm")
        .cloned()
        .collect()
}

fn text_of(f: &Value) -> String {
    serde_json::to_string(f).unwrap()
}

#[test]
fn json_has_tensile_names_and_types_and_no_a_out_in_cwd() {
    let Some(_) = need_tool(CLANG15) else { return };
    let cwd = tempfile::tempdir().unwrap();
    let out = doctor()
        .current_dir(cwd.path())
        .args([
            "--asm-caps",
            "--isa",
            "gfx803,gfx90a",
            "--assembler",
            CLANG15,
            "--only",
            "asm",
            "--json",
        ])
        .output()
        .unwrap();
    let doc = json_of(&out);
    assert_eq!(out.status.code(), Some(0), "{doc:#}");
    let caps = doc["asm_caps"].as_object().unwrap();
    assert_eq!(caps.keys().collect::<Vec<_>>(), ["gfx803", "gfx90a"]);
    let g = caps["gfx803"].as_object().unwrap();
    assert_eq!(g.len(), 44);
    assert_eq!(g.keys().next().unwrap(), "SupportedISA");
    assert_eq!(g["MaxVmcnt"], Value::from(15));
    assert_eq!(g["MaxLgkmcnt"], Value::from(15));
    assert_eq!(g["SupportedSource"], Value::Bool(true));
    assert!(g["HasMFMA"].is_boolean());
    assert_eq!(caps["gfx90a"]["HasMFMA"], Value::Bool(true));
    assert!(
        std::fs::read_dir(cwd.path()).unwrap().next().is_none(),
        "the probe wrote into the cwd"
    );
}

#[test]
fn human_view_prints_the_matrix() {
    let Some(_) = need_tool(CLANG15) else { return };
    let out = doctor()
        .args([
            "--asm-caps",
            "--isa",
            "gfx1030",
            "--assembler",
            CLANG15,
            "--only",
            "asm",
            "--color",
            "never",
        ])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.lines()
            .any(|l| l.split_whitespace().collect::<Vec<_>>() == ["MaxVmcnt", "63"]),
        "{text}"
    );
    assert!(
        text.lines()
            .any(|l| l.split_whitespace().collect::<Vec<_>>() == ["HasExplicitNC", "✓"]),
        "{text}"
    );
    assert!(text.contains("[asm.caps]"));
}

/// Seed 001: the compiler is a wrapper that adds `-L<dir> -lunwind` for an x86-64 libunwind.
#[test]
fn wrapper_injecting_x86_64_libunwind_is_explained() {
    let Some(_) = need_tool(CLANG15) else { return };
    let real_lib = Path::new("/usr/lib/llvm-15/lib/libunwind.so.1");
    if !real_lib.exists() {
        eprintln!("skipped: {} missing", real_lib.display());
        return;
    }
    let d = tempfile::tempdir().unwrap();
    let lib = d.path().join("lib");
    std::fs::create_dir(&lib).unwrap();
    std::fs::copy(real_lib, lib.join("libunwind.so")).unwrap();
    let wrapper = d.path().join("clang++");
    script(
        &wrapper,
        &format!(
            "#!/bin/sh\nexec {CLANG15} \"$@\" -Wl,-L{} -Wl,-lunwind\n",
            lib.display()
        ),
    );
    let out = doctor()
        .env("TENSILE_ROCM_ASSEMBLER_PATH", &wrapper)
        .args([
            "--asm-caps",
            "--isa",
            "gfx1030,gfx90a",
            "--tensile-compat",
            "6.2",
            "--only",
            "asm",
            "--json",
        ])
        .output()
        .unwrap();
    let doc = json_of(&out);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        doc["asm_caps"]["gfx1030"]["SupportedISA"],
        Value::Bool(false)
    );
    let fs = asm_findings(&doc);
    assert!(
        fs.iter().any(|f| f["id"] == "asm.assembler"
            && f["status"] == "pass"
            && text_of(f).contains("TENSILE_ROCM_ASSEMBLER_PATH")),
        "{fs:#?}"
    );
    let f = fs
        .iter()
        .find(|f| f["id"] == "asm.caps" && f["status"] == "fail")
        .unwrap_or_else(|| panic!("{fs:#?}"));
    let t = text_of(f);
    assert!(t.contains("libunwind.so") && t.contains("x86-64"), "{t}");
    assert!(
        t.contains("wrapper script") && t.contains("-lunwind"),
        "{t}"
    );
    assert_eq!(f["subject"], "gfx1030, gfx90a");
    assert_eq!(
        f["fix"]["env"]["TENSILE_ROCM_ASSEMBLER_PATH"], CLANG15,
        "{t}"
    );
}

#[test]
fn missing_assembler_is_a_broken_tool_not_an_unsupported_isa() {
    let out = doctor()
        .args([
            "--asm-caps",
            "--isa",
            "gfx1030",
            "--assembler",
            "/nonexistent/rocm/llvm/bin/clang++",
            "--only",
            "asm",
            "--json",
        ])
        .output()
        .unwrap();
    let doc = json_of(&out);
    assert_eq!(out.status.code(), Some(1));
    let fs = asm_findings(&doc);
    let f = fs
        .iter()
        .find(|f| f["status"] == "fail")
        .unwrap_or_else(|| panic!("{fs:#?}"));
    let t = text_of(f);
    assert!(t.contains("ENOENT") && t.contains("tool is broken"), "{t}");
    assert!(!t.contains("does not know"), "{t}");
    assert_eq!(
        doc["asm_caps"]["gfx1030"]["SupportedISA"],
        Value::Bool(false)
    );
    assert_eq!(doc["asm_caps"]["gfx1030"]["MaxVmcnt"], Value::from(0));
}

#[test]
fn non_executable_assembler_is_eacces() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path().join("clang++");
    std::fs::write(&p, "#!/bin/sh\n").unwrap();
    let out = doctor()
        .args([
            "--asm-caps",
            "--isa",
            "gfx1030",
            "--only",
            "asm",
            "--json",
            "--assembler",
        ])
        .arg(&p)
        .output()
        .unwrap();
    let t = text_of(&json_of(&out));
    assert!(t.contains("EACCES") && t.contains("tool is broken"), "{t}");
}

/// A copy of the clang binary in a directory without ld.lld (a symlink would still find
/// the real directory through /proc/self/exe), and no ld.lld on PATH.
#[test]
fn clang_without_ld_lld_is_explained() {
    let Some(_) = need_tool("/usr/lib/llvm-15/bin/clang-15") else {
        return;
    };
    if crate::common::find_tool("ld.lld").is_some() {
        eprintln!("skipped: an ld.lld is on PATH, clang would use it");
        return;
    }
    let d = tempfile::tempdir().unwrap();
    let copy = d.path().join("clang++");
    std::fs::copy("/usr/lib/llvm-15/bin/clang-15", &copy).unwrap();
    let out = doctor()
        .args([
            "--asm-caps",
            "--isa",
            "gfx1030",
            "--only",
            "asm",
            "--json",
            "--assembler",
        ])
        .arg(&copy)
        .output()
        .unwrap();
    let doc = json_of(&out);
    assert_eq!(out.status.code(), Some(1));
    let fs = asm_findings(&doc);
    let f = fs
        .iter()
        .find(|f| f["status"] == "fail")
        .unwrap_or_else(|| panic!("{fs:#?}"));
    let t = text_of(f);
    assert!(t.contains("ld.lld") && t.contains("cannot link"), "{t}");
    assert!(
        t.contains(&d.path().display().to_string()),
        "names the dir clang searched: {t}"
    );
    // lld-15 is installed here (as /usr/bin/ld.lld-15), just not next to the copy.
    if Path::new("/usr/bin/ld.lld-15").exists() {
        assert!(
            t.contains(&format!(
                "ln -s /usr/bin/ld.lld-15 {}/ld.lld",
                d.path().display()
            )),
            "{t}"
        );
    } else if Path::new("/etc/debian_version").exists() {
        assert!(t.contains("apt install lld-15"), "{t}");
    }
}

#[test]
fn unknown_isa_lists_what_this_clang_knows() {
    let Some(_) = need_tool(CLANG15) else { return };
    let out = doctor()
        .args([
            "--asm-caps",
            "--isa",
            "gfx942,gfx1030",
            "--assembler",
            CLANG15,
            "--only",
            "asm",
            "--json",
        ])
        .output()
        .unwrap();
    let doc = json_of(&out);
    assert_eq!(
        out.status.code(),
        Some(1),
        "gfx942 was asked for explicitly"
    );
    let fs = asm_findings(&doc);
    let f = fs
        .iter()
        .find(|f| f["status"] == "fail")
        .unwrap_or_else(|| panic!("{fs:#?}"));
    assert_eq!(f["subject"], "gfx942");
    let t = text_of(f);
    assert!(
        t.contains("does not know gfx942")
            && t.contains("this clang knows:")
            && t.contains("gfx90a"),
        "{t}"
    );
    assert_eq!(
        doc["asm_caps"]["gfx1030"]["SupportedISA"],
        Value::Bool(true)
    );
}

#[test]
fn tensile_list_unknown_isas_only_warn() {
    let Some(_) = need_tool(CLANG15) else { return };
    let out = doctor()
        .args([
            "--asm-caps",
            "--isa",
            "tensile",
            "--assembler",
            CLANG15,
            "--only",
            "asm",
            "--json",
        ])
        .output()
        .unwrap();
    let doc = json_of(&out);
    assert_eq!(out.status.code(), Some(0), "{doc:#}");
    let caps = doc["asm_caps"].as_object().unwrap();
    assert_eq!(caps.len(), 18, "17 ISAs + gfx000");
    assert!(caps.contains_key("gfx000") && caps.contains_key("gfx1201"));
    let fs = asm_findings(&doc);
    assert!(fs
        .iter()
        .any(|f| f["status"] == "warn" && text_of(f).contains("gfx1151")));
    assert!(fs
        .iter()
        .any(|f| f["status"] == "pass" && text_of(f).contains("placeholder")));
}

#[test]
fn hostile_and_malformed_isas_are_usage_errors() {
    for bad in ["gfx1030;rm -rf /", "gfx", "gfx1030:foo+"] {
        let out = doctor()
            .args(["--asm-caps", "--isa", bad])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{bad}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("--isa"), "{bad}: {err}");
    }
    let huge = vec!["gfx1030"; 300].join(",");
    let out = doctor()
        .args(["--asm-caps", "--isa", &huge])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("at most"));
}

#[test]
fn bad_flag_values_are_usage_errors() {
    let out = doctor()
        .args(["--asm-caps", "--tensile-compat", "5.7"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--tensile-compat"));
    let out = doctor().args(["--no-batch"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let out = doctor()
        .args(["--asm-caps", "--expect", "/nonexistent/caps.json"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("ENOENT"));
}

/// 256 distinct ISAs, most unknown to clang: one call each, in parallel, no hang.
#[test]
fn a_large_list_of_isas_finishes() {
    let Some(_) = need_tool(CLANG15) else { return };
    let mut list: Vec<String> = (0..255u32).map(|i| format!("gfx3{i:02x}")).collect();
    list.push("gfx1030".into());
    let out = doctor()
        .args([
            "--asm-caps",
            "--assembler",
            CLANG15,
            "--only",
            "asm",
            "--json",
            "--isa",
            &list.join(","),
        ])
        .output()
        .unwrap();
    let doc = json_of(&out);
    assert_eq!(doc["asm_caps"].as_object().unwrap().len(), 256);
    assert_eq!(
        doc["asm_caps"]["gfx1030"]["SupportedISA"],
        Value::Bool(true)
    );
    assert!(asm_findings(&doc)
        .iter()
        .any(|f| f["status"] == "fail" && text_of(f).contains("does not know gfx300")));
}

#[test]
fn a_hanging_assembler_times_out_with_an_error() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path().join("clang++");
    script(&p, "#!/bin/sh\nsleep 300\n");
    let t0 = std::time::Instant::now();
    let out = doctor()
        .args([
            "--asm-caps",
            "--isa",
            "gfx1030,gfx90a",
            "--timeout",
            "2",
            "--only",
            "asm",
            "--json",
            "--assembler",
        ])
        .arg(&p)
        .output()
        .unwrap();
    let doc = json_of(&out);
    assert_eq!(out.status.code(), Some(1));
    let fs = asm_findings(&doc);
    assert!(
        fs.iter()
            .any(|f| f["status"] == "error" && text_of(f).contains("did not finish in time")),
        "{fs:#?}"
    );
    eprintln!("hanging assembler: {:?}", t0.elapsed());
}

#[test]
fn expect_passes_on_equal_and_fails_naming_the_keys() {
    let Some(_) = need_tool(CLANG15) else { return };
    let args = [
        "--asm-caps",
        "--isa",
        "gfx90a,gfx1030",
        "--assembler",
        CLANG15,
        "--only",
        "asm",
        "--json",
    ];
    let doc = json_of(&doctor().args(args).output().unwrap());
    let d = tempfile::tempdir().unwrap();
    let same = d.path().join("same.json");
    std::fs::write(&same, serde_json::to_string(&doc).unwrap()).unwrap();
    let out = doctor()
        .args(args)
        .arg("--expect")
        .arg(&same)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert!(asm_findings(&json_of(&out))
        .iter()
        .any(|f| f["id"] == "asm.expect" && f["status"] == "pass"));

    let mut caps = doc["asm_caps"].clone();
    caps["gfx1030"]["HasWMMA"] = Value::Bool(true);
    caps["gfx90a"]["MaxVmcnt"] = Value::from(15);
    let changed = d.path().join("changed.json");
    std::fs::write(&changed, serde_json::to_string(&caps).unwrap()).unwrap();
    let out = doctor()
        .args(args)
        .arg("--expect")
        .arg(&changed)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let fs = asm_findings(&json_of(&out));
    let f = fs.iter().find(|f| f["id"] == "asm.expect").unwrap();
    assert_eq!(f["status"], "fail");
    let s = f["summary"].as_str().unwrap();
    assert!(
        s.contains("2 differences")
            && s.contains("gfx1030.HasWMMA")
            && s.contains("gfx90a.MaxVmcnt"),
        "{s}"
    );
}

#[test]
fn without_asm_caps_the_asm_checks_stay_out_of_the_report() {
    let out = doctor().args(["--json"]).output().unwrap();
    let doc = json_of(&out);
    assert!(asm_findings(&doc).is_empty());
    assert!(doc.get("asm_caps").is_none());
}

//! `rocm-doctor inspect` on real binaries built here with Debian's hipcc (clang 15) and
//! clang-19 (`--offload-compress` writes real CCOB v2 zstd), compared with clang-19's
//! `clang-offload-bundler --list`, and judged against targets and the installed runtime.

use crate::common::{doctor, json_of, need_tool};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

const CLANG19: &str = "/usr/lib/llvm-19/bin/clang++";
const BUNDLER19: &str = "/usr/lib/llvm-19/bin/clang-offload-bundler";
const DEVLIBS: &str = "/usr/lib/x86_64-linux-gnu/amdgcn/bitcode";

const A_HIP: &str = r#"#include <hip/hip_runtime.h>
__global__ void ka(float* p) { p[threadIdx.x] += 1.0f; }
extern "C" void runa(float* p) { hipLaunchKernelGGL(ka, dim3(1), dim3(1), 0, 0, p); }
"#;
const B_HIP: &str = r#"#include <hip/hip_runtime.h>
__global__ void kb(float* p) { p[threadIdx.x] *= 2.0f; }
__global__ void kb2(int* p) { p[threadIdx.x] = 3; }
extern "C" void runb(float* p) { hipLaunchKernelGGL(kb, dim3(1), dim3(1), 0, 0, p); }
"#;

struct Built {
    dir: PathBuf,
}

fn run(cmd: &mut Command) {
    let out = cmd.output().unwrap_or_else(|e| panic!("{cmd:?}: {e}"));
    assert!(
        out.status.success(),
        "{cmd:?} failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Builds every test binary once per test process.
fn built() -> Option<&'static Built> {
    static B: OnceLock<Option<Built>> = OnceLock::new();
    B.get_or_init(|| {
        need_tool("hipcc")?;
        need_tool(CLANG19)?;
        need_tool(BUNDLER19)?;
        // A static is never dropped, so the binaries live under cargo's own scratch dir for
        // integration tests (not /tmp), replaced on each run. The compilers' temporaries
        // (clang's `a-XXXXXX` directories) go there too.
        let d = Path::new(env!("CARGO_TARGET_TMPDIR")).join("inspect-real");
        let _ = std::fs::remove_dir_all(&d);
        let tmp = d.join("tmp");
        std::fs::create_dir_all(&tmp).ok()?;
        std::fs::write(d.join("a.hip"), A_HIP).ok()?;
        std::fs::write(d.join("b.hip"), B_HIP).ok()?;
        let hipcc = |args: &[&str], out: &str| {
            let mut c = Command::new("hipcc");
            c.current_dir(&d)
                .env("TMPDIR", &tmp)
                .args(args)
                .args(["-fPIC", "-shared", "a.hip", "b.hip", "-o", out]);
            run(&mut c);
        };
        // Two TUs, two archs with features: one bundle per TU.
        hipcc(
            &[
                "--offload-arch=gfx90a:sramecc+:xnack-",
                "--offload-arch=gfx1030",
            ],
            "libab.so",
        );
        // Only gfx1030.
        hipcc(&["--offload-arch=gfx1030"], "lib1030.so");
        // xnack+ and xnack- variants side by side.
        hipcc(
            &[
                "--offload-arch=gfx90a:xnack+",
                "--offload-arch=gfx90a:xnack-",
            ],
            "libxnack.so",
        );
        // -fgpu-rdc: one bundle for the whole link, two wrappers.
        hipcc(
            &[
                "-fgpu-rdc",
                "--offload-arch=gfx90a:xnack+",
                "--offload-arch=gfx908",
            ],
            "librdc.so",
        );
        // clang-19 with --offload-compress: CCOB.
        let path = format!(
            "/usr/lib/llvm-19/bin:{}",
            std::env::var("PATH").unwrap_or_default()
        );
        let mut c = Command::new(CLANG19);
        c.current_dir(&d)
            .env("PATH", path)
            .env("TMPDIR", &tmp)
            .args([
                "-x",
                "hip",
                "--offload-arch=gfx1030",
                "--offload-arch=gfx90a:xnack+",
                "--offload-compress",
                &format!("--rocm-device-lib-path={DEVLIBS}"),
                "--rocm-path=/usr",
                "-fPIC",
                "-shared",
                "a.hip",
                "b.hip",
                "-o",
                "libz.so",
            ]);
        run(&mut c);
        Some(Built { dir: d })
    })
    .as_ref()
}

fn inspect_json(args: &[&str]) -> (Value, i32) {
    let out = doctor()
        .arg("inspect")
        .arg("--json")
        .args(args)
        .output()
        .unwrap();
    (json_of(&out), out.status.code().unwrap_or(-1))
}

fn file(doc: &Value, i: usize) -> &Value {
    &doc["inspect"]["files"][i]
}

/// `clang-offload-bundler --list` (clang-19) on the bytes of one bundle.
fn bundler_list(lib: &Path, offset: u64, size: u64, scratch: &Path) -> Vec<String> {
    let bytes = std::fs::read(lib).unwrap();
    let blob = &bytes[offset as usize..(offset + size) as usize];
    let p = scratch.join(format!("bundle-{offset}.bin"));
    std::fs::write(&p, blob).unwrap();
    let out = Command::new(BUNDLER19)
        .args(["--list", "--type=o"])
        .arg(format!("--input={}", p.display()))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut v: Vec<String> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(str::to_string)
        .filter(|l| !l.is_empty())
        .collect();
    v.sort();
    v
}

fn ids(bundle: &Value) -> Vec<String> {
    let mut v: Vec<String> = bundle["entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["id"].as_str().unwrap().to_string())
        .collect();
    v.sort();
    v
}

#[test]
fn listings_equal_clang_offload_bundler_entry_for_entry() {
    let Some(b) = built() else { return };
    let scratch = tempfile::tempdir().unwrap();
    let mut compared = 0;
    for (lib, formats) in [
        ("libab.so", 2),
        ("librdc.so", 1),
        ("libz.so", 2),
        ("libxnack.so", 2),
    ] {
        let path = b.dir.join(lib);
        let (doc, _) = inspect_json(&[path.to_str().unwrap()]);
        let f = file(&doc, 0);
        let bundles = f["bundles"].as_array().unwrap();
        assert_eq!(bundles.len(), formats, "{lib}: {f:#}");
        for bu in bundles {
            assert!(bu.get("error").is_none(), "{lib}: {bu:#}");
            let ours = ids(bu);
            let theirs = bundler_list(
                &path,
                bu["offset"].as_u64().unwrap(),
                bu["stored_size"].as_u64().unwrap(),
                scratch.path(),
            );
            assert_eq!(ours, theirs, "{lib} bundle at {}", bu["offset"]);
            compared += 1;
        }
    }
    assert_eq!(compared, 7);
}

#[test]
fn two_translation_units_give_two_bundles_with_their_kernels() {
    let Some(b) = built() else { return };
    let (doc, _) = inspect_json(&[b.dir.join("libab.so").to_str().unwrap()]);
    let f = file(&doc, 0);
    assert_eq!(f["wrappers"], 2);
    assert_eq!(
        f["isas"],
        serde_json::json!(["gfx1030", "gfx90a:sramecc+:xnack-"])
    );
    let kernel_counts: Vec<u64> = f["bundles"]
        .as_array()
        .unwrap()
        .iter()
        .map(|bu| {
            let e = bu["entries"]
                .as_array()
                .unwrap()
                .iter()
                .find(|e| e["target"] == "gfx1030")
                .unwrap();
            assert_eq!(e["code_object"]["version"], 4, "clang 15 writes COv4");
            assert_eq!(e["code_object"]["processor"], "gfx1030");
            e["code_object"]["metadata"]["kernel_count"]
                .as_u64()
                .unwrap()
        })
        .collect();
    assert_eq!(kernel_counts, vec![1, 2], "a.hip has 1 kernel, b.hip 2");
    let e90a = &f["bundles"][0]["entries"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["target"] == "gfx90a:sramecc+:xnack-")
        .unwrap()["code_object"];
    assert_eq!(
        (e90a["sramecc"].as_str(), e90a["xnack"].as_str()),
        (Some("on"), Some("off"))
    );
    assert_eq!(
        e90a["metadata"]["target"],
        "amdgcn-amd-amdhsa--gfx90a:sramecc+:xnack-"
    );
}

#[test]
fn kernel_names_on_request() {
    let Some(b) = built() else { return };
    let (doc, _) = inspect_json(&["--kernels", b.dir.join("libab.so").to_str().unwrap()]);
    let names = &file(&doc, 0)["bundles"][1]["entries"][1]["code_object"]["metadata"]["kernels"];
    assert_eq!(
        names,
        &serde_json::json!(["_Z2kbPf", "_Z3kb2Pi"]),
        "{names}"
    );
}

#[test]
fn rdc_has_one_bundle_behind_two_wrappers() {
    let Some(b) = built() else { return };
    let (doc, _) = inspect_json(&[b.dir.join("librdc.so").to_str().unwrap()]);
    let f = file(&doc, 0);
    assert_eq!(f["wrappers"], 2);
    assert_eq!(f["bundles"].as_array().unwrap().len(), 1);
    assert_eq!(f["isas"], serde_json::json!(["gfx908", "gfx90a:xnack+"]));
}

#[test]
fn gfx1030_only_binary_fails_on_gfx1031_with_the_sibling_workaround() {
    let Some(b) = built() else { return };
    let (doc, code) = inspect_json(&[
        "--isa",
        "gfx1031",
        b.dir.join("lib1030.so").to_str().unwrap(),
    ]);
    assert_eq!(code, 1);
    let f = doc["inspect"]["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["subject"].as_str().unwrap_or("").contains("on gfx1031"))
        .unwrap();
    assert_eq!(f["status"], "fail", "{f:#}");
    assert_eq!(f["id"], "libs.code-objects");
    let fix = f["fix"]["text"].as_str().unwrap();
    assert!(fix.contains("--offload-arch=gfx1031"), "{fix}");
    assert_eq!(f["fix"]["env"]["HSA_OVERRIDE_GFX_VERSION"], "10.3.0");
    assert!(f["evidence"].as_array().unwrap().iter().any(|e| e
        .as_str()
        .unwrap()
        .contains("carries code objects for: gfx1030")));
    // Not a sibling: gfx1100 gets no override suggestion.
    let (doc, _) = inspect_json(&[
        "--isa",
        "gfx1100",
        b.dir.join("lib1030.so").to_str().unwrap(),
    ]);
    let f = doc["inspect"]["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["subject"].as_str().unwrap_or("").contains("on gfx1100"))
        .unwrap();
    assert_eq!(f["status"], "fail");
    assert!(f["fix"].get("env").is_none(), "{f:#}");
    // And gfx1030 itself passes.
    let (_, code) = inspect_json(&[
        "--isa",
        "gfx1030",
        b.dir.join("lib1030.so").to_str().unwrap(),
    ]);
    assert_eq!(code, 0);
}

#[test]
fn xnack_modes_are_matched() {
    let Some(b) = built() else { return };
    let lib = b.dir.join("libxnack.so");
    let (_, code) = inspect_json(&["--isa", "gfx90a:sramecc+:xnack-", lib.to_str().unwrap()]);
    assert_eq!(code, 0, "the xnack- code object serves an xnack- agent");
    let rdc = b.dir.join("librdc.so");
    let (doc, code) = inspect_json(&["--isa", "gfx90a:sramecc+:xnack-", rdc.to_str().unwrap()]);
    assert_eq!(code, 1, "only xnack+ is there");
    let f = doc["inspect"]["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["status"] == "fail")
        .unwrap();
    assert!(
        f["summary"]
            .as_str()
            .unwrap()
            .contains("another feature mode"),
        "{f:#}"
    );
    assert_eq!(f["fix"]["env"]["HSA_XNACK"], "1");
}

#[test]
fn compressed_bundle_is_listed_and_flagged_against_the_installed_runtime() {
    let Some(b) = built() else { return };
    let lib = b.dir.join("libz.so");
    // zstd bundles' MD5 is checked on request (zlib ones always).
    let (plain, _) = inspect_json(&[lib.to_str().unwrap()]);
    assert_eq!(
        file(&plain, 0)["bundles"][0]["ccob"]["hash_ok"],
        Value::Null
    );
    let (doc, code) = inspect_json(&["--verify-hash", lib.to_str().unwrap()]);
    let bu = &file(&doc, 0)["bundles"][0];
    assert_eq!(bu["format"], "ccob");
    assert_eq!(bu["ccob"]["version"], 2);
    assert_eq!(bu["ccob"]["method"], "zstd");
    assert_eq!(bu["ccob"]["hash_ok"], true);
    let co = bu["entries"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["target"] == "gfx1030")
        .unwrap();
    assert_eq!(co["code_object"]["version"], 5, "clang 19 writes COv5");
    assert_eq!(
        co["code_object"]["metadata"]["kernel_count"], 1,
        "a.hip's bundle: one kernel"
    );
    assert_eq!(
        file(&doc, 0)["bundles"].as_array().unwrap().len(),
        2,
        "one CCOB per translation unit"
    );
    // Debian's HIP 5.2.3 / comgr 2.4 cannot read CCOB.
    let hip = doc["inspect"]["versions"]["amdhip64"]
        .as_str()
        .unwrap_or("");
    if !hip.starts_with("5.") {
        eprintln!("skipped the runtime part: installed HIP is {hip:?}");
        return;
    }
    assert_eq!(code, 1);
    let found: Vec<&str> = doc["inspect"]["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["status"] == "fail")
        .map(|f| f["summary"].as_str().unwrap())
        .collect();
    assert!(
        found
            .iter()
            .any(|s| s.starts_with("known issue ccob-runtime-too-old")),
        "{found:?}"
    );
    assert!(
        found
            .iter()
            .any(|s| s.starts_with("known issue ccob-comgr-too-old")),
        "{found:?}"
    );
    // The uncompressed build is not flagged by either.
    let (doc, _) = inspect_json(&[b.dir.join("libab.so").to_str().unwrap()]);
    assert!(!doc["inspect"]["findings"]
        .as_array()
        .unwrap()
        .iter()
        .any(|f| f["summary"].as_str().unwrap().contains("ccob")));
}

#[test]
fn the_magic_bug_needs_hip_use_runtime_unbundler() {
    // The installed runtime (5.2) is outside the affected range: never flagged here, even with the variable.
    let Some(b) = built() else { return };
    let out = doctor()
        .env("HIP_USE_RUNTIME_UNBUNDLER", "1")
        .args(["inspect", "--json"])
        .arg(b.dir.join("libab.so"))
        .output()
        .unwrap();
    let doc = json_of(&out);
    assert!(!doc["inspect"]["findings"]
        .as_array()
        .unwrap()
        .iter()
        .any(|f| f["summary"]
            .as_str()
            .unwrap()
            .contains("clr-bundle-magic-nul")));
}

#[test]
fn directories_are_walked_and_symlink_loops_do_not_hang() {
    let Some(b) = built() else { return };
    let t = tempfile::tempdir().unwrap();
    let sub = t.path().join("lib/deep");
    std::fs::create_dir_all(&sub).unwrap();
    std::fs::copy(b.dir.join("libab.so"), sub.join("libab.so")).unwrap();
    std::fs::copy(b.dir.join("libz.so"), t.path().join("lib/libz.so")).unwrap();
    std::fs::write(t.path().join("lib/readme.txt"), "not a binary").unwrap();
    std::os::unix::fs::symlink(t.path(), sub.join("loop")).unwrap();
    let (doc, _) = inspect_json(&[t.path().to_str().unwrap()]);
    let files: Vec<&str> = doc["inspect"]["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["path"].as_str().unwrap())
        .collect();
    assert_eq!(files.len(), 2, "{files:?}");
    assert!(
        !doc["inspect"]["walk_errors"]
            .as_array()
            .map(|a| a.is_empty())
            .unwrap_or(true),
        "the loop is reported"
    );
}

#[test]
fn tensile_directories_and_the_default_check_in_a_sysroot() {
    let Some(b) = built() else { return };
    let root = tempfile::tempdir().unwrap();
    let libdir = root.path().join("usr/lib/x86_64-linux-gnu");
    std::fs::create_dir_all(&libdir).unwrap();
    std::fs::copy(b.dir.join("lib1030.so"), libdir.join("librocblas.so.4.2.0")).unwrap();
    std::os::unix::fs::symlink("librocblas.so.4.2.0", libdir.join("librocblas.so")).unwrap();
    // No rocblas/library: rocBLAS without Tensile.
    let out = doctor()
        .args(["--sysroot"])
        .arg(root.path())
        .args(["--isa", "gfx1031", "--only", "libs", "--json"])
        .output()
        .unwrap();
    let doc = json_of(&out);
    let f: Vec<&Value> = doc["findings"].as_array().unwrap().iter().collect();
    assert!(
        f.iter().any(|x| x["status"] == "fail"
            && x["summary"]
                .as_str()
                .unwrap()
                .starts_with("gfx1031: no compatible")),
        "{f:#?}"
    );
    assert!(
        f.iter().any(|x| x["summary"]
            .as_str()
            .unwrap()
            .starts_with("known issue rocblas-without-tensile")),
        "{f:#?}"
    );
    // With a Tensile library for gfx1030 (a catalog name and a real bundle as .co).
    let tl = libdir.join("rocblas/library");
    std::fs::create_dir_all(&tl).unwrap();
    std::fs::write(tl.join("TensileLibrary_lazy_gfx1030.dat"), [0x80]).unwrap();
    let (doc, _) = inspect_json(&[b.dir.join("lib1030.so").to_str().unwrap()]);
    let bu = &file(&doc, 0)["bundles"][0];
    let bytes = std::fs::read(b.dir.join("lib1030.so")).unwrap();
    let (o, s) = (
        bu["offset"].as_u64().unwrap() as usize,
        bu["stored_size"].as_u64().unwrap() as usize,
    );
    std::fs::write(tl.join("Kernels.so-000-gfx1030.hsaco"), &bytes[o..o + s]).unwrap();
    let (doc, code) = inspect_json(&["--isa", "gfx1030,gfx1031", tl.to_str().unwrap()]);
    let t = &doc["inspect"]["tensile"][0];
    assert_eq!(t["component"], "rocblas");
    assert_eq!(t["lazy_isas"], serde_json::json!(["gfx1030"]));
    assert_eq!(t["code_object_isas"], serde_json::json!(["gfx1030"]));
    assert_eq!(code, 1);
    let f = doc["inspect"]["findings"].as_array().unwrap();
    assert!(f.iter().any(|x| x["status"] == "pass" && x["subject"].as_str().unwrap().contains("on gfx1030")), "{f:#?}");
    assert!(
        f.iter().any(|x| x["status"] == "fail"
            && x["summary"]
                .as_str()
                .unwrap()
                .contains("Illegal seek for GPU arch : gfx1031")),
        "{f:#?}"
    );
}

#[test]
fn symbols_are_resolved_like_ldd_r() {
    let Some(b) = built() else { return };
    let (doc, _) = inspect_json(&["--symbols", b.dir.join("libab.so").to_str().unwrap()]);
    let s = &doc["inspect"]["symbols"][0];
    assert_eq!(s["unresolved"], serde_json::json!([]), "{s:#}");
    assert!(s["loaded"]
        .as_array()
        .unwrap()
        .iter()
        .any(|l| l[0].as_str().unwrap().starts_with("libamdhip64.so")));
    // A library with an undefined LLVMInitializeX86TargetInfo, like the broken libMIOpen of seed 001.
    let t = tempfile::tempdir().unwrap();
    std::fs::write(
        t.path().join("m.c"),
        "void LLVMInitializeX86TargetInfo(void); void f(void) { LLVMInitializeX86TargetInfo(); }\n",
    )
    .unwrap();
    run(Command::new("/usr/lib/llvm-19/bin/clang")
        .current_dir(t.path())
        .args(["-shared", "-fPIC", "m.c", "-o", "libMIOpen.so"]));
    let (doc, code) = inspect_json(&["--symbols", t.path().join("libMIOpen.so").to_str().unwrap()]);
    assert_eq!(code, 1);
    assert_eq!(
        doc["inspect"]["symbols"][0]["unresolved"],
        serde_json::json!(["LLVMInitializeX86TargetInfo"])
    );
    let f = doc["inspect"]["findings"].as_array().unwrap();
    assert!(
        f.iter().any(|x| x["summary"]
            .as_str()
            .unwrap()
            .starts_with("known issue miopen-undefined-llvm-x86")),
        "{f:#?}"
    );
}

#[test]
fn damaged_real_binaries_give_errors_not_panics() {
    let Some(b) = built() else { return };
    let bytes = std::fs::read(b.dir.join("libz.so")).unwrap();
    let t = tempfile::tempdir().unwrap();
    let p = t.path().join("damaged.so");
    // Truncations across the file, and corrupted CCOB headers.
    for cut in (0..bytes.len()).step_by(bytes.len() / 23 + 1) {
        std::fs::write(&p, &bytes[..cut]).unwrap();
        let out = doctor()
            .args(["inspect", "--json"])
            .arg(&p)
            .output()
            .unwrap();
        assert!(
            matches!(out.status.code(), Some(0) | Some(1)),
            "cut {cut}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        json_of(&out);
    }
    let at = memchr::memmem::find(&bytes, b"CCOB").unwrap();
    for (off, val) in [(8usize, 0xffu8), (12, 0xff), (6, 7), (4, 9), (30, 0)] {
        let mut d = bytes.clone();
        d[at + off] = val;
        std::fs::write(&p, &d).unwrap();
        let out = doctor()
            .args(["inspect", "--json"])
            .arg(&p)
            .output()
            .unwrap();
        assert!(
            matches!(out.status.code(), Some(0) | Some(1)),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let doc = json_of(&out);
        let bundles = file(&doc, 0)["bundles"]
            .as_array()
            .cloned()
            .unwrap_or_default();
        let problems = file(&doc, 0)["problems"]
            .as_array()
            .cloned()
            .unwrap_or_default();
        assert!(
            bundles
                .iter()
                .any(|b| b.get("error").is_some() || b["ccob"]["hash_ok"] == false)
                || !problems.is_empty()
                || bundles.is_empty(),
            "corruption at +{off} went unnoticed: {doc:#}"
        );
    }
}

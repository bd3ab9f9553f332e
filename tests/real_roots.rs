//! The doctor inside real ROCm installs: Debian 13 (HIP 5.7.1, clang-17, rocBLAS 5.5) and Debian
//! sid (hipcc 7.0.2, HIP 6.4.3, clang-21, rocBLAS 6.4.4), built as root filesystems by
//! `scripts/real-roots.sh` and entered with `chroot` by `scripts/in-root.sh`. A healthy install
//! must get no failure and no warning; the seed's broken set-ups, rebuilt inside each root, must
//! each get the right failure and fix.
//!
//! A root that was not built is a skip, or a failure under ROCM_DOCTOR_REQUIRE_TOOLCHAIN=1 (CI):
//! trixie is always required; for sid, `.rocm-doctor-root-failed` carries the archive's reason.

use crate::common::*;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

struct Root {
    suite: &'static str,
    path: PathBuf,
    /// The LLVM major of the stack (clang-17, clang-21).
    llvm: &'static str,
}

fn roots_dir() -> PathBuf {
    std::env::var_os("ROCM_DOCTOR_ROOTS")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("/var/tmp/rocm-doctor-roots"))
}

fn root(suite: &'static str, llvm: &'static str) -> Option<Root> {
    let path = roots_dir().join(suite);
    if path.join(".rocm-doctor-root-ok").is_file() {
        return Some(Root { suite, path, llvm });
    }
    let why = std::fs::read_to_string(path.join(".rocm-doctor-root-failed"))
        .map(|r| format!("scripts/real-roots.sh could not build it: {}", r.trim()))
        .unwrap_or_else(|_| "not built: run scripts/real-roots.sh".into());
    if toolchain_required() {
        panic!("the real {suite} root is required (ROCM_DOCTOR_REQUIRE_TOOLCHAIN=1): {why}");
    }
    eprintln!("skipped: the real {suite} root: {why}");
    None
}

fn trixie() -> Option<Root> {
    root("trixie", "17")
}

fn sid() -> Option<Root> {
    root("sid", "21")
}

/// Runs `words` inside the root (`scripts/in-root.sh`), the doctor binary on its PATH.
fn in_root(r: &Root, words: &[&str]) -> Output {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/in-root.sh");
    Command::new(script)
        .env(
            "ROCM_DOCTOR_BIN",
            assert_cmd::cargo::cargo_bin("rocm-doctor"),
        )
        .arg(&r.path)
        .args(words)
        .output()
        .unwrap()
}

/// The doctor's JSON document and exit code, run inside the root by a shell script (which may
/// build a broken set-up first; its own output must go to /dev/null).
fn doctor_sh(r: &Root, script: &str) -> (Value, i32) {
    let out = in_root(r, &["sh", "-c", script]);
    let code = out.status.code().unwrap_or(-1);
    let text = String::from_utf8_lossy(&out.stdout);
    let doc = serde_json::from_str(&text).unwrap_or_else(|e| {
        panic!(
            "{}: not one JSON document ({e}):\n{text}\nstderr:\n{}",
            r.suite,
            String::from_utf8_lossy(&out.stderr)
        )
    });
    (doc, code)
}

fn problems(doc: &Value) -> Vec<String> {
    doc["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| !matches!(f["status"].as_str(), Some("pass" | "skip")))
        .map(|f| format!("{} {}: {}", f["status"], f["id"], f["summary"]))
        .collect()
}

fn healthy(r: Root) {
    let (doc, code) = doctor_sh(
        &r,
        "rocm-doctor --isa gfx1030,gfx1100,gfx90a --json; rc=$?; ls -A /tmp >&2; exit $rc",
    );
    assert_eq!(problems(&doc), Vec::<String>::new(), "{}", r.suite);
    assert_eq!(code, 0, "{}", r.suite);
    // The compile ran the way hipcc builds, for every ISA.
    let hc = findings(&doc, "toolchain.hip-compile");
    assert_eq!(hc.len(), 3, "{hc:#?}");
    assert!(hc
        .iter()
        .all(|f| f["summary"].as_str().unwrap().contains("via hipcc")));
    // The bitcode is where clang itself says its resource dir is.
    let rd = in_root(&r, &[&format!("clang++-{}", r.llvm), "-print-resource-dir"]);
    let rd = String::from_utf8_lossy(&rd.stdout).trim().to_string();
    assert!(rd.ends_with(&format!("/clang/{}", r.llvm)), "{rd}");
    let dl = findings(&doc, "toolchain.device-libs")[0];
    assert!(
        dl["summary"]
            .as_str()
            .unwrap()
            .contains(&format!("{rd}/amdgcn/bitcode")),
        "{dl:#}"
    );
    // rocBLAS's Tensile library is found where Debian's loader looks (versioned directory).
    let libs = findings(&doc, "libs.code-objects");
    for isa in ["gfx1030", "gfx1100", "gfx90a"] {
        assert!(
            libs.iter().any(|f| {
                let s = f["summary"].as_str().unwrap();
                f["status"] == "pass"
                    && s.starts_with("rocblas ")
                    && s.ends_with(&format!("Tensile library covers {isa}"))
            }),
            "{isa}: {libs:#?}"
        );
    }
}

#[test]
fn trixie_healthy_install_passes_without_a_warning() {
    if let Some(r) = trixie() {
        healthy(r);
    }
}

#[test]
fn sid_healthy_install_passes_without_a_warning() {
    if let Some(r) = sid() {
        healthy(r);
    }
}

/// Nothing is left in /tmp (a fresh tmpfs inside the root) after compiles, the asm probe and
/// the library probes.
fn no_litter(r: Root) {
    let out = in_root(
        &r,
        &[
            "sh",
            "-c",
            "mkdir /tmp/cwd && cd /tmp/cwd && rocm-doctor --isa gfx1030,gfx90a --asm-caps >/dev/null 2>&1; ls -A /tmp /tmp/cwd",
        ],
    );
    let listing = String::from_utf8_lossy(&out.stdout);
    let entries: Vec<&str> = listing
        .lines()
        .filter(|l| !l.is_empty() && !l.ends_with(':') && *l != "cwd")
        .collect();
    assert!(
        entries.is_empty(),
        "{}: left in /tmp or the cwd: {entries:?}",
        r.suite
    );
}

#[test]
fn trixie_leaves_nothing_in_tmp_or_the_cwd() {
    if let Some(r) = trixie() {
        no_litter(r);
    }
}

#[test]
fn sid_leaves_nothing_in_tmp_or_the_cwd() {
    if let Some(r) = sid() {
        no_litter(r);
    }
}

/// Tensile's capability probe, batched, equals Tensile's own serial method key for key.
///
/// The serial method starts one assembler per snippet (hundreds of clang starts): on a loaded
/// machine it can pass the default 120 s `--deadline`, and a probe cut short answers differently
/// from one that ran. The limits are raised so that the test compares answers, not speed.
fn asm_equivalence(r: Root) {
    let run = |extra: &str| {
        let (doc, _) = doctor_sh(
            &r,
            &format!(
                "rocm-doctor --asm-caps --isa tensile --only asm. --json \
                 --timeout 300 --deadline 3600 {extra}"
            ),
        );
        doc["asm_caps"].clone()
    };
    let batched = run("");
    let serial = run("--no-batch");
    let isas = batched.as_object().map(|o| o.len()).unwrap_or(0);
    assert!(isas >= 17, "{}: {isas} ISAs probed: {batched:#}", r.suite);
    assert_eq!(batched, serial, "{}: batched differs from serial", r.suite);
    // SupportedISA holds exactly for the processors the root's clang lists (clang-17 lacks
    // gfx1200/gfx1201; gfx000 is Tensile's placeholder).
    let cpus = in_root(
        &r,
        &[
            &format!("clang++-{}", r.llvm),
            "--target=amdgcn-amd-amdhsa",
            "-nogpulib",
            "-print-supported-cpus",
        ],
    );
    let cpus =
        String::from_utf8_lossy(&cpus.stdout).to_string() + &String::from_utf8_lossy(&cpus.stderr);
    let known: Vec<&str> = cpus
        .split_whitespace()
        .filter(|w| w.starts_with("gfx"))
        .collect();
    assert!(known.len() > 30, "{cpus}");
    for (isa, caps) in batched.as_object().unwrap() {
        let supported = caps["SupportedISA"] == Value::Bool(true);
        assert_eq!(
            supported,
            known.contains(&isa.as_str()),
            "{}: {isa}: {caps:#}",
            r.suite
        );
    }
}

#[test]
fn trixie_asm_caps_batched_equal_tensiles_method() {
    if let Some(r) = trixie() {
        asm_equivalence(r);
    }
}

#[test]
fn sid_asm_caps_batched_equal_tensiles_method() {
    if let Some(r) = sid() {
        asm_equivalence(r);
    }
}

/// `inspect` of the real rocBLAS: bundles listed as clang-offload-bundler lists them, and one
/// verdict per library and target for the Tensile directory.
fn inspect(r: Root) {
    // The Tensile directory, wherever the package put it (Debian: rocblas/<version>/library).
    let found = in_root(
        &r,
        &[
            "sh",
            "-c",
            "ls -d /usr/lib/x86_64-linux-gnu/rocblas/*/library",
        ],
    );
    let tdir = String::from_utf8_lossy(&found.stdout).trim().to_string();
    assert!(tdir.ends_with("/library"), "{tdir}");
    let (doc, code) = doctor_sh(
        &r,
        &format!("rocm-doctor inspect --isa gfx1030 --json {tdir}"),
    );
    let f = doc["inspect"]["findings"].as_array().unwrap();
    assert_eq!(code, 0, "{f:#?}");
    let tensile: Vec<&Value> = f
        .iter()
        .filter(|x| x["summary"].as_str().unwrap().contains("Tensile library"))
        .collect();
    assert_eq!(
        tensile.len(),
        1,
        "one verdict for the library: {tensile:#?}"
    );
    assert_eq!(tensile[0]["status"], "pass");
    let (doc, code) = doctor_sh(
        &r,
        &format!("rocm-doctor inspect --isa gfx1031 --json {tdir}"),
    );
    let f = doc["inspect"]["findings"].as_array().unwrap();
    let fails: Vec<&Value> = f.iter().filter(|x| x["status"] == "fail").collect();
    assert_eq!(code, 1);
    assert_eq!(fails.len(), 1, "one failure, not one per file: {fails:#?}");
    assert!(fails[0]["summary"]
        .as_str()
        .unwrap()
        .contains("has no kernels for gfx1031"));
    assert_eq!(
        fails[0]["fix"]["env"]["HSA_OVERRIDE_GFX_VERSION"], "10.3.0",
        "the same-family sibling gfx1030 is offered: {:#}",
        fails[0]
    );

    // librocblas's bundles against clang-offload-bundler's own listing (a sample spread over
    // the file: first, middle, last).
    let lib = in_root(
        &r,
        &[
            "sh",
            "-c",
            "readlink -f /usr/lib/x86_64-linux-gnu/librocblas.so.*[0-9] | head -n 1",
        ],
    );
    let lib = String::from_utf8_lossy(&lib.stdout).trim().to_string();
    let (doc, _) = doctor_sh(&r, &format!("rocm-doctor inspect --json {lib}"));
    let bundles = doc["inspect"]["files"][0]["bundles"]
        .as_array()
        .unwrap()
        .clone();
    assert!(!bundles.is_empty(), "{lib}: {doc:#}");
    let n = bundles.len();
    let mut picks = vec![0, n / 2, n - 1];
    picks.dedup();
    for i in picks {
        let b = &bundles[i];
        let (off, size) = (
            b["offset"].as_u64().unwrap(),
            b["stored_size"].as_u64().unwrap(),
        );
        let script = format!(
            "dd if={lib} of=/tmp/b.bin iflag=skip_bytes,count_bytes skip={off} count={size} status=none && clang-offload-bundler-{} --list --type=o --input=/tmp/b.bin",
            r.llvm
        );
        let out = in_root(&r, &["sh", "-c", &script]);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let mut theirs: Vec<String> = String::from_utf8_lossy(&out.stdout)
            .lines()
            .filter(|l| !l.is_empty())
            .map(str::to_string)
            .collect();
        theirs.sort();
        let mut ours: Vec<String> = b["entries"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| e["id"].as_str().unwrap().to_string())
            .collect();
        ours.sort();
        assert_eq!(ours, theirs, "{}: bundle {i} at {off}", r.suite);
    }
}

#[test]
fn trixie_inspect_of_real_rocblas() {
    if let Some(r) = trixie() {
        inspect(r);
    }
}

#[test]
fn sid_inspect_of_real_rocblas() {
    if let Some(r) = sid() {
        inspect(r);
    }
}

/// The seed's broken set-ups, rebuilt inside the root with its own clang.
fn broken(r: Root) {
    let clang = format!("/usr/lib/llvm-{}/bin/clang++", r.llvm);
    // Seed 001: a wrapper injecting LLVM's x86-64 libunwind into every link.
    let (doc, code) = doctor_sh(
        &r,
        &format!(
            "mkdir -p /tmp/w && printf '#!/bin/sh\\nexec {clang} \"$@\" -Wl,-L/usr/lib/llvm-{v}/lib -Wl,-lunwind\\n' > /tmp/w/clang++ && chmod +x /tmp/w/clang++ && rocm-doctor --json --only toolchain.link --clang /tmp/w/clang++",
            v = r.llvm
        ),
    );
    assert_eq!(code, 1, "{doc:#}");
    let f = findings(&doc, "toolchain.link")[0];
    let s = f["summary"].as_str().unwrap();
    assert!(
        s.contains("libunwind") && s.contains("x86-64"),
        "{}: {f:#}",
        r.suite
    );
    assert_eq!(
        f["fix"]["env"]["TENSILE_ROCM_ASSEMBLER_PATH"],
        clang.as_str()
    );

    // ROCM_PATH at a root without bitcode: clang then finds none, every CMake HIP build fails.
    let (doc, code) = doctor_sh(
        &r,
        "mkdir -p /tmp/rocm/include && ROCM_PATH=/tmp/rocm rocm-doctor --json --only toolchain.device-libs",
    );
    assert_eq!(code, 1, "{doc:#}");
    let f = findings(&doc, "toolchain.device-libs")[0];
    assert_eq!(f["status"], "fail", "{}: {f:#}", r.suite);
    let dir = f["fix"]["env"]["HIP_DEVICE_LIB_PATH"].as_str().unwrap();
    assert!(
        dir.contains(&format!("/clang/{}/", r.llvm)) && dir.ends_with("amdgcn/bitcode"),
        "{}: the fix names clang's own bitcode: {dir}",
        r.suite
    );

    // A wrapper passing a resource dir that does not exist (the 15.0.6 -> 15 move of seed 002).
    let (doc, code) = doctor_sh(
        &r,
        &format!(
            "mkdir -p /tmp/w && printf '#!/bin/sh\\nexec {clang} -resource-dir /nonexistent/lib/clang/{v}.0.0 \"$@\"\\n' > /tmp/w/clang++ && chmod +x /tmp/w/clang++ && rocm-doctor --json --only toolchain.resource-dir --clang /tmp/w/clang++",
            v = r.llvm
        ),
    );
    assert_eq!(code, 1, "{doc:#}");
    let f = findings(&doc, "toolchain.resource-dir")[0];
    assert_eq!(f["status"], "fail");
    assert!(
        f["fix"]["text"]
            .as_str()
            .unwrap()
            .contains(&format!("/usr/lib/llvm-{}/lib/clang/{}", r.llvm, r.llvm)),
        "{}: names clang's real resource dir: {f:#}",
        r.suite
    );

    // A copy of clang with no ld.lld beside it.
    let (doc, code) = doctor_sh(
        &r,
        &format!(
            "mkdir -p /tmp/c/bin && cp $(readlink -f {clang}) /tmp/c/bin/clang++ && PATH=/opt/rocm-doctor/bin:/usr/bin:/bin rocm-doctor --json --only toolchain.lld,toolchain.link --clang /tmp/c/bin/clang++"
        ),
    );
    assert_eq!(code, 1, "{doc:#}");
    let lld = findings(&doc, "toolchain.lld")[0];
    assert_eq!(lld["status"], "fail", "{}: {lld:#}", r.suite);
    assert!(
        lld["fix"]["commands"][0]
            .as_str()
            .unwrap()
            .contains(&format!("lld-{}", r.llvm)),
        "{lld:#}"
    );
    assert_eq!(findings(&doc, "toolchain.link")[0]["status"], "fail");
}

#[test]
fn trixie_broken_setups_are_diagnosed() {
    if let Some(r) = trixie() {
        broken(r);
    }
}

#[test]
fn sid_broken_setups_are_diagnosed() {
    if let Some(r) = sid() {
        broken(r);
    }
}

/// From outside, with `--sysroot` (issue 25, item 3): by default the root's programs are not
/// executed, said once; its files are still judged and nothing fails in a cascade. With
/// `--run-root-programs`, as root, they run chrooted in the root: the root's own clang is
/// really run and judged (from outside it could not even start: this machine's glibc is older).
fn foreign(r: Root) {
    let out = doctor()
        .arg("--sysroot")
        .arg(&r.path)
        .args(["--isa", "gfx1030", "--json"])
        .output()
        .unwrap();
    let doc = json_of(&out);
    assert_eq!(problems(&doc), Vec::<String>::new(), "{}", r.suite);
    let c = findings(&doc, "toolchain.clang")[0];
    assert_eq!(c["status"], "skip");
    let s = c["summary"].as_str().unwrap();
    assert!(
        s.contains("not executed") && s.contains("--run-root-programs"),
        "names the way that works: {c:#}"
    );
    assert!(findings(&doc, "libs.code-objects")
        .iter()
        .any(|f| f["status"] == "pass"));
    assert_eq!(doc["programs_run"], serde_json::json!([]), "{}", r.suite);
    if !nix::unistd::geteuid().is_root() {
        eprintln!("skipped: --run-root-programs chroots only as root");
        return;
    }
    let out = doctor()
        .arg("--sysroot")
        .arg(&r.path)
        .args(["--isa", "gfx1030", "--run-root-programs", "--json"])
        .env("HF_TOKEN", "hf_not_for_the_root")
        .output()
        .unwrap();
    let doc = json_of(&out);
    assert_eq!(problems(&doc), Vec::<String>::new(), "{}", r.suite);
    let c = findings(&doc, "toolchain.clang")[0];
    assert_eq!(c["status"], "pass", "{c:#}");
    assert!(
        c["summary"]
            .as_str()
            .unwrap()
            .contains(&format!("clang {}.", r.llvm)),
        "{c:#}"
    );
    let runs = doc["programs_run"].as_array().unwrap();
    assert!(!runs.is_empty(), "{}", r.suite);
    for p in runs {
        assert_eq!(p["in_chroot"], true, "{p:#}");
        assert!(
            p["host_path"]
                .as_str()
                .unwrap()
                .starts_with(r.path.to_str().unwrap()),
            "{p:#}"
        );
    }
    // The child's temp dir in the root's /tmp went with the run.
    let left: Vec<_> = std::fs::read_dir(r.path.join("tmp"))
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| e.file_name().to_string_lossy().starts_with("rocm-doctor-"))
        .collect();
    assert!(left.is_empty(), "{left:?}");
}

#[test]
fn trixie_from_outside_is_judged_by_its_files() {
    if let Some(r) = trixie() {
        foreign(r);
    }
}

#[test]
fn sid_from_outside_is_judged_by_its_files() {
    if let Some(r) = sid() {
        foreign(r);
    }
}

/// A row of `checks/builds.toml` (only what this test reads).
#[derive(serde::Deserialize)]
struct BuildRow {
    library: String,
    how: String,
    measured_in: Option<String>,
    path: Option<String>,
    isas: Vec<String>,
    source: String,
}

#[derive(serde::Deserialize)]
struct BuildTable {
    build: Vec<BuildRow>,
}

/// The measured rows of `checks/builds.toml` (the ISAs a Debian library package ships, which
/// `why` states as facts) are what `inspect` reads in the real roots today: the Tensile code
/// objects of each library directory, features dropped. A row whose root is not built is a
/// skip like every test here; a row whose directory is absent (the archive moved to another
/// version) fails, so the table is re-measured rather than left stale.
#[test]
fn measured_builds_are_what_the_real_roots_ship() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("checks/builds.toml");
    let text = std::fs::read_to_string(&path).unwrap();
    let table: BuildTable = rocm_doctor::data::load("checks/builds.toml", &text).unwrap();
    let mut checked = 0;
    for row in table.build.iter().filter(|r| r.how == "measured") {
        let suite = row
            .measured_in
            .as_deref()
            .expect("a measured row names its root");
        let r = match suite {
            "trixie" => trixie(),
            "sid" => sid(),
            other => panic!("{}: unknown root {other}", row.source),
        };
        let Some(r) = r else { continue };
        let dir = r
            .path
            .join(row.path.as_deref().expect("a measured row names its path"));
        assert!(
            dir.is_dir(),
            "{}: {} is not in the {suite} root: re-measure the row",
            row.source,
            dir.display()
        );
        let out = Command::new(assert_cmd::cargo::cargo_bin("rocm-doctor"))
            .args(["inspect", "--json", "--color", "never"])
            .arg(&dir)
            .output()
            .unwrap();
        let doc: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
            panic!("{}: inspect printed no JSON ({e})", row.source);
        });
        let tensile = doc["inspect"]["tensile"]
            .as_array()
            .and_then(|t| t.first())
            .unwrap_or_else(|| panic!("{}: inspect found no Tensile library", row.source));
        assert_eq!(tensile["component"], row.library.as_str(), "{}", row.source);
        let mut found: Vec<String> = tensile["code_object_isas"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|i| i.as_str())
            .map(|i| i.split(':').next().unwrap_or(i).to_string())
            .collect();
        found.sort();
        found.dedup();
        let mut recorded = row.isas.clone();
        recorded.sort();
        assert_eq!(
            found, recorded,
            "{}: the table and the files disagree",
            row.source
        );
        // With no GPU, the finding lists what the directory covers, each target once (the
        // catalogs' ISAs and the code objects' ids used to be listed one after the other).
        let summary = doc["inspect"]["findings"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|f| f["summary"].as_str())
            .find(|s| s.contains("(covers "))
            .unwrap_or_else(|| panic!("{}: no covers finding: {doc}", row.source));
        let list = summary
            .split("(covers ")
            .nth(1)
            .unwrap()
            .trim_end_matches(')');
        let items: Vec<&str> = list.split(", ").collect();
        let mut unique = items.clone();
        unique.sort();
        unique.dedup();
        assert_eq!(items.len(), unique.len(), "{}: {summary}", row.source);
        checked += 1;
    }
    if toolchain_required() {
        assert_eq!(checked, 3, "every measured row was measured again");
    }
}

/// `checks/hip-since.toml` (harvested from ROCm/HIP's tags) against the HIP headers a real
/// install has: every name the table dates to the root's HIP release or earlier is declared by
/// the root's headers, and every later one is not (the AMD platform's headers: `nvidia_detail/`
/// maps HIP's names onto CUDA's and is left out). The table was also checked by hand against
/// Debian 12's HIP 5.2.3 headers: no name disagrees.
fn hip_since_matches(r: Root, hip: (u32, u32)) {
    let mut text = String::new();
    for e in walkdir::WalkDir::new(r.path.join("usr/include/hip"))
        .into_iter()
        .filter_map(|e| e.ok())
    {
        let p = e.path();
        if p.extension().is_some_and(|x| x == "h")
            && !p.components().any(|c| c.as_os_str() == "nvidia_detail")
        {
            text.push_str(&std::fs::read_to_string(p).unwrap_or_default());
        }
    }
    // Comments left out: a name a comment mentions is not declared (5.7's headers mention
    // hipStreamLegacy in one).
    let text = regex::Regex::new(r"(?s)/\*.*?\*/|//[^\n]*")
        .unwrap()
        .replace_all(&text, "");
    let declared: std::collections::HashSet<&str> = regex::Regex::new(r"\bhip[A-Z]\w*")
        .unwrap()
        .find_iter(&text)
        .map(|m| m.as_str())
        .collect();
    let table: toml::Value = toml::from_str(
        &std::fs::read_to_string(
            Path::new(env!("CARGO_MANIFEST_DIR")).join("checks/hip-since.toml"),
        )
        .unwrap(),
    )
    .unwrap();
    let rows = table["name"].as_array().unwrap();
    assert!(rows.len() > 200);
    let mut wrong = Vec::new();
    for row in rows {
        let name = row["name"].as_str().unwrap();
        let mut v = row["rocm"].as_str().unwrap().split('.');
        let since: (u32, u32) = (
            v.next().unwrap().parse().unwrap(),
            v.next().unwrap().parse().unwrap(),
        );
        if declared.contains(name) != (since <= hip) {
            wrong.push(format!("{name} (since {since:?})"));
        }
    }
    assert!(wrong.is_empty(), "{}: {wrong:?}", r.suite);
}

#[test]
fn trixie_hip_headers_agree_with_the_hip_since_table() {
    if let Some(r) = trixie() {
        hip_since_matches(r, (5, 7));
    }
}

#[test]
fn sid_hip_headers_agree_with_the_hip_since_table() {
    if let Some(r) = sid() {
        hip_since_matches(r, (6, 4));
    }
}

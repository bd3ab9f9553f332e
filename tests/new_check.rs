//! `scripts/new-check.sh`: run in a temporary copy of the tree, it writes the id, the function,
//! the registry line, the doc stub and a table-test stub; the generated Rust is well-formed
//! (rustfmt parses it) and the stubs are refused until written. (That a scaffolded tree builds
//! and its test stubs fail was checked by hand, 2026-11-25: `scripts/new-check.sh gpu
//! pcie-atomics`, `runtime hip-version` and `cmake hip-arch` in the worktree, then `cargo test
//! --lib -- pcie_atomics_table hip_version_table` (both fail: `todo!`) and `cargo test --test
//! integration packs_real::cmake_hip_arch_table` (fails: the stub rule says skip); a full build
//! per test run would be too slow for CI.)

use std::path::Path;
use std::process::Command;

fn copy_tree(from: &Path, to: &Path) {
    let st = Command::new("cp")
        .arg("-R")
        .arg(from)
        .arg(to)
        .status()
        .unwrap();
    assert!(st.success());
}

fn scaffold(args: &[&str]) -> (tempfile::TempDir, std::process::Output) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let t = crate::common::pack_dir();
    for d in ["src", "checks", "scripts"] {
        copy_tree(&root.join(d), &t.path().join(d));
    }
    std::fs::create_dir(t.path().join("tests")).unwrap();
    std::fs::copy(
        root.join("tests/packs_real.rs"),
        t.path().join("tests/packs_real.rs"),
    )
    .unwrap();
    let out = Command::new(t.path().join("scripts/new-check.sh"))
        .args(args)
        .env("TMPDIR", t.path())
        .output()
        .unwrap();
    (t, out)
}

fn read(t: &Path, p: &str) -> String {
    std::fs::read_to_string(t.join(p)).unwrap_or_else(|e| panic!("{p}: {e}"))
}

fn rustfmt_parses(file: &Path) {
    let Some(rustfmt) = crate::common::need_tool("rustfmt") else {
        return;
    };
    let out = Command::new(rustfmt)
        .args(["--edition", "2021", "--check"])
        .arg(file)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}: {}{}",
        file.display(),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn a_directory_family_gets_a_file_a_mod_line_a_registry_line_and_a_doc_stub() {
    let (t, out) = scaffold(&["gpu", "pcie-atomics"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let f = read(t.path(), "src/checks/gpu/pcie_atomics.rs");
    assert!(f.contains("pub(super) fn pcie_atomics(ctx: &crate::checks::Ctx)"));
    assert!(
        f.contains("crate::checkdoc::CheckId::GpuPcieAtomics"),
        "{f}"
    );
    let m = read(t.path(), "src/checks/gpu/mod.rs");
    assert!(m.contains("\nmod pcie_atomics;\n"));
    assert!(m.contains("(CheckId::GpuPcieAtomics, pcie_atomics::pcie_atomics),\n];"));
    // The old entries are still there, once each.
    assert_eq!(m.matches("(CheckId::GpuDriver, driver::driver)").count(), 1);
    // The id is declared once, after the family's last one (before the next family's first).
    let ids = read(t.path(), "src/checkdoc/ids.rs");
    assert!(
        ids.contains(
            "    GpuLayers = \"gpu.layers\",\n    GpuPcieAtomics = \"gpu.pcie-atomics\",\n    HealthRas = "
        ),
        "{ids}"
    );
    assert_eq!(ids.matches("\"gpu.pcie-atomics\"").count(), 1);
    rustfmt_parses(&t.path().join("src/checkdoc/ids.rs"));
    // The table-test stub: a row for the new check that expects a pass saying TODO.
    let tests = read(t.path(), "src/checks/gpu/tests.rs");
    let stub = &tests[tests.find("fn pcie_atomics_table()").expect("a test stub")..];
    assert!(
        stub.contains("crate::checks::CheckId::GpuPcieAtomics"),
        "{stub}"
    );
    assert!(stub.contains("TODO: what gpu.pcie-atomics says"), "{stub}");
    // The rows of the other checks are still there.
    assert!(tests.contains("fn visibility_table()"));
    rustfmt_parses(&t.path().join("src/checks/gpu/tests.rs"));
    let doc = read(t.path(), "checks/gpu.toml");
    let v: toml::Value = rocm_doctor::data::load("checks/gpu.toml", &doc)
        .unwrap_or_else(|e| panic!("the doc file no longer parses: {e}"));
    let last = v["check"].as_array().unwrap().last().unwrap().clone();
    assert_eq!(last["id"].as_str(), Some("gpu.pcie-atomics"));
    assert!(last["what"].as_str().unwrap().contains("TODO"));
    rustfmt_parses(&t.path().join("src/checks/gpu/mod.rs"));
}

#[test]
fn a_single_file_family_gets_the_function_appended() {
    let (t, out) = scaffold(&["runtime", "hip-version"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let f = read(t.path(), "src/checks/runtime.rs");
    assert!(
        f.contains("(CheckId::RuntimeHipVersion, hip_version),"),
        "{f}"
    );
    assert!(f.contains("(CheckId::RuntimeLoad, load),"));
    assert!(read(t.path(), "src/checkdoc/ids.rs")
        .contains("    RuntimeHipVersion = \"runtime.hip-version\",\n"));
    let tests = read(t.path(), "src/checks/tables/runtime.rs");
    let stub = &tests[tests.find("fn hip_version_table()").expect("a test stub")..];
    assert!(stub.contains("CheckId::RuntimeHipVersion"), "{stub}");
    assert!(
        stub.contains("TODO: what runtime.hip-version says"),
        "{stub}"
    );
    assert!(tests.contains("fn libraries_table()"));
    rustfmt_parses(&t.path().join("src/checks/tables/runtime.rs"));
    assert!(f.contains("fn hip_version(ctx: &crate::checks::Ctx)"));
    rustfmt_parses(&t.path().join("src/checks/runtime.rs"));
}

#[test]
fn dry_run_prints_the_edits_and_changes_nothing() {
    let (t, out) = scaffold(&["--dry-run", "toolchain", "lld-version"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let diff = String::from_utf8_lossy(&out.stdout);
    assert!(
        diff.contains("+++ b/src/checks/toolchain/lld_version.rs"),
        "{diff}"
    );
    assert!(diff.contains("+    (CheckId::ToolchainLldVersion, lld_version::lld_version),"));
    assert!(diff.contains("+    ToolchainLldVersion = \"toolchain.lld-version\","));
    assert!(diff.contains("+fn lld_version_table() {"), "{diff}");
    assert!(!read(t.path(), "src/checks/tables/toolchain.rs").contains("lld_version"));
    assert!(diff.contains("+id = \"toolchain.lld-version\""));
    assert!(!t
        .path()
        .join("src/checks/toolchain/lld_version.rs")
        .exists());
    assert!(!read(t.path(), "checks/toolchain.toml").contains("lld-version"));
    // Its temporary copy is gone.
    let left: Vec<_> = std::fs::read_dir(t.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .filter(|n| n.to_string_lossy().starts_with("new-check."))
        .collect();
    assert!(left.is_empty(), "{left:?}");
}

#[test]
fn bad_requests_are_refused_without_edits() {
    for args in [
        &["gpu", "agents"][..],
        &["nofamily", "x"],
        &["gpu", "Bad_Name"],
        &["gpu"],
    ] {
        let (t, out) = scaffold(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(!String::from_utf8_lossy(&out.stderr).is_empty());
        assert!(!read(t.path(), "src/checks/gpu/mod.rs").contains("mod bad_name"));
        assert!(!read(t.path(), "src/checkdoc/ids.rs").contains("GpuBadName"));
    }
}

/// `--family`: a new Rust family and its first check in one step. (That the scaffolded tree
/// builds and is clippy-clean, and that only the stubs' own refusals fail, was checked by hand,
/// 2026-11-27: `scripts/new-check.sh --family power cap-limit` in a copy of the tree, then
/// `cargo clippy --all-targets -- -D warnings` (clean) and `cargo test --lib -- data:: checkdoc::
/// registry:: checks::`: 57 pass with the new family (every embedded table loads, every family
/// has an id); 3 fail as they must: the stub row `cap_limit_table` (`todo!`) and the two TODO
/// refusals of the doc (`checks::tests`, `registry::tests`).)
#[test]
fn a_new_family_is_one_step_with_its_category_docs_registry_and_first_check() {
    let (t, out) = scaffold(&["--family", "power", "cap-limit"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // The family: its Category variant in the enum, the list and the name.
    let cd = read(t.path(), "src/checkdoc.rs");
    assert!(cd.contains("    Asm,\n    Power,\n}"), "{cd}");
    assert!(cd.contains("        Category::Power,\n    ];"), "{cd}");
    assert!(
        cd.contains("            Category::Power => \"power\",\n        }"),
        "{cd}"
    );
    rustfmt_parses(&t.path().join("src/checkdoc.rs"));
    // Its module, its compiled-in docs and its implementations in src/checks/mod.rs.
    let m = read(t.path(), "src/checks/mod.rs");
    assert!(
        m.contains("\npub(crate) mod libs;\npub(crate) mod power;\npub(crate) mod runtime;\n"),
        "{m}"
    );
    assert!(m.contains("(\"checks/power.toml\", include_str!(\"../../checks/power.toml\")),\n];"));
    assert!(
        m.contains("    v.extend_from_slice(power::CHECKS);\n    v\n}"),
        "{m}"
    );
    rustfmt_parses(&t.path().join("src/checks/mod.rs"));
    // The family's file: its CHECKS holding the first check, and the check's stub.
    let f = read(t.path(), "src/checks/power.rs");
    assert!(
        f.contains(
            "pub(crate) const CHECKS: &[(CheckId, CheckFn)] = &[(CheckId::PowerCapLimit, cap_limit)];"
        ),
        "{f}"
    );
    assert!(f.contains("fn cap_limit(ctx: &crate::checks::Ctx)"), "{f}");
    assert_eq!(f.matches("PowerCapLimit").count(), 2, "{f}");
    rustfmt_parses(&t.path().join("src/checks/power.rs"));
    // The first id goes last in the declaration.
    let ids = read(t.path(), "src/checkdoc/ids.rs");
    assert!(
        ids.contains(
            "    AsmExpect = \"asm.expect\",\n    PowerCapLimit = \"power.cap-limit\",\n}"
        ),
        "{ids}"
    );
    // The doc file is new, loads, and is listed by the embedded-table test.
    let doc = read(t.path(), "checks/power.toml");
    let v: toml::Value = rocm_doctor::data::load("checks/power.toml", &doc)
        .unwrap_or_else(|e| panic!("the new doc file does not parse: {e}"));
    let checks = v["check"].as_array().unwrap();
    assert_eq!(checks.len(), 1);
    assert_eq!(checks[0]["id"].as_str(), Some("power.cap-limit"));
    assert!(checks[0]["action"].as_str().is_some());
    assert!(checks[0]["title"].as_str().unwrap().contains("TODO"));
    let data = read(t.path(), "src/data.rs");
    assert!(data.contains("(\"power.toml\", &|| crate::checks::docs().len()),"));
    // The table tests: a new file with the failing stub row, and its `mod` line.
    let tables = read(t.path(), "src/checks/tables/mod.rs");
    assert!(
        tables.contains("\nmod libs;\nmod power;\nmod runtime;\n"),
        "{tables}"
    );
    let stub = read(t.path(), "src/checks/tables/power.rs");
    assert!(stub.contains("fn cap_limit_table()"), "{stub}");
    assert!(stub.contains("TODO: what power.cap-limit says"), "{stub}");
    rustfmt_parses(&t.path().join("src/checks/tables/power.rs"));
    // An existing family, a pack's namespace or a second run are refused without edits.
    for args in [
        &["--family", "gpu", "x"][..],
        &["--family", "cmake", "x"],
        &["--family", "power", "other"],
        &["--family", "tables", "x"],
    ] {
        let again = Command::new(t.path().join("scripts/new-check.sh"))
            .args(args)
            .output()
            .unwrap();
        assert_eq!(again.status.code(), Some(2), "{args:?}");
    }
    assert_eq!(
        read(t.path(), "src/checkdoc.rs")
            .matches("Category::Power,")
            .count(),
        1
    );
    assert!(!read(t.path(), "src/checks/mod.rs").contains("pub(crate) mod tables;"));
}

#[test]
fn a_new_familys_dry_run_prints_every_edit_and_changes_nothing() {
    let (t, out) = scaffold(&["--dry-run", "--family", "power", "cap-limit"]);
    assert!(out.status.success(), "{out:?}");
    let diff = String::from_utf8_lossy(&out.stdout);
    for edit in [
        "+++ b/src/checks/power.rs",
        "+++ b/checks/power.toml",
        "+++ b/src/checks/tables/power.rs",
        "+    Power,",
        "+pub(crate) mod power;",
        "+    v.extend_from_slice(power::CHECKS);",
        "+            (\"power.toml\", &|| crate::checks::docs().len()),",
        "+    PowerCapLimit = \"power.cap-limit\",",
    ] {
        assert!(diff.contains(edit), "{edit} missing from:\n{diff}");
    }
    assert!(!t.path().join("src/checks/power.rs").exists());
    assert!(!read(t.path(), "src/checkdoc.rs").contains("Power"));
}

#[test]
fn a_pack_family_gets_a_pack_check_stub_that_lints_and_is_refused_until_written() {
    let (t, out) = scaffold(&["cmake", "hip-arch"]);
    assert!(out.status.success(), "{out:?}");
    let pack = t.path().join("checks/packs/cmake.toml");
    let text = std::fs::read_to_string(&pack).unwrap();
    assert!(text.contains("id = \"cmake.hip-arch\""), "{text}");
    // The stub is a valid pack check (the engine loads it) ...
    let lint = crate::common::doctor()
        .args(["checks", "lint"])
        .arg(&pack)
        .output()
        .unwrap();
    assert!(lint.status.success(), "{lint:?}");
    // ... whose doc still says TODO, which the registry's unit test refuses for built-ins.
    assert!(text.contains("title = \"TODO\""));
    // A test stub beside the shipped packs' tests, failing until the check is written.
    let tests = read(t.path(), "tests/packs_real.rs");
    let stub = &tests[tests
        .find("fn cmake_hip_arch_table()")
        .expect("a test stub")..];
    assert!(stub.contains("one(&[], &[], \"cmake.hip-arch\")"), "{stub}");
    assert!(
        stub.contains("\"TODO: what cmake.hip-arch says here\""),
        "{stub}"
    );
    rustfmt_parses(&t.path().join("tests/packs_real.rs"));
    // Scaffolding it twice is refused.
    let again = Command::new(t.path().join("scripts/new-check.sh"))
        .args(["cmake", "hip-arch"])
        .output()
        .unwrap();
    assert_eq!(again.status.code(), Some(2));
}

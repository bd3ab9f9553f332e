//! Real broken set-ups built in temp dirs, each failing the right check with the right fix.

use crate::common::*;
use std::path::{Path, PathBuf};

/// Seed 001: a clang wrapper that injects an x86-64 libunwind into every link.
#[test]
fn injected_x86_64_libunwind_breaks_the_amdgcn_link_and_is_named() {
    let t = tempfile::tempdir().unwrap();
    let Some((clang, libdir)) = clang_and_x86_unwind(t.path()) else {
        return;
    };
    let wrapper = t.path().join("clang++");
    write_script(
        &wrapper,
        &format!(
            "#!/bin/sh\nexec {} \"$@\" -Wl,-L{} -Wl,-lunwind\n",
            clang.display(),
            libdir.display()
        ),
    );
    let out = doctor()
        .args(["--json", "--only", "toolchain.link", "--clang"])
        .arg(&wrapper)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let doc = json_of(&out);
    let f = findings(&doc, "toolchain.link")[0];
    assert_eq!(f["status"], "fail", "{f:#}");
    let summary = f["summary"].as_str().unwrap();
    assert!(
        summary.contains("libunwind.so") && summary.contains("x86-64"),
        "{summary}"
    );
    let ev = f["evidence"].to_string();
    assert!(
        ev.contains("is incompatible with"),
        "ld.lld's own words are shown: {ev}"
    );
    assert!(
        ev.contains(&format!("added by wrapper script {}", wrapper.display()))
            && ev.contains("-lunwind"),
        "names where the flag came from: {ev}"
    );
    assert_eq!(
        f["fix"]["env"]["TENSILE_ROCM_ASSEMBLER_PATH"],
        clang.to_str().unwrap()
    );
}

/// The same injection through NIX_LDFLAGS-style variables is traced to the variable.
#[test]
fn injection_through_a_flags_variable_is_traced() {
    let t = tempfile::tempdir().unwrap();
    let Some((clang, libdir)) = clang_and_x86_unwind(t.path()) else {
        return;
    };
    // A wrapper that passes $NIX_LDFLAGS through, as Nix's cc-wrapper does.
    let wrapper = t.path().join("clang++");
    write_script(
        &wrapper,
        &format!("#!/bin/sh\nexec {} \"$@\" $NIX_LDFLAGS\n", clang.display()),
    );
    let flags = format!("-Wl,-L{} -Wl,-lunwind", libdir.display());
    let out = doctor()
        .env("NIX_LDFLAGS", &flags)
        .args(["--json", "--only", "toolchain.link", "--clang"])
        .arg(&wrapper)
        .output()
        .unwrap();
    let doc = json_of(&out);
    let f = findings(&doc, "toolchain.link")[0];
    assert_eq!(f["status"], "fail");
    assert!(
        f["evidence"]
            .to_string()
            .contains(&format!("added by environment NIX_LDFLAGS: {flags}")),
        "{f:#}"
    );
}

#[test]
fn rocm_path_without_bitcode_fails_device_libs_with_a_working_directory_in_the_fix() {
    let Some(_) = need_tool("clang++-15") else {
        return;
    };
    let t = tempfile::tempdir().unwrap();
    let root = t.path().join("rocm");
    std::fs::create_dir_all(root.join("include/hip")).unwrap();
    std::fs::write(root.join("include/hip/hip_runtime.h"), "").unwrap();
    let out = doctor()
        .env("ROCM_PATH", &root)
        .args([
            "--json",
            "--only",
            "toolchain.device-libs,toolchain.rocm-root",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let doc = json_of(&out);
    let dl = findings(&doc, "toolchain.device-libs")[0];
    assert_eq!(dl["status"], "fail", "{dl:#}");
    assert!(dl["evidence"]
        .to_string()
        .contains("cannot find ROCm device library"));
    let fixdir = dl["fix"]["env"]["HIP_DEVICE_LIB_PATH"]
        .as_str()
        .expect("a bitcode dir that exists");
    assert!(Path::new(fixdir).join("ocml.bc").is_file());
    let rr = findings(&doc, "toolchain.rocm-root")[0];
    assert_eq!(rr["status"], "warn");
    assert!(rr["summary"].as_str().unwrap().contains("bitcode"));
    assert!(rr["evidence"][0].as_str().unwrap().contains("ROCM_PATH"));
}

#[test]
fn a_wrapper_passing_a_missing_resource_dir_is_caught() {
    let Some(clang) = need_tool("/usr/lib/llvm-15/bin/clang++") else {
        return;
    };
    let t = tempfile::tempdir().unwrap();
    let wrapper = t.path().join("clang++");
    // The pre-LLVM-16 naming computed for a clang that moved on, as in seed 001/002.
    write_script(
        &wrapper,
        &format!(
            "#!/bin/sh\nexec {} -resource-dir /nonexistent/lib/clang/15 \"$@\"\n",
            clang.display()
        ),
    );
    let out = doctor()
        .args(["--json", "--only", "toolchain.resource-dir", "--clang"])
        .arg(&wrapper)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let doc = json_of(&out);
    let f = findings(&doc, "toolchain.resource-dir")[0];
    assert_eq!(f["status"], "fail");
    assert!(f["summary"]
        .as_str()
        .unwrap()
        .contains("/nonexistent/lib/clang/15"));
    assert!(
        f["evidence"]
            .to_string()
            .contains("-resource-dir /nonexistent"),
        "the wrapper line is shown: {f:#}"
    );
    assert!(
        f["fix"]["text"].as_str().unwrap().contains("15.0.6"),
        "names clang's real resource dir: {f:#}"
    );
}

#[test]
fn clang_without_a_reachable_ld_lld_fails_lld_and_link() {
    let Some(real) = need_tool("/usr/lib/llvm-15/bin/clang") else {
        return;
    };
    let t = tempfile::tempdir().unwrap();
    let bin = t.path().join("bin");
    std::fs::create_dir(&bin).unwrap();
    // A copy, not a link: clang finds its tools next to its real path (/proc/self/exe).
    let real = std::fs::canonicalize(real).unwrap();
    std::fs::copy(&real, bin.join("clang++")).unwrap();
    let out = doctor()
        .env("PATH", "/usr/bin:/bin")
        .args([
            "--json",
            "--only",
            "toolchain.lld,toolchain.link",
            "--clang",
        ])
        .arg(bin.join("clang++"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let doc = json_of(&out);
    let lld = findings(&doc, "toolchain.lld")[0];
    assert_eq!(lld["status"], "fail", "{lld:#}");
    assert!(lld["fix"]["commands"][0]
        .as_str()
        .unwrap()
        .contains("lld-15"));
    let link = findings(&doc, "toolchain.link")[0];
    assert_eq!(link["status"], "fail");
    assert!(
        link["summary"].as_str().unwrap().contains("ld.lld"),
        "{link:#}"
    );
    assert!(link["evidence"].to_string().contains("doesn't exist"));
}

#[test]
fn a_clang_that_hangs_ends_as_an_error_by_the_timeout() {
    let t = tempfile::tempdir().unwrap();
    let hang = t.path().join("clang++");
    write_script(&hang, "#!/bin/sh\nsleep 600\n");
    let start = std::time::Instant::now();
    let out = doctor()
        .args(["--json", "--timeout", "1", "--clang"])
        .arg(&hang)
        .output()
        .unwrap();
    let doc = json_of(&out);
    assert_eq!(out.status.code(), Some(1));
    let f = findings(&doc, "toolchain.clang")[0];
    assert_eq!(f["status"], "error", "{f:#}");
    assert!(f["evidence"].to_string().contains("timed out"));
    // Not a timing assertion on speed: only that the run ended rather than hung for 600 s.
    assert!(start.elapsed().as_secs() < 300);
}

#[test]
fn the_doctor_writes_nothing_into_the_working_directory() {
    let Some(_) = need_tool("clang++-15") else {
        return;
    };
    let t = tempfile::tempdir().unwrap();
    let out = doctor()
        .current_dir(t.path())
        .args(["--json", "--isa", "gfx900"])
        .output()
        .unwrap();
    json_of(&out);
    let left: Vec<PathBuf> = std::fs::read_dir(t.path())
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert!(
        left.is_empty(),
        "a.out or other files left in cwd: {left:?}"
    );
}

/// Device libraries older than the clang: no `oclc_abi_version_500.bc` for code object v5
/// (clang's own words: "cannot find ROCm device library for ABI version 5").
#[test]
fn device_libs_without_the_abi_version_clang_needs() {
    let Some(clang) = need_tool("/usr/lib/llvm-19/bin/clang++") else {
        return;
    };
    let Some(src) = need_tool("/usr/lib/x86_64-linux-gnu/amdgcn/bitcode/ocml.bc") else {
        return;
    };
    let t = tempfile::tempdir().unwrap();
    let bc = t.path().join("bitcode");
    std::fs::create_dir(&bc).unwrap();
    for e in std::fs::read_dir(src.parent().unwrap()).unwrap() {
        let e = e.unwrap();
        if e.file_name() != "oclc_abi_version_500.bc" {
            std::fs::copy(e.path(), bc.join(e.file_name())).unwrap();
        }
    }
    let wrapper = t.path().join("clang++");
    write_script(
        &wrapper,
        &format!(
            "#!/bin/sh\nexec {} -mcode-object-version=5 \"$@\"\n",
            clang.display()
        ),
    );
    let out = doctor()
        .env("HIP_DEVICE_LIB_PATH", &bc)
        .env("ROCM_PATH", "/usr")
        .args(["--json", "--only", "toolchain.device-libs", "--clang"])
        .arg(&wrapper)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let doc = json_of(&out);
    let f = findings(&doc, "toolchain.device-libs")[0];
    assert_eq!(f["status"], "fail", "{f:#}");
    assert!(
        f["summary"]
            .as_str()
            .unwrap()
            .contains("oclc_abi_version_500.bc"),
        "{f:#}"
    );
}

/// The global deadline bounds the whole run even when each call may wait much longer.
#[test]
fn the_overall_deadline_ends_a_run_of_hanging_tools() {
    let t = tempfile::tempdir().unwrap();
    let hang = t.path().join("clang++");
    write_script(&hang, "#!/bin/sh\nsleep 600\n");
    let start = std::time::Instant::now();
    let out = doctor()
        .args([
            "--json",
            "--timeout",
            "500",
            "--deadline",
            "2",
            "--isa",
            "gfx1030",
            "--clang",
        ])
        .arg(&hang)
        .output()
        .unwrap();
    let doc = json_of(&out);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(findings(&doc, "toolchain.clang")[0]["status"], "error");
    // Only that it ended, not how fast: 500 s per call would otherwise be waited.
    assert!(start.elapsed().as_secs() < 120);
}

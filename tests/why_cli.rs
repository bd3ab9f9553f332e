//! `rocm-doctor why`: each symptom is recognised from its real message text, then confirmed on a
//! matching broken set-up and ruled out on a healthy one. Texts are produced for real where the
//! test bed can (clang, ld.lld); the others come from the symptom table, which cites the source
//! that prints them.

use crate::common::*;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Stdio;

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/sysroots")
        .join(name)
}

/// `why --json` with `text` on stdin; returns (document, exit code).
fn why(args: &[&str], env: &[(&str, &str)], text: &str) -> (serde_json::Value, i32) {
    let mut c = std::process::Command::new(assert_cmd::cargo::cargo_bin("rocm-doctor"));
    c.env_clear()
        .env("PATH", "/usr/local/bin:/usr/bin:/bin")
        .env("TMPDIR", std::env::temp_dir())
        .args(args)
        .args(["why", "--json", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    for (k, v) in env {
        c.env(k, v);
    }
    let mut child = c.spawn().unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(text.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    (json_of(&out), out.status.code().unwrap_or(-1))
}

fn answer<'a>(doc: &'a serde_json::Value, id: &str) -> &'a str {
    doc["recognised"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["id"] == id)
        .unwrap_or_else(|| panic!("{id} not recognised: {doc:#}"))["answer"]
        .as_str()
        .unwrap()
}

/// Asserts the answer `why` gave for symptom `id`, showing the whole document when it differs.
fn assert_answer(doc: &serde_json::Value, id: &str, expected: &str) {
    assert_eq!(answer(doc, id), expected, "{id}: {doc:#}");
}

/// Asserts that the document (evidence, fixes, causes) mentions `text` somewhere.
fn assert_mentions(doc: &serde_json::Value, text: &str) {
    assert!(
        doc.to_string().contains(text),
        "expected {text:?} in {doc:#}"
    );
}

#[derive(serde::Deserialize)]
struct Table {
    symptom: Vec<Row>,
}
#[derive(serde::Deserialize)]
struct Row {
    id: String,
    text: String,
}

#[test]
fn every_symptom_is_recognised_from_its_recorded_text_inside_a_log() {
    // Every built-in symptom pack; each symptom is shown by its own text (the first of its
    // cause when several symptoms of one cause match).
    let mut rows = Vec::new();
    for (name, text) in [
        (
            "checks/packs/symptoms.toml",
            include_str!("../checks/packs/symptoms.toml"),
        ),
        (
            "checks/packs/symptoms-gpu.toml",
            include_str!("../checks/packs/symptoms-gpu.toml"),
        ),
        (
            "checks/packs/symptoms-libs.toml",
            include_str!("../checks/packs/symptoms-libs.toml"),
        ),
    ] {
        let t: Table = rocm_doctor::data::load(name, text).unwrap_or_else(|e| panic!("{e}"));
        rows.extend(t.symptom);
    }
    assert!(rows.len() >= 50);
    for row in &rows {
        // Buried in a log, as pasted from CI.
        let log = format!(
            "+ make -j8\n[ 42%] Building HIP object\n{}\nmake: *** [all] Error 1\n",
            row.text
        );
        let out = std::process::Command::new(assert_cmd::cargo::cargo_bin("rocm-doctor"))
            .env_clear()
            .env("PATH", "/usr/bin:/bin")
            .args(["--only", "toolchain.env", "why", "--json", &log])
            .output()
            .unwrap();
        let doc = json_of(&out);
        let ids: Vec<&str> = doc["recognised"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| s["id"].as_str().unwrap())
            .collect();
        assert!(ids.contains(&row.id.as_str()), "{}: {ids:?}", row.id);
        let line = doc["recognised"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["id"] == row.id.as_str())
            .unwrap()["line"]
            .as_str()
            .unwrap()
            .to_string();
        assert!(
            row.text.contains(&line) || line.contains(row.text.lines().next().unwrap()),
            "{line}"
        );
    }
}

#[test]
fn unknown_text_says_so_and_runs_the_default_checks() {
    let out = doctor()
        .args([
            "--only",
            "toolchain.env",
            "--json",
            "why",
            "the",
            "printer",
            "is",
            "on",
            "fire",
        ])
        .output()
        .unwrap();
    let doc = json_of(&out);
    assert_eq!(doc["unrecognised"], true, "{doc:#}");
    assert_eq!(doc["recognised"].as_array().unwrap().len(), 0);
    assert!(doc["note"].as_str().unwrap().starts_with("NOT RECOGNISED"));
    assert_eq!(findings(&doc, "toolchain.env").len(), 1, "{doc:#}");
    // The human view says so before anything else.
    let out = doctor()
        .args(["--only", "toolchain.env", "why", "the printer is on fire"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.starts_with("NOT RECOGNISED: "), "{text}");
    assert!(text.contains("[toolchain.env]"), "{text}");
}

#[test]
fn a_paste_beginning_with_a_dash_is_text() {
    for paste in [
        "- Unable to open /dev/kfd read-write: Permission denied",
        "--- /opt/amdgpu/share/libdrm/amdgpu.ids: No such file or directory",
    ] {
        let out = doctor()
            .args(["--only", "toolchain.env", "--json", "why", paste])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0), "{paste}: {out:?}");
        let doc = json_of(&out);
        assert_eq!(doc["unrecognised"], false, "{doc:#}");
    }
}

#[test]
fn harmless_noise_is_answered_as_harmless_beside_the_real_error() {
    let text = "/opt/amdgpu/share/libdrm/amdgpu.ids: No such file or directory\n\
                \"hipErrorNoBinaryForGpu: Unable to find code object for all current devices!\"\n\
                Aborted (core dumped)";
    let out = doctor()
        .args(["--only", "toolchain.env", "--json", "why", text])
        .output()
        .unwrap();
    let doc = json_of(&out);
    let rec = doc["recognised"].as_array().unwrap();
    assert_ne!(
        rec[0]["harmless"], true,
        "the real error comes first: {doc:#}"
    );
    let ids: Vec<&str> = rec.iter().map(|r| r["id"].as_str().unwrap()).collect();
    let noise = rec
        .iter()
        .find(|r| r["id"] == "amdgpu-ids-missing")
        .unwrap_or_else(|| panic!("{ids:?}"));
    assert_eq!(noise["answer"], "harmless");
    assert_eq!(rec.last().unwrap()["id"], "amdgpu-ids-missing");
}

#[test]
fn a_no_gpu_message_is_confirmed_on_a_machine_without_a_gpu() {
    // A real PCI bus with no AMD function (a VM's, tests/fixtures/sysroots/vm-no-amd-gpu), no
    // KFD topology and no amdgpu: the text cannot say why no GPU was found; this machine can.
    let vm = fixture("vm-no-amd-gpu");
    let text = "RuntimeError: No HIP GPUs are available";
    let (doc, code) = why(&["--sysroot", vm.to_str().unwrap()], &[], text);
    let rec = doc["recognised"].as_array().unwrap();
    assert_eq!(rec[0]["class"], "gpu-no-amd-gpu", "{doc:#}");
    assert_eq!(rec[0]["answer"], "confirmed", "{doc:#}");
    assert_eq!(code, 1);
    // Group membership is not judged as the cause on a machine without a GPU.
    assert_answer(&doc, "no-hip-gpus", "undetermined");
    // Not by "amdgpu is not loaded", which an AMD GPU without its driver shows too, and not in
    // a root whose PCI bus is not visible at all (it proves nothing about the GPUs).
    let empty = tempfile::tempdir().unwrap();
    let (doc, _) = why(&["--sysroot", empty.path().to_str().unwrap()], &[], text);
    assert_answer(&doc, "no-hip-gpus-no-amd-gpu", "undetermined");
}

/// A text from Windows describes another machine: on a machine without an AMD GPU (the VM
/// fixture, which confirms "no AMD GPU" for a Linux text above), nothing is judged against this
/// machine, the Windows reading comes first, and the document says why. The line is hipInfo's,
/// as the HIP SDK for Windows printed it (https://github.com/ROCm/hip/issues/3805).
#[test]
fn a_text_from_windows_is_not_judged_against_this_machine() {
    let vm = fixture("vm-no-amd-gpu");
    let text = "checkHipErrors() HIP API error = 0100 \"no ROCm-capable device is detected\" from \
        file <C:\\constructicon\\builds\\gfx\\eleven\\24.20\\drivers\\compute\\hip-tests\\samples\\\
        1_Utils\\hipInfo\\hipInfo.cpp>, line 192.\n";
    let (doc, code) = why(&["--sysroot", vm.to_str().unwrap()], &[], text);
    let rec = doc["recognised"].as_array().unwrap();
    assert_eq!(rec[0]["id"], "gpu.windows-no-device", "{doc:#}");
    assert!(rec.iter().all(|r| r["answer"] == "undetermined"), "{doc:#}");
    assert_eq!(code, 0);
    assert!(
        doc["machine_not_asked"]
            .as_str()
            .is_some_and(|m| m.contains("Windows")),
        "{doc:#}"
    );
    // The same headline from Linux is judged here as before.
    let (doc, _) = why(
        &["--sysroot", vm.to_str().unwrap()],
        &[],
        "RuntimeError: No HIP GPUs are available",
    );
    assert!(doc.get("machine_not_asked").is_none(), "{doc:#}");
}

#[test]
fn being_in_the_render_group_is_not_answered_with_join_the_render_group() {
    // https://github.com/ROCm/ROCm/issues/2232: rocminfo's own line shows the group is fine; the
    // kernel's line names the cause.
    let text = "ROCk module is loaded\nUnable to open /dev/kfd read-write: Cannot allocate memory\n\
                igor is member of render group\n\
                Call returned HSA_STATUS_ERROR_OUT_OF_RESOURCES: The runtime failed to allocate the necessary resources.\n\
                [    3.548555] kfd kfd: amdgpu: PITCAIRN  not supported in kfd";
    let out = doctor()
        .args(["--only", "toolchain.env", "--json", "why", text])
        .output()
        .unwrap();
    let doc = json_of(&out);
    let rec = doc["recognised"].as_array().unwrap();
    assert_eq!(rec[0]["id"], "kfd-asic-not-supported", "{doc:#}");
    assert!(
        rec.iter().all(|r| r["class"] != "gpu-kfd-permission"),
        "{doc:#}"
    );
}

/// A wrapper around clang that adds `flags` to every call, as seed 001's wrapper does.
fn wrapper(dir: &Path, clang: &Path, flags: &str) -> PathBuf {
    let w = dir.join("clang++");
    write_script(
        &w,
        &format!("#!/bin/sh\nexec {} \"$@\" {flags}\n", clang.display()),
    );
    w
}

/// Seed 001's set-up: clang-15 and a wrapper around it that links an x86-64 libunwind into
/// every call, device links included (`None` without clang-15, lld-15 and libunwind-15).
fn injecting_wrapper(dir: &Path) -> Option<(PathBuf, PathBuf)> {
    let (clang, libdir) = clang_and_x86_unwind(dir)?;
    let w = wrapper(
        dir,
        &clang,
        &format!("-Wl,-L{} -Wl,-lunwind", libdir.display()),
    );
    Some((clang, w))
}

/// The device link Tensile and toolchain.link run, through `cc`: its real stderr.
fn device_link_stderr(cc: &Path, dir: &Path) -> String {
    let out = std::process::Command::new(cc)
        .args([
            "-x",
            "assembler",
            "-target",
            "amdgcn-amdhsa",
            "-mcpu=gfx900",
            "-",
            "-o",
        ])
        .arg(dir.join("out.o"))
        .current_dir(dir)
        .env("TMPDIR", dir)
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert!(!out.status.success());
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// Seed 001's Tensile lines (JachinShen's NixOS rocBLAS build, ROCm 6.2.2), verbatim: Tensile's
/// assembler probe failed for ISAs the release supports.
const TENSILE_ARCH_UNSUPPORTED: &str = "# Tensile Create Library\n\
Tensile::WARNING: Did not detect SupportedISA: [(8, 0, 3), (9, 0, 0), (9, 0, 6), (9, 0, 8), (9, 0, 10), (9, 4, 0), (9, 4, 1), (9, 4, 2), (10, 1, 0), (10, 1, 1), (10, 1, 2), (10, 3, 0), (10, 3, 1), (11, 0, 0), (11, 0, 1), (11, 0, 2)]; cannot benchmark assembly kernels.\n\
# Found  hipcc version 6.2.41134-0\n\
Tensile::WARNING: Architecture (8, 0, 3) not supported by ROCm 6.2.41134-0\n\
Tensile::WARNING: Architecture (9, 0, 0) not supported by ROCm 6.2.41134-0\n";

#[test]
fn tensile_arch_unsupported_is_confirmed_by_a_failing_link_and_never_ruled_out() {
    let t = tempfile::tempdir().unwrap();
    let Some((clang, w)) = injecting_wrapper(t.path()) else {
        return;
    };
    let (doc, code) = why(
        &["--clang", w.to_str().unwrap()],
        &[],
        TENSILE_ARCH_UNSUPPORTED,
    );
    assert_answer(&doc, "tensile-arch-unsupported", "confirmed");
    assert_eq!(code, 1);
    // A working clang here says nothing about the assembler Tensile used.
    let (doc, code) = why(
        &["--clang", clang.to_str().unwrap()],
        &[],
        TENSILE_ARCH_UNSUPPORTED,
    );
    assert_answer(&doc, "tensile-arch-unsupported", "undetermined");
    assert_eq!(code, 0);
    // The SupportedISA line alone is Tensile's harmless warning.
    assert_answer(&doc, "tensile-no-supported-isa", "harmless");
}

#[test]
fn lld_incompatible_is_confirmed_with_the_injecting_wrapper_and_ruled_out_without() {
    let t = tempfile::tempdir().unwrap();
    let Some((clang, w)) = injecting_wrapper(t.path()) else {
        return;
    };
    let text = device_link_stderr(&w, t.path());
    // ld.lld 15 names the first object rather than the emulation: `libunwind.so is incompatible
    // with /tmp/--xxxx.o`; the symptom's patterns cover both forms.
    assert!(text.contains("libunwind.so is incompatible with"), "{text}");
    let (doc, code) = why(&["--clang", w.to_str().unwrap()], &[], &text);
    assert_answer(&doc, "lld-incompatible", "confirmed");
    assert_eq!(code, 1);
    let (doc, code) = why(&["--clang", clang.to_str().unwrap()], &[], &text);
    assert_answer(&doc, "lld-incompatible", "ruled-out");
    assert_eq!(code, 0);
}

#[test]
fn lld_missing_unwind_is_confirmed_with_the_wrapper_and_ruled_out_without() {
    let t = tempfile::tempdir().unwrap();
    let Some(clang) = need_tool("clang++-15") else {
        return;
    };
    let w = wrapper(t.path(), &clang, "-Wl,-lunwind");
    let text = device_link_stderr(&w, t.path());
    assert!(text.contains("unable to find library -lunwind"), "{text}");
    let (doc, _) = why(&["--clang", w.to_str().unwrap()], &[], &text);
    assert_answer(&doc, "lld-no-unwind", "confirmed");
    let (doc, _) = why(&["--clang", clang.to_str().unwrap()], &[], &text);
    assert_answer(&doc, "lld-no-unwind", "ruled-out");
}

#[test]
fn nix_ldflags_confirm_the_link_symptom_through_the_nix_pack() {
    let t = tempfile::tempdir().unwrap();
    let text = "ld.lld: error: /nix/store/x-libunwind-19/lib/libunwind.so: is incompatible with elf64-amdgpu";
    let (doc, _) = why(
        &[],
        &[("NIX_LDFLAGS", "-L/nix/store/x-libunwind-19/lib -lunwind")],
        text,
    );
    assert_answer(&doc, "lld-incompatible", "confirmed");
    let checks = doc["recognised"][0]["checks"].to_string();
    assert!(
        checks.contains("nix.ldflags-env") && checks.contains("-lunwind"),
        "{checks}"
    );
    let _ = t;
}

#[test]
fn missing_device_libs_are_confirmed_for_bare_clang_on_debian_12() {
    // Debian 12's bare clang-15 does not find the bitcode hipcc passes itself (toolchain.device-libs).
    let Some(clang) = need_tool("clang++-15") else {
        return;
    };
    let t = tempfile::tempdir().unwrap();
    let src = t.path().join("k.hip");
    std::fs::write(&src, "__global__ void k() {}\n").unwrap();
    let out = std::process::Command::new(&clang)
        .env("TMPDIR", t.path())
        .args([
            "-x",
            "hip",
            "--cuda-device-only",
            "--offload-arch=gfx1030",
            "-c",
        ])
        .arg(&src)
        .arg("-o")
        .arg(t.path().join("k.o"))
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(text.contains("cannot find ROCm device library"), "{text}");
    let (doc, code) = why(&["--clang", clang.to_str().unwrap()], &[], &text);
    assert_answer(&doc, "clang-no-device-libs", "confirmed");
    assert_eq!(code, 1);
}

#[test]
fn missing_code_objects_are_confirmed_where_the_build_misses_the_gpu() {
    let text = "terminate called\n\"hipErrorNoBinaryForGpu: Unable to find code object for all current devices!\"\nAborted (core dumped)";
    let gfx90a = fixture("k8s-mi210x8-gfx90a-xgmi");
    let gfx1030 = fixture("gfx1030-dgpu");
    let (doc, code) = why(
        &["--sysroot", gfx90a.to_str().unwrap()],
        &[("AMDGPU_TARGETS", "gfx1030")],
        text,
    );
    assert_answer(&doc, "hip-no-binary", "confirmed");
    assert_eq!(code, 1);
    // Targets that cover the GPU do not prove the failing binary was built from them: without
    // the binary (`--binary`, tested below) the cause is not ruled out.
    let (doc, code) = why(
        &["--sysroot", gfx1030.to_str().unwrap()],
        &[("AMDGPU_TARGETS", "gfx1030")],
        text,
    );
    assert_answer(&doc, "hip-no-binary", "undetermined");
    assert_eq!(code, 0);
}

#[test]
fn pytorch_invalid_device_function_follows_pytorch_rocm_arch() {
    let text = "Traceback (most recent call last):\n  File \"train.py\", line 3, in <module>\nRuntimeError: HIP error: invalid device function\nHIP kernel errors might be asynchronously reported";
    let gfx90a = fixture("k8s-mi210x8-gfx90a-xgmi");
    let (doc, _) = why(
        &["--sysroot", gfx90a.to_str().unwrap()],
        &[("PYTORCH_ROCM_ARCH", "gfx1030;gfx1100")],
        text,
    );
    assert_answer(&doc, "pytorch-invalid-device-function", "confirmed");
    assert_mentions(&doc, "does not build for gfx90a");
    let (doc, _) = why(
        &["--sysroot", gfx90a.to_str().unwrap()],
        &[("PYTORCH_ROCM_ARCH", "gfx90a")],
        text,
    );
    assert_answer(&doc, "pytorch-invalid-device-function", "ruled-out");
}

#[test]
fn kfd_permission_is_confirmed_where_the_group_is_missing() {
    let text = "Unable to open /dev/kfd read-write: Permission denied\nFailed to get user name to check for video group membership";
    let (doc, _) = why(
        &["--sysroot", fixture("kfd-group-missing").to_str().unwrap()],
        &[],
        text,
    );
    assert_answer(&doc, "kfd-permission", "confirmed");
    let (doc, _) = why(
        &["--sysroot", fixture("gfx1030-dgpu").to_str().unwrap()],
        &[],
        text,
    );
    assert_answer(&doc, "kfd-permission", "ruled-out");
}

/// A real HIP library: hipcc for gfx1030 only, or clang-19 with --offload-compress (a CCOB).
fn build_lib(dir: &Path, compressed: bool) -> Option<PathBuf> {
    let src = dir.join("a.hip");
    std::fs::write(
        &src,
        "#include <hip/hip_runtime.h>\n__global__ void k(float *x) { x[0] = 1; }\n",
    )
    .unwrap();
    let out = if compressed {
        let clang = need_tool("/usr/lib/llvm-19/bin/clang++")?;
        dir.join("libz.so")
            .to_str()
            .map(|o| {
                std::process::Command::new(clang)
                    .env("PATH", "/usr/lib/llvm-19/bin:/usr/bin:/bin")
                    .args(["-x", "hip", "--offload-arch=gfx1030", "--offload-compress"])
                    .args([
                        "--rocm-device-lib-path=/usr/lib/x86_64-linux-gnu/amdgcn/bitcode",
                        "--rocm-path=/usr",
                    ])
                    .args(["-fPIC", "-shared"])
                    .arg(&src)
                    .args(["-o", o])
                    .current_dir(dir)
                    .env("TMPDIR", dir)
                    .status()
                    .unwrap()
            })
            .map(|s| (s, dir.join("libz.so")))
    } else {
        let hipcc = need_tool("hipcc")?;
        dir.join("lib1030.so")
            .to_str()
            .map(|o| {
                std::process::Command::new(hipcc)
                    .args(["--offload-arch=gfx1030", "-fPIC", "-shared"])
                    .arg(&src)
                    .args(["-o", o])
                    .current_dir(dir)
                    .env("TMPDIR", dir)
                    .status()
                    .unwrap()
            })
            .map(|s| (s, dir.join("lib1030.so")))
    };
    let (status, path) = out?;
    assert!(status.success());
    Some(path)
}

#[test]
fn a_gfx1030_only_binary_is_confirmed_for_gfx90a_and_ruled_out_for_gfx1030() {
    let t = tempfile::tempdir().unwrap();
    let Some(lib) = build_lib(t.path(), false) else {
        return;
    };
    let text = "hipErrorNoBinaryForGpu: Unable to find code object for all current devices!";
    let bin = ["--binary", lib.to_str().unwrap()];
    // Without the binary there is no GPU here to decide with.
    let (doc, _) = why(&["--isa", "gfx90a"], &[], text);
    assert_answer(&doc, "hip-no-binary", "undetermined");
    let run = |isa: &str| {
        let mut c = std::process::Command::new(assert_cmd::cargo::cargo_bin("rocm-doctor"));
        c.env_clear()
            .env("PATH", "/usr/local/bin:/usr/bin:/bin")
            .args(["--isa", isa, "why", "--json"])
            .args(bin)
            .arg(text);
        let out = c.output().unwrap();
        (json_of(&out), out.status.code().unwrap_or(-1))
    };
    let (doc, code) = run("gfx90a");
    assert_answer(&doc, "hip-no-binary", "confirmed");
    assert!(
        doc.to_string()
            .contains("carries code objects for: gfx1030"),
        "{doc:#}"
    );
    assert_eq!(code, 1);
    let (doc, code) = run("gfx1030");
    assert_answer(&doc, "hip-no-binary", "ruled-out");
    assert_eq!(code, 0);
}

#[test]
fn a_ccob_binary_is_confirmed_on_hip_5_2() {
    // Debian 12's HIP 5.2 predates compressed bundles (known issue ccob-runtime-too-old).
    let t = tempfile::tempdir().unwrap();
    let Some(ccob) = build_lib(t.path(), true) else {
        return;
    };
    let Some(plain) = build_lib(t.path(), false) else {
        return;
    };
    let text = "hipErrorNoBinaryForGpu: Unable to find code object for all current devices!";
    let run = |lib: &Path| {
        let out = std::process::Command::new(assert_cmd::cargo::cargo_bin("rocm-doctor"))
            .env_clear()
            .env("PATH", "/usr/local/bin:/usr/bin:/bin")
            .args(["--isa", "gfx1030", "why", "--json", "--binary"])
            .arg(lib)
            .arg(text)
            .output()
            .unwrap();
        json_of(&out)
    };
    let doc = run(&ccob);
    assert_answer(&doc, "hip-no-binary", "confirmed");
    assert_mentions(&doc, "known issue ccob-runtime-too-old");
    let doc = run(&plain);
    assert_answer(&doc, "hip-no-binary", "ruled-out");
}

#[test]
fn missing_device_libs_are_ruled_out_on_sids_healthy_stack() {
    let Some(sid) = sid_root() else {
        return;
    };
    // The message as Debian 12's clang-15 prints it (produced in the test above).
    let text = "clang: error: cannot find ROCm device library; provide its path via '--rocm-path' or '--rocm-device-lib-path', or pass '-nogpulib' to build without ROCm device library";
    let out = std::process::Command::new(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/in-root.sh"),
    )
    .env(
        "ROCM_DOCTOR_BIN",
        assert_cmd::cargo::cargo_bin("rocm-doctor"),
    )
    .arg(&sid)
    .args(["rocm-doctor", "why", "--json", text])
    .output()
    .unwrap();
    let doc = json_of(&out);
    assert_answer(&doc, "clang-no-device-libs", "ruled-out");
    assert_mentions(&doc, "clang/21/amdgcn/bitcode");
}

/// The real sid root, or None (skipped unless the toolchain is required).
fn sid_root() -> Option<PathBuf> {
    let roots = std::env::var_os("ROCM_DOCTOR_ROOTS")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("/var/tmp/rocm-doctor-roots"));
    let sid = roots.join("sid");
    if sid.join(".rocm-doctor-root-ok").is_file() {
        return Some(sid);
    }
    assert!(
        !toolchain_required(),
        "the real sid root is required (scripts/real-roots.sh)"
    );
    eprintln!("skipped: the real sid root is not built");
    None
}

/// `why --json TEXT` run inside the real root (scripts/in-root.sh), with `VAR=value` words.
fn why_in_root(root: &Path, vars: &[&str], args: &[&str], text: &str) -> (serde_json::Value, i32) {
    let out = std::process::Command::new(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/in-root.sh"),
    )
    .env(
        "ROCM_DOCTOR_BIN",
        assert_cmd::cargo::cargo_bin("rocm-doctor"),
    )
    .arg(root)
    .args(vars)
    .arg("rocm-doctor")
    .args(args)
    .args(["why", "--json", text])
    .output()
    .unwrap();
    (json_of(&out), out.status.code().unwrap_or(-1))
}

fn recognised<'a>(doc: &'a serde_json::Value, id: &str) -> &'a serde_json::Value {
    doc["recognised"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["id"] == id)
        .unwrap_or_else(|| panic!("{id} not recognised: {doc:#}"))
}

/// clang's stderr for a HIP compile of a one-kernel file with `args`, in a temp dir.
fn clang_hip_stderr(clang: &Path, dir: &Path, args: &[&str], env: &[(&str, &str)]) -> String {
    let src = dir.join("k.hip");
    std::fs::write(&src, "__global__ void k(float *x) { x[0] = 1; }\n").unwrap();
    let mut c = std::process::Command::new(clang);
    c.env("TMPDIR", dir)
        .current_dir(dir)
        .args(["-x", "hip", "-c"])
        .args(args)
        .arg(&src)
        .arg("-o")
        .arg(dir.join("k.o"));
    for (k, v) in env {
        c.env(k, v);
    }
    let out = c.output().unwrap();
    assert!(!out.status.success());
    String::from_utf8_lossy(&out.stderr).into_owned()
}

#[test]
fn why_json_carries_the_schema_version_and_the_command() {
    let (doc, code) = why(
        &["--only", "toolchain.env"],
        &[],
        "ld.lld: error: unable to find library -lunwind",
    );
    assert_eq!(doc["schema_version"], 2, "{doc:#}");
    assert_eq!(doc["tool"]["name"], "rocm-doctor");
    assert_eq!(doc["command"], "why");
    assert_eq!(doc["exit_code"], code);
    assert!(doc["recognised"][0]["captures"].is_object(), "{doc:#}");
}

#[test]
fn an_unknown_target_is_judged_for_the_processor_the_text_names() {
    let (Some(clang15), Some(clang19)) = (
        need_tool("clang++-15"),
        need_tool("/usr/lib/llvm-19/bin/clang++"),
    ) else {
        return;
    };
    let t = tempfile::tempdir().unwrap();
    // The real message: clang 15 predates gfx1200 (RDNA4).
    let text = clang_hip_stderr(&clang15, t.path(), &["--offload-arch=gfx1200"], &[]);
    assert!(text.contains("invalid target ID 'gfx1200'"), "{text}");
    let (doc, code) = why(&["--clang", clang15.to_str().unwrap()], &[], &text);
    let s = recognised(&doc, "clang-unknown-target");
    assert_eq!(s["answer"], "confirmed", "{doc:#}");
    assert_eq!(s["captures"]["isa"], "gfx1200");
    assert_eq!(code, 1);
    // The evidence names the clang here that does know it, and the fix uses it.
    let isa = s["checks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["id"] == "targets.isa" && f["subject"] == "gfx1200")
        .unwrap_or_else(|| panic!("{doc:#}"));
    let summary = isa["summary"].as_str().unwrap();
    assert!(
        summary.contains("does not know gfx1200; clang 19")
            && summary.contains("/usr/lib/llvm-19/bin/clang++ does"),
        "{summary}"
    );
    assert!(
        isa["fix"]["text"]
            .as_str()
            .unwrap()
            .contains("--clang /usr/lib/llvm-19/bin/clang++"),
        "{isa:#}"
    );
    // Judged with clang 19, which knows gfx1200: ruled out.
    let (doc, code) = why(&["--clang", clang19.to_str().unwrap()], &[], &text);
    assert_answer(&doc, "clang-unknown-target", "ruled-out");
    assert_eq!(code, 0);
    // A well-formed name no clang knows is confirmed, and the doctor says no clang knows it.
    let unknown = clang_hip_stderr(&clang15, t.path(), &["--offload-arch=gfx1300"], &[]);
    let (doc, _) = why(&["--clang", clang15.to_str().unwrap()], &[], &unknown);
    assert_answer(&doc, "clang-unknown-target", "confirmed");
    assert_mentions(&doc, "no other clang here does");
    // A malformed one (a typo) is confirmed as such.
    let typo = clang_hip_stderr(&clang15, t.path(), &["--offload-arch=gfx90a:xnack"], &[]);
    let (doc, _) = why(&["--clang", clang15.to_str().unwrap()], &[], &typo);
    assert_answer(&doc, "clang-unknown-target", "confirmed");
    assert!(
        doc.to_string()
            .contains("the text given to why holds an invalid ISA 'gfx90a:xnack'"),
        "{doc:#}"
    );
}

#[test]
fn an_unknown_target_is_ruled_out_by_sids_clang_21() {
    let Some(sid) = sid_root() else {
        return;
    };
    // The message as Debian 12's clang-15 prints it (produced in the test above).
    let text = "clang: error: invalid target ID 'gfx1200'; format is a processor name followed by an optional colon-delimited list of features followed by an enable/disable sign (e.g., 'gfx908:sramecc+:xnack-')";
    let (doc, code) = why_in_root(&sid, &[], &[], text);
    assert_answer(&doc, "clang-unknown-target", "ruled-out");
    assert_eq!(code, 0);
    assert!(
        doc.to_string()
            .contains("target gfx1200 (from the text given to why)"),
        "{doc:#}"
    );
    // A value carried from one message is judged for its own symptom only: rocBLAS's gfx942
    // confirms the missing Tensile library, not the other symptoms of the same log.
    let log = format!("{text}\nrocBLAS error: Cannot read /usr/lib/x86_64-linux-gnu/rocblas/4.4.1/library/TensileLibrary.dat: Illegal seek for GPU arch : gfx942\nhipErrorNoBinaryForGpu: Unable to find code object for all current devices!\n");
    let (doc, _) = why_in_root(&sid, &[], &[], &log);
    assert_answer(&doc, "clang-unknown-target", "ruled-out");
    assert_answer(&doc, "rocblas-tensile-missing", "confirmed");
    assert_answer(&doc, "hip-no-binary", "undetermined");
}

#[test]
fn a_missing_hip_runtime_is_confirmed_where_hip_path_names_an_empty_root() {
    let Some(clang15) = need_tool("clang++-15") else {
        return;
    };
    let t = tempfile::tempdir().unwrap();
    let empty = t.path().join("empty-hip");
    std::fs::create_dir(&empty).unwrap();
    // clang 15 takes HIP_PATH as the HIP installation (the device libraries are found, so the
    // HIP runtime is what it reports missing).
    let text = clang_hip_stderr(
        &clang15,
        t.path(),
        &[
            "--offload-arch=gfx1030",
            "--rocm-device-lib-path=/usr/lib/x86_64-linux-gnu/amdgcn/bitcode",
        ],
        &[("HIP_PATH", empty.to_str().unwrap())],
    );
    assert!(text.contains("cannot find HIP runtime"), "{text}");
    // The build as hipcc runs it, with HIP_PATH at the empty root: confirmed.
    let (doc, code) = why(
        &["--isa", "gfx1030"],
        &[("HIP_PATH", empty.to_str().unwrap())],
        &text,
    );
    assert_answer(&doc, "clang-no-hip-runtime", "confirmed");
    assert_mentions(&doc, "lacks HIP headers");
    assert_eq!(code, 1);
    // Without it, hipcc's compile works here: ruled out.
    let (doc, code) = why(&["--isa", "gfx1030"], &[], &text);
    assert_answer(&doc, "clang-no-hip-runtime", "ruled-out");
    assert_eq!(code, 0);
    // Debian 12's bare clang-15 (CMake's HIP language) does not find the runtime even without
    // HIP_PATH: its compile probe fails with this very message, so it is confirmed too.
    let (doc, _) = why(
        &["--clang", clang15.to_str().unwrap(), "--isa", "gfx1030"],
        &[],
        &text,
    );
    assert_answer(&doc, "clang-no-hip-runtime", "confirmed");
    assert_mentions(&doc, "cannot find HIP runtime");
}

#[test]
fn a_missing_tensile_library_follows_the_processor_rocblas_names_in_sid() {
    let Some(sid) = sid_root() else {
        return;
    };
    // rocBLAS's message names the processor; sid's rocBLAS 6.4 (soname 4.4.1) has Tensile
    // kernels for gfx90a but none for gfx942. No GPU here: the text's processor is judged.
    let msg = |isa: &str| {
        format!("rocBLAS error: Cannot read /usr/lib/x86_64-linux-gnu/rocblas/4.4.1/library/TensileLibrary.dat: Illegal seek for GPU arch : {isa}\n List of available TensileLibrary Files : ")
    };
    let (doc, code) = why_in_root(&sid, &[], &[], &msg("gfx942"));
    let s = recognised(&doc, "rocblas-tensile-missing");
    assert_eq!(s["answer"], "confirmed", "{doc:#}");
    assert_eq!(s["captures"]["isa"], "gfx942");
    assert!(
        s["checks"]
            .to_string()
            .contains("Tensile library has no kernels for gfx942"),
        "{doc:#}"
    );
    assert_eq!(code, 1);
    let (doc, code) = why_in_root(&sid, &[], &[], &msg("gfx90a"));
    assert_answer(&doc, "rocblas-tensile-missing", "ruled-out");
    assert_mentions(&doc, "Tensile library covers gfx90a");
    assert_eq!(code, 0);
}

#[test]
fn an_invalid_kernel_file_is_confirmed_where_the_legacy_unbundler_meets_hip_6_4() {
    let Some(sid) = sid_root() else {
        return;
    };
    // sid's HIP 6.4 with HIP_USE_RUNTIME_UNBUNDLER=1 takes the legacy unbundler, which
    // rejects every uncompressed bundle (known issue clr-bundle-magic-nul): the installed
    // rocBLAS is one. The text is CLR's hipGetErrorString (no GPU here to print it).
    let text = "hipModuleLoad failed: hipErrorInvalidKernelFile: invalid kernel file";
    let (doc, code) = why_in_root(
        &sid,
        &["HIP_USE_RUNTIME_UNBUNDLER=1"],
        &["--isa", "gfx90a"],
        text,
    );
    assert_answer(&doc, "hip-invalid-kernel-file", "confirmed");
    assert_mentions(&doc, "known issue clr-bundle-magic-nul");
    assert_eq!(code, 1);
    let (doc, code) = why_in_root(&sid, &[], &["--isa", "gfx90a"], text);
    assert_answer(&doc, "hip-invalid-kernel-file", "ruled-out");
    assert_eq!(code, 0);
}

#[test]
fn an_invalid_device_function_is_confirmed_for_a_binary_without_the_gpus_code() {
    let t = tempfile::tempdir().unwrap();
    let Some(lib) = build_lib(t.path(), false) else {
        return;
    };
    let text = "hipLaunchKernel returned hipErrorInvalidDeviceFunction: invalid device function";
    let run = |isa: &str| {
        let out = std::process::Command::new(assert_cmd::cargo::cargo_bin("rocm-doctor"))
            .env_clear()
            .env("PATH", "/usr/local/bin:/usr/bin:/bin")
            .args(["--isa", isa, "why", "--json", "--binary"])
            .arg(&lib)
            .arg(text)
            .output()
            .unwrap();
        (json_of(&out), out.status.code().unwrap_or(-1))
    };
    // hipcc built it for gfx1030 only.
    let (doc, code) = run("gfx90a");
    assert_answer(&doc, "hip-invalid-device-function", "confirmed");
    assert!(
        doc.to_string()
            .contains("carries code objects for: gfx1030"),
        "{doc:#}"
    );
    assert_eq!(code, 1);
    let (doc, code) = run("gfx1030");
    assert_answer(&doc, "hip-invalid-device-function", "ruled-out");
    assert_eq!(code, 0);
}

#[test]
fn out_of_resources_and_tensiles_missing_isa_follow_device_access() {
    let hsa = "hipInit: HSA_STATUS_ERROR_OUT_OF_RESOURCES: The runtime failed to allocate the necessary resources. This error may also occur when the core runtime library needs to spawn threads or create internal OS-specific events.";
    let tensile = "Tensile::WARNING: Did not detect SupportedISA: [(8, 0, 3), (9, 0, 0), (9, 0, 6), (9, 0, 8), (9, 0, 10), (10, 3, 0)]; cannot benchmark assembly kernels.";
    let both = format!("{tensile}\n{hsa}\n");
    // A GPU whose /dev/kfd the user cannot open (not in the render group).
    let (doc, code) = why(
        &["--sysroot", fixture("kfd-group-missing").to_str().unwrap()],
        &[],
        &both,
    );
    assert_answer(&doc, "hsa-out-of-resources", "confirmed");
    // Tensile's line is a warning (printWarning; only benchmarking needs the GPU): harmless
    // whatever the machine, and listed after the message that stops something.
    assert_answer(&doc, "tensile-no-supported-isa", "harmless");
    assert_mentions(&doc, "cannot open /dev/kfd");
    assert_eq!(code, 1);
    // The same GPU with access.
    let (doc, code) = why(
        &["--sysroot", fixture("gfx1030-dgpu").to_str().unwrap()],
        &[],
        &both,
    );
    assert_answer(&doc, "hsa-out-of-resources", "ruled-out");
    assert_answer(&doc, "tensile-no-supported-isa", "harmless");
    assert_eq!(code, 0);
    // This build machine (no KFD): the warning alone stops nothing here either.
    let (doc, code) = why(&[], &[], tensile);
    assert_answer(&doc, "tensile-no-supported-isa", "harmless");
    assert_eq!(code, 0);
}

#[test]
fn llvm_symbols_missing_are_confirmed_with_a_foreign_libllvm_first_in_the_path() {
    let (Some(cc), Some(py)) = (need_tool("clang-15"), need_tool("python3")) else {
        return;
    };
    // The libLLVM comgr itself loads (Debian 12's libllvm15).
    let llvm = Path::new("/usr/lib/x86_64-linux-gnu/libLLVM-15.so.1");
    if !llvm.exists() {
        assert!(!toolchain_required(), "{} is missing", llvm.display());
        return;
    }
    let t = tempfile::tempdir().unwrap();
    let d = t.path();
    // A library that needs LLVM's C API from libLLVM-15.so.1, as comgr and MIOpen do ...
    std::fs::write(
        d.join("m.c"),
        "void LLVMInitializeAMDGPUTargetInfo(void);\nvoid init(void) { LLVMInitializeAMDGPUTargetInfo(); }\n",
    )
    .unwrap();
    // ... and a foreign libLLVM-15.so.1 that lacks it, first in LD_LIBRARY_PATH.
    std::fs::write(d.join("f.c"), "int foreign_llvm;\n").unwrap();
    std::fs::create_dir(d.join("foreign")).unwrap();
    let build = |args: &[&str]| {
        let st = std::process::Command::new(&cc)
            .current_dir(d)
            .env("TMPDIR", d)
            .args(["-shared", "-fPIC"])
            .args(args)
            .status()
            .unwrap();
        assert!(st.success());
    };
    build(&["m.c", "-o", "libmiopen-like.so", llvm.to_str().unwrap()]);
    build(&[
        "f.c",
        "-Wl,-soname,libLLVM-15.so.1",
        "-o",
        "foreign/libLLVM-15.so.1",
    ]);
    let foreign = d.join("foreign");
    let out = std::process::Command::new(&py)
        .current_dir(d)
        .env("LD_LIBRARY_PATH", &foreign)
        .args(["-c", "import ctypes; ctypes.CDLL('./libmiopen-like.so')"])
        .output()
        .unwrap();
    // The dynamic loader's real message.
    let text = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(
        text.contains("undefined symbol: LLVMInitializeAMDGPUTargetInfo"),
        "{text}"
    );
    let (doc, code) = why(
        &[],
        &[("LD_LIBRARY_PATH", foreign.to_str().unwrap())],
        &text,
    );
    assert_answer(&doc, "miopen-llvm-undefined", "confirmed");
    // comgr, which needs the same libLLVM-15.so.1, fails to load the same way.
    assert!(
        doc.to_string()
            .contains("libamd_comgr cannot be loaded: dlopen failed"),
        "{doc:#}"
    );
    assert_eq!(code, 1);
    let (doc, code) = why(&[], &[], &text);
    assert_answer(&doc, "miopen-llvm-undefined", "ruled-out");
    assert_eq!(code, 0);
}

#[test]
fn cmakes_hip_language_is_confirmed_on_debian_12_and_its_check_passes_on_a_flat_layout() {
    let Some(cmake) = need_tool("cmake") else {
        return;
    };
    let Some(clang15) = need_tool("clang++-15") else {
        return;
    };
    let t = tempfile::tempdir().unwrap();
    let d = t.path();
    std::fs::write(
        d.join("CMakeLists.txt"),
        "cmake_minimum_required(VERSION 3.21)\nproject(x LANGUAGES HIP)\n",
    )
    .unwrap();
    let out = std::process::Command::new(&cmake)
        .current_dir(d)
        .env("TMPDIR", d)
        .arg("-S")
        .arg(d)
        .arg("-B")
        .arg(d.join("build"))
        .arg(format!("-DCMAKE_HIP_COMPILER={}", clang15.display()))
        .output()
        .unwrap();
    assert!(!out.status.success());
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    // Debian 12: CMake 3.25 looks in /usr/lib/cmake/hip-lang, Debian ships it under the
    // multiarch directory.
    assert!(
        text.contains("does not contain the HIP runtime CMake package"),
        "{text}"
    );
    let (doc, code) = why(&["--clang", clang15.to_str().unwrap()], &[], &text);
    assert_answer(&doc, "cmake-hip-language", "confirmed");
    assert!(
        doc.to_string()
            .contains("HIP language looks only in ROOT/lib/cmake/hip-lang"),
        "{doc:#}"
    );
    assert_eq!(code, 1);
    // The check itself passes where the package is where that same module looks (the real
    // 3.25 module and the real package files, in a root with ROCm's flat /opt layout).
    let module = Path::new("/usr/share/cmake-3.25/Modules/CMakeDetermineHIPCompiler.cmake");
    let package = Path::new("/usr/lib/x86_64-linux-gnu/cmake/hip-lang");
    if !module.is_file() || !package.is_dir() {
        return;
    }
    let root = d.join("root");
    let m = root.join("usr/share/cmake-3.25/Modules");
    std::fs::create_dir_all(&m).unwrap();
    std::fs::copy(module, m.join("CMakeDetermineHIPCompiler.cmake")).unwrap();
    let p = root.join("opt/rocm-6.2.0/lib/cmake/hip-lang");
    std::fs::create_dir_all(&p).unwrap();
    for e in std::fs::read_dir(package).unwrap() {
        let e = e.unwrap();
        std::fs::copy(e.path(), p.join(e.file_name())).unwrap();
    }
    let (doc, _) = run_json(
        [
            "--sysroot",
            root.to_str().unwrap(),
            "--only",
            "cmake.hip-lang",
        ],
        &[],
    );
    let f = findings(&doc, "cmake.hip-lang");
    assert_eq!(f[0]["status"], "pass", "{doc:#}");
    assert!(
        f[0]["summary"]
            .as_str()
            .unwrap()
            .contains("/opt/rocm-6.2.0/lib/cmake/hip-lang/hip-lang-config.cmake"),
        "{doc:#}"
    );
}

#[test]
fn known_issues_run_as_pack_checks_over_the_libraries_the_loader_finds() {
    // A real CCOB library (clang-19 --offload-compress) installed as librocblas where the
    // loader looks: Debian 12's HIP 5.2 cannot read it (known issue ccob-runtime-too-old),
    // judged by the default run's pack check, not only by `inspect`.
    let t = tempfile::tempdir().unwrap();
    let Some(ccob) = build_lib(t.path(), true) else {
        return;
    };
    let lib = t.path().join("lib");
    std::fs::create_dir(&lib).unwrap();
    std::fs::copy(&ccob, lib.join("librocblas.so")).unwrap();
    let id = "known-issues.ccob-runtime-too-old";
    let (doc, code) = run_json(
        ["--only", id],
        &[("LD_LIBRARY_PATH", lib.to_str().unwrap())],
    );
    let f = findings(&doc, id);
    assert_eq!(f.len(), 1, "{doc:#}");
    assert_eq!(f[0]["status"], "fail", "{doc:#}");
    assert!(
        f[0]["summary"]
            .as_str()
            .unwrap()
            .ends_with(&format!("({}/librocblas.so)", lib.display())),
        "{doc:#}"
    );
    assert!(
        f[0]["evidence"].to_string().contains("file.ccob"),
        "{doc:#}"
    );
    assert_eq!(code, 1);
    // Without it, the installed libraries carry no CCOB: the check passes.
    let (doc, code) = run_json(["--only", id], &[]);
    assert_eq!(findings(&doc, id)[0]["status"], "pass", "{doc:#}");
    assert_eq!(code, 0);
    // `explain` shows the issue's own docs and where it comes from.
    let out = doctor().args(["explain", id]).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("built-in checks/known-issues.toml") && text.contains("CCOB"),
        "{text}"
    );
}

#[test]
fn cmakes_hip_language_is_ruled_out_in_sid_where_real_cmake_configures_a_hip_project() {
    let Some(sid) = sid_root() else {
        return;
    };
    if !sid.join("usr/bin/cmake").is_file() {
        assert!(
            !toolchain_required(),
            "the sid root lacks cmake (scripts/real-roots.sh installs it)"
        );
        eprintln!("skipped: no cmake in the sid root");
        return;
    }
    // The healthy counterpart of Debian 12's failure: sid's CMake configures a HIP-language
    // project for real, with clang-21 as the HIP compiler and Debian's multiarch hip-lang package.
    let out = std::process::Command::new(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/in-root.sh"),
    )
    .arg(&sid)
    .args([
        "sh",
        "-c",
        "mkdir -p /tmp/p && printf 'cmake_minimum_required(VERSION 3.21)\\nproject(x LANGUAGES HIP)\\n' > /tmp/p/CMakeLists.txt && cmake -S /tmp/p -B /tmp/p/build -DCMAKE_HIP_COMPILER=clang++-21 2>&1",
    ])
    .output()
    .unwrap();
    let log = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{log}");
    assert!(
        log.contains("The HIP compiler identification is Clang"),
        "{log}"
    );
    // The message Debian 12's CMake prints (produced for real in the test above) is ruled out.
    let text = "CMake Error at /usr/share/cmake-3.25/Modules/CMakeDetermineHIPCompiler.cmake:106 (message):\n  The ROCm root directory:\n\n   /usr\n\n  does not contain the HIP runtime CMake package, expected at:\n\n   /usr/lib/cmake/hip-lang/hip-lang-config.cmake\n";
    let (doc, _) = why_in_root(&sid, &[], &[], text);
    assert_answer(&doc, "cmake-hip-language", "ruled-out");
}

/// The `unexamined` entries of one recognised symptom.
fn unexamined<'a>(doc: &'a serde_json::Value, id: &str) -> &'a Vec<serde_json::Value> {
    doc["recognised"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["id"] == id)
        .unwrap_or_else(|| panic!("{id} not recognised: {doc:#}"))["unexamined"]
        .as_array()
        .unwrap()
}

/// Debian 12's device bitcode: with it in HIP_DEVICE_LIB_PATH the clang the doctor picks finds
/// its device libraries, so `toolchain.device-libs` passes.
const DEBIAN_BITCODE: &str = "/usr/lib/x86_64-linux-gnu/amdgcn/bitcode";

#[test]
fn a_pass_for_the_judged_clang_does_not_rule_out_an_error_from_another_clang_here() {
    let (Some(clang19), Some(_)) = (
        need_tool("/usr/lib/llvm-19/bin/clang++"),
        need_tool("clang++-15"),
    ) else {
        return;
    };
    if !Path::new(DEBIAN_BITCODE).is_dir() {
        eprintln!("skipped: no {DEBIAN_BITCODE}");
        return;
    }
    // The real error of clang 19 (no device libraries where it looks), as a build log shows
    // it: the command echoed by the build tool, then clang's message.
    let t = tempfile::tempdir().unwrap();
    let src = t.path().join("k.hip");
    std::fs::write(&src, "__global__ void k() {}\n").unwrap();
    let args = [
        "-x",
        "hip",
        "--cuda-device-only",
        "--offload-arch=gfx1030",
        "-c",
        src.to_str().unwrap(),
        "-o",
        "k.o",
    ];
    let out = std::process::Command::new(&clang19)
        .env_clear()
        .env("TMPDIR", t.path())
        .current_dir(t.path())
        .args(args)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("cannot find ROCm device library"), "{err}");
    let text = format!("{} {}\n{err}", clang19.display(), args.join(" "));
    let env = [("HIP_DEVICE_LIB_PATH", DEBIAN_BITCODE)];
    // The doctor judges another clang (hipcc's clang-15 here), which finds the bitcode.
    let (doc, code) = why(&[], &env, &text);
    assert_answer(&doc, "clang-no-device-libs", "undetermined");
    let u = unexamined(&doc, "clang-no-device-libs");
    assert_eq!(u.len(), 1, "{doc:#}");
    assert_eq!(u[0]["kind"], "compiler");
    assert_eq!(u[0]["path"], clang19.to_str().unwrap());
    assert_eq!(u[0]["present"], true);
    let how = format!("--clang {}", clang19.display());
    assert_eq!(u[0]["how"], how.as_str());
    assert!(
        u[0]["examined"]
            .as_array()
            .unwrap()
            .iter()
            .all(|p| !p.as_str().unwrap().starts_with("/usr/lib/llvm-19/")),
        "{doc:#}"
    );
    assert_eq!(code, 0);
    // Doing what the line says judges the clang of the error: HIP_DEVICE_LIB_PATH helps it
    // too, so the cause is ruled out for every path the text names.
    let (doc, code) = why(&["--clang", clang19.to_str().unwrap()], &env, &text);
    assert_answer(&doc, "clang-no-device-libs", "ruled-out");
    assert!(
        unexamined(&doc, "clang-no-device-libs").is_empty(),
        "{doc:#}"
    );
    assert_eq!(code, 0);
    // The human answer names the clang and the option.
    let out = doctor()
        .env("HIP_DEVICE_LIB_PATH", DEBIAN_BITCODE)
        .args(["why", &text])
        .output()
        .unwrap();
    let human = String::from_utf8_lossy(&out.stdout);
    assert!(human.contains("not checked:"), "{human}");
    assert!(human.contains(&format!("rocm-doctor {how} why")), "{human}");
}

#[test]
fn an_error_from_a_clang_this_machine_lacks_is_not_ruled_out_here() {
    if need_tool("clang++-15").is_none() {
        return;
    }
    if !Path::new(DEBIAN_BITCODE).is_dir() {
        eprintln!("skipped: no {DEBIAN_BITCODE}");
        return;
    }
    // tests/corpus/build.toml, build-ce-miscbuilder-86-devlibs-not-in-zip (a real build log).
    let text = "  cd /root/ROCm-CompilerSupport-rocm-6.1.2/build/test && /opt/compiler-explorer/clang-rocm-6.1.2/bin/clang-17 -c -emit-llvm -target amdgcn-amd-amdhsa -mcpu=gfx900 /root/ROCm-CompilerSupport-rocm-6.1.2/lib/comgr/test/source/source1.cl -o source/source1.bc\n  clang-17: error: cannot find ROCm device library; provide its path via '--rocm-path' or '--rocm-device-lib-path', or pass '-nogpulib' to build without ROCm device library\n";
    let env = [("HIP_DEVICE_LIB_PATH", DEBIAN_BITCODE)];
    let (doc, code) = why(&[], &env, text);
    assert_answer(&doc, "clang-no-device-libs", "undetermined");
    let u = unexamined(&doc, "clang-no-device-libs");
    let paths: Vec<&str> = u.iter().map(|x| x["path"].as_str().unwrap()).collect();
    assert!(
        paths.contains(&"/opt/compiler-explorer/clang-rocm-6.1.2/bin/clang-17"),
        "{doc:#}"
    );
    let missing = u
        .iter()
        .find(|x| x["path"] == "/opt/compiler-explorer/clang-rocm-6.1.2/bin/clang-17")
        .unwrap();
    assert_eq!(missing["present"], false);
    assert!(missing["how"].is_null());
    assert_eq!(code, 0);
    // Without a path in the text, the same pass rules the cause out (nothing else was named).
    let bare = "clang: error: cannot find ROCm device library; provide its path via '--rocm-path' or '--rocm-device-lib-path', or pass '-nogpulib' to build without ROCm device library";
    let (doc, _) = why(&[], &env, bare);
    assert_answer(&doc, "clang-no-device-libs", "ruled-out");
    assert!(unexamined(&doc, "clang-no-device-libs").is_empty());
}

#[test]
fn a_fault_of_the_judged_clang_does_not_confirm_an_error_from_another_clang() {
    if need_tool("clang++-15").is_none() {
        return;
    }
    // The same real build log; without HIP_DEVICE_LIB_PATH, bare clang-15 here finds no device
    // library (toolchain.device-libs warns), which confirms the cause for an error of clang-15,
    // not for one printed by a clang-17 in /opt/compiler-explorer that this machine lacks.
    let text = "  cd /root/ROCm-CompilerSupport-rocm-6.1.2/build/test && /opt/compiler-explorer/clang-rocm-6.1.2/bin/clang-17 -c -emit-llvm -target amdgcn-amd-amdhsa -mcpu=gfx900 /root/ROCm-CompilerSupport-rocm-6.1.2/lib/comgr/test/source/source1.cl -o source/source1.bc\n  clang-17: error: cannot find ROCm device library; provide its path via '--rocm-path' or '--rocm-device-lib-path', or pass '-nogpulib' to build without ROCm device library\n";
    let bare = "clang: error: cannot find ROCm device library; provide its path via '--rocm-path' or '--rocm-device-lib-path', or pass '-nogpulib' to build without ROCm device library";
    let (doc, _) = why(&[], &[], bare);
    if doc["recognised"][0]["answer"] != "confirmed" {
        eprintln!("skipped: bare clang finds the device library here: {doc:#}");
        return;
    }
    let (doc, code) = why(&[], &[], text);
    assert_answer(&doc, "clang-no-device-libs", "undetermined");
    assert!(
        unexamined(&doc, "clang-no-device-libs")
            .iter()
            .any(|u| u["path"] == "/opt/compiler-explorer/clang-rocm-6.1.2/bin/clang-17"),
        "{doc:#}"
    );
    assert_eq!(code, 0, "an unconfirmed cause is not a failure here");
}

/// `why FILE`: one word naming a regular file is a saved log, read as stdin is; the same word
/// for a FIFO or a missing file stays text (judged on the opened descriptor, never waited on).
#[test]
fn a_lone_word_naming_a_file_is_read_as_the_log() {
    let t = tempfile::tempdir().unwrap();
    let log = t.path().join("train.log");
    // PyTorch's C10_CUDA_CHECK message as hipified (checks/packs/symptoms.toml cites it).
    std::fs::write(
        &log,
        "step 1\nRuntimeError: HIP error: invalid device function\n",
    )
    .unwrap();
    let root = fixture("gfx1030-dgpu");
    let run = |word: &Path| {
        let out = doctor()
            .args(["--sysroot", root.to_str().unwrap(), "why", "--json"])
            .arg(word)
            .timeout(std::time::Duration::from_secs(120))
            .output()
            .unwrap();
        json_of(&out)
    };
    let doc = run(&log);
    assert!(
        answer_ids(&doc).contains(&"pytorch-invalid-device-function".to_string()),
        "{doc:#}"
    );
    let fifo = t.path().join("fifo.log");
    nix::unistd::mkfifo(&fifo, nix::sys::stat::Mode::from_bits_truncate(0o600)).unwrap();
    for word in [fifo, t.path().join("missing.log")] {
        let doc = run(&word);
        assert!(answer_ids(&doc).is_empty(), "{}: {doc:#}", word.display());
        assert!(doc.to_string().contains("NOT RECOGNISED"), "{doc:#}");
    }
}

fn answer_ids(doc: &serde_json::Value) -> Vec<String> {
    doc["recognised"]
        .as_array()
        .map(|a| {
            a.iter()
                .filter_map(|s| s["id"].as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default()
}

#[test]
fn secure_boot_refusing_amdgpu_answers_before_load_the_driver() {
    // kmod's refusal (tools/modprobe.c) with EKEYREJECTED's text, beside rocminfo's line: both
    // say the driver is not loaded, but only the first says why, and "load amdgpu" would fail
    // again (ROCm/legacy-rocm-build#4328).
    let empty = tempfile::tempdir().unwrap();
    let text = "modprobe: ERROR: could not insert 'amdgpu': Key was rejected by service\n\
                ROCk module is NOT loaded, possibly no GPU devices";
    let (doc, _) = why(&["--sysroot", empty.path().to_str().unwrap()], &[], text);
    let rec = doc["recognised"].as_array().unwrap();
    assert_eq!(rec[0]["id"], "modload.signature-rejected", "{doc:#}");
    assert!(
        rec[0]["fix"].as_str().unwrap().contains("mokutil"),
        "{doc:#}"
    );
    assert!(
        rec.iter()
            .skip(1)
            .any(|r| r["class"] == "gpu-driver-missing"),
        "the symptom of the same cause stays, after it: {doc:#}"
    );
}

/// Copies the tree at `from` (files and relative symlinks, as a sysfs capture has them) to `to`.
fn copy_tree(from: &Path, to: &Path) {
    for e in walkdir::WalkDir::new(from).min_depth(1) {
        let e = e.unwrap();
        let dest = to.join(e.path().strip_prefix(from).unwrap());
        let ft = e.file_type();
        if ft.is_symlink() {
            std::os::unix::fs::symlink(std::fs::read_link(e.path()).unwrap(), &dest).unwrap();
        } else if ft.is_dir() {
            std::fs::create_dir_all(&dest).unwrap();
        } else {
            std::fs::copy(e.path(), &dest).unwrap();
        }
    }
}

#[test]
fn a_cuda_only_line_that_names_no_gpu_is_settled_by_this_machines_bus() {
    // PyTorch's CUDA build's exception, cut after its first sentence as
    // https://github.com/HAMM3REXTREME/ComfyUI-Installer/issues/6 pastes it: the text names no GPU.
    let text = "RuntimeError: Found no NVIDIA driver on your system.\n";
    let reasoning = |doc: &serde_json::Value| -> Option<String> {
        doc["recognised"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["class"] == "lib-cuda-build")
            .map(|r| r["captures"]["reasoning"].as_str().unwrap().to_string())
    };
    // A bus with no GPU (tests/fixtures/sysroots/vm-no-amd-gpu): read for an AMD GPU, saying so.
    let vm = fixture("vm-no-amd-gpu");
    let (doc, _) = why(&["--sysroot", vm.to_str().unwrap()], &[], text);
    let r = reasoning(&doc).unwrap_or_else(|| panic!("{doc:#}"));
    assert!(
        r.contains("read for an AMD GPU") && r.contains("PCI bus shows no AMD or NVIDIA GPU"),
        "{r}"
    );
    // Eight MI210 (tests/fixtures/sysroots/layers-mi210x8-ok): this machine's answer.
    let mi210 = fixture("layers-mi210x8-ok");
    let (doc, _) = why(&["--sysroot", mi210.to_str().unwrap()], &[], text);
    let r = reasoning(&doc).unwrap_or_else(|| panic!("{doc:#}"));
    assert!(
        r.contains("this machine has an AMD GPU (gfx90a, measured) and no NVIDIA GPU"),
        "{r}"
    );
    // The VM's bus with an NVIDIA GPU function added, in the PCI core's format (vendor, device,
    // class as `0x%04x`/`0x%06x`, drivers/pci/pci-sysfs.c; the ids of an RTX 3090 as `lspci -n`
    // prints them, "01:00.0 0300: 10de:2204"): the line means NVIDIA's driver, no answer.
    let root = tempfile::tempdir().unwrap();
    copy_tree(&vm, root.path());
    let dev = root.path().join("sys/devices/pci0000:00/0000:01:00.0");
    std::fs::create_dir_all(&dev).unwrap();
    for (f, v) in [
        ("vendor", "0x10de\n"),
        ("device", "0x2204\n"),
        ("class", "0x030000\n"),
    ] {
        std::fs::write(dev.join(f), v).unwrap();
    }
    std::os::unix::fs::symlink(
        "../../../devices/pci0000:00/0000:01:00.0",
        root.path().join("sys/bus/pci/devices/0000:01:00.0"),
    )
    .unwrap();
    let (doc, _) = why(&["--sysroot", root.path().to_str().unwrap()], &[], text);
    assert_eq!(reasoning(&doc), None, "{doc:#}");
}

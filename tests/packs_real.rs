//! The shipped packs (checks/packs/) against real files, the real python3 and GPU fixtures.

use crate::common::*;
use std::path::{Path, PathBuf};

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/sysroots")
        .join(name)
}

fn one(args: &[&str], env: &[(&str, &str)], id: &str) -> serde_json::Value {
    let mut c = doctor();
    c.args(["--json", "--only", id]).args(args);
    for (k, v) in env {
        c.env(k, v);
    }
    let doc = json_of(&c.output().unwrap());
    let f = findings(&doc, id);
    assert_eq!(f.len(), 1, "{doc:#}");
    f[0].clone()
}

#[test]
fn pytorch_rocm_arch_must_cover_every_gpu() {
    let root = fixture("gfx1036-igpu-gfx1031-dgpu");
    let sys = ["--sysroot", root.to_str().unwrap()];
    let f = one(
        &sys,
        &[("PYTORCH_ROCM_ARCH", "gfx90a;gfx1031")],
        "pytorch.rocm-arch",
    );
    assert_eq!(f["status"], "fail", "{f:#}");
    assert_eq!(
        f["summary"],
        "PYTORCH_ROCM_ARCH=gfx90a;gfx1031 does not build for gfx1036, a GPU of this machine"
    );
    let f = one(
        &sys,
        &[("PYTORCH_ROCM_ARCH", "gfx1031, gfx1036")],
        "pytorch.rocm-arch",
    );
    assert_eq!(f["status"], "pass", "{f:#}");
    let f = one(&sys, &[], "pytorch.rocm-arch");
    assert_eq!(f["status"], "skip");
    // No GPU: the check does not apply.
    let f = one(
        &[
            "--sysroot",
            fixture("container-no-devices").to_str().unwrap(),
        ],
        &[("PYTORCH_ROCM_ARCH", "gfx90a")],
        "pytorch.rocm-arch",
    );
    assert_eq!(f["status"], "skip", "{f:#}");
}

/// A `torch` package for the real python3: only `torch.version.hip`, as torch/version.py has it.
fn fake_torch(dir: &Path, hip: &str) -> PathBuf {
    let t = dir.join("site").join("torch");
    std::fs::create_dir_all(&t).unwrap();
    std::fs::write(t.join("__init__.py"), "from . import version\n").unwrap();
    std::fs::write(t.join("version.py"), format!("hip = {hip}\n")).unwrap();
    dir.join("site")
}

#[test]
fn torch_version_hip_is_compared_with_the_system_hip() {
    if need_tool("python3").is_none() || need_tool("hipcc").is_none() {
        return;
    }
    let t = tempfile::tempdir().unwrap();
    let system = std::fs::canonicalize("/usr/lib/x86_64-linux-gnu/libamdhip64.so").unwrap();
    let system = system
        .file_name()
        .unwrap()
        .to_string_lossy()
        .trim_start_matches("libamdhip64.so.")
        .to_string();
    let mm: String = system.split('.').take(2).collect::<Vec<_>>().join(".");
    let site = fake_torch(&t.path().join("a"), "'6.2.41133-dd7f95766'");
    let env = [
        ("PYTHONPATH", site.to_str().unwrap()),
        ("PYTHONDONTWRITEBYTECODE", "1"),
    ];
    let f = one(&[], &env, "pytorch.bundled-hip");
    assert_eq!(f["status"], "warn", "{f:#}");
    assert!(
        f["summary"].as_str().unwrap().starts_with(&format!(
            "torch was built with HIP 6.2 but the system's HIP is {system}"
        )),
        "{f:#}"
    );
    let site = fake_torch(&t.path().join("b"), &format!("'{system}'"));
    let f = one(
        &[],
        &[
            ("PYTHONPATH", site.to_str().unwrap()),
            ("PYTHONDONTWRITEBYTECODE", "1"),
        ],
        "pytorch.bundled-hip",
    );
    assert_eq!(f["status"], "pass", "{f:#}");
    assert!(f["summary"].as_str().unwrap().contains(&mm));
    let site = fake_torch(&t.path().join("c"), "None");
    let f = one(
        &[],
        &[
            ("PYTHONPATH", site.to_str().unwrap()),
            ("PYTHONDONTWRITEBYTECODE", "1"),
        ],
        "pytorch.bundled-hip",
    );
    assert_eq!(f["status"], "skip", "{f:#}");
    assert!(
        f["summary"].as_str().unwrap().contains("not a ROCm build"),
        "{f:#}"
    );
    // No torch at all: python3 is not asked; the evidence names where the doctor looked.
    let f = one(&[], &[], "pytorch.bundled-hip");
    assert_eq!(f["status"], "skip");
    assert_eq!(
        f["summary"], "torch is not installed for python3 here",
        "{f:#}"
    );
    let ev = f["evidence"].to_string();
    assert!(
        ev.contains("no torch package in the site directories of python3"),
        "{f:#}"
    );
    assert!(!ev.contains("ran: "), "python3 was run: {f:#}");
    // A package python3 cannot import after all (a directory without version.py): python3
    // was asked and its error is shown.
    let broken = t.path().join("d/site/torch");
    std::fs::create_dir_all(&broken).unwrap();
    std::fs::write(broken.join("__init__.py"), "").unwrap();
    let f = one(
        &[],
        &[
            ("PYTHONPATH", broken.parent().unwrap().to_str().unwrap()),
            ("PYTHONDONTWRITEBYTECODE", "1"),
        ],
        "pytorch.bundled-hip",
    );
    assert_eq!(f["status"], "skip", "{f:#}");
    assert!(f["evidence"].to_string().contains("version.py"), "{f:#}");
}

#[test]
fn hip_visible_devices_must_index_the_jobs_gpus() {
    let f = one(
        &[],
        &[("SLURM_JOB_GPUS", "4,5"), ("HIP_VISIBLE_DEVICES", "0,3")],
        "slurm.hip-visible",
    );
    assert_eq!(f["status"], "fail", "{f:#}");
    assert_eq!(
        f["summary"],
        "HIP_VISIBLE_DEVICES=0,3 names device(s) 3, but the job has 2 GPU(s) (indices 0..2 exclusive)"
    );
    let f = one(
        &[],
        &[("SLURM_JOB_GPUS", "4,5"), ("HIP_VISIBLE_DEVICES", "1")],
        "slurm.hip-visible",
    );
    assert_eq!(f["status"], "pass", "{f:#}");
    let f = one(&[], &[("HIP_VISIBLE_DEVICES", "1")], "slurm.hip-visible");
    assert_eq!(f["status"], "skip", "outside a job: {f:#}");
}

#[test]
fn kfd_in_a_job_is_opened_like_rocr_does() {
    let f = one(&[], &[("SLURM_JOB_ID", "77")], "slurm.kfd-cgroup");
    if Path::new("/dev/kfd").exists() {
        assert!(f["status"] == "pass" || f["status"] == "fail", "{f:#}");
    } else {
        // This test bed has no GPU: the job check says so and runs nothing.
        assert_eq!(f["status"], "skip", "{f:#}");
        assert_eq!(
            f["summary"],
            "job 77: this machine has no /dev/kfd (gpu.kfd judges the driver)"
        );
        assert!(
            !f["evidence"].to_string().contains("ran:"),
            "no command without /dev/kfd"
        );
    }
    let f = one(&[], &[], "slurm.kfd-cgroup");
    assert_eq!(f["status"], "skip");
    assert!(
        !f["evidence"].to_string().contains("/dev/kfd"),
        "outside a job nothing is probed: {f:#}"
    );
}

/// A cc-wrapper store path laid out as nixpkgs' cc-wrapper makes it (nix-support/*ldflags).
fn cc_wrapper(dir: &Path, ldflags: &str) -> PathBuf {
    let w = dir.join("nix/store/abc-rocm-llvm-clang-wrapper-19");
    std::fs::create_dir_all(w.join("nix-support")).unwrap();
    std::fs::write(
        w.join("nix-support/cc-cflags"),
        "-B/nix/store/abc-rocm-llvm-clang-wrapper-19/bin/\n",
    )
    .unwrap();
    std::fs::write(w.join("nix-support/libcxx-ldflags"), ldflags).unwrap();
    std::fs::write(
        w.join("nix-support/cc-ldflags"),
        "-L/nix/store/def-gcc-13-lib/lib\n",
    )
    .unwrap();
    w
}

#[test]
fn nix_wrapper_flags_that_inject_libunwind_are_named() {
    let t = tempfile::tempdir().unwrap();
    let w = cc_wrapper(t.path(), "-L/nix/store/ghi-libunwind-19/lib -lunwind\n");
    let f = one(
        &[],
        &[("NIX_CC", w.to_str().unwrap())],
        "nix.wrapper-ldflags",
    );
    assert_eq!(f["status"], "warn", "{f:#}");
    let file = w.join("nix-support/libcxx-ldflags");
    assert_eq!(
        f["summary"],
        format!(
            "{} adds '-L/nix/store/ghi-libunwind-19/lib' to every link, device links too",
            file.display()
        )
    );
    let clean = tempfile::tempdir().unwrap();
    let w = cc_wrapper(clean.path(), "-lc++ -lc++abi\n");
    let f = one(
        &[],
        &[("NIX_CC", w.to_str().unwrap())],
        "nix.wrapper-ldflags",
    );
    assert_eq!(f["status"], "pass", "{f:#}");
    let f = one(
        &[],
        &[(
            "NIX_LDFLAGS",
            "-rpath /nix/store/x/lib -L/nix/store/y/lib -lunwind",
        )],
        "nix.ldflags-env",
    );
    assert_eq!(f["status"], "warn", "{f:#}");
    assert_eq!(
        f["summary"],
        "NIX_LDFLAGS adds '-lunwind' to every link, device links too"
    );
}

#[test]
fn the_seed_wrapper_is_caught_by_both_the_nix_pack_and_the_link_check() {
    // Seed 001 for real: the cc-wrapper's flags reach clang through NIX_LDFLAGS, the link fails.
    let t = tempfile::tempdir().unwrap();
    let Some((clang, libdir)) = clang_and_x86_unwind(t.path()) else {
        return;
    };
    let w = cc_wrapper(t.path(), &format!("-L{} -lunwind\n", libdir.display()));
    let script = t.path().join("clang++");
    write_script(
        &script,
        &format!(
            "#!/bin/sh\nfor f in $NIX_LDFLAGS; do set -- \"$@\" \"-Wl,$f\"; done\nexec {} \"$@\"\n",
            clang.display()
        ),
    );
    let ldflags = std::fs::read_to_string(w.join("nix-support/libcxx-ldflags")).unwrap();
    let out = doctor()
        .args(["--json", "--only", "nix.,toolchain.link", "--clang"])
        .arg(&script)
        .env("NIX_CC", &w)
        .env("NIX_LDFLAGS", ldflags.trim())
        .output()
        .unwrap();
    let doc = json_of(&out);
    assert_eq!(
        findings(&doc, "toolchain.link")[0]["status"],
        "fail",
        "{doc:#}"
    );
    assert_eq!(findings(&doc, "nix.wrapper-ldflags")[0]["status"], "warn");
    assert_eq!(findings(&doc, "nix.ldflags-env")[0]["status"], "warn");
}

//! `--host-root DIR` (issue 20): a host root mounted into a container is the live host, not a
//! fixture. Files are read under DIR; device nodes are opened as this process sees them (its
//! own /dev, never a fixture manifest); hsa_init is probed in a child through the host's own
//! loader under DIR; `--sysroot` keeps its fixture meaning and the two are exclusive.

use crate::common::{doctor, findings, fixture, run_json};
use std::path::{Path, PathBuf};

/// A temp "host root": the fixture's sys/ and etc/ (and its manifest, which must be ignored).
fn host_tree(name: &str) -> tempfile::TempDir {
    let t = tempfile::tempdir().unwrap();
    let src = fixture("sysroots", name);
    for d in ["sys", "etc"] {
        crate::common::copy_tree(&src.join(d), &t.path().join(d));
    }
    std::fs::copy(
        src.join(".rocm-doctor-fixture.toml"),
        t.path().join(".rocm-doctor-fixture.toml"),
    )
    .unwrap();
    t
}

/// Whether this test process can open /dev/kfd read-write (what a live judgement must find).
fn kfd_opens_here() -> bool {
    std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open("/dev/kfd")
        .is_ok()
}

#[test]
fn host_root_judges_device_nodes_live_not_by_a_manifest() {
    let t = host_tree("gfx1030-dgpu");
    let root = t.path().to_str().unwrap();
    // The same tree as a fixture: its manifest describes a /dev/kfd that opens.
    let (doc, _) = run_json(
        [
            "--sysroot",
            root,
            "--profile",
            "runtime",
            "--only",
            "gpu.kfd",
        ],
        &[],
    );
    assert_eq!(findings(&doc, "gpu.kfd")[0]["status"], "pass", "{doc}");

    // As a host root: the node this process sees, whatever the manifest says.
    let (doc, code) = run_json(
        [
            "--host-root",
            root,
            "--profile",
            "runtime",
            "--only",
            "gpu.kfd,gpu.runtime-init",
        ],
        &[],
    );
    let kfd = findings(&doc, "gpu.kfd");
    let summary = kfd[0]["summary"].as_str().unwrap();
    assert!(!summary.contains("fixture"), "{summary}");
    if kfd_opens_here() {
        assert_eq!(kfd[0]["status"], "pass", "{summary}");
    } else {
        assert_eq!(kfd[0]["status"], "fail", "{summary}");
        assert_eq!(code, 1);
    }
    // hsa_init is probed (not skipped as a fixture's): here the tree has no libhsa-runtime64.
    let init = findings(&doc, "gpu.runtime-init");
    assert_ne!(init[0]["status"], "skip", "{}", init[0]);
    // The report names the root it read.
    assert_eq!(doc["sysroot"], root);
}

#[test]
fn host_root_reads_files_under_dir() {
    let t = host_tree("gfx1030-dgpu");
    let (doc, _) = run_json(
        [
            "--host-root",
            t.path().to_str().unwrap(),
            "--profile",
            "runtime",
            "--only",
            "gpu.agents",
        ],
        &[],
    );
    let text = doc["findings"].to_string();
    assert!(text.contains("gfx1030"), "{text}");
}

#[test]
fn host_root_and_sysroot_are_exclusive() {
    let t = tempfile::tempdir().unwrap();
    let root = t.path().to_str().unwrap();
    let out = doctor()
        .args(["--host-root", root, "--sysroot", root])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("--host-root") && err.contains("--sysroot"),
        "{err}"
    );
    // Not a directory: a usage error naming the flag.
    let out = doctor()
        .args(["--host-root", "/nonexistent/host"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--host-root /nonexistent/host"));
}

/// The HSA probe child runs through the host's loader found under DIR (its absolute symlinks
/// resolved inside DIR), with the host's library directories: here a copy of this machine's
/// loader and libc stands for the host's, and a library without `hsa_init` for the runtime.
#[test]
fn host_root_probe_child_runs_through_the_hosts_loader() {
    let (interp, libdir) = ("/lib64/ld-linux-x86-64.so.2", "/lib/x86_64-linux-gnu");
    if std::env::consts::ARCH != "x86_64" || !Path::new(interp).exists() {
        eprintln!("skipped: not an x86_64 glibc machine");
        return;
    }
    let t = host_tree("gfx1030-dgpu");
    let r = t.path();
    let host_lib = r.join("lib/x86_64-linux-gnu");
    std::fs::create_dir_all(&host_lib).unwrap();
    std::fs::create_dir_all(r.join("lib64")).unwrap();
    let real_interp = std::fs::canonicalize(interp).unwrap();
    std::fs::copy(&real_interp, host_lib.join("ld-linux-x86-64.so.2")).unwrap();
    // An absolute link, as on a Debian host: resolved inside DIR, not on this machine.
    std::os::unix::fs::symlink(
        format!("{libdir}/ld-linux-x86-64.so.2"),
        r.join("lib64/ld-linux-x86-64.so.2"),
    )
    .unwrap();
    for l in ["libc.so.6", "libgcc_s.so.1", "libm.so.6"] {
        let p = PathBuf::from(libdir).join(l);
        if p.exists() {
            std::fs::copy(&p, host_lib.join(l)).unwrap();
        }
    }
    std::fs::create_dir_all(r.join("opt/rocm/lib")).unwrap();
    std::fs::copy(
        host_lib.join("libm.so.6"),
        r.join("opt/rocm/lib/libhsa-runtime64.so.1"),
    )
    .unwrap();
    let (doc, _) = run_json(
        [
            "--host-root",
            r.to_str().unwrap(),
            "--profile",
            "runtime",
            "--only",
            "gpu.runtime-init",
        ],
        &[],
    );
    let f = findings(&doc, "gpu.runtime-init")[0].to_string();
    let loader = format!("{}/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2", r.display());
    assert!(f.contains(&loader), "{f}");
    assert!(f.contains("--library-path"), "{f}");
    // The child ran (the host's loader started the doctor) and reported on the library.
    assert!(
        f.contains("hsa_init") || f.contains("cannot be loaded"),
        "{f}"
    );
}

//! Issue 25, item 2. --host-root: every path is resolved inside the host root before it reaches a child.
//!
//! AMD's documented layout (the ROCm installation guide's post-install step: `/opt/rocm` the
//! `update-alternatives` link to `/opt/rocm-X.Y.Z`, and `/opt/rocm/lib` in `ld.so.conf.d`)
//! has two absolute links in a row: `/opt/rocm -> /etc/alternatives/rocm -> /opt/rocm-6.2.0`.
//! Handed to the probe child as `DIR/opt/rocm/lib`, the kernel follows them from this
//! container's root: the library is missing (a healthy node reported broken), or the pod's
//! own `/opt/rocm-6.2.0` is loaded and judged as the host's.

use crate::common::{findings, need_tool, run_json};
use std::path::{Path, PathBuf};
use std::process::Command;

const ROCM: &str = "opt/rocm-6.2.0";

/// A hard link where the file system allows it (this machine's libraries are large), else a copy.
fn link_or_copy(from: &Path, to: &Path) {
    let from = std::fs::canonicalize(from).unwrap();
    if std::fs::hard_link(&from, to).is_err() {
        std::fs::copy(&from, to).unwrap();
    }
}

/// A host root with this machine's real HIP runtime (Debian's libamdhip64 5.2, its HSA runtime
/// and comgr) installed the AMD way under `/opt/rocm-6.2.0`, their dependencies and this
/// machine's loader under `/lib/x86_64-linux-gnu`, and the fixture's KFD topology. `None` on a
/// machine without them (a skip; a failure when the toolchain is required).
fn amd_layout_host() -> Option<tempfile::TempDir> {
    let sys = Path::new("/usr/lib/x86_64-linux-gnu");
    let libs = [
        "libamdhip64.so.5",
        "libhsa-runtime64.so.1",
        "libamd_comgr.so.2",
    ];
    for l in libs {
        need_tool(sys.join(l).to_str().unwrap())?;
    }
    let ldd = need_tool("ldd")?;
    let loader = need_tool("/lib64/ld-linux-x86-64.so.2")?;
    let t = tempfile::tempdir().unwrap();
    let r = t.path();
    for d in [
        "lib/x86_64-linux-gnu",
        "lib64",
        "etc/alternatives",
        "etc/ld.so.conf.d",
    ] {
        std::fs::create_dir_all(r.join(d)).unwrap();
    }
    let lib = r.join(ROCM).join("lib");
    std::fs::create_dir_all(&lib).unwrap();
    for l in libs {
        link_or_copy(&sys.join(l), &lib.join(l));
        let dev = l.rsplit_once(".so").unwrap().0.to_string() + ".so";
        std::os::unix::fs::symlink(l, lib.join(dev)).unwrap();
    }
    // Their dependencies, as ldd lists them (`name => /path (0x...)`).
    let out = Command::new(ldd)
        .args(libs.map(|l| sys.join(l)))
        .output()
        .unwrap();
    let deps = String::from_utf8_lossy(&out.stdout).into_owned();
    for dep in deps.lines().filter_map(|l| l.split("=> ").nth(1)) {
        let p = PathBuf::from(dep.split(" (").next().unwrap().trim());
        let name = p.file_name().unwrap().to_string_lossy().into_owned();
        let dst = r.join("lib/x86_64-linux-gnu").join(&name);
        if libs.iter().all(|l| *l != name) && p.is_file() && !dst.exists() {
            link_or_copy(&p, &dst);
        }
    }
    link_or_copy(
        &loader,
        &r.join("lib/x86_64-linux-gnu/ld-linux-x86-64.so.2"),
    );
    let link = |target: &str, at: &str| std::os::unix::fs::symlink(target, r.join(at)).unwrap();
    link(
        "/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2",
        "lib64/ld-linux-x86-64.so.2",
    );
    // The alternatives chain, absolute links as update-alternatives makes them.
    link("/opt/rocm-6.2.0", "etc/alternatives/rocm");
    link("/etc/alternatives/rocm", "opt/rocm");
    std::fs::write(
        r.join("etc/ld.so.conf"),
        "include /etc/ld.so.conf.d/*.conf\n",
    )
    .unwrap();
    std::fs::write(r.join("etc/ld.so.conf.d/rocm.conf"), "/opt/rocm/lib\n").unwrap();
    crate::common::copy_tree(
        &crate::common::fixture("sysroots", "gfx1030-dgpu").join("sys"),
        &r.join("sys"),
    );
    Some(t)
}

const ARGS: [&str; 4] = [
    "--profile",
    "runtime",
    "--only",
    "runtime.load,gpu.runtime-init",
];

/// runtime.load passes for the HIP runtime and comgr, gpu.runtime-init fails only for want
/// of /dev/kfd (never for a path), and every path handed to the children is under the
/// resolved `DIR/opt/rocm-6.2.0`, never `DIR/opt/rocm`.
fn assert_judged_the_hosts_library(doc: &serde_json::Value, root: &Path) {
    let load = findings(doc, "runtime.load");
    assert_eq!(load.len(), 2, "{doc:#}");
    for f in &load {
        assert_eq!(f["status"], "pass", "{f:#}");
    }
    assert!(
        load.iter()
            .any(|f| f["summary"].as_str().unwrap().contains("HIP runtime 5.2.")),
        "{doc:#}"
    );
    let text = doc["findings"].to_string();
    let resolved = format!("{}/{ROCM}/lib", root.display());
    let unresolved = format!("{}/opt/rocm/lib", root.display());
    assert!(text.contains(&resolved), "{doc:#}");
    assert!(!text.contains(&unresolved), "{doc:#}");
    for f in findings(doc, "gpu.runtime-init") {
        let s = f.to_string();
        assert!(!s.contains("cannot be loaded"), "{f:#}");
        assert!(!s.contains("No such file or directory"), "{f:#}");
    }
}

#[test]
fn amds_alternatives_layout_loads_the_hosts_runtime() {
    let Some(t) = amd_layout_host() else { return };
    let r = t.path();
    // This process's own root has no ROCm under /opt: only the host root's can be judged.
    assert!(!Path::new("/opt/rocm-6.2.0").exists());
    let (doc, _) = run_json(
        ["--host-root", r.to_str().unwrap()].into_iter().chain(ARGS),
        &[],
    );
    assert_judged_the_hosts_library(&doc, r);
}

/// The pod has its own `/etc/alternatives/rocm` and `/opt/rocm-6.2.0` (a decoy whose
/// "libamdhip64" is a copy of libm, without the HIP API), given in a private mount namespace:
/// the host's runtime is still the one loaded and judged.
#[test]
fn the_pods_own_rocm_is_never_judged_as_the_hosts() {
    let Some(t) = amd_layout_host() else { return };
    if !nix::unistd::geteuid().is_root() {
        eprintln!("skipped: a mount namespace needs root");
        return;
    }
    let Some(unshare) = need_tool("unshare") else {
        return;
    };
    let r = t.path();
    let pod = tempfile::tempdir().unwrap();
    let (opt, alt) = (pod.path().join("opt"), pod.path().join("alternatives"));
    let decoy = opt.join("rocm-6.2.0/lib");
    std::fs::create_dir_all(&decoy).unwrap();
    for l in ["libamdhip64.so", "libhsa-runtime64.so", "libamd_comgr.so"] {
        link_or_copy(Path::new("/lib/x86_64-linux-gnu/libm.so.6"), &decoy.join(l));
    }
    let script = format!(
        "set -e; cp -a /etc/alternatives/. {alt}/; ln -s /opt/rocm-6.2.0 {alt}/rocm; \
         mount --bind {alt} /etc/alternatives; mount --bind {opt} /opt; \
         exec \"$0\" \"$@\"",
        alt = alt.display(),
        opt = opt.display()
    );
    std::fs::create_dir_all(&alt).unwrap();
    let out = Command::new(unshare)
        .args(["-m", "sh", "-c", &script])
        .arg(assert_cmd::cargo::cargo_bin("rocm-doctor"))
        .args(["--json", "--host-root", r.to_str().unwrap()])
        .args(ARGS)
        .env_clear()
        .env("PATH", "/usr/bin:/bin")
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    let doc: serde_json::Value = serde_json::from_str(&text).unwrap_or_else(|e| {
        panic!(
            "not JSON ({e}): {text}\n{}",
            String::from_utf8_lossy(&out.stderr)
        )
    });
    assert_judged_the_hosts_library(&doc, r);
}

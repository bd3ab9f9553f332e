//! `libs.python-envs` through the binary: Python environments that carry ROCm, built in a
//! temporary root on top of a GPU fixture sysroot, with the real kernel file names of
//! tests/fixtures/pyenvs (README there).

use crate::common::{copy_tree, findings, fixture, run_json};
use serde_json::Value;
use std::path::Path;
use std::time::{Duration, Instant};

const ID: &str = "libs.python-envs";
const VENV: &str = "home/u/venv";
const SITE: &str = "home/u/venv/lib/python3.12/site-packages";

/// A root: a copy of sysroot fixture `gpu` (or empty).
fn root(gpu: Option<&str>) -> tempfile::TempDir {
    let t = tempfile::tempdir().unwrap();
    if let Some(g) = gpu {
        copy_tree(&fixture("sysroots", g), t.path());
    }
    t
}

fn names(list: &str) -> Vec<String> {
    std::fs::read_to_string(fixture("pyenvs", list))
        .unwrap()
        .lines()
        .map(str::to_string)
        .collect()
}

fn touch_all(dir: &Path, names: &[String]) {
    std::fs::create_dir_all(dir).unwrap();
    for n in names {
        std::fs::write(dir.join(n), b"").unwrap();
    }
}

/// A PEP 405 venv at `~/venv` with a ROCm torch whose rocBLAS kernel library holds `kernels`.
fn torch_venv(root: &Path, version: &str, kernels: &[String]) {
    let venv = root.join(VENV);
    std::fs::create_dir_all(&venv).unwrap();
    std::fs::write(venv.join("pyvenv.cfg"), "home = /usr/bin\n").unwrap();
    let torch = root.join(SITE).join("torch");
    std::fs::create_dir_all(&torch).unwrap();
    // The shape tools/generate_torch_version.py writes.
    std::fs::write(
        torch.join("version.py"),
        format!(
            "from typing import Optional\n\n__all__ = ['__version__', 'debug', 'cuda', 'git_version', 'hip']\n\
             __version__ = '{version}'\ndebug = False\ncuda: Optional[str] = None\n\
             git_version = 'a8d6afb511a69687bbb2b7e88a3cf67917e1697e'\n\
             hip: Optional[str] = '6.0.32830-d62f6a171'\n"
        ),
    )
    .unwrap();
    std::fs::create_dir_all(root.join(SITE).join(format!("torch-{version}.dist-info"))).unwrap();
    touch_all(&torch.join("lib/rocblas/library"), kernels);
}

fn run(root: &Path, env: &[(&str, &str)]) -> Vec<Value> {
    let mut e = vec![("HOME", "/home/u")];
    e.extend_from_slice(env);
    let (doc, _) = run_json(
        [
            "--sysroot".as_ref(),
            root.as_os_str(),
            "--only".as_ref(),
            ID.as_ref(),
        ],
        &e,
    );
    findings(&doc, ID).into_iter().cloned().collect()
}

fn shown(fs: &[Value]) -> Vec<String> {
    fs.iter()
        .map(|f| format!("{} {}", f["status"], f["summary"]))
        .collect()
}

#[test]
fn a_venv_whose_torch_ships_the_gpus_isa_passes() {
    let r = root(Some("gfx1030-dgpu"));
    torch_venv(
        r.path(),
        "2.5.1+rocm6.2",
        &names("debian-rocblas-4.4.1-library.txt"),
    );
    let fs = run(r.path(), &[]);
    assert_eq!(fs.len(), 1, "{:#?}", shown(&fs));
    assert_eq!(fs[0]["status"], "pass");
    assert_eq!(
        fs[0]["summary"],
        "the torch in /home/u/venv (2.5.1+rocm6.2) ships rocBLAS kernels for every GPU (gfx1030)"
    );
}

#[test]
fn an_isa_the_torch_lacks_fails_with_the_override_value_of_its_family() {
    // gfx1031 (dGPU) and gfx1036 (iGPU); ROCm 6.0's rocBLAS ships gfx1030 of their family.
    let r = root(Some("gfx1036-igpu-gfx1031-dgpu"));
    torch_venv(
        r.path(),
        "2.3.1+rocm6.0",
        &names("rocm-6.0-rocblas-lazy.txt"),
    );
    let fs = run(r.path(), &[]);
    assert_eq!(fs.len(), 2, "{:#?}", shown(&fs));
    for (f, isa) in fs.iter().zip(["gfx1031", "gfx1036"]) {
        assert_eq!(f["status"], "fail");
        assert_eq!(
            f["summary"],
            format!(
                "the torch in /home/u/venv (2.3.1+rocm6.0) ships no rocBLAS kernels for {isa}: \
                 set HSA_OVERRIDE_GFX_VERSION=10.3.0 (its gfx1030 kernels, at your own risk) or \
                 install a build that has them"
            )
        );
        assert_eq!(f["fix"]["env"]["HSA_OVERRIDE_GFX_VERSION"], "10.3.0");
        assert_eq!(f["subject"], "/home/u/venv");
    }
    // Found through $HOME as well as through $VIRTUAL_ENV, once.
    let fs = run(r.path(), &[("VIRTUAL_ENV", "/home/u/venv")]);
    assert_eq!(fs.len(), 2, "{:#?}", shown(&fs));
}

#[test]
fn an_override_already_set_is_judged_as_the_isa_it_names() {
    let r = root(Some("gfx1036-igpu-gfx1031-dgpu"));
    torch_venv(
        r.path(),
        "2.3.1+rocm6.0",
        &names("rocm-6.0-rocblas-lazy.txt"),
    );
    let fs = run(r.path(), &[("HSA_OVERRIDE_GFX_VERSION", "10.3.0")]);
    assert_eq!(fs.len(), 1, "{:#?}", shown(&fs));
    assert_eq!(fs[0]["status"], "pass");
    assert!(
        fs[0]["summary"]
            .as_str()
            .unwrap()
            .contains("(gfx1031 as gfx1030 (HSA_OVERRIDE_GFX_VERSION=10.3.0), gfx1036 as gfx1030"),
        "{:#?}",
        shown(&fs)
    );
}

#[test]
fn an_isa_with_no_override_family_fails_saying_none_works() {
    // gfx90c (Renoir): Vega, no ISA-compatible sibling that current builds ship.
    let r = root(Some("gfx90c-apu"));
    torch_venv(
        r.path(),
        "2.3.1+rocm6.0",
        &names("rocm-6.0-rocblas-lazy.txt"),
    );
    let fs = run(r.path(), &[]);
    assert_eq!(fs.len(), 1, "{:#?}", shown(&fs));
    let f = &fs[0];
    assert_eq!(f["status"], "fail");
    let s = f["summary"].as_str().unwrap();
    assert!(
        s.ends_with("ships no rocBLAS kernels for gfx90c: no HSA_OVERRIDE_GFX_VERSION value works for gfx90c"),
        "{s}"
    );
    assert!(f["fix"]["env"].is_null(), "no override is offered: {f:#}");
    assert!(f["fix"]["text"]
        .as_str()
        .unwrap()
        .contains("build from source"));
}

#[test]
fn a_family_whose_sibling_is_not_shipped_either_gets_no_override() {
    // gfx1031's sibling gfx1030 is not in a gfx1100-only build.
    let r = root(Some("gfx1036-igpu-gfx1031-dgpu"));
    torch_venv(
        r.path(),
        "2.6.0+rocm6.2.4",
        &["TensileLibrary_lazy_gfx1100.dat".to_string()],
    );
    let fs = run(r.path(), &[]);
    assert_eq!(fs.len(), 2, "{:#?}", shown(&fs));
    for f in &fs {
        assert_eq!(f["status"], "fail");
        assert!(f["summary"]
            .as_str()
            .unwrap()
            .contains("no override works with this build (the same-family target gfx1030 is not shipped either)"));
        assert!(f["fix"]["env"].is_null());
    }
}

#[test]
fn without_a_gpu_the_environments_are_listed_not_judged() {
    let r = root(None);
    torch_venv(
        r.path(),
        "2.5.1+rocm6.2",
        &names("rocm-6.0-rocblas-lazy.txt"),
    );
    let fs = run(r.path(), &[]);
    assert_eq!(fs.len(), 1, "{:#?}", shown(&fs));
    let f = &fs[0];
    assert_eq!(f["status"], "skip");
    assert_eq!(
        f["summary"],
        "the torch in /home/u/venv (2.5.1+rocm6.2): no GPU agent to judge its kernels against"
    );
    let ev: Vec<&str> = f["evidence"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e.as_str().unwrap())
        .collect();
    assert!(ev.contains(&"torch/version.py: __version__ 2.5.1+rocm6.2, hip 6.0.32830-d62f6a171"));
    assert!(ev.iter().any(|e| e.starts_with("rocBLAS /home/u/venv/lib/python3.12/site-packages/torch/lib/rocblas/library: 11 files, kernels for [gfx900, gfx906, gfx908, gfx90a, gfx940, gfx941, gfx942, gfx1030, gfx1100, gfx1101, gfx1102]")), "{ev:#?}");
}

#[test]
fn no_python_environment_is_a_skip_and_a_cuda_torch_is_not_rocm() {
    let r = root(Some("gfx1030-dgpu"));
    let fs = run(r.path(), &[]);
    assert_eq!(fs.len(), 1);
    assert_eq!(fs[0]["status"], "skip");
    assert!(fs[0]["summary"]
        .as_str()
        .unwrap()
        .starts_with("no ROCm-bearing Python environment found"));
    // A CUDA build of torch (`hip = None`) carries no ROCm: still nothing to judge.
    let torch = r.path().join(SITE).join("torch");
    std::fs::create_dir_all(&torch).unwrap();
    std::fs::write(
        torch.join("version.py"),
        "__version__ = '2.5.1+cu124'\ncuda: Optional[str] = '12.4'\nhip: Optional[str] = None\n",
    )
    .unwrap();
    std::fs::write(r.path().join(VENV).join("pyvenv.cfg"), "home = /usr/bin\n").unwrap();
    let fs = run(r.path(), &[]);
    assert_eq!(shown(&fs).len(), 1);
    assert_eq!(fs[0]["status"], "skip", "{:#?}", shown(&fs));
}

/// TheRock's wheels: `rocm`, `rocm-sdk-core`, `rocm-sdk-libraries`, `rocm-sdk-device-gfx1100`
/// of one nightly, one of another; the GPU (gfx1030) has no device package.
#[test]
fn therock_wheels_of_two_builds_and_without_the_gpus_device_package() {
    let r = root(Some("gfx1030-dgpu"));
    let site = r.path().join(SITE);
    std::fs::create_dir_all(r.path().join(VENV)).unwrap();
    std::fs::write(r.path().join(VENV).join("pyvenv.cfg"), "home = /usr/bin\n").unwrap();
    std::fs::create_dir_all(site.join("rocm_sdk")).unwrap();
    std::fs::write(
        site.join("rocm_sdk/_dist_info.py"),
        "__version__ = \"7.15.0a20260630\"\nPY_PACKAGE_SUFFIX_NONCE = \"\"\n\
         AVAILABLE_TARGET_FAMILIES.append(\"gfx110X-all\")\nDEFAULT_TARGET_FAMILY = \"gfx110X-all\"\n",
    )
    .unwrap();
    let share = site.join("_rocm_sdk_core/share/therock");
    std::fs::create_dir_all(&share).unwrap();
    std::fs::write(
        share.join("dist_info.json"),
        r#"{"dist_amdgpu_targets": "gfx1100;gfx1101;gfx1102;gfx1103"}"#,
    )
    .unwrap();
    std::fs::create_dir_all(site.join("_rocm_sdk_libraries/lib")).unwrap();
    for d in [
        "rocm-7.15.0a20260630",
        "rocm_sdk_core-7.15.0a20260630",
        "rocm_sdk_libraries-7.15.0a20260701",
        "rocm_sdk_device_gfx1100-7.15.0a20260630",
    ] {
        std::fs::create_dir_all(site.join(format!("{d}.dist-info"))).unwrap();
    }
    let fs = run(r.path(), &[]);
    assert_eq!(fs.len(), 2, "{:#?}", shown(&fs));
    assert_eq!(fs[0]["status"], "warn");
    assert!(fs[0]["summary"]
        .as_str()
        .unwrap()
        .contains("are of different builds (7.15.0a20260630, 7.15.0a20260701)"));
    assert_eq!(fs[1]["status"], "fail");
    assert_eq!(
        fs[1]["summary"],
        "the TheRock rocm wheels in /home/u/venv (7.15.0a20260630) ships no device package \
         (rocm-sdk-device-<gfx>) for gfx1030: install a build that has them"
    );
    let ev = fs[1]["evidence"].to_string();
    assert!(ev.contains("target families [gfx110X-all]"), "{ev}");
    assert!(
        ev.contains("dist_amdgpu_targets [gfx1100, gfx1101, gfx1102, gfx1103]"),
        "{ev}"
    );
}

/// A FIFO for `version.py`, a loop of links for the kernel library and for a site directory,
/// and a kernel directory past the listing cap: each a clear message, none a hang.
#[test]
fn hostile_trees_give_messages_not_hangs() {
    use std::os::unix::fs::symlink;
    let r = root(Some("gfx1030-dgpu"));
    let site = r.path().join(SITE);
    std::fs::create_dir_all(site.join("torch/lib/rocblas")).unwrap();
    std::fs::write(r.path().join(VENV).join("pyvenv.cfg"), "home = /usr/bin\n").unwrap();
    nix::unistd::mkfifo(
        &site.join("torch/version.py"),
        nix::sys::stat::Mode::from_bits_truncate(0o644),
    )
    .unwrap();
    symlink("library", site.join("torch/lib/rocblas/library")).unwrap();
    // A second environment whose site directory is a loop.
    let other = r.path().join("home/u/loop");
    std::fs::create_dir_all(other.join("lib/python3.12")).unwrap();
    std::fs::write(other.join("pyvenv.cfg"), "home = /usr/bin\n").unwrap();
    symlink("site-packages", other.join("lib/python3.12/site-packages")).unwrap();
    // A third whose rocBLAS directory is larger than the cap, without the GPU's ISA.
    let big = r.path().join("home/u/big");
    std::fs::write(
        {
            std::fs::create_dir_all(&big).unwrap();
            big.join("pyvenv.cfg")
        },
        "home = /usr/bin\n",
    )
    .unwrap();
    let bsite = big.join("lib/python3.12/site-packages/torch");
    std::fs::create_dir_all(&bsite).unwrap();
    std::fs::write(
        bsite.join("version.py"),
        "__version__ = '2.5.1+rocm6.2'\nhip = '6.2.41133-dd7f95766'\n",
    )
    .unwrap();
    let many: Vec<String> = (0..20_100).map(|i| format!("x{i}.dat")).collect();
    touch_all(&bsite.join("lib/rocblas/library"), &many);

    let t0 = Instant::now();
    let fs = run(r.path(), &[]);
    assert!(t0.elapsed() < Duration::from_secs(30));
    let all = shown(&fs);
    let has = |frag: &str| all.iter().any(|s| s.contains(frag));
    assert!(
        has("a Python site directory could not be read: /home/u/loop/lib/python3.12/site-packages: ELOOP"),
        "{all:#?}"
    );
    assert!(
        has("the torch in /home/u/venv (version unknown): could not read /home/u/venv/lib/python3.12/site-packages/torch/version.py: "),
        "{all:#?}"
    );
    assert!(
        has("could not read /home/u/venv/lib/python3.12/site-packages/torch/lib/rocblas/library: ELOOP"),
        "{all:#?}"
    );
    assert!(
        has("the torch in /home/u/big (2.5.1+rocm6.2): the rocBLAS kernels listing stopped at 20000 entries before showing gfx1030; not judged"),
        "{all:#?}"
    );
    assert!(
        fs.iter()
            .all(|f| f["status"] != "fail" && f["status"] != "error"),
        "{all:#?}"
    );
}

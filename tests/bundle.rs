//! `rocm-doctor report --bundle`: the evidence bundle written for real, from fixture sysroots
//! (real captures where the repo has them: the KFD topology of `k8s-mi210x8-gfx90a-xgmi`, the
//! dmesg of `kernlog-mi100-gpu-info`) and from this machine's root with stand-in tools.

use crate::common::*;
use serde_json::Value;
use std::collections::BTreeSet;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;

/// Runs `rocm-doctor [pre...] report --bundle TARGET [post...]` with the clean environment of
/// `doctor()` plus `env`; returns (exit code, stdout, stderr).
fn bundle(pre: &[&str], target: &Path, env: &[(&str, &str)]) -> (i32, String, String) {
    let mut c = doctor();
    for (k, v) in env {
        c.env(k, v);
    }
    let out = c
        .args(pre)
        .arg("report")
        .arg("--bundle")
        .arg(target)
        .timeout(std::time::Duration::from_secs(120))
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn manifest(dir: &Path) -> Value {
    serde_json::from_slice(&std::fs::read(dir.join("manifest.json")).unwrap()).unwrap()
}

/// The manifest entry of a bundle path.
fn entry<'a>(m: &'a Value, path: &str) -> &'a Value {
    m["files"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["path"] == path)
        .unwrap_or_else(|| panic!("{path} not in the manifest"))
}

/// The `what: why` lines of the manifest's `left_out`.
fn left_out(m: &Value) -> Vec<String> {
    m["left_out"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| {
            format!(
                "{}: {}",
                l["what"].as_str().unwrap(),
                l["why"].as_str().unwrap()
            )
        })
        .collect()
}

/// Every regular file under `dir`, as `/`-separated relative paths.
fn files_under(dir: &Path) -> BTreeSet<String> {
    walkdir::WalkDir::new(dir)
        .into_iter()
        .map(|e| e.unwrap())
        .filter(|e| e.file_type().is_file())
        .map(|e| {
            e.path()
                .strip_prefix(dir)
                .unwrap()
                .to_string_lossy()
                .into_owned()
        })
        .collect()
}

/// SHA-256 by coreutils' `sha256sum`, an implementation other than the doctor's.
fn sha256sum(p: &Path) -> String {
    let out = std::process::Command::new("sha256sum")
        .arg(p)
        .output()
        .unwrap();
    String::from_utf8_lossy(&out.stdout)
        .split_whitespace()
        .next()
        .unwrap()
        .to_string()
}

const GPU43: &str = "sys/devices/pci0000:40/0000:40:01.1/0000:41:00.0/0000:42:00.0/0000:43:00.0";

#[test]
fn health_fixture_bundle_lists_every_file_with_its_hash() {
    let t = tempfile::tempdir().unwrap();
    let root = fixture("sysroots", "health-mi210-degraded");
    let out = t.path().join("b");
    let (code, stdout, stderr) = bundle(&["--sysroot", root.to_str().unwrap()], &out, &[]);
    assert_eq!(code, 0, "{stdout}{stderr}");
    assert!(stdout.starts_with("bundle written to "), "{stdout}");
    let m = manifest(&out);
    assert_eq!(m["format"], "rocm-doctor-bundle");
    // Exactly the files of the manifest (and the manifest) are in the directory, each with
    // its size and hash.
    let listed: BTreeSet<String> = m["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["path"].as_str().unwrap().to_string())
        .collect();
    let mut on_disk = files_under(&out);
    assert!(on_disk.remove("manifest.json"));
    assert_eq!(listed, on_disk);
    for e in m["files"].as_array().unwrap() {
        let p = out.join(e["path"].as_str().unwrap());
        assert_eq!(e["sha256"].as_str().unwrap(), sha256sum(&p), "{p:?}");
        assert_eq!(
            e["size"].as_u64().unwrap(),
            std::fs::metadata(&p).unwrap().len()
        );
        assert_eq!(
            std::fs::metadata(&p).unwrap().permissions().mode() & 0o777,
            0o600
        );
    }
    assert_eq!(
        std::fs::metadata(&out).unwrap().permissions().mode() & 0o777,
        0o700
    );
    assert_eq!(
        std::fs::metadata(out.join("files"))
            .unwrap()
            .permissions()
            .mode()
            & 0o777,
        0o700
    );
    // gpu_metrics is binary and kept byte for byte; a text file too (nothing to redact).
    for (f, binary) in [("gpu_metrics", true), ("ras/umc_err_count", false)] {
        let name = format!("files/{GPU43}/{f}");
        let e = entry(&m, &name);
        assert_eq!(e["redacted"], !binary, "{name}");
        assert_eq!(e["source"]["kind"], "file");
        assert_eq!(e["source"]["path"], format!("/{GPU43}/{f}"));
        assert_eq!(
            std::fs::read(out.join(&name)).unwrap(),
            std::fs::read(root.join(GPU43).join(f)).unwrap(),
            "{name}"
        );
    }
    // The upstream switch port's link files and every hwmon/fw_version/ras file are there.
    for f in [
        "sys/devices/pci0000:40/0000:40:01.1/0000:41:00.0/0000:42:00.0/current_link_width",
        &format!("{GPU43}/hwmon/hwmon1/temp2_crit"),
        &format!("{GPU43}/fw_version/smc_fw_version"),
        &format!("{GPU43}/ras/gpu_vram_bad_pages"),
        "sys/module/amdgpu/parameters/bad_page_threshold",
    ] {
        entry(&m, &format!("files/{f}"));
    }
    // Absent files are simply not there: no xgmi_error, no product_number in this fixture,
    // and nothing said about them.
    assert!(!listed.iter().any(|p| p.ends_with("/product_number")));
    assert!(!left_out(&m).iter().any(|l| l.contains("product_number")));
    // The doctor's JSON is the --json document of the same run (same findings).
    let (doc, _) = run_json(["--sysroot", root.to_str().unwrap()], &[]);
    let bundled: Value =
        serde_json::from_slice(&std::fs::read(out.join("doctor.json")).unwrap()).unwrap();
    // Findings with their repair action (issue 26 item 1) as --json has them.
    let key = |d: &Value| -> Vec<(String, String, String, Value)> {
        d["findings"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| {
                (
                    f["id"].as_str().unwrap().into(),
                    f["status"].as_str().unwrap().into(),
                    f["summary"].as_str().unwrap().into(),
                    f["action"].clone(),
                )
            })
            .collect()
    };
    assert_eq!(key(&bundled), key(&doc));
    assert!(key(&doc)
        .iter()
        .any(|(id, s, _, a)| id == "health.thermal" && s == "warn" && a.is_string()));
    let top = |d: &Value| d.as_object().unwrap().keys().cloned().collect::<Vec<_>>();
    assert_eq!(top(&bundled), top(&doc));
    let human = std::fs::read_to_string(out.join("doctor.txt")).unwrap();
    assert!(human.contains("junction temperature"), "{human}");
    // Without lspci/rocminfo/amd-smi in the root, each absence is said.
    let lo = left_out(&m).join("\n");
    for tool in ["lspci", "rocminfo", "amd-smi"] {
        assert!(lo.contains(tool), "{lo}");
    }
}

#[test]
fn real_captures_are_copied_as_read() {
    // The KFD topology of a real MI210 x8 node (k8s capture) and a real dmesg (MI100).
    let t = tempfile::tempdir().unwrap();
    let root = fixture("sysroots", "k8s-mi210x8-gfx90a-xgmi");
    let out = t.path().join("k8s");
    let (code, stdout, stderr) = bundle(&["--sysroot", root.to_str().unwrap()], &out, &[]);
    assert_eq!(code, 0, "{stdout}{stderr}");
    let m = manifest(&out);
    let topo = "sys/class/kfd/kfd/topology/nodes";
    let mut nodes = 0;
    for n in std::fs::read_dir(root.join(topo)).unwrap() {
        let n = n.unwrap().file_name();
        let rel = format!("{topo}/{}/properties", n.to_string_lossy());
        if !root.join(&rel).is_file() {
            continue;
        }
        let name = format!("files/{rel}");
        entry(&m, &name);
        assert_eq!(
            std::fs::read(out.join(&name)).unwrap(),
            std::fs::read(root.join(&rel)).unwrap()
        );
        nodes += 1;
    }
    assert!(nodes >= 2, "{nodes}");

    let root = fixture("sysroots", "kernlog-mi100-gpu-info");
    let out = t.path().join("mi100");
    let (code, stdout, stderr) = bundle(&["--sysroot", root.to_str().unwrap()], &out, &[]);
    assert_eq!(code, 0, "{stdout}{stderr}");
    let m = manifest(&out);
    let e = entry(&m, "kernel/boot-0.log");
    assert_eq!(e["source"]["kind"], "kernel-log");
    assert_eq!(e["source"]["boot"], "current");
    assert_eq!(e["source"]["source"], "/var/log/rocm-doctor-dmesg.txt");
    // dmesg's own `[%5lu.%06lu] ` form, line for line.
    assert_eq!(
        std::fs::read_to_string(out.join("kernel/boot-0.log")).unwrap(),
        std::fs::read_to_string(root.join("var/log/rocm-doctor-dmesg.txt")).unwrap()
    );
}

#[test]
fn fifo_unreadable_and_unsupported_files_are_recorded_not_fatal() {
    // Under the target directory, not TMPDIR: the suite's TMPDIR is private (0700), and
    // nobody must reach the root and the output directory.
    let base = Path::new(env!("CARGO_TARGET_TMPDIR")).join("bundle");
    std::fs::create_dir_all(&base).unwrap();
    std::fs::set_permissions(&base, std::fs::Permissions::from_mode(0o755)).unwrap();
    let t = tempfile::tempdir_in(&base).unwrap();
    std::fs::set_permissions(t.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    let root = t.path().join("root");
    copy_tree(&fixture("sysroots", "health-mi210-degraded"), &root);
    let ras = root.join(GPU43).join("ras");
    // A FIFO where a counter should be: refused at once, never a hang.
    std::fs::remove_file(ras.join("umc_err_count")).unwrap();
    nix::unistd::mkfifo(
        &ras.join("umc_err_count"),
        nix::sys::stat::Mode::from_bits_truncate(0o644),
    )
    .unwrap();
    // Unreadable for nobody.
    std::fs::set_permissions(
        ras.join("gfx_err_count"),
        std::fs::Permissions::from_mode(0o000),
    )
    .unwrap();
    // Unsupported: the kernel answers EOPNOTSUPP (the fixture manifest's [[deny]]).
    std::fs::write(
        root.join(".rocm-doctor-fixture.toml"),
        format!("[[deny]]\npath = \"/{GPU43}/pcie_replay_count\"\nerrno = \"EOPNOTSUPP\"\n"),
    )
    .unwrap();
    std::fs::write(root.join(GPU43).join("pcie_replay_count"), "0\n").unwrap();
    // Absent: gpu_metrics removed.
    std::fs::remove_file(root.join(GPU43).join("gpu_metrics")).unwrap();
    let w = dir_with_mode(t.path(), "w", 0o777);
    let out = w.join("b");
    let bin = assert_cmd::cargo::cargo_bin("rocm-doctor");
    let is_root = nix::unistd::geteuid().is_root();
    let mut cmd = if is_root {
        let Some(setpriv) = need_tool("setpriv") else {
            return;
        };
        let mut c = std::process::Command::new(setpriv);
        c.args(["--reuid=65534", "--regid=65534", "--clear-groups"])
            .arg(&bin);
        c
    } else {
        std::process::Command::new(&bin)
    };
    let o = cmd
        .env_clear()
        .env("PATH", "/usr/bin:/bin")
        .env("TMPDIR", "/tmp")
        .arg("--sysroot")
        .arg(&root)
        .args(["report", "--bundle"])
        .arg(&out)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&o.stderr);
    if is_root && stderr.contains("Permission denied") && !out.exists() {
        eprintln!("skipped: the binary is not reachable as nobody: {stderr}");
        return;
    }
    assert_eq!(o.status.code(), Some(0), "{stderr}");
    let m = manifest(&out);
    let lo = left_out(&m).join("\n");
    let p = |f: &str| format!("/{GPU43}/{f}: could not be read: ");
    assert!(
        lo.contains(&(p("ras/umc_err_count") + "not a regular file: a FIFO")),
        "{lo}"
    );
    assert!(lo.contains(&(p("ras/gfx_err_count") + "EACCES")), "{lo}");
    assert!(
        lo.contains(&(p("pcie_replay_count") + "EOPNOTSUPP")),
        "{lo}"
    );
    assert!(!lo.contains("gpu_metrics"), "{lo}");
    let files = files_under(&out);
    assert!(!files.contains(&format!("files/{GPU43}/gpu_metrics")));
    assert!(!files.contains(&format!("files/{GPU43}/ras/umc_err_count")));
    // The rest of the directory is still copied.
    assert!(
        files.contains(&format!("files/{GPU43}/ras/sdma_err_count")),
        "{files:?}"
    );
}

#[test]
fn hanging_tool_is_killed_and_recorded() {
    // This machine's root, with stand-ins on PATH: rocminfo hangs, amd-smi answers (with a
    // secret in its output), lspci is absent.
    let t = tempfile::tempdir().unwrap();
    let bin = t.path().join("bin");
    std::fs::create_dir(&bin).unwrap();
    write_script(
        &bin.join("rocminfo"),
        "#!/bin/sh\necho partial\nexec /bin/sleep 43\n",
    );
    write_script(
        &bin.join("amd-smi"),
        "#!/bin/sh\necho \"amd-smi $1 GPU: 0 url=https://bot:hunter2@example.org/x\"\n",
    );
    let out = t.path().join("b");
    let started = std::time::Instant::now();
    let (code, stdout, stderr) = bundle(
        &["--timeout", "2"],
        &out,
        &[("PATH", bin.to_str().unwrap())],
    );
    assert_eq!(code, 0, "{stdout}{stderr}");
    assert!(started.elapsed().as_secs() < 60);
    let m = manifest(&out);
    let e = entry(&m, "commands/rocminfo.out");
    assert_eq!(e["source"]["kind"], "command");
    assert_eq!(e["source"]["timed_out"], true);
    assert!(
        e["source"]["outcome"]
            .as_str()
            .unwrap()
            .starts_with("timed out after"),
        "{e}"
    );
    assert_eq!(
        std::fs::read_to_string(out.join("commands/rocminfo.out")).unwrap(),
        "partial\n"
    );
    assert!(
        sleepers("43").is_empty(),
        "the hanging tool was left running"
    );
    for sub in ["static", "metric"] {
        let name = format!("commands/amd-smi-{sub}.out");
        let e = entry(&m, &name);
        assert_eq!(e["source"]["exit_code"], 0);
        assert_eq!(e["changed_by_redaction"], true);
        let text = std::fs::read_to_string(out.join(&name)).unwrap();
        assert_eq!(
            text,
            format!("amd-smi {sub} GPU: 0 url=https://<redacted>@example.org/x\n")
        );
    }
    assert!(left_out(&m).iter().any(|l| l.starts_with("lspci")));
}

#[test]
fn secrets_and_names_never_reach_the_bundle() {
    let t = tempfile::tempdir().unwrap();
    let root = t.path().join("root");
    copy_tree(&fixture("sysroots", "health-mi210-degraded"), &root);
    std::fs::create_dir_all(root.join("var/log")).unwrap();
    // A dmesg line carrying a credential and a user's home (as a driver printing a firmware
    // path or a module parameter would), among real-shaped amdgpu lines.
    std::fs::write(
        root.join("var/log/rocm-doctor-dmesg.txt"),
        "[    9.602665] [drm] amdgpu version: 6.8.5\n\
         [   12.000001] amdgpu 0000:43:00.0: loading /home/jdoe42/fw.bin token=hunter2\n\
         [   12.000002] amdgpu 0000:43:00.0: fetch https://jdoe42:hunter2@fw.example.org/a\n",
    )
    .unwrap();
    for (target, what) in [("b", "dir"), ("b.tar.gz", "archive")] {
        let out = t.path().join(target);
        let (code, stdout, stderr) = bundle(
            &["--sysroot", root.to_str().unwrap()],
            &out,
            &[
                ("USER", "jdoe42"),
                ("HIP_API_TOKEN", "hunter2"),
                ("ROCM_PATH", "/home/jdoe42/rocm"),
            ],
        );
        assert_eq!(code, 0, "{what}: {stdout}{stderr}");
        let dir = if what == "dir" {
            out.clone()
        } else {
            let d = t.path().join("unpacked");
            std::fs::create_dir(&d).unwrap();
            let ok = std::process::Command::new("tar")
                .arg("-xzf")
                .arg(&out)
                .arg("-C")
                .arg(&d)
                .status()
                .unwrap()
                .success();
            assert!(ok);
            d.join("b")
        };
        for f in files_under(&dir) {
            let bytes = std::fs::read(dir.join(&f)).unwrap();
            let text = String::from_utf8_lossy(&bytes);
            assert!(!text.contains("hunter2"), "{what} {f}: {text}");
            assert!(!text.contains("jdoe42"), "{what} {f}: {text}");
        }
        let log = std::fs::read_to_string(dir.join("kernel/boot-0.log")).unwrap();
        assert!(
            log.contains("loading /home/<user>/fw.bin token=<redacted>"),
            "{log}"
        );
        let m = manifest(&dir);
        assert_eq!(entry(&m, "kernel/boot-0.log")["changed_by_redaction"], true);
        assert_eq!(m["names_redacted"], true);
        let md = std::fs::read_to_string(dir.join("report.md")).unwrap();
        assert!(md.contains("HIP_API_TOKEN=<redacted>"), "{md}");
    }
}

#[test]
fn tar_gz_holds_the_same_files_as_the_directory() {
    let t = tempfile::tempdir().unwrap();
    let root = fixture("sysroots", "health-pcie-aer");
    let sysroot = ["--sysroot", root.to_str().unwrap()];
    let dir = t.path().join("node7");
    assert_eq!(bundle(&sysroot, &dir, &[]).0, 0);
    let archive_dir = t.path().join("a");
    std::fs::create_dir(&archive_dir).unwrap();
    let archive = archive_dir.join("node7.tar.gz");
    let (code, stdout, stderr) = bundle(&sysroot, &archive, &[]);
    assert_eq!(code, 0, "{stdout}{stderr}");
    // Only the archive is left in its directory (the temporary file was renamed).
    let names: Vec<String> = std::fs::read_dir(&archive_dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(names, ["node7.tar.gz"]);
    assert_eq!(
        std::fs::metadata(&archive).unwrap().permissions().mode() & 0o777,
        0o600
    );
    // Read back with the tar and flate2 crates: one top directory, file modes 0600.
    let gz = flate2::read::GzDecoder::new(std::fs::File::open(&archive).unwrap());
    let mut ar = tar::Archive::new(gz);
    let mut in_tar = BTreeSet::new();
    for e in ar.entries().unwrap() {
        let e = e.unwrap();
        let p = e.path().unwrap().to_string_lossy().into_owned();
        let rel = p
            .strip_prefix("node7/")
            .unwrap_or_else(|| panic!("{p}"))
            .to_string();
        if e.header().entry_type().is_file() {
            assert_eq!(e.header().mode().unwrap(), 0o600, "{p}");
            in_tar.insert(rel);
        } else {
            assert_eq!(e.header().mode().unwrap(), 0o700, "{p}");
        }
    }
    assert_eq!(in_tar, files_under(&dir));
    // The AER files of the GPU's ports are in it; the unsupported ones are said.
    assert!(in_tar.contains("files/sys/devices/pci0000:40/0000:40:01.1/aer_dev_correctable"));
    let lo = left_out(&manifest(&dir)).join("\n");
    assert!(
        lo.contains(
            "/sys/devices/pci0000:60/0000:60:01.1/aer_dev_fatal: could not be read: EINVAL"
        ),
        "{lo}"
    );
    // An archive is never written over a file.
    let (code, _, stderr) = bundle(&sysroot, &archive, &[]);
    assert_eq!(code, 2);
    assert!(stderr.contains("exists"), "{stderr}");
}

#[test]
fn refuses_non_empty_symlinked_and_file_targets() {
    let t = tempfile::tempdir().unwrap();
    let root = fixture("sysroots", "health-mi210-degraded");
    let sysroot = ["--sysroot", root.to_str().unwrap()];
    let full = t.path().join("full");
    std::fs::create_dir(&full).unwrap();
    std::fs::write(full.join("keep"), "mine").unwrap();
    let empty = t.path().join("empty");
    std::fs::create_dir(&empty).unwrap();
    let link = t.path().join("link");
    std::os::unix::fs::symlink(&empty, &link).unwrap();
    let file = t.path().join("file");
    std::fs::write(&file, "x").unwrap();
    for (target, why) in [
        (&full, "is not empty"),
        (&link, "is a symbolic link"),
        (&file, "is not a directory"),
    ] {
        let (code, stdout, stderr) = bundle(&sysroot, target, &[]);
        assert_eq!(code, 2, "{target:?}: {stdout}{stderr}");
        assert!(stderr.contains(why), "{stderr}");
    }
    assert_eq!(std::fs::read_to_string(full.join("keep")).unwrap(), "mine");
    assert_eq!(std::fs::read_dir(&full).unwrap().count(), 1);
    assert_eq!(std::fs::read_dir(&empty).unwrap().count(), 0);
    // An empty directory is used as it is.
    let (code, stdout, stderr) = bundle(&sysroot, &empty, &[]);
    assert_eq!(code, 0, "{stdout}{stderr}");
    assert!(empty.join("manifest.json").is_file());
}

#[test]
fn a_sysroots_programs_are_not_run_without_run_root_programs() {
    let t = tempfile::tempdir().unwrap();
    let root = t.path().join("root");
    copy_tree(&fixture("sysroots", "health-mi210-degraded"), &root);
    std::fs::create_dir_all(root.join("usr/bin")).unwrap();
    let marker = t.path().join("ran");
    write_script(
        &root.join("usr/bin/rocminfo"),
        &format!("#!/bin/sh\ntouch {}\n", marker.display()),
    );
    let out = t.path().join("b");
    let (code, stdout, stderr) = bundle(
        &["--sysroot", root.to_str().unwrap()],
        &out,
        &[("PATH", "/usr/bin")],
    );
    assert_eq!(code, 0, "{stdout}{stderr}");
    assert!(!marker.exists(), "the root's rocminfo ran");
    let lo = left_out(&manifest(&out)).join("\n");
    assert!(
        lo.contains("/usr/bin/rocminfo: ") && lo.contains("--run-root-programs"),
        "{lo}"
    );
}

#[test]
fn earlier_boots_are_bundled_as_kernel_history_reads_them() {
    // Four boots in kern.log, kern.log.1 and kern.log.2.gz (the fixture's SOURCE.md): the
    // bundle carries the three earlier ones and the GPU's events per boot.
    let t = tempfile::tempdir().unwrap();
    let root = fixture("sysroots", "kernlog-history-recurring");
    let out = t.path().join("b");
    let (code, stdout, stderr) = bundle(&["--sysroot", root.to_str().unwrap()], &out, &[]);
    assert_eq!(code, 0, "{stdout}{stderr}");
    let m = manifest(&out);
    let e = entry(&m, "kernel/history.json");
    assert!(
        e["source"]["what"]
            .as_str()
            .unwrap()
            .starts_with("the 3 earlier boot(s) read by kernel.history from "),
        "{e}"
    );
    let h: Value =
        serde_json::from_slice(&std::fs::read(out.join("kernel/history.json")).unwrap()).unwrap();
    let offsets: Vec<i64> = h["earlier_boots"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b["offset"].as_i64().unwrap())
        .collect();
    assert_eq!(offsets, [-1, -2, -3], "{h:#}");
    assert!(!h["gpus"].as_array().unwrap().is_empty(), "{h:#}");
    // Without a kept history it is said, not silent.
    let out2 = t.path().join("c");
    let root2 = fixture("sysroots", "health-mi210-degraded");
    let (code, _, _) = bundle(&["--sysroot", root2.to_str().unwrap()], &out2, &[]);
    assert_eq!(code, 0);
    assert!(left_out(&manifest(&out2))
        .iter()
        .any(|l| l.starts_with("kernel log of earlier boots: ")));
}

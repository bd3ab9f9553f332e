//! `rocm-doctor report`: the Markdown bug report, run for real on fixture sysroots (a healthy
//! gfx1030 machine and one whose user is not in the render group), with a fake user and host
//! name planted where the report shows them (variables, /etc/hostname, the kernel's host name).

use crate::common::*;
use std::path::{Path, PathBuf};

const USER: &str = "jdoe42";
/// The diagnosed root's host name (its /etc/hostname and /proc/sys/kernel/hostname).
const HOST: &str = "gpubox-7";
/// HOSTNAME in the environment, another name (a login node's).
const LOGIN_HOST: &str = "login3x";

/// A copy of a fixture sysroot (links kept) with this host name and an os-release, in `dir`.
fn sysroot_copy(name: &str, dir: &Path) -> PathBuf {
    let dst = dir.join(name);
    let ok = std::process::Command::new("cp")
        .arg("-a")
        .arg(fixture("sysroots", name))
        .arg(&dst)
        .status()
        .unwrap()
        .success();
    assert!(ok, "cp -a {name}");
    std::fs::write(dst.join("etc/hostname"), format!("{HOST}\n")).unwrap();
    std::fs::create_dir_all(dst.join("proc/sys/kernel")).unwrap();
    std::fs::write(
        dst.join("proc/sys/kernel/hostname"),
        format!("{HOST}.lab.example.org\n"),
    )
    .unwrap();
    std::fs::write(
        dst.join("etc/os-release"),
        "NAME=\"Debian GNU/Linux\"\nVERSION_ID=\"12\"\nPRETTY_NAME=\"Debian GNU/Linux 12 (bookworm)\"\n",
    )
    .unwrap();
    dst
}

struct Run {
    stdout: String,
    stderr: String,
    code: i32,
}

/// Runs the doctor in `cwd` with its own TMPDIR, the fake USER/HOSTNAME and variables that
/// carry both names.
fn report(cwd: &Path, tmp: &Path, args: &[&str]) -> Run {
    let out = doctor()
        .current_dir(cwd)
        .env("TMPDIR", tmp)
        .env("USER", USER)
        .env("LOGNAME", USER)
        .env("HOSTNAME", LOGIN_HOST)
        .env("HIP_LAUNCH_NODE", LOGIN_HOST)
        .env("HOME", format!("/home/{USER}"))
        .env("ROCM_PATH", format!("/home/{USER}/rocm"))
        .env("HIP_CACHE_DIR", format!("/scratch/{USER}/hip-cache"))
        .env("HSA_TOOLS_REPORT_LOAD_FAILURE", "1")
        .env("AMD_LOG_DIR", format!("/var/log/{HOST}"))
        .env("SSH_CONNECTION", "192.0.2.1 50000 192.0.2.2 22")
        .env("GITHUB_TOKEN", "not-for-the-report")
        .args(args)
        .output()
        .expect("run rocm-doctor");
    Run {
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        code: out.status.code().expect("not killed"),
    }
}

/// Every file and directory below `dir`.
fn tree(dir: &Path) -> Vec<PathBuf> {
    walkdir::WalkDir::new(dir)
        .into_iter()
        .map(|e| e.unwrap().into_path())
        .collect()
}

fn assert_markdown_shape(md: &str) {
    assert!(md.starts_with("## rocm-doctor report"), "{md}");
    for s in [
        "<summary>Versions</summary>",
        "<summary>GPUs (",
        "<summary>All findings (",
        "<summary>Environment (",
    ] {
        assert!(md.contains(s), "missing {s}:\n{md}");
    }
    assert_eq!(
        md.matches("<details>").count(),
        md.matches("</details>").count(),
        "unbalanced <details>:\n{md}"
    );
    assert_eq!(
        md.matches("<summary>").count(),
        md.matches("</summary>").count()
    );
    let fences = md.lines().filter(|l| l.starts_with("```")).count();
    assert_eq!(fences % 2, 0, "unclosed code fence:\n{md}");
    assert!(md.len() < 60_000);
    // The footer: version and the exact command line.
    let last = md.lines().last().unwrap();
    assert!(
        last.starts_with(&format!("rocm-doctor {} · `", env!("CARGO_PKG_VERSION")))
            && last.contains(" report"),
        "{last}"
    );
}

#[test]
fn healthy_gpu_machine_redacted_by_default() {
    let t = tempfile::tempdir().unwrap();
    let root = sysroot_copy("gfx1030-dgpu", t.path());
    let (cwd, tmp) = (t.path().join("cwd"), t.path().join("tmp"));
    std::fs::create_dir_all(&cwd).unwrap();
    std::fs::create_dir_all(&tmp).unwrap();
    let before = (tree(&cwd), tree(&tmp), tree(&root));
    let r = report(&cwd, &tmp, &["--sysroot", root.to_str().unwrap(), "report"]);
    assert_eq!(r.code, 0, "{}\n{}", r.stdout, r.stderr);
    assert_eq!(r.stderr, "", "stdout is the only output");
    assert_eq!(
        before,
        (tree(&cwd), tree(&tmp), tree(&root)),
        "nothing written besides stdout"
    );
    let md = &r.stdout;
    assert_markdown_shape(md);
    // The GPU from the agents, the kernel and distribution read through the sysroot.
    assert!(md.contains("<summary>GPUs (1)</summary>"), "{md}");
    assert!(
        md.contains("| gfx1030 |") && md.contains("1002:73bf"),
        "{md}"
    );
    // The product the doctor's own JSON gives the agent (the card's revision file read
    // through the sysroot), in its column, and the revision beside the PCI id.
    let (doc, _) = run_json(["--sysroot", root.to_str().unwrap()], &[]);
    let agent = &doc["agents"][0];
    let product = agent["product"]
        .as_str()
        .expect("the fixture's id is named");
    let rev = agent["pci_revision"]
        .as_u64()
        .expect("the fixture has a revision");
    assert!(
        md.contains("| product | device |")
            && md.contains(&format!("| {product} | 1002:73bf rev {rev:02x} |")),
        "{product}:\n{md}"
    );
    assert!(md.contains("| kernel | 6.8.0-45-generic |"), "{md}");
    assert!(md.contains("Debian GNU/Linux 12 (bookworm)"), "{md}");
    // Environment: only the GPU-related variables, names redacted.
    assert!(md.contains("ROCM_PATH=/home/<user>/rocm\n"), "{md}");
    assert!(
        md.contains("HIP_CACHE_DIR=/scratch/<user>/hip-cache\n"),
        "{md}"
    );
    assert!(md.contains("AMD_LOG_DIR=/var/log/<host>\n"), "{md}");
    assert!(md.contains("HIP_LAUNCH_NODE=<host>\n"), "{md}");
    assert!(md.contains("HSA_TOOLS_REPORT_LOAD_FAILURE=1\n"));
    for absent in [
        "SSH_CONNECTION",
        "GITHUB_TOKEN",
        "HOME=",
        "USER=",
        "HOSTNAME=",
    ] {
        assert!(!md.contains(absent), "{absent} in the report:\n{md}");
    }
    assert!(!md.contains(USER), "the user name leaked:\n{md}");
    for h in [HOST, LOGIN_HOST] {
        assert!(!md.to_ascii_lowercase().contains(h), "{h} leaked:\n{md}");
    }
    assert!(md.contains("are replaced by `<user>` and `<host>`"));
}

#[test]
fn broken_machine_lists_failing_ids_and_no_redact_keeps_names() {
    let t = tempfile::tempdir().unwrap();
    let root = sysroot_copy("kfd-group-missing", t.path());
    let (cwd, tmp) = (t.path().join("cwd"), t.path().join("tmp"));
    std::fs::create_dir_all(&cwd).unwrap();
    std::fs::create_dir_all(&tmp).unwrap();
    let sysroot = root.to_str().unwrap();
    // The failing ids, as the JSON report gives them.
    let (doc, _) = run_json(["--sysroot", sysroot], &[]);
    let failing: Vec<String> = doc["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["status"] == "fail")
        .map(|f| f["id"].as_str().unwrap().to_string())
        .collect();
    assert!(
        failing.iter().any(|id| id.starts_with("gpu.")),
        "{failing:?}"
    );

    let r = report(&cwd, &tmp, &["--sysroot", sysroot, "report"]);
    assert_eq!(r.code, 0, "the report was written: {}", r.stderr);
    let md = &r.stdout;
    assert_markdown_shape(md);
    assert!(md.starts_with("## rocm-doctor report: "), "{md}");
    assert!(md.contains(" failed"), "{md}");
    for id in &failing {
        assert!(
            md.contains(&format!("- **fail** `{id}`")),
            "{id} not listed:\n{md}"
        );
        assert!(
            md.contains(&format!("| fail | `{id}` |")),
            "{id} not in the table"
        );
    }
    assert!(md.contains("<summary>Evidence ("), "{md}");
    assert!(md.contains("  - fix: "), "fixes are listed:\n{md}");
    assert!(!md.contains(USER) && !md.contains(HOST) && !md.contains(LOGIN_HOST));

    let r = report(&cwd, &tmp, &["--sysroot", sysroot, "report", "--no-redact"]);
    assert_eq!(r.code, 0);
    assert_markdown_shape(&r.stdout);
    assert!(r.stdout.contains(&format!("ROCM_PATH=/home/{USER}/rocm\n")));
    assert!(r.stdout.contains(&format!("AMD_LOG_DIR=/var/log/{HOST}\n")));
    assert!(r
        .stdout
        .contains(&format!("HIP_LAUNCH_NODE={LOGIN_HOST}\n")));
    assert!(!r.stdout.contains("<user>") && !r.stdout.contains("are replaced by"));
}

#[test]
fn output_file_holds_the_report_and_stdout_stays_empty() {
    let t = tempfile::tempdir().unwrap();
    let root = sysroot_copy("gfx1030-dgpu", t.path());
    let (cwd, tmp) = (t.path().join("cwd"), t.path().join("tmp"));
    std::fs::create_dir_all(&cwd).unwrap();
    std::fs::create_dir_all(&tmp).unwrap();
    let sysroot = root.to_str().unwrap();
    let r = report(
        &cwd,
        &tmp,
        &[
            "--sysroot",
            sysroot,
            "--only",
            "toolchain.env",
            "report",
            "--output",
            "bug.md",
        ],
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!((r.stdout.as_str(), r.stderr.as_str()), ("", ""));
    assert_eq!(tree(&cwd), vec![cwd.clone(), cwd.join("bug.md")]);
    let md = std::fs::read_to_string(cwd.join("bug.md")).unwrap();
    assert_markdown_shape(&md);
    // --only applies: one check ran, and none of the GPU checks.
    assert!(md.contains("<summary>All findings (1)</summary>"), "{md}");
    assert!(
        md.contains("<summary>GPUs (not examined)</summary>"),
        "{md}"
    );
    assert!(md.contains("--output bug.md`"), "the command line: {md}");
    assert!(!md.contains(USER));

    // An unwritable --output is an error (exit 2), not a partial report.
    let r = report(
        &cwd,
        &tmp,
        &[
            "--sysroot",
            sysroot,
            "report",
            "--output",
            "no/such/dir/x.md",
        ],
    );
    assert_eq!(r.code, 2);
    assert!(
        r.stderr.contains("cannot write no/such/dir/x.md"),
        "{}",
        r.stderr
    );
}

#[test]
fn other_output_formats_are_usage_errors() {
    for flag in ["--json", "--npd", "--list-checks"] {
        let out = doctor().args([flag, "report"]).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{flag}");
        let stdout = String::from_utf8_lossy(&out.stdout);
        if flag == "--npd" {
            // node-problem-detector reads the reason from stdout: one UNKNOWN line.
            assert!(stdout.starts_with("UNKNOWN usage: "), "{stdout}");
        } else {
            assert!(stdout.is_empty(), "{stdout}");
        }
        assert!(String::from_utf8_lossy(&out.stderr).contains("report writes Markdown"));
    }
}

//! contrib/slurm scripts with a fake `scontrol` (given through `ROCM_DOCTOR_SCONTROL`: the
//! scripts put a fixed PATH first, so a fake on PATH would lose to a real Slurm) that records
//! its calls and keeps a node state, and the real rocm-doctor on fixture machines behind a
//! wrapper that records its arguments and GPUs. The real-Slurm counterpart is
//! `tests/slurm_real.rs`.

use crate::common::write_script;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

struct Bench {
    dir: tempfile::TempDir,
}

const SCONTROL: &str = r#"#!/bin/bash
D=@DIR@
echo "$*" >> "$D/calls"
echo "${SLURM_CONF:-unset}" >> "$D/slurm_conf"
if [ "$1" = show ]; then
  st=$(cat "$D/state")
  echo "NodeName=$3 Arch=x86_64 CoresPerSocket=64"
  echo "   State=${st%%|*} ThreadsPerCore=1"
  r=${st#*|}
  [ -n "$r" ] && echo "   Reason=$r [root@2026-11-23T06:00:00]"
  exit 0
fi
if [ "$1" = update ]; then
  case "$3" in
    State=DRAIN) echo "IDLE+DRAIN|${4#Reason=}" > "$D/state" ;;
    State=RESUME) echo "IDLE|" > "$D/state" ;;
  esac
fi
"#;

/// What one run of a script did.
struct Run {
    code: i32,
    stderr: String,
}

impl Bench {
    fn new() -> Self {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        let bin = d.join("bin");
        std::fs::create_dir(&bin).unwrap();
        write_script(
            &bin.join("scontrol"),
            &SCONTROL.replace("@DIR@", &d.display().to_string()),
        );
        // The doctor, recording its arguments and the GPUs it was asked about.
        write_script(
            &bin.join("rocm-doctor"),
            &format!(
                "#!/bin/sh\necho \"${{ROCR_VISIBLE_DEVICES:-unset}}\" >> {d}/gpus\necho \"$*\" >> {d}/args\nexec {} \"$@\"\n",
                env!("CARGO_BIN_EXE_rocm-doctor"),
                d = d.display()
            ),
        );
        // A doctor that hangs, to be killed by the script's timeout.
        write_script(&bin.join("slow-doctor"), "#!/bin/sh\nexec sleep 47\n");
        // A clang that never answers: the doctor's toolchain.clang ends as `error` (undecided).
        write_script(&bin.join("hung-clang"), "#!/bin/sh\nexec sleep 47\n");
        std::fs::write(d.join("settings"), "").unwrap();
        let b = Bench { dir };
        b.set_state("IDLE|");
        b
    }
    fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }
    fn set_state(&self, s: &str) {
        std::fs::write(self.path("state"), format!("{s}\n")).unwrap();
        self.clear();
    }
    fn clear(&self) {
        for f in ["calls", "args", "gpus"] {
            let _ = std::fs::remove_file(self.path(f));
        }
    }
    fn lines(&self, f: &str) -> Vec<String> {
        std::fs::read_to_string(self.path(f))
            .unwrap_or_default()
            .lines()
            .map(str::to_string)
            .collect()
    }
    fn calls(&self) -> Vec<String> {
        self.lines("calls")
    }
    fn state(&self) -> String {
        std::fs::read_to_string(self.path("state"))
            .unwrap()
            .trim()
            .to_string()
    }
    fn settings(&self, text: &str) {
        std::fs::write(self.path("settings"), text).unwrap();
    }
    /// Runs a script as slurmd does: a clean environment with only `env` (plus the settings
    /// file, the fake scontrol and the recording doctor unless `env` overrides them).
    fn run(&self, script: &str, args: &str, env: &[(&str, &str)]) -> Run {
        let path = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("contrib/slurm")
            .join(script);
        let mut c = Command::new("/bin/bash");
        c.arg(path)
            .env_clear()
            .env("TMPDIR", std::env::temp_dir())
            .env("ROCM_DOCTOR_CONFIG", self.path("settings"))
            .env("ROCM_DOCTOR_SCONTROL", self.path("bin/scontrol"))
            .env("ROCM_DOCTOR", self.path("bin/rocm-doctor"))
            .env("ROCM_DOCTOR_ARGS", args);
        for (k, v) in env {
            c.env(k, v);
        }
        let out = c.output().unwrap();
        Run {
            code: out.status.code().unwrap_or(-1),
            stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        }
    }
}

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/sysroots")
        .join(name)
}

const HC: &str = "rocm-doctor-healthcheck.sh";
const PL: &str = "rocm-doctor-prolog.sh";
const NODE: (&str, &str) = ("SLURMD_NODENAME", "gpu-07");

#[test]
fn health_check_drains_resumes_and_leaves_others_alone() {
    let b = Bench::new();
    let root = fixture("k8s-mi210x8-gfx90a-xgmi");
    let failing = format!("--sysroot {}", root.display());
    let healthy = format!("--sysroot {} --only gpu.agents", root.display());

    // Failing node, not drained: one drain with the failing ids.
    let r = b.run(HC, &failing, &[NODE]);
    assert_eq!(r.code, 0);
    let calls = b.calls();
    assert_eq!(calls.len(), 2, "{calls:?}");
    assert_eq!(calls[0], "show node gpu-07");
    assert_eq!(
        calls[1],
        "update NodeName=gpu-07 State=DRAIN Reason=rocm-doctor: fix-config: toolchain.rocm-root,toolchain.clang,runtime.libraries,gpu.driver"
    );
    assert!(
        r.stderr
            .contains("rocm-doctor-healthcheck: draining gpu-07: rocm-doctor: fix-config: toolchain.rocm-root"),
        "{}",
        r.stderr
    );
    // The script's own options, once.
    assert_eq!(
        b.lines("args"),
        [format!("--json --profile runtime --deadline 36 {failing}")]
    );
    // Unchanged: no update, and said so.
    b.clear();
    let r = b.run(HC, &failing, &[NODE]);
    assert_eq!(b.calls(), ["show node gpu-07"]);
    assert!(r.stderr.contains("already drained"), "{}", r.stderr);
    // The doctor cannot decide (exit 2): nothing, not even a look at the node; logged loudly.
    b.clear();
    let r = b.run(HC, "--only no.such-check", &[NODE]);
    assert_eq!(r.code, 0);
    assert!(b.calls().is_empty(), "{:?}", b.calls());
    assert!(
        r.stderr.contains("usage error (exit 2), NO CHECK RAN"),
        "{}",
        r.stderr
    );
    // Healthy again: resumed, because the drain is ours.
    b.clear();
    let r = b.run(HC, &healthy, &[NODE]);
    assert_eq!(
        b.calls(),
        ["show node gpu-07", "update NodeName=gpu-07 State=RESUME"]
    );
    assert_eq!(b.state(), "IDLE|");
    assert!(
        r.stderr.contains("healthy again: resuming gpu-07"),
        "{}",
        r.stderr
    );
    // Healthy and not drained: nothing, but logged.
    b.clear();
    let r = b.run(HC, &healthy, &[NODE]);
    assert_eq!(b.calls(), ["show node gpu-07"]);
    assert!(
        r.stderr.contains("healthy; gpu-07 IDLE: nothing to do"),
        "{}",
        r.stderr
    );

    // An operator's drain is never changed or resumed.
    b.set_state("IDLE+DRAIN|bad fan, ticket 42");
    let r1 = b.run(HC, &failing, &[NODE]);
    let r2 = b.run(HC, &healthy, &[NODE]);
    assert_eq!(b.calls(), ["show node gpu-07", "show node gpu-07"]);
    assert!(b.state().ends_with("bad fan, ticket 42"));
    assert!(
        r1.stderr
            .contains("with another reason (bad fan, ticket 42): left alone"),
        "{}",
        r1.stderr
    );
    assert!(
        r2.stderr.contains("drained by someone else"),
        "{}",
        r2.stderr
    );

    // Without SLURMD_NODENAME: the machine's short host name.
    b.set_state("IDLE|");
    b.run(HC, &healthy, &[]);
    let host = Command::new("hostname").arg("-s").output().unwrap();
    let host = String::from_utf8_lossy(&host.stdout).trim().to_string();
    assert_eq!(b.calls(), [format!("show node {host}")]);
}

#[test]
fn health_check_never_drains_on_errors_only() {
    let b = Bench::new();
    let hung = b.path("bin/hung-clang");
    // Only an `error` finding (the clang probe timed out): exit 1, but no failure.
    let undecided = format!(
        "--only toolchain.clang --clang {} --timeout 1",
        hung.display()
    );
    let r = b.run(HC, &undecided, &[NODE]);
    assert_eq!(r.code, 0);
    assert!(b.calls().is_empty(), "{:?}", b.calls());
    assert!(
        r.stderr
            .contains("could not decide: no failure, only errors (toolchain.clang)"),
        "{}",
        r.stderr
    );
    // Also when we drained it before: an unknown state resumes nothing and drains nothing.
    b.set_state("IDLE+DRAIN|rocm-doctor: gpu.driver");
    b.run(HC, &undecided, &[NODE]);
    assert!(b.calls().is_empty());
    assert_eq!(b.state(), "IDLE+DRAIN|rocm-doctor: gpu.driver");

    // Failures and errors together: drained for the failures only.
    b.set_state("IDLE|");
    let both = format!(
        "--sysroot {} --only gpu.driver,toolchain.clang --clang {} --timeout 1",
        fixture("k8s-mi210x8-gfx90a-xgmi").display(),
        hung.display()
    );
    let r = b.run(HC, &both, &[NODE]);
    assert_eq!(
        b.calls(),
        [
            "show node gpu-07",
            "update NodeName=gpu-07 State=DRAIN Reason=rocm-doctor: fix-config: gpu.driver"
        ],
        "{}",
        r.stderr
    );

    // The doctor killed by the script's timeout: nothing, logged; within the limit + grace.
    b.set_state("IDLE|");
    let t = Instant::now();
    let slow = b.path("bin/slow-doctor");
    let r = b.run(
        HC,
        "",
        &[
            NODE,
            ("ROCM_DOCTOR", slow.to_str().unwrap()),
            ("ROCM_DOCTOR_TIMEOUT", "3"),
        ],
    );
    assert!(t.elapsed() < Duration::from_secs(8), "{:?}", t.elapsed());
    assert!(b.calls().is_empty());
    assert!(r.stderr.contains("killed after 3 s"), "{}", r.stderr);

    // A doctor that is not there: nothing, logged loudly.
    let r = b.run(HC, "", &[NODE, ("ROCM_DOCTOR", "/nonexistent/rocm-doctor")]);
    assert!(b.calls().is_empty());
    assert!(
        r.stderr
            .contains("cannot run /nonexistent/rocm-doctor (exit 127), NO CHECK RAN"),
        "{}",
        r.stderr
    );
}

#[test]
fn health_check_options_deadline_and_settings_file() {
    let b = Bench::new();
    let healthy = format!(
        "--sysroot {} --only gpu.agents",
        fixture("k8s-mi210x8-gfx90a-xgmi").display()
    );
    // The deadline sits inside the limit for every limit, small ones included.
    for (limit, deadline) in [
        ("50", "45"),
        ("40", "36"),
        ("20", "18"),
        ("10", "8"),
        ("3", "1"),
        ("1", "1"),
        ("soon", "36"),
    ] {
        b.clear();
        b.run(HC, &healthy, &[NODE, ("ROCM_DOCTOR_TIMEOUT", limit)]);
        assert_eq!(
            b.lines("args"),
            [format!(
                "--json --profile runtime --deadline {deadline} {healthy}"
            )],
            "limit {limit}"
        );
    }
    // Options the user gives replace the script's own: no usage error.
    b.clear();
    let own = format!("--profile build --deadline=7 --json {healthy}");
    let r = b.run(HC, &own, &[NODE]);
    assert_eq!(b.lines("args"), [own]);
    assert_eq!(b.calls(), ["show node gpu-07"], "{}", r.stderr);

    // Settings from the file when the environment has none; the environment wins; other
    // variables of the file (SLURM_CONF) reach scontrol.
    b.clear();
    let failing = format!("--sysroot {}", fixture("k8s-mi210x8-gfx90a-xgmi").display());
    b.settings(&format!(
        "# site settings\nROCM_DOCTOR={}\nROCM_DOCTOR_ARGS=\"{healthy}\"\nROCM_DOCTOR_TIMEOUT=10\nROCM_DOCTOR_SCONTROL={}\nSLURM_CONF=/etc/slurm/test.conf\n",
        b.path("bin/rocm-doctor").display(),
        b.path("bin/scontrol").display()
    ));
    // slurmd's environment: SLURMD_NODENAME and nothing else (no PATH).
    let mut c = Command::new("/bin/bash");
    c.arg(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("contrib/slurm")
            .join(HC),
    )
    .env_clear()
    .env("SLURMD_NODENAME", "gpu-07")
    .env("ROCM_DOCTOR_CONFIG", b.path("settings"));
    let out = c.output().unwrap();
    assert!(out.status.success());
    assert_eq!(
        b.lines("args"),
        [format!("--json --profile runtime --deadline 8 {healthy}")],
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        b.lines("slurm_conf").last().unwrap(),
        "/etc/slurm/test.conf"
    );
    b.clear();
    b.run(HC, &failing, &[NODE]);
    assert_eq!(
        b.lines("args"),
        [format!("--json --profile runtime --deadline 8 {failing}")]
    );
    // A settings file that is named but missing is logged, and the run goes on.
    b.set_state("IDLE|");
    let r = b.run(
        HC,
        &healthy,
        &[NODE, ("ROCM_DOCTOR_CONFIG", "/nonexistent/rd")],
    );
    assert!(
        r.stderr
            .contains("settings file /nonexistent/rd (ROCM_DOCTOR_CONFIG) does not exist"),
        "{}",
        r.stderr
    );
    assert_eq!(b.calls(), ["show node gpu-07"]);
}

#[test]
fn prolog_checks_the_jobs_gpus() {
    let b = Bench::new();
    let root = fixture("k8s-mi210x8-gfx90a-xgmi");
    let pass = format!("--sysroot {}", fixture("gfx1030-dgpu").display());
    let job = ("SLURM_JOB_ID", "77");
    let r = b.run(PL, &pass, &[("SLURM_JOB_GPUS", "0"), job]);
    assert_eq!(r.code, 0);
    assert!(
        r.stderr.contains("rocm-doctor-prolog: job 77 GPUs 0: OK"),
        "{}",
        r.stderr
    );
    assert_eq!(
        b.lines("args"),
        [format!(
            "--npd --profile runtime --only gpu. --deadline 18 {pass}"
        )]
    );
    // GPUs the machine does not have: the job would see none.
    let r = b.run(PL, &pass, &[("SLURM_JOB_GPUS", "2,3"), job]);
    assert_eq!(r.code, 1);
    assert!(r.stderr.contains("Prolog error"), "{}", r.stderr);
    let fail = format!("--sysroot {}", root.display());
    assert_eq!(b.run(PL, &fail, &[("ROCR_VISIBLE_DEVICES", "0")]).code, 1);
    // The doctor's own failure does not drain the node.
    let r = b.run(PL, "--only no.such-check", &[]);
    assert_eq!(r.code, 0);
    assert!(
        r.stderr.contains("usage error (exit 2), NO CHECK RAN"),
        "{}",
        r.stderr
    );
    let gpus = b.lines("gpus");
    assert_eq!(gpus, ["0", "2,3", "0", "unset"]);
    assert!(
        b.calls().is_empty(),
        "the prolog never calls scontrol itself"
    );
}

#[test]
fn prolog_never_fails_a_job_when_undecided() {
    let b = Bench::new();
    // An error-only report (--npd exit 2, `UNKNOWN ...`): the job starts.
    let undecided = format!(
        "--only toolchain.clang --clang {} --timeout 1",
        b.path("bin/hung-clang").display()
    );
    let r = b.run(PL, &undecided, &[]);
    assert_eq!(r.code, 0);
    assert!(
        r.stderr
            .contains("could not decide, job ? starts: UNKNOWN toolchain.clang"),
        "{}",
        r.stderr
    );
    // Killed by the prolog's timeout: the job starts.
    let slow = b.path("bin/slow-doctor");
    let r = b.run(
        PL,
        "",
        &[
            ("ROCM_DOCTOR", slow.to_str().unwrap()),
            ("ROCM_DOCTOR_PROLOG_TIMEOUT", "3"),
        ],
    );
    assert_eq!(r.code, 0);
    assert!(r.stderr.contains("killed after 3 s"), "{}", r.stderr);
    // The prolog's own arguments and timeout win over the health check's.
    let pass = format!("--sysroot {}", fixture("gfx1030-dgpu").display());
    b.clear();
    b.settings(&format!(
        "ROCM_DOCTOR_ARGS=--no-such-option\nROCM_DOCTOR_TIMEOUT=40\nROCM_DOCTOR_PROLOG_ARGS=\"--profile build --only gpu.agents {pass}\"\nROCM_DOCTOR_PROLOG_TIMEOUT=10\n"
    ));
    let mut c = Command::new("/bin/bash");
    c.arg(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("contrib/slurm")
            .join(PL),
    )
    .env_clear()
    .env("SLURM_JOB_ID", "78")
    .env("ROCM_DOCTOR", b.path("bin/rocm-doctor"))
    .env("ROCM_DOCTOR_CONFIG", b.path("settings"));
    let out = c.output().unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        b.lines("args"),
        [format!(
            "--npd --deadline 8 --profile build --only gpu.agents {pass}"
        )]
    );
}

#[test]
fn scripts_pass_bash_n_and_shellcheck() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("contrib/slurm");
    for s in [HC, PL] {
        let p = dir.join(s);
        assert!(Command::new("bash")
            .arg("-n")
            .arg(&p)
            .status()
            .unwrap()
            .success());
        match Command::new("shellcheck").arg(&p).output() {
            Ok(o) => assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stdout)),
            Err(_) if !crate::common::toolchain_required() => {
                eprintln!("skipped: shellcheck not installed")
            }
            Err(e) => panic!("shellcheck: {e}"),
        }
    }
}

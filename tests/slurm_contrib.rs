//! contrib/slurm scripts with a fake `scontrol` and `hostname` on PATH that record their calls and
//! keep a node state, and the real rocm-doctor on fixture machines.

use crate::common::write_script;
use std::path::{Path, PathBuf};
use std::process::Command;

struct Bench {
    dir: tempfile::TempDir,
}

const SCONTROL: &str = r#"#!/bin/bash
echo "$*" >> "$FAKE_DIR/calls"
if [ "$1" = show ]; then
  st=$(cat "$FAKE_DIR/state")
  echo "NodeName=$3 Arch=x86_64 CoresPerSocket=64"
  echo "   State=${st%%|*} ThreadsPerCore=1"
  r=${st#*|}
  [ -n "$r" ] && echo "   Reason=$r [root@2026-11-23T06:00:00]"
  exit 0
fi
if [ "$1" = update ]; then
  case "$3" in
    State=DRAIN) echo "IDLE+DRAIN|${4#Reason=}" > "$FAKE_DIR/state" ;;
    State=RESUME) echo "IDLE|" > "$FAKE_DIR/state" ;;
  esac
fi
"#;

impl Bench {
    fn new() -> Self {
        let dir = tempfile::tempdir().unwrap();
        let bin = dir.path().join("bin");
        std::fs::create_dir(&bin).unwrap();
        write_script(&bin.join("scontrol"), SCONTROL);
        write_script(&bin.join("hostname"), "#!/bin/sh\necho gpu-07\n");
        // The doctor, recording the GPUs it was asked about.
        write_script(
            &bin.join("rocm-doctor"),
            &format!(
                "#!/bin/sh\necho \"${{ROCR_VISIBLE_DEVICES:-unset}}\" >> \"$FAKE_DIR/gpus\"\nexec {} \"$@\"\n",
                env!("CARGO_BIN_EXE_rocm-doctor")
            ),
        );
        let b = Bench { dir };
        b.set_state("IDLE|");
        b
    }
    fn set_state(&self, s: &str) {
        std::fs::write(self.dir.path().join("state"), format!("{s}\n")).unwrap();
        let _ = std::fs::remove_file(self.dir.path().join("calls"));
    }
    fn calls(&self) -> Vec<String> {
        std::fs::read_to_string(self.dir.path().join("calls"))
            .unwrap_or_default()
            .lines()
            .map(str::to_string)
            .collect()
    }
    fn state(&self) -> String {
        std::fs::read_to_string(self.dir.path().join("state"))
            .unwrap()
            .trim()
            .to_string()
    }
    fn run(&self, script: &str, args: &str, env: &[(&str, &str)]) -> i32 {
        let path = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("contrib/slurm")
            .join(script);
        let mut c = Command::new("bash");
        c.arg(path)
            .env_clear()
            .env(
                "PATH",
                format!("{}:/usr/bin:/bin", self.dir.path().join("bin").display()),
            )
            .env("FAKE_DIR", self.dir.path())
            .env("TMPDIR", std::env::temp_dir())
            .env("ROCM_DOCTOR_ARGS", args);
        for (k, v) in env {
            c.env(k, v);
        }
        let out = c.output().unwrap();
        out.status.code().unwrap_or(-1)
    }
}

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/sysroots")
        .join(name)
}

#[test]
fn health_check_drains_resumes_and_leaves_others_alone() {
    let b = Bench::new();
    let root = fixture("k8s-mi210x8-gfx90a-xgmi");
    let failing = format!("--sysroot {}", root.display());
    let healthy = format!("--sysroot {} --only gpu.agents", root.display());
    let hc = "rocm-doctor-healthcheck.sh";

    // Failing node, not drained: one drain with the failing ids; the name from `hostname`.
    assert_eq!(b.run(hc, &failing, &[]), 0);
    let calls = b.calls();
    assert_eq!(calls.len(), 2, "{calls:?}");
    assert_eq!(calls[0], "show node gpu-07");
    assert_eq!(
        calls[1],
        "update NodeName=gpu-07 State=DRAIN Reason=rocm-doctor: toolchain.rocm-root,toolchain.clang,runtime.libraries,gpu.driver"
    );
    // Unchanged: no update.
    let _ = std::fs::remove_file(b.dir.path().join("calls"));
    assert_eq!(b.run(hc, &failing, &[("SLURMD_NODENAME", "gpu-07")]), 0);
    assert_eq!(b.calls(), ["show node gpu-07"]);
    // The doctor cannot decide (exit 2): nothing, even though it drained the node itself.
    let _ = std::fs::remove_file(b.dir.path().join("calls"));
    assert_eq!(b.run(hc, "--only no.such-check", &[]), 0);
    assert_eq!(b.calls(), ["show node gpu-07"]);
    // Healthy again: resumed, because the drain is ours.
    let _ = std::fs::remove_file(b.dir.path().join("calls"));
    assert_eq!(b.run(hc, &healthy, &[("SLURMD_NODENAME", "gpu-07")]), 0);
    assert_eq!(
        b.calls(),
        ["show node gpu-07", "update NodeName=gpu-07 State=RESUME"]
    );
    assert_eq!(b.state(), "IDLE|");
    // Healthy and not drained: nothing.
    let _ = std::fs::remove_file(b.dir.path().join("calls"));
    b.run(hc, &healthy, &[]);
    assert_eq!(b.calls(), ["show node gpu-07"]);

    // An operator's drain is never changed or resumed.
    b.set_state("IDLE+DRAIN|bad fan, ticket 42");
    b.run(hc, &failing, &[]);
    b.run(hc, &healthy, &[]);
    assert_eq!(b.calls(), ["show node gpu-07", "show node gpu-07"]);
    assert!(b.state().ends_with("bad fan, ticket 42"));
}

#[test]
fn prolog_checks_the_jobs_gpus() {
    let b = Bench::new();
    let root = fixture("k8s-mi210x8-gfx90a-xgmi");
    let pl = "rocm-doctor-prolog.sh";
    let pass = format!("--sysroot {}", fixture("gfx1030-dgpu").display());
    assert_eq!(b.run(pl, &pass, &[("SLURM_JOB_GPUS", "0")]), 0);
    // GPUs the machine does not have: the job would see none.
    assert_eq!(b.run(pl, &pass, &[("SLURM_JOB_GPUS", "2,3")]), 1);
    let fail = format!("--sysroot {}", root.display());
    assert_eq!(b.run(pl, &fail, &[("ROCR_VISIBLE_DEVICES", "0")]), 1);
    // The doctor's own failure does not drain the node.
    assert_eq!(b.run(pl, "--only no.such-check", &[]), 0);
    let gpus = std::fs::read_to_string(b.dir.path().join("gpus")).unwrap();
    assert_eq!(gpus.lines().collect::<Vec<_>>(), ["0", "2,3", "0", "unset"]);
    assert!(
        b.calls().is_empty(),
        "the prolog never calls scontrol itself"
    );
}

#[test]
fn scripts_pass_bash_n_and_shellcheck() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("contrib/slurm");
    for s in ["rocm-doctor-healthcheck.sh", "rocm-doctor-prolog.sh"] {
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
